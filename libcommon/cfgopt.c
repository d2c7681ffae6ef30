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

/* Symbols the roots may take in a row, at most (flatten_roots()): a few
 * times what the rules hold (streams that share little grow far more
 * written out, and never gain), and never more than 4 M. */
#define FLAT_CAP(c) ((c)->nsyms < ((size_t)1 << 20) ? 4 * (c)->nsyms + 4096 : ((size_t)1 << 22))

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

/*
 * Templates that named no rank.  A process's encoder writes a string
 * whose last run of digits is its world rank as a template (the string
 * with the rank left out): "out.3" of rank 3 and "out.5" of rank 5 are
 * then one signature.  But the digits may be a version or a size that
 * equals the rank by chance: rank 3 of an Open MPI program stats
 * ".../openmpi3/mca_*.so" as every rank does, and its signatures, all
 * templates, were its own; and a random name (mkstemp's) holds the rank
 * by chance as often.  A template signature that only processes of one
 * world rank reach is put back as the signature of the string it stands
 * for there: where another process has that signature the two become
 * one, and where the others name other strings the unification can
 * share it (tg_cfg_unify(): a string is a chunk, a template is not).
 * 0, or -1 when out of memory.
 */
/* Drop the strings no signature names (the stream headers' are put in
 * when the file is written); 0, or -1 when out of memory. */
static int strings_compact(struct tg_cfg *c)
{
	size_t n = c->strs.n, i, k, used = 0;
	uint32_t *remap = calloc(n ? n : 1, sizeof(*remap)), pos[64];
	struct tg_strtab t = { 0 };
	int rc = -1;

	if (!remap)
		return -1;
	for (i = 0; i < c->ncst; i++) {
		const int64_t *w = c->words + c->cst[i].off;
		int64_t np = tg_sig_strings(w, c->cst[i].n, pos, sizeof(pos) / sizeof(pos[0]));
		if (np < 0 || np > (int64_t)(sizeof(pos) / sizeof(pos[0]))) {
			rc = 0;		/* not known: keep them all */
			goto out;
		}
		for (k = 0; k < (size_t)np; k++)
			if (w[pos[k]] > 0 && !remap[w[pos[k]] - 1]++)
				used++;
	}
	for (i = 0; i < c->nst; i++)	/* and the streams' string local values */
		for (k = 0; c->st[i].lstr && k < c->st[i].nlocal; k++)
			if (c->st[i].lstr[k] && c->st[i].local[k] &&
			    !remap[c->st[i].local[k] - 1]++)
				used++;
	if (used == n) {
		rc = 0;
		goto out;
	}
	for (i = 0; i < n; i++) {
		int64_t x;
		if (!remap[i])
			continue;
		if ((x = tg_strtab_intern(&t, c->strs.s[i], c->strs.len[i])) < 0)
			goto out;
		remap[i] = (uint32_t)x;
	}
	for (i = 0; i < c->ncst; i++)
		if (tg_sig_check(c->words + c->cst[i].off, c->cst[i].n, n, remap) < 0)
			goto out;
	for (i = 0; i < c->nst; i++)
		for (k = 0; c->st[i].lstr && k < c->st[i].nlocal; k++)
			if (c->st[i].lstr[k] && c->st[i].local[k])
				c->st[i].local[k] = (uint64_t)remap[c->st[i].local[k] - 1] + 1;
	tg_strtab_release(&c->strs);
	c->strs = t;
	memset(&t, 0, sizeof(t));
	free(c->cstidx);	/* the words changed: rebuilt when next needed */
	c->cstidx = NULL;
	c->cstidxcap = 0;
	tg_cfg_caches_free(c);
	c->ready = 0;
	rc = 0;
out:
	tg_strtab_release(&t);
	free(remap);
	return rc;
}

#define RANK_NONE INT64_C(-2)	/* reached by no stream yet */
#define RANK_MANY INT64_C(-1)	/* by streams of more than one rank */

static void rank_meet(int64_t *a, int64_t b)
{
	if (*a == RANK_NONE)
		*a = b;
	else if (*a != b)
		*a = RANK_MANY;
}

static int untemplate(struct tg_cfg *c)
{
	size_t nt = c->ncst, i, r;
	int64_t *rr = malloc((c->nrules ? c->nrules : 1) * sizeof(*rr));
	int64_t *tr = malloc((nt ? nt : 1) * sizeof(*tr));
	uint32_t *to = malloc((nt ? nt : 1) * sizeof(*to)), pos[64];
	struct tg_words w = { 0 };
	char *lit = NULL;
	size_t caplit = 0;
	int changed = 0, rc = -1;

	if (!rr || !tr || !to || tg_cfg_renormalize(c) < 0)
		goto out;
	for (i = 0; i < nt; i++) {
		const int64_t *s = c->words + c->cst[i].off;
		to[i] = (uint32_t)i;
		tr[i] = RANK_NONE;
		/* a process whose rank changes: its templates had other ranks */
		if (c->cst[i].n == 3 && s[0] == TG_REC_RANK && s[1] != 0) {
			rc = 0;
			goto out;
		}
	}
	for (r = 0; r < c->nrules; r++)
		rr[r] = RANK_NONE;
	for (i = 0; i < c->nst; i++) {
		const struct tg_cfg_stream *v = &c->st[i].v;
		rank_meet(&rr[c->st[i].rule],
			  v->rank >= 0 && (v->h.rank < 0 || v->h.rank == v->rank) ? v->rank
										  : RANK_MANY);
	}
	/* rules name only rules below them */
	for (r = c->nrules; r-- > 0;) {
		uint32_t k;
		if (rr[r] == RANK_NONE)
			continue;
		for (k = c->roff[r]; k < c->roff[r + 1]; k++) {
			uint32_t s = c->syms[k].sym;
			rank_meet(s & 1 ? &rr[s >> 1] : &tr[s >> 1], rr[r]);
		}
	}
	for (i = 0; i < nt; i++) {
		int64_t np, j, t;
		size_t n, at;
		char dec[24];
		int dl, tmpl = 0;
		if (tr[i] < 0 || c->words[c->cst[i].off] != TG_REC_CALL)
			continue;
		n = c->cst[i].n;
		if ((np = tg_sig_strings(c->words + c->cst[i].off, n, pos,
					 sizeof(pos) / sizeof(pos[0]))) <= 0 ||
		    np > (int64_t)(sizeof(pos) / sizeof(pos[0])))
			continue;
		for (j = 0; j < np; j++)
			tmpl |= c->words[c->cst[i].off + pos[j] - 1] == 1;
		if (!tmpl)
			continue;
		dl = snprintf(dec, sizeof(dec), "%lld", (long long)tr[i]);
		w.n = 0;
		for (at = 0, j = 0; at < n; at++) {
			const int64_t *s = c->words + c->cst[i].off;
			size_t len, p;
			int64_t ref;
			if (j >= np || at + 1 != pos[j] || s[at] != 1) {
				if (j < np && at == pos[j])
					j++;
				if (tg_words_push(&w, s[at]) < 0)
					goto out;
				continue;
			}
			/* form 1, the template's reference, its position */
			ref = s[at + 1];
			if (at + 2 >= n || ref <= 0 || (uint64_t)ref > c->strs.n ||
			    s[at + 2] < 0 || (uint64_t)s[at + 2] > c->strs.len[ref - 1])
				break;	/* not as tg_sig_decode() reads it: left alone */
			p = (size_t)s[at + 2];
			len = c->strs.len[ref - 1];
			if (len + (size_t)dl + 1 > caplit) {
				char *nl = realloc(lit, len + (size_t)dl + 1);
				if (!nl)
					goto out;
				lit = nl;
				caplit = len + (size_t)dl + 1;
			}
			memcpy(lit, c->strs.s[ref - 1], p);
			memcpy(lit + p, dec, (size_t)dl);
			memcpy(lit + p + dl, c->strs.s[ref - 1] + p, len - p);
			if ((t = tg_strtab_intern(&c->strs, lit, len + (size_t)dl)) < 0 ||
			    tg_words_push(&w, 0) < 0 || tg_words_push(&w, t + 1) < 0)
				goto out;
			at += 2;
			j++;
		}
		if (at < n)
			continue;
		if ((t = tg_cfg_cst_intern(c, w.w, w.n, 1)) < 0)
			goto out;
		if (t != (int64_t)i) {
			/* the literal signature, another process's or new: the calls become its */
			to[i] = (uint32_t)t;
			c->agg[t].count += c->agg[i].count;
			c->agg[t].dur += c->agg[i].dur;
			c->agg[t].gap += c->agg[i].gap;
			memset(&c->agg[i], 0, sizeof(c->agg[i]));
			changed = 1;
		}
	}
	if (changed) {
		for (i = 0; i < c->nsyms; i++)
			if (!(c->syms[i].sym & 1))
				c->syms[i].sym = to[c->syms[i].sym >> 1] << 1;
		c->ready = 0;
	}
	/* what was added for nothing, and what is named no more, goes */
	if ((changed || c->ncst > nt) &&
	    (tg_cfg_renormalize(c) < 0 || tg_cfg_cst_compact(c) < 0 || strings_compact(c) < 0))
		goto out;
	rc = 0;
out:
	free(rr);
	free(tr);
	free(to);
	free(lit);
	tg_words_release(&w);
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
 * Each stream's root with every rule it names once in a row put in
 * place, down to the loops (a rule or call repeated) and the calls: the
 * roots become the streams' calls in order, loops kept.  Sequitur cuts
 * two streams that differ in a few places (the MPI library's start-up,
 * its progress thread, where timing decides the order of a wake-up and a
 * reply and how often a poll finds nothing) into rules that differ far
 * beyond those places; written in a row, the streams' roots differ only
 * there, and the section's zlib finds the rest in the roots before.
 * 1 when flattened, 0 when the roots would exceed @cap symbols, -1 when
 * out of memory.
 */
static int flatten_roots(struct tg_cfg *c, size_t cap)
{
	size_t nold = c->nrules, i, nb = c->nsyms, nroots = 0;
	struct tg_sym *body = NULL;
	uint32_t *off = NULL, *roots = NULL, *newnode = NULL, *stack = NULL;
	size_t capb, depth = 0, capst = 64;
	int rc = -1;

	if (!(newnode = malloc((nold ? nold : 1) * sizeof(*newnode))) ||
	    !(off = malloc((nold + c->nst + 1) * sizeof(*off))) ||
	    !(roots = malloc((c->nst ? c->nst : 1) * sizeof(*roots))) ||
	    !(stack = malloc(capst * 2 * sizeof(*stack))))
		goto out;
	capb = nb + cap + 1;
	if (!(body = malloc(capb * sizeof(*body))))
		goto out;
	if (nb)
		memcpy(body, c->syms, nb * sizeof(*body));
	memcpy(off, c->roff, (nold + 1) * sizeof(*off));
	for (i = 0; i < nold; i++)
		newnode[i] = UINT32_MAX;
	for (i = 0; i < c->nst; i++) {
		uint32_t r = c->st[i].rule;
		if (newnode[r] == UINT32_MAX) {
			/* node nold + nroots: the expansion of r down to loops */
			newnode[r] = (uint32_t)(nold + nroots);
			depth = 0;
			stack[depth * 2] = r;
			stack[depth * 2 + 1] = c->roff[r];
			depth = 1;
			while (depth) {
				uint32_t u = stack[depth * 2 - 2], k = stack[depth * 2 - 1];
				struct tg_sym s;
				if (k >= c->roff[u + 1]) {
					depth--;
					continue;
				}
				stack[depth * 2 - 1] = k + 1;
				s = c->syms[k];
				if ((s.sym & 1) && s.exp == 1) {
					if (depth == capst) {
						uint32_t *ns = realloc(stack, capst * 4 * sizeof(*stack));
						if (!ns)
							goto out;
						stack = ns;
						capst *= 2;
					}
					stack[depth * 2] = s.sym >> 1;
					stack[depth * 2 + 1] = c->roff[s.sym >> 1];
					depth++;
					continue;
				}
				if (nb - c->nsyms >= cap) {
					rc = 0;
					goto out;
				}
				body[nb++] = s;
			}
			nroots++;
			off[nold + nroots] = (uint32_t)nb;
		}
		roots[i] = newnode[r];
	}
	rc = tg_cfg_rebuild(c, nold + nroots, body, off, roots) < 0 ? -1 : 1;
out:
	free(body);
	free(off);
	free(roots);
	free(newnode);
	free(stack);
	return rc;
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
	int rc = -1, cut, x;
	int apart = (e = getenv("TANGRAM_UNIFY")) && !strcmp(e, "0");

	if (c->nst > 1 && !apart && untemplate(c) < 0)
		return -1;
	if (seq_pass(c) < 0)
		return -1;
	if (c->nst < 2 || apart)
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
	/* and the best of those with its roots in a row */
	free(keep);
	keep = NULL;
	tg_cfg_free(alt);
	if (tg_cfg_pack(c, &keep, &klen) < 0 ||
	    !(alt = tg_cfg_unpack(keep, klen, err, sizeof(err))))
		goto out;
	if ((x = flatten_roots(alt, FLAT_CAP(alt))) < 0)
		goto out;
	if (x && ((size = file_size(alt)) < 0))
		goto out;
	if (x && size < best) {
		best = size;
		swap_cfg(c, alt);
	}
	rc = 0;
out:
	tg_cfg_free(alt);
	free(keep);
	return rc;
}
