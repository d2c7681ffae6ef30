/*
 * overlap-find - the byte ranges every data call of a run touched, and the
 * pairs of them that overlap with at least one write (the sweep of
 * Algorithm 4.1 in the dissertation, per file), plus the open, close and
 * commit events the consistency models need.  Reads the text records of
 * trace-decode (tangram-text(5)); writes the lines of overlap-find(1).
 *
 * Offsets are resolved per process, in the order its calls started (seq):
 * descriptors and streams keep their position, dup'd descriptors and a
 * fork'd child's share it, O_APPEND writes go to the end of what is known of
 * the file, and MPI-IO calls are placed through their file views, flattened
 * from the #type definitions.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../libcommon/tg.h"
#include "../libcommon/textin.h"
#include "../libcommon/util.h"
#include "flatten.h"

static const char usage_text[] =
	"usage: overlap-find [-ah] [-l posix|mpiio] [file]\n";

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

static const char *input_name = "standard input";
static long lineno;

static void die_input(const char *what)
{
	fflush(stdout);
	fprintf(stderr, "overlap-find: %s:%ld: %s\n", input_name, lineno, what);
	exit(TG_EXIT_ERROR);
}

#define xrealloc tg_xrealloc
#define xstrdup tg_xstrdup

/* ---- files --------------------------------------------------------------- */

struct access {
	uint64_t start, end;	/* bytes [start, end) */
	int64_t t0, t1;
	uint64_t seq;
	uint32_t proc;
	uint16_t func;
	uint8_t write;
};

struct file {
	char *path;
	uint64_t size;		/* as far as the trace tells */
	struct access *acc;
	size_t nacc, capacc;
	int announced;
};

static struct file *files;
static size_t nfiles;

static uint32_t file_of(const char *path)
{
	size_t i;

	for (i = nfiles; i-- > 0;)	/* recent files first */
		if (strcmp(files[i].path, path) == 0)
			return (uint32_t)i;
	if ((nfiles & (nfiles - 1)) == 0)
		files = xrealloc(files, (nfiles ? 2 * nfiles : 16) * sizeof(*files));
	memset(&files[nfiles], 0, sizeof(files[0]));
	files[nfiles].path = xstrdup(path);
	return (uint32_t)nfiles++;
}

static void put_quoted(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c < 0x20 || c == 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void announce(uint32_t f)
{
	if (files[f].announced)
		return;
	files[f].announced = 1;
	printf("#file\tfile=%u\tpath=", f);
	put_quoted(files[f].path);
	putchar('\n');
}

/* ---- function names (for the pair lines) ------------------------------- */

static char **fnames;
static size_t nfnames;

static uint16_t fname_id(const char *s)
{
	static size_t last;
	size_t i;

	if (last < nfnames && strcmp(fnames[last], s) == 0)
		return (uint16_t)last;
	for (i = 0; i < nfnames; i++)
		if (strcmp(fnames[i], s) == 0)
			return (uint16_t)(last = i);
	for (i = 0; i < nfnames; i++)
		if (strcmp(fnames[i], s) == 0)
			return (uint16_t)i;
	if (nfnames >= 65535)
		return 0;
	fnames = xrealloc(fnames, (nfnames + 1) * sizeof(*fnames));
	fnames[nfnames] = xstrdup(s);
	return (uint16_t)nfnames++;
}

/* ---- processes ---------------------------------------------------------------- */

/* An open file description: what descriptors and streams point at. */
struct desc {
	uint32_t file;
	uint64_t off;
	int append;
	int refs;
};

/* An MPI file handle with its view. */
struct mfile {
	char id[24];
	uint32_t file;
	uint64_t disp;
	struct tg_flat *etype, *ftype;
	uint64_t ptr;		/* individual pointer, in etypes */
};

struct slot {
	char key[24];		/* "3" for fd 3, "s4" for a stream */
	struct desc *d;
};

struct proc {
	char *name;		/* the rank column */
	char *cwd;
	int64_t pid;
	struct slot *slots;
	size_t nslots;
	struct mfile *mf;
	size_t nmf;
	struct tg_types *types;
	uint64_t untracked;	/* data calls on descriptors we never saw opened */
	uint64_t unplaced;	/* data calls whose bytes could not be placed */
	int deferred, started;	/* kept for the run in time order */
	uint64_t *nordered;	/* MPI-IO ordered calls so far, by file */
	size_t capordered;
};

static struct proc *procs;
static size_t nprocs;

/* The descriptors a fork gave a child, by its pid. */
struct forked {
	int64_t pid;
	struct slot *slots;
	size_t nslots;
};
static struct forked *forks;
static size_t nforks;

static struct slot *slot_find(struct proc *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->nslots; i++)
		if (strcmp(p->slots[i].key, key) == 0)
			return &p->slots[i];
	return NULL;
}

static void slot_drop(struct proc *p, const char *key)
{
	struct slot *s = slot_find(p, key);

	if (!s)
		return;
	if (--s->d->refs == 0)
		free(s->d);
	*s = p->slots[--p->nslots];
}

static void slot_set(struct proc *p, const char *key, struct desc *d)
{
	struct slot *s;

	slot_drop(p, key);
	p->slots = xrealloc(p->slots, (p->nslots + 1) * sizeof(*p->slots));
	s = &p->slots[p->nslots++];
	snprintf(s->key, sizeof(s->key), "%s", key);
	s->d = d;
	d->refs++;
}

static struct desc *desc_new(uint32_t file, int append)
{
	struct desc *d = xrealloc(NULL, sizeof(*d));

	d->file = file;
	d->off = 0;
	d->append = append;
	d->refs = 0;
	return d;
}

/* ---- records of one process --------------------------------------------- */

enum op {
	OP_OPEN, OP_CLOSE, OP_DUP, OP_DUP2, OP_FCNTL, OP_READ, OP_WRITE, OP_PREAD,
	OP_PWRITE, OP_LSEEK, OP_FTRUNC, OP_TRUNC, OP_SYNC, OP_FOPEN, OP_FDOPEN,
	OP_FREOPEN, OP_FCLOSE, OP_FFLUSH, OP_FREAD, OP_FWRITE, OP_FPRINTF,
	OP_FPUTC, OP_FGETC, OP_FSEEK, OP_REWIND, OP_FTELL, OP_DPRINTF, OP_FORK,
	OP_UNRESOLVED,
	/* MPI-IO */
	OP_MOPEN, OP_MCLOSE, OP_MSYNC, OP_MVIEW, OP_MSEEK, OP_MREAD, OP_MWRITE,
	OP_MSETSIZE, OP_TYPE,
};

struct rec {
	uint64_t seq;
	int64_t t0, t1, ret;
	enum op op;
	uint16_t func;
	int write;
	int64_t a[4];		/* numeric arguments, per op */
	char k1[24], k2[24];	/* descriptor / stream / handle keys */
	char *s;		/* path or mode; the #type line for OP_TYPE */
	int explicit_off;	/* MPI-IO: a[1] holds an offset in etypes */
	int shared;		/* MPI-IO: a shared-pointer call */
	int ordered;		/* MPI-IO: an ordered call; a[2] the pointer after */
};

/* An ordered MPI-IO call waits for the calls of the other ranks: each
 * rank's bytes follow those of the lower ranks, and all end where the
 * shared pointer stood after the call. */
struct pend {
	uint32_t proc, file;
	uint64_t k;		/* the k-th ordered call of the process on the file */
	int64_t rankno, bytes, after;
	uint64_t disp;
	struct tg_flat *etype, *ftype;
	struct rec r;
};
static struct pend *pends;
static size_t npends;

static struct rec *recs;
static size_t nrecs, caprecs;
static struct proc *cur;
static int layer_mpiio;
static char *pending_types;	/* #type lines before the next call record */
static size_t npending, cappending;

static struct rec *rec_add(void)
{
	if (nrecs == caprecs) {
		caprecs = caprecs ? 2 * caprecs : 1024;
		recs = xrealloc(recs, caprecs * sizeof(*recs));
	}
	memset(&recs[nrecs], 0, sizeof(recs[0]));
	return &recs[nrecs++];
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	/* type definitions go just before the call that made them */
	return (y->op == OP_TYPE) - (x->op == OP_TYPE);
}

static void event(uint32_t f, const struct rec *r, const char *kind)
{
	announce(f);
	printf("#event\tfile=%u\trank=%s\tseq=%" PRIu64 "\tt=%" PRId64 ".%09" PRId64
	       "\tkind=%s\tfunc=%s\n", f, cur->name, r->seq, r->t0 / 1000000000,
	       r->t0 % 1000000000, kind, fnames[r->func]);
}

static void add_access(uint32_t f, const struct rec *r, uint64_t start, uint64_t len,
		       int write)
{
	struct file *fl = &files[f];
	struct access *a;

	if (len == 0)
		return;
	if (fl->nacc == fl->capacc) {
		fl->capacc = fl->capacc ? 2 * fl->capacc : 64;
		fl->acc = xrealloc(fl->acc, fl->capacc * sizeof(*fl->acc));
	}
	a = &fl->acc[fl->nacc++];
	a->start = start;
	a->end = start + len;
	a->t0 = r->t0;
	a->t1 = r->t1;
	a->seq = r->seq;
	a->proc = (uint32_t)(cur - procs);
	a->func = r->func;
	a->write = (uint8_t)write;
	if (write && a->end > fl->size)
		fl->size = a->end;
}

/* A read or write of @n bytes through description @d (at its position). */
static void data_at_pos(struct desc *d, const struct rec *r, uint64_t n, int write)
{
	if (write && d->append)
		d->off = files[d->file].size;
	add_access(d->file, r, d->off, n, write);
	d->off += n;
}

static struct desc *desc_of(const char *key)
{
	struct slot *s = slot_find(cur, key);

	return s ? s->d : NULL;
}

static void commit_all_streams(const struct rec *r)
{
	size_t i;

	for (i = 0; i < cur->nslots; i++)
		if (cur->slots[i].key[0] == 's')
			event(cur->slots[i].d->file, r, "commit");
}

static struct mfile *mfile_of(const char *id)
{
	size_t i;

	for (i = 0; i < cur->nmf; i++)
		if (strcmp(cur->mf[i].id, id) == 0)
			return &cur->mf[i];
	return NULL;
}

/* An MPI-IO data call: @n bytes from @pos etypes into the view of @m. */
static void mpi_data(struct mfile *m, const struct rec *r, uint64_t pos, uint64_t n,
		     int write)
{
	uint64_t esz = tg_flat_size(m->etype);
	struct tg_extent ex[256];
	uint64_t from = pos * (esz ? esz : 1), done = 0;

	while (done < n) {
		size_t k = tg_flat_map(m->ftype, m->disp, from + done, n - done, ex, 256), i;
		if (k == 0)
			break;
		for (i = 0; i < k; i++) {
			add_access(m->file, r, ex[i].off, ex[i].len, write);
			done += ex[i].len;
		}
	}
	if (done < n)
		cur->unplaced++;	/* an unplaceable view, or a negative offset */
}

static void run_rec(struct rec *r)
{
	struct desc *d;
	char key[24];

	switch (r->op) {
	case OP_OPEN:
		if (r->ret < 0 || !r->s)
			return;
		{
			uint32_t f = file_of(r->s);
			d = desc_new(f, (int)r->a[1]);
			if (r->a[2])
				files[f].size = 0;
			snprintf(key, sizeof(key), "%" PRId64, r->ret);
			slot_set(cur, key, d);
			event(f, r, "open");
		}
		return;
	case OP_FOPEN:
	case OP_FREOPEN:
		if (r->ret < 0 || !r->s)
			return;
		{
			uint32_t f = file_of(r->s);
			if (r->op == OP_FREOPEN && (d = desc_of(r->k1)))
				event(d->file, r, "close");
			d = desc_new(f, (int)r->a[1]);
			if (r->a[2])
				files[f].size = 0;
			snprintf(key, sizeof(key), "s%" PRId64, r->ret);
			slot_set(cur, key, d);
			event(f, r, "open");
		}
		return;
	case OP_FDOPEN:
		if (r->ret < 0 || !(d = desc_of(r->k1)))
			return;
		snprintf(key, sizeof(key), "s%" PRId64, r->ret);
		slot_set(cur, key, d);
		return;
	case OP_CLOSE:
	case OP_FCLOSE:
		if (!(d = desc_of(r->k1)))
			return;
		if (r->ret == 0) {
			event(d->file, r, "commit");
			event(d->file, r, "close");
		}
		slot_drop(cur, r->k1);
		return;
	case OP_DUP:
	case OP_FCNTL:
		if (r->ret < 0 || !(d = desc_of(r->k1)))
			return;
		snprintf(key, sizeof(key), "%" PRId64, r->ret);
		slot_set(cur, key, d);
		return;
	case OP_DUP2:
		if (r->ret < 0 || !(d = desc_of(r->k1)) || strcmp(r->k1, r->k2) == 0)
			return;
		slot_set(cur, r->k2, d);
		return;
	case OP_READ:
	case OP_WRITE:
	case OP_FREAD:
	case OP_FWRITE:
	case OP_FPRINTF:
	case OP_FPUTC:
	case OP_FGETC:
	case OP_DPRINTF:
		if (r->a[0] <= 0)
			return;
		if (!(d = desc_of(r->k1))) {
			cur->untracked++;
			return;
		}
		data_at_pos(d, r, (uint64_t)r->a[0], r->write);
		return;
	case OP_PREAD:
	case OP_PWRITE:
		if (r->ret <= 0)
			return;
		if (!(d = desc_of(r->k1))) {
			cur->untracked++;
			return;
		}
		if (r->a[1] < 0)	/* preadv2 with offset -1: the position */
			data_at_pos(d, r, (uint64_t)r->ret, r->write);
		else
			add_access(d->file, r, (uint64_t)r->a[1], (uint64_t)r->ret, r->write);
		return;
	case OP_LSEEK:
	case OP_FTELL:
		if (r->ret >= 0 && (d = desc_of(r->k1)))
			d->off = (uint64_t)r->ret;
		return;
	case OP_FSEEK:
		if (r->ret != 0 || !(d = desc_of(r->k1)))
			return;
		if (r->a[1] == 0)
			d->off = (uint64_t)r->a[0];
		else if (r->a[1] == 1)
			d->off += (uint64_t)r->a[0];
		else if (r->a[1] == 2)
			d->off = files[d->file].size + (uint64_t)r->a[0];
		return;
	case OP_REWIND:
		if ((d = desc_of(r->k1)))
			d->off = 0;
		return;
	case OP_FTRUNC:
		if (r->ret == 0 && (d = desc_of(r->k1)))
			files[d->file].size = (uint64_t)r->a[0];
		return;
	case OP_TRUNC:
		if (r->ret == 0 && r->s)
			files[file_of(r->s)].size = (uint64_t)r->a[0];
		return;
	case OP_SYNC:
		if (r->ret == 0 && (d = desc_of(r->k1)))
			event(d->file, r, "commit");
		return;
	case OP_FFLUSH:
		if (r->ret != 0)
			return;
		if (!r->k1[0])
			commit_all_streams(r);
		else if ((d = desc_of(r->k1)))
			event(d->file, r, "commit");
		return;
	case OP_FORK:
		if (r->ret > 0) {
			struct forked *fk;
			size_t i;
			forks = xrealloc(forks, (nforks + 1) * sizeof(*forks));
			fk = &forks[nforks++];
			fk->pid = r->ret;
			fk->nslots = cur->nslots;
			fk->slots = xrealloc(NULL, cur->nslots * sizeof(*fk->slots));
			memcpy(fk->slots, cur->slots, cur->nslots * sizeof(*fk->slots));
			for (i = 0; i < fk->nslots; i++)
				fk->slots[i].d->refs++;
		}
		return;
	case OP_UNRESOLVED:
		if (r->ret > 0)
			cur->unplaced++;
		return;
	case OP_TYPE:
		if (tg_types_define(cur->types, r->s) < 0)
			die_input("corrupt #type line");
		return;
	case OP_MOPEN:
		if (r->ret != 0 || !r->s)
			return;
		{
			struct mfile *m;
			cur->mf = xrealloc(cur->mf, (cur->nmf + 1) * sizeof(*cur->mf));
			m = &cur->mf[cur->nmf++];
			memset(m, 0, sizeof(*m));
			snprintf(m->id, sizeof(m->id), "%s", r->k1);
			m->file = file_of(r->s);
			m->etype = m->ftype = tg_types_get(cur->types, "MPI_BYTE");
			if (r->a[2])
				files[m->file].size = 0;
			event(m->file, r, "open");
		}
		return;
	case OP_MCLOSE:
		{
			struct mfile *m = mfile_of(r->k1);
			if (!m)
				return;
			if (r->ret == 0) {
				event(m->file, r, "commit");
				event(m->file, r, "close");
			}
			*m = cur->mf[--cur->nmf];
		}
		return;
	case OP_MSYNC:
		{
			struct mfile *m = mfile_of(r->k1);
			if (m && r->ret == 0)
				event(m->file, r, "commit");
		}
		return;
	case OP_MSETSIZE:
		{
			struct mfile *m = mfile_of(r->k1);
			if (m && r->ret == 0)
				files[m->file].size = (uint64_t)r->a[0];
		}
		return;
	case OP_MVIEW:
		{
			struct mfile *m = mfile_of(r->k1);
			struct tg_flat *e, *f;
			if (!m || r->ret != 0)
				return;
			e = tg_types_get(cur->types, r->s);
			f = tg_types_get(cur->types, r->s + strlen(r->s) + 1);
			if (!e || !f) {
				/* its data is unplaced, not placed through the old view */
				cur->unplaced++;
				m->ftype = NULL;
				return;
			}
			m->disp = (uint64_t)r->a[0];
			m->etype = e;
			m->ftype = f;
			m->ptr = 0;
		}
		return;
	case OP_MSEEK:
		{
			struct mfile *m = mfile_of(r->k1);
			if (m && r->ret == 0 && r->a[1] == 600)	/* MPI_SEEK_SET */
				m->ptr = (uint64_t)r->a[0];
			else if (m && r->ret == 0 && r->a[1] == 602)	/* MPI_SEEK_CUR */
				m->ptr += (uint64_t)r->a[0];
		}
		return;
	case OP_MREAD:
	case OP_MWRITE:
		{
			struct mfile *m = mfile_of(r->k1);
			uint64_t esz;
			if (!m || r->ret != 0 || r->a[0] <= 0)
				return;
			if (r->ordered && r->a[2] >= 0) {
				struct pend *p;
				int64_t rk;
				if (tg_tint(cur->name, &rk) < 0) {
					cur->unplaced++;
					return;
				}
				if (m->file >= cur->capordered) {
					size_t nc = m->file + 16;
					cur->nordered = xrealloc(cur->nordered, nc * sizeof(uint64_t));
					memset(cur->nordered + cur->capordered, 0,
					       (nc - cur->capordered) * sizeof(uint64_t));
					cur->capordered = nc;
				}
				pends = xrealloc(pends, (npends + 1) * sizeof(*pends));
				p = &pends[npends++];
				p->proc = (uint32_t)(cur - procs);
				p->file = m->file;
				p->k = cur->nordered[m->file]++;
				p->rankno = rk;
				p->bytes = r->a[0];
				p->after = r->a[2];
				p->disp = m->disp;
				p->etype = m->etype;
				p->ftype = m->ftype;
				p->r = *r;
				p->r.s = NULL;
				return;
			}
			if (r->a[1] < 0) {
				cur->unplaced++;
				return;
			}
			mpi_data(m, r, (uint64_t)r->a[1], (uint64_t)r->a[0], r->op == OP_MWRITE);
			esz = tg_flat_size(m->etype);
			if (!r->explicit_off && !r->shared && esz)
				m->ptr = (uint64_t)r->a[1] + (uint64_t)r->a[0] / esz;
		}
		return;
	}
}

/* Inherit the descriptors a fork gave this process. */
static void take_fork(struct proc *p)
{
	size_t i, j;

	for (i = 0; i < nforks; i++) {
		if (forks[i].pid != p->pid)
			continue;
		for (j = 0; j < forks[i].nslots; j++) {
			slot_set(p, forks[i].slots[j].key, forks[i].slots[j].d);
			if (--forks[i].slots[j].d->refs == 0)
				free(forks[i].slots[j].d);
		}
		free(forks[i].slots);
		forks[i] = forks[--nforks];
		return;
	}
}

/*
 * Processes that fork, and their children, share file positions through
 * the descriptors they inherit: their records are kept until the end and
 * run together in time order.  Every other process is run on its own as
 * soon as its stream ends, so memory does not grow with their records.
 */
struct drec {
	struct rec r;
	uint32_t proc;
	size_t idx;		/* position in the process's own order */
};
static struct drec *deferred;
static size_t ndeferred, capdeferred;
static int64_t *family;		/* pids of fork'd children seen in fork records */
static size_t nfamily;

static void end_proc(struct proc *p)
{
	if (p->untracked || p->unplaced)
		printf("#unplaced\trank=%s\tuntracked=%" PRIu64 "\tunplaced=%" PRIu64 "\n",
		       p->name, p->untracked, p->unplaced);
	while (p->nslots)
		slot_drop(p, p->slots[0].key);
}

static void finish_proc(void)
{
	size_t i;
	int defer = 0;

	if (!cur)
		return;
	for (i = 0; i < nfamily && !defer; i++)
		defer = family[i] == cur->pid;
	for (i = 0; i < nrecs; i++)
		if (recs[i].op == OP_FORK && recs[i].ret > 0) {
			defer = 1;
			family = xrealloc(family, (nfamily + 1) * sizeof(*family));
			family[nfamily++] = recs[i].ret;
		}
	for (i = 1; i < nrecs && cmp_rec(&recs[i - 1], &recs[i]) <= 0; i++)
		;
	if (i < nrecs)	/* threads, or calls nested in others: not in start order */
		qsort(recs, nrecs, sizeof(*recs), cmp_rec);
	if (defer) {
		for (i = 0; i < nrecs; i++) {
			if (ndeferred == capdeferred) {
				capdeferred = capdeferred ? 2 * capdeferred : 1024;
				deferred = xrealloc(deferred, capdeferred * sizeof(*deferred));
			}
			deferred[ndeferred].r = recs[i];
			deferred[ndeferred].idx = ndeferred;
			deferred[ndeferred++].proc = (uint32_t)(cur - procs);
		}
		cur->deferred = 1;
		nrecs = 0;
		cur = NULL;
		return;
	}
	take_fork(cur);
	for (i = 0; i < nrecs; i++) {
		run_rec(&recs[i]);
		free(recs[i].s);
	}
	nrecs = 0;
	end_proc(cur);
	cur = NULL;
}

static int cmp_drec(const void *a, const void *b)
{
	const struct drec *x = a, *y = b;

	if (x->proc == y->proc)		/* a process keeps its own order */
		return (x->idx > y->idx) - (x->idx < y->idx);
	if (x->r.t0 != y->r.t0)
		return x->r.t0 < y->r.t0 ? -1 : 1;
	return (x->proc > y->proc) - (x->proc < y->proc);
}

static void run_deferred(void)
{
	size_t i;

	if (ndeferred)	/* (never qsort a NULL array, even empty) */
		qsort(deferred, ndeferred, sizeof(*deferred), cmp_drec);
	for (i = 0; i < ndeferred; i++) {
		cur = &procs[deferred[i].proc];
		if (!cur->started) {
			cur->started = 1;
			take_fork(cur);
		}
		run_rec(&deferred[i].r);
		free(deferred[i].r.s);
	}
	for (i = 0; i < nprocs; i++)
		if (procs[i].deferred)
			end_proc(&procs[i]);
	cur = NULL;
}

/* ---- parsing -------------------------------------------------------------------- */

static int64_t num_arg(const struct tg_tline *t, const char *name, int64_t dflt)
{
	const char *v = tg_tline_arg(t, TG_COL_ARGS, name);
	int64_t x;

	if (!v)
		return dflt;
	if (tg_tint(v, &x) < 0)
		die_input("bad number");
	return x;
}

static char *path_arg(const struct tg_tline *t, const char *name)
{
	const char *v = tg_tline_arg(t, TG_COL_ARGS, name);
	char buf[8192];
	int rc;

	if (!v)
		return NULL;
	rc = tg_tunquote(v, buf, sizeof(buf));
	if (rc < 0)
		die_input("bad string value");
	return rc == 0 ? xstrdup(buf) : NULL;
}

/* An MPI-IO file name, made absolute against the process's cwd; an
 * "ufs:"-style prefix names the driver, not the path. */
static char *mpi_path(const struct tg_tline *t)
{
	char *s = path_arg(t, "filename"), *p, *out;
	size_t n;

	if (!s)
		return NULL;
	p = strchr(s, ':');
	p = p && p - s > 1 && !strchr(s, '/') ? p + 1 : (p && p - s > 1 && p < strchr(s, '/') ? p + 1 : s);
	if (*p == '/' || !cur->cwd) {
		out = xstrdup(p);
	} else {
		n = strlen(cur->cwd) + strlen(p) + 2;
		out = xrealloc(NULL, n);
		snprintf(out, n, "%s/%s", cur->cwd, p);
	}
	free(s);
	return out;
}

static void key_arg(const struct tg_tline *t, const char *name, char *key)
{
	const char *v = tg_tline_arg(t, TG_COL_ARGS, name);

	snprintf(key, 24, "%s", v && strcmp(v, "NULL") != 0 ? v : "");
}

static int has_flag(const char *flags, const char *f)
{
	size_t n = strlen(f);
	const char *p = flags;

	while (p && (p = strstr(p, f))) {
		if ((p == flags || p[-1] == '|') && (p[n] == 0 || p[n] == '|'))
			return 1;
		p += n;
	}
	return 0;
}

/* fopen modes: "a" appends, "w" truncates. */
static void mode_flags(const char *mode, struct rec *r)
{
	r->a[1] = mode && mode[0] == 'a';
	r->a[2] = mode && mode[0] == 'w';
}

static int streq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* The name without a "64" or "_unlocked" suffix. */
static void base_name(const char *f, char *out, size_t cap)
{
	size_t n = strlen(f);

	snprintf(out, cap, "%s", f);
	if (n > 2 && streq(f + n - 2, "64"))
		out[n - 2] = 0;
	else if (n > 9 && streq(f + n - 9, "_unlocked"))
		out[n - 9] = 0;
}

static void posix_rec(const struct tg_tline *t, const char *fn, struct rec *r)
{
	char b[64];
	const char *v;

	base_name(fn, b, sizeof(b));
	if (streq(b, "pwrite") || streq(b, "pread") || streq(b, "preadv") ||
	    streq(b, "pwritev") || streq(b, "preadv2") || streq(b, "pwritev2")) {
		r->op = b[1] == 'r' ? OP_PREAD : OP_PWRITE;
		r->write = b[1] == 'w';
		key_arg(t, "fd", r->k1);
		r->a[1] = num_arg(t, "offset", -1);
	} else if (streq(b, "write") || streq(b, "read") || streq(b, "readv") ||
		   streq(b, "writev")) {
		r->op = b[0] == 'r' ? OP_READ : OP_WRITE;
		r->write = b[0] == 'w';
		key_arg(t, "fd", r->k1);
		r->a[0] = r->ret;
	} else if (streq(b, "open") || streq(b, "openat") || streq(b, "creat")) {
		r->op = OP_OPEN;
		r->s = path_arg(t, "path");
		v = tg_tline_arg(t, TG_COL_ARGS, "flags");
		r->a[1] = v && has_flag(v, "O_APPEND");
		r->a[2] = streq(b, "creat") || (v && has_flag(v, "O_TRUNC"));
		if (v && has_flag(v, "O_DIRECTORY")) {
			free(r->s);
			r->s = NULL;	/* a directory: no data */
		}
	} else if (streq(b, "close")) {
		r->op = OP_CLOSE;
		key_arg(t, "fd", r->k1);
	} else if (streq(b, "dup")) {
		r->op = OP_DUP;
		key_arg(t, "oldfd", r->k1);
	} else if (streq(b, "dup2") || streq(b, "dup3")) {
		r->op = OP_DUP2;
		key_arg(t, "oldfd", r->k1);
		key_arg(t, "newfd", r->k2);
	} else if (streq(b, "fcntl")) {
		v = tg_tline_arg(t, TG_COL_ARGS, "cmd");
		if (!v || (!streq(v, "F_DUPFD") && !streq(v, "F_DUPFD_CLOEXEC")))
			return;
		r->op = OP_FCNTL;
		key_arg(t, "fd", r->k1);
	} else if (streq(b, "lseek")) {
		r->op = OP_LSEEK;
		key_arg(t, "fd", r->k1);
	} else if (streq(b, "ftruncate")) {
		r->op = OP_FTRUNC;
		key_arg(t, "fd", r->k1);
		r->a[0] = num_arg(t, "length", 0);
	} else if (streq(b, "truncate")) {
		r->op = OP_TRUNC;
		r->s = path_arg(t, "path");
		r->a[0] = num_arg(t, "length", 0);
	} else if (streq(b, "fsync") || streq(b, "fdatasync")) {
		r->op = OP_SYNC;
		key_arg(t, "fd", r->k1);
	} else if (streq(b, "dprintf") || streq(b, "vdprintf")) {
		r->op = OP_DPRINTF;
		r->write = 1;
		key_arg(t, "fd", r->k1);
		r->a[0] = r->ret;
	} else if (streq(b, "fork") || streq(b, "vfork")) {
		r->op = OP_FORK;
	} else if (streq(b, "mmap")) {
		r->op = OP_UNRESOLVED;	/* bytes reached through memory: not placed */
		r->ret = 1;
	} else {
		r->op = -1;
	}
}

static void stdio_rec(const struct tg_tline *t, const char *fn, struct rec *r)
{
	char b[64];
	char *mode;

	base_name(fn, b, sizeof(b));
	key_arg(t, "stream", r->k1);
	if (streq(b, "fopen") || streq(b, "freopen")) {
		r->op = streq(b, "fopen") ? OP_FOPEN : OP_FREOPEN;
		r->s = path_arg(t, "path");
		mode = path_arg(t, "mode");
		mode_flags(mode, r);
		free(mode);
		r->ret = r->ret >= 0 ? r->ret : -1;
	} else if (streq(b, "fdopen")) {
		r->op = OP_FDOPEN;
		key_arg(t, "fd", r->k1);
	} else if (streq(b, "fclose")) {
		r->op = OP_FCLOSE;
	} else if (streq(b, "fflush")) {
		r->op = OP_FFLUSH;
	} else if (streq(b, "fread") || streq(b, "fwrite")) {
		r->op = b[1] == 'r' ? OP_FREAD : OP_FWRITE;
		r->write = b[1] == 'w';
		r->a[0] = r->ret > 0 ? r->ret * num_arg(t, "size", 0) : 0;
	} else if (streq(b, "fprintf") || streq(b, "vfprintf")) {
		r->op = OP_FPRINTF;
		r->write = 1;
		r->a[0] = r->ret;
	} else if (streq(b, "fputc") || streq(b, "putc")) {
		r->op = OP_FPUTC;
		r->write = 1;
		r->a[0] = r->ret >= 0 ? 1 : 0;
	} else if (streq(b, "fgetc") || streq(b, "getc")) {
		r->op = OP_FGETC;
		r->a[0] = r->ret >= 0 ? 1 : 0;
	} else if (streq(b, "fseek") || streq(b, "fseeko")) {
		const char *w = tg_tline_arg(t, TG_COL_ARGS, "whence");
		r->op = OP_FSEEK;
		r->a[0] = num_arg(t, "offset", 0);
		r->a[1] = !w ? -1 : streq(w, "SEEK_SET") ? 0 : streq(w, "SEEK_CUR") ? 1 :
			  streq(w, "SEEK_END") ? 2 : -1;
	} else if (streq(b, "rewind")) {
		r->op = OP_REWIND;
	} else if (streq(b, "ftell") || streq(b, "ftello")) {
		r->op = OP_FTELL;
	} else if (streq(b, "fputs") || streq(b, "fgets") || streq(b, "fscanf") ||
		   streq(b, "vfscanf") || streq(b, "getline") || streq(b, "getdelim")) {
		r->op = OP_UNRESOLVED;	/* the byte count is not in the record */
		r->ret = 1;
	} else {
		r->op = -1;
	}
}

/* The bytes an MPI-IO status says moved: "{bytes:N}". */
static int64_t io_bytes(const struct tg_tline *t)
{
	const char *v = tg_tline_arg(t, TG_COL_ARGS, "status");
	int64_t n;

	if (!v || strncmp(v, "{bytes:", 7) != 0)
		return -1;
	n = strtoll(v + 7, NULL, 10);
	return n;
}

static void mpiio_rec(const struct tg_tline *t, const char *fn, struct rec *r)
{
	const char *op;

	if (strncmp(fn, "MPI_File_", 9) != 0) {
		r->op = -1;
		return;
	}
	op = fn + 9;
	key_arg(t, "fh", r->k1);
	if (streq(op, "open")) {
		int64_t amode = num_arg(t, "amode", 0);
		r->op = OP_MOPEN;
		r->s = mpi_path(t);
		r->a[2] = 0;
		(void)amode;
	} else if (streq(op, "close")) {
		r->op = OP_MCLOSE;
	} else if (streq(op, "sync")) {
		r->op = OP_MSYNC;
	} else if (streq(op, "set_size")) {
		r->op = OP_MSETSIZE;
		r->a[0] = num_arg(t, "size", 0);
	} else if (streq(op, "set_view")) {
		const char *e = tg_tline_arg(t, TG_COL_ARGS, "etype");
		const char *f = tg_tline_arg(t, TG_COL_ARGS, "filetype");
		size_t ne, nf;
		if (!e || !f)
			die_input("MPI_File_set_view without etype or filetype");
		ne = strlen(e);
		nf = strlen(f);
		r->op = OP_MVIEW;
		r->a[0] = num_arg(t, "disp", 0);
		r->s = xrealloc(NULL, ne + nf + 2);
		memcpy(r->s, e, ne + 1);
		memcpy(r->s + ne + 1, f, nf + 1);
	} else if (streq(op, "seek")) {
		r->op = OP_MSEEK;
		r->a[0] = num_arg(t, "offset", 0);
		r->a[1] = num_arg(t, "whence", -1);
	} else {
		/* data calls: read, write, *_at, *_all, *_shared, *_ordered,
		 * i*, *_begin; the _end halves moved nothing new */
		char b[64];
		size_t n;
		snprintf(b, sizeof(b), "%s", op);
		n = strlen(b);
		if (n > 2 && streq(b + n - 2, "_c"))
			b[n -= 2] = 0;
		if (strstr(b, "_end") || (strncmp(b, "read", 4) != 0 && strncmp(b, "write", 5) != 0 &&
					  strncmp(b, "iread", 5) != 0 && strncmp(b, "iwrite", 6) != 0)) {
			r->op = -1;
			return;
		}
		r->op = strstr(b, "write") ? OP_MWRITE : OP_MREAD;
		r->write = r->op == OP_MWRITE;
		r->a[0] = io_bytes(t);
		if (r->a[0] < 0)	/* nonblocking or split: count times type size */
			r->a[0] = -1;
		if (strstr(b, "_at")) {
			r->explicit_off = 1;
			r->a[1] = num_arg(t, "offset", -1);
		} else if (strstr(b, "_shared")) {
			r->shared = 1;
			r->a[1] = num_arg(t, "shared_before", -1);
		} else if (strstr(b, "_ordered")) {
			r->shared = 1;
			r->ordered = 1;
			r->a[1] = -1;	/* placed from all ranks: see place_ordered() */
			r->a[2] = num_arg(t, "shared_after", -1);
		} else {
			r->a[1] = num_arg(t, "position", -1);
		}
		if (r->a[0] < 0) {
			/* no status: count * size of the datatype */
			struct tg_flat *dt = tg_types_get(cur->types,
							  tg_tline_arg(t, TG_COL_ARGS, "datatype"));
			int64_t cnt = num_arg(t, "count", 0);
			r->a[0] = dt ? cnt * (int64_t)tg_flat_size(dt) : 0;
		}
	}
}

static void take_types(void)
{
	size_t i = 0;

	while (i < npending) {
		struct rec *r = rec_add();
		size_t n = strlen(pending_types + i);
		r->op = OP_TYPE;
		r->s = xstrdup(pending_types + i);
		r->seq = UINT64_MAX;	/* fixed below */
		i += n + 1;
	}
	npending = 0;
}

static void call_line(struct tg_tline *t)
{
	const char *layer, *fn;
	struct rec *r;
	int64_t seq, ret;
	size_t first_type = nrecs;

	if (t->nf < TG_COL_ARGS)
		die_input("not a call record (too few fields)");
	if (!cur)
		die_input("call record before any #proc line");
	if (tg_tint(t->f[TG_COL_SEQ], &seq) < 0 || seq < 0)
		die_input("bad seq");
	take_types();
	for (; first_type < nrecs; first_type++)
		recs[first_type].seq = (uint64_t)seq;
	layer = t->f[TG_COL_LAYER];
	fn = t->f[TG_COL_FUNC];
	if (layer_mpiio ? !streq(layer, "mpiio")
			: !streq(layer, "posix") && !streq(layer, "stdio"))
		return;
	r = rec_add();
	r->seq = (uint64_t)seq;
	r->t0 = tg_ttime(t->f[TG_COL_TSTART]);
	r->t1 = tg_ttime(t->f[TG_COL_TEND]);
	if (r->t0 < 0 || r->t1 < 0)
		die_input("bad time");
	ret = 0;
	if (t->f[TG_COL_RET][0] == 's')	/* a stream id */
		tg_tint(t->f[TG_COL_RET] + 1, &ret);
	else if (streq(t->f[TG_COL_RET], "NULL") || streq(t->f[TG_COL_RET], "-"))
		ret = streq(t->f[TG_COL_RET], "-") ? 0 : -1;
	else if (tg_tint(t->f[TG_COL_RET], &ret) < 0)
		ret = 0;	/* an id or pointer: success */
	r->ret = ret;
	r->func = fname_id(fn);
	if (tg_tline_arg(t, TG_COL_ARGS, "errno"))
		r->ret = -1;
	if (layer_mpiio)
		mpiio_rec(t, fn, r);
	else if (streq(layer, "posix"))
		posix_rec(t, fn, r);
	else
		stdio_rec(t, fn, r);
	if ((int)r->op == -1) {
		free(r->s);
		nrecs--;
	}
	if (layer_mpiio && r->op == OP_MOPEN && (int)r->op != -1) {
		/* the handle is an output argument */
		key_arg(t, "fh", r->k1);
	}
}

static void proc_line(struct tg_tline *t)
{
	const char *v;
	char buf[8192];

	finish_proc();
	procs = xrealloc(procs, (nprocs + 1) * sizeof(*procs));
	cur = &procs[nprocs++];
	memset(cur, 0, sizeof(*cur));
	v = tg_tline_arg(t, 1, "rank");
	if (!v)
		die_input("#proc line without rank=");
	cur->name = xstrdup(v);
	v = tg_tline_arg(t, 1, "pid");
	if (!v || tg_tint(v, &cur->pid) < 0)
		die_input("#proc line without pid=");
	v = tg_tline_arg(t, 1, "cwd");
	if (v && tg_tunquote(v, buf, sizeof(buf)) == 0)
		cur->cwd = xstrdup(buf);
	cur->types = tg_types_new();
}

static void type_line(const char *line)
{
	size_t n = strlen(line) + 1;

	if (npending + n > cappending) {
		cappending = (npending + n) * 2;
		pending_types = xrealloc(pending_types, cappending);
	}
	memcpy(pending_types + npending, line, n);
	npending += n;
}

static int cmp_pend(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return (x->rankno > y->rankno) - (x->rankno < y->rankno);
}

static void place_ordered(void)
{
	size_t i, j;

	if (npends)
		qsort(pends, npends, sizeof(*pends), cmp_pend);
	for (i = 0; i < npends; i = j) {
		int64_t total = 0, at;
		uint64_t esz = tg_flat_size(pends[i].etype);
		for (j = i; j < npends && pends[j].file == pends[i].file &&
			    pends[j].k == pends[i].k; j++)
			total += pends[j].bytes;
		if (!esz)
			esz = 1;
		at = pends[i].after * (int64_t)esz - total;
		for (size_t q = i; q < j; q++) {
			struct mfile m;
			memset(&m, 0, sizeof(m));
			m.file = pends[q].file;
			m.disp = pends[q].disp;
			m.etype = pends[q].etype;
			m.ftype = pends[q].ftype;
			cur = &procs[pends[q].proc];
			if (at >= 0)
				mpi_data(&m, &pends[q].r, (uint64_t)at / esz,
					 (uint64_t)pends[q].bytes, pends[q].r.op == OP_MWRITE);
			at += pends[q].bytes;
		}
	}
	cur = NULL;
}

/* ---- the sweep ------------------------------------------------------------------- */

static int earlier(const struct access *a, const struct access *b)
{
	if (a->t0 != b->t0)
		return a->t0 < b->t0;
	if (a->proc != b->proc)
		return a->proc < b->proc;
	return a->seq < b->seq;
}

static void put_access(const struct access *a)
{
	printf("\t%s\t%" PRIu64 "\t%" PRId64 ".%09" PRId64 "\t%" PRId64 ".%09" PRId64
	       "\t%s\t%s\t%" PRIu64 "\t%" PRIu64, procs[a->proc].name, a->seq,
	       a->t0 / 1000000000, a->t0 % 1000000000, a->t1 / 1000000000,
	       a->t1 % 1000000000, a->write ? "W" : "R", fnames[a->func], a->start, a->end);
}

static int opt_accesses;

/* Sort keys: the start offset, then the order the accesses were found in. */
struct key {
	uint64_t start;
	uint64_t idx;
};

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static uint64_t sweep(uint32_t f)
{
	struct file *fl = &files[f];
	struct key *k;
	uint64_t pairs = 0;
	size_t i, j;

	/* Algorithm 4.1: by start offset, each access against those that
	 * start before it ends */
	k = xrealloc(NULL, fl->nacc * sizeof(*k));
	for (i = 0; i < fl->nacc; i++) {
		k[i].start = fl->acc[i].start;
		k[i].idx = i;
	}
	for (i = 1; i < fl->nacc && cmp_key(&k[i - 1], &k[i]) <= 0; i++)
		;
	if (i < fl->nacc)
		qsort(k, fl->nacc, sizeof(*k), cmp_key);
	for (i = 0; opt_accesses && i < fl->nacc; i++) {
		announce(f);
		printf("access\t%u", f);
		put_access(&fl->acc[k[i].idx]);
		putchar('\n');
	}
	for (i = 0; i < fl->nacc; i++) {
		const struct access *a = &fl->acc[k[i].idx];
		for (j = i + 1; j < fl->nacc && k[j].start < a->end; j++) {
			const struct access *b = &fl->acc[k[j].idx], *x, *y;
			if (!a->write && !b->write)
				continue;
			if (a->proc == b->proc && a->seq == b->seq)
				continue;	/* two pieces of one call */
			x = earlier(a, b) ? a : b;
			y = x == a ? b : a;
			announce(f);
			printf("pair\t%u", f);
			put_access(x);
			put_access(y);
			putchar('\n');
			pairs++;
		}
	}
	free(k);
	return pairs;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "layer", required_argument, NULL, 'l' },
		{ "accesses", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	struct tg_tline t;
	struct tg_lines lr;
	char *line;
	size_t len, f;
	int in = 0;
	int c;

	while ((c = getopt_long(argc, argv, "ahl:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(TG_EXIT_OK);
			break;
		case 'a':
			opt_accesses = 1;
			break;
		case 'l':
			if (streq(optarg, "posix"))
				layer_mpiio = 0;
			else if (streq(optarg, "mpiio"))
				layer_mpiio = 1;
			else {
				fprintf(stderr, "overlap-find: option -l: unknown layer '%s' (posix, mpiio)\n",
					optarg);
				exit(TG_EXIT_ERROR);
			}
			break;
		default:
			usage(TG_EXIT_ERROR);
		}
	}
	if (argc - optind > 1)
		usage(TG_EXIT_ERROR);
	if (argc - optind == 1 && !streq(argv[optind], "-")) {
		input_name = argv[optind];
		in = open(input_name, O_RDONLY);
		if (in < 0) {
			fprintf(stderr, "overlap-find: cannot open '%s': %s\n", input_name,
				strerror(errno));
			exit(TG_EXIT_ERROR);
		}
	}
	printf("#overlap\tversion=1\tlayer=%s\n", layer_mpiio ? "mpiio" : "posix");
	if (tg_lines_open(&lr, in) < 0) {
		fprintf(stderr, "overlap-find: out of memory\n");
		exit(TG_EXIT_ERROR);
	}
	while ((line = tg_lines_next(&lr, &len))) {
		lineno++;
		if (len != strlen(line))
			die_input("NUL byte in a text record");
		if (line[0] == 0)
			continue;
		if (line[0] == '#') {
			if (strncmp(line, "#type\t", 6) == 0) {
				type_line(line);
				continue;
			}
			if (strncmp(line, "#proc\t", 6) != 0)
				continue;
			tg_tline_split(line, &t);
			proc_line(&t);
			continue;
		}
		tg_tline_split(line, &t);
		call_line(&t);
	}
	if (lr.err) {
		fprintf(stderr, "overlap-find: %s: %s\n", input_name, strerror(lr.err));
		exit(TG_EXIT_ERROR);
	}
	finish_proc();
	run_deferred();
	place_ordered();
	for (f = 0; f < nfiles; f++)
		sweep((uint32_t)f);
	tg_lines_close(&lr);
	tg_close_stdout();
	return TG_EXIT_OK;
}
