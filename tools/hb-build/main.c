/*
 * hb-build - the happens-before graph of an MPI run (tangram-hb(5)), built
 * from the text records of trace-decode; or, given such a graph, its
 * statistics or a Graphviz drawing of it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../libcommon/calltab.h"
#include "../../libcommon/hb.h"
#include "../../libcommon/stream.h"
#include "../../libcommon/tg.h"
#include "../../libcommon/util.h"
#include "graph.h"
#include "../../libcommon/banned.h"

#define CHUNK (4u << 20)

static const char usage_text[] =
	"usage: hb-build [-dfhmqs] [-o graph] [file]\n";

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

static const char *fname(unsigned id)
{
	const struct tg_calldesc *d = id ? tg_call_lookup(id) : NULL;

	return d ? d->name : "?";
}

/* ---- reporting ---------------------------------------------------------------- */

static void report(const struct tg_hbgraph *g)
{
	size_t i;

	for (i = 0; i < g->nproblems; i++) {
		const struct tg_hbproblem *p = &g->problems[i];
		const char *k = tg_hb_problem_name(p->kind);
		switch (p->kind) {
		case TG_HBP_TRUNCATED:
			warnx("rank %u: %s: its records end without MPI_Finalize (last seq %llu)",
			      p->rank, k, (unsigned long long)p->seq);
			break;
		case TG_HBP_MISSING_RANK:
			warnx("rank %u: %s: no records", p->rank, k);
			break;
		case TG_HBP_MPI_UNTRACED:
			warnx("rank %u: %s: not one of its MPI calls is in the trace (an MPI "
			      "library that is not MPICH's, or TANGRAM_LAYERS without mpi)",
			      p->rank, k);
			break;
		default:
			warnx("rank %u: %s: %llu call%s, the first %s at seq %llu", p->rank, k,
			      (unsigned long long)p->count, p->count == 1 ? "" : "s",
			      fname(p->func), (unsigned long long)p->seq);
		}
	}
}

static void stats(const struct tg_hbgraph *g)
{
	uint64_t per[TG_HBE_COUNT] = { 0 }, e, other = 0;
	unsigned k;
	size_t i;

	for (e = 0; e < g->nedges; e++) {
		if (g->ekind[e] < TG_HBE_COUNT)
			per[g->ekind[e]]++;
		else
			other++;
	}
	printf("ranks\t%u\n", g->nranks);
	printf("records\t%llu\n", (unsigned long long)g->stats[TG_HBST_RECORDS]);
	printf("mpi\t%llu\n", (unsigned long long)g->stats[TG_HBST_MPI]);
	printf("nested\t%llu\n", (unsigned long long)g->stats[TG_HBST_NESTED]);
	printf("nodes\t%llu\n", (unsigned long long)g->nnodes);
	printf("extra\t%llu\n", (unsigned long long)g->nextra);
	printf("edges\t%llu\n", (unsigned long long)g->nedges);
	for (k = 1; k < TG_HBE_COUNT; k++)
		printf("edges.%s\t%llu\n", tg_hb_edge_name(k), (unsigned long long)per[k]);
	if (other)
		printf("edges.other\t%llu\n", (unsigned long long)other);
	printf("vectors\t%llu\n", (unsigned long long)(g->nvec + g->nwide));
	printf("vectors.wide\t%llu\n", (unsigned long long)g->nwide);
	printf("communicators\t%llu\n", (unsigned long long)g->stats[TG_HBST_COMMS]);
	printf("files\t%llu\n", (unsigned long long)g->stats[TG_HBST_FILES]);
	printf("messages\t%llu\n", (unsigned long long)g->stats[TG_HBST_MESSAGES]);
	printf("collectives\t%llu\n", (unsigned long long)g->stats[TG_HBST_COLLECTIVES]);
	printf("calls\t%llu\n", (unsigned long long)g->stats[TG_HBST_CALLS]);
	if (g->run) {
		char id[17];
		tg_run_format(g->run, id);
		printf("run\t%s\n", id);
	}
	printf("problems\t%zu\n", g->nproblems);
	for (i = 0; i < g->nproblems; i++) {
		const struct tg_hbproblem *p = &g->problems[i];
		printf("problem\t%s\trank=%u\tcount=%llu\tseq=%llu\tfunc=%s\n",
		       tg_hb_problem_name(p->kind), p->rank, (unsigned long long)p->count,
		       (unsigned long long)p->seq, p->func ? fname(p->func) : "-");
	}
}

static void dot(const struct tg_hbgraph *g)
{
	uint64_t n, e, tot = g->nnodes + g->nextra;
	uint32_t r;

	printf("digraph hb {\n\trankdir=LR;\n\tnode [shape=box, fontsize=10];\n");
	for (r = 0; r < g->nranks; r++) {
		printf("\tsubgraph cluster_%u {\n\t\tlabel=\"rank %u\";\n", r, r);
		for (n = g->rankfirst[r]; n < g->rankfirst[r + 1]; n++) {
			printf("\t\tn%llu [label=\"%s\\nseq %llu\"];\n", (unsigned long long)n,
			       fname(g->func[n]), (unsigned long long)g->seq[n]);
			if (n > g->rankfirst[r])
				printf("\t\tn%llu -> n%llu [style=dotted, arrowhead=none];\n",
				       (unsigned long long)n - 1, (unsigned long long)n);
		}
		printf("\t}\n");
	}
	for (n = 0; n < g->nextra; n++)
		printf("\tn%llu [shape=diamond, label=\"%s\\n%s\"];\n",
		       (unsigned long long)(g->nnodes + n), fname(g->xfunc[n]),
		       tg_hb_extra_name(g->xkind[n]));
	for (n = 0; n < tot; n++)
		for (e = g->eindex[n]; e < g->eindex[n + 1]; e++)
			printf("\tn%llu -> n%llu [label=\"%s\"];\n", (unsigned long long)n,
			       (unsigned long long)g->etarget[e], tg_hb_edge_name(g->ekind[e]));
	printf("}\n");
}

/* ---- input ---------------------------------------------------------------------- */

/*
 * Up to @n bytes of @fd, fewer only at the end of the input; -1 on error.
 * Text comes in gigabytes: it is read straight into the caller's buffer,
 * not copied through a stream's.
 */
static long fill(int fd, char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (long)got;
}

/* Build from text whose first @n bytes are in @buf, the rest in @fd. */
static struct hbb *build(int fd, char *buf, long n, const char *name, int progress,
			 int mpi_only)
{
	struct hbb *b = hbb_new();
	char msg[512];
	uint64_t total = 0, shown = 0;
	struct stat sb;
	int again = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && lseek(fd, 0, SEEK_CUR) >= 0;

	/* a file is read again for the times a threaded rank needs; a pipe
	 * keeps them as it goes */
	if (mpi_only)
		hbb_mpi_only(b);
	if (!again)
		hbb_keep_times(b);
	do {
		if (hbb_feed(b, buf, (size_t)n, name, msg, sizeof(msg)) < 0)
			errx(TG_EXIT_ERROR, "%s", msg);
		total += (uint64_t)n;
		if (progress && total - shown >= (256u << 20)) {
			fprintf(stderr, "\rhb-build: %llu MiB read", (unsigned long long)(total >> 20));
			shown = total;
		}
	} while ((n = fill(fd, buf, CHUNK)) > 0);
	if (n < 0)
		err(TG_EXIT_ERROR, "read error on '%s'", name);
	if (hbb_finish(b, msg, sizeof(msg)) < 0)
		errx(TG_EXIT_ERROR, "%s", msg);
	if (again && hbb_times_needed(b)) {
		if (lseek(fd, 0, SEEK_SET) < 0)
			err(TG_EXIT_ERROR, "cannot read '%s' again", name);
		hbb_times_begin(b);
		while ((n = fill(fd, buf, CHUNK)) > 0)
			if (hbb_feed(b, buf, (size_t)n, name, msg, sizeof(msg)) < 0)
				errx(TG_EXIT_ERROR, "%s", msg);
		if (n < 0)
			err(TG_EXIT_ERROR, "read error on '%s'", name);
		if (hbb_finish(b, msg, sizeof(msg)) < 0)
			errx(TG_EXIT_ERROR, "%s", msg);
	}
	if (progress && shown)
		fprintf(stderr, "\r\033[K");
	if (hbb_build(b, msg, sizeof(msg)) < 0)
		errx(TG_EXIT_ERROR, "%s", msg);
	return b;
}

/* The whole of @fd, whose first @n bytes are in @buf (taken over). */
static struct tg_hb *load_rest(int fd, char *buf, size_t n, const char *name)
{
	size_t cap = CHUNK;
	char msg[512];
	struct tg_hb *h;
	long got;

	for (;;) {
		if (n == cap) {
			buf = realloc(buf, cap *= 2);
			if (!buf)
				errx(TG_EXIT_ERROR, "out of memory");
		}
		got = fill(fd, buf + n, cap - n);
		if (got < 0)
			err(TG_EXIT_ERROR, "read error on '%s'", name);
		if (got == 0)
			break;
		n += (size_t)got;
	}
	h = tg_hb_open_buf(buf, n, msg, sizeof(msg));
	if (!h)
		errx(TG_EXIT_ERROR, "%s: %s", name, msg);
	return h;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dot", no_argument, NULL, 'd' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ "mpi-only", no_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "stats", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *in = "-", *out = NULL, *name;
	int c, opt_dot = 0, opt_force = 0, opt_quiet = 0, opt_stats = 0, opt_mpi = 0;
	struct tg_stream *o;
	struct tg_hb *h = NULL;
	struct hbb *b = NULL;
	const struct tg_hbgraph *g;
	uint16_t *funcs = NULL;
	char *buf;
	long n;
	int fd;

	while ((c = getopt_long(argc, argv, "dfhmo:qs", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			opt_dot = 1;
			break;
		case 'f':
			opt_force = 1;
			break;
		case 'h':
			usage(TG_EXIT_OK);
			break;
		case 'm':
			opt_mpi = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'q':
			opt_quiet = 1;
			break;
		case 's':
			opt_stats = 1;
			break;
		default:
			usage(TG_EXIT_ERROR);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		usage(TG_EXIT_ERROR);
	if (argc == 1)
		in = argv[0];
	if (opt_dot && opt_stats)
		errx(TG_EXIT_ERROR, "options -d and -s exclude each other");

	fd = strcmp(in, "-") == 0 ? 0 : open(in, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		err(TG_EXIT_ERROR, "cannot open '%s'", in);
	name = strcmp(in, "-") == 0 ? "standard input" : in;
	buf = malloc(CHUNK);
	if (!buf)
		errx(TG_EXIT_ERROR, "out of memory");
	n = fill(fd, buf, CHUNK);
	if (n < 0)
		err(TG_EXIT_ERROR, "read error on '%s'", name);
	if (n >= TG_HB_MAGIC_LEN && memcmp(buf, TG_HB_MAGIC, TG_HB_MAGIC_LEN) == 0) {
		/* a graph already: show it */
		uint64_t i;
		if (!opt_dot && !opt_stats)
			errx(TG_EXIT_ERROR, "%s is a happens-before graph already (use -s or -d)",
			     name);
		h = load_rest(fd, buf, (size_t)n, name);
		g = tg_hb_graph(h);
		funcs = calloc(g->nnodes + 1, sizeof(uint16_t));
		if (!funcs)
			errx(TG_EXIT_ERROR, "out of memory");
		for (i = 0; i < g->nnodes; i++)
			funcs[i] = tg_hb_func(h, i);
		{
			static struct tg_hbgraph copy;
			copy = *g;
			copy.func = funcs;
			g = &copy;
		}
	} else {
		b = build(fd, buf, n, name, !opt_quiet && isatty(2), opt_mpi);
		free(buf);
		g = hbb_graph(b);
		if (!opt_quiet)
			report(g);
	}
	if (fd > 0)
		close(fd);

	if (b && (out || (!opt_dot && !opt_stats))) {
		if (!out)
			tg_no_binary_tty(1, opt_force);
		o = tg_stream_open(out ? out : "-", "w");
		if (!o)
			err(TG_EXIT_ERROR, "cannot create '%s'", out);
		if (tg_hb_write(o, g) < 0 || tg_stream_close(o) < 0) {
			if (errno == EPIPE && !out)
				exit(TG_EXIT_OK);
			err(TG_EXIT_ERROR, "write error on '%s'", out ? out : "standard output");
		}
	}
	if (opt_stats)
		stats(g);
	if (opt_dot)
		dot(g);
	tg_close_stdout();
	free(funcs);
	tg_hb_close(h);
	hbb_free(b);
	return TG_EXIT_OK;
}
