/*
 * tfs-peer-read - a synced read of blocks other clients hold: ranks 1 to
 * W (one client each) write every W-th block of 4 KiB of one file, 64
 * blocks each, in turn (block b by rank 1 + b % W), and attach them; rank
 * 0 reads the whole file with tfs_pread_synced, which asks each block of
 * its owner (PEER_READ), and checks it; meanwhile the writers wait in a
 * barrier that sleeps.  Rank 0 prints the median time of that read over
 * ROUNDS rounds (default 10), and per block:
 *
 *   peer-read W writers N blocks: T us, B us per block
 *
 *   mpirun -n W+1 tfs-peer-read [ROUNDS]     (TFS_SERVER set; TFS_NODE
 *                                             per rank)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tfs.h"

#define BLOCKS 64	/* per writer */
#define BS 4096

/* A barrier that sleeps while it waits: an MPI library that polls would
 * keep the writers' listener threads, which serve the reads, off the
 * cores of an oversubscribed node. */
static void idle_barrier(void)
{
	MPI_Request r;
	int done = 0;

	MPI_Ibarrier(MPI_COMM_WORLD, &r);
	while (!done) {
		MPI_Test(&r, &done, MPI_STATUS_IGNORE);
		if (!done)
			usleep(200);
	}
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rank, size, w, rounds = argc > 1 ? atoi(argv[1]) : 10;
	size_t total;
	double *t;
	char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	w = size - 1;
	total = (size_t)BLOCKS * (size_t)w * BS;
	if (w < 1 || rounds < 1 || !(buf = malloc(total)) || !(t = calloc((size_t)rounds, sizeof(*t)))) {
		if (rank == 0)
			fputs("usage: mpirun -n W+1 tfs-peer-read [rounds]\n", stderr);
		MPI_Abort(MPI_COMM_WORLD, 2);
		return 2;
	}
	for (int r = 0; r < rounds; r++) {
		char name[32];
		tfs_file_t *f;

		snprintf(name, sizeof(name), "peer-read-%d", r);
		if (!(f = tfs_open(name))) {
			perror("tfs-peer-read: tfs_open");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		if (rank > 0) {
			memset(buf, 'a' + rank % 26, BS);
			for (int b = rank - 1; b < BLOCKS * w; b += w)
				if (tfs_pwrite(f, buf, BS, (size_t)b * BS) != BS)
					MPI_Abort(MPI_COMM_WORLD, 2);
			if (tfs_attach_file(f) < 0)
				MPI_Abort(MPI_COMM_WORLD, 2);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank > 0)
			idle_barrier();	/* while rank 0 reads */
		if (rank == 0) {
			double t0 = MPI_Wtime();
			ssize_t n = tfs_pread_synced(f, buf, total, 0);

			t[r] = MPI_Wtime() - t0;
			if (n != (ssize_t)total) {
				perror("tfs-peer-read: tfs_pread_synced");
				MPI_Abort(MPI_COMM_WORLD, 2);
			}
			for (int b = 0; b < BLOCKS * w; b++)
				if (buf[(size_t)b * BS] != 'a' + (1 + b % w) % 26) {
					fprintf(stderr, "tfs-peer-read: block %d is not its writer's\n", b);
					MPI_Abort(MPI_COMM_WORLD, 2);
				}
			idle_barrier();
		}
		/* (detached, the buffers go at close) */
		if ((rank > 0 && tfs_detach_file(f) < 0) || tfs_close(f) < 0)
			MPI_Abort(MPI_COMM_WORLD, 2);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (rank == 0) {
		qsort(t, (size_t)rounds, sizeof(*t), by_value);
		printf("peer-read %d writers %d blocks: %.0f us, %.1f us per block\n", w, BLOCKS * w,
		       t[rounds / 2] * 1e6, t[rounds / 2] * 1e6 / (BLOCKS * w));
	}
	free(buf);
	free(t);
	MPI_Finalize();
	return 0;
}
