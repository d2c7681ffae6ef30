/*
 * rlock - fcntl(2) record locks of a file, between a process and its
 * child, for tests/tfs.bats under libtfs-posix.so.  usage: rlock FILE
 * The parent write-locks [0, 10); the child, a process of its own, tries
 * [0, 5) (refused), asks who holds it (F_GETLK), locks [20, 25) (free),
 * then waits for [0, 5) (F_SETLKW) while the parent writes "ABCD" at 0
 * and unlocks after 300 ms; the child then reads the 4 bytes; last, the
 * parent looks at a free range.  Each step prints one line.  The child
 * execs this program again (rlock FILE child FD): a forked process cannot
 * use TangramFS over UCX without an exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int lk(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };

	return fcntl(fd, cmd, &fl) < 0 ? -errno : 0;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* The child's part, the pipe's writing end @go. */
static int child(const char *path, int go)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 5 };
	int c = open(path, O_RDWR);
	char buf[5] = "";
	double t;

	printf("child lock [0,5): %s\n", strerror(-lk(c, F_SETLK, F_WRLCK, 0, 5)));
	fcntl(c, F_GETLK, &fl);
	printf("held by the parent: %s, [%lld,+%lld)\n",
	       fl.l_type == F_WRLCK && fl.l_pid == getppid() ? "yes" : "no",
	       (long long)fl.l_start, (long long)fl.l_len);
	printf("child lock [20,25): %d\n", lk(c, F_SETLK, F_WRLCK, 20, 5));
	fflush(stdout);
	if (write(go, "g", 1) != 1)
		return 1;
	t = now();
	lk(c, F_SETLKW, F_WRLCK, 0, 5);
	if (pread(c, buf, 4, 0) != 4)
		perror("pread");
	printf("child waited %s, then read %s\n", now() - t > 0.2 ? "for the unlock" : "not at all",
	       buf);
	return 0;
}

int main(int argc, char **argv)
{
	int fd, ro, go[2], status;
	char buf[16] = "";
	pid_t pid;

	if (argc == 4 && strcmp(argv[2], "child") == 0)
		return child(argv[1], atoi(argv[3]));
	if (argc != 2 || (fd = open(argv[1], O_RDWR | O_CREAT, 0644)) < 0 ||
	    (ro = open(argv[1], O_RDONLY)) < 0 || pipe(go) < 0) {
		perror("rlock");
		return 2;
	}
	printf("write lock of a read-only descriptor: %s\n",
	       strerror(-lk(ro, F_SETLK, F_WRLCK, 0, 1)));
	printf("parent lock [0,10): %d\n", lk(fd, F_SETLKW, F_WRLCK, 0, 10));
	fflush(stdout);
	if ((pid = fork()) == 0) {
		snprintf(buf, sizeof(buf), "%d", go[1]);
		execl(argv[0], argv[0], argv[1], "child", buf, (char *)NULL);
		perror("exec");
		return 1;
	}
	if (read(go[0], buf, 1) != 1 || pwrite(fd, "ABCD", 4, 0) != 4)
		perror("parent");
	usleep(300000);
	lk(fd, F_SETLK, F_UNLCK, 0, 0);
	waitpid(pid, &status, 0);
	/* the child's locks went with it */
	printf("parent lock [0,30) after the child ended: %d\n", lk(fd, F_SETLK, F_WRLCK, 0, 30));
	{	/* nothing in the way: F_UNLCK, the rest left as it was */
		struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 100,
				    .l_len = 7 };

		fcntl(fd, F_GETLK, &fl);
		printf("free range: %s, [%lld,+%lld)\n", fl.l_type == F_UNLCK ? "unlocked" : "locked",
		       (long long)fl.l_start, (long long)fl.l_len);
	}
	return 0;
}
