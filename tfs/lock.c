/*
 * lock.c - the lock-based design of TangramFS (dissertation §5.3.2,
 * §5.4.1): the locking primitives of Table 5.2 and the node-local lock
 * manager.
 *
 * Three levels hold rights over whole blocks (the server's block size):
 * the global lock manager in tfs-server hands tokens to nodes; a node's
 * manager grants locks to the node's processes from the tokens it holds,
 * asking the server only for what it does not hold; a process keeps the
 * locks it was granted until it releases them or they are revoked.
 *
 * The node manager is the first process of a node (TFS_NODE) that asks
 * the server about locks; the server says who it is.  It serves the other
 * processes of its node on its listener (LOCK_GET, LOCK_PUT, ...) and the
 * other managers (LOCK_SPLIT), and stays at exit until the node's other
 * processes have left.  When it is gone (ended, killed) the server drops
 * the node's tokens and the next process of the node that asks becomes
 * the manager: a process that finds its manager gone flushes and drops
 * its locks (no token backs them any more) and asks the server again.
 *
 * A conflict is resolved by splitting (Figure 5.3): the server names the
 * owners; the requester asks each for a split; the owner revokes its
 * processes' locks on the released range (each flushes what it wrote
 * there), returns the range to the server, and answers; the requester
 * asks the server again.
 *
 * Locks of the manager: M.aq serialises the node's acquisitions in
 * arrival order (the node manager handles one request at a time, as
 * §5.5.2 assumes) and is held while waiting for other managers or for
 * the node's turn at the server; M.st guards the tables and is
 * held only while waiting for the server or for the node's own
 * processes, neither of which waits for a manager, so a split (which
 * takes only M.st) is always served.  A process never holds its own
 * L.lock or a file lock while it waits for the manager.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tfs.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client-int.h"
#include "itree.h"
#include "proto.h"
#include "transport.h"
#include "../libcommon/banned.h"

enum { OUT_ALPHA, OUT_BETA, OUT_GAMMA };

/* Intervals of a lock or token tree: state = the lock type, base = start,
 * owner = 0. */

/* The largest type held over all of [s, e), 0 when some part is not held. */
struct cover {
	uint64_t at;
	uint32_t min;
};

static int cover_one(const struct tfs_iv *iv, void *arg)
{
	struct cover *c = arg;

	if (iv->start > c->at)
		return 1;
	if (iv->state < c->min)
		c->min = iv->state;
	c->at = iv->end;
	return 0;
}

static uint32_t held_type(const struct tfs_itree *t, uint64_t s, uint64_t e)
{
	struct cover c = { s, TFS_LOCK_WRITE };

	if (tfs_itree_each(t, s, e, cover_one, &c) || c.at < e)
		return 0;
	return c.min;
}

static int collect_none(const struct tfs_iv *iv, void *arg)
{
	(void)iv;
	(void)arg;
	return 1;
}

/* ---- the process's own locks ------------------------------------------------------ */

struct plock {
	uint64_t fid;
	struct tfs_itree t;
	unsigned revokes;	/* revocations seen, to catch one racing a grant */
	struct plock *next;
};

static struct {
	pthread_mutex_t lock;	/* everything below */
	int ready;
	int is_mgr;
	uint64_t block;
	int policy;
	char mgr[128];		/* the node manager's listener */
	struct plock *locks;
} L = { .lock = PTHREAD_MUTEX_INITIALIZER, .policy = -1 };

/* With L.lock held. */
static struct plock *plock_get(uint64_t fid, int create)
{
	struct plock *p;

	for (p = L.locks; p && p->fid != fid; p = p->next)
		;
	if (!p && create && (p = calloc(1, sizeof(*p)))) {
		p->fid = fid;
		tfs_itree_init(&p->t);
		p->next = L.locks;
		L.locks = p;
	}
	return p;
}

static int parse_policy(const char *s)
{
	if (!s || !*s || strcmp(s, "exact") == 0)
		return TFS_LOCK_EXACT;
	if (strcmp(s, "extend-end") == 0)
		return TFS_LOCK_EXTEND_END;
	if (strcmp(s, "extend") == 0)
		return TFS_LOCK_EXTEND;
	return -1;
}

/* ---- the node manager ------------------------------------------------------------ */

struct mclient {
	uint64_t id;
	char addr[128];
	struct tfs_conn *conn;	/* NULL for this process */
	struct mclient *next;
};

struct mlock {			/* the locks one process holds on one file */
	uint64_t fid, client;
	struct tfs_itree t;
	struct mlock *next;
};

struct mfile {			/* the node's tokens of one file */
	uint64_t fid;
	struct tfs_itree tok;
	struct mfile *next;
};

static struct {
	struct {		/* one acquisition at a time, in order */
		pthread_mutex_t m;
		pthread_cond_t cv;
		unsigned long next, serving;
	} aq;
	pthread_mutex_t st;	/* everything below */
	pthread_cond_t cv;	/* a client left or a thread ended */
	struct mclient *clients;
	struct mlock *locks;
	struct mfile *files;
	uint64_t count[3];	/* alpha, beta, gamma */
	int threads;		/* request threads running */
	int closing;		/* 1 leaving; 2 and no requests on threads */
} M = { .aq = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 },
	.st = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

/* With M.st held. */
static struct mfile *mfile_get(uint64_t fid, int create)
{
	struct mfile *f;

	for (f = M.files; f && f->fid != fid; f = f->next)
		;
	if (!f && create && (f = calloc(1, sizeof(*f)))) {
		f->fid = fid;
		tfs_itree_init(&f->tok);
		f->next = M.files;
		M.files = f;
	}
	return f;
}

static struct mlock *mlock_get(uint64_t fid, uint64_t client, int create)
{
	struct mlock *l;

	for (l = M.locks; l && !(l->fid == fid && l->client == client); l = l->next)
		;
	if (!l && create && (l = calloc(1, sizeof(*l)))) {
		l->fid = fid;
		l->client = client;
		tfs_itree_init(&l->t);
		l->next = M.locks;
		M.locks = l;
	}
	return l;
}

static struct mclient *mclient_by_id(uint64_t id)
{
	struct mclient *c;

	for (c = M.clients; c && c->id != id; c = c->next)
		;
	return c;
}

static int revoke_local(uint64_t fid, uint64_t s, uint64_t e);

/* Ask process @client of this node to give up [s, e) of @fid, flushing
 * first; with M.st held.  Its record goes whatever happens: a process
 * that cannot be reached is gone. */
static int revoke_client(uint64_t client, uint64_t fid, uint64_t s, uint64_t e)
{
	struct mclient *c = mclient_by_id(client);
	struct mlock *l = mlock_get(fid, client, 0);
	struct tfs_buf b;
	int rc = 0;

	if (l)
		tfs_itree_remove(&l->t, s, e, NULL, NULL);
	if (!c)
		return 0;
	if (!c->conn)
		return revoke_local(fid, s, e);
	tfs_buf_init(&b);
	tfs_buf_u64(&b, fid);
	tfs_buf_u64(&b, s);
	tfs_buf_u64(&b, e);
	rc = tfsi_peer_call(c->addr, TFS_MSG_LOCK_REVOKE, &b, NULL, NULL);
	tfs_buf_release(&b);
	return rc;
}

/* Revoke every lock of @fid within [s, e) held by a process other than
 * @except whose type conflicts with @type (any, when @type is 0); with
 * M.st held. */
static int revoke_others(uint64_t fid, uint64_t s, uint64_t e, uint32_t type, uint64_t except)
{
	int rc = 0;

	for (struct mlock *l = M.locks; l; l = l->next) {
		struct tfs_ivec p = { 0 };

		if (l->fid != fid || l->client == except)
			continue;
		tfs_itree_each(&l->t, s, e, tfsi_itree_collect, &p);
		for (size_t i = 0; i < p.n; i++)
			if (!type || type == TFS_LOCK_WRITE || p.v[i].state == TFS_LOCK_WRITE)
				if (revoke_client(l->client, fid, p.v[i].start, p.v[i].end) < 0)
					rc = -1;
		free(p.v);
	}
	return rc;
}

struct owner {
	uint32_t node;
	uint64_t start, end;
	char addr[128];
};

/* LOCK_ACQUIRE to the server, with M.st held.  Returns 0 granted (the
 * token recorded), 1 conflict (*@own, *@nown), 2 wait (another node is
 * ahead in the server's queue for the range), or -1. */
static int server_acquire(uint64_t fid, uint64_t s, uint64_t e, uint32_t type, int policy,
			  int first, struct owner **own, uint32_t *nown)
{
	struct tfs_buf b;
	struct tfs_rd rd;
	void *mem;
	uint32_t res;
	int rc = -1;

	tfs_buf_init(&b);
	tfs_buf_u64(&b, fid);
	tfs_buf_u64(&b, s);
	tfs_buf_u64(&b, e);
	tfs_buf_u32(&b, type);
	tfs_buf_u32(&b, (uint32_t)policy);
	tfs_buf_u32(&b, first ? 1 : 0);
	if (tfsi_call(TFS_MSG_LOCK_ACQUIRE, &b, &mem, &rd) < 0) {
		tfs_buf_release(&b);
		return -1;
	}
	tfs_buf_release(&b);
	res = tfs_rd_u32(&rd);
	if (res == 0) {
		uint64_t gs = tfs_rd_u64(&rd), ge = tfs_rd_u64(&rd);
		struct mfile *f;

		if (!tfs_rd_done(&rd) || gs > s || ge < e) {
			errno = EPROTO;
		} else if (!(f = mfile_get(fid, 1))) {
			errno = ENOMEM;
		} else {
			rc = tfsi_itree_hold(&f->tok, gs, ge, type);
		}
	} else if (res == 2) {
		rc = tfs_rd_done(&rd) ? 2 : -1;
		if (rc < 0)
			errno = EPROTO;
	} else if (res == 1) {
		uint32_t n = tfs_rd_u32(&rd);

		if (n == 0 || n > 65536 || !(*own = calloc(n, sizeof(**own)))) {
			errno = n ? ENOMEM : EPROTO;
		} else {
			for (uint32_t i = 0; i < n; i++) {
				(*own)[i].node = tfs_rd_u32(&rd);
				(*own)[i].start = tfs_rd_u64(&rd);
				(*own)[i].end = tfs_rd_u64(&rd);
				tfs_rd_str(&rd, (*own)[i].addr, sizeof((*own)[i].addr));
			}
			if (tfs_rd_done(&rd)) {
				*nown = n;
				rc = 1;
			} else {
				free(*own);
				*own = NULL;
				errno = EPROTO;
			}
		}
	} else {
		errno = EPROTO;
	}
	free(mem);
	return rc;
}

static int mgr_split(uint64_t fid, uint64_t s, uint64_t e, uint32_t to, uint32_t type);

/* Ask the manager at @addr to split its tokens off [s, e) for this node
 * and @type; with no lock held. */
static int split_at(const char *addr, uint64_t fid, uint64_t s, uint64_t e, uint32_t type)
{
	struct tfs_buf b;
	int rc;

	if (!*addr || strcmp(addr, tfsi_addr()) == 0) {
		errno = ESRCH;
		return -1;
	}
	tfs_buf_init(&b);
	tfs_buf_u64(&b, fid);
	tfs_buf_u64(&b, s);
	tfs_buf_u64(&b, e);
	tfs_buf_u32(&b, tfsi_node());
	tfs_buf_u32(&b, type);
	rc = tfsi_peer_call(addr, TFS_MSG_LOCK_SPLIT, &b, NULL, NULL);
	tfs_buf_release(&b);
	return rc;
}

/* The node's acquisitions, one at a time and first come first served (a
 * ticket lock: a mutex would let a busy process overtake the others). */
static void acq_lock(void)
{
	unsigned long t;

	pthread_mutex_lock(&M.aq.m);
	t = M.aq.next++;
	while (M.aq.serving != t)
		pthread_cond_wait(&M.aq.cv, &M.aq.m);
	pthread_mutex_unlock(&M.aq.m);
}

static int acq_trylock(void)
{
	int ok;

	pthread_mutex_lock(&M.aq.m);
	if ((ok = M.aq.next == M.aq.serving))
		M.aq.next++;
	pthread_mutex_unlock(&M.aq.m);
	return ok;
}

static void acq_unlock(void)
{
	pthread_mutex_lock(&M.aq.m);
	M.aq.serving++;
	pthread_cond_broadcast(&M.aq.cv);
	pthread_mutex_unlock(&M.aq.m);
}

/* How long a manager keeps asking for a lock before it gives up
 * (ETIMEDOUT): waiting for a lock is waiting for the nodes ahead. */
#define ACQUIRE_TIMEOUTS 10

/*
 * Grant process @client of this node a lock of @type on the blocks
 * [s, e) of @fid: from the node's tokens when they cover it (beta), else
 * with a new token from the server (alpha), else after splitting the
 * conflicting owners' tokens (gamma).  A node that the server says is
 * not first in line for the range waits its turn and asks again.  Other
 * processes of the node whose locks conflict are revoked.  Returns the
 * outcome, or -1.
 */
static int mgr_acquire(uint64_t client, uint64_t fid, uint64_t s, uint64_t e, uint32_t type,
		       int policy)
{
	int out = OUT_BETA, first = 1, rc = 0;
	long long deadline = tfsi_now_ms() + (long long)ACQUIRE_TIMEOUTS * tfsi_timeout_ms();
	useconds_t nap = 100;
	struct mlock *l;

	acq_lock();
	pthread_mutex_lock(&M.st);
	for (;;) {
		struct mfile *f = mfile_get(fid, 0);
		struct owner *own = NULL;
		uint32_t nown = 0;
		int r;

		if (f && held_type(&f->tok, s, e) >= type)
			break;
		if (!first && tfsi_now_ms() > deadline) {
			errno = ETIMEDOUT;
			rc = -1;
			break;
		}
		r = server_acquire(fid, s, e, type, policy, first, &own, &nown);
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r == 0) {
			if (first)
				out = OUT_ALPHA;
			break;
		}
		if (first)
			out = OUT_GAMMA;
		first = 0;
		pthread_mutex_unlock(&M.st);
		if (r == 2) {		/* not our turn yet */
			usleep(nap);
			if (nap < 8000)
				nap *= 2;
		} else {
			int split = 0;

			for (uint32_t i = 0; i < nown; i++)	/* the retry tells */
				split |= split_at(own[i].addr, fid, s, e, type) == 0;
			if (split) {
				nap = 100;
			} else {	/* owners gone or leaving: the server drops them soon */
				usleep(nap);
				if (nap < 8000)
					nap *= 2;
			}
		}
		free(own);
		pthread_mutex_lock(&M.st);
	}
	if (rc == 0 && revoke_others(fid, s, e, type, client) < 0)
		rc = -1;
	if (rc == 0 &&
	    (!(l = mlock_get(fid, client, 1)) || tfsi_itree_hold(&l->t, s, e, type) < 0)) {
		errno = ENOMEM;
		rc = -1;
	}
	if (rc == 0)
		M.count[out]++;
	pthread_mutex_unlock(&M.st);
	acq_unlock();
	return rc ? -1 : out;
}

static int first_start(const struct tfs_iv *iv, void *arg)
{
	uint64_t *x = arg;

	if (iv->start < *x)
		*x = iv->start;
	return 1;
}

/*
 * Node @to needs [s, e) of @fid for @type: give up at least that, and on
 * with extend-end (§5.4.1) as far as the node's tokens run without a gap
 * but not into a block one of its processes holds a lock on.  The
 * processes holding locks in the released range flush and drop them
 * first; then the server, which knows the node's tokens best, takes the
 * range and hands it to @to, so that this node cannot take it back before
 * @to asks again.  Returns 0 or -1.
 */
static int mgr_split(uint64_t fid, uint64_t s, uint64_t e, uint32_t to, uint32_t type)
{
	uint64_t reach = s, x, limit = UINT64_MAX;
	struct mfile *f;
	struct tfs_buf b;
	struct tfs_rd rd;
	void *mem;
	int rc = 0;

	pthread_mutex_lock(&M.st);
	if ((f = mfile_get(fid, 0)))
		reach = tfsi_itree_reach(&f->tok, s, e);
	/* where the first lock of a process of this node begins past e */
	for (struct mlock *l = M.locks; l; l = l->next)
		if (l->fid == fid)
			tfs_itree_each(&l->t, e, limit, first_start, &limit);
	x = reach < limit ? reach : limit;
	if (x < e)
		x = e;
	/* the processes flush first; beyond x the node holds no lock */
	if (revoke_others(fid, s, x, 0, 0) < 0)
		rc = -1;
	tfs_buf_init(&b);
	tfs_buf_u64(&b, fid);
	tfs_buf_u64(&b, s);
	tfs_buf_u64(&b, e);
	tfs_buf_u64(&b, limit);
	tfs_buf_u32(&b, to);
	tfs_buf_u32(&b, type);
	if (tfsi_call(TFS_MSG_LOCK_RELEASE, &b, &mem, &rd) < 0) {
		rc = -1;
	} else {
		x = tfs_rd_u64(&rd);
		free(mem);
		if (f)
			tfs_itree_remove(&f->tok, s, x, NULL, NULL);
	}
	tfs_buf_release(&b);
	pthread_mutex_unlock(&M.st);
	return rc;
}

/* Forget @client's locks of @fid (0: every file) within [s, e). */
static void mgr_put(uint64_t client, uint64_t fid, uint64_t s, uint64_t e)
{
	pthread_mutex_lock(&M.st);
	for (struct mlock *l = M.locks; l; l = l->next)
		if (l->client == client && (!fid || l->fid == fid))
			tfs_itree_remove(&l->t, s, e, NULL, NULL);
	pthread_mutex_unlock(&M.st);
}

/* Forget @c and its locks; with M.st held. */
static void mgr_drop_client(struct mclient *c)
{
	struct mclient **pp;
	struct mlock **lp, *l;

	for (lp = &M.locks; (l = *lp);) {
		if (l->client == c->id) {
			*lp = l->next;
			tfs_itree_release(&l->t);
			free(l);
		} else {
			lp = &l->next;
		}
	}
	for (pp = &M.clients; *pp && *pp != c; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = c->next;
	free(c);
	pthread_cond_broadcast(&M.cv);
}

static void mgr_report(void)
{
	struct tfs_buf b;

	tfs_buf_init(&b);
	pthread_mutex_lock(&M.st);
	for (int i = 0; i < 3; i++)
		tfs_buf_u64(&b, M.count[i]);
	pthread_mutex_unlock(&M.st);
	tfsi_call(TFS_MSG_LOCK_REPORT, &b, NULL, NULL);
	tfs_buf_release(&b);
}

/* ---- the manager's listener -------------------------------------------------------- */

static void reply_u64s(struct tfs_req *req, int status, const uint64_t *v, int n)
{
	struct tfs_buf b;
	struct iovec io;

	tfs_buf_init(&b);
	for (int i = 0; i < n && !status; i++)
		tfs_buf_u64(&b, v[i]);
	io.iov_base = b.p;
	io.iov_len = status ? 0 : b.len;
	tfs_req_reply(req, tfs_buf_failed(&b) ? ENOMEM : status, &io, 1);
	tfs_buf_release(&b);
}

static void *serve_slow(void *arg)
{
	struct tfs_req *req = arg;
	struct tfs_rd rd;
	uint64_t v[3];
	int rc = 0;

	uint32_t w0, w1;

	tfs_rd_init(&rd, req->body, req->hdr.len);
	for (int i = 0; i < 3; i++)
		v[i] = tfs_rd_u64(&rd);
	w0 = tfs_rd_u32(&rd);
	w1 = tfs_rd_u32(&rd);
	if (req->hdr.type == TFS_MSG_LOCK_SPLIT) {
		if (!tfs_rd_done(&rd) || v[1] >= v[2] || w1 < 1 || w1 > 2)
			rc = EINVAL;
		else if (mgr_split(v[0], v[1], v[2], w0, w1) < 0)
			rc = errno;
		tfs_req_reply(req, rc, NULL, 0);
	} else {
		struct mclient *c = tfs_conn_get(req->conn);
		uint32_t type = w0, policy = w1;
		uint64_t out = 0;
		int r;

		if (!tfs_rd_done(&rd) || !c || v[1] >= v[2] || type < 1 || type > 2 || policy > 2) {
			rc = EINVAL;
		} else if ((r = mgr_acquire(c->id, v[0], v[1], v[2], type, (int)policy)) < 0) {
			rc = errno;
		} else {
			out = (uint64_t)r;
		}
		reply_u64s(req, rc, &out, 1);
	}
	pthread_mutex_lock(&M.st);
	M.threads--;
	pthread_cond_broadcast(&M.cv);
	pthread_mutex_unlock(&M.st);
	return NULL;
}

/* A request that may wait goes to a thread of its own: the listener's
 * progress thread must stay free to take splits and replies. */
static void serve_on_thread(struct tfs_req *req)
{
	pthread_attr_t a;
	pthread_t t;

	pthread_mutex_lock(&M.st);
	if (M.closing > 1) {	/* leaving: the listener closes next */
		pthread_mutex_unlock(&M.st);
		tfs_req_reply(req, ESHUTDOWN, NULL, 0);
		return;
	}
	M.threads++;
	pthread_mutex_unlock(&M.st);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (tfs_thread_start(&t, &a, serve_slow, req) != 0)
		serve_slow(req);
	pthread_attr_destroy(&a);
}

/* A LOCK_GET the node's tokens cover, granted at once on the progress
 * thread when nothing else is under way; 1 when done. */
static int serve_fast(struct tfs_req *req)
{
	struct mclient *c = tfs_conn_get(req->conn);
	struct tfs_rd rd;
	uint64_t fid, s, e, out = OUT_BETA;
	uint32_t type;
	struct mfile *f;
	struct mlock *l;
	int done = 0;

	tfs_rd_init(&rd, req->body, req->hdr.len);
	fid = tfs_rd_u64(&rd);
	s = tfs_rd_u64(&rd);
	e = tfs_rd_u64(&rd);
	type = tfs_rd_u32(&rd);
	if (!c || rd.bad || s >= e || type < 1 || type > 2)
		return 0;
	if (!acq_trylock())
		return 0;
	if (pthread_mutex_trylock(&M.st) != 0) {
		acq_unlock();
		return 0;
	}
	if ((f = mfile_get(fid, 0)) && held_type(&f->tok, s, e) >= type) {
		int other = 0;

		for (l = M.locks; l && !other; l = l->next)
			if (l->fid == fid && l->client != c->id &&
			    tfs_itree_each(&l->t, s, e, collect_none, NULL))
				other = 1;
		if (!other && (l = mlock_get(fid, c->id, 1)) &&
		    tfsi_itree_hold(&l->t, s, e, type) == 0) {
			M.count[OUT_BETA]++;
			done = 1;
		}
	}
	pthread_mutex_unlock(&M.st);
	acq_unlock();
	if (done)
		reply_u64s(req, 0, &out, 1);
	return done;
}

static int do_revoke(struct tfs_req *req)
{
	struct tfs_rd rd;
	uint64_t fid, s, e;

	tfs_rd_init(&rd, req->body, req->hdr.len);
	fid = tfs_rd_u64(&rd);
	s = tfs_rd_u64(&rd);
	e = tfs_rd_u64(&rd);
	if (!tfs_rd_done(&rd) || s >= e)
		return EINVAL;
	return revoke_local(fid, s, e) < 0 ? errno : 0;
}

int tfsi_lock_on_peer(struct tfs_req *req)
{
	struct tfs_rd rd;
	int rc = 0;

	switch (req->hdr.type) {
	case TFS_MSG_LOCK_JOIN: {
		struct mclient *c;
		uint64_t id;

		tfs_rd_init(&rd, req->body, req->hdr.len);
		id = tfs_rd_u64(&rd);
		if (!(c = calloc(1, sizeof(*c)))) {
			rc = ENOMEM;
			break;
		}
		tfs_rd_str(&rd, c->addr, sizeof(c->addr));
		if (!tfs_rd_done(&rd) || tfs_conn_get(req->conn)) {
			free(c);
			rc = EINVAL;
			break;
		}
		c->id = id;
		c->conn = req->conn;
		pthread_mutex_lock(&M.st);
		if (M.closing) {
			rc = ESHUTDOWN;
			free(c);
		} else {
			c->next = M.clients;
			M.clients = c;
			tfs_conn_set(req->conn, c);
		}
		pthread_mutex_unlock(&M.st);
		break;
	}
	case TFS_MSG_LOCK_GET:
		if (!serve_fast(req))
			serve_on_thread(req);
		return 1;
	case TFS_MSG_LOCK_SPLIT:
		serve_on_thread(req);
		return 1;
	case TFS_MSG_LOCK_PUT: {
		struct mclient *c = tfs_conn_get(req->conn);
		uint64_t fid, s, e;

		tfs_rd_init(&rd, req->body, req->hdr.len);
		fid = tfs_rd_u64(&rd);
		s = tfs_rd_u64(&rd);
		e = tfs_rd_u64(&rd);
		if (!tfs_rd_done(&rd) || !c)
			rc = EINVAL;
		else
			mgr_put(c->id, fid, s, e);
		break;
	}
	case TFS_MSG_LOCK_REVOKE:
		rc = do_revoke(req);
		break;
	case TFS_MSG_LOCK_COUNT: {
		uint64_t v[3];

		pthread_mutex_lock(&M.st);
		memcpy(v, M.count, sizeof(v));
		pthread_mutex_unlock(&M.st);
		reply_u64s(req, req->hdr.len ? EINVAL : 0, v, 3);
		return 1;
	}
	case TFS_MSG_LOCK_BYE: {
		struct mclient *c = tfs_conn_get(req->conn);

		if (req->hdr.len || !c) {
			rc = EINVAL;
			break;
		}
		pthread_mutex_lock(&M.st);
		tfs_conn_set(req->conn, NULL);
		mgr_drop_client(c);
		pthread_mutex_unlock(&M.st);
		break;
	}
	default:
		return 0;
	}
	tfs_req_reply(req, rc, NULL, 0);
	return 1;
}

void tfsi_lock_on_close(struct tfs_conn *conn)
{
	struct mclient *c;

	pthread_mutex_lock(&M.st);
	if ((c = tfs_conn_get(conn))) {
		tfs_conn_set(conn, NULL);
		mgr_drop_client(c);
	}
	pthread_mutex_unlock(&M.st);
}

/* ---- the process side ------------------------------------------------------------ */

/* 1 when @err, from a call to the node manager, says it is gone or going
 * (its listener closed, or it refuses because it is leaving). */
static int mgr_gone(int err)
{
	return err == ECONNREFUSED || err == ECONNRESET || err == EPIPE || err == ESHUTDOWN;
}

/*
 * Find the node's manager (becoming it when there is none); with L.lock
 * held.  A manager that is leaving refuses to be joined, and one that has
 * left is named by the server until it sees its connection close: the
 * process asks the server again, a little later each time, until it is
 * named a manager that takes it, or becomes the manager itself.  Returns
 * 0 or -1.
 */
static int setup_locked(void)
{
	long long deadline = tfsi_now_ms() + tfsi_timeout_ms();
	useconds_t nap = 2000;
	struct tfs_buf b;
	struct tfs_rd rd;
	uint64_t mid;
	void *mem;

	if (L.ready)
		return 0;
	if (tfs_init() < 0)
		return -1;
	if (L.policy < 0 && (L.policy = parse_policy(getenv("TFS_LOCK_POLICY"))) < 0) {
		L.policy = TFS_LOCK_EXACT;
		fprintf(stderr, "libtfs: TFS_LOCK_POLICY '%s' is not exact, extend-end or "
			"extend; using exact\n", getenv("TFS_LOCK_POLICY"));
	}
	for (;;) {
		int rc, e;

		if (tfsi_call(TFS_MSG_LOCK_NODE, NULL, &mem, &rd) < 0)
			return -1;
		L.block = tfs_rd_u64(&rd);
		mid = tfs_rd_u64(&rd);
		tfs_rd_str(&rd, L.mgr, sizeof(L.mgr));
		if (!tfs_rd_done(&rd) || L.block == 0) {
			free(mem);
			errno = EPROTO;
			return -1;
		}
		free(mem);
		if ((L.is_mgr = mid == tfsi_id()))
			break;
		tfs_buf_init(&b);
		tfs_buf_u64(&b, tfsi_id());
		tfs_buf_str(&b, tfsi_addr());
		rc = tfsi_peer_call(L.mgr, TFS_MSG_LOCK_JOIN, &b, NULL, NULL);
		e = errno;
		tfs_buf_release(&b);
		if (rc == 0) {
			L.ready = 1;
			return 0;
		}
		if (!mgr_gone(e) || tfsi_now_ms() > deadline) {
			errno = e;
			return -1;
		}
		usleep(nap);
		if (nap < 100000)
			nap *= 2;
	}
	{
		struct mclient *c = calloc(1, sizeof(*c));

		if (!c) {
			errno = ENOMEM;
			return -1;
		}
		c->id = mid;
		pthread_mutex_lock(&M.st);
		M.closing = 0;
		c->next = M.clients;
		M.clients = c;
		pthread_mutex_unlock(&M.st);
	}
	L.ready = 1;
	return 0;
}

void tfsi_lock_forked(void)
{
	/* the parent's locks, and its node manager's role, stay the parent's */
	pthread_mutex_init(&L.lock, NULL);
	L.ready = 0;
	L.is_mgr = 0;
	L.locks = NULL;
	memset(&M, 0, sizeof(M));
	pthread_mutex_init(&M.aq.m, NULL);
	pthread_cond_init(&M.aq.cv, NULL);
	pthread_mutex_init(&M.st, NULL);
	pthread_cond_init(&M.cv, NULL);
}

static int setup(void)
{
	int rc;

	pthread_mutex_lock(&L.lock);
	rc = setup_locked();
	pthread_mutex_unlock(&L.lock);
	return rc;
}

/* Flush and forget this process's locks of @fid within [s, e) (a
 * revocation by the node manager). */
static int revoke_local(uint64_t fid, uint64_t s, uint64_t e)
{
	struct plock *p;
	int rc;

	pthread_mutex_lock(&L.lock);
	if ((p = plock_get(fid, 0))) {
		tfs_itree_remove(&p->t, s, e, NULL, NULL);
		p->revokes++;
	}
	pthread_mutex_unlock(&L.lock);
	/* (TFS_TEST_PAUSE=revoke: a close in between flushes, see release) */
	tfsi_test_pause("revoke");
	rc = tfsi_flush_range(fid, s, e);
	return rc;
}

/*
 * The node manager is gone (it ended or was killed; the server drops the
 * node's tokens when it sees it go): this process's locks are no longer
 * backed by a token, so it flushes what it wrote under them and drops
 * them, and finds the node's manager again at its next lock request.
 */
static void mgr_lost(void)
{
	struct plock *p;

	pthread_mutex_lock(&L.lock);
	L.ready = 0;
	for (p = L.locks; p; p = p->next) {
		uint64_t fid = p->fid;

		pthread_mutex_unlock(&L.lock);
		revoke_local(fid, 0, UINT64_MAX);
		pthread_mutex_lock(&L.lock);
	}
	pthread_mutex_unlock(&L.lock);
}

/* The blocks of [off, off+size): *@s, *@e. */
static int blocks(size_t off, size_t size, uint64_t *s, uint64_t *e)
{
	uint64_t end;

	if (off > UINT64_MAX - size) {
		errno = EINVAL;
		return -1;
	}
	end = (uint64_t)off + size;
	*s = off / L.block * L.block;
	*e = end % L.block == 0 ? end : end > UINT64_MAX - L.block ? UINT64_MAX :
		end / L.block * L.block + L.block;
	return 0;
}

/* Ask the node manager for a lock; returns the outcome or -1. */
static int ask(uint64_t fid, uint64_t s, uint64_t e, uint32_t type, int policy)
{
	struct tfs_buf b;
	struct tfs_rd rd;
	uint64_t out;
	void *mem;

	if (L.is_mgr)
		return mgr_acquire(tfsi_id(), fid, s, e, type, policy);
	tfs_buf_init(&b);
	tfs_buf_u64(&b, fid);
	tfs_buf_u64(&b, s);
	tfs_buf_u64(&b, e);
	tfs_buf_u32(&b, type);
	tfs_buf_u32(&b, (uint32_t)policy);
	if (tfsi_peer_call(L.mgr, TFS_MSG_LOCK_GET, &b, &mem, &rd) < 0) {
		int e = errno;

		tfs_buf_release(&b);
		if (mgr_gone(e))
			mgr_lost();
		errno = e;
		return -1;
	}
	tfs_buf_release(&b);
	out = tfs_rd_u64(&rd);
	free(mem);
	return out > OUT_GAMMA ? OUT_BETA : (int)out;
}

int tfs_acquire_lock(tfs_file_t *file, size_t offset, size_t size, int type)
{
	uint64_t fid, s, e;
	struct plock *p;
	unsigned seen;
	int policy;

	if (!tfsi_live(file)) {
		errno = EBADF;
		return -1;
	}
	if (type != TFS_LOCK_READ && type != TFS_LOCK_WRITE) {
		errno = EINVAL;
		return -1;
	}
	if (setup() < 0)
		return -1;
	if (size == 0)
		return 0;
	if (blocks(offset, size, &s, &e) < 0)
		return -1;
	fid = tfsi_fid(file);
	for (int lost = 0;;) {
		pthread_mutex_lock(&L.lock);
		if (!(p = plock_get(fid, 1))) {
			pthread_mutex_unlock(&L.lock);
			errno = ENOMEM;
			return -1;
		}
		if (held_type(&p->t, s, e) >= (uint32_t)type) {
			pthread_mutex_unlock(&L.lock);
			return 0;
		}
		seen = p->revokes;
		policy = L.policy;
		pthread_mutex_unlock(&L.lock);
		if (ask(fid, s, e, (uint32_t)type, policy) < 0) {
			/* the manager went: ask the one that takes over */
			if (!L.ready && lost++ < 3 && setup() == 0)
				continue;
			return -1;
		}
		pthread_mutex_lock(&L.lock);
		/* a revocation that crossed the grant may have taken it back */
		if (p->revokes == seen) {
			int rc = tfsi_itree_hold(&p->t, s, e, (uint32_t)type);

			pthread_mutex_unlock(&L.lock);
			return rc;
		}
		pthread_mutex_unlock(&L.lock);
	}
}

/*
 * Release this process's locks of @fid (0: all) within [s, e): flush what
 * it wrote there, drop the lock, tell the manager.
 * Everything written in [s, e) is flushed, not only what lies under a
 * lock still in the table: a revocation takes its range from the table
 * first and flushes after (revoke_local), waiting for the file's lock
 * while a write holds it, so the bytes of the last write under a lock
 * being revoked can be in the buffer with no lock here over them.  Until
 * 2026-12-02 they were left there, the close that follows dropped them as
 * never flushed (tfs_close), and the revocation, finding nothing, let the
 * next holder write at the end as it was without them: a rank's last line
 * of tests/mpi/append.c lost, another's in its place.  Flushing them here
 * is what the revocation would have done, before it answers (it waits for
 * the file's lock, then finds them flushed, or the file closed).
 */
static int release(uint64_t fid, uint64_t s, uint64_t e)
{
	struct tfs_buf b;
	int rc = 0, any = 0;

	pthread_mutex_lock(&L.lock);
	if (!L.ready) {
		pthread_mutex_unlock(&L.lock);
		return 0;
	}
	for (struct plock *p = L.locks; p; p = p->next) {
		if (fid && p->fid != fid)
			continue;
		any |= tfs_itree_each(&p->t, s, e, collect_none, NULL) != 0;
		tfs_itree_remove(&p->t, s, e, NULL, NULL);
		pthread_mutex_unlock(&L.lock);
		if (tfsi_flush_range(p->fid, s, e) < 0)
			rc = -1;
		pthread_mutex_lock(&L.lock);
	}
	pthread_mutex_unlock(&L.lock);
	if (!any)
		return rc;
	if (L.is_mgr) {
		mgr_put(tfsi_id(), fid, s, e);
		return rc;
	}
	tfs_buf_init(&b);
	tfs_buf_u64(&b, fid);
	tfs_buf_u64(&b, s);
	tfs_buf_u64(&b, e);
	if (tfsi_peer_call(L.mgr, TFS_MSG_LOCK_PUT, &b, NULL, NULL) < 0) {
		if (mgr_gone(errno))
			mgr_lost();	/* released all the same */
		else
			rc = -1;
	}
	tfs_buf_release(&b);
	return rc;
}

int tfs_release_lock(tfs_file_t *file, size_t offset, size_t size)
{
	uint64_t s, e;

	if (!tfsi_live(file)) {
		errno = EBADF;
		return -1;
	}
	if (!size || !L.ready)
		return 0;
	if (blocks(offset, size, &s, &e) < 0)
		return -1;
	return release(tfsi_fid(file), s, e);
}

int tfs_release_lock_file(tfs_file_t *file)
{
	if (!tfsi_live(file)) {
		errno = EBADF;
		return -1;
	}
	return release(tfsi_fid(file), 0, UINT64_MAX);
}

int tfs_flush_lock_file(tfs_file_t *file)
{
	if (!tfsi_live(file)) {
		errno = EBADF;
		return -1;
	}
	return tfsi_flush_range(tfsi_fid(file), 0, UINT64_MAX);
}

int tfs_release_lock_client(void)
{
	return release(0, 0, UINT64_MAX);
}

/* ---- appends ----------------------------------------------------------------------- */

/*
 * An O_APPEND write: the end of file found and the bytes written there
 * with nothing in between, by holding a write lock over the tail, the
 * blocks from s (at or before the end) to the end of the address space.
 * While this process holds it, with the file's lock taken (in
 * tfsi_pwrite_end):
 *  - no other process holds a lock on any byte past s: a conflicting
 *    lock is granted only after this one is revoked, and a revocation
 *    takes the lock from this process's table (which tail_held() reads)
 *    before it flushes under the file's lock, so it waits for the write;
 *  - so every byte another process wrote past s, under a lock of its
 *    own, was flushed when that lock was revoked before this one was
 *    granted: copied to the backing file, fsynced, and the server's end
 *    raised, before the revocation returned;
 *  - so the end is the furthest of the server's, the backing file's and
 *    this process's own writes' (what others hold unflushed lies before
 *    s), as long as that is s or past.  When it is not, the end may lie
 *    in [found, s) among others' unflushed bytes: the lock is taken
 *    again from the block of what was found, which is then at or before
 *    the end (the end only grows but by a truncate).
 * Two appenders both want the tail, so they take turns, each append a
 * whole.  A plain write crossed by a revocation before its bytes are
 * covered (o_write in posix.c takes the lock again after) is ordered
 * after the append, its bytes flushed last.
 */
#define APPEND_TRIES 64

struct tail {
	uint64_t fid, s;
};

/* tfsi_pwrite_end()'s check, under the file's lock: the file's lock is
 * taken before L.lock here, and L.lock is never held while waiting for
 * a file's lock (revoke_local and release drop it first). */
static int tail_held(void *arg)
{
	struct tail *t = arg;
	struct plock *p;
	int held;

	pthread_mutex_lock(&L.lock);
	held = (p = plock_get(t->fid, 0)) && held_type(&p->t, t->s, UINT64_MAX) == TFS_LOCK_WRITE;
	pthread_mutex_unlock(&L.lock);
	return held;
}

ssize_t tfsi_lock_append(tfs_file_t *file, const void *buf, size_t size, uint64_t *off)
{
	uint64_t guess;
	struct tail t;
	ssize_t r;

	if (!tfsi_live(file)) {
		errno = EBADF;
		return -1;
	}
	if (size == 0)
		return 0;
	if (setup() < 0)
		return -1;
	t.fid = tfsi_fid(file);
	guess = tfsi_end_heard(file);
	for (int tries = 0; tries < APPEND_TRIES; tries++) {
		t.s = guess / L.block * L.block;
		if (tfs_acquire_lock(file, t.s, UINT64_MAX - t.s, TFS_LOCK_WRITE) < 0)
			return -1;
		r = tfsi_pwrite_end(file, buf, size, t.s, tail_held, &t, off);
		if (r >= 0 || errno != EAGAIN)
			return r;
		guess = *off;
	}
	errno = EAGAIN;
	return -1;
}

int tfs_lock_policy(int policy)
{
	int old;

	if (policy < -1 || policy > TFS_LOCK_EXTEND) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&L.lock);
	if (L.policy < 0 && (L.policy = parse_policy(getenv("TFS_LOCK_POLICY"))) < 0)
		L.policy = TFS_LOCK_EXACT;
	old = L.policy;
	if (policy >= 0)
		L.policy = policy;
	pthread_mutex_unlock(&L.lock);
	return old;
}

int tfs_lock_stats(uint64_t counts[3])
{
	struct tfs_rd rd;
	void *mem;

	if (!counts) {
		errno = EFAULT;
		return -1;
	}
	if (setup() < 0)
		return -1;
	if (L.is_mgr) {
		pthread_mutex_lock(&M.st);
		memcpy(counts, M.count, sizeof(M.count));
		pthread_mutex_unlock(&M.st);
		mgr_report();
		return 0;
	}
	if (tfsi_peer_call(L.mgr, TFS_MSG_LOCK_COUNT, NULL, &mem, &rd) < 0) {
		if (!mgr_gone(errno))
			return -1;
		mgr_lost();	/* the counters of the manager that takes over */
		return tfs_lock_stats(counts);
	}
	for (int i = 0; i < 3; i++)
		counts[i] = tfs_rd_u64(&rd);
	free(mem);
	if (!tfs_rd_done(&rd)) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/* 1 while other processes of the node are served; with M.st held. */
static int others(void)
{
	for (struct mclient *c = M.clients; c; c = c->next)
		if (c->conn)
			return 1;
	return 0;
}

int tfsi_lock_finalize(void)
{
	int rc;

	pthread_mutex_lock(&L.lock);
	if (!L.ready) {
		pthread_mutex_unlock(&L.lock);
		return 0;
	}
	pthread_mutex_unlock(&L.lock);
	rc = tfs_release_lock_client();
	if (L.is_mgr) {
		struct timespec until;

		/* stay while the node's other processes may still ask */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += tfsi_timeout_ms() / 1000 + 1;
		pthread_mutex_lock(&M.st);
		M.closing = 1;
		while (others() && pthread_cond_timedwait(&M.cv, &M.st, &until) == 0)
			;
		/* requests being served end by themselves (each call has its
		 * timeout) and must have replied before the listener closes */
		while (M.threads > 0)
			pthread_cond_wait(&M.cv, &M.st);
		M.closing = 2;	/* no request served on a thread from now on */
		pthread_mutex_unlock(&M.st);
		mgr_report();
	} else if (tfsi_peer_call(L.mgr, TFS_MSG_LOCK_BYE, NULL, NULL, NULL) < 0 &&
		   !mgr_gone(errno)) {
		rc = -1;
	}
	pthread_mutex_lock(&L.lock);
	L.ready = 0;
	pthread_mutex_unlock(&L.lock);
	return rc;
}
