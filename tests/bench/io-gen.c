/*
 * io-gen - a synthetic trace in the text of tangram-text(5) for the
 * overlap-find | conflict-check benchmark: P ranks (first argument) share
 * one file; each makes about N / P records (N the second argument): an
 * open, then pwrite calls of 4 KiB blocks in the N-1 strided pattern
 * (block i of rank r at (i * P + r) * 4096), an fsync every 64 writes,
 * a pread of a block of the next rank every 100 writes (a RAW-D pair),
 * and a close.  Deterministic; times advance 1 us per record.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long p = argc > 1 ? atol(argv[1]) : 64, n = argc > 2 ? atol(argv[2]) : 1000000;
	long r, i, per;
	uint64_t t;

	if (p < 1 || n < p)
		return 2;
	per = n / p;
	for (r = 0; r < p; r++) {
		uint64_t seq = 0;
		long w = 0;
		t = 1000000;
		printf("#proc\trank=%ld\tworld=%ld\tpid=%ld\tppid=1\thost=\"h\"\tcwd=\"/w\"\t"
		       "clock_base=0\targv=\"io-gen\"\n", r, p, 1000 + r);
#define REC(fn, ret, ...)                                                              \
	do {                                                                           \
		printf("%ld\t0\t%" PRIu64 "\t%" PRIu64 ".%09" PRIu64 "\t%" PRIu64 ".%09"    \
		       PRIu64 "\t0\tposix\t" fn "\t%ld", r, seq, t / 1000000000,           \
		       t % 1000000000, (t + 500) / 1000000000, (t + 500) % 1000000000,    \
		       (long)(ret));                                                       \
		printf(__VA_ARGS__);                                                       \
		putchar('\n');                                                             \
		seq++;                                                                     \
		t += 1000;                                                                 \
	} while (0)
		REC("open", 3, "\tpath=\"/w/shared\"\tflags=O_RDWR|O_CREAT\tmode=0644");
		for (i = 2; i < per; i++) {
			if (i % 100 == 0) {
				long blk = (w / 2) * p + (r + 1) % p;
				REC("pread", 4096, "\tfd=3\tbuf=b2\tcount=4096\toffset=%ld", blk * 4096);
			} else if (i % 65 == 0) {
				REC("fsync", 0, "\tfd=3");
			} else {
				REC("pwrite", 4096, "\tfd=3\tbuf=b1\tcount=4096\toffset=%ld",
				    (w * p + r) * 4096);
				w++;
			}
		}
		REC("close", 0, "\tfd=3");
	}
	return 0;
}
