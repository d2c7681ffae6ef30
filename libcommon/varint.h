/*
 * varint.h - LEB128 unsigned varints and zig-zag signed integers, the integer
 * encoding of every Tangram record.  Header-only: the shim's per-call path
 * inlines them.
 */
#ifndef TG_VARINT_H
#define TG_VARINT_H

#include <stdint.h>
#include <stddef.h>

/* Most bytes one varint can take. */
#define TG_VARINT_MAX 10

static inline uint64_t tg_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t tg_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Write @v at @p (room for TG_VARINT_MAX bytes); returns the byte after. */
static inline unsigned char *tg_put_uvar(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

static inline unsigned char *tg_put_svar(unsigned char *p, int64_t v)
{
	return tg_put_uvar(p, tg_zigzag(v));
}

/*
 * Read a varint from [*pp, end).  Returns 0 and advances *pp, or -1 when the
 * input ends inside the varint or it is longer than ten bytes.
 */
static inline int tg_get_uvar(const unsigned char **pp,
			      const unsigned char *end, uint64_t *out)
{
	const unsigned char *p = *pp;
	uint64_t v = 0;
	unsigned shift = 0;

	while (p < end) {
		unsigned char b = *p++;
		if (shift == 63 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*out = v;
			return 0;
		}
		shift += 7;
		if (shift > 63)
			return -1;
	}
	return -1;
}

static inline int tg_get_svar(const unsigned char **pp,
			      const unsigned char *end, int64_t *out)
{
	uint64_t u;

	if (tg_get_uvar(pp, end, &u) < 0)
		return -1;
	*out = tg_unzigzag(u);
	return 0;
}

static inline void tg_put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static inline uint32_t tg_get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

#endif
