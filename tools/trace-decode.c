/*
 * trace-decode - print Tangram traces as text records, one call per line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../libcommon/cfg.h"
#include "../libcommon/rec.h"
#include "../libcommon/runs.h"
#include "../libcommon/stream.h"
#include "../libcommon/text.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "../libcommon/banned.h"

static const char usage_text[] =
	"usage: trace-decode [-hjt] [-l layers] [-r ranks] [file ...]\n";

/* -r, --rank, --ranks: the ranks to decode, as ranges; none: all */
static struct { int64_t lo, hi; } sel[256];
static int nsel;
static char sel_text[256];	/* as given, for the message when none is found */
static size_t nchosen;		/* streams decoded (by the decoding thread) */

static void parse_ranks(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL, *dash;

	if (!copy)
		err(TG_EXIT_ERROR, "out of memory");
	snprintf(sel_text + strlen(sel_text), sizeof(sel_text) - strlen(sel_text), "%s%s",
		 *sel_text ? "," : "", s);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (nsel == (int)(sizeof(sel) / sizeof(sel[0])))
			errx(TG_EXIT_ERROR, "option -r: too many ranges");
		dash = strchr(tok, '-');
		if (dash)
			*dash = 0;
		sel[nsel].lo = tg_strtonum(tok, 0, INT32_MAX, "option -r");
		sel[nsel].hi = dash ? tg_strtonum(dash + 1, sel[nsel].lo, INT32_MAX, "option -r")
				    : sel[nsel].lo;
		nsel++;
	}
	free(copy);
}

static int selected(int64_t rank)
{
	int i;

	for (i = 0; i < nsel; i++)
		if (rank >= sel[i].lo && rank <= sel[i].hi)
			return 1;
	return nsel == 0;
}

/* The rank of a record stream with no rank in its header: that of its
 * first RANK record, read ahead from the file at @path (-1 if none). */
static int64_t rank_ahead(const char *path)
{
	struct tg_stream *s = tg_stream_open(path, "r");
	struct tg_reader *r;
	struct tg_rec rec;
	int64_t rank = -1;
	char msg[256];

	if (s && (r = tg_reader_open(s, msg, sizeof(msg)))) {
		while (tg_reader_next(r, &rec) > 0)
			if (rec.type == TG_REC_RANK) {
				rank = rec.rank;
				break;
			}
		tg_reader_free(r);
	}
	tg_stream_close(s);
	return rank;
}

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

static unsigned parse_layers(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;
	unsigned mask = 0;

	if (!copy)
		err(TG_EXIT_ERROR, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int l = tg_layer_parse(tok);
		if (l < 0)
			errx(TG_EXIT_ERROR, "option -l: unknown layer '%s' (posix, stdio, mpi, mpiio, hdf5)", tok);
		mask |= 1u << l;
	}
	free(copy);
	return mask;
}

/* The rank of the record stream at @path whose header says @rank: a
 * regular file with no rank in its header is read ahead. */
static int64_t stream_rank(const char *path, int64_t rank)
{
	struct stat st;

	if (rank >= 0 || strcmp(path, "-") == 0 || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return rank;
	return rank_ahead(path);
}

/* ---- runs ------------------------------------------------------------------
 *
 * Streams of more than one run are numbered run-major (runs.h); #run lines
 * say which global ranks each run has.
 */
static struct tg_runs runs;

static void out_text(const char *text);

static uint64_t hrun(const struct tg_header *h)
{
	return tg_run_of(h);
}

static void note_run(const struct tg_header *h)
{
	if (tg_runs_note(&runs, h) < 0)
		errx(TG_EXIT_ERROR, "streams of more than %d runs", TG_MAXRUNS);
}

/* Number the runs noted, once; print their #run lines if there are two
 * or more. */
static void number_runs(const struct tg_textopts *o)
{
	char line[160];
	int i;

	if (runs.numbered)
		return;
	tg_runs_number(&runs);
	for (i = 0; runs.n > 1 && i < runs.n; i++) {
		snprintf(line, sizeof(line),
			 o->json ? "{\"def\":\"run\",\"run\":%" PRIu64 ",\"first\":%" PRId64
				   ",\"world\":%" PRIu64 "}\n"
				 : "#run\trun=%" PRIu64 "\tfirst=%" PRId64 "\tworld=%" PRIu64 "\n",
			 runs.v[i].run, runs.v[i].first, runs.v[i].world);
		out_text(line);
	}
}

/* The first global rank of run @run: 0 when only one run is known. */
static int64_t run_first(uint64_t run)
{
	return tg_runs_first(&runs, run);
}

/* The global rank of stream @cs of a .cfg, -1 for a process without one. */
static int64_t cfg_rank(const struct tg_cfg_stream *cs)
{
	return cs->rank >= 0 ? run_first(hrun(&cs->h)) + cs->rank : -1;
}

/* Smallest clock base of the named files, so all print on one time axis. */
static uint64_t common_zero(int n, char **files)
{
	uint64_t zero = UINT64_MAX;
	char msg[256];
	int i;

	for (i = 0; i < n; i++) {
		struct tg_stream *s;
		struct tg_reader *r;
		struct stat st;
		/* a pipe or fifo can be read only once: it joins when decoded */
		if (strcmp(files[i], "-") == 0 || stat(files[i], &st) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (!(s = tg_stream_open(files[i], "r")))
			continue;
		if (tg_stream_peek(s, msg, TG_CFG_MAGIC_LEN) == TG_CFG_MAGIC_LEN &&
		    tg_cfg_is_magic(msg, TG_CFG_MAGIC_LEN)) {
			/* a lone compressed trace finds its zero and its runs
			 * itself, without being read twice */
			if (n == 1) {
				tg_stream_close(s);
				continue;
			}
			struct tg_cfg *c = tg_cfg_read(s, msg, sizeof(msg));
			size_t k;
			for (k = 0; c && k < tg_cfg_nstreams(c); k++)
				note_run(&tg_cfg_stream(c, k)->h);
			for (k = 0; c && k < tg_cfg_nstreams(c); k++)
				if (selected(tg_cfg_stream(c, k)->rank) &&
				    tg_cfg_stream(c, k)->h.clock_base < zero)
					zero = tg_cfg_stream(c, k)->h.clock_base;
			tg_cfg_free(c);
		} else if ((r = tg_reader_open(s, msg, sizeof(msg)))) {
			note_run(tg_reader_header(r));
			if ((!nsel || selected(stream_rank(files[i], tg_reader_header(r)->rank))) &&
			    tg_reader_header(r)->clock_base < zero)
				zero = tg_reader_header(r)->clock_base;
			tg_reader_free(r);
		}
		tg_stream_close(s);
	}
	return zero;
}

/* ---- decoding ahead of printing ---------------------------------------------
 *
 * Turning records into text costs more than decoding them.  With more than
 * one CPU and regular files as inputs, a second thread decodes into batches
 * of self-contained copies (strings and arrays in the batch's arena) while
 * the main thread prints them, in the same order and with the same result.
 * Without it (one CPU, a pipe) the decoder prints directly.
 */

enum { IT_REC, IT_TEXT, IT_WARN };

struct item {
	int kind;
	uint64_t zero;		/* IT_REC: the time zero when it was decoded */
	struct tg_header h;	/* IT_REC: rank, pid and clock base only */
	const char *text;	/* IT_TEXT, IT_WARN: in the arena */
	struct tg_rec rec;
};

struct chunk {
	struct chunk *next;
	size_t used, cap;
	max_align_t data[];
};

#define BATCH_ITEMS 1024
#define NBATCHES 4

struct batch {
	struct item it[BATCH_ITEMS];
	size_t n;
	struct chunk *arena;
};

static struct {
	int on;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch *b[NBATCHES];
	size_t head, tail;	/* batches filled: [head, tail) in ring order */
	int done;
	struct batch *cur;	/* the producer's */
} pl = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static void *arena_alloc(struct batch *b, size_t n)
{
	struct chunk *c = b->arena;
	void *p;

	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		if (!(c = malloc(sizeof(*c) + cap)))
			err(TG_EXIT_ERROR, "out of memory");
		c->cap = cap;
		c->used = 0;
		c->next = b->arena;
		b->arena = c;
	}
	p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

static void arena_reset(struct batch *b)
{
	struct chunk *c = b->arena, *n;

	while (c && c->next) {	/* keep one chunk, the first made */
		n = c->next;
		free(c);
		c = n;
	}
	if (c)
		c->used = 0;
	b->arena = c;
	b->n = 0;
}

static const char *arena_str(struct batch *b, const char *s)
{
	size_t n;
	char *p;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	p = arena_alloc(b, n);
	memcpy(p, s, n);
	return p;
}

/* The producer's next free item, handing full batches over. */
static struct item *pl_item(void)
{
	struct batch *b = pl.cur;

	if (b && b->n < BATCH_ITEMS)
		return &b->it[b->n++];
	pthread_mutex_lock(&pl.mu);
	if (b) {
		pl.tail++;
		pthread_cond_broadcast(&pl.cv);
	}
	while (pl.tail - pl.head == NBATCHES)
		pthread_cond_wait(&pl.cv, &pl.mu);
	b = pl.cur = pl.b[pl.tail % NBATCHES];
	pthread_mutex_unlock(&pl.mu);
	arena_reset(b);
	return &b->it[b->n++];
}

static void pl_text(int kind, const char *text)
{
	struct item *it = pl_item();

	it->kind = kind;
	it->text = arena_str(pl.cur, text);
}

static void out_rec1(const struct tg_header *h, const struct tg_rec *r, const struct tg_textopts *o);

/* A record of a stream whose ranks start at @first: its rank, and the
 * world ranks of a communicator's members, moved by @first. */
static void out_rec(const struct tg_header *h0, const struct tg_rec *r0, const struct tg_textopts *o,
		    int64_t first)
{
	struct tg_header h;
	struct tg_rec r;
	int64_t *m[2] = { NULL, NULL };
	int i, k;

	if (!first) {
		out_rec1(h0, r0, o);
		return;
	}
	h = *h0;
	if (h.rank >= 0)
		h.rank += first;
	if (r0->type != TG_REC_RANK && r0->type != TG_REC_COMM) {
		out_rec1(&h, r0, o);
		return;
	}
	r = *r0;
	if (r.type == TG_REC_RANK)
		r.rank += first;
	for (k = 0; r.type == TG_REC_COMM && k < 2; k++) {
		struct tg_val *v = &r.args[1 + k];
		if (!v->arr || v->i <= 0)
			continue;
		if (!(m[k] = malloc((size_t)v->i * sizeof(int64_t))))
			err(TG_EXIT_ERROR, "out of memory");
		for (i = 0; i < v->i; i++)
			m[k][i] = v->arr[i] >= 0 ? v->arr[i] + first : v->arr[i];
		v->arr = m[k];
	}
	out_rec1(&h, &r, o);
	free(m[0]);
	free(m[1]);
}

/* Print a record now, or queue a copy of it. */
static void out_rec1(const struct tg_header *h, const struct tg_rec *r, const struct tg_textopts *o)
{
	struct item *it;
	struct batch *b;
	int i, n;

	if (!pl.on) {
		tg_text_rec(stdout, h, r, o);
		return;
	}
	it = pl_item();
	b = pl.cur;
	it->kind = IT_REC;
	it->zero = o->zero;
	it->h.rank = h->rank;
	it->h.pid = h->pid;
	it->h.clock_base = h->clock_base;
	n = r->type == TG_REC_CALL ? (r->call->nargs < TG_MAX_ARGS ? r->call->nargs : TG_MAX_ARGS)
				   : TG_MAX_ARGS;
	memcpy(&it->rec, r, offsetof(struct tg_rec, args) + (size_t)n * sizeof(struct tg_val));
	memcpy((char *)&it->rec + offsetof(struct tg_rec, rank), (const char *)r + offsetof(struct tg_rec, rank),
	       sizeof(*r) - offsetof(struct tg_rec, rank));
	for (i = 0; i < n; i++) {
		struct tg_val *v = &it->rec.args[i];
		if (v->s)
			v->s = arena_str(b, v->s);
		if (v->arr && v->i > 0) {
			size_t k = (size_t)v->i;
			int64_t *a;
			if (r->type == TG_REC_CALL && r->call->args[i].kind == TG_K_MPISTATUSES)
				k *= 2;
			a = arena_alloc(b, k * sizeof(int64_t));
			memcpy(a, v->arr, k * sizeof(int64_t));
			v->arr = a;
		}
	}
	if (r->type == TG_REC_INFO && r->kv && r->args[1].i > 0) {
		size_t k = 2 * (size_t)r->args[1].i, j;
		const char **kv = arena_alloc(b, k * sizeof(char *));
		for (j = 0; j < k; j++)
			kv[j] = arena_str(b, r->kv[j]);
		it->rec.kv = kv;
	}
}

/* Print a stream's #proc line now, or queue it as text; its rank moved
 * by @first. */
static void out_proc(const struct tg_header *h0, const struct tg_textopts *o, int64_t first)
{
	struct tg_header hh = *h0, *h = &hh;
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	if (hh.rank >= 0)
		hh.rank += first;

	if (!pl.on) {
		tg_text_proc(stdout, h, o);
		return;
	}
	if (!(m = open_memstream(&text, &len)))
		err(TG_EXIT_ERROR, "out of memory");
	tg_text_proc(m, h, o);
	fclose(m);
	pl_text(IT_TEXT, text);
	free(text);
}

/* Print text now, or queue it. */
static void out_text(const char *text)
{
	if (!pl.on)
		fputs(text, stdout);
	else
		pl_text(IT_TEXT, text);
}

/* Report an error now (after what has been printed), or queue it. */
static void out_warn(const char *fmt, ...)
{
	va_list ap;
	char msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!pl.on) {
		fflush(stdout);
		warnx("%s", msg);
		return;
	}
	pl_text(IT_WARN, msg);
}

/* The consumer: print batches in order until the producer is done. */
static void pl_print(const struct tg_textopts *o0)
{
	struct tg_textopts o = *o0;
	struct batch *b;
	size_t i;

	for (;;) {
		pthread_mutex_lock(&pl.mu);
		while (pl.head == pl.tail && !pl.done)
			pthread_cond_wait(&pl.cv, &pl.mu);
		if (pl.head == pl.tail) {
			pthread_mutex_unlock(&pl.mu);
			return;
		}
		b = pl.b[pl.head % NBATCHES];
		pthread_mutex_unlock(&pl.mu);
		for (i = 0; i < b->n; i++) {
			struct item *it = &b->it[i];
			switch (it->kind) {
			case IT_REC:
				o.zero = it->zero;
				tg_text_rec(stdout, &it->h, &it->rec, &o);
				break;
			case IT_TEXT:
				fputs(it->text, stdout);
				break;
			case IT_WARN:
				fflush(stdout);
				warnx("%s", it->text);
				break;
			}
		}
		pthread_mutex_lock(&pl.mu);
		pl.head++;
		pthread_cond_broadcast(&pl.cv);
		pthread_mutex_unlock(&pl.mu);
	}
}

/* Is @r printed under -l and -t?  A REPEAT is when the call it repeats
 * was: @shown says, per thread (the first TG_SHOWN of each stream), whether
 * the thread's last call was printed. */
#define TG_SHOWN 4096
static int kept(const struct tg_rec *r, unsigned layers, int top, unsigned char *shown)
{
	int keep;

	if (r->type == TG_REC_REPEAT)
		return r->tid >= TG_SHOWN || shown[r->tid];
	if (r->type != TG_REC_CALL)
		return 1;
	keep = (layers & (1u << r->call->layer)) && !(top && !tg_rec_top(r));
	if (r->tid < TG_SHOWN)
		shown[r->tid] = (unsigned char)keep;
	return keep;
}

/* Do the selected streams of @c whose times are aggregate all have the
 * exact times of the calls whose order between processes counts (a file
 * of version 12 or before kept none)? */
static int anchored(const struct tg_cfg *c)
{
	size_t i;

	for (i = 0; i < tg_cfg_nstreams(c); i++) {
		const struct tg_cfg_stream *cs = tg_cfg_stream(c, i);
		if (selected(cfg_rank(cs)) && cs->timing == TG_CFG_AGGREGATE && !cs->anchored)
			return 0;
	}
	return 1;
}

/* Decode the selected streams of a compressed trace, as decode() does a
 * record stream, up to the first damaged one; returns 0, or -1 after
 * reporting an error. */
static int decode_cfg(struct tg_stream *s, struct tg_textopts *o, unsigned layers, int top)
{
	unsigned char shown[TG_SHOWN];
	struct tg_cfg *c;
	struct tg_rec rec;
	char msg[256];
	size_t i;
	int rc = 0, stopped = 0;

	if (!(c = tg_cfg_read(s, msg, sizeof(msg)))) {
		out_warn("%s: %s", tg_stream_name(s), msg);
		return -1;
	}
	if (!runs.numbered) {	/* the lone input: its runs */
		for (i = 0; i < tg_cfg_nstreams(c); i++)
			note_run(&tg_cfg_stream(c, i)->h);
		number_runs(o);
	}
	for (i = 0; i < tg_cfg_nstreams(c); i++)	/* all streams on one time axis */
		if (selected(cfg_rank(tg_cfg_stream(c, i))) &&
		    tg_cfg_stream(c, i)->h.clock_base < o->zero)
			o->zero = tg_cfg_stream(c, i)->h.clock_base;
	for (i = 0; i < tg_cfg_nstreams(c); i++) {
		/* times rebuilt, not the run's: said once, before the rest */
		static const char *const modes[] = { "aggregate", "lossless", "binned", "hist" };
		int t = tg_cfg_stream(c, i)->timing;
		char line[128];
		if (t == TG_CFG_LOSSLESS ||
		    !selected(cfg_rank(tg_cfg_stream(c, i))))
			continue;
		snprintf(line, sizeof(line), o->json ? "{\"def\":\"timing\",\"mode\":\"%s\"%s}\n"
						     : "#timing\tmode=%s%s\n",
			 t >= 0 && t < 4 ? modes[t] : "other",
			 !anchored(c) ? "" : o->json ? ",\"anchored\":1" : "\tanchored=1");
		out_text(line);
		break;
	}
	for (i = 0; i < tg_cfg_nstreams(c); i++) {
		const struct tg_cfg_stream *cs = tg_cfg_stream(c, i);
		int64_t first = run_first(hrun(&cs->h));
		struct tg_cfg_cursor *k;
		int n;
		if (!selected(cfg_rank(cs)))
			continue;
		nchosen++;
		if (!(k = tg_cfg_cursor_open(c, i, msg, sizeof(msg)))) {
			out_warn("%s: %s", tg_stream_name(s), msg);
			rc = -1;
			break;
		}
		if (o->zero == UINT64_MAX || cs->h.clock_base < o->zero)
			o->zero = cs->h.clock_base;
		out_proc(tg_cfg_cursor_header(k), o, first);
		memset(shown, 0, sizeof(shown));
		while ((n = tg_cfg_cursor_next(k, &rec)) > 0)
			if (kept(&rec, layers, top, shown))
				out_rec(tg_cfg_cursor_header(k), &rec, o, first);
		if (n < 0) {
			out_warn("%s: %s", tg_stream_name(s), tg_cfg_cursor_error(k));
			rc = -1;
		}
		tg_cfg_cursor_free(k);
		if (rc < 0)	/* the file is damaged: one error for it */
			break;
		if (cs->h.flags & TG_HDR_STOPPED) {	/* as a .rec says it */
			out_warn("%s: stream %zu (%s %lld): incomplete: its process's last calls "
				 "are missing (the tracer stopped, or the stream lost what its "
				 "process had not written out when it was killed)",
				 tg_stream_name(s), i, cs->rank >= 0 ? "rank" : "pid",
				 (long long)(cs->rank >= 0 ? cs->rank : (int64_t)cs->h.pid));
			stopped = 1;
		}
	}
	tg_cfg_free(c);
	return rc < 0 || stopped ? -1 : 0;
}

/* Decode one input; returns 0, or -1 after reporting an error. */
static int decode(const char *path, struct tg_textopts *o, unsigned layers, int top)
{
	unsigned char shown[TG_SHOWN] = { 0 };
	struct tg_stream *s;
	struct tg_reader *r;
	struct tg_rec rec;
	char msg[256];
	int64_t first;
	int rc;

	s = tg_stream_open(path, "r");
	if (!s) {
		out_warn("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (tg_stream_peek(s, msg, TG_CFG_MAGIC_LEN) == TG_CFG_MAGIC_LEN &&
	    tg_cfg_is_magic(msg, TG_CFG_MAGIC_LEN)) {
		rc = decode_cfg(s, o, layers, top);
		tg_stream_close(s);
		return rc;
	}
	r = tg_reader_open(s, msg, sizeof(msg));
	if (!r) {
		out_warn("%s: %s", tg_stream_name(s), msg);
		tg_stream_close(s);
		return -1;
	}
	first = run_first(hrun(tg_reader_header(r)));
	if (nsel && !selected(stream_rank(path, tg_reader_header(r)->rank) >= 0 ?
			      first + stream_rank(path, tg_reader_header(r)->rank) : -1)) {
		tg_reader_free(r);
		tg_stream_close(s);
		return 0;
	}
	nchosen++;
	if (o->zero == UINT64_MAX || tg_reader_header(r)->clock_base < o->zero)
		o->zero = tg_reader_header(r)->clock_base;
	out_proc(tg_reader_header(r), o, first);
	while ((rc = tg_reader_next(r, &rec)) > 0)
		if (kept(&rec, layers, top, shown))
			out_rec(tg_reader_header(r), &rec, o, first);
	if (rc < 0)
		out_warn("%s: %s", tg_stream_name(s), tg_reader_error(r));
	if (rc >= 0 && tg_reader_skipped(r))	/* one line per error */
		out_warn("%s: %llu records of functions unknown to this version skipped",
		      tg_stream_name(s), (unsigned long long)tg_reader_skipped(r));
	tg_reader_free(r);
	tg_stream_close(s);
	return rc < 0 ? -1 : 0;
}

static struct job {
	int argc;
	char **argv;
	struct tg_textopts *o;
	unsigned layers;
	int top, status;
} job;

static void decode_all(void)
{
	int i;

	for (i = 0; i < job.argc; i++)
		if (decode(job.argv[i], job.o, job.layers, job.top) < 0)
			job.status = TG_EXIT_ERROR;
}

static void *producer(void *arg)
{
	(void)arg;
	decode_all();
	pthread_mutex_lock(&pl.mu);
	if (pl.cur && pl.cur->n)
		pl.tail++;
	pl.done = 1;
	pthread_cond_broadcast(&pl.cv);
	pthread_mutex_unlock(&pl.mu);
	return NULL;
}

/* Decode ahead only with a second CPU, and only from regular files: from
 * a pipe, a record would wait for a batch to fill before it is printed. */
static int pipeline_fits(int n, char **files)
{
	struct stat st;
	int i;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || getenv("TG_DECODE_SERIAL"))
		return 0;
	for (i = 0; i < n; i++)
		if (strcmp(files[i], "-") == 0 || (stat(files[i], &st) == 0 && !S_ISREG(st.st_mode)))
			return 0;	/* (a file that is not there is an error in its turn) */
	return 1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "layer", required_argument, NULL, 'l' },
		{ "rank", required_argument, NULL, 'r' },
		{ "ranks", required_argument, NULL, 'r' },
		{ "top", no_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct tg_textopts o = { 0, UINT64_MAX };
	unsigned layers = (1u << TG_LAYER_COUNT) - 1;
	char *dash[] = { "-" };
	int c, i, top = 0, status = TG_EXIT_OK;

	while ((c = getopt_long(argc, argv, "hjl:r:t", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(TG_EXIT_OK);
			break;
		case 'j':
			o.json = 1;
			break;
		case 'l':
			layers = parse_layers(optarg);
			break;
		case 'r':
			parse_ranks(optarg);
			break;
		case 't':
			top = 1;
			break;
		default:
			usage(TG_EXIT_ERROR);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		argc = 1;
		argv = dash;
	}
	o.zero = common_zero(argc, argv);
	if (runs.n || argc > 1)	/* a lone .cfg numbers its runs as it is read */
		number_runs(&o);
	job = (struct job){ argc, argv, &o, layers, top, TG_EXIT_OK };
	if (pipeline_fits(argc, argv)) {
		struct tg_textopts po = o;	/* the printer's; zero comes per record */
		pthread_t t;

		pl.on = 1;
		for (i = 0; i < NBATCHES; i++)
			if (!(pl.b[i] = calloc(1, sizeof(*pl.b[i]))))
				err(TG_EXIT_ERROR, "out of memory");
		if ((errno = pthread_create(&t, NULL, producer, NULL)) != 0)
			err(TG_EXIT_ERROR, "cannot start a thread");
		pl_print(&po);
		pthread_join(t, NULL);
		for (i = 0; i < NBATCHES; i++) {
			arena_reset(pl.b[i]);
			free(pl.b[i]->arena);
			free(pl.b[i]);
		}
	} else {
		decode_all();
	}
	status = job.status;
	/* a mistyped rank would look like a run without calls */
	if (nsel && !nchosen && status == TG_EXIT_OK) {
		warnx("option -r: no stream of the input has a rank in '%s'", sel_text);
		status = TG_EXIT_ERROR;
	}
	tg_close_stdout();
	return status;
}
