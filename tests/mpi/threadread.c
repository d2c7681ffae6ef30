/*
 * threadread.c - rank 1 reads a file rank 0 writes, from a thread that
 * makes no MPI call, while its main thread waits in MPI_Recv for rank 0's
 * message, which rank 0 sends after writing (MPI_THREAD_FUNNELED: only
 * the main thread calls MPI).
 *
 *   threadread race FILE   the thread starts before the receive and reads
 *                          at once: before rank 0 has written (a race;
 *                          it prints "read 0")
 *   threadread ok FILE     the thread starts after the receive returned
 *                          (session; "read 4096")
 *
 * Rank 0 waits 150 ms before it writes, so that the race's read comes
 * first.
 */
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *path;
static ssize_t got;

static void *reader(void *arg)
{
	char buf[4096];
	int fd;

	(void)arg;
	if ((fd = open(path, O_RDONLY)) >= 0) {
		got = pread(fd, buf, sizeof(buf), 0);
		close(fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int rank, provided, tok = 1, race;
	char buf[4096];
	pthread_t t;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	race = strcmp(argv[1], "race") == 0;
	path = argv[2];
	if (rank == 0) {
		int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
		close(fd);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		int fd = open(path, O_WRONLY);
		usleep(150000);
		memset(buf, 'x', sizeof(buf));
		if (fd < 0 || pwrite(fd, buf, sizeof(buf), 0) != sizeof(buf))
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
		MPI_Send(&tok, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	} else if (rank == 1) {
		if (race)
			pthread_create(&t, NULL, reader, NULL);
		MPI_Recv(&tok, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (!race)
			pthread_create(&t, NULL, reader, NULL);
		pthread_join(t, NULL);
		printf("read %zd\n", got);
	}
	MPI_Finalize();
	return 0;
}
