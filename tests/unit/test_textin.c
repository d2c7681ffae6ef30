/*
 * test_textin.c - reading text lines (libcommon/textin.h): numbers by
 * tg_tint, which takes the common short ones without strtoll and must
 * answer as strtoll would, and fields by tg_tline_split.
 */
#include <stdint.h>
#include <string.h>

#include "../../libcommon/textin.h"
#include "tap.h"
#include "../../libcommon/banned.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *s;
	int ret;
	int64_t v;
} ints[] = {
	{ "0", 0, 0 },
	{ "7", 0, 7 },
	{ "-0", 0, 0 },
	{ "007", 0, 7 },
	{ "-42", 0, -42 },
	{ "+5", 0, 5 },
	{ "123456789012345678", 0, 123456789012345678 },	/* 18 digits */
	{ "-123456789012345678", 0, -123456789012345678 },
	{ "1234567890123456789", 0, 1234567890123456789 },	/* 19: strtoll */
	{ "9223372036854775807", 0, INT64_MAX },
	{ "-9223372036854775808", 0, INT64_MIN },
	{ "9223372036854775808", -1, 0 },			/* overflow */
	{ "-9223372036854775809", -1, 0 },
	{ "99999999999999999999999", -1, 0 },
	{ "", -1, 0 },
	{ "-", -1, 0 },
	{ "+", -1, 0 },
	{ " 1", -1, 0 },
	{ "1 ", -1, 0 },
	{ "12a", -1, 0 },
	{ "0x10", -1, 0 },
	{ "--1", -1, 0 },
	{ "1.5", -1, 0 },
};

static const struct {
	const char *line;
	int nf;
	const char *f[4];	/* the first fields */
} splits[] = {
	{ "a", 1, { "a" } },
	{ "", 1, { "" } },
	{ "a\tb", 2, { "a", "b" } },
	{ "a\t\tc", 3, { "a", "", "c" } },
	{ "a\tb\n", 2, { "a", "b" } },
	{ "pair\t0\t1\t2\n", 4, { "pair", "0", "1", "2" } },
	{ "x\t", 2, { "x", "" } },
};

int main(void)
{
	struct tg_tline t;
	char buf[256];
	size_t i;
	int j;

	for (i = 0; i < N(ints); i++) {
		int64_t v = -12345;
		int r = tg_tint(ints[i].s, &v);
		is_int(r, ints[i].ret, "tg_tint(\"%s\") returns %d", ints[i].s, ints[i].ret);
		if (ints[i].ret == 0)
			is_int(v, ints[i].v, "tg_tint(\"%s\") is %lld", ints[i].s,
			       (long long)ints[i].v);
	}
	ok(tg_tint(NULL, &(int64_t){ 0 }) == -1, "tg_tint(NULL) is an error");
	for (i = 0; i < N(splits); i++) {
		snprintf(buf, sizeof(buf), "%s", splits[i].line);
		is_int(tg_tline_split(buf, &t), splits[i].nf, "split %zu: %d fields", i,
		       splits[i].nf);
		for (j = 0; j < splits[i].nf && j < 4 && splits[i].f[j]; j++)
			ok(strcmp(t.f[j], splits[i].f[j]) == 0, "split %zu: field %d is \"%s\"",
			   i, j, splits[i].f[j]);
	}
	/* more fields than TG_TLINE_MAXF: the rest are dropped */
	for (i = 0; i < TG_TLINE_MAXF + 5; i++) {
		buf[2 * i] = 'x';
		buf[2 * i + 1] = '\t';
	}
	buf[2 * i - 1] = 0;
	is_int(tg_tline_split(buf, &t), TG_TLINE_MAXF, "a long line keeps %d fields",
	       TG_TLINE_MAXF);
	return tap_done();
}
