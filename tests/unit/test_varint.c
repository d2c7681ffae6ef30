/*
 * test_varint.c - LEB128 varints, zig-zag and le32 (libcommon/varint.h).
 */
#include <stdint.h>
#include <string.h>

#include "../../libcommon/varint.h"
#include "tap.h"
#include "../../libcommon/banned.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const uint64_t uvals[] = {
	0, 1, 127, 128, 255, 300, 16383, 16384, UINT32_MAX,
	(uint64_t)INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX - 1, UINT64_MAX,
};

static const int64_t svals[] = {
	0, 1, -1, 63, -64, 64, -65, 127, 128, INT32_MIN, INT32_MAX,
	INT64_MAX, INT64_MIN, INT64_MIN + 1,
};

/* Exact encodings: the bytes are the format, fixed forever. */
static const struct {
	int sign;
	uint64_t u;
	int64_t s;
	size_t len;
	unsigned char bytes[TG_VARINT_MAX];
} enc[] = {
	{ 0, 0, 0, 1, { 0x00 } },
	{ 0, 1, 0, 1, { 0x01 } },
	{ 0, 127, 0, 1, { 0x7f } },
	{ 0, 128, 0, 2, { 0x80, 0x01 } },
	{ 0, 300, 0, 2, { 0xac, 0x02 } },
	{ 0, 16384, 0, 3, { 0x80, 0x80, 0x01 } },
	{ 0, (uint64_t)INT64_MAX, 0, 9,
	  { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f } },
	{ 0, UINT64_MAX, 0, 10,
	  { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 } },
	{ 1, 0, 0, 1, { 0x00 } },
	{ 1, 0, -1, 1, { 0x01 } },
	{ 1, 0, 1, 1, { 0x02 } },
	{ 1, 0, -64, 1, { 0x7f } },
	{ 1, 0, 64, 2, { 0x80, 0x01 } },
	{ 1, 0, INT64_MAX, 10,
	  { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 } },
	{ 1, 0, INT64_MIN, 10,
	  { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 } },
};

static const struct {
	int64_t s;
	uint64_t z;
} zz[] = {
	{ 0, 0 }, { -1, 1 }, { 1, 2 }, { -2, 3 }, { 2, 4 },
	{ INT64_MAX, UINT64_MAX - 1 }, { INT64_MIN, UINT64_MAX },
};

/* Inputs every decoder must reject without moving the cursor. */
static const struct {
	const char *what;
	size_t len;
	unsigned char bytes[12];
} bad[] = {
	{ "empty input", 0, { 0 } },
	{ "one continuation byte", 1, { 0x80 } },
	{ "nine continuation bytes", 9,
	  { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
	{ "11-byte varint", 11,
	  { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 } },
	{ "11-byte varint of ones", 11,
	  { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x01 } },
	{ "10th byte with bits past 64", 10,
	  { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 } },
	{ "10th byte 0x7f", 10,
	  { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f } },
};

static void test_uvar_roundtrip(void)
{
	size_t i;

	for (i = 0; i < N(uvals); i++) {
		unsigned char buf[TG_VARINT_MAX + 2];
		const unsigned char *p = buf;
		unsigned char *e;
		uint64_t got = ~uvals[i];
		int rc;

		memset(buf, 0xaa, sizeof(buf));
		e = tg_put_uvar(buf, uvals[i]);
		rc = tg_get_uvar(&p, e, &got);
		ok(e > buf && e - buf <= TG_VARINT_MAX && buf[TG_VARINT_MAX] == 0xaa &&
			   rc == 0 && p == e && got == uvals[i],
		   "uvar %" PRIu64 " round-trips in %d bytes", uvals[i], (int)(e - buf));
	}
}

static void test_svar_roundtrip(void)
{
	size_t i;

	for (i = 0; i < N(svals); i++) {
		unsigned char buf[TG_VARINT_MAX + 2];
		const unsigned char *p = buf;
		unsigned char *e;
		int64_t got = ~svals[i];
		int rc;

		memset(buf, 0xaa, sizeof(buf));
		e = tg_put_svar(buf, svals[i]);
		rc = tg_get_svar(&p, e, &got);
		ok(e > buf && e - buf <= TG_VARINT_MAX && buf[TG_VARINT_MAX] == 0xaa &&
			   rc == 0 && p == e && got == svals[i],
		   "svar %" PRId64 " round-trips in %d bytes", svals[i], (int)(e - buf));
	}
}

static void test_encodings(void)
{
	size_t i;

	for (i = 0; i < N(enc); i++) {
		unsigned char buf[TG_VARINT_MAX + 2];
		unsigned char *e = enc[i].sign ? tg_put_svar(buf, enc[i].s)
					       : tg_put_uvar(buf, enc[i].u);
		if (enc[i].sign)
			ok((size_t)(e - buf) == enc[i].len &&
				   memcmp(buf, enc[i].bytes, enc[i].len) == 0,
			   "svar %" PRId64 " is encoded as its %zu fixed bytes", enc[i].s,
			   enc[i].len);
		else
			ok((size_t)(e - buf) == enc[i].len &&
				   memcmp(buf, enc[i].bytes, enc[i].len) == 0,
			   "uvar %" PRIu64 " is encoded as its %zu fixed bytes", enc[i].u,
			   enc[i].len);
	}
}

static void test_zigzag(void)
{
	size_t i;

	for (i = 0; i < N(zz); i++)
		ok(tg_zigzag(zz[i].s) == zz[i].z && tg_unzigzag(zz[i].z) == zz[i].s,
		   "zig-zag %" PRId64 " <-> %" PRIu64, zz[i].s, zz[i].z);
}

/* Every strict prefix of a multi-byte encoding is a truncated varint. */
static void test_truncated(void)
{
	size_t i, cut, bad_cuts = 0, cuts = 0;

	for (i = 0; i < N(uvals); i++) {
		unsigned char buf[TG_VARINT_MAX];
		size_t len = (size_t)(tg_put_uvar(buf, uvals[i]) - buf);
		for (cut = 0; cut < len; cut++) {
			const unsigned char *p = buf;
			uint64_t u = 42;
			int64_t s = 42;
			cuts++;
			if (tg_get_uvar(&p, buf + cut, &u) != -1 || p != buf || u != 42)
				bad_cuts++;
			if (tg_get_svar(&p, buf + cut, &s) != -1 || p != buf || s != 42)
				bad_cuts++;
		}
	}
	if (!ok(bad_cuts == 0, "all %zu truncated varints are rejected, cursor kept", cuts))
		tap_diag("%zu accepted", bad_cuts);
}

static void test_bad(void)
{
	size_t i;

	for (i = 0; i < N(bad); i++) {
		const unsigned char *p = bad[i].bytes;
		uint64_t u = 42;
		int64_t s = 42;
		int ru = tg_get_uvar(&p, bad[i].bytes + bad[i].len, &u);
		int pu = p == bad[i].bytes;
		int rs;

		p = bad[i].bytes;
		rs = tg_get_svar(&p, bad[i].bytes + bad[i].len, &s);
		ok(ru == -1 && rs == -1 && pu && p == bad[i].bytes && u == 42 && s == 42,
		   "rejected: %s", bad[i].what);
	}
}

/* A decoder stops at the end of its varint and reads back to back. */
static void test_sequence(void)
{
	unsigned char buf[N(uvals) * TG_VARINT_MAX], *e = buf;
	const unsigned char *p = buf;
	size_t i, good = 0;

	for (i = 0; i < N(uvals); i++)
		e = tg_put_uvar(e, uvals[i]);
	for (i = 0; i < N(uvals); i++) {
		uint64_t u;
		if (tg_get_uvar(&p, e, &u) == 0 && u == uvals[i])
			good++;
	}
	ok(good == N(uvals) && p == e, "back-to-back varints decode in order");
}

static void test_le32(void)
{
	static const unsigned char want[4] = { 0x78, 0x56, 0x34, 0x12 };
	unsigned char b[4];

	tg_put_le32(b, 0x12345678u);
	ok(memcmp(b, want, 4) == 0 && tg_get_le32(b) == 0x12345678u,
	   "le32 is little-endian and round-trips");
	tg_put_le32(b, UINT32_MAX);
	ok(tg_get_le32(b) == UINT32_MAX, "le32 0xffffffff round-trips");
}

int main(void)
{
	test_uvar_roundtrip();
	test_svar_roundtrip();
	test_encodings();
	test_zigzag();
	test_truncated();
	test_bad();
	test_sequence();
	test_le32();
	return tap_done();
}
