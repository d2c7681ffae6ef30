/*
 * trace-merge-mpi - trace-merge --mpi: the merge of trace-merge(1) over the
 * ranks of an MPI job, which trace-merge runs (execv) when given --mpi, so
 * that trace-merge itself never links MPI.
 *
 * The inputs are cut into as many contiguous blocks as there are ranks:
 * rank r merges inputs [r n / P, (r + 1) n / P) as trace-merge does.  Then
 * a binomial tree: in round k, rank r with r mod 2^(k+1) = 2^k sends its
 * trace, packed exactly (tg_cfg_pack), to rank r - 2^k, which merges it
 * after its own; the order of the inputs is kept, and after log2(P) rounds
 * rank 0 holds what the serial merge holds before its end.  Rank 0 then
 * ends as it does: the one-run check, the final Sequitur pass, the output.
 *
 * Errors: an input that cannot be read or ends in damage is reported by
 * the rank that read it, the others are merged and every rank exits 2, as
 * trace-merge does.  A fatal error (out of memory, a trace this version
 * cannot merge) is reported by its rank; after the local merges and after
 * each round the ranks agree on whether one happened (MPI_Allreduce), and
 * then all exit 2 without output.  No rank waits for one that has given
 * up, so nothing hangs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "../libcommon/cfg.h"
#include "../libcommon/tg.h"
#include "merge.h"
#include "../libcommon/banned.h"

/* The largest piece one MPI_Send carries (counts are ints). */
#define CHUNK (1u << 30)

enum { TAG_HEAD = 7101, TAG_DATA };

/* Built with AddressSanitizer (make SANITIZE=1), leaks are not looked
 * for: what the MPI library and its transports leave at exit, in modules
 * they have unloaded, is not ours (trace-merge runs the same merge code
 * with leak checking). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

static int me, nranks;
static int parsing;	/* every rank is parsing the same command line */

/* Whatever ends the process ends MPI: the same way on every rank while
 * parsing (bad usage, -h), else by aborting the job, so that no rank is
 * left waiting. */
static void at_exit(void)
{
	int done = 0;

	MPI_Finalized(&done);
	if (done)
		return;
	if (parsing)
		MPI_Finalize();
	else
		MPI_Abort(MPI_COMM_WORLD, TG_EXIT_ERROR);
}

static void leave(int status)
{
	MPI_Finalize();
	exit(status);
}

/* The largest of @v[0..2) over the ranks, in place. */
static void agree(int v[2])
{
	int in[2] = { v[0], v[1] };

	MPI_Allreduce(in, v, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
}

static void send_bytes(const void *p, uint64_t n, int to)
{
	uint64_t off;

	for (off = 0; off < n; off += CHUNK)
		MPI_Send((const char *)p + off, (int)(n - off < CHUNK ? n - off : CHUNK), MPI_BYTE,
			 to, TAG_DATA, MPI_COMM_WORLD);
}

static void recv_bytes(void *p, uint64_t n, int from)
{
	uint64_t off;

	for (off = 0; off < n; off += CHUNK)
		MPI_Recv((char *)p + off, (int)(n - off < CHUNK ? n - off : CHUNK), MPI_BYTE, from,
			 TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/*
 * Send @acc (the streams of inputs @src) to rank @to: a head -- failed,
 * bytes of the packed trace, streams -- then the packed trace and @src.
 * A rank with no streams sends only the head.  Returns 0, or -1 after
 * reporting a fatal error (the head then says so).
 */
static int send_trace(const struct tg_cfg *acc, const uint32_t *src, int to)
{
	uint64_t head[3] = { 0, 0, tg_cfg_nstreams(acc) };
	unsigned char *buf = NULL;
	size_t len = 0;

	if (head[2] && tg_cfg_pack(acc, &buf, &len) < 0) {
		warnx("out of memory");
		head[0] = 1;
	}
	head[1] = len;
	MPI_Send(head, 3, MPI_UINT64_T, to, TAG_HEAD, MPI_COMM_WORLD);
	if (!head[0] && head[2]) {
		send_bytes(buf, len, to);
		send_bytes(src, head[2] * sizeof(uint32_t), to);
	}
	free(buf);
	return head[0] ? -1 : 0;
}

/*
 * Receive the trace of rank @from and merge it after the streams of @acc,
 * appending to *@src the inputs its streams came from.  Returns 0, or -1
 * after a fatal error (reported, by this rank or by @from).
 */
static int recv_trace(struct tg_cfg *acc, uint32_t **src, int from)
{
	uint64_t head[3];
	unsigned char *buf;
	uint32_t *s;
	size_t have = tg_cfg_nstreams(acc);
	struct tg_cfg *c;
	char msg[256];
	int rc = -1;

	MPI_Recv(head, 3, MPI_UINT64_T, from, TAG_HEAD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (head[0])
		return -1;
	if (!head[2])
		return 0;
	/* the sender is sending: take it all, or give up the whole job */
	buf = malloc(head[1] ? head[1] : 1);
	s = realloc(*src, (have + head[2] + 1) * sizeof(uint32_t));
	if (s)
		*src = s;
	if (!buf || !s) {
		warnx("out of memory");
		MPI_Abort(MPI_COMM_WORLD, TG_EXIT_ERROR);
	}
	recv_bytes(buf, head[1], from);
	recv_bytes(s + have, head[2] * sizeof(uint32_t), from);
	if (!(c = tg_cfg_unpack(buf, head[1], msg, sizeof(msg))))
		warnx("the trace of rank %d: %s", from, msg);
	else if (tg_cfg_nstreams(c) != head[2])
		warnx("the trace of rank %d: %zu streams, not %llu", from, tg_cfg_nstreams(c),
		      (unsigned long long)head[2]);
	else if (tg_cfg_merge(acc, c, msg, sizeof(msg)) < 0)
		warnx("merging the trace of rank %d: %s", from, msg);
	else
		rc = 0;
	tg_cfg_free(c);
	free(buf);
	return rc;
}

/*
 * The number of processes the launcher says it started, when it is more
 * than MPI sees: the mpirun of another MPI (Open MPI's is plain "mpirun"
 * on Debian) starts each process as a job of one rank, and each would
 * merge everything and write the same output.  *@first: this is the
 * launcher's first process.  0 when all is well.
 */
static long foreign_launch(int *first)
{
	static const char *const vars[][2] = {
		{ "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK" },
		{ "PMI_SIZE", "PMI_RANK" },
	};
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *n = getenv(vars[i][0]), *r = getenv(vars[i][1]);
		long size = n ? strtol(n, NULL, 10) : 0;
		if (size > nranks) {
			*first = !r || strcmp(r, "0") == 0;
			return size;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct tg_merge m;
	struct tg_cfg *acc;
	uint32_t *src = NULL;
	int flags[2] = { 0, 0 };	/* fatal, bad input */
	int i, step, from, to, rc, tty = 0, status;

	/* messages are trace-merge's */
	program_invocation_short_name = (char *)"trace-merge";
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	parsing = 1;
	atexit(at_exit);
	{
		int first = 0;
		long n = foreign_launch(&first);
		if (n) {
			if (first)
				warnx("--mpi: started as one of %ld processes, but MPI sees %d: "
				      "another MPI's mpirun? (use mpirun.mpich)", n, nranks);
			leave(TG_EXIT_ERROR);
		}
	}
	/* the command line is the same everywhere: rank 0 speaks for all */
	{
		int saved[2] = { -1, -1 }, null = -1;
		if (me != 0 && (null = open("/dev/null", O_WRONLY)) >= 0) {
			fflush(stdout);
			saved[0] = dup(1);
			saved[1] = dup(2);
			dup2(null, 1);
			dup2(null, 2);
		}
		tg_merge_args(&m, argc, argv);
		m.mpi = 1;
		for (i = 0; i < m.nfiles; i++)
			if (strcmp(m.files[i], "-") == 0)
				errx(TG_EXIT_ERROR, "--mpi cannot read standard input: name files");
		if (null >= 0) {
			dup2(saved[0], 1);
			dup2(saved[1], 2);
			close(saved[0]);
			close(saved[1]);
			close(null);
		}
	}
	parsing = 0;
	if (me == 0)
		tty = !m.out && !m.force && isatty(1);
	MPI_Bcast(&tty, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (tty) {
		if (me == 0)
			warnx("refusing to write binary data to a terminal (use -f to force)");
		leave(TG_EXIT_ERROR);
	}

	/* this rank's block of the inputs */
	from = (int)((long long)me * m.nfiles / nranks);
	to = (int)((long long)(me + 1) * m.nfiles / nranks);
	if (!(acc = tg_cfg_new())) {
		warnx("out of memory");
		flags[0] = 1;
	} else {
		rc = tg_merge_inputs(acc, &m, from, to, &src, me == 0 && !m.quiet && isatty(2));
		flags[0] = rc < 0;
		flags[1] = rc > 0;
	}
	agree(flags);
	if (flags[0])
		leave(TG_EXIT_ERROR);

	/* the tree: the ranks that sent still take part in agreeing */
	for (step = 1; step < nranks; step *= 2) {
		if (acc && me % (2 * step) == step) {
			flags[0] = send_trace(acc, src, me - step) < 0;
			tg_cfg_free(acc);
			acc = NULL;
		} else if (acc && me % (2 * step) == 0 && me + step < nranks) {
			flags[0] = recv_trace(acc, &src, me + step) < 0;
		}
		agree(flags);
		if (flags[0])
			leave(TG_EXIT_ERROR);
	}

	status = flags[1] ? TG_EXIT_ERROR : TG_EXIT_OK;
	if (me == 0)
		status = tg_merge_finish(acc, &m, src, status);
	tg_cfg_free(acc);
	free(src);
	leave(status);
	return status;
}
