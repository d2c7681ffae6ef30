/*
 * lockfile - ranks add one to a counter in "f" (8 bytes at 0) N times
 * each, every read-and-write under a lock that is not on the counter's
 * bytes, no MPI call between them; then a barrier, and rank 0 reads the
 * counter.  The mode is the first argument:
 *   file     fcntl F_SETLKW, write lock on all of "f.lock" (a separate
 *            lock file), pread and pwrite of "f", unlock: the lock's
 *            handoffs order the increments, nothing commits: posix
 *   fsync    file, and an fsync of "f" before each unlock: commit
 *   reopen   file, "f" opened after the lock and closed before the
 *            unlock: session
 *   flock    file with flock(LOCK_EX) on "f.lock": posix
 *   replace  file, the counter read through an open of its own, "f"
 *            removed, made again (O_EXCL) with the new value and closed
 *            before the unlock: a name removed and made under a lock
 *            file, session
 *   byte     a write lock on one byte of "f" itself, at 1 GiB (SQLite's
 *            pending byte), far from the counter: posix
 *   cmd      the counter in "c" as text, each increment a shell command
 *            flock(1) runs holding "f.lock", through system(): the
 *            flock processes' handoffs order their commands: session
 *   cmdbare  cmd without flock(1): a race
 *   half     file, but only rank 0 takes the lock: a race
 *   shared   file with read locks, which exclude nothing: a race
 *   own      file, each rank locking a lock file of its own: a race
 * A second argument is how many increments each rank makes (3).
 * Rank 0 prints the counter and how much it should be.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static const char *mode;
static int n = 3;		/* increments per rank */

static int is(const char *m)
{
	return strcmp(mode, m) == 0;
}

static void setlk(int fd, short type, off_t start, off_t len)
{
	struct flock lk;

	memset(&lk, 0, sizeof(lk));
	lk.l_type = type;
	lk.l_whence = SEEK_SET;
	lk.l_start = start;
	lk.l_len = len;
	if (fcntl(fd, type == F_UNLCK ? F_SETLK : F_SETLKW, &lk) != 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
}

static void lock(int lfd, int df, int rank, int on)
{
	if (is("half") && rank != 0)
		return;
	if (is("flock"))
		flock(lfd, on ? LOCK_EX : LOCK_UN);
	else if (is("byte"))
		setlk(df, on ? F_WRLCK : F_UNLCK, (off_t)1 << 30, 1);
	else
		setlk(lfd, on ? (is("shared") ? F_RDLCK : F_WRLCK) : F_UNLCK, 0, 0);
}

int main(int argc, char **argv)
{
	long v = 0, want;
	int rank, size, i, lfd, df, fd;
	char lname[64];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	mode = argv[1];
	if (argc > 2 && (n = atoi(argv[2])) <= 0)
		MPI_Abort(MPI_COMM_WORLD, 2);
	snprintf(lname, sizeof(lname), is("own") ? "f.lock.%d" : "f.lock", rank);
	if (rank == 0) {
		fd = open("f", O_CREAT | O_TRUNC | O_WRONLY, 0644);
		if (fd < 0 || pwrite(fd, &v, sizeof(v), 0) != (ssize_t)sizeof(v))
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
		close(open("f.lock", O_CREAT | O_WRONLY, 0644));
		if ((is("cmd") || is("cmdbare")) && system("echo 0 > c") != 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (is("cmd") || is("cmdbare")) {
		for (i = 0; i < n; i++)
			if (system(is("cmd") ? "flock f.lock sh -c 'v=$(cat c); echo $((v + 1)) > c'"
					     : "sh -c 'v=$(cat c); echo $((v + 1)) > c'") != 0)
				MPI_Abort(MPI_COMM_WORLD, 1);
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0) {
			FILE *f = fopen("c", "r");
			if (!f || fscanf(f, "%ld", &v) != 1)
				MPI_Abort(MPI_COMM_WORLD, 1);
			fclose(f);
			printf("%ld of %ld\n", v, (long)n * size);
		}
		MPI_Finalize();
		return 0;
	}
	lfd = open(lname, O_CREAT | O_RDWR, 0644);
	df = is("replace") ? lfd : open("f", O_RDWR);	/* (its "f" changes) */
	if (lfd < 0 || df < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < n; i++) {
		lock(lfd, df, rank, 1);
		if (is("replace")) {
			fd = open("f", O_RDONLY);
			if (fd < 0 || pread(fd, &v, sizeof(v), 0) != (ssize_t)sizeof(v))
				MPI_Abort(MPI_COMM_WORLD, 1);
			close(fd);
			v++;
			unlink("f");
			fd = open("f", O_CREAT | O_EXCL | O_WRONLY, 0644);
			if (fd < 0 || pwrite(fd, &v, sizeof(v), 0) != (ssize_t)sizeof(v))
				MPI_Abort(MPI_COMM_WORLD, 1);
			close(fd);
			lock(lfd, df, rank, 0);
			continue;
		}
		fd = is("reopen") ? open("f", O_RDWR) : df;
		if (fd < 0 || pread(fd, &v, sizeof(v), 0) != (ssize_t)sizeof(v))
			MPI_Abort(MPI_COMM_WORLD, 1);
		v++;
		if (pwrite(fd, &v, sizeof(v), 0) != (ssize_t)sizeof(v))
			MPI_Abort(MPI_COMM_WORLD, 1);
		if (is("fsync"))
			fsync(fd);
		if (is("reopen"))
			close(fd);
		lock(lfd, df, rank, 0);
	}
	if (df != lfd)
		close(df);
	close(lfd);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		fd = open("f", O_RDONLY);
		if (fd < 0 || pread(fd, &v, sizeof(v), 0) != (ssize_t)sizeof(v))
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
		want = (long)n * size;
		printf("%ld of %ld\n", v, want);
	}
	MPI_Finalize();
	return 0;
}
