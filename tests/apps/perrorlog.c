/*
 * perrorlog FILE - put stderr on FILE (dup2), report a failed open with
 * perror, then write a line of its own to descriptor 2: the file holds
 * "no/such/file: No such file or directory\n" and "done\n" after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc != 2 || (fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 ||
	    dup2(fd, 2) != 2)
		return 2;
	close(fd);
	if (open("no/such/file", O_RDONLY) < 0)
		perror("no/such/file");
	return write(2, "done\n", 5) != 5;
}
