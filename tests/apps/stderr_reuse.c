/*
 * stderr_reuse - close standard error, open "data" (which gets descriptor
 * 2) and write a line to it: a warning of the tracer written later to
 * descriptor 2 would end up in the program's own file.
 */
#include <fcntl.h>
#include <unistd.h>

int main(void)
{
	int fd;

	close(2);
	fd = open("data", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd != 2 || write(fd, "app data\n", 9) != 9)
		return 1;
	return 0;
}
