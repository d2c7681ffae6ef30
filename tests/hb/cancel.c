/*
 * cancel - a receive that is cancelled: rank 0 posts an MPI_Irecv from
 * rank 1 with tag 99 that nothing sends, cancels it, waits for it and
 * checks MPI_Test_cancelled; then rank 1 sends tag 5 and rank 0 receives
 * it.  The cancelled receive matches no send and is no problem; the
 * message of tag 5 orders A before B.
 *
 *   rank 1: A Send(5)
 *   rank 0: Irecv(99) Cancel Wait Test_cancelled Recv(5) B
 */
#include <mpi.h>
#include <stdio.h>

#include "mark.h"

int main(int argc, char **argv)
{
	int rank, v = 0, flag = 0;
	MPI_Request req;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Irecv(&v, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, &req);
		MPI_Cancel(&req);
		MPI_Wait(&req, &st);
		MPI_Test_cancelled(&st, &flag);
		if (!flag) {
			fprintf(stderr, "cancel: the receive was not cancelled\n");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		MPI_Recv(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		mark("B");
	} else if (rank == 1) {
		mark("A");
		MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
