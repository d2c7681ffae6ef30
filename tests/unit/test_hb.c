/*
 * test_hb.c - the CRC of a .hb (tangram-hb(5), version 2): the golden
 * tests/fixtures/hb/small.hb opens, and with any one of its bits flipped
 * it is refused, never read as a different graph; the version 1 golden
 * (no CRC) still opens.  Run from the top of the tree, as tests/run-tests
 * does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../libcommon/hb.h"
#include "tap.h"
#include "../../libcommon/banned.h"

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = malloc((size_t)n)) && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	*len = b ? (size_t)n : 0;
	fclose(f);
	return b;
}

/* tg_hb_open_buf of a copy of @b (it takes the buffer). */
static int opens(const unsigned char *b, size_t len, char *err, size_t errlen)
{
	unsigned char *c = malloc(len);
	struct tg_hb *h;

	if (!c)
		return -1;
	memcpy(c, b, len);
	h = tg_hb_open_buf(c, len, err, errlen);
	tg_hb_close(h);
	return h != NULL;
}

int main(void)
{
	char err[256];
	unsigned char *b;
	size_t len, bit, accepted = 0, first = 0;

	b = slurp("tests/fixtures/hb/small.hb", &len);
	ok(b != NULL, "small.hb read");
	if (!b)
		return tap_done();
	ok(opens(b, len, err, sizeof(err)) == 1, "small.hb opens");
	for (bit = 0; bit < len * 8; bit++) {
		b[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		if (opens(b, len, err, sizeof(err)) != 0 && accepted++ == 0)
			first = bit;
		b[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
	ok(accepted == 0, "each of the %zu bits flipped: refused (%zu accepted, the first bit %zu)",
	   len * 8, accepted, first);
	free(b);
	b = slurp("tests/fixtures/hb/small-v1.hb", &len);
	ok(b && opens(b, len, err, sizeof(err)) == 1, "small-v1.hb (version 1, no CRC) opens");
	free(b);
	return tap_done();
}
