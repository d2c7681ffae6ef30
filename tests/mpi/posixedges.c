/*
 * posixedges - POSIX calls whose effect on a file is not in their byte
 * count.  Two ranks; FILE is made empty before a barrier.
 *
 * Reads that met the end of the file (rank 1 at once, rank 0 writes
 * [0, 16) 0.1 s later, nothing between: a race; the read found nothing
 * because the write had not come):
 *   pread     pread of 16 bytes                 (the model: a race)
 *   preadv    preadv of two 8-byte pieces
 *   readv     readv of two 8-byte pieces
 *   cfr       copy_file_range of 16 bytes to FILE.out
 *   sendfile  sendfile of 16 bytes to FILE.out
 *
 * Looks at where the file ends (both ranks keep FILE open; rank 0
 * writes 4 KiB, no commit, no close; a barrier; rank 1 asks through its
 * descriptor: posix, as fstat is):
 *   seekend   lseek(fd, 0, SEEK_END)
 *   seekhole  lseek(fd, 0, SEEK_HOLE)
 *   seekdata  lseek(fd, 0, SEEK_DATA), the write at [8192, 12288)
 *
 * A close made by dup2 (rank 0 writes FILE and puts /dev/null over its
 * descriptor with dup2, no close; a barrier; rank 1 reads: session):
 *   dup2null
 *
 * A FIFO (FILE.fifo, made by rank 0 before the barrier; rank 0 writes a
 * token into it through open, rank 1 reads it through fopen): a channel,
 * no file's bytes (session)
 *   fifo
 *
 * POSIX shared memory (an object named after FILE, made by rank 0 with
 * shm_open and ftruncate before the barrier, opened by rank 1 after it):
 *   shm      rank 0 writes 16 bytes 0.2 s after the barrier, rank 1
 *            reads them 0.1 s after it: a race
 *   shmsync  rank 0 writes and closes, a barrier, rank 1 reads: session
 *
 *   posixedges MODE FILE
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static char buf[4096];

static int is(const char *m, const char *s)
{
	return strcmp(m, s) == 0;
}

static void shortread(int rank, const char *m, const char *file)
{
	struct iovec v[2] = { { buf, 8 }, { buf + 8, 8 } };
	char out[4096];
	ssize_t n = -2;
	off_t at = 0;
	int fd, o;

	if (rank == 0) {
		usleep(100000);
		fd = open(file, O_WRONLY);
		n = write(fd, "0123456789abcdef", 16);
		close(fd);
		return;
	}
	fd = open(file, O_RDONLY);
	if (is(m, "pread")) {
		n = pread(fd, buf, 16, 0);
	} else if (is(m, "preadv")) {
		n = preadv(fd, v, 2, 0);
	} else if (is(m, "readv")) {
		n = readv(fd, v, 2);
	} else {
		snprintf(out, sizeof(out), "%s.out", file);
		o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		n = is(m, "cfr") ? copy_file_range(fd, NULL, o, NULL, 16, 0)
				 : sendfile(o, fd, &at, 16);
		close(o);
	}
	close(fd);
	printf("%s %zd\n", m, n);
}

static void seeks(int rank, const char *m, const char *file)
{
	int fd = open(file, O_RDWR);

	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		memset(buf, 'h', sizeof(buf));
		if (pwrite(fd, buf, sizeof(buf), is(m, "seekdata") ? 8192 : 0) < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		printf("%s %ld\n", m, (long)lseek(fd, 0, is(m, "seekend") ? SEEK_END :
					   is(m, "seekhole") ? SEEK_HOLE : SEEK_DATA));
	MPI_Barrier(MPI_COMM_WORLD);
	close(fd);
}

static void dup2null(int rank, const char *file)
{
	int fd, null;

	if (rank == 0) {
		fd = open(file, O_WRONLY);
		null = open("/dev/null", O_WRONLY);
		if (write(fd, "0123456789abcdef", 16) != 16 || dup2(null, fd) != fd)
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(null);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		fd = open(file, O_RDONLY);
		printf("dup2null %zd\n", read(fd, buf, 16));
		close(fd);
	}
}

static void fifo(int rank, const char *file)
{
	char name[4096], t[4] = "";
	FILE *f;
	int fd;

	snprintf(name, sizeof(name), "%s.fifo", file);
	if (rank == 0) {
		fd = open(name, O_WRONLY);
		if (fd < 0 || write(fd, "TU", 2) != 2 || close(fd) != 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
	} else {
		if (!(f = fopen(name, "r")) || fread(t, 1, 2, f) != 2)
			MPI_Abort(MPI_COMM_WORLD, 1);
		fclose(f);
		printf("fifo %s\n", t);
	}
}

static void shm(int rank, const char *mode, const char *file)
{
	char name[64];
	unsigned long h = 5381;
	const char *p;
	int fd, sync = is(mode, "shmsync");

	for (p = file; *p; p++)
		h = h * 33 + (unsigned char)*p;
	snprintf(name, sizeof(name), "/tg-posixedges-%lx", h);
	if (rank == 0) {
		shm_unlink(name);
		fd = shm_open(name, O_CREAT | O_RDWR, 0600);
		if (fd < 0 || ftruncate(fd, 4096) != 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		if (sync && pwrite(fd, "0123456789abcdef", 16, 0) != 16)
			MPI_Abort(MPI_COMM_WORLD, 1);
		if (sync)
			close(fd);
		MPI_Barrier(MPI_COMM_WORLD);
		if (!sync) {
			usleep(200000);
			if (pwrite(fd, "0123456789abcdef", 16, 0) != 16)
				MPI_Abort(MPI_COMM_WORLD, 1);
			close(fd);
		}
	} else {
		MPI_Barrier(MPI_COMM_WORLD);
		if (!sync)
			usleep(100000);
		fd = shm_open(name, O_RDWR, 0);
		if (fd < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		printf("%s %zd\n", mode, pread(fd, buf, 16, 0));
		close(fd);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		shm_unlink(name);
}

int main(int argc, char **argv)
{
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		char name[4096];
		close(open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644));
		snprintf(name, sizeof(name), "%s.fifo", argv[2]);
		if (is(argv[1], "fifo") && mkfifo(name, 0644) != 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (is(argv[1], "fifo"))
		fifo(rank, argv[2]);
	else if (strncmp(argv[1], "shm", 3) == 0)
		shm(rank, argv[1], argv[2]);
	else if (strncmp(argv[1], "seek", 4) == 0)
		seeks(rank, argv[1], argv[2]);
	else if (is(argv[1], "dup2null"))
		dup2null(rank, argv[2]);
	else
		shortread(rank, argv[1], argv[2]);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
