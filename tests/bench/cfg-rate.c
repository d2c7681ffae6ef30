/*
 * cfg-rate - how fast compressed traces decode: every record of every
 * stream of each file is decoded (grammar expansion, signature decoding,
 * times) but not printed.  Prints "records N seconds S rate R" (R in
 * records per second, best of three passes).
 *
 *   cfg-rate file.cfg ...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../libcommon/cfg.h"
#include "../../libcommon/stream.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double best = 0;
	uint64_t n = 0;
	int pass, i;

	for (pass = 0; pass < 3; pass++) {
		double t0 = now(), t;
		n = 0;
		for (i = 1; i < argc; i++) {
			struct tg_stream *s = tg_stream_open(argv[i], "r");
			struct tg_cfg *c;
			struct tg_rec rec;
			char err[256];
			size_t k;
			if (!s || !(c = tg_cfg_read(s, err, sizeof(err)))) {
				fprintf(stderr, "cfg-rate: %s: cannot read\n", argv[i]);
				return 2;
			}
			tg_stream_close(s);
			for (k = 0; k < tg_cfg_nstreams(c); k++) {
				struct tg_cfg_cursor *cu = tg_cfg_cursor_open(c, k, err, sizeof(err));
				if (!cu)
					return 2;
				while (tg_cfg_cursor_next(cu, &rec) > 0)
					n++;
				tg_cfg_cursor_free(cu);
			}
			tg_cfg_free(c);
		}
		t = now() - t0;
		if (!pass || t < best)
			best = t;
	}
	printf("records %llu seconds %.3f rate %.0f\n", (unsigned long long)n, best, n / best);
	return 0;
}
