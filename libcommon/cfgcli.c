/*
 * cfgcli.c - what trace-compress and trace-merge share on their command
 * lines: the -t and -e options, and writing a .cfg out.
 */
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "cfgcli.h"
#include "stream.h"
#include "tg.h"
#include "banned.h"

int tg_cfgcli_timing(const char *s)
{
	static const char *const names[] = { "aggregate", "lossless", "binned", "hist", "cfg" };
	int i;

	for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	errx(TG_EXIT_ERROR, "option -t: unknown timing '%s' (aggregate, lossless, binned, hist, cfg)", s);
}

uint32_t tg_cfgcli_error(const char *s)
{
	char *end;
	double e;

	errno = 0;
	e = strtod(s, &end);
	if (!*s || *end || errno || !(e >= 1e-6 && e <= 10))
		errx(TG_EXIT_ERROR, "option -e: '%s' is not a relative error in [0.000001, 10]", s);
	return (uint32_t)(e * 1e6 + 0.5);
}

int tg_cfgcli_write(struct tg_cfg *c, const char *out, const char *writer, int status)
{
	struct tg_stream *os = tg_stream_open(out ? out : "-", "w");
	int rc, e;

	if (!os) {
		warn("cannot open '%s'", out);
		return TG_EXIT_ERROR;
	}
	rc = tg_cfg_write(c, os, writer);
	e = errno;
	if (tg_stream_close(os) < 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	if (rc == 0 || (e == EPIPE && !out))
		return status;
	errno = e;
	warn("write error on %s%s%s", out ? "'" : "", out ? out : "standard output",
	     out ? "'" : "");
	return TG_EXIT_ERROR;
}
