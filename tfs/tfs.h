/*
 * tfs.h - the TangramFS client API (tfs(3)).
 *
 * The core primitives (dissertation Table 5.1) and the synchronisation
 * primitives (Table 5.4), with the contracts stated there; a few extensions
 * marked below, which the POSIX layer (libtfs-posix(7)) needs.
 *
 * Ownership: a tfs_file_t belongs to the caller from tfs_open() until
 * tfs_close(), which frees it whatever it returns.  The owners array of
 * tfs_query() and tfs_query_file() is one malloc(3) block that the caller
 * frees with free(3).  Every function returning int or ssize_t returns -1
 * with errno set on error; a server that does not answer within
 * TFS_TIMEOUT seconds gives ETIMEDOUT, a server that is gone gives
 * ECONNRESET or EPIPE, never a hang.
 *
 * Paths name files in the TangramFS namespace: "a/b" and "/a/b" are the same
 * file, which is TFS_PFS_DIR/a/b once flushed.  A ".." component is refused
 * (EACCES).  The library is thread-safe; a handle is not shared between
 * threads without the caller's locking (it holds one file position).
 */
#ifndef TFS_H
#define TFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tfs_file tfs_file_t;

/* Where a peer client's buffered data can be fetched from (tfs_read_peer). */
typedef struct tfs_addr {
	uint64_t client;	/* the server's id of the client, never 0 */
	uint32_t node;		/* the client's TFS_NODE */
	uint32_t pid;		/* the client's process id */
	char addr[128];		/* its peer listener, "tcp:HOST:PORT" or "unix:PATH" */
} tfs_addr_t;

/* One attached range [offset, offset+size-1] and the client that attached it
 * last. */
typedef struct tfs_interval {
	size_t offset;
	size_t size;
	tfs_addr_t owner;
} tfs_interval_t;

/* ---- core primitives (Table 5.1) ---------------------------------------- */

/* Open (creating if needed) the file @pathname, read-write, position 0.
 * Returns a new handle, or NULL with errno set. */
tfs_file_t *tfs_open(const char *pathname);

/* Release @file.  This process's writes that were never attached are
 * discarded, not flushed (a TFS_O_POSIX handle attaches them first);
 * attached writes stay in the burst buffer, served to
 * peers, until detached or until the process ends (tfs_finalize).  The
 * handle is freed even on error.  Returns 0 or -1. */
int tfs_close(tfs_file_t *file);

/* Buffer @size bytes of @buf at the file position and advance it.  Visible
 * to this process at once, to others only after tfs_attach.  Returns @size,
 * or -1. */
ssize_t tfs_write(tfs_file_t *file, const void *buf, size_t size);

/* Read up to @size bytes at the file position and advance it: this process's
 * latest buffered write where there is one, else the latest flushed data in
 * TFS_PFS_DIR (zeros in holes).  Returns the bytes read (0 at end of file),
 * or -1. */
ssize_t tfs_read(tfs_file_t *tf, void *buf, size_t size);

/* Read [@offset, @offset+@size-1] from the burst buffer of @peer (an owner
 * that tfs_query returned) into @buf.  Returns @size, or -1 (ENODATA when
 * the peer does not buffer the whole range). */
ssize_t tfs_read_peer(tfs_file_t *file, tfs_addr_t *peer, size_t offset, size_t size,
		      void *buf);

/* Copy all of this process's buffered writes of @file to TFS_PFS_DIR and
 * fsync(2) it; a no-op without buffered writes.  The data stays buffered.
 * Returns 0 or -1. */
int tfs_flush(tfs_file_t *file);

/* Set the file position to @offset from SEEK_SET, SEEK_CUR or SEEK_END
 * (the global end of file); the position may pass the end, the end does not
 * move.  @offset is unsigned, as in the dissertation: with SEEK_CUR and
 * SEEK_END it is added modulo 2^64, so (size_t)-1 steps one byte back.
 * Returns the new position, or -1 (EINVAL when it would be negative). */
ssize_t tfs_seek(tfs_file_t *tf, size_t offset, int whence);

/* The file position of @file, or -1. */
ssize_t tfs_tell(tfs_file_t *file);

/* Fill @buf for @file: st_size is the global end of file (or this process's
 * own writes' end when larger); st_mode is a regular file, st_ino the
 * server's file id; other fields are zero.  Returns 0 or -1. */
int tfs_stat(tfs_file_t *file, struct stat *buf);

/* ---- synchronisation primitives (Table 5.4) -------------------------------- */

/* Make this process's latest buffered writes within [@offset,
 * @offset+@size-1] visible to all: the server records this process as their
 * owner, replacing earlier owners.  Ranges already attached and not written
 * since are not sent again; a no-op where nothing was written.
 * Returns 0 or -1. */
int tfs_attach(tfs_file_t *file, size_t offset, size_t size);

/* tfs_attach of every buffered write of @file.  Returns 0 or -1. */
int tfs_attach_file(tfs_file_t *file);

/* The owners of the attached ranges within [@offset, @offset+@size-1], in
 * offset order, clipped to the range: *@owners (malloc'd, caller frees; NULL
 * when none) and *@num_owners.  Returns 0 or -1. */
int tfs_query(tfs_file_t *file, size_t offset, size_t size, tfs_interval_t **owners,
	      int *num_owners);

/* tfs_query of the whole file.  Returns 0 or -1. */
int tfs_query_file(tfs_file_t *file, tfs_interval_t **owners, int *num_owners);

/* Withdraw this process's attachments within [@offset, @offset+@size-1];
 * where another process has attached since, nothing changes.  Flush first if
 * the data must persist.  Returns 0 or -1. */
int tfs_detach(tfs_file_t *file, size_t offset, size_t size);

/* tfs_detach of all of this process's attachments of @file.  Returns 0 or
 * -1. */
int tfs_detach_file(tfs_file_t *file);

/* tfs_detach of all of this process's attachments of every file.  Returns 0
 * or -1. */
int tfs_detach_client(void);

/* ---- locking primitives (Table 5.2) ---------------------------------------- */

/* Lock types. */
#define TFS_LOCK_READ	1	/* shared */
#define TFS_LOCK_WRITE	2	/* exclusive */
#ifndef LOCK_TYPE_READ
#define LOCK_TYPE_READ	TFS_LOCK_READ	/* the dissertation's names */
#define LOCK_TYPE_WRITE	TFS_LOCK_WRITE
#endif

/* Acquire a lock of @type on [@offset, @offset+@size-1] of @file for this
 * process, covering whole blocks (the server's TFS_BLOCK_SIZE).  Granted
 * from the tokens the node's lock manager holds when they cover it, else
 * from the global lock manager; a conflicting token of another node is
 * split first (its owner flushes what its processes wrote there), and a
 * conflicting lock of another process of this node is revoked (flushed).
 * A lock this process already holds makes it a no-op.  Returns 0 or -1. */
int tfs_acquire_lock(tfs_file_t *file, size_t offset, size_t size, int type);

/* Release this process's locks within [@offset, @offset+@size-1] of
 * @file, widened to whole blocks: what it wrote there is flushed to
 * TFS_PFS_DIR and dropped from its buffer first.  The node keeps the
 * token.  A no-op where no lock is held.  Returns 0 or -1. */
int tfs_release_lock(tfs_file_t *file, size_t offset, size_t size);

/* tfs_release_lock of all of @file.  Returns 0 or -1. */
int tfs_release_lock_file(tfs_file_t *file);
/* The bytes this process wrote to @file under the locks it holds, copied
 * to the backing file and made durable there, the locks kept (fsync in
 * the lock design): 0, or -1 with errno. */
int tfs_flush_lock_file(tfs_file_t *file);

/* tfs_release_lock of every file.  Returns 0 or -1. */
int tfs_release_lock_client(void);

/* ---- extensions (not in the dissertation) --------------------------------- */

/* Token policies (§5.4.1) of the tokens this process's requests bring to
 * its node: the requested blocks only, on to the farthest block, or both
 * ends as far as no other node's token conflicts. */
#define TFS_LOCK_EXACT		0
#define TFS_LOCK_EXTEND_END	1
#define TFS_LOCK_EXTEND		2

/* Set the token policy of this process's later lock requests (the
 * default comes from TFS_LOCK_POLICY); -1 only asks.  Returns the policy
 * before, or -1 (EINVAL). */
int tfs_lock_policy(int policy);

/* This node's lock counters since its manager started: counts[0] alpha
 * (requests the global lock manager granted a new token for), counts[1]
 * beta (granted by the node from tokens it held), counts[2] gamma
 * (requests that met a conflict with another node's token).  Returns 0
 * or -1. */
int tfs_lock_stats(uint64_t counts[3]);


#define TFS_O_CREAT 1u	/* create the file when it does not exist */
#define TFS_O_EXCL  2u	/* with TFS_O_CREAT: fail (EEXIST) when it exists */
#define TFS_O_TRUNC 4u	/* empty the file: end of file 0, attachments dropped */
/* The posix model of Table 5.5 on this handle, without an attach per
 * write: a write through it is visible, once it returns, to every later
 * tfs_query, tfs_pread_synced, tfs_stat and seek to the end of any
 * process.  The server only lists this process as a pending writer of the
 * file (one request for the first write, none for the next ones); whoever
 * asks about the file has it attach first.  tfs_close attaches the
 * handle's writes instead of discarding them. */
#define TFS_O_POSIX 8u
/* Check the access as open(2) would, for reading and for writing: a file
 * that exists and whose permission bits do not allow it gives EACCES (the
 * backing file's bits, or those the creating open gave while it is only
 * in burst buffers; root passes).  libtfs-posix.so sets them from the
 * open's access mode. */
#define TFS_O_READ 16u
#define TFS_O_WRITE 32u
/* The session model's reads on this handle: tfs_pread_synced asks the
 * server once (QUERY, the whole file) and reads by that answer until
 * tfs_close; it sees what other processes attached before then, and never
 * misses this process's own writes (after one, attach, detach or
 * truncation of the file in this process, the next read asks again).
 * libtfs-posix.so sets it under TFS_CONSISTENCY=session. */
#define TFS_O_SESSION 64u

/* Connect to the server named by TFS_SERVER (done by the first call that
 * needs it).  Returns 0 or -1. */
int tfs_init(void);

/* Stage out and disconnect: this process's attached ranges that it still
 * owns are written to TFS_PFS_DIR (fsync) and detached, its burst-buffer
 * files removed.  Runs at exit by itself.  Returns 0 or -1. */
int tfs_finalize(void);

/* tfs_open with TFS_O_* @flags; without TFS_O_CREAT a file that neither the
 * server nor TFS_PFS_DIR knows gives ENOENT. */
tfs_file_t *tfs_open_flags(const char *pathname, unsigned flags);

/* tfs_open_flags, and when this open creates the file (neither the server
 * nor TFS_PFS_DIR has it) stage-out gives it @mode less the process's
 * umask, as open(2) would, whoever stages it out; TFS_MODE_DEFAULT: 0644
 * (tfs_open, tfs_open_flags).  An open that finds the file leaves its
 * mode as the creator gave it. */
#define TFS_MODE_DEFAULT (~0u)
tfs_file_t *tfs_open_mode(const char *pathname, unsigned flags, unsigned mode);

/* Positional tfs_write and tfs_read: the file position does not move. */
ssize_t tfs_pwrite(tfs_file_t *file, const void *buf, size_t size, size_t offset);
ssize_t tfs_pread(tfs_file_t *file, void *buf, size_t size, size_t offset);

/* Read [@offset, @offset+@size) as a synchronised read does (Table 5.5:
 * query, then read or read_peer): this process's writes not yet attached
 * first, then the owners the server names, then this process's other
 * writes, then TFS_PFS_DIR.  Returns the bytes read (short at end of file),
 * or -1. */
ssize_t tfs_pread_synced(tfs_file_t *file, void *buf, size_t size, size_t offset);

/* Set the end of file of @file to @length, dropping data beyond it.
 * Returns 0 or -1. */
int tfs_truncate(tfs_file_t *file, size_t length);

/* tfs_stat by name, without a handle: ENOENT when neither the server nor
 * TFS_PFS_DIR knows @pathname. */
int tfs_stat_path(const char *pathname, struct stat *buf);

/* Remove @pathname: the server forgets it (attachments, end of file) and
 * its copy in TFS_PFS_DIR is unlinked.  Returns 0 or -1. */
int tfs_unlink(const char *pathname);

/* Set the permission bits of @pathname to @mode (at most 07777), for every
 * process: what later opens are checked against while the file is only in
 * burst buffers, and what stage-out gives it, whoever stages it out; its
 * backing file's too when it has one.  Only its owner or root may (EPERM).
 * Returns 0 or -1. */
int tfs_chmod(const char *pathname, unsigned mode);

/* Rename @oldpath to @newpath (a file, or a directory of TFS_PFS_DIR with
 * every file below it), for every process: the old name is gone, the new
 * one has the data, in burst buffers too, and stage-out writes it there;
 * a file @newpath named is replaced, its data forgotten.  @flags: 0 or
 * TFS_RENAME_NOREPLACE (EEXIST when @newpath exists).  Returns 0 or -1. */
#define TFS_RENAME_NOREPLACE 1u
int tfs_rename(const char *oldpath, const char *newpath, unsigned flags);

#ifdef __cplusplus
}
#endif

#endif
