/*
 * report.h - what trace-report keeps of a trace, and the pieces that turn
 * it into HTML.  Everything is bounded by files, ranks and bins: a record
 * is added to counters and binned, never kept.  The run (struct rp_run)
 * owns every table and string in it; rp_run_release() frees them.
 */
#ifndef TG_REPORT_H
#define TG_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "../libcommon/tg.h"

#define RP_TBINS 96	/* time bins of the run */
#define RP_OBINS 48	/* offset bins of a file */
#define RP_SIZEB 10	/* access-size buckets (Darshan's) */
#define RP_ROWS 64	/* at most this many rank rows in a chart */
#define RP_TOPF 8	/* files that get an access-pattern chart */
#define RP_TOPN 32	/* rows of the per-file and per-rank tables */

enum { RP_R = 0, RP_W = 1 };

/* Counters a file and a rank both have. */
struct rp_acc {
	uint64_t bytes[2], ops[2];	/* outermost data calls: [RP_R], [RP_W] */
	uint64_t size[2][RP_SIZEB];	/* their sizes */
	uint64_t consec, seq, rnd;	/* each access against the handle's last */
	uint64_t meta;			/* I/O calls that move no data */
	uint64_t ns[TG_LAYER_COUNT];	/* time in I/O calls, per layer */
	uint64_t calls[TG_LAYER_COUNT];	/* calls of any kind, per layer */
};

struct rp_file {
	char *path;
	struct rp_acc a;
	int64_t slow_rank;	/* the rank that spent most time on it */
	uint64_t slow_ns;
	uint64_t maxend;	/* largest end offset seen */
	uint64_t obin;		/* bytes per offset bin, a power of two */
	uint32_t *cnt[2];	/* [RP_OBINS][RP_TBINS] accesses, or NULL */
	uint64_t *rsum[2];	/* the same cells: sum of the ranks */
	/* until a file has RP_SPARSE cells (most files of a run of many
	 * have a few), its cells are a list instead: cnt is NULL then */
	struct rp_cell {
		uint32_t cell, cnt;
		uint64_t rsum;
	} *sp[2];
	uint32_t nsp[2];
};

#define RP_SPARSE 64

struct rp_rank {
	int64_t rank;		/* -1 for a process that never had one */
	uint64_t pid;
	int host;		/* index in rp_run.hosts */
	struct rp_acc a;
	uint64_t end;		/* last call's end, ns after time zero */
	uint64_t bytes[2][RP_TBINS];	/* bytes read and written per time bin */
	uint32_t meta[RP_TBINS];	/* metadata calls per time bin */
};

/* Conflicts of one file, from conflict-check --json. */
struct rp_cfile {
	char *path;
	uint64_t pairs[2][2];	/* [RAW/WAW][same/different process] */
	uint64_t unsync[2][2];	/* concurrent pairs: nothing orders them */
	uint64_t by[3];		/* safe by order, by a commit, by close-to-open */
	uint64_t conf[3][2][2];	/* conflicting under posix, commit, session */
};

struct rp_cpair {
	int64_t a, b;		/* the ranks (-1: not a rank) */
	uint32_t file;		/* index in rp_run.cfiles */
	uint64_t n, unsync;
};

#define RP_CPAIRS 4096

struct rp_run {
	uint64_t zero;		/* CLOCK_REALTIME ns of time zero */
	uint64_t end;		/* last end of any call, ns after zero */
	uint64_t bin;		/* ns per time bin, a power of two */
	uint64_t records, calls[TG_LAYER_COUNT], streams;
	uint64_t world;
	char *program;		/* argv of the first stream, joined */
	char **hosts;
	size_t nhosts;
	struct rp_rank *ranks;
	size_t nranks;
	struct rp_file *files;
	size_t nfiles, fcap;
	uint32_t *fhash;	/* index + 1 into files, open addressing */
	size_t fhcap;
	uint64_t *funcs;	/* calls per function id */
	unsigned nfuncs;
	int damaged;		/* an input could not be read to its end */
	/* conflicts, when given */
	int have_conf;
	char *recommended;
	char *ordered_by;
	struct rp_cfile *cfiles;
	size_t ncfiles;
	struct rp_cpair cpairs[RP_CPAIRS];
	size_t ncpairs;
	uint64_t cpairs_other;
};

/* trace-report.c: the file of @path, added if new; returns its index. */
uint32_t rp_file_of(struct rp_run *run, const char *path);

/* report-conf.c: read conflict-check --json output from @path into @run.
 * Returns 0, or -1 with a one-line message in @msg. */
int rp_conf_read(struct rp_run *run, const char *path, char *msg, size_t msglen);

/* report-html.c: write the whole report of @run to @out (errors are
 * left in @out's error flag). */
void rp_html_write(FILE *out, const struct rp_run *run);

/* report-svg.c: chart primitives.  Everything goes to @out. */
void svg_open(FILE *out, const char *id, int w, int h, const char *label);
void svg_close(FILE *out);
void svg_text(FILE *out, double x, double y, const char *anchor, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void svg_line(FILE *out, double x1, double y1, double x2, double y2, const char *stroke);
void svg_rect(FILE *out, double x, double y, double w, double h, const char *fill,
	      const char *title);
/* A grid of @ncol x @nrow cells at (@x, @y), each @cw x @ch, whose class
 * @cls[row * ncol + col] (0: empty, else 1..@nclass) picks colour
 * @colors[class - 1]: one path per class, never one element per cell. */
void svg_grid(FILE *out, double x, double y, double cw, double ch, int ncol, int nrow,
	      const uint8_t *cls, int nclass, const char *const *colors,
	      const char *const *titles);
/* A time axis of @w pixels at (@x, @y) for @ns nanoseconds. */
void svg_taxis(FILE *out, double x, double y, double w, uint64_t ns);
/* Text with <, >, & and " escaped. */
void html_esc(FILE *out, const char *s);
/* "1.5 MiB", "12 B" into @buf. */
const char *fmt_bytes(char *buf, size_t len, uint64_t n);
/* "1.234 s", "15 ms" into @buf. */
const char *fmt_ns(char *buf, size_t len, uint64_t ns);
/* The colour of rank class @k of @n (a blue-to-red ramp). */
const char *rank_color(int k);
#define RP_RANKCOLORS 12

#endif
