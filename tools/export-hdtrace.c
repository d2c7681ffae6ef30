/*
 * export-hdtrace.c - the HDTrace format of the PIOsim MPI wrapper (seed
 * 001): one XML trace per rank and thread, <prog>_<host>_<rank>_<thread>.trc,
 * with an element per MPI call named as the manual's appendix A names it
 * (the function without MPI_) and its attributes (cid, fid, tid, size,
 * count, offset, toRank...; time and end in seconds); an .info file per
 * rank (Comm, File and Type lines); and the project description
 * <prog>.proj (Application: FileList, Topology, CommunicatorList,
 * Datatypes) that the wrapper's merger script would write.
 *
 * Ids are the wrapper's: a communicator or datatype gets one per rank on
 * first use (MPI_COMM_WORLD 0, MPI_COMM_SELF 1), a file one for the whole
 * run by its name.  Only the MPI and MPI-IO layers are written, as the
 * wrapper logs them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../libcommon/calltab.h"
#include "../libcommon/names.h"
#include "../libcommon/text.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "export.h"
#include "../libcommon/banned.h"

/* A name (symbolic handle or file name) and its id. */
struct sym {
	char *name;
	int64_t id;
};

struct symtab {
	struct sym *v;
	size_t n;
};

/* A communicator of one rank, for the CommunicatorList. */
struct comm {
	int64_t rank, cid, local;
	char *name, *members;	/* members: "0;1;2;" in world ranks */
};

struct trc {
	unsigned tid;
	FILE *f;
};

struct hd {
	const struct xopts *o;
	char *prog;
	struct symtab files;	/* the run's: path -> fid */
	struct comm *comms;
	size_t ncomms;
	char **labels;		/* "host\trank\tthread" */
	size_t nlabels;
	FILE *dtypes;		/* the Datatypes section, written as it grows */
	char *dbuf;
	size_t dlen;
	/* the current stream's */
	const struct xstream *s;
	int64_t rank;
	FILE *info;
	struct trc *trc;
	size_t ntrc;
	struct symtab cids, tids, fhs, defs;	/* defs: #comm lines by id */
	int64_t next_cid;			/* the rank's next communicator id */
	char **members;		/* defs' members, "0;1;" */
	/* MPI calls nested in another call, held until it comes (a nested
	 * call's record comes first): the wrapper, a PMPI one, sees those an
	 * I/O library such as HDF5 makes, never those the MPI library makes
	 * inside its own calls (ROMIO's collectives in an MPI-IO call) */
	struct held {
		unsigned tid, depth;
		char *text;
	} *held;
	size_t nheld, capheld;
	int failed;
};

static int64_t sym_get(const struct symtab *t, const char *name)
{
	size_t i;

	for (i = t->n; i-- > 0;)
		if (strcmp(t->v[i].name, name) == 0)
			return t->v[i].id;
	return -1;
}

static void sym_set(struct symtab *t, const char *name, int64_t id)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0) {
			t->v[i].id = id;
			return;
		}
	t->v = tg_xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
	t->v[t->n].name = tg_xstrdup(name);
	t->v[t->n++].id = id;
}

static void sym_free(struct symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

/* @s as an XML attribute value (in single quotes). */
static void xml_attr(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s < 0x20)
				fprintf(f, "&#%d;", *s);
			else
				putc(*s, f);
		}
	}
}

static void *hd_open(const struct xopts *o)
{
	struct hd *x = calloc(1, sizeof(*x));

	if (!x)
		err(TG_EXIT_ERROR, "out of memory");
	x->o = o;
	if (strcmp(o->out, "-") == 0) {
		warnx("-f hdtrace writes a directory, not standard output: give -o dir");
		free(x);
		return NULL;
	}
	if (mkdir(o->out, 0777) < 0 && errno != EEXIST) {
		warn("cannot create '%s'", o->out);
		free(x);
		return NULL;
	}
	if (!(x->dtypes = open_memstream(&x->dbuf, &x->dlen)))
		err(TG_EXIT_ERROR, "out of memory");
	return x;
}

static int file_close(struct hd *x, FILE *f, const char *what)
{
	if (f && (ferror(f) | fclose(f)) != 0) {
		warnx("%s: cannot write the %s files", x->o->out, what);
		x->failed = 1;
		return -1;
	}
	return 0;
}

/* The current stream ends: its trace files get their closing tag. */
static FILE *trc_of(struct hd *x, unsigned tid);
static void held_out(struct hd *x, unsigned tid, unsigned depth, int keep);

static int stream_end(struct hd *x)
{
	size_t i;
	int rc = 0;

	/* what waited for a call that never came (a torn stream): written */
	while (x->nheld)
		held_out(x, x->held[0].tid, 0, 1);

	for (i = 0; i < x->ntrc; i++) {
		fputs("</Program>\n", x->trc[i].f);
		rc |= file_close(x, x->trc[i].f, ".trc");
	}
	if (x->info) {
		fputs("  </Rank>\n", x->dtypes);
		rc |= file_close(x, x->info, ".info");
	}
	free(x->trc);
	x->trc = NULL;
	x->ntrc = 0;
	x->info = NULL;
	sym_free(&x->cids);
	x->next_cid = 0;
	sym_free(&x->tids);
	sym_free(&x->fhs);
	for (i = 0; i < x->defs.n; i++)
		free(x->members[i]);
	free(x->members);
	x->members = NULL;
	sym_free(&x->defs);
	return rc ? -1 : 0;
}

static FILE *out_file(struct hd *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static FILE *out_file(struct hd *x, const char *fmt, ...)
{
	char *name, *path;
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	if (vasprintf(&name, fmt, ap) < 0)
		err(TG_EXIT_ERROR, "out of memory");
	va_end(ap);
	if (asprintf(&path, "%s/%s", x->o->out, name) < 0)
		err(TG_EXIT_ERROR, "out of memory");
	if (!(f = fopen(path, "w"))) {
		warn("cannot create '%s'", path);
		x->failed = 1;
	}
	free(name);
	free(path);
	return f;
}

static int hd_stream(void *p, const struct xstream *s)
{
	struct hd *x = p;
	const char *prog = s->h->argc > 0 ? s->h->argv[0] : "program", *slash;
	char *c;

	if (stream_end(x) < 0)
		return -1;
	if (!x->prog) {		/* the project is named by its first program */
		slash = strrchr(prog, '/');
		x->prog = tg_xstrdup(slash ? slash + 1 : prog);
		for (c = x->prog; *c; c++)
			if (*c == '_' || *c == '/' || *c == ' ')
				*c = '-';
	}
	x->s = s;
	x->rank = -1;
	return 0;
}

/* The stream's rank (its pid when it has none), known at the first MPI
 * call: that is when its .info file is started. */
static int rank_known(struct hd *x)
{
	const struct xstream *s = x->s;

	if (x->info)
		return 0;
	x->rank = s->rank >= 0 ? s->rank : (int64_t)s->h->pid;
	x->info = out_file(x, "%s_%s_%" PRId64 ".info", x->prog, s->h->host ? s->h->host : "localhost",
			   x->rank);
	if (!x->info)
		return -1;
	fprintf(x->dtypes, "  <Rank name='%" PRId64 "' thread='0'>\n", x->rank);
	return 0;
}

static FILE *trc_of(struct hd *x, unsigned tid)
{
	const char *host = x->s->h->host ? x->s->h->host : "localhost";
	char *label;
	size_t i;

	for (i = 0; i < x->ntrc; i++)
		if (x->trc[i].tid == tid)
			return x->trc[i].f;
	x->trc = tg_xrealloc(x->trc, (x->ntrc + 1) * sizeof(*x->trc));
	x->trc[x->ntrc].tid = tid;
	x->trc[x->ntrc].f = out_file(x, "%s_%s_%" PRId64 "_%u.trc", x->prog, host, x->rank, tid);
	if (!x->trc[x->ntrc].f)
		return NULL;
	fputs("<?xml version='1.0' encoding='UTF-8'?>\n<Program>\n", x->trc[x->ntrc].f);
	if (asprintf(&label, "%s\t%" PRId64 "\t%u", host, x->rank, tid) < 0)
		err(TG_EXIT_ERROR, "out of memory");
	x->labels = tg_xrealloc(x->labels, (x->nlabels + 1) * sizeof(*x->labels));
	x->labels[x->nlabels++] = label;
	return x->trc[x->ntrc++].f;
}

/* The rank's id of communicator @name: new ones get the next, and an
 * .info line with their members. */
static int64_t cid_of(struct hd *x, const char *name)
{
	int64_t cid = sym_get(&x->cids, name), i, def;
	struct comm *c;
	char *members = NULL;
	size_t len = 0;
	FILE *m;

	if (cid >= 0)
		return cid;
	/* (an id freed and made again is a new communicator: a new cid) */
	cid = strcmp(name, "MPI_COMM_WORLD") == 0 ? 0 : strcmp(name, "MPI_COMM_SELF") == 0 ? 1
	      : 2 + x->next_cid++;
	sym_set(&x->cids, name, cid);
	if (!(m = open_memstream(&members, &len)))
		err(TG_EXIT_ERROR, "out of memory");
	if (cid == 0)
		for (i = 0; i < (int64_t)x->s->h->world; i++)
			fprintf(m, "%" PRId64 ";", i);
	else if (cid == 1)
		fprintf(m, "%" PRId64 ";", x->rank);
	else if ((def = sym_get(&x->defs, name)) >= 0)
		fputs(x->members[def], m);
	fclose(m);
	x->comms = tg_xrealloc(x->comms, (x->ncomms + 1) * sizeof(*x->comms));
	c = &x->comms[x->ncomms++];
	c->rank = x->rank;
	c->cid = cid;
	c->name = tg_xstrdup(cid == 0 ? "WORLD" : cid == 1 ? "SELF" : "");
	c->members = members;
	c->local = 0;
	fprintf(x->info, "Comm map='");
	for (i = 0; members && *members; i++) {	/* global->local, as the wrapper writes */
		int64_t g = strtoll(members, &members, 10);
		if (g == x->rank)
			c->local = i;
		fprintf(x->info, "%" PRId64 "->%" PRId64 ";", g, i);
		members += *members == ';';
	}
	fprintf(x->info, "' id=%" PRId64 " name='%s'\n", cid, c->name);
	return cid;
}

/* The rank's id of datatype @name, with its .info line and Datatypes
 * entry on first use. */
static int64_t tid_of(struct hd *x, const char *name)
{
	int64_t tid = sym_get(&x->tids, name);

	if (tid >= 0)
		return tid;
	tid = (int64_t)x->tids.n + 1;
	sym_set(&x->tids, name, tid);
	if (strncmp(name, "MPI_", 4) == 0) {
		fprintf(x->info, "Type id='%" PRId64 "' combiner='MPI_COMBINER_NAMED' name='%s'\n", tid, name);
		fprintf(x->dtypes, "    <NAMED id='%" PRId64 "' name='", tid);
		xml_attr(x->dtypes, name);
		fputs("' />\n", x->dtypes);
	} else {	/* a derived type: its constructor is in the trace's #type line */
		fprintf(x->info, "Type id='%" PRId64 "' combiner='MPI_COMBINER_DERIVED' name='%s'\n", tid, name);
		fprintf(x->dtypes, "    <DERIVED id='%" PRId64 "' name='", tid);
		xml_attr(x->dtypes, name);
		fputs("' />\n", x->dtypes);
	}
	return tid;
}

static int64_t fid_of(struct hd *x, const char *path)
{
	int64_t fid = sym_get(&x->files, path);

	if (fid >= 0)
		return fid;
	fid = (int64_t)x->files.n;
	sym_set(&x->files, path, fid);
	fprintf(x->info, "File name='%s' Size=0 id=%" PRId64 "\n", path, fid);
	return fid;
}

/* A #comm line: the members of a communicator, for its Comm line. */
static void comm_def(struct hd *x, const struct tg_rec *r)
{
	struct tg_val id = r->args[0];
	char *members = NULL;
	size_t len, i;
	const char *name;
	FILE *m;

	id.arr = NULL;
	name = tg_text_val(TG_K_MPIH, TG_H_COMM, &id, &len);
	if (!(m = open_memstream(&members, &len)))
		err(TG_EXIT_ERROR, "out of memory");
	for (i = 0; i < (size_t)r->args[1].i; i++)
		fprintf(m, "%" PRId64 ";", r->args[1].arr[i]);
	fclose(m);
	if (sym_get(&x->defs, name) >= 0) {	/* the id was freed and reused */
		free(x->members[sym_get(&x->defs, name)]);
		x->members[sym_get(&x->defs, name)] = members;
		sym_set(&x->cids, name, -1);
		return;
	}
	x->members = tg_xrealloc(x->members, (x->defs.n + 1) * sizeof(*x->members));
	x->members[x->defs.n] = members;
	sym_set(&x->defs, name, (int64_t)x->defs.n);
}

/* The attributes of one element, each name once (XML wants no repeats). */
struct attrs {
	const char *name[TG_MAX_ARGS + 8];
	char val[TG_MAX_ARGS + 8][512];
	int n;
};

static void attr_set(struct attrs *a, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void attr_set(struct attrs *a, const char *name, const char *fmt, ...)
{
	va_list ap;
	int i;

	for (i = 0; i < a->n && strcmp(a->name[i], name) != 0; i++)
		;
	if (i == (int)(sizeof(a->name) / sizeof(a->name[0])))
		return;
	a->name[i] = name;
	va_start(ap, fmt);
	vsnprintf(a->val[i], sizeof(a->val[i]), fmt, ap);
	va_end(ap);
	if (i == a->n)
		a->n++;
}

/* The appendix's attribute of an integer argument, NULL if none. */
static const char *int_attr(const char *arg, int recv)
{
	static const char *map[][2] = {
		{ "count", "count" }, { "sendcount", "count" }, { "recvcount", "recvCount" },
		{ "dest", "toRank" }, { "source", "fromRank" }, { "root", "rootRank" },
		{ "sendtag", "toTag" }, { "recvtag", "fromTag" }, { "amode", "flags" },
		{ "offset", "offset" }, { "disp", "offset" }, { "size", "size" },
	};
	size_t i;

	if (strcmp(arg, "tag") == 0)
		return recv ? "fromTag" : "toTag";
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(arg, map[i][0]) == 0)
			return map[i][1];
	return NULL;
}

static const char *type_attr(const char *arg)
{
	return strcmp(arg, "recvtype") == 0 ? "recvtid" : strcmp(arg, "etype") == 0 ? "etid" :
	       strcmp(arg, "filetype") == 0 ? "filetid" : "tid";
}

/* One argument's attribute, if the appendix has one for it. */
static void arg_attr(struct hd *x, struct attrs *a, const struct tg_rec *r, int i, int64_t *fid)
{
	const struct tg_argdesc *ad = &r->call->args[i];
	const struct tg_val *v = &r->args[i];
	const char *t, *an;
	size_t n;

	if (ad->kind == TG_K_MPIH) {
		t = tg_text_val(ad->kind, ad->sub, v, &n);
		if (ad->sub == TG_H_COMM)
			attr_set(a, "cid", "%" PRId64, cid_of(x, t));
		else if (ad->sub == TG_H_DTYPE && strcmp(t, "MPI_DATATYPE_NULL") != 0)
			attr_set(a, type_attr(ad->name), "%" PRId64, tid_of(x, t));
		else if (ad->sub == TG_H_REQ && t[0] == 'r')
			attr_set(a, "rid", "%s", t + 1);
		else if (ad->sub == TG_H_FILE && *fid < 0 && sym_get(&x->fhs, t) >= 0)
			attr_set(a, "fid", "%" PRId64, *fid = sym_get(&x->fhs, t));
		else if (ad->sub == TG_H_FILE && *fid >= 0)	/* File_open's new handle */
			sym_set(&x->fhs, t, *fid);
	} else if (ad->kind == TG_K_STR && strcmp(ad->name, "filename") == 0 && v->s) {
		char *path = NULL;
		if (v->s[0] != '/' && x->s->h->cwd && asprintf(&path, "%s/%s", x->s->h->cwd, v->s) < 0)
			path = NULL;
		*fid = fid_of(x, path ? path : v->s);
		attr_set(a, "name", "%s", path ? path : v->s);
		attr_set(a, "fid", "%" PRId64, *fid);
		free(path);
	} else if (ad->kind == TG_K_STR && strcmp(ad->name, "datarep") == 0 && v->s) {
		attr_set(a, "representation", "%.60s", v->s);
	} else if (ad->kind == TG_K_MPISTATUS && v->present && r->call->hb &&
		   r->call->hb->kind == TG_MK_RECV) {
		attr_set(a, "fromRank", "%" PRId64, v->i);
		attr_set(a, "fromTag", "%" PRId64, (int64_t)v->u);
	} else if ((ad->kind == TG_K_INT || ad->kind == TG_K_SIGNED_OFF) &&
		   (an = int_attr(ad->name, r->call->hb && r->call->hb->kind == TG_MK_RECV))) {
		attr_set(a, an, "%" PRId64, v->i);
	}
}

static void put_time(FILE *f, const char *name, uint64_t ns)
{
	fprintf(f, " %s='%" PRIu64 ".%06" PRIu64 "'", name, ns / 1000000000u, ns % 1000000000u / 1000);
}

/* The held calls of thread @tid deeper than @depth, the calls nested in
 * the one that came: written in their order with @keep, else dropped. */
static void held_out(struct hd *x, unsigned tid, unsigned depth, int keep)
{
	size_t i, n = 0;
	FILE *f = NULL;

	for (i = 0; i < x->nheld; i++) {
		struct held *h = &x->held[i];
		if (h->tid != tid || h->depth <= depth) {
			x->held[n++] = *h;
			continue;
		}
		if (keep && (f || (f = trc_of(x, tid))))
			fputs(h->text, f);
		free(h->text);
	}
	x->nheld = n;
}

static int hd_call(struct hd *x, const struct tg_rec *r)
{
	const struct tg_calldesc *d = r->call;
	const char *fn = d->name;
	int64_t fid = -1, count = -1, tsize = 1;
	struct attrs a;
	char *text = NULL;
	size_t tlen = 0;
	FILE *f;
	int i;

	if (rank_known(x) < 0)
		return -1;
	if (tg_rec_top(r))
		f = trc_of(x, r->tid);
	else
		f = open_memstream(&text, &tlen);	/* held until its caller comes */
	if (!f)
		return -1;
	a.n = 0;
	for (i = 0; i < d->nargs && i < TG_MAX_ARGS; i++) {
		arg_attr(x, &a, r, i, &fid);
		if (strcmp(d->args[i].name, "count") == 0 || strcmp(d->args[i].name, "sendcount") == 0)
			count = r->args[i].i;
		if (d->args[i].kind == TG_K_MPIH && d->args[i].sub == TG_H_DTYPE &&
		    strcmp(type_attr(d->args[i].name), "tid") == 0) {
			size_t n;
			tsize = xp_mpi_type_size(tg_text_val(TG_K_MPIH, TG_H_DTYPE, &r->args[i], &n));
		}
	}
	if (count >= 0)
		attr_set(&a, "size", "%" PRId64, count * tsize);
	fprintf(f, "<%s", strncmp(fn, "MPI_", 4) == 0 ? fn + 4 : fn);
	for (i = 0; i < a.n; i++) {
		fprintf(f, " %s='", a.name[i]);
		xml_attr(f, a.val[i]);
		putc('\'', f);
	}
	put_time(f, "time", x->s->h->clock_base + r->tstart);
	put_time(f, "end", x->s->h->clock_base + r->tstart + r->dur);
	fputs(" />\n", f);
	if (!tg_rec_top(r)) {
		if (fclose(f) != 0)
			err(TG_EXIT_ERROR, "out of memory");
		if (x->nheld == x->capheld) {
			x->capheld = x->capheld ? 2 * x->capheld : 16;
			x->held = tg_xrealloc(x->held, x->capheld * sizeof(*x->held));
		}
		x->held[x->nheld++] = (struct held){ r->tid, r->depth, text };
	}
	return 0;
}

static int hd_rec(void *p, const struct xstream *s, const struct tg_rec *r)
{
	struct hd *x = p;

	(void)s;
	if (r->type == TG_REC_COMM)
		comm_def(x, r);
	if (r->type != TG_REC_CALL)
		return 0;
	if (r->call->layer != TG_LAYER_MPI && r->call->layer != TG_LAYER_MPIIO) {
		held_out(x, r->tid, r->depth, 1);	/* an I/O library's MPI calls */
		return 0;
	}
	held_out(x, r->tid, r->depth, 0);	/* the MPI library's own */
	return hd_call(x, r);
}

/* ---- the project description --------------------------------------------- */

static int label_cmp(const void *p, const void *q)
{
	const char *a = *(const char *const *)p, *b = *(const char *const *)q;
	size_t ha = strcspn(a, "\t"), hb = strcspn(b, "\t");
	int c = strncmp(a, b, ha < hb ? ha : hb);
	long long ra, rb;
	char *ea, *eb;

	if (c || ha != hb)
		return c ? c : ha < hb ? -1 : 1;
	ra = strtoll(a + ha + 1, &ea, 10);
	rb = strtoll(b + hb + 1, &eb, 10);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	ra = strtoll(ea + 1, NULL, 10);
	rb = strtoll(eb + 1, NULL, 10);
	return ra < rb ? -1 : ra > rb;
}

/* Topology: the fixed levels, then the labels as a tree host/rank/thread. */
static void proj_topology(struct hd *x, FILE *f)
{
	char host[256] = "", rank[32] = "";
	size_t i;

	fputs("  <Topology>\n    <Level name='Hostname'>\n      <Level name='Rank'>\n"
	      "        <Level name='Thread'>\n        </Level>\n      </Level>\n    </Level>\n", f);
	if (x->nlabels > 1)
		qsort(x->labels, x->nlabels, sizeof(*x->labels), label_cmp);
	for (i = 0; i < x->nlabels; i++) {
		char h[256], r[32], t[32];
		if (sscanf(x->labels[i], "%255[^\t]\t%31[^\t]\t%31s", h, r, t) != 3)
			continue;
		if (strcmp(h, host) != 0) {
			if (host[0])
				fputs("      </Label>\n    </Label>\n", f);
			fputs("    <Label value='", f);
			xml_attr(f, h);
			fprintf(f, "'>\n      <Label value='%s'>\n", r);
		} else if (strcmp(r, rank) != 0) {
			fprintf(f, "      </Label>\n      <Label value='%s'>\n", r);
		}
		fprintf(f, "        <Label value='%s' />\n", t);
		snprintf(host, sizeof(host), "%s", h);
		snprintf(rank, sizeof(rank), "%s", r);
	}
	if (host[0])
		fputs("      </Label>\n    </Label>\n", f);
	fputs("  </Topology>\n", f);
}

static int comm_cmp(const void *p, const void *q)
{
	const struct comm *a = p, *b = q;
	int c = strcmp(a->members, b->members);

	if (c || (c = strcmp(a->name, b->name)))
		return c;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->cid < b->cid ? -1 : a->cid > b->cid;
}

/* CommunicatorList: the communicators with the same name and members are
 * one (WORLD; the unnamed ones an MPI library makes of it, such as ROMIO's
 * copy for each file, are another). */
static void proj_comms(struct hd *x, FILE *f)
{
	size_t i;

	if (x->ncomms > 1)
		qsort(x->comms, x->ncomms, sizeof(*x->comms), comm_cmp);
	fputs("  <CommunicatorList>\n", f);
	for (i = 0; i < x->ncomms; i++) {
		const struct comm *c = &x->comms[i];
		if (i == 0 || strcmp(c->members, x->comms[i - 1].members) != 0 ||
		    strcmp(c->name, x->comms[i - 1].name) != 0)
			fprintf(f, "%s    <Communicator name='%s'>\n", i ? "    </Communicator>\n" : "",
				c->name);
		fprintf(f, "      <Rank global='%" PRId64 "' local='%" PRId64 "' cid='%" PRId64 "' />\n",
			c->rank, c->local, c->cid);
	}
	if (x->ncomms)
		fputs("    </Communicator>\n", f);
	fputs("  </CommunicatorList>\n", f);
}

static int proj_write(struct hd *x)
{
	FILE *f = out_file(x, "%s.proj", x->prog ? x->prog : "program");
	size_t i, nranks = 0;

	if (!f)
		return -1;
	for (i = 0; i < x->ncomms; i++)
		nranks += x->comms[i].cid == 0;
	fprintf(f, "<?xml version='1.0' encoding='UTF-8'?>\n<Application name='");
	xml_attr(f, x->prog);
	fprintf(f, "' processCount='%zu'>\n  <Description>exported by trace-export from a Tangram "
		"trace</Description>\n  <FileList>\n", nranks);
	for (i = 0; i < x->files.n; i++) {
		fputs("    <File name='", f);
		xml_attr(f, x->files.v[i].name);
		fputs("'>\n      <InitialSize>0</InitialSize>\n    </File>\n", f);
	}
	fputs("  </FileList>\n", f);
	proj_topology(x, f);
	proj_comms(x, f);
	fflush(x->dtypes);
	fputs("  <Datatypes>\n", f);
	fwrite(x->dbuf, 1, x->dlen, f);
	fputs("  </Datatypes>\n</Application>\n", f);
	return file_close(x, f, ".proj");
}

static int hd_close(void *p, int ok)
{
	struct hd *x = p;
	int rc = stream_end(x);
	size_t i;

	(void)ok;
	if (rc == 0 && !x->failed)
		rc = proj_write(x);
	if (x->failed)
		rc = -1;
	fclose(x->dtypes);
	free(x->dbuf);
	sym_free(&x->files);
	for (i = 0; i < x->ncomms; i++) {
		free(x->comms[i].name);
		free(x->comms[i].members);
	}
	for (i = 0; i < x->nlabels; i++)
		free(x->labels[i]);
	free(x->comms);
	free(x->labels);
	free(x->held);
	free(x->prog);
	free(x);
	return rc;
}

const struct exporter tg_export_hdtrace = {
	"hdtrace", hd_open, hd_stream, hd_rec, hd_close,
};
