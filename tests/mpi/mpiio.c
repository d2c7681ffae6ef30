/*
 * mpiio - MPI-IO through a strided file view.  Each of P ranks owns every
 * P-th block of B ints of "data" (a vector filetype, displacement rank*B
 * ints).  In order: a collective write of N blocks (write_all), a collective
 * read back (read_at_all), an independent write_at of one block past the
 * view's data with the default view, sync, barrier, get_size, close; then a
 * shared-pointer write (rank 1), an ordered write of one int each to "log"
 * and a split one (begin, end), close, and a delete of "log".  Prints
 * "R: ok" when every read gave back what was written.
 */
#include <mpi.h>
#include <stdio.h>

#define N 4
#define B 16

int main(int argc, char **argv)
{
	int rank, size, i, bad = 0, out[N * B], in[N * B], one;
	MPI_Datatype ftype;
	MPI_File fh, log;
	MPI_Offset sz;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; i < N * B; i++)
		out[i] = rank * 100000 + i;
	MPI_Type_vector(N, B, B * size, MPI_INT, &ftype);
	MPI_Type_commit(&ftype);
	MPI_File_open(MPI_COMM_WORLD, "data", MPI_MODE_CREATE | MPI_MODE_RDWR,
		      MPI_INFO_NULL, &fh);
	MPI_File_set_view(fh, (MPI_Offset)rank * B * sizeof(int), MPI_INT, ftype,
			  "native", MPI_INFO_NULL);
	MPI_File_write_all(fh, out, N * B, MPI_INT, &st);
	MPI_File_read_at_all(fh, 0, in, N * B, MPI_INT, MPI_STATUS_IGNORE);
	for (i = 0; i < N * B; i++)
		bad |= in[i] != out[i];
	MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
	MPI_File_write_at(fh, (MPI_Offset)(N * size + rank) * B * sizeof(int), out,
			  B, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_sync(fh);
	MPI_Barrier(MPI_COMM_WORLD);	/* sync-barrier: every rank's bytes are in */
	MPI_File_get_size(fh, &sz);
	bad |= sz != (MPI_Offset)(N + 1) * size * B * sizeof(int);
	MPI_File_close(&fh);
	MPI_Type_free(&ftype);

	MPI_File_open(MPI_COMM_WORLD, "log", MPI_MODE_CREATE | MPI_MODE_WRONLY,
		      MPI_INFO_NULL, &log);
	one = rank;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		MPI_File_write_shared(log, &one, 1, MPI_INT, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_write_ordered(log, &one, 1, MPI_INT, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);	/* (every rank reads the pointer at 20) */
	MPI_File_write_ordered_begin(log, &one, 1, MPI_INT);
	MPI_File_write_ordered_end(log, &one, MPI_STATUS_IGNORE);
	MPI_File_close(&log);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		MPI_File_delete("log", MPI_INFO_NULL);
	printf("%d: %s\n", rank, bad ? "wrong" : "ok");
	MPI_Finalize();
	return bad;
}
