/*
 * mpiio - MPI-IO calls that are collective on a file order its ranks as
 * collectives on the file's communicator; the pwrite and pread that
 * ROMIO makes inside a call are placed by their seq.  Rank 0 writes at
 * offset 0 (independently), then everyone syncs, meets, syncs and reads
 * it back; then a collective write, and the close.
 *
 *   every rank: A open B [rank 0: write_at] sync Barrier sync read_at C
 *               write_at_all D close E
 */
#include <mpi.h>

#include "mark.h"

int main(int argc, char **argv)
{
	int rank, buf[4] = { 1, 2, 3, 4 };
	MPI_File fh;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	mark("A");
	MPI_File_open(MPI_COMM_WORLD, "hb-io.dat", MPI_MODE_CREATE | MPI_MODE_RDWR,
		      MPI_INFO_NULL, &fh);
	mark("B");
	if (rank == 0)
		MPI_File_write_at(fh, 0, buf, 4, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_sync(fh);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_sync(fh);
	MPI_File_read_at(fh, 0, buf, 4, MPI_INT, MPI_STATUS_IGNORE);
	mark("C");
	MPI_File_write_at_all(fh, 64 + 16 * rank, buf, 4, MPI_INT, MPI_STATUS_IGNORE);
	mark("D");
	MPI_File_close(&fh);
	mark("E");
	MPI_Finalize();
	return 0;
}
