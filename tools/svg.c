/*
 * svg.c -- the chart of 'splitzip stats --svg': one panel per tensor with its exponent histogram
 * (log scale; the 16 most frequent exponents, which a split4 codebook holds, in blue, the rest,
 * which would be escapes, in orange) and its figures, then the share of elements outside the k
 * most frequent exponents for k = 1..32 (the escape rate of a k-entry codebook), one line per
 * tensor. Hand-written SVG 1.1: no library, renders in browsers and with rsvg-convert.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define W 960
#define X0 80         /* plot area, left */
#define X1 930        /* plot area, right */
#define PANEL_H 175   /* one histogram panel */
#define PLOT_H 110    /* its bars' height */
#define MAX_PANELS 24 /* tensors drawn */
#define COV_H 300     /* the coverage panel */
#define LOG_DECADES 6 /* histogram y axis: 100% down to 1e-4 % */

static const char *const palette[10] = {"#4878d0", "#ee854a", "#6acc64", "#d65f5f", "#956cb4",
                                        "#8c613c", "#dc7ec0", "#797979", "#d5bb67", "#82c6e2"};

/* XML text: & < > " escaped; control bytes are already gone (st_printable). */
static void xml_text(FILE *f, const char *s)
{
	char buf[160];
	st_printable(s, buf, sizeof buf);
	for (const char *p = buf; *p; p++) {
		if (*p == '&')
			fputs("&amp;", f);
		else if (*p == '<')
			fputs("&lt;", f);
		else if (*p == '>')
			fputs("&gt;", f);
		else if (*p == '"')
			fputs("&quot;", f);
		else
			fputc(*p, f);
	}
}

/* y of a share (0..1] on a log axis of LOG_DECADES decades ending at 'bottom'. */
static double log_y(double share, double bottom, double height, int decades)
{
	double l = share > 0 ? log10(share) : -decades;
	if (l < -decades)
		l = -decades;
	return bottom - (l + decades) / decades * height;
}

static void log_axis(FILE *f, double bottom, double height, int decades, int step)
{
	for (int d = 0; d <= decades; d += step) {
		double y = log_y(pow(10.0, -d), bottom, height, decades);
		fprintf(f,
		        "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ddd'/>"
		        "<text x='%d' y='%.1f' text-anchor='end' class='s'>%.*f%%</text>\n",
		        X0, y, X1, y, X0 - 6, y + 4, d > 2 ? d - 2 : 0, 100.0 * pow(10.0, -d));
	}
}

/* The exponent range drawn: the nonzero bins, widened to at least 24. */
static void range_of(const tstat *t, int *lo, int *hi)
{
	*lo = 255;
	*hi = 0;
	for (int e = 0; e < 256; e++)
		if (t->hist[e]) {
			*lo = e < *lo ? e : *lo;
			*hi = e > *hi ? e : *hi;
		}
	if (*lo > *hi)
		*lo = *hi = 127;
	while (*hi - *lo + 1 < 24) {
		*lo = *lo > 0 ? *lo - 1 : *lo;
		*hi = *hi < 255 ? *hi + 1 : *hi;
	}
}

static void panel_title(FILE *f, const tstat *t, double y)
{
	fprintf(f, "<text x='%d' y='%.1f' class='h'>", X0, y);
	xml_text(f, t->name);
	fprintf(f,
	        "</text><text x='%d' y='%.1f' text-anchor='end' class='s'>%llu elements, entropy "
	        "%.2f bits, top-8 %.2f%%, top-16 %.3f%%, %s ratio %.4fx</text>\n",
	        X1, y, (unsigned long long)t->n, t->entropy, 100 * t->top8, 100 * t->top16,
	        t->code == SPLITZIP_DTYPE_BF16 ? "split4" : "predicted",
	        t->predicted ? (double)(splitzip_dtype_width(t->code) * t->n) / (double)t->predicted
	                     : 0.0);
}

static void histogram_panel(FILE *f, const tstat *t, double y0)
{
	int lo, hi, in_cb[256] = {0};
	range_of(t, &lo, &hi);
	for (int k = 0; k < SPLITZIP_CODEBOOK_SIZE; k++)
		in_cb[t->codebook.exponents[k]] = 1;
	double bottom = y0 + 30 + PLOT_H, bw = (double)(X1 - X0) / (hi - lo + 1);
	panel_title(f, t, y0 + 18);
	log_axis(f, bottom, PLOT_H, LOG_DECADES, 2);
	if (!t->n)
		fprintf(f,
		        "<text x='%d' y='%.1f' text-anchor='middle' class='h'>no elements</text>\n",
		        (X0 + X1) / 2, bottom - PLOT_H / 2);
	for (int e = lo; e <= hi; e++) {
		if (!t->hist[e])
			continue;
		double y = log_y((double)t->hist[e] / (double)t->n, bottom, PLOT_H, LOG_DECADES);
		fprintf(f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='%s'/>\n",
		        X0 + (e - lo) * bw + 0.5, y, bw > 2 ? bw - 1 : bw, bottom - y,
		        in_cb[e] ? palette[0] : palette[1]);
	}
	int every = (hi - lo + 1 + 15) / 16;
	for (int e = lo; e <= hi; e += every)
		fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='middle' class='s'>%d</text>\n",
		        X0 + (e - lo + 0.5) * bw, bottom + 14, e - tstat_bias(t));
	fprintf(f,
	        "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#444'/>"
	        "<text x='%d' y='%.1f' text-anchor='end' class='s'>exponent e of 2^e</text>\n",
	        X0, bottom, X1, bottom, X1, bottom + 28);
}

/* Share of elements outside the k most frequent exponents, k = 0..32. */
static void uncovered(const tstat *t, double out[33])
{
	uint64_t c[256], acc = 0;
	memcpy(c, t->hist, sizeof c);
	for (int k = 0; k <= 32; k++) {
		out[k] = t->n ? 1.0 - (double)acc / (double)t->n : 0.0;
		int best = 0;
		for (int e = 1; e < 256; e++)
			best = c[e] > c[best] ? e : best;
		acc += c[best];
		c[best] = 0;
	}
}

static void coverage_lines(FILE *f, const tstat *const *t, size_t n, double bottom, double h)
{
	double xs = (double)(X1 - X0) / 31;
	for (size_t i = 0; i < n; i++) {
		double u[33];
		if (!t[i]->n) /* an empty tensor has no curve */
			continue;
		uncovered(t[i], u);
		fprintf(f, "<polyline fill='none' stroke-width='1.5' stroke='%s' points='",
		        palette[i % 10]);
		for (int k = 1; k <= 32; k++)
			fprintf(f, "%.1f,%.1f ", X0 + (k - 1) * xs, log_y(u[k], bottom, h, 7));
		fprintf(f, "'/>\n<text x='%d' y='%.1f' class='s' fill='%s'>", X1 - 220,
		        bottom - h + 14 + 13.0 * (double)i, palette[i % 10]);
		xml_text(f, t[i]->name);
		fputs("</text>\n", f);
	}
	for (int k = 1; k <= 32; k += k < 8 ? 1 : 4)
		fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='middle' class='s'>%d</text>\n",
		        X0 + (k - 1) * xs, bottom + 14, k);
	for (int k = 8; k <= 16; k += 8)
		fprintf(f,
		        "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#888' "
		        "stroke-dasharray='4,3'/>\n",
		        X0 + (k - 1) * xs, bottom - h, X0 + (k - 1) * xs, bottom);
}

static void coverage_panel(FILE *f, const tstat *const *t, size_t n, double y0)
{
	double bottom = y0 + 40 + COV_H - 80, h = COV_H - 80;
	fprintf(f,
	        "<text x='%d' y='%.1f' class='h'>Elements outside the k most frequent exponents "
	        "(the escape rate of a k-entry codebook; split4 has k = 16)</text>\n",
	        X0, y0 + 18);
	log_axis(f, bottom, h, 7, 1);
	coverage_lines(f, t, n, bottom, h);
	fprintf(f,
	        "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#444'/>"
	        "<text x='%d' y='%.1f' text-anchor='end' class='s'>k</text>\n",
	        X0, bottom, X1, bottom, X1, bottom + 28);
}

void svg_chart(FILE *f, const tstat *const *t, size_t n, const char *title)
{
	size_t shown = n < MAX_PANELS ? n : MAX_PANELS;
	double height = 70 + (double)shown * PANEL_H + COV_H + (n > shown ? 20 : 0);
	fprintf(f,
	        "<?xml version='1.0' encoding='UTF-8'?>\n"
	        "<svg xmlns='http://www.w3.org/2000/svg' version='1.1' width='%d' height='%.0f' "
	        "viewBox='0 0 %d %.0f' font-family='DejaVu Sans, Arial, sans-serif'>\n"
	        "<style>.h{font-size:13px;font-weight:bold}.s{font-size:10px}"
	        ".t{font-size:16px;font-weight:bold}</style>\n"
	        "<rect width='100%%' height='100%%' fill='white'/>\n<text x='%d' y='26' class='t'>",
	        W, height, W, height, X0);
	xml_text(f, title);
	fprintf(f,
	        "</text>\n<text x='%d' y='46' class='s'>Exponent histograms, share of elements "
	        "(log scale): blue = the 16 most frequent exponents, orange = the others (escapes "
	        "with that codebook)</text>\n",
	        X0);
	for (size_t i = 0; i < shown; i++)
		histogram_panel(f, t[i], 60 + (double)i * PANEL_H);
	double y = 60 + (double)shown * PANEL_H;
	if (n > shown) {
		fprintf(f, "<text x='%d' y='%.1f' class='s'>%zu more tensors not drawn</text>\n",
		        X0, y + 10, n - shown);
		y += 20;
	}
	if (n == 0)
		fprintf(f, "<text x='%d' y='%.1f' class='h'>no BF16 tensors</text>\n", X0, y + 20);
	else
		coverage_panel(f, t, shown, y);
	fputs("</svg>\n", f);
}
