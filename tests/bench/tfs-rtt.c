/*
 * tfs-rtt - one TangramFS request round trip, beside the floor of the
 * machine: a ping-pong of a request-sized message between two processes
 * over a loopback TCP connection and over a Unix-domain socket pair.
 *
 * usage: tfs-rtt [-n round-trips]
 * With TFS_SERVER set, times n tfs_seek(SEEK_END) calls (each one EOF
 * request and its reply, nothing else) on a file of its own; then the two
 * floors.  One line each: "NAME median_us p90_us min_us", NAME one of
 * tfs-request, floor-tcp, floor-unix.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../tfs/tfs.h"

enum { MSG = 64 };	/* a request header and a small body */

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *name, double *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	printf("%-16s %8.1f %8.1f %8.1f\n", name, v[n / 2], v[n * 9 / 10], v[0]);
}

static int full(int fd, char *b, int out)
{
	size_t done = 0;

	while (done < MSG) {
		ssize_t r = out ? write(fd, b + done, MSG - done) : read(fd, b + done, MSG - done);

		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

/* Ping-pong @n messages between this process and a child over the
 * connected pair @a (ours), @b (the child's). */
static void pingpong(const char *name, int a, int b, double *v, long n)
{
	char buf[MSG] = { 0 };
	pid_t pid = fork();

	if (pid == 0) {
		close(a);
		while (full(b, buf, 0) == 0 && full(b, buf, 1) == 0)
			;
		_exit(0);
	}
	close(b);
	for (long i = 0; i < n; i++) {
		double t0 = now_us();

		if (full(a, buf, 1) < 0 || full(a, buf, 0) < 0) {
			perror(name);
			exit(2);
		}
		v[i] = now_us() - t0;
	}
	close(a);
	waitpid(pid, NULL, 0);
	report(name, v, n);
}

static void tcp_pair(int *a, int *b)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&sa, &len) < 0 || (*a = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    connect(*a, (struct sockaddr *)&sa, sizeof(sa)) < 0 || (*b = accept(l, NULL, NULL)) < 0) {
		perror("tcp loopback");
		exit(2);
	}
	setsockopt(*a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(*b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(l);
}

int main(int argc, char **argv)
{
	long n = 20000;
	double *v;
	int c, sp[2];

	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n' || (n = strtol(optarg, NULL, 10)) < 1) {
			fputs("usage: tfs-rtt [-n round-trips]\n", stderr);
			return 2;
		}
	}
	if (!(v = malloc((size_t)n * sizeof(*v))))
		return 2;
	printf("%-16s %8s %8s %8s\n", "round-trip", "med_us", "p90_us", "min_us");
	if (getenv("TFS_SERVER")) {
		char name[64];
		tfs_file_t *f;

		snprintf(name, sizeof(name), "rtt-%ld", (long)getpid());
		if (!(f = tfs_open(name))) {
			perror("tfs-rtt: tfs_open");
			return 2;
		}
		for (long i = 0; i < n; i++) {
			double t0 = now_us();

			if (tfs_seek(f, 0, SEEK_END) < 0) {
				perror("tfs-rtt: tfs_seek");
				return 2;
			}
			v[i] = now_us() - t0;
		}
		tfs_close(f);
		tfs_unlink(name);
		tfs_finalize();
		report("tfs-request", v, n);
	}
	tcp_pair(&sp[0], &sp[1]);
	pingpong("floor-tcp", sp[0], sp[1], v, n);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) < 0) {
		perror("socketpair");
		return 2;
	}
	pingpong("floor-unix", sp[0], sp[1], v, n);
	free(v);
	return 0;
}
