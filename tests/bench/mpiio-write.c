/*
 * mpiio-write - N-1 strided writes with MPI_File_write_at: every rank
 * writes blocks of S bytes (S / 4 MPI_INTs) to one shared file, block i
 * of rank r at offset (i * P + r) * S.
 *
 *   mpiio-write file [writes [S]]          (defaults 16, 4096)
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	static int buf[1 << 18];
	int rank, size, i, n, k;
	long s;
	MPI_File fh;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	n = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 16;
	s = argc > 3 ? strtol(argv[3], NULL, 10) : 4096;
	if (argc < 2 || s <= 0 || s % 4 || s > (long)sizeof(buf))
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (k = 0; k < s / 4; k++)
		buf[k] = rank;
	MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY,
		      MPI_INFO_NULL, &fh);
	for (i = 0; i < n; i++)
		MPI_File_write_at(fh, ((MPI_Offset)i * size + rank) * s, buf, (int)(s / 4), MPI_INT,
				  &st);
	MPI_File_close(&fh);
	MPI_Finalize();
	return 0;
}
