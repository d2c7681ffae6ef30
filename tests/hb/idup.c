/*
 * idup - MPI_Comm_idup of an intercommunicator between the even ranks
 * [0,2] and the odd ranks [1,3] of 4, completed with MPI_Wait, then an
 * MPI_Allreduce on the copy: each group's starts before the other
 * group's ends, not before its own.  The copy's #comm line must name
 * both groups, read when the idup completed.
 *
 *   every rank: split, Intercomm_create, Comm_idup, Wait A Allreduce B
 */
#include <mpi.h>

#include "mark.h"

int main(int argc, char **argv)
{
	int rank, v = 3, w;
	MPI_Comm half, inter, dup;
	MPI_Request req;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
	MPI_Comm_idup(inter, &dup, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	mark("A");
	MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, dup);
	mark("B");
	MPI_Comm_free(&dup);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}
