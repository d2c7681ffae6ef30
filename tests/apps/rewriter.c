/*
 * rewriter - a status block rewritten over and over, as a long run does
 * at every step: N (first argument) pwrites of 64 bytes at offset 0 of
 * status.dat, every third followed by a pread of it back.  The second
 * argument picks what else happens:
 *   plain    nothing else;
 *   twofd    between the writes, a second descriptor of the file writes
 *            the block's first half, then fsyncs, and the first reads the
 *            whole block back through it after (a half cover: the read's
 *            pair with the write before it is needed for its other half);
 *   threads  the writes are made by two threads, in turn.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fd, n;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;

static void step(int i)
{
	char b[64];

	memset(b, 'a' + i % 26, sizeof(b));
	if (pwrite(fd, b, sizeof(b), 0) != (ssize_t)sizeof(b))
		exit(1);
	if (i % 3 == 0 && pread(fd, b, sizeof(b), 0) != (ssize_t)sizeof(b))
		exit(1);
}

static void *worker(void *arg)
{
	int me = (int)(long)arg, i;

	for (i = me; i < n; i += 2) {
		pthread_mutex_lock(&mu);
		while (turn != i)
			pthread_cond_wait(&cv, &mu);
		step(i);
		turn++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "plain";
	int i;

	n = argc > 1 ? atoi(argv[1]) : 100;
	fd = open("status.dat", O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	if (strcmp(mode, "threads") == 0) {
		pthread_t t[2];
		for (i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, worker, (void *)(long)i);
		for (i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
	} else if (strcmp(mode, "twofd") == 0) {
		int fd2 = open("status.dat", O_RDWR);
		char b[64];
		for (i = 0; i < n; i++) {
			step(i);
			if (i == n / 2) {
				if (pwrite(fd2, "HALFHALF", 8, 0) != 8 || fsync(fd2) != 0)
					return 1;
				if (pread(fd, b, sizeof(b), 0) != (ssize_t)sizeof(b))
					return 1;
			}
		}
		close(fd2);
	} else {
		for (i = 0; i < n; i++)
			step(i);
	}
	return close(fd) != 0;
}
