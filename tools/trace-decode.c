/*
 * trace-decode - print Tangram traces as text records, one call per line.
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
#include <sys/stat.h>

#include "../libcommon/rec.h"
#include "../libcommon/stream.h"
#include "../libcommon/text.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "../libcommon/banned.h"

static const char usage_text[] =
	"usage: trace-decode [-hjt] [-l layers] [file ...]\n";

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

static unsigned parse_layers(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;
	unsigned mask = 0;

	if (!copy)
		err(TG_EXIT_ERROR, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int l = tg_layer_parse(tok);
		if (l < 0)
			errx(TG_EXIT_ERROR, "option -l: unknown layer '%s' (posix, stdio, mpi, mpiio, hdf5)", tok);
		mask |= 1u << l;
	}
	free(copy);
	return mask;
}

/* Smallest clock base of the named files, so all print on one time axis. */
static uint64_t common_zero(int n, char **files)
{
	uint64_t zero = UINT64_MAX;
	char msg[256];
	int i;

	for (i = 0; i < n; i++) {
		struct tg_stream *s;
		struct tg_reader *r;
		struct stat st;
		/* a pipe or fifo can be read only once: it joins when decoded */
		if (strcmp(files[i], "-") == 0 || stat(files[i], &st) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (!(s = tg_stream_open(files[i], "r")))
			continue;
		if ((r = tg_reader_open(s, msg, sizeof(msg)))) {
			if (tg_reader_header(r)->clock_base < zero)
				zero = tg_reader_header(r)->clock_base;
			tg_reader_free(r);
		}
		tg_stream_close(s);
	}
	return zero;
}

/* Decode one input; returns 0, or -1 after reporting an error. */
static int decode(const char *path, struct tg_textopts *o, unsigned layers, int top)
{
	struct tg_stream *s;
	struct tg_reader *r;
	struct tg_rec rec;
	char msg[256];
	int rc;

	s = tg_stream_open(path, "r");
	if (!s) {
		warn("cannot open '%s'", path);
		return -1;
	}
	r = tg_reader_open(s, msg, sizeof(msg));
	if (!r) {
		warnx("%s: %s", tg_stream_name(s), msg);
		tg_stream_close(s);
		return -1;
	}
	if (o->zero == UINT64_MAX || tg_reader_header(r)->clock_base < o->zero)
		o->zero = tg_reader_header(r)->clock_base;
	tg_text_proc(stdout, tg_reader_header(r), o);
	while ((rc = tg_reader_next(r, &rec)) > 0) {
		if (rec.type == TG_REC_CALL && (!(layers & (1u << rec.call->layer)) ||
						(top && rec.depth > 0)))
			continue;
		tg_text_rec(stdout, tg_reader_header(r), &rec, o);
	}
	if (rc < 0) {
		fflush(stdout);
		warnx("%s: %s", tg_stream_name(s), tg_reader_error(r));
	}
	if (tg_reader_skipped(r))
		warnx("%s: %llu records of functions unknown to this version skipped",
		      tg_stream_name(s), (unsigned long long)tg_reader_skipped(r));
	tg_reader_free(r);
	tg_stream_close(s);
	return rc < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "layer", required_argument, NULL, 'l' },
		{ "top", no_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct tg_textopts o = { 0, UINT64_MAX };
	unsigned layers = (1u << TG_LAYER_COUNT) - 1;
	char *dash[] = { "-" };
	int c, i, top = 0, status = TG_EXIT_OK;

	while ((c = getopt_long(argc, argv, "hjl:t", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(TG_EXIT_OK);
			break;
		case 'j':
			o.json = 1;
			break;
		case 'l':
			layers = parse_layers(optarg);
			break;
		case 't':
			top = 1;
			break;
		default:
			usage(TG_EXIT_ERROR);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		argc = 1;
		argv = dash;
	}
	o.zero = common_zero(argc, argv);
	for (i = 0; i < argc; i++)
		if (decode(argv[i], &o, layers, top) < 0)
			status = TG_EXIT_ERROR;
	tg_close_stdout();
	return status;
}
