/*
 * forkread - a child of rank 0 reads FILE through a descriptor it
 * inherited, while rank 1 writes FILE: nothing orders the two (a race).
 * Rank 0 makes FILE empty before a barrier, opens it, forks and waits
 * for the child; rank 1 writes 18 bytes after the barrier.  The child's
 * stream (pid-N.rec) comes before the ranks' in the trace directory.
 *
 * usage: forkread FILE
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, fd, st;
	char b[64];
	pid_t p;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0 && (fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0)
		close(fd);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		usleep(20000);
		if ((fd = open(argv[1], O_WRONLY)) < 0 || write(fd, "written by rank 1\n", 18) != 18)
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
	}
	if (rank == 0) {
		if ((fd = open(argv[1], O_RDONLY)) < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		if ((p = fork()) == 0) {
			usleep(30000);
			_exit(read(fd, b, sizeof(b)) < 0);
		}
		waitpid(p, &st, 0);
		close(fd);
		printf("child %s\n", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "read" : "failed");
	}
	MPI_Finalize();
	return 0;
}
