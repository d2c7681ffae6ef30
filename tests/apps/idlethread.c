/*
 * idlethread - a worker thread writes, then waits for work that never
 * comes, as a pool's threads do, while main returns: the process exits
 * with the worker alive and idle (not inside any traced call).  With
 * "blocked", the worker waits in a read(2) of a pipe nobody writes, as a
 * library's progress thread does: it is inside a traced call at the exit.
 *
 *   idlethread FILE [blocked]
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done, blocked, pipefd[2];
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
	if (blocked) {
		char c;
		pthread_mutex_unlock(&mu);
		if (read(pipefd[0], &c, 1) < 0)	/* never returns */
			perror("read");
		return NULL;
	}
	while (done)	/* work that never comes */
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: idlethread FILE [blocked]\n");
		return 2;
	}
	path = argv[1];
	blocked = argc == 3;
	if (blocked && pipe(pipefd) < 0) {
		perror("pipe");
		return 1;
	}
	pthread_create(&t, NULL, worker, NULL);
	pthread_mutex_lock(&mu);
	while (!done)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	printf("written\n");
	return 0;
}
