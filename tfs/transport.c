/*
 * transport.c - the functions of transport.h, dispatched to a backend:
 * by the address prefix for the functions that make an object, by the
 * object's operations for the rest.
 */
#include "transport.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../libcommon/banned.h"

static const struct tfs_tp_ops *by_addr(const char *addr)
{
	if (strncmp(addr, "ucx:", 4) == 0) {
#ifdef TFS_HAVE_UCX
		return &tfs_tp_ucx;
#else
		return NULL;
#endif
	}
	return &tfs_tp_sock;	/* tcp:, unix:, and the refusal of anything else */
}

#define OPS(o) (((const struct tfs_tp_obj *)(const void *)(o))->ops)

struct tfs_ep *tfs_ep_connect(const char *addr, const unsigned char *secret, int timeout_ms)
{
	const struct tfs_tp_ops *ops = by_addr(addr);

	if (!ops) {
		errno = EPROTONOSUPPORT;
		return NULL;
	}
	return ops->ep_connect(addr, secret, timeout_ms);
}

int tfs_ep_call(struct tfs_ep *ep, uint16_t type, const struct iovec *iov, int iovcnt,
		void *dst, size_t dstlen, void **rbody, size_t *rlen, int timeout_ms)
{
	return OPS(ep)->ep_call(ep, type, iov, iovcnt, dst, dstlen, rbody, rlen, timeout_ms);
}

int tfs_ep_broken(struct tfs_ep *ep)
{
	return OPS(ep)->ep_broken(ep);
}

int tfs_ep_wait_closed(struct tfs_ep *ep, int timeout_ms)
{
	return OPS(ep)->ep_wait_closed(ep, timeout_ms);
}

void tfs_ep_close(struct tfs_ep *ep)
{
	if (ep)
		OPS(ep)->ep_close(ep);
}

struct tfs_lsn *tfs_lsn_open(const char *addr, const unsigned char *secret, const char *name,
			     tfs_req_fn on_req, tfs_close_fn on_close, void *arg, char *err,
			     size_t errlen)
{
	const struct tfs_tp_ops *ops = by_addr(addr);

	if (!ops) {
		snprintf(err, errlen, "bad address '%s': this build has no UCX transport", addr);
		return NULL;
	}
	return ops->lsn_open(addr, secret, name, on_req, on_close, arg, err, errlen);
}

const char *tfs_lsn_addr(const struct tfs_lsn *lsn)
{
	return OPS(lsn)->lsn_addr(lsn);
}

void tfs_lsn_close(struct tfs_lsn *lsn)
{
	if (lsn)
		OPS(lsn)->lsn_close(lsn);
}

int tfs_req_reply(struct tfs_req *req, int status, const struct iovec *iov, int iovcnt)
{
	return OPS(req->conn)->req_reply(req, status, iov, iovcnt);
}

void tfs_conn_set(struct tfs_conn *conn, void *data)
{
	OPS(conn)->conn_set(conn, data);
}

void *tfs_conn_get(struct tfs_conn *conn)
{
	return OPS(conn)->conn_get(conn);
}
