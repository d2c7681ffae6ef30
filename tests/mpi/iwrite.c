/*
 * iwrite - nonblocking MPI-IO: each rank writes 64 bytes at rank * 64 with
 * MPI_File_iwrite_at and waits; after a barrier it reads its right
 * neighbour's part with MPI_File_iread_at and tests until done.  ROMIO
 * does both through POSIX AIO (aio_write, aio_read, aio_return).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char buf[64], in[64];
	MPI_Request req;
	MPI_Status st;
	MPI_File fh;
	int rank, size, done = 0, n;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	memset(buf, 'a' + rank, sizeof(buf));
	MPI_File_open(MPI_COMM_WORLD, argc > 1 ? argv[1] : "iw.dat",
		      MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	MPI_File_iwrite_at(fh, rank * 64, buf, 64, MPI_BYTE, &req);
	MPI_Wait(&req, &st);
	MPI_File_sync(fh);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_sync(fh);
	MPI_File_iread_at(fh, (rank + 1) % size * 64, in, 64, MPI_BYTE, &req);
	while (!done)
		MPI_Test(&req, &done, &st);
	MPI_Get_count(&st, MPI_BYTE, &n);
	if (n != 64 || in[0] != 'a' + (rank + 1) % size) {
		fprintf(stderr, "rank %d read %d bytes of '%c'\n", rank, n, in[0]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_File_close(&fh);
	MPI_Finalize();
	return 0;
}
