/*
 * shim.h - the tracer's internal interface: what every wrapper (generated
 * in wrappers.gen.c, or written by hand in hand.c) calls.
 *
 * A wrapper does, in order:
 *   if (!tg_on(layer)) -> call the real function, return;
 *   work out exclusions (tg_path_prep, tg_fd_excluded, tg_fstab_excluded);
 *   if (!tg_enter(&c, fn, layer)) -> call the real function, return;
 *   intern strings (tg_str), call the real function, tg_end(&c);
 *   tg_rec_begin(), tg_put_*() each argument, tg_rec_commit();
 *   return the real result, errno as the real call left it.
 * A poll call (the tables' "poll" option) uses tg_enter_poll(),
 * tg_poll_begin() and tg_poll_commit() instead, which fold it into the
 * thread's previous record when it would repeat it (a REPEAT record).
 * Everything here is hidden from the application (visibility "hidden"); only
 * the wrapped functions are exported.
 */
#ifndef TG_SHIM_H
#define TG_SHIM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>

#include "../libcommon/funcid.gen.h"
#include "../libcommon/rec.h"
#include "../libcommon/tg.h"
#include "../libcommon/varint.h"

#define TG_HIDDEN __attribute__((visibility("hidden")))
#define TG_EXPORT __attribute__((visibility("default")))
/*
 * The wrappers of calls that take MPI handles.  In the preloaded tracer
 * on x86-64 (TG_MPI_STUBS) the program's calls reach them through
 * shim/stubs.S, which sends them straight to the MPI library instead when
 * it is not MPICH's (its handles are not MPICH's ints): there each wrapper
 * is tg_w_NAME, hidden, and the stub is NAME.  The same wrappers compiled
 * against Open MPI's mpi.h (TG_OMPI, shim/mpi-ompi.c) are tg_wo_NAME, where
 * the stubs send the calls of a program of Open MPI.
 */
#if defined(TG_MPI_STUBS) && defined(TG_OMPI)
#define TG_MPINAME(n) tg_wo_##n
#define TG_MPIFN TG_HIDDEN
#elif defined(TG_MPI_STUBS)
#define TG_MPINAME(n) tg_w_##n
#define TG_MPIFN TG_HIDDEN
#else
#define TG_MPINAME(n) n
#define TG_MPIFN TG_EXPORT
#endif
/*
 * The entries a memory-hook library patches (calls.tab's "hooked" rows:
 * UCX's UCM and Open MPI's patcher overwrite the code of the mmap they
 * find, which in a preloaded tracer is ours).  On x86-64 (TG_MPI_STUBS)
 * NAME is a 16-byte stub in shim/stubs.S that jumps to the wrapper
 * tg_w_NAME; shim/hooks.c puts a patched stub back and sends the
 * wrapper's call where the patch went (tg_hook_to_NAME), so the call is
 * both recorded and seen by the library that hooked it.
 */
#ifdef TG_MPI_STUBS
#define TG_HOOKNAME(n) tg_w_##n
#define TG_HOOKFN TG_HIDDEN
#else
#define TG_HOOKNAME(n) n
#define TG_HOOKFN TG_EXPORT
#endif
struct tg_hooked {
	const char *name;
	unsigned char *entry;	/* the exported stub */
	void *wrapper;		/* tg_w_NAME, where the stub jumps */
	void **to;		/* where a patch sent it, or NULL */
};
extern const struct tg_hooked tg_hooked[] TG_HIDDEN;
extern const unsigned tg_nhooked TG_HIDDEN;
/* non-zero while a wrapper is inside the call it sent to a patch's target:
 * a target that calls the symbol again reaches the C library */
extern __thread int tg_hook_depth TG_HIDDEN;
#define TG_HOOKCALL(f, ...) ({ tg_hook_depth++;			\
	__auto_type r_ = f(__VA_ARGS__);				\
	tg_hook_depth--;						\
	r_; })
void tg_hooks_check(void) TG_HIDDEN;

/* strlen, 0 for NULL: the bytes of fputs and fgets (calls.tab) */
static inline size_t tg_strlen0(const char *s)
{
	return s ? strlen(s) : 0;
}

/* Where @stream stands, -1 if the C library cannot say (no stream, an
 * unseekable one); errno as it was.  The position after a stdio seek
 * (calls.tab: fseek's at), which a seek to the end takes from the file. */
int64_t tg_stream_pos(FILE *stream) TG_HIDDEN;
int64_t tg_scan_len(FILE *stream, int64_t at) TG_HIDDEN;
/* The bytes @stream's buffer holds after a write to it (__fpending), -1
 * with no stream: those of the calls so far that have not reached the
 * file.  A write that leaves fewer than the buffer held before it plus
 * its own flushed the buffer (calls.tab: the stdio writes' held). */
int64_t tg_stdio_held(FILE *stream) TG_HIDDEN;
/* The bytes @stream's buffer holds ahead after a read from it, read from
 * the file but not yet returned (glibc fills a whole buffer), -1 with no
 * stream (calls.tab: the stdio reads' ahead). */
int64_t tg_stdio_ahead(FILE *stream) TG_HIDDEN;

#define tg_likely(x) __builtin_expect(!!(x), 1)
#define tg_unlikely(x) __builtin_expect(!!(x), 0)

#define TG_MAX_DEPTH 32
#define TG_BUF_SIZE (1u << 20)	/* a thread's buffer, or its window of the file */
#define TG_RESERVE (64u * 1024)	/* room kept free for one record */
#define TG_SEAL_ROOM 80		/* and for a REPEAT and a CHECK frame after it,
				 * even just after a seal (a fatal signal) */
#define TG_FLUSH_EVERY 1000000000ull	/* a buffer's records wait at most 1 s */
#define TG_PATH_MAX 4096

struct tg_ptrslot {
	const void *key;
	uint64_t id;
};

struct tg_strslot {
	uint64_t hash;
	uint64_t id;
	char *s;
};

#define TG_PTRMAP 1024
#define TG_STRMAP 512

enum tg_bufkind {
	TG_BUF_NONE,		/* no record yet */
	TG_BUF_HEAP,		/* malloc'd, written to the sink when full */
	TG_BUF_WINDOW,		/* a mapped window of the trace file */
	TG_BUF_DISCARD,		/* tracing is off: records go nowhere */
};


/* The last poll record of a thread (a call marked poll in the call tables),
 * all of it but its seq and times: a next call identical to it is folded. */
#define TG_FOLD_ARGS 240	/* argument bytes; longer records are not folded */
struct tg_foldkey {
	int64_t parent, ret;
	int err;
	uint16_t fn;
	uint8_t depth;
	uint16_t len;
	unsigned char a[TG_FOLD_ARGS];
};

/* A REPEAT frame: length, type, tid, count, start, span, newline. */
#define TG_REPEAT_MAX (4 + 1 + 4 * TG_VARINT_MAX + 1)
/* Where a poll call's arguments are encoded, past the room a REPEAT frame
 * and the call's head may need in front of them. */
#define TG_POLL_GAP (TG_REPEAT_MAX + 4 + TG_CALL_HEAD_MAX)
/* The seq of a poll call not taken yet: it is taken when the call is
 * written, or when a call inside it needs it as its parent. */
#define TG_SEQ_LATE UINT64_MAX

/* Per-thread tracing state.  Buffers hold whole frames only: len is moved
 * past a frame when it is complete, so a flush from a signal handler never
 * writes half a record.  When the trace is a regular file, buf is the
 * thread's window of it, mapped shared (see core.c), and a record is in the
 * file the moment its length word is stored. */
struct tg_thread {
	unsigned char *buf;
	volatile size_t len;
	size_t cap;		/* bytes at buf; 0 until the first record */
	int kind;		/* enum tg_bufkind */
	int fold;		/* 1: the thread's last record is fold_key's poll
				 * (here, in what was padding: the fields every
				 * call uses keep their places) */
	uint64_t win_off;	/* TG_BUF_WINDOW: file offset of buf[0] */
	size_t sealed;		/* TG_BUF_WINDOW: bytes a CHECK frame closes */
	unsigned tid;
	int guard;		/* > 0 while the shim itself runs */
	int guard_io;		/* > 0: the guard lets POSIX and MPI calls
				 * through (the MPI-IO pointer queries, in which
				 * ROMIO opens, locks and reads its shared file
				 * pointer file, and makes a communicator for it
				 * through the PMPI_ entries of pmpi.c) */
	int depth;		/* traced calls in flight */
	int h5lib;		/* the outermost call in flight was made by
				 * HDF5 linked into the program (tg_h5s_in) */
	/* a signal handler's call on this thread must not write while the
	 * tracer is: inrec from a call's return (tg_end) to its commit,
	 * writing from its tg_rec_begin to its commit, busy inside tg_str
	 * and tg_ptr_id; such a call is not recorded (tg_count_unsafe) */
	volatile int inrec, writing, busy;
	struct tg_recbase base;	/* seq and time of the thread's last record */
	uint64_t flush_at;	/* TG_BUF_HEAP: write the buffer out at the
				 * first record ending after this (tg_now()),
				 * so a kill loses at most the last
				 * TG_FLUSH_EVERY ns; TG_BUF_WINDOW: close
				 * the chunk then, so that a kill leaves at
				 * most that much unchecked; else UINT64_MAX */
	uint64_t stack_seq[TG_MAX_DEPTH];
	uint8_t stack_layer[TG_MAX_DEPTH];
	uint64_t next_ptr_id;
	unsigned nptrs, nstrs;
	struct tg_ptrslot ptrs[TG_PTRMAP];
	struct tg_strslot strs[TG_STRMAP];
	struct tg_thread *next;
	uint64_t fold_n;	/* calls folded into fold_key's, not written yet */
	uint64_t fold_t0, fold_t1;	/* start of the first, end of the last */
	struct tg_foldkey fold_key;
};

struct tg_call {
	struct tg_thread *t;
	unsigned char *p;
	uint64_t seq;
	uint64_t t0, t1;
	int64_t parent;
	int64_t ret;		/* poll calls: the return value to record */
	unsigned char *a;	/* poll calls: where their arguments start */
	int err;
	int failed;		/* poll calls: errno is recorded */
	uint16_t fn;
	uint8_t layer;
	uint8_t depth;		/* its place in the thread's stack */
	uint8_t h5lib;		/* recorded one deeper: made inside HDF5 */
	uint8_t inrec0;		/* the thread's inrec when the call began */
};

/* 0 not yet initialised, 1 tracing, 2 off for good. */
extern int tg_state TG_HIDDEN;
extern __thread int tg_initing TG_HIDDEN;
extern int tg_ctor_started TG_HIDDEN;
extern unsigned tg_layer_mask TG_HIDDEN;
/* Say @msg (@n bytes, a whole line) on standard error, unless the program
 * moved its standard error elsewhere. */
void tg_say(const char *msg, size_t n) TG_HIDDEN;
/* At exit: say once when the program has HDF5 linked in statically (h5.c). */
void tg_h5_check_static(int rank) TG_HIDDEN;
extern int tg_nested TG_HIDDEN;
extern int tg_flush_always TG_HIDDEN;
extern int tg_info_on TG_HIDDEN;	/* TANGRAM_INFO: record MPI_Info contents */
extern int tg_clock_sync TG_HIDDEN;	/* TANGRAM_CLOCK_SYNC: align clocks in MPI_Init */
extern int tg_fold TG_HIDDEN;		/* TANGRAM_FOLD: fold repeated polls */
extern uint64_t tg_mono_base TG_HIDDEN;
extern _Atomic uint64_t tg_seq TG_HIDDEN;
extern __thread struct tg_thread *tg_self
	__attribute__((tls_model("initial-exec"))) TG_HIDDEN;

/* Initialise from the environment; safe to call many times. */
void tg_init(void) TG_HIDDEN;

/* The real definition of @name (of symbol version @ver if not NULL). */
void *tg_real(const char *name, const char *ver) TG_HIDDEN;

/* TG_STATIC (lib/libtangram.a): the real functions by name, __real_NAME
 * as the linker's --wrap resolves them (build/static/static-real.c), and
 * for the rest (MPI) a lookup mpi.c provides when it is linked in. */
struct tg_static_fn {
	const char *name;
	void *fn;
};
extern const struct tg_static_fn tg_static_real[] TG_HIDDEN;
extern const unsigned tg_static_nreal TG_HIDDEN;
void *tg_real_dyn(const char *name) TG_HIDDEN __attribute__((weak));

/* State of the calling thread, created on first use; NULL if impossible. */
struct tg_thread *tg_thread_new(void) TG_HIDDEN;

/* Write the thread's complete frames to the sink, and close the chunk
 * they form with a CHECK frame (tangram-rec(5)). */
void tg_flush_thread(struct tg_thread *t) TG_HIDDEN;

/* Flush every thread; used at exit, exec and fatal signals. */
void tg_flush_all(void) TG_HIDDEN;
/* An exec is about to replace the image: its records written out (once:
 * another thread's buffer is written but not emptied, as it may be
 * writing), and a stream that is not windowed ended with an END record
 * (tangram-rec(5)). */
void tg_end_image(void) TG_HIDDEN;

/* Close the sink for good (exit paths). */
void tg_shutdown(void) TG_HIDDEN;

/* Make room for a record of TG_RESERVE + @need bytes: flush, grow, or move
 * to a new window of the file. */
void tg_make_room(struct tg_thread *t, size_t need) TG_HIDDEN;

static inline void tg_room_raw(struct tg_thread *t, size_t need)
{
	if (tg_unlikely(t->cap - t->len < TG_RESERVE + TG_SEAL_ROOM + need))
		tg_make_room(t, need);
}

/* The thread writes a record that is not a folded poll: the calls folded
 * so far go first, as a REPEAT record, and folding starts afresh. */
void tg_fold_end(struct tg_thread *t) TG_HIDDEN;

/* Write the REPEAT record of @t's folded calls, if any, keeping the poll
 * they repeat (a seal or flush of the stream).  @t itself, with room. */
void tg_fold_put(struct tg_thread *t) TG_HIDDEN;

/* Room for a record of @need bytes more than usual in @t's buffer. */
static inline void tg_room(struct tg_thread *t, size_t need)
{
	if (tg_unlikely(t->fold))
		tg_fold_end(t);
	tg_room_raw(t, need);
}

/* Close the frame that starts at @start (its length word) and whose payload
 * ends at @end: the closing newline, then the length last, so that a process
 * killed half-way leaves a zero length, never a frame that looks whole.
 * Returns the end of the frame. */
static inline unsigned char *tg_frame_close(unsigned char *start,
					    unsigned char *end)
{
	*end = '\n';
	atomic_signal_fence(memory_order_release);
	tg_put_le32(start, (uint32_t)(end - start - 4));
	return end + 1;
}

/* The MPI rank became known: rename the stream, record it. */
void tg_set_rank(int rank, int world) TG_HIDDEN;

static inline uint64_t tg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec -
	       tg_mono_base;
}

/* Should a call of @layer be looked at at all? */
static inline int tg_on(int layer)
{
	struct tg_thread *t;

	if (tg_unlikely(tg_state != 1)) {
		if (tg_state != 0 || tg_initing || !tg_ctor_started)
			return 0;
		tg_init();
		if (tg_state != 1)
			return 0;
	}
	if (!(tg_layer_mask & (1u << layer)))
		return 0;
	t = tg_self;
	return !t || !t->guard ||
	       ((layer == TG_LAYER_POSIX || layer == TG_LAYER_MPI) && t->guard_io);
}

/* Count a call made while the thread's tracer was writing a record (by a
 * signal handler), which is not recorded; said once at exit. */
void tg_count_unsafe(void) TG_HIDDEN;

/* A call is made inside a poll call whose seq is not taken yet: take it,
 * so that the call can name it as its parent. */
void tg_seq_take(struct tg_thread *t) TG_HIDDEN;

/* The code of an HDF5 linked into the program (h5pcc's default), as
 * address ranges, found at the start (tg_h5_static_find); none otherwise. */
#ifndef TG_STATIC
extern size_t tg_h5s_n TG_HIDDEN;
void tg_h5_static_find(void) TG_HIDDEN;
/* Whether return address @ra is in that code. */
int tg_h5s_in(const void *ra) TG_HIDDEN;
#else
#define tg_h5s_n 0	/* the linked tracer has no HDF5 layer */
#define tg_h5s_in(ra) ((void)(ra), 0)
#endif

/* Begin a traced call: returns 1 if it is to be recorded.  @late: a poll
 * call, whose seq is taken late (TG_SEQ_LATE), when it is written or when a
 * call inside it needs it as its parent, so that a call folded into the one
 * before takes none.
 *
 * @site: the program's call site (tg_enter_as: inlined into the wrapper the
 * program called, the wrapper's return address): a call HDF5 linked into the program made
 * (which no wrapper sees called) is recorded one deeper than it is, as
 * made inside an HDF5 call, with no parent (h5lib), and so is every call
 * inside it. */
static inline __attribute__((always_inline)) int tg_enter_site(struct tg_call *c, unsigned fn,
							       int layer, int late,
							       const void *site)
{
	struct tg_thread *t = tg_self;

	if (tg_unlikely(!t) && !(t = tg_thread_new()))
		return 0;
	/* a call while the tracer writes is a signal handler's, unless the
	 * tracer made it (guard_io: the MPI-IO pointer queries after a call,
	 * before its record) */
	if (tg_unlikely(t->busy | t->writing | (t->inrec & !t->guard_io))) {
		tg_count_unsafe();
		return 0;
	}
	c->inrec0 = (uint8_t)t->inrec;
	if (t->depth) {
		if (t->depth >= TG_MAX_DEPTH)
			return 0;
		if (t->stack_layer[t->depth - 1] == layer && !tg_nested)
			return 0;
		if (tg_unlikely(t->stack_seq[t->depth - 1] == TG_SEQ_LATE))
			tg_seq_take(t);
		c->parent = (int64_t)t->stack_seq[t->depth - 1];
	} else {
		c->parent = -1;
		t->h5lib = tg_unlikely(tg_h5s_n) && tg_h5s_in(site);
	}
	c->h5lib = (uint8_t)t->h5lib;
	c->t = t;
	c->fn = (uint16_t)fn;
	c->layer = (uint8_t)layer;
	c->depth = (uint8_t)t->depth;
	c->seq = late ? TG_SEQ_LATE :
		atomic_fetch_add_explicit(&tg_seq, 1, memory_order_relaxed);
	t->stack_seq[t->depth] = c->seq;
	t->stack_layer[t->depth] = (uint8_t)layer;
	t->depth++;
	c->t0 = tg_now();
	return 1;
}

static inline __attribute__((always_inline)) int tg_enter_as(struct tg_call *c, unsigned fn,
							     int layer, int late)
{
	return tg_enter_site(c, fn, layer, late, __builtin_return_address(0));
}

/* A helper of several wrappers that begins a traced call: inlined into
 * each, so that the call's return address is the program's call site
 * (tg_enter_as). */
#define TG_SITE static inline __attribute__((always_inline))

static inline __attribute__((always_inline)) int tg_enter(struct tg_call *c, unsigned fn,
							   int layer)
{
	return tg_enter_as(c, fn, layer, 0);
}

static inline __attribute__((always_inline)) int tg_enter_poll(struct tg_call *c, unsigned fn,
								int layer)
{
	return tg_enter_as(c, fn, layer, 1);
}

/* The real call returned: take the time and its errno. */
static inline void tg_end(struct tg_call *c)
{
	c->err = errno;
	c->t1 = tg_now();
	c->t->inrec = 1;
}

/* Start the record of @c with return value @ret; @failed says whether the
 * call failed (errno is recorded only then). */
static inline void tg_rec_begin(struct tg_call *c, int64_t ret, int failed)
{
	struct tg_thread *t = c->t;
	unsigned char *p;

	t->writing = 1;
	tg_room(t, 0);
	p = t->buf + t->len + 4;
	c->p = tg_call_head_put(p, &t->base, c->fn, t->tid, c->seq, c->depth + c->h5lib, c->parent,
				c->t0, c->t1 - c->t0, ret, failed ? c->err : 0);
}

/* tg_rec_begin() for a poll call: its arguments are encoded (tg_put_*)
 * apart, and tg_poll_commit() writes the record or folds it. */
static inline void tg_poll_begin(struct tg_call *c, int64_t ret, int failed,
				 size_t need)
{
	struct tg_thread *t = c->t;

	t->writing = 1;
	tg_room_raw(t, need + TG_POLL_GAP);
	c->ret = ret;
	c->failed = failed;
	c->a = c->p = t->buf + t->len + TG_POLL_GAP;
}

/* Finish a poll call begun with tg_poll_begin(): fold it into the thread's
 * previous record if it is identical but for seq and times, else write it
 * (after the REPEAT record of the calls folded before).  Pops the call,
 * restores errno. */
void tg_poll_commit(struct tg_call *c) TG_HIDDEN;

/* tg_rec_begin() for a record that may need @need bytes more than usual
 * (large array arguments). */
static inline void tg_rec_begin_n(struct tg_call *c, int64_t ret, int failed,
				  size_t need)
{
	tg_room(c->t, need);
	tg_rec_begin(c, ret, failed);
}

/* Room for a definition record of at most @need bytes in thread @t;
 * returns where its payload starts (after the length).  Finish it with
 * tg_def_end(). */
unsigned char *tg_def_begin(struct tg_thread *t, size_t need) TG_HIDDEN;
void tg_def_end(struct tg_thread *t, unsigned char *end) TG_HIDDEN;

static inline void tg_put_u(struct tg_call *c, uint64_t v)
{
	c->p = tg_put_uvar(c->p, v);
}

static inline void tg_put_s(struct tg_call *c, int64_t v)
{
	c->p = tg_put_svar(c->p, v);
}

void tg_put_stat(struct tg_call *c, const struct stat *st) TG_HIDDEN;
void tg_put_stat64(struct tg_call *c, const struct stat64 *st) TG_HIDDEN;
void tg_put_statx(struct tg_call *c, const void *stx) TG_HIDDEN;
void tg_put_iov(struct tg_call *c, const struct iovec *iov, int n) TG_HIDDEN;
void tg_put_intarr(struct tg_call *c, const int *a, int n) TG_HIDDEN;

/* Finish the record, pop the call, restore errno. */
void tg_commit_slow(struct tg_thread *t) TG_HIDDEN;

static inline void tg_rec_commit(struct tg_call *c)
{
	struct tg_thread *t = c->t;
	unsigned char *end = tg_frame_close(t->buf + t->len, c->p);

	__atomic_store_n(&t->len, (size_t)(end - t->buf), __ATOMIC_RELEASE);
	t->depth--;
	if (tg_unlikely(tg_flush_always) || tg_unlikely(c->t1 >= t->flush_at))
		tg_commit_slow(t);
	t->writing = 0;
	t->inrec = c->inrec0;
	errno = c->err;
}

/* ---- symbolic ids and bookkeeping ------------------------------------ */

/* Symbolic id (>= 1) of memory address @p in this thread; 0 for NULL. */
uint64_t tg_ptr_id(struct tg_thread *t, const void *p) TG_HIDDEN;

/* Intern @s: emit its definition on first use; returns its id (0 = NULL). */
uint64_t tg_str(struct tg_thread *t, const char *s) TG_HIDDEN;

/* Make @path absolute (relative to @dirfd, or the cwd for AT_FDCWD) into
 * @out; returns @out, or NULL for a NULL path.  Sets *@excluded when the
 * path falls under TANGRAM_EXCLUDE. */
const char *tg_path_prep(char *out, const char *path, int dirfd, int *excluded)
	TG_HIDDEN;

/* The path the kernel gives descriptor @fd an open of @path (from
 * @dirfd) just made, in @buf, when it is another than @ap (that open's
 * tg_path_prep) and @path names that file; else @ap. */
const char *tg_path_opened(char *buf, const char *ap, int fd, const char *path, int dirfd)
	TG_HIDDEN;

/* @ap (a tg_path_prep path that a call removes or renames) with its
 * directory as the kernel names it (symbolic links resolved), in @buf,
 * when that is another name; else @ap.  Before the call: the directory
 * is there.  @path (from @dirfd) is the name as the call was given it: a
 * ".." in it after a link is taken back as the kernel takes it, not as
 * the letters of @ap did. */
const char *tg_path_dir(char *buf, const char *ap, const char *path, int dirfd) TG_HIDDEN;
void tg_path_dir_forget(void) TG_HIDDEN;
const char *tg_path_fdname(char *buf, const char *ap) TG_HIDDEN;
const char *tg_path_open_prep(char *pb, char *fb, const char *path, int dirfd,
			      int *ex) TG_HIDDEN;
int tg_fd_is_open(int fd) TG_HIDDEN;
int tg_fd_fifo(int fd) TG_HIDDEN;

/* Is descriptor @fd one of an excluded file? */
int tg_fd_excluded(int fd) TG_HIDDEN;

/* Descriptor bookkeeping: opened (excluded or not), duplicated, closed. */
void tg_fd_set(int fd, int excluded) TG_HIDDEN;
void tg_fd_dup(int oldfd, int newfd) TG_HIDDEN;

/* The shim's own descriptors are invisible to the program.  Is @fd the
 * sink's (the program's close() or dup() of it fails with EBADF)? */
int tg_fd_mine(int fd) TG_HIDDEN;
/* The program is about to make @fd its own (dup2 onto it): the sink moves
 * to another number first, or tracing stops with a warning. */
void tg_fd_yield(int fd) TG_HIDDEN;
/* close_range(@first, @last, @flags) through @real, leaving the sink's
 * descriptor open; returns what @real returns. */
/* Is the tracer's handler (install_signals) still @sig's, the program
 * having set none?  tg_sig_theirs: the program set its own. */
int tg_sig_ours(int sig) TG_HIDDEN;
void tg_sig_theirs(int sig) TG_HIDDEN;
int tg_close_range(unsigned first, unsigned last, int flags,
		   int (*real)(unsigned, unsigned, int)) TG_HIDDEN;

/* The fstab: symbolic ids of the program's FILE * streams (not to be
 * confused with libcommon's struct tg_stream).  Lookup (assigning one if
 * new) returns id + 1, 0 for NULL; *excluded tells if the stream is on an
 * excluded file. */
uint64_t tg_fstab_id(FILE *fp, int *excluded) TG_HIDDEN;
void tg_fstab_new(FILE *fp, int excluded) TG_HIDDEN;
void tg_fstab_drop(FILE *fp) TG_HIDDEN;
int tg_fstab_excluded(FILE *fp) TG_HIDDEN;

uint64_t tg_dir_id(const void *dirp) TG_HIDDEN;
void tg_dir_new(const void *dirp) TG_HIDDEN;
void tg_dir_drop(const void *dirp) TG_HIDDEN;

/* The descriptor under a stream or directory stream, or -1 (NULL too). */
int tg_fd_of_stream(FILE *fp) TG_HIDDEN;
int tg_fd_of_dir(void *dirp) TG_HIDDEN;

/* Count a call left out by TANGRAM_EXCLUDE. */
void tg_count_excluded(void) TG_HIDDEN;

/* The working directory changed. */
void tg_cwd_changed(void) TG_HIDDEN;

#endif
