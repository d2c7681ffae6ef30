/*
 * faultinj.so - a test-only preload that makes the tracer's own I/O and
 * allocations fail, for tests/shim-fault.bats.  Loaded before the tracer,
 *
 *   LD_PRELOAD="build/helpers/faultinj.so lib/libtangram.so" prog
 *
 * it interposes syscall(2) -- the tracer makes every system call of its
 * own through it, so that the program's calls are never confused with the
 * tracer's -- and malloc, calloc and realloc, and acts only on calls made
 * from inside libtangram.so (by return address): the program's own calls
 * are never touched.  TG_FAULT=KIND[:N] says what fails, from the N-th
 * (default 1st) call of that kind on:
 *
 *   enospc   write, pwrite64, fallocate (reserving) and copy_file_range
 *            fail with ENOSPC, all of them from the N-th on, but for a
 *            pwrite64 inside the file's size (bytes overwritten in place
 *            need no space)
 *   eintr    every other write from the N-th fails with EINTR (transient)
 *   eagain   every other write from the N-th fails with EAGAIN (transient)
 *   short    every write from the N-th writes at most half its bytes
 *   stall    every write from the N-th fails with EAGAIN, and the waits
 *            for the descriptor to drain (ppoll) sleep out their timeout:
 *            a reader that never reads again
 *   mmap     every mmap from the N-th fails with ENOMEM
 *   nomem    every malloc, calloc and realloc from the N-th returns NULL
 *
 * Writes to descriptor 2 (the tracer's one warning) are never failed.
 * TG_FAULT_LOG=FILE appends one line per fault made, for tests to check
 * that the fault happened at all.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { F_NONE, F_ENOSPC, F_EINTR, F_EAGAIN, F_SHORT, F_STALL, F_MMAP, F_NOMEM };

static const char *const kinds[] = {
	"", "enospc", "eintr", "eagain", "short", "stall", "mmap", "nomem",
};

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static int kind = -1;		/* -1 until TG_FAULT is read */
static long from = 1;
static long count;		/* calls of the kind that fails, so far */
static uintptr_t shim_lo, shim_hi;	/* libtangram.so's code */
static long (*real_syscall)(long, ...);

static int find_shim(struct dl_phdr_info *info, size_t size, void *arg)
{
	int i;

	(void)size;
	(void)arg;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "libtangram"))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (!shim_lo || lo < shim_lo)
			shim_lo = lo;
		if (lo + ph->p_memsz > shim_hi)
			shim_hi = lo + ph->p_memsz;
	}
	return 1;
}

static void init(void)
{
	const char *s = getenv("TG_FAULT");
	int k;

	kind = F_NONE;
	if (!s)
		return;
	for (k = 1; k < (int)(sizeof(kinds) / sizeof(kinds[0])); k++) {
		size_t n = strlen(kinds[k]);

		if (strncmp(s, kinds[k], n) == 0 && (s[n] == 0 || s[n] == ':')) {
			kind = k;
			if (s[n] == ':')
				from = atol(s + n + 1);
			break;
		}
	}
	dl_iterate_phdr(find_shim, NULL);
}

static int from_shim(const void *ret)
{
	if (kind < 0)
		init();
	return kind != F_NONE && (uintptr_t)ret >= shim_lo && (uintptr_t)ret < shim_hi;
}

/* Count one call of the failing kind; is it one to fail? */
static int due(void)
{
	return ++count >= from;
}

/* Through the system call itself, never through open(2) or write(2),
 * which the tracer wraps and which would re-enter it. */
static void flog(const char *what)
{
	const char *log = getenv("TG_FAULT_LOG");
	char line[128];
	long fd;
	int n;

	if (!log || !real_syscall)
		return;
	fd = real_syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			  0666);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%s %s #%ld\n", kinds[kind], what, count);
	if (n > 0)
		real_syscall(SYS_write, fd, line, (size_t)n);
	real_syscall(SYS_close, fd);
}

static long fail(int e, const char *what)
{
	flog(what);
	errno = e;
	return -1;
}

/* A system call of the tracer's: @a its six arguments. */
static long shim_syscall(long nr, long *a)
{
	int is_write = nr == SYS_write && a[0] != 2;
	struct stat st;

	switch (kind) {
	case F_ENOSPC:
		if (nr == SYS_pwrite64 && real_syscall(SYS_fstat, a[0], &st) == 0 &&
		    a[3] + a[2] <= st.st_size)
			break;
		if ((is_write || nr == SYS_pwrite64 || nr == SYS_copy_file_range ||
		     (nr == SYS_fallocate && a[1] == 0)) && due())
			return fail(ENOSPC, "write");
		break;
	case F_EINTR:
	case F_EAGAIN:
		if (is_write && due() && (count - from) % 2 == 0)
			return fail(kind == F_EINTR ? EINTR : EAGAIN, "write");
		break;
	case F_SHORT:
		if (is_write && a[2] > 1 && due()) {
			flog("write");
			a[2] /= 2;
		}
		break;
	case F_STALL:
		if (is_write && due())
			return fail(EAGAIN, "write");
		if (nr == SYS_ppoll && count >= from) {
			const struct timespec *ts = (const struct timespec *)a[2];

			if (ts)
				nanosleep(ts, NULL);
			return 0;
		}
		break;
	case F_MMAP:
		if (nr == SYS_mmap && due())
			return fail(ENOMEM, "mmap");
		break;
	}
	return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

long syscall(long nr, ...)
{
	long a[6];
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real_syscall)
		real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (from_shim(__builtin_return_address(0)))
		return shim_syscall(nr, a);
	return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* Only once TG_FAULT has been read (by the constructor or the tracer's
 * first system call): reading it from inside the C library's own first
 * allocations is not safe. */
static int nomem_due(const void *ret)
{
	return kind == F_NOMEM && from_shim(ret) && due();
}

__attribute__((constructor)) static void faultinj_init(void)
{
	if (kind < 0)
		init();
	if (!real_syscall)
		real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
}

void *malloc(size_t n)
{
	if (nomem_due(__builtin_return_address(0))) {
		fail(ENOMEM, "malloc");
		return NULL;
	}
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	if (nomem_due(__builtin_return_address(0))) {
		fail(ENOMEM, "calloc");
		return NULL;
	}
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	if (nomem_due(__builtin_return_address(0))) {
		fail(ENOMEM, "realloc");
		return NULL;
	}
	return __libc_realloc(p, n);
}
