/*
 * nto1-pwrite - N-1 strided writes with pwrite(2): every rank writes
 * blocks of S bytes to one shared file, block i of rank r at offset
 * (i * P + r) * S, so that the ranks' blocks interleave.
 *
 *   nto1-pwrite file [writes [S]]          (defaults 16, 4096)
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	int rank, size, i, n, fd;
	long s;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	n = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 16;
	s = argc > 3 ? strtol(argv[3], NULL, 10) : 4096;
	if (argc < 2 || s <= 0 || s > (long)sizeof(buf))
		MPI_Abort(MPI_COMM_WORLD, 2);
	memset(buf, 'a' + rank % 26, (size_t)s);
	fd = open(argv[1], O_WRONLY | O_CREAT, 0644);
	for (i = 0; i < n; i++)
		if (pwrite(fd, buf, (size_t)s, ((off_t)i * size + rank) * s) != s)
			MPI_Abort(MPI_COMM_WORLD, 1);
	close(fd);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
