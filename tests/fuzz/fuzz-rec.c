/*
 * fuzz-rec - libFuzzer harness for the .rec reader (libcommon/rec.c): the
 * header, then every record to the end or the first damage.  Every input
 * is read twice: as it is, and with the header's CRC and each chunk's
 * CHECK record put right (tangram-rec(5), version 2), so that mutations
 * get past the checksums to the record decoder behind them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../libcommon/rec.h"
#include "../../libcommon/stream.h"

static void one(const uint8_t *data, size_t size)
{
	struct tg_stream *s = tg_stream_mem_reader(data, size);
	struct tg_reader *r;
	struct tg_rec rec;
	char err[256];
	int rc;

	if (!s)
		return;
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
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int k = 0; k < 4; k++)
		p[k] = (unsigned char)(v >> (8 * k));
}

static void fix_crcs(unsigned char *b, size_t n)
{
	size_t pos, chunk;
	uint32_t len;

	if (n < 28 || !tg_rec_is_magic(b, n) || (b[8] | b[9] << 8) < 2)
		return;
	len = le32(b + 12);
	if (len > n - 16 || 16 + (size_t)len < TG_REC_HCRC_OFFSET + 4)
		return;
	put32(b + TG_REC_HCRC_OFFSET, tg_header_crc(b, 16 + (size_t)len));
	for (pos = chunk = 16 + (size_t)len; n - pos >= 5;) {
		len = le32(b + pos);
		if (len == 0 || len > n - pos - 5)
			break;
		if (b[pos + 4] == TG_REC_CHECK && len >= 5) {
			put32(b + pos + 5, tg_crc32c(0, b + chunk, pos - chunk));
			chunk = pos + 5 + len;
		}
		pos += 5 + (size_t)len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *fixed;

	one(data, size);
	if (size < 28 || !(fixed = malloc(size)))
		return 0;
	memcpy(fixed, data, size);
	fix_crcs(fixed, size);
	if (memcmp(fixed, data, size) != 0)
		one(fixed, size);
	free(fixed);
	return 0;
}
