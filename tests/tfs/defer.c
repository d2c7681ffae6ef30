/*
 * defer - posix-model visibility across clients with plain POSIX calls,
 * for tests/tfs.bats under libtfs-posix.so.
 *
 * usage: defer FILE        (under mpirun, 2 or more ranks)
 * Rank 0 writes; after each round it tells the other ranks by MPI_Send
 * (nothing else: no fsync, no close), and they check, each through its
 * own client, that they see every write that returned before:
 *   round 1: 64 blocks of 4 KiB ('A' + block % 26) by write(2); each
 *            reader preads the whole file: "rank R read N bytes: ok";
 *   round 2: block 3 overwritten with 'z', a block of 'y' appended; each
 *            reader fstats first ("rank R size S"), then preads both
 *            blocks: "rank R round 2: ok";
 *   round 3: a block of 'x' appended; each reader seeks to the end:
 *            "rank R end E";
 *   round 4: a block of 'w' appended, then rank 1 truncates the file to
 *            two blocks; each reader fstats: "rank R truncated to S".
 * A reader that sees anything else prints what it saw.
 *
 * usage: defer FILE many [ROUNDS]   (under mpirun, 2 or more ranks)
 * Every rank but 0 writes a region of its own (16 blocks of 4 KiB, 'a' +
 * round + rank), unattached; after a barrier rank 0 preads the whole
 * file, so that every writer is asked to flush, and checks it:
 * "rank 0 read N bytes of W writers: ok" once, and on standard error the
 * median time of that read over ROUNDS rounds (default 1) in
 * microseconds, "many-read-us T".
 *
 * usage: defer FILE kill   (no MPI)
 * Writes "NEWNEWNE" at offset 0 of FILE (which exists), creates the file
 * $DEFER_MARK (outside the mount) once the write returned, then waits to
 * be killed.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BS 4096
#define NB 64

static int check(const char *buf, size_t n, int c)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i] != c)
			return 0;
	return 1;
}

static int kill_mode(const char *path)
{
	const char *mark = getenv("DEFER_MARK");
	int fd = open(path, O_RDWR);

	if (fd < 0 || pwrite(fd, "NEWNEWNE", 8, 0) != 8 || !mark) {
		perror(path);
		return 1;
	}
	close(open(mark, O_WRONLY | O_CREAT, 0644));
	for (;;)
		pause();
}

static void writer(int fd, int size)
{
	static char buf[BS];
	int token = 0;

	for (int b = 0; b < NB; b++) {
		memset(buf, 'A' + b % 26, BS);
		if (write(fd, buf, BS) != BS)
			perror("write");
	}
	for (int r = 1; r < size; r++)
		MPI_Send(&token, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	memset(buf, 'z', BS);
	if (pwrite(fd, buf, BS, 3 * BS) != BS)
		perror("pwrite");
	memset(buf, 'y', BS);
	if (pwrite(fd, buf, BS, (off_t)NB * BS) != BS)
		perror("pwrite");
	for (int r = 1; r < size; r++)
		MPI_Send(&token, 1, MPI_INT, r, 2, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	memset(buf, 'x', BS);
	if (pwrite(fd, buf, BS, (off_t)(NB + 1) * BS) != BS)
		perror("pwrite");
	for (int r = 1; r < size; r++)
		MPI_Send(&token, 1, MPI_INT, r, 3, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	memset(buf, 'w', BS);
	if (pwrite(fd, buf, BS, (off_t)(NB + 2) * BS) != BS)
		perror("pwrite");
	MPI_Send(&token, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
}

static void reader(int fd, int rank)
{
	static char buf[(NB + 2) * BS];
	struct stat st;
	int token, ok = 1;
	ssize_t n;

	MPI_Recv(&token, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	n = pread(fd, buf, sizeof(buf), 0);
	for (int b = 0; n == NB * BS && b < NB; b++)
		ok = ok && check(buf + b * BS, BS, 'A' + b % 26);
	printf("rank %d read %zd bytes: %s\n", rank, n, n == NB * BS && ok ? "ok" : "WRONG");
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Recv(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (fstat(fd, &st) < 0)
		perror("fstat");
	printf("rank %d size %lld\n", rank, (long long)st.st_size);
	ok = pread(fd, buf, BS, 3 * BS) == BS && check(buf, BS, 'z') &&
	     pread(fd, buf, BS, (off_t)NB * BS) == BS && check(buf, BS, 'y');
	printf("rank %d round 2: %s\n", rank, ok ? "ok" : "WRONG");
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Recv(&token, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	printf("rank %d end %lld\n", rank, (long long)lseek(fd, 0, SEEK_END));
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		MPI_Recv(&token, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (ftruncate(fd, 2 * BS) < 0)
			perror("ftruncate");
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (fstat(fd, &st) < 0)
		perror("fstat");
	printf("rank %d truncated to %lld\n", rank, (long long)st.st_size);
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void many(int fd, int rank, int size, int rounds)
{
	static char buf[16 * BS];
	char *all = malloc((size_t)(size - 1) * sizeof(buf));
	double *t = malloc((size_t)rounds * sizeof(double));
	int ok = 1;
	ssize_t n = 0;

	if (!all || !t)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (int r = 0; r < rounds; r++) {
		if (rank > 0) {
			memset(buf, 'a' + (r + rank) % 26, BS);
			for (int b = 0; b < 16; b++)
				if (pwrite(fd, buf, BS, ((off_t)(rank - 1) * 16 + b) * BS) != BS)
					perror("pwrite");
		}
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0) {
			double t0 = MPI_Wtime();

			n = pread(fd, all, (size_t)(size - 1) * sizeof(buf), 0);
			t[r] = (MPI_Wtime() - t0) * 1e6;
			for (int w = 1; n == (ssize_t)((size_t)(size - 1) * sizeof(buf)) && w < size; w++)
				ok = ok && check(all + (size_t)(w - 1) * sizeof(buf), sizeof(buf),
						 'a' + (r + w) % 26);
			ok = ok && n == (ssize_t)((size_t)(size - 1) * sizeof(buf));
		}
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (rank == 0) {
		qsort(t, (size_t)rounds, sizeof(double), cmp_double);
		printf("rank 0 read %zd bytes of %d writers: %s\n", n, size - 1, ok ? "ok" : "WRONG");
		fprintf(stderr, "many-read-us %.1f\n", t[rounds / 2]);
	}
	free(all);
	free(t);
}

int main(int argc, char **argv)
{
	int rank, size, fd = -1;

	if (argc == 3 && strcmp(argv[2], "kill") == 0)
		return kill_mode(argv[1]);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if ((argc != 2 && (argc < 3 || strcmp(argv[2], "many") != 0)) || size < 2) {
		fprintf(stderr, "usage: mpirun -n 2+ defer file [many [rounds]] | defer file kill\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	/* every rank has the file open before the first write */
	if (rank == 0)
		fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank != 0)
		fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (argc >= 3)
		many(fd, rank, size, argc > 3 ? atoi(argv[3]) > 0 ? atoi(argv[3]) : 1 : 1);
	else if (rank == 0)
		writer(fd, size);
	else
		reader(fd, rank);
	close(fd);
	MPI_Finalize();
	return 0;
}
