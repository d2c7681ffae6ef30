/*
 * cfgrebuild.c - rebuilding the rules of a compressed trace from a DAG
 * of rule bodies, normalized, for the final Sequitur pass (cfgopt.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cfg.h"

#include <stdlib.h>
#include <string.h>

#include "cfgint.h"
#include "banned.h"

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
 * place (unless @keep, when given, is set for it), one whose body is a
 * single symbol is replaced by it, equal neighbours fuse, and identical
 * bodies are kept once.
 */
int tg_cfg_rebuild_keep(struct tg_cfg *c, size_t nnodes, const struct tg_sym *body,
			const uint32_t *off, const uint32_t *roots, const uint8_t *keep)
{
	size_t nn = nnodes ? nnodes : 1, i, ns = 0, no = 0;
	uint32_t *refs = calloc(nn, sizeof(uint32_t)), *newidx = malloc(nn * sizeof(uint32_t));
	uint32_t *stack = malloc(nn * 2 * sizeof(uint32_t)), *order = malloc(nn * sizeof(uint32_t));
	uint32_t *fs = malloc(nn * sizeof(uint32_t)), *fl = malloc(nn * sizeof(uint32_t));
	uint8_t *state = calloc(nn, 1), *isroot = calloc(nn, 1);
	struct tg_rules out = { 0 };
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
			if (!isroot[q] && refs[q] == 1 && s.exp == 1 && !(keep && keep[q])) {
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
					    (newidx[q] = tg_rules_add(&out, qb, fl[q])) == UINT32_MAX)
						goto out;
					x.sym = newidx[q] << 1 | 1;
					x.exp = s.exp;
				}
				sym_emit(&tmp, fs[u], x);
			}
		}
		fl[u] = (uint32_t)(tmp.n / sizeof(struct tg_sym)) - fs[u];
		if (isroot[u] && newidx[u] == UINT32_MAX &&
		    (newidx[u] = tg_rules_add(&out, (const struct tg_sym *)(void *)tmp.b + fs[u],
					      fl[u])) == UINT32_MAX)
			goto out;
	}
	for (i = 0; i < c->nst; i++)
		c->st[i].rule = newidx[roots[i]];
	if (!out.roff && !(out.roff = calloc(1, sizeof(uint32_t))))
		goto out;
	{
		struct tg_rules old = tg_cfg_rules_take(c);
		tg_rules_release(&old);
		tg_cfg_rules_give(c, &out);
	}
	rc = 0;
out:
	if (rc)
		tg_rules_release(&out);
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

int tg_cfg_rebuild(struct tg_cfg *c, size_t nnodes, const struct tg_sym *body,
		   const uint32_t *off, const uint32_t *roots)
{
	return tg_cfg_rebuild_keep(c, nnodes, body, off, roots, NULL);
}

/* Rebuild the rules of @c in place (normalize, drop unused ones). */
int tg_cfg_renormalize(struct tg_cfg *c)
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
	rc = tg_cfg_rebuild(c, c->nrules, body, off, roots);
out:
	free(body);
	free(off);
	free(roots);
	return rc;
}
