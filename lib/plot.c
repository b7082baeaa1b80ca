// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof plot: the runs of a session drawn as SVG (svg.h), every number
 * from sql/plot.sql's views; this file only lays them out. stages.svg holds
 * a stacked bar of the stages' means per group and run, tails.svg one per
 * group, run and band of end-to-end latency (p0-50 ... p99.9-100),
 * cdf-F.svg the components' latency CDFs of the groups of one operation and
 * size (figure F), a small panel per component with every run's line in
 * it, timeline.svg the rate, the latency, the commands in flight and the
 * stages' shares over time, and index.html all of them, inlined: one file,
 * no script, nothing fetched.
 * A stage has one colour in every plot (ntp_plot_colour), a run one line
 * style (ntp_plot_line), and the legends name both.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ntp_err.h"
#include "ntp_exec.h"
#include "ntp_plot.h"
#include "svg.h"

#define MAX_FILES (NTP_MAX_DBS * 64 + 4) /* cdf-F.svg, stages, tails, timeline, index */
#define WIDTH 960     /* px, every plot */
#define LEFT 240      /* the bars' labels */
#define TOP 44        /* under the title */
#define BAR_H 20      /* one bar */
#define ROW 18        /* a legend's or a note's line */
#define COLS 3        /* CDF panels a row */
#define CELL_W 310    /* a CDF panel's cell */
#define CELL_H 186
#define CDF_H 110     /* its plot area's height */
#define SERIES_H 120  /* a time series panel's plot area's height */
#define SERIES_GAP 62 /* under it: its time axis */
#define MAX_KEYS 32   /* a legend's entries */
#define MAX_LABELS 4  /* an entry's labels */
#define MAX_NOTES 8   /* a plot's notes' lines */
#define P99_OPACITY 0.45 /* the p99 latency's line: end to end's colour, lighter */

/* A plotted group (ntp_plot_group): its figure, run and how it is drawn. */
struct pgroup {
	int n, figure, run_ord;
	char *run, *name, *title;
	char *line, *dash;           /* its run's line style and stroke-dasharray */
};

/* A file to write: its name in the directory and its text. */
struct pfile {
	char name[32];
	char *text;
	size_t len;
};

/* A row of the plot views as the plots read them: the plotted group, the
 * order and name of its item (stage or component), its label and colour,
 * a second name (SUB: the CDF's stage, a bar's own label), then up to eight
 * numbers (SEG_, CDF_, TS_ say which). */
struct row {
	int n, ord;
	char key[32], label[96], colour[16], sub[32];
	double v[8];
};

struct plot {
	struct ntp_session *s;
	const struct ntp_plot_opts *o;
	struct pgroup *g;
	int ng;
	struct row *st;               /* ntp_plot_stage: the stages' labels */
	int nst;
	char e2e[16];                 /* end to end's colour (ntp_plot_colour) */
	struct pfile file[MAX_FILES];
	int nfiles;
	FILE *f;      /* the file being laid out (open_memstream) */
	int dfd;      /* the directory -o names, opened (check_dir); -1: not yet */
};

/* The groups the filter keeps, joined as g, ?1 the filter. */
#define PLOTTED " JOIN ntp_plot_group AS g ON g.n = x.n" \
	" WHERE (?1 IS NULL OR instr(lower(g.name), lower(?1)) > 0)"

static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *v = sqlite3_column_text(st, i);

	return v ? (const char *)v : "";
}

static sqlite3_stmt *query(struct plot *p, const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(p->s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (p->o->group && sqlite3_bind_parameter_count(st))
		sqlite3_bind_text(st, 1, p->o->group, -1, SQLITE_STATIC);
	return st;
}

/* The plotted group N, or NULL. */
static const struct pgroup *group_at(const struct plot *p, int n)
{
	for (int i = 0; i < p->ng; i++)
		if (p->g[i].n == n)
			return &p->g[i];
	return NULL;
}

static int figure_of(const struct plot *p, int n)
{
	const struct pgroup *g = group_at(p, n);

	return g ? g->figure : 0;
}

static int load_groups(struct plot *p)
{
	sqlite3_stmt *st = query(p, "SELECT g.n, g.figure, g.run_ord, g.run, g.name, g.title,"
				 " g.line, g.dash FROM ntp_plot_group AS x" PLOTTED
				 " ORDER BY g.n");
	int rc;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct pgroup *g = realloc(p->g, (p->ng + 1) * sizeof(*g));

		if (!g)
			break;
		p->g = g;
		g += p->ng++;
		g->n = sqlite3_column_int(st, 0);
		g->figure = sqlite3_column_int(st, 1);
		g->run_ord = sqlite3_column_int(st, 2);
		g->run = strdup(col(st, 3));
		g->name = strdup(col(st, 4));
		g->title = strdup(col(st, 5));
		g->line = strdup(col(st, 6));
		g->dash = strdup(col(st, 7));
		if (!g->run || !g->name || !g->title || !g->line || !g->dash)
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Start laying out file NAME. */
static int file_begin(struct plot *p, const char *name)
{
	struct pfile *pf = &p->file[p->nfiles];

	if (p->nfiles >= MAX_FILES)
		return -1;
	snprintf(pf->name, sizeof(pf->name), "%s", name);
	p->f = open_memstream(&pf->text, &pf->len);
	return p->f ? 0 : -1;
}

static int file_end(struct plot *p)
{
	int rc = fclose(p->f);

	p->f = NULL;
	p->nfiles++;
	return rc ? -1 : 0;
}

/* SEG_: ntp_plot_stage's numbers (and a stacked chart's); CDF_:
 * ntp_plot_cdf's; TS_: ntp_plot_series' and ntp_plot_series_stage's. */
enum { SEG_VALUE, SEG_START, SEG_END, SEG_TOTAL };
enum { CDF_US, CDF_FRACTION, CDF_MIN, CDF_MAX, CDF_LO, CDF_HI, CDF_LOG };
enum { TS_T, TS_RATE, TS_MEAN, TS_P99, TS_QD };
enum { TS_SHARE = 1 };

/* The rows of SQL (n, ord, key, label, colour, sub, numbers...) into *OUT
 * (free it). */
static int load(struct plot *p, const char *sql, struct row **out, int *nout)
{
	sqlite3_stmt *st = query(p, sql);
	struct row *v = NULL;
	int n = 0, rc;

	*out = NULL;
	*nout = 0;
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct row *w = realloc(v, (n + 1) * sizeof(*v));

		if (!w)
			break;
		v = w;
		w = &v[n++];
		memset(w, 0, sizeof(*w));
		w->n = sqlite3_column_int(st, 0);
		w->ord = sqlite3_column_int(st, 1);
		snprintf(w->key, sizeof(w->key), "%s", col(st, 2));
		snprintf(w->label, sizeof(w->label), "%s", col(st, 3));
		snprintf(w->colour, sizeof(w->colour), "%s", col(st, 4));
		snprintf(w->sub, sizeof(w->sub), "%s", col(st, 5));
		for (int k = 0; k < 8 && 6 + k < sqlite3_column_count(st); k++)
			w->v[k] = sqlite3_column_double(st, 6 + k);
	}
	sqlite3_finalize(st);
	*out = v;
	*nout = n;
	return rc == SQLITE_DONE ? 0 : -1;
}

/* ---- legends and notes ---- */

/* A legend's swatch: a bar's (DASH NULL) or a line's, with data-KEY="VALUE"
 * for each pair of KV (up to two; NULL ends them). */
struct swatch {
	const char *colour, *dash;
	double opacity;
	const char *kv[4];
};

/* A legend entry at X, Y: swatch W, and its label, LABEL printf'd. */
__attribute__((format(printf, 5, 6)))
static void legend(FILE *f, double x, double y, const struct swatch *w, const char *fmt, ...)
{
	char label[512];
	va_list ap;

	if (w->dash)
		fputs("<line class=\"legend-swatch\"", f);
	else
		fputs("<rect class=\"legend-swatch\"", f);
	for (int i = 0; i < 4 && w->kv[i]; i += 2) {
		fprintf(f, " data-%s=\"", w->kv[i]);
		svg_esc(f, w->kv[i + 1]);
		fputc('"', f);
	}
	if (w->dash)
		fprintf(f, " x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\""
			" stroke-opacity=\"%.2f\" stroke-width=\"2\" stroke-dasharray=\"%s\"/>\n",
			x, y - 4, x + 28, y - 4, w->colour, w->opacity, w->dash);
	else
		fprintf(f, " x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
			x, y - 10, w->colour);
	va_start(ap, fmt);
	vsnprintf(label, sizeof(label), fmt, ap);
	va_end(ap);
	svg_text(f, x + (w->dash ? 34 : 18), y, "start", "legend-label", "%s", label);
}

/* The stages a plot colours, each once, in path order: a legend. A stage
 * that the drivers of the runs label differently has each label on a line
 * of its own. */
struct keys {
	int n;
	struct {
		int ord, nl;
		char stage[32], colour[16], label[MAX_LABELS][96];
	} k[MAX_KEYS];
};

/* Stage STAGE (order ORD) in COLOUR, labelled LABEL. */
static void keys_add(struct keys *ks, int ord, const char *stage, const char *colour,
		     const char *label)
{
	int i, l;

	for (i = 0; i < ks->n && strcmp(ks->k[i].stage, stage); i++)
		;
	if (i == ks->n) {
		if (ks->n == MAX_KEYS)
			return;
		/* in path order */
		for (i = ks->n++; i > 0 && ks->k[i - 1].ord > ord; i--)
			ks->k[i] = ks->k[i - 1];
		ks->k[i].ord = ord;
		ks->k[i].nl = 0;
		snprintf(ks->k[i].stage, sizeof(ks->k[i].stage), "%s", stage);
		snprintf(ks->k[i].colour, sizeof(ks->k[i].colour), "%s", colour);
	}
	for (l = 0; l < ks->k[i].nl && strcmp(ks->k[i].label[l], label); l++)
		;
	if (l == ks->k[i].nl && l < MAX_LABELS)
		snprintf(ks->k[i].label[ks->k[i].nl++], sizeof(ks->k[i].label[0]), "%s", label);
}

/* The lines of legend KS in COLS columns: each row as high as its entry
 * of the most labels. */
static int keys_rows(const struct keys *ks, int cols)
{
	int rows = 0;

	for (int i = 0; i < ks->n; i += cols) {
		int h = 0;

		for (int j = i; j < ks->n && j < i + cols; j++)
			h = ks->k[j].nl > h ? ks->k[j].nl : h;
		rows += h;
	}
	return rows;
}

/* The legend KS from X, Y in COLS columns of COLW px. */
static void draw_keys(FILE *f, const struct keys *ks, double x, double y, int cols, double colw)
{
	for (int i = 0; i < ks->n; i += cols) {
		int h = 0;

		for (int j = i; j < ks->n && j < i + cols; j++) {
			double cx = x + (j - i) * colw;

			legend(f, cx, y, &(struct swatch){ .colour = ks->k[j].colour,
							   .kv = { "stage", ks->k[j].stage } },
			       "%s", ks->k[j].label[0]);
			for (int l = 1; l < ks->k[j].nl; l++)
				svg_text(f, cx + 18, y + l * ROW, "start", "legend-label", "%s",
					 ks->k[j].label[l]);
			h = ks->k[j].nl > h ? ks->k[j].nl : h;
		}
		y += h * ROW;
	}
}

/* Stage STAGE's label in group N's report: ntp_plot_stage's; end to end's
 * ('e2e'), or a stage ntp_plot_stage has not, its name. */
static const char *stage_label(const struct plot *p, int n, const char *stage)
{
	for (int i = 0; i < p->nst; i++)
		if (p->st[i].n == n && !strcmp(p->st[i].key, stage))
			return p->st[i].label;
	return strcmp(stage, "e2e") ? stage : "end to end";
}

/* Stage STAGE's order (ntp_plot_stage's); end to end after the stages. */
static int stage_ord(const struct plot *p, int n, const char *stage)
{
	for (int i = 0; i < p->nst; i++)
		if (p->st[i].n == n && !strcmp(p->st[i].key, stage))
			return p->st[i].ord;
	return 1000;
}

/* Figure FIG's (0: any figure's) group of run RUN_ORD, or NULL. */
static const struct pgroup *run_in(const struct plot *p, int fig, int run_ord)
{
	for (int i = 0; i < p->ng; i++)
		if (p->g[i].run_ord == run_ord && (!fig || p->g[i].figure == fig))
			return &p->g[i];
	return NULL;
}

/* The runs' line styles in figure FIG (0: every figure), each named with
 * its run, from X, Y in COLS columns of COLW px; returns how many. */
static int draw_runs(struct plot *p, int fig, double x, double y, int cols, double colw)
{
	int shown = 0;

	for (int r = 0; r < NTP_MAX_DBS; r++) {
		const struct pgroup *g = run_in(p, fig, r);

		if (!g)
			continue;
		if (p->f)
			legend(p->f, x + (shown % cols) * colw, y + (shown / cols) * ROW,
			       &(struct swatch){ .colour = p->e2e, .opacity = 1, .dash = g->dash,
						 .kv = { "run", g->run, "line", g->line } },
			       "%s (%s)", g->run, g->line);
		shown++;
	}
	return shown;
}

/* The legend under a figure's title: the line style of each run in
 * figure FIG (0: every figure), with LATENCY the mean and p99 latency's
 * lines, then the stages' colours KS. Without a file (p->f NULL) only
 * measured: returns the pixel row under it. */
static double top_legend(struct plot *p, int fig, int latency, const struct keys *ks)
{
	double y = TOP;

	if (p->f)
		fputs("<g class=\"legend runs\">\n", p->f);
	y += (draw_runs(p, fig, 20, y, 4, 230) + 3) / 4 * ROW;
	if (p->f && latency) {
		fputs("</g>\n<g class=\"legend latency\">\n", p->f);
		legend(p->f, 20, y, &(struct swatch){ .colour = p->e2e, .opacity = 1, .dash = "none",
						      .kv = { "series", "mean" } }, "mean latency");
		legend(p->f, 250, y, &(struct swatch){ .colour = p->e2e, .opacity = P99_OPACITY,
						       .dash = "none", .kv = { "series", "p99" } },
		       "p99 latency");
	}
	y += latency ? ROW : 0;
	if (p->f) {
		fputs("</g>\n<g class=\"legend stages\">\n", p->f);
		draw_keys(p->f, ks, 20, y, 3, 310);
		fputs("</g>\n", p->f);
	}
	return y + keys_rows(ks, 3) * ROW;
}

/* A plot's notes: what it leaves out or draws where it does not belong,
 * in lines of at most about 140 characters. */
struct notes {
	int n;
	char line[MAX_NOTES][192];
};

__attribute__((format(printf, 2, 3)))
static void note(struct notes *nt, const char *fmt, ...)
{
	char buf[1024], *s = buf;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	while (*s && nt->n < MAX_NOTES) {
		size_t len = strlen(s), cut = len;

		/* at the last blank before 140 characters */
		if (len > 140)
			for (cut = 140; cut > 40 && s[cut] != ' '; cut--)
				;
		snprintf(nt->line[nt->n++], sizeof(nt->line[0]), "%s%.*s", s == buf ? "" : "  ",
			 (int)cut, s);
		s += cut;
		s += *s == ' ';
	}
}

static void draw_notes(FILE *f, const struct notes *nt, double y)
{
	for (int i = 0; i < nt->n; i++)
		svg_text(f, 20, y + i * ROW, "start", "note", "%s", nt->line[i]);
}

/* A panel's plot area, where its data is drawn: an unpainted rectangle
 * that a reader (or a test) can find. */
static void area(FILE *f, const struct svg_axis *x, const struct svg_axis *y)
{
	fprintf(f, "<rect class=\"area\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\""
		" fill=\"none\"/>\n", x->px0, y->px1, x->px1 - x->px0, y->px0 - y->px1);
}

/* ---- stacked bars: stages.svg, tails.svg ---- */

/* A chart of stacked bars, a segment per stage in its colour: a bar per
 * plotted group and SUB of its SQL's rows (n, ord, stage, label, colour,
 * sub, value, start, end, total; in bar order, then path order). */
struct stack_chart {
	const char *file;    /* stages.svg */
	const char *kind;    /* the SVG's class */
	const char *title;
	const char *axis;    /* the x axis' title */
	const char *sql;
};

static const struct stack_chart stages_chart = {
	.file = "stages.svg",
	.kind = "stages",
	.title = "Where the latency goes: mean time per stage",
	.axis = "mean time per command (us)",
	.sql = "SELECT x.n, x.ord, x.stage, x.label, x.colour, '', x.mean_us, x.start_us,"
	       " x.end_us, x.total_us FROM ntp_plot_stage AS x" PLOTTED " ORDER BY x.n, x.ord",
};

/* The bar of V[I]'s group and sub at row Y; returns past its rows. */
static int draw_stack(struct plot *p, const struct svg_axis *x, const struct row *v, int nv,
		      int i, double y)
{
	const struct pgroup *g = group_at(p, v[i].n);
	const char *title = g ? g->title : "", *sep = v[i].sub[0] ? " " : "";
	FILE *f = p->f;
	int j;

	fprintf(f, "<g class=\"stack\" data-n=\"%d\" data-figure=\"%d\" data-total-us=\"%.3f\""
		" data-group=\"", v[i].n, g ? g->figure : 0, v[i].v[SEG_TOTAL]);
	svg_esc(f, title);
	svg_esc(f, sep);
	svg_esc(f, v[i].sub);
	fputs("\" data-bar=\"", f);
	svg_esc(f, v[i].sub);
	fputs("\">\n", f);
	svg_text(f, LEFT - 8, y + BAR_H - 5, "end", "bar-label", "%s%s%s", title, sep, v[i].sub);
	for (j = i; j < nv && v[j].n == v[i].n && !strcmp(v[j].sub, v[i].sub); j++) {
		fprintf(f, "<rect class=\"bar\" data-stage=\"");
		svg_esc(f, v[j].key);
		fprintf(f, "\" data-us=\"%.3f\" data-start-us=\"%.3f\" x=\"%.2f\" y=\"%.1f\""
			" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>", v[j].v[SEG_VALUE],
			v[j].v[SEG_START], svg_px(x, v[j].v[SEG_START]), y,
			svg_px(x, v[j].v[SEG_END]) - svg_px(x, v[j].v[SEG_START]), BAR_H,
			v[j].colour);
		svg_escf(f, "%s: %.2f us", v[j].label, v[j].v[SEG_VALUE]);
		fputs("</title></rect>\n", f);
	}
	fputs("</g>\n", f);
	return j;
}

static int stack_svg(struct plot *p, const struct stack_chart *c)
{
	struct row *v = NULL;
	struct svg_axis x = { .px0 = LEFT, .px1 = WIDTH - 40 }, y;
	struct keys ks = { 0 };
	double max = 0;
	int nv, nbars = 0, h;

	if (load(p, c->sql, &v, &nv)) {
		free(v);
		return -1;
	}
	for (int i = 0; i < nv; i++) {
		max = v[i].v[SEG_TOTAL] > max ? v[i].v[SEG_TOTAL] : max;
		nbars += !i || v[i].n != v[i - 1].n || strcmp(v[i].sub, v[i - 1].sub);
		keys_add(&ks, v[i].ord, v[i].key, v[i].colour, v[i].label);
	}
	svg_axis_fit(&x, 0, max, 8, 0);
	y = (struct svg_axis){ .px0 = TOP + nbars * (BAR_H + 6), .px1 = TOP };
	h = (int)y.px0 + 60 + keys_rows(&ks, 2) * ROW + 20;
	if (file_begin(p, c->file)) {
		free(v);
		return -1;
	}
	svg_begin(p->f, c->kind, WIDTH, h, c->title);
	fputs("<g class=\"panel\" data-panel=\"bars\">\n", p->f);
	area(p->f, &x, &y);
	for (int i = 0, b = 0; i < nv; b++)
		i = draw_stack(p, &x, v, nv, i, TOP + b * (BAR_H + 6));
	svg_axis_x(p->f, &x, y.px0 + 4, c->axis);
	fputs("</g>\n", p->f);
	draw_keys(p->f, &ks, LEFT, y.px0 + 64, 2, 340);
	svg_end(p->f);
	free(v);
	return file_end(p);
}

static int stages_svg(struct plot *p)
{
	return stack_svg(p, &stages_chart);
}

/* Where the slow commands' time goes: a bar per group and tail band. */
static const struct stack_chart tails_chart = {
	.file = "tails.svg",
	.kind = "tails",
	.title = "Where the slow commands' time goes: mean time per stage by end-to-end band",
	.axis = "mean time per command of the band (us)",
	.sql = "SELECT x.n, x.ord, x.stage, x.label, x.colour, x.band, x.mean_us, x.start_us,"
	       " x.end_us, x.total_us FROM ntp_plot_tail AS x" PLOTTED
	       " ORDER BY x.n, x.band_ord, x.ord",
};

static int tails_svg(struct plot *p)
{
	return stack_svg(p, &tails_chart);
}

/* ---- cdf-F.svg ---- */

/* The line of V[I]'s group and component: the CDF's steps in its stage's
 * colour and its run's line style. Returns past its rows. */
static int cdf_line(struct plot *p, const struct svg_axis *x, const struct svg_axis *y,
		    const struct row *v, int nv, int i)
{
	const struct pgroup *g = group_at(p, v[i].n);
	FILE *f = p->f;
	int j;

	fprintf(f, "<polyline class=\"cdf\" data-n=\"%d\" data-component=\"", v[i].n);
	svg_esc(f, v[i].key);
	fputs("\" data-stage=\"", f);
	svg_esc(f, v[i].sub);
	fputs("\" data-run=\"", f);
	svg_esc(f, g ? g->run : "");
	fprintf(f, "\" data-min-us=\"%.3f\" data-max-us=\"%.3f\" stroke=\"%s\""
		" stroke-dasharray=\"%s\" points=\"%.2f,%.2f", v[i].v[CDF_MIN], v[i].v[CDF_MAX],
		v[i].colour, g ? g->dash : "none", svg_px(x, v[i].v[CDF_US]), svg_px(y, 0));
	/* steps: up at each value to its fraction, across to the next */
	for (j = i; j < nv && v[j].n == v[i].n && !strcmp(v[j].key, v[i].key); j++)
		fprintf(f, " %.2f,%.2f %.2f,%.2f", svg_px(x, v[j].v[CDF_US]),
			svg_px(y, j > i ? v[j - 1].v[CDF_FRACTION] : 0),
			svg_px(x, v[j].v[CDF_US]), svg_px(y, v[j].v[CDF_FRACTION]));
	fputs("\"><title>", f);
	svg_escf(f, "%s: %s", g ? g->run : "", v[i].label);
	fputs("</title></polyline>\n", f);
	return j;
}

/* Component V[I]'s panel, every run's line in it, in the cell at CX, CY;
 * returns past its rows. */
static int cdf_panel(struct plot *p, const struct row *v, int nv, int i, double cx, double cy,
		     int first_col)
{
	struct svg_axis x = { .px0 = cx + 60, .px1 = cx + CELL_W - 26 };
	struct svg_axis y = { .px0 = cy + 22 + CDF_H, .px1 = cy + 22 };
	int fig = figure_of(p, v[i].n), j = i;

	/* the panel's range, the same for every run's line (ntp_plot_cdf) */
	svg_axis_fit(&x, v[i].v[CDF_LO], v[i].v[CDF_HI], 5, v[i].v[CDF_LOG] != 0);
	svg_axis_fit(&y, 0, 1, 2, 0);
	fputs("<g class=\"panel cdf-panel\" data-component=\"", p->f);
	svg_esc(p->f, v[i].key);
	fputs("\">\n", p->f);
	area(p->f, &x, &y);
	svg_text(p->f, x.px0, cy + 12, "start", "panel-title", "%s", v[i].label);
	svg_axis_x(p->f, &x, y.px0 + 4, x.log ? "us (log scale)" : "us");
	svg_axis_y(p->f, &y, x.px0 - 4, first_col ? "fraction at or below" : "");
	while (j < nv && figure_of(p, v[j].n) == fig && !strcmp(v[j].key, v[i].key))
		j = cdf_line(p, &x, &y, v, nv, j);
	fputs("</g>\n", p->f);
	return j;
}

/* Figure FIG's notes: the components left out (ntp_plot_zero's rows Z),
 * and the lines with values at or below 0 on a log axis (V[I..END)). */
static void cdf_notes(struct plot *p, int fig, const struct row *v, int i, int end,
		      const struct row *z, int nz, struct notes *nt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	for (int k = 0; k < nz; k++) {
		const struct pgroup *g = group_at(p, z[k].n);

		if (!g || g->figure != fig || (k && z[k - 1].n == z[k].n))
			continue;
		if (!(f = open_memstream(&text, &len)))
			return;
		for (int m = k; m < nz && z[m].n == z[k].n; m++)
			fprintf(f, "%s%s", m > k ? ", " : "", z[m].label);
		fclose(f);
		note(nt, "Not drawn, 0 in every command%s%s: %s.", p->s->nruns > 1 ? " of " : "",
		     p->s->nruns > 1 ? g->run : "", text);
		free(text);
		text = NULL;
	}
	if (!(f = open_memstream(&text, &len)))
		return;
	for (int k = i, shown = 0; k < end; k++) {
		const struct pgroup *g = group_at(p, v[k].n);

		if (v[k].v[CDF_LOG] == 0 || v[k].v[CDF_MIN] > 0 ||
		    (k > i && v[k - 1].n == v[k].n && !strcmp(v[k - 1].key, v[k].key)))
			continue;
		fprintf(f, "%s%s", shown++ ? ", " : "", v[k].label);
		if (p->s->nruns > 1)
			fprintf(f, " (%s)", g ? g->run : "");
	}
	fclose(f);
	if (text && text[0])
		note(nt, "Values at or below 0 are drawn at the left edge of the log axis: %s.",
		     text);
	free(text);
}

/* The figure of V[I]'s group: a panel per component; returns past its
 * rows. */
static int cdf_svg(struct plot *p, const struct row *v, int nv, int i, const struct row *z,
		   int nz)
{
	int fig = figure_of(p, v[i].n), end, npanels = 0, h;
	struct notes nt = { 0 };
	struct keys ks = { 0 };
	char name[32], title[256];
	const struct pgroup *g = group_at(p, v[i].n);
	double y0;

	for (end = i; end < nv && figure_of(p, v[end].n) == fig; end++) {
		npanels += end == i || strcmp(v[end].key, v[end - 1].key);
		keys_add(&ks, stage_ord(p, v[end].n, v[end].sub), v[end].sub, v[end].colour,
			 stage_label(p, v[end].n, v[end].sub));
	}
	cdf_notes(p, fig, v, i, end, z, nz, &nt);
	y0 = top_legend(p, fig, 0, &ks) + 10;
	h = (int)y0 + (npanels + COLS - 1) / COLS * CELL_H + nt.n * ROW + 16;
	snprintf(name, sizeof(name), "cdf-%d.svg", fig);
	snprintf(title, sizeof(title), "Latency CDF per component: %s", g ? g->name : "");
	if (file_begin(p, name))
		return -1;
	svg_begin(p->f, "cdf", WIDTH, h, title);
	top_legend(p, fig, 0, &ks);
	for (int k = 0, j = i; j < end; k++)
		j = cdf_panel(p, v, nv, j, 10 + (k % COLS) * CELL_W, y0 + (k / COLS) * CELL_H,
			      k % COLS == 0);
	draw_notes(p->f, &nt, y0 + (npanels + COLS - 1) / COLS * CELL_H + 6);
	svg_end(p->f);
	return file_end(p) ? -1 : end;
}

static int cdf_svgs(struct plot *p)
{
	struct row *v = NULL, *z = NULL;
	int nv, nz, rc = 0;

	if (load(p, "SELECT x.n, x.ord, x.component, x.label, x.colour, x.stage, x.us,"
		 " x.fraction, x.min_us, x.max_us, x.lo_us, x.hi_us, x.log_x"
		 " FROM ntp_plot_cdf AS x" PLOTTED " ORDER BY x.figure, x.ord, x.n, x.us", &v,
		 &nv) ||
	    load(p, "SELECT x.n, x.ord, x.component, x.label, '', '' FROM ntp_plot_zero AS x"
		 PLOTTED " ORDER BY x.n, x.ord", &z, &nz))
		rc = -1;
	for (int i = 0; i < nv && rc >= 0; i = rc)
		rc = cdf_svg(p, v, nv, i, z, nz);
	free(v);
	free(z);
	return rc < 0 ? -1 : 0;
}

/* ---- timeline.svg ---- */

/* One panel's lines: value K of the rows of figure FIG, a line per group
 * and key, in the row's colour (else end to end's) at OPACITY and the
 * group's run's line style. */
static void lines(struct plot *p, const struct svg_axis *x, const struct svg_axis *y,
		  const struct row *v, int nv, int k, int fig, const char *cls, double opacity)
{
	FILE *f = p->f;

	for (int i = 0, j; i < nv; i = j) {
		const struct pgroup *g = group_at(p, v[i].n);

		for (j = i; j < nv && v[j].n == v[i].n && !strcmp(v[j].key, v[i].key); j++)
			;
		if (!g || g->figure != fig)
			continue;
		fprintf(f, "<polyline class=\"series %s\" data-n=\"%d\" data-stage=\"", cls,
			v[i].n);
		svg_esc(f, v[i].key);
		fputs("\" data-run=\"", f);
		svg_esc(f, g->run);
		fprintf(f, "\" stroke=\"%s\" stroke-opacity=\"%.2f\" stroke-dasharray=\"%s\""
			" points=\"", v[i].colour[0] ? v[i].colour : p->e2e, opacity, g->dash);
		for (int m = i; m < j; m++)
			fprintf(f, "%s%.2f,%.2f", m > i ? " " : "", svg_px(x, v[m].v[TS_T]),
				svg_px(y, v[m].v[k]));
		fputs("\"/>\n", f);
	}
}

/* Open panel NAME of figure FIG from pixel row TOP_PX, its values LO..HI
 * on *Y (LOG: a log axis) against time on X; the caller draws the lines
 * and closes it. */
static void panel(struct plot *p, const char *name, int fig, const struct svg_axis *x,
		  double top_px, double lo, double hi, int log, const char *title,
		  struct svg_axis *y)
{
	*y = (struct svg_axis){ .px0 = top_px + SERIES_H, .px1 = top_px };
	svg_axis_fit(y, lo, hi, log ? 5 : 4, log);
	fprintf(p->f, "<g class=\"panel\" data-panel=\"%s\" data-figure=\"%d\">\n", name, fig);
	area(p->f, x, y);
	svg_axis_x(p->f, x, y->px0 + 4, "time since the first command (s)");
	svg_axis_y(p->f, y, x->px0 - 4, title);
}

/* Figure FIG's four panels from pixel row TOP_PX: its rate, its latency
 * on a log axis (a p99 spike of milliseconds leaves a median of tens of
 * microseconds readable), the commands in flight (Little's law) and its
 * stages' shares. */
static void timeline_figure(struct plot *p, int fig, const struct svg_axis *x, double top_px,
			    const struct row *sr, int ns, const struct row *sh, int nsh)
{
	double rmax = 0, lmin = 0, lmax = 0, qmax = 0;
	struct svg_axis y;

	for (int i = 0; i < ns; i++) {
		if (figure_of(p, sr[i].n) != fig)
			continue;
		rmax = sr[i].v[TS_RATE] > rmax ? sr[i].v[TS_RATE] : rmax;
		qmax = sr[i].v[TS_QD] > qmax ? sr[i].v[TS_QD] : qmax;
		for (int k = TS_MEAN; k <= TS_P99; k++) {
			double l = sr[i].v[k];

			lmax = l > lmax ? l : lmax;
			lmin = l > 0 && (lmin == 0 || l < lmin) ? l : lmin;
		}
	}
	for (int i = 0; i < p->ng; i++)
		if (p->g[i].figure == fig) {
			svg_text(p->f, x->px0, top_px - 8, "start", "panel-title", "%s",
				 p->g[i].name);
			break;
		}
	panel(p, "rate", fig, x, top_px, 0, rmax, 0, "commands/s", &y);
	lines(p, x, &y, sr, ns, TS_RATE, fig, "rate", 1);
	fputs("</g>\n", p->f);
	top_px += SERIES_H + SERIES_GAP;
	panel(p, "latency", fig, x, top_px, lmin, lmax, 1, "latency (us, log scale)", &y);
	lines(p, x, &y, sr, ns, TS_MEAN, fig, "mean", 1);
	lines(p, x, &y, sr, ns, TS_P99, fig, "p99", P99_OPACITY);
	fputs("</g>\n", p->f);
	top_px += SERIES_H + SERIES_GAP;
	panel(p, "qd", fig, x, top_px, 0, qmax, 0, "in flight (Little's law)", &y);
	lines(p, x, &y, sr, ns, TS_QD, fig, "qd", 1);
	fputs("</g>\n", p->f);
	top_px += SERIES_H + SERIES_GAP;
	panel(p, "shares", fig, x, top_px, 0, 1, 0, "share of the mean latency", &y);
	lines(p, x, &y, sh, nsh, TS_SHARE, fig, "share", 1);
	fputs("</g>\n", p->f);
}

static int timeline_svg(struct plot *p, double width_s)
{
	struct row *sr = NULL, *sh = NULL;
	struct svg_axis x = { .px0 = 90, .px1 = WIDTH - 40 };
	const double fig_h = 4 * (SERIES_H + SERIES_GAP) + 24;
	int ns = 0, nsh = 0, nfig = 0, rc = -1;
	struct keys ks = { 0 };
	double tmax = 0, top;
	char title[128];

	if (load(p, "SELECT x.n, 0, '', '', '', '', x.t_s, x.rate, x.mean_us, x.p99_us, x.qd"
		 " FROM ntp_plot_series AS x" PLOTTED " ORDER BY x.n, x.bucket", &sr, &ns) ||
	    load(p, "SELECT x.n, x.ord, x.stage, x.label, x.colour, '', x.t_s, x.share"
		 " FROM ntp_plot_series_stage AS x" PLOTTED " ORDER BY x.n, x.ord, x.bucket", &sh,
		 &nsh))
		goto out;
	for (int i = 0; i < nsh; i++)
		keys_add(&ks, sh[i].ord, sh[i].key, sh[i].colour, sh[i].label);
	top = top_legend(p, 0, 1, &ks) + 34;
	if (file_begin(p, "timeline.svg"))
		goto out;
	for (int i = 0; i < ns; i++)
		tmax = sr[i].v[TS_T] > tmax ? sr[i].v[TS_T] : tmax;
	for (int i = 0; i < p->ng; i++)
		nfig += !i || p->g[i].figure != p->g[i - 1].figure;
	svg_axis_fit(&x, 0, tmax, 10, 0);
	snprintf(title, sizeof(title), "Over time, in buckets of %g s: rate, latency, commands "
		 "in flight and the stages' shares", width_s);
	svg_begin(p->f, "timeline", WIDTH, (int)(top + nfig * fig_h), title);
	top_legend(p, 0, 1, &ks);
	for (int i = 0, k = 0; i < p->ng; i++)
		if (!i || p->g[i].figure != p->g[i - 1].figure)
			timeline_figure(p, p->g[i].figure, &x, top + k++ * fig_h, sr, ns, sh, nsh);
	svg_end(p->f);
	rc = file_end(p);
out:
	free(sr);
	free(sh);
	return rc;
}

/* ---- index.html ---- */

static int index_html(struct plot *p)
{
	int n = p->nfiles;

	if (file_begin(p, "index.html"))
		return -1;
	fputs("<!DOCTYPE html>\n" SVG_MARK " -->\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n<title>ntprof plots</title>\n"
	      "<style>body{font-family:sans-serif;margin:1em 2em}svg{display:block;"
	      "margin:0.5em 0 2em}</style>\n</head>\n<body>\n<h1>ntprof plots</h1>\n<ul>\n", p->f);
	for (int i = 0; i < p->s->ndbs; i++) {
		fputs("<li class=\"recording\">", p->f);
		svg_escf(p->f, "%s: %s, %s, recorded on %s", p->s->run_label[p->s->dbs[i].run],
			 p->s->dbs[i].path, p->s->dbs[i].role, p->s->dbs[i].hostname);
		fputs("</li>\n", p->f);
	}
	fputs("</ul>\n", p->f);
	for (int i = 0; i < n; i++) {
		const char *svg = strstr(p->file[i].text, "<svg");

		fprintf(p->f, "<section class=\"plot\" data-file=\"%s\">\n<h2>%s</h2>\n",
			p->file[i].name, p->file[i].name);
		fputs(svg ? svg : "", p->f);
		fputs("</section>\n", p->f);
	}
	fputs("</body>\n</html>\n", p->f);
	return file_end(p);
}

/* ---- the directory ---- */

/* 1 when NAME in the directory DFD starts as ntprof plot's files do: the
 * mark on its first line, or on the second after index.html's doctype.
 * A symlink, a FIFO or a device is never ours. */
static int ours(int dfd, const char *name)
{
	char line[64] = "";
	struct stat st;
	FILE *f;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return 0;
	}
	if (fgets(line, sizeof(line), f) && !strcmp(line, "<!DOCTYPE html>\n") &&
	    !fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	return !strncmp(line, SVG_MARK, strlen(SVG_MARK));
}

/* The directory, made if need be and opened: every file in it is reached
 * through that descriptor, never through a path a symlink in it could
 * redirect. A name taken by anything ntprof plot did not write (a symlink
 * too) is refused. */
static int check_dir(struct plot *p, char *err, size_t errlen)
{
	const char *dir = p->o->dir;
	struct stat st;

	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
		return ntp_fail(err, errlen, "%s: not a directory", dir);
	if (mkdir(dir, 0777) && errno != EEXIST)
		return ntp_fail(err, errlen, "%s: cannot create the directory: %s", dir,
				strerror(errno));
	p->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->dfd < 0)
		return ntp_fail(err, errlen, "%s: cannot open the directory: %s", dir,
				strerror(errno));
	for (int i = 0; i < p->nfiles; i++)
		if (fstatat(p->dfd, p->file[i].name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !ours(p->dfd, p->file[i].name))
			return ntp_fail(err, errlen, "%s/%s: not written by ntprof plot: not "
					"overwriting it (choose another -o)", dir, p->file[i].name);
	return 0;
}

/* 1 when NAME is one of the files this plot writes. */
static int writes(const struct plot *p, const char *name)
{
	for (int i = 0; i < p->nfiles; i++)
		if (!strcmp(p->file[i].name, name))
			return 1;
	return 0;
}

/* Remove the cdf-N.svg files an earlier plot wrote into the directory and
 * this one does not: index.html does not show them, and they would pass
 * for this plot's. Files ntprof plot did not write stay. */
static void remove_stale(const struct plot *p)
{
	int fd = dup(p->dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d && fd >= 0)
		close(fd);
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, "cdf-", 4) || len < 8 ||
		    strcmp(e->d_name + len - 4, ".svg") || writes(p, e->d_name))
			continue;
		if (ours(p->dfd, e->d_name))
			unlinkat(p->dfd, e->d_name, 0);
	}
	if (d)
		closedir(d);
}

/* File I of P, new under a temporary name that nothing else has (created
 * exclusive, never through a symlink) and then renamed over its name: a
 * symlink planted there is replaced, not followed. */
static int write_file(struct plot *p, int i)
{
	char tmp[300];
	int fd = -1, e;

	for (int n = 0; fd < 0 && n < 100; n++) {
		snprintf(tmp, sizeof(tmp), ".%s.%d.%d.tmp", p->file[i].name, (int)getpid(), n);
		fd = openat(p->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0666);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	if (fd < 0)
		return -1;
	for (size_t off = 0; off < p->file[i].len;) {
		ssize_t w = write(fd, p->file[i].text + off, p->file[i].len - off);

		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			goto fail;
		}
		off += (size_t)w;
	}
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (!renameat(p->dfd, tmp, p->dfd, p->file[i].name))
		return 0;
fail:
	e = errno ? errno : ENOSPC;
	if (fd >= 0)
		close(fd);
	unlinkat(p->dfd, tmp, 0);
	errno = e;
	return -1;
}

static int write_files(struct plot *p, FILE *list, char *err, size_t errlen)
{
	char path[PATH_MAX + 300];

	for (int i = 0; i < p->nfiles; i++) {
		if (write_file(p, i))
			return ntp_fail(err, errlen, "%s/%s: cannot write: %s", p->o->dir,
					p->file[i].name, strerror(errno));
		snprintf(path, sizeof(path), "%s/%s", p->o->dir, p->file[i].name);
		fprintf(list, "%s\n", ntp_clean_controls(path));
	}
	remove_stale(p);
	return 0;
}

/* The time series' width: o->width_ns, else ntp_plot_width's; in ntp_bucket. */
static int set_width(struct plot *p, double *width_s)
{
	sqlite3_stmt *st;
	sqlite3_int64 w = p->o->width_ns;
	int rc;

	if (!w) {
		if (sqlite3_prepare_v2(p->s->db, "SELECT width_ns FROM ntp_plot_width", -1, &st,
				       NULL) != SQLITE_OK)
			return -1;
		w = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
		sqlite3_finalize(st);
	}
	if (w <= 0)
		w = 1000000000;
	if (sqlite3_prepare_v2(p->s->db, "UPDATE ntp_bucket SET width_ns = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, w);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	*width_s = w / 1e9;
	return rc;
}

static int timeline(struct plot *p)
{
	sqlite3_stmt *st = query(p, "SELECT 'form IN (' || group_concat(DISTINCT quote(g.mode))"
				 " || ')' FROM ntp_plot_group AS x" PLOTTED);
	char err[NTP_ERR_MAX], *forms = NULL;
	double width_s;
	int rc = -1;

	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		forms = sqlite3_mprintf("%s", col(st, 0));
	/* finalized first: a pending read would lock the TEMP schema */
	sqlite3_finalize(st);
	/* The buckets once, at this width, and only of the forms drawn (as
	 * constants, so the others' scans are left out); then the groups'
	 * series and stages from them, which timeline.svg's two queries read
	 * (a query of its own could compute a form it does not draw). */
	if (forms)
		rc = set_width(p, &width_s) ||
		     ntp_session_cache_where(p->s, "_ntp_series_agg", forms, err, sizeof(err)) ||
		     /* the end to end's buckets from those, not another scan */
		     ntp_exec(p->s->db, "DROP VIEW _ntp_series_e2e;\n"
			      "CREATE TEMP VIEW _ntp_series_e2e AS"
			      " SELECT * FROM _ntp_series_e2e_of_agg;") ||
		     ntp_session_cache(p->s, "_ntp_report_series_form", err, sizeof(err)) ||
		     ntp_session_cache(p->s, "_ntp_report_stage_form", err, sizeof(err)) ||
		     timeline_svg(p, width_s) ? -1 : 0;
	sqlite3_free(forms);
	return rc;
}

/* The charts, in the order index.html shows them: each lays out one file
 * or more (file_begin, file_end) from p's groups. A stacked bar chart is a
 * struct stack_chart drawn by stack_svg, as stages_svg draws stages.svg. */
static int (*const charts[])(struct plot *) = {
	stages_svg,
	tails_svg,
	cdf_svgs,
	timeline,
};

/* What every chart reads: the groups, the stages' labels and end to end's
 * colour. */
static int load_common(struct plot *p)
{
	sqlite3_stmt *st;
	int rc = -1;

	if (load_groups(p) ||
	    load(p, "SELECT x.n, x.ord, x.stage, x.label, x.colour, '' FROM ntp_plot_stage AS x"
		 PLOTTED " ORDER BY x.n, x.ord", &p->st, &p->nst) ||
	    sqlite3_prepare_v2(p->s->db, "SELECT colour FROM ntp_plot_colour WHERE stage = 'e2e'",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(p->e2e, sizeof(p->e2e), "%s", col(st, 0));
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

static int lay_out(struct plot *p, char *err, size_t errlen)
{
	/* the groups once: every query of every chart reads them */
	if (ntp_session_cache(p->s, "ntp_plot_group", err, errlen))
		return -1;
	if (load_common(p))
		return ntp_fail(err, errlen, "cannot read the groups: %s",
				sqlite3_errmsg(p->s->db));
	if (!p->ng)
		return p->o->group ? ntp_fail(err, errlen, "no I/O group's name contains '%s'",
					      p->o->group)
				   : ntp_fail(err, errlen, "no I/O commands to plot");
	/* the CDFs' lines once: the lines drawn and those left out read them */
	if (ntp_session_cache(p->s, "_ntp_plot_cdf_line", err, errlen))
		return -1;
	for (size_t i = 0; i < sizeof(charts) / sizeof(charts[0]); i++)
		if (charts[i](p))
			goto fail;
	if (!index_html(p))
		return 0;
fail:
	return ntp_fail(err, errlen, "cannot lay the plots out: %s", sqlite3_errmsg(p->s->db));
}

int ntp_plot(struct ntp_session *s, const struct ntp_plot_opts *o, FILE *list, char *err,
	     size_t errlen)
{
	static struct plot p;
	const char *progress;
	int rc;

	memset(&p, 0, sizeof(p));
	p.s = s;
	p.o = o;
	p.dfd = -1;
	if (ntp_session_prepare(s, err, errlen))
		return -1;
	progress = ntp_progress_begin(s, "plotting");
	rc = lay_out(&p, err, errlen);
	ntp_progress_end(s, progress);
	if (!rc)
		rc = check_dir(&p, err, errlen);
	if (!rc)
		rc = write_files(&p, list, err, errlen);
	if (p.f) {
		fclose(p.f);
		free(p.file[p.nfiles].text);
	}
	for (int i = 0; i < p.nfiles; i++)
		free(p.file[i].text);
	for (int i = 0; i < p.ng; i++) {
		free(p.g[i].run);
		free(p.g[i].name);
		free(p.g[i].title);
		free(p.g[i].line);
		free(p.g[i].dash);
	}
	free(p.g);
	free(p.st);
	if (p.dfd >= 0)
		close(p.dfd);
	return rc;
}
