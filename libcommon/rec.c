/*
 * rec.c - reading and writing the raw record stream (tangram-rec(5)).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinds.h"
#include "stream.h"
#include "varint.h"
#include "banned.h"

struct tg_reader {
	struct tg_stream *s;
	struct tg_header h;
	uint64_t frame_off;	/* stream offset of the current frame */
	uint64_t win_end;	/* windowed: where the current window ends */
	char **strs;		/* string id -> string */
	size_t nstrs;
	struct tg_recbase *ts;
	size_t nts;
	int64_t *arrs;		/* backing store of array arguments */
	uint64_t skipped;	/* records of functions this reader does not know */
	size_t ndefs;		/* string definitions read */
	size_t arrcap;
	const char **kv;	/* INFO pairs */
	size_t kvcap;
	/* version 2: the frames of the chunk being handed out, read whole and
	 * checked before the first of them is decoded */
	unsigned char *chunk;
	size_t chunklen, chunkcap, chunkpos;
	uint64_t chunk_off;	/* stream offset of chunk[0] */
	uint64_t torn_off;	/* first frames no CHECK sealed, or 0 */
	uint64_t torn_n;	/* calls in frames no CHECK sealed */
	int stop;		/* 1: the stream ended, 2: it ended with r->err */
	int ended;		/* the last frame but CHECKs was an END */
	int incomplete;		/* it ended sound, its process's last calls
				 * missing (tg_reader_incomplete) */
	char err[256];
};

/* Most bytes of frames a chunk may hold before its CHECK frame. */
#define TG_CHUNK_MAX (256u << 20)

int tg_rec_is_magic(const void *buf, size_t len)
{
	return len >= TG_REC_MAGIC_LEN &&
	       memcmp(buf, TG_REC_MAGIC, TG_REC_MAGIC_LEN) == 0;
}

static char *get_str(const unsigned char **pp, const unsigned char *end)
{
	uint64_t n;
	char *s;

	if (tg_get_uvar(pp, end, &n) < 0 || n > (uint64_t)(end - *pp))
		return NULL;
	s = malloc(n + 1);
	if (!s)
		return NULL;
	memcpy(s, *pp, n);
	s[n] = 0;
	*pp += n;
	return s;
}

static int header_decode(struct tg_header *h, const unsigned char *p,
			 const unsigned char *end, int version)
{
	uint64_t argc;
	int64_t rank;
	int i;

	if (end - p < (version >= 2 ? 12 : 8))
		return -1;
	rank = (int32_t)tg_get_le32(p);
	h->world = tg_get_le32(p + 4);
	p += version >= 2 ? 12 : 8;
	if (tg_get_uvar(&p, end, &h->pid) < 0 ||
	    tg_get_uvar(&p, end, &h->ppid) < 0 ||
	    tg_get_uvar(&p, end, &h->clock_base) < 0)
		return -1;
	h->rank = rank;
	if (!(h->host = get_str(&p, end)) || !(h->cwd = get_str(&p, end)))
		return -1;
	if (tg_get_uvar(&p, end, &argc) < 0 || argc > (uint64_t)(end - p))
		return -1;
	h->argv = calloc(argc + 1, sizeof(char *));
	if (!h->argv)
		return -1;
	for (i = 0; i < (int)argc; i++) {
		if (!(h->argv[i] = get_str(&p, end)))
			return -1;
		h->argc = i + 1;
	}
	h->run = 1;
	if (p < end && (tg_get_uvar(&p, end, &h->run) < 0 || h->run == 0))
		return -1;
	return 0;
}

struct tg_reader *tg_reader_open(struct tg_stream *s, char *err, size_t errlen)
{
	unsigned char fixed[16];
	struct tg_reader *r;
	unsigned char *hdr = NULL;
	uint32_t len;
	int version;
	long n;

	n = tg_stream_read(s, fixed, sizeof(fixed));
	if (n < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	if (!tg_rec_is_magic(fixed, (size_t)n)) {
		snprintf(err, errlen, "not a Tangram record stream (bad magic)");
		return NULL;
	}
	if (n < 16) {
		snprintf(err, errlen, "truncated header at byte %ld", n);
		return NULL;
	}
	version = fixed[8] | fixed[9] << 8;
	if (version < 1 || version > TG_REC_VERSION) {
		snprintf(err, errlen, "unsupported record stream version %d", version);
		return NULL;
	}
	len = tg_get_le32(fixed + 12);
	if (len > TG_FRAME_MAX) {
		snprintf(err, errlen, "corrupt header length %u at byte 12", len);
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	hdr = malloc(16 + (size_t)len);
	if (!r || !hdr) {
		free(r);
		free(hdr);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->s = s;
	memcpy(hdr, fixed, 16);
	n = tg_stream_read(s, hdr + 16, len);
	if (n != (long)len || header_decode(&r->h, hdr + 16, hdr + 16 + len, version) < 0) {
		snprintf(err, errlen, n != (long)len ? "truncated header at byte %ld"
						   : "corrupt header at byte %ld",
			 n < 0 ? 16L : 16L + n);
		free(hdr);
		tg_reader_free(r);
		return NULL;
	}
	if (version >= 2 && tg_get_le32(hdr + TG_REC_HCRC_OFFSET) !=
			    tg_header_crc(hdr, 16 + (size_t)len)) {
		snprintf(err, errlen, "header checksum mismatch at byte %d",
			 TG_REC_HCRC_OFFSET);
		free(hdr);
		tg_reader_free(r);
		return NULL;
	}
	r->h.version = version;
	r->h.flags = (unsigned)fixed[10] | (unsigned)fixed[11] << 8;
	free(hdr);
	return r;
}

const struct tg_header *tg_reader_header(const struct tg_reader *r)
{
	return &r->h;
}

uint64_t tg_reader_skipped(const struct tg_reader *r)
{
	return r->skipped;
}

const char *tg_reader_error(const struct tg_reader *r)
{
	return r->err;
}

int tg_reader_incomplete(const struct tg_reader *r)
{
	return r->incomplete;
}

void tg_reader_free(struct tg_reader *r)
{
	size_t i;

	if (!r)
		return;
	tg_header_release(&r->h);
	for (i = 0; i < r->nstrs; i++)
		free(r->strs[i]);
	free(r->strs);
	free(r->ts);
	free(r->arrs);
	free(r->kv);
	free(r->chunk);
	free(r);
}

static int fail(struct tg_reader *r, const char *what)
{
	snprintf(r->err, sizeof(r->err), "%s at byte %llu", what,
		 (unsigned long long)r->frame_off);
	return -1;
}

static int define_str(struct tg_reader *r, const unsigned char *p,
		      const unsigned char *end)
{
	uint64_t id, n;
	char *s;

	/* ids are handed out densely by the tracer; a far larger one is damage
	 * (and must not make the table huge) */
	if (tg_get_uvar(&p, end, &id) < 0 || id == 0 || id > 2 * r->ndefs + 65536 ||
	    tg_get_uvar(&p, end, &n) < 0 || n != (uint64_t)(end - p))
		return fail(r, "corrupt string definition");
	if (id >= r->nstrs) {
		size_t nn = r->nstrs ? r->nstrs : 64;
		char **ns;
		while (nn <= id)
			nn *= 2;
		ns = realloc(r->strs, nn * sizeof(char *));
		if (!ns)
			return fail(r, "out of memory");
		memset(ns + r->nstrs, 0, (nn - r->nstrs) * sizeof(char *));
		r->strs = ns;
		r->nstrs = nn;
	}
	s = malloc(n + 1);
	if (!s)
		return fail(r, "out of memory");
	memcpy(s, p, n);
	s[n] = 0;
	free(r->strs[id]);
	r->strs[id] = s;
	r->ndefs++;
	return 0;
}

static struct tg_recbase *thread_state(struct tg_reader *r, uint64_t tid)
{
	if (tid > 1u << 20)
		return NULL;
	if (tid >= r->nts) {
		size_t nn = r->nts ? r->nts : 8, i;
		struct tg_recbase *nt;
		while (nn <= tid)
			nn *= 2;
		nt = realloc(r->ts, nn * sizeof(*nt));
		if (!nt)
			return NULL;
		for (i = r->nts; i < nn; i++) {
			nt[i].seq = -1;
			nt[i].t = 0;
		}
		r->ts = nt;
		r->nts = nn;
	}
	return &r->ts[tid];
}

/* Ensure room for @n more array elements at r->arrs[*used]. */
static int64_t *arr_room(struct tg_reader *r, size_t used, uint64_t n)
{
	if (n > TG_FRAME_MAX)
		return NULL;
	/* even an empty array needs a store to point into */
	if (!r->arrs || used + n > r->arrcap) {
		size_t nc = r->arrcap ? r->arrcap : 64;
		int64_t *na;
		while (nc < used + n)
			nc *= 2;
		na = realloc(r->arrs, nc * sizeof(int64_t));
		if (!na)
			return NULL;
		r->arrs = na;
		r->arrcap = nc;
	}
	return r->arrs + used;
}

/* A call payload being decoded: the rest of it, and where its array
 * arguments go in the reader's store. */
struct tg_recin {
	const unsigned char *p, *end;
	struct tg_reader *r;
	size_t used;
};

int tg_rk_get_s(struct tg_recin *in, struct tg_val *v)
{
	return tg_get_svar(&in->p, in->end, &v->i);
}

int tg_rk_get_u(struct tg_recin *in, struct tg_val *v)
{
	uint64_t u;

	if (tg_get_uvar(&in->p, in->end, &u) < 0)
		return -1;
	v->i = (int64_t)u;
	return 0;
}

int tg_rk_get_iostatus(struct tg_recin *in, struct tg_val *v)
{
	uint64_t u;

	if (tg_get_uvar(&in->p, in->end, &u) < 0)
		return -1;
	v->present = u != 0;
	v->i = u ? (int64_t)(u - 1) : 0;
	return 0;
}

int tg_rk_get_status(struct tg_recin *in, struct tg_val *v)
{
	uint64_t u;
	int64_t tag;

	if (tg_get_uvar(&in->p, in->end, &u) < 0 || u > 1)
		return -1;
	v->present = (int)u;
	if (!u)
		return 0;
	if (tg_get_svar(&in->p, in->end, &v->i) < 0 || tg_get_svar(&in->p, in->end, &tag) < 0)
		return -1;
	v->u = (uint64_t)tag;
	return 0;
}

/* Returns -2 for a string not defined yet. */
int tg_rk_get_str(struct tg_recin *in, struct tg_val *v)
{
	struct tg_reader *r = in->r;
	uint64_t u;

	if (tg_get_uvar(&in->p, in->end, &u) < 0)
		return -1;
	v->i = (int64_t)u;
	if (u == 0)
		return 0;
	if (u >= r->nstrs || !r->strs[u])
		return -2;
	v->s = r->strs[u];
	return 0;
}

int tg_rk_get_stat(struct tg_recin *in, struct tg_val *v)
{
	uint64_t u;

	if (tg_get_uvar(&in->p, in->end, &u) < 0 || u > 1)
		return -1;
	v->present = (int)u;
	if (!u)
		return 0;
	if (tg_get_svar(&in->p, in->end, &v->i) < 0)
		return -1;
	return tg_get_uvar(&in->p, in->end, &v->u);
}

/* @n elements (signed if @sign) into the store: v->u is where they start;
 * arr is set once all arguments are in (the store may move). */
static int get_elems(struct tg_recin *in, struct tg_val *v, uint64_t n, int sign)
{
	uint64_t k, x;
	int64_t *a;

	if (!(a = arr_room(in->r, in->used, n)))
		return -1;
	for (k = 0; k < n; k++) {
		if (sign ? tg_get_svar(&in->p, in->end, &a[k]) < 0
			 : tg_get_uvar(&in->p, in->end, &x) < 0)
			return -1;
		if (!sign)
			a[k] = (int64_t)x;
	}
	v->u = in->used;
	in->used += n;
	return 0;
}

/* A count, then that many elements of @per varints each. */
static int get_arr(struct tg_recin *in, struct tg_val *v, int sign, unsigned per)
{
	uint64_t n;

	if (tg_get_uvar(&in->p, in->end, &n) < 0 || n > (uint64_t)(in->end - in->p))
		return -1;
	v->i = (int64_t)n;
	return get_elems(in, v, n * per, sign);
}

int tg_rk_get_uarr(struct tg_recin *in, struct tg_val *v)
{
	return get_arr(in, v, 0, 1);
}

int tg_rk_get_sarr(struct tg_recin *in, struct tg_val *v)
{
	return get_arr(in, v, 1, 1);
}

/* A struct flock: none (0) or its five fields.  A record that ends
 * before it was written by a tracer that did not record it: none. */
int tg_rk_get_flock(struct tg_recin *in, struct tg_val *v)
{
	if (in->p == in->end) {
		v->i = 0;
		return 0;
	}
	if (get_arr(in, v, 1, 1) < 0 || (v->i != 0 && v->i != 5))
		return -1;
	return 0;
}

int tg_rk_get_statuses(struct tg_recin *in, struct tg_val *v)
{
	return get_arr(in, v, 1, 2);
}

int tg_rk_get_hsizes(struct tg_recin *in, struct tg_val *v)
{
	uint64_t u;

	/* 0 for NULL, else the count + 1 */
	if (tg_get_uvar(&in->p, in->end, &u) < 0 || u > (uint64_t)(in->end - in->p) + 1)
		return -1;
	v->present = u != 0;
	u = u ? u - 1 : 0;
	v->i = (int64_t)u;
	return get_elems(in, v, u, 1);
}

static int decode_call(struct tg_reader *r, const unsigned char *p,
		       const unsigned char *end, struct tg_rec *out)
{
	uint64_t func, tid, depth, parent, dur, err, seq, tstart;
	int64_t dseq, dt, ret;
	const struct tg_calldesc *d;
	struct tg_recbase *ts;
	struct tg_recin in;
	int i;

	if (tg_get_uvar(&p, end, &func) < 0 || tg_get_uvar(&p, end, &tid) < 0 ||
	    tg_get_svar(&p, end, &dseq) < 0 || tg_get_uvar(&p, end, &depth) < 0 ||
	    tg_get_uvar(&p, end, &parent) < 0 || tg_get_svar(&p, end, &dt) < 0 ||
	    tg_get_uvar(&p, end, &dur) < 0 || tg_get_svar(&p, end, &ret) < 0 ||
	    tg_get_uvar(&p, end, &err) < 0)
		return fail(r, "corrupt call record");
	if (!(ts = thread_state(r, tid)))
		return fail(r, "corrupt thread index");
	if (depth > 1024 || err > 4095)
		return fail(r, "corrupt call record");
	/* The per-thread deltas advance even over a record that is skipped */
	seq = (uint64_t)ts->seq + (uint64_t)dseq;
	ts->seq = (int64_t)seq;
	tstart = ts->t + (uint64_t)dt;
	ts->t = tstart;
	if (func > 0xffff || !(d = tg_call_lookup((unsigned)func))) {
		/* a function a newer tracer knows: skip the record */
		r->skipped++;
		return 0;
	}
	out->type = TG_REC_CALL;
	out->call = d;
	out->func = (unsigned)func;
	out->tid = (unsigned)tid;
	out->seq = seq;	/* unsigned: wraps on bad input, never overflows */
	out->depth = (unsigned)depth;
	out->parent = (int64_t)parent - 1;
	out->tstart = tstart;
	out->dur = dur;
	out->ret = ret;
	out->err = (int)err;
	in.p = p;
	in.end = end;
	in.r = r;
	in.used = 0;
	for (i = 0; i < d->nargs && i < TG_MAX_ARGS; i++) {
		const struct tg_kindops *k = &tg_kinds[d->args[i].kind];
		int rc;
		memset(&out->args[i], 0, sizeof(out->args[i]));
		/* a record of an older tracer ends before the arguments
		 * appended to its schema since: they are absent, -1 */
		if (in.p == in.end && d->args[i].appended) {
			out->args[i].i = -1;
			continue;
		}
		rc = k->rec_get ? k->rec_get(&in, &out->args[i]) : -1;
		if (rc == -2)
			return fail(r, "string used before its definition");
		if (rc < 0)
			return fail(r, "corrupt call arguments");
	}
	for (i = 0; i < d->nargs && i < TG_MAX_ARGS; i++)
		if (tg_kinds[d->args[i].kind].arr)	/* no arrays yet: NULL + 0 is UB */
			out->args[i].arr = r->arrs ? r->arrs + out->args[i].u : NULL;
	/* bytes after the known arguments are arguments a newer schema
	 * appended: they are skipped */
	return 1;
}

/* Read a counted array of varints (signed if @sign) into args[@i]. */
static int def_array(struct tg_reader *r, const unsigned char **p,
		     const unsigned char *end, struct tg_rec *out, int i,
		     size_t *used, int sign)
{
	uint64_t n, k, x;
	int64_t *a;

	if (tg_get_uvar(p, end, &n) < 0 || n > (uint64_t)(end - *p) ||
	    !(a = arr_room(r, *used, n)))
		return -1;
	for (k = 0; k < n; k++) {
		if (sign ? tg_get_svar(p, end, &a[k]) < 0 : tg_get_uvar(p, end, &x) < 0)
			return -1;
		if (!sign)
			a[k] = (int64_t)x;
	}
	out->args[i].i = (int64_t)n;
	out->args[i].u = *used;
	*used += n;
	return 0;
}

/* A communicator (id, inter, members[, remote]) or datatype (id, combiner,
 * ints, aints, types) definition, into out->args. */
static int decode_def(struct tg_reader *r, int type, const unsigned char *p,
		      const unsigned char *end, struct tg_rec *out)
{
	size_t used = 0;
	uint64_t id, x;
	int i, n = 0;

	memset(out, 0, sizeof(*out));
	out->type = type;
	if (tg_get_uvar(&p, end, &id) < 0)
		return fail(r, "corrupt definition record");
	out->args[0].i = (int64_t)id;
	if (type == TG_REC_COMM) {
		if (tg_get_uvar(&p, end, &x) < 0 || x > 1 ||
		    def_array(r, &p, end, out, 1, &used, 0) < 0)
			return fail(r, "corrupt communicator definition");
		out->args[2].i = -1;
		if (x && def_array(r, &p, end, out, 2, &used, 0) < 0)
			return fail(r, "corrupt communicator definition");
		n = x ? 3 : 2;
	} else {
		if (tg_get_svar(&p, end, &out->args[1].i) < 0 ||
		    def_array(r, &p, end, out, 2, &used, 1) < 0 ||
		    def_array(r, &p, end, out, 3, &used, 1) < 0 ||
		    def_array(r, &p, end, out, 4, &used, 0) < 0)
			return fail(r, "corrupt datatype definition");
		n = 5;
	}
	if (p != end)
		return fail(r, "trailing bytes in definition record");
	for (i = 1; i < n; i++)
		if (i != 1 || type == TG_REC_COMM)
			out->args[i].arr = r->arrs + out->args[i].u;
	return 0;
}

/* An MPI_Info definition: id, n, n pairs of string ids. */
static int decode_info(struct tg_reader *r, const unsigned char *p,
		       const unsigned char *end, struct tg_rec *out)
{
	uint64_t id, n, i, sid;

	memset(out, 0, sizeof(*out));
	out->type = TG_REC_INFO;
	if (tg_get_uvar(&p, end, &id) < 0 || tg_get_uvar(&p, end, &n) < 0 ||
	    n > (uint64_t)(end - p) / 2)
		return fail(r, "corrupt info definition");
	if (2 * n > r->kvcap) {
		const char **nk = realloc(r->kv, (size_t)(2 * n) * sizeof(*nk));
		if (!nk)
			return fail(r, "out of memory");
		r->kv = nk;
		r->kvcap = (size_t)(2 * n);
	}
	for (i = 0; i < 2 * n; i++) {
		if (tg_get_uvar(&p, end, &sid) < 0)
			return fail(r, "corrupt info definition");
		if (sid == 0 || sid >= r->nstrs || !r->strs[sid])
			return fail(r, "string used before its definition");
		r->kv[i] = r->strs[sid];
	}
	if (p != end)
		return fail(r, "trailing bytes in definition record");
	out->args[0].i = (int64_t)id;
	out->args[1].i = (int64_t)n;
	out->kv = r->kv;
	return 0;
}

/* A REPEAT record: the thread's last call repeated count times, from
 * start (against the thread's time base, which stays) for span ns. */
static int decode_repeat(struct tg_reader *r, const unsigned char *p,
			 const unsigned char *end, struct tg_rec *out)
{
	uint64_t tid, span;
	int64_t dt;
	struct tg_recbase *ts;

	memset(out, 0, sizeof(*out));
	out->type = TG_REC_REPEAT;
	if (tg_get_uvar(&p, end, &tid) < 0 || tg_get_uvar(&p, end, &out->repeat) < 0 ||
	    tg_get_svar(&p, end, &dt) < 0 || tg_get_uvar(&p, end, &span) < 0 ||
	    out->repeat == 0)
		return fail(r, "corrupt repeat record");
	if (!(ts = thread_state(r, tid)))
		return fail(r, "corrupt thread index");
	if (ts->seq < 0)
		return fail(r, "repeat record before any call of its thread");
	out->tid = (unsigned)tid;
	out->seq = (uint64_t)ts->seq;
	out->tstart = ts->t + (uint64_t)dt;
	out->dur = span;
	return 1;
}

/* Read and drop @n bytes.  Returns 1, 0 if the stream ended first, -1. */
static int skip_bytes(struct tg_reader *r, uint64_t n)
{
	unsigned char junk[16384];

	while (n > 0) {
		size_t k = n < sizeof(junk) ? (size_t)n : sizeof(junk);
		long got = tg_stream_read(r->s, junk, k);
		if (got < 0)
			return fail(r, strerror(errno));
		if ((size_t)got < k)
			return 0;
		n -= k;
	}
	return 1;
}

/* A zero length word in a windowed stream at r->frame_off: the rest of the
 * window, or up to the next TG_REC_PAD boundary outside one, is padding. */
static int skip_padding(struct tg_reader *r)
{
	uint64_t at = r->frame_off, to;

	if (r->win_end > at)
		to = r->win_end;
	else
		to = (at / TG_REC_PAD + 1) * TG_REC_PAD;
	return skip_bytes(r, to - at - 4);
}

/* Decode the frame of @len payload bytes at @f (r->frame_off says where it
 * is).  Returns 1 with a record in *@out, 0 for a frame absorbed or
 * skipped, -1 on damage. */
static int decode_frame(struct tg_reader *r, const unsigned char *f, uint32_t len,
			struct tg_rec *out)
{
	const unsigned char *p = f + 1, *end = f + len;

	if (f[0] != TG_REC_CHECK)
		r->ended = f[0] == TG_REC_END;
	switch (f[0]) {
	case TG_REC_CALL:
		return decode_call(r, p, end, out);
	case TG_REC_STR:
		return define_str(r, p, end) < 0 ? -1 : 0;
	case TG_REC_RANK:
		memset(out, 0, sizeof(*out));
		out->type = TG_REC_RANK;
		if (tg_get_svar(&p, end, &out->rank) < 0 ||
		    tg_get_uvar(&p, end, &out->world) < 0)
			return fail(r, "corrupt rank record");
		r->h.rank = out->rank;
		r->h.world = out->world;
		return 1;
	case TG_REC_COMM:
	case TG_REC_TYPE:
		return decode_def(r, f[0], p, end, out) < 0 ? -1 : 1;
	case TG_REC_WINDOW: {
		uint64_t size;
		if (tg_get_uvar(&p, end, &size) < 0 || size < (uint64_t)len + 5)
			return fail(r, "corrupt window record");
		r->win_end = r->frame_off + size;
		return 0;
	}
	case TG_REC_INFO:
		return decode_info(r, p, end, out) < 0 ? -1 : 1;
	case TG_REC_CLOCK:
		memset(out, 0, sizeof(*out));
		out->type = TG_REC_CLOCK;
		if (tg_get_uvar(&p, end, &out->sync_t) < 0 ||
		    tg_get_uvar(&p, end, &out->sync_base) < 0)
			return fail(r, "corrupt clock record");
		return 1;
	case TG_REC_EXCLUDED:
		memset(out, 0, sizeof(*out));
		out->type = TG_REC_EXCLUDED;
		if (tg_get_uvar(&p, end, &out->excluded) < 0)
			return fail(r, "corrupt excluded record");
		return 1;
	case TG_REC_REPEAT:
		return decode_repeat(r, p, end, out);
	default:
		return 0;	/* a newer record type (or CHECK): skip it */
	}
}

/* The stream ends here: cleanly (@err NULL) or with @err at r->frame_off. */
/* A stream that ends inside a frame is damaged, unless the tracer said it
 * stopped: then the write it stopped at may have left part of one (NULL:
 * the end, reported as the tracer's stop). */
static const char *cut_short(const struct tg_reader *r)
{
	return (r->h.flags & TG_HDR_STOPPED) ? NULL : "truncated frame";
}

static void chunk_stop(struct tg_reader *r, const char *err)
{
	if (err)
		fail(r, err);
	r->stop = err ? 2 : 1;
}

/* Append the frame of @len payload bytes whose length word r->frame_off
 * holds to the chunk.  Returns 0, or -1 when the stream stops (chunk_stop). */
static int chunk_add(struct tg_reader *r, uint32_t len)
{
	size_t need = r->chunklen + (size_t)len + 5;
	long n;

	if (need > TG_CHUNK_MAX) {
		chunk_stop(r, "chunk without a checksum too long");
		return -1;
	}
	if (need > r->chunkcap) {
		size_t nc = r->chunkcap ? r->chunkcap : 65536;
		unsigned char *nb;
		while (nc < need)
			nc *= 2;
		if (!(nb = realloc(r->chunk, nc))) {
			chunk_stop(r, "out of memory");
			return -1;
		}
		r->chunk = nb;
		r->chunkcap = nc;
	}
	tg_put_le32(r->chunk + r->chunklen, len);
	n = tg_stream_read(r->s, r->chunk + r->chunklen + 4, (size_t)len + 1);
	if (n < 0 || n < (long)len + 1) {
		chunk_stop(r, n < 0 ? strerror(errno) : cut_short(r));
		return -1;
	}
	if (r->chunk[r->chunklen + 4 + len] != '\n') {
		chunk_stop(r, "corrupt frame (no closing newline)");
		return -1;
	}
	return 0;
}

/* A CHECK frame of @len bytes at the end of the chunk: does the chunk before
 * it match?  Returns 0, or -1 and the chunk is dropped. */
static int chunk_check(struct tg_reader *r, uint32_t len)
{
	const unsigned char *f = r->chunk + r->chunklen + 4;

	if (len < 5 || tg_get_le32(f + 1) != tg_crc32c(0, r->chunk, r->chunklen)) {
		r->frame_off = r->chunk_off;
		chunk_stop(r, len < 5 ? "corrupt check record" : "checksum mismatch in the chunk");
		r->chunklen = 0;
		return -1;
	}
	return 0;
}

/*
 * Read the next chunk into r->chunk: the frames up to a CHECK frame whose
 * CRC matches them (version 1: a single frame).  Frames that no CHECK
 * closes (the writer was killed, or damage follows them) are handed out
 * too, r->torn_off then says where they begin.  Returns when there is a
 * chunk or r->stop is set, or both.
 */
static void chunk_fill(struct tg_reader *r)
{
	int windowed = (r->h.flags & TG_HDR_WINDOWED) != 0;

	r->chunklen = r->chunkpos = 0;
	r->chunk_off = tg_stream_offset(r->s);
	for (;;) {
		unsigned char lenb[4];
		uint32_t len;
		long n;

		r->frame_off = tg_stream_offset(r->s);
		n = tg_stream_read(r->s, lenb, 4);
		if (n == 0 || (n > 0 && n < 4 && windowed &&
			       memcmp(lenb, "\0\0\0", (size_t)n) == 0)) {
			chunk_stop(r, NULL);	/* the end, or padding to it */
			break;
		}
		if (n < 4) {
			chunk_stop(r, n < 0 ? strerror(errno) : cut_short(r));
			break;
		}
		len = tg_get_le32(lenb);
		if (len == 0 && windowed) {
			int rc = skip_padding(r);
			if (rc <= 0)
				r->stop = rc < 0 ? 2 : 1;
			if (rc <= 0 || r->chunklen)
				break;	/* (frames no CHECK sealed: a torn window) */
			r->chunk_off = tg_stream_offset(r->s);
			continue;
		}
		if (len == 0 || len > TG_FRAME_MAX) {
			chunk_stop(r, "corrupt frame length");
			break;
		}
		if (chunk_add(r, len) < 0)
			break;
		if (r->h.version >= 2 && r->chunk[r->chunklen + 4] == TG_REC_CHECK) {
			if (chunk_check(r, len) == 0)
				return;
			break;
		}
		if (r->chunk[r->chunklen + 4] == TG_REC_WINDOW) {
			/* where the window ends is needed to read on */
			struct tg_rec dummy;
			if (decode_frame(r, r->chunk + r->chunklen + 4, len, &dummy) < 0) {
				r->stop = 2;
				break;
			}
		}
		r->chunklen += (size_t)len + 5;
		if (r->h.version < 2)
			return;
	}
	if (r->chunklen) {
		/* frames no CHECK sealed: the end of a window of a thread that
		 * was idle when the process died, or the stream's last */
		size_t at;
		if (!r->torn_off)
			r->torn_off = r->chunk_off;
		for (at = 0; at + 5 <= r->chunklen; at += (size_t)tg_get_le32(r->chunk + at) + 5)
			if (r->chunk[at + 4] == TG_REC_CALL || r->chunk[at + 4] == TG_REC_REPEAT)
				r->torn_n++;
	}
}

int tg_reader_next(struct tg_reader *r, struct tg_rec *out)
{
	for (;;) {
		if (r->chunkpos < r->chunklen) {
			unsigned char *f = r->chunk + r->chunkpos;
			uint32_t len = tg_get_le32(f);
			int rc;

			r->frame_off = r->chunk_off + r->chunkpos;
			r->chunkpos += (size_t)len + 5;
			rc = decode_frame(r, f + 4, len, out);
			if (rc == 0)
				continue;
			if (rc < 0)
				r->stop = 2;
			return rc;
		}
		if (r->stop == 2)
			return -1;
		if (r->stop == 1 && (r->h.flags & TG_HDR_STOPPED)) {
			/* the records are sound, but the process went on untraced */
			snprintf(r->err, sizeof(r->err),
				 "incomplete: the tracer stopped before its process ended (it "
				 "could not write the trace, or see the calls: the process's "
				 "standard error says why): the calls after its last record are "
				 "missing");
			r->incomplete = 1;
			r->stop = 2;
			return -1;
		}
		if (r->stop == 1 && r->torn_off) {
			snprintf(r->err, sizeof(r->err),
				 "torn tail: %llu call records have no checksum, the first at byte "
				 "%llu (the writer did not finish)",
				 (unsigned long long)r->torn_n, (unsigned long long)r->torn_off);
			r->stop = 2;
			return -1;
		}
		if (r->stop == 1 && (r->h.flags & TG_HDR_ENDS) &&
		    !(r->h.flags & TG_HDR_WINDOWED) && !r->ended) {
			/* a stream that is not windowed loses what its process
			 * had not written out when it was killed */
			snprintf(r->err, sizeof(r->err),
				 "incomplete: the stream ends without its end record at byte %llu "
				 "(its process was killed before the tracer finished it, or the "
				 "file was cut short): calls after its last record may be missing",
				 (unsigned long long)(r->chunk_off + r->chunklen));
			r->incomplete = 1;
			r->stop = 2;
			return -1;
		}
		if (r->stop == 1)
			return 0;
		chunk_fill(r);
	}
}

/* ---- writer ---------------------------------------------------------- */

struct wstr {
	char *s;
	uint64_t id;
};

struct tg_writer {
	struct tg_stream *s;
	struct wstr *strs;
	size_t nstrs, capstrs;
	struct tg_recbase *ts;
	size_t nts;
	unsigned char *buf;
	size_t cap;
	uint32_t crc;		/* of the frames since the last CHECK */
	size_t unsealed;	/* their bytes */
	int err;
};

/* A writer closes a chunk with a CHECK frame after this many bytes. */
#define TG_WRITER_CHUNK 65536

struct tg_writer *tg_writer_open(struct tg_stream *s, const struct tg_header *h)
{
	struct tg_writer *w = calloc(1, sizeof(*w));
	unsigned char hb[65536];
	size_t n;

	if (!w)
		return NULL;
	w->s = s;
	n = tg_header_encode(h, hb, sizeof(hb));
	if (n == 0 || tg_stream_write(s, hb, n) < 0) {
		free(w);
		return NULL;
	}
	return w;
}

/* Close the chunk of frames written since the last CHECK frame. */
static int writer_seal(struct tg_writer *w)
{
	unsigned char f[TG_REC_CHECK_LEN];

	if (!w->unsealed)
		return 0;
	tg_put_le32(f, 5);
	f[4] = TG_REC_CHECK;
	tg_put_le32(f + 5, w->crc);
	f[9] = '\n';
	w->crc = 0;
	w->unsealed = 0;
	if (tg_stream_write(w->s, f, sizeof(f)) < 0) {
		w->err = 1;
		return -1;
	}
	return 0;
}

int tg_writer_frame(struct tg_writer *w, const void *payload, size_t len)
{
	unsigned char lenb[4];

	tg_put_le32(lenb, (uint32_t)len);
	if (tg_stream_write(w->s, lenb, 4) < 0 ||
	    tg_stream_write(w->s, payload, len) < 0 ||
	    tg_stream_write(w->s, "\n", 1) < 0) {
		w->err = 1;
		return -1;
	}
	w->crc = tg_crc32c(w->crc, lenb, 4);
	w->crc = tg_crc32c(w->crc, payload, len);
	w->crc = tg_crc32c(w->crc, "\n", 1);
	w->unsealed += len + 5;
	return w->unsealed >= TG_WRITER_CHUNK ? writer_seal(w) : 0;
}

static uint64_t writer_str(struct tg_writer *w, const char *s)
{
	unsigned char *b, *p;
	size_t i, n;

	if (!s)
		return 0;
	for (i = 0; i < w->nstrs; i++)
		if (strcmp(w->strs[i].s, s) == 0)
			return w->strs[i].id;
	if (w->nstrs == w->capstrs) {
		size_t nc = w->capstrs ? 2 * w->capstrs : 32;
		struct wstr *ns = realloc(w->strs, nc * sizeof(*ns));
		if (!ns)
			return (uint64_t)-1;
		w->strs = ns;
		w->capstrs = nc;
	}
	n = strlen(s);
	b = malloc(n + 1 + 2 * TG_VARINT_MAX);
	if (!b)
		return (uint64_t)-1;
	w->strs[w->nstrs].s = strdup(s);
	w->strs[w->nstrs].id = w->nstrs + 1;
	p = b;
	*p++ = TG_REC_STR;
	p = tg_put_uvar(p, w->nstrs + 1);
	p = tg_put_uvar(p, n);
	memcpy(p, s, n);
	p += n;
	tg_writer_frame(w, b, (size_t)(p - b));
	free(b);
	return w->strs[w->nstrs++].id;
}

static unsigned char *room(struct tg_writer *w, size_t used, size_t more)
{
	if (used + more > w->cap) {
		size_t nc = w->cap ? w->cap : 4096;
		unsigned char *nb;
		while (nc < used + more)
			nc *= 2;
		nb = realloc(w->buf, nc);
		if (!nb)
			return NULL;
		w->buf = nb;
		w->cap = nc;
	}
	return w->buf + used;
}

unsigned char *tg_rk_put_s(unsigned char *p, const struct tg_val *v, uint64_t sid)
{
	(void)sid;
	return tg_put_svar(p, v->i);
}

unsigned char *tg_rk_put_u(unsigned char *p, const struct tg_val *v, uint64_t sid)
{
	(void)sid;
	return tg_put_uvar(p, (uint64_t)v->i);
}

unsigned char *tg_rk_put_str(unsigned char *p, const struct tg_val *v, uint64_t sid)
{
	(void)v;
	return tg_put_uvar(p, sid);
}

unsigned char *tg_rk_put_stat(unsigned char *p, const struct tg_val *v, uint64_t sid)
{
	(void)sid;
	*p++ = v->present ? 1 : 0;
	if (v->present) {
		p = tg_put_svar(p, v->i);
		p = tg_put_uvar(p, v->u);
	}
	return p;
}

unsigned char *tg_rk_put_uarr(unsigned char *p, const struct tg_val *v, uint64_t sid)
{
	int64_t k;

	(void)sid;
	p = tg_put_uvar(p, (uint64_t)v->i);
	for (k = 0; k < v->i; k++)
		p = tg_put_uvar(p, (uint64_t)v->arr[k]);
	return p;
}

unsigned char *tg_rk_put_sarr(unsigned char *p, const struct tg_val *v, uint64_t sid)
{
	int64_t k;

	(void)sid;
	p = tg_put_uvar(p, (uint64_t)v->i);
	for (k = 0; k < v->i; k++)
		p = tg_put_svar(p, v->arr[k]);
	return p;
}

unsigned char *tg_rk_put_hsizes(unsigned char *p, const struct tg_val *v, uint64_t sid)
{
	int64_t k;

	(void)sid;
	p = tg_put_uvar(p, v->present ? (uint64_t)v->i + 1 : 0);
	for (k = 0; v->present && k < v->i; k++)
		p = tg_put_svar(p, v->arr[k]);
	return p;
}

unsigned char *tg_rk_put_iostatus(unsigned char *p, const struct tg_val *v, uint64_t sid)
{
	(void)sid;
	return tg_put_uvar(p, v->present ? (uint64_t)v->i + 1 : 0);
}

unsigned char *tg_rk_put_status(unsigned char *p, const struct tg_val *v, uint64_t sid)
{
	(void)sid;
	*p++ = v->present ? 1 : 0;
	if (v->present) {
		p = tg_put_svar(p, v->i);
		p = tg_put_svar(p, (int64_t)v->u);
	}
	return p;
}

unsigned char *tg_rk_put_statuses(unsigned char *p, const struct tg_val *v, uint64_t sid)
{
	int64_t k;

	(void)sid;
	p = tg_put_uvar(p, (uint64_t)v->i);
	for (k = 0; k < 2 * v->i; k++)
		p = tg_put_svar(p, v->arr[k]);
	return p;
}

/* A REPEAT of thread rec->tid's last call: its start against the
 * thread's time base, which stays where that call put it. */
static int writer_repeat(struct tg_writer *w, const struct tg_rec *rec)
{
	unsigned char b[1 + 4 * TG_VARINT_MAX], *q = b;
	uint64_t base;

	if (rec->repeat == 0 || rec->tid >= w->nts || w->ts[rec->tid].seq < 0)
		return -1;
	base = w->ts[rec->tid].t;
	*q++ = TG_REC_REPEAT;
	q = tg_put_uvar(q, rec->tid);
	q = tg_put_uvar(q, rec->repeat);
	q = tg_put_svar(q, (int64_t)(rec->tstart - base));
	q = tg_put_uvar(q, rec->dur);
	return tg_writer_frame(w, b, (size_t)(q - b));
}

int tg_writer_put(struct tg_writer *w, const struct tg_rec *rec)
{
	uint64_t sids[TG_MAX_ARGS] = { 0 };
	const struct tg_calldesc *d;
	unsigned char *p;
	size_t need;
	int i;

	if (rec->type == TG_REC_RANK || rec->type == TG_REC_EXCLUDED) {
		unsigned char b[32], *q = b;
		*q++ = (unsigned char)rec->type;
		if (rec->type == TG_REC_RANK) {
			q = tg_put_svar(q, rec->rank);
			q = tg_put_uvar(q, rec->world);
		} else {
			q = tg_put_uvar(q, rec->excluded);
		}
		return tg_writer_frame(w, b, (size_t)(q - b));
	}
	if (rec->type == TG_REC_REPEAT)
		return writer_repeat(w, rec);
	d = rec->call ? rec->call : tg_call_lookup(rec->func);
	if (!d)
		return -1;
	need = 16 * TG_VARINT_MAX;
	for (i = 0; i < d->nargs; i++) {
		int k = d->args[i].kind;
		if (k == TG_K_STR || k == TG_K_PATH) {
			sids[i] = writer_str(w, rec->args[i].s);
			if (sids[i] == (uint64_t)-1)
				return -1;
		}
		need += 3 * TG_VARINT_MAX;
		need += tg_kinds[k].arr * (size_t)rec->args[i].i * TG_VARINT_MAX;
	}
	if (!(p = room(w, 0, need)))
		return -1;
	if (rec->tid >= w->nts) {
		size_t nn = w->nts ? w->nts : 8, k;
		struct tg_recbase *nt;
		while (nn <= rec->tid)
			nn *= 2;
		nt = realloc(w->ts, nn * sizeof(*nt));
		if (!nt)
			return -1;
		for (k = w->nts; k < nn; k++) {
			nt[k].seq = -1;
			nt[k].t = 0;
		}
		w->ts = nt;
		w->nts = nn;
	}
	p = tg_call_head_put(p, &w->ts[rec->tid], d->id, rec->tid, rec->seq, rec->depth,
			     rec->parent, rec->tstart, rec->dur, rec->ret, rec->err);
	for (i = 0; i < d->nargs; i++)
		p = tg_kinds[d->args[i].kind].rec_put(p, &rec->args[i], sids[i]);
	return tg_writer_frame(w, w->buf, (size_t)(p - w->buf));
}

int tg_writer_close(struct tg_writer *w)
{
	int rc;
	size_t i;

	writer_seal(w);
	rc = w->err || tg_stream_error(w->s) ? -1 : 0;
	for (i = 0; i < w->nstrs; i++)
		free(w->strs[i].s);
	free(w->strs);
	free(w->ts);
	free(w->buf);
	free(w);
	return rc;
}
