/*
 * tp_sock.c - the sockets backend of transport.h: TCP and Unix-domain
 * stream sockets carrying length-prefixed frames (tfs-protocol(5)).
 *
 * A listener's progress thread owns an epoll set with the listening socket,
 * an eventfd that wakes it to stop, and every connection; it reads frames
 * without blocking and hands complete requests to the owner.  Replies are
 * written by whichever thread answers, under the connection's send lock.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../libcommon/banned.h"

#define SEND_TIMEOUT_MS 10000

struct tfs_ep {
	const struct tfs_tp_ops *ops;	/* &tfs_tp_sock */
	int fd;
	int broken;
	uint64_t next_id;
	pthread_mutex_t lock;
	unsigned char secret[TFS_SECRET_LEN];
};

struct tfs_conn {
	const struct tfs_tp_ops *ops;
	int fd;
	int refs;		/* the progress thread's, plus one per request */
	int closed;
	unsigned serial;
	struct tfs_lsn *lsn;
	pthread_mutex_t lock;	/* refs, closed, sending */
	void *data;
	/* the frame being read */
	unsigned char hb[TFS_HDR_SIZE];
	size_t hgot, bgot;
	unsigned char rx[4096];	/* bytes read ahead: a small frame comes in one recv */
	size_t rxoff, rxlen;
	struct tfs_hdr hdr;
	unsigned char *body;
	struct tfs_conn *prev, *next;
};

struct tfs_lsn {
	const struct tfs_tp_ops *ops;
	int fd, epfd, wakefd;
	pthread_t thread;
	char addr[160];
	char name[64];
	char unix_path[128];
	unsigned char secret[TFS_SECRET_LEN];
	tfs_req_fn on_req;
	tfs_close_fn on_close;
	void *arg;
	unsigned serial;
	struct tfs_conn *conns;	/* open connections (progress thread only) */
};

/* Wait for @events on @fd until @deadline (ms); 0 ready, -1 with errno. */
static int wait_fd(int fd, short events, long long deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		long long left = deadline - tfsi_now_ms();
		int rc;

		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		rc = poll(&p, 1, left > 60000 ? 60000 : (int)left);
		if (rc > 0) {
			if ((p.revents & (POLLERR | POLLNVAL)) ||
			    ((p.revents & POLLHUP) && !(p.revents & POLLIN) && events == POLLIN)) {
				errno = ECONNRESET;
				return -1;
			}
			return 0;
		}
		if (rc < 0 && errno != EINTR)
			return -1;
	}
}

/* Send all of @iov on the non-blocking @fd before @deadline. */
static int send_all(int fd, struct iovec *iov, int iovcnt, long long deadline)
{
	while (iovcnt > 0) {
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)iovcnt };
		ssize_t n = sendmsg(fd, &m, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				if (wait_fd(fd, POLLOUT, deadline) < 0)
					return -1;
				continue;
			}
			return -1;
		}
		while (iovcnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			iovcnt--;
		}
		if (iovcnt > 0) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

/* Receive exactly @len bytes from the non-blocking @fd before @deadline. */
static int recv_all(int fd, void *buf, size_t len, long long deadline)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = recv(fd, p, len, 0);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (n == 0) {
			errno = ECONNRESET;
			return -1;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (wait_fd(fd, POLLIN, deadline) < 0)
				return -1;
		} else if (errno != EINTR) {
			return -1;
		}
	}
	return 0;
}

/*
 * Receive at least @min and at most @len bytes from the non-blocking @fd
 * before @deadline into @buf, waiting first (a reply is never there the
 * moment its request has gone, so a recv before the poll would only say
 * EAGAIN); the count into *@got.  A caller with one request outstanding
 * may read past the reply's header: whatever follows is that reply's body.
 */
static int recv_some(int fd, void *buf, size_t len, size_t min, size_t *got, long long deadline)
{
	char *p = buf;

	*got = 0;
	while (*got < min) {
		ssize_t n;

		if (wait_fd(fd, POLLIN, deadline) < 0)
			return -1;
		n = recv(fd, p + *got, len - *got, 0);
		if (n > 0) {
			*got += (size_t)n;
		} else if (n == 0) {
			errno = ECONNRESET;
			return -1;
		} else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			return -1;
		}
	}
	return 0;
}

/* Parse @addr into a socket address; returns the family or -1 (errno). */
static int parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (strncmp(addr, "unix:", 5) == 0) {
		struct sockaddr_un *un = (struct sockaddr_un *)ss;
		size_t n = strlen(addr + 5);

		if (n == 0 || n >= sizeof(un->sun_path)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path, addr + 5, n + 1);
		*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
		return AF_UNIX;
	}
	if (strncmp(addr, "tcp:", 4) == 0)
		return tfsi_hostport(addr + 4, ss, len) < 0 ? -1 : ss->ss_family;
	errno = EPROTONOSUPPORT;
	return -1;
}

static void tune(int fd, int family)
{
	int one = 1;

	if (family != AF_UNIX)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static struct tfs_ep *sock_ep_connect(const char *addr, const unsigned char *secret, int timeout_ms)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct tfs_ep *ep;
	int family, fd, e;
	long long deadline = tfsi_now_ms() + timeout_ms;

	if ((family = parse_addr(addr, &ss, &len)) < 0)
		return NULL;
	fd = tfs_fd_high(socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
	if (fd < 0)
		return NULL;
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		socklen_t el = sizeof(e);

		if (errno != EINPROGRESS || wait_fd(fd, POLLOUT, deadline) < 0)
			goto fail;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
			goto fail;
		if (e) {
			errno = e;
			goto fail;
		}
	}
	tune(fd, family);
	if (!(ep = calloc(1, sizeof(*ep))))
		goto fail;
	ep->ops = &tfs_tp_sock;
	ep->fd = fd;
	ep->next_id = 1;
	pthread_mutex_init(&ep->lock, NULL);
	memcpy(ep->secret, secret, TFS_SECRET_LEN);
	return ep;
fail:
	e = errno;
	tfs_fd_close(fd);
	errno = e;
	return NULL;
}

static int sock_ep_call_while(struct tfs_ep *ep, uint16_t type, const struct iovec *iov,
			      int iovcnt, void *dst, size_t dstlen, void **rbody, size_t *rlen,
			      int timeout_ms, void (*between)(void *), void *arg)
{
	long long deadline = tfsi_now_ms() + timeout_ms;
	unsigned char hb[TFS_HDR_SIZE], rb[TFS_HDR_SIZE + 4096];
	struct iovec v[16];
	struct tfs_hdr h;
	size_t total = 0, got, early;
	void *body = NULL;
	int i, e;

	if (rbody)
		*rbody = NULL;
	*rlen = 0;
	if (iovcnt > 15) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < iovcnt; i++) {
		v[i + 1] = iov[i];
		total += iov[i].iov_len;
	}
	if (total > TFS_MAX_BODY) {
		errno = EMSGSIZE;
		return -1;
	}
	pthread_mutex_lock(&ep->lock);
	if (ep->broken) {
		pthread_mutex_unlock(&ep->lock);
		errno = EPIPE;
		return -1;
	}
	memset(&h, 0, sizeof(h));
	h.type = type;
	h.len = (uint32_t)total;
	h.id = ep->next_id++;
	memcpy(h.secret, ep->secret, TFS_SECRET_LEN);
	tfs_hdr_encode(&h, hb);
	v[0].iov_base = hb;
	v[0].iov_len = sizeof(hb);
	/* the header and what came of the body with it in one recv */
	if (send_all(ep->fd, v, iovcnt + 1, deadline) < 0)
		goto broken;
	if (between)
		between(arg);
	if (recv_some(ep->fd, rb, sizeof(rb), TFS_HDR_SIZE, &got, deadline) < 0)
		goto broken;
	early = got - TFS_HDR_SIZE;
	if (tfs_hdr_decode(rb, &h) < 0 || !(h.flags & TFS_F_REPLY) || h.type != type ||
	    early > h.len) {
		errno = EPROTO;
		goto broken;
	}
	if (h.len) {
		if (dst && h.len <= dstlen) {
			body = dst;
		} else if (!rbody || !(body = malloc(h.len))) {
			errno = rbody ? ENOMEM : EMSGSIZE;
			goto broken;
		}
		memcpy(body, rb + TFS_HDR_SIZE, early);
		if (recv_all(ep->fd, (char *)body + early, h.len - early, deadline) < 0) {
			if (body != dst)
				free(body);
			goto broken;
		}
		if (body != dst)
			*rbody = body;
	}
	*rlen = h.len;
	pthread_mutex_unlock(&ep->lock);
	return h.status < 0 ? EPROTO : h.status;
broken:
	e = errno;
	ep->broken = 1;
	shutdown(ep->fd, SHUT_RDWR);
	pthread_mutex_unlock(&ep->lock);
	errno = e;
	return -1;
}

static int sock_ep_call(struct tfs_ep *ep, uint16_t type, const struct iovec *iov, int iovcnt,
			void *dst, size_t dstlen, void **rbody, size_t *rlen, int timeout_ms)
{
	return sock_ep_call_while(ep, type, iov, iovcnt, dst, dstlen, rbody, rlen, timeout_ms,
				  NULL, NULL);
}

static int sock_ep_broken(struct tfs_ep *ep)
{
	int b;

	pthread_mutex_lock(&ep->lock);
	b = ep->broken;
	pthread_mutex_unlock(&ep->lock);
	return b;
}

static int sock_ep_wait_closed(struct tfs_ep *ep, int timeout_ms)
{
	long long deadline = tfsi_now_ms() + timeout_ms;
	char c;
	int rc = -1;

	pthread_mutex_lock(&ep->lock);
	for (;;) {
		ssize_t n = recv(ep->fd, &c, 1, 0);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			rc = 0;
			break;
		}
		if (n < 0 && errno == EAGAIN && wait_fd(ep->fd, POLLIN, deadline) < 0) {
			if (errno != ETIMEDOUT)
				rc = 0;
			break;
		}
	}
	pthread_mutex_unlock(&ep->lock);
	if (rc < 0)
		errno = ETIMEDOUT;
	return rc;
}

static void sock_ep_close(struct tfs_ep *ep)
{
	if (!ep)
		return;
	tfs_fd_close(ep->fd);
	pthread_mutex_destroy(&ep->lock);
	free(ep);
}

/* ---- listener ------------------------------------------------------------ */

static void lsn_log(struct tfs_lsn *l, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "%s: ", l->name);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n = (int)strlen(line);
	line[n] = '\n';
	if (write(2, line, (size_t)n + 1) < 0) {
		/* nowhere left to say it */
	}
}

static void conn_unref(struct tfs_conn *c)
{
	int last;

	pthread_mutex_lock(&c->lock);
	last = --c->refs == 0;
	pthread_mutex_unlock(&c->lock);
	if (last) {
		tfs_fd_close(c->fd);
		free(c->body);
		pthread_mutex_destroy(&c->lock);
		free(c);
	}
}

static void conn_drop(struct tfs_lsn *l, struct tfs_conn *c)
{
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	pthread_mutex_lock(&c->lock);
	c->closed = 1;
	shutdown(c->fd, SHUT_RDWR);
	pthread_mutex_unlock(&c->lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		l->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (l->on_close)
		l->on_close(c, l->arg);
	conn_unref(c);
}

/* Reply on @c without a request object (refusals). */
static void reply_raw(struct tfs_conn *c, const struct tfs_hdr *req, int status)
{
	unsigned char hb[TFS_HDR_SIZE];
	struct tfs_hdr h;
	struct iovec v;

	memset(&h, 0, sizeof(h));
	h.type = req->type;
	h.flags = TFS_F_REPLY;
	h.status = status;
	h.id = req->id;
	tfs_hdr_encode(&h, hb);
	v.iov_base = hb;
	v.iov_len = sizeof(hb);
	pthread_mutex_lock(&c->lock);
	send_all(c->fd, &v, 1, tfsi_now_ms() + 1000);
	pthread_mutex_unlock(&c->lock);
}

/* Fill c->rx with one recv when it is used up; 1 when it holds bytes,
 * 0 when the socket has none now, -1 to drop the connection. */
static int rx_fill(struct tfs_conn *c)
{
	ssize_t n;

	if (c->rxoff < c->rxlen)
		return 1;
	do
		n = recv(c->fd, c->rx, sizeof(c->rx), 0);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return -1;
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	c->rxoff = 0;
	c->rxlen = (size_t)n;
	return 1;
}

/* Move up to @len bytes read ahead into @dst; returns how many. */
static size_t rx_take(struct tfs_conn *c, void *dst, size_t len)
{
	size_t n = c->rxlen - c->rxoff < len ? c->rxlen - c->rxoff : len;

	memcpy(dst, c->rx + c->rxoff, n);
	c->rxoff += n;
	return n;
}

/* The frame in c->hb and c->body is whole: check its secret, hand it on.
 * Returns 0, or -1 to drop the connection. */
static int conn_frame(struct tfs_lsn *l, struct tfs_conn *c)
{
	struct tfs_req *r;

	if (!tfs_secret_eq(c->hdr.secret, l->secret)) {
		lsn_log(l, "connection %u: request without the secret refused, closing it", c->serial);
		reply_raw(c, &c->hdr, EACCES);
		return -1;
	}
	if (!(r = malloc(sizeof(*r)))) {
		reply_raw(c, &c->hdr, ENOMEM);
		free(c->body);
	} else {
		r->conn = c;
		r->hdr = c->hdr;
		r->body = c->body;
		pthread_mutex_lock(&c->lock);
		c->refs++;
		pthread_mutex_unlock(&c->lock);
		l->on_req(r, l->arg);
	}
	c->body = NULL;
	c->hgot = c->bgot = 0;
	return 0;
}

/*
 * Read what @c has; returns 0 to keep it, -1 to drop it.  A header and a
 * small body come in one recv (through c->rx); a large body is read
 * straight into place.  Once what was read ahead is used up after a
 * whole frame it returns without asking the socket again: the epoll set
 * is level-triggered, so a connection with more to read is seen again,
 * after the others that were ready before it.
 */
static int conn_read(struct tfs_lsn *l, struct tfs_conn *c)
{
	for (;;) {
		int rc;

		if (c->hgot < TFS_HDR_SIZE) {
			if ((rc = rx_fill(c)) <= 0)
				return rc;
			c->hgot += rx_take(c, c->hb + c->hgot, TFS_HDR_SIZE - c->hgot);
			if (c->hgot < TFS_HDR_SIZE)
				continue;
			if (tfs_hdr_decode(c->hb, &c->hdr) < 0 || (c->hdr.flags & TFS_F_REPLY)) {
				lsn_log(l, "connection %u: malformed or oversized frame header, closing it",
					c->serial);
				return -1;
			}
			c->bgot = 0;
			if (c->hdr.len && !(c->body = malloc(c->hdr.len))) {
				lsn_log(l, "connection %u: no memory for a %u-byte request, closing it",
					c->serial, (unsigned)c->hdr.len);
				return -1;
			}
		}
		if (c->bgot < c->hdr.len && c->rxoff < c->rxlen) {
			c->bgot += rx_take(c, c->body + c->bgot, c->hdr.len - c->bgot);
		} else if (c->bgot < c->hdr.len) {
			ssize_t n = recv(c->fd, c->body + c->bgot, c->hdr.len - c->bgot, 0);

			if (n == 0)
				return -1;
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
			}
			c->bgot += (size_t)n;
		}
		if (c->bgot < c->hdr.len)
			continue;
		if (conn_frame(l, c) < 0)
			return -1;
		if (c->rxoff == c->rxlen)
			return 0;
	}
}

static void lsn_accept(struct tfs_lsn *l)
{
	for (;;) {
		struct epoll_event ev;
		struct tfs_conn *c;
		int fd = tfs_fd_high(accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC));

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE)
				lsn_log(l, "cannot accept a connection: %s", strerror(errno));
			return;
		}
		if (!(c = calloc(1, sizeof(*c)))) {
			tfs_fd_close(fd);
			continue;
		}
		tune(fd, l->unix_path[0] ? AF_UNIX : AF_INET);
		c->ops = &tfs_tp_sock;
		c->fd = fd;
		c->refs = 1;
		c->lsn = l;
		c->serial = ++l->serial;
		pthread_mutex_init(&c->lock, NULL);
		ev.events = EPOLLIN | EPOLLRDHUP;
		ev.data.ptr = c;
		if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			tfs_fd_close(fd);
			pthread_mutex_destroy(&c->lock);
			free(c);
			continue;
		}
		c->next = l->conns;
		if (l->conns)
			l->conns->prev = c;
		l->conns = c;
	}
}

static void *progress(void *arg)
{
	struct tfs_lsn *l = arg;
	struct epoll_event ev[64];

	for (;;) {
		int n = epoll_wait(l->epfd, ev, 64, -1);

		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			if (ev[i].data.ptr == &l->wakefd) {
				while (l->conns)
					conn_drop(l, l->conns);
				return NULL;
			}
			if (ev[i].data.ptr == l) {
				lsn_accept(l);
				continue;
			}
			if (conn_read(l, ev[i].data.ptr) < 0)
				conn_drop(l, ev[i].data.ptr);
		}
	}
	return NULL;
}

static struct tfs_lsn *sock_lsn_open(const char *addr, const unsigned char *secret, const char *name,
			     tfs_req_fn on_req, tfs_close_fn on_close, void *arg, char *err,
			     size_t errlen)
{
	struct sockaddr_storage ss;
	struct epoll_event ev;
	struct tfs_lsn *l;
	socklen_t len;
	int family, one = 1;

	if (!(l = calloc(1, sizeof(*l)))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	l->ops = &tfs_tp_sock;
	l->fd = l->epfd = l->wakefd = -1;
	if ((family = parse_addr(addr, &ss, &len)) < 0) {
		snprintf(err, errlen, "bad address '%s': %s", addr, strerror(errno));
		goto fail;
	}
	l->fd = tfs_fd_high(socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
	if (l->fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		goto fail;
	}
	if (family == AF_UNIX) {
		struct stat st;
		const char *path = ((struct sockaddr_un *)&ss)->sun_path;

		if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
			unlink(path);
		snprintf(l->unix_path, sizeof(l->unix_path), "%s", path);
	} else {
		setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	}
	if (bind(l->fd, (struct sockaddr *)&ss, len) < 0) {
		snprintf(err, errlen, "cannot listen at '%s': %s", addr, strerror(errno));
		l->unix_path[0] = '\0';
		goto fail;
	}
	if (family == AF_UNIX)
		chmod(l->unix_path, 0600);
	if (listen(l->fd, 128) < 0) {
		snprintf(err, errlen, "listen: %s", strerror(errno));
		goto fail;
	}
	len = sizeof(ss);
	getsockname(l->fd, (struct sockaddr *)&ss, &len);
	if (family == AF_UNIX) {
		snprintf(l->addr, sizeof(l->addr), "unix:%s", l->unix_path);
	} else {
		char host[64], port[16];

		getnameinfo((struct sockaddr *)&ss, len, host, sizeof(host), port, sizeof(port),
			    NI_NUMERICHOST | NI_NUMERICSERV);
		if (family == AF_INET6)
			snprintf(l->addr, sizeof(l->addr), "tcp:[%s]:%s", host, port);
		else
			snprintf(l->addr, sizeof(l->addr), "tcp:%s:%s", host, port);
	}
	memcpy(l->secret, secret, TFS_SECRET_LEN);
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->on_req = on_req;
	l->on_close = on_close;
	l->arg = arg;
	if ((l->epfd = tfs_fd_high(epoll_create1(EPOLL_CLOEXEC))) < 0 ||
	    (l->wakefd = tfs_fd_high(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))) < 0) {
		snprintf(err, errlen, "epoll: %s", strerror(errno));
		goto fail;
	}
	ev.events = EPOLLIN;
	ev.data.ptr = l;
	epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->fd, &ev);
	ev.data.ptr = &l->wakefd;
	epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->wakefd, &ev);
	if (tfs_thread_start(&l->thread, NULL, progress, l) != 0) {
		snprintf(err, errlen, "cannot start the progress thread");
		goto fail;
	}
	return l;
fail:
	if (l->unix_path[0])
		unlink(l->unix_path);
	if (l->fd >= 0)
		tfs_fd_close(l->fd);
	if (l->epfd >= 0)
		tfs_fd_close(l->epfd);
	if (l->wakefd >= 0)
		tfs_fd_close(l->wakefd);
	free(l);
	return NULL;
}

static const char *sock_lsn_addr(const struct tfs_lsn *lsn)
{
	return lsn->addr;
}

static void sock_lsn_close(struct tfs_lsn *l)
{
	uint64_t one = 1;

	if (!l)
		return;
	if (write(l->wakefd, &one, sizeof(one)) < 0) {
		/* the counter cannot overflow from one write */
	}
	pthread_join(l->thread, NULL);
	if (l->unix_path[0])
		unlink(l->unix_path);
	tfs_fd_close(l->fd);
	tfs_fd_close(l->epfd);
	tfs_fd_close(l->wakefd);
	free(l);
}

static int sock_req_reply(struct tfs_req *req, int status, const struct iovec *iov, int iovcnt)
{
	struct tfs_conn *c = req->conn;
	unsigned char hb[TFS_HDR_SIZE];
	struct iovec v[16];
	struct tfs_hdr h;
	size_t total = 0;
	int i, rc = -1;

	for (i = 0; i < iovcnt && i < 15; i++) {
		v[i + 1] = iov[i];
		total += iov[i].iov_len;
	}
	memset(&h, 0, sizeof(h));
	h.type = req->hdr.type;
	h.flags = TFS_F_REPLY;
	h.status = status;
	h.id = req->hdr.id;
	h.len = (uint32_t)total;
	tfs_hdr_encode(&h, hb);
	v[0].iov_base = hb;
	v[0].iov_len = sizeof(hb);
	pthread_mutex_lock(&c->lock);
	if (!c->closed && total <= TFS_MAX_BODY)
		rc = send_all(c->fd, v, i + 1, tfsi_now_ms() + SEND_TIMEOUT_MS);
	pthread_mutex_unlock(&c->lock);
	free(req->body);
	free(req);
	conn_unref(c);
	return rc;
}

static void sock_conn_set(struct tfs_conn *conn, void *data)
{
	conn->data = data;
}

static void *sock_conn_get(struct tfs_conn *conn)
{
	return conn->data;
}

const struct tfs_tp_ops tfs_tp_sock = {
	.name = "sockets",
	.ep_connect = sock_ep_connect,
	.ep_call = sock_ep_call,
	.ep_broken = sock_ep_broken,
	.ep_wait_closed = sock_ep_wait_closed,
	.ep_close = sock_ep_close,
	.lsn_open = sock_lsn_open,
	.lsn_addr = sock_lsn_addr,
	.lsn_close = sock_lsn_close,
	.req_reply = sock_req_reply,
	.conn_set = sock_conn_set,
	.conn_get = sock_conn_get,
	.ep_call_while = sock_ep_call_while,
};
