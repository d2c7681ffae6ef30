/*
 * onesided - file accesses ordered only by one-sided synchronisation: each
 * rank writes its 8 bytes of "rma.dat" between two MPI_Win_fence calls and
 * then reads its neighbour's.  The graph has no edge for a fence (its
 * ordering of other accesses is not what MPI promises of it without RMA
 * operations in the epoch), so hb-build reports the fences as a one-sided
 * problem and the write-read pairs stay unordered.
 */
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, np, x = 0, fd;
	char b[8];
	MPI_Win win;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	MPI_Win_create(&x, sizeof(x), sizeof(x), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	fd = open("rma.dat", O_RDWR | O_CREAT, 0644);
	MPI_Win_fence(0, win);
	if (pwrite(fd, "abcdefgh", 8, rank * 8) != 8 || fsync(fd) < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Win_fence(0, win);
	if (pread(fd, b, 8, (rank + 1) % np * 8) != 8)
		MPI_Abort(MPI_COMM_WORLD, 1);
	close(fd);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
