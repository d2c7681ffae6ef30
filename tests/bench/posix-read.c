/*
 * posix-read - an ordinary program that reads a file from start to end
 * with read(2), for make bench to run straight on the burst-buffer
 * directory and, unmodified, on TangramFS through libtfs-posix.so.
 *
 * usage: posix-read FILE BYTES-PER-READ PASSES
 * Each pass opens FILE, reads it whole in BYTES-PER-READ reads and closes
 * it; the open and close are outside the clock.  Prints the median over
 * the passes of the microseconds per read, and the reads per pass.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double *us, t0;
	long s, p, n = 0;
	char *buf;
	ssize_t r;
	int fd;

	if (argc != 4 || (s = strtol(argv[2], NULL, 10)) < 1 ||
	    (p = strtol(argv[3], NULL, 10)) < 1) {
		fputs("usage: posix-read FILE BYTES-PER-READ PASSES\n", stderr);
		return 2;
	}
	if (!(buf = malloc((size_t)s)) || !(us = calloc((size_t)p, sizeof(*us)))) {
		perror("posix-read");
		return 2;
	}
	for (long i = 0; i < p; i++) {
		if ((fd = open(argv[1], O_RDONLY)) < 0) {
			perror(argv[1]);
			return 2;
		}
		n = 0;
		t0 = now_us();
		while ((r = read(fd, buf, (size_t)s)) > 0)
			n++;
		us[i] = now_us() - t0;
		if (r < 0 || n == 0) {
			perror(argv[1]);
			return 2;
		}
		us[i] /= (double)n;
		close(fd);
	}
	qsort(us, (size_t)p, sizeof(*us), by_value);
	printf("%.3f %ld\n", p % 2 ? us[p / 2] : (us[p / 2 - 1] + us[p / 2]) / 2, n);
	return 0;
}
