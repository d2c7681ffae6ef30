/*
 * fuzz-text - libFuzzer harness for the text-record reader
 * (libcommon/textin.c): lines read through tg_lines from a pipe-less
 * memory file, each split into fields, every field put through the number,
 * time, string and array parsers, arguments looked up by name.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../libcommon/textin.h"

static void one_line(char *line)
{
	struct tg_tline t;
	int64_t v, arr[16];
	char out[64];
	int i;

	tg_tline_split(line, &t);
	for (i = 0; i < t.nf; i++) {
		(void)tg_ttime(t.f[i]);
		(void)tg_tint(t.f[i], &v);
		(void)tg_tunquote(t.f[i], out, sizeof(out));
		(void)tg_tintarr(t.f[i], arr, 16);
	}
	(void)tg_tline_arg(&t, TG_COL_ARGS, "fd");
	(void)tg_tline_arg(&t, 0, "path");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct tg_lines lr;
	size_t len;
	char *line;

	if (fd < 0 && (fd = memfd_create("fuzz-text", 0)) < 0)
		return 0;
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size ||
	    lseek(fd, 0, SEEK_SET) < 0)
		return 0;
	if (tg_lines_open(&lr, fd) < 0)
		return 0;
	while ((line = tg_lines_next(&lr, &len)))
		one_line(line);
	tg_lines_close(&lr);
	return 0;
}
