/*
 * report-svg.c - the few SVG and HTML primitives trace-report draws with.
 * Charts are plain inline SVG (readable without JavaScript); a grid of many
 * cells is one path per colour, so a chart's size is bounded by its bins.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "../libcommon/banned.h"

void html_esc(FILE *out, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			/* control bytes would make the page ill-formed */
			putc((unsigned char)*s < 0x20 ? '?' : *s, out);
		}
}

const char *fmt_bytes(char *buf, size_t len, uint64_t n)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)n;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", n);
	else
		snprintf(buf, len, "%.*f %s", v < 10 ? 2 : v < 100 ? 1 : 0, v, unit[u]);
	return buf;
}

const char *fmt_ns(char *buf, size_t len, uint64_t ns)
{
	double s = (double)ns / 1e9;

	if (ns == 0)
		snprintf(buf, len, "0 s");
	else if (s >= 1)
		snprintf(buf, len, "%.3f s", s);
	else if (s >= 1e-3)
		snprintf(buf, len, "%.3f ms", s * 1e3);
	else
		snprintf(buf, len, "%.3f us", s * 1e6);
	return buf;
}

const char *rank_color(int k)
{
	/* blue (rank 0) through green and yellow to red (the last ranks) */
	static const char *const ramp[RP_RANKCOLORS] = {
		"#3b4cc0", "#4f74d8", "#6a9be8", "#8cbcf0", "#5fb88a", "#8cc152",
		"#c6d33c", "#f1c232", "#f39c34", "#e8702a", "#d44a26", "#b40426",
	};
	return ramp[k < 0 ? 0 : k >= RP_RANKCOLORS ? RP_RANKCOLORS - 1 : k];
}

void svg_open(FILE *out, const char *id, int w, int h, const char *label)
{
	fprintf(out, "<svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
		id, w, h, w, h);
	html_esc(out, label);
	fputs("\">\n<title>", out);
	html_esc(out, label);
	fputs("</title>\n", out);
}

void svg_close(FILE *out)
{
	fputs("</svg>\n", out);
}

void svg_text(FILE *out, double x, double y, const char *anchor, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
	html_esc(out, buf);
	fputs("</text>\n", out);
}

void svg_line(FILE *out, double x1, double y1, double x2, double y2, const char *stroke)
{
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
		x1, y1, x2, y2, stroke);
}

void svg_rect(FILE *out, double x, double y, double w, double h, const char *fill,
	      const char *title)
{
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"",
		x, y, w, h, fill);
	if (!title) {
		fputs("/>\n", out);
		return;
	}
	fputs("><title>", out);
	html_esc(out, title);
	fputs("</title></rect>\n", out);
}

void svg_grid(FILE *out, double x, double y, double cw, double ch, int ncol, int nrow,
	      const uint8_t *cls, int nclass, const char *const *colors,
	      const char *const *titles)
{
	int k, r, c, any;

	for (k = 1; k <= nclass; k++) {
		any = 0;
		for (r = 0; r < nrow; r++)
			for (c = 0; c < ncol; c++) {
				int run = 1;
				if (cls[r * ncol + c] != k)
					continue;
				/* a run of cells of one class is one rectangle */
				while (c + run < ncol && cls[r * ncol + c + run] == k)
					run++;
				if (!any)
					fprintf(out, "<path fill=\"%s\" d=\"", colors[k - 1]);
				any = 1;
				fprintf(out, "M%.1f %.1fh%.1fv%.1fh-%.1fz", x + c * cw, y + r * ch,
					run * cw, ch, run * cw);
				c += run - 1;
			}
		if (!any)
			continue;
		fputs("\">", out);
		if (titles && titles[k - 1]) {
			fputs("<title>", out);
			html_esc(out, titles[k - 1]);
			fputs("</title>", out);
		}
		fputs("</path>\n", out);
	}
}

void svg_taxis(FILE *out, double x, double y, double w, uint64_t ns)
{
	char buf[32];
	int i;

	svg_line(out, x, y, x + w, y, "#555");
	for (i = 0; i <= 4; i++) {
		double tx = x + w * i / 4;
		svg_line(out, tx, y, tx, y + 4, "#555");
		svg_text(out, tx, y + 15, i == 0 ? "start" : i == 4 ? "end" : "middle", "%s",
			 fmt_ns(buf, sizeof(buf), ns / 4 * (uint64_t)i));
	}
}
