/*
 * coll - rooted and unrooted collectives on 4 ranks, a marker between
 * each: Reduce to rank 2 (all to the root), Scatter from rank 3 (the root
 * to all), Allreduce, Barrier, Bcast from rank 1, Alltoall.
 *
 *   every rank: M0 Reduce M1 Scatter M2 Allreduce M3 Barrier M4 Bcast M5
 *               Alltoall M6
 */
#include <mpi.h>

#include "mark.h"

int main(int argc, char **argv)
{
	int v = 1, w = 0, all[4] = { 0 }, got[4];

	MPI_Init(&argc, &argv);
	mark("M0");
	MPI_Reduce(&v, &w, 1, MPI_INT, MPI_SUM, 2, MPI_COMM_WORLD);
	mark("M1");
	MPI_Scatter(all, 1, MPI_INT, &w, 1, MPI_INT, 3, MPI_COMM_WORLD);
	mark("M2");
	MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	mark("M3");
	MPI_Barrier(MPI_COMM_WORLD);
	mark("M4");
	MPI_Bcast(&v, 1, MPI_INT, 1, MPI_COMM_WORLD);
	mark("M5");
	MPI_Alltoall(all, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD);
	mark("M6");
	MPI_Finalize();
	return 0;
}
