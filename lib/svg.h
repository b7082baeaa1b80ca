/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A small SVG writer for `ntprof plot`: escaped text and attributes, the
 * few elements the plots use, and axes with "nice" ticks (1, 2 or 5 times a
 * power of ten; on a log scale the same over a short span, else the powers
 * of ten). Presentation only: the numbers come from SQL (sql/plot.sql).
 */
#ifndef NTP_SVG_H
#define NTP_SVG_H

#include <stdio.h>

/* The first bytes of every file ntprof plot writes: it overwrites only
 * files that start with them. */
#define SVG_MARK "<!-- ntprof plot"

#define SVG_MAX_TICKS 24

/* One axis: values LO..HI drawn from pixel PX0 to PX1. */
struct svg_axis {
	double lo, hi;            /* the range shown (the outer ticks) */
	double px0, px1;          /* where lo and hi are drawn */
	int log;                  /* log10 scale (lo > 0) */
	int n;                    /* ticks */
	double tick[SVG_MAX_TICKS];
	int decimals;             /* for the tick labels */
};

/* Write S with &, <, >, " and ' escaped: for text and attribute values. */
void svg_esc(FILE *f, const char *s);

/* printf, then escaped. */
__attribute__((format(printf, 2, 3)))
void svg_escf(FILE *f, const char *fmt, ...);

/* The root element (W x H px) with its title and the plots' style, and its
 * end. KIND names the plot (class "ntprof-plot KIND"). */
void svg_begin(FILE *f, const char *kind, int w, int h, const char *title);
void svg_end(FILE *f);

/* Text at X, Y: ANCHOR start, middle or end; CLS its class. */
__attribute__((format(printf, 6, 7)))
void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls,
	      const char *fmt, ...);

/* Ticks covering LO..HI, at most about MAX of them; sets a's range to the
 * outer ticks. LOG: a log10 scale (LO > 0, else linear) from the largest
 * 1, 2 or 5 x 10^k at or below LO to the smallest at or above HI, ticked at
 * each 1, 2 and 5 x 10^k when there are at most MAX of them, else at its
 * ends and the powers of ten between. */
void svg_axis_fit(struct svg_axis *a, double lo, double hi, int max, int log);

/* Value V's pixel on the axis; on a log axis, a value at or below 0 is at
 * its start (px0). */
double svg_px(const struct svg_axis *a, double v);

/* An x axis at pixel row Y (tick marks down to Y + 5, labels below), and a
 * y axis at pixel column X; TITLE under or beside it. Class "axis x" or
 * "axis y", data-min and data-max its range; each tick a "tick" group with
 * data-value. */
void svg_axis_x(FILE *f, const struct svg_axis *a, double y, const char *title);
void svg_axis_y(FILE *f, const struct svg_axis *a, double x, const char *title);

#endif
