/*
 * polls - N aio_error polls of one finished aio_write (of a byte to
 * polls.out in the working directory), which the tracer
 * folds into the record of the first and a REPEAT, and then an end that
 * leaves the REPEAT pending where the tracer must still write it:
 *   polls exit N     return from main (the exit path)
 *   polls fork N     fork: the parent's REPEAT before the fork record,
 *                    none in the child's stream; the child polls N too
 *   polls thread N   a second thread polls, then ends (thread exit)
 *   polls idle N     a second thread polls, then waits for ever: the
 *                    process exits with it idle (its stream is sealed)
 *   polls term N     raise SIGTERM (a fatal signal)
 *   polls kill S     poll for S seconds, then SIGKILL: the count so far
 *                    reaches the file within a second of the calls
 * It prints "polls=K" with a raw write(2), which the tracer does not see:
 * K calls of aio_error, the first finding the write done.
 */
#define _GNU_SOURCE
#include <aio.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct aiocb cb;
static char byte = 'x';

static void say(const char *what, long n)
{
	char msg[64];
	int len = snprintf(msg, sizeof(msg), "%s=%ld\n", what, n);

	syscall(SYS_write, 1, msg, (size_t)len);
}

static long poll_n(long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (aio_error(&cb) != 0)
			abort();
	return n;
}

static long poll_for(double sec)
{
	struct timespec a, b;
	long n = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		n += poll_n(1000);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < sec);
	return n;
}

static _Atomic int polled;

static void *thread_main(void *arg)
{
	say("polls", poll_n(*(long *)arg));
	return NULL;
}

/* Poll, then wait for ever without a traced call. */
static void *idle_main(void *arg)
{
	say("polls", poll_n(*(long *)arg));
	polled = 1;
	for (;;)
		syscall(SYS_pause);
	return NULL;
}

int main(int argc, char **argv)
{
	const struct aiocb *list[1] = { &cb };
	long n;

	if (argc != 3)
		return 2;
	n = atol(argv[2]);
	cb.aio_fildes = open("polls.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (cb.aio_fildes < 0)
		return 1;
	cb.aio_buf = &byte;
	cb.aio_nbytes = 1;
	if (aio_write(&cb) != 0 || aio_suspend(list, 1, NULL) != 0)
		return 1;
	if (strcmp(argv[1], "exit") == 0) {
		say("polls", poll_n(n));
	} else if (strcmp(argv[1], "fork") == 0) {
		say("polls", poll_n(n));
		pid_t pid = fork();
		if (pid == 0) {
			say("child", poll_n(n));
			return 0;
		}
		waitpid(pid, NULL, 0);
	} else if (strcmp(argv[1], "thread") == 0) {
		pthread_t th;
		if (pthread_create(&th, NULL, thread_main, &n) != 0)
			return 1;
		pthread_join(th, NULL);
	} else if (strcmp(argv[1], "idle") == 0) {
		pthread_t th;
		if (pthread_create(&th, NULL, idle_main, &n) != 0)
			return 1;
		while (!polled)
			sched_yield();
	} else if (strcmp(argv[1], "term") == 0) {
		say("polls", poll_n(n));
		raise(SIGTERM);
	} else if (strcmp(argv[1], "kill") == 0) {
		say("polls", poll_for((double)n));
		raise(SIGKILL);
	} else {
		return 2;
	}
	return 0;
}
