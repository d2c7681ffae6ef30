/*
 * calltab.h - the schema of every traced function: its fixed id, layer,
 * return kind and named, kinded arguments.  The table itself
 * (calltab.gen.c, funcid.gen.h) is generated from calls.tab by
 * shim/gen-calls.py, which also writes the shim's wrappers, so the shim and
 * the decoders can never disagree.
 */
#ifndef TG_CALLTAB_H
#define TG_CALLTAB_H

#include <stddef.h>
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
	TG_K_FLOCK,	 /* struct flock in or out: varint 0 (none), or 5 and
			  * zig-zag l_type, l_whence, l_start, l_len, l_pid */
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

/*
 * Roles: what a call does, as the analysis tools need it.  Written in the
 * call tables' options (see calls.tab), generated into calltab.gen.c, and
 * read through role.h, so no tool decides what a call does by its name.
 */

/* What a call does to files (struct tg_iorole.op). */
enum tg_io {
	TG_IO_NONE = 0,
	TG_IO_READ,	/* bytes from handle h at off, len */
	TG_IO_WRITE,	/* bytes to handle h at off, len */
	TG_IO_OPEN,	/* a: path, b: flags or mode; the new handle is h */
	TG_IO_REOPEN,	/* the same, and handle c is closed first */
	TG_IO_FDOPEN,	/* the new handle h shares the description of a */
	TG_IO_CLOSE,	/* handle h: commit, close, forget it */
	TG_IO_DUP,	/* handle h (or the return value) shares a's description */
	TG_IO_FCNTL,	/* a: command, b: argument (F_DUPFD: a dup) */
	TG_IO_SEEK,	/* h's position: off (TG_OFF_RET: the return value),
			 * b: whence (none: SEEK_SET), c: the position
			 * after the call, where recorded (>= 0) */
	TG_IO_REWIND,	/* h's position: 0 */
	TG_IO_SYNC,	/* h's data committed (a NULL stream: every stream) */
	TG_IO_TRUNCATE,	/* h (a descriptor, path or MPI file) cut to a bytes */
	TG_IO_VIEW,	/* MPI file h: a disp, b etype, c filetype */
	TG_IO_FORK,	/* the child inherits the descriptors */
	TG_IO_UNPLACED,	/* moves bytes the record cannot place (mmap, fputs) */
	TG_IO_LOCK,	/* a record lock on handle h: a is the command, the
			 * range is off (enum tg_off: TG_OFF_ARG a struct
			 * flock in offarg, TG_OFF_POS lenarg bytes from the
			 * position (lockf), TG_OFF_NONE the whole file) */
	TG_IO_ATOMIC,	/* MPI file h: atomic mode set to argument a (0 or 1) */
	TG_IO_AIODONE,	/* POSIX AIO request a (an aiocb's id) finished,
			 * having moved the return value's bytes */
	TG_IO_EXEC,	/* a new program image: the descriptors live on */
	TG_IO_SETFD,	/* (from fcntl F_SETFD, not in the tables) h's
			 * close-on-exec flag set or cleared */
	TG_IO_SETFL,	/* (from fcntl F_SETFL) h's description is in
			 * append mode or not */
	TG_IO_SIZE,	/* h's (a descriptor or MPI file) size seen:
			 * a (a stat's size:, an integer or the return value)
			 * less argument b if any; only when argument c, if
			 * any, is SEEK_END */
	TG_IO_BUFFER,	/* stream h's buffering: a, setvbuf's mode
			 * (_IOFBF 0, _IOLBF 1, _IONBF 2), in pos */
	TG_IO_LOOK,	/* path h looked up (access): there or not */
	TG_IO_LOAD,	/* path h read whole, pos bytes, through a descriptor
			 * of the call's own (dlopen: the dynamic loader's) */
	TG_IO_MKDIR,	/* path h made a directory (mkdir): a name the paths
			 * of other calls go through */
	TG_IO_MAKE,	/* path h made, a name that was not there (link,
			 * symlink: they fail if it is) */
	TG_IO_SPAWN,	/* a child process started: its pid in pos (-1: the
			 * child that started while the call ran), or h a
			 * stream to it (popen) */
	TG_IO_REAP,	/* a child's end waited for: its pid in pos, or h
			 * the stream its spawn made (pclose), or pos -1
			 * and h "": the call's own spawn's child (system) */
	TG_IO_COUNT
};

/* Where the bytes of a data call start (struct tg_iorole.off). */
enum tg_off {
	TG_OFF_NONE = 0,
	TG_OFF_POS,	/* the handle's position, which moves past them */
	TG_OFF_ARG,	/* argument offarg; -1 there means TG_OFF_POS */
	TG_OFF_RET,	/* the return value (a seek's new position) */
	TG_OFF_AT,	/* MPI-IO: argument offarg, in etypes, through the view */
	TG_OFF_IND,	/* MPI-IO: the individual pointer before the call
			 * (argument offarg), which moves past them */
	TG_OFF_SHARED,	/* MPI-IO: the shared pointer before (offarg) */
	TG_OFF_ORDERED,	/* MPI-IO: ordered by rank, ending where the shared
			 * pointer stands after the call (offarg) */
};

/* How many bytes a data call moved (struct tg_iorole.len). */
enum tg_len {
	TG_LEN_NONE = 0,
	TG_LEN_RET,	/* the return value */
	TG_LEN_RET_TIMES, /* the return value times argument lenarg (fread) */
	TG_LEN_ONE,	/* one byte if the call succeeded (fputc) */
	TG_LEN_STATUS,	/* MPI-IO: the status's bytes, else argument lenarg
			 * (a count) times the size of argument c (a type) */
	TG_LEN_AIO,	/* POSIX AIO submitted: at most argument lenarg
			 * bytes, as request a (an aiocb's id); how many
			 * moved comes with its TG_IO_AIODONE */
	TG_LEN_ARG,	/* argument lenarg (fputs: the string's length, a
			 * pseudo-argument); absent, the bytes are unplaced */
};

/* An argument index in a role: the return value, or none. */
#define TG_ARG_RET (-1)
#define TG_ARG_NONE (-2)

struct tg_iorole {
	uint8_t op;		/* enum tg_io */
	uint8_t off;		/* enum tg_off */
	uint8_t len;		/* enum tg_len */
	int8_t h;		/* the handle: an argument index or TG_ARG_* */
	int8_t a, b, c;		/* further arguments, by op (see enum tg_io) */
	int8_t offarg, lenarg;	/* the arguments off and len name */
	uint8_t flags;		/* TG_IOF_* */
};

#define TG_IOF_TRUNC 1	/* an open that always truncates (creat) */
#define TG_IOF_LINE 2	/* a read of a line (getline): -1 met the end of the
			 * file, where it asked for at least a byte */
#define TG_IOF_REMOVE 4	/* a look by a call that removes the name (unlink):
				 * one that found nothing is no wait for it */

/* What an MPI call means for the happens-before graph (paper 000). */
enum tg_mk {
	TG_MK_OTHER = 0, TG_MK_SEND, TG_MK_ISEND, TG_MK_SEND_INIT, TG_MK_RECV,
	TG_MK_IRECV, TG_MK_RECV_INIT, TG_MK_SENDRECV, TG_MK_ISENDRECV,
	TG_MK_MPROBE, TG_MK_IMPROBE, TG_MK_START, TG_MK_STARTALL, TG_MK_WAIT,
	TG_MK_WAITALL, TG_MK_WAITANY, TG_MK_WAITSOME, TG_MK_TEST, TG_MK_TESTALL,
	TG_MK_TESTANY, TG_MK_TESTSOME, TG_MK_GETSTATUS, TG_MK_REQFREE,
	TG_MK_COLL, TG_MK_ICOLL, TG_MK_COLL_INIT, TG_MK_CREATE, TG_MK_ICREATE,
	TG_MK_NEWCREATE, TG_MK_FOPEN, TG_MK_FCLOSE, TG_MK_FCOLL, TG_MK_FICOLL,
	TG_MK_FBEGIN, TG_MK_FEND, TG_MK_INERT, TG_MK_INERT_INIT, TG_MK_FINALIZE,
	TG_MK_WOPEN,	/* makes a window (collective on comm) */
	TG_MK_WFENCE,	/* MPI_Win_fence: ends a fence epoch, starts one */
	TG_MK_WEPOCH,	/* opens (TG_MF_OPEN) or closes a lock or access epoch */
	TG_MK_RMA,	/* a one-sided operation: TG_MF_PUT, TG_MF_GET or both */
	TG_MK_PREADY,	/* partitions of a partitioned send made ready */
	TG_MK_PARRIVED,	/* has a partition of a partitioned receive arrived */
	TG_MK_GROUP,	/* makes a group (MPI_Comm_group, MPI_Group_incl...) */
	TG_MK_WPOST,	/* MPI_Win_post: opens an exposure epoch to a group */
	TG_MK_WWAIT,	/* MPI_Win_wait, MPI_Win_test: ends the exposure epoch */
	TG_MK_WFLUSH,	/* MPI_Win_flush and the like: completes passive-target operations */
	TG_MK_COUNT
};

/* How a collective orders its members (struct tg_hbrole.order). */
enum tg_order {
	TG_ORD_NONE = 0, /* no order (neighbourhood collectives) */
	TG_ORD_ALL,	/* everyone's start before everyone's end; on an
			 * intercommunicator, each group's before the other's */
	TG_ORD_SYNC,	/* everyone's before everyone's, both groups alike */
	TG_ORD_ROOT,	/* the root's start before the others' ends */
	TG_ORD_TOROOT,	/* the others' starts before the root's end */
	TG_ORD_SCAN,	/* ranks 0..i before rank i's end */
	TG_ORD_EXSCAN,	/* ranks 0..i-1 before rank i's end */
};

#define TG_MF_SYNC 1	/* a synchronous send: completes after the receive started */
#define TG_MF_READY 2	/* a ready send: the receive was posted before */
#define TG_MF_PUT 8	/* a one-sided operation that writes the target's window */
#define TG_MF_GET 16	/* one that reads it */
#define TG_MF_OPEN 32	/* MPI_Win_lock, _lock_all, _start (else _unlock...) */

struct tg_hbrole {
	uint8_t kind;		/* enum tg_mk */
	uint8_t order;		/* enum tg_order */
	uint8_t flags;		/* TG_MF_* */
	int8_t comm;		/* the communicator argument, or TG_ARG_NONE */
	int8_t root;		/* the root argument, or TG_ARG_NONE */
};

enum tg_dir { TG_IN = 0, TG_OUT = 1, TG_INOUT = 2 };

struct tg_argdesc {
	const char *name;
	uint8_t kind;
	uint8_t dir;
	uint8_t sub;	/* enum tg_mpih for MPI handles, tg_hidzero,
			 * tg_dims, tg_enum for HDF5 kinds */
	uint8_t appended;	/* added to the schema after streams were
				 * written without it: a record that ends
				 * before it has it absent (-1), and so has
				 * a .cfg of a version before this one
				 * (5 for the first such arguments) */
	uint8_t pseudo;	/* not a parameter: a value the tracer reads
			 * before or after the call (calls.tab: pre,
			 * post, prefd, postfd...) */
};

struct tg_calldesc {
	uint16_t id;		/* fixed forever; written in every record */
	uint8_t layer;		/* enum tg_layer */
	uint8_t retkind;	/* enum tg_kind */
	uint8_t nargs;
	uint8_t retsub;		/* argdesc.sub of the return value */
	uint8_t nio;		/* roles in io (copy_file_range has two) */
	const char *name;
	const struct tg_argdesc *args;
	const struct tg_iorole *io;	/* NULL if none */
	const struct tg_hbrole *hb;	/* NULL if none */
};

/* The schema of function @id, or NULL if unknown. */
const struct tg_calldesc *tg_call_lookup(unsigned id);

/* The schema of function @name, or NULL; the same for the @n bytes at
 * @name (not NUL-terminated). */
const struct tg_calldesc *tg_call_byname(const char *name);
const struct tg_calldesc *tg_call_byname_n(const char *name, size_t n);
/* The number of @d's argument called @name, or -1. */
int tg_call_argno(const struct tg_calldesc *d, const char *name);

/* Calls the table knows about, and the largest id plus one. */
unsigned tg_call_count(void);
unsigned tg_call_idmax(void);

/* The nth known call (0 <= n < tg_call_count()), in id order. */
const struct tg_calldesc *tg_call_nth(unsigned n);

#endif
