/*
 * flatten.c - MPI datatypes flattened to byte blocks from their #type
 * definitions (the combiner and the arrays of MPI_Type_get_contents).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../libcommon/textin.h"
#include "flatten.h"
#include "../libcommon/banned.h"

/*
 * Bounds, so that a hostile #type line costs neither gigabytes nor hours:
 * the blocks one flattened type may hold, the steps building it may take,
 * the blocks all the types of a process may hold.  A type past them is
 * unplaceable ("too many blocks"), never truncated.
 */
#define MAX_BLOCKS (1u << 20)
#define MAX_WORK (1u << 25)
#define MAX_TOTAL (1u << 23)
#define MAX_ARR 65536
#define MAX_DIMS 32

/* MPICH's constants in the ints of subarray and darray */
#define ORDER_C 56
#define ORDER_FORTRAN 57
#define DIST_BLOCK 121
#define DIST_CYCLIC 122
#define DIST_NONE 123
#define DFLT_DARG (-49767)

struct block {
	int64_t off;
	uint64_t len;
};

struct tg_flat {
	uint64_t size;		/* data bytes */
	int64_t lb, extent;
	int64_t align;		/* what a struct holding it pads its extent to */
	struct block *b;	/* in type-map order */
	uint64_t *cum;		/* data bytes before block i */
	size_t n;
	const char *why;	/* unplaceable: the reason */
};

struct named {
	const char *name;
	int64_t size, extent, align;
	int64_t second;		/* pair types: offset of the int, 0 if none */
};

static const struct named predefined[] = {
	{ "MPI_CHAR", 1, 1, 1, 0 }, { "MPI_SIGNED_CHAR", 1, 1, 1, 0 },
	{ "MPI_UNSIGNED_CHAR", 1, 1, 1, 0 }, { "MPI_BYTE", 1, 1, 1, 0 },
	{ "MPI_PACKED", 1, 1, 1, 0 }, { "MPI_C_BOOL", 1, 1, 1, 0 },
	{ "MPI_CXX_BOOL", 1, 1, 1, 0 }, { "MPI_CHARACTER", 1, 1, 1, 0 },
	{ "MPI_INT8_T", 1, 1, 1, 0 }, { "MPI_UINT8_T", 1, 1, 1, 0 },
	{ "MPI_INTEGER1", 1, 1, 1, 0 }, { "MPI_SHORT", 2, 2, 2, 0 },
	{ "MPI_UNSIGNED_SHORT", 2, 2, 2, 0 }, { "MPI_INT16_T", 2, 2, 2, 0 },
	{ "MPI_UINT16_T", 2, 2, 2, 0 }, { "MPI_INTEGER2", 2, 2, 2, 0 },
	{ "MPI_INT", 4, 4, 4, 0 }, { "MPI_UNSIGNED", 4, 4, 4, 0 },
	{ "MPI_FLOAT", 4, 4, 4, 0 }, { "MPI_WCHAR", 4, 4, 4, 0 },
	{ "MPI_INT32_T", 4, 4, 4, 0 }, { "MPI_UINT32_T", 4, 4, 4, 0 },
	{ "MPI_INTEGER", 4, 4, 4, 0 }, { "MPI_INTEGER4", 4, 4, 4, 0 },
	{ "MPI_REAL", 4, 4, 4, 0 }, { "MPI_REAL4", 4, 4, 4, 0 },
	{ "MPI_LOGICAL", 4, 4, 4, 0 }, { "MPI_LONG", 8, 8, 8, 0 },
	{ "MPI_UNSIGNED_LONG", 8, 8, 8, 0 }, { "MPI_LONG_LONG_INT", 8, 8, 8, 0 },
	{ "MPI_LONG_LONG", 8, 8, 8, 0 }, { "MPI_UNSIGNED_LONG_LONG", 8, 8, 8, 0 },
	{ "MPI_DOUBLE", 8, 8, 8, 0 }, { "MPI_INT64_T", 8, 8, 8, 0 },
	{ "MPI_UINT64_T", 8, 8, 8, 0 }, { "MPI_INTEGER8", 8, 8, 8, 0 },
	{ "MPI_REAL8", 8, 8, 8, 0 }, { "MPI_AINT", 8, 8, 8, 0 },
	{ "MPI_OFFSET", 8, 8, 8, 0 }, { "MPI_COUNT", 8, 8, 8, 0 },
	{ "MPI_DOUBLE_PRECISION", 8, 8, 8, 0 }, { "MPI_COMPLEX", 8, 8, 4, 0 },
	{ "MPI_COMPLEX8", 8, 8, 4, 0 }, { "MPI_C_FLOAT_COMPLEX", 8, 8, 4, 0 },
	{ "MPI_C_COMPLEX", 8, 8, 4, 0 }, { "MPI_CXX_FLOAT_COMPLEX", 8, 8, 4, 0 },
	{ "MPI_2INT", 8, 8, 4, 0 }, { "MPI_2INTEGER", 8, 8, 4, 0 },
	{ "MPI_2REAL", 8, 8, 4, 0 }, { "MPI_FLOAT_INT", 8, 8, 4, 0 },
	{ "MPI_2DOUBLE_PRECISION", 16, 16, 8, 0 }, { "MPI_DOUBLE_COMPLEX", 16, 16, 8, 0 },
	{ "MPI_COMPLEX16", 16, 16, 8, 0 }, { "MPI_C_DOUBLE_COMPLEX", 16, 16, 8, 0 },
	{ "MPI_CXX_DOUBLE_COMPLEX", 16, 16, 8, 0 }, { "MPI_LONG_DOUBLE", 16, 16, 16, 0 },
	{ "MPI_REAL16", 16, 16, 16, 0 }, { "MPI_COMPLEX32", 32, 32, 16, 0 },
	{ "MPI_C_LONG_DOUBLE_COMPLEX", 32, 32, 16, 0 },
	{ "MPI_CXX_LONG_DOUBLE_COMPLEX", 32, 32, 16, 0 },
	/* pairs with a gap: data, then an int at @second */
	{ "MPI_DOUBLE_INT", 12, 16, 8, 8 }, { "MPI_LONG_INT", 12, 16, 8, 8 },
	{ "MPI_SHORT_INT", 6, 8, 4, 4 }, { "MPI_LONG_DOUBLE_INT", 20, 32, 16, 16 },
};

struct entry {
	char name[32];
	struct tg_flat *f;
};

struct tg_types {
	struct entry *e;
	size_t n;
	/* flattened types whose id was defined again: a file view may
	 * still hold them (MPI keeps a freed type alive while it is used) */
	struct tg_flat **old;
	size_t nold;
	uint64_t blocks;	/* held by all, against MAX_TOTAL */
};

static void flat_free(struct tg_flat *f)
{
	if (!f)
		return;
	free(f->b);
	free(f->cum);
	free(f);
}

/* ---- building ------------------------------------------------------------ */

/* A type under construction: its blocks so far, its bounds, the work done,
 * and why it cannot be placed once something failed. */
struct bld {
	struct tg_flat *f;
	size_t cap;
	uint64_t work;
	int64_t lb, ub;
	int bounded;		/* lb and ub hold something */
	int64_t align;
	const char *why;
};

static int fail(struct bld *b, const char *why)
{
	if (!b->why)
		b->why = why;
	return -1;
}

static int add(struct bld *b, int64_t x, int64_t y, int64_t *r)
{
	return __builtin_add_overflow(x, y, r) ? fail(b, "offsets overflow") : 0;
}

static int mul(struct bld *b, int64_t x, int64_t y, int64_t *r)
{
	return __builtin_mul_overflow(x, y, r) ? fail(b, "offsets overflow") : 0;
}

/* Append one block, joined to the last one when they touch. */
static int append(struct bld *b, int64_t off, uint64_t len)
{
	struct tg_flat *f = b->f;
	int64_t end;

	if (len == 0)
		return 0;
	if (++b->work > MAX_WORK)
		return fail(b, "too many blocks");
	if (f->n > 0 && !__builtin_add_overflow(f->b[f->n - 1].off,
						 (int64_t)f->b[f->n - 1].len, &end) && end == off) {
		f->b[f->n - 1].len += len;
		return 0;
	}
	if (f->n == b->cap) {
		struct block *nb;
		if (b->cap >= MAX_BLOCKS)
			return fail(b, "too many blocks");
		nb = realloc(f->b, b->cap * 2 * sizeof(*nb));
		if (!nb)
			return fail(b, "out of memory");
		b->cap *= 2;
		f->b = nb;
	}
	f->b[f->n].off = off;
	f->b[f->n].len = len;
	f->n++;
	return 0;
}

/* Widen the bounds by [@lo, @hi). */
static void widen(struct bld *b, int64_t lo, int64_t hi)
{
	if (!b->bounded || lo < b->lb)
		b->lb = lo;
	if (!b->bounded || hi > b->ub)
		b->ub = hi;
	b->bounded = 1;
}

/*
 * @count copies of @old, copy j at byte @at + j * extent(old): its blocks
 * appended, the bounds widened as MPI widens them (lb and ub of each copy,
 * those of @old moved; copies of nothing add nothing).
 */
static int emit(struct bld *b, const struct tg_flat *old, int64_t at, int64_t count)
{
	int64_t j, last, lo, hi, base, top;
	size_t k;

	if (count < 0)
		return fail(b, "negative count");
	if (count == 0)
		return 0;
	/* the first copy's bounds [lo, hi), the last one's [base, top) */
	if (mul(b, count - 1, old->extent, &last) || add(b, at, old->lb, &lo) ||
	    add(b, lo, old->extent, &hi) || add(b, lo, last, &base) ||
	    add(b, base, old->extent, &top))
		return -1;
	widen(b, lo < base ? lo : base, hi > top ? hi : top);
	if (old->align > b->align)
		b->align = old->align;
	if (old->n == 0)
		return 0;
	if (old->n == 1 && old->b[0].off == old->lb && (int64_t)old->b[0].len == old->extent) {
		/* dense: the copies are one block */
		uint64_t len;
		if (__builtin_mul_overflow(old->b[0].len, (uint64_t)count, &len) ||
		    len > INT64_MAX)
			return fail(b, "offsets overflow");
		return append(b, lo, len);
	}
	for (j = 0; j < count; j++) {
		int64_t cat, off;
		if (add(b, at, j * old->extent, &cat))	/* |j * extent| <= |last| */
			return -1;
		for (k = 0; k < old->n; k++) {
			if (add(b, cat, old->b[k].off, &off) || append(b, off, old->b[k].len))
				return -1;
		}
	}
	return 0;
}

/* Finish: the bounds (@lb and @extent when forced), padding, prefix sums. */
static struct tg_flat *finish(struct bld *b, int forced, int64_t lb, int64_t extent, int pad)
{
	struct tg_flat *f = b->f;
	size_t i;

	f->align = b->align ? b->align : 1;
	if (forced) {
		f->lb = lb;
		f->extent = extent;
	} else if (b->bounded) {
		int64_t ext;
		if (__builtin_sub_overflow(b->ub, b->lb, &ext))
			fail(b, "offsets overflow");
		f->lb = b->lb;
		f->extent = ext;
		/* MPICH pads a struct's extent to the largest alignment in it */
		if (pad && ext > 0 && ext % f->align &&
		    __builtin_add_overflow(ext, f->align - ext % f->align, &f->extent))
			fail(b, "offsets overflow");
	}
	f->cum = malloc((f->n + 1) * sizeof(*f->cum));
	if (!f->cum)
		fail(b, "out of memory");
	f->size = 0;
	for (i = 0; !b->why && i < f->n; i++) {
		f->cum[i] = f->size;
		if (__builtin_add_overflow(f->size, f->b[i].len, &f->size))
			fail(b, "offsets overflow");
	}
	if (b->why) {
		/* unplaceable: no blocks, only the reason */
		free(f->b);
		free(f->cum);
		memset(f, 0, sizeof(*f));
		f->why = b->why;
		return f;
	}
	f->cum[f->n] = f->size;
	return f;
}

static int bld_init(struct bld *b)
{
	memset(b, 0, sizeof(*b));
	b->cap = 16;
	b->f = calloc(1, sizeof(*b->f));
	if (b->f)
		b->f->b = malloc(b->cap * sizeof(*b->f->b));
	if (!b->f || !b->f->b) {
		if (b->f)
			free(b->f);
		return -1;
	}
	return 0;
}

static struct tg_flat *flat_named(const struct named *d)
{
	struct bld b;

	if (bld_init(&b) < 0)
		return NULL;
	b.align = d->align;
	if (d->second) {
		append(&b, 0, (uint64_t)(d->second == 4 ? 2 : d->second));
		append(&b, d->second, 4);
	} else {
		append(&b, 0, (uint64_t)d->size);
	}
	return finish(&b, 1, 0, d->extent, 0);
}

/* ---- constructors -------------------------------------------------------- */

static int c_vector(struct bld *b, const struct tg_flat *old, int64_t count, int64_t bl,
		    int64_t stride)
{
	int64_t i, at;

	if (count < 0 || bl < 0)
		return fail(b, "negative count");
	if (count == 0 || bl == 0)
		return 0;
	if (old->n == 0) {
		/* no data: the bounds are those of the first and last block */
		if (emit(b, old, 0, bl) < 0 || mul(b, count - 1, stride, &at) < 0)
			return -1;
		return emit(b, old, at, bl);
	}
	for (i = 0; i < count; i++) {
		if (++b->work > MAX_WORK)
			return fail(b, "too many blocks");
		if (mul(b, i, stride, &at) || emit(b, old, at, bl))
			return -1;
	}
	return 0;
}

/* Blocks i < @count of @bl[i] (or @bl1) copies at @disp[i] * @unit bytes. */
static int c_indexed(struct bld *b, const struct tg_flat *old, int64_t count, const int64_t *bl,
		     int64_t bl1, const int64_t *disp, int64_t unit)
{
	int64_t i, at;

	for (i = 0; i < count; i++)
		if (mul(b, disp[i], unit, &at) || emit(b, old, at, bl ? bl[i] : bl1))
			return -1;
	return 0;
}

/* One dimension of a subarray or darray: the runs of indices it takes. */
struct dim {
	int64_t g;		/* elements along it */
	int64_t *s, *l;		/* runs: start, length */
	int64_t n, count;	/* runs, elements */
};

static int dim_run(struct bld *b, struct dim *d, int64_t s, int64_t l)
{
	int64_t *ns, *nl;

	if (l <= 0)
		return 0;
	if (d->n >= MAX_WORK)
		return fail(b, "too many blocks");
	ns = realloc(d->s, (size_t)(d->n + 1) * sizeof(*ns));
	if (ns)
		d->s = ns;
	nl = ns ? realloc(d->l, (size_t)(d->n + 1) * sizeof(*nl)) : NULL;
	if (!nl)
		return fail(b, "out of memory");
	d->l = nl;
	d->s[d->n] = s;
	d->l[d->n++] = l;
	d->count += l;
	return 0;
}

/*
 * The elements of an @nd-dimensional array of @old that the runs of @d
 * select, in array order @order, which is the order of their offsets: the
 * outer dimensions index by index, the innermost run by run.  lb 0, extent
 * the whole array's, as subarray and darray are defined.
 */
static struct tg_flat *grid(struct bld *b, const struct tg_flat *old, int nd, struct dim *d,
			    int64_t order)
{
	int perm[MAX_DIMS], j, in;
	int64_t stride[MAX_DIMS], ri[MAX_DIMS], oi[MAX_DIMS], total = 1, bytes = 0, work = 1;

	for (j = 0; j < nd; j++)
		perm[j] = order == ORDER_C ? j : nd - 1 - j;
	in = perm[nd - 1];
	for (j = nd - 1; j >= 0 && !b->why; j--) {
		stride[perm[j]] = total;
		mul(b, total, d[perm[j]].g, &total);
	}
	mul(b, total, old->extent, &bytes);
	for (j = 0; j < nd && !b->why; j++) {
		if (d[j].count == 0)
			return finish(b, 1, 0, bytes, 0);	/* empty */
		if (__builtin_mul_overflow(work, j == in ? d[j].n : d[j].count, &work) ||
		    work > MAX_WORK)
			fail(b, "too many blocks");
	}
	memset(ri, 0, sizeof(ri));
	memset(oi, 0, sizeof(oi));
	while (!b->why) {
		int64_t base = 0, r, at;
		for (j = 0; j < nd - 1; j++)
			base += (d[perm[j]].s[ri[j]] + oi[j]) * stride[perm[j]];
		for (r = 0; r < d[in].n; r++)
			if (mul(b, base + d[in].s[r], old->extent, &at) ||
			    emit(b, old, at, d[in].l[r]))
				break;
		/* the next index of the outer dimensions, the last fastest */
		for (j = nd - 2; j >= 0; j--) {
			struct dim *o = &d[perm[j]];
			if (++oi[j] < o->l[ri[j]])
				break;
			oi[j] = 0;
			if (++ri[j] < o->n)
				break;
			ri[j] = 0;
		}
		if (j < 0)
			break;
	}
	return finish(b, 1, 0, bytes, 0);
}

/* ints: ndims, sizes[], subsizes[], starts[], order */
static struct tg_flat *c_subarray(struct bld *b, const struct tg_flat *old, const int64_t *iv,
				  int ni, struct dim *d)
{
	int64_t nd = ni > 0 ? iv[0] : 0;
	int j;

	if (nd < 1 || nd > MAX_DIMS || ni != 3 * nd + 2 ||
	    (iv[ni - 1] != ORDER_C && iv[ni - 1] != ORDER_FORTRAN)) {
		fail(b, "malformed subarray");
		return finish(b, 0, 0, 0, 0);
	}
	for (j = 0; j < nd && !b->why; j++) {
		int64_t g = iv[1 + j], sub = iv[1 + nd + j], st = iv[1 + 2 * nd + j];
		if (g < 1 || sub < 0 || st < 0 || sub > g || st > g - sub)
			fail(b, "malformed subarray");
		d[j].g = g;
		dim_run(b, &d[j], st, sub);
	}
	if (b->why)
		return finish(b, 0, 0, 0, 0);
	return grid(b, old, (int)nd, d, iv[ni - 1]);
}

/* The indices process coordinate @c of @p takes along a dimension of @g
 * elements distributed @dist with argument @darg (MPI-3.1 4.1.4). */
static int darray_dim(struct bld *b, struct dim *d, int64_t g, int64_t dist, int64_t darg,
		      int64_t p, int64_t c)
{
	int64_t k, s, step;

	d->g = g;
	if (g < 1 || p < 1 || c < 0 || c >= p)
		return fail(b, "malformed darray");
	if (dist == DIST_NONE)
		return dim_run(b, d, 0, g);
	k = darg;
	if (dist == DIST_BLOCK) {
		if (darg == DFLT_DARG)
			k = g / p + (g % p != 0);
		/* blocks of k, one per process, covering all g */
		if (k < 1 || (!__builtin_mul_overflow(k, p, &step) && step < g))
			return fail(b, "malformed darray");
		if (__builtin_mul_overflow(c, k, &s) || s >= g)
			return 0;
		return dim_run(b, d, s, g - s < k ? g - s : k);
	}
	if (dist != DIST_CYCLIC)
		return fail(b, "malformed darray");
	if (darg == DFLT_DARG)
		k = 1;
	if (k < 1 || k > g || __builtin_mul_overflow(k, p, &step))
		return fail(b, "malformed darray");
	for (s = c * k; s < g; s += step)
		if (dim_run(b, d, s, g - s < k ? g - s : k) < 0 || s > INT64_MAX - step)
			break;
	return b->why ? -1 : 0;
}

/* ints: size, rank, ndims, gsizes[], distribs[], dargs[], psizes[], order */
static struct tg_flat *c_darray(struct bld *b, const struct tg_flat *old, const int64_t *iv,
				int ni, struct dim *d)
{
	int64_t nd = ni > 2 ? iv[2] : 0, size = ni > 0 ? iv[0] : 0, r, procs;
	int j;

	if (nd < 1 || nd > MAX_DIMS || ni != 4 * nd + 4 || size < 1 || iv[1] < 0 ||
	    iv[1] >= size || (iv[ni - 1] != ORDER_C && iv[ni - 1] != ORDER_FORTRAN)) {
		fail(b, "malformed darray");
		return finish(b, 0, 0, 0, 0);
	}
	/* the process grid is row-major whatever the array order */
	r = iv[1];
	procs = size;
	for (j = 0; j < nd && !b->why; j++) {
		int64_t p = iv[3 + 3 * nd + j];
		if (p < 1 || procs % p) {
			fail(b, "malformed darray");
			break;
		}
		procs /= p;
		darray_dim(b, &d[j], iv[3 + j], iv[3 + nd + j], iv[3 + 2 * nd + j], p, r / procs);
		r %= procs;
	}
	if (!b->why && procs != 1)
		fail(b, "malformed darray");
	if (b->why)
		return finish(b, 0, 0, 0, 0);
	return grid(b, old, (int)nd, d, iv[ni - 1]);
}

/* MPI_Type_create_f90_*: the predefined type of the precision asked for
 * (MPI_UNDEFINED, -32766, where none was) */
static const char *f90_type(const char *comb, const int64_t *iv, int ni)
{
	int64_t p = ni > 0 ? iv[0] : -1, r = ni > 1 ? iv[1] : -1;

	if (!strcmp(comb, "MPI_COMBINER_F90_INTEGER")) {
		r = p;
		if (ni != 1 || r < -32766)
			return NULL;
		return r <= 2 ? "MPI_INTEGER1" : r <= 4 ? "MPI_INTEGER2" :
		       r <= 9 ? "MPI_INTEGER4" : r <= 18 ? "MPI_INTEGER8" : NULL;
	}
	if (ni != 2 || p < -32766 || r < -32766)
		return NULL;
	if (!strcmp(comb, "MPI_COMBINER_F90_REAL"))
		return p <= 6 && r <= 37 ? "MPI_REAL4" : p <= 15 && r <= 307 ? "MPI_REAL8" :
		       p <= 33 && r <= 4931 ? "MPI_REAL16" : NULL;
	return p <= 6 && r <= 37 ? "MPI_COMPLEX8" : p <= 15 && r <= 307 ? "MPI_COMPLEX16" :
	       p <= 33 && r <= 4931 ? "MPI_COMPLEX32" : NULL;
}

static struct tg_flat *lookup(struct tg_types *ts, const char *name);

/* types[i] as a type to build from; NULL (and why) when it is unknown or
 * cannot be placed itself. */
static const struct tg_flat *need(struct tg_types *ts, struct bld *b, const char *name)
{
	const struct tg_flat *t = lookup(ts, name);

	if (!t)
		fail(b, "built from an unknown type");
	else if (t->why)
		fail(b, t->why);
	return b->why ? NULL : t;
}

static int is(const char *comb, const char *a, const char *b)
{
	return !strcmp(comb, a) || (b && !strcmp(comb, b));
}

/* The typed constructors: everything but struct, subarray and darray. */
static struct tg_flat *c_typed(struct tg_types *ts, struct bld *b, const char *comb,
			       const int64_t *iv, int ni, const int64_t *av, int na,
			       const char *t0)
{
	const struct tg_flat *old = need(ts, b, t0);
	int64_t c = ni > 0 ? iv[0] : -1, x;

	if (!old)
		return finish(b, 0, 0, 0, 0);
	if (is(comb, "MPI_COMBINER_DUP", NULL) && ni == 0 && na == 0) {
		b->align = old->align;
		emit(b, old, 0, 1);
		return finish(b, 1, old->lb, old->extent, 0);
	}
	if (is(comb, "MPI_COMBINER_RESIZED", NULL) && ni == 0 && na == 2) {
		b->align = old->align;
		emit(b, old, 0, 1);
		return finish(b, 1, av[0], av[1], 0);
	}
	if (is(comb, "MPI_COMBINER_CONTIGUOUS", NULL) && ni == 1 && na == 0) {
		emit(b, old, 0, c);
	} else if (is(comb, "MPI_COMBINER_VECTOR", NULL) && ni == 3 && na == 0) {
		if (mul(b, iv[2], old->extent, &x) == 0)
			c_vector(b, old, c, iv[1], x);
	} else if (is(comb, "MPI_COMBINER_HVECTOR", "MPI_COMBINER_HVECTOR_INTEGER") &&
		   ni == 2 && na == 1) {
		c_vector(b, old, c, iv[1], av[0]);
	} else if (is(comb, "MPI_COMBINER_INDEXED", NULL) && c >= 0 && c <= ni && ni == 1 + 2 * c &&
		   na == 0) {
		c_indexed(b, old, c, iv + 1, 0, iv + 1 + c, old->extent);
	} else if (is(comb, "MPI_COMBINER_HINDEXED", "MPI_COMBINER_HINDEXED_INTEGER") &&
		   c >= 0 && c <= ni && ni == 1 + c && na == c) {
		c_indexed(b, old, c, iv + 1, 0, av, 1);
	} else if (is(comb, "MPI_COMBINER_INDEXED_BLOCK", NULL) && c >= 0 && c <= ni && ni == 2 + c &&
		   na == 0) {
		c_indexed(b, old, c, NULL, iv[1], iv + 2, old->extent);
	} else if (is(comb, "MPI_COMBINER_HINDEXED_BLOCK", NULL) && c >= 0 && c <= na && ni == 2 &&
		   na == c) {
		c_indexed(b, old, c, NULL, iv[1], av, 1);
	} else {
		fail(b, "malformed or unknown combiner");
	}
	return finish(b, 0, 0, 0, 0);
}

/*
 * ints: count, blocklengths[]; aints: displacements[]; types[].  The MPI-1
 * markers MPI_LB and MPI_UB (MPI_Type_struct) are no data: as MPICH 4 does,
 * the struct is built from the other entries and then resized, its lower
 * bound at the last MPI_LB's displacement and its upper bound at the last
 * MPI_UB's, whatever their block lengths; a bound without a marker stays
 * the struct's own, padded.
 */
static struct tg_flat *c_struct(struct tg_types *ts, struct bld *b, const int64_t *iv, int ni,
				const int64_t *av, int na, char tv[][32], int nt)
{
	int64_t c = ni > 0 && iv[0] <= ni ? iv[0] : -1, i, lb = 0, ub = 0;
	int has_lb = 0, has_ub = 0;
	struct tg_flat *f;

	if (c < 0 || ni != 1 + c || na != c || nt != c)
		fail(b, "malformed struct");
	for (i = 0; !b->why && i < c; i++) {
		const struct tg_flat *t;
		if (!strcmp(tv[i], "MPI_LB")) {
			has_lb = 1;
			lb = av[i];
			continue;
		}
		if (!strcmp(tv[i], "MPI_UB")) {
			has_ub = 1;
			ub = av[i];
			continue;
		}
		if ((t = need(ts, b, tv[i])))
			emit(b, t, av[i], iv[1 + i]);
	}
	f = finish(b, 0, 0, 0, 1);
	if (f && !f->why && (has_lb || has_ub)) {
		int64_t ext;
		if (!has_lb)
			lb = f->lb;
		if ((!has_ub && __builtin_add_overflow(f->lb, f->extent, &ub)) ||
		    __builtin_sub_overflow(ub, lb, &ext)) {
			free(f->b);
			free(f->cum);
			memset(f, 0, sizeof(*f));
			f->why = "offsets overflow";
			return f;
		}
		f->lb = lb;
		f->extent = ext;
	}
	return f;
}

static struct tg_flat *build(struct tg_types *ts, const char *comb, const int64_t *iv, int ni,
			     const int64_t *av, int na, char tv[][32], int nt)
{
	struct tg_flat *f;
	struct dim d[MAX_DIMS];
	const struct tg_flat *old;
	const char *f90;
	struct bld b;
	int j;

	if (bld_init(&b) < 0)
		return NULL;
	if (ni >= MAX_ARR || na >= MAX_ARR || nt >= MAX_ARR)
		fail(&b, "too many blocks");
	if (b.why)
		return finish(&b, 0, 0, 0, 0);
	if (is(comb, "MPI_COMBINER_STRUCT", "MPI_COMBINER_STRUCT_INTEGER"))
		return c_struct(ts, &b, iv, ni, av, na, tv, nt);
	if (!strncmp(comb, "MPI_COMBINER_F90_", 17)) {
		if (nt != 0 || na != 0 || !(f90 = f90_type(comb, iv, ni)))
			fail(&b, "malformed or unknown combiner");
		return b.why ? finish(&b, 0, 0, 0, 0) : c_typed(ts, &b, "MPI_COMBINER_DUP", NULL,
								  0, NULL, 0, f90);
	}
	if (nt != 1) {
		fail(&b, "malformed or unknown combiner");
		return finish(&b, 0, 0, 0, 0);
	}
	if (!is(comb, "MPI_COMBINER_SUBARRAY", "MPI_COMBINER_DARRAY"))
		return c_typed(ts, &b, comb, iv, ni, av, na, tv[0]);
	if (!(old = need(ts, &b, tv[0])) || na != 0) {
		fail(&b, "malformed or unknown combiner");
		return finish(&b, 0, 0, 0, 0);
	}
	memset(d, 0, sizeof(d));
	b.align = old->align;
	if (is(comb, "MPI_COMBINER_SUBARRAY", NULL))
		f = c_subarray(&b, old, iv, ni, d);
	else
		f = c_darray(&b, old, iv, ni, d);
	for (j = 0; j < MAX_DIMS; j++) {
		free(d[j].s);
		free(d[j].l);
	}
	return f;
}

/* ---- the types of a process --------------------------------------------- */

struct tg_types *tg_types_new(void)
{
	return calloc(1, sizeof(struct tg_types));
}

void tg_types_free(struct tg_types *ts)
{
	size_t i;

	if (!ts)
		return;
	for (i = 0; i < ts->n; i++)
		flat_free(ts->e[i].f);
	for (i = 0; i < ts->nold; i++)
		flat_free(ts->old[i]);
	free(ts->e);
	free(ts->old);
	free(ts);
}

static struct entry *find(struct tg_types *ts, const char *name)
{
	size_t i;

	for (i = 0; i < ts->n; i++)
		if (strcmp(ts->e[i].name, name) == 0)
			return &ts->e[i];
	return NULL;
}

/* Keep @f under @name (a new entry, or the old one's flat retired). */
static int keep(struct tg_types *ts, const char *name, struct tg_flat *f)
{
	struct entry *e = find(ts, name);

	if (f->n > MAX_TOTAL - ts->blocks) {
		/* the process holds too much already: this one stays empty */
		free(f->b);
		free(f->cum);
		memset(f, 0, sizeof(*f));
		f->why = "too many blocks";
	}
	if (e) {
		struct tg_flat **no = realloc(ts->old, (ts->nold + 1) * sizeof(*no));
		if (!no)
			return -1;
		ts->old = no;
		ts->old[ts->nold++] = e->f;
	} else {
		struct entry *ne = realloc(ts->e, (ts->n + 1) * sizeof(*ne));
		if (!ne)
			return -1;
		ts->e = ne;
		e = &ts->e[ts->n++];
		snprintf(e->name, sizeof(e->name), "%s", name);
	}
	e->f = f;
	ts->blocks += f->n;
	return 0;
}

static struct tg_flat *lookup(struct tg_types *ts, const char *name)
{
	struct entry *e;
	size_t i;

	if (!name)
		return NULL;
	if ((e = find(ts, name)))
		return e->f;
	for (i = 0; i < sizeof(predefined) / sizeof(predefined[0]); i++)
		if (strcmp(predefined[i].name, name) == 0) {
			struct tg_flat *f = flat_named(&predefined[i]);
			if (!f || keep(ts, name, f) < 0) {
				flat_free(f);
				return NULL;
			}
			return f;
		}
	return NULL;
}

struct tg_flat *tg_types_get(struct tg_types *ts, const char *name)
{
	struct tg_flat *f = lookup(ts, name);

	return f && !f->why ? f : NULL;
}

const char *tg_types_why(struct tg_types *ts, const char *name)
{
	struct tg_flat *f = lookup(ts, name);

	return !f ? "unknown type" : f->why;
}

/* "[a,b]" of type names into @out. */
static int names(const char *s, char out[][32], int max)
{
	int n = 0;

	if (*s++ != '[')
		return -1;
	while (*s && *s != ']') {
		size_t k = strcspn(s, ",]");
		if (k == 0 || k >= 32)
			return -1;
		if (n < max) {
			memcpy(out[n], s, k);
			out[n][k] = 0;
		}
		n++;
		s += k;
		if (*s == ',' && *++s == ']')
			return -1;
	}
	return *s == ']' && !s[1] ? (n < max ? n : max) : -1;
}

int tg_types_define(struct tg_types *ts, const char *line)
{
	static int64_t iv[MAX_ARR], av[MAX_ARR];
	static char tv[MAX_ARR][32];
	char *copy = strdup(line);
	struct tg_tline t;
	const char *id, *comb, *is, *as, *tys;
	struct tg_flat *f;
	int ni, na, nt, rc = -1;

	if (!copy)
		return -1;
	tg_tline_split(copy, &t);
	id = tg_tline_arg(&t, 1, "id");
	comb = tg_tline_arg(&t, 1, "combiner");
	is = tg_tline_arg(&t, 1, "ints");
	as = tg_tline_arg(&t, 1, "aints");
	tys = tg_tline_arg(&t, 1, "types");
	if (!id || !comb || !is || !as || !tys || !*id || strlen(id) >= 32)
		goto out;
	ni = tg_tintarr(is, iv, MAX_ARR);
	na = tg_tintarr(as, av, MAX_ARR);
	nt = names(tys, tv, MAX_ARR);
	if (ni < 0 || na < 0 || nt < 0)
		goto out;
	f = build(ts, comb, iv, ni, av, na, tv, nt);
	if (f && keep(ts, id, f) < 0)
		flat_free(f);
	else if (f)
		rc = 0;
out:
	free(copy);
	return rc;
}

uint64_t tg_flat_size(const struct tg_flat *f)
{
	return f ? f->size : 0;
}

/* The file offset of byte @in of block @b of tile @k, or -1 if it is
 * negative or past what an offset holds. */
static int64_t file_off(const struct tg_flat *ft, uint64_t disp, uint64_t k,
			const struct block *b, uint64_t in)
{
	int64_t o;

	if (disp > INT64_MAX || k > INT64_MAX || in > INT64_MAX ||
	    __builtin_mul_overflow((int64_t)k, ft->extent, &o) ||
	    __builtin_add_overflow(o, (int64_t)disp, &o) ||
	    __builtin_add_overflow(o, b->off, &o) ||
	    __builtin_add_overflow(o, (int64_t)in, &o) || o < 0)
		return -1;
	return o;
}

size_t tg_flat_map(const struct tg_flat *ft, uint64_t disp, uint64_t from, uint64_t n,
		   struct tg_extent *ex, size_t max)
{
	uint64_t k, r, steps = 0;
	size_t lo, hi, out = 0;

	if (!ft || ft->why || ft->size == 0 || ft->n == 0 || !ex || max == 0)
		return 0;
	k = from / ft->size;
	r = from % ft->size;
	if (ft->n == 1 && (int64_t)ft->b[0].len == ft->extent) {
		/* the tiles follow each other: one extent */
		int64_t o = file_off(ft, disp, k, &ft->b[0], r), e;
		if (o < 0 || n > INT64_MAX || __builtin_add_overflow(o, (int64_t)n, &e))
			return 0;
		ex[0].off = (uint64_t)o;
		ex[0].len = n;
		return 1;
	}
	/* the block holding data byte r */
	lo = 0;
	hi = ft->n;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (ft->cum[mid] <= r)
			lo = mid;
		else
			hi = mid;
	}
	/* at most @max extents, and a bounded number of steps merging into
	 * them: the caller asks again from where they end */
	while (n > 0 && out < max && steps++ < (1u << 20)) {
		const struct block *b = &ft->b[lo];
		uint64_t in = r - ft->cum[lo], len = b->len - in;
		int64_t o = file_off(ft, disp, k, b, in);
		if (o < 0 || (uint64_t)o > UINT64_MAX - len)
			break;
		if (len > n)
			len = n;
		if (out > 0 && ex[out - 1].off + ex[out - 1].len == (uint64_t)o) {
			ex[out - 1].len += len;
		} else {
			ex[out].off = (uint64_t)o;
			ex[out].len = len;
			out++;
		}
		n -= len;
		r += len;
		if (r >= ft->cum[lo + 1] && ++lo == ft->n) {
			lo = 0;
			r = 0;
			k++;
		}
	}
	return out;
}
