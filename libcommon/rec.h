/*
 * rec.h - the raw record stream (.rec), as specified in tangram-rec(5).
 *
 *   header:  magic "\x89TGREC\r\n" (8 bytes), le16 version, le16 flags,
 *            le32 length L, then L bytes of header fields: le32 rank (-1
 *            until known), le32 world size (0 until known) -- fixed so the
 *            shim can patch them in place at MPI_Init -- then varints and
 *            length-prefixed strings (see struct tg_header); fields a
 *            reader does not know are at the end and are skipped by L.
 *            Version 2 adds after world a le32 CRC-32C of the header
 *            (tg_header_crc()), which the shim rewrites with the rank.
 *   frames:  le32 payload length N (1 <= N <= TG_FRAME_MAX), N payload
 *            bytes, one byte '\n'.  A frame whose length is out of range or
 *            whose closing byte is not '\n' ends the readable stream.
 *   chunks:  (version 2) frames run in chunks, each closed by a CHECK frame
 *            holding the CRC-32C of the chunk's bytes; a reader hands out a
 *            chunk's records only once its CHECK matched, and reports the
 *            records after the last CHECK as a torn tail.
 *   payload: first byte the record type (enum tg_rectype); unknown types are
 *            skipped whole, and so are calls of unknown function ids; bytes
 *            after a call's known arguments (appended by a newer schema)
 *            are ignored.
 *
 * A reader owns every string it hands out; a record returned by
 * tg_reader_next() stays valid until the next call.
 */
#ifndef TG_REC_H
#define TG_REC_H

#include <stddef.h>
#include <stdint.h>

#include "calltab.h"
#include "varint.h"

struct tg_stream;

#define TG_REC_MAGIC "\x89TGREC\r\n"
#define TG_REC_MAGIC_LEN 8
#define TG_REC_VERSION 2
/* Byte offset of the rank field in a stream (le32), for in-place patching;
 * world follows, then (version 2) the header CRC: 12 bytes patched at once. */
#define TG_REC_RANK_OFFSET 16
#define TG_REC_HCRC_OFFSET 24
/* A CHECK frame: length, type, le32 CRC, newline. */
#define TG_REC_CHECK_LEN 10
#define TG_FRAME_MAX (16u << 20)
#define TG_MAX_ARGS 24

/* Record types: the first payload byte.  Fixed forever, append only. */
enum tg_rectype {
	TG_REC_CALL = 1,	/* a traced call */
	TG_REC_STR = 2,		/* string definition: id, length, bytes */
	TG_REC_RANK = 3,	/* MPI rank and world size became known */
	TG_REC_EXCLUDED = 4,	/* running count of calls left out by TANGRAM_EXCLUDE */
	TG_REC_COMM = 5,	/* a communicator's members, in world ranks */
	TG_REC_TYPE = 6,	/* a derived datatype's constructor */
	TG_REC_WINDOW = 7,	/* a window of a mapped stream starts: its size */
	TG_REC_INFO = 8,	/* an MPI_Info's key/value pairs (TANGRAM_INFO=1) */
	TG_REC_CLOCK = 9,	/* clocks aligned in MPI_Init (TANGRAM_CLOCK_SYNC=1) */
	TG_REC_CHECK = 10,	/* (version 2) closes a chunk: CRC-32C of its bytes */
	TG_REC_REPEAT = 11,	/* the thread's last call repeated: tid, count,
				 * start of the first, end of the last */
	TG_REC_END = 12,	/* the image ended here (exit, exec, a fatal
				 * signal): how (enum tg_endhow), the signal */
};

/* How an image ended (TG_REC_END). */
enum tg_endhow {
	TG_END_EXIT = 0,	/* exit, _exit, MPI_Abort, the end of main */
	TG_END_EXEC = 1,	/* an exec (records follow if it failed) */
	TG_END_SIGNAL = 2,	/* a fatal signal the tracer caught */
};

/* Header flags. */
#define TG_HDR_WINDOWED 1u	/* written through windows: zeros are padding */
#define TG_HDR_STOPPED 2u	/* the tracer stopped before its process ended */
#define TG_HDR_ENDS 4u		/* the writer ends the stream with an END
				 * record unless it is windowed: one that does
				 * not was cut short */
/* In a windowed stream, zeros outside any window run to a multiple of this. */
#define TG_REC_PAD 4096u

struct tg_header {
	int version;
	unsigned flags;		/* TG_HDR_* */
	int64_t rank;		/* -1 until known (see TG_REC_RANK) */
	uint64_t world;		/* 0 until known */
	uint64_t pid, ppid;
	uint64_t clock_base;	/* CLOCK_REALTIME ns at time zero of the stream */
	char *host;
	char *cwd;
	int argc;
	char **argv;
	uint64_t run;		/* which run into one trace directory: 1 for the
				 * first (and 0, read as 1), 2 for the next... */
	int run_wide;		/* encode: the run in 3 bytes, even the first's,
				 * so that it can be rewritten in place */
};

/* One decoded argument value; which fields are set depends on the kind. */
struct tg_val {
	int64_t i;		/* integers, ids, stat size, array count */
	uint64_t u;		/* stat mode */
	const char *s;		/* STR, PATH: the string, NULL for NULL */
	const int64_t *arr;	/* IOV, INTARR: i elements */
	int present;		/* STAT: 0 if the call failed */
};

struct tg_rec {
	int type;		/* enum tg_rectype */
	const struct tg_calldesc *call;	/* CALL */
	unsigned func;
	unsigned tid;
	uint64_t seq;		/* per stream, in the order calls started */
	unsigned depth;		/* 0 for calls made directly by the program */
	int64_t parent;		/* seq of the enclosing traced call, or -1 */
	uint64_t tstart;	/* ns since the header's clock_base */
	uint64_t dur;		/* ns */
	int64_t ret;
	int err;		/* errno when the call failed, else 0 */
	struct tg_val args[TG_MAX_ARGS];	/* CALL; COMM: id, members, remote
					 * (i = -1 if not an intercomm); TYPE:
					 * id, combiner, ints, aints, types */
	int64_t rank;		/* RANK */
	uint64_t world;		/* RANK */
	uint64_t excluded;	/* EXCLUDED */
	const char **kv;	/* INFO: args[1].i pairs, key then value */
	uint64_t sync_t;	/* CLOCK: ns after time zero the ranks were aligned */
	uint64_t sync_base;	/* CLOCK: rank 0's CLOCK_REALTIME ns at that moment */
	uint64_t repeat;	/* REPEAT: how many calls were folded (>= 1); tid,
				 * seq (the call they repeat), tstart (the first's
				 * start) and dur (to the last's end) are set */
};

/* Whether call record @r is one the program made: at depth 0, or inside a
 * call the tracer does not see (depth > 0 with no parent: the calls HDF5
 * linked into the program makes, recorded as made inside an HDF5 call). */
static inline int tg_rec_top(const struct tg_rec *r)
{
	return r->depth == 0 || r->parent < 0;
}

struct tg_reader;

/*
 * Read the header from @s.  Returns a reader, or NULL with a one-line
 * message in @err (not a Tangram stream, short or corrupt header, unsupported
 * version, out of memory).  The reader does not own @s.
 */
struct tg_reader *tg_reader_open(struct tg_stream *s, char *err, size_t errlen);

const struct tg_header *tg_reader_header(const struct tg_reader *r);

/*
 * Decode the next record into *@out.  Returns 1, 0 at a clean end of stream,
 * or -1 on damage: tg_reader_error() then says what and where.  String
 * definitions are absorbed; unknown record types are skipped.  Version 2:
 * the records of a chunk come only once its CRC matched (a mismatch is
 * damage, and none of them come); records no CHECK frame closes come too,
 * and then -1 at the end of the stream says "torn tail" and where they
 * begin.
 */
int tg_reader_next(struct tg_reader *r, struct tg_rec *out);

/* Records skipped because their function is unknown to this reader (written
 * by a newer tracer). */
uint64_t tg_reader_skipped(const struct tg_reader *r);

/* "what went wrong at byte N" after tg_reader_next() returned -1. */
const char *tg_reader_error(const struct tg_reader *r);

/* After tg_reader_next() returned -1: 1 when the records were sound but
 * the stream is not the whole of its process's calls (the tracer stopped,
 * or a stream that should end in an END record does not), else 0. */
int tg_reader_incomplete(const struct tg_reader *r);

void tg_reader_free(struct tg_reader *r);

/* Does @buf (of @len bytes) start with the .rec magic? */
int tg_rec_is_magic(const void *buf, size_t len);

/*
 * Encode @h as the stream header into @buf (at most @cap bytes).  Returns
 * the length, or 0 if it does not fit.  Used by the shim (no allocation, no
 * I/O) and by tests.
 */
size_t tg_header_encode(const struct tg_header *h, unsigned char *buf, size_t cap);

/*
 * The CRC-32C (Castagnoli) of @n bytes at @p, continuing from @crc (0 to
 * start).  Uses the CPU's crc32 instruction where there is one.
 */
uint32_t tg_crc32c(uint32_t crc, const void *p, size_t n);

/*
 * The CRC of the version-2 header of @len bytes at @hdr: tg_crc32c() of
 * it with the flags (bytes 10-11) and the CRC field itself taken as zero.
 */
uint32_t tg_header_crc(const unsigned char *hdr, size_t len);

/*
 * Write the CHECK frame that closes the chunk of @n bytes at @chunk into
 * @out (TG_REC_CHECK_LEN bytes, which may follow the chunk directly).
 * Returns the byte after it.
 */
unsigned char *tg_check_put(unsigned char *out, const unsigned char *chunk, size_t n);

/* Free what @h owns (host, cwd, argv) and leave it empty. */
void tg_header_release(struct tg_header *h);

/* A thread's bases in a stream: each call record carries its seq and start
 * time as deltas from the thread's previous call. */
struct tg_recbase {
	int64_t seq;		/* -1 before the thread's first call */
	uint64_t t;
};

/* Most bytes tg_call_head_put() writes. */
#define TG_CALL_HEAD_MAX (1 + 9 * TG_VARINT_MAX)

/*
 * Encode the head of a call record at @p (room for TG_CALL_HEAD_MAX bytes):
 * the type byte, then function, thread, seq, depth, parent + 1, start,
 * duration, return value and errno as tangram-rec(5) says, seq and start
 * against the thread's bases @b, which move to this call.  Returns the byte
 * after.  The tracer and tg_writer_put() both write heads with it; inline
 * because the tracer does on every call.
 */
static inline unsigned char *tg_call_head_put(unsigned char *p, struct tg_recbase *b,
					      unsigned func, unsigned tid, uint64_t seq,
					      unsigned depth, int64_t parent, uint64_t tstart,
					      uint64_t dur, int64_t ret, int err)
{
	*p++ = TG_REC_CALL;
	p = tg_put_uvar(p, func);
	p = tg_put_uvar(p, tid);
	p = tg_put_svar(p, (int64_t)seq - b->seq);
	b->seq = (int64_t)seq;
	p = tg_put_uvar(p, depth);
	p = tg_put_uvar(p, (uint64_t)(parent + 1));
	p = tg_put_svar(p, (int64_t)(tstart - b->t));
	b->t = tstart;
	p = tg_put_uvar(p, dur);
	p = tg_put_svar(p, ret);
	return tg_put_uvar(p, (uint64_t)err);
}

/*
 * A writer produces the same frames the shim does, from decoded records; it
 * is what tests and trace-gen use to make streams.  Strings are interned and
 * defined in-band before first use.
 */
struct tg_writer;

struct tg_writer *tg_writer_open(struct tg_stream *s, const struct tg_header *h);

/* Append a call record (type CALL), or a RANK / EXCLUDED definition. */
int tg_writer_put(struct tg_writer *w, const struct tg_rec *rec);

/* Append raw frame payload bytes (used to make corrupt test inputs). */
int tg_writer_frame(struct tg_writer *w, const void *payload, size_t len);

/* Close the last chunk with a CHECK frame and free the writer (the stream
 * stays open).  Returns 0 or -1 if any write failed.  The writer closes a
 * chunk every 64 KiB of frames too. */
int tg_writer_close(struct tg_writer *w);

#endif
