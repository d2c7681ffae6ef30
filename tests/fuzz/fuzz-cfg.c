/*
 * fuzz-cfg - libFuzzer harness for the .cfg reader (libcommon/cfgread.c and
 * the decoder behind its cursors): read a whole compressed trace, then
 * decode every stream of it.
 */
#include <stddef.h>
#include <stdint.h>

#include "../../libcommon/cfg.h"
#include "../../libcommon/rec.h"
#include "../../libcommon/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tg_stream *s = tg_stream_mem_reader(data, size);
	struct tg_cfg *c;
	struct tg_rec rec;
	char err[256];
	size_t i, n, a, b, d, e;

	if (!s)
		return 0;
	c = tg_cfg_read(s, err, sizeof(err));
	tg_stream_close(s);
	if (!c)
		return 0;
	tg_cfg_sizes(c, &a, &b, &d, &e);
	n = tg_cfg_nstreams(c);
	for (i = 0; i < n; i++) {
		struct tg_cfg_cursor *k = tg_cfg_cursor_open(c, i, err, sizeof(err));
		long m = 0;

		if (!k)
			continue;
		/* a grammar can expand to far more records than its size:
		 * enough of them to reach every rule kind */
		while (m++ < 100000 && tg_cfg_cursor_next(k, &rec) > 0)
			;
		tg_cfg_cursor_free(k);
	}
	tg_cfg_free(c);
	return 0;
}
