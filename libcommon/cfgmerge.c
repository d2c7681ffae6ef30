/*
 * cfgmerge.c - merging a compressed trace into another: strings,
 * signatures and rules are renumbered into the destination's, streams are
 * copied with their STIME and XTIME payloads as they are.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgint.h"
#include "banned.h"

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
		const struct tg_cst *e = &src->cst[i];
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
		if ((t = tg_cfg_cst_intern(dst, w.w, w.n, 1)) < 0)
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
		rmap[i] = tg_cfg_rule_add(dst, body, b - a);
		free(body);
		if (rmap[i] == UINT32_MAX)
			goto oom;
	}
	for (i = 0; i < src->nst; i++) {
		const struct tg_cstream *ss = &src->st[i];
		struct tg_cstream *ds = tg_cfg_stream_new(dst);
		if (!ds)
			goto oom;
		ds->v = ss->v;
		memset(&ds->v.h, 0, sizeof(ds->v.h));
		ds->rule = rmap[ss->rule];
		if (tg_cfg_header_copy(&ds->v.h, &ss->v.h) < 0)
			goto oom;
		if (ss->nclock) {
			if (!(ds->clock = malloc(ss->nclock * sizeof(uint64_t))))
				goto oom;
			memcpy(ds->clock, ss->clock, ss->nclock * sizeof(uint64_t));
			ds->nclock = ss->nclock;
		}
		if (ss->nrep) {
			if (!(ds->rep = malloc(ss->nrep * sizeof(uint64_t))))
				goto oom;
			memcpy(ds->rep, ss->rep, ss->nrep * sizeof(uint64_t));
			ds->nrep = ss->nrep;
		}
		if (ss->nlocal) {
			if (!(ds->local = malloc(ss->nlocal * sizeof(uint64_t))))
				goto oom;
			memcpy(ds->local, ss->local, ss->nlocal * sizeof(uint64_t));
			ds->nlocal = ss->nlocal;
		}
		if (ss->lstr) {	/* string references, into dst's table */
			if (!(ds->lstr = malloc(ss->nlocal)))
				goto oom;
			memcpy(ds->lstr, ss->lstr, ss->nlocal);
			for (size_t k = 0; k < ss->nlocal; k++)
				if (ss->lstr[k] && ss->local[k])
					ds->local[k] = (uint64_t)smap[ss->local[k] - 1] + 1;
		}
		ds->seqv = ss->seqv;
		if (ss->nforeign) {
			if (!(ds->foreign = malloc(ss->nforeign * sizeof(uint64_t))))
				goto oom;
			memcpy(ds->foreign, ss->foreign, ss->nforeign * sizeof(uint64_t));
			ds->nforeign = ss->nforeign;
		}
		if (ss->tz) {
			if (!(ds->tz = malloc(ss->tzlen)))
				goto oom;
			memcpy(ds->tz, ss->tz, ss->tzlen);
			ds->tzlen = ss->tzlen;
			ds->traw = ss->traw;
		}
		if (ss->nx) {	/* the anchored calls' times, as stored */
			if (!(ds->xz = malloc(ss->xzlen ? ss->xzlen : 1)))
				goto oom;
			memcpy(ds->xz, ss->xz, ss->xzlen);
			ds->xzlen = ss->xzlen;
			ds->xzlib = ss->xzlib;
			ds->xraw = ss->xraw;
			ds->nx = ss->nx;
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
