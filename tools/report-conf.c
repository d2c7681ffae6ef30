/*
 * report-conf.c - what conflict-check --json said, summed for the report:
 * per file the pairs by kind, how many nothing ordered, what made the others
 * safe (their order, a commit, a close before an open), and which models
 * they conflict under; per pair of ranks how many, in a bounded table.
 *
 * conflict-check --json writes one object per line: a pair (with "file",
 * "kind", "procs", "first", "second", "conflict", "synchronized" and the
 * commit, close and open that order it), then {"summary": [...]}, then with
 * --recommend {"recommended": MODEL}.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../libcommon/util.h"
#include "report.h"
#include "../libcommon/banned.h"

static const char *const models[3] = { "posix", "commit", "session" };

static size_t cfile_of(struct rp_run *run, const char *path)
{
	size_t i;

	for (i = 0; i < run->ncfiles; i++)
		if (strcmp(run->cfiles[i].path, path) == 0)
			return i;
	run->cfiles = tg_xrealloc(run->cfiles, (run->ncfiles + 1) * sizeof(*run->cfiles));
	memset(&run->cfiles[run->ncfiles], 0, sizeof(*run->cfiles));
	run->cfiles[run->ncfiles].path = tg_xstrdup(path);
	return run->ncfiles++;
}

static int64_t rank_num(json_t *acc)
{
	const char *s = json_string_value(json_object_get(acc, "rank"));
	char *end;
	long long v;

	if (!s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	return errno || end == s || *end || v < 0 ? -1 : v;
}

static void count_pair(struct rp_run *run, int64_t a, int64_t b, uint32_t file, int unsync)
{
	static uint32_t slot[2 * RP_CPAIRS];	/* index + 1 into cpairs */
	uint64_t h;
	size_t j;

	if (a > b) {
		int64_t t = a;
		a = b;
		b = t;
	}
	h = ((uint64_t)a * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)b * 0xc2b2ae3d27d4eb4full) ^ file;
	for (j = (h ^ h >> 29) % (2 * RP_CPAIRS); slot[j]; j = (j + 1) % (2 * RP_CPAIRS)) {
		struct rp_cpair *p = &run->cpairs[slot[j] - 1];
		if (p->a == a && p->b == b && p->file == file) {
			p->n++;
			p->unsync += (uint64_t)unsync;
			return;
		}
	}
	if (run->ncpairs == RP_CPAIRS) {	/* the table is full: counted apart */
		run->cpairs_other++;
		return;
	}
	run->cpairs[run->ncpairs++] = (struct rp_cpair){ a, b, file, 1, (uint64_t)unsync };
	slot[j] = (uint32_t)run->ncpairs;
}

/* One pair object; returns 0, or -1 if it is not one. */
static int add_pair(struct rp_run *run, json_t *o)
{
	const char *file = json_string_value(json_object_get(o, "file"));
	const char *kind = json_string_value(json_object_get(o, "kind"));
	const char *procs = json_string_value(json_object_get(o, "procs"));
	const char *ord = json_string_value(json_object_get(o, "ordered_by"));
	json_t *conf = json_object_get(o, "conflict");
	int k, d, sync, m;
	struct rp_cfile *f;
	size_t fi;

	if (!file || !kind || !procs || !json_is_object(conf))
		return -1;
	k = strcmp(kind, "WAW") == 0;
	d = strcmp(procs, "D") == 0;
	sync = json_is_true(json_object_get(o, "synchronized"));
	fi = cfile_of(run, file);
	f = &run->cfiles[fi];
	f->pairs[k][d]++;
	if (!sync)
		f->unsync[k][d]++;
	else if (json_object_get(o, "commit_seq") || json_object_get(o, "close_seq"))
		f->by[json_object_get(o, "commit_seq") ? 1 : 2]++;
	else
		f->by[0]++;
	for (m = 0; m < 3; m++)
		f->conf[m][k][d] += json_is_true(json_object_get(conf, models[m]));
	count_pair(run, rank_num(json_object_get(o, "first")),
		   rank_num(json_object_get(o, "second")), (uint32_t)fi, !sync);
	if (ord && !run->ordered_by)
		run->ordered_by = tg_xstrdup(ord);
	return 0;
}

int rp_conf_read(struct rp_run *run, const char *path, char *msg, size_t msglen)
{
	FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;
	int rc = 0, summary = 0;

	if (!in) {
		snprintf(msg, msglen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && (n = getline(&line, &cap, in)) >= 0) {
		json_error_t je;
		json_t *o, *v;
		lineno++;
		if (n == 0 || (n == 1 && line[0] == '\n'))
			continue;
		if (!(o = json_loads(line, 0, &je)) || !json_is_object(o)) {
			snprintf(msg, msglen, "%s: line %zu: not conflict-check --json output", path,
				 lineno);
			rc = -1;
		} else if ((v = json_object_get(o, "recommended"))) {
			free(run->recommended);
			run->recommended = tg_xstrdup(json_is_string(v) ? json_string_value(v) : "?");
		} else if (json_object_get(o, "summary")) {
			summary = 1;
		} else if (add_pair(run, o) < 0) {
			snprintf(msg, msglen, "%s: line %zu: not a conflict-check pair", path, lineno);
			rc = -1;
		}
		json_decref(o);
	}
	if (rc == 0 && ferror(in)) {
		snprintf(msg, msglen, "cannot read '%s': %s", path, strerror(errno));
		rc = -1;
	}
	/* conflict-check writes the summary even when no pair conflicts:
	 * without it the file was cut short, and its pairs are not all */
	if (rc == 0 && !summary) {
		snprintf(msg, msglen, lineno ? "%s: no summary line (cut short?)" :
			 "%s: empty input (no summary line)", path);
		rc = -1;
	}
	free(line);
	if (in != stdin)
		fclose(in);
	run->have_conf = 1;
	return rc;
}
