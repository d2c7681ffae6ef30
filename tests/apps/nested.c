/*
 * nested - traced calls made inside a traced call.  A fopencookie() stream
 * whose write function logs to another stream with fprintf() (stdio inside
 * stdio) and then calls write() (posix inside stdio); fclose() of the
 * cookie stream flushes the five buffered bytes through it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static FILE *logf;

static ssize_t cookie_write(void *cookie, const char *buf, size_t n)
{
	fprintf(logf, "write %zu\n", n);
	return write(*(int *)cookie, buf, n);
}

int main(void)
{
	cookie_io_functions_t io = { .write = cookie_write };
	FILE *f;
	int fd;

	fd = open("sink", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	logf = fopen("log", "w");
	if (fd < 0 || !logf)
		return 1;
	f = fopencookie(&fd, "w", io);
	if (!f || fwrite("hello", 1, 5, f) != 5 || fclose(f) != 0)
		return 1;
	if (fclose(logf) != 0 || close(fd) != 0)
		return 1;
	return 0;
}
