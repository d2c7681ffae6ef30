/*
 * eager - a standard send orders the sender's past before the receiver's
 * future, and nothing else: it may complete before the receive is posted.
 * A synchronous send also orders the receiver's past, up to where it
 * posted its receive, before the sender's future.
 *
 *   rank 0: A0 Send(tag 1) B0 Ssend(tag 2) C0
 *   rank 1: A1 Recv(tag 1) B1 Recv(tag 2) C1
 */
#include <mpi.h>

#include "mark.h"

int main(int argc, char **argv)
{
	int rank, v = 1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		mark("A0");
		MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
		mark("B0");
		MPI_Ssend(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
		mark("C0");
	} else if (rank == 1) {
		mark("A1");
		MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		mark("B1");
		MPI_Recv(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		mark("C1");
	}
	MPI_Finalize();
	return 0;
}
