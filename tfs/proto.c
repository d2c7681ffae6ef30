/*
 * proto.c - frame header and body encoding of tfs-protocol(5), and the
 * helpers every TangramFS object shares (proto.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "proto.h"

#include <errno.h>
#include <netdb.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../libcommon/banned.h"

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * Offsets: 0 magic u32, 4 version u8, 5 flags u8, 6 type u16, 8 length u32,
 * 12 status i32, 16 id u64, 24 secret[16]; 40 bytes.
 */
void tfs_hdr_encode(const struct tfs_hdr *h, unsigned char *out)
{
	put32(out, TFS_MAGIC);
	out[4] = TFS_VERSION;
	out[5] = h->flags;
	out[6] = (unsigned char)h->type;
	out[7] = (unsigned char)(h->type >> 8);
	put32(out + 8, h->len);
	put32(out + 12, (uint32_t)h->status);
	put64(out + 16, h->id);
	memcpy(out + 24, h->secret, TFS_SECRET_LEN);
}

int tfs_hdr_decode(const unsigned char *in, struct tfs_hdr *h)
{
	if (get32(in) != TFS_MAGIC || in[4] != TFS_VERSION)
		return -1;
	h->flags = in[5];
	h->type = (uint16_t)(in[6] | in[7] << 8);
	h->len = get32(in + 8);
	h->status = (int32_t)get32(in + 12);
	h->id = get64(in + 16);
	memcpy(h->secret, in + 24, TFS_SECRET_LEN);
	return h->len > TFS_MAX_BODY ? -1 : 0;
}

int tfs_secret_eq(const unsigned char *a, const unsigned char *b)
{
	unsigned char d = 0;

	for (int i = 0; i < TFS_SECRET_LEN; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

void tfs_buf_init(struct tfs_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void tfs_buf_release(struct tfs_buf *b)
{
	free(b->p);
	tfs_buf_init(b);
}

static unsigned char *grow(struct tfs_buf *b, size_t n)
{
	if (b->failed)
		return NULL;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		unsigned char *p;

		while (cap < b->len + n)
			cap *= 2;
		if (!(p = realloc(b->p, cap))) {
			b->failed = 1;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	b->len += n;
	return b->p + b->len - n;
}

void tfs_buf_u32(struct tfs_buf *b, uint32_t v)
{
	unsigned char *p = grow(b, 4);

	if (p)
		put32(p, v);
}

void tfs_buf_u64(struct tfs_buf *b, uint64_t v)
{
	unsigned char *p = grow(b, 8);

	if (p)
		put64(p, v);
}

void tfs_buf_bytes(struct tfs_buf *b, const void *src, size_t n)
{
	unsigned char *p = grow(b, n);

	if (p && n)
		memcpy(p, src, n);
}

void tfs_buf_str(struct tfs_buf *b, const char *s)
{
	size_t n = strlen(s);
	unsigned char *p;

	if (n > 0xffff) {
		b->failed = 1;
		return;
	}
	if ((p = grow(b, 2))) {
		p[0] = (unsigned char)n;
		p[1] = (unsigned char)(n >> 8);
	}
	tfs_buf_bytes(b, s, n);
}

int tfs_buf_failed(const struct tfs_buf *b)
{
	return b->failed;
}

void tfs_rd_init(struct tfs_rd *r, const void *p, size_t len)
{
	r->p = p;
	r->len = len;
	r->pos = 0;
	r->bad = 0;
}

static const unsigned char *take(struct tfs_rd *r, size_t n)
{
	if (r->bad || r->len - r->pos < n) {
		r->bad = 1;
		return NULL;
	}
	r->pos += n;
	return r->p + r->pos - n;
}

uint32_t tfs_rd_u32(struct tfs_rd *r)
{
	const unsigned char *p = take(r, 4);

	return p ? get32(p) : 0;
}

uint64_t tfs_rd_u64(struct tfs_rd *r)
{
	const unsigned char *p = take(r, 8);

	return p ? get64(p) : 0;
}

void tfs_rd_str(struct tfs_rd *r, char *out, size_t outlen)
{
	const unsigned char *p = take(r, 2);
	size_t n = p ? (size_t)(p[0] | p[1] << 8) : 0;

	out[0] = '\0';
	if (!p)
		return;
	if (n >= outlen || !(p = take(r, n)) || memchr(p, '\0', n)) {
		r->bad = 1;
		return;
	}
	memcpy(out, p, n);
	out[n] = '\0';
}

int tfs_rd_done(const struct tfs_rd *r)
{
	return !r->bad && r->pos == r->len;
}

int tfs_path_norm(const char *in, char *out, size_t outlen)
{
	size_t o = 0;
	const char *p = in;

	while (*p) {
		const char *q;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		for (q = p; *q && *q != '/'; q++)
			;
		n = (size_t)(q - p);
		if (n == 1 && p[0] == '.') {
			p = q;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			errno = EACCES;
			return -1;
		}
		if (o + n + 2 > outlen) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (o)
			out[o++] = '/';
		memcpy(out + o, p, n);
		o += n;
		p = q;
	}
	if (!o) {
		errno = EINVAL;
		return -1;
	}
	out[o] = '\0';
	return 0;
}

/* The descriptors tfs_fd_high() handed out and tfs_fd_close() has not
 * closed: what a forked child closes in tfs_fds_forget(). */
#define FD_BITS 65536
static _Atomic unsigned long fd_owned[FD_BITS / (8 * sizeof(unsigned long))];
#define FD_WORD(fd) fd_owned[(unsigned)(fd) / (8 * sizeof(unsigned long))]
#define FD_BIT(fd) (1UL << ((unsigned)(fd) % (8 * sizeof(unsigned long))))

static int fd_own(int fd)
{
	if (fd >= 0 && fd < FD_BITS)
		atomic_fetch_or(&FD_WORD(fd), FD_BIT(fd));
	return fd;
}

int tfs_fd_close(int fd)
{
	if (fd >= 0 && fd < FD_BITS)
		atomic_fetch_and(&FD_WORD(fd), ~FD_BIT(fd));
	return close(fd);
}

int tfs_fd_owned(int fd)
{
	return fd >= 0 && fd < FD_BITS && (atomic_load(&FD_WORD(fd)) & FD_BIT(fd)) != 0;
}

void tfs_fds_forget(void)
{
	for (int fd = 0; fd < FD_BITS; fd++)
		if (atomic_load(&FD_WORD(fd)) & FD_BIT(fd))
			tfs_fd_close(fd);
}

int tfs_fd_base(void)
{
	static int base;
	struct rlimit rl;

	if (!base) {	/* half the limit, at most 4096: above what programs use */
		int b = 256;
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur / 2 > 256)
			b = rl.rlim_cur / 2 > 4096 ? 4096 : (int)(rl.rlim_cur / 2);
		base = b;
	}
	return base;
}

int tfs_fd_high(int fd)
{
	int nfd, e = errno, base = tfs_fd_base();

	if (fd < 0)
		return fd;
	if (fd >= base || (nfd = fcntl(fd, F_DUPFD_CLOEXEC, base)) < 0) {
		errno = e;
		return fd_own(fd);
	}
	close(fd);
	errno = e;
	return fd_own(nfd);
}

long long tfsi_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int tfsi_hostport(const char *hp, struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	const char *colon = strrchr(hp, ':');
	struct addrinfo *ai;
	char host[128];
	size_t hl;

	if (!colon || (hl = (size_t)(colon - hp)) == 0 || hl >= sizeof(host)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(host, hp, hl);
	host[hl] = '\0';
	if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
		memmove(host, host + 1, hl - 2);
		host[hl - 2] = '\0';
	}
	if (getaddrinfo(host, colon + 1, &hints, &ai) != 0 || !ai) {
		errno = EINVAL;
		return -1;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

const char *tfs_msg_name(unsigned type)
{
	static const char *const names[] = {
		[TFS_MSG_HELLO] = "HELLO", [TFS_MSG_OPEN] = "OPEN", [TFS_MSG_ATTACH] = "ATTACH",
		[TFS_MSG_DETACH] = "DETACH", [TFS_MSG_DETACH_CLIENT] = "DETACH_CLIENT",
		[TFS_MSG_QUERY] = "QUERY", [TFS_MSG_EOF] = "EOF", [TFS_MSG_TRUNCATE] = "TRUNCATE",
		[TFS_MSG_UNLINK] = "UNLINK", [TFS_MSG_STOP] = "STOP",
		[TFS_MSG_LOCK_NODE] = "LOCK_NODE", [TFS_MSG_LOCK_ACQUIRE] = "LOCK_ACQUIRE",
		[TFS_MSG_LOCK_RELEASE] = "LOCK_RELEASE", [TFS_MSG_LOCK_REPORT] = "LOCK_REPORT",
		[TFS_MSG_STAGE] = "STAGE", [TFS_MSG_PENDING] = "PENDING",
		[TFS_MSG_ATTACH_CLEAN] = "ATTACH_CLEAN", [TFS_MSG_RLOCK] = "RLOCK",
		[TFS_MSG_APPEND] = "APPEND", [TFS_MSG_SETMODE] = "SETMODE",
		[TFS_MSG_RENAME] = "RENAME", [TFS_MSG_LIST] = "LIST",
		[TFS_MSG_SETTIMES] = "SETTIMES",
		[TFS_MSG_PEER_READ] = "PEER_READ", [TFS_MSG_PEER_STAGE] = "PEER_STAGE",
		[TFS_MSG_LOCK_JOIN] = "LOCK_JOIN", [TFS_MSG_LOCK_GET] = "LOCK_GET",
		[TFS_MSG_LOCK_PUT] = "LOCK_PUT", [TFS_MSG_LOCK_SPLIT] = "LOCK_SPLIT",
		[TFS_MSG_LOCK_REVOKE] = "LOCK_REVOKE", [TFS_MSG_LOCK_COUNT] = "LOCK_COUNT",
		[TFS_MSG_LOCK_BYE] = "LOCK_BYE", [TFS_MSG_PEER_FLUSH] = "PEER_FLUSH",
		[TFS_MSG_DROP] = "DROP",
	};

	return type < sizeof(names) / sizeof(names[0]) && names[type] ? names[type] : NULL;
}
