/*
 * runs.c - the global numbering of the ranks of a trace of several runs
 * (runs.h).
 */
#include "runs.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

int tg_runs_note(struct tg_runs *r, const struct tg_header *h)
{
	int i;

	for (i = 0; i < r->n && r->v[i].run != tg_run_of(h); i++)
		;
	if (i == r->n) {
		if (r->n == TG_MAXRUNS)
			return -1;
		r->v[r->n++] = (struct tg_run){ tg_run_of(h), 0, 0 };
	}
	if (h->world > r->v[i].world)
		r->v[i].world = h->world;
	if (h->rank >= 0 && (uint64_t)h->rank >= r->v[i].world)
		r->v[i].world = (uint64_t)h->rank + 1;
	return 0;
}

static int cmp_run(const void *x, const void *y)
{
	const struct tg_run *a = x, *b = y;

	return a->run < b->run ? -1 : a->run > b->run;
}

void tg_runs_number(struct tg_runs *r)
{
	int64_t first = 0;
	int i;

	if (r->numbered)
		return;
	r->numbered = 1;
	qsort(r->v, (size_t)r->n, sizeof(*r->v), cmp_run);
	for (i = 0; i < r->n; i++) {
		r->v[i].first = first;
		first += (int64_t)r->v[i].world;
	}
}

int64_t tg_runs_first(const struct tg_runs *r, uint64_t run)
{
	int i;

	for (i = 0; r->n > 1 && i < r->n; i++)
		if (r->v[i].run == run)
			return r->v[i].first;
	return 0;
}

unsigned long tg_run_of_name(const char *name)
{
	size_t n = strlen(name);
	const char *p;

	if ((strncmp(name, "rank-", 5) != 0 && strncmp(name, "pid-", 4) != 0) ||
	    n < 4 || strcmp(name + n - 4, ".rec") != 0)
		return 0;
	for (p = name + n - 4; p > name && p[-1] >= '0' && p[-1] <= '9'; p--)
		;
	if (p < name + n - 4 && p - name >= 4 && strncmp(p - 4, ".run", 4) == 0 && *p != '0')
		return strtoul(p, NULL, 10);
	return 1;
}
