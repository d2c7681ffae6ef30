/*
 * util.c - what every pass of hb-build uses: memory (large arrays mapped on
 * their own), the hash map of 64-bit keys, the table of the MPI functions
 * that matter to the graph, and the problems found.  A leaf: it calls
 * nothing in the other files of hb-build.
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
#include "int.h"
#include "../../libcommon/banned.h"

/* ---- containers ----------------------------------------------------------- */

/*
 * Memory.  A graph of ten million calls takes a gigabyte, and the cost of
 * that is mostly the page faults of touching it: so large arrays are
 * mapped on their own, with transparent huge pages where the system
 * allows them, and grow by remapping instead of copying.  Every block has
 * a small header that says which kind it is.
 */
#define HDR 32			/* header: keeps 16-byte alignment */
#define BIG (1u << 20)		/* blocks from here on are mapped */
#define HUGE_SZ (2u << 20)

struct blk {
	size_t cap;		/* usable bytes */
	int big;
};

static void oom(void)
{
	errx(TG_EXIT_ERROR, "out of memory");
}

void *hb_realloc(void *p, size_t n)
{
	struct blk *h = p ? (struct blk *)((char *)p - HDR) : NULL, *q;
	size_t want;

	if (n > SIZE_MAX - HUGE_SZ - HDR)
		oom();
	want = n + HDR;
	if (want < BIG && (!h || !h->big)) {
		h = realloc(h, want);
		if (!h)
			oom();
		h->cap = n;
		h->big = 0;
		return (char *)h + HDR;
	}
	want = (want + HUGE_SZ - 1) & ~(size_t)(HUGE_SZ - 1);
	if (h && h->big) {
		if (n <= h->cap)
			return p;
		q = mremap(h, h->cap + HDR, want, MREMAP_MAYMOVE);
		h = NULL;	/* moved, not to be copied */
	} else {
		q = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (q == MAP_FAILED)
		oom();
	madvise(q, want, MADV_HUGEPAGE);	/* a hint: fine if refused */
	if (h) {
		memcpy((char *)q + HDR, p, h->cap < n ? h->cap : n);
		free(h);
	}
	q->cap = want - HDR;
	q->big = 1;
	return (char *)q + HDR;
}

/* Zeroed: a fresh mapping is zero already and is not touched here. */
void *hb_calloc(size_t n, size_t sz)
{
	void *p;

	if (sz && n > SIZE_MAX / sz)
		oom();
	p = hb_realloc(NULL, n * sz);
	if (!((struct blk *)((char *)p - HDR))->big)
		memset(p, 0, n * sz);
	return p;
}

void hb_free(void *p)
{
	struct blk *h;

	if (!p)
		return;
	h = (struct blk *)((char *)p - HDR);
	if (h->big)
		munmap(h, h->cap + HDR);
	else
		free(h);
}

size_t hb_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (size_t)x;
}

static void umap_grow(struct umap *m)
{
	struct umap o = *m;
	size_t i;

	m->cap = o.cap ? o.cap * 2 : 64;
	m->k = hb_realloc(NULL, m->cap * sizeof(uint64_t));
	m->v = hb_realloc(NULL, m->cap * sizeof(uint64_t));
	memset(m->k, 0xff, m->cap * sizeof(uint64_t));
	m->n = 0;
	for (i = 0; i < o.cap; i++)
		if (o.k[i] != UINT64_MAX) {
			size_t j = hb_mix(o.k[i]) & (m->cap - 1);
			while (m->k[j] != UINT64_MAX)
				j = (j + 1) & (m->cap - 1);
			m->k[j] = o.k[i];
			m->v[j] = o.v[i];
			m->n++;
		}
	hb_free(o.k);
	hb_free(o.v);
}

/* The value slot of @key, made (with @init) if @make, else NULL if absent. */
uint64_t *hb_umap_at(struct umap *m, uint64_t key, int make, uint64_t init)
{
	size_t j;

	if (m->cap == 0) {
		if (!make)
			return NULL;
		umap_grow(m);
	}
	j = hb_mix(key) & (m->cap - 1);
	while (m->k[j] != UINT64_MAX) {
		if (m->k[j] == key)
			return &m->v[j];
		j = (j + 1) & (m->cap - 1);
	}
	if (!make)
		return NULL;
	if (2 * (m->n + 1) > m->cap) {
		umap_grow(m);
		return hb_umap_at(m, key, make, init);
	}
	m->k[j] = key;
	m->v[j] = init;
	m->n++;
	return &m->v[j];
}

/* Remove @key; the entries after it move back (no tombstones). */
void hb_umap_del(struct umap *m, uint64_t key)
{
	size_t j, i, h;

	if (m->cap == 0)
		return;
	j = hb_mix(key) & (m->cap - 1);
	while (m->k[j] != key) {
		if (m->k[j] == UINT64_MAX)
			return;
		j = (j + 1) & (m->cap - 1);
	}
	m->k[j] = UINT64_MAX;
	m->n--;
	for (i = (j + 1) & (m->cap - 1); m->k[i] != UINT64_MAX; i = (i + 1) & (m->cap - 1)) {
		h = hb_mix(m->k[i]) & (m->cap - 1);
		/* move i to the hole at j if its home is not in (j, i] */
		if ((i > j && (h <= j || h > i)) || (i < j && h <= j && h > i)) {
			m->k[j] = m->k[i];
			m->v[j] = m->v[i];
			m->k[i] = UINT64_MAX;
			j = i;
		}
	}
}

void hb_umap_free(struct umap *m)
{
	hb_free(m->k);
	hb_free(m->v);
	memset(m, 0, sizeof(*m));
}

const struct fdesc *hb_ftab;

/* hb_ftab, from the roles of the call table's MPI rows. */
void hb_ftab_init(void)
{
	struct fdesc *t = hb_calloc(tg_call_idmax(), sizeof(*t));
	unsigned i, n = tg_call_count();

	for (i = 0; i < n; i++) {
		const struct tg_calldesc *d = tg_call_nth(i);
		const struct tg_hbrole *h = d->hb;
		struct fdesc *f = &t[d->id];
		if (!h)
			continue;
		f->kind = h->kind;
		f->ctype = h->order;
		f->flags = h->flags;
		f->comm = h->comm >= 0 ? d->args[h->comm].name : NULL;
		if (h->root >= 0) {
			f->flags |= F_ROOT;
			f->root = d->args[h->root].name;
		}
	}
	hb_ftab = t;
}

int hb_is_node(unsigned kind)
{
	switch (kind) {
	case TG_MK_OTHER: case TG_MK_SEND_INIT: case TG_MK_RECV_INIT: case TG_MK_COLL_INIT:
	case TG_MK_REQFREE: case TG_MK_INERT: case TG_MK_INERT_INIT: case TG_MK_FINALIZE:
	case TG_MK_GROUP:
		return 0;
	}
	return 1;
}

const char *hb_func_name(unsigned id)
{
	const struct tg_calldesc *d = id ? tg_call_lookup(id) : NULL;

	return d ? d->name : "?";
}

/* ---- problems ---------------------------------------------------------------------- */

void hb_problem(struct hbb *b, unsigned kind, int64_t rank, uint16_t func, uint64_t seq)
{
	uint64_t key = (uint64_t)kind << 32 | (uint32_t)rank;
	uint64_t *slot = hb_umap_at(&b->probidx, key, 1, UINT64_MAX);
	struct tg_hbproblem *p;

	if (*slot == UINT64_MAX) {
		*slot = b->prob.n;
		PUSH(b->prob, ((struct tg_hbproblem){ kind, func, (uint32_t)rank, seq, 0 }));
	}
	p = &b->prob.v[*slot];
	p->count++;
	if (seq < p->seq) {
		p->seq = seq;
		p->func = func;
	}
}

