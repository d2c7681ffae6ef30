/*
 * mpiiosync - MPI-IO programs, one per case of the MPI-IO consistency
 * rules (MPI 4.1 §14.6.1), selected by the first argument; 2 ranks, the
 * file "f" in the working directory (or the second argument).  Rank 0
 * writes 64 bytes at offset 0 and rank 1 reads them back, through handles
 * of one collective open:
 *
 *   sbs         write; MPI_File_sync; MPI_Barrier; MPI_File_sync; read
 *               (sync-barrier-sync: correct under MPI-IO semantics)
 *   writer-sync write; MPI_File_sync; MPI_Barrier; read (the reader makes
 *               no sync after the barrier: not enough)
 *   atomic      MPI_File_set_atomicity(1); write; MPI_Barrier; read
 *               (atomic mode: no sync needed)
 *   atomic-off  atomicity set to 1, then back to 0 before the write;
 *               write; MPI_Barrier; read (not atomic any more)
 *   reopen      write; MPI_File_close; MPI_Barrier; MPI_File_open; read
 *               (close-to-open: correct)
 *   atomic-race MPI_File_set_atomicity(1); rank 0 writes "z"s; MPI_Barrier;
 *               rank 0 writes the "a"s while rank 1 reads, nothing between
 *               (concurrent, and correct in atomic mode: rank 1 reads all
 *               "z"s or all "a"s, as ROMIO's atomicity test checks)
 *   coll-same   both ranks write the same 64 bytes at offset 0 in one
 *               MPI_File_write_at_all (as an HDF5 program writing a whole
 *               dataset from every rank does); no read
 *   ind-same    the same with MPI_File_write_at, nothing between them
 *   getsize     write; MPI_File_sync; MPI_Barrier; MPI_File_sync; rank 1
 *               asks MPI_File_get_size (64) instead of reading: the size
 *               is what rank 0's write made it
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "", *fn = argc > 2 ? argv[2] : "f";
	char buf[64], back[64];
	MPI_File fh;
	int rank, bad = 0;
	int am = MPI_MODE_CREATE | MPI_MODE_RDWR;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	memset(buf, 'a', sizeof(buf));
	bad |= MPI_File_open(MPI_COMM_WORLD, fn, am, MPI_INFO_NULL, &fh);
	if (!strcmp(c, "atomic") || !strcmp(c, "atomic-off") || !strcmp(c, "atomic-race"))
		bad |= MPI_File_set_atomicity(fh, 1);
	if (!strcmp(c, "coll-same") || !strcmp(c, "ind-same")) {
		if (c[0] == 'c')
			bad |= MPI_File_write_at_all(fh, 0, buf, 64, MPI_BYTE, MPI_STATUS_IGNORE);
		else
			bad |= MPI_File_write_at(fh, 0, buf, 64, MPI_BYTE, MPI_STATUS_IGNORE);
		bad |= MPI_File_close(&fh);
		MPI_Finalize();
		return bad != 0;
	}
	if (!strcmp(c, "atomic-race")) {
		char z[64];
		memset(z, 'z', sizeof(z));
		if (rank == 0)
			bad |= MPI_File_write_at(fh, 0, z, 64, MPI_BYTE, MPI_STATUS_IGNORE);
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0)
			bad |= MPI_File_write_at(fh, 0, buf, 64, MPI_BYTE, MPI_STATUS_IGNORE);
		else
			bad |= MPI_File_read_at(fh, 0, back, 64, MPI_BYTE, MPI_STATUS_IGNORE) ||
			       (memcmp(back, buf, 64) && memcmp(back, z, 64));
		bad |= MPI_File_close(&fh);
		MPI_Finalize();
		if (bad)
			fprintf(stderr, "mpiiosync %s: rank %d failed\n", c, rank);
		return bad != 0;
	}
	if (!strcmp(c, "atomic-off"))
		bad |= MPI_File_set_atomicity(fh, 0);
	if (rank == 0)
		bad |= MPI_File_write_at(fh, 0, buf, 64, MPI_BYTE, MPI_STATUS_IGNORE);
	if (!strcmp(c, "sbs") || !strcmp(c, "writer-sync") || !strcmp(c, "getsize"))
		bad |= MPI_File_sync(fh);
	if (!strcmp(c, "reopen"))
		bad |= MPI_File_close(&fh);
	MPI_Barrier(MPI_COMM_WORLD);
	if (!strcmp(c, "sbs") || !strcmp(c, "getsize"))
		bad |= MPI_File_sync(fh);
	if (!strcmp(c, "reopen"))
		bad |= MPI_File_open(MPI_COMM_WORLD, fn, am, MPI_INFO_NULL, &fh);
	if (rank == 1 && !strcmp(c, "getsize")) {
		MPI_Offset sz = 0;
		bad |= MPI_File_get_size(fh, &sz) || sz != 64;
	} else if (rank == 1) {
		bad |= MPI_File_read_at(fh, 0, back, 64, MPI_BYTE, MPI_STATUS_IGNORE);
		bad |= memcmp(buf, back, sizeof(back)) != 0;
	}
	bad |= MPI_File_close(&fh);
	MPI_Finalize();
	if (bad)
		fprintf(stderr, "mpiiosync %s: rank %d failed\n", c, rank);
	return bad != 0;
}
