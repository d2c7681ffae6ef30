/*
 * tp_ucx.c - the UCX backend of transport.h: tfs-protocol(5) frames as UCP
 * active messages ("ucx:HOST:PORT", a UCP listener on that socket address).
 *
 * A request is active message TFS_AM_REQ, a reply TFS_AM_REP; the message
 * header is the frame's 40-byte header, the message data its body.  Bodies
 * of TFS_UCX_RNDV bytes or more are sent with the rendezvous protocol, so
 * the receiver pulls them straight into their final buffer (a peer read
 * lands in the reader's buffer).
 *
 * Every UCP worker belongs to one engine: a thread that drives it (worker
 * mode "serialized": whoever holds the engine's worker lock may touch
 * it), takes commands from other threads through a queue and an eventfd,
 * and sleeps in epoll_wait on that eventfd and the worker's event fd
 * (ucp_worker_get_efd) after ucp_worker_arm: nothing spins.  A thread that
 * calls (or replies) while no one else holds the worker lock does the
 * work itself: it sends, progresses and sleeps in poll on the worker's
 * event fd until its reply is in, so a round trip costs no hop to the
 * engine thread and back; only when the worker is busy does it hand the
 * work to the engine thread and wait.  A listener has an engine of its own
 * and calls its owner's callbacks on that thread, outside UCX callbacks
 * and without the worker lock; the endpoints of a process share one
 * engine, started with the first and stopped with the last, so a listener
 * callback may make calls (stage-out does) without waiting on itself.
 * Endpoints are made once per peer by the callers (transport.h) and every
 * one has an error callback (peer error handling): a peer that dies or
 * closes fails what is outstanding on it, once what it sent before is read
 * (fail_due).  Peers on one host exchange the messages through shared
 * memory, the sockets of the connection staying beside it (ctx_get).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "transport.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <ucp/api/ucp.h>
#include <ucs/config/global_opts.h>

#include "../libcommon/banned.h"

#define TFS_AM_REQ	1
#define TFS_AM_REP	2
#define TFS_UCX_RNDV	(64u << 10)	/* bodies this long or longer: rendezvous */
#define SEND_TIMEOUT_MS	10000
#define CONN_HASH	256

struct engine;
struct ucx_conn;

/* A command for an engine thread. */
enum op_kind { OP_CONNECT, OP_CALL, OP_EP_CLOSE, OP_REPLY, OP_CONN_CLOSE, OP_STOP };

struct op {
	enum op_kind kind;
	struct op *next;
	void *obj;
};

struct ucx_ep {
	const struct tfs_tp_ops *ops;	/* &tfs_tp_ucx */
	struct engine *eng;		/* the shared endpoint engine */
	pthread_mutex_t lock;		/* one call at a time */
	unsigned char secret[TFS_SECRET_LEN];
	struct sockaddr_storage sa;
	socklen_t salen;
	/* engine thread; read by others under eng->lock once it says so */
	ucp_ep_h uep;
	int connected, conn_status;	/* the first flush done, its errno */
	int failed;			/* the error callback ran */
	int fail_err;			/* its errno, for the calls still waiting */
	int closed;			/* ucp_ep_close_nbx done */
	int closing;
	int close_sent;			/* under eng->lock */
	struct op cop, xop;		/* connect, close */
};

struct ucx_call {
	struct op op;
	struct ucx_ep *ep;
	struct ucx_call *next;		/* the engine's calls waiting */
	uint64_t id;
	uint16_t type;
	unsigned char hb[TFS_HDR_SIZE];
	const void *sbuf;
	size_t slen;
	void *dst, *body;
	size_t dstlen, blen;
	int want_body;
	int pending;			/* UCX requests outstanding */
	int got_reply, status, err;
	int listed, finished;		/* finished: under eng->lock */
};

/* A request received, with the engine's bookkeeping. */
struct in_req {
	struct tfs_req req;		/* first: tfs_req_reply frees this */
	struct in_req *next;
	int ready;
};

/* Something the engine does after progress, outside UCX callbacks. */
struct later {
	enum { L_REQ, L_REFUSE, L_CLOSE, L_CLOSED } kind;
	struct later *next;
	struct ucx_conn *conn;
	struct in_req *req;
	struct tfs_hdr hdr;		/* L_REFUSE: the request refused */
	int status;
	int force;			/* L_CLOSE, L_REFUSE: how to close after */
};

struct ucx_conn {
	const struct tfs_tp_ops *ops;
	struct ucx_lsn *lsn;
	ucp_ep_h uep;
	unsigned serial;
	int refs;			/* under eng->lock */
	int closed;			/* under eng->lock: replies are dropped */
	void *data;
	struct ucx_conn *hnext, *prev, *next;
};

struct ucx_reply {
	struct op op;
	struct ucx_conn *conn;
	unsigned char hb[TFS_HDR_SIZE];
	const void *buf;
	size_t len;
	void *copy;
	int waiting, done, rc;		/* done: under eng->lock when waiting */
};

struct ucx_lsn {
	const struct tfs_tp_ops *ops;
	struct engine *eng;
	ucp_listener_h listener;
	char addr[160];
	char name[64];
	unsigned char secret[TFS_SECRET_LEN];
	tfs_req_fn on_req;
	tfs_close_fn on_close;
	void *arg;
	unsigned serial;
	struct ucx_conn *conns;		/* engine thread */
	struct ucx_conn *hash[CONN_HASH];
	int closing;			/* engine thread: new connections are closed */
	struct ucx_lsn *next_retired;	/* under g_lock */
};

struct engine {
	pthread_mutex_t lock;
	pthread_cond_t cv;		/* CLOCK_MONOTONIC; any completion */
	pthread_mutex_t wlock;		/* the worker, the calls and laters lists */
	ucp_worker_h worker;
	int efd, epfd, wakefd;
	pthread_t thread;
	int running, stop;
	struct op *qhead, **qtail;	/* commands, under lock */
	/* under wlock */
	uint64_t next_id;
	struct ucx_call *calls;
	int fail_due;			/* an endpoint failed: fail its calls */
	struct later *lhead, **ltail;
	struct ucx_lsn *lsn;		/* the listener served, or NULL */
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/* Closed listeners, kept for the life of the process (u_lsn_close()). */
static struct ucx_lsn *g_retired;
static ucp_context_h g_ctx;
static int g_ctx_refs;
static struct engine *g_eps;	/* the endpoints' engine */
static int g_eps_refs;
static __thread struct engine *cur_engine;	/* set on an engine thread */

static void deadline_ts(long long deadline, struct timespec *ts)
{
	ts->tv_sec = deadline / 1000;
	ts->tv_nsec = (deadline % 1000) * 1000000;
}

static int map_status(ucs_status_t st)
{
	switch (st) {
	case UCS_OK:
		return 0;
	case UCS_ERR_NO_MEMORY:
		return ENOMEM;
	case UCS_ERR_TIMED_OUT:
	case UCS_ERR_ENDPOINT_TIMEOUT:
		return ETIMEDOUT;
	case UCS_ERR_UNREACHABLE:
	case UCS_ERR_REJECTED:
		return ECONNREFUSED;
	case UCS_ERR_MESSAGE_TRUNCATED:
	case UCS_ERR_EXCEEDS_LIMIT:
		return EMSGSIZE;
	default:
		return ECONNRESET;
	}
}

static void say(const char *name, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "%s: ", name);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n = (int)strlen(line);
	line[n] = '\n';
	if (write(2, line, (size_t)n + 1) < 0) {
		/* nowhere left to say it */
	}
}

/* "ucx:HOST:PORT" into a socket address; 0, or -1 with errno. */
static int parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len)
{
	const char *colon;

	if (strncmp(addr, "ucx:", 4) != 0) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	colon = strrchr(addr + 4, ':');
	if (colon && !colon[1]) {	/* "ucx:HOST:" is refused; "tcp:HOST:" is port 0 */
		errno = EINVAL;
		return -1;
	}
	return tfsi_hostport(addr + 4, ss, len);
}

/* ---- the context and the engines ------------------------------------------ */

/* Under g_lock. */
static int ctx_get(char *err, size_t errlen)
{
	ucp_params_t p;
	ucp_config_t *cfg;
	ucs_status_t st;
	const char *tls = getenv("TFS_UCX_TLS");

	if (g_ctx) {
		g_ctx_refs++;
		return 0;
	}
	/* UCX logs to standard output, the program's: of its messages only
	 * errors, unless UCX_LOG_LEVEL says otherwise.  Its warnings are of
	 * what TangramFS handles (a connection that fails as it is set up,
	 * and is made again). */
	if (!getenv("UCX_LOG_LEVEL") && ucs_global_opts.log_component.log_level > UCS_LOG_LEVEL_ERROR)
		ucs_global_opts.log_component.log_level = UCS_LOG_LEVEL_ERROR;
	if ((st = ucp_config_read(NULL, NULL, &cfg)) != UCS_OK) {
		snprintf(err, errlen, "UCX configuration: %s", ucs_status_string(st));
		return -1;
	}
	if (tls && *tls && (st = ucp_config_modify(cfg, "TLS", tls)) != UCS_OK) {
		snprintf(err, errlen, "TFS_UCX_TLS '%s': %s", tls, ucs_status_string(st));
		ucp_config_release(cfg);
		return -1;
	}
	/* Every endpoint asks for peer error handling, which UCX's shared
	 * memory transports offer only when told to (UCX_MM_ERROR_HANDLING):
	 * without it a connection on one host moves everything over TCP.  A
	 * dead peer is still seen at once: its connection manager's socket
	 * closes. */
	if (!getenv("UCX_MM_ERROR_HANDLING") &&
	    (st = ucp_config_modify(cfg, "MM_ERROR_HANDLING", "y")) != UCS_OK) {
		snprintf(err, errlen, "UCX shared memory error handling: %s",
			 ucs_status_string(st));
		ucp_config_release(cfg);
		return -1;
	}
	/* One lane for rendezvous bodies: every network interface an
	 * endpoint uses is polled on every progress, hence on every request
	 * (0.7 us a round trip here, for a second TCP interface). */
	if (!getenv("UCX_MAX_RNDV_LANES"))
		ucp_config_modify(cfg, "MAX_RNDV_LANES", "1");
	memset(&p, 0, sizeof(p));
	p.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
	p.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
	p.mt_workers_shared = 0;
	TFS_SIGS_BLOCKED(st = ucp_init(&p, cfg, &g_ctx));
	ucp_config_release(cfg);
	if (st != UCS_OK) {
		snprintf(err, errlen, "cannot start UCX: %s", ucs_status_string(st));
		g_ctx = NULL;
		return -1;
	}
	g_ctx_refs = 1;
	return 0;
}

/* Under g_lock. */
static void ctx_put(void)
{
	if (--g_ctx_refs == 0) {
		ucp_cleanup(g_ctx);
		g_ctx = NULL;
	}
}

static ucs_status_t on_request(void *arg, const void *header, size_t hlen, void *data,
			       size_t len, const ucp_am_recv_param_t *param);
static ucs_status_t on_reply(void *arg, const void *header, size_t hlen, void *data,
			     size_t len, const ucp_am_recv_param_t *param);
static void *engine_main(void *arg);

static void engine_free(struct engine *e)
{
	if (e->worker)
		ucp_worker_destroy(e->worker);
	if (e->epfd >= 0)
		close(e->epfd);
	if (e->wakefd >= 0)
		close(e->wakefd);
	pthread_cond_destroy(&e->cv);
	pthread_mutex_destroy(&e->lock);
	pthread_mutex_destroy(&e->wlock);
	pthread_mutex_lock(&g_lock);
	ctx_put();
	pthread_mutex_unlock(&g_lock);
	free(e);
}

/* A new engine with its worker, not yet running. */
static struct engine *engine_new(char *err, size_t errlen)
{
	ucp_worker_params_t wp;
	ucp_am_handler_param_t hp;
	pthread_condattr_t ca;
	struct epoll_event ev;
	struct engine *e;
	ucs_status_t st;
	int rc;

	if (!(e = calloc(1, sizeof(*e)))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_lock(&g_lock);
	rc = ctx_get(err, errlen);
	pthread_mutex_unlock(&g_lock);
	if (rc < 0) {
		free(e);
		return NULL;
	}
	pthread_mutex_init(&e->lock, NULL);
	pthread_mutex_init(&e->wlock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->cv, &ca);
	pthread_condattr_destroy(&ca);
	e->qtail = &e->qhead;
	e->ltail = &e->lhead;
	e->next_id = 1;
	e->epfd = e->wakefd = -1;
	memset(&wp, 0, sizeof(wp));
	wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;
	TFS_SIGS_BLOCKED(st = ucp_worker_create(g_ctx, &wp, &e->worker));
	if (st != UCS_OK) {
		snprintf(err, errlen, "cannot create a UCX worker: %s", ucs_status_string(st));
		e->worker = NULL;
		goto fail;
	}
	if ((st = ucp_worker_get_efd(e->worker, &e->efd)) != UCS_OK) {
		snprintf(err, errlen, "UCX worker event fd: %s", ucs_status_string(st));
		goto fail;
	}
	memset(&hp, 0, sizeof(hp));
	hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
			UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
	hp.flags = UCP_AM_FLAG_WHOLE_MSG;
	hp.arg = e;
	hp.id = TFS_AM_REQ;
	hp.cb = on_request;
	if ((st = ucp_worker_set_am_recv_handler(e->worker, &hp)) != UCS_OK) {
		snprintf(err, errlen, "UCX active messages: %s", ucs_status_string(st));
		goto fail;
	}
	hp.id = TFS_AM_REP;
	hp.cb = on_reply;
	if ((st = ucp_worker_set_am_recv_handler(e->worker, &hp)) != UCS_OK) {
		snprintf(err, errlen, "UCX active messages: %s", ucs_status_string(st));
		goto fail;
	}
	if ((e->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (e->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		snprintf(err, errlen, "epoll: %s", strerror(errno));
		goto fail;
	}
	ev.events = EPOLLIN;
	ev.data.fd = e->efd;
	if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->efd, &ev) < 0) {
		snprintf(err, errlen, "epoll: %s", strerror(errno));
		goto fail;
	}
	ev.data.fd = e->wakefd;
	if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->wakefd, &ev) < 0) {
		snprintf(err, errlen, "epoll: %s", strerror(errno));
		goto fail;
	}
	return e;
fail:
	engine_free(e);
	return NULL;
}

static int engine_start(struct engine *e, char *err, size_t errlen)
{
	if (tfs_thread_start(&e->thread, NULL, engine_main, e) != 0) {
		snprintf(err, errlen, "cannot start the UCX progress thread");
		return -1;
	}
	e->running = 1;
	return 0;
}

/* Wake the engine thread to look at its queue and its worker. */
static void engine_wake(struct engine *e)
{
	uint64_t one = 1;

	if (write(e->wakefd, &one, sizeof(one)) < 0) {
		/* the counter is far from overflowing: the thread is awake anyway */
	}
}

static void engine_submit(struct engine *e, struct op *op)
{
	op->next = NULL;
	pthread_mutex_lock(&e->lock);
	*e->qtail = op;
	e->qtail = &op->next;
	pthread_mutex_unlock(&e->lock);
	engine_wake(e);
}

/* Stop the thread of @e (OP_STOP runs last). */
static void engine_halt(struct engine *e)
{
	struct op stop = { .kind = OP_STOP };

	if (e->running) {
		engine_submit(e, &stop);
		pthread_join(e->thread, NULL);
		e->running = 0;
	}
}

/* Stop the thread and free @e. */
static void engine_stop(struct engine *e)
{
	engine_halt(e);
	engine_free(e);
}

/* Wake the waiters of @e (under e->lock). */
static void wake_all(struct engine *e)
{
	pthread_cond_broadcast(&e->cv);
}

/* Wait on @e until *@flag, at most until @deadline (ms; 0: forever); under
 * e->lock.  Returns 0, or -1 on timeout. */
static int wait_flag(struct engine *e, const int *flag, long long deadline)
{
	struct timespec ts;

	deadline_ts(deadline, &ts);
	while (!*flag) {
		if (!deadline)
			pthread_cond_wait(&e->cv, &e->lock);
		else if (pthread_cond_timedwait(&e->cv, &e->lock, &ts) == ETIMEDOUT && !*flag)
			return -1;
	}
	return 0;
}

static void run_op(struct engine *e, struct op *op);
static int fail_due(struct engine *e);

/* Run the commands other threads queued for @e, but a stop, which is the
 * engine thread's own; with e->wlock held.  Returns 1 when there were
 * any. */
static int run_queued(struct engine *e)
{
	struct op *q, *next, *stop = NULL;
	int any;

	pthread_mutex_lock(&e->lock);
	q = e->qhead;
	e->qhead = NULL;
	e->qtail = &e->qhead;
	pthread_mutex_unlock(&e->lock);
	any = q != NULL;
	for (; q; q = next) {
		next = q->next;
		if (q->kind == OP_STOP)
			stop = q;
		else
			run_op(e, q);
	}
	if (stop) {
		pthread_mutex_lock(&e->lock);
		if (!(stop->next = e->qhead))
			e->qtail = &stop->next;
		e->qhead = stop;
		pthread_mutex_unlock(&e->lock);
	}
	return any && !stop;
}

/*
 * Progress @e's worker on this thread until *@flag, at most until
 * @deadline (ms; 0: no limit); with e->wlock held.  The callbacks that
 * set *@flag run here.  Meanwhile this thread is the engine: it runs what
 * others queue (their calls may be what the awaited reply waits for), and
 * sleeps in poll on the worker's event fd and the engine's eventfd.
 * Returns 0, or -1 on timeout.
 */
static int drive(struct engine *e, const int *flag, long long deadline)
{
	for (;;) {
		struct pollfd p[2] = { { .fd = e->efd, .events = POLLIN },
				       { .fd = e->wakefd, .events = POLLIN } };
		long long left = deadline ? deadline - tfsi_now_ms() : 1000;
		ucs_status_t st;
		uint64_t v;
		int done;

		if (run_queued(e))
			continue;
		while (ucp_worker_progress(e->worker))
			;
		pthread_mutex_lock(&e->lock);
		done = *flag;
		pthread_mutex_unlock(&e->lock);
		if (done)
			return 0;
		if (left <= 0)
			return -1;
		if ((st = ucp_worker_arm(e->worker)) == UCS_ERR_BUSY || fail_due(e))
			continue;
		/* (a worker that cannot be armed is polled every millisecond) */
		if (poll(p, 2, st != UCS_OK ? 1 : left > 1000 ? 1000 : (int)left) < 0 &&
		    errno != EINTR)
			return -1;
		if ((p[1].revents & POLLIN) && read(e->wakefd, &v, sizeof(v)) < 0) {
			/* drained by the engine thread first */
		}
	}
}

/* While a thread other than the engine's drives the worker (it holds
 * e->wlock), the engine thread sleeps on its eventfd only: the worker's
 * events are that thread's, and each would otherwise wake the engine
 * thread too, for nothing but to wait for the worker lock. */
static void engine_mute(struct engine *e, int mute)
{
	struct epoll_event ev = { .events = mute ? 0 : EPOLLIN, .data.fd = e->efd };

	epoll_ctl(e->epfd, EPOLL_CTL_MOD, e->efd, &ev);
}

/* Let go of the worker, armed: the engine thread sleeps on its event fd,
 * and an event that comes after this must wake it (the arm the engine
 * made before it slept may have been used up here).  The engine thread
 * runs what came meanwhile: the commands of others, requests to hand to
 * the listener's owner. */
static void worker_release(struct engine *e)
{
	ucs_status_t st;
	int more;

	/* (drive() has just progressed it until there was nothing to do) */
	while ((st = ucp_worker_arm(e->worker)) == UCS_ERR_BUSY)
		while (ucp_worker_progress(e->worker))
			;
	fail_due(e);
	engine_mute(e, 0);
	more = e->lhead != NULL || st != UCS_OK;
	pthread_mutex_unlock(&e->wlock);
	pthread_mutex_lock(&e->lock);
	more |= e->qhead != NULL;
	pthread_mutex_unlock(&e->lock);
	if (more)
		engine_wake(e);
}

static struct engine *eps_engine_get(char *err, size_t errlen)
{
	struct engine *e;

	pthread_mutex_lock(&g_lock);
	if (g_eps) {
		g_eps_refs++;
		e = g_eps;
		pthread_mutex_unlock(&g_lock);
		return e;
	}
	pthread_mutex_unlock(&g_lock);
	if (!(e = engine_new(err, errlen)))
		return NULL;
	if (engine_start(e, err, errlen) < 0) {
		engine_free(e);
		return NULL;
	}
	pthread_mutex_lock(&g_lock);
	if (g_eps) {		/* another thread was quicker */
		g_eps_refs++;
		pthread_mutex_unlock(&g_lock);
		engine_stop(e);
		return g_eps;
	}
	g_eps = e;
	g_eps_refs = 1;
	pthread_mutex_unlock(&g_lock);
	return e;
}

static void eps_engine_put(void)
{
	struct engine *e = NULL;

	pthread_mutex_lock(&g_lock);
	if (--g_eps_refs == 0) {
		e = g_eps;
		g_eps = NULL;
	}
	pthread_mutex_unlock(&g_lock);
	if (e)
		engine_stop(e);
}

/* ---- endpoints (the calling side) ------------------------------------------ */

static void call_check(struct engine *e, struct ucx_call *c)
{
	struct ucx_call **pp;

	if (c->finished || c->pending || !(c->got_reply || c->err))
		return;
	if (c->listed) {
		for (pp = &e->calls; *pp && *pp != c; pp = &(*pp)->next)
			;
		if (*pp)
			*pp = c->next;
		c->listed = 0;
	}
	pthread_mutex_lock(&e->lock);
	c->finished = 1;
	wake_all(e);
	pthread_mutex_unlock(&e->lock);
}

/* Fail every call of @ep still waiting. */
static void calls_fail(struct engine *e, struct ucx_ep *ep, int err)
{
	struct ucx_call *c, *next;

	for (c = e->calls; c; c = next) {
		next = c->next;
		if (c->ep == ep && !c->got_reply) {
			if (!c->err)
				c->err = err;
			call_check(e, c);
		}
	}
}

static void ep_error(void *arg, ucp_ep_h uep, ucs_status_t status)
{
	struct ucx_ep *ep = arg;

	(void)uep;
	pthread_mutex_lock(&ep->eng->lock);
	ep->failed = 1;
	ep->fail_err = map_status(status);
	wake_all(ep->eng);
	pthread_mutex_unlock(&ep->eng->lock);
	/* its calls fail once nothing is left to read (fail_due) */
	ep->eng->fail_due = 1;
}

/*
 * Fail the calls still waiting on endpoints that failed; with e->wlock
 * held, once ucp_worker_arm() has found nothing left to read.  Not at
 * once in ep_error: a peer that replies and then closes (tfs-server
 * answering --stop, a refusal) sends the reply over shared memory and the
 * close over its sockets, and the close may be seen first.  Returns 1
 * when there was something to do.
 */
static int fail_due(struct engine *e)
{
	struct ucx_call *c, *next;

	if (!e->fail_due)
		return 0;
	e->fail_due = 0;
	for (c = e->calls; c; c = next) {
		next = c->next;
		if (c->ep->failed && !c->got_reply) {
			if (!c->err)
				c->err = c->ep->fail_err;
			call_check(e, c);
		}
	}
	return 1;
}

static void ep_flushed(void *req, ucs_status_t status, void *user_data)
{
	struct ucx_ep *ep = user_data;

	ucp_request_free(req);
	pthread_mutex_lock(&ep->eng->lock);
	ep->conn_status = map_status(status);
	ep->connected = 1;
	wake_all(ep->eng);
	pthread_mutex_unlock(&ep->eng->lock);
}

static void run_connect(struct engine *e, struct ucx_ep *ep)
{
	ucp_ep_params_t p;
	ucp_request_param_t rp;
	ucs_status_ptr_t r;
	ucs_status_t st;

	memset(&p, 0, sizeof(p));
	p.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
		       UCP_EP_PARAM_FIELD_ERR_HANDLER | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
	p.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
	p.sockaddr.addr = (const struct sockaddr *)&ep->sa;
	p.sockaddr.addrlen = ep->salen;
	p.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	p.err_handler.cb = ep_error;
	p.err_handler.arg = ep;
	TFS_SIGS_BLOCKED(st = ucp_ep_create(e->worker, &p, &ep->uep));
	if (st != UCS_OK) {
		ep->uep = NULL;
		ep_flushed(NULL, st, ep);
		return;
	}
	/* the flush ends once the connection is made (or has failed) */
	memset(&rp, 0, sizeof(rp));
	rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
	rp.cb.send = ep_flushed;
	rp.user_data = ep;
	r = ucp_ep_flush_nbx(ep->uep, &rp);
	if (r == NULL || UCS_PTR_IS_ERR(r)) {
		pthread_mutex_lock(&e->lock);
		ep->conn_status = map_status(UCS_PTR_STATUS(r));
		ep->connected = 1;
		wake_all(e);
		pthread_mutex_unlock(&e->lock);
	}
}

static void ep_closed(void *req, ucs_status_t status, void *user_data)
{
	struct ucx_ep *ep = user_data;

	(void)status;
	if (req)
		ucp_request_free(req);
	pthread_mutex_lock(&ep->eng->lock);
	ep->closed = 1;
	wake_all(ep->eng);
	pthread_mutex_unlock(&ep->eng->lock);
}

/* Have the engine close @ep (once). */
static void ep_close_submit(struct ucx_ep *ep)
{
	int sent;

	pthread_mutex_lock(&ep->eng->lock);
	sent = ep->close_sent;
	ep->close_sent = 1;
	pthread_mutex_unlock(&ep->eng->lock);
	if (!sent) {
		ep->xop.kind = OP_EP_CLOSE;
		ep->xop.obj = ep;
		engine_submit(ep->eng, &ep->xop);
	}
}

/* Close @ep's UCP endpoint without flushing: nothing is outstanding on an
 * endpoint that is closed, or what is outstanding is given up. */
static void run_ep_close(struct engine *e, struct ucx_ep *ep)
{
	ucp_request_param_t rp;
	ucs_status_ptr_t r;
	ucp_ep_h uep = ep->uep;

	if (!uep || ep->closing) {
		if (!uep)
			ep_closed(NULL, UCS_OK, ep);
		return;
	}
	ep->closing = 1;
	memset(&rp, 0, sizeof(rp));
	rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
			  UCP_OP_ATTR_FIELD_FLAGS;
	rp.flags = UCP_EP_CLOSE_FLAG_FORCE;
	rp.cb.send = ep_closed;
	rp.user_data = ep;
	r = ucp_ep_close_nbx(uep, &rp);
	calls_fail(e, ep, ECONNRESET);
	if (r == NULL || UCS_PTR_IS_ERR(r))
		ep_closed(NULL, UCS_OK, ep);
}

static void call_sent(void *req, ucs_status_t status, void *user_data)
{
	struct ucx_call *c = user_data;

	ucp_request_free(req);
	c->pending--;
	if (status != UCS_OK && !c->err)
		c->err = map_status(status);
	call_check(c->ep->eng, c);
}

static void call_recvd(void *req, ucs_status_t status, size_t length, void *user_data)
{
	struct ucx_call *c = user_data;

	(void)length;
	ucp_request_free(req);
	c->pending--;
	if (status != UCS_OK && !c->err)
		c->err = map_status(status);
	call_check(c->ep->eng, c);
}

static void run_call(struct engine *e, struct ucx_call *c)
{
	struct ucx_ep *ep = c->ep;
	ucp_request_param_t rp;
	ucs_status_ptr_t r;
	struct tfs_hdr h;

	if (!ep->uep || ep->failed || ep->closing) {
		c->err = ECONNRESET;
		call_check(e, c);
		return;
	}
	memset(&h, 0, sizeof(h));
	h.type = c->type;
	h.len = (uint32_t)c->slen;
	h.id = c->id = e->next_id++;
	memcpy(h.secret, ep->secret, TFS_SECRET_LEN);
	tfs_hdr_encode(&h, c->hb);
	c->next = e->calls;
	e->calls = c;
	c->listed = 1;
	memset(&rp, 0, sizeof(rp));
	rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
			  UCP_OP_ATTR_FIELD_FLAGS;
	rp.flags = UCP_AM_SEND_FLAG_REPLY | (c->slen >= TFS_UCX_RNDV ? UCP_AM_SEND_FLAG_RNDV : 0);
	rp.cb.send = call_sent;
	rp.user_data = c;
	r = ucp_am_send_nbx(ep->uep, TFS_AM_REQ, c->hb, TFS_HDR_SIZE, c->sbuf, c->slen, &rp);
	if (UCS_PTR_IS_ERR(r))
		c->err = map_status(UCS_PTR_STATUS(r));
	else if (r)
		c->pending++;
	call_check(e, c);
}

/* A reply, on the endpoints' engine. */
static ucs_status_t on_reply(void *arg, const void *header, size_t hlen, void *data,
			     size_t len, const ucp_am_recv_param_t *param)
{
	struct engine *e = arg;
	ucp_request_param_t rp;
	ucs_status_ptr_t r;
	struct ucx_call *c;
	struct tfs_hdr h;
	void *buf;

	if (hlen != TFS_HDR_SIZE || tfs_hdr_decode(header, &h) < 0 || !(h.flags & TFS_F_REPLY))
		return UCS_OK;	/* not a reply: nobody waits for it */
	for (c = e->calls; c && c->id != h.id; c = c->next)
		;
	if (!c || c->got_reply)
		return UCS_OK;	/* a late reply to a call given up */
	c->got_reply = 1;
	if (h.type != c->type || h.len != len) {
		c->err = EPROTO;
		call_check(e, c);
		return UCS_OK;
	}
	c->status = h.status < 0 ? EPROTO : h.status;
	c->blen = len;
	if (len) {
		if (c->dst && len <= c->dstlen) {
			buf = c->dst;
		} else if (!c->want_body || !(buf = malloc(len))) {
			c->err = c->want_body ? ENOMEM : EMSGSIZE;
			call_check(e, c);
			return UCS_OK;
		} else {
			c->body = buf;
		}
		if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
			memset(&rp, 0, sizeof(rp));
			rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
			rp.cb.recv_am = call_recvd;
			rp.user_data = c;
			r = ucp_am_recv_data_nbx(e->worker, data, buf, len, &rp);
			if (UCS_PTR_IS_ERR(r))
				c->err = map_status(UCS_PTR_STATUS(r));
			else if (r)
				c->pending++;
		} else {
			memcpy(buf, data, len);
		}
	}
	call_check(e, c);
	return UCS_OK;
}

static struct tfs_ep *u_ep_connect(const char *addr, const unsigned char *secret, int timeout_ms)
{
	long long deadline = tfsi_now_ms() + timeout_ms;
	struct ucx_ep *ep;
	struct engine *e;
	char err[256];
	int rc, cs;

	if (!(ep = calloc(1, sizeof(*ep))))
		return NULL;
	if (parse_addr(addr, &ep->sa, &ep->salen) < 0) {
		free(ep);
		return NULL;
	}
	if (!(e = eps_engine_get(err, sizeof(err)))) {
		free(ep);
		errno = EPROTONOSUPPORT;
		return NULL;
	}
	ep->ops = &tfs_tp_ucx;
	ep->eng = e;
	memcpy(ep->secret, secret, TFS_SECRET_LEN);
	pthread_mutex_init(&ep->lock, NULL);
	ep->cop.kind = OP_CONNECT;
	ep->cop.obj = ep;
	engine_submit(e, &ep->cop);
	pthread_mutex_lock(&e->lock);
	rc = wait_flag(e, &ep->connected, deadline);
	cs = ep->conn_status;
	pthread_mutex_unlock(&e->lock);
	if (rc == 0 && cs == 0)
		return (struct tfs_ep *)ep;
	/* give up: close what there is, wait for it */
	ep_close_submit(ep);
	pthread_mutex_lock(&e->lock);
	wait_flag(e, &ep->closed, 0);
	wait_flag(e, &ep->connected, 0);
	pthread_mutex_unlock(&e->lock);
	pthread_mutex_destroy(&ep->lock);
	free(ep);
	eps_engine_put();
	errno = rc < 0 ? ETIMEDOUT : (cs == ECONNRESET ? ECONNREFUSED : cs);
	return NULL;
}

static int u_ep_call(struct tfs_ep *tep, uint16_t type, const struct iovec *iov, int iovcnt,
		     void *dst, size_t dstlen, void **rbody, size_t *rlen, int timeout_ms)
{
	struct ucx_ep *ep = (struct ucx_ep *)tep;
	struct engine *e = ep->eng;
	long long deadline = tfsi_now_ms() + timeout_ms;
	struct ucx_call c;
	void *joined = NULL;
	size_t total = 0;
	int i, rc, broken;

	if (rbody)
		*rbody = NULL;
	*rlen = 0;
	if (iovcnt > 15 || iovcnt < 0) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (total > TFS_MAX_BODY) {
		errno = EMSGSIZE;
		return -1;
	}
	memset(&c, 0, sizeof(c));
	c.op.kind = OP_CALL;
	c.op.obj = &c;
	c.ep = ep;
	c.type = type;
	c.slen = total;
	c.dst = dst;
	c.dstlen = dstlen;
	c.want_body = rbody != NULL;
	if (iovcnt == 1) {
		c.sbuf = iov[0].iov_base;
	} else if (total) {	/* several pieces: one buffer (small bodies) */
		char *p;

		if (!(joined = p = malloc(total))) {
			errno = ENOMEM;
			return -1;
		}
		for (i = 0; i < iovcnt; i++) {
			memcpy(p, iov[i].iov_base, iov[i].iov_len);
			p += iov[i].iov_len;
		}
		c.sbuf = joined;
	}
	pthread_mutex_lock(&ep->lock);
	pthread_mutex_lock(&e->lock);
	broken = ep->failed || ep->close_sent;
	pthread_mutex_unlock(&e->lock);
	if (broken) {
		pthread_mutex_unlock(&ep->lock);
		free(joined);
		errno = EPIPE;
		return -1;
	}
	if (pthread_mutex_trylock(&e->wlock) == 0) {
		engine_mute(e, 1);
		/* nobody drives the worker: do the call on this thread */
		run_call(e, &c);
		if (drive(e, &c.finished, deadline) < 0) {
			pthread_mutex_lock(&e->lock);
			ep->close_sent = 1;
			pthread_mutex_unlock(&e->lock);
			run_ep_close(e, ep);	/* fails the call */
			drive(e, &c.finished, 0);
			c.err = ETIMEDOUT;
		}
		worker_release(e);
	} else {
		engine_submit(e, &c.op);
		pthread_mutex_lock(&e->lock);
		if (wait_flag(e, &c.finished, deadline) < 0) {
			/* give up on the endpoint: closing it ends what is outstanding */
			pthread_mutex_unlock(&e->lock);
			ep_close_submit(ep);
			pthread_mutex_lock(&e->lock);
			wait_flag(e, &c.finished, 0);
			c.err = ETIMEDOUT;
		}
		pthread_mutex_unlock(&e->lock);
	}
	pthread_mutex_unlock(&ep->lock);
	free(joined);
	if (c.err) {
		free(c.body);
		ep_close_submit(ep);	/* broken from now on */
		errno = c.err;
		return -1;
	}
	if (c.body)
		*rbody = c.body;
	*rlen = c.blen;
	rc = c.status;
	return rc;
}

static int u_ep_broken(struct tfs_ep *tep)
{
	struct ucx_ep *ep = (struct ucx_ep *)tep;
	int b;

	pthread_mutex_lock(&ep->eng->lock);
	b = ep->failed || ep->close_sent;
	pthread_mutex_unlock(&ep->eng->lock);
	return b;
}

static int u_ep_wait_closed(struct tfs_ep *tep, int timeout_ms)
{
	struct ucx_ep *ep = (struct ucx_ep *)tep;
	struct engine *e = ep->eng;
	int rc;

	pthread_mutex_lock(&e->lock);
	rc = ep->closed ? 0 : wait_flag(e, &ep->failed, tfsi_now_ms() + timeout_ms);
	pthread_mutex_unlock(&e->lock);
	if (rc < 0)
		errno = ETIMEDOUT;
	return rc;
}

static void u_ep_close(struct tfs_ep *tep)
{
	struct ucx_ep *ep = (struct ucx_ep *)tep;
	struct engine *e = ep->eng;

	ep_close_submit(ep);
	pthread_mutex_lock(&e->lock);
	wait_flag(e, &ep->closed, 0);
	pthread_mutex_unlock(&e->lock);
	pthread_mutex_destroy(&ep->lock);
	free(ep);
	eps_engine_put();
}

/* ---- listeners and their connections --------------------------------------- */

static unsigned conn_bucket(ucp_ep_h uep)
{
	uintptr_t v = (uintptr_t)uep;

	return (unsigned)((v >> 4) ^ (v >> 12)) % CONN_HASH;
}

static struct ucx_conn *conn_find(struct ucx_lsn *l, ucp_ep_h uep)
{
	struct ucx_conn *c;

	for (c = l->hash[conn_bucket(uep)]; c && c->uep != uep; c = c->hnext)
		;
	return c;
}

static void conn_unref(struct engine *e, struct ucx_conn *c)
{
	int last;

	pthread_mutex_lock(&e->lock);
	last = --c->refs == 0;
	pthread_mutex_unlock(&e->lock);
	if (last)
		free(c);
}

static void later_add(struct engine *e, struct later *w)
{
	w->next = NULL;
	*e->ltail = w;
	e->ltail = &w->next;
}

/* Queue the closing of @c (from a UCX callback); 0, or -1 without memory. */
static int conn_close_later(struct engine *e, struct ucx_conn *c, int force)
{
	struct later *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	w->kind = L_CLOSE;
	w->conn = c;
	w->force = force;
	pthread_mutex_lock(&e->lock);
	c->refs++;	/* the later's */
	pthread_mutex_unlock(&e->lock);
	later_add(e, w);
	return 0;
}

static void conn_error(void *arg, ucp_ep_h uep, ucs_status_t status)
{
	struct ucx_conn *c = arg;

	(void)uep;
	(void)status;
	if (conn_close_later(c->lsn->eng, c, 1) < 0)
		say(c->lsn->name, "connection %u: no memory to close it", c->serial);
}

static void conn_closed(void *req, ucs_status_t status, void *user_data)
{
	struct ucx_conn *c = user_data;

	(void)status;
	if (req)
		ucp_request_free(req);
	conn_unref(c->lsn->eng, c);
}

/* Tell the owner that @c has closed: run_later() calls on_close on the
 * engine thread without the worker lock, as it calls on_req, since the
 * owner's callback may wait for a lock whose holder waits for this worker
 * (tfs-server replying to --stop).  With e->wlock held. */
static void closed_later(struct engine *e, struct ucx_conn *c)
{
	struct ucx_lsn *l = c->lsn;
	struct later *w;

	if (!l->on_close)
		return;
	if (!(w = calloc(1, sizeof(*w)))) {
		l->on_close((struct tfs_conn *)c, l->arg);
		return;
	}
	w->kind = L_CLOSED;
	w->conn = c;
	pthread_mutex_lock(&e->lock);
	c->refs++;	/* the later's */
	pthread_mutex_unlock(&e->lock);
	later_add(e, w);
}

/* Close @c now (with e->wlock held, outside UCX callbacks). */
static void conn_close(struct engine *e, struct ucx_conn *c, int force)
{
	struct ucx_lsn *l = c->lsn;
	struct ucx_conn **pp;
	ucp_request_param_t rp;
	ucs_status_ptr_t r;
	int was;

	pthread_mutex_lock(&e->lock);
	was = c->closed;
	c->closed = 1;
	pthread_mutex_unlock(&e->lock);
	if (was)
		return;
	for (pp = &l->hash[conn_bucket(c->uep)]; *pp && *pp != c; pp = &(*pp)->hnext)
		;
	if (*pp)
		*pp = c->hnext;
	if (c->prev)
		c->prev->next = c->next;
	else
		l->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	memset(&rp, 0, sizeof(rp));
	rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
			  UCP_OP_ATTR_FIELD_FLAGS;
	rp.flags = force ? UCP_EP_CLOSE_FLAG_FORCE : 0;
	rp.cb.send = conn_closed;
	rp.user_data = c;
	r = ucp_ep_close_nbx(c->uep, &rp);	/* the list's reference goes with it */
	closed_later(e, c);
	if (r == NULL || UCS_PTR_IS_ERR(r))
		conn_closed(NULL, UCS_OK, c);
}

static void conn_request(ucp_conn_request_h creq, void *arg)
{
	struct ucx_lsn *l = arg;
	struct engine *e = l->eng;
	ucp_ep_params_t p;
	struct ucx_conn *c;
	ucs_status_t st;
	unsigned b;

	if (!(c = calloc(1, sizeof(*c)))) {
		say(l->name, "no memory for a connection, refusing it");
		ucp_listener_reject(l->listener, creq);
		return;
	}
	c->ops = &tfs_tp_ucx;
	c->lsn = l;
	c->refs = 1;
	c->serial = ++l->serial;
	memset(&p, 0, sizeof(p));
	p.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLER |
		       UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
	p.conn_request = creq;
	p.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	p.err_handler.cb = conn_error;
	p.err_handler.arg = c;
	TFS_SIGS_BLOCKED(st = ucp_ep_create(e->worker, &p, &c->uep));
	if (st != UCS_OK) {
		/* not ucp_listener_reject(): a failed ucp_ep_create() has
		 * freed @creq, and refused it where the connecting side can
		 * still hear (UCX 1.13 wireup_cm.c); a reset is a connecting
		 * side that gave up (it waited for this thread) */
		say(l->name, "cannot accept a connection: %s", ucs_status_string(st));
		free(c);
		return;
	}
	b = conn_bucket(c->uep);
	c->hnext = l->hash[b];
	l->hash[b] = c;
	c->next = l->conns;
	if (l->conns)
		l->conns->prev = c;
	l->conns = c;
	if (l->closing)		/* the listener is closed: so is this connection */
		conn_close(e, c, 1);
}

static void req_ready(struct engine *e, struct in_req *r)
{
	struct later *w = calloc(1, sizeof(*w));

	if (!w) {	/* drop it and the connection: the client will see it */
		say(e->lsn->name, "connection %u: no memory for a request, closing it",
		    ((struct ucx_conn *)r->req.conn)->serial);
		conn_close_later(e, (struct ucx_conn *)r->req.conn, 1);
		conn_unref(e, (struct ucx_conn *)r->req.conn);
		free(r->req.body);
		free(r);
		return;
	}
	w->kind = L_REQ;
	w->req = r;
	later_add(e, w);
}

static void req_recvd(void *req, ucs_status_t status, size_t length, void *user_data)
{
	struct in_req *r = user_data;
	struct ucx_conn *c = (struct ucx_conn *)r->req.conn;
	struct engine *e = c->lsn->eng;

	(void)length;
	ucp_request_free(req);
	if (status != UCS_OK) {	/* the connection failed: its error closes it */
		conn_unref(e, c);
		free(r->req.body);
		free(r);
		return;
	}
	req_ready(e, r);
}

/* A request, on a listener's engine. */
static ucs_status_t on_request(void *arg, const void *header, size_t hlen, void *data,
			       size_t len, const ucp_am_recv_param_t *param)
{
	struct engine *e = arg;
	struct ucx_lsn *l = e->lsn;
	ucp_request_param_t rp;
	ucs_status_ptr_t rq;
	struct ucx_conn *c;
	struct in_req *r;
	struct later *w;
	struct tfs_hdr h;

	if (!l || !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) || !param->reply_ep ||
	    !(c = conn_find(l, param->reply_ep)) || c->closed)
		return UCS_OK;	/* not from a connection of ours */
	if (hlen != TFS_HDR_SIZE || tfs_hdr_decode(header, &h) < 0 || (h.flags & TFS_F_REPLY) ||
	    h.len != len) {
		say(l->name, "connection %u: malformed or oversized frame header, closing it",
		    c->serial);
		conn_close_later(e, c, 1);
		return UCS_OK;
	}
	if (!tfs_secret_eq(h.secret, l->secret)) {
		say(l->name, "connection %u: request without the secret refused, closing it",
		    c->serial);
		if (!(w = calloc(1, sizeof(*w)))) {
			conn_close_later(e, c, 1);
			return UCS_OK;
		}
		w->kind = L_REFUSE;
		w->conn = c;
		w->hdr = h;
		w->status = EACCES;
		w->force = 0;
		pthread_mutex_lock(&e->lock);
		c->refs++;
		pthread_mutex_unlock(&e->lock);
		later_add(e, w);
		return UCS_OK;
	}
	if (!(r = calloc(1, sizeof(*r))) || (len && !(r->req.body = malloc(len)))) {
		free(r);
		say(l->name, "connection %u: no memory for a %zu-byte request, closing it",
		    c->serial, len);
		conn_close_later(e, c, 1);
		return UCS_OK;
	}
	pthread_mutex_lock(&e->lock);
	c->refs++;	/* the request's */
	pthread_mutex_unlock(&e->lock);
	r->req.conn = (struct tfs_conn *)c;
	r->req.hdr = h;
	if (len && (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
		memset(&rp, 0, sizeof(rp));
		rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
		rp.cb.recv_am = req_recvd;
		rp.user_data = r;
		rq = ucp_am_recv_data_nbx(e->worker, data, r->req.body, len, &rp);
		if (UCS_PTR_IS_ERR(rq)) {
			conn_unref(e, c);
			free(r->req.body);
			free(r);
			conn_close_later(e, c, 1);
		} else if (!rq) {
			req_ready(e, r);
		}
		return UCS_OK;
	}
	if (len)
		memcpy(r->req.body, data, len);
	req_ready(e, r);
	return UCS_OK;
}

static void reply_done(struct engine *e, struct ucx_reply *rep, int rc)
{
	rep->rc = rc;
	if (rep->waiting) {
		pthread_mutex_lock(&e->lock);
		rep->done = 1;
		wake_all(e);
		pthread_mutex_unlock(&e->lock);
		return;
	}
	conn_unref(e, rep->conn);
	free(rep->copy);
	free(rep);
}

static void reply_sent(void *req, ucs_status_t status, void *user_data)
{
	struct ucx_reply *rep = user_data;

	ucp_request_free(req);
	reply_done(rep->conn->lsn->eng, rep, status == UCS_OK ? 0 : -1);
}

static void run_reply(struct engine *e, struct ucx_reply *rep)
{
	ucp_request_param_t rp;
	ucs_status_ptr_t r;
	int closed;

	pthread_mutex_lock(&e->lock);
	closed = rep->conn->closed;
	pthread_mutex_unlock(&e->lock);
	if (closed) {
		reply_done(e, rep, -1);
		return;
	}
	memset(&rp, 0, sizeof(rp));
	rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
			  UCP_OP_ATTR_FIELD_FLAGS;
	rp.flags = rep->len >= TFS_UCX_RNDV ? UCP_AM_SEND_FLAG_RNDV : 0;
	rp.cb.send = reply_sent;
	rp.user_data = rep;
	r = ucp_am_send_nbx(rep->conn->uep, TFS_AM_REP, rep->hb, TFS_HDR_SIZE, rep->buf, rep->len,
			    &rp);
	if (r == NULL)
		reply_done(e, rep, 0);
	else if (UCS_PTR_IS_ERR(r))
		reply_done(e, rep, -1);
}

static struct ucx_reply *reply_new(struct ucx_conn *c, const struct tfs_hdr *req, int status,
				   size_t len)
{
	struct ucx_reply *rep = calloc(1, sizeof(*rep));
	struct tfs_hdr h;

	if (!rep)
		return NULL;
	memset(&h, 0, sizeof(h));
	h.type = req->type;
	h.flags = TFS_F_REPLY;
	h.status = status;
	h.id = req->id;
	h.len = (uint32_t)len;
	tfs_hdr_encode(&h, rep->hb);
	rep->op.kind = OP_REPLY;
	rep->op.obj = rep;
	rep->conn = c;
	rep->len = len;
	return rep;
}

/* Work queued by UCX callbacks, now outside them. */
static void run_later(struct engine *e)
{
	struct later *w;

	while ((w = e->lhead)) {
		if (!(e->lhead = w->next))
			e->ltail = &e->lhead;
		switch (w->kind) {
		case L_REQ:
			/* the owner's code runs without the worker: its replies
			 * (from this or any thread) drive the worker themselves */
			pthread_mutex_unlock(&e->wlock);
			e->lsn->on_req(&w->req->req, e->lsn->arg);
			pthread_mutex_lock(&e->wlock);
			break;
		case L_REFUSE: {
			struct ucx_reply *rep = reply_new(w->conn, &w->hdr, w->status, 0);

			if (rep) {
				pthread_mutex_lock(&e->lock);
				w->conn->refs++;
				pthread_mutex_unlock(&e->lock);
				run_reply(e, rep);
			}
			conn_close(e, w->conn, w->force);
			conn_unref(e, w->conn);
			break;
		}
		case L_CLOSE:
			conn_close(e, w->conn, w->force);
			conn_unref(e, w->conn);
			break;
		case L_CLOSED:
			pthread_mutex_unlock(&e->wlock);
			e->lsn->on_close((struct tfs_conn *)w->conn, e->lsn->arg);
			pthread_mutex_lock(&e->wlock);
			conn_unref(e, w->conn);
			break;
		}
		free(w);
	}
}

static void run_stop(struct engine *e)
{
	struct ucx_lsn *l = e->lsn;
	int i;

	if (l) {
		l->closing = 1;
		while (l->conns)
			conn_close(e, l->conns, 1);
	}
	/* let the closes go out */
	for (i = 0; i < 100 && ucp_worker_progress(e->worker); i++)
		;
	e->stop = 1;
}

static void run_op(struct engine *e, struct op *op)
{
	switch (op->kind) {
	case OP_CONNECT:
		run_connect(e, op->obj);
		break;
	case OP_CALL:
		run_call(e, op->obj);
		break;
	case OP_EP_CLOSE:
		run_ep_close(e, op->obj);
		break;
	case OP_REPLY:
		run_reply(e, op->obj);
		break;
	case OP_CONN_CLOSE: {
		struct ucx_conn *c = op->obj;

		conn_close(e, c, 1);
		free(op);
		conn_unref(e, c);
		break;
	}
	case OP_STOP:
		run_stop(e);
		break;
	}
}

static void *engine_main(void *arg)
{
	struct engine *e = arg;
	struct epoll_event ev[2];
	uint64_t v;
	int n, i;

	cur_engine = e;
	pthread_mutex_lock(&e->wlock);
	while (!e->stop) {
		struct op *q;
		int busy;
		ucs_status_t st;

		pthread_mutex_lock(&e->lock);
		q = e->qhead;
		e->qhead = NULL;
		e->qtail = &e->qhead;
		pthread_mutex_unlock(&e->lock);
		while (q) {
			struct op *next = q->next;

			run_op(e, q);
			q = next;
		}
		while (ucp_worker_progress(e->worker))
			;
		run_later(e);
		if (e->stop)
			break;
		pthread_mutex_lock(&e->lock);
		busy = e->qhead != NULL;
		pthread_mutex_unlock(&e->lock);
		if (busy || e->lhead)
			continue;
		st = ucp_worker_arm(e->worker);
		if (st == UCS_ERR_BUSY || fail_due(e))
			continue;
		if (st != UCS_OK) {
			say("libtfs", "UCX worker cannot sleep: %s", ucs_status_string(st));
			break;
		}
		pthread_mutex_unlock(&e->wlock);
		if ((n = epoll_wait(e->epfd, ev, 2, -1)) < 0 && errno != EINTR) {
			pthread_mutex_lock(&e->wlock);
			break;
		}
		for (i = 0; i < n; i++)
			if (ev[i].data.fd == e->wakefd && read(e->wakefd, &v, sizeof(v)) < 0) {
				/* drained by a thread driving the worker */
			}
		pthread_mutex_lock(&e->wlock);
	}
	pthread_mutex_unlock(&e->wlock);
	return NULL;
}

static struct tfs_lsn *u_lsn_open(const char *addr, const unsigned char *secret,
				  const char *name, tfs_req_fn on_req, tfs_close_fn on_close,
				  void *arg, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	ucp_listener_params_t p;
	ucp_listener_attr_t a;
	struct ucx_lsn *l;
	struct engine *e;
	ucs_status_t st;
	char host[64], port[16];
	socklen_t len;

	if (parse_addr(addr, &ss, &len) < 0) {
		snprintf(err, errlen, "bad address '%s': %s", addr, strerror(errno));
		return NULL;
	}
	if (!(l = calloc(1, sizeof(*l)))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!(e = engine_new(err, errlen))) {
		free(l);
		return NULL;
	}
	l->ops = &tfs_tp_ucx;
	l->eng = e;
	e->lsn = l;
	memcpy(l->secret, secret, TFS_SECRET_LEN);
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->on_req = on_req;
	l->on_close = on_close;
	l->arg = arg;
	memset(&p, 0, sizeof(p));
	p.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
	p.sockaddr.addr = (const struct sockaddr *)&ss;
	p.sockaddr.addrlen = len;
	p.conn_handler.cb = conn_request;
	p.conn_handler.arg = l;
	TFS_SIGS_BLOCKED(st = ucp_listener_create(e->worker, &p, &l->listener));
	if (st != UCS_OK) {
		snprintf(err, errlen, "cannot listen at '%s': %s", addr, ucs_status_string(st));
		l->listener = NULL;
		goto fail;
	}
	memset(&a, 0, sizeof(a));
	a.field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR;
	if ((st = ucp_listener_query(l->listener, &a)) != UCS_OK ||
	    getnameinfo((struct sockaddr *)&a.sockaddr, sizeof(a.sockaddr), host, sizeof(host),
			port, sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
		snprintf(err, errlen, "cannot tell the UCX listener's address");
		goto fail;
	}
	snprintf(l->addr, sizeof(l->addr), a.sockaddr.ss_family == AF_INET6 ? "ucx:[%s]:%s" :
		 "ucx:%s:%s", host, port);
	if (engine_start(e, err, errlen) < 0)
		goto fail;
	return (struct tfs_lsn *)l;
fail:
	if (l->listener)
		ucp_listener_destroy(l->listener);
	engine_free(e);
	free(l);
	return NULL;
}

static const char *u_lsn_addr(const struct tfs_lsn *tl)
{
	return ((const struct ucx_lsn *)tl)->addr;
}

/* A listener is closed, not destroyed: its connections are closed, its
 * thread stops, and the UCX listener and worker stay until the process
 * ends (the only callers close it on the way out).  UCX cannot destroy a
 * listener while a connection to it is half-way in: a client whose
 * connection data arrives after ucp_listener_destroy() has UCX's async
 * thread hand it to the freed listener, which crashes the process
 * (openucx/ucx#11087, seen here in 1.13 when a node's second process
 * connects to its manager as the manager exits).  A connection that
 * arrives later waits, unanswered, until the process is gone. */
static void u_lsn_close(struct tfs_lsn *tl)
{
	struct ucx_lsn *l = (struct ucx_lsn *)tl;

	engine_halt(l->eng);
	pthread_mutex_lock(&g_lock);
	l->next_retired = g_retired;
	g_retired = l;
	pthread_mutex_unlock(&g_lock);
}

static int u_req_reply(struct tfs_req *req, int status, const struct iovec *iov, int iovcnt)
{
	struct ucx_conn *c = (struct ucx_conn *)req->conn;
	struct engine *e = c->lsn->eng;
	struct ucx_reply *rep;
	size_t total = 0;
	int i, rc;

	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (total > TFS_MAX_BODY || !(rep = reply_new(c, &req->hdr, status, total))) {
		free(req->body);
		free(req);
		conn_unref(e, c);
		return -1;
	}
	free(req->body);
	free(req);	/* its reference on c goes to rep */
	if (total && (iovcnt > 1 || cur_engine == e)) {
		/* one buffer that outlives this call */
		char *p;

		if (!(rep->copy = p = malloc(total))) {
			conn_unref(e, c);
			free(rep);
			return -1;
		}
		for (i = 0; i < iovcnt; i++) {
			memcpy(p, iov[i].iov_base, iov[i].iov_len);
			p += iov[i].iov_len;
		}
		rep->buf = rep->copy;
	} else if (total) {
		rep->buf = iov[0].iov_base;
	}
	if (cur_engine == e) {	/* a callback answering at once */
		pthread_mutex_lock(&e->wlock);
		run_reply(e, rep);
		pthread_mutex_unlock(&e->wlock);
		return 0;
	}
	rep->waiting = 1;
	if (pthread_mutex_trylock(&e->wlock) == 0) {
		engine_mute(e, 1);
		/* nobody drives the worker: send on this thread */
		run_reply(e, rep);
		if (drive(e, &rep->done, tfsi_now_ms() + SEND_TIMEOUT_MS) < 0) {
			/* the peer does not take it: drop the connection */
			pthread_mutex_lock(&e->lock);
			c->refs++;
			pthread_mutex_unlock(&e->lock);
			conn_close(e, c, 1);
			conn_unref(e, c);
			drive(e, &rep->done, 0);
			rep->rc = -1;
		}
		worker_release(e);
		rc = rep->rc;
		conn_unref(e, c);
		free(rep->copy);
		free(rep);
		return rc;
	}
	engine_submit(e, &rep->op);
	pthread_mutex_lock(&e->lock);
	if (wait_flag(e, &rep->done, tfsi_now_ms() + SEND_TIMEOUT_MS) < 0) {
		struct op *op = calloc(1, sizeof(*op));

		/* the peer does not take it: drop the connection, which ends the send */
		c->refs++;
		pthread_mutex_unlock(&e->lock);
		if (op) {
			op->kind = OP_CONN_CLOSE;
			op->obj = c;
			engine_submit(e, op);
		} else {
			conn_unref(e, c);
		}
		pthread_mutex_lock(&e->lock);
		wait_flag(e, &rep->done, 0);
		rep->rc = -1;
	}
	pthread_mutex_unlock(&e->lock);
	rc = rep->rc;
	conn_unref(e, c);
	free(rep->copy);
	free(rep);
	return rc;
}

static void u_conn_set(struct tfs_conn *conn, void *data)
{
	((struct ucx_conn *)conn)->data = data;
}

static void *u_conn_get(struct tfs_conn *conn)
{
	return ((struct ucx_conn *)conn)->data;
}

/* A forked child: the parent's context and engines are not ours to use or
 * clean up (their threads are not here, their memory is shared with UCX's
 * in the parent); the next call makes new ones. */
static void u_forked(void)
{
	pthread_mutex_init(&g_lock, NULL);
	g_ctx = NULL;
	g_ctx_refs = 0;
	g_eps = NULL;
	g_eps_refs = 0;
}

const struct tfs_tp_ops tfs_tp_ucx = {
	.name = "ucx",
	.ep_connect = u_ep_connect,
	.ep_call = u_ep_call,
	.ep_broken = u_ep_broken,
	.ep_wait_closed = u_ep_wait_closed,
	.ep_close = u_ep_close,
	.lsn_open = u_lsn_open,
	.lsn_addr = u_lsn_addr,
	.lsn_close = u_lsn_close,
	.req_reply = u_req_reply,
	.conn_set = u_conn_set,
	.conn_get = u_conn_get,
	.forked = u_forked,
};
