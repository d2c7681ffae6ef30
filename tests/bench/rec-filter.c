/*
 * rec-filter - keep the calls a program made itself: copy a record stream
 * (tangram-rec(5)) with its header, its RANK records, and the CALL records
 * of thread 0 at depth 0 from MPI_Init to MPI_Finalize, leaving out what
 * the MPI library and its helper threads did.  Used by the benchmarks to
 * measure the compressed size of an application's own calls.
 *
 *   rec-filter [-n] in.rec out.rec
 *
 * -n keeps the calls nested in those too (ROMIO's pwrite inside an
 * MPI_File_write_at), but for those inside MPI_Init and MPI_Finalize:
 * the scope of a tracer that starts when MPI_Init returns and intercepts
 * every call after it, as Recorder does.  A call's record follows those
 * of the calls nested in it, so a first pass notes which thread-0 calls
 * at depth 0 keep theirs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../libcommon/rec.h"
#include "../../libcommon/stream.h"

struct pass {
	struct tg_stream *in;
	struct tg_reader *r;
};

static int open_in(struct pass *p, const char *path)
{
	char err[256];

	return (p->in = tg_stream_open(path, "r")) && (p->r = tg_reader_open(p->in, err, sizeof(err)))
		       ? 0 : -1;
}

static void close_in(struct pass *p)
{
	tg_reader_free(p->r);
	tg_stream_close(p->in);
}

/* First pass: for each thread-0 call at depth 0, in order, whether the
 * calls nested in it are kept.  Returns the array (its length in *@n). */
static unsigned char *nested_kept(const char *path, size_t *n)
{
	struct pass p;
	struct tg_rec rec;
	unsigned char *keep = NULL;
	size_t cap = 0;
	int on = 0, rc;

	*n = 0;
	if (open_in(&p, path) < 0)
		return NULL;
	while ((rc = tg_reader_next(p.r, &rec)) > 0) {
		int init, fin;

		if (rec.type != TG_REC_CALL || rec.tid != 0 || rec.depth != 0)
			continue;
		init = strcmp(rec.call->name, "MPI_Init") == 0 ||
		       strcmp(rec.call->name, "MPI_Init_thread") == 0;
		fin = strcmp(rec.call->name, "MPI_Finalize") == 0;
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			if (!(keep = realloc(keep, cap)))
				exit(2);
		}
		keep[(*n)++] = on && !init && !fin;
		if (init)
			on = 1;
		if (fin)
			on = 0;
	}
	close_in(&p);
	return rc < 0 ? NULL : keep;
}

int main(int argc, char **argv)
{
	struct tg_stream *out;
	struct pass p;
	struct tg_writer *w;
	struct tg_rec rec;
	struct tg_header h;
	unsigned char *keep = NULL;
	size_t nkeep = 0, top = 0;
	int on = 0, rc, nested = argc == 4 && strcmp(argv[1], "-n") == 0;

	if (argc != 3 + nested || (nested && !(keep = nested_kept(argv[2], &nkeep))) ||
	    open_in(&p, argv[1 + nested]) < 0 || !(out = tg_stream_open(argv[2 + nested], "w"))) {
		fprintf(stderr, "usage: rec-filter [-n] in.rec out.rec\n");
		return 2;
	}
	h = *tg_reader_header(p.r);
	h.flags = 0;
	if (!(w = tg_writer_open(out, &h)))
		return 2;
	while ((rc = tg_reader_next(p.r, &rec)) > 0) {
		if (rec.type == TG_REC_RANK) {
			tg_writer_put(w, &rec);
			continue;
		}
		if (rec.type != TG_REC_CALL || rec.tid != 0)
			continue;
		if (rec.depth != 0) {	/* nested in the next depth-0 call */
			if (nested && top < nkeep && keep[top])
				tg_writer_put(w, &rec);
			continue;
		}
		top++;
		if (strcmp(rec.call->name, "MPI_Init") == 0 ||
		    strcmp(rec.call->name, "MPI_Init_thread") == 0)
			on = 1;
		if (on)
			tg_writer_put(w, &rec);
		if (strcmp(rec.call->name, "MPI_Finalize") == 0)
			on = 0;
	}
	if (tg_writer_close(w) < 0 || tg_stream_close(out) < 0 || rc < 0)
		return 2;
	close_in(&p);
	free(keep);
	return 0;
}
