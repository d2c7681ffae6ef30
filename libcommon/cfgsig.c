/*
 * cfgsig.c - call signatures (tangram-cfg(5), "Signatures"): a record
 * without its times, as a list of words, encoded so that the same call in
 * another iteration or on another rank gives the same words; and the state
 * both the encoder and the decoder keep to make that reversible.
 *
 * The encoder makes every choice (which arguments are relative to the
 * rank, which are offsets, which requests a call completes) and writes the
 * choice into the words; the decoder only follows them.  So the heuristics
 * below can improve without changing the format.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cfgint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltab.h"
#include "kinds.h"
#include "names.h"
#include "tg.h"
#include "banned.h"

/* ---- buffers, hashing, strings, maps ------------------------------------- */

int tg_words_push(struct tg_words *v, int64_t x)
{
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 64;
		int64_t *nw = realloc(v->w, nc * sizeof(*nw));
		if (!nw)
			return -1;
		v->w = nw;
		v->cap = nc;
	}
	v->w[v->n++] = x;
	return 0;
}

void tg_words_release(struct tg_words *v)
{
	free(v->w);
	memset(v, 0, sizeof(*v));
}

int tg_bytes_put(struct tg_bytes *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t nc = b->cap ? b->cap : 256;
		unsigned char *nb;
		while (nc < b->n + n)
			nc *= 2;
		if (!(nb = realloc(b->b, nc)))
			return -1;
		b->b = nb;
		b->cap = nc;
	}
	if (n)
		memcpy(b->b + b->n, p, n);
	b->n += n;
	return 0;
}

int tg_bytes_uvar(struct tg_bytes *b, uint64_t x)
{
	unsigned char t[10];
	size_t k = 0;

	while (x >= 0x80) {
		t[k++] = (unsigned char)(x | 0x80);
		x >>= 7;
	}
	t[k++] = (unsigned char)x;
	return tg_bytes_put(b, t, k);
}

int tg_bytes_svar(struct tg_bytes *b, int64_t x)
{
	return tg_bytes_uvar(b, ((uint64_t)x << 1) ^ (uint64_t)(x >> 63));
}

void tg_bytes_release(struct tg_bytes *b)
{
	free(b->b);
	memset(b, 0, sizeof(*b));
}

uint64_t tg_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *c = p;
	uint64_t h = seed ^ 0x9e3779b97f4a7c15ull ^ (n * 0xff51afd7ed558ccdull);
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x;
		memcpy(&x, c + i, 8);
		h = (h ^ (x * 0x87c37b91114253d5ull)) * 0x4cf5ad432745937full;
		h ^= h >> 31;
	}
	for (; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return h;
}

static int strtab_grow_idx(struct tg_strtab *t)
{
	size_t nc = t->idxcap ? t->idxcap * 2 : 1024, i;
	uint32_t *ni = calloc(nc, sizeof(*ni));

	if (!ni)
		return -1;
	for (i = 0; i < t->n; i++) {
		size_t j = tg_hash_bytes(t->s[i], t->len[i], 0) & (nc - 1);
		while (ni[j])
			j = (j + 1) & (nc - 1);
		ni[j] = (uint32_t)i + 1;
	}
	free(t->idx);
	t->idx = ni;
	t->idxcap = nc;
	return 0;
}

int64_t tg_strtab_intern(struct tg_strtab *t, const char *s, size_t len)
{
	size_t j;
	char *c;

	if ((t->n + 1) * 2 > t->idxcap && strtab_grow_idx(t) < 0)
		return -1;
	j = tg_hash_bytes(s, len, 0) & (t->idxcap - 1);
	for (; t->idx[j]; j = (j + 1) & (t->idxcap - 1)) {
		size_t i = t->idx[j] - 1;
		if (t->len[i] == len && memcmp(t->s[i], s, len) == 0)
			return (int64_t)i;
	}
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 64;
		char **ns = realloc(t->s, nc * sizeof(*ns));
		size_t *nl;
		if (!ns)
			return -1;
		t->s = ns;
		if (!(nl = realloc(t->len, nc * sizeof(*nl))))
			return -1;
		t->len = nl;
		t->cap = nc;
	}
	if (!(c = malloc(len + 1)))
		return -1;
	memcpy(c, s, len);
	c[len] = 0;
	t->s[t->n] = c;
	t->len[t->n] = len;
	t->idx[j] = (uint32_t)t->n + 1;
	return (int64_t)t->n++;
}

void tg_strtab_release(struct tg_strtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->len);
	free(t->idx);
	memset(t, 0, sizeof(*t));
}

static size_t map_slot(const struct tg_map *m, uint64_t k)
{
	size_t i = (size_t)((k * 0x9e3779b97f4a7c15ull) >> 20) & (m->cap - 1);

	while (m->used[i] && m->k[i] != k)
		i = (i + 1) & (m->cap - 1);
	return i;
}

int tg_map_get(const struct tg_map *m, uint64_t k, uint64_t *v)
{
	size_t i;

	if (!m->cap)
		return 0;
	i = map_slot(m, k);
	if (!m->used[i])
		return 0;
	*v = m->v[i];
	return 1;
}

int tg_map_put(struct tg_map *m, uint64_t k, uint64_t v)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		struct tg_map nm;
		size_t j;
		nm.cap = m->cap ? m->cap * 2 : 64;
		nm.n = 0;
		nm.k = malloc(nm.cap * sizeof(uint64_t));
		nm.v = malloc(nm.cap * sizeof(uint64_t));
		nm.used = calloc(nm.cap, 1);
		if (!nm.k || !nm.v || !nm.used) {
			free(nm.k);
			free(nm.v);
			free(nm.used);
			return -1;
		}
		for (j = 0; j < m->cap; j++)
			if (m->used[j]) {
				i = map_slot(&nm, m->k[j]);
				nm.used[i] = 1;
				nm.k[i] = m->k[j];
				nm.v[i] = m->v[j];
				nm.n++;
			}
		tg_map_release(m);
		*m = nm;
	}
	i = map_slot(m, k);
	if (!m->used[i]) {
		m->used[i] = 1;
		m->k[i] = k;
		m->n++;
	}
	m->v[i] = v;
	return 0;
}

void tg_map_release(struct tg_map *m)
{
	free(m->k);
	free(m->v);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

/* ---- what each function's arguments are (computed once per function) ----- */

enum { C_PLAIN = 0, C_OFFSET, C_RANK, C_ME };
enum { REL_NONE = 0, REL_WAIT, REL_TEST, REL_TESTALL, REL_ANY, REL_TESTANY,
       REL_SOME, REL_FREE };

struct plan {
	int ready;
	int8_t comm;		/* first communicator argument */
	int8_t handle;		/* first FD, STREAM or MPI file argument */
	int8_t cnt, size, dtype, iov;	/* the bytes a call moves: the unit of LIN */
	int8_t retarg;		/* the return value is relative to this argument */
	int8_t flag, indx, indices;
	int8_t fds;		/* an array of new descriptors (pipe) */
	uint8_t closes;		/* close(fd) */
	uint8_t relmode;
	uint8_t persistent;	/* makes persistent requests */
	uint8_t cls[TG_MAX_ARGS];
};

static struct plan *plans;
static unsigned nplans;
static uint64_t comm_self = UINT64_MAX;	/* the encoded MPI_COMM_SELF */

static int name_in(const char *n, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(n, *list) == 0)
			return 1;
	return 0;
}

static const struct plan *plan_of(const struct tg_calldesc *d)
{
	static const char *const ranks[] = { "dest", "source", "target_rank", "rank_source",
					     "rank_dest", "rank", NULL };
	static const char *const mes[] = { "tag", "sendtag", "recvtag", "color", "key", NULL };
	static const char *const counts[] = { "count", "nbyte", "nmemb", "len", NULL };
	struct plan *p;
	int i, mpi;

	if (!plans) {
		const struct tg_mpiname *m;
		nplans = tg_call_idmax();
		if (!(plans = calloc(nplans ? nplans : 1, sizeof(*plans))))
			return NULL;
		for (m = tg_mpi_names; m->name; m++)
			if (m->kind == TG_H_COMM && strcmp(m->name, "MPI_COMM_SELF") == 0)
				comm_self = (uint64_t)m->val << 1 | 1;
	}
	if (d->id >= nplans)
		return NULL;
	p = &plans[d->id];
	if (p->ready)
		return p;
	p->comm = p->handle = p->cnt = p->size = p->dtype = p->iov = p->retarg = -1;
	p->flag = p->indx = p->indices = p->fds = -1;
	mpi = d->layer == TG_LAYER_MPI || d->layer == TG_LAYER_MPIIO;
	for (i = 0; i < d->nargs && i < TG_MAX_ARGS; i++) {
		const struct tg_argdesc *a = &d->args[i];
		if (p->comm < 0 && a->kind == TG_K_MPIH && a->sub == TG_H_COMM)
			p->comm = (int8_t)i;
		if (p->handle < 0 && (a->kind == TG_K_FD || a->kind == TG_K_STREAM ||
				      (a->kind == TG_K_MPIH && a->sub == TG_H_FILE)))
			p->handle = (int8_t)i;
		if (a->kind == TG_K_SIGNED_OFF ||
		    (a->kind == TG_K_INT && d->layer == TG_LAYER_MPIIO &&
		     strcmp(a->name, "offset") == 0))
			p->cls[i] = C_OFFSET;
		else if (a->kind == TG_K_INT && mpi && name_in(a->name, ranks))
			p->cls[i] = C_RANK;
		else if (a->kind == TG_K_INT && mpi && name_in(a->name, mes))
			p->cls[i] = C_ME;
		if ((a->kind == TG_K_UINT || a->kind == TG_K_INT) && p->cnt < 0 &&
		    name_in(a->name, counts))
			p->cnt = (int8_t)i;
		if (a->kind == TG_K_UINT && strcmp(a->name, "size") == 0 && p->size < 0)
			p->size = (int8_t)i;
		if (a->kind == TG_K_MPIH && a->sub == TG_H_DTYPE && p->dtype < 0)
			p->dtype = (int8_t)i;
		if (a->kind == TG_K_IOV && p->iov < 0)
			p->iov = (int8_t)i;
		if (a->kind == TG_K_INT && strcmp(a->name, "flag") == 0)
			p->flag = (int8_t)i;
		if (a->kind == TG_K_INT && strcmp(a->name, "indx") == 0)
			p->indx = (int8_t)i;
		if (a->kind == TG_K_INTARR && strcmp(a->name, "array_of_indices") == 0)
			p->indices = (int8_t)i;
		if (a->kind == TG_K_INTARR && a->dir == TG_OUT && strcmp(a->name, "fds") == 0)
			p->fds = (int8_t)i;
	}
	if ((d->layer == TG_LAYER_POSIX || d->layer == TG_LAYER_STDIO) &&
	    (d->retkind == TG_K_INT || d->retkind == TG_K_UINT ||
	     d->retkind == TG_K_SIGNED_OFF)) {
		for (i = 0; i < d->nargs && i < TG_MAX_ARGS && p->retarg < 0; i++)
			if (d->retkind == TG_K_SIGNED_OFF && d->args[i].kind == TG_K_SIGNED_OFF)
				p->retarg = (int8_t)i;
		if (p->retarg < 0 && d->retkind != TG_K_SIGNED_OFF && p->cnt >= 0)
			p->retarg = p->cnt;
	}
	p->closes = d->layer == TG_LAYER_POSIX && strcmp(d->name, "close") == 0 &&
		    d->nargs >= 1 && d->args[0].kind == TG_K_FD;
	if (mpi) {
		size_t l = strlen(d->name);
		if (strcmp(d->name, "MPI_Wait") == 0 || strcmp(d->name, "MPI_Waitall") == 0)
			p->relmode = REL_WAIT;
		else if (strcmp(d->name, "MPI_Test") == 0)
			p->relmode = REL_TEST;
		else if (strcmp(d->name, "MPI_Testall") == 0)
			p->relmode = REL_TESTALL;
		else if (strcmp(d->name, "MPI_Waitany") == 0)
			p->relmode = REL_ANY;
		else if (strcmp(d->name, "MPI_Testany") == 0)
			p->relmode = REL_TESTANY;
		else if (strcmp(d->name, "MPI_Waitsome") == 0 ||
			 strcmp(d->name, "MPI_Testsome") == 0)
			p->relmode = REL_SOME;
		else if (strcmp(d->name, "MPI_Request_free") == 0)
			p->relmode = REL_FREE;
		p->persistent = (l > 5 && strcmp(d->name + l - 5, "_init") == 0) ||
				(l > 7 && strcmp(d->name + l - 7, "_init_c") == 0);
	}
	p->ready = 1;
	return p;
}

/* Bytes of one element of predefined MPI datatype @enc (MPICH keeps the
 * size in the handle of its builtin types); 1 if unknown. */
static uint64_t dtype_size(uint64_t enc)
{
	uint64_t v = enc >> 1;

	if ((enc & 1) && (v & 0xff000000u) == 0x4c000000u && ((v >> 8) & 0xff))
		return (v >> 8) & 0xff;
	return 1;
}

/* ---- state ------------------------------------------------------------------ */

void tg_sig_init(struct tg_sigstate *st, int64_t hrank, int64_t srank)
{
	memset(st, 0, sizeof(*st));
	st->world_rank = hrank;
	st->srank = srank >= 0 ? srank : hrank;
	st->minfree = 1;
	st->lastfd = -1;
}

void tg_sig_release(struct tg_sigstate *st)
{
	size_t i;

	free(st->lastseq);
	free(st->lastpar);
	for (i = 0; st->bufrec && i < st->nthreads; i++)
		free(st->bufrec[i]);
	free(st->bufrec);
	free(st->bufmax);
	tg_map_release(&st->comms);
	tg_map_release(&st->offs);
	tg_map_release(&st->seen);
	tg_map_release(&st->poolidx);
	for (i = 0; i < st->npools; i++)
		free(st->pools[i].slot);
	free(st->pools);
	free(st->bind);
	free(st->release);
	free(st->clock);
	free(st->rep);
	free(st->local);
	tg_map_release(&st->inh);
	tg_map_release(&st->fdopen);
	tg_map_release(&st->fdsym);
	free(st->known);
	tg_words_release(&st->tmp);
	tg_words_release(&st->reqs);
	tg_words_release(&st->skip);
	memset(st, 0, sizeof(*st));
}

void tg_sigarena_release(struct tg_sigarena *ar)
{
	free(ar->a);
	free(ar->c);
	memset(ar, 0, sizeof(*ar));
}

static int64_t *lastseq(struct tg_sigstate *st, uint64_t tid)
{
	if (tid > (1u << 20))
		return NULL;
	if (tid >= st->nthreads) {
		size_t nn = st->nthreads ? st->nthreads : 8, i;
		int64_t *n, *pa;
		uint64_t *b;
		struct tg_bufrecent **br;
		while (nn <= tid)
			nn *= 2;
		if (!(n = realloc(st->lastseq, nn * sizeof(*n))))
			return NULL;
		st->lastseq = n;
		if (!(pa = realloc(st->lastpar, nn * sizeof(*pa))))
			return NULL;
		st->lastpar = pa;
		if (!(b = realloc(st->bufmax, nn * sizeof(*b))))
			return NULL;
		st->bufmax = b;
		if (!(br = realloc(st->bufrec, nn * sizeof(*br))))
			return NULL;
		st->bufrec = br;
		for (i = st->nthreads; i < nn; i++) {
			n[i] = -1;
			pa[i] = -1;
			b[i] = 0;
			br[i] = NULL;
		}
		st->nthreads = nn;
	}
	return &st->lastseq[tid];
}

/* ---- seqs: thread 0 counts without the other threads' ---------------------- */

/* Foreign seqs below @s (@le: up to @s). */
static uint64_t fcount(const struct tg_sigstate *st, int64_t s, int le)
{
	size_t lo = 0, hi = st->nforeign;

	if (s < 0)
		return 0;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (st->foreign[m] < (uint64_t)s + (le ? 1 : 0))
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* The virtual seq of @s on thread @tid: for thread 0 its place among the
 * seqs that are not foreign, for the others its place among the foreign. */
static int64_t vseq(const struct tg_sigstate *st, uint64_t tid, int64_t s)
{
	if (s < 0)
		return -1;
	return tid == 0 ? s - (int64_t)fcount(st, s, 0) : (int64_t)fcount(st, s, 0);
}

/* The seq of virtual seq @v on thread @tid; -1 if there is none. */
static int64_t rseq(const struct tg_sigstate *st, uint64_t tid, int64_t v)
{
	int64_t s, n;
	int k;

	if (v < 0)
		return -1;
	if (tid != 0)
		return (uint64_t)v < st->nforeign ? (int64_t)st->foreign[v] : -1;
	for (s = v, k = 0; k < 64; k++, s = n)
		if ((n = v + (int64_t)fcount(st, s, 1)) == s)
			return s;
	return -1;
}

/* The seq word of a record at @seq after @last on thread @tid: even, twice
 * the step between virtual seqs, so that the other threads' calls do not
 * count; odd, the plain step, where the virtual one does not lead back. */
static int64_t seq_word(const struct tg_sigstate *st, uint64_t tid, int64_t last, uint64_t seq)
{
	int64_t d = vseq(st, tid, (int64_t)seq) - vseq(st, tid, last);

	if (!st->seqv)
		return (int64_t)(seq - (uint64_t)last);
	if (rseq(st, tid, vseq(st, tid, last) + d) == (int64_t)seq)
		return (int64_t)((uint64_t)d << 1);
	return (int64_t)((seq - (uint64_t)last) << 1 | 1);
}

static int seq_unword(const struct tg_sigstate *st, uint64_t tid, int64_t last, int64_t w,
		      uint64_t *seq)
{
	int64_t s;

	if (!st->seqv || (w & 1)) {
		*seq = (uint64_t)last + (uint64_t)(st->seqv ? w >> 1 : w);
		return 0;
	}
	if ((s = rseq(st, tid, vseq(st, tid, last) + (w >> 1))) < 0)
		return -1;
	*seq = (uint64_t)s;
	return 0;
}

static uint64_t wrank(const struct tg_sigstate *st)
{
	return st->world_rank < 0 ? 0 : (uint64_t)st->world_rank;
}

/* The caller's rank in the communicator argument @comm (encoded), or in
 * MPI_COMM_WORLD. */
static uint64_t caller_rank(const struct tg_sigstate *st, int has, uint64_t comm)
{
	uint64_t pos;

	if (!has)
		return wrank(st);
	if (comm == comm_self)
		return 0;
	if (!(comm & 1) && tg_map_get(&st->comms, comm, &pos) && pos)
		return pos - 1;
	return wrank(st);
}

static uint64_t handle_key(const struct tg_calldesc *d, const struct plan *p,
			   const struct tg_val *args)
{
	uint64_t tag;

	if (p->handle < 0)
		return 0;
	switch (d->args[p->handle].kind) {
	case TG_K_FD: tag = 1; break;
	case TG_K_STREAM: tag = 2; break;
	default: tag = 3;
	}
	return tag << 58 | ((uint64_t)args[p->handle].i & ((1ull << 58) - 1));
}

static int comm_define(struct tg_sigstate *st, uint64_t id, const int64_t *m, int64_t n)
{
	int64_t i;
	uint64_t pos = 0;

	if (st->world_rank >= 0)
		for (i = 0; i < n; i++)
			if (m[i] == st->world_rank) {
				pos = (uint64_t)i + 1;
				break;
			}
	return tg_map_put(&st->comms, id, pos);
}

/* ---- request pools ------------------------------------------------------ */

static int bind_room(struct tg_sigstate *st, uint64_t id)
{
	if (id >= st->nbind) {
		size_t nn = st->nbind ? st->nbind : 64, i;
		struct tg_bind *nb;
		while (nn <= id)
			nn *= 2;
		if (!(nb = realloc(st->bind, nn * sizeof(*nb))))
			return -1;
		for (i = st->nbind; i < nn; i++) {
			nb[i].pool = UINT32_MAX;
			nb[i].persist = 0;
		}
		st->bind = nb;
		st->nbind = nn;
	}
	return 0;
}

static int is_bound(const struct tg_sigstate *st, uint64_t id)
{
	return id < st->nbind && st->bind[id].pool != UINT32_MAX;
}

static void unbind(struct tg_sigstate *st, uint64_t id)
{
	struct tg_bind *b;

	if (!is_bound(st, id))
		return;
	b = &st->bind[id];
	st->pools[b->pool].slot[b->slot] = 0;
	b->pool = UINT32_MAX;
	b->persist = 0;
	if (id < st->minfree)
		st->minfree = id;
}

static int64_t pool_find(const struct tg_sigstate *st, uint32_t key)
{
	uint64_t v;

	return tg_map_get(&st->poolidx, key, &v) ? (int64_t)v : -1;
}

static int bind(struct tg_sigstate *st, uint64_t id, uint32_t key, int persist)
{
	int64_t pi = pool_find(st, key);
	struct tg_pool *p;
	size_t s;

	if (id == 0 || id > TG_SIG_MAXREQ || bind_room(st, id) < 0)
		return -1;
	unbind(st, id);
	if (pi < 0) {
		if (st->npools == st->cappools) {
			size_t nc = st->cappools ? st->cappools * 2 : 16;
			struct tg_pool *np = realloc(st->pools, nc * sizeof(*np));
			if (!np)
				return -1;
			st->pools = np;
			st->cappools = nc;
		}
		if (tg_map_put(&st->poolidx, key, st->npools) < 0)
			return -1;
		pi = (int64_t)st->npools++;
		memset(&st->pools[pi], 0, sizeof(st->pools[pi]));
		st->pools[pi].key = key;
	}
	p = &st->pools[pi];
	for (s = 0; s < p->n && p->slot[s]; s++)
		;
	if (s == p->n) {
		if (p->n == p->cap) {
			size_t nc = p->cap ? p->cap * 2 : 4;
			uint32_t *ns = realloc(p->slot, nc * sizeof(*ns));
			if (!ns)
				return -1;
			p->slot = ns;
			p->cap = nc;
		}
		p->n++;
	}
	p->slot[s] = (uint32_t)id;
	st->bind[id].pool = (uint32_t)pi;
	st->bind[id].slot = (uint32_t)s;
	st->bind[id].persist = (uint8_t)persist;
	while (st->minfree < st->nbind && st->bind[st->minfree].pool != UINT32_MAX)
		st->minfree++;
	return 0;
}

static int release_later(struct tg_sigstate *st, uint64_t id)
{
	if (st->nrelease == st->caprelease) {
		size_t nc = st->caprelease ? st->caprelease * 2 : 16;
		uint32_t *nr = realloc(st->release, nc * sizeof(*nr));
		if (!nr)
			return -1;
		st->release = nr;
		st->caprelease = nc;
	}
	st->release[st->nrelease++] = (uint32_t)id;
	return 0;
}

static void release_now(struct tg_sigstate *st)
{
	size_t i;

	for (i = 0; i < st->nrelease; i++)
		unbind(st, st->release[i]);
	st->nrelease = 0;
}

/* ---- encoding ------------------------------------------------------------ */

#define PUSH(v) do { if (tg_words_push(w, (int64_t)(v)) < 0) return -1; } while (0)

static int enc_array(struct tg_words *w, const int64_t *a, int64_t n)
{
	int64_t i, runs = 0;

	PUSH(n);
	if (n <= 0)
		return 0;
	for (i = 0; i < n; runs++) {
		int64_t j = i + 1;
		if (j < n) {
			uint64_t step = (uint64_t)a[j] - (uint64_t)a[i];
			while (j + 1 < n && (uint64_t)a[j + 1] - (uint64_t)a[j] == step)
				j++;
			j++;
		}
		i = j;
	}
	if (3 * runs >= n) {
		PUSH(0);
		for (i = 0; i < n; i++)
			PUSH(a[i]);
		return 0;
	}
	PUSH(1);
	for (i = 0; i < n;) {
		int64_t j = i + 1;
		uint64_t step = 0;
		if (j < n) {
			step = (uint64_t)a[j] - (uint64_t)a[i];
			while (j + 1 < n && (uint64_t)a[j + 1] - (uint64_t)a[j] == step)
				j++;
			j++;
		}
		PUSH(a[i]);
		PUSH(step);
		PUSH(j - i);
		i = j;
	}
	return 0;
}

/* A string, as a reference or, when it holds the world rank in decimal as
 * its last run of digits, as a template with the rank left out. */
static int enc_str(struct tg_sigstate *st, struct tg_strtab *strs, struct tg_words *w,
		   const char *s)
{
	char dec[24];
	size_t len, dl, i, end;
	int64_t ref;

	if (!s) {
		PUSH(0);
		PUSH(0);
		return 0;
	}
	len = strlen(s);
	if (st->world_rank >= 0) {
		dl = (size_t)snprintf(dec, sizeof(dec), "%lld", (long long)st->world_rank);
		for (end = len; end > 0; end--)
			if (s[end - 1] >= '0' && s[end - 1] <= '9')
				break;
		for (i = end; i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9'; i--)
			;
		if (end > 0 && end - i == dl && memcmp(s + i, dec, dl) == 0) {
			char *t = malloc(len - dl + 1);
			if (!t)
				return -1;
			memcpy(t, s, i);
			memcpy(t + i, s + end, len - end + 1);
			ref = tg_strtab_intern(strs, t, len - dl);
			free(t);
			if (ref < 0)
				return -1;
			PUSH(1);
			PUSH(ref + 1);
			PUSH(i);
			return 0;
		}
	}
	if ((ref = tg_strtab_intern(strs, s, len)) < 0)
		return -1;
	PUSH(0);
	PUSH(ref + 1);
	return 0;
}

/* The encoder's choice for an offset @v on handle @hk, moving @unit bytes. */
static int enc_offset(struct tg_sigstate *st, struct tg_words *w, uint64_t hk,
		      int64_t v, uint64_t unit)
{
	uint64_t last = 0, dummy, b = wrank(st);

	if (tg_map_get(&st->seen, hk, &dummy)) {
		tg_map_get(&st->offs, hk, &last);
		PUSH(TG_F_DELTA);
		PUSH((uint64_t)v - last);
	} else if (unit && (uint64_t)v == unit * b) {
		PUSH(TG_F_LIN);
		PUSH(unit);
		PUSH(0);
	} else {
		/* (not LIN(v / rank, 0) where the rank divides v: that is
		 * the same as the others' only where v is a multiple of the
		 * rank for all, while OFF is shared as a local value) */
		PUSH(TG_F_OFF);
		PUSH(v);
	}
	if (tg_map_put(&st->seen, hk, 1) < 0 || tg_map_put(&st->offs, hk, (uint64_t)v) < 0)
		return -1;
	return 0;
}

static int enc_int(struct tg_sigstate *st, struct tg_words *w, int cls, int64_t v,
		   uint64_t cr, uint64_t hk, uint64_t unit)
{
	switch (cls) {
	case C_OFFSET:
		return enc_offset(st, w, hk, v, unit);
	case C_RANK:
		if (v >= 0) {
			if (tg_words_push(&st->skip, (int64_t)(w->n << 1 | 1)) < 0)
				return -1;
			PUSH(TG_F_REL);
			PUSH((uint64_t)v - cr);
			return 0;
		}
		break;
	case C_ME:
		if (cr > 0 && (uint64_t)v == cr) {
			if (tg_words_push(&st->skip, (int64_t)(w->n << 1 | 1)) < 0)
				return -1;
			PUSH(TG_F_REL);
			PUSH(0);
			return 0;
		}
		break;
	}
	if (tg_words_push(&st->skip, (int64_t)(w->n << 1 | 1)) < 0)
		return -1;
	PUSH(TG_F_ABS);
	PUSH(v);
	return 0;
}

/* A request placeholder: where it goes, which argument and element, the
 * encoded handle, whether the call made it and whether it completes it. */
struct reqph {
	size_t pos;
	uint64_t enc;
	int isnew, done;
};

static int req_placeholder(struct tg_sigstate *st, struct tg_words *w, uint64_t enc,
			   int isnew, int done)
{
	struct reqph ph;

	ph.pos = w->n;
	ph.enc = enc;
	ph.isnew = isnew;
	ph.done = done;
	PUSH(0);
	/* the placeholders are kept as raw words in st->reqs */
	if (tg_words_push(&st->reqs, (int64_t)ph.pos) < 0 ||
	    tg_words_push(&st->reqs, (int64_t)ph.enc) < 0 ||
	    tg_words_push(&st->reqs, ph.isnew | ph.done << 1) < 0)
		return -1;
	return 0;
}

/* Does the call complete the request at element @k of argument @i? */
static int completes(const struct plan *p, const struct tg_rec *r, int i, int64_t k)
{
	int64_t j;

	if (r->ret != 0)
		return 0;
	switch (p->relmode) {
	case REL_WAIT:
	case REL_FREE:
		return 1;
	case REL_TEST:
	case REL_TESTALL:
		return p->flag >= 0 && r->args[p->flag].i != 0;
	case REL_TESTANY:
		if (p->flag < 0 || r->args[p->flag].i == 0)
			return 0;
		/* fall through */
	case REL_ANY:
		return p->indx >= 0 && r->args[p->indx].i == k;
	case REL_SOME:
		if (p->indices < 0)
			return 0;
		for (j = 0; j < r->args[p->indices].i; j++)
			if (r->args[p->indices].arr[j] == k)
				return 1;
		return 0;
	}
	(void)i;
	return 0;
}

/* A signature being encoded: the record, its function's plan and what
 * its arguments are relative to (caller rank, handle, bytes moved). */
struct tg_sigenc {
	struct tg_sigstate *st;
	struct tg_strtab *strs;
	struct tg_words *w;
	const struct tg_rec *r;
	const struct tg_calldesc *d;
	const struct plan *p;
	uint64_t cr, hk, unit;
};

int tg_sk_put_plain(struct tg_sigenc *e, int i, const struct tg_val *v)
{
	struct tg_words *w = e->w;

	(void)i;
	PUSH(v->i);
	return 0;
}

int tg_sk_put_int(struct tg_sigenc *e, int i, const struct tg_val *v)
{
	return enc_int(e->st, e->w, e->p->cls[i], v->i, e->cr, e->hk, e->unit);
}

int tg_sk_put_str(struct tg_sigenc *e, int i, const struct tg_val *v)
{
	(void)i;
	return enc_str(e->st, e->strs, e->w, v->s);
}

int tg_sk_put_stat(struct tg_sigenc *e, int i, const struct tg_val *v)
{
	struct tg_words *w = e->w;

	(void)i;
	PUSH(v->present != 0);
	if (v->present) {
		PUSH(v->i);
		PUSH(v->u);
	}
	return 0;
}

int tg_sk_put_arr(struct tg_sigenc *e, int i, const struct tg_val *v)
{
	(void)i;
	return enc_array(e->w, v->arr, v->i);
}

int tg_sk_put_hsizes(struct tg_sigenc *e, int i, const struct tg_val *v)
{
	struct tg_words *w = e->w;

	(void)i;
	PUSH(v->present != 0);
	if (v->present && enc_array(w, v->arr, v->i) < 0)
		return -1;
	return 0;
}

int tg_sk_put_mpih(struct tg_sigenc *e, int i, const struct tg_val *v)
{
	const struct tg_argdesc *a = &e->d->args[i];
	struct tg_words *w = e->w;
	int isnew;

	if (a->sub != TG_H_REQ) {
		PUSH(v->i);
		return 0;
	}
	isnew = a->dir == TG_OUT && e->r->ret == 0;
	return req_placeholder(e->st, w, (uint64_t)v->i, isnew,
			       !isnew && completes(e->p, e->r, i, 0));
}

int tg_sk_put_mpiharr(struct tg_sigenc *e, int i, const struct tg_val *v)
{
	const struct tg_argdesc *a = &e->d->args[i];
	struct tg_words *w = e->w;
	int64_t k;

	PUSH(v->i);
	for (k = 0; k < v->i; k++) {
		if (a->sub != TG_H_REQ)
			PUSH(v->arr[k]);
		else if (req_placeholder(e->st, w, (uint64_t)v->arr[k],
					 a->dir == TG_OUT && e->r->ret == 0,
					 a->dir != TG_OUT && completes(e->p, e->r, i, k)) < 0)
			return -1;
	}
	return 0;
}

/* A status's source is relative to the caller's rank, but for 0: the
 * library leaves that in the statuses of receives from MPI_PROC_NULL,
 * which relative would differ on every rank at the edge of a grid. */
static int status_class(int64_t src)
{
	return src == 0 ? C_PLAIN : C_RANK;
}

int tg_sk_put_status(struct tg_sigenc *e, int i, const struct tg_val *v)
{
	struct tg_words *w = e->w;

	(void)i;
	PUSH(v->present != 0);
	if (v->present) {
		if (enc_int(e->st, w, status_class(v->i), v->i, e->cr, e->hk, 0) < 0 ||
		    tg_words_push(&e->st->skip, (int64_t)(w->n << 1)) < 0)
			return -1;
		PUSH(v->u);
	}
	return 0;
}

int tg_sk_put_statuses(struct tg_sigenc *e, int i, const struct tg_val *v)
{
	struct tg_words *w = e->w;
	int64_t k;

	(void)i;
	PUSH(v->i);
	for (k = 0; k < v->i; k++) {
		if (enc_int(e->st, w, status_class(v->arr[2 * k]), v->arr[2 * k], e->cr, e->hk,
			    0) < 0)
			return -1;
		if (tg_words_push(&e->st->skip, (int64_t)(w->n << 1)) < 0)
			return -1;
		PUSH(v->arr[2 * k + 1]);
	}
	return 0;
}

int tg_sk_put_iostatus(struct tg_sigenc *e, int i, const struct tg_val *v)
{
	struct tg_words *w = e->w;

	(void)i;
	PUSH(v->present != 0);
	if (v->present)
		PUSH(v->i);
	return 0;
}

static int local_push(struct tg_sigstate *st, uint64_t v)
{
	if (st->nlocal == st->caplocal) {
		size_t nc = st->caplocal ? st->caplocal * 2 : 8;
		uint64_t *n = realloc(st->local, nc * sizeof(*n));
		if (!n)
			return -1;
		st->local = n;
		st->caplocal = nc;
	}
	st->local[st->nlocal++] = v;
	return 0;
}

/* The index of local value @v, added if new. */
static int local_of(struct tg_sigstate *st, uint64_t v, uint64_t *k)
{
	if (tg_map_get(&st->inh, v, k))
		return 0;
	*k = st->nlocal;
	return local_push(st, v) < 0 || tg_map_put(&st->inh, v, *k) < 0 ? -1 : 0;
}

/* ---- descriptors: the kernel gives the lowest free one ------------------ */

static int fd_isopen(const struct tg_sigstate *st, uint64_t fd)
{
	uint64_t v;

	return tg_map_get(&st->fdopen, fd, &v) ? (int)v : fd < 3;
}

static int fd_mark(struct tg_sigstate *st, uint64_t fd, int open)
{
	if (!open && fd < st->fdlow)
		st->fdlow = fd;
	return tg_map_put(&st->fdopen, fd, (uint64_t)open);
}

/* The descriptor the next call that makes one should get, and the free
 * one above @from. */
static uint64_t fd_free(struct tg_sigstate *st)
{
	while (fd_isopen(st, st->fdlow))
		st->fdlow++;
	return st->fdlow;
}

static uint64_t fd_free_above(const struct tg_sigstate *st, uint64_t from)
{
	uint64_t v = from + 1;

	while (fd_isopen(st, v))
		v++;
	return v;
}

/* A call gave descriptor @fd: every free one below it must have been
 * taken where the trace does not show it. */
static int fd_birth(struct tg_sigstate *st, int64_t fd)
{
	uint64_t v, n = 0;

	if (fd < 0 || fd > INT32_MAX)
		return 0;
	for (v = fd_free(st); v < (uint64_t)fd && n < 4096; v = fd_free_above(st, v), n++)
		if (fd_mark(st, v, 1) < 0)
			return -1;
	if (st->nknown == st->capknown) {
		size_t nc = st->capknown ? st->capknown * 2 : 16;
		int64_t *nk = realloc(st->known, nc * sizeof(*nk));
		if (!nk)
			return -1;
		st->known = nk;
		st->capknown = nc;
	}
	st->known[st->nknown++] = fd;
	if (tg_map_put(&st->fdsym, (uint64_t)fd, st->nknown) < 0)
		return -1;
	return fd_mark(st, (uint64_t)fd, 1);
}

/* What a record did to the descriptors, once it is encoded or decoded. */
static int fd_after(struct tg_sigstate *st, const struct tg_calldesc *d,
		    const struct plan *p, const struct tg_rec *r)
{
	int64_t k;

	if (d->retkind == TG_K_FD && r->ret >= 0) {
		st->lastfd = r->ret;
		if (fd_birth(st, r->ret) < 0)
			return -1;
	}
	if (p->fds >= 0 && r->ret == 0 && r->args[p->fds].arr)
		for (k = 0; k < r->args[p->fds].i; k++)
			if (fd_birth(st, r->args[p->fds].arr[k]) < 0)
				return -1;
	if (p->closes && r->ret == 0 && r->args[0].i >= 0)
		return fd_mark(st, (uint64_t)r->args[0].i, 0);
	return 0;
}

/*
 * A descriptor from 3 on: one a call gave, as how many descriptors calls
 * gave since (form 3), so that the same files get the same words
 * whatever the numbers; one no call gave (a launcher's socket, inherited
 * with a number that differs from rank to rank) as a value the stream
 * keeps (form 2).
 */
int tg_sk_put_fd(struct tg_sigenc *e, int i, const struct tg_val *v)
{
	struct tg_sigstate *st = e->st;
	struct tg_words *w = e->w;
	uint64_t k;

	(void)i;
	if (v->i >= 3 && v->i <= INT32_MAX && tg_map_get(&st->fdsym, (uint64_t)v->i, &k)) {
		PUSH(3);
		PUSH(st->nknown - k + 1);
	} else if (v->i >= 3 && v->i <= INT32_MAX) {
		if (local_of(st, (uint64_t)v->i, &k) < 0 || fd_mark(st, (uint64_t)v->i, 1) < 0)
			return -1;
		PUSH(2);
		PUSH(k);
	} else {
		PUSH(0);
		PUSH(v->i);
	}
	return 0;
}

/* An array of new descriptors (pipe's) that are the lowest free ones, in
 * order: its count and mode 2, nothing else. */
static int fds_predicted(struct tg_sigstate *st, const struct tg_val *v)
{
	uint64_t f = fd_free(st);
	int64_t k;

	if (!v->arr || v->i > 64)
		return 0;
	for (k = 0; k < v->i; k++, f = fd_free_above(st, f))
		if ((uint64_t)v->arr[k] != f)
			return 0;
	return v->i > 0;
}

/* The recent buffers of thread @tid, made empty at the first call; NULL
 * when out of memory. */
static struct tg_bufrecent *bufrecent(struct tg_sigstate *st, uint64_t tid)
{
	struct tg_bufrecent **r = &st->bufrec[tid];

	if (!*r)
		*r = calloc(1, sizeof(**r));
	return *r;
}

/* Where @id is among the recent buffers @r, or -1. */
static int recent_find(const struct tg_bufrecent *r, uint64_t id)
{
	unsigned k;

	for (k = 0; k < r->n; k++)
		if (r->id[k] == id)
			return (int)k;
	return -1;
}

/* @id was named: it goes first (the last one drops out when full). */
static void recent_touch(struct tg_bufrecent *r, uint64_t id)
{
	int k = recent_find(r, id);
	unsigned m;

	if (k < 0) {
		if (r->n < TG_BUF_RECENT)
			r->n++;
		m = r->n - 1;
	} else {
		m = (unsigned)k;
	}
	memmove(&r->id[1], &r->id[0], m * sizeof(r->id[0]));
	r->id[0] = id;
}

/* Buffer ids: one named lately by its place among the thread's recent
 * ones, else relative to the newest the thread named. */
int tg_sk_put_buf(struct tg_sigenc *e, int i, const struct tg_val *v)
{
	struct tg_words *w = e->w;
	uint64_t *max = &e->st->bufmax[e->r->tid];
	struct tg_bufrecent *r;
	int k;

	(void)i;
	if (v->i <= 0) {
		PUSH(0);
		PUSH(v->i);
		return 0;
	}
	if (!(r = bufrecent(e->st, e->r->tid)))
		return -1;
	if ((uint64_t)v->i <= *max && (k = recent_find(r, (uint64_t)v->i)) >= 0) {
		PUSH(2);
		PUSH(k);
	} else {
		PUSH(1);
		PUSH((uint64_t)v->i - *max);
		if ((uint64_t)v->i > *max)
			*max = (uint64_t)v->i;
	}
	recent_touch(r, (uint64_t)v->i);
	return 0;
}

/* The pool of the requests of the call in @w (its words without them):
 * a hash of the words without the values of its integers and status tags
 * either (st->skip, tg_sig_chunks), so that a process that sends to
 * another neighbour, or to MPI_PROC_NULL, names its pools as the others
 * do.  -1 when out of memory. */
static int64_t pool_key(struct tg_sigstate *st, const struct tg_words *w)
{
	struct tg_words *t = &st->tmp;
	size_t q, j = 0;

	t->n = 0;
	for (q = 0; q < w->n; q++) {
		if (j < st->skip.n && (size_t)(st->skip.w[j] >> 1) == q) {
			q += st->skip.w[j++] & 1;
			if (tg_words_push(t, INT64_MIN) < 0)
				return -1;
		} else if (tg_words_push(t, w->w[q]) < 0) {
			return -1;
		}
	}
	return (uint32_t)tg_hash_bytes(t->w, t->n * sizeof(int64_t), 7);
}

static int enc_call(struct tg_sigstate *st, struct tg_strtab *strs,
		    const struct tg_rec *r, struct tg_words *w)
{
	const struct tg_calldesc *d = r->call ? r->call : tg_call_lookup(r->func);
	const struct plan *p;
	uint64_t cr, hk, unit = 0;
	struct tg_sigenc e;
	int64_t *ls;
	int i, nargs;

	if (!d || !(p = plan_of(d)))
		return -2;
	if (!(ls = lastseq(st, r->tid)))
		return -2;
	nargs = d->nargs < TG_MAX_ARGS ? d->nargs : TG_MAX_ARGS;
	st->reqs.n = 0;
	st->skip.n = 0;
	PUSH(TG_REC_CALL);
	PUSH(d->id);
	PUSH(r->tid);
	PUSH(seq_word(st, r->tid, *ls, r->seq));
	*ls = (int64_t)r->seq;
	PUSH(r->depth);
	/* a parent as the thread's last one: the calls a library makes
	 * inside one call of the program then repeat as the program's do */
	if (r->parent == -1) {
		PUSH(0);
	} else if (r->parent == st->lastpar[r->tid]) {
		PUSH(2);
	} else {
		PUSH(1);
		PUSH(r->seq - (uint64_t)r->parent);
		st->lastpar[r->tid] = r->parent;
	}
	PUSH(r->err);
	cr = caller_rank(st, p->comm >= 0, p->comm >= 0 ? (uint64_t)r->args[p->comm].i : 0);
	hk = handle_key(d, p, r->args);
	if (p->iov >= 0) {
		int64_t k;
		for (k = 0; k < r->args[p->iov].i; k++)
			unit += (uint64_t)r->args[p->iov].arr[k];
	} else if (p->cnt >= 0 && r->args[p->cnt].i > 0) {
		unit = (uint64_t)r->args[p->cnt].i;
		if (p->size >= 0)
			unit *= (uint64_t)r->args[p->size].i;
		if (p->dtype >= 0)
			unit *= dtype_size((uint64_t)r->args[p->dtype].i);
	}
	e.st = st;
	e.strs = strs;
	e.w = w;
	e.r = r;
	e.d = d;
	e.p = p;
	e.cr = cr;
	e.hk = hk;
	e.unit = unit;
	for (i = 0; i < nargs; i++) {
		const struct tg_kindops *k = &tg_kinds[d->args[i].kind];
		int rc;
		if (i == p->fds && r->ret == 0 && fds_predicted(st, &r->args[i])) {
			PUSH(r->args[i].i);
			PUSH(2);
			continue;
		}
		rc = k->sig_put ? k->sig_put(&e, i, &r->args[i]) : -2;
		if (rc < 0)
			return rc;
	}
	if (p->retarg >= 0 && p->retarg < nargs) {
		PUSH(1);
		PUSH(p->retarg);
		PUSH((uint64_t)r->ret - (uint64_t)r->args[p->retarg].i);
	} else if (d->retkind == TG_K_FD && r->ret >= 0 && (uint64_t)r->ret == fd_free(st)) {
		PUSH(2);
	} else if (d->retkind == TG_K_FD && r->ret >= 3 && r->ret <= INT32_MAX) {
		/* where descriptors the trace does not show were taken: as
		 * inherited ones, a value the stream keeps */
		uint64_t k;
		if (local_of(st, (uint64_t)r->ret, &k) < 0)
			return -1;
		PUSH(3);
		PUSH(k);
	} else {
		PUSH(0);
		PUSH(r->ret);
	}
	if (fd_after(st, d, p, r) < 0)
		return -1;
	if (st->reqs.n) {
		struct tg_words *t = &st->tmp;
		size_t q, from = 0;
		int64_t key = pool_key(st, w);
		if (key < 0)
			return -1;
		t->n = 0;
		for (q = 0; q < st->reqs.n; q += 3) {
			size_t pos = (size_t)st->reqs.w[q];
			uint64_t e = (uint64_t)st->reqs.w[q + 1], id = e >> 1;
			int isnew = (int)(st->reqs.w[q + 2] & 1), done = (int)(st->reqs.w[q + 2] >> 1);
			for (; from < pos; from++)
				if (tg_words_push(t, w->w[from]) < 0)
					return -1;
			from = pos + 1;
			if (e == 0 || (e & 1) || id > TG_SIG_MAXREQ) {
				if (tg_words_push(t, TG_R_RAW) < 0 || tg_words_push(t, (int64_t)e) < 0)
					return -1;
			} else if (isnew) {
				int predicted = id == st->minfree;
				if (tg_words_push(t, predicted ? TG_R_NEW : TG_R_NEWID) < 0 ||
				    tg_words_push(t, key) < 0 ||
				    (!predicted && tg_words_push(t, (int64_t)id) < 0) ||
				    bind(st, id, (uint32_t)key, p->persistent) < 0)
					return -1;
			} else if (is_bound(st, id)) {
				const struct tg_bind *b = &st->bind[id];
				int rel = done && (!b->persist || p->relmode == REL_FREE);
				if (tg_words_push(t, rel ? TG_R_DONE : TG_R_USE) < 0 ||
				    tg_words_push(t, st->pools[b->pool].key) < 0 ||
				    tg_words_push(t, b->slot) < 0 ||
				    (rel && release_later(st, id) < 0))
					return -1;
			} else {
				if (tg_words_push(t, TG_R_RAW) < 0 || tg_words_push(t, (int64_t)e) < 0)
					return -1;
			}
		}
		for (; from < w->n; from++)
			if (tg_words_push(t, w->w[from]) < 0)
				return -1;
		w->n = 0;
		for (q = 0; q < t->n; q++)
			PUSH(t->w[q]);
		release_now(st);
	}
	return 0;
}

int tg_sig_encode(struct tg_sigstate *st, struct tg_strtab *strs,
		  const struct tg_rec *r, struct tg_words *w)
{
	int64_t i;

	w->n = 0;
	switch (r->type) {
	case TG_REC_CALL:
		return enc_call(st, strs, r, w);
	case TG_REC_RANK:
		if (st->srank < 0)
			st->srank = r->rank;
		PUSH(TG_REC_RANK);
		PUSH((uint64_t)r->rank - (uint64_t)st->srank);
		PUSH(r->world);
		st->world_rank = r->rank;
		return 0;
	case TG_REC_EXCLUDED:
		PUSH(TG_REC_EXCLUDED);
		PUSH(r->excluded);
		return 0;
	case TG_REC_COMM:
		PUSH(TG_REC_COMM);
		PUSH(r->args[0].i);
		PUSH(r->args[2].i >= 0);
		if (enc_array(w, r->args[1].arr, r->args[1].i) < 0)
			return -1;
		if (r->args[2].i >= 0 && enc_array(w, r->args[2].arr, r->args[2].i) < 0)
			return -1;
		return comm_define(st, (uint64_t)r->args[0].i, r->args[1].arr, r->args[1].i);
	case TG_REC_TYPE:
		PUSH(TG_REC_TYPE);
		PUSH(r->args[0].i);
		PUSH(r->args[1].i);
		for (i = 2; i <= 4; i++)
			if (enc_array(w, r->args[i].arr, r->args[i].i) < 0)
				return -1;
		return 0;
	case TG_REC_INFO:
		PUSH(TG_REC_INFO);
		PUSH(r->args[0].i);
		PUSH(r->args[1].i);
		for (i = 0; i < 2 * r->args[1].i; i++) {
			int64_t ref = tg_strtab_intern(strs, r->kv[i], strlen(r->kv[i]));
			if (ref < 0)
				return -1;
			PUSH(ref + 1);
		}
		return 0;
	case TG_REC_CLOCK:
		PUSH(TG_REC_CLOCK);
		PUSH(r->sync_base);
		if (st->nclock == st->capclock) {
			size_t nc = st->capclock ? st->capclock * 2 : 4;
			uint64_t *n = realloc(st->clock, nc * sizeof(*n));
			if (!n)
				return -1;
			st->clock = n;
			st->capclock = nc;
		}
		st->clock[st->nclock++] = r->sync_t;
		return 0;
	case TG_REC_REPEAT:
		/* the signature is the thread's alone: the count and times,
		 * which vary from run to run and rank to rank, go to the
		 * stream's list (STREAMS "repeats") */
		PUSH(TG_REC_REPEAT);
		PUSH(r->tid);
		if (st->nrep + 3 > st->caprep) {
			size_t nc = st->caprep ? st->caprep * 2 : 48;
			uint64_t *n = realloc(st->rep, nc * sizeof(*n));
			if (!n)
				return -1;
			st->rep = n;
			st->caprep = nc;
		}
		st->rep[st->nrep++] = r->repeat;
		st->rep[st->nrep++] = r->tstart;
		st->rep[st->nrep++] = r->dur;
		return 0;
	}
	return -2;
}

/* ---- decoding -------------------------------------------------------------- */

struct tg_sigrd {
	const int64_t *w;
	size_t pos, n;
};

static int get(struct tg_sigrd *r, int64_t *v)
{
	if (r->pos >= r->n)
		return -1;
	*v = r->w[r->pos++];
	return 0;
}

#define GET(v) do { if (get(rd, &(v)) < 0) return -1; } while (0)

#define MAXARR (1 << 24)

static int64_t *arena_a(struct tg_sigarena *ar, uint64_t n)
{
	if (n > MAXARR)
		return NULL;
	if (!ar->a || ar->na + n > ar->capa) {
		size_t nc = ar->capa ? ar->capa : 256;
		int64_t *na;
		while (nc < ar->na + n)
			nc *= 2;
		if (!(na = realloc(ar->a, nc * sizeof(*na))))
			return NULL;
		ar->a = na;
		ar->capa = nc;
	}
	ar->na += n;
	return ar->a + ar->na - n;
}

/* A word @w as array mode TG_A_LOCAL and tagged signatures have it (2v,
 * or 2i + 1 for @st's local value i) into *@out; -1 when it names a
 * local value @st lacks. */
static int untag(const struct tg_sigstate *st, int64_t w, int64_t *out)
{
	uint64_t l;

	if (!(w & 1)) {
		*out = w / 2;
		return 0;
	}
	if (w < 0 || (uint64_t)(w >> 1) >= st->nlocal)
		return -1;
	l = st->local[w >> 1];
	*out = (int64_t)(l >> 2) ^ -(int64_t)(l >> 1 & 1);
	if (l & 1)
		*out = (int64_t)((uint64_t)*out + wrank(st));
	return 0;
}

/* An array into the arena; its offset in v->u, its count in v->i.  Its
 * elements may name @st's local values (mode TG_A_LOCAL; not when @st is
 * NULL). */
static int dec_array(const struct tg_sigstate *st, struct tg_sigrd *rd, struct tg_sigarena *ar,
		     struct tg_val *v, int pairs)
{
	int64_t n, mode, k = 0, *a;

	GET(n);
	if (n < 0 || n > MAXARR)
		return -1;
	v->i = n;
	v->u = ar->na;
	if (!(a = arena_a(ar, (uint64_t)n * (pairs ? 2 : 1))))
		return -1;
	if (n == 0)
		return 0;
	GET(mode);
	if (mode == TG_A_PLAIN) {
		for (k = 0; k < n; k++)
			GET(a[k]);
		return 0;
	}
	if (mode == TG_A_LOCAL && st) {
		for (k = 0; k < n; k++) {
			int64_t e;
			GET(e);
			if (untag(st, e, &a[k]) < 0)
				return -1;
		}
		return 0;
	}
	if (mode != TG_A_RUNS)
		return -1;
	while (k < n) {
		int64_t start, step, len, j;
		GET(start);
		GET(step);
		GET(len);
		if (len <= 0 || len > n - k)
			return -1;
		for (j = 0; j < len; j++)
			a[k++] = (int64_t)((uint64_t)start + (uint64_t)j * (uint64_t)step);
	}
	return 0;
}

static int dec_int(struct tg_sigstate *st, struct tg_sigrd *rd, int64_t *out, uint64_t cr,
		   uint64_t hk)
{
	int64_t form, x, y;
	uint64_t last = 0;

	GET(form);
	GET(x);
	if (form == TG_F_LVAL || form == TG_F_LOFF) {
		/* ABS or REL, from the stream's local values; LOFF's is an
		 * offset, as OFF's */
		uint64_t v;
		if (x < 0 || (uint64_t)x >= st->nlocal)
			return -1;
		v = st->local[x];
		x = (int64_t)(v >> 2) ^ -(int64_t)(v >> 1 & 1);
		if (v & 1)
			x = (int64_t)((uint64_t)x + cr);
		form = form == TG_F_LOFF ? TG_F_OFF : TG_F_ABS;
	}
	switch (form) {
	case TG_F_ABS:
		*out = x;
		return 0;
	case TG_F_REL:
		*out = (int64_t)((uint64_t)x + cr);
		return 0;
	case TG_F_DELTA:
		tg_map_get(&st->offs, hk, &last);
		*out = (int64_t)((uint64_t)x + last);
		break;
	case TG_F_LIN:
		GET(y);
		*out = (int64_t)((uint64_t)x * wrank(st) + (uint64_t)y);
		break;
	case TG_F_OFF:
		*out = x;
		break;
	default:
		return -1;
	}
	return tg_map_put(&st->offs, hk, (uint64_t)*out);
}

/* A word of TG_WORD_LOCAL + i or more in @*w: local value i instead. */
static int local_word(const struct tg_sigstate *st, int64_t *w)
{
	if (*w >= 0 && (uint64_t)*w >= TG_WORD_LOCAL) {
		uint64_t i = (uint64_t)*w - TG_WORD_LOCAL;
		if (i >= st->nlocal)
			return -1;
		*w = (int64_t)st->local[i];
	}
	return 0;
}

static int dec_req(struct tg_sigstate *st, struct tg_sigrd *rd, int64_t *out)
{
	int64_t form, key, x;
	uint64_t id, pi;
	const struct tg_pool *p;

	GET(form);
	GET(key);
	if (form != TG_R_RAW && local_word(st, &key) < 0)
		return -1;
	switch (form) {
	case TG_R_RAW:
		*out = key;
		return 0;
	case TG_R_NEW:
	case TG_R_NEWID:
		if (key < 0 || key > UINT32_MAX)
			return -1;
		id = st->minfree;
		if (form == TG_R_NEWID) {
			GET(x);
			id = (uint64_t)x;
		}
		if (bind(st, id, (uint32_t)key, 0) < 0)
			return -1;
		*out = (int64_t)(id << 1);
		return 0;
	case TG_R_USE:
	case TG_R_DONE:
		GET(x);
		if (key < 0 || key > UINT32_MAX || !tg_map_get(&st->poolidx, (uint64_t)key, &pi))
			return -1;
		p = &st->pools[pi];
		if (x < 0 || (uint64_t)x >= p->n || !p->slot[x])
			return -1;
		id = p->slot[x];
		*out = (int64_t)(id << 1);
		if (form == TG_R_DONE && release_later(st, id) < 0)
			return -1;
		return 0;
	}
	return -1;
}

/* ---- skipping an argument (to find the communicator and the handle) ---- */

int tg_sk_skip_plain(struct tg_sigrd *rd, int sub)
{
	int64_t x;

	(void)sub;
	GET(x);
	return 0;
}

int tg_sk_skip_int(struct tg_sigrd *rd, int sub)
{
	int64_t x;

	(void)sub;
	GET(x);
	rd->pos += x == TG_F_LIN ? 2 : 1;
	return rd->pos <= rd->n ? 0 : -1;
}

int tg_sk_skip_str(struct tg_sigrd *rd, int sub)
{
	int64_t x;

	(void)sub;
	GET(x);
	rd->pos += x == 1 ? 2 : 1;
	return rd->pos <= rd->n ? 0 : -1;
}

int tg_sk_skip_stat(struct tg_sigrd *rd, int sub)
{
	int64_t x;

	(void)sub;
	GET(x);
	rd->pos += x ? 2 : 0;
	return rd->pos <= rd->n ? 0 : -1;
}

int tg_sk_skip_iostatus(struct tg_sigrd *rd, int sub)
{
	int64_t x;

	(void)sub;
	GET(x);
	rd->pos += x ? 1 : 0;
	return rd->pos <= rd->n ? 0 : -1;
}

int tg_sk_skip_arr(struct tg_sigrd *rd, int sub)
{
	int64_t x, n, k;

	(void)sub;
	GET(n);
	if (n <= 0)
		return n < 0 ? -1 : 0;
	GET(x);
	if (x == TG_A_PLAIN || x == TG_A_LOCAL) {
		rd->pos += (size_t)n;
		return rd->pos <= rd->n && n <= MAXARR ? 0 : -1;
	}
	if (x == 2)	/* new descriptors, the lowest free (pipe's) */
		return n <= 64 ? 0 : -1;
	if (x != 1)
		return -1;
	for (k = 0; k < n;) {
		int64_t len;
		rd->pos += 2;
		GET(len);
		if (len <= 0 || len > n - k)
			return -1;
		k += len;
	}
	return 0;
}

int tg_sk_skip_hsizes(struct tg_sigrd *rd, int sub)
{
	int64_t x;

	GET(x);
	return x ? tg_sk_skip_arr(rd, sub) : 0;
}

int tg_sk_skip_mpih(struct tg_sigrd *rd, int sub)
{
	int64_t x;

	GET(x);
	if (sub != TG_H_REQ)
		return 0;
	if (x < 0 || x >= TG_R_NFORMS)
		return -1;
	rd->pos += x == TG_R_RAW || x == TG_R_NEW ? 1 : 2;
	return rd->pos <= rd->n ? 0 : -1;
}

int tg_sk_skip_mpiharr(struct tg_sigrd *rd, int sub)
{
	int64_t n, k;

	GET(n);
	if (n < 0 || n > MAXARR)
		return -1;
	for (k = 0; k < n; k++)
		if (tg_sk_skip_mpih(rd, sub) < 0)
			return -1;
	return 0;
}

int tg_sk_skip_status(struct tg_sigrd *rd, int sub)
{
	int64_t x;

	GET(x);
	if (x && (tg_sk_skip_int(rd, sub) < 0 || get(rd, &x) < 0))
		return -1;
	return 0;
}

int tg_sk_skip_statuses(struct tg_sigrd *rd, int sub)
{
	int64_t x, n, k;

	GET(n);
	if (n < 0 || n > MAXARR)
		return -1;
	for (k = 0; k < n; k++)
		if (tg_sk_skip_int(rd, sub) < 0 || get(rd, &x) < 0)
			return -1;
	return 0;
}

/* A descriptor: a form (0 to 3), then a value. */
int tg_sk_skip_fd(struct tg_sigrd *rd, int sub)
{
	int64_t x;

	(void)sub;
	GET(x);
	if (x < 0 || x > 3)
		return -1;
	GET(x);
	return 0;
}

/* A form (0 to 2), then a value: buffers. */
int tg_sk_skip_pair(struct tg_sigrd *rd, int sub)
{
	int64_t x;

	(void)sub;
	GET(x);
	if (x < 0 || x > 2)
		return -1;
	GET(x);
	return 0;
}

/* Skip one argument of @kind. */
static int skip_arg(struct tg_sigrd *rd, int kind, int sub)
{
	const struct tg_kindops *k = &tg_kinds[kind];

	return k->sig_skip ? k->sig_skip(rd, sub) : -1;
}

static char *arena_c(struct tg_sigarena *ar, size_t n)
{
	if (!ar->c || ar->nc + n > ar->capc) {
		size_t nc = ar->capc ? ar->capc : 1024;
		char *c;
		while (nc < ar->nc + n)
			nc *= 2;
		if (!(c = realloc(ar->c, nc)))
			return NULL;
		ar->c = c;
		ar->capc = nc;
	}
	ar->nc += n;
	return ar->c + ar->nc - n;
}

/* A string reference or template; templates go to the arena, their
 * offset + 1 in *tmpl (the pointer is set once the arena is done). */
static int dec_str(struct tg_sigstate *st, const struct tg_strtab *strs, struct tg_sigrd *rd,
		   struct tg_val *v, struct tg_sigarena *ar, size_t *tmpl)
{
	int64_t form, ref, pos;
	char dec[24], *c;
	size_t dl, len;

	*tmpl = 0;
	GET(form);
	GET(ref);
	if (form == TG_STR_LOCAL) {	/* the stream's local value ref */
		if (ref < 0 || (uint64_t)ref >= st->nlocal || !st->lstr || !st->lstr[ref])
			return -1;
		ref = (int64_t)st->local[ref];
		form = TG_STR_REF;
	}
	if (ref < 0 || (uint64_t)ref > strs->n)
		return -1;
	if (form == TG_STR_REF) {
		v->s = ref ? strs->s[ref - 1] : NULL;
		return 0;
	}
	if (form != TG_STR_TMPL || ref == 0)
		return -1;
	GET(pos);
	len = strs->len[ref - 1];
	if (pos < 0 || (uint64_t)pos > len)
		return -1;
	dl = (size_t)snprintf(dec, sizeof(dec), "%llu", (unsigned long long)wrank(st));
	if (!(c = arena_c(ar, len + dl + 1)))
		return -1;
	memcpy(c, strs->s[ref - 1], (size_t)pos);
	memcpy(c + pos, dec, dl);
	memcpy(c + pos + dl, strs->s[ref - 1] + pos, len - (size_t)pos + 1);
	*tmpl = (size_t)(c - ar->c) + 1;
	return 0;
}

/* A signature being decoded: where arrays and strings go, and what the
 * arguments are relative to. */
struct tg_sigdec {
	struct tg_sigstate *st;
	const struct tg_strtab *strs;
	struct tg_sigrd *rd;
	struct tg_sigarena *ar;
	const struct tg_calldesc *d;
	uint64_t cr, hk;
	unsigned tid;
	int tagged;		/* TG_HP_TAGGED */
	size_t *tmpl;		/* per argument: string template offset + 1 */
};

int tg_sk_get_plain(struct tg_sigdec *c, int i, struct tg_val *v)
{
	struct tg_sigrd *rd = c->rd;

	GET(v->i);
	if (c->tagged && c->d->args[i].kind == TG_K_UINT)
		return untag(c->st, v->i, &v->i);
	return 0;
}

int tg_sk_get_int(struct tg_sigdec *c, int i, struct tg_val *v)
{
	(void)i;
	return dec_int(c->st, c->rd, &v->i, c->cr, c->hk);
}

int tg_sk_get_str(struct tg_sigdec *c, int i, struct tg_val *v)
{
	return dec_str(c->st, c->strs, c->rd, v, c->ar, &c->tmpl[i]);
}

/* The presence word of an optional value: 0 or 1. */
static int get_present(struct tg_sigrd *rd, struct tg_val *v)
{
	int64_t x;

	GET(x);
	if (x < 0 || x > 1)
		return -1;
	v->present = (int)x;
	return 0;
}

int tg_sk_get_stat(struct tg_sigdec *c, int i, struct tg_val *v)
{
	struct tg_sigrd *rd = c->rd;
	int64_t x;

	(void)i;
	if (get_present(rd, v) < 0)
		return -1;
	if (v->present) {
		GET(v->i);
		GET(x);
		v->u = (uint64_t)x;
	}
	return 0;
}

int tg_sk_get_iostatus(struct tg_sigdec *c, int i, struct tg_val *v)
{
	struct tg_sigrd *rd = c->rd;

	(void)i;
	if (get_present(rd, v) < 0)
		return -1;
	if (v->present)
		GET(v->i);
	return 0;
}

int tg_sk_get_hsizes(struct tg_sigdec *c, int i, struct tg_val *v)
{
	(void)i;
	if (get_present(c->rd, v) < 0)
		return -1;
	if (v->present)
		return dec_array(c->st, c->rd, c->ar, v, 0);
	v->u = c->ar->na;
	return 0;
}

int tg_sk_get_arr(struct tg_sigdec *c, int i, struct tg_val *v)
{
	(void)i;
	return dec_array(c->st, c->rd, c->ar, v, 0);
}

int tg_sk_get_mpih(struct tg_sigdec *c, int i, struct tg_val *v)
{
	struct tg_sigrd *rd = c->rd;

	if (c->d->args[i].sub == TG_H_REQ)
		return dec_req(c->st, rd, &v->i);
	GET(v->i);
	return 0;
}

int tg_sk_get_mpiharr(struct tg_sigdec *c, int i, struct tg_val *v)
{
	struct tg_sigrd *rd = c->rd;
	struct tg_sigarena *ar = c->ar;
	int req = c->d->args[i].sub == TG_H_REQ;
	int64_t x, k;

	GET(x);
	if (x < 0 || x > MAXARR)
		return -1;
	v->i = x;
	v->u = ar->na;
	if (!arena_a(ar, (uint64_t)x))
		return -1;
	for (k = 0; k < x; k++) {
		int64_t e;
		if (req) {
			if (dec_req(c->st, rd, &e) < 0)
				return -1;
		} else {
			GET(e);
		}
		ar->a[v->u + (uint64_t)k] = e;
	}
	return 0;
}

int tg_sk_get_status(struct tg_sigdec *c, int i, struct tg_val *v)
{
	struct tg_sigrd *rd = c->rd;
	int64_t x;

	(void)i;
	if (get_present(rd, v) < 0)
		return -1;
	if (v->present) {
		if (dec_int(c->st, rd, &v->i, c->cr, c->hk) < 0)
			return -1;
		GET(x);
		if (local_word(c->st, &x) < 0)
			return -1;
		v->u = (uint64_t)x;
	}
	return 0;
}

int tg_sk_get_statuses(struct tg_sigdec *c, int i, struct tg_val *v)
{
	struct tg_sigrd *rd = c->rd;
	struct tg_sigarena *ar = c->ar;
	int64_t x, k;

	(void)i;
	GET(x);
	if (x < 0 || x > MAXARR)
		return -1;
	v->i = x;
	v->u = ar->na;
	if (!arena_a(ar, 2 * (uint64_t)x))
		return -1;
	for (k = 0; k < x; k++) {
		int64_t src, tag;
		if (dec_int(c->st, rd, &src, c->cr, c->hk) < 0)
			return -1;
		GET(tag);
		if (local_word(c->st, &tag) < 0)
			return -1;
		ar->a[v->u + 2 * (uint64_t)k] = src;
		ar->a[v->u + 2 * (uint64_t)k + 1] = tag;
	}
	return 0;
}

/* The descriptor form @form with operand @x gives. */
static int fd_value(const struct tg_sigstate *st, int64_t form, int64_t x, int64_t *out)
{
	if (form == 0)
		*out = x;
	else if (form == 1 && st->lastfd >= 0)
		*out = (int64_t)((uint64_t)x + (uint64_t)st->lastfd);
	else if (form == 2 && x >= 0 && (uint64_t)x < st->nlocal)
		*out = (int64_t)st->local[x];
	else if (form == 3 && x >= 1 && (uint64_t)x <= st->nknown)
		*out = st->known[st->nknown - (uint64_t)x];
	else
		return -1;
	return 0;
}

int tg_sk_get_fd(struct tg_sigdec *c, int i, struct tg_val *v)
{
	struct tg_sigrd *rd = c->rd;
	int64_t form, x;

	(void)i;
	GET(form);
	GET(x);
	if (fd_value(c->st, form, x, &v->i) < 0)
		return -1;
	/* as the encoder: a descriptor no call gave is open from its use */
	return form == 2 ? fd_mark(c->st, (uint64_t)v->i, 1) : 0;
}

/* Argument @i of a call, pipe's new descriptors: mode 2 for the lowest
 * free ones, else an array. */
static int dec_fds(struct tg_sigdec *c, struct tg_val *v)
{
	struct tg_sigrd *rd = c->rd;
	int64_t n, *a, k;
	uint64_t f;

	if (rd->pos + 1 >= rd->n || rd->w[rd->pos] <= 0 || rd->w[rd->pos + 1] != 2)
		return dec_array(c->st, rd, c->ar, v, 0);
	n = rd->w[rd->pos];
	rd->pos += 2;
	if (n > 64 || !(a = arena_a(c->ar, (uint64_t)n)))
		return -1;
	v->i = n;
	v->u = c->ar->na - (uint64_t)n;
	for (k = 0, f = fd_free(c->st); k < n; k++, f = fd_free_above(c->st, f))
		a[k] = (int64_t)f;
	return 0;
}

int tg_sk_get_buf(struct tg_sigdec *c, int i, struct tg_val *v)
{
	struct tg_sigrd *rd = c->rd;
	uint64_t *max = &c->st->bufmax[c->tid];
	struct tg_bufrecent *r;
	int64_t form, x;

	(void)i;
	GET(form);
	GET(x);
	if (form == 0) {
		v->i = x;
		return 0;
	}
	if (!(r = bufrecent(c->st, c->tid)))
		return -1;
	if (form == 1) {
		v->i = (int64_t)((uint64_t)x + *max);
		if ((uint64_t)v->i > *max)
			*max = (uint64_t)v->i;
	} else if (form == 2 && x >= 0 && (uint64_t)x < r->n) {
		v->i = (int64_t)r->id[x];
	} else {
		return -1;
	}
	if (v->i > 0)
		recent_touch(r, (uint64_t)v->i);
	return 0;
}

static int dec_call(struct tg_sigstate *st, const struct tg_strtab *strs, struct tg_sigrd *rd,
		    struct tg_rec *out, struct tg_sigarena *ar)
{
	const struct tg_calldesc *d;
	const struct plan *p;
	size_t tmpl[TG_MAX_ARGS];
	int64_t func, tid, dseq, depth, hasp, pdist = 0, err, *ls, form, x;
	uint64_t cr = wrank(st), hk = 0, comm = 0;
	struct tg_val hv[TG_MAX_ARGS];
	struct tg_sigdec c;
	int i, nargs;

	GET(func);
	GET(tid);
	GET(dseq);
	if (tid < 0 || !(ls = lastseq(st, (uint64_t)tid)))
		return -1;
	out->type = TG_REC_CALL;
	out->tid = (unsigned)tid;
	if (seq_unword(st, (uint64_t)tid, *ls, dseq, &out->seq) < 0)
		return -1;
	*ls = (int64_t)out->seq;
	if (func < 0 || func > 0xffff || !(d = tg_call_lookup((unsigned)func)) ||
	    !(p = plan_of(d)))
		return -1;
	GET(depth);
	GET(hasp);
	if (hasp < 0 || (hasp & ~TG_HP_TAGGED) > 2)
		return -1;
	c.tagged = !!(hasp & TG_HP_TAGGED);
	hasp &= ~TG_HP_TAGGED;
	if (hasp == 1)
		GET(pdist);
	GET(err);
	if (depth < 0 || depth > 1024 || err < 0 || err > 4095 ||
	    (hasp == 2 && st->lastpar[tid] < 0))
		return -1;
	out->call = d;
	out->func = d->id;
	out->depth = (unsigned)depth;
	out->parent = hasp == 2 ? st->lastpar[tid] :
		      hasp ? (int64_t)(out->seq - (uint64_t)pdist) : -1;
	if (hasp == 1)
		st->lastpar[tid] = out->parent;
	out->err = (int)err;
	nargs = d->nargs < TG_MAX_ARGS ? d->nargs : TG_MAX_ARGS;
	/* the communicator and the handle come first: other arguments are
	 * relative to them wherever they are */
	if (p->comm >= 0 || p->handle >= 0) {
		struct tg_sigrd look = *rd;
		memset(hv, 0, sizeof(hv));
		for (i = 0; i < nargs; i++) {
			if (i == p->comm || i == p->handle) {
				int64_t form = 0;
				if (d->args[i].kind == TG_K_FD && get(&look, &form) < 0)
					return -1;
				if (get(&look, &x) < 0)
					return -1;
				if (d->args[i].kind != TG_K_FD)
					hv[i].i = x;
				else if (fd_value(st, form, x, &hv[i].i) < 0)
					return -1;
			} else if (skip_arg(&look, d->args[i].kind, d->args[i].sub) < 0) {
				return -1;
			}
		}
		if (p->comm >= 0)
			comm = (uint64_t)hv[p->comm].i;
		cr = caller_rank(st, p->comm >= 0, comm);
		hk = handle_key(d, p, hv);
	}
	c.st = st;
	c.strs = strs;
	c.rd = rd;
	c.ar = ar;
	c.d = d;
	c.cr = cr;
	c.hk = hk;
	c.tid = out->tid;
	c.tmpl = tmpl;
	for (i = 0; i < nargs; i++) {
		const struct tg_kindops *k = &tg_kinds[d->args[i].kind];
		memset(&out->args[i], 0, sizeof(out->args[i]));
		tmpl[i] = 0;
		if (i == p->fds) {
			if (dec_fds(&c, &out->args[i]) < 0)
				return -1;
		} else if (!k->sig_get || k->sig_get(&c, i, &out->args[i]) < 0) {
			return -1;
		}
	}
	GET(form);
	if (form == 0) {
		GET(out->ret);
		if (c.tagged && untag(st, out->ret, &out->ret) < 0)
			return -1;
	} else if (form == 1) {
		int64_t k;
		GET(k);
		GET(x);
		if (k < 0 || k >= nargs ||
		    (d->args[k].kind != TG_K_INT && d->args[k].kind != TG_K_UINT &&
		     d->args[k].kind != TG_K_SIGNED_OFF))
			return -1;
		out->ret = (int64_t)((uint64_t)x + (uint64_t)out->args[k].i);
	} else if (form == 2 && d->retkind == TG_K_FD) {
		out->ret = (int64_t)fd_free(st);
	} else if (form == 3 && d->retkind == TG_K_FD) {
		GET(x);
		if (x < 0 || (uint64_t)x >= st->nlocal)
			return -1;
		out->ret = (int64_t)st->local[x];
	} else {
		return -1;
	}
	if (rd->pos != rd->n)
		return -1;
	for (i = 0; i < nargs; i++) {
		if (tg_kinds[d->args[i].kind].arr)
			out->args[i].arr = ar->a ? ar->a + out->args[i].u : NULL;
		if (tmpl[i])
			out->args[i].s = ar->c + tmpl[i] - 1;
	}
	if (fd_after(st, d, p, out) < 0)
		return -1;
	release_now(st);
	return 1;
}

int tg_sig_decode(struct tg_sigstate *st, const struct tg_strtab *strs,
		  const int64_t *w, size_t n, struct tg_rec *out, struct tg_sigarena *ar)
{
	struct tg_sigrd r = { w, 0, n }, *rd = &r;
	int64_t type, x, i;

	ar->na = 0;
	ar->nc = 0;
	st->nrelease = 0;
	GET(type);
	switch (type) {
	case TG_REC_CALL:
		return dec_call(st, strs, rd, out, ar);
	case TG_REC_RANK:
		memset(out, 0, sizeof(*out));
		out->type = TG_REC_RANK;
		GET(x);
		out->rank = (int64_t)((uint64_t)x + (uint64_t)st->srank);
		GET(x);
		out->world = (uint64_t)x;
		st->world_rank = out->rank;
		break;
	case TG_REC_EXCLUDED:
		memset(out, 0, sizeof(*out));
		out->type = TG_REC_EXCLUDED;
		GET(x);
		out->excluded = (uint64_t)x;
		break;
	case TG_REC_COMM:
		memset(out, 0, sizeof(*out));
		out->type = TG_REC_COMM;
		GET(out->args[0].i);
		GET(x);
		if (x < 0 || x > 1 || dec_array(st, rd, ar, &out->args[1], 0) < 0)
			return -1;
		out->args[2].i = -1;
		if (x && dec_array(st, rd, ar, &out->args[2], 0) < 0)
			return -1;
		out->args[1].arr = ar->a + out->args[1].u;
		if (x)
			out->args[2].arr = ar->a + out->args[2].u;
		if (comm_define(st, (uint64_t)out->args[0].i, out->args[1].arr,
				out->args[1].i) < 0)
			return -1;
		break;
	case TG_REC_TYPE:
		memset(out, 0, sizeof(*out));
		out->type = TG_REC_TYPE;
		GET(out->args[0].i);
		GET(out->args[1].i);
		for (i = 2; i <= 4; i++)
			if (dec_array(st, rd, ar, &out->args[i], 0) < 0)
				return -1;
		for (i = 2; i <= 4; i++)
			out->args[i].arr = ar->a + out->args[i].u;
		break;
	case TG_REC_INFO: {
		const char **kv;
		memset(out, 0, sizeof(*out));
		out->type = TG_REC_INFO;
		GET(out->args[0].i);
		GET(x);
		if (x < 0 || (uint64_t)x > (rd->n - rd->pos) / 2)
			return -1;
		out->args[1].i = x;
		if (!(kv = (const char **)(void *)arena_c(ar, (size_t)(2 * x + 1) * sizeof(char *) +
							 sizeof(char *))))
			return -1;
		/* the arena may move: take the pointer array from its start */
		for (i = 0; i < 2 * x; i++) {
			int64_t ref;
			GET(ref);
			if (ref <= 0 || (uint64_t)ref > strs->n)
				return -1;
			((const char **)(void *)ar->c)[i] = strs->s[ref - 1];
		}
		out->kv = (const char **)(void *)ar->c;
		break;
	}
	case TG_REC_CLOCK:
		memset(out, 0, sizeof(*out));
		out->type = TG_REC_CLOCK;
		GET(x);
		out->sync_base = (uint64_t)x;
		if (st->clockpos >= st->nclock)
			return -1;
		out->sync_t = st->clock[st->clockpos++];
		break;
	case TG_REC_REPEAT: {
		int64_t *ls;
		memset(out, 0, sizeof(*out));
		out->type = TG_REC_REPEAT;
		GET(x);
		if (x < 0 || !(ls = lastseq(st, (uint64_t)x)) || *ls < 0 ||
		    st->reppos + 3 > st->nrep || st->rep[st->reppos] == 0)
			return -1;
		out->tid = (unsigned)x;
		out->seq = (uint64_t)*ls;	/* the call it repeats */
		out->repeat = st->rep[st->reppos++];
		out->tstart = st->rep[st->reppos++];
		out->dur = st->rep[st->reppos++];
		break;
	}
	default:
		return -1;
	}
	return rd->pos == rd->n ? 1 : -1;
}

/* ---- checking and string renumbering ------------------------------------------ */

/* Where tg_sig_strings() puts the places of string references. */
struct strpos {
	uint32_t *pos;
	size_t n, max;
};

static int check_ref_at(int64_t *w, size_t nstrs, const uint32_t *remap, int zero_ok,
			struct strpos *sp, size_t at)
{
	if (*w < 0 || (uint64_t)*w > nstrs || (!zero_ok && *w == 0))
		return -1;
	if (remap && *w)
		*w = (int64_t)remap[*w - 1] + 1;
	if (sp) {
		if (sp->n < sp->max)
			sp->pos[sp->n] = (uint32_t)at;
		sp->n++;
	}
	return 0;
}
#define check_ref(w, nstrs, remap, zero_ok) \
	check_ref_at(w, nstrs, remap, zero_ok, sp, (size_t)((w) - base))

int tg_sig_upgrade(struct tg_words *v, unsigned version)
{
	struct tg_sigrd r = { v->w, 0, v->n }, *rd = &r;
	const struct tg_calldesc *d;
	int64_t x;
	int i;

	if (v->n < 8 || v->w[0] != TG_REC_CALL || v->w[1] < 0 || v->w[1] > 0xffff ||
	    !(d = tg_call_lookup((unsigned)v->w[1])) || v->w[5] < 0)
		return 0;	/* not a call, or one tg_sig_check() refuses */
#define KNOWN(a) (!(a).appended || (a).appended <= version)
	for (i = 0; i < d->nargs && i < TG_MAX_ARGS && KNOWN(d->args[i]); i++)
		;
	if (i == d->nargs || i == TG_MAX_ARGS)
		return 0;	/* nothing appended to this schema since */
	rd->pos = (v->w[5] & ~TG_HP_TAGGED) == 1 ? 7 : 6;
	GET(x);	/* errno */
	for (i = 0; i < d->nargs && i < TG_MAX_ARGS && KNOWN(d->args[i]); i++) {
		int kind = d->args[i].kind;
		if (kind == TG_K_STR || kind == TG_K_PATH) {
			GET(x);
			rd->pos += x == 1 ? 1 : 0;
			GET(x);
			continue;
		}
		if (skip_arg(rd, kind, d->args[i].sub) < 0)
			return -1;
	}
	/* the rest were appended: each absent, -1 in form ABS (a
	 * descriptor: -1 as a plain value, its form 0) */
	for (; i < d->nargs && i < TG_MAX_ARGS; i++) {
		int kind = d->args[i].kind;
		size_t at = rd->pos;
		if (kind != TG_K_INT && kind != TG_K_SIGNED_OFF && kind != TG_K_FD)
			return -1;
		if (tg_words_push(v, 0) < 0 || tg_words_push(v, 0) < 0)
			return -1;
		memmove(v->w + at + 2, v->w + at, (v->n - 2 - at) * sizeof(*v->w));
		v->w[at] = kind == TG_K_FD ? 0 : TG_F_ABS;
		v->w[at + 1] = -1;
		rd->w = v->w;
		rd->n = v->n;
		rd->pos = at + 2;
	}
	return 0;
#undef KNOWN
}

static int sig_walk(int64_t *w, size_t n, size_t nstrs, const uint32_t *remap,
		    struct strpos *sp)
{
	struct tg_sigrd r = { w, 0, n }, *rd = &r;
	const int64_t *base = w;
	const struct tg_calldesc *d;
	int64_t type, x, i, k;

	GET(type);
	switch (type) {
	case TG_REC_CALL:
		if (n < 8)
			return -1;
		if (w[1] < 0 || w[1] > 0xffff || !(d = tg_call_lookup((unsigned)w[1])))
			return remap ? -2 : -1;
		if (w[2] < 0 || w[2] > (1 << 20) || w[4] < 0 || w[4] > 1024 || w[5] < 0 ||
		    (w[5] & ~TG_HP_TAGGED) > 2)
			return -1;
		rd->pos = (w[5] & ~TG_HP_TAGGED) == 1 ? 7 : 6;
		GET(x);	/* errno */
		for (i = 0; i < d->nargs && i < TG_MAX_ARGS; i++) {
			int kind = d->args[i].kind;
			if (kind == TG_K_STR || kind == TG_K_PATH) {
				GET(x);
				if (x < TG_STR_REF || x > TG_STR_LOCAL || rd->pos >= n)
					return -1;
				if (x == TG_STR_LOCAL) {	/* an index, checked when decoded */
					if (w[rd->pos++] < 0)
						return -1;
					continue;
				}
				if (check_ref(&w[rd->pos], nstrs, remap, x == TG_STR_REF) < 0)
					return -1;
				rd->pos += x == 1 ? 2 : 1;
				if (rd->pos > n)
					return -1;
				continue;
			}
			if (kind == TG_K_INT || kind == TG_K_SIGNED_OFF) {
				if (rd->pos >= n || w[rd->pos] < 0 || w[rd->pos] >= TG_F_NFORMS)
					return -1;
			}
			if (skip_arg(rd, kind, d->args[i].sub) < 0)
				return -1;
		}
		GET(x);
		if (x == 0) {
			GET(x);
		} else if (x == 1) {
			GET(k);
			GET(x);
			if (k < 0 || k >= d->nargs || k >= TG_MAX_ARGS)
				return -1;
		} else if (x == 3 && d->retkind == TG_K_FD) {
			GET(x);
		} else if (x != 2 || d->retkind != TG_K_FD) {
			return -1;
		}
		return rd->pos == n ? 0 : -1;
	case TG_REC_RANK:
		return n == 3 ? 0 : -1;
	case TG_REC_EXCLUDED:
	case TG_REC_CLOCK:
		return n == 2 ? 0 : -1;
	case TG_REC_REPEAT:
		return n == 2 && w[1] >= 0 && w[1] <= (1 << 20) ? 0 : -1;
	case TG_REC_COMM:
		GET(x);
		GET(x);
		if (x < 0 || x > 1 || skip_arg(rd, TG_K_INTARR, 0) < 0 ||
		    (x && skip_arg(rd, TG_K_INTARR, 0) < 0))
			return -1;
		return rd->pos == n ? 0 : -1;
	case TG_REC_TYPE:
		GET(x);
		GET(x);
		for (i = 0; i < 3; i++)
			if (skip_arg(rd, TG_K_INTARR, 0) < 0)
				return -1;
		return rd->pos == n ? 0 : -1;
	case TG_REC_INFO:
		GET(x);
		GET(x);
		if (x < 0 || (uint64_t)x * 2 != n - 3)
			return -1;
		for (i = 3; i < (int64_t)n; i++)
			if (check_ref(&w[i], nstrs, remap, 0) < 0)
				return -1;
		return 0;
	}
	return -1;
}

#undef check_ref

int tg_sig_check(int64_t *w, size_t n, size_t nstrs, const uint32_t *remap)
{
	return sig_walk(w, n, nstrs, remap, NULL);
}

int64_t tg_sig_strings(const int64_t *w, size_t n, uint32_t *pos, size_t max)
{
	struct strpos sp = { pos, 0, max };

	/* no remap: the walk only reads */
	if (sig_walk((int64_t *)(uintptr_t)w, n, SIZE_MAX, NULL, &sp) < 0)
		return -1;
	return (int64_t)sp.n;
}

struct chunks {
	uint32_t *pos;
	uint8_t *type;
	size_t n, max;
};

static void chunk_add(struct chunks *ch, size_t pos, int type)
{
	if (ch->n < ch->max) {
		ch->pos[ch->n] = (uint32_t)pos;
		ch->type[ch->n] = (uint8_t)type;
	}
	ch->n++;
}

/* An integer in the forms of INT at @rd: a chunk if ABS, REL or LVAL,
 * or an offset in form OFF or LOFF. */
static int chunk_int(struct tg_sigrd *rd, struct chunks *ch)
{
	if (rd->pos >= rd->n)
		return -1;
	if (rd->w[rd->pos] == TG_F_ABS || rd->w[rd->pos] == TG_F_REL ||
	    rd->w[rd->pos] == TG_F_LVAL)
		chunk_add(ch, rd->pos, TG_CH_INT);
	else if (rd->w[rd->pos] == TG_F_OFF || rd->w[rd->pos] == TG_F_LOFF)
		chunk_add(ch, rd->pos, TG_CH_OFF);
	return tg_sk_skip_int(rd, 0);
}

/* An array at @rd: its elements chunks if it lists them (mode TG_A_PLAIN
 * or TG_A_LOCAL) and they are few. */
static int chunk_array(struct tg_sigrd *rd, struct chunks *ch)
{
	int64_t n, k;

	if (rd->pos + 1 < rd->n && rd->w[rd->pos] > 0 && rd->w[rd->pos] <= 16 &&
	    (rd->w[rd->pos + 1] == TG_A_PLAIN || rd->w[rd->pos + 1] == TG_A_LOCAL)) {
		n = rd->w[rd->pos];
		chunk_add(ch, rd->pos + 1, TG_CH_AMODE);
		for (k = 0; k < n; k++)
			chunk_add(ch, rd->pos + 2 + (size_t)k, TG_CH_AEL);
	}
	return tg_sk_skip_arr(rd, 0);
}

/* A handle at @rd: for a request in a form that names a pool, its key. */
static int chunk_mpih(struct tg_sigrd *rd, struct chunks *ch, int sub)
{
	if (sub == TG_H_REQ && rd->pos + 1 < rd->n && rd->w[rd->pos] != TG_R_RAW)
		chunk_add(ch, rd->pos + 1, TG_CH_WORD);
	return tg_sk_skip_mpih(rd, sub);
}

/* A status's source and tag. */
static int chunk_status(struct tg_sigrd *rd, struct chunks *ch)
{
	if (chunk_int(rd, ch) < 0 || rd->pos >= rd->n)
		return -1;
	chunk_add(ch, rd->pos++, TG_CH_WORD);
	return 0;
}

static int chunk_arg(struct tg_sigrd *rd, struct chunks *ch, int kind, int sub)
{
	int64_t x, k;

	switch (kind) {
	case TG_K_INT:
	case TG_K_SIGNED_OFF:
		return chunk_int(rd, ch);
	case TG_K_MPIH:
		return chunk_mpih(rd, ch, sub);
	case TG_K_MPIHARR:
		GET(x);
		if (x < 0 || x > MAXARR)
			return -1;
		for (k = 0; k < x; k++)
			if (chunk_mpih(rd, ch, sub) < 0)
				return -1;
		return 0;
	case TG_K_MPISTATUS:
		GET(x);
		return x && chunk_status(rd, ch) < 0 ? -1 : 0;
	case TG_K_MPISTATUSES:
		GET(x);
		if (x < 0 || x > MAXARR)
			return -1;
		for (k = 0; k < x; k++)
			if (chunk_status(rd, ch) < 0)
				return -1;
		return 0;
	case TG_K_UINT:
		if (rd->pos >= rd->n)
			return -1;
		chunk_add(ch, rd->pos++, TG_CH_TAG);
		return 0;
	case TG_K_INTARR:
	case TG_K_IOV:
	case TG_K_FLOCK:
		return chunk_array(rd, ch);
	case TG_K_HSIZEARR:
		GET(x);
		return x ? chunk_array(rd, ch) : 0;
	case TG_K_STR:
	case TG_K_PATH:
		/* a reference or a local value's; not a template */
		if (rd->pos < rd->n && (rd->w[rd->pos] == TG_STR_REF || rd->w[rd->pos] == TG_STR_LOCAL))
			chunk_add(ch, rd->pos, TG_CH_STR);
		break;
	}
	return skip_arg(rd, kind, sub);
}

int tg_sig_chunks(const int64_t *w, size_t n, uint32_t *pos, uint8_t *type, size_t max)
{
	struct tg_sigrd r = { w, 0, n };
	struct chunks ch = { pos, type, 0, max };
	const struct tg_calldesc *d;
	int i;

	if (n >= 3 && (w[0] == TG_REC_TYPE || w[0] == TG_REC_COMM)) {
		/* a datatype's integers, a communicator's ranks */
		r.pos = 3;
		if (w[0] == TG_REC_COMM && (w[2] < 0 || w[2] > 1))
			return -1;
		for (i = 0; i < (w[0] == TG_REC_TYPE ? 3 : 1 + (int)w[2]); i++)
			if (chunk_array(&r, &ch) < 0)
				return -1;
		return r.pos == n && ch.n <= INT32_MAX ? (int)ch.n : -1;
	}
	if (n < 8 || w[0] != TG_REC_CALL || w[1] < 0 || w[1] > 0xffff ||
	    !(d = tg_call_lookup((unsigned)w[1])) || w[5] < 0 || (w[5] & ~TG_HP_TAGGED) > 2)
		return -1;
	r.pos = (w[5] & ~TG_HP_TAGGED) == 1 ? 8 : 7;	/* past the header and errno */
	for (i = 0; i < d->nargs && i < TG_MAX_ARGS; i++)
		if (chunk_arg(&r, &ch, d->args[i].kind, d->args[i].sub) < 0)
			return -1;
	if (r.pos + 1 < n && w[r.pos] == 0)	/* the return value, in form 0 */
		chunk_add(&ch, r.pos + 1, TG_CH_TAG);
	return ch.n > INT32_MAX ? -1 : (int)ch.n;
}

int tg_sig_call(const int64_t *w, size_t n, unsigned *func, unsigned *tid)
{
	if (n < 3 || w[0] != TG_REC_CALL)
		return 0;
	*func = (unsigned)w[1];
	*tid = (unsigned)w[2];
	return 1;
}
