/*
 * ring - every rank passes its rank to the right with MPI_Sendrecv
 * (tag 1), then passes 100 + rank to the left with MPI_Sendrecv_replace
 * (tag 2), and prints what came from either side.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, right, left, got = -1, v;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	right = (rank + 1) % size;
	left = (rank + size - 1) % size;
	MPI_Sendrecv(&rank, 1, MPI_INT, right, 1, &got, 1, MPI_INT, left, 1,
		     MPI_COMM_WORLD, &st);
	v = 100 + rank;
	MPI_Sendrecv_replace(&v, 1, MPI_INT, left, 2, right, 2, MPI_COMM_WORLD, &st);
	printf("%d: %d from the left, %d from the right\n", rank, got, v);
	MPI_Finalize();
	return 0;
}
