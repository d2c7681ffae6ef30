/*
 * sendrecv - a ring of 4: each rank sends to its right and receives from
 * its left in one MPI_Sendrecv, then again with MPI_Sendrecv_replace.  A
 * Sendrecv may send before it receives, so one round orders each rank
 * after its left neighbour only, not after the one beyond.
 *
 *   every rank: A Sendrecv B Sendrecv_replace C
 */
#include <mpi.h>

#include "mark.h"

int main(int argc, char **argv)
{
	int rank, size, right, left, out, in;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	right = (rank + 1) % size;
	left = (rank + size - 1) % size;
	out = rank;
	mark("A");
	MPI_Sendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE);
	mark("B");
	MPI_Sendrecv_replace(&out, 1, MPI_INT, right, 2, left, 2, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
	mark("C");
	MPI_Finalize();
	return 0;
}
