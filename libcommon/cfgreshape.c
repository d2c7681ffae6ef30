/*
 * cfgreshape.c - the rules of the streams cut alike, so that the
 * unification (cfgunify.c) can find what they share.
 *
 * Sequitur cuts each stream's calls into rules by what repeats; two
 * processes that made the same calls with other integers (the first
 * exchange of a stencil's rank at the edge of the grid and of one inside
 * it, the MPI library's start-up with one poll more) get them cut in
 * different places, or not at all, and the unification, which compares
 * whole rules, finds nothing to share there.  Here the bodies of the
 * streams' roots and of their loops (rules repeated in place) are
 * flattened down to terminals and loops; each terminal stands for its
 * skeleton and each loop for its expansion's, and one Sequitur pass over
 * all of them finds the stretches that recur, across the streams too.
 * Each place such a stretch occurs becomes a rule of its own calls: the
 * rules of one stretch have equal skeletons, and the unification gives
 * them one rule where that pays.  What it does not unify the next
 * Sequitur pass folds back (cfgopt.c keeps the smaller file).
 *
 * Only traces whose streams all have aggregate timing are reshaped: the
 * unification leaves the rules of the others alone anyway.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cfg.h"

#include <stdlib.h>
#include <string.h>

#include "cfgint.h"
#include "sequitur.h"
#include "banned.h"

#define FLAT_MAX 2000000u	/* flattened symbols, over all the segments */
#define DEPTH_MAX 2000		/* nesting of the pass's rules */

/* A body being built: symbols, equal neighbours fused. */
struct body {
	struct tg_sym *s;
	size_t n, cap;
};

struct rs {
	struct tg_cfg *c;
	size_t nt, nr;
	uint32_t *tcls;		/* terminal: its class, a terminal */
	uint32_t *rcls;		/* rule: its class, a rule */
	uint8_t *seg;		/* rule: a segment (a root, or repeated in place) */
	uint64_t *flen;		/* rule: symbols it flattens to */
	uint32_t *segs;		/* the segments, rules in order */
	size_t nseg;
	struct body fl;		/* the segments flattened, one after another (not fused) */
	uint32_t *foff;		/* segment i: fl.s[foff[i] .. foff[i + 1]) */
	struct tg_sym *gs;	/* the pass's grammar */
	uint32_t *goff, gn;
	size_t at, end;		/* cursor in fl: symbol, end of its segment */
	uint32_t used;		/* repetitions of fl.s[at] taken */
	struct tg_rules made;	/* rules of the stretches' occurrences */
};

static int emit(struct body *b, uint32_t sym, uint32_t exp)
{
	if (b->n && b->s[b->n - 1].sym == sym && b->s[b->n - 1].exp <= UINT32_MAX - exp) {
		b->s[b->n - 1].exp += exp;
		return 0;
	}
	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 16;
		struct tg_sym *ns = realloc(b->s, nc * sizeof(*ns));
		if (!ns)
			return -1;
		b->s = ns;
		b->cap = nc;
	}
	b->s[b->n++] = (struct tg_sym){ sym, exp };
	return 0;
}

/* The value the pass sees for symbol @sym of a flattened segment. */
static uint32_t class_of(const struct rs *r, uint32_t sym)
{
	return sym & 1 ? (uint32_t)r->nt + r->rcls[sym >> 1] : r->tcls[sym >> 1];
}

/* Representatives: @cls[i] is the first j with @key[j] == @key[i]. */
static int classes(const uint64_t *key, size_t n, uint32_t *cls)
{
	struct tg_map m = { 0 };
	size_t i;
	uint64_t v;

	for (i = 0; i < n; i++) {
		if (tg_map_get(&m, key[i], &v)) {
			cls[i] = (uint32_t)v;
			continue;
		}
		if (tg_map_put(&m, key[i], i) < 0) {
			tg_map_release(&m);
			return -1;
		}
		cls[i] = (uint32_t)i;
	}
	tg_map_release(&m);
	return 0;
}

/* Flatten rule @q's body into r->fl: terminals and segments stay;
 * -2 when the rules nest too deep. */
static int flatten(struct rs *r, uint32_t q, unsigned depth)
{
	const struct tg_cfg *c = r->c;
	uint32_t k;

	for (k = c->roff[q]; k < c->roff[q + 1]; k++) {
		uint32_t s = c->syms[k].sym, e = c->syms[k].exp;
		if ((s & 1) && !r->seg[s >> 1]) {
			/* not a segment: used in place, once */
			int rc = depth < DEPTH_MAX ? flatten(r, s >> 1, depth + 1) : -2;
			if (rc < 0)
				return rc;
			continue;
		}
		if (r->fl.n == r->fl.cap) {
			size_t nc = r->fl.cap ? r->fl.cap * 2 : 1024;
			struct tg_sym *ns = realloc(r->fl.s, nc * sizeof(*ns));
			if (!ns)
				return -1;
			r->fl.s = ns;
			r->fl.cap = nc;
		}
		/* no fusing here: a symbol is one unit of the pass */
		r->fl.s[r->fl.n++] = (struct tg_sym){ s, e };
	}
	return 0;
}

/* Take @e repetitions of class @cls from the cursor into @b; -2 when the
 * segment has other symbols there (then nothing is changed). */
static int take(struct rs *r, uint32_t cls, uint32_t e, struct body *b)
{
	while (e) {
		struct tg_sym s;
		uint32_t k;
		if (r->at >= r->end)
			return -2;
		s = r->fl.s[r->at];
		if (class_of(r, s.sym) != cls)
			return -2;
		k = s.exp - r->used;
		if (k > e)
			k = e;
		if (emit(b, s.sym, k) < 0)
			return -1;
		r->used += k;
		e -= k;
		if (r->used == s.exp) {
			r->at++;
			r->used = 0;
		}
	}
	return 0;
}

static int occur(struct rs *r, uint32_t j, unsigned depth, struct body *b);

/* Symbol @s of the pass's grammar, from the cursor, into @b: a class's
 * repetitions as they are, each occurrence of a rule a made rule. */
static int symbol(struct rs *r, struct tg_sym s, unsigned depth, struct body *b)
{
	uint32_t e, m;
	int rc;

	if (!(s.sym & 1))
		return take(r, s.sym >> 1, s.exp, b);
	for (e = 0; e < s.exp; e++) {
		struct body sub = { 0 };
		rc = occur(r, s.sym >> 1, depth + 1, &sub);
		m = rc < 0 ? 0 : tg_rules_add(&r->made, sub.s, sub.n);
		free(sub.s);
		if (rc < 0)
			return rc;
		if (m == UINT32_MAX || emit(b, (uint32_t)(r->nr + m) << 1 | 1, 1) < 0)
			return -1;
	}
	return 0;
}

/* One occurrence of the pass's rule @j, from the cursor, into @b. */
static int occur(struct rs *r, uint32_t j, unsigned depth, struct body *b)
{
	uint32_t k;
	int rc;

	if (depth > DEPTH_MAX)
		return -2;
	for (k = r->goff[j]; k < r->goff[j + 1]; k++)
		if ((rc = symbol(r, r->gs[k], depth, b)) < 0)
			return rc;
	return 0;
}

/* Which rules are segments, and what the streams' roots and loops flatten
 * to; 0 when too big for the pass. */
static int plan(struct rs *r)
{
	const struct tg_cfg *c = r->c;
	uint64_t total = 0;
	size_t i, q;
	uint32_t k;

	r->seg = calloc(r->nr ? r->nr : 1, 1);
	r->flen = calloc(r->nr ? r->nr : 1, sizeof(*r->flen));
	r->segs = malloc((r->nr ? r->nr : 1) * sizeof(*r->segs));
	if (!r->seg || !r->flen || !r->segs)
		return -1;
	for (i = 0; i < c->nst; i++)
		r->seg[c->st[i].rule] = 1;
	for (k = 0; k < c->nsyms; k++)
		if ((c->syms[k].sym & 1) && c->syms[k].exp > 1)
			r->seg[c->syms[k].sym >> 1] = 1;
	/* rules name earlier ones only */
	for (q = 0; q < r->nr; q++) {
		uint64_t n = 0;
		for (k = c->roff[q]; k < c->roff[q + 1]; k++) {
			uint32_t s = c->syms[k].sym;
			n += (s & 1) && !r->seg[s >> 1] ? r->flen[s >> 1] : 1;
			if (n > FLAT_MAX)
				return 0;
		}
		r->flen[q] = n;
		if (r->seg[q]) {
			r->segs[r->nseg++] = (uint32_t)q;
			if ((total += n) > FLAT_MAX)
				return 0;
		}
	}
	return 1;
}

/* The pass over the segments' classes; 0 when there is nothing for it. */
static int pass(struct rs *r)
{
	struct tg_seq *q;
	size_t i, k;
	int rc = -1, x;

	if (r->nt + r->nr + r->nseg > TG_SEQ_MAXVAL)
		return 0;
	if (!(r->foff = malloc((r->nseg + 1) * sizeof(*r->foff))) || !(q = tg_seq_new()))
		return -1;
	for (i = 0; i < r->nseg; i++) {
		r->foff[i] = (uint32_t)r->fl.n;
		if ((x = flatten(r, r->segs[i], 0)) < 0) {
			rc = x == -2 ? 0 : -1;
			goto out;
		}
		for (k = r->foff[i]; k < r->fl.n; k++)
			if (tg_seq_append(q, class_of(r, r->fl.s[k].sym), r->fl.s[k].exp) < 0)
				goto out;
		if (tg_seq_append(q, (uint32_t)(r->nt + r->nr + i), 1) < 0)
			goto out;
	}
	r->foff[r->nseg] = (uint32_t)r->fl.n;
	if (tg_seq_export(q, &r->gs, &r->goff, &r->gn) < 0)
		goto out;
	rc = 1;
out:
	tg_seq_free(q);
	return rc;
}

/* The segments' new bodies and the rules made, as a DAG for rebuilding
 * @c: nodes 0 .. nr - 1 the old rules, then the made ones. */
static int apply(struct rs *r)
{
	struct tg_cfg *c = r->c;
	struct body *nb = calloc(r->nseg ? r->nseg : 1, sizeof(*nb));
	struct tg_sym *body = NULL;
	uint32_t *off = NULL, *roots = NULL, start = r->gn - 1, k, seg = 0;
	uint8_t *keep = NULL;
	size_t i, n, nn, nsym = 0;
	int rc = -1;

	if (!nb)
		return -1;
	/* the start rule: the segments, each closed by its separator */
	r->at = r->foff[0];
	r->end = r->foff[1];
	r->used = 0;
	for (k = r->goff[start]; k < r->goff[start + 1]; k++) {
		struct tg_sym s = r->gs[k];
		if (!(s.sym & 1) && (s.sym >> 1) >= r->nt + r->nr) {
			if (r->at != r->end || (s.sym >> 1) != r->nt + r->nr + seg) {
				rc = 0;	/* not what was flattened: leave it */
				goto out;
			}
			if (++seg < r->nseg) {
				r->at = r->foff[seg];
				r->end = r->foff[seg + 1];
			}
			continue;
		}
		if (seg >= r->nseg) {
			rc = 0;
			goto out;
		}
		if ((rc = symbol(r, s, 0, &nb[seg])) < 0) {
			rc = rc == -2 ? 0 : -1;
			goto out;
		}
	}
	if (seg != r->nseg) {
		rc = 0;
		goto out;
	}
	/* a segment that is one stretch once is that stretch's body: a rule
	 * of one rule would count its streams twice in the unification */
	for (i = 0; i < r->nseg; i++)
		if (nb[i].n == 1 && (nb[i].s[0].sym & 1) && nb[i].s[0].exp == 1) {
			uint32_t m = (nb[i].s[0].sym >> 1) - (uint32_t)r->nr;
			nb[i].n = 0;
			for (k = r->made.roff[m]; k < r->made.roff[m + 1]; k++)
				if (emit(&nb[i], r->made.syms[k].sym, r->made.syms[k].exp) < 0) {
					rc = -1;
					goto out;
				}
		}
	/* the DAG */
	nn = r->nr + r->made.nrules;
	for (i = 0; i < r->nr; i++)
		nsym += c->roff[i + 1] - c->roff[i];
	for (i = 0; i < r->nseg; i++)
		nsym += nb[i].n;
	nsym += r->made.nsyms;
	body = malloc((nsym ? nsym : 1) * sizeof(*body));
	off = malloc((nn + 1) * sizeof(*off));
	roots = malloc((c->nst ? c->nst : 1) * sizeof(*roots));
	keep = calloc(nn ? nn : 1, 1);
	if (!body || !off || !roots || !keep) {
		rc = -1;
		goto out;
	}
	n = 0;
	for (i = 0, seg = 0; i < r->nr; i++) {
		off[i] = (uint32_t)n;
		if (seg < r->nseg && r->segs[seg] == i) {
			memcpy(body + n, nb[seg].s, nb[seg].n * sizeof(*body));
			n += nb[seg++].n;
		} else {
			memcpy(body + n, c->syms + c->roff[i], (c->roff[i + 1] - c->roff[i]) * sizeof(*body));
			n += c->roff[i + 1] - c->roff[i];
		}
	}
	for (i = 0; i < r->made.nrules; i++) {
		off[r->nr + i] = (uint32_t)n;
		k = r->made.roff[i + 1] - r->made.roff[i];
		memcpy(body + n, r->made.syms + r->made.roff[i], k * sizeof(*body));
		n += k;
		keep[r->nr + i] = 1;
	}
	off[nn] = (uint32_t)n;
	for (i = 0; i < c->nst; i++)
		roots[i] = c->st[i].rule;
	rc = tg_cfg_rebuild_keep(c, nn, body, off, roots, keep) < 0 ? -1 : 1;
out:
	for (i = 0; i < r->nseg; i++)
		free(nb[i].s);
	free(nb);
	free(body);
	free(off);
	free(roots);
	free(keep);
	return rc;
}

int tg_cfg_reshape(struct tg_cfg *c)
{
	struct rs r;
	uint64_t *tsh = NULL, *rlen = NULL, *rh = NULL, *rkey = NULL;
	size_t i;
	int rc = 0;

	if (c->nst < 2 || !c->nrules)
		return 0;
	for (i = 0; i < c->nst; i++)
		if (c->st[i].v.timing != TG_T_AGG)
			return 0;
	memset(&r, 0, sizeof(r));
	r.c = c;
	r.nt = c->ncst;
	r.nr = c->nrules;
	if ((rc = tg_cfg_shapes(c, &tsh, &rlen, &rh)) < 0) {
		rc = rc == -2 ? 0 : -1;
		goto out;
	}
	rc = -1;
	r.tcls = malloc((r.nt ? r.nt : 1) * sizeof(*r.tcls));
	r.rcls = malloc(r.nr * sizeof(*r.rcls));
	rkey = malloc(r.nr * sizeof(*rkey));
	if (!r.tcls || !r.rcls || !rkey)
		goto out;
	for (i = 0; i < r.nr; i++)
		rkey[i] = rh[i] ^ (rlen[i] * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull);
	if (classes(tsh, r.nt, r.tcls) < 0 || classes(rkey, r.nr, r.rcls) < 0)
		goto out;
	if ((rc = plan(&r)) <= 0 || (rc = pass(&r)) <= 0)
		goto out;
	rc = apply(&r);
out:
	free(tsh);
	free(rlen);
	free(rh);
	free(rkey);
	free(r.tcls);
	free(r.rcls);
	free(r.seg);
	free(r.flen);
	free(r.segs);
	free(r.fl.s);
	free(r.foff);
	free(r.gs);
	free(r.goff);
	tg_rules_release(&r.made);
	return rc;
}
