/*
 * export-otf2.c - an OTF2 archive (Vampir, otf2-print) through libotf2: a
 * location group per process, a location per traced thread, a region per
 * function, enter and leave per call; MPI sends, receives and collectives;
 * an I/O handle per open with I/O operations carrying offset and size.
 *
 * A record is written when its call returns, so a nested call comes
 * before the call it ran in.  OTF2 wants each location's events in time
 * order: the records of a thread are held until the call at depth 0 that
 * encloses them comes, then written as a tree (a trace whose times were
 * not kept, -t aggregate, gets times that never go back).  What is kept besides is
 * one definition per function, file, open and location.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "../libcommon/calltab.h"
#include "../libcommon/text.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "export.h"
#include "../libcommon/banned.h"

enum { IO_NONE, IO_READ, IO_WRITE, IO_OPEN, IO_CLOSE };
enum { MP_NONE, MP_SEND, MP_RECV, MP_SENDRECV, MP_COLL };
enum { COMM_WORLD, COMM_OTHER };
enum { ATTR_OFFSET };

/* One call, as much of it as its events need. */
struct item {
	uint64_t t0, t1;
	uint32_t region;
	unsigned depth;
	uint8_t io, mpi, collop;
	uint32_t handle;
	int64_t off;
	uint64_t bytes, done;
	uint32_t peer, tag, peer2, tag2, root, comm;
};

struct loc {
	int64_t rank;
	uint64_t pid;
	unsigned tid, group;	/* group: the stream's index */
	uint64_t events;
	uint64_t now;		/* the last time written: OTF2 wants no step back */
	OTF2_EvtWriter *w;
	struct item *it;	/* calls held until their depth-0 call */
	size_t n, cap;
};

struct handle {
	char key[24];
	uint32_t ref;
};

struct hdef {
	uint32_t name, file, paradigm;
	unsigned stream;	/* whose handle it is */
};

struct ot {
	OTF2_Archive *a;
	const struct xopts *o;
	OTF2_AttributeList *attrs;
	char **str;		/* string definitions, by ref */
	size_t nstr;
	uint32_t *fstr;		/* function id -> its region + 1 */
	uint16_t *rfunc;	/* region -> function id */
	uint32_t *rname;	/* region -> its name's string */
	size_t nregions;
	struct loc *loc;
	size_t nloc, stream_loc;	/* the current stream's first location */
	char **files;		/* file ref -> path */
	size_t nfiles, capfiles;
	struct hdef *hdefs;	/* handle ref -> definition */
	size_t nh, caph;
	/* hash indexes of the two (ref + 1, 0 empty; a power of two long):
	 * a search of every file on each open made an export of 100,000
	 * files quadratic */
	uint32_t *fidx, *hidx;
	size_t fcap, hcap;
	struct handle *open;	/* the current stream's open handles */
	size_t nopen, capopen;
	struct { char *host; int64_t rank; uint64_t pid; } *groups;
	size_t ngroups;
	uint64_t tmax;
	int failed;
};

static OTF2_FlushType pre_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool final)
{
	(void)u, (void)t, (void)l, (void)c, (void)final;
	return OTF2_FLUSH;
}

/* No post-flush callback: libotf2 then records no BUFFER_FLUSH event, so
 * the archive holds the program's events only. */
static OTF2_FlushCallbacks flush_cb = { pre_flush, NULL };

/* A writer's buffer holds at most this many chunks: when it asks for one
 * more, libotf2 writes the buffer out and frees it (pre_flush), so memory
 * is bounded by the writers open, not by the events (the library's own
 * pool would grow to 128 MiB per writer). */
#define OT_CHUNKS 8

struct chunks {
	size_t n;
	void *p[OT_CHUNKS];
};

static void *ot_alloc(void *u, OTF2_FileType t, OTF2_LocationRef l, void **pb, uint64_t size)
{
	struct chunks *c = *pb;

	(void)u, (void)t, (void)l;
	if (!c && !(c = *pb = calloc(1, sizeof(*c))))
		return NULL;
	if (c->n == OT_CHUNKS)
		return NULL;
	return c->p[c->n] = malloc(size), c->p[c->n] ? c->p[c->n++] : NULL;
}

static void ot_free_all(void *u, OTF2_FileType t, OTF2_LocationRef l, void **pb, bool final)
{
	struct chunks *c = *pb;

	(void)u, (void)t, (void)l;
	if (!c)
		return;
	while (c->n)
		free(c->p[--c->n]);
	if (final) {
		free(c);
		*pb = NULL;
	}
}

static OTF2_MemoryCallbacks mem_cb = { ot_alloc, ot_free_all };

/* libotf2's errors: the first is kept and reported once, at the end, as
 * one line, rather than printed by the library as it goes. */
static char otf2_error[256];

static OTF2_ErrorCode on_error(void *u, const char *file, uint64_t line, const char *fn,
			       OTF2_ErrorCode e, const char *fmt, va_list ap)
{
	(void)u, (void)file, (void)line, (void)fn;
	if (!otf2_error[0])
		vsnprintf(otf2_error, sizeof(otf2_error), fmt, ap);
	return e;
}

static int ot_fail(struct ot *x, const char *what, OTF2_ErrorCode e)
{
	warnx("%s: %s: %s", x->o->out, what, otf2_error[0] ? otf2_error : OTF2_Error_GetDescription(e));
	x->failed = 1;
	return -1;
}

static uint32_t str_add(struct ot *x, const char *s)
{
	if ((x->nstr & (x->nstr - 1)) == 0)
		x->str = tg_xrealloc(x->str, (x->nstr ? 2 * x->nstr : 16) * sizeof(*x->str));
	x->str[x->nstr] = tg_xstrdup(s ? s : "");
	return (uint32_t)x->nstr++;
}

static void *ot_open(const struct xopts *o)
{
	struct ot *x = calloc(1, sizeof(*x));

	if (!x)
		err(TG_EXIT_ERROR, "out of memory");
	x->o = o;
	OTF2_Error_RegisterCallback(on_error, NULL);
	if (strcmp(o->out, "-") == 0) {
		warnx("-f otf2 writes a directory, not standard output: give -o dir");
		free(x);
		return NULL;
	}
	if (access(o->out, F_OK) == 0) {
		warnx("cannot create the OTF2 archive '%s': it exists (an archive is not "
		      "overwritten: remove it first)", o->out);
		free(x);
		return NULL;
	}
	x->a = OTF2_Archive_Open(o->out, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
				 OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!x->a) {
		warnx("cannot create the OTF2 archive '%s'%s%s", o->out, otf2_error[0] ? ": " : "",
		      otf2_error);
		free(x);
		return NULL;
	}
	if (OTF2_Archive_SetFlushCallbacks(x->a, &flush_cb, NULL) != OTF2_SUCCESS ||
	    OTF2_Archive_SetMemoryCallbacks(x->a, &mem_cb, NULL) != OTF2_SUCCESS ||
	    OTF2_Archive_SetSerialCollectiveCallbacks(x->a) != OTF2_SUCCESS ||
	    OTF2_Archive_OpenEvtFiles(x->a) != OTF2_SUCCESS) {
		warnx("cannot create the OTF2 archive '%s'", o->out);
		OTF2_Archive_Close(x->a);
		free(x);
		return NULL;
	}
	x->fstr = calloc(tg_call_idmax() + 1, sizeof(*x->fstr));
	x->rfunc = calloc(tg_call_idmax() + 1, sizeof(*x->rfunc));
	x->rname = calloc(tg_call_idmax() + 1, sizeof(*x->rname));
	x->attrs = OTF2_AttributeList_New();
	if (!x->fstr || !x->rfunc || !x->rname || !x->attrs)
		err(TG_EXIT_ERROR, "out of memory");
	str_add(x, "");
	return x;
}

/* ---- events ---------------------------------------------------------------- */

static int item_cmp(const void *p, const void *q)
{
	const struct item *a = p, *b = q;

	if (a->t0 != b->t0)
		return a->t0 < b->t0 ? -1 : 1;
	return a->depth < b->depth ? -1 : a->depth > b->depth;
}

static void ev_enter(struct ot *x, struct loc *l, const struct item *it)
{
	OTF2_EvtWriter_Enter(l->w, NULL, it->t0, it->region);
	l->events++;
	if (it->mpi == MP_SEND || it->mpi == MP_SENDRECV) {
		OTF2_EvtWriter_MpiSend(l->w, NULL, it->t0, it->peer, it->comm, it->tag, it->bytes);
		l->events++;
	}
	if (it->mpi == MP_COLL) {
		OTF2_EvtWriter_MpiCollectiveBegin(l->w, NULL, it->t0);
		l->events++;
	}
	if (it->io == IO_READ || it->io == IO_WRITE) {
		if (it->off >= 0)
			OTF2_AttributeList_AddUint64(x->attrs, ATTR_OFFSET, (uint64_t)it->off);
		OTF2_EvtWriter_IoOperationBegin(l->w, it->off >= 0 ? x->attrs : NULL, it->t0,
						it->handle, it->io == IO_READ ? OTF2_IO_OPERATION_MODE_READ
						: OTF2_IO_OPERATION_MODE_WRITE,
						OTF2_IO_OPERATION_FLAG_NONE, it->bytes, l->events);
		OTF2_AttributeList_RemoveAllAttributes(x->attrs);
		l->events++;
	}
}

static void ev_leave(struct ot *x, struct loc *l, const struct item *it, uint64_t t)
{
	(void)x;
	if (it->io == IO_READ || it->io == IO_WRITE) {
		OTF2_EvtWriter_IoOperationComplete(l->w, NULL, t, it->handle, it->done, l->events - 1);
		l->events++;
	}
	if (it->io == IO_OPEN) {
		OTF2_EvtWriter_IoCreateHandle(l->w, NULL, t, it->handle, OTF2_IO_ACCESS_MODE_READ_WRITE,
					      OTF2_IO_CREATION_FLAG_NONE, OTF2_IO_STATUS_FLAG_NONE);
		l->events++;
	}
	if (it->io == IO_CLOSE) {
		OTF2_EvtWriter_IoDestroyHandle(l->w, NULL, t, it->handle);
		l->events++;
	}
	if (it->mpi == MP_RECV || it->mpi == MP_SENDRECV) {
		OTF2_EvtWriter_MpiRecv(l->w, NULL, t, it->peer2, it->comm, it->tag2, it->done);
		l->events++;
	}
	if (it->mpi == MP_COLL) {
		OTF2_EvtWriter_MpiCollectiveEnd(l->w, NULL, t, it->collop, it->comm, it->root, 0, 0);
		l->events++;
	}
	OTF2_EvtWriter_Leave(l->w, NULL, t, it->region);
	l->events++;
	if (t > x->tmax)
		x->tmax = t;
}

/* Write the held calls of @l as a tree, in time order: sorted by start
 * (outer first), a call's leave comes before the next call that is not
 * inside it.  Times never go back (a leave at the latest time written). */
static void loc_flush(struct ot *x, struct loc *l)
{
	size_t i, sp = 0, *stack;
	uint64_t now = l->now;

	if (!l->n)
		return;
	qsort(l->it, l->n, sizeof(*l->it), item_cmp);
	stack = tg_xrealloc(NULL, l->n * sizeof(*stack));
	for (i = 0; i < l->n; i++) {
		while (sp && (l->it[stack[sp - 1]].depth >= l->it[i].depth ||
			      l->it[stack[sp - 1]].t1 <= l->it[i].t0)) {
			const struct item *t = &l->it[stack[--sp]];
			now = t->t1 > now ? t->t1 : now;
			ev_leave(x, l, t, now);
		}
		now = l->it[i].t0 > now ? l->it[i].t0 : now;
		l->it[i].t0 = now;
		ev_enter(x, l, &l->it[i]);
		stack[sp++] = i;
	}
	while (sp) {
		const struct item *t = &l->it[stack[--sp]];
		now = t->t1 > now ? t->t1 : now;
		ev_leave(x, l, t, now);
	}
	free(stack);
	l->n = 0;
	l->now = now;
}

/* The current stream ends: its held calls are written, its writers closed. */
static int stream_end(struct ot *x)
{
	size_t i;

	for (i = x->stream_loc; i < x->nloc; i++) {
		struct loc *l = &x->loc[i];
		OTF2_ErrorCode e;
		loc_flush(x, l);
		free(l->it);
		l->it = NULL;
		l->cap = 0;
		if (l->w && (e = OTF2_Archive_CloseEvtWriter(x->a, l->w)) != OTF2_SUCCESS)
			return ot_fail(x, "cannot write the events", e);
		l->w = NULL;
	}
	x->stream_loc = x->nloc;
	x->nopen = 0;
	return 0;
}

static int ot_stream(void *p, const struct xstream *s)
{
	struct ot *x = p;

	if (stream_end(x) < 0)
		return -1;
	x->groups = tg_xrealloc(x->groups, (x->ngroups + 1) * sizeof(*x->groups));
	x->groups[x->ngroups].host = tg_xstrdup(s->h->host ? s->h->host : "localhost");
	x->groups[x->ngroups].rank = s->rank;
	x->groups[x->ngroups].pid = s->h->pid;
	x->ngroups++;
	return 0;
}

static struct loc *loc_of(struct ot *x, const struct xstream *s, unsigned tid)
{
	size_t i;
	struct loc *l;

	for (i = x->stream_loc; i < x->nloc; i++)
		if (x->loc[i].tid == tid)
			return &x->loc[i];
	x->loc = tg_xrealloc(x->loc, (x->nloc + 1) * sizeof(*x->loc));
	l = &x->loc[x->nloc];
	memset(l, 0, sizeof(*l));
	l->rank = s->rank;
	l->pid = s->h->pid;
	l->tid = tid;
	l->group = (unsigned)x->ngroups - 1;
	l->w = OTF2_Archive_GetEvtWriter(x->a, x->nloc);
	if (!l->w)
		errx(TG_EXIT_ERROR, "%s: cannot open an OTF2 event writer", x->o->out);
	x->nloc++;
	return l;
}

/* ---- what a call did -------------------------------------------------------- */

static int64_t arg_int(const struct tg_rec *r, const char *name, int64_t dflt)
{
	int i = tg_call_argno(r->call, name);

	return i < 0 ? dflt : r->args[i].i;
}

/* The size of the datatype of argument @i, 1 when it is not known. */
static uint64_t type_size(const struct tg_rec *r, int i)
{
	const struct tg_calldesc *d = r->call;
	size_t n;

	if (i < 0)
		return 1;
	return xp_mpi_type_size(tg_text_val(d->args[i].kind, d->args[i].sub, &r->args[i], &n));
}

static uint8_t coll_op(const char *name)
{
	static const struct { const char *f; uint8_t op; } ops[] = {
		{ "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER }, { "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST },
		{ "MPI_Gather", OTF2_COLLECTIVE_OP_GATHER }, { "MPI_Gatherv", OTF2_COLLECTIVE_OP_GATHERV },
		{ "MPI_Scatter", OTF2_COLLECTIVE_OP_SCATTER },
		{ "MPI_Scatterv", OTF2_COLLECTIVE_OP_SCATTERV },
		{ "MPI_Allgather", OTF2_COLLECTIVE_OP_ALLGATHER },
		{ "MPI_Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV },
		{ "MPI_Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL },
		{ "MPI_Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV },
		{ "MPI_Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW },
		{ "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE },
		{ "MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE },
		{ "MPI_Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER },
		{ "MPI_Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK },
		{ "MPI_Scan", OTF2_COLLECTIVE_OP_SCAN }, { "MPI_Exscan", OTF2_COLLECTIVE_OP_EXSCAN },
	};
	size_t k;

	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (strcmp(name, ops[k].f) == 0)
			return ops[k].op;
	return OTF2_COLLECTIVE_OP_CREATE_HANDLE;
}

/* The MPI events of call @r: blocking sends, receives and collectives. */
static void mpi_item(const struct tg_rec *r, struct item *it)
{
	const struct tg_calldesc *d = r->call;
	int c = d->hb->comm, st;
	size_t n;

	it->comm = COMM_OTHER;
	if (c >= 0 && strcmp(tg_text_val(d->args[c].kind, d->args[c].sub, &r->args[c], &n),
			     "MPI_COMM_WORLD") == 0)
		it->comm = COMM_WORLD;
	switch (d->hb->kind) {
	case TG_MK_SEND:
	case TG_MK_SENDRECV:
		it->mpi = d->hb->kind == TG_MK_SEND ? MP_SEND : MP_SENDRECV;
		it->peer = (uint32_t)arg_int(r, "dest", 0);
		it->tag = (uint32_t)arg_int(r, "sendtag", arg_int(r, "tag", 0));
		it->bytes = (uint64_t)arg_int(r, "sendcount", arg_int(r, "count", 0)) *
			    type_size(r, tg_call_argno(d, "sendtype") >= 0 ? tg_call_argno(d, "sendtype")
								       : tg_call_argno(d, "datatype"));
		if (it->mpi == MP_SEND)
			break;
		/* fall through */
	case TG_MK_RECV:
		if (it->mpi == MP_NONE)
			it->mpi = MP_RECV;
		st = tg_call_argno(d, "status");
		it->peer2 = (uint32_t)(st >= 0 && r->args[st].present ? r->args[st].i
							: arg_int(r, "source", 0));
		it->tag2 = (uint32_t)(st >= 0 && r->args[st].present ? (int64_t)r->args[st].u
							: arg_int(r, "recvtag", arg_int(r, "tag", 0)));
		it->done = (uint64_t)arg_int(r, "recvcount", arg_int(r, "count", 0)) *
			   type_size(r, tg_call_argno(d, "recvtype") >= 0 ? tg_call_argno(d, "recvtype")
								      : tg_call_argno(d, "datatype"));
		break;
	case TG_MK_COLL:
		it->mpi = MP_COLL;
		it->collop = coll_op(d->name);
		it->root = d->hb->root >= 0 ? (uint32_t)r->args[d->hb->root].i : OTF2_UNDEFINED_UINT32;
		break;
	}
}

static uint64_t hash_str(uint64_t h, const char *p)
{
	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;	/* FNV-1a */
	return h;
}

static uint64_t hdef_hash(uint32_t stream, uint32_t file, uint32_t paradigm, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = (h ^ stream) * 0x100000001b3ull;
	h = (h ^ file) * 0x100000001b3ull;
	h = (h ^ paradigm) * 0x100000001b3ull;
	return hash_str(h, name);
}

/* Put ref @r of hash @h into @idx (@cap long, a power of two). */
static void idx_put(uint32_t *idx, size_t cap, uint64_t h, uint32_t r)
{
	size_t i;

	for (i = (size_t)h & (cap - 1); idx[i]; i = (i + 1) & (cap - 1))
		;
	idx[i] = r + 1;
}

/* Room in index *@idx (*@cap long) for one entry more than the @n it
 * holds, kept at most half full: rebuilt from the hashes @hash_of gives
 * refs 0 to @n - 1. */
static void idx_room(struct ot *x, uint32_t **idx, size_t *cap, size_t n,
		     uint64_t (*hash_of)(const struct ot *, uint32_t))
{
	size_t c = *cap ? *cap : 1024;
	uint32_t r;

	if (*cap && 2 * (n + 1) < *cap)
		return;
	while (2 * (n + 1) >= c)
		c *= 2;
	free(*idx);
	*idx = calloc(c, sizeof(**idx));
	if (!*idx)
		err(TG_EXIT_ERROR, "out of memory");
	*cap = c;
	for (r = 0; r < n; r++)
		idx_put(*idx, c, hash_of(x, r), r);
}

static uint64_t file_hash(const struct ot *x, uint32_t r)
{
	return hash_str(0xcbf29ce484222325ull, x->files[r]);
}

static uint64_t hdef_hash_of(const struct ot *x, uint32_t r)
{
	const struct hdef *d = &x->hdefs[r];

	return hdef_hash(d->stream, d->file, d->paradigm, x->str[d->name]);
}

static uint32_t file_ref(struct ot *x, const char *path)
{
	uint64_t h = hash_str(0xcbf29ce484222325ull, path);
	size_t i;

	idx_room(x, &x->fidx, &x->fcap, x->nfiles, file_hash);
	for (i = (size_t)h & (x->fcap - 1); x->fidx[i]; i = (i + 1) & (x->fcap - 1))
		if (strcmp(x->files[x->fidx[i] - 1], path) == 0)
			return x->fidx[i] - 1;
	if (x->nfiles == x->capfiles) {
		x->capfiles = x->capfiles ? 2 * x->capfiles : 64;
		x->files = tg_xrealloc(x->files, x->capfiles * sizeof(*x->files));
	}
	x->files[x->nfiles] = tg_xstrdup(path);
	x->fidx[i] = (uint32_t)x->nfiles + 1;
	return (uint32_t)x->nfiles++;
}

static void key_of(char *key, size_t cap, const struct tg_rec *r, int a)
{
	const struct tg_calldesc *d = r->call;
	struct tg_val rv = { .i = r->ret };
	size_t n;

	key[0] = 0;
	if (a == TG_ARG_RET)
		snprintf(key, cap, "%s", tg_text_val(d->retkind, d->retsub, &rv, &n));
	else if (a >= 0 && a < d->nargs && a < TG_MAX_ARGS)
		snprintf(key, cap, "%s", tg_text_val(d->args[a].kind, d->args[a].sub, &r->args[a], &n));
}

/* An open makes a handle (a definition and a place among the open ones);
 * a stream that opens a file again under the same name (descriptor 3
 * again) creates the handle it had again, so that the definitions are
 * bounded by the streams, files and names, not by the opens. */
static uint32_t handle_new(struct ot *x, const struct xstream *s, const struct tg_rec *r,
			   const char *key, const char *path)
{
	uint32_t file, paradigm = r->call->layer == TG_LAYER_MPIIO ? 2 :
				  r->call->layer == TG_LAYER_STDIO ? 1 : 0;
	char *abs = NULL;
	size_t h;

	if (path[0] != '/' && s->h->cwd && asprintf(&abs, "%s/%s", s->h->cwd, path) < 0)
		abs = NULL;
	file = file_ref(x, abs ? abs : path);
	free(abs);
	{
		uint64_t hv = hdef_hash((uint32_t)s->index, file, paradigm, key);
		size_t i;
		idx_room(x, &x->hidx, &x->hcap, x->nh, hdef_hash_of);
		h = (size_t)-1;
		for (i = (size_t)hv & (x->hcap - 1); x->hidx[i]; i = (i + 1) & (x->hcap - 1)) {
			const struct hdef *d = &x->hdefs[x->hidx[i] - 1];
			if (d->stream == s->index && d->file == file && d->paradigm == paradigm &&
			    strcmp(x->str[d->name], key) == 0) {
				h = x->hidx[i] - 1;
				break;
			}
		}
		if (h == (size_t)-1) {
			if (x->nh == x->caph) {
				x->caph = x->caph ? 2 * x->caph : 64;
				x->hdefs = tg_xrealloc(x->hdefs, x->caph * sizeof(*x->hdefs));
			}
			x->hdefs[x->nh].file = file;
			x->hdefs[x->nh].name = str_add(x, key);
			x->hdefs[x->nh].paradigm = paradigm;
			x->hdefs[x->nh].stream = s->index;
			x->hidx[i] = (uint32_t)x->nh + 1;
			h = x->nh++;
		}
	}
	if (x->nopen == x->capopen) {
		x->capopen = x->capopen ? 2 * x->capopen : 64;
		x->open = tg_xrealloc(x->open, x->capopen * sizeof(*x->open));
	}
	snprintf(x->open[x->nopen].key, sizeof(x->open[x->nopen].key), "%s", key);
	x->open[x->nopen++].ref = (uint32_t)h;
	return (uint32_t)h;
}

/* The I/O events of call @r, through the call table's roles. */
static void io_item(struct ot *x, const struct xstream *s, const struct tg_rec *r, struct item *it)
{
	const struct tg_calldesc *d = r->call;
	const struct tg_iorole *io = &d->io[0];
	char key[24];
	size_t k;

	key_of(key, sizeof(key), r, io->h);
	if (!key[0] || r->err)
		return;
	if (io->op == TG_IO_OPEN && io->a >= 0 && r->args[io->a].s) {
		it->io = IO_OPEN;
		it->handle = handle_new(x, s, r, key, r->args[io->a].s);
		return;
	}
	for (k = x->nopen; k-- > 0;)
		if (strcmp(x->open[k].key, key) == 0)
			break;
	if (k == (size_t)-1)
		return;		/* a handle opened before tracing, or not a file */
	it->handle = x->open[k].ref;
	if (io->op == TG_IO_CLOSE) {
		it->io = IO_CLOSE;
		x->open[k] = x->open[--x->nopen];
	} else if (io->op == TG_IO_READ || io->op == TG_IO_WRITE) {
		it->io = io->op == TG_IO_READ ? IO_READ : IO_WRITE;
		it->off = io->off == TG_OFF_ARG || io->off == TG_OFF_AT || io->off == TG_OFF_IND ||
			  io->off == TG_OFF_SHARED ? r->args[io->offarg].i : -1;
		it->bytes = io->lenarg >= 0 && r->args[io->lenarg].i > 0 ?
			    (uint64_t)r->args[io->lenarg].i : 0;	/* absent: -1 */
		it->done = io->len == TG_LEN_RET && r->ret > 0 ? (uint64_t)r->ret : it->bytes;
	}
}

static int ot_rec(void *p, const struct xstream *s, const struct tg_rec *r)
{
	struct ot *x = p;
	const struct tg_calldesc *d = r->call;
	struct item *it;
	struct loc *l;

	if (r->type != TG_REC_CALL)
		return 0;
	l = loc_of(x, s, r->tid);
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->it = tg_xrealloc(l->it, l->cap * sizeof(*l->it));
	}
	it = &l->it[l->n++];
	memset(it, 0, sizeof(*it));
	it->t0 = xp_time(s, r->tstart);
	it->t1 = it->t0 + r->dur;
	it->depth = r->depth;
	it->off = -1;
	if (!x->fstr[d->id]) {	/* regions are numbered as they first show */
		x->rfunc[x->nregions] = (uint16_t)d->id;
		x->rname[x->nregions] = str_add(x, d->name);
		x->fstr[d->id] = (uint32_t)++x->nregions;
	}
	it->region = x->fstr[d->id] - 1;
	if (d->hb && !r->err)
		mpi_item(r, it);
	if (d->nio)
		io_item(x, s, r, it);
	if (tg_rec_top(r))
		loc_flush(x, l);
	return 0;
}

/* ---- definitions ------------------------------------------------------------ */

static void defs_io(struct ot *x, OTF2_GlobalDefWriter *g)
{
	static const char *pname[3][2] = { { "POSIX", "POSIX I/O" }, { "ISOC", "ISO C I/O" },
					   { "MPI-IO", "MPI I/O" } };
	size_t i;

	for (i = 0; i < 3; i++) {
		uint32_t id = str_add(x, pname[i][0]), name = str_add(x, pname[i][1]);
		OTF2_GlobalDefWriter_WriteString(g, id, x->str[id]);
		OTF2_GlobalDefWriter_WriteString(g, name, x->str[name]);
		OTF2_GlobalDefWriter_WriteIoParadigm(g, (uint32_t)i, id, name,
						     i == 2 ? OTF2_IO_PARADIGM_CLASS_PARALLEL
							    : OTF2_IO_PARADIGM_CLASS_SERIAL,
						     OTF2_IO_PARADIGM_FLAG_NONE, 0, NULL, NULL, NULL);
	}
	for (i = 0; i < x->nfiles; i++) {
		uint32_t name = str_add(x, x->files[i]);
		OTF2_GlobalDefWriter_WriteString(g, name, x->str[name]);
		OTF2_GlobalDefWriter_WriteIoRegularFile(g, (uint32_t)i, name, 0);
	}
	for (i = 0; i < x->nh; i++) {
		OTF2_GlobalDefWriter_WriteIoHandle(g, (uint32_t)i, x->hdefs[i].name, x->hdefs[i].file,
						   x->hdefs[i].paradigm, OTF2_IO_HANDLE_FLAG_NONE,
						   OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE);
	}
}

/* MPI_COMM_WORLD over the first thread of every rank, and one
 * communicator that stands for all the program's own. */
static void defs_mpi(struct ot *x, OTF2_GlobalDefWriter *g)
{
	uint64_t *locs = calloc(x->nloc + 1, sizeof(*locs)), *ranks;
	uint32_t n = 0, i, s[4];
	size_t k;

	ranks = calloc(x->nloc + 1, sizeof(*ranks));
	if (!locs || !ranks)
		err(TG_EXIT_ERROR, "out of memory");
	for (k = 0; k < x->nloc; k++)
		if (x->loc[k].rank >= 0 && x->loc[k].tid == 0 && (uint64_t)x->loc[k].rank <= x->nloc)
			locs[x->loc[k].rank] = k + 1;
	for (k = 0; k <= x->nloc; k++)
		if (locs[k]) {
			locs[n] = locs[k] - 1;
			ranks[n] = n;
			n++;
		}
	if (n) {
		s[0] = str_add(x, "MPI locations");
		s[1] = str_add(x, "MPI_COMM_WORLD");
		s[2] = str_add(x, "a communicator of the program");
		s[3] = str_add(x, "MPI");
		for (i = 0; i < 4; i++)
			OTF2_GlobalDefWriter_WriteString(g, s[i], x->str[s[i]]);
		OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, s[3], OTF2_PARADIGM_CLASS_PROCESS);
		OTF2_GlobalDefWriter_WriteGroup(g, 0, s[0], OTF2_GROUP_TYPE_COMM_LOCATIONS,
						OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n, locs);
		OTF2_GlobalDefWriter_WriteGroup(g, 1, s[1], OTF2_GROUP_TYPE_COMM_GROUP,
						OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n, ranks);
		OTF2_GlobalDefWriter_WriteComm(g, COMM_WORLD, s[1], 1, OTF2_UNDEFINED_COMM,
					       OTF2_COMM_FLAG_NONE);
		OTF2_GlobalDefWriter_WriteComm(g, COMM_OTHER, s[2], 1, OTF2_UNDEFINED_COMM,
					       OTF2_COMM_FLAG_NONE);
	}
	free(locs);
	free(ranks);
}

/* The machine, the processes and their threads. */
static void defs_system(struct ot *x, OTF2_GlobalDefWriter *g)
{
	uint32_t machine = str_add(x, "machine"), node = str_add(x, "node"), name;
	char buf[64];
	size_t i;

	OTF2_GlobalDefWriter_WriteString(g, machine, "machine");
	OTF2_GlobalDefWriter_WriteString(g, node, "node");
	OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine, machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	for (i = 0; i < x->ngroups; i++) {
		/* a node per process, named by its host: OTF2 needs no more */
		name = str_add(x, x->groups[i].host);
		OTF2_GlobalDefWriter_WriteString(g, name, x->str[name]);
		OTF2_GlobalDefWriter_WriteSystemTreeNode(g, (uint32_t)i + 1, name, node, 0);
		if (x->groups[i].rank >= 0)
			snprintf(buf, sizeof(buf), "rank %" PRId64, x->groups[i].rank);
		else
			snprintf(buf, sizeof(buf), "pid %" PRIu64, x->groups[i].pid);
		name = str_add(x, buf);
		OTF2_GlobalDefWriter_WriteString(g, name, buf);
		OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)i, name,
							OTF2_LOCATION_GROUP_TYPE_PROCESS, (uint32_t)i + 1,
							OTF2_UNDEFINED_LOCATION_GROUP);
	}
	for (i = 0; i < x->nloc; i++) {
		snprintf(buf, sizeof(buf), "thread %u", x->loc[i].tid);
		name = str_add(x, buf);
		OTF2_GlobalDefWriter_WriteString(g, name, buf);
		OTF2_GlobalDefWriter_WriteLocation(g, i, name, OTF2_LOCATION_TYPE_CPU_THREAD,
						   x->loc[i].events, x->loc[i].group);
	}
}

/* Strings are defined in the order of their numbers: first those the
 * events made, then each as the definitions add it. */
static void defs(struct ot *x, OTF2_GlobalDefWriter *g)
{
	uint32_t offset;
	size_t i;

	for (i = 0; i < x->nstr; i++)
		OTF2_GlobalDefWriter_WriteString(g, (uint32_t)i, x->str[i]);
	offset = str_add(x, "offset");
	OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, x->tmax + 1,
						  OTF2_UNDEFINED_TIMESTAMP);
	OTF2_GlobalDefWriter_WriteString(g, offset, "offset");
	OTF2_GlobalDefWriter_WriteAttribute(g, ATTR_OFFSET, offset, offset, OTF2_TYPE_UINT64);
	for (i = 0; i < x->nregions; i++) {
		const struct tg_calldesc *d = tg_call_lookup(x->rfunc[i]);
		uint32_t name = x->rname[i];
		OTF2_GlobalDefWriter_WriteRegion(g, (uint32_t)i, name, name, name,
						 d->layer == TG_LAYER_MPIIO || d->layer == TG_LAYER_POSIX ||
						 d->layer == TG_LAYER_STDIO ? OTF2_REGION_ROLE_FILE_IO
						 : OTF2_REGION_ROLE_FUNCTION,
						 d->layer == TG_LAYER_MPI || d->layer == TG_LAYER_MPIIO ?
						 OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
						 OTF2_REGION_FLAG_NONE, 0, 0, 0);
	}
	defs_system(x, g);
	defs_mpi(x, g);
	defs_io(x, g);
}

static int ot_close(void *p, int ok)
{
	struct ot *x = p;
	OTF2_GlobalDefWriter *g;
	OTF2_ErrorCode e;
	size_t i;
	int rc = x->failed ? -1 : stream_end(x);

	(void)ok;
	if (rc == 0 && (e = OTF2_Archive_CloseEvtFiles(x->a)) != OTF2_SUCCESS)
		rc = ot_fail(x, "cannot write the events", e);
	if (rc == 0 && (g = OTF2_Archive_GetGlobalDefWriter(x->a))) {
		defs(x, g);
		if ((e = OTF2_Archive_CloseGlobalDefWriter(x->a, g)) != OTF2_SUCCESS)
			rc = ot_fail(x, "cannot write the definitions", e);
	}
	if (rc == 0 && OTF2_Archive_OpenDefFiles(x->a) == OTF2_SUCCESS) {
		for (i = 0; i < x->nloc; i++) {
			OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(x->a, i);
			if (w)
				OTF2_Archive_CloseDefWriter(x->a, w);
		}
		OTF2_Archive_CloseDefFiles(x->a);
	}
	if ((e = OTF2_Archive_Close(x->a)) != OTF2_SUCCESS && rc == 0)
		rc = ot_fail(x, "cannot close the archive", e);
	if (rc == 0 && otf2_error[0]) {
		warnx("%s: %s", x->o->out, otf2_error);
		rc = -1;
	}
	OTF2_AttributeList_Delete(x->attrs);
	for (i = 0; i < x->nstr; i++)
		free(x->str[i]);
	for (i = 0; i < x->nfiles; i++)
		free(x->files[i]);
	for (i = 0; i < x->ngroups; i++)
		free(x->groups[i].host);
	for (i = 0; i < x->nloc; i++)
		free(x->loc[i].it);
	free(x->str);
	free(x->files);
	free(x->groups);
	free(x->loc);
	free(x->hdefs);
	free(x->fidx);
	free(x->hidx);
	free(x->open);
	free(x->fstr);
	free(x->rfunc);
	free(x->rname);
	free(x);
	return rc;
}

const struct exporter tg_export_otf2 = {
	"otf2", ot_open, ot_stream, ot_rec, ot_close,
};
