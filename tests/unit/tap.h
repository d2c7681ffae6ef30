/*
 * tap.h - the few TAP helpers the C unit tests share.
 *
 * Results are buffered so that the plan ("1..N") comes first even though a
 * table-driven test only knows N at the end; tap_done() prints everything
 * and returns the exit status.  Descriptions must not contain '#'.
 */
#ifndef TG_TAP_H
#define TG_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *tap_out;
static char *tap_buf;
static size_t tap_len;
static int tap_count, tap_failed;

static inline FILE *tap_stream(void)
{
	if (!tap_out && !(tap_out = open_memstream(&tap_buf, &tap_len))) {
		perror("open_memstream");
		exit(2);
	}
	return tap_out;
}

__attribute__((format(printf, 4, 5)))
static inline int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	FILE *o = tap_stream();
	va_list ap;

	tap_count++;
	fprintf(o, "%sok %d - ", pass ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vfprintf(o, fmt, ap);
	va_end(ap);
	fputc('\n', o);
	if (!pass) {
		fprintf(o, "#   failed at %s:%d\n", file, line);
		tap_failed++;
	}
	return pass;
}

/* A "# ..." diagnostic line, printed in order with the results. */
__attribute__((format(printf, 1, 2)))
static inline void tap_diag(const char *fmt, ...)
{
	FILE *o = tap_stream();
	va_list ap;

	fputs("#   ", o);
	va_start(ap, fmt);
	vfprintf(o, fmt, ap);
	va_end(ap);
	fputc('\n', o);
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* ok() for two integers, showing both when they differ. */
#define is_int(got, want, ...)                                                \
	do {                                                                  \
		long long g_ = (long long)(got), w_ = (long long)(want);      \
		if (!ok(g_ == w_, __VA_ARGS__))                               \
			tap_diag("got %lld, want %lld", g_, w_);              \
	} while (0)

/* ok() for "string @got contains @want". */
#define has_str(got, want, ...)                                               \
	do {                                                                  \
		const char *g_ = (got), *w_ = (want);                         \
		if (!ok(g_ && strstr(g_, w_), __VA_ARGS__))                   \
			tap_diag("got \"%s\", want it to contain \"%s\"",     \
				 g_ ? g_ : "(null)", w_);                     \
	} while (0)

/* Print the plan and the buffered results; returns the exit status. */
static inline int tap_done(void)
{
	fclose(tap_stream());
	printf("1..%d\n", tap_count);
	fwrite(tap_buf, 1, tap_len, stdout);
	free(tap_buf);
	if (fflush(stdout) != 0)
		return 2;
	return tap_failed ? 1 : 0;
}

#endif
