/*
 * restart - a checkpoint and its restart, run as two jobs into one trace
 * directory (tests/runs.bats):
 *   restart write FILE   each rank writes its 64-byte block of FILE
 *                        (MPI_File_write_at_all), closes it
 *   restart read FILE    each rank reads the block the next rank wrote
 *                        (MPI_File_read_at_all), closes it
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define BLOCK 64

int main(int argc, char **argv)
{
	MPI_File fh;
	char buf[BLOCK];
	int rank, size, rc;

	MPI_Init(&argc, &argv);
	if (argc != 3 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "read") != 0)) {
		fprintf(stderr, "usage: restart write|read FILE\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (strcmp(argv[1], "write") == 0) {
		memset(buf, 'a' + rank, sizeof(buf));
		rc = MPI_File_open(MPI_COMM_WORLD, argv[2],
				   MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
		if (rc == MPI_SUCCESS)
			rc = MPI_File_write_at_all(fh, (MPI_Offset)rank * BLOCK, buf,
						   BLOCK, MPI_CHAR, MPI_STATUS_IGNORE);
	} else {
		rc = MPI_File_open(MPI_COMM_WORLD, argv[2], MPI_MODE_RDONLY,
				   MPI_INFO_NULL, &fh);
		if (rc == MPI_SUCCESS)
			rc = MPI_File_read_at_all(fh, (MPI_Offset)((rank + 1) % size) * BLOCK,
						  buf, BLOCK, MPI_CHAR, MPI_STATUS_IGNORE);
	}
	if (rc == MPI_SUCCESS)
		rc = MPI_File_close(&fh);
	if (rc != MPI_SUCCESS) {
		fprintf(stderr, "restart: rank %d: MPI-IO failed\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Finalize();
	return 0;
}
