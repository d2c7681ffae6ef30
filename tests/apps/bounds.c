/*
 * bounds - resource bounds for tests/bounds.bats.
 *
 *   bounds path      a file at the end of a 64 KiB absolute path (256
 *                    directories of 255-byte names, each entered with
 *                    fchdir), written and read back; then open(2) of a
 *                    64 KiB path string, which fails with ENAMETOOLONG
 *   bounds fds N     raise RLIMIT_NOFILE as far as allowed, open "many" up
 *                    to N times (or until EMFILE), write byte i through the
 *                    i-th descriptor, close them all
 *
 * Prints what it did (the same lines traced or not) and, on stderr, its
 * peak resident memory in KiB ("VmHWM N").  Exit 0, 1 on a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define LEVELS 256

static int fail(const char *what)
{
	fprintf(stderr, "bounds: %s: %s\n", what, strerror(errno));
	return 1;
}

static int deep_path(void)
{
	static char name[256], big[65 * 1024];
	char buf[16];
	int i, fd;

	memset(name, 'd', 255);
	for (i = 0; i < LEVELS; i++) {
		if (mkdir(name, 0755) < 0 && errno != EEXIST)
			return fail("mkdir");
		if ((fd = open(name, O_RDONLY | O_DIRECTORY)) < 0)
			return fail("open dir");
		if (fchdir(fd) < 0)
			return fail("fchdir");
		close(fd);
	}
	if ((fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0)
		return fail("open f");
	if (write(fd, "0123456789", 10) != 10 || pread(fd, buf, 10, 0) != 10)
		return fail("write f");
	close(fd);
	printf("deep file written at depth %d\n", LEVELS);
	/* one 64 KiB path string, /d.../d.../... */
	for (i = 0; i + 256 < (int)sizeof(big) - 1; i += 256) {
		big[i] = '/';
		memset(big + i + 1, 'd', 255);
	}
	big[i] = 0;
	fd = open(big, O_RDONLY);
	printf("open of a %zu-byte path: %s\n", strlen(big), fd < 0 ? strerror(errno) : "opened");
	return 0;
}

static int many_fds(long n)
{
	struct rlimit rl;
	long i, got = 0;
	int *fds;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (!(fds = malloc(sizeof(*fds) * (size_t)n)))
		return fail("malloc");
	for (i = 0; i < n; i++) {
		if ((fds[i] = open("many", O_WRONLY | O_CREAT, 0644)) < 0) {
			if (errno == EMFILE)
				break;
			return fail("open many");
		}
		if (pwrite(fds[i], "x", 1, (off_t)i) != 1)
			return fail("pwrite");
		got++;
	}
	for (i = 0; i < got; i++)
		if (close(fds[i]) < 0)
			return fail("close");
	free(fds);
	/* the count depends on the limit, not on tracing: on stderr */
	fprintf(stderr, "descriptors %ld\n", got);
	printf("descriptors opened and closed\n");
	return 0;
}

static void peak(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			fprintf(stderr, "VmHWM %ld\n", atol(line + 6));
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	int rc;

	if (argc > 1 && strcmp(argv[1], "path") == 0)
		rc = deep_path();
	else if (argc > 2 && strcmp(argv[1], "fds") == 0)
		rc = many_fds(atol(argv[2]));
	else {
		fprintf(stderr, "usage: bounds path | fds N\n");
		return 2;
	}
	fflush(stdout);
	peak();
	return rc;
}
