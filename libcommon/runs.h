/*
 * runs.h - the global numbering of the ranks of a trace of several runs.
 *
 * Streams of more than one run into a trace directory (their headers' run
 * numbers differ) are numbered run-major: the ranks of a run follow those
 * of every run with a smaller number, each run counting as many ranks as
 * its world.  trace-decode prints them so (#run lines); every tool that
 * names ranks numbers them the same way.
 */
#ifndef TG_RUNS_H
#define TG_RUNS_H

#include <stdint.h>

#include "rec.h"

#define TG_MAXRUNS 256

struct tg_runs {
	struct tg_run {
		uint64_t run, world;
		int64_t first;
	} v[TG_MAXRUNS];
	int n, numbered;
};

/* The run of a stream whose header is @h: 1 for none. */
static inline uint64_t tg_run_of(const struct tg_header *h)
{
	return h->run ? h->run : 1;
}

/* Note a stream of header @h (its run, and a world at least its rank's);
 * -1 when there are more than TG_MAXRUNS runs. */
int tg_runs_note(struct tg_runs *r, const struct tg_header *h);

/* Number the runs noted: each run's first global rank.  Once. */
void tg_runs_number(struct tg_runs *r);

/* The first global rank of run @run: 0 when fewer than two runs are known. */
int64_t tg_runs_first(const struct tg_runs *r, uint64_t run);

/* The run a stream file named @name belongs to (rank-R.rec, pid-P.rec,
 * pid-P.N.rec: 1; the same with .runK before .rec: K), 0 if the name is
 * not a stream's. */
unsigned long tg_run_of_name(const char *name);

#endif
