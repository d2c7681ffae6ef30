/*
 * test_sequitur.c - Sequitur with repetition counts (libcommon/sequitur.h):
 * every grammar expands back to its input exactly, loops cost O(1)
 * symbols, and the builder's invariants hold along the way.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../libcommon/sequitur.h"
#include "tap.h"
#include "../../libcommon/banned.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t rng;

static uint64_t next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Expand rule @r of the grammar into out[*n...]; returns -1 on overflow. */
static int expand(const struct tg_sym *syms, const uint32_t *off, uint32_t r,
		  uint32_t *out, size_t *n, size_t cap)
{
	uint32_t i, k;

	for (i = off[r]; i < off[r + 1]; i++) {
		for (k = 0; k < syms[i].exp; k++) {
			if (syms[i].sym & 1) {
				if ((syms[i].sym >> 1) >= r)
					return -1;	/* must name an earlier rule */
				if (expand(syms, off, syms[i].sym >> 1, out, n, cap) < 0)
					return -1;
			} else {
				if (*n >= cap)
					return -1;
				out[(*n)++] = syms[i].sym >> 1;
			}
		}
	}
	return 0;
}

/* Build a grammar of in[0..n), check it expands to in; returns its size in
 * symbols (or -1) and its rule count in *nrules. */
static long roundtrip(const uint32_t *in, size_t n, int check_every, uint32_t *nrules)
{
	struct tg_seq *s = tg_seq_new();
	struct tg_sym *syms;
	uint32_t *off, *out;
	size_t i, got = 0;
	long size;
	int bad = 0;

	if (!s)
		return -1;
	for (i = 0; i < n; i++) {
		if (tg_seq_append(s, in[i], 1) < 0)
			bad = 1;
		if (check_every && i % (size_t)check_every == 0 && tg_seq_check(s) < 0)
			bad = 1;
	}
	if (tg_seq_check(s) < 0 || tg_seq_export(s, &syms, &off, nrules) < 0) {
		tg_seq_free(s);
		return -1;
	}
	tg_seq_free(s);
	out = malloc((n + 1) * sizeof(uint32_t));
	if (!out || expand(syms, off, *nrules - 1, out, &got, n + 1) < 0 || got != n ||
	    memcmp(out, in, n * sizeof(uint32_t)) != 0)
		bad = 1;
	size = (long)off[*nrules];
	free(out);
	free(syms);
	free(off);
	return bad ? -1 : size;
}

/* A program-like string: nested loops over a small alphabet. */
static size_t gen_loops(uint32_t *a, size_t cap, int depth)
{
	size_t n = 0, body, reps, k;
	uint32_t i;

	while (n < cap / 4) {
		if (depth > 0 && next() % 3 == 0) {
			body = gen_loops(a + n, (cap - n) / 8, depth - 1);
			reps = 1 + next() % 7;
			for (k = 1; k < reps && n + body * (k + 1) <= cap; k++)
				memcpy(a + n + body * k, a + n, body * sizeof(uint32_t));
			n += body * k;
		} else {
			for (i = 0; i < 1 + next() % 3 && n < cap; i++)
				a[n++] = (uint32_t)(next() % 12);
		}
		if (next() % 5 == 0)
			break;
	}
	return n;
}

int main(void)
{
	static uint32_t a[200000];
	uint32_t nr;
	size_t n, i;
	long size;
	int seed;

	/* empty and tiny strings */
	size = roundtrip(a, 0, 1, &nr);
	is_int(size, 0, "empty string: no symbols");
	a[0] = 7;
	is_int(roundtrip(a, 1, 1, &nr), 1, "one symbol");
	a[1] = 7;
	is_int(roundtrip(a, 2, 1, &nr), 1, "a a is a^2: one symbol");

	/* a^n: one symbol */
	for (i = 0; i < 100000; i++)
		a[i] = 3;
	is_int(roundtrip(a, 100000, 0, &nr), 1, "a^100000 is one symbol");
	is_int(nr, 1, "a^100000 is one rule");

	/* (a b c)^n: O(1) */
	for (i = 0; i < 30000; i++)
		a[i] = (uint32_t)(i % 3);
	size = roundtrip(a, 30000, 0, &nr);
	ok(size > 0 && size <= 4, "(a b c)^10000 takes at most 4 symbols (%ld)", size);

	/* (a b^5 c)^n with a prefix and a suffix */
	n = 0;
	a[n++] = 9;
	for (i = 0; i < 1000; i++) {
		a[n++] = 1;
		a[n++] = 2; a[n++] = 2; a[n++] = 2; a[n++] = 2; a[n++] = 2;
		a[n++] = 3;
	}
	a[n++] = 9;
	size = roundtrip(a, n, 97, &nr);
	ok(size > 0 && size <= 8, "x (a b^5 c)^1000 x takes at most 8 symbols (%ld)", size);

	/* a periodic input a million symbols long: rules are made and
	 * expanded as the loop grows, and their slots are used again */
	{
		struct tg_seq *q = tg_seq_new();
		int bad = !q;

		for (i = 0; !bad && i < 1000000; i++)
			bad = tg_seq_append(q, (uint32_t)(i % 4 == 3 ? 5 : i % 4), 1) < 0;
		ok(!bad && tg_seq_slots(q) <= 64 && tg_seq_check(q) == 0,
		   "(a b c d)^250000 appended one by one: at most 64 rule slots (%zu)",
		   q ? tg_seq_slots(q) : 0);
		tg_seq_free(q);
	}

	/* the same loop at 10 and 1000 iterations: the same size */
	{
		long s10, s1000;
		for (i = 0; i < 40; i++)
			a[i] = (uint32_t)(i % 4 == 3 ? 5 : i % 4);
		s10 = roundtrip(a, 40, 1, &nr);
		for (i = 0; i < 4000; i++)
			a[i] = (uint32_t)(i % 4 == 3 ? 5 : i % 4);
		s1000 = roundtrip(a, 4000, 0, &nr);
		ok(s10 > 0 && s10 == s1000, "10 and 1000 iterations: same size (%ld, %ld)",
		   s10, s1000);
	}

	/* random strings over small alphabets: exact round trips */
	for (seed = 1; seed <= 40; seed++) {
		uint32_t alpha = (uint32_t)(seed % 5 + 2);
		rng = (uint64_t)seed;
		n = 2000 + next() % 3000;
		for (i = 0; i < n; i++)
			a[i] = (uint32_t)(next() % alpha);
		ok(roundtrip(a, n, 13, &nr) > 0, "random string, seed %d, alphabet %u", seed,
		   alpha);
	}

	/* program-like strings: nested loops */
	for (seed = 1; seed <= 60; seed++) {
		rng = (uint64_t)seed * 7919;
		n = gen_loops(a, N(a), 4);
		size = roundtrip(a, n, 31, &nr);
		ok(size >= 0 && (n == 0 || size > 0), "nested loops, seed %d (%zu symbols, grammar %ld)",
		   seed, n, size);
	}

	/* a long random string over many values */
	rng = 99;
	for (i = 0; i < N(a); i++)
		a[i] = (uint32_t)(next() % 1000);
	ok(roundtrip(a, N(a), 0, &nr) > 0, "200000 symbols over 1000 values");

	/* a value too large is refused */
	{
		struct tg_seq *s = tg_seq_new();
		ok(s && tg_seq_append(s, TG_SEQ_MAXVAL + 1, 1) < 0,
		   "a value above TG_SEQ_MAXVAL is refused");
		tg_seq_free(s);
	}
	return tap_done();
}
