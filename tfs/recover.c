/*
 * recover.c - what the server does with the clients' notes (recover.h).
 *
 * A note, DIR/clients/HOST-NODE-PID, is written by a client when it
 * starts (client.c, note_create()):
 *
 *	tfs-client 1
 *	host HOST
 *	node NODE
 *	pid PID
 *	bbdir ABSOLUTE-BURST-BUFFER-DIRECTORY
 *	pfsdir ABSOLUTE-BACKING-DIRECTORY
 *
 * then, as it attaches (the close or fsync that acknowledges its writes),
 * the pieces it attached:
 *
 *	attached MODE(octal) BURST-BUFFER-FILE-NAME FILE-ID TANGRAMFS-PATH
 *	range START END BASE	(file bytes [START, END) are at BASE in it)
 *
 * and, when the client could not hand its data over as it ended, one
 * section per burst-buffer file it kept:
 *
 *	file MODE BURST-BUFFER-FILE-NAME TANGRAMFS-PATH
 *	range START END BASE
 *
 * ranges in the order the client wrote them.  A client that ends cleanly
 * removes its note.  When a client dies while its server runs, the
 * server stages out at once what the client still owned of what it had
 * attached (tfs_rescue()), and adds the line
 *
 *	rescued N
 *
 * N the bytes of the note it read: a later recovery looks only past them
 * (a client still ending may add to its note meanwhile).  An "attached" section whose
 * burst-buffer file is gone is passed over (the client staged it out, or
 * dropped it, itself); a "file" section's is an error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "recover.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serverfile.h"
#include "../libcommon/banned.h"

int tfs_dir_lock(const char *dir, char *err, size_t errlen)
{
	struct tfs_server_file sf;
	char name[PATH_MAX], msg[256];
	int fd;

	snprintf(name, sizeof(name), "%s/lock", dir);
	fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", name, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	if (errno == EWOULDBLOCK && tfs_server_file_read(dir, 1, &sf, msg, sizeof(msg)) == 0)
		snprintf(err, errlen, "'%s' has a live server (pid %ld): tfs-server --stop %s",
			 dir, sf.pid, dir);
	else if (errno == EWOULDBLOCK)
		snprintf(err, errlen, "'%s' is in use by another tfs-server", dir);
	else
		snprintf(err, errlen, "cannot lock '%s': %s", name, strerror(errno));
	close(fd);
	return -1;
}

struct note {
	char host[256], bbdir[PATH_MAX], pfsdir[PATH_MAX];
	unsigned node;
	long pid;
};

struct out {
	void (*say)(const char *line);
	char **report;
	size_t len;
};

static void say(struct out *o, const char *fmt, ...)
{
	char line[PATH_MAX + 512];
	va_list ap;
	size_t n;
	char *r;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	o->say(line);
	if (!o->report)
		return;
	n = strlen(line);
	if (!(r = realloc(*o->report, o->len + n + 2)))
		return;
	memcpy(r + o->len, line, n);
	r[o->len + n] = '\n';
	r[o->len + n + 1] = '\0';
	o->len += n + 1;
	*o->report = r;
}

/* Read the whole of @path (NUL-terminated) into a new buffer, or NULL. */
static char *slurp(const char *path)
{
	struct stat st;
	char *buf = NULL;
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (1LL << 30) &&
	    (buf = malloc((size_t)st.st_size + 1)))
		n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (buf && n != (ssize_t)st.st_size) {
		free(buf);
		return NULL;
	}
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* The header of a note; *@rest points past it.  Returns 0 or -1. */
static int note_head(char *text, struct note *nt, char **rest)
{
	int used = 0;

	if (sscanf(text, "tfs-client 1\nhost %255[^\n]\nnode %u\npid %ld\nbbdir %4095[^\n]\n%n",
		   nt->host, &nt->node, &nt->pid, nt->bbdir, &used) != 4 || !used)
		return -1;
	text += used;
	used = 0;
	if (sscanf(text, "pfsdir %4095[^\n]\n%n", nt->pfsdir, &used) != 1 || !used)
		return -1;
	*rest = text + used;
	return nt->pid > 0 ? 0 : -1;
}

/* A TangramFS path as a client writes it: relative, no "." or ".."
 * component (so it cannot leave the backing directory). */
static int path_ok(const char *p)
{
	const char *s = p;

	if (!*p || *p == '/')
		return 0;
	while (*s) {
		size_t n = strcspn(s, "/");

		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		s += n;
		if (*s == '/')
			s++;
	}
	return 1;
}

static void mkparents(char *p, size_t base)
{
	for (char *s = p + base + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
}

static int copy_bytes(int from, int to, unsigned long long s, unsigned long long e,
		      unsigned long long base, char *buf, size_t buflen)
{
	while (s < e) {
		size_t n = e - s < buflen ? (size_t)(e - s) : buflen, got = 0;

		while (got < n) {
			ssize_t r = pread(from, buf + got, n - got, (off_t)(base + got));

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				if (r == 0)
					errno = EIO;	/* the burst-buffer file is short */
				return -1;
			}
			got += (size_t)r;
		}
		for (size_t put = 0; put < n;) {
			ssize_t w = pwrite(to, buf + put, n - put, (off_t)(s + put));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -1;
			put += (size_t)w;
		}
		s += n;
		base += n;
	}
	return 0;
}

/* What a dead client still owned of file @fid, told by its live server
 * (recover.h, tfs_rescue_ops). */
struct owned {
	const struct tfs_rescue_ops *ops;
	void *arg;
	unsigned long long fid;
	const char *fate;	/* what became of the client ("died") */
};

/* One kept file being staged out. */
struct kept {
	const struct note *nt;
	char *pp;		/* the backing file */
	unsigned mode;
	int bfd, pfd, rc, err;
	unsigned long long s, base;	/* the range: file byte s at base */
	char *buf;
	long long total;
};

/* Copy [@s, @e) of the current range. */
static void kept_copy(unsigned long long s, unsigned long long e, void *ctx)
{
	struct kept *k = ctx;

	if (k->rc < 0 || e <= s)
		return;
	if (k->pfd < 0) {
		mkparents(k->pp, strlen(k->nt->pfsdir));
		k->pfd = open(k->pp, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, k->mode & 07777);
		if (k->pfd < 0) {
			k->rc = -1;
			k->err = errno;
			return;
		}
	}
	if (copy_bytes(k->bfd, k->pfd, s, e, k->base + (s - k->s), k->buf, 1u << 20) < 0) {
		k->rc = -1;
		k->err = errno;
	} else {
		k->total += (long long)(e - s);
	}
}

/* Stage out one kept file: the "range" lines from *@text on; *@text is
 * left past them; with @ow, only what the client still owned.  Returns
 * the bytes written, -2 when the burst-buffer file is not there, or -1
 * (errno). */
static long long stage_kept(const struct note *nt, unsigned mode, const char *bbname,
			    const char *path, char **text, const struct owned *ow)
{
	char bp[PATH_MAX], pp[PATH_MAX];
	unsigned long long s, e, base;
	struct kept k = { nt, pp, mode, -1, -1, 0, 0, 0, 0, NULL, 0 };
	int used;

	if ((size_t)snprintf(bp, sizeof(bp), "%s/%s", nt->bbdir, bbname) >= sizeof(bp) ||
	    (size_t)snprintf(pp, sizeof(pp), "%s/%s", nt->pfsdir, path) >= sizeof(pp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((k.bfd = open(bp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return errno == ENOENT ? -2 : -1;
	if (!(k.buf = malloc(1u << 20)))
		k.rc = -1, k.err = ENOMEM;
	while (used = 0, sscanf(*text, "range %llu %llu %llu\n%n", &s, &e, &base, &used) == 3 &&
	       used) {
		*text += used;
		if (k.rc < 0 || e <= s)
			continue;
		k.s = s;
		k.base = base;
		if (ow)
			ow->ops->owned(ow->fid, s, e, kept_copy, &k, ow->arg);
		else
			kept_copy(s, e, &k);
	}
	if (k.rc == 0 && k.pfd >= 0 && (fchmod(k.pfd, mode & 07777) < 0 || fsync(k.pfd) < 0))
		k.rc = -1, k.err = errno;
	free(k.buf);
	if (k.pfd >= 0)
		close(k.pfd);
	close(k.bfd);
	errno = k.err;
	return k.rc == 0 ? k.total : -1;
}

/* Skip the "range" lines from *@text on. */
static void skip_ranges(char **text)
{
	unsigned long long s, e, base;
	int used;

	while (used = 0, sscanf(*text, "range %llu %llu %llu\n%n", &s, &e, &base, &used) == 3 &&
	       used)
		*text += used;
}

/* Past what the last rescue of note @text read: its "rescued N" line
 * says it read the note's first N bytes (a client still ending may have
 * added to it since); @rest (past the header) when none. */
static char *after_rescue(char *text, char *rest)
{
	size_t len = strlen(text), n;
	char *p, *r = rest;

	for (p = text; (p = strstr(p, "\nrescued ")); p += 9)
		if (sscanf(p + 9, "%zu", &n) == 1 && n <= len && text + n > r)
			r = text + n;
	return r;
}

/* Past a "forget" line at @rest, if there is one. */
static int skip_forget(char **rest)
{
	char *nl;

	if (strncmp(*rest, "forget ", 7) != 0 || !(nl = strchr(*rest, '\n')))
		return 0;
	*rest = nl + 1;
	return 1;
}

/* Is there a "forget @bb" line in @from? */
static int forgotten(const char *from, const char *bb)
{
	size_t n = strlen(bb);

	for (const char *p = from; (p = strstr(p, "\nforget ")); p += 8)
		if (strncmp(p + 8, bb, n) == 0 && p[8 + n] == '\n')
			return 1;
	return 0;
}

/* Past a "rescued" line at @rest, if there is one. */
static int skip_rescued(char **rest)
{
	char *nl;

	if (strncmp(*rest, "rescued ", 8) != 0 || !(nl = strchr(*rest, '\n')))
		return 0;
	*rest = nl + 1;
	return 1;
}

/* Remove the burst-buffer files (and the peer socket) client @nt left
 * that its note does not list; returns how many files. */
static int remove_left(const struct note *nt, struct out *o)
{
	char pre[64], sock[64], p[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(nt->bbdir);
	int n = 0;

	if (!d)
		return 0;
	snprintf(pre, sizeof(pre), "tfs-bb-%u-%ld-", nt->node, nt->pid);
	snprintf(sock, sizeof(sock), "tfs-peer-%u-%ld.sock", nt->node, nt->pid);
	while ((de = readdir(d))) {
		int bb = strncmp(de->d_name, pre, strlen(pre)) == 0;

		if (!bb && strcmp(de->d_name, sock) != 0)
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", nt->bbdir, de->d_name) >= sizeof(p) ||
		    unlink(p) < 0 || !bb)
			continue;
		say(o, "client pid %ld (node %u) died before it staged out: removed its "
		    "burst-buffer file %s", nt->pid, nt->node, p);
		n++;
	}
	closedir(d);
	return n;
}

/* A list of burst-buffer file names, to remove once all is staged. */
struct names {
	char (*v)[256];
	size_t n;
};

static int names_has(const struct names *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], name) == 0)
			return 1;
	return 0;
}

static void names_add(struct names *l, const char *name)
{
	char (*v)[256];

	if (names_has(l, name))
		return;
	if (!(v = realloc(l->v, (l->n + 1) * sizeof(*v))))
		return;	/* (left for remove_left) */
	l->v = v;
	snprintf(l->v[l->n++], 256, "%s", name);
}

/* Stage out the sections of note @name of a dead client from @rest on
 * (with @ow, only what it still owned); removes the burst-buffer files
 * staged when all went well.  Returns 0, or -1 when some is kept. */
static int stage_sections(const char *name, const struct note *nt, char **restp,
			  struct owned *ow, struct out *o)
{
	char bbname[256], path[PATH_MAX], bp[PATH_MAX], *rest = *restp;
	struct names staged = { NULL, 0 }, kept = { NULL, 0 };
	unsigned mode;
	int used, bad = 0;

	/* the files a client kept as it ended (it lost its server) hold all
	 * it wrote of them: what it attached of those is not staged twice */
	for (char *p = rest; (p = strstr(p, "file ")); p += 5)
		if ((p == rest || p[-1] == '\n') &&
		    sscanf(p, "file %o %255s", &mode, bbname) == 2)
			names_add(&kept, bbname);
	for (;;) {
		unsigned long long fid;
		int journal;
		long long n;

		if (skip_rescued(&rest) || skip_forget(&rest))
			continue;
		used = 0;
		fid = 0;
		if (sscanf(rest, "file %o %255s %4095[^\n]\n%n", &mode, bbname, path, &used) == 3 &&
		    used) {
			journal = 0;
		} else if (used = 0, sscanf(rest, "attached %o %255s %llu %4095[^\n]\n%n", &mode,
					    bbname, &fid, path, &used) == 4 && used) {
			journal = 1;
		} else {
			break;
		}
		/* what it attached before it unlinked, truncated or renamed
		 * the file is void: listed afresh after, if at all */
		if (journal && forgotten(rest + used - 1, bbname)) {
			rest += used;
			skip_ranges(&rest);
			continue;
		}
		rest += used;
		if (journal && names_has(&kept, bbname)) {
			skip_ranges(&rest);
			continue;
		}
		/* the server's tables: the file as it is now (renamed, its mode
		 * changed), or none (unlinked since): nothing of it is staged */
		if (journal && ow) {
			unsigned now;
			ow->fid = fid;
			if (ow->ops->where(fid, path, sizeof(path), &now, ow->arg) < 0) {
				skip_ranges(&rest);
				continue;
			}
			if (now)
				mode = now;
		}
		if (!path_ok(path) || strchr(bbname, '/')) {
			say(o, "note %s: a kept file outside its directories refused", name);
			skip_ranges(&rest);
			bad = 1;
			continue;
		}
		/* a kept file is the client's own word: all of it; what it
		 * attached, with the file's stage mark held (a stage-out of it
		 * that runs goes first, as another client's would) */
		if (journal && ow)
			ow->ops->begin(fid, ow->arg);
		n = stage_kept(nt, mode, bbname, path, &rest, journal ? ow : NULL);
		if (journal && ow)
			ow->ops->end(fid, ow->arg);
		if (n < 0) {
			if (journal && n == -2) {
				/* staged out or dropped by the client itself */
				skip_ranges(&rest);
				continue;
			}
			if (n == -2)
				errno = ENOENT;
			say(o, "client pid %ld (node %u) did not stage out %s, and it cannot be "
			    "staged out from %s/%s to %s/%s: %s (kept)", nt->pid, nt->node, path,
			    nt->bbdir, bbname, nt->pfsdir, path, strerror(errno));
			skip_ranges(&rest);
			bad = 1;
		} else {
			/* a kept file with no range read (the note read while
			 * its client wrote it) stays: its burst-buffer file is
			 * what a later recovery stages */
			if (n > 0 || journal)
				names_add(&staged, bbname);
			if (n > 0 && ow && journal)
				say(o, "client pid %ld (node %u) %s: staged out %lld bytes of %s it had "
				    "attached, from its burst buffer to %s/%s, mode %04o", nt->pid,
				    nt->node, ow->fate, n, path, nt->pfsdir, path, mode & 07777);
			else if (n > 0)
				say(o, "client pid %ld (node %u) did not stage out %s: staged out %lld "
				    "bytes of it from its burst buffer to %s/%s, mode %04o", nt->pid,
				    nt->node, path, n, nt->pfsdir, path, mode & 07777);
		}
	}
	*restp = rest;
	for (size_t i = 0; !bad && i < staged.n; i++)
		if ((size_t)snprintf(bp, sizeof(bp), "%s/%s", nt->bbdir, staged.v[i]) < sizeof(bp))
			unlink(bp);
	free(staged.v);
	free(kept.v);
	return bad ? -1 : 0;
}

/* Handle the note @name of a dead client; returns 0, or -1 when some of it
 * is kept for another try. */
static int recover_note(const char *name, const struct note *nt, char *text, char *rest,
			struct out *o)
{
	rest = after_rescue(text, rest);
	if (stage_sections(name, nt, &rest, NULL, o) < 0)
		return -1;
	if (*rest) {
		say(o, "note %s is not well formed past its header (kept)", name);
		return -1;
	}
	remove_left(nt, o);
	unlink(name);
	return 0;
}

/*
 * Client @pid of node @node of this host ended while its server runs (its
 * connection closed): when it left a note (it died without ending
 * cleanly), stage out at once what it had attached and still owns
 * (@owned, from the server's tables), and mark the note "rescued" so that
 * no later recovery writes it again.  Returns 0, or -1 when some of it
 * could not be staged out (said).
 */
int tfs_rescue(const char *dir, unsigned node, long pid, const char *fate,
	       const struct tfs_rescue_ops *ops, void *arg, void (*sayfn)(const char *line),
	       char **report)
{
	char name[PATH_MAX], host[256], *text, *rest;
	struct out o = { sayfn, report, report && *report ? strlen(*report) : 0 };
	struct owned ow = { ops, arg, 0, fate };
	struct note nt;
	char line[64];
	size_t len;
	int rc, fd;

	if (gethostname(host, sizeof(host)) < 0)
		return 0;
	host[sizeof(host) - 1] = '\0';
	if ((size_t)snprintf(name, sizeof(name), "%s/clients/%s-%u-%ld", dir, host, node, pid) >=
		    sizeof(name) ||
	    !(text = slurp(name)))
		return 0;	/* none: it ended cleanly */
	if (note_head(text, &nt, &rest) < 0 || strcmp(nt.host, host) != 0) {
		free(text);
		return 0;
	}
	/* up to its last whole line: the client may be writing the next */
	len = strrchr(text, '\n') ? (size_t)(strrchr(text, '\n') - text) + 1 : 0;
	text[len] = '\0';
	rest = after_rescue(text, rest);
	rc = *rest ? stage_sections(name, &nt, &rest, &ow, &o) : 0;
	free(text);
	/* what it read: the client, ending, may have added to it since */
	if (rc == 0 && (fd = open(name, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW)) >= 0) {
		int k = snprintf(line, sizeof(line), "rescued %zu\n", len);
		if (write(fd, line, (size_t)k) != k)
			rc = -1;
		close(fd);
	}
	return rc;
}

/* Does process @pid run?  A zombie (dead, not yet reaped: its launcher
 * may be slow to) does not. */
static int alive(long pid)
{
	char p[64], buf[512], *rp;
	ssize_t n;
	int fd;

	if (!(kill((pid_t)pid, 0) == 0 || errno == EPERM))
		return 0;
	snprintf(p, sizeof(p), "/proc/%ld/stat", pid);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	/* "PID (COMM) STATE ...": COMM may hold anything but ends at the last ')' */
	rp = strrchr(buf, ')');
	return !(rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'));
}

int tfs_client_dead(const char *dir, unsigned node, long pid)
{
	char name[PATH_MAX], host[256];

	if (gethostname(host, sizeof(host)) < 0)
		return 0;
	host[sizeof(host) - 1] = '\0';
	if ((size_t)snprintf(name, sizeof(name), "%s/clients/%s-%u-%ld", dir, host, node, pid) >=
	    sizeof(name) || access(name, F_OK) < 0)
		return 0;
	return !alive(pid);
}

int tfs_recover(const char *dir, void (*sayfn)(const char *line), char **report)
{
	char cdir[PATH_MAX], name[PATH_MAX], host[256];
	struct out o = { sayfn, report, report && *report ? strlen(*report) : 0 };
	struct dirent *de;
	int failed = 0;
	DIR *d;

	snprintf(cdir, sizeof(cdir), "%s/clients", dir);
	if (gethostname(host, sizeof(host)) < 0 || !(d = opendir(cdir)))
		return 0;
	host[sizeof(host) - 1] = '\0';
	while ((de = readdir(d))) {
		struct note nt;
		char *text, *rest;

		if (de->d_name[0] == '.' ||
		    (size_t)snprintf(name, sizeof(name), "%s/%s", cdir, de->d_name) >= sizeof(name))
			continue;
		if (!(text = slurp(name)))
			continue;
		if (note_head(text, &nt, &rest) < 0) {
			say(&o, "note %s is not well formed (kept)", name);
			failed++;
		} else if (strcmp(nt.host, host) == 0 && !alive(nt.pid)) {
			/* another host's clients are that host's to recover; a
			 * running one may still stage out by itself */
			if (recover_note(name, &nt, text, rest, &o) < 0)
				failed++;
		}
		free(text);
	}
	closedir(d);
	return failed;
}
