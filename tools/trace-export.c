/*
 * trace-export - write a Tangram trace in a viewer's format: Chrome
 * trace-event JSON, SQLite, OTF2 or HDTrace (export-*.c, one per format).
 *
 * Every input (.rec, .cfg, "-") is read once, in order, and each record is
 * handed to the format as it is decoded.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "../libcommon/cfg.h"
#include "../libcommon/hb.h"
#include "../libcommon/rec.h"
#include "../libcommon/runs.h"
#include "../libcommon/stream.h"
#include "../libcommon/text.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "export.h"
#include "../libcommon/banned.h"

static const char usage_text[] =
	"usage: trace-export [-hv] -f chrome|sqlite|otf2|hdtrace -o out [--conflicts file] [--hb graph] [file ...]\n";

static const struct exporter *formats[] = {
	&tg_export_chrome, &tg_export_sqlite, &tg_export_otf2, &tg_export_hdtrace,
};

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

/* ---- JSON strings -------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at @p (@n bytes left), 0 if none. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t k, i;
	uint32_t c;

	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	k = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	if (k > n)
		return 0;
	c = p[0] & (0x7f >> k);
	for (i = 1; i < k; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((k == 3 && (c < 0x800 || (c >= 0xd800 && c < 0xe000))) ||
	    (k == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return k;
}

void xp_json_str(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len, *run;
	static const char hex[] = "0123456789abcdef";

	if (!s) {
		fputs_unlocked("null", out);
		return;
	}
	putc_unlocked('"', out);
	while (p < end) {
		for (run = p; p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\'; p++)
			;
		if (p > run)
			fwrite_unlocked(run, 1, (size_t)(p - run), out);
		if (p == end)
			break;
		if (*p == '"' || *p == '\\') {
			putc_unlocked('\\', out);
			putc_unlocked((char)*p++, out);
		} else if (*p < 0x20) {
			fputs_unlocked("\\u00", out);
			putc_unlocked(hex[*p >> 4], out);
			putc_unlocked(hex[*p & 15], out);
			p++;
		} else {
			size_t k = utf8_len(p, (size_t)(end - p));
			if (k) {
				fwrite_unlocked(p, 1, k, out);
				p += k;
			} else {
				fputs_unlocked("\\ufffd", out);
				p++;
			}
		}
	}
	putc_unlocked('"', out);
}

void xp_put_u64(FILE *f, uint64_t v)
{
	char t[24];
	int n = sizeof(t);

	do
		t[--n] = (char)('0' + v % 10);
	while (v /= 10);
	fwrite_unlocked(t + n, 1, sizeof(t) - (size_t)n, f);
}

void xp_put_i64(FILE *f, int64_t v)
{
	if (v < 0) {
		putc_unlocked('-', f);
		xp_put_u64(f, -(uint64_t)v);
	} else {
		xp_put_u64(f, (uint64_t)v);
	}
}

void xp_json_val(FILE *f, int k, int sub, const struct tg_val *v)
{
	const char *s;
	size_t n;

	switch (k) {
	case TG_K_INT:
	case TG_K_SIGNED_OFF:
		xp_put_i64(f, v->i);
		return;
	case TG_K_UINT:
		xp_put_u64(f, (uint64_t)v->i);
		return;
	case TG_K_STR:
	case TG_K_PATH:
		xp_json_str(f, v->s, v->s ? strlen(v->s) : 0);
		return;
	}
	s = tg_text_val(k, sub, v, &n);
	xp_json_str(f, s, n);
}

unsigned xp_mpi_type_size(const char *name)
{
	static const struct { const char *name; unsigned size; } sizes[] = {
		{ "MPI_SHORT", 2 }, { "MPI_INT", 4 }, { "MPI_FLOAT", 4 }, { "MPI_UNSIGNED", 4 },
		{ "MPI_INT32_T", 4 }, { "MPI_LONG", 8 }, { "MPI_DOUBLE", 8 },
		{ "MPI_LONG_LONG", 8 }, { "MPI_LONG_LONG_INT", 8 }, { "MPI_INT64_T", 8 },
		{ "MPI_UINT64_T", 8 }, { "MPI_UNSIGNED_LONG", 8 }, { "MPI_LONG_DOUBLE", 16 },
	};
	size_t k;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		if (strcmp(name, sizes[k].name) == 0)
			return sizes[k].size;
	return 1;
}

int xp_write_error(const char *path)
{
	warn("%s", path);
	return -1;
}

void xp_rank_label(char *buf, size_t cap, const struct xstream *s)
{
	/* the rank the text shows, which counts on across the runs of a
	 * trace, as conflict-check --json names it */
	if (s->rank >= 0)
		snprintf(buf, cap, "%" PRId64, s->rank);
	else
		snprintf(buf, cap, "p%" PRIu64, s->h->pid);
}

/* ---- conflicts (conflict-check --json) ------------------------------------- */

static struct xopts opts;
static uint32_t *ends;		/* end numbers, sorted by rank label and seq */

static int access_get(json_t *j, struct xaccess *a)
{
	json_t *rank = json_object_get(j, "rank"), *seq = json_object_get(j, "seq");

	if (!json_is_object(j) || !json_is_string(rank) || !json_is_integer(seq))
		return -1;
	snprintf(a->rank, sizeof(a->rank), "%s", json_string_value(rank));
	a->seq = (uint64_t)json_integer_value(seq);
	a->op = tg_xstrdup(json_string_value(json_object_get(j, "op")) ?: "?");
	a->func = tg_xstrdup(json_string_value(json_object_get(j, "func")) ?: "?");
	a->start = json_integer_value(json_object_get(j, "start"));
	a->end = json_integer_value(json_object_get(j, "end"));
	return 0;
}

static int pair_get(json_t *j, struct xpair *p)
{
	static const char *models[3] = { "posix", "commit", "session" };
	json_t *c = json_object_get(j, "conflict");
	int m;

	if (access_get(json_object_get(j, "first"), &p->a[0]) < 0 ||
	    access_get(json_object_get(j, "second"), &p->a[1]) < 0 || !json_is_object(c))
		return -1;
	p->file = tg_xstrdup(json_string_value(json_object_get(j, "file")) ?: "?");
	p->kind = tg_xstrdup(json_string_value(json_object_get(j, "kind")) ?: "?");
	p->procs = tg_xstrdup(json_string_value(json_object_get(j, "procs")) ?: "?");
	for (m = 0; m < 3; m++)
		p->conflict[m] = json_is_true(json_object_get(c, models[m]));
	p->synchronized = json_is_true(json_object_get(j, "synchronized"));
	return 0;
}

static int end_cmp(const void *x, const void *y)
{
	const struct xaccess *a = &opts.pairs[*(const uint32_t *)x / 2].a[*(const uint32_t *)x % 2];
	const struct xaccess *b = &opts.pairs[*(const uint32_t *)y / 2].a[*(const uint32_t *)y % 2];
	int c = strcmp(a->rank, b->rank);

	if (c)
		return c;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Read the pairs of conflict-check --json from @path: one object a line;
 * the summary and the recommendation are not pairs. */
static void conflicts_load(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, i;
	long lineno = 0;
	int summary = 0;

	if (!f)
		err(TG_EXIT_ERROR, "cannot open '%s'", path);
	while (getline(&line, &cap, f) > 0) {
		json_error_t je;
		json_t *j;
		lineno++;
		if (!(j = json_loads(line, 0, &je)) || !json_is_object(j))
			errx(TG_EXIT_ERROR, "%s: line %ld: not a conflict-check --json object", path, lineno);
		if (json_object_get(j, "summary") || json_object_get(j, "recommended")) {
			summary |= json_object_get(j, "summary") != NULL;
			json_decref(j);
			continue;
		}
		opts.pairs = tg_xrealloc(opts.pairs, (opts.npairs + 1) * sizeof(*opts.pairs));
		if (pair_get(j, &opts.pairs[opts.npairs]) < 0)
			errx(TG_EXIT_ERROR, "%s: line %ld: not a pair of conflict-check --json", path, lineno);
		opts.npairs++;
		json_decref(j);
	}
	if (ferror(f))
		err(TG_EXIT_ERROR, "%s", path);
	/* conflict-check writes the summary even when no pair conflicts:
	 * without it the file was cut short, and its pairs are not all */
	if (!summary)
		errx(TG_EXIT_ERROR, lineno ? "%s: no summary line (cut short?)" :
		     "%s: empty input (no summary line)", path);
	free(line);
	fclose(f);
	ends = tg_xrealloc(NULL, 2 * opts.npairs * sizeof(*ends) + 1);
	for (i = 0; i < 2 * opts.npairs; i++)
		ends[i] = (uint32_t)i;
	qsort(ends, 2 * opts.npairs, sizeof(*ends), end_cmp);
}

const uint32_t *xp_conflicts_at(const char *rank, uint64_t seq, size_t *n)
{
	size_t lo = 0, hi = 2 * opts.npairs, k;

	*n = 0;
	while (lo < hi) {	/* the first end not below (rank, seq) */
		size_t mid = (lo + hi) / 2;
		const struct xaccess *a = &opts.pairs[ends[mid] / 2].a[ends[mid] % 2];
		int c = strcmp(a->rank, rank);
		if (c < 0 || (c == 0 && a->seq < seq))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < 2 * opts.npairs; k++) {
		const struct xaccess *a = &opts.pairs[ends[k] / 2].a[ends[k] % 2];
		if (a->seq != seq || strcmp(a->rank, rank) != 0)
			break;
	}
	*n = k - lo;
	return ends + lo;
}

/* ---- reading ------------------------------------------------------------- */

static struct {
	const struct exporter *fmt;
	void *x;
	struct tg_runs runs;	/* a trace of several runs numbers them run-major */
	uint64_t zero;
	unsigned nstreams;
	uint64_t records;
	int tty;
	time_t last;
} run;

static void progress(int done)
{
	time_t now;

	if (!run.tty || (!done && (run.records & 0xffff)))
		return;
	now = time(NULL);
	if (!done && now == run.last)
		return;
	run.last = now;
	fprintf(stderr, "\rtrace-export: %u streams, %" PRIu64 " records%s", run.nstreams,
		run.records, done ? "\n" : "");
}

/* The rank of the stream at @path whose header says @rank: a regular file
 * with no rank in its header is read ahead to its first RANK record. */
static int64_t stream_rank(const char *path, int64_t rank)
{
	struct tg_stream *s;
	struct tg_reader *r;
	struct tg_rec rec;
	struct stat st;
	char msg[256];

	if (rank >= 0 || strcmp(path, "-") == 0 || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return rank;
	if ((s = tg_stream_open(path, "r")) && (r = tg_reader_open(s, msg, sizeof(msg)))) {
		while (tg_reader_next(r, &rec) > 0)
			if (rec.type == TG_REC_RANK) {
				rank = rec.rank;
				break;
			}
		tg_reader_free(r);
	}
	tg_stream_close(s);
	return rank;
}

/* The rank every tool shows for rank @rank of the stream of header @h: of
 * a trace of several runs, the global one (trace-decode(1)'s numbering). */
static int64_t global_rank(const struct tg_header *h, int64_t rank)
{
	if (!run.runs.numbered)
		tg_runs_number(&run.runs);
	return rank < 0 ? rank : tg_runs_first(&run.runs, tg_run_of(h)) + rank;
}

/* Hand one record to the format; a RANK record names the stream's rank. */
static int put(struct xstream *xs, const struct tg_rec *r)
{
	if (r->type == TG_REC_RANK && xs->rank < 0)
		xs->rank = global_rank(xs->h, r->rank);
	run.records++;
	progress(0);
	return run.fmt->rec(run.x, xs, r);
}

static int export_cfg(struct tg_stream *s)
{
	struct tg_cfg *c;
	struct tg_rec rec;
	char msg[256];
	size_t i;
	int n = 0;

	if (!(c = tg_cfg_read(s, msg, sizeof(msg)))) {
		warnx("%s: %s", tg_stream_name(s), msg);
		return -1;
	}
	for (i = 0; i < tg_cfg_nstreams(c); i++) {
		if (tg_cfg_stream(c, i)->h.clock_base < run.zero)
			run.zero = tg_cfg_stream(c, i)->h.clock_base;
		if (!run.runs.numbered)	/* a lone compressed trace */
			(void)tg_runs_note(&run.runs, &tg_cfg_stream(c, i)->h);
	}
	for (i = 0; i < tg_cfg_nstreams(c) && n >= 0; i++) {
		struct tg_cfg_cursor *k = tg_cfg_cursor_open(c, i, msg, sizeof(msg));
		struct xstream xs;
		if (!k) {
			warnx("%s: %s", tg_stream_name(s), msg);
			n = -1;
			break;
		}
		xs = (struct xstream){ tg_cfg_cursor_header(k),
				       global_rank(&tg_cfg_stream(c, i)->h, tg_cfg_stream(c, i)->rank),
				       run.nstreams++, run.zero };
		n = run.fmt->stream(run.x, &xs) < 0 ? -2 : 0;
		while (n == 0 && (n = tg_cfg_cursor_next(k, &rec)) > 0)
			n = put(&xs, &rec) < 0 ? -2 : 0;
		if (n == -1)
			warnx("%s: %s", tg_stream_name(s), tg_cfg_cursor_error(k));
		tg_cfg_cursor_free(k);
	}
	tg_cfg_free(c);
	return n < 0 ? n : 0;
}

/* Export one input; returns 0, -1 after reporting damaged input (the next
 * input is read) or -2 when the format failed (nothing more is). */
static int export_one(const char *path)
{
	struct tg_stream *s = tg_stream_open(path, "r");
	struct tg_reader *r;
	struct tg_rec rec;
	struct xstream xs;
	char msg[256];
	int n;

	if (!s) {
		warn("cannot open '%s'", path);
		return -1;
	}
	if (tg_stream_peek(s, msg, TG_CFG_MAGIC_LEN) == TG_CFG_MAGIC_LEN &&
	    tg_cfg_is_magic(msg, TG_CFG_MAGIC_LEN)) {
		n = export_cfg(s);
		tg_stream_close(s);
		return n;
	}
	if (!(r = tg_reader_open(s, msg, sizeof(msg)))) {
		warnx("%s: %s", tg_stream_name(s), msg);
		tg_stream_close(s);
		return -1;
	}
	if (tg_reader_header(r)->clock_base < run.zero)
		run.zero = tg_reader_header(r)->clock_base;
	xs = (struct xstream){ tg_reader_header(r),
			       global_rank(tg_reader_header(r),
					   stream_rank(path, tg_reader_header(r)->rank)),
			       run.nstreams++, run.zero };
	n = run.fmt->stream(run.x, &xs) < 0 ? -2 : 0;
	while (n == 0 && (n = tg_reader_next(r, &rec)) > 0)
		n = put(&xs, &rec) < 0 ? -2 : 0;
	if (n == -1)
		warnx("%s: %s", tg_stream_name(s), tg_reader_error(r));
	tg_reader_free(r);
	tg_stream_close(s);
	return n < 0 ? n : 0;
}

/* The smallest clock base of the inputs that are regular files, so that
 * every stream is on one time axis (a pipe joins when it is read). */
static uint64_t common_zero(int n, char **files)
{
	uint64_t zero = UINT64_MAX;
	char msg[256];
	int i;

	for (i = 0; i < n; i++) {
		struct tg_stream *s;
		struct tg_reader *r;
		struct stat st;
		if (strcmp(files[i], "-") == 0 || stat(files[i], &st) < 0 || !S_ISREG(st.st_mode) ||
		    !(s = tg_stream_open(files[i], "r")))
			continue;
		if (tg_stream_peek(s, msg, TG_CFG_MAGIC_LEN) == TG_CFG_MAGIC_LEN &&
		    tg_cfg_is_magic(msg, TG_CFG_MAGIC_LEN)) {
			/* a lone compressed trace finds its zero when it is read */
			struct tg_cfg *c = n > 1 ? tg_cfg_read(s, msg, sizeof(msg)) : NULL;
			size_t k;
			for (k = 0; c && k < tg_cfg_nstreams(c); k++) {
				if (tg_cfg_stream(c, k)->h.clock_base < zero)
					zero = tg_cfg_stream(c, k)->h.clock_base;
				(void)tg_runs_note(&run.runs, &tg_cfg_stream(c, k)->h);
			}
			tg_cfg_free(c);
		} else if ((r = tg_reader_open(s, msg, sizeof(msg)))) {
			if (tg_reader_header(r)->clock_base < zero)
				zero = tg_reader_header(r)->clock_base;
			(void)tg_runs_note(&run.runs, tg_reader_header(r));
			tg_reader_free(r);
		}
		tg_stream_close(s);
	}
	return zero;
}

static const struct exporter *format_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(s, formats[i]->name) == 0)
			return formats[i];
	errx(TG_EXIT_ERROR, "option -f: unknown format '%s' (chrome, sqlite, otf2, hdtrace)", s);
}

/*
 * The inputs as the exporter reads them: a trace directory stands for its
 * .cfg files, or when it has none its .rec streams (as verify-io takes
 * it).  Each must open before the output is made, so that a wrong name
 * leaves no output behind.  Returns the new argv, its count in *@argc.
 */
static char **inputs(int *argc, char **argv)
{
	char **out = NULL, pat[4096];
	size_t n = 0;
	struct stat st;
	glob_t g;
	int i;

	for (i = 0; i < *argc; i++) {
		const char *p = argv[i];
		size_t k;
		if (strcmp(p, "-") != 0 && stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			snprintf(pat, sizeof(pat), "%s/*.cfg", p);
			if (glob(pat, 0, NULL, &g) != 0) {
				snprintf(pat, sizeof(pat), "%s/*.rec", p);
				if (glob(pat, 0, NULL, &g) != 0)
					errx(TG_EXIT_ERROR, "no .rec or .cfg streams in '%s'", p);
			}
			out = tg_xrealloc(out, (n + g.gl_pathc + 1) * sizeof(*out));
			for (k = 0; k < g.gl_pathc; k++)
				out[n++] = tg_xstrdup(g.gl_pathv[k]);
			globfree(&g);
			continue;
		}
		if (strcmp(p, "-") != 0 && access(p, R_OK) != 0)
			err(TG_EXIT_ERROR, "cannot open '%s'", p);
		out = tg_xrealloc(out, (n + 2) * sizeof(*out));
		out[n++] = argv[i];
	}
	out[n] = NULL;
	*argc = (int)n;
	return out;
}

int main(int argc, char **argv)
{
	enum { OPT_CONFLICTS = 256, OPT_HB };
	static const struct option longopts[] = {
		{ "conflicts", required_argument, NULL, OPT_CONFLICTS },
		{ "format", required_argument, NULL, 'f' },
		{ "hb", required_argument, NULL, OPT_HB },
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conflicts = NULL;
	char *dash[] = { "-" }, msg[256];
	int c, i, ok = 1;

	while ((c = getopt_long(argc, argv, "f:ho:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			run.fmt = format_parse(optarg);
			break;
		case 'h':
			usage(TG_EXIT_OK);
			break;
		case 'o':
			opts.out = optarg;
			break;
		case 'v':
			opts.verbose = 1;
			break;
		case OPT_CONFLICTS:
			conflicts = optarg;
			break;
		case OPT_HB:
			opts.hbpath = optarg;
			break;
		default:
			usage(TG_EXIT_ERROR);
		}
	}
	argc -= optind;
	argv += optind;
	if (!run.fmt || !opts.out)
		usage(TG_EXIT_ERROR);
	if (argc == 0) {
		argc = 1;
		argv = dash;
	}
	argv = inputs(&argc, argv);
	if (conflicts)
		conflicts_load(conflicts);
	if (opts.hbpath && !(opts.hb = tg_hb_open(opts.hbpath, msg, sizeof(msg))))
		errx(TG_EXIT_ERROR, "%s: %s", opts.hbpath, msg);
	run.tty = opts.verbose || isatty(STDERR_FILENO);
	run.zero = common_zero(argc, argv);
	if (!(run.x = run.fmt->open(&opts)))
		return TG_EXIT_ERROR;
	for (i = 0; i < argc && ok >= 0; i++)
		if ((c = export_one(argv[i])) < 0)
			ok = c == -2 ? -1 : 0;
	progress(1);
	if (run.fmt->close(run.x, ok > 0) < 0)
		ok = 0;
	if (opts.hb)
		tg_hb_close(opts.hb);
	return ok > 0 ? TG_EXIT_OK : TG_EXIT_ERROR;
}
