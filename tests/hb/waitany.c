/*
 * waitany - MPI_Waitany completes the second of two receives first: rank
 * 1 sends tag 2 when told to, and tag 1 only when told again, after rank
 * 0's first Waitany returned.
 *
 *   rank 0: Irecv(tag 1) Irecv(tag 2) Send(go) Waitany A0 Send(go) Waitany B0
 *   rank 1: Recv(go) C1 Send(tag 2) Recv(go) D1 Send(tag 1)
 */
#include <mpi.h>

#include "mark.h"

int main(int argc, char **argv)
{
	int rank, a = 0, b = 0, go = 1, idx;
	MPI_Request rq[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Irecv(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq[0]);
		MPI_Irecv(&b, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &rq[1]);
		MPI_Send(&go, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
		MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
		mark("A0");
		MPI_Send(&go, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
		MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
		mark("B0");
	} else if (rank == 1) {
		MPI_Recv(&go, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		mark("C1");
		MPI_Send(&b, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
		MPI_Recv(&go, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		mark("D1");
		MPI_Send(&a, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
