/*
 * errorlog FILE - put stdout and stderr on FILE (dup2), then report as
 * GNU programs do: a line on stdout left in its buffer, error after a
 * failed open (which flushes stdout first), error_at_line twice for one
 * place with error_one_per_line set (the second prints nothing), and
 * error with a status, which exits with it (3):
 *
 *   out
 *   errorlog: open no/such/file: No such file or directory
 *   errorlog:deck:12: bad card 3
 *   errorlog: bye
 */
#include <errno.h>
#include <error.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc != 2 || (fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 ||
	    dup2(fd, 1) != 1 || dup2(fd, 2) != 2)
		return 2;
	close(fd);
	printf("out\n");
	if (open("no/such/file", O_RDONLY) < 0)
		error(0, errno, "open %s", "no/such/file");
	error_one_per_line = 1;
	error_at_line(0, 0, "deck", 12, "bad card %d", 3);
	error_at_line(0, 0, "deck", 12, "bad card %d", 3);
	error(3, 0, "bye");
	return 0;
}
