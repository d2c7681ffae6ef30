/*
 * fuzz-hb - libFuzzer harness for the .hb reader (libcommon/hb.c): open
 * and check a graph, then ask it questions about the first records of
 * every pair of ranks.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../libcommon/hb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *buf = malloc(size ? size : 1);
	const struct tg_hbgraph *g;
	struct tg_hb *h;
	char err[256];
	uint32_t a, b;
	uint64_t n;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	h = tg_hb_open_buf(buf, size, err, sizeof(err));
	if (!h)
		return 0;
	g = tg_hb_graph(h);
	for (n = 0; n < g->nnodes && n < 64; n++) {
		(void)tg_hb_span(h, n);
		(void)tg_hb_func(h, n);
		(void)tg_hb_node_rank(h, n);
	}
	for (a = 0; a < g->nranks && a < 8; a++)
		for (b = 0; b < g->nranks && b < 8; b++) {
			uint64_t i, j;

			for (i = 0; i < 4; i++)
				for (j = 0; j < 4; j++)
					(void)tg_hb_query(h, a, i, b, j);
		}
	(void)tg_hb_query(h, g->nranks, 0, 0, 0);
	tg_hb_close(h);
	return 0;
}
