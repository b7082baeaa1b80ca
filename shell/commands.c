// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof-shell's dot-commands: one table (shell_cmds[]) of name, arguments,
 * usage, help and handler, dispatched by unique prefix. The report commands
 * select from the views of sql/shell.sql, sql/report.sql and sql/stats.sql.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ntp_compare.h"
#include "ntp_err.h"
#include "ntp_exec.h"
#include "ntp_report.h"
#include "shell.h"

#define MAX_ARGS 16 /* words of a dot-command, its name included */

static const char *const mode_names[] = {
	[NTP_MODE_TABLE] = "table",
	[NTP_MODE_CSV] = "csv",
	[NTP_MODE_JSON] = "json",
	[NTP_MODE_LINE] = "line",
	[NTP_MODE_JSONL] = "jsonl",
};

/* ---- running SQL ---- */

/* Run SQL (sqlite3_free'd here) and print it; WHAT names it in errors. */
int run_sql(struct shell *sh, const char *what, char *sql)
{
	char err[NTP_ERR_MAX] = "";
	int rc = -1;

	if (!sql) {
		err_msg(sh, "%s: out of memory", what);
		return -1;
	}
	/* what it reads prepared first (the per-command end to end is read
	 * from the recordings: sql/native.sql) */
	if (ntp_session_needs_prepare(sh->s, sql) && ntp_session_prepare(sh->s, err, sizeof(err)))
		err_msg(sh, "%s: %s", what, err);
	else if (ntp_out_query(&sh->out, sh->s->db, sql, err, sizeof(err)))
		err_msg(sh, "%s: %s", what, err);
	else
		rc = 0;
	sqlite3_free(sql);
	return rc;
}

/* ntp_session_prepare (MORE: ntp_session_prepare_more), its error said as
 * WHAT's. */
static int prepare(struct shell *sh, int more, const char *what)
{
	char err[NTP_ERR_MAX];

	if (!(more ? ntp_session_prepare_more : ntp_session_prepare)(sh->s, err, sizeof(err)))
		return 0;
	err_msg(sh, "%s: %s", what, err);
	return -1;
}

/* Every schema: temp, main, then the attached recordings. */
int all_schemas(struct shell *sh, char names[][16], int max)
{
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(sh->s->db, "SELECT name FROM pragma_database_list "
			       "ORDER BY name <> 'temp', seq", -1, &st, NULL) != SQLITE_OK)
		return -1;
	while (n < max && sqlite3_step(st) == SQLITE_ROW)
		snprintf(names[n++], 16, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return n;
}

/* 1 if some report group's name has GROUP (LIKE, as the views filter). */
static int group_matches(struct shell *sh, const char *group)
{
	char err[NTP_ERR_MAX];
	sqlite3_stmt *st;
	int found = 0;

	if (ntp_session_prepare(sh->s, err, sizeof(err)))
		return 1; /* the query that follows reports the error */
	if (sqlite3_prepare_v2(sh->s->db, "SELECT 1 FROM ntp_report_group "
			       "WHERE name LIKE '%' || ?1 || '%'", -1, &st, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_text(st, 1, group, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* -1 after an error if GROUP (not NULL) names no group: an empty table
 * would look like a group without commands. */
static int no_group(struct shell *sh, const char *what, const char *group)
{
	if (!group || group_matches(sh, group))
		return 0;
	err_msg(sh, "%s: no group has '%s' in its name (.groups lists them)", what, group);
	return -1;
}

/* The rows of a shell view (sql/shell.sql) whose "group" has GROUP (LIKE:
 * case-insensitive); with GROUP NULL, %Q prints NULL: every row. */
static int run_group_view(struct shell *sh, const char *what, const char *view,
			  const char *group)
{
	if (no_group(sh, what, group))
		return -1;
	return run_sql(sh, what, sqlite3_mprintf("SELECT * FROM %s\n"
		"WHERE %Q IS NULL OR \"group\" LIKE '%%' || %Q || '%%';", view, group, group));
}

/* ---- dot-commands: reports ---- */

/* A dot-command's WIDTH argument (ntp_parse_width): 0, or -1 after the error. */
static int parse_width(struct shell *sh, const char *cmd, const char *arg, int64_t *ns)
{
	if (!ntp_parse_width(arg, ns))
		return 0;
	err_msg(sh, ".%s: '%s': %s", cmd, arg, NTP_WIDTH_HELP);
	return -1;
}

static int cmd_report(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	const char *group = NULL;
	char err[NTP_ERR_MAX];
	int64_t width = 0;
	int flags = 0, rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--detail")) {
			flags |= NTP_REPORT_DETAIL;
		} else if (!strcmp(argv[i], "--all")) {
			flags |= NTP_REPORT_ALL;
		} else if (!strcmp(argv[i], "--strict")) {
			flags |= NTP_REPORT_STRICT;
		} else if (!strcmp(argv[i], "--summary")) {
			flags |= NTP_REPORT_SUMMARY;
		} else if (!strcmp(argv[i], "--per-host")) {
			flags |= NTP_REPORT_PER_HOST;
		} else if (!strcmp(argv[i], "--timeline")) {
			if (i + 1 == argc) {
				err_msg(sh, ".report: --timeline: missing WIDTH");
				return -1;
			}
			if (parse_width(sh, "report", argv[++i], &width))
				return -1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			err_msg(sh, ".report: unknown option '%s' (--detail, --all, --strict,"
				" --summary, --per-host, --timeline)", argv[i]);
			return -1;
		} else if (group) {
			err_msg(sh, ".report: unexpected argument '%s' (one GROUP)", argv[i]);
			return -1;
		} else {
			group = argv[i];
		}
	}
	/* the report in the mode's format: JSON or CSV as ntprof report's */
	if (sh->out.mode == NTP_MODE_JSON)
		flags |= NTP_REPORT_JSON;
	else if (sh->out.mode == NTP_MODE_CSV)
		flags |= NTP_REPORT_CSV;
	rc = ntp_session_prepare(s, err, sizeof(err)) ? -1 :
	     ntp_report(s, sh->out.f, flags, group, err, sizeof(err));
	if (rc < 0 ||
	    (width && ntp_report_timeline(s, sh->out.f, flags, group, width, err, sizeof(err)))) {
		err_msg(sh, ".report: %s", err);
		return -1;
	}
	/* --strict: the report is printed; its warnings make the exit status 3 */
	if (rc == NTP_REPORT_UNRELIABLE) {
		err_msg(sh, ".report: --strict: the report has a warning (a refused join, "
			"records lost)");
		sh->unreliable = 1;
	}
	return 0;
}

/* .compare's options: -d, -m PCT (kept for the session), a GROUP. 0 or -1. */
static int compare_args(struct ntp_session *s, struct shell *sh, int argc, char **argv,
			int *flags, const char **group)
{
	char err[NTP_ERR_MAX];
	double pct;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-d") || !strcmp(argv[i], "--detail")) {
			*flags |= NTP_REPORT_DETAIL;
		} else if (!strcmp(argv[i], "-m") || !strcmp(argv[i], "--min-effect")) {
			if (i + 1 == argc || ntp_parse_pct(argv[i + 1], &pct)) {
				err_msg(sh, ".compare: %s: '%s': %s", argv[i],
					i + 1 < argc ? argv[i + 1] : "", NTP_PCT_HELP);
				return -1;
			}
			if (ntp_compare_min_effect(s, pct, err, sizeof(err))) {
				err_msg(sh, ".compare: %s", err);
				return -1;
			}
			i++;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			err_msg(sh, ".compare: unknown option '%s' (-d, -m PCT)", argv[i]);
			return -1;
		} else if (*group) {
			err_msg(sh, ".compare: unexpected argument '%s' (one GROUP)", argv[i]);
			return -1;
		} else {
			*group = argv[i];
		}
	}
	return 0;
}

static int cmd_compare(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	const char *group = NULL;
	char err[NTP_ERR_MAX];
	int flags = 0;

	if (s->nruns < 2) {
		err_msg(sh, ".compare: needs two runs or more, and this shell has one: open them "
			"as ntprof-shell RUN RUN..., a RUN being HOST.db or HOST.db,TARGET.db");
		return -1;
	}
	if (compare_args(s, sh, argc, argv, &flags, &group))
		return -1;
	/* in the mode's format: JSON or CSV as ntprof compare's */
	if (sh->out.mode == NTP_MODE_JSON)
		flags |= NTP_REPORT_JSON;
	else if (sh->out.mode == NTP_MODE_CSV)
		flags |= NTP_REPORT_CSV;
	if (ntp_compare(s, sh->out.f, group, flags, NULL, err, sizeof(err))) {
		err_msg(sh, ".compare: %s", err);
		return -1;
	}
	return 0;
}

static int cmd_groups(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	return run_group_view(sh, ".groups", "ntp_shell_groups", NULL);
}

static int cmd_stages(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	return run_group_view(sh, ".stages", "ntp_shell_stages", argc > 1 ? argv[1] : NULL);
}

static int cmd_queues(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	return run_group_view(sh, ".queues", "ntp_shell_queues", argc > 1 ? argv[1] : NULL);
}

static int cmd_tail(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	return run_group_view(sh, ".tail", "ntp_shell_tail", argc > 1 ? argv[1] : NULL);
}

static int cmd_components(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	return run_group_view(sh, ".components", "ntp_shell_components",
			      argc > 1 ? argv[1] : NULL);
}

static int cmd_percentiles(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	int stages = argc > 1 && !strcmp(argv[1], "--stages");

	if (argc > 2 && !stages) {
		err_msg(sh, ".percentiles: unexpected argument '%s' (usage: .percentiles "
			"[--stages] [GROUP])", argv[2]);
		return -1;
	}
	return run_group_view(sh, ".percentiles", stages ? "ntp_shell_stage_percentiles" :
			      "ntp_shell_percentiles", argc > 1 + stages ? argv[1 + stages] : NULL);
}

/* A numeric first argument (N, WIDTH) is told from a GROUP by its first
 * character: group names start with their operation. */
static int numeric(const char *arg)
{
	return isdigit((unsigned char)arg[0]) || arg[0] == '.';
}

static int cmd_timeline(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	int64_t ns = 1000000000LL;
	int i = 1;

	if (argc > i && numeric(argv[i]) && parse_width(sh, "timeline", argv[i++], &ns))
		return -1;
	if (argc > i + 1) {
		err_msg(sh, ".timeline: unexpected argument '%s' (usage: .timeline [WIDTH] "
			"[GROUP])", argv[i + 1]);
		return -1;
	}
	/* the session prepared (its end to end is read from the recordings,
	 * not prepared: sql/native.sql) */
	if (prepare(sh, 0, ".timeline") || no_group(sh, ".timeline", argc > i ? argv[i] : NULL))
		return -1;
	return run_sql(sh, ".timeline", sqlite3_mprintf(
		"UPDATE ntp_bucket SET width_ns = %lld;\n"
		"SELECT * FROM ntp_shell_timeline\n"
		"WHERE %Q IS NULL OR \"group\" LIKE '%%' || %Q || '%%';", (long long)ns,
		argc > i ? argv[i] : NULL, argc > i ? argv[i] : NULL));
}

/* 1 if NAME is a component's or a stage's. */
static int known_name(struct shell *sh, const char *name)
{
	sqlite3_stmt *st;
	int known = 0;

	if (sqlite3_prepare_v2(sh->s->db, "SELECT 1 FROM component WHERE name = lower(?1)"
			       " UNION ALL SELECT 1 FROM stage WHERE name = lower(?1)", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		known = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return known;
}

/* .hist and .cdf: the rows of VIEW for GROUP and the component or stage
 * NAME (e2e when not given; a lone NAME that is no group's is the NAME). */
static int run_distribution(struct shell *sh, const char *cmd, const char *view, int argc,
			    char **argv)
{
	const char *group = argc > 1 ? argv[1] : NULL, *name = argc > 2 ? argv[2] : "e2e";

	/* one argument that names no group but a component or stage: the NAME */
	if (argc == 2 && !group_matches(sh, group) && known_name(sh, group)) {
		name = group;
		group = NULL;
	}
	if (no_group(sh, cmd, group))
		return -1;
	if (!known_name(sh, name)) {
		err_msg(sh, "%s: '%s': not a component or stage name (e2e, storage, network, "
			"t_storage, ...: SELECT name FROM component UNION ALL SELECT name FROM "
			"stage)", cmd, name);
		return -1;
	}
	return run_sql(sh, cmd, sqlite3_mprintf("SELECT * FROM %s\n"
		"WHERE (%Q IS NULL OR \"group\" LIKE '%%' || %Q || '%%') AND name = lower(%Q);",
		view, group, group, name));
}

static int cmd_hist(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	return run_distribution(sh, ".hist", "ntp_shell_hist", argc, argv);
}

static int cmd_cdf(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	return run_distribution(sh, ".cdf", "ntp_shell_cdf", argc, argv);
}

static int cmd_slowest(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	long long n = 10;
	char *end, *cols, *q, *which;
	int i = 1, rc;

	if (argc > i && numeric(argv[i])) {
		errno = 0;
		n = strtoll(argv[i], &end, 10);
		if (errno || *end || n < 1) {
			err_msg(sh, ".slowest: '%s': expected a number of commands, >= 1", argv[i]);
			return -1;
		}
		i++;
	}
	if (argc > i + 1) {
		err_msg(sh, ".slowest: unexpected argument '%s' (usage: .slowest [N] [GROUP])",
			argv[i + 1]);
		return -1;
	}
	/* ntp_shell_slowest's first N (of the group): picked by the host's keys
	 * alone, then only their rows computed; its columns, from the view once
	 * prepared (the unprepared tree of views takes seconds to expand) */
	if (prepare(sh, 0, ".slowest") || no_group(sh, ".slowest", argc > i ? argv[i] : NULL))
		return -1;
	cols = ntp_query_text(s->db, "SELECT group_concat(printf('\"%w\"', name), ', ')"
			      " FROM pragma_table_info('ntp_shell_slowest')");
	/* The same commands and order from the host's side alone (the order's
	 * keys are all the host's: ntp_command's rows are the host's commands
	 * of a report I/O group): the first N of those, by the end to end
	 * (_ntp_host_e2e: read from the recordings, or the prepared run's for
	 * plain sqlite3), then only their rows of
	 * _ntp_shell_slowest_row (shell_test: ntp_shell_slowest's first N).
	 * The groups (of the name) are written out as constants: a lookup of
	 * each command's group in a table cost as much as the scan itself;
	 * unary +, so that where a prepared run holds that table, the first N
	 * come off its index in this order (sql/native.sql) rather than a sort
	 * of a recording's commands found by the table's key. */
	q = sqlite3_mprintf(
		"SELECT ifnull(group_concat(c, ' OR '), '0') FROM (\n"
		"  SELECT printf('(+h.db = %%Q AND +h.grp IN (%%s))', hdb, group_concat(grp, ', ')) AS c\n"
		"  FROM ntp_report_group\n"
		"  WHERE queue = 'io' AND (%Q IS NULL OR name LIKE '%%' || %Q || '%%')\n"
		"  GROUP BY hdb)",
		argc > i ? argv[i] : NULL, argc > i ? argv[i] : NULL);
	which = q ? ntp_query_text(s->db, q) : NULL;
	if (!cols || !which) { /* run_sql would call any failure a lack of memory */
		err_msg(sh, ".slowest: %s", q && sqlite3_errcode(s->db) != SQLITE_NOMEM ?
			sqlite3_errmsg(s->db) : "out of memory");
		sqlite3_free(q);
		sqlite3_free(which);
		sqlite3_free(cols);
		return -1;
	}
	sqlite3_free(q);
	rc = run_sql(sh, ".slowest", sqlite3_mprintf(
		"WITH s AS MATERIALIZED (\n"
		"  SELECT h.db AS hdb, h.t AS ht FROM _ntp_host_e2e AS h\n"
		"  WHERE %s\n"
		"  ORDER BY h.e2e DESC, h.db, h.t LIMIT %lld)\n"
		"SELECT %s FROM _ntp_shell_slowest_row\n"
		"WHERE (hdb, ht) IN (SELECT hdb, ht FROM s)\nORDER BY e2e DESC, hdb, ht;",
		which, n, cols));
	sqlite3_free(which);
	sqlite3_free(cols);
	return rc;
}

static int cmd_match(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	return run_sql(sh, ".match", sqlite3_mprintf(
		"SELECT * FROM ntp_match_stats;\n"
		"SELECT hdb, tdb, pairs, offset_ns, drift, window_ns FROM ntp_offset;\n"
		"SELECT hdb, tdb, eligible, matched, round(share_pct, 2) AS share_pct, verdict,"
		" reason FROM ntp_join_check;\n"
		"SELECT reason, n FROM ntp_report_unmatched;"));
}

static int cmd_dbs(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	sqlite3_str *q = sqlite3_str_new(s->db);

	sqlite3_str_appendall(q, "SELECT column1 AS path, column2 AS schema, column3 AS role,"
				 " column4 AS driver, column5 AS transport, column6 AS hostname,"
				 " column7 AS kernel, column8 AS sample_rate, column9 AS records,"
				 " column10 AS lost\nFROM (VALUES\n");
	for (int i = 0; i < s->ndbs; i++) {
		const struct ntp_dbinfo *d = &s->dbs[i];

		sqlite3_str_appendf(q, "%s(%Q, %Q, %Q, %Q, %Q, %Q, %Q, %lld, %lld, %lld)\n",
				    i ? "," : "", d->path, d->schema, d->role, d->driver,
				    d->transport, d->hostname, d->kernel,
				    (long long)d->sample_rate, (long long)d->records,
				    (long long)d->lost);
	}
	sqlite3_str_appendall(q, ");");
	return run_sql(sh, ".dbs", sqlite3_str_finish(q));
}

/* ---- dot-commands: the schema ---- */

static int cmd_tables(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	const char *pattern = argc > 1 ? argv[1] : "%";
	char schemas[NTP_MAX_DBS + 2][16];
	sqlite3_str *q;
	int n = all_schemas(sh, schemas, NTP_MAX_DBS + 2);

	if (n <= 0) {
		err_msg(sh, ".tables: cannot list the schemas: %s", sqlite3_errmsg(s->db));
		return -1;
	}
	q = sqlite3_str_new(s->db);
	sqlite3_str_appendall(q, "SELECT schema, name, type FROM (\n");
	for (int i = 0; i < n; i++)
		sqlite3_str_appendf(q,
			"%sSELECT %Q AS schema, name, type, %d AS ord FROM \"%w\".sqlite_schema\n"
			"WHERE type IN ('table', 'view')\n"
			"  AND name NOT LIKE 'sqlite\\_%%' ESCAPE '\\' AND name LIKE %Q\n",
			i ? "UNION ALL " : "", schemas[i], i, schemas[i], pattern);
	sqlite3_str_appendall(q, ")\nORDER BY ord, name;");
	return run_sql(sh, ".tables", sqlite3_str_finish(q));
}

/* Print one schema's CREATE statements for names LIKE PATTERN. */
static int schema_print(struct shell *sh, const char *schema, const char *pattern)
{
	char *sql = sqlite3_mprintf("SELECT sql FROM \"%w\".sqlite_schema\n"
				    "WHERE sql IS NOT NULL AND (name LIKE %Q OR tbl_name LIKE %Q)\n"
				    "ORDER BY rowid", schema, pattern, pattern);
	sqlite3_stmt *st = NULL;
	int rc, n = 0;

	rc = sql ? sqlite3_prepare_v2(sh->s->db, sql, -1, &st, NULL) : SQLITE_NOMEM;
	sqlite3_free(sql);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!n++)
			fprintf(sh->out.f, "-- schema %s\n", schema);
		fprintf(sh->out.f, "%s;\n", (const char *)sqlite3_column_text(st, 0));
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		err_msg(sh, ".schema: %s: %s", schema, sqlite3_errmsg(sh->s->db));
		return -1;
	}
	return 0;
}

static int cmd_schema(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	char schemas[NTP_MAX_DBS + 2][16];
	int n = all_schemas(sh, schemas, NTP_MAX_DBS + 2), rc = 0;

	if (n <= 0) {
		err_msg(sh, ".schema: cannot list the schemas: %s", sqlite3_errmsg(s->db));
		return -1;
	}
	for (int i = 0; i < n; i++)
		rc |= schema_print(sh, schemas[i], argc > 1 ? argv[1] : "%");
	return rc;
}

static int cmd_sql(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	char *sql;

	/* what --sql prints: a run prepared here is kept with the per-command
	 * end to end too (nothing prepared yet: the views compute it) */
	if (s->joined && s->more_missing && prepare(sh, 1, ".sql"))
		return -1;
	sql = ntp_session_sql(s);

	if (!sql) {
		err_msg(sh, ".sql: out of memory");
		return -1;
	}
	fputs(sql, sh->out.f);
	sqlite3_free(sql);
	return 0;
}

/* ---- dot-commands: the shell ---- */

static int cmd_mode(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	if (argc < 2) {
		fprintf(sh->out.f, "%s\n", mode_names[sh->out.mode]);
		return 0;
	}
	for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (!strcasecmp(argv[1], mode_names[i])) {
			sh->out.mode = (enum ntp_mode)i;
			return 0;
		}
	{
		char names[64] = "";

		for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", mode_names[i]);
		err_msg(sh, ".mode: unknown mode '%s' (%s)", argv[1], names);
	}
	return -1;
}

static int cmd_headers(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	if (argc < 2)
		fprintf(sh->out.f, "%s\n", sh->out.headers ? "on" : "off");
	else if (!strcasecmp(argv[1], "on"))
		sh->out.headers = 1;
	else if (!strcasecmp(argv[1], "off"))
		sh->out.headers = 0;
	else {
		err_msg(sh, ".headers: '%s': expected on or off", argv[1]);
		return -1;
	}
	return 0;
}

static int cmd_output(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	FILE *f = NULL;
	int rc;

	if (argc > 1 && !(f = open_output(sh, "output", argv[1])))
		return -1;
	sh->once_left = 0;
	rc = close_output(sh, &sh->once, ".once");
	rc |= close_output(sh, &sh->output, ".output");
	sh->output = f;
	route_output(sh);
	return rc;
}

static int cmd_once(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	FILE *f;

	if (argc < 2) {
		err_msg(sh, ".once: missing FILE (usage: .once FILE)");
		return -1;
	}
	f = open_output(sh, "once", argv[1]);
	if (!f)
		return -1;
	close_output(sh, &sh->once, ".once");
	sh->once = f;
	sh->once_left = 2; /* this command and the next */
	route_output(sh);
	return 0;
}

static int cmd_quit(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	sh->quit = 1;
	return 0;
}

static const struct dot_cmd *find_cmd(struct shell *sh, const char *name, int quiet);

static void help_line(FILE *f, const struct dot_cmd *c)
{
	int len;

	/* never cut: no buffer of the usage's length */
	len = fprintf(f, ".%s%s%s", c->name, *c->usage ? " " : "", c->usage);
	/* a long usage gets a line of its own, the help under the others' */
	if (len > 28)
		fprintf(f, "\n%-28s %s\n", "", c->help);
	else
		fprintf(f, "%*s %s\n", 28 - (len < 0 ? 0 : len), "", c->help);
}

static int cmd_help(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	const struct dot_cmd *c;

	if (argc > 1) {
		c = find_cmd(sh, argv[1] + (argv[1][0] == '.'), 0);
		if (!c)
			return -1;
		help_line(sh->out.f, c);
		return 0;
	}
	for (c = shell_cmds; c->name; c++)
		help_line(sh->out.f, c);
	fputs("Anything else is SQL, run when a line ends the statement with ';'.\n"
	      "The report's views: .tables ntp_%; the SQL behind them: .sql\n", sh->out.f);
	return 0;
}

const struct dot_cmd shell_cmds[] = {
	{ "cdf", 2, "[GROUP] [NAME]", "cumulative distribution of a component or stage (e2e)",
	  cmd_cdf },
	{ "compare", 4, "[-d] [-m PCT] [GROUP]",
	  "the runs side by side (ntprof compare); JSON or CSV in those modes", cmd_compare },
	{ "components", 1, "[GROUP]", "per group and component: n, mean, L, percentiles (us)",
	  cmd_components },
	{ "dbs", 0, "", "the recordings: path, schema, role, driver, host, records", cmd_dbs },
	{ "exit", 0, "", "leave the shell", cmd_quit },
	{ "groups", 0, "", "the groups: mode, sampled, matched, rate (cmds/s)", cmd_groups },
	{ "headers", 1, "[on|off]", "column names in table and csv output", cmd_headers },
	{ "help", 1, "[COMMAND]", "list the commands, or describe one", cmd_help },
	{ "hist", 2, "[GROUP] [NAME]", "log2 histogram of a component or stage (e2e)", cmd_hist },
	{ "match", 0, "", "how host and target records were paired; clock offsets",
	  cmd_match },
	{ "mode", 1, "[table|csv|json|line|jsonl]", "how query results are printed", cmd_mode },
	{ "once", 1, "FILE", "send the next command's output to FILE", cmd_once },
	{ "output", 1, "[FILE]", "send output to FILE, or back to stdout", cmd_output },
	{ "percentiles", 2, "[--stages] [GROUP]",
	  "per group and component (or stage): p50, p99, p99.9 (us)", cmd_percentiles },
	{ "queues", 1, "[GROUP]", "per group and queue (qid): commands, rate, mean, p99, QD",
	  cmd_queues },
	{ "quit", 0, "", "leave the shell", cmd_quit },
	{ "report", 5, "[--detail] [--all] [--strict] [--summary | --per-host] [--timeline WIDTH] [GROUP]",
	  "the report (ntprof report); JSON or CSV in those modes", cmd_report },
	{ "schema", 1, "[PATTERN]", "CREATE statements of tables and views LIKE PATTERN",
	  cmd_schema },
	{ "slowest", 2, "[N] [GROUP]", "the N (10) slowest I/O commands: identity, stages (us)",
	  cmd_slowest },
	{ "sql", 0, "", "the SQL that sets this session up in plain sqlite3", cmd_sql },
	{ "stages", 1, "[GROUP]", "per group and stage: mean (us), share (%), avg QD",
	  cmd_stages },
	{ "tables", 1, "[PATTERN]", "tables and views of every schema, LIKE PATTERN",
	  cmd_tables },
	{ "tail", 1, "[GROUP]",
	  "per group and latency band (p0-50 ... p99.9-100): stage means, shares", cmd_tail },
	{ "timeline", 2, "[WIDTH] [GROUP]",
	  "per recording, group and bucket (1s): rate, mean, p99, QD, lost records",
	  cmd_timeline },
	{ NULL, 0, NULL, NULL, NULL },
};

/* ---- dispatch ---- */

/* The command NAME names: exact, else a unique prefix. */
static const struct dot_cmd *find_cmd(struct shell *sh, const char *name, int quiet)
{
	const struct dot_cmd *c, *found = NULL;
	size_t len = strlen(name);
	char list[256] = "";
	int n = 0;

	/* prefixes sqlite3's shell takes for one command, kept though a
	 * command of ours shares them: .q quits, .ta lists tables */
	static const char *const sqlite3_prefix[][2] = { { "q", "quit" }, { "ta", "tables" } };

	for (size_t i = 0; i < sizeof(sqlite3_prefix) / sizeof(sqlite3_prefix[0]); i++)
		if (!strcmp(name, sqlite3_prefix[i][0]))
			name = sqlite3_prefix[i][1], len = strlen(name);
	for (c = shell_cmds; len && c->name; c++) {
		if (!strcmp(c->name, name))
			return c;
		if (!strncmp(c->name, name, len)) {
			found = c;
			n++;
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s.%s",
				 n > 1 ? ", " : "", c->name);
		}
	}
	if (n == 1 || quiet)
		return n == 1 ? found : NULL;
	if (n)
		err_msg(sh, ".%s: ambiguous command (%s)", name, list);
	else
		err_msg(sh, ".%s: unknown command (.help lists them)", name);
	return NULL;
}

/*
 * Split LINE in place into words: blanks separate them, '...' quotes
 * literally, "..." with \" \\ \n \t escapes. Returns the count, or -1
 * with *why set.
 */
static int split_args(char *line, char **argv, int max, const char **why)
{
	char *p = line, *o;
	int argc = 0;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p)
			return argc;
		if (argc == max) {
			*why = "too many arguments";
			return -1;
		}
		argv[argc++] = o = p;
		while (*p && !strchr(" \t\r\n", *p)) {
			char q = *p;

			if (q != '\'' && q != '"') {
				*o++ = *p++;
				continue;
			}
			for (p++; *p && *p != q; p++) {
				if (q == '"' && *p == '\\' && p[1]) {
					p++;
					*o++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
				} else {
					*o++ = *p;
				}
			}
			if (*p != q) {
				*why = "unterminated quote";
				return -1;
			}
			p++;
		}
		if (*p)
			p++;
		*o = '\0';
	}
}

/* Run the dot-command on LINE (starting with '.'). Returns 0 or -1. */
int run_dot(struct shell *sh, const char *line)
{
	char *copy = strdup(line), *argv[MAX_ARGS + 1];
	const struct dot_cmd *c;
	const char *why = NULL;
	int argc, rc = -1;

	if (!copy) {
		err_msg(sh, "out of memory");
		return -1;
	}
	argc = split_args(copy + 1, argv, MAX_ARGS, &why);
	if (argc < 0)
		err_msg(sh, "%s: %s", line, why);
	else if (argc == 0)
		err_msg(sh, ".: missing command name (.help lists them)");
	else if ((c = find_cmd(sh, argv[0], 0))) {
		if (argc - 1 > c->args)
			err_msg(sh, ".%s: unexpected argument '%s' (usage: .%s %s)", c->name,
				argv[c->args + 1], c->name, c->usage);
		else
			rc = c->fn(sh->s, sh, argc, argv);
	}
	free(copy);
	return rc;
}
