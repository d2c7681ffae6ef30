/*
 * trace-report - one self-contained HTML page that shows a trace: the run,
 * its files and ranks, I/O over time, access patterns, function counts and,
 * when given, the conflicts conflict-check found.
 *
 * One streaming pass over the records (.rec or .cfg, through the readers
 * trace-decode uses): each record is added to counters and time bins, never
 * kept, so memory grows with files, ranks and open handles only.  The time
 * bins double in width when a call ends past the last one, and a file's
 * offset bins when an access ends past its last, so neither the duration
 * nor the file sizes need to be known ahead.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../libcommon/calltab.h"
#include "../libcommon/cfg.h"
#include "../libcommon/rec.h"
#include "../libcommon/runs.h"
#include "../libcommon/stream.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "report.h"
#include "../libcommon/banned.h"

static const char usage_text[] =
	"usage: trace-report [-h] [-c verdict.json] [-o report.html] [file ...]\n";

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

/* ---- files ---------------------------------------------------------------- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static void fhash_grow(struct rp_run *run)
{
	size_t cap = run->fhcap ? run->fhcap * 2 : 256, i, j;
	uint32_t *t = calloc(cap, sizeof(*t));

	if (!t)
		err(TG_EXIT_ERROR, "out of memory");
	for (i = 0; i < run->nfiles; i++) {
		j = hash_str(run->files[i].path) & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(run->fhash);
	run->fhash = t;
	run->fhcap = cap;
}

uint32_t rp_file_of(struct rp_run *run, const char *path)
{
	size_t j;
	struct rp_file *f;

	if (2 * (run->nfiles + 1) > run->fhcap)
		fhash_grow(run);
	for (j = hash_str(path) & (run->fhcap - 1); run->fhash[j]; j = (j + 1) & (run->fhcap - 1))
		if (strcmp(run->files[run->fhash[j] - 1].path, path) == 0)
			return run->fhash[j] - 1;
	if (run->nfiles == run->fcap) {
		run->fcap = run->fcap ? 2 * run->fcap : 64;
		run->files = tg_xrealloc(run->files, run->fcap * sizeof(*run->files));
	}
	f = &run->files[run->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = tg_xstrdup(path);
	f->slow_rank = -1;
	f->obin = 1;
	run->fhash[j] = (uint32_t)++run->nfiles;
	return (uint32_t)run->nfiles - 1;
}

/* ---- time and offset bins ------------------------------------------------- */

/* Halve the resolution of @n bins in place: bin i gets 2i and 2i + 1. */
#define FOLD(a, n) do {							\
		size_t i_;						\
		for (i_ = 0; i_ < (n); i_++)				\
			(a)[i_] = i_ < (n) / 2 ? (a)[2 * i_] + (a)[2 * i_ + 1] : 0; \
	} while (0)

/* Merge the cells of @f's list @k that the fold made one (@cell() gives
 * each entry's new cell). */
static void sparse_fold(struct rp_file *f, int k, uint32_t (*cell)(uint32_t))
{
	uint32_t i, j, n = 0;

	for (i = 0; i < f->nsp[k]; i++) {
		struct rp_cell c = f->sp[k][i];
		c.cell = cell(c.cell);
		for (j = 0; j < n && f->sp[k][j].cell != c.cell; j++)
			;
		if (j < n) {
			f->sp[k][j].cnt += c.cnt;
			f->sp[k][j].rsum += c.rsum;
		} else {
			f->sp[k][n++] = c;
		}
	}
	f->nsp[k] = n;
}

static uint32_t half_time(uint32_t c)
{
	return c / RP_TBINS * RP_TBINS + c % RP_TBINS / 2;
}

static uint32_t half_offset(uint32_t c)
{
	return c / RP_TBINS / 2 * RP_TBINS + c % RP_TBINS;
}

static void fold_time(struct rp_run *run)
{
	size_t r, f, k, o;

	for (r = 0; r < run->nranks; r++) {
		FOLD(run->ranks[r].bytes[0], RP_TBINS);
		FOLD(run->ranks[r].bytes[1], RP_TBINS);
		FOLD(run->ranks[r].meta, RP_TBINS);
	}
	for (f = 0; f < run->nfiles; f++)
		for (k = 0; k < 2; k++) {
			if (run->files[f].nsp[k])
				sparse_fold(&run->files[f], (int)k, half_time);
			for (o = 0; run->files[f].cnt[k] && o < RP_OBINS; o++) {
				FOLD(run->files[f].cnt[k] + o * RP_TBINS, RP_TBINS);
				FOLD(run->files[f].rsum[k] + o * RP_TBINS, RP_TBINS);
			}
		}
	run->bin *= 2;
}

/* The time bin of @t, widening the bins until it fits. */
static size_t tbin(struct rp_run *run, uint64_t t)
{
	while (t / run->bin >= RP_TBINS)
		fold_time(run);
	return (size_t)(t / run->bin);
}

static void fold_offsets(struct rp_file *f)
{
	size_t k, o, t;

	for (k = 0; k < 2; k++) {
		if (f->nsp[k])
			sparse_fold(f, (int)k, half_offset);
		if (!f->cnt[k])
			continue;
		for (o = 0; o < RP_OBINS; o++)
			for (t = 0; t < RP_TBINS; t++) {
				size_t d = o * RP_TBINS + t;
				if (o < RP_OBINS / 2) {
					size_t s0 = 2 * o * RP_TBINS + t, s1 = s0 + RP_TBINS;
					f->cnt[k][d] = f->cnt[k][s0] + f->cnt[k][s1];
					f->rsum[k][d] = f->rsum[k][s0] + f->rsum[k][s1];
				} else {
					f->cnt[k][d] = 0;
					f->rsum[k][d] = 0;
				}
			}
	}
	f->obin *= 2;
}

/* ---- handles: what each open descriptor, stream or MPI file is ------------- */

struct handle {
	uint64_t key;		/* argument kind << 56 ^ value */
	uint32_t file;
	int64_t pos;		/* -1: unknown */
	int64_t last;		/* end of the last access, -1 before the first */
};

#define RP_DEPTH 32

/* One stream (one rank or process) while it is read. */
struct cur {
	struct rp_run *run;
	struct rp_rank *rk;
	uint64_t base;		/* ns from time zero to the stream's zero */
	const char *cwd;	/* the stream's working directory, or NULL */
	struct handle *h;
	size_t nh, caph, hit;
	uint64_t *fns;		/* ns this rank spent on each file */
	size_t nfns;
	/* per thread and depth: the last call's seq, and whether it was an
	 * I/O call or inside one (then its calls' bytes are counted there);
	 * per thread: its last call, and whether it counted as metadata (a
	 * REPEAT record repeats it) */
	struct {
		uint64_t seq[RP_DEPTH];
		uint8_t io[RP_DEPTH];
		const struct tg_calldesc *last;
		uint8_t meta;
	} th[64];
};

static uint64_t hkey(const struct tg_calldesc *d, const struct tg_rec *r, int arg)
{
	if (arg == TG_ARG_RET)
		return (uint64_t)d->retkind << 56 ^ (uint64_t)r->ret;
	if (arg < 0 || arg >= d->nargs)
		return 0;
	return (uint64_t)d->args[arg].kind << 56 ^ (uint64_t)r->args[arg].i;
}

static struct handle *hfind(struct cur *c, uint64_t key)
{
	size_t i;

	if (!key)
		return NULL;
	if (c->hit < c->nh && c->h[c->hit].key == key)
		return &c->h[c->hit];
	for (i = c->nh; i-- > 0;)
		if (c->h[i].key == key) {
			c->hit = i;
			return &c->h[i];
		}
	return NULL;
}

static void hdrop(struct cur *c, uint64_t key)
{
	struct handle *h = hfind(c, key);

	if (h)
		*h = c->h[--c->nh];
}

static struct handle *hset(struct cur *c, uint64_t key, uint32_t file)
{
	struct handle *h;

	if (!key)
		return NULL;
	hdrop(c, key);
	if (c->nh == c->caph) {
		c->caph = c->caph ? 2 * c->caph : 32;
		c->h = tg_xrealloc(c->h, c->caph * sizeof(*c->h));
	}
	h = &c->h[c->nh++];
	*h = (struct handle){ key, file, 0, -1 };
	return h;
}

static int64_t argi(const struct tg_calldesc *d, const struct tg_rec *r, int arg, int64_t dflt)
{
	if (arg == TG_ARG_RET)
		return r->ret;
	if (arg < 0 || arg >= d->nargs)
		return dflt;
	return r->args[arg].i;
}

/* ---- accounting ------------------------------------------------------------- */

static int size_bucket(uint64_t n)
{
	static const uint64_t lim[RP_SIZEB - 1] = { 100, 1000, 10000, 100000, 1000000,
		4000000, 10000000, 100000000, 1000000000 };
	int b = 0;

	while (b < RP_SIZEB - 1 && n >= lim[b])
		b++;
	return b;
}

static void acc_data(struct rp_acc *a, int w, uint64_t len, int pat)
{
	a->bytes[w] += len;
	a->ops[w]++;
	a->size[w][size_bucket(len)]++;
	if (pat == 0)
		a->consec++;
	else if (pat == 1)
		a->seq++;
	else if (pat == 2)
		a->rnd++;
}

/* Put an access of @len bytes at @off of file @f at time @t in its grid. */
static void grid_put(struct rp_run *run, struct rp_file *f, int w, int64_t off, uint64_t len,
		     uint64_t t, int64_t rank)
{
	size_t cell;
	uint64_t end = (uint64_t)off + len;

	uint32_t i;
	uint64_t rk = (uint64_t)(rank < 0 ? 0 : rank);

	if (end > f->maxend)
		f->maxend = end;
	while ((uint64_t)off / f->obin >= RP_OBINS)
		fold_offsets(f);
	cell = (size_t)((uint64_t)off / f->obin) * RP_TBINS + tbin(run, t);
	if (!f->cnt[w]) {
		/* a list while it is short (110 KB a file otherwise: 2 GB
		 * for a run that touched 20,000 files) */
		for (i = 0; i < f->nsp[w] && f->sp[w][i].cell != cell; i++)
			;
		if (i < f->nsp[w]) {
			f->sp[w][i].cnt++;
			f->sp[w][i].rsum += rk;
			return;
		}
		if (i < RP_SPARSE) {
			if (!f->sp[w] && !(f->sp[w] = calloc(RP_SPARSE, sizeof(*f->sp[w]))))
				err(TG_EXIT_ERROR, "out of memory");
			f->sp[w][f->nsp[w]++] = (struct rp_cell){ (uint32_t)cell, 1, rk };
			return;
		}
		f->cnt[w] = calloc(RP_OBINS * RP_TBINS, sizeof(uint32_t));
		f->rsum[w] = calloc(RP_OBINS * RP_TBINS, sizeof(uint64_t));
		if (!f->cnt[w] || !f->rsum[w])
			err(TG_EXIT_ERROR, "out of memory");
		for (i = 0; i < f->nsp[w]; i++) {
			f->cnt[w][f->sp[w][i].cell] = f->sp[w][i].cnt;
			f->rsum[w][f->sp[w][i].cell] = f->sp[w][i].rsum;
		}
		free(f->sp[w]);
		f->sp[w] = NULL;
		f->nsp[w] = 0;
	}
	f->cnt[w][cell]++;
	f->rsum[w][cell] += rk;
}

/* The bytes a data role moved, or -1 if the record does not say. */
static int64_t data_len(const struct tg_calldesc *d, const struct tg_iorole *io,
			const struct tg_rec *r)
{
	switch (io->len) {
	case TG_LEN_RET:
		return r->ret;
	case TG_LEN_RET_TIMES:
		return r->ret > 0 ? r->ret * argi(d, r, io->lenarg, 0) : 0;
	case TG_LEN_ONE:
		return r->ret >= 0;
	case TG_LEN_STATUS:
		if (io->a >= 0 && io->a < d->nargs && r->args[io->a].present)
			return r->args[io->a].i;
		return argi(d, r, io->lenarg, -1);	/* a count: bytes of MPI_BYTE */
	case TG_LEN_ARG:
		return argi(d, r, io->lenarg, -1);	/* fputs's length; -1 absent */
	}
	return -1;
}

/* A read or write through a handle; @outer: not inside another counted one. */
static void data_call(struct cur *c, const struct tg_calldesc *d, const struct tg_iorole *io,
		      const struct tg_rec *r, uint64_t t, int outer)
{
	struct handle *h = hfind(c, hkey(d, r, io->h));
	int w = io->op == TG_IO_WRITE, pat = -1;
	int64_t len = data_len(d, io, r), off = -1;
	struct rp_file *f;

	if (len < 0 || !h)
		return;
	switch (io->off) {
	case TG_OFF_ARG:
		off = argi(d, r, io->offarg, -1);
		if (off < 0)
			off = h->pos;
		break;
	case TG_OFF_POS:
		off = h->pos;
		break;
	case TG_OFF_AT:
	case TG_OFF_IND:
	case TG_OFF_SHARED:
	case TG_OFF_ORDERED:	/* in etypes: bytes in the default view */
		off = argi(d, r, io->offarg, -1);
		break;
	}
	if (io->off == TG_OFF_POS && h->pos >= 0)
		h->pos += len;
	f = &c->run->files[h->file];
	if (off >= 0) {
		pat = h->last < 0 ? (off == 0 ? 0 : 1) : off == h->last ? 0 : off > h->last ? 1 : 2;
		h->last = off + len;
	}
	if (!outer)
		return;
	acc_data(&f->a, w, (uint64_t)len, pat);
	acc_data(&c->rk->a, w, (uint64_t)len, pat);
	c->rk->bytes[w][tbin(c->run, t)] += (uint64_t)len;
	if (off >= 0)
		grid_put(c->run, f, w, off, (uint64_t)len, t, c->rk->rank);
}

/* The file @path names: MPI-IO's relative names against the stream's
 * working directory, as overlap-find places them. */
static uint32_t file_at(struct cur *c, const char *path)
{
	char buf[4096];

	if (path[0] == '/' || !c->cwd)
		return rp_file_of(c->run, path);
	snprintf(buf, sizeof(buf), "%s/%s", c->cwd, path[0] == '.' && path[1] == '/' ? path + 2 : path);
	return rp_file_of(c->run, buf);
}

/* A role that is not data: follow the handles it opens, shares and ends. */
static void life_call(struct cur *c, const struct tg_calldesc *d, const struct tg_iorole *io,
		      const struct tg_rec *r)
{
	struct handle *h, *o;
	int64_t v;

	switch (io->op) {
	case TG_IO_OPEN:
	case TG_IO_REOPEN:
		if (io->op == TG_IO_REOPEN)
			hdrop(c, hkey(d, r, io->c));
		if (io->a >= 0 && io->a < d->nargs && r->args[io->a].s)
			hset(c, hkey(d, r, io->h), file_at(c, r->args[io->a].s));
		break;
	case TG_IO_FDOPEN:
	case TG_IO_DUP:
		if ((o = hfind(c, hkey(d, r, io->a)))) {
			uint32_t file = o->file;
			int64_t pos = o->pos;
			if ((h = hset(c, hkey(d, r, io->h), file)))
				h->pos = pos;
		}
		break;
	case TG_IO_CLOSE:
		hdrop(c, hkey(d, r, io->h));
		break;
	case TG_IO_SEEK:
		if (!(h = hfind(c, hkey(d, r, io->h))))
			break;
		if (io->off == TG_OFF_RET) {
			h->pos = r->ret;
			break;
		}
		v = argi(d, r, io->offarg, 0);
		switch (io->b == TG_ARG_NONE ? 0 : argi(d, r, io->b, -1)) {
		case 0:
			h->pos = v;
			break;
		case 1:
			h->pos = h->pos >= 0 ? h->pos + v : -1;
			break;
		default:
			h->pos = -1;
		}
		break;
	case TG_IO_REWIND:
		if ((h = hfind(c, hkey(d, r, io->h))))
			h->pos = 0;
		break;
	}
}

/* The time this rank spent on a file (for the file's slowest rank). */
static void file_time(struct cur *c, uint32_t file, uint64_t ns)
{
	if (file >= c->nfns) {
		size_t n = c->nfns ? c->nfns : 64;
		while (n <= file)
			n *= 2;
		c->fns = tg_xrealloc(c->fns, n * sizeof(*c->fns));
		memset(c->fns + c->nfns, 0, (n - c->nfns) * sizeof(*c->fns));
		c->nfns = n;
	}
	c->fns[file] += ns;
}

static void add_call(struct cur *c, const struct tg_rec *r)
{
	const struct tg_calldesc *d = r->call;
	struct rp_rank *rk = c->rk;
	uint64_t t = c->base + r->tstart, end = t + r->dur;
	int layer = d->layer < TG_LAYER_COUNT ? d->layer : TG_LAYER_POSIX;
	int ioc = layer != TG_LAYER_MPI, data = 0, outer, failed;
	unsigned i, tid = r->tid & 63, dp = r->depth;
	struct handle *h;

	c->run->calls[layer]++;
	rk->a.calls[layer]++;
	if (d->id < c->run->nfuncs)
		c->run->funcs[d->id]++;
	c->th[tid].last = d;
	c->th[tid].meta = 0;
	if (end > rk->end)
		rk->end = end;
	if (end > c->run->end)
		c->run->end = end;
	/* inside an I/O call (MPI-IO's pwrite, through its MPI calls too):
	 * its layer's time, not its bytes again; by seq, not by time, which
	 * a compressed trace may only approximate */
	outer = !(dp > 0 && dp <= RP_DEPTH && c->th[tid].seq[dp - 1] == (uint64_t)r->parent &&
		  c->th[tid].io[dp - 1]);
	if (dp < RP_DEPTH) {
		c->th[tid].seq[dp] = r->seq;
		c->th[tid].io[dp] = !outer || ioc;
	}
	if (!ioc)
		return;
	rk->a.ns[layer] += r->dur;
	failed = layer == TG_LAYER_MPIIO ? r->ret != 0 : r->err != 0;
	for (i = 0; i < d->nio; i++) {
		const struct tg_iorole *io = &d->io[i];
		if (io->op == TG_IO_READ || io->op == TG_IO_WRITE) {
			data = 1;
			if (!failed)
				data_call(c, d, io, r, t, outer);
		} else if (!failed || io->op == TG_IO_CLOSE) {
			life_call(c, d, io, r);
		}
		if (i == 0 && io->h != TG_ARG_NONE && (h = hfind(c, hkey(d, r, io->h)))) {
			c->run->files[h->file].a.ns[layer] += r->dur;
			if (outer)
				file_time(c, h->file, r->dur);
			if (!data)
				c->run->files[h->file].a.meta++;
		}
	}
	if (outer && !data) {
		rk->a.meta++;
		rk->meta[tbin(c->run, t)]++;
		c->th[tid].meta = 1;
	}
}

/* A REPEAT record: the thread's last call, made r->repeat times more
 * (folded by the tracer), counted as it was; its metadata calls spread
 * evenly over the time bins the repeats span. */
static void add_repeat(struct cur *c, const struct tg_rec *r)
{
	const struct tg_calldesc *d = c->th[r->tid & 63].last;
	struct rp_rank *rk = c->rk;
	uint64_t t = c->base + r->tstart, end = t + r->dur, n = r->repeat, left;
	int layer;
	size_t b0, b1, b;

	if (!d)
		return;
	layer = d->layer < TG_LAYER_COUNT ? d->layer : TG_LAYER_POSIX;
	c->run->calls[layer] += n;
	rk->a.calls[layer] += n;
	if (d->id < c->run->nfuncs)
		c->run->funcs[d->id] += n;
	if (end > rk->end)
		rk->end = end;
	if (end > c->run->end)
		c->run->end = end;
	if (!c->th[r->tid & 63].meta)
		return;
	rk->a.meta += n;
	b1 = tbin(c->run, end);	/* first: it may widen the bins */
	b0 = tbin(c->run, t);
	for (b = b0, left = n; b <= b1; b++) {
		uint64_t k = left / (b1 - b + 1);
		rk->meta[b] += (uint32_t)k;
		left -= k;
	}
}

/* ---- streams ---------------------------------------------------------------- */

static int host_of(struct rp_run *run, const char *host)
{
	size_t i;

	host = host ? host : "?";
	for (i = 0; i < run->nhosts; i++)
		if (strcmp(run->hosts[i], host) == 0)
			return (int)i;
	run->hosts = tg_xrealloc(run->hosts, (run->nhosts + 1) * sizeof(*run->hosts));
	run->hosts[run->nhosts] = tg_xstrdup(host);
	return (int)run->nhosts++;
}

/* The runs of the inputs: a trace of several runs numbers its ranks
 * run-major, as trace-decode(1) does (runs.h). */
static struct tg_runs runs;

/* The global rank of rank @rank of the stream of header @h. */
static int64_t global_rank(const struct tg_header *h, int64_t rank)
{
	if (!runs.numbered)
		tg_runs_number(&runs);
	return rank < 0 ? rank : tg_runs_first(&runs, tg_run_of(h)) + rank;
}

/* The ranks of every run: each run's world, added up. */
static void runs_world(struct rp_run *run)
{
	uint64_t w = 0;
	int i;

	for (i = 0; runs.n > 1 && i < runs.n; i++)
		w += runs.v[i].world;
	if (w > run->world)
		run->world = w;
}

static struct rp_rank *rank_of(struct rp_run *run, const struct tg_header *h, int64_t rank)
{
	size_t i;
	struct rp_rank *rk;

	for (i = run->nranks; i-- > 0;)
		if (rank >= 0 ? run->ranks[i].rank == rank
			      : run->ranks[i].rank < 0 && run->ranks[i].pid == h->pid)
			return &run->ranks[i];
	run->ranks = tg_xrealloc(run->ranks, (run->nranks + 1) * sizeof(*run->ranks));
	rk = &run->ranks[run->nranks++];
	memset(rk, 0, sizeof(*rk));
	rk->rank = rank;
	rk->pid = h->pid;
	rk->host = host_of(run, h->host);
	return rk;
}

static void stream_begin(struct cur *c, struct rp_run *run, const struct tg_header *h,
			 int64_t rank)
{
	memset(c, 0, sizeof(*c));
	c->run = run;
	if (run->zero == UINT64_MAX)
		run->zero = h->clock_base;
	c->base = h->clock_base > run->zero ? h->clock_base - run->zero : 0;
	c->rk = rank_of(run, h, global_rank(h, rank));
	c->cwd = h->cwd;
	if (h->world > run->world)
		run->world = h->world;
	runs_world(run);
	if (!run->program && h->argc > 0) {
		size_t n = 0, k;
		int i;
		for (i = 0; i < h->argc; i++)
			n += strlen(h->argv[i]) + 1;
		run->program = tg_xrealloc(NULL, n + 1);
		for (i = 0, k = 0; i < h->argc; i++) {
			size_t l = strlen(h->argv[i]);
			memcpy(run->program + k, h->argv[i], l);
			k += l;
			run->program[k++] = i + 1 < h->argc ? ' ' : 0;
		}
	}
	run->streams++;
}

/* A rank that became known mid-stream moves the stream's counters to it. */
static void stream_rank(struct cur *c, const struct tg_header *h, int64_t rank)
{
	size_t idx = (size_t)(c->rk - c->run->ranks);

	rank = global_rank(h, rank);
	if (c->rk->rank == rank)
		return;
	if (idx == c->run->nranks - 1 && c->rk->rank < 0) {
		c->rk->rank = rank;	/* the usual case: it was this stream's */
		return;
	}
	c->rk = rank_of(c->run, h, rank);
}

static void stream_end(struct cur *c)
{
	size_t i;

	/* nfns is a capacity: past the run's files there are none */
	for (i = 0; i < c->nfns && i < c->run->nfiles; i++) {
		struct rp_file *f = &c->run->files[i];
		if (c->fns[i] > f->slow_ns) {
			f->slow_ns = c->fns[i];
			f->slow_rank = c->rk->rank >= 0 ? c->rk->rank : -(int64_t)c->rk->pid - 1;
		}
	}
	free(c->fns);
	free(c->h);
}

static void add_rec(struct cur *c, const struct tg_header *h, const struct tg_rec *r)
{
	c->run->records++;
	if (r->type == TG_REC_CALL)
		add_call(c, r);
	else if (r->type == TG_REC_REPEAT)
		add_repeat(c, r);
	else if (r->type == TG_REC_RANK) {
		stream_rank(c, h, r->rank);
		if (r->world > c->run->world)
			c->run->world = r->world;
	}
}

static int read_cfg(struct rp_run *run, struct tg_stream *s)
{
	struct tg_cfg *cf;
	struct tg_rec rec;
	struct cur c;
	char msg[256];
	size_t i;
	int n = 0;

	if (!(cf = tg_cfg_read(s, msg, sizeof(msg)))) {
		warnx("%s: %s", tg_stream_name(s), msg);
		return -2;
	}
	for (i = 0; i < tg_cfg_nstreams(cf); i++) {
		if (tg_cfg_stream(cf, i)->h.clock_base < run->zero)
			run->zero = tg_cfg_stream(cf, i)->h.clock_base;
		if (!runs.numbered)	/* a lone compressed trace */
			(void)tg_runs_note(&runs, &tg_cfg_stream(cf, i)->h);
	}
	for (i = 0; i < tg_cfg_nstreams(cf) && n >= 0; i++) {
		struct tg_cfg_cursor *k = tg_cfg_cursor_open(cf, i, msg, sizeof(msg));
		if (!k) {
			warnx("%s: %s", tg_stream_name(s), msg);
			n = -1;
			break;
		}
		stream_begin(&c, run, tg_cfg_cursor_header(k), tg_cfg_stream(cf, i)->rank);
		while ((n = tg_cfg_cursor_next(k, &rec)) > 0)
			add_rec(&c, tg_cfg_cursor_header(k), &rec);
		if (n < 0)
			warnx("%s: %s", tg_stream_name(s), tg_cfg_cursor_error(k));
		stream_end(&c);
		tg_cfg_cursor_free(k);
	}
	tg_cfg_free(cf);
	return n < 0 ? -1 : 0;
}

/* Read one input into @run; returns 0, or after one line on stderr -1
 * (damaged: the records before the damage are in) or -2 (nothing of it
 * could be read). */
static int read_input(struct rp_run *run, const char *path)
{
	struct tg_stream *s = tg_stream_open(path, "r");
	struct tg_reader *r;
	struct tg_rec rec;
	struct cur c;
	char msg[256];
	int rc;

	if (!s) {
		warn("cannot open '%s'", path);
		return -2;
	}
	if (tg_stream_peek(s, msg, TG_CFG_MAGIC_LEN) == TG_CFG_MAGIC_LEN &&
	    tg_cfg_is_magic(msg, TG_CFG_MAGIC_LEN)) {
		rc = read_cfg(run, s);
		tg_stream_close(s);
		return rc;
	}
	if (!(r = tg_reader_open(s, msg, sizeof(msg)))) {
		warnx("%s: %s", tg_stream_name(s), msg);
		tg_stream_close(s);
		return -2;
	}
	stream_begin(&c, run, tg_reader_header(r), tg_reader_header(r)->rank);
	while ((rc = tg_reader_next(r, &rec)) > 0)
		add_rec(&c, tg_reader_header(r), &rec);
	if (rc < 0)
		warnx("%s: %s", tg_stream_name(s), tg_reader_error(r));
	stream_end(&c);
	tg_reader_free(r);
	tg_stream_close(s);
	return rc < 0 ? -1 : 0;
}

/* The smallest clock base of the regular .rec files, so all streams share
 * one time axis (a pipe is read once: it joins with its own). */
static uint64_t common_zero(int n, char **files)
{
	uint64_t zero = UINT64_MAX;
	char msg[256];
	int i;

	for (i = 0; i < n; i++) {
		struct tg_stream *s;
		struct tg_reader *r;
		struct stat st;
		if (strcmp(files[i], "-") == 0 || stat(files[i], &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (!(s = tg_stream_open(files[i], "r")))
			continue;
		if ((r = tg_reader_open(s, msg, sizeof(msg)))) {
			if (tg_reader_header(r)->clock_base < zero)
				zero = tg_reader_header(r)->clock_base;
			(void)tg_runs_note(&runs, tg_reader_header(r));
			tg_reader_free(r);
		}
		tg_stream_close(s);
	}
	return zero;
}

static void run_release(struct rp_run *run)
{
	size_t i;

	for (i = 0; i < run->nfiles; i++) {
		free(run->files[i].path);
		free(run->files[i].cnt[0]);
		free(run->files[i].cnt[1]);
		free(run->files[i].rsum[0]);
		free(run->files[i].rsum[1]);
		free(run->files[i].sp[0]);
		free(run->files[i].sp[1]);
	}
	for (i = 0; i < run->nhosts; i++)
		free(run->hosts[i]);
	for (i = 0; i < run->ncfiles; i++)
		free(run->cfiles[i].path);
	free(run->files);
	free(run->fhash);
	free(run->hosts);
	free(run->ranks);
	free(run->funcs);
	free(run->program);
	free(run->cfiles);
	free(run->recommended);
	free(run->ordered_by);
}

/* Write the report to @path ("-": standard output); exits 2 if it cannot.
 * A regular file left half-written is removed; anything else (a device, a
 * fifo) is never unlinked. */
static void write_report(const struct rp_run *run, const char *path)
{
	FILE *out = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	struct stat st;
	int reg, e;

	if (!out)
		err(TG_EXIT_ERROR, "cannot open '%s'", path);
	reg = out != stdout && fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode);
	errno = 0;
	rp_html_write(out, run);
	if (out == stdout) {
		tg_close_stdout();
		return;
	}
	/* the error of a write that failed while the report was written
	 * (its buffer may be empty now, and fflush succeed) */
	e = ferror(out) ? errno : 0;
	errno = 0;
	if (fflush(out) != 0 || ferror(out)) {
		e = errno ? errno : e ? e : EIO;
		fclose(out);
	} else if (fclose(out) != 0) {
		e = errno ? errno : EIO;
	} else {
		return;
	}
	if (reg)
		unlink(path);
	errno = e;
	err(TG_EXIT_ERROR, "cannot write '%s'", path);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "conflicts", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	static struct rp_run run;
	const char *conf = NULL, *outpath = "-";
	char *dash[] = { "-" }, msg[512];
	int c, i, nread = 0, status = TG_EXIT_OK;

	while ((c = getopt_long(argc, argv, "c:ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			conf = optarg;
			break;
		case 'h':
			usage(TG_EXIT_OK);
			break;
		case 'o':
			outpath = optarg;
			break;
		default:
			usage(TG_EXIT_ERROR);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		argc = 1;
		argv = dash;
	}
	run.bin = 1024;
	run.nfuncs = tg_call_idmax();
	if (!(run.funcs = calloc(run.nfuncs, sizeof(*run.funcs))))
		err(TG_EXIT_ERROR, "out of memory");
	if (conf && rp_conf_read(&run, conf, msg, sizeof(msg)) < 0)
		errx(TG_EXIT_ERROR, "%s", msg);
	run.zero = common_zero(argc, argv);
	for (i = 0; i < argc; i++) {
		int rc = read_input(&run, argv[i]);
		if (rc < 0) {
			status = TG_EXIT_ERROR;
			run.damaged = 1;
		}
		nread += rc != -2;
	}
	/* no page of nothing: when no input could be read at all */
	if (nread)
		write_report(&run, outpath);
	run_release(&run);
	return status;
}
