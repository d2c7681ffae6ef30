/*
 * tfs-bench - write bandwidth of TangramFS under the sync-based design
 * (dissertation §5.5): the fpp, contiguous and strided workloads, each
 * under sync-posix, sync-commit and sync-session (Table 5.5 applied to the
 * primitives directly), beside the raw bandwidth of writing the same bytes
 * with pwrite(2) straight into TFS_BB_DIR, in the same run.
 *
 * usage: mpirun -n NP tfs-bench [-M writes] [-P ranks-per-node] [-r repeats] [-S bytes]
 * Every rank is a process; TFS_NODE is rank / P, so N = NP / P.  One line
 * per workload and model: the best of the repeats, timed from a barrier
 * before the opens to a barrier after the closes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tfs/tfs.h"

enum { RAW, POSIX, COMMIT, SESSION };
static const char *const model_name[] = { "raw", "sync-posix", "sync-commit", "sync-session" };
static const char *const wl_name[] = { "fpp", "contiguous", "strided" };

static int rank, np;
static long M = 8, S = 4 << 20, P = 1;

static size_t offset_of(int wl, long i)
{
	switch (wl) {
	case 0:
		return (size_t)i * (size_t)S;			/* own file */
	case 1:
		return ((size_t)rank * M + (size_t)i) * (size_t)S;	/* rank * MPS */
	default:
		return ((size_t)i * np + (size_t)rank) * (size_t)S;	/* i*NPS + j*S */
	}
}

static double run(int wl, int model, const char *bb, char *buf)
{
	char name[4096];
	double t0, t1, dt, worst;

	if (wl == 0)
		snprintf(name, sizeof(name), "bench-%s-%d", wl_name[wl], rank);
	else
		snprintf(name, sizeof(name), "bench-%s", wl_name[wl]);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	if (model == RAW) {
		char path[8192];
		int fd;

		snprintf(path, sizeof(path), "%s/raw-%s", bb, name);
		if ((fd = open(path, O_WRONLY | O_CREAT, 0600)) < 0) {
			perror(path);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		for (long i = 0; i < M; i++)
			if (pwrite(fd, buf, (size_t)S, (off_t)offset_of(wl, i)) != S)
				MPI_Abort(MPI_COMM_WORLD, 2);
		close(fd);
		t1 = MPI_Wtime();
		MPI_Barrier(MPI_COMM_WORLD);
		unlink(path);
	} else {
		tfs_file_t *f = tfs_open(name);

		if (!f) {
			perror("tfs_open");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		for (long i = 0; i < M; i++) {
			size_t off = offset_of(wl, i);

			if (tfs_pwrite(f, buf, (size_t)S, off) != S ||
			    (model == POSIX && tfs_attach(f, off, (size_t)S) < 0)) {
				perror("tfs_pwrite/tfs_attach");
				MPI_Abort(MPI_COMM_WORLD, 2);
			}
		}
		if (model != POSIX && tfs_attach_file(f) < 0)
			MPI_Abort(MPI_COMM_WORLD, 2);
		/* untimed below: the close keeps the attached writes buffered */
		t1 = MPI_Wtime();
		MPI_Barrier(MPI_COMM_WORLD);
		tfs_detach_file(f);	/* so the buffer goes at close */
		tfs_close(f);
	}
	dt = t1 - t0;
	MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return worst;
}

int main(int argc, char **argv)
{
	const char *bb = getenv("TFS_BB_DIR");
	char node[32], *buf;
	long reps = 3;
	int c;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	while ((c = getopt(argc, argv, "M:P:r:S:")) != -1) {
		switch (c) {
		case 'M': M = strtol(optarg, NULL, 10); break;
		case 'P': P = strtol(optarg, NULL, 10); break;
		case 'r': reps = strtol(optarg, NULL, 10); break;
		case 'S': S = strtol(optarg, NULL, 10); break;
		default:
			if (rank == 0)
				fprintf(stderr, "usage: tfs-bench [-M writes] [-P ranks-per-node] "
					"[-r repeats] [-S bytes]\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (M < 1 || S < 1 || P < 1 || reps < 1 || !bb) {
		if (rank == 0)
			fprintf(stderr, "tfs-bench: bad -M, -S, -P or -r, or TFS_BB_DIR unset\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	snprintf(node, sizeof(node), "%ld", rank / P);
	setenv("TFS_NODE", node, 1);
	if (!(buf = malloc((size_t)S)))
		MPI_Abort(MPI_COMM_WORLD, 2);
	memset(buf, 'x', (size_t)S);
	if (tfs_init() < 0) {
		perror("tfs-bench: tfs_init");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (rank == 0)
		printf("%-11s %-13s %3s %3s %4s %9s %10s %9s %6s\n", "workload", "model", "N", "P",
		       "M", "S", "bytes", "MiB/s", "%raw");
	for (int wl = 0; wl < 3; wl++) {
		double raw = 0;

		for (int model = RAW; model <= SESSION; model++) {
			double best = 1e30, bw;
			double bytes = (double)np * (double)M * (double)S;

			for (long r = 0; r < reps; r++) {
				double t = run(wl, model, bb, buf);

				if (t < best)
					best = t;
			}
			bw = bytes / best / (1 << 20);
			if (model == RAW)
				raw = bw;
			if (rank == 0)
				printf("%-11s %-13s %3ld %3ld %4ld %9ld %10.0f %9.1f %5.1f%%\n",
				       wl_name[wl], model_name[model], np / P, P, M, S, bytes, bw,
				       100 * bw / raw);
		}
	}
	free(buf);
	tfs_finalize();
	MPI_Finalize();
	return 0;
}
