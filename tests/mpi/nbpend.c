/*
 * nbpend - a nonblocking or split MPI-IO write is the program's until it
 * completes: rank 0 writes 4096 bytes at 0 and rank 1 reads them after a
 * barrier (through the shared handle, or in split mode through one of its
 * own, opened on MPI_COMM_SELF: no other collective on the handle between
 * a split collective's begin and end).
 *
 *   wait	MPI_File_iwrite_at, MPI_Wait, sync, barrier, sync: ordered
 *   race	MPI_File_iwrite_at, barrier, MPI_Wait: the read races the write
 *		(ROMIO writes with aio_write: the read often finds nothing)
 *   freed	MPI_File_iwrite_at, MPI_Request_free, barrier: never known done
 *   split	MPI_File_write_at_all_begin, barrier, ..._end: the write lasts
 *		until the end, the read is in the middle of it
 *
 * Each rank prints "<rank>: <bytes read or written>".
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	static char buf[4096];
	const char *mode = argc > 1 ? argv[1] : "wait", *path = argc > 2 ? argv[2] : "nb.dat";
	MPI_File fh, mine;
	MPI_Request req;
	MPI_Status st;
	int rank, n = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &mine);
	memset(buf, 'w', sizeof(buf));
	if (strcmp(mode, "split") == 0) {
		MPI_File_write_at_all_begin(fh, 0, buf, rank == 0 ? (int)sizeof(buf) : 0, MPI_BYTE);
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 1) {
			MPI_File_read_at(mine, 0, buf, sizeof(buf), MPI_BYTE, &st);
			MPI_Get_count(&st, MPI_BYTE, &n);
		}
		MPI_File_write_at_all_end(fh, buf, &st);
		if (rank == 0)
			MPI_Get_count(&st, MPI_BYTE, &n);
	} else if (rank == 0) {
		MPI_File_iwrite_at(fh, 0, buf, sizeof(buf), MPI_BYTE, &req);
		if (strcmp(mode, "wait") == 0) {
			MPI_Wait(&req, &st);
			MPI_File_sync(fh);
		} else if (strcmp(mode, "freed") == 0) {
			MPI_Request_free(&req);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		if (strcmp(mode, "wait") == 0)
			MPI_File_sync(fh);
		else if (strcmp(mode, "race") == 0)
			MPI_Wait(&req, &st);
		n = sizeof(buf);
	} else {
		if (strcmp(mode, "wait") == 0)
			MPI_File_sync(fh);
		MPI_Barrier(MPI_COMM_WORLD);
		if (strcmp(mode, "wait") == 0)
			MPI_File_sync(fh);
		if (rank == 1) {
			MPI_File_read_at(fh, 0, buf, sizeof(buf), MPI_BYTE, &st);
			MPI_Get_count(&st, MPI_BYTE, &n);
		}
	}
	printf("%d: %d\n", rank, n);
	MPI_File_close(&mine);
	MPI_File_close(&fh);
	MPI_Finalize();
	return 0;
}
