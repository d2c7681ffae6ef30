/*
 * fuzz-cfg - libFuzzer harness for the .cfg reader (libcommon/cfgread.c and
 * the decoder behind its cursors): read a whole compressed trace, then
 * decode every stream of it.  Every input is read twice: as it is, and
 * with the CRC-32 of each section put right, so that mutations get past
 * the checksums to the parsers behind them (tangram-cfg(5): 12 bytes of
 * magic and version, then sections of a 24-byte header -- le16 type, le16
 * flags, le64 stored length, le64 raw length, le32 CRC of the stored bytes
 * -- and the stored bytes).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../libcommon/cfg.h"
#include "../../libcommon/rec.h"
#include "../../libcommon/stream.h"

/* What trace-merge does with a trace it reads: merged into another, the
 * final pass (its streams unified, cfgunify.c), decoded.  Only for a few
 * records: the pass walks every one. */
static void merged(const struct tg_cfg *c)
{
	struct tg_cfg *m;
	struct tg_rec rec;
	char err[256];
	uint64_t records = 0;
	size_t i, n = tg_cfg_nstreams(c);

	for (i = 0; i < n; i++)
		records += tg_cfg_stream(c, i)->records;
	if (n < 2 || records > 100000 || !(m = tg_cfg_new()))
		return;
	if (tg_cfg_merge(m, c, err, sizeof(err)) == 0 && tg_cfg_optimize(m) == 0)
		for (i = 0; i < tg_cfg_nstreams(m); i++) {
			struct tg_cfg_cursor *k = tg_cfg_cursor_open(m, i, err, sizeof(err));
			if (!k)
				continue;
			while (tg_cfg_cursor_next(k, &rec) > 0)
				;
			tg_cfg_cursor_free(k);
		}
	tg_cfg_free(m);
}

static void one(const uint8_t *data, size_t size)
{
	struct tg_stream *s = tg_stream_mem_reader(data, size);
	struct tg_cfg *c;
	struct tg_rec rec;
	char err[256];
	size_t i, n, a, b, d, e;

	if (!s)
		return;
	c = tg_cfg_read(s, err, sizeof(err));
	tg_stream_close(s);
	if (!c)
		return;
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
	merged(c);
	tg_cfg_free(c);
}

static void fix_crcs(unsigned char *b, size_t n)
{
	size_t pos = 12;

	while (n - pos >= 24 && pos < n) {
		uint64_t stored = 0;
		uint32_t crc;
		int k;

		for (k = 7; k >= 0; k--)
			stored = stored << 8 | b[pos + 4 + k];
		if (stored > n - pos - 24)
			break;
		crc = (uint32_t)crc32(0L, b + pos + 24, (uInt)stored);
		for (k = 0; k < 4; k++)
			b[pos + 20 + k] = (unsigned char)(crc >> (8 * k));
		pos += 24 + stored;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *fixed;

	one(data, size);
	if (size < 12 || !(fixed = malloc(size)))
		return 0;
	memcpy(fixed, data, size);
	fix_crcs(fixed, size);
	if (memcmp(fixed, data, size) != 0)
		one(fixed, size);
	free(fixed);
	return 0;
}
