/*
 * sequential - a file opened with MPI_MODE_SEQUENTIAL, whose error handler
 * the program makes MPI_ERRORS_ARE_FATAL: a shared-pointer write and an
 * ordered write, then "R: done".  Such a file has no position to ask for
 * (MPI_File_get_position_shared is an error on it): a tracer that asked
 * would end the program.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char b[4] = "abc";
	MPI_File fh;
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (MPI_File_open(MPI_COMM_WORLD, "seq.dat",
			  MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
			  MPI_INFO_NULL, &fh) != MPI_SUCCESS)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_File_set_errhandler(fh, MPI_ERRORS_ARE_FATAL);
	MPI_File_write_shared(fh, b, 3, MPI_CHAR, MPI_STATUS_IGNORE);
	MPI_File_write_ordered(fh, b, 3, MPI_CHAR, MPI_STATUS_IGNORE);
	MPI_File_close(&fh);
	printf("%d: done\n", rank);
	MPI_Finalize();
	return 0;
}
