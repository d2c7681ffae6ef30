/*
 * proto.h - the TangramFS wire protocol (tfs-protocol(5)): frame header,
 * message types, limits, and the little-endian encoder and decoder every
 * message body goes through.
 *
 * Message type numbers are written on the wire: fixed forever, appended
 * only.
 */
#ifndef TFS_PROTO_H
#define TFS_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define TFS_MAGIC	0x53465495u	/* bytes 95 54 46 53: "\x95TFS" */
#define TFS_VERSION	3
#define TFS_HDR_SIZE	40
#define TFS_SECRET_LEN	16
#define TFS_MAX_BODY	(64u << 20)	/* largest body accepted */
#define TFS_MAX_PATH	4096		/* longest path, in bytes */
#define TFS_MAX_RANGES	(1u << 20)	/* ranges in one attach or detach */
#define TFS_CHUNK	(8u << 20)	/* a peer read asks for at most this */
/* How long a map a QUERY granted (TFS_QUERY_KEEP) may be read by, from
 * the asking on: a holder the server cannot tell to drop it (dead, hung)
 * has stopped using it when a change waits this long at most. */
#define TFS_LEASE_MS	250

/* Header flags. */
#define TFS_F_REPLY	1u

/* Message types (requests; a reply has the request's type and TFS_F_REPLY). */
enum tfs_msg_type {
	TFS_MSG_HELLO = 1,	/* client → server: register */
	TFS_MSG_OPEN = 2,	/* open or create by path → file id, eof */
	TFS_MSG_ATTACH = 3,	/* file id, ranges */
	TFS_MSG_DETACH = 4,	/* file id, ranges (none: the whole file) */
	TFS_MSG_DETACH_CLIENT = 5,
	TFS_MSG_QUERY = 6,	/* file id, range, mine-only flag → intervals */
	TFS_MSG_EOF = 7,	/* file id, candidate end of file → eof */
	TFS_MSG_TRUNCATE = 8,	/* file id, length */
	TFS_MSG_UNLINK = 9,	/* path */
	TFS_MSG_STOP = 10,	/* stage out and exit */
	TFS_MSG_LOCK_NODE = 11,	/* → block size, the node manager's id and address */
	TFS_MSG_LOCK_ACQUIRE = 12,/* manager → server: file id, blocks, type, policy */
	TFS_MSG_LOCK_RELEASE = 13,/* manager → server: file id, blocks */
	TFS_MSG_LOCK_REPORT = 14,/* manager → server: its alpha, beta, gamma */
	TFS_MSG_STAGE = 15,	/* file id, take (1) or give back (0) its stage mark */
	TFS_MSG_PENDING = 16,	/* file id: the sender writes it unattached (posix) */
	TFS_MSG_ATTACH_CLEAN = 17,/* ATTACH, and the sender is no longer pending */
	TFS_MSG_RLOCK = 18,	/* file id, set, type, range, pid: a record lock (fcntl) */
	TFS_MSG_APPEND = 19,	/* file id, candidate end, length → offset reserved at the end */
	TFS_MSG_SETMODE = 20,	/* mode, uid, flags, path: chmod */
	TFS_MSG_RENAME = 21,	/* flags, old path, new path → the old file's id, its stage mark */
	TFS_MSG_LIST = 22,	/* directory, cursor → the names of the files held right below it */
	TFS_MSG_SETTIMES = 23,	/* atime, mtime, path: utimensat, kept through stage-out */
	TFS_MSG_PEER_READ = 32,	/* client → client: file id, offset, size → bytes */
	TFS_MSG_PEER_STAGE = 33,/* server → client: flush and detach what you own */
	TFS_MSG_LOCK_JOIN = 34,	/* client → its node manager: id, address */
	TFS_MSG_LOCK_GET = 35,	/* client → manager: file id, blocks, type, policy */
	TFS_MSG_LOCK_PUT = 36,	/* client → manager: file id (0: all), blocks */
	TFS_MSG_LOCK_SPLIT = 37,/* manager → manager: file id, blocks needed */
	TFS_MSG_LOCK_REVOKE = 38,/* manager → client: file id, blocks: flush, drop */
	TFS_MSG_LOCK_COUNT = 39,/* client → manager: → alpha, beta, gamma */
	TFS_MSG_LOCK_BYE = 40,	/* client → manager: leaving */
	TFS_MSG_PEER_FLUSH = 41,/* client → pending writer: file id: attach it all */
	TFS_MSG_DROP = 42,	/* server → client: file id: drop your kept map of it */
};

/* QUERY flags. */
#define TFS_QUERY_MINE	1u	/* only the sender's ranges */
#define TFS_QUERY_KEEP	2u	/* the sender keeps the map: a lease in the reply */

/* Open flags on the wire (the same values as TFS_O_*). */
#define TFS_OPEN_CREAT	1u
#define TFS_OPEN_EXCL	2u
#define TFS_OPEN_TRUNC	4u
/* the opener reads, writes: checked against the creator's mode (a file
 * only in burst buffers; the client checks a backed one itself) */
#define TFS_OPEN_READ	8u
#define TFS_OPEN_WRITE	16u
#define TFS_OPEN_ROOT	32u	/* the opener is root: no check */
#define TFS_OPEN_KNOWN	63u

/* A mode on the wire (OPEN, its reply, STAGE's reply): 0, the default
 * (0644) or the backing file's; else TFS_MODE_SET | the permission bits,
 * so that a mode of 0 is one too. */
#define TFS_MODE_SET	0100000u

/* SETMODE flags. */
#define TFS_SETMODE_BACKED	1u	/* the backing file was changed: the kernel checked */

/* RENAME flags. */
#define TFS_RENAME_NOREPLACE	1u
#define TFS_RENAME_OLD_BACKED	2u	/* the old path is in the backing directory */
#define TFS_RENAME_NEW_BACKED	4u	/* the new path is */
#define TFS_RENAME_DIR		8u	/* a directory: every file below it moves */
#define TFS_RENAME_KNOWN	15u

/* The decoded frame header. */
struct tfs_hdr {
	uint16_t type;
	uint8_t flags;
	uint32_t len;			/* body bytes after the header */
	int32_t status;			/* replies: 0 or a positive errno */
	uint64_t id;			/* request id, echoed in the reply */
	unsigned char secret[TFS_SECRET_LEN];
};

/* Encode @h into @out (TFS_HDR_SIZE bytes). */
void tfs_hdr_encode(const struct tfs_hdr *h, unsigned char *out);

/* Decode @in into @h.  Returns 0, or -1 when the magic or the version is
 * wrong or the body is longer than TFS_MAX_BODY. */
int tfs_hdr_decode(const unsigned char *in, struct tfs_hdr *h);

/* Compare two secrets in constant time; 1 when equal. */
int tfs_secret_eq(const unsigned char *a, const unsigned char *b);

/* A growing buffer for building a body.  A failed allocation is sticky:
 * tfs_buf_failed() says so and the contents are then meaningless. */
struct tfs_buf {
	unsigned char *p;
	size_t len, cap;
	int failed;
};

void tfs_buf_init(struct tfs_buf *b);
void tfs_buf_release(struct tfs_buf *b);
void tfs_buf_u32(struct tfs_buf *b, uint32_t v);
void tfs_buf_u64(struct tfs_buf *b, uint64_t v);
void tfs_buf_bytes(struct tfs_buf *b, const void *p, size_t n);
/* A string: u16 length, then the bytes (no NUL). */
void tfs_buf_str(struct tfs_buf *b, const char *s);
int tfs_buf_failed(const struct tfs_buf *b);

/* A reader over a received body; any read past the end sets the sticky
 * error and returns zeros. */
struct tfs_rd {
	const unsigned char *p;
	size_t len, pos;
	int bad;
};

void tfs_rd_init(struct tfs_rd *r, const void *p, size_t len);
uint32_t tfs_rd_u32(struct tfs_rd *r);
uint64_t tfs_rd_u64(struct tfs_rd *r);
/* A string into @out (NUL-terminated); longer than @outlen-1 or containing
 * a NUL byte is an error. */
void tfs_rd_str(struct tfs_rd *r, char *out, size_t outlen);
/* 1 when every byte was read and none was missing. */
int tfs_rd_done(const struct tfs_rd *r);

/* Normalise a TangramFS path: strip leading, repeated and trailing '/',
 * drop "." components; refuse ".." components and empty results.  Writes
 * "a/b" into @out.  Returns 0, or -1 with errno EACCES (".."), EINVAL
 * (empty) or ENAMETOOLONG. */
int tfs_path_norm(const char *in, char *out, size_t outlen);

/*
 * Move descriptor @fd (when valid) to a number programs do not pick
 * themselves, close-on-exec: shells dup2 onto small numbers ("exec 3>f"),
 * which would silently replace a descriptor of ours.  Returns the new
 * number, or @fd when it cannot be moved.  The descriptor is remembered
 * as ours until tfs_fd_close().
 */
int tfs_fd_high(int fd);

/* The lowest number tfs_fd_high() moves descriptors to. */
int tfs_fd_base(void);

/* Close a descriptor tfs_fd_high() returned. */
int tfs_fd_close(int fd);

/* Whether @fd is one tfs_fd_high() returned and is still open. */
int tfs_fd_owned(int fd);

/* In a child forked from a process of ours: close every descriptor
 * tfs_fd_high() returned and tfs_fd_close() has not closed (the parent's
 * connections, listener and buffers), so that the child holds none of
 * them open after the parent closes its own. */
void tfs_fds_forget(void);

/*
 * Helpers of the server, libtfs and both transports, which all link
 * proto.c (the UCX plugin too); not part of tfs(3): the tfsi_ prefix stays
 * outside the version scripts' tfs_* pattern.
 */

/* CLOCK_MONOTONIC in milliseconds: what deadlines count in. */
long long tfsi_now_ms(void);

/* The name of message type @type as tfs-protocol(5) spells it, or NULL. */
const char *tfs_msg_name(unsigned type);

/* "HOST:PORT" (of a "tcp:" or "ucx:" address) into a stream socket's
 * address: HOST a name or an address, an IPv6 one in brackets, PORT a
 * number.  Returns 0, or -1 with errno EINVAL. */
int tfsi_hostport(const char *hp, struct sockaddr_storage *ss, socklen_t *len);

#endif
