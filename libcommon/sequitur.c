/*
 * sequitur.c - Sequitur with repetition counts.
 *
 * Symbols live in a pool of nodes linked into one circular list per rule,
 * closed by the rule's guard node.  A hash table indexes every digram (two
 * neighbouring symbols, each with its count) by the node that starts it.
 * Appending a value extends the start rule and restores the two
 * properties of the algorithm: no digram occurs twice (P1: a repeated one
 * becomes a rule, or is replaced by the rule it already is) and every
 * rule is used more than once (P2: a rule used once, without repetition,
 * is expanded in place).  Equal neighbours fuse into one symbol with the
 * sum of their counts, which makes loops cost O(1) instead of O(log n).
 *
 * Changes never recurse: each edit queues the digrams it created and the
 * symbols that may have become under-used, and tg_seq_append() works the
 * queue off until the grammar is quiet.  A queued node may meanwhile have
 * been freed or reused; handling it is then a no-op or a harmless extra
 * check, never an error, because every step re-validates what it reads.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sequitur.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

#define KIND_MASK 0xc0000000u
#define K_TERM 0x00000000u
#define K_RULE 0x80000000u	/* a reference to rule (val & ~KIND_MASK) */
#define K_GUARD 0xc0000000u	/* the guard of rule (val & ~KIND_MASK) */
#define K_FREE 0x40000000u	/* a node on the free list */
#define IDX(v) ((v) & ~KIND_MASK)

struct node {
	uint32_t prev, next;
	uint32_t val;
	uint32_t exp;
};

struct rule {
	uint32_t guard;		/* 0 once the rule is gone */
	uint32_t refs;		/* symbols that name it; once the rule is gone,
				 * the next gone rule + 1 (tg_seq.rfree) */
};

struct tg_seq {
	struct node *n;
	uint32_t nn, capn, freelist;
	struct rule *r;
	uint32_t nr, capr;
	uint32_t rfree;		/* a gone rule to use again + 1, 0: none: a
				 * periodic input makes and expands rules
				 * without end, which must not grow memory */
	uint32_t *tab;		/* digram -> first node; 0 = empty */
	uint32_t tabcap, tabused;
	uint32_t *work;		/* queued node indices; top bit: P2 check */
	size_t nwork, capwork;
	size_t nsyms;		/* symbols in all rules */
	int oom;
};

#define UTIL_BIT 0x80000000u

static inline int is_guard(const struct tg_seq *s, uint32_t i)
{
	return (s->n[i].val & KIND_MASK) == K_GUARD;
}

static inline int fits(uint32_t a, uint32_t b)
{
	return a <= UINT32_MAX - b;
}

static uint32_t node_new(struct tg_seq *s, uint32_t val, uint32_t exp)
{
	uint32_t i;

	if (s->freelist) {
		i = s->freelist;
		s->freelist = s->n[i].next;
	} else {
		if (s->nn == s->capn) {
			uint32_t nc = s->capn ? s->capn * 2 : 1024;
			struct node *nw;
			if (nc <= s->capn || !(nw = realloc(s->n, (size_t)nc * sizeof(*nw)))) {
				s->oom = 1;
				return 0;
			}
			s->n = nw;
			s->capn = nc;
		}
		i = s->nn++;
	}
	s->n[i].val = val;
	s->n[i].exp = exp;
	s->n[i].prev = s->n[i].next = i;
	if ((val & KIND_MASK) == K_RULE)
		s->r[IDX(val)].refs++;
	if ((val & KIND_MASK) != K_GUARD)
		s->nsyms++;
	return i;
}

static void node_free(struct tg_seq *s, uint32_t i)
{
	if ((s->n[i].val & KIND_MASK) == K_RULE)
		s->r[IDX(s->n[i].val)].refs--;
	if ((s->n[i].val & KIND_MASK) != K_GUARD)
		s->nsyms--;
	s->n[i].val = K_FREE;
	s->n[i].next = s->freelist;
	s->freelist = i;
}

static uint32_t rule_new(struct tg_seq *s)
{
	uint32_t g;

	if (s->rfree) {
		uint32_t r = s->rfree - 1;

		g = node_new(s, K_GUARD | r, 0);
		if (!g)
			return UINT32_MAX;
		s->rfree = s->r[r].refs;
		s->r[r].refs = 0;
		s->r[r].guard = g;
		return r;
	}
	if (s->nr == s->capr) {
		uint32_t nc = s->capr ? s->capr * 2 : 256;
		struct rule *nw = realloc(s->r, (size_t)nc * sizeof(*nw));
		if (!nw) {
			s->oom = 1;
			return UINT32_MAX;
		}
		s->r = nw;
		s->capr = nc;
	}
	if (s->nr > IDX(~0u)) {
		s->oom = 1;
		return UINT32_MAX;
	}
	s->r[s->nr].refs = 0;
	g = node_new(s, K_GUARD | s->nr, 0);
	if (!g)
		return UINT32_MAX;
	s->r[s->nr].guard = g;
	return s->nr++;
}

/* ---- the digram table --------------------------------------------------- */

static uint32_t dg_hash(const struct tg_seq *s, uint32_t a)
{
	const struct node *x = &s->n[a], *y = &s->n[x->next];
	uint64_t h = ((uint64_t)x->val << 32 | x->exp) * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)y->val << 32 | y->exp) + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
	h *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h >> 32);
}

static int dg_equal(const struct tg_seq *s, uint32_t a, uint32_t b)
{
	const struct node *x = &s->n[a], *y = &s->n[b];

	return x->val == y->val && x->exp == y->exp &&
	       s->n[x->next].val == s->n[y->next].val &&
	       s->n[x->next].exp == s->n[y->next].exp;
}

/* Does node @a start a digram (a symbol followed by a symbol)? */
static int dg_has(const struct tg_seq *s, uint32_t a)
{
	return !is_guard(s, a) && !is_guard(s, s->n[a].next);
}

/* The slot holding @a's digram, or the empty slot where it would go. */
static uint32_t dg_slot(const struct tg_seq *s, uint32_t a)
{
	uint32_t mask = s->tabcap - 1, i = dg_hash(s, a) & mask;

	while (s->tab[i] && !dg_equal(s, s->tab[i], a))
		i = (i + 1) & mask;
	return i;
}

static int dg_grow(struct tg_seq *s)
{
	uint32_t oc = s->tabcap, nc = oc ? oc * 2 : 4096, i, *old = s->tab;

	if (nc <= oc || !(s->tab = calloc(nc, sizeof(uint32_t)))) {
		s->tab = old;
		s->oom = 1;
		return -1;
	}
	s->tabcap = nc;
	for (i = 0; i < oc; i++)
		if (old[i])
			s->tab[dg_slot(s, old[i])] = old[i];
	free(old);
	return 0;
}

/* Remove the table entry of @a's digram if it is @a's. */
static void dg_delete(struct tg_seq *s, uint32_t a)
{
	uint32_t mask = s->tabcap - 1, i, j, k;

	if (!s->tabcap || !dg_has(s, a))
		return;
	i = dg_slot(s, a);
	if (s->tab[i] != a)
		return;
	/* backward-shift deletion keeps every probe run unbroken */
	s->tab[i] = 0;
	s->tabused--;
	for (j = (i + 1) & mask; s->tab[j]; j = (j + 1) & mask) {
		k = dg_hash(s, s->tab[j]) & mask;
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			s->tab[i] = s->tab[j];
			s->tab[j] = 0;
			i = j;
		}
	}
}

/* ---- the work queue ------------------------------------------------------ */

static void push(struct tg_seq *s, uint32_t node, uint32_t util)
{
	if (s->nwork == s->capwork) {
		size_t nc = s->capwork ? s->capwork * 2 : 256;
		uint32_t *nw = realloc(s->work, nc * sizeof(*nw));
		if (!nw) {
			s->oom = 1;
			return;
		}
		s->work = nw;
		s->capwork = nc;
	}
	s->work[s->nwork++] = node | util;
}

/* ---- edits ----------------------------------------------------------------- */

static void link_nodes(struct tg_seq *s, uint32_t a, uint32_t b)
{
	s->n[a].next = b;
	s->n[b].prev = a;
}

/* Unlink and free symbol @x; the digram its neighbours now form is queued. */
static void sym_remove(struct tg_seq *s, uint32_t x)
{
	uint32_t p = s->n[x].prev;

	dg_delete(s, p);
	dg_delete(s, x);
	link_nodes(s, p, s->n[x].next);
	node_free(s, x);
	push(s, p, 0);
}

static void set_exp(struct tg_seq *s, uint32_t x, uint32_t exp)
{
	dg_delete(s, s->n[x].prev);
	dg_delete(s, x);
	s->n[x].exp = exp;
	push(s, s->n[x].prev, 0);
	push(s, x, 0);
}

/* Fuse @x with its right neighbour if they are the same symbol.  Returns
 * the node that now holds x. */
static uint32_t fuse_right(struct tg_seq *s, uint32_t x)
{
	uint32_t y = s->n[x].next, e;

	if (is_guard(s, x) || is_guard(s, y) || s->n[x].val != s->n[y].val ||
	    !fits(s->n[x].exp, s->n[y].exp))
		return x;
	e = s->n[y].exp;
	sym_remove(s, y);
	set_exp(s, x, s->n[x].exp + e);
	return x;
}

/* Replace the digram that starts at @a by a reference to rule @r. */
static void substitute(struct tg_seq *s, uint32_t a, uint32_t r)
{
	uint32_t p = s->n[a].prev, b = s->n[a].next, q = s->n[b].next, x;

	dg_delete(s, p);
	dg_delete(s, a);
	dg_delete(s, b);
	node_free(s, b);
	node_free(s, a);
	x = node_new(s, K_RULE | r, 1);
	if (!x)
		return;
	link_nodes(s, p, x);
	link_nodes(s, x, q);
	if (!is_guard(s, p) && s->n[p].val == s->n[x].val && fits(s->n[p].exp, 1)) {
		dg_delete(s, p);
		link_nodes(s, p, q);
		node_free(s, x);
		set_exp(s, p, s->n[p].exp + 1);
		x = p;
	}
	x = fuse_right(s, x);
	push(s, s->n[x].prev, 0);
	push(s, x, 0);
}

/* @a and @b start equal digrams: make them one rule (P1). */
static void match(struct tg_seq *s, uint32_t a, uint32_t b)
{
	uint32_t r, g, x, y;

	if (is_guard(s, s->n[b].prev) && is_guard(s, s->n[s->n[b].next].next)) {
		r = IDX(s->n[s->n[b].prev].val);
		substitute(s, a, r);
	} else if (is_guard(s, s->n[a].prev) && is_guard(s, s->n[s->n[a].next].next)) {
		r = IDX(s->n[s->n[a].prev].val);
		substitute(s, b, r);
	} else {
		if ((r = rule_new(s)) == UINT32_MAX)
			return;
		g = s->r[r].guard;
		x = node_new(s, s->n[a].val, s->n[a].exp);
		y = x ? node_new(s, s->n[s->n[a].next].val, s->n[s->n[a].next].exp) : 0;
		if (!y)
			return;
		link_nodes(s, g, x);
		link_nodes(s, x, y);
		link_nodes(s, y, g);
		substitute(s, b, r);
		substitute(s, a, r);
		if (s->tabused * 2 >= s->tabcap && dg_grow(s) < 0)
			return;
		{
			uint32_t i = dg_slot(s, x);
			if (!s->tab[i]) {
				s->tab[i] = x;
				s->tabused++;
			}
		}
	}
	/* a rule the digram named may now be used only once (P2) */
	g = s->r[r].guard;
	if (g) {
		push(s, s->n[g].next, UTIL_BIT);
		push(s, s->n[g].prev, UTIL_BIT);
	}
}

/* Put the body of the rule that symbol @x names in place of @x. */
static void expand(struct tg_seq *s, uint32_t x)
{
	uint32_t r = IDX(s->n[x].val), g = s->r[r].guard;
	uint32_t f = s->n[g].next, l = s->n[g].prev;
	uint32_t p = s->n[x].prev, q = s->n[x].next;

	dg_delete(s, p);
	dg_delete(s, x);
	dg_delete(s, l);	/* (l, guard) is no digram, but be safe */
	link_nodes(s, p, f);
	link_nodes(s, l, q);
	node_free(s, x);
	node_free(s, g);
	s->r[r].guard = 0;
	s->r[r].refs = s->rfree;	/* no symbol names it any more */
	s->rfree = r + 1;
	push(s, p, 0);
	push(s, l, 0);
	if (!is_guard(s, p) && s->n[p].val == s->n[f].val &&
	    fits(s->n[p].exp, s->n[f].exp)) {
		uint32_t e = s->n[f].exp;
		int single = f == l;
		sym_remove(s, f);
		set_exp(s, p, s->n[p].exp + e);
		if (single)
			l = p;
	}
	fuse_right(s, l);
}

/* The digram at @a is new: index it, or act on its repetition. */
static void dg_check(struct tg_seq *s, uint32_t a)
{
	uint32_t i, b;

	if (!dg_has(s, a))
		return;
	if (s->tabused * 2 >= s->tabcap && dg_grow(s) < 0)
		return;
	i = dg_slot(s, a);
	b = s->tab[i];
	if (!b) {
		s->tab[i] = a;
		s->tabused++;
		return;
	}
	if (b == a || s->n[b].next == a || s->n[a].next == b)
		return;
	match(s, a, b);
}

static void drain(struct tg_seq *s)
{
	while (s->nwork && !s->oom) {
		uint32_t w = s->work[--s->nwork], x = w & ~UTIL_BIT;
		uint32_t v = s->n[x].val;

		if ((v & KIND_MASK) == K_FREE || (v & KIND_MASK) == K_GUARD)
			continue;
		if (!(w & UTIL_BIT)) {
			dg_check(s, x);
			continue;
		}
		if ((v & KIND_MASK) == K_RULE && s->n[x].exp == 1 &&
		    s->r[IDX(v)].guard && s->r[IDX(v)].refs == 1)
			expand(s, x);
	}
}

/* ---- the interface ------------------------------------------------------- */

struct tg_seq *tg_seq_new(void)
{
	struct tg_seq *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	/* node 0 is never used: 0 is "none" in the digram table */
	s->capn = 1024;
	s->n = calloc(s->capn, sizeof(*s->n));
	s->nn = 1;
	if (!s->n || rule_new(s) != 0 || dg_grow(s) < 0) {
		tg_seq_free(s);
		return NULL;
	}
	s->n[0].val = K_FREE;
	return s;
}

void tg_seq_free(struct tg_seq *s)
{
	if (!s)
		return;
	free(s->n);
	free(s->r);
	free(s->tab);
	free(s->work);
	free(s);
}

int tg_seq_append(struct tg_seq *s, uint32_t val, uint32_t exp)
{
	uint32_t g, last, x;

	if (s->oom || val > TG_SEQ_MAXVAL || exp == 0)
		return -1;
	g = s->r[0].guard;
	last = s->n[g].prev;
	if (!is_guard(s, last) && s->n[last].val == val && fits(s->n[last].exp, exp)) {
		set_exp(s, last, s->n[last].exp + exp);
	} else {
		if (!(x = node_new(s, val, exp)))
			return -1;
		link_nodes(s, last, x);
		link_nodes(s, x, g);
		push(s, last, 0);
	}
	drain(s);
	return s->oom ? -1 : 0;
}

size_t tg_seq_size(const struct tg_seq *s, size_t *nrules)
{
	if (nrules) {
		uint32_t i;
		*nrules = 0;
		for (i = 0; i < s->nr; i++)
			*nrules += s->r[i].guard != 0;
	}
	return s->nsyms;
}

size_t tg_seq_slots(const struct tg_seq *s)
{
	return s->nr;
}

int tg_seq_export(const struct tg_seq *s, struct tg_sym **syms_out,
		  uint32_t **off_out, uint32_t *nrules_out)
{
	uint32_t *order = NULL, *num = NULL, *stack = NULL, *off = NULL;
	struct tg_sym *syms = NULL;
	uint32_t norder = 0, nstack = 0, i, k, o = 0;
	int rc = -1;

	/* rules in post-order from the start rule, numbered in that order */
	order = malloc((size_t)s->nr * sizeof(uint32_t));
	num = malloc((size_t)s->nr * sizeof(uint32_t));
	stack = malloc((size_t)s->nr * 2 * sizeof(uint32_t));
	syms = malloc((s->nsyms ? s->nsyms : 1) * sizeof(*syms));
	off = malloc(((size_t)s->nr + 1) * sizeof(uint32_t));
	if (!order || !num || !stack || !syms || !off)
		goto out;
	for (i = 0; i < s->nr; i++)
		num[i] = UINT32_MAX;
	/* iterative DFS: (rule, node to resume at) */
	stack[nstack++] = 0;
	stack[nstack++] = s->n[s->r[0].guard].next;
	num[0] = UINT32_MAX - 1;	/* on the stack */
	while (nstack) {
		uint32_t r = stack[nstack - 2], x = stack[nstack - 1];
		uint32_t g = s->r[r].guard;
		int pushed = 0;
		for (; x != g; x = s->n[x].next) {
			uint32_t v = s->n[x].val;
			if ((v & KIND_MASK) == K_RULE && num[IDX(v)] == UINT32_MAX) {
				stack[nstack - 1] = s->n[x].next;
				num[IDX(v)] = UINT32_MAX - 1;
				stack[nstack++] = IDX(v);
				stack[nstack++] = s->n[s->r[IDX(v)].guard].next;
				pushed = 1;
				break;
			}
		}
		if (pushed)
			continue;
		nstack -= 2;
		num[r] = norder;
		order[norder++] = r;
	}
	for (k = 0; k < norder; k++) {
		uint32_t r = order[k], g = s->r[r].guard, x;
		off[k] = o;
		for (x = s->n[g].next; x != g; x = s->n[x].next) {
			uint32_t v = s->n[x].val;
			syms[o].sym = (v & KIND_MASK) == K_RULE ? num[IDX(v)] << 1 | 1 : v << 1;
			syms[o].exp = s->n[x].exp;
			o++;
		}
	}
	off[norder] = o;
	*syms_out = syms;
	*off_out = off;
	*nrules_out = norder;
	syms = NULL;
	off = NULL;
	rc = 0;
out:
	free(order);
	free(num);
	free(stack);
	free(syms);
	free(off);
	return rc;
}

int tg_seq_check(const struct tg_seq *s)
{
	uint32_t r, x, i, n = 0;

	for (i = 0; i < s->tabcap; i++) {
		uint32_t a = s->tab[i];
		if (!a)
			continue;
		n++;
		if ((s->n[a].val & KIND_MASK) == K_FREE || !dg_has(s, a) ||
		    s->tab[dg_slot(s, a)] != a)
			return -1;
	}
	if (n != s->tabused)
		return -1;
	for (r = 0; r < s->nr; r++) {
		uint32_t g = s->r[r].guard;
		if (!g)
			continue;
		for (x = s->n[g].next; x != g; x = s->n[x].next) {
			if (s->n[s->n[x].next].prev != x)
				return -1;
			if ((s->n[x].val & KIND_MASK) == K_FREE || s->n[x].exp == 0)
				return -1;
			if ((s->n[x].val & KIND_MASK) == K_RULE &&
			    !s->r[IDX(s->n[x].val)].guard)
				return -1;
		}
	}
	return 0;
}
