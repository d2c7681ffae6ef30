/*
 * mpi.c - MPI support of the shim: symbolic ids of MPI handles, the
 * definitions of communicators (member world ranks, taken locally) and
 * derived datatypes (envelope and contents), and the wrappers written by
 * hand: MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort.
 */
#include "mpi-shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "../libcommon/names.h"

/* ---- PMPI entry points, found at run time ------------------------------ */

static void *pmpi(const char *name)
{
	/* the library's, past the tracer's own PMPI_ entries (pmpi.c) */
#ifdef TG_MPI_STUBS
	void *p = tg_mpi_real(name);
#else
	void *p = dlsym(RTLD_NEXT, name);
#endif

	return p ? p : dlsym(RTLD_DEFAULT, name);
}

#ifdef TG_STATIC
/* Linked into the program (lib/libtangram.a): an MPI wrapper finds the MPI
 * library's definition after the program's, as the preloaded one does. */
void *tg_real_dyn(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}
#endif

#define PMPI_FN(ret, name, params)                                  \
	static ret(*p_##name) params;                              \
	static ret(*get_##name(void)) params                       \
	{                                                          \
		if (!p_##name)                                     \
			p_##name = (ret(*) params)pmpi("P" #name); \
		return p_##name;                                   \
	}

PMPI_FN(int, MPI_Comm_rank, (MPI_Comm, int *))
PMPI_FN(int, MPI_Comm_size, (MPI_Comm, int *))
PMPI_FN(int, MPI_Comm_remote_size, (MPI_Comm, int *))
PMPI_FN(int, MPI_Comm_test_inter, (MPI_Comm, int *))
PMPI_FN(int, MPI_Comm_group, (MPI_Comm, MPI_Group *))
PMPI_FN(int, MPI_Comm_remote_group, (MPI_Comm, MPI_Group *))
PMPI_FN(int, MPI_Group_size, (MPI_Group, int *))
PMPI_FN(int, MPI_Group_translate_ranks, (MPI_Group, int, const int *, MPI_Group, int *))
PMPI_FN(int, MPI_Group_free, (MPI_Group *))
PMPI_FN(int, MPI_Group_rank, (MPI_Group, int *))
PMPI_FN(int, MPI_Group_union, (MPI_Group, MPI_Group, MPI_Group *))
PMPI_FN(int, MPI_Initialized, (int *))
PMPI_FN(int, MPI_Type_get_envelope, (MPI_Datatype, int *, int *, int *, int *))
PMPI_FN(int, MPI_Type_get_contents, (MPI_Datatype, int, int, int, int *, MPI_Aint *, MPI_Datatype *))
PMPI_FN(int, MPI_Type_free, (MPI_Datatype *))
PMPI_FN(int, MPI_Topo_test, (MPI_Comm, int *))
PMPI_FN(int, MPI_Cartdim_get, (MPI_Comm, int *))
PMPI_FN(int, MPI_Graph_neighbors_count, (MPI_Comm, int, int *))
PMPI_FN(int, MPI_Dist_graph_neighbors_count, (MPI_Comm, int *, int *, int *))
PMPI_FN(int, MPI_Info_get_nkeys, (MPI_Info, int *))
PMPI_FN(int, MPI_Info_get_nthkey, (MPI_Info, int, char *))
PMPI_FN(int, MPI_Info_get_string, (MPI_Info, const char *, int *, char *, int *))
PMPI_FN(int, MPI_Barrier, (MPI_Comm))
PMPI_FN(int, MPI_Get_elements_x, (const MPI_Status *, MPI_Datatype, MPI_Count *))
PMPI_FN(int, MPI_File_get_position, (MPI_File, MPI_Offset *))
PMPI_FN(int, MPI_File_get_position_shared, (MPI_File, MPI_Offset *))
PMPI_FN(int, MPI_File_get_amode, (MPI_File, int *))
PMPI_FN(int, MPI_File_get_errhandler, (MPI_File, MPI_Errhandler *))
PMPI_FN(int, MPI_File_set_errhandler, (MPI_File, MPI_Errhandler))
PMPI_FN(int, MPI_Errhandler_free, (MPI_Errhandler *))
PMPI_FN(int, MPI_Bcast, (void *, int, MPI_Datatype, int, MPI_Comm))
PMPI_FN(int, MPI_Test_cancelled, (const MPI_Status *, int *))

/* ---- handle ids ---------------------------------------------------------- */

#define HMAP 8192
#define HIDS 65536

struct hslot {
	uint64_t val;
	uint32_t id;
	uint32_t gen;	/* which object of the value: one more each time */
	uint8_t used;	/* 0 empty, 1 live, 2 deleted */
};

static uint32_t hgen;	/* under hmu */

struct hmap {
	struct hslot slot[HMAP];
	unsigned char taken[HIDS / 8];
	uint32_t next_big;
	unsigned live;
};

static struct hmap *maps[TG_H_COUNT];
static pthread_mutex_t hmu = PTHREAD_MUTEX_INITIALIZER;

#ifdef TG_OMPI
/*
 * Open MPI's predefined handles, and MPICH's value of each: a record names
 * a predefined handle by MPICH's value whatever the library, so that one
 * table of names (libcommon/mpinames.gen.c) reads every trace.  The list
 * is that table's, kept to the names Open MPI's mpi.h defines
 * (build/shim/ompi-predef.h, made by the Makefile).
 */
#define PREDEFS 1024

static struct predef {
	uint64_t addr;
	uint32_t std;
	int kind;	/* -1: empty */
} predefs[PREDEFS];
static pthread_once_t predef_once = PTHREAD_ONCE_INIT;

static unsigned hhash(uint64_t v);

static void predef_add(int kind, uint32_t std, uint64_t addr)
{
	unsigned i = hhash(addr) & (PREDEFS - 1), n;

	for (n = 0; n < PREDEFS; n++, i = (i + 1) & (PREDEFS - 1)) {
		if (predefs[i].kind < 0) {
			predefs[i] = (struct predef){ addr, std, kind };
			return;
		}
		if (predefs[i].addr == addr && predefs[i].kind == kind)
			return;	/* an alias (MPI_LONG_LONG): the first name's */
	}
}

static void predef_init(void)
{
	int i;

	for (i = 0; i < PREDEFS; i++)
		predefs[i].kind = -1;
#define TG_PREDEF(kind, std, name) predef_add(kind, std, TG_HVAL(name));
#include "ompi-predef.h"
#undef TG_PREDEF
	predef_add(TG_H_FILE, 0, TG_HVAL(MPI_FILE_NULL));
	/* MPI-1's MPI_LB and MPI_UB, which MPI-3 removed and Open MPI's mpi.h
	 * hides, are still in libmpi and still given by Fortran programs
	 * (ABINIT's file views): named, the views they bound are placed */
	for (i = 0; tg_mpi_names[i].name; i++) {
		const char *n = tg_mpi_names[i].name;
		void *sym;
		if (tg_mpi_names[i].kind == TG_H_DTYPE &&
		    (strcmp(n, "MPI_LB") == 0 || strcmp(n, "MPI_UB") == 0) &&
		    (sym = tg_ompi_sym(strcmp(n, "MPI_LB") == 0 ? "ompi_mpi_lb" : "ompi_mpi_ub")))
			predef_add(TG_H_DTYPE, tg_mpi_names[i].val, (uint64_t)(uintptr_t)sym);
	}
}

/* Whether @val is a predefined handle of @kind; if so *@std is MPICH's. */
static int predef_std(int kind, uint64_t val, uint64_t *std)
{
	unsigned i, n;

	pthread_once(&predef_once, predef_init);
	i = hhash(val) & (PREDEFS - 1);
	for (n = 0; n < PREDEFS && predefs[i].kind >= 0; n++, i = (i + 1) & (PREDEFS - 1))
		if (predefs[i].addr == val && predefs[i].kind == kind) {
			*std = predefs[i].std;
			return 1;
		}
	return 0;
}

static int builtin(int kind, uint64_t val)
{
	uint64_t std;

	return val == 0 || predef_std(kind, val, &std);
}

/* The encoded id of builtin handle @val. */
static uint64_t builtin_enc(int kind, uint64_t val)
{
	uint64_t std = 0;

	predef_std(kind, val, &std);
	return ((std & 0xffffffffu) << 1) | 1;
}
#else
static int builtin(int kind, uint64_t val)
{
	if (kind == TG_H_FILE)
		return val == 0;
	/* MPICH marks completed requests with builtin-kind handles of its own;
	 * only the null request is predefined */
	if (kind == TG_H_REQ)
		return val == TG_HVAL(MPI_REQUEST_NULL);
	if (kind == TG_H_MSG)
		return val == TG_HVAL(MPI_MESSAGE_NULL) || val == TG_HVAL(MPI_MESSAGE_NO_PROC);
	return ((val >> 30) & 3) < 2;	/* MPICH: invalid (null) or builtin */
}

static uint64_t builtin_enc(int kind, uint64_t val)
{
	(void)kind;
	return ((val & 0xffffffffu) << 1) | 1;
}
#endif

static unsigned hhash(uint64_t v)
{
	return (unsigned)((v * 0x9E3779B97F4A7C15ull) >> 51) & (HMAP - 1);
}

static struct hmap *map_of(int kind)
{
	if (!maps[kind])
		maps[kind] = calloc(1, sizeof(struct hmap));
	return maps[kind];
}

static uint32_t take_id(struct hmap *m)
{
	uint32_t id;

	for (id = 1; id < HIDS; id++)
		if (!(m->taken[id / 8] & (1u << (id % 8)))) {
			m->taken[id / 8] |= (unsigned char)(1u << (id % 8));
			return id;
		}
	return HIDS + m->next_big++;
}

static void give_id(struct hmap *m, uint32_t id)
{
	if (id < HIDS)
		m->taken[id / 8] &= (unsigned char)~(1u << (id % 8));
}

static struct hslot *find(struct hmap *m, uint64_t val, int add)
{
	unsigned i = hhash(val), n;
	struct hslot *tomb = NULL;

	for (n = 0; n < HMAP; n++, i = (i + 1) & (HMAP - 1)) {
		struct hslot *s = &m->slot[i];
		if (s->used == 1 && s->val == val)
			return s;
		if (s->used == 2 && !tomb)
			tomb = s;
		if (s->used == 0) {
			if (!add)
				return NULL;
			if (!tomb)
				tomb = s;
			break;
		}
	}
	if (!add || !tomb || m->live >= HMAP * 3 / 4)
		return NULL;
	tomb->used = 1;
	tomb->val = val;
	tomb->id = take_id(m);
	tomb->gen = ++hgen;
	m->live++;
	return tomb;
}

/* ---- requests that share a handle ------------------------------------------ */

/* MPICH returns one builtin-kind handle for every send that completed at
 * once (its lightweight requests), Open MPI one request for every
 * operation with MPI_PROC_NULL, so several live requests can share a
 * value.  Each gets an id of its own, queued in order of creation; a call
 * that names the value k times means the k oldest, and each one that
 * completes frees the oldest: of those its own thread made, when it made
 * some (threads sending at once share the value too).  Called with hmu
 * held. */
#define SHQ 4096

static struct {
	uint64_t val;
	uint32_t id;
	unsigned tid;		/* the thread that made it */
} shq[SHQ];
static int shn;

static unsigned shq_me(void)
{
	return tg_self ? tg_self->tid : 0;
}

static int shared(int kind, uint64_t val)
{
#ifdef TG_OMPI
	/* Open MPI's: the request it gives every operation with
	 * MPI_PROC_NULL, complete from the start */
	return kind == TG_H_REQ && val == TG_HVAL(TG_OSYM(ompi_request_empty));
#else
	return kind == TG_H_REQ && ((val >> 30) & 3) == 1;
#endif
}

static uint32_t shq_push(struct hmap *m, uint64_t val)
{
	if (!m)
		return 0;
	if (shn == SHQ) {	/* never completed: forget the oldest */
		give_id(m, shq[0].id);
		memmove(shq, shq + 1, sizeof(shq[0]) * (SHQ - 1));
		shn--;
	}
	shq[shn].val = val;
	shq[shn].id = take_id(m);
	shq[shn].tid = shq_me();
	return shq[shn++].id;
}

/* Index of the first entry of @val at or after @from, the calling
 * thread's if it has one there; -1 if none. */
static int shq_find(uint64_t val, int from)
{
	unsigned me = shq_me();
	int i, any = -1;

	for (i = from; i < shn; i++)
		if (shq[i].val == val) {
			if (shq[i].tid == me)
				return i;
			if (any < 0)
				any = i;
		}
	return any;
}

static void shq_pop(struct hmap *m, uint64_t val)
{
	int i = shq_find(val, 0);

	if (!m || i < 0)
		return;
	give_id(m, shq[i].id);
	memmove(shq + i, shq + i + 1, sizeof(shq[0]) * (size_t)(shn - i - 1));
	shn--;
}

/* ---- handle ids, continued ------------------------------------------------- */

uint64_t tg_h_enc(int kind, uint64_t val)
{
	return tg_h_enc_tok(kind, val, NULL);
}

uint64_t tg_h_enc_tok(int kind, uint64_t val, uint64_t *tok)
{
	struct hmap *m;
	struct hslot *s;
	uint64_t id = 0;
	int i;

	if (tok)
		*tok = 0;
	if (builtin(kind, val))
		return builtin_enc(kind, val);
	pthread_mutex_lock(&hmu);
	if (shared(kind, val)) {
		m = map_of(kind);
		id = (i = shq_find(val, 0)) >= 0 ? shq[i].id : shq_push(m, val);
		pthread_mutex_unlock(&hmu);
		return id << 1;
	}
	if ((m = map_of(kind)) && (s = find(m, val, 1))) {
		id = s->id;
		if (tok)
			*tok = (uint64_t)s->gen << 32 | s->id;
	}
	pthread_mutex_unlock(&hmu);
	return id << 1;
}

static void comm_def_due(uint64_t req);
static void h_forget_id(int kind, uint64_t val, uint64_t tok);

void tg_h_free(int kind, uint64_t val, uint64_t tok)
{
	if (kind == TG_H_REQ && !builtin(kind, val))
		comm_def_due(val);	/* a request completed */
	h_forget_id(kind, val, tok);
}

static void h_forget(int kind, uint64_t val)
{
	h_forget_id(kind, val, 0);
}

/* Forget handle value @val, if it is still the object @tok (of
 * tg_h_enc_tok(); 0: whichever): another thread may have been given the
 * value again, as a new object, while the call that freed it ran. */
static void h_forget_id(int kind, uint64_t val, uint64_t tok)
{
	struct hmap *m;
	struct hslot *s;

	if (builtin(kind, val))
		return;
	pthread_mutex_lock(&hmu);
	if (shared(kind, val))
		shq_pop(maps[kind], val);
	else if ((m = maps[kind]) && (s = find(m, val, 0)) &&
		 (!tok || ((uint64_t)s->gen << 32 | s->id) == tok)) {
		give_id(m, s->id);
		s->used = 2;
		m->live--;
	}
	pthread_mutex_unlock(&hmu);
}

/* ---- definitions ------------------------------------------------------------ */

/* The world of a program that uses MPI sessions alone: the group of its
 * "mpi://WORLD" process set (our own reference to it). */
static MPI_Group session_world;
static int have_session_world;

static int world_model(void)
{
	int init = 0;

	get_MPI_Initialized()(&init);
	return init;
}

int64_t tg_session_world(const char *pset, const MPI_Group *group, int failed)
{
	int rank = -1, size = 0;

	if (failed || !pset || !group || *group == MPI_GROUP_NULL ||
	    strcmp(pset, "mpi://WORLD") != 0)
		return 0;
	if (world_model())
		return 1;	/* MPI_Init's world is the world */
	if (!have_session_world &&
	    get_MPI_Group_union()(*group, *group, &session_world) == MPI_SUCCESS)
		have_session_world = 1;
	/* the process's rank in it names its stream, as MPI_Init's does */
	if (get_MPI_Group_rank()(*group, &rank) == MPI_SUCCESS &&
	    get_MPI_Group_size()(*group, &size) == MPI_SUCCESS && rank >= 0 && size > rank)
		tg_set_rank(rank, size);
	return 1;
}

static int *world_ranks(MPI_Group g, int *n)
{
	MPI_Group wg;
	int *in, *out, i, own = 1;

	*n = 0;
	if (get_MPI_Group_size()(g, n) != MPI_SUCCESS || *n <= 0)
		return NULL;
	in = malloc(sizeof(int) * (size_t)*n);
	out = malloc(sizeof(int) * (size_t)*n);
	if (!in || !out) {
		free(in);
		free(out);
		*n = 0;
		return NULL;
	}
	for (i = 0; i < *n; i++)
		in[i] = i;
	if (have_session_world && !world_model()) {
		wg = session_world;	/* MPI sessions alone */
		own = 0;
	} else {
		get_MPI_Comm_group()(MPI_COMM_WORLD, &wg);
	}
	get_MPI_Group_translate_ranks()(g, *n, in, wg, out);
	if (own)
		get_MPI_Group_free()(&wg);
	free(in);
	return out;
}

static void def_comm(struct tg_thread *t, uint64_t enc, MPI_Comm comm)
{
	MPI_Group g, rg;
	int inter = 0, n = 0, nr = 0, *m = NULL, *r = NULL, i;
	unsigned char *p;

	get_MPI_Comm_test_inter()(comm, &inter);
	if (get_MPI_Comm_group()(comm, &g) == MPI_SUCCESS) {
		m = world_ranks(g, &n);
		get_MPI_Group_free()(&g);
	}
	if (inter && get_MPI_Comm_remote_group()(comm, &rg) == MPI_SUCCESS) {
		r = world_ranks(rg, &nr);
		get_MPI_Group_free()(&rg);
	}
	p = tg_def_begin(t, (size_t)(n + nr + 8) * TG_VARINT_MAX);
	*p++ = TG_REC_COMM;
	p = tg_put_uvar(p, enc);
	p = tg_put_uvar(p, (uint64_t)inter);
	p = tg_put_uvar(p, (uint64_t)n);
	for (i = 0; i < n; i++)
		p = tg_put_uvar(p, (uint64_t)m[i]);
	if (inter) {
		p = tg_put_uvar(p, (uint64_t)nr);
		for (i = 0; i < nr; i++)
			p = tg_put_uvar(p, (uint64_t)r[i]);
	}
	tg_def_end(t, p);
	free(m);
	free(r);
}

/*
 * A communicator made by MPI_Comm_idup is not there until its request
 * completes: read before, an intercommunicator's groups are not set yet
 * (MPICH gives the local group alone).  Its #comm line is written when the
 * request completes (is freed as a handle: Wait, Test, ...), with the
 * encoding given at the call.
 */
#define PEND_COMMS 64

static struct pend_comm {
	uint64_t req, comm, enc;
	int state;		/* 0 free, 1 deferred, 2 and given its id */
} pend_comms[PEND_COMMS];
static int npend_comms;
static pthread_mutex_t pend_mu = PTHREAD_MUTEX_INITIALIZER;

int64_t tg_comm_defer(const MPI_Comm *comm, const MPI_Request *req, int failed)
{
	int i, ok = 0;

	if (failed || !comm || !req || *req == MPI_REQUEST_NULL || *comm == MPI_COMM_NULL)
		return 0;
	pthread_mutex_lock(&pend_mu);
	for (i = 0; i < PEND_COMMS && !ok; i++)
		if (!pend_comms[i].state) {
			pend_comms[i] = (struct pend_comm){ TG_HVAL(*req), TG_HVAL(*comm), 0, 1 };
			npend_comms++;
			ok = 1;
		}
	pthread_mutex_unlock(&pend_mu);
	return ok;	/* a full table: defined at the call, as before */
}

/* Is the #comm line of @val to wait?  Then keep its encoding @enc. */
static int comm_deferred(uint64_t val, uint64_t enc)
{
	int i, found = 0;

	if (!__atomic_load_n(&npend_comms, __ATOMIC_RELAXED))
		return 0;
	pthread_mutex_lock(&pend_mu);
	for (i = 0; i < PEND_COMMS && !found; i++)
		if (pend_comms[i].state == 1 && pend_comms[i].comm == val) {
			pend_comms[i].enc = enc;
			pend_comms[i].state = 2;
			found = 1;
		}
	pthread_mutex_unlock(&pend_mu);
	return found;
}

/* Request @req completed: write the #comm line that waited for it. */
static void comm_def_due(uint64_t req)
{
	struct tg_thread *t;
	struct pend_comm pc = { 0 };
	int i;

	if (!__atomic_load_n(&npend_comms, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&pend_mu);
	for (i = 0; i < PEND_COMMS; i++)
		if (pend_comms[i].state && pend_comms[i].req == req) {
			pc = pend_comms[i];
			pend_comms[i].state = 0;
			npend_comms--;
			break;
		}
	pthread_mutex_unlock(&pend_mu);
	if (pc.state != 2 || !((t = tg_self) || (t = tg_thread_new())))
		return;
	t->guard++;
	def_comm(t, pc.enc, TG_HANDLE(MPI_Comm, pc.comm));
	t->guard--;
}

#ifdef TG_OMPI
/*
 * A type's contents as MPICH numbers them, which the #type records keep
 * whatever the library: the combiner (by its name in MPICH's table) and,
 * in the integers of a subarray or a darray, the order and distribution
 * constants (MPICH: MPI_ORDER_C 56, MPI_ORDER_FORTRAN 57,
 * MPI_DISTRIBUTE_BLOCK 121, _CYCLIC 122, _NONE 123, _DFLT_DARG -49767).
 * Returns the combiner; @ints are changed in place.
 */
static int order_std(int o)
{
	return o == MPI_ORDER_C ? 56 : o == MPI_ORDER_FORTRAN ? 57 : o;
}

static int type_std(int comb, int *ints, int ni)
{
#define C(x) { x, #x }
	static const struct {
		int c;
		const char *name;
	} combs[] = {
		C(MPI_COMBINER_NAMED), C(MPI_COMBINER_DUP), C(MPI_COMBINER_CONTIGUOUS),
		C(MPI_COMBINER_VECTOR), C(MPI_COMBINER_HVECTOR), C(MPI_COMBINER_INDEXED),
		C(MPI_COMBINER_HINDEXED), C(MPI_COMBINER_INDEXED_BLOCK),
		C(MPI_COMBINER_HINDEXED_BLOCK), C(MPI_COMBINER_STRUCT), C(MPI_COMBINER_SUBARRAY),
		C(MPI_COMBINER_DARRAY), C(MPI_COMBINER_F90_REAL), C(MPI_COMBINER_F90_COMPLEX),
		C(MPI_COMBINER_F90_INTEGER), C(MPI_COMBINER_RESIZED),
	};
#undef C
	const char *name = NULL;
	unsigned i;
	int n, std = -1;

	for (i = 0; i < sizeof(combs) / sizeof(combs[0]) && !name; i++)
		if (combs[i].c == comb)
			name = combs[i].name;
	for (i = 0; name && i < tg_mpi_ncombiners && std < 0; i++)
		if (tg_mpi_combiners[i] && strcmp(tg_mpi_combiners[i], name) == 0)
			std = (int)i;
	if (comb == MPI_COMBINER_SUBARRAY && ni >= 1 && (n = ints[0]) >= 0 && ni >= 3 * n + 2)
		ints[3 * n + 1] = order_std(ints[3 * n + 1]);
	if (comb == MPI_COMBINER_DARRAY && ni >= 3 && (n = ints[2]) >= 0 && ni >= 4 * n + 4) {
		for (i = 0; i < (unsigned)n; i++) {
			int *d = &ints[3 + n + i], *a = &ints[3 + 2 * n + i];
			*d = *d == MPI_DISTRIBUTE_BLOCK ? 121 : *d == MPI_DISTRIBUTE_CYCLIC ? 122 :
			     *d == MPI_DISTRIBUTE_NONE ? 123 : *d;
			if (*a == MPI_DISTRIBUTE_DFLT_DARG)
				*a = -49767;
		}
		ints[3 + 4 * n] = order_std(ints[3 + 4 * n]);
	}
	return std < 0 ? -comb - 1000 : std;	/* unknown: no MPICH combiner */
}
#endif

#ifdef TG_OMPI
/* Whether @val has an id already (not adding it). */
static int h_known(int kind, uint64_t val)
{
	struct hmap *m;
	int known;

	pthread_mutex_lock(&hmu);
	known = (m = maps[kind]) && find(m, val, 0);
	pthread_mutex_unlock(&hmu);
	return known;
}
#endif

static void def_type(struct tg_thread *t, uint64_t enc, MPI_Datatype type)
{
	int ni = 0, na = 0, nd = 0, comb = 0, i;
	int *ints = NULL;
	MPI_Aint *aints = NULL;
	MPI_Datatype *types = NULL;
	uint64_t *ids = NULL;
	unsigned char *dup = NULL, *named = NULL, *p;

	if (get_MPI_Type_get_envelope()(type, &ni, &na, &nd, &comb) != MPI_SUCCESS ||
	    comb == MPI_COMBINER_NAMED)
		return;
	ints = calloc((size_t)ni + 1, sizeof(int));
	aints = calloc((size_t)na + 1, sizeof(MPI_Aint));
	types = calloc((size_t)nd + 1, sizeof(MPI_Datatype));
	ids = calloc((size_t)nd + 1, sizeof(uint64_t));
	dup = calloc((size_t)nd + 1, 1);
	named = calloc((size_t)nd + 1, 1);
	if (!ints || !aints || !types || !ids || !dup || !named ||
	    get_MPI_Type_get_contents()(type, ni, na, nd, ints, aints, types) != MPI_SUCCESS)
		goto out;
	/* a predefined type the library names (combiner NAMED) is never
	 * freed, whether or not the table of predefined handles knows it:
	 * Open MPI 4.1's mpi.h hides MPI_LB and MPI_UB, which Fortran
	 * programs (ABINIT) still give, and freeing one is an error that
	 * aborted the program */
	for (i = 0; i < nd; i++) {
		int a, b, c, k;
		named[i] = get_MPI_Type_get_envelope()(types[i], &a, &b, &c, &k) == MPI_SUCCESS &&
			   k == MPI_COMBINER_NAMED;
	}
#ifdef TG_OMPI
	comb = type_std(comb, ints, ni);
	/* Open MPI gives a derived type of the contents as a new duplicate
	 * (MPICH as the type itself): one not known is defined first, under
	 * an id of its own that is given back once this one is written */
	for (i = 0; i < nd; i++) {
		uint64_t v = TG_HVAL(types[i]);
		if (named[i] || builtin(TG_H_DTYPE, v) || h_known(TG_H_DTYPE, v))
			continue;
		dup[i] = 1;
		ids[i] = tg_h_enc(TG_H_DTYPE, v);
		def_type(t, ids[i], types[i]);
	}
#endif
	for (i = 0; i < nd; i++)
		if (!dup[i])
			ids[i] = tg_h_enc(TG_H_DTYPE, TG_HVAL(types[i]));
	p = tg_def_begin(t, (size_t)(ni + na + nd + 8) * TG_VARINT_MAX);
	*p++ = TG_REC_TYPE;
	p = tg_put_uvar(p, enc);
	p = tg_put_svar(p, comb);
	p = tg_put_uvar(p, (uint64_t)ni);
	for (i = 0; i < ni; i++)
		p = tg_put_svar(p, ints[i]);
	p = tg_put_uvar(p, (uint64_t)na);
	for (i = 0; i < na; i++)
		p = tg_put_svar(p, (int64_t)aints[i]);
	p = tg_put_uvar(p, (uint64_t)nd);
	for (i = 0; i < nd; i++)
		p = tg_put_uvar(p, ids[i]);
	tg_def_end(t, p);
	for (i = 0; i < nd; i++) {
		if (dup[i])
			h_forget(TG_H_DTYPE, TG_HVAL(types[i]));
		if (!named[i] && !builtin(TG_H_DTYPE, TG_HVAL(types[i])))
			get_MPI_Type_free()(&types[i]);
	}
out:
	free(named);
	free(ints);
	free(aints);
	free(types);
	free(ids);
	free(dup);
}

uint64_t tg_h_new(struct tg_call *c, int kind, uint64_t val)
{
	uint64_t enc;

	if (builtin(kind, val))
		return builtin_enc(kind, val);
	if (shared(kind, val)) {
		pthread_mutex_lock(&hmu);
		enc = (uint64_t)shq_push(map_of(kind), val) << 1;
		pthread_mutex_unlock(&hmu);
		return enc;
	}
	h_forget(kind, val);	/* a reused handle value is a new object */
	enc = tg_h_enc(kind, val);
	c->t->guard++;
	if (kind == TG_H_COMM && !comm_deferred(val, enc))
		def_comm(c->t, enc, TG_HANDLE(MPI_Comm, val));
	else if (kind == TG_H_DTYPE)
		def_type(c->t, enc, TG_HANDLE(MPI_Datatype, val));
	c->t->guard--;
	return enc;
}

/* ---- lengths ---------------------------------------------------------------- */

int tg_comm_arrlen(MPI_Comm comm)
{
	int inter = 0, n = 0;

	get_MPI_Comm_test_inter()(comm, &inter);
	if (inter)
		get_MPI_Comm_remote_size()(comm, &n);
	else
		get_MPI_Comm_size()(comm, &n);
	return n;
}

static int nbr(MPI_Comm comm, int out)
{
	int topo = MPI_UNDEFINED, n = 0, in = 0, o = 0, w = 0, rank = 0;

	get_MPI_Topo_test()(comm, &topo);
	if (topo == MPI_CART) {
		get_MPI_Cartdim_get()(comm, &n);
		return 2 * n;
	}
	if (topo == MPI_GRAPH) {
		get_MPI_Comm_rank()(comm, &rank);
		get_MPI_Graph_neighbors_count()(comm, rank, &n);
		return n;
	}
	if (topo == MPI_DIST_GRAPH) {
		get_MPI_Dist_graph_neighbors_count()(comm, &in, &o, &w);
		return out ? o : in;
	}
	return 0;
}

int tg_cartdim(MPI_Comm comm)
{
	int topo = MPI_UNDEFINED, n = 0;

	get_MPI_Topo_test()(comm, &topo);
	if (topo == MPI_CART)
		get_MPI_Cartdim_get()(comm, &n);
	return n;
}

int tg_nbr_in(MPI_Comm comm)
{
	return nbr(comm, 0);
}

int tg_nbr_out(MPI_Comm comm)
{
	return nbr(comm, 1);
}

int tg_is_root(MPI_Comm comm, int root)
{
	int inter = 0, rank = -1;

	get_MPI_Comm_test_inter()(comm, &inter);
	if (inter)
		return root == MPI_ROOT;
	get_MPI_Comm_rank()(comm, &rank);
	return rank == root;
}

/* ---- statuses and requests ----------------------------------------------------- */

/*
 * The source and tag of status @st as recorded.  A cancelled request's
 * status is recorded as the standard's empty status (MPI_PROC_NULL,
 * MPI_ANY_TAG), which says that nothing was received: its source and
 * tag are undefined, and hb-build must not match it (libtangram(7)).
 */
static void status_fields(const MPI_Status *st, int64_t *src, int64_t *tag, int probe)
{
	int flag = 0;

	/* (a probe's status is never a cancelled request's, and MPICH's
	 * probes leave its cancelled bit as the program's memory had it) */
	if (!probe && get_MPI_Test_cancelled() &&
	    get_MPI_Test_cancelled()(st, &flag) == MPI_SUCCESS && flag) {
		*src = TG_RANK(MPI_PROC_NULL);
		*tag = MPI_ANY_TAG;
		return;
	}
	*src = TG_RANK(st->MPI_SOURCE);
	*tag = st->MPI_TAG;
}

void tg_put_status(struct tg_call *c, const MPI_Status *st, int probe)
{
	int64_t src, tag;

	if (!st || st == MPI_STATUS_IGNORE) {
		tg_put_u(c, 0);
		return;
	}
	status_fields(st, &src, &tag, probe);
	tg_put_u(c, 1);
	tg_put_s(c, src);
	tg_put_s(c, tag);
}

void tg_put_iostatus(struct tg_call *c, const MPI_Status *st)
{
	MPI_Count n = 0;

	if (!st || !get_MPI_Get_elements_x() ||
	    get_MPI_Get_elements_x()(st, MPI_BYTE, &n) != MPI_SUCCESS ||
	    n == MPI_UNDEFINED || n < 0) {
		tg_put_u(c, 0);
		return;
	}
	tg_put_u(c, (uint64_t)n + 1);
}

/*
 * Where the individual or the shared file pointer of @fh stands, or -1.
 * The query must not change what the program sees: a file opened with
 * MPI_MODE_SEQUENTIAL has no position to ask (the query is an error, and
 * the program's error handler may be MPI_ERRORS_ARE_FATAL), and the shared
 * pointer's query does I/O that can fail, so it runs with the file's
 * handler set to MPI_ERRORS_RETURN and the program's put back.
 */
/*
 * Files whose shared pointer could not be read: not asked again, since
 * the MPI library may say so on stderr each time (Open MPI's sharedfp
 * "individual" prints "NOT IMPLEMENTED").  A handle the library gives
 * again to another file after a close stays here: that file's shared
 * pointer calls are unplaced, and the analysis says so.
 */
#define NOSHARED 64
static MPI_File noshared[NOSHARED];
static unsigned nnoshared;
static pthread_mutex_t noshared_lock = PTHREAD_MUTEX_INITIALIZER;

static int noshared_has(MPI_File fh)
{
	unsigned i, n;
	int has = 0;

	pthread_mutex_lock(&noshared_lock);
	n = nnoshared < NOSHARED ? nnoshared : NOSHARED;
	for (i = 0; i < n && !has; i++)
		has = noshared[i] == fh;
	pthread_mutex_unlock(&noshared_lock);
	return has;
}

static void noshared_add(MPI_File fh)
{
	pthread_mutex_lock(&noshared_lock);
	noshared[nnoshared++ % NOSHARED] = fh;
	pthread_mutex_unlock(&noshared_lock);
}

/* Open MPI told to use its sharedfp "individual" component, which cannot
 * read a shared pointer (MCA parameters come to the ranks through the
 * environment: --mca sharedfp individual, OMPI_MCA_sharedfp). */
static int individual_sharedfp(void)
{
	static int known = -1;
	const char *v;

	if (known < 0)
		known = (v = getenv("OMPI_MCA_sharedfp")) && strstr(v, "individual") &&
			!strstr(v, "^");
	return known;
}

static int64_t io_pointer(MPI_File fh, int shared)
{
	struct tg_thread *t = tg_self;
	MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
	MPI_Offset off = -1;
	int rc, amode = 0, swapped = 0;

	if (shared && fh != MPI_FILE_NULL && noshared_has(fh))
		return -1;
	if (shared && individual_sharedfp())
		return -1;	/* (it would say so on the first query too) */
	if (fh == MPI_FILE_NULL || !get_MPI_File_get_amode() ||
	    get_MPI_File_get_amode()(fh, &amode) != MPI_SUCCESS || (amode & MPI_MODE_SEQUENTIAL))
		return -1;
	if (t) {
		t->guard++;
		t->guard_io++;	/* the first query opens the shared pointer's file */
	}
	if (shared && get_MPI_File_get_errhandler() && get_MPI_File_set_errhandler() &&
	    get_MPI_Errhandler_free() &&
	    get_MPI_File_get_errhandler()(fh, &eh) == MPI_SUCCESS)
		swapped = get_MPI_File_set_errhandler()(fh, MPI_ERRORS_RETURN) == MPI_SUCCESS;
	if (shared && !swapped) {
		rc = MPI_ERR_INTERN;	/* not asked: it could end the program */
	} else {
		rc = shared ? (get_MPI_File_get_position_shared() ?
			       get_MPI_File_get_position_shared()(fh, &off) : MPI_ERR_INTERN)
			    : (get_MPI_File_get_position() ?
			       get_MPI_File_get_position()(fh, &off) : MPI_ERR_INTERN);
	}
	if (swapped)
		get_MPI_File_set_errhandler()(fh, eh);
	if (eh != MPI_ERRHANDLER_NULL)
		get_MPI_Errhandler_free()(&eh);
	if (t) {
		t->guard_io--;
		t->guard--;
	}
	/* (Open MPI's "individual" says MPI_SUCCESS and leaves the offset) */
	if (shared && swapped && (rc != MPI_SUCCESS || off < 0))
		noshared_add(fh);
	return rc == MPI_SUCCESS ? (int64_t)off : -1;
}

int64_t tg_io_position(MPI_File fh)
{
	return io_pointer(fh, 0);
}

int64_t tg_io_shared(MPI_File fh)
{
	return io_pointer(fh, 1);
}

void tg_put_statuses(struct tg_call *c, const MPI_Status *st, long n)
{
	long i;

	if (!st || st == MPI_STATUSES_IGNORE)
		n = 0;
	n = tg_cap(n);
	tg_put_u(c, (uint64_t)n);
	for (i = 0; i < n; i++) {
		int64_t src, tag;
		status_fields(&st[i], &src, &tag, 0);
		tg_put_s(c, src);
		tg_put_s(c, tag);
	}
}

MPI_Status *tg_statuses_pre(MPI_Status *st, long n, MPI_Status *local)
{
	MPI_Status *m;
	long i;

	if (st != MPI_STATUSES_IGNORE || n <= 0)
		return st;
	m = n <= TG_STATUSES_LOCAL ? local : malloc((size_t)n * sizeof(*m));
	if (!m)
		return st;
	/* as for one ignored status: the library does not set the statuses
	 * of sends, which would otherwise record the stack's bytes */
	for (i = 0; i < n; i++) {
		m[i].MPI_SOURCE = MPI_ANY_SOURCE;
		m[i].MPI_TAG = MPI_ANY_TAG;
	}
	return m;
}

int tg_statuses_ret(int ret, const MPI_Status *used, const MPI_Status *st, long n)
{
	long i;

	if (used == st || ret != MPI_ERR_IN_STATUS)
		return ret;
	for (i = 0; i < n; i++)
		if (used[i].MPI_ERROR != MPI_SUCCESS && used[i].MPI_ERROR != MPI_ERR_PENDING)
			return used[i].MPI_ERROR;
	return ret;
}

void tg_statuses_post(MPI_Status *used, const MPI_Status *st, const MPI_Status *local)
{
	if (used != st && used != local)
		free(used);
}

/* The occurrences of a shared request value in an array take its queued
 * ids in order. */
static void shared_ids(struct tg_reqs *r)
{
	struct hmap *m;
	long i, j;
	int at;

	pthread_mutex_lock(&hmu);
	m = map_of(TG_H_REQ);
	for (i = 0; i < r->n; i++) {
		if (r->ids[i] || !shared(TG_H_REQ, r->vals[i]))
			continue;
		for (j = i, at = 0; j < r->n; j++) {
			if (r->vals[j] != r->vals[i])
				continue;
			if (at >= 0)
				at = shq_find(r->vals[i], at);
			r->ids[j] = (uint64_t)(at >= 0 ? shq[at++].id : shq_push(m, r->vals[i])) << 1;
		}
	}
	pthread_mutex_unlock(&hmu);
}

void tg_reqs_pre(struct tg_reqs *r, const MPI_Request *a, long n)
{
	long i;

	r->n = a ? tg_cap(n) : 0;
	r->vals = r->small[0];
	r->ids = r->small[1];
	r->toks = r->small[2];
	if (r->n > 16) {
		r->vals = malloc(sizeof(uint64_t) * (size_t)r->n);
		r->ids = malloc(sizeof(uint64_t) * (size_t)r->n);
		r->toks = malloc(sizeof(uint64_t) * (size_t)r->n);
		if (!r->vals || !r->ids || !r->toks) {
			free(r->vals);
			free(r->ids);
			free(r->toks);
			r->vals = r->small[0];
			r->ids = r->small[1];
			r->toks = r->small[2];
			r->n = 16;
		}
	}
	for (i = 0; i < r->n; i++) {
		r->vals[i] = TG_HVAL(a[i]);
		r->toks[i] = 0;
		r->ids[i] = shared(TG_H_REQ, r->vals[i]) ? 0 :
			    tg_h_enc_tok(TG_H_REQ, r->vals[i], &r->toks[i]);
	}
	shared_ids(r);
}

void tg_reqs_put(struct tg_call *c, const struct tg_reqs *r)
{
	long i;

	tg_put_u(c, (uint64_t)r->n);
	for (i = 0; i < r->n; i++)
		tg_put_u(c, r->ids[i]);
}

void tg_reqs_post(struct tg_reqs *r, const MPI_Request *a, int failed)
{
	long i;

	if (!failed)
		for (i = 0; i < r->n; i++)
			if (TG_HVAL(a[i]) != r->vals[i])
				tg_h_free(TG_H_REQ, r->vals[i], r->toks[i]);
	if (r->vals != r->small[0]) {
		free(r->vals);
		free(r->ids);
		free(r->toks);
	}
}

/* ---- MPI_Info contents ---------------------------------------------------------- */

#define INFO_MAX_KEYS 1024

void tg_info_def(struct tg_thread *t, MPI_Info info)
{
	static uint64_t sids[2 * INFO_MAX_KEYS];	/* under the guard below */
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	char key[MPI_MAX_INFO_KEY + 1], small[256], *val;
	int nkeys = 0, i, n = 0, len, flag;
	unsigned char *p;

	if (info == MPI_INFO_NULL || !get_MPI_Info_get_nkeys() ||
	    !get_MPI_Info_get_nthkey() || !get_MPI_Info_get_string() ||
	    get_MPI_Info_get_nkeys()(info, &nkeys) != MPI_SUCCESS)
		return;
	if (nkeys > INFO_MAX_KEYS)
		nkeys = INFO_MAX_KEYS;
	t->guard++;
	pthread_mutex_lock(&mu);
	for (i = 0; i < nkeys; i++) {
		if (get_MPI_Info_get_nthkey()(info, i, key) != MPI_SUCCESS)
			continue;
		/* a first try in a small buffer gives the length (with the
		 * terminating zero) of a longer value */
		len = (int)sizeof(small);
		flag = 0;
		val = small;
		if (get_MPI_Info_get_string()(info, key, &len, small, &flag) != MPI_SUCCESS ||
		    !flag)
			continue;
		if (len > (int)sizeof(small)) {
			int want = len + 1;
			if (!(val = malloc((size_t)want)))
				continue;
			len = want;
			if (get_MPI_Info_get_string()(info, key, &len, val, &flag) != MPI_SUCCESS)
				flag = 0;
			val[want - 1] = 0;
		}
		if (flag) {
			sids[2 * n] = tg_str(t, key);
			sids[2 * n + 1] = tg_str(t, val);
			n++;
		}
		if (val != small)
			free(val);
	}
	p = tg_def_begin(t, (size_t)(2 * n + 4) * TG_VARINT_MAX);
	*p++ = TG_REC_INFO;
	p = tg_put_uvar(p, tg_h_enc(TG_H_INFO, TG_HVAL(info)));
	p = tg_put_uvar(p, (uint64_t)n);
	for (i = 0; i < 2 * n; i++)
		p = tg_put_uvar(p, sids[i]);
	tg_def_end(t, p);
	pthread_mutex_unlock(&mu);
	t->guard--;
}

/* ---- start and end ----------------------------------------------------------- */

/* TANGRAM_CLOCK_SYNC: one barrier on MPI_COMM_WORLD; rank 0's wall clock
 * as it leaves is broadcast, and each rank records it with the moment it
 * left: a common time line for every rank, however the nodes' clocks
 * disagree. */
static void clock_sync(void)
{
	struct tg_thread *t = tg_self;
	uint64_t t_sync, base = 0;
	unsigned char *p;
	struct timespec ts;

	if (!t && !(t = tg_thread_new()))
		return;
	if (!get_MPI_Barrier() || !get_MPI_Bcast() ||
	    get_MPI_Barrier()(MPI_COMM_WORLD) != MPI_SUCCESS)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	t_sync = tg_now();
	base = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (get_MPI_Bcast()(&base, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return;
	p = tg_def_begin(t, 4 * TG_VARINT_MAX);
	*p++ = TG_REC_CLOCK;
	p = tg_put_uvar(p, t_sync);
	p = tg_put_uvar(p, base);
	tg_def_end(t, p);
}

static void after_init(void)
{
	int rank = -1, size = 0;

	tg_hooks_check();	/* a library MPI_Init loaded may have patched */
	get_MPI_Comm_rank()(MPI_COMM_WORLD, &rank);
	get_MPI_Comm_size()(MPI_COMM_WORLD, &size);
	if (rank >= 0)
		tg_set_rank(rank, size);
	if (tg_clock_sync && rank >= 0)
		clock_sync();
}

typedef int (*init_fn)(int *, char ***);
typedef int (*init_thread_fn)(int *, char ***, int, int *);

int MPI_Init(int *argc, char ***argv);
TG_MPIFN int TG_MPINAME(MPI_Init)(int *argc, char ***argv)
{
	static void *real;
	struct tg_call tgc;
	int ret, on;

	if (!real && !(real = tg_real("MPI_Init", NULL)))
		return MPI_ERR_INTERN;
	on = tg_on(TG_LAYER_MPI) && tg_enter(&tgc, TG_FN_MPI_Init, TG_LAYER_MPI);
	ret = ((init_fn)real)(argc, argv);
	if (tg_state == 1 && ret == MPI_SUCCESS)
		after_init();
	if (on) {
		tg_end(&tgc);
		tg_rec_begin(&tgc, ret, 0);
		tg_rec_commit(&tgc);
	}
	return ret;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
TG_MPIFN int TG_MPINAME(MPI_Init_thread)(int *argc, char ***argv, int required, int *provided)
{
	static void *real;
	struct tg_call tgc;
	int ret, on;

	if (!real && !(real = tg_real("MPI_Init_thread", NULL)))
		return MPI_ERR_INTERN;
	on = tg_on(TG_LAYER_MPI) && tg_enter(&tgc, TG_FN_MPI_Init_thread, TG_LAYER_MPI);
	ret = ((init_thread_fn)real)(argc, argv, required, provided);
	if (tg_state == 1 && ret == MPI_SUCCESS)
		after_init();
	if (on) {
		tg_end(&tgc);
		tg_rec_begin(&tgc, ret, 0);
		tg_put_s(&tgc, required);
		tg_put_s(&tgc, ret == MPI_SUCCESS && provided ? *provided : 0);
		tg_rec_commit(&tgc);
	}
	return ret;
}

typedef int (*finalize_fn)(void);

int MPI_Finalize(void);
TG_MPIFN int TG_MPINAME(MPI_Finalize)(void)
{
	static void *real;
	struct tg_call tgc;
	int ret, on;

	if (!real && !(real = tg_real("MPI_Finalize", NULL)))
		return MPI_ERR_INTERN;
	on = tg_on(TG_LAYER_MPI) && tg_enter(&tgc, TG_FN_MPI_Finalize, TG_LAYER_MPI);
	ret = ((finalize_fn)real)();
	if (on) {
		tg_end(&tgc);
		tg_rec_begin(&tgc, ret, 0);
		tg_rec_commit(&tgc);
	}
	tg_flush_all();
	return ret;
}

typedef int (*abort_fn)(MPI_Comm, int);

int MPI_Abort(MPI_Comm comm, int errorcode);
TG_MPIFN int TG_MPINAME(MPI_Abort)(MPI_Comm comm, int errorcode)
{
	static void *real;
	struct tg_call tgc;

	if (!real && !(real = tg_real("MPI_Abort", NULL)))
		return MPI_ERR_INTERN;
	/* recorded before the call: it does not return */
	if (tg_on(TG_LAYER_MPI) && tg_enter(&tgc, TG_FN_MPI_Abort, TG_LAYER_MPI)) {
		tg_end(&tgc);
		tg_rec_begin(&tgc, 0, 0);
		tg_put_u(&tgc, tg_h_enc(TG_H_COMM, TG_HVAL(comm)));
		tg_put_s(&tgc, errorcode);
		tg_rec_commit(&tgc);
	}
	tg_shutdown();
	return ((abort_fn)real)(comm, errorcode);
}

/* ---- an MPI library that is not MPICH's ------------------------------------ */

#if defined(TG_MPI_STUBS) && !defined(TG_OMPI)
/*
 * Which MPI library the program calls is found at its first MPI call, not
 * at load (a program may dlopen it, as Python's mpi4py does).  Open MPI's
 * handles are pointers where MPICH's are ints, so these wrappers cannot
 * read them: its calls go from the stubs (shim/stubs.S) to the same
 * wrappers compiled against Open MPI's mpi.h (tg_wo_NAME, shim/mpi-ompi.c),
 * or, for a call they do not have or when they were not built, straight
 * to the library.
 */
TG_HIDDEN unsigned char tg_mpi_abi;	/* 0 not known yet, 1 MPICH's, 2 another */

static const char *const stub_names[] = {
#define TG_STUB(name, i) [i] = #name,
#include "stubs.gen.h"
#undef TG_STUB
};
TG_HIDDEN void *tg_stub_real[sizeof(stub_names) / sizeof(stub_names[0])];

/* Open MPI's wrappers, each NULL when it was not built (weak). */
#define TG_STUB(name, i) extern char tg_wo_##name[] __attribute__((weak, visibility("hidden")));
#include "stubs.gen.h"
#undef TG_STUB
static void *const ompi_wrappers[] = {
#define TG_STUB(name, i) [i] = tg_wo_##name,
#include "stubs.gen.h"
#undef TG_STUB
};

static void *ompi_lib;	/* the program's Open MPI library, kept open */
static void *mpi_lib;	/* the program's MPI library, kept open */

void *tg_mpi_real(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name), *lib;

	if (!p && (lib = __atomic_load_n(&mpi_lib, __ATOMIC_ACQUIRE)))
		p = dlsym(lib, name);
	return p ? p : (tg_real)(name, NULL);	/* any loaded object (core.c) */
}

/* The global scope first: a program that names MPI_COMM_WORLD has its
 * own copy of ompi_mpi_comm_world (a copy relocation), which is the one
 * the library uses too. */
void *tg_ompi_sym(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);

	return p || !ompi_lib ? p : dlsym(ompi_lib, name);
}

/* A call the program's MPI library does not have (it could not have
 * linked against it): what MPI says of an internal error. */
static int stub_absent(void)
{
	return MPI_ERR_INTERN;
}

extern char tg_stub_lazy[] __attribute__((visibility("hidden")));

/* Where call @i of a program of Open MPI goes, or NULL while no loaded
 * object has it: the wrapper compiled for Open MPI where there is one,
 * else the definition itself.  Not only the MPI library's calls take
 * its handles: HDF5's H5Pset_fapl_mpio, in a library loaded out of the
 * global scope (h5py) or after the first MPI call, is found here too. */
static void *stub_target(size_t i)
{
	void *p = ompi_lib ? dlsym(ompi_lib, stub_names[i]) : NULL;

	if (!p)
		p = tg_mpi_real(stub_names[i]);
	return p && ompi_wrappers[i] ? ompi_wrappers[i] : p;
}

/* tg_stub_lazy's look (stubs.S): for a call not found when the library
 * was, once more at each call until it is found. */
TG_HIDDEN void *tg_stub_find(unsigned i)
{
	void *p = NULL;

	if (i < sizeof(stub_names) / sizeof(stub_names[0]) && (p = stub_target(i)))
		__atomic_store_n(&tg_stub_real[i], p, __ATOMIC_RELEASE);
	return p ? p : (void *)stub_absent;
}

/*
 * The MPI library the program's calls go to: the one that defines the
 * MPI_Init after the tracer's (a process may have both MPICH and Open MPI
 * loaded, as Debian's libadios-mpich does through libnetcdf-mpi, and uses
 * the first).  When none does in the global scope (a library loaded with
 * RTLD_LOCAL), MPICH's if it is loaded, else Open MPI's.  A handle that
 * takes a reference (dlclose it), or NULL.
 */
static void *mpi_library(void)
{
	void *init = dlsym(RTLD_NEXT, "MPI_Init"), *lib;
	Dl_info di;

	if (init)
		return dladdr(init, &di) && di.dli_fname && di.dli_fname[0] ?
			dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD) : NULL;
	if ((lib = dlopen("libmpich.so.12", RTLD_LAZY | RTLD_NOLOAD)))
		return lib;
	return dlopen("libmpi.so.40", RTLD_LAZY | RTLD_NOLOAD);
}

TG_HIDDEN void tg_mpi_resolve(void)
{
	static const char msg[] =
		"tangram: the program's MPI library is Open MPI, whose handles this "
		"tracer (built without Open MPI's mpi.h) cannot read: its MPI and MPI-IO "
		"calls are not traced, its POSIX, stdio and HDF5 calls are\n";
	void *lib = mpi_library();
	const char *rank;
	size_t i;
	int traced = 0;

	if (lib && !__atomic_load_n(&mpi_lib, __ATOMIC_ACQUIRE))
		__atomic_store_n(&mpi_lib, lib, __ATOMIC_RELEASE);	/* kept open */
	if (!lib || !dlsym(lib, "ompi_mpi_comm_world")) {
		__atomic_store_n(&tg_mpi_abi, 1, __ATOMIC_RELEASE);
		return;
	}
	ompi_lib = lib;
	for (i = 0; i < sizeof(stub_names) / sizeof(stub_names[0]); i++) {
		void *p = dlsym(lib, stub_names[i]);
		if (!p)
			p = dlsym(RTLD_NEXT, stub_names[i]);
		/* a wrapper only where the library has the call to pass it on */
		if (p && ompi_wrappers[i]) {
			p = ompi_wrappers[i];
			traced = 1;
		}
		/* not found in the global scope: looked for at the call */
		tg_stub_real[i] = p ? p : (void *)tg_stub_lazy;
	}
	/* the rank, from Open MPI's launcher: the stream is named by it and
	 * hb-build says that the rank's MPI calls are not in the trace */
	{
		const char *r = getenv("OMPI_COMM_WORLD_RANK"), *w = getenv("OMPI_COMM_WORLD_SIZE");
		char *e1, *e2;
		long rk = r ? strtol(r, &e1, 10) : -1, ws = w ? strtol(w, &e2, 10) : -1;
		if (r && w && *r && *w && !*e1 && !*e2 && rk >= 0 && ws > rk && ws <= INT32_MAX)
			tg_set_rank((int)rk, (int)ws);
	}
	/* said once for the run: by its rank 0 */
	if (__atomic_exchange_n(&tg_mpi_abi, 2, __ATOMIC_ACQ_REL) != 2 && !traced &&
	    (!(rank = getenv("OMPI_COMM_WORLD_RANK")) || strcmp(rank, "0") == 0))
		tg_say(msg, sizeof(msg) - 1);
}
#endif
