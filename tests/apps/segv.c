/*
 * segv - write three records to "out", then die: by a NULL dereference
 * (no argument or "segv"), by abort() ("abort"), or by waiting for a
 * signal from outside ("wait": once the writes are done it creates
 * "ready.tmp", then renames it "ready" with a system call the tracer does
 * not see, so that "ready" appears only when every record is written;
 * then it sleeps).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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
		close(open("ready.tmp", O_CREAT | O_WRONLY, 0644));
		syscall(SYS_renameat, AT_FDCWD, "ready.tmp", AT_FDCWD, "ready");
		for (;;)
			pause();
	}
	return *nowhere;
}
