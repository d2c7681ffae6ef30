/*
 * onesided - file accesses ordered by one-sided communication, 3 ranks.
 * Rank r writes its 8 bytes of "rma.dat" and puts a word into rank r+1's
 * window in the first fence epoch, reads rank r-1's bytes after the fence
 * that ends it, gets a word from rank r+1 in the second epoch, has a third
 * with no operation at all; then it writes its bytes again, puts to rank
 * r+1 under MPI_Win_lock with MPI_MODE_NOCHECK (a passive-target epoch
 * that takes no lock, which the graph does not order by: a one-sided
 * problem) and reads rank r-1's bytes after a fence.
 *
 *   every rank: F1 W put(r+1) F2 R A get(r+1) F3 B F4 C lock put unlock
 *               F5 Y
 *
 * A put is done at its target when the target's closing fence returns
 * (r-1's W before r's R); a get reads what the target did before the fence
 * that opened its epoch (r+1's W before r's B, not r+1's A); a fence
 * without operations orders nothing (MPI promises no barrier by it).
 */
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include "mark.h"

int main(int argc, char **argv)
{
	int rank, np, *x, y = 0, one = 1, fd, next, prev;
	char b[8];
	MPI_Win win;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	next = (rank + 1) % np;
	prev = (rank + np - 1) % np;
	MPI_Win_allocate(sizeof(*x), sizeof(*x), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
	*x = 0;
	fd = open("rma.dat", O_RDWR | O_CREAT, 0644);
	MPI_Win_fence(0, win);
	mark("W");
	if (pwrite(fd, "abcdefgh", 8, rank * 8) != 8 || fsync(fd) < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Put(&one, 1, MPI_INT, next, 0, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	mark("R");
	if (pread(fd, b, 8, prev * 8) != 8)
		MPI_Abort(MPI_COMM_WORLD, 1);
	mark("A");
	MPI_Get(&y, 1, MPI_INT, next, 0, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	mark("B");
	MPI_Win_fence(0, win);
	mark("C");
	if (pwrite(fd, "ABCDEFGH", 8, rank * 8) != 8 || fsync(fd) < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Win_lock(MPI_LOCK_SHARED, next, MPI_MODE_NOCHECK, win);
	MPI_Put(&one, 1, MPI_INT, next, 0, 1, MPI_INT, win);
	MPI_Win_unlock(next, win);
	MPI_Win_fence(0, win);
	mark("Y");
	if (pread(fd, b, 8, prev * 8) != 8)
		MPI_Abort(MPI_COMM_WORLD, 1);
	close(fd);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
