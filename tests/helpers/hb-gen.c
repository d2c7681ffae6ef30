/*
 * hb-gen - write a synthetic, seeded MPI trace as the text records of
 * trace-decode (a test and benchmark tool for hb-build), or questions for
 * hb-query about such a trace.  The same options give the same bytes.
 *
 *   hb-gen [-h] [-n records] [-q questions] [-r ranks] [-s seed]
 *
 * Every rank runs the same loop, a halo exchange on a ring of -r ranks
 * (default 4) between file accesses:
 *
 *   pwrite; Irecv left, Irecv right, Isend right, Isend left; Waitall;
 *   pread; every 4th step an Allreduce, every 16th a Bcast from a rank
 *   that moves round the ring, every 32nd a Barrier
 *
 * until about -n records in all (default 1000), ranks one after another,
 * each between MPI_Init and MPI_Finalize.  With -q, print that many
 * questions "RANK:SEQ RANK:SEQ" about that trace instead, drawn at random
 * (-s, default 1).  Exit 0, or 2 on bad usage or a write error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../libcommon/tg.h"
#include "../../libcommon/util.h"
#include "../../libcommon/banned.h"

static const char usage_text[] =
	"usage: hb-gen [-h] [-n records] [-q questions] [-r ranks] [-s seed]\n";

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

/* splitmix64 */
static uint64_t rng;

static uint64_t next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ---- output: a large buffer, formatted by hand (this writes gigabytes) */

static char out[1 << 20];
static size_t used;

static void flush(void)
{
	if (used && fwrite(out, 1, used, stdout) != used)
		err(TG_EXIT_ERROR, "write error on standard output");
	used = 0;
}

static void s(const char *x)
{
	size_t n = strlen(x);

	if (used + n > sizeof(out))
		flush();
	memcpy(out + used, x, n);
	used += n;
}

static void u(uint64_t v)
{
	char t[24];
	int i = 24;

	do
		t[--i] = (char)('0' + v % 10);
	while (v /= 10);
	if (used + 24 > sizeof(out))
		flush();
	memcpy(out + used, t + i, 24 - i);
	used += 24 - i;
}

static void d(int64_t v)
{
	if (v < 0) {
		s("-");
		u((uint64_t)-v);
	} else {
		u((uint64_t)v);
	}
}

/* seconds with nine decimals */
static void tsec(uint64_t ns)
{
	char t[10];
	int i;

	u(ns / 1000000000u);
	t[0] = '.';
	ns %= 1000000000u;
	for (i = 9; i >= 1; i--) {
		t[i] = (char)('0' + ns % 10);
		ns /= 10;
	}
	if (used + 10 > sizeof(out))
		flush();
	memcpy(out + used, t, 10);
	used += 10;
}

static int P, me;
static uint64_t seq, clk;

/* the fixed columns of a record of rank me, layer @layer */
static void head(const char *layer, const char *func, const char *ret)
{
	uint64_t t0 = clk;

	clk += 200 + next() % 800;
	d(me);
	s("\t0\t");
	u(seq++);
	s("\t");
	tsec(t0);
	s("\t");
	tsec(clk);
	s("\t0\t");
	s(layer);
	s("\t");
	s(func);
	s("\t");
	s(ret);
	clk += 50 + next() % 200;
}

static void io(const char *f, uint64_t off)
{
	head("posix", f, "4096");
	s("\tfd=3\tbuf=b1\tcount=4096\toffset=");
	u(off);
	s("\n");
}

static void p2p(const char *f, const char *peer, int p, int tag, int req)
{
	head("mpi", f, "0");
	s("\tbuf=b");
	u((uint64_t)req + 1);
	s("\tcount=8\tdatatype=MPI_DOUBLE\t");
	s(peer);
	d(p);
	s("\ttag=");
	d(tag);
	s("\tcomm=MPI_COMM_WORLD\trequest=r");
	u((uint64_t)req);
	s("\n");
}

/* the loop of one rank: @steps steps */
static void rank(uint64_t steps)
{
	int left = (me + P - 1) % P, right = (me + 1) % P;
	uint64_t t;

	seq = 0;
	clk = 1000000 + next() % 100000;
	s("#proc\trank=");
	d(me);
	s("\tworld=");
	d(P);
	s("\tpid=");
	u(10000 + (uint64_t)me);
	s("\tppid=1\thost=\"gen\"\tcwd=\"/gen\"\tclock_base=1700000000000000000\targv=\"./halo\"\n");
	head("mpi", "MPI_Init", "0");
	s("\n");
	for (t = 0; t < steps; t++) {
		io("pwrite", (t * (uint64_t)P + (uint64_t)me) * 4096);
		p2p("MPI_Irecv", "source=", left, 1, 1);
		p2p("MPI_Irecv", "source=", right, 2, 2);
		p2p("MPI_Isend", "dest=", right, 1, 3);
		p2p("MPI_Isend", "dest=", left, 2, 4);
		head("mpi", "MPI_Waitall", "0");
		s("\tcount=4\tarray_of_requests=[r1,r2,r3,r4]\tarray_of_statuses=[{src:");
		d(left);
		s(",tag:1},{src:");
		d(right);
		s(",tag:2},{src:-9,tag:-9},{src:-9,tag:-9}]\n");
		io("pread", ((t * (uint64_t)P + (uint64_t)right) * 4096));
		if (t % 4 == 3) {
			head("mpi", "MPI_Allreduce", "0");
			s("\tsendbuf=b5\trecvbuf=b6\tcount=1\tdatatype=MPI_DOUBLE\top=MPI_SUM\t"
			  "comm=MPI_COMM_WORLD\n");
		}
		if (t % 16 == 15) {
			head("mpi", "MPI_Bcast", "0");
			s("\tbuffer=b7\tcount=16\tdatatype=MPI_INT\troot=");
			d((int)((t / 16) % (uint64_t)P));
			s("\tcomm=MPI_COMM_WORLD\n");
		}
		if (t % 32 == 31) {
			head("mpi", "MPI_Barrier", "0");
			s("\tcomm=MPI_COMM_WORLD\n");
		}
	}
	head("mpi", "MPI_Finalize", "0");
	s("\n");
}

/* records one step writes, on average: 7 + 1/4 + 1/16 + 1/32 */
#define PER_STEP 7.34375

int main(int argc, char **argv)
{
	static const char opts[] = "hn:q:r:s:";
	uint64_t n = 1000, q = 0, steps, per, i;
	int c;

	P = 4;
	rng = 1;
	while ((c = getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case 'h':
			usage(TG_EXIT_OK);
			break;
		case 'n':
			n = (uint64_t)tg_strtonum(optarg, 1, (long long)1 << 40, "option -n");
			break;
		case 'q':
			q = (uint64_t)tg_strtonum(optarg, 1, (long long)1 << 40, "option -q");
			break;
		case 'r':
			P = (int)tg_strtonum(optarg, 2, 1 << 20, "option -r");
			break;
		case 's':
			rng = (uint64_t)tg_strtonum(optarg, 0, INT64_MAX, "option -s");
			break;
		default:
			usage(TG_EXIT_ERROR);
		}
	}
	if (optind != argc)
		usage(TG_EXIT_ERROR);
	per = n / (uint64_t)P;
	steps = per > 2 ? (uint64_t)((double)(per - 2) / PER_STEP) : 0;
	if (q) {
		/* records per rank: Init, the steps, Finalize */
		uint64_t recs = 2 + steps * 7 + steps / 4 + steps / 16 + steps / 32;
		for (i = 0; i < q; i++) {
			uint64_t a = next() % (uint64_t)P, b = next() % (uint64_t)P;
			u(a);
			s(":");
			u(next() % recs);
			s(" ");
			u(b);
			s(":");
			u(next() % recs);
			s("\n");
		}
	} else {
		for (me = 0; me < P; me++)
			rank(steps);
	}
	flush();
	if (fflush(stdout) != 0 || ferror(stdout))
		err(TG_EXIT_ERROR, "write error on standard output");
	return TG_EXIT_OK;
}
