/*
 * test_rec.c - the .rec reader and writer (libcommon/rec.h): header and
 * record round trips, then damaged streams, which must each end in -1 (or a
 * failed open) with a message saying where, and never in a crash.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../libcommon/calltab.h"
#include "../../libcommon/rec.h"
#include "../../libcommon/stream.h"
#include "../../libcommon/varint.h"
#include "tap.h"
#include "../../libcommon/banned.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define TOP .depth = 0, .parent = -1

/* ---- the table of records ------------------------------------------- */

static const int64_t iov3[] = { 4096, 0, 123456789 };
static const int64_t fds_ok[] = { 5, 6 };
static const int64_t fds_bad[] = { -1, INT32_MIN };
static const int64_t h5start[] = { 2, 4 }, h5count[] = { 2, INT64_MAX };
static const int64_t h5dims[] = { 6, -1 };	/* -1: H5S_UNLIMITED */

/* HDF5 identifiers as the shim encodes them (TG_K_HID) */
#define H5OBJ(n, type) ((((int64_t)(n) << 7 | (type)) << 1))
#define H5PREDEF(n) ((int64_t)(n) << 1 | 1)

struct rcase {
	const char *what;
	const char *fn;		/* the call's name; NULL for RANK / EXCLUDED */
	struct tg_rec r;
};

static struct rcase cases[] = {
	{ "open", "open",
	  { TOP, .tid = 0, .seq = 0, .tstart = 1000, .dur = 250, .ret = 3,
	    .args = { { .s = "/scratch/out.dat" }, { .i = O_WRONLY | O_CREAT | O_TRUNC },
		      { .i = 0644 } } } },
	{ "open that failed with ENOENT", "open",
	  { TOP, .seq = 1, .tstart = 1500, .dur = 40, .ret = -1, .err = ENOENT,
	    .args = { { .s = "/scratch/missing" }, { .i = O_RDONLY }, { .i = 0 } } } },
	{ "pwrite of 1 MiB at offset 2^40", "pwrite",
	  { TOP, .seq = 2, .tstart = 2000, .dur = 10000, .ret = 1 << 20,
	    .args = { { .i = 3 }, { .i = 7 }, { .i = 1 << 20 }, { .i = 1LL << 40 } } } },
	{ "pwrite at a negative offset, EINVAL", "pwrite",
	  { TOP, .seq = 3, .tstart = 13000, .dur = 1, .ret = -1, .err = EINVAL,
	    .args = { { .i = 3 }, { .i = 0 }, { .i = 1 }, { .i = -1 } } } },
	{ "writev of three buffers (IOV)", "writev",
	  { TOP, .seq = 4, .tstart = 14000, .dur = 900, .ret = 4096 + 123456789,
	    .args = { { .i = 3 }, { .i = 3, .arr = iov3 }, { .i = 3 } } } },
	{ "writev of no buffers", "writev",
	  { TOP, .seq = 5, .tstart = 15000, .dur = 9,
	    .args = { { .i = 3 }, { .i = 0 }, { .i = 0 } } } },
	{ "fstat with the stat present", "fstat",
	  { TOP, .seq = 6, .tstart = 16000, .dur = 30,
	    .args = { { .i = 3 }, { .present = 1, .i = 1234567, .u = 0100644 } } } },
	{ "fstat that failed, stat absent", "fstat",
	  { TOP, .seq = 7, .tstart = 16100, .dur = 3, .ret = -1, .err = EBADF,
	    .args = { { .i = 99 }, { .present = 0 } } } },
	{ "pipe (INTARR)", "pipe",
	  { TOP, .seq = 8, .tstart = 17000, .dur = 50, .args = { { .i = 2, .arr = fds_ok } } } },
	{ "pipe that failed, negative ints", "pipe",
	  { TOP, .seq = 9, .tstart = 17100, .dur = 5, .ret = -1, .err = EMFILE,
	    .args = { { .i = 2, .arr = fds_bad } } } },
	{ "fopen returning a stream (STREAM ret, STR arg)", "fopen",
	  { TOP, .seq = 10, .tstart = 18000, .dur = 700, .ret = 1,
	    .args = { { .s = "/scratch/in.txt" }, { .s = "r" } } } },
	{ "fopen returning NULL, ENOENT", "fopen",
	  { TOP, .seq = 11, .tstart = 19000, .dur = 70, .ret = 0, .err = ENOENT,
	    .args = { { .s = "/scratch/nope" }, { .s = "w+" } } } },
	{ "fopen with strings used before", "fopen",
	  { TOP, .seq = 12, .tstart = 20000, .dur = 70, .ret = 2,
	    .args = { { .s = "/scratch/in.txt" }, { .s = "r" } } } },
	{ "thread 1 starts earlier than thread 0's last call", "read",
	  { TOP, .tid = 1, .seq = 13, .tstart = 1200, .dur = 60, .ret = 4096,
	    .args = { { .i = 5 }, { .i = 1 }, { .i = 4096 } } } },
	{ "thread 0 again", "write",
	  { TOP, .tid = 0, .seq = 14, .tstart = 30000, .dur = 80, .ret = 10,
	    .args = { { .i = 1 }, { .i = 2 }, { .i = 10 } } } },
	{ "thread 1 again, seq interleaved", "read",
	  { TOP, .tid = 1, .seq = 15, .tstart = 30500, .dur = 60, .ret = 0,
	    .args = { { .i = 5 }, { .i = 1 }, { .i = 4096 } } } },
	{ "nested write at depth 1, written before its parent", "write",
	  { .tid = 0, .seq = 17, .depth = 1, .parent = 16, .tstart = 40100, .dur = 500,
	    .ret = 4096, .args = { { .i = 4 }, { .i = 3 }, { .i = 4096 } } } },
	{ "its parent fwrite: seq and tstart go back", "fwrite",
	  { TOP, .tid = 0, .seq = 16, .tstart = 40000, .dur = 1000, .ret = 1,
	    .args = { { .i = 3 }, { .i = 4096 }, { .i = 1 }, { .i = 1 } } } },
	{ "RANK record", NULL, { .type = TG_REC_RANK, .rank = 5, .world = 8 } },
	{ "EXCLUDED record", NULL, { .type = TG_REC_EXCLUDED, .excluded = 12 } },
	{ "thread 17, past the first thread table", "close",
	  { TOP, .tid = 17, .seq = 18, .tstart = 50000, .dur = 5, .args = { { .i = 4 } } } },
	{ "lseek with extreme values", "lseek",
	  { TOP, .tid = 0, .seq = 19, .tstart = 60000, .dur = 1, .ret = INT64_MAX,
	    .args = { { .i = 3 }, { .i = INT64_MIN }, { .i = SEEK_END } } } },
	{ "tstart and duration near 2^64", "fsync",
	  { TOP, .tid = 0, .seq = 20, .tstart = UINT64_MAX - 5, .dur = UINT64_MAX,
	    .args = { { .i = 3 } } } },
	{ "tstart back to 0 after that", "fsync",
	  { TOP, .tid = 0, .seq = 21, .tstart = 0, .dur = 0, .args = { { .i = 3 } } } },
	{ "strings with quotes, tab, newline, UTF-8 and empty", "fopen",
	  { TOP, .seq = 22, .tstart = 70000, .ret = 3,
	    .args = { { .s = "/tmp/a b\t\"c\"\n\xc3\xa9" }, { .s = "" } } } },
	{ "a NULL string", "fopen",
	  { TOP, .seq = 23, .tstart = 70100, .ret = 0, .err = EFAULT,
	    .args = { { .s = NULL }, { .s = "r" } } } },
	{ "errno 4095 and depth 1024", "close",
	  { .seq = 24, .depth = 1024, .parent = 23, .tstart = 70200, .ret = -1, .err = 4095,
	    .args = { { .i = -100 } } } },
	{ "RANK record with rank -1 and world 0", NULL,
	  { .type = TG_REC_RANK, .rank = -1, .world = 0 } },
	{ "EXCLUDED record of 2^64-1 calls", NULL,
	  { .type = TG_REC_EXCLUDED, .excluded = UINT64_MAX } },
	{ "RANK record: rank 3 of 4", NULL, { .type = TG_REC_RANK, .rank = 3, .world = 4 } },
	{ "H5Fcreate: path, flags, H5P_DEFAULT and a predefined id; HID ret", "H5Fcreate",
	  { TOP, .seq = 25, .tstart = 80000, .dur = 9000, .ret = H5OBJ(1, 1),
	    .args = { { .s = "/scratch/out.h5" }, { .i = 2 }, { .i = 0 }, { .i = H5PREDEF(5) } } } },
	{ "H5Sselect_hyperslab: NULL and non-NULL dimensions, an enum", "H5Sselect_hyperslab",
	  { TOP, .seq = 26, .tstart = 81000, .dur = 20,
	    .args = { { .i = H5OBJ(3, 4) }, { .i = -1 },
		      { .present = 1, .i = 2, .arr = h5start }, { .present = 0 },
		      { .present = 1, .i = 2, .arr = h5count }, { .present = 0 } } } },
	{ "H5Screate_simple: an empty array is not NULL; H5S_UNLIMITED", "H5Screate_simple",
	  { TOP, .seq = 27, .tstart = 82000, .dur = 20, .ret = 1,
	    .args = { { .i = 2 }, { .present = 1, .i = 2, .arr = h5dims },
		      { .present = 1, .i = 0 } } } },
};

static char *argv3[] = { "./app", "--input=/scratch/in.txt", "-n 10" };
static char *argv_empty[] = { "" };

static const struct {
	const char *what;
	struct tg_header h;
} headers[] = {
	{ "rank -1, argv of 3",
	  { .rank = -1, .world = 0, .pid = 4242, .ppid = 1, .clock_base = 1700000000123456789ull,
	    .host = "node01", .cwd = "/home/user/run", .argc = 3, .argv = argv3 } },
	{ "rank 5 of 8",
	  { .rank = 5, .world = 8, .pid = UINT32_MAX + 7ull, .ppid = 0, .clock_base = 0,
	    .host = "n\xc3\xb8" "de-5.cluster", .cwd = "/", .argc = 3, .argv = argv3 } },
	{ "empty strings, argv of one empty string",
	  { .rank = 0, .world = 1, .pid = 1, .ppid = 1, .clock_base = UINT64_MAX,
	    .host = "", .cwd = "", .argc = 1, .argv = argv_empty } },
	{ "no argv",
	  { .rank = INT32_MAX, .world = UINT32_MAX, .pid = 2, .ppid = 3, .clock_base = 1,
	    .host = "h", .cwd = "/tmp", .argc = 0, .argv = NULL } },
};

static int streq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Compare a decoded record with the one written; describe the first
 * difference in @why. */
static int rec_same(const struct tg_rec *w, const struct tg_rec *g, char *why, size_t cap)
{
	const struct tg_calldesc *d = w->call;
	int i;

#define DIFF(field, fmt, a, b)                                                \
	do {                                                                  \
		snprintf(why, cap, "%s: got " fmt ", want " fmt, field, b, a); \
		return 0;                                                     \
	} while (0)
	if (g->type != w->type)
		DIFF("type", "%d", w->type, g->type);
	if (w->type == TG_REC_RANK) {
		if (g->rank != w->rank)
			DIFF("rank", "%" PRId64, w->rank, g->rank);
		if (g->world != w->world)
			DIFF("world", "%" PRIu64, w->world, g->world);
		return 1;
	}
	if (w->type == TG_REC_EXCLUDED) {
		if (g->excluded != w->excluded)
			DIFF("excluded", "%" PRIu64, w->excluded, g->excluded);
		return 1;
	}
	if (g->call != d)
		DIFF("call", "%s", d->name, g->call ? g->call->name : "NULL");
	if (g->func != d->id)
		DIFF("func", "%u", (unsigned)d->id, g->func);
	if (g->tid != w->tid)
		DIFF("tid", "%u", w->tid, g->tid);
	if (g->seq != w->seq)
		DIFF("seq", "%" PRIu64, w->seq, g->seq);
	if (g->depth != w->depth)
		DIFF("depth", "%u", w->depth, g->depth);
	if (g->parent != w->parent)
		DIFF("parent", "%" PRId64, w->parent, g->parent);
	if (g->tstart != w->tstart)
		DIFF("tstart", "%" PRIu64, w->tstart, g->tstart);
	if (g->dur != w->dur)
		DIFF("dur", "%" PRIu64, w->dur, g->dur);
	if (g->ret != w->ret)
		DIFF("ret", "%" PRId64, w->ret, g->ret);
	if (g->err != w->err)
		DIFF("err", "%d", w->err, g->err);
	for (i = 0; i < d->nargs; i++) {
		const struct tg_val *a = &w->args[i], *b = &g->args[i];
		const char *name = d->args[i].name;
		int64_t k;
		switch (d->args[i].kind) {
		case TG_K_STR:
		case TG_K_PATH:
			if (!streq(a->s, b->s))
				DIFF(name, "\"%s\"", a->s ? a->s : "(NULL)",
				     b->s ? b->s : "(NULL)");
			break;
		case TG_K_STAT:
			if (a->present != b->present)
				DIFF(name, "present=%d", a->present, b->present);
			if (a->present && (a->i != b->i || a->u != b->u))
				DIFF(name, "size %" PRId64, a->i, b->i);
			break;
		case TG_K_HSIZEARR:
			if (a->present != b->present)
				DIFF(name, "present=%d", a->present, b->present);
			/* fall through */
		case TG_K_IOV:
		case TG_K_INTARR:
		case TG_K_FLOCK:
			if (a->i != b->i)
				DIFF(name, "count %" PRId64, a->i, b->i);
			for (k = 0; k < a->i; k++)
				if (a->arr[k] != b->arr[k])
					DIFF(name, "element %" PRId64, a->arr[k], b->arr[k]);
			break;
		default:
			if (a->i != b->i)
				DIFF(name, "%" PRId64, a->i, b->i);
		}
	}
#undef DIFF
	return 1;
}

static int header_same(const struct tg_header *w, const struct tg_header *g,
		       char *why, size_t cap)
{
	int i;

	snprintf(why, cap, "fixed fields");
	if (g->version != TG_REC_VERSION || g->rank != w->rank || g->world != w->world ||
	    g->pid != w->pid || g->ppid != w->ppid || g->clock_base != w->clock_base)
		return 0;
	snprintf(why, cap, "host \"%s\", cwd \"%s\"", g->host, g->cwd);
	if (!streq(g->host, w->host) || !streq(g->cwd, w->cwd))
		return 0;
	snprintf(why, cap, "argc %d", g->argc);
	if (g->argc != w->argc)
		return 0;
	for (i = 0; i < w->argc; i++) {
		snprintf(why, cap, "argv[%d] \"%s\"", i, g->argv[i]);
		if (!streq(g->argv[i], w->argv[i]))
			return 0;
	}
	return 1;
}

/* Resolve the call names of the table once. */
static void resolve_cases(void)
{
	size_t i;

	for (i = 0; i < N(cases); i++) {
		if (!cases[i].fn)
			continue;
		cases[i].r.type = TG_REC_CALL;
		cases[i].r.call = tg_call_byname(cases[i].fn);
		if (!cases[i].r.call) {
			fprintf(stderr, "test_rec: no call '%s' in the table\n", cases[i].fn);
			exit(2);
		}
		cases[i].r.func = cases[i].r.call->id;
	}
}

/* The bytes of header @h followed by every record of the table. */
static unsigned char *write_stream(const struct tg_header *h, size_t *len)
{
	struct tg_stream *s = tg_stream_mem_writer();
	struct tg_writer *w = tg_writer_open(s, h);
	const void *data;
	unsigned char *copy;
	size_t i;
	int bad = !w;

	for (i = 0; w && i < N(cases); i++)
		if (tg_writer_put(w, &cases[i].r) < 0)
			bad = 1;
	if (w && tg_writer_close(w) < 0)
		bad = 1;
	data = tg_stream_mem_data(s, len);
	copy = malloc(*len ? *len : 1);
	if (*len)
		memcpy(copy, data, *len);
	tg_stream_close(s);
	if (bad) {
		free(copy);
		return NULL;
	}
	return copy;
}

/* ---- frames: where they are in a stream ------------------------------- */

struct frame {
	size_t off, len;	/* offset of the length field; payload length */
	int type;
};

/* Find the header end and the frames of a valid stream; returns the count. */
static size_t walk(const unsigned char *b, size_t n, size_t *hdr_end,
		   struct frame *fr, size_t max)
{
	size_t off = 16 + tg_get_le32(b + 12), k = 0;

	*hdr_end = off;
	while (off + 4 <= n && k < max) {
		fr[k].off = off;
		fr[k].len = tg_get_le32(b + off);
		fr[k].type = b[off + 4];
		off += 4 + fr[k].len + 1;
		k++;
	}
	return k;
}

/* ---- round trips ------------------------------------------------------ */

static void test_roundtrip(void)
{
	size_t hi;

	for (hi = 0; hi < N(headers); hi++) {
		const struct tg_header *h = &headers[hi].h;
		size_t len, i, good = 0;
		unsigned char *b = write_stream(h, &len);
		struct tg_stream *s;
		struct tg_reader *r;
		struct tg_rec rec;
		char msg[256] = "", why[256] = "";
		int rc = 1;

		if (!ok(b != NULL, "header %s: writer takes the header and %zu records",
			headers[hi].what, N(cases)))
			continue;
		s = tg_stream_mem_reader(b, len);
		r = tg_reader_open(s, msg, sizeof(msg));
		if (!ok(r != NULL, "header %s: reader opens the stream", headers[hi].what)) {
			tap_diag("%s", msg);
			tg_stream_close(s);
			free(b);
			continue;
		}
		if (!ok(header_same(h, tg_reader_header(r), why, sizeof(why)),
			"header %s: every field round-trips", headers[hi].what))
			tap_diag("%s", why);
		for (i = 0; i < N(cases); i++) {
			int same;
			memset(&rec, 0x5a, sizeof(rec));
			rc = tg_reader_next(r, &rec);
			same = rc == 1 && rec_same(&cases[i].r, &rec, why, sizeof(why));
			if (rc != 1)
				snprintf(why, sizeof(why), "tg_reader_next returned %d: %s", rc,
					 tg_reader_error(r));
			if (hi == 0) {
				if (!ok(same, "record round-trips: %s", cases[i].what))
					tap_diag("%s", why);
			} else if (same) {
				good++;
			} else if (good == i) {
				tap_diag("record %zu (%s): %s", i, cases[i].what, why);
			}
			if (cases[i].r.type == TG_REC_RANK && hi == 0)
				ok(tg_reader_header(r)->rank == cases[i].r.rank &&
					   tg_reader_header(r)->world == cases[i].r.world,
				   "a RANK record updates the header to rank %" PRId64,
				   cases[i].r.rank);
			if (rc != 1)
				break;
		}
		if (hi > 0)
			ok(good == N(cases), "header %s: all %zu records round-trip",
			   headers[hi].what, N(cases));
		if (rc == 1) {
			rc = tg_reader_next(r, &rec);
			ok(rc == 0 && tg_reader_next(r, &rec) == 0,
			   "header %s: then a clean end of stream, twice", headers[hi].what);
		}
		tg_reader_free(r);
		tg_stream_close(s);
		free(b);
	}
}

/* A string is defined once, before its first use, however often it is used. */
static void test_strings_interned(void)
{
	const char *seen[64];
	size_t nseen = 0, i, hdr, nfr, nstr = 0, first_call = 0;
	struct frame fr[128];
	size_t len;
	unsigned char *b = write_stream(&headers[0].h, &len);
	int k;

	for (i = 0; i < N(cases); i++) {
		const struct tg_calldesc *d = cases[i].r.call;
		for (k = 0; d && k < d->nargs; k++) {
			const char *s = cases[i].r.args[k].s;
			size_t j;
			if ((d->args[k].kind != TG_K_STR && d->args[k].kind != TG_K_PATH) || !s)
				continue;
			for (j = 0; j < nseen && strcmp(seen[j], s); j++)
				;
			if (j == nseen)
				seen[nseen++] = s;
		}
	}
	nfr = walk(b, len, &hdr, fr, N(fr));
	for (i = 0; i < nfr; i++) {
		if (fr[i].type == TG_REC_STR)
			nstr++;
		else if (!first_call)
			first_call = i + 1;
	}
	is_int(nstr, nseen, "each of the %zu distinct strings is defined once", nseen);
	ok(nfr > 0 && fr[0].type == TG_REC_STR && first_call == 2,
	   "the first string is defined just before the first call using it");
	ok(fr[nfr - 1].off + 4 + fr[nfr - 1].len + 1 == len &&
		   b[fr[nfr - 1].off + 4 + fr[nfr - 1].len] == '\n',
	   "frames tile the stream, each closed by a newline");
	free(b);
}

/* The encoder never writes past @cap and either fits or returns 0. */
static void test_header_encode_cap(void)
{
	const struct tg_header *h = &headers[0].h;
	unsigned char ref[4096];
	size_t need = tg_header_encode(h, ref, sizeof(ref)), cap, bad = 0;

	ok(need > 16 && tg_get_le32(ref + 12) == need - 16 &&
		   memcmp(ref, TG_REC_MAGIC, TG_REC_MAGIC_LEN) == 0,
	   "header: magic, length field = %zu bytes after byte 16", need - 16);
	ok(ref[8] == TG_REC_VERSION && ref[9] == 0 && ref[10] == 0 && ref[11] == 0,
	   "header: le16 version 1, le16 flags 0");
	ok(tg_get_le32(ref + TG_REC_RANK_OFFSET) == 0xffffffffu &&
		   tg_get_le32(ref + TG_REC_RANK_OFFSET + 4) == 0,
	   "header: rank -1 as le32 at byte %d, world after it", TG_REC_RANK_OFFSET);
	for (cap = 0; cap <= need + 100; cap++) {
		unsigned char *b = malloc(cap ? cap : 1);
		size_t n = tg_header_encode(h, b, cap);
		if (n != 0 && (n != need || memcmp(b, ref, need) != 0))
			bad++;
		free(b);
	}
	is_int(bad, 0, "header encoding into 0..%zu bytes: all of it or nothing", need + 100);
}

static void test_writer_errors(void)
{
	struct tg_stream *s = tg_stream_open("/dev/full", "w");
	struct tg_writer *w = tg_writer_open(s, &headers[0].h);
	struct tg_rec bogus = { .type = TG_REC_CALL, .func = 9999 };
	int failed = 0, i;

	ok(w != NULL, "writer opens on /dev/full (the header is buffered)");
	for (i = 0; i < 100000 && !failed; i++)
		if (tg_writer_put(w, &cases[2].r) < 0)
			failed = 1;
	ok(failed && tg_stream_error(s) == ENOSPC, "writing records to /dev/full fails with ENOSPC");
	ok(tg_writer_close(w) == -1, "tg_writer_close reports the failed write");
	tg_stream_close(s);

	s = tg_stream_mem_writer();
	w = tg_writer_open(s, &headers[0].h);
	ok(tg_writer_put(w, &bogus) == -1, "a call of unknown function id is refused");
	tg_writer_close(w);
	tg_stream_close(s);
}

/* ---- damaged streams ------------------------------------------------- */

/* A small valid stream: header, strings, calls, RANK and EXCLUDED. */
static unsigned char *small_stream(size_t *len)
{
	static const struct tg_header h = {
		.rank = 0, .world = 2, .pid = 77, .ppid = 1, .clock_base = 1000,
		.host = "h", .cwd = "/w", .argc = 1, .argv = argv3,
	};
	static const size_t pick[] = { 0, 2, 4, 6, 10, 18, 19, 20 };
	struct tg_stream *s = tg_stream_mem_writer();
	struct tg_writer *w = tg_writer_open(s, &h);
	unsigned char *copy;
	const void *data;
	size_t i;

	for (i = 0; i < N(pick); i++)
		tg_writer_put(w, &cases[pick[i]].r);
	tg_writer_close(w);
	data = tg_stream_mem_data(s, len);
	copy = malloc(*len);
	memcpy(copy, data, *len);
	tg_stream_close(s);
	return copy;
}

/*
 * Read @len bytes (copied to a buffer of exactly that size, so that ASan
 * sees any over-read) to the end.  Returns what tg_reader_next() returned
 * last, -2 if the open failed; *nrec counts the records; @msg the error.
 */
static int read_all(const unsigned char *b, size_t len, int *nrec, char *msg, size_t cap)
{
	unsigned char *copy = malloc(len ? len : 1);
	struct tg_stream *s;
	struct tg_reader *r;
	struct tg_rec rec;
	int rc;

	memcpy(copy, b, len);
	s = tg_stream_mem_reader(copy, len);
	*nrec = 0;
	msg[0] = 0;
	r = tg_reader_open(s, msg, cap);
	if (!r) {
		rc = -2;
		goto out;
	}
	while ((rc = tg_reader_next(r, &rec)) == 1)
		++*nrec;
	if (rc < 0)
		snprintf(msg, cap, "%s", tg_reader_error(r));
	tg_reader_free(r);
out:
	tg_stream_close(s);
	free(copy);
	return rc;
}

/* Records (frames other than string definitions) before frame @k. */
static int records_before(const struct frame *fr, size_t k)
{
	int n = 0;
	size_t i;

	for (i = 0; i < k; i++)
		n += fr[i].type != TG_REC_STR && fr[i].type != TG_REC_CHECK;
	return n;
}

static void test_truncation(void)
{
	size_t len, hdr, nfr, cut, k;
	unsigned char *b = small_stream(&len);
	struct frame fr[64];
	size_t bad_magic = 0, bad_hdr = 0, bad_bound = 0, bad_mid = 0;
	size_t n_hdr = 0, n_bound = 0, n_mid = 0;
	char msg[256], want[64];

	nfr = walk(b, len, &hdr, fr, N(fr));
	for (cut = 0; cut <= len; cut++) {
		int nrec, rc = read_all(b, cut, &nrec, msg, sizeof(msg));
		if (cut < TG_REC_MAGIC_LEN) {
			if (rc != -2 || !strstr(msg, "not a Tangram record stream"))
				bad_magic++;
			continue;
		}
		if (cut < hdr) {
			n_hdr++;
			snprintf(want, sizeof(want), "at byte %zu", cut);
			if (rc != -2 || !strstr(msg, "truncated header") || !strstr(msg, want)) {
				if (!bad_hdr++)
					tap_diag("cut %zu: rc %d, \"%s\"", cut, rc, msg);
			}
			continue;
		}
		for (k = 0; k < nfr && fr[k].off + 4 + fr[k].len + 1 <= cut; k++)
			;
		/* frames [0, k) are whole; a cut at fr[k].off is clean at the
		 * end of the header or the stream, else a torn tail: the
		 * records are handed out, but the chunk has no CHECK */
		if (k == nfr || cut == fr[k].off) {
			int whole = k == nfr || k == 0;
			n_bound++;
			if (rc != (whole ? 0 : -1) || nrec != records_before(fr, k) ||
			    (!whole && !strstr(msg, "torn tail"))) {
				if (!bad_bound++)
					tap_diag("cut %zu: rc %d, %d records, \"%s\"", cut, rc,
						 nrec, msg);
			}
		} else {
			n_mid++;
			snprintf(want, sizeof(want), "truncated frame at byte %zu", fr[k].off);
			if (rc != -1 || nrec != records_before(fr, k) || !strstr(msg, want)) {
				if (!bad_mid++)
					tap_diag("cut %zu: rc %d, %d records, \"%s\"", cut, rc,
						 nrec, msg);
			}
		}
	}
	is_int(bad_magic, 0, "cuts at bytes 0..7: not a Tangram record stream");
	is_int(bad_hdr, 0, "the %zu cuts inside the header: truncated header at byte N", n_hdr);
	is_int(bad_bound, 0, "the %zu cuts at frame boundaries: records before, then 0 "
	       "(after the CHECK) or -1, torn tail", n_bound);
	is_int(bad_mid, 0, "the %zu cuts inside frames: records before, then -1 at the frame",
	       n_mid);
	free(b);
}

enum mut { M_LEN, M_LENADD, M_NL, M_TYPE };

static const struct {
	const char *what;
	int kind;
	int64_t val;
	const char *msg;
} muts[] = {
	{ "frame length 0", M_LEN, 0, "corrupt frame length" },
	{ "frame length 0xffffffff", M_LEN, 0xffffffff, "corrupt frame length" },
	{ "frame length TG_FRAME_MAX + 1", M_LEN, TG_FRAME_MAX + 1, "corrupt frame length" },
	{ "frame length 0x80000000", M_LEN, 0x80000000, "corrupt frame length" },
	{ "frame length one short", M_LENADD, -1, "corrupt frame" },
	{ "frame length one long", M_LENADD, 1, "corrupt frame" },
	{ "closing byte 'x'", M_NL, 'x', "no closing newline" },
	{ "closing byte 0", M_NL, 0, "no closing newline" },
	{ "closing byte '\\r'", M_NL, '\r', "no closing newline" },
};

/* Damage one frame in turn at each of several places of a valid stream. */
static void test_mutations(void)
{
	size_t len, hdr, nfr, mi, k;
	unsigned char *b = small_stream(&len);
	struct frame fr[64];

	nfr = walk(b, len, &hdr, fr, N(fr));
	for (mi = 0; mi < N(muts); mi++) {
		size_t bad = 0, tried = 0;
		for (k = 0; k + 1 < nfr; k++) {	/* not the last: "one long" reads on */
			unsigned char *c = malloc(len);
			char msg[256], want[64];
			int nrec, rc;
			memcpy(c, b, len);
			switch (muts[mi].kind) {
			case M_LEN:
				tg_put_le32(c + fr[k].off, (uint32_t)muts[mi].val);
				break;
			case M_LENADD:
				tg_put_le32(c + fr[k].off, (uint32_t)(fr[k].len + muts[mi].val));
				break;
			case M_NL:
				c[fr[k].off + 4 + fr[k].len] = (unsigned char)muts[mi].val;
				break;
			}
			/* "one long" whose stolen byte happens to be a newline is
			 * undetectable at this frame: skip such positions */
			if (muts[mi].kind == M_LENADD && muts[mi].val > 0 &&
			    c[fr[k].off + 4 + fr[k].len + 1] == '\n') {
				free(c);
				continue;
			}
			tried++;
			rc = read_all(c, len, &nrec, msg, sizeof(msg));
			snprintf(want, sizeof(want), "at byte %zu", fr[k].off);
			if (rc != -1 || nrec != records_before(fr, k) ||
			    !strstr(msg, muts[mi].msg) || !strstr(msg, want)) {
				if (!bad++)
					tap_diag("frame %zu at %zu: rc %d, %d records, \"%s\"", k,
						 fr[k].off, rc, nrec, msg);
			}
			free(c);
		}
		ok(bad == 0 && tried > 0, "%s, in each of %zu frames: records before it, then "
		   "-1 \"%s ... at byte N\"", muts[mi].what, tried, muts[mi].msg);
	}
	free(b);
}

/* Damaged headers: open fails with a message. */
static const struct {
	const char *what;
	size_t at;		/* byte to change */
	int le32;		/* write a le32 there instead of one byte */
	uint32_t val;
	const char *msg;
} hmuts[] = {
	{ "bad magic: first byte 0x88", 0, 0, 0x88, "not a Tangram record stream (bad magic)" },
	{ "bad magic: 'T' lowercase", 1, 0, 't', "not a Tangram record stream (bad magic)" },
	{ "bad magic: '\\n' for '\\r'", 6, 0, '\n', "not a Tangram record stream (bad magic)" },
	{ "version 3", 8, 0, 3, "unsupported record stream version 3" },
	{ "version 0", 8, 0, 0, "unsupported record stream version 0" },
	{ "version 258", 9, 0, 1, "unsupported record stream version 258" },
	{ "header length 0xffffffff", 12, 1, 0xffffffff, "corrupt header length 4294967295 at byte 12" },
	{ "header length 4", 12, 1, 4, "corrupt header at byte 20" },
	{ "header length 0", 12, 1, 0, "corrupt header at byte 16" },
	{ "header length past the end", 12, 1, 100000, "truncated header at byte" },
};

static void test_header_damage(void)
{
	size_t len, i;
	unsigned char *b = small_stream(&len);
	char msg[256];
	int nrec, rc;

	for (i = 0; i < N(hmuts); i++) {
		unsigned char *c = malloc(len);
		memcpy(c, b, len);
		if (hmuts[i].le32)
			tg_put_le32(c + hmuts[i].at, hmuts[i].val);
		else
			c[hmuts[i].at] = (unsigned char)hmuts[i].val;
		rc = read_all(c, len, &nrec, msg, sizeof(msg));
		if (!ok(rc == -2 && strstr(msg, hmuts[i].msg), "rejected at open: %s",
			hmuts[i].what))
			tap_diag("rc %d, \"%s\", want \"%s\"", rc, msg, hmuts[i].msg);
		free(c);
	}
	rc = read_all(b, 0, &nrec, msg, sizeof(msg));
	ok(rc == -2 && strstr(msg, "not a Tangram record stream"),
	   "rejected at open: an empty stream");
	free(b);
}

/* ---- hand-made frames ------------------------------------------------ */

/* One token of a hand-made payload: a raw byte, a varint or a zig-zag. */
struct tok {
	char k;
	uint64_t v;
};
#define B(x) { 'b', (uint64_t)(x) }
#define U(x) { 'u', (uint64_t)(x) }
#define S(x) { 's', (uint64_t)(int64_t)(x) }
#define END { 0, 0 }
/* CALL fields in order: func tid dseq depth parent+1 dt dur ret err */
#define CALL(func, tid, dseq, depth) B(TG_REC_CALL), U(func), U(tid), S(dseq), U(depth), \
	U(0), S(10), U(5), S(0), U(0)
#define FN_OPEN 1
#define FN_CLOSE 7
#define FN_WRITEV 27
#define FN_FSTAT 64

static size_t build(unsigned char *b, const struct tok *t)
{
	unsigned char *p = b;

	for (; t->k; t++) {
		if (t->k == 'b')
			*p++ = (unsigned char)t->v;
		else if (t->k == 'u')
			p = tg_put_uvar(p, t->v);
		else
			p = tg_put_svar(p, (int64_t)t->v);
	}
	return (size_t)(p - b);
}

#define MAXF 4
static const struct {
	const char *what;
	struct tok f[MAXF][16];	/* hand-made frames; an empty one ends the list */
	int nrec;		/* records returned before the error */
	int bad;		/* damaged frame, or -1 if the stream is valid */
	const char *msg;
} hand[] = {
	{ "a valid hand-made close record",
	  { { CALL(FN_CLOSE, 0, 1, 0), S(3), END } }, 1, -1, NULL },
	{ "a string id used before any definition",
	  { { CALL(FN_OPEN, 0, 1, 0), U(7), U(0), U(0), END } }, 0, 0,
	  "string used before its definition" },
	{ "a string id never defined, after another was",
	  { { B(TG_REC_STR), U(1), U(1), B('/'), END },
	    { CALL(FN_OPEN, 0, 1, 0), U(1), U(0), U(0), END },
	    { CALL(FN_OPEN, 0, 1, 0), U(2), U(0), U(0), END } }, 1, 2,
	  "string used before its definition" },
	{ "unknown record types 0, 99 and 255 are skipped",
	  { { B(0), END }, { B(99), B(1), B(2), B(3), END },
	    { B(255), U(123456), S(-1), END }, { CALL(FN_CLOSE, 0, 1, 0), S(3), END } },
	  1, -1, NULL },
	{ "a call of unknown function id 9999 is skipped",
	  { { CALL(9999, 0, 1, 0), END }, { CALL(FN_CLOSE, 0, 1, 0), S(3), END } },
	  1, -1, NULL },
	{ "function id 0x10007 (7 plus 2^16) is skipped",
	  { { CALL(0x10007, 0, 1, 0), S(3), END } }, 0, -1, NULL },
	{ "bytes after the arguments (a newer schema) are ignored",
	  { { CALL(FN_CLOSE, 0, 1, 0), S(3), B(0), END } }, 1, -1, NULL },
	{ "a call record cut after the function id",
	  { { B(TG_REC_CALL), U(FN_CLOSE), END } }, 0, 0, "corrupt call record" },
	{ "a call record of only its type byte",
	  { { B(TG_REC_CALL), END } }, 0, 0, "corrupt call record" },
	{ "thread index 2^21",
	  { { CALL(FN_CLOSE, 1 << 21, 1, 0), S(3), END } }, 0, 0, "corrupt thread index" },
	{ "depth 2000",
	  { { CALL(FN_CLOSE, 0, 1, 2000), S(3), END } }, 0, 0, "corrupt call record" },
	{ "errno 5000",
	  { { B(TG_REC_CALL), U(FN_CLOSE), U(0), S(1), U(0), U(0), S(0), U(0), S(-1),
	      U(5000), S(3), END } }, 0, 0, "corrupt call record" },
	{ "missing arguments",
	  { { CALL(FN_CLOSE, 0, 1, 0), END } }, 0, 0, "corrupt call arguments" },
	{ "an IOV count larger than the frame",
	  { { CALL(FN_WRITEV, 0, 1, 0), S(3), U(1000), U(1), U(2), S(1000), END } }, 0, 0,
	  "corrupt call arguments" },
	{ "an IOV count of 2^63",
	  { { CALL(FN_WRITEV, 0, 1, 0), S(3), U(1ull << 63), S(1), END } }, 0, 0,
	  "corrupt call arguments" },
	{ "a STAT presence byte of 2",
	  { { CALL(FN_FSTAT, 0, 1, 0), S(3), U(2), S(1), U(0), END } }, 0, 0,
	  "corrupt call arguments" },
	{ "an unterminated varint in the arguments",
	  { { CALL(FN_CLOSE, 0, 1, 0), B(0x80), END } }, 0, 0, "corrupt call arguments" },
	{ "a string definition of id 0",
	  { { B(TG_REC_STR), U(0), U(1), B('a'), END } }, 0, 0, "corrupt string definition" },
	{ "a string definition longer than its frame",
	  { { B(TG_REC_STR), U(1), U(5), B('a'), END } }, 0, 0, "corrupt string definition" },
	{ "a string definition shorter than its frame",
	  { { B(TG_REC_STR), U(1), U(0), B('a'), END } }, 0, 0, "corrupt string definition" },
	{ "a string id of 2^28 + 1",
	  { { B(TG_REC_STR), U((1u << 28) + 1), U(1), B('a'), END } }, 0, 0,
	  "corrupt string definition" },
	{ "an empty RANK record",
	  { { B(TG_REC_RANK), END } }, 0, 0, "corrupt rank record" },
	{ "a RANK record without its world size",
	  { { B(TG_REC_RANK), S(3), END } }, 0, 0, "corrupt rank record" },
	{ "an empty EXCLUDED record",
	  { { B(TG_REC_EXCLUDED), END } }, 0, 0, "corrupt excluded record" },
	{ "seq deltas that overflow int64",
	  { { CALL(FN_CLOSE, 0, INT64_MIN, 0), S(3), END },
	    { CALL(FN_CLOSE, 0, INT64_MIN, 0), S(3), END },
	    { CALL(FN_CLOSE, 0, INT64_MAX, 0), S(3), END } }, 3, -1, NULL },
	{ "tstart deltas that wrap around",
	  { { B(TG_REC_CALL), U(FN_CLOSE), U(0), S(1), U(0), U(0), S(INT64_MIN), U(0),
	      S(0), U(0), S(3), END },
	    { B(TG_REC_CALL), U(FN_CLOSE), U(0), S(1), U(0), U(0), S(INT64_MIN), U(0),
	      S(0), U(0), S(3), END } }, 2, -1, NULL },
	{ "a REPEAT of a thread's last call",
	  { { CALL(FN_CLOSE, 0, 1, 0), S(3), END },
	    { B(TG_REC_REPEAT), U(0), U(1000), S(7), U(900), END },
	    { CALL(FN_CLOSE, 0, 1, 0), S(3), END } }, 3, -1, NULL },
	{ "bytes after a REPEAT's fields are ignored",
	  { { CALL(FN_CLOSE, 0, 1, 0), S(3), END },
	    { B(TG_REC_REPEAT), U(0), U(2), S(7), U(9), B(1), END } }, 2, -1, NULL },
	{ "a REPEAT before any call of its thread",
	  { { CALL(FN_CLOSE, 0, 1, 0), S(3), END },
	    { B(TG_REC_REPEAT), U(1), U(2), S(7), U(9), END } }, 1, 1,
	  "repeat record before any call of its thread" },
	{ "a REPEAT of no calls",
	  { { CALL(FN_CLOSE, 0, 1, 0), S(3), END },
	    { B(TG_REC_REPEAT), U(0), U(0), S(7), U(9), END } }, 1, 1,
	  "corrupt repeat record" },
	{ "a REPEAT without its span",
	  { { CALL(FN_CLOSE, 0, 1, 0), S(3), END },
	    { B(TG_REC_REPEAT), U(0), U(2), S(7), END } }, 1, 1, "corrupt repeat record" },
	{ "a REPEAT of thread index 2^21",
	  { { CALL(FN_CLOSE, 0, 1, 0), S(3), END },
	    { B(TG_REC_REPEAT), U(1 << 21), U(2), S(7), U(9), END } }, 1, 1,
	  "corrupt thread index" },
};

static void test_hand_made(void)
{
	static const struct tg_header h = { .rank = -1, .host = "h", .cwd = "/" };
	size_t i;

	for (i = 0; i < N(hand); i++) {
		struct tg_stream *s = tg_stream_mem_writer();
		struct tg_writer *w = tg_writer_open(s, &h);
		uint64_t offs[MAXF] = { 0 };
		unsigned char payload[256];
		char msg[256], want[64];
		const void *data;
		size_t len;
		int f, nrec, rc;

		for (f = 0; f < MAXF && hand[i].f[f][0].k; f++) {
			offs[f] = tg_stream_offset(s);
			tg_writer_frame(w, payload, build(payload, hand[i].f[f]));
		}
		tg_writer_close(w);
		data = tg_stream_mem_data(s, &len);
		rc = read_all(data, len, &nrec, msg, sizeof(msg));
		if (hand[i].bad < 0) {
			if (!ok(rc == 0 && nrec == hand[i].nrec, "read to the end: %s", hand[i].what))
				tap_diag("rc %d, %d records, \"%s\"", rc, nrec, msg);
		} else {
			snprintf(want, sizeof(want), "%s at byte %" PRIu64, hand[i].msg,
				 offs[hand[i].bad]);
			if (!ok(rc == -1 && nrec == hand[i].nrec && strstr(msg, want),
				"rejected: %s", hand[i].what))
				tap_diag("rc %d, %d records, \"%s\", want \"%s\"", rc, nrec, msg,
					 want);
		}
		tg_stream_close(s);
	}
}

/* A REPEAT names the call it repeats by its thread's last seq, starts
 * from that call's tstart without moving it, and survives the writer. */
static void test_repeat(void)
{
	static const struct tg_header h = { .rank = 3, .host = "h", .cwd = "/" };
	struct tg_rec c = cases[2].r, rp = { .type = TG_REC_REPEAT }, got[3];
	struct tg_stream *s = tg_stream_mem_writer(), *in;
	struct tg_writer *w = tg_writer_open(s, &h);
	struct tg_reader *r;
	const void *data;
	char msg[256];
	size_t len;
	int n = 0;

	c.tid = 1;
	c.seq = 40;
	c.tstart = 5000;
	rp.tid = 1;
	rp.repeat = 123456;
	rp.tstart = 5100;
	rp.dur = 77777;
	ok(tg_writer_put(w, &rp) == -1, "the writer refuses a REPEAT before its thread's first call");
	tg_writer_put(w, &c);
	ok(tg_writer_put(w, &rp) == 0, "the writer puts a REPEAT after it");
	c.seq = 41;
	c.tstart = 90000;
	tg_writer_put(w, &c);
	tg_writer_close(w);
	data = tg_stream_mem_data(s, &len);
	in = tg_stream_mem_reader(data, len);
	r = tg_reader_open(in, msg, sizeof(msg));
	while (r && n < 3 && tg_reader_next(r, &got[n]) == 1)
		n++;
	is_int(n, 3, "call, REPEAT, call read back");
	ok(n == 3 && got[1].type == TG_REC_REPEAT && got[1].tid == 1 && got[1].seq == 40 &&
		   got[1].repeat == 123456 && got[1].tstart == 5100 && got[1].dur == 77777,
	   "the REPEAT: thread 1, seq 40 (the call it repeats), count, start and span");
	ok(n == 3 && got[2].seq == 41 && got[2].tstart == 90000,
	   "the next call's seq and start are taken from the call before the REPEAT");
	tg_reader_free(r);
	tg_stream_close(in);
	tg_stream_close(s);
}

/* The last definition of a string is the one a later record sees. */
static void test_redefined_string(void)
{
	static const struct tok f[][16] = {
		{ B(TG_REC_STR), U(3), U(1), B('a'), END },
		{ B(TG_REC_STR), U(3), U(2), B('b'), B('c'), END },
		{ CALL(FN_OPEN, 0, 1, 0), U(3), U(0), U(0), END },
	};
	static const struct tg_header h = { .rank = -1, .host = "h", .cwd = "/" };
	struct tg_stream *s = tg_stream_mem_writer(), *in;
	struct tg_writer *w = tg_writer_open(s, &h);
	unsigned char payload[64];
	struct tg_reader *r;
	struct tg_rec rec;
	const void *data;
	char msg[256];
	size_t len, i;

	for (i = 0; i < N(f); i++)
		tg_writer_frame(w, payload, build(payload, f[i]));
	tg_writer_close(w);
	data = tg_stream_mem_data(s, &len);
	in = tg_stream_mem_reader(data, len);
	r = tg_reader_open(in, msg, sizeof(msg));
	ok(r && tg_reader_next(r, &rec) == 1 && rec.args[0].s &&
		   strcmp(rec.args[0].s, "bc") == 0,
	   "a redefined string id takes its last definition");
	tg_reader_free(r);
	tg_stream_close(in);
	tg_stream_close(s);
}

/* ---- windowed streams (the shim's mapped trace files) ------------------ */

/* Put a window frame of @size bytes at @b; returns its length. */
static size_t put_window(unsigned char *b, uint64_t size)
{
	unsigned char *p = b + 4;

	*p++ = TG_REC_WINDOW;
	p = tg_put_uvar(p, size);
	*p = '\n';
	tg_put_le32(b, (uint32_t)(p - b - 4));
	return (size_t)(p + 1 - b);
}

/* Put the frames @fr[@from, @to) of @src at @b, then a CHECK frame that
 * closes them; returns the bytes put. */
static size_t put_sealed(unsigned char *b, const unsigned char *src,
			 const struct frame *fr, size_t from, size_t to)
{
	size_t at = 0, i;

	for (i = from; i < to; i++) {
		size_t n = 4 + fr[i].len + 1;
		memcpy(b + at, src + fr[i].off, n);
		at += n;
	}
	return (size_t)(tg_check_put(b + at, b, at) - b);
}

static void test_windowed(void)
{
	struct frame fr[64];
	size_t len, hdr, nfr, half, at, w2, total;
	unsigned char *src = small_stream(&len), *b;
	int nrec, want, rc;
	char msg[256];

	nfr = walk(src, len, &hdr, fr, 64);
	nfr--;		/* the writer's CHECK frame: the windows have their own */
	want = records_before(fr, nfr);
	half = nfr / 2;
	/* header | zeros to 4096 | window of 8192: its WINDOW frame and CHECK,
	 * the first half of the frames and a CHECK, a record torn by a kill
	 * (zero length, some payload), zeros | a page of zeros (a window
	 * claimed but never begun) | window of 8192: the rest, then zeros to
	 * its end */
	total = 4096 + 8192 + 4096 + 8192;
	b = calloc(1, total);
	memcpy(b, src, hdr);
	b[10] = TG_HDR_WINDOWED;
	at = 4096 + put_window(b + 4096, 8192);
	at = (size_t)(tg_check_put(b + at, b + 4096, at - 4096) - b);
	at += put_sealed(b + at, src, fr, 0, half);
	memcpy(b + at + 4, "\x01\x07torn", 6);
	w2 = at = 4096 + 8192 + 4096;
	at += put_window(b + at, 8192);
	at = (size_t)(tg_check_put(b + at, b + w2, at - w2) - b);
	at += put_sealed(b + at, src, fr, half, nfr);
	rc = read_all(b, total, &nrec, msg, sizeof(msg));
	ok(rc == 0 && nrec == want,
	   "windowed: zeros skipped to the window end and to page boundaries, "
	   "a torn record dropped: %d of %d records, rc %d %s", nrec, want, rc, msg);
	rc = read_all(b, at, &nrec, msg, sizeof(msg));
	ok(rc == 0 && nrec == want, "windowed, cut after the last record: %d of %d", nrec, want);
	rc = read_all(b, at - TG_REC_CHECK_LEN, &nrec, msg, sizeof(msg));
	ok(rc == -1 && nrec == want &&
	   strstr(msg, "torn tail: 2 call records have no checksum, the first at byte"),
	   "windowed, cut before the last CHECK: %d of %d records, then a torn tail (%s)",
	   nrec, want, msg);
	rc = read_all(b, 4096 + 8192 + 100, &nrec, msg, sizeof(msg));
	ok(rc == 0 && nrec == records_before(fr, half),
	   "windowed, ending in padding: the first window's %d records, clean end (%d, rc %d)",
	   records_before(fr, half), nrec, rc);
	rc = read_all(b, 4096 + 8192 + 2, &nrec, msg, sizeof(msg));
	ok(rc == 0, "windowed, ending in two zero bytes: a clean end (rc %d %s)", rc, msg);
	b[4096 + 30] ^= 1;	/* a bit of the first window's second chunk */
	rc = read_all(b, total, &nrec, msg, sizeof(msg));
	ok(rc == -1 && nrec == 0 && strstr(msg, "checksum mismatch in the chunk at byte"),
	   "windowed, a bit flipped: none of the chunk's records, -1 (%d, %s)", nrec, msg);
	b[4096 + 30] ^= 1;
	b[10] = 0;
	rc = read_all(b, total, &nrec, msg, sizeof(msg));
	ok(rc == -1 && nrec == 0 && strstr(msg, "corrupt frame length at byte"),
	   "not windowed: zeros after the header are damage (%s)", msg);
	b[10] = TG_HDR_WINDOWED;
	tg_put_le32(b + 4096 + 5, 0);	/* the window's size varint is garbage now */
	b[4096 + 5] = 0xff;
	rc = read_all(b, total, &nrec, msg, sizeof(msg));
	ok(rc == -1 && strstr(msg, "at byte 4096"), "a corrupt window frame is damage (%s)", msg);
	free(b);
	free(src);
}

/* CRC-32C against its check value, in one piece and in pieces, and a
 * header whose bytes change: refused unless only the flags did. */
static void test_checksums(void)
{
	static const char nine[] = "123456789";
	unsigned char big[1000];
	size_t len, i, bad = 0;
	unsigned char *b = small_stream(&len);
	uint32_t whole;
	char msg[256];
	int nrec, rc;

	is_int((long long)tg_crc32c(0, nine, 9), 0xe3069283LL, "CRC-32C of \"123456789\"");
	is_int((long long)tg_crc32c(tg_crc32c(0, nine, 4), nine + 4, 5), 0xe3069283LL,
	       "CRC-32C in two pieces");
	for (i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 7 + 3);
	whole = tg_crc32c(0, big, sizeof(big));
	for (i = 0; i < 17; i++)	/* every alignment of the split */
		bad += tg_crc32c(tg_crc32c(0, big, i), big + i, sizeof(big) - i) != whole;
	is_int((long long)bad, 0, "CRC-32C split at any alignment");
	for (i = 12, bad = 0; i < 16 + tg_get_le32(b + 12); i++) {
		b[i] ^= 0x10;
		rc = read_all(b, len, &nrec, msg, sizeof(msg));
		if (rc != -2 && !(i >= 12 && i < 16 && rc == -1))
			bad++;
		b[i] ^= 0x10;
	}
	is_int((long long)bad, 0, "a bit flipped anywhere in the header: refused");
	b[10] ^= 0x80;
	ok(read_all(b, len, &nrec, msg, sizeof(msg)) == 0,
	   "flags are not in the header's CRC (compaction clears one)");
	free(b);
}

int main(void)
{
	resolve_cases();
	test_roundtrip();
	test_strings_interned();
	test_header_encode_cap();
	test_writer_errors();
	test_truncation();
	test_mutations();
	test_header_damage();
	test_checksums();
	test_hand_made();
	test_repeat();
	test_redefined_string();
	test_windowed();
	return tap_done();
}
