/*
 * index.c - the end of building the graph: the calls no edge touches
 * left out, the nodes numbered, and the vector clock of each node found
 * by a sweep of the ranks in topological order (or a cycle reported).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "int.h"
#include "../../libcommon/banned.h"

/*
 * Leave out the calls that no edge touches, such as an MPI_Irecv (unless a
 * synchronous send needs its start) or an MPI_Test that found nothing:
 * they order nothing that program order does not, and queries that land
 * on them land on their neighbours instead with the same answer.  A call
 * with MPI calls nested in it (an MPI-IO call and ROMIO's communication)
 * is kept: without its span, the node after it would be one inside it.
 */
void hb_prune(struct hbb *b)
{
	uint64_t n, e, N = b->nnodes, nf = 0;
	uint8_t *used = hb_calloc(N, 1);
	uint32_t *newid = hb_calloc(N, sizeof(uint32_t)), r;

	for (e = 0; e < b->esrc.n; e++) {
		if (b->esrc.v[e] < N)
			used[b->esrc.v[e]] = 1;
		if (b->edst.v[e] < N)
			used[b->edst.v[e]] = 1;
	}
	for (r = 0; r < b->P; r++) {
		uint64_t end = b->rankfirst[r + 1];
		n = b->rankfirst[r];
		b->rankfirst[r] = nf;
		for (; n < end; n++)
			/* a call with communication nested in it stays: a query
			 * of what came after it must land past what it nested */
			if (used[n] || b->span[n]) {
				newid[n] = (uint32_t)nf;
				b->seq[nf] = b->seq[n];
				b->span[nf] = b->span[n];
				b->func[nf] = b->func[n];
				b->nt0[nf] = b->nt0[n];
				b->nt1[nf] = b->nt1[n];
				nf++;
			}
	}
	b->rankfirst[b->P] = nf;
	for (e = 0; e < b->esrc.n; e++) {
		uint32_t *x[2] = { &b->esrc.v[e], &b->edst.v[e] };
		int k;
		for (k = 0; k < 2; k++)
			*x[k] = *x[k] < N ? newid[*x[k]] : (uint32_t)(*x[k] - N + nf);
	}
	b->nnodes = nf;
	hb_free(used);
	hb_free(newid);
}

/* ---- threads -------------------------------------------------------------------------------- */

/*
 * A rank whose threads made MPI calls at once is no chain of calls: one
 * thread's MPI_Recv blocks while another writes, closes and sends, and
 * ordering them by their starts made cycles and orders that did not
 * happen.  Its calls become instants instead: each call's start, where
 * its edges leave, and its end, where they enter, all of the rank's in
 * the order of their times.  One instant comes before the next as in
 * program order: whatever a call ended before another started (in any
 * thread: a join, a mutex, a condition variable of the program orders
 * them, unseen) comes before it.  An instant at the same time as
 * another's end is taken as not after it.
 */
struct instant {
	int64_t t;
	uint32_t node;
	uint8_t kind;		/* 0 a start, 1 an instant node, 2 an end */
};

static int cmp_instant(const void *x, const void *y)
{
	const struct instant *a = x, *c = y;

	if (a->t != c->t)
		return a->t < c->t ? -1 : 1;
	if (a->kind != c->kind)
		return a->kind < c->kind ? -1 : 1;
	return a->node < c->node ? -1 : a->node > c->node;
}

void hb_expand_threads(struct hbb *b)
{
	uint64_t N = b->nnodes, M = 0, n, e;
	uint32_t r, *news, *newe;
	uint64_t *seq, *first;
	uint32_t *span;
	uint16_t *func;
	int64_t *nt0, *nt1;
	struct instant *in = NULL;
	size_t cap = 0;
	int any = 0;

	for (r = 0; r < b->P; r++) {
		struct rst *st = (size_t)r < b->rankst.n && b->rankst.v[r] >= 0 ?
			b->st.v[b->rankst.v[r]] : NULL;
		int th = st && st->threads;
		if (th)
			b->rankinfo[r].flags |= TG_HBR_THREADS;
		any |= th;
		for (n = b->rankfirst[r]; n < b->rankfirst[r + 1]; n++)
			M += th && b->nt0[n] != b->nt1[n] ? 2 : 1;
	}
	if (!any)
		return;
	news = hb_calloc(N ? N : 1, sizeof(uint32_t));
	newe = hb_calloc(N ? N : 1, sizeof(uint32_t));
	seq = hb_calloc(M ? M : 1, sizeof(uint64_t));
	span = hb_calloc(M ? M : 1, sizeof(uint32_t));
	func = hb_calloc(M ? M : 1, sizeof(uint16_t));
	nt0 = hb_calloc(M ? M : 1, sizeof(int64_t));
	nt1 = hb_calloc(M ? M : 1, sizeof(int64_t));
	first = hb_calloc((size_t)b->P + 1, sizeof(uint64_t));
	M = 0;
	for (r = 0; r < b->P; r++) {
		uint64_t lo = b->rankfirst[r], hi = b->rankfirst[r + 1], k = 0, i;
		first[r] = M;
		if (!(b->rankinfo[r].flags & TG_HBR_THREADS)) {
			for (n = lo; n < hi; n++, M++) {
				news[n] = newe[n] = (uint32_t)M;
				seq[M] = b->seq[n];
				span[M] = b->span[n];
				func[M] = b->func[n];
				nt0[M] = b->nt0[n];
				nt1[M] = b->nt1[n];
			}
			continue;
		}
		if (2 * (hi - lo) > cap) {
			cap = 2 * (hi - lo);
			in = hb_realloc(in, cap * sizeof(*in));
		}
		for (n = lo; n < hi; n++) {
			if (b->nt0[n] == b->nt1[n]) {
				in[k++] = (struct instant){ b->nt0[n], (uint32_t)n, 1 };
			} else {
				in[k++] = (struct instant){ b->nt0[n], (uint32_t)n, 0 };
				in[k++] = (struct instant){ b->nt1[n], (uint32_t)n, 2 };
			}
		}
		qsort(in, k, sizeof(*in), cmp_instant);
		for (i = 0; i < k; i++, M++) {
			n = in[i].node;
			if (in[i].kind != 2)
				news[n] = (uint32_t)M;
			if (in[i].kind != 0)
				newe[n] = (uint32_t)M;
			seq[M] = b->seq[n];
			span[M] = 0;
			func[M] = b->func[n];
			nt0[M] = nt1[M] = in[i].t;
		}
	}
	first[b->P] = M;
	for (e = 0; e < b->esrc.n; e++) {
		uint32_t s = b->esrc.v[e], d = b->edst.v[e];
		b->esrc.v[e] = s < N ? news[s] : (uint32_t)(s - N + M);
		b->edst.v[e] = d < N ? newe[d] : (uint32_t)(d - N + M);
	}
	hb_free(b->seq);
	hb_free(b->span);
	hb_free(b->func);
	hb_free(b->nt0);
	hb_free(b->nt1);
	hb_free(b->rankfirst);
	b->seq = seq;
	b->span = span;
	b->func = func;
	b->nt0 = nt0;
	b->nt1 = nt1;
	b->rankfirst = first;
	b->nnodes = M;
	hb_free(news);
	hb_free(newe);
	hb_free(in);
}

/* For each record of a threaded rank: the first of its instants after the
 * record ended, the last before it started (RECPOS, tangram-hb(5)). */
void hb_place_records(struct hbb *b)
{
	uint32_t r;

	for (r = 0; r < b->P; r++) {
		struct rst *st = (size_t)r < b->rankst.n && b->rankst.v[r] >= 0 ?
			b->st.v[b->rankst.v[r]] : NULL;
		uint64_t lo, n;
		size_t i;
		if (!(b->rankinfo[r].flags & TG_HBR_THREADS) || !st)
			continue;
		lo = b->rankfirst[r];
		n = b->rankfirst[r + 1] - lo;
		/* (sorted by seq in hb_prepare_rank) */
		for (i = 0; i < st->rt.n; i++) {
			const struct rtime *x = &st->rt.v[i];
			uint64_t a = 0, c = n, m;
			struct tg_hbrecpos p = { x->seq, r, TG_HB_NONODE, TG_HB_NONODE };
			if (i && x->seq == st->rt.v[i - 1].seq)
				continue;
			/* the first instant after its end */
			while (a < c) {
				m = a + (c - a) / 2;
				if (b->nt0[lo + m] <= x->t1)
					a = m + 1;
				else
					c = m;
			}
			if (a < n)
				p.after = (uint32_t)a;
			/* the last instant before its start */
			a = 0;
			c = n;
			while (a < c) {
				m = a + (c - a) / 2;
				if (b->nt0[lo + m] < x->t0)
					a = m + 1;
				else
					c = m;
			}
			if (a > 0)
				p.before = (uint32_t)(a - 1);
			PUSH(b->recpos, p);
		}
		hb_free(st->rt.v);
		memset(&st->rt, 0, sizeof(st->rt));
	}
}

/* ---- the index --------------------------------------------------------------------------- */

struct sweep {
	struct hbb *b;
	uint64_t *iidx;		/* incoming edges per node (CSR) */
	uint32_t *isrc;
	uint32_t *cur;		/* per rank: nodes done */
	uint32_t *xcur;		/* per extra node: sources checked; NONE when done */
	uint32_t *xvec;		/* per extra node: its vector */
	uint32_t *rank_of;	/* per call node */
	int32_t *tmp, *src;	/* the vector being merged, one being read */
	uvec stack;
	uint32_t wait_rank, wait_at;	/* what the last check blocked on */
};

/* Is the start of node @u (a call node) or extra node @u known? */
static int ready(struct sweep *s, uint32_t u)
{
	struct hbb *b = s->b;

	if (u < b->nnodes) {
		uint32_t r = s->rank_of[u];
		uint32_t k = (uint32_t)(u - b->rankfirst[r]);
		if (s->cur[r] >= k)
			return 1;
		s->wait_rank = r;
		s->wait_at = k;
		return 0;
	}
	return s->xcur[u - b->nnodes] == NONE;
}

/* Store the vector @t as a narrow one if its entries fit, else wide. */
static uint32_t new_vec(struct sweep *s, const int32_t *t)
{
	struct hbb *b = s->b;
	uint32_t P = b->P, i;
	int32_t lo = INT32_MAX, hi = -1;
	uint64_t R = TG_HB_NARROW(P);
	uint8_t *x;

	for (i = 0; i < P; i++)
		if (t[i] >= 0) {
			if (t[i] < lo)
				lo = t[i];
			if (t[i] > hi)
				hi = t[i];
		}
	if (hi < 0)
		lo = hi = 0;
	if ((int64_t)hi - lo >= TG_HB_OFFNONE) {
		RESERVE(b->vw, b->vw.n + P);
		memcpy(b->vw.v + b->vw.n, t, P * sizeof(int32_t));
		b->vw.n += P;
		return TG_HB_WIDE | (uint32_t)b->nvw++;
	}
	RESERVE(b->vn, b->vn.n + R);
	x = b->vn.v + b->vn.n;
	memset(x, 0, R);
	memcpy(x, &lo, 4);
	for (i = 0; i < P; i++) {
		uint16_t o = t[i] < 0 ? TG_HB_OFFNONE : (uint16_t)(t[i] - lo);
		memcpy(x + 4 + 2 * i, &o, 2);
	}
	b->vn.n += R;
	return (uint32_t)b->nvn++;
}

/* @out = vector @v (all -1 for NONE) */
static void get_vec(const struct hbb *b, uint32_t v, int32_t *out)
{
	uint32_t P = b->P, i;
	const uint8_t *x;
	int32_t lo;

	if (v == NONE) {
		memset(out, 0xff, P * sizeof(int32_t));
		return;
	}
	if (v & TG_HB_WIDE) {
		memcpy(out, b->vw.v + (uint64_t)(v & ~TG_HB_WIDE) * P, P * sizeof(int32_t));
		return;
	}
	x = b->vn.v + (uint64_t)v * TG_HB_NARROW(P);
	memcpy(&lo, x, 4);
	for (i = 0; i < P; i++) {
		uint16_t o;
		memcpy(&o, x + 4 + 2 * i, 2);
		out[i] = o == TG_HB_OFFNONE ? -1 : lo + o;
	}
}

/*
 * tmp = max(tmp, what the start of @u knows).  Returns bit 0 if tmp
 * changed, bit 1 if what @u knows was at least tmp everywhere before
 * (so that tmp is now exactly that, for an extra node).
 */
static int merge(struct sweep *s, uint32_t u)
{
	struct hbb *b = s->b;
	uint32_t P = b->P, i, v;
	int changed = 0, covers = 1;

	if (u < b->nnodes) {
		uint32_t r = s->rank_of[u], k = (uint32_t)(u - b->rankfirst[r]);
		v = k ? b->clock[u - 1] : NONE;
		if (v != NONE) {
			get_vec(b, v, s->src);
			for (i = 0; i < P; i++)
				if (s->src[i] > s->tmp[i]) {
					s->tmp[i] = s->src[i];
					changed = 1;
				}
		}
		if ((int32_t)k > s->tmp[r]) {
			s->tmp[r] = (int32_t)k;
			changed = 1;
		}
		return changed;
	}
	v = s->xvec[u - b->nnodes];
	if (v == NONE)
		return 0;
	get_vec(b, v, s->src);
	for (i = 0; i < P; i++) {
		if (s->src[i] > s->tmp[i]) {
			s->tmp[i] = s->src[i];
			changed = 1;
		} else if (s->src[i] < s->tmp[i]) {
			covers = 0;
		}
	}
	return changed | covers << 1;
}

/* Try to compute extra node @x; 0 when blocked (s->wait_*). */
static int try_extra(struct sweep *s, uint32_t x0)
{
	struct hbb *b = s->b;
	uint32_t P = b->P;

	s->stack.n = 0;
	PUSH(s->stack, x0);
	while (s->stack.n) {
		uint32_t x = s->stack.v[s->stack.n - 1], xi = x - (uint32_t)b->nnodes;
		uint64_t e, e0 = s->iidx[x], e1 = s->iidx[x + 1];
		int pushed = 0;
		if (s->xcur[xi] == NONE) {
			s->stack.n--;
			continue;
		}
		for (e = e0 + s->xcur[xi]; e < e1; e++) {
			uint32_t u = s->isrc[e];
			if (u >= b->nnodes && s->xcur[u - b->nnodes] != NONE) {
				PUSH(s->stack, u);
				pushed = 1;
				break;
			}
			if (!ready(s, u))
				return 0;
			s->xcur[xi]++;
		}
		if (pushed)
			continue;
		memset(s->tmp, 0xff, P * sizeof(int32_t));
		for (e = e0; e < e1; e++)
			merge(s, s->isrc[e]);
		s->xvec[xi] = e1 > e0 ? new_vec(s, s->tmp) : NONE;
		s->xcur[xi] = NONE;
		s->stack.n--;
	}
	return 1;
}

/* Advance rank @r as far as it goes; returns 0 when blocked. */
static int advance(struct sweep *s, uint32_t r)
{
	struct hbb *b = s->b;
	uint32_t n = (uint32_t)(b->rankfirst[r + 1] - b->rankfirst[r]);

	while (s->cur[r] < n) {
		uint32_t k = s->cur[r], u = (uint32_t)b->rankfirst[r] + k, base, only = NONE;
		uint64_t e, e0 = s->iidx[u], e1 = s->iidx[u + 1];
		base = k ? b->clock[u - 1] : NONE;
		for (e = e0; e < e1; e++) {
			uint32_t v = s->isrc[e];
			if (v >= b->nnodes && s->xcur[v - b->nnodes] != NONE && !try_extra(s, v))
				return 0;
			if (v < b->nnodes && !ready(s, v))
				return 0;
		}
		if (e0 == e1) {
			b->clock[u] = base;
		} else {
			/* a node that learns nothing new keeps its
			 * predecessor's vector; the members of a collective
			 * share its extra node's */
			int changed = 0, covers = 0;
			get_vec(b, base, s->tmp);
			for (e = e0; e < e1; e++) {
				int m = merge(s, s->isrc[e]);
				changed |= m & 1;
				covers = m >> 1;
			}
			if (e1 - e0 == 1 && s->isrc[e0] >= b->nnodes && covers)
				only = s->xvec[s->isrc[e0] - b->nnodes];
			if (base != NONE && !changed)
				b->clock[u] = base;
			else if (only != NONE)
				b->clock[u] = only;
			else
				b->clock[u] = new_vec(s, s->tmp);
		}
		s->cur[r]++;
	}
	return 1;
}

int hb_index_graph(struct hbb *b, char *err, size_t errlen)
{
	struct sweep s;
	uint64_t tot = b->nnodes + b->xfunc.n, e;
	uint32_t P = b->P, r, *queue, qh = 0, qt = 0, *waiton, *waitat;
	uvec *waiters;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.b = b;
	s.iidx = hb_calloc(tot + 1, sizeof(uint64_t));
	s.isrc = hb_calloc(b->esrc.n, sizeof(uint32_t));
	for (e = 0; e < b->edst.n; e++)
		s.iidx[b->edst.v[e] + 1]++;
	/* each entry counts up to the next one's start as its edges are
	 * placed, then all move back by one */
	for (e = 0; e < tot; e++)
		s.iidx[e + 1] += s.iidx[e];
	for (e = 0; e < b->edst.n; e++)
		s.isrc[s.iidx[b->edst.v[e]]++] = b->esrc.v[e];
	memmove(s.iidx + 1, s.iidx, tot * sizeof(uint64_t));
	s.iidx[0] = 0;
	s.cur = hb_calloc(P, sizeof(uint32_t));
	s.xcur = hb_calloc(b->xfunc.n, sizeof(uint32_t));
	s.xvec = hb_calloc(b->xfunc.n, sizeof(uint32_t));
	s.rank_of = hb_calloc(b->nnodes, sizeof(uint32_t));
	s.tmp = hb_calloc(P, sizeof(int32_t));
	s.src = hb_calloc(P, sizeof(int32_t));
	b->clock = hb_calloc(b->nnodes, sizeof(uint32_t));
	for (r = 0; r < P; r++)
		for (e = b->rankfirst[r]; e < b->rankfirst[r + 1]; e++)
			s.rank_of[e] = r;
	queue = hb_calloc(P + 1, sizeof(uint32_t));
	waiton = hb_calloc(P, sizeof(uint32_t));
	waitat = hb_calloc(P, sizeof(uint32_t));
	waiters = hb_calloc(P, sizeof(uvec));
	for (r = 0; r < P; r++) {
		queue[qt++] = r;
		waiton[r] = NONE;
	}
	while (qh != qt) {
		uint32_t i, k;
		r = queue[qh];
		qh = (qh + 1) % (P + 1);
		if (!advance(&s, r)) {
			waiton[r] = s.wait_rank;
			waitat[r] = s.wait_at;
			PUSH(waiters[s.wait_rank], r);
		}
		/* wake those that waited for this rank to get this far */
		for (i = 0, k = 0; i < waiters[r].n; i++) {
			uint32_t w = waiters[r].v[i];
			if (waitat[w] <= s.cur[r]) {
				waiton[w] = NONE;
				queue[qt] = w;
				qt = (qt + 1) % (P + 1);
			} else {
				waiters[r].v[k++] = w;
			}
		}
		waiters[r].n = k;
	}
	for (r = 0; r < P; r++)
		if (s.cur[r] < b->rankfirst[r + 1] - b->rankfirst[r])
			break;
	if (r < P) {
		/* every rank left waits for another: follow the waits into the
		 * cycle, then around it */
		char msg[512];
		size_t off = 0;
		uint32_t x = r, first, steps;
		for (steps = 0; steps < P; steps++)
			x = waiton[x];
		first = x;
		for (steps = 0; steps < 4 && off < sizeof(msg); steps++) {
			uint64_t u = b->rankfirst[x] + s.cur[x];
			off += snprintf(msg + off, sizeof(msg) - off, "%srank %u %s (seq %llu)",
					steps ? " waits for " : "", x, hb_func_name(b->func[u]),
					(unsigned long long)b->seq[u]);
			x = waiton[x];
			if (x == first)
				break;
		}
		snprintf(err, errlen, "broken trace: the happens-before graph has a cycle: %s",
			 msg);
		rc = -1;
	}
	for (r = 0; r < P; r++)
		hb_free(waiters[r].v);
	hb_free(waiters);
	hb_free(waiton);
	hb_free(waitat);
	hb_free(queue);
	hb_free(s.iidx);
	hb_free(s.isrc);
	hb_free(s.cur);
	hb_free(s.xcur);
	hb_free(s.xvec);
	hb_free(s.rank_of);
	hb_free(s.tmp);
	hb_free(s.src);
	hb_free(s.stack.v);
	return rc;
}

/* ---- assembling the graph -------------------------------------------------------------------- */

void hb_make_csr(struct hbb *b)
{
	uint64_t tot = b->nnodes + b->xfunc.n, e;

	b->eindex = hb_calloc(tot + 1, sizeof(uint64_t));
	b->etarget = hb_calloc(b->esrc.n, sizeof(uint32_t));
	b->ekind_sorted = hb_calloc(b->esrc.n, 1);
	for (e = 0; e < b->esrc.n; e++)
		b->eindex[b->esrc.v[e] + 1]++;
	for (e = 0; e < tot; e++)
		b->eindex[e + 1] += b->eindex[e];
	for (e = 0; e < b->esrc.n; e++) {
		uint64_t at = b->eindex[b->esrc.v[e]]++;
		b->etarget[at] = b->edst.v[e];
		b->ekind_sorted[at] = b->ekind.v[e];
	}
	memmove(b->eindex + 1, b->eindex, tot * sizeof(uint64_t));
	b->eindex[0] = 0;
}

