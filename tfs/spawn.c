/*
 * spawn.c - libtfs-posix.so across execve(2) and posix_spawn(3): a
 * TangramFS descriptor is an O_PATH descriptor of /dev/null to the kernel,
 * so a new program gets only its number.  The exec calls pass the
 * descriptors on in the environment (TFS_INHERIT) and the new image opens
 * them again; posix_spawn's file actions are recorded as they are added
 * and replayed, with the opens on the mount done here.  The descriptor
 * table itself is posix.c's (posix-int.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <alloca.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdint.h>
#include <unistd.h>

#include "tfs.h"
#include "posix-int.h"
#include "../libcommon/banned.h"

REAL(fcntl);
REAL(execve);
REAL(execvpe);
REAL(fexecve);

/* ---- exec ---------------------------------------------------------------------------
 *
 * A TangramFS descriptor is an O_PATH /dev/null to the kernel, so across
 * execve(2) only its number survives.  Before an exec, the descriptors without
 * FD_CLOEXEC are written into the new image's environment as TFS_INHERIT,
 * one line each, "fd id flags position path" (descriptors with the same
 * id share one open file); the new image's constructor opens the paths
 * again on TangramFS at those numbers, after checking that each number is
 * still /dev/null, and removes the variable.  The position is copied, not
 * shared: what the new image writes moves only its own.
 */

#define INHERIT "TFS_INHERIT="

/* A descriptor a new program is to inherit. */
struct heir {
	int fd;
	struct ofd *o;
};

/* TFS_INHERIT=... for the @n descriptors of @v, or NULL when there are
 * none (or out of memory).  With tab_lock held. */
static char *inherit_fmt(const struct heir *v, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (n == 0 || !(m = open_memstream(&buf, &len)))
		return NULL;
	fputs(INHERIT, m);
	if (offs_ok())
		fprintf(m, "offsets %d\n", offs_fd);
	for (int i = 0; i < n; i++) {
		struct ofd *o = v[i].o;

		fprintf(m, "%d %lx %d %llu %u %s\n", v[i].fd, (unsigned long)(uintptr_t)o,
			o->flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC),
			(unsigned long long)pos_get(o), (unsigned)o->slot, o->rel);
		o->shared = 1;
	}
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Can @o be passed on (it has a path without a newline)? */
static int heritable(const struct ofd *o)
{
	return o && o->rel && !strchr(o->rel, '\n');
}

/* TFS_INHERIT=... for this process's inheritable descriptors (@all: for
 * all of them), or NULL when it has none. */
static char *inherit_env(int all)
{
	struct heir *v = NULL;
	char *env;
	int n = 0, cap = 0;

	RESOLVE(fcntl);
	pthread_mutex_lock(&tab_lock);
	for (int fd = 0; fd < atomic_load(&fdtop); fd++) {
		struct ofd *o = atomic_load(&fdtab[fd]);
		int fdfl;

		if (!heritable(o))
			continue;
		fdfl = real_fcntl(fd, F_GETFD);
		if (fdfl < 0 || (!all && (fdfl & FD_CLOEXEC)))
			continue;
		if (n == cap) {
			struct heir *w = realloc(v, (size_t)(cap = cap ? 2 * cap : 16) * sizeof(*v));

			if (!w)
				break;
			v = w;
		}
		v[n++] = (struct heir){ fd, o };
	}
	env = inherit_fmt(v, n);
	pthread_mutex_unlock(&tab_lock);
	free(v);
	return env;
}

/* @envp without TFS_INHERIT, plus @add if not NULL; NULL when out of
 * memory. */
static char **env_with(char *const envp[], char *add)
{
	size_t n = 0, i, o = 0;
	char **e;

	while (envp && envp[n])
		n++;
	if (!(e = malloc((n + 2) * sizeof(char *))))
		return NULL;
	for (i = 0; i < n; i++)
		if (strncmp(envp[i], INHERIT, sizeof(INHERIT) - 1) != 0)
			e[o++] = envp[i];
	if (add)
		e[o++] = add;
	e[o] = NULL;
	return e;
}

extern char **environ;

static void adopt(const char *list);

/* Could @file be executed (searching PATH when @search and it has no
 * slash)?  Only a guess, to keep the client when exec would fail anyway. */
static int runnable(const char *file, int search)
{
	const char *path = getenv("PATH"), *p, *q;
	char buf[PATH_MAX];

	if (!file)
		return 0;
	if (!search || strchr(file, '/'))
		return access(file, X_OK) == 0;
	for (p = path ? path : "/bin:/usr/bin"; ; p = q + 1) {
		q = strchr(p, ':');
		if (!q)
			q = p + strlen(p);
		if ((size_t)snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(q - p), p,
				     q > p ? "/" : "", file) < sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return 1;
		if (!*q)
			return 0;
	}
}

/*
 * Before an exec of @file: the environment entry for the new image, and
 * when this process is the client itself (not a child forked from it,
 * whose connection is its parent's) and the exec looks likely to succeed,
 * the end of the client as at exit -- every descriptor closed (a sync
 * point), attached data staged out -- since nothing of the client outlives
 * the image.  *@restore then lists every descriptor, to open again if the
 * exec fails after all.
 */
static char *exec_begin(const char *file, int search, char **restore)
{
	char *add;

	*restore = NULL;
	if (in_tfs)
		return NULL;
	add = inherit_env(0);
	if (add && offs_ok())	/* the offsets go with the descriptors */
		real_fcntl(offs_fd, F_SETFD, 0);
	if (atomic_load(&client_pid) == (int)getpid() && runnable(file, search)) {
		*restore = inherit_env(1);
		at_exit();
		atomic_store(&client_pid, 0);
	}
	return add;
}

static void exec_failed(char *restore)
{
	int e = errno;

	RESOLVE(fcntl);	/* (exec_begin() skips it inside libtfs) */
	if (offs_ok())
		real_fcntl(offs_fd, F_SETFD, FD_CLOEXEC);
	if (restore)
		adopt(restore + sizeof(INHERIT) - 1);
	errno = e;
}

/* Run @call with @envp extended for the descriptors. */
#define WITH_INHERIT(file, search, envp, call) \
	do { \
		char *restore_, *add_ = exec_begin(file, search, &restore_); \
		char **env_ = add_ ? env_with(envp, add_) : NULL; \
		int rc_; \
		if (env_) \
			(envp) = env_; \
		rc_ = (call); \
		exec_failed(restore_); \
		free(env_); \
		free(add_); \
		free(restore_); \
		return rc_; \
	} while (0)

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	char *const *ep = envp;

	RESOLVE(execve);
	WITH_INHERIT(path, 0, ep, real_execve(path, argv, ep));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	char *const *ep = envp;

	RESOLVE(execvpe);
	WITH_INHERIT(file, 1, ep, real_execvpe(file, argv, ep));
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	char *const *ep = envp;

	RESOLVE(fexecve);
	WITH_INHERIT("/proc/self/exe", 0, ep, real_fexecve(fd, argv, ep));
}

EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* The arguments of execl() and its kind, up to the NULL, as an array. */
#define VA_ARGV(arg0, ap, argv) \
	do { \
		size_t n_ = 1; \
		va_list c_; \
		va_copy(c_, ap); \
		while (va_arg(c_, char *)) \
			n_++; \
		va_end(c_); \
		argv = alloca((n_ + 1) * sizeof(char *)); \
		argv[0] = (char *)(arg0); \
		for (size_t i_ = 1; i_ <= n_; i_++) \
			argv[i_] = va_arg(ap, char *); \
	} while (0)

EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	char **argv;

	va_start(ap, arg);
	VA_ARGV(arg, ap, argv);
	va_end(ap);
	return execve(path, argv, environ);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	char **argv;

	va_start(ap, arg);
	VA_ARGV(arg, ap, argv);
	va_end(ap);
	return execvpe(file, argv, environ);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	char **argv, *const *envp;

	va_start(ap, arg);
	VA_ARGV(arg, ap, argv);
	envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}

/* ---- posix_spawn ----------------------------------------------------------------
 *
 * glibc's posix_spawn execs in the child without going through execve()
 * above, so it is followed here: the file actions are recorded as they
 * are added (their object is opaque), and a spawn that involves the
 * mount -- TangramFS descriptors in this process, or an action opening a
 * path on the mount -- runs with a copy of the actions in which each such
 * open is done by this process on TangramFS and handed to the child by a
 * dup2, and with TFS_INHERIT in the environment for the descriptors the
 * new program will have, worked out by playing the actions over this
 * process's table.  The offsets' memory file goes along (a dup2 of a
 * descriptor onto itself clears its close-on-exec flag, glibc >= 2.29).
 * Any other spawn, and one whose actions were not all seen being added,
 * passes through as it is.
 */

enum { A_OPEN, A_CLOSE, A_DUP2, A_CHDIR, A_FCHDIR, A_CLOSEFROM, A_OTHER };

struct sp_act {
	int kind, fd, newfd, oflag;
	mode_t mode;
	char *path;
};

struct sp_rec {
	const posix_spawn_file_actions_t *fa;
	int n, cap;
	struct sp_act *v;
	struct sp_rec *next;
};

static pthread_mutex_t sp_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sp_rec *sp_recs;

static void sp_clear(struct sp_rec *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->v[i].path);
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
}

/* The record of @fa (made when @create); with sp_lock held. */
static struct sp_rec *sp_find(const posix_spawn_file_actions_t *fa, int create)
{
	struct sp_rec *r;

	for (r = sp_recs; r && r->fa != fa; r = r->next)
		;
	if (!r && create && (r = calloc(1, sizeof(*r)))) {
		r->fa = fa;
		r->next = sp_recs;
		sp_recs = r;
	}
	return r;
}

static void sp_forget(const posix_spawn_file_actions_t *fa)
{
	struct sp_rec **pp, *r;

	pthread_mutex_lock(&sp_lock);
	for (pp = &sp_recs; (r = *pp) && r->fa != fa; pp = &r->next)
		;
	if (r) {
		*pp = r->next;
		sp_clear(r);
		free(r);
	}
	pthread_mutex_unlock(&sp_lock);
}

/* Record an action added to @fa (the real call succeeded).  A record that
 * cannot be kept is dropped whole, so that the count check fails. */
static void sp_add(const posix_spawn_file_actions_t *fa, struct sp_act a)
{
	struct sp_rec *r;

	pthread_mutex_lock(&sp_lock);
	if ((r = sp_find(fa, 1))) {
		if (r->n == r->cap) {
			int cap = r->cap ? 2 * r->cap : 8;
			struct sp_act *v = realloc(r->v, (size_t)cap * sizeof(*v));

			if (!v) {
				sp_clear(r);
				r->n = -1;	/* never matches */
				pthread_mutex_unlock(&sp_lock);
				free(a.path);
				return;
			}
			r->v = v;
			r->cap = cap;
		}
		if (r->n >= 0)
			r->v[r->n++] = a;
		else
			free(a.path);
	} else {
		free(a.path);
	}
	pthread_mutex_unlock(&sp_lock);
}

/* The C library's own, which sp_plan() also calls. */
REAL(posix_spawn_file_actions_init);
REAL(posix_spawn_file_actions_destroy);
REAL(posix_spawn_file_actions_addopen);
REAL(posix_spawn_file_actions_addclose);
REAL(posix_spawn_file_actions_adddup2);
REAL(posix_spawn_file_actions_addchdir_np);
REAL(posix_spawn_file_actions_addfchdir_np);
REAL(posix_spawn_file_actions_addclosefrom_np);
REAL(posix_spawn_file_actions_addtcsetpgrp_np);

#define SP_REAL(name, ...) \
	int rc; \
	RESOLVE(name); \
	if (!real_##name) \
		return ENOSYS; \
	rc = real_##name(__VA_ARGS__)

EXPORT int posix_spawn_file_actions_init(posix_spawn_file_actions_t *fa)
{
	SP_REAL(posix_spawn_file_actions_init, fa);
	if (rc == 0)
		sp_forget(fa);
	return rc;
}

EXPORT int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *fa)
{
	SP_REAL(posix_spawn_file_actions_destroy, fa);
	sp_forget(fa);
	return rc;
}

EXPORT int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa, int fd,
					    const char *path, int oflag, mode_t mode)
{
	SP_REAL(posix_spawn_file_actions_addopen, fa, fd, path, oflag, mode);
	if (rc == 0)
		sp_add(fa, (struct sp_act){ A_OPEN, fd, -1, oflag, mode, strdup(path) });
	return rc;
}

EXPORT int posix_spawn_file_actions_addclose(posix_spawn_file_actions_t *fa, int fd)
{
	SP_REAL(posix_spawn_file_actions_addclose, fa, fd);
	if (rc == 0)
		sp_add(fa, (struct sp_act){ A_CLOSE, fd, -1, 0, 0, NULL });
	return rc;
}

EXPORT int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *fa, int fd, int newfd)
{
	SP_REAL(posix_spawn_file_actions_adddup2, fa, fd, newfd);
	if (rc == 0)
		sp_add(fa, (struct sp_act){ A_DUP2, fd, newfd, 0, 0, NULL });
	return rc;
}

EXPORT int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *fa,
						const char *path)
{
	SP_REAL(posix_spawn_file_actions_addchdir_np, fa, path);
	if (rc == 0)
		sp_add(fa, (struct sp_act){ A_CHDIR, -1, -1, 0, 0, strdup(path) });
	return rc;
}

EXPORT int posix_spawn_file_actions_addfchdir_np(posix_spawn_file_actions_t *fa, int fd)
{
	SP_REAL(posix_spawn_file_actions_addfchdir_np, fa, fd);
	if (rc == 0)
		sp_add(fa, (struct sp_act){ A_FCHDIR, fd, -1, 0, 0, NULL });
	return rc;
}

EXPORT int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *fa, int from)
{
	SP_REAL(posix_spawn_file_actions_addclosefrom_np, fa, from);
	if (rc == 0)
		sp_add(fa, (struct sp_act){ A_CLOSEFROM, from, -1, 0, 0, NULL });
	return rc;
}

EXPORT int posix_spawn_file_actions_addtcsetpgrp_np(posix_spawn_file_actions_t *fa, int fd)
{
	SP_REAL(posix_spawn_file_actions_addtcsetpgrp_np, fa, fd);
	if (rc == 0)
		sp_add(fa, (struct sp_act){ A_OTHER, fd, -1, 0, 0, NULL });
	return rc;
}

/* The child's descriptor table, as far as TangramFS goes. */
struct sp_fd {
	struct ofd *o;
	int cloexec;
};

/* A spawn's plan: the actions to run, the descriptors opened for them
 * here (closed after the spawn), TFS_INHERIT for the new program. */
struct sp_plan {
	posix_spawn_file_actions_t fa;
	int fa_made;
	int opened[64], nopened;
	char *env;
	char cwd[PATH_MAX];	/* the child's, after chdir actions ("?": unknown) */
};

/* Are the C library's file-action functions all there? */
static int sp_resolved(void)
{
	RESOLVE(posix_spawn_file_actions_init);
	RESOLVE(posix_spawn_file_actions_destroy);
	RESOLVE(posix_spawn_file_actions_addopen);
	RESOLVE(posix_spawn_file_actions_addclose);
	RESOLVE(posix_spawn_file_actions_adddup2);
	RESOLVE(posix_spawn_file_actions_addchdir_np);
	RESOLVE(posix_spawn_file_actions_addfchdir_np);
	RESOLVE(posix_spawn_file_actions_addclosefrom_np);
	RESOLVE(posix_spawn_file_actions_addtcsetpgrp_np);
	return real_posix_spawn_file_actions_init && real_posix_spawn_file_actions_destroy &&
	       real_posix_spawn_file_actions_addopen && real_posix_spawn_file_actions_addclose &&
	       real_posix_spawn_file_actions_adddup2 &&
	       real_posix_spawn_file_actions_addchdir_np &&
	       real_posix_spawn_file_actions_addfchdir_np &&
	       real_posix_spawn_file_actions_addclosefrom_np &&
	       real_posix_spawn_file_actions_addtcsetpgrp_np;
}

static void sp_plan_end(struct sp_plan *p)
{
	if (p->fa_made)
		real_posix_spawn_file_actions_destroy(&p->fa);
	for (int i = 0; i < p->nopened; i++)
		close(p->opened[i]);
	free(p->env);
}

/*
 * Add the action @a to the plan @p, an open on the mount done here and
 * handed over by a dup2, and play it over the child's table @t (@maxfd
 * descriptors).  Returns 0, or -1 (*@err set when an open on the mount
 * failed).
 */
static int sp_play(struct sp_plan *p, const struct sp_act *a, struct sp_fd *t, int maxfd,
		   int *err)
{
	char rel[PATH_MAX], full[PATH_MAX * 2];
	const char *path = a->path;
	int rc = 0, tfd;

	switch (a->kind) {
	case A_OPEN:
		/* a relative path after a chdir action is taken from
		 * there; after an fchdir it cannot be known */
		if (path[0] != '/' && p->cwd[0]) {
			if (p->cwd[0] != '/' ||
			    (size_t)snprintf(full, sizeof(full), "%s/%s", p->cwd, path) >=
				    sizeof(full))
				goto plain;
			path = full;
		}
		if (mount_path(AT_FDCWD, path, rel, sizeof(rel)) <= 0)
			goto plain;
		if (p->nopened == (int)(sizeof(p->opened) / sizeof(p->opened[0]))) {
			*err = EMFILE;
			return -1;
		}
		if ((tfd = mount_openfd(rel, a->oflag | O_CLOEXEC, path)) < 0) {
			*err = errno;
			return -1;
		}
		p->opened[p->nopened++] = tfd;
		rc = real_posix_spawn_file_actions_adddup2(&p->fa, tfd, a->fd);
		t[a->fd] = (struct sp_fd){ ofd_get(tfd), (a->oflag & O_CLOEXEC) != 0 };
		break;
	plain:
		rc = real_posix_spawn_file_actions_addopen(&p->fa, a->fd, a->path, a->oflag,
						      a->mode);
		t[a->fd].o = NULL;
		break;
	case A_CLOSE:
		rc = real_posix_spawn_file_actions_addclose(&p->fa, a->fd);
		t[a->fd].o = NULL;
		break;
	case A_DUP2:
		rc = real_posix_spawn_file_actions_adddup2(&p->fa, a->fd, a->newfd);
		if (a->fd == a->newfd)
			t[a->fd].cloexec = 0;
		else
			t[a->newfd] = (struct sp_fd){ t[a->fd].o, 0 };
		break;
	case A_CHDIR:
		rc = real_posix_spawn_file_actions_addchdir_np(&p->fa, a->path);
		if (a->path[0] == '/')
			snprintf(p->cwd, sizeof(p->cwd), "%s", a->path);
		else
			snprintf(p->cwd, sizeof(p->cwd), "?");
		break;
	case A_FCHDIR:
		rc = real_posix_spawn_file_actions_addfchdir_np(&p->fa, a->fd);
		snprintf(p->cwd, sizeof(p->cwd), "?");
		break;
	case A_CLOSEFROM:
		rc = real_posix_spawn_file_actions_addclosefrom_np(&p->fa, a->fd);
		for (int fd = a->fd; fd >= 0 && fd < maxfd; fd++)
			t[fd].o = NULL;
		break;
	default:
		rc = real_posix_spawn_file_actions_addtcsetpgrp_np(&p->fa, a->fd);
		break;
	}
	return rc != 0 ? -1 : 0;
}

/*
 * Work out the plan of a spawn with the actions @fa (may be NULL).
 * Returns 1 with the plan made, 0 when the spawn does not involve the
 * mount or cannot be followed (it then passes through), or -1 with *@err
 * set when an open on the mount fails (the spawn fails with it, as it
 * would in the child).
 */
static int sp_plan(const posix_spawn_file_actions_t *fa, struct sp_plan *p, int *err)
{
	struct sp_fd *t = NULL;
	struct sp_rec *r = NULL;
	struct heir *v = NULL;
	int maxfd = 0, any = 0, ok = 0, n = 0;

	memset(p, 0, sizeof(*p));
	*err = 0;
	if (in_tfs || !mountlen || !sp_resolved())
		return 0;
	RESOLVE(fcntl);
	pthread_mutex_lock(&sp_lock);
	if (fa) {
		r = sp_find(fa, 0);
		if (fa->__used != (r ? r->n : 0))
			goto out;	/* actions we did not see added */
		for (int i = 0; r && i < r->n; i++) {
			struct sp_act *a = &r->v[i];
			char rel[PATH_MAX];

			if (a->kind == A_OPEN && mount_path(AT_FDCWD, a->path, rel, sizeof(rel)) > 0)
				any = 1;
			if (a->fd >= maxfd)
				maxfd = a->fd + 1;
			if (a->newfd >= maxfd)
				maxfd = a->newfd + 1;
		}
	}
	for (int fd = 0; fd < atomic_load(&fdtop); fd++)
		if (heritable(atomic_load(&fdtab[fd]))) {
			any = 1;
			if (fd >= maxfd)
				maxfd = fd + 1;
		}
	if (!any || maxfd > MAXFD || !(t = calloc((size_t)maxfd, sizeof(*t))))
		goto out;
	for (int fd = 0; fd < maxfd; fd++) {
		struct ofd *o = atomic_load(&fdtab[fd]);

		if (heritable(o)) {
			t[fd].o = o;
			t[fd].cloexec = (real_fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0;
		}
	}
	if (real_posix_spawn_file_actions_init(&p->fa) != 0)
		goto out;
	p->fa_made = 1;
	for (int i = 0; r && i < r->n; i++)
		if (sp_play(p, &r->v[i], t, maxfd, err) < 0)
			goto out;
	if (!(v = calloc((size_t)maxfd, sizeof(*v))))
		goto out;
	for (int fd = 0; fd < maxfd; fd++)
		if (t[fd].o && !t[fd].cloexec)
			v[n++] = (struct heir){ fd, t[fd].o };
	pthread_mutex_lock(&tab_lock);
	p->env = inherit_fmt(v, n);
	pthread_mutex_unlock(&tab_lock);
	if (p->env && offs_ok() &&
	    real_posix_spawn_file_actions_adddup2(&p->fa, offs_fd, offs_fd) != 0)
		goto out;
	ok = 1;
out:
	pthread_mutex_unlock(&sp_lock);
	free(t);
	free(v);
	if (!ok) {
		sp_plan_end(p);
		memset(p, 0, sizeof(*p));
	}
	return ok ? 1 : *err ? -1 : 0;
}

typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);

static int do_spawn(spawn_fn *real, pid_t *pid, const char *file,
		    const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
		    char *const argv[], char *const envp[])
{
	struct sp_plan p;
	char **env = NULL;
	int err, rc = sp_plan(fa, &p, &err);

	if (rc == 0)
		return real(pid, file, fa, attr, argv, envp);
	if (rc < 0)
		return err;
	if (p.env && !(env = env_with(envp, p.env))) {
		sp_plan_end(&p);
		return ENOMEM;
	}
	rc = real(pid, file, &p.fa, attr, argv, env ? env : envp);
	free(env);
	sp_plan_end(&p);
	return rc;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	static spawn_fn *real;

	if (!real)
		real = (spawn_fn *)dlsym(RTLD_NEXT, "posix_spawn");
	return do_spawn(real, pid, path, fa, attr, argv, envp);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	static spawn_fn *real;

	if (!real)
		real = (spawn_fn *)dlsym(RTLD_NEXT, "posix_spawnp");
	return do_spawn(real, pid, file, fa, attr, argv, envp);
}

/* Is @fd on /dev/null, as every TangramFS descriptor is? */
static int is_devnull(int fd)
{
	struct stat a, b;
	int yes;

	in_tfs++;
	yes = fstat(fd, &a) == 0 && S_ISCHR(a.st_mode) && stat("/dev/null", &b) == 0 &&
	      a.st_rdev == b.st_rdev;
	in_tfs--;
	return yes;
}

/* Open again the descriptors @list names (TFS_INHERIT's format). */
static void adopt(const char *list)
{
	char *copy = strdup(list), *line, *save = NULL;
	struct { unsigned long id; struct ofd *o; } seen[64];
	int nseen = 0;

	RESOLVE(fcntl);
	if (!copy || !mountlen)
		goto out;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long pos;
		unsigned long id;
		unsigned slot;
		int fd, flags, off = 0, i;
		struct ofd *o = NULL;

		if (sscanf(line, "offsets %d", &fd) == 1) {
			/* the memory file of the offsets (not when it is
			 * mapped already: a failed exec's own list) */
			if (!offs && fd >= 0 && offs_map(fd) == 0)
				real_fcntl(fd, F_SETFD, FD_CLOEXEC);
			continue;
		}
		if (sscanf(line, "%d %lx %d %llu %u %n", &fd, &id, &flags, &pos, &slot, &off) != 5 ||
		    !off || fd < 0 || fd >= MAXFD || ofd_get(fd) || !is_devnull(fd))
			continue;
		if (real_fcntl(fd, F_GETFL) < 0 || !(real_fcntl(fd, F_GETFL) & O_PATH))
			continue;
		for (i = 0; i < nseen; i++)
			if (seen[i].id == id)
				o = seen[i].o;
		if (!o) {
			tfs_file_t *h;

			in_tfs++;
			client_start();
			h = tfs_open_flags(line + off, model_flags());
			in_tfs--;
			if (!h || !(o = calloc(1, sizeof(*o)))) {
				warn_once(line + off);
				if (h) {
					in_tfs++;
					tfs_close(h);
					in_tfs--;
				}
				continue;
			}
			o->h = h;
			o->rel = strdup(line + off);
			o->flags = flags;
			o->pos = pos;
			if (offs && slot > 0 && slot < NSLOTS) {
				o->slot = slot;
				o->shared = 1;
			}
			pthread_mutex_init(&o->lock, NULL);
			if (nseen < (int)(sizeof(seen) / sizeof(seen[0])))
				seen[nseen++] = (typeof(seen[0])){ id, o };
			if (!atomic_exchange(&exit_registered, 1))
				atexit(at_exit);
			atomic_store(&client_pid, (int)getpid());
		}
		ofd_put(fd, o);
		std_take(fd);
	}
out:
	free(copy);
}

/* The new image's side: open again what TFS_INHERIT names, once. */
void inherit(void)
{
	const char *v = getenv("TFS_INHERIT");
	char *copy;

	if (!v)
		return;
	copy = strdup(v);
	unsetenv("TFS_INHERIT");
	if (copy)
		adopt(copy);
	free(copy);
}
