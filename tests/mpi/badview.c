/*
 * badview.c - MPI_File_set_view with a filetype whose lower bound is
 * negative (erroneous: MPI wants a filetype's displacements non-negative),
 * under the files' default error handler, MPI_ERRORS_RETURN; the program
 * goes on and writes 5 ints at its individual pointer.  MPICH's ROMIO
 * refuses the view but writes through the refused filetype all the same
 * (bytes 4, 60, 68, 124 and 132): the bytes went to neither view.  Prints
 * whether set_view failed.
 *
 *   badview FILE
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, rc, v[5] = { 1, 2, 3, 4, 5 }, bl[2] = { 1, 1 }, dp[2] = { 1, 3 };
	MPI_Datatype t, u;
	MPI_File fh;
	MPI_Info info;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	/* (data sieving would lock below byte 0 and abort) */
	MPI_Info_create(&info);
	MPI_Info_set(info, "romio_ds_write", "disable");
	MPI_File_open(MPI_COMM_SELF, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
	MPI_Info_free(&info);
	MPI_Type_indexed(2, bl, dp, MPI_INT, &t);
	MPI_Type_create_resized(t, -8, 64, &u);
	MPI_Type_commit(&u);
	rc = MPI_File_set_view(fh, 0, MPI_INT, u, "native", MPI_INFO_NULL);
	printf("set_view: %s\n", rc == MPI_SUCCESS ? "ok" : "refused");
	MPI_File_write(fh, v, 5, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_close(&fh);
	MPI_Type_free(&u);
	MPI_Type_free(&t);
	MPI_Finalize();
	return 0;
}
