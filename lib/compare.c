// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof compare: the runs of a session side by side, as sql/compare.sql
 * computes and formats them; this file only lays the cells out. Per I/O
 * group: one row per stage (and component, with detail), per run its mean
 * and p99, and for every run after the first the difference from the first
 * with its 95 % confidence interval; then the stage that moved most.
 */
#include <stdarg.h>
#include <stdio.h>
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

/* Per run after the first that has the group: its moved stage, if any. */
static const char moved_sql[] =
	"SELECT d.run, m.label, printf('%+.2f us [%.2f, %.2f]', m.diff_ns / 1e3,"
	"  m.ci_lo_ns / 1e3, m.ci_hi_ns / 1e3), d.base_run"
	" FROM (SELECT DISTINCT run, run_ord, base_run FROM ntp_compare_diff"
	"       WHERE op IS ?1 AND bytes IS ?2) AS d"
	" LEFT JOIN ntp_compare_moved AS m ON m.run = d.run AND m.op IS ?1 AND m.bytes IS ?2"
	" ORDER BY d.run_ord";

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

/* The statistics computed once into a TEMP table by their builder
 * (sql/compare.sql), as ntp_session_prepare caches the report's: the table,
 * its differences and the moved lines all read them. */
static int cache_stats(sqlite3 *db)
{
	static const char redefine[] =
		"DROP VIEW ntp_compare_stage;"
		"CREATE TEMP VIEW ntp_compare_stage AS SELECT * FROM _ntp_compare_stage_cache;";
	sqlite3_stmt *st;
	char *build = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT sql FROM _ntp_cache_build"
			       " WHERE name = 'ntp_compare_stage'", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		build = sqlite3_mprintf("%s%s", sqlite3_column_text(st, 0), redefine);
	/* finalized first: a pending read of the TEMP schema would lock it */
	sqlite3_finalize(st);
	rc = build && sqlite3_exec(db, build, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
	sqlite3_free(build);
	return rc;
}

int ntp_compare(struct ntp_session *s, FILE *f, const char *group, int detail, char *err,
		size_t errlen)
{
	sqlite3_stmt *st = NULL, *mv = NULL;
	const char *progress;
	int rc;

	if (ntp_session_prepare(s, err, errlen))
		return -1;
	progress = ntp_progress_begin(s, "comparing the runs");
	if (cache_stats(s->db) ||
	    sqlite3_prepare_v2(s->db, cells_sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, moved_sql, -1, &mv, NULL) != SQLITE_OK) {
		rc = -1;
	} else {
		if (group)
			sqlite3_bind_text(st, 1, group, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, detail);
		rc = print_table(s, f, st, mv);
	}
	ntp_progress_end(s, progress);
	if (rc < 0)
		ntp_fail(err, errlen, "cannot compare the runs: %s", sqlite3_errmsg(s->db));
	else if (rc > 0)
		ntp_fail(err, errlen, group ? "no I/O group's name contains '%s'" :
			 "no I/O commands to compare%s", group ? group : "");
	sqlite3_finalize(st);
	sqlite3_finalize(mv);
	return rc ? -1 : 0;
}
