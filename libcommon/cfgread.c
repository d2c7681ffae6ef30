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
	"END", "META", "STRINGS", "CST", "AGG", "GRAMMAR", "STREAMS", "STIME", "XTIME",
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

/* What a stream header's fields are differences from: the header before
 * it (pid, ppid, clock base; from version 2 also the ranks and the wall
 * clock at the end). */
struct prevhdr {
	uint64_t pid, ppid, clock, endwall;
	int64_t hrank, rank;
	uint64_t n;		/* headers read */
};

/* A count and as many varints into @out (NULL when the count is 0); with
 * @delta, svarints, each the difference from @base's value at its index
 * (from 0 past @nbase). */
static int plist(struct pc *x, uint64_t **out, size_t *n, int delta, const uint64_t *base,
		 size_t nbase)
{
	uint64_t k, a;
	int64_t d;

	if (pcount(x, &k, 1) < 0)
		return -1;
	if (k && !(*out = malloc(k * sizeof(uint64_t))))
		return perr(x, "out of memory");
	for (a = 0; a < k; a++) {
		if (!delta) {
			if (pu(x, &(*out)[a]) < 0)
				return -1;
			continue;
		}
		if (ps(x, &d) < 0)
			return -1;
		(*out)[a] = (a < nbase ? base[a] : 0) + (uint64_t)d;
	}
	*n = (size_t)k;
	return 0;
}

static int pstrdup(struct pc *x, const struct tg_cfg *c, char **out)
{
	char *str = pstr(x, c);

	if (!str)
		return -1;
	if (!(*out = strdup(str)))
		return perr(x, "out of memory");
	return 0;
}

/* The header identity: flags to argv. */
static int parse_ident(struct tg_cfg *c, struct pc **f, int v2, struct prevhdr *pv,
		       struct tg_header *h)
{
	uint64_t v, argc, a;
	int64_t d[3];

	h->version = TG_REC_VERSION;
	if (pu(f[TG_F_FLAGS], &v) < 0 || ps(f[TG_F_HRANK], &h->rank) < 0 ||
	    pu(f[TG_F_HWORLD], &h->world) < 0 || ps(f[TG_F_PID], &d[0]) < 0 ||
	    ps(f[TG_F_PPID], &d[1]) < 0 || ps(f[TG_F_CLOCK], &d[2]) < 0)
		return -1;
	h->flags = (unsigned)v;
	if (v2)
		h->rank = pv->hrank += h->rank;
	h->pid = pv->pid += (uint64_t)d[0];
	h->ppid = pv->ppid += (uint64_t)d[1];
	h->clock_base = pv->clock += (uint64_t)d[2];
	if (pstrdup(f[TG_F_HOST], c, &h->host) < 0 || pstrdup(f[TG_F_CWD], c, &h->cwd) < 0 ||
	    pcount(f[TG_F_ARGV], &argc, 1) < 0)
		return -1;
	if (!(h->argv = calloc(argc + 1, sizeof(char *))))
		return perr(f[TG_F_ARGV], "out of memory");
	for (a = 0; a < argc; a++) {
		if (pstrdup(f[TG_F_ARGV], c, &h->argv[a]) < 0)
			return -1;
		h->argc = (int)a + 1;
	}
	return 0;
}

/* The stream's rank, counts, rule, end and timing parameters. */
static int parse_counts(struct pc **f, int v2, struct prevhdr *pv, struct tg_cstream *s,
			const uint32_t *rmap, const uint64_t *rlen, uint64_t nrules)
{
	uint64_t v, ppm, bits, samples;
	struct tg_tparams tp;
	int64_t sv;

	if (ps(f[TG_F_RANK], &sv) < 0)
		return -1;
	s->v.rank = v2 ? (pv->rank += sv) : sv;
	if (pu(f[TG_F_RECORDS], &s->v.records) < 0 || pu(f[TG_F_CALLS], &s->v.calls) < 0)
		return -1;
	if (v2) {	/* records less calls */
		if (s->v.calls > s->v.records)
			return perr(f[TG_F_CALLS], "more calls than records");
		s->v.calls = s->v.records - s->v.calls;
	}
	if (pu(f[TG_F_RULE], &v) < 0)
		return -1;
	if (v >= nrules)
		return perr(f[TG_F_RULE], "bad rule");
	s->rule = rmap[v];
	if (rlen[v] != s->v.records)
		return perr(f[TG_F_RULE], "the rule does not generate as many records as the stream has");
	if (v2) {	/* the wall clock at the end, from the one before */
		if (ps(f[TG_F_END], &sv) < 0)
			return -1;
		pv->endwall = (pv->n ? pv->endwall : s->v.h.clock_base) + (uint64_t)sv;
		s->v.end = pv->endwall - s->v.h.clock_base;
	} else if (pu(f[TG_F_END], &s->v.end) < 0) {
		return -1;
	}
	if (pu(f[TG_F_TIMING], &v) < 0 || pu(f[TG_F_ERROR], &ppm) < 0 ||
	    pu(f[TG_F_BITS], &bits) < 0 || pu(f[TG_F_SAMPLES], &samples) < 0)
		return -1;
	s->v.timing = (int)(v < TG_T_NMODES ? v : TG_T_NMODES);
	tp.mode = s->v.timing;
	tp.err_ppm = (uint32_t)ppm;
	tp.bits = (uint32_t)bits;
	tp.samples = (uint32_t)samples;
	if (ppm > UINT32_MAX || bits > 64 || samples > UINT32_MAX || tg_tparams_fix(&tp) < 0)
		return perr(f[TG_F_SAMPLES], "bad timing parameters");
	s->v.err_ppm = tp.err_ppm;
	s->v.bits = tp.bits;
	s->v.samples = tp.samples;
	return 0;
}

/* Foreign seqs: their count + 1 (0: untagged), each from the one before. */
static int parse_foreign(struct pc *x, struct tg_cstream *s)
{
	uint64_t k, a, v;

	if (pu(x, &k) < 0)
		return -1;
	s->seqv = k > 0;
	k -= s->seqv;
	if (k > (uint64_t)(x->end - x->p))
		return perr(x, "count larger than the section");
	if (k && !(s->foreign = malloc(k * sizeof(uint64_t))))
		return perr(x, "out of memory");
	for (a = 0; a < k; a++) {
		if (pu(x, &v) < 0)
			return -1;
		if (a && v == 0)
			return perr(x, "foreign seqs not increasing");
		s->foreign[a] = (a ? s->foreign[a - 1] : 0) + v;
		if (a && s->foreign[a] < s->foreign[a - 1])
			return perr(x, "foreign seqs not increasing");
		s->nforeign = (size_t)a + 1;
	}
	return 0;
}

/* REPEAT records: their count, then of each its count of calls, its start
 * from the one before's (from 0 for the first), its span. */
static int parse_repeats(struct pc *x, struct tg_cstream *s)
{
	uint64_t k, a, cnt, span;
	int64_t d;

	if (pcount(x, &k, 3) < 0)
		return -1;
	if (k && !(s->rep = malloc(3 * k * sizeof(uint64_t))))
		return perr(x, "out of memory");
	for (a = 0; a < 3 * k; a += 3) {
		if (pu(x, &cnt) < 0 || ps(x, &d) < 0 || pu(x, &span) < 0)
			return -1;
		if (cnt == 0)
			return perr(x, "a repeat of no calls");
		s->rep[a] = cnt;
		s->rep[a + 1] = (a ? s->rep[a - 2] : 0) + (uint64_t)d;
		s->rep[a + 2] = span;
		s->nrep = (size_t)a + 3;
	}
	return 0;
}

/* Which local values are string references: their count, then their
 * indexes, each from the one before's; each must hold one. */
static int parse_slocal(const struct tg_cfg *c, struct pc *x, struct tg_cstream *s)
{
	uint64_t k, d, i, at = 0;

	if (pcount(x, &k, 1) < 0)
		return -1;
	if (k > s->nlocal)
		return perr(x, "more string local values than local values");
	if (k && !(s->lstr = calloc(s->nlocal, 1)))
		return perr(x, "out of memory");
	for (i = 0; i < k; i++) {
		if (pu(x, &d) < 0)
			return -1;
		if ((i && d == 0) || d >= s->nlocal - at)
			return perr(x, "bad string local value index");
		at += d;
		if (s->local[at] > c->strs.n)
			return perr(x, "bad string reference");
		s->lstr[at] = 1;
	}
	return 0;
}

/* The number of anchored calls, in the stream's XTIME section: only times
 * rebuilt from the means have any, and no more than there are calls. */
static int parse_nx(struct pc *x, struct tg_cstream *s)
{
	if (pu(x, &s->nx) < 0)
		return -1;
	if (s->nx > s->v.calls)
		return perr(x, "more anchored calls than calls");
	if (s->nx && s->v.timing != TG_CFG_AGGREGATE)
		return perr(x, "anchored calls in times kept whole");
	return 0;
}

/* One stream header, its field k read from @f[k]: all the same row in a
 * version 1 file, whose last fields are optional. */
static int parse_stream(struct tg_cfg *c, struct pc **f, int v2, struct prevhdr *pv,
			const uint32_t *rmap, const uint64_t *rlen, uint64_t nrules)
{
	const struct tg_cstream *p;
	struct tg_cstream *s;
	struct pc *row = f[TG_F_LOCAL];

	if (!(s = tg_cfg_stream_new(c)))
		return perr(f[0], "out of memory");
	if (parse_ident(c, f, v2, pv, &s->v.h) < 0 ||
	    parse_counts(f, v2, pv, s, rmap, rlen, nrules) < 0 ||
	    plist(f[TG_F_CLOCKS], &s->clock, &s->nclock, 0, NULL, 0) < 0)
		return -1;
	/* not a header flag: whether aggregate times kept their anchors */
	s->v.anchored = !(s->v.h.flags & TG_CFG_UNANCHORED);
	s->v.h.flags &= ~TG_CFG_UNANCHORED;
	s->v.h.run = 1;
	pv->n++;
	if (!v2 && row->p == row->end)	/* written before local values */
		return 0;
	p = v2 && pv->n > 1 ? &c->st[c->nst - 2] : NULL;	/* the stream before */
	if (plist(f[TG_F_LOCAL], &s->local, &s->nlocal, v2, p ? p->local : NULL,
		  p ? p->nlocal : 0) < 0)
		return -1;
	if (!v2 && row->p == row->end)	/* seqs not tagged */
		return 0;
	if (parse_foreign(f[TG_F_FOREIGN], s) < 0)
		return -1;
	if (!v2 && row->p == row->end)
		return 0;
	if (pu(f[TG_F_RUN], &s->v.h.run) < 0 || s->v.h.run < (v2 ? 1 : 2))
		return perr(f[TG_F_RUN], "bad run number");
	/* written before REPEAT records: a column (or the row's end) less */
	if (!f[TG_F_REPEATS] || (!v2 && row->p == row->end))
		return 0;
	if (parse_repeats(f[TG_F_REPEATS], s) < 0)
		return -1;
	if (v2 && f[TG_F_SLOCAL] && parse_slocal(c, f[TG_F_SLOCAL], s) < 0)
		return -1;
	return v2 && f[TG_F_XTIME] ? parse_nx(f[TG_F_XTIME], s) : 0;
}

static int parse_streams(struct tg_cfg *c, struct pc *x, unsigned version, const uint32_t *rmap,
			 const uint64_t *rlen, uint64_t nrules)
{
	struct pc col[TG_F_N], *f[TG_F_N];
	struct prevhdr pv;
	uint64_t n, i, k, ncol, len;

	memset(&pv, 0, sizeof(pv));
	if (pcount(x, &n, 1) < 0)
		return -1;
	if (version < 2) {	/* rows: a byte count, then the fields */
		for (i = 0; i < n; i++) {
			if (pcount(x, &len, 1) < 0)
				return -1;
			col[0] = *x;
			col[0].end = x->p + len;
			x->p += len;
			for (k = 0; k < TG_F_N; k++)
				f[k] = &col[0];
			if (parse_stream(c, f, 0, &pv, rmap, rlen, nrules) < 0)
				return -1;
			if (c->st[c->nst - 1].v.timing == TG_CFG_AGGREGATE)
				c->st[c->nst - 1].v.anchored = 0;
		}
	} else {		/* columns: a count, then each a byte count and values */
		if (pcount(x, &ncol, 1) < 0)
			return -1;
		if (ncol < TG_F_REPEATS)
			return perr(x, "too few columns");
		f[TG_F_REPEATS] = NULL;	/* optional: newer than the rest */
		f[TG_F_SLOCAL] = NULL;
		f[TG_F_XTIME] = NULL;
		for (k = 0; k < ncol; k++) {
			if (pcount(x, &len, 1) < 0)
				return -1;
			if (k < TG_F_N) {	/* later ones are skipped */
				col[k] = *x;
				col[k].end = x->p + len;
				f[k] = &col[k];
			}
			x->p += len;
		}
		for (i = 0; i < n; i++) {
			if (parse_stream(c, f, 1, &pv, rmap, rlen, nrules) < 0)
				return -1;
			/* before version 13, aggregate times kept no call's */
			if (version < 13 && c->st[c->nst - 1].v.timing == TG_CFG_AGGREGATE)
				c->st[c->nst - 1].v.anchored = 0;
		}
		for (k = 0; k < TG_F_N && k < ncol; k++)
			if (col[k].p != col[k].end)
				return perr(&col[k], "trailing bytes in a column");
	}
	if (x->p != x->end)
		return perr(x, "trailing bytes");
	return 0;
}

/* The sections of a file as they are found: one of each type but STIME,
 * which has one for each stream whose times are kept, and XTIME, one for
 * each stream with anchored calls, in stream order. */
struct secs {
	struct sec sec[TG_S_NTYPES];
	struct sec *stime, *xtime;
	size_t nstime, capstime, nxtime, capxtime;
};

/* Where the section at @pos goes in @ss, NULL when out of memory or
 * repeated (@err says which), or @skip set for a type this version does not
 * know. */
static struct sec *sec_slot(struct secs *ss, unsigned type, uint64_t pos, int *skip, char *err,
			    size_t errlen)
{
	struct sec *sc;

	*skip = 0;
	if (type == TG_S_STIME || type == TG_S_XTIME) {
		struct sec **v = type == TG_S_STIME ? &ss->stime : &ss->xtime;
		size_t *n = type == TG_S_STIME ? &ss->nstime : &ss->nxtime;
		size_t *cap = type == TG_S_STIME ? &ss->capstime : &ss->capxtime;
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 16;
			struct sec *ns = realloc(*v, nc * sizeof(*ns));
			if (!ns) {
				snprintf(err, errlen, "out of memory");
				return NULL;
			}
			*v = ns;
			*cap = nc;
		}
		sc = &(*v)[(*n)++];
		memset(sc, 0, sizeof(*sc));
	} else if (type < TG_S_NTYPES) {
		sc = &ss->sec[type];
		if (sc->present) {
			snprintf(err, errlen, "corrupt section %s at byte %llu (repeated)",
				 secname[type], (unsigned long long)pos);
			return NULL;
		}
	} else {
		*skip = 1;
		return NULL;
	}
	return sc;
}

/*
 * Check the header of the file @buf[0..n) and find its sections, each
 * checked against its checksum, up to END; every section but META and
 * STIME must be there.  Returns 0, or -1 with a message in @err.
 */
static int find_sections(const unsigned char *buf, size_t n, struct secs *ss, char *err,
			 size_t errlen)
{
	uint64_t pos;
	int ended = 0;
	size_t i;

	if (!tg_cfg_is_magic(buf, n)) {
		snprintf(err, errlen, "not a Tangram compressed trace (bad magic)");
		return -1;
	}
	if (n < 12) {
		snprintf(err, errlen, "truncated header at byte %zu", n);
		return -1;
	}
	if (buf[8] < TG_CFG_VERSION_MIN || buf[8] > TG_CFG_VERSION || buf[9] != 0) {
		snprintf(err, errlen, "unsupported compressed trace version %u", buf[8] | buf[9] << 8);
		return -1;
	}
	for (pos = 12; pos < n;) {
		unsigned type, flags;
		uint64_t stored = 0, raw = 0;
		struct sec *sc;
		int k, skip;
		if (n - pos < TG_SEC_HDR) {
			snprintf(err, errlen, "truncated section header at byte %llu",
				 (unsigned long long)pos);
			return -1;
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
			return -1;
		}
		if ((uint32_t)crc32(0L, buf + pos + TG_SEC_HDR, (uInt)stored) !=
		    tg_get_le32(buf + pos + 20)) {
			snprintf(err, errlen, "corrupt section %s at byte %llu (checksum)",
				 type < TG_S_NTYPES ? secname[type] : "(unknown)",
				 (unsigned long long)pos);
			return -1;
		}
		/* zlib inflates at most 1032 to 1: a larger length is damage */
		if (type < TG_S_NTYPES && (!(flags & TG_SEC_ZLIB) ? raw != stored
					  : raw > TG_SEC_MAXRAW || raw > stored * 1032 + 1024)) {
			snprintf(err, errlen, "corrupt section %s at byte %llu (length)",
				 secname[type], (unsigned long long)pos);
			return -1;
		}
		if (type == TG_S_END) {
			if (stored || pos + TG_SEC_HDR != n) {
				snprintf(err, errlen, "corrupt section END at byte %llu (%s)",
					 (unsigned long long)pos,
					 stored ? "not empty" : "bytes after it");
				return -1;
			}
			ended = 1;
			break;
		}
		if (!(sc = sec_slot(ss, type, pos, &skip, err, errlen))) {
			if (!skip)
				return -1;
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
		return -1;
	}
	for (i = TG_S_STRINGS; i <= TG_S_STREAMS; i++)
		if (!ss->sec[i].present) {
			snprintf(err, errlen, "corrupt file: no %s section", secname[i]);
			return -1;
		}
	return 0;
}

static int parse_strings(struct tg_cfg *c, struct sec *sc, char *err, size_t errlen)
{
	struct pc x;
	uint64_t ns, k, len;

	if (sec_open(sc, TG_S_STRINGS, &x, err, errlen) < 0 || pcount(&x, &ns, 1) < 0)
		return -1;
	for (k = 0; k < ns; k++) {
		if (pcount(&x, &len, 1) < 0)
			return -1;
		/* strings are unique: a repeated one would shift the numbers
		 * of those after it */
		if (tg_strtab_intern(&c->strs, (const char *)x.p, len) < 0 || c->strs.n != k + 1)
			return perr(&x, "repeated string");
		x.p += len;
	}
	if (x.p != x.end)
		return perr(&x, "trailing bytes");
	return 0;
}

/* Signature @k, @w[0..n), is not one this version can decode: say why. */
static int bad_signature(struct pc *x, uint64_t k, const int64_t *w, size_t n)
{
	char what[80];
	unsigned func = 0, tid = 0;

	if (tg_sig_call(w, n, &func, &tid) && !tg_call_lookup(func))
		snprintf(what, sizeof(what), "signature %llu: function %u unknown to this version",
			 (unsigned long long)k, func);
	else
		snprintf(what, sizeof(what), "signature %llu malformed", (unsigned long long)k);
	return perr(x, what);
}

static int parse_cst(struct tg_cfg *c, struct sec *sc, unsigned version, char *err,
		     size_t errlen)
{
	struct tg_words w = { 0 };
	struct pc x;
	uint64_t nt, k, nw, j;
	int rc = -1;

	if (sec_open(sc, TG_S_CST, &x, err, errlen) < 0 || pcount(&x, &nt, 1) < 0)
		goto out;
	for (k = 0; k < nt; k++) {
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
		/* from before the current version, written without the
		 * arguments appended to schemas since */
		if (version < TG_CFG_VERSION && tg_sig_upgrade(&w, version) < 0) {
			bad_signature(&x, k, w.w, w.n);
			goto out;
		}
		if ((w.n ? tg_sig_check(w.w, w.n, c->strs.n, NULL) : -1) < 0) {
			bad_signature(&x, k, w.w, w.n);
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
	rc = 0;
out:
	tg_words_release(&w);
	return rc;
}

static int parse_agg(struct tg_cfg *c, struct sec *sc, char *err, size_t errlen)
{
	struct pc x;
	uint64_t na, k, cnt, md;
	int64_t mg;

	if (sec_open(sc, TG_S_AGG, &x, err, errlen) < 0 || pu(&x, &na) < 0)
		return -1;
	if (na != c->ncst)
		return perr(&x, "not one entry per signature");
	for (k = 0; k < na; k++) {
		if (pu(&x, &cnt) < 0 || pu(&x, &md) < 0 || ps(&x, &mg) < 0)
			return -1;
		c->agg[k].count = cnt;
		c->agg[k].dur = (unsigned __int128)md * cnt;
		c->agg[k].gap = (__int128)mg * (__int128)cnt;
	}
	if (x.p != x.end)
		return perr(&x, "trailing bytes");
	return 0;
}

/*
 * Rule @k of the GRAMMAR section: @len symbols into @body, checked, its
 * expansion's length into rlen[k] and the rule, added, into rmap[k].
 */
static int parse_rule(struct tg_cfg *c, struct pc *x, uint64_t k, uint64_t len,
		      struct tg_sym *body, uint32_t *rmap, uint64_t *rlen)
{
	uint64_t j, sym, e1;

	rlen[k] = 0;
	for (j = 0; j < len; j++) {
		uint64_t l;
		if (pu(x, &sym) < 0 || pu(x, &e1) < 0)
			return -1;
		if (e1 >= UINT32_MAX || sym > UINT32_MAX ||
		    (sym & 1 ? (sym >> 1) >= k : (sym >> 1) >= c->ncst))
			return perr(x, sym & 1 ? "a rule names itself or a later rule"
					       : "a rule names a signature not in the CST");
		l = sym & 1 ? rlen[sym >> 1] : 1;
		if (l && e1 + 1 > (1ull << 50) / l)
			return perr(x, "a rule expands too far");
		rlen[k] += l * (e1 + 1);
		if (rlen[k] > (1ull << 50))
			return perr(x, "a rule expands too far");
		body[j].sym = sym & 1 ? rmap[sym >> 1] << 1 | 1 : (uint32_t)sym;
		body[j].exp = (uint32_t)(e1 + 1);
	}
	if ((rmap[k] = tg_cfg_rule_add(c, body, len)) == UINT32_MAX)
		return perr(x, "out of memory");
	return 0;
}

/*
 * The GRAMMAR section: its rules join those of @c.  *@rmap (malloc'd, the
 * caller frees it) is filled with the number in @c of each rule of the
 * file, *@rlen with the length of its expansion, *@nr with their number.
 */
static int parse_grammar(struct tg_cfg *c, struct sec *sc, uint32_t **rmap, uint64_t **rlen,
			 uint64_t *nr, char *err, size_t errlen)
{
	struct tg_sym *body = NULL;
	struct pc x;
	uint64_t k, len;
	int rc = -1;

	if (sec_open(sc, TG_S_GRAMMAR, &x, err, errlen) < 0 || pcount(&x, nr, 1) < 0)
		return -1;
	*rmap = malloc((*nr ? *nr : 1) * sizeof(uint32_t));
	*rlen = malloc((*nr ? *nr : 1) * sizeof(uint64_t));
	if (!*rmap || !*rlen)
		return perr(&x, "out of memory");
	for (k = 0; k < *nr; k++) {
		if (pcount(&x, &len, 2) < 0)
			goto out;
		free(body);
		if (!(body = malloc((len ? len : 1) * sizeof(*body)))) {
			perr(&x, "out of memory");
			goto out;
		}
		if (parse_rule(c, &x, k, len, body, *rmap, *rlen) < 0)
			goto out;
	}
	if (x.p != x.end) {
		perr(&x, "trailing bytes");
		goto out;
	}
	rc = 0;
out:
	free(body);
	return rc;
}

/* STIME: in stream order, one for each stream whose times are kept. */
static int attach_stime(struct tg_cfg *c, const struct sec *stime, size_t nstime, char *err,
			size_t errlen)
{
	size_t i, k = 0;

	for (i = 0; i < c->nst; i++) {
		struct tg_cstream *st = &c->st[i];
		if (st->v.timing == TG_CFG_AGGREGATE)
			continue;
		if (k == nstime) {
			snprintf(err, errlen, "corrupt file: no STIME section for stream %zu", i);
			return -1;
		}
		if (!(stime[k].flags & TG_SEC_ZLIB)) {
			/* stored uncompressed: keep it deflated in memory */
			if (tg_cfg_deflate(stime[k].p, stime[k].stored, &st->tz, &st->tzlen) < 0) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
		} else {
			if (!(st->tz = malloc(stime[k].stored ? stime[k].stored : 1))) {
				snprintf(err, errlen, "out of memory");
				return -1;
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
		return -1;
	}
	return 0;
}

/* XTIME: in stream order, one for each stream with anchored calls, kept
 * as stored and checked whole, so that a merge copies no damage. */
static int attach_xtime(struct tg_cfg *c, const struct sec *xtime, size_t nxtime, char *err,
			size_t errlen)
{
	size_t i, k = 0;

	for (i = 0; i < c->nst; i++) {
		struct tg_cstream *st = &c->st[i];
		if (!st->nx)
			continue;
		if (k == nxtime) {
			snprintf(err, errlen, "corrupt file: no XTIME section for stream %zu", i);
			return -1;
		}
		if (!(st->xz = malloc(xtime[k].stored ? xtime[k].stored : 1))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		memcpy(st->xz, xtime[k].p, xtime[k].stored);
		st->xzlen = xtime[k].stored;
		st->xzlib = (xtime[k].flags & TG_SEC_ZLIB) != 0;
		st->xraw = xtime[k].raw;
		st->xzat = xtime[k].at;
		if (tg_xtime_check(st) < 0) {
			snprintf(err, errlen, "corrupt section XTIME at byte %llu "
				 "(anchored times of stream %zu)", (unsigned long long)xtime[k].at, i);
			return -1;
		}
		k++;
	}
	if (k != nxtime) {
		snprintf(err, errlen, "corrupt section XTIME at byte %llu (no stream for it)",
			 (unsigned long long)xtime[k].at);
		return -1;
	}
	return 0;
}

struct tg_cfg *tg_cfg_read(struct tg_stream *s, char *err, size_t errlen)
{
	struct secs ss;
	size_t n = 0, i;
	unsigned char *buf = NULL;
	uint64_t nr = 0, *rlen = NULL;
	uint32_t *rmap = NULL;
	struct tg_cfg *c = NULL;
	struct pc x;
	int ok = 0;

	memset(&ss, 0, sizeof(ss));
	if (read_all(s, &buf, &n) < 0) {
		snprintf(err, errlen, "%s", strerror(errno ? errno : ENOMEM));
		return NULL;
	}
	if (find_sections(buf, n, &ss, err, errlen) < 0)
		goto out;
	if (!(c = tg_cfg_new())) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (parse_strings(c, &ss.sec[TG_S_STRINGS], err, errlen) < 0 ||
	    parse_cst(c, &ss.sec[TG_S_CST], buf[8], err, errlen) < 0 ||
	    parse_agg(c, &ss.sec[TG_S_AGG], err, errlen) < 0 ||
	    parse_grammar(c, &ss.sec[TG_S_GRAMMAR], &rmap, &rlen, &nr, err, errlen) < 0)
		goto out;
	/* STREAMS: rule numbers are those of the file */
	if (sec_open(&ss.sec[TG_S_STREAMS], TG_S_STREAMS, &x, err, errlen) < 0 ||
	    parse_streams(c, &x, buf[8], rmap, rlen, nr) < 0)
		goto out;
	if (attach_stime(c, ss.stime, ss.nstime, err, errlen) < 0 ||
	    attach_xtime(c, ss.xtime, ss.nxtime, err, errlen) < 0)
		goto out;
	ok = 1;
out:
	for (i = 0; i < TG_S_NTYPES; i++)
		free(ss.sec[i].data);
	free(ss.stime);
	free(ss.xtime);
	free(buf);
	free(rmap);
	free(rlen);
	if (!ok) {
		tg_cfg_free(c);
		return NULL;
	}
	return c;
}
