/*
 * ns.c - namespace calls on the mount for tests/tfs-namespace.bats, each
 * as one call with its errno printed, where the coreutils would hide
 * which call they made:
 *	ns mknod PATH			mknod(S_IFREG | 0644)
 *	ns rename OLD NEW [noreplace|exchange]	renameat2()
 *	ns chmod-fd PATH MODE		open, fchmod, close
 *	ns utime-fd PATH SECONDS	open, futimens, close
 *	ns publish TMP FINAL TEXT	write TMP, fsync, close, rename to FINAL
 * Prints "ok" or the errno's name-free text, and exits 0 or 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int done(int rc)
{
	if (rc < 0) {
		printf("%s\n", strerror(errno));
		return 1;
	}
	printf("ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "mknod") == 0)
		return done(mknod(argv[2], S_IFREG | 0644, 0));
	if (argc >= 4 && strcmp(argv[1], "rename") == 0) {
		unsigned flags = 0;

		if (argc > 4 && strcmp(argv[4], "noreplace") == 0)
			flags = RENAME_NOREPLACE;
		else if (argc > 4 && strcmp(argv[4], "exchange") == 0)
			flags = RENAME_EXCHANGE;
		return done(renameat2(AT_FDCWD, argv[2], AT_FDCWD, argv[3], flags));
	}
	if (argc >= 4 && strcmp(argv[1], "chmod-fd") == 0) {
		int fd = open(argv[2], O_RDONLY), rc;

		if (fd < 0)
			return done(-1);
		rc = fchmod(fd, (mode_t)strtol(argv[3], NULL, 8));
		close(fd);
		return done(rc);
	}
	if (argc >= 4 && strcmp(argv[1], "utime-fd") == 0) {
		struct timespec ts[2];
		int fd = open(argv[2], O_RDONLY), rc;

		if (fd < 0)
			return done(-1);
		ts[0].tv_sec = ts[1].tv_sec = strtol(argv[3], NULL, 10);
		ts[0].tv_nsec = ts[1].tv_nsec = 0;
		rc = futimens(fd, ts);
		close(fd);
		return done(rc);
	}
	if (argc >= 5 && strcmp(argv[1], "publish") == 0) {
		size_t n = strlen(argv[4]);
		int fd = open(argv[2], O_CREAT | O_WRONLY | O_TRUNC, 0644);

		if (fd < 0 || write(fd, argv[4], n) != (ssize_t)n || fsync(fd) < 0 || close(fd) < 0)
			return done(-1);
		return done(rename(argv[2], argv[3]));
	}
	fprintf(stderr, "usage: ns mknod|rename|chmod-fd|utime-fd|publish ...\n");
	return 2;
}
