/*
 * partition - MPI-4 partitioned communication orders a write before the
 * partition it was made ready for.  Rank 0 starts a partitioned send of
 * two partitions, writes 64 bytes and closes, and makes the partitions
 * ready; rank 1 starts the receive, and reads the bytes
 *
 *   wait	after MPI_Wait (MPI_Pready each partition): ordered
 *   arrived	after MPI_Parrived found both (MPI_Pready_range): ordered
 *   early	after MPI_Wait, the partitions made ready before the write
 *		(MPI_Pready_list): a race
 *   half	after MPI_Parrived found partition 0, made ready before the
 *		write; partition 1 after it: a race
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void write_it(const char *path)
{
	char buf[64];
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);

	memset(buf, 'w', sizeof(buf));
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		perror("write");
	close(fd);
}

static void arrive(MPI_Request rq, int p)
{
	int flag = 0;

	while (!flag)
		MPI_Parrived(rq, p, &flag);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "wait", *path = argc > 2 ? argv[2] : "part.dat";
	int rank, data[32] = { 0 }, both[2] = { 0, 1 }, fd;
	char buf[64];
	MPI_Request rq;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Psend_init(data, 2, 16, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &rq);
		MPI_Start(&rq);
		if (strcmp(mode, "early") == 0) {
			MPI_Pready_list(2, both, rq);
			write_it(path);
		} else if (strcmp(mode, "half") == 0) {
			MPI_Pready(0, rq);
			write_it(path);
			MPI_Pready(1, rq);
		} else if (strcmp(mode, "arrived") == 0) {
			write_it(path);
			MPI_Pready_range(0, 1, rq);
		} else {
			write_it(path);
			MPI_Pready(0, rq);
			MPI_Pready(1, rq);
		}
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		MPI_Request_free(&rq);
	} else if (rank == 1) {
		MPI_Precv_init(data, 2, 16, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &rq);
		MPI_Start(&rq);
		if (strcmp(mode, "arrived") == 0) {
			arrive(rq, 0);
			arrive(rq, 1);
		} else if (strcmp(mode, "half") == 0) {
			arrive(rq, 0);
		} else {
			MPI_Wait(&rq, MPI_STATUS_IGNORE);
		}
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf)) < 0)
				perror("read");
			close(fd);
		}
		if (strcmp(mode, "arrived") == 0 || strcmp(mode, "half") == 0)
			MPI_Wait(&rq, MPI_STATUS_IGNORE);
		MPI_Request_free(&rq);
	}
	printf("%d: ok\n", rank);
	MPI_Finalize();
	return 0;
}
