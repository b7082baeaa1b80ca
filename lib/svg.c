// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SVG writer of `ntprof plot` (svg.h): no library, no script, plain
 * elements with class names a reader (or a test) can find.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "svg.h"

void svg_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			/* control characters (from a recording) are not XML */
			fputc((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t' ? '?' : *s, f);
		}
	}
}

void svg_escf(FILE *f, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	svg_esc(f, buf);
}

void svg_begin(FILE *f, const char *kind, int w, int h, const char *title)
{
	fprintf(f, SVG_MARK " -->\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ntprof-plot %s\" width=\"%d\""
		" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\""
		" font-size=\"12\">\n",
		kind, w, h, w, h);
	fputs("<title>", f);
	svg_esc(f, title);
	fputs("</title>\n"
	      "<style>.axis line{stroke:#444;stroke-width:1}.grid{stroke:#ddd;stroke-width:1}"
	      ".axis text{fill:#222}.title{font-size:15px;font-weight:bold}"
	      "polyline{fill:none;stroke-width:1.5}</style>\n"
	      "<rect class=\"background\" width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", f);
	svg_text(f, 10, 20, "start", "title", "%s", title);
}

void svg_end(FILE *f)
{
	fputs("</svg>\n", f);
}

void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls,
	      const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"%s\">", x, y, anchor,
		cls);
	svg_esc(f, buf);
	fputs("</text>\n", f);
}

/* 1, 2 or 5 times a power of ten, the smallest that makes at most MAX
 * steps of LO..HI. */
static double nice_step(double span, int max)
{
	double raw = span / max, p = pow(10, floor(log10(raw)));

	for (int i = 0; i < 3; i++) {
		double m = (double[]){ 1, 2, 5 }[i];

		if (m * p >= raw)
			return m * p;
	}
	return 10 * p;
}

static void fit_linear(struct svg_axis *a, double lo, double hi, int max)
{
	double step;

	if (!(hi > lo))
		hi = lo + (lo ? fabs(lo) : 1);
	step = nice_step(hi - lo, max);
	a->lo = floor(lo / step) * step;
	a->hi = ceil(hi / step) * step;
	a->n = 0;
	/* the ticks counted, not summed: no drift past hi */
	for (int i = 0; a->n < SVG_MAX_TICKS; i++) {
		double t = a->lo + i * step;

		if (t > a->hi + step / 2)
			break;
		a->tick[a->n++] = fabs(t) < step / 1e6 ? 0 : t;
	}
	a->decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
}

/* 1, 2 or 5 times a power of ten: the smallest at or above V (UP), or the
 * largest at or below it. */
static double nice125(double v, int up)
{
	double p = pow(10, floor(log10(v))), best = up ? 10 * p : p;

	for (int i = 0; i < 4; i++) {
		double t = (double[]){ 1, 2, 5, 10 }[i] * p;

		/* a rounding error of log10 or pow is not a step */
		if (up && t >= v * (1 - 1e-9) && t < best)
			best = t;
		if (!up && t <= v * (1 + 1e-9))
			best = t;
	}
	return best;
}

/* Ticks at 1, 2 and 5 times the powers of ten from LO to HI, when there
 * are at most MAX of them; else 0. */
static int fit_log125(struct svg_axis *a, double lo, double hi, int max)
{
	int n = 0;

	lo = nice125(lo, 0);
	hi = nice125(hi, 1);
	if (hi <= lo * (1 + 1e-9))
		hi = nice125(lo * 1.5, 1);
	for (int e = (int)floor(log10(lo) + 1e-9); n <= max && e <= (int)ceil(log10(hi)); e++)
		for (int i = 0; i < 3; i++) {
			double t = (double[]){ 1, 2, 5 }[i] * pow(10, e);

			if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9) && n < SVG_MAX_TICKS)
				a->tick[n++] = t;
		}
	if (n > max || n < 2)
		return 0;
	a->n = n;
	a->lo = lo;
	a->hi = hi;
	return 1;
}

/* More than MAX ticks at 1, 2 and 5 times the powers of ten: the range
 * still from 1, 2 or 5 x 10^k to 1, 2 or 5 x 10^k, ticked at its ends and at
 * the powers of ten between them (an end that is one ticked once). */
static void fit_log(struct svg_axis *a, double lo, double hi, int max)
{
	int e0, e1, step;

	if (!fit_log125(a, lo, hi, max)) {
		a->lo = nice125(lo, 0);
		a->hi = nice125(hi, 1);
		e0 = (int)ceil(log10(a->lo * 2) - 1e-9);
		e1 = (int)floor(log10(a->hi / 2) + 1e-9);
		/* every STEP-th power when there are more than the ticks */
		step = (e1 - e0 + 1 + SVG_MAX_TICKS - 3) / (SVG_MAX_TICKS - 2);
		a->n = 0;
		a->tick[a->n++] = a->lo;
		for (int e = e0; e <= e1; e += step > 1 ? step : 1)
			a->tick[a->n++] = pow(10, e);
		a->tick[a->n++] = a->hi;
	}
	e0 = (int)floor(log10(a->lo) + 1e-9);
	a->decimals = e0 < 0 ? -e0 : 0;
}

void svg_axis_fit(struct svg_axis *a, double lo, double hi, int max, int log)
{
	a->log = log && lo > 0;
	if (a->log)
		fit_log(a, lo, hi, max);
	else
		fit_linear(a, lo, hi, max);
}

double svg_px(const struct svg_axis *a, double v)
{
	double r;

	if (a->log && v <= 0)
		return a->px0;
	r = a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo))
		   : (v - a->lo) / (a->hi - a->lo);
	return a->px0 + r * (a->px1 - a->px0);
}

/* A tick label's decimals: the axis's, or on a log scale the tick's own
 * (0.01, 0.1, 1, 10). */
static int tick_decimals(const struct svg_axis *a, int i)
{
	int e = (int)floor(log10(a->tick[i]) + 1e-9);

	return a->log ? (e < 0 ? -e : 0) : a->decimals;
}

static void axis_open(FILE *f, const struct svg_axis *a, const char *dir)
{
	fprintf(f, "<g class=\"axis %s\" data-min=\"%.*f\" data-max=\"%.*f\" data-scale=\"%s\">\n",
		dir, a->decimals, a->lo, a->decimals, a->hi, a->log ? "log" : "linear");
}

void svg_axis_x(FILE *f, const struct svg_axis *a, double y, const char *title)
{
	axis_open(f, a, "x");
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", a->px0, y, a->px1,
		y);
	for (int i = 0; i < a->n; i++) {
		double x = svg_px(a, a->tick[i]);

		fprintf(f, "<g class=\"tick\" data-value=\"%.*f\"><line x1=\"%.1f\" y1=\"%.1f\""
			" x2=\"%.1f\" y2=\"%.1f\"/>", a->decimals, a->tick[i], x, y, x, y + 5);
		svg_text(f, x, y + 18, "middle", "tick-label", "%.*f", tick_decimals(a, i),
			 a->tick[i]);
		fputs("</g>\n", f);
	}
	svg_text(f, (a->px0 + a->px1) / 2, y + 36, "middle", "axis-title", "%s", title);
	fputs("</g>\n", f);
}

void svg_axis_y(FILE *f, const struct svg_axis *a, double x, const char *title)
{
	double mid = (a->px0 + a->px1) / 2;

	axis_open(f, a, "y");
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, a->px0, x,
		a->px1);
	for (int i = 0; i < a->n; i++) {
		double y = svg_px(a, a->tick[i]);

		fprintf(f, "<g class=\"tick\" data-value=\"%.*f\"><line x1=\"%.1f\" y1=\"%.1f\""
			" x2=\"%.1f\" y2=\"%.1f\"/>", a->decimals, a->tick[i], x - 5, y, x, y);
		svg_text(f, x - 8, y + 4, "end", "tick-label", "%.*f", tick_decimals(a, i),
			 a->tick[i]);
		fputs("</g>\n", f);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis-title\""
		" transform=\"rotate(-90 %.1f %.1f)\">", x - 52, mid, x - 52, mid);
	svg_esc(f, title);
	fputs("</text>\n</g>\n", f);
}
