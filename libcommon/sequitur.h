/*
 * sequitur.h - grammar compression of a string of symbols with the Sequitur
 * algorithm, extended with repetition counts (seed 004 §3.1.2): a rule body
 * is a list of symbols each raised to a power, and two equal neighbours
 * always fuse, so a loop of n identical iterations costs one symbol.
 *
 * The builder owns all its memory; tg_seq_export() hands out arrays the
 * caller then owns and frees with free().
 */
#ifndef TG_SEQUITUR_H
#define TG_SEQUITUR_H

#include <stddef.h>
#include <stdint.h>

/* Largest symbol value tg_seq_append() takes. */
#define TG_SEQ_MAXVAL ((1u << 30) - 1)

/* A symbol of an exported grammar: sym is (v << 1) for input value v or
 * (r << 1 | 1) for rule r; exp is the repetition count, at least 1. */
struct tg_sym {
	uint32_t sym;
	uint32_t exp;
};

struct tg_seq;

/* A new, empty builder, or NULL when out of memory. */
struct tg_seq *tg_seq_new(void);

void tg_seq_free(struct tg_seq *s);

/*
 * Append @exp copies of value @val (at most TG_SEQ_MAXVAL) to the string.
 * Returns 0, or -1 when out of memory (the builder is then unusable).
 */
int tg_seq_append(struct tg_seq *s, uint32_t val, uint32_t exp);

/*
 * The grammar: *@nrules rules, rule i's body being syms[off[i]] up to
 * syms[off[i + 1]] (off has *@nrules + 1 entries).  A rule names only
 * rules before it; the last rule generates the whole string.  Returns 0,
 * or -1 when out of memory.  The arrays are the caller's.
 */
int tg_seq_export(const struct tg_seq *s, struct tg_sym **syms, uint32_t **off,
		  uint32_t *nrules);

/* Symbols and rules the grammar holds now (for progress and tests). */
size_t tg_seq_size(const struct tg_seq *s, size_t *nrules);

/* The rule slots the builder holds, live or free to use again (tests: a
 * periodic input must not grow them). */
size_t tg_seq_slots(const struct tg_seq *s);

/* Check the builder's internal invariants (tests); returns 0 or -1. */
int tg_seq_check(const struct tg_seq *s);

#endif
