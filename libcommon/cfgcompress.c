/*
 * cfgcompress.c - compressing a record stream into a compressed trace:
 * its signatures join the CST, its Sequitur grammar the shared rule set,
 * its times the mean times and, unless aggregate, its STIME payload.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfgint.h"
#include "tg.h"
#include "stream.h"
#include "sequitur.h"
#include "banned.h"

struct cluster {
	struct tg_tenc dur, gap;
	uint64_t n;
};

struct enc {
	struct tg_sigstate st;
	struct tg_words w;
	struct tg_seq *seq;
	uint32_t *clmap;	/* terminal -> cluster, UINT32_MAX none */
	size_t nclmap;
	struct cluster *cl;
	size_t ncl, capcl;
	uint64_t *tt, *tr;	/* per thread: last true start, last restored start */
	size_t ntt;
	uint64_t *td, *tdep;	/* per thread: last duration and depth (lossless) */
	size_t ntd;
	struct tg_xtenc xt;	/* aggregate: the anchored calls */
	uint8_t deep[8];	/* per depth d: an MPI call deeper than d since
				 * the last call at depth d or above */
};

static void enc_release(struct enc *e)
{
	size_t i;

	e->st.foreign = NULL;	/* the stream's */
	tg_sig_release(&e->st);
	tg_words_release(&e->w);
	tg_seq_free(e->seq);
	free(e->clmap);
	for (i = 0; i < e->ncl; i++) {
		tg_tenc_release(&e->cl[i].dur);
		tg_tenc_release(&e->cl[i].gap);
	}
	free(e->cl);
	free(e->tt);
	free(e->tr);
	free(e->td);
	free(e->tdep);
	tg_xtenc_release(&e->xt);
}


static struct cluster *cluster_of(struct enc *e, uint32_t t)
{
	if (t >= e->nclmap) {
		size_t nn = e->nclmap ? e->nclmap : 256, i;
		uint32_t *nm;
		while (nn <= t)
			nn *= 2;
		if (!(nm = realloc(e->clmap, nn * sizeof(*nm))))
			return NULL;
		for (i = e->nclmap; i < nn; i++)
			nm[i] = UINT32_MAX;
		e->clmap = nm;
		e->nclmap = nn;
	}
	if (e->clmap[t] == UINT32_MAX) {
		if (e->ncl == e->capcl) {
			size_t nc = e->capcl ? e->capcl * 2 : 64;
			struct cluster *n = realloc(e->cl, nc * sizeof(*n));
			if (!n)
				return NULL;
			e->cl = n;
			e->capcl = nc;
		}
		memset(&e->cl[e->ncl], 0, sizeof(e->cl[0]));
		e->clmap[t] = (uint32_t)e->ncl++;
	}
	return &e->cl[e->clmap[t]];
}


/*
 * Store the times of @rec, a CALL of signature @t, in its cluster: its
 * duration, and its gap from the restored start of the thread's previous
 * call or, lossless, from tg_time_from().  Returns 0, or -1 out of memory.
 */
static int put_times(struct enc *e, uint32_t t, const struct tg_tparams *tp,
		     const struct tg_rec *rec)
{
	struct cluster *cl = cluster_of(e, t);
	uint64_t *tr = &e->tr[rec->tid];
	int64_t g;

	if (!cl)
		return -1;
	cl->n++;
	tg_tenc_put(&cl->dur, tp, 0, (int64_t)rec->dur);
	if (tp->mode == TG_T_LOSSLESS) {
		if (tg_cfg_thread_room(&e->td, &e->tdep, &e->ntd, rec->tid) < 0)
			return -1;
		tg_tenc_put(&cl->gap, tp, 1, (int64_t)(rec->tstart -
			    tg_time_from(*tr, e->td[rec->tid], e->tdep[rec->tid], rec->depth)));
		*tr = rec->tstart;
		e->td[rec->tid] = rec->dur;
		e->tdep[rec->tid] = rec->depth;
		return 0;
	}
	g = tg_tenc_put(&cl->gap, tp, 1, (int64_t)(rec->tstart - *tr));
	/* the decoder's start, which never goes before time zero (a nested
	 * call is stored before the call that encloses it, whose gap is then
	 * negative): the next gap is measured from there */
	if (g < 0 && *tr < (uint64_t)-g)
		*tr = 0;
	else
		*tr += (uint64_t)g;
	return 0;
}

/* Lossless, form 1: the counts, then the durations, then the gaps. */
static int stime_form1(struct enc *e, struct tg_bytes *b)
{
	size_t i;

	for (i = 0; i < e->ncl; i++)
		if (tg_bytes_uvar(b, e->cl[i].n) < 0)
			return -1;
	for (i = 0; i < e->ncl; i++)
		if (tg_tenc_finish_bare(&e->cl[i].dur, b) < 0)
			return -1;
	for (i = 0; i < e->ncl; i++)
		if (tg_tenc_finish_bare(&e->cl[i].gap, b) < 0)
			return -1;
	return 0;
}

/* The STIME payload of a stream: mode, clusters. */
static int stime_build(struct enc *e, const struct tg_tparams *tp, struct tg_cstream *s)
{
	struct tg_bytes b = { 0 };
	int form1 = tp->mode == TG_T_LOSSLESS;
	size_t i;
	int rc = -1;

	if (tg_bytes_uvar(&b, (uint64_t)tp->mode + (form1 ? TG_STIME_FORM1 : 0)) < 0 ||
	    tg_bytes_uvar(&b, e->ncl) < 0)
		goto out;
	if (form1 && stime_form1(e, &b) < 0)
		goto out;
	for (i = 0; !form1 && i < e->ncl; i++)
		if (tg_bytes_uvar(&b, e->cl[i].n) < 0 ||
		    tg_tenc_finish(&e->cl[i].dur, tp, &b) < 0 ||
		    tg_tenc_finish(&e->cl[i].gap, tp, &b) < 0)
			goto out;
	if (tg_cfg_deflate(b.b, b.n, &s->tz, &s->tzlen) < 0)
		goto out;
	s->traw = b.n;
	rc = 0;
out:
	tg_bytes_release(&b);
	return rc;
}

int tg_cfg_add_rec(struct tg_cfg *c, struct tg_reader *r, const struct tg_cfg_opts *o,
		   char *err, size_t errlen)
{
	return tg_cfg_add_rec_foreign(c, r, o, NULL, 0, err, errlen);
}

int tg_cfg_add_rec_foreign(struct tg_cfg *c, struct tg_reader *r, const struct tg_cfg_opts *o,
			   const uint64_t *foreign, size_t nforeign, char *err, size_t errlen)
{
	struct tg_tparams tp = { o->timing, o->err_ppm, o->bits, o->samples, 0 };
	const struct tg_header *h = tg_reader_header(r);
	struct tg_sym *syms = NULL;
	uint32_t *off = NULL, nr = 0, k, *map = NULL;
	struct tg_cstream *s;
	struct enc e;
	struct tg_rec rec;
	int rc, damaged = 0, ret = -1;

	memset(&e, 0, sizeof(e));
	if (tg_tparams_fix(&tp) < 0) {
		snprintf(err, errlen, "timing parameters out of range");
		return -1;
	}
	if (!(s = tg_cfg_stream_new(c)) || tg_cfg_header_copy(&s->v.h, h) < 0)
		goto oom;
	s->v.timing = tp.mode;
	s->v.anchored = 1;
	s->v.err_ppm = tp.err_ppm;
	s->v.bits = tp.bits;
	s->v.samples = tp.samples;
	tg_sig_init(&e.st, h->rank, -1);
	s->seqv = e.st.seqv = 1;
	if (nforeign) {
		if (!(s->foreign = malloc(nforeign * sizeof(uint64_t))))
			goto oom;
		memcpy(s->foreign, foreign, nforeign * sizeof(uint64_t));
		s->nforeign = nforeign;
		e.st.foreign = s->foreign;
		e.st.nforeign = nforeign;
	}
	if (!(e.seq = tg_seq_new()))
		goto oom;
	while ((rc = tg_reader_next(r, &rec)) > 0) {
		int64_t t;
		int erc = tg_sig_encode(&e.st, &c->strs, &rec, &e.w);
		if (erc == -2) {
			snprintf(err, errlen, "record %llu: %s cannot be compressed by this version",
				 (unsigned long long)s->v.records,
				 rec.type == TG_REC_CALL && rec.call ? rec.call->name : "a record type");
			goto fail;
		}
		if (erc < 0 || (t = tg_cfg_cst_intern(c, e.w.w, e.w.n, 1)) < 0 ||
		    tg_seq_append(e.seq, (uint32_t)t, 1) < 0)
			goto oom;
		s->v.records++;
		if (rec.type != TG_REC_CALL)
			continue;
		s->v.calls++;
		if (tg_cfg_thread_room(&e.tt, &e.tr, &e.ntt, rec.tid) < 0)
			goto oom;
		/* aggregate: the calls whose order between processes counts
		 * keep their times, and so does every call made while the
		 * stream has no rank (those of a process without one; those
		 * before MPI_Init of a stream whose header could not be given
		 * it, written to a pipe), which only clocks order */
		if (tp.mode == TG_T_AGG &&
		    ((e.st.srank < 0 && !o->lone) ||
		     tg_xtime_wanted(&rec, rec.depth < 8 && e.deep[rec.depth])) &&
		    tg_xtenc_put(&e.xt, s->v.calls - 1, &rec) < 0)
			goto oom;
		/* (a call's nested calls come before it: what this one held
		 * is done, and an MPI call is inside those above it) */
		for (k = rec.depth < 8 ? rec.depth : 8; k < 8; k++)
			e.deep[k] = 0;
		if (rec.call && rec.call->layer == TG_LAYER_MPI)
			for (k = 0; k < rec.depth && k < 8; k++)
				e.deep[k] = 1;
		c->agg[t].count++;
		c->agg[t].dur += rec.dur;
		c->agg[t].gap += (int64_t)(rec.tstart - e.tt[rec.tid]);
		e.tt[rec.tid] = rec.tstart;
		if (rec.tstart + rec.dur > s->v.end)
			s->v.end = rec.tstart + rec.dur;
		if (tp.mode != TG_T_AGG && put_times(&e, (uint32_t)t, &tp, &rec) < 0)
			goto oom;
	}
	if (rc < 0)
		damaged = 1;
	/* records lost at its process's end: the .cfg says so as the
	 * stream did, by its header's "stopped" flag (tangram-cfg(5)) */
	if (rc < 0 && tg_reader_incomplete(r))
		s->v.h.flags |= TG_HDR_STOPPED;
	s->v.rank = e.st.srank;
	s->clock = e.st.clock;
	s->nclock = e.st.nclock;
	e.st.clock = NULL;
	e.st.nclock = 0;
	s->rep = e.st.rep;
	s->nrep = e.st.nrep;
	e.st.rep = NULL;
	e.st.nrep = 0;
	s->local = e.st.local;
	s->nlocal = e.st.nlocal;
	e.st.local = NULL;
	e.st.nlocal = 0;
	if (tp.mode != TG_T_AGG && stime_build(&e, &tp, s) < 0)
		goto oom;
	if (tp.mode == TG_T_AGG && tg_xtenc_finish(&e.xt, s) < 0)
		goto oom;
	/* a lone stream without a rank kept only some: merged with others
	 * later, its calls are not ordered by their times */
	if (o->lone && s->v.rank < 0)
		s->v.anchored = 0;
	if (tg_seq_export(e.seq, &syms, &off, &nr) < 0 ||
	    !(map = malloc((nr ? nr : 1) * sizeof(uint32_t))))
		goto oom;
	/* the stream's rules join the shared set: rule refs renumbered,
	 * signatures are already the CST's */
	for (k = 0; k < nr; k++) {
		uint32_t i;
		for (i = off[k]; i < off[k + 1]; i++)
			if (syms[i].sym & 1)
				syms[i].sym = map[syms[i].sym >> 1] << 1 | 1;
		if ((map[k] = tg_cfg_rule_add(c, syms + off[k], off[k + 1] - off[k])) == UINT32_MAX)
			goto oom;
	}
	s->rule = map[nr - 1];
	ret = damaged;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	ret = -1;
out:
	free(syms);
	free(off);
	free(map);
	enc_release(&e);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int tg_cfg_foreign_scan(const char *path, uint64_t **f, size_t *n)
{
	struct tg_stream *s = NULL;
	struct tg_reader *r = NULL;
	struct tg_rec rec;
	struct stat sb;
	uint64_t *a = NULL, calls = 0;
	size_t na = 0, cap = 0, i, k;
	char msg[64];
	int rc = -1;

	*f = NULL;
	*n = 0;
	/* standard input redirected from a file is opened again, at its start */
	if (!path || strcmp(path, "-") == 0)
		path = fstat(0, &sb) == 0 && S_ISREG(sb.st_mode) ? "/dev/stdin" : NULL;
	if (!path || stat(path, &sb) < 0 || !S_ISREG(sb.st_mode) ||
	    !(s = tg_stream_open(path, "r")) || !(r = tg_reader_open(s, msg, sizeof(msg))))
		goto out;
	while (tg_reader_next(r, &rec) > 0) {
		if (rec.type != TG_REC_CALL)
			continue;
		calls++;
		if (rec.tid == 0)
			continue;
		if (na >= TG_CFG_MAXFOREIGN) {	/* threads that work: not worth it */
			na = 0;
			break;
		}
		if (na == cap) {
			size_t nc = cap ? cap * 2 : 64;
			uint64_t *nn = realloc(a, nc * sizeof(*nn));
			if (!nn)
				goto out;
			a = nn;
			cap = nc;
		}
		a[na++] = rec.seq;
	}
	if (na)
		qsort(a, na, sizeof(*a), cmp_u64);
	for (i = k = 0; i < na; i++)
		if (k == 0 || a[i] != a[k - 1])
			a[k++] = a[i];
	if (k * 8 > calls)
		k = 0;
	*f = a;
	*n = k;
	a = NULL;
	rc = 0;
out:
	free(a);
	tg_reader_free(r);
	if (s)
		tg_stream_close(s);
	return rc;
}
