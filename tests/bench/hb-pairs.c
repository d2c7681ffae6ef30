/*
 * hb-pairs - an MPI program that makes many overlapping accesses, ordered
 * by messages, for timing conflict-check --hb on a long pair list:
 *
 *   hb-pairs [steps]      (default 20000), in the working directory
 *
 * In each step one rank, in turn, writes one of 8 blocks of the shared
 * file "f" and passes a token round the ring; the next rank reads the
 * block back and, every 16th step, fsyncs first.  Every write and read
 * of a block overlaps the earlier ones of that block (RAW-D, WAW-D), and
 * the token orders them all.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096];
	long steps = argc > 1 ? strtol(argv[1], NULL, 10) : 20000, i;
	int rank, size, fd, token = 0, bad = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0)
		close(open("f", O_CREAT | O_WRONLY | O_TRUNC, 0644));
	MPI_Barrier(MPI_COMM_WORLD);
	fd = open("f", O_RDWR);
	memset(buf, 'a' + rank, sizeof(buf));
	for (i = 0; i < steps; i++) {
		int w = (int)(i % size), r = (w + 1) % size;
		off_t at = (off_t)(i % 8) * (off_t)sizeof(buf);
		if (rank == w) {
			bad |= pwrite(fd, buf, sizeof(buf), at) != (ssize_t)sizeof(buf);
			if (i % 16 == 0)
				fsync(fd);
			MPI_Send(&token, 1, MPI_INT, r, 0, MPI_COMM_WORLD);
		} else if (rank == r) {
			MPI_Recv(&token, 1, MPI_INT, w, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			bad |= pread(fd, buf, sizeof(buf), at) != (ssize_t)sizeof(buf);
		}
	}
	close(fd);
	MPI_Finalize();
	return bad;
}
