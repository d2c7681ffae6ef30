/*
 * text.c - the text and JSON forms of records (tangram-text(5)).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "calltab.h"
#include "h5names.h"
#include "names.h"
#include "tg.h"
#include "banned.h"

/*
 * A call line is built in a growable buffer and written with one fwrite:
 * stdio's printf machinery costs several times the decoding of a record.
 */
struct sb {
	char *p;
	size_t len, cap;
};

static _Thread_local struct sb line;

static void sb_grow(struct sb *b, size_t n)
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

static inline void sb_mem(struct sb *b, const char *s, size_t n)
{
	if (b->cap - b->len < n)
		sb_grow(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static inline void sb_putc(struct sb *b, char c)
{
	if (b->len == b->cap)
		sb_grow(b, 1);
	b->p[b->len++] = c;
}

static inline void sb_puts(struct sb *b, const char *s)
{
	sb_mem(b, s, strlen(s));
}

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline void sb_u64(struct sb *b, uint64_t v)
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
		t[--n] = digits2[d + 1];
		t[--n] = digits2[d];
	}
	if (v >= 10) {
		t[--n] = digits2[v * 2 + 1];
		t[--n] = digits2[v * 2];
	} else {
		t[--n] = (char)('0' + v);
	}
	sb_mem(b, t + n, sizeof(t) - (size_t)n);
}

static void sb_i64(struct sb *b, int64_t v)
{
	if (v < 0) {
		sb_putc(b, '-');
		sb_u64(b, -(uint64_t)v);
	} else {
		sb_u64(b, (uint64_t)v);
	}
}

/* Seconds and nanoseconds of @ns as "S.NNNNNNNNN". */
static inline void sb_time(struct sb *b, uint64_t ns)
{
	char t[10];
	unsigned f = (unsigned)(ns % 1000000000u), d;
	int i;

	sb_u64(b, ns / 1000000000u);
	t[0] = '.';
	for (i = 8; i >= 2; i -= 2) {
		d = f % 100 * 2;
		f /= 100;
		t[i] = digits2[d];
		t[i + 1] = digits2[d + 1];
	}
	t[1] = (char)('0' + f);
	sb_mem(b, t, sizeof(t));
}

static void sb_quoted(struct sb *b, const char *s)
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

/* Print @s quoted, with C escapes for quotes, backslashes and non-printables. */
static void put_quoted(FILE *out, const char *s)
{
	struct sb b = { 0, 0, 0 };

	sb_quoted(&b, s);
	fwrite(b.p, 1, b.len, out);
	free(b.p);
}

static void rank_str(char *buf, size_t cap, const struct tg_header *h)
{
	if (h->rank >= 0)
		snprintf(buf, cap, "%" PRId64, h->rank);
	else
		snprintf(buf, cap, "p%" PRIu64, h->pid);
}

/* Symbolic rendering of value @v of kind @k into @buf, if it has one. */
static const char *sym(char *buf, size_t cap, int k, const struct tg_val *v)
{
	const char *n;

	switch (k) {
	case TG_K_FD:
		if (v->i == -100)
			return "AT_FDCWD";
		return NULL;
	case TG_K_OFLAGS:
		tg_oflags_str(buf, cap, (uint64_t)v->i);
		return buf;
	case TG_K_MODE:
		snprintf(buf, cap, v->i ? "0%" PRIo64 : "%" PRIo64, (uint64_t)v->i);
		return buf;
	case TG_K_HEX:
		snprintf(buf, cap, "0x%" PRIx64, (uint64_t)v->i);
		return buf;
	case TG_K_STREAM:
		if (!v->i)
			return "NULL";
		snprintf(buf, cap, "s%" PRId64, v->i - 1);
		return buf;
	case TG_K_DIR:
		if (!v->i)
			return "NULL";
		snprintf(buf, cap, "d%" PRId64, v->i - 1);
		return buf;
	case TG_K_BUF:
		if (!v->i)
			return "NULL";
		snprintf(buf, cap, "b%" PRId64, v->i);
		return buf;
	case TG_K_WHENCE:
		return tg_whence_name(v->i);
	case TG_K_FCNTL:
		n = tg_fcntl_name(v->i);
		return n;
	default:
		return NULL;
	}
}

/* An encoded MPI handle of kind @sub: "MPI_INT", "c3", or the raw value. */
static const char *mpih_str(char *buf, size_t cap, int sub, uint64_t enc)
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

/* An encoded MPI handle, as mpih_str() gives it. */
static void sb_mpih(struct sb *b, int sub, uint64_t enc)
{
	char buf[64];

	if (enc & 1) {
		sb_puts(b, mpih_str(buf, sizeof(buf), sub, enc));
		return;
	}
	sb_putc(b, tg_mpi_handle_letter(sub));
	sb_u64(b, enc >> 1);
}

static void sb_octal(struct sb *b, uint64_t v)
{
	char t[24];
	int n = sizeof(t);

	do {
		t[--n] = (char)('0' + (v & 7));
		v >>= 3;
	} while (v);
	sb_mem(b, t + n, sizeof(t) - (size_t)n);
}

/* A struct flock: "{F_WRLCK,SEEK_SET,0,4096}", the owner F_GETLK found
 * appended as ",pid:N"; "-" when the record has none. */
static void text_flock(struct sb *b, const struct tg_val *v)
{
	const char *n;
	int i;

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

static void text_val(struct sb *b, int k, int sub, const struct tg_val *v)
{
	char buf[256];
	const char *s;
	int64_t i;

	switch (k) {
	case TG_K_INT:
	case TG_K_SIGNED_OFF:
		sb_i64(b, v->i);
		return;
	case TG_K_HID:
		sb_puts(b, tg_hid_str(buf, sizeof(buf), sub, (uint64_t)v->i));
		return;
	case TG_K_ENUM:
		sb_puts(b, tg_enum_str(buf, sizeof(buf), sub, v->i));
		return;
	case TG_K_HSIZEARR:
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
		return;
	case TG_K_MPIH:
		sb_mpih(b, sub, (uint64_t)v->i);
		return;
	case TG_K_FLOCK:
		text_flock(b, v);
		return;
	case TG_K_MPIHARR:
		sb_putc(b, '[');
		for (i = 0; i < v->i; i++) {
			if (i)
				sb_putc(b, ',');
			sb_mpih(b, sub, (uint64_t)v->arr[i]);
		}
		sb_putc(b, ']');
		return;
	case TG_K_MPIIOSTATUS:
		if (!v->present) {
			sb_putc(b, '-');
		} else {
			sb_mem(b, "{bytes:", 7);
			sb_i64(b, v->i);
			sb_putc(b, '}');
		}
		return;
	case TG_K_MPISTATUS:
		if (!v->present) {
			sb_putc(b, '-');
		} else {
			sb_mem(b, "{src:", 5);
			sb_i64(b, v->i);
			sb_mem(b, ",tag:", 5);
			sb_i64(b, (int64_t)v->u);
			sb_putc(b, '}');
		}
		return;
	case TG_K_MPISTATUSES:
		sb_putc(b, '[');
		for (i = 0; i < v->i; i++) {
			sb_mem(b, i ? ",{src:" : "{src:", i ? 6 : 5);
			sb_i64(b, v->arr[2 * i]);
			sb_mem(b, ",tag:", 5);
			sb_i64(b, v->arr[2 * i + 1]);
			sb_putc(b, '}');
		}
		sb_putc(b, ']');
		return;
	case TG_K_STR:
	case TG_K_PATH:
		sb_quoted(b, v->s);
		return;
	case TG_K_UINT:
		sb_u64(b, (uint64_t)v->i);
		return;
	case TG_K_STAT:
		if (!v->present) {
			sb_putc(b, '-');
		} else {
			sb_mem(b, "size:", 5);
			sb_i64(b, v->i);
			sb_mem(b, ",mode:0", 7);
			sb_octal(b, v->u);
		}
		return;
	case TG_K_IOV:
	case TG_K_INTARR:
		sb_putc(b, '[');
		for (i = 0; i < v->i; i++) {
			if (i)
				sb_putc(b, ',');
			sb_i64(b, v->arr[i]);
		}
		sb_putc(b, ']');
		return;
	case TG_K_MODE:
		if (v->i)
			sb_putc(b, '0');
		sb_octal(b, (uint64_t)v->i);
		return;
	case TG_K_STREAM:
	case TG_K_DIR:
	case TG_K_BUF:
		if (!v->i) {
			sb_mem(b, "NULL", 4);
			return;
		}
		sb_putc(b, k == TG_K_STREAM ? 's' : k == TG_K_DIR ? 'd' : 'b');
		sb_i64(b, k == TG_K_BUF ? v->i : v->i - 1);
		return;
	}
	s = sym(buf, sizeof(buf), k, v);
	if (s)
		sb_puts(b, s);
	else
		sb_i64(b, v->i);
}

const char *tg_text_val(int k, int sub, const struct tg_val *v, size_t *len)
{
	static _Thread_local struct sb vb;

	vb.len = 0;
	text_val(&vb, k, sub, v);
	sb_putc(&vb, 0);
	*len = vb.len - 1;
	return vb.p;
}

/* A JSON string of @s; bytes that are not UTF-8 become U+FFFD so that no
 * value is ever lost (json_string() refuses such input). */
static json_t *jstr(const char *s)
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

static void text_time(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

static uint64_t rel(const struct tg_header *h, uint64_t t,
		    const struct tg_textopts *o)
{
	uint64_t abs = h->clock_base + t;

	return abs >= o->zero ? abs - o->zero : 0;
}

static json_t *json_val(int k, int sub, const struct tg_val *v)
{
	char buf[256];
	const char *s;
	json_t *a;
	int64_t i;

	switch (k) {
	case TG_K_HID:
		if ((uint64_t)v->i <= 1 && (v->i == 1 || sub == TG_HZ_NONE))
			return json_integer(v->i ? -1 : 0);
		return json_string(tg_hid_str(buf, sizeof(buf), sub, (uint64_t)v->i));
	case TG_K_ENUM:
		s = tg_enum_str(buf, sizeof(buf), sub, v->i);
		return s[0] == '-' || (s[0] >= '0' && s[0] <= '9') ? json_integer(v->i)
								   : json_string(s);
	case TG_K_HSIZEARR:
		if (!v->present)
			return json_null();
		a = json_array();
		for (i = 0; i < v->i; i++)
			json_array_append_new(a, sub == TG_DIMS_HSIZE && v->arr[i] == -1
							 ? json_string("H5S_UNLIMITED")
							 : json_integer(v->arr[i]));
		return a;
	case TG_K_MPIH:
		return json_string(mpih_str(buf, sizeof(buf), sub, (uint64_t)v->i));
	case TG_K_MPIHARR:
		a = json_array();
		for (i = 0; i < v->i; i++)
			json_array_append_new(a, json_string(mpih_str(buf, sizeof(buf), sub,
								      (uint64_t)v->arr[i])));
		return a;
	case TG_K_MPIIOSTATUS:
		if (!v->present)
			return json_null();
		return json_pack("{s:I}", "bytes", (json_int_t)v->i);
	case TG_K_MPISTATUS:
		if (!v->present)
			return json_null();
		return json_pack("{s:I,s:I}", "source", (json_int_t)v->i, "tag",
				 (json_int_t)(int64_t)v->u);
	case TG_K_MPISTATUSES:
		a = json_array();
		for (i = 0; i < v->i; i++)
			json_array_append_new(a, json_pack("{s:I,s:I}", "source",
							   (json_int_t)v->arr[2 * i], "tag",
							   (json_int_t)v->arr[2 * i + 1]));
		return a;
	case TG_K_STR:
	case TG_K_PATH:
		return jstr(v->s);
	case TG_K_STAT:
		if (!v->present)
			return json_null();
		return json_pack("{s:I,s:I}", "size", (json_int_t)v->i, "mode",
				 (json_int_t)v->u);
	case TG_K_FLOCK:
		if (v->i != 5)
			return json_null();
		return json_pack("{s:I,s:I,s:I,s:I,s:I}", "type", (json_int_t)v->arr[0],
				 "whence", (json_int_t)v->arr[1], "start", (json_int_t)v->arr[2],
				 "len", (json_int_t)v->arr[3], "pid", (json_int_t)v->arr[4]);
	case TG_K_IOV:
	case TG_K_INTARR:
		a = json_array();
		for (i = 0; i < v->i; i++)
			json_array_append_new(a, json_integer(v->arr[i]));
		return a;
	case TG_K_UINT:
	case TG_K_INT:
	case TG_K_SIGNED_OFF:
		return json_integer(v->i);
	}
	if ((k == TG_K_STREAM || k == TG_K_DIR || k == TG_K_BUF) && !v->i)
		return json_null();
	s = sym(buf, sizeof(buf), k, v);
	return s ? json_string(s) : json_integer(v->i);
}

static void json_rec(FILE *out, const struct tg_header *h, const struct tg_rec *r,
		     const struct tg_textopts *o)
{
	const struct tg_calldesc *d = r->call;
	char rk[32];
	json_t *obj, *args;
	struct tg_val rv;
	int i;

	rank_str(rk, sizeof(rk), h);
	obj = json_object();
	if (h->rank >= 0)
		json_object_set_new(obj, "rank", json_integer(h->rank));
	else
		json_object_set_new(obj, "rank", json_string(rk));
	json_object_set_new(obj, "pid", json_integer((json_int_t)h->pid));
	json_object_set_new(obj, "tid", json_integer(r->tid));
	json_object_set_new(obj, "seq", json_integer((json_int_t)r->seq));
	json_object_set_new(obj, "tstart_ns",
			    json_integer((json_int_t)rel(h, r->tstart, o)));
	json_object_set_new(obj, "tend_ns",
			    json_integer((json_int_t)rel(h, r->tstart + r->dur, o)));
	json_object_set_new(obj, "depth", json_integer(r->depth));
	json_object_set_new(obj, "layer", json_string(tg_layer_name(d->layer)));
	json_object_set_new(obj, "func", json_string(d->name));
	memset(&rv, 0, sizeof(rv));
	rv.i = r->ret;
	if (d->retkind == TG_K_VOID)
		json_object_set_new(obj, "ret", json_null());
	else
		json_object_set_new(obj, "ret", json_val(d->retkind, d->retsub, &rv));
	args = json_object();
	for (i = 0; i < d->nargs && i < TG_MAX_ARGS; i++)
		json_object_set_new(args, d->args[i].name,
				    json_val(d->args[i].kind, d->args[i].sub, &r->args[i]));
	json_object_set_new(obj, "args", args);
	if (r->err) {
		const char *en = tg_errno_name(r->err);
		json_object_set_new(obj, "errno", en ? json_string(en)
						     : json_integer(r->err));
	}
	if (r->parent >= 0)
		json_object_set_new(obj, "parent", json_integer(r->parent));
	json_dumpf(obj, out, JSON_COMPACT | JSON_ENSURE_ASCII);
	putc('\n', out);
	json_decref(obj);
}

static void put_arr(FILE *out, const struct tg_val *v, int sub)
{
	char buf[64];
	int64_t i;

	putc('[', out);
	for (i = 0; i < v->i; i++) {
		if (i)
			putc(',', out);
		if (sub)
			fputs(mpih_str(buf, sizeof(buf), sub, (uint64_t)v->arr[i]), out);
		else
			fprintf(out, "%" PRId64, v->arr[i]);
	}
	putc(']', out);
}

static json_t *json_arr(const struct tg_val *v, int sub)
{
	json_t *a = json_array();
	char buf[64];
	int64_t i;

	for (i = 0; i < v->i; i++)
		json_array_append_new(a, sub ? json_string(mpih_str(buf, sizeof(buf), sub,
								    (uint64_t)v->arr[i]))
					     : json_integer(v->arr[i]));
	return a;
}

/* "#comm" and "#type" definition lines. */
static void text_def(FILE *out, const char *rk, const struct tg_rec *r,
		     const struct tg_textopts *o)
{
	int comm = r->type == TG_REC_COMM;
	const char *cn = comm ? NULL : tg_mpi_combiner_name(r->args[1].i);
	char id[64];

	mpih_str(id, sizeof(id), comm ? TG_H_COMM : TG_H_DTYPE, (uint64_t)r->args[0].i);
	if (o->json) {
		json_t *obj = json_object();
		json_object_set_new(obj, "def", json_string(comm ? "comm" : "type"));
		json_object_set_new(obj, "rank", json_string(rk));
		json_object_set_new(obj, "id", json_string(id));
		if (comm) {
			json_object_set_new(obj, "members", json_arr(&r->args[1], 0));
			if (r->args[2].i >= 0)
				json_object_set_new(obj, "remote", json_arr(&r->args[2], 0));
		} else {
			json_object_set_new(obj, "combiner", cn ? json_string(cn)
								: json_integer(r->args[1].i));
			json_object_set_new(obj, "ints", json_arr(&r->args[2], 0));
			json_object_set_new(obj, "aints", json_arr(&r->args[3], 0));
			json_object_set_new(obj, "types", json_arr(&r->args[4], TG_H_DTYPE));
		}
		json_dumpf(obj, out, JSON_COMPACT | JSON_ENSURE_ASCII);
		putc('\n', out);
		json_decref(obj);
		return;
	}
	if (comm) {
		fprintf(out, "#comm\trank=%s\tid=%s\tmembers=", rk, id);
		put_arr(out, &r->args[1], 0);
		if (r->args[2].i >= 0) {
			fputs("\tremote=", out);
			put_arr(out, &r->args[2], 0);
		}
	} else {
		fprintf(out, "#type\trank=%s\tid=%s\tcombiner=", rk, id);
		if (cn)
			fputs(cn, out);
		else
			fprintf(out, "%" PRId64, r->args[1].i);
		fputs("\tints=", out);
		put_arr(out, &r->args[2], 0);
		fputs("\taints=", out);
		put_arr(out, &r->args[3], 0);
		fputs("\ttypes=", out);
		put_arr(out, &r->args[4], TG_H_DTYPE);
	}
	putc('\n', out);
}

/* "#info" definition line: the key/value pairs of an MPI_Info. */
static void text_info(FILE *out, const char *rk, const struct tg_rec *r,
		      const struct tg_textopts *o)
{
	char id[64];
	int64_t i;

	mpih_str(id, sizeof(id), TG_H_INFO, (uint64_t)r->args[0].i);
	if (o->json) {
		json_t *obj = json_object(), *kv = json_object();
		json_object_set_new(obj, "def", json_string("info"));
		json_object_set_new(obj, "rank", json_string(rk));
		json_object_set_new(obj, "id", json_string(id));
		for (i = 0; i < r->args[1].i; i++)
			json_object_set_new(kv, r->kv[2 * i], jstr(r->kv[2 * i + 1]));
		json_object_set_new(obj, "kv", kv);
		json_dumpf(obj, out, JSON_COMPACT | JSON_ENSURE_ASCII);
		putc('\n', out);
		json_decref(obj);
		return;
	}
	fprintf(out, "#info\trank=%s\tid=%s\tkv=", rk, id);
	for (i = 0; i < r->args[1].i; i++) {
		size_t kl = strlen(r->kv[2 * i]), vl = strlen(r->kv[2 * i + 1]);
		char *pair = malloc(kl + vl + 2);
		if (!pair)
			continue;
		memcpy(pair, r->kv[2 * i], kl);
		pair[kl] = '=';
		memcpy(pair + kl + 1, r->kv[2 * i + 1], vl + 1);
		if (i)
			putc(' ', out);
		put_quoted(out, pair);
		free(pair);
	}
	putc('\n', out);
}

void tg_text_rec(FILE *out, const struct tg_header *h, const struct tg_rec *r,
		 const struct tg_textopts *o)
{
	const struct tg_calldesc *d = r->call;
	struct tg_val rv;
	struct sb *b;
	char rk[32];
	int i;

	if (r->type == TG_REC_CALL && !o->json)
		goto call;
	rank_str(rk, sizeof(rk), h);
	if (r->type == TG_REC_RANK) {
		if (o->json)
			fprintf(out, "{\"def\":\"rank\",\"pid\":%" PRIu64 ",\"rank\":%" PRId64
				",\"world\":%" PRIu64 "}\n", h->pid, r->rank, r->world);
		else
			fprintf(out, "#rank\tpid=%" PRIu64 "\trank=%" PRId64 "\tworld=%" PRIu64
				"\n", h->pid, r->rank, r->world);
		return;
	}
	if (r->type == TG_REC_EXCLUDED) {
		if (o->json)
			fprintf(out, "{\"def\":\"excluded\",\"rank\":\"%s\",\"calls\":%" PRIu64
				"}\n", rk, r->excluded);
		else
			fprintf(out, "#excluded\trank=%s\tcalls=%" PRIu64 "\n", rk,
				r->excluded);
		return;
	}
	if (r->type == TG_REC_COMM || r->type == TG_REC_TYPE) {
		text_def(out, rk, r, o);
		return;
	}
	if (r->type == TG_REC_INFO) {
		text_info(out, rk, r, o);
		return;
	}
	if (r->type == TG_REC_CLOCK) {
		uint64_t base = r->sync_base - r->sync_t;
		if (o->json) {
			uint64_t t = rel(h, r->sync_t, o);
			fprintf(out, "{\"def\":\"clock\",\"rank\":\"%s\",\"sync\":%" PRIu64
				".%09" PRIu64 ",\"clock_base\":%" PRIu64 "}\n", rk,
				t / 1000000000u, t % 1000000000u, base);
		} else {
			fprintf(out, "#clock\trank=%s\tsync=", rk);
			text_time(out, rel(h, r->sync_t, o));
			fprintf(out, "\tclock_base=%" PRIu64 "\n", base);
		}
		return;
	}
	if (r->type != TG_REC_CALL)
		return;
	if (o->json) {
		json_rec(out, h, r, o);
		return;
	}
call:
	b = &line;
	b->len = 0;
	if (h->rank >= 0) {
		sb_i64(b, h->rank);
	} else {
		sb_putc(b, 'p');
		sb_u64(b, h->pid);
	}
	sb_putc(b, '\t');
	sb_u64(b, r->tid);
	sb_putc(b, '\t');
	sb_u64(b, r->seq);
	sb_putc(b, '\t');
	sb_time(b, rel(h, r->tstart, o));
	sb_putc(b, '\t');
	sb_time(b, rel(h, r->tstart + r->dur, o));
	sb_putc(b, '\t');
	sb_u64(b, r->depth);
	sb_putc(b, '\t');
	sb_puts(b, tg_layer_name(d->layer));
	sb_putc(b, '\t');
	sb_puts(b, d->name);
	sb_putc(b, '\t');
	memset(&rv, 0, sizeof(rv));
	rv.i = r->ret;
	if (d->retkind == TG_K_VOID)
		sb_putc(b, '-');
	else
		text_val(b, d->retkind, d->retsub, &rv);
	for (i = 0; i < d->nargs && i < TG_MAX_ARGS; i++) {
		sb_putc(b, '\t');
		sb_puts(b, d->args[i].name);
		sb_putc(b, '=');
		text_val(b, d->args[i].kind, d->args[i].sub, &r->args[i]);
	}
	if (r->err) {
		const char *en = tg_errno_name(r->err);
		sb_mem(b, "\terrno=", 7);
		if (en)
			sb_puts(b, en);
		else
			sb_i64(b, r->err);
	}
	if (r->parent >= 0) {
		sb_mem(b, "\tparent=", 8);
		sb_i64(b, r->parent);
	}
	sb_putc(b, '\n');
	fwrite_unlocked(b->p, 1, b->len, out);
}

void tg_text_proc(FILE *out, const struct tg_header *h, const struct tg_textopts *o)
{
	char rk[32];
	int i;

	rank_str(rk, sizeof(rk), h);
	if (o->json) {
		json_t *obj = json_object(), *argv = json_array();
		for (i = 0; i < h->argc; i++)
			json_array_append_new(argv, jstr(h->argv[i]));
		json_object_set_new(obj, "def", json_string("proc"));
		if (h->rank >= 0)
			json_object_set_new(obj, "rank", json_integer(h->rank));
		else
			json_object_set_new(obj, "rank", json_string(rk));
		json_object_set_new(obj, "world", json_integer((json_int_t)h->world));
		json_object_set_new(obj, "pid", json_integer((json_int_t)h->pid));
		json_object_set_new(obj, "ppid", json_integer((json_int_t)h->ppid));
		json_object_set_new(obj, "host", jstr(h->host));
		json_object_set_new(obj, "cwd", jstr(h->cwd));
		json_object_set_new(obj, "clock_base_ns",
				    json_integer((json_int_t)h->clock_base));
		json_object_set_new(obj, "argv", argv);
		if (h->run > 1)
			json_object_set_new(obj, "run", json_integer((json_int_t)h->run));
		json_dumpf(obj, out, JSON_COMPACT | JSON_ENSURE_ASCII);
		putc('\n', out);
		json_decref(obj);
		return;
	}
	fprintf(out, "#proc\trank=%s\tworld=%" PRIu64 "\tpid=%" PRIu64 "\tppid=%" PRIu64
		"\thost=", rk, h->world, h->pid, h->ppid);
	put_quoted(out, h->host);
	fputs("\tcwd=", out);
	put_quoted(out, h->cwd);
	fprintf(out, "\tclock_base=%" PRIu64 "\targv=", h->clock_base);
	for (i = 0; i < h->argc; i++) {
		if (i)
			putc(' ', out);
		put_quoted(out, h->argv[i]);
	}
	if (h->run > 1)
		fprintf(out, "\trun=%" PRIu64, h->run);
	putc('\n', out);
}
