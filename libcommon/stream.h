/*
 * stream.h - one byte-stream abstraction over files, descriptors and memory.
 *
 * Reads and writes are full: tg_stream_read() returns fewer bytes than asked
 * only at end of input, tg_stream_write() writes everything or fails.  The
 * first error is sticky: once set, every later call fails the same way and
 * tg_stream_error() reports it.  A stream owns its buffer and, when it opened
 * them, its descriptor or FILE; tg_stream_close() releases both.
 */
#ifndef TG_STREAM_H
#define TG_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tg_stream;

/*
 * Open @path for reading ("r") or writing ("w", created or truncated).
 * "-" means standard input or output.  Returns NULL with errno set.
 */
struct tg_stream *tg_stream_open(const char *path, const char *mode);

/* Wrap descriptor @fd; it is closed by tg_stream_close() only if @own. */
struct tg_stream *tg_stream_fd(int fd, int writing, int own);

/* Read from @len bytes at @buf, which the caller keeps alive. */
struct tg_stream *tg_stream_mem_reader(const void *buf, size_t len);

/* Write into a growing memory buffer; see tg_stream_mem_data(). */
struct tg_stream *tg_stream_mem_writer(void);

/* The bytes written so far to a memory writer (owned by the stream). */
const void *tg_stream_mem_data(struct tg_stream *s, size_t *len);

/*
 * Read up to @n bytes.  Returns the count (less than @n only at end of
 * input), or -1 on error.
 */
long tg_stream_read(struct tg_stream *s, void *buf, size_t n);

/*
 * Copy up to @n (at most 4096) next bytes to @buf without consuming them,
 * so that a reader can tell formats apart by their magic.  Returns the
 * count (less than @n only at end of input), or -1 on error.
 */
long tg_stream_peek(struct tg_stream *s, void *buf, size_t n);

/* Write all @n bytes.  Returns 0, or -1 on error. */
int tg_stream_write(struct tg_stream *s, const void *buf, size_t n);

/* Write buffered bytes to the backend.  Returns 0 or -1. */
int tg_stream_flush(struct tg_stream *s);

/* The sticky error (an errno value), 0 if none; -1 means a short file. */
int tg_stream_error(const struct tg_stream *s);

/* Bytes consumed (reader) or produced (writer) so far. */
uint64_t tg_stream_offset(const struct tg_stream *s);

/* Name given at open ("-" shown as "standard input"/"standard output"). */
const char *tg_stream_name(const struct tg_stream *s);

/* Flush, close what the stream owns and free it.  Returns 0 or -1 (errno). */
int tg_stream_close(struct tg_stream *s);

#endif
