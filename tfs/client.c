/*
 * client.c - libtfs: the TangramFS client (tfs(3)).
 *
 * Each process buffers its writes in one burst-buffer file per TangramFS
 * file (TFS_BB_DIR), appended log-style, and keeps a local interval tree
 * mapping file ranges to where they sit in it, with their state: written
 * and not yet attached (dirty), attached, or detached.  A listener thread
 * serves peers' tfs_read_peer from those files, and the lock layer's
 * requests (lock.c).  The server is asked only by the synchronisation
 * primitives, open, stat and seek-to-end (and by lock.c).
 *
 * Locks: C.lock (the file list and the peer cache) before a file's lock.
 * No file lock is held while waiting for a peer, so two clients reading
 * from each other never deadlock; one may be held while waiting for the
 * server, which never waits for a client while serving a request.
 *
 * Pending writers (the posix model of libtfs-posix, tfsi_pwrite_pending):
 * a write goes to the burst buffer unattached, with no request, while the
 * server lists this process as a pending writer of the file (lfile.pend)
 * holding the range written (lfile.gs, ge).  The first write of a file,
 * the first after a flush, one out of the range held, and the first after
 * each keep-alive period (a writer learns of a lost server in time) send
 * PENDING for their range and return only once the server has granted
 * it; where another pending writer holds part of it, that one flushes
 * first (below), so the server never holds two writes of a byte whose
 * order it cannot tell: the later write is attached later.  Whoever
 * asks the server about the file (QUERY: a read, tfs_query; EOF: stat,
 * seek to the end; TRUNCATE, OPEN with truncate) is told its pending
 * writers but itself, asks each to flush (PEER_FLUSH), and asks the
 * server again.  A flush
 * attaches every unattached range of the file and ends the pending mark
 * in one request (ATTACH_CLEAN), one step at the server; close, fsync,
 * tfs_attach_file and stage-out do the same.  Why a read sees every
 * write that returned before it started, on any client:
 *  - such a write was made under f->lock, after the mark was set at the
 *    server (its PENDING reply came first, or the mark was set already
 *    and not cleared since: only ATTACH_CLEAN clears it, made under
 *    f->lock, with everything written so far);
 *  - so when the reader's QUERY is served, either the writer is listed
 *    pending, or an ATTACH_CLEAN that covered the write was served before
 *    (the range is attached: QUERY names it);
 *  - when listed, the flush takes f->lock, so it follows the write and
 *    attaches it, before it answers; the second QUERY comes after that
 *    answer.
 * A writer that cannot flush (gone, no answer within TFS_TIMEOUT) and is
 * still listed on the second asking fails the asker with EIO: its writes
 * are nowhere to be read.  One no longer listed attached (or staged out)
 * as it ended.  The server lists a pending writer that disconnected as
 * gone until the file is truncated to 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client-int.h"
#include "itree.h"
#include "proto.h"
#include "serverfile.h"
#include "transport.h"
#include "../libcommon/banned.h"

enum { ST_DIRTY = 0, ST_ATTACHED = 1, ST_DETACHED = 2 };

struct lfile {
	uint64_t fid;
	char path[TFS_MAX_PATH + 1];	/* normalised TangramFS path: the server's name
				 * of it as last heard (a rename changes it while
				 * others read it: an array, never freed) */
	int refs;		/* open handles in this process */
	int pins;		/* threads using it with no handle (lfile_pin), under C.lock */
	pthread_mutex_t lock;	/* everything below */
	struct tfs_itree tree;
	int bbfd;		/* -1 until the first write */
	uint64_t bbend;
	char *bbpath;
	unsigned mode;		/* stage-out's mode when this process created it, else 0 */
	int created;		/* this process created it and the backing file is not made yet */
	uint32_t uid, gid;	/* its creator's (effective), UINT32_MAX: not known */
	uint64_t eof;		/* the global end of file last heard */
	uint64_t qeof;		/* the end the last QUERY answered (a truncate
				 * by another process may have lowered it) */
	int pend;		/* the server lists this process as a pending writer */
	long long pend_ms;	/* when it last said so (tfsi_now_ms) */
	uint64_t gs, ge;	/* while pending: the range it holds to write unattached */
	uint64_t dend;		/* while pending: the end of the furthest write unattached
				 * (an append's candidate end, tfsi_append) */
	unsigned attaches;	/* attach_locked()s so far: a read's query predates one? */
	unsigned syncs;		/* record locks taken (tfsi_read_sync): what a
				 * handle keeps for reads predates one? */
	int timeset;		/* times[] were set by a utimensat since the last write
				 * (STAGE's reply): stage-out gives them back after the copy */
	struct timespec times[2];
	int gone;		/* unlinked while this process had it open: what it
				 * writes now is nobody's, never staged out */
	struct lfile *next;
};

struct tfs_file {
	struct lfile *f;
	uint64_t pos;
	unsigned gen;		/* C.gen when opened */
	int posix;		/* TFS_O_POSIX: writes as pending writer, attached at close */
	int session;		/* TFS_O_SESSION: synced reads go by snap[] */
	int keep;		/* else: by snap[] while the server's delegation
				 * lasts (DROP, lease_until), until this process
				 * writes the file */
	/* under f->lock: */
	int pfsfd;		/* the backing file from the first read on, or -1 */
	tfs_interval_t *snap;	/* TFS_O_SESSION: the owners the first synced read's */
	int nsnap;		/* QUERY named, kept for the reads after it, */
	int snapped;		/* while the tree's changes are snap_changes */
	int mapped;		/* a map was taken (snapped or dropped since) */
	uint64_t snap_eof, snap_changes;
	uint64_t snap_pfs;	/* the backing file's size then */
	unsigned syncs;		/* f->syncs when snap was taken */
	unsigned long dgen;	/* keep: drops_gen() before its QUERY went */
	long long lease_until;	/* keep: ms, when it is to be asked again */
	long long keep_after;	/* keep: ms, range QUERYs until then (refused) */
	unsigned kept_reads;	/* keep: reads the map served after its own */
	struct tfs_file *prev, *next;	/* C.handles, under C.lock */
};

struct peer {
	char addr[128];
	struct tfs_ep *ep;
	int connecting;		/* a thread connects to it without C.lock */
	int err;		/* errno of the last connect that failed, 0 */
	unsigned tries;		/* connects begun: a waiter sees its end */
	struct peer *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t peer_cv;	/* a peer's connect ended (struct peer) */
	int ready;
	struct tfs_ep *ep;	/* the server */
	struct tfs_lsn *lsn;	/* peers come here */
	unsigned char secret[TFS_SECRET_LEN];
	uint64_t id;
	uint32_t node;
	char bbdir[PATH_MAX], pfsdir[PATH_MAX];
	int timeout_ms;
	struct lfile *files;
	struct tfs_file *handles;	/* open ones (tfsi_pfs_give_back) */
	struct peer *peers;
	int atexit_done;
	unsigned gen;		/* one more in each forked child */
	char pause_at[16];	/* TFS_TEST_PAUSE: where, and how long (ms) */
	long pause_ms;
	int fail_flush;		/* TFS_TEST_FAIL=flush:N: PEER_FLUSH asks left to fail */
	int fail_drop;		/* TFS_TEST_FAIL=drop:N: DROPs left to refuse unheeded */
	int dead;		/* errno of the call that lost the server, 0 */
	void (*on_lost)(int err);	/* told when it is lost (tfsi_on_lost) */
	char srvaddr[160];	/* the server file's address, "" before it is read */
	char srverr[256];	/* why the last start could not use the server
				 * file (tfsi_server_file_error), "" */
	char note[PATH_MAX];	/* DIR/clients/HOST-NODE-PID, "" when none */
	int notefd;		/* open on it for note_journal() (O_APPEND), or -1 */
} C = { .lock = PTHREAD_MUTEX_INITIALIZER, .peer_cv = PTHREAD_COND_INITIALIZER, .notefd = -1 };

/*
 * Delegations (tfs-protocol(5), DROP): a map of a file kept under the
 * posix and commit models is good while the server has not told this
 * process to drop it and its lease lasts.  The listener counts the DROPs
 * per file here without a lock (it must answer whatever a reader holds:
 * the server waits), and this process's own changes of a file count too
 * (the server tells the sender nothing); a read keeps a map only when
 * the count of its file did not move from before its QUERY went.  Files
 * share a counter by their id modulo DROP_SLOTS: a drop of one drops the
 * others' maps too, which only costs them a QUERY.
 */
#define DROP_SLOTS 64
static unsigned long drops[DROP_SLOTS], drops_all;

static unsigned long drops_gen(uint64_t fid)
{
	return __atomic_load_n(&drops[fid % DROP_SLOTS], __ATOMIC_SEQ_CST) +
	       __atomic_load_n(&drops_all, __ATOMIC_SEQ_CST);
}

/* Drop the kept maps of file @fid, of every file when @fid is 0. */
static void drops_bump(uint64_t fid)
{
	__atomic_add_fetch(fid ? &drops[fid % DROP_SLOTS] : &drops_all, 1, __ATOMIC_SEQ_CST);
}

/* A request of this process to the server that changes what a read of a
 * file returns (the server revokes every other holder's map): its own
 * maps go with it.  @body is the request's. */
static void drops_sent(uint16_t type, const void *body, size_t len)
{
	const unsigned char *b = body;
	uint64_t fid = 0;

	switch (type) {
	case TFS_MSG_ATTACH: case TFS_MSG_DETACH: case TFS_MSG_ATTACH_CLEAN:
	case TFS_MSG_PENDING: case TFS_MSG_APPEND: case TFS_MSG_TRUNCATE:
		for (int i = 0; i < 8 && (size_t)i < len; i++)
			fid |= (uint64_t)b[i] << (8 * i);
		drops_bump(fid);
		break;
	case TFS_MSG_OPEN:
		if (len >= 4 && (b[0] & TFS_OPEN_TRUNC))
			drops_bump(0);
		break;
	case TFS_MSG_UNLINK: case TFS_MSG_RENAME: case TFS_MSG_DETACH_CLIENT:
		drops_bump(0);
		break;
	}
}

/* A handle of this process's client, not one a forked child inherited
 * (those belong to its parent's client: every call on them fails with
 * EBADF). */
static int live(const struct tfs_file *h)
{
	return h && h->gen == C.gen;
}

/* TFS_TEST_PAUSE=WHERE:MS (for tests only, tfs(3)): sleep at the point
 * named WHERE, to hold open a window that is otherwise too short to hit. */
static void test_pause(const char *where)
{
	if (C.pause_ms > 0 && strcmp(C.pause_at, where) == 0)
		usleep((useconds_t)C.pause_ms * 1000);
}

void tfsi_test_pause(const char *where)
{
	test_pause(where);
}

/* ---- server calls -------------------------------------------------------- */

/* One request on @ep; the reply body into *@rd (free *@mem).  Returns 0,
 * or -1 with errno (the reply's status, or the transport's). */
static int ep_call(struct tfs_ep *ep, uint16_t type, const struct tfs_buf *body, void **mem,
		   struct tfs_rd *rd, int *reply)
{
	struct iovec v = { body ? body->p : NULL, body ? body->len : 0 };
	size_t rlen;
	void *r = NULL;
	int rc;

	if (body && tfs_buf_failed(body)) {
		errno = ENOMEM;
		return -1;
	}
	rc = tfs_ep_call(ep, type, &v, 1, NULL, 0, &r, &rlen, C.timeout_ms);
	if (ep == C.ep)
		drops_sent(type, v.iov_base, v.iov_len);
	if (rc != 0) {
		free(r);
		if (rc > 0) {
			errno = rc;
			if (reply)
				*reply = 1;
		}
		return -1;
	}
	if (mem) {
		*mem = r;
		tfs_rd_init(rd, r, rlen);
	} else {
		free(r);
	}
	return 0;
}

/* One request to the server, as ep_call().  Once the server is lost (a
 * call that timed out or found the connection gone: the transport's error,
 * not a reply), every later call fails at once with the same error, so a
 * client ending after that does not wait TFS_TIMEOUT again per file. */
static int call(uint16_t type, const struct tfs_buf *body, void **mem, struct tfs_rd *rd)
{
	int rc, reply = 0;

	if (C.dead) {
		errno = C.dead;
		return -1;
	}
	rc = ep_call(C.ep, type, body, mem, rd, &reply);
	if (rc < 0 && !reply && errno != ENOMEM) {
		int e = errno;

		C.dead = e;
		if (C.ready && C.on_lost)	/* (not a start that failed) */
			C.on_lost(e);
		errno = e;
	}
	return rc;
}

/* call(), asked again while the server answers EAGAIN (a stage-out of
 * the file runs, which ends soon), for up to TFS_STAGE_TIMEOUT_MS; then
 * ETIMEDOUT. */
static int call_waiting(uint16_t type, const struct tfs_buf *body, void **mem, struct tfs_rd *rd)
{
	long long waited = 0;
	useconds_t nap = 1000;
	int rc;

	while ((rc = call(type, body, mem, rd)) < 0 && errno == EAGAIN &&
	       waited < TFS_STAGE_TIMEOUT_MS) {
		usleep(nap);
		waited += nap / 1000;
		if (nap < 32000)
			nap *= 2;
	}
	if (rc < 0 && errno == EAGAIN)
		errno = ETIMEDOUT;
	return rc;
}

/* ---- files ------------------------------------------------------------------ */

/* The buffer of file @fid, or NULL, held until lfile_unpin(): a thread
 * that serves a peer or a revocation holds no handle, and the last
 * tfs_close() would free it under the thread's feet (it waits for
 * f->lock, which tfs_close() takes, then destroys). */
static struct lfile *lfile_pin(uint64_t fid)
{
	struct lfile *f;

	pthread_mutex_lock(&C.lock);
	for (f = C.files; f && f->fid != fid; f = f->next)
		;
	if (f)
		f->pins++;
	pthread_mutex_unlock(&C.lock);
	return f;
}

static void lfile_maybe_free(struct lfile *f);

static void lfile_unpin(struct lfile *f)
{
	pthread_mutex_lock(&C.lock);
	f->pins--;
	lfile_maybe_free(f);
	pthread_mutex_unlock(&C.lock);
}

static int pfs_path(const char *path, char *out, size_t len)
{
	if ((size_t)snprintf(out, len, "%s/%s", C.pfsdir, path) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* The backing file of @f: none (ENOENT) once it was unlinked while this
 * process had it open, whatever now has its name. */
static int lfile_pfs(const struct lfile *f, char *out, size_t len)
{
	if (f->gone) {
		errno = ENOENT;
		return -1;
	}
	return pfs_path(f->path, out, len);
}

/* Create the directories above @p (a path in TFS_PFS_DIR). */
static void mkparents(const char *p)
{
	char tmp[PATH_MAX];
	size_t base = strlen(C.pfsdir);

	snprintf(tmp, sizeof(tmp), "%s", p);
	for (char *s = tmp + base + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(tmp, 0755);
		*s = '/';
	}
}

/* @n bytes at @off, zeros past the file's end (a hole at its end);
 * returns how many were in the file, or -1. */
static ssize_t full_pread(int fd, void *buf, size_t n, uint64_t off)
{
	char *p = buf;
	size_t want = n;

	while (n > 0) {
		ssize_t r = pread(fd, p, n, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0) {	/* a hole at the end of the file */
			memset(p, 0, n);
			break;
		}
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return (ssize_t)(want - n);
}

static int full_pwrite(int fd, const void *buf, size_t n, uint64_t off)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t r = pwrite(fd, p, n, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* ---- the peer listener ------------------------------------------------------ */

struct cover {
	uint64_t at;		/* covered up to here */
	int fd;
	unsigned char *buf;
	uint64_t off;
	int err;
};

static int copy_out(const struct tfs_iv *iv, void *arg)
{
	struct cover *c = arg;

	if (iv->start != c->at)
		return 1;	/* a gap */
	if (full_pread(c->fd, c->buf + (iv->start - c->off), iv->end - iv->start, iv->base) < 0) {
		c->err = errno;
		return 1;
	}
	c->at = iv->end;
	return 0;
}

static void serve_read(struct tfs_req *req)
{
	struct tfs_rd rd;
	uint64_t fid, off, len;
	struct lfile *f;
	struct cover c;
	struct iovec v;
	int rc = 0;

	tfs_rd_init(&rd, req->body, req->hdr.len);
	fid = tfs_rd_u64(&rd);
	off = tfs_rd_u64(&rd);
	len = tfs_rd_u64(&rd);
	if (!tfs_rd_done(&rd) || len > TFS_CHUNK || len > UINT64_MAX - off) {
		tfs_req_reply(req, EINVAL, NULL, 0);
		return;
	}
	if (!(f = lfile_pin(fid))) {
		tfs_req_reply(req, ENODATA, NULL, 0);
		return;
	}
	memset(&c, 0, sizeof(c));
	if (len && !(c.buf = malloc(len))) {
		lfile_unpin(f);
		tfs_req_reply(req, ENOMEM, NULL, 0);
		return;
	}
	c.at = c.off = off;
	pthread_mutex_lock(&f->lock);
	c.fd = f->bbfd;
	if (len)
		tfs_itree_each(&f->tree, off, off + len, copy_out, &c);
	pthread_mutex_unlock(&f->lock);
	lfile_unpin(f);
	if (c.err)
		rc = c.err;
	else if (c.at != off + len)
		rc = ENODATA;
	v.iov_base = c.buf;
	v.iov_len = rc ? 0 : len;
	tfs_req_reply(req, rc, &v, 1);
	free(c.buf);
}

static int stage_all(void);
static void serve_flush(struct tfs_req *req);

static void on_peer(struct tfs_req *req, void *arg)
{
	(void)arg;
	if (tfsi_lock_on_peer(req))
		return;
	switch (req->hdr.type) {
	case TFS_MSG_PEER_READ:
		serve_read(req);
		break;
	case TFS_MSG_PEER_STAGE:
		tfs_req_reply(req, stage_all() < 0 ? errno : 0, NULL, 0);
		break;
	case TFS_MSG_PEER_FLUSH:
		serve_flush(req);
		break;
	case TFS_MSG_DROP: {
		struct tfs_rd rd;
		uint64_t fid;

		tfs_rd_init(&rd, req->body, req->hdr.len);
		fid = tfs_rd_u64(&rd);
		if (!tfs_rd_done(&rd)) {
			tfs_req_reply(req, EINVAL, NULL, 0);
			break;
		}
		if (C.fail_drop > 0 && __atomic_sub_fetch(&C.fail_drop, 1, __ATOMIC_RELAXED) >= 0) {
			/* (as a holder cut off from the server: its lease
			 * alone ends its map) */
			tfs_req_reply(req, EIO, NULL, 0);
			break;
		}
		drops_bump(fid);
		tfs_req_reply(req, 0, NULL, 0);
		break;
	}
	default:
		tfs_req_reply(req, EOPNOTSUPP, NULL, 0);
	}
}

static void on_peer_close(struct tfs_conn *conn, void *arg)
{
	(void)arg;
	tfsi_lock_on_close(conn);
}

/* ---- initialisation ------------------------------------------------------ */

/* TFS_STATS: one line on standard error at exit, the requests this
 * process made by type: how many, the milliseconds they took, how many
 * failed. */
static void print_stats(void)
{
	struct tfs_stat st[TFS_STAT_TYPES];
	char line[4096];
	uint64_t calls = 0, ns = 0;
	size_t o;
	int i;

	tfs_stats_get(st);
	o = (size_t)snprintf(line, sizeof(line), "tfs-stats: pid %d", (int)getpid());
	for (i = 0; i < TFS_STAT_TYPES; i++) {
		const char *name = tfs_msg_name((unsigned)i);
		if (!st[i].calls)
			continue;
		calls += st[i].calls;
		ns += st[i].ns;
		if (o < sizeof(line) && name)
			o += (size_t)snprintf(line + o, sizeof(line) - o, " %s=%llu/%.3fms", name,
					      (unsigned long long)st[i].calls, st[i].ns / 1e6);
		else if (o < sizeof(line))
			o += (size_t)snprintf(line + o, sizeof(line) - o, " type%d=%llu/%.3fms", i,
					      (unsigned long long)st[i].calls, st[i].ns / 1e6);
		if (st[i].failed && o < sizeof(line))
			o += (size_t)snprintf(line + o, sizeof(line) - o, "/%llu-failed",
					      (unsigned long long)st[i].failed);
	}
	if (o < sizeof(line))
		snprintf(line + o, sizeof(line) - o, " total=%llu/%.3fms\n",
			 (unsigned long long)calls, ns / 1e6);
	fputs(line, stderr);
}

static void at_exit(void)
{
	const char *s = getenv("TFS_STATS");

	tfs_finalize();
	if (s && *s && strcmp(s, "0") != 0)
		print_stats();
}

/*
 * A child forked from a process of ours is a process of its own: it must
 * not write into its parent's burst-buffer files, nor speak on its
 * parent's connections.  So it forgets the parent's client here (closing
 * the descriptors it inherited, leaking the rest), its handles go stale,
 * and its next call starts a client of its own.
 */
static void forked_child(void)
{
	pthread_mutex_init(&C.lock, NULL);
	pthread_cond_init(&C.peer_cv, NULL);
	C.gen++;
	C.ready = 0;
	C.ep = NULL;
	C.lsn = NULL;
	C.id = 0;
	C.files = NULL;
	C.handles = NULL;	/* the parent's: their descriptors are closed */
	C.peers = NULL;
	C.dead = 0;
	C.note[0] = '\0';
	/* the parent's note: the child writes its own once it connects */
	if (C.notefd >= 0)
		tfs_fd_close(C.notefd);
	C.notefd = -1;
	tfsi_lock_forked();
	tfs_tp_forked();
}

__attribute__((constructor)) static void client_load(void)
{
	pthread_atfork(NULL, NULL, forked_child);
}

/* The process's umask, as /proc tells it (reading it with umask(2)
 * would change it for a moment under the program's other threads). */
static unsigned cur_umask(void)
{
	char text[2048], *u;
	unsigned m = 022;
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return m;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n > 0) {
		text[n] = '\0';
		if ((u = strstr(text, "Umask:")))
			m = (unsigned)strtoul(u + 6, NULL, 8) & 0777;
	}
	return m;
}

/* @p made absolute (for the note, which the server reads from elsewhere). */
static void abs_path(const char *p, char *out, size_t len)
{
	char buf[PATH_MAX];

	if (realpath(p, buf))
		snprintf(out, len, "%s", buf);
	else
		snprintf(out, len, "%s", p);
}

/*
 * The client's note, DIR/clients/HOST-NODE-PID beside the server file
 * (tfs(3), "DURABILITY"): where its burst buffer and backing directory
 * are.  A client that ends cleanly removes it; one that cannot hand its
 * data over adds what it keeps (note_keep()); one that dies leaves it as
 * it is.  The server (at --stop, at its start, --recover) stages out what
 * a dead client's note lists and removes the burst-buffer files it does
 * not list.  Without a note (DIR not writable) nothing is cleaned up.
 */
static void note_create(const char *server)
{
	char dir[PATH_MAX], host[128], bb[PATH_MAX], pfs[PATH_MAX];
	const char *sl = strrchr(server, '/');
	int fd;

	C.note[0] = '\0';
	if (!sl)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", sl == server ? 1 : (int)(sl - server), server);
	abs_path(dir, bb, sizeof(bb));
	if ((size_t)snprintf(dir, sizeof(dir), "%s/clients", bb) >= sizeof(dir) ||
	    (mkdir(dir, 0700) < 0 && errno != EEXIST) || gethostname(host, sizeof(host)) < 0)
		return;
	host[sizeof(host) - 1] = '\0';
	if ((size_t)snprintf(C.note, sizeof(C.note), "%s/%s-%u-%ld", dir, host, C.node,
			     (long)getpid()) >= sizeof(C.note)) {
		C.note[0] = '\0';
		return;
	}
	abs_path(C.bbdir, bb, sizeof(bb));
	abs_path(C.pfsdir, pfs, sizeof(pfs));
	fd = open(C.note, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || dprintf(fd, "tfs-client 1\nhost %s\nnode %u\npid %ld\nbbdir %s\npfsdir %s\n",
			      host, C.node, (long)getpid(), bb, pfs) < 0) {
		if (fd >= 0) {
			unlink(C.note);
			close(fd);
		}
		C.note[0] = '\0';
		return;
	}
	/* (a forked child's is its parent's note: closed, not written) */
	if (C.notefd >= 0)
		close(C.notefd);
	C.notefd = tfs_fd_high(fd);
}

static int note_range(const struct tfs_iv *iv, void *arg)
{
	dprintf(*(int *)arg, "range %llu %llu %llu\n", (unsigned long long)iv->start,
		(unsigned long long)iv->end, (unsigned long long)iv->base);
	return 0;
}

/* Add to the note that @f's burst-buffer file is kept, and which of its
 * bytes go where: everything this process wrote and did not stage out,
 * in the order it wrote it. */
static void note_keep(struct lfile *f)
{
	const char *base = strrchr(f->bbpath, '/');
	int fd;

	if (!C.note[0] || (fd = open(C.note, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return;
	dprintf(fd, "file %o %s %s\n", f->mode ? f->mode & 07777 : 0644, base ? base + 1 : f->bbpath,
		f->path);
	tfs_itree_each(&f->tree, 0, UINT64_MAX, note_range, &fd);
	fsync(fd);
	close(fd);
}

/*
 * Add to the note the @n pieces of @f just attached (@v, with where each
 * is in the burst-buffer file): the journal of what this process made
 * visible, which is what it acknowledged (a close, an fsync), so that a
 * server stages it out when the process dies before it does (killed after
 * MPI_Abort, say), and the next server when the server died too
 * (tfs-server(8)).  Not synced: it is for the death of the process, and
 * the burst buffer does not outlive its node either.  With f->lock held.
 */
static pthread_mutex_t note_lock = PTHREAD_MUTEX_INITIALIZER;	/* a leaf: the note's writes */

static void note_journal(struct lfile *f, const struct tfs_iv *v, size_t n)
{
	const char *base = strrchr(f->bbpath ? f->bbpath : "", '/');
	char buf[4096];
	size_t at = 0, i;
	int fd, k;

	if (!C.note[0] || !n || !f->bbpath || f->gone)
		return;
	pthread_mutex_lock(&note_lock);
	if ((fd = C.notefd) < 0) {
		pthread_mutex_unlock(&note_lock);
		return;
	}
	/* one write per line group, so that a death mid-way cuts at a line
	 * the server can tell (a range line without its file line is never
	 * written) */
	k = snprintf(buf, sizeof(buf), "attached %o %s %llu %s\n", f->mode ? f->mode & 07777 : 0644,
		     base ? base + 1 : f->bbpath, (unsigned long long)f->fid, f->path);
	if (k > 0 && (size_t)k < sizeof(buf))
		at = (size_t)k;
	for (i = 0; at && i < n; i++) {
		if (sizeof(buf) - at < 80) {
			if (write(fd, buf, at) != (ssize_t)at)
				break;
			at = 0;
		}
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "range %llu %llu %llu\n",
				       (unsigned long long)v[i].start,
				       (unsigned long long)v[i].end,
				       (unsigned long long)v[i].base);
	}
	if (at && write(fd, buf, at) != (ssize_t)at)
		at = 0;	/* (a full disk: the note ends where it could) */
	pthread_mutex_unlock(&note_lock);
}

static int only_attached(const struct tfs_iv *iv, void *arg)
{
	return iv->state == ST_ATTACHED ? tfsi_itree_collect(iv, arg) : 0;
}

/*
 * This process unlinked, truncated or renamed @f: what its note says it
 * attached before is void ("forget", for a server that died: the next
 * one would otherwise write it again), and unless @f is gone, what it
 * still has attached is listed afresh, under its name now.  With f->lock
 * held.
 */
static void note_forget(struct lfile *f)
{
	const char *base = strrchr(f->bbpath ? f->bbpath : "", '/');
	struct tfs_ivec v = { 0 };
	char line[300];
	int k;

	if (!C.note[0] || C.notefd < 0 || !f->bbpath)
		return;
	k = snprintf(line, sizeof(line), "forget %s\n", base ? base + 1 : f->bbpath);
	pthread_mutex_lock(&note_lock);
	if (k > 0 && (size_t)k < sizeof(line) && write(C.notefd, line, (size_t)k) != k)
		k = -1;
	pthread_mutex_unlock(&note_lock);
	if (k < 0)
		return;
	if (f->gone)
		return;
	tfs_itree_each(&f->tree, 0, UINT64_MAX, only_attached, &v);
	if (!v.failed)
		note_journal(f, v.v, v.n);
	free(v.v);
}

/* TFS_PFS_DIR must be a directory that exists: stage-out has nowhere
 * else to put the data, so a client never starts without it. */
static int check_pfsdir(void)
{
	struct stat st;

	if (stat(C.pfsdir, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* The server's endpoint: its Unix-domain socket when it runs on this
 * host and has one (the server file says), else its address. */
static struct tfs_ep *connect_server(const struct tfs_server_file *sf)
{
	char host[128];
	struct tfs_ep *ep;

	if (sf->local[0] && gethostname(host, sizeof(host)) == 0 &&
	    (host[sizeof(host) - 1] = '\0', strcmp(host, sf->host) == 0) &&
	    (ep = tfs_ep_connect(sf->local, C.secret, C.timeout_ms)))
		return ep;
	return tfs_ep_connect(sf->addr, C.secret, C.timeout_ms);
}

static int init_locked(void)
{
	const char *server = getenv("TFS_SERVER"), *bb = getenv("TFS_BB_DIR"),
		   *pfs = getenv("TFS_PFS_DIR"), *node = getenv("TFS_NODE"),
		   *tmo = getenv("TFS_TIMEOUT"), *paddr = getenv("TFS_PEER_ADDR"),
		   *pause = getenv("TFS_TEST_PAUSE"), *fail = getenv("TFS_TEST_FAIL");
	struct tfs_server_file sf;
	struct tfs_buf b;
	struct tfs_rd rd;
	char msg[256], lsnaddr[160];
	void *mem;

	if (C.ready)
		return 0;
	C.dead = 0;
	if (!server || !*server || !pfs || !*pfs) {
		errno = EINVAL;
		return -1;
	}
	C.node = node ? (uint32_t)strtoul(node, NULL, 10) : 0;
	C.timeout_ms = tmo ? (int)strtol(tmo, NULL, 10) * 1000 : 10000;
	if (C.timeout_ms <= 0)
		C.timeout_ms = 10000;
	snprintf(C.bbdir, sizeof(C.bbdir), "%s", bb && *bb ? bb : "/tmp");
	snprintf(C.pfsdir, sizeof(C.pfsdir), "%s", pfs);
	if (check_pfsdir() < 0)
		return -1;
	if (pause && strchr(pause, ':')) {
		snprintf(C.pause_at, sizeof(C.pause_at), "%.*s", (int)(strchr(pause, ':') - pause),
			 pause);
		C.pause_ms = strtol(strchr(pause, ':') + 1, NULL, 10);
	}
	if (fail && strncmp(fail, "flush:", 6) == 0)
		C.fail_flush = (int)strtol(fail + 6, NULL, 10);
	if (fail && strncmp(fail, "drop:", 5) == 0)
		C.fail_drop = (int)strtol(fail + 5, NULL, 10);
	errno = 0;
	if (tfs_server_file_read(server, 0, &sf, msg, sizeof(msg)) < 0) {
		/* an open or read's error, else what is wrong with it */
		snprintf(C.srverr, sizeof(C.srverr), "%s", errno ? strerror(errno) : msg);
		errno = EACCES;
		return -1;
	}
	C.srverr[0] = '\0';
	memcpy(C.secret, sf.secret, sizeof(C.secret));
	snprintf(C.srvaddr, sizeof(C.srvaddr), "%s", sf.addr);
	if (paddr && *paddr)
		snprintf(lsnaddr, sizeof(lsnaddr), "%s", paddr);
	else if (strncmp(sf.addr, "unix:", 5) == 0) {
		if ((size_t)snprintf(lsnaddr, sizeof(lsnaddr), "unix:%s/tfs-peer-%u-%ld.sock",
				     C.bbdir, C.node, (long)getpid()) >= sizeof(lsnaddr)) {
			errno = ENAMETOOLONG;
			return -1;
		}
	} else if (strncmp(sf.addr, "ucx:", 4) == 0)	/* peers on the server's transport */
		snprintf(lsnaddr, sizeof(lsnaddr), "ucx:127.0.0.1:0");
	else
		snprintf(lsnaddr, sizeof(lsnaddr), "tcp:127.0.0.1:0");
	if (!(C.ep = connect_server(&sf)))
		return -1;
	C.lsn = tfs_lsn_open(lsnaddr, C.secret, "libtfs", on_peer, on_peer_close, NULL, msg,
			     sizeof(msg));
	if (!C.lsn) {
		tfs_ep_close(C.ep);
		C.ep = NULL;
		errno = EADDRNOTAVAIL;
		return -1;
	}
	tfs_buf_init(&b);
	tfs_buf_u32(&b, C.node);
	tfs_buf_u32(&b, (uint32_t)getpid());
	tfs_buf_str(&b, tfs_lsn_addr(C.lsn));
	if (call(TFS_MSG_HELLO, &b, &mem, &rd) < 0) {
		int e = errno;

		tfs_buf_release(&b);
		tfs_lsn_close(C.lsn);
		tfs_ep_close(C.ep);
		C.lsn = NULL;
		C.ep = NULL;
		errno = e;
		return -1;
	}
	tfs_buf_release(&b);
	C.id = tfs_rd_u64(&rd);
	free(mem);
	note_create(server);
	if (!C.atexit_done) {
		atexit(at_exit);
		C.atexit_done = 1;
	}
	C.ready = 1;
	return 0;
}

int tfs_init(void)
{
	int rc;

	pthread_mutex_lock(&C.lock);
	rc = init_locked();
	pthread_mutex_unlock(&C.lock);
	return rc;
}

/* ---- open, close ------------------------------------------------------------ */

/* The kernel's rule for making or removing a name: the caller may write
 * and search the directory it is in (backing path @pp).  -1 with EACCES
 * when it may not; a directory that cannot be asked about is left to the
 * call that follows. */
static int dir_writable(const char *pp)
{
	char dir[PATH_MAX];
	const char *sl = strrchr(pp, '/');
	size_t n = sl ? (size_t)(sl - pp) : 0;

	if (!sl || n >= sizeof(dir))
		return 0;
	memcpy(dir, pp, n ? n : 1);
	dir[n ? n : 1] = '\0';
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) < 0 &&
	    (errno == EACCES || errno == EPERM || errno == EROFS))
		return -1;
	return 0;
}

struct pw;
static int pw_parse(struct tfs_rd *rd, struct pw **v, uint32_t *n);
static int truncate_settle(struct lfile *f, uint64_t length, struct pw *v, uint32_t n);
static uint64_t synced_eof(struct lfile *f, int pfsfd);

tfs_file_t *tfs_open_mode(const char *pathname, unsigned flags, unsigned mode)
{
	char path[TFS_MAX_PATH + 1], pp[PATH_MAX];
	struct tfs_file *h;
	struct lfile *f;
	struct tfs_buf b;
	struct tfs_rd rd;
	struct stat st;
	uint64_t fid, eof, pfs = UINT64_MAX;
	uint32_t wire, cmode = 0, smode, created, uid, gid;
	struct pw *pv = NULL;
	uint32_t np = 0;
	int nocreate = 0;
	void *mem;

	if (!pathname || (flags & ~(TFS_O_CREAT | TFS_O_EXCL | TFS_O_TRUNC | TFS_O_POSIX |
				    TFS_O_READ | TFS_O_WRITE | TFS_O_SESSION))) {
		errno = EINVAL;
		return NULL;
	}
	if (tfs_init() < 0 || tfs_path_norm(pathname, path, sizeof(path)) < 0 ||
	    pfs_path(path, pp, sizeof(pp)) < 0)
		return NULL;
	if (stat(pp, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return NULL;
		}
		pfs = (uint64_t)st.st_size;
		/* a backed file: its bits, as the kernel checks them */
		if ((flags & (TFS_O_READ | TFS_O_WRITE)) &&
		    faccessat(AT_FDCWD, pp, ((flags & TFS_O_READ) ? R_OK : 0) |
				  ((flags & TFS_O_WRITE) ? W_OK : 0), AT_EACCESS) < 0)
			return NULL;
	} else if (errno != ENOENT) {
		return NULL;	/* a directory on the way it may not search */
	} else if ((flags & TFS_O_CREAT) && dir_writable(pp) < 0) {
		/* no new name in a directory it may not write: the open
		 * finds a file the server holds, or fails with EACCES */
		flags &= ~(unsigned)(TFS_O_CREAT | TFS_O_EXCL);
		nocreate = 1;
	}
	if ((flags & TFS_O_CREAT) && mode != TFS_MODE_DEFAULT)
		cmode = TFS_MODE_SET | (mode & 07777 & ~cur_umask());
	/* TFS_O_POSIX is this process's; the others go on the wire */
	wire = flags & (TFS_OPEN_CREAT | TFS_OPEN_EXCL | TFS_OPEN_TRUNC);
	if (flags & TFS_O_READ)
		wire |= TFS_OPEN_READ;
	if (flags & TFS_O_WRITE)
		wire |= TFS_OPEN_WRITE;
	if (geteuid() == 0)
		wire |= TFS_OPEN_ROOT;
	tfs_buf_init(&b);
	tfs_buf_u32(&b, wire);
	tfs_buf_u64(&b, pfs);
	tfs_buf_str(&b, path);
	tfs_buf_u32(&b, cmode);
	tfs_buf_u32(&b, (uint32_t)geteuid());
	tfs_buf_u32(&b, (uint32_t)getegid());
	if (call(TFS_MSG_OPEN, &b, &mem, &rd) < 0) {
		tfs_buf_release(&b);
		if (nocreate && errno == ENOENT)
			errno = EACCES;
		return NULL;
	}
	tfs_buf_release(&b);
	fid = tfs_rd_u64(&rd);
	eof = tfs_rd_u64(&rd);
	smode = tfs_rd_u32(&rd);
	created = tfs_rd_u32(&rd);
	uid = tfs_rd_u32(&rd);
	gid = tfs_rd_u32(&rd);
	if ((flags & TFS_O_TRUNC) && pw_parse(&rd, &pv, &np) < 0) {
		free(mem);
		return NULL;
	}
	free(mem);
	if (((flags & TFS_O_TRUNC) && pfs != UINT64_MAX && pfs > 0 && truncate(pp, 0) < 0) ||
	    !(h = calloc(1, sizeof(*h)))) {
		free(pv);
		return NULL;
	}
	pthread_mutex_lock(&C.lock);
	for (f = C.files; f && f->fid != fid; f = f->next)
		;
	if (!f) {
		if (!(f = calloc(1, sizeof(*f)))) {
			pthread_mutex_unlock(&C.lock);
			free(f);
			free(h);
			free(pv);
			errno = ENOMEM;
			return NULL;
		}
		memcpy(f->path, path, strlen(path) + 1);
		f->fid = fid;
		f->bbfd = -1;
		tfs_itree_init(&f->tree);
		pthread_mutex_init(&f->lock, NULL);
		f->next = C.files;
		C.files = f;
	}
	f->refs++;
	h->f = f;
	h->pfsfd = -1;
	h->next = C.handles;
	if (C.handles)
		C.handles->prev = h;
	C.handles = h;
	pthread_mutex_unlock(&C.lock);
	pthread_mutex_lock(&f->lock);
	/* open(2) gives a mode only to a file it creates: one neither the
	 * server nor the backing directory has yet; an open that finds it
	 * learns the creator's, which stage-out keeps whoever does it */
	if (created) {
		if (cmode)
			f->mode = cmode;
		f->created = 1;
	} else if (smode) {
		f->mode = smode;	/* the creator's, or a chmod's since */
	}
	f->uid = uid;
	f->gid = gid;
	if (flags & TFS_O_TRUNC)
		tfs_itree_release(&f->tree);
	if (eof > f->eof || (flags & TFS_O_TRUNC))
		f->eof = eof;
	pthread_mutex_unlock(&f->lock);
	h->f = f;
	h->gen = C.gen;
	h->posix = !!(flags & TFS_O_POSIX);
	h->session = !!(flags & TFS_O_SESSION);
	/* the server can tell this process to drop a map: its listener */
	h->keep = !h->session && C.lsn;
	/* pending writers' earlier writes, once attached, are cut too */
	if (truncate_settle(f, 0, pv, np) < 0) {
		int e = errno;

		tfs_close(h);
		errno = e;
		return NULL;
	}
	return h;
}

tfs_file_t *tfs_open_flags(const char *pathname, unsigned flags)
{
	return tfs_open_mode(pathname, flags, TFS_MODE_DEFAULT);
}

tfs_file_t *tfs_open(const char *pathname)
{
	return tfs_open_flags(pathname, TFS_O_CREAT);
}

static int is_dirty(const struct tfs_iv *iv, void *arg)
{
	(void)arg;
	return iv->state == ST_DIRTY;
}

static int is_dirty_or_any(const struct tfs_iv *iv, void *arg)
{
	(void)iv;
	(void)arg;
	return 1;
}

static int is_attached(const struct tfs_iv *iv, void *arg)
{
	(void)arg;
	return iv->state == ST_ATTACHED;
}

/* Free @f when nothing refers to it; with C.lock held. */
static void lfile_maybe_free(struct lfile *f)
{
	struct lfile **pp;

	if (f->refs > 0 || f->pins > 0 ||
	    tfs_itree_each(&f->tree, 0, UINT64_MAX, C.dead ? is_dirty_or_any : is_attached, NULL))
		return;
	for (pp = &C.files; *pp && *pp != f; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = f->next;
	if (f->bbfd >= 0) {
		tfs_fd_close(f->bbfd);
		unlink(f->bbpath);
	}
	tfs_itree_release(&f->tree);
	pthread_mutex_destroy(&f->lock);
	free(f->bbpath);
	free(f);
}


/* The backing file of @f at least @length long (made, with its mode, when
 * it does not exist): the end a truncation gave.  Never through a
 * symbolic link there (O_NOFOLLOW, as stage-out and recovery): it would
 * write another file.  Returns 0 or -1. */
static int backing_extend(struct lfile *f, uint64_t length)
{
	char p[PATH_MAX];
	struct stat st;
	int fd, rc = 0;

	if (lfile_pfs(f, p, sizeof(p)) < 0)
		return -1;
	mkparents(p);
	fd = tfs_fd_high(open(p, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			      f->mode ? f->mode & 07777 : 0644));
	if (fd < 0)
		return -1;
	if ((f->mode && fchmod(fd, f->mode & 07777) < 0) || fstat(fd, &st) < 0 ||
	    ((uint64_t)st.st_size < length && ftruncate(fd, (off_t)length) < 0))
		rc = -1;
	tfs_fd_close(fd);
	return rc;
}

/*
 * A file this process created and closes with no data to stage out and
 * nothing discarded (it wrote nothing, or truncated what it wrote) is
 * made in the backing directory now, empty, with its mode: stage-out
 * would have nothing to copy, so the file would otherwise never appear
 * there.  With f->lock held.  Returns 0 or -1.
 */
static int make_empty(struct lfile *f)
{
	if (backing_extend(f, 0) < 0)
		return -1;
	f->created = 0;
	return 0;
}

static int detach_range(struct lfile *f, uint64_t off, uint64_t end, int whole);
enum { ATTACH_CLEAN_ALL = 1, ATTACH_PENDING = 2 };	/* attach_locked()'s @clean */
static int attach_locked(struct lfile *f, uint64_t off, uint64_t end, int clean);
static int attach_range(struct lfile *f, uint64_t off, uint64_t end, int clean);

int tfs_close(tfs_file_t *file)
{
	struct lfile *f;
	int rc = 0;

	if (!live(file)) {
		errno = EBADF;
		return -1;
	}
	f = file->f;
	/* a posix handle's writes were visible: they stay so (ATTACH_CLEAN) */
	if (file->posix && attach_range(f, 0, UINT64_MAX, ATTACH_PENDING) < 0)
		rc = -1;
	pthread_mutex_lock(&C.lock);
	if (file->prev)
		file->prev->next = file->next;
	else
		C.handles = file->next;
	if (file->next)
		file->next->prev = file->prev;
	pthread_mutex_unlock(&C.lock);
	if (file->pfsfd >= 0)
		tfs_fd_close(file->pfsfd);
	free(file->snap);
	free(file);
	pthread_mutex_lock(&C.lock);
	pthread_mutex_lock(&f->lock);
	/* with the server lost, what could not be attached is kept for the
	 * note (tfs_finalize()) */
	if (--f->refs == 0 && !C.dead &&
	    tfs_itree_each(&f->tree, 0, UINT64_MAX, is_dirty, NULL)) {
		tfs_itree_remove(&f->tree, 0, UINT64_MAX, is_dirty, NULL);
		f->dend = 0;
		f->created = 0;	/* the creation is discarded with the writes */
	}
	if (f->refs == 0 && f->created && !f->gone && f->tree.count == 0 && make_empty(f) < 0)
		rc = -1;
	pthread_mutex_unlock(&f->lock);
	lfile_maybe_free(f);
	pthread_mutex_unlock(&C.lock);
	return rc;
}

/* ---- write, read --------------------------------------------------------------- */

/* Open @f's burst-buffer file if it has none yet; with f->lock held.
 * Returns 0 or -1. */
static int bb_open(struct lfile *f)
{
	char p[PATH_MAX];
	int e;

	if (f->bbfd >= 0)
		return 0;
	if ((size_t)snprintf(p, sizeof(p), "%s/tfs-bb-%u-%ld-%llu", C.bbdir, C.node,
			     (long)getpid(), (unsigned long long)f->fid) >= sizeof(p))
		errno = ENAMETOOLONG;
	else
		f->bbfd = tfs_fd_high(open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
	if (f->bbfd >= 0 && (f->bbpath = strdup(p)))
		return 0;
	e = errno;
	if (f->bbfd >= 0) {
		tfs_fd_close(f->bbfd);
		unlink(p);
	}
	f->bbfd = -1;
	errno = e;
	return -1;
}

/* Append @size bytes of @buf to @f's burst buffer as [offset, offset +
 * size) in @state; with f->lock held.  Returns 0 or -1. */
static int bb_write(struct lfile *f, const void *buf, size_t size, uint64_t offset,
		    uint32_t state)
{
	struct tfs_iv iv;

	if (bb_open(f) < 0 || full_pwrite(f->bbfd, buf, size, f->bbend) < 0)
		return -1;
	iv.start = offset;
	iv.end = offset + size;
	iv.owner = 0;
	iv.base = f->bbend;
	iv.state = state;
	if (tfs_itree_assign(&f->tree, &iv) < 0)
		return -1;
	f->bbend += size;
	return 0;
}

/* The checks of an access of @size bytes at @offset through @file: 0, or
 * -1 and errno when it cannot be made. */
static int range_ok(tfs_file_t *file, size_t size, size_t offset)
{
	if (!live(file)) {
		errno = EBADF;
		return -1;
	}
	if (size > SSIZE_MAX || offset > UINT64_MAX - size) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* The checks of a write of @size bytes at @offset through @file: -1 and
 * errno when it cannot be made, 0 when there is nothing to write, else 1. */
static int write_ok(tfs_file_t *file, size_t size, size_t offset)
{
	if (range_ok(file, size, offset) < 0)
		return -1;
	return size > 0;
}

ssize_t tfs_pwrite(tfs_file_t *file, const void *buf, size_t size, size_t offset)
{
	struct lfile *f;
	int rc;

	if ((rc = write_ok(file, size, offset)) <= 0)
		return rc;
	if (file->posix)
		return tfsi_pwrite_pending(file, buf, size, offset);
	f = file->f;
	pthread_mutex_lock(&f->lock);
	rc = bb_write(f, buf, size, offset, ST_DIRTY);
	pthread_mutex_unlock(&f->lock);
	return rc < 0 ? -1 : (ssize_t)size;
}

/* The write of tfsi_pwrite_attach(), between its request and its reply. */
struct wa {
	struct lfile *f;
	const void *buf;
	size_t size;
	uint64_t offset;
	int done, rc, err;
};

static void wa_write(void *arg)
{
	struct wa *w = arg;

	w->done = 1;
	w->rc = bb_write(w->f, w->buf, w->size, w->offset, ST_DIRTY);
	w->err = errno;
}

/*
 * Request @type with body @v of the server, writing @w's bytes to the
 * burst buffer during the round trip (or after, when the request never
 * went).  Returns the call's result (0, -1 with errno, or a status) with
 * *@r, *@rlen the reply; a lost server is remembered in C.dead.
 */
static int call_writing(uint16_t type, struct iovec *v, struct wa *w, void **r, size_t *rlen)
{
	int rc;

	if (C.dead) {
		rc = -1;
		errno = C.dead;
	} else {
		rc = tfs_ep_call_while(C.ep, type, v, 1, NULL, 0, r, rlen, C.timeout_ms,
				       wa_write, w);
		drops_sent(type, v->iov_base, v->iov_len);
		if (rc < 0 && errno != ENOMEM)
			C.dead = errno;
		else if (rc > 0)
			errno = rc;
	}
	if (!w->done) {	/* the request never went: the bytes are written all the same */
		int e = errno;

		wa_write(w);
		errno = e;
	}
	return rc;
}

/*
 * tfs_pwrite() then tfs_attach() of the range, as the posix model does
 * each write, but the attach request goes first and its reply is read
 * after the bytes are written: the round trip overlaps the write.  f->lock
 * is held throughout, so a peer's read of the range (served under it)
 * waits for both; the call returns only once the server has the range,
 * so the write is visible when it returns, as before.  When the write
 * fails after the request went, the range is detached again.
 */
ssize_t tfsi_pwrite_attach(tfs_file_t *file, const void *buf, size_t size, size_t offset)
{
	struct wa w = { .buf = buf, .size = size, .offset = offset };
	struct tfs_buf b;
	struct iovec v;
	size_t rlen;
	void *r = NULL;
	int rc;

	if ((rc = write_ok(file, size, offset)) <= 0)
		return rc;
	w.f = file->f;
	tfs_buf_init(&b);
	tfs_buf_u64(&b, w.f->fid);
	tfs_buf_u32(&b, 1);
	tfs_buf_u64(&b, offset);
	tfs_buf_u64(&b, size);
	if (tfs_buf_failed(&b)) {
		tfs_buf_release(&b);
		errno = ENOMEM;
		return -1;
	}
	v.iov_base = b.p;
	v.iov_len = b.len;
	pthread_mutex_lock(&w.f->lock);
	rc = call_writing(TFS_MSG_ATTACH, &v, &w, &r, &rlen);
	if (rc == 0 && w.rc == 0) {
		struct tfs_rd rd;
		struct tfs_iv iv = { offset, offset + size, 0, w.f->bbend - size, ST_ATTACHED };
		uint64_t eof;

		tfs_rd_init(&rd, r, rlen);
		eof = tfs_rd_u64(&rd);
		if (eof > w.f->eof)
			w.f->eof = eof;
		if (tfs_itree_assign(&w.f->tree, &iv) < 0)
			rc = -1;
	}
	pthread_mutex_unlock(&w.f->lock);
	free(r);
	tfs_buf_release(&b);
	if (w.rc < 0) {
		if (rc == 0)	/* the server has a range whose bytes are not here */
			detach_range(w.f, offset, offset + size, 0);
		errno = w.err;
		return -1;
	}
	return rc ? -1 : (ssize_t)size;
}

/* How long a pending writer writes before it tells the server again:
 * a quarter of TFS_TIMEOUT, at most a second. */
static long long keepalive_ms(void)
{
	return C.timeout_ms / 4 < 1000 ? C.timeout_ms / 4 : 1000;
}

static void pw_flush(struct lfile *f, struct pw *v, uint32_t n);
static int pw_check(const struct pw *was, uint32_t n, const struct pw *now, uint32_t m);

/* How many times a write asks for its range before it gives up (EAGAIN):
 * each time, other writers wrote there again before it could. */
#define PENDING_TRIES 16

/*
 * The pending writers @pv (@n of them) the server named to a write that
 * asked under f->lock: they flush, with f->lock let go (each flushes
 * under its own), and the caller asks again.  One that could not and is
 * still there (named in *@was before too) has writes nobody can order
 * against the caller's; after PENDING_TRIES askings it gives up (EAGAIN).
 * Takes @pv; returns 0, or -1 with @pv freed.
 */
static int pw_retry(struct lfile *f, struct pw **was, uint32_t *nwas, struct pw *pv, uint32_t n,
		    int *tries)
{
	if (pw_check(*was, *nwas, pv, n) < 0 || ++*tries == PENDING_TRIES) {
		if (*tries == PENDING_TRIES)
			errno = EAGAIN;
		free(pv);
		return -1;
	}
	free(*was);
	pthread_mutex_unlock(&f->lock);
	pw_flush(f, pv, n);
	pthread_mutex_lock(&f->lock);
	*was = pv;
	*nwas = n;
	return 0;
}

/* What a write that goes on from the range held asks for beyond it, at
 * least: then as much again as it holds. */
#define PENDING_MORE (1u << 20)

/*
 * A write under the posix model with the attach deferred (the pending
 * writer protocol: see the header comment).  While the server lists this
 * process as a pending writer of the file holding the range written, the
 * write is the burst-buffer write alone, recorded unattached.  Otherwise
 * (the first write, the first since a flush or out of the range held, or
 * the first after a keep-alive period) PENDING asks for the range first:
 * when another pending writer may have written there unattached, their
 * two writes' order would be lost at the server (the one attached last
 * wins), so that writer is asked to flush first (PEER_FLUSH) and the
 * range asked for again.  A write that continues the range held asks for
 * as much again beyond it (1 MiB at least), so a sequential writer asks
 * O(log n) times.
 * f->lock is held from the granted PENDING to the end of the write, as by
 * a flush (PEER_FLUSH), so a flush either precedes the write (and the
 * range must be asked for again) or attaches it.  Returns @size or -1.
 */
ssize_t tfsi_pwrite_pending(tfs_file_t *file, const void *buf, size_t size, size_t offset)
{
	struct lfile *f = file->f;
	uint64_t s = offset, need = offset + size, want;
	struct pw *was = NULL;
	uint32_t nwas = 0;
	int rc, tries = 0;

	if ((rc = write_ok(file, size, offset)) <= 0)
		return rc;
	pthread_mutex_lock(&f->lock);
	for (;;) {
		struct tfs_buf b;
		struct tfs_rd rd;
		struct pw *pv = NULL;
		uint32_t n = 0;
		uint64_t eof, end;
		void *mem;

		/* one PENDING again per keep-alive period of writing, so that a
		 * writer learns of a lost server about as soon as one that
		 * attached would */
		if (f->pend && !C.dead && tfsi_now_ms() - f->pend_ms < keepalive_ms() &&
		    s >= f->gs && need <= f->ge) {
			rc = bb_write(f, buf, size, offset, ST_DIRTY);
			break;
		}
		want = need;
		if (f->pend && s == f->ge) {	/* it goes on from the range held */
			uint64_t more = f->ge - f->gs > size ? f->ge - f->gs : size;

			if (more < PENDING_MORE)
				more = PENDING_MORE;
			want = more > UINT64_MAX - need ? UINT64_MAX : need + more;
		}
		tfs_buf_init(&b);
		tfs_buf_u64(&b, f->fid);
		tfs_buf_u64(&b, s);
		tfs_buf_u64(&b, need);
		tfs_buf_u64(&b, want);
		rc = call(TFS_MSG_PENDING, &b, &mem, &rd);
		tfs_buf_release(&b);
		if (rc < 0)
			break;
		eof = tfs_rd_u64(&rd);
		end = tfs_rd_u64(&rd);
		rc = pw_parse(&rd, &pv, &n);
		free(mem);
		if (rc < 0)
			break;
		if (eof > f->eof)
			f->eof = eof;
		if (n == 0) {	/* granted: the range is this process's to write */
			if (end < need) {
				errno = EPROTO;
				rc = -1;
				break;
			}
			if (!(f->pend && s == f->ge))
				f->gs = s;
			f->ge = end;
			f->pend = 1;
			f->pend_ms = tfsi_now_ms();
			rc = bb_write(f, buf, size, offset, ST_DIRTY);
			break;
		}
		/* others may have written there: they flush first */
		if ((rc = pw_retry(f, &was, &nwas, pv, n, &tries)) < 0)
			break;
	}
	if (rc == 0 && need > f->dend)
		f->dend = need;
	pthread_mutex_unlock(&f->lock);
	free(was);
	return rc < 0 ? -1 : (ssize_t)size;
}

ssize_t tfs_write(tfs_file_t *file, const void *buf, size_t size)
{
	ssize_t n;

	if (!live(file)) {
		errno = EBADF;
		return -1;
	}
	if ((n = tfs_pwrite(file, buf, size, file->pos)) > 0)
		file->pos += (uint64_t)n;
	return n;
}

static int pfs_fd(const struct lfile *f)
{
	char p[PATH_MAX];

	if (lfile_pfs(f, p, sizeof(p)) < 0)
		return -1;
	return tfs_fd_high(open(p, O_RDONLY | O_CLOEXEC));
}

/* Drop @file's session map when a record lock was taken since it was
 * kept: a read under the lock must see every write published before it
 * (tfsi_read_sync).  The backing file's descriptor stays: stage-out
 * writes that file in place.  With f->lock held. */
static void read_sync(struct tfs_file *file)
{
	if (file->syncs == file->f->syncs)
		return;
	file->syncs = file->f->syncs;
	file->snapped = 0;
}

void tfsi_read_sync(struct tfs_file *file)
{
	struct lfile *f = file->f;

	pthread_mutex_lock(&f->lock);
	f->syncs++;
	pthread_mutex_unlock(&f->lock);
}

/* @file's backing file, opened by its first read and kept until
 * tfs_close (or tfsi_pfs_give_back), as a descriptor of the file itself
 * would be (an open per read cost more than a small read); -1 with
 * ENOENT while there is none, asked again at the next read.  With
 * f->lock held. */
static int file_pfs(struct tfs_file *file)
{
	if (file->pfsfd < 0)
		file->pfsfd = pfs_fd(file->f);
	return file->pfsfd;
}

int tfsi_pfs_give_back(void)
{
	int n = 0;

	pthread_mutex_lock(&C.lock);
	for (struct tfs_file *h = C.handles; h; h = h->next) {
		pthread_mutex_lock(&h->f->lock);
		if (h->pfsfd >= 0) {
			tfs_fd_close(h->pfsfd);
			h->pfsfd = -1;
			n++;
		}
		pthread_mutex_unlock(&h->f->lock);
	}
	pthread_mutex_unlock(&C.lock);
	return n;
}

/* file_pfs() for a read: -2 (errno set) when the backing file is there
 * but could not be opened, as the read cannot go on without it (zeros
 * would be bytes no one wrote); on EMFILE or ENFILE the other handles'
 * are given back first and the open tried again, so that a process can
 * have as many files open as with none kept.  With f->lock held, which
 * it may let go meanwhile. */
static int read_pfs(struct tfs_file *file)
{
	int fd = file_pfs(file), e = errno;

	if (fd < 0 && (e == EMFILE || e == ENFILE)) {
		pthread_mutex_unlock(&file->f->lock);
		tfsi_pfs_give_back();
		pthread_mutex_lock(&file->f->lock);
		fd = file_pfs(file);
		e = errno;
	}
	if (fd < 0 && e != ENOENT) {
		errno = e;
		return -2;
	}
	return fd;
}

/* Fill [off, off+n) of @buf: local writes where there are any, else the
 * backing file, else zeros.  With f->lock held. */
struct fill {
	unsigned char *buf;
	uint64_t off, at;
	int bbfd, pfsfd;
	int err;
	uint64_t pend;		/* the first offset read as zeros past the
				 * backing file's end, or UINT64_MAX */
	int owned;		/* attached bytes are read only where own[] (the
				 * server's owners, by offset) names this process */
	const tfs_interval_t *own;
	int nown;
};

static int fill_gap(struct fill *c, uint64_t to)
{
	ssize_t r = 0;

	if (to <= c->at)
		return 0;
	if (c->pfsfd >= 0 &&
	    (r = full_pread(c->pfsfd, c->buf + (c->at - c->off), to - c->at, c->at)) < 0) {
		c->err = errno;
		return 1;
	}
	if (c->pfsfd < 0)
		memset(c->buf + (c->at - c->off), 0, to - c->at);
	if ((uint64_t)r < to - c->at && c->pend == UINT64_MAX)
		c->pend = c->at + (uint64_t)r;
	c->at = to;
	return 0;
}

/* [@s, @e) of @iv from the burst buffer into c->buf. */
static int fill_bb(struct fill *c, const struct tfs_iv *iv, uint64_t s, uint64_t e)
{
	if (fill_gap(c, s))
		return 1;
	if (full_pread(c->bbfd, c->buf + (s - c->off), e - s, iv->base + (s - iv->start)) < 0) {
		c->err = errno;
		return 1;
	}
	c->at = e;
	return 0;
}

static int fill_one(const struct tfs_iv *iv, void *arg)
{
	struct fill *c = arg;

	if (c->owned && iv->state == ST_ATTACHED) {
		/* only where this process is still the owner: a newer
		 * writer's bytes that reached the backing file (it staged out
		 * and left) are not hidden by this process's older copy; the
		 * rest of it is a gap, read from there */
		for (int i = 0; i < c->nown; i++) {
			uint64_t s = c->own[i].offset, e = s + c->own[i].size;

			if (c->own[i].owner.client != C.id)
				continue;
			s = s > iv->start ? s : iv->start;
			e = e < iv->end ? e : iv->end;
			if (s < e && fill_bb(c, iv, s, e))
				return 1;
		}
		return 0;
	}
	return fill_bb(c, iv, iv->start, iv->end);
}

/* With *@pend (may be NULL): the first offset filled with zeros because
 * the backing file ended (or there is none), UINT64_MAX if none was. */
static int fill_local(struct lfile *f, int pfsfd, void *buf, uint64_t off, size_t n,
		      uint64_t *pend, int owned, const tfs_interval_t *own, int nown)
{
	struct fill c = { buf, off, off, f->bbfd, pfsfd, 0, UINT64_MAX, owned, own, nown };

	tfs_itree_each(&f->tree, off, off + n, fill_one, &c);
	if (!c.err)
		fill_gap(&c, off + n);
	if (c.err) {
		errno = c.err;
		return -1;
	}
	if (pend)
		*pend = c.pend;
	return 0;
}

/* The size of @f's backing file, through @pfsfd when it is open; 0 when
 * there is none. */
static uint64_t pfs_size(const struct lfile *f, int pfsfd)
{
	char p[PATH_MAX];
	struct stat st;

	if (pfsfd >= 0 ? fstat(pfsfd, &st) == 0
		       : lfile_pfs(f, p, sizeof(p)) == 0 && stat(p, &st) == 0)
		return (uint64_t)st.st_size;
	return 0;
}

/* The end of file as this process knows it; with f->lock held. */
static uint64_t known_eof(struct lfile *f, int pfsfd)
{
	uint64_t e = f->eof, t = tfs_itree_end(&f->tree), s = pfs_size(f, pfsfd);

	if (t > e)
		e = t;
	return s > e ? s : e;
}

ssize_t tfs_pread(tfs_file_t *file, void *buf, size_t size, size_t offset)
{
	struct lfile *f;
	uint64_t eof;
	size_t n;
	int pfsfd;

	if (!live(file)) {
		errno = EBADF;
		return -1;
	}
	if (size > SSIZE_MAX) {
		errno = EINVAL;
		return -1;
	}
	f = file->f;
	pthread_mutex_lock(&f->lock);
	read_sync(file);
	if ((pfsfd = read_pfs(file)) == -2) {
		pthread_mutex_unlock(&f->lock);
		return -1;
	}
	eof = known_eof(f, pfsfd);
	n = offset >= eof ? 0 : (eof - offset < size ? (size_t)(eof - offset) : size);
	if (n && fill_local(f, pfsfd, buf, offset, n, NULL, 0, NULL, 0) < 0) {
		pthread_mutex_unlock(&f->lock);
		return -1;
	}
	pthread_mutex_unlock(&f->lock);
	return (ssize_t)n;
}

ssize_t tfs_read(tfs_file_t *tf, void *buf, size_t size)
{
	ssize_t n;

	if (!live(tf)) {
		errno = EBADF;
		return -1;
	}
	if ((n = tfs_pread(tf, buf, size, tf->pos)) > 0)
		tf->pos += (uint64_t)n;
	return n;
}

/* ---- peers ------------------------------------------------------------------- */

/* How many times a peer that refused the connection is asked again. */
#define CONNECT_TRIES 3

/*
 * A new endpoint to the peer at @addr.  A refusal is asked again a little
 * later, CONNECT_TRIES times in all, within TFS_TIMEOUT: a peer's UCX
 * listener refuses a connection it fails to set up (a dozen processes
 * connecting at once), and the next one is taken.
 */
static struct tfs_ep *peer_connect(const char *addr)
{
	int64_t t0 = tfsi_now_ms(), left;
	struct tfs_ep *ep;

	for (int t = 0;; t++) {
		left = C.timeout_ms - (tfsi_now_ms() - t0);
		ep = tfs_ep_connect(addr, C.secret, left > 0 ? (int)left : 1);
		if (ep || (errno != ECONNREFUSED && errno != ECONNRESET) ||
		    t + 1 >= CONNECT_TRIES || tfsi_now_ms() - t0 + (10 << (2 * t)) >= C.timeout_ms)
			return ep;
		usleep(10000u << (2 * t));
	}
}

/*
 * The endpoint to the peer at @addr, made on first use (and again for a
 * broken one).  The connect is made without C.lock: this process's
 * listener thread takes C.lock to serve a peer's read, and a peer that
 * connects to us while we connect to it is accepted by that thread, so a
 * connect under C.lock waited for it (two processes reading from each
 * other stalled a whole TFS_TIMEOUT).  Another thread that wants the
 * same peer meanwhile waits for that connect's end and takes its result.
 */
static struct tfs_ep *peer_ep(const char *addr)
{
	struct tfs_ep *ep;
	struct peer *p;
	unsigned try;
	int e;

	pthread_mutex_lock(&C.lock);
	for (p = C.peers; p && strcmp(p->addr, addr) != 0; p = p->next)
		;
	if (!p && (p = calloc(1, sizeof(*p)))) {
		snprintf(p->addr, sizeof(p->addr), "%s", addr);
		p->next = C.peers;
		C.peers = p;
	}
	if (!p) {
		pthread_mutex_unlock(&C.lock);
		errno = ENOMEM;
		return NULL;
	}
	if (p->connecting) {
		try = p->tries;
		while (p->connecting && p->tries == try)
			pthread_cond_wait(&C.peer_cv, &C.lock);
		ep = p->ep;
		e = p->err;
		pthread_mutex_unlock(&C.lock);
		if (!ep)
			errno = e;
		return ep;
	}
	if (p->ep && tfs_ep_broken(p->ep)) {
		tfs_ep_close(p->ep);
		p->ep = NULL;
	}
	if ((ep = p->ep)) {
		pthread_mutex_unlock(&C.lock);
		return ep;
	}
	p->connecting = 1;
	pthread_mutex_unlock(&C.lock);
	ep = peer_connect(addr);
	e = ep ? 0 : errno;
	pthread_mutex_lock(&C.lock);
	p->ep = ep;
	p->err = e;
	p->connecting = 0;
	p->tries++;
	pthread_cond_broadcast(&C.peer_cv);
	pthread_mutex_unlock(&C.lock);
	if (!ep)
		errno = e;
	return ep;
}

ssize_t tfs_read_peer(tfs_file_t *file, tfs_addr_t *peer, size_t offset, size_t size,
		      void *buf)
{
	struct tfs_ep *ep;
	size_t done = 0;

	if (!live(file) || !peer) {
		errno = file && !live(file) ? EBADF : EINVAL;	/* (inherited across fork) */
		return -1;
	}
	if (size > SSIZE_MAX || offset > UINT64_MAX - size) {
		errno = EINVAL;
		return -1;
	}
	if (tfs_init() < 0 || !(ep = peer_ep(peer->addr)))
		return -1;
	while (done < size) {
		size_t n = size - done < TFS_CHUNK ? size - done : TFS_CHUNK, rlen;
		unsigned char req[24];
		struct tfs_buf b;
		struct iovec v;
		int rc;

		tfs_buf_init(&b);
		tfs_buf_u64(&b, file->f->fid);
		tfs_buf_u64(&b, offset + done);
		tfs_buf_u64(&b, n);
		if (tfs_buf_failed(&b)) {
			errno = ENOMEM;
			return -1;
		}
		memcpy(req, b.p, sizeof(req));
		tfs_buf_release(&b);
		v.iov_base = req;
		v.iov_len = sizeof(req);
		rc = tfs_ep_call(ep, TFS_MSG_PEER_READ, &v, 1, (char *)buf + done, n, NULL, &rlen,
				 C.timeout_ms);
		if (rc != 0) {
			if (rc > 0)
				errno = rc;
			return -1;
		}
		if (rlen != n) {
			errno = ENODATA;
			return -1;
		}
		done += n;
	}
	return (ssize_t)size;
}

/* ---- pending writers (the sync design's posix model) --------------------------- */

/* A pending writer a reply names (tfs-protocol(5)). */
struct pw {
	uint64_t id;
	uint32_t gone;		/* it disconnected with writes unattached */
	int failed;		/* it did not flush when asked */
	char addr[128];
};

/* The list of pending writers ending a reply: into *@v (free it) and *@n.
 * Returns 0, or -1 with errno EPROTO or ENOMEM. */
static int pw_parse(struct tfs_rd *rd, struct pw **v, uint32_t *n)
{
	uint32_t k = tfs_rd_u32(rd);

	*v = NULL;
	*n = 0;
	if (rd->bad || k > (rd->len - rd->pos) / 22) {
		errno = EPROTO;
		return -1;
	}
	if (k && !(*v = calloc(k, sizeof(**v)))) {
		errno = ENOMEM;
		return -1;
	}
	for (uint32_t i = 0; i < k; i++) {
		(*v)[i].id = tfs_rd_u64(rd);
		tfs_rd_u32(rd);	/* node */
		tfs_rd_u32(rd);	/* pid */
		tfs_rd_str(rd, (*v)[i].addr, sizeof((*v)[i].addr));
		(*v)[i].gone = tfs_rd_u32(rd);
	}
	if (rd->bad) {
		free(*v);
		*v = NULL;
		errno = EPROTO;
		return -1;
	}
	*n = k;
	return 0;
}

/* Ask each pending writer in @v to attach everything it wrote to @f
 * (PEER_FLUSH); one that is gone or does not answer is marked failed.
 * With no lock held: the writer flushes under its own file lock. */
#define PW_CHAIN 8	/* requests in flight at once: a stack frame of the transport's each */

/* The PEER_FLUSH requests of writers [i, end) of a chain, in flight together. */
struct pwchain {
	unsigned char body[8];	/* the file id */
	struct pw *v;
	struct tfs_ep **ep;	/* of writers at to end */
	uint32_t at, i, end;
};

/*
 * Ask writer c->i to flush and, while its request is on the way (the
 * transport's call_while), the ones after it: every request of the chain
 * is out before the first reply is awaited, so the writers flush at once
 * and the chain costs about one round trip, not one per writer.  Where
 * the transport cannot overlap (UCX), or a request cannot be sent, the
 * rest follows one by one.
 */
static void pw_chain(void *arg)
{
	struct pwchain *c = arg;
	uint32_t i = c->i++;
	struct iovec v = { c->body, sizeof(c->body) };
	struct pw *w;
	size_t rlen;
	void *r = NULL;
	int rc;

	if (i >= c->end)
		return;
	w = &c->v[i];
	if (w->gone || !c->ep[i - c->at] ||
	    (C.fail_flush > 0 && __atomic_sub_fetch(&C.fail_flush, 1, __ATOMIC_RELAXED) >= 0)) {
		w->failed = 1;
		pw_chain(c);
		return;
	}
	rc = tfs_ep_call_while(c->ep[i - c->at], TFS_MSG_PEER_FLUSH, &v, 1, NULL, 0, &r, &rlen,
			       C.timeout_ms, pw_chain, c);
	free(r);
	w->failed = rc != 0;
	if (c->i == i + 1)	/* not sent: the others were not asked yet */
		pw_chain(c);
}

static int pw_by_id(const void *a, const void *b)
{
	uint64_t x = ((const struct pw *)a)->id, y = ((const struct pw *)b)->id;

	return (x > y) - (x < y);
}

/* Ask every writer in @v to flush, PW_CHAIN at a time in flight.  The
 * endpoints are found first (peer_ep takes C.lock, which is not to be
 * waited for under an endpoint's lock), and the writers go in the order
 * of their ids, so two threads never wait for each other's endpoints. */
static void pw_flush_once(struct lfile *f, struct pw *v, uint32_t n)
{
	struct tfs_ep *ep[PW_CHAIN];
	struct pwchain c = { .v = v, .ep = ep };

	for (int k = 0; k < 8; k++)
		c.body[k] = (unsigned char)(f->fid >> (8 * k));
	for (c.at = 0; c.at < n; c.at = c.end) {
		uint32_t lim = n - c.at < PW_CHAIN ? n : c.at + PW_CHAIN;

		/* (an endpoint twice in a chain would wait for its own lock) */
		for (c.end = c.at; c.end < lim; c.end++) {
			struct tfs_ep *e = v[c.end].gone ? NULL : peer_ep(v[c.end].addr);
			uint32_t k = 0;

			while (e && k < c.end - c.at && ep[k] != e)
				k++;
			if (e && k < c.end - c.at)
				break;
			ep[c.end - c.at] = e;
		}
		c.i = c.at;
		pw_chain(&c);
	}
}

/* How many times a writer that did not flush is asked. */
#define FLUSH_TRIES 4

/*
 * pw_flush_once(), and the writers that did not flush asked again, a
 * little later each time, up to FLUSH_TRIES times in all: a connection to
 * a writer can fail as it is set up (UCX's sometimes does, with a dozen
 * processes connecting at once) and peer_ep() makes a new one for a
 * broken one; within TFS_TIMEOUT of the first ask.  What is still failed
 * then is for pw_check() to judge: a writer that is gone is no longer
 * pending when the server is asked again.
 */
static void pw_flush(struct lfile *f, struct pw *v, uint32_t n)
{
	int64_t t0 = tfsi_now_ms();
	struct pw *again;
	uint32_t k, i, j;

	if (n > 1)
		qsort(v, n, sizeof(*v), pw_by_id);
	pw_flush_once(f, v, n);
	/* (a writer that did not answer within TFS_TIMEOUT is not waited for
	 * again: the asker gets EIO after about one TFS_TIMEOUT) */
	for (int t = 1; t < FLUSH_TRIES && tfsi_now_ms() - t0 < C.timeout_ms; t++) {
		for (k = i = 0; i < n; i++)
			k += v[i].failed && !v[i].gone;
		if (k == 0 || !(again = malloc(k * sizeof(*again))))
			return;
		for (k = i = 0; i < n; i++)
			if (v[i].failed && !v[i].gone)
				again[k++] = v[i];
		usleep(1000u << (2 * t));
		pw_flush_once(f, again, k);
		for (i = j = 0; i < n && j < k; i++)	/* both in the order of ids */
			if (v[i].id == again[j].id)
				v[i].failed = again[j++].failed;
		free(again);
	}
}

/* After asking the server again: a writer that failed to flush and is
 * still pending (@now) has writes nobody can read: -1 with EIO; else 0.
 * One that is no longer pending attached (or staged out) as it ended. */
static int pw_check(const struct pw *was, uint32_t n, const struct pw *now, uint32_t m)
{
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; was[i].failed && j < m; j++)
			if (now[j].id == was[i].id) {
				errno = EIO;
				return -1;
			}
	return 0;
}

/* The listener's PEER_FLUSH: attach everything unattached of the file and
 * stop being its pending writer, in one request (ATTACH_CLEAN), under
 * the file's lock, then reply. */
static void serve_flush(struct tfs_req *req)
{
	struct tfs_rd rd;
	struct lfile *f;
	uint64_t fid;
	int rc = 0;

	tfs_rd_init(&rd, req->body, req->hdr.len);
	fid = tfs_rd_u64(&rd);
	if (!tfs_rd_done(&rd)) {
		tfs_req_reply(req, EINVAL, NULL, 0);
		return;
	}
	if ((f = lfile_pin(fid))) {
		pthread_mutex_lock(&f->lock);
		/* (not pending: it flushed since the server answered the asker) */
		if (f->pend && attach_locked(f, 0, UINT64_MAX, ATTACH_PENDING) < 0)
			rc = errno;
		pthread_mutex_unlock(&f->lock);
		lfile_unpin(f);
	}
	tfs_req_reply(req, rc, NULL, 0);
}

/*
 * Request @type (TRUNCATE, EOF) of @f with @x: the u64 the reply starts
 * with into *@out (when not NULL), the pending writers it names into *@v,
 * *@n.  With no lock held.  Returns 0 or -1.
 */
static int ask_fid(uint16_t type, struct lfile *f, uint64_t x, uint64_t *out, struct pw **v,
		   uint32_t *n)
{
	struct tfs_buf b;
	struct tfs_rd rd;
	void *mem;
	uint64_t u;
	int rc;

	tfs_buf_init(&b);
	tfs_buf_u64(&b, f->fid);
	tfs_buf_u64(&b, x);
	rc = call(type, &b, &mem, &rd);
	tfs_buf_release(&b);
	if (rc < 0)
		return -1;
	u = tfs_rd_u64(&rd);
	if (out)
		*out = u;
	rc = pw_parse(&rd, v, n);
	free(mem);
	return rc;
}

/* TRUNCATE @f to @length; the pending writers the reply names into *@v,
 * *@n.  With no lock held.  Returns 0 or -1. */
static int truncate_once(struct lfile *f, uint64_t length, struct pw **v, uint32_t *n)
{
	return ask_fid(TFS_MSG_TRUNCATE, f, length, NULL, v, n);
}

/* A truncate to @length met pending writers @v: have them attach, then
 * truncate again, so that what they wrote before is cut too.  Frees @v. */
static int truncate_settle(struct lfile *f, uint64_t length, struct pw *v, uint32_t n)
{
	struct pw *now = NULL;
	uint32_t m = 0;
	int rc = 0;

	if (n) {
		pw_flush(f, v, n);
		rc = truncate_once(f, length, &now, &m);
		if (rc == 0)
			rc = pw_check(v, n, now, m);
	}
	free(v);
	free(now);
	return rc;
}

/* ---- flush ---------------------------------------------------------------------- */

struct copy {
	int bbfd, pfsfd;
	unsigned char *tmp;
	uint64_t end;
	int err;
};

static int copy_range(struct copy *c, uint64_t start, uint64_t end, uint64_t base)
{
	while (start < end) {
		size_t n = end - start < (1u << 20) ? (size_t)(end - start) : (1u << 20);

		if (full_pread(c->bbfd, c->tmp, n, base) < 0 ||
		    full_pwrite(c->pfsfd, c->tmp, n, start) < 0) {
			c->err = errno;
			return 1;
		}
		start += n;
		base += n;
	}
	if (end > c->end)
		c->end = end;
	return 0;
}

static int copy_one(const struct tfs_iv *iv, void *arg)
{
	return copy_range(arg, iv->start, iv->end, iv->base);
}

/* Open the backing file for writing and set up @c; with f->lock held.
 * A symbolic link in its place is not written through (ELOOP: the file is
 * kept, as recover.c does): libtfs-posix resolves the mount's links, so
 * the link was made over the file's name after it, and names another. */
static int copy_begin(struct lfile *f, struct copy *c)
{
	char p[PATH_MAX];

	memset(c, 0, sizeof(*c));
	c->bbfd = f->bbfd;
	if (lfile_pfs(f, p, sizeof(p)) < 0)
		return -1;
	mkparents(p);
	if ((c->pfsfd = tfs_fd_high(open(p, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
					 f->mode ? f->mode & 07777 : 0644))) < 0)
		return -1;
	/* the mode the program gave (or a chmod since), even when another
	 * client made the file */
	if (f->mode && fchmod(c->pfsfd, f->mode & 07777) < 0) {
		tfs_fd_close(c->pfsfd);
		return -1;
	}
	f->created = 0;
	if (!(c->tmp = malloc(1u << 20))) {
		tfs_fd_close(c->pfsfd);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* fsync and close; tell the server the new end.  Returns 0 or -1. */
static int copy_end(struct lfile *f, struct copy *c)
{
	int rc = c->err ? -1 : 0, e = c->err;

	if (!rc && fsync(c->pfsfd) < 0) {
		rc = -1;
		e = errno;
	}
	tfs_fd_close(c->pfsfd);
	free(c->tmp);
	if (!rc && c->end) {
		struct tfs_buf b;
		struct tfs_rd rd;
		void *mem;

		tfs_buf_init(&b);
		tfs_buf_u64(&b, f->fid);
		tfs_buf_u64(&b, c->end);
		if (call(TFS_MSG_EOF, &b, &mem, &rd) < 0) {
			rc = -1;
			e = errno;
		} else {
			uint64_t eof = tfs_rd_u64(&rd);

			if (eof > f->eof)
				f->eof = eof;
			free(mem);
		}
		tfs_buf_release(&b);
	}
	if (rc)
		errno = e;
	return rc;
}

int tfs_flush(tfs_file_t *file)
{
	struct lfile *f;
	struct copy c;
	int rc;

	if (!live(file)) {
		errno = EBADF;
		return -1;
	}
	f = file->f;
	pthread_mutex_lock(&f->lock);
	if (f->bbfd < 0 || f->tree.count == 0) {
		pthread_mutex_unlock(&f->lock);
		return 0;
	}
	if (copy_begin(f, &c) < 0) {
		pthread_mutex_unlock(&f->lock);
		return -1;
	}
	tfs_itree_each(&f->tree, 0, UINT64_MAX, copy_one, &c);
	rc = copy_end(f, &c);
	pthread_mutex_unlock(&f->lock);
	return rc;
}

/* ---- seek, tell, stat ----------------------------------------------------------- */

/* EOF for @f, raising it to @atleast: the end into *@eof, the pending
 * writers into *@v, *@n. */
static int eof_once(struct lfile *f, uint64_t atleast, uint64_t *eof, struct pw **v,
		    uint32_t *n)
{
	return ask_fid(TFS_MSG_EOF, f, atleast, eof, v, n);
}

/* Ask the server for the end of @f (raising it to @atleast); with no lock.
 * When another client writes @f unattached (posix), it is asked to attach
 * first and the server asked again: a size never misses a write that
 * returned before. */
static int server_eof(struct lfile *f, uint64_t atleast, uint64_t *eof)
{
	struct pw *v, *now = NULL;
	uint32_t n, m = 0;
	int rc;

	if (eof_once(f, atleast, eof, &v, &n) < 0)
		return -1;
	if (n) {
		pw_flush(f, v, n);
		rc = eof_once(f, atleast, eof, &now, &m);
		if (rc == 0)
			rc = pw_check(v, n, now, m);
		free(now);
		if (rc < 0) {
			free(v);
			return -1;
		}
	}
	free(v);
	pthread_mutex_lock(&f->lock);
	if (*eof > f->eof)
		f->eof = *eof;
	/* the server's end, or what this process wrote past it and has not
	 * attached: not the end of every range it holds, which another
	 * process's truncate may have cut since (stat and fstat answered
	 * the old size to the writer) */
	f->qeof = *eof;
	*eof = synced_eof(f, -1);
	pthread_mutex_unlock(&f->lock);
	return 0;
}

ssize_t tfs_seek(tfs_file_t *tf, size_t offset, int whence)
{
	uint64_t base, pos;

	if (!live(tf)) {
		errno = EBADF;
		return -1;
	}
	switch (whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = tf->pos;
		break;
	case SEEK_END:
		if (server_eof(tf->f, 0, &base) < 0)
			return -1;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	pos = base + (uint64_t)offset;
	if ((int64_t)pos < 0) {
		errno = EINVAL;
		return -1;
	}
	tf->pos = pos;
	return (ssize_t)pos;
}

ssize_t tfs_tell(tfs_file_t *file)
{
	if (!live(file)) {
		errno = EBADF;
		return -1;
	}
	return (ssize_t)file->pos;
}

/* A stat of @f, @size long: the backing file's mode, owners and times when
 * it has one (what stage-out will keep), else the mode this process's open
 * gave, the creator's ids (the server's; this process's when it knows
 * none) and the time now (the file is being written). */
static void fill_stat(struct stat *st, const struct lfile *f, uint64_t size)
{
	struct stat pst;
	char p[PATH_MAX];
	int have = lfile_pfs(f, p, sizeof(p)) == 0 && stat(p, &pst) == 0;

	memset(st, 0, sizeof(*st));
	st->st_dev = 0x7f5;	/* "TFS" */
	st->st_ino = f->fid;
	st->st_mode = S_IFREG | (have ? pst.st_mode & 07777 : f->mode ? f->mode & 07777 : 0644);
	if (have) {
		st->st_atim = pst.st_atim;
		st->st_mtim = pst.st_mtim;
		st->st_ctim = pst.st_ctim;
	} else {
		clock_gettime(CLOCK_REALTIME, &st->st_mtim);
		st->st_atim = st->st_ctim = st->st_mtim;
	}
	st->st_nlink = 1;
	if (have) {
		st->st_uid = pst.st_uid;
		st->st_gid = pst.st_gid;
	} else {
		st->st_uid = f->uid != UINT32_MAX ? f->uid : geteuid();
		st->st_gid = f->gid != UINT32_MAX ? f->gid : getegid();
	}
	st->st_size = (off_t)size;
	st->st_blksize = 1 << 20;
	st->st_blocks = (blkcnt_t)((size + 511) / 512);
}

int tfs_stat(tfs_file_t *file, struct stat *buf)
{
	uint64_t eof;

	if (!live(file) || !buf) {
		errno = live(file) ? EFAULT : EBADF;
		return -1;
	}
	if (server_eof(file->f, 0, &eof) < 0)
		return -1;
	fill_stat(buf, file->f, eof);
	return 0;
}

int tfs_stat_path(const char *pathname, struct stat *buf)
{
	tfs_file_t *h = tfs_open_flags(pathname, 0);
	int rc;

	if (!h)
		return -1;
	rc = tfs_stat(h, buf);
	tfs_close(h);
	return rc;
}

/* ---- appends -------------------------------------------------------------------- */

/*
 * An O_APPEND write under the posix model (sync design): APPEND has the
 * server find the end of file and move it past the @size bytes in one
 * step (do_append, tfs-server.c), so no other append or write gets in
 * between; the bytes go there and are attached at once.
 * The candidate end sent is the end of what this process wrote as a
 * pending writer and has not attached (f->dend), which the server's end
 * does not cover yet.  Not f->eof or the local tree's end, which only
 * grow: after another process's truncate an append lands at the new end,
 * as on a local disk, not past a hole of zeros.
 * Where other pending writers may have written past the end, they flush
 * first and the server is asked again, as by a pending write
 * (PENDING_TRIES, pw_check).  f->lock is held from the reservation to
 * the attach: the server lists this process as a pending writer of the
 * bytes reserved meanwhile, and a flush asked for then (PEER_FLUSH) waits
 * for the attach, so that whoever asked finds the bytes there.
 * Returns @size with its offset in *@off, or -1.
 */
ssize_t tfsi_append(tfs_file_t *file, const void *buf, size_t size, uint64_t *off)
{
	struct pw *was = NULL;
	struct lfile *f;
	uint32_t nwas = 0;
	uint64_t at = 0;
	int rc, tries = 0;

	if ((rc = write_ok(file, size, 0)) <= 0)
		return rc;
	f = file->f;
	pthread_mutex_lock(&f->lock);
	for (;;) {
		struct tfs_buf b;
		struct tfs_rd rd;
		struct pw *pv = NULL;
		uint32_t n = 0;
		void *mem;

		tfs_buf_init(&b);
		tfs_buf_u64(&b, f->fid);
		tfs_buf_u64(&b, f->pend ? f->dend : 0);
		tfs_buf_u64(&b, size);
		rc = call(TFS_MSG_APPEND, &b, &mem, &rd);
		tfs_buf_release(&b);
		if (rc < 0)
			break;
		at = tfs_rd_u64(&rd);
		rc = pw_parse(&rd, &pv, &n);
		free(mem);
		if (rc < 0 || n == 0)
			break;
		/* others may have written past the end unattached: they flush
		 * first */
		if ((rc = pw_retry(f, &was, &nwas, pv, n, &tries)) < 0)
			break;
	}
	if (rc == 0) {
		/* listed pending now, as the attach's ATTACH_CLEAN expects; it
		 * attaches what else is unattached, too */
		f->pend = 1;
		f->pend_ms = tfsi_now_ms();
		if (at + size > f->eof)
			f->eof = at + size;
		if ((rc = bb_write(f, buf, size, at, ST_DIRTY)) == 0) {
			if (at + size > f->dend)
				f->dend = at + size;
			rc = attach_locked(f, 0, UINT64_MAX, ATTACH_PENDING);
		}
	}
	pthread_mutex_unlock(&f->lock);
	free(was);
	if (rc < 0)
		return -1;
	*off = at;
	return (ssize_t)size;
}

/*
 * The write of an append in the lock design (tfsi_lock_append, lock.c),
 * under f->lock.  Once @held says the caller still holds its write lock
 * from @from to the end of the file, the end is the furthest of the
 * server's (EOF), the backing file's size and this process's own writes,
 * asked now: the bytes go there if it is @from or past.  Not f->eof,
 * which only grows (see tfsi_append).  Returns @size with its offset in
 * *@off; -1 with errno EAGAIN when the lock is gone (*@off @from) or the
 * end lies before @from (*@off the end), for the caller to lock again;
 * or -1 with another errno.
 */
ssize_t tfsi_pwrite_end(tfs_file_t *file, const void *buf, size_t size, uint64_t from,
			int (*held)(void *arg), void *arg, uint64_t *off)
{
	struct lfile *f;
	struct pw *v = NULL;
	char p[PATH_MAX];
	struct stat st;
	uint64_t end;
	uint32_t n;
	int rc;

	if ((rc = write_ok(file, size, 0)) <= 0)
		return rc;
	f = file->f;
	pthread_mutex_lock(&f->lock);
	if (!held(arg)) {
		*off = from;
		errno = EAGAIN;
		rc = -1;
	} else if ((rc = eof_once(f, 0, &end, &v, &n)) == 0) {
		free(v);	/* (no pending writers in this design) */
		if (end > f->eof)
			f->eof = end;
		if (tfs_itree_end(&f->tree) > end)
			end = tfs_itree_end(&f->tree);
		if (lfile_pfs(f, p, sizeof(p)) == 0 && stat(p, &st) == 0 &&
		    (uint64_t)st.st_size > end)
			end = (uint64_t)st.st_size;
		*off = end;
		if (end < from) {
			errno = EAGAIN;
			rc = -1;
		} else if (end > UINT64_MAX - size) {
			errno = EFBIG;
			rc = -1;
		} else {
			rc = bb_write(f, buf, size, end, ST_DIRTY);
		}
	}
	pthread_mutex_unlock(&f->lock);
	return rc < 0 ? -1 : (ssize_t)size;
}

uint64_t tfsi_end_heard(struct tfs_file *file)
{
	struct lfile *f = file->f;
	uint64_t e;

	pthread_mutex_lock(&f->lock);
	e = f->eof > tfs_itree_end(&f->tree) ? f->eof : tfs_itree_end(&f->tree);
	pthread_mutex_unlock(&f->lock);
	return e;
}

/* ---- attach, detach, query ------------------------------------------------------ */

static int collect_unattached(const struct tfs_iv *iv, void *arg)
{
	return iv->state == ST_ATTACHED ? 0 : tfsi_itree_collect(iv, arg);
}

static int collect_dirty(const struct tfs_iv *iv, void *arg)
{
	return iv->state == ST_DIRTY ? tfsi_itree_collect(iv, arg) : 0;
}

/*
 * Attach what is unattached in [off, end) of @f; with f->lock held.  With
 * @clean (the whole file) and this process a pending writer of it, as
 * ATTACH_CLEAN: the attach and the end of the pending mark in one request,
 * one step at the server.  With @clean ATTACH_PENDING, only what was
 * written and never attached: a close, a peer's flush or a stage-out ends
 * the pending mark but does not undo a detach.  Returns 0 or -1.
 */
static int attach_locked(struct lfile *f, uint64_t off, uint64_t end, int clean)
{
	struct tfs_ivec p = { 0 };
	struct tfs_buf b;
	struct tfs_rd rd;
	uint32_t nr = 0;
	size_t i, at;
	void *mem;
	int rc = 0;

	tfs_itree_each(&f->tree, off, end,
		       clean == ATTACH_PENDING ? collect_dirty : collect_unattached, &p);
	clean = clean && f->pend;
	if (p.failed) {
		free(p.v);
		errno = ENOMEM;
		return -1;
	}
	if (!p.n && !clean)
		goto out;
	tfs_buf_init(&b);
	tfs_buf_u64(&b, f->fid);
	at = b.len;
	tfs_buf_u32(&b, 0);
	for (i = 0; i < p.n; i++) {
		uint64_t s = p.v[i].start, e = p.v[i].end;

		/* contiguous pieces (different places in the buffer) go as one */
		while (i + 1 < p.n && p.v[i + 1].start == e)
			e = p.v[++i].end;
		tfs_buf_u64(&b, s);
		tfs_buf_u64(&b, e - s);
		nr++;
	}
	if (!tfs_buf_failed(&b))
		for (i = 0; i < 4; i++)
			b.p[at + i] = (unsigned char)(nr >> (8 * i));
	if (call(clean ? TFS_MSG_ATTACH_CLEAN : TFS_MSG_ATTACH, &b, &mem, &rd) < 0) {
		rc = -1;
	} else {
		uint64_t eof = tfs_rd_u64(&rd);

		free(mem);
		if (eof > f->eof)
			f->eof = eof;
		if (clean) {
			f->pend = 0;
			f->gs = f->ge = f->dend = 0;
		}
		f->attaches++;
		for (i = 0; i < p.n; i++) {
			p.v[i].state = ST_ATTACHED;
			if (tfs_itree_assign(&f->tree, &p.v[i]) < 0)
				rc = -1;
		}
		note_journal(f, p.v, p.n);
	}
	tfs_buf_release(&b);
out:
	free(p.v);
	return rc;
}

static int attach_range(struct lfile *f, uint64_t off, uint64_t end, int clean)
{
	int rc;

	pthread_mutex_lock(&f->lock);
	rc = attach_locked(f, off, end, clean);
	pthread_mutex_unlock(&f->lock);
	return rc;
}

int tfs_attach(tfs_file_t *file, size_t offset, size_t size)
{
	if (!live(file)) {
		errno = EBADF;
		return -1;
	}
	if (offset > UINT64_MAX - size) {
		errno = EINVAL;
		return -1;
	}
	return attach_range(file->f, offset, offset + size, 0);
}

int tfs_attach_file(tfs_file_t *file)
{
	if (!live(file)) {
		errno = EBADF;
		return -1;
	}
	return attach_range(file->f, 0, UINT64_MAX, ATTACH_CLEAN_ALL);
}

/* The attached pieces, as detached ones. */
static int collect_attached(const struct tfs_iv *iv, void *arg)
{
	struct tfs_iv d = *iv;

	if (iv->state != ST_ATTACHED)
		return 0;
	d.state = ST_DETACHED;
	return tfsi_itree_collect(&d, arg);
}

/* Mark this process's attached pieces of [off, end) detached; f->lock held. */
static void mark_detached(struct lfile *f, uint64_t off, uint64_t end)
{
	struct tfs_ivec p = { 0 };

	tfs_itree_each(&f->tree, off, end, collect_attached, &p);
	for (size_t i = 0; i < p.n; i++)
		tfs_itree_assign(&f->tree, &p.v[i]);
	free(p.v);
}

static int detach_range(struct lfile *f, uint64_t off, uint64_t end, int whole)
{
	struct tfs_buf b;
	int rc;

	tfs_buf_init(&b);
	tfs_buf_u64(&b, f->fid);
	if (whole) {
		tfs_buf_u32(&b, 0);
	} else {
		tfs_buf_u32(&b, 1);
		tfs_buf_u64(&b, off);
		tfs_buf_u64(&b, end - off);
	}
	pthread_mutex_lock(&f->lock);
	rc = call(TFS_MSG_DETACH, &b, NULL, NULL);
	if (rc == 0)
		mark_detached(f, off, end);
	pthread_mutex_unlock(&f->lock);
	tfs_buf_release(&b);
	return rc;
}

int tfs_detach(tfs_file_t *file, size_t offset, size_t size)
{
	if (!live(file)) {
		errno = EBADF;
		return -1;
	}
	if (offset > UINT64_MAX - size) {
		errno = EINVAL;
		return -1;
	}
	if (!size)
		return 0;
	return detach_range(file->f, offset, offset + size, 0);
}

int tfs_detach_file(tfs_file_t *file)
{
	if (!live(file)) {
		errno = EBADF;
		return -1;
	}
	return detach_range(file->f, 0, UINT64_MAX, 1);
}

int tfs_detach_client(void)
{
	struct lfile *f;

	if (tfs_init() < 0 || call(TFS_MSG_DETACH_CLIENT, NULL, NULL, NULL) < 0)
		return -1;
	pthread_mutex_lock(&C.lock);
	for (f = C.files; f; f = f->next) {
		pthread_mutex_lock(&f->lock);
		mark_detached(f, 0, UINT64_MAX);
		pthread_mutex_unlock(&f->lock);
	}
	pthread_mutex_unlock(&C.lock);
	return 0;
}

/* QUERY for [off, off+len) (mine only when @mine); the intervals into
 * *@owners, the end of file into f->eof, the pending writers into *@pv,
 * *@np.  Returns 0 or -1. */
static int query_once(struct lfile *f, uint64_t off, uint64_t len, int mine,
		      tfs_interval_t **owners, int *num, struct pw **pv, uint32_t *np,
		      uint32_t *lease)
{
	struct tfs_buf b;
	struct tfs_rd rd;
	tfs_interval_t *v = NULL;
	uint64_t eof, *oid = NULL;
	uint32_t n, no;
	void *mem;

	*owners = NULL;
	*num = 0;
	*pv = NULL;
	*np = 0;
	tfs_buf_init(&b);
	tfs_buf_u64(&b, f->fid);
	tfs_buf_u64(&b, off);
	tfs_buf_u64(&b, len);
	tfs_buf_u32(&b, (mine ? TFS_QUERY_MINE : 0) | (lease ? TFS_QUERY_KEEP : 0));
	if (call(TFS_MSG_QUERY, &b, &mem, &rd) < 0) {
		tfs_buf_release(&b);
		return -1;
	}
	tfs_buf_release(&b);
	eof = tfs_rd_u64(&rd);
	n = tfs_rd_u32(&rd);
	if (rd.bad || n > (rd.len - rd.pos) / 24)
		goto bad;
	if (n && (!(v = calloc(n, sizeof(*v))) || !(oid = calloc(n, sizeof(*oid))))) {
		free(v);
		free(mem);
		errno = ENOMEM;
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		v[i].offset = tfs_rd_u64(&rd);
		v[i].size = tfs_rd_u64(&rd);
		oid[i] = tfs_rd_u64(&rd);
	}
	no = tfs_rd_u32(&rd);
	for (uint32_t k = 0; k < no && !rd.bad; k++) {
		tfs_addr_t a;

		memset(&a, 0, sizeof(a));
		a.client = tfs_rd_u64(&rd);
		a.node = tfs_rd_u32(&rd);
		a.pid = tfs_rd_u32(&rd);
		tfs_rd_str(&rd, a.addr, sizeof(a.addr));
		for (uint32_t i = 0; i < n; i++)
			if (oid[i] == a.client)
				v[i].owner = a;
	}
	if (pw_parse(&rd, pv, np) < 0)
		goto bad;
	if (lease)
		*lease = tfs_rd_u32(&rd);
	if (!tfs_rd_done(&rd) || (lease && *lease > TFS_LEASE_MS)) {
		free(*pv);
		goto bad;
	}
	for (uint32_t i = 0; i < n; i++)
		if (!v[i].owner.client) {
			free(*pv);
			goto bad;
		}
	free(oid);
	free(mem);
	pthread_mutex_lock(&f->lock);
	if (eof > f->eof)
		f->eof = eof;
	f->qeof = eof;
	pthread_mutex_unlock(&f->lock);
	*owners = v;
	*num = (int)n;
	return 0;
bad:
	free(v);
	free(oid);
	free(mem);
	errno = EPROTO;
	return -1;
}

/*
 * query_once(); when other clients write the file unattached (pending
 * writers, posix), each is asked to attach and the server asked again,
 * so the owners cover every write that returned before this call.  A
 * writer that could not flush and is still pending: -1 with EIO.
 */
static int query(struct lfile *f, uint64_t off, uint64_t len, int mine, tfs_interval_t **owners,
		 int *num, uint32_t *lease)
{
	struct pw *v, *now = NULL;
	uint32_t n, m = 0;
	int rc;

	if (query_once(f, off, len, mine, owners, num, &v, &n, lease) < 0)
		return -1;
	if (mine || !n) {
		free(v);
		return 0;
	}
	free(*owners);
	pw_flush(f, v, n);
	rc = query_once(f, off, len, mine, owners, num, &now, &m, lease);
	if (rc == 0 && (rc = pw_check(v, n, now, m)) < 0) {
		free(*owners);
		*owners = NULL;
		*num = 0;
	}
	free(v);
	free(now);
	return rc;
}

int tfs_query(tfs_file_t *file, size_t offset, size_t size, tfs_interval_t **owners,
	      int *num_owners)
{
	if (!live(file) || !owners || !num_owners) {
		errno = live(file) ? EFAULT : EBADF;
		return -1;
	}
	return query(file->f, offset, size, 0, owners, num_owners, NULL);
}

int tfs_query_file(tfs_file_t *file, tfs_interval_t **owners, int *num_owners)
{
	if (!live(file) || !owners || !num_owners) {
		errno = live(file) ? EFAULT : EBADF;
		return -1;
	}
	return query(file->f, 0, UINT64_MAX, 0, owners, num_owners, NULL);
}

/* ---- the synchronised read ------------------------------------------------------ */

struct span {
	uint64_t start, end;
	tfs_addr_t *owner;
};

struct plan {
	struct span *v;
	size_t n, cap;
	uint64_t at, end;
	tfs_addr_t *owner;
	int failed;
};

static void plan_add(struct plan *p, uint64_t s, uint64_t e)
{
	if (e <= s)
		return;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		struct span *v = realloc(p->v, cap * sizeof(*v));

		if (!v) {
			p->failed = 1;
			return;
		}
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n].start = s;
	p->v[p->n].end = e;
	p->v[p->n].owner = p->owner;
	p->n++;
}

/* A remote interval minus this process's dirty writes. */
static int plan_dirty(const struct tfs_iv *iv, void *arg)
{
	struct plan *p = arg;

	if (iv->state != ST_DIRTY)
		return 0;
	plan_add(p, p->at, iv->start);
	p->at = iv->end;
	return 0;
}

/* The PEER_READ requests of spans [i, end) of a chain, in flight together
 * (as pw_chain()): each span into its place in buf, ok[] saying which
 * came whole. */
struct rdchain {
	uint64_t fid, offset;
	char *buf;
	struct span *v;		/* of spans at to end: */
	struct tfs_ep **ep;
	int *ok;
	uint32_t at, i, end;
};

static void rd_chain(void *arg)
{
	struct rdchain *c = arg;
	uint32_t i = c->i++, k;
	unsigned char req[24];
	struct iovec v = { req, sizeof(req) };
	struct span *s;
	size_t len, rlen = 0;
	int rc;

	if (i >= c->end)
		return;
	s = &c->v[i];
	len = (size_t)(s->end - s->start);
	for (k = 0; k < 8; k++) {
		req[k] = (unsigned char)(c->fid >> (8 * k));
		req[8 + k] = (unsigned char)(s->start >> (8 * k));
		req[16 + k] = (unsigned char)((uint64_t)len >> (8 * k));
	}
	rc = tfs_ep_call_while(c->ep[i - c->at], TFS_MSG_PEER_READ, &v, 1,
			       c->buf + (s->start - c->offset), len, NULL, &rlen, C.timeout_ms,
			       rd_chain, c);
	c->ok[i - c->at] = rc == 0 && rlen == len;
	if (c->i == i + 1)	/* not sent: the others were not asked yet */
		rd_chain(c);
}

static int span_by_owner(const void *a, const void *b)
{
	uint64_t x = ((const struct span *)a)->owner->client;
	uint64_t y = ((const struct span *)b)->owner->client;

	return (x > y) - (x < y);
}

/*
 * Read the spans @v[0..n) of @f from their owners into @buf (which holds
 * the file from @offset): up to PW_CHAIN spans of different owners at a
 * time in flight, in the order of the owners' ids (as pw_flush(), so two
 * threads never wait for each other's endpoints); a span longer than a
 * peer read asks for, or whose owner cannot be reached, one by one.  The
 * spans that do not come whole are counted in *@failed: the caller asks
 * the server again (tfs_pread_synced).
 */
static void read_spans(tfs_file_t *file, struct span *v, size_t n, char *buf, uint64_t offset,
		       int *failed)
{
	struct tfs_ep *ep[PW_CHAIN];
	int ok[PW_CHAIN];
	struct rdchain c = { .fid = file->f->fid, .offset = offset, .buf = buf, .v = v,
			     .ep = ep, .ok = ok };
	size_t at = 0, end;

	while (at < n) {
		/* spans of different endpoints, each at most a peer read */
		for (end = at; end < n && end - at < PW_CHAIN; end++) {
			struct tfs_ep *e;
			size_t k = 0;

			if (v[end].end - v[end].start > TFS_CHUNK || !(e = peer_ep(v[end].owner->addr)))
				break;
			while (k < end - at && ep[k] != e)
				k++;
			if (k < end - at)
				break;
			ep[end - at] = e;
		}
		if (end - at > 1) {
			/* in the order of the owners' ids, their endpoints too */
			struct tfs_ep *byid[PW_CHAIN];
			struct span tmp[PW_CHAIN];

			for (size_t k = 0; k < end - at; k++)
				tmp[k] = v[at + k];
			qsort(tmp, end - at, sizeof(*tmp), span_by_owner);
			for (size_t k = 0; k < end - at; k++)
				for (size_t q = 0; q < end - at; q++)
					if (v[at + q].owner == tmp[k].owner && v[at + q].start == tmp[k].start)
						byid[k] = ep[q];
			memcpy(v + at, tmp, (end - at) * sizeof(*tmp));
			memcpy(ep, byid, (end - at) * sizeof(*ep));
		}
		if (end > at) {
			c.at = c.i = (uint32_t)at;
			c.end = (uint32_t)end;
			rd_chain(&c);
		} else {	/* one span, alone */
			end = at + 1;
			ok[0] = tfs_read_peer(file, v[at].owner, v[at].start,
					      (size_t)(v[at].end - v[at].start),
					      buf + (v[at].start - offset)) ==
				(ssize_t)(v[at].end - v[at].start);
		}
		for (size_t k = at; k < end; k++)
			if (!ok[k - at])
				(*failed)++;
		at = end;
	}
}

static int dirty_end_of(const struct tfs_iv *iv, void *arg)
{
	if (iv->state == ST_DIRTY && iv->end > *(uint64_t *)arg)
		*(uint64_t *)arg = iv->end;
	return 0;
}

/*
 * The end of file a synced read goes by, with f->lock held, right after
 * the QUERY: what the server answered then (every attached range, and a
 * truncate by any process), or further what this process wrote and has
 * not attached, or the backing file's size.  Not f->eof, which only
 * grows: a read past the end another process truncated to found bytes
 * there (zeros).
 */
static uint64_t synced_eof(struct lfile *f, int pfsfd)
{
	uint64_t e = f->qeof, s = pfs_size(f, pfsfd);

	/* only what lies past the server's end can move it */
	tfs_itree_each(&f->tree, f->qeof, UINT64_MAX, dirty_end_of, &e);
	return s > e ? s : e;
}

static int iv_by_offset(const void *a, const void *b)
{
	uint64_t x = ((const tfs_interval_t *)a)->offset, y = ((const tfs_interval_t *)b)->offset;

	return (x > y) - (x < y);
}

/* The intervals of @file's session map (in offset order, disjoint)
 * overlapping [@offset, @offset + @size), clipped to it, copied into
 * *@own (the map may be replaced once f->lock is let go), their number
 * into *@nown.  With f->lock held.  Returns 0 or -1. */
static int snap_pick(struct tfs_file *file, uint64_t offset, size_t size, tfs_interval_t **own,
		     int *nown)
{
	int lo = 0, hi = file->nsnap, k;

	*own = NULL;
	*nown = 0;
	/* the first that ends past @offset: a read costs O(log n), not n */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (file->snap[mid].offset + file->snap[mid].size <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < file->nsnap && file->snap[k].offset < offset + size; k++)
		;
	if (k == lo)
		return 0;
	if (!(*own = malloc((size_t)(k - lo) * sizeof(**own)))) {
		errno = ENOMEM;
		return -1;
	}
	for (int i = lo; i < k; i++) {
		tfs_interval_t v = file->snap[i];
		uint64_t s = v.offset, e = v.offset + v.size;

		/* clipped, as the server clips a QUERY's answer */
		v.offset = s > offset ? s : offset;
		v.size = (e < offset + size ? e : offset + size) - v.offset;
		(*own)[(*nown)++] = v;
	}
	return 0;
}

/* A delegated map of more owners than this that another process's change
 * drops before any read used it is not asked for again for a lease's
 * time (read_synced()). */
#define KEEP_OWNERS 64

/*
 * One try of tfs_pread_synced(): the spans whose owner did not deliver
 * counted in *@failed (their bytes in @buf are not to be used); @fresh:
 * the server is asked even where a session map is kept.
 *
 * A TFS_O_SESSION handle asks the server once, for the whole file, and
 * keeps the answer (the owners, the end) for its later reads: the
 * session model owes a reader only what was closed before its open, and
 * one QUERY per read cost 30 times a small read of the burst buffer.
 * What this process writes, attaches, detaches or truncates after that
 * QUERY is not in the map (its tree changed since: a range the map gives
 * another owner may be newer here), so from then on the handle asks for
 * each read's range, as commit does; a read whose owner did not deliver
 * (@fresh: it may have staged out), or that meets the map's end, asks
 * again.  Any other handle (posix, commit) does the same while the
 * server holds its delegation of the file: the QUERY asks to keep the
 * answer (TFS_QUERY_KEEP) and the server, which grants it only while no
 * other process writes the file unattached, tells this process to drop
 * it (DROP, drops_gen()) before it answers a change another process
 * makes, or waits for the lease to end; refused, the handle asks for
 * each read's range for a lease's time.
 */
static ssize_t read_synced(tfs_file_t *file, void *buf, size_t size, size_t offset, int fresh,
			   int *failed)
{
	tfs_interval_t *own = NULL;
	struct plan p = { 0 };
	struct lfile *f;
	uint64_t eof, pend, changes;
	unsigned attaches;
	unsigned long g0 = 0;
	long long t0 = 0;
	uint32_t lease = 0;
	size_t n;
	int nown, pfsfd, kept, session;

	f = file->f;
again:
	own = NULL;
	nown = 0;
	kept = 0;
	/*
	 * The owners are asked with no lock held.  Should this process attach
	 * meanwhile (a flush another client asked for), the answer may give
	 * another owner a range whose newer bytes are this process's, no
	 * longer dirty here: so the owners are asked again then.
	 */
	for (;;) {
		unsigned seen;

		pthread_mutex_lock(&f->lock);
		read_sync(file);
		if ((file->session || file->keep) && file->mapped &&
		    file->snap_changes != f->tree.changes) {
			/* this process wrote the file since its map: a map of
			 * the whole file at each read after a write costs O(its
			 * owners) per read, so a range QUERY per read from now */
			file->session = 0;
			file->keep = 0;
			file->snapped = 0;
		}
		t0 = file->keep ? tfsi_now_ms() : 0;
		if (file->keep && file->snapped && file->nsnap > KEEP_OWNERS && !file->kept_reads &&
		    drops_gen(f->fid) != file->dgen) {
			/* dropped before any read used it: others change the
			 * file between this process's reads, and a map of many
			 * owners at each read costs O(owners) per read */
			file->snapped = 0;
			file->keep_after = t0 + TFS_LEASE_MS;
		}
		session = size && (file->session || (file->keep && t0 >= file->keep_after));
		/* a read that meets the map's end asks again: the file may
		 * have grown since (tail -f, or a size fstat just gave); a
		 * delegated map is read by while the server did not say drop
		 * it and its lease lasts */
		if (session && file->snapped && !fresh &&
		    file->snap_changes == f->tree.changes &&
		    (file->session ||
		     (t0 < file->lease_until && drops_gen(f->fid) == file->dgen)) &&
		    size <= file->snap_eof && offset <= file->snap_eof - size) {
			if (snap_pick(file, offset, size, &own, &nown) < 0) {
				pthread_mutex_unlock(&f->lock);
				return -1;
			}
			file->kept_reads++;
			kept = 1;
			break;
		}
		seen = f->attaches;
		changes = f->tree.changes;
		/* (a DROP counted from here on is one this QUERY may predate;
		 * the lease counts from before it went, as the server's does
		 * from after it came) */
		g0 = drops_gen(f->fid);
		lease = 0;
		pthread_mutex_unlock(&f->lock);
		if (session && query(f, 0, UINT64_MAX, 0, &own, &nown,
				     file->session ? NULL : &lease) < 0) {
			if (errno != EOVERFLOW)
				return -1;
			/* more owners than one reply holds: a QUERY per read */
			pthread_mutex_lock(&f->lock);
			file->session = file->keep = session = 0;
			pthread_mutex_unlock(&f->lock);
		}
		if (size && !session && query(f, offset, size, 0, &own, &nown, NULL) < 0)
			return -1;
		pthread_mutex_lock(&f->lock);
		if (f->attaches == seen && (!session || f->tree.changes == changes))
			break;
		pthread_mutex_unlock(&f->lock);
		free(own);
		own = NULL;
		nown = 0;
	}
	attaches = f->attaches;
	changes = f->tree.changes;
	if ((pfsfd = read_pfs(file)) == -2) {
		pthread_mutex_unlock(&f->lock);
		free(own);
		return -1;
	}
	if ((kept && !file->snapped) || f->attaches != attaches || f->tree.changes != changes) {
		/* changed while read_pfs() let f->lock go */
		pthread_mutex_unlock(&f->lock);
		free(own);
		goto again;
	}
	if (kept) {
		eof = file->snap_eof;
	} else {
		eof = size ? synced_eof(f, pfsfd) : known_eof(f, pfsfd);
		if (session) {
			tfs_interval_t *all = own;

			qsort(all, (size_t)nown, sizeof(*all), iv_by_offset);
			free(file->snap);
			file->snap = all;
			file->nsnap = nown;
			file->snap_eof = eof;
			file->snap_pfs = pfs_size(f, pfsfd);
			file->snap_changes = f->tree.changes;
			file->snapped = 1;
			file->mapped = 1;
			file->kept_reads = 0;
			if (!file->session && lease && drops_gen(f->fid) == g0) {
				file->dgen = g0;
				/* (2 ms for the two clocks' rounding) */
				file->lease_until = t0 + lease - 2;
			} else if (!file->session) {
				/* no delegation (another process writes it
				 * unattached, or a DROP came meanwhile): this
				 * read's alone; refused, range QUERYs for a
				 * lease's time, as a map is not to be had */
				file->snapped = 0;
				if (!lease)
					file->keep_after = t0 + TFS_LEASE_MS;
			}
			if (snap_pick(file, offset, size, &own, &nown) < 0) {
				pthread_mutex_unlock(&f->lock);
				return -1;
			}
		}
	}
	n = offset >= eof ? 0 : (eof - offset < size ? (size_t)(eof - offset) : size);
	if (!kept && !session)
		qsort(own, (size_t)nown, sizeof(*own), iv_by_offset);
	if (n && fill_local(f, pfsfd, buf, offset, n, &pend, 1, own, nown) < 0) {
		pthread_mutex_unlock(&f->lock);
		free(own);
		return -1;
	}
	if (n && kept && pend < file->snap_pfs) {
		/* the backing file is shorter than when the map was taken:
		 * another process truncated the file, and what the map says
		 * lies past its end it does not hold (its zeros were never
		 * written there) */
		file->snapped = 0;
		pthread_mutex_unlock(&f->lock);
		free(own);
		goto again;
	}
	for (int i = 0; i < nown && n; i++) {
		uint64_t s = own[i].offset, e = s + own[i].size;

		if (own[i].owner.client == C.id)
			continue;
		if (e > offset + n)
			e = offset + n;
		if (s >= e)
			continue;
		p.at = s;
		p.owner = &own[i].owner;
		tfs_itree_each(&f->tree, s, e, plan_dirty, &p);
		plan_add(&p, p.at, e);
	}
	pthread_mutex_unlock(&f->lock);
	if (p.failed) {
		free(p.v);
		free(own);
		errno = ENOMEM;
		return -1;
	}
	test_pause("peer");
	read_spans(file, p.v, p.n, buf, offset, failed);
	free(p.v);
	free(own);
	return (ssize_t)n;
}

/* How many times a read asks an owner the server still names, at least. */
#define READ_TRIES 4

ssize_t tfs_pread_synced(tfs_file_t *file, void *buf, size_t size, size_t offset)
{
	long long until;
	ssize_t r;
	int failed;

	if (range_ok(file, size, offset) < 0)
		return -1;
	/*
	 * An owner that could not deliver may be gone: a stage-out, or a
	 * flush, writes the range to the backing file and detaches before the
	 * listener closes; a client that ended has what it attached rescued
	 * to the backing file, then the server drops it.  Or the connection
	 * to it failed for a moment (UCX's connection set-up sometimes does,
	 * with a dozen processes connecting at once).  So the server is asked
	 * again, a little later, and what it still names is asked again; what
	 * it names no longer is read where it is now, the backing file.  The
	 * backing file is never read in place of an owner the server still
	 * names: a live owner that does not answer (stopped, hung, cut off)
	 * holds newer bytes than the backing file, its old ones or none, so
	 * the read fails with EIO once it has been asked READ_TRIES times and
	 * TFS_TIMEOUT has passed.  (Not at the first timeout: over UCX, a
	 * peer's listener may wait a whole TFS_TIMEOUT behind a connection
	 * set-up of its own, and answers the next ask.)
	 */
	until = tfsi_now_ms() + C.timeout_ms;
	for (int t = 1;; t++) {
		failed = 0;
		r = read_synced(file, buf, size, offset, t > 1, &failed);
		if (r < 0 || !failed)
			return r;
		if (t >= READ_TRIES && tfsi_now_ms() >= until) {
			errno = EIO;
			return -1;
		}
		usleep(t < 4 ? 1000u << (2 * t) : 100000u);
	}
}

/* ---- truncate, unlink --------------------------------------------------------- */

int tfs_truncate(tfs_file_t *file, size_t length)
{
	struct lfile *f;
	char p[PATH_MAX];
	struct stat st;
	struct pw *pv;
	uint32_t np;

	if (!live(file)) {
		errno = EBADF;
		return -1;
	}
	f = file->f;
	if (truncate_once(f, length, &pv, &np) < 0 || truncate_settle(f, length, pv, np) < 0)
		return -1;
	pthread_mutex_lock(&f->lock);
	tfs_itree_remove(&f->tree, length, UINT64_MAX, NULL, NULL);
	f->eof = length;
	if (f->dend > length)
		f->dend = length;
	note_forget(f);
	pthread_mutex_unlock(&f->lock);
	if (lfile_pfs(f, p, sizeof(p)) < 0)
		return 0;
	if (stat(p, &st) == 0 && (uint64_t)st.st_size > length)
		return truncate(p, (off_t)length);
	/* a file made longer ends there at stage-out too, where nobody
	 * wrote: stage-out copies only the bytes written */
	if ((stat(p, &st) == 0 && (uint64_t)st.st_size < length) || (errno == ENOENT && length))
		return backing_extend(f, length);
	return 0;
}

int tfs_unlink(const char *pathname)
{
	char path[TFS_MAX_PATH + 1], pp[PATH_MAX];
	struct tfs_buf b;
	struct lfile *f;
	int known, gone;

	if (tfs_init() < 0 || tfs_path_norm(pathname, path, sizeof(path)) < 0 ||
	    pfs_path(path, pp, sizeof(pp)) < 0 || dir_writable(pp) < 0)
		return -1;
	tfs_buf_init(&b);
	tfs_buf_str(&b, path);
	known = call(TFS_MSG_UNLINK, &b, NULL, NULL) == 0;
	tfs_buf_release(&b);
	if (!known && errno != ENOENT)
		return -1;
	gone = unlink(pp) == 0;
	if (!gone && errno != ENOENT)
		return -1;
	pthread_mutex_lock(&C.lock);
	for (f = C.files; f; f = f->next)
		if (!f->gone && strcmp(f->path, path) == 0) {
			pthread_mutex_lock(&f->lock);
			tfs_itree_release(&f->tree);
			f->eof = f->dend = 0;
			f->created = 0;
			f->gone = 1;
			note_forget(f);
			pthread_mutex_unlock(&f->lock);
		}
	pthread_mutex_unlock(&C.lock);
	if (!known && !gone) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

int tfs_chmod(const char *pathname, unsigned mode)
{
	char path[TFS_MAX_PATH + 1], pp[PATH_MAX];
	struct tfs_buf b;
	struct lfile *f;
	struct stat st;
	uint32_t flags = 0;
	int rc;

	if (!pathname || (mode & ~07777u)) {
		errno = EINVAL;
		return -1;
	}
	if (tfs_init() < 0 || tfs_path_norm(pathname, path, sizeof(path)) < 0 ||
	    pfs_path(path, pp, sizeof(pp)) < 0)
		return -1;
	/* a backed file's bits are the kernel's to change (and check) */
	if (stat(pp, &st) == 0) {
		if (chmod(pp, mode) < 0)
			return -1;
		flags |= TFS_SETMODE_BACKED;
	} else if (errno != ENOENT) {
		return -1;
	}
	tfs_buf_init(&b);
	tfs_buf_u32(&b, mode);
	tfs_buf_u32(&b, (uint32_t)geteuid());
	tfs_buf_u32(&b, flags);
	tfs_buf_str(&b, path);
	rc = call(TFS_MSG_SETMODE, &b, NULL, NULL);
	tfs_buf_release(&b);
	if (rc < 0 && errno == ENOENT && (flags & TFS_SETMODE_BACKED))
		rc = 0;		/* only the backing directory has it */
	if (rc < 0)
		return -1;
	pthread_mutex_lock(&C.lock);
	for (f = C.files; f; f = f->next)
		if (!f->gone && strcmp(f->path, path) == 0) {
			pthread_mutex_lock(&f->lock);
			f->mode = TFS_MODE_SET | mode;
			pthread_mutex_unlock(&f->lock);
		}
	pthread_mutex_unlock(&C.lock);
	return 0;
}

/* This process's files named @from (or below it, @dir) are named @to now;
 * with C.lock held.  Those named @to before were replaced: forgotten. */
static void rename_local(const char *from, const char *to, int dir)
{
	size_t lf = strlen(from), lt = strlen(to);
	struct lfile *f;

	for (f = C.files; f; f = f->next) {
		pthread_mutex_lock(&f->lock);
		if (dir && strncmp(f->path, from, lf) == 0 && f->path[lf] == '/' &&
		    lt + strlen(f->path + lf) <= TFS_MAX_PATH) {
			memmove(f->path + lt, f->path + lf, strlen(f->path + lf) + 1);
			memcpy(f->path, to, lt);
			note_forget(f);
		} else if (!dir && !f->gone && strcmp(f->path, to) == 0) {
			/* the file the name named is unlinked by the rename */
			tfs_itree_release(&f->tree);
			f->eof = f->dend = 0;
			f->created = 0;
			f->gone = 1;
			note_forget(f);
		} else if (!dir && !f->gone && strcmp(f->path, from) == 0) {
			memcpy(f->path, to, lt + 1);
			note_forget(f);
		}
		pthread_mutex_unlock(&f->lock);
	}
}

int tfs_rename(const char *oldpath, const char *newpath, unsigned flags)
{
	char from[TFS_MAX_PATH + 1], to[TFS_MAX_PATH + 1], po[PATH_MAX], pn[PATH_MAX];
	char parent[PATH_MAX], *slash;
	struct stat so, sn, sp;
	struct tfs_buf b;
	struct tfs_rd rd;
	uint32_t wire = 0;
	uint64_t fid = 0;
	void *mem;
	int ob, nb, rc;

	if (!oldpath || !newpath || (flags & ~TFS_RENAME_NOREPLACE)) {
		errno = EINVAL;
		return -1;
	}
	if (tfs_init() < 0 || tfs_path_norm(oldpath, from, sizeof(from)) < 0 ||
	    tfs_path_norm(newpath, to, sizeof(to)) < 0 || pfs_path(from, po, sizeof(po)) < 0 ||
	    pfs_path(to, pn, sizeof(pn)) < 0)
		return -1;
	if (!from[0] || !to[0]) {
		errno = EBUSY;	/* the mount itself */
		return -1;
	}
	if (dir_writable(po) < 0 || dir_writable(pn) < 0)
		return -1;
	ob = lstat(po, &so) == 0;
	nb = lstat(pn, &sn) == 0;
	/* the new name's directory is the backing directory's */
	memcpy(parent, pn, strlen(pn) + 1);
	if ((slash = strrchr(parent, '/')))
		*slash = '\0';
	if (stat(parent, &sp) < 0)
		return -1;
	if (!S_ISDIR(sp.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	if (flags & TFS_RENAME_NOREPLACE)
		wire |= TFS_RENAME_NOREPLACE;
	if (ob && S_ISDIR(so.st_mode)) {
		/* a directory: the kernel renames (and checks) the backing
		 * directory's, then the server the files below it */
		if (renameat2(AT_FDCWD, po, AT_FDCWD, pn, flags) < 0)
			return -1;
		wire |= TFS_RENAME_DIR;
	} else {
		if (nb && S_ISDIR(sn.st_mode)) {
			errno = EISDIR;
			return -1;
		}
		if (ob)
			wire |= TFS_RENAME_OLD_BACKED;
		if (nb)
			wire |= TFS_RENAME_NEW_BACKED;
	}
	tfs_buf_init(&b);
	tfs_buf_u32(&b, wire);
	tfs_buf_str(&b, from);
	tfs_buf_str(&b, to);
	/* (a stage-out of either file runs: it ends soon) */
	rc = call_waiting(TFS_MSG_RENAME, &b, &mem, &rd);
	tfs_buf_release(&b);
	if (rc < 0)
		return -1;
	fid = tfs_rd_u64(&rd);
	free(mem);
	/* holding the old file's stage mark: no stage-out writes under
	 * either name while the backing directory's entries change */
	rc = 0;
	if (!(wire & TFS_RENAME_DIR)) {
		/* the backing entries as they are now, under the mark: another
		 * process's rename of the file may have moved them since they
		 * were looked at (t -> f while w -> t was under way left the
		 * data under t) */
		ob = lstat(po, &so) == 0;
		nb = lstat(pn, &sn) == 0;
		if (ob && rename(po, pn) < 0)
			rc = -1;
		else if (!ob && nb && unlink(pn) < 0 && errno != ENOENT)
			rc = -1;	/* the replaced file's backing */
	}
	pthread_mutex_lock(&C.lock);
	rename_local(from, to, !!(wire & TFS_RENAME_DIR));
	pthread_mutex_unlock(&C.lock);
	if (fid) {
		int e = errno;

		tfs_buf_init(&b);
		tfs_buf_u64(&b, fid);
		tfs_buf_u32(&b, 0);
		if (call(TFS_MSG_STAGE, &b, NULL, NULL) < 0)
			rc = -1;
		else
			errno = e;
		tfs_buf_release(&b);
	}
	return rc;
}

/* ---- stage-out, finalize ---------------------------------------------------------- */

/* Take (@take) or give back the server's stage mark of @f: while one
 * client holds it no other stages the file out, so of two owners of a
 * range the older never writes its bytes after the newer has (they would
 * land last and stay).  A mark held by another is waited for.  With no
 * lock held.  Returns 0 or -1. */
static int stage_mark(struct lfile *f, int take)
{
	struct tfs_buf b;
	int rc;

	struct tfs_rd rd;
	void *mem = NULL;

	tfs_buf_init(&b);
	tfs_buf_u64(&b, f->fid);
	tfs_buf_u32(&b, take ? 1 : 0);
	rc = call_waiting(TFS_MSG_STAGE, &b, take ? &mem : NULL, &rd);
	tfs_buf_release(&b);
	if (rc == 0 && take) {
		/* the name and mode are the server's now: another client may
		 * have renamed or chmod'ed the file since this one opened it */
		char path[TFS_MAX_PATH + 1];
		uint32_t mode = tfs_rd_u32(&rd), gone = tfs_rd_u32(&rd);

		uint32_t timeset;
		uint64_t t[4];

		tfs_rd_str(&rd, path, sizeof(path));
		timeset = tfs_rd_u32(&rd);
		for (int i = 0; i < 4; i++)
			t[i] = tfs_rd_u64(&rd);
		if (tfs_rd_done(&rd)) {
			pthread_mutex_lock(&f->lock);
			if (!gone && path[0])
				memcpy(f->path, path, strlen(path) + 1);
			if (gone)
				f->gone = 1;
			if (mode)
				f->mode = mode;
			f->timeset = !!timeset;
			f->times[0].tv_sec = (time_t)t[0];
			f->times[0].tv_nsec = (long)t[1];
			f->times[1].tv_sec = (time_t)t[2];
			f->times[1].tv_nsec = (long)t[3];
			pthread_mutex_unlock(&f->lock);
		}
		free(mem);
	}
	return rc;
}

/* Write what this process still owns of @f to the backing file and detach
 * it, holding the file's stage mark; with f->lock held. */
static int stage_file(struct lfile *f)
{
	tfs_interval_t *own = NULL;
	struct copy c;
	int n = 0, rc = 0, e;

	/* what is pending is attached first, as at close */
	if (f->pend && attach_locked(f, 0, UINT64_MAX, ATTACH_PENDING) < 0)
		return -1;
	if (!tfs_itree_each(&f->tree, 0, UINT64_MAX, is_attached, NULL))
		return 0;
	pthread_mutex_unlock(&f->lock);
	if (stage_mark(f, 1) < 0) {
		pthread_mutex_lock(&f->lock);
		return -1;
	}
	rc = query(f, 0, UINT64_MAX, 1, &own, &n, NULL);
	test_pause("stage");
	pthread_mutex_lock(&f->lock);
	/* unlinked: its name is no longer its own (another file may have
	 * it), so nothing is written there */
	if (rc == 0 && n > 0 && !f->gone) {
		if (copy_begin(f, &c) < 0) {
			rc = -1;
		} else {
			for (int i = 0; i < n && !c.err; i++)
				tfs_itree_each(&f->tree, own[i].offset, own[i].offset + own[i].size,
					       copy_one, &c);
			rc = copy_end(f, &c);
		}
		/* the copy made the mtime now: times a utimensat set since
		 * the last write are what the file keeps (SETTIMES); the
		 * data is out whether or not this stager may set them */
		if (rc == 0 && f->timeset) {
			char p[PATH_MAX];

			if (lfile_pfs(f, p, sizeof(p)) == 0)
				utimensat(AT_FDCWD, p, f->times, 0);
		}
	}
	free(own);
	if (rc == 0) {
		struct tfs_buf b;

		tfs_buf_init(&b);
		tfs_buf_u64(&b, f->fid);
		tfs_buf_u32(&b, 0);
		rc = call(TFS_MSG_DETACH, &b, NULL, NULL);
		tfs_buf_release(&b);
		if (rc == 0)
			mark_detached(f, 0, UINT64_MAX);
	}
	e = errno;
	if (stage_mark(f, 0) < 0 && rc == 0)
		rc = -1;
	else
		errno = e;
	return rc;
}

static int stage_all(void)
{
	struct lfile *f;
	int rc = 0, e = 0;

	pthread_mutex_lock(&C.lock);
	for (f = C.files; f; f = f->next) {
		pthread_mutex_lock(&f->lock);
		if (stage_file(f) < 0) {
			rc = -1;
			e = errno;
		}
		pthread_mutex_unlock(&f->lock);
	}
	pthread_mutex_unlock(&C.lock);
	if (rc)
		errno = e;
	return rc;
}

int tfs_finalize(void)
{
	struct tfs_lsn *lsn;
	struct lfile *f;
	struct peer *p;
	int rc, keep = 0, kept = 0;

	pthread_mutex_lock(&C.lock);
	if (!C.ready) {
		pthread_mutex_unlock(&C.lock);
		return 0;
	}
	pthread_mutex_unlock(&C.lock);
	rc = tfsi_lock_finalize();
	if (stage_all() < 0)
		rc = keep = -1;
	/* a lost server: nothing is known to be anyone else's, and writes
	 * whose close could not attach them (session, commit) are not
	 * attached, so none was staged: every buffer is kept (DURABILITY) */
	pthread_mutex_lock(&C.lock);
	if (C.dead)
		keep = -1;
	pthread_mutex_unlock(&C.lock);
	/* The listener goes first, without C.lock: its thread may be serving
	 * the server's own stage-out request (which takes C.lock, and finds
	 * nothing left to do), and closing it waits for that thread. */
	pthread_mutex_lock(&C.lock);
	lsn = C.lsn;
	C.lsn = NULL;
	pthread_mutex_unlock(&C.lock);
	tfs_lsn_close(lsn);
	pthread_mutex_lock(&C.lock);
	C.ready = 0;
	/* the note is whole before the server's connection closes: the
	 * server rescues what the note lists when it sees the close, and a
	 * "file" line read without its "range" lines was staged as empty,
	 * its burst-buffer file removed (--stop exited 0, the data lost) */
	for (f = C.files; f; f = f->next) {
		/* handles still open keep their struct; the buffer goes */
		pthread_mutex_lock(&f->lock);
		if (f->bbfd >= 0) {
			/* what could not be staged out is never deleted: the
			 * note says where it goes, for the server to stage */
			if (keep && !f->gone &&
			    tfs_itree_each(&f->tree, 0, UINT64_MAX, is_dirty_or_any, NULL)) {
				/* the note first: a process killed now (an
				 * MPI_Abort's launcher) has its data in the
				 * page cache, found through the note; the
				 * buffer's fsync can take seconds */
				note_keep(f);
				fsync(f->bbfd);
				kept++;
			} else {
				unlink(f->bbpath);
			}
			tfs_fd_close(f->bbfd);
			f->bbfd = -1;
		}
		tfs_itree_release(&f->tree);
		pthread_mutex_unlock(&f->lock);
	}
	if (C.note[0] && !kept)
		unlink(C.note);
	C.note[0] = '\0';
	if (C.notefd >= 0)
		tfs_fd_close(C.notefd);
	C.notefd = -1;
	tfs_ep_close(C.ep);
	C.ep = NULL;
	for (p = C.peers; p; p = p->next)	/* (another thread's connect) */
		while (p->connecting)
			pthread_cond_wait(&C.peer_cv, &C.lock);
	while ((p = C.peers)) {
		C.peers = p->next;
		tfs_ep_close(p->ep);
		free(p);
	}
	pthread_mutex_unlock(&C.lock);
	return rc;
}

/* ---- for the lock layer (client-int.h) ------------------------------------------ */

int tfsi_call(uint16_t type, const struct tfs_buf *body, void **mem, struct tfs_rd *rd)
{
	return call(type, body, mem, rd);
}

int tfsi_peer_call(const char *addr, uint16_t type, const struct tfs_buf *body, void **mem,
		   struct tfs_rd *rd)
{
	struct tfs_ep *ep;

	if (body && tfs_buf_failed(body)) {
		errno = ENOMEM;
		return -1;
	}
	if (!(ep = peer_ep(addr)))
		return -1;
	return ep_call(ep, type, body, mem, rd, NULL);
}

int tfsi_list(const char *dir, int (*fn)(void *arg, const char *name, uint64_t fid),
	      void *arg)
{
	char name[TFS_MAX_PATH + 1];
	uint64_t from = 0;

	if (tfs_init() < 0)
		return -1;
	do {
		struct tfs_buf b;
		struct tfs_rd rd;
		uint32_t n;
		void *mem;
		int rc;

		tfs_buf_init(&b);
		tfs_buf_u64(&b, from);
		tfs_buf_str(&b, dir);
		rc = call(TFS_MSG_LIST, &b, &mem, &rd);
		tfs_buf_release(&b);
		if (rc < 0)
			return -1;
		from = tfs_rd_u64(&rd);
		n = tfs_rd_u32(&rd);
		for (uint32_t i = 0; i < n && !rd.bad; i++) {
			uint64_t fid = tfs_rd_u64(&rd);

			tfs_rd_str(&rd, name, sizeof(name));
			if (!rd.bad && fn(arg, name, fid) < 0) {
				free(mem);
				return -1;
			}
		}
		rc = tfs_rd_done(&rd);
		free(mem);
		if (!rc) {
			errno = EPROTO;
			return -1;
		}
	} while (from);
	return 0;
}

int tfsi_settimes(const char *pathname, const struct timespec ts[2])
{
	char path[TFS_MAX_PATH + 1];
	uint64_t *fids = NULL;
	size_t n = 0, cap = 0;
	struct tfs_buf b;
	struct lfile *f;
	int rc = 0;

	if (tfs_init() < 0 || tfs_path_norm(pathname, path, sizeof(path)) < 0)
		return -1;
	/* this process's writes came before the times: attached first, so
	 * that no attach of theirs after SETTIMES makes the times stale */
	pthread_mutex_lock(&C.lock);
	for (f = C.files; f; f = f->next) {
		if (f->gone || strcmp(f->path, path) != 0)
			continue;
		if (n == cap) {
			uint64_t *v = realloc(fids, (cap = cap ? 2 * cap : 4) * sizeof(*v));

			if (!v) {
				pthread_mutex_unlock(&C.lock);
				free(fids);
				errno = ENOMEM;
				return -1;
			}
			fids = v;
		}
		fids[n++] = f->fid;
	}
	pthread_mutex_unlock(&C.lock);
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (!(f = lfile_pin(fids[i])))
			continue;
		pthread_mutex_lock(&f->lock);
		rc = attach_locked(f, 0, UINT64_MAX, f->pend ? ATTACH_PENDING : 0);
		pthread_mutex_unlock(&f->lock);
		lfile_unpin(f);
	}
	free(fids);
	if (rc < 0)
		return -1;
	tfs_buf_init(&b);
	tfs_buf_u64(&b, (uint64_t)ts[0].tv_sec);
	tfs_buf_u64(&b, (uint64_t)ts[0].tv_nsec);
	tfs_buf_u64(&b, (uint64_t)ts[1].tv_sec);
	tfs_buf_u64(&b, (uint64_t)ts[1].tv_nsec);
	tfs_buf_str(&b, path);
	rc = call_waiting(TFS_MSG_SETTIMES, &b, NULL, NULL);
	tfs_buf_release(&b);
	if (rc < 0 && errno == ENOENT)
		rc = 0;		/* only the backing directory has it */
	return rc;
}

uint64_t tfsi_id(void)
{
	return C.id;
}

uint32_t tfsi_node(void)
{
	return C.node;
}

const char *tfsi_addr(void)
{
	return C.lsn ? tfs_lsn_addr(C.lsn) : "";
}

void tfsi_on_lost(void (*fn)(int err))
{
	C.on_lost = fn;
}

const char *tfsi_server_file_error(void)
{
	return C.srverr;
}

const char *tfsi_server_hint(int err)
{
	return tfs_ep_hint(C.srvaddr, err);
}

int tfsi_timeout_ms(void)
{
	return C.timeout_ms;
}

int tfsi_live(const struct tfs_file *file)
{
	return live(file);
}

uint64_t tfsi_fid(const struct tfs_file *file)
{
	return file->f->fid;
}

int tfsi_flush_range(uint64_t fid, uint64_t start, uint64_t end)
{
	struct lfile *f = lfile_pin(fid);
	struct copy c;
	int rc = 0, e;

	if (!f)
		return 0;
	pthread_mutex_lock(&f->lock);
	if (f->bbfd >= 0 && tfs_itree_each(&f->tree, start, end, is_dirty_or_any, NULL)) {
		if (copy_begin(f, &c) < 0) {
			rc = -1;
		} else {
			tfs_itree_each(&f->tree, start, end, copy_one, &c);
			rc = copy_end(f, &c);
			if (rc == 0)
				rc = tfs_itree_remove(&f->tree, start, end, NULL, NULL);
		}
	}
	pthread_mutex_unlock(&f->lock);
	e = errno;
	lfile_unpin(f);
	errno = e;
	return rc;
}
