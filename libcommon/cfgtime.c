/*
 * cfgtime.c - the timing coders of compressed traces (tangram-cfg(5),
 * "Timing"): one field, the durations or the gaps of the records of one
 * signature in one stream, stored exactly (lossless), as exponential bins
 * (binned), as bins whose sequence Sequitur compresses (cfg, the CFG-based
 * algorithm of seed 004 §3.2.2), or as bins entropy-coded by a histogram
 * of the first samples (HIST, the same section).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cfgint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "varint.h"
#include "banned.h"

int tg_tparams_fix(struct tg_tparams *p)
{
	if (p->mode < 0 || p->mode >= TG_T_NMODES)
		return -1;
	if (p->mode == TG_T_BINNED || p->mode == TG_T_HIST || p->mode == TG_T_CFG) {
		if (p->err_ppm < 1 || p->err_ppm > 10000000)
			return -1;
	} else {
		p->err_ppm = 0;
	}
	if (p->mode == TG_T_HIST) {
		if (p->bits < 1 || p->bits > 12 || p->samples < 1 || p->samples > (1u << 20))
			return -1;
	} else {
		p->bits = p->samples = 0;
	}
	p->base = 1.0 + p->err_ppm / 1e6;
	return 0;
}

/* The magnitude bin code @c stands for: 0, or round(base^(c - 1)). */
static uint64_t binval(const struct tg_tparams *p, uint64_t c)
{
	double y;

	if (c == 0)
		return 0;
	y = pow(p->base, (double)(c - 1));
	if (!(y < 9.2e18))
		return (uint64_t)INT64_MAX;
	return (uint64_t)llround(y);
}

/* The smallest code whose value is at least @x. */
static uint64_t bincode(const struct tg_tparams *p, uint64_t x)
{
	double k;
	uint64_t c;

	if (x == 0)
		return 0;
	k = ceil(log((double)x) / log(p->base));
	c = k < 0 ? 1 : (uint64_t)k + 1;
	while (binval(p, c) < x && binval(p, c) != (uint64_t)INT64_MAX)
		c++;
	while (c > 1 && binval(p, c - 1) >= x)
		c--;
	return c;
}

static int64_t scode(const struct tg_tparams *p, int64_t v)
{
	return v < 0 ? -(int64_t)bincode(p, -(uint64_t)v) : (int64_t)bincode(p, (uint64_t)v);
}

static int64_t svalue(const struct tg_tparams *p, int64_t c)
{
	return c < 0 ? -(int64_t)binval(p, -(uint64_t)c) : (int64_t)binval(p, (uint64_t)c);
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

struct cnt {
	int64_t code;
	size_t n;
};

static int cmpcnt(const void *a, const void *b)
{
	const struct cnt *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

/* The 2^K most frequent of @n codes (ties to the smaller), sorted. */
static int64_t *hist_table(const struct tg_tparams *p, const int64_t *codes, size_t n,
			   size_t *ntable)
{
	int64_t *s = malloc((n ? n : 1) * sizeof(int64_t)), *t;
	struct cnt *c = malloc((n ? n : 1) * sizeof(*c));
	size_t i, nc = 0, k = (size_t)1 << p->bits;

	t = malloc(k * sizeof(int64_t));
	if (!s || !c || !t) {
		free(s);
		free(c);
		free(t);
		return NULL;
	}
	memcpy(s, codes, n * sizeof(int64_t));
	qsort(s, n, sizeof(int64_t), cmp64);
	for (i = 0; i < n; i++) {
		if (nc && c[nc - 1].code == s[i])
			c[nc - 1].n++;
		else
			c[nc++] = (struct cnt){ s[i], 1 };
	}
	qsort(c, nc, sizeof(*c), cmpcnt);
	if (nc > k)
		nc = k;
	for (i = 0; i < nc; i++)
		t[i] = c[i].code;
	qsort(t, nc, sizeof(int64_t), cmp64);
	*ntable = nc;
	free(s);
	free(c);
	return t;
}

static int64_t hist_find(const int64_t *t, size_t n, int64_t c)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t[mid] < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && t[lo] == c ? (int64_t)lo : -1;
}

static int put_bits(struct tg_tenc *e, uint64_t v, int nbits)
{
	int i;

	for (i = nbits - 1; i >= 0; i--) {
		if (e->nbits == 0 || e->nbits == 8) {
			unsigned char z = 0;
			if (tg_bytes_put(&e->bits, &z, 1) < 0)
				return -1;
			e->nbits = 0;
		}
		if ((v >> i) & 1)
			e->bits.b[e->bits.n - 1] |= (unsigned char)(0x80 >> e->nbits);
		e->nbits++;
	}
	return 0;
}

/* Bin codes as Sequitur symbols: zig-zag, so that they are small and
 * non-negative (a code is below 2^26 for any error of at least 1 ppm). */
static uint32_t zz(int64_t c)
{
	return (uint32_t)(c < 0 ? ((uint64_t)-c << 1) - 1 : (uint64_t)c << 1);
}

static int64_t unzz(uint32_t z)
{
	return z & 1 ? -(int64_t)((z + 1) >> 1) : (int64_t)(z >> 1);
}

/* A cfg field: its grammar, rule by rule (see tangram-cfg(5)). */
static int put_grammar(struct tg_tenc *e, struct tg_bytes *b)
{
	struct tg_sym *syms = NULL;
	uint32_t *off = NULL, nrules = 0, i, j;
	int rc = -1;

	if (e->failed)
		return -1;
	if (!e->seq)
		return tg_bytes_uvar(b, 0);
	if (tg_seq_export(e->seq, &syms, &off, &nrules) < 0)
		return -1;
	if (tg_bytes_uvar(b, nrules) < 0)
		goto out;
	for (i = 0; i < nrules; i++) {
		if (tg_bytes_uvar(b, off[i + 1] - off[i]) < 0)
			goto out;
		for (j = off[i]; j < off[i + 1]; j++)
			if (tg_bytes_uvar(b, syms[j].sym) < 0 ||
			    tg_bytes_uvar(b, syms[j].exp) < 0)
				goto out;
	}
	rc = 0;
out:
	free(syms);
	free(off);
	return rc;
}

static int put_exact(struct tg_bytes *b, int sign, int64_t v)
{
	return sign ? tg_bytes_svar(b, v) : tg_bytes_uvar(b, (uint64_t)v);
}

int64_t tg_tenc_put(struct tg_tenc *e, const struct tg_tparams *p, int sign, int64_t v)
{
	int64_t c, idx;

	switch (p->mode) {
	case TG_T_LOSSLESS:
		put_exact(&e->head, sign, v);
		e->n++;
		return v;
	case TG_T_BINNED:
		c = scode(p, v);
		put_exact(&e->head, sign, c);
		e->n++;
		return svalue(p, c);
	case TG_T_CFG:
		c = scode(p, v);
		if (!e->seq && !e->failed && !(e->seq = tg_seq_new()))
			e->failed = 1;
		if (!e->failed && tg_seq_append(e->seq, zz(c), 1) < 0)
			e->failed = 1;
		e->n++;
		return svalue(p, c);
	case TG_T_HIST:
		if (e->n < p->samples) {
			if (!e->codes && !(e->codes = malloc(p->samples * sizeof(int64_t))))
				return v;
			put_exact(&e->head, sign, v);
			e->codes[e->n++] = scode(p, v);
			if (e->n == p->samples)
				e->table = hist_table(p, e->codes, e->n, &e->ntable);
			return v;
		}
		e->n++;
		c = scode(p, v);
		idx = e->table ? hist_find(e->table, e->ntable, c) : -1;
		if (idx >= 0) {
			put_bits(e, (uint64_t)idx, (int)p->bits + 1);
			return svalue(p, c);
		}
		put_bits(e, 1, 1);
		put_exact(&e->esc, sign, v);
		return v;
	}
	return v;
}

int tg_tenc_finish(struct tg_tenc *e, const struct tg_tparams *p, struct tg_bytes *out)
{
	struct tg_bytes f = { 0 };
	int rc = -1;

	if (p->mode == TG_T_CFG && put_grammar(e, &e->head) < 0)
		return -1;
	if (p->mode != TG_T_HIST)
		return tg_bytes_uvar(out, e->head.n) < 0 ||
		       tg_bytes_put(out, e->head.b, e->head.n) < 0 ? -1 : 0;
	if (tg_bytes_uvar(&f, e->head.n) < 0 || tg_bytes_put(&f, e->head.b, e->head.n) < 0 ||
	    tg_bytes_uvar(&f, e->bits.n) < 0 || tg_bytes_put(&f, e->bits.b, e->bits.n) < 0 ||
	    tg_bytes_put(&f, e->esc.b, e->esc.n) < 0)
		goto out;
	if (tg_bytes_uvar(out, f.n) < 0 || tg_bytes_put(out, f.b, f.n) < 0)
		goto out;
	rc = 0;
out:
	tg_bytes_release(&f);
	return rc;
}

int tg_tenc_finish_bare(const struct tg_tenc *e, struct tg_bytes *out)
{
	return tg_bytes_put(out, e->head.b, e->head.n);
}

void tg_tenc_release(struct tg_tenc *e)
{
	tg_bytes_release(&e->head);
	tg_bytes_release(&e->bits);
	tg_bytes_release(&e->esc);
	free(e->codes);
	free(e->table);
	tg_seq_free(e->seq);
	memset(e, 0, sizeof(*e));
}

/*
 * Read a cfg field's grammar from [q, end), all of it.  Every rule but
 * the last must be non-empty, name only rules before it, and repeat each
 * symbol at least once, so that expanding it always ends and the stack
 * never holds more than one frame per rule.
 */
static int get_grammar(struct tg_tdec *d, const unsigned char *q, const unsigned char *end)
{
	uint64_t nrules, len, sym, exp, i, j, nsyms = 0;

	if (tg_get_uvar(&q, end, &nrules) < 0 || nrules > (uint64_t)(end - q))
		return -1;
	d->nrules = (uint32_t)nrules;
	if (!(d->off = malloc((nrules + 1) * sizeof(uint32_t))) ||
	    !(d->st = malloc((nrules + 1) * sizeof(*d->st))) ||
	    !(d->syms = malloc(((size_t)(end - q) / 2 + 1) * sizeof(*d->syms))))
		return -1;
	d->off[0] = 0;
	for (i = 0; i < nrules; i++) {
		/* each symbol takes two bytes at least, so nsyms stays within
		 * the (end - q) / 2 allocated */
		if (tg_get_uvar(&q, end, &len) < 0 || len > (uint64_t)(end - q) / 2 ||
		    (len == 0 && i + 1 < nrules))
			return -1;
		for (j = 0; j < len; j++) {
			if (tg_get_uvar(&q, end, &sym) < 0 || tg_get_uvar(&q, end, &exp) < 0 ||
			    sym > UINT32_MAX || exp < 1 || exp > UINT32_MAX ||
			    ((sym & 1) && (sym >> 1) >= i))
				return -1;
			d->syms[nsyms++] = (struct tg_sym){ (uint32_t)sym, (uint32_t)exp };
		}
		d->off[i + 1] = (uint32_t)nsyms;
	}
	if (q != end)
		return -1;
	if (nrules) {
		d->st[0] = (struct tg_tframe){ (uint32_t)nrules - 1, d->off[nrules - 1], 0 };
		d->sp = 1;
	}
	return 0;
}

/* The next code of a cfg field, or -1 when its grammar is used up. */
static int next_code(struct tg_tdec *d, int64_t *c)
{
	while (d->sp) {
		struct tg_tframe *f = &d->st[d->sp - 1];
		struct tg_sym s;

		if (f->pos == d->off[f->rule + 1]) {
			d->sp--;
			continue;
		}
		s = d->syms[f->pos];
		if (!f->left)
			f->left = s.exp;
		if (!--f->left)
			f->pos++;
		if (!(s.sym & 1)) {
			*c = unzz(s.sym >> 1);
			return 0;
		}
		d->st[d->sp++] = (struct tg_tframe){ s.sym >> 1, d->off[s.sym >> 1], 0 };
	}
	return -1;
}

int tg_tdec_open(struct tg_tdec *d, const struct tg_tparams *p,
		 const unsigned char **pp, const unsigned char *end)
{
	uint64_t len, hl, bl;
	const unsigned char *q;

	memset(d, 0, sizeof(*d));
	if (tg_get_uvar(pp, end, &len) < 0 || len > (uint64_t)(end - *pp))
		return -1;
	q = *pp;
	*pp += len;
	end = q + len;
	if (p->mode == TG_T_CFG)
		return get_grammar(d, q, end);
	if (p->mode != TG_T_HIST) {
		d->p = q;
		d->end = end;
		return 0;
	}
	if (tg_get_uvar(&q, end, &hl) < 0 || hl > (uint64_t)(end - q))
		return -1;
	d->p = q;
	d->end = q + hl;
	q += hl;
	if (tg_get_uvar(&q, end, &bl) < 0 || bl > (uint64_t)(end - q))
		return -1;
	d->bp = q;
	d->bend = q + bl;
	d->ep = q + bl;
	d->eend = end;
	return 0;
}

int tg_tdec_open_bare(struct tg_tdec *d, const unsigned char **pp, const unsigned char *end,
		      uint64_t n)
{
	uint64_t i, v;

	memset(d, 0, sizeof(*d));
	d->p = *pp;
	for (i = 0; i < n; i++)
		if (tg_get_uvar(pp, end, &v) < 0)
			return -1;
	d->end = *pp;
	return 0;
}

static int get_exact(const unsigned char **pp, const unsigned char *end, int sign, int64_t *v)
{
	uint64_t u;

	if (sign)
		return tg_get_svar(pp, end, v);
	if (tg_get_uvar(pp, end, &u) < 0)
		return -1;
	*v = (int64_t)u;
	return 0;
}

static int get_bits(struct tg_tdec *d, int nbits, uint64_t *v)
{
	uint64_t x = 0;
	int i;

	for (i = 0; i < nbits; i++) {
		uint64_t byte = d->bitpos >> 3;
		if (byte >= (uint64_t)(d->bend - d->bp))
			return -1;
		x = x << 1 | ((d->bp[byte] >> (7 - (d->bitpos & 7))) & 1);
		d->bitpos++;
	}
	*v = x;
	return 0;
}

int tg_tdec_get(struct tg_tdec *d, const struct tg_tparams *p, int sign, int64_t *v)
{
	uint64_t b;

	switch (p->mode) {
	case TG_T_LOSSLESS:
		return get_exact(&d->p, d->end, sign, v);
	case TG_T_BINNED:
		if (get_exact(&d->p, d->end, sign, v) < 0)
			return -1;
		*v = svalue(p, *v);
		return 0;
	case TG_T_CFG:
		if (next_code(d, v) < 0)
			return -1;
		*v = svalue(p, *v);
		return 0;
	case TG_T_HIST:
		if (d->n < p->samples) {
			if (!d->codes && !(d->codes = malloc(p->samples * sizeof(int64_t))))
				return -1;
			if (get_exact(&d->p, d->end, sign, v) < 0)
				return -1;
			d->codes[d->n++] = scode(p, *v);
			if (d->n == p->samples &&
			    !(d->table = hist_table(p, d->codes, d->n, &d->ntable)))
				return -1;
			return 0;
		}
		d->n++;
		if (get_bits(d, 1, &b) < 0)
			return -1;
		if (b)
			return get_exact(&d->ep, d->eend, sign, v);
		if (get_bits(d, (int)p->bits, &b) < 0 || b >= d->ntable)
			return -1;
		*v = svalue(p, d->table[b]);
		return 0;
	}
	return -1;
}

void tg_tdec_release(struct tg_tdec *d)
{
	free(d->codes);
	free(d->table);
	free(d->syms);
	free(d->off);
	free(d->st);
	memset(d, 0, sizeof(*d));
}
