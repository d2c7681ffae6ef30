/*
 * walk.c - the middle of building the graph: each rank's calls walked
 * in the order they started, following its handles (communicators,
 * files, requests) and giving communicators one identity for the run;
 * then the matching of sends to receives and of collective calls.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "int.h"
#include "../../libcommon/funcid.gen.h"
#include "../../libcommon/banned.h"

/* ---- global communicators -------------------------------------------------------------- */

uint32_t hb_new_gid(struct hbb *b, const int32_t *ma, uint32_t na, const int32_t *mb,
			uint32_t nb, int inter, int isfile)
{
	struct gcomm g;

	memset(&g, 0, sizeof(g));
	g.n = na + nb;
	g.na = na;
	g.inter = inter;
	g.isfile = isfile;
	g.members = hb_calloc(g.n, sizeof(int32_t));
	if (na)
		memcpy(g.members, ma, na * sizeof(int32_t));
	if (nb)
		memcpy(g.members + na, mb, nb * sizeof(int32_t));
	g.lists = hb_calloc(g.n, sizeof(uvec));
	PUSH(b->g, g);
	if (isfile == 1)
		b->nfiles++;
	else if (isfile == 0)
		b->ncomms++;
	return (uint32_t)b->g.n - 1;
}

/* Intern the key k[0..n); returns its id. */
static uint32_t intern(struct hbb *b, const int32_t *k, uint32_t n)
{
	uint64_t h = 1469598103934665603ull, *slot;
	uint32_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (uint32_t)k[i]) * 1099511628211ull;
	h &= ~(1ull << 63);
	/* probe h, h+1, ... in the map until the key or a free slot */
	for (;; h = (h + 1) & ~(1ull << 63)) {
		slot = hb_umap_at(&b->keyidx, h, 1, UINT64_MAX);
		if (*slot == UINT64_MAX) {
			*slot = b->keyoff.n;
			PUSH(b->keyoff, (uint32_t)b->keys.n);
			PUSH(b->keys, (int32_t)n);
			for (i = 0; i < n; i++)
				PUSH(b->keys, k[i]);
			return (uint32_t)*slot;
		}
		{
			const int32_t *o = b->keys.v + b->keyoff.v[*slot];
			if ((uint32_t)o[0] == n && memcmp(o + 1, k, n * sizeof(int32_t)) == 0)
				return (uint32_t)*slot;
		}
	}
}

static int lex_less(const int32_t *a, int32_t na, const int32_t *b2, int32_t nb)
{
	int32_t i;

	for (i = 0; i < na && i < nb; i++)
		if (a[i] != b2[i])
			return a[i] < b2[i];
	return na < nb;
}

static int32_t self_gid(struct hbb *b, int32_t rank)
{
	if ((size_t)rank >= b->selfgid.n) {
		size_t old = b->selfgid.n;
		RESERVE(b->selfgid, (size_t)rank + 1);
		b->selfgid.n = (size_t)rank + 1;
		memset(b->selfgid.v + old, 0xff, (b->selfgid.n - old) * sizeof(int32_t));
	}
	if (b->selfgid.v[rank] < 0)
		b->selfgid.v[rank] = (int32_t)hb_new_gid(b, &rank, 1, NULL, 0, 0, 0);
	return b->selfgid.v[rank];
}

/* gid and position of the rank's communicator @code; -1 if unknown. */
static int32_t comm_gid(struct hbb *b, struct rst *r, int32_t code, int32_t *pos)
{
	if (code == CW && r->run >= 0) {
		*pos = (int32_t)(r->rank - b->runs.v[r->run].first);
		return b->runs.v[r->run].gid;
	}
	if (code == CW) {
		*pos = (int32_t)r->rank;
		return 0;
	}
	if (code == CS) {
		*pos = 0;
		return self_gid(b, (int32_t)r->rank);
	}
	if (code >= 0 && (size_t)code < r->ldef.n && r->ldef.v[code].gid >= 0) {
		*pos = r->ldef.v[code].pos;
		return r->ldef.v[code].gid;
	}
	return -1;
}

static int32_t peer_world(struct hbb *b, struct rst *r, int32_t code, int32_t g);

/* The members of a cartesian grid (dims[0..nd), periods) whose parts of
 * a neighbourhood collective come before each member's end: the members
 * a step before and after it along each dimension (MPI_Cart_shift). */
static void cart_sources(struct gcomm *g, const int32_t *dims, const int32_t *per, int32_t nd)
{
	uint64_t size = 1, i, rem, *stride;
	int64_t *c;
	int32_t d, s;

	for (d = 0; d < nd; d++) {
		if (dims[d] <= 0)
			return;
		size *= (uint64_t)dims[d];
		if (size > g->n)
			return;
	}
	stride = hb_calloc((size_t)nd + 1, sizeof(*stride));
	c = hb_calloc((size_t)nd + 1, sizeof(*c));
	for (d = nd, rem = 1; d-- > 0;) {
		stride[d] = rem;
		rem *= (uint64_t)dims[d];
	}
	for (i = 0; i < size; i++) {
		for (d = 0; d < nd; d++)
			c[d] = (int64_t)((i / stride[d]) % (uint64_t)dims[d]);
		for (d = 0; d < nd; d++)
			for (s = -1; s <= 1; s += 2) {
				int64_t cc = c[d] + s;
				uint64_t j;
				if (cc < 0 || cc >= dims[d]) {
					if (!per[d])
						continue;
					cc = (cc + dims[d]) % dims[d];
				}
				j = i + (uint64_t)(cc - c[d]) * stride[d];
				if (j != i)
					PUSH(g->nbr[i], (uint32_t)j);
			}
	}
	hb_free(stride);
	hb_free(c);
}

/* The grid of the rank's communicator @code, when it is Cartesian: its
 * dimensions and periods in @dims and @per (room for @max each), made by
 * MPI_Cart_create, or by MPI_Cart_sub of a grid (the dimensions it kept,
 * in order), or a copy of one; how many dimensions, or -1. */
static int32_t cart_grid(const struct rst *r, int32_t code, int32_t *dims, int32_t *per,
			 int32_t max, int depth)
{
	const struct ldef *d;
	const int32_t *t;
	int32_t n, k, i;

	if (code < 0 || (size_t)code >= r->ldef.n || depth > 64)
		return -1;
	d = &r->ldef.v[code];
	t = r->pool.v + d->toff;
	switch (d->topo) {
	case TOPO_CART:
		if (d->tn < 0 || d->tn > max)
			return -1;
		for (i = 0; i < d->tn; i++) {
			dims[i] = t[i];
			per[i] = t[d->tn + i];
		}
		return d->tn;
	case TOPO_DUP:
		return cart_grid(r, d->tcomm, dims, per, max, depth + 1);
	case TOPO_SUB:
		if ((n = cart_grid(r, d->tcomm, dims, per, max, depth + 1)) != d->tn)
			return -1;
		for (i = 0, k = 0; i < n; i++)
			if (t[i]) {
				dims[k] = dims[i];
				per[k++] = per[i];
			}
		return k;
	}
	return -1;
}

/* The topology the call that made @d gave it (keep_topology in graph.c),
 * on its communicator's global identity: whose part of a neighbourhood
 * collective comes before each member's end. */
static void topology(struct hbb *b, struct rst *r, struct ldef *d)
{
	struct gcomm *g = &b->g.v[d->gid];
	const int32_t *t = r->pool.v + d->toff;
	int32_t i, pos, pg;
	uint32_t j, k;

	if (d->topo == TOPO_NONE || g->inter)
		return;
	if (d->topo == TOPO_DUP) {
		/* a copy: the same members in the same order, and the
		 * original's topology (which the other ranks may not have
		 * given yet: a distributed graph) */
		pg = comm_gid(b, r, d->tcomm, &pos);
		if (pg >= 0 && pg != d->gid && b->g.v[pg].n == g->n && !g->nbr)
			g->nbr_of = b->g.v[pg].nbr_of ? b->g.v[pg].nbr_of : (uint32_t)pg + 1;
		return;
	}
	if (d->topo != TOPO_DIST && g->nbr)
		return;		/* (every member gives the same grid or graph) */
	if (d->topo == TOPO_SUB) {
		/* a row (or slab) of its parent's grid: a grid of its own,
		 * its members in the order of the kept coordinates */
		int32_t dims[64], per[64], n = cart_grid(r, (int32_t)(d - r->ldef.v), dims, per, 64, 0);
		if (n > 0) {
			g->nbr = hb_calloc(g->n, sizeof(uvec));
			cart_sources(g, dims, per, n);
		}
		return;
	}
	if (!g->nbr)
		g->nbr = hb_calloc(g->n, sizeof(uvec));
	if (d->topo == TOPO_CART) {
		cart_sources(g, t, t + d->tn, d->tn);
	} else if (d->topo == TOPO_GRAPH) {
		/* node i's neighbours: edges[index[i-1] .. index[i]) */
		const int32_t *edges = t + d->tn;
		for (i = 0; i < d->tn && (uint32_t)i < g->n; i++)
			for (k = i ? (uint32_t)t[i - 1] : 0; k < (uint32_t)t[i]; k++)
				if (edges[k] >= 0 && (uint32_t)edges[k] < g->n && edges[k] != i)
					PUSH(g->nbr[i], (uint32_t)edges[k]);
	} else if (d->pos >= 0 && (uint32_t)d->pos < g->n) {
		/* this member's sources, by rank in comm_old */
		for (i = 0; i < d->tn; i++) {
			int32_t w = peer_world(b, r, d->tcomm, t[i]);
			for (j = 0; j < g->n; j++)
				if (g->members[j] == w && j != (uint32_t)d->pos)
					PUSH(g->nbr[d->pos], j);
		}
	}
}

static void resolve_ldef(struct hbb *b, struct rst *r, struct ldef *d)
{
	const int32_t *m = r->pool.v + d->moff, *x = r->pool.v + d->roff;
	int32_t pg = -1, pp, i, me = -1;
	int inter = d->rn >= 0, swap = 0;
	uint32_t cfunc = d->cfunc;
	ivec k = { 0 };
	uint64_t *occ, *gs;
	uint32_t kid;

	if (d->parent != CU)
		pg = comm_gid(b, r, d->parent, &pp);
	/* the two sides of a connection (MPI_Comm_accept on one,
	 * MPI_Comm_connect or MPI_Comm_join on the other) each make it from
	 * a communicator of their own: the intercommunicator is the one of
	 * those two groups, the n-th such between them */
	if (cfunc == TG_FN_MPI_Comm_accept || cfunc == TG_FN_MPI_Comm_connect ||
	    cfunc == TG_FN_MPI_Comm_join) {
		pg = -2;
		cfunc = TG_FN_MPI_Comm_accept;
	}
	for (i = 0; i < d->mn; i++)
		if (m[i] == r->rank)
			me = i;
	if (me < 0)
		return;	/* a definition that does not name its own rank */
	if (inter && lex_less(x, d->rn, m, d->mn))
		swap = 1;
	PUSH(k, pg);
	PUSH(k, cfunc);
	PUSH(k, inter);
	if (swap) {
		PUSH(k, d->rn);
		for (i = 0; i < d->rn; i++)
			PUSH(k, x[i]);
	}
	PUSH(k, d->mn);
	for (i = 0; i < d->mn; i++)
		PUSH(k, m[i]);
	if (inter && !swap) {
		PUSH(k, d->rn);
		for (i = 0; i < d->rn; i++)
			PUSH(k, x[i]);
	}
	kid = intern(b, k.v, (uint32_t)k.n);
	hb_free(k.v);
	occ = hb_umap_at(&b->occ, (uint64_t)kid << 32 | (uint32_t)r->rank, 1, 0);
	gs = hb_umap_at(&b->gidof, (uint64_t)kid << 32 | (uint32_t)*occ, 1, UINT64_MAX);
	(*occ)++;
	if (*gs == UINT64_MAX) {
		if (!inter)
			*gs = hb_new_gid(b, m, d->mn, NULL, 0, 0, 0);
		else if (swap)
			*gs = hb_new_gid(b, x, d->rn, m, d->mn, 1, 0);
		else
			*gs = hb_new_gid(b, m, d->mn, x, d->rn, 1, 0);
	}
	d->gid = (int32_t)*gs;
	d->pos = me + (swap ? d->rn : 0);
	topology(b, r, d);
}

/* The world rank of group rank @g of the rank's communicator @code, as a
 * peer (the remote group of an intercommunicator); BADRANK if out of range. */
static int32_t peer_world(struct hbb *b, struct rst *r, int32_t code, int32_t g)
{
	const struct ldef *d;

	if (code == CW && r->run >= 0)
		return g >= 0 && g < b->runs.v[r->run].world ?
			(int32_t)(b->runs.v[r->run].first + g) : BADRANK;
	if (code == CW)
		return g >= 0 && (uint32_t)g < b->P ? g : BADRANK;
	if (code == CS)
		return g == 0 ? (int32_t)r->rank : BADRANK;
	if (code < 0 || (size_t)code >= r->ldef.n)
		return BADRANK;
	d = &r->ldef.v[code];
	if (d->rn >= 0)
		return g >= 0 && g < d->rn ? r->pool.v[d->roff + g] : BADRANK;
	return g >= 0 && g < d->mn ? r->pool.v[d->moff + g] : BADRANK;
}

/* ---- the walk ---------------------------------------------------------------------------- */

enum { RQ_NONE, RQ_SEND, RQ_RECV, RQ_SENDRECV, RQ_COLL, RQ_INERT };

struct rq {
	uint8_t type, persist, active;
	uint32_t op, op2;	/* the current operation(s) */
	uint32_t tmpl;		/* persistent: the record that made it */
};

/* A lock epoch begun: window @win of the rank, the target, the lock's
 * node and start; @orders: exclusive or shared, without MPI_MODE_NOCHECK
 * (and times that are the run's). */
struct openlock {
	uint32_t win;
	int32_t target;
	uint32_t node;
	int64_t t0, t0e;	/* the lock call's start and end */
	uint8_t orders, shared;
	uint8_t used;		/* an operation was made in it */
};

/* A group the rank made: the global ranks of its members in group
 * order; n -1 when they are not known. */
struct wgroup {
	int32_t *m;
	int32_t n;
};

/* The epochs of one window of the rank: the open general active target
 * access epoch's targets (positions in the window's group; nacc -1 when
 * none is open, -2 when its group is not known) and whether it got from
 * each, the open exposure epoch's origins (likewise) and its post node,
 * per member of the window the epochs of each side begun with it, and
 * whether an MPI_Win_lock_all epoch is open. */
struct winst {
	int32_t *acc, *exp;
	uint8_t *accget;
	int32_t nacc, nexp;
	uint32_t post;
	uint32_t *kacc, *kexp;
	uint8_t lockall;
};

/* A passive-target operation not yet completed: its window (index in
 * r->wdef), target, request (MPI_Rget's, 0 if none), the bytes of the
 * target's window [dlo, dhi), call start and node, TG_MF_PUT /
 * TG_MF_GET, and the lock epoch it is in (LK_*). */
struct pendop {
	int32_t win, target, req;
	int64_t dlo, dhi;
	int64_t t0;
	uint32_t opnode;
	uint8_t flags, lock;
};

struct walk {
	struct hbb *b;
	struct rst *r;
	VEC(struct rq) rq;
	VEC(struct openlock) locks;	/* lock epochs begun, not ended */
	VEC(struct wgroup) groups;	/* by group id */
	VEC(struct winst) pw;		/* by window (index in r->wdef) */
	VEC(struct pendop) pend;	/* passive-target operations begun */
	size_t lastread;		/* 1 + the last done one that read, in b->pops */
	const struct hrec *h;	/* the call being walked */
	uint32_t node;		/* its node, NONE if it is not one */
	/* a rank whose threads made MPI calls: its request handles by
	 * (handle, thread) in rqs, and the last made under each handle */
	VEC(struct rq) rqs;
	struct umap slot, last;
};

/*
 * A request handle of a rank whose threads made MPI calls: one thread
 * can free a handle and another get the same from its MPI_Irecv at once,
 * and the calls' starts put the second before the first's wait.  A handle
 * is taken as its own thread's when that thread made one under it, else
 * as the last made (a request completed by another thread).
 */
static struct rq *rq_thread(struct walk *w, int32_t id, int def)
{
	uint64_t key = (uint64_t)(uint32_t)id << 16 | w->h->tid, *s, *l;

	s = hb_umap_at(&w->slot, key, 0, 0);
	if (!def && !(s && w->rqs.v[*s].type != RQ_NONE) &&
	    (l = hb_umap_at(&w->last, (uint32_t)id, 0, 0)))
		return &w->rqs.v[*l];
	if (!s) {
		struct rq z;
		memset(&z, 0, sizeof(z));
		PUSH(w->rqs, z);
		s = hb_umap_at(&w->slot, key, 1, w->rqs.n - 1);
	}
	if (def)
		*hb_umap_at(&w->last, (uint32_t)id, 1, 0) = *s;
	return &w->rqs.v[*s];
}

static struct rq *rq_get(struct walk *w, int32_t id, int def)
{
	if (id <= 0)
		return NULL;
	if (w->r->threads)
		return rq_thread(w, id, def);
	if ((size_t)id >= w->rq.n) {
		size_t old = w->rq.n;
		RESERVE(w->rq, (size_t)id + 1);
		w->rq.n = (size_t)id + 1;
		memset(w->rq.v + old, 0, (w->rq.n - old) * sizeof(struct rq));
	}
	return &w->rq.v[id];
}

/* Request handle @id as a call uses it. */
static struct rq *rq_at(struct walk *w, int32_t id)
{
	return rq_get(w, id, 0);
}

static uint32_t add_send(struct walk *w, int32_t code, int32_t dest, int32_t tag,
			 uint8_t flags)
{
	struct hbb *b = w->b;
	struct sendop s;
	int32_t pos, gid;

	if (dest == PROC_NULL)
		return NONE;
	gid = comm_gid(b, w->r, code, &pos);
	if (gid < 0) {
		hb_problem(b, TG_HBP_UNKNOWN_HANDLE, w->r->rank, w->h->func, w->h->seq);
		return NONE;
	}
	s.dst = peer_world(b, w->r, code, dest);
	if (s.dst == BADRANK) {
		hb_problem(b, TG_HBP_BAD_RANK, w->r->rank, w->h->func, w->h->seq);
		return NONE;
	}
	s.gid = gid;
	s.src = (int32_t)w->r->rank;
	s.tag = tag;
	s.node = w->node;
	s.done = NONE;
	s.flags = flags & (TG_MF_SYNC | TG_MF_READY);
	PUSH(b->sends, s);
	return (uint32_t)b->sends.n - 1;
}

static uint32_t add_recv(struct walk *w, int32_t code, int32_t source, int32_t tag)
{
	struct hbb *b = w->b;
	struct recvop v;
	int32_t pos, gid;

	if (source == PROC_NULL)
		return NONE;
	gid = comm_gid(b, w->r, code, &pos);
	if (gid < 0) {
		hb_problem(b, TG_HBP_UNKNOWN_HANDLE, w->r->rank, w->h->func, w->h->seq);
		return NONE;
	}
	memset(&v, 0, sizeof(v));
	v.wild = (source == ANY_SOURCE ? 1 : 0) | (tag == ANY_TAG ? 2 : 0);
	v.src = source == ANY_SOURCE ? ANY_SOURCE : peer_world(b, w->r, code, source);
	if (v.src == BADRANK) {
		hb_problem(b, TG_HBP_BAD_RANK, w->r->rank, w->h->func, w->h->seq);
		return NONE;
	}
	v.gid = gid;
	v.dst = (int32_t)w->r->rank;
	v.tag = tag;
	v.post = w->node;
	v.done = NONE;
	v.comm = code;
	PUSH(b->recvs, v);
	return (uint32_t)b->recvs.n - 1;
}

/* Receive @i completed at the current node with status (@src, @tag). */
static void recv_done(struct walk *w, uint32_t i, int32_t src, int32_t tag)
{
	struct recvop *v;

	if (i == NONE)
		return;
	v = &w->b->recvs.v[i];
	if (v->done != NONE)
		return;
	v->done = w->node;
	/* a source of MPI_PROC_NULL means nothing came: the tracer records a
	 * cancelled receive's status so, whatever it was posted for, and it
	 * is matched with no send (see hb_match_p2p) */
	if (src == PROC_NULL) {
		v->src = PROC_NULL;
		v->wild = 0;
		return;
	}
	/* a wildcard receive learns its source and tag from its status */
	if ((v->wild & 1) && src != NOST) {
		v->src = src == PROC_NULL ? PROC_NULL : peer_world(w->b, w->r, v->comm, src);
		v->wild &= (uint8_t)~1;
	}
	if ((v->wild & 2) && tag != NOST) {
		v->tag = tag;
		v->wild &= (uint8_t)~2;
	}
}

/* @fl: the call's flow words (push_flow()), or NULL for FLOW_ANY */
static uint32_t add_inst(struct walk *w, int32_t gid, int32_t pos, int32_t root, uint32_t end,
			 const int32_t *fl)
{
	struct hbb *b = w->b;
	struct inst in;
	int32_t i;

	in.start = w->node;
	in.end = end;
	in.seq = w->h->seq;
	in.fn = w->h->fn;
	in.func = w->h->func;
	in.root = root;
	in.rank = (int32_t)w->r->rank;
	in.flow = fl ? fl[0] : FLOW_ANY;
	in.foff = in.fn_ = 0;
	in.t0 = w->h->t0;
	in.t1 = end != NONE ? w->h->t1 : INT64_MAX;
	in.timed = 0;
	if (in.flow == FLOW_LIST) {
		in.foff = (uint32_t)b->flows.n;
		in.fn_ = (uint32_t)fl[1];
		for (i = 0; i < fl[1]; i++)
			PUSH(b->flows, fl[2 + i]);
	}
	PUSH(b->insts, in);
	if (pos >= 0 && (uint32_t)pos < b->g.v[gid].n)
		PUSH(b->g.v[gid].lists[pos], (uint32_t)b->insts.n - 1);
	return (uint32_t)b->insts.n - 1;
}

/* A collective on communicator @code that moves what @fl says; returns
 * the instance or NONE. */
static uint32_t coll(struct walk *w, int32_t code, int32_t root, int blocking, const int32_t *fl)
{
	int32_t pos, gid = comm_gid(w->b, w->r, code, &pos);

	if (gid < 0 || pos < 0) {
		if (code != CN)
			hb_problem(w->b, TG_HBP_UNKNOWN_HANDLE, w->r->rank, w->h->func, w->h->seq);
		return NONE;
	}
	return add_inst(w, gid, pos, root, blocking ? w->node : NONE, fl);
}

/*
 * What a file collective orders of its own: nothing, where the MPI library's
 * communication inside MPI-IO calls is in the trace (ROMIO's, through the
 * PMPI_ entries): MPI makes no collective on a file synchronise (MPI 4.1
 * §14.6.10: two MPI_File_sync without the barrier between are erroneous;
 * ROMIO's sync sends nothing), and what the library's messages inside the
 * call ordered is ordered by those.  Where none was ever seen (a library
 * whose MPI-IO calls communicate out of sight, Open MPI's OMPIO), the call
 * stands for its unseen messages: every member's start before every end,
 * but for the members whose times say otherwise (one that returned before
 * another called: OMPIO's write_at_all of two ranks waits for nobody).
 * Under hb-build -m (MPI's promises only, for the MPI-IO layer) it orders
 * nothing, and the library's messages are left out.
 */
static const int32_t no_flow[] = { FLOW_NONE };

static const int32_t *file_flow(const struct walk *w)
{
	return w->b->iosplit || w->b->mpionly ? no_flow : NULL;
}

static uint32_t file_coll(struct walk *w, int32_t fd, int blocking, int exact)
{
	struct fdef *f;
	uint32_t i;

	if (fd < 0 || (size_t)fd >= w->r->fdef.n || w->r->fdef.v[fd].gid < 0) {
		hb_problem(w->b, TG_HBP_UNKNOWN_HANDLE, w->r->rank, w->h->func, w->h->seq);
		return NONE;
	}
	f = &w->r->fdef.v[fd];
	i = add_inst(w, f->gid, f->pos, 0, blocking ? w->node : NONE, file_flow(w));
	/* times from one clock: the run's own, on one host; of a .cfg
	 * whose times are rebuilt, those it kept of such a call and of the
	 * end of a split one (tangram-cfg(5), XTIME), not of the wait that
	 * ends a nonblocking one */
	w->b->insts.v[i].timed = !file_flow(w) && w->b->hosts < 2 &&
				 (!w->b->notimes || (w->b->anchored && exact));
	return i;
}

/* Request @id completed here, with status (@src, @tag). */
static void req_done(struct walk *w, int32_t id);

static void complete(struct walk *w, int32_t id, int32_t src, int32_t tag, int keep)
{
	struct rq *q;

	if (id <= 0)
		return;
	if (w->pend.n)
		req_done(w, id);
	q = rq_at(w, id);
	if (q->type == RQ_NONE) {
		hb_problem(w->b, TG_HBP_UNKNOWN_HANDLE, w->r->rank, w->h->func, w->h->seq);
		return;
	}
	if (q->active) {
		switch (q->type) {
		case RQ_SEND:
			if (q->op != NONE && w->b->sends.v[q->op].done == NONE)
				w->b->sends.v[q->op].done = w->node;
			break;
		case RQ_RECV:
			recv_done(w, q->op, src, tag);
			break;
		case RQ_SENDRECV:
			if (q->op != NONE && w->b->sends.v[q->op].done == NONE)
				w->b->sends.v[q->op].done = w->node;
			recv_done(w, q->op2, src, tag);
			break;
		case RQ_COLL:
			if (q->op != NONE && w->b->insts.v[q->op].end == NONE) {
				w->b->insts.v[q->op].end = w->node;
				w->b->insts.v[q->op].t1 = w->h->t1;
			}
			break;
		}
	}
	if (keep)
		return;
	if (q->persist)
		q->active = 0;
	else
		memset(q, 0, sizeof(*q));
}

static void set_rq(struct walk *w, int32_t id, uint8_t type, uint32_t op, uint32_t op2,
		   int persist)
{
	struct rq *q = rq_get(w, id, 1);

	if (!q)
		return;
	q->type = type;
	q->op = op;
	q->op2 = op2;
	q->persist = (uint8_t)persist;
	q->active = !persist;
	q->tmpl = persist ? (uint32_t)(w->h - w->r->rec.v) : NONE;
}

/* Start persistent request @id (MPI_Start, MPI_Startall). */
static void start(struct walk *w, int32_t id)
{
	struct rq *q = rq_at(w, id);
	const struct hrec *t;
	const int32_t *a;

	if (!q)
		return;
	if (q->type == RQ_NONE || !q->persist) {
		hb_problem(w->b, TG_HBP_UNKNOWN_HANDLE, w->r->rank, w->h->func, w->h->seq);
		return;
	}
	q->active = 1;
	if (q->type == RQ_INERT)
		return;
	t = &w->r->rec.v[q->tmpl];
	a = w->r->pool.v + t->off;
	switch (hb_ftab[t->fn].kind) {
	case TG_MK_SEND_INIT:
		q->op = add_send(w, a[0], a[1], a[2], hb_ftab[t->fn].flags);
		break;
	case TG_MK_RECV_INIT:
		q->op = add_recv(w, a[0], a[1], a[2]);
		break;
	case TG_MK_COLL_INIT: {
		/* the collective is posted at its start, as its template's call */
		const struct hrec *save = w->h;
		struct hrec h = *t;
		h.seq = save->seq;
		w->h = &h;
		q->op = coll(w, a[0], a[1], 0, a + 3);
		w->h = save;
		break;
	}
	}
}

/* The group of the @kind-th object (-2 a file, -3 a window) this rank
 * made on its communicator @code: the k-th one made on a communicator is
 * the same on every member.  Its gid and the rank's position, -1 if the
 * communicator is unknown. */
static int32_t object_gid(struct walk *w, int32_t code, int32_t kind, int32_t *pos)
{
	struct hbb *b = w->b;
	int32_t cg = comm_gid(b, w->r, code, pos);
	int32_t k[2] = { cg, kind };
	uint32_t kid;
	uint64_t *occ, *gs;

	if (cg < 0 || *pos < 0)
		return -1;
	kid = intern(b, k, 2);
	occ = hb_umap_at(&b->occ, (uint64_t)kid << 32 | (uint32_t)w->r->rank, 1, 0);
	gs = hb_umap_at(&b->gidof, (uint64_t)kid << 32 | (uint32_t)*occ, 1, UINT64_MAX);
	(*occ)++;
	if (*gs == UINT64_MAX) {
		const struct gcomm *c = &b->g.v[cg];
		*gs = hb_new_gid(b, c->members, c->na, c->members + c->na, c->n - c->na, c->inter,
				 kind == -2 ? 1 : 2);
	}
	return (int32_t)*gs;
}

/* MPI_File_open: a collective on its communicator, and the file's own
 * group of processes for the collectives on it. */
static void file_open(struct walk *w, const int32_t *a)
{
	int32_t pos, gid;

	coll(w, a[0], 0, 1, file_flow(w));
	if (a[1] >= 0 && (gid = object_gid(w, a[0], -2, &pos)) >= 0) {
		w->r->fdef.v[a[1]].gid = gid;
		w->r->fdef.v[a[1]].pos = pos;
	}
}

/* The rank's window @wd, or NULL (a problem) if it is not known. */
static struct wdef *window(struct walk *w, int32_t wd)
{
	if (wd < 0 || (size_t)wd >= w->r->wdef.n || w->r->wdef.v[wd].gid < 0) {
		hb_problem(w->b, TG_HBP_UNKNOWN_HANDLE, w->r->rank, w->h->func, w->h->seq);
		return NULL;
	}
	return &w->r->wdef.v[wd];
}

/* ---- general active target synchronisation (MPI 4.0 §12.5.2) ----------------
 *
 * MPI_Win_wait on a target returns only after every origin of its post's
 * group called MPI_Win_complete for the matching access epoch: what the
 * origin did before its complete happens before what the target does
 * after its wait (or after an MPI_Win_test that said done).  A get of the
 * epoch reads the target's window after the target's post, and is done
 * when the origin's complete returns: the target's post happens before
 * what the origin does after its complete.  MPI_Win_start need not wait
 * for the post, nor a complete of an epoch without a get: they order
 * nothing else.  The k-th access epoch of an origin that names a target
 * matches the k-th exposure epoch of that target that names the origin.
 * The groups come from the calls that made them (MPI_Comm_group,
 * MPI_Win_get_group, MPI_Group_incl and the rest); a group made by
 * MPI_Group_range_incl or _excl, whose ranges the trace does not hold,
 * leaves its epochs unordered, with a problem line.
 */
static struct wgroup *wgroup_at(struct walk *w, int32_t id)
{
	if (id < 0 || id > (1 << 20))	/* (the tracer reuses freed ids) */
		return NULL;
	while (w->groups.n <= (size_t)id) {
		struct wgroup z = { NULL, -1 };
		PUSH(w->groups, z);
	}
	return &w->groups.v[id];
}

/* The members of group @id: their count, -1 if not known; *m set. */
static int32_t group_members(struct walk *w, int32_t id, const int32_t **m)
{
	struct wgroup *g;

	*m = NULL;
	if (id == GRP_EMPTY)
		return 0;
	if (!(g = wgroup_at(w, id)) || id >= (int32_t)w->groups.n)
		return -1;
	*m = g->m;
	return g->n;
}

static int has_member(const int32_t *m, int32_t n, int32_t x)
{
	int32_t i;

	for (i = 0; i < n; i++)
		if (m[i] == x)
			return 1;
	return 0;
}

/* A group constructor: a[0] enum gop, a[1] its source (a group, a
 * communicator or a window), a[2] a second group, a[3] the new group,
 * a[4] n and a[5..] the ranks of MPI_Group_incl and _excl. */
static void walk_group(struct walk *w, const int32_t *a)
{
	const int32_t *m1 = NULL, *m2 = NULL, *rk = a + 5;
	int32_t n1 = -1, n2 = -1, n = -1, i, pos, gid, nr = a[4];
	int32_t *out = NULL;
	struct wgroup *g;

	switch (a[0]) {
	case GOP_COMM:
	case GOP_REMOTE:
		if ((gid = comm_gid(w->b, w->r, a[1], &pos)) < 0)
			break;
		{
			const struct gcomm *c = &w->b->g.v[gid];
			int mine_a = !c->inter || has_member(c->members, (int32_t)c->na,
							     (int32_t)w->r->rank);
			int take_a = a[0] == GOP_COMM ? mine_a : !mine_a;
			if (a[0] == GOP_REMOTE && !c->inter)
				break;
			if (!c->inter) {
				m1 = c->members;
				n1 = (int32_t)c->n;
			} else if (take_a) {
				m1 = c->members;
				n1 = (int32_t)c->na;
			} else {
				m1 = c->members + c->na;
				n1 = (int32_t)(c->n - c->na);
			}
		}
		break;
	case GOP_WIN:
		if (a[1] >= 0 && (size_t)a[1] < w->r->wdef.n && w->r->wdef.v[a[1]].gid >= 0) {
			const struct gcomm *c = &w->b->g.v[w->r->wdef.v[a[1]].gid];
			m1 = c->members;
			n1 = (int32_t)c->n;
		}
		break;
	case GOP_INCL:
	case GOP_EXCL:
	case GOP_UNION:
	case GOP_INTER:
	case GOP_DIFF:
		n1 = group_members(w, a[1], &m1);
		if (a[0] >= GOP_UNION)
			n2 = group_members(w, a[2], &m2);
		break;
	}
	if (n1 >= 0 && (a[0] < GOP_UNION || n2 >= 0)) {
		out = hb_calloc((size_t)n1 + (n2 > 0 ? (size_t)n2 : 0) + 1, sizeof(int32_t));
		n = 0;
		switch (a[0]) {
		case GOP_INCL:
			for (i = 0; i < nr && n >= 0; i++)
				if (rk[i] >= 0 && rk[i] < n1)
					out[n++] = m1[rk[i]];
				else
					n = -1;
			break;
		case GOP_EXCL:
			for (i = 0; i < n1; i++) {
				int32_t j, ex = 0;
				for (j = 0; j < nr; j++)
					ex |= rk[j] == i;
				if (!ex)
					out[n++] = m1[i];
			}
			break;
		case GOP_UNION:
			for (i = 0; i < n1; i++)
				out[n++] = m1[i];
			for (i = 0; i < n2; i++)
				if (!has_member(m1, n1, m2[i]))
					out[n++] = m2[i];
			break;
		case GOP_INTER:
		case GOP_DIFF:
			for (i = 0; i < n1; i++)
				if (has_member(m2, n2, m1[i]) == (a[0] == GOP_INTER))
					out[n++] = m1[i];
			break;
		default:
			for (i = 0; i < n1; i++)
				out[n++] = m1[i];
		}
	}
	if (!(g = wgroup_at(w, a[3]))) {
		hb_free(out);
		return;
	}
	hb_free(g->m);
	g->m = n >= 0 ? out : NULL;
	g->n = n;
	if (n < 0)
		hb_free(out);
}

static struct winst *win_state(struct walk *w, const struct wdef *wd)
{
	size_t i = (size_t)(wd - w->r->wdef.v);
	uint32_t n = w->b->g.v[wd->gid].n;

	while (w->pw.n <= i) {
		struct winst z;
		memset(&z, 0, sizeof(z));
		z.nacc = z.nexp = -1;
		PUSH(w->pw, z);
	}
	if (!w->pw.v[i].kacc) {
		w->pw.v[i].kacc = hb_calloc(n ? n : 1, sizeof(uint32_t));
		w->pw.v[i].kexp = hb_calloc(n ? n : 1, sizeof(uint32_t));
	}
	return &w->pw.v[i];
}

/* The positions in window @wd's group of the members of group @id, in
 * *out (allocated): their count, -1 if the group is not known or a
 * member is not in the window's. */
static int32_t group_positions(struct walk *w, const struct wdef *wd, int32_t id, int32_t **out)
{
	const struct gcomm *c = &w->b->g.v[wd->gid];
	const int32_t *m;
	int32_t n = group_members(w, id, &m), i;
	uint32_t j;

	*out = NULL;
	if (n < 0)
		return -1;
	*out = hb_calloc((size_t)n + 1, sizeof(int32_t));
	for (i = 0; i < n; i++) {
		for (j = 0; j < c->n && c->members[j] != m[i]; j++)
			;
		if (j == c->n) {
			hb_free(*out);
			*out = NULL;
			return -1;
		}
		(*out)[i] = (int32_t)j;
	}
	return n;
}

/* MPI_Win_start (@open, group @grp) and MPI_Win_complete on window @wd. */
static void access_epoch(struct walk *w, const struct wdef *wd, int32_t grp, int open)
{
	struct winst *p = win_state(w, wd);
	int32_t i;

	if (open) {
		hb_free(p->acc);
		hb_free(p->accget);
		p->nacc = group_positions(w, wd, grp, &p->acc);
		p->accget = hb_calloc(p->nacc > 0 ? (size_t)p->nacc : 1, 1);
		if (p->nacc < 0) {
			p->nacc = -2;
			hb_problem(w->b, TG_HBP_ONE_SIDED, w->r->rank, w->h->func, w->h->seq);
		}
		return;
	}
	if (p->nacc == -1)
		hb_problem(w->b, TG_HBP_UNKNOWN_HANDLE, w->r->rank, w->h->func, w->h->seq);
	for (i = 0; i < p->nacc; i++) {
		int32_t t = p->acc[i];
		PUSH(w->b->pscw, ((struct pscwep){ wd->gid, wd->pos, t, p->kacc[t]++, w->node,
						    NONE, 0, p->accget[i] }));
	}
	p->nacc = -1;
}

/* A one-sided operation on target @t in an open access epoch of @wd:
 * whether the epoch is one of post/start/complete/wait that names @t. */
static int pscw_op(struct walk *w, const struct wdef *wd, int32_t t, uint8_t flags)
{
	size_t i = (size_t)(wd - w->r->wdef.v);
	struct winst *p = i < w->pw.n ? &w->pw.v[i] : NULL;
	int32_t k;

	if (!p || p->nacc < 0)
		return 0;
	for (k = 0; k < p->nacc; k++)
		if (p->acc[k] == t) {
			if (flags & TG_MF_GET)
				p->accget[k] = 1;
			return 1;
		}
	return 0;
}

/* MPI_Win_post (@open, group @grp), MPI_Win_wait or an MPI_Win_test that
 * said done, on window @wd. */
static void exposure_epoch(struct walk *w, const struct wdef *wd, int32_t grp, int open)
{
	struct winst *p = win_state(w, wd);
	int32_t i;

	if (open) {
		hb_free(p->exp);
		p->nexp = group_positions(w, wd, grp, &p->exp);
		p->post = w->node;
		if (p->nexp < 0) {
			p->nexp = -2;
			hb_problem(w->b, TG_HBP_ONE_SIDED, w->r->rank, w->h->func, w->h->seq);
		}
		return;
	}
	if (p->nexp == -1)
		hb_problem(w->b, TG_HBP_UNKNOWN_HANDLE, w->r->rank, w->h->func, w->h->seq);
	for (i = 0; i < p->nexp; i++) {
		int32_t o = p->exp[i];
		PUSH(w->b->pscw, ((struct pscwep){ wd->gid, o, wd->pos, p->kexp[o]++, p->post,
						    w->node, 1, 0 }));
	}
	p->nexp = -1;
}

static void pscw_free(struct walk *w)
{
	size_t i;

	for (i = 0; i < w->groups.n; i++)
		hb_free(w->groups.v[i].m);
	hb_free(w->groups.v);
	for (i = 0; i < w->pw.n; i++) {
		hb_free(w->pw.v[i].acc);
		hb_free(w->pw.v[i].exp);
		hb_free(w->pw.v[i].accget);
		hb_free(w->pw.v[i].kacc);
		hb_free(w->pw.v[i].kexp);
	}
	hb_free(w->pw.v);
	hb_free(w->pend.v);
}

/*
 * One-sided communication (MPI 4.0 §12.5).  A window made on a
 * communicator is a collective on it and a group of its own, whose
 * collectives are the fences.  An operation between two fences of its
 * origin, outside a lock or access epoch, is of the fence epoch that the
 * next fence ends: a put (or accumulate) is done at its target when the
 * target's closing fence returns, and a get reads the target's window as
 * the target left it when it entered the fence that opened the epoch, and
 * is done when the origin's closing fence returns.  hb_rma_edges makes
 * those edges once the fences are matched.  A fence orders nothing else:
 * MPI promises no barrier by it.
 */
/* Is a lock epoch that orders open on @target of window @wd? */
static int locked(const struct walk *w, const struct wdef *wd, int32_t target)
{
	uint32_t win = (uint32_t)(wd - w->r->wdef.v);
	size_t i;

	for (i = 0; i < w->locks.n; i++)
		if (w->locks.v[i].win == win && w->locks.v[i].target == target &&
		    w->locks.v[i].orders)
			return 1;
	return 0;
}

/*
 * Passive-target operations outside the exclusive lock epochs that order
 * (in MPI_Win_lock_all epochs, shared or MPI_MODE_NOCHECK locks; and in
 * those too) synchronise by what they read: a flag put and flushed by
 * one rank and polled by another with MPI_Get, MPI_Fetch_and_op or
 * MPI_Compare_and_swap until it is set.  An operation is done at its
 * target when its origin's flush (MPI_Win_flush, _flush_all) or unlock
 * (MPI_Win_unlock, _unlock_all) returns; a get, or an atomic that reads,
 * also when MPI_Win_flush_local returns.  The trace has no values, so the
 * times tell what may have been read: a put is applied at its target
 * sometime after its call began (MPICH's shared memory applies it in the
 * call, long before the flush returns), a get reads sometime before it
 * is done.  A get on the same target displacements that was done after
 * a put began is taken to have read it, unless the same get came next
 * on its rank (a poll that went on, having read what was there before):
 * what the put's origin did before the put happens before what the
 * get's origin does after the get is done (hb_passive_edges).  Two
 * operations in lock epochs that exclude each other (one of them
 * exclusive) are ordered by their epochs instead (hb_lock_edges).
 * The displacements are those of the target's window unit, the count of
 * elements taken as that many units.  Only the run's own times on one
 * host tell; otherwise such operations order nothing (a problem line).
 */
static int times_tell(const struct hbb *b)
{
	return !b->notimes && b->hosts < 2;
}

/* Is a lock epoch (of any kind) open on @target of @wd, or one of
 * MPI_Win_lock_all?  1 + its LK_* kind, 0 if none; the lock epoch is
 * marked as used. */
static int passive(struct walk *w, const struct wdef *wd, int32_t target)
{
	uint32_t win = (uint32_t)(wd - w->r->wdef.v);
	size_t i;

	for (i = 0; i < w->locks.n; i++)
		if (w->locks.v[i].win == win && w->locks.v[i].target == target) {
			w->locks.v[i].used = 1;
			return 1 + (!w->locks.v[i].orders ? LK_NONE :
				    w->locks.v[i].shared ? LK_SHARED : LK_EXCL);
		}
	return win < w->pw.n && w->pw.v[win].lockall ? 1 + LK_NONE : 0;
}

/* Pending operation @o of window @wd is done at the current call. */
static void op_done(struct walk *w, const struct wdef *wd, const struct pendop *o)
{
	if (w->node == NONE)
		return;
	PUSH(w->b->pops, ((struct passop){ wd->gid, wd->pos, o->target, o->dlo, o->dhi, o->t0,
					    w->h->t1, o->opnode, w->node, o->flags, 0, o->lock }));
	if (o->flags & TG_MF_GET)
		w->lastread = w->b->pops.n;
}

/* Request @id (an MPI_Rget's) is complete: its data are at the origin. */
static void req_done(struct walk *w, int32_t id)
{
	size_t i;

	for (i = 0; i < w->pend.n; i++)
		if (w->pend.v[i].req == id && id > 0) {
			const struct pendop *o = &w->pend.v[i];
			op_done(w, &w->r->wdef.v[o->win], o);
			w->pend.v[i] = w->pend.v[--w->pend.n];
			return;
		}
}

/* The passive-target operations on window @wd to @target (-1: every
 * target) are done: at their targets, or (@local) at the origin, which
 * finishes the ones that read. */
static void ops_done(struct walk *w, const struct wdef *wd, int32_t target, int local)
{
	int32_t win = (int32_t)(wd - w->r->wdef.v);
	size_t i;

	for (i = 0; i < w->pend.n;) {
		const struct pendop *o = &w->pend.v[i];
		if (o->win != win || (target >= 0 && o->target != target) ||
		    (local && !(o->flags & TG_MF_GET))) {
			i++;
			continue;
		}
		op_done(w, wd, o);
		w->pend.v[i] = w->pend.v[--w->pend.n];
	}
}

/* A poll goes on: operation @o that only reads comes right after the
 * call that completed the last one that read, the same read of the same
 * bytes (nothing of the rank's between but what that call made itself).
 * An operation that also writes (a lock's release, a compare-and-swap)
 * is never one: what it wrote stays. */
static void poll_again(struct walk *w, const struct wdef *wd, const struct pendop *o)
{
	struct passop *p;
	uint64_t end;

	if (o->flags != TG_MF_GET || !w->lastread || w->node == NONE)
		return;
	p = &w->b->pops.v[w->lastread - 1];
	end = w->b->seq[p->node] + w->b->span[p->node];
	if (p->gid == wd->gid && p->origin == wd->pos && p->target == o->target &&
	    p->dlo == o->dlo && p->dhi == o->dhi && p->flags == o->flags &&
	    w->b->seq[w->node] <= end + 1)
		p->again = 1;
}

/* A one-sided operation: a[0] window, a[1] target, a[2] request, a[3]
 * target_disp, a[4] target_count, a[5] 1 for an atomic MPI_NO_OP, a[6]
 * the bytes of an element (0: not known, as far as the window goes). */
static void rma_op(struct walk *w, const int32_t *a, uint8_t flags)
{
	struct wdef *wd;
	struct rmaop op;
	int ordered, lk;

	if (a[2] > 0)	/* MPI_Rput...: its request completes nothing more */
		set_rq(w, a[2], RQ_INERT, NONE, NONE, 0);
	if (a[1] == PROC_NULL || !(wd = window(w, a[0])))
		return;
	if (a[1] < 0 || (uint32_t)a[1] >= w->b->g.v[wd->gid].n) {
		hb_problem(w->b, TG_HBP_BAD_RANK, w->r->rank, w->h->func, w->h->seq);
		return;
	}
	if (a[4] == 0)
		return;		/* no element: it touches no window */
	if (wd->epochs > 0 && pscw_op(w, wd, a[1], flags))
		return;		/* in an access epoch to it: hb_pscw_edges */
	/* in a lock epoch on its target that orders: hb_lock_edges orders
	 * it with the others there */
	ordered = wd->epochs > 0 && locked(w, wd, a[1]);
	if (wd->epochs > 0 && (lk = passive(w, wd, a[1]))) {
		int64_t lo = (int64_t)a[3] * wd->unit;
		int64_t hi = a[6] > 0 ? lo + (int64_t)(a[4] > 1 ? a[4] : 1) * a[6] : INT64_MAX;
		if (times_tell(w->b)) {
			struct pendop o = { (int32_t)(wd - w->r->wdef.v), a[1], 0, lo, hi,
					    w->h->t0, w->node,
					    a[5] ? TG_MF_GET : flags & (TG_MF_PUT | TG_MF_GET),
					    (uint8_t)(lk - 1) };
			if (a[2] > 0 && o.flags == TG_MF_GET)
				o.req = a[2];	/* MPI_Rget: done at its wait too */
			poll_again(w, wd, &o);
			PUSH(w->pend, o);
		} else if (!ordered || lk - 1 == LK_SHARED) {
			/* (a shared epoch's lock orders it only against
			 * exclusive ones) */
			hb_problem(w->b, TG_HBP_ONE_SIDED, w->r->rank, w->h->func, w->h->seq);
		}
		return;
	}
	if (wd->epochs > 0 || wd->nfence == 0) {
		/* in an epoch the trace does not know, or in none: no edge */
		hb_problem(w->b, TG_HBP_ONE_SIDED, w->r->rank, w->h->func, w->h->seq);
		return;
	}
	op.gid = wd->gid;
	op.origin = wd->pos;
	op.target = a[1];
	op.epoch = wd->nfence;
	op.node = w->node;
	op.flags = flags & (TG_MF_PUT | TG_MF_GET);
	PUSH(w->b->rma, op);
}

/* A time of the pool (push_time() in graph.c). */
static int64_t lock_time(const int32_t *a)
{
	return (int64_t)((uint64_t)(uint32_t)a[0] | (uint64_t)(uint32_t)a[1] << 32);
}

/* MPICH's numbers, as text records have them */
#define LOCK_EXCLUSIVE 234
#define LOCK_SHARED 235
#define MODE_NOCHECK 1024

/*
 * MPI_Win_lock (@open) and MPI_Win_unlock of window @wd: a[1] lock_type,
 * a[2] the target, a[3] assert, (a[4] MPI_Win_start's group,) a[5..9)
 * the call's start and end.  An
 * exclusive lock without MPI_MODE_NOCHECK, ended by its unlock, is a
 * lock epoch that hb_lock_edges orders with the others on its target.
 */
static void lock_epoch(struct walk *w, const struct wdef *wd, const int32_t *a, int open)
{
	uint32_t win = (uint32_t)(wd - w->r->wdef.v);
	size_t i;

	if (a[2] < 0)
		return;		/* MPI_Win_lock_all, PSCW: no lock of one target */
	if (open) {
		struct openlock o = { win, a[2], w->node, lock_time(a + 5), lock_time(a + 7),
				      !w->b->notimes && (a[1] == LOCK_EXCLUSIVE ||
							 a[1] == LOCK_SHARED) &&
				      !(a[3] & MODE_NOCHECK),
				      a[1] == LOCK_SHARED,
				      /* its own window: the loads and stores
				       * it protects are not traced */
				      a[2] == wd->pos };
		if (!o.orders && !w->b->notimes && !times_tell(w->b))
			hb_problem(w->b, TG_HBP_ONE_SIDED, w->r->rank, w->h->func, w->h->seq);
		PUSH(w->locks, o);
		return;
	}
	for (i = w->locks.n; i-- > 0;) {
		const struct openlock *o = &w->locks.v[i];
		if (o->win != win || o->target != a[2])
			continue;
		if (!o->orders && !w->b->notimes && !times_tell(w->b))
			hb_problem(w->b, TG_HBP_ONE_SIDED, w->r->rank, w->h->func, w->h->seq);
		/* (an epoch without operations on another rank's window
		 * protects nothing: MPI 4.0 §12.5.3, and a lazy library
		 * never takes its lock) */
		if (o->orders && o->used && o->node != NONE && w->node != NONE && wd->gid >= 0 &&
		    (uint32_t)o->target < w->b->g.v[wd->gid].n)
			PUSH(w->b->lockeps, ((struct lockep){ wd->gid, o->target, o->node,
							      w->node, o->t0, o->t0e,
							      lock_time(a + 5), lock_time(a + 7),
							      o->shared }));
		w->locks.v[i] = w->locks.v[--w->locks.n];
		return;
	}
}

/* Start, wait and test calls: the requests they start or complete. */
static void walk_completion(struct walk *w, unsigned kind, const int32_t *a)
{
	int32_t i;

	switch (kind) {
	case TG_MK_START:
		start(w, a[0]);
		break;
	case TG_MK_STARTALL:
		for (i = 0; i < a[0]; i++)
			start(w, a[1 + i]);
		break;
	case TG_MK_WAIT:
	case TG_MK_TEST:
		if (a[1])
			complete(w, a[0], a[2], a[3], 0);
		break;
	case TG_MK_GETSTATUS:
		if (a[1])
			complete(w, a[0], a[2], a[3], 1);
		break;
	case TG_MK_REQFREE: {
		struct rq *q = rq_at(w, a[0]);
		if (q)
			memset(q, 0, sizeof(*q));
		break;
	}
	case TG_MK_WAITALL:
	case TG_MK_TESTALL: {
		const int32_t *rq = a + 2, *st = a + 2 + a[1] + 1;
		if (!a[0])
			break;
		for (i = 0; i < a[1]; i++)
			complete(w, rq[i], i < st[-1] ? st[2 * i] : NOST,
				 i < st[-1] ? st[2 * i + 1] : NOST, 0);
		break;
	}
	case TG_MK_WAITANY:
	case TG_MK_TESTANY:
		/* flag, indx, src, tag, n, reqs */
		if (a[0] && a[1] >= 0 && a[1] < a[4])
			complete(w, a[5 + a[1]], a[2], a[3], 0);
		break;
	case TG_MK_WAITSOME:
	case TG_MK_TESTSOME: {
		/* outcount, n, reqs, nidx, idx, nst, sts */
		const int32_t *rq = a + 2, *ix = a + 2 + a[1] + 1, *st = ix + ix[-1] + 1;
		if (a[0] == UNDEFINED)
			break;
		for (i = 0; i < ix[-1] && i < a[0]; i++)
			if (ix[i] >= 0 && ix[i] < a[1])
				complete(w, rq[ix[i]], i < st[-1] ? st[2 * i] : NOST,
					 i < st[-1] ? st[2 * i + 1] : NOST, 0);
		break;
	}
	}
}

static void walk_call(struct walk *w)
{
	const struct hrec *h = w->h;
	const struct fdesc *f = &hb_ftab[h->fn];
	const int32_t *a = w->r->pool.v + h->off;
	struct hbb *b = w->b;
	int32_t n;
	uint32_t s, v;

	switch (f->kind) {
	case TG_MK_SEND:
		s = add_send(w, a[0], a[1], a[2], f->flags);
		if (s != NONE)
			b->sends.v[s].done = w->node;
		break;
	case TG_MK_ISEND:
		s = add_send(w, a[0], a[1], a[2], f->flags);
		set_rq(w, a[3], RQ_SEND, s, NONE, 0);
		break;
	case TG_MK_SEND_INIT:
		set_rq(w, a[3], RQ_SEND, NONE, NONE, 1);
		break;
	case TG_MK_PREADY: {
		/* a partitioned send leaves when its last partition is made
		 * ready: what came before that comes before the receive's end,
		 * and before an MPI_Parrived that found the partition there */
		struct rq *q = a[0] > 0 ? rq_at(w, a[0]) : NULL;
		if (!q || q->type != RQ_SEND || !q->active || q->op == NONE)
			break;
		b->sends.v[q->op].node = w->node;
		if (a[1] == 1)
			PUSH(b->preadys, ((struct pready){ q->op, w->node, a[2], a[3] }));
		else
			for (n = 0; n < a[2]; n++)
				PUSH(b->preadys, ((struct pready){ q->op, w->node, a[3 + n], a[3 + n] }));
		break;
	}
	case TG_MK_PARRIVED: {
		struct rq *q = a[0] > 0 ? rq_at(w, a[0]) : NULL;
		if (a[2] && q && q->type == RQ_RECV && q->active && q->op != NONE)
			PUSH(b->parrs, ((struct parrived){ q->op, w->node, a[1] }));
		break;
	}
	case TG_MK_RECV:
		v = add_recv(w, a[0], a[1], a[2]);
		recv_done(w, v, a[3], a[4]);
		break;
	case TG_MK_IRECV:
		v = add_recv(w, a[0], a[1], a[2]);
		set_rq(w, a[6], RQ_RECV, v, NONE, 0);
		break;
	case TG_MK_RECV_INIT:
		set_rq(w, a[6], RQ_RECV, NONE, NONE, 1);
		break;
	case TG_MK_MPROBE:
		v = add_recv(w, a[0], a[1], a[2]);
		recv_done(w, v, a[3], a[4]);
		break;
	case TG_MK_IMPROBE:
		if (a[5]) {
			v = add_recv(w, a[0], a[1], a[2]);
			recv_done(w, v, a[3], a[4]);
		}
		break;
	case TG_MK_SENDRECV:
		s = add_send(w, a[0], a[1], a[2], 0);
		if (s != NONE)
			b->sends.v[s].done = w->node;
		v = add_recv(w, a[0], a[3], a[4]);
		recv_done(w, v, a[5], a[6]);
		break;
	case TG_MK_ISENDRECV:
		s = add_send(w, a[0], a[1], a[2], 0);
		v = add_recv(w, a[0], a[3], a[4]);
		set_rq(w, a[7], RQ_SENDRECV, s, v, 0);
		break;
	case TG_MK_START: case TG_MK_STARTALL: case TG_MK_WAIT: case TG_MK_TEST:
	case TG_MK_GETSTATUS: case TG_MK_REQFREE: case TG_MK_WAITALL: case TG_MK_TESTALL:
	case TG_MK_WAITANY: case TG_MK_TESTANY: case TG_MK_WAITSOME: case TG_MK_TESTSOME:
		walk_completion(w, f->kind, a);
		break;
	case TG_MK_COLL:
	case TG_MK_CREATE:
		coll(w, a[0], a[1], 1, a + 3);
		break;
	case TG_MK_ICOLL:
	case TG_MK_ICREATE:
		s = coll(w, a[0], a[1], 0, a + 3);
		set_rq(w, a[2], RQ_COLL, s, NONE, 0);
		break;
	case TG_MK_COLL_INIT:
		set_rq(w, a[2], RQ_COLL, NONE, NONE, 1);
		break;
	case TG_MK_NEWCREATE:
		/* collective over the members of the communicator it made */
		for (n = 0; (size_t)n < w->r->ldef.n; n++) {
			struct ldef *d = &w->r->ldef.v[n];
			if (d->has_creator && d->cseq == h->seq && d->gid >= 0)
				add_inst(w, d->gid, d->pos, 0, w->node, NULL);
		}
		break;
	case TG_MK_FOPEN:
		file_open(w, a);
		break;
	case TG_MK_FCOLL:
		file_coll(w, a[0], 1, 1);
		break;
	case TG_MK_FCLOSE:	/* (a .cfg keeps no close's times) */
		file_coll(w, a[0], 1, 0);
		break;
	case TG_MK_FICOLL:
		s = file_coll(w, a[0], 0, 0);
		set_rq(w, a[1], RQ_COLL, s, NONE, 0);
		break;
	case TG_MK_FBEGIN:
		s = file_coll(w, a[0], 0, 1);
		if (a[0] >= 0 && (size_t)a[0] < w->r->fdef.n)
			w->r->fdef.v[a[0]].split = s;
		break;
	case TG_MK_FEND:
		if (a[0] >= 0 && (size_t)a[0] < w->r->fdef.n &&
		    w->r->fdef.v[a[0]].split != NONE) {
			b->insts.v[w->r->fdef.v[a[0]].split].end = w->node;
			b->insts.v[w->r->fdef.v[a[0]].split].t1 = h->t1;
			w->r->fdef.v[a[0]].split = NONE;
		}
		break;
	case TG_MK_INERT:
		set_rq(w, a[0], RQ_INERT, NONE, NONE, 0);
		break;
	case TG_MK_WOPEN:
		coll(w, a[0], 0, 1, NULL);
		if (a[1] >= 0) {
			struct wdef *wd = &w->r->wdef.v[a[1]];
			wd->gid = object_gid(w, a[0], -3, &wd->pos);
			wd->unit = a[2] > 0 ? a[2] : 1;
		}
		break;
	case TG_MK_WFENCE: {
		struct wdef *wd = window(w, a[0]);
		if (wd) {
			add_inst(w, wd->gid, wd->pos, 0, w->node, NULL);
			wd->nfence++;
		}
		break;
	}
	case TG_MK_WEPOCH: {
		struct wdef *wd = window(w, a[0]);
		if (wd) {
			wd->epochs += (f->flags & TG_MF_OPEN) ? 1 : wd->epochs > 0 ? -1 : 0;
			int open = (f->flags & TG_MF_OPEN) != 0;
			if (h->func == TG_FN_MPI_Win_start || h->func == TG_FN_MPI_Win_complete) {
				access_epoch(w, wd, a[4], open);
				break;
			}
			if (!open)	/* unlock (a[2] its target), unlock_all (-1) */
				ops_done(w, wd, a[2], 0);
			if (h->func == TG_FN_MPI_Win_lock_all ||
			    h->func == TG_FN_MPI_Win_unlock_all) {
				win_state(w, wd)->lockall = (uint8_t)open;
				if (open && !times_tell(b))
					hb_problem(b, TG_HBP_ONE_SIDED, w->r->rank, h->func, h->seq);
			}
			lock_epoch(w, wd, a, open);
		}
		break;
	}
	case TG_MK_WFLUSH: {
		struct wdef *wd = window(w, a[0]);
		if (wd)
			ops_done(w, wd, a[1], a[2]);
		break;
	}
	case TG_MK_GROUP:
		walk_group(w, a);
		break;
	case TG_MK_WPOST:
	case TG_MK_WWAIT: {
		struct wdef *wd = window(w, a[0]);
		if (wd && (f->kind == TG_MK_WPOST || a[1]))
			exposure_epoch(w, wd, a[1], f->kind == TG_MK_WPOST);
		break;
	}
	case TG_MK_RMA:
		rma_op(w, a, f->flags);
		break;
	case TG_MK_INERT_INIT:
		set_rq(w, a[0], RQ_INERT, NONE, NONE, 1);
		break;
	}
}

static int cmp_rec(const void *x, const void *y)
{
	const struct hrec *a = x, *b2 = y;

	return a->seq < b2->seq ? -1 : a->seq > b2->seq;
}

static int is_node_rec(const struct hrec *h)
{
	return !h->drop && hb_is_node(hb_ftab[h->fn].kind);
}

/*
 * An MPI-IO call with communication nested in it (split) has a node where
 * it starts and one where it ends, after what it did: its last nested
 * node when that is its last nested record, else a node of its own at the
 * seq of that record (seqs of nodes increase; no record of the rank
 * comes between).  Whether rec[i]'s end needs a node of its own.
 */
static int end_node_needed(const struct rst *r, size_t i)
{
	uint64_t ext = r->rec.v[i].seq + r->rec.v[i].span, last = r->rec.v[i].seq;
	size_t k;

	for (k = i + 1; k < r->rec.n && r->rec.v[k].seq <= ext; k++)
		if (is_node_rec(&r->rec.v[k]))
			last = r->rec.v[k].seq;
	return last != ext;
}

/* Sort a rank's calls by seq and number its nodes. */
static int cmp_rtime(const void *x, const void *y)
{
	const struct rtime *a = x, *c = y;

	return a->seq < c->seq ? -1 : a->seq > c->seq;
}

/* Unpack a rank's kept times (rtz_push() in graph.c) into r->rt. */
static void hb_rtimes(struct rst *r)
{
	const uint8_t *p = r->rtz.v, *e = p + r->rtz.n;
	uint64_t seq = 0;
	int64_t t0 = 0, d[3];
	int i, sh;

	RESERVE(r->rt, r->rtz_n);
	while (p < e) {
		for (i = 0; i < 3; i++) {
			uint64_t z = 0;
			for (sh = 0; p < e && sh < 64; sh += 7) {
				z |= (uint64_t)(*p & 0x7f) << sh;
				if (!(*p++ & 0x80))
					break;
			}
			d[i] = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
		}
		seq += (uint64_t)d[0];
		t0 = (int64_t)((uint64_t)t0 + (uint64_t)d[1]);
		PUSH(r->rt, ((struct rtime){ seq, t0, (int64_t)((uint64_t)t0 + (uint64_t)d[2]) }));
	}
	hb_free(r->rtz.v);
	memset(&r->rtz, 0, sizeof(r->rtz));
}

int hb_prepare_rank(struct hbb *b, struct rst *r, char *err, size_t errlen)
{
	size_t i;

	if (!r->sorted)
		qsort(r->rec.v, r->rec.n, sizeof(*r->rec.v), cmp_rec);
	int first = -1;
	size_t k;

	r->nnodes = 0;
	for (i = 0; i < r->rec.n; i++) {
		if (i && r->rec.v[i].seq == r->rec.v[i - 1].seq) {
			snprintf(err, errlen, "rank %lld has two records with seq %llu",
				 (long long)r->rank, (unsigned long long)r->rec.v[i].seq);
			return -1;
		}
		if (is_node_rec(&r->rec.v[i])) {
			r->nnodes++;
			if (r->rec.v[i].split && end_node_needed(r, i))
				r->nnodes++;
			if (first < 0)
				first = r->rec.v[i].tid;
			else if (r->rec.v[i].tid != first)
				r->threads = 1;
		}
	}
	/* a rank whose threads made MPI calls (at once, or taking turns):
	 * its calls are placed by their times, when they are the run's;
	 * rebuilt times (a .cfg's aggregate timing) cannot, and the order
	 * of the calls' starts ordered what a thread did before another's
	 * call ended (a weaker verdict than the .rec streams', exit 0) */
	if (r->threads && b->notimes) {
		snprintf(err, errlen, "rank %lld: two of its threads made MPI calls, which only "
			 "the run's own times can order", (long long)r->rank);
		return -1;
	}
	/* and so is one whose other threads made calls of their own, an
	 * OpenMP worker's read while the master waits in a barrier: by the
	 * order of the calls' starts the read came after the barrier, all
	 * of it, and after what the other ranks did before it (without the
	 * run's times they still are: an MPI library's helper thread) */
	if (r->anythr)
		r->threads = 1;
	if (b->notimes || !b->have_times || !r->rtz_n)
		r->threads = 0;
	if (!r->threads) {
		hb_free(r->rtz.v);
		memset(&r->rtz, 0, sizeof(r->rtz));
		return 0;
	}
	/* its calls' times, from its records' */
	hb_rtimes(r);
	qsort(r->rt.v, r->rt.n, sizeof(*r->rt.v), cmp_rtime);
	r->rect = hb_calloc(r->rec.n ? r->rec.n : 1, sizeof(*r->rect));
	for (i = 0, k = 0; i < r->rec.n; i++) {
		const struct hrec *h = &r->rec.v[i];
		while (k < r->rt.n && r->rt.v[k].seq < h->seq)
			k++;
		if (k < r->rt.n && r->rt.v[k].seq == h->seq)
			r->rect[i] = (struct span2){ r->rt.v[k].t0, r->rt.v[k].t1 };
	}
	return 0;
}

/* A split call waiting for its end (see end_node_needed). */
struct pend_end {
	uint64_t ext;		/* seq of its last nested record */
	uint32_t start;		/* its node */
	uint16_t func;
	size_t inst0, inst1;	/* the collective instances it made */
	int64_t t1;		/* its end */
};

/* The end of split call @p: the instances that ended where they started
 * (a blocking collective) end there now.  @nd: the rank's nodes so far. */
static void split_end(struct hbb *b, struct rst *r, const struct pend_end *p, uint32_t *nd)
{
	uint32_t end = (uint32_t)(r->first_node + *nd - 1);
	size_t i;

	if (b->seq[end] != p->ext || end == p->start) {
		end = (uint32_t)(r->first_node + (*nd)++);
		b->seq[end] = p->ext;
		b->span[end] = 0;
		b->func[end] = p->func;
		b->nt0[end] = b->nt1[end] = p->t1;	/* an instant: its end */
	}
	for (i = p->inst0; i < p->inst1; i++)
		if (b->insts.v[i].end == p->start)
			b->insts.v[i].end = end;
}

/*
 * The pending split call that ends first, if it ends before seq @before
 * (UINT64_MAX: any), taken out of @pend; -1 if none.  Split calls nest in
 * one thread, but the calls of two threads (two MPI_File_open of
 * MPI_COMM_SELF at once) overlap without nesting: a stack, popped from its
 * top only, left the first to end under the other, ended it after a later
 * node, and wrote past the nodes end_node_needed() had counted.
 */
static int pend_next(struct pend_end *pend, size_t *npend, uint64_t before,
		     struct pend_end *out)
{
	size_t i, m = 0;

	if (!*npend)
		return -1;
	for (i = 1; i < *npend; i++)
		if (pend[i].ext < pend[m].ext)
			m = i;
	if (before != UINT64_MAX && pend[m].ext >= before)
		return -1;
	*out = pend[m];
	pend[m] = pend[--*npend];
	return 0;
}

static const struct ldef *sort_ldefs;

static int cmp_ldef(const void *x, const void *y)
{
	const struct ldef *a = &sort_ldefs[*(const uint32_t *)x];
	const struct ldef *c = &sort_ldefs[*(const uint32_t *)y];

	if (a->cseq != c->cseq)
		return a->cseq < c->cseq ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

void hb_walk_rank(struct hbb *b, struct rst *r)
{
	struct walk w;
	uint32_t *ord, li = 0, nd = 0;
	struct pend_end *pend = NULL, pe;
	size_t i, npend = 0, cpend = 0;

	memset(&w, 0, sizeof(w));
	w.b = b;
	w.r = r;
	ord = hb_calloc(r->ldef.n, sizeof(uint32_t));
	for (i = 0; i < r->ldef.n; i++)
		ord[i] = (uint32_t)i;
	sort_ldefs = r->ldef.v;
	qsort(ord, r->ldef.n, sizeof(uint32_t), cmp_ldef);
	if (r->pre) {	/* the run's start, before every call but seq 0 */
		b->seq[r->first_node] = 0;
		b->span[r->first_node] = 0;
		b->func[r->first_node] = 0;
		b->nt0[r->first_node] = b->nt1[r->first_node] = INT64_MIN;
		nd++;
	}
	for (i = 0; i < r->rec.n; i++) {
		struct hrec *h = &r->rec.v[i];
		size_t inst0;
		/* split calls that ended before this one, the first first */
		while (pend_next(pend, &npend, h->seq, &pe) == 0)
			split_end(b, r, &pe, &nd);
		/* communicators made by calls up to this one get their identity */
		while (li < r->ldef.n && (!r->ldef.v[ord[li]].has_creator ||
					  r->ldef.v[ord[li]].cseq <= h->seq)) {
			resolve_ldef(b, r, &r->ldef.v[ord[li]]);
			li++;
		}
		if (h->drop)
			continue;
		w.h = h;
		if (hb_is_node(hb_ftab[h->fn].kind)) {
			w.node = (uint32_t)(r->first_node + nd);
			b->seq[w.node] = h->seq;
			b->span[w.node] = h->span;
			b->func[w.node] = h->func;
			if (r->rect) {
				const struct span2 *t = &r->rect[i];
				b->nt0[w.node] = t->t0;
				b->nt1[w.node] = t->t1 > t->t0 ? t->t1 : t->t0 + 1;	/* not an instant */
			}
			nd++;
		} else {
			w.node = NONE;
		}
		inst0 = b->insts.n;
		walk_call(&w);
		if (h->split && w.node != NONE) {
			if (npend == cpend) {
				cpend = cpend ? 2 * cpend : 4;
				pend = hb_realloc(pend, cpend * sizeof(*pend));
			}
			pend[npend++] = (struct pend_end){ h->seq + h->span, w.node, h->func,
							   inst0, b->insts.n,
							   r->rect ? r->rect[i].t1 : 0 };
		}
	}
	while (pend_next(pend, &npend, UINT64_MAX, &pe) == 0)
		split_end(b, r, &pe, &nd);
	hb_free(pend);
	while (li < r->ldef.n)
		resolve_ldef(b, r, &r->ldef.v[ord[li++]]);
	if (r->post) {	/* the run's end, after every call and after the
			 * process's end, where overlap-find puts the closes
			 * of the files it left open (lastseq + 1) */
		w.node = (uint32_t)(r->first_node + nd);
		b->seq[w.node] = r->lastseq + 2;
		b->span[w.node] = 0;
		b->func[w.node] = 0;
		b->nt0[w.node] = b->nt1[w.node] = INT64_MAX;
	}
	hb_free(ord);
	hb_free(w.rq.v);
	hb_free(w.rqs.v);
	hb_umap_free(&w.slot);
	hb_umap_free(&w.last);
	hb_free(w.locks.v);
	pscw_free(&w);
	/* the calls are operations now: their memory goes to what follows */
	hb_free(r->rec.v);
	hb_free(r->rect);
	r->rect = NULL;
	hb_free(r->pool.v);
	memset(&r->rec, 0, sizeof(r->rec));
	memset(&r->pool, 0, sizeof(r->pool));
}

/* ---- matching ---------------------------------------------------------------------------- */

static void edge(struct hbb *b, uint32_t from, uint32_t to, uint8_t kind)
{
	if (from == NONE || to == NONE || from == to)
		return;
	PUSH(b->esrc, from);
	PUSH(b->edst, to);
	PUSH(b->ekind, kind);
}

static uint32_t extra(struct hbb *b, uint16_t func, uint16_t kind)
{
	PUSH(b->xfunc, func);
	PUSH(b->xkind, kind);
	return (uint32_t)(b->nnodes + b->xfunc.n - 1);
}

/* The rank state of global rank @r, or NULL. */
static struct rst *rank_st(struct hbb *b, int64_t r)
{
	return r >= 0 && (size_t)r < b->rankst.n && b->rankst.v[r] >= 0 ?
		b->st.v[b->rankst.v[r]] : NULL;
}

/* Whether run @j ended before run @k began, by the times of their ranks'
 * MPI calls: two launches at once (background jobs of a script) are not
 * one after the other.  On rebuilt times (#timing), and where a run has no
 * timed call, they are taken to be. */
static int run_before(struct hbb *b, size_t j, size_t k)
{
	const struct hrun *a = &b->runs.v[j], *c = &b->runs.v[k];
	int64_t end = INT64_MIN, start = INT64_MAX, r;
	struct rst *st;

	if (b->notimes)
		return 1;
	for (r = a->first; r < a->first + a->world; r++)
		if ((st = rank_st(b, r)) && st->mtset && st->mt1 > end)
			end = st->mt1;
	for (r = c->first; r < c->first + c->world; r++)
		if ((st = rank_st(b, r)) && st->mtset && st->mt0 < start)
			start = st->mt0;
	return end == INT64_MIN || start == INT64_MAX || end <= start;
}

/* Every rank's end of a run before every rank's start of each later run
 * that began after it ended, through one extra node per later run. */
void hb_link_runs(struct hbb *b)
{
	size_t j, k;
	int64_t r;

	for (k = 1; k < b->runs.n; k++) {
		const struct hrun *c = &b->runs.v[k];
		uint32_t x = NONE;
		struct rst *st;
		for (j = 0; j < k; j++) {
			const struct hrun *a = &b->runs.v[j];
			if (!run_before(b, j, k))
				continue;	/* at once: nothing orders them */
			if (x == NONE)
				x = extra(b, 0, TG_HBX_RUN);
			for (r = a->first; r < a->first + a->world; r++)
				if ((st = rank_st(b, r)) && st->records && st->run >= 0 && st->post)
					edge(b, (uint32_t)(st->first_node + st->nnodes - 1), x,
					     TG_HBE_RUN);
		}
		if (x == NONE)
			continue;
		for (r = c->first; r < c->first + c->world; r++)
			if ((st = rank_st(b, r)) && st->records && st->run >= 0 && st->nnodes)
				edge(b, x, (uint32_t)st->first_node, TG_HBE_RUN);
	}
}

static size_t qhash(int32_t g, int32_t s, int32_t d, int32_t t)
{
	return hb_mix(((uint64_t)(uint32_t)g << 32 | (uint32_t)s) ^
		   hb_mix((uint64_t)(uint32_t)d << 32 | (uint32_t)t));
}

#define FREESLOT (NONE - 1)

/* The slot of key (g, s, d, t) in q[0..cap), or the free slot for it. */
static size_t qslot(const struct qkey *q, size_t cap, int32_t g, int32_t s, int32_t d,
		    int32_t t)
{
	size_t j = qhash(g, s, d, t) & (cap - 1);

	while (q[j].head != FREESLOT &&
	       !(q[j].gid == g && q[j].src == s && q[j].dst == d && q[j].tag == t))
		j = (j + 1) & (cap - 1);
	return j;
}

static struct qkey *qnew(size_t cap)
{
	struct qkey *q = hb_realloc(NULL, cap * sizeof(*q));
	size_t j;

	for (j = 0; j < cap; j++)
		q[j].head = FREESLOT;
	return q;
}

static int cmp_pready(const void *x, const void *y)
{
	const struct pready *a = x, *c = y;

	return a->send < c->send ? -1 : a->send > c->send;
}

void hb_match_p2p(struct hbb *b)
{
	size_t cap = 64, used = 0, i, j;
	struct qkey *q = qnew(cap);
	uint32_t *next = hb_calloc(b->sends.n, sizeof(uint32_t));
	uint32_t *msend = b->parrs.n ? hb_calloc(b->recvs.n, sizeof(uint32_t)) : NULL;

	/* sends in the order they were posted, queued by key */
	for (i = 0; i < b->sends.n; i++) {
		const struct sendop *s = &b->sends.v[i];
		if (2 * (used + 1) > cap) {
			struct qkey *o = q;
			q = qnew(cap * 2);
			for (j = 0; j < cap; j++)
				if (o[j].head != FREESLOT)
					q[qslot(q, 2 * cap, o[j].gid, o[j].src, o[j].dst, o[j].tag)] = o[j];
			cap *= 2;
			hb_free(o);
		}
		j = qslot(q, cap, s->gid, s->src, s->dst, s->tag);
		next[i] = NONE;
		if (q[j].head == FREESLOT) {
			q[j] = (struct qkey){ s->gid, s->src, s->dst, s->tag, (uint32_t)i, (uint32_t)i };
			used++;
		} else {
			if (q[j].head == NONE)
				q[j].head = (uint32_t)i;
			else
				next[q[j].tail] = (uint32_t)i;
			q[j].tail = (uint32_t)i;
		}
	}
	for (i = 0; i < b->recvs.n; i++) {
		const struct recvop *v = &b->recvs.v[i];
		uint32_t s;
		if (v->src == PROC_NULL)
			continue;
		if (v->wild) {
			hb_problem(b, v->done == NONE ? TG_HBP_INCOMPLETE : TG_HBP_WILDCARD,
				v->dst, b->func[v->post], b->seq[v->post]);
			continue;
		}
		if (v->src == BADRANK) {
			hb_problem(b, TG_HBP_BAD_RANK, v->dst, b->func[v->post], b->seq[v->post]);
			continue;
		}
		j = qslot(q, cap, v->gid, v->src, v->dst, v->tag);
		if (q[j].head == FREESLOT || q[j].head == NONE) {
			hb_problem(b, TG_HBP_UNMATCHED_RECV, v->dst, b->func[v->post], b->seq[v->post]);
			continue;
		}
		s = q[j].head;
		q[j].head = next[s];
		if (q[j].head == NONE)
			q[j].tail = NONE;
		b->messages++;
		if (msend)
			msend[i] = s + 1;
		if (v->done == NONE)
			hb_problem(b, TG_HBP_INCOMPLETE, v->dst, b->func[v->post], b->seq[v->post]);
		edge(b, b->sends.v[s].node, v->done, TG_HBE_MESSAGE);
		if (b->sends.v[s].flags) {
			uint32_t u = b->sends.v[s].node;
			if (b->sends.v[s].done == NONE)
				hb_problem(b, TG_HBP_INCOMPLETE, b->sends.v[s].src, b->func[u], b->seq[u]);
			edge(b, v->post, b->sends.v[s].done, TG_HBE_SYNC);
		}
	}
	for (j = 0; j < cap; j++) {
		uint32_t s;
		if (q[j].head == FREESLOT)
			continue;
		for (s = q[j].head; s != NONE; s = next[s])
			hb_problem(b, TG_HBP_UNMATCHED_SEND, b->sends.v[s].src,
				b->func[b->sends.v[s].node], b->seq[b->sends.v[s].node]);
	}
	/* a partition found arrived: after the call that made it ready (the
	 * calls by send, each send's found by halving) */
	if (msend && b->preadys.n)
		qsort(b->preadys.v, b->preadys.n, sizeof(*b->preadys.v), cmp_pready);
	for (i = 0; i < b->parrs.n; i++) {
		const struct parrived *x = &b->parrs.v[i];
		size_t lo = 0, hi = b->preadys.n;
		uint32_t s;
		if (!msend || !msend[x->recv])
			continue;
		s = msend[x->recv] - 1;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (b->preadys.v[mid].send < s)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = lo; j < b->preadys.n && b->preadys.v[j].send == s; j++) {
			const struct pready *y = &b->preadys.v[j];
			if (y->lo <= x->part && x->part <= y->hi)
				edge(b, y->node, x->node, TG_HBE_MESSAGE);
		}
	}
	hb_free(msend);
	hb_free(q);
	hb_free(next);
}

/* Does the call of instance @t take data from the member (or neighbour)
 * at index @j?  Only what a collective moves orders anything: MPI makes no
 * collective but MPI_Barrier synchronise, and one whose counts are 0 may
 * return at once (MPICH's do). */
static int takes(const struct hbb *b, const struct inst *t, uint32_t j)
{
	switch (t->flow) {
	case FLOW_NONE:
		return 0;
	case FLOW_LIST:
		return j >= t->fn_ || b->flows.v[t->foff + j] != 0;
	default:
		return 1;
	}
}

/* The all-to-all family, where some counts are 0: member i's start before
 * member j's end where j takes from i (MPI_Reduce_scatter: where j takes
 * anything, from every member); a hub where all take from all. */
static void flow_edges(struct hbb *b, struct inst **m, uint32_t n, uint16_t func)
{
	const char *name = hb_func_name(func);
	int scatter = strstr(name, "educe_scatter") && !strstr(name, "_block");
	uint32_t i, j, x, xb;
	int all = 1;

	for (j = 0; j < n && all; j++)
		for (i = 0; i < n && all; i++)
			if (i != j && !takes(b, m[j], scatter ? j : i))
				all = 0;
	if (all || n > 256) {
		/* a hub: from each member that gives to each one that takes
		 * (past 256 members, more than the pairs would say) */
		x = extra(b, func, TG_HBX_ALL);
		xb = 0;
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				if (i != j && takes(b, m[j], scatter ? j : i)) {
					edge(b, m[i]->start, x, TG_HBE_GATHER);
					xb = 1;
					break;
				}
		for (j = 0; j < n && xb; j++)
			for (i = 0; i < n; i++)
				if (i != j && takes(b, m[j], scatter ? j : i)) {
					edge(b, x, m[j]->end, TG_HBE_RELEASE);
					break;
				}
		return;
	}
	for (j = 0; j < n; j++)
		for (i = 0; i < n; i++)
			if (i != j && takes(b, m[j], scatter ? j : i))
				edge(b, m[i]->start, m[j]->end, TG_HBE_MESSAGE);
}

/* Did every member of a file collective start before every one ended? */
static int timed_all(struct inst **m, uint32_t n)
{
	int64_t last0 = INT64_MIN, first1 = INT64_MAX;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (m[i]->t0 > last0)
			last0 = m[i]->t0;
		if (m[i]->t1 < first1)
			first1 = m[i]->t1;
	}
	return last0 <= first1;
}

/* Edges of one collective operation: members m[0..n) of communicator g. */
static void coll_edges(struct hbb *b, const struct gcomm *g, struct inst **m)
{
	uint32_t n = g->n, i, x, xb, prev;
	uint16_t func = m[0]->func;
	int ct = hb_ftab[m[0]->fn].ctype;
	int32_t root = -1;
	int counted = 0, moves = 0;

	if (n < 2)
		return;
	for (i = 0; i < n; i++) {
		counted |= m[i]->flow != FLOW_ANY && m[i]->flow != FLOW_SOME;
		moves |= m[i]->flow != FLOW_NONE;
	}
	if (!moves)
		return;		/* counts of 0 everywhere: nothing moved */
	if (m[0]->timed && !timed_all(m, n)) {
		/* a member returned before another called: it waited for
		 * nobody; only what the times allow (small groups) */
		uint32_t j;
		if (n > 64)
			return;
		for (j = 0; j < n; j++)
			for (i = 0; i < n; i++)
				if (i != j && m[i]->t0 <= m[j]->t1)
					edge(b, m[i]->start, m[j]->end, TG_HBE_MESSAGE);
		return;
	}
	if (ct == TG_ORD_NONE) {
		/* a neighbourhood collective: each member's sources before its
		 * end, where the topology is known and the counts not 0 */
		const struct gcomm *t = g->nbr_of ? &b->g.v[g->nbr_of - 1] : g;
		if (t->nbr && t->n == n)
			for (i = 0; i < n; i++)
				for (x = 0; x < t->nbr[i].n; x++)
					if (takes(b, m[i], x))
						edge(b, m[t->nbr[i].v[x]]->start, m[i]->end,
						     TG_HBE_MESSAGE);
		return;
	}
	if (ct == TG_ORD_ALL && g->inter) {
		/* each group's starts before the other group's ends */
		x = extra(b, func, TG_HBX_SIDE);
		xb = extra(b, func, TG_HBX_SIDE);
		for (i = 0; i < n; i++) {
			edge(b, m[i]->start, i < g->na ? x : xb, TG_HBE_GATHER);
			edge(b, i < g->na ? xb : x, m[i]->end, TG_HBE_RELEASE);
		}
		return;
	}
	if ((ct == TG_ORD_ALL || ct == TG_ORD_SYNC) && counted) {
		flow_edges(b, m, n, func);
		return;
	}
	if (ct == TG_ORD_ALL || ct == TG_ORD_SYNC) {
		x = extra(b, func, TG_HBX_ALL);
		for (i = 0; i < n; i++)
			edge(b, m[i]->start, x, TG_HBE_GATHER);
		for (i = 0; i < n; i++)
			edge(b, x, m[i]->end, TG_HBE_RELEASE);
		return;
	}
	if (ct == TG_ORD_SCAN || ct == TG_ORD_EXSCAN) {
		prev = NONE;
		for (i = 0; i < n; i++) {
			x = extra(b, func, TG_HBX_PREFIX);
			edge(b, m[i]->start, x, TG_HBE_GATHER);
			edge(b, prev, x, TG_HBE_PREFIX);
			if (ct == TG_ORD_SCAN && i > 0)
				edge(b, x, m[i]->end, TG_HBE_RELEASE);
			if (ct == TG_ORD_EXSCAN)
				edge(b, prev, m[i]->end, TG_HBE_RELEASE);
			prev = x;
		}
		return;
	}
	/* rooted */
	if (g->inter) {
		for (i = 0; i < n; i++)
			if (m[i]->root == ROOT)
				root = (int32_t)i;
	} else if (m[0]->root >= 0 && (uint32_t)m[0]->root < n) {
		root = m[0]->root;
	}
	if (root < 0)
		return;
	for (i = 0; i < n; i++) {
		int other = g->inter ? ((i < g->na) != ((uint32_t)root < g->na)) : i != (uint32_t)root;
		if (!other)
			continue;
		if (ct == TG_ORD_ROOT) {
			if (g->inter || takes(b, m[i], (uint32_t)root))
				edge(b, m[root]->start, m[i]->end, TG_HBE_ROOT);
		} else if (g->inter || takes(b, m[root], i)) {
			edge(b, m[i]->start, m[root]->end, TG_HBE_TOROOT);
		}
	}
}

/* The edges of the one-sided operations in fence epochs (see rma_op): the
 * fences of a window are its group's collective instances, in order. */
void hb_rma_edges(struct hbb *b)
{
	size_t i;

	for (i = 0; i < b->rma.n; i++) {
		const struct rmaop *op = &b->rma.v[i];
		const struct gcomm *g = &b->g.v[op->gid];
		const uvec *lt = &g->lists[op->target], *lo = &g->lists[op->origin];
		uint32_t close_t = op->epoch < lt->n ? b->insts.v[lt->v[op->epoch]].end : NONE;
		uint32_t close_o = op->epoch < lo->n ? b->insts.v[lo->v[op->epoch]].end : NONE;
		uint32_t open_t;

		if (close_t == NONE || close_o == NONE) {
			/* no fence ends its epoch */
			hb_problem(b, TG_HBP_ONE_SIDED, g->members[op->origin], b->func[op->node],
				   b->seq[op->node]);
			continue;
		}
		open_t = b->insts.v[lt->v[op->epoch - 1]].start;
		if (op->flags & TG_MF_PUT)
			edge(b, op->node, close_t, TG_HBE_RMA);
		if (op->flags & TG_MF_GET)
			edge(b, open_t, close_o, TG_HBE_RMA);
	}
}

void hb_match_colls(struct hbb *b)
{
	size_t gi;
	struct inst **m = NULL;
	size_t mcap = 0;

	for (gi = 0; gi < b->g.n; gi++) {
		const struct gcomm *g = &b->g.v[gi];
		size_t most = 0, k;
		uint32_t i;
		if (g->n > mcap) {
			mcap = g->n;
			m = hb_realloc(m, mcap * sizeof(*m));
		}
		for (i = 0; i < g->n; i++)
			if (g->lists[i].n > most)
				most = g->lists[i].n;
		for (k = 0; k < most; k++) {
			int whole = 1, same = 1;
			for (i = 0; i < g->n; i++) {
				m[i] = k < g->lists[i].n ? &b->insts.v[g->lists[i].v[k]] : NULL;
				if (!m[i])
					whole = 0;
			}
			if (!whole) {
				for (i = 0; i < g->n; i++)
					if (m[i])
						hb_problem(b, TG_HBP_UNMATCHED_COLL, m[i]->rank, m[i]->func,
							m[i]->seq);
				continue;
			}
			for (i = 1; i < g->n; i++)
				if (m[i]->fn != m[0]->fn ||
				    (!g->inter && (hb_ftab[m[0]->fn].flags & F_ROOT) &&
				     m[i]->root != m[0]->root))
					same = 0;
			if (!same) {
				for (i = 0; i < g->n; i++)
					hb_problem(b, TG_HBP_COLL_MISMATCH, m[i]->rank, m[i]->func,
						m[i]->seq);
				continue;
			}
			for (i = 0; i < g->n; i++)
				if (m[i]->end == NONE)
					hb_problem(b, TG_HBP_INCOMPLETE, m[i]->rank, m[i]->func,
						m[i]->seq);
			b->collectives++;
			coll_edges(b, g, m);
		}
	}
	hb_free(m);
}


/*
 * Exclusive lock epochs on one target of a window exclude each other
 * (MPI 4.0 §12.5.3), and exclusive and shared ones (shared ones do
 * not exclude each other): one held the lock before the other, and what its
 * rank did before it happens before what the other's rank does after its
 * unlock, as a mutex orders them (OpenCoarrays' critical, locks, events
 * and atomics are such epochs).  The trace tells which held it first only
 * by the times: a lock is released inside the unlock call, and a library
 * that takes the lock in MPI_Win_lock (MPICH does) has the second epoch's
 * lock return, and its unlock start, after the first released it; one
 * that takes it lazily, in the unlock (Open MPI's osc/pt2pt), has the
 * second epoch's lock return at once and its unlock start first, and end
 * after the first's.  Of two epochs, the one whose unlock started first
 * held the lock first where the other's lock call returned after that
 * start (the lock was taken in MPI_Win_lock), or where the other's
 * unlock started after this one's ended (either way); otherwise the
 * times do not tell, and the two are not ordered (nor, through them,
 * what follows: a race where there may be none).  Each epoch
 * gets an extra node, an instant while it held the lock: after the start
 * of its lock call, before the end of its unlock call, and after the
 * instant of the exclusive epoch before it on that target, and of the
 * shared ones between the two.
 */
/* Did epoch @a, whose unlock started no later than @b's, hold the lock
 * first (see above)? */
static int held_before(const struct lockep *a, const struct lockep *b)
{
	return a->t1 < b->t0e || a->t2 <= b->t1;
}

static int cmp_lockep(const void *x, const void *y)
{
	const struct lockep *a = x, *c = y;

	if (a->gid != c->gid)
		return a->gid < c->gid ? -1 : 1;
	if (a->target != c->target)
		return a->target < c->target ? -1 : 1;
	return a->t1 < c->t1 ? -1 : a->t1 > c->t1;
}

void hb_lock_edges(struct hbb *b)
{
	struct lockep *e = b->lockeps.v;
	size_t n = b->lockeps.n, i, k, since = 0, last = SIZE_MAX;
	uint32_t *x = hb_calloc(n ? n : 1, sizeof(uint32_t));

	qsort(e, n, sizeof(*e), cmp_lockep);
	for (i = 0; i < n; i++) {
		if (i && (e[i - 1].gid != e[i].gid || e[i - 1].target != e[i].target)) {
			last = SIZE_MAX;	/* another target */
			since = i;
		}
		x[i] = extra(b, b->func[e[i].lock], TG_HBX_LOCK);
		edge(b, e[i].lock, x[i], TG_HBE_LOCK);
		edge(b, x[i], e[i].unlock, TG_HBE_LOCK);
		if (last != SIZE_MAX && held_before(&e[last], &e[i]))
			edge(b, x[last], x[i], TG_HBE_LOCK);
		if (e[i].shared)
			continue;
		/* an exclusive one: after the shared ones since the last */
		for (k = since; k < i; k++)
			if (e[k].shared && held_before(&e[k], &e[i]))
				edge(b, x[k], x[i], TG_HBE_LOCK);
		last = i;
		since = i + 1;
	}
	hb_free(x);
}

static int cmp_pscwep(const void *x, const void *y)
{
	const struct pscwep *a = x, *c = y;

	if (a->gid != c->gid)
		return a->gid < c->gid ? -1 : 1;
	if (a->origin != c->origin)
		return a->origin < c->origin ? -1 : 1;
	if (a->target != c->target)
		return a->target < c->target ? -1 : 1;
	if (a->k != c->k)
		return a->k < c->k ? -1 : 1;
	return (int)a->side - (int)c->side;
}

/* The edges of matched general active target epochs (see walk_group):
 * the origin's complete before the target's wait, and the target's post
 * before the origin's complete where the origin got from it.  An epoch
 * whose partner is not in the trace orders nothing (a problem line). */
void hb_pscw_edges(struct hbb *b)
{
	struct pscwep *e = b->pscw.v;
	size_t n = b->pscw.n, i;

	qsort(e, n, sizeof(*e), cmp_pscwep);
	for (i = 0; i < n; i++) {
		const struct gcomm *g = &b->g.v[e[i].gid];
		if (i + 1 < n && e[i].side == 0 && e[i + 1].side == 1 &&
		    e[i].gid == e[i + 1].gid && e[i].origin == e[i + 1].origin &&
		    e[i].target == e[i + 1].target && e[i].k == e[i + 1].k) {
			edge(b, e[i].a, e[i + 1].b, TG_HBE_RMA);
			if (e[i].get)
				edge(b, e[i + 1].a, e[i].a, TG_HBE_RMA);
			i++;
			continue;
		}
		if (e[i].side == 0)
			hb_problem(b, TG_HBP_ONE_SIDED, g->members[e[i].origin], b->func[e[i].a],
				   b->seq[e[i].a]);
		else
			hb_problem(b, TG_HBP_ONE_SIDED, g->members[e[i].target], b->func[e[i].b],
				   b->seq[e[i].b]);
	}
}

/* Puts in buckets: by window group, target, origin and bytes, in time. */
static int cmp_put(const void *x, const void *y)
{
	const struct passop *a = x, *c = y;

	if (a->gid != c->gid)
		return a->gid < c->gid ? -1 : 1;
	if (a->target != c->target)
		return a->target < c->target ? -1 : 1;
	if (a->origin != c->origin)
		return a->origin < c->origin ? -1 : 1;
	if (a->dlo != c->dlo)
		return a->dlo < c->dlo ? -1 : 1;
	if (a->dhi != c->dhi)
		return a->dhi < c->dhi ? -1 : 1;
	return a->t0 < c->t0 ? -1 : a->t0 > c->t0;
}

/*
 * The edges of passive-target operations (see passive() in the walk): to
 * each get that was not polled again, from the last put begun before it
 * was done, of each other origin and each range of bytes that overlaps
 * the get's (puts in buckets by origin and bytes: a rank's thousands of
 * other operations on the target do not hide the one it read).
 */
void hb_passive_edges(struct hbb *b)
{
	struct passop *e = b->pops.v, *put;
	size_t n = b->pops.n, np = 0, nb = 0, i, j, k;
	size_t *bk;	/* the first put of each bucket, and np at the end */

	if (!n)
		return;
	put = hb_calloc(n, sizeof(*put));
	for (i = 0; i < n; i++)
		if ((e[i].flags & TG_MF_PUT) && !e[i].again)
			put[np++] = e[i];
	qsort(put, np, sizeof(*put), cmp_put);
	bk = hb_calloc(np + 1, sizeof(*bk));
	for (i = 0; i < np; i++)
		if (!i || put[i].gid != put[i - 1].gid || put[i].target != put[i - 1].target ||
		    put[i].origin != put[i - 1].origin || put[i].dlo != put[i - 1].dlo ||
		    put[i].dhi != put[i - 1].dhi)
			bk[nb++] = i;
	bk[nb] = np;
	for (k = 0; k < n; k++) {
		const struct passop *g = &e[k];
		size_t lo = 0, hi = nb;
		if (!(g->flags & TG_MF_GET) || g->again)
			continue;
		while (lo < hi) {	/* the first bucket of its window and target */
			size_t mid = lo + (hi - lo) / 2;
			const struct passop *q = &put[bk[mid]];
			if (q->gid < g->gid || (q->gid == g->gid && q->target < g->target))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = lo; j < nb && put[bk[j]].gid == g->gid && put[bk[j]].target == g->target;
		     j++) {
			const struct passop *q = &put[bk[j]];
			size_t a = bk[j], c = bk[j + 1];
			if (q->origin == g->origin || q->dhi <= g->dlo || g->dhi <= q->dlo)
				continue;
			while (a < c) {	/* the first begun when it was done */
				size_t mid = a + (c - a) / 2;
				if (put[mid].t0 < g->t1)
					a = mid + 1;
				else
					c = mid;
			}
			if (a == bk[j])
				continue;	/* none began before */
			a--;
			/* epochs that exclude each other: hb_lock_edges */
			if (put[a].lock != LK_NONE && g->lock != LK_NONE &&
			    (put[a].lock == LK_EXCL || g->lock == LK_EXCL))
				continue;
			edge(b, put[a].opnode, g->node, TG_HBE_RMA);
		}
	}
	hb_free(bk);
	hb_free(put);
}
