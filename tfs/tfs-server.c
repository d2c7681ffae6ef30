/*
 * tfs-server - the global TangramFS server (dissertation §5.4): for the
 * sync-based design who attached which range of which file, and each
 * file's end; for the lock-based design the global lock manager, the
 * tokens each node holds of each file, each node's manager and its
 * counters.  See tfs-server(8) and tfs-protocol(5).
 *
 * The transport's progress thread receives requests and answers each
 * itself (no handler waits: a lock request that must wait is answered
 * EAGAIN and asked again), so a round trip costs no thread hop; with
 * -w N it deals them to N worker threads round-robin instead, each with a
 * FIFO queue, and a worker answers.
 * Every file has an interval tree of attached ranges and their owners under
 * its own lock; the tables of files and clients are under one lock, always
 * taken before a file's.  Files are never freed before exit, so a worker
 * may keep a pointer to one after dropping the table lock.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "itree.h"
#include "proto.h"
#include "recover.h"
#include "serverfile.h"
#include "transport.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "../libcommon/banned.h"

static const char usage_text[] =
	"usage: tfs-server [-h] [-a address] [-w workers] -d dir\n"
	"       tfs-server --stop dir\n"
	"       tfs-server --recover dir\n";

struct client {
	uint64_t id;
	uint32_t node, pid;
	char addr[128];
	atomic_int gone;	/* disconnected: its attachments are dropped */
	int dropped;		/* its end handled, its attachments dropped (S.report_lock) */
	atomic_int unanswered;	/* it runs, and did not answer --stop's stage-out ask */
	struct tfs_ep *cb;	/* to its listener, for DROP (the revoker thread's) */
};

/* A node's tokens of one file (lock-based design): intervals with state
 * = the token type (1 read, 2 write), base = start. */
struct ntok {
	uint32_t node;
	struct tfs_itree tree;
};

/* A node of the lock-based design: its manager and its counters. */
struct lnode {
	uint32_t node;
	uint64_t mgr;		/* the manager's client id, 0 when none */
	char addr[128];
	uint64_t alpha, gamma, beta_base, beta_cur;
};

/* A node waiting for a token of a file (lock-based design), in the
 * order the conflicts were met: only the first waiter of a range may
 * settle it (split the owners' tokens); the others are told to wait. */
struct waiter {
	uint32_t node, type;
	uint64_t s, e;
	long long seen;		/* ms: its last request; a waiter silent too long is gone */
	struct waiter *next;
};

/* A pending writer of a file (sync design, posix model): a client that
 * writes it without attaching, until it attaches everything (ATTACH_CLEAN).
 * gone: it disconnected first, its writes lost.  held: it was granted a
 * range (PENDING), not only appends in flight (APPEND). */
struct pend {
	uint64_t id;
	int gone;
	int held;
};

/* The states of a range in sfile.preg: held by a pending writer to write
 * unattached (PENDING), or reserved by an append in flight (APPEND),
 * counted in the end of file already. */
enum { PREG_HELD = 0, PREG_APPEND = 1 };

/* A record lock (fcntl(2) F_SETLK) of a file, a process's: type 1 read,
 * 2 write, over [start, end). */
struct rlock {
	uint64_t client;
	uint64_t start, end;
	uint32_t type, pid;
};

/* A client that keeps a QUERY's map of a file for its later reads (a
 * delegation, granted by QUERY with TFS_QUERY_KEEP): it is told to drop
 * it (DROP) before any change to the file is acknowledged, and drops it
 * on its own once TFS_LEASE_MS have passed since it asked.  gen tells a
 * map granted again apart from the one a DROP under way was sent for. */
struct holder {
	uint64_t id, gen;
	long long until;	/* ms: its lease ends (tfsi_now_ms) */
};

struct sfile {
	uint64_t fid;
	struct holder *hold;	/* under lock: who keeps a map of it */
	size_t nhold, caphold;
	struct rlock *rl;	/* under lock: its record locks */
	size_t nrl, caprl;
	struct pend *pend;	/* under lock: its pending writers */
	size_t npend, cappend;
	struct ntok *tok;	/* under lock, like tree */
	size_t ntok;
	struct waiter *wait;	/* under lock: the FIFO of waiters */
	uint64_t eof;
	char *path;
	uint32_t mode;		/* TFS_MODE_SET | the creating open's mode, or a
				 * chmod's; 0: the default or the backing file's */
	uint32_t uid;		/* the creator's effective uid, when made here */
	uint32_t gid;		/* and its effective gid (stat's owner until backed) */
	int uidset;
	int unlinked;
	int timeset;		/* under lock: times[] were set (SETTIMES) after the
				 * last write attached, stage-out gives them */
	uint64_t times[4];	/* atime s, ns, mtime s, ns */
	uint64_t stager;	/* the client staging it out (STAGE), 0: none */
	struct tfs_itree tree;
	struct tfs_itree preg;	/* under lock: the ranges each pending writer may write */
	pthread_mutex_t lock;
	struct sfile *hnext;	/* path hash chain */
};

struct task {
	struct tfs_req *req;
	struct task *next;
};

struct worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct task *head, *tail;
	int quit;
};

#define NBUCKET 4096

static struct {
	pthread_mutex_t lock;		/* the tables below */
	struct client **clients;	/* by id - 1 */
	size_t nclients, capclients;
	struct sfile **files;		/* by fid - 1 */
	size_t nfiles, capfiles;
	struct sfile *bucket[NBUCKET];
	struct worker *workers;
	int nworkers;
	unsigned next_worker;
	unsigned char secret[TFS_SECRET_LEN];
	struct tfs_lsn *lsn;
	struct tfs_lsn *local;	/* DIR/sock, for the clients on this host; or NULL */
	pthread_t main_thread;
	struct tfs_req *stop_req;	/* a STOP waiting for its reply */
	int stopping;
	struct lnode *nodes;		/* under lock */
	size_t nnodes;
	uint64_t block;			/* TFS_BLOCK_SIZE */
	char *report;			/* what --stop is told: clients that did not stage out */
	char dir[PATH_MAX];		/* DIR: the server file's, the clients' notes' */
	pthread_mutex_t report_lock;	/* report, rescues */
	int rescues;			/* rescue_main() threads begun, not ended */
	uint64_t hgen;			/* under lock: delegations granted */
	pthread_mutex_t rv_lock;	/* the revoker's queue */
	pthread_cond_t rv_cv;
	struct revocation *rv_head, *rv_tail;
	int rv_started;
	pthread_cond_t rescue_cv;	/* one ended */
} S = { .lock = PTHREAD_MUTEX_INITIALIZER, .report_lock = PTHREAD_MUTEX_INITIALIZER,
	.rescue_cv = PTHREAD_COND_INITIALIZER, .rv_lock = PTHREAD_MUTEX_INITIALIZER,
	.rv_cv = PTHREAD_COND_INITIALIZER };

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

static void logmsg(const char *fmt, ...)
{
	char line[600];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	n = strlen(line);
	line[n] = '\n';
	fprintf(stderr, "tfs-server: %.*s", (int)n + 1, line);
}

static const char *type_name(unsigned t)
{
	static const char *const names[] = {
		[TFS_MSG_HELLO] = "hello", [TFS_MSG_OPEN] = "open",
		[TFS_MSG_ATTACH] = "attach", [TFS_MSG_DETACH] = "detach",
		[TFS_MSG_DETACH_CLIENT] = "detach-client", [TFS_MSG_QUERY] = "query",
		[TFS_MSG_EOF] = "eof", [TFS_MSG_TRUNCATE] = "truncate",
		[TFS_MSG_UNLINK] = "unlink", [TFS_MSG_STOP] = "stop",
		[TFS_MSG_LOCK_NODE] = "lock-node", [TFS_MSG_LOCK_ACQUIRE] = "lock-acquire",
		[TFS_MSG_LOCK_RELEASE] = "lock-release", [TFS_MSG_LOCK_REPORT] = "lock-report",
		[TFS_MSG_STAGE] = "stage", [TFS_MSG_PENDING] = "pending",
		[TFS_MSG_ATTACH_CLEAN] = "attach-clean", [TFS_MSG_RLOCK] = "record-lock",
		[TFS_MSG_APPEND] = "append", [TFS_MSG_SETMODE] = "setmode",
		[TFS_MSG_RENAME] = "rename", [TFS_MSG_LIST] = "list",
		[TFS_MSG_SETTIMES] = "settimes",
	};

	return t < sizeof(names) / sizeof(names[0]) && names[t] ? names[t] : "unknown";
}

/* ---- tables -------------------------------------------------------------- */

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h % NBUCKET;
}

/* Find @path, creating it when @create; with S.lock held. */
static struct sfile *file_lookup(const char *path, int create, uint64_t eof)
{
	unsigned h = hash(path);
	struct sfile *f;

	for (f = S.bucket[h]; f; f = f->hnext)
		if (strcmp(f->path, path) == 0)
			return f;
	if (!create)
		return NULL;
	if (S.nfiles == S.capfiles) {
		size_t cap = S.capfiles ? 2 * S.capfiles : 64;
		struct sfile **v = realloc(S.files, cap * sizeof(*v));

		if (!v)
			return NULL;
		S.files = v;
		S.capfiles = cap;
	}
	if (!(f = calloc(1, sizeof(*f))) || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	f->fid = ++S.nfiles;
	f->eof = eof;
	tfs_itree_init(&f->tree);
	tfs_itree_init(&f->preg);
	pthread_mutex_init(&f->lock, NULL);
	S.files[f->fid - 1] = f;
	f->hnext = S.bucket[h];
	S.bucket[h] = f;
	return f;
}

static struct sfile *file_by_id(uint64_t fid)
{
	struct sfile *f = NULL;

	pthread_mutex_lock(&S.lock);
	if (fid >= 1 && fid <= S.nfiles)
		f = S.files[fid - 1];
	pthread_mutex_unlock(&S.lock);
	return f;
}

static struct client *client_by_id(uint64_t id)
{
	return id >= 1 && id <= S.nclients ? S.clients[id - 1] : NULL;
}

static int owned_by(const struct tfs_iv *iv, void *arg)
{
	return iv->owner == *(uint64_t *)arg;
}

/* ---- record locks (fcntl F_SETLK, F_SETLKW, F_GETLK) ----------------------
 *
 * Advisory locks of byte ranges, each a client's (a process's): a read
 * lock conflicts with another client's write lock, a write lock with any
 * other client's lock; a client's own never conflict, and a new one
 * replaces what it held of the range (POSIX).  The server never waits:
 * a lock that conflicts is refused (EAGAIN) and F_SETLKW asks again.  A
 * client that disconnects loses its locks.
 */

/* Take [s, e) out of client @id's record locks of @f; f->lock held.
 * Returns 0, or ENOMEM (nothing changed). */
static int rl_drop(struct sfile *f, uint64_t id, uint64_t s, uint64_t e)
{
	size_t k, n = 0, cap = 2 * f->nrl + 1;	/* each may split in two */
	struct rlock *v = malloc(cap * sizeof(*v));

	if (!v)
		return ENOMEM;
	for (k = 0; k < f->nrl; k++) {
		struct rlock r = f->rl[k];

		if (r.client != id || r.end <= s || r.start >= e) {
			v[n++] = r;
			continue;
		}
		if (r.start < s) {
			v[n] = r;
			v[n++].end = s;
		}
		if (r.end > e) {
			v[n] = r;
			v[n++].start = e;
		}
	}
	free(f->rl);
	f->rl = v;
	f->nrl = n;
	f->caprl = cap;
	return 0;
}

static void pend_drop(struct sfile *f, uint64_t id);

/* Drop every attachment of client @id in every file, and when @gone the
 * stage marks and record locks it holds, and mark it gone where it is a
 * pending writer. */
static void drop_client(uint64_t id, int gone)
{
	size_t n, i;

	pthread_mutex_lock(&S.lock);
	n = S.nfiles;
	pthread_mutex_unlock(&S.lock);
	for (i = 1; i <= n; i++) {
		struct sfile *f = file_by_id(i);

		pthread_mutex_lock(&f->lock);
		tfs_itree_remove(&f->tree, 0, UINT64_MAX, owned_by, &id);
		if (gone && f->stager == id)
			f->stager = 0;
		if (gone)
			rl_drop(f, id, 0, UINT64_MAX);
		for (size_t k = 0; gone && k < f->npend; k++)
			if (f->pend[k].id == id && !f->pend[k].gone && !f->pend[k].held) {
				/* only appends in flight: none returned, nothing
				 * is lost; their bytes read as a hole */
				pend_drop(f, id);
				break;
			} else if (f->pend[k].id == id && !f->pend[k].gone) {
				f->pend[k].gone = 1;
				logmsg("client %llu ended with unattached writes to '%s': "
				       "they are lost, its readers get EIO", (unsigned long long)id,
				       f->path);
			}
		pthread_mutex_unlock(&f->lock);
	}
}

/* 1 when client @id is a live pending writer of @f; f->lock held. */
static int pend_of(const struct sfile *f, uint64_t id)
{
	for (size_t k = 0; k < f->npend; k++)
		if (f->pend[k].id == id && !f->pend[k].gone)
			return 1;
	return 0;
}

/* 1 when client @id owns an attached range of some file, or writes one
 * unattached. */
static int client_owns(uint64_t id)
{
	size_t n, i;
	int any = 0;

	pthread_mutex_lock(&S.lock);
	n = S.nfiles;
	pthread_mutex_unlock(&S.lock);
	for (i = 1; i <= n && !any; i++) {
		struct sfile *f = file_by_id(i);

		pthread_mutex_lock(&f->lock);
		any = tfs_itree_each(&f->tree, 0, UINT64_MAX, owned_by, &id) || pend_of(f, id);
		pthread_mutex_unlock(&f->lock);
	}
	return any;
}

/* ---- requests ------------------------------------------------------------ */

/* A holder to tell to drop its map of a file before a reply goes. */
struct drop {
	uint64_t fid, id, gen;
	long long until;
};

struct ctx {
	struct tfs_req *req;
	struct tfs_rd rd;
	struct client *cl;
	struct tfs_buf out;
	struct drop *dv;	/* the holders the request's change revokes */
	size_t ndv, capdv;
	long long dfailed;	/* no memory to name one: the reply waits until
				 * then, when every lease met has ended */
};

/*
 * The request of @c changes what a read of @f returns: every other
 * holder of a map of it is to be told before the reply goes (handle());
 * the sender's own map it drops itself as it sends.  Expired leases are
 * forgotten here.  f->lock held.
 */
static void maps_revoke(struct ctx *c, struct sfile *f)
{
	long long now = tfsi_now_ms();
	size_t i, k = 0;

	for (i = 0; i < f->nhold; i++) {
		struct holder *h = &f->hold[i];

		if (h->until <= now || h->id == c->cl->id)
			continue;
		f->hold[k++] = *h;
		if (c->ndv == c->capdv) {
			size_t cap = c->capdv ? 2 * c->capdv : 4;
			struct drop *v = realloc(c->dv, cap * sizeof(*v));

			if (!v) {
				/* told nobody: kept listed, the reply waits until
				 * its lease ends (handle()) */
				if (h->until > c->dfailed)
					c->dfailed = h->until;
				continue;
			}
			c->dv = v;
			c->capdv = cap;
		}
		c->dv[c->ndv++] = (struct drop){ f->fid, h->id, h->gen, h->until };
	}
	f->nhold = k;
}

static int bad(struct ctx *c, const char *why)
{
	logmsg("malformed %s request from client %llu refused: %s",
	       type_name(c->req->hdr.type), (unsigned long long)(c->cl ? c->cl->id : 0), why);
	return EINVAL;
}

/* ---- record locks, the requests ---------------------------------------------- */

/* The first record lock of another client than @id that a lock of @type
 * over [s, e) conflicts with, or NULL; f->lock held. */
static const struct rlock *rl_conflict(const struct sfile *f, uint64_t id, uint32_t type,
				       uint64_t s, uint64_t e)
{
	for (size_t k = 0; k < f->nrl; k++) {
		const struct rlock *r = &f->rl[k];

		if (r->client != id && r->start < e && r->end > s && (type == 2 || r->type == 2))
			return r;
	}
	return NULL;
}

/*
 * RLOCK fid set type start end pid: with @set 1, make [start, end) of
 * the sender's record locks of @fid @type (0 unlocks), or refuse with
 * EAGAIN when another client's lock conflicts; reply empty.  With @set
 * 0 (F_GETLK), reply the first lock that one of @type would conflict
 * with: u32 type (0: none), u64 start, u64 end, u32 pid.
 */
static int do_rlock(struct ctx *c)
{
	uint64_t fid = tfs_rd_u64(&c->rd);
	uint32_t set = tfs_rd_u32(&c->rd), type = tfs_rd_u32(&c->rd);
	uint64_t start = tfs_rd_u64(&c->rd), end = tfs_rd_u64(&c->rd);
	uint32_t pid = tfs_rd_u32(&c->rd);
	const struct rlock *r;
	struct rlock got = { 0 };
	struct sfile *f;
	int rc = 0;

	if (!tfs_rd_done(&c->rd) || set > 1 || type > 2 || start >= end || (!set && !type))
		return bad(c, "bad body");
	if (!(f = file_by_id(fid)))
		return bad(c, "unknown file id");
	pthread_mutex_lock(&f->lock);
	r = type ? rl_conflict(f, c->cl->id, type, start, end) : NULL;
	if (!set) {
		if (r)
			got = *r;
	} else if (atomic_load(&c->cl->gone)) {
		rc = ECONNRESET;
	} else if (r) {
		rc = EAGAIN;
	} else if ((rc = rl_drop(f, c->cl->id, start, end)) == 0 && type) {
		if (f->nrl == f->caprl) {
			size_t cap = 2 * f->caprl + 8;
			struct rlock *v = realloc(f->rl, cap * sizeof(*v));

			if (!v) {
				rc = ENOMEM;
			} else {
				f->rl = v;
				f->caprl = cap;
			}
		}
		if (!rc)
			f->rl[f->nrl++] = (struct rlock){ c->cl->id, start, end, type, pid };
	}
	pthread_mutex_unlock(&f->lock);
	if (!rc && !set) {
		tfs_buf_u32(&c->out, got.type);
		tfs_buf_u64(&c->out, got.start);
		tfs_buf_u64(&c->out, got.end);
		tfs_buf_u32(&c->out, got.pid);
	}
	return rc;
}

/* ---- pending writers (the sync design's posix model) ---------------------
 *
 * A client writing a file under the posix model sends PENDING before its
 * first unattached write returns, and ATTACH_CLEAN (the attach of every
 * range it has not attached, then the mark dropped, under the file's
 * lock) when it flushes: so while a write of it is unattached the file
 * lists it.  QUERY and EOF (and TRUNCATE, and OPEN with truncate) answer
 * the file's pending writers beside the rest; the asker asks each to
 * flush (PEER_FLUSH to its listener) and asks again.  The server never
 * waits for a client.  A pending writer that disconnects stays listed,
 * gone: its writes are lost, and readers are told (EIO) until the file
 * is truncated to 0.
 */

/* Make @id a pending writer of @f; f->lock held.  0 or ENOMEM. */
static int pend_add(struct sfile *f, uint64_t id)
{
	if (pend_of(f, id))
		return 0;
	if (f->npend == f->cappend) {
		size_t cap = f->cappend ? 2 * f->cappend : 8;
		struct pend *v = realloc(f->pend, cap * sizeof(*v));

		if (!v)
			return ENOMEM;
		f->pend = v;
		f->cappend = cap;
	}
	f->pend[f->npend].id = id;
	f->pend[f->npend].gone = 0;
	f->pend[f->npend].held = 0;
	f->npend++;
	return 0;
}

/* Make @id a pending writer of @f granted a range; f->lock held.  0 or
 * ENOMEM. */
static int pend_hold(struct sfile *f, uint64_t id)
{
	int rc = pend_add(f, id);

	for (size_t k = 0; !rc && k < f->npend; k++)
		if (f->pend[k].id == id && !f->pend[k].gone)
			f->pend[k].held = 1;
	return rc;
}

static int first_append(const struct tfs_iv *iv, void *arg)
{
	if (iv->state != PREG_APPEND)
		return 0;
	*(uint64_t *)arg = iv->start;
	return 1;
}

/*
 * The end of @f as told to clients; f->lock held: f->eof, but not past
 * the first append in flight.  APPEND moves f->eof past the bytes it
 * reserves before they are attached, and appends finish in any order:
 * an end past bytes not there yet would have a reader read zeros where
 * an append lands later, and see an append made after it.  A reader that
 * finds the append's writer pending has it flush (it attaches the
 * append) and asks again, when every append in flight began after the
 * reader's first asking, at the end of file then or further.
 */
static uint64_t visible_eof(const struct sfile *f)
{
	uint64_t e = f->eof;

	tfs_itree_each(&f->preg, 0, f->eof, first_append, &e);
	return e < f->eof ? e : f->eof;
}

/* 1 when the pending writer owning @iv is no longer listed; @arg the file. */
static int unlisted(const struct tfs_iv *iv, void *arg)
{
	const struct sfile *f = arg;

	for (size_t k = 0; k < f->npend; k++)
		if (f->pend[k].id == iv->owner)
			return 0;
	return 1;
}

/* Forget pending writer @id of @f, or (@id 0) the gone ones, with the
 * ranges they held; f->lock held. */
static void pend_drop(struct sfile *f, uint64_t id)
{
	size_t k, n = 0;

	for (k = 0; k < f->npend; k++)
		if (id ? f->pend[k].id != id : !f->pend[k].gone)
			f->pend[n++] = f->pend[k];
	f->npend = n;
	/* (out of memory the tree keeps a range: a writer asked to flush
	 * once more, never a write lost) */
	tfs_itree_remove(&f->preg, 0, UINT64_MAX, unlisted, f);
}

/* The pending writers of @f but @asker into *@v (free it), their count
 * into *@n; f->lock held.  0 or ENOMEM. */
static int pend_copy(const struct sfile *f, uint64_t asker, struct pend **v, size_t *n)
{
	*v = NULL;
	*n = 0;
	if (!f->npend)
		return 0;
	if (!(*v = malloc(f->npend * sizeof(**v))))
		return ENOMEM;
	for (size_t k = 0; k < f->npend; k++)
		if (f->pend[k].id != asker)
			(*v)[(*n)++] = f->pend[k];
	return 0;
}

/* Append u32 n, then per writer u64 id, u32 node, u32 pid, str address,
 * u32 gone; frees @v. */
static void pend_put(struct tfs_buf *out, struct pend *v, size_t n)
{
	tfs_buf_u32(out, (uint32_t)n);
	pthread_mutex_lock(&S.lock);
	for (size_t k = 0; k < n; k++) {
		struct client *o = client_by_id(v[k].id);

		tfs_buf_u64(out, o->id);
		tfs_buf_u32(out, o->node);
		tfs_buf_u32(out, o->pid);
		tfs_buf_str(out, o->addr);
		tfs_buf_u32(out, (uint32_t)v[k].gone);
	}
	pthread_mutex_unlock(&S.lock);
	free(v);
}

/* What do_pending() meets of other pending writers' ranges (pend_meet()). */
struct pmeet {
	const struct sfile *f;
	uint64_t me;
	struct pend *v;		/* the live writers met, each once */
	size_t n, cap;
	int failed;
	uint64_t next;		/* the start of the first range of another */
};

static int pend_meet(const struct tfs_iv *iv, void *arg)
{
	struct pmeet *m = arg;
	size_t k;

	if (iv->owner == m->me)
		return 0;
	if (iv->start < m->next)
		m->next = iv->start;
	for (k = 0; k < m->f->npend && m->f->pend[k].id != iv->owner; k++)
		;
	if (k == m->f->npend || m->f->pend[k].gone)
		return 0;	/* its writes are lost: a later one goes over them */
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].id == iv->owner)
			return 0;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 4;
		struct pend *v = realloc(m->v, cap * sizeof(*v));

		if (!v) {
			m->failed = 1;
			return 1;
		}
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n++] = m->f->pend[k];
	return 0;
}

/*
 * PENDING fid start need want: the sender is to write [start, need) of
 * @fid without attaching.  Where another live pending writer may have
 * written there unattached, the order of the two writes would be lost
 * (whoever attached last would win): the reply names those writers and
 * nothing is recorded; the sender has them flush and asks again.
 * Otherwise the sender becomes a pending writer of the file holding
 * [start, end): end is @want, or where the first range of another writer
 * past @need begins if that is sooner; the reply is the end of file, end,
 * and an empty list.  Ranges of writers that disconnected are dropped:
 * their writes are lost, and the new one goes over them.
 */
static int do_pending(struct ctx *c)
{
	uint64_t fid = tfs_rd_u64(&c->rd), start = tfs_rd_u64(&c->rd),
		 need = tfs_rd_u64(&c->rd), want = tfs_rd_u64(&c->rd), eof, end = 0;
	struct pmeet m = { .me = c->cl->id, .next = UINT64_MAX };
	struct sfile *f;
	int rc = 0;

	if (!tfs_rd_done(&c->rd) || start >= need || want < need)
		return bad(c, "bad body");
	if (!(f = file_by_id(fid)))
		return bad(c, "unknown file id");
	m.f = f;
	pthread_mutex_lock(&f->lock);
	if (atomic_load(&c->cl->gone)) {
		rc = ECONNRESET;
	} else {
		tfs_itree_each(&f->preg, start, need, pend_meet, &m);
		if (m.failed) {
			rc = ENOMEM;
		} else if (m.n == 0) {
			struct tfs_iv iv = { start, 0, c->cl->id, start, PREG_HELD };

			/* on to the first range of another writer (gone or not) */
			tfs_itree_each(&f->preg, need, want, pend_meet, &m);
			end = m.failed ? need : m.next < want ? m.next : want;
			free(m.v);
			m.v = NULL;
			m.n = 0;
			/* over what writers that disconnected held, too */
			iv.end = end;
			if ((rc = pend_hold(f, c->cl->id)) == 0 &&
			    tfs_itree_assign(&f->preg, &iv) < 0)
				rc = ENOMEM;
			/* its writes from now on ask nobody: no map of the
			 * file is kept while it writes */
			maps_revoke(c, f);
		}
	}
	eof = visible_eof(f);
	pthread_mutex_unlock(&f->lock);
	if (rc) {
		free(m.v);
		return rc;
	}
	tfs_buf_u64(&c->out, eof);
	tfs_buf_u64(&c->out, end);
	pend_put(&c->out, m.v, m.n);
	return 0;
}

/*
 * APPEND fid candidate length: @length bytes at the end of @fid for the
 * sender (an O_APPEND write under the posix model), the end being the
 * furthest of what the server knows and @candidate (the end of what the
 * sender wrote unattached).  Finding the end and moving it past the
 * bytes is one step under the file's lock, so two appends never get the
 * same offset and every append lands after the ones before it.
 * What another live pending writer wrote unattached lies within the
 * ranges it holds (preg): where one holds a range past that end, the end
 * may be further, so the reply names those writers and nothing is
 * reserved; the sender has them flush and asks again.  (A writer that
 * disconnected is not waited for: its writes are lost, and an append
 * goes over them as a write does.)  Otherwise the sender becomes a
 * pending writer holding the bytes reserved until it attaches them
 * (ATTACH_CLEAN, at once): meanwhile the end told to others stops before
 * them (visible_eof), and a reader, or a writer of the range, that asks
 * has it flush first.  Reply: the offset (the end, when writers are
 * named), the pending writers named.
 */
static int do_append(struct ctx *c)
{
	uint64_t fid = tfs_rd_u64(&c->rd), cand = tfs_rd_u64(&c->rd), len = tfs_rd_u64(&c->rd),
		 off;
	struct pmeet m = { .me = c->cl->id, .next = UINT64_MAX };
	struct sfile *f;
	int rc = 0;

	if (!tfs_rd_done(&c->rd) || len == 0)
		return bad(c, "bad body");
	if (!(f = file_by_id(fid)))
		return bad(c, "unknown file id");
	m.f = f;
	pthread_mutex_lock(&f->lock);
	off = f->eof > cand ? f->eof : cand;
	if (atomic_load(&c->cl->gone)) {
		rc = ECONNRESET;
	} else if (len > UINT64_MAX - off) {
		rc = EFBIG;
	} else {
		tfs_itree_each(&f->preg, off, UINT64_MAX, pend_meet, &m);
		if (m.failed) {
			rc = ENOMEM;
		} else if (m.n == 0) {
			struct tfs_iv iv = { off, off + len, c->cl->id, off, PREG_APPEND };

			if ((rc = pend_add(f, c->cl->id)) == 0 && tfs_itree_assign(&f->preg, &iv) < 0)
				rc = ENOMEM;
			if (!rc)
				f->eof = off + len;
			maps_revoke(c, f);
		}
	}
	pthread_mutex_unlock(&f->lock);
	if (rc) {
		free(m.v);
		return rc;
	}
	tfs_buf_u64(&c->out, off);
	pend_put(&c->out, m.v, m.n);
	return 0;
}

static int do_hello(struct ctx *c)
{
	struct client *cl;
	uint32_t node = tfs_rd_u32(&c->rd), pid = tfs_rd_u32(&c->rd);
	char addr[128];

	tfs_rd_str(&c->rd, addr, sizeof(addr));
	if (!tfs_rd_done(&c->rd))
		return bad(c, "bad body");
	if (c->cl)
		return bad(c, "second hello on a connection");
	if (!(cl = calloc(1, sizeof(*cl))))
		return ENOMEM;
	cl->node = node;
	cl->pid = pid;
	memcpy(cl->addr, addr, sizeof(addr));
	pthread_mutex_lock(&S.lock);
	if (S.nclients == S.capclients) {
		size_t cap = S.capclients ? 2 * S.capclients : 64;
		struct client **v = realloc(S.clients, cap * sizeof(*v));

		if (!v) {
			pthread_mutex_unlock(&S.lock);
			free(cl);
			return ENOMEM;
		}
		S.clients = v;
		S.capclients = cap;
	}
	cl->id = ++S.nclients;
	S.clients[cl->id - 1] = cl;
	tfs_conn_set(c->req->conn, cl);
	pthread_mutex_unlock(&S.lock);
	tfs_buf_u64(&c->out, cl->id);
	return 0;
}

static int do_open(struct ctx *c)
{
	uint32_t flags = tfs_rd_u32(&c->rd), mode, uid, gid, need = 0, created = 0;
	uint64_t pfs = tfs_rd_u64(&c->rd), eof;
	char raw[TFS_MAX_PATH + 1], path[TFS_MAX_PATH + 1];
	struct sfile *f;
	struct pend *pv = NULL;
	size_t np = 0;
	int rc = 0;

	tfs_rd_str(&c->rd, raw, sizeof(raw));
	mode = tfs_rd_u32(&c->rd);
	uid = tfs_rd_u32(&c->rd);
	gid = tfs_rd_u32(&c->rd);
	if (!tfs_rd_done(&c->rd) || (flags & ~TFS_OPEN_KNOWN) ||
	    (mode & ~(07777u | TFS_MODE_SET)) || (mode && !(mode & TFS_MODE_SET)))
		return bad(c, "bad body");
	if (flags & TFS_OPEN_READ)
		need |= 0400;
	if (flags & TFS_OPEN_WRITE)
		need |= 0200;
	if (tfs_path_norm(raw, path, sizeof(path)) < 0) {
		if (errno == EACCES)
			logmsg("client %llu: path '%s' escapes the mount, refused",
			       (unsigned long long)c->cl->id, raw);
		return errno;
	}
	pthread_mutex_lock(&S.lock);
	f = file_lookup(path, 0, 0);
	if (!f && pfs == UINT64_MAX && !(flags & TFS_OPEN_CREAT))
		rc = ENOENT;
	else if ((f || pfs != UINT64_MAX) && (flags & TFS_OPEN_CREAT) && (flags & TFS_OPEN_EXCL))
		rc = EEXIST;
	else if (!f) {
		/* made by this open when not backed: every later opener
		 * learns its mode, whoever stages it out keeps it */
		created = pfs == UINT64_MAX;
		if (!(f = file_lookup(path, 1, created ? 0 : pfs)))
			rc = ENOMEM;
		else if (created) {
			f->mode = mode;	/* 0: the default, 0644 */
			f->uid = uid;	/* chmod's owner */
			f->gid = gid;
			f->uidset = 1;
		}
	} else if (pfs == UINT64_MAX && f->mode && !(flags & TFS_OPEN_ROOT) &&
		   (f->mode & (f->uidset && uid != f->uid ? need >> 6 : need)) !=
			   (f->uidset && uid != f->uid ? need >> 6 : need)) {
		/* as the backing file's bits will say: the owner's for the
		 * creator, the others' for anyone else (a group's members are
		 * not told apart: they get the others' bits) */
		rc = EACCES;
	}
	pthread_mutex_unlock(&S.lock);
	if (rc)
		return rc;
	pthread_mutex_lock(&f->lock);
	if (flags & TFS_OPEN_TRUNC) {
		tfs_itree_release(&f->tree);
		/* (the writers listed keep their ranges: they write on) */
		f->eof = 0;
		f->timeset = 0;
		pend_drop(f, 0);
		rc = pend_copy(f, c->cl->id, &pv, &np);
		maps_revoke(c, f);
	} else if (pfs != UINT64_MAX && pfs > f->eof) {
		f->eof = pfs;
	}
	eof = visible_eof(f);
	pthread_mutex_unlock(&f->lock);
	if (rc)
		return rc;
	tfs_buf_u64(&c->out, f->fid);
	tfs_buf_u64(&c->out, eof);
	tfs_buf_u32(&c->out, f->mode);
	tfs_buf_u32(&c->out, created);
	tfs_buf_u32(&c->out, f->uidset ? f->uid : UINT32_MAX);
	tfs_buf_u32(&c->out, f->uidset ? f->gid : UINT32_MAX);
	if (flags & TFS_OPEN_TRUNC)
		pend_put(&c->out, pv, np);
	return 0;
}

/* Read a range list: returns the count, or -1 when malformed. */
static long read_ranges(struct ctx *c, uint64_t **out)
{
	uint32_t n = tfs_rd_u32(&c->rd);
	uint64_t *v;

	*out = NULL;
	if (c->rd.bad || n > TFS_MAX_RANGES || (size_t)n * 16 != c->rd.len - c->rd.pos)
		return -1;
	if (!n)
		return 0;
	if (!(v = malloc((size_t)n * 16)))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		v[2 * i] = tfs_rd_u64(&c->rd);
		v[2 * i + 1] = tfs_rd_u64(&c->rd);
		if (v[2 * i + 1] > UINT64_MAX - v[2 * i]) {
			free(v);
			return -1;
		}
	}
	*out = v;
	return n;
}

static int do_attach(struct ctx *c, int detach)
{
	uint64_t fid = tfs_rd_u64(&c->rd), *r, eof;
	long n = read_ranges(c, &r);
	struct sfile *f;
	int rc = 0, clean = c->req->hdr.type == TFS_MSG_ATTACH_CLEAN;

	if (n < 0)
		return bad(c, "bad range list");
	if (!(f = file_by_id(fid))) {
		free(r);
		return bad(c, "unknown file id");
	}
	pthread_mutex_lock(&f->lock);
	if (atomic_load(&c->cl->gone)) {
		rc = ECONNRESET;
	} else if (detach && n == 0) {
		tfs_itree_remove(&f->tree, 0, UINT64_MAX, owned_by, &c->cl->id);
	} else {
		for (long i = 0; i < n && !rc; i++) {
			uint64_t s = r[2 * i], e = s + r[2 * i + 1];

			if (detach) {
				if (tfs_itree_remove(&f->tree, s, e, owned_by, &c->cl->id) < 0)
					rc = ENOMEM;
			} else {
				struct tfs_iv iv = { s, e, c->cl->id, s, 0 };

				if (tfs_itree_assign(&f->tree, &iv) < 0)
					rc = ENOMEM;
				else if (e > f->eof)
					f->eof = e;
			}
		}
	}
	/* a write attached after a utimensat is newer than its times */
	if (!rc && !detach && n > 0)
		f->timeset = 0;
	/* with the attach, atomically: nothing of the sender is unattached */
	if (!rc && clean)
		pend_drop(f, c->cl->id);
	if (!rc && (n > 0 || detach))
		maps_revoke(c, f);
	eof = visible_eof(f);
	pthread_mutex_unlock(&f->lock);
	free(r);
	if (!rc && !detach)
		tfs_buf_u64(&c->out, eof);
	return rc;
}

static int do_detach_client(struct ctx *c)
{
	size_t n;

	if (!tfs_rd_done(&c->rd))
		return bad(c, "bad body");
	pthread_mutex_lock(&S.lock);
	n = S.nfiles;
	pthread_mutex_unlock(&S.lock);
	for (size_t i = 1; i <= n; i++) {
		struct sfile *f = file_by_id(i);

		pthread_mutex_lock(&f->lock);
		maps_revoke(c, f);
		pthread_mutex_unlock(&f->lock);
	}
	drop_client(c->cl->id, 0);
	return 0;
}

/*
 * STAGE: take (1) or give back (0) the stage mark of a file.  A client
 * stages a file out (query what it owns, write it to the backing file,
 * detach) holding the mark, so that stage-outs of one file follow each
 * other: when a newer owner of a range stages out while an older one is
 * still writing what it owned when it asked, the newer one's bytes land
 * after, and stay.  Taken by another client: EAGAIN, and the sender
 * tries again.  A client that goes loses its marks.
 */
static int do_stage(struct ctx *c)
{
	uint64_t fid = tfs_rd_u64(&c->rd);
	uint32_t take = tfs_rd_u32(&c->rd);
	uint64_t times[4];
	struct sfile *f;
	int rc = 0, timeset;

	if (!tfs_rd_done(&c->rd) || take > 1)
		return bad(c, "bad body");
	if (!(f = file_by_id(fid)))
		return bad(c, "unknown file id");
	pthread_mutex_lock(&f->lock);
	if (!take) {
		if (f->stager == c->cl->id)
			f->stager = 0;
	} else if (f->stager && f->stager != c->cl->id) {
		rc = EAGAIN;
	} else {
		f->stager = c->cl->id;
	}
	timeset = f->timeset;
	memcpy(times, f->times, sizeof(times));
	pthread_mutex_unlock(&f->lock);
	if (!rc && take) {
		/* the name, mode and times stage-out gives it now: a rename,
		 * chmod or utimensat by another client since the stager opened
		 * it counts */
		pthread_mutex_lock(&S.lock);
		tfs_buf_u32(&c->out, f->mode);
		tfs_buf_u32(&c->out, (uint32_t)f->unlinked);
		tfs_buf_str(&c->out, f->path);
		pthread_mutex_unlock(&S.lock);
		tfs_buf_u32(&c->out, (uint32_t)timeset);
		for (int i = 0; i < 4; i++)
			tfs_buf_u64(&c->out, times[i]);
	}
	return rc;
}

struct qstate {
	struct tfs_buf *out;
	uint64_t mine;		/* only this owner, or 0 */
	uint32_t count;
	uint64_t *owners;	/* distinct owners seen */
	size_t nowners, capowners;
	int failed;
};

static int query_one(const struct tfs_iv *iv, void *arg)
{
	struct qstate *q = arg;
	size_t i;

	if (q->mine && iv->owner != q->mine)
		return 0;
	tfs_buf_u64(q->out, iv->start);
	tfs_buf_u64(q->out, iv->end - iv->start);
	tfs_buf_u64(q->out, iv->owner);
	q->count++;
	for (i = 0; i < q->nowners && q->owners[i] != iv->owner; i++)
		;
	if (i == q->nowners) {
		if (q->nowners == q->capowners) {
			size_t cap = q->capowners ? 2 * q->capowners : 16;
			uint64_t *v = realloc(q->owners, cap * sizeof(*v));

			if (!v) {
				q->failed = 1;
				return 1;
			}
			q->owners = v;
			q->capowners = cap;
		}
		q->owners[q->nowners++] = iv->owner;
	}
	if (q->out->len > TFS_MAX_BODY - 4096) {
		q->failed = 2;
		return 1;
	}
	return 0;
}

/* Grant @id a delegation of @f, or renew its lease (QUERY with
 * TFS_QUERY_KEEP).  f->lock held.  Returns 0 or ENOMEM. */
static int hold(struct sfile *f, uint64_t id)
{
	struct holder *h = NULL;

	for (size_t i = 0; i < f->nhold && !h; i++)
		if (f->hold[i].id == id)
			h = &f->hold[i];
	if (!h) {
		if (f->nhold == f->caphold) {
			size_t cap = f->caphold ? 2 * f->caphold : 4;
			struct holder *v = realloc(f->hold, cap * sizeof(*v));

			if (!v)
				return ENOMEM;
			f->hold = v;
			f->caphold = cap;
		}
		h = &f->hold[f->nhold++];
		h->id = id;
	}
	h->gen = __atomic_add_fetch(&S.hgen, 1, __ATOMIC_RELAXED);
	h->until = tfsi_now_ms() + TFS_LEASE_MS;
	return 0;
}

static int do_query(struct ctx *c)
{
	uint64_t fid = tfs_rd_u64(&c->rd), off = tfs_rd_u64(&c->rd), len = tfs_rd_u64(&c->rd);
	uint32_t flags = tfs_rd_u32(&c->rd);
	struct qstate q = { .out = &c->out };
	struct sfile *f;
	struct pend *pv;
	size_t at, np;
	uint32_t lease = 0;

	if (!tfs_rd_done(&c->rd) || (flags & ~(TFS_QUERY_MINE | TFS_QUERY_KEEP)))
		return bad(c, "bad body");
	if (!(f = file_by_id(fid)))
		return bad(c, "unknown file id");
	if (len > UINT64_MAX - off)
		len = UINT64_MAX - off;
	q.mine = flags & TFS_QUERY_MINE ? c->cl->id : 0;
	pthread_mutex_lock(&f->lock);
	tfs_buf_u64(&c->out, visible_eof(f));
	at = c->out.len;
	tfs_buf_u32(&c->out, 0);
	tfs_itree_each(&f->tree, off, off + len, query_one, &q);
	if (pend_copy(f, c->cl->id, &pv, &np))
		q.failed = 1;
	/* a map is kept only while no other process writes the file
	 * unattached (a pending writer's next writes ask nobody), and only
	 * by a client the revoker can reach */
	if ((flags & TFS_QUERY_KEEP) && !q.failed && !np && !q.mine && c->cl->addr[0] &&
	    hold(f, c->cl->id) == 0)
		lease = TFS_LEASE_MS;
	pthread_mutex_unlock(&f->lock);
	if (q.failed || tfs_buf_failed(&c->out)) {
		free(pv);
		free(q.owners);
		return q.failed == 2 ? EOVERFLOW : ENOMEM;
	}
	for (int i = 0; i < 4; i++)
		c->out.p[at + i] = (unsigned char)(q.count >> (8 * i));
	tfs_buf_u32(&c->out, (uint32_t)q.nowners);
	pthread_mutex_lock(&S.lock);
	for (size_t i = 0; i < q.nowners; i++) {
		struct client *o = client_by_id(q.owners[i]);

		tfs_buf_u64(&c->out, o->id);
		tfs_buf_u32(&c->out, o->node);
		tfs_buf_u32(&c->out, o->pid);
		tfs_buf_str(&c->out, o->addr);
	}
	pthread_mutex_unlock(&S.lock);
	free(q.owners);
	pend_put(&c->out, pv, np);
	if (flags & TFS_QUERY_KEEP)
		tfs_buf_u32(&c->out, lease);
	return 0;
}

static int do_eof(struct ctx *c, int truncate)
{
	uint64_t fid = tfs_rd_u64(&c->rd), v = tfs_rd_u64(&c->rd), eof;
	struct sfile *f;
	struct pend *pv;
	size_t np;
	int rc;

	if (!tfs_rd_done(&c->rd))
		return bad(c, "bad body");
	if (!(f = file_by_id(fid)))
		return bad(c, "unknown file id");
	pthread_mutex_lock(&f->lock);
	if (truncate) {
		tfs_itree_remove(&f->tree, v, UINT64_MAX, NULL, NULL);
		f->eof = v;
		f->timeset = 0;
		if (v == 0)	/* what was lost is gone anyway */
			pend_drop(f, 0);
		maps_revoke(c, f);
	} else if (v > f->eof) {
		f->eof = v;
	}
	eof = visible_eof(f);
	rc = pend_copy(f, c->cl->id, &pv, &np);
	pthread_mutex_unlock(&f->lock);
	if (rc)
		return rc;
	tfs_buf_u64(&c->out, eof);
	pend_put(&c->out, pv, np);
	return 0;
}

/* Forget the data of @f, out of the table already (UNLINK, a rename
 * over it); with or without S.lock held. */
static void file_forget(struct ctx *c, struct sfile *f)
{
	pthread_mutex_lock(&f->lock);
	maps_revoke(c, f);
	f->unlinked = 1;
	tfs_itree_release(&f->tree);
	tfs_itree_release(&f->preg);
	f->eof = 0;
	pthread_mutex_unlock(&f->lock);
}

static int do_unlink(struct ctx *c)
{
	char raw[TFS_MAX_PATH + 1], path[TFS_MAX_PATH + 1];
	struct sfile **pp, *f;
	int rc = ENOENT;

	tfs_rd_str(&c->rd, raw, sizeof(raw));
	if (!tfs_rd_done(&c->rd))
		return bad(c, "bad body");
	if (tfs_path_norm(raw, path, sizeof(path)) < 0)
		return errno;
	pthread_mutex_lock(&S.lock);
	for (pp = &S.bucket[hash(path)]; (f = *pp); pp = &f->hnext) {
		if (strcmp(f->path, path) == 0) {
			*pp = f->hnext;
			f->hnext = NULL;
			rc = 0;
			break;
		}
	}
	pthread_mutex_unlock(&S.lock);
	if (f)
		file_forget(c, f);
	return rc;
}

/*
 * SETMODE: chmod(2) of a file the server holds.  The mode is what later
 * opens of the file, while it is not backed, are checked against and what
 * stage-out gives the backing file, whoever stages it out (STAGE's
 * reply).  As the kernel's rule, only the file's owner or root may change
 * it (EPERM); where the sender changed the backing file itself
 * (TFS_SETMODE_BACKED) the kernel has checked that.
 */
static int do_setmode(struct ctx *c)
{
	uint32_t mode = tfs_rd_u32(&c->rd), uid = tfs_rd_u32(&c->rd), flags = tfs_rd_u32(&c->rd);
	char raw[TFS_MAX_PATH + 1], path[TFS_MAX_PATH + 1];
	struct sfile *f;
	int rc = 0;

	tfs_rd_str(&c->rd, raw, sizeof(raw));
	if (!tfs_rd_done(&c->rd) || (mode & ~07777u) || (flags & ~TFS_SETMODE_BACKED))
		return bad(c, "bad body");
	if (tfs_path_norm(raw, path, sizeof(path)) < 0)
		return errno;
	pthread_mutex_lock(&S.lock);
	f = file_lookup(path, 0, 0);
	if (!f)
		rc = ENOENT;
	else if (!(flags & TFS_SETMODE_BACKED) && f->uidset && uid != 0 && uid != f->uid)
		rc = EPERM;
	else
		f->mode = TFS_MODE_SET | mode;
	pthread_mutex_unlock(&S.lock);
	return rc;
}

/*
 * SETTIMES: utimensat(2) of a file the server holds.  Its backing file
 * has the times already (the sender set them there, the kernel checked
 * its right); stage-out writes the data into it, which would make the
 * mtime the copy's, so the stager sets them again after the copy (STAGE's
 * reply), as it gives the mode, until a write attached later, a truncate
 * or a truncating open makes them stale.  EAGAIN while another client
 * stages the file out (the sender asks again): a stage-out that did not
 * hear of the times has ended before the reply, and the sender sets them
 * on the backing file once more after it.
 */
static int do_settimes(struct ctx *c)
{
	char raw[TFS_MAX_PATH + 1], path[TFS_MAX_PATH + 1];
	uint64_t t[4];
	struct sfile *f;
	int rc = 0;

	for (int i = 0; i < 4; i++)
		t[i] = tfs_rd_u64(&c->rd);
	tfs_rd_str(&c->rd, raw, sizeof(raw));
	if (!tfs_rd_done(&c->rd) || t[1] >= 1000000000u || t[3] >= 1000000000u)
		return bad(c, "bad body");
	if (tfs_path_norm(raw, path, sizeof(path)) < 0)
		return errno;
	pthread_mutex_lock(&S.lock);
	if (!(f = file_lookup(path, 0, 0))) {
		rc = ENOENT;
	} else {
		pthread_mutex_lock(&f->lock);
		if (f->stager && f->stager != c->cl->id) {
			rc = EAGAIN;
		} else {
			memcpy(f->times, t, sizeof(t));
			f->timeset = 1;
		}
		pthread_mutex_unlock(&f->lock);
	}
	pthread_mutex_unlock(&S.lock);
	return rc;
}

/* Take @f out of its hash chain; with S.lock held. */
static void file_unhash(struct sfile *f)
{
	struct sfile **pp;

	for (pp = &S.bucket[hash(f->path)]; *pp; pp = &(*pp)->hnext)
		if (*pp == f) {
			*pp = f->hnext;
			f->hnext = NULL;
			return;
		}
}

/* 1 when a client other than @id holds @f's stage mark. */
static int staging(struct sfile *f, uint64_t id)
{
	int rc;

	if (!f)
		return 0;
	pthread_mutex_lock(&f->lock);
	rc = f->stager && f->stager != id;
	pthread_mutex_unlock(&f->lock);
	return rc;
}

/* Give @f the name @path (malloc'd, taken); with S.lock held. */
static void file_rename(struct sfile *f, char *path)
{
	unsigned h;

	file_unhash(f);
	pthread_mutex_lock(&f->lock);	/* read under either lock */
	free(f->path);
	f->path = path;
	pthread_mutex_unlock(&f->lock);
	h = hash(path);
	f->hnext = S.bucket[h];
	S.bucket[h] = f;
}

/*
 * RENAME: the file (or, TFS_RENAME_DIR, every file below the directory)
 * the server holds under the old path is known by the new one from now
 * on, for every client: opens, and stage-out (STAGE's reply names it).
 * A file it held under the new path is replaced, as rename(2) replaces
 * one: its data is forgotten (as UNLINK), so its owners stage nothing out
 * over the new one.  The sender renames the backing directory's entry
 * itself, after the reply, holding the old file's stage mark, which the
 * reply gives it: no stage-out of the file writes under either name
 * until it gives the mark back (STAGE 0), and a rename waits (EAGAIN)
 * while a stage-out of either file runs.
 */
static int do_rename(struct ctx *c)
{
	uint32_t flags = tfs_rd_u32(&c->rd);
	char raw[TFS_MAX_PATH + 1], from[TFS_MAX_PATH + 1], to[TFS_MAX_PATH + 1];
	struct sfile *fo = NULL, *fn = NULL;
	size_t lf, lt;
	int rc = 0;

	tfs_rd_str(&c->rd, raw, sizeof(raw));
	if (tfs_path_norm(raw, from, sizeof(from)) < 0)
		rc = errno;
	tfs_rd_str(&c->rd, raw, sizeof(raw));
	if (!rc && tfs_path_norm(raw, to, sizeof(to)) < 0)
		rc = errno;
	if (!tfs_rd_done(&c->rd) || (flags & ~TFS_RENAME_KNOWN))
		return bad(c, "bad body");
	if (rc)
		return rc;
	lf = strlen(from);
	lt = strlen(to);
	if (!lf || !lt)
		return EBUSY;	/* the mount itself */
	if (lt > lf && strncmp(to, from, lf) == 0 && to[lf] == '/')
		return EINVAL;	/* into itself */
	pthread_mutex_lock(&S.lock);
	if (flags & TFS_RENAME_DIR) {
		/* every file below; the backing directory's entry the sender
		 * has renamed already (the kernel's checks came first) */
		for (size_t i = 0; i < S.nfiles && !rc; i++) {
			struct sfile *f = S.files[i];
			char *np;

			if (file_lookup(f->path, 0, 0) != f)
				continue;	/* unlinked, out of the table */
			if (strncmp(f->path, from, lf) != 0 || f->path[lf] != '/')
				continue;
			if (lt + strlen(f->path + lf) > TFS_MAX_PATH ||
			    !(np = malloc(lt + strlen(f->path + lf) + 1))) {
				rc = lt + strlen(f->path + lf) > TFS_MAX_PATH ? ENAMETOOLONG : ENOMEM;
				break;
			}
			memcpy(np, to, lt);
			memcpy(np + lt, f->path + lf, strlen(f->path + lf) + 1);
			if ((fn = file_lookup(np, 0, 0))) {
				file_unhash(fn);
				file_forget(c, fn);
			}
			file_rename(f, np);
		}
		pthread_mutex_unlock(&S.lock);
		tfs_buf_u64(&c->out, 0);
		return rc;
	}
	fo = file_lookup(from, 0, 0);
	fn = file_lookup(to, 0, 0);
	if (!fo && !(flags & TFS_RENAME_OLD_BACKED))
		rc = ENOENT;
	else if (fo == fn && fo)
		rc = 0;		/* the same file: nothing to do */
	else if ((flags & TFS_RENAME_NOREPLACE) && (fn || (flags & TFS_RENAME_NEW_BACKED)))
		rc = EEXIST;
	else if (staging(fo, c->cl->id) || staging(fn, c->cl->id))
		rc = EAGAIN;	/* a stage-out of either runs: asked again */
	else {
		char *np = strdup(to);

		if (!np) {
			rc = ENOMEM;
		} else {
			if (fn) {
				file_unhash(fn);
				file_forget(c, fn);
			}
			if (fo) {
				file_rename(fo, np);
				pthread_mutex_lock(&fo->lock);
				fo->stager = c->cl->id;
				pthread_mutex_unlock(&fo->lock);
			} else {
				free(np);
			}
		}
	}
	if (!rc)
		tfs_buf_u64(&c->out, fo && fo != fn ? fo->fid : 0);
	pthread_mutex_unlock(&S.lock);
	return rc;
}

/* The most a LIST reply holds before it stops (a cursor to go on from):
 * some 16k names of 255 bytes, far more of usual ones. */
#define LIST_PAGE (4u << 20)

/*
 * LIST: the names of the files the server holds right below a directory
 * ("" the mount), which a listing of the directory merges with the
 * backing directory's entries: a file written and attached is there
 * before any stage-out, a file unlinked or renamed away is not.  One
 * pass over the table from the cursor (a file id); a reply that would
 * pass LIST_PAGE stops early with the id to go on from, so a listing
 * never fails on size.
 */
static int do_list(struct ctx *c)
{
	char raw[TFS_MAX_PATH + 1], dir[TFS_MAX_PATH + 1];
	uint64_t from = tfs_rd_u64(&c->rd), next = 0;
	uint32_t count = 0;
	size_t ld, at;

	tfs_rd_str(&c->rd, raw, sizeof(raw));
	if (!tfs_rd_done(&c->rd))
		return bad(c, "bad body");
	if (!raw[0])
		dir[0] = '\0';
	else if (tfs_path_norm(raw, dir, sizeof(dir)) < 0)
		return errno;
	ld = strlen(dir);
	tfs_buf_u64(&c->out, 0);
	at = c->out.len;
	tfs_buf_u32(&c->out, 0);
	pthread_mutex_lock(&S.lock);
	for (size_t i = from ? from - 1 : 0; i < S.nfiles; i++) {
		struct sfile *f = S.files[i];
		const char *name = f->path;

		if (ld) {
			if (strncmp(name, dir, ld) != 0 || name[ld] != '/')
				continue;
			name += ld + 1;
		}
		/* a file below a subdirectory is the subdirectory's; the
		 * name must still be this file's (not unlinked or replaced) */
		if (strchr(name, '/') || file_lookup(f->path, 0, 0) != f)
			continue;
		if (c->out.len > LIST_PAGE) {
			next = f->fid;
			break;
		}
		tfs_buf_u64(&c->out, f->fid);
		tfs_buf_str(&c->out, name);
		count++;
	}
	pthread_mutex_unlock(&S.lock);
	if (tfs_buf_failed(&c->out))
		return ENOMEM;
	for (int i = 0; i < 8; i++)
		c->out.p[i] = (unsigned char)(next >> (8 * i));
	for (int i = 0; i < 4; i++)
		c->out.p[at + i] = (unsigned char)(count >> (8 * i));
	return 0;
}

/* ---- the global lock manager (lock-based design) ------------------------------- */

/* The record of @node, created when @create; with S.lock held. */
static struct lnode *lnode_get(uint32_t node, int create)
{
	struct lnode *v;

	for (size_t i = 0; i < S.nnodes; i++)
		if (S.nodes[i].node == node)
			return &S.nodes[i];
	if (!create || !(v = realloc(S.nodes, (S.nnodes + 1) * sizeof(*v))))
		return NULL;
	S.nodes = v;
	memset(&v[S.nnodes], 0, sizeof(*v));
	v[S.nnodes].node = node;
	return &v[S.nnodes++];
}

/* The tokens of @node in @f, created when @create; with f->lock held. */
static struct tfs_itree *ntok_get(struct sfile *f, uint32_t node, int create)
{
	struct ntok *v;

	for (size_t i = 0; i < f->ntok; i++)
		if (f->tok[i].node == node)
			return &f->tok[i].tree;
	if (!create || !(v = realloc(f->tok, (f->ntok + 1) * sizeof(*v))))
		return NULL;
	f->tok = v;
	v[f->ntok].node = node;
	tfs_itree_init(&v[f->ntok].tree);
	return &v[f->ntok++].tree;
}

/* Remove the waiters of @f for which @drop says so; with f->lock held. */
static void waiters_drop(struct sfile *f, int (*drop)(const struct waiter *, const void *),
			 const void *arg)
{
	struct waiter **pp = &f->wait, *w;

	while ((w = *pp)) {
		if (drop(w, arg)) {
			*pp = w->next;
			free(w);
		} else {
			pp = &w->next;
		}
	}
}

static int waiter_of(const struct waiter *w, const void *node)
{
	return w->node == *(const uint32_t *)node;
}

/* Drop every token and waiter of @node; with S.lock held. */
static void drop_node_tokens(uint32_t node)
{
	for (size_t i = 0; i < S.nfiles; i++) {
		struct sfile *f = S.files[i];
		struct tfs_itree *t;

		pthread_mutex_lock(&f->lock);
		if ((t = ntok_get(f, node, 0)))
			tfs_itree_remove(t, 0, UINT64_MAX, NULL, NULL);
		waiters_drop(f, waiter_of, &node);
		pthread_mutex_unlock(&f->lock);
	}
}

/* A waiter that has not asked again for this long has given up (a
 * waiting manager asks every few milliseconds). */
#define WAITER_EXPIRE_MS 5000

static int waiter_stale(const struct waiter *w, const void *now)
{
	return *(const long long *)now - w->seen > WAITER_EXPIRE_MS;
}

/*
 * Queue @node for [s, e) of @type in @f (once: a node asks for one range
 * at a time; a new range replaces its old one in place) and say whether
 * a waiter of another node is ahead of it on a range that overlaps and
 * conflicts.  With f->lock held.  Returns 1 when one is, 0 when @node is
 * first, -1 without memory.
 */
static int waiter_turn(struct sfile *f, uint32_t node, uint64_t s, uint64_t e, uint32_t type,
		       int enqueue)
{
	long long now = tfsi_now_ms();
	struct waiter **pp, *w;
	int ahead = 0;

	waiters_drop(f, waiter_stale, &now);
	for (pp = &f->wait; (w = *pp) && w->node != node; pp = &w->next)
		if (w->s < e && s < w->e && (w->type == 2 || type == 2))
			ahead = 1;
	if (w) {
		w->s = s;
		w->e = e;
		w->type = type;
		w->seen = now;
	} else if (enqueue) {
		if (!(w = calloc(1, sizeof(*w))))
			return -1;
		*w = (struct waiter){ node, type, s, e, now, NULL };
		*pp = w;
	}
	return ahead;
}

static int do_lock_node(struct ctx *c)
{
	struct lnode *n;

	if (!tfs_rd_done(&c->rd))
		return bad(c, "bad body");
	pthread_mutex_lock(&S.lock);
	if (!(n = lnode_get(c->cl->node, 1))) {
		pthread_mutex_unlock(&S.lock);
		return ENOMEM;
	}
	if (!n->mgr) {
		n->mgr = c->cl->id;
		memcpy(n->addr, c->cl->addr, sizeof(n->addr));
	}
	tfs_buf_u64(&c->out, S.block);
	tfs_buf_u64(&c->out, n->mgr);
	tfs_buf_str(&c->out, n->addr);
	pthread_mutex_unlock(&S.lock);
	return 0;
}

/* Does an interval of type @have conflict with a request of @want? */
static int conflicts(uint32_t have, uint32_t want)
{
	return have == 2 || want == 2;
}

struct scan {
	uint32_t want;
	uint64_t lo, hi;	/* conflicting extent seen */
	int found;
};

static int scan_one(const struct tfs_iv *iv, void *arg)
{
	struct scan *sc = arg;

	if (!conflicts(iv->state, sc->want))
		return 0;
	if (!sc->found || iv->start < sc->lo)
		sc->lo = iv->start;
	if (!sc->found || iv->end > sc->hi)
		sc->hi = iv->end;
	sc->found = 1;
	return 0;
}

static int first_conflict(const struct tfs_iv *iv, void *arg)
{
	struct scan *sc = arg;

	if (!conflicts(iv->state, sc->want))
		return 0;
	sc->lo = iv->start;
	sc->found = 1;
	return 1;
}

/*
 * LOCK_ACQUIRE: grant the sender's node a token of @type over [s, e)
 * (block-aligned), widened by @policy up to the other nodes' conflicting
 * tokens, or name those tokens' owners, or (a node ahead of it waits for
 * the range) tell it to wait.  The server waits for nobody: the requester
 * settles a conflict with the owners, or waits, and asks again.
 */
static int do_lock_acquire(struct ctx *c)
{
	uint64_t fid = tfs_rd_u64(&c->rd), s = tfs_rd_u64(&c->rd), e = tfs_rd_u64(&c->rd);
	uint32_t type = tfs_rd_u32(&c->rd), policy = tfs_rd_u32(&c->rd),
		 first = tfs_rd_u32(&c->rd), node = c->cl->node;
	uint64_t gs = s, ge = e;
	struct lnode *me;
	struct sfile *f;
	size_t nconf = 0, at;
	int rc = 0, ahead;

	if (!tfs_rd_done(&c->rd) || type < 1 || type > 2 || policy > 2 || first > 1 || s >= e ||
	    s % S.block || (e % S.block && e != UINT64_MAX))
		return bad(c, "bad body");
	if (!(f = file_by_id(fid)))
		return bad(c, "unknown file id");
	pthread_mutex_lock(&S.lock);
	pthread_mutex_lock(&f->lock);
	me = lnode_get(node, 1);
	tfs_buf_u32(&c->out, 1);
	at = c->out.len;
	tfs_buf_u32(&c->out, 0);
	for (size_t i = 0; i < f->ntok; i++) {
		struct scan sc = { .want = type };
		struct lnode *o;

		if (f->tok[i].node == node)
			continue;
		tfs_itree_each(&f->tok[i].tree, s, e, scan_one, &sc);
		if (!sc.found)
			continue;
		o = lnode_get(f->tok[i].node, 0);
		tfs_buf_u32(&c->out, f->tok[i].node);
		tfs_buf_u64(&c->out, sc.lo);
		tfs_buf_u64(&c->out, sc.hi);
		tfs_buf_str(&c->out, o && o->mgr ? o->addr : "");
		nconf++;
	}
	/* fair queueing: a node whose request conflicts, or that a waiter of
	 * another node is ahead of, joins the file's FIFO; only the first
	 * waiter of a range splits its owners, the others wait their turn */
	ahead = waiter_turn(f, node, s, e, type, nconf > 0);
	if (ahead > 0 && !nconf)
		ahead = waiter_turn(f, node, s, e, type, 1);
	if (ahead < 0) {
		rc = ENOMEM;
	} else if (ahead) {
		c->out.len = 0;
		tfs_buf_u32(&c->out, 2);
		if (first && me)
			me->gamma++;
	} else if (nconf) {
		if (!tfs_buf_failed(&c->out))
			for (int i = 0; i < 4; i++)
				c->out.p[at + i] = (unsigned char)(nconf >> (8 * i));
		if (first && me)
			me->gamma++;
	} else {
		struct tfs_itree *t;
		uint64_t lim_s = 0, lim_e = UINT64_MAX;

		c->out.len = 0;
		for (size_t i = 0; i < f->ntok; i++) {
			struct scan sc = { .want = type };

			if (f->tok[i].node == node)
				continue;
			if (policy >= 1) {
				tfs_itree_each(&f->tok[i].tree, e, UINT64_MAX, first_conflict, &sc);
				if (sc.found && sc.lo < lim_e)
					lim_e = sc.lo;
			}
			sc.found = 0;
			if (policy == 2 && s > 0) {
				tfs_itree_each(&f->tok[i].tree, 0, s, scan_one, &sc);
				if (sc.found && sc.hi > lim_s)
					lim_s = sc.hi;
			}
		}
		if (policy >= 1)
			ge = lim_e;
		if (policy == 2)
			gs = lim_s;
		/* a node's own write tokens survive a read grant over them */
		if (!(t = ntok_get(f, node, 1)))
			rc = ENOMEM;
		else
			rc = tfsi_itree_hold(t, gs, ge, type) < 0 ? ENOMEM : 0;
		tfs_buf_u32(&c->out, 0);
		tfs_buf_u64(&c->out, gs);
		tfs_buf_u64(&c->out, ge);
		if (!rc && first && me)
			me->alpha++;
		if (!rc)
			waiters_drop(f, waiter_of, &node);
	}
	pthread_mutex_unlock(&f->lock);
	pthread_mutex_unlock(&S.lock);
	return rc;
}

/*
 * LOCK_RELEASE: the sender's node gives up [s, x): at least [s, e), on
 * (extend-end) as far as its tokens here run without a gap, but not past
 * @limit (where a lock of one of its processes begins).  The tokens here
 * decide, not the node's copy: a token handed to the node that it has not
 * heard of yet goes too.  After a split the sender names the node it
 * splits for and the type wanted: that node gets the range at once (where
 * no third node's token conflicts), so the owner cannot take it back in
 * the time the requester needs to ask again.  Reply: u64 x.
 */
static int do_lock_release(struct ctx *c)
{
	uint64_t fid = tfs_rd_u64(&c->rd), s = tfs_rd_u64(&c->rd), e = tfs_rd_u64(&c->rd),
		 limit = tfs_rd_u64(&c->rd), x;
	uint32_t to = tfs_rd_u32(&c->rd), type = tfs_rd_u32(&c->rd);
	uint64_t reach = s;
	struct tfs_itree *t;
	struct sfile *f;
	int rc = 0;

	if (!tfs_rd_done(&c->rd) || s >= e || limit < e || type > 2)
		return bad(c, "bad body");
	if (!(f = file_by_id(fid)))
		return bad(c, "unknown file id");
	pthread_mutex_lock(&f->lock);
	if ((t = ntok_get(f, c->cl->node, 0)))
		reach = tfsi_itree_reach(t, s, e);
	x = reach < limit ? reach : limit;
	if (x < e)
		x = e;
	if (t && tfs_itree_remove(t, s, x, NULL, NULL) < 0)
		rc = ENOMEM;
	if (!rc && type && to != c->cl->node && to != UINT32_MAX) {
		int third = 0;

		for (size_t i = 0; i < f->ntok && !third; i++) {
			struct scan sc = { .want = type };

			if (f->tok[i].node == to)
				continue;
			tfs_itree_each(&f->tok[i].tree, s, x, scan_one, &sc);
			third = sc.found;
		}
		if (!third && (!(t = ntok_get(f, to, 1)) || tfsi_itree_hold(t, s, x, type) < 0))
			rc = ENOMEM;
	}
	pthread_mutex_unlock(&f->lock);
	tfs_buf_u64(&c->out, x);
	return rc;
}

static int do_lock_report(struct ctx *c)
{
	struct lnode *n;
	uint64_t beta;

	tfs_rd_u64(&c->rd);
	beta = tfs_rd_u64(&c->rd);
	tfs_rd_u64(&c->rd);
	if (!tfs_rd_done(&c->rd))
		return bad(c, "bad body");
	pthread_mutex_lock(&S.lock);
	if ((n = lnode_get(c->cl->node, 0)) && n->mgr == c->cl->id)
		n->beta_cur = beta;
	pthread_mutex_unlock(&S.lock);
	return 0;
}

/* A node manager has gone: its node's tokens go with it (its processes
 * flushed what they wrote before they released), and the next process
 * of the node to ask becomes the manager. */
static void lock_client_gone(struct client *cl)
{
	struct lnode *n;

	pthread_mutex_lock(&S.lock);
	if ((n = lnode_get(cl->node, 0)) && n->mgr == cl->id) {
		n->mgr = 0;
		n->beta_base += n->beta_cur;
		n->beta_cur = 0;
		drop_node_tokens(cl->node);
	}
	pthread_mutex_unlock(&S.lock);
}

/* ---- revocations --------------------------------------------------------
 * A request whose change revokes delegations (maps_revoke()) is answered by
 * the revoker thread once every holder named has acknowledged its DROP
 * or its lease has ended: the progress thread and the workers never wait
 * for a client.  The change is made already, so a QUERY served meanwhile
 * sees it; the sender's call has not returned, so no read that must see
 * it has begun.  One thread, in order: a holder that does not answer
 * holds the others up for the rest of its lease at most, TFS_LEASE_MS.
 */
struct revocation {
	struct tfs_req *req;
	int rc;
	struct tfs_buf out;
	struct drop *dv;
	size_t ndv;
	long long until;	/* wait at least until then (ctx.dfailed) */
	struct revocation *next;
};

#define DROP_CHAIN 8	/* DROPs in flight at once: a stack frame of the transport's each */

/* One DROP of a revocation: to a holder, of one file or (fid 0) of every
 * file, when it holds several the change revokes (one request to each
 * client, so that no two of a chain wait on one endpoint). */
struct dsend {
	uint64_t id, fid;
	long long until;	/* the furthest of its leases met */
	int ok;			/* it said it dropped them */
};

/* The DROPs [i, end) of a revocation, in flight together. */
struct dchain {
	struct dsend *v;
	size_t i, end;
};

/*
 * Send DROP c->i and, while its request is on the way (the transport's
 * call_while), the ones after it, so that a change several processes
 * hold costs about one round trip, not one each; as the clients'
 * PEER_FLUSH chain does.  Where the transport cannot overlap (UCX), or a
 * request cannot be sent, the rest follows one by one.
 */
static void drop_chain(void *arg)
{
	struct dchain *c = arg;
	size_t i = c->i++;
	struct dsend *d;
	struct client *cl;
	unsigned char body[8];
	struct iovec v = { body, sizeof(body) };
	long long left;
	size_t rlen;
	int rc;

	if (i >= c->end)
		return;
	d = &c->v[i];
	pthread_mutex_lock(&S.lock);
	cl = client_by_id(d->id);
	pthread_mutex_unlock(&S.lock);
	left = d->until - tfsi_now_ms();
	if (!cl || left <= 0 ||
	    (!cl->cb && !(cl->cb = tfs_ep_connect(cl->addr, S.secret, (int)left))) ||
	    (left = d->until - tfsi_now_ms()) <= 0) {
		drop_chain(c);
		return;
	}
	for (int k = 0; k < 8; k++)
		body[k] = (unsigned char)(d->fid >> (8 * k));
	rc = tfs_ep_call_while(cl->cb, TFS_MSG_DROP, &v, 1, NULL, 0, NULL, &rlen, (int)left,
			       drop_chain, c);
	d->ok = rc == 0;
	if (rc < 0 || tfs_ep_broken(cl->cb)) {
		/* connected again from scratch next time */
		tfs_ep_close(cl->cb);
		cl->cb = NULL;
	}
	if (c->i == i + 1)	/* not sent: the others were not told yet */
		drop_chain(c);
}

static void revocation_run(struct revocation *r)
{
	struct dsend *sv = calloc(r->ndv ? r->ndv : 1, sizeof(*sv));
	size_t *of = calloc(r->ndv ? r->ndv : 1, sizeof(*of)), ns = 0;
	struct iovec v;

	for (size_t i = 0; sv && of && i < r->ndv; i++) {
		const struct drop *d = &r->dv[i];
		size_t k;

		for (k = 0; k < ns && sv[k].id != d->id; k++)
			;
		if (k == ns)
			sv[ns++] = (struct dsend){ d->id, d->fid, d->until, 0 };
		else if (sv[k].fid != d->fid)
			sv[k].fid = 0;
		if (d->until > sv[k].until)
			sv[k].until = d->until;
		of[i] = k;
	}
	for (size_t at = 0; at < ns; at += DROP_CHAIN) {
		struct dchain c = { sv, at, at + DROP_CHAIN < ns ? at + DROP_CHAIN : ns };

		drop_chain(&c);
	}
	for (size_t i = 0; i < r->ndv; i++) {
		const struct drop *d = &r->dv[i];
		struct sfile *f;
		long long left;

		if (!(sv && of && sv[of[i]].ok) && (left = d->until - tfsi_now_ms()) > 0)
			/* dead, hung or cut off (or no memory to ask it): it
			 * stops reading by the map when its lease ends, which
			 * it counts from before it asked */
			usleep((useconds_t)left * 1000);
		if (!(f = file_by_id(d->fid)))
			continue;
		pthread_mutex_lock(&f->lock);
		/* (not one granted again since: that map is newer) */
		for (size_t k = 0; k < f->nhold; k++)
			if (f->hold[k].id == d->id && f->hold[k].gen == d->gen) {
				f->hold[k] = f->hold[--f->nhold];
				break;
			}
		pthread_mutex_unlock(&f->lock);
	}
	free(sv);
	free(of);
	if (r->until > tfsi_now_ms())
		usleep((useconds_t)(r->until - tfsi_now_ms()) * 1000);
	v.iov_base = r->out.p;
	v.iov_len = r->rc ? 0 : r->out.len;
	tfs_req_reply(r->req, r->rc, &v, 1);
	tfs_buf_release(&r->out);
	free(r->dv);
	free(r);
}

static void *revoker_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct revocation *r;

		pthread_mutex_lock(&S.rv_lock);
		while (!S.rv_head)
			pthread_cond_wait(&S.rv_cv, &S.rv_lock);
		r = S.rv_head;
		if (!(S.rv_head = r->next))
			S.rv_tail = NULL;
		pthread_mutex_unlock(&S.rv_lock);
		revocation_run(r);
	}
	return NULL;
}

/* Hand @c's reply, @rc, to the revoker.  0, or -1 when it cannot be
 * (out of memory, or no thread). */
static int defer(struct ctx *c, int rc)
{
	struct revocation *r = malloc(sizeof(*r));

	if (!r)
		return -1;
	pthread_mutex_lock(&S.rv_lock);
	if (!S.rv_started) {
		pthread_t t;

		if (tfs_thread_start(&t, NULL, revoker_main, NULL) != 0) {
			pthread_mutex_unlock(&S.rv_lock);
			free(r);
			return -1;
		}
		pthread_detach(t);
		S.rv_started = 1;
	}
	*r = (struct revocation){ c->req, rc, c->out, c->dv, c->ndv, c->dfailed, NULL };
	if (S.rv_tail)
		S.rv_tail->next = r;
	else
		S.rv_head = r;
	S.rv_tail = r;
	pthread_cond_signal(&S.rv_cv);
	pthread_mutex_unlock(&S.rv_lock);
	return 0;
}

static void handle(struct tfs_req *req)
{
	struct ctx c = { .req = req };
	struct iovec v;
	int rc;

	tfs_rd_init(&c.rd, req->body, req->hdr.len);
	tfs_buf_init(&c.out);
	c.cl = tfs_conn_get(req->conn);
	if (!c.cl && req->hdr.type != TFS_MSG_HELLO) {
		rc = bad(&c, "no hello first");
	} else {
		switch (req->hdr.type) {
		case TFS_MSG_HELLO: rc = do_hello(&c); break;
		case TFS_MSG_OPEN: rc = do_open(&c); break;
		case TFS_MSG_ATTACH: rc = do_attach(&c, 0); break;
		case TFS_MSG_DETACH: rc = do_attach(&c, 1); break;
		case TFS_MSG_DETACH_CLIENT: rc = do_detach_client(&c); break;
		case TFS_MSG_QUERY: rc = do_query(&c); break;
		case TFS_MSG_EOF: rc = do_eof(&c, 0); break;
		case TFS_MSG_TRUNCATE: rc = do_eof(&c, 1); break;
		case TFS_MSG_UNLINK: rc = do_unlink(&c); break;
		case TFS_MSG_LOCK_NODE: rc = do_lock_node(&c); break;
		case TFS_MSG_LOCK_ACQUIRE: rc = do_lock_acquire(&c); break;
		case TFS_MSG_LOCK_RELEASE: rc = do_lock_release(&c); break;
		case TFS_MSG_LOCK_REPORT: rc = do_lock_report(&c); break;
		case TFS_MSG_STAGE: rc = do_stage(&c); break;
		case TFS_MSG_PENDING: rc = do_pending(&c); break;
		case TFS_MSG_ATTACH_CLEAN: rc = do_attach(&c, 0); break;
		case TFS_MSG_RLOCK: rc = do_rlock(&c); break;
		case TFS_MSG_APPEND: rc = do_append(&c); break;
		case TFS_MSG_SETMODE: rc = do_setmode(&c); break;
		case TFS_MSG_RENAME: rc = do_rename(&c); break;
		case TFS_MSG_LIST: rc = do_list(&c); break;
		case TFS_MSG_SETTIMES: rc = do_settimes(&c); break;
		default:
			logmsg("request of unknown type %u refused", (unsigned)req->hdr.type);
			rc = EOPNOTSUPP;
		}
	}
	if (tfs_buf_failed(&c.out))
		rc = ENOMEM;
	if ((c.ndv || c.dfailed) && defer(&c, rc) < 0) {
		/* no revoker to hand it to: no holder is told, each reads
		 * by its map until its lease ends, which this waits for */
		long long until = c.dfailed;

		for (size_t i = 0; i < c.ndv; i++)
			if (c.dv[i].until > until)
				until = c.dv[i].until;
		if (until > tfsi_now_ms())
			usleep((useconds_t)(until - tfsi_now_ms()) * 1000);
	} else if (c.ndv || c.dfailed) {
		return;
	}
	v.iov_base = c.out.p;
	v.iov_len = rc ? 0 : c.out.len;
	tfs_req_reply(req, rc, &v, 1);
	tfs_buf_release(&c.out);
	free(c.dv);
}

/* ---- workers ------------------------------------------------------------- */

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (;;) {
		struct task *t;

		pthread_mutex_lock(&w->lock);
		while (!w->head && !w->quit)
			pthread_cond_wait(&w->cond, &w->lock);
		if (!w->head) {
			pthread_mutex_unlock(&w->lock);
			return NULL;
		}
		t = w->head;
		w->head = t->next;
		if (!w->head)
			w->tail = NULL;
		pthread_mutex_unlock(&w->lock);
		handle(t->req);
		free(t);
	}
}

/* The progress thread's callback: STOP is kept for the main thread, every
 * other request is handled here, or with workers goes to the next one. */
static void on_req(struct tfs_req *req, void *arg)
{
	struct worker *w;
	struct task *t;

	(void)arg;
	if (req->hdr.type == TFS_MSG_STOP) {
		pthread_mutex_lock(&S.lock);
		if (S.stop_req || S.stopping || req->hdr.len) {
			pthread_mutex_unlock(&S.lock);
			tfs_req_reply(req, req->hdr.len ? EINVAL : EALREADY, NULL, 0);
			return;
		}
		S.stop_req = req;
		pthread_mutex_unlock(&S.lock);
		pthread_kill(S.main_thread, SIGUSR1);
		return;
	}
	if (S.nworkers == 0) {
		handle(req);
		return;
	}
	if (!(t = malloc(sizeof(*t)))) {
		tfs_req_reply(req, ENOMEM, NULL, 0);
		return;
	}
	t->req = req;
	t->next = NULL;
	w = &S.workers[S.next_worker++ % (unsigned)S.nworkers];
	pthread_mutex_lock(&w->lock);
	if (w->tail)
		w->tail->next = t;
	else
		w->head = t;
	w->tail = t;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/* The pieces a dead client owned, for tfs_rescue(). */
struct owned_pieces {
	uint64_t id;
	struct tfs_iv *v;
	size_t n, cap;
};

static int collect_owned(const struct tfs_iv *iv, void *arg)
{
	struct owned_pieces *o = arg;

	if (iv->owner != o->id)
		return 0;
	if (o->n == o->cap) {
		struct tfs_iv *v = realloc(o->v, (o->cap = o->cap ? 2 * o->cap : 16) * sizeof(*v));
		if (!v)
			return 1;
		o->v = v;
	}
	o->v[o->n++] = *iv;
	return 0;
}

/* tfs_rescue_ops of the server's tables; @arg is the dead client's id. */
static int rescue_where(unsigned long long fid, char *path, size_t len, unsigned *mode, void *arg)
{
	struct sfile *f = file_by_id(fid);
	int rc = -1;

	(void)arg;
	if (!f)
		return -1;
	pthread_mutex_lock(&S.lock);
	if (!f->unlinked && (size_t)snprintf(path, len, "%s", f->path) < len) {
		*mode = f->mode & TFS_MODE_SET ? f->mode & 07777 : 0;
		rc = 0;
	}
	pthread_mutex_unlock(&S.lock);
	return rc;
}

static void rescue_owned(unsigned long long fid, unsigned long long s, unsigned long long e,
			 void (*each)(unsigned long long s, unsigned long long e, void *ctx),
			 void *ctx, void *arg)
{
	struct owned_pieces o = { *(uint64_t *)arg, NULL, 0, 0 };
	struct sfile *f = file_by_id(fid);

	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	tfs_itree_each(&f->tree, s, e, collect_owned, &o);
	pthread_mutex_unlock(&f->lock);
	for (size_t i = 0; i < o.n; i++)
		each(o.v[i].start, o.v[i].end, ctx);
	free(o.v);
}

/* The stage mark, as a client takes it (STAGE): a stage-out of the file
 * that runs goes first, for up to TFS_STAGE_WAIT_MS. */
#define TFS_STAGE_WAIT_MS 30000
static void rescue_begin(unsigned long long fid, void *arg)
{
	uint64_t id = *(uint64_t *)arg;
	struct sfile *f = file_by_id(fid);

	for (int waited = 0; f; waited += 10) {
		pthread_mutex_lock(&f->lock);
		if (!f->stager || f->stager == id || waited >= TFS_STAGE_WAIT_MS) {
			f->stager = id;
			pthread_mutex_unlock(&f->lock);
			return;
		}
		pthread_mutex_unlock(&f->lock);
		usleep(10000);
	}
}

static void rescue_end(unsigned long long fid, void *arg)
{
	struct sfile *f = file_by_id(fid);

	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	if (f->stager == *(uint64_t *)arg)
		f->stager = 0;
	pthread_mutex_unlock(&f->lock);
}

static const struct tfs_rescue_ops rescue_ops = { rescue_where, rescue_owned, rescue_begin,
						  rescue_end };

static void say_log(const char *line);

/* A client that ended: its rescue, then its attachments go.  In a thread
 * of its own, so that the server goes on answering the others meanwhile
 * (a rescue may wait for a stage-out of another client, and copy for a
 * while); rescues take turns (report_lock), and --stop's recovery waits
 * for them. */
static void *rescue_main(void *arg)
{
	struct client *cl = arg;
	const char *fate = "died";

	/* its connection also closes when the server ends, and a client
	 * that runs on, stopped or hung, is rescued as one that died; a
	 * process killed closes its descriptors a moment before it is a
	 * zombie, so it is asked again for up to 200 ms */
	for (int i = 0; i < 40 && !tfs_client_dead(S.dir, cl->node, (long)cl->pid); i++)
		usleep(5000);
	if (!tfs_client_dead(S.dir, cl->node, (long)cl->pid))
		fate = atomic_load(&cl->unanswered) ?
			"did not answer the stage-out ask (it runs: stopped or hung)" :
			"lost its connection (it runs)";
	pthread_mutex_lock(&S.report_lock);
	tfs_rescue(S.dir, cl->node, (long)cl->pid, fate, &rescue_ops, &cl->id, say_log,
		   &S.report);
	drop_client(cl->id, 1);
	cl->dropped = 1;
	S.rescues--;
	pthread_cond_broadcast(&S.rescue_cv);
	pthread_mutex_unlock(&S.report_lock);
	return NULL;
}

/* Rescue every client of this host that died and left a note; the
 * number whose rescue failed. */
static int rescue_dead(void)
{
	struct client **v;
	size_t n, i;
	int failed = 0;

	if (!S.dir[0])
		return 0;
	pthread_mutex_lock(&S.lock);
	n = S.nclients;
	v = n ? malloc(n * sizeof(*v)) : NULL;
	if (v)
		memcpy(v, S.clients, n * sizeof(*v));
	pthread_mutex_unlock(&S.lock);
	for (i = 0; v && i < n; i++) {
		if (!v[i] || !tfs_client_dead(S.dir, v[i]->node, (long)v[i]->pid))
			continue;
		pthread_mutex_lock(&S.report_lock);
		/* one whose end was handled (its rescue failed, or its note
		 * says "rescued"): the tables no longer say what it owned, and
		 * a rescue from them staged nothing and removed its burst-buffer
		 * files (--stop exited 0, the data lost); its note is the word
		 * now (tfs_recover(), next) */
		if (!v[i]->dropped && tfs_rescue(S.dir, v[i]->node, (long)v[i]->pid, "died",
						 &rescue_ops, &v[i]->id, say_log, &S.report) < 0)
			failed++;
		pthread_mutex_unlock(&S.report_lock);
	}
	free(v);
	return failed;
}

static void on_close(struct tfs_conn *conn, void *arg)
{
	struct client *cl = tfs_conn_get(conn);
	pthread_attr_t at;
	pthread_t t;

	(void)arg;
	if (!cl)
		return;
	atomic_store(&cl->gone, 1);
	lock_client_gone(cl);
	/* a client that died (killed after an MPI_Abort, say) left a note
	 * with what it attached: what it still owns is staged out before its
	 * attachments go (tfs(3), DURABILITY) */
	if (S.dir[0] && pthread_attr_init(&at) == 0) {
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		pthread_mutex_lock(&S.report_lock);
		S.rescues++;
		pthread_mutex_unlock(&S.report_lock);
		if (pthread_create(&t, &at, rescue_main, cl) == 0) {
			pthread_attr_destroy(&at);
			return;
		}
		pthread_attr_destroy(&at);
		pthread_mutex_lock(&S.report_lock);
		S.rescues--;
		pthread_mutex_unlock(&S.report_lock);
	}
	pthread_mutex_lock(&S.report_lock);
	drop_client(cl->id, 1);
	cl->dropped = 1;
	pthread_mutex_unlock(&S.report_lock);
}

/*
 * Beside a TCP address, a Unix-domain socket DIR/sock for the clients on
 * this host (the server file names it, and them by the host name): a
 * round trip on it costs about two thirds of one over loopback TCP.
 * NULL when the address is not TCP or the socket cannot be made (its
 * path too long, say): those clients use TCP.
 */
static struct tfs_lsn *open_local(const char *addr, const char *dir)
{
	char abs[PATH_MAX], unixaddr[160], msg[256];

	if (strncmp(addr, "tcp:", 4) != 0 || !realpath(dir, abs) ||
	    (size_t)snprintf(unixaddr, sizeof(unixaddr), "unix:%s/sock", abs) >= 108)
		return NULL;
	return tfs_lsn_open(unixaddr, S.secret, "tfs-server", on_req, on_close, NULL, msg,
			    sizeof(msg));
}

/* ---- stage-out ------------------------------------------------------------ */

struct stager {
	pthread_t thread;
	struct client cl;
	int rc;
};

static void *stage_one(void *arg)
{
	struct stager *s = arg;
	struct tfs_ep *ep = tfs_ep_connect(s->cl.addr, S.secret, 10000);
	size_t rlen;

	if (!ep) {
		s->rc = errno;
		return NULL;
	}
	s->rc = tfs_ep_call(ep, TFS_MSG_PEER_STAGE, NULL, 0, NULL, 0, NULL, &rlen,
			    TFS_STAGE_TIMEOUT_MS);
	if (s->rc < 0)
		s->rc = errno;
	tfs_ep_close(ep);
	return NULL;
}

static void *stage_one_owner(void *arg)
{
	struct stager *s = arg;

	stage_one(s);
	/* A client that ended while it was asked had staged out itself
	 * before its listener closed: what counts is that it owns nothing. */
	if (s->rc && !client_owns(s->cl.id))
		s->rc = 0;
	return NULL;
}

/* Client @id did not answer a stage-out ask, and runs. */
static void mark_unanswered(uint64_t id)
{
	struct client *cl;

	pthread_mutex_lock(&S.lock);
	if ((cl = client_by_id(id)))
		atomic_store(&cl->unanswered, 1);
	pthread_mutex_unlock(&S.lock);
}

/* Ask every connected client to write what it still owns to its backing
 * directory and detach it; returns the number that failed. */
static int stage_out(void)
{
	struct stager *st;
	size_t n, k = 0, i;
	int failed = 0;

	pthread_mutex_lock(&S.lock);
	n = S.nclients;
	st = calloc(n ? n : 1, sizeof(*st));
	for (i = 0; st && i < n; i++)
		if (!atomic_load(&S.clients[i]->gone) && S.clients[i]->addr[0]) {
			st[k].cl.id = S.clients[i]->id;
			st[k].cl.node = S.clients[i]->node;
			st[k].cl.pid = S.clients[i]->pid;
			memcpy(st[k].cl.addr, S.clients[i]->addr, sizeof(st[k].cl.addr));
			k++;
		}
	pthread_mutex_unlock(&S.lock);
	/* only clients that own something are asked: one that has staged out
	 * (or never attached) may be ending, or stopped, and has nothing to say */
	for (i = n = 0; i < k; i++)
		if (client_owns(st[i].cl.id))
			st[n++] = st[i];
	k = n;
	if (!st)
		return 1;
	for (i = 0; i < k; i++)
		if (pthread_create(&st[i].thread, NULL, stage_one_owner, &st[i]) != 0)
			stage_one_owner(&st[i]), st[i].thread = 0;
	for (i = 0; i < k; i++) {
		if (st[i].thread)
			pthread_join(st[i].thread, NULL);
		if (st[i].rc && S.dir[0] && tfs_client_dead(S.dir, st[i].cl.node, st[i].cl.pid)) {
			/* it died while asked: what it attached is rescued from
			 * its note (rescue_dead()), which says what it could not */
			logmsg("client %llu (node %u, pid %u) died while asked to stage out: "
			       "rescued from its note", (unsigned long long)st[i].cl.id,
			       st[i].cl.node, st[i].cl.pid);
		} else if (st[i].rc) {
			logmsg("stage-out of client %llu (node %u, pid %u) failed: %s",
			       (unsigned long long)st[i].cl.id, st[i].cl.node, st[i].cl.pid,
			       strerror(st[i].rc));
			mark_unanswered(st[i].cl.id);
			failed++;
		}
	}
	free(st);
	return failed;
}

/* ---- main ---------------------------------------------------------------- */

/* A UCP listener whose transports cannot take a connection by socket
 * address (UCX_TLS=sm,self in the environment, as MPICH is given) is made
 * all the same, and refuses every client: the server would run, silent
 * and unreachable.  So it connects to itself once before it says where
 * it is. */
static void check_reachable(void)
{
	const char *a = tfs_lsn_addr(S.lsn);
	struct tfs_ep *ep;
	int e;

	if ((ep = tfs_ep_connect(a, S.secret, 10000))) {
		tfs_ep_close(ep);
		return;
	}
	e = errno;
	errx(TG_EXIT_ERROR, "cannot connect to its own address '%s': %s%s", a, strerror(e),
	     tfs_ep_hint(a, e));
}

static int stop_server(const char *dir)
{
	struct tfs_server_file sf;
	struct tfs_ep *ep;
	char msg[256];
	void *body = NULL;
	size_t rlen = 0;
	int rc;

	if (tfs_server_file_read(dir, 1, &sf, msg, sizeof(msg)) < 0)
		errx(TG_EXIT_ERROR, "%s", msg);
	if (!(ep = tfs_ep_connect(sf.addr, sf.secret, 10000)))
		errx(TG_EXIT_ERROR, "cannot reach the server at '%s': %s%s", sf.addr,
		     strerror(errno), tfs_ep_hint(sf.addr, errno));
	rc = tfs_ep_call(ep, TFS_MSG_STOP, NULL, 0, NULL, 0, &body, &rlen,
			 TFS_STAGE_TIMEOUT_MS + 10000);
	if (rc < 0)
		err(TG_EXIT_ERROR, "stop request to '%s'", sf.addr);
	/* the clients that did not stage out, and what the server did for them */
	for (char *l = body, *e; l && l < (char *)body + rlen; l = e + 1) {
		if (!(e = memchr(l, '\n', (size_t)((char *)body + rlen - l))))
			e = (char *)body + rlen;
		fprintf(stderr, "tfs-server: %.*s\n", (int)(e - l), l);
	}
	free(body);
	if (rc == EALREADY)
		errx(TG_EXIT_ERROR, "the server at '%s' is already stopping", sf.addr);
	if (rc && rc != EIO)
		errx(TG_EXIT_ERROR, "stop request to '%s': %s", sf.addr, strerror(rc));
	/* the server closes the connection as it exits */
	if (tfs_ep_wait_closed(ep, 10000) < 0)
		errx(TG_EXIT_ERROR, "the server at '%s' did not exit", sf.addr);
	tfs_ep_close(ep);
	if (rc == EIO)
		errx(TG_EXIT_ERROR, "stage-out incomplete: see the server's log");
	return TG_EXIT_OK;
}

/* TFS_TEST_PAUSE=stop:MS (for tests only, tfs-server(8)): sleep MS
 * milliseconds just before the reply to --stop, saying so in the log. */
static void test_pause_stop(void)
{
	const char *p = getenv("TFS_TEST_PAUSE");

	if (!p || strncmp(p, "stop:", 5) != 0)
		return;
	logmsg("test pause before the stop reply");
	usleep((useconds_t)strtol(p + 5, NULL, 10) * 1000);
}

static void say_log(const char *line)
{
	logmsg("%s", line);
}

/* tfs-server --recover DIR: what dead clients of this host left, with no
 * server running on DIR. */
static int recover_dir(const char *dir)
{
	static const char *const state[] = { "lock", "server", "clients" };
	char msg[PATH_MAX + 128];
	struct stat st;
	size_t i;

	/* a directory no server ever ran on (a mistyped job directory) has
	 * none of them: say so, and leave no lock file behind in it */
	for (i = 0; i < sizeof(state) / sizeof(*state); i++) {
		snprintf(msg, sizeof(msg), "%s/%s", dir, state[i]);
		if (lstat(msg, &st) == 0 || errno != ENOENT)
			break;
	}
	if (i == sizeof(state) / sizeof(*state) && stat(dir, &st) == 0)
		errx(TG_EXIT_ERROR, "'%s' holds no server state (no lock, server file or "
		     "clients/): nothing to recover", dir);
	if (tfs_dir_lock(dir, msg, sizeof(msg)) < 0)
		errx(TG_EXIT_ERROR, "%s", msg);
	if (tfs_recover(dir, say_log, NULL))
		errx(TG_EXIT_ERROR, "some of what clients left in '%s' was kept: see above", dir);
	return TG_EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "stop", required_argument, NULL, 'S' },
		{ "recover", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	const char *addr = "tcp:127.0.0.1:0", *dir = NULL, *stop = NULL, *recover = NULL;
	struct tfs_req *stop_req;
	char msg[512];
	sigset_t set;
	int c, sig, failed;

#ifdef __SANITIZE_ADDRESS__
	/* (make check SANITIZE=1) LeakSanitizer's check at exit crashes on
	 * UCX's memory event hooks; TangramFS's transports need none */
	setenv("UCX_MEM_EVENTS", "no", 0);
#endif
	S.nworkers = 0;
	S.block = 4096;
	if (getenv("TFS_BLOCK_SIZE"))
		S.block = (uint64_t)tg_strtonum(getenv("TFS_BLOCK_SIZE"), 1, 1LL << 40,
						"TFS_BLOCK_SIZE");
	while ((c = getopt_long(argc, argv, "a:d:hw:", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			addr = optarg;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'h':
			usage(TG_EXIT_OK);
			break;
		case 'S':
			stop = optarg;
			break;
		case 'R':
			recover = optarg;
			break;
		case 'w':
			S.nworkers = (int)tg_strtonum(optarg, 0, 256, "option -w");
			break;
		default:
			usage(TG_EXIT_ERROR);
		}
	}
	if (optind != argc || !!dir + !!stop + !!recover != 1)
		usage(TG_EXIT_ERROR);
	if (stop)
		return stop_server(stop);
	if (recover)
		return recover_dir(recover);

	/* signals are taken by sigwait in this thread only */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	S.main_thread = pthread_self();

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		err(TG_EXIT_ERROR, "cannot create '%s'", dir);
	if (!realpath(dir, S.dir))
		S.dir[0] = '\0';
	/* one server per directory: a live one keeps its server file; a dead
	 * one's is taken over, and what its clients left is staged out */
	if (tfs_dir_lock(dir, msg, sizeof(msg)) < 0)
		errx(TG_EXIT_ERROR, "%s", msg);
	tfs_recover(dir, say_log, NULL);
	if (getrandom(S.secret, sizeof(S.secret), 0) != (ssize_t)sizeof(S.secret))
		err(TG_EXIT_ERROR, "cannot draw the secret");
	if (S.nworkers && !(S.workers = calloc((size_t)S.nworkers, sizeof(*S.workers))))
		err(TG_EXIT_ERROR, "out of memory");
	for (int i = 0; i < S.nworkers; i++) {
		pthread_mutex_init(&S.workers[i].lock, NULL);
		pthread_cond_init(&S.workers[i].cond, NULL);
		if (pthread_create(&S.workers[i].thread, NULL, worker_main, &S.workers[i]) != 0)
			errx(TG_EXIT_ERROR, "cannot start worker threads");
	}
	S.lsn = tfs_lsn_open(addr, S.secret, "tfs-server", on_req, on_close, NULL, msg,
			     sizeof(msg));
	if (!S.lsn)
		errx(TG_EXIT_ERROR, "%s", msg);
	if (strncmp(addr, "ucx:", 4) == 0)
		check_reachable();
	S.local = open_local(addr, dir);
	if (tfs_server_file_write(dir, tfs_lsn_addr(S.lsn), S.local ? tfs_lsn_addr(S.local) : NULL,
				  S.secret, msg, sizeof(msg)) < 0)
		errx(TG_EXIT_ERROR, "%s", msg);

	do {
		if (sigwait(&set, &sig) != 0)
			sig = SIGTERM;
	} while (sig == SIGPIPE);

	failed = stage_out();
	/* clients that died and whose connection's end the server has not
	 * handled yet: rescued now, with what the server knows of them */
	failed += rescue_dead();
	/* a file kept for another try fails the stop as a client's failed
	 * stage-out does (it was exit 0, while the report said "kept") */
	pthread_mutex_lock(&S.report_lock);
	if (tfs_recover(dir, say_log, &S.report))
		failed = 1;
	pthread_mutex_unlock(&S.report_lock);
	pthread_mutex_lock(&S.lock);
	for (size_t i = 0; i < S.nnodes; i++)
		logmsg("node %u: alpha %llu beta %llu gamma %llu", S.nodes[i].node,
		       (unsigned long long)S.nodes[i].alpha,
		       (unsigned long long)(S.nodes[i].beta_base + S.nodes[i].beta_cur),
		       (unsigned long long)S.nodes[i].gamma);
	pthread_mutex_unlock(&S.lock);
	/* DIR/sock goes before --stop hears back (which came over the address) */
	tfs_lsn_close(S.local);
	S.local = NULL;
	/* the reply goes without S.lock: the transport may wait for its
	 * progress thread, which may be telling on_close() (which takes
	 * S.lock) of a client that has gone */
	pthread_mutex_lock(&S.lock);
	stop_req = S.stop_req;
	S.stop_req = NULL;
	S.stopping = 1;
	pthread_mutex_unlock(&S.lock);
	test_pause_stop();
	if (stop_req) {
		/* a copy: a client's connection closing now (on_close, another
		 * thread) may still add to the report */
		char *r;
		struct iovec v;

		pthread_mutex_lock(&S.report_lock);
		r = S.report ? strdup(S.report) : NULL;
		pthread_mutex_unlock(&S.report_lock);
		v.iov_base = r;
		v.iov_len = r ? strlen(r) : 0;
		tfs_req_reply(stop_req, failed ? EIO : 0, &v, 1);
		free(r);
	}
	tfs_server_file_remove(dir);
	tfs_lsn_close(S.lsn);
	/* the rescues of the clients whose connections closed with it (one
	 * that did not answer the stop) end before the server does: the
	 * process ended under them, their lines unsaid */
	pthread_mutex_lock(&S.report_lock);
	while (S.rescues)
		pthread_cond_wait(&S.rescue_cv, &S.report_lock);
	pthread_mutex_unlock(&S.report_lock);
	for (int i = 0; i < S.nworkers; i++) {
		pthread_mutex_lock(&S.workers[i].lock);
		S.workers[i].quit = 1;
		pthread_cond_signal(&S.workers[i].cond);
		pthread_mutex_unlock(&S.workers[i].lock);
		pthread_join(S.workers[i].thread, NULL);
	}
	return failed ? TG_EXIT_ERROR : TG_EXIT_OK;
}
