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
	TG_K_HID,	 /* HDF5 identifier: varint, see tangram-rec(5): 0 for
			  * 0, (n << 1) | 1 for predefined identifier n (0: an
			  * invalid one), ((id << 7 | H5I type) << 1) for the
			  * program's; argdesc.sub names 0 (enum tg_hidzero) */
	TG_K_HSIZEARR,	 /* hsize_t / hssize_t array: varint 0 for NULL, else
			  * count + 1, then zig-zag each (enum tg_dims) */
	TG_K_ENUM,	 /* named constant: zig-zag varint, printed from the
			  * table argdesc.sub names (enum tg_enum) */
	TG_K_COUNT
};

/* Which MPI handle a TG_K_MPIH / TG_K_MPIHARR argument is (argdesc.sub). */
enum tg_mpih {
	TG_H_NONE = 0, TG_H_COMM, TG_H_GROUP, TG_H_DTYPE, TG_H_REQ, TG_H_OP,
	TG_H_INFO, TG_H_FILE, TG_H_WIN, TG_H_ERRH, TG_H_MSG, TG_H_SESSION,
	TG_H_COUNT
};

/* What the value 0 of a TG_K_HID argument is called (argdesc.sub). */
enum tg_hidzero { TG_HZ_NONE = 0, TG_HZ_PLIST, TG_HZ_SPACE, TG_HZ_ESTACK };

/* A TG_K_HSIZEARR of hsize_t, where -1 is H5S_UNLIMITED, or of hssize_t. */
enum tg_dims { TG_DIMS_SIGNED = 0, TG_DIMS_HSIZE = 1 };

/* Which table names a TG_K_ENUM argument (argdesc.sub); the tables are in
 * h5names.gen.c.  Append only. */
enum tg_enum {
	TG_E_NONE = 0, TG_E_H5F_ACC, TG_E_H5F_SCOPE, TG_E_H5F_CLOSE,
	TG_E_H5F_LIBVER, TG_E_H5F_FSPACE, TG_E_H5S_CLASS, TG_E_H5S_SELOP,
	TG_E_H5S_SELTYPE, TG_E_H5T_CLASS, TG_E_H5T_ORDER, TG_E_H5T_SIGN,
	TG_E_H5T_STR, TG_E_H5T_CSET, TG_E_H5T_PAD, TG_E_H5T_NORM, TG_E_H5T_DIR,
	TG_E_H5D_LAYOUT, TG_E_H5D_ALLOC, TG_E_H5D_FILLTIME, TG_E_H5D_FILLVAL,
	TG_E_H5D_SPACE_STATUS, TG_E_H5FD_XFER, TG_E_H5FD_COLLOPT,
	TG_E_H5FD_CHUNKOPT, TG_E_H5D_MPIO_IO, TG_E_H5D_MPIO_CHUNK,
	TG_E_H5I_TYPE, TG_E_H5_INDEX, TG_E_H5_ITER,
	TG_E_COUNT
};

enum tg_dir { TG_IN = 0, TG_OUT = 1, TG_INOUT = 2 };

struct tg_argdesc {
	const char *name;
	uint8_t kind;
	uint8_t dir;
	uint8_t sub;	/* enum tg_mpih for MPI handles, tg_hidzero,
			 * tg_dims, tg_enum for HDF5 kinds */
};

struct tg_calldesc {
	uint16_t id;		/* fixed forever; written in every record */
	uint8_t layer;		/* enum tg_layer */
	uint8_t retkind;	/* enum tg_kind */
	uint8_t nargs;
	uint8_t retsub;		/* argdesc.sub of the return value */
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
