/*
 * execer - write "first.txt", then replace itself with
 * `cat first.txt` by execv; if the exec fails, exit 127.
 */
#include <fcntl.h>
#include <unistd.h>

int main(void)
{
	char *argv[] = { "cat", "first.txt", NULL };
	int fd;

	fd = open("first.txt", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "first\n", 6) != 6 || close(fd) != 0)
		return 1;
	execv("/bin/cat", argv);
	return 127;
}
