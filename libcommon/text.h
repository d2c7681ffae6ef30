/*
 * text.h - printing decoded records as the text lines of tangram-text(5)
 * or as JSON lines.  The one place where the line format is written, so
 * every tool that prints records prints them the same way.
 */
#ifndef TG_TEXT_H
#define TG_TEXT_H

#include <stdint.h>
#include <stdio.h>

#include "rec.h"

struct tg_textopts {
	int json;		/* JSON lines instead of text */
	uint64_t zero;		/* CLOCK_REALTIME ns printed as time 0 */
};

/* The "#proc" line describing a stream (its header). */
void tg_text_proc(FILE *out, const struct tg_header *h,
		  const struct tg_textopts *o);

/* One record: a call line, or a "#rank" / "#excluded" definition line. */
void tg_text_rec(FILE *out, const struct tg_header *h, const struct tg_rec *r,
		 const struct tg_textopts *o);

/*
 * The text of value @v of kind @k (sub-kind @sub) as a call line shows it
 * (strings quoted), and its length in *@len.  The string belongs to the
 * calling thread and stays valid until its next call.
 */
const char *tg_text_val(int k, int sub, const struct tg_val *v, size_t *len);

#endif
