/*
 * abort - rank 1 writes a line to standard output, then calls
 * MPI_Abort(MPI_COMM_WORLD, 3); the other ranks wait in MPI_Recv for a
 * message that never comes, until the launcher kills them.
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, v;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		write(1, "aborting\n", 9);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
