/*
 * offsets - file positions overlap-find must follow: a dup'd descriptor
 * sharing the offset, O_APPEND writes going to the end, lseek from the end,
 * ftruncate, a fork'd child writing through an inherited descriptor, and a
 * stream opened for appending.  Writes the files "o" and "s".
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	char b[64] = "0123456789012345678901234567890123456789";
	int fd, fd2, ap, st;
	pid_t pid;
	FILE *f;

	fd = open("o", O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (write(fd, b, 10) != 10)		/* [0,10) */
		return 1;
	fd2 = dup(fd);
	if (write(fd2, b, 5) != 5)		/* [10,15): the shared offset */
		return 1;
	ap = open("o", O_WRONLY | O_APPEND);
	if (write(ap, b, 4) != 4)		/* [15,19): the end */
		return 1;
	lseek(fd, -2, SEEK_END);
	if (read(fd, b, 8) != 2)		/* [17,19) */
		return 1;
	if (ftruncate(fd, 12) != 0)
		return 1;
	if (write(ap, b, 3) != 3)		/* [12,15): the new end */
		return 1;
	pid = fork();
	if (pid == 0) {
		lseek(fd, 30, SEEK_SET);
		if (write(fd, b, 6) != 6)	/* [30,36) in the child */
			_exit(1);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	if (write(fd2, b, 2) != 2)		/* [36,38): the child moved it */
		return 1;
	close(fd);
	close(fd2);
	close(ap);
	f = fopen("s", "w");
	fwrite(b, 1, 7, f);			/* [0,7) */
	fclose(f);
	f = fopen("s", "a");
	fwrite(b, 1, 3, f);			/* [7,10) */
	fclose(f);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
