/*
 * flatten.c - MPI datatypes flattened to byte blocks from their #type
 * definitions (the combiner and the arrays of MPI_Type_get_contents).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../libcommon/textin.h"
#include "flatten.h"

#define MAX_BLOCKS (1u << 22)	/* blocks of one flattened type */
#define MAX_ARR 65536

struct block {
	int64_t off;
	uint64_t len;
};

struct tg_flat {
	uint64_t size;		/* data bytes */
	int64_t lb, extent;
	struct block *b;
	uint64_t *cum;		/* data bytes before block i */
	size_t n;
};

struct named {
	const char *name;
	int64_t size, extent;
	int64_t second;		/* pair types: offset of the int, 0 if none */
};

static const struct named predefined[] = {
	{ "MPI_CHAR", 1, 1, 0 }, { "MPI_SIGNED_CHAR", 1, 1, 0 },
	{ "MPI_UNSIGNED_CHAR", 1, 1, 0 }, { "MPI_BYTE", 1, 1, 0 },
	{ "MPI_PACKED", 1, 1, 0 }, { "MPI_C_BOOL", 1, 1, 0 },
	{ "MPI_CHARACTER", 1, 1, 0 }, { "MPI_INT8_T", 1, 1, 0 },
	{ "MPI_UINT8_T", 1, 1, 0 }, { "MPI_SHORT", 2, 2, 0 },
	{ "MPI_UNSIGNED_SHORT", 2, 2, 0 }, { "MPI_INT16_T", 2, 2, 0 },
	{ "MPI_UINT16_T", 2, 2, 0 }, { "MPI_INT", 4, 4, 0 },
	{ "MPI_UNSIGNED", 4, 4, 0 }, { "MPI_FLOAT", 4, 4, 0 },
	{ "MPI_WCHAR", 4, 4, 0 }, { "MPI_INT32_T", 4, 4, 0 },
	{ "MPI_UINT32_T", 4, 4, 0 }, { "MPI_INTEGER", 4, 4, 0 },
	{ "MPI_REAL", 4, 4, 0 }, { "MPI_LOGICAL", 4, 4, 0 },
	{ "MPI_LONG", 8, 8, 0 }, { "MPI_UNSIGNED_LONG", 8, 8, 0 },
	{ "MPI_LONG_LONG_INT", 8, 8, 0 }, { "MPI_LONG_LONG", 8, 8, 0 },
	{ "MPI_UNSIGNED_LONG_LONG", 8, 8, 0 }, { "MPI_DOUBLE", 8, 8, 0 },
	{ "MPI_INT64_T", 8, 8, 0 }, { "MPI_UINT64_T", 8, 8, 0 },
	{ "MPI_AINT", 8, 8, 0 }, { "MPI_OFFSET", 8, 8, 0 }, { "MPI_COUNT", 8, 8, 0 },
	{ "MPI_DOUBLE_PRECISION", 8, 8, 0 }, { "MPI_COMPLEX", 8, 8, 0 },
	{ "MPI_C_FLOAT_COMPLEX", 8, 8, 0 }, { "MPI_C_COMPLEX", 8, 8, 0 },
	{ "MPI_2INT", 8, 8, 0 }, { "MPI_FLOAT_INT", 8, 8, 0 },
	{ "MPI_DOUBLE_COMPLEX", 16, 16, 0 }, { "MPI_C_DOUBLE_COMPLEX", 16, 16, 0 },
	{ "MPI_LONG_DOUBLE", 16, 16, 0 },
	/* pairs with a gap: data, then an int at @second */
	{ "MPI_DOUBLE_INT", 12, 16, 8 }, { "MPI_LONG_INT", 12, 16, 8 },
	{ "MPI_SHORT_INT", 6, 8, 4 },
};

struct entry {
	char name[32];
	struct tg_flat *f;
};

struct tg_types {
	struct entry *e;
	size_t n;
};

static void flat_free(struct tg_flat *f)
{
	if (!f)
		return;
	free(f->b);
	free(f->cum);
	free(f);
}

/* Finish @f: merge touching blocks, compute the prefix sums. */
static struct tg_flat *flat_done(struct tg_flat *f)
{
	size_t i, o = 0;

	for (i = 0; i < f->n; i++) {
		if (f->b[i].len == 0)
			continue;
		if (o > 0 && f->b[o - 1].off + (int64_t)f->b[o - 1].len == f->b[i].off)
			f->b[o - 1].len += f->b[i].len;
		else
			f->b[o++] = f->b[i];
	}
	f->n = o;
	f->cum = malloc((o + 1) * sizeof(*f->cum));
	if (!f->cum) {
		flat_free(f);
		return NULL;
	}
	f->size = 0;
	for (i = 0; i < o; i++) {
		f->cum[i] = f->size;
		f->size += f->b[i].len;
	}
	f->cum[o] = f->size;
	return f;
}

static struct tg_flat *flat_new(size_t cap)
{
	struct tg_flat *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->b = malloc((cap ? cap : 1) * sizeof(*f->b));
	if (!f->b) {
		free(f);
		return NULL;
	}
	return f;
}

static struct tg_flat *flat_named(const struct named *d)
{
	struct tg_flat *f = flat_new(2);

	if (!f)
		return NULL;
	f->extent = d->extent;
	if (d->second) {
		f->b[0] = (struct block){ 0, (uint64_t)d->second == 4 ? 2u : 8u };
		f->b[1] = (struct block){ d->second, 4 };
		f->n = 2;
	} else {
		f->b[0] = (struct block){ 0, (uint64_t)d->size };
		f->n = 1;
	}
	return flat_done(f);
}

/* Append @count copies of @old, each @blen elements long, copy i at byte
 * displacement @disp[i] (or i * @stride when @disp is NULL). */
static int place(struct tg_flat *f, size_t *cap, const struct tg_flat *old, int64_t count,
		 const int64_t *blen, int64_t blen1, const int64_t *disp, int64_t stride)
{
	int64_t i, j;
	size_t k;

	for (i = 0; i < count; i++) {
		int64_t bl = blen ? blen[i] : blen1;
		int64_t at = disp ? disp[i] : i * stride;
		for (j = 0; j < bl; j++) {
			for (k = 0; k < old->n; k++) {
				if (f->n == *cap) {
					struct block *nb;
					if (*cap >= MAX_BLOCKS)
						return -1;
					*cap *= 2;
					nb = realloc(f->b, *cap * sizeof(*nb));
					if (!nb)
						return -1;
					f->b = nb;
				}
				f->b[f->n].off = at + j * old->extent + old->b[k].off;
				f->b[f->n].len = old->b[k].len;
				f->n++;
			}
		}
	}
	return 0;
}

/* Bounds of what @f covers: lb and extent from the blocks placed. */
static void bounds(struct tg_flat *f)
{
	int64_t lo = 0, hi = 0;
	size_t i;

	for (i = 0; i < f->n; i++) {
		int64_t e = f->b[i].off + (int64_t)f->b[i].len;
		if (i == 0 || f->b[i].off < lo)
			lo = f->b[i].off;
		if (i == 0 || e > hi)
			hi = e;
	}
	f->lb = lo;
	f->extent = hi - lo;
}

static int cmp_block(const void *a, const void *b)
{
	const struct block *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

static struct tg_flat *lookup(struct tg_types *ts, const char *name);

static struct tg_flat *build(struct tg_types *ts, const char *comb, const int64_t *iv,
			     int ni, const int64_t *av, int na, char types[][32], int nt)
{
	struct tg_flat *f, *old = nt > 0 ? lookup(ts, types[0]) : NULL;
	size_t cap = 64;
	int i, rc = -1;

	if (!old)
		return NULL;
	f = flat_new(cap);
	if (!f)
		return NULL;
	if (!strcmp(comb, "MPI_COMBINER_DUP")) {
		rc = place(f, &cap, old, 1, NULL, 1, NULL, 0);
		f->lb = old->lb;
		f->extent = old->extent;
		return rc < 0 ? (flat_free(f), NULL) : flat_done(f);
	}
	if (!strcmp(comb, "MPI_COMBINER_CONTIGUOUS") && ni >= 1) {
		rc = place(f, &cap, old, 1, NULL, iv[0], NULL, 0);
	} else if (!strcmp(comb, "MPI_COMBINER_VECTOR") && ni >= 3) {
		rc = place(f, &cap, old, iv[0], NULL, iv[1], NULL, iv[2] * old->extent);
	} else if ((!strcmp(comb, "MPI_COMBINER_HVECTOR") ||
		    !strcmp(comb, "MPI_COMBINER_HVECTOR_INTEGER")) && ni >= 2 && na >= 1) {
		rc = place(f, &cap, old, iv[0], NULL, iv[1], NULL, av[0]);
	} else if (!strcmp(comb, "MPI_COMBINER_INDEXED") && ni >= 1 && ni >= 1 + 2 * iv[0]) {
		int64_t *d = malloc(((size_t)iv[0] + 1) * sizeof(*d));
		if (d) {
			for (i = 0; i < iv[0]; i++)
				d[i] = iv[1 + iv[0] + i] * old->extent;
			rc = place(f, &cap, old, iv[0], iv + 1, 0, d, 0);
			free(d);
		}
	} else if ((!strcmp(comb, "MPI_COMBINER_HINDEXED") ||
		    !strcmp(comb, "MPI_COMBINER_HINDEXED_INTEGER")) && ni >= 1 &&
		   ni >= 1 + iv[0] && na >= iv[0]) {
		rc = place(f, &cap, old, iv[0], iv + 1, 0, av, 0);
	} else if (!strcmp(comb, "MPI_COMBINER_INDEXED_BLOCK") && ni >= 2 && ni >= 2 + iv[0]) {
		int64_t *d = malloc(((size_t)iv[0] + 1) * sizeof(*d));
		if (d) {
			for (i = 0; i < iv[0]; i++)
				d[i] = iv[2 + i] * old->extent;
			rc = place(f, &cap, old, iv[0], NULL, iv[1], d, 0);
			free(d);
		}
	} else if (!strcmp(comb, "MPI_COMBINER_HINDEXED_BLOCK") && ni >= 2 && na >= iv[0]) {
		rc = place(f, &cap, old, iv[0], NULL, iv[1], av, 0);
	} else if ((!strcmp(comb, "MPI_COMBINER_STRUCT") ||
		    !strcmp(comb, "MPI_COMBINER_STRUCT_INTEGER")) && ni >= 1 &&
		   ni >= 1 + iv[0] && na >= iv[0] && nt >= iv[0]) {
		rc = 0;
		for (i = 0; i < iv[0] && rc == 0; i++) {
			struct tg_flat *t = lookup(ts, types[i]);
			if (!t)
				rc = -1;
			else
				rc = place(f, &cap, t, 1, NULL, iv[1 + i], av + i, 0);
		}
	} else if (!strcmp(comb, "MPI_COMBINER_SUBARRAY") && ni >= 1 && ni >= 2 + 3 * iv[0] &&
		   iv[0] >= 1 && iv[0] <= 3) {
		/* ndims, sizes[], subsizes[], starts[], order: placed row by row */
		int nd = (int)iv[0];
		const int64_t *sz = iv + 1, *sub = iv + 1 + nd, *st = iv + 1 + 2 * nd;
		int c_order = iv[1 + 3 * nd] == 56;	/* MPI_ORDER_C in MPICH */
		int64_t idx[3] = { 0, 0, 0 }, total = 1, e = old->extent, k;
		for (i = 0; i < nd; i++)
			total *= sub[i];
		rc = 0;
		for (k = 0; k < total && rc == 0; k++) {
			/* element k of the subarray, row-major in C order */
			int64_t rem = k, lin = 0, mul = 1;
			for (i = nd - 1; i >= 0; i--) {
				int d = c_order ? i : nd - 1 - i;
				idx[d] = rem % sub[d];
				rem /= sub[d];
			}
			for (i = nd - 1; i >= 0; i--) {
				int d = c_order ? i : nd - 1 - i;
				lin += (st[d] + idx[d]) * mul;
				mul *= sz[d];
			}
			rc = place(f, &cap, old, 1, NULL, 1, (int64_t[]){ lin * e }, 0);
		}
		if (rc == 0) {
			int64_t all = 1;
			for (i = 0; i < nd; i++)
				all *= sz[i];
			qsort(f->b, f->n, sizeof(*f->b), cmp_block);
			f->lb = 0;
			f->extent = all * e;
			return flat_done(f);
		}
	} else if (!strcmp(comb, "MPI_COMBINER_RESIZED") && na >= 2) {
		rc = place(f, &cap, old, 1, NULL, 1, NULL, 0);
		if (rc == 0) {
			f->lb = av[0];
			f->extent = av[1];
			return flat_done(f);
		}
	}
	if (rc < 0) {
		flat_free(f);
		return NULL;
	}
	bounds(f);
	if (!strcmp(comb, "MPI_COMBINER_STRUCT") || !strcmp(comb, "MPI_COMBINER_HINDEXED") ||
	    !strcmp(comb, "MPI_COMBINER_INDEXED"))
		qsort(f->b, f->n, sizeof(*f->b), cmp_block);
	return flat_done(f);
}

struct tg_types *tg_types_new(void)
{
	return calloc(1, sizeof(struct tg_types));
}

static struct entry *find(struct tg_types *ts, const char *name)
{
	size_t i;

	for (i = 0; i < ts->n; i++)
		if (strcmp(ts->e[i].name, name) == 0)
			return &ts->e[i];
	return NULL;
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
			struct entry *ne;
			if (!f)
				return NULL;
			ne = realloc(ts->e, (ts->n + 1) * sizeof(*ne));
			if (!ne) {
				flat_free(f);
				return NULL;
			}
			ts->e = ne;
			snprintf(ts->e[ts->n].name, sizeof(ts->e[0].name), "%s", name);
			ts->e[ts->n++].f = f;
			return f;
		}
	return NULL;
}

struct tg_flat *tg_types_get(struct tg_types *ts, const char *name)
{
	return lookup(ts, name);
}

/* "[a,b]" of type names into @out. */
static int names(const char *s, char out[][32], int max)
{
	int n = 0;

	if (*s++ != '[')
		return -1;
	while (*s && *s != ']') {
		size_t k = strcspn(s, ",]");
		if (n < max) {
			if (k >= 32)
				return -1;
			memcpy(out[n], s, k);
			out[n][k] = 0;
		}
		n++;
		s += k;
		if (*s == ',')
			s++;
	}
	return *s == ']' ? (n < max ? n : max) : -1;
}

int tg_types_define(struct tg_types *ts, const char *line)
{
	static int64_t iv[MAX_ARR], av[MAX_ARR];
	static char tv[1024][32];
	char *copy = strdup(line);
	struct tg_tline t;
	const char *id, *comb, *is, *as, *tys;
	struct tg_flat *f;
	struct entry *e;
	int ni, na, nt, rc = -1;

	if (!copy)
		return -1;
	tg_tline_split(copy, &t);
	id = tg_tline_arg(&t, 1, "id");
	comb = tg_tline_arg(&t, 1, "combiner");
	is = tg_tline_arg(&t, 1, "ints");
	as = tg_tline_arg(&t, 1, "aints");
	tys = tg_tline_arg(&t, 1, "types");
	if (!id || !comb || !is || !as || !tys || strlen(id) >= 32)
		goto out;
	ni = tg_tintarr(is, iv, MAX_ARR);
	na = tg_tintarr(as, av, MAX_ARR);
	nt = names(tys, tv, 1024);
	if (ni < 0 || na < 0 || nt < 0)
		goto out;
	f = build(ts, comb, iv, ni, av, na, tv, nt);
	if ((e = find(ts, id))) {
		/* an id in use again: its old object was freed; the types
		 * built from it keep their own flattened copies */
		flat_free(e->f);
		e->f = f;
	} else {
		struct entry *ne = realloc(ts->e, (ts->n + 1) * sizeof(*ne));
		if (!ne) {
			flat_free(f);
			goto out;
		}
		ts->e = ne;
		snprintf(ts->e[ts->n].name, sizeof(ts->e[0].name), "%s", id);
		ts->e[ts->n++].f = f;
	}
	rc = 0;
out:
	free(copy);
	return rc;
}

uint64_t tg_flat_size(const struct tg_flat *f)
{
	return f ? f->size : 0;
}

size_t tg_flat_map(const struct tg_flat *ft, uint64_t disp, uint64_t from, uint64_t n,
		   struct tg_extent *ex, size_t max)
{
	uint64_t k, r;
	size_t lo, hi, out = 0;

	if (!ft || ft->size == 0 || ft->n == 0)
		return 0;
	k = from / ft->size;
	r = from % ft->size;
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
	while (n > 0 && out < max) {
		const struct block *b = &ft->b[lo];
		uint64_t in = r - ft->cum[lo], len = b->len - in;
		if (len > n)
			len = n;
		ex[out].off = disp + k * (uint64_t)ft->extent + (uint64_t)b->off + in;
		ex[out].len = len;
		if (out > 0 && ex[out - 1].off + ex[out - 1].len == ex[out].off)
			ex[out - 1].len += len;
		else
			out++;
		n -= len;
		r += len;
		if (++lo == ft->n || r >= ft->cum[lo]) {
			if (lo == ft->n) {
				lo = 0;
				r = 0;
				k++;
			}
		} else {
			lo--;
		}
	}
	return out;
}
