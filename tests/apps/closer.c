/*
 * closer - close every descriptor above 2 the way daemons and Python's
 * subprocess do, then write N bytes to "out" one write() at a time, then
 * try close() on every number up to the limit and print how many closed.
 * A tracer whose descriptor the first step closed loses every record; one
 * that the last step can close shows the program a descriptor it never
 * opened.
 *
 * usage: closer range|from|dup2 N
 *   range  close_range(3, ~0U, 0)
 *   from   closefrom(3)
 *   dup2   dup2(1, n) onto each of the top 64 numbers (where a tracer
 *          keeps its own), then close_range(3, ~0U, 0)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rlimit rl;
	long n, i, closed = 0, duped = 0;
	int fd;

	if (argc != 3)
		return 2;
	n = atol(argv[2]);
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur > 65536)
		rl.rlim_cur = 65536;
	if (strcmp(argv[1], "range") == 0) {
		if (close_range(3, ~0U, 0) < 0)
			return 3;
	} else if (strcmp(argv[1], "from") == 0) {
		closefrom(3);
	} else if (strcmp(argv[1], "dup2") == 0) {
		for (fd = (int)rl.rlim_cur - 64; fd < (int)rl.rlim_cur; fd++)
			duped += fd > 2 && dup2(1, fd) == fd;
		close_range(3, ~0U, 0);
	} else {
		return 2;
	}
	fd = open("out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd != 3)
		return 4;
	for (i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			return 5;
	for (fd = 3; fd < (int)rl.rlim_cur; fd++)
		closed += close(fd) == 0;
	printf("dup2 %ld closed %ld\n", duped, closed);
	return 0;
}
