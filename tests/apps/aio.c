/*
 * aio - POSIX asynchronous I/O: aio_write waited for with aio_suspend and
 * finished with aio_return, aio_read of part of it, a short aio_read past
 * the end, and lio_listio of two writes and a read (LIO_WAIT, no
 * aio_return for them).  tests/overlap-find.bats asserts the bytes.
 */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void check(int ok, const char *what)
{
	if (!ok) {
		perror(what);
		_exit(1);
	}
}

/* Wait for @cb and return its count. */
static ssize_t finish(struct aiocb *cb)
{
	const struct aiocb *list[1] = { cb };

	/* suspended at least once, done or not, so that every run makes the
	 * same calls (aio_suspend returns at once for a finished request) */
	do
		check(aio_suspend(list, 1, NULL) == 0 || errno == EINTR, "aio_suspend");
	while (aio_error(cb) == EINPROGRESS);
	return aio_return(cb);
}

int main(void)
{
	static char data[100], in[100];
	struct aiocb w, r, s, l[3];
	struct aiocb *list[3] = { &l[0], &l[1], &l[2] };
	int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);

	check(fd >= 0, "open");
	memset(data, 'x', sizeof(data));
	memset(&w, 0, sizeof(w));
	w.aio_fildes = fd;
	w.aio_buf = data;
	w.aio_nbytes = 40;
	w.aio_offset = 10;			/* [10, 50) */
	check(aio_write(&w) == 0, "aio_write");
	check(finish(&w) == 40, "aio_return of the write");

	memset(&r, 0, sizeof(r));
	r.aio_fildes = fd;
	r.aio_buf = in;
	r.aio_nbytes = 10;
	r.aio_offset = 20;			/* [20, 30) */
	check(aio_read(&r) == 0, "aio_read");
	check(finish(&r) == 10, "aio_return of the read");

	s = r;
	s.aio_nbytes = 30;
	s.aio_offset = 40;			/* asks [40, 70), gets [40, 50) */
	check(aio_read(&s) == 0, "aio_read");
	check(finish(&s) == 10, "aio_return of the short read");

	memset(l, 0, sizeof(l));
	l[0].aio_fildes = l[1].aio_fildes = l[2].aio_fildes = fd;
	l[0].aio_lio_opcode = LIO_WRITE;
	l[0].aio_buf = data;
	l[0].aio_nbytes = 5;
	l[0].aio_offset = 100;			/* [100, 105) */
	l[1].aio_lio_opcode = LIO_WRITE;
	l[1].aio_buf = data;
	l[1].aio_nbytes = 5;
	l[1].aio_offset = 200;			/* [200, 205) */
	l[2].aio_lio_opcode = LIO_READ;
	l[2].aio_buf = in;
	l[2].aio_nbytes = 8;
	l[2].aio_offset = 0;			/* [0, 8) */
	check(lio_listio(LIO_WAIT, list, 3, NULL) == 0, "lio_listio");
	check(close(fd) == 0, "close");
	return 0;
}
