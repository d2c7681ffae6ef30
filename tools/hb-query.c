/*
 * hb-query - does one record of an MPI run happen before another?  Asks the
 * graph that hb-build wrote, for the pairs on the command line or, in batch
 * mode, for each line "RANK:SEQ RANK:SEQ" of standard input, answering
 * "yes" or "no" on a line of its own as soon as the question is read.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../libcommon/hb.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "../libcommon/banned.h"

static const char usage_text[] =
	"usage: hb-query [-bfh] [-r run] graph [rank:seq rank:seq ...]\n";

static int force;	/* -f: answer about a graph of another run */

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

/* A record "R:S" or "pPID:S" at s[0..n).  Returns 0, or -1 if malformed;
 * *rank is UINT32_MAX for a process without a rank. */
static int record(const char *s, size_t n, uint32_t *rank, uint64_t *seq)
{
	uint64_t r = 0, q = 0;
	size_t i = 0, d;
	int pid = 0;

	if (n && s[0] == 'p') {
		pid = 1;
		i = 1;
	}
	for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (r > (UINT64_MAX - 9) / 10)
			return -1;
		r = r * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == d || i == n || s[i] != ':')
		return -1;
	for (d = ++i; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (q > (UINT64_MAX - 9) / 10)
			return -1;
		q = q * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == d || i != n)
		return -1;
	if (!pid && r >= UINT32_MAX)
		return -1;
	*rank = pid ? UINT32_MAX : (uint32_t)r;
	*seq = q;
	return 0;
}

/* Why the graph has no record @seq of rank @r, in @why. */
static void no_record(const struct tg_hb *h, uint32_t r, uint64_t seq, char *why,
		      size_t len)
{
	const struct tg_hbgraph *g = tg_hb_graph(h);
	uint64_t last;

	if (r >= g->nranks) {
		snprintf(why, len, "no rank %u in the graph (it has %u)", r, g->nranks);
		return;
	}
	last = g->rankinfo[r].lastseq;
	if (last == TG_HB_NOSEQ)
		snprintf(why, len, "no record %llu of rank %u in the graph (it has none)",
			 (unsigned long long)seq, r);
	else
		snprintf(why, len, "no record %llu of rank %u in the graph (its last is %llu)",
			 (unsigned long long)seq, r, (unsigned long long)last);
}

/* The answer for one pair; NULL with @why set if it cannot be asked. */
static const char *ask(const struct tg_hb *h, uint32_t a, uint64_t i, uint32_t b,
		       uint64_t j, char *why, size_t len)
{
	int rc;

	if (a == UINT32_MAX || b == UINT32_MAX)
		/* a process without a rank: MPI orders nothing of it */
		return "no";
	if (!tg_hb_has_record(h, a, i) || !tg_hb_has_record(h, b, j)) {
		if (!tg_hb_has_record(h, a, i))
			no_record(h, a, i, why, len);
		else
			no_record(h, b, j, why, len);
		return NULL;
	}
	rc = tg_hb_query(h, a, i, b, j);
	return rc ? "yes" : "no";
}

/* Questions read but not answered yet: answered together, in order. */
#define PENDING 4096

struct pending {
	struct tg_hbq q[PENDING];
	unsigned char ans[PENDING];
	unsigned char norank[PENDING];	/* a process without a rank: "no" */
	size_t n;
};

static void answer(const struct tg_hb *h, struct pending *p)
{
	size_t k;

	tg_hb_query_many(h, p->n, p->q, p->ans);
	for (k = 0; k < p->n; k++)
		fputs(p->ans[k] && !p->norank[k] ? "yes\n" : "no\n", stdout);
	p->n = 0;
}

/* The questions are about run @what (16 hex digits): refuse a graph of
 * another run unless -f.  A graph without an id passes. */
static void same_run(const struct tg_hb *h, const char *what)
{
	uint64_t run, g = tg_hb_graph(h)->run;
	char a[17], b[17];

	if (tg_run_parse(what, &run) < 0)
		errx(TG_EXIT_ERROR, "bad run id '%s' (expected 16 hex digits)", what);
	/* 0 is how a file that names no run is held: no run has it */
	if (!run) {
		fflush(stdout);
		errx(TG_EXIT_ERROR, "bad run id '%s' (all zeros names no run)", what);
	}
	if (force || !g || g == run)
		return;
	tg_run_format(g, a);
	tg_run_format(run, b);
	fflush(stdout);
	errx(TG_EXIT_ERROR, "the graph is of run %s, the questions of run %s "
	     "(-f mixes runs)", a, b);
}

/* Batch mode: one question per line of standard input.  The questions of
 * each read are answered together, and the answers written out before
 * the next read, so a program that asks one question at a time gets its
 * answer at once. */
static int batch(const struct tg_hb *h)
{
	size_t cap = 1 << 16, have = 0, i, start;
	char *buf = malloc(cap), why[128];
	struct pending *p = calloc(1, sizeof(*p));
	uint64_t line = 0;
	int status = TG_EXIT_OK, eof = 0;

	if (!buf || !p)
		errx(TG_EXIT_ERROR, "out of memory");
	while (!eof) {
		ssize_t n;
		if (fflush(stdout) != 0)
			break;
		if (have == cap) {
			buf = realloc(buf, cap *= 2);
			if (!buf)
				errx(TG_EXIT_ERROR, "out of memory");
		}
		n = read(0, buf + have, cap - have);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err(TG_EXIT_ERROR, "read error on standard input");
		}
		if (n == 0) {
			eof = 1;
			if (have == 0)
				break;
			buf[have++] = '\n';	/* a last line without its newline */
		}
		have += (size_t)n;
		for (start = 0, i = 0; i < have; i++) {
			const char *l = buf + start, *sp;
			size_t len = i - start, k;
			uint32_t a, b;
			uint64_t x, y;
			int ok;
			if (buf[i] != '\n')
				continue;
			line++;
			start = i + 1;
			if (len && l[len - 1] == '\r')
				len--;
			if (len > 8 && memcmp(l, "#run\tid=", 8) == 0) {
				char id[24];
				snprintf(id, sizeof(id), "%.*s", (int)(len - 8), l + 8);
				answer(h, p);
				same_run(h, id);
				continue;
			}
			for (k = 0; k < len && l[k] != ' ' && l[k] != '\t'; k++)
				;
			sp = l + k;
			while (k < len && (l[k] == ' ' || l[k] == '\t'))
				k++;
			ok = k > (size_t)(sp - l) && record(l, sp - l, &a, &x) == 0 &&
			     record(l + k, len - k, &b, &y) == 0;
			if (!ok)
				snprintf(why, sizeof(why), "not a question \"RANK:SEQ RANK:SEQ\"");
			else if (a != UINT32_MAX && !tg_hb_has_record(h, a, x))
				no_record(h, a, x, why, sizeof(why));
			else if (b != UINT32_MAX && !tg_hb_has_record(h, b, y))
				no_record(h, b, y, why, sizeof(why));
			else
				why[0] = 0;
			if (why[0]) {
				answer(h, p);
				printf("error: %s\n", why);
				warnx("line %llu: %s", (unsigned long long)line, why);
				status = TG_EXIT_ERROR;
				continue;
			}
			/* a process without a rank is ordered with nothing */
			p->norank[p->n] = a == UINT32_MAX || b == UINT32_MAX;
			p->q[p->n++] = (struct tg_hbq){ a == UINT32_MAX ? 0 : a,
							b == UINT32_MAX ? 0 : b, x, y };
			if (p->n == PENDING)
				answer(h, p);
		}
		answer(h, p);
		memmove(buf, buf + start, have - start);
		have -= start;
	}
	free(buf);
	free(p);
	return status;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "run", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	int c, opt_batch = 0, status = TG_EXIT_OK, i;
	struct tg_hb *h;
	char msg[512];
	const char *run = NULL;

	while ((c = getopt_long(argc, argv, "+bfhr:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			opt_batch = 1;
			break;
		case 'f':
			force = 1;
			break;
		case 'r':
			run = optarg;
			break;
		case 'h':
			usage(TG_EXIT_OK);
			break;
		default:
			usage(TG_EXIT_ERROR);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || argc % 2 == 0 || (opt_batch && argc > 1))
		usage(TG_EXIT_ERROR);
	if (argc == 1 && strcmp(argv[0], "-") == 0)
		errx(TG_EXIT_ERROR, "in batch mode the graph must be a file, not standard input");
	for (i = 1; i < argc; i++) {
		uint32_t r;
		uint64_t q;
		if (record(argv[i], strlen(argv[i]), &r, &q) < 0)
			errx(TG_EXIT_ERROR, "bad record '%s' (expected RANK:SEQ)", argv[i]);
	}
	h = tg_hb_open(argv[0], msg, sizeof(msg));
	if (!h)
		errx(TG_EXIT_ERROR, "%s: %s", strcmp(argv[0], "-") ? argv[0] : "standard input",
		     msg);
	if (run)
		same_run(h, run);
	if (argc == 1) {
		status = batch(h);
	} else {
		for (i = 1; i + 1 < argc; i += 2) {
			uint32_t a, b;
			uint64_t x, y;
			const char *ans;
			char why[128];
			record(argv[i], strlen(argv[i]), &a, &x);
			record(argv[i + 1], strlen(argv[i + 1]), &b, &y);
			ans = ask(h, a, x, b, y, why, sizeof(why));
			if (!ans)
				errx(TG_EXIT_ERROR, "%s", why);
			puts(ans);
		}
	}
	tg_close_stdout();
	tg_hb_close(h);
	return status;
}
