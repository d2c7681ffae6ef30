/*
 * posix-int.h - inside libtfs-posix.so: what the exec and posix_spawn
 * emulation (spawn.c) uses of the descriptor table and the client of the
 * POSIX layer (posix.c), and what posix.c calls of spawn.c.  Not
 * installed, not exported: every name here is hidden, and none matches
 * the version script's patterns.
 */
#ifndef TFS_POSIX_INT_H
#define TFS_POSIX_INT_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "tfs.h"

/* A wrapper the version script exports. */
#define EXPORT __attribute__((visibility("default")))

/* The next definition of a call (the C library's), resolved once. */
#define REAL(name) static __typeof__(name) *real_##name
#define RESOLVE(name) \
	do { if (!real_##name) real_##name = dlsym(RTLD_NEXT, #name); } while (0)

#define MAXFD 65536	/* descriptors the table maps */
#define NSLOTS 65536	/* slots in the offsets' memory file */

/* An open file on TangramFS, shared by the descriptors dup'd from it. */
struct ofd {
	tfs_file_t *h;
	char *rel;		/* its path below the mount, for exec */
	uint64_t pos;		/* the offset, when it has no slot */
	uint32_t slot;		/* its offset's slot in offs[], or 0 */
	int shared;		/* the slot may be another process's too */
	atomic_int stale;	/* inherited across fork: h is the parent's */
	int flags;		/* open(2) flags */
	int refs;		/* descriptors sharing it */
	atomic_int rlocked;	/* this process took a record lock of it (fcntl) */
	pthread_mutex_t lock;
};

#pragma GCC visibility push(hidden)

/* The descriptor table: fdtab[fd] is @fd's open file or NULL; tab_lock
 * guards the references, the slots and the shared marks. */
extern struct ofd *_Atomic fdtab[MAXFD];
extern atomic_int fdtop;	/* above every descriptor fdtab has held */
extern pthread_mutex_t tab_lock;

/* Raised around every call libtfs itself makes: the wrappers pass those
 * through. */
extern __thread int in_tfs __attribute__((tls_model("initial-exec")));

/*
 * KEEP_ERRNO(call): @call's result, errno as it was before it when it
 * succeeds (a result >= 0), as the C library's own calls leave it.
 * libtfs tries things that may fail on the way to a success (the backing
 * file a new file does not have yet: ENOENT), and programs read errno
 * after calls that succeeded: netCDF-3 zeroes it, reads, and takes a
 * short read with errno set for an error.
 */
#define KEEP_ERRNO(call) ({					\
	int keep_e_ = errno;					\
	__typeof__(call) keep_r_ = (call);			\
	if (keep_r_ >= 0)					\
		errno = keep_e_;				\
	keep_r_;						\
})

extern size_t mountlen;		/* of TFS_MOUNT; 0 when it is not set */

/* The offsets' memory file (see posix.c): its slots when mapped, and its
 * descriptor. */
extern _Atomic uint64_t *offs;
extern int offs_fd;

extern atomic_int exit_registered;	/* at_exit() is registered */
extern atomic_int client_pid;	/* the process whose TangramFS client this is */

/* @fd's open file, or NULL when @fd is not a TangramFS descriptor. */
struct ofd *ofd_get(int fd);

/* Register @fd for @o, taking a reference. */
void ofd_put(int fd, struct ofd *o);

/* When @path (relative to @dirfd) is under the mount, put the part below
 * it in @rel ("" for the mount itself) and return 1; 0 for any other
 * path, -1 (errno) when it cannot be resolved. */
int mount_path(int dirfd, const char *path, char *rel, size_t rellen);

/* Open @rel (below the mount) with open(2) @flags on TangramFS, as a new
 * descriptor; @orig names it in a warning.  The descriptor, or -1 (errno). */
int mount_openfd(const char *rel, int flags, const char *orig);
/* mount_openfd with open(2)'s @mode for a file it creates (0666 above). */
int mount_openfd_mode(const char *rel, int flags, mode_t mode, const char *orig);

/* After a TangramFS descriptor became @fd: a standard stream on it. */
void std_take(int fd);

/* Map the offsets' memory file @fd; 0 or -1. */
int offs_map(int fd);

/* 1 while offs_fd is still the offsets' memory file. */
int offs_ok(void);

/* The offset of @o. */
uint64_t pos_get(struct ofd *o);

/* Start this process's TangramFS client, once; with in_tfs raised. */
void client_start(void);

/* The TFS_O_* flags of the consistency model every handle opens with
 * (TFS_O_SESSION under session). */
unsigned model_flags(void);

/* Say, once per process, that @what failed (errno). */
void warn_once(const char *what);

/* Close every TangramFS descriptor and end the client, as exit(2) would. */
void at_exit(void);

/* spawn.c: in a new image, open again the descriptors that TFS_INHERIT
 * names (the constructor calls it once). */
void inherit(void);

#pragma GCC visibility pop

#endif
