/*
 * calltab.h - the schema of every traced function: its fixed id, layer,
 * return kind and named, kinded arguments.  The table itself
 * (calltab.gen.c, funcid.gen.h) is generated from calls.tab by
 * shim/gen-calls.py, which also writes the shim's wrappers, so the shim and
 * the decoders can never disagree.
 */
#ifndef TG_CALLTAB_H
#define TG_CALLTAB_H

#include <stdint.h>

/*
 * Argument kinds: how a value is encoded in a record and printed.  The
 * numbers are not written to traces (a function id fixes its schema), but
 * keep them stable anyway.
 */
enum tg_kind {
	TG_K_VOID = 0,	 /* no value (return of void functions) */
	TG_K_INT,	 /* signed integer: zig-zag varint */
	TG_K_UINT,	 /* unsigned integer (sizes, counts): varint */
	TG_K_HEX,	 /* unsigned, printed in hex (prot, misc flags) */
	TG_K_FD,	 /* file descriptor: zig-zag; AT_FDCWD printed by name */
	TG_K_OFLAGS,	 /* open(2) flags: varint, printed O_A|O_B */
	TG_K_MODE,	 /* permission bits: varint, printed in octal */
	TG_K_STR,	 /* string: string id (0 = NULL) */
	TG_K_PATH,	 /* absolute path: string id (0 = NULL) */
	TG_K_STREAM,	 /* FILE *: symbolic id + 1 (0 = NULL), printed sN */
	TG_K_BUF,	 /* memory address: symbolic id (0 = NULL), printed bN */
	TG_K_DIR,	 /* DIR *: symbolic id (0 = NULL), printed dN */
	TG_K_WHENCE,	 /* SEEK_SET...: zig-zag, printed by name */
	TG_K_STAT,	 /* struct stat out: 0, or 1 + zig-zag size + varint mode */
	TG_K_IOV,	 /* iovec array: varint count, then a varint length each */
	TG_K_FCNTL,	 /* fcntl command: zig-zag, printed by name */
	TG_K_INTARR,	 /* int array: varint count, then zig-zag each */
	TG_K_SIGNED_OFF, /* file offset: zig-zag varint */
	TG_K_MPIH,	 /* MPI handle (argdesc.sub says which): varint, see
			  * tangram-rec(5): (id << 1) for objects the program
			  * made, (value << 1) | 1 for predefined ones */
	TG_K_MPIHARR,	 /* array of MPI handles: varint count, then each */
	TG_K_MPISTATUS,	 /* MPI_Status out: 0, or 1 + zig-zag source + zig-zag tag */
	TG_K_MPISTATUSES, /* varint count, then source and tag of each */
	TG_K_MPIIOSTATUS, /* MPI-IO status out: 0, or 1 + varint bytes moved */
	TG_K_COUNT
};

/* Which MPI handle a TG_K_MPIH / TG_K_MPIHARR argument is (argdesc.sub). */
enum tg_mpih {
	TG_H_NONE = 0, TG_H_COMM, TG_H_GROUP, TG_H_DTYPE, TG_H_REQ, TG_H_OP,
	TG_H_INFO, TG_H_FILE, TG_H_WIN, TG_H_ERRH, TG_H_MSG, TG_H_SESSION,
	TG_H_COUNT
};

enum tg_dir { TG_IN = 0, TG_OUT = 1, TG_INOUT = 2 };

struct tg_argdesc {
	const char *name;
	uint8_t kind;
	uint8_t dir;
	uint8_t sub;	/* enum tg_mpih for MPI handles */
};

struct tg_calldesc {
	uint16_t id;		/* fixed forever; written in every record */
	uint8_t layer;		/* enum tg_layer */
	uint8_t retkind;	/* enum tg_kind */
	uint8_t nargs;
	uint8_t retsub;		/* enum tg_mpih of the return value */
	const char *name;
	const struct tg_argdesc *args;
};

/* The schema of function @id, or NULL if unknown. */
const struct tg_calldesc *tg_call_lookup(unsigned id);

/* The schema of function @name, or NULL. */
const struct tg_calldesc *tg_call_byname(const char *name);

/* Calls the table knows about, and the largest id plus one. */
unsigned tg_call_count(void);
unsigned tg_call_idmax(void);

/* The nth known call (0 <= n < tg_call_count()), in id order. */
const struct tg_calldesc *tg_call_nth(unsigned n);

#endif
