/*
 * seekend - two processes take turns adding a 10-byte record to the end
 * of one file through stdio (fopen "r+", fseek to the end, fwrite,
 * fclose), passing a token through pipes, three turns each; then the
 * child goes back over the first record with fgetpos and fsetpos.  Where
 * each fwrite lands depends on what the other process wrote before it.
 *
 * usage: seekend FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void add(const char *path, char who, int turn)
{
	char rec[11];
	FILE *f = fopen(path, "r+");

	if (!f)
		die("fopen");
	if (fseek(f, 0, SEEK_END) != 0)
		die("fseek");
	snprintf(rec, sizeof(rec), "%c turn %02d\n", who, turn);
	if (fwrite(rec, 1, 10, f) != 10)
		die("fwrite");
	if (fclose(f) != 0)
		die("fclose");
}

static void token(int fd, int give)
{
	char c = 't';

	if ((give ? write(fd, &c, 1) : read(fd, &c, 1)) != 1)
		die("token");
}

int main(int argc, char **argv)
{
	int to_child[2], to_parent[2], status;
	pid_t pid;
	FILE *f;

	if (argc != 2) {
		fputs("usage: seekend FILE\n", stderr);
		return 2;
	}
	f = fopen(argv[1], "w");
	if (!f || fclose(f) != 0)
		die(argv[1]);
	if (pipe(to_child) < 0 || pipe(to_parent) < 0)
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	for (int turn = 0; turn < 3; turn++) {
		if (pid == 0) {
			token(to_child[0], 0);
			add(argv[1], 'c', turn);
			token(to_parent[1], 1);
		} else {
			add(argv[1], 'p', turn);
			token(to_child[1], 1);
			token(to_parent[0], 0);
		}
	}
	if (pid == 0) {
		fpos_t first;
		f = fopen(argv[1], "r+");
		if (!f || fgetpos(f, &first) != 0 || fseek(f, 0, SEEK_END) != 0 ||
		    fsetpos(f, &first) != 0 || fwrite("HEAD", 1, 4, f) != 4 || fclose(f) != 0)
			die("fsetpos");
		return 0;
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	return 0;
}
