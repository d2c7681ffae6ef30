/*
 * rec-filter - keep the calls a program made itself: copy a record stream
 * (tangram-rec(5)) with its header, its RANK records, and the CALL records
 * of thread 0 at depth 0 from MPI_Init to MPI_Finalize, leaving out what
 * the MPI library and its helper threads did.  Used by the benchmarks to
 * measure the compressed size of an application's own calls.
 *
 *   rec-filter in.rec out.rec
 */
#include <stdio.h>
#include <string.h>

#include "../../libcommon/rec.h"
#include "../../libcommon/stream.h"

int main(int argc, char **argv)
{
	struct tg_stream *in, *out;
	struct tg_reader *r;
	struct tg_writer *w;
	struct tg_rec rec;
	struct tg_header h;
	char err[256];
	int on = 0, rc;

	if (argc != 3 || !(in = tg_stream_open(argv[1], "r")) ||
	    !(r = tg_reader_open(in, err, sizeof(err))) || !(out = tg_stream_open(argv[2], "w"))) {
		fprintf(stderr, "usage: rec-filter in.rec out.rec\n");
		return 2;
	}
	h = *tg_reader_header(r);
	h.flags = 0;
	if (!(w = tg_writer_open(out, &h)))
		return 2;
	while ((rc = tg_reader_next(r, &rec)) > 0) {
		if (rec.type == TG_REC_RANK) {
			tg_writer_put(w, &rec);
			continue;
		}
		if (rec.type != TG_REC_CALL || rec.tid != 0 || rec.depth != 0)
			continue;
		if (strcmp(rec.call->name, "MPI_Init") == 0)
			on = 1;
		if (on)
			tg_writer_put(w, &rec);
		if (strcmp(rec.call->name, "MPI_Finalize") == 0)
			on = 0;
	}
	if (tg_writer_close(w) < 0 || tg_stream_close(out) < 0 || rc < 0)
		return 2;
	tg_reader_free(r);
	tg_stream_close(in);
	return 0;
}
