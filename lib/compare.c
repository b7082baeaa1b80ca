// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof compare: the runs of a session side by side, as sql/compare.sql
 * computes and formats them; this file only lays the cells out. Per I/O
 * group: one row per stage (and component, with detail), per run its mean
 * and p99, and for every run after the first the difference from the first
 * with its 95 % confidence interval; then the stage that moved most.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntp_err.h"
#include "ntp_session.h"

#define LABEL_W 42 /* the longest stage label, and a margin */
#define DIFF_W 27  /* "+12345.67 [12340.00, 12350.00]*" fits most */

/* The cells, in table order; ?1 the group text, ?2 1 with components. */
static const char cells_sql[] =
	"SELECT name, op, bytes, kind, item, label, run_ord, n, mean_us, p99_us, diff"
	" FROM _ntp_text_compare"
	" WHERE (?1 IS NULL OR instr(lower(name), lower(?1)) > 0)"
	"   AND (kind != 'component' OR ?2)"
	" ORDER BY grp_ord, op, bytes, ord, item, run_ord";

/* Per run after the first that has the group (?1 op, ?2 bytes): its moved
 * stage, if any. */
#define MOVED_FROM \
	" FROM (SELECT DISTINCT run, run_ord, base_run FROM ntp_compare_diff" \
	"       WHERE op IS ?1 AND bytes IS ?2) AS d" \
	" LEFT JOIN ntp_compare_moved AS m ON m.run = d.run AND m.op IS ?1 AND m.bytes IS ?2" \
	" ORDER BY d.run_ord"
static const char moved_sql[] =
	"SELECT d.run, m.label, printf('%+.2f us [%.2f, %.2f]', m.diff_ns / 1e3,"
	"  m.ci_lo_ns / 1e3, m.ci_hi_ns / 1e3), d.base_run" MOVED_FROM;

/* The JSON's: the groups (?1 the group text), each one's rows (?1 op,
 * ?2 bytes, ?3 1 with components) and moved stages, the runs' recordings
 * (?1 one's schema). */
static const char json_groups_sql[] =
	"SELECT max(name) AS name, op, bytes FROM ntp_compare_stage"
	" WHERE ?1 IS NULL OR instr(lower(name), lower(?1)) > 0"
	" GROUP BY op, bytes ORDER BY min(run_ord), op, bytes";
static const char json_rows_sql[] =
	"SELECT kind, item, ord, label, run, run_ord, n, mean_ns, var_ns2, p50_ns, p99_ns,"
	" base_run, diff_ns, ci_lo_ns, ci_hi_ns, effect_pct, beyond_noise, significant, moved"
	" FROM ntp_compare_rows WHERE op IS ?1 AND bytes IS ?2 AND (kind != 'component' OR ?3)";
static const char json_moved_sql[] =
	"SELECT d.run, d.base_run, m.stage, m.label, m.diff_ns, m.ci_lo_ns, m.ci_hi_ns,"
	" m.effect_pct" MOVED_FROM;
static const char json_recordings_sql[] =
	"SELECT db, role, driver, transport, hostname, kernel, sample_rate, duration_ns,"
	" records, lost FROM ntp_db WHERE db = ?1";

/* Lines are laid out in a buffer, so the last column's padding can go. */
struct line {
	char buf[1024];
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

/* The run names and the column heads; NAME (the group's, from a recording)
 * with its control characters as '?'. */
static void print_head(const struct ntp_session *s, FILE *f, const char *group)
{
	struct line l = { .len = 0 };
	char name[LABEL_W + 1];

	snprintf(name, sizeof(name), "%s", group);
	ntp_clean_text(name);

	put(&l, "%-*s", LABEL_W, "");
	for (int r = 0; r < s->nruns; r++)
		put(&l, r ? "  %18.18s  %-*s" : "  %18.18s", s->run_label[r], DIFF_W - 2, "");
	end_line(&l, f);
	put(&l, "%-*s", LABEL_W, name);
	for (int r = 0; r < s->nruns; r++)
		put(&l, r ? "  %9s%9s  %-*s" : "  %9s%9s", "mean us", "p99 us", DIFF_W - 2,
		    "diff [95% CI]");
	end_line(&l, f);
}

/* The cells of one row, a run's missing ones as '-'. */
struct row {
	char label[128];
	char mean[NTP_MAX_DBS][24], p99[NTP_MAX_DBS][24], diff[NTP_MAX_DBS][64];
	long long n[NTP_MAX_DBS];
	int total;
};

static void print_row(const struct ntp_session *s, FILE *f, const struct row *w)
{
	struct line l = { .len = 0 };

	put(&l, "%-*.*s", LABEL_W, LABEL_W, w->label);
	for (int r = 0; r < s->nruns; r++) {
		put(&l, "  %9s%9s", w->mean[r][0] ? w->mean[r] : "-",
		    w->p99[r][0] ? w->p99[r] : "-");
		if (r)
			put(&l, "  %-*s", DIFF_W - 2, w->diff[r][0] ? w->diff[r] : "-");
	}
	end_line(&l, f);
	if (!w->total)
		return;
	put(&l, "%-*s", LABEL_W, "commands");
	for (int r = 0; r < s->nruns; r++)
		put(&l, r ? "  %18lld  %-*s" : "  %18lld", w->n[r], DIFF_W - 2, "");
	end_line(&l, f);
}

static int print_moved(struct ntp_session *s, FILE *f, sqlite3_stmt *st)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 1) == SQLITE_NULL)
			fprintf(f, "%s vs %s: no stage moved beyond noise\n", col(st, 0), col(st, 3));
		else
			fprintf(f, "%s vs %s: %s moved most, %s\n", col(st, 0), col(st, 3),
				col(st, 1), col(st, 2));
	}
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The end of a group: its last row, and what moved. */
static int end_group(struct ntp_session *s, FILE *f, struct row *w, sqlite3_stmt *mv,
		     const char *op, sqlite3_int64 bytes, int has_bytes)
{
	int rc;

	print_row(s, f, w);
	sqlite3_reset(mv);
	sqlite3_bind_text(mv, 1, op, -1, SQLITE_TRANSIENT);
	if (has_bytes)
		sqlite3_bind_int64(mv, 2, bytes);
	else
		sqlite3_bind_null(mv, 2);
	rc = print_moved(s, f, mv);
	fputc('\n', f);
	return rc;
}

static int print_table(struct ntp_session *s, FILE *f, sqlite3_stmt *st, sqlite3_stmt *mv)
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
			    end_group(s, f, &w, mv, op, bytes, has_bytes))
				return -1;
			if (any && !strcmp(key, grp))
				print_row(s, f, &w);
			if (strcmp(key, grp)) {
				snprintf(grp, sizeof(grp), "%s", key);
				snprintf(op, sizeof(op), "%s", col(st, 1));
				has_bytes = sqlite3_column_type(st, 2) != SQLITE_NULL;
				bytes = sqlite3_column_int64(st, 2);
				print_head(s, f, col(st, 0));
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
		snprintf(w.mean[r], sizeof(w.mean[r]), "%s", col(st, 8));
		snprintf(w.p99[r], sizeof(w.p99[r]), "%s", col(st, 9));
		snprintf(w.diff[r], sizeof(w.diff[r]), "%s", col(st, 10));
	}
	if (rc != SQLITE_DONE)
		return -1;
	if (!any)
		return 1;
	return end_group(s, f, &w, mv, op, bytes, has_bytes);
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
enum { J_GROUPS, J_ROWS, J_MOVED, J_RECORDINGS, J_THRESHOLD, J_N };

/* The groups selected by the group text bound to st[J_GROUPS]: per group
 * its name, rows and moved stages. 1 when there is none. */
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
		if (json_stmt(w, "rows", st[J_ROWS]) || json_stmt(w, "moved", st[J_MOVED]))
			return -1;
		ntp_json_end_object(w);
		n++;
	}
	ntp_json_end_array(w);
	return rc != SQLITE_DONE ? -1 : !n;
}

/* The comparison as one JSON document (docs/report-json.md). */
static int print_json(struct ntp_session *s, FILE *f, const char *group, int detail)
{
	static const char *const sql[J_N] = { json_groups_sql, json_rows_sql, json_moved_sql,
		json_recordings_sql, "SELECT min_effect_pct FROM ntp_compare_threshold" };
	sqlite3_stmt *st[J_N] = { NULL };
	struct ntp_json w;
	int rc = -1, k;

	for (k = 0; k < J_N; k++)
		if (sqlite3_prepare_v2(s->db, sql[k], -1, &st[k], NULL) != SQLITE_OK)
			goto out;
	sqlite3_bind_text(st[J_GROUPS], 1, group, -1, SQLITE_STATIC);
	sqlite3_bind_int(st[J_ROWS], 3, detail);
	ntp_json_init(&w, f);
	ntp_json_start_object(&w);
	ntp_json_string_field(&w, "schema", NTP_COMPARE_SCHEMA);
	ntp_json_int_field(&w, "version", NTP_COMPARE_VERSION);
	if (!json_stmt(&w, NULL, st[J_THRESHOLD]) && !json_runs(s, &w, st[J_RECORDINGS]))
		rc = json_groups(&w, st);
	ntp_json_end_object(&w);
	fputc('\n', f);
out:
	for (k = 0; k < J_N; k++)
		sqlite3_finalize(st[k]);
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

/* The text table. */
static int print_text(struct ntp_session *s, FILE *f, const char *group, int detail)
{
	sqlite3_stmt *st = NULL, *mv = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(s->db, cells_sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(s->db, moved_sql, -1, &mv, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, group, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, detail);
		rc = print_table(s, f, st, mv);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(mv);
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

/*
 * As the report (ntp_report): written to memory first, reaching F only when
 * whole, text without control characters (the group names come from the
 * recordings).
 */
int ntp_compare(struct ntp_session *s, FILE *f, const char *group, int flags, char *err,
		size_t errlen)
{
	int detail = !!(flags & NTP_REPORT_DETAIL);
	const char *progress;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int rc;

	if (errlen)
		*err = 0;
	if (ntp_session_prepare(s, err, errlen))
		return -1;
	m = open_memstream(&buf, &len);
	if (!m)
		return ntp_fail(err, errlen, "out of memory");
	progress = ntp_progress_begin(s, "comparing the runs");
	/* the statistics once, for the table, its differences and the moved
	 * lines */
	rc = ntp_session_cache(s, "ntp_compare_stage", err, errlen);
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
	return rc ? -1 : 0;
}
