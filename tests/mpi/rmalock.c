/*
 * rmalock - ranks that order their file accesses only by passive-target
 * one-sided communication, as OpenCoarrays builds critical sections,
 * events and atomics.  The mode is the first argument, the file the second:
 *   mutex    each rank, in turn as a lock word in rank 0's window lets it
 *            (MPI_Win_lock exclusive, MPI_Compare_and_swap, unlock, until
 *            the swap finds 0): open the file, read the counter, write it
 *            plus one, close; then give the word back (lock, MPI_Fetch_and_op
 *            MPI_REPLACE, unlock).  Rank 0 checks the count after a barrier.
 *   flag     rank 0 writes the file and closes it, then sets a flag in each
 *            other rank's window (exclusive lock, MPI_Put, unlock); each
 *            other rank polls its own flag (shared lock, MPI_Get, unlock)
 *            until it is set, then reads the file
 *   noflag   flag, but the readers read at once: a race
 *   sharedflag  flag, rank 0 setting the flags under shared locks too
 *   allflag  flag in one MPI_Win_lock_all epoch of every rank: rank 0 sets
 *            an odd rank's flag with MPI_Put and MPI_Win_flush, an even
 *            one's with MPI_Accumulate and MPI_Win_flush_all; an odd rank
 *            polls with MPI_Get and MPI_Win_flush, an even one with
 *            MPI_Fetch_and_op (MPI_NO_OP) and MPI_Win_flush_local
 *   noallflag  allflag, but the readers read at once: a race
 *   allmutex  mutex in one MPI_Win_lock_all epoch: the lock word taken
 *            by MPI_Compare_and_swap and MPI_Win_flush until the swap finds
 *            0, given back by MPI_Fetch_and_op (MPI_REPLACE) and a flush
 *   emptylock  rank 0 writes the file, then locks the last rank's window
 *            exclusively and unlocks it with no operation between; rank 1,
 *            300 ms later, does the same and reads the file: an epoch
 *            without operations protects nothing (a race)
 * Windows are 4 KiB (MPICH 4.0 misplaces accumulates into windows of a
 * few bytes).  Prints "R: ok" per rank when the data were right.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WIN 4096

/* @all: in one MPI_Win_lock_all epoch, with flushes */
static int mutex(MPI_Win w, const char *path, int rank, int size, int all)
{
	int one = 1, zero = 0, old, c = 0, fd;

	if (all)
		MPI_Win_lock_all(0, w);
	do {
		if (!all)
			MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w);
		MPI_Compare_and_swap(&one, &zero, &old, MPI_INT, 0, 0, w);
		if (all)
			MPI_Win_flush(0, w);
		else
			MPI_Win_unlock(0, w);
	} while (old != 0);
	fd = open(path, O_RDWR);
	if (fd < 0 || pread(fd, &c, sizeof(c), 0) != sizeof(c))
		return 1;
	c++;
	if (pwrite(fd, &c, sizeof(c), 0) != sizeof(c) || close(fd) != 0)
		return 1;
	if (all) {
		MPI_Fetch_and_op(&zero, &old, MPI_INT, 0, 0, MPI_REPLACE, w);
		MPI_Win_flush(0, w);
		MPI_Win_unlock_all(w);
	} else {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w);
		MPI_Fetch_and_op(&zero, &old, MPI_INT, 0, 0, MPI_REPLACE, w);
		MPI_Win_unlock(0, w);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		fd = open(path, O_RDONLY);
		if (fd < 0 || pread(fd, &c, sizeof(c), 0) != sizeof(c) || close(fd) != 0)
			return 1;
		return c != size;
	}
	return 0;
}

/* @how: 'x' exclusive locks to set, 's' shared ones, 'a' MPI_Win_lock_all */
static int flag(MPI_Win w, const char *path, int rank, int size, int wait, int how)
{
	int data[64], one = 1, seen = 0, fd, i;

	if (how == 'a')
		MPI_Win_lock_all(0, w);
	if (rank == 0) {
		for (i = 0; i < 64; i++)
			data[i] = i;
		fd = open(path, O_WRONLY | O_TRUNC);
		if (fd < 0 || write(fd, data, sizeof(data)) != sizeof(data) || close(fd) != 0)
			return 1;
		for (i = 1; i < size; i++) {
			if (how == 'a' && i % 2) {
				MPI_Put(&one, 1, MPI_INT, i, 0, 1, MPI_INT, w);
				MPI_Win_flush(i, w);
			} else if (how == 'a') {
				MPI_Accumulate(&one, 1, MPI_INT, i, 0, 1, MPI_INT, MPI_REPLACE, w);
				MPI_Win_flush_all(w);
			} else {
				MPI_Win_lock(how == 's' ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, i, 0, w);
				MPI_Put(&one, 1, MPI_INT, i, 0, 1, MPI_INT, w);
				MPI_Win_unlock(i, w);
			}
		}
		if (how == 'a')
			MPI_Win_unlock_all(w);
		return 0;
	}
	while (wait && !seen) {
		if (how == 'a' && rank % 2) {
			MPI_Get(&seen, 1, MPI_INT, rank, 0, 1, MPI_INT, w);
			MPI_Win_flush(rank, w);
		} else if (how == 'a') {
			MPI_Fetch_and_op(NULL, &seen, MPI_INT, rank, 0, MPI_NO_OP, w);
			MPI_Win_flush_local(rank, w);
		} else {
			MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w);
			MPI_Get(&seen, 1, MPI_INT, rank, 0, 1, MPI_INT, w);
			MPI_Win_unlock(rank, w);
		}
	}
	if (how == 'a')
		MPI_Win_unlock_all(w);
	memset(data, 0, sizeof(data));
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, data, sizeof(data)) < 0 || close(fd) != 0)
		return 1;
	return wait && data[63] != 63;
}

static int emptylock(MPI_Win w, const char *path, int rank, int size)
{
	int data[64] = { 0 }, fd;

	if (rank == 0) {
		fd = open(path, O_WRONLY | O_TRUNC);
		if (fd < 0 || write(fd, data, sizeof(data)) != sizeof(data) || close(fd) != 0)
			return 1;
	}
	if (rank == 1)
		usleep(300000);
	if (rank <= 1) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, size - 1, 0, w);
		MPI_Win_unlock(size - 1, w);
	}
	if (rank == 1) {
		fd = open(path, O_RDONLY);
		if (fd < 0 || read(fd, data, sizeof(data)) < 0 || close(fd) != 0)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rank, size, *base, bad = 1;
	MPI_Win w;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 3) {
		if (rank == 0)
			fputs("usage: rmalock mutex|allmutex|flag|noflag|sharedflag|allflag|"
			      "noallflag|emptylock FILE\n", stderr);
		MPI_Finalize();
		return 2;
	}
	MPI_Win_allocate(WIN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
	memset(base, 0, WIN);
	if (rank == 0) {
		int zero = 0, fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, &zero, sizeof(zero)) != sizeof(zero) || close(fd) != 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (strcmp(argv[1], "mutex") == 0 || strcmp(argv[1], "allmutex") == 0)
		bad = mutex(w, argv[2], rank, size, argv[1][0] == 'a');
	else if (strcmp(argv[1], "flag") == 0 || strcmp(argv[1], "noflag") == 0)
		bad = flag(w, argv[2], rank, size, argv[1][0] == 'f', 'x');
	else if (strcmp(argv[1], "sharedflag") == 0)
		bad = flag(w, argv[2], rank, size, 1, 's');
	else if (strcmp(argv[1], "allflag") == 0 || strcmp(argv[1], "noallflag") == 0)
		bad = flag(w, argv[2], rank, size, argv[1][0] == 'a', 'a');
	else if (strcmp(argv[1], "emptylock") == 0)
		bad = emptylock(w, argv[2], rank, size);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&w);
	printf("%d: %s\n", rank, bad ? "FAIL" : "ok");
	MPI_Finalize();
	return bad;
}
