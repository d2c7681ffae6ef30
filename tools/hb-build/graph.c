/*
 * graph.c - the happens-before graph of an MPI run, from text records:
 * parsing, and hbb_build(), which runs the passes (memory, the MPI
 * functions that matter and the problems are util.c's).  Four passes
 * (walk.c does 2 and 3, index.c 4):
 *  1. parse: each line is split just far enough; only the communication
 *     calls of the MPI layers are kept, with the few arguments matching
 *     needs, in a per-rank table.  Other records only count and, when
 *     nested, tell how far their parent call reaches (its span).
 *  2. walk: each rank's calls in the order they started (seq): handles
 *     (communicators, files, requests) are followed, communicators get a
 *     global identity from (parent, creating call, members, occurrence),
 *     and every send, receive and collective call becomes an operation
 *     with the node where it starts and the node where it completes.
 *  3. match: sends to receives per (communicator, source, destination,
 *     tag) in order, wildcards resolved from the recorded status;
 *     collectives by their position on their communicator or file.
 *  4. index: the nodes in a topological order, each given the vector of
 *     the last node of every rank whose start reaches its end.  A rank
 *     that cannot go on waits for the rank it needs; if all wait, the
 *     graph has a cycle and the trace is broken.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "graph.h"

#include <err.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../libcommon/calltab.h"
#include "../../libcommon/hb.h"
#include "../../libcommon/tg.h"
#include "../../libcommon/util.h"
#include "int.h"
#include "../../libcommon/banned.h"

/* The call table row of an MPI or MPI-IO function named by the @n bytes
 * at @s, or NULL. */
/* Whether @d synchronises one-sided communication by other means than
 * fences, lock epochs, post/start/complete/wait and the completion of
 * passive-target operations (MPI_Win_sync of a shared-memory window, or
 * a lock when the times are not the run's), which the graph does not
 * order by: accesses only such calls order are left unordered.  The
 * others are edges (walk.c: hb_rma_edges, hb_lock_edges, hb_pscw_edges,
 * hb_passive_edges), and the walk tells which of theirs it cannot order. */
static int one_sided_sync(const struct tg_calldesc *d)
{
	static const char *const names[] = {
		"lock", "unlock", "sync",
	};
	size_t i;

	if (strncmp(d->name, "MPI_Win_", 8) != 0)
		return 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(d->name + 8, names[i]) == 0)
			return 1;
	return 0;
}

static const struct tg_calldesc *mpi_call(const char *s, size_t n)
{
	const struct tg_calldesc *d = tg_call_byname_n(s, n);

	return d && (d->layer == TG_LAYER_MPI || d->layer == TG_LAYER_MPIIO) ? d : NULL;
}

void hbb_mpi_only(struct hbb *b)
{
	b->mpionly = 1;
}

struct hbb *hbb_new(void)
{
	struct hbb *b = hb_calloc(1, sizeof(*b));

	if (!hb_ftab)
		hb_ftab_init();
	b->world = 0;
	return b;
}

static void rst_free(struct rst *r)
{
	hb_free(r->rec.v);
	hb_free(r->pool.v);
	hb_free(r->cmap.v);
	hb_free(r->fmap.v);
	hb_free(r->ldef.v);
	hb_free(r->fdef.v);
	hb_free(r->wmap.v);
	hb_free(r->wdef.v);
	hb_free(r->pending.v);
	hb_free(r->dcomm.v);
	hb_free(r->kids.v);
	hb_free(r->rt.v);
	hb_free(r->rtz.v);
	hb_free(r->rect);
	hb_umap_free(&r->nest);
	hb_free(r);
}

void hbb_free(struct hbb *b)
{
	size_t i, j;

	if (!b)
		return;
	for (i = 0; i < b->st.n; i++)
		rst_free(b->st.v[i]);
	hb_free(b->st.v);
	hb_free(b->rankst.v);
	hb_umap_free(&b->pidst);
	hb_free(b->carry);
	for (i = 0; i < b->g.n; i++) {
		for (j = 0; j < b->g.v[i].n; j++) {
			hb_free(b->g.v[i].lists[j].v);
			if (b->g.v[i].nbr)
				hb_free(b->g.v[i].nbr[j].v);
		}
		hb_free(b->g.v[i].lists);
		hb_free(b->g.v[i].nbr);
		hb_free(b->g.v[i].members);
	}
	hb_free(b->g.v);
	hb_free(b->keys.v);
	hb_free(b->keyoff.v);
	hb_umap_free(&b->keyidx);
	hb_umap_free(&b->occ);
	hb_umap_free(&b->gidof);
	hb_free(b->selfgid.v);
	hb_free(b->sends.v);
	hb_free(b->recvs.v);
	hb_free(b->preadys.v);
	hb_free(b->parrs.v);
	hb_free(b->insts.v);
	hb_free(b->flows.v);
	hb_free(b->rma.v);
	hb_free(b->runs.v);
	hb_free(b->esrc.v);
	hb_free(b->edst.v);
	hb_free(b->ekind.v);
	hb_free(b->xfunc.v);
	hb_free(b->xkind.v);
	hb_free(b->prob.v);
	hb_umap_free(&b->probidx);
	hb_free(b->rankfirst);
	hb_free(b->seq);
	hb_free(b->nt0);
	hb_free(b->nt1);
	hb_free(b->recpos.v);
	hb_free(b->lockeps.v);
	hb_free(b->pscw.v);
	hb_free(b->pops.v);
	hb_free(b->eindex);
	hb_free(b->span);
	hb_free(b->clock);
	hb_free(b->etarget);
	hb_free(b->func);
	hb_free(b->ekind_sorted);
	hb_free(b->rankinfo);
	hb_free(b->vn.v);
	hb_free(b->vw.v);
	hb_free(b);
}

/* ---- parsing ------------------------------------------------------------------------ */

static int bad(struct hbb *b, char *err, size_t errlen, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s: line %llu: %s", b->name, (unsigned long long)b->line, msg);
	return -1;
}

/* A decimal number (optionally negative) that is the whole of s[0..n). */
static int pnum(const char *s, size_t n, int64_t *v)
{
	uint64_t x = 0;
	int neg = 0;
	size_t i = 0;

	if (n && s[0] == '-') {
		neg = 1;
		i = 1;
	}
	if (i == n || n - i > 19)
		return -1;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (x > (uint64_t)INT64_MAX)
		return -1;
	*v = neg ? -(int64_t)x : (int64_t)x;
	return 0;
}

/* Two ints of the pool for a time (lock_time() in walk.c reads them). */
static void push_time(ivec *pool, int64_t t)
{
	PUSH(*pool, (int32_t)(uint32_t)((uint64_t)t & 0xffffffffu));
	PUSH(*pool, (int32_t)(uint32_t)((uint64_t)t >> 32));
}

/* A record's seq and times, kept as they are read: each a difference
 * (from the rank's previous seq and start, and from the start), zigzag,
 * 7 bits a byte; a few bytes a record where a struct rtime takes 24
 * (hb_rtimes() in walk.c unpacks them). */
static void rtz_int(struct rst *r, int64_t d)
{
	uint64_t z = ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);

	RESERVE(r->rtz, r->rtz.n + 10);
	while (z >= 0x80) {
		r->rtz.v[r->rtz.n++] = (uint8_t)(z | 0x80);
		z >>= 7;
	}
	r->rtz.v[r->rtz.n++] = (uint8_t)z;
}

static void rtz_push(struct rst *r, uint64_t seq, int64_t t0, int64_t t1)
{
	rtz_int(r, (int64_t)(seq - r->rtz_seq));
	rtz_int(r, (int64_t)((uint64_t)t0 - (uint64_t)r->rtz_t0));
	rtz_int(r, (int64_t)((uint64_t)t1 - (uint64_t)t0));
	r->rtz_seq = seq;
	r->rtz_t0 = t0;
	r->rtz_n++;
}

/* A time "SECONDS.FRACTION" of s[0..n), in nanoseconds. */
static int ptime(const char *s, size_t n, int64_t *ns)
{
	const char *dot = memchr(s, '.', n);
	size_t k = dot ? (size_t)(dot - s) : n, i;
	int64_t sec, frac = 0;

	if (pnum(s, k, &sec) < 0 || sec < 0 || sec > INT64_MAX / 1000000000 - 1)
		return -1;
	if (dot) {
		for (i = k + 1; i < n; i++) {
			if (s[i] < '0' || s[i] > '9')
				return -1;
			if (i - k <= 9)
				frac = frac * 10 + (s[i] - '0');
		}
		for (i = n - k - 1; i < 9; i++)
			frac *= 10;
	}
	*ns = sec * 1000000000 + frac;
	return 0;
}

static int pu64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (n == 0 || n > 20)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return 0;
}

static int32_t clamp32(int64_t v)
{
	return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

struct arg {
	const char *n, *v;
	uint32_t nl, vl;
};

#define MAXARGS 40

/* Split the name=value fields of s[0..n); returns their count or -1. */
static int split_args(const char *s, size_t n, struct arg *a)
{
	const char *end = s + n;
	int k = 0;

	while (s < end && k < MAXARGS) {
		const char *t = memchr(s, '\t', end - s), *eq;
		if (!t)
			t = end;
		eq = memchr(s, '=', t - s);
		if (!eq)
			return -1;
		a[k++] = (struct arg){ s, eq + 1, (uint32_t)(eq - s), (uint32_t)(t - eq - 1) };
		s = t + 1;
	}
	return k;
}

static const struct arg *find(const struct arg *a, int n, const char *name)
{
	size_t l = strlen(name);
	int i;

	for (i = 0; i < n; i++)
		if (a[i].nl == l && memcmp(a[i].n, name, l) == 0)
			return &a[i];
	return NULL;
}

static struct rst *rst_new(struct hbb *b, int64_t rank)
{
	struct rst *r = hb_calloc(1, sizeof(*r));

	r->rank = rank;
	r->run = -1;
	r->lastseq = TG_HB_NOSEQ;
	r->sorted = 1;
	r->tid1 = -1;
	r->tid0 = -1;
	PUSH(b->st, r);
	return r;
}

static struct rst *rank_state(struct hbb *b, int64_t rank)
{
	size_t old = b->rankst.n;

	if ((size_t)rank >= b->rankst.n) {
		RESERVE(b->rankst, (size_t)rank + 1);
		b->rankst.n = (size_t)rank + 1;
		memset(b->rankst.v + old, 0xff, (b->rankst.n - old) * sizeof(int32_t));
	}
	if (b->rankst.v[rank] < 0) {
		b->rankst.v[rank] = (int32_t)b->st.n;
		rst_new(b, rank);
	}
	return b->st.v[b->rankst.v[rank]];
}

static struct rst *pid_state(struct hbb *b, uint64_t pid)
{
	uint64_t *s = hb_umap_at(&b->pidst, pid, 1, UINT64_MAX);

	if (*s == UINT64_MAX) {
		*s = b->st.n;
		rst_new(b, -1);
	}
	return b->st.v[*s];
}

/* "p4242" or "3" in a rank column or field: the state, or NULL if bad. */
static struct rst *who(struct hbb *b, const char *s, size_t n)
{
	uint64_t v;

	if (n > 1 && s[0] == 'p') {
		if (pu64(s + 1, n - 1, &v) < 0)
			return NULL;
		return pid_state(b, v);
	}
	if (pu64(s, n, &v) < 0 || v >= MAXRANK)
		return NULL;
	if ((int64_t)v >= b->world)
		b->world = (int64_t)v + 1;
	return rank_state(b, (int64_t)v);
}

/* The process with @pid is rank @rank. */
static int link_pid(struct hbb *b, uint64_t pid, int64_t rank, char *err, size_t errlen)
{
	uint64_t *s = hb_umap_at(&b->pidst, pid, 0, 0);
	struct rst *pr, *rr;

	if ((int64_t)rank >= b->world)
		b->world = rank + 1;
	rr = rank_state(b, rank);
	if (!s) {
		/* the rank's own state answers for the pid from now on */
		*hb_umap_at(&b->pidst, pid, 1, 0) = (uint64_t)b->rankst.v[rank];
		return 0;
	}
	pr = b->st.v[*s];
	if (pr == rr)
		return 0;
	if (pr->rank >= 0)
		return bad(b, err, errlen, "process %llu is rank %lld and rank %lld",
			   (unsigned long long)pid, (long long)pr->rank, (long long)rank);
	/* the records the process made before it knew its rank are the rank's */
	if (rr->records || rr->ldef.n)
		return bad(b, err, errlen, "two processes are rank %lld", (long long)rank);
	rr->rank = -2;	/* an empty state, never used again */
	b->rankst.v[rank] = (int32_t)*s;
	pr->rank = rank;
	return 0;
}

/* "[1,2,3]" -> ints pushed to @out; returns the count or -1. */
static int int_array(const char *v, size_t n, ivec *out)
{
	size_t i = 1, j;
	int k = 0;
	int64_t x;

	if (n < 2 || v[0] != '[' || v[n - 1] != ']')
		return -1;
	if (n == 2)
		return 0;
	while (i < n) {
		for (j = i; j < n - 1 && v[j] != ','; j++)
			;
		if (pnum(v + i, j - i, &x) < 0)
			return -1;
		PUSH(*out, clamp32(x));
		k++;
		i = j + 1;
	}
	return k;
}

/*
 * What a collective call moves into the calling member (see coll_edges()):
 * FLOW_LIST, n and n flags, one per member of the communicator (per
 * neighbour of a neighbourhood collective), set where its recvcounts
 * element is not 0; or whether its recvcount, else its count, is not 0
 * (FLOW_NONE, FLOW_SOME); or FLOW_ANY for a call with neither (MPI_Barrier,
 * a communicator's creation) or counts that do not parse.  The receive
 * side's counts are those MPI_IN_PLACE leaves significant.
 */
static void push_flow(ivec *p, const struct arg *a, int na)
{
	const struct arg *l = find(a, na, "recvcounts"), *c = find(a, na, "recvcount");
	size_t at = p->n, i;
	int64_t v;
	int k;

	if (!c)
		c = find(a, na, "count");
	if (l) {
		PUSH(*p, FLOW_LIST);
		PUSH(*p, 0);
		if ((k = int_array(l->v, l->vl, p)) >= 0) {
			p->v[at + 1] = k;
			for (i = at + 2; i < p->n; i++)
				p->v[i] = p->v[i] != 0;
			return;
		}
		p->n = at;
	} else if (c && pnum(c->v, c->vl, &v) == 0) {
		PUSH(*p, v != 0 ? FLOW_SOME : FLOW_NONE);
		return;
	}
	PUSH(*p, FLOW_ANY);
}

/* A #proc line counts in the run's id (tg_run_proc()). */
static void proc_run(struct hbb *b, const struct arg *a, int na)
{
	const struct arg *p = find(a, na, "pid"), *h = find(a, na, "host"),
		*c = find(a, na, "clock_base");

	if (p && h && c)
		b->run += tg_run_proc(p->v, p->vl, h->v, h->vl, c->v, c->vl);
	if (h) {
		uint64_t x = 0xcbf29ce484222325ull;	/* FNV-1a */
		size_t i;
		for (i = 0; i < h->vl; i++)
			x = (x ^ (unsigned char)h->v[i]) * 0x100000001b3ull;
		x |= 1;
		if (!b->host)
			b->host = x;
		else if (b->host != x)
			b->hosts = 2;
	}
}

static int parse_def(struct hbb *b, const char *p, size_t n, char *err, size_t errlen)
{
	struct arg a[MAXARGS];
	const char *t = memchr(p, '\t', n);
	const struct arg *ra, *pa, *wa, *ia, *ma, *xa;
	size_t wl = t ? (size_t)(t - p) : n;
	int na;
	int64_t v;
	uint64_t pid;

	if (!t)
		return 0;
	na = split_args(t + 1, n - wl - 1, a);
	if (wl == 7 && memcmp(p, "#timing", 7) == 0) {
		/* times rebuilt, not the run's: they order no lock epochs */
		const struct arg *m = find(a, na, "mode"), *an = find(a, na, "anchored");
		if (!m || m->vl != 8 || memcmp(m->v, "lossless", 8) != 0)
			b->notimes = 1;
		/* but for the calls a .cfg keeps exact: file collectives
		 * without a message seen in them among those */
		if (an && an->vl == 1 && an->v[0] == '1')
			b->anchored = 1;
		return 0;
	}
	if (wl == 5 && memcmp(p, "#proc", 5) == 0) {
		if (na < 0)
			return bad(b, err, errlen, "malformed #proc line");
		proc_run(b, a, na);
		wa = find(a, na, "world");
		if (wa && pnum(wa->v, wa->vl, &v) == 0 && v > b->world && v <= MAXRANK)
			b->world = v;
		ra = find(a, na, "rank");
		pa = find(a, na, "pid");
		if (ra && pa && pu64(pa->v, pa->vl, &pid) == 0 &&
		    pnum(ra->v, ra->vl, &v) == 0 && v >= 0 && v < MAXRANK)
			return link_pid(b, pid, v, err, errlen);
		return 0;
	}
	if (wl == 5 && memcmp(p, "#rank", 5) == 0) {
		if (na < 0)
			return bad(b, err, errlen, "malformed #rank line");
		ra = find(a, na, "rank");
		pa = find(a, na, "pid");
		wa = find(a, na, "world");
		if (wa && pnum(wa->v, wa->vl, &v) == 0 && v > b->world && v <= MAXRANK)
			b->world = v;
		if (!ra || !pa || pu64(pa->v, pa->vl, &pid) < 0 || pnum(ra->v, ra->vl, &v) < 0 ||
		    v < 0 || v >= MAXRANK)
			return bad(b, err, errlen, "malformed #rank line");
		return link_pid(b, pid, v, err, errlen);
	}
	if (wl == 4 && memcmp(p, "#run", 4) == 0) {
		struct hrun run = { 0, 0, -1 };
		const struct arg *fa;
		fa = na < 0 ? NULL : find(a, na, "first");
		wa = na < 0 ? NULL : find(a, na, "world");
		if (!fa || !wa || pnum(fa->v, fa->vl, &run.first) < 0 ||
		    pnum(wa->v, wa->vl, &run.world) < 0 || run.first < 0 || run.world < 0 ||
		    run.first + run.world > MAXRANK ||
		    (b->runs.n && run.first < b->runs.v[b->runs.n - 1].first +
					      b->runs.v[b->runs.n - 1].world))
			return bad(b, err, errlen, "malformed #run line");
		if (run.first + run.world > b->world)
			b->world = run.first + run.world;
		PUSH(b->runs, run);
		return 0;
	}
	if (wl == 5 && memcmp(p, "#comm", 5) == 0) {
		struct rst *r;
		struct ldef d;
		uint64_t id;
		if (na < 0)
			return bad(b, err, errlen, "malformed #comm line");
		ra = find(a, na, "rank");
		ia = find(a, na, "id");
		ma = find(a, na, "members");
		xa = find(a, na, "remote");
		if (!ra || !ia || !ma || !(r = who(b, ra->v, ra->vl)) || ia->vl < 2 ||
		    ia->v[0] != 'c' || pu64(ia->v + 1, ia->vl - 1, &id) < 0 || id >= MAXRANK)
			return bad(b, err, errlen, "malformed #comm line");
		memset(&d, 0, sizeof(d));
		d.moff = (int32_t)r->pool.n;
		d.mn = int_array(ma->v, ma->vl, &r->pool);
		d.roff = (int32_t)r->pool.n;
		d.rn = xa ? int_array(xa->v, xa->vl, &r->pool) : -1;
		if (d.mn < 0 || (xa && d.rn < 0))
			return bad(b, err, errlen, "malformed members of #comm line");
		d.parent = CU;
		d.gid = -1;
		d.pos = -1;
		if (id >= r->cmap.n) {
			size_t old = r->cmap.n;
			RESERVE(r->cmap, id + 1);
			r->cmap.n = id + 1;
			memset(r->cmap.v + old, 0xff, (r->cmap.n - old) * sizeof(int32_t));
		}
		r->cmap.v[id] = (int32_t)r->ldef.n;
		for (size_t k = 0; k < r->dcomm.n; k++)
			if (r->dcomm.v[k].id == id) {
				/* made by an idup, done now */
				d.cseq = r->dcomm.v[k].cseq;
				d.cfunc = r->dcomm.v[k].cfunc;
				d.parent = r->dcomm.v[k].parent;
				d.has_creator = 1;
				d.topo = TOPO_DUP;	/* comm_old's topology */
				d.tcomm = d.parent;
				r->dcomm.v[k] = r->dcomm.v[--r->dcomm.n];
				PUSH(r->ldef, d);
				return 0;
			}
		PUSH(r->pending, (uint32_t)r->ldef.n);
		PUSH(r->ldef, d);
		return 0;
	}
	return 0;
}

static int32_t comm_code(struct rst *r, const struct arg *a)
{
	uint64_t id;

	if (!a)
		return CU;
	if (a->vl == 14 && memcmp(a->v, "MPI_COMM_WORLD", 14) == 0)
		return CW;
	if (a->vl == 13 && memcmp(a->v, "MPI_COMM_SELF", 13) == 0)
		return CS;
	if (a->vl == 13 && memcmp(a->v, "MPI_COMM_NULL", 13) == 0)
		return CN;
	if (a->vl >= 2 && a->v[0] == 'c' && pu64(a->v + 1, a->vl - 1, &id) == 0 &&
	    id > 0 && id < r->cmap.n && r->cmap.v[id] >= 0)
		return r->cmap.v[id];
	return CU;
}

/*
 * The process topology of the communicator call @name made (its #comm
 * line came just before): a cartesian grid (ndims, dims, periods), a graph
 * (nnodes, index, edges), a distributed graph given by its neighbours
 * (indegree, sources; by rank in comm_old), or a copy of comm_old's.
 * MPI_Dist_graph_create records no destinations: its topology is not known.
 */
static void keep_topology(struct rst *r, const char *name, const struct arg *a, int na)
{
	const struct arg *x, *y;
	int topo = TOPO_NONE, n1 = -1, n2 = -1;
	int32_t off = (int32_t)r->pool.n, tcomm;
	size_t k;

	if (strcmp(name, "MPI_Cart_create") == 0 && (x = find(a, na, "dims")) &&
	    (y = find(a, na, "periods"))) {
		topo = TOPO_CART;
		n1 = int_array(x->v, x->vl, &r->pool);
		n2 = n1 >= 0 ? int_array(y->v, y->vl, &r->pool) : -1;
		if (n2 != n1)
			n1 = -1;
	} else if (strcmp(name, "MPI_Graph_create") == 0 && (x = find(a, na, "indx")) &&
		   (y = find(a, na, "edges"))) {
		topo = TOPO_GRAPH;
		n1 = int_array(x->v, x->vl, &r->pool);
		n2 = n1 >= 0 ? int_array(y->v, y->vl, &r->pool) : -1;
	} else if (strcmp(name, "MPI_Dist_graph_create_adjacent") == 0 &&
		   (x = find(a, na, "sources"))) {
		topo = TOPO_DIST;
		n1 = int_array(x->v, x->vl, &r->pool);
		n2 = 0;
	} else if (strcmp(name, "MPI_Comm_dup") == 0 || strcmp(name, "MPI_Comm_dup_with_info") == 0) {
		topo = TOPO_DUP;
		n1 = n2 = 0;
	} else if (strcmp(name, "MPI_Cart_sub") == 0 && (x = find(a, na, "remain_dims"))) {
		/* the parent grid's dimensions it keeps */
		topo = TOPO_SUB;
		n1 = int_array(x->v, x->vl, &r->pool);
		n2 = 0;
	}
	tcomm = comm_code(r, find(a, na, strncmp(name, "MPI_Comm_dup", 12) == 0 ||
				      strcmp(name, "MPI_Cart_sub") == 0 ? "comm" : "comm_old"));
	if (topo == TOPO_NONE || n1 < 0 || n2 < 0) {
		r->pool.n = (size_t)off;
		return;
	}
	for (k = 0; k < r->pending.n; k++) {
		struct ldef *d = &r->ldef.v[r->pending.v[k]];
		d->topo = (uint8_t)topo;
		d->toff = off;
		d->tn = n1;	/* the second array follows: n2 ints */
		d->tcomm = tcomm;
	}
}

/* A request id: rN -> N, MPI_REQUEST_NULL and anything else -> 0. */
static int32_t req_id(const char *v, size_t n)
{
	uint64_t id;

	if (n >= 2 && v[0] == 'r' && pu64(v + 1, n - 1, &id) == 0 && id < INT32_MAX)
		return (int32_t)id;
	return 0;
}

/* "{src:S,tag:T}" -> 0; "-" or anything else -> -1. */
static int status(const char *v, size_t n, int32_t *src, int32_t *tag)
{
	const char *c;
	int64_t s, t;

	if (n < 13 || memcmp(v, "{src:", 5) != 0 || v[n - 1] != '}')
		return -1;
	c = memchr(v + 5, ',', n - 6);
	if (!c || (size_t)(v + n - 1 - c) < 5 || memcmp(c, ",tag:", 5) != 0 ||
	    pnum(v + 5, c - v - 5, &s) < 0 || pnum(c + 5, v + n - 1 - c - 5, &t) < 0)
		return -1;
	*src = clamp32(s);
	*tag = clamp32(t);
	return 0;
}

static void push_status(ivec *pool, const struct arg *a)
{
	int32_t s = NOST, t = NOST;

	if (a)
		status(a->v, a->vl, &s, &t);
	PUSH(*pool, s);
	PUSH(*pool, t);
}

/* "[r1,MPI_REQUEST_NULL]" -> count, then the ids; -1 if malformed. */
static int push_reqs(ivec *pool, const struct arg *a)
{
	size_t i = 1, j, at = pool->n;
	int32_t k = 0;

	PUSH(*pool, 0);
	if (!a || a->vl < 2 || a->v[0] != '[' || a->v[a->vl - 1] != ']')
		return -1;
	if (a->vl > 2)
		while (i < a->vl) {
			for (j = i; j < a->vl - 1 && a->v[j] != ','; j++)
				;
			PUSH(*pool, req_id(a->v + i, j - i));
			k++;
			i = j + 1;
		}
	pool->v[at] = k;
	return k;
}

/* "[{src:1,tag:2},...]" -> count, then source and tag of each. */
static int push_statuses(ivec *pool, const struct arg *a)
{
	size_t i = 1, at = pool->n;
	int32_t k = 0;

	PUSH(*pool, 0);
	if (!a || a->vl < 2 || a->v[0] != '[' || a->v[a->vl - 1] != ']')
		return a ? -1 : 0;
	while (i < a->vl - 1) {
		const char *e = memchr(a->v + i, '}', a->vl - 1 - i);
		int32_t s = NOST, t = NOST;
		if (!e)
			return -1;
		status(a->v + i, e - (a->v + i) + 1, &s, &t);
		PUSH(*pool, s);
		PUSH(*pool, t);
		k++;
		i = e - a->v + 2;
	}
	pool->v[at] = k;
	return k;
}

static int push_int(ivec *pool, const struct arg *a, int32_t dflt)
{
	int64_t v;

	if (!a) {
		PUSH(*pool, dflt);
		return 0;
	}
	if (pnum(a->v, a->vl, &v) < 0)
		return -1;
	PUSH(*pool, clamp32(v));
	return 0;
}

static int push_intarr(ivec *pool, const struct arg *a)
{
	size_t at = pool->n;
	int k;

	PUSH(*pool, 0);
	if (!a)
		return 0;
	if ((k = int_array(a->v, a->vl, pool)) < 0)
		return -1;
	pool->v[at] = k;
	return 0;
}

/* The index in @map of the handle "<c><id>" of argument @a; -1 if absent. */
static int32_t handle_code(const ivec *map, char c, const struct arg *a)
{
	uint64_t id;

	if (a && a->vl >= 2 && a->v[0] == c && pu64(a->v + 1, a->vl - 1, &id) == 0 &&
	    id > 0 && id < map->n)
		return map->v[id];
	return -1;
}

/* A new definition for the handle "<c><id>" of argument @a, the
 * @next-th: its index, or -1 if the argument is not such a handle. */
static int32_t handle_def(ivec *map, char c, const struct arg *a, int32_t next)
{
	uint64_t id;

	if (!a || a->vl < 2 || a->v[0] != c || pu64(a->v + 1, a->vl - 1, &id) != 0 ||
	    id == 0 || id >= MAXRANK)
		return -1;
	if (id >= map->n) {
		size_t old = map->n;
		RESERVE(*map, id + 1);
		map->n = id + 1;
		memset(map->v + old, 0xff, (map->n - old) * sizeof(int32_t));
	}
	map->v[id] = next;
	return next;
}

/* Keep the arguments of a call of kind @k; -1 if one is malformed. */
/* A group argument: its id ("g5": 5), GRP_EMPTY for MPI_GROUP_EMPTY,
 * GRP_UNKNOWN for anything else. */
static int32_t group_id(const struct arg *a)
{
	uint64_t id;

	if (a && a->vl >= 2 && a->v[0] == 'g' && pu64(a->v + 1, a->vl - 1, &id) == 0 &&
	    id < INT32_MAX)
		return (int32_t)id;
	if (a && a->vl == 15 && memcmp(a->v, "MPI_GROUP_EMPTY", 15) == 0)
		return GRP_EMPTY;
	return GRP_UNKNOWN;
}

/* What group constructor @name does (enum gop). */
static int32_t group_op(const char *name)
{
	static const char *const names[] = {
		[GOP_COMM] = "MPI_Comm_group", [GOP_REMOTE] = "MPI_Comm_remote_group",
		[GOP_WIN] = "MPI_Win_get_group", [GOP_INCL] = "MPI_Group_incl",
		[GOP_EXCL] = "MPI_Group_excl", [GOP_UNION] = "MPI_Group_union",
		[GOP_INTER] = "MPI_Group_intersection", [GOP_DIFF] = "MPI_Group_difference",
	};
	int32_t i;

	for (i = 0; i < (int32_t)(sizeof(names) / sizeof(names[0])); i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return GOP_UNKNOWN;	/* MPI_Group_range_incl, _excl: no ranges kept */
}

/* The size of predefined datatype @a ("MPI_INT"), 0 if not known. */
static int32_t type_bytes(const struct arg *a)
{
	static const struct {
		const char *name;
		int32_t bytes;
	} t[] = {
		{ "MPI_CHAR", 1 }, { "MPI_SIGNED_CHAR", 1 }, { "MPI_UNSIGNED_CHAR", 1 },
		{ "MPI_BYTE", 1 }, { "MPI_INT8_T", 1 }, { "MPI_UINT8_T", 1 },
		{ "MPI_CHARACTER", 1 }, { "MPI_LOGICAL", 4 }, { "MPI_C_BOOL", 1 },
		{ "MPI_SHORT", 2 }, { "MPI_UNSIGNED_SHORT", 2 }, { "MPI_INT16_T", 2 },
		{ "MPI_UINT16_T", 2 }, { "MPI_INT", 4 }, { "MPI_UNSIGNED", 4 },
		{ "MPI_INT32_T", 4 }, { "MPI_UINT32_T", 4 }, { "MPI_FLOAT", 4 },
		{ "MPI_INTEGER", 4 }, { "MPI_REAL", 4 }, { "MPI_INTEGER4", 4 },
		{ "MPI_REAL4", 4 }, { "MPI_LONG", 8 }, { "MPI_UNSIGNED_LONG", 8 },
		{ "MPI_LONG_LONG", 8 }, { "MPI_LONG_LONG_INT", 8 },
		{ "MPI_UNSIGNED_LONG_LONG", 8 }, { "MPI_INT64_T", 8 }, { "MPI_UINT64_T", 8 },
		{ "MPI_DOUBLE", 8 }, { "MPI_AINT", 8 }, { "MPI_OFFSET", 8 }, { "MPI_COUNT", 8 },
		{ "MPI_DOUBLE_PRECISION", 8 }, { "MPI_INTEGER8", 8 }, { "MPI_REAL8", 8 },
		{ "MPI_COMPLEX", 8 }, { "MPI_C_FLOAT_COMPLEX", 8 }, { "MPI_LONG_DOUBLE", 16 },
		{ "MPI_DOUBLE_COMPLEX", 16 }, { "MPI_C_DOUBLE_COMPLEX", 16 },
	};
	size_t i;

	for (i = 0; a && i < sizeof(t) / sizeof(t[0]); i++)
		if (a->vl == strlen(t[i].name) && memcmp(a->v, t[i].name, a->vl) == 0)
			return t[i].bytes;
	return 0;
}

static int keep_args(struct rst *r, const struct fdesc *f, const char *name,
		     const struct arg *a, int na)
{
	ivec *p = &r->pool;
	int32_t code;
	int rc = 0;

	switch (f->kind) {
	case TG_MK_SEND: case TG_MK_ISEND: case TG_MK_SEND_INIT:
		PUSH(*p, comm_code(r, find(a, na, "comm")));
		rc |= push_int(p, find(a, na, "dest"), PROC_NULL);
		rc |= push_int(p, find(a, na, "tag"), 0);
		{
			const struct arg *q = find(a, na, "request");
			PUSH(*p, q ? req_id(q->v, q->vl) : 0);
		}
		break;
	case TG_MK_RECV: case TG_MK_IRECV: case TG_MK_RECV_INIT: case TG_MK_MPROBE: case TG_MK_IMPROBE:
		PUSH(*p, comm_code(r, find(a, na, "comm")));
		/* (MPICH's MPI_Precv_init calls its source "dest") */
		rc |= push_int(p, find(a, na, "source") ? find(a, na, "source") : find(a, na, "dest"),
			       PROC_NULL);
		rc |= push_int(p, find(a, na, "tag"), 0);
		push_status(p, find(a, na, "status"));
		rc |= push_int(p, find(a, na, "flag"), 1);
		{
			const struct arg *q = find(a, na, "request");
			PUSH(*p, q ? req_id(q->v, q->vl) : 0);
		}
		break;
	case TG_MK_SENDRECV: case TG_MK_ISENDRECV:
		PUSH(*p, comm_code(r, find(a, na, "comm")));
		rc |= push_int(p, find(a, na, "dest"), PROC_NULL);
		rc |= push_int(p, find(a, na, "sendtag"), 0);
		rc |= push_int(p, find(a, na, "source"), PROC_NULL);
		rc |= push_int(p, find(a, na, "recvtag"), 0);
		push_status(p, find(a, na, "status"));
		{
			const struct arg *q = find(a, na, "request");
			PUSH(*p, q ? req_id(q->v, q->vl) : 0);
		}
		break;
	case TG_MK_START: case TG_MK_WAIT: case TG_MK_TEST: case TG_MK_GETSTATUS: case TG_MK_REQFREE:
	case TG_MK_INERT: case TG_MK_INERT_INIT: {
		const struct arg *q = find(a, na, "request");
		PUSH(*p, q ? req_id(q->v, q->vl) : 0);
		rc |= push_int(p, find(a, na, "flag"), 1);
		push_status(p, find(a, na, "status"));
		break;
	}
	case TG_MK_STARTALL:
		rc |= push_reqs(p, find(a, na, "array_of_requests")) < 0;
		break;
	case TG_MK_WAITALL: case TG_MK_TESTALL:
		rc |= push_int(p, find(a, na, "flag"), 1);
		rc |= push_reqs(p, find(a, na, "array_of_requests")) < 0;
		rc |= push_statuses(p, find(a, na, "array_of_statuses")) < 0;
		break;
	case TG_MK_WAITANY: case TG_MK_TESTANY:
		rc |= push_int(p, find(a, na, "flag"), 1);
		rc |= push_int(p, find(a, na, "indx"), UNDEFINED);
		push_status(p, find(a, na, "status"));
		rc |= push_reqs(p, find(a, na, "array_of_requests")) < 0;
		break;
	case TG_MK_WAITSOME: case TG_MK_TESTSOME:
		rc |= push_int(p, find(a, na, "outcount"), UNDEFINED);
		rc |= push_reqs(p, find(a, na, "array_of_requests")) < 0;
		rc |= push_intarr(p, find(a, na, "array_of_indices"));
		rc |= push_statuses(p, find(a, na, "array_of_statuses")) < 0;
		break;
	case TG_MK_COLL: case TG_MK_ICOLL: case TG_MK_COLL_INIT: case TG_MK_CREATE: case TG_MK_ICREATE:
		code = comm_code(r, find(a, na, f->comm));
		PUSH(*p, code);
		rc |= push_int(p, f->root ? find(a, na, f->root) : NULL, 0);
		{
			const struct arg *q = find(a, na, "request");
			PUSH(*p, q ? req_id(q->v, q->vl) : 0);
		}
		push_flow(p, a, na);
		/* the communicator this call made (its #comm came just before) */
		if (f->kind == TG_MK_CREATE || f->kind == TG_MK_ICREATE) {
			size_t i;
			for (i = 0; i < r->pending.n; i++)
				r->ldef.v[r->pending.v[i]].parent = code;
		}
		break;
	case TG_MK_NEWCREATE:
		break;
	case TG_MK_PREADY: {
		/* request, then 0, n, n partitions (a list) or 1, lo, hi */
		const struct arg *q = find(a, na, "request"), *l = find(a, na, "array_of_partitions");
		size_t at;
		int k;
		PUSH(*p, q ? req_id(q->v, q->vl) : 0);
		if (l) {
			PUSH(*p, 0);
			at = p->n;
			PUSH(*p, 0);
			k = int_array(l->v, l->vl, p);
			if (k < 0)
				return -1;
			p->v[at] = k;
		} else {
			PUSH(*p, 1);
			rc |= push_int(p, find(a, na, "partition") ? find(a, na, "partition") :
				       find(a, na, "partition_low"), 0);
			rc |= push_int(p, find(a, na, "partition") ? find(a, na, "partition") :
				       find(a, na, "partition_high"), -1);
		}
		break;
	}
	case TG_MK_PARRIVED: {
		const struct arg *q = find(a, na, "request");
		PUSH(*p, q ? req_id(q->v, q->vl) : 0);
		rc |= push_int(p, find(a, na, "partition"), -1);
		rc |= push_int(p, find(a, na, "flag"), 0);
		break;
	}
	case TG_MK_FOPEN:
		PUSH(*p, comm_code(r, find(a, na, "comm")));
		code = handle_def(&r->fmap, 'f', find(a, na, "fh"), (int32_t)r->fdef.n);
		PUSH(*p, code);
		if (code >= 0)
			PUSH(r->fdef, ((struct fdef){ -1, -1, NONE }));
		break;
	case TG_MK_FCLOSE: case TG_MK_FCOLL: case TG_MK_FICOLL: case TG_MK_FBEGIN: case TG_MK_FEND: {
		const struct arg *q = find(a, na, "request");
		PUSH(*p, handle_code(&r->fmap, 'f', find(a, na, "fh")));
		PUSH(*p, q ? req_id(q->v, q->vl) : 0);
		break;
	}
	case TG_MK_WOPEN:
		PUSH(*p, comm_code(r, find(a, na, "comm")));
		code = handle_def(&r->wmap, 'w', find(a, na, "win"), (int32_t)r->wdef.n);
		PUSH(*p, code);
		if (code >= 0)
			PUSH(r->wdef, ((struct wdef){ -1, -1, 0, 0, 1 }));
		rc |= push_int(p, find(a, na, "disp_unit"), 1);
		break;
	case TG_MK_WFENCE:
		PUSH(*p, handle_code(&r->wmap, 'w', find(a, na, "win")));
		break;
	case TG_MK_WEPOCH:
		/* win, lock_type, rank (the target), assert; then the call's
		 * start and end, which parse_call adds */
		PUSH(*p, handle_code(&r->wmap, 'w', find(a, na, "win")));
		rc |= push_int(p, find(a, na, "lock_type"), -1);
		rc |= push_int(p, find(a, na, "rank"), -1);
		rc |= push_int(p, find(a, na, "assert"), 0);
		PUSH(*p, group_id(find(a, na, "group")));	/* MPI_Win_start's */
		break;
	case TG_MK_GROUP: {
		/* op, the group (or communicator, or window) it is made from,
		 * a second group, the new group; ranks (n, then n of them) */
		int32_t op = group_op(name);
		PUSH(*p, op);
		if (op == GOP_COMM || op == GOP_REMOTE)
			PUSH(*p, comm_code(r, find(a, na, "comm")));
		else if (op == GOP_WIN)
			PUSH(*p, handle_code(&r->wmap, 'w', find(a, na, "win")));
		else
			PUSH(*p, group_id(find(a, na, op == GOP_UNION || op == GOP_INTER ||
						      op == GOP_DIFF ? "group1" : "group")));
		PUSH(*p, group_id(find(a, na, "group2")));
		PUSH(*p, group_id(find(a, na, op == GOP_COMM || op == GOP_REMOTE ||
					      op == GOP_WIN ? "group" : "newgroup")));
		rc |= push_intarr(p, find(a, na, "ranks"));
		break;
	}
	case TG_MK_WPOST:
		PUSH(*p, handle_code(&r->wmap, 'w', find(a, na, "win")));
		PUSH(*p, group_id(find(a, na, "group")));
		break;
	case TG_MK_WWAIT:
		/* MPI_Win_wait, or an MPI_Win_test that said done */
		PUSH(*p, handle_code(&r->wmap, 'w', find(a, na, "win")));
		rc |= push_int(p, find(a, na, "flag"), strcmp(name, "MPI_Win_wait") == 0);
		break;
	case TG_MK_RMA: {
		const struct arg *q = find(a, na, "request");
		PUSH(*p, handle_code(&r->wmap, 'w', find(a, na, "win")));
		const struct arg *op = find(a, na, "op");
		rc |= push_int(p, find(a, na, "target_rank"), PROC_NULL);
		PUSH(*p, q ? req_id(q->v, q->vl) : 0);
		rc |= push_int(p, find(a, na, "target_disp"), 0);
		rc |= push_int(p, find(a, na, "target_count"), 1);
		/* an atomic MPI_NO_OP only reads */
		PUSH(*p, op && op->vl == 9 && memcmp(op->v, "MPI_NO_OP", 9) == 0);
		/* the bytes of an element at the target, 0 if not known */
		PUSH(*p, type_bytes(find(a, na, "target_datatype") ? find(a, na, "target_datatype")
								  : find(a, na, "datatype")));
		break;
	}
	case TG_MK_WFLUSH:
		/* win, the target (-1: all), whether only locally */
		PUSH(*p, handle_code(&r->wmap, 'w', find(a, na, "win")));
		rc |= push_int(p, find(a, na, "rank"), -1);
		PUSH(*p, strstr(name, "_local") != NULL);
		break;
	}
	return rc ? -1 : 0;
}

/* One call line, p[0..n) without its newline. */
/* Is the call @fn of @layer (as the text names them) one that names or
 * moves a file's bytes as only files do: a stdio or MPI-IO call, an
 * open, a positioned read or write, a seek, a sync, a truncation, AIO,
 * a name's removal or renaming?  A read or write alone may be of a
 * socket or an event descriptor (an MPI library's helper thread). */
static int file_call(const char *layer, size_t ll, const char *fn, size_t fl)
{
	static const char *const pre[] = { "open", "creat", "pread", "pwrite", "lseek",
					   "fsync", "fdatasync", "ftruncate", "truncate",
					   "aio_", "lio_", "unlink", "rename", "mkdir",
					   "rmdir", "copy_file_range", "sendfile", "fallocate",
					   "posix_fallocate", "msync" };
	size_t i;

	if ((ll == 5 && memcmp(layer, "stdio", 5) == 0) || (ll == 5 && memcmp(layer, "mpiio", 5) == 0))
		return 1;
	if (ll != 5 || memcmp(layer, "posix", 5) != 0)
		return 0;
	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		size_t n = strlen(pre[i]);
		if (fl >= n && memcmp(fn, pre[i], n) == 0)
			return 1;
	}
	return 0;
}

static int parse_call(struct hbb *b, const char *p, size_t n, char *err, size_t errlen)
{
	const char *end = p + n, *col[9], *q = p;
	size_t len[9];
	uint64_t seq, depth, parent = 0, ext, *slot;
	struct rst *r;
	const struct tg_calldesc *fnm = NULL;
	const struct fdesc *f = &hb_ftab[0];
	int i, mpi, nested = 0, haskid = 0, split = 0;
	uint64_t tid;
	int64_t t0, t1;

	for (i = 0; i < 9; i++) {
		const char *t = q;
		while (t < end && *t != '\t')
			t++;
		if (t == end && i < 8)
			return bad(b, err, errlen, "a record needs 9 fields, this one has %d", i + 1);
		col[i] = q;
		len[i] = t - q;
		q = t < end ? t + 1 : end;
	}
	/* the rank: the previous line's, most of the time */
	if (b->last && len[0] == b->lastranklen && memcmp(col[0], b->lastrank, len[0]) == 0) {
		r = b->last;
	} else {
		r = who(b, col[0], len[0]);
		if (!r)
			return bad(b, err, errlen, "bad rank '%.*s'", (int)len[0], col[0]);
		b->last = r;
	}
	b->lastrank = col[0];	/* valid while this line is: compared before the next */
	b->lastranklen = len[0];
	if (pu64(col[2], len[2], &seq) < 0 || seq >= HASMPIKID)
		return bad(b, err, errlen, "bad seq '%.*s'", (int)len[2], col[2]);
	if (pu64(col[5], len[5], &depth) < 0)
		return bad(b, err, errlen, "bad depth '%.*s'", (int)len[5], col[5]);
	if (!len[1] || !len[3] || !len[4] || !len[6] || !len[7])
		return bad(b, err, errlen, "empty field");
	if (pu64(col[1], len[1], &tid) < 0)
		return bad(b, err, errlen, "bad thread '%.*s'", (int)len[1], col[1]);
	if (depth == 0 && !r->anythr) {
		/* a thread's read of a file while another waits in MPI_Recv
		 * is not after the receive because it started after it did:
		 * the rank's calls are placed by their times (walk.c).  (An
		 * MPI library's helper thread reads and writes sockets and
		 * event descriptors only: its rank is left as it was.) */
		int32_t tt = tid > INT32_MAX ? INT32_MAX : (int32_t)tid;
		if (r->tid0 != tt && ((len[6] == 3 && memcmp(col[6], "mpi", 3) == 0) ||
				      file_call(col[6], len[6], col[7], len[7]))) {
			if (r->tid0 < 0)
				r->tid0 = tt;
			else
				r->anythr = r->mt = 1;
		}
	}
	t0 = t1 = 0;	/* read when kept: most records need no times */
	if (b->keep_times) {
		if (ptime(col[3], len[3], &t0) < 0 || ptime(col[4], len[4], &t1) < 0)
			return bad(b, err, errlen, "bad time");
		rtz_push(r, seq, t0, t1);
	}
	b->records++;
	r->records++;
	if (r->lastseq == TG_HB_NOSEQ || seq > r->lastseq)
		r->lastseq = seq;
	mpi = (len[6] == 3 && memcmp(col[6], "mpi", 3) == 0) ||
	      (len[6] == 5 && memcmp(col[6], "mpiio", 5) == 0);
	/* the span of its MPI calls, MPI_Init's too: whether runs overlap
	 * (hb_link_runs()); a rank's records come in order, so the first
	 * call's start and the last one's end, kept as text until needed */
	if (mpi) {
		if (!r->mtset && (b->keep_times || ptime(col[3], len[3], &t0) == 0)) {
			r->mt0 = t0;
			r->mtset = 1;
		}
		if (len[4] < sizeof(r->mt1text)) {
			memcpy(r->mt1text, col[4], len[4]);
			r->mt1text[len[4]] = '\0';
		}
	}
	if (depth > 0) {
		/* parent= is the last field, or at least one of them */
		const char *t = end;
		while (t > col[8] && t[-1] != '\t')
			t--;
		if (!(end - t > 7 && memcmp(t, "parent=", 7) == 0)) {
			t = memmem(col[8], end - col[8], "\tparent=", 8);
			t = t ? t + 1 : NULL;
		}
		if (t) {
			const char *e = memchr(t, '\t', end - t);
			if (pu64(t + 7, (e ? e : end) - t - 7, &parent) < 0)
				return bad(b, err, errlen, "bad parent");
			nested = 1;
		}
	}
	/* how far the calls nested in this one reach */
	ext = seq;
	slot = r->nest.n ? hb_umap_at(&r->nest, seq, 0, 0) : NULL;
	if (slot) {
		ext = *slot & ~HASMPIKID;
		haskid = (*slot & HASMPIKID) != 0;
		hb_umap_del(&r->nest, seq);
	}
	if (mpi) {
		b->mpi++;
		r->mpi++;
		fnm = mpi_call(col[7], len[7]);
		if (fnm)
			f = &hb_ftab[fnm->id];
		if (fnm && (f->kind == TG_MK_OTHER || f->kind == TG_MK_WEPOCH) && r->rank >= 0 &&
		    one_sided_sync(fnm) &&
		    /* a lock epoch that orders is told apart in the walk */
		    (b->notimes || (strcmp(fnm->name, "MPI_Win_lock") != 0 &&
				    strcmp(fnm->name, "MPI_Win_unlock") != 0)))
			hb_problem(b, TG_HBP_ONE_SIDED, r->rank, fnm->id, seq);
	}
	if (haskid && mpi) {
		/* the MPI calls nested in this MPI call are part of it, but
		 * for the communication an MPI-IO call makes (ROMIO's, through
		 * the tracer's PMPI_ entries): that orders what the call did */
		int io = len[6] == 5;
		size_t k;
		for (k = r->kids.n; k-- > 0;)
			if (r->kids.v[k].parent == seq) {
				if (io && r->kids.v[k].mpi && !b->mpionly) {
					b->iosplit += !split;
					split = 1;
				} else {
					r->rec.v[r->kids.v[k].idx].drop = 1;
					b->nested++;
				}
				r->kids.v[k] = r->kids.v[--r->kids.n];
			}
	} else if (haskid) {
		size_t k;
		for (k = r->kids.n; k-- > 0;)
			if (r->kids.v[k].parent == seq)
				r->kids.v[k] = r->kids.v[--r->kids.n];
	}
	if (r->pending.n) {
		/* the #comm lines just before belong to this call */
		size_t k;
		for (k = 0; k < r->pending.n; k++) {
			struct ldef *d = &r->ldef.v[r->pending.v[k]];
			d->cseq = seq;
			d->cfunc = fnm ? fnm->id : 0;
			d->has_creator = 1;
		}
	}
	if (f->kind != TG_MK_OTHER) {
		struct arg a[MAXARGS];
		int na = split_args(q, end - q, a);
		if (len[8] != 1 || col[8][0] != '0') {
			if (r->rank >= 0)
				hb_problem(b, TG_HBP_FAILED_CALL, r->rank, fnm->id, seq);
		} else {
			struct hrec h;
			if (na < 0)
				return bad(b, err, errlen, "malformed argument of %.*s",
					   (int)len[7], col[7]);
			/* a lock's times order its epoch; a threaded rank's
			 * calls get theirs from its records' (hb_prepare_rank) */
			if (!b->keep_times &&
			    (ptime(col[3], len[3], &t0) < 0 || ptime(col[4], len[4], &t1) < 0))
				return bad(b, err, errlen, "bad time");
			memset(&h, 0, sizeof(h));
			h.seq = seq;
			h.t0 = t0;
			h.t1 = t1;
			h.off = (uint32_t)r->pool.n;
			h.span = ext - seq > UINT32_MAX ? UINT32_MAX : (uint32_t)(ext - seq);
			h.fn = fnm->hb ? fnm->id : 0;
			h.func = fnm->id;
			h.split = (uint8_t)split;
			h.tid = tid > UINT16_MAX ? UINT16_MAX : (uint16_t)tid;
			if (hb_is_node(f->kind)) {
				if (r->tid1 < 0)
					r->tid1 = h.tid;
				else if (r->tid1 != h.tid)
					r->mt = 1;
			}
			if (keep_args(r, f, fnm->name, a, na) < 0)
				return bad(b, err, errlen, "malformed argument of %.*s",
					   (int)len[7], col[7]);
			if (f->kind == TG_MK_CREATE && r->pending.n)
				keep_topology(r, fnm->name, a, na);
			if (f->kind == TG_MK_ICREATE) {
				/* a communicator defined when its request is done */
				const struct arg *df = find(a, na, "deferred"),
						 *nc = find(a, na, "newcomm");
				uint64_t cid;
				if (df && df->vl == 1 && df->v[0] == '1' && nc && nc->vl >= 2 &&
				    nc->v[0] == 'c' && pu64(nc->v + 1, nc->vl - 1, &cid) == 0)
					PUSH(r->dcomm, ((struct dcomm){ cid, seq, fnm->id,
									comm_code(r, find(a, na, f->comm)) }));
			}
			if (f->kind == TG_MK_WEPOCH) {
				push_time(&r->pool, t0);
				push_time(&r->pool, t1);
			}
			if (f->kind == TG_MK_FINALIZE)
				r->finalized = 1;
			if (r->rec.n && r->rec.v[r->rec.n - 1].seq > seq)
				r->sorted = 0;
			if (nested && mpi)
				PUSH(r->kids, ((struct kid){ parent, (uint32_t)r->rec.n, len[6] == 3 }));
			PUSH(r->rec, h);
			if (r->pool.n > UINT32_MAX)
				return bad(b, err, errlen, "too many MPI calls for one rank");
		}
	}
	r->pending.n = 0;
	if (nested) {
		uint64_t *ps = hb_umap_at(&r->nest, parent, 1, 0);
		uint64_t e = (*ps & ~HASMPIKID) > ext ? (*ps & ~HASMPIKID) : ext;
		*ps = e | (*ps & HASMPIKID) | (mpi && f->kind != TG_MK_OTHER ? HASMPIKID : 0);
	}
	return 0;
}

/* The second reading: the seq and times of each record of a rank whose
 * threads made MPI calls (the first reading checked the line). */
static int parse_times(struct hbb *b, const char *p, size_t n)
{
	const char *col[5], *q = p, *end = p + n;
	size_t len[5];
	uint64_t seq;
	int64_t t0, t1;
	struct rst *r;
	int i;

	for (i = 0; i < 5; i++) {
		const char *t = memchr(q, '\t', (size_t)(end - q));
		if (!t)
			return 0;
		col[i] = q;
		len[i] = (size_t)(t - q);
		q = t + 1;
	}
	r = who(b, col[0], len[0]);
	if (!r || !r->mt)
		return 0;
	if (pu64(col[2], len[2], &seq) == 0 && ptime(col[3], len[3], &t0) == 0 &&
	    ptime(col[4], len[4], &t1) == 0)
		rtz_push(r, seq, t0, t1);
	return 0;
}

static int parse_line(struct hbb *b, const char *p, size_t n, char *err, size_t errlen)
{
	b->line++;
	if (n && p[n - 1] == '\r')
		n--;
	if (b->times_pass)
		return n && p[0] != '#' ? parse_times(b, p, n) : 0;
	if (n == 0)
		return bad(b, err, errlen, "empty line");
	if (p[0] == '#') {
		if (n > 6 && memcmp(p, "#proc\t", 6) == 0)
			b->seen = 1;
		return parse_def(b, p, n, err, errlen);
	}
	b->seen = 1;
	return parse_call(b, p, n, err, errlen);
}

int hbb_feed(struct hbb *b, const char *data, size_t len, const char *name,
	     char *err, size_t errlen)
{
	const char *p = data, *end = data + len, *nl;

	b->name = name;
	if (b->ncarry) {
		nl = memchr(p, '\n', len);
		size_t take = nl ? (size_t)(nl - p) : len;
		if (b->ncarry + take > b->capcarry) {
			while (b->capcarry < b->ncarry + take)
				b->capcarry = b->capcarry ? 2 * b->capcarry : 4096;
			b->carry = hb_realloc(b->carry, b->capcarry);
		}
		memcpy(b->carry + b->ncarry, p, take);
		b->ncarry += take;
		if (!nl)
			return 0;
		b->last = NULL;
		if (parse_line(b, b->carry, b->ncarry, err, errlen) < 0)
			return -1;
		b->ncarry = 0;
		b->last = NULL;
		p = nl + 1;
	}
	while (p < end && (nl = memchr(p, '\n', end - p))) {
		if (parse_line(b, p, nl - p, err, errlen) < 0)
			return -1;
		p = nl + 1;
	}
	b->last = NULL;	/* lastrank points into data */
	if (p < end) {
		size_t take = end - p;
		if (take > b->capcarry) {
			b->capcarry = take > 4096 ? take : 4096;
			b->carry = hb_realloc(b->carry, b->capcarry);
		}
		memcpy(b->carry, p, take);
		b->ncarry = take;
	}
	return 0;
}

int hbb_finish(struct hbb *b, char *err, size_t errlen)
{
	b->last = NULL;
	if (b->ncarry && parse_line(b, b->carry, b->ncarry, err, errlen) < 0)
		return -1;
	b->ncarry = 0;
	if (b->times_pass) {
		b->times_pass = 0;
		b->have_times = 1;
	}
	/* a trace without a call still has a #proc line per stream: neither
	 * is no trace at all (an empty file, a graph's pairs given instead) */
	if (!b->seen) {
		snprintf(err, errlen, "%s: %s", b->name, b->line ?
			 "no #proc line (not text records?)" : "empty input (no #proc line)");
		return -1;
	}
	return 0;
}

void hbb_keep_times(struct hbb *b)
{
	b->keep_times = 1;
	b->have_times = 1;
}

int hbb_times_needed(const struct hbb *b)
{
	size_t i;

	if (b->have_times || b->notimes)
		return 0;
	for (i = 0; i < b->st.n; i++)
		if (b->st.v[i]->mt)
			return 1;
	return 0;
}

void hbb_times_begin(struct hbb *b)
{
	b->times_pass = 1;
	b->ncarry = 0;
	b->last = NULL;
}

static int cmp_prob(const void *x, const void *y)
{
	const struct tg_hbproblem *a = x, *c = y;

	if (a->rank != c->rank)
		return a->rank < c->rank ? -1 : 1;
	return a->kind < c->kind ? -1 : a->kind > c->kind;
}

/* With #run lines: the run of @st's rank, and the nodes that stand for
 * its run's start (all but the first run; none when the rank's call of
 * seq 0 is a node itself, which then stands for it) and end (all but the
 * last).  After hb_prepare_rank(). */
static void place_in_run(struct hbb *b, struct rst *st)
{
	const struct hrec *h0 = st->rec.n ? &st->rec.v[0] : NULL;
	size_t i;

	for (i = 0; i < b->runs.n; i++)
		if (st->rank >= b->runs.v[i].first &&
		    st->rank < b->runs.v[i].first + b->runs.v[i].world) {
			st->run = (int32_t)i;
			st->pre = i > 0 && !(h0 && h0->seq == 0 && !h0->drop &&
					     hb_is_node(hb_ftab[h0->fn].kind));
			st->post = i + 1 < b->runs.n;
			st->nnodes += st->pre + st->post;
			return;
		}
}

int hbb_build(struct hbb *b, char *err, size_t errlen)
{
	uint32_t r, P;
	size_t i;

	if (b->world > MAXRANK)
		b->world = MAXRANK;
	P = b->P = (uint32_t)b->world;
	b->rankfirst = hb_calloc(P + 1, sizeof(uint64_t));
	b->rankinfo = hb_calloc(P, sizeof(struct tg_hbrank));
	for (r = 0; r < P; r++) {
		struct rst *st = (size_t)r < b->rankst.n && b->rankst.v[r] >= 0 ?
			b->st.v[b->rankst.v[r]] : NULL;
		b->rankfirst[r] = b->nnodes;
		b->rankinfo[r].lastseq = TG_HB_NOSEQ;
		if (!st || st->records == 0) {
			b->rankinfo[r].flags = TG_HBR_ABSENT;
			hb_problem(b, TG_HBP_MISSING_RANK, r, 0, 0);
			continue;
		}
		if (hb_prepare_rank(b, st, err, errlen) < 0)
			return -1;
		place_in_run(b, st);
		st->first_node = b->nnodes;
		b->nnodes += st->nnodes;
		b->rankinfo[r].records = st->records;
		b->rankinfo[r].lastseq = st->lastseq;
		if (!st->finalized) {
			/* a rank with no MPI record at all did not end early:
			 * its MPI calls were not traced */
			b->rankinfo[r].flags = TG_HBR_TRUNCATED;
			hb_problem(b, st->mpi ? TG_HBP_TRUNCATED : TG_HBP_MPI_UNTRACED, r, 0,
				   st->lastseq);
		}
	}
	b->rankfirst[P] = b->nnodes;
	if (b->nnodes >= UINT32_MAX / 2) {
		snprintf(err, errlen, "too many nodes (%llu)", (unsigned long long)b->nnodes);
		return -1;
	}
	b->seq = hb_calloc(b->nnodes, sizeof(uint64_t));
	b->span = hb_calloc(b->nnodes, sizeof(uint32_t));
	b->func = hb_calloc(b->nnodes, sizeof(uint16_t));
	b->nt0 = hb_calloc(b->nnodes, sizeof(int64_t));
	b->nt1 = hb_calloc(b->nnodes, sizeof(int64_t));
	/* the world, gid 0 */
	{
		int32_t *w = hb_calloc(P, sizeof(int32_t));
		for (r = 0; r < P; r++)
			w[r] = (int32_t)r;
		hb_new_gid(b, w, P, NULL, 0, 0, 0);
		hb_free(w);
	}
	/* each run's own world */
	for (i = 0; i < b->runs.n; i++) {
		struct hrun *run = &b->runs.v[i];
		int32_t *w = hb_calloc(run->world ? (size_t)run->world : 1, sizeof(int32_t));
		for (r = 0; r < run->world; r++)
			w[r] = (int32_t)(run->first + r);
		run->gid = (int32_t)hb_new_gid(b, w, (uint32_t)run->world, NULL, 0, 0, 0);
		hb_free(w);
	}
	for (r = 0; r < P; r++) {
		struct rst *st = (size_t)r < b->rankst.n && b->rankst.v[r] >= 0 ?
			b->st.v[b->rankst.v[r]] : NULL;
		if (st && st->records)
			hb_walk_rank(b, st);
	}
	for (size_t k = 0; k < b->st.n; k++) {
		struct rst *st = b->st.v[k];
		if (st->mtset && (!st->mt1text[0] ||
				  ptime(st->mt1text, strlen(st->mt1text), &st->mt1) < 0))
			st->mtset = 0;
	}
	hb_link_runs(b);
	hb_match_p2p(b);
	hb_free(b->sends.v);
	hb_free(b->recvs.v);
	hb_free(b->preadys.v);
	hb_free(b->parrs.v);
	memset(&b->sends, 0, sizeof(b->sends));
	memset(&b->recvs, 0, sizeof(b->recvs));
	memset(&b->preadys, 0, sizeof(b->preadys));
	memset(&b->parrs, 0, sizeof(b->parrs));
	hb_match_colls(b);
	hb_rma_edges(b);
	hb_lock_edges(b);
	hb_pscw_edges(b);
	hb_passive_edges(b);
	hb_free(b->lockeps.v);
	memset(&b->lockeps, 0, sizeof(b->lockeps));
	hb_free(b->pscw.v);
	memset(&b->pscw, 0, sizeof(b->pscw));
	hb_free(b->pops.v);
	memset(&b->pops, 0, sizeof(b->pops));
	hb_free(b->rma.v);
	memset(&b->rma, 0, sizeof(b->rma));
	hb_free(b->insts.v);
	hb_free(b->flows.v);
	memset(&b->insts, 0, sizeof(b->insts));
	memset(&b->flows, 0, sizeof(b->flows));
	b->stats[TG_HBST_CALLS] = b->nnodes;
	hb_expand_threads(b);
	hb_prune(b);
	hb_place_records(b);
	if (b->nnodes + b->xfunc.n >= UINT32_MAX - 1) {
		snprintf(err, errlen, "too many nodes (%llu)",
			 (unsigned long long)(b->nnodes + b->xfunc.n));
		return -1;
	}
	if (hb_index_graph(b, err, errlen) < 0)
		return -1;
	hb_make_csr(b);
	if (b->prob.n)
		qsort(b->prob.v, b->prob.n, sizeof(*b->prob.v), cmp_prob);
	b->stats[TG_HBST_RECORDS] = b->records;
	b->stats[TG_HBST_MPI] = b->mpi;
	b->stats[TG_HBST_NESTED] = b->nested;
	b->stats[TG_HBST_COMMS] = b->ncomms;
	b->stats[TG_HBST_FILES] = b->nfiles;
	b->stats[TG_HBST_MESSAGES] = b->messages;
	b->stats[TG_HBST_COLLECTIVES] = b->collectives;
	b->graph = (struct tg_hbgraph){
		.nranks = P,
		.flags = b->prob.n ? TG_HB_PROBLEMS : 0,
		.nnodes = b->nnodes,
		.nextra = b->xfunc.n,
		.nedges = b->esrc.n,
		.nvec = b->nvn,
		.nwide = b->nvw,
		.rankfirst = b->rankfirst,
		.rankinfo = b->rankinfo,
		.seq = b->seq,
		.span = b->span,
		.func = b->func,
		.xfunc = b->xfunc.v,
		.xkind = b->xkind.v,
		.eindex = b->eindex,
		.etarget = b->etarget,
		.ekind = b->ekind_sorted,
		.clock = b->clock,
		.vecn = b->vn.v,
		.vecw = b->vw.v,
		.stats = b->stats,
		.problems = b->prob.v,
		.nproblems = b->prob.n,
		.run = b->run,
		.recpos = b->recpos.v,
		.nrecpos = b->recpos.n,
	};
	return 0;
}

const struct tg_hbgraph *hbb_graph(const struct hbb *b)
{
	return &b->graph;
}
