/*
 * kindtext.c - the text and JSON forms of each argument kind
 * (tangram-text(5)): the txt_put and json_put operations of the rows of
 * tg_kinds (kinds.c), and the string buffer they write into (sb.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "calltab.h"
#include "h5names.h"
#include "kinds.h"
#include "names.h"
#include "rec.h"
#include "sb.h"
#include "tg.h"
#include "banned.h"

void tg_sb_grow(struct tg_sb *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	while (cap - b->len < n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		abort();
	b->p = p;
	b->cap = cap;
}

void tg_sb_quoted(struct tg_sb *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p, *run;

	if (!s) {
		sb_mem(b, "NULL", 4);
		return;
	}
	sb_putc(b, '"');
	for (p = run = (const unsigned char *)s; *p; p++) {
		char e[4];
		size_t n = 2;

		if (*p >= 0x20 && *p != 0x7f && *p != '"' && *p != '\\')
			continue;
		sb_mem(b, (const char *)run, (size_t)(p - run));
		run = p + 1;
		e[0] = '\\';
		switch (*p) {
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		case '\n': e[1] = 'n'; break;
		case '\t': e[1] = 't'; break;
		case '\r': e[1] = 'r'; break;
		default:
			e[1] = 'x';
			e[2] = hex[*p >> 4];
			e[3] = hex[*p & 15];
			n = 4;
		}
		sb_mem(b, e, n);
	}
	sb_mem(b, (const char *)run, (size_t)(p - run));
	sb_putc(b, '"');
}

/* ---- helpers ---------------------------------------------------------------- */

const char *tg_mpih_str(char *buf, size_t cap, int sub, uint64_t enc)
{
	const char *n;

	if (enc & 1) {
		n = tg_mpi_handle_name(sub, (uint32_t)(enc >> 1));
		if (n)
			return n;
		snprintf(buf, cap, "0x%08" PRIx64, enc >> 1);
		return buf;
	}
	snprintf(buf, cap, "%c%" PRIu64, tg_mpi_handle_letter(sub), enc >> 1);
	return buf;
}

/* An encoded MPI handle, as tg_mpih_str() gives it. */
static void sb_mpih(struct tg_sb *b, int sub, uint64_t enc)
{
	char buf[64];

	if (enc & 1) {
		sb_puts(b, tg_mpih_str(buf, sizeof(buf), sub, enc));
		return;
	}
	sb_putc(b, tg_mpi_handle_letter(sub));
	sb_u64(b, enc >> 1);
}

static void sb_octal(struct tg_sb *b, uint64_t v)
{
	char t[24];
	int n = sizeof(t);

	do {
		t[--n] = (char)('0' + (v & 7));
		v >>= 3;
	} while (v);
	sb_mem(b, t + n, sizeof(t) - (size_t)n);
}

/* "[a,b,c]" of the @n integers at @a. */
static void sb_ints(struct tg_sb *b, const int64_t *a, int64_t n)
{
	int64_t i;

	sb_putc(b, '[');
	for (i = 0; i < n; i++) {
		if (i)
			sb_putc(b, ',');
		sb_i64(b, a[i]);
	}
	sb_putc(b, ']');
}

/* A JSON string of @s; bytes that are not UTF-8 become U+FFFD so that no
 * value is ever lost (json_string() refuses such input). */
json_t *tg_jstr(const char *s)
{
	json_t *j;
	size_t n, i, o = 0;
	char *t;

	if (!s)
		return json_null();
	if ((j = json_string(s)))
		return j;
	n = strlen(s);
	t = malloc(3 * n + 1);
	if (!t)
		return json_null();
	for (i = 0; i < n; i++) {
		if ((unsigned char)s[i] < 0x80) {
			t[o++] = s[i];
		} else {
			t[o++] = (char)0xef;
			t[o++] = (char)0xbf;
			t[o++] = (char)0xbd;
		}
	}
	t[o] = 0;
	j = json_string(t);
	free(t);
	return j ? j : json_null();
}

static json_t *json_ints(const int64_t *a, int64_t n)
{
	json_t *j = json_array();
	int64_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(j, json_integer(a[i]));
	return j;
}

/* ---- numbers ------------------------------------------------------------------ */

void tg_tk_int(struct tg_sb *b, int sub, const struct tg_val *v)
{
	(void)sub;
	sb_i64(b, v->i);
}

void tg_tk_uint(struct tg_sb *b, int sub, const struct tg_val *v)
{
	(void)sub;
	sb_u64(b, (uint64_t)v->i);
}

struct json_t *tg_jk_int(int sub, const struct tg_val *v)
{
	(void)sub;
	return json_integer(v->i);
}

struct json_t *tg_jk_uint(int sub, const struct tg_val *v)
{
	return tg_jk_int(sub, v);
}

/* ---- kinds with a symbolic form (text and JSON alike, else the number) --- */

/* The symbol of @v of kind @k into @buf, or NULL when it is a plain number. */
static const char *sym(char *buf, size_t cap, int k, const struct tg_val *v)
{
	switch (k) {
	case TG_K_FD:
		return v->i == -100 ? "AT_FDCWD" : NULL;
	case TG_K_OFLAGS:
		tg_oflags_str(buf, cap, (uint64_t)v->i);
		return buf;
	case TG_K_HEX:
		snprintf(buf, cap, "0x%" PRIx64, (uint64_t)v->i);
		return buf;
	case TG_K_WHENCE:
		return tg_whence_name(v->i);
	case TG_K_FCNTL:
		return tg_fcntl_name(v->i);
	default:
		return NULL;
	}
}

#define SYM_KIND(name, K)                                                      \
	void tg_tk_##name(struct tg_sb *b, int sub, const struct tg_val *v)    \
	{                                                                      \
		char buf[256];                                                 \
		const char *s = sym(buf, sizeof(buf), K, v);                   \
		(void)sub;                                                     \
		if (s)                                                         \
			sb_puts(b, s);                                         \
		else                                                           \
			sb_i64(b, v->i);                                       \
	}                                                                      \
	struct json_t *tg_jk_##name(int sub, const struct tg_val *v)           \
	{                                                                      \
		char buf[256];                                                 \
		const char *s = sym(buf, sizeof(buf), K, v);                   \
		(void)sub;                                                     \
		return s ? json_string(s) : json_integer(v->i);                \
	}

SYM_KIND(fd, TG_K_FD)
SYM_KIND(oflags, TG_K_OFLAGS)
SYM_KIND(hex, TG_K_HEX)
SYM_KIND(whence, TG_K_WHENCE)
SYM_KIND(fcntl, TG_K_FCNTL)

void tg_tk_mode(struct tg_sb *b, int sub, const struct tg_val *v)
{
	(void)sub;
	if (v->i)
		sb_putc(b, '0');
	sb_octal(b, (uint64_t)v->i);
}

struct json_t *tg_jk_mode(int sub, const struct tg_val *v)
{
	char buf[32];

	(void)sub;
	snprintf(buf, sizeof(buf), v->i ? "0%" PRIo64 : "%" PRIo64, (uint64_t)v->i);
	return json_string(buf);
}

/* Streams, directories and buffers: "s0", "d0", "b1"; NULL for none. */
#define REF_KIND(name, letter, base)                                           \
	void tg_tk_##name(struct tg_sb *b, int sub, const struct tg_val *v)    \
	{                                                                      \
		(void)sub;                                                     \
		if (!v->i) {                                                   \
			sb_mem(b, "NULL", 4);                                  \
			return;                                                \
		}                                                              \
		sb_putc(b, letter);                                            \
		sb_i64(b, v->i - (base));                                      \
	}                                                                      \
	struct json_t *tg_jk_##name(int sub, const struct tg_val *v)           \
	{                                                                      \
		char buf[32];                                                  \
		(void)sub;                                                     \
		if (!v->i)                                                     \
			return json_null();                                    \
		snprintf(buf, sizeof(buf), "%c%" PRId64, letter, v->i - (base)); \
		return json_string(buf);                                       \
	}

REF_KIND(stream, 's', 1)
REF_KIND(dir, 'd', 1)
REF_KIND(buf, 'b', 0)

/* ---- strings ----------------------------------------------------------------- */

void tg_tk_str(struct tg_sb *b, int sub, const struct tg_val *v)
{
	(void)sub;
	tg_sb_quoted(b, v->s);
}

struct json_t *tg_jk_str(int sub, const struct tg_val *v)
{
	(void)sub;
	return tg_jstr(v->s);
}

/* ---- structures ---------------------------------------------------------------- */

void tg_tk_stat(struct tg_sb *b, int sub, const struct tg_val *v)
{
	(void)sub;
	if (!v->present) {
		sb_putc(b, '-');
		return;
	}
	sb_mem(b, "size:", 5);
	sb_i64(b, v->i);
	sb_mem(b, ",mode:0", 7);
	sb_octal(b, v->u);
}

struct json_t *tg_jk_stat(int sub, const struct tg_val *v)
{
	(void)sub;
	if (!v->present)
		return json_null();
	return json_pack("{s:I,s:I}", "size", (json_int_t)v->i, "mode", (json_int_t)v->u);
}

/* A struct flock: "{F_WRLCK,SEEK_SET,0,4096}", the owner F_GETLK found
 * appended as ",pid:N"; "-" when the record has none. */
void tg_tk_flock(struct tg_sb *b, int sub, const struct tg_val *v)
{
	const char *n;
	int i;

	(void)sub;
	if (v->i != 5) {
		sb_putc(b, '-');
		return;
	}
	sb_putc(b, '{');
	for (i = 0; i < 4; i++) {
		if (i)
			sb_putc(b, ',');
		n = i == 0 ? tg_locktype_name(v->arr[0]) :
		    i == 1 ? tg_whence_name(v->arr[1]) : NULL;
		if (n)
			sb_puts(b, n);
		else
			sb_i64(b, v->arr[i]);
	}
	if (v->arr[4]) {
		sb_mem(b, ",pid:", 5);
		sb_i64(b, v->arr[4]);
	}
	sb_putc(b, '}');
}

struct json_t *tg_jk_flock(int sub, const struct tg_val *v)
{
	(void)sub;
	if (v->i != 5)
		return json_null();
	return json_pack("{s:I,s:I,s:I,s:I,s:I}", "type", (json_int_t)v->arr[0],
			 "whence", (json_int_t)v->arr[1], "start", (json_int_t)v->arr[2],
			 "len", (json_int_t)v->arr[3], "pid", (json_int_t)v->arr[4]);
}

void tg_tk_ints(struct tg_sb *b, int sub, const struct tg_val *v)
{
	(void)sub;
	sb_ints(b, v->arr, v->i);
}

struct json_t *tg_jk_ints(int sub, const struct tg_val *v)
{
	(void)sub;
	return json_ints(v->arr, v->i);
}

/* ---- MPI -------------------------------------------------------------------- */

void tg_tk_mpih(struct tg_sb *b, int sub, const struct tg_val *v)
{
	sb_mpih(b, sub, (uint64_t)v->i);
}

struct json_t *tg_jk_mpih(int sub, const struct tg_val *v)
{
	char buf[64];

	return json_string(tg_mpih_str(buf, sizeof(buf), sub, (uint64_t)v->i));
}

void tg_tk_mpiharr(struct tg_sb *b, int sub, const struct tg_val *v)
{
	int64_t i;

	sb_putc(b, '[');
	for (i = 0; i < v->i; i++) {
		if (i)
			sb_putc(b, ',');
		sb_mpih(b, sub, (uint64_t)v->arr[i]);
	}
	sb_putc(b, ']');
}

struct json_t *tg_jk_mpiharr(int sub, const struct tg_val *v)
{
	json_t *a = json_array();
	char buf[64];
	int64_t i;

	for (i = 0; i < v->i; i++)
		json_array_append_new(a, json_string(tg_mpih_str(buf, sizeof(buf), sub,
								  (uint64_t)v->arr[i])));
	return a;
}

void tg_tk_iostatus(struct tg_sb *b, int sub, const struct tg_val *v)
{
	(void)sub;
	if (!v->present) {
		sb_putc(b, '-');
		return;
	}
	sb_mem(b, "{bytes:", 7);
	sb_i64(b, v->i);
	sb_putc(b, '}');
}

struct json_t *tg_jk_iostatus(int sub, const struct tg_val *v)
{
	(void)sub;
	if (!v->present)
		return json_null();
	return json_pack("{s:I}", "bytes", (json_int_t)v->i);
}

static void sb_status(struct tg_sb *b, int64_t src, int64_t tag)
{
	sb_mem(b, "{src:", 5);
	sb_i64(b, src);
	sb_mem(b, ",tag:", 5);
	sb_i64(b, tag);
	sb_putc(b, '}');
}

void tg_tk_status(struct tg_sb *b, int sub, const struct tg_val *v)
{
	(void)sub;
	if (!v->present)
		sb_putc(b, '-');
	else
		sb_status(b, v->i, (int64_t)v->u);
}

struct json_t *tg_jk_status(int sub, const struct tg_val *v)
{
	(void)sub;
	if (!v->present)
		return json_null();
	return json_pack("{s:I,s:I}", "source", (json_int_t)v->i, "tag",
			 (json_int_t)(int64_t)v->u);
}

void tg_tk_statuses(struct tg_sb *b, int sub, const struct tg_val *v)
{
	int64_t i;

	(void)sub;
	sb_putc(b, '[');
	for (i = 0; i < v->i; i++) {
		if (i)
			sb_putc(b, ',');
		sb_status(b, v->arr[2 * i], v->arr[2 * i + 1]);
	}
	sb_putc(b, ']');
}

struct json_t *tg_jk_statuses(int sub, const struct tg_val *v)
{
	json_t *a = json_array();
	int64_t i;

	(void)sub;
	for (i = 0; i < v->i; i++)
		json_array_append_new(a, json_pack("{s:I,s:I}", "source",
						   (json_int_t)v->arr[2 * i], "tag",
						   (json_int_t)v->arr[2 * i + 1]));
	return a;
}

/* ---- HDF5 ------------------------------------------------------------------- */

void tg_tk_hid(struct tg_sb *b, int sub, const struct tg_val *v)
{
	char buf[256];

	sb_puts(b, tg_hid_str(buf, sizeof(buf), sub, (uint64_t)v->i));
}

struct json_t *tg_jk_hid(int sub, const struct tg_val *v)
{
	char buf[256];

	if ((uint64_t)v->i <= 1 && (v->i == 1 || sub == TG_HZ_NONE))
		return json_integer(v->i ? -1 : 0);
	return json_string(tg_hid_str(buf, sizeof(buf), sub, (uint64_t)v->i));
}

void tg_tk_enum(struct tg_sb *b, int sub, const struct tg_val *v)
{
	char buf[256];

	sb_puts(b, tg_enum_str(buf, sizeof(buf), sub, v->i));
}

struct json_t *tg_jk_enum(int sub, const struct tg_val *v)
{
	char buf[256];
	const char *s = tg_enum_str(buf, sizeof(buf), sub, v->i);

	return s[0] == '-' || (s[0] >= '0' && s[0] <= '9') ? json_integer(v->i) : json_string(s);
}

void tg_tk_dims(struct tg_sb *b, int sub, const struct tg_val *v)
{
	int64_t i;

	if (!v->present) {
		sb_mem(b, "NULL", 4);
		return;
	}
	sb_putc(b, '[');
	for (i = 0; i < v->i; i++) {
		if (i)
			sb_putc(b, ',');
		if (sub == TG_DIMS_HSIZE && v->arr[i] == -1)
			sb_puts(b, "H5S_UNLIMITED");
		else
			sb_i64(b, v->arr[i]);
	}
	sb_putc(b, ']');
}

struct json_t *tg_jk_dims(int sub, const struct tg_val *v)
{
	json_t *a;
	int64_t i;

	if (!v->present)
		return json_null();
	a = json_array();
	for (i = 0; i < v->i; i++)
		json_array_append_new(a, sub == TG_DIMS_HSIZE && v->arr[i] == -1
						 ? json_string("H5S_UNLIMITED")
						 : json_integer(v->arr[i]));
	return a;
}
