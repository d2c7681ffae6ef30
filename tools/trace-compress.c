/*
 * trace-compress - compress one record stream (tangram-rec(5)) into a
 * compressed trace (tangram-cfg(5)).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../libcommon/cfg.h"
#include "../libcommon/cfgcli.h"
#include "../libcommon/rec.h"
#include "../libcommon/stream.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "../libcommon/banned.h"

static const char usage_text[] =
	"usage: trace-compress [-fh] [-e error] [-k bits] [-m samples] [-o file] [-t timing]\n"
	"                      [file]\n";

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

int main(int argc, char **argv)
{
	struct tg_cfg_opts o = { TG_CFG_AGGREGATE, 100000, 4, 100, 1 };
	const char *in = "-", *out = NULL;
	struct tg_stream *is;
	struct tg_reader *r;
	struct tg_cfg *c;
	uint64_t *f;
	size_t nf;
	char msg[256];
	int ch, force = 0, rc, status = TG_EXIT_OK;

	while ((ch = getopt(argc, argv, "e:fhk:m:o:t:")) != -1) {
		switch (ch) {
		case 'e':
			o.err_ppm = tg_cfgcli_error(optarg);
			break;
		case 'f':
			force = 1;
			break;
		case 'h':
			usage(TG_EXIT_OK);
			break;
		case 'k':
			o.bits = (uint32_t)tg_strtonum(optarg, 1, 12, "option -k");
			break;
		case 'm':
			o.samples = (uint32_t)tg_strtonum(optarg, 1, 1 << 20, "option -m");
			break;
		case 'o':
			out = optarg;
			break;
		case 't':
			o.timing = tg_cfgcli_timing(optarg);
			break;
		default:
			usage(TG_EXIT_ERROR);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		usage(TG_EXIT_ERROR);
	if (argc == 1)
		in = argv[0];
	if (!out)
		tg_no_binary_tty(1, force);

	if (!(is = tg_stream_open(in, "r")))
		err(TG_EXIT_ERROR, "cannot open '%s'", in);
	if (!(r = tg_reader_open(is, msg, sizeof(msg)))) {
		warnx("%s: %s", tg_stream_name(is), msg);
		tg_stream_close(is);
		return TG_EXIT_ERROR;
	}
	if (!(c = tg_cfg_new()))
		errx(TG_EXIT_ERROR, "out of memory");
	tg_cfg_foreign_scan(in, &f, &nf);
	rc = tg_cfg_add_rec_foreign(c, r, &o, f, nf, msg, sizeof(msg));
	free(f);
	if (rc < 0) {
		warnx("%s: %s", tg_stream_name(is), msg);
		tg_cfg_free(c);
		tg_reader_free(r);
		tg_stream_close(is);
		return TG_EXIT_ERROR;
	}
	if (rc > 0) {
		/* the records before the damage are kept, as trace-decode
		 * prints them */
		warnx("%s: %s", tg_stream_name(is), tg_reader_error(r));
		status = TG_EXIT_ERROR;
	}
	if (status == TG_EXIT_OK && tg_reader_skipped(r))	/* one line per error */
		warnx("%s: %llu records of functions unknown to this version skipped",
		      tg_stream_name(is), (unsigned long long)tg_reader_skipped(r));
	tg_reader_free(r);
	tg_stream_close(is);
	if (tg_cfg_optimize(c) < 0) {
		warnx("out of memory");
		tg_cfg_free(c);
		return TG_EXIT_ERROR;
	}
	status = tg_cfgcli_write(c, out, "trace-compress " TG_VERSION, status);
	tg_cfg_free(c);
	return status;
}
