/*
 * client-int.h - what the lock layer (lock.c) uses of the client core
 * (client.c) inside libtfs, and what the POSIX layer (posix.c) uses of
 * both beyond tfs(3).  Not installed, not exported: the tfsi_ prefix
 * stays outside the version scripts' tfs_* pattern.
 */
#ifndef TFS_CLIENT_INT_H
#define TFS_CLIENT_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "proto.h"
#include "transport.h"

struct tfs_file;

/* One request to the server (tfs_init() done); the reply body into *@rd,
 * whose memory is *@mem (caller frees; both may be NULL).  Returns 0, or
 * -1 with errno (the reply's status, or the transport's). */
int tfsi_call(uint16_t type, const struct tfs_buf *body, void **mem, struct tfs_rd *rd);

/* A request to the client listening at @addr over the cached endpoint;
 * same contract as tfsi_call. */
int tfsi_peer_call(const char *addr, uint16_t type, const struct tfs_buf *body, void **mem,
		   struct tfs_rd *rd);

/* The files the server holds right below directory @dir ("" the mount):
 * @fn(@arg, name, file id) for each, in no order (LIST, which pages).
 * @fn returning -1 stops it.  Returns 0, or -1 with errno. */
int tfsi_list(const char *dir, int (*fn)(void *arg, const char *name, uint64_t fid),
	      void *arg);

/* utimensat(2) of @path, whose backing file has the times @ts (resolved:
 * no UTIME_NOW or UTIME_OMIT) already: this process's writes of it are
 * attached, then the server keeps the times for stage-out to give back
 * after its copy (SETTIMES), until a later write.  A file the server
 * does not hold is the backing file's alone: 0.  Returns 0, or -1 with
 * errno; the sender sets the backing file's times again after it, over
 * a stage-out that ran meanwhile. */
struct timespec;
int tfsi_settimes(const char *path, const struct timespec ts[2]);

/* This process: its server id, its TFS_NODE, its listener's address, the
 * timeout of every call in ms. */
uint64_t tfsi_id(void);
uint32_t tfsi_node(void);
const char *tfsi_addr(void);
int tfsi_timeout_ms(void);

/* tfs_ep_hint() of the server's address, for a start that failed with
 * @err. */
const char *tfsi_server_hint(int err);

/* Why the last tfs_init() could not use the server file, which it
 * fails with EACCES for ("No such file or directory", "server file 'F'
 * is not well formed"), or "" when it could. */
const char *tfsi_server_file_error(void);

/* Have @fn told, with the error, when a call finds this process's server
 * lost (once per client; not for a start that failed). */
void tfsi_on_lost(void (*fn)(int err));

/* 1 when @file is a handle of this process's client (not NULL, not one
 * inherited across fork). */
int tfsi_live(const struct tfs_file *file);

/* The server's id of @file. */
uint64_t tfsi_fid(const struct tfs_file *file);

/* tfs_pwrite() and tfs_attach() of the same range in one, the attach's
 * round trip overlapping the write (client.c).  Returns @size or -1. */
ssize_t tfsi_pwrite_attach(struct tfs_file *file, const void *buf, size_t size, size_t offset);

/* A posix-model write whose attach waits until another client asks (the
 * pending-writer protocol, client.c): the burst-buffer write alone, after
 * a PENDING round trip when the range is not one this process holds.
 * Returns @size or -1. */
ssize_t tfsi_pwrite_pending(struct tfs_file *file, const void *buf, size_t size, size_t offset);

/* An O_APPEND write under the posix model, sync design (client.c): the
 * server reserves @size bytes at the end of file in one step with
 * finding it (APPEND, after the pending writers that may have written
 * past it flush), the bytes go there and are attached before it returns.
 * Returns @size with their offset in *@off, 0 when @size is 0, or -1. */
ssize_t tfsi_append(struct tfs_file *file, const void *buf, size_t size, uint64_t *off);

/* An O_APPEND write in the lock design (lock.c): the end found and the
 * bytes written there under a write lock from the end on, so no other
 * append or write gets in between.  Returns as tfsi_append(). */
ssize_t tfsi_lock_append(struct tfs_file *file, const void *buf, size_t size, uint64_t *off);

/* tfsi_lock_append()'s write (client.c): under the file's lock, once
 * @held(@arg) says the caller's write lock over [@from, end of file) is
 * still held, the end asked of the server and the backing file, and the
 * bytes written there when it is @from or past.  Returns @size with the
 * offset in *@off; -1 with EAGAIN when the lock is gone (*@off @from) or
 * the end is before @from (*@off the end); else -1 with errno. */
ssize_t tfsi_pwrite_end(struct tfs_file *file, const void *buf, size_t size, uint64_t from,
			int (*held)(void *arg), void *arg, uint64_t *off);

/* A record lock of @file was taken: every handle of the file in this
 * process asks the server again at its next read (a session map kept
 * from before would miss what another process published at its unlock,
 * and a read-modify-write under the lock would write its old bytes back
 * over them). */
void tfsi_read_sync(struct tfs_file *file);

/* Close the backing-file descriptors that open handles keep for their
 * reads (each opens its own again at its next read): for an open that
 * found the descriptor table full.  Returns how many were closed. */
int tfsi_pfs_give_back(void);

/* The end of file as this process last heard it or wrote to it. */
uint64_t tfsi_end_heard(struct tfs_file *file);

/* Write this process's buffered data of file @fid within [@start, @end)
 * to TFS_PFS_DIR (fsync, raising the end of file), then drop it from the
 * buffer so later reads go to the backing file.  A no-op when nothing is
 * buffered there.  Returns 0 or -1. */
int tfsi_flush_range(uint64_t fid, uint64_t start, uint64_t end);

/* TFS_TEST_PAUSE's sleep at the point named @where (tfs(3)). */
void tfsi_test_pause(const char *where);

/* The lock layer's hooks (lock.c): requests of types it owns arriving at
 * this process's listener (returns 1 when it took @req), a closed
 * connection, and the end of the process (before stage-out). */
int tfsi_lock_on_peer(struct tfs_req *req);
void tfsi_lock_on_close(struct tfs_conn *conn);
int tfsi_lock_finalize(void);
/* In a child just forked: forget the parent's locks and manager state. */
void tfsi_lock_forked(void);

#endif
