/*
 * lfs - the large-file names a program built with -D_FILE_OFFSET_BITS=64
 * calls (Python is one): mkstemp64 makes lfs.XXXXXX and writes 10 bytes,
 * sendfile64 copies them to copy.dat, preadv64v2 reads 4 of them back,
 * pwritev64v2 writes 2 at 10, posix_fallocate64, fallocate64 and
 * posix_fadvise64 act on it.  Prints the temporary file's name.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

int main(void)
{
	char tmp[] = "lfs.XXXXXX", b[4];
	struct iovec rv = { b, sizeof(b) }, wv = { "zz", 2 };
	off_t off = 0;
	int fd = mkstemp(tmp), out;

	if (fd < 0 || write(fd, "0123456789", 10) != 10)
		return 1;
	out = open("copy.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (out < 0 || sendfile(out, fd, &off, 10) != 10)
		return 1;
	if (preadv2(fd, &rv, 1, 2, 0) != 4 || pwritev2(fd, &wv, 1, 10, 0) != 2)
		return 1;
	if (posix_fallocate(fd, 0, 100) != 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_NORMAL) != 0)
		return 1;
	fallocate(fd, 0, 0, 200);	/* (not every file system has it) */
	printf("%s\n", tmp);
	return close(fd) != 0 || close(out) != 0;
}
