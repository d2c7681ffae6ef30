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
#include "sb.h"
#include "kinds.h"
#include "banned.h"

static _Thread_local struct tg_sb line;

/* Print @s quoted, with C escapes for quotes, backslashes and non-printables. */
static void put_quoted(FILE *out, const char *s)
{
	struct tg_sb b = { 0, 0, 0 };

	tg_sb_quoted(&b, s);
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

const char *tg_text_val(int k, int sub, const struct tg_val *v, size_t *len)
{
	static _Thread_local struct tg_sb vb;

	vb.len = 0;
	tg_kinds[k].txt_put(&vb, sub, v);
	sb_putc(&vb, 0);
	*len = vb.len - 1;
	return vb.p;
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
		json_object_set_new(obj, "ret", tg_kinds[d->retkind].json_put(d->retsub, &rv));
	args = json_object();
	for (i = 0; i < d->nargs && i < TG_MAX_ARGS; i++)
		json_object_set_new(args, d->args[i].name,
				    tg_kinds[d->args[i].kind].json_put(d->args[i].sub, &r->args[i]));
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
			fputs(tg_mpih_str(buf, sizeof(buf), sub, (uint64_t)v->arr[i]), out);
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
		json_array_append_new(a, sub ? json_string(tg_mpih_str(buf, sizeof(buf), sub,
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

	tg_mpih_str(id, sizeof(id), comm ? TG_H_COMM : TG_H_DTYPE, (uint64_t)r->args[0].i);
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

	tg_mpih_str(id, sizeof(id), TG_H_INFO, (uint64_t)r->args[0].i);
	if (o->json) {
		json_t *obj = json_object(), *kv = json_object();
		json_object_set_new(obj, "def", json_string("info"));
		json_object_set_new(obj, "rank", json_string(rk));
		json_object_set_new(obj, "id", json_string(id));
		for (i = 0; i < r->args[1].i; i++)
			json_object_set_new(kv, r->kv[2 * i], tg_jstr(r->kv[2 * i + 1]));
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

/* "#repeat": the thread's call seq repeated count times more, from the
 * start of the first to the end of the last. */
static void text_repeat(FILE *out, const struct tg_header *h, const char *rk,
			const struct tg_rec *r, const struct tg_textopts *o)
{
	uint64_t t0 = rel(h, r->tstart, o), t1 = rel(h, r->tstart + r->dur, o);

	if (o->json) {
		fprintf(out, "{\"def\":\"repeat\",\"rank\":\"%s\",\"tid\":%u,\"seq\":%" PRIu64
			",\"count\":%" PRIu64 ",\"tstart_ns\":%" PRIu64 ",\"tend_ns\":%" PRIu64
			"}\n", rk, r->tid, r->seq, r->repeat, t0, t1);
		return;
	}
	fprintf(out, "#repeat\trank=%s\ttid=%u\tseq=%" PRIu64 "\tcount=%" PRIu64
		"\ttstart=", rk, r->tid, r->seq, r->repeat);
	text_time(out, t0);
	fputs("\ttend=", out);
	text_time(out, t1);
	putc('\n', out);
}

void tg_text_rec(FILE *out, const struct tg_header *h, const struct tg_rec *r,
		 const struct tg_textopts *o)
{
	const struct tg_calldesc *d = r->call;
	struct tg_val rv;
	struct tg_sb *b;
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
	if (r->type == TG_REC_REPEAT) {
		text_repeat(out, h, rk, r, o);
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
		tg_kinds[d->retkind].txt_put(b, d->retsub, &rv);
	for (i = 0; i < d->nargs && i < TG_MAX_ARGS; i++) {
		sb_putc(b, '\t');
		sb_puts(b, d->args[i].name);
		sb_putc(b, '=');
		tg_kinds[d->args[i].kind].txt_put(b, d->args[i].sub, &r->args[i]);
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
			json_array_append_new(argv, tg_jstr(h->argv[i]));
		json_object_set_new(obj, "def", json_string("proc"));
		if (h->rank >= 0)
			json_object_set_new(obj, "rank", json_integer(h->rank));
		else
			json_object_set_new(obj, "rank", json_string(rk));
		json_object_set_new(obj, "world", json_integer((json_int_t)h->world));
		json_object_set_new(obj, "pid", json_integer((json_int_t)h->pid));
		json_object_set_new(obj, "ppid", json_integer((json_int_t)h->ppid));
		json_object_set_new(obj, "host", tg_jstr(h->host));
		json_object_set_new(obj, "cwd", tg_jstr(h->cwd));
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
