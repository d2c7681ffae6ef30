/*
 * cfgunify.c - processes that did the same thing with other integers.
 *
 * A rank at the edge of a stencil's grid sends to MPI_PROC_NULL where the
 * others send to a neighbour; the MPI library's start-up writes messages
 * whose lengths depend on the rank.  Such streams differ only in a few
 * integers, yet each class of processes gets signatures and rules of its
 * own, and a trace grows with the classes a bigger run has.  This pass
 * finds rules whose expansions are equal but for the words
 * tg_sig_chunks() names (integers and status sources in form ABS or REL,
 * offsets in form OFF, the pool keys of requests, the elements of short
 * arrays, sizes and return values: a rank's block of a shared file, its
 * lock's range, the displacement of its datatype, the bytes it writes),
 * generates their calls from one rule, and moves the integers that differ
 * into the local values of the streams: forms LVAL and LOFF,
 * TG_WORD_LOCAL, array mode TG_A_LOCAL and tagged signatures name them by
 * index (tangram-cfg(5)).
 *
 * Rules are grouped by the length of their expansion and a hash of it
 * with those words left out (its skeleton): those more streams reach
 * first, then the longer (buckets()).  A group is
 * unified only when no stream reaches two of its rules (a stream's value
 * then stands for its one rule's), when the expansions, walked side by
 * side, prove equal but for those words, and when the values that differ
 * are fewer than the signatures they save.  The hash of a rule's parents
 * stays right after a group is unified, since its new rule has the same
 * skeleton; so all groups come from one hashing pass.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cfg.h"

#include <stdlib.h>
#include <string.h>

#include "cfgint.h"
#include "sequitur.h"
#include "banned.h"

#define MAXCHUNKS 256			/* in one signature */
#define GROUP_SLOTS 64			/* values one group may move */
#define MAXMEMBERS 64			/* rules one group unifies */
#define ALL_SLOTS 4096			/* local values the pass may add */
#define STEP_BUDGET 50000000ull	/* symbols walked, over all groups, at most */
#define HBASE 0x9e3779b97f4a7c15ull	/* odd */

/* What the pass knows of the signatures and rules it started with. */
struct uni {
	struct tg_cfg *c;
	size_t nt, nr;		/* terminals and rules at the start */
	uint64_t *sh;		/* terminal: hash of its skeleton */
	int32_t *nch;		/* terminal: chunks, -1 when it has none */
	uint32_t *coff;		/* terminal: its first chunk in cpos/ctype */
	size_t nsk, capsk;	/* terminals with a skeleton, room */
	uint32_t *cpos;
	uint8_t *ctype;
	size_t ncpos, capcpos;
	uint64_t *len, *h, *pw;	/* rule: expansion length, hash, HBASE^len */
	uint8_t *hasch;		/* rule: expands to a terminal with chunks */
	uint32_t *rootof;	/* distinct roots: rule */
	uint64_t *rootw;	/* distinct roots: streams */
	size_t nroots;
	uint32_t *rsoff, *rs;	/* rule: the distinct roots that reach it */
	uint8_t *frozen;	/* rule: a stream with STIME reaches it */
	uint64_t *occ;		/* rule: how often the streams' expansions hold it */
	uint32_t *ren;		/* rule: the rule that replaced it, or UINT32_MAX */
	uint32_t *refs;		/* rule: the bodies and roots that name it, live */
	uint64_t steps, budget;	/* symbols walked; how many may be */
	uint32_t *rsoffs, *rstr;	/* distinct root: its streams */
	size_t base, slots;	/* local values: first added, added so far */
	struct tg_map lset;	/* stream << 32 | local index -> its value, once set */
	struct tg_map moved;	/* old terminal << 32 | new: occurrences */
};

/* ---- skeletons ---- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dull;
	return x ^ x >> 33;
}

/* Word @i of signature @w as the skeleton has it: a CALL's hasparent word
 * without TG_HP_TAGGED, which says only how the chunks are written. */
static int64_t skel_word(const int64_t *w, size_t i)
{
	return i == 5 && w[0] == TG_REC_CALL ? w[i] & ~(int64_t)TG_HP_TAGGED : w[i];
}

/* The skeleton of terminal u->nsk, the next: its hash and chunks. */
static int skel_next(struct uni *u)
{
	const struct tg_cfg *c = u->c;
	size_t t = u->nsk, n = c->cst[t].n, i, j = 0, at = u->ncpos;
	const int64_t *w = c->words + c->cst[t].off;
	uint32_t pos[MAXCHUNKS];
	uint8_t type[MAXCHUNKS];
	uint64_t x = mix(n + 1);
	int k;

	if (t == u->capsk) {
		size_t nc = u->capsk ? u->capsk * 2 : 256;
		uint64_t *sh = realloc(u->sh, nc * sizeof(*sh));
		int32_t *nch;
		uint32_t *coff;
		if (!sh)
			return -1;
		u->sh = sh;
		if (!(nch = realloc(u->nch, nc * sizeof(*nch))))
			return -1;
		u->nch = nch;
		if (!(coff = realloc(u->coff, nc * sizeof(*coff))))
			return -1;
		u->coff = coff;
		u->capsk = nc;
	}
	k = tg_sig_chunks(w, n, pos, type, MAXCHUNKS);
	u->nch[t] = k > 0 && k <= MAXCHUNKS ? k : -1;
	u->coff[t] = (uint32_t)at;
	if (u->nch[t] > 0) {
		if (at + (size_t)k > u->capcpos) {
			size_t nc = u->capcpos ? u->capcpos : 1024;
			uint32_t *np;
			uint8_t *nt;
			while (nc < at + (size_t)k)
				nc *= 2;
			if (!(np = realloc(u->cpos, nc * sizeof(*np))))
				return -1;
			u->cpos = np;
			if (!(nt = realloc(u->ctype, nc)))
				return -1;
			u->ctype = nt;
			u->capcpos = nc;
		}
		memcpy(u->cpos + at, pos, (size_t)k * sizeof(*pos));
		memcpy(u->ctype + at, type, (size_t)k);
		u->ncpos += (size_t)k;
	}
	for (i = 0; i < n; i++) {
		if (u->nch[t] > 0 && j < (size_t)k && pos[j] == i) {
			/* the chunk's words left out, its place kept */
			x = mix(x ^ (0x5bd1e995ull + type[j]));
			i += type[j] == TG_CH_INT || type[j] == TG_CH_OFF || type[j] == TG_CH_STR;
			j++;
			continue;
		}
		x = mix(x ^ (uint64_t)skel_word(w, i));
	}
	u->sh[t] = x;
	u->nsk++;
	return 0;
}

/* Skeletons for every terminal, those the pass made too. */
static int skeletons(struct uni *u)
{
	while (u->nsk < u->c->ncst)
		if (skel_next(u) < 0)
			return -1;
	return 0;
}

/* Are terminals @a and @b equal but for their chunks' values? */
static int skel_eq(const struct uni *u, uint32_t a, uint32_t b)
{
	const struct tg_cfg *c = u->c;
	const int64_t *wa = c->words + c->cst[a].off, *wb = c->words + c->cst[b].off;
	size_t n = c->cst[a].n, i, j = 0;
	int k = u->nch[a];

	if (a == b)
		return 1;
	if (u->sh[a] != u->sh[b] || n != c->cst[b].n || k != u->nch[b] || k <= 0)
		return 0;
	if (memcmp(u->cpos + u->coff[a], u->cpos + u->coff[b], (size_t)k * sizeof(uint32_t)) ||
	    memcmp(u->ctype + u->coff[a], u->ctype + u->coff[b], (size_t)k))
		return 0;
	for (i = 0; i < n; i++) {
		if (j < (size_t)k && u->cpos[u->coff[a] + j] == i) {
			i += u->ctype[u->coff[a] + j] == TG_CH_INT ||
			     u->ctype[u->coff[a] + j] == TG_CH_OFF ||
			     u->ctype[u->coff[a] + j] == TG_CH_STR;
			j++;
			continue;
		}
		if (skel_word(wa, i) != skel_word(wb, i))
			return 0;
	}
	return 1;
}

/* ---- rule hashes: a polynomial in HBASE over the skeletons ---- */

/* p^e and 1 + p + ... + p^(e-1), modulo 2^64. */
static void geo(uint64_t p, uint64_t e, uint64_t *pe, uint64_t *sum)
{
	uint64_t rp = 1, rs = 0, bp = p, bs = 1;

	for (; e; e >>= 1) {
		if (e & 1) {
			rs += rp * bs;
			rp *= bp;
		}
		bs += bp * bs;
		bp *= bp;
	}
	*pe = rp;
	*sum = rs;
}

static int rule_hashes(struct uni *u)
{
	const struct tg_cfg *c = u->c;
	size_t r, nr = u->nr ? u->nr : 1;

	u->len = malloc(nr * sizeof(*u->len));
	u->h = malloc(nr * sizeof(*u->h));
	u->pw = malloc(nr * sizeof(*u->pw));
	u->hasch = calloc(nr, 1);
	if (!u->len || !u->h || !u->pw || !u->hasch)
		return -1;
	for (r = 0; r < u->nr; r++) {
		uint64_t h = 0, l = 0, pw = 1;
		uint32_t k;
		for (k = c->roff[r]; k < c->roff[r + 1]; k++) {
			uint32_t s = c->syms[k].sym >> 1, e = c->syms[k].exp;
			uint64_t xh, xl, xp, pe, sum;
			if (c->syms[k].sym & 1) {
				if (s >= r)	/* rules name earlier ones only */
					return -2;
				xh = u->h[s], xl = u->len[s], xp = u->pw[s];
				u->hasch[r] |= u->hasch[s];
			} else {
				if (s >= u->nt)
					return -1;
				xh = u->sh[s], xl = 1, xp = HBASE;
				u->hasch[r] |= u->nch[s] > 0;
			}
			geo(xp, e, &pe, &sum);
			h = h * pe + xh * sum;
			pw *= pe;
			l = xl && e > (UINT64_MAX - l) / xl ? UINT64_MAX : l + xl * e;
		}
		u->h[r] = h, u->len[r] = l, u->pw[r] = pw;
	}
	return 0;
}

/* ---- which streams reach which rules ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* For every distinct root, each rule it reaches: twice, counting then
 * filling (@fill).  Returns -1 when out of memory or over budget. */
static int reach_pass(struct uni *u, uint32_t *stamp, uint32_t *stack, int fill, uint32_t *at)
{
	const struct tg_cfg *c = u->c;
	size_t ri;

	for (ri = 0; ri < u->nroots; ri++) {
		size_t ns = 0;
		stack[ns++] = u->rootof[ri];
		stamp[u->rootof[ri]] = (uint32_t)ri + 1;
		while (ns) {
			uint32_t r = stack[--ns], k;
			if (fill)
				u->rs[at[r]++] = (uint32_t)ri;
			else
				u->rsoff[r + 1]++;
			if (++u->steps > u->budget)
				return -1;
			for (k = c->roff[r]; k < c->roff[r + 1]; k++) {
				uint32_t q = c->syms[k].sym >> 1;
				if ((c->syms[k].sym & 1) && stamp[q] != ri + 1) {
					stamp[q] = (uint32_t)ri + 1;
					stack[ns++] = q;
				}
			}
		}
	}
	return 0;
}

static int reach(struct uni *u)
{
	const struct tg_cfg *c = u->c;
	size_t nr = u->nr ? u->nr : 1, i, j;
	uint32_t *stamp = NULL, *stack = NULL, *at = NULL, *roots = NULL;
	int rc = -1;

	roots = malloc(c->nst * sizeof(*roots));
	u->rootof = malloc(c->nst * sizeof(*u->rootof));
	u->rootw = calloc(c->nst, sizeof(*u->rootw));
	u->rsoff = calloc(nr + 1, sizeof(*u->rsoff));
	stamp = calloc(nr, sizeof(*stamp));
	stack = malloc(nr * sizeof(*stack));
	at = malloc(nr * sizeof(*at));
	if (!roots || !u->rootof || !u->rootw || !u->rsoff || !stamp || !stack || !at)
		goto out;
	/* times other than means are kept per signature of a stream
	 * (STIME's clusters): the rules of such streams stay as they are */
	for (i = 0; i < c->nst; i++)
		roots[i] = c->st[i].v.timing == TG_T_AGG ? c->st[i].rule : UINT32_MAX;
	for (i = 0; i < c->nst; i++)
		if (c->st[i].v.timing != TG_T_AGG)
			stamp[c->st[i].rule] = 1;
	for (i = 0; i < c->nst; i++)
		if (roots[i] == UINT32_MAX || stamp[roots[i]])
			roots[i] = UINT32_MAX;
	qsort(roots, c->nst, sizeof(*roots), cmp_u32);
	for (i = 0; i < c->nst && roots[i] != UINT32_MAX; i = j) {
		for (j = i; j < c->nst && roots[j] == roots[i]; j++)
			;
		u->rootof[u->nroots] = roots[i];
		u->rootw[u->nroots++] = j - i;
	}
	memset(stamp, 0, nr * sizeof(*stamp));
	if (reach_pass(u, stamp, stack, 0, NULL) < 0)
		goto out;
	for (i = 0; i < u->nr; i++)
		u->rsoff[i + 1] += u->rsoff[i];
	if (!(u->rs = malloc((u->rsoff[u->nr] ? u->rsoff[u->nr] : 1) * sizeof(*u->rs))))
		goto out;
	memcpy(at, u->rsoff, u->nr * sizeof(*at));
	memset(stamp, 0, nr * sizeof(*stamp));
	if (reach_pass(u, stamp, stack, 1, at) < 0 || !(u->frozen = calloc(nr, 1)))
		goto out;
	for (i = 0; i < c->nst; i++) {	/* what streams with STIME reach */
		size_t ns = 0;
		if (c->st[i].v.timing == TG_T_AGG || u->frozen[c->st[i].rule])
			continue;
		u->frozen[c->st[i].rule] = 1;
		stack[ns++] = c->st[i].rule;
		while (ns) {
			uint32_t r = stack[--ns], k;
			for (k = c->roff[r]; k < c->roff[r + 1]; k++) {
				uint32_t q = c->syms[k].sym >> 1;
				if ((c->syms[k].sym & 1) && !u->frozen[q]) {
					u->frozen[q] = 1;
					stack[ns++] = q;
				}
			}
		}
	}
	u->ren = malloc(nr * sizeof(*u->ren));
	u->refs = calloc(nr, sizeof(*u->refs));
	if (!u->ren || !u->refs)
		goto out;
	memset(u->ren, 0xff, nr * sizeof(*u->ren));
	for (i = 0; i < c->nst; i++)
		u->refs[c->st[i].rule]++;
	for (i = 0; i < u->nr; i++) {
		uint32_t k;
		for (k = c->roff[i]; k < c->roff[i + 1]; k++)
			if (c->syms[k].sym & 1)
				u->refs[c->syms[k].sym >> 1]++;
	}
	/* rules before the ones that name them: the counts flow down */
	if (!(u->occ = calloc(nr, sizeof(*u->occ))))
		goto out;
	for (i = 0; i < c->nst; i++)
		u->occ[c->st[i].rule]++;
	for (i = u->nr; i-- > 0;) {
		uint32_t k;
		for (k = c->roff[i]; k < c->roff[i + 1]; k++)
			if (c->syms[k].sym & 1) {
				unsigned __int128 x = (unsigned __int128)u->occ[i] * c->syms[k].exp +
						      u->occ[c->syms[k].sym >> 1];
				u->occ[c->syms[k].sym >> 1] = x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
			}
	}
	rc = 0;
out:
	free(roots);
	free(stamp);
	free(stack);
	free(at);
	return rc;
}

/* The distinct root (index) that is rule @rule, UINT32_MAX if none. */
static size_t root_index(const struct uni *u, uint32_t rule)
{
	size_t lo = 0, hi = u->nroots;

	while (lo + 1 < hi) {
		size_t mid = (lo + hi) / 2;
		if (u->rootof[mid] <= rule)
			lo = mid;
		else
			hi = mid;
	}
	return lo < u->nroots && u->rootof[lo] == rule ? lo : UINT32_MAX;
}

/* The streams of each distinct root (rsoffs, rstr). */
static int streams_of_roots(struct uni *u)
{
	const struct tg_cfg *c = u->c;
	size_t i;
	uint32_t *at;

	u->rsoffs = calloc(u->nroots + 1, sizeof(*u->rsoffs));
	u->rstr = malloc((c->nst ? c->nst : 1) * sizeof(*u->rstr));
	at = malloc((u->nroots ? u->nroots : 1) * sizeof(*at));
	if (!u->rsoffs || !u->rstr || !at) {
		free(at);
		return -1;
	}
	for (i = 0; i < c->nst; i++) {
		size_t ri = root_index(u, c->st[i].rule);
		if (ri != UINT32_MAX)
			u->rsoffs[ri + 1]++;
	}
	for (i = 0; i < u->nroots; i++)
		u->rsoffs[i + 1] += u->rsoffs[i];
	memcpy(at, u->rsoffs, u->nroots * sizeof(*at));
	for (i = 0; i < c->nst; i++) {
		size_t ri = root_index(u, c->st[i].rule);
		if (ri != UINT32_MAX)
			u->rstr[at[ri]++] = (uint32_t)i;
	}
	free(at);
	return 0;
}

/* ---- walking expansions side by side ---- */

struct frame {
	uint32_t rule, pos, rep;
};

struct walk {
	struct frame *f;
	size_t n, cap;
};

static int walk_push(struct walk *w, uint32_t rule)
{
	if (w->n == w->cap) {
		size_t nc = w->cap ? w->cap * 2 : 16;
		struct frame *nf = realloc(w->f, nc * sizeof(*nf));
		if (!nf)
			return -1;
		w->f = nf;
		w->cap = nc;
	}
	w->f[w->n++] = (struct frame){ rule, 0, 0 };
	return 0;
}

/* Rule @r, or the one that replaced it. */
static uint32_t now(const struct uni *u, uint32_t r)
{
	return r < u->nr && u->ren[r] != UINT32_MAX ? u->ren[r] : r;
}

/* The next terminal of the expansion, -1 at its end, -2 out of memory:
 * as the rules are now, some replaced by the rules of unified groups. */
static int64_t walk_next(const struct uni *u, struct walk *w)
{
	const struct tg_cfg *c = u->c;

	while (w->n) {
		struct frame *f = &w->f[w->n - 1];
		const struct tg_sym *s;
		if (c->roff[f->rule] + f->pos == c->roff[f->rule + 1]) {
			w->n--;
			continue;
		}
		s = &c->syms[c->roff[f->rule] + f->pos];
		if (f->rep == s->exp) {
			f->pos++;
			f->rep = 0;
			continue;
		}
		f->rep++;
		if (!(s->sym & 1))
			return s->sym >> 1;
		if (walk_push(w, now(u, s->sym >> 1)) < 0)
			return -2;
	}
	return -1;
}

/* One group being unified: its rules, the values that differ (slot j's
 * value for member m is val[j * k + m]), the calls so far. */
struct group {
	const uint32_t *mem;
	size_t k;
	struct cval *val;
	uint8_t *vstr;		/* slot j: 1 when its values are strings */
	size_t nslots;
	struct tg_map slotidx;	/* hash of a slot's values -> slot + 1 */
	struct cval *ext;	/* earlier slots this group gives more values, */
	uint64_t *extslot;	/* k values each, and which slot */
	uint8_t *extstr;	/* and whether they are strings */
	size_t next;
	uint32_t *tup;		/* tuple i: the members' terminals, k of them, */
	uint32_t *tupnew;	/* and the terminal that stands for them */
	size_t ntup;
	struct tg_map tupidx;	/* hash of a tuple -> i + 1 */
	struct tg_map moved;	/* old << 32 | new -> occurrences */
	struct tg_map inside;	/* old terminal -> its calls the group replaces */
	size_t ncst0;		/* terminals before the group */
	struct tg_seq *seq;
	struct tg_words w;
};

static void group_release(struct group *g)
{
	free(g->val);
	free(g->vstr);
	free(g->ext);
	free(g->extslot);
	free(g->extstr);
	tg_map_release(&g->slotidx);
	free(g->tup);
	free(g->tupnew);
	tg_map_release(&g->tupidx);
	tg_map_release(&g->moved);
	tg_map_release(&g->inside);
	tg_seq_free(g->seq);
	tg_words_release(&g->w);
}

/* What a member holds in a chunk: a value as a local value holds it (INT
 * as its zig-zag operand << 1 | REL, a word as it is), or, where an
 * earlier group unified it, the index of the stream's local value. */
struct cval {
	uint64_t v;
	uint64_t ref;		/* 0: v is the value; 1: v is a local's index */
};

/* An integer @x as a local value holds it in form ABS. */
static uint64_t abs_value(int64_t x)
{
	return ((uint64_t)x << 1 ^ (uint64_t)(x >> 63)) << 1;
}

/* The integer a local value @l in form ABS holds. */
static int64_t abs_int(uint64_t l)
{
	return (int64_t)(l >> 2) ^ -(int64_t)(l >> 1 & 1);
}

/* (An array's element in mode TG_A_PLAIN, @mode, or TG_A_LOCAL, and a
 * UINT or return value, tagged or not, as the integers of INT; an offset
 * as one in form ABS.) */
static struct cval chunk_value(const int64_t *w, uint32_t pos, int type, int64_t mode)
{
	switch (type) {
	case TG_CH_WORD:
		return w[pos] >= 0 && (uint64_t)w[pos] >= TG_WORD_LOCAL ?
		       (struct cval){ (uint64_t)w[pos] - TG_WORD_LOCAL, 1 } :
		       (struct cval){ (uint64_t)w[pos], 0 };
	case TG_CH_AMODE:
		return (struct cval){ 0, 0 };
	case TG_CH_STR:	/* a string reference, or a local value's index */
		return (struct cval){ (uint64_t)w[pos + 1], w[pos] == TG_STR_LOCAL };
	case TG_CH_TAG:
		mode = w[5] & TG_HP_TAGGED ? TG_A_LOCAL : TG_A_PLAIN;
		/* fall through */
	case TG_CH_AEL:
		if (mode == TG_A_PLAIN)
			return (struct cval){ abs_value(w[pos]), 0 };
		return w[pos] & 1 ? (struct cval){ (uint64_t)(w[pos] >> 1), 1 } :
				    (struct cval){ abs_value(w[pos] / 2), 0 };
	}
	if (w[pos] == TG_F_LVAL || w[pos] == TG_F_LOFF)
		return (struct cval){ (uint64_t)w[pos + 1], 1 };
	return (struct cval){ abs_value(w[pos + 1]) | (w[pos] == TG_F_REL), 0 };
}

/* The slot that holds @v (one per member), added if new; -1 when there
 * would be too many, -2 when out of memory. */
static int64_t slot_of(struct group *g, int type, const struct cval *v)
{
	uint64_t h = tg_hash_bytes(v, g->k * sizeof(*v), 3 + (uint64_t)type), x;
	struct cval *nv;
	uint8_t *ns;

	for (;; h++) {
		if (!tg_map_get(&g->slotidx, h, &x))
			break;
		if (!memcmp(g->val + (x - 1) * g->k, v, g->k * sizeof(*v)) &&
		    g->vstr[x - 1] == (type == TG_CH_STR))
			return (int64_t)x - 1;
	}
	if (g->nslots == GROUP_SLOTS)
		return -1;
	if (!(nv = realloc(g->val, (g->nslots + 1) * g->k * sizeof(*nv))))
		return -2;
	g->val = nv;
	if (!(ns = realloc(g->vstr, g->nslots + 1)))
		return -2;
	g->vstr = ns;
	g->vstr[g->nslots] = type == TG_CH_STR;
	memcpy(g->val + g->nslots * g->k, v, g->k * sizeof(*v));
	if (tg_map_put(&g->slotidx, h, ++g->nslots) < 0)
		return -2;
	return (int64_t)g->nslots - 1;
}

/* Tuple @t of the members' terminals: the index it was given, or -1. */
static int64_t tuple_find(const struct group *g, const uint32_t *t, uint64_t *hp)
{
	uint64_t h = tg_hash_bytes(t, g->k * sizeof(*t), 4), x;

	for (;; h++) {
		if (!tg_map_get(&g->tupidx, h, &x)) {
			*hp = h;	/* the free place */
			return -1;
		}
		if (!memcmp(g->tup + (x - 1) * g->k, t, g->k * sizeof(*t)))
			return (int64_t)x - 1;
	}
}

static int tuple_add(struct group *g, const uint32_t *t, uint64_t h, uint32_t nt)
{
	uint32_t *a = realloc(g->tup, (g->ntup + 1) * g->k * sizeof(*a));
	uint32_t *b;

	if (!a)
		return -1;
	g->tup = a;
	if (!(b = realloc(g->tupnew, (g->ntup + 1) * sizeof(*b))))
		return -1;
	g->tupnew = b;
	memcpy(g->tup + g->ntup * g->k, t, g->k * sizeof(*t));
	g->tupnew[g->ntup++] = nt;
	return tg_map_put(&g->tupidx, h, g->ntup);
}

/* Local value @s of stream @i: one the stream came with (an inherited
 * descriptor, or given by the pass that wrote its input), or one this
 * pass gave it.  -1 when it has none. */
static int local_get(const struct uni *u, uint32_t i, uint64_t s, uint64_t *out)
{
	const struct tg_cstream *st = &u->c->st[i];

	if (s < u->base) {
		if (s >= st->nlocal)
			return -1;
		*out = st->local[s];
		return 0;
	}
	return tg_map_get(&u->lset, (uint64_t)i << 32 | s, out) ? 0 : -1;
}

/* The value @d stands for in stream @i; -1 when it names a local value
 * the stream has not been given. */
static int resolve(const struct uni *u, uint32_t i, const struct cval *d, uint64_t *out)
{
	if (!d->ref) {
		*out = d->v;
		return 0;
	}
	return local_get(u, i, d->v, out);
}

/* Can slot @s (given by an earlier group) hold @v, one per member, in
 * every stream of the group, with what it holds and what the group
 * gives it already? */
static int compatible(const struct uni *u, const struct group *g, uint64_t s,
		      const struct cval *v)
{
	size_t m, e;
	uint32_t j, q;

	for (m = 0; m < g->k; m++)
		for (j = u->rsoff[g->mem[m]]; j < u->rsoff[g->mem[m] + 1]; j++)
			for (q = u->rsoffs[u->rs[j]]; q < u->rsoffs[u->rs[j] + 1]; q++) {
				uint32_t i = u->rstr[q];
				uint64_t want, x;
				if (resolve(u, i, &v[m], &want) < 0)
					return 0;
				if (local_get(u, i, s, &x) == 0 && x != want)
					return 0;
				for (e = 0; e < g->next; e++)
					if (g->extslot[e] == s &&
					    (resolve(u, i, &g->ext[e * g->k + m], &x) < 0 || x != want))
						return 0;
			}
	return 1;
}

/* Does every stream of member @m of @g have the local value @d names? */
static int resolvable(const struct uni *u, const struct group *g, size_t m,
		      const struct cval *d)
{
	uint64_t x;
	uint32_t j, q;

	for (j = u->rsoff[g->mem[m]]; j < u->rsoff[g->mem[m] + 1]; j++)
		for (q = u->rsoffs[u->rs[j]]; q < u->rsoffs[u->rs[j] + 1]; q++)
			if (resolve(u, u->rstr[q], d, &x) < 0)
				return 0;
	return 1;
}

/* Slot @s, of an earlier group, takes @v too (strings if @str): -1 when
 * out of memory. */
static int ext_add(struct group *g, uint64_t s, const struct cval *v, int str)
{
	struct cval *ne;
	uint64_t *ns;
	uint8_t *nstr;
	size_t e;

	for (e = 0; e < g->next; e++)
		if (g->extslot[e] == s && !memcmp(g->ext + e * g->k, v, g->k * sizeof(*v)))
			return 0;
	if (!(ne = realloc(g->ext, (g->next + 1) * g->k * sizeof(*ne))))
		return -1;
	g->ext = ne;
	if (!(ns = realloc(g->extslot, (g->next + 1) * sizeof(*ns))))
		return -1;
	g->extslot = ns;
	if (!(nstr = realloc(g->extstr, g->next + 1)))
		return -1;
	g->extstr = nstr;
	g->extstr[g->next] = (uint8_t)str;
	memcpy(g->ext + g->next * g->k, v, g->k * sizeof(*v));
	g->extslot[g->next++] = s;
	return 0;
}

/* The slot for a chunk whose values @v differ: one an earlier group made
 * that some members name already, if it can hold the others' values
 * (then the new terminal is the one that group made), else a new one.
 * -1 when there would be too many, -2 when out of memory. */
static int64_t chunk_slot(struct uni *u, struct group *g, int type, const struct cval *v)
{
	size_t m, q;
	int64_t s;

	for (m = 0; m < g->k; m++) {
		if (!v[m].ref)
			continue;
		for (q = 0; q < m && !(v[q].ref && v[q].v == v[m].v); q++)
			;
		if (q < m || !compatible(u, g, v[m].v, v))
			continue;
		return ext_add(g, v[m].v, v, type == TG_CH_STR) < 0 ? -2 : (int64_t)v[m].v;
	}
	/* a value the pass would have to make up: not this group */
	for (m = 0; m < g->k; m++)
		if (v[m].ref && !resolvable(u, g, m, &v[m]))
			return -1;
	if ((s = slot_of(g, type, v)) < 0)
		return s;
	return s + (int64_t)(u->base + u->slots);
}

/*
 * The UINT or return value at word @pos of the members' terminals @t:
 * into *@tw its value as a local value holds it (<< 1, as ABS) when the
 * members agree on it, else 2s + 1 for the slot s it names.  Returns 1
 * when it names a slot, 0 when not, -1 when the group cannot be unified,
 * -2 when out of memory.
 */
static int64_t unified_tag(struct uni *u, struct group *g, const uint32_t *t, uint32_t pos,
			   int64_t *tw)
{
	struct cval v[MAXMEMBERS];
	int same = 1;
	int64_t s;
	size_t m;

	for (m = 0; m < g->k; m++) {
		v[m] = chunk_value(u->c->words + u->c->cst[t[m]].off, pos, TG_CH_TAG, 0);
		same &= v[m].v == v[0].v && v[m].ref == v[0].ref;
	}
	if (same && !v[0].ref) {
		*tw = (int64_t)v[0].v;	/* even: ABS, << 1 */
		return 0;
	}
	if (same)
		s = (int64_t)v[0].v;
	else if ((s = chunk_slot(u, g, TG_CH_TAG, v)) < 0)
		return s;
	*tw = 2 * s + 1;
	return 1;
}

/*
 * The array whose mode word is chunk @j (at word @pos) of the members'
 * terminals @t, into g->w: its elements that differ name slots, and then
 * it is written in mode TG_A_LOCAL, as it is when an element names a
 * local value already; else as @t[0] has it.  Returns the number of its
 * elements, -1 when the group cannot be unified, -2 when out of memory.
 */
static int64_t unified_array(struct uni *u, struct group *g, const uint32_t *t, size_t j,
			     uint32_t pos)
{
	struct tg_cfg *c = u->c;
	struct cval v[MAXMEMBERS];
	int64_t n = c->words[c->cst[t[0]].off + pos - 1], e, s, el[16];
	int local = 0;
	size_t m;

	if (n < 1 || n > 16 || j + (size_t)n >= (size_t)u->nch[t[0]])
		return -1;
	for (e = 0; e < n; e++) {
		int same = 1;
		for (m = 0; m < g->k; m++) {
			const int64_t *w = c->words + c->cst[t[m]].off;
			v[m] = chunk_value(w, pos + 1 + (uint32_t)e, TG_CH_AEL, w[pos]);
			same &= v[m].v == v[0].v && v[m].ref == v[0].ref;
		}
		if (same && !v[0].ref) {
			el[e] = abs_int(v[0].v);
			if (el[e] < -(INT64_C(1) << 61) || el[e] >= INT64_C(1) << 61)
				el[e] = INT64_MAX;	/* too big for mode TG_A_LOCAL */
			else
				el[e] *= 2;
			continue;
		}
		if (same)
			s = (int64_t)v[0].v;
		else if ((s = chunk_slot(u, g, TG_CH_AEL, v)) < 0)
			return s;
		el[e] = 2 * s + 1;
		local = 1;
	}
	if (!local) {
		const int64_t *w0 = c->words + c->cst[t[0]].off;
		if (w0[pos] == TG_A_LOCAL)	/* values, halved */
			for (e = 0; e < n; e++)
				g->w.w[pos + 1 + e] = w0[pos + 1 + e] / 2;
		g->w.w[pos] = TG_A_PLAIN;
		return n;
	}
	for (e = 0; e < n; e++)
		if (el[e] == INT64_MAX)
			return -1;
	g->w.w[pos] = TG_A_LOCAL;
	for (e = 0; e < n; e++)
		g->w.w[pos + 1 + e] = el[e];
	return n;
}

/* The terminal that stands for the members' terminals @t at one place
 * (not all equal): @t[0]'s words, each chunk whose values differ naming a
 * slot.  -1 when the group cannot be unified, -2 when out of memory. */
static int64_t unified(struct uni *u, struct group *g, const uint32_t *t)
{
	struct tg_cfg *c = u->c;
	struct cval v[MAXMEMBERS];
	uint64_t h = 0;
	size_t m, j, ntag;
	int64_t nt, i, tw[MAXCHUNKS];
	uint32_t tpos[MAXCHUNKS];
	int tagged = 0;

	if ((i = tuple_find(g, t, &h)) >= 0)
		return g->tupnew[i];
	if (skeletons(u) < 0)	/* for terminals made since */
		return -2;
	for (m = 1; m < g->k; m++)
		if (!skel_eq(u, t[0], t[m]))
			return -1;
	g->w.n = 0;
	for (j = 0; j < c->cst[t[0]].n; j++)
		if (tg_words_push(&g->w, c->words[c->cst[t[0]].off + j]) < 0)
			return -2;
	ntag = 0;
	for (j = 0; j < (size_t)u->nch[t[0]]; j++) {
		uint32_t pos = u->cpos[u->coff[t[0]] + j];
		int type = u->ctype[u->coff[t[0]] + j], same = 1;
		int64_t s;
		if (type == TG_CH_TAG) {
			if ((s = unified_tag(u, g, t, pos, &tw[ntag])) < 0)
				return s;
			tpos[ntag] = pos;
			tagged |= s;
			ntag++;
			continue;
		}
		if (type == TG_CH_AMODE) {
			if ((s = unified_array(u, g, t, j, pos)) < 0)
				return s;
			j += (size_t)s;	/* past its elements */
			continue;
		}
		for (m = 0; m < g->k; m++) {
			v[m] = chunk_value(c->words + c->cst[t[m]].off, pos, type, 0);
			same &= v[m].v == v[0].v && v[m].ref == v[0].ref;
		}
		if (same)
			continue;
		if ((s = chunk_slot(u, g, type, v)) < 0)
			return s;
		if (type == TG_CH_WORD) {
			g->w.w[pos] = (int64_t)(TG_WORD_LOCAL + (uint64_t)s);
		} else if (type == TG_CH_STR) {
			g->w.w[pos] = TG_STR_LOCAL;
			g->w.w[pos + 1] = s;
		} else {
			g->w.w[pos] = type == TG_CH_OFF ? TG_F_LOFF : TG_F_LVAL;
			g->w.w[pos + 1] = s;
		}
	}
	/* UINT and return values: tagged when one names a local value */
	for (j = 0; j < ntag; j++) {
		if (!tagged) {
			g->w.w[tpos[j]] = abs_int((uint64_t)tw[j]);
			continue;
		}
		if (!(tw[j] & 1)) {	/* a value: 2v, if it fits */
			int64_t x = abs_int((uint64_t)tw[j]);
			if (x < -(INT64_C(1) << 61) || x >= INT64_C(1) << 61)
				return -1;
			g->w.w[tpos[j]] = 2 * x;
		} else {
			g->w.w[tpos[j]] = 2 * (tw[j] >> 1) + 1;
		}
	}
	if (ntag && g->w.n > 5)
		g->w.w[5] = (g->w.w[5] & ~(int64_t)TG_HP_TAGGED) | (tagged ? TG_HP_TAGGED : 0);
	if ((nt = tg_cfg_cst_intern(c, g->w.w, g->w.n, 1)) < 0)
		return -2;
	if (tuple_add(g, t, h, (uint32_t)nt) < 0)
		return -2;
	return nt;
}

/* Add @n occurrences to @m[@k]. */
static int map_add(struct tg_map *m, uint64_t k, uint64_t n)
{
	uint64_t x = 0;

	tg_map_get(m, k, &x);
	return tg_map_put(m, k, x + n);
}

/*
 * Walk the members of @g side by side, the terminal that stands for each
 * place into g->seq.  Returns 1 when they unify, 0 when not (or over the
 * budget), -1 when out of memory.
 */
static int group_walk(struct uni *u, struct group *g)
{
	struct walk w[MAXMEMBERS];
	uint32_t t[MAXMEMBERS];
	size_t m;
	int rc = -1;

	memset(w, 0, sizeof(w));
	for (m = 0; m < g->k; m++)
		if (walk_push(&w[m], g->mem[m]) < 0)
			goto out;
	if (!(g->seq = tg_seq_new()))
		goto out;
	for (;;) {
		size_t ended = 0;
		int same = 1;
		int64_t x;
		for (m = 0; m < g->k; m++) {
			if ((x = walk_next(u, &w[m])) == -2)
				goto out;
			if (x == -1)
				ended++;
			else
				t[m] = (uint32_t)x;
		}
		if (ended) {
			rc = ended == g->k;
			break;
		}
		if ((u->steps += g->k) > u->budget) {
			rc = 0;
			break;
		}
		for (m = 1; m < g->k; m++)
			same &= t[m] == t[0];
		if (!same) {
			if ((x = unified(u, g, t)) == -2)
				goto out;
			if (x == -1) {
				rc = 0;
				break;
			}
			for (m = 0; m < g->k; m++)
				if (map_add(&g->moved, (uint64_t)t[m] << 32 | (uint64_t)x, 1) < 0 ||
				    map_add(&g->inside, t[m], u->occ[g->mem[m]]) < 0)
					goto out;
			t[0] = (uint32_t)x;
		}
		if (tg_seq_append(g->seq, t[0], 1) < 0)
			goto out;
	}
out:
	for (m = 0; m < g->k; m++)
		free(w[m].f);
	return rc;
}

/* Room for local value @i in stream @s, the new ones 0. */
static int local_room(struct tg_cstream *s, size_t i)
{
	uint64_t *n;
	uint8_t *k;

	if (i < s->nlocal)
		return 0;
	if (!(n = realloc(s->local, (i + 1) * sizeof(*n))))
		return -1;
	memset(n + s->nlocal, 0, (i + 1 - s->nlocal) * sizeof(*n));
	s->local = n;
	if (s->lstr) {
		if (!(k = realloc(s->lstr, i + 1)))
			return -1;
		memset(k + s->nlocal, 0, i + 1 - s->nlocal);
		s->lstr = k;
	}
	s->nlocal = i + 1;
	return 0;
}

/* Stream @i, which reaches member @m of @g: local value @s is @d's, a
 * string reference if @str. */
static int give_one(struct uni *u, uint32_t i, uint64_t s, const struct cval *d, int str)
{
	struct tg_cstream *st = &u->c->st[i];
	uint64_t x;

	if (resolve(u, i, d, &x) < 0)	/* chunk_slot() made sure */
		return -1;
	if (local_room(st, s) < 0 || tg_map_put(&u->lset, (uint64_t)i << 32 | s, x) < 0)
		return -1;
	st->local[s] = x;
	if (str && !st->lstr && !(st->lstr = calloc(st->nlocal, 1)))
		return -1;
	if (str)
		st->lstr[s] = 1;
	return 0;
}

/* Stream @i, which reaches member @m of @g: the values of its slots. */
static int give(struct uni *u, const struct group *g, uint32_t i, size_t m)
{
	size_t j;

	for (j = 0; j < g->next; j++)
		if (give_one(u, i, g->extslot[j], &g->ext[j * g->k + m], g->extstr[j]) < 0)
			return -1;
	for (j = 0; j < g->nslots; j++)
		if (give_one(u, i, u->base + u->slots + j, &g->val[j * g->k + m], g->vstr[j]) < 0)
			return -1;
	return 0;
}

/* Rule @r is replaced by @by: no body names it any more, and a rule that
 * only dead rules named is dead too (refs).  -1 when out of memory. */
static int kill(struct uni *u, uint32_t r, uint32_t by)
{
	const struct tg_cfg *c = u->c;
	uint32_t *stack, ns = 0, k;

	u->ren[r] = by;
	if (!u->refs[r])
		return 0;
	if (!(stack = malloc(u->nr * sizeof(*stack))))
		return -1;
	u->refs[r] = 0;
	stack[ns++] = r;
	while (ns) {
		uint32_t q = stack[--ns];
		for (k = c->roff[q]; k < c->roff[q + 1]; k++) {
			uint32_t x = c->syms[k].sym >> 1;
			if ((c->syms[k].sym & 1) && x < u->nr && u->refs[x] && !--u->refs[x])
				stack[ns++] = x;
		}
	}
	free(stack);
	return 0;
}

/* At the end: every body and root names the rules as they are now. */
static void renamed(struct uni *u)
{
	struct tg_cfg *c = u->c;
	size_t i;

	for (i = 0; i < c->nsyms; i++)
		if (c->syms[i].sym & 1)
			c->syms[i].sym = now(u, c->syms[i].sym >> 1) << 1 | 1;
	for (i = 0; i < c->nst; i++)
		c->st[i].rule = now(u, c->st[i].rule);
}

/* The members of @g become the rule g->seq generates, in every body and
 * root; each stream that reaches member m gets its values. */
static int group_apply(struct uni *u, struct group *g)
{
	struct tg_cfg *c = u->c;
	struct tg_sym *syms = NULL;
	uint32_t *off = NULL, *map = NULL, nr = 0, k, nrule;
	size_t i, m, j;
	int rc = -1;

	if (tg_seq_export(g->seq, &syms, &off, &nr) < 0 || !nr ||
	    !(map = malloc(nr * sizeof(*map))))
		goto out;
	for (k = 0; k < nr; k++) {
		for (i = off[k]; i < off[k + 1]; i++)
			if (syms[i].sym & 1)
				syms[i].sym = map[syms[i].sym >> 1] << 1 | 1;
		/* never one of the rules the pass started with: the streams
		 * that reach those are known, and these reach others */
		if ((map[k] = tg_cfg_rule_add_from(c, syms + off[k], off[k + 1] - off[k],
						   (uint32_t)u->nr)) == UINT32_MAX)
			goto out;
	}
	nrule = map[nr - 1];
	/* the bodies that name a member name the new rule (now(), and
	 * renamed() at the end), and what only the members named is dead */
	for (m = 0; m < g->k; m++)
		if (kill(u, g->mem[m], nrule) < 0)
			goto out;
	for (m = 0; m < g->k; m++) {
		for (j = u->rsoff[g->mem[m]]; j < u->rsoff[g->mem[m] + 1]; j++)
			for (k = u->rsoffs[u->rs[j]]; k < u->rsoffs[u->rs[j] + 1]; k++)
				if (give(u, g, u->rstr[k], m) < 0)
					goto out;
	}
	u->slots += g->nslots;
	for (i = 0; i < g->moved.cap; i++)
		if (g->moved.used[i] && map_add(&u->moved, g->moved.k[i], g->moved.v[i]) < 0)
			goto out;
	rc = 0;
out:
	free(syms);
	free(off);
	free(map);
	return rc;
}

struct cand {
	uint64_t len, h;
	uint32_t r;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return x->r < y->r ? -1 : x->r > y->r;
}

/* A group: candidates [from, to) of equal length and hash, and how many
 * streams reach its rules. */
struct bucket {
	uint64_t cover, len;
	size_t from, to;
};

static int cmp_bucket(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;

	if (x->cover != y->cover)
		return x->cover > y->cover ? -1 : 1;
	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* Streams that reach member @m of @g. */
static uint64_t member_streams(const struct uni *u, const struct group *g, size_t m)
{
	uint64_t n = 0;
	uint32_t j;

	for (j = u->rsoff[g->mem[m]]; j < u->rsoff[g->mem[m] + 1]; j++)
		n += u->rootw[u->rs[j]];
	return n;
}

/*
 * Is the group worth unifying?  A signature costs about a dozen bytes (its
 * words, its means in AGG), a local value about one: the signatures all of
 * whose calls the group replaces, less those it makes, must outweigh the
 * values the streams are given.
 */
static int worth(const struct uni *u, const struct group *g)
{
	uint64_t values = 0, x, gone = 0;
	size_t m, i;

	for (m = 0; m < g->k; m++)
		values += member_streams(u, g, m) * (g->nslots + g->next);
	for (i = 0; i < g->inside.cap; i++)
		if (g->inside.used[i] && (x = u->c->agg[g->inside.k[i]].count) &&
		    g->inside.v[i] >= x)
			gone++;
	return 48 * (int64_t)(gone - (u->c->ncst - g->ncst0)) >= (int64_t)values;
}

/* Unify the group of rules @mem[0..n) (equal length and hash): those of
 * them that the streams still reach (@live) and no stream reaches with
 * another.  Returns 1 when it did, 0 when not, -1 when out of memory. */
static int try_group(struct uni *u, const uint32_t *mem, size_t n, uint32_t *stamp,
		     uint32_t gen)
{
	uint32_t keep[MAXMEMBERS];
	struct group g;
	size_t i, k = 0;
	uint32_t j;
	int rc;

	for (i = 0; i < n && k < MAXMEMBERS; i++) {
		int clash = !u->refs[mem[i]];	/* dead, or replaced */
		for (j = u->rsoff[mem[i]]; j < u->rsoff[mem[i] + 1] && !clash; j++)
			clash = stamp[u->rs[j]] == gen;
		if (clash)
			continue;
		for (j = u->rsoff[mem[i]]; j < u->rsoff[mem[i] + 1]; j++)
			stamp[u->rs[j]] = gen;
		keep[k++] = mem[i];
	}
	if (k < 2)
		return 0;
	memset(&g, 0, sizeof(g));
	g.mem = keep;
	g.k = k;
	g.ncst0 = u->c->ncst;
	rc = group_walk(u, &g);
	/* worth it when the values that move are fewer than the
	 * signatures that go */
	if (rc == 1 && (!worth(u, &g) || u->slots + g.nslots > ALL_SLOTS))
		rc = 0;
	if (rc == 1 && group_apply(u, &g) < 0)
		rc = -1;
	group_release(&g);
	return rc;
}

/* ---- after the groups: counts and means, unused signatures ---- */

/* The records of each terminal over all streams, from the rules (which
 * name earlier ones only, as renormalized). */
static uint64_t *term_counts(const struct tg_cfg *c)
{
	uint64_t *rc = calloc(c->nrules ? c->nrules : 1, sizeof(*rc));
	uint64_t *tc = calloc(c->ncst ? c->ncst : 1, sizeof(*tc));
	size_t i, r;

	if (!rc || !tc) {
		free(rc);
		free(tc);
		return NULL;
	}
	for (i = 0; i < c->nst; i++)
		rc[c->st[i].rule]++;
	for (r = c->nrules; r-- > 0;) {
		uint32_t k;
		for (k = c->roff[r]; k < c->roff[r + 1]; k++) {
			uint64_t *x = c->syms[k].sym & 1 ? &rc[c->syms[k].sym >> 1]
							 : &tc[c->syms[k].sym >> 1];
			unsigned __int128 n = (unsigned __int128)rc[r] * c->syms[k].exp + *x;
			*x = n > UINT64_MAX ? UINT64_MAX : (uint64_t)n;
		}
	}
	free(rc);
	return tc;
}

/*
 * The means of AGG: the calls of an old signature that now have a new
 * one take its mean duration and gap with them, shared among the new ones
 * as the walks found them; every signature involved then has the count
 * the rules give.
 */
static int fix_agg(struct uni *u)
{
	struct tg_cfg *c = u->c;
	struct tg_map tot = { 0 };
	uint64_t *tc = term_counts(c), x;
	size_t i;
	int rc = -1;

	if (!tc)
		return -1;
	for (i = 0; i < u->moved.cap; i++)
		if (u->moved.used[i] && map_add(&tot, u->moved.k[i] >> 32, u->moved.v[i]) < 0)
			goto out;
	for (i = 0; i < u->moved.cap; i++) {
		uint32_t o, n;
		struct tg_agg *a;
		uint64_t gone, share;
		if (!u->moved.used[i])
			continue;
		o = (uint32_t)(u->moved.k[i] >> 32), n = (uint32_t)u->moved.k[i];
		a = &c->agg[o];
		if (!a->count || !tg_map_get(&tot, o, &x) || !x)
			continue;
		gone = a->count > tc[o] ? a->count - tc[o] : 0;
		share = (uint64_t)((unsigned __int128)gone * u->moved.v[i] / x);
		c->agg[n].count += share;
		c->agg[n].dur += a->dur / a->count * share;
		c->agg[n].gap = (__int128)((unsigned __int128)c->agg[n].gap +
					   (unsigned __int128)(a->gap / (__int128)a->count) * share);
	}
	for (i = 0; i < tot.cap; i++) {
		struct tg_agg *a;
		uint64_t left;
		if (!tot.used[i])
			continue;
		a = &c->agg[tot.k[i]];
		if (!a->count)
			continue;
		left = tc[tot.k[i]] < a->count ? tc[tot.k[i]] : a->count;
		a->dur = a->dur / a->count * left;
		a->gap = a->gap / (__int128)a->count * (__int128)left;
		a->count = left;
	}
	for (i = 0; i < u->moved.cap; i++)
		if (u->moved.used[i])
			c->agg[(uint32_t)u->moved.k[i]].count = tc[(uint32_t)u->moved.k[i]];
	rc = 0;
out:
	tg_map_release(&tot);
	free(tc);
	return rc;
}

int tg_cfg_cst_compact(struct tg_cfg *c)
{
	uint32_t *map = malloc((c->ncst ? c->ncst : 1) * sizeof(*map));
	size_t i, n = 0, nw = 0;

	if (!map)
		return -1;
	for (i = 0; i < c->ncst; i++)
		map[i] = UINT32_MAX;
	for (i = 0; i < c->nsyms; i++)
		if (!(c->syms[i].sym & 1))
			map[c->syms[i].sym >> 1] = 0;
	for (i = 0; i < c->ncst; i++) {
		if (map[i])
			continue;
		memmove(c->words + nw, c->words + c->cst[i].off, c->cst[i].n * sizeof(int64_t));
		c->cst[n].off = nw;
		c->cst[n].n = c->cst[i].n;
		c->agg[n] = c->agg[i];
		nw += c->cst[i].n;
		map[i] = (uint32_t)n++;
	}
	for (i = 0; i < c->nsyms; i++)
		if (!(c->syms[i].sym & 1))
			c->syms[i].sym = map[c->syms[i].sym >> 1] << 1;
	c->ncst = n;
	c->nwords = nw;
	free(c->cstidx);	/* rebuilt by the next tg_cfg_cst_intern */
	c->cstidx = NULL;
	c->cstidxcap = 0;
	tg_cfg_caches_free(c);
	c->ready = 0;
	free(map);
	return 0;
}

static void uni_release(struct uni *u)
{
	free(u->sh);
	free(u->nch);
	free(u->coff);
	free(u->cpos);
	free(u->ctype);
	free(u->len);
	free(u->h);
	free(u->pw);
	free(u->hasch);
	free(u->rootof);
	free(u->rootw);
	free(u->rsoff);
	free(u->rs);
	free(u->frozen);
	free(u->occ);
	free(u->ren);
	free(u->refs);
	free(u->rsoffs);
	free(u->rstr);
	tg_map_release(&u->lset);
	tg_map_release(&u->moved);
}

int tg_cfg_shapes(struct tg_cfg *c, uint64_t **tsh, uint64_t **rlen, uint64_t **rh)
{
	struct uni u;
	int rc;

	memset(&u, 0, sizeof(u));
	u.c = c;
	u.nt = c->ncst;
	u.nr = c->nrules;
	rc = skeletons(&u) < 0 ? -1 : rule_hashes(&u);
	if (rc == 0) {
		*tsh = u.sh, *rlen = u.len, *rh = u.h;
		u.sh = NULL, u.len = NULL, u.h = NULL;
	}
	uni_release(&u);
	return rc;
}

/*
 * The groups of candidates of equal length and hash, those that more
 * streams reach first, then the longer: a loop all the processes run is
 * unified before the rules of a few processes that hold it, so that they
 * hold the same unified rule.
 */
static struct bucket *buckets(struct uni *u, struct cand *cd, size_t n, size_t *nb)
{
	struct bucket *b = malloc((n ? n : 1) * sizeof(*b));
	size_t i, j, k;

	*nb = 0;
	if (!b)
		return NULL;
	qsort(cd, n, sizeof(*cd), cmp_cand);
	for (i = 0; i < n; i = j) {
		uint64_t cover = 0;
		for (j = i; j < n && cd[j].len == cd[i].len && cd[j].h == cd[i].h; j++)
			for (k = u->rsoff[cd[j].r]; k < u->rsoff[cd[j].r + 1]; k++)
				cover += u->rootw[u->rs[k]];
		if (j - i >= 2)
			b[(*nb)++] = (struct bucket){ cover, cd[i].len, i, j };
	}
	qsort(b, *nb, sizeof(*b), cmp_bucket);
	return b;
}

static int groups(struct uni *u)
{
	struct cand *cd = malloc((u->nr ? u->nr : 1) * sizeof(*cd));
	uint32_t *mem = malloc((u->nr ? u->nr : 1) * sizeof(*mem));
	uint32_t *stamp = calloc(u->nroots ? u->nroots : 1, sizeof(*stamp)), gen = 0;
	struct bucket *b = NULL;
	size_t n = 0, nb = 0, i, k;
	int rc = -1, done = 0;

	if (!cd || !mem || !stamp)
		goto out;
	for (i = 0; i < u->nr; i++)
		if (u->hasch[i] && !u->frozen[i] && u->len[i] >= 2 && u->len[i] != UINT64_MAX &&
		    u->rsoff[i + 1] > u->rsoff[i])
			cd[n++] = (struct cand){ u->len[i], u->h[i], (uint32_t)i };
	if (!(b = buckets(u, cd, n, &nb)))
		goto out;
	for (i = 0; i < nb && u->steps <= u->budget && u->slots < ALL_SLOTS; i++) {
		size_t m = b[i].to - b[i].from;
		for (k = 0; k < m; k++)
			mem[k] = cd[b[i].from + k].r;
		for (k = 0; k < m; k += MAXMEMBERS) {
			int x = try_group(u, mem + k, m - k < MAXMEMBERS ? m - k : MAXMEMBERS,
					  stamp, ++gen);
			if (x < 0)
				goto out;
			done |= x;
		}
	}
	rc = done;
out:
	free(cd);
	free(mem);
	free(stamp);
	free(b);
	return rc;
}

int tg_cfg_unify(struct tg_cfg *c)
{
	struct uni u;
	size_t i;
	int rc = -1, x;

	if (c->nst < 2)
		return 0;
	memset(&u, 0, sizeof(u));
	u.c = c;
	u.nt = c->ncst;
	u.nr = c->nrules;
	/* a few walks of every record, as reading them was: no more */
	u.budget = 1000000;
	for (i = 0; i < c->nst && u.budget < STEP_BUDGET; i++)
		u.budget += c->st[i].v.records < STEP_BUDGET / 8 ? 8 * c->st[i].v.records : STEP_BUDGET;
	if (u.budget > STEP_BUDGET)
		u.budget = STEP_BUDGET;
	if (skeletons(&u) < 0 || (x = rule_hashes(&u)) == -1)
		goto out;
	if (x < 0) {	/* not renormalized: nothing to do here */
		rc = 0;
		goto out;
	}
	if (reach(&u) < 0) {
		rc = u.steps > u.budget ? 0 : -1;
		goto out;
	}
	if (streams_of_roots(&u) < 0)
		goto out;
	for (i = 0; i < c->nst; i++)
		if (c->st[i].nlocal > u.base)
			u.base = c->st[i].nlocal;
	if ((x = groups(&u)) <= 0) {	/* terminals made for nothing go */
		rc = x < 0 || (c->ncst > u.nt && tg_cfg_cst_compact(c) < 0) ? -1 : 0;
		goto out;
	}
	renamed(&u);
	rc = tg_cfg_renormalize(c) < 0 || fix_agg(&u) < 0 || tg_cfg_cst_compact(c) < 0 ? -1 : 1;
out:
	uni_release(&u);
	return rc;
}
