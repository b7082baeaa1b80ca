// SPDX-License-Identifier: BSD-2-Clause
/*
 * sql/stats.sql against the generator's truth: the per-command drill-down,
 * per-stage percentiles, log2 histograms, CDFs and time series, computed
 * here in C from the simulated timelines (components, and each command's
 * cmd.t) and never from the database. Stage sums come from lists written
 * here and checked against vocab.sql. Both session kinds are checked (the
 * native aggregates change the report's component statistics these views
 * build on).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "native.h"
#include "ntp_err.h"
#include "ntp_sql.h"
#include "testlib.h"

/* A stage and its components, for one kind of report. */
struct stage_def {
	const char *name;
	enum gen_comp comp[4];
	int n;
};

static const struct stage_def joined_stages[] = {
	{ "host_block", { GC_H_BLK_SUB, GC_H_BLK_CPL }, 2 },
	{ "host_driver", { GC_H_DRV_SUB, GC_H_R2T, GC_H_DRV_CPL, GC_H_HANDOFF }, 4 },
	{ "network", { GC_WIRE, GC_T_RX_PATH, GC_H_RX_PATH }, 3 },
	{ "target_driver", { GC_T_DRV_SUB, GC_T_DRV_CPL }, 2 },
	{ "storage", { GC_T_STORAGE }, 1 },
};
static const struct stage_def host_stages[] = {
	{ "host_block", { GC_H_BLK_SUB, GC_H_BLK_CPL }, 2 },
	{ "host_driver", { GC_H_DRV_SUB, GC_H_R2T, GC_H_DRV_CPL, GC_H_HANDOFF }, 4 },
	{ "host_rx", { GC_H_RX_PATH }, 1 },
	{ "net_target", { GC_H_WAIT }, 1 },
};
#define NSTAGES(a) (sizeof(a) / sizeof((a)[0]))

static const enum gen_comp joined_comps[] = {
	GC_H_BLK_SUB, GC_H_DRV_SUB, GC_H_R2T, GC_WIRE, GC_T_RX_PATH, GC_T_DRV_SUB, GC_T_STORAGE,
	GC_T_DRV_CPL, GC_H_RX_PATH, GC_H_DRV_CPL, GC_H_BLK_CPL, GC_H_HANDOFF, GC_E2E,
};
static const enum gen_comp host_comps[] = {
	GC_H_BLK_SUB, GC_H_DRV_SUB, GC_H_R2T, GC_H_WAIT, GC_H_RX_PATH, GC_H_DRV_CPL,
	GC_H_BLK_CPL, GC_H_HANDOFF, GC_E2E,
};

static int64_t stage_of(const struct gen_truth *t, const struct stage_def *s)
{
	int64_t v = 0;

	for (int i = 0; i < s->n; i++)
		v += t->comp[s->comp[i]];
	return v;
}

/* The commands of a report group: host H's reads or writes, the matched
 * ones only when the group is joined. */
struct grp {
	const struct gen_result *r;
	int h, write, joined;
	const char *hdb;
	int64_t id; /* grp.id in the host's file */
};

static int in_group(const struct grp *g, const struct gen_truth *t)
{
	return t->host == g->h && t->grp_is_write == g->write && (!g->joined || t->matched);
}

/* The group's values of a stage (S) or, with S NULL, of component C. */
static int64_t *values(const struct grp *g, const struct stage_def *s, enum gen_comp c,
		       size_t *n)
{
	int64_t *v = malloc((g->r->ntruth + 1) * sizeof(*v));

	assert_non_null(v);
	*n = 0;
	for (uint64_t i = 0; i < g->r->ntruth; i++)
		if (in_group(g, &g->r->truth[i]))
			v[(*n)++] = s ? stage_of(&g->r->truth[i], s) : g->r->truth[i].comp[c];
	return v;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static struct grp group(struct ntp_session *s, const struct gen_result *r, const char *hdb,
			int h, int write)
{
	struct grp g = { r, h, write, 0, hdb, 0 };

	g.id = tl_int(s->db, "SELECT grp FROM ntp_report_group WHERE hdb = '%q' AND op = '%s'",
		      hdb, write ? "write" : "read");
	g.joined = tl_int(s->db, "SELECT mode = 'joined' FROM ntp_report_group WHERE hdb = '%q'"
			  " AND grp = %lld", hdb, (long long)g.id);
	return g;
}

/* ---- per-stage percentiles ---- */

static void check_stage_stats(struct ntp_session *s, const struct grp *g,
			      const struct stage_def *st)
{
	static const int q[] = { 50000, 90000, 99000, 99900 };
	char *sql = sqlite3_mprintf("SELECT x.n, x.sum_ns, x.p50_ns, x.p90_ns, x.p99_ns, x.p999_ns,"
				    " x.mean_ns - r.mean_ns FROM ntp_report_stage_stats AS x"
				    " JOIN ntp_report_stage AS r USING (hdb, grp, stage)"
				    " WHERE hdb = '%q' AND grp = %lld AND stage = '%q'", g->hdb,
				    (long long)g->id, st->name);
	size_t n;
	int64_t *v = values(g, st, 0, &n), sum = 0;
	sqlite3_stmt *q1;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	assert_int_equal(sqlite3_prepare_v2(s->db, sql, -1, &q1, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q1), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(q1, 0), n);
	assert_int_equal(sqlite3_column_int64(q1, 1), sum);
	for (int i = 0; i < 4; i++)
		assert_int_equal(sqlite3_column_int64(q1, 2 + i), tl_percentile(v, n, q[i]));
	/* the same mean as the report's stage table, computed another way */
	assert_true(fabs(sqlite3_column_double(q1, 6)) < 1e-6);
	sqlite3_finalize(q1);
	sqlite3_free(sql);
	free(v);
}

static void check_group_stages(struct ntp_session *s, const struct grp *g)
{
	const struct stage_def *st = g->joined ? joined_stages : host_stages;
	size_t n = g->joined ? NSTAGES(joined_stages) : NSTAGES(host_stages);

	assert_int_equal(tl_int(s->db, "SELECT count(*) FROM ntp_report_stage_stats WHERE "
				"hdb = '%q' AND grp = %lld", g->hdb, (long long)g->id), n);
	for (size_t i = 0; i < n; i++)
		check_stage_stats(s, g, &st[i]);
}

/* Kernel pair at qd 4, reads and writes, storage a constant 40 us: every
 * stage's percentiles; the constant stage's are the constant. */
static void test_stage_stats(void **state)
{
	struct gen_config c;
	struct gen_result r;
	struct ntp_session s;

	gen_defaults(&c);
	c.qd = 4;
	c.read_frac = 0.6;
	c.write_kib = 32; /* R2T: the optional component in the host driver */
	c.storage_ns = 40000;
	c.seconds = 0.5;
	c.seed = 21;
	tl_gen(&c, &r);
	for (int portable = 0; portable < 2; portable++) {
		tl_open(&s, portable ? NTP_OPEN_PORTABLE : 0, tl_file("h0.db"), tl_file("t.db"),
			NULL);
		for (int w = 0; w < 2; w++) {
			struct grp g = group(&s, &r, "host", 0, w);

			assert_true(g.joined);
			check_group_stages(&s, &g);
		}
		assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_report_stage_stats WHERE "
					"stage = 'storage' AND p50_ns = 40000 AND p90_ns = 40000"
					" AND p99_ns = 40000 AND p999_ns = 40000"), 2);
		ntp_session_close(&s);
	}
	gen_result_free(&r);
	/* the host alone: its own stages, host_rx made constant */
	gen_defaults(&c);
	c.rx_path_ns = 4000;
	c.sample_rate = 2;
	c.no_target = 1;
	c.seconds = 0.5;
	c.seed = 22;
	tl_gen(&c, &r);
	tl_open(&s, 0, tl_file("h0.db"), NULL);
	{
		struct grp g = group(&s, &r, "host", 0, 0);

		assert_false(g.joined);
		check_group_stages(&s, &g);
	}
	assert_int_equal(tl_int(s.db, "SELECT p50_ns FROM ntp_report_stage_stats WHERE "
				"stage = 'host_rx'"), 4000);
	ntp_session_close(&s);
	gen_result_free(&r);
	tl_cleanup();
}

/* ---- histograms and CDFs ---- */

/* biolatency's bucket of V ns: -2 below 0, -1 below 1 us, else floor(log2(us)) */
static int bucket_of(int64_t v)
{
	int k = 0;

	if (v < 0)
		return -2;
	if (v < 1000)
		return -1;
	for (int64_t u = v / 1000; u > 1; u >>= 1)
		k++;
	return k;
}

static void check_hist(struct ntp_session *s, const struct grp *g, const char *name,
		       const int64_t *v, size_t n)
{
	int64_t count[64] = { 0 }, top = 0, sum = 0;
	int lo = -1, hi = -2, rows = 0;
	sqlite3_stmt *st;
	char *sql = sqlite3_mprintf("SELECT bucket, lo_us, hi_us, count, bar FROM ntp_report_hist"
				    " WHERE hdb = '%q' AND grp = %lld AND name = '%q'"
				    " ORDER BY bucket", g->hdb, (long long)g->id, name);

	for (size_t i = 0; i < n; i++) {
		int k = bucket_of(v[i]);

		count[k + 2]++;
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	for (int k = lo; k <= hi; k++)
		top = count[k + 2] > top ? count[k + 2] : top;
	assert_int_equal(sqlite3_prepare_v2(s->db, sql, -1, &st, NULL), SQLITE_OK);
	for (int k = lo; k <= hi; k++, rows++) {
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), k);
		if (k >= -1)
			assert_int_equal(sqlite3_column_int64(st, 1), k < 0 ? 0 : 1LL << k);
		assert_int_equal(sqlite3_column_int64(st, 2), k < -1 ? 0 : 1LL << (k + 1));
		assert_int_equal(sqlite3_column_int64(st, 3), count[k + 2]);
		assert_int_equal(sqlite3_column_int64(st, 4), count[k + 2] * 40 / top);
		sum += sqlite3_column_int64(st, 3);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	assert_int_equal(sum, n); /* the counts add up to the values */
	sqlite3_finalize(st);
	sqlite3_free(sql);
}

static void check_cdf(struct ntp_session *s, const struct grp *g, const char *name,
		      int64_t *v, size_t n)
{
	sqlite3_stmt *st;
	char *sql = sqlite3_mprintf("SELECT ns, n, cum, total, fraction FROM ntp_report_cdf"
				    " WHERE hdb = '%q' AND grp = %lld AND name = '%q' ORDER BY ns",
				    g->hdb, (long long)g->id, name);
	double last = 0;
	size_t i = 0;

	qsort(v, n, sizeof(*v), cmp64);
	assert_int_equal(sqlite3_prepare_v2(s->db, sql, -1, &st, NULL), SQLITE_OK);
	while (i < n) {
		size_t j = i;

		while (j < n && v[j] == v[i])
			j++;
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), v[i]);
		assert_int_equal(sqlite3_column_int64(st, 1), j - i);
		assert_int_equal(sqlite3_column_int64(st, 2), j);
		assert_int_equal(sqlite3_column_int64(st, 3), n);
		last = sqlite3_column_double(st, 4);
		assert_true(fabs(last - (double)j / (double)n) < 1e-12);
		i = j;
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	assert_true(last == 1.0); /* the CDF ends at 1 */
	sqlite3_finalize(st);
	sqlite3_free(sql);
}

static void check_distributions(struct ntp_session *s, const struct grp *g)
{
	const enum gen_comp *c = g->joined ? joined_comps : host_comps;
	size_t nc = g->joined ? NSTAGES(joined_comps) : NSTAGES(host_comps);
	const struct stage_def *st = g->joined ? joined_stages : host_stages;
	size_t ns = g->joined ? NSTAGES(joined_stages) : NSTAGES(host_stages), n;

	for (size_t i = 0; i < nc + ns; i++) {
		int64_t *v = values(g, i < nc ? NULL : &st[i - nc], i < nc ? c[i] : 0, &n);
		const char *name = i < nc ? gen_comp_name[c[i]] : st[i - nc].name;

		if (i < nc && c[i] == GC_H_R2T && !g->write) {
			/* reads have no R2T: no values, no histogram */
			assert_false(tl_has_row(s->db, "SELECT count FROM ntp_report_hist WHERE "
						"grp = %lld AND name = 'h_r2t'", (long long)g->id));
			free(v);
			continue;
		}
		check_hist(s, g, name, v, n);
		check_cdf(s, g, name, v, n);
		free(v);
	}
}

/* Every component's and stage's histogram and CDF, joined and host-only. */
static void test_hist_cdf(void **state)
{
	struct gen_config c;
	struct gen_result r;
	struct ntp_session s;

	gen_defaults(&c);
	c.qd = 2;
	c.read_frac = 0.5;
	c.write_kib = 64;
	c.seconds = 0.3;
	c.iops = 8000;
	c.seed = 23;
	tl_gen(&c, &r);
	for (int k = 0; k < 3; k++) {
		/* native, portable, and the host's file alone */
		if (k < 2)
			tl_open(&s, k ? NTP_OPEN_PORTABLE : 0, tl_file("h0.db"), tl_file("t.db"),
				NULL);
		else
			tl_open(&s, 0, tl_file("h0.db"), NULL);
		for (int w = 0; w < 2; w++) {
			struct grp g = group(&s, &r, "host", 0, w);

			assert_int_equal(g.joined, k < 2);
			check_distributions(&s, &g);
		}
		ntp_session_close(&s);
	}
	gen_result_free(&r);
	tl_cleanup();
}

/* ---- the tail bands: the native form is the portable one ---- */

/* Every row of SQL as text, columns separated by '|', rows by '\n'. */
static char *rows_text(sqlite3 *db, const char *sql)
{
	sqlite3_str *out = sqlite3_str_new(db);
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const unsigned char *t = sqlite3_column_text(st, i);

			sqlite3_str_appendf(out, "%s%s", i ? "|" : "", t ? (const char *)t : "NULL");
		}
		sqlite3_str_appendchar(out, 1, '\n');
	}
	sqlite3_finalize(st);
	return sqlite3_str_finish(out);
}

/* Two forms' texts A and B: the same, and longer than MIN; both freed. */
static void same_forms(char *a, char *b, size_t min)
{
	assert_true(strlen(a) > min);
	assert_string_equal(a, b);
	sqlite3_free(a);
	sqlite3_free(b);
}

/* rows_text of the SQL FMT formats (sqlite3_mprintf's). */
static char *rows_textf(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	char *q, *t;

	va_start(ap, fmt);
	q = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	assert_non_null(q);
	t = rows_text(db, q);
	sqlite3_free(q);
	return t;
}

/* The bands' own checks, in each form: five bands per group, over all its
 * commands. */
static void check_bands(struct ntp_session *s)
{
	assert_int_equal(tl_int(s->db, "SELECT count(*) FROM _ntp_tail_band"),
			 5 * tl_int(s->db, "SELECT count(*) FROM ntp_report_group"
				    " WHERE queue = 'io'"));
	assert_int_equal(tl_int(s->db, "SELECT count(*) FROM (SELECT hdb, grp,"
				" sum(n) AS n FROM _ntp_tail_band GROUP BY hdb, grp)"
				" AS b JOIN ntp_report_component_stats AS c USING"
				" (hdb, grp) WHERE c.component = 'e2e' AND c.n = b.n"),
			 tl_int(s->db, "SELECT count(*) FROM ntp_report_group"
				" WHERE queue = 'io'"));
}

/* The CDF lines' own checks: every line of every plotted group's reported
 * components, each ending at fraction 1 at its largest value. */
static void check_cdf_lines(struct ntp_session *s)
{
	assert_int_equal(tl_int(s->db, "SELECT count(DISTINCT n || ' ' || component)"
				" FROM _ntp_plot_cdf_line"),
			 tl_int(s->db, "SELECT count(*) FROM ntp_plot_group AS g"
				" JOIN ntp_report_components AS c USING (hdb, grp)"));
	assert_int_equal(tl_int(s->db, "SELECT count(*) FROM _ntp_plot_cdf_line"
				" WHERE fraction = 1 AND us = max_us"),
			 tl_int(s->db, "SELECT count(DISTINCT n || ' ' || component)"
				" FROM _ntp_plot_cdf_line"));
}

/* VIEW of native.sql and of its portable file, and the native one once
 * the session's preparation has run (CACHED: the view then reads its cached
 * table, a TEMP one or the prepared run's cache file's): the same rows of
 * Q, after the statements PRE (or none), joined, host-only and two hosts
 * of one target (the same group ids in both: a native scan of every
 * group at once must tell them apart), on writes with R2T and reads;
 * CHECK asserts the view's own rules in each form. */
static void check_forms(const char *view, int cached, const char *pre, const char *q,
			void (*check)(struct ntp_session *))
{
	struct gen_config c;
	struct gen_result r;
	struct ntp_session s;
	char err[NTP_ERR_MAX];

	gen_defaults(&c);
	c.qd = 4;
	c.read_frac = 0.6;
	c.write_kib = 32;
	c.seconds = 0.6;
	c.seed = 29;
	c.nhosts = 2;
	tl_gen(&c, &r);
	for (int set = 0; set < 3; set++) {
		char *form[4];

		for (int k = 0; k < 4; k++) {
			const char *paths[] = { tl_file("h0.db"),
						set == 1 ? NULL : tl_file(set == 2 ? "h1.db" : "t.db"),
						set == 2 ? tl_file("t.db") : NULL };

			/* the fourth: native and prepared, with no memory for the
			 * values (every group a part of its own, _ntp_native_group,
			 * and every value written out) */
			if (k == 3)
				assert_int_equal(setenv("NTPROF_SELECT_MEMORY", "0", 1), 0);
			/* host 0 and the target; host 0 alone; both hosts and the target */
			tl_open(&s, k == 1 ? NTP_OPEN_PORTABLE : k == 3 ? NTP_OPEN_NO_CACHE : 0,
				paths[0], paths[1], paths[2], NULL);
			assert_int_equal(s.native, k != 1);
			/* a preparation of its own: the joined statistics from
			 * the join's tap, its counts and each part's components
			 * and stages */
			if (k == 3)
				assert_int_equal(tl_int(s.db, "SELECT ntp_tap_served()"),
						 set == 1 ? 0 :
						 1 + 2 * tl_int(s.db, "SELECT count(DISTINCT part)"
								" FROM _ntp_native_group"
								" WHERE mode = 'joined'"));
			if (k == 3) {
				assert_int_equal(unsetenv("NTPROF_SELECT_MEMORY"), 0);
				assert_int_equal(tl_int(s.db, "SELECT ntp_select_budget()"), 0);
				assert_true(tl_int(s.db, "SELECT count(DISTINCT mode || part)"
						   " FROM _ntp_native_group") >= 2);
			}
			if (k == 2 || k == 3) {
				char *like = sqlite3_mprintf("SELECT 1 FROM temp.sqlite_schema"
							     " WHERE name = '%q' AND type = 'view'"
							     " AND sql LIKE '%%%q_cache%%'",
							     view, view);

				/* everything the plan caches, plain sqlite3's
				 * end to end too */
				assert_int_equal(ntp_session_prepare_more(&s, err, sizeof(err)), 0);
				assert_int_equal(tl_has_row(s.db, "%s", like), cached);
				sqlite3_free(like);
			}
			if (pre)
				assert_int_equal(sqlite3_exec(s.db, pre, NULL, NULL, NULL), SQLITE_OK);
			form[k] = rows_text(s.db, q);
			check(&s);
			ntp_session_close(&s);
		}
		assert_true(strlen(form[0]) > 100);
		assert_string_equal(form[0], form[1]);
		assert_string_equal(form[0], form[2]);
		assert_string_equal(form[0], form[3]);
		for (int k = 0; k < 4; k++)
			sqlite3_free(form[k]);
	}
	gen_result_free(&r);
	tl_cleanup();
}

/* _ntp_tail_band of native.sql (ntp_bands) and of stats.sql (a sort): a
 * cached view of the preparation. */
static void test_tail_forms(void **state)
{
	(void)state;
	check_forms("_ntp_tail_band", 1, NULL, "SELECT * FROM _ntp_tail_band ORDER BY hdb, grp, band_ord",
		    check_bands);
}

/* _ntp_plot_cdf_line of native.sql (ntp_cdf) and of plot.sql (window
 * functions over ntp_report_cdf): not prepared, computed when plotted. */
static void test_cdf_line_forms(void **state)
{
	(void)state;
	check_forms("_ntp_plot_cdf_line", 0, NULL,
		    "SELECT * FROM _ntp_plot_cdf_line ORDER BY n, ord, fraction", check_cdf_lines);
}

/* The histograms' own checks: one per distribution of the report's values,
 * its counts adding up to them. */
static void check_hist_counts(struct ntp_session *s)
{
	int64_t dists = tl_int(s->db, "SELECT count(*) FROM (SELECT DISTINCT hdb, grp, kind, name"
			       " FROM _ntp_report_cmd_value)");

	assert_true(dists > 10);
	assert_int_equal(tl_int(s->db, "SELECT count(*) FROM (SELECT hdb, grp, kind, name,"
				" sum(count) AS c FROM ntp_report_hist GROUP BY 1, 2, 3, 4) AS h"
				" JOIN (SELECT hdb, grp, kind, name, count(*) AS c"
				" FROM _ntp_report_cmd_value GROUP BY 1, 2, 3, 4) AS v"
				" USING (hdb, grp, kind, name) WHERE h.c = v.c"), dists);
}

/* ntp_report_hist of native.sql (counted in the statistics' scans) and of
 * stats.sql (GROUP BY over every value): a cached view of the
 * preparation. */
static void test_hist_forms(void **state)
{
	(void)state;
	check_forms("ntp_report_hist", 1, NULL, "SELECT * FROM ntp_report_hist", check_hist_counts);
}

/* The CDF points' own checks: per distribution, the first value (cum = n)
 * and the last (fraction 1), and at most 111 points. */
static void check_cdf_points(struct ntp_session *s)
{
	int64_t dists = tl_int(s->db, "SELECT count(*) FROM (SELECT DISTINCT hdb, grp, kind, name"
			       " FROM _ntp_report_cmd_value)");

	assert_int_equal(tl_int(s->db, "SELECT count(*) FROM (SELECT min(ns), cum, n"
				" FROM _ntp_report_cdf_point GROUP BY hdb, grp, kind, name)"
				" WHERE cum = n"), dists);
	assert_int_equal(tl_int(s->db, "SELECT count(*) FROM (SELECT max(ns), cum, total, fraction,"
				" count(*) AS k FROM _ntp_report_cdf_point GROUP BY hdb, grp, kind, name)"
				" WHERE cum = total AND fraction = 1 AND k <= 111 AND k > 2"), dists);
}

/* _ntp_report_cdf_point of native.sql (selected in the statistics' scans)
 * and of stats.sql (ntp_report_cdf thinned): a cached view of the
 * preparation, what .cdf prints. */
static void test_cdf_point_forms(void **state)
{
	(void)state;
	check_forms("_ntp_report_cdf_point", 1, NULL, "SELECT * FROM _ntp_report_cdf_point",
		    check_cdf_points);
}

/* The series' own checks: every form's buckets hold every command of it
 * (the joined form's, the matches of the accepted joins). */
static void check_series_sums(struct ntp_session *s)
{
	assert_int_equal(tl_int(s->db, "SELECT sum(n) FROM _ntp_series_agg WHERE form = 'host'"),
			 tl_int(s->db, "SELECT count(*) FROM ntp_host_cmd"));
	assert_int_equal(tl_int(s->db, "SELECT coalesce(sum(n), 0) FROM _ntp_series_agg"
				" WHERE form = 'target'"),
			 tl_int(s->db, "SELECT count(*) FROM ntp_target_cmd"));
	assert_int_equal(tl_int(s->db, "SELECT coalesce(sum(n), 0) FROM _ntp_series_agg"
				" WHERE form = 'joined'"),
			 tl_int(s->db, "SELECT count(*) FROM ntp_joined WHERE (hdb, tdb) IN"
				" (SELECT hdb, tdb FROM _ntp_join_ok)"));
}

/* _ntp_series_agg of native.sql (ntp_series) and of stats.sql (GROUP BY
 * and a window), in 20 ms buckets: not prepared, computed per width. */
static void test_series_forms(void **state)
{
	(void)state;
	check_forms("_ntp_series_agg", 0, "UPDATE ntp_bucket SET width_ns = 20000000",
		    "SELECT * FROM _ntp_series_row ORDER BY form, db, grp, bucket", check_series_sums);
}

/* _ntp_series_e2e of native.sql (ntp_series of the end to end alone) and of
 * stats.sql (_ntp_series_agg's columns), through what reads it: ntp_series. */
static void check_series_e2e_sums(struct ntp_session *s)
{
	assert_int_equal(tl_int(s->db, "SELECT sum(n) FROM _ntp_series_e2e WHERE form = 'host'"),
			 tl_int(s->db, "SELECT count(*) FROM ntp_host_cmd"));
	assert_int_equal(tl_int(s->db, "SELECT coalesce(sum(sampled), 0) FROM ntp_series"
				" WHERE form = 'joined'"),
			 tl_int(s->db, "SELECT count(*) FROM ntp_joined WHERE (hdb, tdb) IN"
				" (SELECT hdb, tdb FROM _ntp_join_ok)"));
	/* the end to end's columns of the buckets with the components */
	assert_false(tl_has_row(s->db, "SELECT form, db, grp, bucket, n, sum_e2e, p99_ns"
				" FROM _ntp_series_agg EXCEPT SELECT * FROM _ntp_series_e2e"));
	assert_false(tl_has_row(s->db, "SELECT * FROM _ntp_series_e2e EXCEPT"
				" SELECT form, db, grp, bucket, n, sum_e2e, p99_ns FROM _ntp_series_agg"));
}

static void test_series_e2e_forms(void **state)
{
	(void)state;
	check_forms("_ntp_series_e2e", 0, "UPDATE ntp_bucket SET width_ns = 20000000",
		    "SELECT * FROM ntp_series ORDER BY form, db, grp, bucket",
		    check_series_e2e_sums);
}

/* Each recording's commands with their end to end (_ntp_host_e2e and
 * _ntp_target_e2e, the recordings' views), and the prepared run's tables
 * of them that plain sqlite3's set-up reads. */
static void check_e2e_rows(struct ntp_session *s)
{
	assert_int_equal(tl_int(s->db, "SELECT count(*) FROM _ntp_host_e2e"),
			 tl_int(s->db, "SELECT count(*) FROM ntp_host_cmd"));
	assert_int_equal(tl_int(s->db, "SELECT count(*) FROM _ntp_target_e2e"),
			 tl_int(s->db, "SELECT count(*) FROM ntp_target_cmd"));
}

static void test_e2e_forms(void **state)
{
	(void)state;
	check_forms("_ntp_host_e2e", 1, NULL,
		    "SELECT 'host', * FROM _ntp_host_e2e UNION ALL"
		    " SELECT 'target', * FROM _ntp_target_e2e ORDER BY 1, 2, 4", check_e2e_rows);
}

/* The portable _ntp_series_e2e picks each bucket's p99 from its largest
 * 32 end to ends, its largest 256, or all of them sorted, as its rank
 * counted from the top needs (stats.sql): on a run of one read group at
 * 60,000 commands a second, buckets of 10 ms (about 600 commands: rank 6),
 * 100 ms (6,000: rank 60) and 1 s (the whole 0.5 s, about 30,000: rank
 * 300) take each way, and give the native form's rows. */
static void test_series_e2e_ranks(void **state)
{
	static const char *const width[] = { "10000000", "100000000", "1000000000" };
	static const int lo[] = { 0, 32, 256 }, hi[] = { 32, 256, 1 << 30 };
	struct gen_config c;
	struct gen_result r;
	struct ntp_session s;

	(void)state;
	gen_defaults(&c);
	c.iops = 60000;
	c.qd = 16;
	c.read_frac = 1;
	c.seconds = 0.5;
	c.seed = 67;
	tl_gen(&c, &r);
	for (int w = 0; w < 3; w++) {
		char *form[2];

		for (int k = 0; k < 2; k++) {
			tl_open(&s, k ? NTP_OPEN_PORTABLE : 0, tl_file("h0.db"), tl_file("t.db"),
				NULL);
			assert_int_equal(s.native, !k);
			assert_int_equal(tl_int(s.db, "UPDATE ntp_bucket SET width_ns = %s"
						" RETURNING width_ns", width[w]), atoll(width[w]));
			form[k] = rows_text(s.db, "SELECT * FROM ntp_series ORDER BY form, db, grp,"
					    " bucket");
			/* the buckets' ranks from the top, n - (n q' + 99999) /
			 * 100000, all in this width's range */
			assert_int_equal(tl_int(s.db, "SELECT count(*) FROM _ntp_series_e2e WHERE"
						" n - (n * 99000 + 99999) / 100000 NOT BETWEEN %d AND %d"
						" AND n > 100", lo[w], hi[w] - 1), 0);
			assert_true(tl_int(s.db, "SELECT count(*) FROM _ntp_series_e2e WHERE"
					   " n - (n * 99000 + 99999) / 100000 BETWEEN %d AND %d",
					   lo[w], hi[w] - 1) >= 3);
			ntp_session_close(&s);
		}
		same_forms(form[0], form[1], 100);
	}
	gen_result_free(&r);
	tl_cleanup();
}

/* NHOSTS hosts sharing a target, each with a read and a write group, half
 * a second at queue depth 4: generated into R with SEED; writes of
 * WRITE_KIB (0: the generator's default). */
static void gen_hosts_kib(struct gen_result *r, int nhosts, uint64_t seed, uint32_t write_kib)
{
	struct gen_config c;

	gen_defaults(&c);
	c.nhosts = nhosts;
	c.qd = 4;
	c.read_frac = 0.6;
	c.seconds = 0.5;
	c.seed = seed;
	if (write_kib)
		c.write_kib = write_kib;
	tl_gen(&c, r);
}

static void gen_hosts(struct gen_result *r, int nhosts, uint64_t seed)
{
	gen_hosts_kib(r, nhosts, seed, 0);
}

/* _ntp_joined_count of native.sql (ntp_tally) and of join.sql (GROUP BY),
 * on two hosts with a read and a write group each sharing a target, and
 * what reads it: the join check and the report groups' matched commands. */
static void test_joined_count_forms(void **state)
{
	static const char *q[] = {
		"SELECT * FROM _ntp_joined_count ORDER BY hdb, grp, tdb",
		"SELECT * FROM ntp_join_check ORDER BY hdb, tdb",
		"SELECT * FROM _ntp_group_matched ORDER BY hdb, grp",
	};
	struct gen_result r;
	struct ntp_session s;
	char *form[2][3];

	(void)state;
	gen_hosts(&r, 2, 31);
	for (int k = 0; k < 2; k++) {
		tl_open(&s, k ? NTP_OPEN_PORTABLE : 0, tl_file("h0.db"), tl_file("h1.db"),
			tl_file("t.db"), NULL);
		assert_int_equal(s.native, !k);
		for (int i = 0; i < 3; i++)
			form[k][i] = rows_text(s.db, q[i]);
		/* every matched command counted once, in the groups there are */
		assert_int_equal(tl_int(s.db, "SELECT count(*) FROM _ntp_joined_count WHERE n > 0"), 4);
		assert_int_equal(tl_int(s.db, "SELECT sum(n) FROM _ntp_joined_count"),
				 tl_int(s.db, "SELECT count(*) FROM ntp_joined"));
		ntp_session_close(&s);
	}
	for (int i = 0; i < 3; i++) {
		assert_string_equal(form[0][i], form[1][i]);
		sqlite3_free(form[0][i]);
		sqlite3_free(form[1][i]);
	}
	gen_result_free(&r);
	tl_cleanup();
}

/* _ntp_component_stats' native arm (ntp_dist_by, prelude.sql) and its
 * portable arm (each host's ntp_component_stats, window functions): the
 * same rows, in the same order, with the same types and every bit of the
 * mean, on two hosts with a read and a write group each, writes with R2T
 * (an optional component, NULL on reads). What ntprof merge copies. */
static void test_component_stats_forms(void **state)
{
	static const char q[] = "SELECT *, typeof(n), typeof(sum_ns), typeof(mean_ns),"
				" typeof(p50_ns), typeof(p99_ns), typeof(p999_ns),"
				" printf('%.17g', mean_ns) FROM _ntp_component_stats";
	struct gen_result r;
	struct ntp_session s;
	char *form[2];

	(void)state;
	gen_hosts_kib(&r, 2, 37, 32);
	for (int k = 0; k < 2; k++) {
		tl_open(&s, k ? NTP_OPEN_PORTABLE : 0, tl_file("h0.db"), tl_file("h1.db"),
			tl_file("t.db"), NULL);
		assert_int_equal(s.native, !k);
		/* the native arm where native functions are */
		assert_int_equal(tl_has_row(s.db, "SELECT 1 FROM sqlite_temp_schema WHERE"
					    " name = '_ntp_component_stats' AND sql LIKE"
					    " '%%ntp_dist_by(%%'"), !k);
		form[k] = rows_text(s.db, q);
		/* both hosts' groups, R2T in the writes' only */
		assert_int_equal(tl_int(s.db, "SELECT count(DISTINCT db || grp)"
					" FROM _ntp_component_stats"), 4);
		assert_int_equal(tl_int(s.db, "SELECT count(*) FROM _ntp_component_stats"
					" WHERE component = 'h_r2t'"), 2);
		assert_int_equal(tl_int(s.db, "SELECT sum(n) FROM _ntp_component_stats"
					" WHERE component = 'e2e'"),
				 tl_int(s.db, "SELECT count(*) FROM ntp_host_cmd"));
		ntp_session_close(&s);
	}
	same_forms(form[0], form[1], 1000);
	gen_result_free(&r);
	tl_cleanup();
}

/* S (sqlite3_malloc'ed, freed here) with every FROM replaced by TO. */
static char *swap_all(char *s, const char *from, const char *to)
{
	size_t at = 0;
	char *p;

	while (s && (p = strstr(s + at, from))) {
		char *n = sqlite3_mprintf("%.*s%s%s", (int)(p - s), s, to, p + strlen(from));

		at = (size_t)(p - s) + strlen(to);
		sqlite3_free(s);
		s = n;
	}
	return s;
}

/* The native join's query (prelude.sql's ntp_joined_native) of host H and
 * target T, with DIRECT as ntp_pair's fifth argument (-1: ntp_pair's four
 * arguments, the host's query without ?1), and with SRC, ntp_pair's src as
 * its only column. */
static char *pair_query(const char *h, const char *t, int direct, int src)
{
	const char *a = strstr(ntp_sql_prelude, "\n-- @ntp_joined_native\n"), *e;
	char *q;

	assert_non_null(a);
	a = strstr(a, "\nSELECT\n");
	assert_non_null(a);
	e = strstr(a, "\n-- @");
	q = sqlite3_mprintf("%.*s", e ? (int)(e - a) : (int)strlen(a), a);
	assert_non_null(strstr(q, "\n  1,\n"));
	if (direct < 0) {
		char *a4 = strstr(q, "AND +o.slba = ?6',"), *w;

		assert_non_null(a4);
		w = sqlite3_mprintf("%.*s') AS p", (int)(a4 - q) + 16, q);
		sqlite3_free(q);
		q = swap_all(w, "\"@h@\".meta AS m WHERE c.t >= ?1'", "\"@h@\".meta AS m'");
	}
	q = swap_all(q, "\n  1,\n", direct ? "\n  1,\n" : "\n  0,\n");
	q = swap_all(q, "@h@", h);
	q = swap_all(q, "@t@", t);
	if (src) {
		char *w = sqlite3_mprintf("SELECT p.src FROM%s", strstr(q, "\nFROM ntp_pair(") + 5);

		sqlite3_free(q);
		q = w;
	}
	return q;
}

/* ntp_pair reading the files' pages (DIRECT 1) and reading them through
 * its queries (0): the same rows, in the same order; the rows that were
 * read directly, by side: the host's in *HOST, the target's in *TARGET. */
static void pair_direct_same(sqlite3 *db, const char *h, const char *t, int64_t *host,
			     int64_t *target)
{
	char *rows[3], *q;

	/* and the four arguments of ntp_pair before DIRECT */
	for (int d = -1; d < 2; d++) {
		q = pair_query(h, t, d, 0);
		assert_true(d >= 0 || strstr(q, "meta AS m',"));
		rows[d + 1] = rows_text(db, q);
		sqlite3_free(q);
		assert_non_null(rows[d + 1]);
	}
	assert_true(strlen(rows[1]) > 1000);
	assert_string_equal(rows[1], rows[2]);
	assert_string_equal(rows[1], rows[0]);
	for (int d = 0; d < 3; d++)
		sqlite3_free(rows[d]);
	q = pair_query(h, t, 0, 1);
	assert_int_equal(tl_int(db, "SELECT count(*) FROM (%s) WHERE src <> 0", q), 0);
	sqlite3_free(q);
	q = pair_query(h, t, 1, 1);
	*host = tl_int(db, "SELECT count(*) FROM (%s) WHERE src & 1", q);
	*target = tl_int(db, "SELECT count(*) FROM (%s) WHERE src & 2", q);
	sqlite3_free(q);
}

/* ntp_joined's native arm (ntp_pair, lib/pair.c) and its portable arm
 * (prelude.sql): the same rows in the same order, on runs that exercise
 * each of the pairing's rules: reads and writes with R2T; identities that
 * repeat, a fifth of the target's records lost, and a seventh of them
 * arriving 60 us later than they did (rule b: their middles lie outside
 * the host's wait); a drifting target clock and a jittery network over a
 * recording that starts late; two hosts sharing a target. */
static void test_joined_forms(void **state)
{
	struct gen_config c;
	struct gen_result r;
	struct ntp_session s;
	char *form[2];

	(void)state;
	for (int shape = 0; shape < 4; shape++) {
		gen_defaults(&c);
		c.qd = 4;
		c.read_frac = 0.6;
		c.write_kib = 32;
		c.seconds = 0.5;
		c.seed = 43 + shape;
		if (shape == 1) {
			/* one LBA: each command id's uses 250 us apart, so the
			 * host's wider window of rule b often holds another */
			c.lba_span = 8;
			c.iops = 16000;
			c.target_loss = 0.2;
		} else if (shape == 2) {
			c.seconds = 2;
			c.target_drift_ppm = 30;
			c.jitter_ns = 300000;
			c.target_window[0] = 0.5;
			c.target_window[1] = 3;
		} else if (shape == 3) {
			c.nhosts = 2;
		}
		tl_gen(&c, &r);
		if (shape == 1) {
			sqlite3 *db;

			assert_int_equal(sqlite3_open(tl_file("t.db"), &db), SQLITE_OK);
			assert_int_equal(sqlite3_exec(db, "UPDATE cmd SET t_rx = ifnull(t_rx, 0)"
						      " + 60000 WHERE t % 7 = 0", NULL, NULL, NULL),
					 SQLITE_OK);
			sqlite3_close(db);
		}
		for (int k = 0; k < 2; k++) {
			if (c.nhosts == 2)
				tl_open(&s, k ? NTP_OPEN_PORTABLE : 0, tl_file("h0.db"),
					tl_file("h1.db"), tl_file("t.db"), NULL);
			else
				tl_open(&s, k ? NTP_OPEN_PORTABLE : 0, tl_file("h0.db"),
					tl_file("t.db"), NULL);
			assert_int_equal(s.native, !k);
			/* its rows, and its table's column affinities (an index
			 * on ht serves a look-up by an integer only if ht is one) */
			form[k] = rows_text(s.db, "SELECT * FROM ntp_joined UNION ALL"
					    " SELECT name, type, NULL, NULL, NULL, NULL, NULL,"
					    " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
					    " NULL, NULL, NULL, NULL"
					    " FROM pragma_table_info('_ntp_joined_cache')");
			assert_true(tl_int(s.db, "SELECT count(*) FROM ntp_joined") > 100);
			/* the jittery run pairs some commands by rule b alone: their
			 * middles lie further apart than rule a allows */
			if (shape == 1)
				assert_true(tl_int(s.db, "SELECT count(*) FROM ntp_joined"
						   " WHERE abs(skew_ns) > e2e / 2 + 1000") > 10);
			/* the native join read every row from the files' pages,
			 * the rows those of its queries */
			if (!k) {
				int64_t nh, nt, n = tl_int(s.db, "SELECT count(*) FROM ntp_joined"
							   " WHERE hdb = 'host%s'",
							   c.nhosts == 2 ? "2" : "");

				pair_direct_same(s.db, c.nhosts == 2 ? "host2" : "host", "target",
						 &nh, &nt);
				assert_int_equal(nh, n);
				assert_int_equal(nt, n);
			}
			ntp_session_close(&s);
		}
		assert_string_equal(form[0], form[1]);
		sqlite3_free(form[0]);
		sqlite3_free(form[1]);
		gen_result_free(&r);
		tl_cleanup();
	}
}

/* The query of schema SC's commands as stored that ntp_e2e_series reads
 * (sql/native.sql, _ntp_cmd_query), its points from the recording's point
 * table. */
static char *e2e_query(sqlite3 *db, const char *sc)
{
	char *points = NULL, *q;
	sqlite3_stmt *st;
	char *sql = sqlite3_mprintf("SELECT group_concat('c.' || name, ', ') FROM (SELECT name"
				    " FROM %s.point WHERE role = %Q ORDER BY ord)", sc, sc);

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	points = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_free(sql);
	q = sqlite3_mprintf("SELECT c.t, c.grp, c.qid, c.cid, c.slba, m.mono_start, %s FROM"
			    " \"%w\".cmd AS c, \"%w\".meta AS m WHERE c.t >= ?1", points, sc, sc);
	sqlite3_free(points);
	return q;
}

/* ntp_pair's reader stopping in the middle of a file (a row that spills
 * to an overflow page, which only a changed recording has): the rest of
 * that side read through its query from the next row on, the rows the
 * same. On copies of a run's files, each with a column added and one row
 * in the middle made too large for its page, attached to a bare
 * connection with the run's group pairs. */
static void test_pair_direct_resumes(void **state)
{
	static const char gp[] = "SELECT hdb, tdb, hgrp, tgrp, mono_off, mono_shift, drift_ppb,"
				 " host_mono, window_ns FROM _ntp_grp_pair";
	struct gen_result r;
	struct ntp_session s;
	char *want, *q, *rows[2], *sql;
	int64_t n, nh, nt;
	sqlite3 *db;

	(void)state;
	gen_hosts(&r, 1, 53);
	tl_open(&s, 0, tl_file("h0.db"), tl_file("t.db"), NULL);
	q = pair_query("host", "target", 0, 0);
	want = rows_text(s.db, q);
	sqlite3_free(q);
	n = tl_int(s.db, "SELECT count(*) FROM ntp_joined");
	assert_true(n > 1000);
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(ntp_native_register(db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TEMP TABLE _ntp_grp_pair (hdb, tdb, hgrp, tgrp,"
				      " mono_off, mono_shift, drift_ppb, host_mono, window_ns)",
				      NULL, NULL, NULL), SQLITE_OK);
	{
		sqlite3_stmt *from, *to;

		assert_int_equal(sqlite3_prepare_v2(s.db, gp, -1, &from, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO _ntp_grp_pair VALUES (?, ?, ?,"
						    " ?, ?, ?, ?, ?, ?)", -1, &to, NULL), SQLITE_OK);
		while (sqlite3_step(from) == SQLITE_ROW) {
			for (int i = 0; i < 9; i++)
				sqlite3_bind_value(to, i + 1, sqlite3_column_value(from, i));
			assert_int_equal(sqlite3_step(to), SQLITE_DONE);
			sqlite3_reset(to);
		}
		sqlite3_finalize(from);
		sqlite3_finalize(to);
	}
	ntp_session_close(&s);
	for (int i = 0; i < 2; i++) {
		const char *f = tl_file(i ? "t.db" : "h0.db");
		sqlite3 *w;

		assert_int_equal(sqlite3_open(f, &w), SQLITE_OK);
		assert_int_equal(sqlite3_exec(w, "ALTER TABLE cmd ADD COLUMN pad;"
					      " UPDATE cmd SET pad = zeroblob(9000) WHERE t = (SELECT t"
					      " FROM cmd ORDER BY t LIMIT 1 OFFSET (SELECT count(*) / 2"
					      " FROM cmd))", NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(w);
		sql = sqlite3_mprintf("ATTACH 'file:%q?mode=ro&immutable=1' AS %s", f,
				      i ? "target" : "host");
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_free(sql);
	}
	for (int d = 0; d < 2; d++) {
		q = pair_query("host", "target", d, 0);
		rows[d] = rows_text(db, q);
		sqlite3_free(q);
		assert_non_null(rows[d]);
		assert_string_equal(rows[d], want);
		sqlite3_free(rows[d]);
	}
	/* each side read directly up to the row, then through its query */
	q = pair_query("host", "target", 1, 1);
	nh = tl_int(db, "SELECT count(*) FROM (%s) WHERE src & 1", q);
	nt = tl_int(db, "SELECT count(*) FROM (%s) WHERE src & 2", q);
	sqlite3_free(q);
	assert_true(nh > n / 3 && nh < 2 * n / 3);
	assert_true(nt > n / 3 && nt < 2 * n / 3);
	/* ntp_e2e_series reads each side the same way (the file's pages up to
	 * the row, through its query after it): the series ntp_series makes of
	 * the commands' end to end through the recording's view, in buckets of
	 * 20 ms and of 1 s */
	for (int side = 0; side < 2; side++) {
		const char *sc = side ? "target" : "host", *e = side ? "t_e2e" : "e2e";
		char *cmds = e2e_query(db, sc);

		for (int w = 0; w < 2; w++) {
			const char *width = w ? "1000000000" : "20000000";

			sql = sqlite3_mprintf("SELECT ntp_e2e_series(%Q, %d, (SELECT min(t) FROM %s.cmd),"
					      " %s, 1)", cmds, side, sc, width);
			rows[0] = rows_text(db, sql);
			sqlite3_free(sql);
			sql = sqlite3_mprintf("SELECT ntp_series((t - (SELECT min(t) FROM %s.cmd)) / %s,"
					      " %s) FROM %s.ntp_cmd_span WHERE grp = 1", sc, width, e,
					      sc);
			rows[1] = rows_text(db, sql);
			sqlite3_free(sql);
			assert_true(strlen(rows[1]) > 20);
			assert_string_equal(rows[0], rows[1]);
			sqlite3_free(rows[0]);
			sqlite3_free(rows[1]);
		}
		sqlite3_free(cmds);
	}
	sqlite3_free(want);
	sqlite3_close(db);
	gen_result_free(&r);
	tl_cleanup();
}

/* ntp_pair refuses what it cannot pair as SQL would: a value that is no
 * integer (a changed recording), and arguments that are not one SELECT;
 * and a call from a view stored in a database.
 * (The error also shows that the native session's join is ntp_pair's.) */
static void test_pair_refuses(void **state)
{
	struct gen_result r;
	struct ntp_session s;
	char *paths[2], err[NTP_ERR_MAX];
	sqlite3 *db;
	sqlite3_stmt *st;

	(void)state;
	gen_hosts(&r, 1, 47);
	assert_int_equal(sqlite3_open(tl_file("t.db"), &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE cmd SET t_stor = 1.5 WHERE t ="
				      " (SELECT t FROM cmd LIMIT 1 OFFSET 100)", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	paths[0] = strdup(tl_file("h0.db"));
	paths[1] = strdup(tl_file("t.db"));
	assert_int_equal(ntp_session_open(&s, 2, paths, NTP_OPEN_NO_CHECK, err, sizeof(err)), 0);
	free(paths[0]);
	free(paths[1]);
	assert_int_equal(ntp_session_prepare(&s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "the target's t_stor is not an integer"));
	assert_non_null(strstr(err, "impossible values"));
	assert_int_equal(sqlite3_prepare_v2(s.db, "SELECT * FROM ntp_pair('SELECT 1, 2, 3, 4, 5,"
					    " 6, 7', 'DELETE FROM _ntp_form', 'SELECT 1', 'SELECT 1')",
					    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ERROR);
	assert_non_null(strstr(sqlite3_errmsg(s.db), "must be one SELECT"));
	sqlite3_finalize(st);
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM _ntp_form"), 1);
	/* it runs the SQL it is given: a view stored in a database (here
	 * main) may not call it, only the session's TEMP views and queries */
	assert_int_equal(sqlite3_exec(s.db, "CREATE VIEW main.pv AS SELECT ht FROM ntp_pair("
				      "'SELECT 1, 2, 3, 4, 5, 6, 7', 'SELECT 1, 2, 3, 4, 5, 6',"
				      " 'SELECT 1, 2, 3, 4, 5, 6, 7', 'SELECT 1')", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_not_equal(sqlite3_prepare_v2(s.db, "SELECT * FROM main.pv", -1, &st, NULL),
			     SQLITE_OK);
	assert_non_null(strstr(sqlite3_errmsg(s.db), "unsafe use"));
	ntp_session_close(&s);
	gen_result_free(&r);
	tl_cleanup();
}

/* A host command whose times overflow 64 bits in the windows (its h_rx
 * delta near INT64_MAX, every column still an integer): SQL would compute
 * the window in REALs, but its sums overflow, and the portable join fails;
 * the native join refuses the run too, naming the command. */
static void test_pair_overflow(void **state)
{
	struct gen_result r;
	struct ntp_session s;
	char *paths[2], err[NTP_ERR_MAX], t[32];
	sqlite3 *db;

	(void)state;
	gen_hosts(&r, 1, 53);
	assert_int_equal(sqlite3_open(tl_file("h0.db"), &db), SQLITE_OK);
	snprintf(t, sizeof(t), "%lld", (long long)tl_int(db, "SELECT t FROM cmd LIMIT 1 OFFSET 500"));
	assert_true(tl_int(db, "SELECT m.mono_start + %s > 1000000000 FROM meta AS m", t));
	assert_int_equal(sqlite3_exec(db, "UPDATE cmd SET h_rx = 9223372036853775807 WHERE t = (SELECT"
				      " t FROM cmd LIMIT 1 OFFSET 500)", NULL, NULL, NULL), SQLITE_OK);
	/* its wait and end to end are integers still */
	assert_int_equal(tl_int(db, "SELECT typeof(wait_ns) = 'integer' AND typeof(e2e) ="
				" 'integer' FROM ntp_cmd_span WHERE t = %s", t), 1);
	sqlite3_close(db);
	for (int portable = 0; portable < 2; portable++) {
		paths[0] = strdup(tl_file("h0.db"));
		paths[1] = strdup(tl_file("t.db"));
		assert_int_equal(ntp_session_open(&s, 2, paths, NTP_OPEN_NO_CHECK |
						  (portable ? NTP_OPEN_PORTABLE : 0), err,
						  sizeof(err)), 0);
		free(paths[0]);
		free(paths[1]);
		assert_int_equal(ntp_session_prepare(&s, err, sizeof(err)), -1);
		if (portable) {
			assert_non_null(strstr(err, "integer overflow"));
		} else {
			assert_non_null(strstr(err, t));
			assert_non_null(strstr(err, "overflow 64 bits: impossible values"));
		}
		ntp_session_close(&s);
	}
	gen_result_free(&r);
	tl_cleanup();
}

/* A host matched in two targets, one join accepted and one refused (a copy
 * of the target under another name, four records in five deleted: a fifth
 * matched): the native scans of a joined group skip the test of each
 * command's join only where every target it matched in is accepted
 * (_ntp_grp_join_ok). Both forms leave the refused join's matches out of
 * every statistic. */
static void test_mixed_verdicts(void **state)
{
	static const char *q[] = {
		"SELECT * FROM ntp_report_component_stats ORDER BY hdb, grp, component",
		"SELECT * FROM ntp_report_stage_stats ORDER BY hdb, grp, ord",
		"SELECT * FROM _ntp_tail_band ORDER BY hdb, grp, band_ord",
		"SELECT * FROM _ntp_series_agg ORDER BY form, db, grp, bucket",
		"SELECT * FROM ntp_series ORDER BY form, db, grp, bucket",
		"SELECT * FROM _ntp_plot_cdf_line ORDER BY n, ord, fraction",
	};
	enum { NQ = sizeof(q) / sizeof(q[0]) };
	struct gen_result r;
	struct ntp_session s;
	sqlite3 *db;
	char *form[2][NQ], *copy;

	(void)state;
	gen_hosts(&r, 1, 41);
	copy = sqlite3_mprintf("VACUUM INTO '%q'", tl_file("t2.db"));
	assert_int_equal(sqlite3_open(tl_file("t.db"), &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, copy, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	sqlite3_free(copy);
	assert_int_equal(sqlite3_open(tl_file("t2.db"), &db), SQLITE_OK);
	/* another machine's recording of the same subsystem, to ntprof */
	assert_int_equal(sqlite3_exec(db, "DELETE FROM cmd WHERE t % 5 <> 0;"
				      " UPDATE meta SET hostname = hostname || '-b'", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(db);
	for (int k = 0; k < 2; k++) {
		tl_open(&s, k ? NTP_OPEN_PORTABLE : NTP_OPEN_NO_CACHE, tl_file("h0.db"),
			tl_file("t.db"), tl_file("t2.db"), NULL);
		assert_int_equal(s.native, !k);
		tl_int(s.db, "UPDATE ntp_bucket SET width_ns = 20000000 RETURNING width_ns");
		/* prepared, the join's tap counts the matches; the statistics,
		 * which leave the refused join out, scan */
		if (k == 0)
			assert_int_equal(tl_int(s.db, "SELECT ntp_tap_served()"), 1);
		/* the premise: one join each way, matches in both, groups of both */
		assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_join_check"
					" WHERE verdict = 'joined'"), 1);
		assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_join_check"
					" WHERE verdict <> 'joined'"), 1);
		assert_true(tl_int(s.db, "SELECT count(*) FROM ntp_joined WHERE tdb NOT IN"
				   " (SELECT tdb FROM _ntp_join_ok)") > 100);
		assert_int_equal(tl_int(s.db, "SELECT count(*) FROM _ntp_grp_join_ok"
					" WHERE all_ok = 0"), 2);
		assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_report_group"
					" WHERE mode = 'joined'"), 2);
		for (int i = 0; i < NQ; i++)
			form[k][i] = rows_text(s.db, q[i]);
		/* the refused join's matches are in no joined bucket */
		assert_int_equal(tl_int(s.db, "SELECT sum(sampled) FROM ntp_series"
					" WHERE form = 'joined'"),
				 tl_int(s.db, "SELECT count(*) FROM ntp_joined"
					" WHERE tdb IN (SELECT tdb FROM _ntp_join_ok)"));
		ntp_session_close(&s);
	}
	for (int i = 0; i < NQ; i++) {
		assert_true(strlen(form[0][i]) > 100);
		assert_string_equal(form[0][i], form[1][i]);
		for (int k = 0; k < 2; k++)
			sqlite3_free(form[k][i]);
	}
	gen_result_free(&r);
	tl_cleanup();
}

/* ntp_bands_by's list of LIST's groups ("I HEX G N;..."), each with the
 * exact p50, p90, p99 and p99.9 of its end to end in ntp_joined. */
static char *band_list(sqlite3 *db, const char *list)
{
	char *b = rows_textf(db,
			    "WITH e AS (SELECT value AS v FROM json_each('[\"'"
			    " || replace('%q', ';', '\",\"') || '\"]')),"
			    " d AS (SELECT ntp_dist_by('%q', hdb, grp, e2e) AS x FROM ntp_joined),"
			    " c AS (SELECT json_extract(j.value, '$[0]') AS i,"
			    "              json_extract(j.value, '$[1][0]') AS s"
			    "       FROM d, json_each(d.x) AS j)"
			    " SELECT group_concat(e.v || ' ' || json_extract(c.s, '$[2]') || ' '"
			    "   || json_extract(c.s, '$[5]') || ' ' || json_extract(c.s, '$[3]') || ' '"
			    "   || json_extract(c.s, '$[4]'), ';')"
			    " FROM e JOIN c ON c.i = CAST(e.v AS INTEGER)",
			    list, list);

	b[strlen(b) - 1] = '\0';
	return b;
}

/* The join's tap (lib/native.c) on its own: armed, fed by a scan of the
 * join that stops early, it answers nothing; fed by a whole scan, its
 * counts, statistics and tail bands are ntp_tally's, ntp_dist_cdf_by's
 * and ntp_bands_by's over the same rows, the bands once the components
 * are taken, and not for other cut values, each of the others given
 * once; a list that names no column of ntp_joined, or none, or a value
 * to band that is no component, is an error. */
static void test_tap(void **state)
{
	static const char comp[] = "e2e wire h_r2t", stages[] = "h_blk_sub h_blk_cpl;;h_r2t? t_storage",
			  bands[] = "e2e wire - h_r2t";
	struct gen_result r;
	struct ntp_session s;
	char *list, *blist, *q, *want, *got, *join;

	(void)state;
	gen_hosts_kib(&r, 1, 43, 32);
	tl_open(&s, NTP_OPEN_NO_CACHE, tl_file("h0.db"), tl_file("t.db"), NULL, NULL);
	assert_true(s.native);
	/* the session's preparation took its counts, components, stages and
	 * bands */
	assert_int_equal(tl_int(s.db, "SELECT ntp_tap_served()"), 4);
	/* the groups as the views list them, before the tap is armed */
	list = rows_text(s.db, "SELECT list FROM _ntp_native_group_list WHERE mode = 'joined'");
	assert_non_null(strchr(list, ';')); /* reads and writes, one part */
	assert_ptr_equal(strchr(list, '\n'), list + strlen(list) - 1);
	list[strlen(list) - 1] = '\0';
	q = sqlite3_mprintf("SELECT ntp_tap_arm('%q', '%q', '%q')", comp, stages, bands);
	/* ntp_pair's scan, the native arm of ntp_joined (the session's
	 * ntp_joined reads the prepared table) */
	join = pair_query("host", "target", 1, 0);
	assert_int_equal(tl_int(s.db, "%s", q), 1);
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM (%s LIMIT 3)", join), 3);
	assert_int_equal(tl_int(s.db, "SELECT ntp_tap_disarm(3)"), 0);
	assert_true(tl_has_row(s.db, "SELECT 1 WHERE ntp_tap_tally() IS NULL"));
	assert_true(tl_has_row(s.db, "SELECT 1 WHERE ntp_tap_take('%q', 0) IS NULL", list));
	/* a whole scan */
	assert_int_equal(tl_int(s.db, "%s", q), 1);
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM (%s)", join),
			 tl_int(s.db, "SELECT count(*) FROM ntp_joined"));
	assert_true(tl_int(s.db, "SELECT count(*) FROM ntp_joined") > 500);
	/* a whole scan, but not of every row of the table */
	assert_int_equal(tl_int(s.db, "SELECT ntp_tap_disarm((SELECT count(*) + 1 FROM"
				" ntp_joined))"), 0);
	assert_true(tl_has_row(s.db, "SELECT 1 WHERE ntp_tap_tally() IS NULL"));
	assert_int_equal(tl_int(s.db, "%s", q), 1);
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM (%s)", join),
			 tl_int(s.db, "SELECT count(*) FROM ntp_joined"));
	assert_int_equal(tl_int(s.db, "SELECT ntp_tap_disarm((SELECT count(*) FROM ntp_joined))"),
			 1);
	sqlite3_free(join);
	want = rows_text(s.db, "SELECT ntp_tally(hdb, grp, tdb) FROM ntp_joined");
	got = rows_text(s.db, "SELECT ntp_tap_tally()");
	assert_string_equal(got, want);
	sqlite3_free(got);
	sqlite3_free(want);
	sqlite3_free(q);
	q = sqlite3_mprintf("SELECT ntp_dist_cdf_by('%q', hdb, grp, e2e, wire, h_r2t) FROM ntp_joined",
			    list);
	want = rows_text(s.db, q);
	sqlite3_free(q);
	/* banded as the components are taken */
	blist = band_list(s.db, list);
	assert_non_null(strchr(blist, ';'));
	assert_true(tl_has_row(s.db, "SELECT 1 WHERE ntp_tap_bands('%q') IS NULL", blist));
	q = sqlite3_mprintf("SELECT ntp_tap_take('%q', 0)", list);
	got = rows_text(s.db, q);
	sqlite3_free(q);
	assert_true(strlen(want) > 1000);
	assert_string_equal(got, want);
	sqlite3_free(got);
	sqlite3_free(want);
	want = rows_textf(s.db, "SELECT ntp_bands_by('%q', hdb, grp, e2e, ht, wire, NULL, h_r2t)"
			  " FROM ntp_joined", blist);
	got = rows_textf(s.db, "SELECT ntp_tap_bands('%q')", blist);
	assert_true(strlen(want) > 200);
	assert_string_equal(got, want);
	sqlite3_free(got);
	sqlite3_free(want);
	/* other cut values: the scan's to band */
	*strrchr(blist, ' ') = '\0';
	assert_true(tl_has_row(s.db, "SELECT 1 WHERE ntp_tap_bands('%q 1') IS NULL", blist));
	sqlite3_free(blist);
	q = sqlite3_mprintf("SELECT ntp_dist_cdf_by('%q', hdb, grp, h_blk_sub + h_blk_cpl, NULL,"
			    " ifnull(h_r2t, 0) + t_storage) FROM ntp_joined", list);
	want = rows_text(s.db, q);
	sqlite3_free(q);
	q = sqlite3_mprintf("SELECT ntp_tap_take('%q', 1)", list);
	got = rows_text(s.db, q);
	assert_string_equal(got, want);
	sqlite3_free(got);
	sqlite3_free(want);
	/* each once */
	assert_true(tl_has_row(s.db, "%s WHERE ntp_tap_take('%q', 1) IS NULL",
			       "SELECT 1", list));
	assert_true(tl_has_row(s.db, "SELECT 1 WHERE ntp_tap_tally() IS NULL"));
	assert_int_equal(tl_int(s.db, "SELECT ntp_tap_served()"), 8);
	sqlite3_free(q);
	/* lists it cannot follow */
	assert_false(tl_has_row(s.db, "SELECT ntp_tap_arm('e2e nosuch', '', '')"));
	assert_non_null(strstr(sqlite3_errmsg(s.db), "no such column of ntp_joined"));
	assert_false(tl_has_row(s.db, "SELECT ntp_tap_arm('e2e', 'e2e nosuch?', '')"));
	assert_false(tl_has_row(s.db, "SELECT ntp_tap_arm('', '', '')"));
	assert_non_null(strstr(sqlite3_errmsg(s.db), "components expected"));
	assert_false(tl_has_row(s.db, "SELECT ntp_tap_arm('e2e wire', '', 'e2e h_r2t')"));
	assert_non_null(strstr(sqlite3_errmsg(s.db), "a value to band is no component"));
	assert_false(tl_has_row(s.db, "SELECT ntp_tap_arm('e2e wire', '', '- wire')"));
	assert_int_equal(tl_int(s.db, "SELECT ntp_tap_arm('e2e wire', '', 'e2e - wire')"), 1);
	sqlite3_free(list);
	ntp_session_close(&s);
	gen_result_free(&r);
	tl_cleanup();
}

/* The tail bands from the join's tap where commands of equal end to end
 * straddle a cut value (every end to end made a multiple of 2 us): they
 * are ranked by ht, as the portable view ranks them, and the bands are the
 * portable view's. */
static void test_tap_ties(void **state)
{
	static const char q[] = "SELECT * FROM _ntp_tail_band ORDER BY hdb, grp, band_ord";
	struct gen_result r;
	struct ntp_session s;
	char *form[2];
	sqlite3 *db;

	(void)state;
	gen_hosts_kib(&r, 1, 47, 32);
	assert_int_equal(sqlite3_open(tl_file("h0.db"), &db), SQLITE_OK);
	/* h_end, the last point, moves the end to end (the recording's own
	 * view of it) to the next multiple of 2 us */
	assert_int_equal(sqlite3_exec(db, "UPDATE cmd SET h_end = h_end + (2000 - (SELECT s.e2e"
				      " FROM ntp_cmd_span AS s WHERE s.t = cmd.t) % 2000) % 2000"
				      " WHERE h_end IS NOT NULL", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(tl_int(db, "SELECT count(*) FROM ntp_cmd_span WHERE e2e %% 2000 <> 0"),
			 0);
	sqlite3_close(db);
	for (int k = 0; k < 2; k++) {
		tl_open(&s, k ? NTP_OPEN_PORTABLE : NTP_OPEN_NO_CACHE, tl_file("h0.db"),
			tl_file("t.db"), NULL, NULL);
		assert_int_equal(s.native, !k);
		/* the premise: every join accepted, commands of one end to end
		 * on both sides of a cut value */
		assert_int_equal(tl_int(s.db, "SELECT min(all_ok) FROM _ntp_grp_join_ok"), 1);
		assert_true(tl_int(s.db, "SELECT count(*) FROM _ntp_tail_band AS a"
				   " JOIN _ntp_tail_band AS b ON b.hdb = a.hdb AND b.grp = a.grp"
				   " AND b.band_ord = a.band_ord + 1 AND b.e2e_min_ns = a.e2e_max_ns")
			    >= 2);
		/* the bands from the tap */
		if (!k)
			assert_int_equal(tl_int(s.db, "SELECT ntp_tap_served()"), 4);
		form[k] = rows_text(s.db, q);
		ntp_session_close(&s);
	}
	same_forms(form[0], form[1], 500);
	gen_result_free(&r);
	tl_cleanup();
}

/* ntp_session_cache_where: the rows of the forms asked for in a TEMP table,
 * the others still computed from the view as it was, so every query reads
 * the same rows as before; the report's series views read the same; a name
 * that is no view is an error. */
static void test_series_cache_where(void **state)
{
	static const char *q[] = {
		"SELECT * FROM _ntp_series_agg ORDER BY form, db, grp, bucket",
		"SELECT * FROM _ntp_series_agg WHERE form = 'host' ORDER BY db, grp, bucket",
		"SELECT * FROM ntp_report_series",
		"SELECT * FROM ntp_report_series_stage",
	};
	struct gen_result r;
	struct ntp_session s;
	char err[NTP_ERR_MAX], *before[4];

	(void)state;
	gen_hosts(&r, 2, 37);
	tl_open(&s, 0, tl_file("h0.db"), tl_file("h1.db"), tl_file("t.db"), NULL);
	tl_int(s.db, "UPDATE ntp_bucket SET width_ns = 20000000 RETURNING width_ns");
	for (int i = 0; i < 4; i++)
		before[i] = rows_text(s.db, q[i]);
	assert_int_equal(ntp_session_cache_where(&s, "_ntp_series_agg", "form IN ('joined')", err,
						 sizeof(err)), 0);
	assert_true(tl_int(s.db, "SELECT count(*) FROM _ntp_series_agg_part") > 0);
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM _ntp_series_agg_part"),
			 tl_int(s.db, "SELECT count(*) FROM _ntp_series_agg WHERE form = 'joined'"));
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM _ntp_series_agg_part"
				" WHERE form <> 'joined'"), 0);
	/* again: nothing to do */
	assert_int_equal(ntp_session_cache_where(&s, "_ntp_series_agg", "form IN ('joined')", err,
						 sizeof(err)), 0);
	for (int i = 0; i < 4; i++) {
		char *after = rows_text(s.db, q[i]);

		assert_string_equal(before[i], after);
		sqlite3_free(after);
		sqlite3_free(before[i]);
	}
	assert_int_equal(ntp_session_cache_where(&s, "ntp_no_such_view", "1", err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "no such view"));
	ntp_session_close(&s);
	gen_result_free(&r);
	tl_cleanup();
}

/* ---- the drill-down ---- */

static int cmp_truth_t(const void *a, const void *b)
{
	int64_t x = ((const struct gen_truth *)a)->t, y = ((const struct gen_truth *)b)->t;

	return (x > y) - (x < y);
}

/* Column I of ST is V if PRESENT, else NULL (the target's columns of a
 * command without a target record, a stage outside its report). */
static void expect_col(sqlite3_stmt *st, int i, int present, int64_t v)
{
	if (!present) {
		assert_int_equal(sqlite3_column_type(st, i), SQLITE_NULL);
		return;
	}
	assert_int_equal(sqlite3_column_int64(st, i), v);
}

/* One row of ntp_command against its truth T. */
static void check_command(sqlite3_stmt *st, const struct gen_truth *t, int64_t first_t,
			  const struct gen_config *c)
{
	static const enum gen_comp comp[] = {
		GC_H_BLK_SUB, GC_H_DRV_SUB, GC_H_WAIT, GC_WIRE, GC_T_RX_PATH, GC_T_DRV_SUB,
		GC_T_STORAGE, GC_T_DRV_CPL, GC_H_RX_PATH, GC_H_DRV_CPL, GC_H_BLK_CPL,
		GC_H_HANDOFF, GC_E2E, GC_T_E2E,
	};
	static const int target_side[] = { 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1 };
	const struct stage_def *js = joined_stages, *hs = host_stages;
	int m = t->matched;

	assert_string_equal((const char *)sqlite3_column_text(st, 1), m ? "joined" : "host");
	assert_int_equal(sqlite3_column_int(st, 2), t->grp_is_write ? 1 : 2);
	assert_int_equal(sqlite3_column_int(st, 3),
			 t->grp_is_write ? (int)c->write_kib * 2 - 1 : 7);
	assert_true(fabs(sqlite3_column_double(st, 4) - (double)(t->t - first_t) / 1e9) < 1e-9);
	for (size_t i = 0; i < sizeof(comp) / sizeof(comp[0]); i++)
		expect_col(st, 5 + (int)i, m || !target_side[i], t->comp[comp[i]]);
	/* h_r2t, t_data_wait: NULL without R2T */
	expect_col(st, 19, t->comp[GC_H_R2T] != 0, t->comp[GC_H_R2T]);
	expect_col(st, 20, m && t->comp[GC_T_DATA_WAIT] != 0, t->comp[GC_T_DATA_WAIT]);
	/* the stages: host_block, host_driver, host_rx, net_target, network,
	 * target_driver, storage */
	expect_col(st, 21, 1, stage_of(t, &js[0]));
	expect_col(st, 22, 1, stage_of(t, &js[1]));
	expect_col(st, 23, !m, stage_of(t, &hs[2]));
	expect_col(st, 24, !m, stage_of(t, &hs[3]));
	expect_col(st, 25, m, stage_of(t, &js[2]));
	expect_col(st, 26, m, stage_of(t, &js[3]));
	expect_col(st, 27, m, stage_of(t, &js[4]));
}

static void check_commands(struct ntp_session *s, struct gen_result *r,
			   const struct gen_config *c)
{
	sqlite3_stmt *st;
	uint64_t i = 0;

	qsort(r->truth, r->ntruth, sizeof(*r->truth), cmp_truth_t);
	assert_int_equal(sqlite3_prepare_v2(s->db,
		"SELECT ht, mode, opcode, nlb, t_s, h_blk_sub, h_drv_sub, h_wait, wire, t_rx_path,"
		" t_drv_sub, t_storage, t_drv_cpl, h_rx_path, h_drv_cpl, h_blk_cpl, h_handoff, e2e,"
		" t_e2e, h_r2t, t_data_wait, host_block, host_driver, host_rx, net_target, network,"
		" target_driver, storage FROM ntp_command ORDER BY ht", -1, &st, NULL), SQLITE_OK);
	for (; sqlite3_step(st) == SQLITE_ROW; i++) {
		assert_true(i < r->ntruth);
		assert_int_equal(sqlite3_column_int64(st, 0), r->truth[i].t);
		check_command(st, &r->truth[i], r->truth[0].t, c);
	}
	assert_int_equal(i, r->ntruth); /* one row per host command */
	sqlite3_finalize(st);
	/* the identity is the host's record's */
	assert_int_equal(tl_int(s->db, "SELECT count(*) FROM ntp_command AS c JOIN host.cmd AS x"
				" ON x.t = c.ht WHERE x.qid = c.qid AND x.cid = c.cid AND"
				" x.slba = c.slba AND x.grp = c.grp"), r->ntruth);
}

/* The slowest commands of .slowest are the truth's largest end to end. */
static void check_slowest(struct ntp_session *s, const struct gen_result *r)
{
	int64_t *e = malloc(r->ntruth * sizeof(*e));
	sqlite3_stmt *st;

	assert_non_null(e);
	for (uint64_t i = 0; i < r->ntruth; i++)
		e[i] = r->truth[i].comp[GC_E2E];
	qsort(e, r->ntruth, sizeof(*e), cmp64);
	assert_int_equal(sqlite3_prepare_v2(s->db, "SELECT e2e_us FROM ntp_shell_slowest LIMIT 5",
					    -1, &st, NULL), SQLITE_OK);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		/* us, to 2 decimals */
		assert_true(fabs(sqlite3_column_double(st, 0) -
				 (double)e[r->ntruth - 1 - i] / 1e3) <= 0.005 + 1e-9);
	}
	sqlite3_finalize(st);
	free(e);
}

/* A fifth of the target's records lost: those commands are host-only rows,
 * the others joined; reads and writes with R2T. */
static void test_command(void **state)
{
	struct gen_config c;
	struct gen_result r;
	struct ntp_session s;

	gen_defaults(&c);
	c.qd = 3;
	c.read_frac = 0.5;
	c.write_kib = 16;
	c.target_loss = 0.2;
	c.seconds = 0.5;
	c.seed = 24;
	tl_gen(&c, &r);
	for (int portable = 0; portable < 2; portable++) {
		tl_open(&s, portable ? NTP_OPEN_PORTABLE : 0, tl_file("h0.db"), tl_file("t.db"),
			NULL);
		check_commands(&s, &r, &c);
		check_slowest(&s, &r);
		ntp_session_close(&s);
	}
	gen_result_free(&r);
	tl_cleanup();
}

/* NAMES, in order, are the components vocab.sql puts in STAGE (COLUMN:
 * stage_joined or stage_local). */
static void check_stage_def(sqlite3 *db, const char *column, const struct stage_def *s)
{
	sqlite3_stmt *st;
	char *sql = sqlite3_mprintf("SELECT name FROM component WHERE %s = '%q' ORDER BY ord",
				    column, s->name);
	int i = 0;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int found = 0;

		for (int j = 0; j < s->n; j++)
			found |= !strcmp((const char *)sqlite3_column_text(st, 0),
					 gen_comp_name[s->comp[j]]);
		assert_true(found);
		i++;
	}
	assert_int_equal(i, s->n);
	sqlite3_finalize(st);
	sqlite3_free(sql);
}

/* The stage lists above (and so ntp_command's stage columns, which the
 * truth checks) are vocab.sql's. */
static void test_stage_lists(void **state)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, ntp_sql_vocab, NULL, NULL, NULL), SQLITE_OK);
	for (size_t i = 0; i < NSTAGES(joined_stages); i++)
		check_stage_def(db, "stage_joined", &joined_stages[i]);
	for (size_t i = 0; i < NSTAGES(host_stages); i++)
		check_stage_def(db, "stage_local", &host_stages[i]);
	assert_int_equal(tl_int(db, "SELECT count(DISTINCT stage_joined) FROM component"),
			 NSTAGES(joined_stages));
	sqlite3_close(db);
}

/* ---- time series ---- */

struct series {
	const struct grp *g;
	int64_t width, first_t, end; /* ns; end: the recording's, since mono_start */
	int joined;                  /* the joined form, else the host's */
};

/* Truth of bucket B: its commands' end to end in V (*N of them), and the sum
 * of each stage of STAGES (NS of them) in SUM. */
static int64_t *bucket_values(const struct series *k, int64_t b, const struct stage_def *stages,
			      size_t ns, int64_t *sum, size_t *n)
{
	const struct gen_result *r = k->g->r;
	int64_t *v = malloc((r->ntruth + 1) * sizeof(*v));

	assert_non_null(v);
	*n = 0;
	memset(sum, 0, ns * sizeof(*sum));
	for (uint64_t i = 0; i < r->ntruth; i++) {
		const struct gen_truth *t = &r->truth[i];

		if (!in_group(k->g, t) || (k->joined && !t->matched) ||
		    (t->t - k->first_t) / k->width != b)
			continue;
		v[(*n)++] = t->comp[GC_E2E];
		for (size_t j = 0; j < ns; j++)
			sum[j] += stage_of(t, &stages[j]);
	}
	return v;
}

/* Row ST of ntp_series (bucket, sampled, t_s, dt_s, rate, mean_ns, p99_ns)
 * against the truth of its bucket B: end to end values V (N). */
static void check_bucket(sqlite3_stmt *st, const struct series *k, int64_t b, size_t n,
			 const int64_t *v, int64_t rate)
{
	int64_t e2e = 0, len = k->width;

	for (size_t i = 0; i < n; i++)
		e2e += v[i];
	if (k->end - k->first_t - b * k->width < len)
		len = k->end - k->first_t - b * k->width;
	assert_int_equal(sqlite3_column_int64(st, 1), n);
	/* labelled by its start: b x width from the first command, not an interval's */
	assert_true(sqlite3_column_double(st, 2) == (double)(b * k->width) / 1e9);
	assert_true(fabs(sqlite3_column_double(st, 3) - (double)len / 1e9) < 1e-12);
	assert_true(fabs(sqlite3_column_double(st, 4) -
			 1e9 * (double)n * (double)rate / (double)len) < 1e-6);
	assert_true(fabs(sqlite3_column_double(st, 5) - (double)e2e / (double)n) < 1e-6);
	assert_int_equal(sqlite3_column_int64(st, 6), tl_percentile(v, n, 99000));
}

/* Rows ST of ntp_series_stage (bucket, stage, mean_ns, share), in stage
 * order, for bucket B: NS stages whose sums are SUM. */
static void check_bucket_stages(sqlite3_stmt *st, const struct stage_def *stages, size_t ns,
				int64_t b, size_t n, const int64_t *v, const int64_t *sum)
{
	int64_t e2e = 0;

	for (size_t i = 0; i < n; i++)
		e2e += v[i];
	for (size_t j = 0; j < ns; j++) {
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), b);
		assert_string_equal((const char *)sqlite3_column_text(st, 1), stages[j].name);
		assert_true(fabs(sqlite3_column_double(st, 2) - (double)sum[j] / (double)n) < 1e-6);
		assert_true(fabs(sqlite3_column_double(st, 3) - (double)sum[j] / (double)e2e) <
			    1e-12);
	}
}

static sqlite3_stmt *series_query(struct ntp_session *s, const struct series *k,
				  const char *cols, const char *view, const char *order)
{
	sqlite3_stmt *st;
	char *sql = sqlite3_mprintf("SELECT %s FROM %s WHERE form = '%s' AND db = '%q' AND "
				    "grp = %lld ORDER BY %s", cols, view,
				    k->joined ? "joined" : "host", k->g->hdb,
				    (long long)k->g->id, order);

	assert_int_equal(sqlite3_prepare_v2(s->db, sql, -1, &st, NULL), SQLITE_OK);
	sqlite3_free(sql);
	return st;
}

/* Every bucket of one group's series in one form, one query each for the
 * buckets and their stages; returns the group's commands. */
static size_t check_series(struct ntp_session *s, const struct series *k, int64_t rate)
{
	const struct stage_def *stages = k->joined ? joined_stages : host_stages;
	size_t ns = k->joined ? NSTAGES(joined_stages) : NSTAGES(host_stages), total = 0;
	int64_t last = (k->end - k->first_t) / k->width, sum[8];
	sqlite3_stmt *st = series_query(s, k, "bucket, sampled, t_s, dt_s, rate, mean_ns, p99_ns",
					"ntp_series", "bucket");
	sqlite3_stmt *sg = series_query(s, k, "bucket, stage, mean_ns, share", "ntp_series_stage",
					"bucket, ord");

	for (int64_t b = 0; b <= last; b++) {
		size_t n;
		int64_t *v = bucket_values(k, b, stages, ns, sum, &n);

		/* a bucket without a command has no row */
		if (n) {
			assert_int_equal(sqlite3_step(st), SQLITE_ROW);
			assert_int_equal(sqlite3_column_int64(st, 0), b);
			check_bucket(st, k, b, n, v, rate);
			check_bucket_stages(sg, stages, ns, b, n, v, sum);
		}
		total += n;
		free(v);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	assert_int_equal(sqlite3_step(sg), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_finalize(sg);
	return total;
}

/*
 * 12 s recorded in 5 s intervals, the rate tripled at 6 s, sampled 1 in 2:
 * buckets narrower and wider than the intervals, each checked against the
 * truth in the host's and the joined form; their counts add up to the
 * sampled commands; the targets' buckets to the target's records.
 */
static void test_series(void **state)
{
	static const int64_t widths[] = { 100000000, 300000000, 500000000, 1000000000,
					   2000000000 };
	struct gen_config c;
	struct gen_result r;
	struct ntp_session s;

	gen_defaults(&c);
	c.seconds = 12;
	c.iops = 300;
	c.rate_at = 6;
	c.rate_iops = 900;
	c.interval_s = 5;
	c.sample_rate = 2;
	c.read_frac = 0.7;
	c.host_window[1] = 12;
	c.target_window[1] = 13;
	c.seed = 25;
	tl_gen(&c, &r);
	qsort(r.truth, r.ntruth, sizeof(*r.truth), cmp_truth_t);
	for (int portable = 0; portable < 2; portable++) {
		tl_open(&s, portable ? NTP_OPEN_PORTABLE : 0, tl_file("h0.db"), tl_file("t.db"),
			NULL);
		for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
			size_t cmds = 0;

			tl_int(s.db, "UPDATE ntp_bucket SET width_ns = %lld RETURNING width_ns",
			       (long long)widths[i]);
			for (int w = 0; w < 2; w++) {
				struct grp g = group(&s, &r, "host", 0, w);
				struct series k = { &g, widths[i], r.truth[0].t, 12000000000LL, 0 };

				cmds += check_series(&s, &k, c.sample_rate);
				k.joined = 1;
				check_series(&s, &k, c.sample_rate);
			}
			assert_int_equal(cmds, r.host_records[0]);
			assert_int_equal(tl_int(s.db, "SELECT sum(sampled) FROM ntp_series WHERE "
						"form = 'target'"), r.target_records);
			/* every label is a whole number of widths */
			assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_series WHERE "
						"round(t_s * 1e9) != bucket * %lld",
						(long long)widths[i]), 0);
			/* the report's series is the joined form of its (joined) groups */
			assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_report_series AS x "
						"JOIN ntp_series AS y ON y.form = 'joined' AND "
						"y.db = x.hdb AND y.grp = x.grp AND y.bucket = x.bucket "
						"AND y.p99_ns = x.p99_ns AND y.sampled = x.cmds"),
					 tl_int(s.db, "SELECT count(*) FROM ntp_series WHERE "
						"form = 'joined'"));
		}
		/* the known change: about three times the rate after 6 s */
		tl_int(s.db, "UPDATE ntp_bucket SET width_ns = 1000000000 RETURNING width_ns");
		double before = tl_double(s.db, "SELECT sum(rate) / count(DISTINCT bucket) FROM "
					  "ntp_series WHERE form = 'host' AND t_s < 6");
		double after = tl_double(s.db, "SELECT sum(rate) / count(DISTINCT bucket) FROM "
					 "ntp_series WHERE form = 'host' AND t_s >= 6");
		assert_true(after / before > 2.7 && after / before < 3.3);
		ntp_session_close(&s);
	}
	gen_result_free(&r);
	tl_cleanup();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stage_lists),
		cmocka_unit_test(test_stage_stats),
		cmocka_unit_test(test_hist_cdf),
		cmocka_unit_test(test_tail_forms),
		cmocka_unit_test(test_cdf_line_forms),
		cmocka_unit_test(test_series_forms),
		cmocka_unit_test(test_joined_count_forms),
		cmocka_unit_test(test_component_stats_forms),
		cmocka_unit_test(test_joined_forms),
		cmocka_unit_test(test_pair_direct_resumes),
		cmocka_unit_test(test_pair_refuses),
		cmocka_unit_test(test_pair_overflow),
		cmocka_unit_test(test_series_cache_where),
		cmocka_unit_test(test_series_e2e_forms),
		cmocka_unit_test(test_e2e_forms),
		cmocka_unit_test(test_series_e2e_ranks),
		cmocka_unit_test(test_hist_forms),
		cmocka_unit_test(test_cdf_point_forms),
		cmocka_unit_test(test_mixed_verdicts),
		cmocka_unit_test(test_tap),
		cmocka_unit_test(test_tap_ties),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_series),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
