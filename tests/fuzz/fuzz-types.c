/*
 * fuzz-types - libFuzzer harness for overlap-find's datatype input
 * (tools/flatten.c): the #type lines of a decoded trace -- any combiner,
 * negative and absolute displacements, ids freed and redefined, zero
 * counts -- defined in turn, then each type t0..t15 flattened and a file
 * view of it mapped to extents.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/flatten.h"

static void use(struct tg_types *ts)
{
	static const char *names[] = { "MPI_INT", "MPI_BYTE", "MPI_DOUBLE" };
	struct tg_extent ex[64];
	char name[16];
	int i;

	for (i = 0; i < 19; i++) {
		struct tg_flat *f;
		uint64_t from = 0;
		int round;

		if (i < 16)
			snprintf(name, sizeof(name), "t%d", i);
		else
			snprintf(name, sizeof(name), "%s", names[i - 16]);
		f = tg_types_get(ts, name);
		if (!f) {
			(void)tg_types_why(ts, name);
			continue;
		}
		(void)tg_flat_size(f);
		for (round = 0; round < 4; round++) {
			size_t n = tg_flat_map(f, (uint64_t)i * 7, from, 1000, ex, 64);

			if (!n)
				break;
			while (n--)
				from += ex[n].len;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tg_types *ts = tg_types_new();
	char *text = malloc(size + 1), *line, *nl;

	if (!ts || !text) {
		free(text);
		tg_types_free(ts);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = 0;
	for (line = text; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		(void)tg_types_define(ts, line);
	}
	use(ts);
	free(text);
	tg_types_free(ts);
	return 0;
}
