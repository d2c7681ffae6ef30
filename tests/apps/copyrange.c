/*
 * copyrange - data calls that name two files, or an offset that means
 * "the position": pwritev2, preadv2 with an offset and with -1,
 * copy_file_range with offsets and without, sendfile, splice into a file
 * from a pipe and out of one into a pipe.  The byte ranges
 * each call touches are asserted in tests/overlap-find.bats.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

static void check(int ok, const char *what)
{
	if (!ok) {
		perror(what);
		_exit(1);
	}
}

int main(void)
{
	char buf[64];
	struct iovec iov[2] = { { buf, 10 }, { buf + 10, 20 } };
	off64_t in = 0, out = 100;
	off_t so = 40;
	loff_t sp = 200;
	int a, b, p[2];

	memset(buf, 'a', sizeof(buf));
	a = open("a", O_RDWR | O_CREAT | O_TRUNC, 0644);
	b = open("b", O_RDWR | O_CREAT | O_TRUNC, 0644);
	check(a >= 0 && b >= 0, "open");
	check(pwritev2(a, iov, 2, 0, 0) == 30, "pwritev2");		/* a [0,30) */
	check(pwritev2(a, iov, 1, 40, 0) == 10, "pwritev2");		/* a [40,50) */
	check(lseek(a, 5, SEEK_SET) == 5, "lseek");
	check(preadv2(a, iov, 1, -1, 0) == 10, "preadv2");		/* a [5,15), position 15 */
	check(preadv2(a, iov, 1, 20, 0) == 10, "preadv2");		/* a [20,30) */
	check(copy_file_range(a, &in, b, &out, 10, 0) == 10, "copy_file_range");
	/* a [0,10) to b [100,110); positions unmoved */
	check(copy_file_range(a, NULL, b, NULL, 8, 0) == 8, "copy_file_range");
	/* a [15,23) to b [0,8); positions 23 and 8 */
	check(write(b, "xxxx", 4) == 4, "write");			/* b [8,12) */
	check(sendfile(b, a, &so, 10) == 10, "sendfile");		/* a [40,50) to b [12,22) */
	check(pipe(p) == 0 && write(p[1], "pppppp", 6) == 6, "pipe");
	check(splice(p[0], NULL, b, &sp, 6, 0) == 6, "splice");	/* b [200,206) */
	sp = 0;
	check(splice(a, &sp, p[1], NULL, 4, 0) == 4, "splice");	/* a [0,4) */
	check(close(a) == 0 && close(b) == 0, "close");
	return 0;
}
