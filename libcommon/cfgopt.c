/*
 * cfgopt.c - the final Sequitur pass: one grammar over the rules of all
 * the streams of a compressed trace finds what they have in common.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cfg.h"

#include <stdlib.h>
#include <string.h>

#include "cfgint.h"
#include "stream.h"
#include "sequitur.h"
#include "banned.h"

/* One Sequitur pass over all the rules. */
static int seq_pass(struct tg_cfg *c)
{
	struct tg_seq *q = NULL;
	struct tg_sym *gs = NULL, *body = NULL;
	uint32_t *goff = NULL, gn = 0, *off = NULL, *roots = NULL, *segstart = NULL;
	size_t i, nb = 0, nt, nold;
	int rc = -1;

	if (tg_cfg_renormalize(c) < 0)
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
		rc = tg_cfg_rebuild(c, nnodes, body, off, roots);
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

/* The bytes @c takes as a file; -1 when out of memory. */
static int64_t file_size(struct tg_cfg *c)
{
	struct tg_stream *s = tg_stream_mem_writer();
	size_t n = 0;
	int rc;

	if (!s)
		return -1;
	rc = tg_cfg_write(c, s, "");
	tg_stream_mem_data(s, &n);
	tg_stream_close(s);
	return rc < 0 ? -1 : (int64_t)n;
}

/* Swap the contents of @c and @d. */
static void swap_cfg(struct tg_cfg *c, struct tg_cfg *d)
{
	struct tg_cfg tmp = *c;

	*c = *d;
	*d = tmp;
}

/*
 * One try at sharing the rules of the streams of @t (a copy): cut alike
 * first when @cut (cfgreshape.c), then unified (cfgunify.c), and what
 * they share found again.  *@size is the file it gives, or -1 when the
 * try changed nothing (or, with @cut, found nothing to cut); -1 when out
 * of memory.
 */
static int try_share(struct tg_cfg *t, int cut, int64_t *size)
{
	int x, y = 0;

	*size = -1;
	if (cut && (y = tg_cfg_reshape(t)) <= 0)
		return y;	/* not cut: the first try was this one */
	if ((x = tg_cfg_unify(t)) < 0)
		return -1;
	if (!x && !y)
		return 0;
	if (seq_pass(t) < 0 || (*size = file_size(t)) < 0)
		return -1;
	return 0;
}

/*
 * The final pass; then the streams that differ in integers only share
 * rules (cfgunify.c), and what they now share is found again.  That is
 * tried on the rules as Sequitur cut them, and on the streams' rules cut
 * alike first (cfgreshape.c), which finds more in most runs but not in
 * all: the passes guess what a signature and a local value cost, so of
 * the three files the smallest is kept.
 */
int tg_cfg_optimize(struct tg_cfg *c)
{
	unsigned char *keep = NULL;
	size_t klen = 0;
	int64_t best, size;
	struct tg_cfg *alt = NULL;
	char err[128];
	const char *e;
	int rc = -1, cut;

	if (seq_pass(c) < 0)
		return -1;
	if (c->nst < 2 || ((e = getenv("TANGRAM_UNIFY")) && !strcmp(e, "0")))
		return 0;
	if ((best = file_size(c)) < 0 || tg_cfg_pack(c, &keep, &klen) < 0)
		goto out;
	/* c keeps the smallest so far; alt is each try, from the copy */
	for (cut = 0; cut < 2; cut++) {
		tg_cfg_free(alt);
		if (!(alt = tg_cfg_unpack(keep, klen, err, sizeof(err))) ||
		    try_share(alt, cut, &size) < 0)
			goto out;
		if (size >= 0 && size < best) {
			best = size;
			swap_cfg(c, alt);
		}
	}
	rc = 0;
out:
	tg_cfg_free(alt);
	free(keep);
	return rc;
}
