/*
 * merge.h - what trace-merge and trace-merge-mpi share: the command line,
 * merging a run of the inputs into one trace, and the end (the one-run
 * check, the final Sequitur pass, the output).
 */
#ifndef TG_MERGE_H
#define TG_MERGE_H

#include <stdint.h>

#include "../libcommon/cfg.h"

struct tg_merge {
	struct tg_cfg_opts o;
	const char *out;	/* -o, NULL for standard output */
	int force, quiet, mpi;
	int nfiles;
	char **files;
};

/* Parse trace-merge's command line into @m: bad usage exits 2 after a
 * message, -h exits 0 after the usage. */
void tg_merge_args(struct tg_merge *m, int argc, char **argv);

/* Is --mpi among the options of @argv?  (Parsed as tg_merge_args()
 * would, without acting on anything.) */
int tg_merge_wants_mpi(int argc, char **argv);

/*
 * Merge the inputs @from to @to - 1 of @m into @acc, in order, and append
 * to *@src (grown, tg_cfg_nstreams(@acc) long after) the input each new
 * stream came from.  @progress shows progress on standard error.
 * Returns 0; 1 when an input could not be read or ended in damage
 * (reported; what could be read is kept); -1 after reporting a fatal
 * error (out of memory, a trace this version cannot merge): @acc is then
 * unusable.
 */
int tg_merge_inputs(struct tg_cfg *acc, const struct tg_merge *m, int from, int to,
		    uint32_t **src, int progress);

/*
 * The end of a merge: unless -f, check that the streams of @acc (which
 * came from the inputs @src names) are of one run; then the final
 * Sequitur pass and the output.  Returns the exit status, @status unless
 * something failed (reported).
 */
int tg_merge_finish(struct tg_cfg *acc, const struct tg_merge *m, const uint32_t *src,
		    int status);

#endif
