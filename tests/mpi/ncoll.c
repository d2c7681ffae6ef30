/*
 * ncoll - a noncontiguous collective write that overlaps itself across
 * ranks, then a read of it back:
 *
 *   ncoll FILE [blocks]      (default 1000)
 *
 * Every rank sets the same view, a vector of @blocks blocks of 8 bytes 16
 * bytes apart, and writes all of it with one MPI_File_write_at_all: each
 * block is a separate piece of the file, and every rank writes the same
 * pieces at once (WAW-D pairs nothing orders, one per block and pair of
 * ranks).  Then sync, barrier, sync, and each rank reads the view back
 * with MPI_File_read_at_all (RAW pairs with every write, ordered by
 * sync-barrier-sync).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int blocks = argc > 2 ? atoi(argv[2]) : 1000, rank;
	MPI_Datatype v;
	MPI_File fh;
	char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2 || blocks < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: ncoll FILE [blocks]\n");
		MPI_Finalize();
		return 2;
	}
	buf = malloc((size_t)blocks * 8);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(buf, 'a' + rank, (size_t)blocks * 8);
	MPI_Type_vector(blocks, 8, 16, MPI_BYTE, &v);
	MPI_Type_commit(&v);
	MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
		      &fh);
	MPI_File_set_view(fh, 0, MPI_BYTE, v, "native", MPI_INFO_NULL);
	MPI_File_write_at_all(fh, 0, buf, blocks * 8, MPI_BYTE, MPI_STATUS_IGNORE);
	MPI_File_sync(fh);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_sync(fh);
	MPI_File_read_at_all(fh, 0, buf, blocks * 8, MPI_BYTE, MPI_STATUS_IGNORE);
	MPI_File_close(&fh);
	MPI_Type_free(&v);
	free(buf);
	MPI_Finalize();
	return 0;
}
