/*
 * util.h - small helpers every tool uses: strict number parsing, checked
 * stdout, the program name in messages.
 */
#ifndef TG_UTIL_H
#define TG_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Parse @s as a decimal integer in [@min, @max].  On error prints
 * "tool: option -X: 'S' is not a number in [min, max]" and exits 2.
 * @what names the option in the message.
 */
long long tg_strtonum(const char *s, long long min, long long max, const char *what);

/* Flush and close stdout; on failure (disk full) print an error and exit 2.
 * A closed pipe (EPIPE) ends quietly. */
void tg_close_stdout(void);

/* realloc() and strdup() that exit 2 with "tool: out of memory". */
void *tg_xrealloc(void *p, size_t n);
char *tg_xstrdup(const char *s);

/* Refuse to write binary data to a terminal unless @force; exits 2. */
void tg_no_binary_tty(int fd, int force);

/*
 * Run ids (tangram-text(5)): what the files derived from a trace (a .hb,
 * overlap-find's output, conflict-check's JSON) name the run by, so that
 * tools can refuse to mix runs.  The id of a run is the sum, modulo 2^64,
 * of tg_run_proc() of every #proc line of its text records, whatever
 * their order; 0 stands for no id (no #proc line, or an older file).
 * @pid, @host and @clock_base are the values of the line's fields as they
 * are written (@host still quoted), each @n bytes long: what names a
 * process, whether it knew its rank when its stream began or not.
 */
uint64_t tg_run_proc(const char *pid, size_t pn, const char *host, size_t hn,
		     const char *clock_base, size_t cn);

/* Print run id @id as 16 hex digits into @buf (17 bytes). */
void tg_run_format(uint64_t id, char buf[17]);

/* Parse 16 hex digits (of a "#run" line, a JSON "run" field).  Returns 0,
 * or -1 if @s is not a run id. */
int tg_run_parse(const char *s, uint64_t *id);

/* FNV-1a, 64 bits, of string @s, from @h (0xcbf29ce484222325 to start). */
uint64_t tg_fnv_str(uint64_t h, const char *s);

#endif
