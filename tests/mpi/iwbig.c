/*
 * iwbig - one large nonblocking MPI-IO write per rank: MPI_File_iwrite_at
 * of N MiB (argument 2) at rank * N MiB of the file (argument 1), then
 * MPI_Wait.  ROMIO completes it through POSIX AIO, and MPI_Wait polls
 * aio_error() until the write is done: thousands of identical calls.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	MPI_Request req;
	MPI_File fh;
	size_t n;
	char *buf;
	int rank;

	if (argc != 3)
		return 2;
	n = (size_t)atoi(argv[2]) << 20;
	if (!(buf = malloc(n)))
		return 1;
	memset(buf, 'a', n);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY,
		      MPI_INFO_NULL, &fh);
	MPI_File_iwrite_at(fh, (MPI_Offset)rank * (MPI_Offset)n, buf, (int)n, MPI_CHAR, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_File_close(&fh);
	MPI_Finalize();
	free(buf);
	return 0;
}
