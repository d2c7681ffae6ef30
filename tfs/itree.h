/*
 * itree.h - an interval tree of disjoint byte ranges, each with an owner, a
 * state and a base (where the range's first byte lives in some buffer).
 *
 * Both trees of the dissertation's §5.4.2 are this one: the server's global
 * tree (owner = client id, base = start, so contiguity always holds) and a
 * client's local tree (owner 0, base = offset in the burst-buffer file,
 * state = dirty/attached/detached).  Assigning a range splits what it
 * overlaps and merges it with a neighbour that continues it (same owner and
 * state, base contiguous).  A treap keyed by start: O(log n) expected per
 * operation plus the intervals touched.  Not thread-safe; the caller locks.
 */
#ifndef TFS_ITREE_H
#define TFS_ITREE_H

#include <stddef.h>
#include <stdint.h>

/* One interval [start, end). */
struct tfs_iv {
	uint64_t start, end;
	uint64_t owner;
	uint64_t base;		/* where byte start lives; moves with start */
	uint32_t state;
};

struct tfs_itnode;

struct tfs_itree {
	struct tfs_itnode *root;
	size_t count;		/* intervals held */
	uint64_t seed;		/* priorities */
	uint64_t changes;	/* assigns, removes and releases so far: a
				 * reader that cached what the tree held sees
				 * that it may hold something else now */
};

void tfs_itree_init(struct tfs_itree *t);

/* Free every interval. */
void tfs_itree_release(struct tfs_itree *t);

/* Make @v the only interval over [v->start, v->end): overlapped intervals
 * are trimmed or split, contiguous compatible neighbours merged.  An empty
 * range is a no-op.  Returns 0, or -1 (ENOMEM; the tree is unchanged). */
int tfs_itree_assign(struct tfs_itree *t, const struct tfs_iv *v);

/* Remove the parts within [start, end) of the intervals for which @match
 * returns nonzero (every interval when @match is NULL).  Returns 0, or -1
 * (ENOMEM: the tree holds what was removed so far). */
int tfs_itree_remove(struct tfs_itree *t, uint64_t start, uint64_t end,
		     int (*match)(const struct tfs_iv *iv, void *arg), void *arg);

/* Call @fn, in offset order, with every interval overlapping [start, end)
 * clipped to it (base adjusted).  Stops when @fn returns nonzero and
 * returns that value; 0 otherwise.  @fn must not change the tree. */
int tfs_itree_each(const struct tfs_itree *t, uint64_t start, uint64_t end,
		   int (*fn)(const struct tfs_iv *iv, void *arg), void *arg);

/* End of the last interval, 0 when empty. */
uint64_t tfs_itree_end(const struct tfs_itree *t);

/*
 * Helpers of the server and libtfs over a tree, not part of tfs(3): the
 * tfsi_ prefix stays outside the version scripts' tfs_* pattern.
 */

/* Intervals collected by tfsi_itree_collect(); the caller frees v. */
struct tfs_ivec {
	struct tfs_iv *v;
	size_t n, cap;
	int failed;		/* out of memory: v holds those before */
};

/* The tfs_itree_each() callback appending each interval to the struct
 * tfs_ivec @arg.  Out of memory, it sets failed and stops the walk (1). */
int tfsi_itree_collect(const struct tfs_iv *iv, void *arg);

/* Make [@start, @end) an interval in @state (owner 0, base @start) but
 * where an interval in a higher state lies: a lock or token's read (1)
 * never downgrades a write (2).  Returns 0, or -1 (ENOMEM). */
int tfsi_itree_hold(struct tfs_itree *t, uint64_t start, uint64_t end, uint32_t state);

/* How far the intervals run on from @start (extend-end): the end of the
 * last one reached before a gap, where only a gap past @end stops the run;
 * @start when none reaches past it. */
uint64_t tfsi_itree_reach(const struct tfs_itree *t, uint64_t start, uint64_t end);

#endif
