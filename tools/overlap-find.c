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
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../libcommon/calltab.h"
#include "../libcommon/funcid.gen.h"
#include "../libcommon/role.h"
#include "../libcommon/tg.h"
#include "../libcommon/textin.h"
#include "../libcommon/util.h"
#include "flatten.h"
#include "../libcommon/banned.h"

static const char usage_text[] =
	"usage: overlap-find [-ah] [--all-pairs] [-l posix|mpiio] [file]\n";

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
	errx(TG_EXIT_ERROR, "%s:%ld: %s", input_name, lineno, what);
}

#define xrealloc tg_xrealloc
#define xstrdup tg_xstrdup

static int streq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* ---- files --------------------------------------------------------------- */

struct access {
	uint64_t start, end;	/* bytes [start, end) */
	int64_t t0, t1;
	uint64_t seq;
	uint32_t proc;
	uint16_t func;
	uint8_t write : 1;
	uint8_t kind : 7;	/* enum acckind */
	uint8_t tid;		/* its thread, TID_MANY past 254 */
};

#define TID_MANY 255

/* What an access is beside its bytes (the op letter of overlap-find(1)). */
enum acckind {
	ACC_DATA,	/* R, W: the bytes a call read or wrote */
	ACC_APPEND,	/* W: an O_APPEND write, placed again by time (place_appends) */
	ACC_END,	/* E: the byte before an append, the end of file it found */
	ACC_SIZE,	/* S: the last byte of a size a call saw (run_size) */
	ACC_TRUNC,	/* T: the bytes a truncation took away (place_truncs) */
	ACC_SIEVE,	/* R, W: the bytes a call inside an independent MPI-IO
			 * call moved, which selected only some of them (struct
			 * sieve): its pairs with reads or writes depend on which
			 * (sieve_skip), and it stands for no other access */
};

/* A size a process set by truncating (or opening with O_TRUNC), when. */
struct trunc {
	int64_t t, t1;
	uint64_t size;
	uint64_t seq;
	uint32_t proc;
	uint16_t func;
	uint8_t mpi;		/* MPI_File_set_size: every rank's, one collective */
};

/* An append through a buffered stream (access @i of its file) reached
 * the file when the stream was flushed, at @t: the end it found is the
 * end at that time, not at the call's (place_appends). */
struct aflush {
	size_t i;
	int64_t t;
};

struct file {
	char *path;
	uint64_t size;		/* as far as the trace tells */
	struct access *acc;
	size_t nacc, capacc;
	int announced;
	int locked;		/* a #lock line was written for it */
	uint64_t closed;	/* the last process end that closed it (run_exit) */
	uint64_t inherited;	/* the last child start that opened it (child_opens) */
	int mpiio;		/* named by an MPI_File_open (any layer) */
	uint32_t gen;		/* of its path: removals of the path before it */
	struct trunc *tr;	/* its truncations, kept when it has appends */
	size_t ntr, captr;
	int appends;		/* O_APPEND writes were placed in it */
	struct aflush *afl;	/* appends through a buffered stream: when */
	size_t nafl;		/* each reached the file (stdio_flush) */
	int xtime;		/* something of it was placed by the times of
				 * two processes: which file a name named, an
				 * append's end, a truncation's bytes */
	int xname;		/* a #name or #after line of it rested on the
				 * times of two processes */
	size_t look;		/* 1 + the index of an lseek to the end (an
				 * ACC_SIZE) of process lookproc not yet
				 * followed by a write of it, 0 for none */
	uint32_t lookproc;
};

static struct file *files;
static size_t nfiles;

/*
 * What ended a path's file (unlink, unlinkat, remove, MPI_File_delete, a
 * rename from or onto it, that succeeded): the path, when the call ended,
 * and for a rename onto it the old name; sorted by path then time.  Read
 * ahead of the records when the input is a file (read_removals), so that
 * every process's are known before any process is run.  A path opened
 * after n of them ended names the file of generation n, another file than
 * the one removed, or, after a rename onto it, the file its old name
 * named just before.  From a pipe there are none: a path is one file.
 */
struct removal {
	char *path;
	int64_t t;
	char *from;	/* a rename onto path: the old name; else NULL */
	char *rank;	/* the process that made it, and the call's seq */
	uint64_t seq;
	int64_t parent;	/* the seq of the MPI call it was made in, or -1 */
	int mpi;	/* an MPI_File_delete */
	int name;	/* an unlink, unlinkat, remove the program made (at
			 * depth 0), or an MPI_File_delete: see name_pairs */
	/* of the path's removals (removals_index): one past the last, and
	 * whether one process made them all, each after the one before in
	 * its seq (the time order), so that gen_at can search them */
	size_t gend;
	int one;
};

static struct removal *removals;
static size_t nremovals;

/* The opens that may have made a file (O_CREAT, a "w" or "a" mode) and
 * succeeded, of every process, by path then start: read ahead with the
 * removals (read_removals), for an open that found no file (ENOENT). */
struct creation {
	char *path;
	int64_t t0, t1;
	char *rank;
	uint64_t seq;
};
static struct creation *creations;
static size_t ncreations;

/* The directories the programs made (mkdir at depth 0) and when, of every
 * process, by path then start: read ahead with the removals. */
static struct creation *dirmade;
static size_t ndirmade;

static int by_time;	/* a removal of another process was placed by time */
static int times_rebuilt;	/* a #timing line: not the run's times, which
				 * do not tell two processes' calls apart */
static int times_anchored;	/* ... anchored=1: but for the calls whose
				 * order between processes is placed by time
				 * (locks, spawns, shared-pointer calls, all
				 * of a process without a rank: tangram-cfg(5)) */

/* Do the times order two processes' locks, spawns and shared-pointer
 * calls as they ran? */
static int sync_times(void)
{
	return !times_rebuilt || times_anchored;
}

/* The first of the @n entries at @base (of @size bytes each, sorted by
 * path, which is their first member) whose path is @path or after it. */
static size_t first_of_path(const void *base, size_t n, size_t size, const char *path)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(*(char *const *)((const char *)base + mid * size), path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether removal @m came before call @seq of process @rank that started
 * at @t: by the seq in the same process, else by the times. */
static int removed_before(const struct removal *m, const char *rank, uint64_t seq, int64_t t)
{
	if (streq(m->rank, rank))
		return m->seq < seq;
	by_time = 1;
	return m->t <= t;
}

/* Of the removals of one path from @lo on, made by one process in the
 * order of its seq (struct removal, one): the first that did not come
 * before call @seq of process @rank that started at @t, by a search (a
 * checkpoint renamed into place n times cost n a call, n squared in
 * all); as removed_before, by_time when another process made them. */
static size_t removals_split(size_t lo, const char *rank, uint64_t seq, int64_t t)
{
	size_t a = lo, b = removals[lo].gend;
	int mine = streq(removals[lo].rank, rank);

	if (!mine)
		by_time = 1;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (mine ? removals[mid].seq < seq : removals[mid].t <= t)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/* How many of @path's removals came before call @seq of process @rank
 * that started at @t; *@last is the latest of them, NULL if none. */
static uint32_t gen_at(const char *path, const char *rank, uint64_t seq, int64_t t,
		       const struct removal **last)
{
	size_t lo = first_of_path(removals, nremovals, sizeof(*removals), path);
	uint32_t n = 0;

	*last = NULL;
	if (lo < nremovals && removals[lo].one && strcmp(removals[lo].path, path) == 0) {
		size_t a = removals_split(lo, rank, seq, t);
		*last = a > lo ? &removals[a - 1] : NULL;
		return (uint32_t)(a - lo);
	}
	for (; lo < nremovals && strcmp(removals[lo].path, path) == 0; lo++)
		if (removed_before(&removals[lo], rank, seq, t)) {
			*last = &removals[lo];	/* by time: the latest */
			n++;
		}
	return n;
}

/* The name and generation that identify the file @path names for call
 * @seq of process @rank, which started at @t: after a rename onto it,
 * those of its old name just before the rename. */
/*
 * The removals of @path and of the directories above it before call @seq
 * of process @rank (started at @t): how many (the generation of the file
 * @path names), and in *@last the latest of them, whose path is the first
 * *@plen bytes of @path.  A directory renamed takes the files under it
 * along: a path under the new name names what the old name's did, one
 * under the old name another file.
 */
static uint32_t removals_above(const char *path, const char *rank, uint64_t seq, int64_t t,
			       const struct removal **last, size_t *plen)
{
	char dir[8192];
	const struct removal *l;
	uint32_t gen = gen_at(path, rank, seq, t, last);
	size_t i;

	*plen = strlen(path);
	for (i = 1; path[i] && i < sizeof(dir); i++) {
		if (path[i] != '/')
			continue;
		memcpy(dir, path, i);
		dir[i] = 0;
		gen += gen_at(dir, rank, seq, t, &l);
		if (l && (!*last || l->t > (*last)->t)) {
			*last = l;
			*plen = i;
		}
	}
	return gen;
}

static uint32_t identify(const char **path, const char *rank, uint64_t seq, int64_t t)
{
	static char buf[2][8192];
	const struct removal *last;
	uint32_t gen = 0;
	size_t plen;
	int hops;

	for (hops = 0; nremovals && hops < 64; hops++) {
		gen = removals_above(*path, rank, seq, t, &last, &plen);
		if (!last || !last->from)
			break;
		/* renamed onto the path, or onto a directory above it */
		if (plen < strlen(*path)) {
			char *b = buf[hops & 1];
			snprintf(b, sizeof(buf[0]), "%s%s", last->from, *path + plen);
			*path = b;
		} else {
			*path = last->from;
		}
		rank = last->rank;
		seq = last->seq;
		t = last->t - 1;
	}
	return gen;
}

/* The files by path and generation: open addressing over index + 1 (a
 * scan of them all for every call was most of the time of a run of
 * 30,000 files). */
static uint32_t *fslot;
static size_t fcap;	/* a power of two, or 0 */

static size_t file_hash(const char *path, uint32_t gen)
{
	uint64_t h = tg_fnv_str(0xcbf29ce484222325ull ^ gen, path);

	return (size_t)(h ^ h >> 29);
}

static void file_index(size_t i)
{
	size_t h;

	if (2 * (i + 1) > fcap) {
		size_t j;
		free(fslot);
		fcap = fcap ? 2 * fcap : 64;
		fslot = calloc(fcap, sizeof(*fslot));
		if (!fslot)
			errx(TG_EXIT_ERROR, "out of memory");
		for (j = 0; j < i; j++) {
			for (h = file_hash(files[j].path, files[j].gen) & (fcap - 1); fslot[h];
			     h = (h + 1) & (fcap - 1))
				;
			fslot[h] = (uint32_t)j + 1;
		}
	}
	for (h = file_hash(files[i].path, files[i].gen) & (fcap - 1); fslot[h];
	     h = (h + 1) & (fcap - 1))
		;
	fslot[h] = (uint32_t)i + 1;
}

/* The file of generation @gen of @path, or -1 if no call has named it. */
static int64_t find_file(const char *path, uint32_t gen)
{
	size_t h;

	if (!fcap)
		return -1;
	for (h = file_hash(path, gen) & (fcap - 1); fslot[h]; h = (h + 1) & (fcap - 1)) {
		const struct file *fl = &files[fslot[h] - 1];
		if (fl->gen == gen && strcmp(fl->path, path) == 0)
			return (int64_t)fslot[h] - 1;
	}
	return -1;
}

/* The file @path names for call @seq of process @rank, which started at
 * @t, or -1 if no call has named it yet. */
static int64_t file_known(const char *path, const char *rank, uint64_t seq, int64_t t)
{
	uint32_t gen = identify(&path, rank, seq, t);

	return find_file(path, gen);
}

static uint32_t file_of(const char *path, const char *rank, uint64_t seq, int64_t t)
{
	uint32_t gen;
	int64_t k;
	int xt;

	by_time = 0;
	gen = identify(&path, rank, seq, t);
	xt = by_time;
	k = find_file(path, gen);
	if (k >= 0) {
		files[k].xtime |= xt;
		return (uint32_t)k;
	}
	if ((nfiles & (nfiles - 1)) == 0)
		files = xrealloc(files, (nfiles ? 2 * nfiles : 16) * sizeof(*files));
	memset(&files[nfiles], 0, sizeof(files[0]));
	files[nfiles].path = xstrdup(path);
	files[nfiles].gen = gen;
	files[nfiles].xtime = xt;
	file_index(nfiles);
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
	/* a file created under a name after n removals of it (the name's
	 * n-th file since the first) */
	if (files[f].gen)
		printf("\tgen=%u", files[f].gen);
	putchar('\n');
}

/* ---- function names (for the pair lines) ------------------------------- */

/* The name of call table id @id (every kept record has one). */
static const char *fname(uint16_t id)
{
	return tg_call_lookup(id)->name;
}

/* ---- processes ---------------------------------------------------------------- */

/* An open file description: what descriptors and streams point at. */
struct desc {
	uint32_t file;
	uint64_t off;
	int append;
	int refs;
	/* the open that made it, which a child that inherits it began its
	 * session with (child_opens): its process (procs), seq and start;
	 * oproc UINT32_MAX when not known */
	uint32_t oproc;
	uint64_t oseq;
	int64_t ot0;
};

/* An MPI file handle with its view. */
struct mfile {
	char id[24];
	uint32_t file;
	uint64_t disp;
	struct tg_flat *etype, *ftype;
	uint64_t ptr;		/* individual pointer, in etypes */
	int atomic;		/* MPI_File_set_atomicity(fh, 1) in effect */
	char base[64];		/* the POSIX layer: the last part of its name
				 * (without a ROMIO "ufs:" prefix), or "" */
	uint32_t open;		/* -l mpiio: which collective open made it
				 * (open_id) */
};

/* -l mpiio: the atomic mode a process's accesses of a file were last said
 * to have (#event atomic/nonatomic): that of the handle they went
 * through, and its open. */
struct fmode {
	uint32_t file, open;
	int atomic;
};

/* -l mpiio: a communicator of a process (#comm lines) by its members */
struct commdef {
	char id[24];
	char *members;
};

struct slot {
	char key[24];		/* "3" for fd 3, "s4" for a stream */
	struct desc *d;
	int32_t next;		/* the next slot of its hash bucket, or -1 */
	uint8_t cloexec;	/* a descriptor that closes at an exec */
	uint8_t nobuf;		/* a stream set unbuffered or line buffered */
	/* a stream's read buffer (stdio reads' ahead): the bytes [rb_start,
	 * rb_end) the read that filled it fetched from the file, at its time */
	uint8_t rb;
	uint8_t rb_tid;
	uint16_t rb_func;
	uint64_t rb_start, rb_end, rb_seq;
	int64_t rb_t0, rb_t1;
};

struct proc {
	char *name;		/* the rank column */
	char *cwd;
	int64_t pid;
	struct slot *slots;
	size_t nslots, capslots;
	int32_t *bucket;	/* capslots heads of slot chains by key hash, -1 */
	struct mfile *mf;
	size_t nmf;
	struct tg_types *types;
	uint64_t untracked;	/* data calls on descriptors we never saw opened */
	uint64_t unplaced;	/* data calls whose bytes could not be placed */
	int deferred, started;	/* kept for the run in time order */
	uint64_t *nordered;	/* MPI-IO ordered calls so far, by file */
	size_t capordered;
	struct aioreq *aio;	/* POSIX AIO submitted, not yet returned */
	size_t naio;
	struct nbreq *nb;	/* -l mpiio: nonblocking calls not yet complete */
	size_t nnb;
	struct nbearly *early;	/* completions of no request made yet (nb_end) */
	size_t nearly, nextearly;
	int nfileio;		/* an MPI-IO call was read: waits may complete
				 * a file request of a thread read later */
	struct nbreq *sw;	/* writes to a buffered stream not yet flushed */
	size_t nsw;
	uint64_t endseq;	/* one past its last record's seq */
	int64_t endt;		/* when that record ended */
	int execd;		/* it ended in an exec (its descriptors live on) */
	uint64_t *mpitop;	/* seqs of its MPI-IO calls made by the program
				 * itself (depth 0), sorted before the run */
	size_t nmpitop, capmpitop;
	char **dirseen;		/* directories other processes made that its
				 * calls went through, or it made too: a hash
				 * table of capdirseen (a power of 2) slots */
	size_t ndirseen, capdirseen;
	uint64_t *liowait;	/* seqs of its lio_listio(LIO_WAIT) calls, sorted
				 * before the run: their requests are done
				 * when they return */
	size_t nliowait, capliowait;
	int64_t ppid;		/* its parent's pid */
	char *host;
	int64_t firstt;		/* when its first call started (INT64_MAX) */
	uint8_t stdnobuf;	/* bit k: standard stream sk set unbuffered or
				 * line buffered (stderr's bit is set at start) */
	uint64_t clock_base;	/* its #proc line's: when its image began */
	/* the POSIX layer: the bytes of the file its last independent MPI-IO
	 * call selected (struct sieve) */
	uint64_t clip_seq;
	int clip_write;		/* (a write) */
	uint64_t rmw_seq, rmw_lo, rmw_hi;	/* the bytes a read inside that
						 * write call got, seq clip_seq */
	struct mfile *clip_mf;	/* (its handle, while open) */
	struct sel *clip;	/* or NULL */
	struct fmode *fm;	/* -l mpiio: atomic mode said, by file */
	size_t nfm;
	struct commdef *comms;	/* -l mpiio: its communicators */
	size_t ncomms;
};

static struct proc *procs;
static size_t nprocs;

/* The descriptors a fork, or a system, popen or posix_spawn, gave a
 * child, or an exec its next program, by its pid. */
struct forked {
	int64_t pid;
	struct slot *slots;
	size_t nslots;
	uint8_t stdnobuf;	/* the parent's, for a fork; none after exec */
	uint8_t child;		/* another process's (not an exec's): it opens
				 * their files as it starts (child_opens) */
	uint16_t func;		/* the call that gave them */
};
static struct forked *forks;
static size_t nforks;

/*
 * A process's open descriptors and streams, looked up by key on every call:
 * hashed, since a process may hold tens of thousands (a linear search made
 * 20,000 open descriptors take seconds, 100,000 minutes).
 */
static size_t slot_hash(const struct proc *p, const char *key)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*key)
		h = (h ^ (unsigned char)*key++) * 0x100000001b3ull;
	return (size_t)(h & (p->capslots - 1));
}

static struct slot *slot_find(struct proc *p, const char *key)
{
	int32_t i;

	if (!p->capslots)
		return NULL;
	for (i = p->bucket[slot_hash(p, key)]; i >= 0; i = p->slots[i].next)
		if (strcmp(p->slots[i].key, key) == 0)
			return &p->slots[i];
	return NULL;
}

/* Point the link that leads to slot @from at slot @to instead. */
static void slot_relink(struct proc *p, int32_t from, int32_t to)
{
	int32_t *l = &p->bucket[slot_hash(p, p->slots[from].key)];

	while (*l != from)
		l = &p->slots[*l].next;
	*l = to;
}

static void slot_drop(struct proc *p, const char *key)
{
	struct slot *s = slot_find(p, key);
	int32_t i, last;

	if (!s)
		return;
	i = (int32_t)(s - p->slots);
	last = (int32_t)p->nslots - 1;
	if (--s->d->refs == 0)
		free(s->d);
	slot_relink(p, i, s->next);
	if (i != last) {
		slot_relink(p, last, i);
		*s = p->slots[last];
	}
	p->nslots--;
}

static void slot_set(struct proc *p, const char *key, struct desc *d)
{
	struct slot *s;
	size_t i, h;

	slot_drop(p, key);
	if (p->nslots == p->capslots) {
		p->capslots = p->capslots ? 2 * p->capslots : 16;
		if (p->capslots > INT32_MAX)
			die_input("too many open descriptors");
		p->slots = xrealloc(p->slots, p->capslots * sizeof(*p->slots));
		p->bucket = xrealloc(p->bucket, p->capslots * sizeof(*p->bucket));
		for (i = 0; i < p->capslots; i++)
			p->bucket[i] = -1;
		for (i = 0; i < p->nslots; i++) {
			h = slot_hash(p, p->slots[i].key);
			p->slots[i].next = p->bucket[h];
			p->bucket[h] = (int32_t)i;
		}
	}
	s = &p->slots[p->nslots];
	snprintf(s->key, sizeof(s->key), "%s", key);
	s->d = d;
	s->cloexec = 0;
	s->nobuf = 0;
	s->rb = 0;
	d->refs++;
	h = slot_hash(p, s->key);
	s->next = p->bucket[h];
	p->bucket[h] = (int32_t)p->nslots++;
}

static struct desc *desc_new(uint32_t file, int append)
{
	struct desc *d = xrealloc(NULL, sizeof(*d));

	d->file = file;
	d->off = 0;
	d->append = append;
	d->refs = 0;
	d->oproc = UINT32_MAX;
	d->oseq = 0;
	d->ot0 = 0;
	return d;
}

/* ---- records of one process --------------------------------------------- */

/* What a call did (enum tg_io), kept until its process is run; OP_TYPE is
 * a #type line, run just before the call that made it. */
#define OP_TYPE TG_IO_COUNT
#define OP_EXIT (TG_IO_COUNT + 1)	/* the process ended: its files close */

struct rec {
	uint64_t seq;
	int64_t t0, t1, ret;
	int64_t pos, len, count;	/* as in struct tg_ioact */
	int64_t pos2;		/* TG_OFF_SHARED: the shared pointer after the
				 * call (its shared_after argument);
				 * TG_OFF_ORDERED: before it (shared_before,
				 * not in older streams); or -1 */
	int64_t parent;		/* seq of the enclosing traced call, or -1 */
	int64_t held;		/* a stdio write: the bytes its stream's buffer
				 * held after it (its held argument); a stdio
				 * read: those it held ahead, read from the file
				 * and not yet returned (ahead); or -1 */
	uint8_t op, off, write, failed, append, trunc, mpi, aio, all, cloexec, eof;
	uint8_t creat;		/* open: it may make the file (O_CREAT...) */
	uint8_t excl;		/* open: O_EXCL, fails if the name is there */
	uint8_t enoent;		/* open: failed with ENOENT */
	uint8_t eexist;		/* mkdir: failed with EEXIST */
	uint8_t remove;		/* look: by a call that removes the name */
	uint8_t tid;		/* as struct access's */
	uint8_t nested;		/* -l mpiio: a POSIX call inside an MPI call,
				 * kept only to see where its bytes went */
	uint8_t mpilib;		/* unplaced, made by the MPI library inside an
				 * MPI call (1: not the program's) or an MPI-IO
				 * call (2: not the program's unless of a file
				 * it opened with MPI_File_open) */
	uint8_t mapread;	/* unplaced: an mmap whose stores cannot reach
				 * the file (no PROT_WRITE, or MAP_PRIVATE): a
				 * read of length bytes at pos */
	int8_t whence;
	uint8_t depth;		/* the record's depth, 255 for deeper */
	uint32_t tord;		/* OP_TYPE: its place among the #type lines;
				 * -l mpiio, MPI_File_open: open_id's */
	int8_t lock;		/* lock: enum tg_lockop */
	uint8_t lockclass;	/* lock: enum tg_lockclass */
	uint16_t func;
	char k1[TG_KEYLEN], k2[TG_KEYLEN];	/* tg_ioact's h and h2 (an AIO
						 * request's key) */
	char *s;		/* a path; a view's etype NUL filetype; the
				 * datatype of a data call without a status;
				 * the #type line of OP_TYPE */
};

/* An ordered MPI-IO call waits for the calls of the other ranks: each
 * rank's bytes follow those of the lower ranks, and all end where the
 * shared pointer stood after the call (the smallest of the ranks'
 * readings of it), and start no earlier than where it stood as each rank
 * entered, less the lower ranks' bytes. */
struct pend {
	uint32_t proc, file;
	uint64_t k;		/* the k-th ordered call of the process on the file */
	int64_t rankno, bytes, after, before;	/* before: -1 if not recorded */
	uint64_t disp;
	struct tg_flat *etype, *ftype;
	struct rec r;
};
static struct pend *pends;
static size_t npends;

static struct rec *recs;
static uint64_t recs_gen;	/* which process's records recs holds */
static size_t nrecs, caprecs;
static struct proc *cur;

/* Descriptor @key of the current process closes at an exec, or not. */
static void slot_cloexec(const char *key, int v)
{
	struct slot *s = slot_find(cur, key);

	if (s)
		s->cloexec = (uint8_t)v;
}

static uint64_t run_id;		/* tg_run_proc() of the #proc lines, summed */
static int layer_mpiio;
static char *pending_types;	/* #type lines before the next call record */
static int64_t pending_seq = -1;	/* the seq of the first call after them */
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

/* unplaced records whose parent line is still to come (orphans_adopt) */
static size_t *orphans;
static size_t norphans, caporphans;

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	/* type definitions go just before the call that made them, in the
	 * order of their lines (a type's parts first) */
	if (x->op == OP_TYPE && y->op == OP_TYPE)
		return (x->tord > y->tord) - (x->tord < y->tord);
	return (y->op == OP_TYPE) - (x->op == OP_TYPE);
}

/* @open: for kind atomic, the open whose handles it is of (open_id);
 * for kind open, OPEN_INHERITED: one a child starts with (child_opens) */
#define OPEN_INHERITED UINT32_MAX
static void event_open(uint32_t f, const struct rec *r, const char *kind, uint32_t open)
{
	announce(f);
	printf("#event\tfile=%u\trank=%s\tseq=%" PRIu64 "\tt=%" PRId64 ".%09" PRId64
	       "\tkind=%s\tfunc=%s", f, cur->name, r->seq, r->t0 / 1000000000,
	       r->t0 % 1000000000, kind, fname(r->func));
	if (open == OPEN_INHERITED)
		printf("\tinherited=1");
	else if (open)
		printf("\topen=%" PRIu32, open);
	putchar('\n');
}

static void event(uint32_t f, const struct rec *r, const char *kind)
{
	event_open(f, r, kind, 0);
}

/*
 * -l mpiio: the atomic mode of a process's accesses of a file is that of
 * the handle they go through (one of them may be in atomic mode and
 * another, of another open, not), and its open: said (#event atomic with
 * open=, or nonatomic) when a call on handle @m, record @r, changes it.
 */
static void mode_say(const struct mfile *m, const struct rec *r)
{
	struct fmode *fm = NULL;
	size_t i;

	for (i = 0; i < cur->nfm; i++)
		if (cur->fm[i].file == m->file)
			fm = &cur->fm[i];
	if (!fm) {
		if (!m->atomic)
			return;
		cur->fm = xrealloc(cur->fm, (cur->nfm + 1) * sizeof(*cur->fm));
		fm = &cur->fm[cur->nfm++];
		fm->file = m->file;
		fm->atomic = 0;
		fm->open = 0;
	}
	if (fm->atomic == m->atomic && (!m->atomic || fm->open == m->open))
		return;
	fm->atomic = m->atomic;
	fm->open = m->open;
	event_open(m->file, r, m->atomic ? "atomic" : "nonatomic", m->atomic ? m->open : 0);
}

static struct access *add_access(uint32_t f, const struct rec *r, uint64_t start,
				  uint64_t len, int write)
{
	struct file *fl = &files[f];
	struct access *a;

	if (len == 0)
		return NULL;
	if (fl->nacc == fl->capacc) {
		fl->capacc = fl->capacc ? 2 * fl->capacc : 4;	/* (most files have few: an mdtest of 10^5 files) */
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
	a->write = write != 0;
	a->kind = ACC_DATA;
	a->tid = r->tid;
	if (write && a->end > fl->size)
		fl->size = a->end;
	/* a write at the position an lseek to the end left (a process
	 * appending by finding the end itself): the seek decided where
	 * the bytes went, so it read the file as a read does, and the
	 * exemption of a size seen at the same time as another process's
	 * write (conflict-check(1)) is not for it.  (A pwrite at the size
	 * fstat gave, or libgfortran's position='append', is the same, but
	 * cannot be told from a write at an offset of its own that the
	 * size happened to equal: a rank's block, or record, after the
	 * blocks of the ranks before it.) */
	if (write && fl->look && fl->lookproc == a->proc) {
		struct access *l = &fl->acc[fl->look - 1];
		if (l->kind == ACC_SIZE && l->end == start && r->off == TG_OFF_POS)
			l->kind = ACC_DATA;
		fl->look = 0;
	}
	return a;
}

/* An O_APPEND write of @len bytes: at the end of the file as this
 * process's run knows it for now; place_appends() moves it to where the
 * end was at its time, all processes' writes counted. */
static void add_append(uint32_t f, const struct rec *r, uint64_t len)
{
	struct access *a = add_access(f, r, files[f].size, len, 1);

	if (a) {
		a->kind = ACC_APPEND;
		files[f].appends = 1;
	}
}

/* Process @cur set the size of @f to @size by record @r. */
static void set_size(uint32_t f, const struct rec *r, uint64_t size)
{
	struct file *fl = &files[f];

	fl->size = size;
	if (fl->ntr == fl->captr) {
		fl->captr = fl->captr ? 2 * fl->captr : 8;
		fl->tr = xrealloc(fl->tr, fl->captr * sizeof(*fl->tr));
	}
	fl->tr[fl->ntr].t = r->t0;
	fl->tr[fl->ntr].t1 = r->t1;
	fl->tr[fl->ntr].size = size;
	fl->tr[fl->ntr].seq = r->seq;
	fl->tr[fl->ntr].func = r->func;
	fl->tr[fl->ntr].mpi = r->mpi;
	fl->tr[fl->ntr++].proc = (uint32_t)(cur - procs);
}

/* A read or write of @n bytes through description @d (at its position). */
static void data_at_pos(struct desc *d, const struct rec *r, uint64_t n, int write)
{
	if (write && d->append) {
		add_append(d->file, r, n);
		d->off = files[d->file].size;
		return;
	}
	add_access(d->file, r, d->off, n, write);
	d->off += n;
}

/*
 * stdin, stdout and stderr (s0, s1, s2) read and write through descriptors
 * 0, 1 and 2, whatever those are when the bytes move: a dup2 onto 1 (or a
 * shell's "> out" before the exec) takes printf's output to that file.
 * The descriptor's key, for such a stream that freopen has not given a
 * slot of its own; NULL for any other key.
 */
static const char *std_fd(const char *key)
{
	static const char *const fds[] = { "0", "1", "2" };

	if (key[0] != 's' || key[1] < '0' || key[1] > '2' || key[2] || slot_find(cur, key))
		return NULL;
	return fds[key[1] - '0'];
}

static struct desc *desc_of(const char *key)
{
	struct slot *s = slot_find(cur, key);
	const char *fd;

	if (!s && (fd = std_fd(key)))
		s = slot_find(cur, fd);
	return s ? s->d : NULL;
}

/* fflush(NULL): every stream of the process is committed; sync() (@all):
 * every descriptor too. */
static void commit_all(const struct rec *r, int all)
{
	size_t i;

	for (i = 0; i < cur->nslots; i++)
		if (all || cur->slots[i].key[0] == 's')
			event(cur->slots[i].d->file, r, "commit");
	for (i = 0; !all && i < 3; i++) {	/* the standard streams */
		static const char *const std[] = { "s0", "s1", "s2" };
		struct desc *d = std_fd(std[i]) ? desc_of(std[i]) : NULL;
		if (d)
			event(d->file, r, "commit");
	}
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

/* ---- running the records: one function per role ----------------------------- */

/*
 * An open that could not make the file found it under its name: when
 * another process renamed the file there last, and no file had that name
 * before (none made, or the one made removed), the open came after that
 * rename, and so did all that process
 * did before it: the writes of a file made aside and renamed into place,
 * as Python publishes its bytecode caches and many programs their
 * checkpoints.  An "#after" line says so (conflict-check(1) orders by it).
 */
/* Was there a file by the name @last renamed one onto: one a process
 * made before the rename and none removed since? */
static int name_was_there(const char *path, const struct removal *last)
{
	int64_t made = INT64_MIN;
	size_t lo;

	for (lo = first_of_path(creations, ncreations, sizeof(*creations), path);
	     lo < ncreations && streq(creations[lo].path, path); lo++)
		if (creations[lo].t1 <= last->t && creations[lo].t1 > made)
			made = creations[lo].t1;
	for (lo = first_of_path(dirmade, ndirmade, sizeof(*dirmade), path);
	     lo < ndirmade && streq(dirmade[lo].path, path); lo++)
		if (dirmade[lo].t1 <= last->t && dirmade[lo].t1 > made)
			made = dirmade[lo].t1;
	if (made == INT64_MIN)
		return 0;
	for (lo = first_of_path(removals, nremovals, sizeof(*removals), path);
	     lo < nremovals && streq(removals[lo].path, path); lo++)
		if (&removals[lo] != last && removals[lo].t >= made && removals[lo].t < last->t)
			return 0;
	return 1;
}

static void after_rename(uint32_t f, const struct rec *r)
{
	const struct removal *last;
	size_t plen;

	if (!nremovals)
		return;
	removals_above(r->s, cur->name, r->seq, r->t0, &last, &plen);
	if (!last || !last->from || streq(last->rank, cur->name))
		return;
	/* a name that was there before: the open may have found the old
	 * file, and then came before the rename; nothing orders them */
	if (plen == strlen(r->s) && name_was_there(r->s, last))
		return;
	announce(f);
	printf("#after\tfile=%" PRIu32 "\trank=%s\tseq=%" PRIu64 "\tfrom=%s\tfromseq=%" PRIu64
	       "\n", f, cur->name, r->seq, last->rank, last->seq);
}

/*
 * A name taken as a lock: a process that makes a name exclusively (a
 * mkdir, an open with O_CREAT and O_EXCL) succeeds only once the name is
 * gone, so when another process made it before and removed it last (an
 * rmdir, an unlink), that removal came first, and all that process did
 * before it: a compile cache's "mkdir x.lock", build, "rmdir x.lock",
 * which the next process's mkdir then takes.  An "#after" line, as for a
 * rename.  The removal is the latest one that ended before the making
 * ended.
 */
static void after_lock(uint32_t f, const struct rec *r)
{
	const struct removal *last = NULL;
	size_t lo;

	if (!nremovals || !r->s || r->failed)
		return;
	for (lo = first_of_path(removals, nremovals, sizeof(*removals), r->s);
	     lo < nremovals && streq(removals[lo].path, r->s); lo++) {
		const struct removal *m = &removals[lo];
		if (streq(m->rank, cur->name) ? m->seq < r->seq : m->t <= r->t1)
			last = m;	/* by time: the latest */
	}
	if (!last || last->from || !last->name || streq(last->rank, cur->name) ||
	    !name_was_there(r->s, last))
		return;
	files[f].xname = 1;	/* the removal: by the times */
	announce(f);
	printf("#after\tfile=%" PRIu32 "\trank=%s\tseq=%" PRIu64 "\tfrom=%s\tfromseq=%" PRIu64
	       "\n", f, cur->name, r->seq, last->rank, last->seq);
}

static uint64_t str_hash(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return h;
}

/* Has the current process gone through directory @dir already (or made
 * it)?  With @add, it has now. */
static int dir_seen(const char *dir, int add)
{
	size_t i, m = cur->capdirseen - 1;

	for (i = cur->capdirseen ? str_hash(dir) & m : 0; cur->capdirseen && cur->dirseen[i];
	     i = (i + 1) & m)
		if (streq(cur->dirseen[i], dir))
			return 1;
	if (!add)
		return 0;
	if (2 * (cur->ndirseen + 1) > cur->capdirseen) {
		char **old = cur->dirseen;
		size_t oc = cur->capdirseen, j;
		cur->capdirseen = oc ? 2 * oc : 16;
		cur->dirseen = xrealloc(NULL, cur->capdirseen * sizeof(*cur->dirseen));
		memset(cur->dirseen, 0, cur->capdirseen * sizeof(*cur->dirseen));
		m = cur->capdirseen - 1;
		for (j = 0; j < oc; j++)
			if (old[j]) {
				for (i = str_hash(old[j]) & m; cur->dirseen[i]; i = (i + 1) & m)
					;
				cur->dirseen[i] = old[j];
			}
		free(old);
	}
	for (i = str_hash(dir) & m; cur->dirseen[i]; i = (i + 1) & m)
		;
	cur->dirseen[i] = xstrdup(dir);
	cur->ndirseen++;
	return 0;
}

/* Directory @path, and every one above it, seen by the current process. */
static void seen_with_parents(const char *path)
{
	char dir[8192];
	size_t n = strlen(path), i;

	if (n >= sizeof(dir))
		return;
	memcpy(dir, path, n + 1);
	for (i = n; i > 1; i--)
		if (i == n || dir[i] == '/') {
			dir[i] = 0;
			dir_seen(dir, 1);
		}
}

/* Did a call of the current process after @r go through directory
 * @dir (@n bytes) and succeed? */
static int through_later(const struct rec *r, const char *dir, size_t n)
{
	const struct rec *x;
	uintptr_t at = (uintptr_t)r;

	/* (recs holds the process's records, kept ones too: run_deferred) */
	if (at < (uintptr_t)recs || at >= (uintptr_t)(recs + nrecs))
		return 0;
	for (x = r + 1; x < recs + nrecs; x++)
		if (!x->failed && x->s && x->s[0] == '/' && strncmp(x->s, dir, n) == 0 &&
		    x->s[n] == '/' &&
		    (x->op == TG_IO_OPEN || x->op == TG_IO_REOPEN || x->op == TG_IO_LOOK ||
		     x->op == TG_IO_LOAD || x->op == TG_IO_MKDIR ||
		     ((x->op == TG_IO_SIZE || x->op == TG_IO_TRUNCATE) && !x->k1[0])))
			return 1;
	return 0;
}

/*
 * A call the program made (at depth 0: not an MPI library's inside an
 * MPI-IO call, which its collective's messages may order only in the
 * middle of the call) that names a path under a directory another process
 * made (mkdir): the call went through it, so the mkdir must happen before it,
 * or, had the call come first, it would have found no directory (rank 0
 * makes the output directory, the others create their files in it, and
 * nothing between).  A "#name" line with via=dir, judged as a removal's
 * (conflict-check(1)), for the first call of each process through each
 * such directory: its later calls come after that one.  A call that
 * failed with ENOENT before the directory was made counts too, unless a
 * later call of its process went through the directory (a program that
 * waits for it).  A look by name (stat, access) asks whether the
 * directory is there, and the program goes on either way (Python's
 * os.makedirs makes what it does not find): after one, or after a mkdir
 * of the directory by the process itself, made or found made (EEXIST:
 * "mkdir -p" on every rank), the process needs no other's.
 */
static void through_dirs(const struct rec *r)
{
	char dir[8192];
	size_t i, n, lo;
	uint32_t f;
	int probe = r->op == TG_IO_LOOK || r->op == TG_IO_SIZE;

	if (!ndirmade || !r->s || r->s[0] != '/' || (n = strlen(r->s)) >= sizeof(dir))
		return;
	if ((r->failed && !r->enoent) || r->depth != 0)
		return;
	for (i = n + 1; i > 1; i--) {
		const struct creation *c = NULL;
		if ((i <= n && r->s[i - 1] != '/') || (i > n && !probe))
			continue;
		memcpy(dir, r->s, i - 1);
		dir[i - 1] = 0;
		if (!dir[0] || dir_seen(dir, 0))
			continue;
		for (lo = first_of_path(dirmade, ndirmade, sizeof(*dirmade), dir);
		     lo < ndirmade && streq(dirmade[lo].path, dir); lo++) {
			const struct creation *m = &dirmade[lo];
			if (streq(m->rank, cur->name))
				continue;
			/* a call that failed: a making after it began; one
			 * that went through: the latest making begun before
			 * it ended */
			if (r->failed ? (times_rebuilt || m->t1 > r->t0) && !c :
					times_rebuilt ? !c : m->t0 < r->t1)
				c = m;
		}
		if (!c)
			continue;
		if (probe) {
			dir_seen(dir, 1);
			continue;
		}
		if (r->failed && through_later(r, dir, i - 1)) {
			dir_seen(dir, 1);	/* it waited for the directory */
			continue;
		}
		if (!r->failed)
			dir_seen(dir, 1);
		f = file_of(dir, cur->name, r->seq, r->t0);
		files[f].xname |= r->failed;
		announce(f);
		printf("#name\tfile=%" PRIu32 "\trank=%s\tseq=%" PRIu64 "\tfrom=%s\tfromseq=%"
		       PRIu64 "\tvia=dir\n", f, cur->name, r->seq, c->rank, c->seq);
	}
}

static int mpi_top(uint64_t seq);

/* Did the program make call record @r: at depth 0, or inside its own
 * MPI-IO call (ROMIO's open inside MPI_File_open), not inside MPI_Init? */
static int programs_own(const struct rec *r)
{
	return r->depth == 0 || (r->depth == 1 && r->parent >= 0 && mpi_top((uint64_t)r->parent));
}

/*
 * An open and a removal of its name by another process (an unlink,
 * unlinkat or remove the program made, an MPI_File_delete): the one that
 * ended the file the open found, and the one that ended its name after
 * the open.  Unless one happens before the other, which file the open
 * finds, or whether it finds one, depends on which ran first: a program
 * whose rank 0 deletes the old output while the others create it anew,
 * no barrier between.  A "#name" line gives each such pair, and
 * conflict-check(1) says whether it is ordered.  The open counts when the
 * program made it: at depth 0, inside its own MPI-IO call, or, at the
 * MPI-IO layer, any MPI_File_open (HDF5's inside H5Fcreate); not the MPI
 * library's inside MPI_Init, nor one with O_EXCL, whose failure is how a
 * program waits for a name to go.  Renames are not counted: a file put
 * in place by a rename is read as the old or the new one, whole.
 */
static void name_pairs(uint32_t f, const struct rec *r, const char *path)
{
	const struct removal *before = NULL, *after = NULL, *m[2];
	size_t lo, i;

	if (!nremovals || !path || r->excl || !(r->mpi || programs_own(r)))
		return;
	lo = first_of_path(removals, nremovals, sizeof(*removals), path);
	if (lo < nremovals && removals[lo].one && streq(removals[lo].path, path)) {
		size_t a = removals_split(lo, cur->name, r->seq, r->t0);
		before = a > lo ? &removals[a - 1] : NULL;
		after = a < removals[lo].gend ? &removals[a] : NULL;
		lo = nremovals;	/* (found) */
	}
	for (; lo < nremovals && streq(removals[lo].path, path); lo++) {
		if (removed_before(&removals[lo], cur->name, r->seq, r->t0)) {
			before = &removals[lo];
		} else {
			after = &removals[lo];
			break;
		}
	}
	m[0] = before;
	m[1] = after;
	for (i = 0; i < 2; i++) {
		if (!m[i] || !m[i]->name || streq(m[i]->rank, cur->name))
			continue;
		announce(f);
		printf("#name\tfile=%" PRIu32 "\trank=%s\tseq=%" PRIu64 "\tfrom=%s\tfromseq=%"
		       PRIu64 "\n", f, cur->name, r->seq, m[i]->rank, m[i]->seq);
		/* (which side of the other's removal the open came was
		 * told by the times: rebuilt ones do not keep it) */
		files[f].xname = 1;
	}
}

/*
 * A file an MPI library opens for itself inside MPI_File_open: ROMIO's
 * shared file pointer (".NAME.shfp.N"), Open MPI's (OMPIO's
 * "NAME_cid-C-N.sm" in its session directory) and its lock probe
 * ("NAME.locktest.R"), devices and the like.
 */
static int mpi_lib_file(const char *s)
{
	size_t n = strlen(s);

	return strstr(s, ".shfp.") || strstr(s, ".locktest.") ||
	       (strstr(s, "_cid-") && n > 3 && streq(s + n - 3, ".sm")) ||
	       strncmp(s, "/dev/", 5) == 0 || strncmp(s, "/proc/", 6) == 0 ||
	       strncmp(s, "/sys/", 5) == 0;
}

/*
 * An open that found no file (ENOENT), or a stat or access by path that
 * found none (a program that asks whether the file is there yet), and the first
 * open of another
 * process that made the file then: unless one happens before the other,
 * whether the open found the file depends on which ran first (rank 1
 * reading the file rank 0 is about to write, nothing between: in one run
 * it finds nothing, in another the bytes).  A "#name" line, as for a
 * removal.  Not an open that is followed in its process by one of the
 * same path that succeeded (a program that waits for the file to be
 * there: the open that found it came after its making), nor one with
 * O_CREAT (a directory missing), nor the MPI library's own.
 */
static void missing_pair(const struct rec *r)
{
	const struct rec *x;
	uintptr_t at = (uintptr_t)r;
	size_t lo;
	uint32_t f;

	const struct creation *c = NULL;

	if (!ncreations || r->creat || r->mpi || !programs_own(r))
		return;
	/* (nor the MPI library's own files inside the program's MPI-IO
	 * call: OMPIO's lock probe and shared pointer, made and removed
	 * by every rank, whose removal may find the file gone) */
	if (r->depth > 0 && r->s && mpi_lib_file(r->s))
		return;
	/* (recs holds the process's records, kept ones too: run_deferred) */
	if (at < (uintptr_t)recs || at >= (uintptr_t)(recs + nrecs))
		return;
	/* (with times rebuilt, not made before it looked cannot be told: the
	 * first another process made, and the file said to rest on times) */
	for (lo = first_of_path(creations, ncreations, sizeof(*creations), r->s);
	     lo < ncreations && streq(creations[lo].path, r->s); lo++)
		if (!streq(creations[lo].rank, cur->name) &&
		    (times_rebuilt || creations[lo].t1 > r->t0)) {
			c = &creations[lo];	/* not its own, nor made before it looked */
			break;
		}
	if (!c)
		return;
	/* (only then the rest of the process: most such opens have no maker;
	 * an unlink that found nothing waited for nothing.  A process that
	 * polls looks for one name many times: the look that found it, or
	 * that none did, is kept for the next, or n polls cost n squared) */
	if (!r->remove) {
		static const struct rec *found, *from;	/* of the last scan */
		static char *path;	/* (a record's own is freed once run) */
		static uint64_t gen;
		static int none;
		if (from && gen == recs_gen && from < r && streq(path, r->s) &&
		    (none || r < found)) {
			if (!none)
				return;
		} else {
			for (x = r + 1; x < recs + nrecs; x++)
				if ((x->op == TG_IO_OPEN || x->op == TG_IO_LOOK || x->op == TG_IO_LOAD ||
				     (x->op == TG_IO_SIZE && !x->k1[0])) &&
				    !x->failed && x->s && streq(x->s, r->s))
					break;
			from = r;
			gen = recs_gen;
			free(path);
			path = xstrdup(r->s);
			found = x;
			none = x == recs + nrecs;
			if (!none)
				return;
		}
	}
	f = file_of(r->s, cur->name, r->seq, r->t0);
	files[f].xname = 1;
	announce(f);
	printf("#name\tfile=%" PRIu32 "\trank=%s\tseq=%" PRIu64 "\tfrom=%s\tfromseq=%" PRIu64
	       "\n", f, cur->name, r->seq, c->rank, c->seq);
}

/*
 * The path MPI_File_open record @r names, as the MPI library's own opens
 * inside it name it: the tracer records the kernel's name of a file an
 * open made (a symbolic link resolved), the MPI-IO layer the name the
 * program gave.  When that name is not one the library opened (a path
 * through a symbolic link), the first file the library opened inside the
 * call with the same last component is the file, else the first it
 * opened; not one of its own (mpi_lib_file: OMPIO opens its shared
 * pointer's and its lock probe's before the file).  The records of the
 * process are in start order: the library's come after @r, while it ran.
 */
static const char *mpi_open_path(const struct rec *r)
{
	const struct rec *x, *first = NULL, *same = NULL;
	const char *base = strrchr(r->s, '/') ? strrchr(r->s, '/') + 1 : r->s;
	uintptr_t at = (uintptr_t)r;

	/* (recs holds the process's records, kept ones too: run_deferred) */
	if (at < (uintptr_t)recs || at >= (uintptr_t)(recs + nrecs))
		return r->s;
	for (x = r + 1; x < recs + nrecs && x->t0 <= r->t1; x++) {
		const char *xb;
		if (!x->nested || x->parent != (int64_t)r->seq || x->op != TG_IO_OPEN ||
		    x->failed || !x->s)
			continue;
		if (streq(x->s, r->s))
			return r->s;
		if (mpi_lib_file(x->s))
			continue;
		if (!first)
			first = x;
		xb = strrchr(x->s, '/') ? strrchr(x->s, '/') + 1 : x->s;
		if (!same && streq(xb, base))
			same = x;
	}
	return same ? same->s : first ? first->s : r->s;
}

static void run_open(const struct rec *r)
{
	struct desc *d;
	uint32_t f;

	if (r->failed && r->enoent && r->s)
		missing_pair(r);
	if (r->failed || !r->s)
		return;
	f = file_of(r->mpi ? mpi_open_path(r) : r->s, cur->name, r->seq, r->t0);
	if (r->mpi) {
		struct mfile *m;
		cur->mf = xrealloc(cur->mf, (cur->nmf + 1) * sizeof(*cur->mf));
		m = &cur->mf[cur->nmf++];
		memset(m, 0, sizeof(*m));
		snprintf(m->id, sizeof(m->id), "%s", r->k1);
		m->file = f;
		m->open = r->tord;
		m->etype = m->ftype = tg_types_get(cur->types, "MPI_BYTE");
	} else {
		if (r->op == TG_IO_REOPEN && (d = desc_of(r->k2)))
			event(d->file, r, "close");
		d = desc_new(f, r->append);
		d->oproc = (uint32_t)(cur - procs);
		d->oseq = r->seq;
		d->ot0 = r->t0;
		slot_set(cur, r->k1, d);
		slot_cloexec(r->k1, r->cloexec);
	}
	if (r->trunc)
		set_size(f, r, 0);
	event(f, r, "open");
	if (!r->mpi && !r->creat)
		after_rename(f, r);
	if (!r->mpi && r->creat && r->excl)
		after_lock(f, r);
	name_pairs(f, r, r->mpi ? mpi_open_path(r) : r->s);
}

/* The last close run: the process, the call and the file. */
static struct {
	const struct proc *proc;
	uint64_t seq;
	uint32_t file;
} last_close;

static void stdio_flush(const char *key, const struct rec *r);

static void run_close(const struct rec *r)
{
	struct mfile *m;
	struct desc *d;
	const char *fd;

	if (r->mpi) {
		if (!(m = mfile_of(r->k1)))
			return;
		if (!r->failed) {
			event(m->file, r, "commit");
			event(m->file, r, "close");
			if (m->atomic) {	/* the mode ends with the handle */
				m->atomic = 0;
				mode_say(m, r);
			}
		}
		*m = cur->mf[--cur->nmf];
		return;
	}
	fd = std_fd(r->k1);
	if (r->k1[0] == 's')
		stdio_flush(r->k1, r);
	if (!(d = desc_of(r->k1)))
		return;
	/* fclose closes the stream and the descriptor under it: one close */
	if (!r->failed && !(last_close.seq == r->seq && last_close.proc == cur &&
			    last_close.file == d->file)) {
		event(d->file, r, "commit");
		event(d->file, r, "close");
	}
	last_close.seq = r->seq;
	last_close.proc = cur;
	last_close.file = d->file;
	slot_drop(cur, fd ? fd : r->k1);	/* fclose(stdout) closes 1 */
}

/* The bytes of an MPI-IO data call; -1 if its datatype is unknown. */
static int64_t mpi_bytes(const struct rec *r)
{
	struct tg_flat *dt;

	if (r->len >= 0)
		return r->len;
	dt = r->s ? tg_types_get(cur->types, r->s) : NULL;
	return dt ? r->count * (int64_t)tg_flat_size(dt) : 0;
}

static void pend_ordered(const struct mfile *m, const struct rec *r, int64_t bytes)
{
	struct pend *p;
	int64_t rk;

	if (tg_tint(cur->name, &rk) < 0) {
		cur->unplaced++;
		return;
	}
	if (m->file >= cur->capordered) {
		size_t nc = m->file + 16;
		cur->nordered = xrealloc(cur->nordered, nc * sizeof(uint64_t));
		memset(cur->nordered + cur->capordered, 0, (nc - cur->capordered) * sizeof(uint64_t));
		cur->capordered = nc;
	}
	pends = xrealloc(pends, (npends + 1) * sizeof(*pends));
	p = &pends[npends++];
	p->proc = (uint32_t)(cur - procs);
	p->file = m->file;
	p->k = cur->nordered[m->file]++;
	p->rankno = rk;
	p->bytes = bytes;
	p->after = r->pos;
	p->before = r->pos2;
	p->disp = m->disp;
	p->etype = m->etype;
	p->ftype = m->ftype;
	p->r = *r;
	p->r.s = NULL;
}

/*
 * A shared-pointer call (MPI_File_write_shared ...) is placed where the
 * pointer stood when the call took its bytes.  The tracer reads the pointer
 * just before and just after the call, and another rank may move it in
 * between: then [before, after) is wider than the call's own units, and the
 * call took some n units of it.  Every shared-pointer call of a file takes
 * its units atomically, so those of the calls the window is exact for are
 * known, and a wide call took the one free stretch of n units left in its
 * window.  Placed once every process has run; a call whose window leaves no
 * single such stretch is counted unplaced, never guessed.
 */
struct pshared {
	uint32_t proc, file;
	int64_t before, after, n, bytes;	/* n: the call's units (etypes) */
	int64_t b0;		/* before as recorded (the order of pshs) */
	uint64_t disp;
	struct tg_flat *etype, *ftype;
	struct rec r;
	int placed;
	int block;		/* not a call: 1, the stretch an ordered call
				 * took (place_ordered), there to be kept free;
				 * 2, where one not placed took its units */
};
static struct pshared *pshs;
static size_t npshs;

/* A new entry at the end of @v (@n of them) for call @r, @bytes of the
 * file of @m through its view, the rest zero. */
static struct pshared *psh_new(struct pshared **v, size_t *n, const struct mfile *m,
			       const struct rec *r, int64_t bytes)
{
	struct pshared *q;

	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	q = &(*v)[(*n)++];
	memset(q, 0, sizeof(*q));
	q->proc = (uint32_t)(cur - procs);
	q->file = m->file;
	q->bytes = bytes;
	q->disp = m->disp;
	q->etype = m->etype;
	q->ftype = m->ftype;
	q->r = *r;
	q->r.s = NULL;
	return q;
}

static void pend_shared(const struct mfile *m, const struct rec *r, int64_t bytes,
			uint64_t esz)
{
	struct pshared *q = psh_new(&pshs, &npshs, m, r, bytes);

	q->before = q->b0 = r->pos;
	q->after = r->pos2;
	q->n = bytes / (int64_t)esz;
}

/*
 * A shared-pointer or ordered call whose pointer the tracer did not read
 * (a file opened with MPI_MODE_SEQUENTIAL, where asking is an error): only
 * the POSIX calls inside it can say where it went (place_blind).
 */
static struct pshared *blinds;
static size_t nblinds;

static void pend_blind(const struct mfile *m, const struct rec *r, int64_t bytes)
{
	psh_new(&blinds, &nblinds, m, r, bytes);
}

static void run_mpi_data(const struct rec *r)
{
	struct mfile *m = mfile_of(r->k1);
	int64_t bytes, want = 0;
	uint64_t esz;

	if (!m || r->failed)
		return;
	mode_say(m, r);
	bytes = mpi_bytes(r);
	if (!r->write && r->len >= 0 && r->s &&
	    (r->off == TG_OFF_AT || r->off == TG_OFF_IND)) {
		/* a read that met the end of the file read that there was
		 * nothing more where it asked: a write there made at the same
		 * time, or before it but not yet seen, conflicts with it */
		struct tg_flat *dt = tg_types_get(cur->types, r->s);
		want = dt ? r->count * (int64_t)tg_flat_size(dt) : 0;
	}
	if (bytes <= 0 && want <= 0)
		return;
	if (r->off == TG_OFF_ORDERED && r->pos >= 0) {
		pend_ordered(m, r, bytes);
		return;
	}
	esz = tg_flat_size(m->etype);
	if (r->pos < 0 && (r->off == TG_OFF_SHARED || r->off == TG_OFF_ORDERED) && esz &&
	    bytes % (int64_t)esz == 0) {
		pend_blind(m, r, bytes);	/* MPI_MODE_SEQUENTIAL: no pointer read */
		return;
	}
	if (r->pos < 0 || r->off == TG_OFF_ORDERED) {
		cur->unplaced++;
		return;
	}
	if (r->off == TG_OFF_SHARED && r->pos2 >= 0 && esz && bytes % (int64_t)esz == 0) {
		pend_shared(m, r, bytes, esz);
		return;
	}
	mpi_data(m, r, (uint64_t)r->pos, (uint64_t)(want > bytes ? want : bytes), r->write);
	if (r->off == TG_OFF_IND && esz)
		m->ptr = (uint64_t)r->pos + (uint64_t)bytes / esz;
}

/*
 * A nonblocking call's accesses last until the call that completes it
 * (a #done line: conflict-check orders them by that call): POSIX AIO
 * until aio_return(), an MPI_File_i* call until the wait or test that
 * completes its request, a split collective's begin until its end.
 */
struct nbreq {
	char key[TG_KEYLEN + 4];	/* the request; "fh:" and the handle for
					 * a split collective */
	uint64_t seq;
	uint32_t file;		/* a buffered append (cur->sw): its file */
	int64_t acc;		/* and access, or -1 */
	int64_t held;		/* a buffered write: what its stream's buffer
				 * held after it, or -1 */
	int64_t skip;		/* and of its bytes, how many its call wrote
				 * out (the rest wait), or 0 */
	int64_t from;		/* where in the file those that wait start,
				 * or -1: all of it waits */
};

/* Buffered write @q reached the file at @t: an append's place is the
 * end at that time (struct aflush). */
static void flushed_at(const struct nbreq *q, int64_t t)
{
	struct file *fl;

	if (q->acc < 0)
		return;
	fl = &files[q->file];
	fl->afl = xrealloc(fl->afl, (fl->nafl + 1) * sizeof(*fl->afl));
	fl->afl[fl->nafl++] = (struct aflush){ (size_t)q->acc, t };
}

/* @from: the file offset from which the call's bytes waited, or -1 */
static void print_done_from(const char *rank, uint64_t seq, uint64_t end, int64_t tend,
			    int64_t from)
{
	if (end == seq)
		return;
	printf("#done\trank=%s\tseq=%" PRIu64 "\tend=%" PRIu64 "\ttend=%" PRId64 ".%09" PRId64,
	       rank, seq, end, tend / 1000000000, tend % 1000000000);
	if (from >= 0)
		printf("\tfrom=%" PRId64, from);
	putchar('\n');
}

static void print_done(const char *rank, uint64_t seq, uint64_t end, int64_t tend)
{
	print_done_from(rank, seq, end, tend, -1);
}

/*
 * Completions read before the request they complete: a process's records
 * come a thread's window at a time, so the main thread's MPI_Waitall of
 * requests its workers' MPI_File_iwrite_at made (later seqs of its
 * windows, earlier in the text) is read first.  The last NB_EARLY
 * completions that matched no request are kept for the requests read
 * after them (a ring: most are of messages, not of files).
 */
#define NB_EARLY 1024
struct nbearly {
	char key[TG_KEYLEN + 4];
	uint64_t seq;
	int64_t t1;
};

static void nb_start(const char *key, uint64_t seq)
{
	struct nbreq *q;
	size_t i, best = SIZE_MAX;

	/* completed already, by the earliest completion after it */
	for (i = 0; i < cur->nearly; i++)
		if (cur->early[i].seq > seq && strcmp(cur->early[i].key, key) == 0 &&
		    (best == SIZE_MAX || cur->early[i].seq < cur->early[best].seq))
			best = i;
	if (best != SIZE_MAX) {
		print_done(cur->name, seq, cur->early[best].seq, cur->early[best].t1);
		cur->early[best].key[0] = 0;	/* used */
		return;
	}
	cur->nb = xrealloc(cur->nb, (cur->nnb + 1) * sizeof(*cur->nb));
	q = &cur->nb[cur->nnb++];
	snprintf(q->key, sizeof(q->key), "%s", key);
	q->seq = seq;
}

/* Call @seq, which returned at @t1, completed request @key (the oldest
 * call that made it: a request value is used again once complete). */
static void nb_end(const char *key, size_t n, uint64_t seq, int64_t t1)
{
	struct nbearly *e;
	size_t i;

	for (i = 0; i < cur->nnb; i++)
		if (strlen(cur->nb[i].key) == n && memcmp(cur->nb[i].key, key, n) == 0 &&
		    cur->nb[i].seq < seq) {
			print_done(cur->name, cur->nb[i].seq, seq, t1);
			memmove(&cur->nb[i], &cur->nb[i + 1], (cur->nnb - i - 1) * sizeof(*cur->nb));
			cur->nnb--;
			return;
		}
	if (n >= sizeof(e->key))
		return;
	if (!cur->early)
		cur->early = xrealloc(NULL, NB_EARLY * sizeof(*cur->early));
	e = &cur->early[cur->nextearly++ % NB_EARLY];
	if (cur->nearly < NB_EARLY)
		cur->nearly++;
	memcpy(e->key, key, n);
	e->key[n] = 0;
	e->seq = seq;
	e->t1 = t1;
}

/* The @k-th element of the array "[a,b,...]" @v, in @e (its length). */
static const char *nb_elem(const char *v, int64_t k, size_t *e)
{
	const char *p;

	if (!v || *v != '[' || k < 0)
		return NULL;
	for (p = v + 1; k > 0; k--) {
		p = strchr(p, ',');
		if (!p)
			return NULL;
		p++;
	}
	*e = strcspn(p, ",]");
	return *e ? p : NULL;
}

static int64_t nb_int(const struct tg_tline *t, const char *name, int64_t dflt)
{
	const char *v = tg_tline_arg(t, TG_COL_ARGS, name);
	int64_t x;

	return v && tg_tint(v, &x) == 0 ? x : dflt;
}

/* -l mpiio: a nonblocking MPI-IO call, or a call that completes one. */
static void nb_line(const struct tg_tline *t, const struct tg_calldesc *d, uint64_t seq)
{
	const char *v = NULL, *e;
	size_t n;
	int64_t k, i, t1;

	if (d->layer == TG_LAYER_MPIIO)
		cur->nfileio = 1;
	if (!d->hb || !streq(t->f[TG_COL_RET], "0"))
		return;
	t1 = tg_ttime(t->f[TG_COL_TEND]);
	switch (d->hb->kind) {
	case TG_MK_WAIT: case TG_MK_TEST: case TG_MK_WAITALL: case TG_MK_TESTALL:
	case TG_MK_WAITANY: case TG_MK_TESTANY: case TG_MK_WAITSOME: case TG_MK_TESTSOME:
		if (!cur->nnb && !cur->nfileio)
			return;	/* (no file request made yet, none pending) */
		break;
	default:
		break;
	}
	switch (d->hb->kind) {
	case TG_MK_FBEGIN: case TG_MK_FEND: {
		char key[TG_KEYLEN + 4];
		if (!(v = tg_tline_arg(t, TG_COL_ARGS, "fh")))
			return;
		snprintf(key, sizeof(key), "fh:%s", v);
		if (d->hb->kind == TG_MK_FBEGIN)
			nb_start(key, seq);
		else
			nb_end(key, strlen(key), seq, t1);
		return;
	}
	case TG_MK_WAIT: case TG_MK_TEST:
		if (nb_int(t, "flag", 1) && (v = tg_tline_arg(t, TG_COL_ARGS, "request")))
			nb_end(v, strlen(v), seq, t1);
		return;
	case TG_MK_WAITALL: case TG_MK_TESTALL:
		if (!nb_int(t, "flag", 1))
			return;
		v = tg_tline_arg(t, TG_COL_ARGS, "array_of_requests");
		for (i = 0; (e = nb_elem(v, i, &n)); i++)
			nb_end(e, n, seq, t1);
		return;
	case TG_MK_WAITANY: case TG_MK_TESTANY:
		k = nb_int(t, "indx", -1);
		if (nb_int(t, "flag", 1) && (e = nb_elem(tg_tline_arg(t, TG_COL_ARGS,
								      "array_of_requests"), k, &n)))
			nb_end(e, n, seq, t1);
		return;
	case TG_MK_WAITSOME: case TG_MK_TESTSOME: {
		const char *ix = tg_tline_arg(t, TG_COL_ARGS, "array_of_indices");
		v = tg_tline_arg(t, TG_COL_ARGS, "array_of_requests");
		k = nb_int(t, "outcount", 0);
		for (i = 0; i < k; i++) {
			const char *x = nb_elem(ix, i, &n);
			int64_t j;
			char b[24];
			if (!x || n >= sizeof(b))
				break;
			memcpy(b, x, n);
			b[n] = 0;
			if (tg_tint(b, &j) == 0 && (e = nb_elem(v, j, &n)))
				nb_end(e, n, seq, t1);
		}
		return;
	}
	default:
		/* a data call that gives back a request (MPI_File_iwrite, ...) */
		if (d->layer == TG_LAYER_MPIIO && d->nio &&
		    (v = tg_tline_arg(t, TG_COL_ARGS, "request")))
			nb_start(v, seq);
		return;
	}
}

/*
 * A POSIX AIO request: its bytes are placed at the submission (its seq and
 * times), where the program asked for them, once aio_return says how many
 * moved; a request never returned is placed whole when its process ends
 * (lio_listio's LIO_WAIT, or a program that only polls aio_error).
 */
struct aioreq {
	char key[TG_KEYLEN];
	struct rec r;		/* the submission */
	uint32_t file;
	uint64_t off;
	int append;		/* an O_APPEND write: at the end when placed */
	int sync;		/* aio_fsync: a commit when done, no bytes */
};

static void aio_place(size_t i, int64_t n);
static int cmp_u64(const void *a, const void *b);

/* A new request of submission @r on file @f, the rest zero. */
static struct aioreq *aio_push(const struct rec *r, uint32_t f)
{
	struct aioreq *q;

	cur->aio = xrealloc(cur->aio, (cur->naio + 1) * sizeof(*cur->aio));
	q = &cur->aio[cur->naio++];
	memset(q, 0, sizeof(*q));
	memcpy(q->key, r->k2, sizeof(q->key));
	q->r = *r;
	q->r.s = NULL;
	q->file = f;
	return q;
}

static void aio_submit(const struct rec *r)
{
	struct desc *d;
	struct aioreq *q;

	if (r->failed || r->len <= 0)
		return;
	if (!(d = desc_of(r->k1))) {
		cur->untracked++;
		return;
	}
	if (r->pos < 0 && !(r->write && d->append)) {
		cur->unplaced++;
		return;
	}
	q = aio_push(r, d->file);
	/* O_APPEND: the end of the file, whatever aio_offset says */
	q->append = r->write && d->append;
	q->off = q->append ? files[d->file].size : (uint64_t)r->pos;
	/* a request of lio_listio(LIO_WAIT): done within the call, whole */
	if (r->parent >= 0 && cur->nliowait &&
	    bsearch(&(uint64_t){ (uint64_t)r->parent }, cur->liowait, cur->nliowait,
		    sizeof(*cur->liowait), cmp_u64))
		aio_place(cur->naio - 1, r->len);
}

/* aio_fsync: the file's data committed when the request is done. */
static void aio_sync_submit(const struct rec *r)
{
	struct desc *d;
	struct aioreq *q;

	if (r->failed || !(d = desc_of(r->k1)))
		return;
	q = aio_push(r, d->file);
	q->sync = 1;
}

/* Place request @i with @n bytes (at most those asked for) and forget it;
 * an aio_fsync's commit, at record @at (NULL: the process's end). */
static void aio_place_at(size_t i, int64_t n, const struct rec *at)
{
	struct aioreq *q = &cur->aio[i];

	if (q->sync) {
		struct rec end;
		if (!at) {	/* (done by the end: as the process ends) */
			end = q->r;
			end.seq = cur->endseq;
			end.t0 = end.t1 = cur->endt;
			at = &end;
		}
		event(q->file, at, "commit");
		memmove(q, q + 1, (cur->naio - i - 1) * sizeof(*q));
		cur->naio--;
		return;
	}
	if (n > q->r.len)
		n = q->r.len;
	if (n > 0 && q->append)
		add_append(q->file, &q->r, (uint64_t)n);
	else if (n > 0)
		add_access(q->file, &q->r, q->off, (uint64_t)n, q->r.write);
	memmove(q, q + 1, (cur->naio - i - 1) * sizeof(*q));
	cur->naio--;
}

static void aio_place(size_t i, int64_t n)
{
	aio_place_at(i, n, NULL);
}

static void aio_done(const struct rec *r)
{
	struct desc *d;
	size_t i;

	for (i = 0; i < cur->naio; i++)	/* the oldest first: a reused aiocb */
		if (strcmp(cur->aio[i].key, r->k2) == 0)
			break;
	/* an aiocb copied elsewhere after its submission (Open MPI's OMPIO
	 * keeps them in an array it grows): the oldest request of the
	 * thread on the same file at the same offset */
	if (i == cur->naio && r->pos >= 0 && (d = desc_of(r->k1))) {
		const char *tid = strchr(r->k2, ':');
		size_t tl = tid ? (size_t)(tid - r->k2) + 1 : 0;

		for (i = 0; i < cur->naio; i++)
			if (cur->aio[i].file == d->file && !cur->aio[i].append &&
			    cur->aio[i].off == (uint64_t)r->pos &&
			    strncmp(cur->aio[i].key, r->k2, tl) == 0)
				break;
		/* or of another thread: aiocbs are named per thread, and the
		 * main thread may complete a worker's request (or OMPIO's
		 * progress in one thread's MPI_Wait another's) */
		if (i == cur->naio)
			for (i = 0; i < cur->naio; i++)
				if (cur->aio[i].file == d->file && !cur->aio[i].append &&
				    cur->aio[i].off == (uint64_t)r->pos)
					break;
	}
	if (i == cur->naio)
		return;
	if (!cur->aio[i].sync)
		print_done(cur->name, cur->aio[i].r.seq, r->seq, r->t1);
	/* (a read that met the end of the file read all it asked; aio_error
	 * says only that it is done: all of it, or none on an error) */
	if (fname(r->func) && strcmp(fname(r->func), "aio_error") == 0)
		aio_place_at(i, r->ret == 0 ? cur->aio[i].r.len : 0, r);
	else
		aio_place_at(i, r->failed ? 0 : cur->aio[i].r.write ? r->ret : cur->aio[i].r.len,
			     r);
}

/* Stream @key (all of them when NULL) is flushed in call @end, its
 * pending writes done there at @tend. */
static void stdio_flush_at(const char *key, uint64_t end, int64_t tend)
{
	size_t i, k = 0;

	for (i = 0; i < cur->nsw; i++) {
		if (!key || strcmp(cur->sw[i].key, key) == 0) {
			print_done_from(cur->name, cur->sw[i].seq, end, tend, cur->sw[i].from);
			flushed_at(&cur->sw[i], tend);
		} else
			cur->sw[k++] = cur->sw[i];
	}
	cur->nsw = k;
}

/* Stream @key (all of them when NULL) is flushed by record @r: its
 * pending writes are done there (the flush's own commit and close count,
 * so the done is just before the call starts). */
static void stdio_flush(const char *key, const struct rec *r)
{
	size_t i;

	stdio_flush_at(key, r->seq, r->t0 - 1);
	/* (and a read buffer is dropped: glibc reads again after a seek or
	 * an fflush of a reading stream) */
	for (i = 0; i < cur->nslots; i++)
		if (!key || strcmp(cur->slots[i].key, key) == 0)
			cur->slots[i].rb = 0;
}

/*
 * A write to a fully buffered stream (stdio's default for a file) reaches
 * the file when the stream is flushed: fflush, fclose, a seek, exit.  Its
 * bytes are placed at the call, and last until that flush (a #done line),
 * so that a write left in the buffer while another process reads is not
 * taken as ordered before the read.  A stream set unbuffered or line
 * buffered (setvbuf) writes at the call, in a trace without held (below).
 * A write also flushes the
 * buffer when it does not fit in it, and glibc then writes its whole
 * blocks at once: the tracer records what the buffer held after each
 * write (held=), so a write that left less than the buffer held before
 * it plus its own bytes flushed the writes before it there, and one that
 * left nothing reached the file at its call.  One that flushed and left
 * some of its own bytes wrote the rest out at its call (glibc keeps only
 * the tail that follows the last block or, line buffered, the last
 * newline): only those it left wait (#done from=, set by run_data where
 * the bytes go; an append's place is known at its flush, and waits whole).
 */
static struct nbreq *stdio_pending(const struct rec *r)
{
	struct slot *sl = slot_find(cur, r->k1);
	const char *fd = std_fd(r->k1);
	struct nbreq *q, *last = NULL;
	int64_t skip = 0;
	size_t i;

	/* (a stream set unbuffered or line buffered, whose held the trace
	 * does not give, writes at the call; with held, as any stream: a
	 * line buffered one keeps what follows its last newline) */
	if (r->held < 0 && (fd ? cur->stdnobuf & (1u << (fd[0] - '0')) : !sl || sl->nobuf))
		return NULL;
	if (!fd && !sl)
		return NULL;
	if (r->failed || r->len <= 0 || r->aio)
		return NULL;
	/* what the buffer held before (nothing when no write waits in it),
	 * if the records say: not when another thread's write read before
	 * this one came after it (the stream's latest is near the end) */
	if (r->held < 0)
		goto wait;
	for (i = cur->nsw; i-- > 0;)
		if (strcmp(cur->sw[i].key, r->k1) == 0) {
			last = &cur->sw[i];
			break;
		}
	if (!last || (last->held >= 0 && last->seq < r->seq)) {
		int64_t before = last ? last->held : 0;
		if (r->held < before + r->len) {
			stdio_flush_at(r->k1, r->seq, r->t1);
			if (r->held < r->len)
				skip = r->len - r->held;
		}
		if (r->held == 0)
			return NULL;	/* all of it reached the file */
	}
wait:
	cur->sw = xrealloc(cur->sw, (cur->nsw + 1) * sizeof(*cur->sw));
	q = &cur->sw[cur->nsw++];
	snprintf(q->key, sizeof(q->key), "%s", r->k1);
	q->seq = r->seq;
	q->acc = -1;
	q->held = r->held;
	q->skip = skip;
	q->from = -1;
	return q;
}

/*
 * A stdio read fills the stream's buffer: glibc reads a whole one ahead,
 * and the reads after it that the buffer serves return bytes fetched from
 * the file then.  The tracer records what a read left in the buffer
 * (ahead=): a read that the bytes the last fill fetched hold is placed as
 * read at that fill's time (a write of them by another process that
 * nothing orders after the fill races it, whatever orders the later read),
 * and bytes fetched that no read returns are no access.  A write, a seek
 * out of the buffer, or a read without ahead ends it.  Returns 1 when the
 * read was placed here.
 */
static int stdio_buffered_read(const struct rec *r, struct desc *d, int64_t want)
{
	struct slot *sl = slot_find(cur, r->k1);
	uint64_t p0 = d->off, p1;
	struct rec f;

	if (!sl)
		return 0;
	if (r->write || r->held < 0 || r->off != TG_OFF_POS || want != r->len || r->failed) {
		sl->rb = 0;
		return 0;
	}
	p1 = p0 + (uint64_t)r->len;
	if (sl->rb && p0 >= sl->rb_start && p1 <= sl->rb_end) {
		memset(&f, 0, sizeof(f));
		f.seq = sl->rb_seq;
		f.t0 = sl->rb_t0;
		f.t1 = sl->rb_t1;
		f.func = sl->rb_func;
		f.tid = sl->rb_tid;
		f.off = TG_OFF_POS;
		add_access(d->file, &f, p0, p1 - p0, 0);
		d->off = p1;
		return 1;
	}
	/* this read fetched: its own bytes and those it left ahead */
	sl->rb = r->held > 0;
	sl->rb_start = p0;
	sl->rb_end = p1 + (uint64_t)r->held;
	sl->rb_seq = r->seq;
	sl->rb_t0 = r->t0;
	sl->rb_t1 = r->t1;
	sl->rb_func = r->func;
	sl->rb_tid = r->tid;
	return 0;
}

static int note_sieve(const struct rec *r, struct desc *d, uint64_t p0, uint64_t n);

static void run_data(const struct rec *r)
{
	struct nbreq *pq = NULL;
	struct desc *d;
	int64_t want;
	int sieve = 0;

	if (r->mpi) {
		run_mpi_data(r);
		return;
	}
	if (r->aio) {
		aio_submit(r);
		return;
	}
	/* a read that got fewer bytes than it asked for met the end of the
	 * file: it read that the rest held nothing (a write there at the same
	 * time, or before it but unseen, conflicts with it) */
	want = !r->write && (!r->failed || r->eof) && r->count > r->len ? r->count : r->len;
	if (want <= 0)
		return;
	if (!(d = desc_of(r->k1))) {
		if (r->len > 0)
			cur->untracked++;
		return;
	}
	if (r->k1[0] == 's' && stdio_buffered_read(r, d, want))
		return;
	if (r->depth >= 1 && !(r->write && (d->append || r->append)))
		sieve = note_sieve(r, d, r->off == TG_OFF_POS ? d->off : (uint64_t)r->pos,
				   (uint64_t)want);
	if (r->write && r->k1[0] == 's')
		pq = stdio_pending(r);
	if (r->off == TG_OFF_POS && want > r->len) {
		add_access(d->file, r, d->off, (uint64_t)want, 0);
		d->off += (uint64_t)r->len;
	} else if (r->off == TG_OFF_POS) {
		if (pq && pq->skip > 0 && !d->append)
			pq->from = (int64_t)d->off + pq->skip;
		data_at_pos(d, r, (uint64_t)r->len, r->write);
	} else if (r->write && (d->append || r->append))
		/* Linux: pwrite on an O_APPEND description writes at the end
		 * whatever its offset (pwrite(2), BUGS), and moves nothing;
		 * so does pwritev2 with RWF_APPEND */
		add_append(d->file, r, (uint64_t)r->len);
	else
		add_access(d->file, r, (uint64_t)r->pos, (uint64_t)want, r->write);
	if (sieve && files[d->file].nacc &&
	    files[d->file].acc[files[d->file].nacc - 1].seq == r->seq &&
	    files[d->file].acc[files[d->file].nacc - 1].kind == ACC_DATA)
		files[d->file].acc[files[d->file].nacc - 1].kind = ACC_SIEVE;
	/* an append through a buffer: its place is the end at its flush */
	if (pq && files[d->file].nacc &&
	    files[d->file].acc[files[d->file].nacc - 1].seq == r->seq &&
	    files[d->file].acc[files[d->file].nacc - 1].kind == ACC_APPEND) {
		pq->file = d->file;
		pq->acc = (int64_t)files[d->file].nacc - 1;
	}
}

static void run_seek(const struct rec *r)
{
	struct mfile *m;
	struct desc *d;

	if (r->mpi) {
		if (!(m = mfile_of(r->k1)) || r->failed)
			return;
		if (r->whence == 0)
			m->ptr = (uint64_t)r->pos;
		else if (r->whence == 1)
			m->ptr += (uint64_t)r->pos;
		return;
	}
	if (r->k1[0] == 's' && !r->failed)
		stdio_flush(r->k1, r);
	if (!(d = desc_of(r->k1)))
		return;
	if (r->op == TG_IO_REWIND)
		d->off = 0;
	else if (r->off == TG_OFF_RET && r->ret >= 0)
		d->off = (uint64_t)r->ret;
	else if (r->off == TG_OFF_RET || r->failed)
		return;
	else if (r->whence == 0)
		d->off = (uint64_t)r->pos;
	else if (r->whence == 1)
		d->off += (uint64_t)r->pos;
	else if (r->whence == 2)
		d->off = files[d->file].size + (uint64_t)r->pos;
}

/*
 * -l mpiio: the bytes the POSIX calls inside an MPI-IO call moved in the
 * files MPI-IO opened.  They say where a shared-pointer call took its
 * units when the pointer readings leave it open (ROMIO writes them with
 * one pwrite at the offset it fetched, under no MPI call of its own).
 */
struct inner {
	uint32_t proc, file;
	uint64_t parent;	/* the seq of the MPI call they were in */
	uint64_t off, len;
	uint8_t write;
};
static struct inner *inners;
static size_t ninners, capinners;
static int inners_sorted;

static void run_inner(const struct rec *r)
{
	struct desc *d;
	struct inner *in;
	int64_t f;
	uint64_t off;

	switch (r->op) {
	case TG_IO_OPEN:
	case TG_IO_REOPEN:
		if (!r->failed && r->s && (f = file_known(r->s, cur->name, r->seq, r->t0)) >= 0)
			slot_set(cur, r->k1, desc_new((uint32_t)f, r->append));
		else
			slot_drop(cur, r->k1);
		return;
	case TG_IO_FDOPEN:
	case TG_IO_DUP:
		if (!r->failed && (d = desc_of(r->k2)) && strcmp(r->k1, r->k2) != 0)
			slot_set(cur, r->k1, d);
		return;
	case TG_IO_CLOSE:
		slot_drop(cur, r->k1);
		return;
	case TG_IO_SEEK:
	case TG_IO_REWIND:
		run_seek(r);
		return;
	case TG_IO_READ:
	case TG_IO_WRITE:
		break;
	default:
		return;
	}
	if (r->aio || r->failed || r->len <= 0 || !(d = desc_of(r->k1)))
		return;
	if (r->off != TG_OFF_POS) {
		if (r->pos < 0)
			return;
		off = (uint64_t)r->pos;
	} else if (r->write && d->append) {
		return;		/* where the end was is not kept here */
	} else {
		off = d->off;
		d->off += (uint64_t)r->len;
	}
	if (ninners == capinners) {
		capinners = capinners ? 2 * capinners : 256;
		inners = xrealloc(inners, capinners * sizeof(*inners));
	}
	in = &inners[ninners++];
	in->proc = (uint32_t)(cur - procs);
	in->file = d->file;
	in->parent = (uint64_t)r->parent;
	in->off = off;
	in->len = (uint64_t)r->len;
	in->write = r->write;
	inners_sorted = 0;
}

static int cmp_inner(const void *a, const void *b)
{
	const struct inner *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return (x->parent > y->parent) - (x->parent < y->parent);
}

/* The first byte a view (@disp, @ftype) puts unit @p (of @esz bytes) at,
 * or -1 if it cannot be placed. */
static int64_t view_first(const struct tg_flat *ftype, uint64_t disp, uint64_t esz, int64_t p,
			  uint64_t bytes)
{
	struct tg_extent ex;

	if (tg_flat_map(ftype, disp, (uint64_t)p * esz, bytes, &ex, 1) != 1)
		return -1;
	return (int64_t)ex.off;
}

/*
 * Where call @r of process @proc took its @bytes in @file through the view
 * (@disp, @etype, @ftype), in units from @lo to @hi, as the POSIX calls
 * inside it tell: they moved exactly @bytes of the file, the same way,
 * and the first of them is where the view puts one of those units.  -1
 * when they do not tell (none, or the MPI library moved more or fewer
 * bytes than the call's: data sieving, another rank's bytes in a
 * collective buffer).
 */
static int64_t inner_at(const struct rec *r, uint32_t proc, uint32_t file, int64_t bytes,
			uint64_t disp, const struct tg_flat *etype, const struct tg_flat *ftype,
			int64_t lo, int64_t hi)
{
	struct inner key;
	size_t a = 0, b = ninners;
	uint64_t sum = 0, esz;
	int64_t first = -1;

	if (!ninners || !ftype || lo < 0 || hi < lo)
		return -1;
	if (!inners_sorted) {
		qsort(inners, ninners, sizeof(*inners), cmp_inner);
		inners_sorted = 1;
	}
	key.proc = proc;
	key.parent = r->seq;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (cmp_inner(&inners[mid], &key) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < ninners && cmp_inner(&inners[a], &key) == 0; a++) {
		const struct inner *in = &inners[a];
		if (in->file != file || in->write != r->write)
			continue;
		sum += in->len;
		if (first < 0 || (int64_t)in->off < first)
			first = (int64_t)in->off;
	}
	if (first < 0 || sum != (uint64_t)bytes)
		return -1;
	esz = tg_flat_size(etype);
	if (!esz)
		esz = 1;
	/* the view puts later units at later bytes: the first unit at or
	 * past the first byte */
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2, at = view_first(ftype, disp, esz, mid, (uint64_t)bytes);
		if (at >= 0 && at < first)
			lo = mid + 1;
		else
			hi = mid;
	}
	return view_first(ftype, disp, esz, lo, (uint64_t)bytes) == first ? lo : -1;
}

/* The file a handle key names: an MPI file, a descriptor or a stream. */
static int file_of_key(const struct rec *r, uint32_t *f)
{
	struct mfile *m;
	struct desc *d;

	if (r->mpi && (m = mfile_of(r->k1)))
		*f = m->file;
	else if (!r->mpi && (d = desc_of(r->k1)))
		*f = d->file;
	else
		return -1;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Is @seq one of the current process's own MPI-IO calls? */
static int mpi_top(uint64_t seq)
{
	return cur->nmpitop &&
	       bsearch(&seq, cur->mpitop, cur->nmpitop, sizeof(*cur->mpitop), cmp_u64);
}

/*
 * A call that saw the size of a file through a handle (fstat, lseek to
 * the end, MPI_File_get_size; not stat of a path, see calls.tab): it
 * depends on the write
 * that made the file that long, so it reads the file's last byte (an
 * access of kind ACC_SIZE, 'S').  A size another process's write set is
 * then a pair like any read of its bytes: MPI_File_get_size after another
 * rank's write and a barrier, with no sync, needs a commit model.  A size
 * seen at the same time as the write (libgfortran's fstat as it opens a
 * file other ranks are writing) is no conflict (conflict-check(1)): the
 * older size a weaker model may give is one POSIX gives too, had the look
 * come first.  Only the program's own look at the
 * size counts, or the MPI library's inside the program's MPI-IO call: an
 * I/O library's (HDF5 at each H5Fflush compares the size with its end of
 * allocation and only ever extends the file) decides nothing the program
 * sees.  (The size a truncate set is not followed to the truncate.)
 */
static void run_size(const struct rec *r)
{
	struct access *a;
	uint32_t f;

	/* a stat that found no file: as an open that found none */
	if (r->failed && r->enoent && r->s && !r->k1[0] && r->depth == 0)
		missing_pair(r);
	if (r->failed || r->pos <= 0)
		return;
	if (!programs_own(r))
		return;
	if (!r->k1[0]) {	/* stat: the file the path names then, but
				 * not an MPI library's own (OMPIO's lstat in
				 * MPI_File_open: what it saw the program does
				 * not) */
		if (!r->s || r->depth != 0)
			return;
		f = file_of(r->s, cur->name, r->seq, r->t0);
	} else if (file_of_key(r, &f) < 0) {
		return;
	}
	if ((a = add_access(f, r, (uint64_t)r->pos - 1, 1, 0))) {
		a->kind = ACC_SIZE;
		if (r->func == TG_FN_lseek || r->func == TG_FN_lseek64) {
			files[f].look = (size_t)(a - files[f].acc) + 1;
			files[f].lookproc = a->proc;
		}
	}
}

/* A file the dynamic loader read whole for the program's dlopen
 * (load(PATH,LEN)): a read of its bytes, the call its own open. */
static void run_load(const struct rec *r)
{
	uint32_t f;

	if (r->failed || r->pos <= 0 || !r->s || r->depth != 0)
		return;
	f = file_of(r->s, cur->name, r->seq, r->t0);
	add_access(f, r, 0, (uint64_t)r->pos, 0);
}

static void run_sync_trunc(const struct rec *r)
{
	uint32_t f;

	if (r->failed)
		return;
	if (r->op == TG_IO_SYNC && !r->mpi && !r->k1[0]) {
		if (!r->all)
			stdio_flush(NULL, r);	/* fflush(NULL) */
		commit_all(r, r->all);	/* fflush(NULL), sync() */
		return;
	}
	if (r->op == TG_IO_SYNC && !r->mpi && r->k1[0] == 's')
		stdio_flush(r->k1, r);
	if (r->op == TG_IO_SYNC && r->aio) {
		aio_sync_submit(r);	/* aio_fsync: when it is done */
		return;
	}
	if (r->op == TG_IO_TRUNCATE && !r->k1[0]) {
		if (r->s) {
			f = file_of(r->s, cur->name, r->seq, r->t0);	/* may move files */
			set_size(f, r, (uint64_t)r->pos);
		}
		return;
	}
	if (file_of_key(r, &f) < 0)
		return;
	if (r->op == TG_IO_SYNC)
		event(f, r, "commit");
	else
		set_size(f, r, (uint64_t)r->pos);
}

static void run_view(const struct rec *r)
{
	struct mfile *m = mfile_of(r->k1);
	struct tg_flat *e, *f;

	if (!m)
		return;
	if (r->failed) {
		/* what view the handle has now is not known: ROMIO, refusing
		 * a filetype whose lower bound is negative, writes through it
		 * all the same, at the new displacement; its data is unplaced,
		 * not placed through the old view */
		m->ftype = NULL;
		return;
	}
	e = tg_types_get(cur->types, r->s);
	f = tg_types_get(cur->types, r->s + strlen(r->s) + 1);
	if (!e || !f) {
		/* its data is unplaced, not placed through the old view */
		cur->unplaced++;
		m->ftype = NULL;
		return;
	}
	m->disp = (uint64_t)r->pos;
	m->etype = e;
	m->ftype = f;
	m->ptr = 0;
}

/*
 * A record lock taken or released: a #lock line with the byte range
 * resolved against the descriptor's position (SEEK_CUR, lockf).  The
 * file's size is not known from the trace (it may have existed before),
 * so a SEEK_END lock is unplaced, and a SEEK_END unlock (or one before
 * byte 0) releases the whole file: a lock is never thought held longer
 * than it was.
 */
static void run_lock(const struct rec *r)
{
	static const char *const types[] = { "-", "R", "W" };
	struct desc *d = desc_of(r->k1);
	int64_t base = 0, start, end = -1;

	if (!d || r->failed || r->lock == TG_LOCK_NONE)
		return;
	if (r->whence == 1)
		base = (int64_t)d->off;
	start = base + r->pos;
	if (r->len > 0)
		end = start + r->len;
	else if (r->len < 0) {
		end = start;
		start += r->len;
	}
	if (r->whence == 2 || r->whence < 0 || start < 0) {
		if (r->lock != TG_LOCK_UN) {
			cur->unplaced++;
			return;
		}
		start = 0;
		end = -1;
	}
	announce(d->file);
	files[d->file].locked = 1;
	printf("#lock\tfile=%u\trank=%s\tseq=%" PRIu64 "\tt=%" PRId64 ".%09" PRId64
	       "\ttend=%" PRId64 ".%09" PRId64 "\tkind=%s\ttype=%s\tclass=%s\tstart=%" PRId64,
	       d->file, cur->name, r->seq, r->t0 / 1000000000, r->t0 % 1000000000,
	       r->t1 / 1000000000, r->t1 % 1000000000,
	       r->lock == TG_LOCK_UN ? "unlock" : "lock", types[r->lock],
	       r->lockclass == TG_LKC_FLOCK ? "flock" : "posix", start);
	if (end < 0)
		printf("\tend=-");
	else
		printf("\tend=%" PRId64, end);
	printf("\tfunc=%s\n", fname(r->func));
}

/*
 * MPI_File_set_atomicity: the mode of the handle from this call on, as an
 * event when it changes, so that conflict-check can tell which accesses
 * were made in atomic mode (MPI 4.1 §14.6.1).
 */
static void run_atomic(const struct rec *r)
{
	struct mfile *m = mfile_of(r->k1);
	int on = r->pos != 0;

	if (!m || r->failed || on == m->atomic)
		return;
	m->atomic = on;
	mode_say(m, r);
}

/* A new entry of forks for process @pid, made by call @r of the current
 * process (@child: for another process), its slots to be filled. */
static struct forked *forked_add(int64_t pid, const struct rec *r, int child)
{
	struct forked *fk;

	forks = xrealloc(forks, (nforks + 1) * sizeof(*forks));
	fk = &forks[nforks++];
	fk->pid = pid;
	fk->child = (uint8_t)child;
	fk->func = r->func;
	fk->stdnobuf = 4;	/* a new image: stderr unbuffered */
	fk->nslots = 0;
	fk->slots = xrealloc(NULL, (cur->nslots ? cur->nslots : 1) * sizeof(*fk->slots));
	return fk;
}

/* The current process's descriptors that live on in the program it runs
 * (not its streams, not those that close on exec) into @fk, but
 * descriptor @skip (-1: none). */
static void exec_slots(struct forked *fk, int64_t skip)
{
	char sk[24];
	size_t i;

	snprintf(sk, sizeof(sk), "%" PRId64, skip);
	for (i = 0; i < cur->nslots; i++)
		if (cur->slots[i].key[0] >= '0' && cur->slots[i].key[0] <= '9' &&
		    !cur->slots[i].cloexec && !streq(cur->slots[i].key, sk)) {
			fk->slots[fk->nslots] = cur->slots[i];
			fk->slots[fk->nslots++].d->refs++;
		}
}

static void run_fork(const struct rec *r)
{
	struct forked *fk;
	size_t i;

	if (r->ret <= 0)
		return;
	fk = forked_add(r->ret, r, 1);
	fk->stdnobuf = cur->stdnobuf;
	fk->nslots = cur->nslots;
	if (cur->nslots)
		memcpy(fk->slots, cur->slots, cur->nslots * sizeof(*fk->slots));
	for (i = 0; i < fk->nslots; i++)
		fk->slots[i].d->refs++;
}

/* Forget the descriptors a fork or an exec left for process @pid. */
static void fork_cancel(int64_t pid)
{
	size_t i, j;

	for (i = 0; i < nforks; i++) {
		if (forks[i].pid != pid)
			continue;
		for (j = 0; j < forks[i].nslots; j++)
			if (--forks[i].slots[j].d->refs == 0)
				free(forks[i].slots[j].d);
		free(forks[i].slots);
		forks[i] = forks[--nforks];
		return;
	}
}

/*
 * execve and the like: the descriptors live on in the new program, whose
 * stream has the same pid and takes them at its first call, as a fork
 * child does (its records and those of the process that forked it are run
 * together, in time order); the streams die with the old image, their
 * buffers unwritten.  The tracer writes the record before the call (ret
 * 0), and one after it only when it failed (ret -1): the old image goes on.
 */
static void run_exec(const struct rec *r)
{
	fork_cancel(cur->pid);
	cur->execd = 0;
	if (r->failed || r->ret < 0)
		return;
	exec_slots(forked_add(cur->pid, r, 0), -1);
	cur->execd = 1;
}

/*
 * system, popen, posix_spawn: the child (its pid found ahead for the first
 * two, spawn_pid) runs a program with the descriptors of its parent that
 * do not close on exec, as after an exec: a shell's echo writes to the
 * rank's standard output put on a file.  popen's child has the pipe in
 * place of the parent's standard input ("w") or output ("r"), @r's len.
 * posix_spawn's file actions are not recorded: its child is given the
 * parent's descriptors as they were.
 */
static void run_spawn(const struct rec *r)
{
	if (!r->failed && r->pos > 0)
		exec_slots(forked_add(r->pos, r, 1), r->len);
}

/* fdopen, dup, dup2: handle k1 shares k2's description.  A descriptor
 * dup2 reuses was closed first, which commits and closes its file. */
static void run_dup(const struct rec *r)
{
	struct desc *d, *old;

	if (r->failed || strcmp(r->k1, r->k2) == 0)
		return;
	d = desc_of(r->k2);
	old = r->op == TG_IO_DUP ? desc_of(r->k1) : NULL;
	if (old && old != d) {
		event(old->file, r, "commit");
		event(old->file, r, "close");
	}
	if (d) {
		slot_set(cur, r->k1, d);
		slot_cloexec(r->k1, r->op == TG_IO_DUP && r->cloexec);
		if (r->op == TG_IO_FDOPEN && r->append)
			d->append = 1;	/* glibc sets O_APPEND for mode "a" */
	} else if (old) {
		slot_drop(cur, r->k1);
	}
}

/* An unplaced call: counted, unless the MPI library made it for itself.
 * A mapping nothing can write through reads its bytes: placed as a read
 * at the call (loads through it come later, unseen; that a program maps
 * an input and reads it at once is the common case, and a file no one
 * writes, a program's own code, is no conflict). */
static void run_unplaced(const struct rec *r)
{
	const struct desc *d;

	if (r->mpilib == 1)
		return;
	if (r->mpilib == 2 && (d = desc_of(r->k1)) && !files[d->file].mpiio)
		return;	/* not a file the program opens with MPI-IO */
	if (r->mapread && (d = desc_of(r->k1))) {
		if (r->len > 0)
			add_access(d->file, r, (uint64_t)r->pos, (uint64_t)r->len, 0);
		return;
	}
	cur->unplaced++;
}

/* The process ended (exit, _exit, the end of main, a signal): the kernel
 * closed every descriptor it still held and the C library flushed and
 * closed its streams at exit: each such file is committed and closed by
 * it, once, after its last record. */
static void run_exit(const struct rec *r)
{
	static uint64_t ends;	/* process ends so far: marks files closed once */
	size_t i;

	if (cur->execd)
		return;		/* it went on as another program */
	ends++;
	for (i = 0; i < cur->nslots; i++) {
		uint32_t f = cur->slots[i].d->file;
		if (files[f].closed == ends)
			continue;
		files[f].closed = ends;
		event(f, r, "commit");
		event(f, r, "close");
	}
}

/*
 * The POSIX layer keeps of the MPI-IO calls only what says which bytes an
 * independent read or write selected: its handle's opens, views and
 * closes, and the reads and writes (struct sieve).
 */
static int mpi_indep_io(const struct tg_calldesc *d)
{
	const char *n = d->name;

	if (strncmp(n, "MPI_File_read", 13) != 0 && strncmp(n, "MPI_File_iread", 14) != 0 &&
	    strncmp(n, "MPI_File_write", 14) != 0 && strncmp(n, "MPI_File_iwrite", 15) != 0)
		return 0;
	return !strstr(n, "_all") && !strstr(n, "_shared") && !strstr(n, "_ordered");
}

/* The last part of @path, without a ROMIO file system prefix ("ufs:"). */
static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/'), *c;

	b = b ? b + 1 : path;
	if (b == path && (c = strchr(path, ':')))
		b = c + 1;
	return b;
}

/*
 * The bytes an independent MPI-IO call's view selected, in the order of
 * the file, apart, shared by the POSIX calls made inside the call
 * (struct sieve).
 */
struct sel {
	struct tg_extent *ext;
	size_t n;
};

static int cmp_extent(const void *a, const void *b)
{
	const struct tg_extent *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

/* Sort @c's pieces and join those that touch: a view's tiles may
 * interleave (a filetype resized to less than its blocks span). */
static void sel_tidy(struct sel *c)
{
	size_t i, k = 0;

	for (i = 1; i < c->n && c->ext[i - 1].off <= c->ext[i].off; i++)
		;
	if (i < c->n)	/* (most views' pieces come in order) */
		qsort(c->ext, c->n, sizeof(*c->ext), cmp_extent);
	for (i = 1; i < c->n; i++) {
		struct tg_extent *l = &c->ext[k];
		if (c->ext[i].off <= l->off + l->len) {
			if (c->ext[i].off + c->ext[i].len > l->off + l->len)
				l->len = c->ext[i].off + c->ext[i].len - l->off;
		} else {
			c->ext[++k] = c->ext[i];
		}
	}
	c->n = c->n ? k + 1 : 0;
}

static void run_mpi_shadow(const struct rec *r)
{
	struct mfile *m;
	struct tg_flat *dt;
	struct sel *c;
	uint64_t esz, want, done = 0;
	size_t cap = 0;

	switch (r->op) {
	case TG_IO_OPEN:
		if (r->failed || !r->s)
			return;
		cur->mf = xrealloc(cur->mf, (cur->nmf + 1) * sizeof(*cur->mf));
		cur->clip_mf = NULL;	/* (the array may have moved) */
		m = &cur->mf[cur->nmf++];
		memset(m, 0, sizeof(*m));
		snprintf(m->id, sizeof(m->id), "%s", r->k1);
		m->file = UINT32_MAX;
		m->etype = m->ftype = tg_types_get(cur->types, "MPI_BYTE");
		if (strlen(base_name(r->s)) < sizeof(m->base))
			snprintf(m->base, sizeof(m->base), "%s", base_name(r->s));
		return;
	case TG_IO_CLOSE:
		if ((m = mfile_of(r->k1))) {
			*m = cur->mf[--cur->nmf];
			cur->clip_mf = NULL;
		}
		return;
	case TG_IO_VIEW:
		if (!(m = mfile_of(r->k1)))
			return;
		m->ftype = NULL;
		if (!r->failed && (m->etype = tg_types_get(cur->types, r->s)))
			m->ftype = tg_types_get(cur->types, r->s + strlen(r->s) + 1);
		m->disp = (uint64_t)r->pos;
		return;
	case TG_IO_READ:
	case TG_IO_WRITE:
		break;
	default:
		return;
	}
	cur->clip = NULL;
	if (r->failed || r->pos < 0 || (r->off != TG_OFF_AT && r->off != TG_OFF_IND) ||
	    !(m = mfile_of(r->k1)) || !m->ftype || !m->base[0])
		return;
	/* (a read: the bytes it asked for; a write with a status: those it
	 * wrote, the type then left out) */
	if (r->s && r->count > 0 && (dt = tg_types_get(cur->types, r->s)))
		want = (uint64_t)r->count * tg_flat_size(dt);
	else if (r->write && r->len > 0)
		want = (uint64_t)r->len;
	else
		return;
	esz = tg_flat_size(m->etype);
	c = xrealloc(NULL, sizeof(*c));
	c->ext = NULL;
	c->n = 0;
	while (done < want) {
		size_t k;
		if (cap - c->n < 256) {
			cap = cap ? 2 * cap : 256;
			c->ext = xrealloc(c->ext, cap * sizeof(*c->ext));
		}
		k = tg_flat_map(m->ftype, m->disp, (uint64_t)r->pos * (esz ? esz : 1) + done,
				want - done, c->ext + c->n, 256);
		if (k == 0)
			break;
		for (size_t i = 0; i < k; i++)
			done += c->ext[c->n + i].len;
		c->n += k;
	}
	sel_tidy(c);
	if (done < want || c->n < 2) {
		/* (an unplaceable view; or one piece: nothing to tell) */
		free(c->ext);
		free(c);
		return;
	}
	c->ext = xrealloc(c->ext, c->n * sizeof(*c->ext));
	cur->clip = c;
	cur->clip_seq = r->seq;
	cur->clip_write = r->write;
	cur->clip_mf = m;
}

/*
 * ROMIO's data sieving, for an independent read through a view with
 * holes, reads a whole extent of the file and keeps the bytes the view
 * selects: the others, which other processes may be writing, are read by
 * no one.  For such a write it locks the extent, reads it, puts the
 * call's bytes in and writes it all back: the others as the read just
 * got them, a write that changes nothing a reader gets.  A POSIX call
 * made inside an independent MPI-IO call of its file is placed whole, as
 * any other, but of kind ACC_SIEVE, with the call's selection and, for a
 * write, the bytes the read before it in the call got: sieve_skip leaves
 * out its pairs that only such bytes make.  (A collective's aggregator
 * moves the other processes' bytes: not such a call.)
 */
struct sieve {
	uint32_t proc;
	uint64_t seq;
	const struct sel *sel;
	uint64_t mlo, mhi;	/* a write: what the read before it got */
};
static struct sieve *sieves;	/* a hash table by process and seq */
static size_t nsieves, capsieves;	/* (capsieves a power of 2, or 0) */

static size_t sieve_hash(uint32_t proc, uint64_t seq)
{
	return (size_t)(((uint64_t)proc * 0x9e3779b97f4a7c15ull ^ seq) *
			0xff51afd7ed558ccdull >> 17) & (capsieves - 1);
}

static const struct sieve *sieve_of(const struct access *a)
{
	size_t i;

	if (a->kind != ACC_SIEVE || !capsieves)
		return NULL;
	for (i = sieve_hash(a->proc, a->seq); sieves[i].sel; i = (i + 1) & (capsieves - 1))
		if (sieves[i].proc == a->proc && sieves[i].seq == a->seq)
			return &sieves[i];
	return NULL;
}

static void sieve_add(const struct sieve *v)
{
	size_t i;

	if (2 * (nsieves + 1) > capsieves) {
		struct sieve *old = sieves;
		size_t oldcap = capsieves;
		capsieves = capsieves ? 2 * capsieves : 256;
		sieves = xrealloc(NULL, capsieves * sizeof(*sieves));
		memset(sieves, 0, capsieves * sizeof(*sieves));
		nsieves = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i].sel)
				sieve_add(&old[i]);
		free(old);
	}
	for (i = sieve_hash(v->proc, v->seq); sieves[i].sel; i = (i + 1) & (capsieves - 1))
		;
	sieves[i] = *v;
	nsieves++;
}

/* The first extent of @c that ends past @off. */
static size_t sel_from(const struct sel *c, uint64_t off)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->ext[mid].off + c->ext[mid].len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Do write @w and read @rd (of other processes) make no pair: every byte
 * they share that the read selected is one the write wrote back as its
 * read had got it?
 */
static int sieve_skip(const struct access *w, const struct access *rd)
{
	const struct sieve *sw = sieve_of(w), *sr = sieve_of(rd);
	uint64_t lo = w->start > rd->start ? w->start : rd->start;
	uint64_t hi = w->end < rd->end ? w->end : rd->end, p, q;
	size_t i = 0, j = SIZE_MAX;

	if (sr)
		i = sel_from(sr->sel, lo);
	for (;;) {
		if (sr) {
			if (i >= sr->sel->n || sr->sel->ext[i].off >= hi)
				return 1;	/* (none, or none left) */
			p = sr->sel->ext[i].off > lo ? sr->sel->ext[i].off : lo;
			q = sr->sel->ext[i].off + sr->sel->ext[i].len;
			q = q < hi ? q : hi;
			i++;
		} else {
			p = lo;
			q = hi;
		}
		/* [p, q): bytes the read got; the write must have put back
		 * what its read got there, none of its call's own */
		if (!sw || p < sw->mlo || q > sw->mhi)
			return 0;
		/* (the read's pieces come in order: the write's are walked
		 * along with them) */
		if (j == SIZE_MAX)
			j = sel_from(sw->sel, p);
		while (j < sw->sel->n && sw->sel->ext[j].off + sw->sel->ext[j].len <= p)
			j++;
		if (j < sw->sel->n && sw->sel->ext[j].off < q)
			return 0;
		if (!sr)
			return 1;
	}
}

/*
 * A read or write @r made inside the current process's last independent
 * MPI-IO call, of the bytes [@p0, @p0 + @n) of file @d's: noted for
 * sieve_skip; 1 if its access is to be of kind ACC_SIEVE.  The read of a
 * write's read-modify-write is noted as what it got.
 */
static int note_sieve(const struct rec *r, struct desc *d, uint64_t p0, uint64_t n)
{
	const struct sel *c = cur->clip;
	struct sieve v;
	size_t i;

	if (layer_mpiio || !c || r->parent < 0 || (uint64_t)r->parent != cur->clip_seq ||
	    !cur->clip_mf || !files[d->file].path ||
	    !streq(base_name(files[d->file].path), cur->clip_mf->base))
		return 0;
	if (cur->clip_write && !r->write) {
		/* (with the reads just before, of the bytes around: ROMIO
		 * asks again for what a read left) */
		uint64_t got = p0 + (r->len > 0 ? (uint64_t)r->len : 0);
		if (cur->rmw_seq == cur->clip_seq && p0 <= cur->rmw_hi && got >= cur->rmw_lo) {
			cur->rmw_lo = p0 < cur->rmw_lo ? p0 : cur->rmw_lo;
			cur->rmw_hi = got > cur->rmw_hi ? got : cur->rmw_hi;
		} else {
			cur->rmw_seq = cur->clip_seq;
			cur->rmw_lo = p0;
			cur->rmw_hi = got;
		}
		return 0;
	}
	if (cur->clip_write != r->write || n == 0)
		return 0;
	/* (all of it selected: nothing to leave out) */
	i = sel_from(c, p0);
	if (i < c->n && c->ext[i].off <= p0 && c->ext[i].off + c->ext[i].len >= p0 + n)
		return 0;
	v.proc = (uint32_t)(cur - procs);
	v.seq = r->seq;
	v.sel = c;
	v.mlo = v.mhi = 0;
	if (r->write && cur->rmw_seq == cur->clip_seq) {
		v.mlo = cur->rmw_lo;
		v.mhi = cur->rmw_hi;
	}
	sieve_add(&v);
	return 1;
}

static void run_rec(struct rec *r)
{
	struct desc *d;
	struct slot *sl;

	if (!layer_mpiio && r->mpi) {
		run_mpi_shadow(r);
		return;
	}
	/* the paths the call went through (at the POSIX layer, which sees
	 * the mkdir; the opens inside an MPI_File_open are there too) */
	if (!layer_mpiio && (r->op == TG_IO_OPEN || r->op == TG_IO_REOPEN || r->op == TG_IO_LOOK ||
	    r->op == TG_IO_LOAD || r->op == TG_IO_MKDIR || r->op == TG_IO_MAKE ||
	    ((r->op == TG_IO_SIZE || r->op == TG_IO_TRUNCATE) && !r->k1[0])))
		through_dirs(r);
	if (r->nested) {
		run_inner(r);
		return;
	}
	switch (r->op) {
	case TG_IO_OPEN:
	case TG_IO_REOPEN:
		if (r->op == TG_IO_REOPEN && r->k2[0] == 's')
			stdio_flush(r->k2, r);	/* freopen closes it first */
		run_open(r);
		return;
	case TG_IO_FDOPEN:
	case TG_IO_DUP:
		run_dup(r);
		return;
	case TG_IO_CLOSE:
		run_close(r);
		return;
	case OP_EXIT:
		run_exit(r);
		return;
	case TG_IO_EXEC:
		run_exec(r);
		return;
	case TG_IO_SETFD:
		if (!r->failed)
			slot_cloexec(r->k1, r->cloexec);
		return;
	case TG_IO_BUFFER:
		if (!r->failed && (sl = slot_find(cur, r->k1)))
			sl->nobuf = r->pos != 0;
		else if (!r->failed && std_fd(r->k1)) {
			unsigned bit = 1u << (r->k1[1] - '0');
			cur->stdnobuf = (uint8_t)(r->pos ? cur->stdnobuf | bit : cur->stdnobuf & ~bit);
		}
		return;
	case TG_IO_SETFL:	/* O_APPEND is the description's */
		if (!r->failed && (d = desc_of(r->k1)))
			d->append = r->append;
		return;
	case TG_IO_READ:
	case TG_IO_WRITE:
		run_data(r);
		return;
	case TG_IO_SEEK:
	case TG_IO_REWIND:
		run_seek(r);
		return;
	case TG_IO_SYNC:
	case TG_IO_TRUNCATE:
		run_sync_trunc(r);
		return;
	case TG_IO_VIEW:
		run_view(r);
		return;
	case TG_IO_FORK:
		run_fork(r);
		return;
	case TG_IO_SPAWN:
		run_spawn(r);
		return;
	case TG_IO_UNPLACED:
		run_unplaced(r);
		return;
	case TG_IO_LOCK:
		run_lock(r);
		return;
	case TG_IO_ATOMIC:
		run_atomic(r);
		return;
	case TG_IO_AIODONE:
		aio_done(r);
		return;
	case TG_IO_SIZE:
		run_size(r);
		return;
	case TG_IO_LOAD:
		run_load(r);
		return;
	case TG_IO_MAKE:	/* link, symlink: a lock taken */
		if (!r->failed && r->s)
			after_lock(file_of(r->s, cur->name, r->seq, r->t0), r);
		return;
	case TG_IO_MKDIR:
		if (!r->failed || r->eexist) {
			/* made here, or found made: its own way through, and
			 * through the directories above it, which it found
			 * ("mkdir -p" that tries the deepest one first) */
			if (r->s && r->s[0] == '/')
				seen_with_parents(r->s);
			if (!r->failed && r->s)
				after_lock(file_of(r->s, cur->name, r->seq, r->t0), r);
		}
		return;
	case TG_IO_LOOK:	/* access(): one that found nothing; an unlink
				 * too, also ROMIO's inside MPI_File_delete */
		if (r->failed && r->enoent && r->s && (r->depth == 0 || r->remove))
			missing_pair(r);
		return;
	case OP_TYPE:
		if (tg_types_define(cur->types, r->s) < 0)
			die_input("corrupt #type line");
		return;
	}
}

/*
 * A child reads and writes through the descriptors it inherited in the
 * session that the open of their description began (the cat of a
 * shell's "cat < f" reads what the shell opened after another rank closed
 * it; one whose parent opened before that close does not): it opens each
 * such file as it starts (@first: its first record), an open that
 * conflict-check takes as that open (origin=, originseq=; its start is
 * the event's time) when the trace has it, else as the child's start.
 * Its closes, and its end, close them for it alone; the parent's, for
 * the parent.
 */
static void child_opens(const struct proc *p, const struct forked *fk, const struct rec *first)
{
	static uint64_t starts;	/* children started so far: a file once each */
	struct rec x = *first;
	size_t j;

	starts++;
	x.func = fk->func;
	if (p->firstt != INT64_MAX && p->firstt > 0)
		x.t0 = p->firstt - 1;	/* (before its first call began) */
	for (j = 0; j < fk->nslots; j++) {
		const struct desc *d = fk->slots[j].d;
		uint32_t f = d->file;
		int64_t t;
		if (files[f].inherited == starts)
			continue;
		files[f].inherited = starts;
		if (d->oproc == UINT32_MAX) {
			event_open(f, &x, "open", OPEN_INHERITED);
			continue;
		}
		/* (its session began at the open that made the description,
		 * in whichever process: origin=, at that open's start) */
		t = d->ot0;
		announce(f);
		printf("#event\tfile=%u\trank=%s\tseq=%" PRIu64 "\tt=%" PRId64 ".%09" PRId64
		       "\tkind=open\tfunc=%s\tinherited=1\torigin=%s\toriginseq=%" PRIu64 "\n", f,
		       cur->name, x.seq, t / 1000000000, t % 1000000000, fname(x.func),
		       procs[d->oproc].name, d->oseq);
	}
}

/* Inherit the descriptors a fork, a spawn or an exec gave this process,
 * whose first record is @first (NULL: it has none). */
static void take_fork(struct proc *p, const struct rec *first)
{
	size_t i, j;

	for (i = 0; i < nforks; i++) {
		if (forks[i].pid != p->pid)
			continue;
		if (forks[i].child && first)
			child_opens(p, &forks[i], first);
		for (j = 0; j < forks[i].nslots; j++) {
			slot_set(p, forks[i].slots[j].key, forks[i].slots[j].d);
			slot_find(p, forks[i].slots[j].key)->cloexec = forks[i].slots[j].cloexec;
			slot_find(p, forks[i].slots[j].key)->nobuf = forks[i].slots[j].nobuf;
			if (--forks[i].slots[j].d->refs == 0)
				free(forks[i].slots[j].d);
		}
		p->stdnobuf = forks[i].stdnobuf;
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
	int64_t key;		/* its start, or a later call's if earlier */
};
static struct drec *deferred;
static size_t ndeferred, capdeferred;
static int64_t *family;		/* pids of the processes that fork or spawn, of
				 * their children (read_removals, finish_proc) */
static size_t nfamily;

static void family_add(int64_t pid)
{
	family = xrealloc(family, (nfamily + 1) * sizeof(*family));
	family[nfamily++] = pid;
}

/* Does record @r give a child its parent's descriptors? */
static int gives(const struct rec *r)
{
	return (r->op == TG_IO_FORK && r->ret > 0) || (r->op == TG_IO_SPAWN && r->pos > 0);
}

static void end_proc(struct proc *p)
{
	struct proc *was = cur;

	cur = p;
	while (p->naio) {
		print_done(p->name, p->aio[0].r.seq, p->endseq, p->endt);
		aio_place(0, p->aio[0].r.len);
	}
	/* a request freed or never waited for: complete at the end; a
	 * stream never flushed, at exit */
	for (size_t i = 0; i < p->nnb; i++)
		print_done(p->name, p->nb[i].seq, p->endseq, p->endt);
	for (size_t i = 0; i < p->nsw; i++) {
		print_done_from(p->name, p->sw[i].seq, p->endseq, p->endt, p->sw[i].from);
		flushed_at(&p->sw[i], p->endt);
	}
	free(p->sw);
	p->sw = NULL;
	p->nsw = 0;
	free(p->nb);
	p->nb = NULL;
	free(p->early);
	p->early = NULL;
	p->nearly = p->nextearly = 0;
	p->nnb = 0;
	free(p->aio);
	p->aio = NULL;
	cur = was;
	while (p->nslots)
		slot_drop(p, p->slots[0].key);
}

static void take_types(uint64_t seq);

static void finish_proc(void)
{
	size_t i;
	int defer = 0;

	if (!cur)
		return;
	/* definitions no call named: the call after them, as the tracer
	 * writes them */
	if (npending)
		take_types(pending_seq >= 0 ? (uint64_t)pending_seq : cur->endseq);
	norphans = 0;
	/* its end: the latest end of its calls (in rebuilt times, those of
	 * a .cfg merged with aggregate timing, not always its last call's) */
	for (i = 0; i < nrecs; i++)
		if (recs[i].t1 > cur->endt && !(recs[i].mpi && !layer_mpiio))
			cur->endt = recs[i].t1;
	if (!layer_mpiio && cur->endseq) {
		struct rec *r = rec_add();
		r->op = OP_EXIT;
		r->seq = cur->endseq;
		/* after its last call returned, and after the streams it
		 * flushed at exit (their bytes done at endt): a process
		 * without an MPI rank is ordered by the clocks */
		r->t0 = r->t1 = cur->endt + 1;
		r->func = TG_FN__exit;
	}
	for (i = 0; i < nfamily && !defer; i++)
		defer = family[i] == cur->pid;
	for (i = 0; i < nrecs; i++)
		if (gives(&recs[i])) {
			defer = 1;
			family_add(recs[i].op == TG_IO_FORK ? recs[i].ret : recs[i].pos);
		}
	for (i = 1; i < nrecs && cmp_rec(&recs[i - 1], &recs[i]) <= 0; i++)
		;
	if (i < nrecs)	/* threads, or calls nested in others: not in start order */
		qsort(recs, nrecs, sizeof(*recs), cmp_rec);
	qsort(cur->mpitop, cur->nmpitop, sizeof(*cur->mpitop), cmp_u64);
	qsort(cur->liowait, cur->nliowait, sizeof(*cur->liowait), cmp_u64);
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
		recs_gen++;
		cur = NULL;
		return;
	}
	take_fork(cur, nrecs ? &recs[0] : NULL);
	for (i = 0; i < nrecs; i++) {
		run_rec(&recs[i]);
		free(recs[i].s);
	}
	nrecs = 0;
	recs_gen++;
	end_proc(cur);
	cur = NULL;
}

static int cmp_drec(const void *a, const void *b)
{
	const struct drec *x = a, *y = b;

	if (x->proc == y->proc)		/* a process keeps its own order */
		return (x->idx > y->idx) - (x->idx < y->idx);
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	/* a fork's or spawn's record in its parent before the child's own
	 * (the same start), whichever stream was read first: the child
	 * inherits the parent's descriptors there */
	if (gives(&x->r) != gives(&y->r))
		return gives(&x->r) ? -1 : 1;
	return (x->proc > y->proc) - (x->proc < y->proc);
}

/*
 * The images of one process (an exec's new program writes a stream of its
 * own, with the pid and a later clock base) follow each other: every
 * record of an image comes after the exec that ended the one before.  The
 * times of a .cfg merged with aggregate timing are rebuilt, and may put a
 * program's first calls before its shell's open, dup2 and exec: such an
 * image's records are moved to just after the end of the one before.
 */
static int cmp_image(const void *a, const void *b)
{
	const struct proc *x = &procs[*(const size_t *)a], *y = &procs[*(const size_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->clock_base != y->clock_base)
		return x->clock_base < y->clock_base ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static void order_images(void)
{
	size_t i, k, n = 0, *ord;
	int64_t *lo, *hi, *shift;

	if (!ndeferred)
		return;
	lo = xrealloc(NULL, nprocs * sizeof(*lo));
	hi = xrealloc(NULL, nprocs * sizeof(*hi));
	shift = xrealloc(NULL, nprocs * sizeof(*shift));
	ord = xrealloc(NULL, nprocs * sizeof(*ord));
	for (i = 0; i < nprocs; i++) {
		lo[i] = INT64_MAX;
		hi[i] = INT64_MIN;
		shift[i] = 0;
	}
	for (k = 0; k < ndeferred; k++) {
		const struct rec *r = &deferred[k].r;
		i = deferred[k].proc;
		if (r->t0 < lo[i])
			lo[i] = r->t0;
		if (r->t1 > hi[i])
			hi[i] = r->t1;
	}
	for (i = 0; i < nprocs; i++)
		if (procs[i].deferred && lo[i] != INT64_MAX)
			ord[n++] = i;
	qsort(ord, n, sizeof(*ord), cmp_image);
	for (k = 1; k < n; k++) {
		size_t a = ord[k - 1], b = ord[k];
		if (procs[a].pid != procs[b].pid || lo[b] + shift[b] > hi[a] + shift[a])
			continue;
		shift[b] = hi[a] + shift[a] + 1 - lo[b];
	}
	for (k = 0; k < ndeferred; k++) {
		deferred[k].r.t0 += shift[deferred[k].proc];
		deferred[k].r.t1 += shift[deferred[k].proc];
	}
	for (i = 0; i < nprocs; i++) {
		procs[i].endt += shift[i];
		if (procs[i].firstt != INT64_MAX)
			procs[i].firstt += shift[i];
	}
	free(lo);
	free(hi);
	free(shift);
	free(ord);
}

/*
 * The kept records run in time order; while one runs, recs holds the rest
 * of its process's, in their own order, as when a process is run alone:
 * what looks at the calls after it (missing_pair, through_later,
 * mpi_open_path) sees them.
 */
static void run_deferred(void)
{
	struct rec *own = recs, *kept, *r;
	size_t i, *lo, *n;
	uint64_t gen = recs_gen + 1;

	order_images();
	kept = xrealloc(NULL, (ndeferred ? ndeferred : 1) * sizeof(*kept));
	lo = xrealloc(NULL, (nprocs ? nprocs : 1) * sizeof(*lo));
	n = xrealloc(NULL, (nprocs ? nprocs : 1) * sizeof(*n));
	for (i = 0; i < nprocs; i++)
		n[i] = 0;
	for (i = 0; i < ndeferred; i++) {	/* (a process's, one after the other) */
		kept[i] = deferred[i].r;
		if (!n[deferred[i].proc]++)
			lo[deferred[i].proc] = i;
	}
	/*
	 * Each record is placed among the other processes' by the earliest
	 * start of it and the process's records after it, so that a
	 * process's keys never go down and the sort is an order: a thread's
	 * call written after another thread's later ones, or rebuilt times
	 * (a .cfg's) that put a call after the exact fork that followed it,
	 * would otherwise let the child run before its parent's fork.
	 */
	for (i = ndeferred; i-- > 0;)
		deferred[i].key = i + 1 < ndeferred && deferred[i + 1].proc == deferred[i].proc &&
					  deferred[i + 1].key < deferred[i].r.t0
				  ? deferred[i + 1].key : deferred[i].r.t0;
	if (ndeferred)	/* (never qsort a NULL array, even empty) */
		qsort(deferred, ndeferred, sizeof(*deferred), cmp_drec);
	for (i = 0; i < ndeferred; i++) {
		cur = &procs[deferred[i].proc];
		recs = kept + lo[deferred[i].proc];
		nrecs = n[deferred[i].proc];
		recs_gen = gen + deferred[i].proc;
		r = &kept[deferred[i].idx];
		if (!cur->started) {
			cur->started = 1;
			take_fork(cur, r);
		}
		run_rec(r);
		free(r->s);
	}
	recs = own;
	nrecs = 0;
	recs_gen = gen + nprocs;
	free(kept);
	free(lo);
	free(n);
	for (i = 0; i < nprocs; i++)
		if (procs[i].deferred)
			end_proc(&procs[i]);
	cur = NULL;
}

/* ---- parsing -------------------------------------------------------------------- */

/* Whether call line @t of @d maps memory that no file backs (mmap with
 * MAP_ANONYMOUS, or descriptor -1). */
static int anonymous_map(const struct tg_tline *t, const struct tg_calldesc *d)
{
	const char *fd, *fl;

	if (d->id != TG_FN_mmap && d->id != TG_FN_mmap64)
		return 0;
	fd = tg_tline_arg(t, TG_COL_ARGS, "fd");
	fl = tg_tline_arg(t, TG_COL_ARGS, "flags");
	return (fd && strcmp(fd, "-1") == 0) ||
	       (fl && (strtoull(fl, NULL, 16) & 0x20));	/* Linux's MAP_ANONYMOUS */
}

/*
 * The unplaced records of this process whose parent call has not been
 * seen yet (a call's line comes after those of the calls inside it), by
 * index in recs.  When the parent turns out to be an MPI call, such as
 * MPI_Init mapping the MPI library's shared-memory segments, the record is
 * the library's communication, not the program's I/O, and is not counted.
 * When it is an MPI-IO call, it is the library's own bookkeeping unless
 * it mapped a file the program opened with MPI_File_open (Open MPI maps
 * a file of its own for each file's shared pointer): run_unplaced decides.
 */
static void orphan_add(size_t idx)
{
	if (norphans == caporphans) {
		caporphans = caporphans ? 2 * caporphans : 64;
		orphans = xrealloc(orphans, caporphans * sizeof(*orphans));
	}
	orphans[norphans++] = idx;
}

/* MPI call @seq of this process has ended (@mpiio: an MPI-IO call): its
 * unplaced calls are its. */
static void orphans_adopt(int64_t seq, int mpiio)
{
	size_t i = 0;

	while (i < norphans) {
		if (recs[orphans[i]].parent == seq) {
			recs[orphans[i]].mpilib = mpiio ? 2 : 1;
			orphans[i] = orphans[--norphans];
		} else {
			i++;
		}
	}
}

/*
 * Children.  A process without an MPI rank that another process started
 * (system, popen, fork, posix_spawn) runs between its parent's call that
 * started it and the one that waited for its end: a "#child" line says
 * which (conflict-check(1) orders the calls of a rank's children, and of
 * theirs, by them through the graph, as it orders the rank's own).
 */
struct spawnrec {
	uint32_t proc;		/* in procs */
	uint64_t seq;
	int64_t t0, t1;
	int64_t pid;		/* the child's, or -1 */
	char h[TG_KEYLEN];	/* popen's stream, pclose's */
	uint8_t reap;
};
static struct spawnrec *spawns;
static size_t nspawns;

static void spawn_add(const struct tg_ioact *a, uint64_t seq, int64_t t0, int64_t t1)
{
	struct spawnrec *s;

	spawns = xrealloc(spawns, (nspawns + 1) * sizeof(*spawns));
	s = &spawns[nspawns++];
	s->proc = (uint32_t)(cur - procs);
	s->seq = seq;
	s->t0 = t0;
	s->t1 = t1;
	s->pid = a->pos;
	memcpy(s->h, a->h, sizeof(s->h));
	s->reap = a->op == TG_IO_REAP;
}

static int is_rank(const char *name)
{
	return name[0] >= '0' && name[0] <= '9';
}

/* The process of pid @pid on @host that was there at time @t: the last
 * stream of it to start by then (a pid is used again), or NULL. */
static const struct proc *proc_at(int64_t pid, const char *host, int64_t t)
{
	const struct proc *best = NULL;

	for (size_t i = 0; i < nprocs; i++) {
		const struct proc *p = &procs[i];
		if (p->pid == pid && streq(p->host, host) && p->firstt <= t &&
		    (!best || p->firstt > best->firstt))
			best = p;
	}
	return best;
}

/* The spawn of process @p that started @c, or NULL: by its pid, or
 * the call that ran when @c's first call came (system), or the last one
 * before it that gave a stream (popen returns before its child runs). */
static const struct spawnrec *spawn_of(const struct proc *p, const struct proc *c)
{
	const struct spawnrec *best = NULL;

	for (size_t i = 0; i < nspawns; i++) {
		const struct spawnrec *s = &spawns[i];
		if (s->reap || !streq(procs[s->proc].name, p->name) || s->t0 > c->firstt)
			continue;
		if (s->pid == c->pid || (s->pid < 0 && (c->firstt <= s->t1 || s->h[0])))
			best = s;	/* the last one before it */
	}
	return best;
}

/* The call of the same process that waited for the end of @s's child. */
static const struct spawnrec *reap_of(const struct spawnrec *s, int64_t pid)
{
	for (size_t i = 0; i < nspawns; i++) {
		const struct spawnrec *r = &spawns[i];
		if (!r->reap || r->proc != s->proc || r->seq < s->seq)
			continue;
		if (r->seq == s->seq && r->pid < 0 && !r->h[0])
			return r;	/* system(): its own */
		if (r->seq > s->seq && (s->h[0] ? streq(r->h, s->h) : r->pid == pid))
			return r;
	}
	return NULL;
}

static void print_children(void)
{
	for (size_t i = 0; i < nprocs; i++) {
		const struct proc *p;
		const struct spawnrec *s, *r;
		struct proc c = procs[i];	/* the process: all its program images */
		size_t j;

		if (is_rank(c.name))
			continue;
		for (j = 0; j < i && !streq(procs[j].name, c.name); j++)
			;
		if (j < i)
			continue;	/* (one line for each process) */
		for (j = i + 1; j < nprocs; j++) {
			if (!streq(procs[j].name, c.name))
				continue;
			if (procs[j].firstt < c.firstt) {
				c.firstt = procs[j].firstt;
				c.ppid = procs[j].ppid;
			}
			if (procs[j].endt > c.endt)
				c.endt = procs[j].endt;
		}
		if (c.firstt == INT64_MAX || !(p = proc_at(c.ppid, c.host, c.firstt)) ||
		    !(s = spawn_of(p, &c)))
			continue;
		r = reap_of(s, c.pid);
		printf("#child\trank=%s\tparent=%s\tspawn=%" PRIu64, c.name, p->name, s->seq);
		/* it ended before that wait returned (a daemon need not) */
		if (r && c.endt <= r->t1)
			printf("\treap=%" PRIu64, r->seq);
		putchar('\n');
	}
}

/* MPI_File_open line @t: its file is one the program opens with MPI-IO. */
/*
 * MPI 4.1 §14.6.1: atomic mode makes the accesses through the handles of
 * one collective MPI_File_open sequentially consistent, not those of two
 * opens of the file.  An open is known across processes by the members
 * of its communicator, the file's name and how many opens of that name
 * on those members came before it in the process (collective calls on
 * one communicator come in one order).  open_id numbers them.
 */
struct strmap {
	char **keys;
	uint32_t *vals;
	size_t n, cap;		/* cap: a power of 2, or 0 */
};

/* The value of @key in @m, made 0 if it had none. */
static uint32_t *strmap_at(struct strmap *m, const char *key)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		struct strmap g = { NULL, NULL, 0, m->cap ? 2 * m->cap : 64 };
		g.keys = xrealloc(NULL, g.cap * sizeof(*g.keys));
		g.vals = xrealloc(NULL, g.cap * sizeof(*g.vals));
		memset(g.keys, 0, g.cap * sizeof(*g.keys));
		memset(g.vals, 0, g.cap * sizeof(*g.vals));
		for (i = 0; i < m->cap; i++)
			if (m->keys[i])
				*strmap_at(&g, m->keys[i]) = m->vals[i];
		for (i = 0; i < m->cap; i++)
			free(m->keys[i]);
		free(m->keys);
		free(m->vals);
		*m = g;
	}
	for (const char *k = key; *k; k++)
		h = (h ^ (unsigned char)*k) * 0x100000001b3ull;
	for (i = (size_t)h & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (streq(m->keys[i], key))
			return &m->vals[i];
	m->keys[i] = xstrdup(key);
	m->n++;
	return &m->vals[i];
}

static struct strmap opens_seen;	/* rank, members, name: opens so far */
static struct strmap open_ids;		/* members, name, k: its id */
static uint32_t nopen_ids;

static void comm_line(struct tg_tline *t)
{
	const char *id = tg_tline_arg(t, 1, "id"), *mem = tg_tline_arg(t, 1, "members");

	if (!cur || !id || !mem || strlen(id) >= sizeof(cur->comms->id))
		return;		/* (hb-build judges a malformed one) */
	cur->comms = xrealloc(cur->comms, (cur->ncomms + 1) * sizeof(*cur->comms));
	snprintf(cur->comms[cur->ncomms].id, sizeof(cur->comms->id), "%s", id);
	cur->comms[cur->ncomms++].members = xstrdup(mem);
}

/* The id of the collective MPI_File_open of record @t (a new one, never
 * another's, when its communicator is not known). */
static uint32_t open_id(const struct tg_tline *t)
{
	const char *comm = tg_tline_arg(t, TG_COL_ARGS, "comm"),
		   *q = tg_tline_arg(t, TG_COL_ARGS, "filename"), *mem = NULL;
	char *key, *name = NULL, buf[8192];
	uint32_t *v, k;
	size_t i, n;

	if (comm && streq(comm, "MPI_COMM_WORLD"))
		mem = "world";
	for (i = cur->ncomms; comm && !mem && i-- > 0;)
		if (streq(cur->comms[i].id, comm))
			mem = cur->comms[i].members;
	/* (the names may differ, naming one file: "d/f", "d/./f") */
	if (q && tg_tunquote(q, buf, sizeof(buf)) == 0)
		name = tg_io_abspath(buf, cur->cwd, 1);
	if (!mem || !name) {
		free(name);
		return ++nopen_ids;	/* (MPI_COMM_SELF: its own) */
	}
	n = strlen(cur->name) + strlen(mem) + strlen(name) + 16;
	key = xrealloc(NULL, n);
	snprintf(key, n, "%s\x1f%s\x1f%s", cur->name, mem, name);
	k = ++*strmap_at(&opens_seen, key);
	snprintf(key, n, "%s\x1f%s\x1f%" PRIu32, mem, name, k);
	v = strmap_at(&open_ids, key);
	free(key);
	free(name);
	if (!*v)
		*v = ++nopen_ids;
	return *v;
}

static void note_mpiio_file(const struct tg_tline *t, const struct tg_calldesc *d, uint64_t seq)
{
	struct tg_ioact act[4];
	const char *why;
	int n, i;

	n = d->nio <= 4 ? tg_io_actions(t, d, cur->cwd, act, &why) : 0;
	for (i = 0; i < n; i++) {
		if (act[i].path && !act[i].failed) {
			uint32_t f = file_of(act[i].path, cur->name, seq, tg_ttime(t->f[TG_COL_TSTART]));
			files[f].mpiio = 1;
		}
		free(act[i].path);
	}
}

/*
 * The children of system and popen, which record no pid, are found ahead
 * (read_removals), as print_children finds them: so that the records of
 * a child whose stream comes first are kept to run with its parent's.
 */
struct spawnline {
	int64_t ppid;		/* the parent's pid */
	char *host;
	uint64_t seq;
	int64_t t0, t1;
	int64_t pid;		/* the child's, or -1 */
	int stream;		/* popen's: it gave one */
};
static struct spawnline *spawnlines;
static size_t nspawnlines;

/* A process as read ahead: all its images, from the first call of the
 * first (a pid is taken to name one process). */
struct startline {
	int64_t pid, ppid;
	char *host;
	int64_t firstt;
	int rank;
};
static struct startline *startlines;
static size_t nstartlines;

/* The child's pid of the system or popen of process @pid on @host in its
 * call @seq, or -1. */
static int64_t spawn_pid(int64_t pid, const char *host, uint64_t seq)
{
	for (size_t i = 0; i < nspawnlines; i++)
		if (spawnlines[i].ppid == pid && spawnlines[i].seq == seq &&
		    streq(spawnlines[i].host, host))
			return spawnlines[i].pid;
	return -1;
}

/* system, popen, posix_spawn (action @a of call line @t): a record to run
 * in its place, which gives the child its descriptors (run_spawn). */
static void keep_spawn(const struct tg_tline *t, uint16_t func, const struct tg_ioact *a,
		       uint64_t seq, int64_t t0, int64_t t1)
{
	const char *type = a->h[0] ? tg_tline_arg(t, TG_COL_ARGS, "type") : NULL;
	struct rec *r = rec_add();

	r->seq = seq;
	r->t0 = t0;
	r->t1 = t1;
	r->op = TG_IO_SPAWN;
	r->func = func;
	r->pos = a->pos > 0 ? a->pos : spawn_pid(cur->pid, cur->host, seq);
	/* popen: the descriptor the pipe takes in the child */
	r->len = !type ? -1 : strchr(type, 'w') ? 0 : 1;
	r->pos2 = r->held = -1;
}

/* Keep what call line @t of @d did, as records to run with its process. */
static void keep_actions(const struct tg_tline *t, const struct tg_calldesc *d, uint64_t seq,
			 int64_t t0, int64_t t1, int64_t parent, int nested)
{
	struct tg_ioact act[4];
	const char *why;
	int64_t tid;
	int n, i;

	if (d->nio > 4)
		die_input("call table role count");
	if (tg_tint(t->f[TG_COL_TID], &tid) < 0 || tid < 0)
		die_input("bad tid");
	if (tid > TID_MANY)
		tid = TID_MANY;
	n = tg_io_actions(t, d, cur->cwd, act, &why);
	if (n < 0)
		die_input(why);
	for (i = 0; i < n; i++) {
		struct tg_ioact *a = &act[i];
		struct rec *r;
		if (a->op == TG_IO_FCNTL || (a->op == TG_IO_LOCK && a->lock == TG_LOCK_NONE))
			continue;	/* a command that moves no position: nothing to run */
		if (a->op == TG_IO_SPAWN || a->op == TG_IO_REAP) {
			if (!a->failed && a->pos != 0)	/* (WNOHANG: nothing ended) */
				spawn_add(a, seq, t0, t1);
			if (a->op == TG_IO_SPAWN && !a->failed && d->io[0].op != TG_IO_FORK)
				keep_spawn(t, d->id, a, seq, t0, t1);
			continue;
		}
		if (a->op == TG_IO_UNPLACED && anonymous_map(t, d))
			continue;	/* memory, not a file's bytes */
		if (a->op == TG_IO_UNPLACED && a->failed &&
		    (d->id == TG_FN_mmap || d->id == TG_FN_mmap64 || d->id == TG_FN_io_uring_setup))
			continue;	/* nothing was mapped, no ring made */
		r = rec_add();
		r->seq = seq;
		r->tid = (uint8_t)tid;
		r->t0 = t0;
		r->t1 = t1;
		r->ret = a->ret;
		r->func = d->id;
		r->op = a->op;
		r->off = a->off;
		r->write = a->op == TG_IO_WRITE;
		r->failed = a->failed;
		r->append = a->append;
		r->trunc = a->trunc;
		r->creat = a->creat;
		r->excl = a->excl;
		if ((a->op == TG_IO_OPEN || a->op == TG_IO_SIZE || a->op == TG_IO_LOOK ||
		     a->op == TG_IO_MKDIR || a->op == TG_IO_LOAD) && a->failed) {
			const char *e = tg_tline_arg(t, TG_COL_ARGS, "errno");
			r->enoent = e && streq(e, "ENOENT");
			r->eexist = e && streq(e, "EEXIST");
		}
		r->remove = a->remove;
		r->aio = a->aio;
		r->all = a->all;
		r->cloexec = a->cloexec;
		r->mpi = d->layer == TG_LAYER_MPIIO;
		r->parent = parent;
		r->nested = (uint8_t)nested;
		if (a->op == TG_IO_UNPLACED && !nested) {
			const char *v = tg_tline_arg(t, TG_COL_ARGS, "parent");

			if (v && tg_tint(v, &r->parent) == 0 && r->parent >= 0)
				orphan_add(nrecs - 1);
			else
				r->parent = -1;
		}
		r->whence = (int8_t)a->whence;
		r->pos = a->pos;
		r->pos2 = -1;
		if (a->off == TG_OFF_SHARED || a->off == TG_OFF_ORDERED) {
			const char *v = tg_tline_arg(t, TG_COL_ARGS, a->off == TG_OFF_SHARED ?
							     "shared_after" : "shared_before");
			int64_t x;
			if (v && tg_tint(v, &x) == 0 && x >= 0)
				r->pos2 = x;
		}
		r->len = a->len;
		r->count = a->count;
		r->eof = a->eof;
		r->held = -1;
		if (a->op == TG_IO_WRITE || a->op == TG_IO_READ) {
			const char *v = tg_tline_arg(t, TG_COL_ARGS,
						     a->op == TG_IO_WRITE ? "held" : "ahead");
			int64_t x;
			if (v && tg_tint(v, &x) == 0 && x >= 0)
				r->held = x;
		}
		r->lock = a->lock;
		r->lockclass = a->lockclass;
		memcpy(r->k1, a->h, sizeof(r->k1));
		memcpy(r->k2, a->h2, sizeof(r->k2));
		if (a->op == TG_IO_UNPLACED && (d->id == TG_FN_mmap || d->id == TG_FN_mmap64)) {
			const char *fd = tg_tline_arg(t, TG_COL_ARGS, "fd"),
				   *pr = tg_tline_arg(t, TG_COL_ARGS, "prot"),
				   *fl = tg_tline_arg(t, TG_COL_ARGS, "flags"),
				   *ln = tg_tline_arg(t, TG_COL_ARGS, "length"),
				   *of = tg_tline_arg(t, TG_COL_ARGS, "offset");
			int64_t len, off;
			if (fd && strlen(fd) < sizeof(r->k1))
				memcpy(r->k1, fd, strlen(fd) + 1);	/* the mapped file's */
			/* Linux: PROT_WRITE 0x2; MAP_SHARED 0x1 (and in
			 * MAP_SHARED_VALIDATE 0x3) */
			if (pr && fl && ln && of && tg_tint(ln, &len) == 0 &&
			    tg_tint(of, &off) == 0 && len >= 0 && off >= 0 &&
			    !((strtoull(pr, NULL, 16) & 0x2) && (strtoull(fl, NULL, 16) & 0x1))) {
				r->mapread = 1;
				r->pos = off;
				r->len = len;
			}
		}
		r->s = a->path;
		if (a->op == TG_IO_VIEW) {
			size_t ne, nf;
			if (!a->dtype || !a->ftype)
				die_input("MPI_File_set_view without etype or filetype");
			ne = strlen(a->dtype);
			nf = strlen(a->ftype);
			r->s = xrealloc(NULL, ne + nf + 2);
			memcpy(r->s, a->dtype, ne + 1);
			memcpy(r->s + ne + 1, a->ftype, nf + 1);
		} else if (r->mpi && a->dtype && (a->len < 0 || (a->op == TG_IO_READ && a->count > 0))) {
			r->s = xstrdup(a->dtype);	/* sized when the types are known */
		}
	}
}

/* The #type lines before a call are the datatypes that call made (seq
 * @seq), run just before it, in their order (qsort is not stable). */
static void take_types(uint64_t seq)
{
	static uint32_t tord;
	size_t i = 0;

	while (i < npending) {
		struct rec *r = rec_add();
		size_t n = strlen(pending_types + i);
		r->op = OP_TYPE;
		r->s = xstrdup(pending_types + i);
		r->seq = seq;
		r->tord = tord++;
		i += n + 1;
	}
	npending = 0;
	pending_seq = -1;
}

/*
 * Did call line @t make the datatype of the last #type line pending: is
 * it an argument the call gives back ("newtype=t5", an element of an
 * array of them)?  The tracer writes a datatype's record just before the
 * record of the call that made it, but in the thread's own buffer: when
 * the buffer was written out between the two (its window full), another
 * thread's records (an MPI library's progress thread's) may come first,
 * and the definition belongs to the call that made it, not to the next
 * line.  (It was given to that line: sorted to the other thread's seq,
 * early in the process, the older definition of the same id placed a
 * view write of ABINIT's.)  Only what a call gives back counts: another
 * thread may use the same id meanwhile, for the type the MPI library
 * gave it before.
 */
static int names_pending(const struct tg_tline *t)
{
	const struct tg_calldesc *d = tg_call_byname(t->f[TG_COL_FUNC]);
	const char *last = pending_types, *p, *v, *id;
	size_t k;
	int i;

	for (p = pending_types; p < pending_types + npending; p += strlen(p) + 1)
		last = p;
	if (!(id = strstr(last, "\tid=")))
		return 1;
	if (!d)
		return 0;
	id += 4;
	k = strcspn(id, "\t");
	for (i = TG_COL_ARGS; i < t->nf; i++) {
		unsigned a;
		if (!(v = strchr(t->f[i], '=')))
			continue;
		for (a = 0; a < d->nargs; a++)
			if (strlen(d->args[a].name) == (size_t)(v - t->f[i]) &&
			    strncmp(d->args[a].name, t->f[i], (size_t)(v - t->f[i])) == 0)
				break;
		if (a == d->nargs || d->args[a].dir == TG_IN)
			continue;
		for (p = v + 1; (p = strstr(p, "t")) && *p; p++) {
			char pre = p[-1], post = p[k];
			if ((pre == '=' || pre == '[' || pre == ',') && strncmp(p, id, k) == 0 &&
			    (post == 0 || post == ',' || post == ']'))
				return 1;
		}
	}
	return 0;
}

static void call_line(struct tg_tline *t)
{
	const struct tg_calldesc *d;
	const char *v;
	int64_t seq, t0, t1, parent = -1, depth;
	size_t first_size;
	int nested = 0;
	uint32_t oid = 0;	/* an MPI_File_open's open_id */

	if (t->nf < TG_COL_ARGS)
		die_input("not a call record (too few fields)");
	if (!cur)
		die_input("call record before any #proc line");
	if (tg_tint(t->f[TG_COL_SEQ], &seq) < 0 || seq < 0)
		die_input("bad seq");
	if ((uint64_t)seq >= cur->endseq) {
		cur->endseq = (uint64_t)seq + 1;
		cur->endt = tg_ttime(t->f[TG_COL_TEND]);
	}
	if (cur->firstt == INT64_MAX)
		cur->firstt = tg_ttime(t->f[TG_COL_TSTART]);
	if (npending) {
		if (pending_seq < 0)
			pending_seq = seq;
		if (names_pending(t))
			take_types((uint64_t)seq);
	}
	d = tg_call_byname(t->f[TG_COL_FUNC]);
	if (d && (d->layer == TG_LAYER_MPI || d->layer == TG_LAYER_MPIIO) && norphans)
		orphans_adopt(seq, d->layer == TG_LAYER_MPIIO);
	if (tg_tint(t->f[TG_COL_DEPTH], &depth) < 0 || depth < 0)
		die_input("bad depth");
	if (d && strcmp(d->name, "lio_listio") == 0) {
		/* LIO_WAIT (0): every request of the list done at the return */
		const char *mode = tg_tline_arg(t, TG_COL_ARGS, "mode");
		int64_t mv;
		if (mode && tg_tint(mode, &mv) == 0 && mv == 0) {
			if (cur->nliowait == cur->capliowait) {
				cur->capliowait = cur->capliowait ? 2 * cur->capliowait : 16;
				cur->liowait = xrealloc(cur->liowait,
							cur->capliowait * sizeof(*cur->liowait));
			}
			cur->liowait[cur->nliowait++] = (uint64_t)seq;
		}
	}
	if (d && d->layer == TG_LAYER_MPIIO && depth == 0) {
		if (cur->nmpitop == cur->capmpitop) {
			cur->capmpitop = cur->capmpitop ? 2 * cur->capmpitop : 64;
			cur->mpitop = xrealloc(cur->mpitop, cur->capmpitop * sizeof(*cur->mpitop));
		}
		cur->mpitop[cur->nmpitop++] = (uint64_t)seq;
	}
	if (layer_mpiio && d)
		nb_line(t, d, (uint64_t)seq);
	first_size = nrecs;
	if (!d || !d->nio)
		return;		/* touches no file (or a name this build does not know) */
	if (d->id == TG_FN_MPI_File_open) {
		note_mpiio_file(t, d, (uint64_t)seq);
		if (layer_mpiio)
			oid = open_id(t);
	}
	if (layer_mpiio && d->layer != TG_LAYER_MPIIO) {
		/* a POSIX call the MPI library made inside an MPI call */
		if ((d->layer != TG_LAYER_POSIX && d->layer != TG_LAYER_STDIO) ||
		    !(v = tg_tline_arg(t, TG_COL_ARGS, "parent")))
			return;
		if (tg_tint(v, &parent) < 0 || parent < 0)
			die_input("bad parent");
		nested = 1;
	} else if (!layer_mpiio && d->layer != TG_LAYER_POSIX && d->layer != TG_LAYER_STDIO &&
		   !(d->layer == TG_LAYER_MPIIO &&
		     (d->id == TG_FN_MPI_File_open || d->id == TG_FN_MPI_File_close ||
		      d->id == TG_FN_MPI_File_set_view || mpi_indep_io(d)))) {
		return;
	}
	t0 = tg_ttime(t->f[TG_COL_TSTART]);
	t1 = tg_ttime(t->f[TG_COL_TEND]);
	if (t0 < 0 || t1 < 0)
		die_input("bad time");
	keep_actions(t, d, (uint64_t)seq, t0, t1, parent, nested);
	for (; first_size < nrecs; first_size++) {
		struct rec *r = &recs[first_size];
		r->depth = (uint8_t)(depth < 255 ? depth : 255);
		if (r->op == TG_IO_OPEN && r->mpi)
			r->tord = oid;
		/* (a look at the size, an open: the program's when inside its
		 * own MPI-IO call, mpi_top; an AIO request: lio_listio's) */
		if ((((r->op == TG_IO_SIZE || r->op == TG_IO_OPEN || r->op == TG_IO_LOOK ||
		       r->aio) && r->depth == 1) ||
		     ((r->op == TG_IO_READ || r->op == TG_IO_WRITE) && r->depth >= 1)) &&
		    r->parent < 0) {
			const char *v = tg_tline_arg(t, TG_COL_ARGS, "parent");
			if (v && tg_tint(v, &r->parent) < 0)
				die_input("bad parent");
		}
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
	v = tg_tline_arg(t, 1, "ppid");
	if (!v || tg_tint(v, &cur->ppid) < 0)
		cur->ppid = -1;
	v = tg_tline_arg(t, 1, "host");
	cur->host = xstrdup(v ? v : "");
	cur->firstt = INT64_MAX;
	cur->stdnobuf = 4;	/* stderr is unbuffered */
	v = tg_tline_arg(t, 1, "clock_base");
	cur->clock_base = v ? strtoull(v, NULL, 10) : 0;
	{
		const char *p = tg_tline_arg(t, 1, "pid"), *h = tg_tline_arg(t, 1, "host"),
			*c = tg_tline_arg(t, 1, "clock_base");
		if (p && h && c)
			run_id += tg_run_proc(p, strlen(p), h, strlen(h), c, strlen(c));
	}
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

/*
 * Whether the bytes [@lo, @hi) of @file may not be one ordered call's: a
 * shared-pointer call may have taken units inside them (its window, from
 * its two readings of the pointer, meets them).  That happens when a rank
 * still in an MPI_File_write_shared takes its units between the turns the
 * ranks take one after another in the next ordered call (ROMIO passes a
 * token): the ordered call's bytes are then not one stretch, and where
 * each rank's went the pointer readings do not tell.  A call that
 * returned before the first rank entered the ordered call (@t0), or
 * began after the last left it (@t1), took none of them: a log written
 * with write_shared and read back by read_ordered after a rewind.
 */
static int ordered_broken(uint32_t file, int64_t lo, int64_t hi, int64_t t0, int64_t t1)
{
	for (size_t k = 0; k < npshs; k++) {
		const struct pshared *q = &pshs[k];
		int64_t esz = (int64_t)tg_flat_size(q->etype), b0, b1;

		if (q->block || q->file != file || q->n <= 0)
			continue;
		if (sync_times() && (q->r.t1 < t0 || q->r.t0 > t1))
			continue;
		if (esz <= 0)
			esz = 1;
		b0 = q->before * esz;
		b1 = q->after * esz;
		if (b0 < hi && lo < b1)
			return 1;
	}
	return 0;
}

/* The units [@from, @to) that the ordered call of @p took (@kind 1), kept
 * free when the shared-pointer calls of its file are placed: every call's
 * units, shared or ordered, are its own; or (@kind 2) somewhere in which
 * the ordered call, not placed, took its units: a shared-pointer call
 * whose window meets them is not placed either (the one free stretch
 * it seems to leave may be the ordered call's). */
static void ordered_block(const struct pend *p, int64_t from, int64_t to, int kind)
{
	struct pshared *q;

	if (to <= from)
		return;
	pshs = xrealloc(pshs, (npshs + 1) * sizeof(*pshs));
	q = &pshs[npshs++];
	memset(q, 0, sizeof(*q));
	q->proc = p->proc;
	q->file = p->file;
	q->before = q->b0 = from;
	q->after = to;
	q->n = to - from;
	q->placed = kind == 1;
	q->block = kind;
}

/* Place call @r of process @proc, @bytes of @file, at unit @u of the
 * view (@disp, @etype, @ftype) it was made through. */
static void place_units(uint32_t proc, uint32_t file, uint64_t disp, struct tg_flat *etype,
			struct tg_flat *ftype, const struct rec *r, int64_t u, int64_t bytes)
{
	struct mfile m;

	memset(&m, 0, sizeof(m));
	m.file = file;
	m.disp = disp;
	m.etype = etype;
	m.ftype = ftype;
	cur = &procs[proc];
	mpi_data(&m, r, (uint64_t)u, (uint64_t)bytes, r->write);
}

/* Place ordered call @p at unit @u of its view. */
static void pend_place(const struct pend *p, int64_t u)
{
	place_units(p->proc, p->file, p->disp, p->etype, p->ftype, &p->r, u, p->bytes);
}

/* Whether ordered call @p read the pointer on return where its own turn
 * could have left it: at or past its reading on entry and its units. */
static int pend_after_ok(const struct pend *p, uint64_t esz)
{
	return p->after >= (p->before > 0 ? p->before : 0) + p->bytes / (int64_t)esz;
}

/* Where the POSIX calls inside ordered call @p say it took its units
 * (@esz bytes each), or -1.  Its own turn came after it read the pointer
 * on entry, and its units end before where the call left the pointer
 * (@after, the smallest reading on return that a seek did not move back:
 * its own reading, if not a seek's, is no smaller). */
static int64_t pend_inner(const struct pend *p, uint64_t esz, int64_t after)
{
	if (p->before < 0)
		return -1;
	return inner_at(&p->r, p->proc, p->file, p->bytes, p->disp, p->etype, p->ftype,
			p->before, after - p->bytes / (int64_t)esz);
}

static void place_ordered(void)
{
	size_t i, j, q, told;

	if (npends)
		qsort(pends, npends, sizeof(*pends), cmp_pend);
	for (i = 0; i < npends; i = j) {
		int64_t total = 0, after = INT64_MAX, least = INT64_MAX, at, low = INT64_MIN;
		int64_t t0 = INT64_MAX, t1 = INT64_MIN;
		int contiguous;
		uint64_t esz = tg_flat_size(pends[i].etype);
		if (!esz)
			esz = 1;
		/* each rank reads the shared pointer after its call returns:
		 * another's write_shared may have moved it on by then, never
		 * back, so the smallest is where the call left it; and each
		 * read it before its turn, which starts past the lower ranks'
		 * bytes: the call started at or above that, less those.  Only
		 * a seek_shared moves it back: ROMIO's rank 0 sets it before
		 * the others have left the ordered call and read it, so a
		 * reading below the rank's own reading before plus its own
		 * units is a later seek's, not where the call left it; and so
		 * is one below the lowest start the readings before allow
		 * plus all the ranks' units */
		for (j = i; j < npends && pends[j].file == pends[i].file &&
			    pends[j].k == pends[i].k; j++) {
			if (pends[j].before >= 0 &&
			    pends[j].before * (int64_t)esz - total > low)
				low = pends[j].before * (int64_t)esz - total;
			total += pends[j].bytes;
			if (pends[j].r.t0 < t0)
				t0 = pends[j].r.t0;
			if (pends[j].r.t1 > t1)
				t1 = pends[j].r.t1;
		}
		for (q = i; q < j; q++) {
			if (pends[q].after < least)
				least = pends[q].after;
			if (pends[q].after < after && pend_after_ok(&pends[q], esz) &&
			    (low == INT64_MIN || pends[q].after * (int64_t)esz >= low + total))
				after = pends[q].after;
		}
		if (after == INT64_MAX)
			after = least;	/* every reading moved back: as they say */
		at = after * (int64_t)esz - total;
		/* where the two bounds meet and no shared-pointer call can
		 * have taken units among theirs, one after another; with no
		 * reading on entry, so too when the POSIX calls inside say
		 * nothing; else each where those calls went, if they say */
		if (low == at) {
			contiguous = !ordered_broken(pends[i].file, at, at + total, t0, t1);
		} else {
			for (q = i, told = 0; q < j; q++)
				told += pend_inner(&pends[q], esz, after) >= 0;
			contiguous = low == INT64_MIN && !told &&
				     !ordered_broken(pends[i].file, at, at + total, t0, t1);
		}
		if (!contiguous) {
			int64_t from = at / (int64_t)esz;
			size_t left = 0;
			for (q = i; q < j; q++) {
				const struct pend *p = &pends[q];
				int64_t u = pend_inner(p, esz, after);
				if (p->before >= 0 && p->before < from)
					from = p->before;
				if (u < 0) {
					procs[p->proc].unplaced++;
					left++;
					continue;
				}
				pend_place(p, u);
				ordered_block(p, u, u + p->bytes / (int64_t)esz, 1);
			}
			if (left)
				ordered_block(&pends[i], from, after, 2);
			continue;
		}
		for (q = i; q < j; q++) {
			if (at >= 0)
				pend_place(&pends[q], at / (int64_t)esz);
			at += pends[q].bytes;
		}
		ordered_block(&pends[i], (after * (int64_t)esz - total) / (int64_t)esz,
			      after, 1);
	}
	cur = NULL;
}

static int cmp_psh(const void *a, const void *b)
{
	const struct pshared *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return (x->b0 > y->b0) - (x->b0 < y->b0);
}

/* The first of pshs[@lo..@hi) recorded at @b0 or after. */
static size_t psh_from(size_t lo, size_t hi, int64_t b0)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pshs[mid].b0 < b0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void psh_place(struct pshared *q, int64_t at)
{
	place_units(q->proc, q->file, q->disp, q->etype, q->ftype, &q->r, at, q->bytes);
	q->before = at;		/* now the units it took */
	q->after = at + q->n;
	q->placed = 1;
}

/* The start of the single stretch of @q->n units in @q's window that no
 * placed call of the file (pshs[@lo..@hi), whose windows are at most
 * @wide units) took, or -1: none, or more than one start would do.  A call
 * lies in its window, so only those recorded less than @wide before the
 * window's end can meet it. */
static int64_t psh_slot(const struct pshared *q, size_t lo, size_t hi, int64_t wide)
{
	int64_t at = q->before, found = -1, starts = 0;

	lo = psh_from(lo, hi, q->before - wide);
	hi = psh_from(lo, hi, q->after);

	/* walk the free gaps of the window left to right */
	while (at < q->after) {
		int64_t end = q->after, skip = -1;
		for (size_t k = lo; k < hi; k++) {
			const struct pshared *o = &pshs[k];
			if (!o->placed || o->after <= at || o->before >= q->after)
				continue;
			if (o->before <= at) {
				if (o->after > skip)
					skip = o->after;	/* at is taken */
			} else if (o->before < end) {
				end = o->before;		/* the gap ends there */
			}
		}
		if (skip >= 0) {
			at = skip;
			continue;
		}
		if (end - at >= q->n) {
			starts += end - at - q->n + 1;
			found = at;
		}
		at = end;
	}
	return starts == 1 ? found : -1;
}

/* Whether @q's window meets where an ordered call not placed took its
 * units (a block 2 among pshs[@lo..@hi)). */
static int psh_unsure(const struct pshared *q, size_t lo, size_t hi)
{
	for (size_t k = lo; k < hi; k++)
		if (pshs[k].block == 2 && pshs[k].before < q->after && q->before < pshs[k].after)
			return 1;
	return 0;
}

static void place_blind(void)
{
	for (size_t k = 0; k < nblinds; k++) {
		struct pshared *q = &blinds[k];
		uint64_t esz = tg_flat_size(q->etype);
		int64_t at = inner_at(&q->r, q->proc, q->file, q->bytes, q->disp, q->etype,
				      q->ftype, 0, INT64_MAX / 2 / (int64_t)(esz ? esz : 1));
		if (at >= 0)
			psh_place(q, at);
		else
			procs[q->proc].unplaced++;
	}
	cur = NULL;
}

static void place_shared(void)
{
	size_t i, j, k;
	int progress;

	if (npshs)
		qsort(pshs, npshs, sizeof(*pshs), cmp_psh);
	for (i = 0; i < npshs; i = j) {
		int64_t wide = 0;
		for (j = i; j < npshs && pshs[j].file == pshs[i].file; j++) {
			if (pshs[j].after - pshs[j].before > wide)
				wide = pshs[j].after - pshs[j].before;
			if (!pshs[j].block && pshs[j].after - pshs[j].before <= pshs[j].n)
				psh_place(&pshs[j], pshs[j].before);	/* exact */
		}
		for (k = i; k < j; k++) {	/* where the POSIX calls inside went */
			struct pshared *q = &pshs[k];
			int64_t at;
			if (q->placed || q->block)
				continue;
			at = inner_at(&q->r, q->proc, q->file, q->bytes, q->disp, q->etype, q->ftype,
				      q->before, q->after - q->n);
			if (at >= 0)
				psh_place(q, at);
		}
		do {
			progress = 0;
			for (k = i; k < j; k++) {
				int64_t at;
				if (pshs[k].placed || pshs[k].block ||
				    psh_unsure(&pshs[k], i, j) ||
				    (at = psh_slot(&pshs[k], i, j, wide)) < 0)
					continue;
				psh_place(&pshs[k], at);
				progress = 1;
			}
		} while (progress);
		for (k = i; k < j; k++)
			if (!pshs[k].placed && !pshs[k].block)
				procs[pshs[k].proc].unplaced++;
	}
	cur = NULL;
}

/* ---- the sweep ------------------------------------------------------------------- */

/* Whether overlapping accesses @a and @b make no pair: two pieces of one
 * call; an end of file, or a truncation, and the process's own accesses
 * (it orders them itself); two truncations (neither leaves a byte). */
static int skip_pair(const struct access *a, const struct access *b)
{
	if (a->proc == b->proc && a->seq == b->seq)
		return 1;
	if (a->kind == ACC_TRUNC && b->kind == ACC_TRUNC)
		return 1;
	/* (bytes a call did not select, or wrote back as it read them) */
	if ((a->kind == ACC_SIEVE || b->kind == ACC_SIEVE) && a->write != b->write &&
	    (b->kind == ACC_DATA || b->kind == ACC_SIEVE) &&
	    (a->kind == ACC_DATA || a->kind == ACC_SIEVE) && a->proc != b->proc &&
	    sieve_skip(a->write ? a : b, a->write ? b : a))
		return 1;
	/* (one process: one stream, or the streams before and after an exec) */
	return (a->kind == ACC_END || b->kind == ACC_END || a->kind == ACC_TRUNC ||
		b->kind == ACC_TRUNC) &&
	       (a->proc == b->proc || streq(procs[a->proc].name, procs[b->proc].name));
}

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

/*
 * Two accesses, one of them of a thread that wrote all of its bytes again
 * in between, make no pair: the pairs through that write stand for it.
 * Of one thread, a, then a write w over all of a, then x: every model
 * orders a thread's accesses through its own calls (a commit, a close then
 * an open, a sync between a and w is one between a and x), so the pair a
 * x conflicts under a model only when a w or w x does.  Of two threads or
 * processes, a, then w over a in a's thread, which ended before x (of
 * another) began: x cannot happen before w, so either w and x are not
 * ordered (a race: w x says so) or w happens before x, and then a does,
 * and what orders w's data before x under a model (a commit after w, a
 * close after w before x's open) orders a's too.  Without this, a block
 * rewritten n times, or rewritten n times and read n times by another
 * rank, makes n²/2 pairs, n² pairs.  Threads are not in program order with
 * each other by seq (an MPI library's progress thread makes calls beside
 * the program's): w is of a's thread.  The clocks of two processes are
 * taken to agree (one node, or TANGRAM_CLOCK_SYNC).  With --all-pairs,
 * every pair is kept.
 *
 * The sweep meets, for an access @a, the accesses that start where it
 * starts or later: struct shadow keeps the first covering write of a's
 * thread met so far, and the runs (shadow_runs) let the accesses left
 * out be passed over a run at a time.
 */
struct shadow {
	const struct access *a;
	uint64_t seq;		/* of the covering write; UINT64_MAX: none yet */
	int64_t t1;		/* when it ended */
	int on;
	/* another thread's write over all of a, begun after a ended, met in
	 * the run that ends at @wend: that thread's later accesses of the
	 * run make no pair with a (the pair with the write stands for them) */
	size_t wend;
	uint32_t wproc;
	uint64_t wseq;
	int wtid;
	/* the write of a's thread over a's bytes just before a, in a's run */
	const struct access *pw;
};

/* Per sorted position: one past the last of the run it begins (those
 * after it that start where it does, of its thread, in seq order, alone
 * in their calls); the writes among them; the next write of the run if
 * it covers the access, else NO_COVER; the first position from it on
 * whose access has none. */
struct runs {
	uint32_t *run, *nw, *cov, *cend;
};

#define NO_COVER UINT32_MAX

static uint64_t implied;	/* pairs left out, of the current file */
static int opt_all_pairs;

/* A run is of accesses that make pairs as any data access does: not an
 * end of file or a truncation. */
static int runs_in(const struct access *x)
{
	return x->kind == ACC_DATA || x->kind == ACC_APPEND || x->kind == ACC_SIZE ||
	       x->kind == ACC_SIEVE;
}

/* The runs of @fl's accesses sorted as @k; @alone per access (NULL:
 * every access is alone in its call). */
static void shadow_runs(struct runs *R, const struct file *fl, const struct key *k,
			const uint8_t *alone)
{
	size_t n = fl->nacc ? fl->nacc : 1, j;
	uint32_t nextw = NO_COVER;

	R->run = xrealloc(NULL, n * sizeof(*R->run));
	R->nw = xrealloc(NULL, n * sizeof(*R->nw));
	R->cov = xrealloc(NULL, n * sizeof(*R->cov));
	R->cend = xrealloc(NULL, n * sizeof(*R->cend));
	for (j = fl->nacc; j-- > 0;) {
		const struct access *x = &fl->acc[k[j].idx], *y;
		int linked = 0;
		if (j + 1 < fl->nacc && (!alone || (alone[k[j].idx] && alone[k[j + 1].idx]))) {
			y = &fl->acc[k[j + 1].idx];
			linked = y->start == x->start && y->proc == x->proc && y->tid == x->tid &&
				 x->tid != TID_MANY && y->seq > x->seq && runs_in(x) && runs_in(y);
		}
		if (!linked)
			nextw = NO_COVER;
		R->run[j] = linked ? R->run[j + 1] : (uint32_t)j + 1;
		R->nw[j] = x->write + (linked ? R->nw[j + 1] : 0);
		R->cov[j] = nextw != NO_COVER && fl->acc[k[nextw].idx].end >= x->end ? nextw
										: NO_COVER;
		R->cend[j] = R->cov[j] == NO_COVER ? (uint32_t)j
			     : linked ? R->cend[j + 1] : (uint32_t)j + 1;
		if (x->write && runs_in(x))
			nextw = (uint32_t)j;
	}
}

static void runs_free(struct runs *R)
{
	free(R->run);
	free(R->nw);
	free(R->cov);
	free(R->cend);
}

/* The shadow of access @a at sorted position @i of @fl's accesses (@k). */
static void shadow_start(struct shadow *s, const struct access *a, const struct file *fl,
			 const struct key *k, size_t i)
{
	size_t p, n = 0;

	s->a = a;
	s->seq = UINT64_MAX;
	s->t1 = INT64_MAX;
	s->on = !opt_all_pairs && a->tid != TID_MANY && runs_in(a);
	s->wend = 0;
	s->pw = NULL;
	/* (back through the accesses of a's thread that start where a does,
	 * a few at most, to the write before a) */
	for (p = i; s->on && p-- > 0 && n++ < 16 && k[p].start == a->start;) {
		const struct access *x = &fl->acc[k[p].idx];
		if (x->proc != a->proc || x->tid != a->tid || x->seq >= a->seq || !runs_in(x))
			break;
		if (x->write && (x->kind == ACC_DATA || x->kind == ACC_APPEND)) {
			s->pw = x;
			break;
		}
	}
}

/* Pairs of the shadow's access with positions [@j, @e) of one run of
 * @k, left out: the pairs among them (two reads are none); returns how
 * many positions. */
static size_t leave_out(const struct shadow *s, const struct runs *R, size_t j, size_t e)
{
	size_t w = R->nw[j] - (e < R->run[j] ? R->nw[e] : 0);

	implied += s->a->write ? e - j : w;
	return e - j;
}

/* How many sorted positions from @j on (of @fl's accesses sorted as @k;
 * @b the access there) make no pair with the shadow's access: 0, or some
 * of @b's run when @b is alone in its call (@whole).  Notes @b if it is a
 * write of the access's thread that covers it. */
static size_t shadowed(struct shadow *s, const struct file *fl, const struct key *k,
		       const struct runs *R, size_t j, int whole)
{
	const struct access *a = s->a, *b = &fl->acc[k[j].idx];
	size_t lo, hi;

	if (!s->on || !runs_in(b) || b->tid == TID_MANY)
		return 0;
	if (b->proc == a->proc && b->tid == a->tid) {
		if (b->seq > s->seq && whole)
			return leave_out(s, R, j, R->run[j]);
		/* the thread's own reads (an fstat loop, a header read again
		 * and again): no pair, no write over a to note; walking them
		 * made n reads cost n squared */
		if (!a->write && !R->nw[j] && whole)
			return R->run[j] - j;
		if (b->write && (b->kind == ACC_DATA || b->kind == ACC_APPEND) &&
		    b->seq > a->seq && b->seq < s->seq && b->start <= a->start &&
		    b->end >= a->end) {
			s->seq = b->seq;
			s->t1 = b->t1;
		}
		return 0;
	}
	if (!whole)
		return 0;
	if (!a->write && !R->nw[j])
		return R->run[j] - j;	/* reads only: no pair, nothing to count */
	if (times_rebuilt)
		return 0;
	/* another thread's, begun after a's thread wrote over a */
	if (s->seq != UINT64_MAX && b->t0 > s->t1)
		return leave_out(s, R, j, R->run[j]);
	/* another thread's, after a write of its own thread over all of a
	 * begun after a ended, earlier in the run: a then w then b, with w
	 * and b in program order.  Either a and w are not ordered (w can
	 * not happen before a: the pair a w says so), or a happens before
	 * w and so before b, and what orders a's data before w under a
	 * model (a close after a, before w's open) orders them before b:
	 * the pair a w stands for a b.  (A block a rank reads each step and
	 * another rewrites each step made n squared / 2 pairs.) */
	if (j < s->wend && b->proc == s->wproc && b->tid == s->wtid && b->seq > s->wseq)
		return leave_out(s, R, j, R->run[j]);
	/* the same with a and b the other way round: b, then a's thread's
	 * write over all of b begun after b ended, then a */
	if (s->pw && b->t1 < s->pw->t0 && s->pw->start <= b->start && s->pw->end >= b->end)
		return leave_out(s, R, j, j + 1);
	if (b->write && (b->kind == ACC_DATA || b->kind == ACC_APPEND) && b->t0 > a->t1 &&
	    b->start <= a->start && b->end >= a->end) {
		s->wend = R->run[j];
		s->wproc = b->proc;
		s->wtid = b->tid;
		s->wseq = b->seq;
	}
	/* another thread's, whose own thread wrote over it before a began:
	 * the first of its run from j on whose next write did not */
	if (R->cov[j] == NO_COVER || fl->acc[k[R->cov[j]].idx].t1 >= a->t0)
		return 0;
	lo = j + 1;
	hi = R->cend[j];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (fl->acc[k[R->cov[mid]].idx].t1 < a->t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return leave_out(s, R, j, lo);
}

static int earlier(const struct access *a, const struct access *b)
{
	if (a->t0 != b->t0)
		return a->t0 < b->t0;
	if (a->proc != b->proc)
		return a->proc < b->proc;
	return a->seq < b->seq;
}

/* Decimal @v at @p; returns the end.  The pair lines are most of the
 * output, and printf would be most of the time spent writing them. */
static char *fmt_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n > 0)
		*p++ = tmp[--n];
	return p;
}

/* A time in ns as seconds with 9 decimals (never negative here). */
static char *fmt_time(char *p, int64_t t)
{
	uint64_t ns = t < 0 ? 0 : (uint64_t)t, frac = ns % 1000000000;
	int i;

	p = fmt_u64(p, ns / 1000000000);
	*p++ = '.';
	for (i = 8; i >= 0; i--) {
		p[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	return p + 9;
}

static char *fmt_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/*
 * The first six fields of access @a, each after a tab, and the tab before
 * its start offset.  An access is in many pairs: its text is made once and
 * kept in a small cache by its address (the accesses do not move while
 * the pairs are written).
 */
#define PREFIX_CACHE 4096
#define PREFIX_MAX 120

struct prefix {
	const struct access *a;
	size_t len;
	char text[PREFIX_MAX];
};

static char *fmt_prefix(char *p, const struct access *a)
{
	static struct prefix *cache;
	struct prefix *c;
	const char *name = procs[a->proc].name, *func = fname(a->func);
	char *q = p;

	if (!cache) {
		cache = calloc(PREFIX_CACHE, sizeof(*cache));
		if (!cache) {
			fprintf(stderr, "overlap-find: out of memory\n");
			exit(TG_EXIT_ERROR);
		}
	}
	c = &cache[((uintptr_t)a / sizeof(*a)) % PREFIX_CACHE];
	if (c->a == a) {
		memcpy(p, c->text, c->len);
		return p + c->len;
	}
	*q++ = '\t';
	q = fmt_str(q, name);
	*q++ = '\t';
	q = fmt_u64(q, a->seq);
	*q++ = '\t';
	q = fmt_time(q, a->t0);
	*q++ = '\t';
	q = fmt_time(q, a->t1);
	*q++ = '\t';
	*q++ = a->kind == ACC_TRUNC ? 'T' : a->write ? 'W' : a->kind == ACC_END ? 'E' :
	       a->kind == ACC_SIZE ? 'S' : 'R';
	*q++ = '\t';
	q = fmt_str(q, func);
	*q++ = '\t';
	if ((size_t)(q - p) <= PREFIX_MAX) {
		c->a = a;
		c->len = (size_t)(q - p);
		memcpy(c->text, p, c->len);
	}
	return q;
}

/* Write line @head (e.g. "pair"), file @f, access @x over the bytes
 * [@xs, @xe) and, if @y is not NULL, @y over [@ys, @ye), and (@pieces >
 * 1) the pieces and bytes, in one piece of output. */
static void put_line(const char *head, uint32_t f, const struct access *x, uint64_t xs,
		     uint64_t xe, const struct access *y, uint64_t ys, uint64_t ye,
		     uint64_t pieces, uint64_t bytes)
{
	static char *buf;
	static size_t cap;
	size_t need = 256 + strlen(procs[x->proc].name) + strlen(fname(x->func));
	char *p;

	if (y)
		need += 128 + strlen(procs[y->proc].name) + strlen(fname(y->func));
	if (need > cap) {
		cap = 2 * need;
		buf = xrealloc(buf, cap);
	}
	p = fmt_str(buf, head);
	*p++ = '\t';
	p = fmt_u64(p, f);
	p = fmt_prefix(p, x);
	p = fmt_u64(p, xs);
	*p++ = '\t';
	p = fmt_u64(p, xe);
	if (y) {
		p = fmt_prefix(p, y);
		p = fmt_u64(p, ys);
		*p++ = '\t';
		p = fmt_u64(p, ye);
	}
	if (pieces > 1) {
		p = fmt_str(p, "\tpieces=");
		p = fmt_u64(p, pieces);
		p = fmt_str(p, "\tbytes=");
		p = fmt_u64(p, bytes);
	}
	*p++ = '\n';
	fwrite(buf, 1, (size_t)(p - buf), stdout);
}

static int opt_accesses;

/* One pair line: @x (the earlier) and @y; @pieces > 1 when it stands
 * for that many overlapping pieces of the two calls, @bytes in all. */
static void put_pair(uint32_t f, const struct access *x, const struct access *y,
		     uint64_t pieces, uint64_t bytes)
{
	announce(f);
	put_line("pair", f, x, x->start, x->end, y, y->start, y->end, pieces, bytes);
}

/*
 * The pairs of two calls, summed (without --all-pairs): an MPI-IO call
 * through a noncontiguous view is many accesses, and two such calls over
 * the same bytes would otherwise make a line for every piece they share.
 * A call pair collects its pieces while the sweep can still find more of
 * them and is written as soon as it cannot: past the sorted position of
 * the last piece of either call.  Memory is the call pairs still open,
 * not all of them.
 */
struct cpair {
	uint32_t x, y;		/* the first piece of each call; x the earlier */
	uint64_t sx, ex, sy, ey;	/* the bytes the pieces span, per call */
	uint64_t pieces, bytes;
	uint32_t hnext, qnext;	/* hash chain, completion list (index + 1) */
};

struct agg {
	struct cpair *cp;	/* entries; free ones chained through hnext */
	uint32_t ncp, capcp, freel;
	uint32_t *head;		/* hash heads, index + 1 */
	uint32_t nhead;		/* a power of two */
	uint32_t *rep, *last;	/* per access: its call's first piece, last position */
	uint8_t *alone;		/* per access: its call has no other piece */
	uint32_t *done;		/* per position: call pairs complete after it */
};

static uint32_t agg_hash(const struct agg *g, uint32_t x, uint32_t y)
{
	uint64_t h = ((uint64_t)x << 32 | y) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32) & (g->nhead - 1);
}

static void agg_rehash(struct agg *g)
{
	uint32_t i, n = g->nhead ? 2 * g->nhead : 1024;

	free(g->head);
	g->head = calloc(n, sizeof(*g->head));
	if (!g->head) {
		fprintf(stderr, "overlap-find: out of memory\n");
		exit(TG_EXIT_ERROR);
	}
	g->nhead = n;
	for (i = 0; i < g->ncp; i++) {
		struct cpair *c = &g->cp[i];
		uint32_t h;
		if (!c->pieces)
			continue;	/* free */
		h = agg_hash(g, c->x, c->y);
		c->hnext = g->head[h];
		g->head[h] = i + 1;
	}
}

/* The call pair of pieces @x (earlier) and @y, made if new. */
static struct cpair *agg_get(struct agg *g, uint32_t x, uint32_t y)
{
	uint32_t h = agg_hash(g, x, y), i, at;
	struct cpair *c;

	for (i = g->head[h]; i; i = g->cp[i - 1].hnext)
		if (g->cp[i - 1].x == x && g->cp[i - 1].y == y)
			return &g->cp[i - 1];
	if (g->freel) {
		at = g->freel - 1;
		g->freel = g->cp[at].hnext;
	} else {
		if (g->ncp == g->capcp) {
			g->capcp = g->capcp ? 2 * g->capcp : 1024;
			g->cp = xrealloc(g->cp, g->capcp * sizeof(*g->cp));
		}
		at = g->ncp++;
		if (g->ncp > g->nhead) {
			memset(&g->cp[at], 0, sizeof(g->cp[at]));
			agg_rehash(g);
			h = agg_hash(g, x, y);
		}
	}
	c = &g->cp[at];
	memset(c, 0, sizeof(*c));
	c->x = x;
	c->y = y;
	c->sx = c->sy = UINT64_MAX;
	c->hnext = g->head[h];
	g->head[h] = at + 1;
	return c;
}

/* Unlink call pair @i (index + 1) from its hash chain and free it. */
static void agg_drop(struct agg *g, uint32_t i)
{
	struct cpair *c = &g->cp[i - 1];
	uint32_t *p = &g->head[agg_hash(g, c->x, c->y)];

	while (*p != i)
		p = &g->cp[*p - 1].hnext;
	*p = c->hnext;
	c->pieces = 0;
	c->hnext = g->freel;
	g->freel = i;
}

/* Write and free the call pairs that position @i completes, in the order
 * they were found. */
static void agg_flush(struct agg *g, struct file *fl, uint32_t f, uint32_t i)
{
	static struct cpair **v;
	static size_t capv;
	size_t n = 0, j;
	uint32_t c;

	for (c = g->done[i]; c; c = g->cp[c - 1].qnext) {
		if (n == capv) {
			capv = capv ? 2 * capv : 64;
			v = xrealloc(v, capv * sizeof(*v));
		}
		v[n++] = &g->cp[c - 1];
	}
	/* each call pair was put at the head of its list when found: the
	 * first found is last */
	for (j = n; j-- > 0;) {
		announce(f);
		put_line("pair", f, &fl->acc[v[j]->x], v[j]->sx, v[j]->ex, &fl->acc[v[j]->y],
			 v[j]->sy, v[j]->ey, v[j]->pieces, v[j]->bytes);
	}
	for (j = 0; j < n; j++)
		agg_drop(g, (uint32_t)(v[j] - g->cp) + 1);
	g->done[i] = 0;
}

static const struct access *call_acc;	/* the accesses cmp_call sorts */

/* An access's kind as its call's pieces are grouped (a rewrite is one of
 * its call's writes) */
static int call_kind(const struct access *x)
{
	return x->kind == ACC_SIEVE ? ACC_DATA : x->kind;
}

static int cmp_call(const void *a, const void *b)
{
	const struct access *x = call_acc + *(const uint32_t *)a,
			    *y = call_acc + *(const uint32_t *)b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (call_kind(x) != call_kind(y))	/* an append's 'E' apart from its write */
		return call_kind(x) < call_kind(y) ? -1 : 1;
	return (x > y) - (x < y);
}

/* Per access of @fl, the first piece of its call and the last sorted
 * position (@k) of a piece of its call. */
static void agg_calls(struct agg *g, struct file *fl, const struct key *k)
{
	uint32_t *pos = xrealloc(NULL, fl->nacc * sizeof(*pos));
	uint32_t *ord = xrealloc(NULL, fl->nacc * sizeof(*ord));
	size_t i, j, e;

	for (i = 0; i < fl->nacc; i++) {
		pos[k[i].idx] = (uint32_t)i;
		ord[i] = (uint32_t)i;
	}
	call_acc = fl->acc;
	qsort(ord, fl->nacc, sizeof(*ord), cmp_call);
	for (i = 0; i < fl->nacc; i = e) {
		uint32_t last = 0;
		const struct access *a = &fl->acc[ord[i]];
		for (e = i; e < fl->nacc && fl->acc[ord[e]].proc == a->proc &&
			    fl->acc[ord[e]].seq == a->seq && call_kind(&fl->acc[ord[e]]) == call_kind(a);
		     e++)
			if (pos[ord[e]] > last)
				last = pos[ord[e]];
		for (j = i; j < e; j++) {
			g->rep[ord[j]] = ord[i];
			g->last[ord[j]] = last;
			g->alone[ord[j]] = e - i == 1;
		}
	}
	free(pos);
	free(ord);
}

/* The pairs of file @f, one line per two calls (see struct cpair). */
static void sweep_calls(uint32_t f, const struct key *k)
{
	struct file *fl = &files[f];
	struct agg g;
	struct runs R;
	size_t i, j;

	memset(&g, 0, sizeof(g));
	g.rep = xrealloc(NULL, fl->nacc * sizeof(*g.rep));
	g.last = xrealloc(NULL, fl->nacc * sizeof(*g.last));
	g.alone = xrealloc(NULL, fl->nacc ? fl->nacc : 1);
	g.done = calloc(fl->nacc ? fl->nacc : 1, sizeof(*g.done));
	if (!g.done) {
		fprintf(stderr, "overlap-find: out of memory\n");
		exit(TG_EXIT_ERROR);
	}
	agg_rehash(&g);
	agg_calls(&g, fl, k);
	shadow_runs(&R, fl, k, g.alone);
	for (i = 0; i < fl->nacc; i++) {
		uint32_t ia = (uint32_t)k[i].idx;
		const struct access *a = &fl->acc[ia];
		struct shadow sh;
		size_t skip;
		shadow_start(&sh, a, fl, k, i);
		sh.on = sh.on && g.alone[ia];
		for (j = i + 1; j < fl->nacc && k[j].start < a->end; j++) {
			uint32_t ib = (uint32_t)k[j].idx, ix, iy, at;
			const struct access *b = &fl->acc[ib];
			struct cpair *c;
			if ((skip = shadowed(&sh, fl, k, &R, j, g.alone[ib]))) {
				j += skip - 1;
				continue;
			}
			if (!a->write && !b->write)
				continue;
			if (skip_pair(a, b))
				continue;
			ix = earlier(a, b) ? ia : ib;
			iy = ix == ia ? ib : ia;
			c = agg_get(&g, g.rep[ix], g.rep[iy]);
			if (!c->pieces) {
				/* complete once either call has no piece left */
				at = g.last[ia] < g.last[ib] ? g.last[ia] : g.last[ib];
				c->qnext = g.done[at];
				g.done[at] = (uint32_t)(c - g.cp) + 1;
			}
			c->pieces++;
			c->bytes += (a->end < b->end ? a->end : b->end) - b->start;
			if (fl->acc[ix].start < c->sx)
				c->sx = fl->acc[ix].start;
			if (fl->acc[ix].end > c->ex)
				c->ex = fl->acc[ix].end;
			if (fl->acc[iy].start < c->sy)
				c->sy = fl->acc[iy].start;
			if (fl->acc[iy].end > c->ey)
				c->ey = fl->acc[iy].end;
		}
		agg_flush(&g, fl, f, (uint32_t)i);
	}
	free(g.cp);
	free(g.head);
	free(g.rep);
	free(g.last);
	free(g.alone);
	free(g.done);
	runs_free(&R);
}

/*
 * An O_APPEND write lands where the end of the file is when it is made,
 * whoever moved the end: the writes of every process, by their start
 * times, and the truncations set it.  Each process's run placed its
 * appends at the end as far as it knew it; here they are placed again in
 * that one order.  An append that lands
 * past a last byte another process wrote found an end it could only
 * find if that write was seen: it reads the byte before it, an access
 * of its own marked 'E' (overlap-find(1)), which pairs it with the
 * writes of that byte.
 */
struct aev {
	int64_t t;
	uint32_t proc;
	uint64_t seq;
	int64_t i;		/* the access, or -1 - the truncation */
};

static int cmp_aev(const void *a, const void *b)
{
	const struct aev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The writes of @fl and its truncations, the two that move its end, in
 * the order of their start times (their number in *@n; free the array). */
static int cmp_aflush(const void *a, const void *b)
{
	const struct aflush *x = a, *y = b;

	return (x->i > y->i) - (x->i < y->i);
}

static struct aev *size_events(struct file *fl, size_t *n)
{
	struct aev *v = xrealloc(NULL, (fl->nacc + fl->ntr + 1) * sizeof(*v));
	size_t i, k;

	*n = 0;
	if (fl->nafl)
		qsort(fl->afl, fl->nafl, sizeof(*fl->afl), cmp_aflush);
	for (i = 0, k = 0; i < fl->nacc; i++) {
		int64_t t = fl->acc[i].t0;
		while (k < fl->nafl && fl->afl[k].i < i)
			k++;
		/* an append through a buffer: when the buffer was flushed */
		if (k < fl->nafl && fl->afl[k].i == i && fl->acc[i].kind == ACC_APPEND)
			t = fl->afl[k].t;
		if (fl->acc[i].write)
			v[(*n)++] = (struct aev){ t, fl->acc[i].proc, fl->acc[i].seq, (int64_t)i };
	}
	for (i = 0; i < fl->ntr; i++)
		v[(*n)++] = (struct aev){ fl->tr[i].t, fl->tr[i].proc, fl->tr[i].seq,
					  -1 - (int64_t)i };
	qsort(v, *n, sizeof(*v), cmp_aev);
	return v;
}

static void place_appends(uint32_t f)
{
	struct file *fl = &files[f];
	struct aev *v;
	struct access *es = NULL;
	size_t i, n = 0, ne = 0, cape = 0;
	uint64_t size = 0;
	uint32_t endproc = UINT32_MAX;	/* who wrote the last byte, or set the size */

	if (!fl->appends)
		return;
	v = size_events(fl, &n);
	for (i = 0; i < n; i++) {
		struct access *a;
		if (v[i].i < 0) {
			size = fl->tr[-1 - v[i].i].size;
			endproc = fl->tr[-1 - v[i].i].proc;
			continue;
		}
		a = &fl->acc[v[i].i];
		if (a->kind == ACC_APPEND) {
			uint64_t len = a->end - a->start;
			a->start = size;
			a->end = size + len;
			/* an end its own process made it knows */
			if (size > 0 && endproc != a->proc) {
				fl->xtime = 1;
				if (ne == cape) {
					cape = cape ? 2 * cape : 64;
					es = xrealloc(es, cape * sizeof(*es));
				}
				es[ne] = *a;
				es[ne].start = size - 1;
				es[ne].end = size;
				es[ne].write = 0;
				es[ne++].kind = ACC_END;
			}
		}
		if (a->end >= size) {
			size = a->end;
			endproc = a->proc;
		}
	}
	for (i = 0; i < ne; i++) {
		if (fl->nacc == fl->capacc) {
			fl->capacc = 2 * fl->capacc;
			fl->acc = xrealloc(fl->acc, fl->capacc * sizeof(*fl->acc));
		}
		fl->acc[fl->nacc++] = es[i];
	}
	free(es);
	free(v);
}

/*
 * A truncation takes away the bytes past the size it sets: an access of
 * its own ('T') over them, up to where the file ended when it came (by
 * the times), so that it pairs with the writes and reads of those bytes,
 * before or after it.  (Ranks that each open a shared file with "w" and
 * write their block: a truncation at one's open after another wrote
 * loses that block, on any file system.)  One that grows the file, or
 * finds it empty, takes nothing away, and one of the only process that
 * touched the file pairs with nothing.
 */
static void place_truncs(uint32_t f)
{
	struct file *fl = &files[f];
	uint64_t at = 0;
	uint32_t one = UINT32_MAX;	/* the process of every access, if one */
	size_t i, n = 0, nacc = fl->nacc;
	uint64_t *cut;
	struct aev *v;

	if (!fl->ntr || !nacc)
		return;
	for (i = 0; i < nacc; i++) {
		if (i == 0)
			one = fl->acc[0].proc;
		else if (one < UINT32_MAX - 1 && fl->acc[i].proc != one &&
			 !streq(procs[fl->acc[i].proc].name, procs[one].name))
			one = UINT32_MAX - 1;
	}
	/* where the file ended when each truncation came, by the times: it
	 * takes away the bytes from its size to there (nothing when it grows
	 * the file, as MPI_File_set_size may, or finds it empty, as the open
	 * that creates a file with O_TRUNC does: that one would pair with
	 * every access of the file to come) */
	cut = xrealloc(NULL, fl->ntr * sizeof(*cut));
	v = size_events(fl, &n);
	for (i = 0; i < n; i++) {
		if (v[i].i >= 0) {
			if (fl->acc[v[i].i].end > at)
				at = fl->acc[v[i].i].end;
			continue;
		}
		cut[-1 - v[i].i] = at;
		at = fl->tr[-1 - v[i].i].size;
	}
	free(v);
	for (i = 0; i < fl->ntr; i++) {
		const struct trunc *t = &fl->tr[i];
		struct access *a;
		/* (nothing to pair with when only its own process touched it;
		 * MPI_File_set_size is a collective every rank makes, whose
		 * truncation each rank's later accesses follow: the POSIX
		 * layer has the truncation the MPI library made, and the
		 * communication that orders it) */
		if (t->size >= cut[i] || t->mpi ||
		    (one < UINT32_MAX - 1 && streq(procs[t->proc].name, procs[one].name)))
			continue;
		if (fl->nacc == fl->capacc) {
			fl->capacc = fl->capacc ? 2 * fl->capacc : 4;
			fl->acc = xrealloc(fl->acc, fl->capacc * sizeof(*fl->acc));
		}
		a = &fl->acc[fl->nacc++];
		a->start = t->size;
		a->end = cut[i];
		a->t0 = t->t;
		a->t1 = t->t1;
		a->seq = t->seq;
		a->proc = t->proc;
		a->func = t->func;
		a->write = 1;
		a->kind = ACC_TRUNC;
		a->tid = TID_MANY;
		fl->xtime = 1;	/* its bytes: by the times of the others' writes */
	}
	free(cut);
}

static uint64_t bytime_files;	/* with times rebuilt: files of xtime */

static void sweep(uint32_t f)
{
	struct file *fl = &files[f];
	struct key *k;
	struct runs R;
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
		put_line("access", f, &fl->acc[k[i].idx], fl->acc[k[i].idx].start,
			 fl->acc[k[i].idx].end, NULL, 0, 0, 1, 0);
	}
	/* summed per call pair, unless asked for every piece, or the file
	 * has record locks: which lock orders a pair depends on its bytes */
	implied = 0;
	if (times_rebuilt && fl->xname) {
		bytime_files++;
	} else if (times_rebuilt && fl->xtime) {
		for (i = 1; i < fl->nacc && fl->acc[i].proc == fl->acc[0].proc; i++)
			;
		bytime_files += i < fl->nacc;
	}
	if (!opt_all_pairs && !fl->locked && fl->nacc < UINT32_MAX) {
		sweep_calls(f, k);
		goto out;
	}
	shadow_runs(&R, fl, k, NULL);
	for (i = 0; i < fl->nacc; i++) {
		const struct access *a = &fl->acc[k[i].idx];
		struct shadow sh;
		size_t skip;
		shadow_start(&sh, a, fl, k, i);
		for (j = i + 1; j < fl->nacc && k[j].start < a->end; j++) {
			const struct access *b = &fl->acc[k[j].idx], *x;
			if ((skip = shadowed(&sh, fl, k, &R, j, 1))) {
				j += skip - 1;
				continue;
			}
			if (!a->write && !b->write)
				continue;
			if (skip_pair(a, b))
				continue;
			x = earlier(a, b) ? a : b;
			put_pair(f, x, x == a ? b : a, 1, 0);
		}
	}
	runs_free(&R);
out:
	free(k);
	if (implied) {
		announce(f);
		printf("#implied\tfile=%" PRIu32 "\tpairs=%" PRIu64 "\n", f, implied);
	}
}

static int cmp_creation(const void *a, const void *b)
{
	const struct creation *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	return (x->t0 > y->t0) - (x->t0 < y->t0);
}

/* An open of line @t (schema @d) that may have made its file and
 * succeeded (@op TG_IO_OPEN), or a mkdir that made its directory
 * (TG_IO_MKDIR): kept in *@v (*@nv of room *@cap): the creations, the
 * directories made. */
static void add_making(struct creation **v, size_t *nv, size_t *cap, int op,
		       const struct tg_tline *t, const struct tg_calldesc *d, const char *cwd)
{
	struct tg_ioact act[4];
	const char *why;
	int64_t seq;
	int n = tg_io_actions(t, d, cwd, act, &why), i;

	for (i = 0; i < n; i++) {
		if (act[i].op != op || act[i].failed || (op == TG_IO_OPEN && !act[i].creat) ||
		    !act[i].path || (op == TG_IO_MKDIR && act[i].path[0] != '/') ||
		    tg_tint(t->f[TG_COL_SEQ], &seq) < 0 || seq < 0)
			continue;
		if (*nv == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			*v = xrealloc(*v, *cap * sizeof(**v));
		}
		(*v)[*nv] = (struct creation){ act[i].path, tg_ttime(t->f[TG_COL_TSTART]),
					       tg_ttime(t->f[TG_COL_TEND]),
					       xstrdup(t->f[TG_COL_RANK]), (uint64_t)seq };
		act[i].path = NULL;
		++*nv;
	}
	for (i = 0; i < n; i++)
		free(act[i].path);
}

static int cmp_removal(const void *a, const void *b)
{
	const struct removal *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->t > y->t) - (x->t < y->t);
}

/* Each path's removals: where they end, and whether one process made
 * them all in the order of its seq (struct removal). */
static void removals_index(void)
{
	size_t i = 0, j, k;

	while (i < nremovals) {
		int one = 1;
		for (j = i + 1; j < nremovals && streq(removals[j].path, removals[i].path); j++)
			if (!streq(removals[j].rank, removals[i].rank) ||
			    removals[j].seq < removals[j - 1].seq)
				one = 0;
		for (k = i; k < j; k++) {
			removals[k].gend = j;
			removals[k].one = one;
		}
		i = j;
	}
}

/* One removal of @path by record @t (@from: a rename onto it from there). */
static void add_removal(size_t *cap, char *path, const struct tg_tline *t, const char *from)
{
	int64_t seq = 0;

	if (nremovals == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		removals = xrealloc(removals, *cap * sizeof(*removals));
	}
	if (tg_tint(t->f[TG_COL_SEQ], &seq) < 0)
		seq = 0;
	removals[nremovals].path = path;
	removals[nremovals].t = tg_ttime(t->f[TG_COL_TEND]);
	removals[nremovals].from = from ? xstrdup(from) : NULL;
	removals[nremovals].rank = xstrdup(t->f[TG_COL_RANK]);
	removals[nremovals].parent = -1;
	removals[nremovals].mpi = 0;
	removals[nremovals].name = 0;
	removals[nremovals++].seq = (uint64_t)seq;
}

static int cmp_delete(const void *a, const void *b)
{
	const struct removal *x = *(struct removal *const *)a, *y = *(struct removal *const *)b;
	int c = strcmp(x->rank, y->rank);

	if (c)
		return c;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The unlink an MPI_File_delete made of its file is that delete: one
 * removal, not two (the file made after it is of generation 1). */
static void drop_nested_removals(void)
{
	struct removal **dv = NULL, key, *kp = &key;
	size_t i, n = 0, kept = 0;

	for (i = 0; i < nremovals; i++)
		if (removals[i].mpi) {
			dv = xrealloc(dv, (n + 1) * sizeof(*dv));
			dv[n++] = &removals[i];
		}
	if (!n)
		return;
	qsort(dv, n, sizeof(*dv), cmp_delete);
	for (i = 0; i < nremovals; i++) {
		struct removal *r = &removals[i];
		if (r->parent >= 0 && !r->from) {
			key = *r;
			key.seq = (uint64_t)r->parent;
			if (bsearch(&kp, dv, n, sizeof(*dv), cmp_delete)) {
				free(r->path);
				free(r->rank);
				continue;
			}
		}
		removals[kept++] = *r;
	}
	nremovals = kept;
	free(dv);
}

/* When call line @line started (its own text, not split), or -1. */
static int64_t line_t0(const char *line)
{
	char buf[32];
	size_t n;
	int i;

	for (i = 0; i < TG_COL_TSTART; i++)
		if (!(line = strchr(line, '\t')))
			return -1;
		else
			line++;
	n = strcspn(line, "\t");
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, line, n);
	buf[n] = 0;
	return tg_ttime(buf);
}

/* #proc line @t, read ahead: the process it is an image of. */
static struct startline *start_line(const struct tg_tline *t)
{
	const char *r = tg_tline_arg(t, 1, "rank"), *p = tg_tline_arg(t, 1, "pid"),
		   *pp = tg_tline_arg(t, 1, "ppid"), *h = tg_tline_arg(t, 1, "host");
	struct startline *s;
	int64_t pid, ppid;

	if (!r || !p || tg_tint(p, &pid) < 0)
		return NULL;
	if (!pp || tg_tint(pp, &ppid) < 0)
		ppid = -1;
	h = h ? h : "";
	for (size_t i = 0; i < nstartlines; i++)
		if (startlines[i].pid == pid && streq(startlines[i].host, h))
			return &startlines[i];
	startlines = xrealloc(startlines, (nstartlines + 1) * sizeof(*startlines));
	s = &startlines[nstartlines++];
	s->pid = pid;
	s->ppid = ppid;
	s->host = xstrdup(h);
	s->firstt = INT64_MAX;
	s->rank = is_rank(r);
	return s;
}

/* system, popen or posix_spawn line @t of @d, by process @p, read ahead */
static void spawn_line(const struct tg_tline *t, const struct tg_calldesc *d,
		       const struct startline *p)
{
	struct tg_ioact act[4];
	struct spawnline *s;
	const char *why;
	int64_t seq;

	if (d->nio > 4 || tg_io_actions(t, d, NULL, act, &why) < 1 || act[0].failed ||
	    tg_tint(t->f[TG_COL_SEQ], &seq) < 0 || seq < 0)
		return;
	spawnlines = xrealloc(spawnlines, (nspawnlines + 1) * sizeof(*spawnlines));
	s = &spawnlines[nspawnlines++];
	s->ppid = p->pid;
	s->host = p->host;
	s->seq = (uint64_t)seq;
	s->t0 = tg_ttime(t->f[TG_COL_TSTART]);
	s->t1 = tg_ttime(t->f[TG_COL_TEND]);
	s->pid = act[0].pos > 0 ? act[0].pos : -1;
	s->stream = act[0].h[0] != 0;
}

/*
 * The child of each system and popen read ahead, as spawn_of finds it:
 * a process of its pid whose first call came while system ran, or after
 * the popen (the last one before it), not a fork's.  The processes that
 * spawn and their children are kept to run together (finish_proc).
 */
static void spawn_children(void)
{
	size_t i, j, k;

	if (layer_mpiio)
		return;		/* (POSIX descriptors: not followed there) */
	for (i = 0; i < nstartlines; i++) {
		const struct startline *c = &startlines[i];
		struct spawnline *best = NULL;

		if (c->rank || c->firstt == INT64_MAX)
			continue;
		for (k = 0; k < nfamily && family[k] != c->pid; k++)
			;
		if (k < nfamily)
			continue;	/* a fork's */
		for (j = 0; j < nspawnlines; j++) {
			struct spawnline *s = &spawnlines[j];
			if (s->ppid != c->ppid || !streq(s->host, c->host) || s->t0 > c->firstt)
				continue;
			if ((s->pid == c->pid || (s->pid < 0 && (c->firstt <= s->t1 || s->stream))) &&
			    (!best || s->t0 >= best->t0))
				best = s;
		}
		if (best && best->pid < 0)
			best->pid = c->pid;
	}
	for (j = 0; j < nspawnlines; j++)
		if (spawnlines[j].pid > 0) {
			family_add(spawnlines[j].ppid);
			family_add(spawnlines[j].pid);
		}
}

/* The removals and renames of every process, read ahead from input file
 * @fd (then rewound); a line that is neither is only looked at for its
 * name.  And which processes fork or spawn, and their children. */
static void read_removals(int fd)
{
	struct tg_lines lr;
	struct tg_tline t;
	char *line, *cwd = NULL, buf[8192], buf2[8192];
	size_t len, cap = 0, ccap = 0, dcap = 0;
	struct startline *sp = NULL;	/* the process of the lines */
	int first = 0;			/* its first call line is to come */

	if (tg_lines_open(&lr, fd) < 0)
		errx(TG_EXIT_ERROR, "out of memory");
	while ((line = tg_lines_next(&lr, &len))) {
		const struct tg_calldesc *d;
		const char *f, *v;
		int mpiio;

		if (first && line[0] != '#' && line[0]) {
			int64_t t0 = line_t0(line);
			if (t0 >= 0 && t0 < sp->firstt)
				sp->firstt = t0;
			first = 0;
		}
		if (sp && line[0] != '#' && (strstr(line, "\tsystem\t") || strstr(line, "\tpopen\t") ||
					      strstr(line, "\tposix_spawn"))) {
			tg_tline_split(line, &t);
			if (t.nf > TG_COL_ARGS && (d = tg_call_byname(t.f[TG_COL_FUNC])) && d->nio &&
			    d->io[0].op == TG_IO_SPAWN)
				spawn_line(&t, d, sp);
			continue;
		}

		if (line[0] != '#' && (strstr(line, "\tfork\t") || strstr(line, "\tvfork\t"))) {
			/* a child a fork made: run with its parent, whichever
			 * of their streams comes first (finish_proc) */
			int64_t pid;
			tg_tline_split(line, &t);
			if (t.nf > TG_COL_RET && (d = tg_call_byname(t.f[TG_COL_FUNC])) && d->nio &&
			    d->io[0].op == TG_IO_FORK && tg_tint(t.f[TG_COL_RET], &pid) == 0 &&
			    pid > 0)
				family_add(pid);
			continue;
		}
		if (strncmp(line, "#proc\t", 6) == 0) {
			tg_tline_split(line, &t);
			sp = start_line(&t);
			first = sp != NULL;
			free(cwd);
			cwd = (v = tg_tline_arg(&t, 1, "cwd")) &&
			      tg_tunquote(v, buf, sizeof(buf)) == 0 ? xstrdup(buf) : NULL;
			continue;
		}
		if (line[0] != '#' && (strstr(line, "\topen") || strstr(line, "\tcreat") ||
					 strstr(line, "\tfopen"))) {
			/* (only an open that may make its file is kept) */
			if (!strstr(line, "O_CREAT") && !strstr(line, "\tcreat") &&
			    !strstr(line, "\tmode=\"w") && !strstr(line, "\tmode=\"a"))
				continue;
			tg_tline_split(line, &t);
			if (t.nf > TG_COL_ARGS && (d = tg_call_byname(t.f[TG_COL_FUNC])) &&
			    (d->layer == TG_LAYER_POSIX || d->layer == TG_LAYER_STDIO) && d->nio &&
			    d->io[0].op == TG_IO_OPEN)
				add_making(&creations, &ncreations, &ccap, TG_IO_OPEN, &t, d, cwd);
			continue;
		}
		if (line[0] != '#' && (strstr(line, "\tlink") || strstr(line, "\tsymlink"))) {
			/* a name made by a link: as an open that made a file */
			tg_tline_split(line, &t);
			if (t.nf > TG_COL_ARGS && (d = tg_call_byname(t.f[TG_COL_FUNC])) && d->nio &&
			    d->io[0].op == TG_IO_MAKE && streq(t.f[TG_COL_DEPTH], "0"))
				add_making(&creations, &ncreations, &ccap, TG_IO_MAKE, &t, d, cwd);
			continue;
		}
		if (line[0] != '#' && strstr(line, "\tmkdir")) {
			tg_tline_split(line, &t);
			if (t.nf > TG_COL_ARGS && (d = tg_call_byname(t.f[TG_COL_FUNC])) && d->nio &&
			    d->io[0].op == TG_IO_MKDIR && streq(t.f[TG_COL_DEPTH], "0"))
				add_making(&dirmade, &ndirmade, &dcap, TG_IO_MKDIR, &t, d, cwd);
			continue;
		}
		if (line[0] == '#' || !(strstr(line, "\tunlink") || strstr(line, "\tremove\t") ||
					 strstr(line, "\trename") || strstr(line, "\tMPI_File_delete\t") ||
					 strstr(line, "\trmdir\t")))
			continue;
		tg_tline_split(line, &t);
		if (t.nf <= TG_COL_ARGS || !streq(t.f[TG_COL_RET], "0"))
			continue;
		f = t.f[TG_COL_FUNC];
		if (streq(f, "rename") || streq(f, "renameat") || streq(f, "renameat2")) {
			const char *w = tg_tline_arg(&t, TG_COL_ARGS, "newpath"), *fl;
			char *from, *to;
			int exchange;

			if (!(v = tg_tline_arg(&t, TG_COL_ARGS, "oldpath")) || !w ||
			    tg_tunquote(v, buf, sizeof(buf)) != 0 ||
			    tg_tunquote(w, buf2, sizeof(buf2)) != 0)
				continue;
			fl = tg_tline_arg(&t, TG_COL_ARGS, "flags");
			exchange = fl && (strtoull(fl, NULL, 16) & 2);	/* Linux's RENAME_EXCHANGE */
			from = tg_io_abspath(buf, cwd, 0);
			to = tg_io_abspath(buf2, cwd, 0);
			add_removal(&cap, to, &t, from);
			add_removal(&cap, from, &t, exchange ? to : NULL);
			continue;
		}
		mpiio = streq(f, "MPI_File_delete");
		if (!mpiio && !streq(f, "unlink") && !streq(f, "unlinkat") && !streq(f, "remove") &&
		    !streq(f, "rmdir"))
			continue;
		if (!(v = tg_tline_arg(&t, TG_COL_ARGS, mpiio ? "filename" : "path")) ||
		    tg_tunquote(v, buf, sizeof(buf)) != 0)
			continue;
		add_removal(&cap, tg_io_abspath(buf, cwd, mpiio), &t, NULL);
		removals[nremovals - 1].mpi = mpiio;
		removals[nremovals - 1].name = mpiio || streq(t.f[TG_COL_DEPTH], "0");
		if (!mpiio && (v = tg_tline_arg(&t, TG_COL_ARGS, "parent")) &&
		    tg_tint(v, &removals[nremovals - 1].parent) < 0)
			removals[nremovals - 1].parent = -1;
	}
	drop_nested_removals();
	spawn_children();
	if (lr.err)
		errx(TG_EXIT_ERROR, "%s: %s", input_name, strerror(lr.err));
	tg_lines_close(&lr);
	free(cwd);
	if (nremovals)
		qsort(removals, nremovals, sizeof(*removals), cmp_removal);
	removals_index();
	if (ncreations)
		qsort(creations, ncreations, sizeof(*creations), cmp_creation);
	if (ndirmade)
		qsort(dirmade, ndirmade, sizeof(*dirmade), cmp_creation);
	if (lseek(fd, 0, SEEK_SET) != 0)
		err(TG_EXIT_ERROR, "%s", input_name);
}

/*
 * Input that cannot be read twice (a pipe): kept in an unlinked file of
 * $TMPDIR (or /tmp), since the removals must be read ahead of the
 * records.  Returns that file, at its start.
 */
static int spool(int in)
{
	const char *dir = getenv("TMPDIR");
	char path[4096], buf[1 << 16];
	ssize_t n;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/overlap-find.XXXXXX", dir);
	if ((fd = mkstemp(path)) < 0)
		err(TG_EXIT_ERROR, "cannot keep the input in %s", dir);
	unlink(path);
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err(TG_EXIT_ERROR, "%s", input_name);
		}
		for (ssize_t w, k = 0; k < n; k += w)
			if ((w = write(fd, buf + k, (size_t)(n - k))) < 0) {
				if (errno == EINTR) {
					w = 0;
					continue;
				}
				err(TG_EXIT_ERROR, "cannot keep the input in %s", dir);
			}
	}
	if (lseek(fd, 0, SEEK_SET) != 0)
		err(TG_EXIT_ERROR, "cannot keep the input in %s", dir);
	if (in != 0)
		close(in);
	return fd;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "layer", required_argument, NULL, 'l' },
		{ "accesses", no_argument, NULL, 'a' },
		{ "all-pairs", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	struct tg_tline t;
	struct tg_lines lr;
	char *line;
	size_t len, f, nheld = 0;
	char *held = NULL;
	FILE *real_stdout;
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
		case 'P':
			opt_all_pairs = 1;
			break;
		case 'l':
			if (streq(optarg, "posix"))
				layer_mpiio = 0;
			else if (streq(optarg, "mpiio"))
				layer_mpiio = 1;
			else {
				errx(TG_EXIT_ERROR, "option -l: unknown layer '%s' (posix, mpiio)",
				     optarg);
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
		if (in < 0)
			err(TG_EXIT_ERROR, "cannot open '%s'", input_name);
	}
	{
		struct stat st;
		if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode))
			in = spool(in);
		read_removals(in);
	}
	/* what is printed while the input is read waits for the #run line,
	 * which needs every #proc line */
	real_stdout = stdout;
	stdout = open_memstream(&held, &nheld);
	if (!stdout || tg_lines_open(&lr, in) < 0)
		errx(TG_EXIT_ERROR, "out of memory");
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
			if (strncmp(line, "#timing\t", 8) == 0) {
				times_rebuilt = 1;
				times_anchored = strstr(line, "\tanchored=1") != NULL;
			}
			if (layer_mpiio && strncmp(line, "#comm\t", 6) == 0) {
				tg_tline_split(line, &t);
				comm_line(&t);
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
	if (lr.err)
		errx(TG_EXIT_ERROR, "%s: %s", input_name, strerror(lr.err));
	/* a trace without a call still has a #proc line per stream: none is
	 * no trace at all (an empty file, or a pairs file given back) */
	if (!nprocs)
		die_input(lineno ? "no #proc line (not text records?)" :
			  "empty input (no #proc line)");
	finish_proc();
	run_deferred();
	place_ordered();
	place_shared();
	place_blind();
	/* after the calls placed last (ordered and shared-pointer ones) */
	for (size_t i = 0; i < nprocs; i++)
		if (procs[i].untracked || procs[i].unplaced)
			printf("#unplaced\trank=%s\tuntracked=%" PRIu64 "\tunplaced=%" PRIu64 "\n",
			       procs[i].name, procs[i].untracked, procs[i].unplaced);
	if (!layer_mpiio)
		print_children();
	if (fclose(stdout) != 0)
		errx(TG_EXIT_ERROR, "out of memory");
	stdout = real_stdout;
	printf("#overlap\tversion=1\tlayer=%s\n", layer_mpiio ? "mpiio" : "posix");
	if (run_id) {
		char id[17];
		tg_run_format(run_id, id);
		printf("#run\tid=%s\n", id);
	}
	if (times_rebuilt)	/* (before the lines whose times conflict-check uses) */
		printf("#timing\trebuilt=1%s\n", times_anchored ? "\tanchored=1" : "");
	fwrite(held, 1, nheld, stdout);
	free(held);
	for (f = 0; f < nfiles; f++) {
		place_appends((uint32_t)f);
		place_truncs((uint32_t)f);
		sweep((uint32_t)f);
	}
	if (times_rebuilt)	/* (conflict-check learns so, even with none) */
		printf("#bytime\tfiles=%" PRIu64 "\n", bytime_files);
	tg_lines_close(&lr);
	tg_close_stdout();
	return TG_EXIT_OK;
}
