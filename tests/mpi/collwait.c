/*
 * collwait.c - a file collective between a write and a read of the same
 * bytes, and nothing else: MPI makes no file collective synchronise.
 * Rank 0 sleeps, writes bytes 0-99 ('A') and joins the collective
 * (MPI_File_write_at_all of one byte of its own); rank 1 joins it first,
 * then reads bytes 0-99 and says what it found.  Whether the read saw the
 * write depends on the MPI library: Open MPI's OMPIO lets rank 1 through
 * at once at 2 ranks, ROMIO's two-phase collective waits for rank 0.
 *
 * usage: collwait FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	MPI_File fh;
	MPI_Status st;
	char buf[100], one;
	int rank, n = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR,
		      MPI_INFO_NULL, &fh);
	MPI_Barrier(MPI_COMM_WORLD);
	one = (char)('0' + rank);
	if (rank == 0) {
		usleep(500000);
		memset(buf, 'A', sizeof(buf));
		MPI_File_write_at(fh, 0, buf, sizeof(buf), MPI_BYTE, &st);
	}
	MPI_File_write_at_all(fh, 200 + rank, &one, 1, MPI_BYTE, &st);
	if (rank == 1) {
		memset(buf, 0, sizeof(buf));
		MPI_File_read_at(fh, 0, buf, sizeof(buf), MPI_BYTE, &st);
		MPI_Get_count(&st, MPI_BYTE, &n);
		printf("rank 1 read %d bytes: %s\n", n, n > 0 && buf[0] == 'A' ? "written" : "not written");
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_close(&fh);
	MPI_Finalize();
	return 0;
}
