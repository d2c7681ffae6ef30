/*
 * shim-bench - cost of the tracer per call: N lseek and N one-byte pwrite
 * calls on a file in /dev/shm, then N aio_error polls of one finished
 * aio_write (the calls the shim folds into one REPEAT record), timed inside
 * the program so that start-up does not count.  Run once untraced and once
 * under the shim (tests/bench/run) and compare.  Prints "lseek NS",
 * "pwrite NS" and "poll NS", nanoseconds per call.
 */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/dev/shm/tangram-bench";
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 1000000, i;
	const struct aiocb *list[1];
	struct aiocb cb;
	double t0, t1, t2, t3, t4;
	char c = 'x';
	int fd, e = 0;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror(path);
		return 2;
	}
	t0 = now();
	for (i = 0; i < n; i++)
		lseek(fd, i, SEEK_SET);
	t1 = now();
	for (i = 0; i < n; i++)
		if (pwrite(fd, &c, 1, i & 4095) != 1) {
			perror("pwrite");
			return 2;
		}
	t2 = now();
	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = fd;
	cb.aio_buf = &c;
	cb.aio_nbytes = 1;
	list[0] = &cb;
	if (aio_write(&cb) != 0) {
		perror("aio_write");
		return 2;
	}
	while (aio_error(&cb) == EINPROGRESS)
		aio_suspend(list, 1, NULL);
	t3 = now();
	for (i = 0; i < n; i++)
		e |= aio_error(&cb);
	t4 = now();
	if (e != 0 || aio_return(&cb) != 1) {
		fprintf(stderr, "aio_write: %s\n", strerror(e));
		return 2;
	}
	close(fd);
	unlink(path);
	printf("lseek %.1f\npwrite %.1f\npoll %.1f\n", (t1 - t0) / (double)n,
	       (t2 - t1) / (double)n, (t4 - t3) / (double)n);
	return 0;
}
