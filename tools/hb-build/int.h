/*
 * int.h - what the three parts of hb-build's graph builder share: the
 * builder itself (struct hbb), its per-rank tables and operations, and
 * their memory.  Not an interface: graph.h is.
 *
 *   graph.c  memory, the MPI functions that matter, parsing, hbb_build()
 *   walk.c   communicators, the walk of each rank, matching
 *   index.c  leaving out calls no edge touches, the vector-clock index
 */
#ifndef TG_HBINT_H
#define TG_HBINT_H

#include <stddef.h>
#include <stdint.h>

#include "../../libcommon/calltab.h"
#include "../../libcommon/hb.h"

#define NONE UINT32_MAX
#define MAXRANK (1 << 24)	/* ranks above this are taken as damage */
#define NOST INT32_MIN		/* no status recorded */

/* MPICH's constants as they appear in text records */
#define ANY_SOURCE (-2)
#define ANY_TAG (-1)
#define PROC_NULL (-1)
#define ROOT (-3)
#define UNDEFINED (-32766)
#define BADRANK (INT32_MIN + 1)	/* a group rank outside its communicator */

/* Communicator codes of a call's comm argument; >= 0 is a local definition. */
#define CW (-1)	/* MPI_COMM_WORLD */
#define CS (-2)	/* MPI_COMM_SELF */
#define CN (-3)	/* MPI_COMM_NULL */
#define CU (-4)	/* unknown */

#define VEC(T) struct { T *v; size_t n, cap; }
#define RESERVE(a, m) do { \
	if ((m) > (a).cap) { \
		size_t c_ = (a).cap ? (a).cap : 16; \
		while (c_ < (m)) c_ *= 2; \
		(a).v = hb_realloc((a).v, c_ * sizeof(*(a).v)); \
		(a).cap = c_; \
	} } while (0)
#define PUSH(a, x) do { RESERVE(a, (a).n + 1); (a).v[(a).n++] = (x); } while (0)

typedef VEC(int32_t) ivec;
typedef VEC(uint32_t) uvec;

/* An open-addressing map from 64-bit keys (not UINT64_MAX) to 64-bit values. */
struct umap {
	uint64_t *k, *v;
	size_t cap, n;
};

/*
 * Memory: blocks from hb_realloc() and hb_calloc() (zeroed) are freed with
 * hb_free(); running out of memory ends the program with a message.
 */
void *hb_realloc(void *p, size_t n);
void *hb_calloc(size_t n, size_t sz);
void hb_free(void *p);

/* A well-mixed hash of @x. */
size_t hb_mix(uint64_t x);

/* The value slot of @key, made (with @init) if @make, else NULL if absent. */
uint64_t *hb_umap_at(struct umap *m, uint64_t key, int make, uint64_t init);

/* Remove @key if present. */
void hb_umap_del(struct umap *m, uint64_t key);

/* Release the map's memory; it is empty and usable again. */
void hb_umap_free(struct umap *m);

/* ---- the functions that matter ---------------------------------------------- */

/* What each MPI call means for the graph comes from the call table's
 * roles (calltab.h: struct tg_hbrole, enum tg_mk, enum tg_order); this is
 * that role with the argument names resolved, indexed by call table id
 * (index 0, like any call without a role, is TG_MK_OTHER). */
#define F_ROOT 4	/* has a root argument (beside TG_MF_SYNC, TG_MF_READY) */

struct fdesc {
	uint8_t kind, ctype, flags;	/* enum tg_mk, enum tg_order, TG_MF_*|F_ROOT */
	const char *comm;	/* name of the communicator argument, or NULL */
	const char *root;	/* name of the root argument, or NULL */
};

extern const struct fdesc *hb_ftab;
/* Fill hb_ftab from the call table's roles (once, by hbb_new). */
void hb_ftab_init(void);


/* Is a call of kind @kind a node (before those no edge touches go)? */
int hb_is_node(unsigned kind);

/* "MPI_Send" for call table id @id, "?" if unknown. */
const char *hb_func_name(unsigned id);

/* ---- what the parser keeps ------------------------------------------------- */

/* A kept call: its arguments are ints in the rank's pool from off on. */
struct hrec {
	uint64_t seq;
	int64_t t0, t1;		/* its start and end, ns from the trace's zero */
	uint32_t off;
	uint32_t span;
	uint16_t fn;		/* hb_ftab index: the call table id, 0 for none */
	uint16_t func;		/* call table id */
	uint8_t drop;		/* nested inside another MPI call */
	uint8_t split;		/* an MPI-IO call with communication nested in
				 * it: a node where it starts, one after them */
	uint16_t tid;		/* its thread */
};

/* A call's start and end, ns from the trace's zero. */
struct span2 {
	int64_t t0, t1;
};

/* A record's seq and times (of every record: where it lies among the
 * nodes of a rank whose threads made MPI calls at once). */
struct rtime {
	uint64_t seq;
	int64_t t0, t1;
};

/* A communicator an MPI_Comm_idup made: its #comm line comes when the
 * request is done, in whichever order the rank waited; its creator is
 * the idup all the same. */
struct dcomm {
	uint64_t id;		/* cN */
	uint64_t cseq;
	uint16_t cfunc;
	int32_t parent;
};

/* A communicator a rank made (a #comm line). */
struct ldef {
	int32_t moff, mn, roff, rn;	/* members and remote group in the pool; rn < 0: intra */
	uint64_t cseq;			/* seq of the call that made it */
	uint16_t cfunc;			/* its call table id */
	int32_t parent;			/* communicator code of its parent, CU if none */
	int32_t gid, pos;		/* global identity, position among its members */
	uint8_t has_creator;
	uint8_t topo;			/* TOPO_*: the process topology its creator gave */
	int32_t toff, tn, tcomm;	/* the creator's arrays in the pool (tn ints),
					 * and its comm_old (a communicator code) */
};

/* Process topologies, as the call that made a communicator gave them
 * (struct ldef.topo): the neighbours its neighbourhood collectives order. */
enum { TOPO_NONE, TOPO_CART, TOPO_GRAPH, TOPO_DIST, TOPO_DUP, TOPO_SUB };

/* A file a rank opened. */
struct fdef {
	int32_t gid, pos;
	uint32_t split;		/* pending split collective instance */
};

/* A parent call that nested calls are waiting for: its highest nested seq. */
#define HASMPIKID (1ull << 63)

/* A window a rank made: its group (that of the communicator it was made
 * on), the fences it called on it, and its open lock or access epochs. */
struct wdef {
	int32_t gid, pos;
	uint32_t nfence;
	int32_t epochs;
	int32_t unit;		/* its displacement unit, in bytes */
};

struct kid {
	uint64_t parent;
	uint32_t idx;
	uint8_t mpi;		/* of the MPI layer, not MPI-IO */
};

struct rst {
	VEC(struct hrec) rec;
	ivec pool;
	ivec cmap;		/* communicator id -> ldef */
	ivec fmap;		/* file id -> fdef */
	VEC(struct ldef) ldef;
	VEC(struct fdef) fdef;
	ivec wmap;		/* window id -> wdef */
	VEC(struct wdef) wdef;
	uvec pending;		/* ldefs waiting for the record that made them */
	struct umap nest;	/* parent seq -> highest nested seq (| HASMPIKID) */
	VEC(struct kid) kids;	/* MPI records that are nested, with their parent */
	uint64_t records, lastseq;
	int64_t rank;		/* -1 if not known */
	int finalized, sorted;
	uint64_t mpi;		/* its MPI records */
	uint64_t first_node;	/* global number of its first node */
	uint32_t nnodes;
	int32_t run;		/* index in hbb.runs, -1 for a trace of one run */
	int64_t mt0, mt1;	/* its MPI calls' first start, last end */
	uint8_t mtset;		/* (when it has one) */
	char mt1text[32];	/* the last one's end as written, read at the end */
	uint8_t pre, post;	/* a node for the run's start before its calls,
				 * one for its end after them */
	VEC(struct dcomm) dcomm;	/* communicators made by calls that gave
					 * them before they were done (idup) */
	VEC(struct rtime) rt;	/* every record's times, when needed */
	VEC(uint8_t) rtz;	/* the same as read: differences, varints */
	uint64_t rtz_seq;	/* (the last seq and start time pushed) */
	int64_t rtz_t0;
	size_t rtz_n;
	struct span2 *rect;	/* a threaded rank's: its calls' (rec) times */
	int32_t tid1;		/* the thread of its first MPI node record */
	int32_t tid0;		/* the thread of its first MPI call or file
				 * call at depth 0 (graph.c, file_call) */
	uint8_t mt;		/* MPI node records of two threads or more, or
				 * (anythr) records of two at depth 0 */
	uint8_t anythr;		/* two threads made MPI or file calls of their
				 * own: one may do I/O while another waits in
				 * MPI */
	uint8_t threads;	/* its threads made MPI calls at once (and the
				 * times are the run's): nodes are instants */
};

/* One run of a trace of several runs into one directory (a #run line):
 * global ranks first .. first+world-1, and the gid of its MPI_COMM_WORLD. */
struct hrun {
	int64_t first, world;
	int32_t gid;
};

/* ---- operations ---------------------------------------------------------------- */

/* Operations are many: they keep only what matching needs; the seq and
 * function of the call that made one are those of its node. */
struct sendop {
	int32_t gid, src, dst, tag;
	uint32_t node, done;	/* start; where it completed (sync sends) */
	uint32_t flags;		/* TG_MF_SYNC, TG_MF_READY */
};

/* The partitions a partitioned send made ready in one call (its node),
 * and a partition a receive found arrived (struct hbb.preadys, parrs). */
struct pready {
	uint32_t send, node;
	int32_t lo, hi;
};
struct parrived {
	uint32_t recv, node;
	int32_t part;
};

struct recvop {
	int32_t gid, src, dst, tag;
	uint32_t post, done;	/* where it was posted; where it completed */
	int32_t comm;		/* communicator code, to translate the status */
	uint32_t wild;		/* 1: ANY_SOURCE, 2: ANY_TAG */
};

struct inst {
	uint32_t start, end;
	uint64_t seq;
	uint16_t fn, func;
	int32_t root;
	int32_t rank;
	int32_t flow;		/* FLOW_*: what the call moves into this member */
	uint32_t foff, fn_;	/* FLOW_LIST: its flags, hbb.flows[foff..+fn_) */
	int64_t t0, t1;		/* its call's start, its end's end (INT64_MAX: not known) */
	uint8_t timed;		/* a file collective whose ordering the times bound */
};

/* What a collective moves into a member (graph.c, push_flow()). */
#define FLOW_ANY (-1)	/* not known: whatever the call's order says */
#define FLOW_NONE 0	/* nothing: its counts are 0 */
#define FLOW_SOME 1	/* data */
#define FLOW_LIST 2	/* data from the members (neighbours) flagged */

/* A one-sided operation in a fence epoch: the epoch is the number of
 * fences its origin had called on the window before it. */
struct rmaop {
	int32_t gid, origin, target;	/* window group, positions in it */
	uint32_t epoch, node;
	uint8_t flags;			/* TG_MF_PUT, TG_MF_GET */
};

/* A passive-target lock epoch (MPI_Win_lock to MPI_Win_unlock) of one
 * rank on one target of a window, without MPI_MODE_NOCHECK: exclusive
 * ones on one target exclude all others there, shared ones each other not.  @t0 and @t1 are the
 * starts of its lock and unlock calls, nanoseconds from the trace's zero. */
struct lockep {
	int32_t gid, target;		/* window group, target's position */
	uint32_t lock, unlock;		/* their nodes */
	int64_t t0, t0e, t1, t2;	/* lock's start and end, unlock's start and end */
	uint8_t shared;			/* MPI_LOCK_SHARED */
};

/* One side of a general active target epoch (MPI_Win_post..MPI_Win_wait
 * on the target, MPI_Win_start..MPI_Win_complete on the origin) for one
 * origin and one target of a window: the k-th of that pair on its side. */
struct pscwep {
	int32_t gid, origin, target;	/* window group, positions in it */
	uint32_t k;
	uint32_t a, b;		/* origin: its complete's node; target: post, wait */
	uint8_t side;		/* 0 the origin's (access), 1 the target's (exposure) */
	uint8_t get;		/* (origin) a get from the target in the epoch */
};

/* A passive-target operation done (walk.c, passive()): its window
 * group, origin and target positions, the bytes of the target's window
 * it touched [dlo, dhi), its call's start and node, the end and node of
 * the call that completed it, TG_MF_PUT / TG_MF_GET, whether the same
 * read came next on its rank (a poll that went on: it read what was
 * there before), and the lock epoch it was in (LK_*). */
struct passop {
	int32_t gid, origin, target;
	int64_t dlo, dhi;
	int64_t t0, t1;
	uint32_t opnode, node;
	uint8_t flags, again, lock;
};
#define LK_NONE 0	/* MPI_Win_lock_all, MPI_MODE_NOCHECK */
#define LK_SHARED 1	/* a shared lock epoch that hb_lock_edges orders */
#define LK_EXCL 2	/* an exclusive one */

/* Group handles of the trace: "g5" is 5; these are the others. */
#define GRP_EMPTY (-2)		/* MPI_GROUP_EMPTY */
#define GRP_UNKNOWN (-1)

/* What a group constructor (TG_MK_GROUP) does with its arguments. */
enum gop {
	GOP_COMM, GOP_REMOTE, GOP_WIN, GOP_INCL, GOP_EXCL, GOP_UNION, GOP_INTER, GOP_DIFF,
	GOP_UNKNOWN
};

struct gcomm {
	int32_t *members;	/* world ranks: group A then group B */
	uint32_t n, na;		/* members, members of group A */
	uint8_t inter, isfile;
	uvec *lists;		/* per member: its collective instances in order */
	uvec *nbr;		/* per member: the members whose part of a
				 * neighbourhood collective comes before its
				 * end (its sources); NULL: no topology known */
	uint32_t nbr_of;	/* a copy's: 1 + the gid whose nbr it has */
};

/* A key of the point-to-point queues. */
struct qkey {
	int32_t gid, src, dst, tag;
	uint32_t head, tail;	/* sends, linked through snext */
};

struct hbb {
	uint64_t run;		/* the run's id: tg_run_proc() of its #proc lines */
	/* parsing */
	char *carry;
	size_t ncarry, capcarry;
	uint64_t line;
	int seen;		/* a #proc line or a call: text records */
	const char *name;
	VEC(struct rst *) st;	/* all process states */
	ivec rankst;		/* rank -> state */
	struct umap pidst;	/* pid -> state */
	struct rst *last;	/* the state of the previous line */
	const char *lastrank;
	size_t lastranklen;
	int64_t world;
	uint64_t records, mpi, nested;
	uint64_t iosplit;	/* MPI-IO calls with communication nested in them:
				 * the library's own messages are in the trace */
	uint8_t mpionly;	/* hbb_mpi_only() */
	VEC(struct hrun) runs;	/* #run lines, by first rank */

	/* walking and matching */
	uint32_t P;
	VEC(struct gcomm) g;
	ivec keys;		/* interned communicator keys: len, ints... */
	struct umap keyidx;	/* hash -> first key offset (chained by probing) */
	VEC(uint32_t) keyoff;	/* key id -> offset in keys */
	struct umap occ;	/* (key id, rank) -> occurrences so far */
	struct umap gidof;	/* (key id, occurrence) -> gid */
	ivec selfgid;		/* rank -> gid of its MPI_COMM_SELF */
	VEC(struct sendop) sends;
	VEC(struct recvop) recvs;
	VEC(struct pready) preadys;
	VEC(struct parrived) parrs;
	VEC(struct inst) insts;
	ivec flows;		/* the flags of FLOW_LIST instances */
	VEC(struct rmaop) rma;
	VEC(struct lockep) lockeps;
	VEC(struct pscwep) pscw;
	VEC(struct passop) pops;
	uint8_t notimes;		/* the times are not the run's (#timing) */
	uint8_t anchored;	/* ... but for the calls a .cfg kept (anchored=1) */
	uint8_t hosts;		/* 2 when the processes ran on more than one host */
	uint64_t host;		/* the first #proc line's host, hashed */
	uint8_t keep_times;	/* keep every record's times while parsing (the
				 * input can be read once only) */
	uint8_t times_pass;	/* reading the input again for them */
	uint8_t have_times;	/* the ranks that need them have them */
	uint32_t nfiles, ncomms;
	uint64_t messages, collectives;

	/* the graph */
	uvec esrc, edst;
	VEC(uint8_t) ekind;
	VEC(uint16_t) xfunc, xkind;
	VEC(struct tg_hbproblem) prob;
	struct umap probidx;	/* (kind, rank) -> problem */
	uint64_t nnodes;
	int64_t *nt0, *nt1;	/* per call node: its call's start and end; the
				 * same time for an instant (a split call's
				 * end, a run's start and end) */
	VEC(struct tg_hbrecpos) recpos;
	uint64_t *rankfirst, *seq, *eindex;
	uint32_t *span, *clock, *etarget;
	uint16_t *func;
	uint8_t *ekind_sorted;
	struct tg_hbrank *rankinfo;
	VEC(uint8_t) vn;	/* narrow vectors (tangram-hb(5)) */
	ivec vw;		/* wide vectors */
	uint64_t nvn, nvw;
	uint64_t stats[TG_HBST_COUNT];
	struct tg_hbgraph graph;
};

/* Count a problem of @kind at @rank (the first call's @func and @seq). */
void hb_problem(struct hbb *b, unsigned kind, int64_t rank, uint16_t func, uint64_t seq);

/* walk.c: a new global communicator (or file) of members ma[0..na)
 * then mb[0..nb); returns its number. */
uint32_t hb_new_gid(struct hbb *b, const int32_t *ma, uint32_t na, const int32_t *mb,
		    uint32_t nb, int inter, int isfile);

/* walk.c: sort a rank's calls by seq and count its nodes; -1 with a
 * message in @err if two records have one seq. */
int hb_prepare_rank(struct hbb *b, struct rst *r, char *err, size_t errlen);

/* walk.c: walk a rank's calls into operations; frees its call table. */
void hb_walk_rank(struct hbb *b, struct rst *r);

/* Order each run's end before the next run's start: an edge from the end
 * node of every rank of a run to one extra node, and from it to the start
 * node of every rank of the next run. */
void hb_link_runs(struct hbb *b);

/* walk.c: match sends to receives, collectives to each other: edges,
 * extra nodes and problems. */
void hb_match_p2p(struct hbb *b);
void hb_match_colls(struct hbb *b);
/* The edges of one-sided operations, after hb_match_colls. */
void hb_rma_edges(struct hbb *b);
/* The order of exclusive lock epochs on one target, by their times. */
void hb_lock_edges(struct hbb *b);
/* The edges of post/start/complete/wait epochs, matched per pair. */
void hb_pscw_edges(struct hbb *b);
/* The edges of passive-target operations, a get after a put, by times. */
void hb_passive_edges(struct hbb *b);

/* index.c: the nodes of threaded ranks as instants in time order. */
void hb_expand_threads(struct hbb *b);
/* index.c: where each record of a threaded rank lies (RECPOS). */
void hb_place_records(struct hbb *b);

/* index.c: leave out the calls no edge touches. */
void hb_prune(struct hbb *b);

/* index.c: the vector clock of every node; -1 with a message in @err
 * if the graph has a cycle. */
int hb_index_graph(struct hbb *b, char *err, size_t errlen);

/* index.c: the edges as compressed sparse rows. */
void hb_make_csr(struct hbb *b);

#endif
