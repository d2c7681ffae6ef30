/*
 * cfg.h - compressed traces (.cfg), as specified in tangram-cfg(5): a call
 * signature table, Sequitur grammars with repetition counts, and the times
 * of the records of any number of streams.
 *
 * A struct tg_cfg is one compressed trace in memory.  It is filled by
 * compressing record streams (tg_cfg_add_rec), by reading a .cfg file
 * (tg_cfg_read) and by merging another one into it (tg_cfg_merge); it is
 * written with tg_cfg_write and decoded, stream by stream, with a cursor.
 * The tg_cfg owns everything it holds; a cursor borrows its tg_cfg, which
 * must outlive it, and owns the records it hands out until the next call.
 */
#ifndef TG_CFG_H
#define TG_CFG_H

#include <stddef.h>
#include <stdint.h>

#include "rec.h"

struct tg_stream;

#define TG_CFG_MAGIC "\x89TGCFG\r\n"
#define TG_CFG_MAGIC_LEN 8
#define TG_CFG_VERSION 13		/* the one written */
#define TG_CFG_VERSION_MIN 1	/* the oldest read */

/* Timing modes (tangram-cfg(5), "Timing"); the numbers are on disk. */
enum tg_cfg_timing {
	TG_CFG_AGGREGATE = 0,
	TG_CFG_LOSSLESS = 1,
	TG_CFG_BINNED = 2,
	TG_CFG_HIST = 3,
};

/* How trace-compress and trace-merge keep times. */
struct tg_cfg_opts {
	int timing;		/* enum tg_cfg_timing */
	uint32_t err_ppm;	/* binned, hist: relative error, millionths */
	uint32_t bits;		/* hist: K */
	uint32_t samples;	/* hist: M */
	int lone;		/* the trace's only stream: a process without a
				 * rank has no other to be ordered with, and
				 * keeps no times beyond aggregate's (XTIME) */
};

/* What a compressed trace says about one of its streams. */
struct tg_cfg_stream {
	struct tg_header h;	/* the header as the stream had it */
	int64_t rank;		/* the MPI rank, -1 if it never had one */
	uint64_t records;	/* records, definitions included */
	uint64_t calls;		/* CALL records */
	uint64_t end;		/* latest end of a call, ns after time zero */
	int timing;		/* enum tg_cfg_timing */
	uint32_t err_ppm, bits, samples;
	int anchored;		/* 0: aggregate times from a file of version 12
				 * or before, whose calls that need their exact
				 * times (tangram-cfg(5), XTIME) have none */
};

struct tg_cfg;
struct tg_cfg_cursor;

/* Does @buf (@len bytes) start with the .cfg magic? */
int tg_cfg_is_magic(const void *buf, size_t len);

/* Check @o; returns 0, or -1 with a message in @err. */
int tg_cfg_opts_check(const struct tg_cfg_opts *o, char *err, size_t errlen);

/* A new, empty compressed trace; NULL when out of memory. */
struct tg_cfg *tg_cfg_new(void);

void tg_cfg_free(struct tg_cfg *c);

/*
 * Compress the record stream of reader @r (from its current record to its
 * end) into a new stream of @c, timed as @o says.  Returns 0; 1 when the
 * stream ended in damage (what came before it is kept and the reader's
 * error says what happened); -1 with a message in @err when the stream
 * cannot be compressed (out of memory, a record this version cannot
 * encode), and @c is then unusable.
 */
int tg_cfg_add_rec(struct tg_cfg *c, struct tg_reader *r, const struct tg_cfg_opts *o,
		   char *err, size_t errlen);

/*
 * As tg_cfg_add_rec(), knowing the seqs of the stream's records of threads
 * other than thread 0 (@foreign, @nforeign of them, sorted, not kept), so
 * that thread 0's records are encoded as if those calls had not been made:
 * a library's helper thread then no longer makes a process's signatures
 * its own.
 */
int tg_cfg_add_rec_foreign(struct tg_cfg *c, struct tg_reader *r, const struct tg_cfg_opts *o,
			   const uint64_t *foreign, size_t nforeign, char *err, size_t errlen);

/* At most so many foreign seqs are kept, and an eighth of the calls. */
#define TG_CFG_MAXFOREIGN 4096

/*
 * Read the record stream in file @path once, for the seqs of its records of
 * threads other than thread 0: *@f (malloc'd, sorted, distinct), *@n of
 * them, none when there are more than TG_CFG_MAXFOREIGN or an eighth of
 * the calls (threads that do the work, whose seqs would cost more than
 * they save).  @path "-" is standard input.  Returns 0, or -1 (and none) when
 * the stream is not a regular file (a pipe) or cannot be read.
 */
int tg_cfg_foreign_scan(const char *path, uint64_t **f, size_t *n);

/*
 * Read a whole compressed trace from @s, magic included.  Returns it, or
 * NULL with a one-line message in @err: "truncated section CST at byte
 * 1234", "corrupt section GRAMMAR at byte 88 (rule 4 names rule 9)", and so
 * on.  The stream is read to its end and left open.
 */
struct tg_cfg *tg_cfg_read(struct tg_stream *s, char *err, size_t errlen);

/*
 * Append the streams of @src to those of @dst, merging the string tables,
 * the CSTs and the grammars (identical rules are kept once).  @src is not
 * changed.  Returns 0, or -1 with a message in @err (@dst is then
 * unusable).
 */
int tg_cfg_merge(struct tg_cfg *dst, const struct tg_cfg *src, char *err, size_t errlen);

/*
 * Compress the grammar further: one Sequitur pass over all rules, which
 * finds what the streams' grammars have in common, then rules used once
 * are put back in place.  Returns 0, or -1 when out of memory (@c is then
 * unusable).
 */
int tg_cfg_optimize(struct tg_cfg *c);

/* Write @c to @s.  @writer names the program (META).  Returns 0, or -1 with
 * errno set. */
int tg_cfg_write(struct tg_cfg *c, struct tg_stream *s, const char *writer);

/*
 * @c exactly as it is in memory -- nothing rounded or renumbered, no
 * final pass -- in a malloc'd buffer (*@buf, *@len bytes) that
 * tg_cfg_unpack() turns back into it: for handing a trace being merged to
 * another process of the same program (trace-merge --mpi), not a file
 * format (the byte order is the machine's).  Returns 0, or -1 when out of
 * memory.
 */
int tg_cfg_pack(const struct tg_cfg *c, unsigned char **buf, size_t *len);

/* The trace tg_cfg_pack() packed into @buf, or NULL with a message in @err. */
struct tg_cfg *tg_cfg_unpack(const void *buf, size_t len, char *err, size_t errlen);

size_t tg_cfg_nstreams(const struct tg_cfg *c);

/* Stream @i (0 <= i < tg_cfg_nstreams()). */
const struct tg_cfg_stream *tg_cfg_stream(const struct tg_cfg *c, size_t i);

/* Sizes, for reports: signatures, rules, grammar symbols, distinct start
 * rules (the unique grammars). */
void tg_cfg_sizes(const struct tg_cfg *c, size_t *ncst, size_t *nrules, size_t *nsyms,
		  size_t *ngrammars);

/*
 * Decode stream @i.  Returns a cursor, or NULL with a message in @err (out
 * of memory, damaged times).
 */
struct tg_cfg_cursor *tg_cfg_cursor_open(const struct tg_cfg *c, size_t i, char *err,
					 size_t errlen);

/* The stream's header; its rank and world follow the RANK records the
 * cursor has returned, as a tg_reader's do. */
const struct tg_header *tg_cfg_cursor_header(const struct tg_cfg_cursor *k);

/* The next record, as tg_reader_next() gives it: 1, 0 at the end, -1 on
 * damage (tg_cfg_cursor_error() says what). */
int tg_cfg_cursor_next(struct tg_cfg_cursor *k, struct tg_rec *out);

const char *tg_cfg_cursor_error(const struct tg_cfg_cursor *k);

void tg_cfg_cursor_free(struct tg_cfg_cursor *k);

#endif
