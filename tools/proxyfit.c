/*
 * proxyfit.c - the values a call signature took, as C expressions: a
 * constant, arithmetic on the rank, the handle's last offset plus a step
 * (the decoding state of tangram-cfg(5), kept at run time), a progression
 * over the signature's occurrences, and only where none of these holds a
 * table per rank -- never a wrong value.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "proxy.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../libcommon/util.h"
#include "../libcommon/banned.h"

void sb_printf(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->n : NULL, b->cap - b->n, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->n)
			break;
		b->cap = (b->cap + (size_t)(n > 0 ? n : 0) + 1) * 2;
		b->s = tg_xrealloc(b->s, b->cap);
	}
	b->n += (size_t)n;
}

void sb_cstr(struct sb *b, const char *s)
{
	if (!s) {
		sb_printf(b, "NULL");
		return;
	}
	sb_printf(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c < 32 || c >= 127)
			sb_printf(b, "\\%03o", c);
		else
			sb_printf(b, "%c", c);
	}
	sb_printf(b, "\"");
}

void sb_release(struct sb *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

static int64_t field(const struct pv *v, int fld)
{
	switch (fld) {
	case FLD_U:
		return v->u;
	case FLD_P:
		return v->present;
	case FLD_NZ:
		return v->i != 0;
	default:
		return v->i;
	}
}

/* The value at occurrence @k of stream @s. */
static const struct pv *at(const struct term *t, size_t s, size_t k, size_t slot)
{
	return &t->per[s].v[k * t->nslots + slot];
}

/* c[s] for the streams where have[s]: a constant, a*rank + b, or a table. */
static void fit_streams(struct gen *g, const int64_t *c, const int *have, struct sb *out)
{
	size_t s, s0 = SIZE_MAX, s1 = SIZE_MAX;
	int64_t a = 0, b;
	int lin = 1;

	for (s = 0; s < g->nst; s++) {
		if (!have[s])
			continue;
		if (s0 == SIZE_MAX)
			s0 = s;
		else if (s1 == SIZE_MAX && g->rank[s] != g->rank[s0])
			s1 = s;
	}
	if (s0 == SIZE_MAX) {
		sb_printf(out, "0LL");
		return;
	}
	if (s1 != SIZE_MAX) {
		int64_t dr = g->rank[s1] - g->rank[s0];
		a = (c[s1] - c[s0]) / dr;
		if (a * dr != c[s1] - c[s0])
			lin = 0;
	}
	b = c[s0] - a * g->rank[s0];
	for (s = 0; s < g->nst && lin; s++)
		if (have[s] && a * g->rank[s] + b != c[s])
			lin = 0;
	if (lin && a == 0) {
		sb_printf(out, "%" PRId64 "LL", b);
		return;
	}
	if (lin) {
		sb_printf(out, "(%" PRId64 "LL * tg_rank + %" PRId64 "LL)", a, b);
		return;
	}
	sb_printf(&g->decl, "static const long long tg_t%u[] = {", g->ntab);
	for (s = 0; s < g->nst; s++)
		sb_printf(&g->decl, "%s%" PRId64, s ? ", " : "", have[s] ? c[s] : 0);
	sb_printf(&g->decl, "};\n");
	sb_printf(out, "tg_t%u[tg_idx]", g->ntab++);
}

/* Is v[k] = c[s] + k * d[s] on every stream (@delta: v[k] - prev[k] = c[s])? */
static int fit_steps(const struct term *t, size_t slot, int fld, int delta, int64_t *c,
		     int64_t *d, int *have, size_t nst)
{
	size_t s, k;

	for (s = 0; s < nst; s++) {
		const struct occs *o = &t->per[s];
		have[s] = o->n > 0;
		c[s] = d[s] = 0;
		if (!o->n)
			continue;
		c[s] = field(at(t, s, 0, slot), fld) - (delta ? at(t, s, 0, slot)->prev : 0);
		if (o->n > 1 && !delta)
			d[s] = field(at(t, s, 1, slot), fld) - c[s];
		for (k = 0; k < o->n; k++) {
			const struct pv *v = at(t, s, k, slot);
			int64_t want = delta ? v->prev + c[s] : c[s] + (int64_t)k * d[s];
			if (field(v, fld) != want)
				return 0;
		}
	}
	return 1;
}

/*
 * Values that take turns: v[k] = c[k % p] + (k / p) * d[k % p] on every
 * stream, for the smallest period p from 2 to 8 that fits and that some
 * stream repeats twice: a loop whose body makes the call p times with
 * other values each time (two requests to MPI_PROC_NULL of a stencil's
 * edge, each its own), as a choice on the occurrence counter.
 */
#define TURNS_MAX 8
static int fit_turns(struct gen *g, const struct term *t, unsigned ti, size_t slot, int fld,
		     struct sb *out)
{
	size_t nst = g->nst, most = 0, p, s, k, r;
	int64_t *c = calloc(nst * TURNS_MAX, sizeof(*c)), *d = calloc(nst * TURNS_MAX, sizeof(*d));
	int64_t *cr = calloc(nst, sizeof(*cr)), *dr = calloc(nst, sizeof(*dr));
	int *have = calloc(nst, sizeof(*have)), ok = 0;

	if (!c || !d || !cr || !dr || !have)
		abort();
	for (s = 0; s < nst; s++)
		if (t->per[s].n > most)
			most = t->per[s].n;
	for (p = 2; p <= TURNS_MAX && 2 * p <= most && !ok; p++) {
		ok = 1;
		for (s = 0; s < nst && ok; s++) {
			const struct occs *o = &t->per[s];
			for (r = 0; r < p; r++) {
				c[s * p + r] = r < o->n ? field(at(t, s, r, slot), fld) : 0;
				d[s * p + r] = r + p < o->n ?
					field(at(t, s, r + p, slot), fld) - c[s * p + r] : 0;
			}
			for (k = 0; k < o->n && ok; k++)
				ok = field(at(t, s, k, slot), fld) ==
				     c[s * p + k % p] + (int64_t)(k / p) * d[s * p + k % p];
		}
	}
	if (!ok)
		goto out;
	p--;
	sb_printf(out, "(");
	for (r = 0; r < p; r++) {
		int step = 0;
		for (s = 0; s < nst; s++) {
			have[s] = t->per[s].n > r;
			cr[s] = c[s * p + r];
			dr[s] = d[s * p + r];
			step |= dr[s] != 0;
		}
		if (r + 1 < p)
			sb_printf(out, "n%u %% %zu == %zu ? ", ti, p, r);
		fit_streams(g, cr, have, out);
		if (step) {
			sb_printf(out, " + n%u / %zu * ", ti, p);
			fit_streams(g, dr, have, out);
		}
		if (r + 1 < p)
			sb_printf(out, " : ");
	}
	sb_printf(out, ")");
out:
	free(c);
	free(d);
	free(cr);
	free(dr);
	free(have);
	return ok;
}

void fit_int(struct gen *g, const struct term *t, unsigned ti, size_t slot, int fld,
	     const char *hk, struct sb *out)
{
	int64_t *c = calloc(g->nst, sizeof(*c)), *d = calloc(g->nst, sizeof(*d));
	int *have = calloc(g->nst, sizeof(*have));
	int zero = 1;
	size_t s, k;

	if (!c || !d || !have)
		abort();
	if (fit_steps(t, slot, fld, 0, c, d, have, g->nst)) {
		for (s = 0; s < g->nst; s++)
			if (d[s])
				zero = 0;
		if (zero) {
			fit_streams(g, c, have, out);
			goto out;
		}
	}
	if (hk && fit_steps(t, slot, fld, 1, c, d, have, g->nst)) {
		sb_printf(out, "tg_off_get(%s) + ", hk);
		fit_streams(g, c, have, out);
		goto out;
	}
	if (fit_steps(t, slot, fld, 0, c, d, have, g->nst)) {
		sb_printf(out, "(");
		fit_streams(g, c, have, out);
		sb_printf(out, " + n%u * ", ti);
		fit_streams(g, d, have, out);
		sb_printf(out, ")");
		goto out;
	}
	if (fit_turns(g, t, ti, slot, fld, out))
		goto out;
	/* nothing regular: the values themselves, stream by stream */
	for (s = 0; s < g->nst; s++) {
		const struct occs *o = &t->per[s];
		sb_printf(&g->decl, "static const long long tg_t%u_%zu[] = {", g->ntab, s);
		for (k = 0; k < o->n; k++)
			sb_printf(&g->decl, "%s%" PRId64, k ? ", " : "",
				  field(at(t, s, k, slot), fld));
		sb_printf(&g->decl, "%s};\n", o->n ? "" : "0");
	}
	sb_printf(&g->decl, "static const long long *const tg_t%u[] = {", g->ntab);
	for (s = 0; s < g->nst; s++)
		sb_printf(&g->decl, "%stg_t%u_%zu", s ? ", " : "", g->ntab, s);
	sb_printf(&g->decl, "};\n");
	sb_printf(out, "tg_t%u[tg_idx][n%u]", g->ntab++, ti);
out:
	free(c);
	free(d);
	free(have);
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Is @s the decimal @rank between a common prefix and suffix? */
static int rank_split(const char *s, int64_t rank, size_t *pre, size_t *suf)
{
	char r[24];
	const char *p;
	size_t rl;

	snprintf(r, sizeof(r), "%" PRId64, rank);
	rl = strlen(r);
	for (p = s ? strstr(s, r) : NULL; p; p = strstr(p + 1, r)) {
		*pre = (size_t)(p - s);
		*suf = strlen(p + rl);
		return 1;
	}
	return 0;
}

/* A string per stream, each the same around the rank? */
static int fit_rankstr(struct gen *g, const struct term *t, size_t slot, struct sb *out)
{
	const char *s0 = NULL;
	size_t s, pre = 0, suf = 0, p, q;
	int64_t r0 = 0;

	for (s = 0; s < g->nst; s++) {
		const char *v;
		if (!t->per[s].n)
			continue;
		v = at(t, s, 0, slot)->s;
		if (!s0) {
			s0 = v;
			r0 = g->rank[s];
			if (!rank_split(v, r0, &pre, &suf))
				return 0;
			continue;
		}
		if (!rank_split(v, g->rank[s], &p, &q) || p != pre || q != suf ||
		    strncmp(v, s0, pre) || strcmp(v + strlen(v) - suf, s0 + strlen(s0) - suf))
			return 0;
	}
	if (!s0)
		return 0;
	{
		char *a = tg_xstrdup(s0);
		a[pre] = 0;
		sb_printf(out, "tg_rstr(");
		sb_cstr(out, a);
		sb_printf(out, ", ");
		sb_cstr(out, s0 + strlen(s0) - suf);
		sb_printf(out, ")");
		free(a);
	}
	return 1;
}

void fit_str(struct gen *g, const struct term *t, unsigned ti, size_t slot, struct sb *out)
{
	const char *first = NULL;
	int all = 1, per = 1, got = 0;
	size_t s, k;

	for (s = 0; s < g->nst; s++)
		for (k = 0; k < t->per[s].n; k++) {
			const char *v = at(t, s, k, slot)->s;
			if (!got)
				first = v, got = 1;
			if (!same_str(v, first))
				all = 0;
			if (!same_str(v, at(t, s, 0, slot)->s))
				per = 0;
		}
	if (all) {
		sb_cstr(out, first);
		return;
	}
	if (per && fit_rankstr(g, t, slot, out))
		return;
	for (s = 0; s < g->nst; s++) {
		sb_printf(&g->decl, "static const char *const tg_t%u_%zu[] = {", g->ntab, s);
		for (k = 0; k < t->per[s].n; k++) {
			sb_printf(&g->decl, "%s", k ? ", " : "");
			sb_cstr(&g->decl, at(t, s, k, slot)->s);
		}
		sb_printf(&g->decl, "%s};\n", t->per[s].n ? "" : "NULL");
	}
	sb_printf(&g->decl, "static const char *const *const tg_t%u[] = {", g->ntab);
	for (s = 0; s < g->nst; s++)
		sb_printf(&g->decl, "%stg_t%u_%zu", s ? ", " : "", g->ntab, s);
	sb_printf(&g->decl, "};\n");
	sb_printf(out, "tg_t%u[tg_idx][%s]", g->ntab++, per ? "0" : "");
	if (!per) {
		out->n--;
		sb_printf(out, "n%u]", ti);
	}
}

static int same_arr(const struct pv *a, const struct pv *b)
{
	return a->i == b->i && (!a->i || memcmp(a->arr, b->arr, (size_t)a->i * 8) == 0);
}

void fit_arr(struct gen *g, const struct term *t, unsigned ti, size_t slot, struct sb *ptr,
	     struct sb *cnt)
{
	const struct pv *first = NULL;
	int all = 1;
	size_t s, k;
	int64_t j;

	for (s = 0; s < g->nst; s++)
		for (k = 0; k < t->per[s].n; k++) {
			const struct pv *v = at(t, s, k, slot);
			if (!first)
				first = v;
			if (!same_arr(v, first))
				all = 0;
		}
	fit_int(g, t, ti, slot, FLD_I, NULL, cnt);
	if (all && first) {
		sb_printf(ptr, "(const long long[]){");
		for (j = 0; j < first->i; j++)
			sb_printf(ptr, "%s%" PRId64, j ? ", " : "", first->arr[j]);
		sb_printf(ptr, "%s}", first->i ? "" : "0");
		return;
	}
	/* every occurrence's elements, one after the other, per stream */
	for (s = 0; s < g->nst; s++) {
		size_t pos = 0;
		sb_printf(&g->decl, "static const long long tg_t%u_%zu[] = {", g->ntab, s);
		for (k = 0; k < t->per[s].n; k++) {
			const struct pv *v = at(t, s, k, slot);
			for (j = 0; j < v->i; j++)
				sb_printf(&g->decl, "%s%" PRId64, pos++ ? ", " : "", v->arr[j]);
		}
		sb_printf(&g->decl, "%s};\n", pos ? "" : "0");
		sb_printf(&g->decl, "static const long long tg_t%uo_%zu[] = {", g->ntab, s);
		for (k = 0, pos = 0; k < t->per[s].n; k++) {
			sb_printf(&g->decl, "%s%zu", k ? ", " : "", pos);
			pos += (size_t)at(t, s, k, slot)->i;
		}
		sb_printf(&g->decl, "%s};\n", t->per[s].n ? "" : "0");
	}
	sb_printf(&g->decl, "static const long long *const tg_t%u[] = {", g->ntab);
	for (s = 0; s < g->nst; s++)
		sb_printf(&g->decl, "%stg_t%u_%zu", s ? ", " : "", g->ntab, s);
	sb_printf(&g->decl, "};\nstatic const long long *const tg_t%uo[] = {", g->ntab);
	for (s = 0; s < g->nst; s++)
		sb_printf(&g->decl, "%stg_t%uo_%zu", s ? ", " : "", g->ntab, s);
	sb_printf(&g->decl, "};\n");
	sb_printf(ptr, "(tg_t%u[tg_idx] + tg_t%uo[tg_idx][n%u])", g->ntab, g->ntab, ti);
	g->ntab++;
}
