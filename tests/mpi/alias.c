/*
 * alias - each rank opens its own name of one file with MPI_File_open on
 * MPI_COMM_SELF, rank 0 ARGV[1], rank 1 ARGV[2] (a symbolic link to it,
 * say), and writes 8 bytes at offset 0; nothing orders the two writes.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	MPI_File fh;
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank < 2) {
		if (MPI_File_open(MPI_COMM_SELF, argv[1 + rank], MPI_MODE_CREATE | MPI_MODE_WRONLY,
				  MPI_INFO_NULL, &fh) != MPI_SUCCESS)
			MPI_Abort(MPI_COMM_WORLD, 1);
		MPI_File_write_at(fh, 0, rank ? "bbbbbbbb" : "aaaaaaaa", 8, MPI_CHAR,
				  MPI_STATUS_IGNORE);
		MPI_File_close(&fh);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
