/*
 * cfg.c - compressed traces (tangram-cfg(5)): compressing record streams,
 * reading, merging, optimizing and writing .cfg files, and decoding them
 * stream by stream.
 *
 * In memory a trace is its string table, its CST (signatures as word
 * arrays, interned by hash), the mean times of each signature, one rule
 * set shared by all streams (rules are hash-consed, so two streams, or two
 * parts of streams, that generate the same string share one rule: the
 * identical-grammar check of seed 004 §3.4.2), and the streams: a header,
 * a start rule and, unless their times are aggregate, their STIME payload,
 * kept compressed as it is on disk so that merging copies it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cfg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "cfgint.h"
#include "sequitur.h"
#include "stream.h"
#include "varint.h"
#include "banned.h"

enum { S_END = 0, S_META, S_STRINGS, S_CST, S_AGG, S_GRAMMAR, S_STREAMS, S_STIME, S_NTYPES };

static const char *const secname[S_NTYPES] = {
	"END", "META", "STRINGS", "CST", "AGG", "GRAMMAR", "STREAMS", "STIME",
};

#define SEC_ZLIB 1u
#define SEC_HDR 24
#define MAXRAW (1ull << 40)

struct cst {
	size_t off;
	uint32_t n;
};

struct agg {
	uint64_t count;
	unsigned __int128 dur;
	__int128 gap;
};

struct cstream {
	struct tg_cfg_stream v;	/* v.h's strings are owned */
	uint32_t rule;
	uint64_t *clock;
	size_t nclock;
	unsigned char *tz;	/* STIME payload as stored (zlib) */
	size_t tzlen;
	uint64_t tzat;		/* where its section was in the file read, 0 */
	uint64_t traw;		/* its inflated length */
};

struct tg_cfg {
	struct tg_strtab strs;
	int64_t *words;
	size_t nwords, capwords;
	struct cst *cst;
	struct agg *agg;
	size_t ncst, capcst;
	uint32_t *cstidx;	/* hash -> index + 1 */
	size_t cstidxcap;
	struct tg_sym *syms;
	size_t nsyms, capsyms;
	uint32_t *roff;		/* rule i: syms[roff[i] .. roff[i + 1]) */
	size_t nrules, caproff;
	uint32_t *ruleidx;	/* hash -> rule + 1 */
	size_t ruleidxcap;
	struct cstream *st;
	size_t nst, capst;
	/* decoding caches, rebuilt when stale */
	int ready;
	uint64_t *mdur;
	int64_t *mgap;
	uint32_t *depth;
};

int tg_cfg_is_magic(const void *buf, size_t len)
{
	return len >= TG_CFG_MAGIC_LEN && memcmp(buf, TG_CFG_MAGIC, TG_CFG_MAGIC_LEN) == 0;
}

int tg_cfg_opts_check(const struct tg_cfg_opts *o, char *err, size_t errlen)
{
	struct tg_tparams p = { o->timing, o->err_ppm, o->bits, o->samples, 0 };

	if (tg_tparams_fix(&p) < 0) {
		snprintf(err, errlen, "timing parameters out of range");
		return -1;
	}
	return 0;
}

struct tg_cfg *tg_cfg_new(void)
{
	struct tg_cfg *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (!(c->roff = calloc(1, sizeof(uint32_t)))) {
		free(c);
		return NULL;
	}
	c->caproff = 1;
	return c;
}

static int header_copy(struct tg_header *d, const struct tg_header *s)
{
	int i;

	*d = *s;
	d->host = d->cwd = NULL;
	d->argv = calloc((size_t)s->argc + 1, sizeof(char *));
	d->argc = 0;
	if (!d->argv || !(d->host = strdup(s->host ? s->host : "")) ||
	    !(d->cwd = strdup(s->cwd ? s->cwd : "")))
		return -1;
	for (i = 0; i < s->argc; i++) {
		if (!(d->argv[i] = strdup(s->argv[i] ? s->argv[i] : "")))
			return -1;
		d->argc = i + 1;
	}
	return 0;
}

static void stream_release(struct cstream *s)
{
	tg_header_release(&s->v.h);
	free(s->clock);
	free(s->tz);
	memset(s, 0, sizeof(*s));
}

static void caches_free(struct tg_cfg *c)
{
	free(c->mdur);
	free(c->mgap);
	free(c->depth);
	c->mdur = NULL;
	c->mgap = NULL;
	c->depth = NULL;
	c->ready = 0;
}

void tg_cfg_free(struct tg_cfg *c)
{
	size_t i;

	if (!c)
		return;
	tg_strtab_release(&c->strs);
	free(c->words);
	free(c->cst);
	free(c->agg);
	free(c->cstidx);
	free(c->syms);
	free(c->roff);
	free(c->ruleidx);
	for (i = 0; i < c->nst; i++)
		stream_release(&c->st[i]);
	free(c->st);
	caches_free(c);
	free(c);
}

size_t tg_cfg_nstreams(const struct tg_cfg *c)
{
	return c->nst;
}

const struct tg_cfg_stream *tg_cfg_stream(const struct tg_cfg *c, size_t i)
{
	return i < c->nst ? &c->st[i].v : NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

void tg_cfg_sizes(const struct tg_cfg *c, size_t *ncst, size_t *nrules, size_t *nsyms,
		  size_t *ngrammars)
{
	uint32_t *r = malloc((c->nst ? c->nst : 1) * sizeof(uint32_t));
	size_t i, n = 0;

	*ncst = c->ncst;
	*nrules = c->nrules;
	*nsyms = c->nsyms;
	*ngrammars = 0;
	if (!r)
		return;
	for (i = 0; i < c->nst; i++)
		r[i] = c->st[i].rule;
	qsort(r, c->nst, sizeof(uint32_t), cmp_u32);
	for (i = 0; i < c->nst; i++)
		n += i == 0 || r[i] != r[i - 1];
	free(r);
	*ngrammars = n;
}

/* ---- the CST and the rules ------------------------------------------------ */

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
static int64_t cst_intern(struct tg_cfg *c, const int64_t *w, size_t n, int dedupe)
{
	size_t j = 0;

	if ((c->ncst + 1) * 2 > c->cstidxcap && cst_grow_idx(c) < 0)
		return -1;
	if (dedupe) {
		j = words_hash(w, n) & (c->cstidxcap - 1);
		for (; c->cstidx[j]; j = (j + 1) & (c->cstidxcap - 1)) {
			const struct cst *e = &c->cst[c->cstidx[j] - 1];
			if (e->n == n && memcmp(c->words + e->off, w, n * sizeof(int64_t)) == 0)
				return c->cstidx[j] - 1;
		}
	}
	if (c->ncst >= TG_SEQ_MAXVAL / 4 || n > UINT32_MAX)
		return -1;
	if (c->ncst == c->capcst) {
		size_t nc = c->capcst ? c->capcst * 2 : 256;
		struct cst *ne = realloc(c->cst, nc * sizeof(*ne));
		struct agg *na;
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

/* A rule set being built: bodies appended, identical bodies kept once. */
struct rules {
	struct tg_sym *syms;
	size_t nsyms, capsyms;
	uint32_t *roff;
	size_t nrules, caproff;
	uint32_t *idx;
	size_t idxcap;
};

static uint64_t body_hash(const struct tg_sym *b, size_t n)
{
	return tg_hash_bytes(b, n * sizeof(*b), 2);
}

static int rules_grow_idx(struct rules *r)
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
static uint32_t rules_add(struct rules *r, const struct tg_sym *b, size_t n)
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
		if (r->roff[k + 1] - r->roff[k] == n &&
		    memcmp(r->syms + r->roff[k], b, n * sizeof(*b)) == 0)
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

static void rules_release(struct rules *r)
{
	free(r->syms);
	free(r->roff);
	free(r->idx);
	memset(r, 0, sizeof(*r));
}

/* The rule set of @c, lent out as a struct rules and given back. */
static struct rules rules_take(struct tg_cfg *c)
{
	struct rules r = { c->syms, c->nsyms, c->capsyms, c->roff, c->nrules, c->caproff,
			   c->ruleidx, c->ruleidxcap };

	c->syms = NULL;
	c->roff = NULL;
	c->ruleidx = NULL;
	return r;
}

static void rules_give(struct tg_cfg *c, struct rules *r)
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

static uint32_t rule_add(struct tg_cfg *c, const struct tg_sym *b, size_t n)
{
	struct rules r = rules_take(c);
	uint32_t k = rules_add(&r, b, n);

	rules_give(c, &r);
	return k;
}

static struct cstream *stream_new(struct tg_cfg *c)
{
	if (c->nst == c->capst) {
		size_t nc = c->capst ? c->capst * 2 : 16;
		struct cstream *ns = realloc(c->st, nc * sizeof(*ns));
		if (!ns)
			return NULL;
		c->st = ns;
		c->capst = nc;
	}
	memset(&c->st[c->nst], 0, sizeof(c->st[0]));
	return &c->st[c->nst++];
}

/* ---- rebuilding the grammar ------------------------------------------------ */

/* Room for @n more symbols in @b (a buffer of struct tg_sym). */
static int sym_reserve(struct tg_bytes *b, size_t n)
{
	size_t need = b->n + n * sizeof(struct tg_sym);

	if (need > b->cap) {
		size_t nc = b->cap ? b->cap : 4096;
		unsigned char *nb;
		while (nc < need)
			nc *= 2;
		if (!(nb = realloc(b->b, nc)))
			return -1;
		b->b = nb;
		b->cap = nc;
	}
	return 0;
}

/* Append @x to the body that starts at symbol @from of @b, fusing it with
 * an equal last symbol.  Room must be reserved. */
static void sym_emit(struct tg_bytes *b, size_t from, struct tg_sym x)
{
	struct tg_sym *base = (struct tg_sym *)(void *)b->b;
	size_t n = b->n / sizeof(struct tg_sym);

	if (n > from && base[n - 1].sym == x.sym && base[n - 1].exp <= UINT32_MAX - x.exp) {
		base[n - 1].exp += x.exp;
		return;
	}
	base[n] = x;
	b->n += sizeof(x);
}

/*
 * Replace the rules of @c by those that the DAG @body/@off over @nnodes
 * nodes generates from the streams' roots (@roots[i] for stream i, node
 * numbers), normalized: a node used once without repetition is put in
 * place, one whose body is a single symbol is replaced by it, equal
 * neighbours fuse, and identical bodies are kept once.
 */
static int rebuild(struct tg_cfg *c, size_t nnodes, const struct tg_sym *body,
		   const uint32_t *off, const uint32_t *roots)
{
	size_t nn = nnodes ? nnodes : 1, i, ns = 0, no = 0;
	uint32_t *refs = calloc(nn, sizeof(uint32_t)), *newidx = malloc(nn * sizeof(uint32_t));
	uint32_t *stack = malloc(nn * 2 * sizeof(uint32_t)), *order = malloc(nn * sizeof(uint32_t));
	uint32_t *fs = malloc(nn * sizeof(uint32_t)), *fl = malloc(nn * sizeof(uint32_t));
	uint8_t *state = calloc(nn, 1), *isroot = calloc(nn, 1);
	struct rules out = { 0 };
	struct tg_bytes tmp = { 0 };
	int rc = -1;

	if (!refs || !newidx || !stack || !order || !fs || !fl || !state || !isroot)
		goto out;
	for (i = 0; i < nnodes; i++)
		newidx[i] = UINT32_MAX;
	for (i = 0; i < c->nst; i++)
		isroot[roots[i]] = 1;
	/* iterative DFS from every root: a node is finished after its children */
	for (i = 0; i < c->nst; i++) {
		if (state[roots[i]])
			continue;
		state[roots[i]] = 1;
		stack[ns++] = roots[i];
		stack[ns++] = off[roots[i]];
		while (ns) {
			uint32_t u = stack[ns - 2], k = stack[ns - 1], q;
			int down = 0;
			for (; k < off[u + 1]; k++) {
				if (!(body[k].sym & 1))
					continue;
				q = body[k].sym >> 1;
				if (!state[q]) {
					stack[ns - 1] = k + 1;
					state[q] = 1;
					stack[ns++] = q;
					stack[ns++] = off[q];
					down = 1;
					break;
				}
			}
			if (down)
				continue;
			ns -= 2;
			state[u] = 2;
			order[no++] = u;
			for (k = off[u]; k < off[u + 1]; k++)
				if (body[k].sym & 1)
					refs[body[k].sym >> 1]++;
		}
	}
	/* children first: splice, substitute, materialize */
	for (i = 0; i < no; i++) {
		uint32_t u = order[i], k;
		fs[u] = (uint32_t)(tmp.n / sizeof(struct tg_sym));
		for (k = off[u]; k < off[u + 1]; k++) {
			struct tg_sym s = body[k];
			uint32_t q, m;
			if (!(s.sym & 1)) {
				if (sym_reserve(&tmp, 1) < 0)
					goto out;
				sym_emit(&tmp, fs[u], s);
				continue;
			}
			q = s.sym >> 1;
			if (!isroot[q] && refs[q] == 1 && s.exp == 1) {
				if (sym_reserve(&tmp, fl[q]) < 0)
					goto out;
				for (m = 0; m < fl[q]; m++)
					sym_emit(&tmp, fs[u],
						 ((const struct tg_sym *)(void *)tmp.b)[fs[q] + m]);
				continue;
			}
			if (sym_reserve(&tmp, 1) < 0)
				goto out;
			{
				const struct tg_sym *qb = (const struct tg_sym *)(void *)tmp.b + fs[q];
				struct tg_sym x;
				if (!isroot[q] && fl[q] == 1 &&
				    (uint64_t)qb[0].exp * s.exp <= UINT32_MAX) {
					x.sym = qb[0].sym;
					x.exp = qb[0].exp * s.exp;
				} else {
					if (newidx[q] == UINT32_MAX &&
					    (newidx[q] = rules_add(&out, qb, fl[q])) == UINT32_MAX)
						goto out;
					x.sym = newidx[q] << 1 | 1;
					x.exp = s.exp;
				}
				sym_emit(&tmp, fs[u], x);
			}
		}
		fl[u] = (uint32_t)(tmp.n / sizeof(struct tg_sym)) - fs[u];
		if (isroot[u] && newidx[u] == UINT32_MAX &&
		    (newidx[u] = rules_add(&out, (const struct tg_sym *)(void *)tmp.b + fs[u],
					   fl[u])) == UINT32_MAX)
			goto out;
	}
	for (i = 0; i < c->nst; i++)
		c->st[i].rule = newidx[roots[i]];
	if (!out.roff && !(out.roff = calloc(1, sizeof(uint32_t))))
		goto out;
	{
		struct rules old = rules_take(c);
		rules_release(&old);
		rules_give(c, &out);
	}
	rc = 0;
out:
	if (rc)
		rules_release(&out);
	tg_bytes_release(&tmp);
	free(refs);
	free(newidx);
	free(stack);
	free(order);
	free(fs);
	free(fl);
	free(state);
	free(isroot);
	return rc;
}

/* Rebuild the rules of @c in place (normalize, drop unused ones). */
static int renormalize(struct tg_cfg *c)
{
	struct tg_sym *body = NULL;
	uint32_t *off = NULL, *roots = NULL;
	size_t i;
	int rc = -1;

	body = malloc((c->nsyms ? c->nsyms : 1) * sizeof(*body));
	off = malloc((c->nrules + 1) * sizeof(*off));
	roots = malloc((c->nst ? c->nst : 1) * sizeof(*roots));
	if (!body || !off || !roots)
		goto out;
	if (c->nsyms)
		memcpy(body, c->syms, c->nsyms * sizeof(*body));
	memcpy(off, c->roff, (c->nrules + 1) * sizeof(*off));
	for (i = 0; i < c->nst; i++)
		roots[i] = c->st[i].rule;
	rc = rebuild(c, c->nrules, body, off, roots);
out:
	free(body);
	free(off);
	free(roots);
	return rc;
}

/* ---- compressing a record stream -------------------------------------------- */

struct cluster {
	struct tg_tenc dur, gap;
	uint64_t n;
};

struct enc {
	struct tg_sigstate st;
	struct tg_words w;
	struct tg_seq *seq;
	uint32_t *clmap;	/* terminal -> cluster, UINT32_MAX none */
	size_t nclmap;
	struct cluster *cl;
	size_t ncl, capcl;
	uint64_t *tt, *tr;	/* per thread: last true start, last restored start */
	size_t ntt;
};

static void enc_release(struct enc *e)
{
	size_t i;

	tg_sig_release(&e->st);
	tg_words_release(&e->w);
	tg_seq_free(e->seq);
	free(e->clmap);
	for (i = 0; i < e->ncl; i++) {
		tg_tenc_release(&e->cl[i].dur);
		tg_tenc_release(&e->cl[i].gap);
	}
	free(e->cl);
	free(e->tt);
	free(e->tr);
}

static int thread_room(uint64_t **a, uint64_t **b, size_t *n, uint64_t tid)
{
	size_t nn = *n ? *n : 8;
	uint64_t *na, *nb;

	if (tid < *n)
		return 0;
	if (tid > (1u << 20))
		return -1;
	while (nn <= tid)
		nn *= 2;
	if (!(na = realloc(*a, nn * sizeof(*na))))
		return -1;
	*a = na;
	if (!(nb = realloc(*b, nn * sizeof(*nb))))
		return -1;
	*b = nb;
	memset(na + *n, 0, (nn - *n) * sizeof(*na));
	memset(nb + *n, 0, (nn - *n) * sizeof(*nb));
	*n = nn;
	return 0;
}

static struct cluster *cluster_of(struct enc *e, uint32_t t)
{
	if (t >= e->nclmap) {
		size_t nn = e->nclmap ? e->nclmap : 256, i;
		uint32_t *nm;
		while (nn <= t)
			nn *= 2;
		if (!(nm = realloc(e->clmap, nn * sizeof(*nm))))
			return NULL;
		for (i = e->nclmap; i < nn; i++)
			nm[i] = UINT32_MAX;
		e->clmap = nm;
		e->nclmap = nn;
	}
	if (e->clmap[t] == UINT32_MAX) {
		if (e->ncl == e->capcl) {
			size_t nc = e->capcl ? e->capcl * 2 : 64;
			struct cluster *n = realloc(e->cl, nc * sizeof(*n));
			if (!n)
				return NULL;
			e->cl = n;
			e->capcl = nc;
		}
		memset(&e->cl[e->ncl], 0, sizeof(e->cl[0]));
		e->clmap[t] = (uint32_t)e->ncl++;
	}
	return &e->cl[e->clmap[t]];
}

static int deflate_bytes(const unsigned char *in, size_t n, unsigned char **out, size_t *outn)
{
	uLongf len = compressBound((uLong)n);
	unsigned char *b = malloc(len ? len : 1);

	if (!b)
		return -1;
	if (compress2(b, &len, in, (uLong)n, 6) != Z_OK) {
		free(b);
		return -1;
	}
	*out = b;
	*outn = len;
	return 0;
}

/* The STIME payload of a stream: mode, clusters. */
static int stime_build(struct enc *e, const struct tg_tparams *tp, struct cstream *s)
{
	struct tg_bytes b = { 0 };
	size_t i;
	int rc = -1;

	if (tg_bytes_uvar(&b, (uint64_t)tp->mode) < 0 || tg_bytes_uvar(&b, e->ncl) < 0)
		goto out;
	for (i = 0; i < e->ncl; i++)
		if (tg_bytes_uvar(&b, e->cl[i].n) < 0 ||
		    tg_tenc_finish(&e->cl[i].dur, tp, &b) < 0 ||
		    tg_tenc_finish(&e->cl[i].gap, tp, &b) < 0)
			goto out;
	if (deflate_bytes(b.b, b.n, &s->tz, &s->tzlen) < 0)
		goto out;
	s->traw = b.n;
	rc = 0;
out:
	tg_bytes_release(&b);
	return rc;
}

int tg_cfg_add_rec(struct tg_cfg *c, struct tg_reader *r, const struct tg_cfg_opts *o,
		   char *err, size_t errlen)
{
	struct tg_tparams tp = { o->timing, o->err_ppm, o->bits, o->samples, 0 };
	const struct tg_header *h = tg_reader_header(r);
	struct tg_sym *syms = NULL;
	uint32_t *off = NULL, nr = 0, k, *map = NULL;
	struct cstream *s;
	struct enc e;
	struct tg_rec rec;
	int rc, damaged = 0, ret = -1;

	memset(&e, 0, sizeof(e));
	if (tg_tparams_fix(&tp) < 0) {
		snprintf(err, errlen, "timing parameters out of range");
		return -1;
	}
	if (!(s = stream_new(c)) || header_copy(&s->v.h, h) < 0)
		goto oom;
	s->v.timing = tp.mode;
	s->v.err_ppm = tp.err_ppm;
	s->v.bits = tp.bits;
	s->v.samples = tp.samples;
	tg_sig_init(&e.st, h->rank, -1);
	if (!(e.seq = tg_seq_new()))
		goto oom;
	while ((rc = tg_reader_next(r, &rec)) > 0) {
		int64_t t;
		int erc = tg_sig_encode(&e.st, &c->strs, &rec, &e.w);
		if (erc == -2) {
			snprintf(err, errlen, "record %llu: %s cannot be compressed by this version",
				 (unsigned long long)s->v.records,
				 rec.type == TG_REC_CALL && rec.call ? rec.call->name : "a record type");
			goto fail;
		}
		if (erc < 0 || (t = cst_intern(c, e.w.w, e.w.n, 1)) < 0 ||
		    tg_seq_append(e.seq, (uint32_t)t, 1) < 0)
			goto oom;
		s->v.records++;
		if (rec.type != TG_REC_CALL)
			continue;
		s->v.calls++;
		if (thread_room(&e.tt, &e.tr, &e.ntt, rec.tid) < 0)
			goto oom;
		c->agg[t].count++;
		c->agg[t].dur += rec.dur;
		c->agg[t].gap += (int64_t)(rec.tstart - e.tt[rec.tid]);
		e.tt[rec.tid] = rec.tstart;
		if (rec.tstart + rec.dur > s->v.end)
			s->v.end = rec.tstart + rec.dur;
		if (tp.mode != TG_T_AGG) {
			struct cluster *cl = cluster_of(&e, (uint32_t)t);
			int64_t g;
			if (!cl)
				goto oom;
			cl->n++;
			tg_tenc_put(&cl->dur, &tp, 0, (int64_t)rec.dur);
			g = tg_tenc_put(&cl->gap, &tp, 1, (int64_t)(rec.tstart - e.tr[rec.tid]));
			e.tr[rec.tid] += (uint64_t)g;
		}
	}
	if (rc < 0)
		damaged = 1;
	s->v.rank = e.st.srank;
	s->clock = e.st.clock;
	s->nclock = e.st.nclock;
	e.st.clock = NULL;
	e.st.nclock = 0;
	if (tp.mode != TG_T_AGG && stime_build(&e, &tp, s) < 0)
		goto oom;
	if (tg_seq_export(e.seq, &syms, &off, &nr) < 0 ||
	    !(map = malloc((nr ? nr : 1) * sizeof(uint32_t))))
		goto oom;
	/* the stream's rules join the shared set: rule refs renumbered,
	 * signatures are already the CST's */
	for (k = 0; k < nr; k++) {
		uint32_t i;
		for (i = off[k]; i < off[k + 1]; i++)
			if (syms[i].sym & 1)
				syms[i].sym = map[syms[i].sym >> 1] << 1 | 1;
		if ((map[k] = rule_add(c, syms + off[k], off[k + 1] - off[k])) == UINT32_MAX)
			goto oom;
	}
	s->rule = map[nr - 1];
	ret = damaged;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	ret = -1;
out:
	free(syms);
	free(off);
	free(map);
	enc_release(&e);
	return ret;
}

/* ---- merging ------------------------------------------------------------------- */

int tg_cfg_merge(struct tg_cfg *dst, const struct tg_cfg *src, char *err, size_t errlen)
{
	uint32_t *smap = NULL, *tmap = NULL, *rmap = NULL;
	struct tg_words w = { 0 };
	size_t i;
	int ret = -1;

	smap = malloc((src->strs.n ? src->strs.n : 1) * sizeof(uint32_t));
	tmap = malloc((src->ncst ? src->ncst : 1) * sizeof(uint32_t));
	rmap = malloc((src->nrules ? src->nrules : 1) * sizeof(uint32_t));
	if (!smap || !tmap || !rmap)
		goto oom;
	for (i = 0; i < src->strs.n; i++) {
		int64_t k = tg_strtab_intern(&dst->strs, src->strs.s[i], src->strs.len[i]);
		if (k < 0)
			goto oom;
		smap[i] = (uint32_t)k;
	}
	for (i = 0; i < src->ncst; i++) {
		const struct cst *e = &src->cst[i];
		int64_t t;
		int rc;
		w.n = 0;
		for (size_t j = 0; j < e->n; j++)
			if (tg_words_push(&w, src->words[e->off + j]) < 0)
				goto oom;
		rc = tg_sig_check(w.w, w.n, src->strs.n, smap);
		if (rc < 0) {
			snprintf(err, errlen, "signature %zu cannot be merged%s", i,
				 rc == -2 ? " (a function this version does not know)" : "");
			goto fail;
		}
		if ((t = cst_intern(dst, w.w, w.n, 1)) < 0)
			goto oom;
		tmap[i] = (uint32_t)t;
		dst->agg[t].count += src->agg[i].count;
		dst->agg[t].dur += src->agg[i].dur;
		dst->agg[t].gap += src->agg[i].gap;
	}
	for (i = 0; i < src->nrules; i++) {
		uint32_t a = src->roff[i], b = src->roff[i + 1], j;
		struct tg_sym *body = malloc((b - a ? b - a : 1) * sizeof(*body));
		if (!body)
			goto oom;
		for (j = a; j < b; j++) {
			body[j - a] = src->syms[j];
			body[j - a].sym = src->syms[j].sym & 1 ? rmap[src->syms[j].sym >> 1] << 1 | 1
							      : tmap[src->syms[j].sym >> 1] << 1;
		}
		rmap[i] = rule_add(dst, body, b - a);
		free(body);
		if (rmap[i] == UINT32_MAX)
			goto oom;
	}
	for (i = 0; i < src->nst; i++) {
		const struct cstream *ss = &src->st[i];
		struct cstream *ds = stream_new(dst);
		if (!ds)
			goto oom;
		ds->v = ss->v;
		memset(&ds->v.h, 0, sizeof(ds->v.h));
		ds->rule = rmap[ss->rule];
		if (header_copy(&ds->v.h, &ss->v.h) < 0)
			goto oom;
		if (ss->nclock) {
			if (!(ds->clock = malloc(ss->nclock * sizeof(uint64_t))))
				goto oom;
			memcpy(ds->clock, ss->clock, ss->nclock * sizeof(uint64_t));
			ds->nclock = ss->nclock;
		}
		if (ss->tz) {
			if (!(ds->tz = malloc(ss->tzlen)))
				goto oom;
			memcpy(ds->tz, ss->tz, ss->tzlen);
			ds->tzlen = ss->tzlen;
			ds->traw = ss->traw;
		}
	}
	dst->ready = 0;
	ret = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	ret = -1;
out:
	tg_words_release(&w);
	free(smap);
	free(tmap);
	free(rmap);
	return ret;
}

/* ---- the final Sequitur pass -------------------------------------------------------- */

int tg_cfg_optimize(struct tg_cfg *c)
{
	struct tg_seq *q = NULL;
	struct tg_sym *gs = NULL, *body = NULL;
	uint32_t *goff = NULL, gn = 0, *off = NULL, *roots = NULL, *segstart = NULL;
	size_t i, nb = 0, nt, nold;
	int rc = -1;

	if (renormalize(c) < 0)
		return -1;
	nold = c->nrules;
	nt = c->ncst;
	if (c->nst < 2 || nt + 2 * nold + 2 > TG_SEQ_MAXVAL)
		return 0;
	/* every rule body in turn, each closed by a separator of its own,
	 * over the values: terminal t -> t, rule r -> nt + r */
	if (!(q = tg_seq_new()))
		return -1;
	for (i = 0; i < nold; i++) {
		uint32_t k;
		for (k = c->roff[i]; k < c->roff[i + 1]; k++) {
			uint32_t s = c->syms[k].sym;
			if (tg_seq_append(q, s & 1 ? (uint32_t)(nt + (s >> 1)) : s >> 1,
					  c->syms[k].exp) < 0)
				goto out;
		}
		if (tg_seq_append(q, (uint32_t)(nt + nold + i), 1) < 0)
			goto out;
	}
	if (tg_seq_export(q, &gs, &goff, &gn) < 0)
		goto out;
	tg_seq_free(q);
	q = NULL;
	/* nodes: old rules 0..nold-1 (their new bodies are the segments of
	 * the pass's start rule), then the pass's other rules */
	{
		size_t nnodes = nold + gn - 1, total = goff[gn], k;
		uint32_t start = gn - 1;
		body = malloc((total ? total : 1) * sizeof(*body));
		off = malloc((nnodes + 1) * sizeof(*off));
		roots = malloc((c->nst ? c->nst : 1) * sizeof(*roots));
		segstart = malloc((nold + 1) * sizeof(*segstart));
		if (!body || !off || !roots || !segstart)
			goto out;
		/* a pass value v maps to: terminal v, old rule v - nt */
#define MAPV(v) ((v) < nt ? (uint32_t)(v) << 1 : (uint32_t)((v) - nt) << 1 | 1)
		/* segments of the start rule */
		{
			size_t seg = 0;
			segstart[0] = goff[start];
			for (k = goff[start]; k < goff[start + 1]; k++) {
				uint32_t s = gs[k].sym;
				if (!(s & 1) && (s >> 1) >= nt + nold)
					segstart[++seg] = (uint32_t)k + 1;
			}
			if (seg != nold)
				goto out;
		}
		for (i = 0; i < nold; i++) {
			off[i] = (uint32_t)nb;
			for (k = segstart[i]; k + 1 < segstart[i + 1]; k++) {
				uint32_t s = gs[k].sym;
				body[nb].exp = gs[k].exp;
				body[nb].sym = s & 1 ? (uint32_t)(nold + (s >> 1)) << 1 | 1 : MAPV(s >> 1);
				nb++;
			}
		}
		for (i = 0; i + 1 < gn; i++) {
			off[nold + i] = (uint32_t)nb;
			for (k = goff[i]; k < goff[i + 1]; k++) {
				uint32_t s = gs[k].sym;
				body[nb].exp = gs[k].exp;
				body[nb].sym = s & 1 ? (uint32_t)(nold + (s >> 1)) << 1 | 1 : MAPV(s >> 1);
				nb++;
			}
		}
#undef MAPV
		off[nnodes] = (uint32_t)nb;
		for (i = 0; i < c->nst; i++)
			roots[i] = c->st[i].rule;
		rc = rebuild(c, nnodes, body, off, roots);
	}
out:
	tg_seq_free(q);
	free(gs);
	free(goff);
	free(body);
	free(off);
	free(roots);
	free(segstart);
	return rc;
}

/* ---- writing --------------------------------------------------------------------- */

static int put_section(struct tg_stream *s, unsigned type, const unsigned char *p, size_t n,
		       int compress)
{
	unsigned char hdr[SEC_HDR], *z = NULL;
	size_t zn = 0;
	unsigned flags = 0;
	uint32_t crc;
	int rc;

	if (compress && n > 64 && deflate_bytes(p, n, &z, &zn) == 0 && zn < n)
		flags = SEC_ZLIB;
	hdr[0] = (unsigned char)type;
	hdr[1] = (unsigned char)(type >> 8);
	hdr[2] = (unsigned char)flags;
	hdr[3] = 0;
	{
		uint64_t stored = flags ? zn : n, raw = n;
		int i;
		for (i = 0; i < 8; i++) {
			hdr[4 + i] = (unsigned char)(stored >> (8 * i));
			hdr[12 + i] = (unsigned char)(raw >> (8 * i));
		}
	}
	crc = (uint32_t)crc32(0L, flags ? z : p, (uInt)(flags ? zn : n));
	tg_put_le32(hdr + 20, crc);
	rc = tg_stream_write(s, hdr, SEC_HDR) < 0 ||
	     tg_stream_write(s, flags ? z : p, flags ? zn : n) < 0 ? -1 : 0;
	free(z);
	return rc;
}

/* A stored section: the STIME payload, already deflated. */
static int put_stored(struct tg_stream *s, unsigned type, const unsigned char *z, size_t zn,
		      uint64_t raw)
{
	unsigned char hdr[SEC_HDR];
	int i;

	hdr[0] = (unsigned char)type;
	hdr[1] = (unsigned char)(type >> 8);
	hdr[2] = SEC_ZLIB;
	hdr[3] = 0;
	for (i = 0; i < 8; i++) {
		hdr[4 + i] = (unsigned char)((uint64_t)zn >> (8 * i));
		hdr[12 + i] = (unsigned char)(raw >> (8 * i));
	}
	tg_put_le32(hdr + 20, (uint32_t)crc32(0L, z, (uInt)zn));
	return tg_stream_write(s, hdr, SEC_HDR) < 0 || tg_stream_write(s, z, zn) < 0 ? -1 : 0;
}

static int put_str(struct tg_bytes *b, const char *s)
{
	size_t n = strlen(s);

	return tg_bytes_uvar(b, n) < 0 || tg_bytes_put(b, s, n) < 0 ? -1 : 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* "0-3,7" for the sorted distinct ranks of the streams. */
static void ranks_text(const struct tg_cfg *c, char *buf, size_t cap)
{
	int64_t *r = malloc((c->nst ? c->nst : 1) * sizeof(int64_t));
	size_t i, n = 0, o = 0;

	buf[0] = 0;
	if (!r)
		return;
	for (i = 0; i < c->nst; i++)
		if (c->st[i].v.rank >= 0)
			r[n++] = c->st[i].v.rank;
	qsort(r, n, sizeof(int64_t), cmp_i64);
	for (i = 0; i < n && o + 48 < cap;) {
		size_t j = i;
		while (j + 1 < n && r[j + 1] <= r[j] + 1)
			j++;
		o += (size_t)snprintf(buf + o, cap - o, "%s%lld", o ? "," : "", (long long)r[i]);
		if (r[j] != r[i])
			o += (size_t)snprintf(buf + o, cap - o, "-%lld", (long long)r[j]);
		i = j + 1;
	}
	free(r);
}

static int meta_build(const struct tg_cfg *c, const char *writer, struct tg_bytes *b)
{
	static const char *const tnames[] = { "aggregate", "lossless", "binned", "hist", "cfg" };
	char buf[4096];
	const char *hosts[64];
	uint64_t calls = 0;
	size_t i, j, o = 0, nh = 0, ncst, nrules, nsyms, ngr;
	int modes = 0;

	for (i = 0; i < c->nst; i++) {
		calls += c->st[i].v.calls;
		modes |= 1 << c->st[i].v.timing;
	}
	if (put_str(b, "writer") < 0 || put_str(b, writer) < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%zu", c->nst);
	if (put_str(b, "streams") < 0 || put_str(b, buf) < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)calls);
	if (put_str(b, "calls") < 0 || put_str(b, buf) < 0)
		return -1;
	tg_cfg_sizes(c, &ncst, &nrules, &nsyms, &ngr);
	snprintf(buf, sizeof(buf), "%zu", ngr);
	if (put_str(b, "grammars") < 0 || put_str(b, buf) < 0)
		return -1;
	ranks_text(c, buf, sizeof(buf));
	if (put_str(b, "ranks") < 0 || put_str(b, buf) < 0)
		return -1;
	buf[0] = 0;
	for (i = 0; i < c->nst && nh < 64; i++) {	/* the first 64 hosts */
		for (j = 0; j < nh && strcmp(hosts[j], c->st[i].v.h.host) != 0; j++)
			;
		if (j == nh && o + 60 < sizeof(buf)) {
			hosts[nh++] = c->st[i].v.h.host;
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%.50s", o ? "," : "",
					      c->st[i].v.h.host);
		}
	}
	if (put_str(b, "hosts") < 0 || put_str(b, buf) < 0)
		return -1;
	o = 0;
	buf[0] = 0;
	for (i = 0; i < TG_T_NMODES; i++)
		if (modes & (1 << i))
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", o ? "," : "", tnames[i]);
	if (put_str(b, "timing") < 0 || put_str(b, buf) < 0)
		return -1;
	return 0;
}

int tg_cfg_write(struct tg_cfg *c, struct tg_stream *s, const char *writer)
{
	struct tg_bytes b = { 0 };
	uint64_t prev[3];
	unsigned char head[12];
	size_t i, k;
	int rc = -1;

	/* the streams' header strings go in the string table too */
	for (i = 0; i < c->nst; i++) {
		const struct tg_header *h = &c->st[i].v.h;
		int a;
		if (tg_strtab_intern(&c->strs, h->host, strlen(h->host)) < 0 ||
		    tg_strtab_intern(&c->strs, h->cwd, strlen(h->cwd)) < 0)
			goto out;
		for (a = 0; a < h->argc; a++)
			if (tg_strtab_intern(&c->strs, h->argv[a], strlen(h->argv[a])) < 0)
				goto out;
	}
	memcpy(head, TG_CFG_MAGIC, TG_CFG_MAGIC_LEN);
	head[8] = TG_CFG_VERSION;
	head[9] = 0;
	head[10] = head[11] = 0;
	if (tg_stream_write(s, head, sizeof(head)) < 0)
		goto out;
	if (meta_build(c, writer, &b) < 0 || put_section(s, S_META, b.b, b.n, 1) < 0)
		goto out;
	b.n = 0;
	if (tg_bytes_uvar(&b, c->strs.n) < 0)
		goto out;
	for (i = 0; i < c->strs.n; i++)
		if (tg_bytes_uvar(&b, c->strs.len[i]) < 0 ||
		    tg_bytes_put(&b, c->strs.s[i], c->strs.len[i]) < 0)
			goto out;
	if (put_section(s, S_STRINGS, b.b, b.n, 1) < 0)
		goto out;
	b.n = 0;
	if (tg_bytes_uvar(&b, c->ncst) < 0)
		goto out;
	for (i = 0; i < c->ncst; i++) {
		if (tg_bytes_uvar(&b, c->cst[i].n) < 0)
			goto out;
		for (k = 0; k < c->cst[i].n; k++)
			if (tg_bytes_svar(&b, c->words[c->cst[i].off + k]) < 0)
				goto out;
	}
	if (put_section(s, S_CST, b.b, b.n, 1) < 0)
		goto out;
	b.n = 0;
	if (tg_bytes_uvar(&b, c->ncst) < 0)
		goto out;
	for (i = 0; i < c->ncst; i++) {
		const struct agg *a = &c->agg[i];
		uint64_t md = a->count ? (uint64_t)((a->dur + a->count / 2) / a->count) : 0;
		int64_t mg = 0;
		if (a->count) {
			__int128 g = a->gap, n = (__int128)a->count;
			mg = (int64_t)(g >= 0 ? (g + n / 2) / n : -((-g + n / 2) / n));
		}
		if (tg_bytes_uvar(&b, a->count) < 0 || tg_bytes_uvar(&b, md) < 0 ||
		    tg_bytes_svar(&b, mg) < 0)
			goto out;
	}
	if (put_section(s, S_AGG, b.b, b.n, 1) < 0)
		goto out;
	b.n = 0;
	if (tg_bytes_uvar(&b, c->nrules) < 0)
		goto out;
	for (i = 0; i < c->nrules; i++) {
		if (tg_bytes_uvar(&b, c->roff[i + 1] - c->roff[i]) < 0)
			goto out;
		for (k = c->roff[i]; k < c->roff[i + 1]; k++)
			if (tg_bytes_uvar(&b, c->syms[k].sym) < 0 ||
			    tg_bytes_uvar(&b, c->syms[k].exp - 1) < 0)
				goto out;
	}
	if (put_section(s, S_GRAMMAR, b.b, b.n, 1) < 0)
		goto out;
	b.n = 0;
	if (tg_bytes_uvar(&b, c->nst) < 0)
		goto out;
	memset(prev, 0, sizeof(prev));
	for (i = 0; i < c->nst; i++) {
		const struct cstream *st = &c->st[i];
		const struct tg_header *h = &st->v.h;
		struct tg_bytes e = { 0 };
		int64_t ref;
		int a, bad = 0;
		bad |= tg_bytes_uvar(&e, h->flags) < 0;
		bad |= tg_bytes_svar(&e, h->rank) < 0;
		bad |= tg_bytes_uvar(&e, h->world) < 0;
		/* differences from the previous header: ranks of a run have
		 * close pids and clock bases */
		bad |= tg_bytes_svar(&e, (int64_t)(h->pid - prev[0])) < 0;
		bad |= tg_bytes_svar(&e, (int64_t)(h->ppid - prev[1])) < 0;
		bad |= tg_bytes_svar(&e, (int64_t)(h->clock_base - prev[2])) < 0;
		prev[0] = h->pid;
		prev[1] = h->ppid;
		prev[2] = h->clock_base;
		ref = tg_strtab_intern(&c->strs, h->host, strlen(h->host));
		bad |= ref < 0 || tg_bytes_uvar(&e, (uint64_t)ref + 1) < 0;
		ref = tg_strtab_intern(&c->strs, h->cwd, strlen(h->cwd));
		bad |= ref < 0 || tg_bytes_uvar(&e, (uint64_t)ref + 1) < 0;
		bad |= tg_bytes_uvar(&e, (uint64_t)h->argc) < 0;
		for (a = 0; a < h->argc; a++) {
			ref = tg_strtab_intern(&c->strs, h->argv[a], strlen(h->argv[a]));
			bad |= ref < 0 || tg_bytes_uvar(&e, (uint64_t)ref + 1) < 0;
		}
		bad |= tg_bytes_svar(&e, st->v.rank) < 0;
		bad |= tg_bytes_uvar(&e, st->v.records) < 0;
		bad |= tg_bytes_uvar(&e, st->v.calls) < 0;
		bad |= tg_bytes_uvar(&e, st->rule) < 0;
		bad |= tg_bytes_uvar(&e, st->v.end) < 0;
		bad |= tg_bytes_uvar(&e, (uint64_t)st->v.timing) < 0;
		bad |= tg_bytes_uvar(&e, st->v.err_ppm) < 0;
		bad |= tg_bytes_uvar(&e, st->v.bits) < 0;
		bad |= tg_bytes_uvar(&e, st->v.samples) < 0;
		bad |= tg_bytes_uvar(&e, st->nclock) < 0;
		for (k = 0; k < st->nclock; k++)
			bad |= tg_bytes_uvar(&e, st->clock[k]) < 0;
		bad |= tg_bytes_uvar(&b, e.n) < 0 || tg_bytes_put(&b, e.b, e.n) < 0;
		tg_bytes_release(&e);
		if (bad)
			goto out;
	}
	if (put_section(s, S_STREAMS, b.b, b.n, 1) < 0)
		goto out;
	for (i = 0; i < c->nst; i++)
		if (c->st[i].v.timing != TG_CFG_AGGREGATE &&
		    put_stored(s, S_STIME, c->st[i].tz, c->st[i].tzlen, c->st[i].traw) < 0)
			goto out;
	if (put_section(s, S_END, NULL, 0, 0) < 0)
		goto out;
	rc = tg_stream_flush(s);
out:
	tg_bytes_release(&b);
	return rc;
}

/* ---- reading ------------------------------------------------------------------------ */

struct sec {
	int present;
	unsigned flags;
	uint64_t at;		/* file offset of its header */
	const unsigned char *p;	/* stored bytes */
	uint64_t stored, raw;
	unsigned char *data;	/* inflated (or a copy) */
};

/* A parser over one section's payload. */
struct pc {
	const unsigned char *p, *end, *base;
	const char *name;
	uint64_t at;
	char *err;
	size_t errlen;
};

static int perr(struct pc *x, const char *what)
{
	snprintf(x->err, x->errlen, "corrupt section %s at byte %llu (%s at payload byte %llu)",
		 x->name, (unsigned long long)x->at, what,
		 (unsigned long long)(x->p - x->base));
	return -1;
}

static int pu(struct pc *x, uint64_t *v)
{
	return tg_get_uvar(&x->p, x->end, v) < 0 ? perr(x, "bad varint") : 0;
}

static int ps(struct pc *x, int64_t *v)
{
	return tg_get_svar(&x->p, x->end, v) < 0 ? perr(x, "bad varint") : 0;
}

/* A count of items, each taking at least one byte of what is left. */
static int pcount(struct pc *x, uint64_t *v, uint64_t per)
{
	if (pu(x, v) < 0)
		return -1;
	if (*v > (uint64_t)(x->end - x->p) / (per ? per : 1))
		return perr(x, "count larger than the section");
	return 0;
}

static int inflate_exact(const unsigned char *z, size_t zn, uint64_t raw, unsigned char **out)
{
	uLongf len = (uLongf)raw;
	unsigned char *b;

	if (raw > MAXRAW || !(b = malloc(raw ? raw : 1)))
		return -1;
	if (uncompress(b, &len, z, (uLong)zn) != Z_OK || len != raw) {
		free(b);
		return -1;
	}
	*out = b;
	return 0;
}

static int sec_open(struct sec *sc, int type, struct pc *x, char *err, size_t errlen)
{
	x->name = secname[type];
	x->at = sc->at;
	x->err = err;
	x->errlen = errlen;
	if (sc->flags & SEC_ZLIB) {
		if (inflate_exact(sc->p, sc->stored, sc->raw, &sc->data) < 0) {
			snprintf(err, errlen, "corrupt section %s at byte %llu (zlib data)",
				 secname[type], (unsigned long long)sc->at);
			return -1;
		}
		x->p = x->base = sc->data;
	} else {
		x->p = x->base = sc->p;
	}
	x->end = x->p + sc->raw;
	return 0;
}

static int read_all(struct tg_stream *s, unsigned char **out, size_t *outn)
{
	size_t cap = 1 << 16, n = 0;
	unsigned char *b = malloc(cap), *nb;
	long got;

	if (!b)
		return -1;
	for (;;) {
		if (n == cap) {
			if (!(nb = realloc(b, cap * 2))) {
				free(b);
				return -1;
			}
			b = nb;
			cap *= 2;
		}
		got = tg_stream_read(s, b + n, cap - n);
		if (got < 0) {
			free(b);
			return -1;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	*out = b;
	*outn = n;
	return 0;
}

static char *pstr(struct pc *x, const struct tg_cfg *c)
{
	uint64_t ref;

	if (pu(x, &ref) < 0)
		return NULL;
	if (ref == 0 || ref > c->strs.n) {
		perr(x, "bad string reference");
		return NULL;
	}
	return c->strs.s[ref - 1];
}

static int parse_streams(struct tg_cfg *c, struct pc *x, const uint32_t *rmap,
			 const uint64_t *rlen, uint64_t nrules)
{
	uint64_t n, i, len, v, prev[3] = { 0, 0, 0 };
	int64_t sv, d[3];

	if (pcount(x, &n, 1) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		struct pc e;
		struct cstream *s;
		struct tg_header h;
		uint64_t argc, a, nclock;
		char *str;
		if (pcount(x, &len, 1) < 0)
			return -1;
		e = *x;
		e.end = x->p + len;
		x->p += len;
		if (!(s = stream_new(c)))
			return perr(x, "out of memory");
		memset(&h, 0, sizeof(h));
		h.version = TG_REC_VERSION;
		if (pu(&e, &v) < 0)
			return -1;
		h.flags = (unsigned)v;
		if (ps(&e, &h.rank) < 0 || pu(&e, &h.world) < 0 || ps(&e, &d[0]) < 0 ||
		    ps(&e, &d[1]) < 0 || ps(&e, &d[2]) < 0)
			return -1;
		h.pid = prev[0] += (uint64_t)d[0];
		h.ppid = prev[1] += (uint64_t)d[1];
		h.clock_base = prev[2] += (uint64_t)d[2];
		if (!(str = pstr(&e, c)) || !(s->v.h.host = strdup(str)))
			return str ? perr(x, "out of memory") : -1;
		if (!(str = pstr(&e, c)) || !(s->v.h.cwd = strdup(str)))
			return str ? perr(x, "out of memory") : -1;
		if (pcount(&e, &argc, 1) < 0)
			return -1;
		if (!(s->v.h.argv = calloc(argc + 1, sizeof(char *))))
			return perr(x, "out of memory");
		for (a = 0; a < argc; a++) {
			if (!(str = pstr(&e, c)) || !(s->v.h.argv[a] = strdup(str)))
				return str ? perr(x, "out of memory") : -1;
			s->v.h.argc = (int)a + 1;
		}
		s->v.h.version = h.version;
		s->v.h.flags = h.flags;
		s->v.h.rank = h.rank;
		s->v.h.world = h.world;
		s->v.h.pid = h.pid;
		s->v.h.ppid = h.ppid;
		s->v.h.clock_base = h.clock_base;
		if (ps(&e, &sv) < 0)
			return -1;
		s->v.rank = sv;
		if (pu(&e, &s->v.records) < 0 || pu(&e, &s->v.calls) < 0 || pu(&e, &v) < 0)
			return -1;
		if (v >= nrules)
			return perr(&e, "bad rule");
		s->rule = rmap[v];
		if (rlen[v] != s->v.records)
			return perr(&e, "the rule does not generate as many records as the stream has");
		if (pu(&e, &s->v.end) < 0 || pu(&e, &v) < 0)
			return -1;
		s->v.timing = (int)(v < TG_T_NMODES ? v : TG_T_NMODES);
		{
			uint64_t ppm, bits, samples;
			struct tg_tparams tp;
			if (pu(&e, &ppm) < 0 || pu(&e, &bits) < 0 || pu(&e, &samples) < 0)
				return -1;
			tp.mode = s->v.timing;
			tp.err_ppm = (uint32_t)ppm;
			tp.bits = (uint32_t)bits;
			tp.samples = (uint32_t)samples;
			if (ppm > UINT32_MAX || bits > 64 || samples > UINT32_MAX ||
			    tg_tparams_fix(&tp) < 0)
				return perr(&e, "bad timing parameters");
			s->v.err_ppm = tp.err_ppm;
			s->v.bits = tp.bits;
			s->v.samples = tp.samples;
		}
		if (pcount(&e, &nclock, 1) < 0)
			return -1;
		if (nclock && !(s->clock = malloc(nclock * sizeof(uint64_t))))
			return perr(x, "out of memory");
		for (a = 0; a < nclock; a++)
			if (pu(&e, &s->clock[a]) < 0)
				return -1;
		s->nclock = (size_t)nclock;
	}
	if (x->p != x->end)
		return perr(x, "trailing bytes");
	return 0;
}

struct tg_cfg *tg_cfg_read(struct tg_stream *s, char *err, size_t errlen)
{
	struct sec sec[S_NTYPES];
	struct sec *stime = NULL;
	size_t nstime = 0, capstime = 0, n = 0, i;
	unsigned char *buf = NULL;
	uint64_t pos, *rlen = NULL;
	uint32_t *rmap = NULL;
	struct tg_cfg *c = NULL;
	struct tg_words w = { 0 };
	struct tg_sym *body = NULL;
	struct pc x;
	int ok = 0, ended = 0;

	memset(sec, 0, sizeof(sec));
	if (read_all(s, &buf, &n) < 0) {
		snprintf(err, errlen, "%s", strerror(errno ? errno : ENOMEM));
		return NULL;
	}
	if (!tg_cfg_is_magic(buf, n)) {
		snprintf(err, errlen, "not a Tangram compressed trace (bad magic)");
		goto out;
	}
	if (n < 12) {
		snprintf(err, errlen, "truncated header at byte %zu", n);
		goto out;
	}
	if (buf[8] != TG_CFG_VERSION || buf[9] != 0) {
		snprintf(err, errlen, "unsupported compressed trace version %u", buf[8] | buf[9] << 8);
		goto out;
	}
	for (pos = 12; pos < n;) {
		unsigned type, flags;
		uint64_t stored = 0, raw = 0;
		struct sec *sc;
		int k;
		if (n - pos < SEC_HDR) {
			snprintf(err, errlen, "truncated section header at byte %llu",
				 (unsigned long long)pos);
			goto out;
		}
		type = buf[pos] | buf[pos + 1] << 8;
		flags = buf[pos + 2] | buf[pos + 3] << 8;
		for (k = 7; k >= 0; k--) {
			stored = stored << 8 | buf[pos + 4 + k];
			raw = raw << 8 | buf[pos + 12 + k];
		}
		if (stored > n - pos - SEC_HDR) {
			snprintf(err, errlen, "truncated section %s at byte %llu",
				 type < S_NTYPES ? secname[type] : "(unknown)",
				 (unsigned long long)pos);
			goto out;
		}
		if ((uint32_t)crc32(0L, buf + pos + SEC_HDR, (uInt)stored) !=
		    tg_get_le32(buf + pos + 20)) {
			snprintf(err, errlen, "corrupt section %s at byte %llu (checksum)",
				 type < S_NTYPES ? secname[type] : "(unknown)",
				 (unsigned long long)pos);
			goto out;
		}
		/* zlib inflates at most 1032 to 1: a larger length is damage */
		if (type < S_NTYPES && (!(flags & SEC_ZLIB) ? raw != stored
				       : raw > MAXRAW || raw > stored * 1032 + 1024)) {
			snprintf(err, errlen, "corrupt section %s at byte %llu (length)",
				 secname[type], (unsigned long long)pos);
			goto out;
		}
		if (type == S_END) {
			if (stored || pos + SEC_HDR != n) {
				snprintf(err, errlen, "corrupt section END at byte %llu (%s)",
					 (unsigned long long)pos,
					 stored ? "not empty" : "bytes after it");
				goto out;
			}
			ended = 1;
			break;
		}
		if (type == S_STIME) {
			if (nstime == capstime) {
				size_t nc = capstime ? capstime * 2 : 16;
				struct sec *ns = realloc(stime, nc * sizeof(*ns));
				if (!ns) {
					snprintf(err, errlen, "out of memory");
					goto out;
				}
				stime = ns;
				capstime = nc;
			}
			sc = &stime[nstime++];
			memset(sc, 0, sizeof(*sc));
		} else if (type < S_NTYPES) {
			sc = &sec[type];
			if (sc->present) {
				snprintf(err, errlen, "corrupt section %s at byte %llu (repeated)",
					 secname[type], (unsigned long long)pos);
				goto out;
			}
		} else {
			pos += SEC_HDR + stored;	/* a newer section: skipped */
			continue;
		}
		sc->present = 1;
		sc->flags = flags;
		sc->at = pos;
		sc->p = buf + pos + SEC_HDR;
		sc->stored = stored;
		sc->raw = raw;
		pos += SEC_HDR + stored;
	}
	if (!ended) {
		snprintf(err, errlen, "truncated file: no END section at byte %zu", n);
		goto out;
	}
	for (i = S_STRINGS; i <= S_STREAMS; i++)
		if (!sec[i].present) {
			snprintf(err, errlen, "corrupt file: no %s section", secname[i]);
			goto out;
		}
	if (!(c = tg_cfg_new())) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/* STRINGS */
	{
		uint64_t ns, k, len;
		if (sec_open(&sec[S_STRINGS], S_STRINGS, &x, err, errlen) < 0 ||
		    pcount(&x, &ns, 1) < 0)
			goto out;
		for (k = 0; k < ns; k++) {
			if (pcount(&x, &len, 1) < 0)
				goto out;
			/* strings are unique: a repeated one would shift the
			 * numbers of those after it */
			if (tg_strtab_intern(&c->strs, (const char *)x.p, len) < 0 ||
			    c->strs.n != k + 1) {
				perr(&x, "repeated string");
				goto out;
			}
			x.p += len;
		}
		if (x.p != x.end) {
			perr(&x, "trailing bytes");
			goto out;
		}
	}
	/* CST */
	{
		uint64_t nt, k, nw, j;
		if (sec_open(&sec[S_CST], S_CST, &x, err, errlen) < 0 || pcount(&x, &nt, 1) < 0)
			goto out;
		for (k = 0; k < nt; k++) {
			int rc;
			if (pcount(&x, &nw, 1) < 0)
				goto out;
			w.n = 0;
			for (j = 0; j < nw; j++) {
				int64_t v;
				if (ps(&x, &v) < 0)
					goto out;
				if (tg_words_push(&w, v) < 0) {
					perr(&x, "out of memory");
					goto out;
				}
			}
			rc = w.n ? tg_sig_check(w.w, w.n, c->strs.n, NULL) : -1;
			if (rc < 0) {
				char what[80];
				unsigned func = 0, tid = 0;
				if (tg_sig_call(w.w, w.n, &func, &tid) && !tg_call_lookup(func))
					snprintf(what, sizeof(what),
						 "signature %llu: function %u unknown to this version",
						 (unsigned long long)k, func);
				else
					snprintf(what, sizeof(what), "signature %llu malformed",
						 (unsigned long long)k);
				perr(&x, what);
				goto out;
			}
			if (cst_intern(c, w.w, w.n, 0) < 0) {
				perr(&x, "out of memory");
				goto out;
			}
		}
		if (x.p != x.end) {
			perr(&x, "trailing bytes");
			goto out;
		}
	}
	/* AGG */
	{
		uint64_t na, k, cnt, md;
		int64_t mg;
		if (sec_open(&sec[S_AGG], S_AGG, &x, err, errlen) < 0 || pu(&x, &na) < 0)
			goto out;
		if (na != c->ncst) {
			perr(&x, "not one entry per signature");
			goto out;
		}
		for (k = 0; k < na; k++) {
			if (pu(&x, &cnt) < 0 || pu(&x, &md) < 0 || ps(&x, &mg) < 0)
				goto out;
			c->agg[k].count = cnt;
			c->agg[k].dur = (unsigned __int128)md * cnt;
			c->agg[k].gap = (__int128)mg * (__int128)cnt;
		}
		if (x.p != x.end) {
			perr(&x, "trailing bytes");
			goto out;
		}
	}
	/* GRAMMAR */
	{
		uint64_t nr, k, len, j, sym, e1;
		if (sec_open(&sec[S_GRAMMAR], S_GRAMMAR, &x, err, errlen) < 0 ||
		    pcount(&x, &nr, 1) < 0)
			goto out;
		rmap = malloc((nr ? nr : 1) * sizeof(uint32_t));
		rlen = malloc((nr ? nr : 1) * sizeof(uint64_t));
		if (!rmap || !rlen) {
			perr(&x, "out of memory");
			goto out;
		}
		for (k = 0; k < nr; k++) {
			if (pcount(&x, &len, 2) < 0)
				goto out;
			free(body);
			if (!(body = malloc((len ? len : 1) * sizeof(*body)))) {
				perr(&x, "out of memory");
				goto out;
			}
			rlen[k] = 0;
			for (j = 0; j < len; j++) {
				uint64_t l;
				if (pu(&x, &sym) < 0 || pu(&x, &e1) < 0)
					goto out;
				if (e1 >= UINT32_MAX || sym > UINT32_MAX ||
				    (sym & 1 ? (sym >> 1) >= k : (sym >> 1) >= c->ncst)) {
					perr(&x, sym & 1 ? "a rule names itself or a later rule"
							 : "a rule names a signature not in the CST");
					goto out;
				}
				l = sym & 1 ? rlen[sym >> 1] : 1;
				if (l && e1 + 1 > (1ull << 50) / l) {
					perr(&x, "a rule expands too far");
					goto out;
				}
				rlen[k] += l * (e1 + 1);
				if (rlen[k] > (1ull << 50)) {
					perr(&x, "a rule expands too far");
					goto out;
				}
				body[j].sym = sym & 1 ? rmap[sym >> 1] << 1 | 1 : (uint32_t)sym;
				body[j].exp = (uint32_t)(e1 + 1);
			}
			if ((rmap[k] = rule_add(c, body, len)) == UINT32_MAX) {
				perr(&x, "out of memory");
				goto out;
			}
		}
		if (x.p != x.end) {
			perr(&x, "trailing bytes");
			goto out;
		}
		/* STREAMS: rule numbers are those of the file */
		if (sec_open(&sec[S_STREAMS], S_STREAMS, &x, err, errlen) < 0)
			goto out;
		if (parse_streams(c, &x, rmap, rlen, nr) < 0)
			goto out;
	}
	/* STIME: in stream order, one for each stream whose times are kept */
	{
		size_t k = 0;
		for (i = 0; i < c->nst; i++) {
			struct cstream *st = &c->st[i];
			if (st->v.timing == TG_CFG_AGGREGATE)
				continue;
			if (k == nstime) {
				snprintf(err, errlen, "corrupt file: no STIME section for stream %zu", i);
				goto out;
			}
			if (!(stime[k].flags & SEC_ZLIB)) {
				/* stored uncompressed: keep it deflated in memory */
				if (deflate_bytes(stime[k].p, stime[k].stored, &st->tz, &st->tzlen) < 0) {
					snprintf(err, errlen, "out of memory");
					goto out;
				}
			} else {
				if (!(st->tz = malloc(stime[k].stored ? stime[k].stored : 1))) {
					snprintf(err, errlen, "out of memory");
					goto out;
				}
				memcpy(st->tz, stime[k].p, stime[k].stored);
				st->tzlen = stime[k].stored;
			}
			st->traw = stime[k].raw;
			st->tzat = stime[k].at;
			k++;
		}
		if (k != nstime) {
			snprintf(err, errlen, "corrupt section STIME at byte %llu (no stream for it)",
				 (unsigned long long)stime[k].at);
			goto out;
		}
	}
	ok = 1;
out:
	for (i = 0; i < S_NTYPES; i++)
		free(sec[i].data);
	free(stime);
	free(buf);
	free(rmap);
	free(rlen);
	free(body);
	tg_words_release(&w);
	if (!ok) {
		tg_cfg_free(c);
		return NULL;
	}
	return c;
}

/* ---- decoding -------------------------------------------------------------------------- */

static int caches(struct tg_cfg *c)
{
	size_t i;

	if (c->ready)
		return 0;
	caches_free(c);
	c->mdur = malloc((c->ncst ? c->ncst : 1) * sizeof(uint64_t));
	c->mgap = malloc((c->ncst ? c->ncst : 1) * sizeof(int64_t));
	c->depth = malloc((c->nrules ? c->nrules : 1) * sizeof(uint32_t));
	if (!c->mdur || !c->mgap || !c->depth)
		return -1;
	for (i = 0; i < c->ncst; i++) {
		const struct agg *a = &c->agg[i];
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
	const struct cstream *s;
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

static int stime_open(struct tg_cfg_cursor *k, char *err, size_t errlen)
{
	const unsigned char *p, *end;
	uint64_t mode, ncl, i;

	if (inflate_exact(k->s->tz, k->s->tzlen, k->s->traw, &k->traw) < 0)
		goto bad;
	p = k->traw;
	end = p + k->s->traw;
	if (tg_get_uvar(&p, end, &mode) < 0 || mode != (uint64_t)k->tp.mode ||
	    tg_get_uvar(&p, end, &ncl) < 0 || ncl > (uint64_t)(end - p))
		goto bad;
	k->dur = calloc(ncl ? ncl : 1, sizeof(*k->dur));
	k->gap = calloc(ncl ? ncl : 1, sizeof(*k->gap));
	k->left = calloc(ncl ? ncl : 1, sizeof(*k->left));
	if (!k->dur || !k->gap || !k->left)
		goto bad;
	k->ncl = (size_t)ncl;
	for (i = 0; i < ncl; i++)
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
	if (k->tp.mode != TG_T_AGG && stime_open(k, err, errlen) < 0) {
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
		if (out->tid >= k->ntl && thread_room(&k->tl, &k->tl2, &k->ntl, out->tid) < 0)
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
		/* mean gaps can be negative (a nested call is stored before the
		 * call that encloses it): never before time zero */
		if (gap < 0 && k->tl[out->tid] < (uint64_t)-gap)
			k->tl[out->tid] = 0;
		else
			k->tl[out->tid] += (uint64_t)gap;
		out->tstart = k->tl[out->tid];
		out->dur = (uint64_t)dur;
	} else if (out->type == TG_REC_RANK) {
		k->h.rank = out->rank;
		k->h.world = out->world;
	}
	k->emitted++;
	return 1;
}

/* ---- packing, between processes ---------------------------------------------------- */

#define PACK_MAGIC "\x89TGCFGPK"

static int pk_put(struct tg_bytes *b, const void *p, size_t n)
{
	return tg_bytes_put(b, p, n);
}

static int pk_u64(struct tg_bytes *b, uint64_t v)
{
	return tg_bytes_put(b, &v, sizeof(v));
}

static int pk_u32(struct tg_bytes *b, uint32_t v)
{
	return tg_bytes_put(b, &v, sizeof(v));
}

static int pk_str(struct tg_bytes *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return pk_u64(b, n) < 0 || pk_put(b, s, n) < 0 ? -1 : 0;
}

int tg_cfg_pack(const struct tg_cfg *c, unsigned char **buf, size_t *len)
{
	struct tg_bytes b = { 0 };
	size_t i, k;
	int bad = 0;

	bad |= pk_put(&b, PACK_MAGIC, TG_CFG_MAGIC_LEN) < 0;
	bad |= pk_u64(&b, c->strs.n) < 0;
	for (i = 0; i < c->strs.n && !bad; i++)
		bad |= pk_u64(&b, c->strs.len[i]) < 0 || pk_put(&b, c->strs.s[i], c->strs.len[i]) < 0;
	bad |= pk_u64(&b, c->ncst) < 0;
	for (i = 0; i < c->ncst && !bad; i++) {
		const struct agg *a = &c->agg[i];
		bad |= pk_u32(&b, c->cst[i].n) < 0 ||
		       pk_put(&b, c->words + c->cst[i].off, c->cst[i].n * sizeof(int64_t)) < 0;
		bad |= pk_u64(&b, a->count) < 0 || pk_u64(&b, (uint64_t)a->dur) < 0 ||
		       pk_u64(&b, (uint64_t)(a->dur >> 64)) < 0 ||
		       pk_u64(&b, (uint64_t)a->gap) < 0 ||
		       pk_u64(&b, (uint64_t)((unsigned __int128)a->gap >> 64)) < 0;
	}
	bad |= pk_u64(&b, c->nrules) < 0;
	for (i = 0; i < c->nrules && !bad; i++)
		bad |= pk_u32(&b, c->roff[i + 1] - c->roff[i]) < 0 ||
		       pk_put(&b, c->syms + c->roff[i],
			      (c->roff[i + 1] - c->roff[i]) * sizeof(struct tg_sym)) < 0;
	bad |= pk_u64(&b, c->nst) < 0;
	for (i = 0; i < c->nst && !bad; i++) {
		const struct cstream *s = &c->st[i];
		const struct tg_header *h = &s->v.h;
		bad |= pk_u32(&b, (uint32_t)h->version) < 0 || pk_u32(&b, h->flags) < 0 ||
		       pk_u64(&b, (uint64_t)h->rank) < 0 || pk_u64(&b, h->world) < 0 ||
		       pk_u64(&b, h->pid) < 0 || pk_u64(&b, h->ppid) < 0 ||
		       pk_u64(&b, h->clock_base) < 0 || pk_str(&b, h->host) < 0 ||
		       pk_str(&b, h->cwd) < 0 || pk_u32(&b, (uint32_t)h->argc) < 0;
		for (k = 0; k < (size_t)h->argc; k++)
			bad |= pk_str(&b, h->argv[k]) < 0;
		bad |= pk_u64(&b, (uint64_t)s->v.rank) < 0 || pk_u64(&b, s->v.records) < 0 ||
		       pk_u64(&b, s->v.calls) < 0 || pk_u64(&b, s->v.end) < 0 ||
		       pk_u32(&b, (uint32_t)s->v.timing) < 0 || pk_u32(&b, s->v.err_ppm) < 0 ||
		       pk_u32(&b, s->v.bits) < 0 || pk_u32(&b, s->v.samples) < 0 ||
		       pk_u32(&b, s->rule) < 0 || pk_u64(&b, s->nclock) < 0 ||
		       pk_put(&b, s->clock, s->nclock * sizeof(uint64_t)) < 0;
		bad |= pk_u32(&b, s->tz != NULL) < 0 || pk_u64(&b, s->tzlen) < 0 ||
		       pk_u64(&b, s->traw) < 0 || pk_u64(&b, s->tzat) < 0 ||
		       pk_put(&b, s->tz, s->tz ? s->tzlen : 0) < 0;
	}
	if (bad) {
		tg_bytes_release(&b);
		return -1;
	}
	*buf = b.b;
	*len = b.n;
	return 0;
}

/* A reader of packed bytes: every get past the end sets @bad and gives 0. */
struct upk {
	const unsigned char *p, *end;
	int bad;
};

static const void *upk_get(struct upk *k, uint64_t n)
{
	const unsigned char *p = k->p;

	if (k->bad || n > (uint64_t)(k->end - k->p)) {
		k->bad = 1;
		return NULL;
	}
	k->p += n;
	return p;
}

static uint64_t upk_u64(struct upk *k)
{
	const void *p = upk_get(k, 8);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, 8);
	return v;
}

static uint32_t upk_u32(struct upk *k)
{
	const void *p = upk_get(k, 4);
	uint32_t v = 0;

	if (p)
		memcpy(&v, p, 4);
	return v;
}

static char *upk_str(struct upk *k)
{
	uint64_t n = upk_u64(k);
	const char *p = upk_get(k, n);
	char *s;

	if (!p || !(s = malloc(n + 1))) {
		k->bad = 1;
		return NULL;
	}
	memcpy(s, p, n);
	s[n] = 0;
	return s;
}

struct tg_cfg *tg_cfg_unpack(const void *buf, size_t len, char *err, size_t errlen)
{
	struct upk k = { buf, (const unsigned char *)buf + len, 0 };
	struct tg_cfg *c = tg_cfg_new();
	struct tg_words w = { 0 };
	uint64_t n, i, j;
	const char *why = "truncated";

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (len < TG_CFG_MAGIC_LEN || memcmp(buf, PACK_MAGIC, TG_CFG_MAGIC_LEN) != 0) {
		why = "bad magic";
		goto bad;
	}
	k.p += TG_CFG_MAGIC_LEN;
	n = upk_u64(&k);
	for (i = 0; i < n && !k.bad; i++) {
		uint64_t l = upk_u64(&k);
		const char *s = upk_get(&k, l);
		if (s && (tg_strtab_intern(&c->strs, s, l) < 0 || c->strs.n != i + 1)) {
			why = "a string twice, or out of memory";
			goto bad;
		}
	}
	n = upk_u64(&k);
	for (i = 0; i < n && !k.bad; i++) {
		uint32_t nw = upk_u32(&k);
		const void *p = upk_get(&k, (uint64_t)nw * sizeof(int64_t));
		uint64_t v[5];
		int64_t t;
		for (j = 0; j < 5; j++)
			v[j] = upk_u64(&k);
		if (k.bad)
			break;
		w.n = 0;
		for (j = 0; j < nw; j++) {
			int64_t x;
			memcpy(&x, (const unsigned char *)p + j * sizeof(x), sizeof(x));
			if (tg_words_push(&w, x) < 0)
				goto oom;
		}
		if ((t = cst_intern(c, w.w, w.n, 0)) < 0)
			goto oom;
		c->agg[t].count = v[0];
		c->agg[t].dur = (unsigned __int128)v[2] << 64 | v[1];
		c->agg[t].gap = (__int128)((unsigned __int128)v[4] << 64 | v[3]);
	}
	n = upk_u64(&k);
	for (i = 0; i < n && !k.bad; i++) {
		uint32_t nb = upk_u32(&k);
		const void *p = upk_get(&k, (uint64_t)nb * sizeof(struct tg_sym));
		struct tg_sym *body;
		uint32_t r;
		if (!p)
			break;
		if (!(body = malloc((nb ? nb : 1) * sizeof(*body))))
			goto oom;
		if (nb)
			memcpy(body, p, nb * sizeof(*body));
		for (j = 0; j < nb; j++)
			if (!body[j].exp || (body[j].sym & 1 ? (body[j].sym >> 1) >= i
							    : (body[j].sym >> 1) >= c->ncst))
				break;
		r = j == nb ? rule_add(c, body, nb) : UINT32_MAX - 1;
		free(body);
		if (r == UINT32_MAX)
			goto oom;
		if (r != i) {
			why = "a bad rule";
			goto bad;
		}
	}
	n = upk_u64(&k);
	for (i = 0; i < n && !k.bad; i++) {
		struct cstream *s = stream_new(c);
		struct tg_header *h;
		uint32_t argc, hastz;
		if (!s)
			goto oom;
		h = &s->v.h;
		h->version = (int)upk_u32(&k);
		h->flags = upk_u32(&k);
		h->rank = (int64_t)upk_u64(&k);
		h->world = upk_u64(&k);
		h->pid = upk_u64(&k);
		h->ppid = upk_u64(&k);
		h->clock_base = upk_u64(&k);
		h->host = upk_str(&k);
		h->cwd = upk_str(&k);
		argc = upk_u32(&k);
		if (k.bad || argc > (uint64_t)(k.end - k.p) / 8 ||
		    !(h->argv = calloc((size_t)argc + 1, sizeof(char *)))) {
			k.bad = 1;
			break;
		}
		for (j = 0; j < argc && !k.bad; j++)
			if ((h->argv[j] = upk_str(&k)))
				h->argc = (int)j + 1;
		s->v.rank = (int64_t)upk_u64(&k);
		s->v.records = upk_u64(&k);
		s->v.calls = upk_u64(&k);
		s->v.end = upk_u64(&k);
		s->v.timing = (int)upk_u32(&k);
		s->v.err_ppm = upk_u32(&k);
		s->v.bits = upk_u32(&k);
		s->v.samples = upk_u32(&k);
		s->rule = upk_u32(&k);
		s->nclock = (size_t)upk_u64(&k);
		if (!k.bad && s->nclock) {
			const void *p = upk_get(&k, (uint64_t)s->nclock * sizeof(uint64_t));
			if (!p || !(s->clock = malloc(s->nclock * sizeof(uint64_t)))) {
				s->nclock = 0;
				k.bad = 1;
				break;
			}
			memcpy(s->clock, p, s->nclock * sizeof(uint64_t));
		}
		hastz = upk_u32(&k);
		s->tzlen = (size_t)upk_u64(&k);
		s->traw = upk_u64(&k);
		s->tzat = upk_u64(&k);
		if (!k.bad && hastz) {
			const void *p = upk_get(&k, s->tzlen);
			if (!p || !(s->tz = malloc(s->tzlen ? s->tzlen : 1))) {
				k.bad = 1;
				break;
			}
			memcpy(s->tz, p, s->tzlen);
		}
		if (!k.bad && (s->rule >= c->nrules || s->v.timing < 0 ||
			       s->v.timing >= TG_T_NMODES)) {
			why = "a bad stream";
			goto bad;
		}
	}
	if (k.bad)
		goto bad;
	if (k.p != k.end) {
		why = "trailing bytes";
		goto bad;
	}
	tg_words_release(&w);
	return c;
oom:
	why = "out of memory";
	snprintf(err, errlen, "%s", why);
	goto fail;
bad:
	snprintf(err, errlen, "corrupt packed trace (%s at byte %zu)", why,
		 (size_t)(k.p - (const unsigned char *)buf));
fail:
	tg_words_release(&w);
	tg_cfg_free(c);
	return NULL;
}
