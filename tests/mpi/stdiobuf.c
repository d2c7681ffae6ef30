/*
 * stdiobuf - rank 0 writes 100 bytes to FILE through a stdio stream, a
 * barrier, rank 1 reads them, a barrier, rank 0 closes the stream.  The
 * mode is the first argument:
 *   noflush  nothing between the fwrite and the barrier: the bytes are
 *            still in rank 0's buffer when rank 1 reads (it reads none)
 *   fflush   fflush before the barrier: in the file, not committed
 *   fclose   fclose before the barrier (and none after)
 *   unbuf    setvbuf(_IONBF) after the fopen: the fwrite writes
 * Rank 1 prints how many bytes it read.
 *
 * usage: stdiobuf MODE FILE
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "noflush";
	char b[100];
	FILE *fp = NULL;
	int rank, fd;
	ssize_t n = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		if (!(fp = fopen(argv[2], "w")))
			MPI_Abort(MPI_COMM_WORLD, 1);
		if (strcmp(mode, "unbuf") == 0)
			setvbuf(fp, NULL, _IONBF, 0);
		memset(b, 'x', sizeof(b));
		fwrite(b, 1, sizeof(b), fp);
		if (strcmp(mode, "fflush") == 0)
			fflush(fp);
		if (strcmp(mode, "fclose") == 0) {
			fclose(fp);
			fp = NULL;
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		if ((fd = open(argv[2], O_RDONLY)) >= 0) {
			n = read(fd, b, sizeof(b));
			close(fd);
		}
		printf("read %zd\n", n);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (fp)
		fclose(fp);
	MPI_Finalize();
	return 0;
}
