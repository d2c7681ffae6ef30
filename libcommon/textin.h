/*
 * textin.h - reading the text records of tangram-text(5) back: the tools
 * that work on trace-decode's output (overlap-find, conflict-check) split
 * each line into its fields and look arguments up by name.
 */
#ifndef TG_TEXTIN_H
#define TG_TEXTIN_H

#include <stddef.h>
#include <stdint.h>

#define TG_TLINE_MAXF 64

/* Columns of a call line (tangram-text(5)). */
enum {
	TG_COL_RANK, TG_COL_TID, TG_COL_SEQ, TG_COL_TSTART, TG_COL_TEND,
	TG_COL_DEPTH, TG_COL_LAYER, TG_COL_FUNC, TG_COL_RET, TG_COL_ARGS
};

struct tg_tline {
	char *f[TG_TLINE_MAXF];	/* the fields, in place in the line */
	int nf;
};

/* Split @line (modified: tabs and the newline become NULs) into @t.
 * Returns the number of fields; fields past TG_TLINE_MAXF are dropped. */
int tg_tline_split(char *line, struct tg_tline *t);

/* The value of argument @name= of a call line (or of any "name=value"
 * field from @from on), or NULL. */
const char *tg_tline_arg(const struct tg_tline *t, int from, const char *name);

/* "12.345678901" (seconds, up to 9 decimals) as nanoseconds; -1 if it is
 * not such a number. */
int64_t tg_ttime(const char *s);

/* A decimal integer (optionally negative) that is the whole of @s; returns
 * 0 and sets *@v, or -1. */
int tg_tint(const char *s, int64_t *v);

/* Undo the quoting of a string value ("..." with C escapes, or NULL) into
 * @out (at most @cap bytes with the NUL).  Returns 0, 1 for NULL, -1 if
 * @s is not a quoted string or does not fit. */
int tg_tunquote(const char *s, char *out, size_t cap);

/* Parse "[a,b,c]" into at most @max integers; returns the count or -1. */
int tg_tintarr(const char *s, int64_t *out, int max);


/* A fast line reader: one read(2) per 1 MiB, lines handed out in place. */
struct tg_lines {
	int fd;
	char *buf;
	size_t cap, start, end;
	int eof, err;
};

/* Read lines from descriptor @fd.  Returns 0, or -1 (out of memory). */
int tg_lines_open(struct tg_lines *lr, int fd);

/* The next line, its newline replaced by a NUL, its length (without the
 * newline) in *@len; NULL at the end of input or on a read error (then
 * lr->err is the errno).  The line stays valid until the next call. */
char *tg_lines_next(struct tg_lines *lr, size_t *len);

void tg_lines_close(struct tg_lines *lr);

#endif
