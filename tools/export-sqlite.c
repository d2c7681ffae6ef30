/*
 * export-sqlite.c - a SQLite database of the trace: calls (one row each,
 * arguments as a JSON object), the processes (ranks), the files they
 * named, their communicators, and the conflicting pairs when given.
 *
 * One transaction, prepared statements, no journal: the database is
 * written once, and one that cannot be written is removed rather than
 * left half written.  The file of a call comes from its path argument or, for
 * a handle, from the open that made it (the call table's roles), so the
 * only state is the handles open in the current stream.  The rows are
 * made here and stepped by a writer thread, a batch at a time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	" parent INTEGER, start INTEGER, dur INTEGER, depth INTEGER, function INTEGER, ret,"
	" errno TEXT, file INTEGER, args TEXT);"
	"CREATE VIEW calls AS SELECT c.id AS id, r.stream AS stream, r.rank AS rank,"
	" c.thread AS thread, c.seq AS seq, c.parent AS parent, c.start / 1e9 AS tstart,"
	" (c.start + c.dur) / 1e9 AS tend, c.depth AS depth, f.layer AS layer, f.name AS function, c.ret AS ret,"
	" c.errno AS errno, c.file AS file, c.args AS args"
	" FROM call_rows c JOIN ranks r ON r.stream = c.id >> 32"
	" AND c.id BETWEEN r.stream << 32 AND (r.stream << 32) + 4294967295"
	" JOIN functions f ON f.id = c.function;"
	"CREATE TABLE communicators(stream INTEGER, rank INTEGER, id TEXT, members TEXT,"
	" remote TEXT);"
	"CREATE TABLE repeats(stream INTEGER, rank INTEGER, thread INTEGER, seq INTEGER,"
	" count INTEGER, start INTEGER, dur INTEGER);"
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

/* A row for a statement, as the writer thread binds it: a value per
 * parameter, NULL unless set; texts in the batch's own buffer. */
enum { V_NULL, V_INT, V_TEXT, V_STATIC };
#define SQ_COLS 12
#define SQ_CALL_COLS 12		/* call_rows' */
#define SQ_MULTI 16		/* calls a statement */

struct val {
	union {
		sqlite3_int64 i;
		size_t off;	/* V_TEXT: in the batch's text */
		const char *p;	/* V_STATIC: lives as long as the program */
	} u;
	int len;
	int type;
};

struct op {
	sqlite3_stmt *st;
	const char *what;
	struct val v[SQ_COLS];
};

#define SQ_BATCH 4096

struct batch {
	struct op ops[SQ_BATCH];
	size_t n;
	char *text;
	size_t ntext, captext;
};

struct sq {
	sqlite3 *db;
	struct fslot *fs;
	size_t nfs, capfs;
	const struct xopts *o;
	sqlite3_stmt *call, *calls, *file, *rank, *comm, *func, *upd, *rep;
	sqlite3_int64 ncalls;	/* rows of the current stream */
	unsigned char *fseen;	/* functions with a row, by id */
	FILE *m;		/* the arguments' JSON is written here */
	char *mbuf;
	size_t mlen;
	struct handle *h;	/* open handles of the current stream */
	size_t nh, caph;
	/* The rows are made here and written by a thread of their own: this
	 * thread fills b[cur] while the writer steps through *pending. */
	struct batch *b[2];
	struct op *op;		/* the row being made */
	int cur, done;
	struct batch *pending;
	pthread_t writer;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int failed;		/* set by the writer, read under mu */
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
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : sq_err(q, what);
}

/* Bind row @o to parameters @first + 1 on of @st. */
static void bind_op(sqlite3_stmt *st, int first, const struct op *o, const struct batch *b)
{
	int c, nc = sqlite3_bind_parameter_count(o->st);

	for (c = 0; c < nc && c < SQ_COLS; c++) {
		const struct val *v = &o->v[c];
		switch (v->type) {
		case V_INT:
			sqlite3_bind_int64(st, first + c + 1, v->u.i);
			break;
		case V_TEXT:
			sqlite3_bind_text(st, first + c + 1, b->text + v->u.off, v->len, SQLITE_STATIC);
			break;
		case V_STATIC:
			sqlite3_bind_text(st, first + c + 1, v->u.p, -1, SQLITE_STATIC);
			break;
		default:
			sqlite3_bind_null(st, first + c + 1);
		}
	}
}

/* Step batch @b's rows, SQ_MULTI calls to a statement where they follow
 * each other; a failure skips the rest. */
static void run_batch(struct sq *q, struct batch *b)
{
	size_t i, k;

	for (i = 0; i < b->n && !q->failed;) {
		for (k = 0; k < SQ_MULTI && i + k < b->n && b->ops[i + k].st == q->call; k++)
			;
		if (k == SQ_MULTI) {
			for (k = 0; k < SQ_MULTI; k++)
				bind_op(q->calls, (int)k * SQ_CALL_COLS, &b->ops[i + k], b);
			step(q, q->calls, "calls");
			i += SQ_MULTI;
			continue;
		}
		bind_op(b->ops[i].st, 0, &b->ops[i], b);
		step(q, b->ops[i].st, b->ops[i].what);
		i++;
	}
}

static void *writer(void *x)
{
	struct sq *q = x;
	struct batch *b;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->pending && !q->done)
			pthread_cond_wait(&q->cv, &q->mu);
		if (!(b = q->pending))
			break;
		pthread_mutex_unlock(&q->mu);
		run_batch(q, b);
		pthread_mutex_lock(&q->mu);
		q->pending = NULL;
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* Hand the batch being filled to the writer once it is done with the
 * last one; -1 if the writer failed. */
static int hand_over(struct sq *q)
{
	int failed;

	pthread_mutex_lock(&q->mu);
	while (q->pending)
		pthread_cond_wait(&q->cv, &q->mu);
	failed = q->failed;
	if (!failed && q->b[q->cur]->n) {
		q->pending = q->b[q->cur];
		q->cur ^= 1;
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	q->b[q->cur]->n = 0;
	q->b[q->cur]->ntext = 0;
	return failed ? -1 : 0;
}

/* Wait for the writer to finish and end it. */
static int writer_end(struct sq *q)
{
	int rc = hand_over(q);

	pthread_mutex_lock(&q->mu);
	while (q->pending)
		pthread_cond_wait(&q->cv, &q->mu);
	q->done = 1;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->writer, NULL);
	return rc < 0 || q->failed ? -1 : 0;
}

static void row_begin(struct sq *q, sqlite3_stmt *st, const char *what)
{
	struct batch *b = q->b[q->cur];
	int c;

	q->op = &b->ops[b->n];
	q->op->st = st;
	q->op->what = what;
	for (c = 0; c < SQ_COLS; c++)
		q->op->v[c].type = V_NULL;
}

static int row_end(struct sq *q)
{
	if (++q->b[q->cur]->n < SQ_BATCH)
		return 0;
	return hand_over(q);
}

static void b_int(struct sq *q, int col, sqlite3_int64 i)
{
	q->op->v[col - 1].type = V_INT;
	q->op->v[col - 1].u.i = i;
}

static void b_null(struct sq *q, int col)
{
	q->op->v[col - 1].type = V_NULL;
}

static void b_static(struct sq *q, int col, const char *s)
{
	q->op->v[col - 1].type = V_STATIC;
	q->op->v[col - 1].u.p = s;
}

static void b_text(struct sq *q, int col, const char *s, int n)
{
	struct batch *b = q->b[q->cur];
	size_t len = n < 0 ? strlen(s) : (size_t)n;

	if (b->ntext + len + 1 > b->captext) {
		b->captext = 2 * (b->ntext + len + 1) > 65536 ? 2 * (b->ntext + len + 1) : 65536;
		b->text = tg_xrealloc(b->text, b->captext);
	}
	memcpy(b->text + b->ntext, s, len);
	q->op->v[col - 1].type = V_TEXT;
	q->op->v[col - 1].u.off = b->ntext;
	q->op->v[col - 1].len = (int)len;
	b->ntext += len + 1;
}

/* The statement that inserts SQ_MULTI calls. */
static int prepare_calls(struct sq *q)
{
	char sql[64 + SQ_MULTI * (2 * SQ_CALL_COLS + 3)];
	size_t n = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO call_rows VALUES");
	int k, c;

	for (k = 0; k < SQ_MULTI; k++) {
		sql[n++] = k ? ',' : ' ';
		sql[n++] = '(';
		for (c = 0; c < SQ_CALL_COLS; c++) {
			sql[n++] = c ? ',' : '?';
			if (c)
				sql[n++] = '?';
		}
		sql[n++] = ')';
	}
	sql[n] = 0;
	return sqlite3_prepare_v2(q->db, sql, -1, &q->calls, NULL);
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
	/* the database is made afresh: a file of that name is replaced, but
	 * nothing else (a device, a link to one, a directory) */
	{
		struct stat st;
		if (stat(o->out, &st) == 0 && !S_ISREG(st.st_mode)) {
			warnx("cannot replace '%s': not a regular file", o->out);
			goto fail;
		}
	}
	if (unlink(o->out) < 0 && errno != ENOENT) {
		warn("cannot replace '%s'", o->out);
		goto fail;
	}
	/* no count of SQLite's memory: its mutex on every allocation */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (sqlite3_open_v2(o->out, &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    sqlite3_exec(q->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
		warnx("cannot create '%s': %s", o->out, q->db ? sqlite3_errmsg(q->db) : "out of memory");
		goto fail;
	}
	if (sqlite3_prepare_v2(q->db, "INSERT INTO call_rows VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &q->call, NULL) != SQLITE_OK ||
	    prepare_calls(q) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->db, "INSERT INTO functions VALUES(?,?,?)", -1, &q->func,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->db, "INSERT INTO files VALUES(?,?)", -1, &q->file,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->db, "UPDATE ranks SET rank = ?, world = ? WHERE stream = ?", -1,
			       &q->upd, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->db, "INSERT INTO ranks VALUES(?,?,?,?,?,?,?,?,?)", -1, &q->rank,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->db, "INSERT INTO communicators VALUES(?,?,?,?,?)", -1, &q->comm,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->db, "INSERT INTO repeats VALUES(?,?,?,?,?,?,?)", -1, &q->rep,
			       NULL) != SQLITE_OK) {
		sq_err(q, "cannot prepare");
		goto fail;
	}
	if (!(q->fseen = calloc(tg_call_idmax() + 1, 1)))
		err(TG_EXIT_ERROR, "out of memory");
	if (!(q->m = open_memstream(&q->mbuf, &q->mlen)) ||
	    !(q->b[0] = calloc(1, sizeof(*q->b[0]))) || !(q->b[1] = calloc(1, sizeof(*q->b[1]))))
		err(TG_EXIT_ERROR, "out of memory");
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	if ((errno = pthread_create(&q->writer, NULL, writer, q)) != 0)
		err(TG_EXIT_ERROR, "cannot start a thread");
	return q;
fail:
	sqlite3_close(q->db);
	if (q->db)
		unlink(o->out);
	free(q);
	return NULL;
}

/* Start the JSON text of a value in the memory stream; b_mem() ends it. */
static FILE *text_begin(struct sq *q)
{
	rewind(q->m);
	return q->m;
}

static void b_mem(struct sq *q, int col)
{
	if (fflush(q->m) != 0)
		err(TG_EXIT_ERROR, "out of memory");
	b_text(q, col, q->mbuf, (int)q->mlen);
}

static int sq_stream(void *x, const struct xstream *s)
{
	struct sq *q = x;
	FILE *m;
	int i;

	q->nh = 0;
	q->ncalls = 0;
	row_begin(q, q->rank, "ranks");
	b_int(q, 1, s->index);
	if (s->rank >= 0)
		b_int(q, 2, s->rank);
	b_int(q, 3, (sqlite3_int64)s->h->pid);
	b_int(q, 4, (sqlite3_int64)s->h->ppid);
	b_text(q, 5, s->h->host, -1);
	b_text(q, 6, s->h->cwd, -1);
	m = text_begin(q);
	putc('[', m);
	for (i = 0; i < s->h->argc; i++) {
		if (i)
			putc(',', m);
		xp_json_str(m, s->h->argv[i], strlen(s->h->argv[i]));
	}
	putc(']', m);
	b_mem(q, 7);
	b_int(q, 8, (sqlite3_int64)s->h->world);
	b_int(q, 9, (sqlite3_int64)s->h->clock_base);
	return row_end(q);
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
	row_begin(q, q->file, "files");
	b_int(q, 1, (sqlite3_int64)q->nfs + 1);
	b_text(q, 2, path, -1);
	if (row_end(q) < 0)
		return 0;
	q->fs[i & (q->capfs - 1)].path = tg_xstrdup(path);
	q->fs[i & (q->capfs - 1)].id = (sqlite3_int64)q->nfs + 1;
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
		row_begin(q, q->func, "functions");
		b_int(q, 1, d->id);
		b_static(q, 2, tg_layer_name(d->layer));
		b_static(q, 3, d->name);
		row_end(q);
	}
	return d->id;
}

static int sq_call(struct sq *q, const struct xstream *s, const struct tg_rec *r)
{
	const struct tg_calldesc *d = r->call;
	sqlite3_int64 file = call_file(q, s, r), fn = func_id(q, d);
	uint64_t t = xp_time(s, r->tstart);
	FILE *m;
	int i;

	row_begin(q, q->call, "calls");
	b_int(q, 1, ((sqlite3_int64)s->index << 32) + ++q->ncalls);
	b_int(q, 2, r->tid);
	b_int(q, 3, (sqlite3_int64)r->seq);
	if (r->parent >= 0)
		b_int(q, 4, r->parent);
	else
		b_null(q, 4);
	b_int(q, 5, (sqlite3_int64)t);
	b_int(q, 6, (sqlite3_int64)r->dur);
	b_int(q, 7, r->depth);
	b_int(q, 8, fn);
	if (d->retkind != TG_K_VOID) {
		struct tg_val rv = { .i = r->ret };
		size_t n;
		const char *v = tg_text_val(d->retkind, d->retsub, &rv, &n);
		if (d->retkind == TG_K_INT || d->retkind == TG_K_UINT || d->retkind == TG_K_SIGNED_OFF)
			b_int(q, 9, r->ret);
		else
			b_text(q, 9, v, (int)n);
	} else {
		b_null(q, 9);
	}
	if (r->err) {
		const char *en = tg_errno_name(r->err);
		if (en)
			b_static(q, 10, en);
		else
			b_int(q, 10, r->err);
	} else {
		b_null(q, 10);
	}
	if (file)
		b_int(q, 11, file);
	else
		b_null(q, 11);
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
	b_mem(q, 12);
	return row_end(q);
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
		row_begin(q, q->upd, "ranks");
		b_int(q, 1, s->rank >= 0 ? s->rank : r->rank);	/* of several runs: global */
		b_int(q, 2, (sqlite3_int64)r->world);
		b_int(q, 3, s->index);
		return row_end(q);
	}
	if (r->type == TG_REC_REPEAT) {	/* calls folded into the thread's last */
		row_begin(q, q->rep, "repeats");
		b_int(q, 1, s->index);
		if (s->rank >= 0)
			b_int(q, 2, s->rank);
		b_int(q, 3, r->tid);
		b_int(q, 4, (sqlite3_int64)r->seq);
		b_int(q, 5, (sqlite3_int64)r->repeat);
		b_int(q, 6, (sqlite3_int64)xp_time(s, r->tstart));
		b_int(q, 7, (sqlite3_int64)r->dur);
		return row_end(q);
	}
	if (r->type != TG_REC_COMM)
		return 0;
	row_begin(q, q->comm, "communicators");
	b_int(q, 1, s->index);
	if (s->rank >= 0)
		b_int(q, 2, s->rank);
	id = r->args[0];
	id.arr = NULL;
	{
		const char *t = tg_text_val(TG_K_MPIH, TG_H_COMM, &id, &n);
		b_text(q, 3, t, (int)n);
	}
	members(text_begin(q), &r->args[1]);
	b_mem(q, 4);
	if (r->args[2].i >= 0) {
		members(text_begin(q), &r->args[2]);
		b_mem(q, 5);
	}
	return row_end(q);
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
	int rc = writer_end(q);

	if (rc == 0 && q->o->npairs)
		rc = sq_conflicts(q);
	if (rc == 0 && sqlite3_exec(q->db, indexes, NULL, NULL, NULL) != SQLITE_OK)
		rc = sq_err(q, "cannot write");
	sqlite3_finalize(q->call);
	sqlite3_finalize(q->calls);
	sqlite3_finalize(q->file);
	sqlite3_finalize(q->rank);
	sqlite3_finalize(q->comm);
	sqlite3_finalize(q->func);
	sqlite3_finalize(q->upd);
	sqlite3_finalize(q->rep);
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
	for (i = 0; i < 2; i++) {
		free(q->b[i]->text);
		free(q->b[i]);
	}
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	free(q);
	return rc;
}

const struct exporter tg_export_sqlite = {
	"sqlite", sq_open, sq_stream, sq_rec, sq_close,
};
