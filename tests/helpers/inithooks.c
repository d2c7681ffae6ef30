/*
 * inithooks - a test-only preload that behaves as libfaketime and jemalloc
 * do at start (tests/shim.bats): its clock_gettime sets itself up on the
 * first call with calls the tracer wraps (ftruncate, as libfaketime makes
 * its shared memory), and its malloc, on the first call, holds its own
 * lock while it looks at the program with readlink (as jemalloc reads its
 * configuration).  A tracer that starts inside either call, and calls
 * malloc or itself again while starting, waits for itself for ever.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);

static int clock_ready, malloc_ready;
static pthread_mutex_t malloc_mu = PTHREAD_MUTEX_INITIALIZER;

int clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);

	if (!clock_ready) {
		clock_ready = 1;
		(void)!ftruncate(-1, 0);	/* (EBADF: the call is what counts) */
	}
	if (!real)
		real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	return real(id, ts);
}

void *malloc(size_t n)
{
	if (!malloc_ready) {
		char buf[256];
		pthread_mutex_lock(&malloc_mu);	/* not recursive: as jemalloc's */
		if (!malloc_ready) {
			(void)!readlink("/proc/self/exe", buf, sizeof(buf));
			malloc_ready = 1;
		}
		pthread_mutex_unlock(&malloc_mu);
	}
	return __libc_malloc(n);
}
