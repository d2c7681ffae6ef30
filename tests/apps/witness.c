/*
 * witness - what a traced program can observe: it prints the result and
 * errno of a few calls on standard output, writes "data", and exits 3.
 * Its output must be the same with and without the tracer, whatever
 * happens to the trace.  With an argument N, it first waits until the
 * file N exists (so that a test can let a sink go away first).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *ename(int e)
{
	const char *s = strerrorname_np(e);

	return s ? s : "0";
}

int main(int argc, char **argv)
{
	char buf[4];
	ssize_t n;
	int fd, i;

	if (argc > 1)
		while (access(argv[1], F_OK) != 0)
			usleep(1000);
	for (i = 0; i < 3; i++) {
		errno = 0;
		fd = open("no/such/file", O_RDONLY);
		printf("open missing: %d %s\n", fd, ename(errno));
		fd = open("data", O_CREAT | O_WRONLY | O_APPEND, 0644);
		errno = EDOM;	/* a successful call leaves errno alone */
		n = write(fd, "hello\n", 6);
		printf("write: %zd %s\n", n, ename(errno));
		errno = 0;
		printf("close: %d %s\n", close(fd), ename(errno));
		errno = 0;
		n = read(-1, buf, sizeof(buf));
		printf("read bad fd: %zd %s\n", n, ename(errno));
		fflush(stdout);
	}
	return 3;
}
