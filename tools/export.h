/*
 * export.h - what trace-export's formats share: the stream being read,
 * the options, the conflicts and the happens-before graph given, and the
 * interface each format (export-*.c) fills in.
 *
 * trace-export.c reads every input once, in order, and hands each stream
 * and each of its records to the format; a format keeps only what the
 * number of files, ranks and open handles bounds.  Every function that
 * returns int returns 0, or -1 after it printed a one-line error.
 */
#ifndef TG_EXPORT_H
#define TG_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../libcommon/rec.h"

struct tg_hb;

/* The stream whose records are being handed over. */
struct xstream {
	const struct tg_header *h;
	int64_t rank;		/* its MPI rank, -1 if it has none */
	unsigned index;		/* the streams' number, from 0, in input order */
	uint64_t zero;		/* CLOCK_REALTIME ns every format shows as time 0 */
};

/* One access of a conflicting pair (conflict-check --json). */
struct xaccess {
	char rank[24];		/* as the text records show it: "0", "p123" */
	uint64_t seq;
	const char *op, *func;
	int64_t start, end;	/* the bytes [start, end) */
};

struct xpair {
	char *file, *kind, *procs;
	struct xaccess a[2];
	int conflict[3];	/* posix, commit, session */
	int synchronized;
};

struct xopts {
	const char *out;	/* -o */
	const char *hbpath;	/* --hb, or NULL */
	struct tg_hb *hb;	/* opened from hbpath */
	struct xpair *pairs;	/* --conflicts */
	size_t npairs;
	int verbose;
};

struct exporter {
	const char *name;
	/* Start writing to o->out.  Returns the format's state or NULL. */
	void *(*open)(const struct xopts *o);
	/* A stream starts (its header), and one of its records. */
	int (*stream)(void *x, const struct xstream *s);
	int (*rec)(void *x, const struct xstream *s, const struct tg_rec *r);
	/* Finish and free; @ok is 0 when the input was damaged. */
	int (*close)(void *x, int ok);
};

extern const struct exporter tg_export_chrome, tg_export_sqlite, tg_export_otf2,
	tg_export_hdtrace;

/* The rank label the text records show for stream @s ("0", "p123"). */
void xp_rank_label(char *buf, size_t cap, const struct xstream *s);

/* Nanoseconds since the common time zero of time @t of stream @s. */
static inline uint64_t xp_time(const struct xstream *s, uint64_t t)
{
	uint64_t abs = s->h->clock_base + t;

	return abs >= s->zero ? abs - s->zero : 0;
}

/*
 * The ends of the conflicting pairs at record @seq of the stream labelled
 * @rank: sets *@n to how many and returns the first, an index into
 * end numbers e (pair e / 2 of o->pairs, its access e % 2).
 */
const uint32_t *xp_conflicts_at(const char *rank, uint64_t seq, size_t *n);

/*
 * Write the @len bytes at @s to @out as a JSON string: quoted, escaped,
 * and with every byte that is not part of valid UTF-8 as U+FFFD, so that
 * no reader refuses the file.  NULL is written as null.
 */
void xp_json_str(FILE *out, const char *s, size_t len);

/* Decimal numbers, written fast. */
void xp_put_u64(FILE *f, uint64_t v);
void xp_put_i64(FILE *f, int64_t v);

/* Value @v of kind @k (sub-kind @sub) as JSON: numbers stay numbers,
 * strings strings, anything else the text records' form as a string. */
void xp_json_val(FILE *f, int k, int sub, const struct tg_val *v);

/* The size of predefined MPI datatype @name, 1 for any other. */
unsigned xp_mpi_type_size(const char *name);

/* A file @path cannot be written: "trace-export: PATH: strerror". */
int xp_write_error(const char *path);

#endif
