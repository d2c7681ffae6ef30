/*
 * sb.h - a growable string buffer for the text forms of records (text.c,
 * kindtext.c).
 */
#ifndef TG_SB_H
#define TG_SB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * A call line is built in a growable buffer and written with one fwrite:
 * stdio's printf machinery costs several times the decoding of a record.
 */
struct tg_sb {
	char *p;
	size_t len, cap;
};

/* Make room for @n more bytes (aborts when memory is out). */
void tg_sb_grow(struct tg_sb *b, size_t n);

static inline void sb_mem(struct tg_sb *b, const char *s, size_t n)
{
	if (b->cap - b->len < n)
		tg_sb_grow(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static inline void sb_putc(struct tg_sb *b, char c)
{
	if (b->len == b->cap)
		tg_sb_grow(b, 1);
	b->p[b->len++] = c;
}

static inline void sb_puts(struct tg_sb *b, const char *s)
{
	sb_mem(b, s, strlen(s));
}

static const char tg_digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline void sb_u64(struct tg_sb *b, uint64_t v)
{
	char t[24];
	int n = sizeof(t);

	if (v < 10) {
		sb_putc(b, (char)('0' + v));
		return;
	}
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		t[--n] = tg_digits2[d + 1];
		t[--n] = tg_digits2[d];
	}
	if (v >= 10) {
		t[--n] = tg_digits2[v * 2 + 1];
		t[--n] = tg_digits2[v * 2];
	} else {
		t[--n] = (char)('0' + v);
	}
	sb_mem(b, t + n, sizeof(t) - (size_t)n);
}

static inline void sb_i64(struct tg_sb *b, int64_t v)
{
	if (v < 0) {
		sb_putc(b, '-');
		sb_u64(b, -(uint64_t)v);
	} else {
		sb_u64(b, (uint64_t)v);
	}
}

/* Seconds and nanoseconds of @ns as "S.NNNNNNNNN". */
static inline void sb_time(struct tg_sb *b, uint64_t ns)
{
	char t[10];
	unsigned f = (unsigned)(ns % 1000000000u), d;
	int i;

	sb_u64(b, ns / 1000000000u);
	t[0] = '.';
	for (i = 8; i >= 2; i -= 2) {
		d = f % 100 * 2;
		f /= 100;
		t[i] = tg_digits2[d];
		t[i + 1] = tg_digits2[d + 1];
	}
	t[1] = (char)('0' + f);
	sb_mem(b, t, sizeof(t));
}

/* @s in double quotes with C escapes for quotes, backslashes and
 * non-printables; NULL as NULL. */
void tg_sb_quoted(struct tg_sb *b, const char *s);

#endif
