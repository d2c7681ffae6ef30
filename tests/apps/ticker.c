/*
 * ticker - write one byte to "out" every MS milliseconds (second argument,
 * default 10), N times (first argument, default forever): a program that
 * does little I/O for a long time, until it is killed.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : -1, ms = argc > 2 ? atol(argv[2]) : 10;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	int fd = open("out", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return 1;
	for (; n != 0; n > 0 ? n-- : 0) {
		if (write(fd, "x", 1) != 1)
			return 1;
		nanosleep(&ts, NULL);
	}
	return close(fd) < 0;
}
