/*
 * export-sqlite.c - a SQLite database of the trace: calls (one row each,
 * arguments as a JSON object), the processes (ranks), the files they
 * named, their communicators, and the conflicting pairs when given.
 *
 * One transaction, prepared statements, no journal: the database is
 * written once, and one that cannot be written is removed rather than
 * left half written.  The file of a call comes from its path argument or, for
 * a handle, from the open that made it (the call table's roles), so the
 * only state is the handles open in the current stream.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../libcommon/calltab.h"
#include "../libcommon/names.h"
#include "../libcommon/text.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "export.h"
#include "../libcommon/banned.h"

/* A call's row is in call_rows, keyed by its stream in the high 32 bits
 * of its id and its place in the stream below: rows go in in key order
 * (SQLite's append path), and a stream's (a rank's) calls are one range of
 * the key, an index on rank that costs no sort.  Layer and function are
 * the id of a row of functions.  The view calls joins them back. */
static const char schema[] =
	"PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
	"CREATE TABLE ranks(stream INTEGER PRIMARY KEY, rank INTEGER, pid INTEGER, ppid INTEGER,"
	" host TEXT, cwd TEXT, argv TEXT, world INTEGER, clock_base INTEGER);"
	"CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL);"
	"CREATE TABLE functions(id INTEGER PRIMARY KEY, layer TEXT, name TEXT UNIQUE);"
	"CREATE TABLE call_rows(id INTEGER PRIMARY KEY, thread INTEGER, seq INTEGER,"
	" parent INTEGER, tstart REAL, tend REAL, depth INTEGER, function INTEGER, ret,"
	" errno TEXT, file INTEGER, args TEXT);"
	"CREATE VIEW calls AS SELECT c.id AS id, r.stream AS stream, r.rank AS rank,"
	" c.thread AS thread, c.seq AS seq, c.parent AS parent, c.tstart AS tstart,"
	" c.tend AS tend, c.depth AS depth, f.layer AS layer, f.name AS function, c.ret AS ret,"
	" c.errno AS errno, c.file AS file, c.args AS args"
	" FROM call_rows c JOIN ranks r ON r.stream = c.id >> 32"
	" AND c.id BETWEEN r.stream << 32 AND (r.stream << 32) + 4294967295"
	" JOIN functions f ON f.id = c.function;"
	"CREATE TABLE communicators(stream INTEGER, rank INTEGER, id TEXT, members TEXT,"
	" remote TEXT);"
	"CREATE TABLE conflicts(id INTEGER PRIMARY KEY, file TEXT, kind TEXT, procs TEXT,"
	" rank1 TEXT, seq1 INTEGER, func1 TEXT, op1 TEXT, start1 INTEGER, end1 INTEGER,"
	" rank2 TEXT, seq2 INTEGER, func2 TEXT, op2 TEXT, start2 INTEGER, end2 INTEGER,"
	" synchronized INTEGER, conflict_posix INTEGER, conflict_commit INTEGER,"
	" conflict_session INTEGER);"
	"BEGIN;";

static const char indexes[] =
	"CREATE INDEX call_rows_file ON call_rows(file) WHERE file IS NOT NULL;"
	"CREATE INDEX call_rows_function ON call_rows(function);"
	"CREATE INDEX ranks_rank ON ranks(rank);"
	"COMMIT;";

struct handle {
	char key[24];
	sqlite3_int64 file;
};

/* The files' ids, so that a call's file costs no statement: open
 * addressing on the path's hash. */
struct fslot {
	char *path;
	sqlite3_int64 id;
};

struct sq {
	sqlite3 *db;
	struct fslot *fs;
	size_t nfs, capfs;
	const struct xopts *o;
	sqlite3_stmt *call, *file, *rank, *comm, *func;
	sqlite3_int64 ncalls;	/* rows of the current stream */
	unsigned char *fseen;	/* functions with a row, by id */
	FILE *m;		/* the arguments' JSON is written here */
	char *mbuf;
	size_t mlen;
	struct handle *h;	/* open handles of the current stream */
	size_t nh, caph;
	int failed;
};

static int sq_err(struct sq *q, const char *what)
{
	warnx("%s: %s: %s", q->o->out, what, sqlite3_errmsg(q->db));
	q->failed = 1;
	return -1;
}

static int step(struct sq *q, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (st != q->call)	/* a call binds every column, NULL too */
		sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : sq_err(q, what);
}

static void *sq_open(const struct xopts *o)
{
	struct sq *q = calloc(1, sizeof(*q));

	if (!q)
		err(TG_EXIT_ERROR, "out of memory");
	q->o = o;
	if (strcmp(o->out, "-") == 0) {
		warnx("-f sqlite writes a file, not standard output: give -o file.db");
		goto fail;
	}
	if (unlink(o->out) < 0 && errno != ENOENT) {
		warn("cannot replace '%s'", o->out);
		goto fail;
	}
	if (sqlite3_open_v2(o->out, &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    sqlite3_exec(q->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
		warnx("cannot create '%s': %s", o->out, q->db ? sqlite3_errmsg(q->db) : "out of memory");
		goto fail;
	}
	if (sqlite3_prepare_v2(q->db, "INSERT INTO call_rows VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &q->call, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->db, "INSERT INTO functions VALUES(?,?,?)", -1, &q->func,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->db, "INSERT INTO files(path) VALUES(?)", -1, &q->file,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->db, "INSERT INTO ranks VALUES(?,?,?,?,?,?,?,?,?)", -1, &q->rank,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->db, "INSERT INTO communicators VALUES(?,?,?,?,?)", -1, &q->comm,
			       NULL) != SQLITE_OK) {
		sq_err(q, "cannot prepare");
		goto fail;
	}
	if (!(q->fseen = calloc(tg_call_idmax() + 1, 1)))
		err(TG_EXIT_ERROR, "out of memory");
	if (!(q->m = open_memstream(&q->mbuf, &q->mlen)))
		err(TG_EXIT_ERROR, "out of memory");
	return q;
fail:
	sqlite3_close(q->db);
	if (q->db)
		unlink(o->out);
	free(q);
	return NULL;
}

/* Start the JSON text of a row in the memory stream; sq_text() ends it. */
static FILE *text_begin(struct sq *q)
{
	rewind(q->m);
	return q->m;
}

static int sq_text(struct sq *q, sqlite3_stmt *st, int col)
{
	if (fflush(q->m) != 0)
		err(TG_EXIT_ERROR, "out of memory");
	/* a call's row is stepped before the buffer is written again */
	return sqlite3_bind_text(st, col, q->mbuf, (int)q->mlen,
				 st == q->call ? SQLITE_STATIC : SQLITE_TRANSIENT);
}

static int sq_stream(void *x, const struct xstream *s)
{
	struct sq *q = x;
	FILE *m;
	int i;

	q->nh = 0;
	q->ncalls = 0;
	sqlite3_bind_int64(q->rank, 1, s->index);
	if (s->rank >= 0)
		sqlite3_bind_int64(q->rank, 2, s->rank);
	sqlite3_bind_int64(q->rank, 3, (sqlite3_int64)s->h->pid);
	sqlite3_bind_int64(q->rank, 4, (sqlite3_int64)s->h->ppid);
	sqlite3_bind_text(q->rank, 5, s->h->host, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q->rank, 6, s->h->cwd, -1, SQLITE_TRANSIENT);
	m = text_begin(q);
	putc('[', m);
	for (i = 0; i < s->h->argc; i++) {
		if (i)
			putc(',', m);
		xp_json_str(m, s->h->argv[i], strlen(s->h->argv[i]));
	}
	putc(']', m);
	sq_text(q, q->rank, 7);
	sqlite3_bind_int64(q->rank, 8, (sqlite3_int64)s->h->world);
	sqlite3_bind_int64(q->rank, 9, (sqlite3_int64)s->h->clock_base);
	return step(q, q->rank, "ranks");
}

static uint64_t path_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return h;
}

/* The id of file @path, added if new; 0 if none. */
static sqlite3_int64 file_id(struct sq *q, const char *path)
{
	size_t i, j;

	if (!path || !*path)
		return 0;
	if (2 * (q->nfs + 1) > q->capfs) {
		struct fslot *old = q->fs;
		size_t ocap = q->capfs;
		q->capfs = ocap ? 2 * ocap : 256;
		if (!(q->fs = calloc(q->capfs, sizeof(*q->fs))))
			err(TG_EXIT_ERROR, "out of memory");
		for (j = 0; j < ocap; j++) {
			if (!old[j].path)
				continue;
			for (i = path_hash(old[j].path); q->fs[i & (q->capfs - 1)].path; i++)
				;
			q->fs[i & (q->capfs - 1)] = old[j];
		}
		free(old);
	}
	for (i = path_hash(path); q->fs[i & (q->capfs - 1)].path; i++)
		if (strcmp(q->fs[i & (q->capfs - 1)].path, path) == 0)
			return q->fs[i & (q->capfs - 1)].id;
	sqlite3_bind_text(q->file, 1, path, -1, SQLITE_STATIC);
	if (step(q, q->file, "files") < 0)
		return 0;
	q->fs[i & (q->capfs - 1)].path = tg_xstrdup(path);
	q->fs[i & (q->capfs - 1)].id = sqlite3_last_insert_rowid(q->db);
	q->nfs++;
	return q->fs[i & (q->capfs - 1)].id;
}

/* The text of handle argument @a of call @r ("" if none). */
static void handle_key(char *key, size_t cap, const struct tg_rec *r, int a)
{
	const struct tg_calldesc *d = r->call;
	struct tg_val rv;
	const char *s;
	size_t n;

	key[0] = 0;
	if (a == TG_ARG_RET) {
		memset(&rv, 0, sizeof(rv));
		rv.i = r->ret;
		s = tg_text_val(d->retkind, d->retsub, &rv, &n);
	} else if (a >= 0 && a < d->nargs && a < TG_MAX_ARGS) {
		s = tg_text_val(d->args[a].kind, d->args[a].sub, &r->args[a], &n);
	} else {
		return;
	}
	snprintf(key, cap, "%s", s);
}

static struct handle *handle_find(struct sq *q, const char *key)
{
	size_t i;

	for (i = q->nh; i-- > 0;)
		if (strcmp(q->h[i].key, key) == 0)
			return &q->h[i];
	return NULL;
}

/* The absolute form of @path against the stream's directory. */
static char *absolute(const struct xstream *s, const char *path)
{
	char *p;

	if (path[0] == '/' || !s->h->cwd || asprintf(&p, "%s/%s", s->h->cwd, path) < 0)
		return tg_xstrdup(path);
	return p;
}

/* The file call @r works on, following its handles (roles): opens add
 * one, closes drop it. */
static sqlite3_int64 call_file(struct sq *q, const struct xstream *s, const struct tg_rec *r)
{
	const struct tg_calldesc *d = r->call;
	sqlite3_int64 id = 0;
	struct handle *h;
	char key[24];
	int i;

	for (i = 0; i < d->nargs && i < TG_MAX_ARGS && !id; i++)
		if (d->args[i].kind == TG_K_PATH && r->args[i].s)
			id = file_id(q, r->args[i].s);
	for (i = 0; i < d->nio; i++) {
		const struct tg_iorole *io = &d->io[i];
		handle_key(key, sizeof(key), r, io->h);
		if (!key[0])
			continue;
		if ((io->op == TG_IO_OPEN || io->op == TG_IO_REOPEN) && !r->err && io->a >= 0 &&
		    io->a < d->nargs && r->args[io->a].s) {
			char *path = absolute(s, r->args[io->a].s);
			id = file_id(q, path);
			free(path);
			if (!(h = handle_find(q, key))) {
				if (q->nh == q->caph) {
					q->caph = q->caph ? 2 * q->caph : 64;
					q->h = tg_xrealloc(q->h, q->caph * sizeof(*q->h));
				}
				h = &q->h[q->nh++];
				snprintf(h->key, sizeof(h->key), "%s", key);
			}
			h->file = id;
		} else if ((h = handle_find(q, key))) {
			if (!id)
				id = h->file;
			if (io->op == TG_IO_CLOSE)
				*h = q->h[--q->nh];
		}
	}
	return id;
}

/* The id of function @d, its row added if new. */
static sqlite3_int64 func_id(struct sq *q, const struct tg_calldesc *d)
{
	if (!q->fseen[d->id]) {
		q->fseen[d->id] = 1;
		sqlite3_bind_int64(q->func, 1, d->id);
		sqlite3_bind_text(q->func, 2, tg_layer_name(d->layer), -1, SQLITE_STATIC);
		sqlite3_bind_text(q->func, 3, d->name, -1, SQLITE_STATIC);
		step(q, q->func, "functions");
	}
	return d->id;
}

static int sq_call(struct sq *q, const struct xstream *s, const struct tg_rec *r)
{
	const struct tg_calldesc *d = r->call;
	sqlite3_stmt *st = q->call;
	sqlite3_int64 file = call_file(q, s, r);
	uint64_t t = xp_time(s, r->tstart);
	FILE *m;
	int i;

	sqlite3_bind_int64(st, 1, ((sqlite3_int64)s->index << 32) + ++q->ncalls);
	sqlite3_bind_int64(st, 2, r->tid);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)r->seq);
	if (r->parent >= 0)
		sqlite3_bind_int64(st, 4, r->parent);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_double(st, 5, (double)t / 1e9);
	sqlite3_bind_double(st, 6, (double)(t + r->dur) / 1e9);
	sqlite3_bind_int64(st, 7, r->depth);
	sqlite3_bind_int64(st, 8, func_id(q, d));
	if (d->retkind != TG_K_VOID) {
		struct tg_val rv = { .i = r->ret };
		size_t n;
		const char *v = tg_text_val(d->retkind, d->retsub, &rv, &n);
		if (d->retkind == TG_K_INT || d->retkind == TG_K_UINT || d->retkind == TG_K_SIGNED_OFF)
			sqlite3_bind_int64(st, 9, r->ret);
		else
			sqlite3_bind_text(st, 9, v, (int)n, SQLITE_TRANSIENT);
	} else {
		sqlite3_bind_null(st, 9);
	}
	if (r->err) {
		const char *en = tg_errno_name(r->err);
		if (en)
			sqlite3_bind_text(st, 10, en, -1, SQLITE_STATIC);
		else
			sqlite3_bind_int64(st, 10, r->err);
	} else {
		sqlite3_bind_null(st, 10);
	}
	if (file)
		sqlite3_bind_int64(st, 11, file);
	else
		sqlite3_bind_null(st, 11);
	m = text_begin(q);
	putc_unlocked('{', m);
	for (i = 0; i < d->nargs && i < TG_MAX_ARGS; i++) {
		if (i)
			putc_unlocked(',', m);
		putc_unlocked('"', m);
		fputs_unlocked(d->args[i].name, m);
		fputs_unlocked("\":", m);
		xp_json_val(m, d->args[i].kind, d->args[i].sub, &r->args[i]);
	}
	putc_unlocked('}', m);
	sq_text(q, st, 12);
	return step(q, st, "calls");
}

/* A communicator's members (world ranks) as a JSON array. */
static void members(FILE *m, const struct tg_val *v)
{
	int64_t i;

	putc('[', m);
	for (i = 0; i < v->i; i++) {
		if (i)
			putc(',', m);
		xp_put_i64(m, v->arr[i]);
	}
	putc(']', m);
}

static int sq_rec(void *x, const struct xstream *s, const struct tg_rec *r)
{
	struct sq *q = x;
	struct tg_val id;
	size_t n;

	if (r->type == TG_REC_CALL)
		return sq_call(q, s, r);
	if (r->type == TG_REC_RANK) {	/* the rank became known (MPI_Init) */
		char sql[128];
		snprintf(sql, sizeof(sql), "UPDATE ranks SET rank = %" PRId64 ", world = %" PRIu64
			 " WHERE stream = %u", r->rank, r->world, s->index);
		return sqlite3_exec(q->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : sq_err(q, "ranks");
	}
	if (r->type != TG_REC_COMM)
		return 0;
	sqlite3_bind_int64(q->comm, 1, s->index);
	if (s->rank >= 0)
		sqlite3_bind_int64(q->comm, 2, s->rank);
	id = r->args[0];
	id.arr = NULL;
	{
		const char *t = tg_text_val(TG_K_MPIH, TG_H_COMM, &id, &n);
		sqlite3_bind_text(q->comm, 3, t, (int)n, SQLITE_TRANSIENT);
	}
	members(text_begin(q), &r->args[1]);
	sq_text(q, q->comm, 4);
	if (r->args[2].i >= 0) {
		members(text_begin(q), &r->args[2]);
		sq_text(q, q->comm, 5);
	}
	return step(q, q->comm, "communicators");
}

static int sq_conflicts(struct sq *q)
{
	sqlite3_stmt *st;
	size_t i;
	int k, rc = 0;

	if (sqlite3_prepare_v2(q->db, "INSERT INTO conflicts VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?,?,"
			       "?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
		return sq_err(q, "conflicts");
	for (i = 0; i < q->o->npairs && rc == 0; i++) {
		const struct xpair *p = &q->o->pairs[i];
		sqlite3_bind_text(st, 1, p->file, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, p->kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, p->procs, -1, SQLITE_STATIC);
		for (k = 0; k < 2; k++) {
			sqlite3_bind_text(st, 4 + 6 * k, p->a[k].rank, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 5 + 6 * k, (sqlite3_int64)p->a[k].seq);
			sqlite3_bind_text(st, 6 + 6 * k, p->a[k].func, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 7 + 6 * k, p->a[k].op, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 8 + 6 * k, p->a[k].start);
			sqlite3_bind_int64(st, 9 + 6 * k, p->a[k].end);
		}
		sqlite3_bind_int(st, 16, p->synchronized);
		for (k = 0; k < 3; k++)
			sqlite3_bind_int(st, 17 + k, p->conflict[k]);
		rc = step(q, st, "conflicts");
	}
	sqlite3_finalize(st);
	return rc;
}

static int sq_close(void *x, int ok)
{
	struct sq *q = x;
	size_t i;
	int rc = q->failed ? -1 : 0;

	if (rc == 0 && q->o->npairs)
		rc = sq_conflicts(q);
	if (rc == 0 && sqlite3_exec(q->db, indexes, NULL, NULL, NULL) != SQLITE_OK)
		rc = sq_err(q, "cannot write");
	sqlite3_finalize(q->call);
	sqlite3_finalize(q->file);
	sqlite3_finalize(q->rank);
	sqlite3_finalize(q->comm);
	sqlite3_finalize(q->func);
	if (sqlite3_close(q->db) != SQLITE_OK && rc == 0)
		rc = sq_err(q, "cannot close");
	(void)ok;	/* a damaged input leaves what was read before it */
	if (rc < 0)
		unlink(q->o->out);
	fclose(q->m);
	free(q->mbuf);
	for (i = 0; i < q->capfs; i++)
		free(q->fs[i].path);
	free(q->fs);
	free(q->h);
	free(q->fseen);
	free(q);
	return rc;
}

const struct exporter tg_export_sqlite = {
	"sqlite", sq_open, sq_stream, sq_rec, sq_close,
};
