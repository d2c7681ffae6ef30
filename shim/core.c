/*
 * core.c - the tracer's machinery: start-up from the environment, per-thread
 * buffers, the sink, symbolic ids, paths, and surviving fork, exit and fatal
 * signals.
 *
 * The shim never calls a function it wraps (that would trace itself): its
 * own I/O goes through raw system calls.  When tracing cannot go on it warns
 * once on standard error and switches itself off; the program runs on.
 */
#include "wrap-prelude.h"
#include "../libcommon/runs.h"

#include <dlfcn.h>
#include <linux/close_range.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

int tg_state;
__thread int tg_initing;
int tg_ctor_started;
unsigned tg_layer_mask = (1u << TG_LAYER_COUNT) - 1;
int tg_nested;
int tg_info_on;
int tg_clock_sync;
int tg_fold = 1;
int tg_flush_always;
static int flush_buffered;	/* TANGRAM_FLUSH=buffered: never map the file */
uint64_t tg_mono_base;
_Atomic uint64_t tg_seq;
__thread struct tg_thread *tg_self __attribute__((tls_model("initial-exec")));

extern char **environ;

static uint64_t real_base;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_key_t thread_key;
/* Error-checking: a fork from a signal handler that interrupted the
 * tracer with one held (atfork_prepare) learns so instead of waiting for
 * itself. */
static pthread_mutex_t threads_mu = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static struct tg_thread *threads;
static _Atomic unsigned next_tid;
static _Atomic uint64_t next_str_id = 1;
static _Atomic uint64_t excluded_calls;
static _Atomic uint64_t unsafe_calls;	/* tg_count_unsafe */

/* The sink. */
static pthread_mutex_t sink_mu = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static void launch_run(void);
static int sink_fd = -1;
static int sink_is_pipe;
static int sink_may_break;	/* a pipe, fifo or socket: writes may raise SIGPIPE */
static int sink_in_dir;		/* a file we named in TANGRAM_DIR */
static int sink_mapped;		/* written through mapped windows, see below */
static uint64_t sink_end;	/* mapped: where the next window starts */
static uint64_t sink_used;	/* mapped: end of what retired windows hold */
static uint64_t sink_hdr_len;	/* mapped: the header's length */
static unsigned char hdr_copy[32768];	/* the header as last written */
static size_t hdr_copy_len;
static uint64_t win_align;	/* mapped: windows start at multiples of this,
				 * the page size (a multiple of TG_REC_PAD) */
static pid_t sink_child;
static char sink_name[TG_PATH_MAX];
static char trace_dir[TG_PATH_MAX];
static char sink_spec[TG_PATH_MAX];
static int my_rank = -1, my_world;
/* the run into TANGRAM_DIR (TANGRAM_RUN, set by trace-run): 1, 2, ... */
static unsigned my_run = 1;
static pid_t my_ppid;		/* taken at start: the header's may come late */
static pid_t fork_parent;
static int warned;
static dev_t err_dev;		/* what descriptor 2 was at start */
static ino_t err_ino;
static int err_known;

/* Exclusions: prefixes; a leading '!' re-includes. */
#define MAX_EXCL 32
static char excl[MAX_EXCL][256];
static size_t excl_len[MAX_EXCL];
static int excl_neg[MAX_EXCL];
static int nexcl;

static char cwd[TG_PATH_MAX];
static int cwd_valid;

#define FD_TRACKED 65536
static unsigned char fd_excl[FD_TRACKED / 8];

/* ---- raw system calls ------------------------------------------------ */

static uint64_t clock_ns(clockid_t id);

/* How long a write may wait for a reader that takes nothing: the sink of a
 * pipe or fifo is non-blocking, so a stalled or missing reader costs the
 * program this much once, then tracing stops (TANGRAM_SINK_TIMEOUT). */
static uint64_t stall_ns = 10000000000ull;

/* Wait until @fd takes data, until *@deadline (set on the first wait
 * since the last progress); -1 with ETIMEDOUT once it has passed. */
static int wait_writable(int fd, uint64_t *deadline)
{
	struct pollfd pf = { .fd = fd, .events = POLLOUT };
	struct timespec ts;
	uint64_t now = clock_ns(CLOCK_MONOTONIC), left;

	if (!*deadline)
		*deadline = now + stall_ns;
	if (now >= *deadline) {
		errno = ETIMEDOUT;
		return -1;
	}
	left = *deadline - now;
	ts.tv_sec = (time_t)(left / 1000000000u);
	ts.tv_nsec = (long)(left % 1000000000u);
	syscall(SYS_ppoll, &pf, 1, &ts, NULL, 0);
	return 0;
}

static long raw_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	uint64_t deadline = 0;

	while (n > 0) {
		long w = syscall(SYS_write, fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN && wait_writable(fd, &deadline) == 0)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
		deadline = 0;
	}
	return 0;
}

/* The tracer's own output must never kill the program: a write to a pipe
 * whose reader is gone raises SIGPIPE, and one that would take the trace
 * file past the process's file size limit (ulimit -f) raises SIGXFSZ.
 * Both are blocked around such a call and, if the call raised one that
 * was not pending before, taken back before they are unblocked; the call
 * fails with EPIPE or EFBIG instead. */
struct sighold {
	sigset_t old;
	int pipe_was, xfsz_was, ok;
};

static void sig_hold(struct sighold *h)
{
	sigset_t set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigaddset(&set, SIGXFSZ);
	h->ok = pthread_sigmask(SIG_BLOCK, &set, &h->old) == 0;
	h->pipe_was = h->xfsz_was = 1;
	if (h->ok && sigpending(&pending) == 0) {
		h->pipe_was = sigismember(&pending, SIGPIPE);
		h->xfsz_was = sigismember(&pending, SIGXFSZ);
	}
}

static void sig_release(struct sighold *h, long rc, int e)
{
	static const struct timespec zero;
	sigset_t one;
	int sig = 0;

	if (!h->ok)
		return;
	if (rc < 0 && e == EPIPE && !h->pipe_was)
		sig = SIGPIPE;
	else if (rc < 0 && e == EFBIG && !h->xfsz_was)
		sig = SIGXFSZ;
	if (sig) {
		sigemptyset(&one);
		sigaddset(&one, sig);
		while (sigtimedwait(&one, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &h->old, NULL);
	errno = e;
}

static long raw_write_nosig(int fd, const void *buf, size_t n)
{
	struct sighold h;
	long rc;

	sig_hold(&h);
	rc = raw_write_all(fd, buf, n);
	sig_release(&h, rc, errno);
	return rc;
}

/* fallocate(2) of the trace file, which may meet the file size limit too */
static long sink_fallocate(int mode, uint64_t off, uint64_t len)
{
	struct sighold h;
	long rc;

	sig_hold(&h);
	rc = syscall(SYS_fallocate, sink_fd, mode, (off_t)off, (off_t)len);
	sig_release(&h, rc, errno);
	return rc;
}

/* Whether the process has a file size limit now (the program may set one
 * at any time): the sink's writes may meet it. */
static int fsize_limited(void)
{
	struct rlimit rl;

	return syscall(SYS_prlimit64, 0, RLIMIT_FSIZE, NULL, &rl) != 0 ||
	       rl.rlim_cur != RLIM_INFINITY;
}

static long sink_raw_write(const void *buf, size_t n)
{
	return sink_may_break || fsize_limited() ? raw_write_nosig(sink_fd, buf, n)
						 : raw_write_all(sink_fd, buf, n);
}

/* Is descriptor 2 still the standard error the process started with?  A
 * program may have closed it and got the number back for a file of its own,
 * which a warning must not be written into. */
static int stderr_unchanged(void)
{
	struct stat st;

	return err_known && syscall(SYS_fstat, 2, &st) == 0 &&
	       st.st_dev == err_dev && st.st_ino == err_ino;
}

static void warn_once(const char *what, const char *subject, int err)
{
	char msg[TG_PATH_MAX + 256];
	int n;

	if (warned)
		return;
	warned = 1;
	if (!stderr_unchanged())
		return;
	if (err == ETIMEDOUT)
		n = snprintf(msg, sizeof(msg), "tangram: %s '%s': nothing read it "
			     "for %.3g s; tracing is off\n", what, subject,
			     (double)stall_ns / 1e9);
	else
		n = snprintf(msg, sizeof(msg), "tangram: %s '%s': %s; tracing is off\n",
			     what, subject, strerror(err));
	if (n > 0)
		raw_write_nosig(2, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
}

void tg_say(const char *msg, size_t n)
{
	if (stderr_unchanged())
		raw_write_nosig(2, msg, n);
}

/* The command of a '|' sink ended with status @st.  A command that failed
 * (its reader gone early, as '|false') lost the trace as surely as a
 * failed write, though every write went into the pipe: said once too. */
static void sink_child_ended(int st)
{
	char msg[TG_PATH_MAX + 256];
	int n;

	if (warned || (WIFEXITED(st) && WEXITSTATUS(st) == 0))
		return;
	warned = 1;
	if (!stderr_unchanged())
		return;
	if (WIFEXITED(st))
		n = snprintf(msg, sizeof(msg), "tangram: trace command '%s' exited "
			     "with status %d; the trace is incomplete\n",
			     sink_name + 1, WEXITSTATUS(st));
	else
		n = snprintf(msg, sizeof(msg), "tangram: trace command '%s' was "
			     "killed by signal %d; the trace is incomplete\n",
			     sink_name + 1, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	if (n > 0)
		raw_write_nosig(2, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
}

/* Tracing stops while the process goes on: a trace file says so in its
 * header's flags (TG_HDR_STOPPED, outside the header's CRC), so that no
 * reader takes the records it has for the whole run.  One byte written in
 * place, in a block the file already has: it needs no space. */
static void mark_stopped(void)
{
	struct stat st;
	unsigned char f;

	if (sink_fd < 0 || sink_is_pipe || sink_hdr_len <= TG_REC_MAGIC_LEN + 2 ||
	    syscall(SYS_fstat, sink_fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	f = (unsigned char)(hdr_copy[TG_REC_MAGIC_LEN + 2] | TG_HDR_STOPPED);
	(void)syscall(SYS_pwrite64, sink_fd, &f, (size_t)1, (off_t)(TG_REC_MAGIC_LEN + 2));
}

static void sink_fail(const char *what, int err)
{
	int e = errno;

	warn_once(what, sink_name[0] ? sink_name : sink_spec[0] ? sink_spec : trace_dir, err);
	mark_stopped();
	tg_state = 2;
	if (sink_fd >= 0 && !sink_is_pipe)
		syscall(SYS_close, sink_fd);
	else if (sink_fd >= 0)
		syscall(SYS_close, sink_fd);
	sink_fd = -1;
	errno = e;
}

/* ---- environment ------------------------------------------------------ */

static void parse_layers(const char *s)
{
	char name[32];
	unsigned mask = 0;

	while (*s) {
		size_t n = strcspn(s, ",: ");
		if (n > 0 && n < sizeof(name)) {
			int l;
			memcpy(name, s, n);
			name[n] = 0;
			l = tg_layer_parse(name);
			if (l >= 0)
				mask |= 1u << l;
		}
		s += n;
		s += strspn(s, ",: ");
	}
	tg_layer_mask = mask;
}

static void parse_exclude(const char *s)
{
	nexcl = 0;
	while (*s && nexcl < MAX_EXCL) {
		size_t n = strcspn(s, ",:");
		int neg = s[0] == '!';
		if (n > (size_t)neg && n - (size_t)neg < sizeof(excl[0])) {
			memcpy(excl[nexcl], s + neg, n - (size_t)neg);
			excl[nexcl][n - (size_t)neg] = 0;
			excl_len[nexcl] = n - (size_t)neg;
			while (excl_len[nexcl] > 1 &&
			       excl[nexcl][excl_len[nexcl] - 1] == '/')
				excl[nexcl][--excl_len[nexcl]] = 0;
			excl_neg[nexcl] = neg;
			nexcl++;
		}
		s += n;
		s += strspn(s, ",:");
	}
}

static int path_excluded(const char *p)
{
	size_t best = 0;
	int res = 0, i;

	for (i = 0; i < nexcl; i++) {
		size_t n = excl_len[i];
		if (strncmp(p, excl[i], n) == 0 &&
		    (p[n] == 0 || p[n] == '/' || (n == 1 && excl[i][0] == '/')) &&
		    n >= best) {
			best = n;
			res = !excl_neg[i];
		}
	}
	return res;
}

/* Launchers and helpers whose own I/O is not the application's. */
static int skipped_program(const char *list)
{
	const char *me = program_invocation_short_name, *p;
	size_t n = strlen(me);

	if (!list)
		list = "mpiexec,mpiexec.hydra,mpiexec.mpich,mpirun,mpirun.mpich,"
		       "hydra_pmi_proxy,mpiexec.openmpi,mpirun.openmpi,orterun,orted,"
		       "prterun,prted,srun";
	for (p = list; *p;) {
		size_t k = strcspn(p, ",:");
		if (k == n && strncmp(p, me, n) == 0)
			return 1;
		p += k;
		p += strspn(p, ",:");
	}
	return 0;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void thread_gone(void *arg);
static void install_signals(void);
static void atfork_prepare(void);
static void atfork_parent(void);
static void atfork_child(void);
static _Atomic int dir_cache_busy;	/* tg_path_dir */
static int sink_open(void);
static void sink_write(const void *buf, size_t n);
static void fold_write(struct tg_thread *t);

/* Standard descriptors inherited open on an excluded file (a shell's
 * "> /dev/null") are excluded like the ones the program opens. */
static void mark_inherited(void)
{
	char link[32], path[TG_PATH_MAX];
	long n;
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = syscall(SYS_readlinkat, AT_FDCWD, link, path, sizeof(path) - 1);
		if (n <= 0 || path[0] != '/')
			continue;
		path[n] = 0;
		tg_fd_set(fd, path_excluded(path));
	}
}

static void real_preload(void);

static void do_init(void)
{
	struct stat st;
	const char *s;

	real_preload();	/* first: the wrappers call them even untraced */
	if ((s = getenv("TANGRAM_OFF")) && *s && strcmp(s, "0") != 0) {
		tg_state = 2;
		return;
	}
	if (skipped_program(getenv("TANGRAM_SKIP"))) {
		tg_state = 2;
		return;
	}
	my_ppid = getppid();
	if (syscall(SYS_fstat, 2, &st) == 0) {
		err_dev = st.st_dev;
		err_ino = st.st_ino;
		err_known = 1;
	}
	tg_mono_base = clock_ns(CLOCK_MONOTONIC);
	real_base = clock_ns(CLOCK_REALTIME);
	if ((s = getenv("TANGRAM_LAYERS")) && *s)
		parse_layers(s);
	if ((s = getenv("TANGRAM_NESTED")))
		tg_nested = *s && strcmp(s, "0") != 0;
	if ((s = getenv("TANGRAM_INFO")))
		tg_info_on = *s && strcmp(s, "0") != 0;
	if ((s = getenv("TANGRAM_CLOCK_SYNC")))
		tg_clock_sync = *s && strcmp(s, "0") != 0;
	if ((s = getenv("TANGRAM_FOLD")))
		tg_fold = *s && strcmp(s, "0") != 0;
	if ((s = getenv("TANGRAM_FLUSH"))) {
		tg_flush_always = strcmp(s, "always") == 0;
		flush_buffered = strcmp(s, "buffered") == 0;
	}
	if ((s = getenv("TANGRAM_SINK_TIMEOUT")) && *s) {
		char *end;
		double sec = strtod(s, &end);
		if (end != s && !*end && sec >= 0 && sec < 1e9)
			stall_ns = sec > 0 ? (uint64_t)(sec * 1e9) : 1;
	}
	s = getenv("TANGRAM_EXCLUDE");
	parse_exclude(s ? s : "/proc,/sys,/dev,!/dev/shm");
	if ((s = getenv("TANGRAM_SINK")) && *s)
		snprintf(sink_spec, sizeof(sink_spec), "%s", s);
	if ((s = getenv("TANGRAM_RUN")) && *s) {
		char *end;
		unsigned long run = strtoul(s, &end, 10);
		if (end != s && !*end && *s != '-' && run >= 1 && run <= 1000000)
			my_run = (unsigned)run;
	}
	s = getenv("TANGRAM_DIR");
	if (!s || !*s)
		s = "tangram-trace";
	tg_path_prep(trace_dir, s, AT_FDCWD, &(int){ 0 });
	launch_run();
	if (pthread_key_create(&thread_key, thread_gone) != 0) {
		tg_state = 2;
		return;
	}
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	install_signals();
	mark_inherited();
	tg_state = 1;
}

static void do_init_guarded(void)
{
	tg_initing = 1;
	do_init();
	tg_initing = 0;
}

void tg_init(void)
{
	if (tg_initing)
		return;
	pthread_once(&init_once, do_init_guarded);
}

#ifndef TG_STATIC
struct in_main_arg {
	uintptr_t p;
	int in;
};

static int in_main_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct in_main_arg *a = arg;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && a->p >= lo && a->p < lo + ph->p_memsz)
			a->in = 1;
	}
	return 1;	/* (the program is the first object: no further) */
}

/* Is @p in the program itself (not a library)?  A program that takes a
 * function's address has it resolve to its own PLT entry (a canonical
 * one, Python's os module's fsync): no definition of its own. */
static int in_main(const void *p)
{
	struct in_main_arg a = { (uintptr_t)p, 0 };

	dl_iterate_phdr(in_main_cb, &a);
	return a.in;
}

/*
 * Another object first in the global scope for the calls the tracer
 * wraps (a library preloaded ahead of it: TangramFS's libtfs-posix.so,
 * eatmydata, Darshan): the program's calls reach it first, and the trace
 * has them only if it passes them on.  Said once, with the object and
 * the calls, so that a verdict on a trace that misses them is not taken
 * for the run's.
 */
static void say_interposers(void)
{
	static const char *const names[] = { "open", "openat", "read", "write", "pread",
					     "pwrite", "close", "fsync", "fdatasync", "lseek",
					     "fopen", "fwrite", "fread", "fclose", "fflush" };
	char msg[TG_PATH_MAX + 512];
	const char *first = NULL, *obj = NULL;
	Dl_info self, at;
	size_t i, n = 0;
	int len;

	if (!dladdr((void *)say_interposers, &self))
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *p = dlsym(RTLD_DEFAULT, names[i]);
		if (!p || !dladdr(p, &at) || at.dli_fbase == self.dli_fbase || in_main(p))
			continue;
		if (!obj) {
			obj = at.dli_fname && at.dli_fname[0] ? at.dli_fname : "a library";
			first = names[i];
		}
		n++;
	}
	dlerror();
	if (!n)
		return;
	len = snprintf(msg, sizeof(msg), "tangram: %s%s reach%s %s first, ahead of the tracer: "
		       "the trace has them only if it passes them on\n", first,
		       n > 1 ? " and other calls" : "", n > 1 ? "" : "es", obj);
	if (len > 0)
		tg_say(msg, (size_t)len < sizeof(msg) ? (size_t)len : sizeof(msg) - 1);
}
#endif

/*
 * Is the program a Go one?  Go makes its system calls itself, not through
 * the C library (even with cgo), so the tracer sees none of its I/O; its
 * linker puts a note named "Go" (the build id) in the program.
 */
static int go_note(struct dl_phdr_info *info, size_t size, void *arg)
{
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p, *end;
		if (ph->p_type != PT_NOTE)
			continue;
		p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + 12 <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)p;
			size_t nsz = (n->n_namesz + 3) & ~(size_t)3, dsz = (n->n_descsz + 3) & ~(size_t)3;
			if (n->n_namesz == 3 && p + 12 + 3 <= end && memcmp(p + 12, "Go", 3) == 0) {
				*(int *)arg = 1;
				return 1;
			}
			p += 12 + nsz + dsz;
		}
	}
	return 1;	/* (the program is the first object: no further) */
}

#ifndef TG_STATIC
/* In every copy of the tracer: the one first in the global scope is the
 * process's tracer (a program linked with libtangram-mpi.so run under
 * trace-run has two, and each wrote a whole stream of every call). */
TG_EXPORT const char tangram_tracer[] = "tangram";
#endif

__attribute__((constructor)) static void tg_ctor(void)
{
	int e = errno;	/* zero when main() starts (C11 7.5), whatever the
			 * tracer's own calls met (an existing trace directory) */

#ifndef TG_STATIC
	{
		/* (by the object: this copy's own references to the name go
		 * where the global scope's does) */
		const void *first = dlsym(RTLD_DEFAULT, "tangram_tracer");
		Dl_info fi, me;
		if (first && dladdr(first, &fi) && dladdr((void *)tg_ctor, &me) &&
		    fi.dli_fbase != me.dli_fbase) {
			/* another copy is the tracer: this one passes every
			 * call through, and says nothing (its calls reach the
			 * other first) */
			tg_state = 2;
			errno = e;
			return;
		}
	}
#endif
	tg_ctor_started = 1;
	tg_hooks_check();	/* a library loaded before may have patched */
	tg_init();
	if (tg_state == 1 && !tg_self)
		tg_thread_new();	/* the main thread is thread 0 */
	/* open the sink now, so that a trace that cannot be written is said
	 * while standard error is surely still open; a command sink waits for
	 * the first records (its %r may not be known yet) */
	if (tg_state == 1 && (!sink_spec[0] || sink_spec[0] != '|')) {
		pthread_mutex_lock(&sink_mu);
		if (sink_fd < 0)
			sink_open();
		pthread_mutex_unlock(&sink_mu);
	}
#ifndef TG_STATIC
	if (tg_state == 1)
		say_interposers();
	if (tg_state == 1)
		tg_h5_static_find();	/* HDF5 linked into the program */
#endif
	if (tg_state == 1) {
		int go = 0;
		dl_iterate_phdr(go_note, &go);
		if (go) {
			static const char msg[] = "tangram: a Go program makes its system calls "
						  "itself, not through the C library: the tracer "
						  "sees none of its I/O; tracing is off\n";
			tg_say(msg, sizeof(msg) - 1);
			warned = 1;
			pthread_mutex_lock(&sink_mu);
			mark_stopped();	/* its stream says it is not whole */
			tg_state = 2;
			pthread_mutex_unlock(&sink_mu);
		}
	}
	errno = e;
}

#ifdef TG_STATIC
/* A program linked with libtangram.a is traced without a preload: the
 * section tells trace-run and the exec wrappers so (libcommon/exe.h). */
__attribute__((used, section(".tangram"))) static const char tg_static_mark[] = "libtangram.a";

void *tg_real(const char *name, const char *ver)
{
	unsigned i;

	(void)ver;
	for (i = 0; i < tg_static_nreal; i++)
		if (strcmp(tg_static_real[i].name, name) == 0)
			return tg_static_real[i].fn;
	return tg_real_dyn ? tg_real_dyn(name) : NULL;
}

static void real_preload(void)
{
}
#else
/*
 * A library loaded out of the global scope (dlopen with RTLD_LOCAL: the
 * HDF5 that h5py's extension modules link, the MPI that mpi4py's does) is
 * not where RTLD_NEXT looks, though the program's calls into it reach the
 * tracer's wrappers, which come first in the global scope.  The real
 * definition is then looked for in each loaded object, by load order,
 * skipping the tracer's own (and whatever resolves to it).
 */
#define LOCAL_OBJS 512

struct objnames {
	char *name[LOCAL_OBJS];
	int n;
};

static int collect_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct objnames *o = arg;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0] && o->n < LOCAL_OBJS &&
	    (o->name[o->n] = strdup(info->dlpi_name)))
		o->n++;
	return 0;
}

static void *real_local(const char *name)
{
	struct objnames o;
	Dl_info self, at;
	void *p = NULL, *h;
	int i;

	if (!dladdr((void *)real_local, &self))
		return NULL;
	o.n = 0;
	dl_iterate_phdr(collect_obj, &o);	/* no dlopen while it holds the lock */
	for (i = 0; i < o.n; i++) {
		if (!p && (h = dlopen(o.name[i], RTLD_LAZY | RTLD_NOLOAD))) {
			void *q = dlsym(h, name);
			if (q && dladdr(q, &at) && at.dli_fbase != self.dli_fbase)
				p = q;
			dlclose(h);	/* the reference NOLOAD took */
		}
		free(o.name[i]);
	}
	return p;
}

/*
 * The real POSIX and stdio functions, looked up when the tracer starts:
 * glibc frees the thread's dlerror() message at every dl* call, so a
 * lookup at a wrapper's first call (the program's first fprintf, after a
 * failed dlopen and before it prints dlerror()) would take the message
 * away from the program.
 */
static struct realfn {
	const char *name, *ver;
	void *fn;
} realfns[] = {
#define TG_REALNAME(name, ver) { name, ver, NULL },
#include "realnames.gen.h"
#undef TG_REALNAME
	{ "ftello64", NULL, NULL },	/* (hand.c's stream positions) */
	{ "sigaction", NULL, NULL },	/* (hand.c's) */
	{ "signal", NULL, NULL },
	{ "syscall", NULL, NULL },	/* (hand.c's: the tracer's own calls go
					 * through it, in signal handlers too) */
	{ "io_pgetevents", NULL, NULL },	/* (recorded as io_getevents) */
	{ "io_uring_queue_init", NULL, NULL },	/* (as io_uring_setup) */
	{ "io_uring_queue_init_params", NULL, NULL },
};

static void *real_lookup(const char *name, const char *ver)
{
	void *p = ver ? dlvsym(RTLD_NEXT, name, ver) : NULL;

	return p ? p : dlsym(RTLD_NEXT, name);
}

static void real_preload(void)
{
	size_t i;

	for (i = 0; i < sizeof(realfns) / sizeof(realfns[0]); i++)
		realfns[i].fn = real_lookup(realfns[i].name, realfns[i].ver);
	dlerror();	/* (the names this glibc does not have) */
}

void *tg_real(const char *name, const char *ver)
{
	void *p;
	size_t i;

	for (i = 0; i < sizeof(realfns) / sizeof(realfns[0]); i++)
		if (realfns[i].fn && strcmp(realfns[i].name, name) == 0 &&
		    (ver ? realfns[i].ver && strcmp(realfns[i].ver, ver) == 0 : !realfns[i].ver))
			return realfns[i].fn;
	p = real_lookup(name, ver);
	return p ? p : real_local(name);
}
#endif

/* ---- the sink ---------------------------------------------------------- */

static void expand(char *out, size_t cap, const char *spec)
{
	size_t o = 0;
	const char *p;

	for (p = spec; *p && o + 24 < cap; p++) {
		if (*p == '%' && (p[1] == 'r' || p[1] == 'p' || p[1] == '%')) {
			p++;
			if (*p == '%')
				out[o++] = '%';
			else if (*p == 'r' && my_rank >= 0)
				o += (size_t)snprintf(out + o, cap - o, "%d", my_rank);
			else if (*p == 'r')
				o += (size_t)snprintf(out + o, cap - o, "pid-%d", (int)getpid());
			else
				o += (size_t)snprintf(out + o, cap - o, "%d", (int)getpid());
		} else {
			out[o++] = *p;
		}
	}
	out[o] = 0;
}

/* What a stream's name in TANGRAM_DIR has before ".rec": nothing for the
 * first run, ".runN" for run N, so that a later run leaves the earlier
 * ones' streams in place. */
static void run_suffix(char *out, size_t cap)
{
	if (my_run > 1)
		snprintf(out, cap, ".run%u", my_run);
	else if (cap)
		out[0] = 0;
}

/* ---- which run a launch is ------------------------------------------- */


/* When process @pid started, CLOCK_REALTIME ns rounded down to the clock
 * tick, 0 if unknown (field 22 of /proc/PID/stat, ticks since boot). */
static uint64_t started_at(pid_t pid)
{
	char path[64], buf[1024], *p;
	struct timespec rt, bt;
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK), n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || hz <= 0)
		return 0;
	n = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
	syscall(SYS_close, fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (!(p = strrchr(buf, ')')))	/* the command may hold anything */
		return 0;
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1 ||
	    clock_gettime(CLOCK_REALTIME, &rt) < 0 || clock_gettime(CLOCK_BOOTTIME, &bt) < 0)
		return 0;
	return (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec -
	       ((uint64_t)bt.tv_sec * 1000000000u + (uint64_t)bt.tv_nsec) +
	       ticks * (1000000000u / (uint64_t)hz);
}

/* The clock base in the header of stream @path, 0 if it cannot be read
 * or the stream is not an MPI rank's. */
static uint64_t stream_clock_base(const char *path)
{
	unsigned char h[256];
	const unsigned char *p, *end;
	uint64_t v[3];
	long n;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC), i;

	if (fd < 0)
		return 0;
	n = syscall(SYS_pread64, fd, h, sizeof(h), (off_t)0);
	syscall(SYS_close, fd);
	if (n < 32 || memcmp(h, TG_REC_MAGIC, TG_REC_MAGIC_LEN) != 0 ||
	    (int32_t)tg_get_le32(h + TG_REC_RANK_OFFSET) < 0)
		return 0;
	/* pid, ppid, clock base: varints after the fixed fields */
	p = h + ((h[8] | h[9] << 8) >= 2 ? 28 : 24);
	end = h + n;
	for (i = 0; i < 3; i++)
		if (tg_get_uvar(&p, end, &v[i]) < 0)
			return 0;
	return v[2];
}

/*
 * Under trace-run (TANGRAM_RUN_AUTO), a rank of a parallel launch takes
 * the run after the last one whose ranks' streams are in the directory
 * from before its launch, and at least the one it was given: a job
 * script's second mpirun under one trace-run is run 2, not run 1 again
 * (whose streams it replaced, rank by rank).  The launch's ranks agree:
 * every rank of an earlier launch started before this launch's agent on
 * this node (the rank's parent) did, every rank of this one after.  Two
 * launches at once may take one run; verify-io then says so.
 */
/* The last run whose ranks' streams are in the trace directory and began
 * before @since (a CLOCK_REALTIME time), above @last. */
static unsigned long runs_before(uint64_t since, unsigned long last)
{
	char name[TG_PATH_MAX + 300], buf[8192];
	unsigned long k;
	long n, at;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, trace_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return last;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (at = 0; at < n; at += ((struct dirent64 *)(buf + at))->d_reclen) {
			const char *e = ((struct dirent64 *)(buf + at))->d_name;
			uint64_t base;
			if ((k = tg_run_of_name(e)) <= last || k >= 1000000 ||
			    strncmp(e, "rank-", 5) != 0 ||
			    (size_t)snprintf(name, sizeof(name), "%s/%s", trace_dir, e) >= sizeof(name))
				continue;
			base = stream_clock_base(name);
			if (base && base < since)
				last = k;	/* an earlier launch's */
		}
	syscall(SYS_close, fd);
	return last;
}

/* A process under trace-run that no launcher started: should it call
 * MPI_Init, it is a launch of its own (a singleton: a checker such as
 * ncmpidump run after an mpirun, an mpi4py script), whose run is the one
 * after those begun before it; its header's run is written wide, to be
 * rewritten then (tg_set_rank). */
static int run_singleton;

/* Started by a launcher of more than one process (its rank and size in
 * the environment): should its MPI_Init make it a world of one all the
 * same (a launcher of another MPI library: hydra starting an Open MPI
 * program, or Open MPI's an MPICH one), each such process is a singleton
 * of its own, started at the same time as the others (tg_set_rank). */
static int run_launched_many;

static void launch_run(void)
{
	static const char *const vars[] = { "PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK" };
	static const char *const sizes[] = { "PMI_SIZE", "OMPI_COMM_WORLD_SIZE" };
	char buf[32];
	const char *s = getenv("TANGRAM_RUN_AUTO");
	unsigned long last;
	uint64_t since;
	size_t i;
	int rank = -1;

	if (!s || !*s || strcmp(s, "0") == 0 || sink_spec[0])
		return;
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]) && rank < 0; i++)
		if ((s = getenv(vars[i])) && *s >= '0' && *s <= '9')
			rank = atoi(s);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && rank >= 0; i++)
		if ((s = getenv(sizes[i])) && *s >= '0' && *s <= '9' && atol(s) > 1)
			run_launched_many = 1;
	if (rank < 0) {
		run_singleton = 1;
		return;
	}
	if (!(since = started_at(getppid())))
		return;
	last = runs_before(since, 0);
	if (last + 1 > my_run)
		my_run = (unsigned)(last + 1);
	/* the processes the rank starts (a shell of system(), which has its
	 * launch variables too, but started after the other ranks) are of
	 * this run: they are told, and look no further */
	if (my_run > 1) {	/* (run 1 is the default: nothing to add) */
		snprintf(buf, sizeof(buf), "%u", my_run);
		setenv("TANGRAM_RUN", buf, 1);
	}
	setenv("TANGRAM_RUN_AUTO", "0", 1);
}

static int mkdirs(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (syscall(SYS_mkdir, path, 0777) < 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	if (syscall(SYS_mkdir, path, 0777) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

static int spawn_sink(const char *cmd)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	char **env;
	int pfd[2], n = 0, i, rc;

	if (syscall(SYS_pipe2, pfd, O_CLOEXEC) < 0)
		return -1;
	while (environ && environ[n])
		n++;
	env = calloc((size_t)n + 2, sizeof(char *));
	if (!env)
		return -1;
	for (i = 0; i < n; i++)
		env[i] = environ[i];
	env[n] = "TANGRAM_OFF=1";
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[0], 0);
	rc = posix_spawn(&sink_child, "/bin/sh", &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	syscall(SYS_close, pfd[0]);
	if (rc != 0) {
		syscall(SYS_close, pfd[1]);
		errno = rc;
		return -1;
	}
	sink_is_pipe = 1;
	return pfd[1];
}

static int read_cmdline(char *buf, size_t cap)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/cmdline",
			      O_RDONLY | O_CLOEXEC);
	long n, got = 0;

	if (fd < 0)
		return 0;
	while ((size_t)got < cap &&
	       (n = syscall(SYS_read, fd, buf + got, cap - (size_t)got)) > 0)
		got += n;
	syscall(SYS_close, fd);
	return (int)got;
}

/* The header, kept as written (hdr_copy) for tg_set_rank() to patch with
 * its CRC. */
static int write_header(unsigned flags)
{
	static char cmd[16384];
	unsigned char *hb = hdr_copy;
	char *argv[256];
	struct tg_header h;
	struct utsname u;
	int n, i, argc = 0;
	size_t len;

	memset(&h, 0, sizeof(h));
	h.flags = flags;
	h.rank = my_rank;
	h.world = (uint64_t)my_world;
	h.pid = (uint64_t)getpid();
	h.ppid = (uint64_t)my_ppid;
	h.clock_base = real_base;
	h.run = my_run;
	h.run_wide = run_singleton || run_launched_many;
	h.host = uname(&u) == 0 ? u.nodename : "";
	if (!cwd_valid)
		tg_cwd_changed();
	h.cwd = cwd;
	n = read_cmdline(cmd, sizeof(cmd) - 1);
	cmd[n] = 0;
	for (i = 0; i < n && argc < 256; i += (int)strlen(cmd + i) + 1)
		argv[argc++] = cmd + i;
	h.argc = argc;
	h.argv = argv;
	len = tg_header_encode(&h, hb, sizeof(hdr_copy));
	if (len == 0) {
		h.argc = 0;
		len = tg_header_encode(&h, hb, sizeof(hdr_copy));
	}
	hdr_copy_len = len;
	if (sink_raw_write(hb, len) < 0)
		return -1;
	return (int)len;
}

/* A copy of the tracer's descriptor @fd near the top of the descriptor
 * table, close-on-exec, so that the program's own open() calls get the
 * numbers they would get untraced; where the program has taken the top,
 * further down in steps that double.  -1 if there is no room at all. */
static int fd_dup_high(int fd)
{
	struct rlimit rl;
	long top, base, step, nfd;

	if (syscall(SYS_getrlimit, RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < 64)
		return (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
	top = (long)(rl.rlim_cur > 65536 ? 65536 : rl.rlim_cur);
	for (step = 32;; step *= 2) {
		base = top - step > 3 ? top - step : 3;
		nfd = syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, base);
		if (nfd >= 0 || errno != EMFILE || base == 3)
			return (int)nfd;
	}
}

/* Move the tracer's descriptor @fd out of the way (fd_dup_high). */
static int fd_move_high(int fd)
{
	int nfd = fd_dup_high(fd);

	if (nfd < 0)
		return fd;
	syscall(SYS_close, fd);
	return nfd;
}

/* Open the sink; called with sink_mu held. */
static int sink_open(void)
{
	char spec[TG_PATH_MAX];
	struct rlimit rl;
	int i;

	/* a descriptor table so small that the tracer's descriptor would be
	 * one the program misses (ulimit -n 4: its first open fails) */
	if (syscall(SYS_getrlimit, RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 64) {
		sink_fail("a descriptor limit under 64 leaves none the program would not miss "
			  "for the trace", EMFILE);
		return -1;
	}
	if (sink_spec[0]) {
		expand(spec, sizeof(spec), sink_spec);
		if (spec[0] == '|') {
			snprintf(sink_name, sizeof(sink_name), "%s", spec);
			sink_fd = spawn_sink(spec + 1);
		} else {
			snprintf(sink_name, sizeof(sink_name), "%s", spec);
			/* read access too, to map it; a file open to writing
			 * only is written with write() */
			sink_fd = (int)syscall(SYS_openat, AT_FDCWD, spec,
					       O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
					       0666);
			if (sink_fd < 0 && (errno == EACCES || errno == EISDIR ||
					    errno == EROFS))
				sink_fd = (int)syscall(SYS_openat, AT_FDCWD, spec,
						       O_WRONLY | O_CREAT | O_TRUNC |
						       O_CLOEXEC, 0666);
		}
		if (sink_fd < 0) {
			sink_fail("cannot open trace sink", errno);
			return -1;
		}
	} else {
		snprintf(spec, sizeof(spec), "%s", trace_dir);
		if (mkdirs(spec) < 0) {
			snprintf(sink_name, sizeof(sink_name), "%s", trace_dir);
			sink_fail("cannot create trace directory", errno);
			return -1;
		}
		for (i = 0; i < 1000; i++) {
			int flags = O_RDWR | O_CREAT | O_CLOEXEC;
			char run[24];
			run_suffix(run, sizeof(run));
			if (my_rank >= 0 && i == 0)
				snprintf(sink_name, sizeof(sink_name), "%s/rank-%d%s.rec",
					 trace_dir, my_rank, run);
			else if (i == 0)
				snprintf(sink_name, sizeof(sink_name), "%s/pid-%d%s.rec",
					 trace_dir, (int)getpid(), run);
			else
				snprintf(sink_name, sizeof(sink_name), "%s/pid-%d.%d%s.rec",
					 trace_dir, (int)getpid(), i, run);
			flags |= my_rank >= 0 && i == 0 ? O_TRUNC : O_EXCL;
			sink_fd = (int)syscall(SYS_openat, AT_FDCWD, sink_name, flags,
					       0666);
			if (sink_fd >= 0 || errno != EEXIST)
				break;
		}
		if (sink_fd < 0) {
			sink_fail("cannot create trace file", errno);
			return -1;
		}
		sink_in_dir = 1;
	}
	sink_fd = fd_move_high(sink_fd);
	{
		struct stat st;
		int regular = !sink_is_pipe &&
			syscall(SYS_fstat, sink_fd, &st) == 0 && S_ISREG(st.st_mode);
		sink_may_break = sink_is_pipe ||
			(!regular && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)));

		/* the description is the tracer's own (a fifo opened here,
		 * the write end of the command's pipe): waits are bounded
		 * in raw_write_all() instead */
		if (sink_may_break)
			syscall(SYS_fcntl, sink_fd, F_SETFL,
				syscall(SYS_fcntl, sink_fd, F_GETFL) | O_NONBLOCK);
		/* a regular file the file system can reserve space in is
		 * written through mapped windows */
		long pg = sysconf(_SC_PAGESIZE);
		win_align = pg > TG_REC_PAD ? (uint64_t)pg : TG_REC_PAD;
		sink_mapped = regular && !tg_flush_always && !flush_buffered &&
			(syscall(SYS_fcntl, sink_fd, F_GETFL) & O_ACCMODE) == O_RDWR &&
			sink_fallocate(0, 0, win_align) == 0;
	}
	{
		/* a stream whose records wait in buffers ends in an END
		 * record; one written record by record (TANGRAM_FLUSH=always)
		 * loses none when killed, nor does a windowed one, whose
		 * compacted copy ends in one (sink_compact) */
		int n = write_header(sink_mapped ? TG_HDR_WINDOWED | TG_HDR_ENDS :
				     tg_flush_always ? 0 : TG_HDR_ENDS);
		if (n < 0) {
			sink_fail("cannot write trace to", errno);
			return -1;
		}
		sink_used = sink_hdr_len = (uint64_t)n;
		sink_end = ((uint64_t)n + win_align - 1) & ~(uint64_t)(win_align - 1);
	}
	return 0;
}

/*
 * Mapped windows.  A trace that is a regular file is not written with
 * write(): each thread claims a window of the file (TG_BUF_SIZE bytes, more
 * for a record that needs more), reserves its blocks with fallocate(), maps
 * it shared and stores its records there directly.  A record is in the
 * file's page cache the moment its length word is stored, so a process that
 * is killed outright (SIGKILL, or by mpiexec after another rank's
 * MPI_Abort) still leaves every record it completed.  Each window opens with
 * a TG_REC_WINDOW frame giving its size; what a window does not use is left
 * zero, and a reader skips zeros to the window's end (tangram-rec(5)).
 * Windows start on page boundaries.  Called with sink_mu held.
 */
static unsigned char discard_buf[4u << 20];

/* What retired windows hold, for sink_compact(): the records of each,
 * without its TG_REC_WINDOW frame.  NULL after an allocation failed, and
 * then the stream stays as it is. */
struct extent {
	uint64_t off, len;
	const unsigned char *tail;	/* the last ntail bytes, which no CHECK */
	size_t ntail;			/* frame closes yet (a busy thread's) */
};
static struct extent *extents;
static size_t nextents, capextents;
static int extents_lost;

/* The records of @t's window up to @len. */
static void extent_put(struct tg_thread *t, size_t len)
{
	unsigned char tmp[16];
	uint64_t skip = 6 + (uint64_t)(tg_put_uvar(tmp, t->cap) - tmp) +
			TG_REC_CHECK_LEN;

	if (extents_lost || len <= skip)
		return;
	if (nextents == capextents) {
		size_t nc = capextents ? capextents * 2 : 64;
		struct extent *ne = realloc(extents, nc * sizeof(*ne));
		if (!ne) {
			extents_lost = 1;
			return;
		}
		extents = ne;
		capextents = nc;
	}
	extents[nextents].off = t->win_off + skip;
	extents[nextents].len = len - skip;
	extents[nextents].tail = NULL;
	extents[nextents].ntail = 0;
	nextents++;
}

static void extent_add(struct tg_thread *t)
{
	extent_put(t, t->len);
}

/*
 * At a clean exit, the window of a thread still inside a traced call (a
 * helper thread blocked in a read, say): its records up to now, for
 * sink_compact() to copy and close with a CHECK frame of its own, without
 * writing into a window the thread may still write to.  The thread only
 * ever appends past its len, and takes sink_mu (held) before it leaves the
 * window.  -1 if it sealed meanwhile (then the stream stays as it is).
 */
static int extent_busy(struct tg_thread *t)
{
	size_t len = __atomic_load_n(&t->len, __ATOMIC_ACQUIRE);
	size_t sealed = __atomic_load_n(&t->sealed, __ATOMIC_ACQUIRE);
	size_t n = nextents;

	if (__atomic_load_n(&t->len, __ATOMIC_ACQUIRE) != len || sealed > len)
		return -1;
	extent_put(t, len);
	if (nextents > n && len > sealed) {
		extents[n].tail = t->buf + sealed;
		extents[n].ntail = len - sealed;
	}
	return 0;
}

/* Close the chunk of @t's window: a CHECK frame after its last record
 * (room for it is kept, TG_SEAL_ROOM), with the CRC of the records since
 * the last one.  Only by the thread itself: another may be writing. */
static void window_seal(struct tg_thread *t)
{
	unsigned char *end;

	if (t->kind != TG_BUF_WINDOW || t->len <= t->sealed)
		return;
	end = tg_check_put(t->buf + t->len, t->buf + t->sealed, t->len - t->sealed);
	/* sealed first: a fatal signal between the two must not close the
	 * CHECK frame itself in a chunk of its own (on_fatal) */
	t->sealed = (size_t)(end - t->buf);
	t->len = t->sealed;
	t->flush_at = tg_now() + TG_FLUSH_EVERY;
}

static void window_retire(struct tg_thread *t)
{
	uint64_t used, from;

	if (t == tg_self)
		window_seal(t);
	used = t->win_off + t->len;
	extent_add(t);

	if (used > sink_used)
		sink_used = used;
	from = (used + win_align - 1) & ~(uint64_t)(win_align - 1);
	if (sink_fd >= 0 && from < t->win_off + t->cap)
		syscall(SYS_fallocate, sink_fd,
			FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)from,
			(off_t)(t->win_off + t->cap - from));
	syscall(SYS_munmap, t->buf, t->cap);
	t->buf = NULL;
	t->cap = 0;
	t->len = 0;
	t->kind = TG_BUF_NONE;
}

static int window_claim(struct tg_thread *t, size_t need)
{
	size_t size = (TG_RESERVE + TG_SEAL_ROOM + need + 64 + TG_BUF_SIZE - 1) &
		      ~(size_t)(TG_BUF_SIZE - 1);
	uint64_t off = sink_end;
	unsigned char *p, *q;
	long m;

	if (sink_fallocate(0, off, size) < 0) {
		sink_fail("cannot write trace to", errno);
		return -1;
	}
	m = syscall(SYS_mmap, NULL, size, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, sink_fd, (off_t)off);
	if (m == -1) {
		sink_fail("cannot map trace file", errno);
		return -1;
	}
	sink_end = off + size;
	p = (unsigned char *)m;
	t->buf = p;
	t->cap = size;
	t->win_off = off;
	t->kind = TG_BUF_WINDOW;
	q = p + 4;
	*q++ = TG_REC_WINDOW;
	q = tg_put_uvar(q, size);
	q = tg_frame_close(p, q);
	/* the WINDOW frame is a chunk of its own: compaction drops both */
	t->sealed = t->len = (size_t)(tg_check_put(q, p, (size_t)(q - p)) - p);
	t->flush_at = tg_now() + TG_FLUSH_EVERY;
	return 0;
}

/* Release @t's buffer: write out or retire what it holds.  sink_mu held. */
static void buffer_release(struct tg_thread *t)
{
	if (t->kind == TG_BUF_WINDOW)
		window_retire(t);
	else if (t->kind == TG_BUF_HEAP) {
		sink_write(t->buf, t->len);
		free(t->buf);
	}
	t->buf = NULL;
	t->cap = 0;
	t->len = 0;
	t->kind = TG_BUF_NONE;
}

/* Tracing is off: records go nowhere, but the caller still writes one. */
static void use_discard(struct tg_thread *t, size_t need)
{
	if (t->kind != TG_BUF_DISCARD)
		buffer_release(t);
	t->flush_at = UINT64_MAX;
	t->kind = TG_BUF_DISCARD;
	t->len = 0;
	if (TG_RESERVE + need <= sizeof(discard_buf)) {
		t->buf = discard_buf;
		t->cap = sizeof(discard_buf);
	} else {
		long m = syscall(SYS_mmap, NULL, TG_RESERVE + need,
				 PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == -1)
			abort();	/* no memory for even one record */
		t->buf = (unsigned char *)m;	/* never freed: tracing is over */
		t->cap = TG_RESERVE + need;
	}
}

void tg_make_room(struct tg_thread *t, size_t need)
{
	int e = errno;

	t->guard++;
	pthread_mutex_lock(&sink_mu);
	if (tg_state == 1 && sink_fd < 0 && sink_spec[0] != '|')
		sink_open();
	if (tg_state != 1) {
		use_discard(t, need);
	} else if (sink_mapped) {
		if (t->kind == TG_BUF_WINDOW)
			window_retire(t);
		if (window_claim(t, need) < 0)
			use_discard(t, need);
	} else {
		size_t want = TG_RESERVE + need;
		if (t->kind == TG_BUF_HEAP)
			sink_write(t->buf, t->len);
		t->len = 0;
		if (want < TG_BUF_SIZE)
			want = TG_BUF_SIZE;
		if (t->kind != TG_BUF_HEAP || t->cap < want) {
			unsigned char *nb = t->kind == TG_BUF_HEAP ?
				realloc(t->buf, want) : malloc(want);
			if (!nb) {
				sink_fail("no memory for the trace buffer of", ENOMEM);
				use_discard(t, need);
			} else {
				if (t->kind != TG_BUF_HEAP)
					t->flush_at = tg_now() + TG_FLUSH_EVERY;
				t->buf = nb;
				t->cap = want;
				t->kind = TG_BUF_HEAP;
			}
		}
		if (tg_state != 1)
			use_discard(t, need);
	}
	pthread_mutex_unlock(&sink_mu);
	t->guard--;
	errno = e;
}

/* Write @n bytes of frames to the sink; called with sink_mu held. */
static void sink_write(const void *buf, size_t n)
{
	if (tg_state != 1 || n == 0)
		return;
	if (sink_fd < 0 && sink_open() < 0)
		return;
	if (sink_raw_write(buf, n) < 0) {
		sink_fail("cannot write trace to", errno);
		return;
	}
	{
		unsigned char check[TG_REC_CHECK_LEN];
		tg_check_put(check, buf, n);
		if (sink_raw_write(check, sizeof(check)) < 0)
			sink_fail("cannot write trace to", errno);
	}
}

static void flush_all(int final);

/* The END frame of an image that ends @how (a fatal signal: @sig) into
 * @buf, which has room for 32 bytes; returns its end. */
static unsigned char *end_frame(unsigned char *buf, unsigned how, int sig)
{
	unsigned char *p = buf + 4;

	*p++ = TG_REC_END;
	p = tg_put_uvar(p, how);
	p = tg_put_uvar(p, (uint64_t)(sig > 0 ? sig : 0));
	return tg_frame_close(buf, p);
}

/* The image ends: a stream that is not windowed says so in its last
 * frame, so that a reader tells it from one cut short (tangram-rec(5),
 * END).  A windowed stream keeps every record whatever kills the process,
 * and its compacted copy gets the frame (sink_compact).  sink_mu held. */
static void sink_ended(unsigned how, int sig)
{
	unsigned char fr[32];

	if (sink_fd < 0 || sink_mapped)
		return;
	sink_write(fr, (size_t)(end_frame(fr, how, sig) - fr));
}

void tg_end_image(void)
{
	int e = errno;

	flush_all(0);
	if (tg_self)
		tg_self->guard++;
	pthread_mutex_lock(&sink_mu);
	if (tg_state == 1)
		sink_ended(TG_END_EXEC, 0);
	pthread_mutex_unlock(&sink_mu);
	if (tg_self)
		tg_self->guard--;
	errno = e;
}

void tg_flush_thread(struct tg_thread *t)
{
	int e = errno;

	if (t->kind != TG_BUF_HEAP) {
		if (t->kind == TG_BUF_DISCARD)
			t->len = 0;
		return;		/* a window is in the file already */
	}
	t->guard++;
	pthread_mutex_lock(&sink_mu);
	sink_write(t->buf, t->len);
	pthread_mutex_unlock(&sink_mu);
	t->len = 0;
	t->guard--;
	errno = e;
}

void tg_commit_slow(struct tg_thread *t)
{
	if (t->kind == TG_BUF_WINDOW)
		window_seal(t);
	tg_flush_thread(t);
	if (t->kind == TG_BUF_HEAP)
		t->flush_at = tg_now() + TG_FLUSH_EVERY;
}

/* Write every thread's complete frames; others keep theirs (they may be
 * writing), which only matters on paths after which nothing is recorded. */
/* A mapped trace: retire this thread's window and cut the file after the
 * last record, unless another thread still holds a window there.  Used where
 * the image may end (exit, exec, MPI_Abort).  sink_mu held. */
static void sink_trim(void)
{
	struct tg_thread *t;
	uint64_t end;

	if (sink_fd < 0 || !sink_mapped)
		return;
	if (tg_self && tg_self->kind == TG_BUF_WINDOW)
		window_retire(tg_self);
	end = sink_used;
	for (t = threads; t; t = t->next)
		if (t->kind == TG_BUF_WINDOW && t->win_off + t->cap > end)
			end = t->win_off + t->cap;
	syscall(SYS_ftruncate, sink_fd, (off_t)end);
}

/*
 * At a clean exit, the windows of other threads that are alive but idle (a
 * pool's threads blocked in pthread_cond_wait, a library's progress thread
 * between calls) would end in records no CHECK frame closes, and the stream
 * would read as torn.  A thread that is not inside a traced call (depth 0)
 * writes nothing until its next call, so its window is sealed here and
 * handed to sink_compact() as retired: the thread's next records, if it
 * makes any before the process ends, go to the discard buffer.  A thread
 * that wakes in the instant between the test and the seal could overwrite
 * the CHECK frame; the reader then reports a checksum mismatch, never a
 * wrong value.  The window stays mapped (the thread may touch it).
 * sink_mu held, tg_state already 2.
 */
static void seal_idle_windows(void)
{
	struct tg_thread *t;
	uint64_t used;

	/* threads_mu is not taken (its order is before sink_mu): a thread
	 * leaving meanwhile unlinks itself, but is freed only after it took
	 * sink_mu, as sink_trim() relies on too */
	for (t = threads; t; t = t->next) {
		if (t == tg_self || t->kind != TG_BUF_WINDOW ||
		    __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE) != 0)
			continue;
		fold_write(t);
		window_seal(t);
		used = t->win_off + t->len;
		if (used > sink_used)
			sink_used = used;
		extent_add(t);
		t->flush_at = UINT64_MAX;
		__atomic_store_n(&t->kind, TG_BUF_DISCARD, __ATOMIC_RELEASE);
	}
}

static int extent_cmp(const void *a, const void *b)
{
	const struct extent *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Copy @len bytes at @off of the sink to the end of @to. */
static int copy_out(int to, uint64_t off, uint64_t len)
{
	static char buf[65536];
	loff_t in = (loff_t)off;

	while (len > 0) {
		long n = syscall(SYS_copy_file_range, sink_fd, &in, to, NULL,
				 (size_t)len, 0);
		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL)) {
			n = syscall(SYS_pread64, sink_fd, buf,
				    len < sizeof(buf) ? (size_t)len : sizeof(buf), in);
			if (n > 0 && raw_write_all(to, buf, (size_t)n) < 0)
				return -1;
			if (n > 0)
				in += n;
		}
		if (n == 0)
			errno = EIO;	/* the file is shorter than its windows */
		if (n <= 0)
			return -1;
		len -= (uint64_t)n;
	}
	return 0;
}

/*
 * A mapped stream at a clean exit: the tails of its windows are holes, so
 * its apparent size exceeds its records.  Write the records, without the
 * windows' frames and padding, to NAME.compact beside it, as a stream
 * written with write() would hold them, and rename that over the stream.
 * Until the rename the stream is whole; if anything fails it stays as it
 * is.  Another thread's window is still there only when the thread is
 * inside a traced call (extent_busy).  sink_mu held.
 */
static void sink_compact(void)
{
	char tmp[TG_PATH_MAX + 16];
	unsigned char hdr[TG_REC_MAGIC_LEN + 4];
	struct stat st;
	struct tg_thread *t;
	size_t i;
	int fd, ok;

	if (sink_fd < 0 || !sink_mapped || extents_lost || sink_hdr_len < sizeof(hdr))
		return;
	for (t = threads; t; t = t->next)
		if (t->kind == TG_BUF_WINDOW && (t == tg_self || extent_busy(t) < 0))
			return;
	if (syscall(SYS_newfstatat, AT_FDCWD, sink_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s.compact", sink_name) >= sizeof(tmp))
		return;
	fd = (int)syscall(SYS_openat, AT_FDCWD, tmp,
			  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	qsort(extents, nextents, sizeof(*extents), extent_cmp);
	/* the header, its flags saying there are no windows any more */
	ok = syscall(SYS_fchmod, fd, st.st_mode & 07777) == 0 &&
	     syscall(SYS_pread64, sink_fd, hdr, sizeof(hdr), 0) == (long)sizeof(hdr);
	if (ok) {
		hdr[TG_REC_MAGIC_LEN + 2] &= (unsigned char)~TG_HDR_WINDOWED;
		ok = raw_write_all(fd, hdr, sizeof(hdr)) == 0 &&
		     copy_out(fd, sizeof(hdr), sink_hdr_len - sizeof(hdr)) == 0;
	}
	for (i = 0; ok && i < nextents; i++) {
		ok = copy_out(fd, extents[i].off, extents[i].len) == 0;
		if (ok && extents[i].ntail) {
			unsigned char check[TG_REC_CHECK_LEN];
			tg_check_put(check, extents[i].tail, extents[i].ntail);
			ok = raw_write_all(fd, check, sizeof(check)) == 0;
		}
	}
	if (ok) {	/* no longer windowed: it ends as other streams do */
		unsigned char fr[32 + TG_REC_CHECK_LEN], *e = end_frame(fr, TG_END_EXIT, 0);
		e = tg_check_put(e, fr, (size_t)(e - fr));
		ok = raw_write_all(fd, fr, (size_t)(e - fr)) == 0;
	}
	syscall(SYS_close, fd);
	if (!ok || syscall(SYS_rename, tmp, sink_name) < 0)
		syscall(SYS_unlink, tmp);
}

/* @final: the process ends; other threads that are not inside a traced
 * call write nothing more, and the calls they folded go out too. */
static void flush_all_locked(int final)
{
	struct tg_thread *t;

	for (t = threads; t; t = t->next) {
		if (t->kind != TG_BUF_HEAP)
			continue;
		if (final && t != tg_self &&
		    __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE) == 0)
			fold_write(t);
		sink_write(t->buf, t->len);
		if (t == tg_self)
			t->len = 0;
	}
}

static void flush_all(int final)
{
	int e = errno;

	if (tg_self) {
		tg_fold_put(tg_self);
		tg_self->guard++;
	}
	pthread_mutex_lock(&threads_mu);
	pthread_mutex_lock(&sink_mu);
	flush_all_locked(final);
	sink_trim();
	pthread_mutex_unlock(&sink_mu);
	pthread_mutex_unlock(&threads_mu);
	if (tg_self)
		tg_self->guard--;
	errno = e;
}

void tg_flush_all(void)
{
	flush_all(0);
}

void tg_count_unsafe(void)
{
	atomic_fetch_add_explicit(&unsafe_calls, 1, memory_order_relaxed);
}

/* At exit: the calls tg_count_unsafe counted, said once. */
static void say_unsafe(void)
{
	uint64_t n = atomic_load(&unsafe_calls);
	char msg[256];
	int len;

	if (!n)
		return;
	len = snprintf(msg, sizeof(msg), "tangram: %llu call%s made by signal handlers "
		       "while the tracer was writing a record %s not recorded\n", (unsigned long long)n,
		       n == 1 ? "" : "s", n == 1 ? "was" : "were");
	if (len > 0)
		tg_say(msg, (size_t)len < sizeof(msg) ? (size_t)len : sizeof(msg) - 1);
}

static void put_excluded(struct tg_thread *t)
{
	uint64_t n = atomic_load(&excluded_calls);
	unsigned char *start, *p;

	if (n == 0 || !t)
		return;
	tg_room(t, 0);
	start = t->buf + t->len;
	p = start + 4;
	*p++ = TG_REC_EXCLUDED;
	p = tg_put_uvar(p, n);
	t->len = (size_t)(tg_frame_close(start, p) - t->buf);
}

/*
 * A process a parallel launcher started (its parent the launcher's agent:
 * MPICH's hydra_pmi_proxy, Open MPI's mpirun or orted, PRRTE's prted,
 * Slurm's slurmstepd), which put a rank and a size in its environment,
 * and which ended without an MPI rank (it never called MPI_Init): one of
 * the copies "mpirun -n 4 ./prog" starts of a program without MPI.  It
 * takes that rank at its end, as an MPI rank would, so that the copies are
 * what they were, processes started side by side that nothing but MPI
 * would order, not processes one after the other, as the commands of a job
 * script are (which have no launcher for a parent).  Only into a trace
 * directory, and not when a stream there has the rank already.
 */
static void launch_rank(void)
{
	static const char *const vars[][2] = {
		{ "PMI_RANK", "PMI_SIZE" }, { "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" },
		{ "SLURM_PROCID", "SLURM_NTASKS" },
	};
	static const char *const agents[] = {
		"hydra_pmi_proxy", "mpiexec", "mpiexec.hydra", "mpiexec.mpich", "mpirun",
		"mpirun.mpich", "mpirun.openmpi", "mpiexec.openmpi", "orterun", "orted", "prterun",
		"prted", "slurmstepd",
	};
	char path[64], comm[32];
	long n, rk, ws;
	size_t i;
	int fd;

	if (my_rank >= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)getppid());
	fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = syscall(SYS_read, fd, comm, sizeof(comm) - 1);
	syscall(SYS_close, fd);
	if (n <= 0)
		return;
	comm[n] = 0;
	comm[strcspn(comm, "\n")] = 0;
	for (i = 0; i < sizeof(agents) / sizeof(agents[0]) && strcmp(agents[i], comm); i++)
		;
	if (i == sizeof(agents) / sizeof(agents[0]))
		return;
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *r = getenv(vars[i][0]), *w = getenv(vars[i][1]);
		char *e1, *e2;
		if (!r || !w || !*r || !*w)
			continue;
		rk = strtol(r, &e1, 10);
		ws = strtol(w, &e2, 10);
		if (*e1 || *e2 || rk < 0 || ws <= rk || ws > INT32_MAX)
			continue;
		/* not when a process it started has the rank: a shell that
		 * the launcher started around the MPI program ("mpirun -n 4
		 * sh -c ./app"), whose stream is named by it already */
		if (sink_in_dir) {
			char name[TG_PATH_MAX], run[24];
			run_suffix(run, sizeof(run));
			snprintf(name, sizeof(name), "%s/rank-%ld%s.rec", trace_dir, rk, run);
			if (syscall(SYS_faccessat, AT_FDCWD, name, F_OK, 0) == 0)
				return;
		} else {
			return;
		}
		tg_set_rank((int)rk, (int)ws);
		return;
	}
}

void tg_shutdown(void)
{
	int e = errno;

	if (tg_state != 1)
		return;
	launch_rank();
	put_excluded(tg_self);
	say_unsafe();
#ifndef TG_STATIC
	tg_h5_check_static(my_rank);
#endif
	flush_all(1);
	pthread_mutex_lock(&sink_mu);
	if (tg_state == 1 && sink_fd < 0)
		sink_open();	/* a process that recorded nothing still leaves its header */
	if (tg_state == 1)
		sink_ended(TG_END_EXIT, 0);
	tg_state = 2;
	if (sink_fd >= 0 && sink_mapped)
		seal_idle_windows();
	sink_trim();
	sink_compact();
	if (sink_fd >= 0)
		syscall(SYS_close, sink_fd);
	sink_fd = -1;
	if (sink_is_pipe && sink_child > 0) {
		int st;
		while (waitpid(sink_child, &st, 0) < 0 && errno == EINTR)
			;
		sink_child_ended(st);
	}
	pthread_mutex_unlock(&sink_mu);
	errno = e;
}

static void tg_shutdown_late(void *arg)
{
	(void)arg;
	tg_shutdown();
}

/* (atexit() in a shared library ties the handler to the library, whose
 * handlers run with its destructor: this one belongs to no library) */
extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);

/*
 * At exit the tracer's destructor may run before those of libraries loaded
 * earlier, whose I/O then went unrecorded: libgfortran writes the units a
 * program left open in its own.  The stream is finished by an exit handler
 * registered here instead, which glibc runs after every destructor
 * (handlers registered while exit runs them are run too); if it cannot be
 * registered, now.
 */
__attribute__((destructor)) static void tg_dtor(void)
{
	int e = errno;

	if (tg_state == 1 && __cxa_atexit(tg_shutdown_late, NULL, NULL) == 0) {
		errno = e;
		return;
	}
	errno = e;
	tg_shutdown();
}

/* ---- folding of repeated polls ---------------------------------------- */

/* Write the REPEAT record of @t's folded calls at the end of its buffer,
 * which has room for it (TG_SEAL_ROOM, or tg_room_raw() just before).  The
 * thread's time base stays at the call they repeat: a reader that skips
 * the record still decodes the next call's times right. */
static void fold_write(struct tg_thread *t)
{
	unsigned char *start, *p;

	if (!t->fold_n || !t->buf || t->kind == TG_BUF_DISCARD) {
		t->fold_n = 0;
		return;
	}
	start = t->buf + t->len;
	p = start + 4;
	*p++ = TG_REC_REPEAT;
	p = tg_put_uvar(p, t->tid);
	p = tg_put_uvar(p, t->fold_n);
	p = tg_put_svar(p, (int64_t)(t->fold_t0 - t->base.t));
	p = tg_put_uvar(p, t->fold_t1 - t->fold_t0);
	t->fold_n = 0;
	__atomic_store_n(&t->len, (size_t)(tg_frame_close(start, p) - t->buf),
			 __ATOMIC_RELEASE);
}

void tg_fold_put(struct tg_thread *t)
{
	if (!t->fold_n)
		return;
	tg_room_raw(t, 0);
	fold_write(t);
}

void tg_fold_end(struct tg_thread *t)
{
	t->fold = 0;
	tg_fold_put(t);
}

void tg_seq_take(struct tg_thread *t)
{
	t->stack_seq[t->depth - 1] = atomic_fetch_add_explicit(&tg_seq, 1,
							       memory_order_relaxed);
}

/* Is poll call @c's record (arguments from c->a to c->p) identical to the
 * thread's last, a poll too, but for its seq and times? */
static int fold_same(const struct tg_call *c, size_t alen)
{
	const struct tg_foldkey *k = &c->t->fold_key;

	return c->t->fold && alen == k->len && c->fn == k->fn &&
	       c->depth == k->depth && c->parent == k->parent && c->ret == k->ret &&
	       (c->failed ? c->err : 0) == k->err && memcmp(c->a, k->a, alen) == 0 &&
	       c->t->stack_seq[c->depth] == TG_SEQ_LATE;
}

void tg_poll_commit(struct tg_call *c)
{
	struct tg_thread *t = c->t;
	struct tg_foldkey *k = &t->fold_key;
	size_t alen = (size_t)(c->p - c->a);
	uint64_t seq;
	unsigned char *p;

	if (fold_same(c, alen)) {
		if (!t->fold_n++)
			t->fold_t0 = c->t0;
		t->fold_t1 = c->t1;
		t->depth--;
		/* the record built in place past the end is not kept: in a
		 * mapped window its bytes would follow the next CHECK frame
		 * and read as a frame if the process died then */
		if (t->kind == TG_BUF_WINDOW && c->p > t->buf + t->len)
			memset(t->buf + t->len, 0, (size_t)(c->p - (t->buf + t->len)));
		/* a buffer's records wait at most TG_FLUSH_EVERY: so do the
		 * counts of folded calls */
		if (tg_unlikely(c->t1 >= t->flush_at)) {
			tg_fold_put(t);
			tg_commit_slow(t);
		}
		t->writing = 0;
		t->inrec = c->inrec0;
		errno = c->err;
		return;
	}
	if (t->fold_n)
		fold_write(t);	/* room: TG_POLL_GAP */
	seq = t->stack_seq[c->depth];
	if (seq == TG_SEQ_LATE)
		seq = atomic_fetch_add_explicit(&tg_seq, 1, memory_order_relaxed);
	c->seq = seq;
	p = tg_call_head_put(t->buf + t->len + 4, &t->base, c->fn, t->tid, seq, c->depth + c->h5lib,
			     c->parent, c->t0, c->t1 - c->t0, c->ret,
			     c->failed ? c->err : 0);
	memmove(p, c->a, alen);
	c->p = p + alen;
	t->fold = tg_fold && alen <= TG_FOLD_ARGS;
	if (t->fold) {
		k->parent = c->parent;
		k->ret = c->ret;
		k->err = c->failed ? c->err : 0;
		k->fn = c->fn;
		k->depth = c->depth;
		k->len = (uint16_t)alen;
		memcpy(k->a, p, alen);
	}
	tg_rec_commit(c);
}

unsigned char *tg_def_begin(struct tg_thread *t, size_t need)
{
	tg_room(t, need);
	return t->buf + t->len + 4;
}

void tg_def_end(struct tg_thread *t, unsigned char *end)
{
	t->len = (size_t)(tg_frame_close(t->buf + t->len, end) - t->buf);
}

/* The run in the header's last three bytes (written wide), for @run. */
static void hdr_set_run(unsigned run)
{
	size_t n = hdr_copy_len;
	char buf[24];

	hdr_copy[n - 3] = (unsigned char)((run & 0x7f) | 0x80);
	hdr_copy[n - 2] = (unsigned char)(((run >> 7) & 0x7f) | 0x80);
	hdr_copy[n - 1] = (unsigned char)((run >> 14) & 0x7f);
	snprintf(buf, sizeof(buf), "%u", run);
	setenv("TANGRAM_RUN", buf, 1);
}

void tg_set_rank(int rank, int world)
{
	struct tg_thread *t = tg_self;
	unsigned char *start, *p;
	unsigned char fixed[12];
	int whole = 0, claim = 0;

	pthread_mutex_lock(&sink_mu);
	if (my_rank == rank && my_world == world) {
		/* known already (Open MPI's launcher said it before MPI_Init) */
		pthread_mutex_unlock(&sink_mu);
		return;
	}
	my_rank = rank;
	my_world = world;
	if ((run_singleton || run_launched_many) && world == 1 && sink_fd >= 0 &&
	    !sink_is_pipe && hdr_copy_len) {
		/* a singleton: the run after those begun before it, in its
		 * header (written wide: the same length) and its name; one
		 * begun at the same time as another takes the run after the
		 * one the other took (claim: the name says which is free) */
		unsigned long last = runs_before(real_base, 0);
		if (last + 1 > my_run)
			my_run = (unsigned)(last + 1);
		if (my_run > 1 && my_run < (1u << 21)) {
			hdr_set_run(my_run);
			whole = 1;
		}
		claim = my_run < (1u << 21);
		run_singleton = 0;
		run_launched_many = 0;
	}
	if (sink_fd >= 0 && !sink_is_pipe) {
		/* rank, world and the header's CRC in one write, so that a
		 * kill leaves the old three or the new */
		tg_put_le32(hdr_copy + TG_REC_RANK_OFFSET, (uint32_t)rank);
		tg_put_le32(hdr_copy + TG_REC_RANK_OFFSET + 4, (uint32_t)world);
		tg_put_le32(hdr_copy + TG_REC_HCRC_OFFSET,
			    tg_header_crc(hdr_copy, hdr_copy_len));
		/* (a singleton's run too, which ends the header: then the
		 * whole header from the rank on, in the one write) */
		if (whole) {
			syscall(SYS_pwrite64, sink_fd, hdr_copy + TG_REC_RANK_OFFSET,
				hdr_copy_len - TG_REC_RANK_OFFSET, (off_t)TG_REC_RANK_OFFSET);
		} else {
			memcpy(fixed, hdr_copy + TG_REC_RANK_OFFSET, sizeof(fixed));
			syscall(SYS_pwrite64, sink_fd, fixed, sizeof(fixed),
				(off_t)TG_REC_RANK_OFFSET);
		}
		while (sink_in_dir) {
			char name[TG_PATH_MAX], run[24];
			run_suffix(run, sizeof(run));
			snprintf(name, sizeof(name), "%s/rank-%d%s.rec", trace_dir, rank, run);
			/* never over another process's stream: it keeps its
			 * pid's name then (RENAME_NOREPLACE) */
			if (syscall(SYS_renameat2, AT_FDCWD, sink_name, AT_FDCWD, name,
				    RENAME_NOREPLACE) == 0 ||
			    (errno == EINVAL && syscall(SYS_rename, sink_name, name) == 0)) {
				snprintf(sink_name, sizeof(sink_name), "%s", name);
				break;
			}
			/* a singleton begun with another (two at once in a job
			 * script, or a launcher of another MPI library, whose
			 * processes are each a world of one) whose run that
			 * one took: the next run */
			if (!claim || errno != EEXIST || my_run + 1 >= (1u << 21) ||
			    claim++ > 4096)
				break;
			my_run++;
			hdr_set_run(my_run);
			tg_put_le32(hdr_copy + TG_REC_HCRC_OFFSET,
				    tg_header_crc(hdr_copy, hdr_copy_len));
			syscall(SYS_pwrite64, sink_fd, hdr_copy + TG_REC_RANK_OFFSET,
				hdr_copy_len - TG_REC_RANK_OFFSET, (off_t)TG_REC_RANK_OFFSET);
		}
	}
	pthread_mutex_unlock(&sink_mu);
	if (!t && !(t = tg_thread_new()))
		return;
	tg_room(t, 0);
	start = t->buf + t->len;
	p = start + 4;
	*p++ = TG_REC_RANK;
	p = tg_put_svar(p, rank);
	p = tg_put_uvar(p, (uint64_t)world);
	t->len = (size_t)(tg_frame_close(start, p) - t->buf);
}

/* ---- threads ----------------------------------------------------------- */

struct tg_thread *tg_thread_new(void)
{
	struct tg_thread *t;

	static __thread volatile int making;

	if (tg_state != 1 || making)
		return NULL;	/* (a malloc that maps memory, jemalloc's: untraced) */
	making = 1;
	t = calloc(1, sizeof(*t));	/* its buffer comes with its first record */
	making = 0;
	if (!t) {
		/* without its state, a thread's calls would go unrecorded
		 * and nobody told: stop tracing, and say so once */
		pthread_mutex_lock(&sink_mu);
		sink_fail("no memory to trace a thread into", ENOMEM);
		pthread_mutex_unlock(&sink_mu);
		return NULL;
	}
	t->tid = atomic_fetch_add(&next_tid, 1);
	t->flush_at = UINT64_MAX;
	t->base.seq = -1;
	t->next_ptr_id = 1;
	pthread_mutex_lock(&threads_mu);
	t->next = threads;
	threads = t;
	pthread_mutex_unlock(&threads_mu);
	tg_self = t;
	pthread_setspecific(thread_key, t);
	return t;
}

static void strmap_clear(struct tg_thread *t)
{
	unsigned i;

	for (i = 0; i < TG_STRMAP; i++) {
		free(t->strs[i].s);
		t->strs[i].s = NULL;
	}
	t->nstrs = 0;
}

static void thread_gone(void *arg)
{
	struct tg_thread *t = arg, **pp;

	tg_fold_put(t);
	t->guard++;
	pthread_mutex_lock(&threads_mu);
	for (pp = &threads; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	pthread_mutex_lock(&sink_mu);
	if (t->kind == TG_BUF_HEAP && tg_state != 1)
		t->len = 0;	/* nowhere to write it */
	buffer_release(t);
	pthread_mutex_unlock(&sink_mu);
	pthread_mutex_unlock(&threads_mu);
	tg_self = NULL;
	strmap_clear(t);
	free(t);
}

/* ---- fork and signals ------------------------------------------------- */

/* Which of the tracer's locks atfork_prepare() took for the fork (1 each),
 * rather than finding them held by this very thread (a fork from a signal
 * handler that interrupted the tracer), or not taking them at all. */
static int fork_took_threads, fork_took_sink;
static pthread_mutex_t objs_mu;
static int fork_took_objs;

static int fork_lock(pthread_mutex_t *m)
{
	return pthread_mutex_lock(m) == 0;	/* EDEADLK: this thread's */
}

static void atfork_prepare(void)
{
	fork_parent = getpid();
	/* a child of a threaded program may open a stream at once: the
	 * table of streams and directories is not left locked by a thread
	 * the child does not have */
	fork_took_objs = fork_lock(&objs_mu);
	fork_took_threads = fork_took_sink = 0;
	if (tg_state != 1)
		return;
	/* the child's stream does not hold the call they repeat */
	if (tg_self && !tg_self->writing)
		tg_fold_put(tg_self);
	fork_took_threads = fork_lock(&threads_mu);
	fork_took_sink = fork_lock(&sink_mu);
	if (fork_took_sink && tg_self && tg_self->kind == TG_BUF_HEAP && !tg_self->writing) {
		sink_write(tg_self->buf, tg_self->len);
		tg_self->len = 0;
	}
}

static void atfork_parent(void)
{
	if (fork_took_sink)
		pthread_mutex_unlock(&sink_mu);
	if (fork_took_threads)
		pthread_mutex_unlock(&threads_mu);
	if (fork_took_objs)
		pthread_mutex_unlock(&objs_mu);
	fork_took_threads = fork_took_sink = fork_took_objs = 0;
	dir_cache_busy = 0;
}

static void atfork_child(void)
{
	struct tg_thread *t = tg_self;

	pthread_mutexattr_t ma;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&threads_mu, &ma);
	pthread_mutex_init(&sink_mu, &ma);
	pthread_mutex_init(&objs_mu, &ma);
	pthread_mutexattr_destroy(&ma);
	fork_took_threads = fork_took_sink = fork_took_objs = 0;
	if (tg_state != 1)
		return;
	if (sink_fd >= 0)
		syscall(SYS_close, sink_fd);
	sink_fd = -1;
	/* the parent's windows are its file: let go of them all; this
	 * thread's records go to a file of the child's own */
	for (struct tg_thread *o = threads; o; o = o->next)
		if (o->kind == TG_BUF_WINDOW) {
			syscall(SYS_munmap, o->buf, o->cap);
			o->buf = NULL;
			o->cap = 0;
			o->len = 0;
			o->kind = TG_BUF_NONE;
		}
	sink_mapped = 0;
	sink_end = sink_used = sink_hdr_len = 0;
	nextents = 0;
	sink_is_pipe = 0;
	sink_may_break = 0;
	sink_in_dir = 0;
	my_ppid = fork_parent;	/* the parent may be gone when the header is written */
	sink_child = 0;
	sink_name[0] = 0;
	my_rank = -1;
	my_world = 0;
	atomic_store(&excluded_calls, 0);
	atomic_store(&unsafe_calls, 0);
	atomic_store(&next_tid, 1);
	atomic_store(&next_str_id, 1);
	/* a fixed sink file name would be truncated by the child: it gets its
	 * own, NAME.<pid> */
	if (sink_spec[0] && sink_spec[0] != '|' && !strchr(sink_spec, '%')) {
		size_t n = strlen(sink_spec);
		if (n + 4 < sizeof(sink_spec))
			memcpy(sink_spec + n, ".%p", 4);
	}
	threads = t;
	if (t) {
		t->next = NULL;
		t->tid = 0;
		t->len = 0;
		t->base.seq = -1;
		t->base.t = 0;
		t->fold = 0;
		t->fold_n = 0;
		strmap_clear(t);
	}
	atomic_store(&tg_seq, 0);
}

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
				     SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGPIPE };

/* The signals whose handler is the tracer's, the program having set none:
 * to the program, their action is the default it had (hand.c's sigaction
 * and signal say so), as programs install theirs only over the default
 * (Python's KeyboardInterrupt, Open MPI's backtraces). */
static volatile sig_atomic_t sig_ours[NSIG];

int tg_sig_ours(int sig)
{
	return sig > 0 && sig < NSIG && sig_ours[sig];
}

void tg_sig_theirs(int sig)
{
	if (sig > 0 && sig < NSIG)
		sig_ours[sig] = 0;
}

static void on_fatal(int sig)
{
	struct tg_thread *t;
	int e = errno;

	if (tg_state == 1 && tg_self) {
		fold_write(tg_self);	/* room: TG_SEAL_ROOM */
		window_seal(tg_self);	/* other threads may be writing theirs */
		/* the signal may have come while this thread built a record
		 * in place past its end: what the CHECK frame did not cover of
		 * it would read as a frame; zero is padding */
		if (tg_self->kind == TG_BUF_WINDOW && tg_self->buf && tg_self->cap > tg_self->len)
			memset(tg_self->buf + tg_self->len, 0, tg_self->cap - tg_self->len);
	}
	if (tg_state == 1 && pthread_mutex_trylock(&sink_mu) == 0) {
		for (t = threads; t; t = t->next) {
			if (t->kind != TG_BUF_HEAP)
				continue;
			if (t != tg_self &&
			    __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE) == 0)
				fold_write(t);
			sink_write(t->buf, t->len);
		}
		sink_ended(TG_END_SIGNAL, sig);
		if (sink_fd >= 0 && !sink_is_pipe)
			syscall(SYS_fsync, sink_fd);
		pthread_mutex_unlock(&sink_mu);
	}
	tg_state = 2;
	signal(sig, SIG_DFL);
	errno = e;
	raise(sig);
}

static void install_signals(void)
{
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		if (sigaction(fatal_signals[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO) &&
		    sigaction(fatal_signals[i], &sa, NULL) == 0)
			sig_ours[fatal_signals[i]] = 1;
	}
}

/* ---- symbolic ids ------------------------------------------------------ */

static uint64_t ptr_id(struct tg_thread *t, const void *p);

uint64_t tg_ptr_id(struct tg_thread *t, const void *p)
{
	uint64_t id;

	if (!p)
		return 0;
	t->busy++;
	id = ptr_id(t, p);
	t->busy--;
	return id;
}

static uint64_t ptr_id(struct tg_thread *t, const void *p)
{
	uintptr_t h;
	unsigned i;

	h = ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull;
	i = (unsigned)(h >> 54) & (TG_PTRMAP - 1);
	for (;;) {
		if (t->ptrs[i].key == p)
			return t->ptrs[i].id;
		if (!t->ptrs[i].key)
			break;
		i = (i + 1) & (TG_PTRMAP - 1);
	}
	if (t->nptrs >= TG_PTRMAP * 3 / 4) {
		memset(t->ptrs, 0, sizeof(t->ptrs));
		t->nptrs = 0;
		i = (unsigned)(h >> 54) & (TG_PTRMAP - 1);
	}
	t->ptrs[i].key = p;
	t->ptrs[i].id = t->next_ptr_id++;
	t->nptrs++;
	return t->ptrs[i].id;
}

#define TG_STR_MAX 16384

static uint64_t str_id(struct tg_thread *t, const char *s);

uint64_t tg_str(struct tg_thread *t, const char *s)
{
	uint64_t id;

	if (!s)
		return 0;
	t->busy++;
	id = str_id(t, s);
	t->busy--;
	return id;
}

static uint64_t str_id(struct tg_thread *t, const char *s)
{
	uint64_t h = 1469598103934665603ull, id;
	unsigned i;
	size_t n;
	unsigned char *start, *p;

	if (!s)
		return 0;
	for (n = 0; s[n] && n < TG_STR_MAX; n++)
		h = (h ^ (unsigned char)s[n]) * 1099511628211ull;
	i = (unsigned)(h >> 52) & (TG_STRMAP - 1);
	while (t->strs[i].s) {
		if (t->strs[i].hash == h && strncmp(t->strs[i].s, s, n) == 0 &&
		    t->strs[i].s[n] == 0)
			return t->strs[i].id;
		i = (i + 1) & (TG_STRMAP - 1);
	}
	id = atomic_fetch_add(&next_str_id, 1);
	tg_room(t, n + 32);
	start = t->buf + t->len;
	p = start + 4;
	*p++ = TG_REC_STR;
	p = tg_put_uvar(p, id);
	p = tg_put_uvar(p, n);
	memcpy(p, s, n);
	p += n;
	t->len = (size_t)(tg_frame_close(start, p) - t->buf);
	if (t->nstrs >= TG_STRMAP * 3 / 4) {
		strmap_clear(t);
		i = (unsigned)(h >> 52) & (TG_STRMAP - 1);
	}
	t->strs[i].s = strndup(s, n);
	if (t->strs[i].s) {
		t->strs[i].hash = h;
		t->strs[i].id = id;
		t->nstrs++;
	}
	return id;
}

/* Streams and directories share one small table keyed by address. */
#define OBJMAP 4096
struct objslot {
	const void *key;
	uint32_t id;
	uint8_t excluded;
	uint8_t kind;	/* 1 stream, 2 dir */
};
static struct objslot objs[OBJMAP];
static unsigned char used_ids[2][OBJMAP / 8];
static pthread_mutex_t objs_mu = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;	/* (declared above) */

static unsigned obj_hash(const void *p)
{
	return (unsigned)((((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull) >> 52) &
	       (OBJMAP - 1);
}

static struct objslot *obj_find(const void *p, int kind)
{
	unsigned i = obj_hash(p), n;

	for (n = 0; n < OBJMAP; n++, i = (i + 1) & (OBJMAP - 1)) {
		if (objs[i].key == p && objs[i].kind == kind)
			return &objs[i];
		if (!objs[i].key)
			return NULL;
	}
	return NULL;
}

static uint32_t obj_take_id(int kind)
{
	uint32_t id;

	for (id = kind == 1 ? 3 : 0; id < OBJMAP; id++)
		if (!(used_ids[kind - 1][id / 8] & (1u << (id % 8)))) {
			used_ids[kind - 1][id / 8] |= (unsigned char)(1u << (id % 8));
			return id;
		}
	return OBJMAP - 1;
}

static struct objslot *obj_add(const void *p, int kind, int excluded)
{
	unsigned i = obj_hash(p), n;
	struct objslot *s = obj_find(p, kind);

	if (s) {	/* a recycled address: the old object was not seen closing */
		s->excluded = (uint8_t)excluded;
		return s;
	}
	for (n = 0; n < OBJMAP; n++, i = (i + 1) & (OBJMAP - 1))
		if (!objs[i].key || objs[i].key == (void *)1) {
			objs[i].key = p;
			objs[i].kind = (uint8_t)kind;
			objs[i].excluded = (uint8_t)excluded;
			if (kind == 1 && p == stdin)
				objs[i].id = 0;
			else if (kind == 1 && p == stdout)
				objs[i].id = 1;
			else if (kind == 1 && p == stderr)
				objs[i].id = 2;
			else
				objs[i].id = obj_take_id(kind);
			return &objs[i];
		}
	return NULL;
}

static void obj_drop(const void *p, int kind)
{
	struct objslot *s;

	pthread_mutex_lock(&objs_mu);
	s = obj_find(p, kind);
	if (s) {
		if (!(kind == 1 && s->id < 3))
			used_ids[kind - 1][s->id / 8] &= (unsigned char)~(1u << (s->id % 8));
		s->key = (void *)1;	/* tombstone keeps probe chains intact */
		s->kind = 0;
	}
	pthread_mutex_unlock(&objs_mu);
}

uint64_t tg_fstab_id(FILE *fp, int *excluded)
{
	struct objslot *s;
	uint64_t id;

	if (!fp)
		return 0;
	pthread_mutex_lock(&objs_mu);
	s = obj_find(fp, 1);
	if (!s)
		s = obj_add(fp, 1, 0);
	id = s ? s->id + 1u : 0;
	if (excluded)
		*excluded = s ? s->excluded : 0;
	pthread_mutex_unlock(&objs_mu);
	return id;
}

int tg_fstab_excluded(FILE *fp)
{
	struct objslot *s;
	int ex;

	if (!fp)
		return 0;
	pthread_mutex_lock(&objs_mu);
	s = obj_find(fp, 1);
	ex = s ? s->excluded : 0;
	pthread_mutex_unlock(&objs_mu);
	return ex;
}

void tg_fstab_new(FILE *fp, int excluded)
{
	pthread_mutex_lock(&objs_mu);
	obj_add(fp, 1, excluded);
	pthread_mutex_unlock(&objs_mu);
}

void tg_fstab_drop(FILE *fp)
{
	obj_drop(fp, 1);
}

uint64_t tg_dir_id(const void *dirp)
{
	struct objslot *s;
	uint64_t id;

	if (!dirp)
		return 0;
	pthread_mutex_lock(&objs_mu);
	s = obj_find(dirp, 2);
	if (!s)
		s = obj_add(dirp, 2, 0);
	id = s ? s->id + 1u : 0;
	pthread_mutex_unlock(&objs_mu);
	return id;
}

void tg_dir_new(const void *dirp)
{
	pthread_mutex_lock(&objs_mu);
	obj_add(dirp, 2, 0);
	pthread_mutex_unlock(&objs_mu);
}

void tg_dir_drop(const void *dirp)
{
	obj_drop(dirp, 2);
}

/* ---- descriptors and paths --------------------------------------------- */

int tg_fd_mine(int fd)
{
	return fd >= 0 && fd == __atomic_load_n(&sink_fd, __ATOMIC_RELAXED);
}

void tg_fd_yield(int fd)
{
	int e = errno, nfd;

	if (!tg_fd_mine(fd))
		return;
	pthread_mutex_lock(&sink_mu);
	if (fd == sink_fd) {
		nfd = fd_dup_high(fd);
		if (nfd < 0 || nfd == fd) {
			sink_fail("cannot keep the descriptor of", nfd < 0 ? errno : EBADF);
		} else {
			__atomic_store_n(&sink_fd, nfd, __ATOMIC_RELAXED);
			syscall(SYS_close, fd);
		}
	}
	pthread_mutex_unlock(&sink_mu);
	errno = e;
}

/* The range is closed around the sink's descriptor, with sink_mu held so
 * that the sink cannot be opened meanwhile into the range. */
int tg_close_range(unsigned first, unsigned last, int flags,
		   int (*real)(unsigned, unsigned, int))
{
	unsigned mine, fd;
	int rc = 0;

	pthread_mutex_lock(&sink_mu);
	mine = (unsigned)sink_fd;
	if (sink_fd < 0 || mine < first || mine > last || first > last) {
		rc = real(first, last, flags);
	} else {
		if (mine > first)
			rc = real(first, mine - 1, flags);
		if (rc == 0 && mine < last)
			rc = real(mine + 1, last, flags);
	}
	pthread_mutex_unlock(&sink_mu);
	if (rc == 0 && !(flags & CLOSE_RANGE_CLOEXEC))
		for (fd = first; fd <= last && fd < FD_TRACKED; fd++)
			tg_fd_set((int)fd, 0);
	return rc;
}

/* Is descriptor @fd, which an open just made, a FIFO?  Its bytes are a
 * channel's, at no offset of any file: calls on it are left out (and
 * counted), as those on the excluded paths are. */
int tg_fd_fifo(int fd)
{
	struct stat st;
	int e = errno, fifo = fd >= 0 && syscall(SYS_fstat, fd, &st) == 0 && S_ISFIFO(st.st_mode);

	errno = e;
	return fifo;
}

/* Is descriptor @fd open (not asking through a wrapper)? */
int tg_fd_is_open(int fd)
{
	int e = errno, open = fd >= 0 && syscall(SYS_fcntl, fd, F_GETFD) >= 0;

	errno = e;
	return open;
}

int tg_fd_excluded(int fd)
{
	if (fd < 0 || fd >= FD_TRACKED)
		return 0;
	return (__atomic_load_n(&fd_excl[fd / 8], __ATOMIC_RELAXED) >> (fd % 8)) & 1;
}

void tg_fd_set(int fd, int excluded)
{
	unsigned char bit;

	if (fd < 0 || fd >= FD_TRACKED)
		return;
	bit = (unsigned char)(1u << (fd % 8));
	if (excluded)
		__atomic_fetch_or(&fd_excl[fd / 8], bit, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&fd_excl[fd / 8], (unsigned char)~bit,
				   __ATOMIC_RELAXED);
}

void tg_fd_dup(int oldfd, int newfd)
{
	tg_fd_set(newfd, tg_fd_excluded(oldfd));
}

int tg_fd_of_stream(FILE *fp)
{
	return fp ? fileno(fp) : -1;
}

int tg_fd_of_dir(void *dirp)
{
	return dirp ? dirfd((DIR *)dirp) : -1;
}

void tg_count_excluded(void)
{
	atomic_fetch_add_explicit(&excluded_calls, 1, memory_order_relaxed);
}

void tg_cwd_changed(void)
{
	long n = syscall(SYS_getcwd, cwd, sizeof(cwd));

	cwd_valid = n > 0;
	if (!cwd_valid)
		cwd[0] = 0;
}

/* FNV-1a of @s, going on from @h. */
static uint64_t path_hash(uint64_t h, const char *s)
{
	while (s && *s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

/*
 * Join @base and @rel into @out, removing ".", ".." and repeated slashes.
 * A path that does not fit in TG_PATH_MAX is cut at a slash and ends in
 * "/#" and 16 hex digits, a hash of @base and @rel: dropping what does not
 * fit would make it another, shorter path -- maybe a real one -- and two
 * long paths with one beginning would look like one file (libtangram(7)).
 */
static void normalize(char *out, const char *base, const char *rel)
{
	size_t o = 0;
	const char *parts[2] = { base, rel };
	int k, cut = 0;

	out[o++] = '/';
	for (k = 0; k < 2 && !cut; k++) {
		const char *p = parts[k];
		while (p && *p) {
			size_t n;
			while (*p == '/')
				p++;
			n = strcspn(p, "/");
			if (n == 0)
				break;
			if (n == 1 && p[0] == '.') {
				/* nothing */
			} else if (n == 2 && p[0] == '.' && p[1] == '.') {
				while (o > 1 && out[o - 1] != '/')
					o--;
				if (o > 1)
					o--;	/* the slash before it */
			} else if (o + n + 2 < TG_PATH_MAX) {
				if (out[o - 1] != '/')
					out[o++] = '/';
				memcpy(out + o, p, n);
				o += n;
			} else {
				cut = 1;
				break;
			}
			p += n;
		}
	}
	if (cut) {
		uint64_t h = path_hash(path_hash(0xcbf29ce484222325ull, base), "/");

		h = path_hash(h, rel);
		if (o > TG_PATH_MAX - 20) {	/* room for "/#" and the hash */
			o = TG_PATH_MAX - 20;
			while (o > 1 && out[o] != '/')
				o--;
		}
		o += (size_t)snprintf(out + o, TG_PATH_MAX - o, "%s#%016llx",
				      o > 1 ? "/" : "", (unsigned long long)h);
		return;
	}
	if (o > 1 && out[o - 1] == '/')
		o--;
	out[o] = 0;
}

/* A directory whose path cannot be had (longer than TG_PATH_MAX, or gone):
 * "/#dir-DEV-INO" names it in @base, the same for every call on it. */
static void dir_by_id(char *base, size_t cap, int dirfd)
{
	struct stat st;

	if (syscall(SYS_newfstatat, dirfd, "", &st, AT_EMPTY_PATH) < 0)
		memset(&st, 0, sizeof(st));
	snprintf(base, cap, "/#dir-%llx-%llx", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
}

const char *tg_path_prep(char *out, const char *path, int dirfd, int *excluded)
{
	char base[TG_PATH_MAX];

	if (!path)
		return NULL;
	if (path[0] == '/') {
		normalize(out, NULL, path);
	} else if (dirfd == AT_FDCWD) {
		if (!cwd_valid)
			tg_cwd_changed();
		if (cwd_valid) {
			normalize(out, cwd, path);
		} else {
			/* a working directory too deep for getcwd(2) */
			dir_by_id(base, sizeof(base), AT_FDCWD);
			normalize(out, base, path);
		}
	} else {
		char link[64];
		long n;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
		n = syscall(SYS_readlinkat, AT_FDCWD, link, base, sizeof(base) - 1);
		if (n > 0 && n < (long)sizeof(base) - 1 && base[0] == '/')
			base[n] = 0;
		else if (n > 0)	/* cut short, or not a path */
			dir_by_id(base, sizeof(base), dirfd);
		else
			snprintf(base, sizeof(base), "/proc/self/fd/%d", dirfd);
		normalize(out, base, path);
	}
	if (nexcl && path_excluded(out))
		*excluded = 1;
	return out;
}

/*
 * A name of a descriptor ("/proc/self/fd/3", "/dev/fd/3", "/dev/stdout")
 * that @ap (absolute) is, opened anew: the file it leads to when that is
 * a regular file the exclusions leave traced, in @buf, else NULL.  Such
 * an open makes a new open file of that file, with its own position and
 * flags (a program reopening a descriptor by path, writing to
 * /dev/stdout put on a file); by the name given it was excluded with
 * /proc and /dev, and every call on it went unrecorded.
 */
const char *tg_path_fdname(char *buf, const char *ap)
{
	char cur[TG_PATH_MAX];
	struct stat st;
	long n;
	int i, e = errno;

	if (!ap || (strncmp(ap, "/proc/", 6) != 0 && strncmp(ap, "/dev/fd/", 8) != 0 &&
		    strcmp(ap, "/dev/stdin") != 0 && strcmp(ap, "/dev/stdout") != 0 &&
		    strcmp(ap, "/dev/stderr") != 0))
		return NULL;
	if (strncmp(ap, "/proc/", 6) == 0) {	/* /proc/self|thread-self|PID/fd/N */
		const char *f = strstr(ap + 6, "/fd/");
		if (!f || strchr(f + 4, '/'))
			return NULL;
	}
	snprintf(cur, sizeof(cur), "%s", ap);
	/* /dev/stdout -> /proc/self/fd/1 -> the file */
	for (i = 0; i < 4; i++) {
		n = syscall(SYS_readlinkat, AT_FDCWD, cur, buf, TG_PATH_MAX - 1);
		if (n <= 0 || n >= TG_PATH_MAX - 1 || buf[0] != '/') {
			errno = e;
			return NULL;
		}
		buf[n] = 0;
		if (strncmp(buf, "/proc/", 6) != 0 && strncmp(buf, "/dev/fd/", 8) != 0)
			break;
		memcpy(cur, buf, (size_t)n + 1);
	}
	if (i == 4 || (n > 10 && strcmp(buf + n - 10, " (deleted)") == 0) ||
	    syscall(SYS_newfstatat, AT_FDCWD, ap, &st, 0) != 0 || !S_ISREG(st.st_mode) ||
	    path_excluded(buf)) {
		errno = e;
		return NULL;
	}
	errno = e;
	return buf;
}

/* The path an open of @path (from @dirfd) names, made absolute in @pb
 * (tg_path_prep, *@ex set when excluded), or, for a name of a descriptor
 * whose file is traced, that file's, in @fb (tg_path_fdname). */
const char *tg_path_open_prep(char *pb, char *fb, const char *path, int dirfd, int *ex)
{
	const char *ap = tg_path_prep(pb, path, dirfd, ex), *fd;

	if (*ex && (fd = tg_path_fdname(fb, ap))) {
		*ex = 0;
		return fd;
	}
	return ap;
}

/*
 * The path of the file descriptor @fd an open just made, as the kernel
 * names it (symbolic links and the ".." after one resolved), in @buf, when
 * it is another than @ap, the path the call was given, made absolute by
 * the letters: two names of one file are one path in the trace, and
 * "link/../f" the file it is.  When the open failed, @ap by the kernel's
 * name of its directory (tg_path_dir).  @ap when /proc cannot
 * tell, the file is gone or its name does not fit, for the files of
 * /proc, /sys and /dev (but /dev/shm, a file system programs share files
 * in), and when @path (from @dirfd, as the open had it)
 * is not the descriptor's file.
 */
const char *tg_path_opened(char *buf, const char *ap, int fd, const char *path, int dirfd)
{
	struct stat sa, sb;
	char link[40];
	long n;

	/* one that failed opened no file to name: its directory by the
	 * kernel's name, as a stat of it has (a failed open through a link
	 * names the file a later create through it makes) */
	if (fd < 0)
		return tg_path_dir(buf, ap, path, dirfd);
	/* (not the kernel's own files: /proc/self/status would become
	 * /proc/PID/status, another name in every process) */
	if (!ap || strncmp(ap, "/proc/", 6) == 0 || strncmp(ap, "/sys/", 5) == 0 ||
	    (strncmp(ap, "/dev/", 5) == 0 && strncmp(ap, "/dev/shm/", 9) != 0))
		return ap;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = syscall(SYS_readlinkat, AT_FDCWD, link, buf, TG_PATH_MAX - 1);
	if (n <= 0 || n >= TG_PATH_MAX - 1 || buf[0] != '/')
		return ap;
	buf[n] = 0;
	if (n > 10 && strcmp(buf + n - 10, " (deleted)") == 0)
		return ap;
	if (strcmp(buf, ap) == 0)
		return ap;
	/* the name given is that file's (not a descriptor another layer
	 * under the program made, as a user-level file system does) */
	if (syscall(SYS_newfstatat, dirfd, path, &sa, 0) != 0 ||
	    syscall(SYS_fstat, fd, &sb) != 0 || sa.st_dev != sb.st_dev || sa.st_ino != sb.st_ino)
		return ap;
	return buf;
}

/*
 * The file a call names by path without opening it (an unlink, a rename,
 * a mkdir, a stat, an access), by the kernel's name of its directory: an
 * open records the kernel's name of the file it made (tg_path_opened), so
 * "ln/f" unlinked or stat'ed where "real/f" was opened through the link
 * "ln" must be "real/f" too, or the trace has two files where there was
 * one (code_saturne's OMPIO lock probes, made through its restart
 * directory's link; a run directory reached through a link, as $SCRATCH
 * often is).  The directory is opened O_PATH for the kernel to name it:
 * no access, no change to it, the descriptor closed at once.
 *
 * Its names are kept (dir_cache).  A name the kernel gives as it was
 * given (no link on the way) costs nothing the next time: were a link put
 * in its way since, it would be named as given, as before 2026-12-04.
 * One through a link costs one stat, which finds whether the name still
 * leads to the same directory (a link pointed elsewhere, a directory
 * made anew), instead of three calls.  A call of the process that
 * removes, renames or makes a link forgets them all (tg_path_dir_forget).
 * One thread fills the cache at a time; another meanwhile names without
 * it.
 */
#define DIR_CACHE 64
static struct dir_cached {
	uint64_t hash;		/* of the name given, 0: empty */
	uint64_t dev, ino;	/* the directory it led to */
	uint32_t glen;		/* the name given's length */
	uint32_t gen;		/* dir_cache_gen then */
	int same;		/* the kernel names it so */
	char name[TG_PATH_MAX];	/* else the kernel's name */
} dir_cache[DIR_CACHE];
static _Atomic uint32_t dir_cache_gen;

void tg_path_dir_forget(void)
{
	dir_cache_gen++;
}

static uint64_t dir_hash(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	while (n--)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ull;
	return h | 1;
}

/* The kernel's name of directory @dir (@dlen bytes) in @buf (n bytes,
 * n == dlen when it is @dir itself), or -1; its device and inode in
 * *@st. */
static long dir_kernel_name(char *buf, int dirfd, const char *dir, size_t dlen, struct stat *st)
{
	char link[40];
	long n;
	int fd = (int)syscall(SYS_openat, dirfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = syscall(SYS_readlinkat, AT_FDCWD, link, buf, TG_PATH_MAX - 1);
	if (syscall(SYS_fstat, fd, st) != 0)
		n = -1;
	syscall(SYS_close, fd);
	if (n <= 0 || n >= TG_PATH_MAX - 1 || buf[0] != '/')
		return -1;
	buf[n] = 0;
	if ((size_t)n == dlen && memcmp(buf, dir, dlen) == 0)
		return (long)dlen;
	return n;
}

/* Whether the directory part of @path (up to its last slash) has a ".."
 * component: "s/../f" with s a link is not the letters' "f". */
static int dotdot_dir(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL, *p = path;

	while (p && p < slash) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 1;
		p += n + 1;
	}
	return 0;
}

/* @ap by the kernel's name of the directory @path (from @dirfd) names,
 * when that has a "..": the letters took it back over a link the kernel
 * follows first.  Not kept: such names are rare.  NULL when it cannot
 * tell. */
static const char *dotdot_name(char *buf, const char *ap, const char *path, int dirfd)
{
	const char *slash = strrchr(path, '/'), *base = strrchr(ap, '/');
	char dir[TG_PATH_MAX];
	size_t dlen = (size_t)(slash - path);
	struct stat st;
	long n;

	/* (a name that ends in "." or "..": not the letters' last name) */
	if (!base || dlen >= sizeof(dir) || strcmp(slash, "/.") == 0 || strcmp(slash, "/..") == 0)
		return NULL;
	memcpy(dir, path, dlen);
	dir[dlen] = 0;
	n = dir_kernel_name(buf, dirfd, dlen ? dir : "/", dlen, &st);
	if (n <= 0 || (size_t)n + strlen(base) >= TG_PATH_MAX)
		return NULL;
	if (n == 1)	/* the root: "/" and the name */
		n = 0;
	memcpy(buf + n, base, strlen(base) + 1);
	return buf;
}

const char *tg_path_dir(char *buf, const char *ap, const char *path, int dirfd)
{
	const char *slash;
	char dir[TG_PATH_MAX];
	struct dir_cached *c = NULL;
	struct stat st;
	size_t dlen;
	uint64_t h;
	long n;
	int e = errno, same = 0, hit = 0;

	if (ap && ap[0] == '/' && strncmp(ap, "/proc/", 6) != 0 && strncmp(ap, "/sys/", 5) != 0 &&
	    (strncmp(ap, "/dev/", 5) != 0 || strncmp(ap, "/dev/shm/", 9) == 0) && dotdot_dir(path)) {
		const char *k = dotdot_name(buf, ap, path, dirfd);
		errno = e;
		return k ? k : ap;
	}
	if (!ap || ap[0] != '/' || !(slash = strrchr(ap, '/')) || slash == ap ||
	    strncmp(ap, "/proc/", 6) == 0 || strncmp(ap, "/sys/", 5) == 0 ||
	    (strncmp(ap, "/dev/", 5) == 0 && strncmp(ap, "/dev/shm/", 9) != 0) ||
	    (dlen = (size_t)(slash - ap)) >= sizeof(dir))
		return ap;
	memcpy(dir, ap, dlen);
	dir[dlen] = 0;
	h = dir_hash(dir, dlen);
	if (!__atomic_exchange_n(&dir_cache_busy, 1, __ATOMIC_ACQUIRE)) {
		c = &dir_cache[h % DIR_CACHE];
		if (c->hash == h && c->glen == dlen && c->gen == dir_cache_gen &&
		    (c->same || (syscall(SYS_newfstatat, AT_FDCWD, dir, &st, 0) == 0 &&
				 (uint64_t)st.st_dev == c->dev && (uint64_t)st.st_ino == c->ino))) {
			hit = 1;
			same = c->same;
			n = same ? 0 : (long)strlen(c->name);
			if (!same)
				memcpy(buf, c->name, (size_t)n + 1);
		}
		if (hit)
			__atomic_store_n(&dir_cache_busy, 0, __ATOMIC_RELEASE);
	}
	if (!hit) {
		n = dir_kernel_name(buf, AT_FDCWD, dir, dlen, &st);
		same = n == (long)dlen && memcmp(buf, dir, dlen) == 0;
		if (c) {	/* the cache is ours */
			if (n > 0) {
				c->hash = h;
				c->gen = dir_cache_gen;
				c->glen = (uint32_t)dlen;
				c->dev = (uint64_t)st.st_dev;
				c->ino = (uint64_t)st.st_ino;
				c->same = same;
				if (!same)
					memcpy(c->name, buf, (size_t)n + 1);
			}
			__atomic_store_n(&dir_cache_busy, 0, __ATOMIC_RELEASE);
		}
	}
	errno = e;
	if (n <= 0 || same || (size_t)n + strlen(slash) >= TG_PATH_MAX)
		return ap;
	memcpy(buf + n, slash, strlen(slash) + 1);
	return buf;
}

/* ---- compound arguments ------------------------------------------------ */

void tg_put_stat(struct tg_call *c, const struct stat *st)
{
	if (!st) {
		*c->p++ = 0;
		return;
	}
	*c->p++ = 1;
	tg_put_s(c, (int64_t)st->st_size);
	tg_put_u(c, (uint64_t)st->st_mode);
}

void tg_put_stat64(struct tg_call *c, const struct stat64 *st)
{
	if (!st) {
		*c->p++ = 0;
		return;
	}
	*c->p++ = 1;
	tg_put_s(c, (int64_t)st->st_size);
	tg_put_u(c, (uint64_t)st->st_mode);
}

void tg_put_statx(struct tg_call *c, const void *p)
{
	const struct statx *stx = p;

	if (!stx) {
		*c->p++ = 0;
		return;
	}
	*c->p++ = 1;
	tg_put_s(c, (int64_t)stx->stx_size);
	tg_put_u(c, (uint64_t)stx->stx_mode);
}

void tg_put_iov(struct tg_call *c, const struct iovec *iov, int n)
{
	int i;

	if (!iov || n < 0)
		n = 0;
	if (n > 1024)
		n = 1024;
	tg_put_u(c, (uint64_t)n);
	for (i = 0; i < n; i++)
		tg_put_u(c, (uint64_t)iov[i].iov_len);
}

void tg_put_intarr(struct tg_call *c, const int *a, int n)
{
	int i;

	if (!a)
		n = 0;
	tg_put_u(c, (uint64_t)n);
	for (i = 0; i < n; i++)
		tg_put_s(c, a[i]);
}
