/*
 * handoff - a block handed from one rank to another through a file, STEPS
 * times: rank 0 opens FILE, writes 64 bytes at 0, closes it; a barrier;
 * rank 1 opens it, reads the 64 bytes, closes it; a barrier.  Session;
 * each read pairs with the write before it and the one after it, not
 * with every later write (tests/mpi.bats counts the pairs).  With
 * "nosync" the second barrier is left out, and rank 0's next write
 * races rank 1's read.
 *
 *   handoff STEPS FILE [nosync]
 *
 * Rank 1 prints how many reads found the step's bytes.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[64];
	long steps, i, good = 0;
	int rank, fd, sync;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 3 || (steps = atol(argv[1])) <= 0)
		MPI_Abort(MPI_COMM_WORLD, 2);
	sync = argc < 4 || strcmp(argv[3], "nosync") != 0;
	if (rank == 0)
		close(open(argv[2], O_CREAT | O_TRUNC | O_WRONLY, 0644));
	MPI_Barrier(MPI_COMM_WORLD);
	for (i = 0; i < steps; i++) {
		if (rank == 0) {
			fd = open(argv[2], O_WRONLY);
			memset(buf, 'a' + (int)(i % 26), sizeof(buf));
			if (fd < 0 || pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
				MPI_Abort(MPI_COMM_WORLD, 1);
			close(fd);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 1) {
			fd = open(argv[2], O_RDONLY);
			if (fd >= 0 && pread(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) &&
			    buf[0] == 'a' + (int)(i % 26))
				good++;
			close(fd);
		}
		if (sync)
			MPI_Barrier(MPI_COMM_WORLD);
	}
	if (rank == 1)
		printf("%ld of %ld\n", good, steps);
	MPI_Finalize();
	return 0;
}
