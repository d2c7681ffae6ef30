/*
 * selfopen - every rank opens one file on MPI_COMM_SELF at once (as
 * PnetCDF's independent mode and many per-rank writers do), writes its
 * own 64-byte block and closes it; a barrier; rank 0 opens it again and
 * reads rank 1's block, and prints "ok" when it holds rank 1's bytes.
 * Under Open MPI's OMPIO every rank's MPI_File_open makes and removes
 * the library's own files beside it (FILE.locktest.0) and in its session
 * directory: not the program's names (session).
 *
 *   selfopen FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char buf[64], got[64];
	int rank, i, bad = 0;
	MPI_File fh;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	memset(buf, 'a' + rank, sizeof(buf));
	if (MPI_File_open(MPI_COMM_SELF, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
			  &fh) != MPI_SUCCESS)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_File_write_at(fh, (MPI_Offset)rank * 64, buf, 64, MPI_CHAR, MPI_STATUS_IGNORE);
	MPI_File_close(&fh);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		if (MPI_File_open(MPI_COMM_SELF, argv[1], MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) !=
		    MPI_SUCCESS)
			MPI_Abort(MPI_COMM_WORLD, 1);
		MPI_File_read_at(fh, 64, got, 64, MPI_CHAR, MPI_STATUS_IGNORE);
		MPI_File_close(&fh);
		for (i = 0; i < 64; i++)
			bad += got[i] != 'b';
		printf("%s\n", bad ? "FAIL" : "ok");
	}
	MPI_Finalize();
	return bad != 0;
}
