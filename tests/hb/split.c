/*
 * split - communicators made by MPI_Comm_split and MPI_Comm_dup on 4
 * ranks.  The split by parity with key -rank gives [2,0] and [3,1]: rank
 * 0 of each half sends to rank 1 of its half, so dest=1 means world rank
 * 0 on rank 2 and world rank 1 on rank 3.  The two MPI_Comm_dup of the
 * world have the same members and are told apart by the order they were
 * made in: even ranks start a broadcast on the first and then on the
 * second, odd ranks the other way round.
 *
 *   every rank: split A (Send or Recv in the half) B Barrier(half) C
 *               dup dup D Ibcast(dupA, root 0), Ibcast(dupB, root 1) in
 *               either order, Waitall E
 */
#include <mpi.h>

#include "mark.h"

int main(int argc, char **argv)
{
	int rank, sub, v = 0, x = 1, y = 2;
	MPI_Comm half, dupa, dupb;
	MPI_Request rq[2];
	MPI_Status st[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
	MPI_Comm_rank(half, &sub);
	mark("A");
	if (sub == 0)
		MPI_Send(&v, 1, MPI_INT, 1, 5, half);
	else
		MPI_Recv(&v, 1, MPI_INT, 0, 5, half, MPI_STATUS_IGNORE);
	mark("B");
	MPI_Barrier(half);
	mark("C");
	MPI_Comm_dup(MPI_COMM_WORLD, &dupa);
	MPI_Comm_dup(MPI_COMM_WORLD, &dupb);
	mark("D");
	if (rank % 2 == 0) {
		MPI_Ibcast(&x, 1, MPI_INT, 0, dupa, &rq[0]);
		MPI_Ibcast(&y, 1, MPI_INT, 1, dupb, &rq[1]);
	} else {
		MPI_Ibcast(&y, 1, MPI_INT, 1, dupb, &rq[1]);
		MPI_Ibcast(&x, 1, MPI_INT, 0, dupa, &rq[0]);
	}
	MPI_Waitall(2, rq, st);
	mark("E");
	MPI_Comm_free(&dupb);
	MPI_Comm_free(&dupa);
	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}
