/*
 * proxy.h - what the files of trace-proxy share: a growable string, the
 * values each call signature took on each stream, and the fitting of
 * those values to C expressions (proxyfit.c).
 */
#ifndef TG_PROXY_H
#define TG_PROXY_H

#include <stddef.h>
#include <stdint.h>

#include "../libcommon/calltab.h"

struct sb {
	char *s;
	size_t n, cap;
};

void sb_printf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* @s as a C string literal ("NULL" for NULL). */
void sb_cstr(struct sb *b, const char *s);
void sb_release(struct sb *b);

/* One argument (or the return value) of one call, as decoded. */
struct pv {
	int64_t i, u;		/* value; stat mode, status tag; for the return
				 * value: us since the call before ended; for an
				 * MPI_Info given: the contents to make it with
				 * (gen.infos), 0 if a replayed call makes it */
	int64_t prev;		/* offsets: the handle's last offset before */
	char *s;		/* STR, PATH */
	int64_t *arr;		/* arrays: i elements */
	int present;
};

struct occs {
	struct pv *v;		/* nslots per occurrence */
	size_t n, cap;		/* occurrences */
};

/* A call signature: its function and its occurrences on each stream. */
struct term {
	const struct tg_calldesc *d;
	int use;		/* 0 never at depth 0, 1 replayed, 2 left out,
				 * 3 made by the skeleton's main() itself */
	unsigned tid;		/* the thread that made its calls */
	size_t nslots;		/* the return value, then the arguments */
	struct occs *per;	/* one per stream */
};

/* What is being generated. */
struct gen {
	size_t nst;
	int64_t *rank;		/* of each stream, -1 for one not replayed */
	struct sb decl;		/* tables and counters, before the functions */
	unsigned ntab;		/* names of tables made */
	int h5;			/* HDF5 calls are replayed */
	int sleep;		/* --sleep: the compute time before each call */
	unsigned char *h5pre;	/* HDF5's predefined identifiers named */
	uint64_t *mpipre;	/* MPI's predefined handles named: kind << 32 |
				 * value (MPICH's, as the trace holds them) */
	size_t nmpipre;
	int threads;		/* threads other than the main one are replayed */
	char ***infos;		/* MPI_Info contents the trace records (#info), from
				 * 1: key, value, ..., NULL */
	size_t ninfos;
};

/* Which field of a struct pv an expression is fitted to. */
enum { FLD_I, FLD_U, FLD_P, FLD_N, FLD_NZ };	/* FLD_NZ: value != 0 */

/* Append to @out a C expression for slot @slot's field @fld of term @t
 * (number @ti), valid at its occurrence number n<ti> on stream tg_idx;
 * @hk, if not NULL, is the expression of the handle key: the slot is an
 * offset and may be relative to the handle's last one. */
void fit_int(struct gen *g, const struct term *t, unsigned ti, size_t slot, int fld,
	     const char *hk, struct sb *out);

/* The same for a string slot (a const char * expression). */
void fit_str(struct gen *g, const struct term *t, unsigned ti, size_t slot, struct sb *out);

/* The same for an array slot: @ptr a const long long * expression, @cnt
 * its count. */
void fit_arr(struct gen *g, const struct term *t, unsigned ti, size_t slot, struct sb *ptr,
	     struct sb *cnt);

#endif
