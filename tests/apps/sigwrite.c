/*
 * sigwrite - a program whose signal handler does I/O: a 20 us interval
 * timer's SIGALRM handler writes one byte to LOG while the main loop
 * writes OUT through stdio (fwrite, an fflush every 16); at the end it
 * prints how many times the handler ran.  The handler lands anywhere,
 * inside the tracer's own code too.
 *
 * usage: sigwrite OUT LOG
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int logfd;
static volatile long hits;

static void on_alarm(int sig)
{
	(void)sig;
	hits++;
	if (write(logfd, "x", 1) != 1)
		_exit(3);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 20 }, { 0, 20 } }, off = { { 0, 0 }, { 0, 0 } };
	char buf[64];
	FILE *f;
	long i;

	if (argc != 3) {
		fputs("usage: sigwrite OUT LOG\n", stderr);
		return 2;
	}
	if ((logfd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 ||
	    !(f = fopen(argv[1], "w"))) {
		perror("sigwrite");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	memset(buf, 'a', sizeof(buf));
	for (i = 0; i < 100000; i++) {
		fwrite(buf, 1, sizeof(buf), f);
		if (i % 16 == 0)
			fflush(f);
	}
	setitimer(ITIMER_REAL, &off, NULL);
	fclose(f);
	close(logfd);
	printf("hits %ld\n", hits);
	return 0;
}
