/*
 * itree.c - disjoint intervals in a treap: split by start, merge, and the
 * range operations built from the two.
 */
#include "itree.h"

#include <errno.h>
#include <stdlib.h>

#include "../libcommon/banned.h"

struct tfs_itnode {
	struct tfs_iv iv;
	uint64_t prio;
	struct tfs_itnode *left, *right;
};

void tfs_itree_init(struct tfs_itree *t)
{
	t->root = NULL;
	t->count = 0;
	t->seed = 0x9e3779b97f4a7c15ull;
	t->changes = 0;
}

static void free_all(struct tfs_itnode *n)
{
	while (n) {
		struct tfs_itnode *r = n->right;

		free_all(n->left);
		free(n);
		n = r;
	}
}

void tfs_itree_release(struct tfs_itree *t)
{
	free_all(t->root);
	t->root = NULL;
	t->count = 0;
	t->changes++;
}

static struct tfs_itnode *node_new(struct tfs_itree *t, const struct tfs_iv *iv)
{
	struct tfs_itnode *n = malloc(sizeof(*n));

	if (!n)
		return NULL;
	n->iv = *iv;
	t->seed ^= t->seed << 13;
	t->seed ^= t->seed >> 7;
	t->seed ^= t->seed << 17;
	n->prio = t->seed;
	n->left = n->right = NULL;
	return n;
}

/* Split @n into *l (start < key) and *r (start >= key). */
static void split(struct tfs_itnode *n, uint64_t key, struct tfs_itnode **l,
		  struct tfs_itnode **r)
{
	if (!n) {
		*l = *r = NULL;
	} else if (n->iv.start < key) {
		split(n->right, key, &n->right, r);
		*l = n;
	} else {
		split(n->left, key, l, &n->left);
		*r = n;
	}
}

/* Join @l and @r, every start of @l below every start of @r. */
static struct tfs_itnode *merge(struct tfs_itnode *l, struct tfs_itnode *r)
{
	if (!l)
		return r;
	if (!r)
		return l;
	if (l->prio > r->prio) {
		l->right = merge(l->right, r);
		return l;
	}
	r->left = merge(l, r->left);
	return r;
}

static struct tfs_itnode *rightmost(struct tfs_itnode *n)
{
	while (n && n->right)
		n = n->right;
	return n;
}

static struct tfs_itnode *leftmost(struct tfs_itnode *n)
{
	while (n && n->left)
		n = n->left;
	return n;
}

/* @b continues @a: same owner and state, adjacent in file and base. */
static int continues(const struct tfs_iv *a, const struct tfs_iv *b)
{
	return a->end == b->start && a->owner == b->owner && a->state == b->state &&
	       a->base + (a->end - a->start) == b->base;
}

/* The part of @iv from @at on. */
static struct tfs_iv tail_of(const struct tfs_iv *iv, uint64_t at)
{
	struct tfs_iv t = *iv;

	t.base += at - iv->start;
	t.start = at;
	return t;
}

/* Collect the nodes of @n in order into @v (room for every node). */
static size_t collect(struct tfs_itnode *n, struct tfs_itnode **v, size_t k)
{
	while (n) {
		k = collect(n->left, v, k);
		v[k++] = n;
		n = n->right;
	}
	return k;
}

static size_t count_nodes(const struct tfs_itnode *n)
{
	size_t c = 0;

	while (n) {
		c += 1 + count_nodes(n->left);
		n = n->right;
	}
	return c;
}

/*
 * Cut [start, end) out of the tree: *l gets the intervals before it (the
 * one crossing start trimmed), *m the intervals starting inside it, *r those
 * after it (including a tail of an interval crossing end).  @spare is a
 * preallocated node for that tail, consumed (set to NULL) when used; at most
 * one tail exists because intervals are disjoint.
 */
static void cut(struct tfs_itree *t, uint64_t start, uint64_t end, struct tfs_itnode **l,
		struct tfs_itnode **m, struct tfs_itnode **r, struct tfs_itnode **spare,
		int (*match)(const struct tfs_iv *, void *), void *arg)
{
	struct tfs_itnode *mid, *x;

	split(t->root, start, l, &mid);
	split(mid, end, m, r);
	t->root = NULL;
	x = rightmost(*l);
	if (x && x->iv.end > start && (!match || match(&x->iv, arg))) {
		if (x->iv.end > end) {
			(*spare)->iv = tail_of(&x->iv, end);
			*r = merge(*spare, *r);
			*spare = NULL;
			t->count++;
		}
		x->iv.end = start;
	}
	x = rightmost(*m);
	if (x && x->iv.end > end && (!match || match(&x->iv, arg))) {
		(*spare)->iv = tail_of(&x->iv, end);
		*r = merge(*spare, *r);
		*spare = NULL;
		t->count++;
		x->iv.end = end;
	}
}

int tfs_itree_assign(struct tfs_itree *t, const struct tfs_iv *v)
{
	struct tfs_itnode *l, *m, *r, *x, *spare, *n;
	struct tfs_itnode **all;
	size_t k, i;

	if (v->end <= v->start)
		return 0;
	t->changes++;
	/* past every interval (a log-structured writer's append): the last
	 * one grows in place, or @v joins at the right, with nothing cut */
	x = rightmost(t->root);
	if (!x || (x->iv.end <= v->start && x->iv.start < v->start)) {
		if (x && continues(&x->iv, v)) {
			x->iv.end = v->end;
			return 0;
		}
		if (!(n = node_new(t, v))) {
			errno = ENOMEM;
			return -1;
		}
		t->root = merge(t->root, n);
		t->count++;
		return 0;
	}
	spare = node_new(t, v);
	n = node_new(t, v);
	if (!spare || !n) {
		free(spare);
		free(n);
		errno = ENOMEM;
		return -1;
	}
	cut(t, v->start, v->end, &l, &m, &r, &spare, NULL, NULL);
	/* every interval of m is covered by v */
	k = count_nodes(m);
	if (k) {
		all = malloc(k * sizeof(*all));
		if (all) {
			collect(m, all, 0);
			for (i = 0; i < k; i++)
				free(all[i]);
			free(all);
		} else {
			free_all(m);
		}
		t->count -= k;
	}
	free(spare);
	x = rightmost(l);
	if (x && x->iv.end <= x->iv.start) {	/* trimmed to nothing */
		struct tfs_itnode *gone;

		split(l, x->iv.start, &l, &gone);
		free(gone);
		t->count--;
		x = rightmost(l);
	}
	if (x && continues(&x->iv, v)) {
		x->iv.end = v->end;
		free(n);
		n = NULL;
	} else {
		t->count++;
	}
	{
		struct tfs_itnode *y = leftmost(r), *last = n ? n : x;

		if (y && continues(&last->iv, &y->iv)) {
			struct tfs_itnode *one;

			last->iv.end = y->iv.end;
			split(r, y->iv.start + 1, &one, &r);
			free(one);
			t->count--;
		}
	}
	t->root = merge(merge(l, n), r);
	return 0;
}

int tfs_itree_remove(struct tfs_itree *t, uint64_t start, uint64_t end,
		     int (*match)(const struct tfs_iv *iv, void *arg), void *arg)
{
	struct tfs_itnode *l, *m, *r, *x, *spare, *keep = NULL, *gone;
	struct tfs_itnode **all;
	struct tfs_iv dummy = { 0, 0, 0, 0, 0 };
	size_t k, i;

	if (end <= start)
		return 0;
	t->changes++;
	if (!(spare = node_new(t, &dummy))) {
		errno = ENOMEM;
		return -1;
	}
	k = 0;
	split(t->root, start, &l, &m);
	split(m, end, &m, &r);
	k = count_nodes(m);
	all = malloc((k ? k : 1) * sizeof(*all));
	t->root = merge(merge(l, m), r);
	if (!all) {
		free(spare);
		errno = ENOMEM;
		return -1;
	}
	cut(t, start, end, &l, &m, &r, &spare, match, arg);
	x = rightmost(l);
	if (x && x->iv.end <= x->iv.start) {
		split(l, x->iv.start, &l, &gone);
		free(gone);
		t->count--;
	}
	k = collect(m, all, 0);
	for (i = 0; i < k; i++) {
		all[i]->left = all[i]->right = NULL;
		if (!match || match(&all[i]->iv, arg)) {
			free(all[i]);
			t->count--;
		} else {
			keep = merge(keep, all[i]);
		}
	}
	free(all);
	free(spare);
	t->root = merge(merge(l, keep), r);
	return 0;
}

static int each(const struct tfs_itnode *n, uint64_t start, uint64_t end,
		int (*fn)(const struct tfs_iv *, void *), void *arg)
{
	int rc;

	while (n) {
		if (n->iv.start > start && (rc = each(n->left, start, end, fn, arg)))
			return rc;
		if (n->iv.end > start && n->iv.start < end) {
			struct tfs_iv c = n->iv;

			if (c.start < start)
				c = tail_of(&c, start);
			if (c.end > end)
				c.end = end;
			if ((rc = fn(&c, arg)))
				return rc;
		}
		if (n->iv.end >= end)
			return 0;
		n = n->right;
	}
	return 0;
}

int tfs_itree_each(const struct tfs_itree *t, uint64_t start, uint64_t end,
		   int (*fn)(const struct tfs_iv *iv, void *arg), void *arg)
{
	if (end <= start)
		return 0;
	return each(t->root, start, end, fn, arg);
}

uint64_t tfs_itree_end(const struct tfs_itree *t)
{
	const struct tfs_itnode *x = rightmost(t->root);

	return x ? x->iv.end : 0;
}

int tfsi_itree_collect(const struct tfs_iv *iv, void *arg)
{
	struct tfs_ivec *vec = arg;

	if (vec->n == vec->cap) {
		size_t cap = vec->cap ? 2 * vec->cap : 16;
		struct tfs_iv *v = realloc(vec->v, cap * sizeof(*v));

		if (!v) {
			vec->failed = 1;
			return 1;
		}
		vec->v = v;
		vec->cap = cap;
	}
	vec->v[vec->n++] = *iv;
	return 0;
}

struct above {
	struct tfs_ivec vec;
	uint32_t state;
};

static int collect_above(const struct tfs_iv *iv, void *arg)
{
	struct above *a = arg;

	return iv->state > a->state ? tfsi_itree_collect(iv, &a->vec) : 0;
}

int tfsi_itree_hold(struct tfs_itree *t, uint64_t start, uint64_t end, uint32_t state)
{
	struct above a = { { 0 }, state };
	struct tfs_iv iv = { start, end, 0, start, state };
	int rc = 0;

	tfs_itree_each(t, start, end, collect_above, &a);
	if (a.vec.failed || tfs_itree_assign(t, &iv) < 0)
		rc = -1;
	for (size_t i = 0; i < a.vec.n && !rc; i++)
		if (tfs_itree_assign(t, &a.vec.v[i]) < 0)
			rc = -1;
	free(a.vec.v);
	if (rc)
		errno = ENOMEM;
	return rc;
}

struct reach {
	uint64_t at, end;
};

static int reach_one(const struct tfs_iv *iv, void *arg)
{
	struct reach *r = arg;

	if (iv->start > r->at && iv->start >= r->end)
		return 1;
	if (iv->end > r->at)
		r->at = iv->end;
	return 0;
}

uint64_t tfsi_itree_reach(const struct tfs_itree *t, uint64_t start, uint64_t end)
{
	struct reach r = { start, end };

	tfs_itree_each(t, start, UINT64_MAX, reach_one, &r);
	return r.at;
}
