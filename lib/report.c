// SPDX-License-Identifier: BSD-2-Clause
/*
 * The report: text in the tutorial's layout, or a JSON document, or one CSV
 * table. Every number comes from the TEMP views of sql/report.sql (over
 * native.sql's statistics unless --portable): the text's already formatted
 * (_ntp_text_*), the JSON's and CSV's as the views compute them, so this
 * file only lays them out. One printer per part, as bpftool's: with a JSON
 * writer it writes the part's members (docs/report-json.md), else its
 * lines. The fleet summary's groups (ntp_report_fleet_*) go through the
 * same printers, with their own queries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntp_err.h"
#include "ntp_out.h"
#include "ntp_progress.h"
#include "ntp_report.h"
#include "ntp_session.h"

struct group {
	char *hdb;        /* host schema; "": a fleet group */
	int64_t grp;      /* grp.id there; a fleet group's fleet */
	char *name;       /* 'read 4KiB nvme1n1' */
	int64_t sampled;  /* sampled commands */
	char *rate;       /* commands per second, as text: 12.2k */
	int exact;        /* rate counted, not estimated */
	int64_t matched;  /* with the target's side */
	int joined;       /* reported over matched commands */
	int io;           /* an I/O group (not admin or fabrics) */
};

/* Where a report goes. */
struct rep {
	struct ntp_session *s;  /* the recordings */
	sqlite3 *db;            /* s->db */
	FILE *f;                /* where the text or the JSON goes */
	struct ntp_json *w;     /* the JSON document; NULL: text */
	int fleet;              /* the fleet summary: its groups are fleet groups */
	const char *group;      /* only groups whose name has this; NULL: all */
	int all;                /* admin and fabrics groups too */
	int warnings;           /* warnings in the report (ntp_report_warning) */
	char *err;              /* the message, on -1 */
	size_t errlen;
};

/* The warnings of the report (sql/report.sql, ntp_report_warning): every
 * refused join, and those of the groups it shows (?1: the group filter,
 * ?2: admin and fabrics groups too), in report order. */
static const char shown_warnings_sql[] =
	"SELECT w.level, w.hdb, w.tdb, w.grp, w.reason, w.message"
	" FROM ntp_report_warning AS w"
	" LEFT JOIN ntp_report_group AS g ON g.hdb = w.hdb AND g.grp = w.grp"
	" WHERE w.level = 'join' OR ((?2 OR g.queue = 'io')"
	"  AND (?1 IS NULL OR g.name LIKE '%' || ?1 || '%'))"
	" ORDER BY w.level = 'group', g.queue != 'io', w.hdb, w.grp, w.tdb, w.reason";

/* How json_rows writes the rows of a query. */
enum json_as {
	JSON_ARRAY,    /* "name": [{row}, ...] */
	JSON_OBJECT,   /* "name": {first row}, or null without one */
	JSON_MEMBERS,  /* the first row's columns, into the open object */
};

/* A group's parts in the JSON: the queries of a report group (?1 its host
 * schema, ?2 its grp), and of a fleet group (?2 its fleet). The text's
 * views have both (a fleet group's hdb is ''). */
static const struct part_sql {
	const char *title, *latency, *stages, *largest;
} part_json[2] = {
	{
		.title = "SELECT name, hdb, grp, queue, op, bytes, mode, sampled, matched,"
			" rate, exact, host_driver, transport, target_driver,"
			" lost, lost_pct, target_lost_pct"
			" FROM ntp_report_group WHERE hdb = ?1 AND grp = ?2",
		.latency = "SELECT n, mean_ns, p50_ns, p99_ns, p999_ns"
			" FROM ntp_report_component_stats"
			" WHERE hdb = ?1 AND grp = ?2 AND component = 'e2e'",
		.stages = "SELECT s.ord, s.stage, s.label, s.mean_ns, s.share, s.avg_qd, p.n,"
			" p.p50_ns, p.p90_ns, p.p99_ns, p.p999_ns"
			" FROM ntp_report_stage AS s LEFT JOIN ntp_report_stage_stats AS p"
			" ON p.hdb = s.hdb AND p.grp = s.grp AND p.stage = s.stage"
			" WHERE s.hdb = ?1 AND s.grp = ?2 ORDER BY s.ord",
		.largest = "SELECT stage, label, share FROM ntp_report_largest"
			" WHERE hdb = ?1 AND grp = ?2",
	},
	{
		.title = "SELECT name, fleet, queue, op, bytes, mode, hosts, groups, sampled,"
			" matched, rate, exact, host_driver, transport, target_driver"
			" FROM ntp_report_fleet_group WHERE fleet = ?2",
		.latency = "SELECT n, mean_ns, p50_ns, p99_ns, p999_ns"
			" FROM ntp_report_fleet_stats WHERE fleet = ?2 AND kind = 'component'",
		.stages = "SELECT ord, stage, label, mean_ns, share, avg_qd"
			" FROM ntp_report_fleet_stage WHERE fleet = ?2 ORDER BY ord",
		.largest = "SELECT stage, label, share FROM ntp_report_fleet_largest"
			" WHERE fleet = ?2",
	},
};

static char *dup_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return strdup(t ? (const char *)t : "");
}

static int sql_error(struct rep *r)
{
	snprintf(r->err, r->errlen, "%s", sqlite3_errmsg(r->db));
	return -1;
}

/* SQL with ?1 and ?2 bound to G's host schema and group, if G. */
static sqlite3_stmt *prepare_group_query(sqlite3 *db, const char *sql, const struct group *g)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (g) {
		sqlite3_bind_text(st, 1, g->hdb, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, g->grp);
	}
	return st;
}

/* The rows of SQL (of group G, if not NULL) into the JSON document, under
 * NAME; the columns' names are the members' names. */
static int json_rows(struct rep *r, const char *name, const char *sql, const struct group *g,
		     enum json_as as)
{
	sqlite3_stmt *st = prepare_group_query(r->db, sql, g);
	int rc = SQLITE_DONE, n = 0;

	if (!st)
		return sql_error(r);
	if (as != JSON_MEMBERS)
		ntp_json_name(r->w, name);
	if (as == JSON_ARRAY)
		ntp_json_start_array(r->w);
	while ((as == JSON_ARRAY || !n) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (as == JSON_MEMBERS ? ntp_json_columns(r->w, st) : ntp_json_row(r->w, st)) {
			rc = SQLITE_NOMEM;
			break;
		}
		n++;
	}
	if (as == JSON_ARRAY)
		ntp_json_end_array(r->w);
	else if (as == JSON_OBJECT && !n)
		ntp_json_raw(r->w, "null");
	sqlite3_finalize(st);
	if (rc == SQLITE_NOMEM)
		return ntp_fail(r->err, r->errlen, "out of memory");
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : sql_error(r);
}

/* The report's warnings (shown_warnings_sql): counted into r->warnings;
 * with PRINT (after a count), the refused joins printed, one line each, as
 * text, or the JSON's "reliable" and "unreliable" members. */
static int print_warnings(struct rep *r, int print)
{
	sqlite3_stmt *st;
	int rc, n = 0;

	if (sqlite3_prepare_v2(r->db, shown_warnings_sql, -1, &st, NULL) != SQLITE_OK)
		return sql_error(r);
	sqlite3_bind_text(st, 1, r->group, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, r->all);
	if (print && r->w) {
		ntp_json_bool_field(r->w, "reliable", !r->warnings);
		ntp_json_name(r->w, "unreliable");
		ntp_json_start_array(r->w);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *level = (const char *)sqlite3_column_text(st, 0);

		n++;
		if (!print)
			continue;
		if (r->w) {
			if (ntp_json_row(r->w, st)) {
				rc = SQLITE_NOMEM;
				break;
			}
		} else if (!strcmp(level, "join")) {
			fprintf(r->f, "join refused: %s with %s: %s\n",
				ntp_session_path(r->s, (const char *)sqlite3_column_text(st, 1)),
				ntp_session_path(r->s, (const char *)sqlite3_column_text(st, 2)),
				sqlite3_column_text(st, 5));
		}
	}
	if (print && r->w)
		ntp_json_end_array(r->w);
	sqlite3_finalize(st);
	if (rc == SQLITE_NOMEM)
		return ntp_fail(r->err, r->errlen, "out of memory");
	if (rc != SQLITE_DONE)
		return sql_error(r);
	r->warnings = n;
	return 0;
}

/* One recording in the JSON: its path, its row of ntp_db, its hooks. */
static int json_recording(struct rep *r, const struct ntp_dbinfo *d)
{
	/* a merged file's recording: its hooks are in the file's table of them */
	char *hooks = d->from[0] ?
		sqlite3_mprintf("SELECT name, attach_to, kind, points FROM \"%w\".ntp_merged_hook"
				" WHERE db = %Q ORDER BY name", d->from, d->stored) :
		sqlite3_mprintf("SELECT name, attach_to, kind, points FROM \"%w\".hook"
				" ORDER BY name", d->schema);
	char *row = sqlite3_mprintf("SELECT db, role, driver, transport, hostname, kernel,"
				    " sample_rate, duration_ns, records, lost FROM ntp_db"
				    " WHERE db = %Q", d->schema);
	int rc;

	ntp_json_start_object(r->w);
	ntp_json_string_field(r->w, "path", d->path);
	rc = !hooks || !row ? ntp_fail(r->err, r->errlen, "out of memory") :
	     json_rows(r, NULL, row, NULL, JSON_MEMBERS) ||
	     json_rows(r, "hooks", hooks, NULL, JSON_ARRAY) ? -1 : 0;
	ntp_json_end_object(r->w);
	sqlite3_free(hooks);
	sqlite3_free(row);
	return rc;
}

/* How many of the session's databases have ROLE. */
static int count_role(const struct ntp_session *s, const char *role)
{
	int n = 0;

	for (int i = 0; i < s->ndbs; i++)
		n += !strcmp(s->dbs[i].role, role);
	return n;
}

/* The summary's hosts: "16 hosts (kernel 6.1.0-13-amd64)", each kernel once. */
static void print_fleet_hosts_kernels(struct rep *r)
{
	const struct ntp_session *s = r->s;
	int k = 0;

	fprintf(r->f, "%d hosts (kernel", count_role(s, "host"));
	for (int i = 0; i < s->ndbs; i++) {
		int seen = 0;

		if (strcmp(s->dbs[i].role, "host"))
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(s->dbs[j].role, "host") &&
			       !strcmp(s->dbs[j].kernel, s->dbs[i].kernel);
		if (!seen)
			fprintf(r->f, "%s %s", k++ ? "," : "", s->dbs[i].kernel);
	}
	fprintf(r->f, ")");
}

static int print_header(struct rep *r)
{
	struct ntp_session *s = r->s;
	int rc = 0;

	if (r->w) {
		ntp_json_string_field(r->w, "schema", NTP_REPORT_SCHEMA);
		ntp_json_int_field(r->w, "version", NTP_REPORT_VERSION);
		ntp_json_int_field(r->w, "sample_rate", s->dbs[0].sample_rate);
		ntp_json_name(r->w, "recordings");
		ntp_json_start_array(r->w);
		for (int i = 0; i < s->ndbs && !rc; i++)
			if (strcmp(s->dbs[i].role, "merged"))
				rc = json_recording(r, &s->dbs[i]);
		ntp_json_end_array(r->w);
		return rc || print_warnings(r, 1) ||
		       json_rows(r, "joins", "SELECT * FROM ntp_join_check", NULL, JSON_ARRAY) ?
		       -1 : 0;
	}
	fprintf(r->f, "recorded on ");
	if (r->fleet)
		print_fleet_hosts_kernels(r);
	for (int i = 0, k = 0; i < s->ndbs && !r->fleet; i++) {
		if (strcmp(s->dbs[i].role, "host"))
			continue;
		fprintf(r->f, "%s%s (kernel %s)", k++ ? " and " : "", s->dbs[i].hostname,
			s->dbs[i].kernel);
	}
	fprintf(r->f, ", one command in %lld sampled\n", (long long)s->dbs[0].sample_rate);
	return print_warnings(r, 1);
}

static int print_throughput(struct rep *r)
{
	sqlite3_stmt *st;
	int first = 1, rc;

	if (r->w)
		return json_rows(r, "throughput", "SELECT op, iops, bytes_per_s, exact"
				 " FROM ntp_report_throughput", NULL, JSON_ARRAY);
	if (sqlite3_prepare_v2(r->db, "SELECT op, iops, bytes, exact FROM _ntp_text_throughput",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_error(r);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (first)
			fprintf(r->f, "throughput (%s): ", sqlite3_column_int(st, 3) ? "counted" :
				"estimated from the sampled commands");
		fprintf(r->f, "%s%s %s%s", first ? "" : "; ", sqlite3_column_text(st, 0),
			sqlite3_column_text(st, 1), sqlite3_column_text(st, 2));
		first = 0;
	}
	if (!first)
		fprintf(r->f, "\n");
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(r);
}

/* The group's warnings (ntp_report_warning): as text, a line each above
 * its numbers; in the JSON, "reliable" and the "unreliable" array. */
static int print_group_warnings(struct rep *r, const struct group *g)
{
	static const char sql[] = "SELECT reason, message FROM ntp_report_warning"
				  " WHERE level = 'group' AND hdb = ?1 AND grp = ?2";
	sqlite3_stmt *st;
	int rc;

	if (r->w) {
		st = prepare_group_query(r->db, "SELECT unreliable IS NULL FROM ntp_report_group"
					 " WHERE hdb = ?1 AND grp = ?2", g);
		if (!st || sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			return sql_error(r);
		}
		ntp_json_bool_field(r->w, "reliable", sqlite3_column_int(st, 0));
		sqlite3_finalize(st);
		return json_rows(r, "unreliable", sql, g, JSON_ARRAY);
	}
	st = prepare_group_query(r->db, sql, g);
	if (!st)
		return sql_error(r);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fprintf(r->f, "warning: %s\n", sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(r);
}

static int print_group_title(struct rep *r, const struct group *g)
{
	if (r->w)
		return json_rows(r, NULL, part_json[r->fleet].title, g, JSON_MEMBERS);
	fprintf(r->f, "== %s: %lld commands sampled (from %s%s commands/s), ", g->name,
		(long long)g->sampled, g->exact ? "" : "about ", g->rate);
	if (!g->joined)
		fprintf(r->f, "host side only\n");
	else if (g->matched == g->sampled)
		fprintf(r->f, "all with the target's side\n");
	else
		fprintf(r->f, "%lld with the target's side\n", (long long)g->matched);
	return 0;
}

static int print_latency(struct rep *r, const struct group *g)
{
	sqlite3_stmt *st;
	int rc;

	if (r->w)
		return json_rows(r, "latency", part_json[r->fleet].latency, g, JSON_OBJECT);
	st = prepare_group_query(r->db, "SELECT mean_us, p50_us, p99_us, p999_us"
				 " FROM _ntp_text_latency WHERE hdb = ?1 AND grp = ?2", g);
	if (!st)
		return sql_error(r);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		fprintf(r->f, "latency (us): mean %s, p50 %s, p99 %s, p99.9 %s\n",
			sqlite3_column_text(st, 0), sqlite3_column_text(st, 1),
			sqlite3_column_text(st, 2), sqlite3_column_text(st, 3));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sql_error(r);
}

static int print_stages(struct rep *r, const struct group *g)
{
	sqlite3_stmt *st;
	int rc, w = 0;

	if (r->w)
		return json_rows(r, "stages", part_json[r->fleet].stages, g, JSON_ARRAY);
	st = prepare_group_query(r->db, "SELECT label, mean_us, share, avg_qd, bar,"
				 " max(length(label)) OVER () FROM _ntp_text_stage"
				 " WHERE hdb = ?1 AND grp = ?2 ORDER BY ord", g);
	if (!st)
		return sql_error(r);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int n = sqlite3_column_int(st, 4);

		if (!w) {
			w = sqlite3_column_int(st, 5);
			fprintf(r->f, "  %-*s  %8s  %5s  %6s\n", w, "stage", "mean us", "share",
				"avg QD");
		}
		fprintf(r->f, "  %-*s  %8s  %5s  %6s%s", w, sqlite3_column_text(st, 0),
			sqlite3_column_text(st, 1), sqlite3_column_text(st, 2),
			sqlite3_column_text(st, 3), n ? "  " : "");
		while (n-- > 0)
			fputc('#', r->f);
		fputc('\n', r->f);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(r);
}

static int print_largest(struct rep *r, const struct group *g)
{
	sqlite3_stmt *st;
	int rc;

	if (r->w)
		return json_rows(r, "largest", part_json[r->fleet].largest, g, JSON_OBJECT);
	st = prepare_group_query(r->db, "SELECT label, share_pct FROM _ntp_text_largest"
				 " WHERE hdb = ?1 AND grp = ?2", g);
	if (!st)
		return sql_error(r);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		fprintf(r->f, "largest: %s, %s %% of the latency\n", sqlite3_column_text(st, 0),
			sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sql_error(r);
}

static int print_components(struct rep *r, const struct group *g)
{
	sqlite3_stmt *st;
	int rc, w = 0;

	if (r->w)
		return json_rows(r, "components", "SELECT ord, component, label, n, mean_ns, l,"
				 " p50_ns, p99_ns, p999_ns FROM ntp_report_components"
				 " WHERE hdb = ?1 AND grp = ?2 ORDER BY ord", g, JSON_ARRAY);
	st = prepare_group_query(r->db, "SELECT label, n, mean_us, l, p50_us, p99_us,"
				 " max(length(label)) OVER () FROM _ntp_text_component"
				 " WHERE hdb = ?1 AND grp = ?2 ORDER BY ord", g);
	if (!st)
		return sql_error(r);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!w) {
			w = sqlite3_column_int(st, 6);
			fprintf(r->f, "components, in path order (L: commands in each, by Little's law)\n");
			fprintf(r->f, "  %-*s  %8s  %8s  %5s  %8s  %8s  (us)\n", w, "component", "n",
				"mean", "L", "p50", "p99");
		}
		fprintf(r->f, "  %-*s  %8lld  %8s  %5s  %8s  %8s\n", w, sqlite3_column_text(st, 0),
			(long long)sqlite3_column_int64(st, 1), sqlite3_column_text(st, 2),
			sqlite3_column_text(st, 3), sqlite3_column_text(st, 4),
			sqlite3_column_text(st, 5));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(r);
}

/*
 * A fleet group's hosts, one row per host group pooled into it:
 *   per host: commands sampled and matched, end to end (us), largest stage
 *     host       sampled  matched    mean     p50     p99   p99.9  lost  largest
 */
static int print_fleet_hosts(struct rep *r, const struct group *g)
{
	sqlite3_stmt *st;
	int rc, w = 0;

	if (r->w)
		return json_rows(r, "per_host", "SELECT hdb, grp, hostname, \"group\", sampled,"
				 " matched, rate, exact, n, mean_ns, p50_ns, p99_ns, p999_ns,"
				 " largest, largest_label, largest_share, lost"
				 " FROM ntp_report_fleet_host WHERE fleet = ?2", g, JSON_ARRAY);
	st = prepare_group_query(r->db, "SELECT hostname, sampled, matched, mean_us, p50_us,"
				 " p99_us, p999_us, lost, largest,"
				 " max(length(hostname)) OVER ()"
				 " FROM _ntp_text_fleet_host WHERE fleet = ?2", g);
	if (!st)
		return sql_error(r);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!w) {
			w = sqlite3_column_int(st, 9) > 4 ? sqlite3_column_int(st, 9) : 4;
			fprintf(r->f, "per host: commands sampled and matched, end to end (us),"
				" records lost, largest stage\n");
			fprintf(r->f, "  %-*s  %8s  %8s  %8s  %8s  %8s  %8s  %6s  %s\n", w, "host",
				"sampled", "matched", "mean", "p50", "p99", "p99.9", "lost",
				"largest");
		}
		fprintf(r->f, "  %-*s  %8lld  %8lld  %8s  %8s  %8s  %8s  %6lld  %s\n", w,
			sqlite3_column_text(st, 0), (long long)sqlite3_column_int64(st, 1),
			(long long)sqlite3_column_int64(st, 2), sqlite3_column_text(st, 3),
			sqlite3_column_text(st, 4), sqlite3_column_text(st, 5),
			sqlite3_column_text(st, 6), (long long)sqlite3_column_int64(st, 7),
			sqlite3_column_text(st, 8));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(r);
}

/* One line of the tail table: LINE (LEN bytes, at most 1023) without the
 * spaces at its end. */
static void put_line(FILE *f, char *line, size_t len)
{
	while (len && line[len - 1] == ' ')
		len--;
	fprintf(f, "%.*s\n", (int)len, line);
}

/*
 * Where the time of the slow commands goes (--detail): per tail band of the
 * end to end (ntp_report_tail), its commands, their mean, and each stage's
 * mean and share over them; '*' marks a band's largest stage.
 *   by end-to-end band: each stage's mean (us) and share of the band's ...
 *     band                     p0-50             p50-90  ...
 *     commands                  5331               4265
 *     end to end               80.42              84.53
 *     storage (target ...)     56.28  70%*        60.20  71%*
 */
static int print_tail(struct rep *r, const struct group *g)
{
	static const char *const head[] = { "band", "commands", "end to end" };
	char line[1024];
	sqlite3_stmt *st;
	size_t len = 0;
	int rc, w = 0;

	if (r->w)
		return json_rows(r, "tail", "SELECT band_ord, band, n, e2e_min_ns, e2e_max_ns,"
				 " e2e_mean_ns, ord, stage, label, mean_ns, share, largest"
				 " FROM ntp_report_tail WHERE hdb = ?1 AND grp = ?2"
				 " ORDER BY band_ord, ord", g, JSON_ARRAY);
	/* the heading, a column per band (every band: one without commands
	 * shows 0 and '-'): its name, commands and mean, from the rows of the
	 * first stage */
	st = prepare_group_query(r->db, "SELECT band, n, e2e_mean_us,"
				 " max(length(label)) OVER (), ord = min(ord) OVER ()"
				 " FROM _ntp_text_tail WHERE hdb = ?1 AND grp = ?2"
				 " ORDER BY band_ord, ord", g);
	if (!st)
		return sql_error(r);
	for (int i = 0; i < 3; i++) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (!sqlite3_column_int(st, 4))
				continue;
			if (!w) {
				w = sqlite3_column_int(st, 3);
				fprintf(r->f, "by end-to-end band: each stage's mean (us) and share of"
					" the band's mean; * the band's largest\n");
			}
			if (!len)
				len = (size_t)snprintf(line, sizeof(line), "  %-*s", w, head[i]);
			if (len < sizeof(line))
				len += (size_t)snprintf(line + len, sizeof(line) - len, "  %9s      ",
							sqlite3_column_text(st, i));
		}
		if (rc != SQLITE_DONE)
			break;
		if (len)
			put_line(r->f, line, len < sizeof(line) ? len : sizeof(line) - 1);
		len = 0;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_error(r);
	/* a row per stage, a cell per band */
	st = prepare_group_query(r->db, "SELECT label, mean_us, share, largest, band_ord = 1"
				 " FROM _ntp_text_tail WHERE hdb = ?1 AND grp = ?2"
				 " ORDER BY ord, band_ord", g);
	if (!st)
		return sql_error(r);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_int(st, 4)) {
			if (len)
				put_line(r->f, line, len < sizeof(line) ? len : sizeof(line) - 1);
			len = (size_t)snprintf(line, sizeof(line), "  %-*s", w,
					       sqlite3_column_text(st, 0));
		}
		if (len < sizeof(line))
			len += (size_t)snprintf(line + len, sizeof(line) - len, "  %9s %4s%c",
						sqlite3_column_text(st, 1),
						sqlite3_column_text(st, 2),
						sqlite3_column_int(st, 3) ? '*' : ' ');
	}
	if (len)
		put_line(r->f, line, len < sizeof(line) ? len : sizeof(line) - 1);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(r);
}

/* admin and fabrics commands: 7 sampled in 3 groups (keep-alive, identify,
 * connect); --all shows them */
static int print_admin(struct rep *r)
{
	sqlite3_stmt *st;
	int rc;

	if (r->w)
		return json_rows(r, "admin", "SELECT hdb, sampled, groups, ops FROM ntp_report_admin",
				 NULL, JSON_ARRAY);
	if (sqlite3_prepare_v2(r->db, "SELECT sampled, groups, ops FROM _ntp_text_admin", -1,
			       &st, NULL) != SQLITE_OK)
		return sql_error(r);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		fprintf(r->f, "admin and fabrics commands: %lld sampled in %lld groups (%s); --all "
			"shows them\n", (long long)sqlite3_column_int64(st, 0),
			(long long)sqlite3_column_int64(st, 1), sqlite3_column_text(st, 2));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sql_error(r);
}

static int print_group(struct rep *r, const struct group *g, int detail)
{
	int rc;

	if (r->w)
		ntp_json_start_object(r->w);
	rc = print_group_title(r, g) || (!r->fleet && print_group_warnings(r, g)) ||
	     print_latency(r, g) || print_stages(r, g) || print_largest(r, g) ||
	     (detail && print_components(r, g)) || (detail && print_tail(r, g)) ||
	     (r->fleet && print_fleet_hosts(r, g)) ? -1 : 0;
	if (r->w)
		ntp_json_end_object(r->w);
	return rc;
}

/* ", not matched: 3 without a target record in time, 2 ambiguous" */
static int print_unmatched(struct rep *r)
{
	sqlite3_stmt *st;
	int rc, first = 1;

	if (sqlite3_prepare_v2(r->db, "SELECT n, label FROM ntp_report_unmatched", -1, &st,
			       NULL) != SQLITE_OK)
		return sql_error(r);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fprintf(r->f, "%s %lld %s", first ? ", not matched:" : ",",
			(long long)sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1));
		first = 0;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(r);
}

/* The match of host and target records in the JSON: per host, and the
 * unmatched per reason; both empty without a target. */
static int json_match(struct rep *r)
{
	const char *none = r->s->ntargets ? "" : " WHERE 0";
	char *match = sqlite3_mprintf("SELECT hdb, host_records, target_records, matched,"
				      " matched_pct FROM ntp_match_stats%s", none);
	char *unmatched = sqlite3_mprintf("SELECT reason, label, n FROM ntp_report_unmatched%s",
					  none);
	int rc = !match || !unmatched ? ntp_fail(r->err, r->errlen, "out of memory") :
		 json_rows(r, "match", match, NULL, JSON_ARRAY) ||
		 json_rows(r, "unmatched", unmatched, NULL, JSON_ARRAY) ? -1 : 0;

	sqlite3_free(match);
	sqlite3_free(unmatched);
	return rc;
}

/* records: 2435 host, 3616 target; 2435 matched (100 % of the host's) */
static int print_records(struct rep *r)
{
	struct ntp_session *s = r->s;
	int64_t lost = 0, unmatched;
	sqlite3_stmt *st;

	if (r->w)
		return json_match(r);
	fprintf(r->f, "records: ");
	for (int i = 0, k = 0; i < s->ndbs; i++) {
		if (!strcmp(s->dbs[i].role, "merged"))
			continue; /* its recordings are listed */
		lost += s->dbs[i].lost;
		if (!r->fleet)
			fprintf(r->f, "%s%lld %s", k++ ? ", " : "", (long long)s->dbs[i].records,
				s->dbs[i].role);
	}
	/* the summary: per role, "16000 host (16 recordings)" */
	for (int k = 0; r->fleet && k < 2; k++) {
		const char *role = k ? "target" : "host";
		int64_t n = 0;

		for (int i = 0; i < s->ndbs; i++)
			if (!strcmp(s->dbs[i].role, role))
				n += s->dbs[i].records;
		if (count_role(s, role))
			fprintf(r->f, "%s%lld %s (%d recording%s)", k ? ", " : "", (long long)n,
				role, count_role(s, role), count_role(s, role) > 1 ? "s" : "");
	}
	if (s->ntargets) {
		/* never round a partial match up to "100 %" */
		if (sqlite3_prepare_v2(r->db, "SELECT matched, matched_pct, unmatched"
				       " FROM _ntp_text_match", -1, &st, NULL) != SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			return sql_error(r);
		}
		fprintf(r->f, "; %lld matched (%s %% of the host's)",
			(long long)sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1));
		unmatched = sqlite3_column_int64(st, 2);
		sqlite3_finalize(st);
		if (unmatched && print_unmatched(r))
			return -1;
	}
	if (lost)
		fprintf(r->f, "; %lld lost while recording", (long long)lost);
	fprintf(r->f, "\n");
	return 0;
}

/*
 * What the recordings lost or lack, one line each (ntp_report_missing):
 *   lost: 12 host records (12: the ring buffer was full ...)
 *   gaps: 1565 of 254878 host records lack h_rx (1500: ...; 65: ...)
 */
static int print_missing(struct rep *r)
{
	struct ntp_session *s = r->s;
	sqlite3_stmt *st;
	int rc;

	if (r->w)
		return json_rows(r, "missing", "SELECT db, role, hostname, point, n, records, causes"
				 " FROM ntp_report_missing", NULL, JSON_ARRAY);
	if (sqlite3_prepare_v2(r->db, "SELECT role, hostname, point, n, records, causes"
			       " FROM ntp_report_missing", -1, &st, NULL) != SQLITE_OK)
		return sql_error(r);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *role = (const char *)sqlite3_column_text(st, 0);
		const char *host = (const char *)sqlite3_column_text(st, 1);
		const char *point = (const char *)sqlite3_column_text(st, 2);
		char who[160];

		snprintf(who, sizeof(who), "%s records%s%s%s", role,
			 count_role(s, role) > 1 ? " (" : "", count_role(s, role) > 1 ? host : "",
			 count_role(s, role) > 1 ? ")" : "");
		if (point)
			fprintf(r->f, "gaps: %lld of %lld %s lack %s (%s)\n",
				(long long)sqlite3_column_int64(st, 3),
				(long long)sqlite3_column_int64(st, 4), who, point,
				sqlite3_column_text(st, 5));
		else
			fprintf(r->f, "lost: %lld %s (%s)\n", (long long)sqlite3_column_int64(st, 3),
				who, sqlite3_column_text(st, 5));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(r);
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

/* The groups to report (the fleet groups in the summary), optionally those
 * whose name contains FILTER. */
static int load_groups(struct rep *r, const char *filter, struct group **out, int *n)
{
	static const char *const sql[2] = {
		"SELECT hdb, grp, name, sampled, rate, exact, matched, joined, io"
		" FROM _ntp_text_group WHERE ?1 IS NULL OR name LIKE '%' || ?1 || '%'",
		"SELECT '', fleet, title, sampled, rate, exact, matched, joined, io"
		" FROM _ntp_text_fleet_group WHERE ?1 IS NULL OR name LIKE '%' || ?1 || '%'",
	};
	sqlite3_stmt *st;
	struct group *g = NULL, *ng;
	int rc;

	*n = 0;
	if (sqlite3_prepare_v2(r->db, sql[r->fleet], -1, &st, NULL) != SQLITE_OK)
		return sql_error(r);
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
		return sql_error(r);
	}
	return 0;
}

/* The groups G[N] as text, or as the JSON's "groups" ("fleet": the
 * summary's) array. */
static int print_groups(struct rep *r, const struct group *g, int n, int detail, int all)
{
	int rc = 0;

	if (r->w) {
		ntp_json_name(r->w, r->fleet ? "fleet" : "groups");
		ntp_json_start_array(r->w);
	}
	for (int i = 0; i < n && !rc; i++)
		if (g[i].io || all)
			rc = print_group(r, &g[i], detail);
	if (r->w)
		ntp_json_end_array(r->w);
	return rc;
}

/*
 * The report as one CSV table: the rows of ntp_report_rows (docs/report-json.md)
 * of the groups the text would show, components and tail bands only with
 * --detail.
 */
static int report_csv(struct rep *r, int detail, int all, const char *group)
{
	struct ntp_out o = { .f = r->f, .mode = NTP_MODE_CSV, .headers = 1 };
	char *sql = r->fleet ?
		sqlite3_mprintf("SELECT * FROM ntp_report_fleet_rows\n"
			"WHERE (%d OR queue = 'io') AND section NOT IN ('component', 'tail')\n"
			"  AND (%Q IS NULL OR fleet IN (SELECT fleet FROM ntp_report_fleet_group\n"
			"    WHERE name LIKE '%%' || %Q || '%%'));", all, group, group) :
		sqlite3_mprintf("SELECT * FROM ntp_report_rows\n"
			"WHERE (%d OR queue = 'io') AND (%d OR section NOT IN ('component', 'tail'))\n"
			"  AND (%Q IS NULL OR \"group\" LIKE '%%' || %Q || '%%');", all, detail, group,
			group);
	int rc;

	if (!sql)
		return ntp_fail(r->err, r->errlen, "out of memory");
	rc = ntp_out_query(&o, r->db, sql, r->err, r->errlen);
	sqlite3_free(sql);
	return rc;
}

/* 1: the fleet summary's layout (NTP_REPORT_FLEET_HOSTS), 0: sections. */
static int fleet_layout(const struct ntp_session *s, int flags, const char *group)
{
	if (flags & NTP_REPORT_SUMMARY)
		return 1;
	if (flags & (NTP_REPORT_PER_HOST | NTP_REPORT_DETAIL) || group)
		return 0;
	return count_role(s, "host") > NTP_REPORT_FLEET_HOSTS;
}

/* The report into R: text or JSON; the CSV is one query. In the summary,
 * the JSON has the fleet groups and every group's section too. */
static int report_raw(struct rep *r, int flags, const char *group)
{
	int detail = flags & NTP_REPORT_DETAIL, all = flags & NTP_REPORT_ALL || group;
	struct group *g = NULL, *sg = NULL;
	int n = 0, sn = 0, rc = 0;

	if ((flags & NTP_REPORT_SUMMARY) && (flags & (NTP_REPORT_PER_HOST | NTP_REPORT_DETAIL)))
		return ntp_fail(r->err, r->errlen, "the fleet summary has no %s",
				flags & NTP_REPORT_DETAIL ? "components table: --detail is for the"
				" sections (--per-host)" : "sections: --summary or --per-host");
	r->fleet = fleet_layout(r->s, flags, group);
	r->group = group;
	r->all = all;
	if (ntp_session_prepare(r->s, r->err, r->errlen) || load_groups(r, group, &g, &n))
		return -1;
	if (!n) {
		snprintf(r->err, r->errlen, group ? "no group matches '%s'" : "no commands", group);
		free_groups(g, n);
		return -1;
	}
	if (print_warnings(r, 0)) {
		free_groups(g, n);
		return -1;
	}
	if (flags & NTP_REPORT_CSV) {
		free_groups(g, n);
		return report_csv(r, detail, all, group);
	}
	if (r->w)
		ntp_json_start_object(r->w);
	rc = print_header(r);
	if (!rc && r->w)
		ntp_json_string_field(r->w, "layout", r->fleet ? "summary" : "sections");
	/* the text shows the throughput only without a target, as the tutorial */
	if (!rc && (r->w || !r->s->ntargets))
		rc = print_throughput(r);
	if (!rc)
		rc = print_groups(r, g, n, detail, all);
	if (!rc && r->fleet && r->w) {
		/* the JSON's "groups" as in the sections' layout */
		r->fleet = 0;
		rc = load_groups(r, group, &sg, &sn) || print_groups(r, sg, sn, detail, all);
		free_groups(sg, sn);
		r->fleet = 1;
	}
	if (!rc && (r->w || !all))
		rc = print_admin(r);
	if (!rc)
		rc = print_records(r);
	if (!rc)
		rc = print_missing(r);
	if (r->w)
		ntp_json_end_object(r->w);
	free_groups(g, n);
	return rc;
}

int ntp_report_threshold(struct ntp_session *s, const char *column, double pct, char *err,
			 size_t errlen)
{
	char *sql = sqlite3_mprintf("UPDATE ntp_report_threshold SET \"%w\" = ?1", column);
	sqlite3_stmt *st = NULL;
	int rc;

	/* the verdicts are cached with the join (ntp_join_check) */
	if (s->joined)
		rc = ntp_fail(err, errlen, "%s: the report is computed already: set it before",
			      column);
	else if (!sql || sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		rc = ntp_fail(err, errlen, "failed to set %s: %s", column, sqlite3_errmsg(s->db));
	else if (sqlite3_bind_double(st, 1, pct), sqlite3_step(st) != SQLITE_DONE)
		rc = ntp_fail(err, errlen, "%s: %g: %s", column, pct, sqlite3_errmsg(s->db));
	else
		rc = 0;
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

/*
 * Recorded text (host names, kernels, device names, NQNs) comes from
 * another machine: the report is written to memory first and reaches F
 * only when whole, and the text without control characters, so no
 * terminal escape in a recording can act on the reader's terminal (the
 * JSON escapes them, the CSV writes them as '?').
 */
int ntp_report(struct ntp_session *s, FILE *f, int flags, const char *group, char *err,
	       size_t errlen)
{
	struct rep r = { .s = s, .db = s->db, .err = err, .errlen = errlen };
	struct ntp_json w;
	char *buf = NULL;
	size_t len = 0;
	const char *progress;
	int rc;

	r.f = open_memstream(&buf, &len);
	if (!r.f)
		return ntp_fail(err, errlen, "out of memory");
	if (flags & NTP_REPORT_JSON) {
		ntp_json_init(&w, r.f);
		r.w = &w;
	}
	progress = ntp_progress_begin(s, "computing the report");
	rc = report_raw(&r, flags, group);
	ntp_progress_end(s, progress);
	if (fclose(r.f))
		rc = ntp_fail(err, errlen, "out of memory");
	if (!rc && flags & (NTP_REPORT_JSON | NTP_REPORT_CSV))
		fwrite(buf, 1, len, f);
	else if (!rc)
		ntp_put_text(f, buf);
	free(buf);
	if (!rc && flags & NTP_REPORT_STRICT && r.warnings)
		return NTP_REPORT_UNRELIABLE;
	return rc;
}
