/*
 * scan - MPI_Scan orders ranks 0..i before the end of rank i's call, and
 * MPI_Exscan ranks 0..i-1; neither orders a higher rank before a lower.
 *
 *   every rank: M0 Scan M1 Exscan M2
 */
#include <mpi.h>

#include "mark.h"

int main(int argc, char **argv)
{
	int v = 1, w = 0;

	MPI_Init(&argc, &argv);
	mark("M0");
	MPI_Scan(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	mark("M1");
	MPI_Exscan(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	mark("M2");
	MPI_Finalize();
	return 0;
}
