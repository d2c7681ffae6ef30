/*
 * sends - rank r sends r + 2 ints, one MPI_Send each, to the next rank
 * (ranks 0 and 1: 2 and 3 sends), which receives them.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, i, v, sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; i < rank + 2; i++)
		MPI_Send(&i, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
	for (i = 0; i < (rank + size - 1) % size + 2; i++) {
		MPI_Recv(&v, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		sum += v;
	}
	printf("%d: received %d\n", rank, sum);
	MPI_Finalize();
	return 0;
}
