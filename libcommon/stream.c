/*
 * stream.c - buffered full reads and writes with a sticky error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

#define TG_STREAM_BUF (256 * 1024)

enum backend { B_FD, B_MEM };

struct tg_stream {
	enum backend kind;
	int fd;
	int own;
	int writing;
	int err;
	uint64_t off;
	unsigned char *buf;	/* fd: I/O buffer; mem writer: the data */
	size_t pos, len, cap;	/* reader: buf[pos..len); writer: buf[0..len) */
	const unsigned char *mem;	/* mem reader input */
	char name[256];
};

static struct tg_stream *stream_new(enum backend kind, int writing)
{
	struct tg_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->kind = kind;
	s->writing = writing;
	s->fd = -1;
	return s;
}

struct tg_stream *tg_stream_fd(int fd, int writing, int own)
{
	struct tg_stream *s = stream_new(B_FD, writing);

	if (!s)
		return NULL;
	s->fd = fd;
	s->own = own;
	s->cap = TG_STREAM_BUF;
	s->buf = malloc(s->cap);
	if (!s->buf) {
		free(s);
		return NULL;
	}
	snprintf(s->name, sizeof(s->name), "%s",
		 writing ? "standard output" : "standard input");
	return s;
}

struct tg_stream *tg_stream_open(const char *path, const char *mode)
{
	int writing = mode[0] == 'w';
	struct tg_stream *s;
	int fd;

	if (strcmp(path, "-") == 0)
		return tg_stream_fd(writing ? 1 : 0, writing, 0);
	fd = writing ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)
		     : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	s = tg_stream_fd(fd, writing, 1);
	if (!s) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	snprintf(s->name, sizeof(s->name), "%s", path);
	return s;
}

struct tg_stream *tg_stream_mem_reader(const void *buf, size_t len)
{
	struct tg_stream *s = stream_new(B_MEM, 0);

	if (!s)
		return NULL;
	s->mem = buf;
	s->len = len;
	snprintf(s->name, sizeof(s->name), "memory");
	return s;
}

struct tg_stream *tg_stream_mem_writer(void)
{
	struct tg_stream *s = stream_new(B_MEM, 1);

	if (s)
		snprintf(s->name, sizeof(s->name), "memory");
	return s;
}

const void *tg_stream_mem_data(struct tg_stream *s, size_t *len)
{
	*len = s->len;
	return s->buf;
}

static int fill(struct tg_stream *s)
{
	ssize_t n;

	do
		n = read(s->fd, s->buf, s->cap);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		s->err = errno;
		return -1;
	}
	s->pos = 0;
	s->len = (size_t)n;
	return (int)(n > 0);
}

long tg_stream_read(struct tg_stream *s, void *buf, size_t n)
{
	unsigned char *out = buf;
	size_t got = 0;

	if (s->err) {
		errno = s->err > 0 ? s->err : EIO;
		return -1;
	}
	if (s->kind == B_MEM) {
		size_t left = s->len - s->pos;
		got = n < left ? n : left;
		if (got)	/* an empty reader may have no buffer at all */
			memcpy(out, s->mem + s->pos, got);
		s->pos += got;
		s->off += got;
		return (long)got;
	}
	while (got < n) {
		size_t avail = s->len - s->pos, take;
		if (avail == 0) {
			int r = fill(s);
			if (r < 0)
				return -1;
			if (r == 0)
				break;
			avail = s->len;
		}
		take = n - got < avail ? n - got : avail;
		memcpy(out + got, s->buf + s->pos, take);
		s->pos += take;
		got += take;
	}
	s->off += got;
	return (long)got;
}

long tg_stream_peek(struct tg_stream *s, void *buf, size_t n)
{
	size_t avail;

	if (s->err) {
		errno = s->err > 0 ? s->err : EIO;
		return -1;
	}
	if (n > 4096)
		n = 4096;
	if (s->kind == B_MEM) {
		avail = s->len - s->pos;
		if (n > avail)
			n = avail;
		if (n)
			memcpy(buf, s->mem + s->pos, n);
		return (long)n;
	}
	if (s->len - s->pos < n && s->pos > 0) {
		memmove(s->buf, s->buf + s->pos, s->len - s->pos);
		s->len -= s->pos;
		s->pos = 0;
	}
	while (s->len - s->pos < n) {
		ssize_t got = read(s->fd, s->buf + s->len, s->cap - s->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			s->err = errno;
			return -1;
		}
		if (got == 0)
			break;
		s->len += (size_t)got;
	}
	avail = s->len - s->pos;
	if (n > avail)
		n = avail;
	memcpy(buf, s->buf + s->pos, n);
	return (long)n;
}

static int drain(struct tg_stream *s)
{
	size_t done = 0;

	while (done < s->len) {
		ssize_t n = write(s->fd, s->buf + done, s->len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			s->err = errno;
			return -1;
		}
		done += (size_t)n;
	}
	s->len = 0;
	return 0;
}

int tg_stream_write(struct tg_stream *s, const void *buf, size_t n)
{
	const unsigned char *in = buf;

	if (s->err) {
		errno = s->err > 0 ? s->err : EIO;
		return -1;
	}
	if (s->kind == B_MEM && n > 0) {
		if (s->len + n > s->cap) {
			size_t cap = s->cap ? s->cap : 4096;
			unsigned char *nb;
			while (cap < s->len + n)
				cap *= 2;
			nb = realloc(s->buf, cap);
			if (!nb) {
				s->err = ENOMEM;
				return -1;
			}
			s->buf = nb;
			s->cap = cap;
		}
		memcpy(s->buf + s->len, in, n);
		s->len += n;
		s->off += n;
		return 0;
	}
	while (n > 0) {
		size_t room = s->cap - s->len, take = n < room ? n : room;
		memcpy(s->buf + s->len, in, take);
		s->len += take;
		in += take;
		n -= take;
		s->off += take;
		if (s->len == s->cap && drain(s) < 0)
			return -1;
	}
	return 0;
}

int tg_stream_flush(struct tg_stream *s)
{
	if (s->err) {
		errno = s->err > 0 ? s->err : EIO;
		return -1;
	}
	if (s->kind == B_FD && s->writing)
		return drain(s);
	return 0;
}

int tg_stream_error(const struct tg_stream *s)
{
	return s->err;
}

uint64_t tg_stream_offset(const struct tg_stream *s)
{
	return s->off;
}

const char *tg_stream_name(const struct tg_stream *s)
{
	return s->name;
}

int tg_stream_close(struct tg_stream *s)
{
	int rc = 0, e = 0;

	if (!s)
		return 0;
	if (s->writing && tg_stream_flush(s) < 0) {
		rc = -1;
		e = errno;
	}
	if (s->kind == B_FD && s->own && close(s->fd) < 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	free(s->buf);
	free(s);
	if (rc)
		errno = e;
	return rc;
}
