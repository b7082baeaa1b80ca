// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof compare: the runs of a session side by side, as sql/compare.sql
 * computes and formats them; this file only lays the cells out. First a
 * "note:" line per reason the runs compare less well than the tables look
 * (ntp_compare_note). Then per I/O group: one row per stage (and
 * component, with detail), per run its mean and median (and p99, with
 * detail), and for every run after the first the differences from the
 * first with their 95 % confidence intervals; then per run the verdict:
 * the stage whose median moved most, and the tail-driven ones.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntp_compare.h"
#include "ntp_err.h"
#include "ntp_out.h"
#include "ntp_progress.h"
#include "ntp_report.h"
#include "ntp_session.h"

#define LABEL_W 42 /* the longest stage label, and a margin: the least width */
#define STAT_W 9   /* "1234.56" and two spaces: cells apart by two at least */
#define NSTAT 3    /* mean, p50, p99 */

/* The group text filter of every query: ?1, NULL for every group. */
#define GROUP_IS_1 "(?1 IS NULL OR instr(lower(name), lower(?1)) > 0)"

/* The cells, in table order; ?1 the group text, ?2 1 with components. */
static const char cells_sql[] =
	"SELECT name, op, bytes, kind, item, label, run_ord, n, mean_us, p50_us, p99_us,"
	" mean_diff, p50_diff, p99_diff"
	" FROM _ntp_text_compare"
	" WHERE " GROUP_IS_1 " AND (kind != 'component' OR ?2)"
	" ORDER BY grp_ord, op, bytes, ord, item, run_ord";

/* The widths the cells above need (bytes, as printf pads). */
static const char widths_sql[] =
	"SELECT max(length(CAST(label AS BLOB))), max(length(CAST(name AS BLOB))),"
	" max(length(mean_us)), max(length(p50_us)), max(length(p99_us)),"
	" max(length(CAST(mean_diff AS BLOB))), max(length(CAST(p50_diff AS BLOB))),"
	" max(length(CAST(p99_diff AS BLOB))), max(length(n))"
	" FROM _ntp_text_compare"
	" WHERE " GROUP_IS_1 " AND (kind != 'component' OR ?2)";

/* The verdict lines of a group (?1 op, ?2 bytes). */
static const char verdict_sql[] =
	"SELECT line FROM _ntp_text_compare_verdict WHERE op IS ?1 AND bytes IS ?2"
	" ORDER BY run_ord";

/* The notes, the run's and the selected groups' (?1 the group text). */
static const char notes_sql[] =
	"SELECT kind, op, bytes, name, note FROM ntp_compare_note"
	" WHERE name IS NULL OR " GROUP_IS_1;

/* A run with no group in common with the first: nothing to compare. */
static const char refused_sql[] =
	"SELECT note FROM ntp_compare_note WHERE kind = 'no_group'";

/* Marked stages and end-to-end rows of the selected groups (?1). */
static const char changed_sql[] =
	"SELECT count(*) FROM ntp_compare_diff"
	" WHERE significant AND kind IN ('stage', 'total') AND " GROUP_IS_1;

/* The JSON's: the groups (?1 the group text), each one's rows (built from
 * ntp_compare_rows' columns: ?1 op, ?2 bytes, ?3 1 with components), moved
 * and tail-driven stages (?1 op, ?2 bytes), the runs' recordings (?1 one's
 * schema). */
static const char json_groups_sql[] =
	"SELECT max(name) AS name, op, bytes FROM ntp_compare_stage"
	" WHERE " GROUP_IS_1
	" GROUP BY op, bytes ORDER BY min(run_ord), op, bytes";
static const char json_row_cols_sql[] =
	"SELECT group_concat(printf('\"%w\"', name), ', ')"
	" FROM pragma_table_info('ntp_compare_rows', 'temp')"
	" WHERE name NOT IN ('group', 'op', 'bytes')";
static const char json_moved_sql[] =
	"SELECT d.run, d.base_run, m.stage, m.label, m.p50_diff_ns, m.p50_ci_lo_ns,"
	" m.p50_ci_hi_ns, m.effect_pct"
	" FROM (SELECT DISTINCT run, run_ord, base_run FROM ntp_compare_diff"
	"       WHERE op IS ?1 AND bytes IS ?2) AS d"
	" LEFT JOIN ntp_compare_moved AS m ON m.run = d.run AND m.op IS ?1 AND m.bytes IS ?2"
	" ORDER BY d.run_ord";
static const char json_tail_sql[] =
	"SELECT run, base_run, stage, label, mean_diff_ns, mean_ci_lo_ns, mean_ci_hi_ns,"
	" mean_effect_pct, p50_diff_ns, p50_ci_lo_ns, p50_ci_hi_ns"
	" FROM ntp_compare_tail WHERE op IS ?1 AND bytes IS ?2 ORDER BY run_ord, rank";
static const char json_recordings_sql[] =
	"SELECT db, role, driver, transport, hostname, kernel, sample_rate, duration_ns,"
	" records, lost FROM ntp_db WHERE db = ?1";

/* Lines are laid out in a buffer, so the last column's padding can go. */
struct line {
	char buf[8192];
	size_t len;
};

__attribute__((format(printf, 2, 3)))
static void put(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len = l->len + (size_t)n < sizeof(l->buf) ? l->len + (size_t)n : sizeof(l->buf) - 1;
}

static void end_line(struct line *l, FILE *f)
{
	while (l->len && l->buf[l->len - 1] == ' ')
		l->len--;
	fprintf(f, "%.*s\n", (int)l->len, l->buf);
	l->len = 0;
}

static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *v = sqlite3_column_text(st, i);

	return v ? (const char *)v : "";
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* The columns' widths: at least the defaults, wider for what they hold. */
struct layout {
	int nstat;              /* statistics per run: 2, or 3 with p99 (detail) */
	int label_w;            /* the row labels */
	int stat_w[NSTAT];      /* mean, p50, p99 */
	int diff_w[NSTAT];      /* their differences */
	int run_w[NTP_MAX_DBS]; /* a run's statistics, all of them: its label fits */
	int n_w;                /* the commands' counts */
};

static const char *const stat_head[NSTAT] = { "mean us", "p50 us", "p99 us" };
static const char *const diff_head[NSTAT] = { "mean diff [95% CI]", "p50 diff [95% CI]",
					      "p99 diff [95% CI]" };

static int layout(const struct ntp_session *s, struct layout *o, const char *group, int detail)
{
	sqlite3_stmt *st;
	int rc;

	memset(o, 0, sizeof(*o));
	o->nstat = detail ? 3 : 2;
	if (sqlite3_prepare_v2(s->db, widths_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, group, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, detail);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		o->label_w = max_int(LABEL_W, max_int(sqlite3_column_int(st, 0),
						      sqlite3_column_int(st, 1)));
		for (int i = 0; i < NSTAT; i++) {
			o->stat_w[i] = max_int(STAT_W, sqlite3_column_int(st, 2 + i) + 2);
			o->diff_w[i] = max_int((int)strlen(diff_head[i]),
					       sqlite3_column_int(st, 5 + i));
		}
		o->n_w = sqlite3_column_int(st, 8);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return -1;
	for (int r = 0; r < s->nruns; r++) {
		int w = 0;

		for (int i = 0; i < o->nstat; i++)
			w += o->stat_w[i];
		o->run_w[r] = max_int(w, max_int((int)strlen(s->run_label[r]), o->n_w));
	}
	return 0;
}

/* The blank diff columns of run R (none for the first). */
static void put_diff_blank(struct line *l, const struct layout *o, int r)
{
	for (int i = 0; r && i < o->nstat; i++)
		put(l, "  %-*s", o->diff_w[i], "");
}

/* The run names and the column heads; NAME (the group's, from a recording)
 * with its control characters as '?'. */
static void print_head(const struct ntp_session *s, const struct layout *o, FILE *f,
		       const char *group)
{
	struct line l = { .len = 0 };
	char name[512], label[512];

	snprintf(name, sizeof(name), "%s", group);
	ntp_clean_text(name);
	put(&l, "%-*s", o->label_w, "");
	for (int r = 0; r < s->nruns; r++) {
		snprintf(label, sizeof(label), "%s", s->run_label[r]);
		put(&l, "  %*s", o->run_w[r], ntp_clean_text(label));
		put_diff_blank(&l, o, r);
	}
	end_line(&l, f);
	put(&l, "%-*s", o->label_w, name);
	for (int r = 0; r < s->nruns; r++) {
		int w = o->run_w[r];

		/* the first statistic takes what the run's label adds */
		for (int i = 1; i < o->nstat; i++)
			w -= o->stat_w[i];
		put(&l, "  %*s", w, stat_head[0]);
		for (int i = 1; i < o->nstat; i++)
			put(&l, "%*s", o->stat_w[i], stat_head[i]);
		for (int i = 0; r && i < o->nstat; i++)
			put(&l, "  %-*s", o->diff_w[i], diff_head[i]);
	}
	end_line(&l, f);
}

/* The cells of one row, a run's missing ones as '-'. */
struct row {
	char label[1024];
	char stat[NTP_MAX_DBS][NSTAT][32], diff[NTP_MAX_DBS][NSTAT][128];
	long long n[NTP_MAX_DBS];
	int total;
};

static void print_row(const struct ntp_session *s, const struct layout *o, FILE *f,
		      const struct row *w)
{
	struct line l = { .len = 0 };

	put(&l, "%-*s", o->label_w, w->label);
	for (int r = 0; r < s->nruns; r++) {
		int first = o->run_w[r];

		for (int i = 1; i < o->nstat; i++)
			first -= o->stat_w[i];
		for (int i = 0; i < o->nstat; i++)
			put(&l, i ? "%*s" : "  %*s", i ? o->stat_w[i] : first,
			    w->stat[r][i][0] ? w->stat[r][i] : "-");
		for (int i = 0; r && i < o->nstat; i++)
			put(&l, "  %-*s", o->diff_w[i], w->diff[r][i][0] ? w->diff[r][i] : "-");
	}
	end_line(&l, f);
	if (!w->total)
		return;
	put(&l, "%-*s", o->label_w, "commands");
	for (int r = 0; r < s->nruns; r++) {
		if (w->n[r])
			put(&l, "  %*lld", o->run_w[r], w->n[r]);
		else
			put(&l, "  %*s", o->run_w[r], "-");
		put_diff_blank(&l, o, r);
	}
	end_line(&l, f);
}

/* The end of a group: its last row, and the verdict lines. */
static int end_group(const struct ntp_session *s, const struct layout *o, FILE *f,
		     const struct row *w, sqlite3_stmt *vd, const char *op, sqlite3_int64 bytes,
		     int has_bytes)
{
	int rc;

	print_row(s, o, f, w);
	sqlite3_reset(vd);
	sqlite3_bind_text(vd, 1, op, -1, SQLITE_TRANSIENT);
	if (has_bytes)
		sqlite3_bind_int64(vd, 2, bytes);
	else
		sqlite3_bind_null(vd, 2);
	while ((rc = sqlite3_step(vd)) == SQLITE_ROW)
		fprintf(f, "%s\n", col(vd, 0));
	fputc('\n', f);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int print_table(const struct ntp_session *s, const struct layout *o, FILE *f,
		       sqlite3_stmt *st, sqlite3_stmt *vd)
{
	char grp[128] = "", item[64] = "", op[64] = "";
	sqlite3_int64 bytes = 0;
	int has_bytes = 0, any = 0, rc;
	struct row w;

	memset(&w, 0, sizeof(w));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char key[128];
		int r = sqlite3_column_int(st, 6);

		snprintf(key, sizeof(key), "%s\x1f%s", col(st, 1), col(st, 2));
		if (strcmp(key, grp) || strcmp(col(st, 4), item)) {
			if (any && strcmp(key, grp) &&
			    end_group(s, o, f, &w, vd, op, bytes, has_bytes))
				return -1;
			if (any && !strcmp(key, grp))
				print_row(s, o, f, &w);
			if (strcmp(key, grp)) {
				snprintf(grp, sizeof(grp), "%s", key);
				snprintf(op, sizeof(op), "%s", col(st, 1));
				has_bytes = sqlite3_column_type(st, 2) != SQLITE_NULL;
				bytes = sqlite3_column_int64(st, 2);
				print_head(s, o, f, col(st, 0));
			}
			memset(&w, 0, sizeof(w));
			snprintf(item, sizeof(item), "%s", col(st, 4));
			snprintf(w.label, sizeof(w.label), "%s", col(st, 5));
			ntp_clean_text(w.label);
			w.total = !strcmp(col(st, 3), "total");
			any = 1;
		}
		if (r < 0 || r >= s->nruns)
			continue;
		w.n[r] = sqlite3_column_int64(st, 7);
		for (int i = 0; i < NSTAT; i++) {
			snprintf(w.stat[r][i], sizeof(w.stat[r][i]), "%s", col(st, 8 + i));
			snprintf(w.diff[r][i], sizeof(w.diff[r][i]), "%s", col(st, 11 + i));
		}
	}
	if (rc != SQLITE_DONE)
		return -1;
	if (!any)
		return 1;
	return end_group(s, o, f, &w, vd, op, bytes, has_bytes);
}

/* The rows of ST (its parameters bound) into W: with NAME, an array of
 * objects under it; without, the first row's columns as members of the
 * object W has open. ST is reset. Returns 0 or -1. */
static int json_stmt(struct ntp_json *w, const char *name, sqlite3_stmt *st)
{
	int rc = SQLITE_ROW;

	if (name) {
		ntp_json_name(w, name);
		ntp_json_start_array(w);
	}
	while ((name || rc == SQLITE_ROW) && (rc = sqlite3_step(st)) == SQLITE_ROW)
		if (name ? ntp_json_row(w, st) : ntp_json_columns(w, st)) {
			rc = SQLITE_NOMEM;
			break;
		}
	if (name)
		ntp_json_end_array(w);
	sqlite3_reset(st);
	return rc == SQLITE_DONE || (!name && rc == SQLITE_ROW) ? 0 : -1;
}

static void bind_group(sqlite3_stmt *st, sqlite3_stmt *grp)
{
	sqlite3_bind_value(st, 1, sqlite3_column_value(grp, 1));
	sqlite3_bind_value(st, 2, sqlite3_column_value(grp, 2));
}

/* The runs: each one's label, place and recordings (path and ntp_db row). */
static int json_runs(struct ntp_session *s, struct ntp_json *w, sqlite3_stmt *rec)
{
	int rc = 0;

	ntp_json_name(w, "runs");
	ntp_json_start_array(w);
	for (int r = 0; r < s->nruns && !rc; r++) {
		ntp_json_start_object(w);
		ntp_json_string_field(w, "run", s->run_label[r]);
		ntp_json_int_field(w, "run_ord", r);
		ntp_json_name(w, "recordings");
		ntp_json_start_array(w);
		for (int i = 0; i < s->ndbs && !rc; i++) {
			if (s->dbs[i].run != r)
				continue;
			ntp_json_start_object(w);
			ntp_json_string_field(w, "path", s->dbs[i].path);
			sqlite3_bind_text(rec, 1, s->dbs[i].schema, -1, SQLITE_STATIC);
			rc = json_stmt(w, NULL, rec);
			ntp_json_end_object(w);
		}
		ntp_json_end_array(w);
		ntp_json_end_object(w);
	}
	ntp_json_end_array(w);
	return rc;
}

/* The statements of the JSON document, in the order of the SQL above. */
enum { J_GROUPS, J_ROWS, J_MOVED, J_TAIL, J_RECORDINGS, J_THRESHOLD, J_NOTES, J_N };

/* The groups selected by the group text bound to st[J_GROUPS]: per group
 * its name, rows, moved and tail-driven stages. 1 when there is none. */
static int json_groups(struct ntp_json *w, sqlite3_stmt **st)
{
	int rc, n = 0;

	ntp_json_name(w, "groups");
	ntp_json_start_array(w);
	while ((rc = sqlite3_step(st[J_GROUPS])) == SQLITE_ROW) {
		ntp_json_start_object(w);
		if (ntp_json_columns(w, st[J_GROUPS]))
			return -1;
		bind_group(st[J_ROWS], st[J_GROUPS]);
		bind_group(st[J_MOVED], st[J_GROUPS]);
		bind_group(st[J_TAIL], st[J_GROUPS]);
		if (json_stmt(w, "rows", st[J_ROWS]) || json_stmt(w, "moved", st[J_MOVED]) ||
		    json_stmt(w, "tail_driven", st[J_TAIL]))
			return -1;
		ntp_json_end_object(w);
		n++;
	}
	ntp_json_end_array(w);
	return rc != SQLITE_DONE ? -1 : !n;
}

/* The rows' query: ntp_compare_rows' columns but the group's. */
static char *json_rows_sql(sqlite3 *db)
{
	sqlite3_stmt *st;
	char *sql = NULL;

	if (sqlite3_prepare_v2(db, json_row_cols_sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		sql = sqlite3_mprintf("SELECT %s FROM ntp_compare_rows WHERE op IS ?1 AND"
				      " bytes IS ?2 AND (kind != 'component' OR ?3)",
				      sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return sql;
}

/* The comparison as one JSON document (docs/report-json.md). */
static int print_json(struct ntp_session *s, FILE *f, const char *group, int detail)
{
	char *rows_sql = json_rows_sql(s->db);
	const char *sql[J_N] = { json_groups_sql, rows_sql, json_moved_sql, json_tail_sql,
		json_recordings_sql, "SELECT min_effect_pct FROM ntp_compare_threshold",
		notes_sql };
	sqlite3_stmt *st[J_N] = { NULL };
	struct ntp_json w;
	int rc = -1, k;

	for (k = 0; k < J_N; k++)
		if (!sql[k] || sqlite3_prepare_v2(s->db, sql[k], -1, &st[k], NULL) != SQLITE_OK)
			goto out;
	sqlite3_bind_text(st[J_GROUPS], 1, group, -1, SQLITE_STATIC);
	sqlite3_bind_text(st[J_NOTES], 1, group, -1, SQLITE_STATIC);
	sqlite3_bind_int(st[J_ROWS], 3, detail);
	ntp_json_init(&w, f);
	ntp_json_start_object(&w);
	ntp_json_string_field(&w, "schema", NTP_COMPARE_SCHEMA);
	ntp_json_int_field(&w, "version", NTP_COMPARE_VERSION);
	if (!json_stmt(&w, NULL, st[J_THRESHOLD]) && !json_stmt(&w, "notes", st[J_NOTES]) &&
	    !json_runs(s, &w, st[J_RECORDINGS]))
		rc = json_groups(&w, st);
	ntp_json_end_object(&w);
	fputc('\n', f);
out:
	for (k = 0; k < J_N; k++)
		sqlite3_finalize(st[k]);
	sqlite3_free(rows_sql);
	return rc;
}

/* The comparison as one CSV table: ntp_compare_rows. 1 when it is empty. */
static int print_csv(struct ntp_session *s, FILE *f, const char *group, int detail,
		     char *err, size_t errlen)
{
	struct ntp_out o = { .f = f, .mode = NTP_MODE_CSV, .headers = 1 };
	char *sql = sqlite3_mprintf("SELECT * FROM ntp_compare_rows\n"
		"WHERE (%Q IS NULL OR instr(lower(\"group\"), lower(%Q)) > 0)\n"
		"  AND (%d OR kind != 'component');", group, group, detail);
	sqlite3_stmt *st;
	int rc, any;

	if (!sql || sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_free(sql);
		return -1;
	}
	any = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	rc = any ? ntp_out_query(&o, s->db, sql, err, errlen) : 1;
	sqlite3_free(sql);
	return rc;
}

/* The notes as "note:" lines; 1 when there are some. */
static int print_notes(struct ntp_session *s, FILE *f, const char *group)
{
	sqlite3_stmt *st;
	int rc, any = 0;

	if (sqlite3_prepare_v2(s->db, notes_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, group, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fprintf(f, "note: %s\n", col(st, 4));
		any = 1;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? any : -1;
}

/* The text: notes, then the tables. */
static int print_text(struct ntp_session *s, FILE *f, const char *group, int detail)
{
	sqlite3_stmt *st = NULL, *vd = NULL;
	struct layout o;
	int rc = -1, notes;

	notes = print_notes(s, f, group);
	if (notes < 0 || layout(s, &o, group, detail))
		return -1;
	if (notes)
		fputc('\n', f);
	if (sqlite3_prepare_v2(s->db, cells_sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(s->db, verdict_sql, -1, &vd, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, group, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, detail);
		rc = print_table(s, &o, f, st, vd);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(vd);
	return rc;
}

int ntp_parse_pct(const char *arg, double *pct)
{
	char *end;

	errno = 0;
	*pct = strtod(arg, &end);
	if (end != arg && *end == '%')
		end++;
	return end == arg || *end || errno || !(*pct >= 0 && *pct <= 1e6) ? -1 : 0;
}

int ntp_compare_min_effect(struct ntp_session *s, double pct, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, "UPDATE ntp_compare_threshold SET min_effect_pct = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return ntp_fail(err, errlen, "%s", sqlite3_errmsg(s->db));
	sqlite3_bind_double(st, 1, pct);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : ntp_fail(err, errlen, "%s", sqlite3_errmsg(s->db));
}

/* Runs whose labels print alike (a control character prints as '?'):
 * their columns could not be told apart. 0, or -1 with err set. */
static int check_labels(const struct ntp_session *s, char *err, size_t errlen)
{
	char a[512], b[512];

	for (int i = 0; i < s->nruns; i++)
		for (int j = 0; j < i; j++) {
			snprintf(a, sizeof(a), "%s", s->run_label[i]);
			snprintf(b, sizeof(b), "%s", s->run_label[j]);
			if (!strcmp(ntp_clean_text(a), ntp_clean_text(b)))
				return ntp_fail(err, errlen, "runs %d and %d would both be shown as "
						"'%s': name them apart (--label)", j + 1, i + 1, a);
		}
	return 0;
}

/* The first row's first column of SQL (?1 GROUP) as text into BUF, or as
 * an integer into *N; 1 when there is a row, 0 without, -1 on an error. */
static int query_one(struct ntp_session *s, const char *sql, const char *group, char *buf,
		     size_t len, long long *n)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_bind_parameter_count(st))
		sqlite3_bind_text(st, 1, group, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && buf)
		snprintf(buf, len, "%s", col(st, 0));
	if (rc == SQLITE_ROW && n)
		*n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/*
 * As the report (ntp_report): written to memory first, reaching F only when
 * whole, text without control characters (the group names come from the
 * recordings).
 */
int ntp_compare(struct ntp_session *s, FILE *f, const char *group, int flags, int *changed,
		char *err, size_t errlen)
{
	int detail = !!(flags & NTP_REPORT_DETAIL);
	const char *progress;
	long long marked = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int rc;

	if (errlen)
		*err = 0;
	/* a file that fails its check (NTP_OPEN_CHECK_LATE): that error first */
	if (check_labels(s, err, errlen)) {
		ntp_session_checked(s, err, errlen);
		return -1;
	}
	if (ntp_session_prepare(s, err, errlen))
		return -1;
	m = open_memstream(&buf, &len);
	if (!m)
		return ntp_fail(err, errlen, "out of memory");
	progress = ntp_progress_begin(s, "comparing the runs");
	/* the statistics once, for the table, its differences and the verdicts */
	rc = ntp_session_cache(s, "ntp_compare_stage", err, errlen);
	/* runs without a group in common are refused, not shown as '-' */
	if (!rc && query_one(s, refused_sql, NULL, err, errlen, NULL))
		rc = -1;
	if (!rc && query_one(s, changed_sql, group, NULL, 0, &marked) < 0)
		rc = -1;
	if (!rc && flags & NTP_REPORT_JSON)
		rc = print_json(s, m, group, detail);
	else if (!rc && flags & NTP_REPORT_CSV)
		rc = print_csv(s, m, group, detail, err, errlen);
	else if (!rc)
		rc = print_text(s, m, group, detail);
	ntp_progress_end(s, progress);
	if (fclose(m))
		rc = -1;
	if (rc < 0 && !*err)
		ntp_fail(err, errlen, "cannot compare the runs: %s", sqlite3_errmsg(s->db));
	else if (rc > 0)
		ntp_fail(err, errlen, group ? "no I/O group's name contains '%s'" :
			 "no I/O commands to compare%s", group ? group : "");
	else if (!rc && flags & (NTP_REPORT_JSON | NTP_REPORT_CSV))
		fwrite(buf, 1, len, f);
	else if (!rc)
		ntp_put_text(f, buf);
	free(buf);
	if (!rc && changed)
		*changed = marked > 0;
	return rc ? -1 : 0;
}
