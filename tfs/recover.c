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
 * and, when the client could not hand its data over as it ended, one
 * section per burst-buffer file it kept:
 *
 *	file MODE(octal) BURST-BUFFER-FILE-NAME TANGRAMFS-PATH
 *	range START END BASE	(file bytes [START, END) are at BASE in it)
 *
 * ranges in the order the client wrote them.  A client that ends cleanly
 * removes its note.
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

/* Stage out one kept file: the "range" lines from *@text on; *@text is
 * left past them.  Returns the bytes written, or -1 (errno). */
static long long stage_kept(const struct note *nt, unsigned mode, const char *bbname,
			    const char *path, char **text)
{
	char bp[PATH_MAX], pp[PATH_MAX], *buf;
	unsigned long long s, e, base;
	long long total = 0;
	int bfd, pfd, used, rc = 0, err = 0;

	if ((size_t)snprintf(bp, sizeof(bp), "%s/%s", nt->bbdir, bbname) >= sizeof(bp) ||
	    (size_t)snprintf(pp, sizeof(pp), "%s/%s", nt->pfsdir, path) >= sizeof(pp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((bfd = open(bp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return -1;
	mkparents(pp, strlen(nt->pfsdir));
	pfd = open(pp, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode & 07777);
	buf = malloc(1u << 20);
	if (pfd < 0 || !buf)
		rc = -1, err = pfd < 0 ? errno : ENOMEM;
	while (used = 0, sscanf(*text, "range %llu %llu %llu\n%n", &s, &e, &base, &used) == 3 &&
	       used) {
		*text += used;
		if (rc == 0 && e > s && copy_bytes(bfd, pfd, s, e, base, buf, 1u << 20) < 0)
			rc = -1, err = errno;
		total += rc == 0 && e > s ? (long long)(e - s) : 0;
	}
	if (rc == 0 && (fchmod(pfd, mode & 07777) < 0 || fsync(pfd) < 0))
		rc = -1, err = errno;
	free(buf);
	if (pfd >= 0)
		close(pfd);
	close(bfd);
	if (rc == 0)
		unlink(bp);
	errno = err;
	return rc == 0 ? total : -1;
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

/* Handle the note @name of a dead client; returns 0, or -1 when some of it
 * is kept for another try. */
static int recover_note(const char *name, const struct note *nt, char *rest, struct out *o)
{
	char bbname[256], path[PATH_MAX];
	unsigned mode;
	int used, bad = 0;

	while (used = 0, sscanf(rest, "file %o %255s %4095[^\n]\n%n", &mode, bbname, path,
				&used) == 3 && used) {
		long long n;

		rest += used;
		if (!path_ok(path) || strchr(bbname, '/')) {
			say(o, "note %s: a kept file outside its directories refused", name);
			bad = 1;
			continue;
		}
		if ((n = stage_kept(nt, mode, bbname, path, &rest)) < 0) {
			say(o, "client pid %ld (node %u) did not stage out %s, and it cannot be "
			    "staged out from %s/%s: %s (kept)", nt->pid, nt->node, path,
			    nt->bbdir, bbname, strerror(errno));
			bad = 1;
		} else {
			say(o, "client pid %ld (node %u) did not stage out %s: staged out %lld "
			    "bytes of it from its burst buffer to %s/%s, mode %04o", nt->pid,
			    nt->node, path, n, nt->pfsdir, path, mode & 07777);
		}
	}
	if (*rest) {
		say(o, "note %s is not well formed past its header (kept)", name);
		return -1;
	}
	if (bad)
		return -1;
	remove_left(nt, o);
	unlink(name);
	return 0;
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
		} else if (strcmp(nt.host, host) == 0 &&
			   !(kill((pid_t)nt.pid, 0) == 0 || errno == EPERM)) {
			/* another host's clients are that host's to recover; a
			 * running one may still stage out by itself */
			if (recover_note(name, &nt, rest, &o) < 0)
				failed++;
		}
		free(text);
	}
	closedir(d);
	return failed;
}
