/*
 * cfgpack.c - a compressed trace as bytes, exactly as it is in memory, to
 * hand it to another process of trace-merge --mpi (tg_cfg_pack in cfg.h).
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
		const struct tg_agg *a = &c->agg[i];
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
		const struct tg_cstream *s = &c->st[i];
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
		       pk_put(&b, s->clock, s->nclock * sizeof(uint64_t)) < 0 ||
		       pk_u64(&b, s->nlocal) < 0 ||
		       pk_put(&b, s->local, s->nlocal * sizeof(uint64_t)) < 0 ||
		       pk_u32(&b, s->lstr != NULL) < 0 ||
		       pk_put(&b, s->lstr, s->lstr ? s->nlocal : 0) < 0 ||
		       pk_u32(&b, (uint32_t)s->seqv) < 0 || pk_u64(&b, s->nforeign) < 0 ||
		       pk_put(&b, s->foreign, s->nforeign * sizeof(uint64_t)) < 0;
		bad |= pk_u32(&b, s->tz != NULL) < 0 || pk_u64(&b, s->tzlen) < 0 ||
		       pk_u64(&b, s->traw) < 0 || pk_u64(&b, s->tzat) < 0 ||
		       pk_put(&b, s->tz, s->tz ? s->tzlen : 0) < 0 ||
		       pk_u64(&b, h->run) < 0 || pk_u64(&b, s->nrep) < 0 ||
		       pk_put(&b, s->rep, s->nrep * sizeof(uint64_t)) < 0;
		bad |= pk_u32(&b, (uint32_t)s->v.anchored) < 0 || pk_u64(&b, s->nx) < 0 ||
		       pk_u32(&b, (uint32_t)s->xzlib) < 0 || pk_u64(&b, s->xzlen) < 0 ||
		       pk_u64(&b, s->xraw) < 0 || pk_u64(&b, s->xzat) < 0 ||
		       pk_put(&b, s->xz, s->nx ? s->xzlen : 0) < 0;
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

/*
 * The parts of a packed trace, each read by one function from @k into @c:
 * 0 when done or when @k ran out (k->bad: nothing more is read), -1 when
 * out of memory, 1 when what was read is wrong (*@why says what).
 */
static int unpack_strings(struct upk *k, struct tg_cfg *c, const char **why)
{
	uint64_t n = upk_u64(k), i;

	for (i = 0; i < n && !k->bad; i++) {
		uint64_t l = upk_u64(k);
		const char *s = upk_get(k, l);
		if (s && (tg_strtab_intern(&c->strs, s, l) < 0 || c->strs.n != i + 1)) {
			*why = "a string twice, or out of memory";
			return 1;
		}
	}
	return 0;
}

static int unpack_cst(struct upk *k, struct tg_cfg *c)
{
	struct tg_words w = { 0 };
	uint64_t n = upk_u64(k), i, j;
	int rc = 0;

	for (i = 0; i < n && !k->bad; i++) {
		uint32_t nw = upk_u32(k);
		const void *p = upk_get(k, (uint64_t)nw * sizeof(int64_t));
		uint64_t v[5];
		int64_t t;
		for (j = 0; j < 5; j++)
			v[j] = upk_u64(k);
		if (k->bad)
			break;
		w.n = 0;
		for (j = 0; j < nw; j++) {
			int64_t x;
			memcpy(&x, (const unsigned char *)p + j * sizeof(x), sizeof(x));
			if (tg_words_push(&w, x) < 0)
				goto oom;
		}
		if ((t = tg_cfg_cst_intern(c, w.w, w.n, 0)) < 0)
			goto oom;
		c->agg[t].count = v[0];
		c->agg[t].dur = (unsigned __int128)v[2] << 64 | v[1];
		c->agg[t].gap = (__int128)((unsigned __int128)v[4] << 64 | v[3]);
	}
	goto out;
oom:
	rc = -1;
out:
	tg_words_release(&w);
	return rc;
}

static int unpack_rules(struct upk *k, struct tg_cfg *c, const char **why)
{
	uint64_t n = upk_u64(k), i, j;

	for (i = 0; i < n && !k->bad; i++) {
		uint32_t nb = upk_u32(k);
		const void *p = upk_get(k, (uint64_t)nb * sizeof(struct tg_sym));
		struct tg_sym *body;
		uint32_t r;
		if (!p)
			break;
		if (!(body = malloc((nb ? nb : 1) * sizeof(*body))))
			return -1;
		if (nb)
			memcpy(body, p, nb * sizeof(*body));
		for (j = 0; j < nb; j++)
			if (!body[j].exp || (body[j].sym & 1 ? (body[j].sym >> 1) >= i
							    : (body[j].sym >> 1) >= c->ncst))
				break;
		r = j == nb ? tg_cfg_rule_add(c, body, nb) : UINT32_MAX - 1;
		free(body);
		if (r == UINT32_MAX)
			return -1;
		if (r != i) {
			*why = "a bad rule";
			return 1;
		}
	}
	return 0;
}

/* The header of a stream into @h: k->bad when it does not fit. */
static void unpack_header(struct upk *k, struct tg_header *h)
{
	uint32_t argc, j;

	h->version = (int)upk_u32(k);
	h->flags = upk_u32(k);
	h->rank = (int64_t)upk_u64(k);
	h->world = upk_u64(k);
	h->pid = upk_u64(k);
	h->ppid = upk_u64(k);
	h->clock_base = upk_u64(k);
	h->host = upk_str(k);
	h->cwd = upk_str(k);
	argc = upk_u32(k);
	if (k->bad || argc > (uint64_t)(k->end - k->p) / 8 ||
	    !(h->argv = calloc((size_t)argc + 1, sizeof(char *)))) {
		k->bad = 1;
		return;
	}
	for (j = 0; j < argc && !k->bad; j++)
		if ((h->argv[j] = upk_str(k)))
			h->argc = (int)j + 1;
}

/* The fields of stream @s after its header: k->bad when they do not fit. */
static void unpack_stream(struct upk *k, struct tg_cstream *s)
{
	uint32_t hastz;

	s->v.rank = (int64_t)upk_u64(k);
	s->v.records = upk_u64(k);
	s->v.calls = upk_u64(k);
	s->v.end = upk_u64(k);
	s->v.timing = (int)upk_u32(k);
	s->v.err_ppm = upk_u32(k);
	s->v.bits = upk_u32(k);
	s->v.samples = upk_u32(k);
	s->rule = upk_u32(k);
	s->nclock = (size_t)upk_u64(k);
	if (!k->bad && s->nclock) {
		const void *p = upk_get(k, (uint64_t)s->nclock * sizeof(uint64_t));
		if (!p || !(s->clock = malloc(s->nclock * sizeof(uint64_t)))) {
			s->nclock = 0;
			k->bad = 1;
			return;
		}
		memcpy(s->clock, p, s->nclock * sizeof(uint64_t));
	}
	s->nlocal = (size_t)upk_u64(k);
	if (!k->bad && s->nlocal) {
		const void *p = upk_get(k, (uint64_t)s->nlocal * sizeof(uint64_t));
		if (!p || !(s->local = malloc(s->nlocal * sizeof(uint64_t)))) {
			s->nlocal = 0;
			k->bad = 1;
			return;
		}
		memcpy(s->local, p, s->nlocal * sizeof(uint64_t));
	}
	if (upk_u32(k) && !k->bad && s->nlocal) {	/* which are strings */
		const void *p = upk_get(k, s->nlocal);
		if (!p || !(s->lstr = malloc(s->nlocal))) {
			k->bad = 1;
			return;
		}
		memcpy(s->lstr, p, s->nlocal);
	}
	s->seqv = (int)upk_u32(k);
	s->nforeign = (size_t)upk_u64(k);
	if (!k->bad && s->nforeign) {
		const void *p = upk_get(k, (uint64_t)s->nforeign * sizeof(uint64_t));
		if (!p || !(s->foreign = malloc(s->nforeign * sizeof(uint64_t)))) {
			s->nforeign = 0;
			k->bad = 1;
			return;
		}
		memcpy(s->foreign, p, s->nforeign * sizeof(uint64_t));
	}
	hastz = upk_u32(k);
	s->tzlen = (size_t)upk_u64(k);
	s->traw = upk_u64(k);
	s->tzat = upk_u64(k);
	if (!k->bad && hastz) {
		const void *p = upk_get(k, s->tzlen);
		if (!p || !(s->tz = malloc(s->tzlen ? s->tzlen : 1))) {
			k->bad = 1;
			return;
		}
		memcpy(s->tz, p, s->tzlen);
	}
	s->v.h.run = upk_u64(k);
	s->nrep = (size_t)upk_u64(k);
	if (!k->bad && s->nrep) {
		const void *p = upk_get(k, (uint64_t)s->nrep * sizeof(uint64_t));
		if (!p || s->nrep % 3 || !(s->rep = malloc(s->nrep * sizeof(uint64_t)))) {
			s->nrep = 0;
			k->bad = 1;
			return;
		}
		memcpy(s->rep, p, s->nrep * sizeof(uint64_t));
	}
	s->v.anchored = (int)upk_u32(k);
	s->nx = upk_u64(k);
	s->xzlib = (int)upk_u32(k);
	s->xzlen = (size_t)upk_u64(k);
	s->xraw = upk_u64(k);
	s->xzat = upk_u64(k);
	if (!k->bad && s->nx) {
		const void *p = upk_get(k, s->xzlen);
		if (!p || !(s->xz = malloc(s->xzlen ? s->xzlen : 1))) {
			s->nx = 0;
			k->bad = 1;
			return;
		}
		memcpy(s->xz, p, s->xzlen);
	}
}

static int unpack_streams(struct upk *k, struct tg_cfg *c, const char **why)
{
	uint64_t n = upk_u64(k), i;

	for (i = 0; i < n && !k->bad; i++) {
		struct tg_cstream *s = tg_cfg_stream_new(c);
		if (!s)
			return -1;
		unpack_header(k, &s->v.h);
		if (k->bad)
			break;
		unpack_stream(k, s);
		if (k->bad)
			break;
		if (s->rule >= c->nrules || s->v.timing < 0 || s->v.timing >= TG_T_NMODES) {
			*why = "a bad stream";
			return 1;
		}
	}
	return 0;
}

struct tg_cfg *tg_cfg_unpack(const void *buf, size_t len, char *err, size_t errlen)
{
	struct upk k = { buf, (const unsigned char *)buf + len, 0 };
	struct tg_cfg *c = tg_cfg_new();
	const char *why = "truncated";
	int rc;

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (len < TG_CFG_MAGIC_LEN || memcmp(buf, PACK_MAGIC, TG_CFG_MAGIC_LEN) != 0) {
		why = "bad magic";
		goto bad;
	}
	k.p += TG_CFG_MAGIC_LEN;
	/* once k.bad is set, what follows reads nothing */
	if ((rc = unpack_strings(&k, c, &why)) == 0 && (rc = unpack_cst(&k, c)) == 0 &&
	    (rc = unpack_rules(&k, c, &why)) == 0)
		rc = unpack_streams(&k, c, &why);
	if (rc < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (rc > 0 || k.bad)
		goto bad;
	if (k.p != k.end) {
		why = "trailing bytes";
		goto bad;
	}
	return c;
bad:
	snprintf(err, errlen, "corrupt packed trace (%s at byte %zu)", why,
		 (size_t)(k.p - (const unsigned char *)buf));
fail:
	tg_cfg_free(c);
	return NULL;
}
