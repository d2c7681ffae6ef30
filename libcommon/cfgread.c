/*
 * cfgread.c - reading a .cfg file (tangram-cfg(5)) into a compressed
 * trace.  Every section is checked as it is parsed: a damaged file is
 * rejected with one error naming the section and the byte.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cfg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "cfgint.h"
#include "stream.h"
#include "varint.h"
#include "banned.h"

static const char *const secname[TG_S_NTYPES] = {
	"END", "META", "STRINGS", "CST", "AGG", "GRAMMAR", "STREAMS", "STIME",
};

struct sec {
	int present;
	unsigned flags;
	uint64_t at;		/* file offset of its header */
	const unsigned char *p;	/* stored bytes */
	uint64_t stored, raw;
	unsigned char *data;	/* inflated (or a copy) */
};

/* A parser over one section's payload. */
struct pc {
	const unsigned char *p, *end, *base;
	const char *name;
	uint64_t at;
	char *err;
	size_t errlen;
};

static int perr(struct pc *x, const char *what)
{
	snprintf(x->err, x->errlen, "corrupt section %s at byte %llu (%s at payload byte %llu)",
		 x->name, (unsigned long long)x->at, what,
		 (unsigned long long)(x->p - x->base));
	return -1;
}

static int pu(struct pc *x, uint64_t *v)
{
	return tg_get_uvar(&x->p, x->end, v) < 0 ? perr(x, "bad varint") : 0;
}

static int ps(struct pc *x, int64_t *v)
{
	return tg_get_svar(&x->p, x->end, v) < 0 ? perr(x, "bad varint") : 0;
}

/* A count of items, each taking at least one byte of what is left. */
static int pcount(struct pc *x, uint64_t *v, uint64_t per)
{
	if (pu(x, v) < 0)
		return -1;
	if (*v > (uint64_t)(x->end - x->p) / (per ? per : 1))
		return perr(x, "count larger than the section");
	return 0;
}


static int sec_open(struct sec *sc, int type, struct pc *x, char *err, size_t errlen)
{
	x->name = secname[type];
	x->at = sc->at;
	x->err = err;
	x->errlen = errlen;
	if (sc->flags & TG_SEC_ZLIB) {
		if (tg_cfg_inflate(sc->p, sc->stored, sc->raw, &sc->data) < 0) {
			snprintf(err, errlen, "corrupt section %s at byte %llu (zlib data)",
				 secname[type], (unsigned long long)sc->at);
			return -1;
		}
		x->p = x->base = sc->data;
	} else {
		x->p = x->base = sc->p;
	}
	x->end = x->p + sc->raw;
	return 0;
}

static int read_all(struct tg_stream *s, unsigned char **out, size_t *outn)
{
	size_t cap = 1 << 16, n = 0;
	unsigned char *b = malloc(cap), *nb;
	long got;

	if (!b)
		return -1;
	for (;;) {
		if (n == cap) {
			if (!(nb = realloc(b, cap * 2))) {
				free(b);
				return -1;
			}
			b = nb;
			cap *= 2;
		}
		got = tg_stream_read(s, b + n, cap - n);
		if (got < 0) {
			free(b);
			return -1;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	*out = b;
	*outn = n;
	return 0;
}

static char *pstr(struct pc *x, const struct tg_cfg *c)
{
	uint64_t ref;

	if (pu(x, &ref) < 0)
		return NULL;
	if (ref == 0 || ref > c->strs.n) {
		perr(x, "bad string reference");
		return NULL;
	}
	return c->strs.s[ref - 1];
}

static int parse_streams(struct tg_cfg *c, struct pc *x, const uint32_t *rmap,
			 const uint64_t *rlen, uint64_t nrules)
{
	uint64_t n, i, len, v, prev[3] = { 0, 0, 0 };
	int64_t sv, d[3];

	if (pcount(x, &n, 1) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		struct pc e;
		struct tg_cstream *s;
		struct tg_header h;
		uint64_t argc, a, nclock;
		char *str;
		if (pcount(x, &len, 1) < 0)
			return -1;
		e = *x;
		e.end = x->p + len;
		x->p += len;
		if (!(s = tg_cfg_stream_new(c)))
			return perr(x, "out of memory");
		memset(&h, 0, sizeof(h));
		h.version = TG_REC_VERSION;
		if (pu(&e, &v) < 0)
			return -1;
		h.flags = (unsigned)v;
		if (ps(&e, &h.rank) < 0 || pu(&e, &h.world) < 0 || ps(&e, &d[0]) < 0 ||
		    ps(&e, &d[1]) < 0 || ps(&e, &d[2]) < 0)
			return -1;
		h.pid = prev[0] += (uint64_t)d[0];
		h.ppid = prev[1] += (uint64_t)d[1];
		h.clock_base = prev[2] += (uint64_t)d[2];
		if (!(str = pstr(&e, c)) || !(s->v.h.host = strdup(str)))
			return str ? perr(x, "out of memory") : -1;
		if (!(str = pstr(&e, c)) || !(s->v.h.cwd = strdup(str)))
			return str ? perr(x, "out of memory") : -1;
		if (pcount(&e, &argc, 1) < 0)
			return -1;
		if (!(s->v.h.argv = calloc(argc + 1, sizeof(char *))))
			return perr(x, "out of memory");
		for (a = 0; a < argc; a++) {
			if (!(str = pstr(&e, c)) || !(s->v.h.argv[a] = strdup(str)))
				return str ? perr(x, "out of memory") : -1;
			s->v.h.argc = (int)a + 1;
		}
		s->v.h.version = h.version;
		s->v.h.flags = h.flags;
		s->v.h.rank = h.rank;
		s->v.h.world = h.world;
		s->v.h.pid = h.pid;
		s->v.h.ppid = h.ppid;
		s->v.h.clock_base = h.clock_base;
		if (ps(&e, &sv) < 0)
			return -1;
		s->v.rank = sv;
		if (pu(&e, &s->v.records) < 0 || pu(&e, &s->v.calls) < 0 || pu(&e, &v) < 0)
			return -1;
		if (v >= nrules)
			return perr(&e, "bad rule");
		s->rule = rmap[v];
		if (rlen[v] != s->v.records)
			return perr(&e, "the rule does not generate as many records as the stream has");
		if (pu(&e, &s->v.end) < 0 || pu(&e, &v) < 0)
			return -1;
		s->v.timing = (int)(v < TG_T_NMODES ? v : TG_T_NMODES);
		{
			uint64_t ppm, bits, samples;
			struct tg_tparams tp;
			if (pu(&e, &ppm) < 0 || pu(&e, &bits) < 0 || pu(&e, &samples) < 0)
				return -1;
			tp.mode = s->v.timing;
			tp.err_ppm = (uint32_t)ppm;
			tp.bits = (uint32_t)bits;
			tp.samples = (uint32_t)samples;
			if (ppm > UINT32_MAX || bits > 64 || samples > UINT32_MAX ||
			    tg_tparams_fix(&tp) < 0)
				return perr(&e, "bad timing parameters");
			s->v.err_ppm = tp.err_ppm;
			s->v.bits = tp.bits;
			s->v.samples = tp.samples;
		}
		if (pcount(&e, &nclock, 1) < 0)
			return -1;
		if (nclock && !(s->clock = malloc(nclock * sizeof(uint64_t))))
			return perr(x, "out of memory");
		for (a = 0; a < nclock; a++)
			if (pu(&e, &s->clock[a]) < 0)
				return -1;
		s->nclock = (size_t)nclock;
	}
	if (x->p != x->end)
		return perr(x, "trailing bytes");
	return 0;
}

struct tg_cfg *tg_cfg_read(struct tg_stream *s, char *err, size_t errlen)
{
	struct sec sec[TG_S_NTYPES];
	struct sec *stime = NULL;
	size_t nstime = 0, capstime = 0, n = 0, i;
	unsigned char *buf = NULL;
	uint64_t pos, *rlen = NULL;
	uint32_t *rmap = NULL;
	struct tg_cfg *c = NULL;
	struct tg_words w = { 0 };
	struct tg_sym *body = NULL;
	struct pc x;
	int ok = 0, ended = 0;

	memset(sec, 0, sizeof(sec));
	if (read_all(s, &buf, &n) < 0) {
		snprintf(err, errlen, "%s", strerror(errno ? errno : ENOMEM));
		return NULL;
	}
	if (!tg_cfg_is_magic(buf, n)) {
		snprintf(err, errlen, "not a Tangram compressed trace (bad magic)");
		goto out;
	}
	if (n < 12) {
		snprintf(err, errlen, "truncated header at byte %zu", n);
		goto out;
	}
	if (buf[8] != TG_CFG_VERSION || buf[9] != 0) {
		snprintf(err, errlen, "unsupported compressed trace version %u", buf[8] | buf[9] << 8);
		goto out;
	}
	for (pos = 12; pos < n;) {
		unsigned type, flags;
		uint64_t stored = 0, raw = 0;
		struct sec *sc;
		int k;
		if (n - pos < TG_SEC_HDR) {
			snprintf(err, errlen, "truncated section header at byte %llu",
				 (unsigned long long)pos);
			goto out;
		}
		type = buf[pos] | buf[pos + 1] << 8;
		flags = buf[pos + 2] | buf[pos + 3] << 8;
		for (k = 7; k >= 0; k--) {
			stored = stored << 8 | buf[pos + 4 + k];
			raw = raw << 8 | buf[pos + 12 + k];
		}
		if (stored > n - pos - TG_SEC_HDR) {
			snprintf(err, errlen, "truncated section %s at byte %llu",
				 type < TG_S_NTYPES ? secname[type] : "(unknown)",
				 (unsigned long long)pos);
			goto out;
		}
		if ((uint32_t)crc32(0L, buf + pos + TG_SEC_HDR, (uInt)stored) !=
		    tg_get_le32(buf + pos + 20)) {
			snprintf(err, errlen, "corrupt section %s at byte %llu (checksum)",
				 type < TG_S_NTYPES ? secname[type] : "(unknown)",
				 (unsigned long long)pos);
			goto out;
		}
		/* zlib inflates at most 1032 to 1: a larger length is damage */
		if (type < TG_S_NTYPES && (!(flags & TG_SEC_ZLIB) ? raw != stored
				       : raw > TG_SEC_MAXRAW || raw > stored * 1032 + 1024)) {
			snprintf(err, errlen, "corrupt section %s at byte %llu (length)",
				 secname[type], (unsigned long long)pos);
			goto out;
		}
		if (type == TG_S_END) {
			if (stored || pos + TG_SEC_HDR != n) {
				snprintf(err, errlen, "corrupt section END at byte %llu (%s)",
					 (unsigned long long)pos,
					 stored ? "not empty" : "bytes after it");
				goto out;
			}
			ended = 1;
			break;
		}
		if (type == TG_S_STIME) {
			if (nstime == capstime) {
				size_t nc = capstime ? capstime * 2 : 16;
				struct sec *ns = realloc(stime, nc * sizeof(*ns));
				if (!ns) {
					snprintf(err, errlen, "out of memory");
					goto out;
				}
				stime = ns;
				capstime = nc;
			}
			sc = &stime[nstime++];
			memset(sc, 0, sizeof(*sc));
		} else if (type < TG_S_NTYPES) {
			sc = &sec[type];
			if (sc->present) {
				snprintf(err, errlen, "corrupt section %s at byte %llu (repeated)",
					 secname[type], (unsigned long long)pos);
				goto out;
			}
		} else {
			pos += TG_SEC_HDR + stored;	/* a newer section: skipped */
			continue;
		}
		sc->present = 1;
		sc->flags = flags;
		sc->at = pos;
		sc->p = buf + pos + TG_SEC_HDR;
		sc->stored = stored;
		sc->raw = raw;
		pos += TG_SEC_HDR + stored;
	}
	if (!ended) {
		snprintf(err, errlen, "truncated file: no END section at byte %zu", n);
		goto out;
	}
	for (i = TG_S_STRINGS; i <= TG_S_STREAMS; i++)
		if (!sec[i].present) {
			snprintf(err, errlen, "corrupt file: no %s section", secname[i]);
			goto out;
		}
	if (!(c = tg_cfg_new())) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/* STRINGS */
	{
		uint64_t ns, k, len;
		if (sec_open(&sec[TG_S_STRINGS], TG_S_STRINGS, &x, err, errlen) < 0 ||
		    pcount(&x, &ns, 1) < 0)
			goto out;
		for (k = 0; k < ns; k++) {
			if (pcount(&x, &len, 1) < 0)
				goto out;
			/* strings are unique: a repeated one would shift the
			 * numbers of those after it */
			if (tg_strtab_intern(&c->strs, (const char *)x.p, len) < 0 ||
			    c->strs.n != k + 1) {
				perr(&x, "repeated string");
				goto out;
			}
			x.p += len;
		}
		if (x.p != x.end) {
			perr(&x, "trailing bytes");
			goto out;
		}
	}
	/* CST */
	{
		uint64_t nt, k, nw, j;
		if (sec_open(&sec[TG_S_CST], TG_S_CST, &x, err, errlen) < 0 || pcount(&x, &nt, 1) < 0)
			goto out;
		for (k = 0; k < nt; k++) {
			int rc;
			if (pcount(&x, &nw, 1) < 0)
				goto out;
			w.n = 0;
			for (j = 0; j < nw; j++) {
				int64_t v;
				if (ps(&x, &v) < 0)
					goto out;
				if (tg_words_push(&w, v) < 0) {
					perr(&x, "out of memory");
					goto out;
				}
			}
			rc = w.n ? tg_sig_check(w.w, w.n, c->strs.n, NULL) : -1;
			if (rc < 0) {
				char what[80];
				unsigned func = 0, tid = 0;
				if (tg_sig_call(w.w, w.n, &func, &tid) && !tg_call_lookup(func))
					snprintf(what, sizeof(what),
						 "signature %llu: function %u unknown to this version",
						 (unsigned long long)k, func);
				else
					snprintf(what, sizeof(what), "signature %llu malformed",
						 (unsigned long long)k);
				perr(&x, what);
				goto out;
			}
			if (tg_cfg_cst_intern(c, w.w, w.n, 0) < 0) {
				perr(&x, "out of memory");
				goto out;
			}
		}
		if (x.p != x.end) {
			perr(&x, "trailing bytes");
			goto out;
		}
	}
	/* AGG */
	{
		uint64_t na, k, cnt, md;
		int64_t mg;
		if (sec_open(&sec[TG_S_AGG], TG_S_AGG, &x, err, errlen) < 0 || pu(&x, &na) < 0)
			goto out;
		if (na != c->ncst) {
			perr(&x, "not one entry per signature");
			goto out;
		}
		for (k = 0; k < na; k++) {
			if (pu(&x, &cnt) < 0 || pu(&x, &md) < 0 || ps(&x, &mg) < 0)
				goto out;
			c->agg[k].count = cnt;
			c->agg[k].dur = (unsigned __int128)md * cnt;
			c->agg[k].gap = (__int128)mg * (__int128)cnt;
		}
		if (x.p != x.end) {
			perr(&x, "trailing bytes");
			goto out;
		}
	}
	/* GRAMMAR */
	{
		uint64_t nr, k, len, j, sym, e1;
		if (sec_open(&sec[TG_S_GRAMMAR], TG_S_GRAMMAR, &x, err, errlen) < 0 ||
		    pcount(&x, &nr, 1) < 0)
			goto out;
		rmap = malloc((nr ? nr : 1) * sizeof(uint32_t));
		rlen = malloc((nr ? nr : 1) * sizeof(uint64_t));
		if (!rmap || !rlen) {
			perr(&x, "out of memory");
			goto out;
		}
		for (k = 0; k < nr; k++) {
			if (pcount(&x, &len, 2) < 0)
				goto out;
			free(body);
			if (!(body = malloc((len ? len : 1) * sizeof(*body)))) {
				perr(&x, "out of memory");
				goto out;
			}
			rlen[k] = 0;
			for (j = 0; j < len; j++) {
				uint64_t l;
				if (pu(&x, &sym) < 0 || pu(&x, &e1) < 0)
					goto out;
				if (e1 >= UINT32_MAX || sym > UINT32_MAX ||
				    (sym & 1 ? (sym >> 1) >= k : (sym >> 1) >= c->ncst)) {
					perr(&x, sym & 1 ? "a rule names itself or a later rule"
							 : "a rule names a signature not in the CST");
					goto out;
				}
				l = sym & 1 ? rlen[sym >> 1] : 1;
				if (l && e1 + 1 > (1ull << 50) / l) {
					perr(&x, "a rule expands too far");
					goto out;
				}
				rlen[k] += l * (e1 + 1);
				if (rlen[k] > (1ull << 50)) {
					perr(&x, "a rule expands too far");
					goto out;
				}
				body[j].sym = sym & 1 ? rmap[sym >> 1] << 1 | 1 : (uint32_t)sym;
				body[j].exp = (uint32_t)(e1 + 1);
			}
			if ((rmap[k] = tg_cfg_rule_add(c, body, len)) == UINT32_MAX) {
				perr(&x, "out of memory");
				goto out;
			}
		}
		if (x.p != x.end) {
			perr(&x, "trailing bytes");
			goto out;
		}
		/* STREAMS: rule numbers are those of the file */
		if (sec_open(&sec[TG_S_STREAMS], TG_S_STREAMS, &x, err, errlen) < 0)
			goto out;
		if (parse_streams(c, &x, rmap, rlen, nr) < 0)
			goto out;
	}
	/* STIME: in stream order, one for each stream whose times are kept */
	{
		size_t k = 0;
		for (i = 0; i < c->nst; i++) {
			struct tg_cstream *st = &c->st[i];
			if (st->v.timing == TG_CFG_AGGREGATE)
				continue;
			if (k == nstime) {
				snprintf(err, errlen, "corrupt file: no STIME section for stream %zu", i);
				goto out;
			}
			if (!(stime[k].flags & TG_SEC_ZLIB)) {
				/* stored uncompressed: keep it deflated in memory */
				if (tg_cfg_deflate(stime[k].p, stime[k].stored, &st->tz, &st->tzlen) < 0) {
					snprintf(err, errlen, "out of memory");
					goto out;
				}
			} else {
				if (!(st->tz = malloc(stime[k].stored ? stime[k].stored : 1))) {
					snprintf(err, errlen, "out of memory");
					goto out;
				}
				memcpy(st->tz, stime[k].p, stime[k].stored);
				st->tzlen = stime[k].stored;
			}
			st->traw = stime[k].raw;
			st->tzat = stime[k].at;
			k++;
		}
		if (k != nstime) {
			snprintf(err, errlen, "corrupt section STIME at byte %llu (no stream for it)",
				 (unsigned long long)stime[k].at);
			goto out;
		}
	}
	ok = 1;
out:
	for (i = 0; i < TG_S_NTYPES; i++)
		free(sec[i].data);
	free(stime);
	free(buf);
	free(rmap);
	free(rlen);
	free(body);
	tg_words_release(&w);
	if (!ok) {
		tg_cfg_free(c);
		return NULL;
	}
	return c;
}
