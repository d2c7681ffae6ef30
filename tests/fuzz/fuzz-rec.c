/*
 * fuzz-rec - libFuzzer harness for the .rec reader (libcommon/rec.c): the
 * header, then every record to the end or the first damage.
 */
#include <stddef.h>
#include <stdint.h>

#include "../../libcommon/rec.h"
#include "../../libcommon/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tg_stream *s = tg_stream_mem_reader(data, size);
	struct tg_reader *r;
	struct tg_rec rec;
	char err[256];
	int rc;

	if (!s)
		return 0;
	r = tg_reader_open(s, err, sizeof(err));
	if (r) {
		while ((rc = tg_reader_next(r, &rec)) > 0)
			;
		if (rc < 0)
			(void)tg_reader_error(r);
		(void)tg_reader_skipped(r);
		tg_reader_free(r);
	}
	tg_stream_close(s);
	return 0;
}
