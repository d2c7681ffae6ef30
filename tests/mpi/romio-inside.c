/*
 * romio-inside - MPI-IO calls whose file accesses ROMIO orders with
 * communication of its own, inside the call.
 *
 * usage: romio-inside MODE FILE
 *   prealloc  MPI_File_preallocate of the whole file (ROMIO: one rank
 *             reads and writes it, then an MPI_Barrier inside the call),
 *             then every rank writes its block with MPI_File_write_at_all
 *   gather    each rank writes its block with MPI_File_write_at, then
 *             every rank reads its neighbour's with MPI_File_read_at_all
 *             and no sync or barrier between (ROMIO gathers the ranks'
 *             offsets before it reads: the reads come after the writes,
 *             though MPI-IO's rules do not promise it)
 *   pmpi      as gather, but with a sync-barrier-sync made of the
 *             program's own PMPI_ calls (PMPI_Barrier), which no tracer
 *             sees
 * Blocks of B ints, block r written by rank r with r * 1000 + i.  Each
 * rank checks what it read; rank 0 prints "ok" or "wrong" for all.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { B = 64 };

int main(int argc, char **argv)
{
	int rank, np, out[B], in[B], bad = 0, all = 0, i, src;
	MPI_File fh;
	MPI_Offset me;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (argc != 3) {
		if (rank == 0)
			fputs("usage: romio-inside prealloc|gather|pmpi FILE\n", stderr);
		MPI_Finalize();
		return 2;
	}
	for (i = 0; i < B; i++)
		out[i] = rank * 1000 + i;
	me = (MPI_Offset)rank * B * (MPI_Offset)sizeof(int);
	src = (rank + 1) % np;
	MPI_File_open(MPI_COMM_WORLD, argv[2], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
		      &fh);
	if (strcmp(argv[1], "prealloc") == 0) {
		MPI_File_preallocate(fh, (MPI_Offset)np * B * (MPI_Offset)sizeof(int));
		MPI_File_write_at_all(fh, me, out, B, MPI_INT, MPI_STATUS_IGNORE);
		MPI_File_sync(fh);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_File_sync(fh);
	} else {
		MPI_File_write_at(fh, me, out, B, MPI_INT, MPI_STATUS_IGNORE);
		if (strcmp(argv[1], "pmpi") == 0) {
			MPI_File_sync(fh);
			PMPI_Barrier(MPI_COMM_WORLD);
			MPI_File_sync(fh);
		}
	}
	MPI_File_read_at_all(fh, (MPI_Offset)src * B * (MPI_Offset)sizeof(int), in, B, MPI_INT,
			     MPI_STATUS_IGNORE);
	for (i = 0; i < B; i++)
		bad |= in[i] != src * 1000 + i;
	MPI_File_close(&fh);
	MPI_Reduce(&bad, &all, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
	if (rank == 0)
		puts(all ? "wrong" : "ok");
	MPI_Finalize();
	return 0;
}
