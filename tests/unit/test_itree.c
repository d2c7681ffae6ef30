/*
 * test_itree.c - TangramFS's interval tree (tfs/itree.c) against a model
 * that keeps every byte's owner, state and base: random assigns and
 * removes, then appends the way a burst-buffer writer makes them.
 */
#include <stdint.h>
#include <string.h>

#include "../../tfs/itree.c"
#include "tap.h"
#include "../../libcommon/banned.h"

#define SPAN 512

/* A byte of the model: unset, or the interval fields it would carry. */
struct mb {
	int set;
	uint64_t owner, base;
	uint32_t state;
};

static struct mb model[SPAN];
static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

static void model_assign(const struct tfs_iv *v)
{
	for (uint64_t b = v->start; b < v->end; b++)
		model[b] = (struct mb){ 1, v->owner, v->base + (b - v->start), v->state };
}

static int is_state(const struct tfs_iv *iv, void *arg)
{
	return iv->state == *(uint32_t *)arg;
}

static void model_remove(uint64_t s, uint64_t e, uint32_t state)
{
	for (uint64_t b = s; b < e; b++)
		if (model[b].set && model[b].state == state)
			model[b] = (struct mb){ 0 };
}

struct walk {
	struct mb got[SPAN];
	uint64_t last_end;
	size_t n;
	int ordered, merged;
	struct tfs_iv prev;
};

static int walk_one(const struct tfs_iv *iv, void *arg)
{
	struct walk *w = arg;

	if (iv->start >= iv->end || iv->end > SPAN || (w->n && iv->start < w->last_end))
		w->ordered = 0;
	/* neighbours that continue each other should have been one interval */
	if (w->n && w->prev.end == iv->start && w->prev.owner == iv->owner &&
	    w->prev.state == iv->state && w->prev.base + (w->prev.end - w->prev.start) == iv->base)
		w->merged = 0;
	for (uint64_t b = iv->start; b < iv->end && b < SPAN; b++)
		w->got[b] = (struct mb){ 1, iv->owner, iv->base + (b - iv->start), iv->state };
	w->last_end = iv->end;
	w->prev = *iv;
	w->n++;
	return 0;
}

/* 1 when the tree holds exactly the model, in order, merged, counted */
static int matches(const struct tfs_itree *t, const char *what)
{
	static struct walk w;

	memset(&w, 0, sizeof(w));
	w.ordered = w.merged = 1;
	tfs_itree_each(t, 0, UINT64_MAX, walk_one, &w);
	for (size_t b = 0; b < SPAN; b++)
		if (memcmp(&w.got[b], &model[b], sizeof(model[b])) != 0) {
			tap_diag("%s: byte %zu differs", what, b);
			return 0;
		}
	if (!w.ordered || !w.merged || w.n != t->count) {
		tap_diag("%s: ordered %d merged %d, %zu intervals, count %zu", what, w.ordered,
			 w.merged, w.n, t->count);
		return 0;
	}
	return 1;
}

static struct tfs_iv random_iv(void)
{
	struct tfs_iv v;

	v.start = rnd(SPAN);
	v.end = v.start + 1 + rnd(SPAN - v.start < 64 ? SPAN - v.start : 64);
	v.owner = rnd(3);
	v.state = (uint32_t)rnd(3);
	/* a base that sometimes continues the byte before it */
	v.base = v.start && model[v.start - 1].set && rnd(2) ? model[v.start - 1].base + 1
							       : rnd(1 << 20);
	return v;
}

int main(void)
{
	struct tfs_itree t;
	int good = 1;

	tfs_itree_init(&t);
	for (int i = 0; i < 20000 && good; i++) {
		if (rnd(4)) {
			struct tfs_iv v = random_iv();

			good = tfs_itree_assign(&t, &v) == 0;
			model_assign(&v);
		} else {
			uint64_t s = rnd(SPAN), e = s + rnd(SPAN - s + 1);
			uint32_t st = (uint32_t)rnd(3);

			good = tfs_itree_remove(&t, s, e, is_state, &st) == 0;
			model_remove(s, e, st);
		}
		if (good && i % 97 == 0)
			good = matches(&t, "random operations");
	}
	ok(good && matches(&t, "random operations"),
	   "20,000 random assigns and removes: the tree is the byte model, merged and counted");

	/* a writer's log: each write appended to its buffer file, in order */
	tfs_itree_release(&t);
	memset(model, 0, sizeof(model));
	for (uint64_t off = 0, base = 100; off < 256; off += 8, base += 8) {
		struct tfs_iv v = { off, off + 8, 0, base, 0 };

		tfs_itree_assign(&t, &v);
		model_assign(&v);
	}
	ok(matches(&t, "appends") && t.count == 1, "contiguous appends grow one interval");

	/* past the end but not continuing it: a hole, another state, another base */
	{
		struct tfs_iv hole = { 300, 310, 0, 356, 0 }, other = { 310, 320, 0, 366, 1 },
			      jump = { 320, 330, 0, 9999, 1 }, back = { 10, 20, 0, 5000, 2 };

		tfs_itree_assign(&t, &hole);
		model_assign(&hole);
		tfs_itree_assign(&t, &other);
		model_assign(&other);
		tfs_itree_assign(&t, &jump);
		model_assign(&jump);
		ok(matches(&t, "appends past the end") && t.count == 4,
		   "appends past the end that do not continue the last interval stay apart");
		/* then an overwrite inside: split as before */
		tfs_itree_assign(&t, &back);
		model_assign(&back);
		ok(matches(&t, "an overwrite") && t.count == 6, "an overwrite splits the interval it lands in");
	}
	/* an empty range is a no-op, at the end as anywhere */
	{
		struct tfs_iv none = { 330, 330, 0, 0, 0 };
		size_t n = t.count;

		ok(tfs_itree_assign(&t, &none) == 0 && t.count == n && matches(&t, "empty"),
		   "an empty range at the end changes nothing");
	}
	tfs_itree_release(&t);
	return tap_done();
}
