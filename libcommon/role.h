/*
 * role.h - what a traced call did to files, read from its text record
 * (tangram-text(5)) through the roles the call tables give each function
 * (calltab.h: struct tg_iorole).  The analysis tools ask this, never the
 * function's name, so a new data call is one table row.
 */
#ifndef TG_ROLE_H
#define TG_ROLE_H

#include <stdint.h>

#include "calltab.h"
#include "textin.h"

/* The length of a handle key: "3" (a descriptor), "s4" (a stream), an MPI
 * file's symbolic id. */
#define TG_KEYLEN 24

/* One thing a call did (enum tg_io), with its values resolved. */
struct tg_ioact {
	uint8_t op;		/* enum tg_io */
	uint8_t off;		/* enum tg_off: where the bytes or the new
				 * position come from */
	uint8_t append;		/* open: O_APPEND, or an "a" mode; a write:
				 * pwritev2's RWF_APPEND; fcntl
				 * F_SETFL (op TG_IO_SETFL): O_APPEND */
	uint8_t trunc;		/* open: O_TRUNC, a "w" mode, creat */
	uint8_t creat;		/* open: O_CREAT, a "w" or "a" mode, creat:
				 * it may make the file it names */
	uint8_t excl;		/* open: O_EXCL, or a stdio mode with 'x':
				 * it fails if the name is there */
	uint8_t aio;		/* data: a POSIX AIO submission (TG_LEN_AIO);
				 * sync: aio_fsync's, its request in h2 */
	uint8_t eof;		/* data: a read that met the end of the file with
				 * nothing read, though its call counts as failed
				 * (fgets's NULL): placed over count bytes too */
	uint8_t all;		/* sync: of every descriptor and stream the
				 * process has open (sync()), not one handle */
	uint8_t cloexec;	/* open, dup: the new descriptor closes at an
				 * exec (O_CLOEXEC, a stdio mode with 'e',
				 * dup3's O_CLOEXEC, F_DUPFD_CLOEXEC);
				 * fcntl F_SETFD (op TG_IO_SETFD): the new
				 * value of FD_CLOEXEC */
	uint8_t remove;		/* look: the call removes the name (unlink) */
	uint8_t failed;		/* the call failed (MPI: did not return
				 * MPI_SUCCESS; others: returned < 0) */
	int64_t ret;		/* tg_io_ret() */
	char h[TG_KEYLEN];	/* the handle ("" for none, or a NULL stream) */
	char h2[TG_KEYLEN];	/* fdopen, dup: the handle it shares;
				 * POSIX AIO: the request ("tid:b3");
				 * reopen: the stream closed first */
	int64_t pos;		/* data: the offset (etypes for MPI-IO), -1 if
				 * the record lacks it; seek: the offset;
				 * truncate: the length; view: the disp;
				 * atomic: the flag */
	int64_t len;		/* data: the bytes; -1: count times the size
				 * of type dtype (MPI-IO without a status);
				 * an AIO submission: the bytes asked for */
	int64_t count;		/* data with len -1: the count; a read: what it
				 * asked for, when the role says (ret(A), status) */
	int whence;		/* seek: 0 SET, 1 CUR, 2 END, -1 unknown */
	const char *dtype;	/* data: the datatype; view: the etype */
	const char *ftype;	/* view: the filetype */
	const char *cmd;	/* fcntl: the command's name */
	int8_t lock;		/* lock: TG_LOCK_* (whence, pos and len give
				 * the range: len 0 is to the end of the file,
				 * negative the bytes before pos) */
	uint8_t lockclass;	/* lock: TG_LKC_*; locks of two classes never
				 * exclude each other */
	char *path;		/* open, reopen, truncate by path: absolute,
				 * malloc'd (the caller frees it); NULL for a
				 * directory or when the record has none */
};

/* What a lock action does (struct tg_ioact.lock). */
enum tg_lockop {
	TG_LOCK_NONE = -1,	/* nothing (F_GETLK, F_TEST, a failed call) */
	TG_LOCK_UN = 0,		/* releases the range */
	TG_LOCK_RD = 1,		/* a read (shared) lock on the range */
	TG_LOCK_WR = 2,		/* a write (exclusive) lock on the range */
};

/* Which locks exclude each other: fcntl's and lockf's record locks
 * (process-associated and open file description locks conflict with
 * one another), flock's whole-file locks (Linux keeps them apart). */
enum tg_lockclass { TG_LKC_POSIX = 0, TG_LKC_FLOCK = 1 };

/*
 * The return value of call line @t as a number: a stream "s4" is 4, NULL
 * and failed calls (errno=) are -1, "-" and any other id are 0.
 */
int64_t tg_io_ret(const struct tg_tline *t);

/* @s (a path of a record, or an MPI-IO file name when @mpiio: a "ufs:"
 * prefix names the driver) made absolute against @cwd (may be NULL);
 * malloc'd. */
char *tg_io_abspath(const char *s, const char *cwd, int mpiio);

/*
 * What call line @t of function @d did: fills @out[0 .. d->nio - 1] and
 * returns how many (0 if the call touches no file); failed calls are
 * returned too, marked, since some (close) still end a handle.  Relative MPI-IO file names are made
 * absolute against @cwd (may be NULL).  Returns -1 with a reason in
 * *@why if the record is malformed (a bad number where the role needs
 * one).
 */
int tg_io_actions(const struct tg_tline *t, const struct tg_calldesc *d, const char *cwd,
		  struct tg_ioact *out, const char **why);

#endif
