/*
 * cfgwrite.c - writing a compressed trace as a .cfg file
 * (tangram-cfg(5)): the header, then one section after another.
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
#include "stream.h"
#include "varint.h"
#include "banned.h"

static int put_section(struct tg_stream *s, unsigned type, const unsigned char *p, size_t n,
		       int compress)
{
	unsigned char hdr[TG_SEC_HDR], *z = NULL;
	size_t zn = 0;
	unsigned flags = 0;
	uint32_t crc;
	int rc;

	if (compress && n > 64 && tg_cfg_deflate(p, n, &z, &zn) == 0 && zn < n)
		flags = TG_SEC_ZLIB;
	hdr[0] = (unsigned char)type;
	hdr[1] = (unsigned char)(type >> 8);
	hdr[2] = (unsigned char)flags;
	hdr[3] = 0;
	{
		uint64_t stored = flags ? zn : n, raw = n;
		int i;
		for (i = 0; i < 8; i++) {
			hdr[4 + i] = (unsigned char)(stored >> (8 * i));
			hdr[12 + i] = (unsigned char)(raw >> (8 * i));
		}
	}
	crc = (uint32_t)crc32(0L, flags ? z : p, (uInt)(flags ? zn : n));
	tg_put_le32(hdr + 20, crc);
	rc = tg_stream_write(s, hdr, TG_SEC_HDR) < 0 ||
	     tg_stream_write(s, flags ? z : p, flags ? zn : n) < 0 ? -1 : 0;
	free(z);
	return rc;
}

/* A stored section: an STIME payload, already deflated, or an XTIME one,
 * deflated if @flags says so. */
static int put_stored(struct tg_stream *s, unsigned type, unsigned flags, const unsigned char *z,
		      size_t zn, uint64_t raw)
{
	unsigned char hdr[TG_SEC_HDR];
	int i;

	hdr[0] = (unsigned char)type;
	hdr[1] = (unsigned char)(type >> 8);
	hdr[2] = (unsigned char)flags;
	hdr[3] = 0;
	for (i = 0; i < 8; i++) {
		hdr[4 + i] = (unsigned char)((uint64_t)zn >> (8 * i));
		hdr[12 + i] = (unsigned char)(raw >> (8 * i));
	}
	tg_put_le32(hdr + 20, (uint32_t)crc32(0L, z, (uInt)zn));
	return tg_stream_write(s, hdr, TG_SEC_HDR) < 0 || tg_stream_write(s, z, zn) < 0 ? -1 : 0;
}

static int put_str(struct tg_bytes *b, const char *s)
{
	size_t n = strlen(s);

	return tg_bytes_uvar(b, n) < 0 || tg_bytes_put(b, s, n) < 0 ? -1 : 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* "0-3,7" for the sorted distinct ranks of the streams. */
static void ranks_text(const struct tg_cfg *c, char *buf, size_t cap)
{
	int64_t *r = malloc((c->nst ? c->nst : 1) * sizeof(int64_t));
	size_t i, n = 0, o = 0;

	buf[0] = 0;
	if (!r)
		return;
	for (i = 0; i < c->nst; i++)
		if (c->st[i].v.rank >= 0)
			r[n++] = c->st[i].v.rank;
	qsort(r, n, sizeof(int64_t), cmp_i64);
	for (i = 0; i < n && o + 48 < cap;) {
		size_t j = i;
		while (j + 1 < n && r[j + 1] <= r[j] + 1)
			j++;
		o += (size_t)snprintf(buf + o, cap - o, "%s%lld", o ? "," : "", (long long)r[i]);
		if (r[j] != r[i])
			o += (size_t)snprintf(buf + o, cap - o, "-%lld", (long long)r[j]);
		i = j + 1;
	}
	free(r);
}

static int meta_build(const struct tg_cfg *c, const char *writer, struct tg_bytes *b)
{
	static const char *const tnames[] = { "aggregate", "lossless", "binned", "hist", "cfg" };
	char buf[4096];
	const char *hosts[64];
	uint64_t calls = 0;
	size_t i, j, o = 0, nh = 0, ncst, nrules, nsyms, ngr;
	int modes = 0;

	for (i = 0; i < c->nst; i++) {
		calls += c->st[i].v.calls;
		modes |= 1 << c->st[i].v.timing;
	}
	if (put_str(b, "writer") < 0 || put_str(b, writer) < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%zu", c->nst);
	if (put_str(b, "streams") < 0 || put_str(b, buf) < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)calls);
	if (put_str(b, "calls") < 0 || put_str(b, buf) < 0)
		return -1;
	tg_cfg_sizes(c, &ncst, &nrules, &nsyms, &ngr);
	snprintf(buf, sizeof(buf), "%zu", ngr);
	if (put_str(b, "grammars") < 0 || put_str(b, buf) < 0)
		return -1;
	ranks_text(c, buf, sizeof(buf));
	if (put_str(b, "ranks") < 0 || put_str(b, buf) < 0)
		return -1;
	buf[0] = 0;
	for (i = 0; i < c->nst && nh < 64; i++) {	/* the first 64 hosts */
		for (j = 0; j < nh && strcmp(hosts[j], c->st[i].v.h.host) != 0; j++)
			;
		if (j == nh && o + 60 < sizeof(buf)) {
			hosts[nh++] = c->st[i].v.h.host;
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%.50s", o ? "," : "",
					      c->st[i].v.h.host);
		}
	}
	if (put_str(b, "hosts") < 0 || put_str(b, buf) < 0)
		return -1;
	o = 0;
	buf[0] = 0;
	for (i = 0; i < TG_T_NMODES; i++)
		if (modes & (1 << i))
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", o ? "," : "", tnames[i]);
	if (put_str(b, "timing") < 0 || put_str(b, buf) < 0)
		return -1;
	return 0;
}

/* A string of the string table, as a reference. */
static int put_ref(struct tg_cfg *c, struct tg_bytes *b, const char *str)
{
	int64_t ref = tg_strtab_intern(&c->strs, str, strlen(str));

	return ref < 0 ? -1 : tg_bytes_uvar(b, (uint64_t)ref + 1);
}

/* Stream @st's header into the columns @f; @prev is the stream before it
 * (NULL for the first) and @pv its values the differences are taken from
 * (all 0 for the first). */
static int put_stream(struct tg_cfg *c, const struct tg_cstream *st,
		      const struct tg_cstream *prev, struct tg_bytes *f, uint64_t *pv)
{
	const struct tg_header *h = &st->v.h;
	uint64_t wall = h->clock_base + st->v.end;
	int a, bad = 0;
	size_t k, prevk;

	bad |= tg_bytes_uvar(&f[TG_F_FLAGS], h->flags | (st->v.timing == TG_CFG_AGGREGATE &&
						    !st->v.anchored ? TG_CFG_UNANCHORED : 0)) < 0;
	bad |= tg_bytes_svar(&f[TG_F_HRANK], (int64_t)((uint64_t)h->rank - pv[0])) < 0;
	bad |= tg_bytes_uvar(&f[TG_F_HWORLD], h->world) < 0;
	/* ranks of a run have close pids and clock bases, and end together */
	bad |= tg_bytes_svar(&f[TG_F_PID], (int64_t)(h->pid - pv[1])) < 0;
	bad |= tg_bytes_svar(&f[TG_F_PPID], (int64_t)(h->ppid - pv[2])) < 0;
	bad |= tg_bytes_svar(&f[TG_F_CLOCK], (int64_t)(h->clock_base - pv[3])) < 0;
	bad |= put_ref(c, &f[TG_F_HOST], h->host) < 0 || put_ref(c, &f[TG_F_CWD], h->cwd) < 0;
	bad |= tg_bytes_uvar(&f[TG_F_ARGV], (uint64_t)h->argc) < 0;
	for (a = 0; a < h->argc; a++)
		bad |= put_ref(c, &f[TG_F_ARGV], h->argv[a]) < 0;
	bad |= tg_bytes_svar(&f[TG_F_RANK], (int64_t)((uint64_t)st->v.rank - pv[4])) < 0;
	bad |= tg_bytes_uvar(&f[TG_F_RECORDS], st->v.records) < 0;
	bad |= tg_bytes_uvar(&f[TG_F_CALLS], st->v.records - st->v.calls) < 0;
	bad |= tg_bytes_uvar(&f[TG_F_RULE], st->rule) < 0;
	bad |= tg_bytes_svar(&f[TG_F_END], (int64_t)(wall - (pv[6] ? pv[5] : h->clock_base))) < 0;
	bad |= tg_bytes_uvar(&f[TG_F_TIMING], (uint64_t)st->v.timing) < 0;
	bad |= tg_bytes_uvar(&f[TG_F_ERROR], st->v.err_ppm) < 0;
	bad |= tg_bytes_uvar(&f[TG_F_BITS], st->v.bits) < 0;
	bad |= tg_bytes_uvar(&f[TG_F_SAMPLES], st->v.samples) < 0;
	bad |= tg_bytes_uvar(&f[TG_F_CLOCKS], st->nclock) < 0;
	for (k = 0; k < st->nclock; k++)
		bad |= tg_bytes_uvar(&f[TG_F_CLOCKS], st->clock[k]) < 0;
	/* each local value from the previous stream's at its index: the
	 * launcher numbers its sockets the same way in every process */
	bad |= tg_bytes_uvar(&f[TG_F_LOCAL], st->nlocal) < 0;
	for (k = 0; k < st->nlocal; k++)
		bad |= tg_bytes_svar(&f[TG_F_LOCAL], (int64_t)(st->local[k] -
					(prev && k < prev->nlocal ? prev->local[k] : 0))) < 0;
	/* foreign seqs as their count + 1 (0: the seqs are not tagged) */
	bad |= tg_bytes_uvar(&f[TG_F_FOREIGN], st->seqv ? st->nforeign + 1 : 0) < 0;
	for (k = 0; k < st->nforeign; k++)
		bad |= tg_bytes_uvar(&f[TG_F_FOREIGN],
				     st->foreign[k] - (k ? st->foreign[k - 1] : 0)) < 0;
	bad |= tg_bytes_uvar(&f[TG_F_RUN], h->run ? h->run : 1) < 0;
	/* REPEAT records: count, start from the one before's, span */
	bad |= tg_bytes_uvar(&f[TG_F_REPEATS], st->nrep / 3) < 0;
	for (k = 0; k + 3 <= st->nrep; k += 3)
		bad |= tg_bytes_uvar(&f[TG_F_REPEATS], st->rep[k]) < 0 ||
		       tg_bytes_svar(&f[TG_F_REPEATS], (int64_t)(st->rep[k + 1] -
					(k ? st->rep[k - 2] : 0))) < 0 ||
		       tg_bytes_uvar(&f[TG_F_REPEATS], st->rep[k + 2]) < 0;
	/* which local values are string references: their indexes, each
	 * from the one before's (the column is left out when no stream has
	 * any, put_streams()) */
	for (k = 0, a = 0; st->lstr && k < st->nlocal; k++)
		a += st->lstr[k] != 0;
	bad |= tg_bytes_uvar(&f[TG_F_SLOCAL], (uint64_t)a) < 0;
	for (k = 0, prevk = 0; a && k < st->nlocal; k++)
		if (st->lstr[k]) {
			bad |= tg_bytes_uvar(&f[TG_F_SLOCAL], k - prevk) < 0;
			prevk = k;
		}
	/* anchored calls, in the stream's XTIME (the column is left out
	 * when no stream has any) */
	bad |= tg_bytes_uvar(&f[TG_F_XTIME], st->nx) < 0;
	pv[0] = (uint64_t)h->rank;
	pv[1] = h->pid;
	pv[2] = h->ppid;
	pv[3] = h->clock_base;
	pv[4] = (uint64_t)st->v.rank;
	pv[5] = wall;
	pv[6] = 1;
	return bad ? -1 : 0;
}

/* STREAMS: the headers as columns, one per field (tangram-cfg(5)), which
 * compress better than rows: most fields are equal or close from one
 * stream to the next. */
static int put_streams(struct tg_cfg *c, struct tg_bytes *b)
{
	struct tg_bytes f[TG_F_N];
	uint64_t pv[7] = { 0 };
	size_t i, j;
	int k, ncol, rc = -1;

	memset(f, 0, sizeof(f));
	for (i = 0; i < c->nst; i++)
		if (put_stream(c, &c->st[i], i ? &c->st[i - 1] : NULL, f, pv) < 0)
			goto out;
	/* no string local values: the column of their indexes (all 0) is
	 * left out, so that a trace without them reads as before; and so is
	 * that of anchored calls when no stream has any */
	for (i = 0, ncol = TG_F_SLOCAL; i < c->nst; i++)
		for (j = 0; c->st[i].lstr && j < c->st[i].nlocal; j++)
			if (c->st[i].lstr[j])
				ncol = TG_F_XTIME;
	for (i = 0; i < c->nst; i++)
		if (c->st[i].nx)
			ncol = TG_F_N;
	if (tg_bytes_uvar(b, c->nst) < 0 || tg_bytes_uvar(b, (uint64_t)ncol) < 0)
		goto out;
	for (k = 0; k < ncol; k++)
		if (tg_bytes_uvar(b, f[k].n) < 0 || tg_bytes_put(b, f[k].b, f[k].n) < 0)
			goto out;
	rc = 0;
out:
	for (k = 0; k < TG_F_N; k++)
		tg_bytes_release(&f[k]);
	return rc;
}

int tg_cfg_write(struct tg_cfg *c, struct tg_stream *s, const char *writer)
{
	struct tg_bytes b = { 0 };
	unsigned char head[12];
	size_t i, k;
	int rc = -1;

	/* the streams' header strings go in the string table too */
	for (i = 0; i < c->nst; i++) {
		const struct tg_header *h = &c->st[i].v.h;
		int a;
		if (tg_strtab_intern(&c->strs, h->host, strlen(h->host)) < 0 ||
		    tg_strtab_intern(&c->strs, h->cwd, strlen(h->cwd)) < 0)
			goto out;
		for (a = 0; a < h->argc; a++)
			if (tg_strtab_intern(&c->strs, h->argv[a], strlen(h->argv[a])) < 0)
				goto out;
	}
	memcpy(head, TG_CFG_MAGIC, TG_CFG_MAGIC_LEN);
	head[8] = TG_CFG_VERSION;
	head[9] = 0;
	head[10] = head[11] = 0;
	if (tg_stream_write(s, head, sizeof(head)) < 0)
		goto out;
	if (meta_build(c, writer, &b) < 0 || put_section(s, TG_S_META, b.b, b.n, 1) < 0)
		goto out;
	b.n = 0;
	if (tg_bytes_uvar(&b, c->strs.n) < 0)
		goto out;
	for (i = 0; i < c->strs.n; i++)
		if (tg_bytes_uvar(&b, c->strs.len[i]) < 0 ||
		    tg_bytes_put(&b, c->strs.s[i], c->strs.len[i]) < 0)
			goto out;
	if (put_section(s, TG_S_STRINGS, b.b, b.n, 1) < 0)
		goto out;
	b.n = 0;
	if (tg_bytes_uvar(&b, c->ncst) < 0)
		goto out;
	for (i = 0; i < c->ncst; i++) {
		if (tg_bytes_uvar(&b, c->cst[i].n) < 0)
			goto out;
		for (k = 0; k < c->cst[i].n; k++)
			if (tg_bytes_svar(&b, c->words[c->cst[i].off + k]) < 0)
				goto out;
	}
	if (put_section(s, TG_S_CST, b.b, b.n, 1) < 0)
		goto out;
	b.n = 0;
	if (tg_bytes_uvar(&b, c->ncst) < 0)
		goto out;
	for (i = 0; i < c->ncst; i++) {
		const struct tg_agg *a = &c->agg[i];
		uint64_t md = a->count ? (uint64_t)((a->dur + a->count / 2) / a->count) : 0;
		int64_t mg = 0;
		if (a->count) {
			__int128 g = a->gap, n = (__int128)a->count;
			mg = (int64_t)(g >= 0 ? (g + n / 2) / n : -((-g + n / 2) / n));
		}
		if (tg_bytes_uvar(&b, a->count) < 0 || tg_bytes_uvar(&b, md) < 0 ||
		    tg_bytes_svar(&b, mg) < 0)
			goto out;
	}
	if (put_section(s, TG_S_AGG, b.b, b.n, 1) < 0)
		goto out;
	b.n = 0;
	if (tg_bytes_uvar(&b, c->nrules) < 0)
		goto out;
	for (i = 0; i < c->nrules; i++) {
		if (tg_bytes_uvar(&b, c->roff[i + 1] - c->roff[i]) < 0)
			goto out;
		for (k = c->roff[i]; k < c->roff[i + 1]; k++)
			if (tg_bytes_uvar(&b, c->syms[k].sym) < 0 ||
			    tg_bytes_uvar(&b, c->syms[k].exp - 1) < 0)
				goto out;
	}
	if (put_section(s, TG_S_GRAMMAR, b.b, b.n, 1) < 0)
		goto out;
	b.n = 0;
	if (put_streams(c, &b) < 0)
		goto out;
	if (put_section(s, TG_S_STREAMS, b.b, b.n, 1) < 0)
		goto out;
	for (i = 0; i < c->nst; i++)
		if (c->st[i].v.timing != TG_CFG_AGGREGATE &&
		    put_stored(s, TG_S_STIME, TG_SEC_ZLIB, c->st[i].tz, c->st[i].tzlen,
			       c->st[i].traw) < 0)
			goto out;
	for (i = 0; i < c->nst; i++)
		if (c->st[i].nx &&
		    put_stored(s, TG_S_XTIME, c->st[i].xzlib ? TG_SEC_ZLIB : 0, c->st[i].xz,
			       c->st[i].xzlen, c->st[i].xraw) < 0)
			goto out;
	if (put_section(s, TG_S_END, NULL, 0, 0) < 0)
		goto out;
	rc = tg_stream_flush(s);
out:
	tg_bytes_release(&b);
	return rc;
}
