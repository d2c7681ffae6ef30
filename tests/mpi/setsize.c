/*
 * setsize - IOR's -E -i 2 in small: twice, every rank opens FILE, empties
 * it with the collective MPI_File_set_size(0), writes its 4 KiB block
 * and closes it.  Each rank's writes come after its own part of the
 * collective truncation: no race, in either pass.
 *   setsize FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char buf[4096];
	int rank, pass;
	MPI_File fh;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (pass = 0; pass < 2; pass++) {
		memset(buf, 'a' + pass * 8 + rank % 8, sizeof(buf));
		if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR,
				  MPI_INFO_NULL, &fh) != MPI_SUCCESS ||
		    MPI_File_set_size(fh, 0) != MPI_SUCCESS ||
		    MPI_File_write_at(fh, (MPI_Offset)rank * (MPI_Offset)sizeof(buf), buf,
				      (int)sizeof(buf), MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
		    MPI_File_close(&fh) != MPI_SUCCESS)
			MPI_Abort(MPI_COMM_WORLD, 1);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("written\n");
	MPI_Finalize();
	return 0;
}
