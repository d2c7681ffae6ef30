/*
 * cfgint.h - the insides of the compressed trace format (tangram-cfg(5))
 * that cfg.c, cfgsig.c and cfgtime.c share: growable buffers, a string
 * table, a small hash map, the signature codec with its per-stream state,
 * and the timing coders.  Not for tools: they use cfg.h.
 *
 * Every structure here owns its memory; *_release() frees it and leaves
 * the structure empty and reusable.  Functions that allocate return -1
 * when out of memory.
 */
#ifndef TG_CFGINT_H
#define TG_CFGINT_H

#include <stddef.h>
#include <stdint.h>

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
enum { TG_F_ABS = 0, TG_F_REL, TG_F_DELTA, TG_F_LIN, TG_F_OFF, TG_F_NFORMS };
enum { TG_R_RAW = 0, TG_R_NEW, TG_R_NEWID, TG_R_USE, TG_R_DONE, TG_R_NFORMS };

/* Request ids above this are never bound (a damaged trace, or not ours). */
#define TG_SIG_MAXREQ (1u << 22)

struct tg_pool {
	uint32_t key;
	uint32_t *slot;		/* request id, 0 for a free slot */
	size_t n, cap;
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
	uint64_t *bufmax;	/* per thread: the largest buffer id named */
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
	struct tg_words tmp;	/* encoder scratch */
	struct tg_words reqs;	/* encoder: placeholders to fill */
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

/* Is @w[0..n) a CALL signature, and of which function and thread? */
int tg_sig_call(const int64_t *w, size_t n, unsigned *func, unsigned *tid);

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

/* Set base from err_ppm; returns -1 if the parameters are out of range. */
int tg_tparams_fix(struct tg_tparams *p);

/* Store @v (signed if @sign) and return the value the decoder will restore. */
int64_t tg_tenc_put(struct tg_tenc *e, const struct tg_tparams *p, int sign, int64_t v);

/* Append the field's bytes (a varint length, then them) to @out. */
int tg_tenc_finish(struct tg_tenc *e, const struct tg_tparams *p, struct tg_bytes *out);
void tg_tenc_release(struct tg_tenc *e);

/* Open a field from [*pp, end): reads its varint length and advances *pp
 * past it.  Returns 0 or -1 (malformed). */
int tg_tdec_open(struct tg_tdec *d, const struct tg_tparams *p,
		 const unsigned char **pp, const unsigned char *end);

/* The next value; 0, or -1 when the field runs out or is malformed. */
int tg_tdec_get(struct tg_tdec *d, const struct tg_tparams *p, int sign, int64_t *v);
void tg_tdec_release(struct tg_tdec *d);

#endif
