/*
 * tfs-bench - write bandwidth of TangramFS (dissertation §5.5, §5.6): the
 * fpp, contiguous and strided workloads, each under sync-posix,
 * sync-commit and sync-session (Table 5.5 applied to the primitives
 * directly) and lock-exact, lock-extend-end and lock-extend (Table 5.3:
 * tfs_acquire_lock before every write), beside the raw bandwidth of
 * writing the same bytes with pwrite(2) straight into TFS_BB_DIR, in the
 * same run; for the lock models also the counters of Table 5.8 per node.
 *
 * usage: mpirun -n NP tfs-bench [-ABbchO] [-M writes] [-m models] [-o seed]
 *                               [-P ranks-per-node] [-r repeats] [-S bytes] [-w workloads]
 * Every rank is a process; TFS_NODE is rank / P, so N = NP / P.  One line
 * per workload and model: the best of the repeats (each repeat runs every
 * model once, in turn), timed from a barrier
 * after the opens (files are created before the clock starts) to the
 * last rank's last write (sync: its attach; raw: its close; the releases
 * and the sync closes are not timed), and for lock models the mean over
 * nodes and repeats of alpha, beta and gamma, beside what Table 5.8
 * says they are.  M defaults to what makes 16 MiB per rank (at least 8).
 * sync-posix writes through a TFS_O_POSIX handle (each write visible as it
 * returns, the process a pending writer of the file: no attach per
 * write, tfs(3)); -A attaches after every write instead, as Table 5.5
 * has it.  -m and -w take comma-separated names.  By default the run is the
 * paper's: a barrier between the i-th writes of all ranks (the batches of
 * §5.5.3; -B: none), and the ranks take their first lock (strided: every
 * lock) one at a time in a random order drawn from a seed (the arrival
 * orders of §5.5.2, all equally likely; -o SEED, default 1; -O: no
 * order, they come as they come).  -b is the default batches, kept for
 * old command lines.  -c prints every node's counters of every
 * repeat on lines "counts WORKLOAD MODEL REPEAT NODE ALPHA BETA GAMMA",
 * and with -b also those of every batch (§5.5.3: the i-th writes of all
 * ranks, between two barriers) on lines "batch WORKLOAD MODEL REPEAT
 * BATCH NODE ALPHA BETA GAMMA", read by one rank per node after a
 * barrier that ends the batch (inside the timed loop).  -c also prints
 * the arrival orders of the lock runs, "order WORKLOAD MODEL REPEAT
 * BATCH RANK...", the ranks in turn (batch 0 only but for strided).
 * A lock run writes a file of its own (its node tokens stay behind), which
 * is removed after it.  Numbers are whole and checked (-S takes k, m or g
 * after it); a bad one is named in one line and every rank exits 2.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tfs/tfs.h"

enum { RAW, POSIX, COMMIT, SESSION, LEXACT, LEXTEND_END, LEXTEND, NMODEL };
static const char *const model_name[] = { "raw", "sync-posix", "sync-commit", "sync-session",
					  "lock-exact", "lock-extend-end", "lock-extend" };
static const char *const wl_name[] = { "fpp", "contiguous", "strided" };

static int rank, np, batches = 1, counts_out, run_id;
static int order_id;		/* the arrival orders' key of the run under way */
static int attach_each;		/* -A: sync-posix attaches every write (Table 5.5 as written) */
static int anylock;		/* a lock model is run: the counters' columns */
static long reps = 3;		/* -r */
static int quiet;		/* batches or turns, more ranks here than cores: waits sleep */
static long order = 1;		/* -o: the seed of the arrival orders; -1 (-O): none */
static long M = 0, S = 4 << 20, P = 1;
static unsigned long long cnt[3];	/* this node's counters of the last run */
static unsigned long long *bcnt;	/* -c -b: of each batch, M * 3 */

static size_t offset_of(int wl, long i)
{
	switch (wl) {
	case 0:
		return (size_t)i * (size_t)S;			/* own file */
	case 1:
		return ((size_t)rank * M + (size_t)i) * (size_t)S;	/* rank * MPS */
	default:
		return ((size_t)i * np + (size_t)rank) * (size_t)S;	/* i*NPS + j*S */
	}
}

/*
 * Wait for @req.  MPI waits by polling; with more ranks than cores every
 * rank that waits for its turn or a barrier takes the cores from the one
 * whose turn it is (and from its node manager, and from the server), and
 * a run of 32 ranks on two cores takes minutes.  Such a host polls and
 * sleeps, a little longer each time.
 */
static void wait_req(MPI_Request *req)
{
	useconds_t nap = 10;
	int done = 0;

	if (!quiet) {
		MPI_Wait(req, MPI_STATUS_IGNORE);
		return;
	}
	for (;;) {
		MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		usleep(nap);
		if (nap < 1000)
			nap *= 2;
	}
}

static void barrier(void)
{
	MPI_Request req;

	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	wait_req(&req);
}

/* -o: the ranks take their i-th lock one after the other, in an order
 * drawn from the seed (the same on every rank), so that every arrival
 * order of §5.5.2 is equally likely. */
static int *perm, *pos;

/* The arrival order of the @i-th locks of run @id into perm[] (the ranks
 * in turn) and pos[] (each rank's turn). */
static void draw_order(int id, long i)
{
	unsigned seed = (unsigned)(order * 1000003 + id * 1009 + i);

	for (int k = 0; k < np; k++)
		perm[k] = k;
	for (int k = np - 1; k > 0; k--) {
		int j = (int)(rand_r(&seed) % (unsigned)(k + 1)), t = perm[k];

		perm[k] = perm[j];
		perm[j] = t;
	}
	for (int k = 0; k < np; k++)
		pos[perm[k]] = k;
}

static void wait_turn(long i)
{
	draw_order(order_id, i);
	if (pos[rank] > 0) {
		MPI_Request req;

		MPI_Irecv(NULL, 0, MPI_BYTE, perm[pos[rank] - 1], 7, MPI_COMM_WORLD, &req);
		wait_req(&req);
	}
}

static void pass_turn(void)
{
	if (pos[rank] + 1 < np)
		MPI_Send(NULL, 0, MPI_BYTE, perm[pos[rank] + 1], 7, MPI_COMM_WORLD);
}

static double run(int wl, int model, const char *bb, char *buf)
{
	char name[4096];
	double t0, t1, dt, worst;

	if (wl == 0)
		snprintf(name, sizeof(name), "bench-%s-%d", wl_name[wl], rank);
	else
		snprintf(name, sizeof(name), "bench-%s", wl_name[wl]);
	if (model >= LEXACT) {
		size_t n = strlen(name);

		snprintf(name + n, sizeof(name) - n, "-lock%d", run_id);
	}
	if (model >= LEXACT) {
		tfs_file_t *f = tfs_open(name);
		uint64_t c0[3] = { 0 }, c1[3] = { 0 };

		if (!f) {
			perror("tfs_open");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		tfs_lock_policy(model == LEXACT ? TFS_LOCK_EXACT :
				model == LEXTEND_END ? TFS_LOCK_EXTEND_END : TFS_LOCK_EXTEND);
		if (rank % P == 0 && tfs_lock_stats(c0) < 0)
			MPI_Abort(MPI_COMM_WORLD, 2);
		barrier();
		t0 = MPI_Wtime();
		for (long i = 0; i < M; i++) {
			size_t off = offset_of(wl, i);
			int turn = order >= 0 && (wl == 2 || i == 0);

			if (batches)
				barrier();
			if (turn)
				wait_turn(i);
			if (tfs_acquire_lock(f, off, (size_t)S, LOCK_TYPE_WRITE) < 0 ||
			    tfs_pwrite(f, buf, (size_t)S, off) != S) {
				perror("tfs_acquire_lock/tfs_pwrite");
				MPI_Abort(MPI_COMM_WORLD, 2);
			}
			if (turn)
				pass_turn();
			if (bcnt) {	/* the batch is over: its counters */
				uint64_t cb[3] = { 0 };

				barrier();
				if (rank % P == 0 && tfs_lock_stats(cb) < 0)
					MPI_Abort(MPI_COMM_WORLD, 2);
				for (int k = 0; k < 3; k++) {
					bcnt[3 * i + k] = cb[k] - c0[k];
					c0[k] = cb[k];
				}
			}
		}
		t1 = MPI_Wtime();
		barrier();
		if (rank % P == 0 && tfs_lock_stats(c1) < 0)
			MPI_Abort(MPI_COMM_WORLD, 2);
		for (int k = 0; k < 3; k++)
			cnt[k] = c1[k] - c0[k];
		if (bcnt)	/* c0 moved on with the batches */
			for (long i = 0; i < M; i++)
				for (int k = 0; k < 3; k++)
					cnt[k] += bcnt[3 * i + k];
		/* untimed: the release flushes to TFS_PFS_DIR */
		if (tfs_release_lock_file(f) < 0 || tfs_close(f) < 0) {
			perror("tfs_release_lock_file/tfs_close");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		barrier();
		if (wl == 0 || rank == 0)
			tfs_unlink(name);
	} else if (model == RAW) {
		char path[8192];
		int fd;

		snprintf(path, sizeof(path), "%s/raw-%s", bb, name);
		if ((fd = open(path, O_WRONLY | O_CREAT, 0600)) < 0) {
			perror(path);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		barrier();
		t0 = MPI_Wtime();
		for (long i = 0; i < M; i++) {
			if (batches)
				barrier();
			if (pwrite(fd, buf, (size_t)S, (off_t)offset_of(wl, i)) != S)
				MPI_Abort(MPI_COMM_WORLD, 2);
		}
		close(fd);
		t1 = MPI_Wtime();
		barrier();
		unlink(path);
	} else {
		/* sync-posix: the pending-writer handle, a write visible as it
		 * returns (tfs(3)); with -A a tfs_attach after each write */
		tfs_file_t *f = tfs_open_flags(name, TFS_O_CREAT |
					       (model == POSIX && !attach_each ? TFS_O_POSIX : 0));

		if (!f) {
			perror("tfs_open");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		barrier();
		t0 = MPI_Wtime();
		for (long i = 0; i < M; i++) {
			size_t off = offset_of(wl, i);

			if (batches)
				barrier();
			if (tfs_pwrite(f, buf, (size_t)S, off) != S ||
			    (model == POSIX && attach_each && tfs_attach(f, off, (size_t)S) < 0)) {
				/* which write: what a lost server leaves of
				 * this repeat depends on it (tfs-durable.bats) */
				fprintf(stderr, "tfs_pwrite/tfs_attach: write %ld of %ld: %s\n",
					i + 1, M, strerror(errno));
				MPI_Abort(MPI_COMM_WORLD, 2);
			}
		}
		if (model != POSIX && tfs_attach_file(f) < 0)
			MPI_Abort(MPI_COMM_WORLD, 2);
		/* untimed below: the close keeps the attached writes buffered */
		t1 = MPI_Wtime();
		barrier();
		/* (the attach is what close would do); detached, the buffer
		 * goes at close */
		const char *failed = NULL;

		if (model == POSIX && !attach_each && tfs_attach_file(f) < 0)
			failed = "tfs_attach_file";
		else if (tfs_detach_file(f) < 0)
			failed = "tfs_detach_file";
		else if (tfs_close(f) < 0)
			failed = "tfs_close";
		if (failed) {
			perror(failed);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	dt = t1 - t0;
	MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return worst;
}

/* Table 5.8: alpha, beta, gamma per node of workload @wl under lock
 * model @model, into @v; 0 when the table has no row for it. */
static int table58(int wl, int model, double v[3])
{
	double cp = 0, mp = (double)M * (double)P;

	for (long w = 1; w <= P; w++)
		cp += 1.0 / (double)w;	/* C_P = H_P */
	if (model == LEXACT) {
		v[0] = mp;
		v[1] = v[2] = 0;
	} else if (model != LEXTEND) {
		return 0;
	} else if (wl == 0) {
		v[0] = (double)P;
		v[1] = mp - (double)P;
		v[2] = 0;
	} else if (wl == 1) {
		v[0] = 0;
		v[1] = mp - cp;
		v[2] = cp;
	} else {
		v[0] = 0;
		v[1] = (double)M * ((double)P - cp);
		v[2] = (double)M * cp;
	}
	return 1;
}

/* -c -b: rank 0 prints every node's counters of every batch of run @r. */
static void print_batches(int wl, int model, long r)
{
	unsigned long long *all = NULL;
	size_t per = 3 * (size_t)M;

	if (rank == 0 && !(all = malloc((size_t)np * per * sizeof(*all))))
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Gather(bcnt, (int)per, MPI_UNSIGNED_LONG_LONG, all, (int)per, MPI_UNSIGNED_LONG_LONG,
		   0, MPI_COMM_WORLD);
	for (int n = 0; rank == 0 && n < np / P; n++)
		for (long i = 0; i < M; i++) {
			unsigned long long *v = all + (size_t)n * (size_t)P * per + 3 * (size_t)i;

			printf("batch %s %s %ld %ld %d %llu %llu %llu\n", wl_name[wl],
			       model_name[model], r, i, n, v[0], v[1], v[2]);
		}
	free(all);
}

/* -c: rank 0 prints the arrival orders of run @r (the one just made):
 * the ranks in the order they took their first lock (strided: every
 * lock of batch i), one line per ordered batch. */
static void print_orders(int wl, int model, long r)
{
	if (order < 0)
		return;
	for (long i = 0; i < (wl == 2 ? M : 1); i++) {
		draw_order(order_id, i);
		printf("order %s %s %ld %ld", wl_name[wl], model_name[model], r, i);
		for (int k = 0; k < np; k++)
			printf(" %d", perm[k]);
		putchar('\n');
	}
}

/* Set @on[] from a comma-separated list of @names; 0 when a name is unknown. */
/*
 * Bad usage: rank 0 says why in one line (every rank parsed the same
 * arguments and ends here too), and all end with 2 through MPI_Finalize,
 * not MPI_Abort, whose own lines would bury it.
 */
static void __attribute__((format(printf, 1, 2), noreturn)) bad(const char *fmt, ...)
{
	va_list ap;

	if (rank == 0) {
		fputs("tfs-bench: ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	MPI_Finalize();
	exit(2);
}

/* The value of option -@opt, a whole number in [@min, @max]; for a size,
 * with k, m or g after it for KiB, MiB or GiB. */
static long num(int opt, const char *s, long min, long max, int size)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (size && end != s && end[0] && !end[1]) {
		int sh = strchr("kK", *end) ? 10 : strchr("mM", *end) ? 20 :
			 strchr("gG", *end) ? 30 : 0;
		if (sh && v <= max >> sh) {
			v <<= sh;
			end++;
		}
	}
	if (!*s || *end || errno || v < min || v > max)
		bad("option -%c: '%s' is not a %s in [%ld, %ld]%s", opt, s,
		    size ? "size" : "number", min, max, size ? " (k, m, g: KiB, MiB, GiB)" : "");
	return (long)v;
}

/* The names of comma-separated @list among the @n @names, on in @on. */
static void pick(int opt, const char *list, const char *const *names, int n, int *on)
{
	char tmp[256], *save = NULL, *w;
	int named = 0;

	if (strlen(list) >= sizeof(tmp))
		bad("option -%c: '%s' is too long", opt, list);
	snprintf(tmp, sizeof(tmp), "%s", list);
	memset(on, 0, (size_t)n * sizeof(*on));
	for (w = strtok_r(tmp, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char known[256] = "";
		int k;

		for (k = 0; k < n && strcmp(w, names[k]) != 0; k++)
			;
		if (k == n) {
			for (k = 0; k < n; k++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known),
					 "%s%s", k ? ", " : "", names[k]);
			bad("option -%c: unknown %s '%s' (%s)", opt,
			    opt == 'w' ? "workload" : "model", w, known);
		}
		on[k] = 1;
		named++;
	}
	if (!named)
		bad("option -%c: no %s named", opt, opt == 'w' ? "workload" : "model");
}

/* One repeat of workload @wl under @model: its time into *@best when
 * better, its lock counters (rank 0: summed over nodes) into @sum. */
static void repeat(int wl, int model, long r, const char *bb, char *buf, double *best,
		   double sum[3])
{
	double t = run(wl, model, bb, buf);
	unsigned long long *all = NULL;

	run_id++;
	if (t < *best)
		*best = t;
	if (model < LEXACT)
		return;
	if (rank == 0 && !(all = malloc((size_t)np * sizeof(cnt))))
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Gather(cnt, 3, MPI_UNSIGNED_LONG_LONG, all, 3, MPI_UNSIGNED_LONG_LONG, 0,
		   MPI_COMM_WORLD);
	for (int n = 0; rank == 0 && n < np / P; n++) {
		unsigned long long *v = all + 3 * (size_t)n * (size_t)P;

		for (int k = 0; k < 3; k++)
			sum[k] += (double)v[k];
		if (counts_out)
			printf("counts %s %s %ld %d %llu %llu %llu\n", wl_name[wl], model_name[model],
			       r, n, v[0], v[1], v[2]);
	}
	free(all);
	if (counts_out && rank == 0)
		print_orders(wl, model, r);
	if (bcnt)
		print_batches(wl, model, r);
}

/* The result line of workload @wl under @model (rank 0). */
static void print_row(int wl, int model, double bytes, double bw, double raw,
		      const double sum[3])
{
	printf("%-11s %-15s %3ld %3ld %4ld %9ld %10.0f %9.1f ", wl_name[wl], model_name[model],
	       np / P, P, M, S, bytes, bw);
	if (raw > 0)
		printf("%5.1f%%", 100 * bw / raw);
	else
		printf("%6s", "-");
	if (model >= LEXACT) {
		double k = (double)reps * (double)(np / P), v[3];

		printf(" %7.2f %7.2f %7.2f", sum[0] / k, sum[1] / k, sum[2] / k);
		if (table58(wl, model, v))
			printf(" %8.2f %8.2f %8.2f\n", v[0], v[1], v[2]);
		else
			printf(" %8s %8s %8s\n", "-", "-", "-");
	} else {
		printf(anylock ? " %7s %7s %7s %8s %8s %8s\n" : "\n", "-", "-", "-", "-", "-", "-");
	}
}

static const char usage[] = "usage: tfs-bench [-ABbchO] [-M writes] [-m models] [-o seed] "
			    "[-P ranks-per-node] [-r repeats] [-S bytes] [-w workloads]\n";

static void usage_exit(void)
{
	if (rank == 0)
		fputs(usage, stderr);
	MPI_Finalize();
	exit(2);
}

int main(int argc, char **argv)
{
	const char *bb = getenv("TFS_BB_DIR");
	int models[NMODEL] = { 1, 1, 1, 1, 0, 0, 0 }, wls[3] = { 1, 1, 1 };
	char node[32], *buf;
	int c;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	opterr = rank == 0;	/* getopt's word once, not once per rank */
	while ((c = getopt(argc, argv, "ABbchM:m:Oo:P:r:S:w:")) != -1) {
		switch (c) {
		case 'A': attach_each = 1; break;
		case 'B': batches = 0; break;
		case 'b': batches = 1; break;
		case 'O': order = -1; break;
		case 'c': counts_out = 1; break;
		case 'h':
			if (rank == 0)
				fputs(usage, stdout);
			MPI_Finalize();
			return 0;
		case 'M': M = num(c, optarg, 1, INT_MAX, 0); break;
		case 'o': order = num(c, optarg, 0, INT_MAX, 0); break;
		case 'm': pick(c, optarg, model_name, NMODEL, models); break;
		case 'P': P = num(c, optarg, 1, INT_MAX, 0); break;
		case 'r': reps = num(c, optarg, 1, INT_MAX, 0); break;
		case 'S': S = num(c, optarg, 1, 1L << 30, 1); break;
		case 'w': pick(c, optarg, wl_name, 3, wls); break;
		default:
			usage_exit();
		}
	}
	if (optind < argc)
		usage_exit();
	if (M == 0)	/* no -M */
		M = (16L << 20) / S > 8 ? (16L << 20) / S : 8;
	if (np % P)
		bad("option -P: %ld ranks per node do not divide the %d ranks", P, np);
	if (!bb || !*bb)
		bad("TFS_BB_DIR is not set (the raw files go there)");
	for (int m = LEXACT; m < NMODEL; m++)
		anylock |= models[m];
	if (batches || order >= 0) {	/* a bandwidth run (-B -O) waits MPI's way */
		MPI_Comm host;
		int nh;

		MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
		MPI_Comm_size(host, &nh);
		MPI_Comm_free(&host);
		quiet = nh > sysconf(_SC_NPROCESSORS_ONLN);
	}
	snprintf(node, sizeof(node), "%ld", rank / P);
	setenv("TFS_NODE", node, 1);
	if (!(buf = malloc((size_t)S)) || !(perm = malloc((size_t)np * sizeof(*perm))) ||
	    !(pos = malloc((size_t)np * sizeof(*pos))) ||
	    (counts_out && batches && !(bcnt = calloc(3 * (size_t)M, sizeof(*bcnt)))))
		MPI_Abort(MPI_COMM_WORLD, 2);
	memset(buf, 'x', (size_t)S);
	if (tfs_init() < 0) {
		perror("tfs-bench: tfs_init");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (rank == 0) {
		printf("%-11s %-15s %3s %3s %4s %9s %10s %9s %6s", "workload", "model", "N", "P",
		       "M", "S", "bytes", "MiB/s", "%raw");
		printf(anylock ? " %7s %7s %7s %8s %8s %8s\n" : "\n", "alpha", "beta", "gamma",
		       "alpha58", "beta58", "gamma58");
	}
	for (int wl = 0, done = 0; wl < 3; wl++) {
		double raw = 0, best[NMODEL], sum[NMODEL][3];
		double bytes = (double)np * (double)M * (double)S;
		int nm = 0;

		if (!wls[wl])
			continue;
		for (int model = RAW; model < NMODEL; model++) {
			best[model] = 1e30;
			sum[model][0] = sum[model][1] = sum[model][2] = 0;
		}
		/* the models take turns within each repeat, so that a change in
		 * the machine's load falls on all of them alike; a run's arrival
		 * orders are keyed as if each model's repeats came in a row (the
		 * same seed gives the same orders as it always did) */
		for (long r = 0; r < reps; r++) {
			nm = 0;
			for (int model = RAW; model < NMODEL; model++) {
				if (!models[model])
					continue;
				order_id = done + nm++ * (int)reps + (int)r;
				repeat(wl, model, r, bb, buf, &best[model], sum[model]);
			}
		}
		done += nm * (int)reps;
		for (int model = RAW; model < NMODEL; model++) {
			double bw = bytes / best[model] / (1 << 20);

			if (!models[model])
				continue;
			if (model == RAW)
				raw = bw;
			if (rank == 0)
				print_row(wl, model, bytes, bw, raw, sum[model]);
		}
	}
	free(buf);
	tfs_finalize();
	MPI_Finalize();
	return 0;
}
