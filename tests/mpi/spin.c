/*
 * spin PATH SECONDS - each rank writes 64 bytes to PATH, then polls
 * MPI_Iprobe for a message that never comes, with an MPI_Comm_rank every
 * 1000 polls (a record that ends a run of folded polls), and after SECONDS
 * kills itself (SIGKILL: nothing runs after it): the tracer folds the
 * polls into counts, and the stream must read to the kill as a torn tail
 * (a poll it dropped once left bytes past the last checksum that read as
 * a corrupt frame).
 */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "spin.dat";
	int rank, flag, fd;
	double end;
	char buf[64];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	memset(buf, 'a' + rank, sizeof(buf));
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (pwrite(fd, buf, sizeof(buf), 64 * rank) < 0)
		return 1;
	end = MPI_Wtime() + (argc > 2 ? atof(argv[2]) : 2);
	for (long k = 0;; k++) {
		MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		if (k % 1000 == 0) {
			MPI_Comm_rank(MPI_COMM_WORLD, &flag);
			if (MPI_Wtime() > end)
				kill(getpid(), SIGKILL);
		}
	}
}
