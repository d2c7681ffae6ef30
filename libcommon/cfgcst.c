/*
 * cfgcst.c - the signature table (CST) and the rule set of a compressed
 * trace, both interned by hash: equal signatures, and equal rule bodies,
 * are kept once.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cfg.h"

#include <stdlib.h>
#include <string.h>

#include "cfgint.h"
#include "banned.h"

static uint64_t words_hash(const int64_t *w, size_t n)
{
	return tg_hash_bytes(w, n * sizeof(int64_t), 1);
}

static int cst_grow_idx(struct tg_cfg *c)
{
	size_t nc = c->cstidxcap ? c->cstidxcap * 2 : 1024, i;
	uint32_t *ni = calloc(nc, sizeof(*ni));

	if (!ni)
		return -1;
	for (i = 0; i < c->ncst; i++) {
		size_t j = words_hash(c->words + c->cst[i].off, c->cst[i].n) & (nc - 1);
		while (ni[j])
			j = (j + 1) & (nc - 1);
		ni[j] = (uint32_t)i + 1;
	}
	free(c->cstidx);
	c->cstidx = ni;
	c->cstidxcap = nc;
	return 0;
}

/* The terminal of signature @w[0..n), added if new; -1 when out of memory
 * or when there are too many. */
int64_t tg_cfg_cst_intern(struct tg_cfg *c, const int64_t *w, size_t n, int dedupe)
{
	size_t j = 0;

	if ((c->ncst + 1) * 2 > c->cstidxcap && cst_grow_idx(c) < 0)
		return -1;
	if (dedupe) {
		j = words_hash(w, n) & (c->cstidxcap - 1);
		for (; c->cstidx[j]; j = (j + 1) & (c->cstidxcap - 1)) {
			const struct tg_cst *e = &c->cst[c->cstidx[j] - 1];
			if (e->n == n && memcmp(c->words + e->off, w, n * sizeof(int64_t)) == 0)
				return c->cstidx[j] - 1;
		}
	}
	if (c->ncst >= TG_SEQ_MAXVAL / 4 || n > UINT32_MAX)
		return -1;
	if (c->ncst == c->capcst) {
		size_t nc = c->capcst ? c->capcst * 2 : 256;
		struct tg_cst *ne = realloc(c->cst, nc * sizeof(*ne));
		struct tg_agg *na;
		if (!ne)
			return -1;
		c->cst = ne;
		if (!(na = realloc(c->agg, nc * sizeof(*na))))
			return -1;
		c->agg = na;
		c->capcst = nc;
	}
	if (c->nwords + n > c->capwords) {
		size_t nc = c->capwords ? c->capwords : 4096;
		int64_t *nw;
		while (nc < c->nwords + n)
			nc *= 2;
		if (!(nw = realloc(c->words, nc * sizeof(*nw))))
			return -1;
		c->words = nw;
		c->capwords = nc;
	}
	memcpy(c->words + c->nwords, w, n * sizeof(int64_t));
	c->cst[c->ncst].off = c->nwords;
	c->cst[c->ncst].n = (uint32_t)n;
	memset(&c->agg[c->ncst], 0, sizeof(c->agg[0]));
	c->nwords += n;
	if (dedupe) {
		c->cstidx[j] = (uint32_t)c->ncst + 1;
	} else {
		j = words_hash(w, n) & (c->cstidxcap - 1);
		while (c->cstidx[j])
			j = (j + 1) & (c->cstidxcap - 1);
		c->cstidx[j] = (uint32_t)c->ncst + 1;
	}
	c->ready = 0;
	return (int64_t)c->ncst++;
}

static uint64_t body_hash(const struct tg_sym *b, size_t n)
{
	return tg_hash_bytes(b, n * sizeof(*b), 2);
}

static int rules_grow_idx(struct tg_rules *r)
{
	size_t nc = r->idxcap ? r->idxcap * 2 : 1024, i;
	uint32_t *ni = calloc(nc, sizeof(*ni));

	if (!ni)
		return -1;
	for (i = 0; i < r->nrules; i++) {
		size_t j = body_hash(r->syms + r->roff[i], r->roff[i + 1] - r->roff[i]) & (nc - 1);
		while (ni[j])
			j = (j + 1) & (nc - 1);
		ni[j] = (uint32_t)i + 1;
	}
	free(r->idx);
	r->idx = ni;
	r->idxcap = nc;
	return 0;
}

/* The rule with body @b[0..n), added if new; UINT32_MAX when out of memory. */
uint32_t tg_rules_add(struct tg_rules *r, const struct tg_sym *b, size_t n)
{
	return tg_rules_add_from(r, b, n, 0);
}

uint32_t tg_rules_add_from(struct tg_rules *r, const struct tg_sym *b, size_t n, uint32_t from)
{
	size_t j;

	if (!r->roff) {
		if (!(r->roff = calloc(1, sizeof(uint32_t))))
			return UINT32_MAX;
		r->caproff = 1;
	}
	if ((r->nrules + 1) * 2 > r->idxcap && rules_grow_idx(r) < 0)
		return UINT32_MAX;
	j = body_hash(b, n) & (r->idxcap - 1);
	for (; r->idx[j]; j = (j + 1) & (r->idxcap - 1)) {
		uint32_t k = r->idx[j] - 1;
		/* empty bodies: no symbols yet, and NULL + 0 is UB */
		if (k >= from && r->roff[k + 1] - r->roff[k] == n &&
		    (n == 0 || memcmp(r->syms + r->roff[k], b, n * sizeof(*b)) == 0))
			return k;
	}
	if (r->nsyms + n > UINT32_MAX - 1 || r->nrules >= TG_SEQ_MAXVAL / 4)
		return UINT32_MAX;
	if (r->nsyms + n > r->capsyms) {
		size_t nc = r->capsyms ? r->capsyms : 1024;
		struct tg_sym *ns;
		while (nc < r->nsyms + n)
			nc *= 2;
		if (!(ns = realloc(r->syms, nc * sizeof(*ns))))
			return UINT32_MAX;
		r->syms = ns;
		r->capsyms = nc;
	}
	if (r->nrules + 2 > r->caproff) {
		size_t nc = r->caproff * 2 + 2;
		uint32_t *no = realloc(r->roff, nc * sizeof(*no));
		if (!no)
			return UINT32_MAX;
		r->roff = no;
		r->caproff = nc;
	}
	if (n)
		memcpy(r->syms + r->nsyms, b, n * sizeof(*b));
	r->nsyms += n;
	r->roff[r->nrules + 1] = (uint32_t)r->nsyms;
	r->idx[j] = (uint32_t)r->nrules + 1;
	return (uint32_t)r->nrules++;
}

void tg_rules_release(struct tg_rules *r)
{
	free(r->syms);
	free(r->roff);
	free(r->idx);
	memset(r, 0, sizeof(*r));
}

/* The rule set of @c, lent out as a struct tg_rules and given back. */
struct tg_rules tg_cfg_rules_take(struct tg_cfg *c)
{
	struct tg_rules r = { c->syms, c->nsyms, c->capsyms, c->roff, c->nrules, c->caproff,
			      c->ruleidx, c->ruleidxcap };

	c->syms = NULL;
	c->roff = NULL;
	c->ruleidx = NULL;
	return r;
}

void tg_cfg_rules_give(struct tg_cfg *c, struct tg_rules *r)
{
	c->syms = r->syms;
	c->nsyms = r->nsyms;
	c->capsyms = r->capsyms;
	c->roff = r->roff;
	c->nrules = r->nrules;
	c->caproff = r->caproff;
	c->ruleidx = r->idx;
	c->ruleidxcap = r->idxcap;
	c->ready = 0;
	memset(r, 0, sizeof(*r));
}

uint32_t tg_cfg_rule_add(struct tg_cfg *c, const struct tg_sym *b, size_t n)
{
	return tg_cfg_rule_add_from(c, b, n, 0);
}

uint32_t tg_cfg_rule_add_from(struct tg_cfg *c, const struct tg_sym *b, size_t n, uint32_t from)
{
	struct tg_rules r = tg_cfg_rules_take(c);
	uint32_t k = tg_rules_add_from(&r, b, n, from);

	tg_cfg_rules_give(c, &r);
	return k;
}
