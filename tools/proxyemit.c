/*
 * proxyemit.c - one call signature of a trace as a function of the proxy:
 * its values computed (proxyfit.c), buffers grown to the bytes it moves,
 * handles mapped from the trace's numbering to the run's, the call made,
 * the decoding state (offsets, new descriptors and streams) updated.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy.h"
#include "../libcommon/rec.h"
#include "../libcommon/tg.h"
#include "../libcommon/banned.h"

void proxy_emit_term(struct gen *g, struct term *t, unsigned ti, struct sb *out);
void proxy_merge(struct gen *g, struct term *t, size_t nt, uint32_t *canon);

/* Does @text name identifier @id? */
static int names(const char *text, const char *id, size_t n)
{
	const char *p;

	for (p = strstr(text, id); p; p = strstr(p + 1, id)) {
		unsigned char c = (unsigned char)p[n];
		if ((p == text || (p[-1] != '_' && !isalnum((unsigned char)p[-1]))) &&
		    c != '_' && !isalnum(c))
			return 1;
	}
	return 0;
}

static const char *const hkind[TG_H_COUNT] = {
	[TG_H_COMM] = "comm", [TG_H_GROUP] = "group", [TG_H_DTYPE] = "dtype",
	[TG_H_REQ] = "req", [TG_H_OP] = "op", [TG_H_INFO] = "info", [TG_H_FILE] = "file",
	[TG_H_WIN] = "win", [TG_H_ERRH] = "errh", [TG_H_MSG] = "msg",
};

static int is_path(const struct tg_argdesc *a)
{
	return a->kind == TG_K_PATH || strcmp(a->name, "filename") == 0 ||
	       strcmp(a->name, "path") == 0 || strcmp(a->name, "pathname") == 0 ||
	       strcmp(a->name, "oldpath") == 0 || strcmp(a->name, "newpath") == 0;
}

/* The element type of an input integer array of MPI call @d. */
static const char *arr_conv(const struct tg_calldesc *d, const struct tg_argdesc *a)
{
	if (strstr(a->name, "displacements") &&
	    (strstr(d->name, "hindexed") || strstr(d->name, "struct")) &&
	    !strstr(d->name, "hindexed_block"))
		return "tg_aints";
	if (strstr(d->name, "hindexed_block") && strstr(a->name, "displacements"))
		return "tg_aints";
	return "tg_ints";
}

static int out_dir(const struct tg_argdesc *a)
{
	return a->dir == TG_OUT || a->dir == TG_INOUT;
}

/*
 * An argument of MPI call @d that holds one of the library's constants,
 * which the tracer records as MPICH numbers them (shim/mpi-shim.h,
 * TG_RANK and TG_CONST): -1 for a rank (MPI_ANY_SOURCE, MPI_PROC_NULL,
 * MPI_ROOT), the kind of constant for tg_const_lib (0 an order, 1
 * distributions, 2 distribution arguments, 3 a lock type, 4 assert bits),
 * -2 for none.  The proxy turns them back
 * into the names of the MPI it is built with.
 */
static int mpi_const(const struct tg_calldesc *d, const struct tg_argdesc *a)
{
	static const char *const rank[] = { "source", "dest", "root", "target_rank",
					    "rank_source", "rank_dest", NULL };
	static const char *const cst[] = { "order", "array_of_distribs", "array_of_dargs",
					   "lock_type", "assert", NULL };
	int i;

	if (d->layer != TG_LAYER_MPI && d->layer != TG_LAYER_MPIIO)
		return -2;
	for (i = 0; rank[i]; i++)
		if (!strcmp(a->name, rank[i]))
			return -1;
	for (i = 0; cst[i]; i++)
		if (!strcmp(a->name, cst[i]))
			return i;
	return -2;
}

static int is_scalar(int k)
{
	return k == TG_K_INT || k == TG_K_UINT || k == TG_K_HEX || k == TG_K_FD ||
	       k == TG_K_OFLAGS || k == TG_K_MODE || k == TG_K_WHENCE || k == TG_K_FCNTL ||
	       k == TG_K_SIGNED_OFF || k == TG_K_STREAM || k == TG_K_BUF || k == TG_K_ENUM ||
	       k == TG_K_MPIH || k == TG_K_HID;
}

static int offset_slot(const struct tg_calldesc *d, int i)
{
	const struct tg_argdesc *a = &d->args[i];

	return a->kind == TG_K_SIGNED_OFF ||
	       (a->kind == TG_K_INT && d->layer == TG_LAYER_MPIIO && strcmp(a->name, "offset") == 0);
}

/* Is @e (a fitted expression) a constant?  Its value in *@v. */
static int constant(const char *e, long long *v)
{
	char *end;

	*v = strtoll(e, &end, 10);
	return end != e && strcmp(end, "LL") == 0;
}

/* Locals a<i> for the scalar arguments that are not constants (those go
 * into the call as they are: @cv, @isc by slot), the handle key first
 * for offsets. */
static void emit_values(struct gen *g, struct term *t, unsigned ti, struct sb *out,
			char *isc, long long *cv)
{
	const struct tg_calldesc *d = t->d;
	struct sb e = { 0 }, hk = { 0 };
	int i, h = -1;

	for (i = 0; i < d->nargs && h < 0; i++)
		if (d->args[i].kind == TG_K_FD || d->args[i].kind == TG_K_STREAM ||
		    (d->args[i].kind == TG_K_MPIH && d->args[i].sub == TG_H_FILE))
			h = i;
	if (h >= 0)
		sb_printf(&hk, "((long long)%d << 40 | a%d)", d->args[h].kind, h);
	else
		sb_printf(&hk, "-1LL");
	if (g->sleep) {
		fit_int(g, t, ti, 0, FLD_U, NULL, &e);
		sb_printf(out, "\ttg_sleep(%s);\n", e.s);
	}
	for (i = -1; i < d->nargs; i++) {
		const struct tg_argdesc *a = i < 0 ? NULL : &d->args[i];
		int fld = a && (a->kind == TG_K_MPISTATUS || a->kind == TG_K_MPIIOSTATUS) ? FLD_P : FLD_I;
		if (a && !is_scalar(a->kind) && fld != FLD_P && a->kind != TG_K_MPISTATUSES)
			continue;
		/* what an output integer was, no call reads */
		if (a && out_dir(a) && !offset_slot(d, i) &&
		    (a->kind == TG_K_INT || a->kind == TG_K_UINT || a->kind == TG_K_HEX ||
		     a->kind == TG_K_ENUM))
			continue;
		/* a buffer's id: only whether there is one counts */
		if (a && a->kind == TG_K_BUF)
			fld = FLD_NZ;
		if (!a && d->retkind != TG_K_FD && d->retkind != TG_K_HID && d->retkind != TG_K_STREAM)
			continue;
		e.n = 0;
		fit_int(g, t, ti, (size_t)i + 1, fld, a && offset_slot(d, i) && h != i ? hk.s : NULL, &e);
		isc[i + 1] = constant(e.s, &cv[i + 1]);
		if (!isc[i + 1] && a)
			sb_printf(out, "\tlong long a%d = %s;\n", i, e.s);
		else if (!isc[i + 1])
			sb_printf(out, "\tlong long ret = %s;\n", e.s);
		if (a && offset_slot(d, i))
			sb_printf(out, "\ttg_off_set(%s, a%d);\n", hk.s, i);
	}
	sb_release(&e);
	sb_release(&hk);
}

/* Is info argument @i of some call of @t made from its recorded contents? */
static int info_given(const struct gen *g, const struct term *t, int i)
{
	size_t s, k;

	for (s = 0; s < g->nst; s++) {
		for (k = 0; k < t->per[s].n; k++)
			if (t->per[s].v[k * t->nslots + (size_t)i + 1].u)
				return 1;
	}
	return 0;
}

/* One argument of the call, and what must happen before and after it. */
static void emit_arg(struct gen *g, struct term *t, unsigned ti, int i, struct sb *call,
		     struct sb *pre, struct sb *post)
{
	const struct tg_calldesc *d = t->d;
	const struct tg_argdesc *a = &d->args[i];
	struct sb p = { 0 }, n = { 0 };
	const char *hk = a->sub < TG_H_COUNT && hkind[a->sub] ? hkind[a->sub] : "comm";
	int w;

	switch (a->kind) {
	case TG_K_FD:
		/* dup2's new descriptor is the number itself */
		sb_printf(call, strcmp(a->name, "newfd") ? "tg_fd(a%d)" : "(int)a%d", i);
		break;
	case TG_K_STREAM:
		sb_printf(call, "tg_fp(a%d)", i);
		break;
	case TG_K_BUF:
		sb_printf(call, "(a%d ? (void *)%s : NULL)", i, out_dir(a) ? "tg_rbuf" : "tg_sbuf");
		break;
	case TG_K_STR:
	case TG_K_PATH:
		if (out_dir(a)) {
			sb_printf(call, "(void *)tg_out");
			break;
		}
		sb_printf(call, "%s(", is_path(a) ? "tg_path" : "");
		fit_str(g, t, ti, (size_t)i + 1, call);
		sb_printf(call, ")");
		break;
	case TG_K_STAT:
		sb_printf(call, "(void *)tg_out");
		break;
	case TG_K_IOV:
	case TG_K_INTARR:
	case TG_K_MPIHARR:
		if (out_dir(a) && a->kind == TG_K_INTARR) {
			sb_printf(call, "(void *)tg_out");
			break;
		}
		fit_arr(g, t, ti, (size_t)i + 1, &p, &n);
		if (a->kind == TG_K_IOV)
			sb_printf(call, "tg_iov(%s, %s)", p.s, n.s);
		else if (a->kind == TG_K_INTARR && (w = mpi_const(d, a)) >= 0)
			sb_printf(call, "tg_consts(%s, %s, %d)", p.s, n.s, w);
		else if (a->kind == TG_K_INTARR)
			sb_printf(call, "%s(%s, %s)", arr_conv(d, a), p.s, n.s);
		else if (!out_dir(a))
			sb_printf(call, "tg_ha_%s(%s, %s)", hk, p.s, n.s);
		else {
			sb_printf(pre, "\tconst long long *h%d = %s;\n\tlong long hn%d = %s;\n"
				  "\tvoid *hv%d = tg_ha_%s(h%d, hn%d);\n", i, p.s, i, n.s, i, hk, i, i);
			sb_printf(call, "hv%d", i);
			sb_printf(post, "\ttg_hback_%s(h%d, hn%d, hv%d);\n", hk, i, i, i);
		}
		break;
	case TG_K_MPIH:
		sb_printf(call, "tg_h%s_%s(a%d)", out_dir(a) ? "p" : "", hk, i);
		if (a->sub == TG_H_INFO && !out_dir(a) && info_given(g, t, i)) {
			sb_printf(pre, "\ttg_info_make(a%d, tg_infos[", i);
			fit_int(g, t, ti, (size_t)i + 1, FLD_U, NULL, pre);
			sb_printf(pre, "]);\n");
		}
		break;
	case TG_K_HID:
		if (out_dir(a))
			sb_printf(call, "(void *)tg_out");
		else
			sb_printf(call, "tg_hid(a%d)", i);
		break;
	case TG_K_HSIZEARR:
		if (out_dir(a)) {
			sb_printf(call, "(void *)tg_out");
			break;
		}
		/* NULL stays NULL: H5Screate_simple's maxdims, a hyperslab's stride */
		fit_int(g, t, ti, (size_t)i + 1, FLD_P, NULL, call);
		fit_arr(g, t, ti, (size_t)i + 1, &p, &n);
		sb_printf(call, " ? %s(%s, %s) : NULL", a->sub == TG_DIMS_HSIZE ? "tg_hsizes" :
			  "tg_hssizes", p.s, n.s);
		break;
	case TG_K_MPISTATUS:
	case TG_K_MPIIOSTATUS:
		sb_printf(call, "(a%d ? &tg_statuses[0] : MPI_STATUS_IGNORE)", i);
		break;
	case TG_K_MPISTATUSES:
		sb_printf(call, "(a%d ? tg_statuses : MPI_STATUSES_IGNORE)", i);
		break;
	default:
		/* each output integer a place of its own (MPI_Cart_shift's source
		 * and destination), past the arrays' */
		if (out_dir(a))
			sb_printf(call, "(void *)(tg_out + %d)", 1000 + i);
		else if ((w = mpi_const(d, a)) == -1)
			sb_printf(call, "tg_rank_lib(a%d)", i);
		else if (w >= 0)
			sb_printf(call, "tg_const_lib(a%d, %d)", i, w);
		else
			sb_printf(call, "a%d", i);
	}
	sb_release(&p);
	sb_release(&n);
}

/* Grow the buffers to what the call moves, from its counts and types. */
static void emit_need(const struct tg_calldesc *d, const char *isc, const long long *cv,
		      struct sb *out)
{
	struct sb cnt = { 0 }, types = { 0 };
	int i, nt = 0, size = -1;
	long long sum = 0;

	for (i = 0; i < d->nargs; i++) {
		const struct tg_argdesc *a = &d->args[i];
		if (a->kind == TG_K_MPIH && a->sub == TG_H_DTYPE && !out_dir(a)) {
			sb_printf(&types, ", tg_h_dtype(a%d)", i);
			nt++;
		} else if ((a->kind == TG_K_INT || a->kind == TG_K_UINT) && !out_dir(a) &&
			   (strstr(a->name, "count") || !strcmp(a->name, "nbyte") ||
			    !strcmp(a->name, "nmemb") || !strcmp(a->name, "len"))) {
			if (isc[i + 1])
				sum += cv[i + 1] > 0 ? cv[i + 1] : 0;
			else
				sb_printf(&cnt, " + (a%d > 0 ? a%d : 0)", i, i);
		} else if (a->kind == TG_K_UINT && !strcmp(a->name, "size")) {
			size = i;
		}
	}
	if (!cnt.n || sum)
		sb_printf(&cnt, cnt.n ? " + %lld" : "%lld", sum);
	if (d->layer == TG_LAYER_HDF5 && (!strcmp(d->name, "H5Dwrite") || !strcmp(d->name, "H5Dread")))
		sb_printf(out, "\ttg_h5_need(tg_hid(a0), tg_hid(a1), tg_hid(a2), tg_hid(a3), 0);\n");
	else if (d->layer == TG_LAYER_HDF5 && (!strcmp(d->name, "H5Awrite") || !strcmp(d->name, "H5Aread")))
		sb_printf(out, "\ttg_h5_need(tg_hid(a0), tg_hid(a1), 0, 0, 1);\n");
	else if (!strcmp(cnt.s, "0") && (!nt || size >= 0))
		;	/* nothing to move */
	else if (d->layer == TG_LAYER_MPI || d->layer == TG_LAYER_MPIIO)
		sb_printf(out, "\ttg_need_mpi(%s, %d%s);\n", cnt.s, nt, types.n ? types.s : "");
	else if (size >= 0)
		sb_printf(out, "\ttg_need((%s) * a%d);\n", cnt.s, size);
	else
		sb_printf(out, "\ttg_need(%s);\n", cnt.s);
	sb_release(&cnt);
	sb_release(&types);
}

/* Is argument @i one the tracer adds, not in the prototype (where an
 * MPI-IO file pointer stood, the descriptor under a stream)? */
static int pseudo(const struct tg_calldesc *d, int i)
{
	return d->args[i].pseudo;
}

/*
 * Calls replayed as another that moves the same bytes, as the data the
 * proxy writes are not the program's (no newline where it had one): a
 * formatted write (the format's values are not in the trace) as the fwrite
 * of the bytes it wrote, fputs as the fwrite of its string's length, a
 * line (fgets, getline) or a scanf as the fread of the bytes it took (len=,
 * or its return value); setvbuf without the program's buffer.  Returns 0
 * for any other call.
 */
static int emit_as(struct gen *g, struct term *t, unsigned ti, struct sb *out)
{
	const struct tg_calldesc *d = t->d;
	const char *n = d->name;
	int st = tg_call_argno(d, "stream"), len = tg_call_argno(d, "len"), w;
	struct sb e = { 0 };

	if (st < 0)
		return 0;
	if (!strcmp(n, "fgets") && len < 0) {	/* (a trace without len=) */
		sb_printf(out, "\t{ long long tg_n = a%d; if (tg_n > 0) { tg_need(tg_n); "
			  "(void)fgets(tg_rbuf, (int)tg_n, tg_fp(a%d)); } }\n", tg_call_argno(d, "size"), st);
		return 1;
	}
	if (!strcmp(n, "setvbuf")) {
		sb_printf(out, "\t(void)setvbuf(tg_fp(a%d), NULL, (int)a%d, (size_t)a%d);\n", st,
			  tg_call_argno(d, "mode"), tg_call_argno(d, "size"));
		return 1;
	}
	if (!strcmp(n, "fprintf") || !strcmp(n, "vfprintf") || !strcmp(n, "getline") ||
	    !strcmp(n, "getdelim"))
		fit_int(g, t, ti, 0, FLD_I, NULL, &e);	/* the bytes: its return value */
	else if ((!strcmp(n, "fputs") || !strcmp(n, "fscanf") || !strcmp(n, "vfscanf") ||
		  !strcmp(n, "fgets")) && len >= 0)
		sb_printf(&e, "a%d", len);
	else
		return 0;
	w = strstr(n, "printf") || !strcmp(n, "fputs");
	sb_printf(out, "\t{ long long tg_n = %s; if (tg_n > 0) { tg_need(tg_n); "
		  "(void)%s(%s, 1, (size_t)tg_n, tg_fp(a%d)); } }\n", e.s, w ? "fwrite" : "fread",
		  w ? "tg_sbuf" : "tg_rbuf", st);
	sb_release(&e);
	return 1;
}

static void emit_call(struct gen *g, struct term *t, unsigned ti, const char *isc,
		      const long long *cv, struct sb *out)
{
	const struct tg_calldesc *d = t->d;
	struct sb call = { 0 }, pre = { 0 }, post = { 0 };
	const char *name = d->name;
	int i;

	if (emit_as(g, t, ti, out))
		return;

	for (i = 0; i < d->nargs && !pseudo(d, i); i++) {
		if (i)
			sb_printf(&call, ", ");
		emit_arg(g, t, ti, i, &call, &pre, &post);
	}
	if (pre.n)
		sb_printf(out, "%s", pre.s);
	emit_need(d, isc, cv, out);
	if (d->retkind == TG_K_FD)
		sb_printf(out, "\ttg_fd_set(ret, %s(%s));\n", name, call.n ? call.s : "");
	else if (d->retkind == TG_K_HID)
		sb_printf(out, "\ttg_hid_set(ret, %s(%s));\n", name, call.n ? call.s : "");
	else if (d->retkind == TG_K_STREAM) {
		sb_printf(out, "\ttg_fp_set(ret, %s(%s));\n", name, call.n ? call.s : "");
		/* the descriptor under it (fopen's fd=): fileno's calls use it */
		for (i = 0; i < d->nargs; i++)
			if (pseudo(d, i) && d->args[i].kind == TG_K_FD)
				sb_printf(out, "\tif (tg_fp(ret))\n\t\ttg_fd_set(a%d, fileno(tg_fp(ret)));\n",
					  i);
	}
	else
		sb_printf(out, "\t(void)%s(%s);\n", name, call.n ? call.s : "");
	if (post.n)
		sb_printf(out, "%s", post.s);
	sb_release(&call);
	sb_release(&pre);
	sb_release(&post);
}

/* @body with each constant a<i> and ret (@isc, @cv) written as its value,
 * and its lines joined into one. */
static void inline_consts(const char *body, const char *isc, const long long *cv, struct sb *out)
{
	const char *p = body;
	int quote = 0;

	while (*p) {
		const char *q = p;
		long slot = -1;
		if (quote || *p == '"') {
			if (*p == '\\' && p[1])
				sb_printf(out, "%c", *p++);
			else if (*p == '"')
				quote = !quote;
			sb_printf(out, "%c", *p++);
			continue;
		}
		if (*p == '\t' || (*p == '\n' && !p[1])) {
			p++;
			continue;
		}
		if (*p == '\n') {
			sb_printf(out, " ");
			p++;
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '_') {
			sb_printf(out, "%c", *p++);
			continue;
		}
		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		if (q - p == 3 && !strncmp(p, "ret", 3))
			slot = 0;
		else if (*p == 'a' && q - p > 1 && q - p < 4 && isdigit((unsigned char)p[1]))
			slot = strtol(p + 1, NULL, 10) + 1;
		if (slot >= 0 && slot <= TG_MAX_ARGS && isc[slot] &&
		    (cv[slot] > 2147483647LL || cv[slot] < -2147483647LL))
			sb_printf(out, "%lldLL", cv[slot]);
		else if (slot >= 0 && slot <= TG_MAX_ARGS && isc[slot])
			sb_printf(out, "%lld", cv[slot]);
		else
			sb_printf(out, "%.*s", (int)(q - p), p);
		p = q;
	}
}

/* The function s<ti> of signature @t, on one line; a counter n<ti> of
 * its calls only where a value depends on it. */
void proxy_emit_term(struct gen *g, struct term *t, unsigned ti, struct sb *out)
{
	static char warned[65536];
	struct sb body = { 0 }, line = { 0 };
	char isc[TG_MAX_ARGS + 1] = { 0 }, cnt[32];
	long long cv[TG_MAX_ARGS + 1] = { 0 };

	if (t->use != 1) {
		/* what main() makes itself is replayed there: no warning */
		if (!warned[t->d->id]) {
			warned[t->d->id] = 1;
			if (t->use == 3) {
				sb_printf(out, "/* %s: made in main() */\n", t->d->name);
			} else {
				sb_printf(out, "/* %s: not replayed */\n", t->d->name);
				fprintf(stderr, "trace-proxy: %s: not replayed\n", t->d->name);
			}
		}
		return;
	}
	emit_values(g, t, ti, &body, isc, cv);
	emit_call(g, t, ti, isc, cv, &body);
	inline_consts(body.s, isc, cv, &line);
	snprintf(cnt, sizeof(cnt), "n%u", ti);
	if (names(line.s, cnt, strlen(cnt))) {
		sb_printf(&g->decl, "static long long n%u;\n", ti);
		sb_printf(&line, " n%u++;", ti);
	}
	if (g->threads)	/* each thread its own calls, in their turn */
		sb_printf(out, "static void s%u(void) { if (tg_tid != %u) return; tg_turn(%u); %s }\n",
			  ti, t->tid, t->tid, line.s);
	else
		sb_printf(out, "static void s%u(void) { %s }\n", ti, line.s);
	sb_release(&body);
	sb_release(&line);
}

/* The run-time support @rt that the code in @used needs: its head, and
 * each part (from a line "/" "*@ name... *" "/" that lists what it defines)
 * that @used or a later part taken names. */
void proxy_emit_rt(FILE *f, const char *rt, struct sb *used)
{
	const char *part[128], *p;
	size_t n = 0, i;
	char *take, id[64];

	for (p = strstr(rt, "\n/*@ "); p && n < 128; p = strstr(p + 1, "\n/*@ "))
		part[n++] = p + 1;
	take = calloc(n + 1, 1);
	if (!take)
		abort();
	for (i = n; i-- > 0;) {
		const char *end = strstr(part[i], "*/"), *w = part[i] + 4, *e;
		for (; w < end && !take[i]; w = e) {
			while (*w == ' ')
				w++;
			for (e = w; e < end && *e != ' '; e++)
				;
			if (e > w && (size_t)(e - w) < sizeof(id)) {
				memcpy(id, w, (size_t)(e - w));
				id[e - w] = 0;
				take[i] = used->s && names(used->s, id, (size_t)(e - w));
			}
		}
		if (take[i]) {
			const char *q = strchr(part[i], '\n') + 1;
			sb_printf(used, "%.*s", (int)((i + 1 < n ? part[i + 1] : q + strlen(q)) - q), q);
		}
	}
	fwrite(rt, 1, n ? (size_t)(part[0] - rt) : strlen(rt), f);
	for (i = 0; i < n; i++) {
		const char *q = strchr(part[i], '\n') + 1;
		if (take[i])
			fwrite(q, 1, (size_t)((i + 1 < n ? part[i + 1] : q + strlen(q)) - q), f);
	}
	free(take);
}

/* How many tables term @t's code needs. */
static unsigned tables(struct gen *g, struct term *t)
{
	size_t decl = g->decl.n;
	unsigned ntab = g->ntab, n;
	struct sb x = { 0 };

	proxy_emit_term(g, t, 0, &x);
	n = g->ntab - ntab;
	g->decl.n = decl;
	g->ntab = ntab;
	sb_release(&x);
	return n;
}

/* Take @b's occurrences into @a if the values of both fit all their
 * streams (arithmetic on the rank) with no more tables than apart (@na,
 * @nb; *na becomes the merged one's). */
static int merge(struct gen *g, struct term *a, struct term *b, unsigned *na, unsigned nb)
{
	struct occs *m = calloc(g->nst + 1, sizeof(*m));
	struct term t = *a;
	unsigned n;
	size_t s;

	if (!m)
		abort();
	for (s = 0; s < g->nst; s++)
		m[s] = a->per[s].n ? a->per[s] : b->per[s];
	t.per = m;
	if ((n = tables(g, &t)) > *na + nb) {
		free(m);
		return 0;
	}
	free(a->per);
	a->per = m;
	*na = n;
	return 1;
}

/* Signatures of one call that the streams do not share (say each rank's
 * own Isend to its neighbour) made one where their values allow it:
 * canon[b] = a for signature b merged into a, canon[a] = a. */
void proxy_merge(struct gen *g, struct term *t, size_t nt, uint32_t *canon)
{
	unsigned *ntab = calloc(nt + 1, sizeof(*ntab)), nb;
	size_t a, b, s;

	if (!ntab)
		abort();
	for (b = 0; b < nt; b++) {
		int tries = 0;
		canon[b] = (uint32_t)b;
		if (!t[b].d || t[b].use != 1)
			continue;
		ntab[b] = nb = tables(g, &t[b]);
		for (a = 0; a < b && tries < 64; a++) {
			if (canon[a] != a || t[a].d != t[b].d || t[a].use != 1 ||
			    t[a].tid != t[b].tid)
				continue;
			for (s = 0; s < g->nst && !(t[a].per[s].n && t[b].per[s].n); s++)
				;
			if (s < g->nst)
				continue;
			tries++;
			if (merge(g, &t[a], &t[b], &ntab[a], nb)) {
				canon[b] = (uint32_t)a;
				break;
			}
		}
	}
	free(ntab);
}
