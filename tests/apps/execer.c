/*
 * execer [fexecve|noenv] - write "first.txt", then replace itself with
 * `cat first.txt`: by execv; with fexecve, by fexecve(3) of a descriptor
 * of /bin/cat; with noenv, by execve with an empty environment (the new
 * program runs untraced).  If the exec fails, exit 127.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	char *cat[] = { "cat", "first.txt", NULL }, *none[] = { NULL };
	int fd;

	fd = open("first.txt", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "first\n", 6) != 6 || close(fd) != 0)
		return 1;
	if (argc > 1 && strcmp(argv[1], "fexecve") == 0) {
		fd = open("/bin/cat", O_RDONLY | O_CLOEXEC);
		fexecve(fd, cat, environ);
	} else if (argc > 1 && strcmp(argv[1], "noenv") == 0) {
		execve("/bin/cat", cat, none);
	} else {
		execv("/bin/cat", cat);
	}
	return 127;
}
