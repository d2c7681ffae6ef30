/*
 * ibcast - a nonblocking broadcast from rank 0 orders the root's start
 * before the end of the wait that completes it on each other rank, not
 * before the call that started it there.
 *
 *   every rank: A Ibcast(root 0) B Wait C
 */
#include <mpi.h>

#include "mark.h"

int main(int argc, char **argv)
{
	int v = 7;
	MPI_Request rq;

	MPI_Init(&argc, &argv);
	mark("A");
	MPI_Ibcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq);
	mark("B");
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	mark("C");
	MPI_Finalize();
	return 0;
}
