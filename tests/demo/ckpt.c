/*
 * ckpt - the bundled MPI example: every rank writes its share of one
 * shared checkpoint file (N-1 strided: segment i of rank r at offset
 * (i * P + r) * SEG), closes it, and after a barrier "restarts" from the
 * share of its right neighbour, reading it back and checking every byte.
 * This is the close-to-open pattern session semantics is made for.
 *
 * Usage: ckpt FILE [segment KiB] [segments per rank]
 * Prints one line on rank 0: the bandwidth of each phase.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

static void fill(char *b, size_t n, int rank, int i)
{
	size_t k;

	for (k = 0; k < n; k++)
		b[k] = (char)('A' + (rank * 7 + i * 3 + (int)(k % 13)) % 26);
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "ckpt: %s %s: %s\n", what, path, strerror(errno));
	MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
	int rank, size, i, fd, nseg, peer, bad = 0, anybad;
	size_t seg;
	char *buf, *want;
	double t0, t1, t2;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2) {
		if (rank == 0)
			fprintf(stderr, "usage: ckpt file [segment-KiB] [segments]\n");
		MPI_Finalize();
		return 2;
	}
	seg = (size_t)(argc > 2 ? strtoul(argv[2], NULL, 10) : 64) * 1024;
	nseg = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 16;
	buf = malloc(seg);
	want = malloc(seg);
	if (!buf || !want || !seg || nseg < 1) {
		fprintf(stderr, "ckpt: bad sizes\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	if ((fd = open(argv[1], O_WRONLY | O_CREAT, 0644)) < 0)
		die("open", argv[1]);
	for (i = 0; i < nseg; i++) {
		fill(buf, seg, rank, i);
		if (pwrite(fd, buf, seg, (off_t)((size_t)i * size + rank) * seg) != (ssize_t)seg)
			die("pwrite", argv[1]);
	}
	if (close(fd) < 0)
		die("close", argv[1]);
	MPI_Barrier(MPI_COMM_WORLD);
	t1 = MPI_Wtime();

	peer = (rank + 1) % size;
	if ((fd = open(argv[1], O_RDONLY)) < 0)
		die("open", argv[1]);
	for (i = 0; i < nseg; i++) {
		fill(want, seg, peer, i);
		if (pread(fd, buf, seg, (off_t)((size_t)i * size + peer) * seg) != (ssize_t)seg)
			die("pread", argv[1]);
		if (memcmp(buf, want, seg) != 0)
			bad++;
	}
	close(fd);
	MPI_Barrier(MPI_COMM_WORLD);
	t2 = MPI_Wtime();

	MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0) {
		double mib = (double)seg * nseg * size / (1024.0 * 1024.0);
		printf("ckpt: %d ranks x %d x %zu KiB: write %.0f MiB/s, restart read %.0f MiB/s, %s\n",
		       size, nseg, seg / 1024, mib / (t1 - t0), mib / (t2 - t1),
		       anybad ? "WRONG DATA" : "every byte checked");
	}
	free(buf);
	free(want);
	MPI_Finalize();
	return anybad ? 1 : 0;
}
