/*
 * idlethread - a worker thread writes, then waits for work that never
 * comes, as a pool's threads do, while main returns: the process exits
 * with the worker alive and idle (not inside any traced call).
 *
 *   idlethread FILE
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done;
static const char *path;

static void *worker(void *arg)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644), i;

	(void)arg;
	for (i = 0; i < 100; i++)
		if (write(fd, "abc", 3) != 3)
			break;
	close(fd);
	pthread_mutex_lock(&mu);
	done = 1;
	pthread_cond_broadcast(&cv);
	while (done)	/* work that never comes */
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 2) {
		fprintf(stderr, "usage: idlethread FILE\n");
		return 2;
	}
	path = argv[1];
	pthread_create(&t, NULL, worker, NULL);
	pthread_mutex_lock(&mu);
	while (!done)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	printf("written\n");
	return 0;
}
