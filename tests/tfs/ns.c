/*
 * ns.c - namespace calls on the mount for tests/tfs-namespace.bats, each
 * as one call with its errno printed, where the coreutils would hide
 * which call they made:
 *	ns mknod PATH			mknod(S_IFREG | 0644)
 *	ns rename OLD NEW [noreplace|exchange]	renameat2()
 *	ns chmod-fd PATH MODE		open, fchmod, close
 *	ns lchmod PATH MODE		fchmodat(AT_SYMLINK_NOFOLLOW)
 *	ns utime-fd PATH SECONDS	open, futimens, close
 *	ns publish TMP FINAL TEXT	write TMP, fsync, close, rename to FINAL
 *	ns remove PATH			remove(3)
 *	ns realpath PATH		realpath(3): prints the name
 *	ns mkstemp TEMPLATE		mkstemp(3), writes "t", closes: prints the name
 *	ns mkdtemp TEMPLATE		mkdtemp(3): prints the name
 *	ns scandir DIR			scandir(3), alphasort: prints the names
 *	ns unlink-open PATH		open, write, unlink, write, read back, close
 *	ns readdir-twice DIR		readdir_r(3), rewinddir(3), readdir(3): prints
 *					the names each pass found but . and ..,
 *					or the first one found twice in a pass
 * Prints "ok" (or what it says) or the errno's name-free text, and exits
 * 0 or 1.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int done(int rc);

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of @d but . and .., readdir_r(3)'s when @r: their count,
 * or -1 (printed) for an error or a name found twice. */
static int count_entries(DIR *d, int r)
{
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent ent, *de;

	for (;;) {
		errno = 0;
		if (r) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
			if ((errno = readdir_r(d, &ent, &de)) != 0)
				de = NULL;
#pragma GCC diagnostic pop
		} else {
			de = readdir(d);
		}
		if (!de && errno) {
			done(-1);
			return -1;
		}
		if (!de)
			break;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap && !(v = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v))))
			return -1;
		if (!(v[n++] = strdup(de->d_name)))
			return -1;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), by_name);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(v[i - 1], v[i])) {
			printf("%s twice\n", v[i]);
			return -1;
		}
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return (int)n;
}

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
	if (argc >= 4 && strcmp(argv[1], "lchmod") == 0)
		return done(fchmodat(AT_FDCWD, argv[2], (mode_t)strtol(argv[3], NULL, 8),
				     AT_SYMLINK_NOFOLLOW));
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
	if (argc >= 3 && strcmp(argv[1], "remove") == 0)
		return done(remove(argv[2]));
	if (argc >= 3 && strcmp(argv[1], "realpath") == 0) {
		char buf[PATH_MAX];

		if (!realpath(argv[2], buf))
			return done(-1);
		printf("%s\n", buf);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "mkstemp") == 0) {
		int fd = mkstemp(argv[2]);

		if (fd < 0 || write(fd, "t", 1) != 1 || close(fd) < 0)
			return done(-1);
		printf("%s\n", argv[2]);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "mkdtemp") == 0) {
		if (!mkdtemp(argv[2]))
			return done(-1);
		printf("%s\n", argv[2]);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "scandir") == 0) {
		struct dirent **v;
		int n = scandir(argv[2], &v, NULL, alphasort);

		if (n < 0)
			return done(-1);
		for (int i = 0; i < n; i++) {
			printf("%s\n", v[i]->d_name);
			free(v[i]);
		}
		free(v);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "unlink-open") == 0) {
		char back[8] = "";
		int fd = open(argv[2], O_CREAT | O_RDWR | O_TRUNC, 0644);

		if (fd < 0 || write(fd, "before", 6) != 6 || unlink(argv[2]) < 0 ||
		    pwrite(fd, "after", 5, 6) != 5 || pread(fd, back, 5, 6) != 5 || close(fd) < 0)
			return done(-1);
		printf("%s\n", back);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "readdir-twice") == 0) {
		DIR *d = opendir(argv[2]);
		int a, b;

		if (!d)
			return done(-1);
		if ((a = count_entries(d, 1)) < 0)
			return 1;
		rewinddir(d);
		if ((b = count_entries(d, 0)) < 0)
			return 1;
		closedir(d);
		printf("%d %d\n", a, b);
		return 0;
	}
	fprintf(stderr, "usage: ns mknod|rename|chmod-fd|lchmod|utime-fd|publish|remove|realpath|"
		"mkstemp|mkdtemp|scandir|unlink-open|readdir-twice ...\n");
	return 2;
}
