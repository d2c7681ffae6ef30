/*
 * ordered-seek.c - ordered calls right after the shared pointer moved.
 *
 *   ordered-seek back FILE      rank r writes r + 1 bytes with
 *       MPI_File_write_ordered (the ranks' bytes one after another from
 *       0), then MPI_File_seek_shared(-3, MPI_SEEK_CUR) and a second
 *       write_ordered of 2 bytes each: those start 3 bytes before the
 *       first call's end, over the last rank's bytes, and nothing orders
 *       the two calls of different ranks (a race).  ROMIO's rank 0 moves
 *       the pointer back before the others have left the first call and
 *       read it.
 *   ordered-seek readback FILE   through a view of 4-byte blocks every 8
 *       bytes, the ranks take turns (a token) to append 4 bytes each with
 *       MPI_File_write_shared; then sync-barrier-sync,
 *       MPI_File_seek_shared(0) and MPI_File_read_ordered of 6 bytes each:
 *       a log read back, each rank reading its neighbours' blocks across
 *       the view's holes (so the reads ROMIO makes inside do not say
 *       where each rank's turn went).
 *
 * Each rank prints "rank R: BYTES" with what it read.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, size, tok = 0, i;
	char buf[16];
	MPI_File fh;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	memset(buf, 'a' + rank, sizeof(buf));
	if (rank == 0)
		MPI_File_delete(argv[2], MPI_INFO_NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_open(MPI_COMM_WORLD, argv[2], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	if (strcmp(argv[1], "back") == 0) {
		MPI_File_write_ordered(fh, buf, rank + 1, MPI_BYTE, MPI_STATUS_IGNORE);
		MPI_File_seek_shared(fh, -3, MPI_SEEK_CUR);
		MPI_File_write_ordered(fh, buf, 2, MPI_BYTE, MPI_STATUS_IGNORE);
	} else {
		MPI_Datatype block, every8;
		MPI_Type_contiguous(4, MPI_BYTE, &block);
		MPI_Type_create_resized(block, 0, 8, &every8);
		MPI_Type_commit(&every8);
		MPI_File_set_view(fh, 0, MPI_BYTE, every8, "native", MPI_INFO_NULL);
		if (rank > 0)
			MPI_Recv(&tok, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_File_write_shared(fh, buf, 4, MPI_BYTE, MPI_STATUS_IGNORE);
		if (rank < size - 1)
			MPI_Send(&tok, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD);
		MPI_File_sync(fh);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_File_sync(fh);
		MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
		memset(buf, 0, sizeof(buf));
		MPI_File_read_ordered(fh, buf, 6, MPI_BYTE, MPI_STATUS_IGNORE);
		/* one line in one write: the ranks' lines do not mix */
		for (i = 0; i < 6; i++)
			if (!buf[i])
				buf[i] = '.';
		buf[6] = 0;
		printf("rank %d: %s\n", rank, buf);
		MPI_Type_free(&every8);
		MPI_Type_free(&block);
	}
	MPI_File_close(&fh);
	MPI_Finalize();
	return 0;
}
