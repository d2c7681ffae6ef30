/*
 * errlog FILE - put stderr on FILE (dup2), then report as BSD programs
 * do: warn after a failed open, warnx, a line of its own to descriptor 2,
 * and errx, which exits 0 here:
 *
 *   errlog: open no/such/file: No such file or directory
 *   errlog: 3 steps left
 *   done
 *   errlog: bye
 */
#include <err.h>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc != 2 || (fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 ||
	    dup2(fd, 2) != 2)
		return 2;
	close(fd);
	if (open("no/such/file", O_RDONLY) < 0)
		warn("open %s", "no/such/file");
	warnx("%d steps left", 3);
	if (write(2, "done\n", 5) != 5)
		return 1;
	errx(0, "bye");
}
