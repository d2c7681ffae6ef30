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

#include "../libcommon/cfg.h"
#include "../libcommon/rec.h"
#include "../libcommon/stream.h"
#include "../libcommon/text.h"
#include "../libcommon/tg.h"
#include "../libcommon/util.h"
#include "../libcommon/banned.h"

static const char usage_text[] =
	"usage: trace-decode [-hjt] [-l layers] [-r ranks] [file ...]\n";

/* -r, --rank, --ranks: the ranks to decode, as ranges; none: all */
static struct { int64_t lo, hi; } sel[256];
static int nsel;

static void parse_ranks(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL, *dash;

	if (!copy)
		err(TG_EXIT_ERROR, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (nsel == (int)(sizeof(sel) / sizeof(sel[0])))
			errx(TG_EXIT_ERROR, "option -r: too many ranges");
		dash = strchr(tok, '-');
		if (dash)
			*dash = 0;
		sel[nsel].lo = tg_strtonum(tok, 0, INT32_MAX, "option -r");
		sel[nsel].hi = dash ? tg_strtonum(dash + 1, sel[nsel].lo, INT32_MAX, "option -r")
				    : sel[nsel].lo;
		nsel++;
	}
	free(copy);
}

static int selected(int64_t rank)
{
	int i;

	for (i = 0; i < nsel; i++)
		if (rank >= sel[i].lo && rank <= sel[i].hi)
			return 1;
	return nsel == 0;
}

/* The rank of a record stream with no rank in its header: that of its
 * first RANK record, read ahead from the file at @path (-1 if none). */
static int64_t rank_ahead(const char *path)
{
	struct tg_stream *s = tg_stream_open(path, "r");
	struct tg_reader *r;
	struct tg_rec rec;
	int64_t rank = -1;
	char msg[256];

	if (s && (r = tg_reader_open(s, msg, sizeof(msg)))) {
		while (tg_reader_next(r, &rec) > 0)
			if (rec.type == TG_REC_RANK) {
				rank = rec.rank;
				break;
			}
		tg_reader_free(r);
	}
	tg_stream_close(s);
	return rank;
}

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

/* The rank of the record stream at @path whose header says @rank: a
 * regular file with no rank in its header is read ahead. */
static int64_t stream_rank(const char *path, int64_t rank)
{
	struct stat st;

	if (rank >= 0 || strcmp(path, "-") == 0 || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return rank;
	return rank_ahead(path);
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
		if (tg_stream_peek(s, msg, TG_CFG_MAGIC_LEN) == TG_CFG_MAGIC_LEN &&
		    tg_cfg_is_magic(msg, TG_CFG_MAGIC_LEN)) {
			/* a lone compressed trace finds its zero itself, without
			 * being read twice */
			if (n == 1) {
				tg_stream_close(s);
				continue;
			}
			struct tg_cfg *c = tg_cfg_read(s, msg, sizeof(msg));
			size_t k;
			for (k = 0; c && k < tg_cfg_nstreams(c); k++)
				if (selected(tg_cfg_stream(c, k)->rank) &&
				    tg_cfg_stream(c, k)->h.clock_base < zero)
					zero = tg_cfg_stream(c, k)->h.clock_base;
			tg_cfg_free(c);
		} else if ((r = tg_reader_open(s, msg, sizeof(msg)))) {
			if ((!nsel || selected(stream_rank(files[i], tg_reader_header(r)->rank))) &&
			    tg_reader_header(r)->clock_base < zero)
				zero = tg_reader_header(r)->clock_base;
			tg_reader_free(r);
		}
		tg_stream_close(s);
	}
	return zero;
}

/* Decode the selected streams of a compressed trace, as decode() does a
 * record stream, up to the first damaged one; returns 0, or -1 after
 * reporting an error. */
static int decode_cfg(struct tg_stream *s, struct tg_textopts *o, unsigned layers, int top)
{
	struct tg_cfg *c;
	struct tg_rec rec;
	char msg[256];
	size_t i;
	int rc = 0;

	if (!(c = tg_cfg_read(s, msg, sizeof(msg)))) {
		warnx("%s: %s", tg_stream_name(s), msg);
		return -1;
	}
	for (i = 0; i < tg_cfg_nstreams(c); i++)	/* all streams on one time axis */
		if (selected(tg_cfg_stream(c, i)->rank) && tg_cfg_stream(c, i)->h.clock_base < o->zero)
			o->zero = tg_cfg_stream(c, i)->h.clock_base;
	for (i = 0; i < tg_cfg_nstreams(c); i++) {
		const struct tg_cfg_stream *cs = tg_cfg_stream(c, i);
		struct tg_cfg_cursor *k;
		int n;
		if (!selected(cs->rank))
			continue;
		if (!(k = tg_cfg_cursor_open(c, i, msg, sizeof(msg)))) {
			warnx("%s: %s", tg_stream_name(s), msg);
			rc = -1;
			break;
		}
		if (o->zero == UINT64_MAX || cs->h.clock_base < o->zero)
			o->zero = cs->h.clock_base;
		tg_text_proc(stdout, tg_cfg_cursor_header(k), o);
		while ((n = tg_cfg_cursor_next(k, &rec)) > 0) {
			if (rec.type == TG_REC_CALL && (!(layers & (1u << rec.call->layer)) ||
							(top && rec.depth > 0)))
				continue;
			tg_text_rec(stdout, tg_cfg_cursor_header(k), &rec, o);
		}
		if (n < 0) {
			fflush(stdout);
			warnx("%s: %s", tg_stream_name(s), tg_cfg_cursor_error(k));
			rc = -1;
		}
		tg_cfg_cursor_free(k);
		if (rc < 0)	/* the file is damaged: one error for it */
			break;
	}
	tg_cfg_free(c);
	return rc;
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
	if (tg_stream_peek(s, msg, TG_CFG_MAGIC_LEN) == TG_CFG_MAGIC_LEN &&
	    tg_cfg_is_magic(msg, TG_CFG_MAGIC_LEN)) {
		rc = decode_cfg(s, o, layers, top);
		tg_stream_close(s);
		return rc;
	}
	r = tg_reader_open(s, msg, sizeof(msg));
	if (!r) {
		warnx("%s: %s", tg_stream_name(s), msg);
		tg_stream_close(s);
		return -1;
	}
	if (nsel && !selected(stream_rank(path, tg_reader_header(r)->rank))) {
		tg_reader_free(r);
		tg_stream_close(s);
		return 0;
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
		{ "rank", required_argument, NULL, 'r' },
		{ "ranks", required_argument, NULL, 'r' },
		{ "top", no_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct tg_textopts o = { 0, UINT64_MAX };
	unsigned layers = (1u << TG_LAYER_COUNT) - 1;
	char *dash[] = { "-" };
	int c, i, top = 0, status = TG_EXIT_OK;

	while ((c = getopt_long(argc, argv, "hjl:r:t", longopts, NULL)) != -1) {
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
		case 'r':
			parse_ranks(optarg);
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
