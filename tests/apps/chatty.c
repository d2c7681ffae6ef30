/*
 * chatty - N (first argument, default 3000) rounds of a line to standard
 * output and 16 bytes to "data" at offset 16 * i, half of them from a
 * second thread; exits with status 3.  What tests/shim-fault.bats compares
 * between a run with a fault under the tracer and one without.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int fd;
static long n;

static void *rounds(void *arg)
{
	long i;

	for (i = (long)arg; i < n; i += 2)
		if (pwrite(fd, "0123456789abcdef", 16, (off_t)(16 * i)) != 16)
			exit(1);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	char line[64];
	long i;

	n = argc > 1 ? atol(argv[1]) : 3000;
	fd = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	if (pthread_create(&th, NULL, rounds, (void *)1L) != 0)
		return 1;
	rounds((void *)0L);
	pthread_join(th, NULL);
	for (i = 0; i < n; i++) {
		int len = snprintf(line, sizeof(line), "round %ld\n", i);

		if (write(1, line, (size_t)len) != len)
			return 1;
	}
	close(fd);
	return 3;
}
