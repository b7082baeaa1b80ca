// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof plot: the runs of a session drawn as SVG (svg.h), every number
 * from sql/plot.sql's views; this file only lays them out. stages.svg holds
 * a stacked bar of the stages' means per group and run, cdf-N.svg the
 * components' latency CDFs of plotted group N, timeline.svg the rate, the
 * latency and the stages' shares over time, and index.html all of them,
 * inlined: one file, no script, nothing fetched.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ntp_err.h"
#include "ntp_plot.h"
#include "svg.h"

#define MAX_FILES (NTP_MAX_DBS * 64 + 3)
#define WIDTH 960     /* px, every plot */
#define LEFT 240      /* the bars' labels */
#define RIGHT 330     /* the legends of the CDF and the time series */
#define TOP 44        /* under the title */
#define BAR_H 20      /* one bar */

/* A plotted group (ntp_plot_group), its title as the plots print it. */
struct pgroup {
	int n;
	char title[192];
};

/* A file to write: its name in the directory and its text. */
struct pfile {
	char name[32];
	char *text;
	size_t len;
};

struct plot {
	struct ntp_session *s;
	const struct ntp_plot_opts *o;
	struct pgroup *g;
	int ng;
	struct pfile file[MAX_FILES];
	int nfiles;
	FILE *f;      /* the file being laid out (open_memstream) */
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
	if (p->o->group)
		sqlite3_bind_text(st, 1, p->o->group, -1, SQLITE_STATIC);
	return st;
}

/* The index of plotted group N in p->g, or -1. */
static int group_at(const struct plot *p, int n)
{
	for (int i = 0; i < p->ng; i++)
		if (p->g[i].n == n)
			return i;
	return -1;
}

static int load_groups(struct plot *p)
{
	sqlite3_stmt *st = query(p, "SELECT g.n, g.name, g.run FROM ntp_plot_group AS x" PLOTTED
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
		if (p->s->nruns > 1)
			snprintf(g->title, sizeof(g->title), "%s (%s)", col(st, 1), col(st, 2));
		else
			snprintf(g->title, sizeof(g->title), "%s", col(st, 1));
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

/* A legend entry at X, Y: a swatch (a bar's, or a line's with DASH) and its
 * label. */
static void legend(FILE *f, double x, double y, const char *colour, const char *dash,
		   const char *label)
{
	if (dash)
		fprintf(f, "<line class=\"legend-swatch\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\""
			" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"%s\"/>\n",
			x, y - 4, x + 18, y - 4, colour, dash);
	else
		fprintf(f, "<rect class=\"legend-swatch\" x=\"%.1f\" y=\"%.1f\" width=\"12\""
			" height=\"12\" fill=\"%s\"/>\n", x, y - 10, colour);
	svg_text(f, x + 24, y, "start", "legend-label", "%s", label);
}

/* A row of the plot views as the plots read them: the plotted group, the
 * order and name of its item (stage or component) and its label, then up to
 * four numbers (SEG_, CDF_, TS_ say which). */
struct row {
	int n, ord;
	char key[32], label[96];
	double v[4];
};

enum { SEG_MEAN, SEG_START, SEG_END, SEG_TOTAL };  /* ntp_plot_stage */
enum { CDF_US, CDF_FRACTION, CDF_MIN, CDF_MAX };   /* ntp_plot_cdf */
enum { TS_T, TS_RATE, TS_MEAN, TS_P99 };           /* ntp_plot_series */
enum { TS_SHARE = 1 };                             /* ntp_plot_series_stage */

/* The rows of SQL (n, ord, key, label, numbers...) into *OUT (free it). */
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
		for (int k = 0; k < 4 && 4 + k < sqlite3_column_count(st); k++)
			w->v[k] = sqlite3_column_double(st, 4 + k);
	}
	sqlite3_finalize(st);
	*out = v;
	*nout = n;
	return rc == SQLITE_DONE ? 0 : -1;
}

/* ---- stages.svg ---- */

/* One stacked bar per plotted group, at row Y. */
static void draw_stack(struct plot *p, const struct svg_axis *x, const struct row *v, int nv,
		       int gi, double y)
{
	FILE *f = p->f;
	int first = 1;

	for (int i = 0; i < nv; i++) {
		if (v[i].n != p->g[gi].n)
			continue;
		if (first) {
			fprintf(f, "<g class=\"stack\" data-n=\"%d\" data-total-us=\"%.3f\""
				" data-group=\"", v[i].n, v[i].v[SEG_TOTAL]);
			svg_esc(f, p->g[gi].title);
			fputs("\">\n", f);
			svg_text(f, LEFT - 8, y + BAR_H - 5, "end", "bar-label", "%s",
				 p->g[gi].title);
			first = 0;
		}
		fprintf(f, "<rect class=\"bar\" data-stage=\"");
		svg_esc(f, v[i].key);
		fprintf(f, "\" data-us=\"%.3f\" data-start-us=\"%.3f\" x=\"%.2f\" y=\"%.1f\""
			" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>", v[i].v[SEG_MEAN],
			v[i].v[SEG_START], svg_px(x, v[i].v[SEG_START]), y,
			svg_px(x, v[i].v[SEG_END]) - svg_px(x, v[i].v[SEG_START]), BAR_H,
			svg_colour(v[i].ord));
		svg_escf(f, "%s: %.2f us", v[i].label, v[i].v[SEG_MEAN]);
		fputs("</title></rect>\n", f);
	}
	if (!first)
		fputs("</g>\n", f);
}

/* The first row of V with order ORD, or -1: each stage once, in path
 * order, for the legends. */
static int first_of(const struct row *v, int nv, int ord)
{
	for (int i = 0; i < nv; i++)
		if (v[i].ord == ord)
			return i;
	return -1;
}

#define MAX_ORD 64 /* stage orders are below (vocab.sql: 1 to 9) */

/* The stages in the bars, each once, in path order: the legend. */
static void stage_legend(FILE *f, const struct row *v, int nv, double y)
{
	int shown = 0;

	for (int ord = 0, i; ord < MAX_ORD; ord++)
		if ((i = first_of(v, nv, ord)) >= 0) {
			legend(f, LEFT + (shown % 2) * 340, y + (shown / 2) * 18, svg_colour(ord),
			       NULL, v[i].label);
			shown++;
		}
}

static int stages_svg(struct plot *p)
{
	struct row *v = NULL;
	struct svg_axis x = { .px0 = LEFT, .px1 = WIDTH - 40 };
	double max = 0, y = TOP;
	int nv, nstages = 0, h;

	if (load(p, "SELECT x.n, x.ord, x.stage, x.label, x.mean_us, x.start_us, x.end_us,"
		 " x.total_us FROM ntp_plot_stage AS x" PLOTTED " ORDER BY x.n, x.ord", &v, &nv)) {
		free(v);
		return -1;
	}
	for (int i = 0; i < nv; i++)
		max = v[i].v[SEG_TOTAL] > max ? v[i].v[SEG_TOTAL] : max;
	for (int ord = 0; ord < MAX_ORD; ord++)
		nstages += first_of(v, nv, ord) >= 0;
	svg_axis_fit(&x, 0, max, 8, 0);
	h = TOP + p->ng * (BAR_H + 6) + 60 + (nstages + 1) / 2 * 18 + 20;
	if (file_begin(p, "stages.svg")) {
		free(v);
		return -1;
	}
	svg_begin(p->f, "stages", WIDTH, h, "Where the latency goes: mean time per stage");
	for (int gi = 0; gi < p->ng; gi++, y += BAR_H + 6)
		draw_stack(p, &x, v, nv, gi, y);
	svg_axis_x(p->f, &x, y + 4, "mean time per command (us)");
	stage_legend(p->f, v, nv, y + 64);
	svg_end(p->f);
	free(v);
	return file_end(p);
}

/* ---- cdf-N.svg ---- */

/* The lines of group N's components, from V[I] on; returns past them. */
static int cdf_lines(FILE *f, const struct svg_axis *x, const struct svg_axis *y,
		     const struct row *v, int nv, int i)
{
	int n = v[i].n, k = 0;

	while (i < nv && v[i].n == n) {
		int j = i;

		fputs("<polyline class=\"cdf\" data-component=\"", f);
		svg_esc(f, v[i].key);
		fprintf(f, "\" data-max-us=\"%.3f\" stroke=\"%s\" stroke-dasharray=\"%s\""
			" points=\"%.2f,%.2f", v[i].v[CDF_MAX], svg_colour(k),
			k < 10 ? "none" : "4 2", svg_px(x, v[i].v[CDF_US]), svg_px(y, 0));
		/* steps: up at each value to its fraction, across to the next */
		for (; j < nv && v[j].n == n && !strcmp(v[j].key, v[i].key); j++)
			fprintf(f, " %.2f,%.2f %.2f,%.2f", svg_px(x, v[j].v[CDF_US]),
				svg_px(y, j > i ? v[j - 1].v[CDF_FRACTION] : 0),
				svg_px(x, v[j].v[CDF_US]), svg_px(y, v[j].v[CDF_FRACTION]));
		fputs("\"/>\n", f);
		legend(f, WIDTH - RIGHT + 20, TOP + 10 + k * 18, svg_colour(k),
		       k < 10 ? "none" : "4 2", v[i].label);
		k++;
		i = j;
	}
	return i;
}

static int cdf_svg(struct plot *p, const struct row *v, int nv, int i)
{
	struct svg_axis x = { .px0 = 80, .px1 = WIDTH - RIGHT };
	struct svg_axis y = { .px0 = 400, .px1 = TOP + 10 };
	int gi = group_at(p, v[i].n);
	double lo = v[i].v[CDF_MIN], hi = v[i].v[CDF_MAX];
	char name[32], title[256];

	for (int j = i; j < nv && v[j].n == v[i].n; j++) {
		lo = v[j].v[CDF_MIN] < lo ? v[j].v[CDF_MIN] : lo;
		hi = v[j].v[CDF_MAX] > hi ? v[j].v[CDF_MAX] : hi;
	}
	/* log when every value is positive: the components span decades */
	svg_axis_fit(&x, lo, hi, 8, lo > 0);
	svg_axis_fit(&y, 0, 1, 5, 0);
	snprintf(name, sizeof(name), "cdf-%d.svg", v[i].n);
	snprintf(title, sizeof(title), "Latency CDF per component: %s",
		 gi >= 0 ? p->g[gi].title : "");
	if (file_begin(p, name))
		return -1;
	svg_begin(p->f, "cdf", WIDTH, 460, title);
	fprintf(p->f, "<g class=\"panel\" data-n=\"%d\">\n", v[i].n);
	svg_axis_x(p->f, &x, y.px0 + 4, x.log ? "time (us, log scale)" : "time (us)");
	svg_axis_y(p->f, &y, x.px0 - 4, "fraction of commands at or below");
	cdf_lines(p->f, &x, &y, v, nv, i);
	fputs("</g>\n", p->f);
	svg_end(p->f);
	return file_end(p);
}

static int cdf_svgs(struct plot *p)
{
	struct row *v = NULL;
	int nv, rc = 0;

	if (load(p, "SELECT x.n, x.ord, x.component, x.label, x.us, x.fraction, x.min_us,"
		 " x.max_us FROM ntp_plot_cdf AS x" PLOTTED " ORDER BY x.n, x.ord, x.us", &v,
		 &nv)) {
		free(v);
		return -1;
	}
	for (int i = 0; i < nv && !rc; i++)
		if (!i || v[i].n != v[i - 1].n)
			rc = cdf_svg(p, v, nv, i);
	free(v);
	return rc;
}

/* ---- timeline.svg ---- */

/* One panel's lines: value K of the points, a line per series and key. */
static void lines(struct plot *p, const struct svg_axis *x, const struct svg_axis *y,
		  const struct row *v, int nv, int k, const char *cls, const char *dash)
{
	FILE *f = p->f;

	for (int i = 0; i < nv;) {
		int j = i, gi = group_at(p, v[i].n);
		/* a line per series, coloured by series; the shares' by stage,
		 * dashed after the first series */
		const char *colour = v[i].key[0] ? svg_colour(v[i].ord) : svg_colour(gi);

		fprintf(f, "<polyline class=\"series %s\" data-n=\"%d\" data-stage=\"", cls,
			v[i].n);
		svg_esc(f, v[i].key);
		fprintf(f, "\" stroke=\"%s\" stroke-dasharray=\"%s\" points=\"", colour,
			v[i].key[0] && gi > 0 ? "4 2" : dash);
		for (; j < nv && v[j].n == v[i].n && !strcmp(v[j].key, v[i].key); j++)
			fprintf(f, "%s%.2f,%.2f", j > i ? " " : "", svg_px(x, v[j].v[TS_T]),
				svg_px(y, v[j].v[k]));
		fputs("\"/>\n", f);
		i = j;
	}
}

/* Open a panel from pixel row TOP_PX, 160 px high, its values 0..MAX on *Y
 * against time on X; the caller draws the lines and closes it. */
static void panel(struct plot *p, const char *name, const struct svg_axis *x, double top_px,
		  double max, const char *title, struct svg_axis *y)
{
	*y = (struct svg_axis){ .px0 = top_px + 160, .px1 = top_px };
	svg_axis_fit(y, 0, max, 4, 0);
	fprintf(p->f, "<g class=\"panel\" data-panel=\"%s\">\n", name);
	svg_axis_x(p->f, x, y->px0 + 4, "time since the first command (s)");
	svg_axis_y(p->f, y, x->px0 - 4, title);
}

static int timeline_body(struct plot *p, const struct row *sr, int ns, const struct row *sh,
			 int nsh)
{
	struct svg_axis x = { .px0 = 90, .px1 = WIDTH - RIGHT }, y;
	double tmax = 0, rmax = 0, lmax = 0;
	const double top[3] = { TOP + 10, TOP + 240, TOP + 470 };

	for (int i = 0; i < ns; i++) {
		tmax = sr[i].v[TS_T] > tmax ? sr[i].v[TS_T] : tmax;
		rmax = sr[i].v[TS_RATE] > rmax ? sr[i].v[TS_RATE] : rmax;
		lmax = sr[i].v[TS_P99] > lmax ? sr[i].v[TS_P99] : lmax;
		lmax = sr[i].v[TS_MEAN] > lmax ? sr[i].v[TS_MEAN] : lmax;
	}
	svg_axis_fit(&x, 0, tmax, 10, 0);
	panel(p, "rate", &x, top[0], rmax, "commands/s", &y);
	lines(p, &x, &y, sr, ns, TS_RATE, "rate", "none");
	fputs("</g>\n", p->f);
	panel(p, "latency", &x, top[1], lmax, "latency (us)", &y);
	lines(p, &x, &y, sr, ns, TS_MEAN, "mean", "none");
	lines(p, &x, &y, sr, ns, TS_P99, "p99", "5 3");
	fputs("</g>\n", p->f);
	panel(p, "shares", &x, top[2], 1, "share of the mean latency", &y);
	lines(p, &x, &y, sh, nsh, TS_SHARE, "share", "none");
	fputs("</g>\n", p->f);
	return 0;
}

/* The legends of the time series: the series, mean and p99, the stages. */
static void timeline_legend(struct plot *p, const struct row *sh, int nsh)
{
	double x = WIDTH - RIGHT + 20, y = TOP + 20;
	int shown = 0;

	for (int gi = 0; gi < p->ng; gi++, y += 18)
		legend(p->f, x, y, svg_colour(gi), "none", p->g[gi].title);
	legend(p->f, x, TOP + 250, "#444", "none", "mean");
	legend(p->f, x, TOP + 268, "#444", "5 3", "p99");
	for (int ord = 0, i; ord < MAX_ORD; ord++)
		if ((i = first_of(sh, nsh, ord)) >= 0)
			legend(p->f, x, TOP + 480 + shown++ * 18, svg_colour(ord), NULL,
			       sh[i].label);
}

static int timeline_svg(struct plot *p, double width_s)
{
	struct row *sr = NULL, *sh = NULL;
	int ns = 0, nsh = 0, rc = -1;
	char title[128];

	if (load(p, "SELECT x.n, 0, '', '', x.t_s, x.rate, x.mean_us, x.p99_us"
		 " FROM ntp_plot_series AS x" PLOTTED " ORDER BY x.n, x.bucket", &sr, &ns) ||
	    load(p, "SELECT x.n, x.ord, x.stage, x.label, x.t_s, x.share"
		 " FROM ntp_plot_series_stage AS x" PLOTTED " ORDER BY x.n, x.ord, x.bucket", &sh,
		 &nsh) || file_begin(p, "timeline.svg"))
		goto out;
	snprintf(title, sizeof(title), "Over time, in buckets of %g s: rate, latency and the "
		 "stages' shares", width_s);
	svg_begin(p->f, "timeline", WIDTH, TOP + 680, title);
	timeline_body(p, sr, ns, sh, nsh);
	timeline_legend(p, sh, nsh);
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

/* 1 when PATH starts as ntprof plot's files do: the mark on its first line,
 * or on the second after index.html's doctype. */
static int ours(const char *path)
{
	char line[64] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f) && !strcmp(line, "<!DOCTYPE html>\n") &&
	    !fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	return !strncmp(line, SVG_MARK, strlen(SVG_MARK));
}

static int check_dir(struct plot *p, char *err, size_t errlen)
{
	const char *dir = p->o->dir;
	struct stat st;
	char path[4096];

	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
		return ntp_fail(err, errlen, "%s: not a directory", dir);
	if (mkdir(dir, 0777) && errno != EEXIST)
		return ntp_fail(err, errlen, "%s: cannot create the directory: %s", dir,
				strerror(errno));
	for (int i = 0; i < p->nfiles; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, p->file[i].name);
		if (access(path, F_OK) == 0 && !ours(path))
			return ntp_fail(err, errlen, "%s: not written by ntprof plot: not "
					"overwriting it (choose another -o)", path);
	}
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
	DIR *d = opendir(p->o->dir);
	struct dirent *e;
	char path[4096];

	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, "cdf-", 4) || len < 8 ||
		    strcmp(e->d_name + len - 4, ".svg") || writes(p, e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", p->o->dir, e->d_name);
		if (ours(path))
			unlink(path);
	}
	if (d)
		closedir(d);
}

static int write_files(struct plot *p, FILE *list, char *err, size_t errlen)
{
	char path[4096];

	for (int i = 0; i < p->nfiles; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", p->o->dir, p->file[i].name);
		f = fopen(path, "w");
		if (!f || fwrite(p->file[i].text, 1, p->file[i].len, f) != p->file[i].len ||
		    fclose(f)) {
			int e = errno;

			return ntp_fail(err, errlen, "%s: cannot write: %s", path, strerror(e));
		}
		fprintf(list, "%s\n", path);
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

static int lay_out(struct plot *p, char *err, size_t errlen)
{
	double width_s;

	if (load_groups(p))
		return ntp_fail(err, errlen, "cannot read the groups: %s",
				sqlite3_errmsg(p->s->db));
	if (!p->ng)
		return p->o->group ? ntp_fail(err, errlen, "no I/O group's name contains '%s'",
					      p->o->group)
				   : ntp_fail(err, errlen, "no I/O commands to plot");
	if (stages_svg(p) || cdf_svgs(p) || set_width(p, &width_s) || timeline_svg(p, width_s) ||
	    index_html(p))
		return ntp_fail(err, errlen, "cannot lay the plots out: %s",
				sqlite3_errmsg(p->s->db));
	return 0;
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
	free(p.g);
	return rc;
}
