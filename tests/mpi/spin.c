/*
 * spin - each rank polls MPI_Iprobe for a message that never comes and
 * writes 64 bytes every 1000 polls, until it is killed: the tracer folds
 * the polls into counts, and the stream must read to the kill as a torn
 * tail (a poll it dropped once left bytes past the last checksum that
 * read as a corrupt frame).
 */
#include <fcntl.h>
#include <mpi.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "spin.dat";
	int rank, flag, fd;
	char buf[64];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	memset(buf, 'a' + rank, sizeof(buf));
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	for (long k = 0;; k++) {
		MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		if (k % 1000 == 0 && pwrite(fd, buf, sizeof(buf), 64 * rank) < 0)
			return 1;
	}
}
