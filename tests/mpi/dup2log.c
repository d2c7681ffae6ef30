/*
 * dup2log - a rank's standard output put on a file with dup2, as a job
 * wrapper or a program that keeps a log per rank does it: rank 0 opens
 * FILE, puts it on descriptor 1 and prints its log with printf; the
 * bytes go through stdout's buffer to whatever descriptor 1 is when it is
 * flushed.  Rank 1 then reads FILE:
 *
 *   nosync  0.3 s later, nothing between (a race)
 *   flush   after fflush(stdout) and a barrier (commit: fflush commits)
 *   fclose  after fclose(stdout), which closes descriptor 1, and a
 *           barrier (session)
 *   read    no rank writes: every rank reads FILE (a job script's
 *           reader of what a program printed into FILE with "> FILE")
 *
 *   dup2log MODE FILE
 *
 * The ranks that read print the number of bytes they read.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char got[512];
	int rank, fd, i;
	ssize_t n;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (strcmp(argv[1], "read") == 0) {
		fd = open(argv[2], O_RDONLY);
		n = fd < 0 ? -1 : read(fd, got, sizeof(got));
		fprintf(stderr, "read %zd\n", n);
		MPI_Finalize();
		return 0;
	}
	if (rank == 0) {
		fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) != 1)
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
		for (i = 0; i < 5; i++)
			printf("step %d of 5\n", i + 1);
		if (strcmp(argv[1], "flush") == 0)
			fflush(stdout);
		else if (strcmp(argv[1], "fclose") == 0)
			fclose(stdout);
	}
	if (strcmp(argv[1], "nosync") == 0) {
		if (rank == 0)
			fflush(stdout);
		else
			usleep(300000);
	} else {
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (rank == 1) {
		fd = open(argv[2], O_RDONLY);
		n = fd < 0 ? -1 : read(fd, got, sizeof(got));
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "read %zd\n", n);
	}
	MPI_Finalize();
	return 0;
}
