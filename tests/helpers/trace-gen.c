/*
 * trace-gen - write a synthetic, seeded .rec stream (a test tool, like
 * zstd's datagen): a plausible mix of POSIX and stdio calls on a few paths,
 * with growing offsets, overlapping threads and nested stdio calls.  The
 * same options always give the same bytes, on any machine.
 *
 *   trace-gen [-fh] [-n records] [-o file] [-p pattern] [-r rank] [-s seed]
 *             [-t threads] [-w world]
 *
 * -n call records (default 1000), -r the header's rank (default -1,
 * unknown), -w its world size (default rank + 1 when -r is given, else 0),
 * -s the seed (default 1), -t threads (default 1), -o the output (default
 * standard output, refused when it is a terminal unless -f).  -p mpi
 * writes an MPI rank instead (-n is then a minimum): a RANK record, a
 * communicator split, then iterations of a halo exchange with
 * MPI_Isend/MPI_Irecv completed by MPI_Waitall, MPI_Waitany or MPI_Testsome
 * in a seeded random order, an N-1 strided pwrite and MPI_File_write_at,
 * and now and then an MPI_Allreduce; request ids are given as the tracer
 * gives them (the smallest free one).  Exit 0, or 2 on bad usage or a
 * write error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../libcommon/calltab.h"
#include "../../libcommon/names.h"
#include "../../libcommon/rec.h"
#include "../../libcommon/stream.h"
#include "../../libcommon/tg.h"
#include "../../libcommon/util.h"
#include "../../libcommon/varint.h"
#include "../../libcommon/banned.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MAXFILES 16
#define MAXSTREAMS 8
#define MAXTHREADS 1024

static const char usage_text[] =
	"usage: trace-gen [-fh] [-n records] [-o file] [-p pattern] [-r rank] [-s seed]\n"
	"                 [-t threads] [-w world]\n";

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

/* ---- a small PRNG: splitmix64, fast and the same everywhere ------------ */

static uint64_t rng;

static uint64_t next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (n small: the modulo bias does not matter here). */
static uint64_t below(uint64_t n)
{
	return next() % n;
}

/* ---- the simulated process ------------------------------------------ */

enum { P_INPUT, P_SHARED, P_OUT, P_CKPT, P_CFG, P_LOG, P_TMP, P_MISSING, NPATHS };

static char paths[NPATHS][64];
static uint64_t sizes[NPATHS];	/* file sizes as the trace has made them */

struct file {
	int used;
	int path;
	int writable;
	uint64_t off;
};

static struct file files[MAXFILES];	/* index = fd - 3 */
static struct file streams[MAXSTREAMS];	/* index = stream id */
static int nfiles, nstreams;

static struct {
	const struct tg_calldesc *open, *close, *read, *write, *pread, *pwrite, *writev,
		*lseek, *fsync, *fstat, *stat, *unlink, *fopen, *fclose, *fread,
		*fwrite, *fseek, *ftell, *fflush;
} fn;

static const struct tg_calldesc *call(const char *name)
{
	const struct tg_calldesc *d = tg_call_byname(name);

	if (!d)
		errx(TG_EXIT_ERROR, "the call table has no '%s'", name);
	return d;
}

static struct tg_writer *out;
static struct tg_rec rec;
static uint64_t now, seq;	/* start of the latest call; next seq */
static uint64_t busy[MAXTHREADS];	/* when each thread's last call ended */
static int nthreads;

/* Start a call on thread @tid: its seq and start time. */
static void begin(const struct tg_calldesc *d, unsigned tid)
{
	uint64_t t = now > busy[tid] ? now : busy[tid];

	rec.type = TG_REC_CALL;
	rec.call = d;
	rec.func = d->id;
	rec.tid = tid;
	rec.seq = seq++;
	rec.depth = 0;
	rec.parent = -1;
	rec.tstart = now = t + 100 + below(2000);
	rec.ret = 0;
	rec.err = 0;
}

/* End it after @dur ns and write it. */
static void put(uint64_t dur)
{
	rec.dur = dur;
	if (rec.depth == 0 && rec.tstart + dur > busy[rec.tid])
		busy[rec.tid] = rec.tstart + dur;
	if (tg_writer_put(out, &rec) < 0)
		err(TG_EXIT_ERROR, "write error");
}

static uint64_t count(void)
{
	static const uint64_t c[] = { 1, 100, 512, 4096, 4096, 65536, 1 << 20, 4 << 20 };

	return c[below(N(c))];
}

/* Data-call duration: a latency plus 2 GB/s. */
static uint64_t data_dur(uint64_t n)
{
	return 400 + below(800) + n / 2;
}

static int pick_file(void)
{
	int i = (int)below(MAXFILES), k;

	for (k = 0; k < MAXFILES; k++, i = (i + 1) % MAXFILES)
		if (files[i].used)
			return i;
	return -1;
}

static int pick_stream(void)
{
	int i = (int)below(MAXSTREAMS), k;

	for (k = 0; k < MAXSTREAMS; k++, i = (i + 1) % MAXSTREAMS)
		if (streams[i].used)
			return i;
	return -1;
}

static void grow(struct file *f, uint64_t n)
{
	f->off += n;
	if (f->off > sizes[f->path])
		sizes[f->path] = f->off;
}

static void do_open(unsigned tid)
{
	static const uint64_t wflags[] = {
		O_WRONLY | O_CREAT | O_TRUNC, O_RDWR | O_CREAT, O_WRONLY | O_CREAT | O_APPEND,
	};
	int p = (int)below(NPATHS), i;
	int writable = p != P_INPUT && p != P_CFG && p != P_MISSING && below(3) != 0;

	begin(fn.open, tid);
	rec.args[0].s = paths[p];
	rec.args[1].i = (int64_t)(writable ? wflags[below(N(wflags))] : O_RDONLY);
	rec.args[2].i = writable ? 0644 : 0;
	if (p == P_MISSING) {
		rec.ret = -1;
		rec.err = ENOENT;
		put(1500 + below(1000));
		return;
	}
	for (i = 0; files[i].used; i++)
		;
	files[i].used = 1;
	files[i].path = p;
	files[i].writable = writable;
	files[i].off = 0;
	if (rec.args[1].i & O_TRUNC)
		sizes[p] = 0;
	if (rec.args[1].i & O_APPEND)
		files[i].off = sizes[p];
	nfiles++;
	rec.ret = i + 3;
	put(2000 + below(8000));
}

static void do_close(unsigned tid, int i)
{
	begin(fn.close, tid);
	rec.args[0].i = i + 3;
	files[i].used = 0;
	nfiles--;
	put(500 + below(1500));
}

static void do_data(unsigned tid, int i)
{
	struct file *f = &files[i];
	uint64_t n = count(), r = below(16);

	if (r < 3) {	/* lseek */
		begin(fn.lseek, tid);
		rec.args[0].i = i + 3;
		if (below(2)) {
			rec.args[1].i = (int64_t)(below(64) * 4096);
			rec.args[2].i = SEEK_SET;
			f->off = (uint64_t)rec.args[1].i;
		} else {
			rec.args[1].i = 0;
			rec.args[2].i = SEEK_END;
			f->off = sizes[f->path];
		}
		rec.ret = (int64_t)f->off;
		put(200 + below(300));
		return;
	}
	if (r < 5) {	/* fstat / fsync */
		begin(r == 3 ? fn.fstat : fn.fsync, tid);
		rec.args[0].i = i + 3;
		rec.args[1].present = 1;
		rec.args[1].i = (int64_t)sizes[f->path];
		rec.args[1].u = 0100644;
		put(r == 3 ? 800 + below(500) : 20000 + below(200000));
		return;
	}
	if (f->writable && r < 7) {	/* writev */
		static int64_t iov[4];
		int k, cnt = 2 + (int)below(3);
		uint64_t total = 0;
		begin(fn.writev, tid);
		for (k = 0; k < cnt; k++)
			total += (uint64_t)(iov[k] = (int64_t)count());
		rec.args[0].i = i + 3;
		rec.args[1].i = cnt;
		rec.args[1].arr = iov;
		rec.args[2].i = cnt;
		rec.ret = (int64_t)total;
		grow(f, total);
		put(data_dur(total));
		return;
	}
	if (r < 11) {	/* pread / pwrite at the offset, which then grows */
		int w = f->writable && (r & 1);
		uint64_t got = n;
		begin(w ? fn.pwrite : fn.pread, tid);
		if (!w && f->off >= sizes[f->path])
			got = 0;
		else if (!w && f->off + n > sizes[f->path])
			got = sizes[f->path] - f->off;
		rec.args[0].i = i + 3;
		rec.args[1].i = 1 + (int64_t)below(8);
		rec.args[2].i = (int64_t)n;
		rec.args[3].i = (int64_t)f->off;
		rec.ret = (int64_t)got;
		if (w)
			grow(f, n);
		else
			f->off += got;
		put(data_dur(got));
		return;
	}
	/* read / write */
	begin(f->writable ? fn.write : fn.read, tid);
	rec.args[0].i = i + 3;
	rec.args[1].i = 1 + (int64_t)below(8);
	rec.args[2].i = (int64_t)n;
	if (!f->writable && f->off + n > sizes[f->path])
		n = f->off < sizes[f->path] ? sizes[f->path] - f->off : 0;
	rec.ret = (int64_t)n;
	grow(f, n);
	put(data_dur(n));
}

static void do_stat(unsigned tid)
{
	int p = (int)below(NPATHS);

	if (p == P_TMP && below(3) == 0) {	/* only the scratch file is removed */
		begin(fn.unlink, tid);
		rec.args[0].s = paths[p];
		sizes[p] = 0;
		put(2000 + below(3000));
		return;
	}
	begin(fn.stat, tid);
	rec.args[0].s = paths[p];
	rec.args[1].present = p != P_MISSING;
	rec.args[1].i = (int64_t)sizes[p];
	rec.args[1].u = 0100644;
	if (p == P_MISSING) {
		rec.ret = -1;
		rec.err = ENOENT;
	}
	put(1000 + below(3000));
}

static void do_fopen(unsigned tid)
{
	static const char *const modes[] = { "r", "w", "a", "r+" };
	int p = (int)below(NPATHS), m = (int)below(N(modes)), i;

	begin(fn.fopen, tid);
	rec.args[0].s = paths[p];
	rec.args[1].s = modes[m];
	if (p == P_MISSING && m == 0) {
		rec.ret = 0;
		rec.err = ENOENT;
		put(3000 + below(2000));
		return;
	}
	for (i = 0; streams[i].used; i++)
		;
	streams[i].used = 1;
	streams[i].path = p;
	streams[i].writable = m != 0;
	streams[i].off = m == 2 ? sizes[p] : 0;
	if (m == 1)
		sizes[p] = 0;
	nstreams++;
	rec.ret = i + 1;
	put(3000 + below(6000));
}

/* A stdio call on stream @i; fwrite and fflush may flush with a nested
 * write(2), written first as the shim does (a call is recorded when it
 * ends).  Uses two records when @room allows. */
static void do_stdio(unsigned tid, int i, uint64_t room)
{
	struct file *f = &streams[i];
	uint64_t r = below(16), n = count(), outer_seq;

	if (r < 2) {	/* fclose */
		begin(fn.fclose, tid);
		rec.args[0].i = i + 1;
		f->used = 0;
		nstreams--;
		put(2000 + below(3000));
		return;
	}
	if (r < 4) {
		begin(r == 2 ? fn.fseek : fn.ftell, tid);
		rec.args[0].i = i + 1;
		if (r == 2) {
			rec.args[1].i = (int64_t)(below(16) * 512);
			rec.args[2].i = SEEK_SET;
			f->off = (uint64_t)rec.args[1].i;
		} else {
			rec.ret = (int64_t)f->off;
		}
		put(100 + below(200));
		return;
	}
	if (!f->writable) {
		uint64_t got = f->off < sizes[f->path] ? sizes[f->path] - f->off : 0;
		if (got > n)
			got = n;
		begin(fn.fread, tid);
		rec.args[0].i = 1 + (int64_t)below(8);
		rec.args[1].i = 1;
		rec.args[2].i = (int64_t)n;
		rec.args[3].i = i + 1;
		rec.ret = (int64_t)got;
		f->off += got;
		put(data_dur(got));
		return;
	}
	begin(r < 6 ? fn.fflush : fn.fwrite, tid);
	outer_seq = rec.seq;
	if (rec.call == fn.fflush) {
		rec.args[0].i = i + 1;
	} else {
		rec.args[0].i = 1 + (int64_t)below(8);
		rec.args[1].i = 1;
		rec.args[2].i = (int64_t)n;
		rec.args[3].i = i + 1;
		rec.ret = (int64_t)n;
		grow(f, n);
	}
	if (room >= 2 && (rec.call == fn.fflush || n >= 4096)) {
		struct tg_rec outer = rec;
		uint64_t inner = n >= 4096 ? n : 4096, dur = data_dur(inner);
		/* the nested write: fd numbers of streams are not modelled */
		rec.call = fn.write;
		rec.func = fn.write->id;
		rec.seq = seq++;
		rec.depth = 1;
		rec.parent = (int64_t)outer_seq;
		rec.tstart = now = outer.tstart + 150;
		rec.args[0].i = 100 + i;
		rec.args[1].i = 9;
		rec.args[2].i = (int64_t)inner;
		rec.ret = (int64_t)inner;
		rec.err = 0;
		put(dur);
		rec = outer;
		put(dur + 400);
		return;
	}
	put(rec.call == fn.fflush ? 300 : 200 + n / 8);
}

/* One or two call records, as @room (records left) allows; returns how many. */
static int step(uint64_t room)
{
	unsigned tid = (unsigned)below((uint64_t)nthreads);
	uint64_t r = below(100);
	int i;

	if (r < 55 && (i = pick_file()) >= 0) {
		if (below(12) == 0) {
			do_close(tid, i);
			return 1;
		}
		do_data(tid, i);
		return 1;
	}
	if (r < 65 && nfiles < MAXFILES) {
		do_open(tid);
		return 1;
	}
	if (r < 72) {
		do_stat(tid);
		return 1;
	}
	if (r < 95 && (i = pick_stream()) >= 0) {
		uint64_t before = seq;
		do_stdio(tid, i, room);
		return (int)(seq - before);
	}
	if (nstreams < MAXSTREAMS) {
		do_fopen(tid);
		return 1;
	}
	do_stat(tid);
	return 1;
}

/* ---- -p mpi: one rank of an MPI program ------------------------------- */

static uint64_t mpih(int kind, const char *name)
{
	const struct tg_mpiname *m;

	for (m = tg_mpi_names; m->name; m++)
		if (m->kind == kind && strcmp(m->name, name) == 0)
			return (uint64_t)m->val << 1 | 1;
	errx(TG_EXIT_ERROR, "no predefined MPI handle '%s'", name);
}

static uint64_t reqs_used[64];	/* the tracer's request ids: 1 if taken */

static uint64_t req_new(void)
{
	uint64_t i;

	for (i = 1; i < 64 && reqs_used[i]; i++)
		;
	if (i == 64)
		errx(TG_EXIT_ERROR, "too many requests");
	reqs_used[i] = 1;
	return i << 1;
}

static void mpi_call(const char *name)
{
	begin(call(name), 0);
}

static void gen_mpi(uint64_t nrec, int64_t rank, int64_t world)
{
	uint64_t world_h = mpih(TG_H_COMM, "MPI_COMM_WORLD"), dbl = mpih(TG_H_DTYPE, "MPI_DOUBLE");
	uint64_t inth = mpih(TG_H_DTYPE, "MPI_INT"), sum = mpih(TG_H_OP, "MPI_SUM");
	uint64_t rnull = mpih(TG_H_REQ, "MPI_REQUEST_NULL"), infonull = mpih(TG_H_INFO, "MPI_INFO_NULL");
	int64_t nb[2], i, k, members[1024], nm = 0, iter;
	unsigned char frame[16 + 1024 * TG_VARINT_MAX], *q;
	static int64_t reqs[4], statuses[8], idx[4];

	nb[0] = rank > 0 ? rank - 1 : -1;	/* MPI_PROC_NULL at the ends */
	nb[1] = rank + 1 < world ? rank + 1 : -1;
	memset(&rec, 0, sizeof(rec));
	rec.type = TG_REC_RANK;
	rec.rank = rank;
	rec.world = (uint64_t)world;
	if (tg_writer_put(out, &rec) < 0)
		err(TG_EXIT_ERROR, "write error");
	mpi_call("MPI_Init");
	put(200000 + below(100000));
	mpi_call("MPI_Comm_rank");
	rec.args[0].i = (int64_t)world_h;
	rec.args[1].i = rank;
	put(50);
	mpi_call("MPI_Comm_size");
	rec.args[0].i = (int64_t)world_h;
	rec.args[1].i = world;
	put(50);
	/* MPI_Comm_split by parity: its COMM record first */
	for (i = rank % 2; i < world && nm < 1024; i += 2)
		members[nm++] = i;
	q = frame;
	*q++ = TG_REC_COMM;
	q = tg_put_uvar(q, 2);	/* c1 */
	q = tg_put_uvar(q, 0);
	q = tg_put_uvar(q, (uint64_t)nm);
	for (i = 0; i < nm; i++)
		q = tg_put_uvar(q, (uint64_t)members[i]);
	if (tg_writer_frame(out, frame, (size_t)(q - frame)) < 0)
		err(TG_EXIT_ERROR, "write error");
	mpi_call("MPI_Comm_split");
	rec.args[0].i = (int64_t)world_h;
	rec.args[1].i = rank % 2;
	rec.args[2].i = rank;
	rec.args[3].i = 2;
	put(30000 + below(10000));
	begin(fn.open, 0);
	rec.args[0].s = "/scratch/run/shared.dat";
	rec.args[1].i = O_WRONLY | O_CREAT;
	rec.args[2].i = 0644;
	rec.ret = 3;
	put(5000 + below(3000));
	mpi_call("MPI_File_open");
	rec.args[0].i = (int64_t)world_h;
	rec.args[1].s = "/scratch/run/shared.mpiio";
	rec.args[2].i = 5;
	rec.args[3].i = (int64_t)infonull;
	rec.args[4].i = 2;	/* f1 */
	put(40000 + below(20000));
	for (iter = 0; seq < nrec; iter++) {
		for (k = 0; k < 4; k++) {	/* two receives, two sends */
			mpi_call(k < 2 ? "MPI_Irecv" : "MPI_Isend");
			rec.args[0].i = 1 + k;
			rec.args[1].i = 1024;
			rec.args[2].i = (int64_t)dbl;
			rec.args[3].i = nb[k % 2];
			rec.args[4].i = 7;
			rec.args[5].i = (int64_t)world_h;
			rec.args[6].i = (int64_t)req_new();
			reqs[k] = rec.args[6].i;
			put(300 + below(300));
		}
		switch (below(3)) {
		case 0:	/* MPI_Waitall */
			mpi_call("MPI_Waitall");
			rec.args[0].i = 4;
			rec.args[1].i = 4;
			rec.args[1].arr = reqs;
			rec.args[2].i = 4;
			for (k = 0; k < 4; k++) {	/* PROC_NULL: -1, MPI_ANY_TAG */
				statuses[2 * k] = nb[k % 2];
				statuses[2 * k + 1] = nb[k % 2] < 0 ? -1 : 7;
			}
			rec.args[2].arr = statuses;
			put(2000 + below(8000));
			for (k = 0; k < 4; k++)
				reqs_used[reqs[k] >> 1] = 0;
			break;
		case 1:	/* MPI_Waitany, in a random order */
			for (i = 0; i < 4; i++)
				idx[i] = i;
			for (i = 3; i > 0; i--) {
				int64_t j = (int64_t)below((uint64_t)i + 1), t = idx[i];
				idx[i] = idx[j];
				idx[j] = t;
			}
			for (i = 0; i < 4; i++) {
				static int64_t cur[4];
				memcpy(cur, reqs, sizeof(cur));
				mpi_call("MPI_Waitany");
				rec.args[0].i = 4;
				rec.args[1].i = 4;
				rec.args[1].arr = cur;
				rec.args[2].i = idx[i];
				rec.args[3].present = 1;
				rec.args[3].i = nb[idx[i] % 2];
				rec.args[3].u = (uint64_t)(nb[idx[i] % 2] < 0 ? -1 : 7);
				put(500 + below(3000));
				reqs_used[reqs[idx[i]] >> 1] = 0;
				reqs[idx[i]] = (int64_t)rnull;
			}
			break;
		default:	/* MPI_Testsome until all are done */
			for (i = 0; i < 4;) {
				static int64_t cur[4], done[4], st2[8];
				int64_t nd = 0;
				memcpy(cur, reqs, sizeof(cur));
				for (k = 0; k < 4; k++)
					if (reqs[k] != (int64_t)rnull && below(2)) {
						done[nd] = k;
						st2[2 * nd] = nb[k % 2];
						st2[2 * nd + 1] = nb[k % 2] < 0 ? -1 : 7;
						nd++;
					}
				mpi_call("MPI_Testsome");
				rec.args[0].i = 4;
				rec.args[1].i = 4;
				rec.args[1].arr = cur;
				rec.args[2].i = nd;
				rec.args[3].i = nd;
				rec.args[3].arr = done;
				rec.args[4].i = nd;
				rec.args[4].arr = st2;
				put(200 + below(500));
				for (k = 0; k < nd; k++) {
					reqs_used[reqs[done[k]] >> 1] = 0;
					reqs[done[k]] = (int64_t)rnull;
				}
				i += (int)nd;
			}
		}
		begin(fn.pwrite, 0);	/* N-1 strided */
		rec.args[0].i = 3;
		rec.args[1].i = 5;
		rec.args[2].i = 4096;
		rec.args[3].i = (iter * world + rank) * 4096;
		rec.ret = 4096;
		put(data_dur(4096));
		mpi_call("MPI_File_write_at");
		rec.args[0].i = 2;
		rec.args[1].i = (iter * world + rank) * 4096;
		rec.args[2].i = 6;
		rec.args[3].i = 1024;
		rec.args[4].i = (int64_t)inth;
		rec.args[5].present = 1;
		rec.args[5].i = 4096;
		put(data_dur(4096) + 2000);
		if (below(8) == 0) {
			mpi_call("MPI_Allreduce");
			rec.args[0].i = 7;
			rec.args[1].i = 8;
			rec.args[2].i = 1;
			rec.args[3].i = (int64_t)dbl;
			rec.args[4].i = (int64_t)sum;
			rec.args[5].i = 2;
			put(5000 + below(20000));
		}
	}
	mpi_call("MPI_File_close");
	rec.args[0].i = 2;
	put(20000);
	begin(fn.close, 0);
	rec.args[0].i = 3;
	put(2000);
	mpi_call("MPI_Finalize");
	put(100000);
}

int main(int argc, char **argv)
{
	long long nrec = 1000, rank = -1, seed = 1, threads = 1, world = -1;
	const char *path = NULL, *pattern = "io";
	struct tg_header h;
	struct tg_stream *s;
	char host[32], seedarg[32], *hargv[3];
	uint64_t done = 0, mix;
	int c, force = 0, wrc;

	while ((c = getopt(argc, argv, "fhn:o:p:r:s:t:w:")) != -1) {
		switch (c) {
		case 'f':
			force = 1;
			break;
		case 'h':
			usage(TG_EXIT_OK);
			break;
		case 'n':
			nrec = tg_strtonum(optarg, 0, 1LL << 40, "option -n");
			break;
		case 'o':
			path = optarg;
			break;
		case 'p':
			if (strcmp(optarg, "io") != 0 && strcmp(optarg, "mpi") != 0)
				errx(TG_EXIT_ERROR, "option -p: unknown pattern '%s' (io, mpi)", optarg);
			pattern = optarg;
			break;
		case 'r':
			rank = tg_strtonum(optarg, -1, INT32_MAX, "option -r");
			break;
		case 's':
			seed = tg_strtonum(optarg, 0, INT64_MAX, "option -s");
			break;
		case 't':
			threads = tg_strtonum(optarg, 1, MAXTHREADS, "option -t");
			break;
		case 'w':
			world = tg_strtonum(optarg, 0, UINT32_MAX, "option -w");
			break;
		default:
			usage(TG_EXIT_ERROR);
		}
	}
	if (optind != argc)
		usage(TG_EXIT_ERROR);
	if (world < 0)
		world = rank >= 0 ? rank + 1 : 0;
	if (!path)
		tg_no_binary_tty(1, force);

	rng = (uint64_t)seed;
	mix = next();
	nthreads = (int)threads;
	snprintf(host, sizeof(host), "node%03u", (unsigned)(rank >= 0 ? rank / 4 : 0));
	snprintf(seedarg, sizeof(seedarg), "--seed=%lld", seed);
	hargv[0] = "./synthetic-app";
	hargv[1] = seedarg;
	hargv[2] = "--out=/scratch/run";
	memset(&h, 0, sizeof(h));
	h.rank = rank;
	h.world = (uint64_t)world;
	h.pid = 1000 + mix % 60000;
	h.ppid = 999;
	h.clock_base = 1700000000000000000ull + (mix >> 20) % 1000000000u;
	h.host = host;
	h.cwd = "/scratch/run";
	h.argc = 3;
	h.argv = hargv;

	snprintf(paths[P_INPUT], sizeof(paths[0]), "/scratch/run/input.dat");
	snprintf(paths[P_SHARED], sizeof(paths[0]), "/scratch/run/shared.dat");
	snprintf(paths[P_OUT], sizeof(paths[0]), "/scratch/run/out.%lld", rank >= 0 ? rank : 0);
	snprintf(paths[P_CKPT], sizeof(paths[0]), "/scratch/run/ckpt/ckpt.%lld",
		 rank >= 0 ? rank : 0);
	snprintf(paths[P_CFG], sizeof(paths[0]), "/home/user/app.cfg");
	snprintf(paths[P_LOG], sizeof(paths[0]), "/scratch/run/log.txt");
	snprintf(paths[P_TMP], sizeof(paths[0]), "/tmp/scratch.%llu",
		 (unsigned long long)h.pid);
	snprintf(paths[P_MISSING], sizeof(paths[0]), "/scratch/run/missing");
	sizes[P_INPUT] = 64 << 20;
	sizes[P_CFG] = 2000;

	fn.open = call("open");
	fn.close = call("close");
	fn.read = call("read");
	fn.write = call("write");
	fn.pread = call("pread");
	fn.pwrite = call("pwrite");
	fn.writev = call("writev");
	fn.lseek = call("lseek");
	fn.fsync = call("fsync");
	fn.fstat = call("fstat");
	fn.stat = call("stat");
	fn.unlink = call("unlink");
	fn.fopen = call("fopen");
	fn.fclose = call("fclose");
	fn.fread = call("fread");
	fn.fwrite = call("fwrite");
	fn.fseek = call("fseek");
	fn.ftell = call("ftell");
	fn.fflush = call("fflush");

	if (!(s = tg_stream_open(path ? path : "-", "w")))
		err(TG_EXIT_ERROR, "cannot open '%s'", path ? path : "-");
	if (!(out = tg_writer_open(s, &h)))
		err(TG_EXIT_ERROR, "cannot write the header to '%s'", tg_stream_name(s));
	if (strcmp(pattern, "mpi") == 0) {
		if (rank < 0)
			rank = 0;
		if (world <= rank)
			world = rank + 1;
		gen_mpi((uint64_t)nrec, rank, world);
	}
	while (strcmp(pattern, "io") == 0 && done < (uint64_t)nrec)
		done += (uint64_t)step((uint64_t)nrec - done);
	wrc = tg_writer_close(out);
	if (tg_stream_close(s) < 0 || wrc < 0)
		err(TG_EXIT_ERROR, "write error on '%s'", path ? path : "standard output");
	return TG_EXIT_OK;
}
