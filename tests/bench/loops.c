/*
 * loops - the loops whose traces cost overlap-find n squared until
 * 2026-12-04 (tests/bench/run times it on n and 2n of them):
 *
 *   loops rename N DIR   a checkpoint written aside (DIR/ckpt.tmp) and
 *                        renamed into place (DIR/ckpt), N times
 *   loops poll N DIR     (2 ranks) rank 1 looks N times for DIR/flag
 *                        (stat: not there), a barrier, rank 0 makes it,
 *                        a barrier, rank 1 looks once more
 *
 * An MPI program: mpirun -n 1 for rename, -n 2 for poll.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char tmp[4096], dst[4096], buf[64];
	struct stat st;
	long n, i;
	int fd, rank, rc = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 4 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: loops rename|poll N DIR\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (strcmp(argv[1], "rename") == 0) {
		snprintf(tmp, sizeof(tmp), "%s/ckpt.tmp.%d", argv[3], rank);
		snprintf(dst, sizeof(dst), "%s/ckpt.%d", argv[3], rank);
		memset(buf, 'c', sizeof(buf));
		for (i = 0; i < n && !rc; i++) {
			fd = open(tmp, O_CREAT | O_TRUNC | O_WRONLY, 0644);
			rc = fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
			     close(fd) != 0 || rename(tmp, dst) != 0;
		}
	} else {
		snprintf(dst, sizeof(dst), "%s/flag", argv[3]);
		for (i = 0; rank == 1 && i < n; i++)
			rc |= stat(dst, &st) == 0;
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0)
			close(open(dst, O_CREAT | O_WRONLY, 0644));
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 1)
			rc |= stat(dst, &st) != 0;
	}
	MPI_Finalize();
	return rc;
}
