/*
 * lbub - a file view built the MPI-1 way, with MPI_LB and MPI_UB markers
 * around the data (as ABINIT's Fortran code builds its views).  Open MPI
 * 4.1's mpi.h hides the two from C; its Fortran handles are 4 (MPI_LB) and
 * 3 (MPI_UB), taken here through MPI_Type_f2c as a Fortran binding would.
 * Each rank writes 4 doubles into every other 64-byte slot of "lbub.dat"
 * through such a view, then, after a barrier and no sync, reads the other
 * rank's (a conflict of MPI-IO's models: sync-barrier-sync is missing),
 * closes, and prints the type's extent and the first double it read.
 * Open MPI only.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	MPI_Datatype types[3], t;
	int bl[3] = { 1, 4, 1 }, rank, rc;
	MPI_Aint disp[3] = { 0, 0, 128 }, lb, extent;
	double d[8];
	MPI_File fh;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	types[0] = MPI_Type_f2c(4);
	types[1] = MPI_DOUBLE;
	types[2] = MPI_Type_f2c(3);
	for (int i = 0; i < 8; i++)
		d[i] = rank + i / 10.0;
	rc = MPI_Type_create_struct(3, bl, disp, types, &t);
	rc |= MPI_Type_commit(&t);
	rc |= MPI_Type_get_extent(t, &lb, &extent);
	rc |= MPI_File_open(MPI_COMM_WORLD, "lbub.dat", MPI_MODE_CREATE | MPI_MODE_RDWR,
			    MPI_INFO_NULL, &fh);
	rc |= MPI_File_set_view(fh, rank * 64, MPI_DOUBLE, t, "native", MPI_INFO_NULL);
	rc |= MPI_File_write_all(fh, d, 8, MPI_DOUBLE, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	rc |= MPI_File_set_view(fh, (1 - rank % 2) * 64, MPI_DOUBLE, t, "native", MPI_INFO_NULL);
	rc |= MPI_File_read_all(fh, d, 8, MPI_DOUBLE, MPI_STATUS_IGNORE);
	rc |= MPI_File_close(&fh);
	rc |= MPI_Type_free(&t);
	printf("rank %d: rc %d lb %ld extent %ld read %.1f\n", rank, rc, (long)lb, (long)extent,
	       d[0]);
	MPI_Finalize();
	return rc != MPI_SUCCESS;
}
