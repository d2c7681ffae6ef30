/*
 * role.c - what a traced call did to files: its text record read through
 * the role its call table row gives it (see role.h, calls.tab).
 */
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "role.h"
#include "tg.h"
#include "util.h"
#include "banned.h"

int64_t tg_io_ret(const struct tg_tline *t)
{
	const char *v = t->f[TG_COL_RET];
	int64_t ret = 0;

	if (tg_tline_arg(t, TG_COL_ARGS, "errno"))
		return -1;
	if (v[0] == 's') {	/* a stream id */
		if (tg_tint(v + 1, &ret) < 0)
			ret = 0;
	} else if (strcmp(v, "NULL") == 0) {
		ret = -1;
	} else if (tg_tint(v, &ret) < 0) {
		ret = 0;	/* "-", an id or a pointer: success */
	}
	return ret;
}

/* The text of argument @i of @d in @t, or NULL (absent, or TG_ARG_NONE). */
static const char *arg(const struct tg_tline *t, const struct tg_calldesc *d, int i)
{
	if (i == TG_ARG_RET)
		return t->f[TG_COL_RET];
	if (i < 0 || i >= d->nargs)
		return NULL;
	return tg_tline_arg(t, TG_COL_ARGS, d->args[i].name);
}

/* A handle key from argument @i: "" if absent or NULL. */
static void key(const struct tg_tline *t, const struct tg_calldesc *d, int i, char *out)
{
	const char *v = arg(t, d, i);

	snprintf(out, TG_KEYLEN, "%s", v && strcmp(v, "NULL") != 0 ? v : "");
}

/* The key of an asynchronous request from argument @i (an aiocb's
 * symbolic id, which is per thread): "tid:id", "" if absent. */
static void req_key(const struct tg_tline *t, const struct tg_calldesc *d, int i, char *out)
{
	const char *v = arg(t, d, i);

	if (v && strcmp(v, "NULL") != 0)
		snprintf(out, TG_KEYLEN, "%s:%s", t->f[TG_COL_TID], v);
	else
		out[0] = 0;
}

/* A number from argument @i; @dflt if absent.  -1 if it is not a number. */
static int num(const struct tg_tline *t, const struct tg_calldesc *d, int i, int64_t dflt,
	       int64_t *out)
{
	const char *v = arg(t, d, i);

	*out = dflt;
	if (v && v[0] == '[') {
		/* a vector's lengths ("[8,8]"): their sum, the bytes it
		 * asked for (readv) */
		int64_t sum = 0, x;
		char *end;
		for (v++; *v && *v != ']'; v = *end == ',' ? end + 1 : end) {
			x = strtoll(v, &end, 10);
			if (end == v || x < 0)
				return -1;
			sum += x;
		}
		*out = sum;
		return 0;
	}
	return v ? tg_tint(v, out) : 0;
}

static int has_flag(const char *flags, const char *f)
{
	size_t n = strlen(f);
	const char *p = flags;

	while (p && (p = strstr(p, f))) {
		if ((p == flags || p[-1] == '|') && (p[n] == 0 || p[n] == '|'))
			return 1;
		p += n;
	}
	return 0;
}

/* Absolute path @p written the one way: no empty or "." components, and
 * each ".." taking away the one before it (by the letters, as the
 * tracer's own paths are made: "./f", ".//f" and "d/../f" are "f"). */
static char *path_clean(char *p)
{
	char *in = p, *out = p;

	if (*p != '/')
		return p;
	while (*in) {
		while (*in == '/')
			in++;
		if (!*in)
			break;
		if (in[0] == '.' && (in[1] == '/' || !in[1])) {
			in++;
			continue;
		}
		if (in[0] == '.' && in[1] == '.' && (in[2] == '/' || !in[2])) {
			in += 2;
			while (out > p && *--out != '/')
				;
			continue;
		}
		*out++ = '/';
		while (*in && *in != '/')
			*out++ = *in++;
	}
	if (out == p)
		*out++ = '/';
	*out = 0;
	return p;
}

/* A path made absolute against @cwd.  In an MPI-IO file name (@driver),
 * a "ufs:"-style prefix names the driver, not the path. */
static char *abs_path(char *s, const char *cwd, int driver)
{
	char *p = strchr(s, ':'), *slash = strchr(s, '/'), *out;
	size_t n;

	p = driver && p && p - s > 1 && (!slash || p < slash) ? p + 1 : s;
	if (*p == '/' || !cwd)
		return path_clean(tg_xstrdup(p));
	n = strlen(cwd) + strlen(p) + 2;
	out = tg_xrealloc(NULL, n);
	snprintf(out, n, "%s/%s", cwd, p);
	return path_clean(out);
}

char *tg_io_abspath(const char *s, const char *cwd, int mpiio)
{
	char *c = tg_xstrdup(s), *out = abs_path(c, cwd, mpiio);

	free(c);
	return out;
}

/* The path in argument @i, absolute; NULL if absent or NULL. */
static char *path(const struct tg_tline *t, const struct tg_calldesc *d, int i, const char *cwd,
		  int *bad)
{
	const char *v = arg(t, d, i);
	char buf[8192];
	int rc;

	if (!v)
		return NULL;
	rc = tg_tunquote(v, buf, sizeof(buf));
	if (rc < 0)
		*bad = 1;
	if (rc != 0)
		return NULL;
	if (d->layer == TG_LAYER_MPIIO || (buf[0] != '/' && cwd))
		return abs_path(buf, cwd, d->layer == TG_LAYER_MPIIO);
	return path_clean(tg_xstrdup(buf));
}

/* The bytes an MPI-IO status says moved ("{bytes:N}"), or -1. */
static int64_t status_bytes(const char *v)
{
	int64_t n;
	char *end;

	if (!v || strncmp(v, "{bytes:", 7) != 0)
		return -1;
	n = strtoll(v + 7, &end, 10);
	return *end == '}' && n >= 0 ? n : -1;
}

static int data(const struct tg_tline *t, const struct tg_calldesc *d,
		const struct tg_iorole *r, struct tg_ioact *a)
{
	int64_t x;

	key(t, d, r->h, a->h);
	a->off = r->off;
	if (r->off != TG_OFF_POS && num(t, d, r->offarg, -1, &a->pos) < 0)
		return -1;
	if (r->off == TG_OFF_ARG && a->pos < 0)
		a->off = TG_OFF_POS;	/* preadv2's -1, copy_file_range's NULL */
	if (r->op == TG_IO_WRITE && strcmp(d->name, "fallocate") == 0) {
		/* a write only where it changes the bytes: FALLOC_FL_PUNCH_HOLE,
		 * _ZERO_RANGE, _COLLAPSE_RANGE, _INSERT_RANGE (a plain
		 * allocation reads as zeros where it extends the file, as a
		 * hole does) */
		const char *v = arg(t, d, 1);
		if (a->failed || !v || !(strtoull(v, NULL, 0) & 0x3a))
			a->op = TG_IO_NONE;
	}
	if (r->op == TG_IO_WRITE && strncmp(d->name, "pwritev", 7) == 0) {
		/* pwritev2's RWF_APPEND: at the end, whatever the offset */
		int i;
		for (i = 0; i < d->nargs; i++) {
			const char *v = arg(t, d, i);
			if (v && d->args[i].kind == TG_K_HEX && strcmp(d->args[i].name, "flags") == 0 &&
			    (strtoull(v, NULL, 0) & 0x10))
				a->append = 1;
		}
	}
	switch (r->len) {
	case TG_LEN_RET:
		a->len = a->ret > 0 ? a->ret : 0;	/* getline's -1 at the end */
		/* ret(A): what was asked for */
		if (r->lenarg != TG_ARG_NONE && num(t, d, r->lenarg, 0, &a->count) < 0)
			return -1;
		/* line: getline's -1 at the end asked for a byte at least */
		if ((r->flags & TG_IOF_LINE) && a->ret < 0) {
			a->count = 1;
			a->eof = 1;
		}
		break;
	case TG_LEN_RET_TIMES:
		if (num(t, d, r->lenarg, 0, &x) < 0)
			return -1;
		a->len = a->ret > 0 ? a->ret * x : 0;
		/* ret*A(B): B items asked for (fread: fewer met the end) */
		if (r->a != TG_ARG_NONE && num(t, d, r->a, 0, &a->count) == 0)
			a->count *= x;
		break;
	case TG_LEN_ONE:
		a->len = a->ret >= 0;
		a->count = 1;	/* fgetc's EOF: the byte it asked for was not there */
		a->eof = a->ret < 0;
		break;
	case TG_LEN_STATUS:
		a->len = status_bytes(arg(t, d, r->a));
		/* (the count asked for, even when the status says what moved:
		 * a read that met the end of the file asked for more) */
		if (num(t, d, r->lenarg, 0, &a->count) < 0 && a->len < 0)
			return -1;
		a->dtype = arg(t, d, r->c);
		break;
	case TG_LEN_AIO:
		if (num(t, d, r->lenarg, 0, &a->len) < 0)
			return -1;
		req_key(t, d, r->a, a->h2);
		a->aio = 1;
		break;
	case TG_LEN_ARG:
		if (num(t, d, r->lenarg, -1, &a->len) < 0)
			return -1;
		if (a->len < 0)
			a->op = TG_IO_UNPLACED;	/* a stream from before the length */
		/* arg(A,B): nothing read (fgets's NULL) met the end of the
		 * file, where it asked for up to B - 1 bytes */
		if (a->len == 0 && r->a != TG_ARG_NONE && num(t, d, r->a, 0, &x) == 0 && x > 1) {
			a->count = x - 1;
			a->eof = 1;
		}
		break;
	}
	return 0;
}

static int whence(const char *v)
{
	static const char *const names[] = { "SEEK_SET", "SEEK_CUR", "SEEK_END", "SEEK_DATA",
					     "SEEK_HOLE" };
	int64_t n;
	int i;

	if (!v)
		return -1;
	for (i = 0; i < 5; i++)
		if (strcmp(v, names[i]) == 0)
			return i;
	if (tg_tint(v, &n) < 0)
		return -1;
	if (n >= 600 && n <= 604 && n % 2 == 0)	/* MPI_SEEK_SET, _CUR, _END */
		return (int)(n - 600) / 2;
	return n >= 0 && n <= 2 ? (int)n : -1;
}

static int open_role(const struct tg_tline *t, const struct tg_calldesc *d,
		     const struct tg_iorole *r, const char *cwd, struct tg_ioact *a)
{
	const char *v = arg(t, d, r->b);
	int bad = 0;

	key(t, d, r->h, a->h);
	if (r->op == TG_IO_REOPEN)
		key(t, d, r->c, a->h2);
	a->path = path(t, d, r->a, cwd, &bad);
	a->trunc = (r->flags & TG_IOF_TRUNC) != 0;
	a->creat = a->trunc;
	if (v && r->b >= 0 && d->args[r->b].kind == TG_K_OFLAGS) {
		a->append = has_flag(v, "O_APPEND");
		a->trunc |= has_flag(v, "O_TRUNC");
		a->creat |= has_flag(v, "O_CREAT") || has_flag(v, "O_TMPFILE");
		a->excl = has_flag(v, "O_EXCL");
		a->cloexec = has_flag(v, "O_CLOEXEC");
		if (has_flag(v, "O_DIRECTORY")) {
			free(a->path);
			a->path = NULL;	/* a directory: no data */
		}
	} else if (v) {		/* a stdio mode string */
		a->append = v[0] == '"' && v[1] == 'a';
		a->trunc |= v[0] == '"' && v[1] == 'w';
		a->creat |= v[0] == '"' && (v[1] == 'w' || v[1] == 'a');
		a->excl = v[0] == '"' && strchr(v + 1, 'x') != NULL;
		a->cloexec = v[0] == '"' && strchr(v + 1, 'e') != NULL;
	}
	return bad ? -1 : 0;
}

/* A struct flock as trace-decode prints it, "{F_WRLCK,SEEK_SET,0,4096}"
 * (maybe ",pid:N" after): its type (TG_LOCK_*), whence, start and length.
 * -1 if it is not one. */
static int flock_text(const char *v, struct tg_ioact *a)
{
	char f[4][32];
	const char *p = v;
	int i, n;

	if (!v || *p++ != '{')
		return -1;
	for (i = 0; i < 4; i++) {
		n = (int)strcspn(p, ",}");
		if (n == 0 || n >= (int)sizeof(f[i]) || p[n] != (i < 3 ? ',' : p[n]))
			return -1;
		memcpy(f[i], p, (size_t)n);
		f[i][n] = 0;
		p += n + 1;
	}
	if (p[-1] == '}' ? *p != 0 : strncmp(p, "pid:", 4) != 0)
		return -1;
	if (strcmp(f[0], "F_UNLCK") == 0)
		a->lock = TG_LOCK_UN;
	else if (strcmp(f[0], "F_RDLCK") == 0)
		a->lock = TG_LOCK_RD;
	else if (strcmp(f[0], "F_WRLCK") == 0)
		a->lock = TG_LOCK_WR;
	else
		return -1;
	a->whence = whence(f[1]);
	if (a->whence < 0 || tg_tint(f[2], &a->pos) < 0 || tg_tint(f[3], &a->len) < 0)
		return -1;
	return 0;
}

/* lock(H,CMD,RANGE): the lock or unlock, its range as the record gives
 * it (the handle's position and the file's size are the caller's). */
static int lock_role(const struct tg_tline *t, const struct tg_calldesc *d,
		     const struct tg_iorole *r, struct tg_ioact *a)
{
	const char *cmd = arg(t, d, r->a), *v;
	int64_t n;

	key(t, d, r->h, a->h);
	a->off = r->off;
	a->lock = TG_LOCK_NONE;
	a->whence = 0;
	a->pos = a->len = 0;
	if (a->failed || !cmd)
		return 0;
	switch (r->off) {
	case TG_OFF_ARG:	/* fcntl and its struct flock */
		a->cmd = cmd;
		if (strcmp(cmd, "F_SETLK") != 0 && strcmp(cmd, "F_SETLKW") != 0 &&
		    strcmp(cmd, "F_OFD_SETLK") != 0 && strcmp(cmd, "F_OFD_SETLKW") != 0)
			return 0;
		v = arg(t, d, r->offarg);
		if (!v || strcmp(v, "-") == 0)
			return 0;	/* a trace of a tracer that did not record it */
		return flock_text(v, a);
	case TG_OFF_POS:	/* lockf: F_ULOCK 0, F_LOCK 1, F_TLOCK 2, F_TEST 3 */
		if (tg_tint(cmd, &n) < 0 || num(t, d, r->lenarg, 0, &a->len) < 0)
			return -1;
		a->whence = 1;
		if (n == F_ULOCK)
			a->lock = TG_LOCK_UN;
		else if (n == F_LOCK || n == F_TLOCK)
			a->lock = TG_LOCK_WR;
		return 0;
	default:		/* flock: the whole file */
		if (tg_tint(cmd, &n) < 0)
			return -1;
		a->lockclass = TG_LKC_FLOCK;
		n &= ~(int64_t)LOCK_NB;
		if (n == LOCK_UN)
			a->lock = TG_LOCK_UN;
		else if (n == LOCK_SH)
			a->lock = TG_LOCK_RD;
		else if (n == LOCK_EX)
			a->lock = TG_LOCK_WR;
		return 0;
	}
}

/* The rest: what one role's fields name. */
static int other_role(const struct tg_tline *t, const struct tg_calldesc *d,
		      const struct tg_iorole *r, const char *cwd, struct tg_ioact *a)
{
	int bad = 0;

	key(t, d, r->h, a->h);
	a->all = r->op == TG_IO_SYNC && r->h == TG_ARG_NONE;
	if (r->op == TG_IO_SYNC && strcmp(d->name, "aio_fsync") == 0) {
		/* a commit when the request is done (aio_error, aio_return) */
		int i;
		for (i = 0; i < d->nargs; i++)
			if (d->args[i].kind == TG_K_BUF && strcmp(d->args[i].name, "cb") == 0)
				req_key(t, d, i, a->h2);
		a->aio = a->h2[0] != 0;
	}
	switch (r->op) {
	case TG_IO_FDOPEN:
	case TG_IO_DUP:
		key(t, d, r->a, a->h2);
		{
			/* dup3(old, new, O_CLOEXEC); fopen(path, "we")'s
			 * descriptor; fdopen(fd, "a"), which puts the
			 * descriptor in append mode (glibc) */
			int i;
			for (i = 0; i < d->nargs; i++) {
				const char *v = arg(t, d, i);
				if (v && d->args[i].kind == TG_K_OFLAGS)
					a->cloexec = has_flag(v, "O_CLOEXEC");
				else if (v && v[0] == '"' && d->args[i].kind == TG_K_STR &&
					 strcmp(d->args[i].name, "mode") == 0) {
					a->cloexec = r->op == TG_IO_DUP && strchr(v + 1, 'e');
					a->append = r->op == TG_IO_FDOPEN && v[1] == 'a';
				}
			}
		}
		break;
	case TG_IO_FCNTL:
		a->cmd = arg(t, d, r->a);
		if (a->cmd && (strcmp(a->cmd, "F_DUPFD") == 0 ||
			       strcmp(a->cmd, "F_DUPFD_CLOEXEC") == 0)) {
			a->op = TG_IO_DUP;	/* the new descriptor shares h's */
			a->cloexec = a->cmd[7] == '_';
			key(t, d, r->h, a->h2);
			key(t, d, TG_ARG_RET, a->h);
		} else if (a->cmd && (strcmp(a->cmd, "F_SETFD") == 0 ||
				      strcmp(a->cmd, "F_SETFL") == 0)) {
			int64_t v;
			if (num(t, d, r->b, 0, &v) < 0)
				return -1;
			a->op = a->cmd[6] == 'D' ? TG_IO_SETFD : TG_IO_SETFL;
			a->cloexec = (v & FD_CLOEXEC) != 0;
			a->append = (v & O_APPEND) != 0;
		}
		break;
	case TG_IO_SEEK:
		a->off = r->off;
		if (r->off == TG_OFF_RET)
			a->pos = a->ret;
		else if (num(t, d, r->offarg, r->b == TG_ARG_NONE ? -1 : 0, &a->pos) < 0)
			return -1;
		a->whence = r->b == TG_ARG_NONE ? 0 : whence(arg(t, d, r->b));
		if (r->c != TG_ARG_NONE) {
			/* the position the tracer read after the call: a
			 * seek to the end lands where the file ended then */
			int64_t at;
			if (num(t, d, r->c, -1, &at) < 0)
				return -1;
			if (at >= 0) {
				a->pos = at;
				a->whence = 0;
			}
		} else if (r->off == TG_OFF_ARG && r->b == TG_ARG_NONE && a->pos < 0) {
			a->op = TG_IO_NONE;	/* seek(h,at) without it */
		}
		break;
	case TG_IO_LOOK:
	case TG_IO_MKDIR:
	case TG_IO_MAKE:
		a->remove = (r->flags & TG_IOF_REMOVE) != 0;
		a->h[0] = 0;
		if (r->h >= 0)
			a->path = path(t, d, r->h, cwd, &bad);
		break;
	case TG_IO_LOAD:
		a->h[0] = 0;
		if (r->h >= 0)
			a->path = path(t, d, r->h, cwd, &bad);
		if (num(t, d, r->a, -1, &a->pos) < 0)
			return -1;
		break;
	case TG_IO_TRUNCATE:
		if (r->h >= 0 && d->args[r->h].kind == TG_K_PATH) {
			a->h[0] = 0;
			a->path = path(t, d, r->h, cwd, &bad);
		}
		if (num(t, d, r->a, 0, &a->pos) < 0)
			return -1;
		break;
	case TG_IO_AIODONE:
		/* aio_error: done unless EINPROGRESS */
		if (strcmp(d->name, "aio_error") == 0 && (a->ret == EINPROGRESS || a->ret < 0)) {
			a->op = TG_IO_NONE;
			break;
		}
		req_key(t, d, r->a, a->h2);
		/* aiodone(CB,FD,OFF): the aiocb's descriptor and offset, for
		 * a library that copies its aiocbs between submission and
		 * return (Open MPI's OMPIO) */
		if (r->b != TG_ARG_NONE) {
			key(t, d, r->h, a->h);
			if (num(t, d, r->b, -1, &a->pos) < 0)
				return -1;
		}
		break;
	case TG_IO_SIZE: {
		/* lseek: to the end, a look at the size (the offset from it
		 * taken away); to the next hole (SEEK_HOLE: the end, if there
		 * is none before it) or the next data (SEEK_DATA: the byte
		 * where data starts again, which a write in the hole before
		 * it would have moved), a look at the file's bytes there;
		 * else none */
		int w = r->c != TG_ARG_NONE ? whence(arg(t, d, r->c)) : 2;
		if (w != 2 && w != 3 && w != 4) {
			a->op = TG_IO_NONE;
			break;
		}
		if (r->h >= 0 && d->args[r->h].kind == TG_K_PATH) {
			a->h[0] = 0;	/* stat: the file a path names */
			a->path = path(t, d, r->h, cwd, &bad);
		}
		{
			const char *v = arg(t, d, r->a), *sz;
			int64_t minus = 0;
			a->pos = -1;
			if (v && (sz = strstr(v, "size:")) && (sz == v || sz[-1] == ',')) {
				char num_[32];
				size_t k = strcspn(sz + 5, ",}");
				if (k == 0 || k >= sizeof(num_))
					return -1;
				memcpy(num_, sz + 5, k);
				num_[k] = 0;
				if (tg_tint(num_, &a->pos) < 0)
					return -1;
				/* a directory, a device: not a file's bytes */
				if ((sz = strstr(v, ",mode:")) &&
				    (strtoll(sz + 6, NULL, 8) & 0170000) != 0100000)
					a->pos = -1;
			} else if (v && strcmp(v, "-") != 0 && tg_tint(v, &a->pos) < 0) {
				return -1;
			}
			if (a->pos >= 0 && w == 2 && num(t, d, r->b, 0, &minus) < 0)
				return -1;
			if (a->pos >= 0 && w == 3)
				minus = -1;	/* the data byte it found */
			if (a->pos >= 0)
				a->pos -= minus;
		}
		break;
	}
	case TG_IO_VIEW:
		if (num(t, d, r->a, 0, &a->pos) < 0)
			return -1;
		a->dtype = arg(t, d, r->b);
		a->ftype = arg(t, d, r->c);
		break;
	case TG_IO_SPAWN:	/* the pid, in pos; or a stream, in h */
	case TG_IO_REAP: {
		const char *v = arg(t, d, r->a);
		a->h[0] = 0;
		a->pos = -1;
		if (v && v[0] == 's')
			key(t, d, r->a, a->h);
		else if (v && tg_tint(v, &a->pos) < 0)
			return -1;
		break;
	}
	case TG_IO_ATOMIC:	/* the flag, in pos */
	case TG_IO_BUFFER:	/* the mode, in pos */
		if (num(t, d, r->a, 0, &a->pos) < 0)
			return -1;
		break;
	}
	return bad ? -1 : 0;
}

int tg_io_actions(const struct tg_tline *t, const struct tg_calldesc *d, const char *cwd,
		  struct tg_ioact *out, const char **why)
{
	int64_t ret = tg_io_ret(t);
	int mpi = d->layer == TG_LAYER_MPI || d->layer == TG_LAYER_MPIIO;
	unsigned i;

	for (i = 0; i < d->nio; i++) {
		const struct tg_iorole *r = &d->io[i];
		struct tg_ioact *a = &out[i];
		int rc;

		memset(a, 0, sizeof(*a));
		a->op = r->op;
		a->ret = ret;
		a->failed = mpi ? ret != 0 : ret < 0;
		a->len = a->pos = -1;
		if (r->op == TG_IO_READ || r->op == TG_IO_WRITE)
			rc = data(t, d, r, a);
		else if (r->op == TG_IO_OPEN || r->op == TG_IO_REOPEN)
			rc = open_role(t, d, r, cwd, a);
		else if (r->op == TG_IO_LOCK)
			rc = lock_role(t, d, r, a);
		else
			rc = other_role(t, d, r, cwd, a);
		if (rc < 0) {
			while (i-- > 0)
				free(out[i].path);
			free(a->path);
			*why = "bad number or string in a call record";
			return -1;
		}
	}
	return (int)d->nio;
}
