/*
 * cfgint.h - the insides of the compressed trace format (tangram-cfg(5))
 * that the cfg*.c files share: growable buffers, a string table, a small
 * hash map, the signature codec with its per-stream state, the timing
 * coders, and a trace in memory with the helpers its files share.  Not
 * for tools: they use cfg.h.
 *
 * Every structure here owns its memory; *_release() frees it and leaves
 * the structure empty and reusable.  Functions that allocate return -1
 * when out of memory.
 */
#ifndef TG_CFGINT_H
#define TG_CFGINT_H

#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "rec.h"
#include "sequitur.h"

/* ---- buffers --------------------------------------------------------- */

struct tg_words {
	int64_t *w;
	size_t n, cap;
};

int tg_words_push(struct tg_words *v, int64_t x);
void tg_words_release(struct tg_words *v);

struct tg_bytes {
	unsigned char *b;
	size_t n, cap;
};

int tg_bytes_put(struct tg_bytes *b, const void *p, size_t n);
int tg_bytes_uvar(struct tg_bytes *b, uint64_t x);
int tg_bytes_svar(struct tg_bytes *b, int64_t x);
void tg_bytes_release(struct tg_bytes *b);

/* A 64-bit hash of @n bytes (not cryptographic; stable everywhere). */
uint64_t tg_hash_bytes(const void *p, size_t n, uint64_t seed);

/* ---- strings ----------------------------------------------------------- */

/* Interned strings, numbered from 0 in the order they were added. */
struct tg_strtab {
	char **s;
	size_t *len;
	size_t n, cap;
	uint32_t *idx;		/* open addressing: index + 1, 0 empty */
	size_t idxcap;
};

/* The number of @s (@len bytes, NUL-terminated copy kept), added if new;
 * -1 when out of memory. */
int64_t tg_strtab_intern(struct tg_strtab *t, const char *s, size_t len);
void tg_strtab_release(struct tg_strtab *t);

/* ---- a map of 64-bit keys to 64-bit values ----------------------------- */

struct tg_map {
	uint64_t *k, *v;
	unsigned char *used;
	size_t n, cap;
};

/* 1 and *v set if @k is there, else 0. */
int tg_map_get(const struct tg_map *m, uint64_t k, uint64_t *v);
int tg_map_put(struct tg_map *m, uint64_t k, uint64_t v);
void tg_map_release(struct tg_map *m);

/* ---- signatures -------------------------------------------------------- */

/* Argument forms and request forms, as tangram-cfg(5) numbers them. */
enum { TG_F_ABS = 0, TG_F_REL, TG_F_DELTA, TG_F_LIN, TG_F_OFF, TG_F_LVAL, TG_F_LOFF,
       TG_F_NFORMS };

/* String forms: 0 a reference, 1 a template with the world rank left
 * out, 2 the stream's local value i, which holds a reference (cfgunify.c). */
enum { TG_STR_REF = 0, TG_STR_TMPL, TG_STR_LOCAL };

/* Array modes: 0 the elements, 1 runs, 2 new descriptors, 3 each element
 * 2v, or 2i + 1 for the stream's local value i (cfgunify.c). */
enum { TG_A_PLAIN = 0, TG_A_RUNS, TG_A_FDS, TG_A_LOCAL };

/* A CALL signature's hasparent word with this bit: its UINT arguments and
 * its return value in form 0 are words as array mode TG_A_LOCAL has them. */
#define TG_HP_TAGGED 4

/* A request form's pool key, or a status's tag, of TG_WORD_LOCAL + i is
 * the stream's local value i (cfgunify.c): keys are 32-bit, tags int. */
#define TG_WORD_LOCAL (UINT64_C(1) << 32)
enum { TG_R_RAW = 0, TG_R_NEW, TG_R_NEWID, TG_R_USE, TG_R_DONE, TG_R_NFORMS };

/* Request ids above this are never bound (a damaged trace, or not ours). */
#define TG_SIG_MAXREQ (1u << 22)

struct tg_pool {
	uint32_t key;
	uint32_t *slot;		/* request id, 0 for a free slot */
	size_t n, cap;
};

/* A thread's buffer ids, the one it named last first, each once: a
 * buffer named again is coded by its place here, which a loop keeps
 * from one iteration to the next even where new buffers come between. */
#define TG_BUF_RECENT 64
struct tg_bufrecent {
	uint64_t id[TG_BUF_RECENT];
	unsigned n;
};

struct tg_bind {
	uint32_t pool;		/* UINT32_MAX: not bound */
	uint32_t slot;
	uint8_t persist;	/* encoder: made by a *_init call */
};

/*
 * The state a stream's signatures are encoded against and decoded with
 * (tangram-cfg(5), "Decoding state"): both sides update it identically,
 * record by record.
 */
struct tg_sigstate {
	int64_t world_rank;	/* -1 until known */
	int64_t srank;		/* the stream's rank (STREAMS "rank") */
	int64_t *lastseq;	/* per thread */
	int64_t *lastpar;	/* per thread: the last parent named, -1 */
	uint64_t *bufmax;	/* per thread: the largest buffer id named */
	struct tg_bufrecent **bufrec;	/* per thread, made at its first buffer */
	size_t nthreads;
	int64_t lastfd;		/* the last descriptor a call returned, -1 */
	struct tg_map comms;	/* communicator -> position + 1 (0: not a member) */
	struct tg_map offs;	/* handle -> last offset */
	struct tg_map seen;	/* encoder: handles that had an offset */
	struct tg_map poolidx;	/* pool key -> index in pools */
	struct tg_pool *pools;
	size_t npools, cappools;
	struct tg_bind *bind;	/* by request id */
	size_t nbind;
	uint64_t minfree;	/* no request id below it is free */
	uint32_t *release;	/* ids to unbind after the current record */
	size_t nrelease, caprelease;
	uint64_t *clock;	/* CLOCK records' t, in order */
	size_t nclock, capclock, clockpos;
	uint64_t *rep;		/* REPEAT records' count, tstart, span, in order */
	size_t nrep, caprep, reppos;	/* values (three per record) */
	uint64_t *local;	/* the stream's local values (STREAMS "local") */
	size_t nlocal, caplocal;
	const uint8_t *lstr;	/* decoder, borrowed: per local value, 1 when it
				 * is a string reference (NULL: none is) */
	int seqv;		/* seqs as words tagged even/odd (STREAMS "foreign") */
	const uint64_t *foreign;	/* sorted seqs of threads other than 0, borrowed */
	size_t nforeign;
	struct tg_map inh;	/* encoder: inherited descriptor -> local index */
	/* descriptors, as both sides model the kernel's choice of them */
	struct tg_map fdopen;	/* descriptor -> 1 open, 0 closed (0-2 open at first) */
	uint64_t fdlow;		/* no descriptor below it is free */
	int64_t *known;		/* descriptors calls gave, in order */
	size_t nknown, capknown;
	struct tg_map fdsym;	/* descriptor -> its latest index in known + 1 */
	struct tg_words tmp;	/* encoder scratch */
	struct tg_words reqs;	/* encoder: placeholders to fill */
	struct tg_words skip;	/* encoder: the call's chunks, pos << 1 | (2 words) */
};

/* Start a stream whose header holds rank @hrank; @srank is the stream's
 * rank if known (decoding), else -1 (encoding learns it). */
void tg_sig_init(struct tg_sigstate *st, int64_t hrank, int64_t srank);
void tg_sig_release(struct tg_sigstate *st);

/*
 * Encode record @r into @out (cleared first), interning strings into @strs
 * and updating the state.  Returns 0, -1 when out of memory, -2 when the
 * record has an argument kind this version cannot encode.
 */
int tg_sig_encode(struct tg_sigstate *st, struct tg_strtab *strs,
		  const struct tg_rec *r, struct tg_words *out);

/* Where decoded arrays and strings live until the next record. */
struct tg_sigarena {
	int64_t *a;
	size_t na, capa;
	char *c;
	size_t nc, capc;
};

void tg_sigarena_release(struct tg_sigarena *ar);

/*
 * Decode the signature @w[0..n) into *@out with the state, strings from
 * @strs.  Returns 1, 0 for a call of a function this version does not know
 * (its seq is applied, *out->tid and seq set, the rest unset), or -1 when
 * the signature does not fit the state (a damaged file).
 */
int tg_sig_decode(struct tg_sigstate *st, const struct tg_strtab *strs,
		  const int64_t *w, size_t n, struct tg_rec *out,
		  struct tg_sigarena *ar);

/*
 * Check that @w[0..n) is a well-formed signature whose string references
 * are below @nstrs; when @remap is not NULL, replace each string
 * reference i + 1 by remap[i] + 1.  Returns 0, or -1 when malformed.
 * Signatures of unknown functions pass unchanged unless @remap is set,
 * which then fails with -2.
 */
int tg_sig_check(int64_t *w, size_t n, size_t nstrs, const uint32_t *remap);

/* The places in the signature @w[0..n) of its string references (a
 * template's is the word after its form word 1, tangram-cfg(5)), the
 * first @max of them stored in @pos; how many there are, or -1 when
 * @w does not parse or names a function this version does not know. */
int64_t tg_sig_strings(const int64_t *w, size_t n, uint32_t *pos, size_t max);

/* A CALL signature @v of a file of version @version, written before
 * arguments were appended to its function's schema (calltab's "appended",
 * the version that has them): the words of those arguments, absent (-1),
 * put in where they go.  Returns 0, or -1 when the words are malformed or
 * memory ran out. */
int tg_sig_upgrade(struct tg_words *v, unsigned version);

/* Is @w[0..n) a CALL signature, and of which function and thread? */
int tg_sig_call(const int64_t *w, size_t n, unsigned *func, unsigned *tid);

/*
 * The words of the CALL signature @w[0..n) that may differ between
 * processes that did the same thing (cfgunify.c): integer arguments and
 * status sources in form ABS, REL or LVAL (a chunk of two words, the
 * form and its operand: TG_CH_INT), offsets in form OFF or LOFF (two
 * words: TG_CH_OFF), the pool keys of request forms and the tags of
 * statuses (one word: TG_CH_WORD), and the elements of arrays in mode
 * TG_A_PLAIN or TG_A_LOCAL (one word each: TG_CH_AEL, after the mode
 * word's TG_CH_AMODE), UINT arguments and a return value in form 0 (one
 * word each, tagged when the hasparent word has TG_HP_TAGGED: TG_CH_TAG),
 * and strings in form TG_STR_REF or TG_STR_LOCAL (two words: TG_CH_STR).
 * Stores the first @max chunks' word positions in
 * @pos and types in @type; returns how many there are, or -1 when @w is
 * not a CALL signature or does not parse.
 */
enum { TG_CH_INT = 0, TG_CH_WORD, TG_CH_OFF, TG_CH_AMODE, TG_CH_AEL, TG_CH_TAG, TG_CH_STR };
int tg_sig_chunks(const int64_t *w, size_t n, uint32_t *pos, uint8_t *type, size_t max);

/*
 * Streams whose rules generate the same calls but for some integers
 * (tg_sig_chunks) share one rule: the integers that differ become the
 * streams' local values.  Part of tg_cfg_optimize().  Returns 1 when it
 * changed @c, 0 when not, -1 when out of memory (@c is then unusable).
 */
int tg_cfg_unify(struct tg_cfg *c);

/* Drop the signatures no rule names any more (their AGG with them);
 * 0, or -1 when out of memory. */
int tg_cfg_cst_compact(struct tg_cfg *c);

/* ---- timing -------------------------------------------------------------- */

enum { TG_T_AGG = 0, TG_T_LOSSLESS = 1, TG_T_BINNED = 2, TG_T_HIST = 3, TG_T_CFG = 4,
       TG_T_NMODES };

struct tg_tparams {
	int mode;
	uint32_t err_ppm;	/* binned, hist, cfg: relative error in millionths */
	uint32_t bits;		/* hist: K */
	uint32_t samples;	/* hist: M */
	double base;		/* 1 + err_ppm / 1e6 */
};

/* One field (durations or gaps) of one cluster, being written. */
struct tg_tenc {
	struct tg_bytes head, bits, esc;
	uint64_t n;
	int nbits;		/* bits used in the last byte of bits */
	int64_t *codes;		/* hist: codes of the first samples */
	int64_t *table;		/* hist: 2^K codes, sorted; ntable of them */
	size_t ntable;
	struct tg_seq *seq;	/* cfg: Sequitur over the codes */
	int failed;		/* cfg: out of memory while appending */
};

/* Where the expansion of a cfg field's grammar stands: rule, position
 * in its body, repetitions of that symbol still to come (0: not begun). */
struct tg_tframe {
	uint32_t rule, pos, left;
};

/* One field being read. */
struct tg_tdec {
	const unsigned char *p, *end;	/* lossless; hist: the head */
	const unsigned char *bp, *bend;	/* hist: bits */
	const unsigned char *ep, *eend;	/* hist: exact values */
	uint64_t n, bitpos;
	int64_t *codes, *table;
	size_t ntable;
	struct tg_sym *syms;		/* cfg: the grammar */
	uint32_t *off, nrules, sp;
	struct tg_tframe *st;		/* cfg: expansion stack */
};

/*
 * An STIME payload starts with the stream's timing mode, plus
 * TG_STIME_FORM1 for the later layout of lossless times (tangram-cfg(5)):
 * the count of every cluster first, then every cluster's durations, then
 * every cluster's gaps, all without byte counts, each gap taken from
 * tg_time_from() instead of the previous start.
 */
#define TG_STIME_FORM1 8

/*
 * Where form 1 measures a call's gap from, given the thread's previous
 * call (its start, duration and depth; all 0 before the first): that
 * call's end, or its start when it was deeper than this one, i.e. made
 * inside it (the enclosing call is stored after the calls it made).
 */
static inline uint64_t tg_time_from(uint64_t start, uint64_t dur, uint64_t depth,
				    unsigned cur_depth)
{
	return depth > cur_depth ? start : start + dur;
}

/* Set base from err_ppm; returns -1 if the parameters are out of range. */
int tg_tparams_fix(struct tg_tparams *p);

/* Store @v (signed if @sign) and return the value the decoder will restore. */
int64_t tg_tenc_put(struct tg_tenc *e, const struct tg_tparams *p, int sign, int64_t v);

/* Append the field's bytes (a varint length, then them) to @out. */
int tg_tenc_finish(struct tg_tenc *e, const struct tg_tparams *p, struct tg_bytes *out);
void tg_tenc_release(struct tg_tenc *e);

/* Lossless form 1: append the field's varints alone, without a byte count
 * (the reader knows how many there are). */
int tg_tenc_finish_bare(const struct tg_tenc *e, struct tg_bytes *out);

/* Open a field from [*pp, end): reads its varint length and advances *pp
 * past it.  Returns 0 or -1 (malformed). */
int tg_tdec_open(struct tg_tdec *d, const struct tg_tparams *p,
		 const unsigned char **pp, const unsigned char *end);

/* Lossless form 1: open a field of @n varints at *pp, advancing *pp past
 * them.  Returns 0 or -1 (they do not fit before @end). */
int tg_tdec_open_bare(struct tg_tdec *d, const unsigned char **pp, const unsigned char *end,
		      uint64_t n);

/* The next value; 0, or -1 when the field runs out or is malformed. */
int tg_tdec_get(struct tg_tdec *d, const struct tg_tparams *p, int sign, int64_t *v);
void tg_tdec_release(struct tg_tdec *d);

/* ---- a compressed trace in memory ------------------------------------------ */

/*
 * A trace is its string table, its CST (signatures as word arrays,
 * interned by hash), the mean times of each signature, one rule set shared
 * by all streams (rules are hash-consed, so two streams, or two parts of
 * streams, that generate the same string share one rule: the
 * identical-grammar check of seed 004 §3.4.2), and the streams: a header,
 * a start rule and, unless their times are aggregate, their STIME payload,
 * kept compressed as it is on disk so that merging copies it.
 *
 * cfg.c: the trace itself and the helpers several files use; cfgcst.c:
 * the CST and the rules; cfgrebuild.c, cfgopt.c: the final Sequitur pass;
 * cfgcompress.c, cfgmerge.c, cfgwrite.c, cfgread.c, cfgdecode.c,
 * cfgpack.c: one job of cfg.h each.
 */

/* Section types and the section header (tangram-cfg(5), "File layout"). */
enum { TG_S_END = 0, TG_S_META, TG_S_STRINGS, TG_S_CST, TG_S_AGG, TG_S_GRAMMAR, TG_S_STREAMS,
       TG_S_STIME, TG_S_XTIME, TG_S_NTYPES };

/* The fields of a stream header (tangram-cfg(5), STREAMS), in order: in a
 * version 1 file each header is a row of them, from version 2 on each
 * field is a column holding every stream's value. */
enum { TG_F_FLAGS, TG_F_HRANK, TG_F_HWORLD, TG_F_PID, TG_F_PPID, TG_F_CLOCK, TG_F_HOST,
       TG_F_CWD, TG_F_ARGV, TG_F_RANK, TG_F_RECORDS, TG_F_CALLS, TG_F_RULE, TG_F_END,
       TG_F_TIMING, TG_F_ERROR, TG_F_BITS, TG_F_SAMPLES, TG_F_CLOCKS, TG_F_LOCAL,
       TG_F_FOREIGN, TG_F_RUN, TG_F_REPEATS, TG_F_SLOCAL, TG_F_XTIME, TG_F_N };

/* A STREAMS flags bit that no stream header has (theirs are 16 bits): the
 * stream's times are aggregate and its anchored calls have no XTIME, as
 * in a file of version 12 or before it was merged from. */
#define TG_CFG_UNANCHORED 0x10000u

#define TG_SEC_ZLIB 1u
#define TG_SEC_HDR 24
#define TG_SEC_MAXRAW (1ull << 40)	/* no section inflates to more */

struct tg_cst {
	size_t off;
	uint32_t n;
};

struct tg_agg {
	uint64_t count;
	unsigned __int128 dur;
	__int128 gap;
};

struct tg_cstream {
	struct tg_cfg_stream v;	/* v.h's strings are owned */
	uint32_t rule;
	uint64_t *clock;
	size_t nclock;
	uint64_t *rep;		/* REPEAT records: count, tstart, span each */
	size_t nrep;		/* values, three per record */
	uint64_t *local;	/* values its signatures name by index */
	size_t nlocal;
	uint8_t *lstr;		/* NULL, or per local value 1 when it is a
				 * string reference (form TG_STR_LOCAL) */
	int seqv;		/* seqs as tagged words (a "foreign" field) */
	uint64_t *foreign;	/* sorted seqs of threads other than 0 */
	size_t nforeign;
	unsigned char *tz;	/* STIME payload as stored (zlib) */
	size_t tzlen;
	uint64_t tzat;		/* where its section was in the file read, 0 */
	uint64_t traw;		/* its inflated length */
	uint64_t nx;		/* anchored calls, in its XTIME payload */
	unsigned char *xz;	/* XTIME payload as stored (zlib if xzlib) */
	size_t xzlen;
	int xzlib;
	uint64_t xraw;		/* its inflated length */
	uint64_t xzat;		/* where its section was in the file read, 0 */
};

struct tg_cfg {
	struct tg_strtab strs;
	int64_t *words;
	size_t nwords, capwords;
	struct tg_cst *cst;
	struct tg_agg *agg;
	size_t ncst, capcst;
	uint32_t *cstidx;	/* hash -> index + 1 */
	size_t cstidxcap;
	struct tg_sym *syms;
	size_t nsyms, capsyms;
	uint32_t *roff;		/* rule i: syms[roff[i] .. roff[i + 1]) */
	size_t nrules, caproff;
	uint32_t *ruleidx;	/* hash -> rule + 1 */
	size_t ruleidxcap;
	struct tg_cstream *st;
	size_t nst, capst;
	/* decoding caches, rebuilt when stale */
	int ready;
	uint64_t *mdur;
	int64_t *mgap;
	uint32_t *depth;
};

/* cfg.c */

/* Copy header @s into @d, strings and all; -1 when out of memory (then
 * @d holds what was copied, for the stream's release to free). */
int tg_cfg_header_copy(struct tg_header *d, const struct tg_header *s);

/* A new, zeroed stream at the end of @c's; NULL when out of memory. */
struct tg_cstream *tg_cfg_stream_new(struct tg_cfg *c);

/* Drop the decoding caches (they are rebuilt when next needed). */
void tg_cfg_caches_free(struct tg_cfg *c);

/* Grow the per-thread arrays *@a and *@b (*@n entries, new ones zero) to
 * hold thread @tid; -1 when out of memory or @tid is absurd. */
int tg_cfg_thread_room(uint64_t **a, uint64_t **b, size_t *n, uint64_t tid);

/* zlib: *@out (malloc'd, *@outn bytes) the deflated @in[0..n); inflate
 * @z[0..zn) into *@out, which must come to exactly @raw bytes. */
int tg_cfg_deflate(const unsigned char *in, size_t n, unsigned char **out, size_t *outn);
int tg_cfg_inflate(const unsigned char *z, size_t zn, uint64_t raw, unsigned char **out);

/* cfgcst.c */

/*
 * The terminal of signature @w[0..n), added if new (looked up first only
 * if @dedupe: a file's CST has no repeats); -1 when out of memory or when
 * there are too many.
 */
int64_t tg_cfg_cst_intern(struct tg_cfg *c, const int64_t *w, size_t n, int dedupe);

/* A rule set being built: bodies appended, identical bodies kept once. */
struct tg_rules {
	struct tg_sym *syms;
	size_t nsyms, capsyms;
	uint32_t *roff;
	size_t nrules, caproff;
	uint32_t *idx;
	size_t idxcap;
};

/* The rule with body @b[0..n), added if new; UINT32_MAX when out of memory. */
uint32_t tg_rules_add(struct tg_rules *r, const struct tg_sym *b, size_t n);
/* ... an equal body counting only among rules @from on. */
uint32_t tg_rules_add_from(struct tg_rules *r, const struct tg_sym *b, size_t n, uint32_t from);
void tg_rules_release(struct tg_rules *r);

/* The rule set of @c, lent out as a struct tg_rules and given back. */
struct tg_rules tg_cfg_rules_take(struct tg_cfg *c);
void tg_cfg_rules_give(struct tg_cfg *c, struct tg_rules *r);

/* tg_rules_add on the rule set of @c. */
uint32_t tg_cfg_rule_add(struct tg_cfg *c, const struct tg_sym *b, size_t n);
uint32_t tg_cfg_rule_add_from(struct tg_cfg *c, const struct tg_sym *b, size_t n, uint32_t from);

/* cfgxtime.c: the exact times of a stream's anchored calls (XTIME) */

/* Is @r a call whose exact times a stream in aggregate timing keeps: a
 * record lock taken or dropped, a call that makes or replaces a process,
 * an MPI-IO shared file pointer call, a file collective in which no MPI
 * call was made (@nested_mpi 0)?  (Every call made while the stream has
 * no rank is kept too, whatever this says.) */
int tg_xtime_wanted(const struct tg_rec *r, int nested_mpi);

/* The anchored calls of a stream being compressed, as XTIME's columns. */
struct tg_xtenc {
	struct tg_bytes skip, start, dur;
	uint64_t next;		/* the index of the call after the last one */
	uint64_t end;		/* the last one's end */
	uint64_t n;
};

/* Keep the times of @r, the stream's CALL number @call (calls in order);
 * -1 out of memory. */
int tg_xtenc_put(struct tg_xtenc *e, uint64_t call, const struct tg_rec *r);

/* Make @s's XTIME payload of the calls kept (none kept: none).  0, or -1
 * out of memory. */
int tg_xtenc_finish(struct tg_xtenc *e, struct tg_cstream *s);
void tg_xtenc_release(struct tg_xtenc *e);

/* The anchored calls of a stream, read in order. */
struct tg_xtdec {
	unsigned char *raw;	/* the payload inflated, NULL if stored plain */
	const unsigned char *p, *pst, *pdu, *end;	/* in each column */
	uint64_t left;		/* anchors not yet read */
	uint64_t calls;		/* the stream's calls: every index is below */
	uint64_t from;		/* the first index the next may have */
	uint64_t next;		/* the current anchor's call, UINT64_MAX: none */
	uint64_t start, dur;	/* its times */
};

/* Open @s's anchors at the first (none: next is UINT64_MAX); 0, or -1
 * when the payload is malformed or memory ran out. */
int tg_xtdec_open(struct tg_xtdec *d, const struct tg_cstream *s);
/* Move to the next anchor; 0, or -1 when malformed. */
int tg_xtdec_step(struct tg_xtdec *d);
void tg_xtdec_release(struct tg_xtdec *d);

/* Does @s's XTIME payload hold its nx anchors, in order, and nothing
 * else?  0, or -1. */
int tg_xtime_check(const struct tg_cstream *s);

/* cfgrebuild.c */

/*
 * Replace the rules of @c by those that the DAG @body/@off over @nnodes
 * nodes generates from the streams' roots (@roots[i] for stream i), normalized;
 * 0, or -1 when out of memory.
 */
int tg_cfg_rebuild(struct tg_cfg *c, size_t nnodes, const struct tg_sym *body,
		   const uint32_t *off, const uint32_t *roots);
/* ... and the nodes @keep[node] is set for are not put in place even
 * when used once. */
int tg_cfg_rebuild_keep(struct tg_cfg *c, size_t nnodes, const struct tg_sym *body,
			const uint32_t *off, const uint32_t *roots, const uint8_t *keep);

/* cfgreshape.c */

/*
 * Cut the rules of @c's streams alike where they make calls equal but for
 * the words tg_sig_chunks() names, so that tg_cfg_unify() can share them.
 * 1 when it did, 0 when it left @c as it was (nothing to do, or too big),
 * -1 when out of memory (@c then as it was too).
 */
int tg_cfg_reshape(struct tg_cfg *c);

/*
 * For tg_cfg_reshape(): each terminal's skeleton hash (*@tsh, c->ncst of
 * them) and each rule's expansion length and skeleton hash (*@rlen, *@rh,
 * c->nrules), as tg_cfg_unify() groups them; malloc'd arrays.  0, -2 when
 * the rules are not renormalized, -1 when out of memory.
 */
int tg_cfg_shapes(struct tg_cfg *c, uint64_t **tsh, uint64_t **rlen, uint64_t **rh);

/* Rebuild the rules of @c in place (normalize, drop unused ones). */
int tg_cfg_renormalize(struct tg_cfg *c);

#endif
