/*
 * transport.c - the functions of transport.h, dispatched to a backend:
 * by the address prefix for the functions that make an object, by the
 * object's operations for the rest.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "transport.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../libcommon/banned.h"

#ifndef TFS_LIBDIR
#define TFS_LIBDIR "/usr/local/lib"
#endif
#define UCX_PLUGIN "libtfs-ucx.so"

static pthread_mutex_t ucx_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct tfs_tp_ops *ucx_ops;
static char ucx_err[320];
static int ucx_forked;	/* UCX was started before this process forked */

/* dlopen the plugin at @p; 1 when it is loaded.  With ucx_lock held. */
static int try_path(const char *p)
{
	void *h;

	if (access(p, R_OK) != 0)
		return 0;
	if (!(h = dlopen(p, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(ucx_err, sizeof(ucx_err), "%s", dlerror());
		return 0;
	}
	if (!(ucx_ops = dlsym(h, "tfs_tp_ucx"))) {
		snprintf(ucx_err, sizeof(ucx_err), "%s: no tfs_tp_ucx", p);
		dlclose(h);
		return 0;
	}
	return 1;	/* kept loaded: UCX is not made to be unloaded */
}

static int try_dir(const char *dir, const char *rel)
{
	char p[PATH_MAX];

	return (size_t)snprintf(p, sizeof(p), "%s/%s", dir, rel) < sizeof(p) && try_path(p);
}

/* The directory of the file @path names, in @out. */
static int dir_of(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash || (size_t)(slash - path) >= len)
		return 0;
	memcpy(out, path, (size_t)(slash - path));
	out[slash - path] = '\0';
	return 1;
}

/*
 * The UCX backend lives in a plugin, libtfs-ucx.so, loaded the first time
 * a "ucx:" address is used, so that UCX is not mapped into every program
 * libtfs-posix.so is preloaded into.  It is looked for as TFS_UCX_LIB
 * names it, else beside this library (or in ../lib from a program's
 * directory: bin/tfs-server, lib/libtfs-ucx.so), else in the installed
 * library directory, else on the loader's search path.
 */
static const struct tfs_tp_ops *load_ucx(void)
{
	const char *env = getenv("TFS_UCX_LIB");
	char dir[PATH_MAX], exe[PATH_MAX];
	const struct tfs_tp_ops *ops;
	Dl_info di;
	ssize_t n;

	pthread_mutex_lock(&ucx_lock);
	if (ucx_ops)
		goto out;
	snprintf(ucx_err, sizeof(ucx_err), "%s not found", UCX_PLUGIN);
	if (env && *env) {
		if (!try_path(env) && access(env, R_OK) != 0)
			snprintf(ucx_err, sizeof(ucx_err), "TFS_UCX_LIB '%s': %s", env,
				 strerror(errno));
		goto out;
	}
	if (dladdr((void *)load_ucx, &di) && di.dli_fname &&
	    dir_of(di.dli_fname, dir, sizeof(dir)) &&
	    (try_dir(dir, UCX_PLUGIN) || try_dir(dir, "../lib/" UCX_PLUGIN)))
		goto out;
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
		exe[n] = '\0';
		if (dir_of(exe, dir, sizeof(dir)) &&
		    (try_dir(dir, UCX_PLUGIN) || try_dir(dir, "../lib/" UCX_PLUGIN)))
			goto out;
	}
	if (try_dir(TFS_LIBDIR, UCX_PLUGIN))
		goto out;
	{
		void *h = dlopen(UCX_PLUGIN, RTLD_NOW | RTLD_LOCAL);

		if (h && !(ucx_ops = dlsym(h, "tfs_tp_ucx")))
			dlclose(h);
	}
out:
	ops = ucx_ops;
	pthread_mutex_unlock(&ucx_lock);
	return ops;
}

static const struct tfs_tp_ops *by_addr(const char *addr)
{
	if (strncmp(addr, "ucx:", 4) == 0) {
		if (ucx_forked) {
			/* UCX's threads stayed in the parent: a new context
			 * here never connects (UCX does not support fork) */
			static int said;

			if (!said++)
				fprintf(stderr, "libtfs: UCX does not work in a process forked "
					"from one that used it; exec a program to use TangramFS "
					"over UCX there\n");
			snprintf(ucx_err, sizeof(ucx_err), "UCX was in use before fork");
			return NULL;
		}
		return load_ucx();
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

const char *tfs_ep_hint(const char *addr, int err)
{
	/* UCX refuses at once when its transports cannot connect by socket
	 * address (UCX_TLS=sm,self, as MPICH is given), here or at the
	 * listener: the user only sees "Connection refused" */
	if (err == ECONNREFUSED && addr && strncmp(addr, "ucx:", 4) == 0)
		return " (a ucx: address is reached by socket address, through UCX's tcp: "
		       "set TFS_UCX_TLS=tcp,sm,self for the server and its clients, "
		       "tfs-server(8))";
	return "";
}

static struct tfs_stat stats[TFS_STAT_TYPES];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int counted(uint16_t type, uint64_t t0, int rc)
{
	struct tfs_stat *s = &stats[type < TFS_STAT_TYPES ? type : 0];

	__atomic_add_fetch(&s->calls, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->ns, now_ns() - t0, __ATOMIC_RELAXED);
	if (rc != 0)
		__atomic_add_fetch(&s->failed, 1, __ATOMIC_RELAXED);
	return rc;
}

void tfs_stats_get(struct tfs_stat out[TFS_STAT_TYPES])
{
	for (int i = 0; i < TFS_STAT_TYPES; i++) {
		out[i].calls = __atomic_load_n(&stats[i].calls, __ATOMIC_RELAXED);
		out[i].failed = __atomic_load_n(&stats[i].failed, __ATOMIC_RELAXED);
		out[i].ns = __atomic_load_n(&stats[i].ns, __ATOMIC_RELAXED);
	}
}

int tfs_ep_call(struct tfs_ep *ep, uint16_t type, const struct iovec *iov, int iovcnt,
		void *dst, size_t dstlen, void **rbody, size_t *rlen, int timeout_ms)
{
	uint64_t t0 = now_ns();

	return counted(type, t0, OPS(ep)->ep_call(ep, type, iov, iovcnt, dst, dstlen, rbody,
						  rlen, timeout_ms));
}

int tfs_ep_call_while(struct tfs_ep *ep, uint16_t type, const struct iovec *iov, int iovcnt,
		      void *dst, size_t dstlen, void **rbody, size_t *rlen, int timeout_ms,
		      void (*between)(void *), void *arg)
{
	uint64_t t0 = now_ns();

	if (OPS(ep)->ep_call_while)
		return counted(type, t0, OPS(ep)->ep_call_while(ep, type, iov, iovcnt, dst, dstlen,
								rbody, rlen, timeout_ms,
								between, arg));
	between(arg);
	t0 = now_ns();
	return counted(type, t0, OPS(ep)->ep_call(ep, type, iov, iovcnt, dst, dstlen, rbody,
						  rlen, timeout_ms));
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
		pthread_mutex_lock(&ucx_lock);
		snprintf(err, errlen, "cannot load the UCX transport for '%s': %s", addr, ucx_err);
		pthread_mutex_unlock(&ucx_lock);
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

void tfs_tp_forked(void)
{
	/* the child has one thread, so nobody holds ucx_lock but a thread
	 * that is gone */
	pthread_mutex_init(&ucx_lock, NULL);
	if (ucx_ops) {
		ucx_forked = 1;
		if (ucx_ops->forked)
			ucx_ops->forked();
	}
	tfs_fds_forget();
}
