/*
 * util.c - helpers shared by the tools.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "util.h"

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tg.h"
#include "banned.h"

long long tg_strtonum(const char *s, long long min, long long max, const char *what)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		errx(TG_EXIT_ERROR, "%s: '%s' is not a number in [%lld, %lld]", what,
		     s, min, max);
	return v;
}

void tg_close_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE)
			exit(TG_EXIT_OK);
		err(TG_EXIT_ERROR, "write error on standard output");
	}
	if (fclose(stdout) != 0 && errno != EPIPE)
		err(TG_EXIT_ERROR, "write error on standard output");
}

void tg_no_binary_tty(int fd, int force)
{
	if (!force && isatty(fd))
		errx(TG_EXIT_ERROR,
		     "refusing to write binary data to a terminal (use -f to force)");
}

void *tg_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		errx(TG_EXIT_ERROR, "out of memory");
	return p;
}

char *tg_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(tg_xrealloc(NULL, n), s, n);
}

/* FNV-1a, 64 bits, over the fields with a tab between them. */
static uint64_t fnv(uint64_t h, const char *p, size_t n)
{
	while (n--) {
		h ^= (unsigned char)*p++;
		h *= 0x100000001b3ull;
	}
	h ^= '\t';
	return h * 0x100000001b3ull;
}

uint64_t tg_fnv_str(uint64_t h, const char *s)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

uint64_t tg_run_proc(const char *pid, size_t pn, const char *host, size_t hn,
		     const char *clock_base, size_t cn)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv(h, pid, pn);
	h = fnv(h, host, hn);
	return fnv(h, clock_base, cn);
}

void tg_run_format(uint64_t id, char buf[17])
{
	snprintf(buf, 17, "%016llx", (unsigned long long)id);
}

int tg_run_parse(const char *s, uint64_t *id)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 16; i++) {
		int c = s[i], d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	if (s[16] != 0)
		return -1;
	*id = v;
	return 0;
}
