/*
 * report-html.c - trace-report's page: a summary, tables and inline SVG
 * charts of what trace-report.c counted.  Every chart aggregates (time
 * bins, at most RP_ROWS rank rows, the top files and ranks), so the page
 * stays small at any number of calls or ranks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../libcommon/calltab.h"
#include "../libcommon/util.h"
#include "report.h"
#include "../libcommon/banned.h"

#define W 860			/* chart width */
#define LEFT 150		/* room for row labels */
#define NLEV 8			/* intensity levels of a heat map */

static const struct rp_run *R;	/* the run being written (for qsort) */
static unsigned L;		/* the layers that spent time in I/O calls */

static const char css[] =
	"body{font:14px/1.4 sans-serif;margin:2em auto;max-width:960px;color:#222}"
	"h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:2em}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"td,th{border:1px solid #ddd;padding:2px 6px;text-align:right;font-size:11px}"
	"th{background:#f4f4f4}td.l,th.l{text-align:left}"
	"svg.chart{display:block;margin:.5em 0;font:11px sans-serif;background:#fff}"
	"svg.zoom{width:100%;height:auto}.warn{color:#b00;font-weight:bold}"
	".note{color:#666;font-size:12px}.spark{font-family:monospace;letter-spacing:-1px}";

/* click a chart to see it wider; everything is readable without this */
static const char js[] =
	"document.querySelectorAll('svg.chart').forEach(function(s){"
	"s.addEventListener('click',function(){s.classList.toggle('zoom');});});";

/* ---- helpers -------------------------------------------------------------- */

static uint64_t acc_ns(const struct rp_acc *a)
{
	uint64_t n = 0;
	int l;

	for (l = 0; l < TG_LAYER_COUNT; l++)
		n += a->ns[l];
	return n;
}

static void rank_name(char *buf, size_t len, const struct rp_rank *rk)
{
	if (rk->rank >= 0)
		snprintf(buf, len, "%" PRId64, rk->rank);
	else
		snprintf(buf, len, "p%" PRIu64, rk->pid);
}

static int cmp_rank_num(const void *a, const void *b)
{
	const struct rp_rank *x = &R->ranks[*(const size_t *)a], *y = &R->ranks[*(const size_t *)b];

	if ((x->rank < 0) != (y->rank < 0))
		return x->rank < 0 ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int cmp_rank_ns(const void *a, const void *b)
{
	uint64_t x = acc_ns(&R->ranks[*(const size_t *)a].a), y = acc_ns(&R->ranks[*(const size_t *)b].a);

	return x < y ? 1 : x > y ? -1 : cmp_rank_num(a, b);
}

static int cmp_file_bytes(const void *a, const void *b)
{
	const struct rp_file *x = &R->files[*(const size_t *)a], *y = &R->files[*(const size_t *)b];
	uint64_t bx = x->a.bytes[0] + x->a.bytes[1], by = y->a.bytes[0] + y->a.bytes[1];

	if (bx != by)
		return bx < by ? 1 : -1;
	if (x->a.meta != y->a.meta)
		return x->a.meta < y->a.meta ? 1 : -1;
	return strcmp(x->path, y->path);
}

static size_t *order(size_t n, int (*cmp)(const void *, const void *))
{
	size_t *ix = tg_xrealloc(NULL, (n ? n : 1) * sizeof(*ix)), i;

	for (i = 0; i < n; i++)
		ix[i] = i;
	qsort(ix, n, sizeof(*ix), cmp);
	return ix;
}

/* Time bins in use. */
static int nbins(void)
{
	uint64_t n = R->end / R->bin + 1;

	return n > RP_TBINS ? RP_TBINS : (int)n;
}

/* Intensity level 1..NLEV of @v against @max, on a log scale; 0 for none. */
static uint8_t level(double v, double max)
{
	int l;

	if (v <= 0 || max <= 0)
		return 0;
	l = 1 + (int)((NLEV - 1) * log1p(v) / log1p(max));
	return (uint8_t)(l > NLEV ? NLEV : l);
}

/* A sparkline of the size histogram @h, in a table cell. */
static void spark(FILE *out, const uint64_t *h)
{
	static const char *const bar[] = { "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83",
		"\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88" };
	static const char *const lim[RP_SIZEB] = { "0-100", "100-1K", "1K-10K", "10K-100K",
		"100K-1M", "1M-4M", "4M-10M", "10M-100M", "100M-1G", "1G+" };
	uint64_t max = 0;
	int i;

	for (i = 0; i < RP_SIZEB; i++)
		if (h[i] > max)
			max = h[i];
	fputs("<span class=\"spark\" title=\"", out);
	for (i = 0; i < RP_SIZEB; i++)
		fprintf(out, "%s%s: %" PRIu64, i ? ", " : "", lim[i], h[i]);
	fputs("\">", out);
	for (i = 0; i < RP_SIZEB; i++)
		fputs(h[i] ? bar[h[i] * 7 / (max ? max : 1)] : "\xc2\xb7", out);
	fputs("</span>", out);
}

static void pattern_cell(FILE *out, const struct rp_acc *a)
{
	uint64_t n = a->consec + a->seq + a->rnd;

	if (!n) {
		fputs("<td>-</td>", out);
		return;
	}
	fprintf(out, "<td>%.0f / %.0f / %.0f</td>", 100.0 * a->consec / n, 100.0 * a->seq / n,
		100.0 * a->rnd / n);
}

static void layer_cells(FILE *out, const struct rp_acc *a)
{
	char b[32];
	int l;

	for (l = 0; l < TG_LAYER_COUNT; l++)
		if (L & 1u << l)
			fprintf(out, "<td>%s</td>", a->ns[l] ? fmt_ns(b, sizeof(b), a->ns[l]) : "-");
}

static void acc_header(FILE *out, const char *first)
{
	int l;

	fprintf(out, "<tr><th class=\"l\">%s</th><th>read</th><th>written</th><th>reads</th>"
		"<th>writes</th><th>read sizes</th><th>write sizes</th>"
		"<th title=\"consecutive / sequential / random, percent of accesses\">"
		"con / seq / rnd %%</th><th>metadata</th>", first);
	for (l = 0; l < TG_LAYER_COUNT; l++)
		if (L & 1u << l)
			fprintf(out, "<th>%s time</th>", tg_layer_name(l));
}

static void acc_cells(FILE *out, const struct rp_acc *a)
{
	char b0[32], b1[32];

	fprintf(out, "<td>%s</td><td>%s</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>",
		fmt_bytes(b0, sizeof(b0), a->bytes[0]), fmt_bytes(b1, sizeof(b1), a->bytes[1]),
		a->ops[0], a->ops[1]);
	spark(out, a->size[0]);
	fputs("</td><td>", out);
	spark(out, a->size[1]);
	fputs("</td>", out);
	pattern_cell(out, a);
	fprintf(out, "<td>%" PRIu64 "</td>", a->meta);
	layer_cells(out, a);
}

/* ---- sections -------------------------------------------------------------- */

static void summary(FILE *out)
{
	char b0[32], b1[32], when[64];
	uint64_t rd = 0, wr = 0, calls = 0;
	time_t t = (time_t)(R->zero == UINT64_MAX ? 0 : R->zero / 1000000000u);
	struct tm tm;
	size_t i;
	int l;

	for (i = 0; i < R->nranks; i++) {
		rd += R->ranks[i].a.bytes[0];
		wr += R->ranks[i].a.bytes[1];
	}
	for (l = 0; l < TG_LAYER_COUNT; l++)
		calls += R->calls[l];
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&t, &tm));
	fputs("<h2 id=\"summary\">Run</h2>\n<table id=\"run\">\n<tr><th class=\"l\">program</th>"
	      "<td class=\"l\">", out);
	html_esc(out, R->program ? R->program : "?");
	fprintf(out, "</td></tr>\n<tr><th class=\"l\">started</th><td class=\"l\">%s</td></tr>\n"
		"<tr><th class=\"l\">ranks (processes)</th><td class=\"l\">%zu (world %" PRIu64
		")</td></tr>\n<tr><th class=\"l\">hosts</th><td class=\"l\">%zu: ",
		when, R->nranks, R->world, R->nhosts);
	for (i = 0; i < R->nhosts && i < 8; i++) {
		fputs(i ? ", " : "", out);
		html_esc(out, R->hosts[i]);
	}
	fprintf(out, "%s</td></tr>\n<tr><th class=\"l\">duration</th><td class=\"l\">%s</td></tr>\n",
		R->nhosts > 8 ? ", ..." : "", fmt_ns(b0, sizeof(b0), R->end));
	fprintf(out, "<tr><th class=\"l\">calls</th><td class=\"l\">%" PRIu64 " (", calls);
	for (l = 0; l < TG_LAYER_COUNT; l++)
		fprintf(out, "%s%s %" PRIu64, l ? ", " : "", tg_layer_name(l), R->calls[l]);
	fprintf(out, ") in %" PRIu64 " records of %" PRIu64 " streams</td></tr>\n"
		"<tr><th class=\"l\">data</th><td class=\"l\">%s read, %s written, %zu files</td>"
		"</tr>\n</table>\n", R->records, R->streams, fmt_bytes(b0, sizeof(b0), rd),
		fmt_bytes(b1, sizeof(b1), wr), R->nfiles);
	if (R->damaged)
		fputs("<p class=\"warn\">Part of the input could not be read: this report shows "
		      "the records before the damage.</p>\n", out);
}

/* A heat map panel of one series (reads, writes, metadata calls), rank
 * rows of ranks in order @ix summed. */
static void heat_panel(FILE *out, double y0, const char *what, const size_t *ix, int series, const char *const *colors)
{
	int nb = nbins(), nrow = R->nranks < RP_ROWS ? (int)R->nranks : RP_ROWS, r, b;
	double *v = calloc((size_t)nrow * nb, sizeof(*v)), max = 0, ch = nrow > 16 ? 4 : 12;
	uint8_t *cls = calloc((size_t)nrow * nb, 1);
	char tl[NLEV][64], *titles[NLEV];
	size_t i;

	if (!v || !cls)
		abort();
	for (i = 0; i < R->nranks; i++) {
		const struct rp_rank *rk = &R->ranks[ix[i]];
		r = (int)(i * (size_t)nrow / R->nranks);
		for (b = 0; b < nb; b++)
			v[r * nb + b] += series < 2 ? (double)rk->bytes[series][b] : rk->meta[b];
	}
	for (i = 0; i < (size_t)nrow * nb; i++)
		if (v[i] > max)
			max = v[i];
	for (i = 0; i < (size_t)nrow * nb; i++)
		cls[i] = level(v[i], max);
	for (r = 0; r < NLEV; r++) {
		double lo = r ? expm1(log1p(max) * r / (NLEV - 1)) : 0;
		snprintf(tl[r], sizeof(tl[r]), "%s: from %.0f %s per bin", what, lo,
			 series < 2 ? "bytes" : "calls");
		titles[r] = tl[r];
	}
	svg_text(out, 4, y0 + 10, "start", "%s", what);
	svg_rect(out, LEFT, y0, W - LEFT - 10, nrow * ch, "#f7f7f7", NULL);
	svg_grid(out, LEFT, y0, (double)(W - LEFT - 10) / nb, ch, nb, nrow, cls, NLEV, colors,
		 (const char *const *)titles);
	free(v);
	free(cls);
}

static void activity(FILE *out, const size_t *ix)
{
	static const char *const reds[NLEV] = { "#fee0d2", "#fcbba1", "#fc9272", "#fb6a4a",
		"#ef3b2c", "#cb181d", "#a50f15", "#67000d" };
	static const char *const blues[NLEV] = { "#deebf7", "#c6dbef", "#9ecae1", "#6baed6",
		"#4292c6", "#2171b5", "#08519c", "#08306b" };
	static const char *const greys[NLEV] = { "#e5f5e0", "#c7e9c0", "#a1d99b", "#74c476",
		"#41ab5d", "#238b45", "#006d2c", "#00441b" };
	int nrow = R->nranks < RP_ROWS ? (int)R->nranks : RP_ROWS;
	double ch = nrow > 16 ? 4 : 12, ph = nrow * ch + 24;
	int h = (int)(3 * ph + 30);
	char b[64];

	fputs("<h2 id=\"activity\">I/O over time</h2>\n<p class=\"note\">", out);
	if (R->nranks > RP_ROWS)
		fprintf(out, "%zu ranks in %d rows of about %zu ranks each; ", R->nranks, nrow,
			(R->nranks + RP_ROWS - 1) / RP_ROWS);
	fprintf(out, "%d time bins of %s; darker is more (log scale).</p>\n", nbins(),
		fmt_ns(b, sizeof(b), R->bin));
	svg_open(out, "chart-activity", W, h, "I/O activity over time per rank: reads, writes, metadata");
	heat_panel(out, 4, "reads", ix, RP_R, blues);
	heat_panel(out, 4 + ph, "writes", ix, RP_W, reds);
	heat_panel(out, 4 + 2 * ph, "metadata", ix, 2, greys);
	svg_text(out, LEFT - 4, 14 + ch, "end", "first rank");
	svg_taxis(out, LEFT, 3 * ph + 2, W - LEFT - 10, R->bin * (uint64_t)nbins());
	svg_close(out);
}

/* Horizontal bars: @n labels and values, longest @max. */
static void hbars(FILE *out, double y, int n, const char *const *label, const uint64_t *v,
		  const char *fill, const char *unit)
{
	uint64_t max = 1;
	int i;

	for (i = 0; i < n; i++)
		if (v[i] > max)
			max = v[i];
	for (i = 0; i < n; i++) {
		char t[160];
		double w = (double)(W - LEFT - 120) * (double)v[i] / (double)max;
		snprintf(t, sizeof(t), "%s: %" PRIu64 " %s", label[i], v[i], unit);
		svg_text(out, LEFT - 4, y + i * 14 + 10, "end", "%s", label[i]);
		svg_rect(out, LEFT, y + i * 14 + 1, w > 0 || !v[i] ? w : 1, 11, fill, t);
		svg_text(out, LEFT + w + 4, y + i * 14 + 10, "start", "%" PRIu64, v[i]);
	}
}

static void sizes(FILE *out)
{
	static const char *const lim[RP_SIZEB] = { "0-100 B", "100 B-1 KB", "1-10 KB",
		"10-100 KB", "100 KB-1 MB", "1-4 MB", "4-10 MB", "10-100 MB", "100 MB-1 GB",
		"1 GB+" };
	uint64_t h[2][RP_SIZEB] = { { 0 } };
	size_t i;
	int k, s;

	for (i = 0; i < R->nranks; i++)
		for (k = 0; k < 2; k++)
			for (s = 0; s < RP_SIZEB; s++)
				h[k][s] += R->ranks[i].a.size[k][s];
	fputs("<h2 id=\"sizes\">Access sizes</h2>\n", out);
	svg_open(out, "chart-sizes", W, 2 * (RP_SIZEB * 14 + 24) + 8,
		 "Access-size histogram: reads and writes");
	svg_text(out, 4, 14, "start", "reads");
	hbars(out, 18, RP_SIZEB, lim, h[0], "#4292c6", "reads");
	svg_text(out, 4, RP_SIZEB * 14 + 24 + 14, "start", "writes");
	hbars(out, RP_SIZEB * 14 + 24 + 18, RP_SIZEB, lim, h[1], "#ef3b2c", "writes");
	svg_close(out);
}

static void file_table(FILE *out, const size_t *fx)
{
	size_t i, n = R->nfiles < RP_TOPN ? R->nfiles : RP_TOPN;

	fputs("<h2 id=\"files\">Files</h2>\n", out);
	if (R->nfiles > n)
		fprintf(out, "<p class=\"note\">The %zu of %zu files that moved the most bytes.</p>\n",
			n, R->nfiles);
	fputs("<table id=\"file-table\">\n", out);
	acc_header(out, "file");
	fputs("<th>slowest rank</th></tr>\n", out);
	for (i = 0; i < n; i++) {
		const struct rp_file *f = &R->files[fx[i]];
		fputs("<tr><td class=\"l\">", out);
		html_esc(out, f->path);
		fputs("</td>", out);
		acc_cells(out, &f->a);
		if (f->slow_rank >= 0)
			fprintf(out, "<td>%" PRId64 "</td></tr>\n", f->slow_rank);
		else if (f->slow_rank < -1)
			fprintf(out, "<td>p%" PRId64 "</td></tr>\n", -f->slow_rank - 1);
		else
			fputs("<td>-</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* Offset against time of file @f: cells coloured by the mean rank of the
 * accesses in them, writes solid over reads pale. */
static void offsets_one(FILE *out, const struct rp_file *f, int k, int maxrank)
{
	const char *colors[RP_RANKCOLORS];
	int nb = nbins(), no = RP_OBINS, o, b, c, w;
	uint8_t *cls = calloc((size_t)2 * no * nb, 1);
	double cw = (double)(W - LEFT - 10) / nb, ch;
	char id[32], label[64], b0[32];
	uint64_t span = f->obin * RP_OBINS;

	if (!cls)
		abort();
	for (c = 0; c < RP_RANKCOLORS; c++)
		colors[c] = rank_color(c);
	while (span / 2 >= f->maxend && no > 4) {	/* only the offsets used */
		span /= 2;
		no /= 2;
	}
	ch = 144.0 / no;
	for (w = 0; w < 2; w++)
		for (o = 0; o < no; o++)
			for (b = 0; b < nb; b++) {
				size_t cell = (size_t)o * RP_TBINS + b;
				uint32_t n = 0, i;
				uint64_t sum = 0;
				double mean;
				if (f->cnt[w]) {
					n = f->cnt[w][cell];
					sum = f->rsum[w][cell];
				} else {	/* a short list (report.h) */
					for (i = 0; i < f->nsp[w]; i++)
						if (f->sp[w][i].cell == cell) {
							n = f->sp[w][i].cnt;
							sum = f->sp[w][i].rsum;
						}
				}
				if (!n)
					continue;
				mean = (double)sum / n;
				c = maxrank > 0 ? (int)(mean * (RP_RANKCOLORS - 1) / maxrank + 0.5) : 0;
				/* offset 0 at the bottom */
				cls[(size_t)w * no * nb + (size_t)(no - 1 - o) * nb + b] = (uint8_t)(1 + c);
			}
	snprintf(id, sizeof(id), "chart-offsets-%d", k);
	snprintf(label, sizeof(label), "Offset against time, file %d", k + 1);
	svg_open(out, id, W, (int)(no * ch + 40), label);
	svg_rect(out, LEFT, 4, W - LEFT - 10, no * ch, "#f7f7f7", NULL);
	fputs("<g fill-opacity=\"0.4\">\n", out);
	svg_grid(out, LEFT, 4, cw, ch, nb, no, cls, RP_RANKCOLORS, colors, NULL);
	fputs("</g>\n", out);
	svg_grid(out, LEFT, 4, cw, ch, nb, no, cls + (size_t)no * nb, RP_RANKCOLORS, colors, NULL);
	svg_text(out, LEFT - 4, 14, "end", "%s", fmt_bytes(b0, sizeof(b0), span));
	svg_text(out, LEFT - 4, 4 + no * ch, "end", "0");
	svg_taxis(out, LEFT, no * ch + 8, W - LEFT - 10, R->bin * (uint64_t)nb);
	svg_close(out);
	free(cls);
}

static void offsets(FILE *out, const size_t *fx)
{
	int64_t maxrank = 0;
	size_t i;
	int k = 0, c;

	for (i = 0; i < R->nranks; i++)
		if (R->ranks[i].rank > maxrank)
			maxrank = R->ranks[i].rank;
	fputs("<h2 id=\"patterns\">Access patterns</h2>\n<p class=\"note\">Offset (up) against "
	      "time (across) for the files that moved the most bytes; colour: the rank, ", out);
	for (c = 0; c < RP_RANKCOLORS; c += RP_RANKCOLORS - 1)
		fprintf(out, "<span style=\"color:%s\">&#9632;</span> rank %" PRId64 "%s",
			rank_color(c), c ? maxrank : 0, c ? "" : " to ");
	fputs(" (the mean of a cell's); solid: written, pale: read. MPI-IO offsets are in etypes "
	      "of the view.</p>\n<div id=\"chart-offsets\">\n", out);
	for (i = 0; i < R->nfiles && k < RP_TOPF; i++) {
		const struct rp_file *f = &R->files[fx[i]];
		if (!f->cnt[0] && !f->cnt[1] && !f->nsp[0] && !f->nsp[1])
			continue;
		fputs("<h3>", out);
		html_esc(out, f->path);
		fputs("</h3>\n", out);
		offsets_one(out, f, k++, (int)(maxrank > INT32_MAX ? INT32_MAX : maxrank));
	}
	if (!k)
		fputs("<p>No data access could be placed in a file.</p>\n", out);
	fputs("</div>\n", out);
}

static void rank_table(FILE *out, const size_t *byns)
{
	size_t i, n = R->nranks < RP_TOPN ? R->nranks : RP_TOPN;
	char b0[32], b1[32], b2[32], name[32];

	fputs("<h2 id=\"ranks\">Ranks</h2>\n", out);
	if (R->nranks) {
		rank_name(name, sizeof(name), &R->ranks[byns[0]]);
		fprintf(out, "<p>Slowest rank: <b>%s</b>, %s in I/O calls (median %s, fastest %s).",
			name, fmt_ns(b0, sizeof(b0), acc_ns(&R->ranks[byns[0]].a)),
			fmt_ns(b1, sizeof(b1), acc_ns(&R->ranks[byns[R->nranks / 2]].a)),
			fmt_ns(b2, sizeof(b2), acc_ns(&R->ranks[byns[R->nranks - 1]].a)));
		if (R->nranks > n)
			fprintf(out, " The table shows the %zu of %zu ranks with the most time in "
				"I/O.", n, R->nranks);
		fputs("</p>\n", out);
	}
	fputs("<table id=\"rank-table\">\n", out);
	acc_header(out, "rank");
	fputs("<th class=\"l\">host</th><th>I/O time</th></tr>\n", out);
	for (i = 0; i < n; i++) {
		const struct rp_rank *rk = &R->ranks[byns[i]];
		rank_name(name, sizeof(name), rk);
		fprintf(out, "<tr><td class=\"l\">%s</td>", name);
		acc_cells(out, &rk->a);
		fputs("<td class=\"l\">", out);
		html_esc(out, R->hosts[rk->host]);
		fprintf(out, "</td><td>%s</td></tr>\n", fmt_ns(b0, sizeof(b0), acc_ns(&rk->a)));
	}
	fputs("</table>\n", out);
}

/* Time in I/O calls per rank row, one bar each, split by layer. */
static void rank_chart(FILE *out, const size_t *ix)
{
	static const char *const lc[TG_LAYER_COUNT] = { "#4e79a7", "#59a14f", "#bab0ac",
		"#e15759", "#b07aa1" };
	int nrow = R->nranks < RP_ROWS ? (int)R->nranks : RP_ROWS, r, l;
	uint64_t ns[RP_ROWS][TG_LAYER_COUNT], max = 1;
	double bh = nrow > 32 ? 6 : 14;
	char t[128], b0[32], first[32], last[32];
	size_t i, lo;

	memset(ns, 0, sizeof(ns));
	for (i = 0; i < R->nranks; i++)
		for (l = 0; l < TG_LAYER_COUNT; l++)
			ns[i * (size_t)nrow / R->nranks][l] += R->ranks[ix[i]].a.ns[l];
	for (r = 0; r < nrow; r++) {
		uint64_t s = 0;
		for (l = 0; l < TG_LAYER_COUNT; l++)
			s += ns[r][l];
		if (s > max)
			max = s;
	}
	svg_open(out, "chart-ranks", W, (int)(nrow * bh + 40), "Time in I/O calls per rank, by layer");
	for (r = 0, lo = 0; r < nrow; r++) {
		double x = LEFT;
		size_t hi = lo;
		while (hi < R->nranks && hi * (size_t)nrow / R->nranks == (size_t)r)
			hi++;
		rank_name(first, sizeof(first), &R->ranks[ix[lo]]);
		rank_name(last, sizeof(last), &R->ranks[ix[hi - 1]]);
		if (nrow <= 32 || r % 8 == 0)
			svg_text(out, LEFT - 4, r * bh + bh - 1, "end", hi - lo > 1 ? "ranks %s-%s" : "rank %s",
				 first, last);
		for (l = 0; l < TG_LAYER_COUNT; l++) {
			double w = (double)(W - LEFT - 10) * (double)ns[r][l] / (double)max;
			if (!ns[r][l])
				continue;
			snprintf(t, sizeof(t), "%s %s: %s", hi - lo > 1 ? "ranks" : "rank", first,
				 fmt_ns(b0, sizeof(b0), ns[r][l]));
			snprintf(t + strlen(t), sizeof(t) - strlen(t), " in %s", tg_layer_name(l));
			svg_rect(out, x, r * bh, w, bh - 1, lc[l], t);
			x += w;
		}
		lo = hi;
	}
	for (l = 0, r = 0; l < TG_LAYER_COUNT; l++)
		if (L & 1u << l) {
			svg_rect(out, LEFT + r * 90, nrow * bh + 12, 10, 10, lc[l], NULL);
			svg_text(out, LEFT + r++ * 90 + 14, nrow * bh + 21, "start", "%s",
				 tg_layer_name(l));
		}
	svg_text(out, W - 10, nrow * bh + 21, "end", "longest: %s", fmt_ns(b0, sizeof(b0), max));
	svg_close(out);
}

static int cmp_func(const void *a, const void *b)
{
	uint64_t x = R->funcs[*(const size_t *)a], y = R->funcs[*(const size_t *)b];

	return x < y ? 1 : x > y ? -1 : (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* The most called functions of each layer. */
static void functions(FILE *out)
{
	size_t *ix = order(R->nfuncs, cmp_func), i;
	const char *label[12];
	uint64_t v[12];
	int l, n, y = 4, h = 8;

	for (l = 0; l < TG_LAYER_COUNT; l++) {
		for (i = 0, n = 0; i < R->nfuncs && n < 12 && R->funcs[ix[i]]; i++)
			if (tg_call_lookup((unsigned)ix[i]) && tg_call_lookup((unsigned)ix[i])->layer == l)
				n++;
		h += n ? 22 + n * 14 : 0;
	}
	fputs("<h2 id=\"functions\">Functions</h2>\n", out);
	svg_open(out, "chart-functions", W, h, "Calls per function, by layer");
	for (l = 0; l < TG_LAYER_COUNT; l++) {
		for (i = 0, n = 0; i < R->nfuncs && n < 12 && R->funcs[ix[i]]; i++) {
			const struct tg_calldesc *d = tg_call_lookup((unsigned)ix[i]);
			if (d && d->layer == l) {
				label[n] = d->name;
				v[n++] = R->funcs[ix[i]];
			}
		}
		if (!n)
			continue;
		svg_text(out, 4, y + 12, "start", "%s (%" PRIu64 " calls)", tg_layer_name(l), R->calls[l]);
		hbars(out, y + 18, n, label, v, "#76b7b2", "calls");
		y += 22 + n * 14;
	}
	svg_close(out);
	free(ix);
}

static int cmp_cpair(const void *a, const void *b)
{
	const struct rp_cpair *x = &R->cpairs[*(const size_t *)a], *y = &R->cpairs[*(const size_t *)b];

	if (x->unsync != y->unsync)
		return x->unsync < y->unsync ? 1 : -1;
	return x->n < y->n ? 1 : x->n > y->n ? -1 : 0;
}

static void conf_table(FILE *out)
{
	static const char *const mn[3] = { "posix", "commit", "session" };
	size_t i;
	int m;

	fputs("<table id=\"conflict-table\">\n<tr><th class=\"l\">file</th><th>RAW-S</th>"
	      "<th>RAW-D</th><th>WAW-S</th><th>WAW-D</th><th>not synchronised</th>"
	      "<th>ordered</th><th>by a commit</th><th>by close-open</th>", out);
	for (m = 0; m < 3; m++)
		fprintf(out, "<th>conflicts under %s</th>", mn[m]);
	fputs("</tr>\n", out);
	for (i = 0; i < R->ncfiles; i++) {
		const struct rp_cfile *f = &R->cfiles[i];
		uint64_t un = f->unsync[0][0] + f->unsync[0][1] + f->unsync[1][0] + f->unsync[1][1];
		fputs("<tr><td class=\"l\">", out);
		html_esc(out, f->path);
		fprintf(out, "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%"
			PRIu64 "</td><td%s>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64
			"</td><td>%" PRIu64 "</td>", f->pairs[0][0], f->pairs[0][1], f->pairs[1][0],
			f->pairs[1][1], un ? " class=\"warn\"" : "", un, f->by[0], f->by[1], f->by[2]);
		for (m = 0; m < 3; m++)
			fprintf(out, "<td>%" PRIu64 "</td>", f->conf[m][0][0] + f->conf[m][0][1] +
				f->conf[m][1][0] + f->conf[m][1][1]);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* Per file, the pairs split by what ordered them. */
static void conf_chart(FILE *out)
{
	static const char *const what[4] = { "not synchronised", "ordered (safe under posix)",
		"a commit between (safe under commit)", "close before open (safe under session)" };
	static const char *const col[4] = { "#d62728", "#2ca02c", "#1f77b4", "#9467bd" };
	size_t i, n = R->ncfiles < RP_TOPN ? R->ncfiles : RP_TOPN;
	uint64_t max = 1;
	int k;

	for (i = 0; i < n; i++) {
		const struct rp_cfile *f = &R->cfiles[i];
		uint64_t s = f->pairs[0][0] + f->pairs[0][1] + f->pairs[1][0] + f->pairs[1][1];
		if (s > max)
			max = s;
	}
	svg_open(out, "chart-conflicts", W, (int)(n * 16 + 40),
		 "Overlapping pairs per file, by what made them safe");
	for (i = 0; i < n; i++) {
		const struct rp_cfile *f = &R->cfiles[i];
		uint64_t v[4] = { f->unsync[0][0] + f->unsync[0][1] + f->unsync[1][0] +
				  f->unsync[1][1], f->by[0], f->by[1], f->by[2] };
		const char *base = strrchr(f->path, '/');
		double x = LEFT;
		svg_text(out, LEFT - 4, i * 16 + 11, "end", "%.24s", base ? base + 1 : f->path);
		for (k = 0; k < 4; k++) {
			char t[160];
			double w = (double)(W - LEFT - 10) * (double)v[k] / (double)max;
			if (!v[k])
				continue;
			snprintf(t, sizeof(t), "%" PRIu64 " pairs: %s", v[k], what[k]);
			svg_rect(out, x, i * 16, w, 14, col[k], t);
			x += w;
		}
	}
	for (k = 0; k < 4; k++) {
		svg_rect(out, 10 + k * 210, n * 16 + 12, 10, 10, col[k], NULL);
		svg_text(out, 24 + k * 210, n * 16 + 21, "start", "%s", what[k]);
	}
	svg_close(out);
}

static void conflicts(FILE *out)
{
	size_t *ix, i, n;

	fputs("<h2 id=\"conflicts\">Conflicts</h2>\n", out);
	if (R->recommended) {
		fputs("<p>Recommended consistency: <b id=\"recommended\">", out);
		html_esc(out, R->recommended);
		fputs("</b> (the weakest model under which no pair between processes conflicts; "
		      "what <code>TFS_CONSISTENCY</code> takes).</p>\n", out);
	}
	fprintf(out, "<p class=\"note\">Pairs of overlapping accesses with a write, ordered by ");
	html_esc(out, R->ordered_by ? R->ordered_by : "time");
	fputs(". RAW/WAW: read or write after a write; S/D: same or different processes.</p>\n", out);
	if (!R->ncfiles) {
		fputs("<p>No overlapping accesses.</p>\n", out);
		return;
	}
	conf_table(out);
	conf_chart(out);
	ix = order(R->ncpairs, cmp_cpair);
	n = R->ncpairs < RP_TOPN ? R->ncpairs : RP_TOPN;
	fputs("<table id=\"pair-table\">\n<tr><th>rank</th><th>rank</th><th class=\"l\">file</th>"
	      "<th>pairs</th><th>not synchronised</th></tr>\n", out);
	for (i = 0; i < n; i++) {
		const struct rp_cpair *p = &R->cpairs[ix[i]];
		fprintf(out, "<tr><td>%" PRId64 "</td><td>%" PRId64 "</td><td class=\"l\">", p->a, p->b);
		html_esc(out, R->cfiles[p->file].path);
		fprintf(out, "</td><td>%" PRIu64 "</td><td%s>%" PRIu64 "</td></tr>\n", p->n,
			p->unsync ? " class=\"warn\"" : "", p->unsync);
	}
	fputs("</table>\n", out);
	if (R->ncpairs > n || R->cpairs_other)
		fprintf(out, "<p class=\"note\">%zu more rank pairs%s.</p>\n", R->ncpairs - n,
			R->cpairs_other ? ", and pairs past the table's size" : "");
	free(ix);
}

void rp_html_write(FILE *out, const struct rp_run *run)
{
	size_t *byrank, *byns, *fx, i;
	int l;

	R = run;
	for (i = 0, L = 0; i < run->nranks; i++)
		for (l = 0; l < TG_LAYER_COUNT; l++)
			L |= run->ranks[i].a.ns[l] ? 1u << l : 0;
	byrank = order(run->nranks, cmp_rank_num);
	byns = order(run->nranks, cmp_rank_ns);
	fx = order(run->nfiles, cmp_file_bytes);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
	      "<meta name=\"generator\" content=\"trace-report " TG_VERSION "\"/>\n<title>Tangram "
	      "report: ", out);
	html_esc(out, run->program ? run->program : "trace");
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>Tangram report</h1>\n", css);
	fputs("<p class=\"note\"><a href=\"#summary\">run</a> &#183; <a href=\"#activity\">I/O over "
	      "time</a> &#183; <a href=\"#ranks\">ranks</a> &#183; <a href=\"#files\">files</a>"
	      " &#183; <a href=\"#patterns\">access patterns</a> &#183; <a href=\"#sizes\">"
	      "sizes</a> &#183; <a href=\"#functions\">functions</a>", out);
	if (run->have_conf)
		fputs(" &#183; <a href=\"#conflicts\">conflicts</a>", out);
	fputs("</p>\n", out);
	summary(out);
	if (run->have_conf)
		conflicts(out);
	activity(out, byrank);
	rank_table(out, byns);
	rank_chart(out, byrank);
	file_table(out, fx);
	offsets(out, fx);
	sizes(out);
	functions(out);
	fprintf(out, "<script>%s</script>\n</body>\n</html>\n", js);
	free(byrank);
	free(byns);
	free(fx);
}
