/*
 * export-chrome.c - Chrome trace-event JSON (ui.perfetto.dev,
 * chrome://tracing): a process per rank, a thread per traced thread, a
 * complete event per call with all its arguments; flow arrows for the
 * messages and collectives of a happens-before graph (--hb), and a marker
 * on both accesses of every conflicting pair (--conflicts).
 *
 * The events are written by hand: building each through jansson costs
 * more than decoding the record.  Times are microseconds with three
 * decimals, so that nanoseconds survive.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../libcommon/calltab.h"
#include "../libcommon/hb.h"
#include "../libcommon/names.h"
#include "../libcommon/text.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "export.h"
#include "../libcommon/banned.h"

struct chrome {
	FILE *f;
	const struct xopts *o;
	const char *path;
	/* (pid, tid) pairs already named, open addressing; key 0 is empty */
	uint64_t *seen;
	size_t nseen, cap;
	uint64_t last;		/* the key of the last thread named */
	uint64_t events;
	/* --hb: each call node's start (UINT64_MAX until its record came)
	 * and thread */
	const struct tg_hbgraph *g;
	uint64_t *nts;
	uint32_t *ntid;
	/* a threaded rank's nodes (a call's start and end) by seq, made when
	 * its first record comes (tangram-hb(5), Threads) */
	uint32_t **byseq;
};

/* Nanoseconds as microseconds with three decimals. */
static void put_us(FILE *f, uint64_t ns)
{
	unsigned r = (unsigned)(ns % 1000);

	xp_put_u64(f, ns / 1000);
	putc_unlocked('.', f);
	putc_unlocked((char)('0' + r / 100), f);
	putc_unlocked((char)('0' + r / 10 % 10), f);
	putc_unlocked((char)('0' + r % 10), f);
}

static void put_str(FILE *f, const char *s)
{
	xp_json_str(f, s, s ? strlen(s) : 0);
}

/* The event's head: {"ph":"P","pid":..,"tid":..,"ts":.. */
static void head(struct chrome *c, char ph, uint64_t pid, uint64_t tid, uint64_t ts)
{
	FILE *f = c->f;

	fputs_unlocked(c->events++ ? ",\n{\"ph\":\"" : "{\"ph\":\"", f);
	putc_unlocked(ph, f);
	fputs_unlocked("\",\"pid\":", f);
	xp_put_u64(f, pid);
	fputs_unlocked(",\"tid\":", f);
	xp_put_u64(f, tid);
	fputs_unlocked(",\"ts\":", f);
	put_us(f, ts);
}

static uint64_t proc_id(const struct xstream *s)
{
	return s->rank >= 0 ? (uint64_t)s->rank : s->h->pid;
}

/* Add @key (not 0) to the set of names written; 1 if it is new. */
static int seen_add(struct chrome *c, uint64_t key)
{
	size_t i, j, mask;

	if (c->nseen * 2 >= c->cap) {
		uint64_t *old = c->seen;
		size_t ocap = c->cap;
		c->cap = ocap ? 2 * ocap : 1024;
		if (!(c->seen = calloc(c->cap, sizeof(*c->seen))))
			err(TG_EXIT_ERROR, "out of memory");
		for (j = 0; j < ocap; j++) {
			if (!old[j])
				continue;
			for (i = old[j] * 0x9e3779b97f4a7c15u >> 20; c->seen[i & (c->cap - 1)]; i++)
				;
			c->seen[i & (c->cap - 1)] = old[j];
		}
		free(old);
	}
	mask = c->cap - 1;
	for (i = key * 0x9e3779b97f4a7c15u >> 20; c->seen[i & mask]; i++)
		if (c->seen[i & mask] == key)
			return 0;
	c->seen[i & mask] = key;
	c->nseen++;
	return 1;
}

/* Name the process and the thread the first time they show. */
static void name_thread(struct chrome *c, const struct xstream *s, unsigned tid)
{
	uint64_t pid = proc_id(s);

	if (c->last == (pid << 24 | tid) + 1)
		return;
	c->last = (pid << 24 | tid) + 1;
	if (seen_add(c, (pid << 24 | 0xffffff) + 1)) {
		head(c, 'M', pid, tid, 0);
		fputs_unlocked(",\"name\":\"process_name\",\"args\":{\"name\":", c->f);
		if (s->rank >= 0)
			fprintf(c->f, "\"rank %" PRId64 "\"", s->rank);
		else
			fprintf(c->f, "\"pid %" PRIu64 "\"", s->h->pid);
		fputs_unlocked(",\"host\":", c->f);
		put_str(c->f, s->h->host);
		fputs_unlocked(",\"program\":", c->f);
		put_str(c->f, s->h->argc > 0 ? s->h->argv[0] : NULL);
		fputs_unlocked("}}", c->f);
		head(c, 'M', pid, tid, 0);
		fputs_unlocked(",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":", c->f);
		xp_put_u64(c->f, pid);
		fputs_unlocked("}}", c->f);
	}
	if (seen_add(c, (pid << 24 | tid) + 1)) {
		head(c, 'M', pid, tid, 0);
		fprintf(c->f, ",\"name\":\"thread_name\",\"args\":{\"name\":\"thread %u\"}}", tid);
	}
}

static void *chrome_open(const struct xopts *o)
{
	struct chrome *c = calloc(1, sizeof(*c));
	uint64_t i;

	if (!c)
		err(TG_EXIT_ERROR, "out of memory");
	c->o = o;
	c->path = strcmp(o->out, "-") == 0 ? "standard output" : o->out;
	c->f = strcmp(o->out, "-") == 0 ? stdout : fopen(o->out, "w");
	if (!c->f) {
		warn("cannot create '%s'", o->out);
		free(c);
		return NULL;
	}
	setvbuf(c->f, NULL, _IOFBF, 1 << 20);
	if (o->hb) {
		c->g = tg_hb_graph(o->hb);
		c->nts = malloc(c->g->nnodes * sizeof(*c->nts) + 1);
		c->ntid = malloc(c->g->nnodes * sizeof(*c->ntid) + 1);
		if (!c->nts || !c->ntid)
			err(TG_EXIT_ERROR, "out of memory");
		for (i = 0; i < c->g->nnodes; i++)
			c->nts[i] = UINT64_MAX;
	}
	fputs_unlocked("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"trace-export\"},"
		       "\"traceEvents\":[\n", c->f);
	return c;
}

static int chrome_stream(void *x, const struct xstream *s)
{
	(void)x;
	(void)s;
	return 0;
}

static const struct tg_hbgraph *sort_g;

static int cmp_node_seq(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (sort_g->seq[a] != sort_g->seq[b])
		return sort_g->seq[a] < sort_g->seq[b] ? -1 : 1;
	return a < b ? -1 : a > b;	/* in time order: the start first */
}

/* A threaded rank's nodes of record @seq: its start's in @n[0], its end's
 * in @n[1] (-1 if none). */
static void nodes_of(struct chrome *c, int64_t rank, uint64_t seq, int64_t n[2])
{
	const struct tg_hbgraph *g = c->g;
	uint64_t lo = g->rankfirst[rank], cnt = g->rankfirst[rank + 1] - lo, a = 0, b = cnt, i;
	uint32_t *v;

	n[0] = n[1] = -1;
	if (!c->byseq && !(c->byseq = calloc(g->nranks, sizeof(*c->byseq))))
		err(TG_EXIT_ERROR, "out of memory");
	if (!(v = c->byseq[rank])) {
		if (!(v = c->byseq[rank] = malloc(cnt * sizeof(*v) + 1)))
			err(TG_EXIT_ERROR, "out of memory");
		for (i = 0; i < cnt; i++)
			v[i] = (uint32_t)(lo + i);
		sort_g = g;
		qsort(v, cnt, sizeof(*v), cmp_node_seq);
	}
	while (a < b) {
		uint64_t m = a + (b - a) / 2;
		if (g->seq[v[m]] < seq)
			a = m + 1;
		else
			b = m;
	}
	for (i = 0; a + i < cnt && i < 2 && g->seq[v[a + i]] == seq; i++)
		n[i] = v[a + i];
	/* one left (the other had no edge): a start has edges leaving it,
	 * an end only edges entering */
	if (n[0] >= 0 && n[1] < 0 && g->eindex[n[0] + 1] == g->eindex[n[0]]) {
		n[1] = n[0];
		n[0] = -1;
	}
}

/* The call node of record @seq of @rank in the graph, or -1. */
static int64_t node_of(const struct tg_hbgraph *g, int64_t rank, uint64_t seq)
{
	uint64_t lo, hi;

	if (rank < 0 || rank >= g->nranks)
		return -1;
	lo = g->rankfirst[rank];
	hi = g->rankfirst[rank + 1];
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (g->seq[mid] < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->rankfirst[rank + 1] && g->seq[lo] == seq ? (int64_t)lo : -1;
}

/* Markers on an access of conflicting pairs: an instant event, red when
 * the pair is not synchronised, and an arrow from its first access to its
 * second. */
static void conflict_marks(struct chrome *c, const struct xstream *s, const struct tg_rec *r,
			   uint64_t ts)
{
	const uint32_t *e;
	char rk[32];
	size_t n, i;

	xp_rank_label(rk, sizeof(rk), s);
	e = xp_conflicts_at(rk, r->seq, &n);
	for (i = 0; i < n; i++) {
		const struct xpair *p = &c->o->pairs[e[i] / 2];
		const struct xaccess *other = &p->a[1 - e[i] % 2];
		head(c, 'i', proc_id(s), r->tid, ts);
		fprintf(c->f, ",\"s\":\"t\",\"cat\":\"conflict\",\"cname\":\"%s\",\"name\":\"%s-%s %s\","
			"\"args\":{\"pair\":%u,\"file\":", p->synchronized ? "good" : "terrible",
			p->kind, p->procs, p->synchronized ? "synchronized" : "NOT synchronized",
			e[i] / 2);
		put_str(c->f, p->file);
		fprintf(c->f, ",\"other\":\"%s:%" PRIu64 "\",\"bytes\":\"[%" PRId64 ",%" PRId64
			")\",\"synchronized\":%s,\"conflict_posix\":%s,\"conflict_commit\":%s,"
			"\"conflict_session\":%s}}", other->rank, other->seq,
			p->a[e[i] % 2].start, p->a[e[i] % 2].end, p->synchronized ? "true" : "false",
			p->conflict[0] ? "true" : "false", p->conflict[1] ? "true" : "false",
			p->conflict[2] ? "true" : "false");
		head(c, e[i] % 2 ? 'f' : 's', proc_id(s), r->tid, ts);
		fprintf(c->f, ",\"bp\":\"e\",\"cat\":\"conflict\",\"name\":\"conflict\",\"id\":\"c%u\"}",
			e[i] / 2);
	}
}

static int chrome_rec(void *x, const struct xstream *s, const struct tg_rec *r)
{
	struct chrome *c = x;
	const struct tg_calldesc *d = r->call;
	uint64_t ts;
	struct tg_val rv;
	FILE *f = c->f;
	int i;

	if (r->type == TG_REC_REPEAT) {	/* calls folded into the last: one span */
		name_thread(c, s, r->tid);
		head(c, 'X', proc_id(s), r->tid, xp_time(s, r->tstart));
		fputs_unlocked(",\"dur\":", f);
		put_us(f, r->dur);
		fputs_unlocked(",\"cat\":\"repeat\",\"name\":\"repeat\",\"args\":{\"seq\":", f);
		xp_put_u64(f, r->seq);
		fputs_unlocked(",\"count\":", f);
		xp_put_u64(f, r->repeat);
		fputs_unlocked("}}", f);
		return 0;
	}
	if (r->type != TG_REC_CALL)
		return 0;
	name_thread(c, s, r->tid);
	ts = xp_time(s, r->tstart);
	head(c, 'X', proc_id(s), r->tid, ts);
	fputs_unlocked(",\"dur\":", f);
	put_us(f, r->dur);
	fputs_unlocked(",\"cat\":\"", f);
	fputs_unlocked(tg_layer_name(d->layer), f);
	fputs_unlocked("\",\"name\":\"", f);
	fputs_unlocked(d->name, f);
	fputs_unlocked("\",\"args\":{\"seq\":", f);
	xp_put_u64(f, r->seq);
	fputs_unlocked(",\"depth\":", f);
	xp_put_u64(f, r->depth);
	if (r->parent >= 0) {
		fputs_unlocked(",\"parent\":", f);
		xp_put_i64(f, r->parent);
	}
	if (d->retkind != TG_K_VOID) {
		memset(&rv, 0, sizeof(rv));
		rv.i = r->ret;
		fputs_unlocked(",\"ret\":", f);
		xp_json_val(f, d->retkind, d->retsub, &rv);
	}
	if (r->err) {
		const char *en = tg_errno_name(r->err);
		fputs_unlocked(",\"errno\":", f);
		if (en)
			put_str(f, en);
		else
			xp_put_i64(f, r->err);
	}
	for (i = 0; i < d->nargs && i < TG_MAX_ARGS; i++) {
		fputs_unlocked(",\"", f);
		fputs_unlocked(d->args[i].name, f);
		fputs_unlocked("\":", f);
		xp_json_val(f, d->args[i].kind, d->args[i].sub, &r->args[i]);
	}
	fputs_unlocked("}}", f);
	if (c->o->npairs)
		conflict_marks(c, s, r, ts);
	if (c->g && d->hb && s->rank >= 0 && s->rank < c->g->nranks &&
	    (c->g->rankinfo[s->rank].flags & TG_HBR_THREADS)) {
		int64_t n[2];
		nodes_of(c, s->rank, r->seq, n);
		for (i = 0; i < 2; i++)
			if (n[i] >= 0) {
				c->nts[n[i]] = i ? ts + r->dur : ts;
				c->ntid[n[i]] = r->tid;
			}
	} else if (c->g && d->hb) {
		int64_t n = node_of(c->g, s->rank, r->seq);
		if (n >= 0) {
			c->nts[n] = ts;
			c->ntid[n] = r->tid;
		}
	}
	return 0;
}

static void flow(struct chrome *c, uint64_t e, const char *kind, uint64_t from, uint64_t to)
{
	const struct tg_hb *hb = c->o->hb;

	head(c, 's', tg_hb_node_rank(hb, from), c->ntid[from], c->nts[from]);
	fprintf(c->f, ",\"bp\":\"e\",\"cat\":\"%s\",\"name\":\"%s\",\"id\":%" PRIu64 "}", kind, kind, e);
	head(c, 'f', tg_hb_node_rank(hb, to), c->ntid[to], c->nts[to]);
	fprintf(c->f, ",\"bp\":\"e\",\"cat\":\"%s\",\"name\":\"%s\",\"id\":%" PRIu64 "}", kind, kind, e);
}

/* The first member of collective @x (an extra node) it releases. */
static int64_t hub_of(const struct tg_hbgraph *g, uint64_t x)
{
	uint64_t e;

	for (e = g->eindex[x]; e < g->eindex[x + 1]; e++)
		if (g->ekind[e] == TG_HBE_RELEASE && g->etarget[e] < g->nnodes)
			return g->etarget[e];
	return -1;
}

/* The graph's edges between calls whose records came, as arrows; a
 * collective met through an extra node as arrows from each member to
 * the first one (an arrow per member, not one per pair). */
static void flows(struct chrome *c)
{
	const struct tg_hbgraph *g = c->g;
	uint64_t n, e;

	for (n = 0; n < g->nnodes; n++) {
		if (c->nts[n] == UINT64_MAX)
			continue;
		for (e = g->eindex[n]; e < g->eindex[n + 1]; e++) {
			uint64_t t = g->etarget[e];
			int64_t hub;
			if (t < g->nnodes) {
				if (c->nts[t] != UINT64_MAX)
					flow(c, e, tg_hb_edge_name(g->ekind[e]), n, t);
			} else if (g->ekind[e] == TG_HBE_GATHER && (hub = hub_of(g, t)) >= 0 &&
				   (uint64_t)hub != n && c->nts[hub] != UINT64_MAX) {
				flow(c, e, "collective", n, (uint64_t)hub);
			}
		}
	}
}

static int chrome_close(void *x, int ok)
{
	struct chrome *c = x;
	int rc = 0;
	uint32_t i;

	(void)ok;
	if (c->g)
		flows(c);
	fputs_unlocked("\n]}\n", c->f);
	if (fflush(c->f) != 0 || ferror(c->f))
		rc = xp_write_error(c->path);
	if (c->f != stdout && fclose(c->f) != 0 && rc == 0)
		rc = xp_write_error(c->path);
	if (c->f == stdout && rc == 0)
		tg_close_stdout();
	free(c->seen);
	free(c->nts);
	free(c->ntid);
	if (c->byseq)
		for (i = 0; i < c->g->nranks; i++)
			free(c->byseq[i]);
	free(c->byseq);
	free(c);
	return rc;
}

const struct exporter tg_export_chrome = {
	"chrome", chrome_open, chrome_stream, chrome_rec, chrome_close,
};
