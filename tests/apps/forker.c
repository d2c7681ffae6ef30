/*
 * forker - write "parent.txt", fork, let the child write "child.txt" and
 * end, and print "PARENT-PID CHILD-PID" on standard output.  The argument
 * says how:
 *   exit    the child ends with exit(), the parent waits for it (default);
 *   _exit   the child ends with _exit(), the parent waits for it;
 *   orphan  the parent does not wait but exits at once; the child does its
 *           I/O only once its parent is gone, then exits.  It keeps
 *           standard output open, so a reader of that sees the end of file
 *           only when the child is done.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int put(const char *path, const char *text)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return -1;
	return close(fd);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "exit";
	int orphan = strcmp(how, "orphan") == 0;
	pid_t pid, me = getpid();
	int st, gone[2];
	char c;

	if (put("parent.txt", "parent\n") < 0 || pipe(gone) < 0)
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int rc;
		close(gone[1]);
		if (orphan) {	/* end of file: the parent is exiting */
			while (read(gone[0], &c, 1) > 0)
				;
			while (getppid() == me)	/* and now it is gone */
				usleep(1000);
		}
		rc = put("child.txt", "child\n") < 0;
		if (strcmp(how, "_exit") == 0)
			_exit(rc);
		exit(rc);
	}
	printf("%d %d\n", (int)me, (int)pid);
	if (orphan)
		return 0;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	return 0;
}
