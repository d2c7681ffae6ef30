/*
 * cfggram.c - the read-only grammar view of cfggram.h over the insides of
 * a tg_cfg (cfgint.h).
 */
#include "cfggram.h"

#include "cfgint.h"
#include "banned.h"

size_t tg_cfg_nrules(const struct tg_cfg *c)
{
	return c->nrules;
}

const struct tg_sym *tg_cfg_rule_body(const struct tg_cfg *c, size_t r, size_t *n)
{
	if (r >= c->nrules) {
		*n = 0;
		return NULL;
	}
	*n = c->roff[r + 1] - c->roff[r];
	return c->syms + c->roff[r];
}

uint32_t tg_cfg_stream_rule(const struct tg_cfg *c, size_t i)
{
	return i < c->nst ? c->st[i].rule : UINT32_MAX;
}

size_t tg_cfg_nsigs(const struct tg_cfg *c)
{
	return c->ncst;
}

const int64_t *tg_cfg_sig_words(const struct tg_cfg *c, size_t t, size_t *n)
{
	if (t >= c->ncst) {
		*n = 0;
		return NULL;
	}
	*n = c->cst[t].n;
	return c->words + c->cst[t].off;
}
