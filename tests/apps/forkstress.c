/*
 * forkstress MODE DIR - what a program may do that the tracer's own locks
 * and writes must not get in the way of.  Prints one line; exit 0.
 *
 *   errno    the value of errno when main() starts (0, C11 7.5)
 *   threads  a thread opens and closes a stream in a loop while the main
 *            thread forks 1000 children, each opening a stream in DIR
 *   handler  a SIGALRM handler forks (every 20th signal, 50 us apart) while
 *            the main loop opens, writes and closes files in DIR
 *   fsize    the program limits its own file size (RLIMIT_FSIZE, 1 MiB)
 *            and makes 200,000 writes of 2 bytes in place
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *dir;
static volatile sig_atomic_t stop, ticks, forks;

static void path(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/%s", dir, name);
}

static void *opener(void *arg)
{
	char p[4096];

	(void)arg;
	path(p, sizeof(p), "loop.txt");
	while (!stop) {
		FILE *f = fopen(p, "w");
		if (f)
			fclose(f);
	}
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	/* a signal between the main loop's last test and the timer's end
	 * would fork a 51st time */
	if (forks >= 50)
		return;
	if (++ticks % 20 == 0) {
		pid_t c = fork();
		if (c == 0)
			_exit(0);
		if (c > 0) {
			waitpid(c, NULL, 0);
			forks++;
		}
	}
}

int main(int argc, char **argv)
{
	int e = errno, i;
	char p[4096];

	if (argc != 3)
		return 2;
	dir = argv[2];
	if (strcmp(argv[1], "errno") == 0) {
		printf("errno %d\n", e);
	} else if (strcmp(argv[1], "threads") == 0) {
		pthread_t t;
		pthread_create(&t, NULL, opener, NULL);
		path(p, sizeof(p), "child.txt");
		for (i = 0; i < 1000; i++) {
			pid_t c = fork();
			if (c == 0) {
				FILE *f = fopen(p, "a");
				if (f)
					fclose(f);
				_exit(0);
			}
			waitpid(c, NULL, 0);
		}
		stop = 1;
		pthread_join(t, NULL);
		printf("forked %d\n", i);
	} else if (strcmp(argv[1], "handler") == 0) {
		struct sigaction sa;
		struct itimerval it = { { 0, 50 }, { 0, 50 } };
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		path(p, sizeof(p), "main.txt");
		while (forks < 50) {
			int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd >= 0) {
				ssize_t w = write(fd, "x", 1);
				(void)w;
				close(fd);
			}
		}
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
		printf("forked in a handler %d\n", (int)forks);
	} else if (strcmp(argv[1], "fsize") == 0) {
		struct rlimit rl = { 1 << 20, 1 << 20 };
		int fd, bad = 0;
		setrlimit(RLIMIT_FSIZE, &rl);
		path(p, sizeof(p), "small.dat");
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		for (i = 0; i < 200000; i++)
			bad += pwrite(fd, "ab", 2, (i % 100) * 2) != 2;
		close(fd);
		printf("writes failed %d\n", bad);
	} else {
		return 2;
	}
	return 0;
}
