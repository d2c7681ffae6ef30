/*
 * posix_basic - a fixed sequence of POSIX calls whose records tests/shim.bats
 * asserts one by one.  Run it in an empty directory; it works on relative
 * paths (some with "." and "..", one relative to a directory descriptor)
 * so that the trace shows them made absolute.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "posix_basic: %s: %s\n", what, strerror(errno));
		_exit(1);
	}
}

int main(void)
{
	struct iovec iov[2] = { { "abc", 3 }, { "defgh", 5 } };
	struct stat st;
	char buf[8];
	int fd, dfd, fd2;

	fd = open("data", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	check(fd >= 0, "open data");
	check(write(fd, "0123456789", 10) == 10, "write");
	check(pwrite(fd, "xyz", 3, 100) == 3, "pwrite");
	check(lseek(fd, 20, SEEK_SET) == 20, "lseek");
	check(writev(fd, iov, 2) == 8, "writev");
	check(fsync(fd) == 0, "fsync");
	check(close(fd) == 0, "close");
	check(stat("data", &st) == 0, "stat");
	check(open("missing", O_RDONLY) == -1 && errno == ENOENT, "open missing");
	check(mkdir("sub", 0755) == 0, "mkdir");
	dfd = open("sub", O_RDONLY | O_DIRECTORY);
	check(dfd >= 0, "open sub");
	fd = openat(dfd, "inner", O_CREAT | O_RDWR, 0600);
	check(fd >= 0, "openat");
	check(close(fd) == 0, "close inner");
	fd = openat(dfd, "../data", O_RDONLY);
	check(fd >= 0, "openat ..");
	check(pread(fd, buf, sizeof(buf), 100) == 3, "pread");
	check(close(fd) == 0, "close data");
	check(access("./sub//../data", R_OK) == 0, "access");
	fd = creat("made", 0640);
	check(fd >= 0, "creat");
	fd2 = dup2(fd, 20);
	check(fd2 == 20, "dup2");
	check(close(fd2) == 0, "close dup");
	check(close(fd) == 0, "close made");
	check(unlink("sub/inner") == 0, "unlink");
	check(close(dfd) == 0, "close sub");
	check(rmdir("sub") == 0, "rmdir");
	check(rename("made", "renamed") == 0, "rename");
	return 0;
}
