/*
 * merge.c - what trace-merge and trace-merge-mpi share: the command line,
 * reading and merging inputs, the one-run check and the end of a merge.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "merge.h"

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../libcommon/cfg.h"
#include "../libcommon/cfgcli.h"
#include "../libcommon/rec.h"
#include "../libcommon/stream.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "../libcommon/banned.h"

/* Streams whose lifetimes are further apart than this are of other runs. */
#define RUN_GAP_NS 1000000000ull

static const char usage_text[] =
	"usage: trace-merge [-fhq] [--mpi] [-e error] [-k bits] [-m samples] [-o file]\n"
	"                   [-t timing] file ...\n";

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}
/* A trace directory among the inputs stands for its .rec streams (as
 * verify-io and trace-export take it), in name order. */
static void expand_dirs(struct tg_merge *m)
{
	char **out = NULL, pat[4096];
	struct stat st;
	size_t n = 0, k;
	glob_t g;
	int i, dirs = 0;

	for (i = 0; i < m->nfiles; i++)
		dirs += strcmp(m->files[i], "-") != 0 && stat(m->files[i], &st) == 0 &&
			S_ISDIR(st.st_mode);
	if (!dirs)
		return;
	for (i = 0; i < m->nfiles; i++) {
		const char *p = m->files[i];
		if (strcmp(p, "-") == 0 || stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
			out = tg_xrealloc(out, (n + 1) * sizeof(*out));
			out[n++] = m->files[i];
			continue;
		}
		snprintf(pat, sizeof(pat), "%s/*.rec", p);
		if (glob(pat, 0, NULL, &g) != 0)
			errx(TG_EXIT_ERROR, "no .rec streams in '%s'", p);
		out = tg_xrealloc(out, (n + g.gl_pathc) * sizeof(*out));
		for (k = 0; k < g.gl_pathc; k++)
			out[n++] = tg_xstrdup(g.gl_pathv[k]);
		globfree(&g);
	}
	m->files = out;
	m->nfiles = (int)n;
}


/* ---- the command line -------------------------------------------------------- */

static const struct option longopts[] = {
	{ "force", no_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ "mpi", no_argument, NULL, 'M' },
	{ "quiet", no_argument, NULL, 'q' },
	{ NULL, 0, NULL, 0 },
};

#define OPTSTRING "e:fhk:m:o:qt:"

void tg_merge_args(struct tg_merge *m, int argc, char **argv)
{
	struct tg_cfg_opts o = { TG_CFG_AGGREGATE, 100000, 4, 100, 0 };
	int ch, i, stdin_used = 0;

	memset(m, 0, sizeof(*m));
	m->o = o;
	while ((ch = getopt_long(argc, argv, OPTSTRING, longopts, NULL)) != -1) {
		switch (ch) {
		case 'e':
			m->o.err_ppm = tg_cfgcli_error(optarg);
			break;
		case 'f':
			m->force = 1;
			break;
		case 'h':
			usage(TG_EXIT_OK);
			break;
		case 'k':
			m->o.bits = (uint32_t)tg_strtonum(optarg, 1, 12, "option -k");
			break;
		case 'm':
			m->o.samples = (uint32_t)tg_strtonum(optarg, 1, 1 << 20, "option -m");
			break;
		case 'M':
			m->mpi = 1;
			break;
		case 'o':
			m->out = optarg;
			break;
		case 'q':
			m->quiet = 1;
			break;
		case 't':
			m->o.timing = tg_cfgcli_timing(optarg);
			break;
		default:
			usage(TG_EXIT_ERROR);
		}
	}
	m->nfiles = argc - optind;
	m->files = argv + optind;
	if (m->nfiles == 0)
		usage(TG_EXIT_ERROR);
	expand_dirs(m);
	m->o.lone = m->nfiles == 1;
	for (i = 0; i < m->nfiles; i++)
		if (strcmp(m->files[i], "-") == 0 && stdin_used++)
			errx(TG_EXIT_ERROR, "standard input named twice");
}

int tg_merge_wants_mpi(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t n = strlen(a), j;
		if (strcmp(a, "--") == 0)
			return 0;
		if (n >= 3 && a[0] == '-' && a[1] == '-') {
			/* getopt_long takes unambiguous abbreviations: --mp */
			if (strncmp(a, "--mpi", n) == 0)
				return 1;
			continue;
		}
		if (a[0] != '-' || n == 1)
			continue;
		for (j = 1; j < n; j++)
			if (strchr("ekmot", a[j])) {
				if (j + 1 == n)
					i++;	/* the option's argument follows */
				break;
			}
	}
	return 0;
}

/* ---- progress on a terminal ----------------------------------------------- */

static int progress_on;
static uint64_t progress_last;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void progress(int done, int total, const char *name, uint64_t records, int last)
{
	uint64_t t;

	if (!progress_on)
		return;
	t = now_ns();
	if (!last && t - progress_last < 200000000u)
		return;
	progress_last = t;
	if (last)
		fprintf(stderr, "\r\033[K");
	else
		fprintf(stderr, "\r\033[Ktrace-merge: %d/%d %.60s, %llu records", done, total,
			name, (unsigned long long)records);
	fflush(stderr);
}

/* ---- one run? ------------------------------------------------------------------ */

struct span {
	uint64_t run, from, to;
	size_t stream;
};

static int by_from(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* The run a stream belongs to: 1, or the number a later run into the
 * same trace directory got (tangram-rec(5)). */
static uint64_t run_of(const struct tg_cfg_stream *s)
{
	return s->h.run ? s->h.run : 1;
}

/* Streams in an order that puts equal ranks, or equal processes, side by
 * side. */
static const struct tg_cfg *sort_cfg;

static int by_rank(const void *a, const void *b)
{
	const struct tg_cfg_stream *x = tg_cfg_stream(sort_cfg, *(const size_t *)a);
	const struct tg_cfg_stream *y = tg_cfg_stream(sort_cfg, *(const size_t *)b);

	if (run_of(x) != run_of(y))
		return run_of(x) < run_of(y) ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int by_process(const void *a, const void *b)
{
	const struct tg_cfg_stream *x = tg_cfg_stream(sort_cfg, *(const size_t *)a);
	const struct tg_cfg_stream *y = tg_cfg_stream(sort_cfg, *(const size_t *)b);
	int h;

	if (x->h.pid != y->h.pid)
		return x->h.pid < y->h.pid ? -1 : 1;
	if (x->h.clock_base != y->h.clock_base)
		return x->h.clock_base < y->h.clock_base ? -1 : 1;
	if ((h = strcmp(x->h.host, y->h.host)) != 0)
		return h;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/*
 * Are the streams of @c those of one run?  Streams of one run have
 * distinct MPI ranks, one world size, are distinct processes, and their
 * lifetimes (clock base to the end of the last call) overlap or follow
 * one another by less than RUN_GAP_NS.  Streams whose headers name
 * different runs into one trace directory (run 1, 2, ...) are each
 * checked with their own run, and the runs may follow one another by any
 * time.  Returns 0, or -1 with the reason in @why.  @names[i] is the
 * input stream i came from.
 */
static int one_run(const struct tg_cfg *c, char **names, char *why, size_t len)
{
	size_t n = tg_cfg_nstreams(c), i, *ix;
	uint64_t world = 0, reach;
	struct span *sp;
	int rc = -1;

	if (n < 2)
		return 0;
	ix = malloc(n * sizeof(*ix));
	sp = malloc(n * sizeof(*sp));
	if (!ix || !sp)
		errx(TG_EXIT_ERROR, "out of memory");
	sort_cfg = c;
	for (i = 0; i < n; i++)
		ix[i] = i;
	qsort(ix, n, sizeof(*ix), by_rank);
	for (i = 0; i < n; i++) {
		const struct tg_cfg_stream *a = tg_cfg_stream(c, ix[i]);
		if (i > 0 && run_of(tg_cfg_stream(c, ix[i - 1])) != run_of(a))
			world = 0;	/* a later run */
		if (a->rank < 0)
			continue;
		if (i > 0 && tg_cfg_stream(c, ix[i - 1])->rank == a->rank &&
		    run_of(tg_cfg_stream(c, ix[i - 1])) == run_of(a)) {
			snprintf(why, len, "'%s' and '%s' both hold rank %lld", names[ix[i - 1]],
				 names[ix[i]], (long long)a->rank);
			goto out;
		}
		if (a->h.world && world && a->h.world != world) {
			snprintf(why, len, "'%s' has world size %llu, others %llu", names[ix[i]],
				 (unsigned long long)a->h.world, (unsigned long long)world);
			goto out;
		}
		if (a->h.world)
			world = a->h.world;
	}
	for (i = 0; i < n; i++)
		ix[i] = i;
	qsort(ix, n, sizeof(*ix), by_process);
	for (i = 1; i < n; i++) {
		const struct tg_header *a = &tg_cfg_stream(c, ix[i - 1])->h;
		const struct tg_header *b = &tg_cfg_stream(c, ix[i])->h;
		if (a->pid != b->pid || a->clock_base != b->clock_base ||
		    strcmp(a->host, b->host) != 0)
			continue;
		snprintf(why, len, "'%s' and '%s' hold the same process", names[ix[i - 1]],
			 names[ix[i]]);
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct tg_cfg_stream *a = tg_cfg_stream(c, i);
		sp[i].from = a->h.clock_base;
		sp[i].to = a->h.clock_base + a->end;
		sp[i].run = run_of(a);
		sp[i].stream = i;
	}
	qsort(sp, n, sizeof(*sp), by_from);
	reach = sp[0].to;
	for (i = 1; i < n; i++) {
		if (sp[i].run != sp[i - 1].run)
			reach = sp[i].from;
		if (sp[i].from > reach + RUN_GAP_NS) {
			snprintf(why, len, "'%s' starts %.1f s after everything before it ended",
				 names[sp[i].stream], (double)(sp[i].from - reach) / 1e9);
			goto out;
		}
		if (sp[i].to > reach)
			reach = sp[i].to;
	}
	rc = 0;
out:
	free(ix);
	free(sp);
	return rc;
}

/* ---- inputs ------------------------------------------------------------------------ */

/* Add input @path to @acc; returns 0, 1 after reporting a bad input (what
 * could be read is kept), or -1 after reporting a fatal error. */
static int add_input(struct tg_cfg *acc, const char *path, const struct tg_cfg_opts *o)
{
	struct tg_stream *s;
	unsigned char magic[TG_CFG_MAGIC_LEN];
	char msg[256];
	int rc = 0;

	if (!(s = tg_stream_open(path, "r"))) {
		warn("cannot open '%s'", path);
		return 1;
	}
	if (tg_stream_peek(s, magic, sizeof(magic)) == (long)sizeof(magic) &&
	    tg_cfg_is_magic(magic, sizeof(magic))) {
		struct tg_cfg *c = tg_cfg_read(s, msg, sizeof(msg));
		if (!c) {
			warnx("%s: %s", tg_stream_name(s), msg);
			rc = 1;
		} else if (tg_cfg_merge(acc, c, msg, sizeof(msg)) < 0) {
			warnx("%s: %s", tg_stream_name(s), msg);
			rc = -1;
		}
		tg_cfg_free(c);
	} else {
		struct tg_reader *r = tg_reader_open(s, msg, sizeof(msg));
		if (!r) {
			warnx("%s: %s", tg_stream_name(s), msg);
			rc = 1;
		} else {
			uint64_t *f;
			size_t nf;
			int arc;
			/* a file is read twice: first for the seqs of the
			 * threads other than thread 0 */
			tg_cfg_foreign_scan(path, &f, &nf);
			arc = tg_cfg_add_rec_foreign(acc, r, o, f, nf, msg, sizeof(msg));
			free(f);
			if (arc < 0) {
				warnx("%s: %s", tg_stream_name(s), msg);
				rc = -1;
			} else if (arc > 0) {
				warnx("%s: %s", tg_stream_name(s), tg_reader_error(r));
				rc = 1;
			}
			if (rc == 0 && tg_reader_skipped(r))
				warnx("%s: %llu records of functions unknown to this version skipped",
				      tg_stream_name(s), (unsigned long long)tg_reader_skipped(r));
			tg_reader_free(r);
		}
	}
	tg_stream_close(s);
	return rc;
}

/* ---- merging ------------------------------------------------------------------------ */

int tg_merge_inputs(struct tg_cfg *acc, const struct tg_merge *m, int from, int to,
		    uint32_t **src, int show)
{
	uint64_t records = 0;
	int i, rc = 0;

	progress_on = show;
	for (i = from; i < to; i++) {
		size_t before = tg_cfg_nstreams(acc), k;
		uint32_t *ns;
		int arc;
		progress(i, m->nfiles, m->files[i], records, 0);
		if ((arc = add_input(acc, m->files[i], &m->o)) < 0) {
			progress(m->nfiles, m->nfiles, "", records, 1);
			return -1;
		}
		if (arc > 0)
			rc = 1;
		if (!(ns = realloc(*src, (tg_cfg_nstreams(acc) + 1) * sizeof(uint32_t)))) {
			warnx("out of memory");
			return -1;
		}
		*src = ns;
		for (k = before; k < tg_cfg_nstreams(acc); k++) {
			ns[k] = (uint32_t)i;
			records += tg_cfg_stream(acc, k)->records;
		}
	}
	progress(to, m->nfiles, "", records, 1);
	return rc;
}

int tg_merge_finish(struct tg_cfg *acc, const struct tg_merge *m, const uint32_t *src,
		    int status)
{
	size_t n = tg_cfg_nstreams(acc), i;
	char **names = malloc((n ? n : 1) * sizeof(char *)), why[512];

	if (!names) {
		warnx("out of memory");
		return TG_EXIT_ERROR;
	}
	if (n == 0 && status != TG_EXIT_OK) {
		/* no input could be read: no trace of no process either */
		free(names);
		return status;
	}
	for (i = 0; i < n; i++)
		names[i] = strcmp(m->files[src[i]], "-") ? m->files[src[i]] : "standard input";
	if (!m->force && one_run(acc, names, why, sizeof(why)) < 0) {
		warnx("not one run: %s (-f merges them anyway)", why);
		status = TG_EXIT_ERROR;
	} else if (tg_cfg_optimize(acc) < 0) {
		warnx("out of memory");
		status = TG_EXIT_ERROR;
	} else {
		status = tg_cfgcli_write(acc, m->out, "trace-merge " TG_VERSION, status);
	}
	free(names);
	return status;
}
