/*
 * segv - write three records to "out", then die: by a NULL dereference
 * (no argument or "segv"), by abort() ("abort"), or by waiting for a
 * signal from outside ("wait": it creates "ready" once the writes are
 * done, then sleeps).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "segv";
	volatile int *volatile nowhere = NULL;
	int fd, i;

	fd = open("out", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	for (i = 0; i < 3; i++)
		if (write(fd, "abcd", 4) != 4)
			return 1;
	if (strcmp(how, "abort") == 0)
		abort();
	if (strcmp(how, "wait") == 0) {
		close(open("ready", O_CREAT | O_WRONLY, 0644));
		for (;;)
			pause();
	}
	return *nowhere;
}
