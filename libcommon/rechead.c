/*
 * rechead.c - the stream header of a .rec (tangram-rec(5)): encoded here
 * for the tracer and tg_writer, released here for every reader.  Apart from
 * rec.c because the tracer links this file alone, not the readers and the
 * argument codecs.
 */
#include "rec.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "varint.h"
#include "banned.h"

/* CRC-32C, reflected polynomial 0x82f63b78: by table, or with the crc32
 * instruction of SSE 4.2 (the same function, some 10 times faster). */
static uint32_t crc_table[256];
static int crc_how;	/* 0 not chosen yet, 1 table, 2 instruction */

static void crc_choose(void)
{
	unsigned i, k, a = 0, b = 0, c = 0, d = 0;

	for (i = 0; i < 256; i++) {
		uint32_t v = i;
		for (k = 0; k < 8; k++)
			v = v & 1 ? v >> 1 ^ 0x82f63b78u : v >> 1;
		crc_table[i] = v;
	}
#if defined(__x86_64__)
	if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2))
		__atomic_store_n(&crc_how, 2, __ATOMIC_RELEASE);
	else
#endif
		__atomic_store_n(&crc_how, 1, __ATOMIC_RELEASE);
	(void)a, (void)b, (void)d;
}

#if defined(__x86_64__)
typedef uint64_t tg_u64_any __attribute__((aligned(1), may_alias));

__attribute__((target("sse4.2")))
static uint32_t crc_insn(uint32_t c, const unsigned char *p, size_t n)
{
	uint64_t c64;

	for (; n && ((uintptr_t)p & 7); n--)
		c = __builtin_ia32_crc32qi(c, *p++);
	c64 = c;
	for (; n >= 8; n -= 8, p += 8)
		c64 = __builtin_ia32_crc32di(c64, *(const tg_u64_any *)p);
	c = (uint32_t)c64;
	for (; n; n--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}
#endif

uint32_t tg_crc32c(uint32_t crc, const void *buf, size_t n)
{
	const unsigned char *p = buf;
	int how = __atomic_load_n(&crc_how, __ATOMIC_ACQUIRE);
	uint32_t c = ~crc;

	if (!how) {
		crc_choose();
		how = crc_how;
	}
#if defined(__x86_64__)
	if (how == 2)
		return ~crc_insn(c, p, n);
#endif
	while (n--)
		c = crc_table[(c ^ *p++) & 0xff] ^ c >> 8;
	return ~c;
}

uint32_t tg_header_crc(const unsigned char *hdr, size_t len)
{
	static const unsigned char zero[4];
	uint32_t c;

	if (len < TG_REC_HCRC_OFFSET + 4)
		return 0;
	c = tg_crc32c(0, hdr, 10);
	c = tg_crc32c(c, zero, 2);
	c = tg_crc32c(c, hdr + 12, TG_REC_HCRC_OFFSET - 12);
	c = tg_crc32c(c, zero, 4);
	return tg_crc32c(c, hdr + TG_REC_HCRC_OFFSET + 4, len - TG_REC_HCRC_OFFSET - 4);
}

unsigned char *tg_check_put(unsigned char *out, const unsigned char *chunk, size_t n)
{
	uint32_t crc = tg_crc32c(0, chunk, n);

	tg_put_le32(out, 5);
	out[4] = TG_REC_CHECK;
	tg_put_le32(out + 5, crc);
	out[9] = '\n';
	return out + TG_REC_CHECK_LEN;
}

static unsigned char *put_str(unsigned char *p, unsigned char *end,
			      const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!p || (size_t)(end - p) < n + TG_VARINT_MAX)
		return NULL;
	p = tg_put_uvar(p, n);
	memcpy(p, s, n);
	return p + n;
}

size_t tg_header_encode(const struct tg_header *h, unsigned char *buf,
			size_t cap)
{
	unsigned char *p = buf, *end = buf + cap, *body;
	int i;

	if (cap < 16 + 6 * TG_VARINT_MAX)
		return 0;
	memcpy(p, TG_REC_MAGIC, TG_REC_MAGIC_LEN);
	p += TG_REC_MAGIC_LEN;
	*p++ = TG_REC_VERSION & 0xff;
	*p++ = TG_REC_VERSION >> 8;
	*p++ = (unsigned char)(h->flags & 0xff);
	*p++ = (unsigned char)(h->flags >> 8);
	body = p + 4;
	p = body;
	tg_put_le32(p, (uint32_t)(int32_t)h->rank);
	tg_put_le32(p + 4, (uint32_t)h->world);
	tg_put_le32(p + 8, 0);	/* the CRC, once the rest is there */
	p += 12;
	p = tg_put_uvar(p, h->pid);
	p = tg_put_uvar(p, h->ppid);
	p = tg_put_uvar(p, h->clock_base);
	p = put_str(p, end, h->host);
	p = put_str(p, end, h->cwd);
	if (!p || end - p < TG_VARINT_MAX)
		return 0;
	p = tg_put_uvar(p, (uint64_t)h->argc);
	for (i = 0; i < h->argc && p; i++)
		p = put_str(p, end, h->argv[i]);
	/* a later run's number; the first run's streams end at argv, but
	 * for a wide one (three bytes, a varint with its high groups 0) */
	if (p && h->run_wide && h->run < (1u << 21)) {
		if (end - p < 3)
			return 0;
		*p++ = (unsigned char)((h->run & 0x7f) | 0x80);
		*p++ = (unsigned char)(((h->run >> 7) & 0x7f) | 0x80);
		*p++ = (unsigned char)((h->run >> 14) & 0x7f);
	} else if (p && h->run > 1) {
		p = end - p < TG_VARINT_MAX ? NULL : tg_put_uvar(p, h->run);
	}
	if (!p)
		return 0;
	tg_put_le32(body - 4, (uint32_t)(p - body));
	tg_put_le32(buf + TG_REC_HCRC_OFFSET, tg_header_crc(buf, (size_t)(p - buf)));
	return (size_t)(p - buf);
}

void tg_header_release(struct tg_header *h)
{
	int i;

	free(h->host);
	free(h->cwd);
	for (i = 0; i < h->argc; i++)
		free(h->argv[i]);
	free(h->argv);
	memset(h, 0, sizeof(*h));
}
