/*
 * threads - NTHREADS threads (second argument, default 8, at most 64), each
 * writing N (first argument, default 100) one-byte records to its own file
 * t<i>.out; the main thread writes main.out first, then waits for them.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAXTHREADS 64

static int nrec = 100;

static void *worker(void *arg)
{
	char path[32];
	int i, fd;

	snprintf(path, sizeof(path), "t%d.out", (int)(long)arg);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0)
		return (void *)1;
	for (i = 0; i < nrec; i++)
		if (write(fd, "x", 1) != 1)
			return (void *)1;
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAXTHREADS];
	int i, bad = 0, nthreads = 8;
	void *res;

	if (argc > 1)
		nrec = atoi(argv[1]);
	if (argc > 2)
		nthreads = atoi(argv[2]);
	if (nthreads < 1 || nthreads > MAXTHREADS)
		return 2;
	i = open("main.out", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (i < 0 || write(i, "m", 1) != 1 || close(i) != 0)
		return 1;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(long)i) != 0)
			return 1;
	for (i = 0; i < nthreads; i++) {
		pthread_join(th[i], &res);
		bad |= res != NULL;
	}
	return bad;
}
