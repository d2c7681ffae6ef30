/*
 * anysrc - ranks 1 and 2 race to rank 0, which receives from
 * MPI_ANY_SOURCE: who came first is known only from the status.
 *
 *   round 1, ranks 1, 2: A Send(tag = rank)
 *            rank 0:     Recv(any) B0 Recv(any) C0, then Send "go" to both
 *   round 2, ranks 1, 2: Recv(go) D Send(tag = 20 + rank)
 *            rank 0:     Irecv(any) Wait E0 Irecv(any) Wait F0
 */
#include <mpi.h>

#include "mark.h"

int main(int argc, char **argv)
{
	int rank, v = 0, i;
	MPI_Request rq;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		mark("B0");
		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		mark("C0");
		for (i = 1; i <= 2; i++)
			MPI_Send(&v, 1, MPI_INT, i, 5, MPI_COMM_WORLD);
		MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq);
		MPI_Wait(&rq, &st);
		mark("E0");
		MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq);
		MPI_Wait(&rq, &st);
		mark("F0");
	} else if (rank <= 2) {
		mark("A");
		MPI_Send(&rank, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
		MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		mark("D");
		v = 20 + rank;
		MPI_Send(&v, 1, MPI_INT, 0, v, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
