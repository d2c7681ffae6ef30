/*
 * conflict-check - which consistency model does this run need?  Reads the
 * overlapping pairs and the open/close/commit events that overlap-find
 * wrote, classifies every pair as RAW or WAW by the same (S) or different
 * (D) processes, and decides for each of the POSIX, commit and session
 * models whether the pair conflicts (dissertation §4.3.2), and for MPI-IO
 * layer pairs under MPI-IO semantics too (MPI 4.1 §14.6.1): ordered by the
 * calls' timestamps, or with --hb by the happens-before graph of hb-build,
 * in which case it also says whether the pair is properly synchronised.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../libcommon/calltab.h"
#include "../libcommon/hb.h"
#include "../libcommon/tg.h"
#include "../libcommon/textin.h"
#include "../libcommon/util.h"
#include "../libcommon/banned.h"

static const char usage_text[] =
	"usage: conflict-check [-hjv] [--hb graph] [--model posix|commit|session|mpiio|all]\n"
	"                      [--recommend] [--sites] [--strict] [--fail-on-unsynchronized]\n"
	"                      [--force] [file]\n";

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

static const char *input_name = "standard input";
static long lineno;

static void die_input(const char *what)
{
	fflush(stdout);
	errx(TG_EXIT_ERROR, "%s:%ld: %s", input_name, lineno, what);
}

#define xrealloc tg_xrealloc
#define xstrdup tg_xstrdup

static int streq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* ---- files and events ------------------------------------------------------- */

enum { EV_OPEN, EV_CLOSE, EV_COMMIT, EV_ATOMIC, EV_NONATOMIC, EV_KINDS };
static const char *ev_names[EV_KINDS] = { "open", "close", "commit", "atomic", "nonatomic" };

struct event {
	int64_t t;
	uint64_t seq;
	int64_t open;		/* atomic: the open whose handles it is of
				 * (open=), or -1 */
	int before;		/* open: of a descriptor the process inherited
				 * (inherited=1), there before its record seq */
	char *orank;		/* and the process and seq of the open that made
				 * that description (origin=, originseq=), or
				 * NULL */
	uint64_t oseq;
};

/* The events of one process on one file, by kind, in time order. */
struct evlist {
	uint32_t file;
	char *rank;
	struct event *ev[EV_KINDS];
	size_t n[EV_KINDS], cap[EV_KINDS];
	struct event *byseq[EV_KINDS];	/* the same by seq, for --hb */
};

static struct evlist *evl;
static size_t nevl, capevl;
static char **paths;
static size_t npaths;

/*
 * Where the entry of (file, rank) is in an array of structs that begin
 * with those two fields (struct evlist, struct lockset): open addressing
 * over positions + 1.  A run of many files makes many such entries, and a
 * scan of them for every line of the input was most of the time (an
 * mdtest-like run of 30,000 files: 20 s).
 */
struct frkey {
	uint32_t file;
	char *rank;
};

struct frindex {
	uint32_t *slot;
	size_t cap;	/* a power of two, or 0 */
};

static size_t fr_hash(uint32_t file, const char *rank)
{
	uint64_t h = tg_fnv_str(0xcbf29ce484222325ull ^ file, rank);

	return (size_t)(h ^ h >> 29);
}

#define FR_AT(base, stride, i) ((const struct frkey *)((const char *)(base) + (i) * (stride)))

/* The position of (@file, @rank) among the @n entries at @base, or -1. */
static int64_t fr_find(const struct frindex *x, const void *base, size_t stride, uint32_t file,
		       const char *rank)
{
	size_t h;

	if (!x->cap)
		return -1;
	for (h = fr_hash(file, rank) & (x->cap - 1); x->slot[h]; h = (h + 1) & (x->cap - 1)) {
		const struct frkey *k = FR_AT(base, stride, x->slot[h] - 1);
		if (k->file == file && streq(k->rank, rank))
			return (int64_t)x->slot[h] - 1;
	}
	return -1;
}

/* Note entry @i (of @n, at @base) in @x, growing it. */
static void fr_add(struct frindex *x, const void *base, size_t stride, size_t i, size_t n)
{
	size_t h, j;

	if (2 * n > x->cap) {
		free(x->slot);
		x->cap = x->cap ? 2 * x->cap : 64;
		while (2 * n > x->cap)
			x->cap *= 2;
		x->slot = calloc(x->cap, sizeof(*x->slot));
		if (!x->slot)
			errx(TG_EXIT_ERROR, "out of memory");
		for (j = 0; j < n; j++) {
			const struct frkey *k = FR_AT(base, stride, j);
			for (h = fr_hash(k->file, k->rank) & (x->cap - 1); x->slot[h];
			     h = (h + 1) & (x->cap - 1))
				;
			x->slot[h] = (uint32_t)j + 1;
		}
		return;
	}
	{
		const struct frkey *k = FR_AT(base, stride, i);
		for (h = fr_hash(k->file, k->rank) & (x->cap - 1); x->slot[h];
		     h = (h + 1) & (x->cap - 1))
			;
		x->slot[h] = (uint32_t)i + 1;
	}
}

static struct frindex evl_index;

static struct evlist *evlist_of(uint32_t file, const char *rank, int make)
{
	int64_t i = fr_find(&evl_index, evl, sizeof(*evl), file, rank);

	if (i >= 0)
		return &evl[i];
	if (!make)
		return NULL;
	if (nevl == capevl) {
		capevl = capevl ? 2 * capevl : 64;
		evl = xrealloc(evl, capevl * sizeof(*evl));
	}
	memset(&evl[nevl], 0, sizeof(evl[0]));
	evl[nevl].file = file;
	evl[nevl].rank = xstrdup(rank);
	nevl++;
	fr_add(&evl_index, evl, sizeof(*evl), nevl - 1, nevl);
	return &evl[nevl - 1];
}

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_event_seq(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->seq != y->seq)
		return (x->seq > y->seq) - (x->seq < y->seq);
	return y->before - x->before;	/* (seq_below) */
}

static int events_sorted;

static void sort_events(void)
{
	size_t i;
	int k;

	for (i = 0; i < nevl; i++)
		for (k = 0; k < EV_KINDS; k++) {
			struct evlist *l = &evl[i];
			if (!l->n[k])	/* never qsort a NULL array */
				continue;
			qsort(l->ev[k], l->n[k], sizeof(struct event), cmp_event);
			l->byseq[k] = xrealloc(NULL, l->n[k] * sizeof(struct event));
			memcpy(l->byseq[k], l->ev[k], l->n[k] * sizeof(struct event));
			qsort(l->byseq[k], l->n[k], sizeof(struct event), cmp_event_seq);
		}
	events_sorted = 1;
}

/* The first event of @kind strictly after (@t, @seq), or NULL. */
static const struct event *first_after(const struct evlist *l, int kind, int64_t t)
{
	size_t lo = 0, hi, k = (size_t)kind;

	if (!l)
		return NULL;
	hi = l->n[k];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (l->ev[k][mid].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n[k] ? &l->ev[k][lo] : NULL;
}

/* The last event of @kind strictly before @t, or NULL. */
static const struct event *last_before(const struct evlist *l, int kind, int64_t t)
{
	size_t lo = 0, hi, k = (size_t)kind;

	if (!l)
		return NULL;
	hi = l->n[k];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (l->ev[k][mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 ? &l->ev[k][lo - 1] : NULL;
}

/* The number of events of @kind in @l with a seq below @seq (@or_at: at
 * most @seq), by program order. */
static size_t seq_below(const struct evlist *l, int kind, uint64_t seq, int or_at)
{
	size_t lo = 0, hi = l->n[kind];

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t s = l->byseq[kind][mid].seq;
		/* (an inherited open comes before its record: a child's
		 * first call may read through the descriptor) */
		if (s < seq || (s == seq && (or_at || l->byseq[kind][mid].before)))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The same by program order (seq), for the happens-before checks: the
 * first event of @kind after record @seq, the last before it. */
static const struct event *first_after_seq(const struct evlist *l, int kind, uint64_t seq)
{
	size_t i;

	if (!l)
		return NULL;
	i = seq_below(l, kind, seq, 1);
	return i < l->n[kind] ? &l->byseq[kind][i] : NULL;
}

/* ... or, for an access that lasts until a later call (#done), at that
 * call or after: the fclose that flushes a stream's buffer commits and
 * closes what it writes. */
static const struct event *first_from_seq(const struct evlist *l, int kind, uint64_t seq,
					  int at)
{
	size_t i;

	if (!l)
		return NULL;
	i = seq_below(l, kind, seq, !at);
	return i < l->n[kind] ? &l->byseq[kind][i] : NULL;
}

static const struct event *last_before_seq(const struct evlist *l, int kind, uint64_t seq,
					   int or_at)
{
	size_t i;

	if (!l)
		return NULL;
	i = seq_below(l, kind, seq, or_at);
	return i > 0 ? &l->byseq[kind][i - 1] : NULL;
}

/* ---- happens-before queries ------------------------------------------------ */

static struct tg_hb *hbg;
static const char *hb_file;
static int opt_force;		/* --force: a graph of another run is taken */
static uint64_t input_run;	/* the #run line's id, 0 if there is none */
static uint32_t hb_ranks;

static void hb_open(void)
{
	char msg[512];

	hbg = tg_hb_open(hb_file, msg, sizeof(msg));
	if (!hbg)
		errx(TG_EXIT_ERROR, "%s: %s", hb_file, msg);
	hb_ranks = tg_hb_graph(hbg)->nranks;
}

/* The #run line: the pairs come from run @t's id; a graph of another run
 * (--hb) is refused unless --force.  Either without an id passes. */
static void run_line(struct tg_tline *t)
{
	const char *v = tg_tline_arg(t, 1, "id");
	uint64_t g = hbg ? tg_hb_graph(hbg)->run : 0;
	char a[17], b[17];

	if (!v || tg_run_parse(v, &input_run) < 0)
		die_input("malformed #run line");
	if (opt_force || !g || g == input_run)
		return;
	tg_run_format(g, a);
	tg_run_format(input_run, b);
	fflush(stdout);
	errx(TG_EXIT_ERROR, "%s: the graph is of run %s, the pairs of run %s (--force mixes "
	     "runs)", hb_file, a, b);
}

/* Does (@ra, @sa) happen before (@rb, @sb)?  Ranks are MPI ranks (>= 0). */
/* #after lines: an open of rank @r, call @seq, came after the rename of
 * rank @fr, call @fseq, that put the file under the name it opened. */
struct after {
	int64_t fr, r;
	uint64_t fseq, seq;
};
static struct after *afters;
static size_t nafters;

static int hb_graph(int64_t ra, uint64_t sa, int64_t rb, uint64_t sb)
{
	if (ra == rb)
		return sa < sb;	/* program order */
	if ((uint64_t)ra >= hb_ranks || (uint64_t)rb >= hb_ranks) {
		fflush(stdout);
		errx(TG_EXIT_ERROR, "%s: no rank %" PRId64 " in the graph (it has %" PRIu32 ")",
		     hb_file, (uint64_t)ra >= hb_ranks ? ra : rb, hb_ranks);
	}
	return tg_hb_query(hbg, (uint32_t)ra, sa, (uint32_t)rb, sb) == 1;
}

/* (@ra, @sa) is (@rb, @sb) or happens before it by the graph. */
static int hb_le(int64_t ra, uint64_t sa, int64_t rb, uint64_t sb)
{
	return ra == rb ? sa <= sb : hb_graph(ra, sa, rb, sb);
}

/* Which #after edges lead on to which, each a row of words: edge j comes
 * after edge i (its removal or rename after i's open, by the graph or in
 * one process) when after_next[i * after_words + j / 64] has bit j % 64.
 * Made at the first question, for at most AFTER_CHAIN edges; more are
 * followed one at a time. */
#define AFTER_CHAIN 1024
static uint64_t *after_next;
static size_t after_words;

static void after_chains(void)
{
	size_t i, j;

	after_words = (nafters + 63) / 64;
	after_next = tg_xrealloc(NULL, nafters * after_words * sizeof(*after_next));
	memset(after_next, 0, nafters * after_words * sizeof(*after_next));
	for (i = 0; i < nafters; i++)
		for (j = 0; j < nafters; j++)
			if (i != j && hb_le(afters[i].r, afters[i].seq, afters[j].fr, afters[j].fseq))
				after_next[i * after_words + j / 64] |= 1ull << (j % 64);
}

/* Whether call @sa of rank @ra happens before call @sb of rank @rb: by
 * the graph, or through opens that came after renames, and makings that
 * came after removals of a name taken as a lock: one after the other
 * (rank 1 gives a lock file up to rank 0, rank 0 to rank 2). */
static int hb(int64_t ra, uint64_t sa, int64_t rb, uint64_t sb)
{
	uint64_t *reach, *todo;
	size_t i, j;
	int found = 0;

	if (hb_graph(ra, sa, rb, sb))
		return 1;
	for (i = 0; i < nafters; i++) {
		const struct after *e = &afters[i];
		if (hb_le(ra, sa, e->fr, e->fseq) && hb_le(e->r, e->seq, rb, sb))
			return 1;
	}
	if (nafters < 2 || nafters > AFTER_CHAIN)
		return 0;
	if (!after_next)
		after_chains();
	/* the edges reached from (ra, sa), then those they lead on to */
	reach = tg_xrealloc(NULL, 2 * after_words * sizeof(*reach));
	todo = reach + after_words;
	memset(reach, 0, 2 * after_words * sizeof(*reach));
	for (i = 0; i < nafters; i++)
		if (hb_le(ra, sa, afters[i].fr, afters[i].fseq))
			reach[i / 64] |= 1ull << (i % 64);
	memcpy(todo, reach, after_words * sizeof(*todo));
	for (;;) {
		for (i = 0; i < nafters && !(todo[i / 64] >> (i % 64) & 1); i++)
			;
		if (i == nafters)
			break;
		todo[i / 64] &= ~(1ull << (i % 64));
		for (j = 0; j < after_words; j++) {
			uint64_t more = after_next[i * after_words + j] & ~reach[j];
			reach[j] |= more;
			todo[j] |= more;
		}
	}
	for (i = 0; i < nafters && !found; i++)
		if ((reach[i / 64] >> (i % 64) & 1) && hb_le(afters[i].r, afters[i].seq, rb, sb))
			found = 1;
	free(reach);
	return found;
}

/*
 * #child: a process without an MPI rank that process parent (a rank, or
 * another such process) started at its call spawn and waited for at its
 * call reap (overlap-find(1)).  Its calls come after whatever comes before
 * the spawn and before whatever comes after the reap (NOREAP: nothing
 * waited for its end, so nothing comes after it).
 */
struct child {
	char *name, *parent;
	uint64_t spawn, reap;
};

/* One access of a pair line. */
struct acc {
	char *rank;
	int64_t r;		/* the MPI rank, or -1 (a process without one) */
	uint64_t seq;
	int64_t t0, t1;
	int write;
	int eof;		/* 'E': an O_APPEND write finding the end of file */
	int size;		/* 'S': a call that saw the file's size */
	int trunc;		/* 'T': a truncation, the bytes it took away */
	const char *func;
	uint64_t start, end;
	uint64_t done;		/* the call that completed it (#done), or seq */
	int64_t tdone;		/* when that call returned, or t1 */
};

#define NOREAP UINT64_MAX
static struct child *children;
static size_t nchildren;
static int children_sorted;

static int cmp_child(const void *a, const void *b)
{
	return strcmp(((const struct child *)a)->name, ((const struct child *)b)->name);
}

static void child_line(struct tg_tline *t)
{
	const char *n = tg_tline_arg(t, 1, "rank"), *p = tg_tline_arg(t, 1, "parent"),
		   *s = tg_tline_arg(t, 1, "spawn"), *w = tg_tline_arg(t, 1, "reap");
	int64_t vs, vw;

	if (!n || !p || !s || tg_tint(s, &vs) < 0 || vs < 0 ||
	    (w && (tg_tint(w, &vw) < 0 || vw < vs)))
		die_input("malformed #child line");
	if (children_sorted || events_sorted)	/* (set at the first pair) */
		die_input("#child line after the pairs");
	children = tg_xrealloc(children, (nchildren + 1) * sizeof(*children));
	children[nchildren++] = (struct child){ tg_xstrdup(n), tg_xstrdup(p), (uint64_t)vs,
						w ? (uint64_t)vw : NOREAP };
}

static const struct child *child_of(const char *name)
{
	struct child key = { (char *)name, NULL, 0, 0 };

	if (!nchildren)
		return NULL;
	if (!children_sorted) {
		qsort(children, nchildren, sizeof(*children), cmp_child);
		children_sorted = 1;
	}
	return bsearch(&key, children, nchildren, sizeof(*children), cmp_child);
}

/* A rank's number, or -1 for a process without one ("p812"). */
static int64_t rank_no(const char *name)
{
	int64_t r;

	return tg_tint(name, &r) == 0 && r >= 0 ? r : -1;
}

#define CHAIN 16	/* children of children followed at most */

/* The processes from @name up through its parents: @up[i] is the #child
 * line of the i-th (NULL for the last); returns how many there are, the
 * last a rank or a process without a known parent. */
static int chain(const char *name, const struct child **up)
{
	int n = 0;

	while (n < CHAIN) {
		up[n] = rank_no(name) >= 0 ? NULL : child_of(name);
		n++;
		if (!up[n - 1])
			break;
		name = up[n - 1]->parent;
	}
	return n;
}

static const char *chain_name(const struct acc *x, const struct child **up, int i)
{
	return i == 0 ? x->rank : up[i - 1]->parent;
}

/* The processes of @a and @b where their chains meet: *@i and *@j, or -1
 * when they do not (then their tops). */
static void chains_meet(const struct acc *a, const struct child **ua, int na,
			const struct acc *b, const struct child **ub, int nb, int *i, int *j)
{
	for (*i = 0; *i < na; ++*i)
		for (*j = 0; *j < nb; ++*j)
			if (streq(chain_name(a, ua, *i), chain_name(b, ub, *j)))
				return;
	*i = *j = -1;
}

/* Does point @sa of @a's process happen before point @sb of @b's?  A
 * child stands at its spawn in its parent when something must come before
 * it, at its reap when it must come before something; so on up to where
 * the two processes' lines of parents meet (a shell and the command it
 * ran), or to their ranks, which the graph orders. */
static int hbx(const struct acc *a, uint64_t sa, const struct acc *b, uint64_t sb)
{
	const struct child *ua[CHAIN], *ub[CHAIN];
	int na, nb, i, j, k;

	if (a->r >= 0 && b->r >= 0)
		return hb(a->r, sa, b->r, sb);
	if (streq(a->rank, b->rank))
		return sa < sb;
	na = chain(a->rank, ua);
	nb = chain(b->rank, ub);
	chains_meet(a, ua, na, b, ub, nb, &i, &j);
	if (i < 0) {		/* their ranks, if both have one */
		i = na - 1;
		j = nb - 1;
		if (rank_no(chain_name(a, ua, i)) < 0 || rank_no(chain_name(b, ub, j)) < 0)
			return 0;
	}
	for (k = 0; k < i; k++) {
		if (ua[k]->reap == NOREAP)
			return 0;	/* nothing waited for its end */
		sa = ua[k]->reap;
	}
	for (k = 0; k < j; k++)
		sb = ub[k]->spawn;
	if (rank_no(chain_name(a, ua, i)) < 0)
		return sa < sb;	/* in one process without a rank */
	return hb(rank_no(chain_name(a, ua, i)), sa, rank_no(chain_name(b, ub, j)), sb);
}

/* "rank 3", or for a process without one "process p812, which rank 0's
 * call 352 started". */
static void proc_desc(int64_t r, const char *name, char *buf, size_t n)
{
	const struct child *c = r < 0 && name ? child_of(name) : NULL;

	if (r >= 0)
		snprintf(buf, n, "rank %" PRId64, r);
	else if (c)
		snprintf(buf, n, "process %s, which %s%s's call %" PRIu64 " started", name,
			 rank_no(c->parent) >= 0 ? "rank " : "process ", c->parent, c->spawn);
	else
		snprintf(buf, n, "process %s", name ? name : "?");
}

/* Can the graph order @a and @b?  Ranks, and processes whose lines of
 * parents meet or reach ranks; not a program of a job script, which the
 * clocks order. */
static int graph_orders(const struct acc *a, const struct acc *b)
{
	const struct child *ua[CHAIN], *ub[CHAIN];
	int na, nb, i, j;

	if (!hbg)
		return 0;
	if (a->r >= 0 && b->r >= 0)
		return 1;
	na = chain(a->rank, ua);
	nb = chain(b->rank, ub);
	chains_meet(a, ua, na, b, ub, nb, &i, &j);
	return i >= 0 || (rank_no(chain_name(a, ua, na - 1)) >= 0 &&
			  rank_no(chain_name(b, ub, nb - 1)) >= 0);
}

/* #bytime: files where overlap-find placed something by the times of
 * two processes, times rebuilt from a .cfg (overlap-find(1)). */
static uint64_t bytime_files;
static int times_rebuilt;	/* a #bytime line: the pairs' times are */

/* #timing: the times are rebuilt from a .cfg; anchored=1, but for the
 * locks, spawns and shared-pointer calls (and all of a process without a
 * rank), whose order between processes they keep. */
static int times_anchored;

static void timing_line(struct tg_tline *t)
{
	const char *a = tg_tline_arg(t, 1, "anchored");

	times_rebuilt = 1;
	times_anchored = a && streq(a, "1");
}

/* Do the clocks order two processes' lock calls as they ran? */
static int lock_times(void)
{
	return !times_rebuilt || times_anchored;
}

/* Pairs a lock's handoff might have ordered, had the clocks not been
 * rebuilt (handed() met such a handoff: taken as none). */
static uint64_t clock_handoffs;
static int handoff_unknown;

static void bytime_line(struct tg_tline *t)
{
	const char *v = tg_tline_arg(t, 1, "files");
	int64_t n;

	if (!v || tg_tint(v, &n) < 0 || n < 0)
		die_input("malformed #bytime line");
	bytime_files += (uint64_t)n;
	times_rebuilt = 1;
}

static void after_line(struct tg_tline *t)
{
	const char *r = tg_tline_arg(t, 1, "rank"), *s = tg_tline_arg(t, 1, "seq"),
		   *fr = tg_tline_arg(t, 1, "from"), *fs = tg_tline_arg(t, 1, "fromseq");
	int64_t vr, vs, vfr, vfs;

	if (!r || !s || !fr || !fs || tg_tint(s, &vs) < 0 || vs < 0 || tg_tint(fs, &vfs) < 0 ||
	    vfs < 0)
		die_input("malformed #after line");
	if (events_sorted)	/* (set at the first pair) */
		die_input("#after line after the pairs");
	/* processes without an MPI rank are ordered by their clocks anyway */
	if (tg_tint(r, &vr) < 0 || vr < 0 || tg_tint(fr, &vfr) < 0 || vfr < 0)
		return;
	afters = tg_xrealloc(afters, (nafters + 1) * sizeof(*afters));
	afters[nafters++] = (struct after){ vfr, vr, (uint64_t)vfs, (uint64_t)vs };
}

static uint64_t rebuilt_pairs;	/* without a graph, of two processes, times rebuilt */
static uint64_t clock_pairs;	/* with a graph, pairs it has no rank for */

/*
 * #name: process rank's open (seq) and process from's call that removed the
 * name (fromseq: an unlink, an MPI_File_delete) or made the file the open
 * did not find (an open with O_CREAT) (overlap-find(1)).  Judged
 * once the whole input is in (an #after line may order them): unless one
 * happens before the other, which file the open found, or whether it
 * found one, was a matter of timing, under every model.  Without a graph,
 * or for a process without an MPI rank, they are ordered by the clocks,
 * as pairs are.
 */
struct namepair {
	uint32_t f;
	int64_t r, fr;
	char *rname, *frname;	/* processes without an MPI rank: theirs */
	uint64_t seq, fseq;
	int dir;	/* via=dir: the call went through directory f, which
			 * from's mkdir made */
};
static struct namepair *namepairs;
static size_t nnamepairs;
static uint64_t name_races;
static struct namepair name_first;	/* the first unordered one */

static void name_line(struct tg_tline *t)
{
	const char *fi = tg_tline_arg(t, 1, "file"), *r = tg_tline_arg(t, 1, "rank"),
		   *s = tg_tline_arg(t, 1, "seq"), *fr = tg_tline_arg(t, 1, "from"),
		   *fs = tg_tline_arg(t, 1, "fromseq"), *via = tg_tline_arg(t, 1, "via");
	int64_t vf, vr, vs, vfr, vfs;

	if (!fi || !r || !s || !fr || !fs || tg_tint(fi, &vf) < 0 || vf < 0 ||
	    (size_t)vf >= npaths || !paths[vf] || tg_tint(s, &vs) < 0 || vs < 0 ||
	    tg_tint(fs, &vfs) < 0 || vfs < 0)
		die_input("malformed #name line");
	/* a process without an MPI rank (a shell's rm) is ordered by the
	 * clocks, as its data pairs are, and counted with them, unless a
	 * rank started it and waited for it (#child, read later) */
	if (tg_tint(r, &vr) < 0 || vr < 0)
		vr = -1;
	if (tg_tint(fr, &vfr) < 0 || vfr < 0)
		vfr = -1;
	namepairs = tg_xrealloc(namepairs, (nnamepairs + 1) * sizeof(*namepairs));
	namepairs[nnamepairs++] = (struct namepair){
		(uint32_t)vf, vr, vfr, vr < 0 ? tg_xstrdup(r) : NULL, vfr < 0 ? tg_xstrdup(fr) : NULL,
		(uint64_t)vs, (uint64_t)vfs, via && streq(via, "dir") };
}

static int before(const struct acc *a, uint64_t sa, const struct acc *b, uint64_t sb);

static void judge_names(void)
{
	size_t i;

	for (i = 0; hbg && i < nnamepairs; i++) {
		const struct namepair *n = &namepairs[i];
		struct acc a = { 0 }, b = { 0 };
		char ra[24], rb[24];

		snprintf(ra, sizeof(ra), "%" PRId64, n->r);
		snprintf(rb, sizeof(rb), "%" PRId64, n->fr);
		a.rank = n->rname ? n->rname : ra;
		a.r = n->r;
		b.rank = n->frname ? n->frname : rb;
		b.r = n->fr;
		if (!graph_orders(&a, &b)) {
			clock_pairs++;
			continue;
		}
		/* (or a lock's handoff: a journal made and removed under
		 * SQLite's lock, a file replaced under a lock file's) */
		if (before(&b, n->fseq, &a, n->seq) || before(&a, n->seq, &b, n->fseq))
			continue;
		if (!name_races++)
			name_first = *n;
	}
}

/* ---- pairs ----------------------------------------------------------------------- */

/* The letter of access @a in a pair line. */
static const char *op_letter(const struct acc *a)
{
	return a->trunc ? "T" : a->write ? "W" : a->eof ? "E" : a->size ? "S" : "R";
}

enum { M_POSIX, M_COMMIT, M_SESSION, M_MPIIO, M_COUNT };
static const char *model_names[M_COUNT] = { "posix", "commit", "session", "mpiio" };

/* The models that judge the input's layer: mpiio only MPI-IO pairs. */
static unsigned applicable = (1u << M_MPIIO) - 1;

/* Per file: [model][kind RAW/WAW][S/D] conflicts, pairs, unsynchronised. */
struct tally {
	uint64_t conf[M_COUNT][2][2];
	uint64_t pairs[2][2];
	uint64_t unsync[2][2];
	uint64_t pieces, bytes;	/* of all its pairs */
	uint64_t implied;	/* pairs overlap-find left out (#implied) */
};
static struct tally *tallies;

static int opt_json, opt_verbose, opt_strict, opt_sites;
static unsigned models = 1u << M_SESSION;

static int parse_acc(struct tg_tline *t, int at, struct acc *a)
{
	int64_t seq, s, e;

	a->rank = t->f[at];
	if (tg_tint(a->rank, &a->r) < 0 || a->r < 0)
		a->r = -1;
	if (tg_tint(t->f[at + 1], &seq) < 0 || seq < 0)
		return -1;
	a->seq = (uint64_t)seq;
	a->t0 = tg_ttime(t->f[at + 2]);
	a->t1 = tg_ttime(t->f[at + 3]);
	if (a->t0 < 0 || a->t1 < 0)
		return -1;
	a->eof = a->size = a->trunc = 0;
	if (streq(t->f[at + 4], "W"))
		a->write = 1;
	else if (streq(t->f[at + 4], "R"))
		a->write = 0;
	else if (streq(t->f[at + 4], "E"))
		a->write = 0, a->eof = 1;
	else if (streq(t->f[at + 4], "S"))
		a->write = 0, a->size = 1;
	else if (streq(t->f[at + 4], "T"))
		a->write = 1, a->trunc = 1;
	else
		return -1;
	a->func = t->f[at + 5];
	if (tg_tint(t->f[at + 6], &s) < 0 || tg_tint(t->f[at + 7], &e) < 0 || s < 0 || e < s)
		return -1;
	a->start = (uint64_t)s;
	a->end = (uint64_t)e;
	return 0;
}

static void json_acc(json_t *o, const char *key, const struct acc *a)
{
	json_object_set_new(o, key, json_pack("{s:s,s:I,s:f,s:f,s:s,s:s,s:I,s:I}",
		"rank", a->rank, "seq", (json_int_t)a->seq, "tstart", a->t0 / 1e9,
		"tend", a->t1 / 1e9, "op",
				  a->trunc ? "truncate" : a->write ? "write" : a->eof ? "append-end" :
				  a->size ? "size" : "read",
				  "func", a->func,
		"start", (json_int_t)a->start, "end", (json_int_t)a->end));
}

/* ---- pairs by call site ----------------------------------------------------------- */

/*
 * --sites: the pairs summed by what made them (file, kind, the same or
 * different processes, the functions of the two accesses), in a table
 * as large as the distinct sites, whatever the number of pairs.
 */
struct site {
	uint32_t file;
	uint8_t kind, d;
	char *fa, *fb;
	uint64_t pairs, pieces, bytes, unsync, conf[M_COUNT];
};

static struct site *sites;
static size_t nsites, capsites;
static size_t *site_slot;	/* index + 1, open addressing */
static size_t nslots;

static size_t site_hash(uint32_t file, int kind, int d, const char *fa, const char *fb)
{
	uint64_t h = 1469598103934665603ull ^ (file * 4u + (unsigned)kind * 2u + (unsigned)d);

	for (; *fa; fa++)
		h = (h ^ (unsigned char)*fa) * 1099511628211ull;
	h = (h ^ '/') * 1099511628211ull;
	for (; *fb; fb++)
		h = (h ^ (unsigned char)*fb) * 1099511628211ull;
	return (size_t)h;
}

static int site_is(const struct site *x, uint32_t file, int kind, int d, const char *fa,
		   const char *fb)
{
	return x->file == file && x->kind == kind && x->d == d && streq(x->fa, fa) &&
	       streq(x->fb, fb);
}

static struct site *site_of(uint32_t file, int kind, int d, const char *fa, const char *fb)
{
	size_t i, j;

	if (2 * (nsites + 1) > nslots) {	/* grow: at most half full */
		nslots = nslots ? 2 * nslots : 256;
		free(site_slot);
		site_slot = xrealloc(NULL, nslots * sizeof(*site_slot));
		memset(site_slot, 0, nslots * sizeof(*site_slot));
		for (i = 0; i < nsites; i++) {
			struct site *x = &sites[i];
			for (j = site_hash(x->file, x->kind, x->d, x->fa, x->fb) & (nslots - 1);
			     site_slot[j]; j = (j + 1) & (nslots - 1))
				;
			site_slot[j] = i + 1;
		}
	}
	for (j = site_hash(file, kind, d, fa, fb) & (nslots - 1); site_slot[j];
	     j = (j + 1) & (nslots - 1))
		if (site_is(&sites[site_slot[j] - 1], file, kind, d, fa, fb))
			return &sites[site_slot[j] - 1];
	if (nsites == capsites) {
		capsites = capsites ? 2 * capsites : 64;
		sites = xrealloc(sites, capsites * sizeof(*sites));
	}
	memset(&sites[nsites], 0, sizeof(sites[0]));
	sites[nsites].file = file;
	sites[nsites].kind = (uint8_t)kind;
	sites[nsites].d = (uint8_t)d;
	sites[nsites].fa = xstrdup(fa);
	sites[nsites].fb = xstrdup(fb);
	site_slot[j] = ++nsites;
	return &sites[nsites - 1];
}

/* Count a judged pair (@conf NULL: conflicting under no model) at its site. */
static void site_add(uint32_t file, int kind, int d, const char *fa, const char *fb,
		     uint64_t pieces, uint64_t bytes, int unsync, const int *conf)
{
	struct site *x;
	int m;

	if (!opt_sites)
		return;
	x = site_of(file, kind, d, fa, fb);
	x->pairs++;
	x->pieces += pieces;
	x->bytes += bytes;
	x->unsync += (uint64_t)unsync;
	for (m = 0; conf && m < M_COUNT; m++)
		x->conf[m] += (uint64_t)conf[m];
}

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;
	int c;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->kind != y->kind)	/* WAW first, as in the table */
		return x->kind > y->kind ? -1 : 1;
	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	c = strcmp(x->fa, y->fa);
	return c ? c : strcmp(x->fb, y->fb);
}

/* The sites, as lines after the table or as the "sites" of the JSON
 * summary @o. */
static void sites_print(json_t *o)
{
	json_t *arr = o ? json_array() : NULL;
	size_t i;
	int m;

	if (nsites)
		qsort(sites, nsites, sizeof(*sites), cmp_site);
	for (i = 0; i < nsites; i++) {
		const struct site *x = &sites[i];
		if (arr) {
			json_t *so = json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:I}",
				"file", paths[x->file], "kind", x->kind ? "WAW" : "RAW", "procs",
				x->d ? "D" : "S", "first", x->fa, "second", x->fb, "pairs",
				(json_int_t)x->pairs, "pieces", (json_int_t)x->pieces, "bytes",
				(json_int_t)x->bytes, "unsynchronized", (json_int_t)x->unsync);
			json_t *cm = json_object();
			for (m = 0; m < M_COUNT; m++)
				if (applicable & (1u << m))
					json_object_set_new(cm, model_names[m],
							    json_integer((json_int_t)x->conf[m]));
			json_object_set_new(so, "conflicts", cm);
			json_array_append_new(arr, so);
			continue;
		}
		printf("site\t%s-%s\t%s\t%s\t%s\tpairs=%" PRIu64 "\tpieces=%" PRIu64
		       "\tbytes=%" PRIu64 "\tunsynchronized=%" PRIu64, x->kind ? "WAW" : "RAW",
		       x->d ? "D" : "S", paths[x->file], x->fa, x->fb, x->pairs, x->pieces, x->bytes,
		       x->unsync);
		for (m = 0; m < M_COUNT; m++)
			if (applicable & (1u << m))
				printf("\t%s=%" PRIu64, model_names[m], x->conf[m]);
		putchar('\n');
	}
	if (arr)
		json_object_set_new(o, "sites", arr);
}

/* ---- record locks ---------------------------------------------------------------- */

/*
 * Advisory record locks (overlap-find's #lock lines).  Two accesses of
 * different processes made while each held a lock on a byte they share,
 * the two locks of one class and at least one of them a write lock, are
 * ordered by the locks: one was released before the other was granted,
 * as with a mutex.  The lock lines of a process on a file are replayed in
 * program order into holds: a range held in one mode from one record
 * (seq_from) to the record that released it (seq_to), an unlock, a lock
 * of another mode over it, or a close of the file (which releases every
 * lock of the process there, fcntl's rule; a flock or open file
 * description lock may live longer, so ending it there is the safe side).
 */
#define LK_EOF UINT64_MAX

struct lkev {
	uint64_t seq, start, end;	/* bytes [start, end); end LK_EOF: all after */
	int64_t t0, t1;
	uint8_t type;			/* 0 unlock, 1 read, 2 write */
	uint8_t cls;			/* 0 posix, 1 flock */
};

struct hold {
	uint64_t start, end;
	uint64_t seq_from, seq_to;	/* the granting and the releasing record */
	int64_t t_grant, t_release;	/* the end of the one, the start of the other */
	uint64_t maxto;			/* the latest seq_to of this and those before */
	uint8_t type, cls;
};

struct lockset {
	uint32_t file;
	char *rank;
	struct lkev *ev;
	size_t nev, capev;
	struct hold *h;
	size_t nh, caph;
	int built;
};

static struct lockset *lks;
static size_t nlks, caplks;

static struct frindex lks_index;

static struct lockset *lockset_of(uint32_t file, const char *rank, int make)
{
	int64_t i = fr_find(&lks_index, lks, sizeof(*lks), file, rank);

	if (i >= 0)
		return &lks[i];
	if (!make)
		return NULL;
	if (nlks == caplks) {
		caplks = caplks ? 2 * caplks : 16;
		lks = xrealloc(lks, caplks * sizeof(*lks));
	}
	memset(&lks[nlks], 0, sizeof(lks[0]));
	lks[nlks].file = file;
	lks[nlks].rank = xstrdup(rank);
	nlks++;
	fr_add(&lks_index, lks, sizeof(*lks), nlks - 1, nlks);
	return &lks[nlks - 1];
}

static int lock_field(struct tg_tline *t, const char *name, int64_t *v)
{
	const char *s = tg_tline_arg(t, 1, name);

	return s && tg_tint(s, v) == 0 && *v >= 0 ? 0 : -1;
}

/* What overlap-find could not place (#unplaced lines): calls whose bytes
 * are in no pair, and the processes that made them. */
static uint64_t unplaced_calls, unplaced_procs;

static void unplaced_line(struct tg_tline *t)
{
	const char *u = tg_tline_arg(t, 1, "unplaced");
	int64_t n;

	if (!u || tg_tint(u, &n) < 0 || n < 0)
		die_input("malformed #unplaced line");
	if (n > 0) {
		unplaced_calls += (uint64_t)n;
		unplaced_procs++;
	}
}

static void lock_line(struct tg_tline *t)
{
	const char *rank = tg_tline_arg(t, 1, "rank"), *kind = tg_tline_arg(t, 1, "kind"),
		   *type = tg_tline_arg(t, 1, "type"), *cls = tg_tline_arg(t, 1, "class"),
		   *end = tg_tline_arg(t, 1, "end"), *t0 = tg_tline_arg(t, 1, "t"),
		   *t1 = tg_tline_arg(t, 1, "tend");
	int64_t f, seq, start, e = 0;
	struct lockset *l;
	struct lkev *ev;

	if (!rank || !kind || !type || !cls || !end || !t0 || !t1 ||
	    lock_field(t, "file", &f) < 0 || (size_t)f >= npaths ||
	    lock_field(t, "seq", &seq) < 0 || lock_field(t, "start", &start) < 0 ||
	    (!streq(end, "-") && (tg_tint(end, &e) < 0 || e < start)) ||
	    (!streq(cls, "posix") && !streq(cls, "flock")) ||
	    !(streq(kind, "unlock") || (streq(kind, "lock") && (streq(type, "R") ||
								 streq(type, "W")))) ||
	    tg_ttime(t0) < 0 || tg_ttime(t1) < 0)
		die_input("malformed #lock line");
	if (events_sorted)
		die_input("#lock line after the pairs");
	l = lockset_of((uint32_t)f, rank, 1);
	if (l->nev == l->capev) {
		l->capev = l->capev ? 2 * l->capev : 16;
		l->ev = xrealloc(l->ev, l->capev * sizeof(*l->ev));
	}
	ev = &l->ev[l->nev++];
	ev->seq = (uint64_t)seq;
	ev->start = (uint64_t)start;
	ev->end = streq(end, "-") ? LK_EOF : (uint64_t)e;
	ev->t0 = tg_ttime(t0);
	ev->t1 = tg_ttime(t1);
	ev->type = streq(kind, "unlock") ? 0 : streq(type, "R") ? 1 : 2;
	ev->cls = streq(cls, "flock");
}

static int cmp_hold(const void *a, const void *b)
{
	const struct hold *x = a, *y = b;

	return (x->seq_from > y->seq_from) - (x->seq_from < y->seq_from);
}

/* When record lock event @e took effect: a lock by its return (it may
 * have waited for another's release), an unlock as it began. */
static int64_t lkev_at(const struct lkev *e)
{
	return e->type ? e->t1 : e->t0;
}

/* Lock events in the order they took effect, which is their seqs' within
 * a thread; but threads of one process take turns (MPI_File_write_shared
 * from three threads: one's unlock began after another's lock call had
 * begun, waiting, and before it was granted) */
static int cmp_lkev(const void *a, const void *b)
{
	const struct lkev *x = a, *y = b;
	int64_t tx = lkev_at(x), ty = lkev_at(y);

	/* (times rebuilt from a .cfg may put a lock's grant after its own
	 * unlock: a thread's order, then, is its seqs') */
	if (tx != ty && !times_rebuilt)
		return (tx > ty) - (tx < ty);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static struct hold *hold_add(struct lockset *l, const struct hold *h)
{
	if (l->nh == l->caph) {
		l->caph = l->caph ? 2 * l->caph : 16;
		l->h = xrealloc(l->h, l->caph * sizeof(*l->h));
	}
	l->h[l->nh] = *h;
	return &l->h[l->nh++];
}

/* Record @ev (a lock, an unlock, or a close: type 0, class 255) ends the
 * part of every open hold of its class within its range; the parts
 * outside stay open as holds of their own. */
static void holds_cut(struct lockset *l, const struct lkev *ev)
{
	size_t i, n = l->nh;

	for (i = 0; i < n; i++) {
		struct hold h = l->h[i], part;
		if (h.seq_to != LK_EOF || (ev->cls != 255 && h.cls != ev->cls) ||
		    h.end <= ev->start || ev->end <= h.start)
			continue;
		part = h;
		if (h.start < ev->start) {
			part.end = ev->start;
			hold_add(l, &part);
		}
		if (ev->end < h.end) {
			part = h;
			part.start = ev->end;
			hold_add(l, &part);
		}
		h.start = h.start > ev->start ? h.start : ev->start;
		h.end = h.end < ev->end ? h.end : ev->end;
		h.seq_to = ev->seq;
		h.t_release = ev->t0;
		l->h[i] = h;
	}
}

/* Replay the lock lines of @l, and the closes of its file, into holds. */
static void holds_build(struct lockset *l)
{
	const struct evlist *el = evlist_of(l->file, l->rank, 0);
	size_t i = 0, c = 0, nc = el ? el->n[EV_CLOSE] : 0;

	l->built = 1;
	qsort(l->ev, l->nev, sizeof(*l->ev), cmp_lkev);
	while (i < l->nev || c < nc) {
		struct lkev ev;
		if (i < l->nev &&
		    (c == nc ||
		     (times_rebuilt ? l->ev[i].seq < el->ev[EV_CLOSE][c].seq :
		      lkev_at(&l->ev[i]) < el->ev[EV_CLOSE][c].t ||
		      (lkev_at(&l->ev[i]) == el->ev[EV_CLOSE][c].t &&
		       l->ev[i].seq < el->ev[EV_CLOSE][c].seq)))) {
			ev = l->ev[i++];
		} else {
			memset(&ev, 0, sizeof(ev));
			ev.seq = el->ev[EV_CLOSE][c].seq;
			ev.t0 = el->ev[EV_CLOSE][c++].t;
			ev.end = LK_EOF;
			ev.cls = 255;	/* every class */
		}
		holds_cut(l, &ev);
		if (ev.type) {
			struct hold h = { ev.start, ev.end, ev.seq, LK_EOF, ev.t1, 0, 0, ev.type,
					  ev.cls };
			hold_add(l, &h);
		}
	}
	/* by grant, each with the latest release so far: the holds in force
	 * at an access are found walking back from it (holds_from) */
	if (l->nh)
		qsort(l->h, l->nh, sizeof(*l->h), cmp_hold);
	for (i = 0; i < l->nh; i++)
		l->h[i].maxto = i && l->h[i - 1].maxto > l->h[i].seq_to ? l->h[i - 1].maxto
									 : l->h[i].seq_to;
}

/* One past the last hold of @l granted before record @seq. */
static size_t holds_from(const struct lockset *l, uint64_t seq)
{
	size_t lo = 0, hi = l->nh;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (l->h[mid].seq_from < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Is hold @h in force at access @x, on some of the bytes [lo, hi)? */
static int hold_at(const struct hold *h, const struct acc *x, uint64_t lo, uint64_t hi)
{
	return h->seq_from < x->seq && x->seq < h->seq_to && h->start < hi && lo < h->end;
}

/*
 * Are accesses @a and @b (of different processes) ordered by their locks:
 * holds in force at each, of one class, at least one a write lock, that
 * share a byte the two accesses share?  Then the two are in *@ha and
 * *@hb_, and 1 is returned if @a's was released first, 2 if @b's was:
 * by the happens-before graph between the release of one and the grant
 * of the other when there is one, else by the clocks.
 */
/* The locks of @a's and @b's processes on @f, built, and the bytes
 * [*@lo, *@hi) the two share; 0 if either took none or they share none. */
static int lock_sets(uint32_t f, const struct acc *a, const struct acc *b, struct lockset **la,
		     struct lockset **lb, uint64_t *lo, uint64_t *hi)
{
	*la = lockset_of(f, a->rank, 0);
	*lb = lockset_of(f, b->rank, 0);
	*lo = a->start > b->start ? a->start : b->start;
	*hi = a->end < b->end ? a->end : b->end;
	if (!*la || !*lb || *lo >= *hi)
		return 0;
	if (!(*la)->built)
		holds_build(*la);
	if (!(*lb)->built)
		holds_build(*lb);
	return 1;
}

/* Can a lock of class @x's that @a's process holds be held at once by
 * @b's?  An fcntl lock belongs to its process: never.  A flock or open
 * file description lock belongs to the description, which a forked child
 * shares with its parent: when the two are of one family. */
static int shareable(const struct acc *a, const struct acc *b, const struct hold *x)
{
	const struct child *ua[CHAIN], *ub[CHAIN];
	int i, j;

	if (x->cls == 0)
		return 0;
	chains_meet(a, ua, chain(a->rank, ua), b, ub, chain(b->rank, ub), &i, &j);
	return i >= 0;
}

static int lock_order(uint32_t f, const struct acc *a, const struct acc *b, int use_hb,
		      const struct hold **ha, const struct hold **hb_)
{
	struct lockset *la, *lb;
	uint64_t lo, hi, s, e;
	const struct hold *x, *y;
	size_t i, j;
	int excl;

	if (!lock_sets(f, a, b, &la, &lb, &lo, &hi))
		return 0;
	for (i = holds_from(la, a->seq); i-- > 0 && la->h[i].maxto > a->seq;) {
		x = &la->h[i];
		if (!hold_at(x, a, lo, hi))
			continue;
		s = x->start > lo ? x->start : lo;
		e = x->end < hi ? x->end : hi;
		for (j = holds_from(lb, b->seq); j-- > 0 && lb->h[j].maxto > b->seq;) {
			y = &lb->h[j];
			if (!hold_at(y, b, s, e) || x->cls != y->cls || (x->type != 2 && y->type != 2))
				continue;
			*ha = x;
			*hb_ = y;
			excl = !shareable(a, b, x);
			/* a lock never released was granted after the other's
			 * release */
			if (x->seq_to == LK_EOF && y->seq_to != LK_EOF &&
			    (excl || y->t_release <= x->t_grant))
				return 2;
			if (y->seq_to == LK_EOF && x->seq_to != LK_EOF &&
			    (excl || x->t_release <= y->t_grant))
				return 1;
			if (x->seq_to == LK_EOF || y->seq_to == LK_EOF)
				continue;
			if (use_hb && hbx(a, x->seq_to, b, y->seq_from))
				return 1;
			if (use_hb && hbx(b, y->seq_to, a, x->seq_from))
				return 2;
			if (x->t_release <= y->t_grant)
				return 1;
			if (y->t_release <= x->t_grant)
				return 2;
			/* held at once by the clocks: locks that exclude each
			 * other did, and the clocks are off (rebuilt from a
			 * .cfg's aggregate timing): the first granted went
			 * first.  Else they did not exclude each other, as a
			 * flock or open file description lock a fork shares
			 * does not. */
			if (excl)
				return x->t_grant <= y->t_grant ? 1 : 2;
		}
	}
	return 0;
}

/* The locksets by process, then file: where a process's locks are. */
static size_t *lkr;
static size_t nlkr = SIZE_MAX;

static int cmp_lkr(const void *x, const void *y)
{
	const struct lockset *a = &lks[*(const size_t *)x], *b = &lks[*(const size_t *)y];
	int c = strcmp(a->rank, b->rank);

	return c ? c : (a->file > b->file) - (a->file < b->file);
}

/* The first of @rank's locksets in lkr; *@n how many it has. */
static size_t locksets_of(const char *rank, size_t *n)
{
	size_t lo = 0, hi, i;

	if (nlkr == SIZE_MAX) {
		lkr = xrealloc(NULL, (nlks ? nlks : 1) * sizeof(*lkr));
		for (i = 0; i < nlks; i++)
			lkr[i] = i;
		qsort(lkr, nlks, sizeof(*lkr), cmp_lkr);
		nlkr = nlks;
	}
	hi = nlkr;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(lks[lkr[mid]].rank, rank) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < nlkr && streq(lks[lkr[i]].rank, rank); i++)
		;
	*n = i - lo;
	return lo;
}

/* Did hold @x of @a's process end before hold @y of @b's began, the two
 * excluding each other (overlapping, of one class, one a write lock, not
 * of a description the two share)?  By the graph when it orders the
 * release and the grant either way; else by the clocks, and when these
 * show the two held at once (rebuilt from a .cfg), by the grants. */
static int handed(const struct acc *a, const struct hold *x, const struct acc *b,
		  const struct hold *y)
{
	if (x->seq_to == LK_EOF || y->start >= x->end || x->start >= y->end ||
	    x->cls != y->cls || (x->type != 2 && y->type != 2) || shareable(a, b, x))
		return 0;
	if (hbx(a, x->seq_to, b, y->seq_from))
		return 1;
	if (y->seq_to != LK_EOF && hbx(b, y->seq_to, a, x->seq_from))
		return 0;
	if (!lock_times()) {
		handoff_unknown = 1;
		return 0;
	}
	if (y->seq_to == LK_EOF || x->t_release <= y->t_grant)
		return 1;	/* (a hold never released came last) */
	if (y->t_release <= x->t_grant)
		return 0;
	return x->t_grant <= y->t_grant;
}

/* Is point @sa of @a's process before point @sb of @b's through the
 * handoff of a lock the two processes themselves took? */
static int handoff1(const struct acc *a, uint64_t sa, const struct acc *b, uint64_t sb)
{
	size_t k, nk, k0, i, j, n, m, lo;

	if (streq(a->rank, b->rank))
		return 0;
	for (k0 = locksets_of(a->rank, &nk), k = k0; k < k0 + nk; k++) {
		struct lockset *la = &lks[lkr[k]], *lb = lockset_of(la->file, b->rank, 0);
		if (!lb)
			continue;
		if (!la->built)
			holds_build(la);
		if (!lb->built)
			holds_build(lb);
		/* @a's released after @sa: held at @sa, then granted after */
		lo = holds_from(la, sa);
		for (i = lo; i-- > 0 && la->h[i].maxto >= sa && lo - i <= 16;)
			for (j = holds_from(lb, sb), m = 0; j-- > 0 && m++ < 64;)
				if (la->h[i].seq_to >= sa && handed(a, &la->h[i], b, &lb->h[j]))
					return 1;
		for (i = lo, n = 0; i < la->nh && n++ < 16; i++)
			for (j = holds_from(lb, sb), m = 0; j-- > 0 && m++ < 64;)
				if (handed(a, &la->h[i], b, &lb->h[j]))
					return 1;
	}
	return 0;
}

/*
 * Is point @sa of @a's process before point @sb of @b's through a lock's
 * handoff: on some file (the accessed one, or a lock file), a process
 * released a lock after @sa (@a's, or a parent of it after it waited for
 * it), another took one before @sb (@b's, or a parent before it started
 * it), the two excluding each other and the release first?  What a
 * holder did before its release comes before what the next holder does
 * after its grant, as with a mutex, whichever bytes the lock covers: the
 * accessed ones, a lock byte far from the data (SQLite's), a separate
 * lock file; and a command flock(1) ran holding a lock (through
 * system()) is between that grant and release.  A few holds each way are
 * looked at.
 */
static int handoff(const struct acc *a, uint64_t sa, const struct acc *b, uint64_t sb)
{
	const struct child *ua[CHAIN], *ub[CHAIN];
	int na, nb, i, j;
	struct acc pa, pb;
	uint64_t s = sa, t;

	if (streq(a->rank, b->rank) || !nlks)
		return 0;
	na = chain(a->rank, ua);
	nb = chain(b->rank, ub);
	memset(&pa, 0, sizeof(pa));
	memset(&pb, 0, sizeof(pb));
	for (i = 0; i < na; i++) {
		pa.rank = (char *)chain_name(a, ua, i);
		pa.r = i ? rank_no(pa.rank) : a->r;
		for (j = 0, t = sb; j < nb; j++) {
			pb.rank = (char *)chain_name(b, ub, j);
			pb.r = j ? rank_no(pb.rank) : b->r;
			if (handoff1(&pa, s, &pb, t))
				return 1;
			if (j + 1 < nb)
				t = ub[j]->spawn;
		}
		if (i + 1 >= na || ua[i]->reap == NOREAP)
			break;
		s = ua[i]->reap;
	}
	return 0;
}

/* Is @a before @b, or @b before @a, through a lock's handoff: 1, 2, or 0.
 * Unlike lock_order's, such a pair is only ordered: the models judge it
 * (nothing commits at a release). */
static int lock_chain(const struct acc *a, const struct acc *b)
{
	return handoff(a, a->done, b, b->seq) ? 1 : handoff(b, b->done, a, a->seq) ? 2 : 0;
}

/* Does point @sa of @a's process happen before point @sb of @b's, by the
 * graph or through a lock's handoff? */
static int before(const struct acc *a, uint64_t sa, const struct acc *b, uint64_t sb)
{
	return hbx(a, sa, b, sb) || handoff(a, sa, b, sb);
}

/*
 * A pair of different processes ordered by their locks: counted as
 * synchronised and conflicting under no model, reported with the records
 * that release and grant the locks.  Returns 0 (not such a pair: the
 * caller judges it) or 1 (done).
 */
static void put_pieces(json_t *o, uint64_t pieces, uint64_t bytes);

static int lock_pair(uint32_t f, struct acc *a, struct acc *b, int use_hb, uint64_t pieces,
		     uint64_t bytes)
{
	const struct hold *ha = NULL, *hb_ = NULL, *th;
	struct acc tmp;
	int o, kind, m;

	if (streq(a->rank, b->rank) || !(o = lock_order(f, a, b, use_hb, &ha, &hb_)))
		return 0;
	if (o == 2) {
		tmp = *a;
		*a = *b;
		*b = tmp;
		th = ha;
		ha = hb_;
		hb_ = th;
	}
	if (!a->write)
		return 1;	/* write after read: no conflict in any model */
	kind = b->write;
	tallies[f].pairs[kind][1]++;
	site_add(f, kind, 1, a->func, b->func, pieces, bytes, 0, NULL);
	if (opt_json) {
		json_t *o = json_object(), *cm = json_object();
		json_object_set_new(o, "file", json_string(paths[f]));
		json_object_set_new(o, "kind", json_string(kind ? "WAW" : "RAW"));
		json_object_set_new(o, "procs", json_string("D"));
		json_acc(o, "first", a);
		json_acc(o, "second", b);
		for (m = 0; m < M_COUNT; m++)
			if (applicable & (1u << m))
				json_object_set_new(cm, model_names[m], json_false());
		json_object_set_new(o, "conflict", cm);
		json_object_set_new(o, "ordered_by", json_string("lock"));
		json_object_set_new(o, "synchronized", json_true());
		json_object_set_new(o, "unlock_seq", json_integer((json_int_t)ha->seq_to));
		json_object_set_new(o, "lock_seq", json_integer((json_int_t)hb_->seq_from));
		put_pieces(o, pieces, bytes);
		json_dumpf(o, stdout, JSON_COMPACT | JSON_ENSURE_ASCII);
		putchar('\n');
		json_decref(o);
	} else if (opt_verbose) {
		printf("%s-D\t%s\t%s:%" PRIu64 " %s %s [%" PRIu64 ",%" PRIu64 ")\t%s:%" PRIu64
		       " %s %s [%" PRIu64 ",%" PRIu64 ")", kind ? "WAW" : "RAW", paths[f],
		       a->rank, a->seq, a->func, op_letter(a), a->start, a->end, b->rank,
		       b->seq, b->func, op_letter(b), b->start, b->end);
		for (m = 0; m < M_COUNT; m++)
			if (applicable & (1u << m))
				printf("\t%s=ok", model_names[m]);
		printf("\tsynchronized=yes\tunlock=%s:%" PRIu64 "\tlock=%s:%" PRIu64,
		       a->rank, ha->seq_to, b->rank, hb_->seq_from);
		put_pieces(NULL, pieces, bytes);
		putchar('\n');
	}
	return 1;
}

/* ---- the MPI-IO model -------------------------------------------------------- */

/*
 * MPI 4.1 §14.6.1: in nonatomic mode a conflicting access on another
 * process sees a write only after sync-barrier-sync: the writer's
 * MPI_File_sync (or close) after its write happens before the other
 * process's MPI_File_sync (or open) before its access.  In overlap-find's
 * MPI-IO layer a commit is a sync or a close, an open an MPI_File_open.
 */
struct mpiio_why {
	const struct event *s1, *s2;	/* the syncs that order the pair */
	int atomic;			/* both accesses were in atomic mode */
};

/* Was atomic mode on for the access (@seq) of process list @l: its
 * event, or NULL?  The events are the process's own, so program order
 * decides; one of the access's own call says which handle it went
 * through. */
static const struct event *atomic_at(const struct evlist *l, uint64_t seq)
{
	const struct event *on = last_before_seq(l, EV_ATOMIC, seq, 1),
			   *off = last_before_seq(l, EV_NONATOMIC, seq, 1);

	return on && (!off || off->seq < on->seq) ? on : NULL;
}

/* The later, by program order, of two events of one process (or NULL). */
static const struct event *later_seq(const struct event *x, const struct event *y)
{
	if (!x || !y)
		return x ? x : y;
	return x->seq > y->seq ? x : y;
}

/* The same by time, for pairs ordered by their clocks. */
static const struct event *later_t(const struct event *x, const struct event *y)
{
	if (!x || !y)
		return x ? x : y;
	return cmp_event(x, y) > 0 ? x : y;
}

/*
 * Does pair @a (first) and @b conflict under MPI-IO semantics?  @ordered:
 * one happens before the other (or by the clocks, @a ended before @b
 * began); @by_hb: ordered by the graph, else by time.  Two accesses in
 * atomic mode need neither a sync nor an order: MPI makes each one atomic
 * and the two sequentially consistent, whichever comes first (a program
 * sets atomic mode to have concurrent accesses, as ROMIO's tests do).
 * Fills @w with what makes it safe.
 */
static int mpiio_conflict(const struct acc *a, const struct acc *b, const struct evlist *la,
			  const struct evlist *lb, int ordered, int by_hb, struct mpiio_why *w)
{
	const struct event *ea, *eb;

	memset(w, 0, sizeof(*w));
	/* (MPI 4.1 §14.6.1: of the handles of one collective open) */
	if ((ea = atomic_at(la, a->seq)) && (eb = atomic_at(lb, b->seq)) && ea->open == eb->open) {
		w->atomic = 1;	/* sequentially consistent: nothing to sync */
		return 0;
	}
	if (!ordered)
		return 1;
	if (streq(a->rank, b->rank))
		return 0;	/* one process's accesses: in program order */
	if (by_hb) {
		w->s1 = first_after_seq(la, EV_COMMIT, a->done);
		w->s2 = later_seq(last_before_seq(lb, EV_COMMIT, b->seq, 0),
				  last_before_seq(lb, EV_OPEN, b->seq, 0));
		if (w->s1 && w->s2 && hbx(a, w->s1->seq, b, w->s2->seq))
			return 0;
	} else {
		w->s1 = first_after(la, EV_COMMIT, a->t0);
		w->s2 = later_t(last_before(lb, EV_COMMIT, b->t0), last_before(lb, EV_OPEN, b->t0));
		if (w->s1 && w->s2 && w->s1->t < w->s2->t)
			return 0;
	}
	w->s1 = w->s2 = NULL;
	return 1;
}

/* The -v fields of the MPI-IO verdict: which syncs order the pair. */
static void mpiio_print(const struct acc *a, const struct acc *b, const struct mpiio_why *w)
{
	if (w->atomic)
		printf("\tatomic=yes");
	if (w->s1)
		printf("\tsync1=%s:%" PRIu64 "\tsync2=%s:%" PRIu64, a->rank, w->s1->seq, b->rank,
		       w->s2->seq);
}

static void mpiio_json(json_t *o, const struct mpiio_why *w)
{
	if (w->atomic)
		json_object_set_new(o, "atomic", json_true());
	if (w->s1) {
		json_object_set_new(o, "sync1_seq", json_integer((json_int_t)w->s1->seq));
		json_object_set_new(o, "sync2_seq", json_integer((json_int_t)w->s2->seq));
	}
}

/* The pieces and bytes of a pair line that stands for more than one pair
 * of pieces: in JSON object @o, or (@o NULL) as -v fields. */
static void put_pieces(json_t *o, uint64_t pieces, uint64_t bytes)
{
	if (pieces < 2)
		return;
	if (!o) {
		printf("\tpieces=%" PRIu64 "\tbytes=%" PRIu64, pieces, bytes);
		return;
	}
	json_object_set_new(o, "pieces", json_integer((json_int_t)pieces));
	json_object_set_new(o, "bytes", json_integer((json_int_t)bytes));
}

/*
 * The optional fields after the two accesses of a pair line (overlap-find
 * sums the pieces two calls share into one line): pieces=N bytes=B, or
 * none for one piece, whose bytes are where the two ranges overlap.
 */
static int parse_pieces(struct tg_tline *t, const struct acc *a, const struct acc *b,
			uint64_t *pieces, uint64_t *bytes)
{
	const char *p = tg_tline_arg(t, 18, "pieces"), *by = tg_tline_arg(t, 18, "bytes");
	int64_t n, v;

	if (t->nf == 18) {
		uint64_t lo = a->start > b->start ? a->start : b->start;
		uint64_t hi = a->end < b->end ? a->end : b->end;
		*pieces = 1;
		*bytes = hi > lo ? hi - lo : 0;
		return 0;
	}
	if (t->nf != 20 || !p || !by || tg_tint(p, &n) < 0 || n < 1 || tg_tint(by, &v) < 0 ||
	    v < 0)
		return -1;
	*pieces = (uint64_t)n;
	*bytes = (uint64_t)v;
	return 0;
}

/*
 * Nonblocking calls (#done lines): each access of call seq of a process
 * lasts until call end of it completed it, at tend.  What comes after it
 * needs that call's order; what it comes after, the call's own.  With
 * from=, only its bytes from that offset on waited (a stdio write that
 * wrote the rest out at its call).
 */
struct done {
	char *rank;
	uint64_t seq, end;
	int64_t tend;
	int64_t from;		/* or -1 */
};
static struct done *dones;
static size_t ndones, capdones;
static int dones_sorted;

static int cmp_done(const void *x, const void *y)
{
	const struct done *a = x, *b = y;
	int c = strcmp(a->rank, b->rank);

	return c ? c : a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void done_line(struct tg_tline *t)
{
	const char *rank = tg_tline_arg(t, 1, "rank"), *seq = tg_tline_arg(t, 1, "seq"),
		   *end = tg_tline_arg(t, 1, "end"), *ts = tg_tline_arg(t, 1, "tend"),
		   *fr = tg_tline_arg(t, 1, "from");
	int64_t s, e, tm, from = -1;

	if (!rank || !seq || !end || !ts || tg_tint(seq, &s) < 0 || s < 0 ||
	    tg_tint(end, &e) < 0 || e < s || (tm = tg_ttime(ts)) < 0 ||
	    (fr && (tg_tint(fr, &from) < 0 || from < 0)))
		die_input("malformed #done line");
	if (dones_sorted || events_sorted)	/* (both set at the first pair) */
		die_input("#done line after the pairs");
	if (ndones == capdones) {
		capdones = capdones ? 2 * capdones : 16;
		dones = xrealloc(dones, capdones * sizeof(*dones));
	}
	dones[ndones++] = (struct done){ xstrdup(rank), (uint64_t)s, (uint64_t)e, tm, from };
}

/* Access @a lasts until the call that completed it, if it had to wait
 * and the bytes it shares with @b did. */
static void done_of(struct acc *a, const struct acc *b)
{
	struct done key, *d;

	a->done = a->seq;
	a->tdone = a->t1;
	if (!ndones)
		return;
	if (!dones_sorted) {
		qsort(dones, ndones, sizeof(*dones), cmp_done);
		dones_sorted = 1;
	}
	key.rank = a->rank;
	key.seq = a->seq;
	if ((d = bsearch(&key, dones, ndones, sizeof(*dones), cmp_done)) &&
	    (d->from < 0 || (a->end < b->end ? a->end : b->end) > (uint64_t)d->from)) {
		a->done = d->end;
		if (d->tend > a->tdone)
			a->tdone = d->tend;
	}
}

/* Unordered pairs of two processes' parts of collective MPI-IO data calls
 * of one function: most likely one call, whose overlapping writes MPI
 * leaves undefined. */
static uint64_t coll_unsync;
/* unordered writes of one range by two processes in one function (not
 * a collective): each rank writing the same small dataset, as HDF5 does
 * when every rank writes it with H5S_ALL */
static uint64_t same_unsync;

/* Per model, the conflicting pairs of two processes whose second access
 * is an append's end of file ('E'). */
static uint64_t eof_conf[M_COUNT];

/* Is @name a collective MPI-IO data call (MPI_File_write_at_all, ...)? */
static int coll_data(const char *name)
{
	const struct tg_calldesc *d = tg_call_byname(name);

	return d && d->layer == TG_LAYER_MPIIO && d->nio && d->hb &&
	       (d->hb->kind == TG_MK_FCOLL || d->hb->kind == TG_MK_FICOLL ||
		d->hb->kind == TG_MK_FBEGIN);
}

/* Does call @func name its file by a path (truncate, stat, dlopen), so
 * that it is its own open under session semantics: it looks the file up
 * afresh, where the last close left it? */
static int by_path(const char *func)
{
	const struct tg_calldesc *d = tg_call_byname(func);
	unsigned i;

	for (i = 0; d && i < d->nio; i++) {
		const struct tg_iorole *r = &d->io[i];
		if ((r->op == TG_IO_TRUNCATE || r->op == TG_IO_SIZE || r->op == TG_IO_LOAD) &&
		    r->h >= 0 &&
		    r->h < d->nargs && d->args[r->h].kind == TG_K_PATH)
			return 1;
	}
	return 0;
}

static void pair_line(struct tg_tline *t)
{
	struct acc a, b, tmp;
	uint64_t pieces, bytes;
	int64_t f;
	int kind, d, m, conf[M_COUNT], ordered = 1, concurrent, unsync, use_hb, self_open, lk;
	const struct event *c = NULL, *cl = NULL, *op = NULL;
	struct event self;
	struct evlist *la, *lb;
	struct mpiio_why mw = { NULL, NULL, 0 };

	if (t->nf < 18 || tg_tint(t->f[1], &f) < 0 || f < 0 || (size_t)f >= npaths ||
	    parse_acc(t, 2, &a) < 0 || parse_acc(t, 10, &b) < 0 ||
	    parse_pieces(t, &a, &b, &pieces, &bytes) < 0)
		die_input("malformed pair line");
	/* a process finds the end of file its own writes made */
	if ((a.eof || b.eof) && streq(a.rank, b.rank))
		return;
	if (!events_sorted)
		sort_events();
	done_of(&a, &b);
	done_of(&b, &a);
	/* the graph knows MPI ranks; processes without one (a program
	 * without MPI, a fork'd child) are ordered by their clocks */
	use_hb = graph_orders(&a, &b);
	if (hbg && !use_hb)
		clock_pairs++;
	else if (!hbg && times_rebuilt && !streq(a.rank, b.rank) &&
		 (!times_anchored || a.r >= 0 || b.r >= 0))
		rebuilt_pairs++;	/* (the calls of processes without a rank
					 * are anchored: their times are the run's) */
	tallies[f].pieces += pieces;
	tallies[f].bytes += bytes;
	if (lock_pair((uint32_t)f, &a, &b, use_hb, pieces, bytes))
		return;
	handoff_unknown = 0;
	if (use_hb) {
		/* happens-before decides the order, not the clocks */
		if (!hbx(&a, a.done, &b, b.seq)) {
			if (hbx(&b, b.done, &a, a.seq)) {
				tmp = a;
				a = b;
				b = tmp;
			} else if (!streq(a.rank, b.rank) && (lk = lock_chain(&a, &b))) {
				if (lk == 2) {
					tmp = a;
					a = b;
					b = tmp;
				}
			} else {
				ordered = 0;
				clock_handoffs += handoff_unknown;
			}
		}
	}
	concurrent = use_hb ? !ordered : a.tdone > b.t0;
	if (!a.write && !concurrent)
		return;		/* write after read: no conflict in any model */
	if (!a.write) {		/* concurrent read and write: report as RAW */
		tmp = a;
		a = b;
		b = tmp;
	}
	kind = b.write;		/* 0 RAW, 1 WAW */
	d = !streq(a.rank, b.rank);
	la = evlist_of((uint32_t)f, a.rank, 0);
	lb = evlist_of((uint32_t)f, b.rank, 0);
	/* truncate(path), stat(path), dlopen(path): the call opens the
	 * file itself */
	self_open = (b.trunc || b.size || !b.write) && by_path(b.func);
	memset(&self, 0, sizeof(self));
	self.t = b.t0;
	self.seq = b.seq;
	/* appends are atomic under POSIX: whatever else runs at the time,
	 * an O_APPEND write lands past the end every other write made */
	conf[M_POSIX] = concurrent && !b.eof;
	if (!use_hb) {
		c = first_after(la, EV_COMMIT, a.done != a.seq ? a.tdone : a.t0);
		conf[M_COMMIT] = concurrent || !c || c->t >= b.t0;
		cl = first_after(la, EV_CLOSE, a.done != a.seq ? a.tdone : a.t0);
		/* (a truncation by an O_TRUNC open is that open's own) */
		op = self_open ? &self : last_before(lb, EV_OPEN, b.t0 + b.trunc);
		conf[M_SESSION] = concurrent || !cl || !op || !(cl->t < op->t);
	} else if (!ordered) {
		conf[M_COMMIT] = conf[M_SESSION] = 1;
	} else {
		c = first_from_seq(la, EV_COMMIT, a.done, a.done != a.seq);
		conf[M_COMMIT] = !c || !before(&a, c->seq, &b, b.seq);
		cl = first_from_seq(la, EV_CLOSE, a.done, a.done != a.seq);
		op = self_open ? &self : last_before_seq(lb, EV_OPEN, b.seq, b.trunc);
		conf[M_SESSION] = !cl || !op || !before(&a, cl->seq, &b, op->seq);
		if (op && op->orank) {
			/* (an inherited description: its session began at the
			 * open that made it, in whichever process) */
			struct acc o = b;
			o.rank = op->orank;
			if (tg_tint(o.rank, &o.r) < 0 || o.r < 0)
				o.r = -1;
			conf[M_SESSION] = !cl || !before(&a, cl->seq, &o, op->oseq);
		}
	}
	conf[M_MPIIO] = (applicable & (1u << M_MPIIO)) &&
			mpiio_conflict(&a, &b, la, lb, !concurrent, use_hb, &mw);
	/* concurrent in atomic mode: MPI orders the two itself */
	unsync = concurrent && !mw.atomic && !b.eof;
	/* a size seen while another process wrote: the older size a weaker
	 * model may give is one POSIX gives too, had the look come first */
	if (b.size && concurrent) {
		for (m = 0; m < M_COUNT; m++)
			conf[m] = 0;
		unsync = 0;
		c = cl = op = NULL;	/* no record makes it safe: nothing does */
	}
	/* a truncation is applied where the file is kept, at once, as every
	 * file system does its metadata: what happens after it sees it */
	if (a.trunc && !concurrent) {
		for (m = 0; m < M_COUNT; m++)
			conf[m] = 0;
		c = cl = op = NULL;
	}
	if (unsync && d && coll_data(a.func) && streq(a.func, b.func))
		coll_unsync++;
	else if (unsync && d && kind && streq(a.func, b.func) && a.start == b.start &&
		 a.end == b.end)
		same_unsync++;
	tallies[f].pairs[kind][d]++;
	if (unsync)
		tallies[f].unsync[kind][d]++;
	for (m = 0; m < M_COUNT; m++) {
		tallies[f].conf[m][kind][d] += (uint64_t)conf[m];
		if (b.eof && d)
			eof_conf[m] += (uint64_t)conf[m];
	}
	site_add((uint32_t)f, kind, d, a.func, b.func, pieces, bytes, unsync, conf);
	if (opt_json) {
		json_t *o = json_object(), *cm = json_object();
		json_object_set_new(o, "file", json_string(paths[f]));
		json_object_set_new(o, "kind", json_string(kind ? "WAW" : "RAW"));
		json_object_set_new(o, "procs", json_string(d ? "D" : "S"));
		json_acc(o, "first", &a);
		json_acc(o, "second", &b);
		for (m = 0; m < M_COUNT; m++)
			if (applicable & (1u << m))
				json_object_set_new(cm, model_names[m], json_boolean(conf[m]));
		json_object_set_new(o, "conflict", cm);
		json_object_set_new(o, "ordered_by", json_string(use_hb ? "happens-before"
								      : "time"));
		json_object_set_new(o, "synchronized", json_boolean(!concurrent));
		if (!conf[M_COMMIT] && c)
			json_object_set_new(o, "commit_seq", json_integer((json_int_t)c->seq));
		if (!conf[M_SESSION] && cl && op) {
			json_object_set_new(o, "close_seq", json_integer((json_int_t)cl->seq));
			json_object_set_new(o, "open_seq", json_integer((json_int_t)op->seq));
		}
		if (applicable & (1u << M_MPIIO))
			mpiio_json(o, &mw);
		put_pieces(o, pieces, bytes);
		json_dumpf(o, stdout, JSON_COMPACT | JSON_ENSURE_ASCII);
		putchar('\n');
		json_decref(o);
	} else if (opt_verbose) {
		printf("%s-%s\t%s\t%s:%" PRIu64 " %s %s [%" PRIu64 ",%" PRIu64 ")\t%s:%" PRIu64
		       " %s %s [%" PRIu64 ",%" PRIu64 ")", kind ? "WAW" : "RAW", d ? "D" : "S",
		       paths[f], a.rank, a.seq, a.func, op_letter(&a), a.start, a.end,
		       b.rank, b.seq, b.func, op_letter(&b), b.start, b.end);
		for (m = 0; m < M_COUNT; m++)
			if (applicable & (1u << m))
				printf("\t%s=%s", model_names[m], conf[m] ? "conflict" : "ok");
		printf("\tsynchronized=%s", concurrent ? "no" : "yes");
		/* the records that make the pair safe under each model */
		if (!conf[M_COMMIT] && c)
			printf("\tcommit=%s:%" PRIu64, a.rank, c->seq);
		if (!conf[M_SESSION] && cl && op)
			printf("\tclose=%s:%" PRIu64 "\topen=%s:%" PRIu64, a.rank, cl->seq, b.rank,
			       op->seq);
		if (applicable & (1u << M_MPIIO))
			mpiio_print(&a, &b, &mw);
		put_pieces(NULL, pieces, bytes);
		putchar('\n');
	}
}

/*
 * Make room for file ids below @n.  Ids come in any order and with gaps:
 * the arrays grow to @n at once, doubling, and are calloc'd, so that the
 * ids never used cost no memory until touched.  (Growing one entry at a
 * time, a single "#file file=10000000" line took minutes.)
 */
static void files_grow(size_t n)
{
	static size_t cap;
	char **np;
	struct tally *nt;

	if (n > cap) {
		size_t c = cap ? cap : 64;

		while (c < n)
			c *= 2;
		np = calloc(c, sizeof(*np));
		nt = calloc(c, sizeof(*nt));
		if (!np || !nt) {
			fprintf(stderr, "conflict-check: out of memory\n");
			exit(TG_EXIT_ERROR);
		}
		if (npaths) {
			memcpy(np, paths, npaths * sizeof(*np));
			memcpy(nt, tallies, npaths * sizeof(*nt));
		}
		free(paths);
		free(tallies);
		paths = np;
		tallies = nt;
		cap = c;
	}
	npaths = n;
}

static void file_line(struct tg_tline *t)
{
	const char *id = tg_tline_arg(t, 1, "file"), *p = tg_tline_arg(t, 1, "path"),
		   *g = tg_tline_arg(t, 1, "gen");
	char buf[8192];
	int64_t f, gen = 0;

	if (!id || !p || tg_tint(id, &f) < 0 || f < 0 || f > (1 << 24) ||
	    tg_tunquote(p, buf, sizeof(buf)) != 0 || (g && (tg_tint(g, &gen) < 0 || gen < 0)))
		die_input("malformed #file line");
	if ((size_t)f >= npaths)
		files_grow((size_t)f + 1);
	free(paths[f]);
	/* another file under the same name, after a removal: "path [n]" */
	if (gen > 0) {
		size_t n = strlen(buf) + 24;
		paths[f] = tg_xrealloc(NULL, n);
		snprintf(paths[f], n, "%s [%" PRId64 "]", buf, gen);
	} else {
		paths[f] = xstrdup(buf);
	}
}

/* #implied: pairs overlap-find left out, as a write over one of the two
 * by its thread between them stands for them (overlap-find(1)). */
static void implied_line(struct tg_tline *t)
{
	const char *fs = tg_tline_arg(t, 1, "file"), *ps = tg_tline_arg(t, 1, "pairs");
	int64_t f, n;

	if (!fs || !ps || tg_tint(fs, &f) < 0 || f < 0 || (size_t)f >= npaths || !paths[f] ||
	    tg_tint(ps, &n) < 0 || n < 0)
		die_input("malformed #implied line");
	tallies[f].implied += (uint64_t)n;
}

static void event_line(struct tg_tline *t)
{
	const char *fs = tg_tline_arg(t, 1, "file"), *rank = tg_tline_arg(t, 1, "rank"),
		   *seq = tg_tline_arg(t, 1, "seq"), *ts = tg_tline_arg(t, 1, "t"),
		   *kind = tg_tline_arg(t, 1, "kind"), *op = tg_tline_arg(t, 1, "open"),
		   *inh = tg_tline_arg(t, 1, "inherited"), *orank = tg_tline_arg(t, 1, "origin"),
		   *oseq = tg_tline_arg(t, 1, "originseq");
	int64_t f, s, tm, open = -1, os = -1;
	struct evlist *l;
	int k;

	if (!fs || !rank || !seq || !ts || !kind || tg_tint(fs, &f) < 0 || f < 0 ||
	    (size_t)f >= npaths || tg_tint(seq, &s) < 0 || s < 0 || (tm = tg_ttime(ts)) < 0 ||
	    (op && (tg_tint(op, &open) < 0 || open < 0)) || !orank != !oseq ||
	    (oseq && (tg_tint(oseq, &os) < 0 || os < 0)))
		die_input("malformed #event line");
	for (k = 0; k < EV_KINDS && !streq(kind, ev_names[k]); k++)
		;
	if (k == EV_KINDS)
		die_input("unknown event kind");
	if (events_sorted)
		die_input("#event line after the pairs");
	l = evlist_of((uint32_t)f, rank, 1);
	if (l->n[k] == l->cap[k]) {
		l->cap[k] = l->cap[k] ? 2 * l->cap[k] : 8;
		l->ev[k] = xrealloc(l->ev[k], l->cap[k] * sizeof(struct event));
	}
	l->ev[k][l->n[k]].t = tm;
	l->ev[k][l->n[k]].seq = (uint64_t)s;
	l->ev[k][l->n[k]].open = open;
	l->ev[k][l->n[k]].before = inh && streq(inh, "1");
	l->ev[k][l->n[k]].orank = orank ? xstrdup(orank) : NULL;
	l->ev[k][l->n[k]].oseq = (uint64_t)os;
	l->n[k]++;
}

/* ---- results ------------------------------------------------------------------- */

static void summary(void)
{
	size_t f;
	int m;

	if (opt_json) {
		json_t *o = json_object(), *arr = json_array();
		for (f = 0; f < npaths; f++) {
			struct tally *t = &tallies[f];
			json_t *fo, *mo;
			if (!paths[f] || !(t->pairs[0][0] + t->pairs[0][1] + t->pairs[1][0] +
					   t->pairs[1][1]))
				continue;
			mo = json_object();
			for (m = 0; m < M_COUNT; m++) {
				if (!(applicable & (1u << m)))
					continue;
				json_object_set_new(mo, model_names[m], json_pack(
					"{s:I,s:I,s:I,s:I}", "WAW-S", (json_int_t)t->conf[m][1][0],
					"WAW-D", (json_int_t)t->conf[m][1][1], "RAW-S",
					(json_int_t)t->conf[m][0][0], "RAW-D",
					(json_int_t)t->conf[m][0][1]));
			}
			fo = json_pack("{s:s,s:o,s:I,s:I,s:I}", "file", paths[f], "conflicts", mo,
				       "pieces", (json_int_t)t->pieces, "bytes", (json_int_t)t->bytes,
				       "implied", (json_int_t)t->implied);
			json_array_append_new(arr, fo);
		}
		json_object_set_new(o, "summary", arr);
		if (input_run) {
			char id[17];
			tg_run_format(input_run, id);
			json_object_set_new(o, "run", json_string(id));
		}
		if (opt_sites)
			sites_print(o);
		json_dumpf(o, stdout, JSON_COMPACT | JSON_ENSURE_ASCII);
		putchar('\n');
		json_decref(o);
		return;
	}
	printf("%-8s %-40s %7s %7s %7s %7s\n", "model", "file", "WAW-S", "WAW-D", "RAW-S",
	       "RAW-D");
	for (m = 0; m < M_COUNT; m++) {
		uint64_t tot[2][2] = { { 0, 0 }, { 0, 0 } };
		if (!(models & (1u << m)))
			continue;
		for (f = 0; f < npaths; f++) {
			struct tally *t = &tallies[f];
			uint64_t (*c)[2] = t->conf[m];
			if (!paths[f] || !(c[0][0] + c[0][1] + c[1][0] + c[1][1]))
				continue;
			printf("%-8s %-40s %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 "\n",
			       model_names[m], paths[f], c[1][0], c[1][1], c[0][0], c[0][1]);
			tot[0][0] += c[0][0];
			tot[0][1] += c[0][1];
			tot[1][0] += c[1][0];
			tot[1][1] += c[1][1];
		}
		printf("%-8s %-40s %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 "\n",
		       model_names[m], "(all files)", tot[1][0], tot[1][1], tot[0][0], tot[0][1]);
	}
	if (opt_sites)
		sites_print(NULL);
}

/* Conflicts that count against model @m: those between processes, and with
 * --strict those within one process too. */
static uint64_t counted(int m)
{
	uint64_t n = 0;
	size_t f;
	int k;

	for (f = 0; f < npaths; f++)
		for (k = 0; k < 2; k++)
			n += tallies[f].conf[m][k][1] + (opt_strict ? tallies[f].conf[m][k][0] : 0);
	return n;
}

static uint64_t unsynchronized(void)
{
	uint64_t n = name_races;
	size_t f;

	for (f = 0; f < npaths; f++)
		n += tallies[f].unsync[0][0] + tallies[f].unsync[0][1] +
		     tallies[f].unsync[1][0] + tallies[f].unsync[1][1];
	return n;
}

/* The weakest model under which no counted pair conflicts: on standard
 * output one word, or after the table the line "recommended consistency:
 * MODEL" (or its JSON object), the form verify-io shows. */
static void recommend(int after_table)
{
	/* weakest first: whatever session allows, mpiio does (a close is a
	 * sync, an open too), and what mpiio allows by sync-barrier-sync,
	 * commit does (the writer's sync happens before the other access);
	 * atomic mode and a process's own pairs are mpiio's alone */
	static const int order[] = { M_SESSION, M_MPIIO, M_COMMIT, M_POSIX };
	const char *name;
	int i, m = -1;

	for (i = 0; i < 4 && m < 0 && !name_races; i++)
		if ((applicable & (1u << order[i])) && counted(order[i]) == 0)
			m = order[i];
	/* when even posix leaves conflicts, posix is still the best there is;
	 * the line after the table says that it is not enough, so that no one
	 * reading it alone takes the run for correct under posix */
	name = model_names[m < 0 ? M_POSIX : m];
	if (!after_table)
		printf("%s\n", name);
	else if (opt_json)
		printf("{\"recommended\":\"%s\"}\n", name);
	else
		printf("recommended consistency: %s%s\n", name,
		       m < 0 && (counted(M_POSIX) || name_races) ?
		       " (no model makes this run correct)" : "");
	if (m < 0 && counted(M_POSIX))
		warnx("%" PRIu64 " conflicting %s not synchronized: no model makes this "
		      "run correct", counted(M_POSIX),
		      counted(M_POSIX) == 1 ? "pair is" : "pairs are");
	if (name_races) {
		char w[96], fw[96];
		proc_desc(name_first.r, name_first.rname, w, sizeof(w));
		proc_desc(name_first.fr, name_first.frname, fw, sizeof(fw));
		if (name_first.dir)
			warnx("%" PRIu64 " call%s by name not ordered with another process's "
			      "call that made or removed the name (a mkdir of a directory on the "
			      "path, an unlink, MPI_File_delete, an open with O_CREAT): whether %s "
			      "the name, depends on which ran first; no model makes this run "
			      "correct (the first: call %" PRIu64 " of %s went through directory "
			      "%s, made by the mkdir, call %" PRIu64 ", of %s)", name_races,
			      name_races == 1 ? "" : "s", name_races == 1 ? "it found" : "they found",
			      name_first.seq, w, paths[name_first.f], name_first.fseq, fw);
		else
			warnx("%" PRIu64 " open%s of a name not ordered with another process's "
			      "call that removed or made it (unlink, MPI_File_delete, an open with "
			      "O_CREAT, a mkdir of a directory on the path): whether %s a file "
			      "there, and which, depends on which ran first; no model makes this "
			      "run correct (the first: the open of %s, call %" PRIu64 " of %s, and "
			      "call %" PRIu64 " of %s)", name_races, name_races == 1 ? "" : "s",
			      name_races == 1 ? "it found" : "they found", paths[name_first.f],
			      name_first.seq, w, name_first.fseq, fw);
	}
	/* posix for the appends alone: say so, it is not a race */
	if (m == M_POSIX && eof_conf[M_COMMIT] == 1 && counted(M_COMMIT) == 1)
		warnx("the pair that rules out commit is an O_APPEND write that found the "
		      "end of file another process's write made, with no commit of it "
		      "before: only atomic appends (posix) keep both");
	else if (m == M_POSIX && eof_conf[M_COMMIT] && eof_conf[M_COMMIT] == counted(M_COMMIT))
		warnx("the %" PRIu64 " pairs that rule out commit are O_APPEND writes that "
		      "found the end of file another process's write made, with no commit "
		      "of it before: only atomic appends (posix) keep both",
		      eof_conf[M_COMMIT]);
	else if (m == M_POSIX && eof_conf[M_COMMIT])
		warnx("%" PRIu64 " of the pairs that rule out commit %s O_APPEND write%s that "
		      "found the end of file another process's write made, with no commit "
		      "of it before: only atomic appends (posix) keep both",
		      eof_conf[M_COMMIT], eof_conf[M_COMMIT] == 1 ? "is an" : "are",
		      eof_conf[M_COMMIT] == 1 ? "" : "s");
	if (m < 0 && coll_unsync)
		warnx("%" PRIu64 " of them are the parts of different ranks in collective calls "
		      "(one call each, most likely): MPI leaves the result of overlapping writes "
		      "in one collective call undefined; they are harmless only when the ranks "
		      "write the same bytes", coll_unsync);
	if (m < 0 && same_unsync)
		warnx("%" PRIu64 " of them are writes of one range by two processes in the same "
		      "function, not ordered (as when every rank writes one small dataset with "
		      "H5S_ALL): harmless only when they write the same bytes", same_unsync);
}

static int opt_recommend, opt_model, opt_fail_unsync;

static void parse_options(int argc, char **argv)
{
	enum { O_HB = 256, O_MODEL, O_RECOMMEND, O_STRICT, O_FAIL, O_SITES, O_FORCE };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "hb", required_argument, NULL, O_HB },
		{ "model", required_argument, NULL, O_MODEL },
		{ "recommend", no_argument, NULL, O_RECOMMEND },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "fail-on-unsynchronized", no_argument, NULL, O_FAIL },
		{ "sites", no_argument, NULL, O_SITES },
		{ "force", no_argument, NULL, O_FORCE },
		{ NULL, 0, NULL, 0 },
	};
	int c, m;

	while ((c = getopt_long(argc, argv, "hjv", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(TG_EXIT_OK);
			break;
		case 'j':
			opt_json = 1;
			break;
		case 'v':
			opt_verbose = 1;
			break;
		case O_HB:
			hb_file = optarg;
			if (access(hb_file, R_OK) < 0)
				err(TG_EXIT_ERROR, "cannot read '%s'", hb_file);
			break;
		case O_MODEL:
			opt_model = 1;
			if (streq(optarg, "all")) {
				models = (1u << M_COUNT) - 1;
				break;
			}
			for (m = 0; m < M_COUNT && !streq(optarg, model_names[m]); m++)
				;
			if (m == M_COUNT)
				errx(TG_EXIT_ERROR, "option --model: unknown model '%s' (posix, "
				     "commit, session, mpiio, all)", optarg);
			models = 1u << m;
			break;
		case O_RECOMMEND:
			opt_recommend = 1;
			break;
		case O_STRICT:
			opt_strict = 1;
			break;
		case O_FAIL:
			opt_fail_unsync = 1;
			break;
		case O_SITES:
			opt_sites = 1;
			break;
		case O_FORCE:
			opt_force = 1;
			break;
		default:
			usage(TG_EXIT_ERROR);
		}
	}
}

/*
 * The #overlap line: MPI-IO semantics judge only the MPI-IO layer's
 * pairs (overlap-find -l mpiio), where syncs are MPI_File_sync; asked of
 * POSIX pairs alone it is an error, and --model all leaves it out.
 */
static void layer_line(struct tg_tline *t)
{
	const char *l = tg_tline_arg(t, 1, "layer");

	if (l && streq(l, "mpiio")) {
		applicable |= 1u << M_MPIIO;
		return;
	}
	if (models == 1u << M_MPIIO) {
		fflush(stdout);
		errx(TG_EXIT_ERROR, "%s: model mpiio judges MPI-IO pairs (overlap-find -l mpiio), "
		     "not layer %s", input_name, l ? l : "(none)");
	}
	models &= applicable;
}

/* Read overlap-find's output from @in, judging each pair as it comes. */
static void read_input(int in)
{
	struct tg_tline t;
	struct tg_lines lr;
	char *line;
	size_t len;

	if (tg_lines_open(&lr, in) < 0)
		errx(TG_EXIT_ERROR, "out of memory");
	while ((line = tg_lines_next(&lr, &len))) {
		lineno++;
		if (len != strlen(line))
			die_input("NUL byte in input");
		if (lineno == 1 && strncmp(line, "#overlap\t", 9) != 0)
			die_input("not overlap-find output (no #overlap line)");
		tg_tline_split(line, &t);
		if (lineno == 1)
			layer_line(&t);
		if (streq(t.f[0], "#run"))
			run_line(&t);
		else if (streq(t.f[0], "#file"))
			file_line(&t);
		else if (streq(t.f[0], "#event"))
			event_line(&t);
		else if (streq(t.f[0], "#done"))
			done_line(&t);
		else if (streq(t.f[0], "#lock"))
			lock_line(&t);
		else if (streq(t.f[0], "#unplaced"))
			unplaced_line(&t);
		else if (streq(t.f[0], "#implied"))
			implied_line(&t);
		else if (streq(t.f[0], "#after"))
			after_line(&t);
		else if (streq(t.f[0], "#name"))
			name_line(&t);
		else if (streq(t.f[0], "#child"))
			child_line(&t);
		else if (streq(t.f[0], "#bytime"))
			bytime_line(&t);
		else if (streq(t.f[0], "#timing"))
			timing_line(&t);
		else if (streq(t.f[0], "pair"))
			pair_line(&t);
		else if (streq(t.f[0], "access"))
			continue;
		else if (t.f[0][0] != '#')
			die_input("unknown line");
	}
	if (lr.err) {
		errno = lr.err;
		err(TG_EXIT_ERROR, "%s", input_name);
	}
	if (lineno == 0)
		die_input("empty input (no #overlap line)");
	tg_lines_close(&lr);
}

int main(int argc, char **argv)
{
	int in = 0, status = TG_EXIT_OK;

	parse_options(argc, argv);
	if (argc - optind > 1)
		usage(TG_EXIT_ERROR);
	if (argc - optind == 1 && !streq(argv[optind], "-")) {
		input_name = argv[optind];
		in = open(input_name, O_RDONLY);
		if (in < 0)
			err(TG_EXIT_ERROR, "cannot open '%s'", input_name);
	}
	if (hb_file)
		hb_open();
	read_input(in);
	judge_names();
	/* --recommend alone prints one word; with --model, the table first */
	if (!opt_recommend || opt_model)
		summary();
	if (opt_recommend)
		recommend(opt_model);
	if (opt_fail_unsync && unsynchronized() > 0)
		status = TG_EXIT_FINDING;
	if (unplaced_calls)
		warnx("%" PRIu64 " call%s of %" PRIu64 " process%s could not be placed in "
		      "the file (#unplaced): conflicts with their bytes are not counted",
		      unplaced_calls, unplaced_calls == 1 ? "" : "s", unplaced_procs,
		      unplaced_procs == 1 ? "" : "es");
	if (bytime_files)
		warnx("on %" PRIu64 " file%s, which file a name named, where an O_APPEND write "
		      "landed or what a truncation took away was placed by the order of two "
		      "processes' calls, which times rebuilt from a .cfg (#timing) do not keep: "
		      "merge with -t lossless, or judge the .rec streams",
		      bytime_files, bytime_files == 1 ? "" : "s");
	if (rebuilt_pairs)
		warnx("%" PRIu64 " pair%s of two processes %s ordered by times rebuilt from a .cfg "
		      "(#timing), which do not keep the order of two processes' calls: give the "
		      "graph (--hb, from hb-build), as verify-io does, or merge with -t lossless",
		      rebuilt_pairs, rebuilt_pairs == 1 ? "" : "s",
		      rebuilt_pairs == 1 ? "was" : "were");
	if (clock_handoffs)
		warnx("%" PRIu64 " pair%s nothing else orders may be ordered by the handoff of a "
		      "record lock, whose direction times rebuilt from a .cfg of an older version "
		      "(#timing without anchored=1) do not keep: taken as unordered; merge again, "
		      "or judge the .rec streams",
		      clock_handoffs, clock_handoffs == 1 ? "" : "s");
	if (clock_pairs)
		warnx("%" PRIu64 " pair%s of a process without an MPI rank (a fork'd child, a "
		      "program without MPI) %s ordered by the clocks, not the graph%s",
		      clock_pairs, clock_pairs == 1 ? "" : "s", clock_pairs == 1 ? "was" : "were",
		      times_rebuilt ? ", clocks rebuilt from a .cfg (#timing) that order none "
				      "of them: merge with -t lossless, or judge the .rec streams" : "");
	if (hbg)
		tg_hb_close(hbg);
	tg_close_stdout();
	return status;
}
