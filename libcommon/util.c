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
