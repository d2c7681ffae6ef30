/*
 * hand.c - wrappers too irregular to generate: variadic open/fcntl and the
 * printf/scanf families, the fortified open entry points, and the calls that
 * fork, replace or end the process.  Each still has its row in calls.tab,
 * which gives its id and the schema the decoders use.
 */
#include "wrap-prelude.h"
#include "../libcommon/exe.h"

#include <err.h>
#include <error.h>
#include <limits.h>
#include <stdio_ext.h>
#include <sys/syscall.h>

extern char **environ;

#define RESOLVE(var, name)                                  \
	do {                                                \
		if (tg_unlikely(!(var)))                    \
			(var) = tg_real((name), NULL);      \
	} while (0)

/* ---- stdio positions -------------------------------------------------- */

int64_t tg_stream_pos(FILE *stream)
{
	typedef off64_t (*tell_fn)(FILE *);
	static void *real;
	int e = errno;
	off64_t at;

	RESOLVE(real, "ftello64");
	if (!stream || !real)
		return -1;
	at = ((tell_fn)real)(stream);
	errno = e;
	return at;
}

/* The bytes a scanf call took from @stream, which stood at @at before it
 * (-1: not known, a pipe), or -1. */
int64_t tg_scan_len(FILE *stream, int64_t at)
{
	int64_t end;

	if (at < 0 || (end = tg_stream_pos(stream)) < at)
		return -1;
	return end - at;
}

int64_t tg_stdio_held(FILE *stream)
{
	return stream ? (int64_t)__fpending(stream) : -1;
}

int64_t tg_stdio_ahead(FILE *stream)
{
	/* glibc's FILE (bits/types/struct_FILE.h): the read buffer's part
	 * not yet returned; none when the stream is writing */
	if (!stream)
		return -1;
	return stream->_IO_read_end > stream->_IO_read_ptr && !__fwriting(stream) ?
	       (int64_t)(stream->_IO_read_end - stream->_IO_read_ptr) : 0;
}

/* ---- open ------------------------------------------------------------- */

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat2_fn)(int, const char *, int);

enum { OPEN_PLAIN, OPEN_AT, OPEN_2, OPEN_AT2 };

static int has_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

static int call_open(int how, void *real, int dirfd, const char *path,
		     int flags, mode_t mode)
{
	switch (how) {
	case OPEN_PLAIN:
		return ((open_fn)real)(path, flags, mode);
	case OPEN_AT:
		return ((openat_fn)real)(dirfd, path, flags, mode);
	case OPEN_2:
		return ((open2_fn)real)(path, flags);
	default:
		return ((openat2_fn)real)(dirfd, path, flags);
	}
}

TG_SITE int traced_open(int how, unsigned fn, void *real, int dirfd,
		       const char *path, int flags, mode_t mode)
{
	char pb[TG_PATH_MAX], rb[TG_PATH_MAX], fb[TG_PATH_MAX];
	const char *ap;
	struct tg_call c;
	uint64_t sid;
	int ex = 0, ret, at = how == OPEN_AT || how == OPEN_AT2;

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (!has_mode(flags))
		mode = 0;
	if (!tg_on(TG_LAYER_POSIX))
		return call_open(how, real, dirfd, path, flags, mode);
	ap = tg_path_open_prep(pb, fb, path, at ? dirfd : AT_FDCWD, &ex);
	if (ex || !tg_enter(&c, fn, TG_LAYER_POSIX)) {
		if (ex)
			tg_count_excluded();
		ret = call_open(how, real, dirfd, path, flags, mode);
		if (ret >= 0) {
			int e = errno;
			tg_fd_set(ret, ex);
			errno = e;
		}
		return ret;
	}
	ret = call_open(how, real, dirfd, path, flags, mode);
	tg_end(&c);
	{
		int e = errno;
		sid = tg_str(c.t, tg_path_opened(rb, ap, ret, path, at ? dirfd : AT_FDCWD));
		errno = e;
	}
	tg_rec_begin(&c, ret, ret == -1);
	if (at)
		tg_put_s(&c, dirfd);
	tg_put_u(&c, sid);
	tg_put_u(&c, (unsigned)flags);
	tg_put_u(&c, mode);
	tg_rec_commit(&c);
	if (ret >= 0)
		tg_fd_set(ret, tg_fd_fifo(ret));	/* (a FIFO's calls: left out) */
	return ret;
}

#define VA_MODE(flags, last)                                   \
	mode_t mode = 0;                                       \
	if (has_mode(flags)) {                                 \
		va_list ap;                                    \
		va_start(ap, last);                            \
		mode = (mode_t)va_arg(ap, unsigned int);       \
		va_end(ap);                                    \
	}

TG_EXPORT int open(const char *path, int flags, ...)
{
	static void *real;
	VA_MODE(flags, flags);
	RESOLVE(real, "open");
	return traced_open(OPEN_PLAIN, TG_FN_open, real, AT_FDCWD, path, flags, mode);
}

TG_EXPORT int open64(const char *path, int flags, ...)
{
	static void *real;
	VA_MODE(flags, flags);
	RESOLVE(real, "open64");
	return traced_open(OPEN_PLAIN, TG_FN_open64, real, AT_FDCWD, path, flags, mode);
}

TG_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	static void *real;
	VA_MODE(flags, flags);
	RESOLVE(real, "openat");
	return traced_open(OPEN_AT, TG_FN_openat, real, dirfd, path, flags, mode);
}

TG_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	static void *real;
	VA_MODE(flags, flags);
	RESOLVE(real, "openat64");
	return traced_open(OPEN_AT, TG_FN_openat64, real, dirfd, path, flags, mode);
}

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

#ifndef TG_STATIC
/*
 * POSIX shared memory: shm_open(NAME) opens /dev/shm/NAME inside the C
 * library, where no wrapper sees it, so the calls on its descriptor were
 * untracked (ranks sharing an object through it: nothing placed, nothing
 * said).  Recorded as the open, and shm_unlink as the unlink, they are.
 */
typedef int (*shm_open_fn)(const char *, int, mode_t);
typedef int (*shm_unlink_fn)(const char *);

static const char *shm_path(char *buf, const char *name)
{
	while (name && *name == '/')
		name++;
	snprintf(buf, TG_PATH_MAX, "/dev/shm/%s", name ? name : "");
	return buf;
}

TG_EXPORT int shm_open(const char *name, int oflag, mode_t mode)
{
	static void *real;
	char full[TG_PATH_MAX], pb[TG_PATH_MAX];
	const char *ap;
	struct tg_call c;
	uint64_t sid;
	int ex = 0, ret;

	RESOLVE(real, "shm_open");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (!tg_on(TG_LAYER_POSIX))
		return ((shm_open_fn)real)(name, oflag, mode);
	ap = tg_path_prep(pb, shm_path(full, name), AT_FDCWD, &ex);
	if (ex || !tg_enter(&c, TG_FN_open, TG_LAYER_POSIX)) {
		if (ex)
			tg_count_excluded();
		ret = ((shm_open_fn)real)(name, oflag, mode);
		if (ret >= 0) {
			int e = errno;
			tg_fd_set(ret, ex);
			errno = e;
		}
		return ret;
	}
	ret = ((shm_open_fn)real)(name, oflag, mode);
	tg_end(&c);
	sid = tg_str(c.t, ap);	/* (before the record: it may write one) */
	tg_rec_begin(&c, ret, ret == -1);
	tg_put_u(&c, sid);
	tg_put_u(&c, (unsigned)(oflag | O_NOFOLLOW | O_CLOEXEC));	/* (as glibc opens it) */
	tg_put_u(&c, (oflag & O_CREAT) ? mode : 0);
	tg_rec_commit(&c);
	if (ret >= 0) {
		int e = errno;
		tg_fd_set(ret, 0);
		errno = e;
	}
	return ret;
}

TG_EXPORT int shm_unlink(const char *name)
{
	static void *real;
	char full[TG_PATH_MAX], pb[TG_PATH_MAX];
	const char *ap;
	struct tg_call c;
	uint64_t sid;
	int ex = 0, ret;

	RESOLVE(real, "shm_unlink");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (!tg_on(TG_LAYER_POSIX))
		return ((shm_unlink_fn)real)(name);
	ap = tg_path_prep(pb, shm_path(full, name), AT_FDCWD, &ex);
	if (ex || !tg_enter(&c, TG_FN_unlink, TG_LAYER_POSIX)) {
		if (ex)
			tg_count_excluded();
		return ((shm_unlink_fn)real)(name);
	}
	ret = ((shm_unlink_fn)real)(name);
	tg_end(&c);
	sid = tg_str(c.t, ap);
	tg_rec_begin(&c, ret, ret == -1);
	tg_put_u(&c, sid);
	tg_rec_commit(&c);
	return ret;
}
#endif

TG_EXPORT int __open_2(const char *path, int flags)
{
	static void *real;
	RESOLVE(real, "__open_2");
	return traced_open(OPEN_2, TG_FN_open, real, AT_FDCWD, path, flags, 0);
}

TG_EXPORT int __open64_2(const char *path, int flags)
{
	static void *real;
	RESOLVE(real, "__open64_2");
	return traced_open(OPEN_2, TG_FN_open64, real, AT_FDCWD, path, flags, 0);
}

TG_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	static void *real;
	RESOLVE(real, "__openat_2");
	return traced_open(OPEN_AT2, TG_FN_openat, real, dirfd, path, flags, 0);
}

TG_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	static void *real;
	RESOLVE(real, "__openat64_2");
	return traced_open(OPEN_AT2, TG_FN_openat64, real, dirfd, path, flags, 0);
}

/* ---- fcntl ------------------------------------------------------------ */

typedef int (*fcntl_fn)(int, int, ...);

/* Commands whose third argument is an int (the rest take a pointer). */
static int fcntl_int_arg(int cmd)
{
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
	case F_SETFD:
	case F_SETFL:
	case F_SETOWN:
	case F_SETSIG:
	case F_SETLEASE:
	case F_NOTIFY:
	case F_SETPIPE_SZ:
	case F_ADD_SEALS:
		return 1;
	default:
		return 0;
	}
}

/* The lock commands, whose argument is a struct flock: 1 if it is read
 * (a set command), 2 if the call writes it (a get command), else 0. */
static int fcntl_lock_arg(int cmd)
{
	switch (cmd) {
	case F_SETLK:
	case F_SETLKW:
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
		return 1;
	case F_GETLK:
	case F_OFD_GETLK:
		return 2;
	default:
		return 0;
	}
}

/* The struct flock argument (tangram-rec(5) kind flock): the lock asked
 * for, or the one a get command found; none for other commands and when
 * the struct cannot be read. */
static void put_flock(struct tg_call *c, int cmd, const struct flock *lk, int failed)
{
	int how = fcntl_lock_arg(cmd);

	if (!how || !lk || (failed && c->err == EFAULT) || (how == 2 && failed)) {
		tg_put_u(c, 0);
		return;
	}
	tg_put_u(c, 5);
	tg_put_s(c, lk->l_type);
	tg_put_s(c, lk->l_whence);
	tg_put_s(c, (int64_t)lk->l_start);
	tg_put_s(c, (int64_t)lk->l_len);
	tg_put_s(c, how == 2 ? (int64_t)lk->l_pid : 0);
}

TG_SITE int traced_fcntl(unsigned fn, void *real, int fd, int cmd, void *arg)
{
	struct tg_call c;
	int ret, dup = cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC;

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (!tg_on(TG_LAYER_POSIX) || tg_fd_excluded(fd) ||
	    !tg_enter(&c, fn, TG_LAYER_POSIX)) {
		ret = ((fcntl_fn)real)(fd, cmd, arg);
		if (dup && ret >= 0) {
			int e = errno;
			tg_fd_dup(fd, ret);
			errno = e;
		}
		return ret;
	}
	ret = ((fcntl_fn)real)(fd, cmd, arg);
	tg_end(&c);
	tg_rec_begin(&c, ret, ret == -1);
	tg_put_s(&c, fd);
	tg_put_s(&c, cmd);
	tg_put_s(&c, fcntl_int_arg(cmd) ? (int)(intptr_t)arg : 0);
	put_flock(&c, cmd, arg, ret == -1);
	tg_rec_commit(&c);
	if (dup && ret >= 0) {
		int e = errno;
		tg_fd_dup(fd, ret);
		errno = e;
	}
	return ret;
}

TG_EXPORT int fcntl(int fd, int cmd, ...)
{
	static void *real;
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	RESOLVE(real, "fcntl");
	return traced_fcntl(TG_FN_fcntl, real, fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...);
TG_EXPORT int fcntl64(int fd, int cmd, ...)
{
	static void *real;
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	RESOLVE(real, "fcntl64");
	return traced_fcntl(TG_FN_fcntl64, real, fd, cmd, arg);
}

/* ---- printf and scanf families ---------------------------------------- */

/* How the formatted call reaches its v-variant.  A call on standard
 * output (printf, vprintf, and puts and putchar, which compilers make of
 * printf) is recorded as the call on the stream stdout it is (fprintf,
 * vfprintf, fputs, putc), so that its bytes are placed where stdout goes
 * (a file freopen put under it) and kept in order with the program's
 * fwrite and fflush on stdout. */
enum { FMT_STREAM, FMT_STDOUT, FMT_FD };

typedef int (*vf_stream)(FILE *, const char *, va_list);
typedef int (*vf_stdout)(const char *, va_list);
typedef int (*vf_fd)(int, const char *, va_list);
typedef int (*vfchk_stream)(FILE *, int, const char *, va_list);
typedef int (*vfchk_stdout)(int, const char *, va_list);
typedef int (*vfchk_fd)(int, int, const char *, va_list);

struct fmtcall {
	unsigned fn;
	int how;
	int layer_failed_eof;	/* scanf: failure is EOF, not negative */
	int chk;		/* fortified: pass @flag */
	int flag;
	void *real;
	FILE *stream;
	int fd;
};

static int fmt_invoke(const struct fmtcall *f, const char *fmt, va_list ap)
{
	if (f->chk) {
		switch (f->how) {
		case FMT_STREAM:
			return ((vfchk_stream)f->real)(f->stream, f->flag, fmt, ap);
		case FMT_STDOUT:
			return ((vfchk_stdout)f->real)(f->flag, fmt, ap);
		default:
			return ((vfchk_fd)f->real)(f->fd, f->flag, fmt, ap);
		}
	}
	switch (f->how) {
	case FMT_STREAM:
		return ((vf_stream)f->real)(f->stream, fmt, ap);
	case FMT_STDOUT:
		return ((vf_stdout)f->real)(fmt, ap);
	default:
		return ((vf_fd)f->real)(f->fd, fmt, ap);
	}
}

TG_SITE int traced_fmt(const struct fmtcall *f, const char *fmt, va_list ap)
{
	struct tg_call c;
	uint64_t sid;
	int64_t at, len;
	int ret, failed, ex = 0;

	if (!f->real) {
		errno = ENOSYS;
		return -1;
	}
	if (!tg_on(TG_LAYER_STDIO))
		return fmt_invoke(f, fmt, ap);
	if (f->how == FMT_STREAM)
		ex = tg_fstab_excluded(f->stream);
	else if (f->how == FMT_STDOUT)
		ex = tg_fstab_excluded(stdout);
	else if (f->how == FMT_FD)
		ex = tg_fd_excluded(f->fd);
	if (ex || !tg_enter(&c, f->fn, TG_LAYER_STDIO)) {
		if (ex)
			tg_count_excluded();
		return fmt_invoke(f, fmt, ap);
	}
	sid = tg_str(c.t, fmt);
	/* scanf: where the stream stood, and how far it went */
	at = f->layer_failed_eof ? tg_stream_pos(f->stream) : -1;
	ret = fmt_invoke(f, fmt, ap);
	tg_end(&c);
	failed = f->layer_failed_eof ? ret == EOF : ret < 0;
	len = f->layer_failed_eof ? tg_scan_len(f->stream, at) : -1;
	tg_rec_begin(&c, ret, failed);
	if (f->how == FMT_STREAM)
		tg_put_u(&c, tg_fstab_id(f->stream, NULL));
	else if (f->how == FMT_STDOUT)
		tg_put_u(&c, tg_fstab_id(stdout, NULL));
	else if (f->how == FMT_FD)
		tg_put_s(&c, f->fd);
	tg_put_u(&c, sid);
	if (f->layer_failed_eof) {
		tg_put_s(&c, at);
		tg_put_s(&c, len);
	} else if (f->how != FMT_FD) {	/* fprintf's held */
		tg_put_s(&c, tg_stdio_held(f->how == FMT_STREAM ? f->stream : stdout));
	}
	tg_rec_commit(&c);
	return ret;
}

#define FMT_BODY(fcinit, last, fmtarg)                  \
	static void *real;                              \
	struct fmtcall f = fcinit;                      \
	va_list ap;                                     \
	int ret;                                        \
	RESOLVE(real, real_name);                       \
	f.real = real;                                  \
	va_start(ap, last);                             \
	ret = traced_fmt(&f, fmtarg, ap);               \
	va_end(ap);                                     \
	return ret

TG_EXPORT int fprintf(FILE *stream, const char *format, ...)
{
	static const char real_name[] = "vfprintf";
	FMT_BODY(((struct fmtcall){ .fn = TG_FN_fprintf, .how = FMT_STREAM,
				    .stream = stream }),
		 format, format);
}

TG_EXPORT int printf(const char *format, ...)
{
	static const char real_name[] = "vprintf";
	FMT_BODY(((struct fmtcall){ .fn = TG_FN_fprintf, .how = FMT_STDOUT }),
		 format, format);
}

TG_EXPORT int dprintf(int fd, const char *format, ...)
{
	static const char real_name[] = "vdprintf";
	FMT_BODY(((struct fmtcall){ .fn = TG_FN_dprintf, .how = FMT_FD, .fd = fd }),
		 format, format);
}

int tg_w_fscanf(FILE *stream, const char *format, ...) __asm__("fscanf");
TG_EXPORT int tg_w_fscanf(FILE *stream, const char *format, ...)
{
	static const char real_name[] = "vfscanf";
	FMT_BODY(((struct fmtcall){ .fn = TG_FN_fscanf, .how = FMT_STREAM,
				    .layer_failed_eof = 1, .stream = stream }),
		 format, format);
}

int __isoc99_fscanf(FILE *stream, const char *format, ...);
TG_EXPORT int __isoc99_fscanf(FILE *stream, const char *format, ...)
{
	static const char real_name[] = "__isoc99_vfscanf";
	FMT_BODY(((struct fmtcall){ .fn = TG_FN_fscanf, .how = FMT_STREAM,
				    .layer_failed_eof = 1, .stream = stream }),
		 format, format);
}

int __fprintf_chk(FILE *stream, int flag, const char *format, ...);
TG_EXPORT int __fprintf_chk(FILE *stream, int flag, const char *format, ...)
{
	static const char real_name[] = "__vfprintf_chk";
	FMT_BODY(((struct fmtcall){ .fn = TG_FN_fprintf, .how = FMT_STREAM,
				    .chk = 1, .flag = flag, .stream = stream }),
		 format, format);
}

int __printf_chk(int flag, const char *format, ...);
TG_EXPORT int __printf_chk(int flag, const char *format, ...)
{
	static const char real_name[] = "__vprintf_chk";
	FMT_BODY(((struct fmtcall){ .fn = TG_FN_fprintf, .how = FMT_STDOUT,
				    .chk = 1, .flag = flag }),
		 format, format);
}

int __dprintf_chk(int fd, int flag, const char *format, ...);
TG_EXPORT int __dprintf_chk(int fd, int flag, const char *format, ...)
{
	static const char real_name[] = "__vdprintf_chk";
	FMT_BODY(((struct fmtcall){ .fn = TG_FN_dprintf, .how = FMT_FD, .chk = 1,
				    .flag = flag, .fd = fd }),
		 format, format);
}

TG_EXPORT int vprintf(const char *format, va_list ap)
{
	static void *real;
	struct fmtcall f = { .fn = TG_FN_vfprintf, .how = FMT_STDOUT };

	RESOLVE(real, "vprintf");
	f.real = real;
	return traced_fmt(&f, format, ap);
}

int __vprintf_chk(int flag, const char *format, va_list ap);
TG_EXPORT int __vprintf_chk(int flag, const char *format, va_list ap)
{
	static void *real;
	struct fmtcall f = { .fn = TG_FN_vfprintf, .how = FMT_STDOUT, .chk = 1, .flag = flag };

	RESOLVE(real, "__vprintf_chk");
	f.real = real;
	return traced_fmt(&f, format, ap);
}

/* Is a call on standard stream @fp recorded (as function @fn, begun in
 * @c)?  Not when the stream is excluded (counted then) or the call is not
 * to be. */
TG_SITE int std_enter_site(struct tg_call *c, unsigned fn, FILE *fp, const void *site)
{
	if (!tg_on(TG_LAYER_STDIO))
		return 0;
	if (tg_fstab_excluded(fp)) {
		tg_count_excluded();
		return 0;
	}
	return tg_enter_site(c, fn, TG_LAYER_STDIO, 0, site);
}

TG_SITE int std_enter(struct tg_call *c, unsigned fn, FILE *fp)
{
	return std_enter_site(c, fn, fp, __builtin_return_address(0));
}

/* puts(s) is fputs(s, stdout) and a newline: recorded as that fputs, its
 * length the string's and the newline's. */
TG_EXPORT int puts(const char *s)
{
	typedef int (*puts_fn)(const char *);
	static void *real;
	struct tg_call c;
	int ret;

	RESOLVE(real, "puts");
	if (!real) {
		errno = ENOSYS;
		return EOF;
	}
	if (!std_enter(&c, TG_FN_fputs, stdout))
		return ((puts_fn)real)(s);
	ret = ((puts_fn)real)(s);
	tg_end(&c);
	tg_rec_begin(&c, ret, ret == EOF);
	tg_put_u(&c, tg_ptr_id(c.t, s));
	tg_put_u(&c, tg_fstab_id(stdout, NULL));
	tg_put_s(&c, s ? (int64_t)tg_strlen0(s) + 1 : -1);
	tg_put_s(&c, tg_stdio_held(stdout));
	tg_rec_commit(&c);
	return ret;
}

/* perror(s) writes "s: " (when s is a string of some length), the
 * message of errno and a newline on stderr, unbuffered: recorded as the
 * fputs of that line on stderr it is, so that a log that stderr was put
 * on has its bytes (and later writes to it their places). */
/* The record of a line @s of @len bytes a call begun in @c wrote on
 * stderr: an fputs's. */
static void stderr_line(struct tg_call *c, const void *s, int64_t len)
{
	tg_end(c);
	tg_rec_begin(c, 0, 0);
	tg_put_u(c, tg_ptr_id(c->t, s));
	tg_put_u(c, tg_fstab_id(stderr, NULL));
	tg_put_s(c, len);
	tg_put_s(c, tg_stdio_held(stderr));
	tg_rec_commit(c);
}

TG_EXPORT void perror(const char *s)
{
	typedef void (*perror_fn)(const char *);
	static void *real;
	struct tg_call c;
	int64_t len;
	int err = errno, on;

	RESOLVE(real, "perror");
	if (!real)
		return;
	on = std_enter(&c, TG_FN_fputs, stderr);
	len = !on ? 0 : (s && *s ? (int64_t)tg_strlen0(s) + 2 : 0) +
			(int64_t)strlen(strerror(err)) + 1;
	errno = err;
	((perror_fn)real)(s);
	if (on)
		stderr_line(&c, s, len);
	errno = err;
}

/*
 * warn(3) and its kin write one line on stderr: the program's short name,
 * ": ", the message (when there is a format) and, but for the x ones,
 * ": " (after a message) and errno's message; then a newline.  Each is
 * recorded as the fputs of that line on stderr it is; err and its kin are
 * warn's line and exit(3), as glibc makes them.
 */
static void traced_warn(const void *site, const char *name, int with_errno, const char *fmt,
			va_list ap)
{
	typedef void (*vwarn_fn)(const char *, va_list);
	static void *real[2];
	struct tg_call c;
	int64_t len;
	va_list aq;
	int err = errno, n = 0;

	if (!real[with_errno])
		real[with_errno] = tg_real(name, NULL);
	if (!real[with_errno])
		return;
	if (!std_enter_site(&c, TG_FN_fputs, stderr, site)) {
		errno = err;
		((vwarn_fn)real[with_errno])(fmt, ap);
		errno = err;
		return;
	}
	if (fmt) {
		va_copy(aq, ap);
		n = vsnprintf(NULL, 0, fmt, aq);
		va_end(aq);
	}
	len = n < 0 ? -1 : (int64_t)strlen(program_invocation_short_name) + 2 + n + 1 +
		(with_errno ? (fmt ? 2 : 0) + (int64_t)strlen(strerror(err)) : 0);
	errno = err;
	((vwarn_fn)real[with_errno])(fmt, ap);
	stderr_line(&c, fmt, len);
	errno = err;
}

TG_EXPORT void vwarn(const char *fmt, va_list ap)
{
	traced_warn(__builtin_return_address(0), "vwarn", 1, fmt, ap);
}

TG_EXPORT void vwarnx(const char *fmt, va_list ap)
{
	traced_warn(__builtin_return_address(0), "vwarnx", 0, fmt, ap);
}

TG_EXPORT void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	traced_warn(__builtin_return_address(0), "vwarn", 1, fmt, ap);
	va_end(ap);
}

TG_EXPORT void warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	traced_warn(__builtin_return_address(0), "vwarnx", 0, fmt, ap);
	va_end(ap);
}

TG_EXPORT void verr(int eval, const char *fmt, va_list ap)
{
	traced_warn(__builtin_return_address(0), "vwarn", 1, fmt, ap);
	exit(eval);
}

TG_EXPORT void verrx(int eval, const char *fmt, va_list ap)
{
	traced_warn(__builtin_return_address(0), "vwarnx", 0, fmt, ap);
	exit(eval);
}

TG_EXPORT void err(int eval, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	traced_warn(__builtin_return_address(0), "vwarn", 1, fmt, ap);
	va_end(ap);
	exit(eval);
}

TG_EXPORT void errx(int eval, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	traced_warn(__builtin_return_address(0), "vwarnx", 0, fmt, ap);
	va_end(ap);
	exit(eval);
}

/*
 * error(3) and error_at_line(3) flush stdout, then write one line on
 * stderr: the program's name (or what error_print_progname prints), for
 * error_at_line the file and line, ": ", the message, ": " and errnum's
 * message when errnum is not 0, a newline; then exit(status) when status
 * is not 0.  glibc exports no form that takes a va_list: the message is
 * formatted here and handed to the real one as "%s", which prints the
 * same bytes.  The flush of stdout is the traced fflush, the line the
 * fputs of it on stderr.  error_at_line prints nothing for a repeat of the
 * previous file and line when error_one_per_line is set: kept here as
 * glibc keeps it.
 */
static char *error_msg(char *buf, size_t cap, const char *fmt, va_list ap, int *n)
{
	va_list aq;
	char *m = buf;

	va_copy(aq, ap);
	*n = vsnprintf(buf, cap, fmt, aq);
	va_end(aq);
	if (*n >= 0 && (size_t)*n >= cap) {
		m = mmap(NULL, (size_t)*n + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		vsnprintf(m, (size_t)*n + 1, fmt, ap);
	}
	return m;
}

static void traced_error(const void *site, int at, int status, int errnum, const char *file,
			 unsigned line, const char *fmt, va_list ap)
{
	typedef void (*error_fn)(int, int, const char *, ...);
	typedef void (*error_at_fn)(int, int, const char *, unsigned, const char *, ...);
	static void *real[2];
	static const char *last_file;
	static unsigned last_line;
	char buf[1024], *m;
	struct tg_call c;
	int64_t len;
	int n, err = errno;

	if (!real[at])
		real[at] = tg_real(at ? "error_at_line" : "error", NULL);
	if (!real[at] || !(m = error_msg(buf, sizeof(buf), fmt, ap, &n))) {
		errno = err;
		if (status)
			exit(status);
		return;	/* (no memory for a long message: nothing printed) */
	}
	if (at && error_one_per_line) {
		if (line == last_line && (file == last_file ||
					  (file && last_file && strcmp(file, last_file) == 0))) {
			/* glibc prints nothing and returns, whatever the status */
			if (m != buf)
				munmap(m, (size_t)n + 1);
			errno = err;
			return;
		}
		last_file = file;
		last_line = line;
	}
	fflush(stdout);
	if (!std_enter_site(&c, TG_FN_fputs, stderr, site)) {
		errno = err;
		if (at)
			((error_at_fn)real[1])(0, errnum, file, line, "%s", m);
		else
			((error_fn)real[0])(0, errnum, "%s", m);
		goto out;
	}
	len = n < 0 || error_print_progname ? -1 :
		(int64_t)strlen(program_invocation_name) + 2 + n + 1 +
		(errnum ? 2 + (int64_t)strlen(strerror(errnum)) : 0) +
		(!at ? 0 : file ? (int64_t)strlen(file) + 1 + snprintf(NULL, 0, "%u:", line) : 0);
	errno = err;
	if (at)
		((error_at_fn)real[1])(0, errnum, file, line, "%s", m);
	else
		((error_fn)real[0])(0, errnum, "%s", m);
	stderr_line(&c, fmt, len);
out:
	if (m != buf)
		munmap(m, (size_t)n + 1);
	errno = err;
	if (status)
		exit(status);
}

TG_EXPORT void error(int status, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	traced_error(__builtin_return_address(0), 0, status, errnum, NULL, 0, fmt, ap);
	va_end(ap);
}

TG_EXPORT void error_at_line(int status, int errnum, const char *file, unsigned line,
			     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	traced_error(__builtin_return_address(0), 1, status, errnum, file, line, fmt, ap);
	va_end(ap);
}

/* putchar(c) is putc(c, stdout) */
TG_EXPORT int putchar(int ch)
{
	typedef int (*putchar_fn)(int);
	static void *real;
	struct tg_call c;
	int ret;

	RESOLVE(real, "putchar");
	if (!real) {
		errno = ENOSYS;
		return EOF;
	}
	if (!std_enter(&c, TG_FN_putc, stdout))
		return ((putchar_fn)real)(ch);
	ret = ((putchar_fn)real)(ch);
	tg_end(&c);
	tg_rec_begin(&c, ret, ret == EOF);
	tg_put_s(&c, ch);
	tg_put_u(&c, tg_fstab_id(stdout, NULL));
	tg_put_s(&c, tg_stdio_held(stdout));
	tg_rec_commit(&c);
	return ret;
}

/*
 * Begin record @c, of function @fn, inside the record @p (already
 * committed): a part of one call, as lio_listio's and io_submit's
 * requests and close_range's closes are.
 */
static void inner_begin(const struct tg_call *p, struct tg_call *c, unsigned fn, int64_t ret,
			int failed, int err)
{
	*c = *p;
	c->fn = fn;
	c->depth = (uint8_t)(p->depth + 1);
	c->parent = (int64_t)p->seq;
	c->seq = atomic_fetch_add_explicit(&tg_seq, 1, memory_order_relaxed);
	c->err = err;
	p->t->depth++;		/* popped by the commit, as after tg_enter() */
	p->t->inrec = 1;	/* as after tg_end(), until the commit */
	tg_rec_begin(c, ret, failed);
}

/* ---- closing ranges of descriptors ------------------------------------- */

/*
 * closefrom and close_range close every descriptor in a range, the
 * tracer's too: they close the range around it (tg_close_range), so the
 * trace goes on and the program sees what it would untraced.  Recorded as
 * close_range, with a close inside it for each descriptor of the range
 * the process had open (read from /proc/self/fd before), so that their
 * files are closed in the trace too.  Not in the static library, whose
 * wrappers are the C library's (build/static/wrap.names).
 */
#ifndef TG_STATIC
typedef int (*close_range_fn)(unsigned, unsigned, int);

#define RANGE_FDS 4096	/* descriptors of a range recorded at most */

/* The descriptors in [@first, @last] the process has open, not the
 * tracer's: at most RANGE_FDS into @fds; how many. */
static int open_in_range(unsigned first, unsigned last, int *fds)
{
	char buf[4096];
	long n, at;
	int d, k = 0;

	d = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0)
		return 0;
	while ((n = syscall(SYS_getdents64, d, buf, sizeof(buf))) > 0)
		for (at = 0; at < n; at += ((struct dirent64 *)(buf + at))->d_reclen) {
			const char *e = ((struct dirent64 *)(buf + at))->d_name;
			long fd = *e >= '0' && *e <= '9' ? strtol(e, NULL, 10) : -1;
			if (fd >= 0 && fd != d && (unsigned long)fd >= first &&
			    (unsigned long)fd <= last && !tg_fd_mine((int)fd) && k < RANGE_FDS)
				fds[k++] = (int)fd;
		}
	syscall(SYS_close, d);
	return k;
}

/* close_range, recorded. */
TG_SITE int traced_close_range(unsigned first, unsigned last, int flags,
			      int (*real)(unsigned, unsigned, int))
{
	struct tg_call c;
	int rc, n = 0, i, e, *fds;

	if (!tg_on(TG_LAYER_POSIX) || !tg_enter(&c, TG_FN_close_range, TG_LAYER_POSIX))
		return tg_close_range(first, last, flags, real);
	fds = flags & CLOSE_RANGE_CLOEXEC ? NULL : malloc(RANGE_FDS * sizeof(*fds));
	if (fds)
		n = open_in_range(first, last, fds);
	rc = tg_close_range(first, last, flags, real);
	e = errno;
	tg_end(&c);
	tg_rec_begin(&c, rc, rc == -1);
	tg_put_u(&c, first);
	tg_put_u(&c, last);
	tg_put_u(&c, (unsigned)flags);
	tg_rec_commit(&c);
	for (i = 0; rc == 0 && i < n && c.depth + 1 < TG_MAX_DEPTH; i++) {
		struct tg_call k;
		inner_begin(&c, &k, TG_FN_close, 0, 0, 0);
		tg_put_s(&k, fds[i]);
		tg_rec_commit(&k);
	}
	free(fds);
	errno = e;
	return rc;
}

/* close_range by system call, for a C library without it */
static int sys_close_range(unsigned first, unsigned last, int flags)
{
	return (int)syscall(SYS_close_range, first, last, flags);
}

static close_range_fn real_close_range(void)
{
	static void *real;

	RESOLVE(real, "close_range");
	return real ? (close_range_fn)real : sys_close_range;
}

TG_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	return traced_close_range(first, last, flags, real_close_range());
}

TG_EXPORT void closefrom(int lowfd)
{
	unsigned fd, max = (unsigned)sysconf(_SC_OPEN_MAX);

	if (lowfd < 0)
		lowfd = 0;
	if (traced_close_range((unsigned)lowfd, ~0U, 0, real_close_range()) == 0)
		return;
	/* no close_range in the kernel: each number up to the limit */
	for (fd = (unsigned)lowfd; fd < max; fd++)
		if (!tg_fd_mine((int)fd))
			syscall(SYS_close, fd);
}
#endif

/* ---- signal actions ------------------------------------------------------ */

/*
 * The tracer's handler of the fatal signals (install_signals) is not the
 * program's: a program that asks for such a signal's action before it
 * sets one finds the default it had, as untraced, since many set theirs
 * only over the default (Python's KeyboardInterrupt, Ruby's ensure on
 * SIGTERM, Open MPI's backtraces).  Setting one replaces the tracer's.
 */
#ifndef TG_STATIC
TG_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	static void *real;
	int ours, rc;

	RESOLVE(real, "sigaction");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	ours = tg_sig_ours(sig);
	rc = ((int (*)(int, const struct sigaction *, struct sigaction *))real)(sig, act, old);
	if (rc == 0) {
		if (ours && old) {
			memset(old, 0, sizeof(*old));
			old->sa_handler = SIG_DFL;
		}
		if (act)
			tg_sig_theirs(sig);
	}
	return rc;
}

TG_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	static void *real;
	sighandler_t prev;
	int ours;

	RESOLVE(real, "signal");
	if (!real) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	ours = tg_sig_ours(sig);
	prev = ((sighandler_t (*)(int, sighandler_t))real)(sig, handler);
	if (prev != SIG_ERR) {
		tg_sig_theirs(sig);
		if (ours)
			prev = SIG_DFL;
	}
	return prev;
}
#endif

/* ---- fork, exec, exit --------------------------------------------------- */

typedef pid_t (*fork_fn)(void);

TG_SITE pid_t traced_fork(unsigned fn)
{
	static void *real;
	struct tg_call c;
	pid_t ret;

	RESOLVE(real, "fork");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (!tg_on(TG_LAYER_POSIX) || !tg_enter(&c, fn, TG_LAYER_POSIX))
		return ((fork_fn)real)();
	ret = ((fork_fn)real)();
	tg_end(&c);
	if (ret == 0 && tg_state == 1) {
		/* the child's stream starts with this call */
		c.seq = atomic_fetch_add(&tg_seq, 1);
		c.t->stack_seq[c.depth] = c.seq;
	}
	tg_rec_begin(&c, ret, ret == -1);
	tg_rec_commit(&c);
	return ret;
}

TG_EXPORT pid_t fork(void)
{
	return traced_fork(TG_FN_fork);
}

/* A wrapper cannot return twice from one stack frame, so vfork becomes
 * fork; programs may not rely on vfork sharing memory anyway. */
TG_EXPORT pid_t vfork(void)
{
	return traced_fork(TG_FN_vfork);
}

/*
 * Record an exec before the image goes away (tg_end_image() then pushes
 * every record out, whatever the layers); if the exec fails, a second
 * record carries its error.
 */
TG_SITE void exec_record_at(unsigned fn, int dirfd, const char *path, int is_path, int ret,
			   int err)
{
	char pb[TG_PATH_MAX];
	struct tg_call c;
	const char *ap = path;
	uint64_t sid;
	int ex = 0;

	if (!tg_on(TG_LAYER_POSIX))
		return;
	if (is_path)
		ap = tg_path_prep(pb, path, dirfd, &ex);
	if (!tg_enter(&c, fn, TG_LAYER_POSIX))
		return;
	sid = tg_str(c.t, ap);
	errno = err;
	tg_end(&c);
	tg_rec_begin(&c, ret, ret == -1);
	tg_put_u(&c, sid);
	tg_rec_commit(&c);
}

TG_SITE void exec_record(unsigned fn, const char *path, int is_path, int ret, int err)
{
	exec_record_at(fn, AT_FDCWD, path, is_path, ret, err);
}

/* A program exec'd without the tracer in its environment (clearenv(),
 * execve with an environment of its own) runs untraced: said once, as the
 * tracer says every other way it stops tracing; and so does one the
 * preloaded tracer cannot get into (exe.h).  @what is found on PATH when
 * @is_path is 0, is the file when 1, and is not looked at when 2. */
static void exec_untraced(const char *what, int is_path, char *const envp[])
{
	static int said, said_static, said_secure;
	char msg[2 * TG_PATH_MAX + 200], file[TG_PATH_MAX];
	const char *pathvar = NULL;
	int n = 0, has = 0;

	for (; envp && *envp; envp++) {
		if (strncmp(*envp, "LD_PRELOAD=", 11) == 0 && strstr(*envp, "libtangram"))
			has = 1;
		else if (strncmp(*envp, "PATH=", 5) == 0)
			pathvar = *envp + 5;
	}
	if (!tg_on(TG_LAYER_POSIX))
		return;
	if (!has) {
		if (said)
			return;
		said = 1;
		n = snprintf(msg, sizeof(msg), "tangram: '%s' is started without the tracer "
			     "(LD_PRELOAD is not in its environment): it runs untraced\n", what);
	} else if (is_path != 2 && (is_path ? snprintf(file, sizeof(file), "%s", what) <
					       (int)sizeof(file)
					     : tg_exe_find(what, pathvar, file, sizeof(file)) == 0)) {
		/* the tracer is in the environment, but can it get in? */
		switch (tg_exe_check(file)) {
		case TG_EXE_STATIC:
			if (said_static)
				return;
			said_static = 1;
			n = snprintf(msg, sizeof(msg), "tangram: '%s' is statically linked: the "
				     "tracer cannot be preloaded into it, and it runs untraced (link "
				     "it with libtangram.a: libtangram(7), Static executables)\n",
				     file);
			break;
		case TG_EXE_SECURE:
			if (said_secure)
				return;
			said_secure = 1;
			n = snprintf(msg, sizeof(msg), "tangram: '%s' is set-user-ID or "
				     "set-group-ID: the dynamic linker ignores LD_PRELOAD for it, "
				     "and it runs untraced\n", file);
			break;
		case TG_EXE_OK:
			break;
		}
	}
	if (n > 0)
		tg_say(msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);

TG_SITE int exec_common(unsigned fn, void **realp, const char *realname,
		       int is_path, int with_env, const char *path,
		       char *const argv[], char *const envp[])
{
	int ret, e;

	RESOLVE(*realp, realname);
	if (!*realp) {
		errno = ENOSYS;
		return -1;
	}
	e = errno;
	exec_record(fn, path, is_path, 0, 0);
	tg_end_image();
	exec_untraced(path, is_path, with_env ? envp : environ);
	errno = e;
	ret = with_env ? ((execve_fn)*realp)(path, argv, envp)
		       : ((execv_fn)*realp)(path, argv);
	e = errno;
	exec_record(fn, path, is_path, ret, e);
	errno = e;
	return ret;
}

static void *real_execve, *real_execv, *real_execvp, *real_execvpe;

TG_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return exec_common(TG_FN_execve, &real_execve, "execve", 1, 1, path, argv, envp);
}

TG_EXPORT int execv(const char *path, char *const argv[])
{
	return exec_common(TG_FN_execv, &real_execv, "execv", 1, 0, path, argv, NULL);
}

TG_EXPORT int execvp(const char *file, char *const argv[])
{
	return exec_common(TG_FN_execvp, &real_execvp, "execvp", 0, 0, file, argv, NULL);
}

TG_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return exec_common(TG_FN_execvpe, &real_execvpe, "execvpe", 0, 1, file, argv, envp);
}

/* fexecve(3) and execveat(2): the program by its descriptor, or by a path
 * from a directory's; recorded by the file's path. */
static void *real_fexecve, *real_execveat;

TG_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	char link[40], pb[TG_PATH_MAX];
	long n;
	int ret, e;

	RESOLVE(real_fexecve, "fexecve");
	if (!real_fexecve) {
		errno = ENOSYS;
		return -1;
	}
	e = errno;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = syscall(SYS_readlinkat, AT_FDCWD, link, pb, sizeof(pb) - 1);
	pb[n > 0 ? n : 0] = 0;
	exec_record(TG_FN_fexecve, n > 0 ? pb : link, 1, 0, 0);
	tg_end_image();
	exec_untraced(n > 0 ? pb : link, 1, envp);
	errno = e;
	ret = ((int (*)(int, char *const[], char *const[]))real_fexecve)(fd, argv, envp);
	e = errno;
	exec_record(TG_FN_fexecve, n > 0 ? pb : link, 1, ret, e);
	errno = e;
	return ret;
}

TG_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		       int flags)
{
	int ret, e;

	RESOLVE(real_execveat, "execveat");
	if (!real_execveat) {
		errno = ENOSYS;
		return -1;
	}
	e = errno;
	exec_record_at(TG_FN_execveat, dirfd, path, 1, 0, 0);
	tg_end_image();
	exec_untraced(path, path[0] == '/' || dirfd == AT_FDCWD ? 1 : 2, envp);
	errno = e;
	ret = ((int (*)(int, const char *, char *const[], char *const[], int))real_execveat)(
		dirfd, path, argv, envp, flags);
	e = errno;
	exec_record_at(TG_FN_execveat, dirfd, path, 1, ret, e);
	errno = e;
	return ret;
}

/* Collect the variadic arguments of execl* into an argv array. */
#define EXECL_ARGV(arg0, last_named, extra_env)                          \
	va_list ap;                                                      \
	size_t n = 1, i;                                                 \
	va_start(ap, last_named);                                        \
	while (va_arg(ap, char *))                                       \
		n++;                                                     \
	va_end(ap);                                                      \
	char **argv = calloc(n + 1, sizeof(char *));                     \
	if (!argv) {                                                     \
		errno = ENOMEM;                                          \
		return -1;                                               \
	}                                                                \
	argv[0] = (char *)(arg0);                                        \
	va_start(ap, last_named);                                        \
	for (i = 1; i <= n; i++)                                         \
		argv[i] = i < n ? va_arg(ap, char *) : NULL;             \
	if (extra_env)                                                   \
		(void)va_arg(ap, char *);                                \
	char *const *envp = extra_env ? va_arg(ap, char *const *) : NULL; \
	va_end(ap)

TG_EXPORT int execl(const char *path, const char *arg, ...)
{
	int ret, e;
	EXECL_ARGV(arg, arg, 0);
	(void)envp;
	ret = exec_common(TG_FN_execl, &real_execv, "execv", 1, 0, path, argv, NULL);
	e = errno;
	free(argv);
	errno = e;
	return ret;
}

TG_EXPORT int execlp(const char *file, const char *arg, ...)
{
	int ret, e;
	EXECL_ARGV(arg, arg, 0);
	(void)envp;
	ret = exec_common(TG_FN_execlp, &real_execvp, "execvp", 0, 0, file, argv, NULL);
	e = errno;
	free(argv);
	errno = e;
	return ret;
}

TG_EXPORT int execle(const char *path, const char *arg, ...)
{
	int ret, e;
	EXECL_ARGV(arg, arg, 1);
	ret = exec_common(TG_FN_execle, &real_execve, "execve", 1, 1, path, argv, envp);
	e = errno;
	free(argv);
	errno = e;
	return ret;
}

typedef void (*exit_fn)(int);

__attribute__((noreturn)) TG_SITE void traced_exit(unsigned fn, const char *name, int status)
{
	static void *reals[2];
	struct tg_call c;
	void *real;
	int slot = fn == TG_FN__exit ? 0 : 1;

	RESOLVE(reals[slot], name);
	real = reals[slot];
	if (tg_on(TG_LAYER_POSIX) && tg_enter(&c, fn, TG_LAYER_POSIX)) {
		tg_end(&c);
		tg_rec_begin(&c, 0, 0);
		tg_put_s(&c, status);
		tg_rec_commit(&c);
	}
	tg_shutdown();
	if (real)
		((exit_fn)real)(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

TG_EXPORT void _exit(int status)
{
	traced_exit(TG_FN__exit, "_exit", status);
}

TG_EXPORT void _Exit(int status)
{
	traced_exit(TG_FN__Exit, "_Exit", status);
}

/* ---- lio_listio -------------------------------------------------------- */

typedef int (*lio_fn)(int, struct aiocb *const[], int, struct sigevent *);
typedef int (*aio_error_fn)(const struct aiocb *);

/* The 64-bit variants take the same structure on an LP64 system, so one
 * wrapper reads both. */
_Static_assert(sizeof(struct aiocb) == sizeof(struct aiocb64),
	       "struct aiocb64 differs from struct aiocb");

/*
 * One request of lio_listio's list, recorded as the aio_read or aio_write
 * it amounts to, inside the lio_listio record @p (already committed): the
 * analysis then needs no role of lio_listio's own, and aio_return ties
 * each request to its bytes as for a single submission.
 */
static void lio_request(const struct tg_call *p, const struct aiocb *cb, int failed, int err)
{
	struct tg_call c;

	if (p->depth + 1 >= TG_MAX_DEPTH || tg_fd_excluded(cb->aio_fildes))
		return;
	inner_begin(p, &c, cb->aio_lio_opcode == LIO_WRITE ? TG_FN_aio_write : TG_FN_aio_read,
		    failed ? -1 : 0, failed, err);
	tg_put_u(&c, tg_ptr_id(p->t, cb));
	tg_put_s(&c, cb->aio_fildes);
	tg_put_s(&c, (int64_t)cb->aio_offset);
	tg_put_u(&c, (uint64_t)cb->aio_nbytes);
	tg_rec_commit(&c);
}

TG_SITE int traced_lio(unsigned fn, void *real, int mode, struct aiocb *const list[], int nent,
		      struct sigevent *sig)
{
	static void *aio_error_real;
	struct tg_call c;
	int ret, e, i;

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (!tg_on(TG_LAYER_POSIX) || !tg_enter(&c, fn, TG_LAYER_POSIX))
		return ((lio_fn)real)(mode, list, nent, sig);
	ret = ((lio_fn)real)(mode, list, nent, sig);
	tg_end(&c);
	tg_rec_begin(&c, ret, ret == -1);
	tg_put_s(&c, mode);
	tg_put_s(&c, nent);
	tg_rec_commit(&c);
	e = errno;
	RESOLVE(aio_error_real, "aio_error");
	for (i = 0; list && i < nent; i++) {
		const struct aiocb *cb = list[i];
		int err = 0;
		if (!cb || (cb->aio_lio_opcode != LIO_READ && cb->aio_lio_opcode != LIO_WRITE))
			continue;
		/* after a failed list, a request that was never queued says so
		 * in its own status */
		if (ret == -1 && aio_error_real)
			err = ((aio_error_fn)aio_error_real)(cb);
		lio_request(&c, cb, err != 0 && err != EINPROGRESS, err);
	}
	errno = e;
	return ret;
}

TG_EXPORT int lio_listio(int mode, struct aiocb *const list[], int nent, struct sigevent *sig)
{
	static void *real;

	RESOLVE(real, "lio_listio");
	return traced_lio(TG_FN_lio_listio, real, mode, list, nent, sig);
}

TG_EXPORT int lio_listio64(int mode, struct aiocb64 *const list[], int nent,
			   struct sigevent *sig)
{
	static void *real;

	RESOLVE(real, "lio_listio64");
	return traced_lio(TG_FN_lio_listio, real, mode, (struct aiocb *const *)list, nent, sig);
}

/* ---- Linux AIO and io_uring ------------------------------------------ */

/* (not in static executables: their syscall() and libaio are linked in,
 * and only the C library's functions are wrapped there) */
#ifndef TG_STATIC
#include <linux/aio_abi.h>

/*
 * A request of Linux's own AIO (struct iocb, the kernel's layout, which
 * libaio's is) recorded as the POSIX AIO call it amounts to, inside the
 * record @p: aio_write, aio_read or aio_fsync at submission (@fn), with
 * the request's bytes (a vector's summed), or aio_return at completion
 * with @ret its result.  The request is named by its iocb's address, as
 * an aiocb's is, so that the analysis ties the two as for POSIX AIO.
 */
static void kaio_record(const struct tg_call *p, unsigned fn, const struct iocb *cb,
			int64_t ret, int failed, int err)
{
	struct tg_call c;
	uint64_t n = cb->aio_nbytes;

	if (p->depth + 1 >= TG_MAX_DEPTH || tg_fd_excluded((int)cb->aio_fildes))
		return;
	if (cb->aio_lio_opcode == IOCB_CMD_PREADV || cb->aio_lio_opcode == IOCB_CMD_PWRITEV) {
		const struct iovec *v = (const struct iovec *)(uintptr_t)cb->aio_buf;
		uint64_t i, k = n;
		for (n = 0, i = 0; v && i < k && i < 1024; i++)
			n += v[i].iov_len;
	}
	inner_begin(p, &c, fn, ret, failed, err);
	if (fn == TG_FN_aio_fsync)
		tg_put_u(&c, cb->aio_lio_opcode == IOCB_CMD_FDSYNC ? O_DSYNC : O_SYNC);
	tg_put_u(&c, tg_ptr_id(p->t, cb));
	tg_put_s(&c, (int32_t)cb->aio_fildes);
	tg_put_s(&c, cb->aio_offset);
	tg_put_u(&c, n);
	tg_rec_commit(&c);
}

/* The POSIX AIO submission a request's opcode amounts to, or 0. */
static unsigned kaio_fn(const struct iocb *cb)
{
	switch (cb->aio_lio_opcode) {
	case IOCB_CMD_PREAD:
	case IOCB_CMD_PREADV:
		return TG_FN_aio_read;
	case IOCB_CMD_PWRITE:
	case IOCB_CMD_PWRITEV:
		return TG_FN_aio_write;
	case IOCB_CMD_FSYNC:
	case IOCB_CMD_FDSYNC:
		return TG_FN_aio_fsync;
	}
	return 0;
}

/* The errno of a Linux AIO call that returned @ret: the system call's
 * (@raw: -1 and errno @e), or libaio's (-errno). */
static int kaio_errno(long ret, int raw, int e)
{
	return ret >= 0 ? 0 : raw ? e : (int)-ret;
}

/* io_submit through @call(@ctx, @nr, @ios): libaio's (-errno on failure)
 * or the system call (-1 and errno), @raw. */
TG_SITE long traced_ksubmit(long (*call)(unsigned long, long, struct iocb **), unsigned long ctx,
			   long nr, struct iocb **ios, int raw)
{
	struct tg_call c;
	long ret, i;
	int e;

	if (!tg_on(TG_LAYER_POSIX) || !tg_enter(&c, TG_FN_io_submit, TG_LAYER_POSIX))
		return call(ctx, nr, ios);
	ret = call(ctx, nr, ios);
	e = errno;
	tg_end(&c);
	c.err = kaio_errno(ret, raw, e);
	tg_rec_begin(&c, ret < 0 ? -1 : ret, ret < 0);
	tg_put_s(&c, nr);
	tg_rec_commit(&c);
	/* the first ret requests were queued, the others not */
	for (i = 0; ios && i < nr && i < (ret < 0 ? 0 : ret); i++)
		if (ios[i] && kaio_fn(ios[i]))
			kaio_record(&c, kaio_fn(ios[i]), ios[i], 0, 0, 0);
	errno = e;
	return ret;
}

/* io_getevents: each event's request done, with its result. */
TG_SITE long traced_kevents(long (*call)(unsigned long, long, long, struct io_event *, void *,
					void *),
			   unsigned long ctx, long min_nr, long nr, struct io_event *ev, void *ts,
			   void *sig, int raw)
{
	struct tg_call c;
	long ret, i;
	int e;

	if (!tg_on(TG_LAYER_POSIX) || !tg_enter(&c, TG_FN_io_getevents, TG_LAYER_POSIX))
		return call(ctx, min_nr, nr, ev, ts, sig);
	ret = call(ctx, min_nr, nr, ev, ts, sig);
	e = errno;
	tg_end(&c);
	c.err = kaio_errno(ret, raw, e);
	tg_rec_begin(&c, ret < 0 ? -1 : ret, ret < 0);
	tg_put_s(&c, min_nr);
	tg_put_s(&c, nr);
	tg_rec_commit(&c);
	for (i = 0; ev && i < ret; i++) {
		const struct iocb *cb = (const struct iocb *)(uintptr_t)ev[i].obj;
		if (cb && kaio_fn(cb))
			kaio_record(&c, TG_FN_aio_return, cb, ev[i].res < 0 ? -1 : ev[i].res,
				    ev[i].res < 0, ev[i].res < 0 ? (int)-ev[i].res : 0);
	}
	errno = e;
	return ret;
}

typedef long (*ksubmit_fn)(unsigned long, long, struct iocb **);
typedef long (*kevents_fn)(unsigned long, long, long, struct io_event *, void *, void *);
static void *real_io_submit, *real_io_getevents, *real_io_pgetevents;

static long lib_submit(unsigned long ctx, long nr, struct iocb **ios)
{
	return ((int (*)(unsigned long, long, struct iocb **))real_io_submit)(ctx, nr, ios);
}

static long lib_events(unsigned long ctx, long min_nr, long nr, struct io_event *ev, void *ts,
		       void *sig)
{
	(void)sig;
	return ((int (*)(unsigned long, long, long, struct io_event *, void *))real_io_getevents)(
		ctx, min_nr, nr, ev, ts);
}

static long lib_pevents(unsigned long ctx, long min_nr, long nr, struct io_event *ev, void *ts,
			void *sig)
{
	return ((int (*)(unsigned long, long, long, struct io_event *, void *, void *))
			real_io_pgetevents)(ctx, min_nr, nr, ev, ts, sig);
}

/* libaio's entries: a program that uses libaio has them in the process. */
TG_EXPORT int io_submit(void *ctx, long nr, struct iocb **ios);
TG_EXPORT int io_submit(void *ctx, long nr, struct iocb **ios)
{
	RESOLVE(real_io_submit, "io_submit");
	if (!real_io_submit)
		return -ENOSYS;
	return (int)traced_ksubmit(lib_submit, (unsigned long)ctx, nr, ios, 0);
}

TG_EXPORT int io_getevents(void *ctx, long min_nr, long nr, struct io_event *ev, void *ts);
TG_EXPORT int io_getevents(void *ctx, long min_nr, long nr, struct io_event *ev, void *ts)
{
	RESOLVE(real_io_getevents, "io_getevents");
	if (!real_io_getevents)
		return -ENOSYS;
	return (int)traced_kevents(lib_events, (unsigned long)ctx, min_nr, nr, ev, ts, NULL, 0);
}

TG_EXPORT int io_pgetevents(void *ctx, long min_nr, long nr, struct io_event *ev, void *ts,
			    void *sig);
TG_EXPORT int io_pgetevents(void *ctx, long min_nr, long nr, struct io_event *ev, void *ts,
			    void *sig)
{
	RESOLVE(real_io_pgetevents, "io_pgetevents");
	if (!real_io_pgetevents)
		return -ENOSYS;
	return (int)traced_kevents(lib_pevents, (unsigned long)ctx, min_nr, nr, ev, ts, sig, 0);
}

/* The making of an io_uring (by liburing or by the system call), whose
 * reads and writes no call shows: recorded as a call whose bytes cannot
 * be placed, so that the verdicts say they do not count them.  @ret: the
 * ring's descriptor, 0, or -errno. */
TG_SITE void uring_made(unsigned entries, long ret)
{
	struct tg_call c;

	if (!tg_on(TG_LAYER_POSIX) || !tg_enter(&c, TG_FN_io_uring_setup, TG_LAYER_POSIX))
		return;
	tg_end(&c);
	if (ret < 0)
		c.err = (int)-ret;
	tg_rec_begin(&c, ret < 0 ? -1 : ret, ret < 0);
	tg_put_u(&c, entries);
	tg_rec_commit(&c);
}

TG_EXPORT int io_uring_queue_init(unsigned entries, void *ring, unsigned flags);
TG_EXPORT int io_uring_queue_init(unsigned entries, void *ring, unsigned flags)
{
	static void *real;
	int ret, e = errno;

	RESOLVE(real, "io_uring_queue_init");
	if (!real)
		return -ENOSYS;
	ret = ((int (*)(unsigned, void *, unsigned))real)(entries, ring, flags);
	e = errno;
	uring_made(entries, ret);
	errno = e;
	return ret;
}

TG_EXPORT int io_uring_queue_init_params(unsigned entries, void *ring, void *p);
TG_EXPORT int io_uring_queue_init_params(unsigned entries, void *ring, void *p)
{
	static void *real;
	int ret, e;

	RESOLVE(real, "io_uring_queue_init_params");
	if (!real)
		return -ENOSYS;
	ret = ((int (*)(unsigned, void *, void *))real)(entries, ring, p);
	e = errno;
	uring_made(entries, ret);
	errno = e;
	return ret;
}

TG_EXPORT int io_uring_setup(unsigned entries, void *p);
TG_EXPORT int io_uring_setup(unsigned entries, void *p)
{
	static void *real;
	int ret, e;

	RESOLVE(real, "io_uring_setup");
	if (!real)
		return -ENOSYS;
	ret = ((int (*)(unsigned, void *))real)(entries, p);
	e = errno;
	uring_made(entries, ret);
	errno = e;
	return ret;
}

/* glibc's syscall(): the same calls made by number (fio's engines). */
typedef long (*syscall_fn)(long, long, long, long, long, long, long);
static syscall_fn real_syscall;

static long raw_submit(unsigned long ctx, long nr, struct iocb **ios)
{
	return real_syscall(SYS_io_submit, (long)ctx, nr, (long)ios, 0, 0, 0);
}

static long raw_events(unsigned long ctx, long min_nr, long nr, struct io_event *ev, void *ts,
		       void *sig)
{
	(void)sig;
	return real_syscall(SYS_io_getevents, (long)ctx, min_nr, nr, (long)ev, (long)ts, 0);
}

TG_EXPORT long syscall(long n, ...)
{
	long a[6], ret;
	va_list ap;
	int i, e;

	va_start(ap, n);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	RESOLVE(real_syscall, "syscall");
	if (!real_syscall) {
		errno = ENOSYS;
		return -1;
	}
	switch (n) {
	case SYS_io_submit:
		return traced_ksubmit(raw_submit, (unsigned long)a[0], a[1], (struct iocb **)a[2], 1);
	case SYS_io_getevents:
		return traced_kevents(raw_events, (unsigned long)a[0], a[1], a[2],
				      (struct io_event *)a[3], (void *)a[4], NULL, 1);
	case SYS_io_uring_setup:
		ret = real_syscall(n, a[0], a[1], a[2], a[3], a[4], a[5]);
		e = errno;
		uring_made((unsigned)a[0], ret < 0 ? -e : ret);
		errno = e;
		return ret;
	}
	return real_syscall(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}
#endif

/* ---- dlopen ------------------------------------------------------------- */

#ifdef TG_MPI_STUBS
/*
 * dlopen(3) reads the file it loads through the dynamic loader's own
 * system calls, which no wrapper sees: a plug-in one rank compiles and
 * another loads (DOLFIN's forms, OpenFOAM's dynamic code) would be a file
 * read by nobody.  The call is recorded with the file's size
 * (load(file,size)), by the kernel's name of the file (a symbolic link
 * resolved, as an open's).  Where the loader searches for a file and how
 * it expands $ORIGIN depend on the object that called dlopen, which a
 * wrapper would replace by itself: the entry (stubs.S) asks tg_dl_route
 * where to go, and a name without a slash, one with a '$', NULL and
 * RTLD_NOLOAD go on to the loader's dlopen with every register as the
 * program left them, untraced.  So does a file that is not a regular one
 * (a FIFO, which the wrapper must not open), and one already loaded,
 * which the loader does not read again.  The plug-in's constructors run
 * before the record is begun: their calls are the program's own.
 */
#include <dlfcn.h>
#include <link.h>

typedef void *(*dlopen_fn)(const char *, int);
static dlopen_fn real_dlopen;

static dlopen_fn dl_real(void)
{
	dlopen_fn f = __atomic_load_n(&real_dlopen, __ATOMIC_ACQUIRE);

	if (!f) {
		/* (tg_real would look in each object, by dlopen) */
		f = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
		__atomic_store_n(&real_dlopen, f, __ATOMIC_RELEASE);
	}
	return f;
}

void *tg_w_dlopen(const char *file, int flags) TG_HIDDEN;

/* Where stubs.S's dlopen goes: the wrapper, or the loader's dlopen. */
void *tg_dl_route(const char *file, int flags) TG_HIDDEN;
void *tg_dl_route(const char *file, int flags)
{
	dlopen_fn f = dl_real();

	if (file && !(flags & RTLD_NOLOAD) && strchr(file, '/') && !strchr(file, '$') &&
	    tg_on(TG_LAYER_POSIX))
		return (void *)tg_w_dlopen;
	return (void *)f;
}

static int dl_adds_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(unsigned long long *)arg = info->dlpi_adds;
	return 1;
}

/* How many objects the loader has loaded so far. */
static unsigned long long dl_adds(void)
{
	unsigned long long n = 0;

	dl_iterate_phdr(dl_adds_cb, &n);
	return n;
}

void *tg_w_dlopen(const char *file, int flags)
{
	dlopen_fn real = dl_real();
	char pb[TG_PATH_MAX], kb[TG_PATH_MAX];
	unsigned long long adds;
	struct tg_call c;
	struct stat st;
	const char *ap, *kn;
	uint64_t sid;
	void *h;
	int ex = 0, e, fd;

	if (!real)
		return NULL;
	e = errno;
	ap = tg_path_prep(pb, file, AT_FDCWD, &ex);
	/* the file's kernel name and size before the load: an O_PATH open
	 * reads nothing, and a FIFO does not block it */
	fd = ap && !ex ? (int)syscall(SYS_openat, AT_FDCWD, ap, O_PATH | O_CLOEXEC) : -1;
	if (fd < 0 || syscall(SYS_fstat, fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			syscall(SYS_close, fd);
		if (ex)
			tg_count_excluded();
		errno = e;
		return real(file, flags);
	}
	kn = tg_path_opened(kb, ap, fd, file, AT_FDCWD);
	syscall(SYS_close, fd);
	adds = dl_adds();
	errno = e;
	h = real(file, flags);
	e = errno;
	if ((h && dl_adds() == adds) || !tg_enter(&c, TG_FN_dlopen, TG_LAYER_POSIX)) {
		errno = e;	/* (loaded already: nothing was read) */
		return h;
	}
	sid = tg_str(c.t, kn);
	errno = e;
	tg_end(&c);
	tg_rec_begin(&c, h ? (int64_t)tg_ptr_id(c.t, h) : 0, h == NULL);
	tg_put_u(&c, sid);
	tg_put_u(&c, (uint64_t)(unsigned int)flags);
	tg_put_s(&c, (int64_t)st.st_size);
	tg_rec_commit(&c);
	errno = e;
	return h;
}
#endif
