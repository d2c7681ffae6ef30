/*
 * inherited - a file rank 1 writes and closes is read by a process rank 0
 * starts, through a descriptor that process did not open itself.
 *
 *   inherited HOW DIR
 *
 * Rank 1 writes DIR/in and closes it; a barrier; then rank 0:
 *   redir  system("cat < DIR/in > DIR/copy"): the shell opens DIR/in and
 *          the cat it starts reads it through descriptor 0
 *   fork   opens DIR/in, forks; the child reads it and _exits
 *   spawn  opens DIR/in onto its standard input and posix_spawns this
 *          program as "inherited read", which reads it in its first call
 *   nobar  as redir, but without the barrier: rank 0 sleeps 0.5 s (a race)
 *   early  as fork, but rank 0 opens DIR/in (made empty by it first)
 *          before rank 1's write and close: the child reads in the
 *          session that open began (commit, not session)
 */
#include <fcntl.h>
#include <mpi.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void die(const char *what)
{
	perror(what);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
	char path[4096], cmd[8192], buf[64];
	int rank, fd, st;
	pid_t pid;
	FILE *f;

	if (argc == 2 && strcmp(argv[1], "read") == 0)
		return read(0, buf, sizeof(buf)) == 18 ? 0 : 1;	/* (no MPI) */
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 3) {
		if (rank == 0)
			fprintf(stderr, "usage: inherited HOW DIR\n");
		MPI_Finalize();
		return 2;
	}
	snprintf(path, sizeof(path), "%s/in", argv[2]);
	fd = -1;
	if (strcmp(argv[1], "early") == 0) {
		if (rank == 0 && ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0))
			die(path);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (rank == 1 && (!(f = fopen(path, "w")) || fputs("written by rank 1\n", f) < 0 ||
			  fclose(f) != 0))
		die(path);
	if (strcmp(argv[1], "nobar") == 0)
		usleep(rank == 0 ? 500000 : 0);
	else
		MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0 && (strcmp(argv[1], "fork") == 0 || strcmp(argv[1], "early") == 0)) {
		if (fd < 0 && (fd = open(path, O_RDONLY)) < 0)
			die(path);
		if ((pid = fork()) < 0)
			die("fork");
		if (pid == 0)
			_exit(read(fd, buf, sizeof(buf)) == 18 ? 0 : 1);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) || close(fd))
			die("waitpid");
	} else if (rank == 0 && strcmp(argv[1], "spawn") == 0) {
		char *args[] = { argv[0], "read", NULL };
		if ((fd = open(path, O_RDONLY)) < 0 || dup2(fd, 0) < 0 || close(fd) < 0)
			die(path);
		if (posix_spawn(&pid, argv[0], NULL, NULL, args, environ) != 0)
			die("posix_spawn");
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			die("waitpid");
	} else if (rank == 0) {
		snprintf(cmd, sizeof(cmd), "cat < '%s' > '%s/copy'", path, argv[2]);
		if (system(cmd) != 0)
			die("system");
	}
	MPI_Finalize();
	return 0;
}
