/*
 * posix.c - libtfs-posix.so (libtfs-posix(7)): POSIX and stdio calls on
 * paths under TFS_MOUNT run on TangramFS, mapped to the primitives by
 * TFS_CONSISTENCY as in the dissertation's Table 5.5:
 *
 *	call	posix			commit			session
 *	write	write; attach		write			write
 *	read	query; read/read_peer	query; read/read_peer	query; read/read_peer
 *	fsync	-			attach_file		-
 *	close	close			attach_file; close	attach_file; close
 *
 * Under posix the attach of a write is deferred until another client asks
 * (tfsi_pwrite_pending, client.c: the write is visible to every later
 * read all the same), so fsync and close attach_file as under commit;
 * TFS_POSIX_DEFER=0 attaches each write instead, as in the table.
 *
 * With TFS_DESIGN=lock, Table 5.3 instead (POSIX consistency through
 * locks): write = acquire_lock(write); write, read = acquire_lock(read);
 * read, fsync nothing, close = release_lock_file; close.
 *
 * Everything else passes through to the next definition (dlsym RTLD_NEXT).
 * A TangramFS descriptor is a real O_PATH descriptor of /dev/null, so that
 * its number is taken and reads and writes that do not come through this
 * layer (the C library's own, as under stdio's stdout, or a program run
 * without it) fail with EBADF instead of vanishing; the table below maps
 * it to the open file (shared by dup'd descriptors).
 * Streams are fopencookie(3) streams over such a descriptor.  A
 * thread-local guard passes through every call libtfs itself makes.
 * Passing the descriptors on across execve(2) and posix_spawn(3) is
 * spawn.c's; what it uses of the table here is in posix-int.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <aio.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <sys/uio.h>
#include <sys/time.h>
#include <utime.h>
#include <stdint.h>
#include <unistd.h>

#include "tfs.h"
#include "client-int.h"
#include "proto.h"
#include "posix-int.h"
#include "../libcommon/banned.h"

_Static_assert(sizeof(struct stat) == sizeof(struct stat64), "stat64 is stat here");
_Static_assert(sizeof(struct statfs) == sizeof(struct statfs64), "statfs64 is statfs here");
_Static_assert(sizeof(struct statvfs) == sizeof(struct statvfs64), "statvfs64 is statvfs here");

enum model { M_POSIX, M_COMMIT, M_SESSION };

struct ofd *_Atomic fdtab[MAXFD];
atomic_int fdtop;
pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;
__thread int in_tfs __attribute__((tls_model("initial-exec")));
static char mount[PATH_MAX];
size_t mountlen;
static char pfsdir[PATH_MAX];
static enum model model = M_POSIX;
static int lockdesign;		/* TFS_DESIGN=lock: Table 5.3 */
static int defer = 1;		/* posix: attach when asked (TFS_POSIX_DEFER, 0: each write) */
atomic_int exit_registered;
static atomic_int warned;
atomic_int client_pid;

REAL(open);
REAL(mmap);
REAL(mmap64);
REAL(openat);
REAL(close);
REAL(read);
REAL(write);
REAL(pread);
REAL(pwrite);
REAL(readv);
REAL(writev);
REAL(preadv);
REAL(pwritev);
REAL(preadv2);
REAL(pwritev2);
REAL(lseek);
REAL(fsync);
REAL(fflush);
REAL(fflush_unlocked);
REAL(fdatasync);
REAL(fstat);
REAL(stat);
REAL(lstat);
REAL(fstatat);
REAL(statx);
REAL(unlink);
REAL(unlinkat);
REAL(mkdir);
REAL(mkdirat);
REAL(rmdir);
REAL(symlink);
REAL(symlinkat);
REAL(link);
REAL(linkat);
REAL(mknodat);
REAL(chdir);
REAL(getcwd);
REAL(chmod);
REAL(fchmod);
REAL(fchmodat);
REAL(chown);
REAL(lchown);
REAL(fchown);
REAL(fchownat);
REAL(rename);
REAL(renameat);
REAL(renameat2);
REAL(access);
REAL(faccessat);
REAL(statfs);
REAL(fstatfs);
REAL(statvfs);
REAL(fstatvfs);
REAL(dup);
REAL(dup2);
REAL(dup3);
REAL(fcntl);
REAL(ftruncate);
REAL(truncate);
REAL(copy_file_range);
REAL(fopen);
REAL(fdopen);
REAL(opendir);
REAL(fdopendir);
REAL(readdir);
REAL(readdir64);
REAL(closedir);
REAL(rewinddir);
REAL(remove);
REAL(realpath);
REAL(mkstemp);
REAL(mkostemp);
REAL(mkstemps);
REAL(mkostemps);
REAL(mkdtemp);
REAL(scandir);
REAL(getxattr);
REAL(readlink);
REAL(lgetxattr);
REAL(listxattr);
REAL(llistxattr);
REAL(setxattr);
REAL(lsetxattr);
REAL(removexattr);
REAL(lremovexattr);
REAL(fsetxattr);
REAL(fgetxattr);
REAL(flistxattr);
REAL(fremovexattr);

static void fork_parent(void);
static void fork_child(void);

__attribute__((constructor)) static void setup(void)
{
	const char *m = getenv("TFS_MOUNT"), *c = getenv("TFS_CONSISTENCY"),
		   *p = getenv("TFS_PFS_DIR"), *d = getenv("TFS_DESIGN"),
		   *df = getenv("TFS_POSIX_DEFER");

	if (m && m[0] == '/' && strlen(m) < sizeof(mount)) {
		memcpy(mount, m, strlen(m) + 1);
		mountlen = strlen(mount);
		while (mountlen > 1 && mount[mountlen - 1] == '/')
			mount[--mountlen] = '\0';
	}
	if (mountlen && p && *p && p[0] != '/') {
		/*
		 * Refused: the mount's own getcwd and realpath turn the backing
		 * directory's paths back into the mount's by its real path, which
		 * a relative one made them ask for again without end (a stack
		 * overflow), and a child that starts in another directory (a
		 * shell's after "cd /tfs") would find another backing directory.
		 */
		fprintf(stderr, "libtfs-posix: TFS_PFS_DIR '%s' is not an absolute path; "
			"%s is not mounted\n", p, mount);
		mountlen = 0;
		mount[0] = '\0';
	} else if (p && strlen(p) < sizeof(pfsdir)) {
		memcpy(pfsdir, p, strlen(p) + 1);
	}
	if (d && strcmp(d, "lock") == 0) {
		lockdesign = 1;
	} else if (d && *d && strcmp(d, "sync") != 0) {
		fprintf(stderr, "libtfs-posix: TFS_DESIGN '%s' is not sync or lock; using "
			"sync\n", d);
	}
	if (!c || !*c || strcmp(c, "posix") == 0) {
		model = M_POSIX;
	} else if (strcmp(c, "commit") == 0) {
		model = M_COMMIT;
	} else if (strcmp(c, "session") == 0) {
		model = M_SESSION;
	} else {
		fprintf(stderr, "libtfs-posix: TFS_CONSISTENCY '%s' is not posix, commit or "
			"session; using posix\n", c);
	}
	if (df && strcmp(df, "0") == 0)
		defer = 0;
	pthread_atfork(NULL, fork_parent, fork_child);
	inherit();
}

/* ---- paths ---------------------------------------------------------------- */

/*
 * A directory on the mount is a directory of the backing directory: a
 * chdir(2) into the mount goes there (so that what the kernel resolves
 * relative to it, for the calls not taken, lands in the backing
 * directory, never on the real path the mount names), and a directory
 * descriptor opened on the mount is one of it.  Names under the backing
 * directory's real path, @dir, are turned back into the mount's, so that
 * a relative path there is a path on the mount.  0, or -1 (ERANGE) when
 * it does not fit in @len.
 */
static char pfsreal[PATH_MAX];	/* the backing directory's real path, "" unknown */
static size_t pfsreallen;

static int pfs_to_mount(char *dir, size_t len)
{
	char tmp[PATH_MAX];
	size_t rest;

	if (!mountlen || !pfsdir[0])
		return 0;
	if (!pfsreal[0]) {
		if (!realpath(pfsdir, tmp))
			return 0;
		memcpy(pfsreal, tmp, strlen(tmp) + 1);
		pfsreallen = strlen(pfsreal);
	}
	if (strncmp(dir, pfsreal, pfsreallen) != 0 ||
	    (dir[pfsreallen] && dir[pfsreallen] != '/'))
		return 0;
	rest = strlen(dir + pfsreallen);
	if (mountlen + rest + 1 > len) {
		errno = ERANGE;
		return -1;
	}
	memmove(dir + mountlen, dir + pfsreallen, rest + 1);
	memcpy(dir, mount, mountlen);
	return 0;
}

/* @path (relative to @dirfd) absolute and lexically normal in @out;
 * 0, or -1 when it cannot be. */
static int norm_path(int dirfd, const char *path, char *out, size_t outlen)
{
	char abs[PATH_MAX * 2];
	size_t o = 0;
	const char *p;

	if (path[0] == '/') {
		if ((size_t)snprintf(abs, sizeof(abs), "%s", path) >= sizeof(abs))
			return -1;
	} else {
		char dir[PATH_MAX];

		if (dirfd == AT_FDCWD) {
			if (!getcwd(dir, sizeof(dir)) || pfs_to_mount(dir, sizeof(dir)) < 0)
				return -1;
		} else {
			char link[64];
			ssize_t n;

			snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
			if ((n = readlink(link, dir, sizeof(dir) - 1)) < 0)
				return -1;
			dir[n] = '\0';
			/* a directory of the mount is one of the backing directory */
			if (pfs_to_mount(dir, sizeof(dir)) < 0)
				return -1;
		}
		if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", dir, path) >= sizeof(abs))
			return -1;
	}
	for (p = abs; *p;) {
		const char *q;
		size_t n;

		while (*p == '/')
			p++;
		for (q = p; *q && *q != '/'; q++)
			;
		n = (size_t)(q - p);
		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			if (o + n + 2 > outlen)
				return -1;
			out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		p = q;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

/* 1 when the absolute, lexically normal @out is the mount or under it,
 * with the part below it in @rel ("" for the mount itself); 0 when not;
 * -1 when it does not fit. */
static int below_mount(const char *out, char *rel, size_t rellen)
{
	if (strncmp(out, mount, mountlen) != 0 || (out[mountlen] && out[mountlen] != '/'))
		return 0;
	if ((size_t)snprintf(rel, rellen, "%s", out + mountlen + (out[mountlen] ? 1 : 0)) >=
	    rellen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 1;
}

/*
 * Symbolic links on the mount are made in the backing directory
 * (do_symlink), and a path through one reaches what its target names, as
 * the kernel's would: the TangramFS file of the target's own name (a file
 * only in burst buffers too), never a second file named through the link,
 * which stage-out would write through the link over the target.  Each
 * component of @rel but the last is looked up in the backing directory,
 * and the last too when @follow; a link's target, relative to the link's
 * directory or absolute (on the mount, or in the backing directory's real
 * path), replaces it, lexically normal, and the walk starts again.
 * Returns 1 with @rel the name on the mount; 0 when a link leads out of
 * the mount, with the backing path through that link in @rel, for the
 * kernel to follow (it starts with '/': the file is not TangramFS's, see
 * kpath()); -1 with ELOOP or ENAMETOOLONG.
 */
static int mount_links(char *rel, size_t rellen, int follow)
{
	char p[PATH_MAX], t[PATH_MAX], abs[PATH_MAX * 2], out[PATH_MAX * 2];
	size_t i = 0, e;
	int hops = 0, e0 = errno;
	ssize_t n;

	for (;; i = e + 1) {
		for (e = i; rel[e] && rel[e] != '/'; e++)
			;
		if (e == i)
			break;
		if ((rel[e] || follow) &&
		    (size_t)snprintf(p, sizeof(p), "%s/%.*s", pfsdir, (int)e, rel) < sizeof(p) &&
		    (n = readlink(p, t, sizeof(t) - 1)) > 0) {
			int r;

			t[n] = '\0';
			if (++hops > 40) {
				errno = ELOOP;
				return -1;
			}
			if (t[0] == '/')
				r = snprintf(abs, sizeof(abs), "%s%s", t, rel + e);
			else
				r = snprintf(abs, sizeof(abs), "%s/%.*s%s%s", mount, (int)i, rel, t,
					     rel + e);
			if ((size_t)r >= sizeof(abs) ||
			    norm_path(AT_FDCWD, abs, out, sizeof(out)) < 0 ||
			    pfs_to_mount(out, sizeof(out)) < 0) {
				errno = ENAMETOOLONG;
				return -1;
			}
			if (strncmp(out, mount, mountlen) != 0 ||
			    (out[mountlen] && out[mountlen] != '/')) {
				/* the kernel follows the link in the backing
				 * directory (by its real path, absolute:
				 * pfs_to_mount() found it) as it would have */
				if ((size_t)snprintf(out, sizeof(out), "%s/%s",
						     pfsreal[0] ? pfsreal : pfsdir, rel) >=
				    sizeof(out) || strlen(out) >= rellen) {
					errno = ENAMETOOLONG;
					return -1;
				}
				memcpy(rel, out, strlen(out) + 1);
				errno = e0;
				return 0;
			}
			if (below_mount(out, rel, rellen) < 0)
				return -1;
			e = (size_t)-1;		/* from the start of the new name */
			continue;
		}
		if (!rel[e])
			break;
	}
	errno = e0;
	return 1;
}

/*
 * Make @path (relative to @dirfd) absolute and lexically normal; when it is
 * under the mount, put the part below it in @rel ("" for the mount itself),
 * its links resolved (mount_links(): the last component's only when
 * @follow), and return 1; return 0 for any other path (@rel then "", or
 * the kernel's path a link on the mount led to), -1 when it cannot be
 * resolved.
 */
static int mount_path_at(int dirfd, const char *path, char *rel, size_t rellen, int follow)
{
	char out[PATH_MAX * 2];
	int t;

	if (rellen)
		rel[0] = '\0';
	if (!mountlen || !path || norm_path(dirfd, path, out, sizeof(out)) < 0)
		return 0;
	if ((t = below_mount(out, rel, rellen)) <= 0)
		return t;
	return mount_links(rel, rellen, follow);
}

int mount_path(int dirfd, const char *path, char *rel, size_t rellen)
{
	return mount_path_at(dirfd, path, rel, rellen, 1);
}

/* mount_path() for a call on a link itself (lstat, unlink, rename, ...):
 * the last component is not followed. */
static int mount_path_nf(int dirfd, const char *path, char *rel, size_t rellen)
{
	return mount_path_at(dirfd, path, rel, rellen, 0);
}

/* The path to give the kernel for @path, which mount_path() found not on
 * the mount (@rel): what a link on the mount leads to outside it, else
 * @path itself. */
static const char *kpath(const char *path, const char *rel)
{
	return rel[0] == '/' ? rel : path;
}

/*
 * A path outside the mount that names it on the way ("/tfs/..", "/tfs/../etc")
 * cannot be given to the kernel as it is (the mount point need not exist):
 * @path lexically normal in @buf then, else @path itself.
 */
static const char *outside_path(const char *path, char *buf, size_t len)
{
	if (buf[0] == '/')
		return buf;	/* a link on the mount led out of it */
	if (!mountlen || !path || strncmp(path, mount, mountlen) != 0 ||
	    path[mountlen] != '/' || norm_path(AT_FDCWD, path, buf, len) < 0)
		return path;
	return buf;
}

/* The backing-directory path of @rel, for directories. */
static int pfs_path(const char *rel, char *out, size_t len)
{
	if ((size_t)snprintf(out, len, "%s/%s", pfsdir, rel) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* ---- the descriptor table ---------------------------------------------------- */

struct ofd *ofd_get(int fd)
{
	return fd >= 0 && fd < MAXFD ? atomic_load(&fdtab[fd]) : NULL;
}

/* The server was lost (tfsi_on_lost): said once, naming it, in place of
 * what the call that found it would say ("/tfs/f: Broken pipe", or a
 * library's own words for the error, ROMIO's fcntl lock). */
static void lost_server(int err)
{
	static atomic_int said;
	const char *sv = getenv("TFS_SERVER");

	if (atomic_exchange(&said, 1))
		return;
	atomic_store(&warned, 1);
	fprintf(stderr, "libtfs-posix: lost the TangramFS server (%s): %s\n", sv ? sv : "?",
		strerror(err));
}

/* warn_once(), @hint after the error */
static void warn_once_hint(const char *what, const char *hint)
{
	if (!atomic_exchange(&warned, 1))
		fprintf(stderr, "libtfs-posix: %s: %s%s\n", what, strerror(errno), hint);
}

void warn_once(const char *what)
{
	warn_once_hint(what, "");
}

/*
 * ---- shared offsets -----------------------------------------------------------
 *
 * The kernel keeps a file's offset in the open file, which fork(2) and
 * execve(2) pass on: the commands of "for f in *; do cmd $f; done > out"
 * each write after the last.  Here the offset of an open file lives in a
 * slot of a shared memory file (memfd, "tfs-offsets"), mapped shared:
 * a forked child sees the same slot, and an exec'd program maps the same
 * memory file again (its number and the slots go in TFS_INHERIT).  Slot 0
 * counts the slots handed out; a slot that never left this process is
 * used again after its file closes, one that may have is not.  When the
 * memory file cannot be made or is full, an offset is the process's own.
 */
_Atomic uint64_t *offs;
int offs_fd = -1;
static dev_t offs_dev;
static ino_t offs_ino;
static uint32_t free_slot[256];	/* under tab_lock */
static int nfree;

/* Map the memory file @fd; 0 or -1. */
int offs_map(int fd)
{
	struct stat st;
	void *m;

	RESOLVE(fstat);
	if (real_fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size != (off_t)(NSLOTS * sizeof(uint64_t)))
		return -1;
	m = mmap(NULL, NSLOTS * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	offs = m;
	offs_fd = fd;
	offs_dev = st.st_dev;
	offs_ino = st.st_ino;
	return 0;
}

/* Is offs_fd still the memory file (and not closed, or another file now,
 * by a program that closed what it did not open)? */
int offs_ok(void)
{
	struct stat st;

	RESOLVE(fstat);
	return offs && offs_fd >= 0 && real_fstat(offs_fd, &st) == 0 && st.st_dev == offs_dev &&
	       st.st_ino == offs_ino;
}

/* A new slot for an offset starting at @pos, or 0; with tab_lock held. */
static uint32_t slot_new(uint64_t pos)
{
	uint64_t n;
	uint32_t s;

	if (!offs) {
		int fd, hi;

		RESOLVE(fcntl);
		RESOLVE(close);
		if ((fd = memfd_create("tfs-offsets", MFD_CLOEXEC)) < 0)
			return 0;
		/* high, as TangramFS's own descriptors are, but not one that
		 * a forked child closes: it passes it on when it execs */
		if ((hi = real_fcntl(fd, F_DUPFD_CLOEXEC, tfs_fd_base() + 64)) >= 0) {
			real_close(fd);
			fd = hi;
		}
		if (ftruncate(fd, NSLOTS * sizeof(uint64_t)) < 0 || offs_map(fd) < 0) {
			real_close(fd);
			return 0;
		}
	}
	if (nfree > 0) {
		s = free_slot[--nfree];
	} else {
		n = atomic_fetch_add(&offs[0], 1) + 1;
		if (n >= NSLOTS)
			return 0;
		s = (uint32_t)n;
	}
	atomic_store(&offs[s], pos);
	return s;
}

/* @o's slot can be used again, unless it may have left this process. */
static void slot_free(struct ofd *o)
{
	pthread_mutex_lock(&tab_lock);
	if (o->slot && !o->shared && nfree < (int)(sizeof(free_slot) / sizeof(free_slot[0])))
		free_slot[nfree++] = o->slot;
	pthread_mutex_unlock(&tab_lock);
}

uint64_t pos_get(struct ofd *o)
{
	return o->slot ? atomic_load(&offs[o->slot]) : o->pos;
}

static void pos_set(struct ofd *o, uint64_t v)
{
	if (o->slot)
		atomic_store(&offs[o->slot], v);
	else
		o->pos = v;
}

/* Move the offset on by @n, returning where it was: the @n bytes there
 * are the caller's, even against another process writing through the
 * same open file. */
static uint64_t pos_take(struct ofd *o, uint64_t n)
{
	uint64_t p;

	if (o->slot)
		return atomic_fetch_add(&offs[o->slot], n);
	p = o->pos;
	o->pos += n;
	return p;
}

/* After pos_take(@n) gave @p but only @r bytes moved: give the rest back
 * (unless the offset has moved since). */
static void pos_short(struct ofd *o, uint64_t p, uint64_t n, ssize_t r)
{
	uint64_t want = p + n, to = p + (r > 0 ? (uint64_t)r : 0);

	if ((uint64_t)(r > 0 ? r : 0) == n)
		return;
	if (o->slot)
		atomic_compare_exchange_strong(&offs[o->slot], &want, to);
	else
		o->pos = to;
}

/* ---- record locks -------------------------------------------------------------- */

/*
 * fcntl(2)'s record locks of a file on the mount are the server's (RLOCK,
 * tfs-protocol(5)): a process's locks exclude other processes', on any
 * node, and go when it closes the file or ends.  Open file description
 * locks (F_OFD_*) are taken as the process's.  F_SETLKW asks again until
 * the lock is free.  An unlock publishes what the process wrote first,
 * under commit and session, as close does: accesses that a program
 * orders by these locks (ROMIO's read-modify-writes, say) are ordered on
 * TangramFS too, as conflict-check takes them (under posix every write
 * is visible as it returns already).
 */

/* One RLOCK of @h: @set, @type (0 unlock, 1 read, 2 write) over [s, e);
 * with @set 0 the conflicting lock into *@got.  0 or -1 (EAGAIN: held). */
static int rlock_call(tfs_file_t *h, int set, uint32_t type, uint64_t s, uint64_t e,
		      struct flock *got)
{
	struct tfs_buf b;
	struct tfs_rd rd;
	uint32_t pid;
	void *mem;
	int rc;

	tfs_buf_init(&b);
	tfs_buf_u64(&b, tfsi_fid(h));
	tfs_buf_u32(&b, (uint32_t)set);
	tfs_buf_u32(&b, type);
	tfs_buf_u64(&b, s);
	tfs_buf_u64(&b, e);
	tfs_buf_u32(&b, (uint32_t)getpid());
	rc = tfsi_call(TFS_MSG_RLOCK, &b, set ? NULL : &mem, set ? NULL : &rd);
	tfs_buf_release(&b);
	if (rc < 0 || set)
		return rc;
	type = tfs_rd_u32(&rd);
	s = tfs_rd_u64(&rd);
	e = tfs_rd_u64(&rd);
	pid = tfs_rd_u32(&rd);
	rc = tfs_rd_done(&rd) ? 0 : -1;
	free(mem);
	if (rc < 0) {
		errno = EPROTO;
		return -1;
	}
	/* none: l_type F_UNLCK, the rest as asked (fcntl(2)) */
	got->l_type = type == 2 ? F_WRLCK : type == 1 ? F_RDLCK : F_UNLCK;
	if (!type)
		return 0;
	got->l_pid = (pid_t)pid;
	got->l_whence = SEEK_SET;
	got->l_start = (off_t)s;
	got->l_len = e == UINT64_MAX ? 0 : (off_t)(e - s);
	return 0;
}

static uint64_t o_size(struct ofd *o);
static tfs_file_t *H(struct ofd *o);

/* @acc_check 0: any access mode may take either lock (flock(2)). */
static int o_rlock_acc(struct ofd *o, int cmd, struct flock *fl, int acc_check)
{
	int set = cmd != F_GETLK && cmd != F_OFD_GETLK, acc = o->flags & O_ACCMODE, rc;
	uint64_t base, s, e;
	useconds_t nap = 1000;
	uint32_t type;
	tfs_file_t *h;

	switch (fl->l_type) {
	case F_RDLCK: type = 1; break;
	case F_WRLCK: type = 2; break;
	case F_UNLCK: type = 0; break;
	default: errno = EINVAL; return -1;
	}
	if (!set && !type) {
		errno = EINVAL;
		return -1;
	}
	if (set && acc_check &&
	    ((type == 1 && acc == O_WRONLY) || (type == 2 && acc == O_RDONLY))) {
		errno = EBADF;
		return -1;
	}
	switch (fl->l_whence) {
	case SEEK_SET: base = 0; break;
	case SEEK_CUR: base = pos_get(o); break;
	case SEEK_END: base = o_size(o); break;
	default: errno = EINVAL; return -1;
	}
	/* [s, e): l_len 0 to the end of everything, negative before l_start */
	if ((fl->l_start < 0 && (uint64_t)-(fl->l_start + 1) >= base) ||
	    (fl->l_start > 0 && (uint64_t)fl->l_start > UINT64_MAX - base)) {
		errno = EINVAL;
		return -1;
	}
	s = base + (uint64_t)fl->l_start;
	if (fl->l_len > 0) {
		e = (uint64_t)fl->l_len > UINT64_MAX - s ? UINT64_MAX : s + (uint64_t)fl->l_len;
	} else if (fl->l_len == 0) {
		e = UINT64_MAX;
	} else {
		if ((uint64_t)-(fl->l_len + 1) >= s) {
			errno = EINVAL;
			return -1;
		}
		e = s;
		s -= (uint64_t)-fl->l_len;
	}
	in_tfs++;
	if (!(h = H(o))) {
		in_tfs--;
		return -1;
	}
	/* what it wrote is published before another can take the lock */
	if (set && !type && model != M_POSIX && !lockdesign && tfs_attach_file(h) < 0) {
		in_tfs--;
		return -1;
	}
	while ((rc = rlock_call(h, set, type, s, e, fl)) < 0 && errno == EAGAIN &&
	       (cmd == F_SETLKW || cmd == F_OFD_SETLKW)) {
		usleep(nap);
		if (nap < 32000)
			nap *= 2;
	}
	if (rc == 0 && set && type) {
		atomic_store(&o->rlocked, 1);
		/* reads under it see what was published before it */
		tfsi_read_sync(h);
	}
	if (rc == 0 && (cmd == F_OFD_GETLK) && fl->l_type != F_UNLCK)
		fl->l_pid = -1;
	in_tfs--;
	return rc;
}

static int o_rlock(struct ofd *o, int cmd, struct flock *fl)
{
	return o_rlock_acc(o, cmd, fl, 1);
}

/*
 * flock(2) of a TangramFS descriptor: a record lock of the whole file at
 * the server (o_rlock()), so it excludes other processes' flock and fcntl
 * locks of the file, on any node.  Unlike the kernel's flock, it is the
 * process's, not the open file's (two opens of a file in one process do
 * not exclude each other), and it goes as the process's record locks go.
 */
EXPORT int flock(int fd, int op)
{
	static __typeof__(flock) *real;
	struct ofd *o = ofd_get(fd);
	struct flock fl = { .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };

	if (!real)
		real = (__typeof__(flock) *)dlsym(RTLD_NEXT, "flock");
	if (in_tfs || !o)
		return real(fd, op);
	switch (op & ~LOCK_NB) {
	case LOCK_SH:
		fl.l_type = F_RDLCK;
		break;
	case LOCK_EX:
		fl.l_type = F_WRLCK;
		break;
	case LOCK_UN:
		fl.l_type = F_UNLCK;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	if (o_rlock_acc(o, (op & LOCK_NB) || fl.l_type == F_UNLCK ? F_SETLK : F_SETLKW, &fl,
			0) < 0) {
		if (errno == EACCES)
			errno = EWOULDBLOCK;
		return -1;
	}
	return 0;
}

/* Drop one descriptor's reference to @o; the last one syncs and closes. */
static int ofd_unref(struct ofd *o)
{
	int last, rc = 0, e = 0;

	pthread_mutex_lock(&tab_lock);
	last = --o->refs == 0;
	pthread_mutex_unlock(&tab_lock);
	if (!last)
		return 0;
	if (!atomic_load(&o->stale)) {	/* (a parent's open file: not ours to sync) */
		in_tfs++;
		if (lockdesign ? tfs_release_lock_file(o->h) < 0 :
		    (model != M_POSIX || defer) && tfs_attach_file(o->h) < 0) {
			rc = -1;
			e = errno;
		}
		/* posix: close commits nothing (Table 5.5); what a lost
		 * server could not be told is kept in the burst buffer for
		 * the next server's stage-out (tfs(3), DURABILITY), as what
		 * it was told is */
		if (rc && model == M_POSIX && !lockdesign &&
		    (e == ETIMEDOUT || e == ECONNRESET || e == EPIPE || e == ECONNREFUSED))
			rc = 0;
		/* its record locks go with it, after what it wrote is
		 * published (the server drops them anyway when the process
		 * ends) */
		if (atomic_load(&o->rlocked))
			rlock_call(o->h, 1, 0, 0, UINT64_MAX, NULL);
		tfs_close(o->h);
		in_tfs--;
	}
	slot_free(o);
	pthread_mutex_destroy(&o->lock);
	free(o->rel);
	free(o);
	if (rc)
		errno = e == ETIMEDOUT || e == ECONNRESET || e == EPIPE ? EIO : e;
	return rc;
}

/* Register @fd for @o (taking a reference). */
void ofd_put(int fd, struct ofd *o)
{
	pthread_mutex_lock(&tab_lock);
	o->refs++;
	atomic_store(&fdtab[fd], o);
	if (fd >= atomic_load(&fdtop))
		atomic_store(&fdtop, fd + 1);
	pthread_mutex_unlock(&tab_lock);
}

/* Forget @fd; returns its ofd or NULL. */
static struct ofd *take(int fd)
{
	struct ofd *o;

	if (fd < 0 || fd >= MAXFD)
		return NULL;
	pthread_mutex_lock(&tab_lock);
	o = atomic_exchange(&fdtab[fd], NULL);
	pthread_mutex_unlock(&tab_lock);
	return o;
}

/*
 * The standard streams.  The C library writes stdout's buffer with its own
 * internal write, which no preloaded library sees; so while a TangramFS
 * descriptor is 0, 1 or 2 (a shell redirection, an inherited descriptor,
 * close(1) then open), stdin, stdout or stderr is a stream of ours on it,
 * and the library's own is put back, flushed, when the descriptor goes.
 */
static FILE *std_orig[3];
static int std_closed[3];	/* the program fclose'd ours */

static FILE **std_var(int fd)
{
	return fd == 0 ? &stdin : fd == 1 ? &stdout : &stderr;
}

static ssize_t sk_read(void *c, char *buf, size_t n)
{
	return read((int)(intptr_t)c, buf, n);
}

static ssize_t sk_write(void *c, const char *buf, size_t n)
{
	ssize_t r = write((int)(intptr_t)c, buf, n);

	return r < 0 ? 0 : r;
}

static int sk_close(void *c)
{
	int fd = (int)(intptr_t)c;

	if (fd >= 0 && fd <= 2)	/* the descriptor is not the stream's to close */
		std_closed[fd] = 1;
	return 0;
}

/* After a TangramFS descriptor became @fd. */
void std_take(int fd)
{
	static const cookie_io_functions_t io = { sk_read, sk_write, NULL, sk_close };
	FILE **sp, *c;

	if (fd < 0 || fd > 2 || in_tfs || std_orig[fd])
		return;
	sp = std_var(fd);
	if (!(c = fopencookie((void *)(intptr_t)fd, fd == 0 ? "r" : "w", io)))
		return;
	c->_fileno = fd;	/* isatty(fileno(stdout)) and the like */
	if (fd == 2)
		setvbuf(c, NULL, _IONBF, 0);
	std_orig[fd] = *sp;
	std_closed[fd] = 0;
	*sp = c;
}

/* Before @fd stops being a TangramFS descriptor, or is replaced. */
static void std_give_back(int fd)
{
	FILE **sp, *c;

	if (fd < 0 || fd > 2)
		return;
	sp = std_var(fd);
	if (!std_orig[fd]) {	/* what the library buffered goes where it was meant */
		if (fd > 0) {
			RESOLVE(fflush);
			real_fflush(*sp);
		}
		return;
	}
	c = *sp;
	*sp = std_orig[fd];
	std_orig[fd] = NULL;
	if (!std_closed[fd])
		fclose(c);
}

/*
 * Start the client with every free descriptor below LOW_FDS taken, so
 * that what it opens (a transport library's own sockets, event and shared
 * memory descriptors, which it numbers itself) lands above the numbers
 * programs pick ("exec 3> f").  Called with in_tfs raised.
 */
#define LOW_FDS 64
static atomic_int client_started;

void client_start(void)
{
	int held[LOW_FDS], n = 0, fd;

	if (atomic_load(&client_started) || atomic_exchange(&client_started, 1))
		return;
	RESOLVE(open);
	RESOLVE(close);
	while (n < LOW_FDS && (fd = real_open("/dev/null", O_PATH | O_CLOEXEC)) >= 0) {
		if (fd >= LOW_FDS) {
			real_close(fd);
			break;
		}
		held[n++] = fd;
	}
	tfsi_on_lost(lost_server);
	if (tfs_init() < 0) {	/* said once; the call that needed it fails too */
		char what[PATH_MAX + 64];
		const char *sv = getenv("TFS_SERVER");
		struct stat st;
		int e = errno;

		if (pfsdir[0] && (stat(pfsdir, &st) < 0 || !S_ISDIR(st.st_mode))) {
			snprintf(what, sizeof(what), "cannot use TFS_PFS_DIR %s", pfsdir);
		} else if (*tfsi_server_file_error()) {
			/* its own reason (missing, not private, not well formed),
			 * not the EACCES every call on the mount fails with */
			snprintf(what, sizeof(what), "cannot use the TangramFS server file %s: %s",
				 sv, tfsi_server_file_error());
			if (!atomic_exchange(&warned, 1))
				fprintf(stderr, "libtfs-posix: %s\n", what);
		} else {
			snprintf(what, sizeof(what), "cannot use the TangramFS server %s%s",
				 sv && *sv ? "file " : "",
				 sv && *sv ? sv : "(TFS_SERVER is not set)");
		}
		errno = e;
		warn_once_hint(what, tfsi_server_hint(e));
	}
	while (n > 0)
		real_close(held[--n]);
}

int mount_openfd(const char *rel, int flags, const char *orig)
{
	return mount_openfd_mode(rel, flags, 0666, orig);
}

int mount_openfd_mode(const char *rel, int flags, mode_t mode, const char *orig)
{
	unsigned tf = 0;
	struct ofd *o;
	tfs_file_t *h;
	int fd, e;

	RESOLVE(close);
	RESOLVE(open);
	if (!rel[0] || (flags & O_DIRECTORY)) {
		char p[PATH_MAX];

		if (pfs_path(rel, p, sizeof(p)) < 0)
			return -1;
		return real_open(p, flags & ~(O_CREAT | O_TRUNC), 0);
	}
	if (flags & O_CREAT)
		tf |= TFS_O_CREAT;
	if (flags & O_EXCL)
		tf |= TFS_O_EXCL;
	if ((flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY)
		tf |= TFS_O_TRUNC;
	/* the file's permission bits, as open(2) checks them */
	if ((flags & O_ACCMODE) != O_WRONLY)
		tf |= TFS_O_READ;
	if ((flags & O_ACCMODE) != O_RDONLY)
		tf |= TFS_O_WRITE;
	tf |= model_flags();
	in_tfs++;
	client_start();
	h = tfs_open_mode(rel, tf, (unsigned)mode);
	e = errno;
	in_tfs--;
	if (!h) {
		if (e == EISDIR) {
			char p[PATH_MAX];

			if (pfs_path(rel, p, sizeof(p)) < 0)
				return -1;
			return real_open(p, flags & ~(O_CREAT | O_TRUNC), 0);
		}
		if (e != ENOENT && e != EEXIST && e != EACCES)
			warn_once(orig);
		errno = e;
		return -1;
	}
	if (!atomic_exchange(&exit_registered, 1))
		atexit(at_exit);
	fd = real_open("/dev/null", O_PATH | (flags & O_CLOEXEC));
	if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
		/* the backing files other opens keep for their reads take
		 * descriptors the program counts on: they open them again */
		e = errno;
		in_tfs++;
		if (tfsi_pfs_give_back() > 0)
			fd = real_open("/dev/null", O_PATH | (flags & O_CLOEXEC));
		else
			errno = e;
		in_tfs--;
	}
	if (fd < 0 || fd >= MAXFD || !(o = calloc(1, sizeof(*o)))) {
		e = fd < 0 ? errno : EMFILE;
		if (fd >= 0)
			real_close(fd);
		in_tfs++;
		tfs_close(h);
		in_tfs--;
		errno = e;
		return -1;
	}
	o->h = h;
	o->rel = strdup(rel);
	o->flags = flags;
	pthread_mutex_init(&o->lock, NULL);
	pthread_mutex_lock(&tab_lock);
	o->slot = slot_new(0);
	pthread_mutex_unlock(&tab_lock);
	ofd_put(fd, o);
	std_take(fd);
	atomic_store(&client_pid, (int)getpid());
	return fd;
}

/*
 * The handle of @o, opened again on this process's own client when @o came
 * across fork(2): a forked child is a TangramFS client of its own (its
 * writes go to its own buffer, are attached in its name and staged out
 * when it ends), sharing only the offset with its parent.  NULL (errno
 * set) when it cannot be opened again.  Called with in_tfs raised.
 */
static pthread_mutex_t fresh_lock = PTHREAD_MUTEX_INITIALIZER;

static tfs_file_t *H(struct ofd *o)
{
	tfs_file_t *h;

	if (!atomic_load(&o->stale))
		return o->h;
	pthread_mutex_lock(&fresh_lock);
	if (atomic_load(&o->stale)) {
		client_start();
		if (!o->rel || !(h = tfs_open_flags(o->rel, model_flags()))) {
			if (!o->rel)
				errno = EBADF;
			pthread_mutex_unlock(&fresh_lock);
			return NULL;
		}
		o->h = h;
		atomic_store(&o->stale, 0);
		atomic_store(&client_pid, (int)getpid());
	}
	pthread_mutex_unlock(&fresh_lock);
	return o->h;
}

/* fork(2): every open file is now shared with the child (so its slot is
 * never used again for another), and the child's are stale. */
static void fork_parent(void)
{
	for (int fd = 0; fd < atomic_load(&fdtop); fd++) {
		struct ofd *o = atomic_load(&fdtab[fd]);

		if (o)
			o->shared = 1;
	}
}

static void fork_child(void)
{
	pthread_mutex_init(&tab_lock, NULL);
	pthread_mutex_init(&fresh_lock, NULL);
	nfree = 0;	/* the parent may hand those out again */
	atomic_store(&client_started, 0);
	for (int fd = 0; fd < atomic_load(&fdtop); fd++) {
		struct ofd *o = atomic_load(&fdtab[fd]);

		if (o) {
			o->shared = 1;
			atomic_store(&o->stale, 1);
			pthread_mutex_init(&o->lock, NULL);
		}
	}
}

/*
 * close_range(2) and closefrom(3): a program closing every descriptor but
 * a few (CPython's subprocess in its child before exec, daemons) closes a
 * TangramFS descriptor as close() does, and leaves the library's own: the
 * offsets' memory file, which an exec'd program needs to share the
 * offsets with its parent (a child's "echo > fd" landed where the parent
 * wrote next), and the client's connections and buffers.
 */
static int keep_fd(unsigned fd)
{
	return fd < INT_MAX && ((int)fd == offs_fd || tfs_fd_owned((int)fd));
}

EXPORT int close_range(unsigned int first, unsigned int last, int flags)
{
	unsigned int fd, top, from;
	long rc = 0;

	if (in_tfs || first > last)
		return (int)syscall(SYS_close_range, first, last, flags);
	if (!(flags & CLOSE_RANGE_CLOEXEC)) {
		top = (unsigned)atomic_load(&fdtop);
		for (fd = first; fd <= last && fd < top; fd++)
			if (ofd_get((int)fd))
				close((int)fd);
	}
	/* the kernel's close_range over the rest, around what is kept */
	top = last < 65536 ? last : 65535;
	for (from = fd = first; fd <= top && rc == 0; fd++)
		if (keep_fd(fd)) {
			if (fd > from)
				rc = syscall(SYS_close_range, from, fd - 1, flags);
			from = fd + 1;
		}
	if (rc == 0 && from <= last)
		rc = syscall(SYS_close_range, from, last, flags);
	return (int)rc;
}

EXPORT void closefrom(int lowfd)
{
	close_range(lowfd < 0 ? 0 : (unsigned)lowfd, ~0U, 0);
}

/* vfork(2) is fork(2) here, which POSIX allows: a vfork child runs in its
 * parent's memory, where its close() of a TangramFS descriptor (CPython's
 * subprocess closes every descriptor not in pass_fds so) or its dup2()
 * onto standard output would change the parent's table, and no fork
 * handler runs for it.  A forked child has a table of its own. */
EXPORT pid_t vfork(void)
{
	return fork();
}

/* Every TangramFS descriptor still open at exit is closed, as exit(2)
 * would: a sync point for commit and session.  Runs before libtfs stages
 * out. */
void at_exit(void)
{
	RESOLVE(fflush);
	real_fflush(NULL);	/* streams on the mount, before stdio's own exit flush */
	for (int fd = 0; fd < 3; fd++)
		if (ofd_get(fd))
			std_give_back(fd);
	for (int fd = 0; fd < atomic_load(&fdtop); fd++) {
		struct ofd *o = take(fd);

		if (o)
			ofd_unref(o);
	}
	in_tfs++;
	tfs_finalize();
	in_tfs--;
}

/* _exit(2) skips atexit handlers (dash ends that way, and so do many
 * programs' children): the client ends here too, or what it attached would
 * be dropped with its connection.  A child forked from the client does not
 * end its parent's. */
EXPORT void _exit(int status)
{
	static __typeof__(_exit) *real;

	if (!real)
		real = (__typeof__(_exit) *)dlsym(RTLD_NEXT, "_exit");
	if (!in_tfs && atomic_load(&client_pid) == (int)getpid())
		at_exit();
	real(status);
	__builtin_unreachable();
}

EXPORT void _Exit(int status)
{
	_exit(status);
}

/* ---- open, close -------------------------------------------------------------- */

static int do_open(int dirfd, const char *path, int flags, mode_t mode, int at)
{
	char rel[PATH_MAX] = "", p[PATH_MAX];
	int nf = (flags & O_NOFOLLOW) || (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
	int t = in_tfs ? 0 : mount_path_at(dirfd, path, rel, sizeof(rel), !nf);
	struct stat st;

	if (t < 0)
		return -1;
	RESOLVE(lstat);
	if (t > 0 && nf && rel[0] && pfs_path(rel, p, sizeof(p)) == 0 &&
	    KEEP_ERRNO(real_lstat(p, &st)) == 0 && S_ISLNK(st.st_mode)) {
		/* a link the open may not follow, as the kernel says */
		errno = (flags & O_NOFOLLOW) && !(flags & O_EXCL) ? ELOOP : EEXIST;
		return -1;
	}
	if (t > 0)
		return KEEP_ERRNO(mount_openfd_mode(rel, flags, mode, path));
	if (at) {
		RESOLVE(openat);
		return real_openat(dirfd, kpath(path, rel), flags, mode);
	}
	RESOLVE(open);
	return real_open(kpath(path, rel), flags, mode);
}

static mode_t va_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = va_mode(flags, ap);
	va_end(ap);
	return do_open(AT_FDCWD, path, flags, m, 0);
}

EXPORT int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = va_mode(flags, ap);
	va_end(ap);
	return do_open(AT_FDCWD, path, flags | O_LARGEFILE, m, 0);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = va_mode(flags, ap);
	va_end(ap);
	return do_open(dirfd, path, flags, m, 1);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = va_mode(flags, ap);
	va_end(ap);
	return do_open(dirfd, path, flags | O_LARGEFILE, m, 1);
}

EXPORT int __open_2(const char *path, int flags)
{
	return do_open(AT_FDCWD, path, flags, 0, 0);
}

EXPORT int __open64_2(const char *path, int flags)
{
	return do_open(AT_FDCWD, path, flags | O_LARGEFILE, 0, 0);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return do_open(dirfd, path, flags, 0, 1);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	return do_open(dirfd, path, flags | O_LARGEFILE, 0, 1);
}

EXPORT int creat(const char *path, mode_t mode)
{
	return do_open(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, 0);
}

EXPORT int creat64(const char *path, mode_t mode)
{
	return do_open(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC | O_LARGEFILE, mode, 0);
}

EXPORT int close(int fd)
{
	struct ofd *o;
	int rc;

	RESOLVE(close);
	if (in_tfs || !ofd_get(fd))
		return real_close(fd);
	std_give_back(fd);
	o = take(fd);
	real_close(fd);
	if (!o)
		return 0;
	rc = KEEP_ERRNO(ofd_unref(o));
	return rc;
}

/* ---- data ------------------------------------------------------------------------ */

/* Under session a handle reads by one QUERY until it is closed (the
 * model owes it only what was closed before its open); under posix and
 * commit by one QUERY while the server's delegation lasts (libtfs drops
 * it when told another process changed the file), as their readers must
 * see every write, or every commit, that came before the read.  The lock
 * design reads under its locks, never by a QUERY. */
unsigned model_flags(void)
{
	return model == M_SESSION && !lockdesign ? TFS_O_SESSION : 0;
}

static ssize_t o_read(struct ofd *o, void *buf, size_t n, uint64_t off)
{
	tfs_file_t *h;
	ssize_t r;

	if ((o->flags & O_ACCMODE) == O_WRONLY) {
		errno = EBADF;
		return -1;
	}
	in_tfs++;
	if (!(h = H(o)))
		r = -1;
	else if (!lockdesign)
		r = tfs_pread_synced(h, buf, n, off);
	else if (tfs_acquire_lock(h, off, n, TFS_LOCK_READ) < 0)
		r = -1;
	else
		r = tfs_pread(h, buf, n, off);
	in_tfs--;
	return r;
}

static ssize_t o_write(struct ofd *o, const void *buf, size_t n, uint64_t off)
{
	tfs_file_t *h;
	ssize_t r;

	if ((o->flags & O_ACCMODE) == O_RDONLY) {
		errno = EBADF;
		return -1;
	}
	in_tfs++;
	if (!(h = H(o))) {
		r = -1;
	} else if (lockdesign) {
		/* the second acquire is free while the lock is held; it takes
		 * the lock again when a revocation crossed the write, so that
		 * the bytes are covered (and flushed at the next conflict) */
		if (tfs_acquire_lock(h, off, n, TFS_LOCK_WRITE) < 0 ||
		    (r = tfs_pwrite(h, buf, n, off)) < 0 ||
		    tfs_acquire_lock(h, off, n, TFS_LOCK_WRITE) < 0)
			r = -1;
	} else if (model == M_POSIX && defer) {
		/* attached when another client asks, or at fsync and close */
		r = tfsi_pwrite_pending(h, buf, n, off);
	} else if (model == M_POSIX) {
		/* the attach's round trip overlaps the write */
		r = tfsi_pwrite_attach(h, buf, n, off);
	} else {
		r = tfs_pwrite(h, buf, n, off);
	}
	in_tfs--;
	return r;
}

/*
 * An O_APPEND write: at the end of file, its offset into *@off.  Under
 * posix (and in the lock design, always POSIX) finding the end and
 * writing there are one step, so concurrent appenders on any node never
 * write over each other (tfsi_append, tfsi_lock_append); under commit and
 * session at the end as last heard from the server, which is all those
 * models promise: what another process appends is not yet published.
 */
static ssize_t o_append(struct ofd *o, const void *buf, size_t n, uint64_t *off)
{
	tfs_file_t *h;
	ssize_t r;

	if ((o->flags & O_ACCMODE) == O_RDONLY) {
		errno = EBADF;
		return -1;
	}
	if (!lockdesign && model != M_POSIX) {
		*off = o_size(o);
		return o_write(o, buf, n, *off);
	}
	*off = pos_get(o);
	in_tfs++;
	if (!(h = H(o)))
		r = -1;
	else if (lockdesign)
		r = tfsi_lock_append(h, buf, n, off);
	else
		r = tfsi_append(h, buf, n, off);
	in_tfs--;
	return r;
}

static uint64_t o_size(struct ofd *o)
{
	struct stat st;
	int rc;

	in_tfs++;
	rc = KEEP_ERRNO(tfs_stat(H(o), &st));
	in_tfs--;
	return rc < 0 ? pos_get(o) : (uint64_t)st.st_size;
}

EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	struct ofd *o = ofd_get(fd);
	uint64_t p;
	ssize_t r;

	RESOLVE(read);
	if (in_tfs || !o)
		return real_read(fd, buf, n);
	pthread_mutex_lock(&o->lock);
	p = pos_take(o, n);
	r = KEEP_ERRNO(o_read(o, buf, n, p));
	pos_short(o, p, n, r);
	pthread_mutex_unlock(&o->lock);
	return r;
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	struct ofd *o = ofd_get(fd);
	uint64_t p;
	ssize_t r;

	RESOLVE(write);
	if (in_tfs || !o)
		return real_write(fd, buf, n);
	pthread_mutex_lock(&o->lock);
	if (o->flags & O_APPEND) {
		r = KEEP_ERRNO(o_append(o, buf, n, &p));
		if (r > 0)
			pos_set(o, p + (uint64_t)r);
	} else {
		p = pos_take(o, n);
		r = KEEP_ERRNO(o_write(o, buf, n, p));
		pos_short(o, p, n, r);
	}
	pthread_mutex_unlock(&o->lock);
	return r;
}

EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	struct ofd *o = ofd_get(fd);

	RESOLVE(pread);
	if (in_tfs || !o)
		return real_pread(fd, buf, n, off);
	if (off < 0) {
		errno = EINVAL;
		return -1;
	}
	return KEEP_ERRNO(o_read(o, buf, n, (uint64_t)off));
}

EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	struct ofd *o = ofd_get(fd);
	uint64_t p;

	RESOLVE(pwrite);
	if (in_tfs || !o)
		return real_pwrite(fd, buf, n, off);
	if (off < 0) {
		errno = EINVAL;
		return -1;
	}
	/* as Linux does: at the end, whatever @off says, the offset kept */
	if (o->flags & O_APPEND)
		return KEEP_ERRNO(o_append(o, buf, n, &p));
	return KEEP_ERRNO(o_write(o, buf, n, (uint64_t)off));
}

EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	return pread(fd, buf, n, off);
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite(fd, buf, n, off);
}

/*
 * POSIX AIO on a TangramFS descriptor (ROMIO's MPI_File_iwrite and
 * MPI_File_iread use it): the request is carried out when it is
 * submitted, as POSIX allows, and its outcome left where the C library's
 * aio_error, aio_return and aio_suspend look (glibc keeps it in the
 * aiocb), so that those need no wrapper; its notification is delivered
 * as the C library would.  Requests on other descriptors go to the C
 * library.  (The descriptor itself, an O_PATH one, would fail them with
 * EBADF, and ROMIO's MPI_Wait then never returned.)
 */
static int o_sync(struct ofd *o);

static void *aio_notify_thread(void *arg)
{
	struct sigevent *ev = arg;
	union sigval v = ev->sigev_value;
	void (*fn)(union sigval) = ev->sigev_notify_function;

	free(ev);
	fn(v);
	return NULL;
}

static void aio_notify(const struct sigevent *ev)
{
	pthread_attr_t a;
	pthread_t t;
	struct sigevent *copy;

	if (ev->sigev_notify == SIGEV_SIGNAL) {
		sigqueue(getpid(), ev->sigev_signo, ev->sigev_value);
	} else if (ev->sigev_notify == SIGEV_THREAD && ev->sigev_notify_function &&
		   (copy = malloc(sizeof(*copy)))) {
		*copy = *ev;
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, ev->sigev_notify_attributes ?
					       ev->sigev_notify_attributes : &a,
				   aio_notify_thread, copy) != 0)
			free(copy);
		pthread_attr_destroy(&a);
	}
}

/* Carry out @cb on @o (LIO_READ, LIO_WRITE, or an fsync for -1); its
 * outcome in the aiocb.  Returns 0, or -1 if it failed. */
static int aio_now(struct ofd *o, struct aiocb *cb, int op)
{
	ssize_t r;
	uint64_t p;

	if (op == -1) {
		r = o_sync(o);
	} else if (cb->aio_offset < 0 && !(op == LIO_WRITE && (o->flags & O_APPEND))) {
		errno = EINVAL;
		r = -1;
	} else if (op == LIO_READ) {
		r = o_read(o, (void *)cb->aio_buf, cb->aio_nbytes, (uint64_t)cb->aio_offset);
	} else {
		pthread_mutex_lock(&o->lock);
		if (o->flags & O_APPEND)
			r = o_append(o, (const void *)cb->aio_buf, cb->aio_nbytes, &p);
		else
			r = o_write(o, (const void *)cb->aio_buf, cb->aio_nbytes,
				    (uint64_t)cb->aio_offset);
		pthread_mutex_unlock(&o->lock);
	}
	cb->__return_value = r;
	cb->__error_code = r < 0 ? errno : 0;
	return r < 0 ? -1 : 0;
}

REAL(aio_read);
REAL(aio_write);
REAL(aio_fsync);
REAL(lio_listio);

/* A request @cb on the mount carried out and notified (@op as for
 * aio_now()): 1; 0 when its descriptor is not TangramFS's. */
static int aio_here(struct aiocb *cb, int op)
{
	struct ofd *o = ofd_get(cb->aio_fildes);

	if (in_tfs || !o)
		return 0;
	aio_now(o, cb, op);
	aio_notify(&cb->aio_sigevent);
	return 1;
}

EXPORT int aio_read(struct aiocb *cb)
{
	RESOLVE(aio_read);
	return aio_here(cb, LIO_READ) ? 0 : real_aio_read(cb);
}

EXPORT int aio_write(struct aiocb *cb)
{
	RESOLVE(aio_write);
	return aio_here(cb, LIO_WRITE) ? 0 : real_aio_write(cb);
}

EXPORT int aio_fsync(int op, struct aiocb *cb)
{
	RESOLVE(aio_fsync);
	if (op != O_SYNC && op != O_DSYNC) {
		errno = EINVAL;
		return -1;
	}
	return aio_here(cb, -1) ? 0 : real_aio_fsync(op, cb);
}

/* The C library's aio_read64 and friends are the same functions under
 * another name (off_t is 64 bits, struct aiocb64 is struct aiocb). */
_Static_assert(sizeof(struct aiocb64) == sizeof(struct aiocb), "aiocb64 is aiocb");

EXPORT int aio_read64(struct aiocb64 *cb)
{
	return aio_read((struct aiocb *)cb);
}

EXPORT int aio_write64(struct aiocb64 *cb)
{
	return aio_write((struct aiocb *)cb);
}

EXPORT int aio_fsync64(int op, struct aiocb64 *cb)
{
	return aio_fsync(op, (struct aiocb *)cb);
}

/* The list's TangramFS requests are carried out here; the others, if
 * any, go to the C library in a copy of the list without ours, which also
 * waits (LIO_WAIT) or notifies @sig when they are done (LIO_NOWAIT). */
EXPORT int lio_listio(int mode, struct aiocb *const list[], int nent, struct sigevent *sig)
{
	struct aiocb **rest;
	int i, failed = 0, rc, e;

	RESOLVE(lio_listio);
	if (in_tfs || nent <= 0)
		return real_lio_listio(mode, list, nent, sig);
	for (i = 0; i < nent && !(list[i] && list[i]->aio_lio_opcode != LIO_NOP &&
				   ofd_get(list[i]->aio_fildes)); i++)
		;
	if (i == nent)
		return real_lio_listio(mode, list, nent, sig);
	if (mode != LIO_WAIT && mode != LIO_NOWAIT) {
		errno = EINVAL;
		return -1;
	}
	if (!(rest = malloc((size_t)nent * sizeof(*rest)))) {
		errno = EAGAIN;
		return -1;
	}
	for (i = 0; i < nent; i++) {
		struct aiocb *cb = list[i];
		struct ofd *o = cb && cb->aio_lio_opcode != LIO_NOP ? ofd_get(cb->aio_fildes) : NULL;
		rest[i] = o ? NULL : cb;
		if (o && (cb->aio_lio_opcode == LIO_READ || cb->aio_lio_opcode == LIO_WRITE))
			failed |= aio_now(o, cb, cb->aio_lio_opcode) < 0;
		else if (o)
			cb->__error_code = EINVAL, cb->__return_value = -1, failed = 1;
	}
	rc = real_lio_listio(mode, rest, nent, sig);
	e = errno;
	free(rest);
	if (rc == 0 && failed && mode == LIO_WAIT) {
		errno = EIO;
		return -1;
	}
	errno = e;
	return rc;
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	ssize_t total = 0;

	RESOLVE(readv);
	if (in_tfs || !ofd_get(fd))
		return real_readv(fd, iov, cnt);
	for (int i = 0; i < cnt; i++) {
		ssize_t r = read(fd, iov[i].iov_base, iov[i].iov_len);

		if (r < 0)
			return total ? total : -1;
		total += r;
		if ((size_t)r < iov[i].iov_len)
			break;
	}
	return total;
}

/* writev on an O_APPEND descriptor: one append of the whole vector, so
 * that its pieces land together, no other append between them. */
/* The pieces of @iov in one new buffer (its length in *@total), or NULL. */
static char *gather(const struct iovec *iov, int cnt, size_t *total)
{
	size_t at = 0;
	char *buf;
	int i;

	*total = 0;
	for (i = 0; i < cnt; i++) {
		if (iov[i].iov_len > SSIZE_MAX - *total) {
			errno = EINVAL;
			return NULL;
		}
		*total += iov[i].iov_len;
	}
	if (!(buf = malloc(*total ? *total : 1)))
		return NULL;
	for (i = 0; i < cnt; i++) {
		if (iov[i].iov_len)
			memcpy(buf + at, iov[i].iov_base, iov[i].iov_len);
		at += iov[i].iov_len;
	}
	return buf;
}

static ssize_t writev_append(int fd, const struct iovec *iov, int cnt)
{
	size_t total;
	char *buf = gather(iov, cnt, &total);
	ssize_t r;

	if (!buf)
		return -1;
	r = write(fd, buf, total);
	free(buf);
	return r;
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	struct ofd *o = ofd_get(fd);
	ssize_t total = 0;

	RESOLVE(writev);
	if (in_tfs || !o)
		return real_writev(fd, iov, cnt);
	if ((o->flags & O_APPEND) && cnt > 1)
		return writev_append(fd, iov, cnt);
	for (int i = 0; i < cnt; i++) {
		ssize_t r = write(fd, iov[i].iov_base, iov[i].iov_len);

		if (r < 0)
			return total ? total : -1;
		total += r;
	}
	return total;
}

/*
 * preadv(2) and pwritev(2), their 64 names and the *2 calls: the pieces
 * one after another from @off (OMPIO reads and writes with them; they
 * failed with EBADF on the mount); in the *2 calls an offset of -1 is
 * the descriptor's position, as readv and writev, and RWF_APPEND appends.
 * On an O_APPEND descriptor pwritev appends, as pwrite does on Linux.
 */
EXPORT ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	ssize_t total = 0;

	RESOLVE(preadv);
	if (in_tfs || !ofd_get(fd))
		return real_preadv(fd, iov, cnt, off);
	if (off < 0 || cnt < 0) {
		errno = EINVAL;
		return -1;
	}
	for (int i = 0; i < cnt; i++) {
		ssize_t r = pread(fd, iov[i].iov_base, iov[i].iov_len, off + total);

		if (r < 0)
			return total ? total : -1;
		total += r;
		if ((size_t)r < iov[i].iov_len)
			break;
	}
	return total;
}

/* The pieces of @iov as one append to @o's file (the position kept, as
 * pwrite's on an O_APPEND descriptor). */
static ssize_t o_appendv(struct ofd *o, const struct iovec *iov, int cnt)
{
	size_t total;
	char *buf = gather(iov, cnt, &total);
	uint64_t p;
	ssize_t r;

	if (!buf)
		return -1;
	r = o_append(o, buf, total, &p);
	free(buf);
	return r;
}

EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	struct ofd *o = ofd_get(fd);
	ssize_t total = 0;

	RESOLVE(pwritev);
	if (in_tfs || !o)
		return real_pwritev(fd, iov, cnt, off);
	if (off < 0 || cnt < 0) {
		errno = EINVAL;
		return -1;
	}
	if (o->flags & O_APPEND)
		return KEEP_ERRNO(o_appendv(o, iov, cnt));
	for (int i = 0; i < cnt; i++) {
		ssize_t r = pwrite(fd, iov[i].iov_base, iov[i].iov_len, off + total);

		if (r < 0)
			return total ? total : -1;
		total += r;
	}
	return total;
}

EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return preadv(fd, iov, cnt, off);
}

EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return pwritev(fd, iov, cnt, off);
}

EXPORT ssize_t preadv2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	RESOLVE(preadv2);
	if (in_tfs || !ofd_get(fd))
		return real_preadv2(fd, iov, cnt, off, flags);
	return off == -1 ? readv(fd, iov, cnt) : preadv(fd, iov, cnt, off);
}

EXPORT ssize_t pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	struct ofd *o = ofd_get(fd);

	RESOLVE(pwritev2);
	if (in_tfs || !o)
		return real_pwritev2(fd, iov, cnt, off, flags);
#ifdef RWF_APPEND
	if (flags & RWF_APPEND)
		return cnt < 0 ? (errno = EINVAL, -1) : KEEP_ERRNO(o_appendv(o, iov, cnt));
#endif
	return off == -1 ? writev(fd, iov, cnt) : pwritev(fd, iov, cnt, off);
}

EXPORT ssize_t preadv64v2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	return preadv2(fd, iov, cnt, off, flags);
}

EXPORT ssize_t pwritev64v2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	return pwritev2(fd, iov, cnt, off, flags);
}

EXPORT off_t lseek(int fd, off_t off, int whence)
{
	struct ofd *o = ofd_get(fd);
	int64_t pos;
	uint64_t size;

	RESOLVE(lseek);
	if (in_tfs || !o)
		return real_lseek(fd, off, whence);
	pthread_mutex_lock(&o->lock);
	switch (whence) {
	case SEEK_SET:
		pos = off;
		break;
	case SEEK_CUR:
		pos = (int64_t)pos_get(o) + off;
		break;
	case SEEK_END:
		pos = (int64_t)o_size(o) + off;
		break;
	case SEEK_DATA:
	case SEEK_HOLE:
		size = o_size(o);
		if (off < 0 || (uint64_t)off >= size) {
			pthread_mutex_unlock(&o->lock);
			errno = ENXIO;
			return -1;
		}
		pos = whence == SEEK_DATA ? off : (int64_t)size;
		break;
	default:
		pos = -1;
	}
	if (pos < 0) {
		pthread_mutex_unlock(&o->lock);
		errno = EINVAL;
		return -1;
	}
	pos_set(o, (uint64_t)pos);
	pthread_mutex_unlock(&o->lock);
	return (off_t)pos;
}

EXPORT off_t lseek64(int fd, off_t off, int whence)
{
	return lseek(fd, off, whence);
}

/*
 * fsync: what the process wrote is the server's (attached) under commit
 * and deferred posix; in the lock design its bytes are copied to the
 * backing file and made durable there, as a revocation does, so that an
 * fsync that returned 0 survives the process's death (tfs(3),
 * DURABILITY; they were removed with its burst buffer).
 */
static int o_sync(struct ofd *o)
{
	int rc = 0;

	if (lockdesign) {
		in_tfs++;
		rc = tfs_flush_lock_file(H(o));
		in_tfs--;
	} else if (model == M_COMMIT || (model == M_POSIX && defer)) {
		in_tfs++;
		rc = tfs_attach_file(H(o));
		in_tfs--;
	}
	return rc;
}

/*
 * mmap(2) of a descriptor on the mount: it stands in for the file
 * (/dev/null, O_PATH), whose bytes are in burst buffers and peers, so
 * nothing can be mapped.  ENODEV, as from a file system that cannot map
 * (the stand-in's EBADF misled; numpy and others read(2) instead on
 * ENODEV), said once.
 */
static void *mmap_refused(const struct ofd *o)
{
	static atomic_int said;

	if (!atomic_exchange(&said, 1))
		fprintf(stderr, "libtfs-posix: %s/%s: cannot be mapped: TangramFS files are "
			"read and written, not mapped (libtfs-posix(7))\n", mount, o->rel);
	errno = ENODEV;
	return MAP_FAILED;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct ofd *o = flags & MAP_ANONYMOUS ? NULL : ofd_get(fd);

	RESOLVE(mmap);
	if (in_tfs || !o)
		return real_mmap(addr, len, prot, flags, fd, off);
	return mmap_refused(o);
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	struct ofd *o = flags & MAP_ANONYMOUS ? NULL : ofd_get(fd);

	RESOLVE(mmap64);
	if (in_tfs || !o)
		return real_mmap64(addr, len, prot, flags, fd, off);
	return mmap_refused(o);
}

EXPORT int fsync(int fd)
{
	struct ofd *o = ofd_get(fd);

	RESOLVE(fsync);
	if (in_tfs || !o)
		return real_fsync(fd);
	return KEEP_ERRNO(o_sync(o));
}

/*
 * fflush(3) of a stream on the mount is a commit, as fsync(2) is:
 * conflict-check(1) counts it as one, so that a writer that flushes its
 * stream and then sends a message needs commit, not posix; here it wrote
 * the buffer to the descriptor, which under commit made nothing visible,
 * and the reader read stale bytes (Silo's PDB driver: DBFlush, then the
 * baton).  fflush(NULL) commits every file this process has open on the
 * mount.  Nothing more under session; in the lock design, as fsync.
 */
static int flush_commit(FILE *f)
{
	struct ofd *o;
	int rc = 0;

	if (in_tfs)
		return 0;
	if (f)
		return (o = ofd_get(f->_fileno)) ? o_sync(o) : 0;
	for (int fd = 0; fd < atomic_load(&fdtop); fd++)
		if ((o = ofd_get(fd)) && o_sync(o) < 0)
			rc = -1;
	return rc;
}

/* The result of the C library's flush of @f, @rc, then the commit. */
static int flushed(int rc, FILE *f)
{
	return rc == 0 && flush_commit(f) < 0 ? EOF : rc;
}

EXPORT int fflush(FILE *f)
{
	RESOLVE(fflush);
	return flushed(real_fflush(f), f);
}

EXPORT int fflush_unlocked(FILE *f)
{
	RESOLVE(fflush_unlocked);
	return flushed(real_fflush_unlocked(f), f);
}

EXPORT int fdatasync(int fd)
{
	struct ofd *o = ofd_get(fd);

	RESOLVE(fdatasync);
	if (in_tfs || !o)
		return real_fdatasync(fd);
	return KEEP_ERRNO(o_sync(o));
}

EXPORT int ftruncate(int fd, off_t len)
{
	struct ofd *o = ofd_get(fd);
	int rc;

	RESOLVE(ftruncate);
	if (in_tfs || !o)
		return real_ftruncate(fd, len);
	if (len < 0) {
		errno = EINVAL;
		return -1;
	}
	in_tfs++;
	rc = KEEP_ERRNO(tfs_truncate(H(o), (size_t)len));
	in_tfs--;
	return rc;
}

EXPORT int ftruncate64(int fd, off_t len)
{
	return ftruncate(fd, len);
}

/* truncate(2) of a path under the mount: an open for writing (which checks
 * the mode, and refuses a directory), ftruncate, close; PnetCDF's
 * NF_CLOBBER create truncates an old file by its path. */
EXPORT int truncate(const char *path, off_t len)
{
	char rel[PATH_MAX];
	int t, fd, rc, e;

	RESOLVE(truncate);
	if (in_tfs || (t = mount_path(AT_FDCWD, path, rel, sizeof(rel))) == 0)
		return real_truncate(in_tfs ? path : kpath(path, rel), len);
	if (t < 0)
		return -1;
	if (len < 0) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	rc = ftruncate(fd, len);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

EXPORT int truncate64(const char *path, off_t len)
{
	return truncate(path, len);
}

EXPORT ssize_t copy_file_range(int in, off_t *inoff, int out, off_t *outoff, size_t n,
			       unsigned flags)
{
	RESOLVE(copy_file_range);
	if (!in_tfs && (ofd_get(in) || ofd_get(out))) {
		errno = EXDEV;	/* callers fall back to read and write */
		return -1;
	}
	return real_copy_file_range(in, inoff, out, outoff, n, flags);
}

/* ---- metadata --------------------------------------------------------------------- */

EXPORT int fstat(int fd, struct stat *st)
{
	struct ofd *o = ofd_get(fd);
	int rc;

	RESOLVE(fstat);
	if (in_tfs || !o)
		return real_fstat(fd, st);
	in_tfs++;
	rc = KEEP_ERRNO(tfs_stat(H(o), st));
	in_tfs--;
	return rc;
}

EXPORT int fstat64(int fd, struct stat64 *st)
{
	return fstat(fd, (struct stat *)st);
}

/* Not inlined: glibc declares the path nonnull, yet callers pass NULL. */
__attribute__((noinline)) static int is_empty(const char *p)
{
	return !p || !*p;
}

/* stat of a path under the mount: a file through the server, the mount and
 * directories from the backing directory. */
static int path_stat(const char *rel, struct stat *st)
{
	char p[PATH_MAX];
	int rc, e, e0 = errno;

	RESOLVE(stat);
	if (rel[0]) {
		in_tfs++;
		rc = tfs_stat_path(rel, st);
		e = errno;
		in_tfs--;
		if (rc == 0 || (e != ENOENT && e != EISDIR)) {
			errno = rc == 0 ? e0 : e;
			return rc;
		}
	}
	if (pfs_path(rel, p, sizeof(p)) < 0)
		return -1;
	errno = e0;
	return real_stat(p, st);
}

/* lstat of a path under the mount: a symbolic link the backing directory
 * holds as itself, anything else as path_stat(). */
static int path_lstat(const char *rel, struct stat *st)
{
	char p[PATH_MAX];
	int e = errno;

	RESOLVE(lstat);
	if (rel[0] && pfs_path(rel, p, sizeof(p)) == 0 && real_lstat(p, st) == 0 &&
	    S_ISLNK(st->st_mode))
		return 0;
	errno = e;
	return path_stat(rel, st);
}

EXPORT int stat(const char *path, struct stat *st)
{
	char rel[PATH_MAX];
	int t;

	RESOLVE(stat);
	if (in_tfs)
		return real_stat(path, st);
	if ((t = mount_path(AT_FDCWD, path, rel, sizeof(rel))) == 0)
		return real_stat(outside_path(path, rel, sizeof(rel)), st);
	return t < 0 ? -1 : path_stat(rel, st);
}

EXPORT int lstat(const char *path, struct stat *st)
{
	char rel[PATH_MAX];
	int t;

	RESOLVE(lstat);
	if (in_tfs)
		return real_lstat(path, st);
	if ((t = mount_path_nf(AT_FDCWD, path, rel, sizeof(rel))) == 0)
		return real_lstat(outside_path(path, rel, sizeof(rel)), st);
	return t < 0 ? -1 : path_lstat(rel, st);
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
	return stat(path, (struct stat *)st);
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
	return lstat(path, (struct stat *)st);
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	char rel[PATH_MAX];
	int t;

	RESOLVE(fstatat);
	if (in_tfs)
		return real_fstatat(dirfd, path, st, flags);
	if ((flags & AT_EMPTY_PATH) && is_empty(path) && ofd_get(dirfd))
		return fstat(dirfd, st);
	if ((t = mount_path_at(dirfd, path, rel, sizeof(rel), !(flags & AT_SYMLINK_NOFOLLOW))) == 0)
		return real_fstatat(dirfd, outside_path(path, rel, sizeof(rel)), st, flags);
	if (t < 0)
		return -1;
	return (flags & AT_SYMLINK_NOFOLLOW) ? path_lstat(rel, st) : path_stat(rel, st);
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return fstatat(dirfd, path, (struct stat *)st, flags);
}

/*
 * glibc before 2.33 made stat(2) and its kin calls of __xstat and the
 * like, with a version first: programs built then (Debian's CGNS 3.4)
 * still call those, past the functions above, and found no file on the
 * mount.  Version 1 (_STAT_VER_LINUX), x86-64's, has struct stat's layout.
 */
EXPORT int __xstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return stat(path, st);
}

EXPORT int __lxstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return lstat(path, st);
}

EXPORT int __fxstat(int ver, int fd, struct stat *st)
{
	(void)ver;
	return fstat(fd, st);
}

EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	(void)ver;
	return fstatat(dirfd, path, st, flags);
}

EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
	return __xstat(ver, path, (struct stat *)st);
}

EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	return __lxstat(ver, path, (struct stat *)st);
}

EXPORT int __fxstat64(int ver, int fd, struct stat64 *st)
{
	return __fxstat(ver, fd, (struct stat *)st);
}

EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
	return __fxstatat(ver, dirfd, path, (struct stat *)st, flags);
}

EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *sx)
{
	struct stat st;
	char rel[PATH_MAX];
	int t = 0, rc;

	RESOLVE(statx);
	if (in_tfs)
		return real_statx(dirfd, path, flags, mask, sx);
	if ((flags & AT_EMPTY_PATH) && is_empty(path) && ofd_get(dirfd))
		rc = fstat(dirfd, &st);
	else if ((t = mount_path_at(dirfd, path, rel, sizeof(rel),
				    !(flags & AT_SYMLINK_NOFOLLOW))) == 0)
		return real_statx(dirfd, outside_path(path, rel, sizeof(rel)), flags, mask, sx);
	else
		rc = t < 0 ? -1 : (flags & AT_SYMLINK_NOFOLLOW) ? path_lstat(rel, &st) :
			path_stat(rel, &st);
	if (rc < 0)
		return -1;
	memset(sx, 0, sizeof(*sx));
	sx->stx_mask = STATX_BASIC_STATS;
	sx->stx_blksize = (uint32_t)st.st_blksize;
	sx->stx_nlink = (uint32_t)st.st_nlink;
	sx->stx_uid = st.st_uid;
	sx->stx_gid = st.st_gid;
	sx->stx_mode = (uint16_t)st.st_mode;
	sx->stx_ino = st.st_ino;
	sx->stx_size = (uint64_t)st.st_size;
	sx->stx_blocks = (uint64_t)st.st_blocks;
	sx->stx_dev_major = (uint32_t)(st.st_dev >> 8);
	sx->stx_dev_minor = (uint32_t)(st.st_dev & 0xff);
	sx->stx_atime.tv_sec = st.st_atim.tv_sec;
	sx->stx_atime.tv_nsec = (uint32_t)st.st_atim.tv_nsec;
	sx->stx_mtime.tv_sec = st.st_mtim.tv_sec;
	sx->stx_mtime.tv_nsec = (uint32_t)st.st_mtim.tv_nsec;
	sx->stx_ctime.tv_sec = st.st_ctim.tv_sec;
	sx->stx_ctime.tv_nsec = (uint32_t)st.st_ctim.tv_nsec;
	return 0;
}

/*
 * access(2) and its kin of a path on the mount (@rel): a backed file as
 * the kernel answers for its backing file; one only in burst buffers by
 * the bits its creating open gave, for the owner (every client of a
 * server is its user; root passes).  A regular file on the mount is never
 * executable.  @eff: the effective ids (AT_EACCESS, euidaccess).
 */
static int mount_access(const char *rel, int how, int eff)
{
	char p[PATH_MAX];
	struct stat st;
	unsigned need = 0;

	RESOLVE(faccessat);
	if (path_stat(rel, &st) < 0)
		return -1;
	if ((how & X_OK) && S_ISREG(st.st_mode)) {
		errno = EACCES;
		return -1;
	}
	if (!(how & (R_OK | W_OK)))
		return 0;
	if (pfs_path(rel, p, sizeof(p)) == 0 && real_faccessat(AT_FDCWD, p, F_OK, 0) == 0)
		return real_faccessat(AT_FDCWD, p, how & (R_OK | W_OK), eff ? AT_EACCESS : 0);
	if ((eff ? geteuid() : getuid()) == 0)
		return 0;
	if (how & R_OK)
		need |= S_IRUSR;
	if (how & W_OK)
		need |= S_IWUSR;
	if ((st.st_mode & need) != need) {
		errno = EACCES;
		return -1;
	}
	return 0;
}

EXPORT int access(const char *path, int how)
{
	char rel[PATH_MAX];
	int t;

	RESOLVE(access);
	if (in_tfs || (t = mount_path(AT_FDCWD, path, rel, sizeof(rel))) == 0)
		return real_access(in_tfs ? path : kpath(path, rel), how);
	return t < 0 ? -1 : KEEP_ERRNO(mount_access(rel, how, 0));
}

/* faccessat(2), eaccess(3) and euidaccess(3): `test -r`, GNU sort */
EXPORT int faccessat(int dirfd, const char *path, int how, int flags)
{
	char rel[PATH_MAX];
	int t;

	RESOLVE(faccessat);
	if (in_tfs || (t = mount_path(dirfd, path, rel, sizeof(rel))) == 0)
		return real_faccessat(dirfd, in_tfs ? path : kpath(path, rel), how, flags);
	return t < 0 ? -1 : KEEP_ERRNO(mount_access(rel, how, (flags & AT_EACCESS) != 0));
}

EXPORT int euidaccess(const char *path, int how)
{
	return faccessat(AT_FDCWD, path, how, AT_EACCESS);
}

EXPORT int eaccess(const char *path, int how)
{
	return faccessat(AT_FDCWD, path, how, AT_EACCESS);
}

/*
 * File-system statistics: those of the backing directory for the mount
 * and what is under it, with TangramFS's own f_type.  An MPI-IO library
 * picks its driver by f_type (ROMIO asks statfs of the file, or of its
 * directory when the file is not there yet, and refuses the name when
 * both fail); one it does not know gets the plain POSIX driver, whose
 * calls this library serves.
 */
#define TFS_SUPER_MAGIC 0x54465331	/* "TFS1" */

/* 1 when @path is under the mount and exists, 0 when it is outside (*@out
 * then names it for the kernel), -1 on error. */
static int fs_path(const char *path, char *rel, size_t len, const char **out)
{
	struct stat st;
	int t;

	*out = path;
	if (in_tfs)
		return 0;
	if ((t = mount_path(AT_FDCWD, path, rel, len)) == 0) {
		*out = outside_path(path, rel, len);
		return 0;
	}
	return t < 0 || path_stat(rel, &st) < 0 ? -1 : 1;
}

static int mount_statfs(struct statfs *sf)
{
	char p[PATH_MAX];

	RESOLVE(statfs);
	if (pfs_path("", p, sizeof(p)) < 0 || real_statfs(p, sf) < 0)
		return -1;
	sf->f_type = TFS_SUPER_MAGIC;
	return 0;
}

EXPORT int statfs(const char *path, struct statfs *sf)
{
	char rel[PATH_MAX];
	const char *out;
	int t;

	RESOLVE(statfs);
	if ((t = fs_path(path, rel, sizeof(rel), &out)) == 0)
		return real_statfs(out, sf);
	return t < 0 ? -1 : mount_statfs(sf);
}

EXPORT int statfs64(const char *path, struct statfs64 *sf)
{
	return statfs(path, (struct statfs *)sf);
}

EXPORT int fstatfs(int fd, struct statfs *sf)
{
	RESOLVE(statfs);
	RESOLVE(fstatfs);
	if (!in_tfs && ofd_get(fd))
		return mount_statfs(sf);
	return real_fstatfs(fd, sf);
}

EXPORT int fstatfs64(int fd, struct statfs64 *sf)
{
	return fstatfs(fd, (struct statfs *)sf);
}

static int mount_statvfs(struct statvfs *sv)
{
	char p[PATH_MAX];

	RESOLVE(statvfs);
	if (pfs_path("", p, sizeof(p)) < 0)
		return -1;
	return real_statvfs(p, sv);
}

EXPORT int statvfs(const char *path, struct statvfs *sv)
{
	char rel[PATH_MAX];
	const char *out;
	int t;

	RESOLVE(statvfs);
	if ((t = fs_path(path, rel, sizeof(rel), &out)) == 0)
		return real_statvfs(out, sv);
	return t < 0 ? -1 : mount_statvfs(sv);
}

EXPORT int statvfs64(const char *path, struct statvfs64 *sv)
{
	return statvfs(path, (struct statvfs *)sv);
}

EXPORT int fstatvfs(int fd, struct statvfs *sv)
{
	RESOLVE(statvfs);
	RESOLVE(fstatvfs);
	if (!in_tfs && ofd_get(fd))
		return mount_statvfs(sv);
	return real_fstatvfs(fd, sv);
}

EXPORT int fstatvfs64(int fd, struct statvfs64 *sv)
{
	return fstatvfs(fd, (struct statvfs *)sv);
}

static int mount_rmdir(const char *rel);

static int do_unlink(int dirfd, const char *path, int flags, int at)
{
	char rel[PATH_MAX];
	int t, rc;

	RESOLVE(unlink);
	RESOLVE(unlinkat);
	t = in_tfs ? 0 : mount_path_nf(dirfd, path, rel, sizeof(rel));
	if (t == 0)
		return at ? real_unlinkat(dirfd, path, flags) : real_unlink(path);
	if (t < 0)
		return -1;
	if (flags & AT_REMOVEDIR)
		return mount_rmdir(rel);
	in_tfs++;
	rc = KEEP_ERRNO(tfs_unlink(rel));
	in_tfs--;
	return rc;
}

EXPORT int unlink(const char *path)
{
	return do_unlink(AT_FDCWD, path, 0, 0);
}

EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
	return do_unlink(dirfd, path, flags, 1);
}

/* ---- the namespace: directories and links -------------------------------------- */

/*
 * The mount's namespace is the backing directory plus the files the
 * server holds (some only in burst buffers).  A directory or a symbolic
 * link on the mount is made in the backing directory, never on the real
 * path the mount names (which need not exist, and is not TangramFS's);
 * a name is taken when either knows it.
 */

/* 1 when @rel names something on the mount (a file the server holds, or
 * anything in the backing directory, a dangling link too), else 0; errno
 * as it was. */
static int mount_exists(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;
	int e = errno, rc;

	RESOLVE(lstat);
	if (!rel[0])
		return 1;
	rc = (pfs_path(rel, p, sizeof(p)) == 0 && real_lstat(p, &st) == 0) ||
		path_stat(rel, &st) == 0;
	errno = e;
	return rc;
}

static int do_mkdir(int dirfd, const char *path, mode_t mode, int at)
{
	char rel[PATH_MAX], p[PATH_MAX];
	int t;

	RESOLVE(mkdir);
	RESOLVE(mkdirat);
	t = in_tfs ? 0 : mount_path_nf(dirfd, path, rel, sizeof(rel));
	if (t == 0)
		return at ? real_mkdirat(dirfd, path, mode) : real_mkdir(path, mode);
	if (t < 0 || pfs_path(rel, p, sizeof(p)) < 0)
		return -1;
	if (mount_exists(rel)) {	/* the mount itself, or a file only the server holds */
		errno = EEXIST;
		return -1;
	}
	return real_mkdir(p, mode);
}

EXPORT int mkdir(const char *path, mode_t mode)
{
	return do_mkdir(AT_FDCWD, path, mode, 0);
}

EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
	return do_mkdir(dirfd, path, mode, 1);
}

/* rmdir(2) and unlinkat(AT_REMOVEDIR) of a directory on the mount: the
 * backing directory's; the mount itself is busy, as a mount point is. */
static int mount_rmdir(const char *rel)
{
	char p[PATH_MAX];

	RESOLVE(rmdir);
	if (!rel[0]) {
		errno = EBUSY;
		return -1;
	}
	if (pfs_path(rel, p, sizeof(p)) < 0)
		return -1;
	return real_rmdir(p);
}

EXPORT int rmdir(const char *path)
{
	char rel[PATH_MAX];
	int t;

	RESOLVE(rmdir);
	t = in_tfs ? 0 : mount_path_nf(AT_FDCWD, path, rel, sizeof(rel));
	if (t == 0)
		return real_rmdir(path);
	return t < 0 ? -1 : mount_rmdir(rel);
}

static int do_symlink(const char *target, int dirfd, const char *path, int at)
{
	char rel[PATH_MAX], p[PATH_MAX];
	int t;

	RESOLVE(symlink);
	RESOLVE(symlinkat);
	t = in_tfs ? 0 : mount_path_nf(dirfd, path, rel, sizeof(rel));
	if (t == 0)
		return at ? real_symlinkat(target, dirfd, path) : real_symlink(target, path);
	if (t < 0 || pfs_path(rel, p, sizeof(p)) < 0)
		return -1;
	if (mount_exists(rel)) {
		errno = EEXIST;
		return -1;
	}
	return real_symlink(target, p);
}

EXPORT int symlink(const char *target, const char *path)
{
	return do_symlink(target, AT_FDCWD, path, 0);
}

EXPORT int symlinkat(const char *target, int dirfd, const char *path)
{
	return do_symlink(target, dirfd, path, 1);
}

/* chdir(2) into the mount: into the backing directory (pfs_to_mount()). */
EXPORT int chdir(const char *path)
{
	char rel[PATH_MAX], p[PATH_MAX];
	struct stat st;
	int t;

	RESOLVE(chdir);
	t = in_tfs ? 0 : mount_path(AT_FDCWD, path, rel, sizeof(rel));
	if (t == 0)
		return real_chdir(in_tfs ? path : outside_path(path, rel, sizeof(rel)));
	if (t < 0 || pfs_path(rel, p, sizeof(p)) < 0)
		return -1;
	if (rel[0] && path_stat(rel, &st) == 0 && !S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return real_chdir(p);
}

/* getcwd(3) in the backing directory names the mount (pwd, and the
 * relative paths a program makes from it, stay on the mount). */
EXPORT char *getcwd(char *buf, size_t size)
{
	char tmp[PATH_MAX];
	size_t n;

	RESOLVE(getcwd);
	if (in_tfs || !mountlen || !real_getcwd(tmp, sizeof(tmp)))
		return real_getcwd(buf, size);
	if (pfs_to_mount(tmp, sizeof(tmp)) < 0)
		return NULL;
	n = strlen(tmp) + 1;
	if (buf && size == 0) {
		errno = EINVAL;
		return NULL;
	}
	if ((size && size < n)) {
		errno = ERANGE;
		return NULL;
	}
	if (!buf && !(buf = malloc(size ? size : n)))
		return NULL;
	memcpy(buf, tmp, n);
	return buf;
}

/*
 * Hard links: TangramFS keeps one name per file (the server's table is by
 * path, stage-out writes one backing file), so link(2) on the mount is
 * refused with EPERM, as on file systems without hard links (ln then
 * says "Operation not permitted"; cp -l as well).  Between the mount and
 * another file system it is EXDEV, as the kernel says.
 */
static int do_link(int odirfd, const char *old, int ndirfd, const char *new, int flags, int at)
{
	char orel[PATH_MAX], nrel[PATH_MAX];
	int to, tn;

	RESOLVE(link);
	RESOLVE(linkat);
	if (in_tfs)
		return at ? real_linkat(odirfd, old, ndirfd, new, flags) : real_link(old, new);
	if ((flags & AT_EMPTY_PATH) && is_empty(old))
		to = ofd_get(odirfd) ? 1 : 0;
	else
		to = mount_path_nf(odirfd, old, orel, sizeof(orel));
	tn = mount_path_nf(ndirfd, new, nrel, sizeof(nrel));
	if (to < 0 || tn < 0)
		return -1;
	if (to == 0 && tn == 0)
		return at ? real_linkat(odirfd, old, ndirfd, new, flags) : real_link(old, new);
	if (to > 0 && !((flags & AT_EMPTY_PATH) && is_empty(old)) && !mount_exists(orel)) {
		errno = ENOENT;
		return -1;
	}
	if (tn > 0 && mount_exists(nrel)) {
		errno = EEXIST;
		return -1;
	}
	errno = to && tn ? EPERM : EXDEV;
	return -1;
}

EXPORT int link(const char *old, const char *new)
{
	return do_link(AT_FDCWD, old, AT_FDCWD, new, 0, 0);
}

EXPORT int linkat(int odirfd, const char *old, int ndirfd, const char *new, int flags)
{
	return do_link(odirfd, old, ndirfd, new, flags, 1);
}

/*
 * mknod(2) of a regular file on the mount makes an empty TangramFS file,
 * as open(O_CREAT | O_EXCL) would; a device, FIFO or socket cannot live
 * there (EPERM), and is never made on the real path.
 */
static int do_mknod(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	char rel[PATH_MAX];
	int t, fd;

	RESOLVE(mknodat);
	t = in_tfs ? 0 : mount_path_nf(dirfd, path, rel, sizeof(rel));
	if (t == 0)
		return real_mknodat(dirfd, path, mode, dev);
	if (t < 0)
		return -1;
	if (mount_exists(rel)) {
		errno = EEXIST;
		return -1;
	}
	if ((mode & S_IFMT) != 0 && (mode & S_IFMT) != S_IFREG) {
		errno = EPERM;
		return -1;
	}
	if ((fd = mount_openfd_mode(rel, O_CREAT | O_EXCL | O_WRONLY, mode & 07777, path)) < 0)
		return -1;
	return close(fd);
}

EXPORT int mknod(const char *path, mode_t mode, dev_t dev)
{
	return do_mknod(AT_FDCWD, path, mode, dev);
}

EXPORT int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	return do_mknod(dirfd, path, mode, dev);
}

EXPORT int mkfifo(const char *path, mode_t mode)
{
	return do_mknod(AT_FDCWD, path, S_IFIFO | (mode & 07777), 0);
}

EXPORT int mkfifoat(int dirfd, const char *path, mode_t mode)
{
	return do_mknod(dirfd, path, S_IFIFO | (mode & 07777), 0);
}

/* ---- the namespace: metadata --------------------------------------------------- */

/* The path below the mount of TangramFS descriptor @o's file, as the
 * server last named it to this process. */
static const char *o_rel(struct ofd *o)
{
	return o->rel ? o->rel : "";
}

/*
 * chmod(2) of a file on the mount: the server's mode for it (what later
 * opens are checked against, what stage-out gives it, for every process:
 * tfs_chmod), and its backing file's when it has one; a directory's, the
 * backing directory's.
 */
static int mount_chmod(const char *rel, mode_t mode)
{
	char p[PATH_MAX];
	struct stat st;
	int rc;

	RESOLVE(chmod);
	RESOLVE(stat);
	if (pfs_path(rel, p, sizeof(p)) < 0)
		return -1;
	if (!rel[0] || (real_stat(p, &st) == 0 && S_ISDIR(st.st_mode)))
		return real_chmod(p, mode);
	in_tfs++;
	rc = KEEP_ERRNO(tfs_chmod(rel, mode & 07777));
	in_tfs--;
	return rc;
}

/* chmod(2) and fchmodat(2); with AT_SYMLINK_NOFOLLOW a symbolic link on
 * the mount is refused with EOPNOTSUPP, as Linux does (links have no mode
 * of their own; GNU tar asks so of every link it extracts, and ignores
 * that error only). */
static int do_chmod(int dirfd, const char *path, mode_t mode, int flags, int at)
{
	char rel[PATH_MAX], p[PATH_MAX];
	struct stat st;
	int t;

	RESOLVE(chmod);
	RESOLVE(fchmodat);
	RESOLVE(lstat);
	t = in_tfs ? 0 : mount_path_at(dirfd, path, rel, sizeof(rel),
					   !(flags & AT_SYMLINK_NOFOLLOW));
	if (t == 0)
		return at ? real_fchmodat(dirfd, path, mode, flags) : real_chmod(path, mode);
	if (t < 0)
		return -1;
	if ((flags & AT_SYMLINK_NOFOLLOW) && rel[0] && pfs_path(rel, p, sizeof(p)) == 0 &&
	    KEEP_ERRNO(real_lstat(p, &st)) == 0 && S_ISLNK(st.st_mode)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return mount_chmod(rel, mode);
}

EXPORT int chmod(const char *path, mode_t mode)
{
	return do_chmod(AT_FDCWD, path, mode, 0, 0);
}

EXPORT int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	return do_chmod(dirfd, path, mode, flags, 1);
}

EXPORT int fchmod(int fd, mode_t mode)
{
	struct ofd *o = ofd_get(fd);

	RESOLVE(fchmod);
	if (in_tfs || !o)
		return real_fchmod(fd, mode);
	return mount_chmod(o_rel(o), mode);
}

/*
 * Owners and times are the backing file's (stat(2) gives them once it
 * has one): chown(2) and utimensat(2) of a file on the mount change
 * them there, making it (empty, with the file's mode) when the file is
 * only in burst buffers so far, as backing_extend() does at a
 * truncation: stage-out writes into it and keeps both.  A name the mount
 * does not know is ENOENT.
 */
static int backing_of(const char *rel, char *p, size_t len)
{
	struct stat st;
	int fd;

	RESOLVE(close);
	RESOLVE(lstat);
	if (pfs_path(rel, p, len) < 0)
		return -1;
	if (!rel[0] || real_lstat(p, &st) == 0)
		return 0;
	if (path_stat(rel, &st) < 0)
		return -1;
	/* only in burst buffers: an empty backing file with its mode, which
	 * stage-out writes into (a reader takes the bytes from their owners
	 * first) and whose mode the next open checks, as the server's */
	RESOLVE(open);
	if ((fd = real_open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777)) < 0)
		return errno == EEXIST ? 0 : -1;
	if (fchmod(fd, st.st_mode & 07777) < 0) {
		int e = errno;

		real_close(fd);
		errno = e;
		return -1;
	}
	return real_close(fd);
}

static int do_chown(int dirfd, const char *path, uid_t uid, gid_t gid, int flags, int which)
{
	char rel[PATH_MAX], p[PATH_MAX];
	int t;

	RESOLVE(chown);
	RESOLVE(lchown);
	RESOLVE(fchownat);
	t = in_tfs ? 0 : mount_path_at(dirfd, path, rel, sizeof(rel),
					   which != 1 && !(flags & AT_SYMLINK_NOFOLLOW));
	if (t == 0)
		return which == 0 ? real_chown(path, uid, gid) : which == 1 ?
			real_lchown(path, uid, gid) : real_fchownat(dirfd, path, uid, gid, flags);
	if (t < 0 || KEEP_ERRNO(backing_of(rel, p, sizeof(p))) < 0)
		return -1;
	return real_fchownat(AT_FDCWD, p, uid, gid, which == 1 ? AT_SYMLINK_NOFOLLOW :
			     flags & AT_SYMLINK_NOFOLLOW);
}

EXPORT int chown(const char *path, uid_t uid, gid_t gid)
{
	return do_chown(AT_FDCWD, path, uid, gid, 0, 0);
}

EXPORT int lchown(const char *path, uid_t uid, gid_t gid)
{
	return do_chown(AT_FDCWD, path, uid, gid, AT_SYMLINK_NOFOLLOW, 1);
}

EXPORT int fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
	if (!in_tfs && (flags & AT_EMPTY_PATH) && is_empty(path) && ofd_get(dirfd))
		return fchown(dirfd, uid, gid);
	return do_chown(dirfd, path, uid, gid, flags, 2);
}

EXPORT int fchown(int fd, uid_t uid, gid_t gid)
{
	struct ofd *o = ofd_get(fd);
	char p[PATH_MAX];

	RESOLVE(fchown);
	RESOLVE(fchownat);
	if (in_tfs || !o)
		return real_fchown(fd, uid, gid);
	if (KEEP_ERRNO(backing_of(o_rel(o), p, sizeof(p))) < 0)
		return -1;
	return real_fchownat(AT_FDCWD, p, uid, gid, 0);
}

/*
 * utimensat(2) of @rel on the mount; @ts as the kernel takes it.  The
 * times go on the backing file (the kernel checks the caller's right),
 * and, for a file the server holds, to the server too (SETTIMES), so
 * that stage-out, which writes into the backing file, gives them back
 * after its copy: touch -d, cp -a, rsync -a and tar x keep them.  They
 * are set there once more after the server has them, over a stage-out
 * that ran in between.
 */
static int mount_utimens(const char *rel, const struct timespec ts[2], int flags)
{
	char p[PATH_MAX];
	struct timespec t[2];
	struct stat st;
	int rc, e;

	RESOLVE(lstat);
	if (KEEP_ERRNO(backing_of(rel, p, sizeof(p))) < 0)
		return -1;
	flags &= AT_SYMLINK_NOFOLLOW;
	if (!rel[0] || lockdesign || real_lstat(p, &st) < 0 || !S_ISREG(st.st_mode))
		return (int)syscall(SYS_utimensat, AT_FDCWD, p, ts, flags);
	/* the times themselves, as the kernel would resolve them */
	for (int i = 0; i < 2; i++) {
		if (!ts || ts[i].tv_nsec == UTIME_NOW)
			clock_gettime(CLOCK_REALTIME, &t[i]);
		else if (ts[i].tv_nsec == UTIME_OMIT)
			t[i] = i ? st.st_mtim : st.st_atim;
		else
			t[i] = ts[i];
	}
	if ((rc = (int)syscall(SYS_utimensat, AT_FDCWD, p, ts, flags)) < 0)
		return rc;
	if (ts && ts[0].tv_nsec == UTIME_OMIT && ts[1].tv_nsec == UTIME_OMIT)
		return 0;
	in_tfs++;
	client_start();
	rc = tfsi_settimes(rel, t);
	e = errno;
	in_tfs--;
	if (rc < 0) {
		errno = e;
		return -1;
	}
	/* (a caller that may only set the time now, not given times, keeps
	 * the kernel's now from the first call) */
	syscall(SYS_utimensat, AT_FDCWD, p, t, flags);
	return 0;
}

/* utimensat(2); @path NULL: futimens(2) of @dirfd, as the kernel takes it */
static int do_utimens(int dirfd, const char *path, const struct timespec ts[2], int flags)
{
	char rel[PATH_MAX];
	int t;

	if (!in_tfs && (is_empty(path) && (!path || (flags & AT_EMPTY_PATH))) &&
	    ofd_get(dirfd))
		return KEEP_ERRNO(mount_utimens(o_rel(ofd_get(dirfd)), ts, 0));
	if (in_tfs || is_empty(path) ||
	    (t = mount_path_at(dirfd, path, rel, sizeof(rel), !(flags & AT_SYMLINK_NOFOLLOW))) == 0)
		return (int)syscall(SYS_utimensat, dirfd, path, ts, flags);
	return t < 0 ? -1 : KEEP_ERRNO(mount_utimens(rel, ts, flags));
}

EXPORT int utimensat(int dirfd, const char *path, const struct timespec ts[2], int flags)
{
	return do_utimens(dirfd, path, ts, flags);
}

EXPORT int futimens(int fd, const struct timespec ts[2])
{
	return do_utimens(fd, NULL, ts, 0);
}

/* The microsecond calls, through utimensat. */
static int tv_utimens(int dirfd, const char *path, const struct timeval tv[2], int flags)
{
	struct timespec ts[2];

	if (!tv)
		return do_utimens(dirfd, path, NULL, flags);
	for (int i = 0; i < 2; i++) {
		if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000) {
			errno = EINVAL;
			return -1;
		}
		ts[i].tv_sec = tv[i].tv_sec;
		ts[i].tv_nsec = tv[i].tv_usec * 1000;
	}
	return do_utimens(dirfd, path, ts, flags);
}

EXPORT int utimes(const char *path, const struct timeval tv[2])
{
	return tv_utimens(AT_FDCWD, path, tv, 0);
}

EXPORT int lutimes(const char *path, const struct timeval tv[2])
{
	return tv_utimens(AT_FDCWD, path, tv, AT_SYMLINK_NOFOLLOW);
}

EXPORT int futimes(int fd, const struct timeval tv[2])
{
	return tv_utimens(fd, NULL, tv, 0);	/* the descriptor itself */
}

EXPORT int futimesat(int dirfd, const char *path, const struct timeval tv[2])
{
	return tv_utimens(dirfd, path, tv, 0);
}

EXPORT int utime(const char *path, const struct utimbuf *ub)
{
	struct timespec ts[2];

	if (!ub)
		return do_utimens(AT_FDCWD, path, NULL, 0);
	ts[0].tv_sec = ub->actime;
	ts[1].tv_sec = ub->modtime;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	return do_utimens(AT_FDCWD, path, ts, 0);
}

/* ---- the namespace: rename ----------------------------------------------------- */

/*
 * rename(2) on the mount is the server's (tfs_rename): the old name is
 * gone for every process, the new one has the data, in burst buffers too,
 * and stage-out writes it there.  Across the mount's boundary EXDEV, so
 * mv copies.  RENAME_EXCHANGE is refused (EINVAL): the server keeps one
 * name per file and cannot swap two in one step.
 */
static int do_rename(int odirfd, const char *old, int ndirfd, const char *new, unsigned flags,
		     int which)
{
	char orel[PATH_MAX], nrel[PATH_MAX];
	int to, tn, rc;

	RESOLVE(rename);
	RESOLVE(renameat);
	RESOLVE(renameat2);
	to = in_tfs ? 0 : mount_path_nf(odirfd, old, orel, sizeof(orel));
	tn = in_tfs ? 0 : mount_path_nf(ndirfd, new, nrel, sizeof(nrel));
	if (to < 0 || tn < 0)
		return -1;
	if (to == 0 && tn == 0)
		return which == 0 ? real_rename(old, new) : which == 1 ?
			real_renameat(odirfd, old, ndirfd, new) :
			real_renameat2(odirfd, old, ndirfd, new, flags);
	if (flags & ~(unsigned)RENAME_NOREPLACE) {
		errno = EINVAL;
		return -1;
	}
	if (to != tn) {
		errno = EXDEV;
		return -1;
	}
	if (strcmp(orel, nrel) == 0) {
		struct stat st;

		return path_stat(orel, &st);	/* the same name: nothing */
	}
	in_tfs++;
	rc = KEEP_ERRNO(tfs_rename(orel, nrel,
				   (flags & RENAME_NOREPLACE) ? TFS_RENAME_NOREPLACE : 0));
	in_tfs--;
	if (rc == 0) {
		/* this process's descriptors of it name it anew (exec, fork) */
		size_t lo = strlen(orel), ln = strlen(nrel);

		pthread_mutex_lock(&tab_lock);
		for (int fd = 0; fd < atomic_load(&fdtop); fd++) {
			struct ofd *o = atomic_load(&fdtab[fd]);
			char *r;

			if (!o || !o->rel || strncmp(o->rel, orel, lo) != 0 ||
			    (o->rel[lo] && o->rel[lo] != '/'))
				continue;
			if ((r = malloc(ln + strlen(o->rel + lo) + 1))) {
				memcpy(r, nrel, ln);
				memcpy(r + ln, o->rel + lo, strlen(o->rel + lo) + 1);
				free(o->rel);
				o->rel = r;
			}
		}
		pthread_mutex_unlock(&tab_lock);
	}
	return rc;
}

EXPORT int rename(const char *old, const char *new)
{
	return do_rename(AT_FDCWD, old, AT_FDCWD, new, 0, 0);
}

EXPORT int renameat(int odirfd, const char *old, int ndirfd, const char *new)
{
	return do_rename(odirfd, old, ndirfd, new, 0, 1);
}

EXPORT int renameat2(int odirfd, const char *old, int ndirfd, const char *new, unsigned flags)
{
	return do_rename(odirfd, old, ndirfd, new, flags, 2);
}

/* ---- descriptors ------------------------------------------------------------------- */

EXPORT int dup(int fd)
{
	struct ofd *o = ofd_get(fd);
	int nfd;

	RESOLVE(close);
	RESOLVE(dup);
	nfd = real_dup(fd);
	if (!in_tfs && o && nfd >= 0) {
		if (nfd >= MAXFD) {
			real_close(nfd);
			errno = EMFILE;
			return -1;
		}
		ofd_put(nfd, o);
		std_take(nfd);
	}
	return nfd;
}

static int dup_to(int fd, int nfd, int flags, int three)
{
	struct ofd *o = ofd_get(fd), *old;
	int rc;

	RESOLVE(dup2);
	RESOLVE(dup3);
	if (in_tfs || (!o && !ofd_get(nfd)))
		return three ? real_dup3(fd, nfd, flags) : real_dup2(fd, nfd);
	if (fd == nfd && !three)
		return nfd;
	std_give_back(nfd);
	rc = three ? real_dup3(fd, nfd, flags) : real_dup2(fd, nfd);
	if (rc < 0)
		return rc;
	if ((old = take(nfd)))
		ofd_unref(old);
	if (o) {
		ofd_put(nfd, o);
		std_take(nfd);
	}
	return rc;
}

EXPORT int dup2(int fd, int nfd)
{
	return dup_to(fd, nfd, 0, 0);
}

EXPORT int dup3(int fd, int nfd, int flags)
{
	return dup_to(fd, nfd, flags, 1);
}

EXPORT int fcntl(int fd, int cmd, ...)
{
	struct ofd *o = ofd_get(fd);
	va_list ap;
	long arg;
	int rc;

	RESOLVE(close);
	RESOLVE(fcntl);
	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	if (in_tfs || !o)
		return real_fcntl(fd, cmd, arg);
	switch (cmd) {
	case F_GETLK:
	case F_SETLK:
	case F_SETLKW:
	case F_OFD_GETLK:
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
		return KEEP_ERRNO(o_rlock(o, cmd, (struct flock *)arg));
	case F_GETFL:
		return o->flags & ~(O_CREAT | O_EXCL | O_TRUNC);
	case F_SETFL:
		o->flags = (o->flags & ~O_APPEND) | ((int)arg & O_APPEND);
		return 0;
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		rc = real_fcntl(fd, cmd, arg);
		if (rc >= 0) {
			if (rc >= MAXFD) {
				real_close(rc);
				errno = EMFILE;
				return -1;
			}
			ofd_put(rc, o);
		}
		return rc;
	default:
		return real_fcntl(fd, cmd, arg);
	}
}

EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	return fcntl(fd, cmd, arg);
}

/* ---- streams --------------------------------------------------------------------- */

static ssize_t ck_read(void *c, char *buf, size_t n)
{
	return read((int)(intptr_t)c, buf, n);
}

static ssize_t ck_write(void *c, const char *buf, size_t n)
{
	ssize_t r = write((int)(intptr_t)c, buf, n);

	return r < 0 ? 0 : r;	/* fopencookie: 0 is the error */
}

static int ck_seek(void *c, off64_t *off, int whence)
{
	off_t r = lseek((int)(intptr_t)c, *off, whence);

	if (r < 0)
		return -1;
	*off = r;
	return 0;
}

static int ck_close(void *c)
{
	return close((int)(intptr_t)c);
}

static FILE *cookie(int fd, const char *mode)
{
	static const cookie_io_functions_t io = { ck_read, ck_write, ck_seek, ck_close };
	FILE *f = fopencookie((void *)(intptr_t)fd, mode, io);

	if (!f)
		close(fd);
	else
		f->_fileno = fd;	/* fileno(3) names the descriptor (git and
					 * ld fstat it); glibc reads and writes a
					 * cookie stream through the cookie only */
	return f;
}

static int mode_flags(const char *mode)
{
	int f;

	switch (mode[0]) {
	case 'r':
		f = 0;
		break;
	case 'w':
		f = O_CREAT | O_TRUNC;
		break;
	case 'a':
		f = O_CREAT | O_APPEND;
		break;
	default:
		return -1;
	}
	f |= strchr(mode, '+') ? O_RDWR : mode[0] == 'r' ? O_RDONLY : O_WRONLY;
	if (strchr(mode, 'x'))
		f |= O_EXCL;
	if (strchr(mode, 'e'))
		f |= O_CLOEXEC;
	return f;
}

EXPORT FILE *fopen(const char *path, const char *mode)
{
	char rel[PATH_MAX];
	int t, flags, fd;

	RESOLVE(fopen);
	if (in_tfs || (t = mount_path(AT_FDCWD, path, rel, sizeof(rel))) == 0)
		return real_fopen(in_tfs ? path : kpath(path, rel), mode);
	if (t < 0)
		return NULL;
	if ((flags = mode_flags(mode)) < 0) {
		errno = EINVAL;
		return NULL;
	}
	if ((fd = KEEP_ERRNO(mount_openfd(rel, flags, path))) < 0)
		return NULL;
	if (!ofd_get(fd)) {		/* a directory */
		FILE *f = fdopen(fd, mode);

		if (!f)
			close(fd);
		return f;
	}
	return cookie(fd, mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	return fopen(path, mode);
}

EXPORT FILE *fdopen(int fd, const char *mode)
{
	RESOLVE(fdopen);
	if (in_tfs || !ofd_get(fd))
		return real_fdopen(fd, mode);
	return cookie(fd, mode);
}

/*
 * A listing of a directory on the mount is the backing directory's
 * entries (subdirectories, staged-out files, other programs' files) and
 * then the files the server holds right below it that the backing
 * directory does not have yet (only in burst buffers): one LIST per
 * opendir(3), taken before the first entry, so a file closed before the
 * opendir is listed and one unlinked or renamed away is not.  The names
 * the server gave go into a hash set that the backing entries are looked
 * up in as they pass, so a name is listed once, in time linear in the
 * directory's size.  The C library's own readdir(3) reads the backing
 * directory; the wrappers below add the server's names after its last
 * entry.
 */
struct dlist {
	DIR *d;
	char *names;		/* the server's names, NUL-separated */
	struct dname {
		uint32_t off;	/* in names */
		uint64_t fid;
		int seen;	/* the backing directory had it, or it was listed */
	} *v;
	size_t n, cap, len, caplen;
	uint32_t *slot;		/* hash set over v: index + 1, 0 empty */
	size_t nslot;
	size_t next;		/* the next server name to list, once the backing ones end */
	int done;		/* the backing directory's entries are over */
	struct dirent64 ent;
	char name_room[256];	/* d_name continues here */
	struct dlist *link;
};

static pthread_mutex_t dlist_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dlist *dlists;
static atomic_int ndlists;	/* none: readdir passes through at once */

static unsigned dname_hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int dlist_add(void *arg, const char *name, uint64_t fid)
{
	struct dlist *l = arg;
	size_t k = strlen(name) + 1;

	if (k > sizeof(l->name_room))
		return 0;	/* longer than any name a directory holds */
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct dname *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	if (l->len + k > l->caplen) {
		size_t cap = l->caplen ? 2 * l->caplen : 4096;
		char *p;

		while (cap < l->len + k)
			cap *= 2;
		if (!(p = realloc(l->names, cap)))
			return -1;
		l->names = p;
		l->caplen = cap;
	}
	memcpy(l->names + l->len, name, k);
	l->v[l->n].off = (uint32_t)l->len;
	l->v[l->n].fid = fid;
	l->v[l->n].seen = 0;
	l->n++;
	l->len += k;
	return 0;
}

/* The server's name @name in @l, or NULL. */
static struct dname *dlist_find(struct dlist *l, const char *name)
{
	size_t i;

	if (!l->nslot)
		return NULL;
	for (i = dname_hash(name) & (l->nslot - 1); l->slot[i]; i = (i + 1) & (l->nslot - 1))
		if (strcmp(l->names + l->v[l->slot[i] - 1].off, name) == 0)
			return &l->v[l->slot[i] - 1];
	return NULL;
}

/* Ask the server for the files right below @rel and keep them for @d;
 * 0, or -1 (errno) when it cannot be asked. */
static int dlist_open(DIR *d, const char *rel)
{
	struct dlist *l = calloc(1, sizeof(*l));
	int rc, e;

	if (!l)
		return -1;
	in_tfs++;
	client_start();
	rc = tfsi_list(rel, dlist_add, l);
	e = errno;
	in_tfs--;
	if (rc == 0 && l->n) {
		for (l->nslot = 16; l->nslot < 2 * l->n; l->nslot *= 2)
			;
		if (!(l->slot = calloc(l->nslot, sizeof(*l->slot)))) {
			rc = -1;
			e = ENOMEM;
		}
		for (size_t j = 0; !rc && j < l->n; j++) {
			size_t i = dname_hash(l->names + l->v[j].off) & (l->nslot - 1);

			while (l->slot[i])
				i = (i + 1) & (l->nslot - 1);
			l->slot[i] = (uint32_t)(j + 1);
		}
	}
	if (rc < 0) {
		free(l->slot);
		free(l->v);
		free(l->names);
		free(l);
		errno = e;
		return -1;
	}
	l->d = d;
	pthread_mutex_lock(&dlist_lock);
	l->link = dlists;
	dlists = l;
	atomic_fetch_add(&ndlists, 1);
	pthread_mutex_unlock(&dlist_lock);
	return 0;
}

static struct dlist *dlist_of(DIR *d)
{
	struct dlist *l;

	if (!atomic_load(&ndlists))
		return NULL;
	pthread_mutex_lock(&dlist_lock);
	for (l = dlists; l && l->d != d; l = l->link)
		;
	pthread_mutex_unlock(&dlist_lock);
	return l;
}

/* The listing of @d, which is on the mount: the backing directory's
 * next entry (read by @next), or once they are over, the next name of
 * the server's it did not have; NULL at the end (errno as it was) or on
 * error (errno). */
static struct dirent64 *dlist_next(struct dlist *l, struct dirent64 *(*next)(DIR *))
{
	int e = errno;

	while (!l->done) {
		struct dirent64 *de;
		struct dname *dn;

		errno = 0;
		if (!(de = next(l->d))) {
			if (errno)
				return NULL;
			l->done = 1;
			break;
		}
		errno = e;
		if ((dn = dlist_find(l, de->d_name))) {
			if (dn->seen)
				continue;	/* listed already (rewinddir) */
			dn->seen = 1;
		}
		return de;
	}
	while (l->next < l->n) {
		struct dname *dn = &l->v[l->next++];
		const char *name = l->names + dn->off;
		size_t k = strlen(name) + 1;

		if (dn->seen)
			continue;
		dn->seen = 1;
		l->ent.d_ino = dn->fid;
		l->ent.d_off = (off64_t)l->next;
		l->ent.d_reclen = (unsigned short)((offsetof(struct dirent64, d_name) + k + 7) & ~7u);
		l->ent.d_type = DT_REG;
		memcpy(l->ent.d_name, name, k);
		errno = e;
		return &l->ent;
	}
	errno = e;
	return NULL;
}

/* @d opened on the mount's @rel: its listing merges the server's names
 * (dlist_open); when the server cannot be asked, the backing
 * directory's alone, as before, with the reason said once. */
static DIR *dir_merged(DIR *d, const char *rel, const char *orig)
{
	int e = errno;

	if (d && dlist_open(d, rel) < 0)
		warn_once(orig);
	errno = e;
	return d;
}

EXPORT DIR *opendir(const char *path)
{
	char rel[PATH_MAX], p[PATH_MAX];
	int t;

	RESOLVE(opendir);
	if (in_tfs)
		return real_opendir(path);
	if ((t = mount_path(AT_FDCWD, path, rel, sizeof(rel))) == 0)
		return real_opendir(outside_path(path, rel, sizeof(rel)));
	if (t < 0 || pfs_path(rel, p, sizeof(p)) < 0)
		return NULL;
	return dir_merged(real_opendir(p), rel, path);
}

/* A descriptor of a directory on the mount is one of the backing
 * directory (mount_openfd): its name there says which. */
EXPORT DIR *fdopendir(int fd)
{
	char rel[PATH_MAX];
	int e = errno;
	DIR *d;

	RESOLVE(fdopendir);
	if (!(d = real_fdopendir(fd)) || in_tfs || !mountlen)
		return d;
	if (mount_path(fd, ".", rel, sizeof(rel)) != 1) {
		errno = e;
		return d;
	}
	return dir_merged(d, rel, rel);
}

EXPORT struct dirent64 *readdir64(DIR *d)
{
	struct dlist *l;

	RESOLVE(readdir64);
	if (in_tfs || !(l = dlist_of(d)))
		return real_readdir64(d);
	return dlist_next(l, real_readdir64);
}

_Static_assert(sizeof(struct dirent) == sizeof(struct dirent64), "dirent64 is dirent here");

EXPORT struct dirent *readdir(DIR *d)
{
	struct dlist *l;

	RESOLVE(readdir);
	if (in_tfs || !(l = dlist_of(d)))
		return real_readdir(d);
	return (struct dirent *)dlist_next(l, (struct dirent64 *(*)(DIR *))real_readdir);
}

/* readdir_r(3), deprecated but still called: readdir()'s entry copied. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
EXPORT int readdir64_r(DIR *d, struct dirent64 *entry, struct dirent64 **result)
{
	struct dirent64 *de;
	int e = errno;

	errno = 0;
	if (!(de = readdir64(d))) {
		int rc = errno;

		*result = NULL;
		errno = e;
		return rc;
	}
	memcpy(entry, de, offsetof(struct dirent64, d_name) + strlen(de->d_name) + 1);
	*result = entry;
	errno = e;
	return 0;
}

EXPORT int readdir_r(DIR *d, struct dirent *entry, struct dirent **result)
{
	return readdir64_r(d, (struct dirent64 *)entry, (struct dirent64 **)result);
}
#pragma GCC diagnostic pop

EXPORT void rewinddir(DIR *d)
{
	struct dlist *l;

	RESOLVE(rewinddir);
	real_rewinddir(d);
	if (in_tfs || !(l = dlist_of(d)))
		return;
	for (size_t i = 0; i < l->n; i++)
		l->v[i].seen = 0;
	l->next = 0;
	l->done = 0;
}

EXPORT int closedir(DIR *d)
{
	struct dlist **pp, *l = NULL;

	RESOLVE(closedir);
	if (atomic_load(&ndlists)) {
		pthread_mutex_lock(&dlist_lock);
		for (pp = &dlists; *pp && (*pp)->d != d; pp = &(*pp)->link)
			;
		if ((l = *pp)) {
			*pp = l->link;
			atomic_fetch_sub(&ndlists, 1);
		}
		pthread_mutex_unlock(&dlist_lock);
	}
	if (l) {
		free(l->slot);
		free(l->v);
		free(l->names);
		free(l);
	}
	return real_closedir(d);
}

/*
 * Calls glibc makes of system calls it does not take through these
 * wrappers (its own __open, __lstat, getdents): remove(3) (Fortran's
 * CLOSE with STATUS='DELETE'), realpath(3) (OpenFOAM compares two),
 * the mkstemp(3) family and mkdtemp(3) (sed -i makes its new file beside
 * the old one), scandir(3).  On the mount they go through the wrappers.
 */
EXPORT int remove(const char *path)
{
	char rel[PATH_MAX];
	int t, rc;

	RESOLVE(remove);
	if (in_tfs || (t = mount_path_nf(AT_FDCWD, path, rel, sizeof(rel))) == 0)
		return real_remove(path);
	if (t < 0)
		return -1;
	/* as glibc: a directory is rmdir's */
	if ((rc = unlink(path)) < 0 && errno == EISDIR)
		rc = rmdir(path);
	return rc;
}

/* The mount's name of @path (lexically normal, its links on the mount
 * followed: mount_links()), when it exists; NULL (errno) otherwise. */
EXPORT char *realpath(const char *path, char *resolved)
{
	char rel[PATH_MAX];
	struct stat st;
	int t;

	RESOLVE(realpath);
	if (in_tfs || !path || (t = mount_path(AT_FDCWD, path, rel, sizeof(rel))) == 0)
		return real_realpath(in_tfs || !path ? path : kpath(path, rel), resolved);
	if (t < 0 || stat(path, &st) < 0)
		return NULL;
	if (mountlen + 1 + strlen(rel) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (!resolved && !(resolved = malloc(PATH_MAX)))
		return NULL;
	memcpy(resolved, mount, mountlen);
	if (rel[0]) {
		resolved[mountlen] = '/';
		memcpy(resolved + mountlen + 1, rel, strlen(rel) + 1);
	} else {
		resolved[mountlen] = '\0';
	}
	return resolved;
}

EXPORT char *__realpath_chk(const char *path, char *resolved, size_t len)
{
	(void)len;	/* a buffer the caller sized PATH_MAX, as realpath needs */
	return realpath(path, resolved);
}

EXPORT char *canonicalize_file_name(const char *path)
{
	return realpath(path, NULL);
}

/* The six X's before the last @suffix bytes of @tmpl, or NULL (EINVAL). */
static char *temp_xs(char *tmpl, int suffix)
{
	size_t n = tmpl ? strlen(tmpl) : 0;

	if (suffix < 0 || n < (size_t)suffix + 6 ||
	    strncmp(tmpl + n - (size_t)suffix - 6, "XXXXXX", 6) != 0) {
		errno = EINVAL;
		return NULL;
	}
	return tmpl + n - (size_t)suffix - 6;
}

/* Six new letters at @x. */
static void temp_fill(char *x)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static _Atomic uint64_t count;
	struct timespec ts;
	uint64_t v;

	clock_gettime(CLOCK_REALTIME, &ts);
	v = ((uint64_t)ts.tv_nsec << 16) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 32) ^
	    (atomic_fetch_add(&count, 1) * 0x9E3779B97F4A7C15ull);
	for (int i = 0; i < 6; i++, v /= 62)
		x[i] = set[v % 62];
}

/* mkostemps(3) of a template under the mount: opened O_EXCL, mode 0600. */
static int mount_mkstemp(char *tmpl, int suffix, int flags)
{
	char *x = temp_xs(tmpl, suffix);

	if (!x)
		return -1;
	for (int tries = 0; tries < 1000; tries++) {
		int fd;

		temp_fill(x);
		fd = open(tmpl, O_RDWR | O_CREAT | O_EXCL | (flags & ~O_ACCMODE), 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

/* 1 when @tmpl is under the mount, 0 when not, -1 when it cannot tell. */
static int temp_here(const char *tmpl)
{
	char rel[PATH_MAX];

	return in_tfs || !tmpl ? 0 : mount_path(AT_FDCWD, tmpl, rel, sizeof(rel));
}

EXPORT int mkstemp(char *tmpl)
{
	int t = temp_here(tmpl);

	RESOLVE(mkstemp);
	return t == 0 ? real_mkstemp(tmpl) : t < 0 ? -1 : mount_mkstemp(tmpl, 0, 0);
}

EXPORT int mkostemp(char *tmpl, int flags)
{
	int t = temp_here(tmpl);

	RESOLVE(mkostemp);
	return t == 0 ? real_mkostemp(tmpl, flags) : t < 0 ? -1 : mount_mkstemp(tmpl, 0, flags);
}

EXPORT int mkstemps(char *tmpl, int suffix)
{
	int t = temp_here(tmpl);

	RESOLVE(mkstemps);
	return t == 0 ? real_mkstemps(tmpl, suffix) : t < 0 ? -1 : mount_mkstemp(tmpl, suffix, 0);
}

EXPORT int mkostemps(char *tmpl, int suffix, int flags)
{
	int t = temp_here(tmpl);

	RESOLVE(mkostemps);
	return t == 0 ? real_mkostemps(tmpl, suffix, flags)
		      : t < 0 ? -1 : mount_mkstemp(tmpl, suffix, flags);
}

EXPORT int mkstemp64(char *tmpl)
{
	return mkstemp(tmpl);
}

EXPORT int mkostemp64(char *tmpl, int flags)
{
	return mkostemp(tmpl, flags);
}

EXPORT int mkstemps64(char *tmpl, int suffix)
{
	return mkstemps(tmpl, suffix);
}

EXPORT int mkostemps64(char *tmpl, int suffix, int flags)
{
	return mkostemps(tmpl, suffix, flags);
}

EXPORT char *mkdtemp(char *tmpl)
{
	int t = temp_here(tmpl);
	char *x;

	RESOLVE(mkdtemp);
	if (t == 0)
		return real_mkdtemp(tmpl);
	if (t < 0 || !(x = temp_xs(tmpl, 0)))
		return NULL;
	for (int tries = 0; tries < 1000; tries++) {
		temp_fill(x);
		if (mkdir(tmpl, 0700) == 0)
			return tmpl;
		if (errno != EEXIST)
			return NULL;
	}
	return NULL;
}

EXPORT int scandir(const char *dir, struct dirent ***list, int (*filter)(const struct dirent *),
		   int (*compar)(const struct dirent **, const struct dirent **))
{
	char rel[PATH_MAX];
	struct dirent **v = NULL, *de;
	size_t n = 0, cap = 0;
	int t, e;
	DIR *d;

	RESOLVE(scandir);
	if (in_tfs || (t = mount_path(AT_FDCWD, dir, rel, sizeof(rel))) == 0)
		return real_scandir(dir, list, filter, compar);
	if (t < 0 || !(d = opendir(dir)))
		return -1;
	errno = 0;
	while ((de = readdir(d))) {
		size_t sz = offsetof(struct dirent, d_name) + strlen(de->d_name) + 1;
		struct dirent *c;

		if (filter && !filter(de))
			continue;
		if (n == cap) {
			struct dirent **nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));
			if (!nv)
				goto fail;
			v = nv;
		}
		if (!(c = malloc(sz < sizeof(*c) ? sizeof(*c) : sz)))
			goto fail;
		memcpy(c, de, sz);
		v[n++] = c;
		errno = 0;
	}
	if (errno)
		goto fail;
	closedir(d);
	if (compar && n > 1)
		qsort(v, n, sizeof(*v), (int (*)(const void *, const void *))compar);
	*list = v;
	return (int)n;
fail:
	e = errno ? errno : ENOMEM;
	while (n)
		free(v[--n]);
	free(v);
	closedir(d);
	errno = e;
	return -1;
}

EXPORT int scandir64(const char *dir, struct dirent64 ***list,
		     int (*filter)(const struct dirent64 *),
		     int (*compar)(const struct dirent64 **, const struct dirent64 **))
{
	/* one layout on 64-bit Linux */
	return scandir(dir, (struct dirent ***)list, (int (*)(const struct dirent *))filter,
		       (int (*)(const struct dirent **, const struct dirent **))compar);
}

/*
 * Extended attributes (ls -l asks for ACLs and security labels): a
 * directory's are the backing directory's; a TangramFS file has none
 * (ENOTSUP, which ls takes as "no ACL").
 */
static ssize_t xattr(const char *path, int follow, const char *name, void *value, size_t size)
{
	char rel[PATH_MAX], p[PATH_MAX];
	struct stat st;
	int t = in_tfs ? 0 : mount_path_at(AT_FDCWD, path, rel, sizeof(rel), follow);

	RESOLVE(getxattr);
	RESOLVE(lgetxattr);
	RESOLVE(listxattr);
	RESOLVE(llistxattr);
	if (t <= 0) {
		if (t < 0)
			return -1;
		path = outside_path(path, rel, sizeof(rel));
	} else if (pfs_path(rel, p, sizeof(p)) < 0) {
		return -1;
	} else if (rel[0] && path_stat(rel, &st) == 0 && S_ISREG(st.st_mode)) {
		errno = ENOTSUP;
		return -1;
	} else {
		path = p;
	}
	if (name)
		return follow ? real_getxattr(path, name, value, size) :
				real_lgetxattr(path, name, value, size);
	return follow ? real_listxattr(path, value, size) : real_llistxattr(path, value, size);
}

/* A symbolic link under the mount is the backing directory's (ls -l reads
 * those of /tfs/.. too). */
EXPORT ssize_t readlink(const char *path, char *buf, size_t size)
{
	char rel[PATH_MAX], p[PATH_MAX];
	int t;

	RESOLVE(readlink);
	if (in_tfs)
		return real_readlink(path, buf, size);
	if ((t = mount_path_nf(AT_FDCWD, path, rel, sizeof(rel))) == 0)
		return real_readlink(outside_path(path, rel, sizeof(rel)), buf, size);
	if (t < 0 || pfs_path(rel, p, sizeof(p)) < 0)
		return -1;
	return real_readlink(p, buf, size);
}

/* Setting or removing an extended attribute of a TangramFS file (cp -a
 * and mv copy ACLs): it has none, ENOTSUP, which they take as "no ACL
 * support" and set the mode instead.  Directories: the backing
 * directory's. */
static int xattr_set(const char *path, int follow, const char *name, const void *value,
		     size_t size, int flags)
{
	char rel[PATH_MAX], p[PATH_MAX];
	struct stat st;
	int t = in_tfs ? 0 : mount_path_at(AT_FDCWD, path, rel, sizeof(rel), follow);

	RESOLVE(setxattr);
	RESOLVE(lsetxattr);
	RESOLVE(removexattr);
	RESOLVE(lremovexattr);
	if (t < 0)
		return -1;
	if (t > 0) {
		if (pfs_path(rel, p, sizeof(p)) < 0)
			return -1;
		if (rel[0] && path_stat(rel, &st) == 0 && S_ISREG(st.st_mode)) {
			errno = ENOTSUP;
			return -1;
		}
		path = p;
	}
	if (value)
		return follow ? real_setxattr(path, name, value, size, flags) :
				real_lsetxattr(path, name, value, size, flags);
	return follow ? real_removexattr(path, name) : real_lremovexattr(path, name);
}

EXPORT int setxattr(const char *path, const char *name, const void *value, size_t size,
		    int flags)
{
	return xattr_set(path, 1, name, value ? value : "", size, flags);
}

EXPORT int lsetxattr(const char *path, const char *name, const void *value, size_t size,
		     int flags)
{
	return xattr_set(path, 0, name, value ? value : "", size, flags);
}

EXPORT int removexattr(const char *path, const char *name)
{
	return xattr_set(path, 1, name, NULL, 0, 0);
}

EXPORT int lremovexattr(const char *path, const char *name)
{
	return xattr_set(path, 0, name, NULL, 0, 0);
}

EXPORT int fsetxattr(int fd, const char *name, const void *value, size_t size, int flags)
{
	RESOLVE(fsetxattr);
	if (!in_tfs && ofd_get(fd)) {
		errno = ENOTSUP;
		return -1;
	}
	return real_fsetxattr(fd, name, value, size, flags);
}

EXPORT ssize_t fgetxattr(int fd, const char *name, void *value, size_t size)
{
	RESOLVE(fgetxattr);
	if (!in_tfs && ofd_get(fd)) {
		errno = ENOTSUP;
		return -1;
	}
	return real_fgetxattr(fd, name, value, size);
}

EXPORT ssize_t flistxattr(int fd, char *list, size_t size)
{
	RESOLVE(flistxattr);
	if (!in_tfs && ofd_get(fd)) {
		errno = ENOTSUP;
		return -1;
	}
	return real_flistxattr(fd, list, size);
}

EXPORT int fremovexattr(int fd, const char *name)
{
	RESOLVE(fremovexattr);
	if (!in_tfs && ofd_get(fd)) {
		errno = ENOTSUP;
		return -1;
	}
	return real_fremovexattr(fd, name);
}

EXPORT ssize_t getxattr(const char *path, const char *name, void *value, size_t size)
{
	return xattr(path, 1, name, value, size);
}

EXPORT ssize_t lgetxattr(const char *path, const char *name, void *value, size_t size)
{
	return xattr(path, 0, name, value, size);
}

EXPORT ssize_t listxattr(const char *path, char *list, size_t size)
{
	return xattr(path, 1, NULL, list, size);
}

EXPORT ssize_t llistxattr(const char *path, char *list, size_t size)
{
	return xattr(path, 0, NULL, list, size);
}
