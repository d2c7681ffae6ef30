/*
 * appendv - every way a program writes through an O_APPEND descriptor,
 * as on a local disk (run with libtfs-posix.so preloaded, or on a local
 * disk to compare):
 *   appendv FILE
 * write "ab"; lseek to 0 and write "cd" (at the end all the same);
 * pwrite "ef" at 0 (Linux appends, the offset stays); writev "gh" "ij";
 * aio_write "kl" at 0 (appends, the offset stays).  Prints the offset
 * after each, then what FILE holds.
 */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static void step(int fd, const char *what, ssize_t r)
{
	printf("%s: %zd, offset %lld\n", what, r, (long long)lseek(fd, 0, SEEK_CUR));
}

int main(int argc, char **argv)
{
	struct iovec v[2] = { { "gh", 2 }, { "ij", 2 } };
	const struct aiocb *list[1];
	struct aiocb cb;
	char buf[64];
	ssize_t n;
	int fd;

	if (argc != 2) {
		fputs("usage: appendv file\n", stderr);
		return 2;
	}
	if ((fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644)) < 0) {
		perror(argv[1]);
		return 1;
	}
	step(fd, "write", write(fd, "ab", 2));
	lseek(fd, 0, SEEK_SET);
	step(fd, "write after lseek 0", write(fd, "cd", 2));
	step(fd, "pwrite at 0", pwrite(fd, "ef", 2, 0));
	step(fd, "writev", writev(fd, v, 2));
	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = fd;
	cb.aio_buf = "kl";
	cb.aio_nbytes = 2;
	cb.aio_offset = 0;
	cb.aio_sigevent.sigev_notify = SIGEV_NONE;
	if (aio_write(&cb) < 0) {
		perror("aio_write");
		return 1;
	}
	list[0] = &cb;
	while (aio_error(&cb) == EINPROGRESS)
		aio_suspend(list, 1, NULL);
	step(fd, "aio_write at 0", aio_return(&cb));
	if (close(fd) < 0 || (fd = open(argv[1], O_RDONLY)) < 0) {
		perror(argv[1]);
		return 1;
	}
	n = read(fd, buf, sizeof(buf));
	printf("holds %.*s\n", n > 0 ? (int)n : 0, buf);
	close(fd);
	return 0;
}
