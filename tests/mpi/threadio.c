/*
 * threadio - ranks whose threads make MPI calls at once
 * (MPI_THREAD_MULTIPLE) around file accesses.  The mode is the first
 * argument, the file the second:
 *   ring     each rank starts a thread that blocks in MPI_Recv from its
 *            left neighbour; meanwhile the main thread writes its block,
 *            closes the file and sends to its right neighbour; the thread,
 *            once its receive returns, reads the left neighbour's block.
 *            A correct program: session.  (Ordered by their starts, the
 *            receive came before the send on every rank: a cycle.)
 *   hidden   rank 1's receiver thread blocks in MPI_Recv from rank 0 while
 *            its writer thread writes and closes block 1; rank 0 reads
 *            block 1 and only then sends: the read is not after the write,
 *            a race.  (Ordered by their starts, the receive came before the
 *            write, so the read looked ordered before it.)
 *   reuse    each rank runs 3 threads that each post 8 MPI_Irecv and 8
 *            MPI_Isend of a token with the neighbours (a tag per thread)
 *            and MPI_Waitall them, 50 times; then, as in ring, a block
 *            written, closed and sent, read by the neighbour: session.
 *            The threads free and get back the same request handles at
 *            once.
 * Prints "R: ok" per rank when what it read was right (in hidden, always).
 */
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLK 64

static int rank, size;
static const char *path;
static int bad;

static void nap(int ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

static void write_block(int r)
{
	char b[BLK];
	int fd = open(path, O_WRONLY);

	memset(b, 'a' + r, BLK);
	if (fd < 0 || pwrite(fd, b, BLK, (off_t)r * BLK) != BLK || close(fd) != 0)
		bad = 1;
}

static int read_block(int r)
{
	char b[BLK];
	int fd = open(path, O_RDONLY), ok;

	ok = fd >= 0 && pread(fd, b, BLK, (off_t)r * BLK) == BLK && b[0] == 'a' + r &&
	     b[BLK - 1] == 'a' + r;
	if (fd >= 0)
		close(fd);
	return ok;
}

static void *ring_reader(void *arg)
{
	int tok, left = (rank + size - 1) % size;

	(void)arg;
	MPI_Recv(&tok, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (!read_block(left))
		bad = 1;
	return NULL;
}

static volatile int waiting;

static void *hidden_receiver(void *arg)
{
	int tok;

	(void)arg;
	waiting = 1;
	MPI_Recv(&tok, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	return NULL;
}

static void *hidden_writer(void *arg)
{
	(void)arg;
	while (!waiting)
		nap(1);
	nap(20);
	write_block(1);
	return NULL;
}

static void *exchanger(void *arg)
{
	int t = (int)(long)arg, in[8], out[8], i, k;
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	MPI_Request rq[16];
	MPI_Status st[16];

	for (k = 0; k < 50; k++) {
		for (i = 0; i < 8; i++) {
			out[i] = k;
			MPI_Irecv(&in[i], 1, MPI_INT, left, 10 + t, MPI_COMM_WORLD, &rq[i]);
			MPI_Isend(&out[i], 1, MPI_INT, right, 10 + t, MPI_COMM_WORLD, &rq[8 + i]);
		}
		MPI_Waitall(16, rq, st);
		for (i = 0; i < 8; i++)
			if (in[i] != k)
				bad = 1;
	}
	return NULL;
}

static void ring(void)
{
	pthread_t r;
	int tok = 1;

	pthread_create(&r, NULL, ring_reader, NULL);
	nap(10);
	write_block(rank);
	MPI_Send(&tok, 1, MPI_INT, (rank + 1) % size, 1, MPI_COMM_WORLD);
	pthread_join(r, NULL);
}

int main(int argc, char **argv)
{
	int prov, tok = 2;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 3 || prov < MPI_THREAD_MULTIPLE || size < 2) {
		if (rank == 0)
			fputs("usage: threadio ring|hidden|reuse FILE (2 ranks or more, "
			      "MPI_THREAD_MULTIPLE)\n", stderr);
		MPI_Finalize();
		return 2;
	}
	path = argv[2];
	if (rank == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || ftruncate(fd, (off_t)size * BLK) != 0 || close(fd) != 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (strcmp(argv[1], "ring") == 0) {
		ring();
	} else if (strcmp(argv[1], "hidden") == 0) {
		pthread_t r, w;
		if (rank == 1) {
			pthread_create(&r, NULL, hidden_receiver, NULL);
			pthread_create(&w, NULL, hidden_writer, NULL);
			pthread_join(w, NULL);
			pthread_join(r, NULL);
		} else if (rank == 0) {
			nap(100);
			read_block(1);
			MPI_Send(&tok, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
		}
	} else if (strcmp(argv[1], "reuse") == 0) {
		pthread_t t[3];
		long i;
		for (i = 0; i < 3; i++)
			pthread_create(&t[i], NULL, exchanger, (void *)i);
		for (i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
		ring();
	}
	MPI_Barrier(MPI_COMM_WORLD);
	printf("%d: %s\n", rank, bad ? "FAIL" : "ok");
	MPI_Finalize();
	return bad;
}
