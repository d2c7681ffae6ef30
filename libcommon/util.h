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

#endif
