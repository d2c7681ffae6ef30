/*
 * test_stream.c - the stream abstraction (libcommon/stream.h): memory and
 * file backends, full reads, offsets, the sticky error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../libcommon/stream.h"
#include "tap.h"
#include "../../libcommon/banned.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define BIG (1000 * 1000 + 7)	/* several times the 256 KiB stream buffer */

/* Chunk sizes for writing and reading: odd, tiny, and buffer-crossing. */
static const size_t chunks[] = { 1, 7, 4093, 4096, 65536, 262143, 262144, 262145, 300001 };

static unsigned char *pattern(size_t n)
{
	unsigned char *b = malloc(n);
	size_t i;

	if (!b)
		abort();
	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(i * 131 + (i >> 9));
	return b;
}

/* Write @n bytes of @data in chunks cycling through chunks[]. */
static int write_chunked(struct tg_stream *s, const unsigned char *data, size_t n)
{
	size_t done = 0, k = 0;

	while (done < n) {
		size_t c = chunks[k++ % N(chunks)];
		if (c > n - done)
			c = n - done;
		if (tg_stream_write(s, data + done, c) < 0)
			return -1;
		done += c;
		if (tg_stream_offset(s) != done)
			return -1;
	}
	return 0;
}

/*
 * Read everything in chunks cycling through chunks[], checking that every
 * read is full except the one that meets the end and that the offset
 * follows; returns the byte count or -1.
 */
static long read_chunked(struct tg_stream *s, unsigned char *out, size_t cap)
{
	size_t done = 0, k = 0;

	for (;;) {
		size_t c = chunks[k++ % N(chunks)];
		long n;
		if (c > cap - done)
			c = cap - done;
		if (c == 0)
			return -1;	/* more bytes than the caller expected */
		n = tg_stream_read(s, out + done, c);
		if (n < 0 || (size_t)n > c)
			return -1;
		done += (size_t)n;
		if (tg_stream_offset(s) != done)
			return -1;
		if ((size_t)n < c)
			break;
	}
	/* at the end a read keeps returning 0 */
	if (tg_stream_read(s, out, 1) != 0 || tg_stream_read(s, out, 1) != 0)
		return -1;
	return (long)done;
}

static void test_mem_writer(void)
{
	struct tg_stream *s = tg_stream_mem_writer();
	unsigned char *big = pattern(BIG);
	const void *data;
	size_t len = 1;

	data = tg_stream_mem_data(s, &len);
	is_int(len, 0, "a new memory writer holds no bytes");
	ok(tg_stream_write(s, "", 0) == 0 && tg_stream_offset(s) == 0,
	   "an empty write to a new memory writer succeeds");
	ok(tg_stream_write(s, "hello", 5) == 0 && tg_stream_write(s, ", world", 7) == 0,
	   "memory writer accepts writes");
	data = tg_stream_mem_data(s, &len);
	ok(len == 12 && memcmp(data, "hello, world", 12) == 0 &&
		   tg_stream_offset(s) == 12,
	   "memory writer holds what was written, offset 12");
	ok(tg_stream_write(s, "", 0) == 0 && tg_stream_offset(s) == 12,
	   "an empty write changes nothing");
	ok(strcmp(tg_stream_name(s), "memory") == 0, "memory stream is named 'memory'");
	tg_stream_close(s);

	s = tg_stream_mem_writer();
	ok(write_chunked(s, big, BIG) == 0, "memory writer grows over %d bytes", BIG);
	data = tg_stream_mem_data(s, &len);
	ok(len == BIG && memcmp(data, big, BIG) == 0 && tg_stream_error(s) == 0,
	   "grown memory writer holds every byte in order");
	ok(tg_stream_flush(s) == 0 && tg_stream_close(s) == 0,
	   "memory writer flushes and closes cleanly");
	free(big);
}

static void test_mem_reader(void)
{
	unsigned char *big = pattern(BIG), *back = malloc(BIG + 1);
	static const struct {
		size_t len, ask;
		long want;
	} reads[] = {
		{ 10, 4, 4 }, { 10, 10, 10 }, { 10, 11, 10 }, { 10, 0, 0 }, { 0, 5, 0 },
	};
	struct tg_stream *s;
	unsigned char buf[16];
	size_t i;

	for (i = 0; i < N(reads); i++) {
		long n;
		s = tg_stream_mem_reader(big, reads[i].len);
		n = tg_stream_read(s, buf, reads[i].ask);
		ok(n == reads[i].want && tg_stream_offset(s) == (uint64_t)n &&
			   memcmp(buf, big, (size_t)n) == 0,
		   "memory reader of %zu bytes, read of %zu returns %ld", reads[i].len,
		   reads[i].ask, reads[i].want);
		tg_stream_close(s);
	}

	s = tg_stream_mem_reader(big, BIG);
	ok(read_chunked(s, back, BIG + 1) == BIG && memcmp(back, big, BIG) == 0,
	   "memory reader: full reads, offsets, 0 at the end");
	tg_stream_close(s);

	/* what a writer that got nothing hands out: (NULL, 0) */
	s = tg_stream_mem_writer();
	{
		size_t len;
		const void *data = tg_stream_mem_data(s, &len);
		struct tg_stream *r = tg_stream_mem_reader(data, len);
		ok(tg_stream_read(r, buf, sizeof(buf)) == 0,
		   "reading back an empty memory writer gives end of input");
		tg_stream_close(r);
	}
	tg_stream_close(s);
	free(big);
	free(back);
}

static void test_file_roundtrip(void)
{
	char path[] = "/tmp/tg-test-stream.XXXXXX";
	unsigned char *big = pattern(BIG), *back = malloc(BIG + 1);
	struct tg_stream *s;
	struct stat st;
	int fd = mkstemp(path);

	if (!ok(fd >= 0, "mkstemp in /tmp"))
		return;
	close(fd);
	s = tg_stream_open(path, "w");
	ok(s && strcmp(tg_stream_name(s), path) == 0, "open for writing, named by its path");
	ok(write_chunked(s, big, BIG) == 0, "file writer takes %d bytes in odd chunks", BIG);
	is_int(tg_stream_offset(s), BIG, "file writer offset counts buffered bytes");
	ok(tg_stream_close(s) == 0, "file writer closes cleanly");
	ok(stat(path, &st) == 0 && st.st_size == BIG, "the file has all %d bytes", BIG);

	s = tg_stream_open(path, "r");
	ok(s != NULL, "open for reading");
	ok(read_chunked(s, back, BIG + 1) == BIG && memcmp(back, big, BIG) == 0,
	   "file reader: same bytes back, full reads, offsets, 0 at the end");
	ok(tg_stream_error(s) == 0 && tg_stream_close(s) == 0, "file reader closes cleanly");

	/* "w" truncates */
	s = tg_stream_open(path, "w");
	ok(s && tg_stream_write(s, "x", 1) == 0 && tg_stream_close(s) == 0 &&
		   stat(path, &st) == 0 && st.st_size == 1,
	   "opening for writing truncates");
	unlink(path);
	free(big);
	free(back);
}

/* A pipe delivers a few bytes at a time; reads must still be full. */
static void test_full_reads_pipe(void)
{
	enum { PIECE = 100, PIECES = 40 };
	unsigned char want[PIECE * PIECES], got[PIECE * PIECES + 1];
	struct tg_stream *s;
	int p[2], status, i;
	long n1, n2, n3;
	pid_t pid;

	for (i = 0; i < (int)sizeof(want); i++)
		want[i] = (unsigned char)(i * 7);
	if (!ok(pipe(p) == 0, "pipe"))
		return;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		for (i = 0; i < PIECES; i++) {
			if (write(p[1], want + i * PIECE, PIECE) != PIECE)
				_exit(1);
			usleep(500);
		}
		_exit(0);
	}
	close(p[1]);
	s = tg_stream_fd(p[0], 0, 1);
	n1 = tg_stream_read(s, got, 1234);
	n2 = tg_stream_read(s, got + 1234, sizeof(want) - 1234 - 1);
	n3 = tg_stream_read(s, got + sizeof(want) - 1, 2);
	ok(n1 == 1234 && n2 == (long)sizeof(want) - 1235 && n3 == 1 &&
		   memcmp(got, want, sizeof(want)) == 0,
	   "reads from a trickling pipe are full: %ld %ld %ld", n1, n2, n3);
	is_int(tg_stream_offset(s), sizeof(want), "pipe reader offset");
	ok(tg_stream_close(s) == 0 && fcntl(p[0], F_GETFD) < 0 && errno == EBADF,
	   "an owned descriptor is closed with the stream");
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "pipe writer finished");
}

static void test_fd_not_owned(void)
{
	int fd = open("/dev/null", O_WRONLY);
	struct tg_stream *s = tg_stream_fd(fd, 1, 0);

	ok(s && tg_stream_write(s, "abc", 3) == 0 && tg_stream_close(s) == 0 &&
		   fcntl(fd, F_GETFD) >= 0,
	   "a descriptor not owned stays open after close");
	close(fd);
}

static void test_sticky_error(void)
{
	unsigned char *big = pattern(BIG);
	struct tg_stream *s = tg_stream_open("/dev/full", "w");
	char b;
	int e;

	if (!ok(s != NULL, "open /dev/full for writing"))
		return;
	ok(tg_stream_write(s, "abc", 3) == 0, "a small write is buffered");
	is_int(tg_stream_error(s), 0, "no error before the flush");
	errno = 0;
	ok(tg_stream_flush(s) == -1 && errno == ENOSPC, "flush to /dev/full fails with ENOSPC");
	is_int(tg_stream_error(s), ENOSPC, "the error is recorded");
	errno = 0;
	ok(tg_stream_write(s, "d", 1) == -1 && errno == ENOSPC, "a later write fails with ENOSPC");
	errno = 0;
	ok(tg_stream_flush(s) == -1 && errno == ENOSPC, "a later flush fails with ENOSPC");
	is_int(tg_stream_error(s), ENOSPC, "the error stays ENOSPC");
	errno = 0;
	e = tg_stream_close(s);
	ok(e == -1 && errno == ENOSPC, "close reports ENOSPC");

	s = tg_stream_open("/dev/full", "w");
	errno = 0;
	ok(tg_stream_write(s, big, BIG) == -1 && errno == ENOSPC,
	   "a write larger than the buffer fails by itself with ENOSPC");
	ok(tg_stream_write(s, "x", 1) == -1 && tg_stream_error(s) == ENOSPC,
	   "and stays failed");
	errno = 0;
	ok(tg_stream_close(s) == -1 && errno == ENOSPC, "close of the failed stream reports ENOSPC");

	/* reading a directory: EISDIR, and sticky */
	s = tg_stream_open("/tmp", "r");
	errno = 0;
	ok(s && tg_stream_read(s, &b, 1) == -1 && errno == EISDIR,
	   "reading a directory fails with EISDIR");
	errno = 0;
	ok(tg_stream_read(s, &b, 1) == -1 && errno == EISDIR &&
		   tg_stream_error(s) == EISDIR,
	   "and the read error is sticky");
	tg_stream_close(s);
	free(big);
}

static void test_open_errors(void)
{
	errno = 0;
	ok(tg_stream_open("/nonexistent/tg-test", "r") == NULL && errno == ENOENT,
	   "open of a missing file: NULL, ENOENT");
	errno = 0;
	ok(tg_stream_open("/nonexistent/tg-test", "w") == NULL && errno == ENOENT,
	   "create in a missing directory: NULL, ENOENT");
	ok(tg_stream_close(NULL) == 0, "closing NULL is a no-op");
}

static void test_std_names(void)
{
	struct tg_stream *in = tg_stream_open("-", "r"), *out = tg_stream_open("-", "w");

	ok(in && strcmp(tg_stream_name(in), "standard input") == 0,
	   "'-' for reading is standard input");
	ok(out && strcmp(tg_stream_name(out), "standard output") == 0,
	   "'-' for writing is standard output");
	tg_stream_close(in);
	tg_stream_close(out);
	ok(fcntl(0, F_GETFD) >= 0 && fcntl(1, F_GETFD) >= 0,
	   "closing them leaves descriptors 0 and 1 open");
}

int main(void)
{
	test_mem_writer();
	test_mem_reader();
	test_file_roundtrip();
	test_full_reads_pipe();
	test_fd_not_owned();
	test_sticky_error();
	test_open_errors();
	test_std_names();
	return tap_done();
}
