/*
 * h5.c - HDF5 support of the shim: symbolic identifiers (pools per
 * identifier type, predefined identifiers by name), the ranks array
 * arguments need, and the trampolines that trace the program's callbacks.
 *
 * An HDF5 1.10 identifier carries its type (H5I_type_t) in bits 56..62
 * and a counter the library never reuses until H5close; the symbolic id
 * is the smallest one free in the type's pool, so that a program that
 * creates and closes a dataspace in a loop shows S1 each time.
 *
 * H5open is written by hand: see its row in h5.tab.
 */
#include "h5-shim.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../libcommon/h5names.h"

#define TYPE_OF(id) ((unsigned)(((uint64_t)(id) >> 56) & 0x7f))
#define NTYPES 128

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- the library's functions and variables, found at run time ---------- */

/* A variable of the library (the shim defines none of them); in a
 * library loaded out of the global scope (h5py's), found as tg_real finds
 * its functions. */
static void *h5sym(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);

	return p ? p : tg_real(name, NULL);
}

/* ---- which library: the caller's ------------------------------------------ */

/* The return address of the thread's latest HDF5 wrapper's caller: the
 * shim's own calls into the library go where that call went. */
static __thread const void *h5_caller;

/* Call sites seen: read without a lock (each entry's version is odd
 * while a writer, under rmu, changes it).  Four ways a set: call sites
 * that hash to one set do not push each other out (a direct-mapped table
 * thrashed for netCDF-4's dozens of sites, each miss a dladdr, dlopen
 * and dlsym). */
#define RSETS 1024
#define RWAYS 4
static struct {
	unsigned ver;
	const void *ra;
	const char *name;
	void *fn;
} rcache[RSETS][RWAYS];
static unsigned char rnext[RSETS];	/* the way the next miss takes */
static pthread_mutex_t rmu = PTHREAD_MUTEX_INITIALIZER;

static void *caller_def(const char *name, const void *ra)
{
	Dl_info at, self, got;
	void *h, *p = NULL;

	if (!ra || !dladdr(ra, &at) || !at.dli_fname || !at.dli_fname[0] ||
	    !dladdr((void *)caller_def, &self) || at.dli_fbase == self.dli_fbase)
		return NULL;
	/* (the program itself is not found by name: its calls go to the
	 * global scope's definition, the default) */
	if ((h = dlopen(at.dli_fname, RTLD_LAZY | RTLD_NOLOAD))) {
		p = dlsym(h, name);
		dlclose(h);	/* the reference NOLOAD took */
	}
	if (p && (!dladdr(p, &got) || got.dli_fbase == self.dli_fbase))
		p = NULL;	/* the shim's own wrapper */
	return p;
}

void *tg_h5_real(const char *name, const void *ra, void *dflt)
{
	size_t i = (size_t)((((uintptr_t)ra ^ (uintptr_t)name) * 0x9e3779b97f4a7c15ull) >> 54) &
		   (RSETS - 1);
	void *fn;
	unsigned v, w;

	h5_caller = ra;
	for (w = 0; w < RWAYS; w++) {
		int hit;
		v = __atomic_load_n(&rcache[i][w].ver, __ATOMIC_ACQUIRE);
		hit = !(v & 1) && __atomic_load_n(&rcache[i][w].ra, __ATOMIC_RELAXED) == ra &&
		      __atomic_load_n(&rcache[i][w].name, __ATOMIC_RELAXED) == name;
		fn = __atomic_load_n(&rcache[i][w].fn, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (hit && __atomic_load_n(&rcache[i][w].ver, __ATOMIC_RELAXED) == v)
			return fn ? fn : dflt;
	}
	fn = caller_def(name, ra);
	pthread_mutex_lock(&rmu);
	w = rnext[i]++ % RWAYS;
	__atomic_store_n(&rcache[i][w].ver, rcache[i][w].ver + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&rcache[i][w].ra, ra, __ATOMIC_RELAXED);
	__atomic_store_n(&rcache[i][w].name, name, __ATOMIC_RELAXED);
	__atomic_store_n(&rcache[i][w].fn, fn, __ATOMIC_RELAXED);
	__atomic_store_n(&rcache[i][w].ver, rcache[i][w].ver + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rmu);
	return fn ? fn : dflt;
}

/* A function of the library: the next definition, not the shim's own,
 * or the one the current wrapper's caller reaches. */
#define H5_FN(ret, name, params)                                      \
	static ret(*get_##name(void)) params                          \
	{                                                             \
		static ret(*p) params;                                \
		if (!p)                                               \
			p = (ret(*) params)tg_real(#name, NULL);      \
		return p ? (ret(*) params)tg_h5_real(#name, h5_caller, (void *)p) : p; \
	}

H5_FN(htri_t, H5Iis_valid, (hid_t))
H5_FN(int, H5Sget_simple_extent_ndims, (hid_t))
H5_FN(hid_t, H5Dget_space, (hid_t))
H5_FN(herr_t, H5Sclose, (hid_t))

/* ---- predefined identifiers --------------------------------------------- */

struct predef {
	int64_t val;
	uint32_t n;	/* index in tg_h5_predef */
};

static struct predef *predefs;
static unsigned npredefs;
static int predef_ready;

static int by_val(const void *a, const void *b)
{
	const struct predef *x = a, *y = b;

	return x->val < y->val ? -1 : x->val > y->val;
}

/* Has the library started (and set its predefined identifiers)? */
static int h5_started(void)
{
	static const hid_t *probe;

	if (!probe)
		probe = h5sym("H5T_NATIVE_INT_g");
	return probe && *probe > 0;
}

/* The values of the predefined identifiers, read once the library has set
 * them (H5open); called with mu held. */
static void predef_build(void)
{
	unsigned i;

	if (!h5_started())
		return;
	free(predefs);
	npredefs = 0;
	if (!(predefs = malloc(sizeof(*predefs) * tg_h5_npredef)))
		return;
	for (i = 1; i < tg_h5_npredef; i++) {
		const hid_t *g = h5sym(tg_h5_predef[i].global);
		if (g && *g > 0) {
			predefs[npredefs].val = *g;
			predefs[npredefs++].n = i;
		}
	}
	qsort(predefs, npredefs, sizeof(*predefs), by_val);
	predef_ready = 1;
}

/* Number of predefined identifier @id, or 0; called with mu held. */
static uint32_t predef_find(hid_t id)
{
	unsigned lo = 0, hi;

	if (!predef_ready)
		predef_build();
	hi = npredefs;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (predefs[mid].val == id)
			return predefs[mid].n;
		if (predefs[mid].val < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* ---- pools ------------------------------------------------------------------ */

struct slot {
	int64_t val;
	uint32_t id;
	uint8_t used;	/* 0 empty, 1 live, 2 deleted */
};

struct pool {
	unsigned char *taken;	/* bit per id */
	uint32_t cap;		/* ids the bitmap holds */
	uint32_t low;		/* no free id below this one */
};

static struct slot *slots;
static size_t nslots, nlive, ndead;
static struct pool pools[NTYPES];

static size_t hhash(int64_t v)
{
	return (size_t)(((uint64_t)v * 0x9E3779B97F4A7C15ull) >> 32);
}

static uint32_t take_id(struct pool *p)
{
	uint32_t id;

	for (id = p->low ? p->low : 1;; id++) {
		if (id >= p->cap) {
			uint32_t nc = p->cap ? 2 * p->cap : 256;
			unsigned char *nt = realloc(p->taken, nc / 8);
			if (!nt)
				return 0;
			memset(nt + p->cap / 8, 0, (nc - p->cap) / 8);
			p->taken = nt;
			p->cap = nc;
		}
		if (!(p->taken[id / 8] & (1u << (id % 8)))) {
			p->taken[id / 8] |= (unsigned char)(1u << (id % 8));
			p->low = id + 1;
			return id;
		}
	}
}

static void give_id(struct pool *p, uint32_t id)
{
	if (id && id < p->cap) {
		p->taken[id / 8] &= (unsigned char)~(1u << (id % 8));
		if (id < p->low)
			p->low = id;
	}
}

static struct slot *lookup(int64_t val)
{
	size_t i, n;

	if (!nslots)
		return NULL;
	for (n = 0, i = hhash(val) & (nslots - 1); n < nslots; n++, i = (i + 1) & (nslots - 1)) {
		if (slots[i].used == 0)
			return NULL;
		if (slots[i].used == 1 && slots[i].val == val)
			return &slots[i];
	}
	return NULL;
}

/* Room for one more: grow or clean the table (dropping the deleted). */
static int rehash(void)
{
	size_t nn = nslots ? nslots : 1024, i;
	struct slot *old = slots, *ns;

	if (nslots && (nlive + 1) * 2 > nslots)
		nn = 2 * nslots;
	if (!(ns = calloc(nn, sizeof(*ns))))
		return -1;
	for (i = 0; i < nslots; i++) {
		size_t j;
		if (old[i].used != 1)
			continue;
		for (j = hhash(old[i].val) & (nn - 1); ns[j].used; j = (j + 1) & (nn - 1))
			;
		ns[j] = old[i];
	}
	free(old);
	slots = ns;
	nslots = nn;
	ndead = 0;
	return 0;
}

static struct slot *insert(int64_t val)
{
	size_t i;

	if ((nlive + ndead + 1) * 4 > nslots * 3 && rehash() < 0)
		return NULL;
	for (i = hhash(val) & (nslots - 1); slots[i].used == 1; i = (i + 1) & (nslots - 1))
		;
	if (slots[i].used == 2)
		ndead--;
	slots[i].used = 1;
	slots[i].val = val;
	slots[i].id = take_id(&pools[TYPE_OF(val)]);
	nlive++;
	return &slots[i];
}

uint64_t tg_h5_enc(hid_t id)
{
	unsigned type = TYPE_OF(id);
	struct slot *s;
	uint64_t enc;
	uint32_t n;

	if (id == 0)
		return 0;
	if (id < 0)
		return 1;
	pthread_mutex_lock(&mu);
	/* only types, property classes and lists are predefined */
	if ((type == H5I_DATATYPE || type == H5I_GENPROP_CLS || type == H5I_GENPROP_LST) &&
	    (n = predef_find(id))) {
		pthread_mutex_unlock(&mu);
		return (uint64_t)n << 1 | 1;
	}
	if (!(s = lookup(id)))
		s = insert(id);
	enc = ((uint64_t)(s ? s->id : 0) << 7 | type) << 1;
	pthread_mutex_unlock(&mu);
	return enc;
}

void tg_h5_closed(hid_t id)
{
	struct slot *s;

	if (id <= 0)
		return;
	/* H5Iinc_ref lets an identifier outlive a close */
	if (get_H5Iis_valid() && get_H5Iis_valid()(id) > 0)
		return;
	pthread_mutex_lock(&mu);
	if ((s = lookup(id))) {
		give_id(&pools[TYPE_OF(id)], s->id);
		s->used = 2;
		nlive--;
		ndead++;
	}
	pthread_mutex_unlock(&mu);
}

void tg_h5_reset(void)
{
	unsigned i;

	pthread_mutex_lock(&mu);
	if (slots)
		memset(slots, 0, nslots * sizeof(*slots));
	nlive = ndead = 0;
	for (i = 0; i < NTYPES; i++) {
		if (pools[i].taken)
			memset(pools[i].taken, 0, pools[i].cap / 8);
		pools[i].low = 1;
	}
	predef_ready = 0;
	pthread_mutex_unlock(&mu);
}

/* ---- ranks -------------------------------------------------------------------- */

/* The library is asked only about identifiers of the right type that it
 * knows (H5Iis_valid pushes no error), so that no error message is printed
 * that the program would not have printed; the shim's guard keeps the
 * calls out of the trace. */
int tg_h5_rank(hid_t space)
{
	struct tg_thread *t = tg_self;
	int n = 0;

	if (TYPE_OF(space) != H5I_DATASPACE || space <= 0 || !t ||
	    !get_H5Iis_valid() || !get_H5Sget_simple_extent_ndims())
		return 0;
	t->guard++;
	if (get_H5Iis_valid()(space) > 0)
		n = get_H5Sget_simple_extent_ndims()(space);
	t->guard--;
	return n < 0 ? 0 : n;
}

int tg_h5_dset_rank(hid_t dset)
{
	struct tg_thread *t = tg_self;
	hid_t space;
	int n = 0;

	if (TYPE_OF(dset) != H5I_DATASET || dset <= 0 || !t || !get_H5Iis_valid() ||
	    !get_H5Dget_space() || !get_H5Sget_simple_extent_ndims() || !get_H5Sclose())
		return 0;
	t->guard++;
	if (get_H5Iis_valid()(dset) > 0 && (space = get_H5Dget_space()(dset)) >= 0) {
		n = get_H5Sget_simple_extent_ndims()(space);
		get_H5Sclose()(space);
	}
	t->guard--;
	return n < 0 ? 0 : n;
}

void tg_h5_put_dims(struct tg_call *c, const hsize_t *a, long n)
{
	long i;

	if (!a) {
		tg_put_u(c, 0);
		return;
	}
	tg_put_u(c, (uint64_t)n + 1);
	for (i = 0; i < n; i++)
		tg_put_s(c, (int64_t)a[i]);
}

/* ---- callbacks ------------------------------------------------------------------ */

/* While the program's callback runs, the traced call it runs inside counts
 * as a call of no layer, so that the HDF5 calls the callback makes are
 * recorded (as calls made inside it: depth and parent say so). */
static int cb_enter(const struct tg_h5cb *cb, uint8_t *saved)
{
	struct tg_thread *t = tg_self;

	if (!t || t->depth <= (int)cb->level)
		return 0;
	*saved = t->stack_layer[cb->level];
	t->stack_layer[cb->level] = TG_LAYER_COUNT;
	return 1;
}

static void cb_leave(const struct tg_h5cb *cb, int on, uint8_t saved)
{
	struct tg_thread *t = tg_self;

	if (on && t && t->depth > (int)cb->level)
		t->stack_layer[cb->level] = saved;
}

#define TRAMPOLINE(type, params, args)                            \
	herr_t tg_h5cb_##type params                              \
	{                                                         \
		const struct tg_h5cb *cb = data;                  \
		uint8_t saved = 0;                                \
		int on = cb_enter(cb, &saved);                    \
		herr_t r = ((type)cb->fn)args;                    \
		cb_leave(cb, on, saved);                          \
		return r;                                         \
	}

TRAMPOLINE(H5L_iterate_t, (hid_t group, const char *name, const H5L_info_t *info, void *data),
	   (group, name, info, cb->data))
TRAMPOLINE(H5O_iterate_t, (hid_t obj, const char *name, const H5O_info_t *info, void *data),
	   (obj, name, info, cb->data))
TRAMPOLINE(H5A_operator2_t, (hid_t loc, const char *name, const H5A_info_t *info, void *data),
	   (loc, name, info, cb->data))
TRAMPOLINE(H5G_iterate_t, (hid_t group, const char *name, void *data), (group, name, cb->data))
TRAMPOLINE(H5D_operator_t,
	   (void *elem, hid_t type, unsigned ndim, const hsize_t *point, void *data),
	   (elem, type, ndim, point, cb->data))

/* ---- H5open ------------------------------------------------------------------- */

/* Recorded only when it starts the library (what the library does then,
 * MPI calls included, shows beneath it): the macros for the predefined
 * identifiers call it at every use. */
herr_t H5open(void);
TG_EXPORT herr_t H5open(void)
{
	static herr_t (*real)(void);
	struct tg_call tgc;
	herr_t ret;
	int e0;

	if (tg_unlikely(!real) && !(real = (herr_t (*)(void))tg_real("H5open", NULL)))
		return -1;
	if (!tg_on(TG_LAYER_HDF5) || h5_started() ||
	    !tg_enter(&tgc, TG_FN_H5open, TG_LAYER_HDF5))
		return real();
	e0 = errno;
	errno = 0;
	ret = real();
	tg_end(&tgc);
	tg_rec_begin(&tgc, ret, tg_h5_errno(&tgc, e0) && ret < 0);
	tg_rec_commit(&tgc);
	return ret;
}

/* ---- HDF5 linked into the program --------------------------------------- */

/* Call @fn(@arg, name, symbol, file) for each function the ELF file mapped
 * at @m (@n bytes) defines in its symbol tables (.symtab and .dynsym: one
 * of them when the file was stripped), until it returns nonzero; returns
 * that, or 0.  file: for a file-local function, the name of the object
 * or source file it came from (the FILE symbol before it), else NULL. */
static int elf_functions(const unsigned char *m, size_t n,
			 int (*fn)(void *, const char *, const Elf64_Sym *, const char *),
			 void *arg)
{
	const Elf64_Ehdr *eh = (const void *)m;
	const Elf64_Shdr *sh;
	const char *file;
	unsigned i;
	int rc;

	if (n < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(*sh) ||
	    eh->e_shoff > n || (size_t)eh->e_shnum * sizeof(*sh) > n - eh->e_shoff)
		return 0;
	sh = (const void *)(m + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *st;
		const Elf64_Sym *sym;
		size_t k, ns;

		if ((sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) ||
		    sh[i].sh_link >= eh->e_shnum || sh[i].sh_offset > n ||
		    sh[i].sh_size > n - sh[i].sh_offset)
			continue;
		st = &sh[sh[i].sh_link];
		if (st->sh_offset > n || st->sh_size > n - st->sh_offset || !st->sh_size ||
		    m[st->sh_offset + st->sh_size - 1] != 0)
			continue;
		sym = (const void *)(m + sh[i].sh_offset);
		ns = sh[i].sh_size / sizeof(*sym);
		file = NULL;
		for (k = 0; k < ns; k++) {
			const char *name = (const char *)m + st->sh_offset + sym[k].st_name;

			if (sym[k].st_name >= st->sh_size)
				continue;
			if (ELF64_ST_TYPE(sym[k].st_info) == STT_FILE)
				file = name;
			if (sym[k].st_shndx == SHN_UNDEF || ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC)
				continue;
			rc = fn(arg, name, &sym[k],
				ELF64_ST_BIND(sym[k].st_info) == STB_LOCAL ? file : NULL);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Whether the ELF file mapped at @m (@n bytes, checked by elf_functions)
 * has a .symtab: it was not stripped. */
static int elf_symtab(const unsigned char *m, size_t n)
{
	const Elf64_Ehdr *eh = (const void *)m;
	const Elf64_Shdr *sh;
	unsigned i;

	if (n < sizeof(*eh) || eh->e_shoff > n ||
	    (size_t)eh->e_shnum * sizeof(*sh) > n - eh->e_shoff)
		return 0;
	sh = (const void *)(m + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			return 1;
	return 0;
}

/* Map the program's executable file: returns its bytes (*@n of them), or
 * NULL; unmapped with munmap_exe. */
static const unsigned char *map_exe(size_t *n)
{
	struct stat st;
	void *m = MAP_FAILED;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (syscall(SYS_fstat, fd, &st) == 0 && st.st_size > 0) {
		*n = (size_t)st.st_size;
		m = (void *)syscall(SYS_mmap, NULL, *n, PROT_READ, MAP_PRIVATE, fd, 0);
	}
	syscall(SYS_close, fd);
	return m == MAP_FAILED ? NULL : m;
}

static int is_h5open(void *arg, const char *name, const Elf64_Sym *sym, const char *file)
{
	(void)arg;
	(void)sym;
	(void)file;
	return strcmp(name, "H5open") == 0;
}

/*
 * HDF5 linked into the program: its code, as address ranges.  The linker
 * lays out an archive's members one after the other, so HDF5's functions
 * make a few runs among the program's.  A function is HDF5's by its name
 * (H5...), or, when file-local, by the file it came from (H5*.c, whose
 * FILE symbol precedes its local ones); its portability layer's HD...,
 * Pflock and Nflock, and local functions of no known file, may lie inside
 * a run, but neither begins nor ends one; a function of another file or
 * name ends it.  Where the table names files, a run must hold a function
 * of an HDF5 file: a program's own function named H5_something is not
 * HDF5's.
 */
#define H5S_MAX 256
size_t tg_h5s_n;
static int h5_linked;	/* the executable defines H5open (tg_h5_static_find) */
static uintptr_t h5s_lo[H5S_MAX], h5s_hi[H5S_MAX];

enum { FS_OTHER, FS_MAYBE, FS_NAMED, FS_H5FILE };

struct fsym {
	uintptr_t lo, hi;
	int kind;	/* FS_* */
};

struct fsyms {
	struct fsym *v;
	size_t n, cap;
	int files;	/* the table names the files of local functions */
};

static int add_fsym(void *arg, const char *name, const Elf64_Sym *sym, const char *file)
{
	struct fsyms *f = arg;
	struct fsym *v;

	if (f->n == f->cap)
		return 1;
	v = &f->v[f->n++];
	v->lo = (uintptr_t)sym->st_value;
	v->hi = (uintptr_t)(sym->st_value + sym->st_size);
	if (file) {
		f->files = 1;
		v->kind = strncmp(file, "H5", 2) == 0 ? FS_H5FILE : FS_OTHER;
	} else if (name[0] == 'H' && name[1] == '5') {
		v->kind = FS_NAMED;
	} else {
		v->kind = (name[0] == 'H' && name[1] == 'D') || strcmp(name, "Pflock") == 0 ||
			  strcmp(name, "Nflock") == 0 || ELF64_ST_BIND(sym->st_info) == STB_LOCAL ?
			  FS_MAYBE : FS_OTHER;
	}
	return 0;
}

static int count_fsym(void *arg, const char *name, const Elf64_Sym *sym, const char *file)
{
	(void)name;
	(void)sym;
	(void)file;
	++*(size_t *)arg;
	return 0;
}

static int fsym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Add [@lo, @hi) to the runs; past H5S_MAX, the last run is stretched
 * over it (what lies between is taken as HDF5's, rather than HDF5's code
 * as the program's). */
static size_t add_run(size_t runs, uintptr_t lo, uintptr_t hi)
{
	if (runs == H5S_MAX) {
		h5s_hi[runs - 1] = hi;
		return runs;
	}
	h5s_lo[runs] = lo;
	h5s_hi[runs] = hi;
	return runs + 1;
}

/* The code segments of HDF5's shared libraries (libhdf5*.so) loaded now,
 * added to the runs (*@arg of them). */
static int shared_runs(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *name = info->dlpi_name, *b;
	size_t *runs = arg;
	int i;

	(void)size;
	if (!name || !(b = strrchr(name, '/')) || strncmp(b + 1, "libhdf5", 7) != 0)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			*runs = add_run(*runs, info->dlpi_addr + ph->p_vaddr,
					info->dlpi_addr + ph->p_vaddr + ph->p_memsz);
	}
	return 0;
}

/* The runs in address order (tg_h5s_in searches them). */
static void sort_runs(size_t runs)
{
	size_t i, k;

	for (i = 1; i < runs; i++)
		for (k = i; k > 0 && h5s_lo[k - 1] > h5s_lo[k]; k--) {
			uintptr_t lo = h5s_lo[k], hi = h5s_hi[k];
			h5s_lo[k] = h5s_lo[k - 1];
			h5s_hi[k] = h5s_hi[k - 1];
			h5s_lo[k - 1] = lo;
			h5s_hi[k - 1] = hi;
		}
}

static int main_base(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = (uintptr_t)info->dlpi_addr;
	return 1;	/* the first is the program */
}

/*
 * Called once, at the start (tg_ctor):
 * when no shared HDF5 library is loaded and the program's executable
 * defines H5open, find the runs of HDF5's code in it, so that the MPI,
 * MPI-IO and POSIX calls HDF5 makes are recorded as made inside HDF5
 * (tg_enter_as), as they are when HDF5 is a shared library: HDF5's own
 * MPI_File_get_size in H5Fclose is then not the program's look at the
 * file's size.  So too for a shared HDF5 when the HDF5 layer is not
 * traced (no wrapper nests its calls then): its code segments are the
 * runs.  (A stripped program has no table of its local functions:
 * nothing is found there, and its HDF5's calls stay the program's.)
 */
void tg_h5_static_find(void)
{
	struct fsyms f = { NULL, 0, 0, 0 };
	const unsigned char *m;
	uintptr_t base = 0, hi;
	size_t n = 0, i, j, runs = 0;

	static int done;

	if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
		return;
	if (dlsym(RTLD_NEXT, "H5Fcreate")) {
		/* a shared HDF5: its wrappers nest its calls, but for a run
		 * that does not trace the HDF5 layer */
		if (!(tg_layer_mask & (1u << TG_LAYER_HDF5))) {
			dl_iterate_phdr(shared_runs, &runs);
			sort_runs(runs);
			__atomic_store_n(&tg_h5s_n, runs, __ATOMIC_RELEASE);
		}
		return;
	}
	if (!(m = map_exe(&n)))
		return;
	if (elf_functions(m, n, is_h5open, NULL)) {
		h5_linked = 1;
		elf_functions(m, n, count_fsym, &f.cap);
		f.v = (void *)syscall(SYS_mmap, NULL, f.cap * sizeof(*f.v) + 1,
				      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (f.v == MAP_FAILED)
			f.v = NULL;
	}
	if (f.v) {
		elf_functions(m, n, add_fsym, &f);
		qsort(f.v, f.n, sizeof(*f.v), fsym_cmp);
		dl_iterate_phdr(main_base, &base);
		for (i = 0; i < f.n; i = j) {
			size_t last = i;
			int h5file = 0;

			if (f.v[i].kind < FS_NAMED) {
				j = i + 1;
				continue;
			}
			hi = f.v[i].hi;
			for (j = i; j < f.n && f.v[j].kind != FS_OTHER; j++) {
				if (f.v[j].kind >= FS_NAMED)
					last = j;
				h5file |= f.v[j].kind == FS_H5FILE;
			}
			for (j = i; j <= last; j++)
				if (f.v[j].hi > hi)
					hi = f.v[j].hi;
			j = last + 1;
			if (h5file || !f.files)
				runs = add_run(runs, base + f.v[i].lo, base + hi);
		}
		syscall(SYS_munmap, f.v, f.cap * sizeof(*f.v) + 1);
	}
	syscall(SYS_munmap, m, n);
	__atomic_store_n(&tg_h5s_n, runs, __ATOMIC_RELEASE);
}

int tg_h5s_in(const void *ra)
{
	uintptr_t a = (uintptr_t)ra;
	size_t lo = 0, hi = __atomic_load_n(&tg_h5s_n, __ATOMIC_ACQUIRE);

	while (lo < hi) {	/* the first run ending after a */
		size_t mid = (lo + hi) / 2;
		if (h5s_hi[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < tg_h5s_n && h5s_lo[lo] <= a;
}

/*
 * A program built with h5pcc (Debian's links libhdf5.a by default) calls
 * its own copy of HDF5: no preloaded wrapper ever sees those calls, and the
 * trace would have an empty HDF5 layer with nothing said.  At exit, when
 * the HDF5 layer was asked for and no shared HDF5 library was loaded, and
 * the start found H5open in the executable, rank 0 (or the process,
 * outside MPI) says so; rank 0 of an MPI run also says when a stripped
 * executable holds HDF5's version string.
 */
void tg_h5_check_static(int rank)
{
	static const char msg[] =
		"tangram: HDF5 is linked into this program statically (h5pcc's default): "
		"its HDF5 calls are not traced, only the MPI and POSIX calls HDF5 makes; "
		"build with 'h5pcc -shlib' or link -lhdf5\n";
	static const char stripped[] =
		"tangram: HDF5 is linked into this stripped program statically: "
		"its HDF5 calls are not traced, and the calls HDF5 makes count as the program's; "
		"build with 'h5pcc -shlib' or link -lhdf5\n";
	static const char vers[] = "HDF5 library version: ";
	const unsigned char *m;
	size_t n = 0;
	int found;

	if (rank > 0 || !(tg_layer_mask & (1u << TG_LAYER_HDF5)) ||
	    dlsym(RTLD_NEXT, "H5Fcreate"))
		return;
	if (h5_linked) {	/* (the start's look at the executable) */
		tg_say(msg, sizeof(msg) - 1);
		return;
	}
	/* an MPI rank's stripped executable: HDF5's version string gives it
	 * away (not looked for in every other process's) */
	if (rank < 0 || !(m = map_exe(&n)))
		return;
	found = !elf_symtab(m, n) && memmem(m, n, vers, sizeof(vers) - 1);
	syscall(SYS_munmap, m, n);
	if (found)
		tg_say(stripped, sizeof(stripped) - 1);
}
