/*
 * hb.c - writing, reading and querying happens-before graph files
 * (tangram-hb(5)).
 *
 * A file is read by mapping it (or, from a pipe, by reading it whole) and
 * checking every count, offset and index it holds before anything is used,
 * so that a damaged file is refused with the offset of the damage instead
 * of being misread.  The arrays are then used in place: the format is
 * little-endian and aligned so that this is possible.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "hb.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "stream.h"
#include "banned.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .hb format is used in place: this reader needs a little-endian host"
#endif

#define NSECT 16		/* the largest section id this reader knows */
#define ENTRY 24	/* bytes per section table entry */
#define REQUIRED 1u

/* ---- names ------------------------------------------------------------- */

static const char *const edge_names[] = {
	NULL, "message", "sync", "gather", "release", "root", "to-root", "prefix", "run", "rma", "lock",
};
static const char *const extra_names[] = { NULL, "all", "prefix", "side", "run", "lock" };
static const char *const problem_names[] = {
	NULL, "unmatched-send", "unmatched-receive", "unmatched-collective",
	"collective-mismatch", "incomplete", "unresolved-wildcard",
	"unknown-handle", "truncated", "missing-rank", "failed-call", "bad-rank",
	"one-sided", "mpi-untraced",
};

#define NAME(tab, k) ((k) < sizeof(tab) / sizeof((tab)[0]) && (tab)[k] ? (tab)[k] : "?")

const char *tg_hb_edge_name(unsigned kind) { return NAME(edge_names, kind); }
const char *tg_hb_extra_name(unsigned kind) { return NAME(extra_names, kind); }
const char *tg_hb_problem_name(unsigned kind) { return NAME(problem_names, kind); }

/* ---- writing ------------------------------------------------------------ */

static void put16(unsigned char *p, uint16_t v) { p[0] = v; p[1] = v >> 8; }
static void put32(unsigned char *p, uint32_t v) { put16(p, v); put16(p + 2, v >> 16); }
static void put64(unsigned char *p, uint64_t v) { put32(p, v); put32(p + 4, v >> 32); }

struct sect {
	uint32_t id, flags;
	uint64_t off, len;
};

/* The CRC-32 of what tg_hb_write() has written so far: the CRC section,
 * last in the file, holds that of every byte before it. */
static _Thread_local uint32_t wcrc;

static int out(struct tg_stream *s, const void *p, uint64_t len)
{
	wcrc = (uint32_t)crc32(wcrc, p, (uInt)len);
	return tg_stream_write(s, p, len);
}

/* Write @len bytes at @p; nothing, not even a look at @p, when @len is 0.
 * In pieces: zlib's crc32 takes an unsigned length. */
static int raw(struct tg_stream *s, const void *p, uint64_t len)
{
	const unsigned char *q = p;

	while (len > 0) {
		uint64_t k = len < (1u << 30) ? len : (1u << 30);
		if (out(s, q, k) < 0)
			return -1;
		q += k;
		len -= k;
	}
	return 0;
}

static int write_pad(struct tg_stream *s, uint64_t *pos, uint64_t to)
{
	static const unsigned char zero[8];

	if (to > *pos && out(s, zero, to - *pos) < 0)
		return -1;
	*pos = to;
	return 0;
}

/* NODEINFO and RANKINFO interleave their fields: composed in chunks. */
static int write_nodeinfo(struct tg_stream *s, const struct tg_hbgraph *g)
{
	unsigned char buf[8 * 1024];
	uint64_t n;
	size_t k = 0;

	for (n = 0; n < g->nnodes; n++) {
		put32(buf + k, g->span[n]);
		put16(buf + k + 4, g->func[n]);
		put16(buf + k + 6, 0);
		k += 8;
		if (k == sizeof(buf)) {
			if (out(s, buf, k) < 0)
				return -1;
			k = 0;
		}
	}
	return k ? out(s, buf, k) : 0;
}

static int write_rankinfo(struct tg_stream *s, const struct tg_hbgraph *g)
{
	unsigned char e[24];
	uint32_t r;

	for (r = 0; r < g->nranks; r++) {
		put64(e, g->rankinfo[r].records);
		put64(e + 8, g->rankinfo[r].lastseq);
		put32(e + 16, g->rankinfo[r].flags);
		put32(e + 20, 0);
		if (out(s, e, sizeof(e)) < 0)
			return -1;
	}
	return 0;
}

static int write_extra(struct tg_stream *s, const struct tg_hbgraph *g)
{
	unsigned char e[4];
	uint64_t x;

	for (x = 0; x < g->nextra; x++) {
		put16(e, g->xfunc[x]);
		put16(e + 2, g->xkind[x]);
		if (out(s, e, sizeof(e)) < 0)
			return -1;
	}
	return 0;
}

static int write_recpos(struct tg_stream *s, const struct tg_hbgraph *g)
{
	unsigned char e[24];
	uint64_t i;

	for (i = 0; i < g->nrecpos; i++) {
		const struct tg_hbrecpos *p = &g->recpos[i];
		put64(e, p->seq);
		put32(e + 8, p->rank);
		put32(e + 12, p->after);
		put32(e + 16, p->before);
		put32(e + 20, 0);
		if (out(s, e, 24) < 0)
			return -1;
	}
	return 0;
}

static int write_stats(struct tg_stream *s, const struct tg_hbgraph *g)
{
	unsigned char e[8];
	int i;

	put64(e, TG_HBST_COUNT);
	if (out(s, e, 8) < 0)
		return -1;
	for (i = 0; i < TG_HBST_COUNT; i++) {
		put64(e, g->stats[i]);
		if (out(s, e, 8) < 0)
			return -1;
	}
	return 0;
}

static int write_problems(struct tg_stream *s, const struct tg_hbgraph *g)
{
	unsigned char e[24];
	size_t i;

	put64(e, g->nproblems);
	if (out(s, e, 8) < 0)
		return -1;
	for (i = 0; i < g->nproblems; i++) {
		const struct tg_hbproblem *p = &g->problems[i];
		put16(e, p->kind);
		put16(e + 2, p->func);
		put32(e + 4, p->rank);
		put64(e + 8, p->seq);
		put64(e + 16, p->count);
		if (out(s, e, 24) < 0)
			return -1;
	}
	return 0;
}

int tg_hb_write(struct tg_stream *s, const struct tg_hbgraph *g)
{
	struct sect t[NSECT] = {
		{ TG_HBS_RANKS, REQUIRED, 0, ((uint64_t)g->nranks + 1) * 8 },
		{ TG_HBS_RANKINFO, 0, 0, (uint64_t)g->nranks * 24 },
		{ TG_HBS_NODESEQ, REQUIRED, 0, g->nnodes * 8 },
		{ TG_HBS_NODEINFO, REQUIRED, 0, g->nnodes * 8 },
		{ TG_HBS_EXTRA, 0, 0, g->nextra * 4 },
		{ TG_HBS_EDGEINDEX, REQUIRED, 0, (g->nnodes + g->nextra + 1) * 8 },
		{ TG_HBS_EDGETARGET, REQUIRED, 0, g->nedges * 4 },
		{ TG_HBS_EDGEKIND, REQUIRED, 0, g->nedges },
		{ TG_HBS_CLOCKNODE, REQUIRED, 0, g->nnodes * 4 },
		{ TG_HBS_CLOCKVEC, REQUIRED, 0, g->nvec * TG_HB_NARROW(g->nranks) },
		{ TG_HBS_STATS, 0, 0, 8 + TG_HBST_COUNT * 8 },
		{ TG_HBS_PROBLEMS, 0, 0, 8 + g->nproblems * 24 },
		{ TG_HBS_CLOCKWIDE, REQUIRED, 0, g->nwide * g->nranks * 4 },
		{ TG_HBS_RUN, 0, 0, 8 },
		/* only when a rank's threads made MPI calls at once */
		{ TG_HBS_RECPOS, REQUIRED, 0, g->nrecpos * 24 },
		{ TG_HBS_CRC, REQUIRED, 0, 4 },		/* last */
	};
	unsigned char hdr[TG_HB_HDRLEN + NSECT * ENTRY];
	int i, rc = 0, ns = NSECT;
	uint64_t pos;

	if (!g->nrecpos) {	/* the file as it was before there was one */
		t[NSECT - 2] = t[NSECT - 1];
		ns--;
	}
	pos = TG_HB_HDRLEN + (uint64_t)ns * ENTRY;
	for (i = 0; i < ns; i++) {
		t[i].off = (pos + 7) & ~(uint64_t)7;
		pos = t[i].off + t[i].len;
	}
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, TG_HB_MAGIC, TG_HB_MAGIC_LEN);
	put16(hdr + 8, TG_HB_VERSION);
	put16(hdr + 10, g->flags);
	put32(hdr + 12, (uint32_t)ns);
	put32(hdr + 16, g->nranks);
	put32(hdr + 20, (uint32_t)g->nwide);
	put64(hdr + 24, g->nnodes);
	put64(hdr + 32, g->nextra);
	put64(hdr + 40, g->nedges);
	put64(hdr + 48, g->nvec);
	put64(hdr + 56, pos);
	for (i = 0; i < ns; i++) {
		unsigned char *e = hdr + TG_HB_HDRLEN + i * ENTRY;
		put32(e, t[i].id);
		put32(e + 4, t[i].flags);
		put64(e + 8, t[i].off);
		put64(e + 16, t[i].len);
	}
	wcrc = (uint32_t)crc32(0L, Z_NULL, 0);
	if (out(s, hdr, TG_HB_HDRLEN + (uint64_t)ns * ENTRY) < 0)
		return -1;
	pos = TG_HB_HDRLEN + (uint64_t)ns * ENTRY;
	for (i = 0; i < ns && rc == 0; i++) {
		if (write_pad(s, &pos, t[i].off) < 0)
			return -1;
		switch (t[i].id) {
		case TG_HBS_RANKS:
			rc = raw(s, g->rankfirst, t[i].len);
			break;
		case TG_HBS_RANKINFO:
			rc = write_rankinfo(s, g);
			break;
		case TG_HBS_NODESEQ:
			rc = raw(s, g->seq, t[i].len);
			break;
		case TG_HBS_NODEINFO:
			rc = write_nodeinfo(s, g);
			break;
		case TG_HBS_EXTRA:
			rc = write_extra(s, g);
			break;
		case TG_HBS_EDGEINDEX:
			rc = raw(s, g->eindex, t[i].len);
			break;
		case TG_HBS_EDGETARGET:
			rc = raw(s, g->etarget, t[i].len);
			break;
		case TG_HBS_EDGEKIND:
			rc = raw(s, g->ekind, t[i].len);
			break;
		case TG_HBS_CLOCKNODE:
			rc = raw(s, g->clock, t[i].len);
			break;
		case TG_HBS_CLOCKVEC:
			rc = raw(s, g->vecn, t[i].len);
			break;
		case TG_HBS_CLOCKWIDE:
			rc = raw(s, g->vecw, t[i].len);
			break;
		case TG_HBS_STATS:
			rc = write_stats(s, g);
			break;
		case TG_HBS_PROBLEMS:
			rc = write_problems(s, g);
			break;
		case TG_HBS_RECPOS:
			rc = write_recpos(s, g);
			break;
		case TG_HBS_RUN: {
			unsigned char c[8];
			put64(c, g->run);
			rc = raw(s, c, 8);
			break;
		}
		case TG_HBS_CRC: {
			unsigned char c[4];
			put32(c, wcrc);
			rc = tg_stream_write(s, c, 4);
			break;
		}
		}
		pos += t[i].len;
	}
	return rc;
}

/* ---- reading ------------------------------------------------------------ */

struct tg_hb {
	unsigned char *base;
	size_t size;
	int mapped;
	struct tg_hbgraph g;
	const unsigned char *nodeinfo, *rankinfo_raw, *extra_raw;
	struct tg_hbrank *rankinfo;
	uint16_t *xfunc, *xkind;
	struct tg_hbproblem *problems;
	uint64_t stats[TG_HBST_COUNT];
	/* per rank: buckets of seq values (seq >> shift), each the number of
	 * the rank's nodes below its first seq, so that finding a seq among
	 * the nodes looks at one bucket and a node or two */
	uint32_t *bucket;
	uint64_t *boff;		/* nranks + 1 */
	uint8_t *shift;		/* nranks */
	uint8_t *spans;		/* nranks: 1 if a node of the rank has a span */
	struct tg_hbrecpos *recpos;	/* the RECPOS section */
	uint64_t *rpoff;	/* nranks + 1: each rank's entries in it */
	int lastknown;		/* RANKINFO gave each rank's last seq */
};

static uint16_t get16(const unsigned char *p) { return p[0] | p[1] << 8; }
static uint32_t get32(const unsigned char *p) { return get16(p) | (uint32_t)get16(p + 2) << 16; }
static uint64_t get64(const unsigned char *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

static void fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* Read all of @path into memory, mapped when it is a regular file.  The
 * messages leave the path out: the caller names it, once. */
static int load(struct tg_hb *h, const char *path, char *err, size_t errlen)
{
	struct tg_stream *s;
	struct stat st;
	size_t cap = 1 << 16;
	long n;
	int fd;

	if (strcmp(path, "-") != 0) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fail(err, errlen, "%s", strerror(errno));
			return -1;
		}
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
			void *p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
			close(fd);
			if (p == MAP_FAILED) {
				fail(err, errlen, "cannot map: %s", strerror(errno));
				return -1;
			}
			h->base = p;
			h->size = st.st_size;
			h->mapped = 1;
			return 0;
		}
		s = tg_stream_fd(fd, 0, 1);
	} else {
		s = tg_stream_fd(0, 0, 0);
	}
	if (!s || !(h->base = malloc(cap))) {
		fail(err, errlen, "out of memory");
		tg_stream_close(s);
		return -1;
	}
	while ((n = tg_stream_read(s, h->base + h->size, cap - h->size)) > 0) {
		h->size += n;
		if (h->size == cap) {
			unsigned char *nb = realloc(h->base, cap * 2);
			if (!nb) {
				fail(err, errlen, "out of memory");
				tg_stream_close(s);
				return -1;
			}
			h->base = nb;
			cap *= 2;
		}
	}
	if (n < 0) {
		fail(err, errlen, "read error: %s", strerror(errno));
		tg_stream_close(s);
		return -1;
	}
	tg_stream_close(s);
	return 0;
}

/* Where each section is: offset of its table entry, offset, length. */
struct found {
	uint64_t entry, off, len;
	int present;
};

static int need_len(const struct found *f, uint64_t want, const char *what,
		    char *err, size_t errlen)
{
	if (!f->present) {
		fail(err, errlen, "section %s is missing", what);
		return -1;
	}
	if (f->len != want) {
		fail(err, errlen, "at offset %llu: section %s has %llu bytes, expected %llu",
		     (unsigned long long)(f->entry + 16), what,
		     (unsigned long long)f->len, (unsigned long long)want);
		return -1;
	}
	return 0;
}

/* The header: magic, version, size, and counts that fit the file. */
static int check_header(struct tg_hb *h, uint64_t *nsect, char *err, size_t errlen)
{
	const unsigned char *b = h->base;
	struct tg_hbgraph *g = &h->g;
	uint64_t size = h->size;
	uint32_t p;

	if (size < TG_HB_MAGIC_LEN || memcmp(b, TG_HB_MAGIC, TG_HB_MAGIC_LEN) != 0) {
		fail(err, errlen, "not a happens-before graph (bad magic)");
		return -1;
	}
	if (size < TG_HB_HDRLEN) {
		fail(err, errlen, "at offset %llu: truncated header", (unsigned long long)size);
		return -1;
	}
	if (get16(b + 8) != TG_HB_VERSION && get16(b + 8) != 1) {
		fail(err, errlen, "at offset 8: unsupported version %u", get16(b + 8));
		return -1;
	}
	if (get64(b + 56) != size) {
		fail(err, errlen, "at offset %llu: file has %llu bytes, its header says %llu%s",
		     (unsigned long long)(size < get64(b + 56) ? size : 56),
		     (unsigned long long)size, (unsigned long long)get64(b + 56),
		     size < get64(b + 56) ? " (truncated)" : "");
		return -1;
	}
	g->flags = get16(b + 10);
	*nsect = get32(b + 12);
	g->nranks = p = get32(b + 16);
	g->nwide = get32(b + 20);
	g->nnodes = get64(b + 24);
	g->nextra = get64(b + 32);
	g->nedges = get64(b + 40);
	g->nvec = get64(b + 48);
	/* every count must fit the file before it is multiplied */
	{
		static const char *const what[] = { "rank", "node", "extra node", "edge",
						    "vector", "wide vector" };
		static const unsigned at[] = { 16, 24, 32, 40, 48, 20 };
		int bad = p > size / 8 ? 0 : g->nnodes > size / 8 ? 1 :
			  g->nextra > size / 4 ? 2 : g->nedges > size ? 3 :
			  g->nvec > size / TG_HB_NARROW(p) || g->nvec >= TG_HB_WIDE ? 4 :
			  (p && g->nwide > size / 4 / p) || g->nwide >= TG_HB_WIDE ? 5 : -1;
		if (bad < 0 && g->nnodes + g->nextra >= UINT32_MAX)
			bad = 1;
		if (bad >= 0) {
			fail(err, errlen, "at offset %u: the %s count does not fit a file of "
			     "%llu bytes", at[bad], what[bad], (unsigned long long)size);
			return -1;
		}
	}
	return 0;
}

/* The section table: each section inside the file, none twice, the
 * required ones as long as the counts say; the arrays pointed at. */
static int check_sections(struct tg_hb *h, struct found *f, uint64_t nsect, char *err,
			  size_t errlen)
{
	const unsigned char *b = h->base;
	struct tg_hbgraph *g = &h->g;
	uint64_t size = h->size, i, prev_end;
	uint32_t p = g->nranks;

	if (nsect > (size - TG_HB_HDRLEN) / ENTRY) {
		fail(err, errlen, "at offset 12: %llu sections do not fit the file",
		     (unsigned long long)nsect);
		return -1;
	}
	prev_end = TG_HB_HDRLEN + nsect * ENTRY;
	for (i = 0; i < nsect; i++) {
		uint64_t e = TG_HB_HDRLEN + i * ENTRY;
		uint32_t id = get32(b + e), fl = get32(b + e + 4);
		uint64_t off = get64(b + e + 8), len = get64(b + e + 16);
		if (off % 8 || off < prev_end || off > size || len > size - off) {
			fail(err, errlen, "at offset %llu: section %u lies outside the file or "
			     "overlaps another", (unsigned long long)(e + 8), id);
			return -1;
		}
		prev_end = off + len;
		if (id == 0 || id > NSECT) {
			if (fl & REQUIRED) {
				fail(err, errlen, "at offset %llu: unknown required section %u",
				     (unsigned long long)e, id);
				return -1;
			}
			continue;
		}
		if (f[id].present) {
			fail(err, errlen, "at offset %llu: section %u appears twice",
			     (unsigned long long)e, id);
			return -1;
		}
		f[id] = (struct found){ e, off, len, 1 };
	}
	if (need_len(&f[TG_HBS_RANKS], ((uint64_t)p + 1) * 8, "RANKS", err, errlen) ||
	    need_len(&f[TG_HBS_NODESEQ], g->nnodes * 8, "NODESEQ", err, errlen) ||
	    need_len(&f[TG_HBS_NODEINFO], g->nnodes * 8, "NODEINFO", err, errlen) ||
	    need_len(&f[TG_HBS_EDGEINDEX], (g->nnodes + g->nextra + 1) * 8, "EDGEINDEX",
		     err, errlen) ||
	    need_len(&f[TG_HBS_EDGETARGET], g->nedges * 4, "EDGETARGET", err, errlen) ||
	    need_len(&f[TG_HBS_EDGEKIND], g->nedges, "EDGEKIND", err, errlen) ||
	    need_len(&f[TG_HBS_CLOCKNODE], g->nnodes * 4, "CLOCKNODE", err, errlen) ||
	    need_len(&f[TG_HBS_CLOCKVEC], g->nvec * TG_HB_NARROW(p), "CLOCKVEC", err, errlen) ||
	    need_len(&f[TG_HBS_CLOCKWIDE], g->nwide * p * 4, "CLOCKWIDE", err, errlen))
		return -1;
	if (f[TG_HBS_RANKINFO].present &&
	    need_len(&f[TG_HBS_RANKINFO], (uint64_t)p * 24, "RANKINFO", err, errlen))
		return -1;
	if (f[TG_HBS_EXTRA].present &&
	    need_len(&f[TG_HBS_EXTRA], g->nextra * 4, "EXTRA", err, errlen))
		return -1;
	g->rankfirst = (const uint64_t *)(b + f[TG_HBS_RANKS].off);
	g->seq = (const uint64_t *)(b + f[TG_HBS_NODESEQ].off);
	h->nodeinfo = b + f[TG_HBS_NODEINFO].off;
	g->eindex = (const uint64_t *)(b + f[TG_HBS_EDGEINDEX].off);
	g->etarget = (const uint32_t *)(b + f[TG_HBS_EDGETARGET].off);
	g->ekind = b + f[TG_HBS_EDGEKIND].off;
	g->clock = (const uint32_t *)(b + f[TG_HBS_CLOCKNODE].off);
	g->vecn = b + f[TG_HBS_CLOCKVEC].off;
	g->vecw = (const int32_t *)(b + f[TG_HBS_CLOCKWIDE].off);

	return 0;
}

/* The arrays: ranks, seqs, clocks and edges in order and in range. */
static int check_arrays(struct tg_hb *h, const struct found *f, char *err, size_t errlen)
{
	struct tg_hbgraph *g = &h->g;
	uint64_t tot, r, n;
	uint32_t p = g->nranks;

	/* ranks: from 0, never decreasing, ending at the node count */
	for (r = 0; r <= p; r++) {
		uint64_t v = g->rankfirst[r];
		if ((r == 0 && v != 0) || (r > 0 && v < g->rankfirst[r - 1]) ||
		    (r == p && v != g->nnodes)) {
			fail(err, errlen, "at offset %llu: bad first node %llu of rank %llu",
			     (unsigned long long)(f[TG_HBS_RANKS].off + r * 8),
			     (unsigned long long)v, (unsigned long long)r);
			return -1;
		}
	}
	for (r = 0; r < p; r++)
		for (n = g->rankfirst[r] + 1; n < g->rankfirst[r + 1]; n++)
			if (g->seq[n] <= g->seq[n - 1] &&
			    /* a threaded rank's nodes are in time order */
			    !(f[TG_HBS_RANKINFO].present &&
			      get32(h->base + f[TG_HBS_RANKINFO].off + r * 24 + 16) &
				      TG_HBR_THREADS)) {
				fail(err, errlen, "at offset %llu: the seqs of rank %llu do not "
				     "increase", (unsigned long long)(f[TG_HBS_NODESEQ].off + n * 8),
				     (unsigned long long)r);
				return -1;
			}
	for (n = 0; n < g->nnodes; n++) {
		uint32_t v = g->clock[n];
		if (v != TG_HB_NOVEC && (v & TG_HB_WIDE ? (v & ~TG_HB_WIDE) >= g->nwide :
					 v >= g->nvec)) {
			fail(err, errlen, "at offset %llu: vector %u of node %llu out of range",
			     (unsigned long long)(f[TG_HBS_CLOCKNODE].off + n * 4),
			     v, (unsigned long long)n);
			return -1;
		}
	}
	tot = g->nnodes + g->nextra;
	for (n = 0; n <= tot; n++) {
		uint64_t v = g->eindex[n];
		if ((n == 0 && v != 0) || (n > 0 && v < g->eindex[n - 1]) ||
		    (n == tot && v != g->nedges)) {
			fail(err, errlen, "at offset %llu: bad edge index %llu of node %llu",
			     (unsigned long long)(f[TG_HBS_EDGEINDEX].off + n * 8),
			     (unsigned long long)v, (unsigned long long)n);
			return -1;
		}
	}
	for (n = 0; n < g->nedges; n++)
		if (g->etarget[n] >= tot) {
			fail(err, errlen, "at offset %llu: edge target %u out of range",
			     (unsigned long long)(f[TG_HBS_EDGETARGET].off + n * 4),
			     g->etarget[n]);
			return -1;
		}
	return 0;
}

/* The small sections, copied out of their interleaved form. */
static int copy_small(struct tg_hb *h, const struct found *f, char *err, size_t errlen)
{
	const unsigned char *b = h->base;
	struct tg_hbgraph *g = &h->g;
	uint64_t i, r, n;
	uint32_t p = g->nranks;

	h->rankinfo = calloc(p ? p : 1, sizeof(*h->rankinfo));
	h->xfunc = calloc(g->nextra ? g->nextra : 1, sizeof(uint16_t));
	h->xkind = calloc(g->nextra ? g->nextra : 1, sizeof(uint16_t));
	if (!h->rankinfo || !h->xfunc || !h->xkind) {
		fail(err, errlen, "out of memory");
		return -1;
	}
	h->lastknown = f[TG_HBS_RANKINFO].present;
	for (r = 0; r < p; r++) {
		if (f[TG_HBS_RANKINFO].present) {
			const unsigned char *e = b + f[TG_HBS_RANKINFO].off + r * 24;
			h->rankinfo[r].records = get64(e);
			h->rankinfo[r].lastseq = get64(e + 8);
			h->rankinfo[r].flags = get32(e + 16);
		} else {
			h->rankinfo[r].lastseq = TG_HB_NOSEQ;
		}
	}
	for (n = 0; n < g->nextra && f[TG_HBS_EXTRA].present; n++) {
		h->xfunc[n] = get16(b + f[TG_HBS_EXTRA].off + n * 4);
		h->xkind[n] = get16(b + f[TG_HBS_EXTRA].off + n * 4 + 2);
	}
	if (f[TG_HBS_STATS].present) {
		uint64_t len = f[TG_HBS_STATS].len, cnt;
		const unsigned char *s = b + f[TG_HBS_STATS].off;
		if (len < 8 || (cnt = get64(s)) > (len - 8) / 8 || len != 8 + cnt * 8) {
			fail(err, errlen, "at offset %llu: bad STATS section",
			     (unsigned long long)f[TG_HBS_STATS].off);
			return -1;
		}
		for (i = 0; i < cnt && i < TG_HBST_COUNT; i++)
			h->stats[i] = get64(s + 8 + i * 8);
	}
	h->rpoff = calloc((size_t)p + 1, sizeof(uint64_t));
	if (!h->rpoff) {
		fail(err, errlen, "out of memory");
		return -1;
	}
	if (f[TG_HBS_RECPOS].present) {
		uint64_t len = f[TG_HBS_RECPOS].len, cnt = len / 24;
		const unsigned char *s = b + f[TG_HBS_RECPOS].off;
		h->recpos = calloc(cnt ? cnt : 1, sizeof(*h->recpos));
		if (!h->recpos) {
			fail(err, errlen, "out of memory");
			return -1;
		}
		if (len % 24) {
			fail(err, errlen, "at offset %llu: bad RECPOS section",
			     (unsigned long long)f[TG_HBS_RECPOS].off);
			return -1;
		}
		for (i = 0; i < cnt; i++) {
			const unsigned char *e = s + i * 24;
			struct tg_hbrecpos *x = &h->recpos[i];
			uint64_t nr;
			*x = (struct tg_hbrecpos){ get64(e), get32(e + 8), get32(e + 12),
						   get32(e + 16) };
			nr = x->rank < p ? g->rankfirst[x->rank + 1] - g->rankfirst[x->rank] : 0;
			if (x->rank >= p || !(h->rankinfo[x->rank].flags & TG_HBR_THREADS) ||
			    (x->after != TG_HB_NONODE && x->after >= nr) ||
			    (x->before != TG_HB_NONODE && x->before >= nr) ||
			    (i && (x->rank < x[-1].rank ||
				   (x->rank == x[-1].rank && x->seq <= x[-1].seq)))) {
				fail(err, errlen, "at offset %llu: bad record position",
				     (unsigned long long)(f[TG_HBS_RECPOS].off + i * 24));
				return -1;
			}
			h->rpoff[x->rank + 1] = i + 1;
		}
		g->recpos = h->recpos;
		g->nrecpos = cnt;
	}
	for (r = 1; r <= p; r++)	/* each rank's entries end where the last began */
		if (h->rpoff[r] < h->rpoff[r - 1])
			h->rpoff[r] = h->rpoff[r - 1];
	if (f[TG_HBS_PROBLEMS].present) {
		uint64_t len = f[TG_HBS_PROBLEMS].len, cnt;
		const unsigned char *s = b + f[TG_HBS_PROBLEMS].off;
		if (len < 8 || (cnt = get64(s)) > (len - 8) / 24 || len != 8 + cnt * 24) {
			fail(err, errlen, "at offset %llu: bad PROBLEMS section",
			     (unsigned long long)f[TG_HBS_PROBLEMS].off);
			return -1;
		}
		h->problems = calloc(cnt ? cnt : 1, sizeof(*h->problems));
		if (!h->problems) {
			fail(err, errlen, "out of memory");
			return -1;
		}
		for (i = 0; i < cnt; i++) {
			const unsigned char *e = s + 8 + i * 24;
			h->problems[i] = (struct tg_hbproblem){ get16(e), get16(e + 2),
				get32(e + 4), get64(e + 8), get64(e + 16) };
		}
		g->nproblems = cnt;
	}
	return 0;
}

/* Version 2 on: the CRC section ends the file and holds the CRC-32 of
 * every byte before it, so that a flipped bit is an error, never a
 * different answer.  Version 1 files have none and are read unchecked. */
static int check_crc(const struct tg_hb *h, const struct found *f, char *err,
		     size_t errlen)
{
	uint32_t crc = (uint32_t)crc32(0L, Z_NULL, 0);
	uint64_t at;

	if (get16(h->base + 8) < 2)
		return 0;
	if (need_len(f, 4, "crc", err, errlen) < 0)
		return -1;
	if (f->off + 4 != h->size) {
		fail(err, errlen, "at offset %llu: the crc section does not end the file",
		     (unsigned long long)(f->entry + 8));
		return -1;
	}
	for (at = 0; at < f->off; at += 1u << 30)
		crc = (uint32_t)crc32(crc, h->base + at,
				      (uInt)(f->off - at < (1u << 30) ? f->off - at : 1u << 30));
	if (crc != get32(h->base + f->off)) {
		fail(err, errlen, "at offset %llu: checksum mismatch (the file is damaged)",
		     (unsigned long long)f->off);
		return -1;
	}
	return 0;
}

static int check(struct tg_hb *h, char *err, size_t errlen)
{
	struct found f[NSECT + 1];
	struct tg_hbgraph *g = &h->g;
	uint64_t nsect;

	memset(f, 0, sizeof(f));
	if (check_header(h, &nsect, err, errlen) < 0 ||
	    check_sections(h, f, nsect, err, errlen) < 0 ||
	    check_crc(h, &f[TG_HBS_CRC], err, errlen) < 0 ||
	    check_arrays(h, f, err, errlen) < 0 || copy_small(h, f, err, errlen) < 0)
		return -1;
	g->rankinfo = h->rankinfo;
	g->xfunc = h->xfunc;
	g->xkind = h->xkind;
	g->stats = h->stats;
	g->problems = h->problems;
	g->run = f[TG_HBS_RUN].present && f[TG_HBS_RUN].len >= 8 ?
		get64(h->base + f[TG_HBS_RUN].off) : 0;
	return 0;
}

static int make_buckets(struct tg_hb *h, char *err, size_t errlen)
{
	const struct tg_hbgraph *g = &h->g;
	uint64_t tot = 0, r;

	h->boff = calloc((size_t)g->nranks + 1, sizeof(uint64_t));
	h->shift = calloc(g->nranks ? g->nranks : 1, 1);
	h->spans = calloc(g->nranks ? g->nranks : 1, 1);
	if (!h->boff || !h->shift || !h->spans) {
		fail(err, errlen, "out of memory");
		return -1;
	}
	for (r = 0; r < g->nranks; r++) {
		uint64_t n = g->rankfirst[r + 1] - g->rankfirst[r], max;
		unsigned sh = 0;
		h->boff[r] = tot;
		if (n == 0)
			continue;
		max = g->seq[g->rankfirst[r + 1] - 1];
		/* up to four buckets a node; a bucket a seq when the seqs are
		 * dense enough, and then no seq needs to be looked at */
		while ((max >> sh) >= 4 * n)
			sh++;
		h->shift[r] = (uint8_t)sh;
		tot += (max >> sh) + 2;
	}
	h->boff[g->nranks] = tot;
	h->bucket = malloc(tot ? tot * sizeof(uint32_t) : 1);
	if (!h->bucket) {
		fail(err, errlen, "out of memory");
		return -1;
	}
	for (r = 0; r < g->nranks; r++) {
		const uint64_t *seq = g->seq + g->rankfirst[r];
		uint64_t n = g->rankfirst[r + 1] - g->rankfirst[r], k, i = 0;
		uint32_t *bk = h->bucket + h->boff[r];
		for (k = 0; k < n; k++)
			if (tg_hb_span(h, g->rankfirst[r] + k))
				h->spans[r] = 1;
		for (k = 0; k < h->boff[r + 1] - h->boff[r]; k++) {
			while (i < n && (seq[i] >> h->shift[r]) < k)
				i++;
			bk[k] = (uint32_t)i;
		}
	}
	return 0;
}

struct tg_hb *tg_hb_open(const char *path, char *err, size_t errlen)
{
	struct tg_hb *h = calloc(1, sizeof(*h));

	if (!h) {
		fail(err, errlen, "out of memory");
		return NULL;
	}
	if (load(h, path, err, errlen) < 0 || check(h, err, errlen) < 0 ||
	    make_buckets(h, err, errlen) < 0) {
		tg_hb_close(h);
		return NULL;
	}
	return h;
}

struct tg_hb *tg_hb_open_buf(void *buf, size_t len, char *err, size_t errlen)
{
	struct tg_hb *h = calloc(1, sizeof(*h));

	if (!h) {
		free(buf);
		fail(err, errlen, "out of memory");
		return NULL;
	}
	h->base = buf;
	h->size = len;
	if (check(h, err, errlen) < 0 || make_buckets(h, err, errlen) < 0) {
		tg_hb_close(h);
		return NULL;
	}
	return h;
}

void tg_hb_close(struct tg_hb *h)
{
	if (!h)
		return;
	if (h->mapped)
		munmap(h->base, h->size);
	else
		free(h->base);
	free(h->rankinfo);
	free(h->xfunc);
	free(h->xkind);
	free(h->problems);
	free(h->bucket);
	free(h->boff);
	free(h->shift);
	free(h->spans);
	free(h->recpos);
	free(h->rpoff);
	free(h);
}

const struct tg_hbgraph *tg_hb_graph(const struct tg_hb *h)
{
	return &h->g;
}

uint32_t tg_hb_span(const struct tg_hb *h, uint64_t n)
{
	return get32(h->nodeinfo + n * 8);
}

uint16_t tg_hb_func(const struct tg_hb *h, uint64_t n)
{
	return get16(h->nodeinfo + n * 8 + 4);
}

uint32_t tg_hb_node_rank(const struct tg_hb *h, uint64_t n)
{
	uint32_t lo = 0, hi = h->g.nranks;

	/* the last rank whose first node is at most n */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (h->g.rankfirst[mid] <= n)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Queries.  One question costs a few cache misses (a bucket, a clock, a
 * vector); answered in groups, each step of a group's questions first
 * asks for the memory the next step needs, so that the misses overlap.
 */
#define GROUP 16

/* The bucket of @seq among rank @r's nodes, or NULL when @seq is past the
 * last one (all nodes are below it). */
static const uint32_t *bucket(const struct tg_hb *h, uint32_t r, uint64_t seq)
{
	uint64_t k = seq >> h->shift[r], nb = h->boff[r + 1] - h->boff[r];

	return nb && k < nb - 1 ? h->bucket + h->boff[r] + k : NULL;
}

/* Number of nodes of rank @r whose seq is below @seq, from its bucket. */
static uint64_t below(const struct tg_hb *h, uint32_t r, uint64_t seq, const uint32_t *bk)
{
	const uint64_t *s = h->g.seq + h->g.rankfirst[r];
	uint64_t lo, n;

	if (!bk)
		return h->g.rankfirst[r + 1] - h->g.rankfirst[r];
	lo = bk[0];
	n = bk[1] - lo;
	if (h->shift[r] == 0)
		return lo;	/* a bucket a seq: none of its nodes is below */
	while (n > 0) {
		uint64_t half = n / 2;
		if (s[lo + half] < seq) {
			lo += half + 1;
			n -= half + 1;
		} else {
			n = half;
		}
	}
	return lo;
}

/* The place of record @seq of threaded rank @r (the entry of the greatest
 * seq not above it: an event overlap-find puts past the last record is
 * after all), or NULL. */
static const struct tg_hbrecpos *recpos(const struct tg_hb *h, uint32_t r, uint64_t seq)
{
	uint64_t lo = h->rpoff[r], hi = h->rpoff[r + 1];

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (h->recpos[mid].seq <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > h->rpoff[r] ? &h->recpos[lo - 1] : NULL;
}

/* A graph without RANKINFO does not say where a rank's records end, so
 * every seq passes. */
int tg_hb_has_record(const struct tg_hb *h, uint32_t r, uint64_t seq)
{
	uint64_t last;

	if (r >= h->g.nranks)
		return 0;
	if (!h->lastknown)
		return 1;
	last = h->rankinfo[r].lastseq;
	return last == TG_HB_NOSEQ ? seq == 0 : seq <= last || seq - 1 == last;
}

void tg_hb_query_many(const struct tg_hb *h, size_t n, const struct tg_hbq *q,
		      unsigned char *ans)
{
	const struct tg_hbgraph *g = &h->g;
	const uint32_t *ba[GROUP], *bb[GROUP];
	uint64_t src[GROUP], t[GROUP], R = TG_HB_NARROW(g->nranks);
	const void *at[GROUP];
	unsigned char live[GROUP];
	size_t base, k, m;

	for (base = 0; base < n; base += m) {
		m = n - base < GROUP ? n - base : GROUP;
		/* the buckets of both records */
		for (k = 0; k < m; k++) {
			const struct tg_hbq *x = &q[base + k];
			live[k] = 0;
			ans[base + k] = 0;
			if (!tg_hb_has_record(h, x->a, x->i) || !tg_hb_has_record(h, x->b, x->j)) {
				ans[base + k] = TG_HB_NOREC;
				continue;
			}
			if (x->a == x->b) {
				ans[base + k] = x->i < x->j;
				continue;
			}
			live[k] = x->i != UINT64_MAX;
			ba[k] = bucket(h, x->a, x->i + 1);
			bb[k] = bucket(h, x->b, x->j);
			__builtin_prefetch(ba[k]);
			__builtin_prefetch(bb[k]);
		}
		/* the first node of a after record i; the last node of b before
		 * record j, and its clock */
		for (k = 0; k < m; k++) {
			const struct tg_hbq *x = &q[base + k];
			uint64_t b0 = g->rankfirst[x->b];
			int ta = (g->rankinfo[x->a].flags & TG_HBR_THREADS) != 0;
			int tb = (g->rankinfo[x->b].flags & TG_HBR_THREADS) != 0;
			if (!live[k])
				continue;
			if (ta || tb) {
				/* a threaded rank: the nodes after record i ended,
				 * before record j started, by the times */
				const struct tg_hbrecpos *pa = ta ? recpos(h, x->a, x->i) : NULL;
				const struct tg_hbrecpos *pb = tb ? recpos(h, x->b, x->j) : NULL;
				uint64_t na = g->rankfirst[x->a + 1] - g->rankfirst[x->a];
				if (ta)
					src[k] = pa && pa->after != TG_HB_NONODE ? pa->after : na;
				if (tb && (!pb || pb->before == TG_HB_NONODE)) {
					live[k] = 0;
					continue;
				}
				if (tb)
					t[k] = pb->before + 1;
			}
			if (!ta)
				src[k] = below(h, x->a, x->i + 1, ba[k]);
			if (!ta && h->spans[x->a] && src[k] > 0) {
				/* record i a node with calls nested in it (an MPI-IO
				 * call and ROMIO's communication inside): the first
				 * node after them all */
				uint64_t n = g->rankfirst[x->a] + src[k] - 1;
				uint32_t sp = tg_hb_span(h, n);
				if (sp && g->seq[n] == x->i)
					src[k] = below(h, x->a, x->i + sp + 1,
						       bucket(h, x->a, x->i + sp + 1));
			}
			if (!tb)
				t[k] = below(h, x->b, x->j, bb[k]);
			if (src[k] >= g->rankfirst[x->a + 1] - g->rankfirst[x->a] || t[k] == 0) {
				live[k] = 0;
				continue;
			}
			t[k]--;
			__builtin_prefetch(&g->clock[b0 + t[k]]);
			if (h->spans[x->b] && !tb) {
				__builtin_prefetch(&g->seq[b0 + t[k]]);
				__builtin_prefetch(h->nodeinfo + (b0 + t[k]) * 8);
			}
		}
		/* a record nested in that node is not after it: the one before;
		 * then where the entry of rank a is in its vector */
		for (k = 0; k < m; k++) {
			const struct tg_hbq *x = &q[base + k];
			uint64_t b0 = g->rankfirst[x->b];
			uint32_t v;
			if (!live[k])
				continue;
			if (h->spans[x->b] && !(g->rankinfo[x->b].flags & TG_HBR_THREADS) &&
			    g->seq[b0 + t[k]] + tg_hb_span(h, b0 + t[k]) >= x->j) {
				if (t[k] == 0) {
					live[k] = 0;
					continue;
				}
				t[k]--;
			}
			v = g->clock[b0 + t[k]];
			if (v == TG_HB_NOVEC) {
				live[k] = 0;
				continue;
			}
			if (v & TG_HB_WIDE) {
				at[k] = &g->vecw[(uint64_t)(v & ~TG_HB_WIDE) * g->nranks + x->a];
				live[k] = 2;
			} else {
				at[k] = g->vecn + (uint64_t)v * R;
			}
			__builtin_prefetch(at[k]);
		}
		/* the answers */
		for (k = 0; k < m; k++) {
			const struct tg_hbq *x = &q[base + k];
			if (live[k] == 2) {
				ans[base + k] = *(const int32_t *)at[k] >= (int64_t)src[k];
			} else if (live[k]) {
				const unsigned char *y = at[k];
				uint32_t off = get16(y + 4 + 2 * (uint64_t)x->a);
				ans[base + k] = off != TG_HB_OFFNONE &&
						(uint64_t)get32(y) + off >= src[k];
			}
		}
	}
}

int tg_hb_query(const struct tg_hb *h, uint32_t a, uint64_t i, uint32_t b, uint64_t j)
{
	struct tg_hbq q = { a, b, i, j };
	unsigned char ans;

	tg_hb_query_many(h, 1, &q, &ans);
	return ans == TG_HB_NOREC ? -1 : ans;
}
