/*
 * textin.c - splitting text records and reading their values back.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "textin.h"
#include "banned.h"

int tg_tline_split(char *line, struct tg_tline *t)
{
	char *p = line;

	t->nf = 0;
	for (;;) {
		char *tab = p;
		while (*tab && *tab != '\t')	/* fields are short: no strchr call */
			tab++;
		if (t->nf < TG_TLINE_MAXF)
			t->f[t->nf++] = p;
		if (!*tab)
			break;
		*tab = 0;
		p = tab + 1;
	}
	p = t->f[t->nf - 1];
	p[strcspn(p, "\n")] = 0;
	return t->nf;
}

const char *tg_tline_arg(const struct tg_tline *t, int from, const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = from; i < t->nf; i++)
		if (strncmp(t->f[i], name, n) == 0 && t->f[i][n] == '=')
			return t->f[i] + n + 1;
	return NULL;
}

int64_t tg_ttime(const char *s)
{
	int64_t sec = 0, frac = 0;
	int digits = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s)) {
		if (sec > INT64_MAX / 10 / 1000000000)
			return -1;
		sec = sec * 10 + (*s++ - '0');
	}
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s) && digits < 9) {
			frac = frac * 10 + (*s++ - '0');
			digits++;
		}
		if (isdigit((unsigned char)*s))
			return -1;
	}
	if (*s)
		return -1;
	while (digits++ < 9)
		frac *= 10;
	return sec * 1000000000 + frac;
}

int tg_tint(const char *s, int64_t *v)
{
	char *end;
	long long x;

	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	{	/* up to 18 digits cannot overflow: no strtoll for most numbers */
		const char *d = s + (*s == '-');
		int64_t y = 0;
		int n = 0;
		while (isdigit((unsigned char)d[n]) && n < 18)
			y = y * 10 + (d[n++] - '0');
		if (n > 0 && d[n] == 0) {
			*v = *s == '-' ? -y : y;
			return 0;
		}
	}
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

int tg_tunquote(const char *s, char *out, size_t cap)
{
	size_t o = 0;

	if (strcmp(s, "NULL") == 0)
		return 1;
	if (*s++ != '"')
		return -1;
	while (*s && *s != '"') {
		char c = *s++;
		if (c == '\\') {
			c = *s++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case '"': case '\\': break;
			case 'x':
				if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]))
					return -1;
				{
					char h[3] = { s[0], s[1], 0 };
					c = (char)strtol(h, NULL, 16);
				}
				s += 2;
				break;
			default:
				return -1;
			}
		}
		if (o + 1 >= cap)
			return -1;
		out[o++] = c;
	}
	if (*s != '"' || s[1])
		return -1;
	out[o] = 0;
	return 0;
}

int tg_tintarr(const char *s, int64_t *out, int max)
{
	int n = 0;
	char *end;

	if (*s++ != '[')
		return -1;
	if (*s == ']')
		return s[1] ? -1 : 0;
	for (;;) {
		long long x;
		errno = 0;
		x = strtoll(s, &end, 10);
		if (errno || end == s)
			return -1;
		if (n < max)
			out[n] = x;
		n++;
		s = end;
		if (*s == ']')
			break;
		if (*s++ != ',')
			return -1;
	}
	return s[1] ? -1 : (n < max ? n : max);
}

int tg_lines_open(struct tg_lines *lr, int fd)
{
	memset(lr, 0, sizeof(*lr));
	lr->fd = fd;
	lr->cap = 1u << 20;
	lr->buf = malloc(lr->cap + 1);
	return lr->buf ? 0 : -1;
}

char *tg_lines_next(struct tg_lines *lr, size_t *len)
{
	for (;;) {
		char *nl = memchr(lr->buf + lr->start, '\n', lr->end - lr->start);
		char *line;
		ssize_t n;

		if (nl) {
			line = lr->buf + lr->start;
			*nl = 0;
			*len = (size_t)(nl - line);
			lr->start = (size_t)(nl - lr->buf) + 1;
			return line;
		}
		if (lr->eof) {
			if (lr->start == lr->end)
				return NULL;
			/* a last line without its newline */
			line = lr->buf + lr->start;
			lr->buf[lr->end] = 0;
			*len = lr->end - lr->start;
			lr->start = lr->end;
			return line;
		}
		if (lr->start > 0) {
			memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
			lr->end -= lr->start;
			lr->start = 0;
		}
		if (lr->end == lr->cap) {	/* a line longer than the buffer */
			char *nb = realloc(lr->buf, 2 * lr->cap + 1);
			if (!nb) {
				lr->err = ENOMEM;
				return NULL;
			}
			lr->buf = nb;
			lr->cap *= 2;
		}
		n = read(lr->fd, lr->buf + lr->end, lr->cap - lr->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			lr->err = errno;
			return NULL;
		}
		if (n == 0)
			lr->eof = 1;
		lr->end += (size_t)n;
	}
}

void tg_lines_close(struct tg_lines *lr)
{
	free(lr->buf);
	lr->buf = NULL;
}
