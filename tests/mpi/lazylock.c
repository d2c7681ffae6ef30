/*
 * lazylock.c - two exclusive lock epochs on one target, the first held
 * long.  Window on rank 2.  Rank 1 locks first, fetches the flag (0:
 * its epoch came first), holds the lock 500 ms and unlocks.  Rank 0, at
 * 100 ms, writes FILE (pwrite, fsync, close), then locks, sets the flag
 * and unlocks.  Rank 1 then reads FILE.  Rank 1's epoch came first, so
 * nothing orders rank 0's write before rank 1's read: a race, whatever
 * the file held when it was read.  A library that takes the lock lazily
 * (Open MPI's osc/pt2pt) returns from rank 0's MPI_Win_lock at once and
 * starts its unlock before rank 1's.
 *
 * usage: lazylock FILE   (3 ranks)
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int me, *base, flag = -1, one = 1, fd;
	char b[64];
	MPI_Win win;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	*base = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	if (me == 1) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 2, 0, win);
		MPI_Fetch_and_op(NULL, &flag, MPI_INT, 2, 0, MPI_NO_OP, win);
		usleep(500000);
		MPI_Win_unlock(2, win);
	}
	if (me == 0) {
		usleep(100000);
		if ((fd = open(argv[1], O_WRONLY | O_CREAT, 0644)) < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		memset(b, 'A', sizeof(b));
		if (pwrite(fd, b, sizeof(b), 0) != (ssize_t)sizeof(b))
			MPI_Abort(MPI_COMM_WORLD, 1);
		fsync(fd);
		close(fd);
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 2, 0, win);
		MPI_Accumulate(&one, 1, MPI_INT, 2, 0, 1, MPI_INT, MPI_REPLACE, win);
		MPI_Win_unlock(2, win);
	}
	if (me == 1) {
		usleep(100000);
		memset(b, 0, sizeof(b));
		if ((fd = open(argv[1], O_RDONLY)) >= 0) {
			if (pread(fd, b, sizeof(b), 0) < 0)
				b[0] = 0;
			close(fd);
		}
		printf("flag %d, read %c\n", flag, b[0] ? b[0] : '-');
	}
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
