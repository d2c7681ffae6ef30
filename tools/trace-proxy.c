/*
 * trace-proxy - a C program that replays the POSIX, stdio, MPI, MPI-IO and HDF5
 * calls of a compressed trace, shaped like its grammar (seed 004 §3.5):
 * each rule a function, each repetition a loop, each stream's start rule
 * called by the ranks that ran it, each signature one call whose values
 * are fitted by proxyfit.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../libcommon/cfg.h"
#include "../libcommon/cfggram.h"
#include "../libcommon/h5names.h"
#include "../libcommon/names.h"
#include "proxy.h"
#include "../libcommon/stream.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "../libcommon/banned.h"

#define USAGE "usage: trace-proxy [-h] [--sleep] [-o proxy.c] [file]"

extern const char tg_proxy_rt[];

static void usage(FILE *f, int status)
{
	fprintf(f, "%s\n", USAGE);
	exit(status);
}

/* ---- which calls a proxy makes ------------------------------------------ */

static const char *const posix_ok[] = {
	"open", "open64", "openat", "openat64", "creat", "creat64", "close", "read", "write",
	"pread", "pread64", "pwrite", "pwrite64", "readv", "writev", "preadv", "preadv64",
	"pwritev", "pwritev64", "lseek", "lseek64", "fsync", "fdatasync", "ftruncate",
	"ftruncate64", "truncate", "truncate64", "stat", "stat64", "lstat", "lstat64", "fstat",
	"fstat64", "fstatat", "fstatat64", "access", "faccessat", "unlink", "unlinkat",
	"rename", "mkdir", "mkdirat", "rmdir", "fopen", "fopen64", "fclose", "fread", "fwrite",
	"fseek", "fseeko", "fseeko64", "ftell", "ftello", "ftello64", "rewind", "fflush",
	"remove", "dup", "dup2", "dup3", "fgetc", "getc", "fputc", "putc", "ungetc", "fgets",
	"fallocate", "posix_fallocate", "link", "symlink",
	/* replayed as the fwrite or fread of the bytes they moved, or
	 * without the program's buffer (proxyemit.c, emit_as) */
	"fprintf", "vfprintf", "fputs", "getline", "getdelim", "fscanf", "vfscanf", "setvbuf",
	NULL
};

/* MPI calls a proxy leaves to the skeleton or cannot make. */
static const char *const mpi_not[] = {
	"MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Abort", "MPI_Initialized",
	"MPI_Finalized", "MPI_Pcontrol",
	/* memory, not I/O: the proxy's buffers are its own */
	"MPI_Alloc_mem", "MPI_Free_mem", NULL
};

/* Of those, the calls the main() that emit_main() writes makes itself. */
static const char *const mpi_own[] = {
	"MPI_Init", "MPI_Init_thread", "MPI_Finalize", NULL
};

static int in_list(const char *n, const char *const *l)
{
	for (; *l; l++)
		if (strcmp(n, *l) == 0)
			return 1;
	return 0;
}

/* HDF5 calls that run the program's code (callbacks) or hand back
 * memory only the program knows how to use. */
static const char *const h5_not[] = {
	"H5Giterate", "H5Diterate", "H5Aiterate2", "H5Aiterate_by_name", "H5Literate",
	"H5Literate_by_name", "H5Lvisit", "H5Lvisit_by_name", "H5Ovisit", "H5Ovisit1",
	"H5Ovisit2", "H5Ovisit_by_name", "H5Ovisit_by_name2", "H5Dvlen_reclaim",
	"H5Fget_vfd_handle", NULL
};

/* Can the proxy replay calls of @d? */
static int replayable(const struct tg_calldesc *d)
{
	int i;

	if (d->layer == TG_LAYER_POSIX || d->layer == TG_LAYER_STDIO)
		return in_list(d->name, posix_ok);
	if (d->layer == TG_LAYER_HDF5)
		return !in_list(d->name, h5_not);
	if (d->layer != TG_LAYER_MPI && d->layer != TG_LAYER_MPIIO)
		return 0;
	if (in_list(d->name, mpi_not) || strstr(d->name, "keyval") || strstr(d->name, "_create_errhandler") ||
	    strstr(d->name, "Op_create") || strstr(d->name, "Grequest") || strstr(d->name, "spawn") ||
	    strstr(d->name, "datarep") || strstr(d->name, "attr") || strstr(d->name, "Attr"))
		return 0;
	for (i = 0; i < d->nargs; i++) {
		int k = d->args[i].kind;
		if (k == TG_K_HID || k == TG_K_HSIZEARR || k == TG_K_DIR)
			return 0;
		if (k == TG_K_INTARR && strlen(d->name) > 2 &&
		    strcmp(d->name + strlen(d->name) - 2, "_c") == 0)
			return 0;
	}
	return 1;
}

/* ---- collecting the values of each signature ------------------------- */

struct lastoff {
	int64_t key, off;
};

struct walk {
	struct gen g;
	struct term *t;
	size_t nt;
	int mpi;
	const char *cwd;
	struct lastoff *lo;	/* per stream, while walking it */
	size_t nlo, caplo;
	uint64_t lastend;	/* end of the stream's last call at depth 0 */
	struct { int64_t id; size_t def; } *pend;	/* #info before the next call */
	size_t npend;
	int64_t *made;		/* infos a replayed call of the stream made */
	size_t nmade;
	/* threads other than 0, of the stream being walked */
	uint64_t from, to;	/* the seqs of their calls replayed: after the
				 * main thread's first call after MPI_Init,
				 * before its MPI_Finalize */
	unsigned *tids;		/* those replayed, and how many */
	size_t ntids;
	struct { uint64_t seq; unsigned tid; } *order;	/* the stream's replayed
							 * calls, then sorted */
	size_t norder, caporder;
	/* for each stream: the replayed threads, and runs of (thread, calls)
	 * in the order the calls started */
	unsigned **stids, **sruns;
	size_t *nstids, *nsruns;
	int level;		/* MPI_Init_thread's required level, -1 if none */
	size_t nworld_files, nworld_dirs;	/* made before the replay */
	int threadmpi;		/* a thread other than 0 makes MPI calls */
};

/* The number (from 1) of MPI_Info contents @kv (@n pairs) in g->infos. */
static size_t info_def(struct gen *g, const char **kv, int64_t n)
{
	size_t k;
	int64_t j;

	for (k = 1; k <= g->ninfos; k++) {
		char **d = g->infos[k - 1];
		for (j = 0; j < 2 * n && d[j] && !strcmp(d[j], kv[j] ? kv[j] : ""); j++)
			;
		if (j == 2 * n && !d[j])
			return k;
	}
	g->infos = tg_xrealloc(g->infos, (g->ninfos + 1) * sizeof(*g->infos));
	g->infos[g->ninfos] = tg_xrealloc(NULL, (size_t)(2 * n + 1) * sizeof(char *));
	for (j = 0; j < 2 * n; j++)
		g->infos[g->ninfos][j] = tg_xstrdup(kv[j] ? kv[j] : "");
	g->infos[g->ninfos][2 * n] = NULL;
	return ++g->ninfos;
}

/* What to make the infos call @r gives with: an info the trace defines
 * (#info, TANGRAM_INFO=1) that no replayed call of the stream made (say
 * the MPI layer was not traced) is made from its recorded contents. */
static void info_args(struct walk *w, const struct tg_calldesc *d, const struct tg_rec *r,
		      struct pv *p)
{
	size_t j, m;
	int i;

	for (i = 0; i < d->nargs && i < TG_MAX_ARGS; i++) {
		if (d->args[i].kind != TG_K_MPIH || d->args[i].sub != TG_H_INFO)
			continue;
		if (d->args[i].dir != TG_IN) {
			w->made = tg_xrealloc(w->made, (w->nmade + 1) * sizeof(*w->made));
			w->made[w->nmade++] = r->args[i].i;
			continue;
		}
		for (m = 0; m < w->nmade && w->made[m] != r->args[i].i; m++)
			;
		for (j = 0; m == w->nmade && j < w->npend; j++)
			if (w->pend[j].id == r->args[i].i)
				p[i + 1].u = (int64_t)w->pend[j].def;
	}
}

static int offset_arg(const struct tg_calldesc *d, int i)
{
	const struct tg_argdesc *a = &d->args[i];

	return a->kind == TG_K_SIGNED_OFF ||
	       (a->kind == TG_K_INT && d->layer == TG_LAYER_MPIIO && strcmp(a->name, "offset") == 0);
}

/* The argument that names the handle whose offsets a call moves, or -1. */
static int handle_arg(const struct tg_calldesc *d)
{
	int i;

	for (i = 0; i < d->nargs; i++) {
		const struct tg_argdesc *a = &d->args[i];
		if (a->kind == TG_K_FD || a->kind == TG_K_STREAM ||
		    (a->kind == TG_K_MPIH && a->sub == TG_H_FILE))
			return i;
	}
	return -1;
}

static int64_t *last_offset(struct walk *w, int64_t key)
{
	size_t i;

	for (i = 0; i < w->nlo; i++)
		if (w->lo[i].key == key)
			return &w->lo[i].off;
	if (w->nlo == w->caplo) {
		w->caplo = w->caplo ? 2 * w->caplo : 16;
		w->lo = tg_xrealloc(w->lo, w->caplo * sizeof(*w->lo));
	}
	w->lo[w->nlo].key = key;
	w->lo[w->nlo].off = 0;
	return &w->lo[w->nlo++].off;
}

static void copy_val(struct pv *p, const struct tg_argdesc *a, const struct tg_val *v)
{
	p->i = v->i;
	p->u = (int64_t)v->u;
	p->present = v->present;
	if ((a->kind == TG_K_STR || a->kind == TG_K_PATH) && v->s)
		p->s = tg_xstrdup(v->s);
	if ((a->kind == TG_K_IOV || a->kind == TG_K_INTARR || a->kind == TG_K_MPIHARR ||
	     a->kind == TG_K_MPISTATUSES || a->kind == TG_K_HSIZEARR) && v->i > 0 && v->arr) {
		size_t n = (size_t)v->i * (a->kind == TG_K_MPISTATUSES ? 2 : 1);
		p->arr = tg_xrealloc(NULL, n * sizeof(int64_t));
		memcpy(p->arr, v->arr, n * sizeof(int64_t));
	}
	if (a->kind == TG_K_MPIHARR || a->kind == TG_K_MPISTATUSES || a->kind == TG_K_IOV ||
	    a->kind == TG_K_INTARR)
		p->present = 1;
}

/* Note which of HDF5's predefined identifiers call @r names, as the
 * proxy's table of them holds only those (not every one is in every
 * version of the headers). */
static void h5_mark(struct gen *g, const struct tg_calldesc *d, const struct tg_rec *r)
{
	int i;

	g->h5 = 1;
	if (!g->h5pre && !(g->h5pre = calloc(tg_h5_npredef + 1, 1)))
		abort();
	for (i = -1; i < d->nargs; i++) {
		int k = i < 0 ? d->retkind : d->args[i].kind;
		uint64_t e = (uint64_t)(i < 0 ? r->ret : r->args[i].i);
		if (k == TG_K_HID && (e & 1) && (e >> 1) > 0 && (e >> 1) < tg_h5_npredef)
			g->h5pre[e >> 1] = 1;
	}
}

/* Note MPI's predefined handle @e (the trace's word: value << 1 | 1) of
 * handle kind @kind, which the proxy names by its macro. */
static void mpi_mark(struct gen *g, int kind, int64_t e)
{
	uint64_t k;
	size_t i;

	if (!(e & 1) || e < 0 || kind <= TG_H_NONE || kind >= TG_H_COUNT)
		return;
	k = (uint64_t)kind << 32 | (uint32_t)((uint64_t)e >> 1);
	for (i = 0; i < g->nmpipre; i++)
		if (g->mpipre[i] == k)
			return;
	g->mpipre = tg_xrealloc(g->mpipre, (g->nmpipre + 1) * sizeof(*g->mpipre));
	g->mpipre[g->nmpipre++] = k;
}

static void collect(struct walk *w, size_t s, size_t ti, const struct tg_rec *r)
{
	struct term *t = &w->t[ti];
	const struct tg_calldesc *d = r->call;
	struct occs *o;
	struct pv *p;
	int i, h;

	if (!t->d) {
		t->d = d;
		t->nslots = (size_t)d->nargs + 1;
		t->per = calloc(w->g.nst, sizeof(*t->per));
		if (!t->per)
			abort();
	}
	if (d->layer == TG_LAYER_MPI || d->layer == TG_LAYER_MPIIO)
		w->mpi = 1;
	t->use = replayable(d) ? 1 : in_list(d->name, mpi_own) ? 3 : 2;
	if (t->use != 1)
		return;
	t->tid = r->tid;
	if (w->ntids) {		/* threads: the order their calls started in */
		if (w->norder == w->caporder) {
			w->caporder = w->caporder ? 2 * w->caporder : 256;
			w->order = tg_xrealloc(w->order, w->caporder * sizeof(*w->order));
		}
		w->order[w->norder].seq = r->seq;
		w->order[w->norder++].tid = r->tid;
		if (r->tid && (d->layer == TG_LAYER_MPI || d->layer == TG_LAYER_MPIIO))
			w->threadmpi = 1;
	}
	if (d->layer == TG_LAYER_HDF5)
		h5_mark(&w->g, d, r);
	o = &t->per[s];
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 4;
		o->v = tg_xrealloc(o->v, o->cap * t->nslots * sizeof(*o->v));
	}
	p = &o->v[o->n++ * t->nslots];
	memset(p, 0, t->nslots * sizeof(*p));
	p[0].i = r->ret;
	/* the compute time before the call, to the microsecond */
	p[0].u = r->tstart > w->lastend ? (int64_t)((r->tstart - w->lastend + 500) / 1000) : 0;
	h = handle_arg(d);
	for (i = 0; i < d->nargs; i++) {
		const struct tg_argdesc *a = &d->args[i];
		if (a->kind == TG_K_MPIH)
			mpi_mark(&w->g, a->sub, r->args[i].i);
		if (a->kind == TG_K_MPIHARR && r->args[i].arr)
			for (int64_t j = 0; j < r->args[i].i; j++)
				mpi_mark(&w->g, a->sub, r->args[i].arr[j]);
		copy_val(&p[i + 1], &d->args[i], &r->args[i]);
		if (offset_arg(d, i)) {
			/* the decoding state, as the proxy will keep it */
			int64_t *lo = last_offset(w, h < 0 ? -1 :
						  (int64_t)d->args[h].kind << 40 | r->args[h].i);
			p[i + 1].prev = *lo;
			*lo = r->args[i].i;
		}
	}
	if (d->layer == TG_LAYER_MPI || d->layer == TG_LAYER_MPIIO || d->layer == TG_LAYER_HDF5)
		info_args(w, d, r, p);
}

/* Is call @r a look at a file's size or name made inside a library the
 * tracer does not see (HDF5 linked into the program: depth > 0 and no
 * parent)?  It moves no bytes and orders nothing; replayed, it would be
 * the proxy's own look (HDF5's MPI_File_get_size in H5Fclose made the
 * proxy posix where the program is session): not replayed. */
static int inside_look(const struct tg_rec *r)
{
	const struct tg_calldesc *d = r->call;
	unsigned i;

	if (r->depth == 0 || r->parent >= 0 || !d->nio)
		return 0;
	for (i = 0; i < d->nio; i++)
		if (d->io[i].op != TG_IO_SIZE && d->io[i].op != TG_IO_LOOK)
			return 0;
	return 1;
}

/* Does call @r show its thread to be the program's: an MPI, MPI-IO or HDF5
 * call, or one that names a file or a stream?  An MPI library's progress
 * thread or UCX's only polls and reads descriptors it made itself. */
static int program_call(const struct tg_rec *r)
{
	const struct tg_calldesc *d = r->call;
	int i;

	if (d->layer == TG_LAYER_MPI || d->layer == TG_LAYER_MPIIO || d->layer == TG_LAYER_HDF5)
		return 1;
	for (i = 0; i < d->nargs; i++)
		if (d->args[i].kind == TG_K_PATH || d->args[i].kind == TG_K_STREAM)
			return 1;
	return d->retkind == TG_K_STREAM;
}

/*
 * The threads of stream @s other than the main one whose calls are
 * replayed, in w->tids: those of the program, which made a call of their
 * own (program_call) while the main thread was between MPI_Init and
 * MPI_Finalize (by seq, as the records of a thread come together), or at
 * any time in a process without MPI.  Their calls in that span are
 * replayed, each thread on a thread of the proxy's.
 */
static int find_threads(struct walk *w, const struct tg_cfg *c, size_t s, char *err,
			size_t errlen)
{
	struct tg_cfg_cursor *k = tg_cfg_cursor_open(c, s, err, errlen);
	struct tg_rec r;
	int rc, init = 0;
	size_t i, j;

	if (!k)
		return -1;
	w->from = 0;
	w->to = UINT64_MAX;
	w->ntids = 0;
	w->norder = 0;	/* (the other threads' own calls, kept here for now) */
	while ((rc = tg_cfg_cursor_next(k, &r)) > 0) {
		if (r.type != TG_REC_CALL || !tg_rec_top(&r))
			continue;
		if (r.tid != 0) {
			if (!program_call(&r))
				continue;
			if (w->norder == w->caporder) {
				w->caporder = w->caporder ? 2 * w->caporder : 256;
				w->order = tg_xrealloc(w->order, w->caporder * sizeof(*w->order));
			}
			w->order[w->norder].seq = r.seq;
			w->order[w->norder++].tid = r.tid;
			continue;
		}
		if (init == 1) {
			w->from = r.seq;
			init = 2;
		}
		if ((!strcmp(r.call->name, "MPI_Init") || !strcmp(r.call->name, "MPI_Init_thread")) &&
		    !init) {
			init = 1;
			w->to = UINT64_MAX;
			for (i = 0; i < (size_t)r.call->nargs; i++)
				if (!strcmp(r.call->args[i].name, "required") && r.args[i].i > w->level)
					w->level = (int)r.args[i].i;
		}
		if (!strcmp(r.call->name, "MPI_Finalize"))
			w->to = r.seq;
	}
	if (rc < 0)
		snprintf(err, errlen, "%s", tg_cfg_cursor_error(k));
	tg_cfg_cursor_free(k);
	for (j = 0; rc >= 0 && j < w->norder; j++) {
		if (w->order[j].seq <= w->from || w->order[j].seq >= w->to)
			continue;
		for (i = 0; i < w->ntids && w->tids[i] != w->order[j].tid; i++)
			;
		if (i == w->ntids && w->ntids < 64) {
			w->tids = tg_xrealloc(w->tids, (w->ntids + 1) * sizeof(*w->tids));
			w->tids[w->ntids++] = w->order[j].tid;
		}
	}
	w->norder = 0;
	return rc < 0 ? -1 : 0;
}

static int cmp_order(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* Keep stream @s's replayed threads and the order of its calls' starts,
 * as runs of (thread, calls). */
static void keep_order(struct walk *w, size_t s)
{
	size_t i, n = 0;
	unsigned *runs;

	w->stids[s] = w->ntids ? tg_xrealloc(NULL, w->ntids * sizeof(unsigned)) : NULL;
	if (w->ntids)
		memcpy(w->stids[s], w->tids, w->ntids * sizeof(unsigned));
	w->nstids[s] = w->ntids;
	if (!w->ntids || !w->norder)
		return;
	qsort(w->order, w->norder, sizeof(*w->order), cmp_order);
	runs = tg_xrealloc(NULL, 2 * w->norder * sizeof(*runs));
	for (i = 0; i < w->norder; i++) {
		if (n && runs[2 * n - 2] == w->order[i].tid) {
			runs[2 * n - 1]++;
			continue;
		}
		runs[2 * n] = w->order[i].tid;
		runs[2 * n++ + 1] = 1;
	}
	w->sruns[s] = runs;
	w->nsruns[s] = n;
	w->norder = 0;
}

/* Decode stream @s and follow its grammar alongside: the cursor gives the
 * records, the walk which signature each came from. */
static int walk_stream(struct walk *w, const struct tg_cfg *c, size_t s, char *err, size_t errlen)
{
	struct { const struct tg_sym *b; size_t pos, n; uint32_t left; } stk[64];
	struct tg_cfg_cursor *k = tg_cfg_cursor_open(c, s, err, errlen);
	struct tg_rec r;
	size_t nstk = 1, n;
	int rc = 0, inmpi = tg_cfg_stream(c, s)->rank < 0 ? -1 : 0;

	if (!k)
		return -1;
	if (find_threads(w, c, s, err, errlen) < 0) {
		tg_cfg_cursor_free(k);
		return -1;
	}
	w->norder = 0;
	w->nlo = 0;
	w->npend = w->nmade = 0;
	w->lastend = UINT64_MAX;	/* no compute time before the first call */
	stk[0].b = tg_cfg_rule_body(c, tg_cfg_stream_rule(c, s), &n);
	stk[0].pos = 0, stk[0].n = n, stk[0].left = 0;
	while ((rc = tg_cfg_cursor_next(k, &r)) > 0) {
		uint32_t sym = 0;
		while (nstk) {
			typeof(stk[0]) *f = &stk[nstk - 1];
			if (!f->left) {
				if (f->pos == f->n) {
					nstk--;
					continue;
				}
				f->left = f->b[f->pos].exp;
			}
			sym = f->b[f->pos].sym;
			if (--f->left == 0)
				f->pos++;
			if (!(sym & 1))
				break;
			if (nstk == 64) {
				snprintf(err, errlen, "grammar nested too deeply");
				rc = -2;
				goto out;
			}
			f = &stk[nstk++];
			f->b = tg_cfg_rule_body(c, sym >> 1, &n);
			f->pos = 0, f->n = n, f->left = 0;
		}
		if (!nstk || (sym >> 1) >= w->nt) {
			snprintf(err, errlen, "corrupt trace: stream %zu outruns its grammar", s);
			rc = -2;
			goto out;
		}
		if (r.type == TG_REC_INFO && r.args[1].i >= 0) {
			w->pend = tg_xrealloc(w->pend, (w->npend + 1) * sizeof(*w->pend));
			w->pend[w->npend].id = r.args[0].i;
			w->pend[w->npend++].def = info_def(&w->g, r.kv, r.args[1].i);
		}
		/* the rank is known at MPI_Init's end, also when the MPI layer
		 * is not traced */
		if (r.type == TG_REC_RANK && inmpi == 0)
			inmpi = 1;
		if (r.type != TG_REC_CALL || !tg_rec_top(&r) || inside_look(&r))
			continue;
		if (r.tid != 0) {
			/* another thread's: the program's, in the span */
			for (n = 0; n < w->ntids && w->tids[n] != r.tid; n++)
				;
			if (n < w->ntids && r.seq > w->from && r.seq < w->to) {
				uint64_t last = w->lastend;
				w->lastend = UINT64_MAX;	/* (no compute time: --sleep
								 * keeps the main thread's) */
				collect(w, s, sym >> 1, &r);
				w->lastend = last;
			}
			continue;
		}
		/* an MPI process's calls before MPI_Init and after MPI_Finalize
		 * are the library's set-up and tear-down */
		if (!strncmp(r.call->name, "MPI_Init", 8))
			inmpi = 1;
		if (inmpi != 0)
			collect(w, s, sym >> 1, &r);
		w->npend = 0;
		if (!strcmp(r.call->name, "MPI_Finalize"))
			inmpi = 0;
		w->lastend = r.tstart + r.dur;
	}
	if (rc < 0)
		snprintf(err, errlen, "%s", tg_cfg_cursor_error(k));
	else
		keep_order(w, s);
out:
	tg_cfg_cursor_free(k);
	return rc < 0 ? -1 : 0;
}

/* ---- the code ------------------------------------------------------------- */

void proxy_emit_term(struct gen *g, struct term *t, unsigned ti, struct sb *out);
void proxy_emit_rt(FILE *f, const char *rt, struct sb *used);

/* Does rule @r (or signature, @sig) lead to a replayed call?  live[] is
 * filled for rules in order, as rules name only rules below them. */
static void liveness(const struct tg_cfg *c, const struct walk *w, char *live)
{
	size_t r, n, j;

	for (r = 0; r < tg_cfg_nrules(c); r++) {
		const struct tg_sym *b = tg_cfg_rule_body(c, r, &n);
		live[r] = 0;
		for (j = 0; j < n && !live[r]; j++) {
			uint32_t v = b[j].sym >> 1;
			live[r] = (b[j].sym & 1) ? live[v] : (v < w->nt && w->t[v].use == 1);
		}
	}
}

/* The names in the code: rules and signatures numbered from 1 by their
 * first use, walking the streams' grammars in order (so that traces of
 * runs that differ only in repetition counts get the same numbers), and
 * a rule whose body is that of one before it named as that one. */
struct names {
	const struct tg_cfg *c;
	struct walk *w;
	const char *live;
	uint32_t *canon;	/* a signature merged into another: that one */
	unsigned *r, *s;	/* the names, 0 before the first use */
	unsigned nr, ns;
	char **body;		/* of rule named k, body[k - 1] */
	char **sbody;		/* of signature named k, sbody[k - 1] */
	struct sb *out, *sigs;	/* the rules' code, the signatures' */
};

/* Name signature @v at its first use, writing its function, or name it as
 * one before it whose function would do the same. */
static void name_sig(struct names *nm, uint32_t v)
{
	size_t decl = nm->w->g.decl.n;
	unsigned ntab = nm->w->g.ntab, k;
	struct sb x = { 0 };
	const char *b;

	proxy_emit_term(&nm->w->g, &nm->w->t[v], nm->ns + 1, &x);
	b = strchr(x.s, '{');
	for (k = 0; k < nm->ns && strcmp(nm->sbody[k], b); k++)
		;
	if (k < nm->ns) {
		nm->w->g.decl.n = decl;
		nm->w->g.ntab = ntab;
	} else {
		nm->sbody = tg_xrealloc(nm->sbody, (nm->ns + 1) * sizeof(*nm->sbody));
		nm->sbody[nm->ns++] = tg_xstrdup(b);
		sb_printf(nm->sigs, "%s", x.s);
	}
	nm->s[v] = k + 1;
	sb_release(&x);
}

static void name_rule(struct names *nm, size_t r)
{
	struct sb b = { 0 };
	size_t n, j;
	const struct tg_sym *sy = tg_cfg_rule_body(nm->c, r, &n);
	unsigned k;
	int open = 0;

	for (j = 0; j < n; j++) {
		uint32_t v = sy[j].sym >> 1;
		int rule = sy[j].sym & 1;
		if (rule ? !nm->live[v] : nm->w->t[v].use != 1)
			continue;
		if (rule && !nm->r[v])
			name_rule(nm, v);
		if (!rule && !nm->s[v = nm->canon[v]])
			name_sig(nm, v);
		/* calls one after the other on a line, loops on lines of their own */
		if (sy[j].exp > 1)
			sb_printf(&b, "%s\tfor (int i = 0; i < %u; i++)\n\t\t", open ? "\n" : "",
				  sy[j].exp);
		else
			sb_printf(&b, open ? " " : "\t");
		sb_printf(&b, "%c%u();%s", rule ? 'r' : 's', rule ? nm->r[v] : nm->s[v],
			  sy[j].exp > 1 ? "\n" : "");
		open = sy[j].exp == 1;
	}
	if (open)
		sb_printf(&b, "\n");
	for (k = 0; k < nm->nr && strcmp(nm->body[k], b.s ? b.s : ""); k++)
		;
	if (k == nm->nr) {
		nm->body = tg_xrealloc(nm->body, (nm->nr + 1) * sizeof(*nm->body));
		nm->body[nm->nr++] = tg_xstrdup(b.s ? b.s : "");
		if (!b.s || !strstr(b.s, "\tfor ("))
			sb_printf(nm->out, "static void r%u(void) { %.*s }\n", nm->nr,
				  b.n ? (int)b.n - 2 : 0, b.n ? b.s + 1 : "");
		else
			sb_printf(nm->out, "\nstatic void r%u(void)\n{\n%s}\n", nm->nr, b.s);
	}
	nm->r[r] = k + 1;
	sb_release(&b);
}

static void emit_main(const struct tg_cfg *c, const struct walk *w, const char *live,
		      const unsigned *rname, struct sb *out)
{
	size_t s, s2;
	char *done = calloc(w->g.nst + 1, 1);

	static const char *const levels[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
					      "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
	int level = w->threadmpi ? 3 : w->level;
	size_t k;

	sb_printf(out, "\nstatic const long long tg_ranks[] = {");
	for (s = 0; s < w->g.nst; s++)
		sb_printf(out, "%s%" PRId64, s ? ", " : "", w->g.rank[s]);
	sb_printf(out, "};\n");
	if (w->g.threads) {
		/* each stream's threads, and the order their calls started in */
		for (s = 0; s < w->g.nst; s++) {
			if (!w->nstids[s])
				continue;
			sb_printf(out, "static const unsigned tg_tids%zu[] = {", s);
			for (k = 0; k < w->nstids[s]; k++)
				sb_printf(out, "%s%u", k ? ", " : "", w->stids[s][k]);
			sb_printf(out, "};\nstatic const unsigned tg_runs%zu[] = {", s);
			for (k = 0; k < 2 * w->nsruns[s]; k++)
				sb_printf(out, "%s%u", k ? ", " : "", w->sruns[s][k]);
			sb_printf(out, "%s};\n", w->nsruns[s] ? "" : "0");
		}
		sb_printf(out, "static const unsigned *const tg_stids[] = {");
		for (s = 0; s < w->g.nst; s++)
			sb_printf(out, w->nstids[s] ? "%stg_tids%zu" : "%sNULL", s ? ", " : "", s);
		sb_printf(out, "};\nstatic const int tg_nstids[] = {");
		for (s = 0; s < w->g.nst; s++)
			sb_printf(out, "%s%zu", s ? ", " : "", w->nstids[s]);
		sb_printf(out, "};\nstatic const unsigned *const tg_sruns[] = {");
		for (s = 0; s < w->g.nst; s++)
			sb_printf(out, w->nstids[s] ? "%stg_runs%zu" : "%sNULL", s ? ", " : "", s);
		sb_printf(out, "};\nstatic const size_t tg_nsruns[] = {");
		for (s = 0; s < w->g.nst; s++)
			sb_printf(out, "%s%zu", s ? ", " : "", w->nsruns[s]);
		sb_printf(out, "};\n");
	}
	sb_printf(out, "\nint main(int argc, char **argv)\n{\n\tint c;\n\n");
	sb_printf(out, "\twhile ((c = getopt(argc, argv, \"d:\")) != -1)\n"
		       "\t\tif (c == 'd')\n\t\t\ttg_setdir(optarg);\n\t\telse\n\t\t\treturn 2;\n");
	/* the traced program's working directory is dir: its relative
	 * paths (an MPI-IO or HDF5 file name as the program gave it) land
	 * there, as its absolute ones under it do through tg_path */
	sb_printf(out, "\tif (tg_dir[0] != '/')\n\t\ttg_setdir(tg_dir);\n"
		       "\tif (syscall(SYS_chdir, tg_dir) != 0) {\n\t\tperror(tg_dir);\n\t\treturn 2;\n\t}\n"
		       "\ttg_cwd = ");
	sb_cstr(out, w->cwd);
	sb_printf(out, ";\n");
	if (w->nworld_files || w->nworld_dirs)
		sb_printf(out, "\ttg_prepare(tg_world_dirs, tg_world_files, tg_world_sizes);\n");
	if (w->mpi && level >= 0 && level <= 3)	/* the level the program asked for */
		sb_printf(out, "\t{ int p; MPI_Init_thread(&argc, &argv, %s, &p); }\n", levels[level]);
	else if (w->mpi)
		sb_printf(out, "\tMPI_Init(&argc, &argv);\n");
	if (w->mpi)
		sb_printf(out, "\t{ int r; PMPI_Comm_rank(MPI_COMM_WORLD, &r); tg_rank = r;\n"
			       "\t  PMPI_Comm_size(MPI_COMM_WORLD, &tg_world); }\n"
			       "\tPMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);\n");
	else
		sb_printf(out, "\ttg_rank = tg_ranks[0];\n");
	sb_printf(out, "\tfor (tg_idx = 0; tg_idx < %zu && tg_ranks[tg_idx] != tg_rank; tg_idx++)\n"
		       "\t\t;\n\ttg_need(4096);\n\tswitch (tg_idx) {\n", w->g.nst);
	for (s = 0; s < w->g.nst; s++) {
		uint32_t r = tg_cfg_stream_rule(c, s);
		if (done[s])
			continue;
		for (s2 = s; s2 < w->g.nst; s2++)
			if (!done[s2] && tg_cfg_stream_rule(c, s2) == r) {
				sb_printf(out, "\tcase %zu:\n", s2);
				done[s2] = 1;
			}
		if (live[r] && w->g.threads)
			sb_printf(out, "\t\ttg_replay(r%u, tg_sruns[tg_idx], tg_nsruns[tg_idx], "
				  "tg_stids[tg_idx], tg_nstids[tg_idx]);\n", rname[r]);
		else if (live[r])
			sb_printf(out, "\t\tr%u();\n", rname[r]);
		sb_printf(out, "\t\tbreak;\n");
	}
	sb_printf(out, "\tdefault:\n\t\tfprintf(stderr, \"proxy: no stream of the trace for rank %%lld\\n\", tg_rank);\n");
	if (w->mpi)
		sb_printf(out, "\t\tMPI_Abort(MPI_COMM_WORLD, 2);\n");
	sb_printf(out, "\t\treturn 2;\n\t}\n");
	if (w->mpi)
		sb_printf(out, "\tMPI_Finalize();\n");
	sb_printf(out, "\treturn 0;\n}\n");
	free(done);
}

/* HDF5's predefined identifiers the trace names, by their numbers in
 * the trace: the headers' macros, valid once the library is open. */
static void emit_h5pre(const struct gen *g, FILE *f)
{
	unsigned n;

	fprintf(f, "\nstatic hid_t tg_h5pre(long long n)\n{\n\tswitch (n) {\n");
	for (n = 1; n < tg_h5_npredef; n++)
		if (g->h5pre && g->h5pre[n])
			fprintf(f, "\tcase %u:\n\t\treturn %s;\n", n, tg_h5_predef_name(n));
	fprintf(f, "\t}\n\treturn H5I_INVALID_HID;\n}\n");
}

/*
 * MPI's predefined handles the trace names, by the values MPICH gives them
 * (the tracer records Open MPI's by MPICH's numbers too): their macros,
 * so that the proxy builds against either MPI.  One function for each kind
 * of handle the run-time support keeps (the TG_HANDLES it took); a value
 * without a name, or a name the MPI at hand lacks, is MPICH's number
 * under MPICH and the null handle elsewhere.
 */
static void emit_mpipre(const struct gen *g, const char *rt_used, FILE *f)
{
	static const char *const kinds[][3] = {
		{ "comm", "MPI_Comm", "MPI_COMM_NULL" }, { "group", "MPI_Group", "MPI_GROUP_NULL" },
		{ "dtype", "MPI_Datatype", "MPI_DATATYPE_NULL" },
		{ "req", "MPI_Request", "MPI_REQUEST_NULL" }, { "op", "MPI_Op", "MPI_OP_NULL" },
		{ "info", "MPI_Info", "MPI_INFO_NULL" }, { "file", "MPI_File", "MPI_FILE_NULL" },
		{ "win", "MPI_Win", "MPI_WIN_NULL" },
		{ "errh", "MPI_Errhandler", "MPI_ERRHANDLER_NULL" },
		{ "msg", "MPI_Message", "MPI_MESSAGE_NULL" },
	};
	static const int sub[] = { TG_H_COMM, TG_H_GROUP, TG_H_DTYPE, TG_H_REQ, TG_H_OP,
				   TG_H_INFO, TG_H_FILE, TG_H_WIN, TG_H_ERRH, TG_H_MSG };
	char want[64];
	size_t k, i;

	for (k = 0; k < sizeof(sub) / sizeof(sub[0]); k++) {
		snprintf(want, sizeof(want), "TG_HANDLES(%s,", kinds[k][0]);
		if (!rt_used || !strstr(rt_used, want))
			continue;
		fprintf(f, "\nstatic %s tg_pre_%s(long long v)\n{\n\tswitch (v) {\n", kinds[k][1],
			kinds[k][0]);
		for (i = 0; i < g->nmpipre; i++) {
			uint32_t v = (uint32_t)g->mpipre[i];
			int kind = (int)(g->mpipre[i] >> 32);
			const char *name = tg_mpi_handle_name(kind, v);
			if (kind != sub[k] || !name || strncmp(name, "MPI", 3) != 0)
				continue;
			fprintf(f, "#ifdef %s\n\tcase %" PRIu32 "LL: return %s;\n#endif\n", name, v,
				name);
		}
		fprintf(f, "\t}\n#ifdef MPICH\n\treturn (%s)v;\n#else\n\treturn %s;\n#endif\n}\n",
			kinds[k][1], kinds[k][2]);
	}
}

/* ---- what was there before the run ---- */

/* A path a replayed call named: its size (a file's largest stat; -1 a
 * directory), and whether the run made it. */
struct place {
	char *path;	/* absolute */
	int64_t size;
	int how;	/* 0 opened, 1 made (O_CREAT, mkdir...), 2 only named */
};

struct world {
	struct place *p;
	size_t n, cap;
};

static void world_add(struct world *wd, const char *cwd, const char *p, int64_t size, int how)
{
	char *a;

	if (!p || !*p)
		return;
	if (p[0] == '/') {
		a = tg_xstrdup(p);
	} else {
		size_t n = strlen(cwd) + strlen(p) + 2;
		a = tg_xrealloc(NULL, n);
		snprintf(a, n, "%s/%s", cwd, p);
	}
	if (wd->n == wd->cap) {
		wd->cap = wd->cap ? 2 * wd->cap : 64;
		wd->p = tg_xrealloc(wd->p, wd->cap * sizeof(*wd->p));
	}
	wd->p[wd->n++] = (struct place){ a, size, how };
}

static int cmp_place(const void *x, const void *y)
{
	const struct place *a = x, *b = y;
	int c = strcmp(a->path, b->path);

	return c ? c : (a->size > b->size) - (a->size < b->size);
}

/* Is @p a path the proxy keeps as it is (a device, /proc, /sys)? */
static int system_path(const char *p)
{
	return (!strncmp(p, "/dev/", 5) && strncmp(p, "/dev/shm/", 9)) || !strncmp(p, "/proc/", 6) ||
	       !strncmp(p, "/sys/", 5);
}

/* The places that replayed call @t names, into @wd. */
static void world_term(struct walk *w, const struct term *t, struct world *wd)
{
	const struct tg_calldesc *d = t->d;
	int pi = -1, fl = -1, st = -1, md = -1, am = -1, np = -1, i;
	size_t s, k;

	for (i = 0; i < d->nargs; i++) {
		const struct tg_argdesc *a = &d->args[i];
		if (a->pseudo)
			continue;
		if (pi < 0 && (a->kind == TG_K_PATH ||
			       (d->layer == TG_LAYER_MPIIO && !strcmp(a->name, "filename"))))
			pi = i;
		if (!strcmp(a->name, "newpath") || !strcmp(a->name, "linkpath"))
			np = i;
		if (a->kind == TG_K_OFLAGS)
			fl = i;
		if (a->kind == TG_K_STAT)
			st = i;
		if (!strcmp(a->name, "mode") && a->kind == TG_K_STR)
			md = i;
		if (!strcmp(a->name, "amode"))
			am = i;
	}
	if (pi < 0)
		return;
	for (s = 0; s < w->g.nst; s++)
		for (k = 0; k < t->per[s].n; k++) {
			const struct pv *v = &t->per[s].v[k * t->nslots];
			int64_t r = v[0].i;
			int ok = d->retkind == TG_K_FD || d->retkind == TG_K_HID ? r >= 0 :
				 d->retkind == TG_K_STREAM ? r > 0 : r == 0;
			int creat = !strncmp(d->name, "creat", 5) || !strcmp(d->name, "H5Fcreate") ||
				    (fl >= 0 && (v[fl + 1].i & O_CREAT)) ||
				    (md >= 0 && v[md + 1].s && v[md + 1].s[0] &&
				     strchr("wa", v[md + 1].s[0])) ||
				    (am >= 0 && (v[am + 1].i & 1));	/* MPI_MODE_CREATE */
			int opens = d->retkind == TG_K_FD || d->retkind == TG_K_STREAM ||
				    !strcmp(d->name, "MPI_File_open") || !strcmp(d->name, "H5Fopen");
			if (!ok)
				continue;
			if (np >= 0)
				world_add(wd, w->cwd, v[np + 1].s, 0, 1);
			if (!strncmp(d->name, "mkdir", 5))
				world_add(wd, w->cwd, v[pi + 1].s, -1, 1);
			else if (creat)
				world_add(wd, w->cwd, v[pi + 1].s, 0, 1);
			else if (opens && !(fl >= 0 && (v[fl + 1].i & O_DIRECTORY)))
				world_add(wd, w->cwd, v[pi + 1].s, 0, 0);
			else if (st >= 0 && v[st + 1].present && v[st + 1].i >= 0 &&
				 !S_ISDIR((mode_t)v[st + 1].u))
				world_add(wd, w->cwd, v[pi + 1].s, v[st + 1].i, 2);
			else
				world_add(wd, w->cwd, v[pi + 1].s, -2, 2);
		}
}

/*
 * The files and directories the replayed calls found there before the run
 * (tg_world_files with their sizes, tg_world_dirs), into @decl: a file
 * opened by a path no call of the run made (O_CREAT, a "w" or "a" stream,
 * MPI_MODE_CREATE, H5Fcreate, a link), with the largest size a stat of it
 * saw (else empty), and the directories above every path a replayed call
 * named, but those a mkdir of the run made.  The proxy makes them before
 * it starts (tg_prepare), under its directory, as the program found them:
 * the input it read, the directories it wrote in.
 */
static void emit_world(struct walk *w, struct sb *into, size_t *nfiles, size_t *ndirs)
{
	struct world wd = { 0 }, out = { 0 };
	struct sb tabs = { 0 }, *decl = &tabs;
	size_t ti, i, j, n;

	for (ti = 0; ti < w->nt; ti++)
		if (w->t[ti].d && w->t[ti].use == 1)
			world_term(w, &w->t[ti], &wd);
	if (wd.n)
		qsort(wd.p, wd.n, sizeof(*wd.p), cmp_place);
	for (i = 0; i < wd.n; i = j) {
		int64_t size = 0;
		int made = 0, opened = 0, dir = 0;
		char *p = wd.p[i].path, *q;
		for (j = i; j < wd.n && !strcmp(wd.p[j].path, p); j++) {
			made |= wd.p[j].how == 1;
			opened |= wd.p[j].how == 0;
			dir |= wd.p[j].size == -1;
			if (wd.p[j].size > size)
				size = wd.p[j].size;
		}
		if (opened && !made && !dir && !system_path(p))
			world_add(&out, "/", p, size, 0);
		if (dir && made)
			world_add(&out, "/", p, -1, 1);	/* a mkdir made it */
		p = tg_xstrdup(p);
		for (q = strrchr(p, '/'); q && q > p; q = strrchr(p, '/')) {
			*q = 0;
			if (!system_path(p))
				world_add(&out, "/", p, -1, 0);
		}
		free(p);
	}
	if (out.n)
		qsort(out.p, out.n, sizeof(*out.p), cmp_place);
	*nfiles = *ndirs = 0;
	sb_printf(decl, "static const char *const tg_world_dirs[] = {");
	for (i = 0; i < out.n; i = j) {
		int made = 0, file = 0;
		for (j = i; j < out.n && !strcmp(out.p[j].path, out.p[i].path); j++) {
			made |= out.p[j].how == 1;
			file |= out.p[j].size >= 0;
		}
		/* (the working directory and those above it: the proxy's -d) */
		n = strlen(out.p[i].path);
		if (made || file || (!strncmp(w->cwd, out.p[i].path, n) &&
				     (w->cwd[n] == '/' || !w->cwd[n])))
			continue;
		sb_cstr(decl, out.p[i].path);
		sb_printf(decl, ", ");
		++*ndirs;
	}
	sb_printf(decl, "NULL};\nstatic const char *const tg_world_files[] = {");
	for (i = 0; i < out.n; i++)
		if (out.p[i].size >= 0 && (!i || strcmp(out.p[i - 1].path, out.p[i].path))) {
			sb_cstr(decl, out.p[i].path);
			sb_printf(decl, ", ");
			++*nfiles;
		}
	sb_printf(decl, "NULL};\nstatic const long long tg_world_sizes[] = {");
	for (i = 0; i < out.n; i++)
		if (out.p[i].size >= 0 && (!i || strcmp(out.p[i - 1].path, out.p[i].path)))
			sb_printf(decl, "%" PRId64 "LL, ", out.p[i].size);
	sb_printf(decl, "0};\n");
	if (*nfiles || *ndirs)
		sb_printf(into, "%s", tabs.s);
	sb_release(&tabs);
	for (i = 0; i < wd.n; i++)
		free(wd.p[i].path);
	for (i = 0; i < out.n; i++)
		free(out.p[i].path);
	free(wd.p);
	free(out.p);
}

/* The MPI_Info contents the trace records, tg_infos[k] for number k. */
static void emit_infos(struct gen *g)
{
	size_t k;
	char **kv;

	for (k = 1; k <= g->ninfos; k++) {
		sb_printf(&g->decl, "static const char *const tg_info%zu[] = {", k);
		for (kv = g->infos[k - 1]; *kv; kv++) {
			sb_cstr(&g->decl, *kv);
			sb_printf(&g->decl, ", ");
		}
		sb_printf(&g->decl, "NULL};\n");
	}
	sb_printf(&g->decl, "static const char *const *const tg_infos[] = {NULL");
	for (k = 1; k <= g->ninfos; k++)
		sb_printf(&g->decl, ", tg_info%zu", k);
	sb_printf(&g->decl, "};\n");
}

void proxy_merge(struct gen *g, struct term *t, size_t nt, uint32_t *canon);

static int generate(const struct tg_cfg *c, struct walk *w, FILE *f)
{
	struct sb code = { 0 }, rules = { 0 };
	struct names nm = { c, w, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, &rules, &code };
	char *live = calloc(tg_cfg_nrules(c) + 1, 1);
	size_t ti, s, used;

	nm.canon = calloc(w->nt + 1, sizeof(*nm.canon));
	nm.r = calloc(tg_cfg_nrules(c) + 1, sizeof(*nm.r));
	nm.s = calloc(w->nt + 1, sizeof(*nm.s));
	if (!live || !nm.canon || !nm.r || !nm.s)
		abort();
	for (ti = 0; ti < w->nt; ti++)
		if (w->t[ti].d && w->t[ti].use != 1)
			proxy_emit_term(&w->g, &w->t[ti], 0, &code);
	proxy_merge(&w->g, w->t, w->nt, nm.canon);
	liveness(c, w, live);
	nm.live = live;
	for (s = 0; s < w->g.nst; s++)
		if (live[tg_cfg_stream_rule(c, s)] && !nm.r[tg_cfg_stream_rule(c, s)])
			name_rule(&nm, tg_cfg_stream_rule(c, s));
	if (w->mpi && w->g.ninfos)
		emit_infos(&w->g);
	emit_world(w, &w->g.decl, &w->nworld_files, &w->nworld_dirs);
	sb_printf(&code, "%s", rules.s ? rules.s : "");
	emit_main(c, w, live, nm.r, &code);
	used = w->g.decl.n;
	fprintf(f, "/* A proxy application generated by trace-proxy(1): build it with %s,\n"
		   " * run it with -d DIR, where its files go. */\n",
		w->g.h5 ? (w->mpi ? "h5pcc -shlib" : "h5cc -shlib (or h5pcc -shlib)") :
		w->mpi ? "mpicc" : "cc");
	if (w->mpi)
		fprintf(f, "#define TG_PROXY_MPI 1\n");
	if (w->g.h5)
		fprintf(f, "#define TG_PROXY_H5 1\n");
	sb_printf(&w->g.decl, "%s", code.s ? code.s : "");
	proxy_emit_rt(f, tg_proxy_rt, &w->g.decl);
	if (w->mpi) {
		sb_printf(&w->g.decl, "%s", "");	/* (a string to search) */
		emit_mpipre(&w->g, w->g.decl.s + used, f);
	}
	w->g.decl.n = used;
	if (w->g.h5)
		emit_h5pre(&w->g, f);
	fprintf(f, "\n/* ---- the values the trace holds ---- */\n");
	if (w->g.decl.n)
		fwrite(w->g.decl.s, 1, w->g.decl.n, f);
	if (code.n)
		fwrite(code.s, 1, code.n, f);
	sb_release(&code);
	sb_release(&rules);
	for (ti = 0; ti < nm.nr; ti++)
		free(nm.body[ti]);
	free(nm.body);
	for (ti = 0; ti < nm.ns; ti++)
		free(nm.sbody[ti]);
	free(nm.sbody);
	free(nm.canon);
	free(nm.r);
	free(nm.s);
	free(live);
	return 0;
}

/* One array of values a term's occurrences on a stream hold. */
struct vals {
	struct pv *v;
	size_t n;
};

static int cmp_vals(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t)((const struct vals *)x)->v, b = (uintptr_t)((const struct vals *)y)->v;

	return a < b ? -1 : a > b;
}

/* Everything main() built, freed (so that a leak checker sees none).  A
 * signature merged into another (proxy_merge) shares its occurrences:
 * each array is freed once. */
static void walk_free(struct walk *w)
{
	struct vals *all = tg_xrealloc(NULL, (w->nt * w->g.nst + 1) * sizeof(*all));
	size_t ti, s, k, j, n = 0;

	for (ti = 0; ti < w->nt; ti++) {
		struct term *t = &w->t[ti];
		for (s = 0; t->per && s < w->g.nst; s++)
			if (t->per[s].v)
				all[n++] = (struct vals){ t->per[s].v, t->per[s].n * t->nslots };
		free(t->per);
	}
	if (n > 1)
		qsort(all, n, sizeof(*all), cmp_vals);
	for (j = 0; j < n; j++) {
		if (j && all[j].v == all[j - 1].v)
			continue;
		for (k = 0; k < all[j].n; k++) {
			free(all[j].v[k].s);
			free(all[j].v[k].arr);
		}
		free(all[j].v);
	}
	free(all);
	for (k = 0; k < w->g.ninfos; k++) {
		for (j = 0; w->g.infos[k][j]; j++)
			free(w->g.infos[k][j]);
		free(w->g.infos[k]);
	}
	free(w->g.infos);
	free(w->g.h5pre);
	free(w->g.mpipre);
	for (k = 0; k < w->g.nst; k++) {
		free(w->stids[k]);
		free(w->sruns[k]);
	}
	free(w->stids);
	free(w->sruns);
	free(w->nstids);
	free(w->nsruns);
	free(w->tids);
	free(w->order);
	free(w->g.rank);
	sb_release(&w->g.decl);
	free(w->t);
	free(w->lo);
	free(w->pend);
	free(w->made);
}

static struct tg_cfg *load(const char *path)
{
	struct tg_stream *s = strcmp(path, "-") ? tg_stream_open(path, "r") : tg_stream_fd(0, 0, 0);
	unsigned char m[TG_CFG_MAGIC_LEN];
	struct tg_cfg *c;
	char err[256];

	if (!s) {
		fprintf(stderr, "trace-proxy: cannot open '%s': %s\n", path, strerror(errno));
		exit(2);
	}
	if (tg_stream_peek(s, m, sizeof(m)) != (long)sizeof(m) || !tg_cfg_is_magic(m, sizeof(m))) {
		fprintf(stderr, "trace-proxy: %s: not a compressed trace (.cfg)\n", path);
		exit(2);
	}
	if (!(c = tg_cfg_read(s, err, sizeof(err)))) {
		fprintf(stderr, "trace-proxy: %s: %s\n", path, err);
		exit(2);
	}
	tg_stream_close(s);
	return c;
}

int main(int argc, char **argv)
{
	enum { OPT_SLEEP = 256 };
	static const struct option lo[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "sleep", no_argument, NULL, OPT_SLEEP },
		{ 0, 0, 0, 0 },
	};
	const char *out = NULL, *in = "-";
	unsigned first_run = UINT_MAX;
	size_t unranked = 0, later = 0;
	struct walk w = { 0 };
	struct tg_cfg *c;
	char err[256];
	FILE *f = stdout;
	size_t s;
	int ch;

	while ((ch = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage(stdout, 0);
			break;
		case 'o':
			out = optarg;
			break;
		case OPT_SLEEP:
			w.g.sleep = 1;
			break;
		default:
			usage(stderr, 2);
		}
	}
	if (argc - optind > 1)
		usage(stderr, 2);
	if (optind < argc)
		in = argv[optind];
	c = load(in);
	w.g.nst = tg_cfg_nstreams(c);
	w.nt = tg_cfg_nsigs(c);
	w.t = calloc(w.nt + 1, sizeof(*w.t));
	w.g.rank = calloc(w.g.nst + 1, sizeof(*w.g.rank));
	w.stids = calloc(w.g.nst + 1, sizeof(*w.stids));
	w.sruns = calloc(w.g.nst + 1, sizeof(*w.sruns));
	w.nstids = calloc(w.g.nst + 1, sizeof(*w.nstids));
	w.nsruns = calloc(w.g.nst + 1, sizeof(*w.nsruns));
	w.level = -1;
	if (!w.t || !w.g.rank || !w.stids || !w.sruns || !w.nstids || !w.nsruns)
		abort();
	/* MPI ranks replay their streams, of the first run only (a later
	 * run's rank 0 is another process); processes without a rank beside
	 * them (a launcher's wrapper, a job script's shell) are not replayed,
	 * or the first of them would be taken for rank 0.  A trace of no MPI
	 * rank replays its first stream. */
	for (s = 0; s < w.g.nst; s++) {
		const struct tg_cfg_stream *cs = tg_cfg_stream(c, s);
		unsigned run = cs->h.run > 1 ? cs->h.run : 1;
		if (cs->rank >= 0 && run < first_run)
			first_run = run;
	}
	for (s = 0; s < w.g.nst; s++) {
		const struct tg_cfg_stream *cs = tg_cfg_stream(c, s);
		unsigned run = cs->h.run > 1 ? cs->h.run : 1;
		if (first_run != UINT_MAX && cs->rank < 0)
			w.g.rank[s] = -1, unranked++;
		else if (first_run != UINT_MAX && run != first_run)
			w.g.rank[s] = -1, later++;
		else
			w.g.rank[s] = cs->rank < 0 ? 0 : cs->rank;
		if (!w.cwd && cs->h.cwd)
			w.cwd = cs->h.cwd;
		if (walk_stream(&w, c, s, err, sizeof(err)) < 0) {
			fprintf(stderr, "trace-proxy: %s: %s\n", in, err);
			return 2;
		}
	}
	if (!w.cwd)
		w.cwd = "/";
	for (s = 0; s < w.g.nst; s++)
		if (w.g.rank[s] >= 0 && w.nstids[s])
			w.g.threads = 1;
	if (unranked)
		fprintf(stderr, "trace-proxy: %s: %zu stream%s of processes without an MPI rank "
			"(a launcher's wrapper, a shell) %s not replayed\n", in, unranked,
			unranked == 1 ? "" : "s", unranked == 1 ? "is" : "are");
	if (later)
		fprintf(stderr, "trace-proxy: %s: a trace of more than one run: the proxy "
			"replays run %u, not the %zu stream%s of the later ones\n", in, first_run,
			later, later == 1 ? "" : "s");
	for (s = 0; w.g.sleep && s < w.g.nst; s++)
		if (tg_cfg_stream(c, s)->timing == TG_CFG_AGGREGATE) {
			fprintf(stderr, "trace-proxy: %s: no per-call times (aggregate timing): "
				"--sleep replays each signature's mean gap\n", in);
			break;
		}
	if (out && !(f = fopen(out, "w"))) {
		fprintf(stderr, "trace-proxy: cannot create '%s': %s\n", out, strerror(errno));
		return 2;
	}
	generate(c, &w, f);
	if (out) {
		/* a write that failed on the way (a full disk) fails the
		 * stream, which fclose() alone would not report */
		int bad = ferror(f), e = errno;
		if (fclose(f) != 0 || bad) {
			if (!bad)
				e = errno;
			struct stat st;
			fprintf(stderr, "trace-proxy: %s: %s\n", out, strerror(bad && e ? e : EIO));
			if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
				unlink(out);	/* no half a program */
			return 2;
		}
	}
	walk_free(&w);
	tg_cfg_free(c);
	if (!out)
		tg_close_stdout();
	return 0;
}
