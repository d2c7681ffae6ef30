/*
 * cfg.c - compressed traces (tangram-cfg(5)): a trace in memory, made,
 * freed and looked at, and the helpers the other cfg*.c files share
 * (cfgint.h says which file does which job); it calls none of them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "cfgint.h"
#include "banned.h"

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

int tg_cfg_header_copy(struct tg_header *d, const struct tg_header *s)
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

static void stream_release(struct tg_cstream *s)
{
	tg_header_release(&s->v.h);
	free(s->clock);
	free(s->rep);
	free(s->local);
	free(s->lstr);
	free(s->foreign);
	free(s->tz);
	free(s->xz);
	memset(s, 0, sizeof(*s));
}

void tg_cfg_caches_free(struct tg_cfg *c)
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
	tg_cfg_caches_free(c);
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

/* ---- helpers of the other files -------------------------------------------- */

int tg_cfg_thread_room(uint64_t **a, uint64_t **b, size_t *n, uint64_t tid)
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

int tg_cfg_deflate(const unsigned char *in, size_t n, unsigned char **out, size_t *outn)
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

int tg_cfg_inflate(const unsigned char *z, size_t zn, uint64_t raw, unsigned char **out)
{
	uLongf len = (uLongf)raw;
	unsigned char *b;

	if (raw > TG_SEC_MAXRAW || !(b = malloc(raw ? raw : 1)))
		return -1;
	if (uncompress(b, &len, z, (uLong)zn) != Z_OK || len != raw) {
		free(b);
		return -1;
	}
	*out = b;
	return 0;
}

struct tg_cstream *tg_cfg_stream_new(struct tg_cfg *c)
{
	if (c->nst == c->capst) {
		size_t nc = c->capst ? c->capst * 2 : 16;
		struct tg_cstream *ns = realloc(c->st, nc * sizeof(*ns));
		if (!ns)
			return NULL;
		c->st = ns;
		c->capst = nc;
	}
	memset(&c->st[c->nst], 0, sizeof(c->st[0]));
	return &c->st[c->nst++];
}
