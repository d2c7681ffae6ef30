/*
 * inter - an intercommunicator between the even ranks [0,2] and the odd
 * ranks [1,3] of 4.  Ranks in its calls are ranks of the remote group:
 * world 0 sends to remote rank 1, world 3.  World 2 (rank 1 of the even
 * group) broadcasts to the odd group: it passes MPI_ROOT, world 0
 * MPI_PROC_NULL, the odd ranks 1.  An MPI_Allreduce orders each group's
 * starts before the other group's ends, not before its own.
 *
 *   every rank: split, Intercomm_create A (world 0 Send, world 3 Recv) B
 *               Bcast C Allreduce D
 */
#include <mpi.h>

#include "mark.h"

int main(int argc, char **argv)
{
	int rank, v = 3, w, root;
	MPI_Comm half, inter;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
	mark("A");
	if (rank == 0)
		MPI_Send(&v, 1, MPI_INT, 1, 3, inter);
	else if (rank == 3)
		MPI_Recv(&v, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE);
	mark("B");
	root = rank == 2 ? MPI_ROOT : rank % 2 == 0 ? MPI_PROC_NULL : 1;
	MPI_Bcast(&v, 1, MPI_INT, root, inter);
	mark("C");
	MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, inter);
	mark("D");
	MPI_Comm_free(&inter);
	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}
