/*
 * errno.c - calls that succeed on the mount leave errno alone, as the C
 * library's do (netCDF-3 zeroes errno, reads, and takes a short read with
 * errno set for an error), for tests/tfs-namespace.bats:
 *	errno DIR
 * makes DIR/e (a new file, with no backing file yet) and runs the calls
 * on it with errno set to a mark before each.  Prints one line per call
 * that changed errno or failed, then "done"; exits 0 when none did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MARK 12345		/* no errno's value */

static int bad;

static void check(const char *name, long r)
{
	if (r >= 0 && errno == MARK)
		return;
	printf("%s: returned %ld, errno %d (%s)\n", name, r, errno,
	       errno == MARK ? "unchanged" : strerror(errno));
	bad = 1;
}

#define T(name, call) do { long r_; errno = MARK; r_ = (long)(call); check(name, r_); } while (0)

int main(int argc, char **argv)
{
	char f[4096], g[4096], d[4096], buf[64];
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct stat st;
	FILE *s;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: errno DIR\n");
		return 2;
	}
	snprintf(f, sizeof(f), "%s/e", argv[1]);
	snprintf(g, sizeof(g), "%s/e.2", argv[1]);
	snprintf(d, sizeof(d), "%s/d", argv[1]);
	T("open", fd = open(f, O_RDWR | O_CREAT | O_TRUNC, 0644));
	T("write", write(fd, "0123456789", 10));
	T("lseek", lseek(fd, 0, SEEK_END));
	T("fstat", fstat(fd, &st));
	T("stat", stat(f, &st));
	T("lstat", lstat(f, &st));
	T("access", access(f, R_OK | W_OK));
	T("pread", pread(fd, buf, sizeof(buf), 0));
	T("pread past the end", pread(fd, buf, sizeof(buf), 100));
	T("fcntl F_SETLK", fcntl(fd, F_SETLK, &fl));
	fl.l_type = F_UNLCK;
	T("fcntl F_SETLK unlock", fcntl(fd, F_SETLK, &fl));
	T("ftruncate", ftruncate(fd, 5));
	T("fsync", fsync(fd));
	T("close", close(fd));
	T("open O_RDONLY", fd = open(f, O_RDONLY));
	T("read", read(fd, buf, sizeof(buf)));
	T("read at the end", read(fd, buf, sizeof(buf)));
	T("close", close(fd));
	T("chmod", chmod(f, 0600));
	T("utimensat", utimensat(AT_FDCWD, f, NULL, 0));
	T("truncate", truncate(f, 3));
	T("rename", rename(f, g));
	errno = MARK;
	s = fopen(g, "r");
	check("fopen", s ? 0 : -1);
	T("fread", fread(buf, 1, sizeof(buf), s));
	T("fclose", fclose(s));
	T("mkdir", mkdir(d, 0755));
	T("rmdir", rmdir(d));
	T("unlink", unlink(g));
	printf("done\n");
	return bad;
}
