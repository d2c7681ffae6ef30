/*
 * trace-merge - merge record streams and compressed traces of one run into
 * one compressed trace (tangram-cfg(5)).
 *
 * With --mpi it runs trace-merge-mpi instead, with the same arguments: the
 * merge as a tree over MPI ranks lives in a program of its own, so that
 * this one never links MPI.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../libcommon/cfg.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "merge.h"
#include "../libcommon/banned.h"

#define MPI_HELPER "trace-merge-mpi"

/*
 * Run trace-merge-mpi with @argv: the one next to this program, else the
 * first in PATH.  Under mpirun the process keeps its environment, so the
 * helper joins the job.  Returns only to exit 2.
 */
static void exec_mpi(char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + sizeof(MPI_HELPER) + 1];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		char *slash;
		self[n] = 0;
		if ((slash = strrchr(self, '/'))) {
			*slash = 0;
			snprintf(path, sizeof(path), "%s/%s", self, MPI_HELPER);
			if (access(path, X_OK) == 0) {
				execv(path, argv);
				err(TG_EXIT_ERROR, "--mpi: cannot run '%s'", path);
			}
		}
	}
	execvp(MPI_HELPER, argv);
	if (errno == ENOENT)
		errx(TG_EXIT_ERROR, "--mpi: %s is not installed (not next to trace-merge, "
		     "nor in PATH)", MPI_HELPER);
	err(TG_EXIT_ERROR, "--mpi: cannot run %s", MPI_HELPER);
}

int main(int argc, char **argv)
{
	struct tg_merge m;
	struct tg_cfg *acc;
	uint32_t *src = NULL;
	int rc, status;

	if (tg_merge_wants_mpi(argc, argv))
		exec_mpi(argv);
	tg_merge_args(&m, argc, argv);
	if (!m.out)
		tg_no_binary_tty(1, m.force);
	if (!(acc = tg_cfg_new()))
		errx(TG_EXIT_ERROR, "out of memory");
	rc = tg_merge_inputs(acc, &m, 0, m.nfiles, &src, !m.quiet && isatty(2));
	if (rc < 0)
		exit(TG_EXIT_ERROR);
	status = tg_merge_finish(acc, &m, src, rc ? TG_EXIT_ERROR : TG_EXIT_OK);
	tg_cfg_free(acc);
	free(src);
	return status;
}
