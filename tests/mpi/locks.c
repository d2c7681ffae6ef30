/*
 * locks - ranks writing the same bytes of "f", guarded by advisory record
 * locks or not, as ROMIO's data sieving and shared file pointer do.  The
 * mode is the first argument:
 *   sieve    each rank, R times: a write lock (fcntl F_SETLKW) on bytes
 *            [0, 64), read them, put its rank in its own 4 of each 8,
 *            write the 64 back, unlock (F_SETLK F_UNLCK)
 *   getlk    sieve, then F_GETLK asks for a write lock on [0, 64)
 *   cur      sieve, the lock and unlock given as SEEK_CUR after an lseek
 *            to 32: bytes [0, 64) as l_start -32 from there
 *   lockf    sieve with lockf(F_LOCK, 64) / lockf(F_ULOCK, 64) at 0
 *   flock    sieve with flock(LOCK_EX) / flock(LOCK_UN): the whole file
 *   half     sieve, but only rank 0 takes the locks
 *   race     sieve without any lock
 *   forked   rank 0 takes flock(LOCK_EX) and forks; the child takes it
 *            too, granted at once (the lock is the open file description's,
 *            which the two share), and writes [0, 64) while rank 0 reads
 *            them: the locks exclude nothing, a race
 *   handoff  rank 1 writes [0, 64) under the write lock; rank 0, 0.2 s
 *            later, takes the lock and releases it, then reads the bytes
 *            without it: the lock's handoff orders the write before the
 *            read (posix: nothing commits between)
 *   shared   MPI_File_write_shared of 8 bytes per rank, R times, then
 *            MPI_File_write_ordered of 8 bytes
 *   ds       a noncontiguous MPI_File_write through a vector view (rank
 *            r owns 4 of every 8 bytes), data sieving on (romio_ds_write
 *            enable): ROMIO reads, merges and writes whole extents under
 *            a lock
 * There is no MPI call between the open and the close of "f", except in
 * the MPI-IO modes (which make none but ROMIO's own).
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#define R 4
#define LEN 64

static void setlk(int fd, short type, short whence, off_t start)
{
	struct flock lk;

	memset(&lk, 0, sizeof(lk));
	lk.l_type = type;
	lk.l_whence = whence;
	lk.l_start = start;
	lk.l_len = LEN;
	if (fcntl(fd, type == F_UNLCK ? F_SETLK : F_SETLKW, &lk) < 0)
		perror("fcntl");
}

static void lock(int fd, const char *mode, int unlock)
{
	if (strcmp(mode, "lockf") == 0) {
		lseek(fd, 0, SEEK_SET);
		if (lockf(fd, unlock ? F_ULOCK : F_LOCK, LEN) < 0)
			perror("lockf");
	} else if (strcmp(mode, "flock") == 0) {
		if (flock(fd, unlock ? LOCK_UN : LOCK_EX) < 0)
			perror("flock");
	} else if (strcmp(mode, "cur") == 0) {
		lseek(fd, 32, SEEK_SET);
		setlk(fd, unlock ? F_UNLCK : F_WRLCK, SEEK_CUR, -32);
	} else {
		setlk(fd, unlock ? F_UNLCK : F_WRLCK, SEEK_SET, 0);
	}
}

static int posix_modes(const char *mode, int rank)
{
	int uselock = strcmp(mode, "race") != 0 && (strcmp(mode, "half") != 0 || rank == 0);
	unsigned char buf[LEN];
	struct flock lk;
	int fd, i, k;

	fd = open("f", O_RDWR | O_CREAT, 0644);
	if (fd < 0) {
		perror("f");
		return 1;
	}
	if (strcmp(mode, "forked") == 0) {
		pid_t pid;
		if (rank == 0) {
			memset(buf, 'c', sizeof(buf));
			if (flock(fd, LOCK_EX) < 0 || (pid = fork()) < 0)
				perror("forked");
			else if (pid == 0) {
				if (flock(fd, LOCK_EX) < 0 || pwrite(fd, buf, LEN, 0) != LEN)
					perror("child");
				usleep(100000);
				_exit(0);
			} else {
				usleep(30000);
				if (pread(fd, buf, LEN, 0) < 0)
					perror("pread");
				waitpid(pid, NULL, 0);
				flock(fd, LOCK_UN);
			}
		}
		close(fd);
		return 0;
	}
	if (strcmp(mode, "handoff") == 0) {
		memset(buf, 'a' + rank, sizeof(buf));
		if (rank == 0)
			usleep(200000);
		lock(fd, mode, 0);
		if (rank == 1 && pwrite(fd, buf, LEN, 0) != LEN)
			perror("pwrite");
		lock(fd, mode, 1);
		if (rank == 0 && pread(fd, buf, LEN, 0) < 0)
			perror("pread");
		close(fd);
		return 0;
	}
	for (k = 0; k < R; k++) {
		if (uselock)
			lock(fd, mode, 0);
		memset(buf, 0, sizeof(buf));
		if (pread(fd, buf, LEN, 0) < 0)
			perror("pread");
		for (i = 0; i < LEN; i++)
			if ((i / 4) % 2 == rank % 2)
				buf[i] = (unsigned char)('a' + rank);
		if (pwrite(fd, buf, LEN, 0) != LEN)
			perror("pwrite");
		if (uselock)
			lock(fd, mode, 1);
	}
	if (strcmp(mode, "getlk") == 0) {
		memset(&lk, 0, sizeof(lk));
		lk.l_type = F_WRLCK;
		lk.l_len = LEN;
		if (fcntl(fd, F_GETLK, &lk) < 0)
			perror("F_GETLK");
	}
	close(fd);
	return 0;
}

static int mpiio_modes(const char *mode, int rank)
{
	char buf[LEN];
	MPI_Datatype vec;
	MPI_Info info;
	MPI_File fh;
	int k;

	memset(buf, 'a' + rank, sizeof(buf));
	MPI_Info_create(&info);
	MPI_Info_set(info, "romio_ds_write", "enable");
	MPI_File_open(MPI_COMM_WORLD, "f", MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
	if (strcmp(mode, "shared") == 0) {
		for (k = 0; k < R; k++)
			MPI_File_write_shared(fh, buf, 8, MPI_BYTE, MPI_STATUS_IGNORE);
		/* every write_shared done before the ordered call fetches the
		 * pointer: without it ROMIO may place one rank's ordered bytes
		 * between another's shared writes, and the trace (which has
		 * only the pointer after the call) cannot tell where */
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_File_write_ordered(fh, buf, 8, MPI_BYTE, MPI_STATUS_IGNORE);
	} else {
		MPI_Type_vector(LEN / 8, 4, 8, MPI_BYTE, &vec);
		MPI_Type_commit(&vec);
		MPI_File_set_view(fh, rank * 4, MPI_BYTE, vec, "native", info);
		for (k = 0; k < R; k++)
			MPI_File_write_at(fh, 0, buf, LEN / 2, MPI_BYTE, MPI_STATUS_IGNORE);
		MPI_Type_free(&vec);
	}
	MPI_File_close(&fh);
	MPI_Info_free(&info);
	return 0;
}

int main(int argc, char **argv)
{
	int rank, rc;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 2) {
		fprintf(stderr, "usage: locks sieve|getlk|cur|lockf|flock|half|race|forked|handoff|shared|ds\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (strcmp(argv[1], "shared") == 0 || strcmp(argv[1], "ds") == 0)
		rc = mpiio_modes(argv[1], rank);
	else
		rc = posix_modes(argv[1], rank);
	MPI_Finalize();
	return rc;
}
