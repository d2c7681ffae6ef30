/*
 * mpi-shim.h - what the MPI wrappers (mpi-wrappers.gen.c, mpi.c) use on
 * top of shim.h: symbolic ids of MPI handles, the in-band definitions of
 * communicators and datatypes, statuses and arrays.
 *
 * The shim never links libmpi: every MPI function it calls itself is a
 * PMPI_ entry point looked up with dlsym, so preloading the shim into a
 * program without MPI loads no MPI library.
 */
#ifndef TG_MPI_SHIM_H
#define TG_MPI_SHIM_H

#include "wrap-prelude.h"

#include <mpi.h>

#ifdef TG_MPI_STUBS
/* The MPI library's @name: past the tracer (RTLD_NEXT), or in the library
 * the program's first MPI call found (mpi.c), which a program may have
 * loaded where RTLD_NEXT does not look (Python's mpi4py: an extension
 * module that links libmpi, loaded RTLD_LOCAL). */
void *tg_mpi_real(const char *name) TG_HIDDEN;
#undef tg_real
#define tg_real(name, ver) tg_mpi_real(name)
#endif

#ifdef TG_OMPI
/*
 * Compiled against Open MPI's mpi.h (shim/mpi-ompi.c): every handle is a
 * pointer, and a predefined one the address of a global of libmpi, which
 * the tracer must not link (it is preloaded into programs without MPI):
 * each is looked up in the program's Open MPI library at its first use.
 */
void *tg_ompi_sym(const char *name) TG_HIDDEN;
#undef OMPI_PREDEFINED_GLOBAL
#define OMPI_PREDEFINED_GLOBAL(type, global) ((type)TG_OSYM(global))
#define TG_OSYM(g)                                                                \
	({                                                                         \
		static void *tg_p_;                                                \
		void *tg_q_ = __atomic_load_n(&tg_p_, __ATOMIC_RELAXED);           \
		if (tg_unlikely(!tg_q_))                                           \
			__atomic_store_n(&tg_p_, tg_q_ = tg_ompi_sym(#g), __ATOMIC_RELAXED); \
		tg_q_;                                                             \
	})
#define TG_HVAL(v) ((uint64_t)(uintptr_t)(v))
#define TG_HANDLE(type, v) ((type)(uintptr_t)(v))
/* A rank argument as MPICH numbers the special ones, which the records
 * keep whatever the library (MPICH: MPI_ANY_SOURCE -2, MPI_PROC_NULL -1,
 * MPI_ROOT -3). */
static inline int tg_rank_std(int r)
{
	return r == MPI_ANY_SOURCE ? -2 : r == MPI_PROC_NULL ? -1 : r == MPI_ROOT ? -3 : r;
}
#define TG_RANK(r) tg_rank_std(r)
/* The order and distribution constants of a subarray or darray as MPICH
 * numbers them (MPI_ORDER_C 56, MPI_ORDER_FORTRAN 57, MPI_DISTRIBUTE_BLOCK
 * 121, _CYCLIC 122, _NONE 123, MPI_DISTRIBUTE_DFLT_DARG -49767), as the
 * #type lines have them; a window lock's type (MPI_LOCK_EXCLUSIVE 234,
 * _SHARED 235) and the MPI_MODE_* bits of an assert (NOCHECK 1024,
 * NOSTORE 2048, NOPUT 4096, NOPRECEDE 8192, NOSUCCEED 16384). */
static inline int tg_const_std(int v, int what)
{
	switch (what) {
	case 0:
		return v == MPI_ORDER_C ? 56 : v == MPI_ORDER_FORTRAN ? 57 : v;
	case 1:
		return v == MPI_DISTRIBUTE_BLOCK ? 121 : v == MPI_DISTRIBUTE_CYCLIC ? 122 :
		       v == MPI_DISTRIBUTE_NONE ? 123 : v;
	case 3:
		return v == MPI_LOCK_EXCLUSIVE ? 234 : v == MPI_LOCK_SHARED ? 235 : v;
	case 4: {
		static const int mode[5][2] = {
			{ MPI_MODE_NOCHECK, 1024 }, { MPI_MODE_NOSTORE, 2048 },
			{ MPI_MODE_NOPUT, 4096 }, { MPI_MODE_NOPRECEDE, 8192 },
			{ MPI_MODE_NOSUCCEED, 16384 },
		};
		int i, out = 0;
		for (i = 0; i < 5; i++)
			if (v & mode[i][0]) {
				out |= mode[i][1];
				v &= ~mode[i][0];
			}
		return out | v;
	}
	default:
		return v == MPI_DISTRIBUTE_DFLT_DARG ? -49767 : v;
	}
}
#define TG_CONST(v, what) tg_const_std((v), (what))
#else
/* A handle as a 64-bit key: MPICH handles are ints, MPI_File a pointer. */
static inline uint64_t tg_hval_file(MPI_File f)
{
	return (uint64_t)(uintptr_t)f;
}

static inline uint64_t tg_hval_int(int h)
{
	return (uint64_t)(uint32_t)h;
}

#define TG_HVAL(v) _Generic((v), MPI_File: tg_hval_file, default: tg_hval_int)(v)
#define TG_HANDLE(type, v) ((type)(uint32_t)(v))
#define TG_RANK(r) (r)
#define TG_CONST(v, what) (v)
#endif

/* Encoded symbolic id of handle @val of kind @kind (enum tg_mpih): a
 * predefined handle encodes as itself, others by an id assigned on first
 * sight. */
uint64_t tg_h_enc(int kind, uint64_t val) TG_HIDDEN;
/* The same, and in @tok which object the value names now (for
 * tg_h_free()). */
uint64_t tg_h_enc_tok(int kind, uint64_t val, uint64_t *tok) TG_HIDDEN;

/* A call made a new object: give it a fresh id and, for communicators and
 * datatypes, emit its definition record first.  Returns the encoded id. */
uint64_t tg_h_new(struct tg_call *c, int kind, uint64_t val) TG_HIDDEN;

/* TANGRAM_INFO=1: record the key/value pairs of @info (an INFO record)
 * unless it is MPI_INFO_NULL. */
void tg_info_def(struct tg_thread *t, MPI_Info info) TG_HIDDEN;

/* The object @tok (of tg_h_enc_tok() before the call that freed it; 0:
 * whichever has the value now) was freed: its id returns to the pool,
 * unless another thread was given the value again meanwhile. */
void tg_h_free(int kind, uint64_t val, uint64_t tok) TG_HIDDEN;

/* Array lengths the standard leaves to the communicator. */
int tg_comm_arrlen(MPI_Comm comm) TG_HIDDEN;
int tg_nbr_in(MPI_Comm comm) TG_HIDDEN;
int tg_nbr_out(MPI_Comm comm) TG_HIDDEN;
int tg_is_root(MPI_Comm comm, int root) TG_HIDDEN;
int tg_cartdim(MPI_Comm comm) TG_HIDDEN;

/* Edges of a graph topology: the last entry of its index array. */
static inline int tg_graph_nedges(int nnodes, const int *indx)
{
	return nnodes > 0 && indx ? indx[nnodes - 1] : 0;
}

static inline int tg_nonneg(int n)
{
	return n < 0 ? 0 : n;
}

#define TG_ARRCAP 16384

static inline long tg_cap(long n)
{
	return n < 0 ? 0 : n > TG_ARRCAP ? TG_ARRCAP : n;
}

/* An integer array of any element type: count, then each, zig-zag. */
#define TG_PUT_ARR(c, a, n)                                        \
	do {                                                       \
		long tg_n_ = (a) ? tg_cap((long)(n)) : 0, tg_i_;   \
		tg_put_u((c), (uint64_t)tg_n_);                    \
		for (tg_i_ = 0; tg_i_ < tg_n_; tg_i_++)            \
			tg_put_s((c), (int64_t)(a)[tg_i_]);        \
	} while (0)

/* An array of the constants TG_CONST @what names. */
#define TG_PUT_CARR(c, a, n, what)                                  \
	do {                                                       \
		long tg_n_ = (a) ? tg_cap((long)(n)) : 0, tg_i_;   \
		tg_put_u((c), (uint64_t)tg_n_);                    \
		for (tg_i_ = 0; tg_i_ < tg_n_; tg_i_++)            \
			tg_put_s((c), (int64_t)TG_CONST((a)[tg_i_], (what))); \
	} while (0)

#define TG_PUT_HARR(c, kind, a, n)                                         \
	do {                                                               \
		long tg_n_ = (a) ? tg_cap((long)(n)) : 0, tg_i_;           \
		tg_put_u((c), (uint64_t)tg_n_);                            \
		for (tg_i_ = 0; tg_i_ < tg_n_; tg_i_++)                    \
			tg_put_u((c), tg_h_enc((kind), TG_HVAL((a)[tg_i_]))); \
	} while (0)

/* A status (NULL: none): its source and tag, the standard's empty status
 * for a cancelled request's; @probe: a probe's, which no cancel touches. */
void tg_put_status(struct tg_call *c, const MPI_Status *st, int probe) TG_HIDDEN;
/* An MPI-IO status: the bytes the call moved. */
void tg_put_iostatus(struct tg_call *c, const MPI_Status *st) TG_HIDDEN;
/* Where @fh's individual / shared file pointer stands (in etypes), -1 if
 * it cannot be told; not recorded as calls. */
int64_t tg_io_position(MPI_File fh) TG_HIDDEN;
int64_t tg_io_shared(MPI_File fh) TG_HIDDEN;
/* MPI_Comm_idup: the #comm line of *@comm waits for *@req to complete;
 * returns 1 if it does (the call did not fail). */
int64_t tg_comm_defer(const MPI_Comm *comm, const MPI_Request *req, int failed) TG_HIDDEN;
int64_t tg_session_world(const char *pset, const MPI_Group *group, int failed) TG_HIDDEN;
void tg_put_statuses(struct tg_call *c, const MPI_Status *st, long n) TG_HIDDEN;

/*
 * A program that passes MPI_STATUSES_IGNORE still gets its statuses
 * recorded: tg_statuses_pre() gives the array to pass instead (@local, of
 * TG_STATUSES_LOCAL entries, or a malloc'd one; the program's own if
 * neither will do), tg_statuses_ret() turns the MPI_ERR_IN_STATUS that
 * only a statuses array gets back into the first error, as the program
 * would have had it, and tg_statuses_post() frees what pre allocated.
 */
#define TG_STATUSES_LOCAL 16
MPI_Status *tg_statuses_pre(MPI_Status *st, long n, MPI_Status *local) TG_HIDDEN;
int tg_statuses_ret(int ret, const MPI_Status *used, const MPI_Status *st, long n) TG_HIDDEN;
void tg_statuses_post(MPI_Status *used, const MPI_Status *st, const MPI_Status *local) TG_HIDDEN;

/* Requests of a wait/test call, captured before it (the call overwrites
 * completed ones with MPI_REQUEST_NULL). */
struct tg_reqs {
	long n;
	uint64_t *vals, *ids, *toks;	/* handle values, their ids, which
					 * objects they were (tg_h_enc_tok()) */
	uint64_t small[3][16];
};

void tg_reqs_pre(struct tg_reqs *r, const MPI_Request *a, long n) TG_HIDDEN;
void tg_reqs_put(struct tg_call *c, const struct tg_reqs *r) TG_HIDDEN;
/* Free the ids of requests that completed; release @r. */
void tg_reqs_post(struct tg_reqs *r, const MPI_Request *a, int failed) TG_HIDDEN;

#endif
