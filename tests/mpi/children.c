/*
 * children - a rank that runs other programs to do its I/O: the file they
 * write is read by the other ranks.
 *
 *   children HOW SYNC DIR
 *
 * HOW: how rank 0 has DIR/out written (by /bin/sh and the programs it
 * runs, none of which has an MPI rank) and waits for it:
 *   system  system("mkdir -p DIR/sub && echo ... > DIR/sub/out")
 *   popen   popen("cat > DIR/out", "w"), fputs to the pipe, pclose
 *   fork    fork, the child writes DIR/out itself and _exits; waitpid
 *   spawn   posix_spawn of /bin/sh -c "echo ... > DIR/out"; waitpid
 *   nowait  fork as above, but rank 0 waits by sleeping 0.3 s, not for
 *           the child (nothing orders the child before the barrier)
 *   stdout  rank 0 puts its standard output on DIR/out (dup2, as a job
 *           script's per-rank log) and runs system("echo ..."): the shell
 *           writes through the descriptor it inherited
 *   pstdout the same with popen("cat", "w") (cat's output is rank 0's)
 *   sstdout the same with posix_spawn of /bin/sh -c "echo ..."
 * SYNC:
 *   barrier  rank 0 waits for its child, then a barrier; the other ranks
 *            read DIR/out (system: DIR/sub/out) after the barrier
 *            (session)
 *   nosync   no barrier: the other ranks sleep 0.5 s and read it (a race,
 *            which only the clocks hide)
 *   early    a barrier first, then rank 0 runs the child while the others
 *            sleep 0.5 s and read (a race)
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

/* Rank 0's standard output on DIR/out, then its child writes it. */
static void to_stdout(const char *how, const char *path)
{
	char *argv[] = { "sh", "-c", "echo written by sh", NULL };
	pid_t pid;
	FILE *p;
	int fd, st;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 || fflush(stdout) != 0 ||
	    dup2(fd, 1) < 0 || close(fd) < 0)
		die(path);
	if (strcmp(how, "stdout") == 0) {
		if (system(argv[2]) != 0)
			die("system");
	} else if (strcmp(how, "pstdout") == 0) {
		if (!(p = popen("cat", "w")))
			die("popen");
		fputs("written by cat\n", p);
		if (pclose(p) != 0)
			die("pclose");
	} else {
		if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0)
			die("posix_spawn");
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			die("waitpid");
	}
}

static void run_child(const char *how, const char *dir)
{
	char cmd[4096], path[4096];
	pid_t pid;
	int st;

	snprintf(path, sizeof(path), "%s/out", dir);
	if (strcmp(how, "stdout") == 0 || strcmp(how, "pstdout") == 0 ||
	    strcmp(how, "sstdout") == 0) {
		to_stdout(how, path);
	} else if (strcmp(how, "system") == 0) {
		snprintf(cmd, sizeof(cmd), "mkdir -p '%s/sub' && echo written by sh > '%s/sub/out'",
			 dir, dir);
		if (system(cmd) != 0)
			die("system");
	} else if (strcmp(how, "popen") == 0) {
		FILE *p;
		snprintf(cmd, sizeof(cmd), "cat > '%s'", path);
		if (!(p = popen(cmd, "w")))
			die("popen");
		fputs("written by cat\n", p);
		if (pclose(p) != 0)
			die("pclose");
	} else if (strcmp(how, "fork") == 0 || strcmp(how, "nowait") == 0) {
		if ((pid = fork()) < 0)
			die("fork");
		if (pid == 0) {
			FILE *f = fopen(path, "w");
			if (!f || fputs("written by the child\n", f) < 0 || fclose(f) != 0)
				_exit(1);
			_exit(0);
		}
		if (strcmp(how, "nowait") == 0)
			usleep(300000);
		else if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			die("waitpid");
	} else if (strcmp(how, "spawn") == 0) {
		char *argv[] = { "sh", "-c", cmd, NULL };
		snprintf(cmd, sizeof(cmd), "echo written by sh > '%s'", path);
		if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0)
			die("posix_spawn");
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			die("waitpid");
	} else {
		fprintf(stderr, "children: unknown HOW '%s'\n", how);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
}

int main(int argc, char **argv)
{
	char path[4096], line[256];
	int rank;
	FILE *f;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 4) {
		if (rank == 0)
			fprintf(stderr, "usage: children HOW SYNC DIR\n");
		MPI_Finalize();
		return 2;
	}
	if (strcmp(argv[2], "early") == 0)
		MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		run_child(argv[1], argv[3]);
	if (strcmp(argv[2], "barrier") == 0)
		MPI_Barrier(MPI_COMM_WORLD);
	else if (rank)
		usleep(500000);
	if (rank) {
		snprintf(path, sizeof(path), "%s/%s", argv[3],
			 strcmp(argv[1], "system") ? "out" : "sub/out");
		if (!(f = fopen(path, "r")) || !fgets(line, sizeof(line), f))
			die(path);
		fclose(f);
		printf("rank %d read: %s", rank, line);
	}
	MPI_Finalize();
	return 0;
}
