/*
 * shim-bench - cost of the tracer per call: N lseek and N one-byte pwrite
 * calls on a file in /dev/shm, timed inside the program so that start-up
 * does not count.  Run once untraced and once under the shim (tests/bench/run)
 * and compare.  Prints "lseek NS" and "pwrite NS", nanoseconds per call.
 */
#define _GNU_SOURCE
#include <fcntl.h>
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
	double t0, t1, t2;
	char c = 'x';
	int fd;

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
	close(fd);
	unlink(path);
	printf("lseek %.1f\npwrite %.1f\n", (t1 - t0) / (double)n, (t2 - t1) / (double)n);
	return 0;
}
