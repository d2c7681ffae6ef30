/*
 * cfgdecode.c - decoding a compressed trace stream by stream: a cursor
 * expands the stream's start rule and decodes its signatures and times.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgint.h"
#include "varint.h"
#include "banned.h"

static int caches(struct tg_cfg *c)
{
	size_t i;

	if (c->ready)
		return 0;
	tg_cfg_caches_free(c);
	c->mdur = malloc((c->ncst ? c->ncst : 1) * sizeof(uint64_t));
	c->mgap = malloc((c->ncst ? c->ncst : 1) * sizeof(int64_t));
	c->depth = malloc((c->nrules ? c->nrules : 1) * sizeof(uint32_t));
	if (!c->mdur || !c->mgap || !c->depth)
		return -1;
	for (i = 0; i < c->ncst; i++) {
		const struct tg_agg *a = &c->agg[i];
		__int128 n = (__int128)a->count, g = a->gap;
		c->mdur[i] = a->count ? (uint64_t)((a->dur + a->count / 2) / a->count) : 0;
		c->mgap[i] = !a->count ? 0 : (int64_t)(g >= 0 ? (g + n / 2) / n : -((-g + n / 2) / n));
	}
	for (i = 0; i < c->nrules; i++) {
		uint32_t k, d = 1;
		for (k = c->roff[i]; k < c->roff[i + 1]; k++)
			if ((c->syms[k].sym & 1) && c->depth[c->syms[k].sym >> 1] + 1 > d)
				d = c->depth[c->syms[k].sym >> 1] + 1;
		c->depth[i] = d;
	}
	c->ready = 1;
	return 0;
}

struct frame {
	uint32_t pos, end, left;
};

struct tg_cfg_cursor {
	const struct tg_cfg *c;
	const struct tg_cstream *s;
	size_t idx;
	struct tg_header h;
	struct tg_sigstate st;
	struct tg_sigarena ar;
	struct frame *stk;
	size_t nstk;
	struct tg_tparams tp;
	unsigned char *traw;
	struct tg_tdec *dur, *gap;
	uint64_t *left;		/* records left in each cluster */
	size_t ncl, nextcl;
	uint32_t *clmap;
	uint64_t *tl, *tl2;
	size_t ntl;
	int form1;		/* lossless times in form 1 (TG_STIME_FORM1) */
	uint64_t *ld, *ldep;	/* form 1, per thread: last duration and depth */
	size_t nld;
	struct tg_xtdec xt;	/* aggregate: the anchored calls */
	int mono;		/* ... with some: rebuilt starts kept in order */
	int anchor;		/* the call being decoded is anchored */
	uint64_t *smin;		/* mono: the least start of anchors i.. on */
	uint64_t xi;		/* the anchors passed */
	uint64_t *flr;		/* per thread, per depth 0-7: the last start */
	size_t nflr;		/* threads flr has room for */
	uint64_t ncalls;	/* CALL records emitted */
	uint64_t emitted;
	int done;
	char err[256];
};

static int cursor_fail(struct tg_cfg_cursor *k, const char *what)
{
	snprintf(k->err, sizeof(k->err), "corrupt trace: stream %zu, record %llu: %s", k->idx,
		 (unsigned long long)k->emitted, what);
	k->done = 1;
	return -1;
}

/* Lossless form 1: every count, then every cluster's durations, then gaps. */
static int stime_form1(struct tg_cfg_cursor *k, const unsigned char **pp,
		       const unsigned char *end)
{
	size_t i;

	for (i = 0; i < k->ncl; i++)
		if (tg_get_uvar(pp, end, &k->left[i]) < 0)
			return -1;
	for (i = 0; i < k->ncl; i++)
		if (tg_tdec_open_bare(&k->dur[i], pp, end, k->left[i]) < 0)
			return -1;
	for (i = 0; i < k->ncl; i++)
		if (tg_tdec_open_bare(&k->gap[i], pp, end, k->left[i]) < 0)
			return -1;
	return 0;
}

static int stime_open(struct tg_cfg_cursor *k, char *err, size_t errlen)
{
	const unsigned char *p, *end;
	uint64_t mode, ncl, i;

	if (tg_cfg_inflate(k->s->tz, k->s->tzlen, k->s->traw, &k->traw) < 0)
		goto bad;
	p = k->traw;
	end = p + k->s->traw;
	if (tg_get_uvar(&p, end, &mode) < 0)
		goto bad;
	k->form1 = k->tp.mode == TG_T_LOSSLESS && mode == TG_T_LOSSLESS + TG_STIME_FORM1;
	if ((!k->form1 && mode != (uint64_t)k->tp.mode) ||
	    tg_get_uvar(&p, end, &ncl) < 0 || ncl > (uint64_t)(end - p))
		goto bad;
	k->dur = calloc(ncl ? ncl : 1, sizeof(*k->dur));
	k->gap = calloc(ncl ? ncl : 1, sizeof(*k->gap));
	k->left = calloc(ncl ? ncl : 1, sizeof(*k->left));
	if (!k->dur || !k->gap || !k->left)
		goto bad;
	k->ncl = (size_t)ncl;
	if (k->form1 && stime_form1(k, &p, end) < 0)
		goto bad;
	for (i = 0; !k->form1 && i < ncl; i++)
		if (tg_get_uvar(&p, end, &k->left[i]) < 0 ||
		    tg_tdec_open(&k->dur[i], &k->tp, &p, end) < 0 ||
		    tg_tdec_open(&k->gap[i], &k->tp, &p, end) < 0)
			goto bad;
	if (p != end)
		goto bad;
	return 0;
bad:
	if (k->s->tzat)
		snprintf(err, errlen, "corrupt section STIME at byte %llu (times of stream %zu)",
			 (unsigned long long)k->s->tzat, k->idx);
	else
		snprintf(err, errlen, "corrupt section STIME of stream %zu", k->idx);
	return -1;
}

/* The least start of the stream's anchored calls from each on: a call
 * the program made at depth 0 before an anchored one made later (or
 * inside one made later) started before every one of those. */
static int anchors_min(struct tg_cfg_cursor *k)
{
	struct tg_xtdec d;
	uint64_t n = k->s->nx, i = 0;

	if (!(k->smin = malloc((n ? n : 1) * sizeof(*k->smin))) || tg_xtdec_open(&d, k->s) < 0)
		return -1;
	for (; d.next != UINT64_MAX && i < n; i++) {
		k->smin[i] = d.start;
		if (tg_xtdec_step(&d) < 0)
			break;
	}
	tg_xtdec_release(&d);
	if (i != n)
		return -1;
	while (i-- > 1)
		if (k->smin[i] < k->smin[i - 1])
			k->smin[i - 1] = k->smin[i];
	return 0;
}

struct tg_cfg_cursor *tg_cfg_cursor_open(const struct tg_cfg *cc, size_t i, char *err,
					 size_t errlen)
{
	struct tg_cfg *c = (struct tg_cfg *)(uintptr_t)cc;	/* caches only */
	struct tg_cfg_cursor *k;

	if (i >= c->nst) {
		snprintf(err, errlen, "no stream %zu", i);
		return NULL;
	}
	if (caches(c) < 0 || !(k = calloc(1, sizeof(*k)))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	k->c = c;
	k->s = &c->st[i];
	k->idx = i;
	k->h = k->s->v.h;
	tg_sig_init(&k->st, k->h.rank, k->s->v.rank);
	k->st.clock = k->s->clock;	/* borrowed: released below, not freed */
	k->st.nclock = k->s->nclock;
	k->st.rep = k->s->rep;		/* borrowed too */
	k->st.nrep = k->s->nrep;
	k->st.local = k->s->local;	/* borrowed too */
	k->st.nlocal = k->s->nlocal;
	k->st.lstr = k->s->lstr;
	k->st.seqv = k->s->seqv;
	k->st.foreign = k->s->foreign;
	k->st.nforeign = k->s->nforeign;
	k->tp.mode = k->s->v.timing;
	k->tp.err_ppm = k->s->v.err_ppm;
	k->tp.bits = k->s->v.bits;
	k->tp.samples = k->s->v.samples;
	tg_tparams_fix(&k->tp);
	k->stk = malloc(((size_t)c->depth[k->s->rule] + 1) * sizeof(*k->stk));
	k->clmap = malloc((c->ncst ? c->ncst : 1) * sizeof(uint32_t));
	if (!k->stk || !k->clmap) {
		snprintf(err, errlen, "out of memory");
		tg_cfg_cursor_free(k);
		return NULL;
	}
	memset(k->clmap, 0xff, (c->ncst ? c->ncst : 1) * sizeof(uint32_t));
	k->stk[0].pos = c->roff[k->s->rule];
	k->stk[0].end = c->roff[k->s->rule + 1];
	k->stk[0].left = 0;
	k->nstk = 1;
	k->xt.next = UINT64_MAX;	/* no anchors but those XTIME gives */
	if (k->tp.mode != TG_T_AGG && stime_open(k, err, errlen) < 0) {
		tg_cfg_cursor_free(k);
		return NULL;
	}
	k->mono = k->tp.mode == TG_T_AGG && k->s->nx > 0;
	if (k->mono && anchors_min(k) < 0) {
		snprintf(err, errlen, "out of memory, or corrupt section XTIME of stream %zu", i);
		tg_cfg_cursor_free(k);
		return NULL;
	}
	if (k->tp.mode == TG_T_AGG && tg_xtdec_open(&k->xt, k->s) < 0) {
		if (k->s->xzat)
			snprintf(err, errlen, "corrupt section XTIME at byte %llu "
				 "(anchored times of stream %zu)", (unsigned long long)k->s->xzat, i);
		else
			snprintf(err, errlen, "corrupt section XTIME of stream %zu", i);
		tg_cfg_cursor_free(k);
		return NULL;
	}
	return k;
}

const struct tg_header *tg_cfg_cursor_header(const struct tg_cfg_cursor *k)
{
	return &k->h;
}

const char *tg_cfg_cursor_error(const struct tg_cfg_cursor *k)
{
	return k->err;
}

void tg_cfg_cursor_free(struct tg_cfg_cursor *k)
{
	size_t i;

	if (!k)
		return;
	k->st.clock = NULL;
	k->st.nclock = 0;
	k->st.rep = NULL;
	k->st.nrep = 0;
	k->st.local = NULL;
	k->st.nlocal = 0;
	k->st.lstr = NULL;
	tg_sig_release(&k->st);
	tg_sigarena_release(&k->ar);
	free(k->stk);
	free(k->traw);
	for (i = 0; i < k->ncl; i++) {
		tg_tdec_release(&k->dur[i]);
		tg_tdec_release(&k->gap[i]);
	}
	free(k->dur);
	free(k->gap);
	free(k->left);
	free(k->clmap);
	free(k->tl);
	free(k->tl2);
	free(k->flr);
	free(k->smin);
	free(k->ld);
	free(k->ldep);
	tg_xtdec_release(&k->xt);
	free(k);
}

/* The next signature of the stream, or -1 at its end. */
static int64_t next_terminal(struct tg_cfg_cursor *k)
{
	const struct tg_sym *syms = k->c->syms;
	const uint32_t *roff = k->c->roff;

	for (;;) {
		struct frame *f;
		uint32_t sym;
		if (!k->nstk)
			return -1;
		f = &k->stk[k->nstk - 1];
		if (!f->left) {
			if (f->pos == f->end) {
				k->nstk--;
				continue;
			}
			f->left = syms[f->pos].exp;
		}
		sym = syms[f->pos].sym;
		if (--f->left == 0)
			f->pos++;
		if (!(sym & 1))
			return sym >> 1;
		f = &k->stk[k->nstk++];
		f->pos = roff[sym >> 1];
		f->end = roff[(sym >> 1) + 1];
		f->left = 0;
	}
}

/*
 * Form 1: move the thread's restored start to where the gap of this call
 * (of @depth, lasting @dur) is taken from, and remember the call for the
 * next one.  Returns 0, or -1 out of memory.
 */
static int form1_from(struct tg_cfg_cursor *k, unsigned tid, unsigned depth, uint64_t dur)
{
	if (tid >= k->nld && tg_cfg_thread_room(&k->ld, &k->ldep, &k->nld, tid) < 0)
		return -1;
	k->tl[tid] = tg_time_from(k->tl[tid], k->ld[tid], k->ldep[tid], depth);
	k->ld[tid] = dur;
	k->ldep[tid] = depth;
	return 0;
}

/*
 * A rebuilt start no earlier than that of any call of its thread at its
 * depth or above decoded before it: those ended before it ended, and
 * none is around it, so each began before it (a call's nested calls
 * come before it, deeper).  Between anchored calls the rebuilt times,
 * pressed before the next one, would otherwise put an MPI_File_open
 * before the MPI_File_delete and the barrier the program made first.
 * An anchored call keeps its own start.
 */
static int keep_order(struct tg_cfg_cursor *k, struct tg_rec *out)
{
	unsigned d = out->depth < 8 ? out->depth : 7, i;
	uint64_t *f, floor = 0;

	if (out->tid >= k->nflr) {
		size_t n = k->nflr ? k->nflr : 8;
		while (n <= out->tid)
			n *= 2;
		if (!(f = realloc(k->flr, n * 8 * sizeof(*f))))
			return -1;
		memset(f + k->nflr * 8, 0, (n - k->nflr) * 8 * sizeof(*f));
		k->flr = f;
		k->nflr = n;
	}
	f = k->flr + out->tid * 8;
	for (i = 0; i <= d; i++)
		if (f[i] > floor)
			floor = f[i];
	if (!k->anchor && out->tstart < floor) {
		out->dur = out->tstart + out->dur > floor ? out->tstart + out->dur - floor : 0;
		out->tstart = floor;
	}
	f[d] = out->tstart;
	return 0;
}

int tg_cfg_cursor_next(struct tg_cfg_cursor *k, struct tg_rec *out)
{
	const struct tg_cfg *c = k->c;
	int64_t t;
	int rc;

	if (k->done)
		return k->err[0] ? -1 : 0;
	if ((t = next_terminal(k)) < 0) {
		k->done = 1;
		if (k->emitted != k->s->v.records)
			return cursor_fail(k, "the grammar ends early");
		return 0;
	}
	rc = tg_sig_decode(&k->st, &c->strs, c->words + c->cst[t].off, c->cst[t].n, out,
			   &k->ar);
	if (rc <= 0) {
		char what[96];
		snprintf(what, sizeof(what), "signature %lld does not decode here", (long long)t);
		return cursor_fail(k, what);
	}
	if (out->type == TG_REC_CALL) {
		int64_t dur, gap;
		uint64_t bound;
		if (out->tid >= k->ntl && tg_cfg_thread_room(&k->tl, &k->tl2, &k->ntl, out->tid) < 0)
			return cursor_fail(k, "out of memory");
		if (k->tp.mode == TG_T_AGG) {
			dur = (int64_t)c->mdur[t];
			gap = c->mgap[t];
		} else {
			uint32_t cl = k->clmap[t];
			if (cl == UINT32_MAX) {
				if (k->nextcl >= k->ncl)
					return cursor_fail(k, "more signatures than timing clusters");
				cl = k->clmap[t] = (uint32_t)k->nextcl++;
			}
			if (!k->left[cl]-- || tg_tdec_get(&k->dur[cl], &k->tp, 0, &dur) < 0 ||
			    tg_tdec_get(&k->gap[cl], &k->tp, 1, &gap) < 0)
				return cursor_fail(k, "times run out (corrupt section STIME)");
		}
		if (k->form1 && form1_from(k, out->tid, out->depth, (uint64_t)dur) < 0)
			return cursor_fail(k, "out of memory");
		/* mean gaps can be negative (a nested call is stored before the
		 * call that encloses it): never before time zero */
		if (gap < 0 && k->tl[out->tid] < (uint64_t)-gap)
			k->tl[out->tid] = 0;
		else
			k->tl[out->tid] += (uint64_t)gap;
		out->tstart = k->tl[out->tid];
		out->dur = (uint64_t)dur;
		/* an anchored call has its own times, and the thread's next
		 * calls are rebuilt from its start: drift stops there */
		k->anchor = k->xt.next == k->ncalls;
		/* (the bound of a call at depth 0: the least start of the
		 * anchored calls to come, around it or not; deeper, the
		 * next one's, which may be around it) */
		bound = k->xt.next == UINT64_MAX ? UINT64_MAX :
			!k->mono || out->depth ? k->xt.start : k->smin[k->xi];
		if (k->anchor) {
			out->tstart = k->tl[out->tid] = k->xt.start;
			out->dur = k->xt.dur;
			k->xi++;
			if (tg_xtdec_step(&k->xt) < 0)
				return cursor_fail(k, "anchored times malformed (corrupt section XTIME)");
		} else if (k->xt.next != UINT64_MAX && out->tstart >= bound) {
			/* nor does a rebuilt call reach the next anchored one,
			 * which the process made after it (or around it, were
			 * it nested): a parent's open rebuilt after its exact
			 * fork put the child first.  Just before it, then */
			out->tstart = bound ? bound - 1 : 0;
			out->dur = 0;
		} else if (k->xt.next != UINT64_MAX && out->tstart + out->dur > bound) {
			out->dur = bound - out->tstart;
		}
		if (k->mono && keep_order(k, out) < 0)
			return cursor_fail(k, "out of memory");
		k->ncalls++;
	} else if (out->type == TG_REC_RANK) {
		k->h.rank = out->rank;
		k->h.world = out->world;
	}
	k->emitted++;
	return 1;
}
