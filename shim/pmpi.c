/*
 * pmpi.c - the tracer's PMPI_ entry points: the calls the MPI library
 * makes of itself that are the program's, or that order its I/O.
 *
 * Two kinds of caller reach an MPI library's PMPI_ functions and are not
 * the program's own profiling calls:
 *
 * ROMIO synchronises its ranks inside the collective MPI-IO calls: an
 * MPI_File_preallocate writes on one rank and then holds every rank in an
 * MPI_Barrier, an MPI_File_set_size truncates on one rank and then
 * broadcasts, a collective write gathers every rank's offsets before any
 * rank writes.  It makes those calls through its library's PMPI_ entry
 * points.  Called inside an MPI-IO call of the same thread, its blocking
 * communication and communicator calls (ROMIO_INSIDE in gen-calls.py)
 * are recorded as that call's kind would be at the program's level,
 * nested in the MPI-IO call (parent=), so hb-build(1) can order what the
 * MPI-IO call did by them.  Nonblocking calls are left out: their
 * completion may come in another call of the program's.
 *
 * MPICH's Fortran 2008 bindings (use mpi_f08) are thin functions in
 * libmpichfort, mpi_barrier_f08_ and the like, that call the C library's
 * PMPI_Barrier, not MPI_Barrier: without these entries a program written
 * with mpi_f08 had its MPI_Init, its barriers, its MPI_File_open and
 * most of its calls untraced.  A PMPI_ call whose caller is the binding
 * of that very procedure (the caller's symbol is mpi_<name>_f08...) is
 * the program's call and is recorded as MPI_<name>; the calls a binding
 * makes to help itself (PMPI_Comm_size in mpi_alltoallw_f08ts_), those
 * of the profiling bindings (pmpir_..._f08_, a Fortran tool's own) and
 * every other caller (the program's own PMPI_ calls, a profiling layer,
 * the tracer) go straight to the library, untraced.
 *
 * Which caller a return address is in is looked up once (dladdr) and
 * kept in a small table.
 *
 * The preloaded and the linked tracer only: a static program's library
 * calls its PMPI_ functions inside its own archive.
 */
#include "mpi-shim.h"

#include <dlfcn.h>
#include <string.h>
#include <strings.h>

/* The innermost traced call of this thread is an MPI-IO call. */
static int in_mpiio(void)
{
	const struct tg_thread *t = tg_self;

	return t && t->depth && t->stack_layer[t->depth - 1] == TG_LAYER_MPIIO;
}

#ifdef TG_OMPI
/* Open MPI's Fortran bindings: one function under many names, ompi_<name>_f
 * and its aliases mpi_<name>, mpi_<name>_, mpi_<name>__, MPI_<NAME>,
 * MPI_<Name>_f, MPI_<Name>_f08, pmpi_<name>_ and the like; dladdr gives
 * whichever one.  Compared without case. */
static int ompi_binding_of(const char *sym, const char *name)
{
	static const char *const pre[] = { "ompi_", "mpi_", "pmpi_" };
	static const char *const suf[] = { "", "_", "__", "_f", "_f08" };
	size_t n = strlen(name), i, k;

	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		size_t m = strlen(pre[i]);
		if (strncasecmp(sym, pre[i], m) != 0 || strncasecmp(sym + m, name, n) != 0)
			continue;
		for (k = 0; k < sizeof(suf) / sizeof(suf[0]); k++)
			if (strcasecmp(sym + m + n, suf[k]) == 0)
				return 1;
	}
	return 0;
}
#endif

/* Whether the symbol @sym, a function that called PMPI_@name, is a
 * Fortran binding of MPI_@name: mpi_<name>_f08 followed by anything
 * (MPICH: _f08_, _f08ts_, _f08_large_), compared without case; for a
 * large-count PMPI_<name>_c the binding's name has <name> and _large;
 * and, built for Open MPI, one of its names for the binding. */
static int binding_of(const char *sym, const char *name)
{
	size_t n = strlen(name), i;

#ifdef TG_OMPI
	if (ompi_binding_of(sym, name))
		return 1;
#endif
	if (strncasecmp(sym, "mpi_", 4) != 0)
		return 0;
	sym += 4;
	if (strncasecmp(sym, name, n) == 0 && strncasecmp(sym + n, "_f08", 4) == 0)
		return 1;
	if (n > 2 && strcmp(name + n - 2, "_c") == 0 && strncasecmp(sym, name, n - 2) == 0 &&
	    strncasecmp(sym + n - 2, "_f08", 4) == 0) {
		for (i = n + 2; sym[i]; i++)
			if (strncasecmp(sym + i, "_large", 6) == 0)
				return 1;
	}
	return 0;
}

/*
 * The verdicts by return address: a slot holds (address << 1) | verdict,
 * 0 when empty, written once with a compare-and-swap, so readers need no
 * lock.  A full table only costs a lookup per call.
 */
#define SITES 4096
static uint64_t sites[SITES];

static int binding_call(const void *ra, const char *name)
{
	uint64_t key = (uint64_t)(uintptr_t)ra, h = (key * 0x9e3779b97f4a7c15ull) >> 52;
	unsigned i;
	Dl_info info;
	int yes;

	for (i = 0; i < 16; i++) {
		uint64_t v = __atomic_load_n(&sites[(h + i) % SITES], __ATOMIC_ACQUIRE);
		if (v == 0)
			break;
		if (v >> 1 == key)
			return (int)(v & 1);
	}
	yes = dladdr(ra, &info) && info.dli_sname && binding_of(info.dli_sname, name);
	for (i = 0; i < 16; i++) {
		uint64_t want = 0, v = key << 1 | (uint64_t)yes;
		if (__atomic_compare_exchange_n(&sites[(h + i) % SITES], &want, v, 0,
						__ATOMIC_RELEASE, __ATOMIC_ACQUIRE) ||
		    want >> 1 == key)
			break;
	}
	return yes;
}

/* Whether the call of PMPI_@name returning to @ra goes to the tracer's
 * wrapper of MPI_@name: made by the Fortran binding of that procedure,
 * or, when @inio, by the library inside an MPI-IO call of the thread. */
TG_HIDDEN int tg_pmpi_traced(const void *ra, const char *name, int inio)
{
	if (inio && in_mpiio())
		return 1;
	return binding_call(ra, name);
}

#if defined(TG_MPI_STUBS) && defined(TG_OMPI)
#define TG_PMPI_WRAPPER(name, params) TG_HIDDEN int tg_wo_##name params;
#elif defined(TG_MPI_STUBS)
#define TG_PMPI_WRAPPER(name, params) TG_HIDDEN int tg_w_##name params;
#else
#define TG_PMPI_WRAPPER(name, params)
#endif

/* The calls written by hand in mpi.c, for their Fortran bindings. */
#define TG_PMPI_HAND(name, params, args)                                                      \
	TG_PMPI_WRAPPER(MPI_##name, params)                                                   \
	int PMPI_##name params;                                                               \
	TG_MPIFN int TG_MPINAME(PMPI_##name) params                                          \
	{                                                                                     \
		static int(*real) params;                                                     \
		if (tg_unlikely(!real) && !(real = (int(*) params)tg_real("PMPI_" #name, NULL))) \
			return MPI_ERR_INTERN;                                                \
		if (!binding_call(__builtin_return_address(0), #name))                       \
			return real args;                                                     \
		return TG_MPINAME(MPI_##name) args;                                           \
	}

TG_PMPI_HAND(Init, (int *argc, char ***argv), (argc, argv))
TG_PMPI_HAND(Init_thread, (int *argc, char ***argv, int required, int *provided),
	     (argc, argv, required, provided))
TG_PMPI_HAND(Finalize, (void), ())
TG_PMPI_HAND(Abort, (MPI_Comm comm, int errorcode), (comm, errorcode))

#include "pmpi.gen.c"
