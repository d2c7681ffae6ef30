/*
 * transport.h - how TangramFS processes exchange requests and replies
 * (tfs-protocol(5)), whatever carries them.
 *
 * An endpoint (tfs_ep) is a cached connection from a client to a listener:
 * one is opened per peer and reused for every request, never one per
 * request.  A listener (tfs_lsn) accepts connections and runs its own
 * progress thread, which sleeps in the kernel (epoll) until a frame, a
 * connection or a close arrives: nothing spins.  It checks every frame's
 * header and secret and hands each complete request to the owner's
 * callback; a malformed frame is logged and its connection closed, a
 * request without the secret is logged and refused with EACCES.
 *
 * Backends are chosen by the address prefix: "tcp:HOST:PORT" and
 * "unix:PATH" (sockets, tp_sock.c), "ucx:HOST:PORT" (UCX active messages
 * through a UCP listener, tp_ucx.c, loaded on first use from the plugin
 * libtfs-ucx.so); transport.c dispatches.  Every
 * function is thread-safe; an endpoint carries one request at a time
 * (callers queue on its lock).
 */
#ifndef TFS_TRANSPORT_H
#define TFS_TRANSPORT_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "proto.h"

/*
 * The threads TangramFS starts in a program (progress, lock service, and
 * those UCX starts inside the calls TFS_SIGS_BLOCKED wraps) take none of
 * its signals: a signal the kernel sends the process (SIGCHLD, SIGALRM)
 * would otherwise run the program's handler on our thread, at the same
 * time as its own (a shell's SIGCHLD handler then reaps the child its
 * main thread waits for, and the child's exit status is lost).  A thread
 * inherits the mask of the thread that creates it.
 */
#define TFS_SIGS_BLOCKED(stmt)                                  \
	do {                                                    \
		sigset_t tfs_all_, tfs_old_;                    \
		sigfillset(&tfs_all_);                          \
		pthread_sigmask(SIG_SETMASK, &tfs_all_, &tfs_old_); \
		stmt;                                           \
		pthread_sigmask(SIG_SETMASK, &tfs_old_, NULL);  \
	} while (0)

static inline int tfs_thread_start(pthread_t *t, const pthread_attr_t *a,
				   void *(*fn)(void *), void *arg)
{
	int rc;

	TFS_SIGS_BLOCKED(rc = pthread_create(t, a, fn, arg));
	return rc;
}

struct tfs_ep;
struct tfs_lsn;
struct tfs_conn;

/* A received request.  It belongs to the callback it is handed to, which
 * must end it with tfs_req_reply() exactly once (from any thread). */
struct tfs_req {
	struct tfs_conn *conn;
	struct tfs_hdr hdr;
	void *body;		/* hdr.len bytes */
};

/* Connect to the listener at @addr, sending @secret with every request;
 * give up after @timeout_ms.  Returns the endpoint, or NULL with errno set
 * (EPROTONOSUPPORT for an unknown prefix). */
struct tfs_ep *tfs_ep_connect(const char *addr, const unsigned char *secret, int timeout_ms);

/* What to tell the user beside a connect to @addr that failed with
 * @err: for a refused ucx: address, the transports that reach one
 * (" (...)"), else "".  A static string. */
const char *tfs_ep_hint(const char *addr, int err);

/*
 * Send a request of @type with the body gathered from @iov and wait for its
 * reply, at most @timeout_ms in all.  The reply body goes to @dst when it
 * fits in @dstlen bytes, else into a malloc'd *@rbody (caller frees; NULL
 * when empty); *@rlen gets its length.  @rbody may be NULL when @dst is
 * large enough for any reply.  Returns the reply's status (0 or a positive
 * errno), or -1 with errno set when the request could not be carried
 * (ETIMEDOUT, ECONNRESET, EPIPE...): the endpoint is then broken and every
 * later call fails at once.
 */
int tfs_ep_call(struct tfs_ep *ep, uint16_t type, const struct iovec *iov, int iovcnt,
		void *dst, size_t dstlen, void **rbody, size_t *rlen, int timeout_ms);

/*
 * tfs_ep_call(), with @between(@arg) called once the request has gone and
 * before its reply is read, so that the caller's own work overlaps the
 * round trip (a backend that cannot split a call calls it first).
 * @between must not use @ep.
 */
int tfs_ep_call_while(struct tfs_ep *ep, uint16_t type, const struct iovec *iov, int iovcnt,
		      void *dst, size_t dstlen, void **rbody, size_t *rlen, int timeout_ms,
		      void (*between)(void *), void *arg);

/* The requests this process made with tfs_ep_call*() so far, by message
 * type (TFS_STATS): how many, how many failed, the nanoseconds from
 * sending each to its reply (a call_while's include what ran between). */
#define TFS_STAT_TYPES 64
struct tfs_stat {
	uint64_t calls, failed, ns;
};
void tfs_stats_get(struct tfs_stat out[TFS_STAT_TYPES]);

/* 1 once a call on @ep has failed. */
int tfs_ep_broken(struct tfs_ep *ep);

/* Wait until the other side closes @ep, at most @timeout_ms.  Returns 0
 * when it did, -1 (ETIMEDOUT) otherwise. */
int tfs_ep_wait_closed(struct tfs_ep *ep, int timeout_ms);

/* Close and free @ep (NULL is fine). */
void tfs_ep_close(struct tfs_ep *ep);

/* Called on the progress thread for each valid request. */
typedef void (*tfs_req_fn)(struct tfs_req *req, void *arg);
/* Called on the progress thread when a connection has closed; requests of
 * it still being served may reply, their replies are dropped. */
typedef void (*tfs_close_fn)(struct tfs_conn *conn, void *arg);

/*
 * Listen at @addr ("tcp:127.0.0.1:0" picks a port; "unix:PATH" creates the
 * socket, mode 0600) and start the progress thread.  Requests whose secret
 * is not @secret are refused.  @name prefixes log lines on standard error.
 * Returns the listener, or NULL with a message in @err.
 */
struct tfs_lsn *tfs_lsn_open(const char *addr, const unsigned char *secret, const char *name,
			     tfs_req_fn on_req, tfs_close_fn on_close, void *arg, char *err,
			     size_t errlen);

/* The address others connect to (the port or path resolved). */
const char *tfs_lsn_addr(const struct tfs_lsn *lsn);

/* Stop the progress thread, close every connection, free @lsn; requests
 * still held by callbacks must have been replied to before. */
void tfs_lsn_close(struct tfs_lsn *lsn);

/* In a child just forked (pthread_atfork): forget every endpoint and
 * listener of the parent without a word to the other side -- they are the
 * parent's -- and close the descriptors they hold here, so that the child
 * can connect anew.  The objects themselves are leaked. */
void tfs_tp_forked(void);

/* Reply to @req with @status and the body gathered from @iov, then free
 * @req.  A reply to a closed connection is dropped.  Returns 0 or -1. */
int tfs_req_reply(struct tfs_req *req, int status, const struct iovec *iov, int iovcnt);

/* The owner's pointer for a connection (NULL until set). */
void tfs_conn_set(struct tfs_conn *conn, void *data);
void *tfs_conn_get(struct tfs_conn *conn);

/* ---- backends ----------------------------------------------------------
 * Each backend's endpoint, listener and connection structures begin with a
 * pointer to its operations, which the functions above (transport.c)
 * follow; tfs_ep_connect() and tfs_lsn_open() pick the backend by the
 * address prefix.  The operations have the contracts of the functions of
 * the same names.
 */
struct tfs_tp_ops {
	const char *name;
	struct tfs_ep *(*ep_connect)(const char *addr, const unsigned char *secret,
				     int timeout_ms);
	int (*ep_call)(struct tfs_ep *ep, uint16_t type, const struct iovec *iov, int iovcnt,
		       void *dst, size_t dstlen, void **rbody, size_t *rlen, int timeout_ms);
	int (*ep_broken)(struct tfs_ep *ep);
	int (*ep_wait_closed)(struct tfs_ep *ep, int timeout_ms);
	void (*ep_close)(struct tfs_ep *ep);
	struct tfs_lsn *(*lsn_open)(const char *addr, const unsigned char *secret,
				    const char *name, tfs_req_fn on_req, tfs_close_fn on_close,
				    void *arg, char *err, size_t errlen);
	const char *(*lsn_addr)(const struct tfs_lsn *lsn);
	void (*lsn_close)(struct tfs_lsn *lsn);
	int (*req_reply)(struct tfs_req *req, int status, const struct iovec *iov, int iovcnt);
	void (*conn_set)(struct tfs_conn *conn, void *data);
	void *(*conn_get)(struct tfs_conn *conn);
	/* in a child just forked: forget the parent's objects without
	 * touching them, so that new ones can be made (NULL: nothing to do) */
	void (*forked)(void);
	/* NULL: tfs_ep_call_while() calls between() first, then ep_call */
	int (*ep_call_while)(struct tfs_ep *ep, uint16_t type, const struct iovec *iov,
			     int iovcnt, void *dst, size_t dstlen, void **rbody, size_t *rlen,
			     int timeout_ms, void (*between)(void *), void *arg);
};

/* What every backend object starts with. */
struct tfs_tp_obj {
	const struct tfs_tp_ops *ops;
};

extern const struct tfs_tp_ops tfs_tp_sock;	/* tp_sock.c */
/* tp_ucx.c, built alone into the plugin libtfs-ucx.so (with proto.c),
 * which transport.c loads for the first "ucx:" address: programs that
 * never use UCX never map it. */
extern const struct tfs_tp_ops tfs_tp_ucx;

#endif
