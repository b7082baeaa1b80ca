// SPDX-License-Identifier: BSD-2-Clause
/*
 * The text report in the tutorial's layout. Every number, already formatted,
 * comes from the TEMP views of sql/report.sql (_ntp_text_*, over native.sql's
 * statistics unless --portable); this file only lays them out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntp_err.h"
#include "ntp_session.h"

struct group {
	char *hdb;        /* host schema */
	int64_t grp;      /* grp.id there */
	char *name;       /* 'read 4KiB nvme1n1' */
	int64_t sampled;  /* sampled commands */
	char *rate;       /* commands per second, as text: 12.2k */
	int exact;        /* rate counted, not estimated */
	int64_t matched;  /* with the target's side */
	int joined;       /* reported over matched commands */
	int io;           /* an I/O group (not admin or fabrics) */
};

static char *dup_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return strdup(t ? (const char *)t : "");
}

static int sql_error(sqlite3 *db, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", sqlite3_errmsg(db));
	return -1;
}

static sqlite3_stmt *prepare_group_query(sqlite3 *db, const char *sql, const struct group *g)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, g->hdb, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, g->grp);
	return st;
}

static void print_header(struct ntp_session *s, FILE *f)
{
	fprintf(f, "recorded on ");
	for (int i = 0, k = 0; i < s->ndbs; i++) {
		if (strcmp(s->dbs[i].role, "host"))
			continue;
		fprintf(f, "%s%s (kernel %s)", k++ ? " and " : "", s->dbs[i].hostname,
			s->dbs[i].kernel);
	}
	fprintf(f, ", one command in %lld sampled\n", (long long)s->dbs[0].sample_rate);
}

static int print_throughput(sqlite3 *db, FILE *f, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int first = 1, rc;

	if (sqlite3_prepare_v2(db, "SELECT op, iops, bytes, exact FROM _ntp_text_throughput", -1,
			       &st, NULL) != SQLITE_OK)
		return sql_error(db, err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (first)
			fprintf(f, "throughput (%s): ", sqlite3_column_int(st, 3) ? "counted" :
				"estimated from the sampled commands");
		fprintf(f, "%s%s %s%s", first ? "" : "; ", sqlite3_column_text(st, 0),
			sqlite3_column_text(st, 1), sqlite3_column_text(st, 2));
		first = 0;
	}
	if (!first)
		fprintf(f, "\n");
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(db, err, errlen);
}

static void print_group_title(FILE *f, const struct group *g)
{
	fprintf(f, "== %s: %lld commands sampled (from %s%s commands/s), ", g->name,
		(long long)g->sampled, g->exact ? "" : "about ", g->rate);
	if (!g->joined)
		fprintf(f, "host side only\n");
	else if (g->matched == g->sampled)
		fprintf(f, "all with the target's side\n");
	else
		fprintf(f, "%lld with the target's side\n", (long long)g->matched);
}

static int print_latency(sqlite3 *db, FILE *f, const struct group *g, char *err,
			 size_t errlen)
{
	sqlite3_stmt *st = prepare_group_query(db,
		"SELECT mean_us, p50_us, p99_us, p999_us FROM _ntp_text_latency"
		" WHERE hdb = ?1 AND grp = ?2", g);
	int rc;

	if (!st)
		return sql_error(db, err, errlen);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		fprintf(f, "latency (us): mean %s, p50 %s, p99 %s, p99.9 %s\n",
			sqlite3_column_text(st, 0), sqlite3_column_text(st, 1),
			sqlite3_column_text(st, 2), sqlite3_column_text(st, 3));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sql_error(db, err, errlen);
}

static int print_stages(sqlite3 *db, FILE *f, const struct group *g, char *err,
			size_t errlen)
{
	sqlite3_stmt *st = prepare_group_query(db,
		"SELECT label, mean_us, share, avg_qd, bar, max(length(label)) OVER ()"
		" FROM _ntp_text_stage WHERE hdb = ?1 AND grp = ?2 ORDER BY ord", g);
	int rc, w = 0;

	if (!st)
		return sql_error(db, err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int n = sqlite3_column_int(st, 4);

		if (!w) {
			w = sqlite3_column_int(st, 5);
			fprintf(f, "  %-*s  %8s  %5s  %6s\n", w, "stage", "mean us", "share",
				"avg QD");
		}
		fprintf(f, "  %-*s  %8s  %5s  %6s%s", w, sqlite3_column_text(st, 0),
			sqlite3_column_text(st, 1), sqlite3_column_text(st, 2),
			sqlite3_column_text(st, 3), n ? "  " : "");
		while (n-- > 0)
			fputc('#', f);
		fputc('\n', f);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(db, err, errlen);
}

static int print_largest(sqlite3 *db, FILE *f, const struct group *g, char *err,
			 size_t errlen)
{
	sqlite3_stmt *st = prepare_group_query(db,
		"SELECT label, share_pct FROM _ntp_text_largest WHERE hdb = ?1 AND grp = ?2", g);
	int rc;

	if (!st)
		return sql_error(db, err, errlen);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		fprintf(f, "largest: %s, %s %% of the latency\n", sqlite3_column_text(st, 0),
			sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sql_error(db, err, errlen);
}

static int print_components(sqlite3 *db, FILE *f, const struct group *g, char *err,
			    size_t errlen)
{
	sqlite3_stmt *st = prepare_group_query(db,
		"SELECT label, n, mean_us, l, p50_us, p99_us, max(length(label)) OVER ()"
		" FROM _ntp_text_component WHERE hdb = ?1 AND grp = ?2 ORDER BY ord", g);
	int rc, w = 0;

	if (!st)
		return sql_error(db, err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!w) {
			w = sqlite3_column_int(st, 6);
			fprintf(f, "components, in path order (L: commands in each, by Little's law)\n");
			fprintf(f, "  %-*s  %8s  %8s  %5s  %8s  %8s  (us)\n", w, "component", "n",
				"mean", "L", "p50", "p99");
		}
		fprintf(f, "  %-*s  %8lld  %8s  %5s  %8s  %8s\n", w, sqlite3_column_text(st, 0),
			(long long)sqlite3_column_int64(st, 1), sqlite3_column_text(st, 2),
			sqlite3_column_text(st, 3), sqlite3_column_text(st, 4),
			sqlite3_column_text(st, 5));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(db, err, errlen);
}

/* admin and fabrics commands: 7 sampled in 3 groups (keep-alive, identify,
 * connect); --all shows them */
static int print_admin(sqlite3 *db, FILE *f, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT sampled, groups, ops FROM _ntp_text_admin", -1, &st,
			       NULL) != SQLITE_OK)
		return sql_error(db, err, errlen);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		fprintf(f, "admin and fabrics commands: %lld sampled in %lld groups (%s); --all "
			"shows them\n", (long long)sqlite3_column_int64(st, 0),
			(long long)sqlite3_column_int64(st, 1), sqlite3_column_text(st, 2));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sql_error(db, err, errlen);
}

static int print_group(sqlite3 *db, FILE *f, const struct group *g, int detail, char *err,
		       size_t errlen)
{
	print_group_title(f, g);
	return print_latency(db, f, g, err, errlen) || print_stages(db, f, g, err, errlen) ||
	       print_largest(db, f, g, err, errlen) ||
	       (detail && print_components(db, f, g, err, errlen)) ? -1 : 0;
}

/* ", not matched: 3 without a target record in time, 2 ambiguous" */
static int print_unmatched(sqlite3 *db, FILE *f, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc, first = 1;

	if (sqlite3_prepare_v2(db, "SELECT n, label FROM ntp_report_unmatched", -1, &st,
			       NULL) != SQLITE_OK)
		return sql_error(db, err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fprintf(f, "%s %lld %s", first ? ", not matched:" : ",",
			(long long)sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1));
		first = 0;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(db, err, errlen);
}

/* records: 2435 host, 3616 target; 2435 matched (100 % of the host's) */
static int print_records(struct ntp_session *s, FILE *f, char *err, size_t errlen)
{
	int64_t lost = 0, unmatched;
	sqlite3_stmt *st;

	fprintf(f, "records: ");
	for (int i = 0; i < s->ndbs; i++) {
		fprintf(f, "%s%lld %s", i ? ", " : "", (long long)s->dbs[i].records,
			s->dbs[i].role);
		lost += s->dbs[i].lost;
	}
	if (s->ntargets) {
		/* never round a partial match up to "100 %" */
		if (sqlite3_prepare_v2(s->db, "SELECT matched, matched_pct, unmatched"
				       " FROM _ntp_text_match", -1, &st, NULL) != SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			return sql_error(s->db, err, errlen);
		}
		fprintf(f, "; %lld matched (%s %% of the host's)",
			(long long)sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1));
		unmatched = sqlite3_column_int64(st, 2);
		sqlite3_finalize(st);
		if (unmatched && print_unmatched(s->db, f, err, errlen))
			return -1;
	}
	if (lost)
		fprintf(f, "; %lld lost while recording", (long long)lost);
	fprintf(f, "\n");
	return 0;
}

/* How many of the session's databases have ROLE. */
static int count_role(const struct ntp_session *s, const char *role)
{
	int n = 0;

	for (int i = 0; i < s->ndbs; i++)
		n += !strcmp(s->dbs[i].role, role);
	return n;
}

/*
 * What the recordings lost or lack, one line each (ntp_report_missing):
 *   lost: 12 host records (12: the ring buffer was full ...)
 *   gaps: 1565 of 254878 host records lack h_rx (1500: ...; 65: ...)
 */
static int print_missing(struct ntp_session *s, FILE *f, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, "SELECT role, hostname, point, n, records, causes"
			       " FROM ntp_report_missing", -1, &st, NULL) != SQLITE_OK)
		return sql_error(s->db, err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *role = (const char *)sqlite3_column_text(st, 0);
		const char *host = (const char *)sqlite3_column_text(st, 1);
		const char *point = (const char *)sqlite3_column_text(st, 2);
		char who[160];

		snprintf(who, sizeof(who), "%s records%s%s%s", role,
			 count_role(s, role) > 1 ? " (" : "", count_role(s, role) > 1 ? host : "",
			 count_role(s, role) > 1 ? ")" : "");
		if (point)
			fprintf(f, "gaps: %lld of %lld %s lack %s (%s)\n",
				(long long)sqlite3_column_int64(st, 3),
				(long long)sqlite3_column_int64(st, 4), who, point,
				sqlite3_column_text(st, 5));
		else
			fprintf(f, "lost: %lld %s (%s)\n", (long long)sqlite3_column_int64(st, 3),
				who, sqlite3_column_text(st, 5));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(s->db, err, errlen);
}

static void free_groups(struct group *g, int n)
{
	for (int i = 0; i < n; i++) {
		free(g[i].hdb);
		free(g[i].name);
		free(g[i].rate);
	}
	free(g);
}

/* The groups to report, optionally those whose name contains FILTER. */
static int load_groups(sqlite3 *db, const char *filter, struct group **out, int *n,
		       char *err, size_t errlen)
{
	sqlite3_stmt *st;
	struct group *g = NULL, *ng;
	int rc;

	*n = 0;
	if (sqlite3_prepare_v2(db, "SELECT hdb, grp, name, sampled, rate, exact, matched, joined,"
				   " io FROM _ntp_text_group WHERE ?1 IS NULL OR name LIKE '%' || ?1 || '%'",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_error(db, err, errlen);
	sqlite3_bind_text(st, 1, filter, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ng = realloc(g, (size_t)(*n + 1) * sizeof(*g));
		if (!ng)
			break;
		g = ng;
		g[*n] = (struct group){ .hdb = dup_text(st, 0), .grp = sqlite3_column_int64(st, 1),
					.name = dup_text(st, 2),
					.sampled = sqlite3_column_int64(st, 3),
					.rate = dup_text(st, 4),
					.exact = sqlite3_column_int(st, 5),
					.matched = sqlite3_column_int64(st, 6),
					.joined = sqlite3_column_int(st, 7),
					.io = sqlite3_column_int(st, 8) };
		(*n)++;
	}
	sqlite3_finalize(st);
	*out = g;
	if (rc != SQLITE_DONE) {
		free_groups(g, *n);
		return sql_error(db, err, errlen);
	}
	return 0;
}

/* The report of S into F, text as recorded (ntp_report cleans it). */
static int report_raw(struct ntp_session *s, FILE *f, int flags, const char *group, char *err,
		      size_t errlen)
{
	int detail = flags & NTP_REPORT_DETAIL, all = flags & NTP_REPORT_ALL || group;
	struct group *g = NULL;
	int n = 0, rc = 0;

	if (ntp_session_prepare(s, err, errlen) ||
	    load_groups(s->db, group, &g, &n, err, errlen))
		return -1;
	if (!n) {
		snprintf(err, errlen, group ? "no group matches '%s'" : "no commands", group);
		free_groups(g, n);
		return -1;
	}
	print_header(s, f);
	if (!s->ntargets)
		rc = print_throughput(s->db, f, err, errlen);
	for (int i = 0; i < n && !rc; i++)
		if (g[i].io || all)
			rc = print_group(s->db, f, &g[i], detail, err, errlen);
	if (!rc && !all)
		rc = print_admin(s->db, f, err, errlen);
	if (!rc)
		rc = print_records(s, f, err, errlen);
	if (!rc)
		rc = print_missing(s, f, err, errlen);
	free_groups(g, n);
	return rc;
}

/*
 * Recorded text (host names, kernels, device names, NQNs) comes from
 * another machine: the report is written to memory first and reaches F
 * without control characters, so no terminal escape in a recording can
 * act on the reader's terminal.
 */
int ntp_report(struct ntp_session *s, FILE *f, int flags, const char *group, char *err,
	       size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	const char *progress;
	int rc;

	if (!m)
		return ntp_fail(err, errlen, "out of memory");
	progress = ntp_progress_begin(s, "computing the report");
	rc = report_raw(s, m, flags, group, err, errlen);
	ntp_progress_end(s, progress);
	if (fclose(m))
		rc = ntp_fail(err, errlen, "out of memory");
	if (!rc)
		ntp_put_text(f, buf);
	free(buf);
	return rc;
}
