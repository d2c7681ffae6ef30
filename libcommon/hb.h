/*
 * hb.h - the happens-before graph file (.hb), as specified in tangram-hb(5):
 * writing one from a graph in memory, reading one back safely, and asking
 * whether one record happens before another.
 *
 * Ownership: tg_hb_write() only reads the graph it is given; a graph opened
 * with tg_hb_open() owns its mapping or buffer, every pointer it hands out
 * points into it and stays valid until tg_hb_close().
 */
#ifndef TG_HB_H
#define TG_HB_H

#include <stddef.h>
#include <stdint.h>

struct tg_stream;

#define TG_HB_MAGIC "\x89TGHB\r\n\x1a"
#define TG_HB_MAGIC_LEN 8
#define TG_HB_VERSION 2		/* 2: a CRC section; 1 is read, unchecked */
#define TG_HB_HDRLEN 64

/* Header flags. */
#define TG_HB_PROBLEMS 1u	/* problems were found: see the PROBLEMS section */

/* Section ids, fixed forever (tangram-hb(5)). */
enum tg_hbsect {
	TG_HBS_RANKS = 1, TG_HBS_RANKINFO = 2, TG_HBS_NODESEQ = 3,
	TG_HBS_NODEINFO = 4, TG_HBS_EXTRA = 5, TG_HBS_EDGEINDEX = 6,
	TG_HBS_EDGETARGET = 7, TG_HBS_EDGEKIND = 8, TG_HBS_CLOCKNODE = 9,
	TG_HBS_CLOCKVEC = 10, TG_HBS_STATS = 11, TG_HBS_PROBLEMS = 12,
	TG_HBS_CLOCKWIDE = 13, TG_HBS_CRC = 14, TG_HBS_RUN = 15, TG_HBS_RECPOS = 16,
};

/* Edge kinds, fixed forever. */
enum tg_hbedge {
	TG_HBE_MESSAGE = 1, TG_HBE_SYNC = 2, TG_HBE_GATHER = 3,
	TG_HBE_RELEASE = 4, TG_HBE_ROOT = 5, TG_HBE_TOROOT = 6,
	TG_HBE_PREFIX = 7, TG_HBE_RUN = 8, TG_HBE_RMA = 9, TG_HBE_LOCK = 10,
	TG_HBE_COUNT
};

/* Extra node kinds, fixed forever. */
enum tg_hbextra {
	TG_HBX_ALL = 1, TG_HBX_PREFIX = 2, TG_HBX_SIDE = 3, TG_HBX_RUN = 4, TG_HBX_LOCK = 5,
};

/* Problem kinds, fixed forever. */
enum tg_hbprob {
	TG_HBP_UNMATCHED_SEND = 1, TG_HBP_UNMATCHED_RECV, TG_HBP_UNMATCHED_COLL,
	TG_HBP_COLL_MISMATCH, TG_HBP_INCOMPLETE, TG_HBP_WILDCARD,
	TG_HBP_UNKNOWN_HANDLE, TG_HBP_TRUNCATED, TG_HBP_MISSING_RANK,
	TG_HBP_FAILED_CALL, TG_HBP_BAD_RANK, TG_HBP_ONE_SIDED, TG_HBP_MPI_UNTRACED,
	TG_HBP_COUNT
};

/* Counts of the STATS section, in their order. */
enum tg_hbstat {
	TG_HBST_RECORDS, TG_HBST_MPI, TG_HBST_NESTED, TG_HBST_COMMS,
	TG_HBST_FILES, TG_HBST_MESSAGES, TG_HBST_COLLECTIVES, TG_HBST_CALLS,
	TG_HBST_COUNT
};

/* Rank flags of the RANKINFO section. */
#define TG_HBR_TRUNCATED 1u
#define TG_HBR_ABSENT 2u
#define TG_HBR_THREADS 4u	/* threads made its MPI calls at once: its nodes
				 * are instants in time order, its records
				 * placed by the RECPOS section */

#define TG_HB_NOVEC UINT32_MAX
#define TG_HB_NOSEQ UINT64_MAX
/* A vector number with this bit is a wide vector's. */
#define TG_HB_WIDE 0x80000000u
/* The offset of a narrow vector entry that is -1. */
#define TG_HB_OFFNONE 0xffffu
/* Bytes of a narrow vector of @p ranks: le32 base, p le16, padding. */
#define TG_HB_NARROW(p) ((4 + 2 * (uint64_t)(p) + 3) & ~(uint64_t)3)

struct tg_hbrank {
	uint64_t records;	/* call records read */
	uint64_t lastseq;	/* TG_HB_NOSEQ if none */
	uint32_t flags;		/* TG_HBR_* */
};

/* Where a record of a rank whose threads made MPI calls at once lies
 * among the rank's nodes (instants, by time): @after the first that came
 * after it ended, @before the last that came before it started, local
 * indexes or TG_HB_NONODE. */
struct tg_hbrecpos {
	uint64_t seq;
	uint32_t rank, after, before;
};
#define TG_HB_NONODE UINT32_MAX

struct tg_hbproblem {
	uint16_t kind;		/* enum tg_hbprob */
	uint16_t func;		/* call table id, 0 if none */
	uint32_t rank;
	uint64_t seq;		/* of the first such call */
	uint64_t count;
};

/*
 * A graph in memory, as hb-build makes it and tg_hb_write() writes it.
 * Arrays are indexed by node: call nodes 0..nnodes-1, then extra nodes.
 */
struct tg_hbgraph {
	uint32_t nranks;
	unsigned flags;			/* TG_HB_* */
	uint64_t nnodes, nextra, nedges;
	uint64_t nvec, nwide;		/* narrow and wide vectors */
	const uint64_t *rankfirst;	/* nranks + 1 */
	const struct tg_hbrank *rankinfo;	/* nranks */
	const uint64_t *seq;		/* nnodes */
	const uint32_t *span;		/* nnodes */
	const uint16_t *func;		/* nnodes */
	const uint16_t *xfunc, *xkind;	/* nextra */
	const uint64_t *eindex;		/* nnodes + nextra + 1 */
	const uint32_t *etarget;	/* nedges */
	const uint8_t *ekind;		/* nedges */
	const uint32_t *clock;		/* nnodes: vector number (| TG_HB_WIDE) or
					 * TG_HB_NOVEC */
	const uint8_t *vecn;		/* nvec * TG_HB_NARROW(nranks) */
	const int32_t *vecw;		/* nwide * nranks */
	const uint64_t *stats;		/* TG_HBST_COUNT */
	const struct tg_hbproblem *problems;
	size_t nproblems;
	uint64_t run;			/* the run's id (tg_run_proc()), 0 if not
					 * known (no RUN section) */
	const struct tg_hbrecpos *recpos;	/* by rank, then seq */
	uint64_t nrecpos;
};

/* Write @g to @s.  Returns 0, or -1 with errno set (the stream's error). */
int tg_hb_write(struct tg_stream *s, const struct tg_hbgraph *g);

struct tg_hb;

/*
 * Open and check the .hb file at @path ("-" for standard input).  Returns
 * the graph, or NULL with a one-line message in @err, which the caller
 * prefixes with the path: the file cannot be read (strerror, or "read
 * error: " and it), is not a .hb file, or is damaged ("at offset N: ...").
 */
struct tg_hb *tg_hb_open(const char *path, char *err, size_t errlen);

/* The same for the @len bytes at @buf, a malloc'd buffer that the graph
 * owns from now on, whatever the outcome. */
struct tg_hb *tg_hb_open_buf(void *buf, size_t len, char *err, size_t errlen);

/* Release everything @g owns. */
void tg_hb_close(struct tg_hb *g);

/* The graph's counts and arrays, pointing into the file (see struct
 * tg_hbgraph for what each holds). */
const struct tg_hbgraph *tg_hb_graph(const struct tg_hb *g);

/* Span and func of call node @n (the NODEINFO section). */
uint32_t tg_hb_span(const struct tg_hb *g, uint64_t n);
uint16_t tg_hb_func(const struct tg_hb *g, uint64_t n);

/* The rank of call node @n. */
uint32_t tg_hb_node_rank(const struct tg_hb *g, uint64_t n);

/*
 * Does record @i of rank @a happen before record @j of rank @b (it
 * returned before the other was called)?  Returns 1 or 0; -1 if a rank is
 * not below the graph's rank count or a seq is beyond the last record of
 * its rank (one beyond is the end of the process, and is asked).
 */
int tg_hb_query(const struct tg_hb *g, uint32_t a, uint64_t i, uint32_t b,
		uint64_t j);

/*
 * Does the graph have record @seq of rank @r: the rank is below its rank
 * count and the seq not beyond the rank's last record?  One beyond is the
 * end of the process, where overlap-find closes the files it left open,
 * and counts.  Returns 1 or 0.
 */
int tg_hb_has_record(const struct tg_hb *g, uint32_t r, uint64_t seq);

/* A question for tg_hb_query_many(): record @i of rank @a, @j of @b. */
struct tg_hbq {
	uint32_t a, b;
	uint64_t i, j;
};

/*
 * The answers to @n questions at once, 1 or 0 in @ans[0..n): the same as
 * tg_hb_query() gives one by one, but faster, since the memory the
 * questions need is fetched for several of them at a time.  A question
 * about a record the graph does not have (where tg_hb_query() gives -1)
 * is answered TG_HB_NOREC.
 */
#define TG_HB_NOREC 2
void tg_hb_query_many(const struct tg_hb *g, size_t n, const struct tg_hbq *q,
		      unsigned char *ans);

/* Names of edge kinds, extra node kinds and problem kinds ("message",
 * "unmatched-send"...), "?" when unknown. */
const char *tg_hb_edge_name(unsigned kind);
const char *tg_hb_extra_name(unsigned kind);
const char *tg_hb_problem_name(unsigned kind);

#endif
