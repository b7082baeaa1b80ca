// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof-shell: SQL and dot-commands over ntprof recordings.
 *
 *   ntprof-shell [-c COMMAND]... [--sql] [--portable] [--no-check] DB...
 *
 * The recordings are attached read-only to an in-memory database with the
 * report's TEMP views (lib/open.c). A line starting with '.' is a
 * dot-command, dispatched from one table (cmds[] below); anything else is
 * SQL, collected until sqlite3_complete() and printed by ntp_out_query() in
 * the current .mode. Commands come from -c options, a terminal (readline,
 * history, completion) or a script on standard input.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "ntp_err.h"
#include "ntp_session.h"

#ifndef NTP_VERSION
#define NTP_VERSION "0.1"
#endif

#define PROMPT "ntprof> "
#define PROMPT_MORE "   ...> "
#define HISTORY_FILE ".ntprof_history"
#define HISTORY_MAX 1000
#define MAX_ARGS 16

/* Everything a command can change. */
struct shell {
	struct ntp_session *s;  /* the open recordings */
	struct ntp_out out;     /* .mode, .headers and where results go now */
	FILE *output;           /* .output FILE; NULL: standard output */
	FILE *once;             /* .once FILE; NULL: none pending */
	int once_left;          /* commands (.once itself included) until once closes */
	char *sql;              /* SQL lines collected until sqlite3_complete() */
	size_t sqllen;          /* bytes in sql, without the NUL */
	size_t sqlcap;          /* bytes allocated for sql */
	int sqlline;            /* line the collected SQL started on */
	const char *source;     /* input named in errors ("stdin"), NULL: none */
	int lineno;             /* line of source being read */
	int failed;             /* some command failed: exit status 1 */
	int quit;               /* .quit or .exit: read no more */
	char history[PATH_MAX]; /* readline history file, "" for none */
	char **names;           /* completion: table, view, column names */
	size_t nnames;          /* entries in names */
};

struct dot_cmd {
	const char *name;   /* without the dot */
	int args;           /* most arguments it takes */
	const char *usage;  /* arguments, as .help shows them */
	const char *help;   /* one line */
	int (*fn)(struct ntp_session *s, struct shell *sh, int argc, char **argv);
};

static const struct dot_cmd cmds[];

/* SIGINT while interactive: stop the running query, drop the input line.
 * SIGTERM, SIGHUP, and SIGINT otherwise: stop the query, then the shell. */
static volatile sig_atomic_t interrupted, stopping;
static sqlite3 *interrupt_db;

/* Nothing more to run: .quit, or a signal to stop. */
static int done(const struct shell *sh)
{
	return sh->quit || stopping;
}

static const char *const mode_names[] = {
	[NTP_MODE_TABLE] = "table",
	[NTP_MODE_CSV] = "csv",
	[NTP_MODE_JSON] = "json",
	[NTP_MODE_LINE] = "line",
};

/* ---- errors ---- */

/* ntprof-shell: [stdin:LINE: ]WHAT: WHY */
static void __attribute__((format(printf, 2, 3)))
err_msg(struct shell *sh, const char *fmt, ...)
{
	va_list ap;

	fflush(sh->out.f);
	fputs("ntprof-shell: ", stderr);
	if (sh->source)
		fprintf(stderr, "%s:%d: ", sh->source, sh->lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- output files ---- */

static int same_inode(const char *path, const struct stat *st)
{
	struct stat db;

	return !stat(path, &db) && db.st_dev == st->st_dev && db.st_ino == st->st_ino;
}

/* Is ST one of the recordings, or its -wal, -journal or -shm file? */
static int is_input(const struct ntp_session *s, const struct stat *st)
{
	static const char *const suffix[] = { "", "-wal", "-journal", "-shm" };
	char path[PATH_MAX + 16];

	for (int i = 0; i < s->ndbs; i++)
		for (size_t k = 0; k < sizeof(suffix) / sizeof(suffix[0]); k++) {
			snprintf(path, sizeof(path), "%s%s", s->dbs[i].path, suffix[k]);
			if (same_inode(path, st))
				return 1;
		}
	return 0;
}

/* PATH with its directory resolved: the name a file has, existing or not. */
static int canonical(const char *path, char *out, size_t n)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 1,
		 slash ? path : ".");
	return realpath(dir, real) && snprintf(out, n, "%s/%s", real, base) < (int)n ? 0 : -1;
}

/* Does PATH name a recording or its -wal, -journal or -shm, even one that
 * does not exist (yet)? */
static int names_input(const struct ntp_session *s, const char *path)
{
	static const char *const suffix[] = { "", "-wal", "-journal", "-shm" };
	char want[PATH_MAX + 16], db[PATH_MAX + 16], side[PATH_MAX + 32];

	if (canonical(path, want, sizeof(want)))
		return 0;
	for (int i = 0; i < s->ndbs; i++) {
		if (canonical(s->dbs[i].path, db, sizeof(db)))
			continue;
		for (size_t k = 0; k < sizeof(suffix) / sizeof(suffix[0]); k++) {
			snprintf(side, sizeof(side), "%s%s", db, suffix[k]);
			if (!strcmp(side, want))
				return 1;
		}
	}
	return 0;
}

/*
 * Open PATH for .output or .once: never through a symlink, never one of the
 * recordings or a file beside one that SQLite would read (refused by name
 * before anything is created). The file is truncated only after fstat()
 * shows it is not an input, so a refused name is left as it was.
 */
static FILE *open_output(struct shell *sh, const char *cmd, const char *path)
{
	struct stat st;
	FILE *f;
	int fd;

	if (names_input(sh->s, path)) {
		err_msg(sh, ".%s: %s: is a recording this shell reads, or a file beside one, "
			"refused", cmd, path);
		return NULL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		err_msg(sh, ".%s: %s: %s", cmd, path,
			errno == ELOOP ? "a symbolic link, refused" : strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || is_input(sh->s, &st)) {
		err_msg(sh, ".%s: %s: is a recording this shell reads, refused", cmd, path);
		close(fd);
		return NULL;
	}
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0)) {
		err_msg(sh, ".%s: %s: %s", cmd, path, strerror(errno));
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err_msg(sh, ".%s: %s: %s", cmd, path, strerror(errno));
		close(fd);
	}
	return f;
}

/* Close an output file; a failed write shows up here. Returns 0 or -1. */
static int close_output(struct shell *sh, FILE **f, const char *what)
{
	int rc = 0;

	if (!*f)
		return 0;
	if (ferror(*f) | fclose(*f)) {
		err_msg(sh, "%s: writing failed: %s", what, strerror(errno));
		rc = -1;
	}
	*f = NULL;
	return rc;
}

static void route_output(struct shell *sh)
{
	sh->out.f = sh->once ? sh->once : sh->output ? sh->output : stdout;
}

/* After every command: .once's file is closed after the one that follows. */
static void command_done(struct shell *sh, int rc)
{
	if (sh->once_left && --sh->once_left == 0) {
		if (close_output(sh, &sh->once, ".once"))
			rc = -1;
		route_output(sh);
	}
	fflush(sh->out.f);
	if (rc)
		sh->failed = 1;
}

/* ---- running SQL ---- */

/* Run SQL (sqlite3_free'd here) and print it; WHAT names it in errors. */
static int run_sql(struct shell *sh, const char *what, char *sql)
{
	char err[NTP_ERR_MAX] = "";
	int rc = -1;

	if (!sql) {
		err_msg(sh, "%s: out of memory", what);
		return -1;
	}
	if (ntp_session_needs_prepare(sh->s, sql) && ntp_session_prepare(sh->s, err, sizeof(err)))
		err_msg(sh, "%s: %s", what, err);
	else if (ntp_out_query(&sh->out, sh->s->db, sql, err, sizeof(err)))
		err_msg(sh, "%s: %s", what, err);
	else
		rc = 0;
	sqlite3_free(sql);
	return rc;
}

/* Every schema: temp, main, then the attached recordings. */
static int all_schemas(struct shell *sh, char names[][16], int max)
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

/* The rows of a shell view (sql/shell.sql) whose "group" has GROUP (LIKE:
 * case-insensitive); with GROUP NULL, %Q prints NULL: every row. */
static int run_group_view(struct shell *sh, const char *what, const char *view,
			  const char *group)
{
	return run_sql(sh, what, sqlite3_mprintf("SELECT * FROM %s\n"
		"WHERE %Q IS NULL OR \"group\" LIKE '%%' || %Q || '%%';", view, group, group));
}

/* ---- dot-commands: reports ---- */

static int cmd_report(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	const char *group = NULL;
	char err[NTP_ERR_MAX];
	int flags = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--detail")) {
			flags |= NTP_REPORT_DETAIL;
		} else if (!strcmp(argv[i], "--all")) {
			flags |= NTP_REPORT_ALL;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			err_msg(sh, ".report: unknown option '%s' (--detail, --all)", argv[i]);
			return -1;
		} else if (group) {
			err_msg(sh, ".report: unexpected argument '%s' (one GROUP)", argv[i]);
			return -1;
		} else {
			group = argv[i];
		}
	}
	if (ntp_session_prepare(s, err, sizeof(err)) ||
	    ntp_report(s, sh->out.f, flags, group, err, sizeof(err))) {
		err_msg(sh, ".report: %s", err);
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

static int cmd_components(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	return run_group_view(sh, ".components", "ntp_shell_components",
			      argc > 1 ? argv[1] : NULL);
}

static int cmd_percentiles(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	return run_group_view(sh, ".percentiles", "ntp_shell_percentiles",
			      argc > 1 ? argv[1] : NULL);
}

/* Seconds > 0, at most a day, at least a microsecond; -1 if not. */
static long long parse_secs(const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 1e-6 || v > 86400)
		return -1;
	return llround(v * 1e9);
}

static int cmd_timeline(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	long long ns = 1000000000LL;

	if (argc > 1 && (ns = parse_secs(argv[1])) < 0) {
		err_msg(sh, ".timeline: '%s': expected seconds, > 0 and <= 86400", argv[1]);
		return -1;
	}
	return run_sql(sh, ".timeline", sqlite3_mprintf(
		"UPDATE _ntp_shell_timeline_width SET ns = %lld;\n"
		"SELECT * FROM ntp_shell_timeline;", ns));
}

static int cmd_match(struct ntp_session *s, struct shell *sh, int argc, char **argv)
{
	return run_sql(sh, ".match", sqlite3_mprintf(
		"SELECT * FROM ntp_match_stats;\n"
		"SELECT hdb, tdb, pairs, offset_ns, drift, window_ns FROM ntp_offset;\n"
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
	char *sql = ntp_session_sql(s);

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
	err_msg(sh, ".mode: unknown mode '%s' (table, csv, json, line)", argv[1]);
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
	char head[64];

	snprintf(head, sizeof(head), ".%s%s%s", c->name, *c->usage ? " " : "", c->usage);
	fprintf(f, "%-28s %s\n", head, c->help);
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
	for (c = cmds; c->name; c++)
		help_line(sh->out.f, c);
	fputs("Anything else is SQL, run when a line ends the statement with ';'.\n"
	      "The report's views: .tables ntp_%; the SQL behind them: .sql\n", sh->out.f);
	return 0;
}

static const struct dot_cmd cmds[] = {
	{ "components", 1, "[GROUP]", "per group and component: n, mean, L, percentiles (us)",
	  cmd_components },
	{ "dbs", 0, "", "the recordings: path, schema, role, driver, host, records", cmd_dbs },
	{ "exit", 0, "", "leave the shell", cmd_quit },
	{ "groups", 0, "", "the groups: mode, sampled, matched, rate (cmds/s)", cmd_groups },
	{ "headers", 1, "[on|off]", "column names in table and csv output", cmd_headers },
	{ "help", 1, "[COMMAND]", "list the commands, or describe one", cmd_help },
	{ "match", 0, "", "how host and target records were paired; clock offsets",
	  cmd_match },
	{ "mode", 1, "[table|csv|json|line]", "how query results are printed", cmd_mode },
	{ "once", 1, "FILE", "send the next command's output to FILE", cmd_once },
	{ "output", 1, "[FILE]", "send output to FILE, or back to stdout", cmd_output },
	{ "percentiles", 1, "[GROUP]", "per group and component: p50, p99, p99.9 (us)",
	  cmd_percentiles },
	{ "quit", 0, "", "leave the shell", cmd_quit },
	{ "report", 2, "[--detail] [--all] [GROUP]", "the text report (ntprof report)", cmd_report },
	{ "schema", 1, "[PATTERN]", "CREATE statements of tables and views LIKE PATTERN",
	  cmd_schema },
	{ "sql", 0, "", "the SQL that sets this session up in plain sqlite3", cmd_sql },
	{ "stages", 1, "[GROUP]", "per group and stage: mean (us), share (%), avg QD",
	  cmd_stages },
	{ "tables", 1, "[PATTERN]", "tables and views of every schema, LIKE PATTERN",
	  cmd_tables },
	{ "timeline", 1, "[SECS]", "per recording, group and SECS (1): rate, latency, lost",
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

	for (c = cmds; len && c->name; c++) {
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
static int run_dot(struct shell *sh, const char *line)
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

/* ---- input ---- */

/* Only blanks and complete SQL comments: nothing to run. */
static int all_blank(const char *p)
{
	while (*p) {
		if (strchr(" \t\r\n\f\v", *p)) {
			p++;
		} else if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
		} else if (p[0] == '/' && p[1] == '*') {
			p = strstr(p + 2, "*/");
			if (!p)
				return 0;
			p += 2;
		} else {
			return 0;
		}
	}
	return 1;
}

static int sql_append(struct shell *sh, const char *line)
{
	size_t n = strlen(line);
	char *p;

	if (sh->sqllen + n + 2 > sh->sqlcap) {
		size_t cap = 2 * (sh->sqllen + n + 2) + 256;

		p = realloc(sh->sql, cap);
		if (!p)
			return -1;
		sh->sql = p;
		sh->sqlcap = cap;
	}
	if (!sh->sqllen)
		sh->sqlline = sh->lineno;
	memcpy(sh->sql + sh->sqllen, line, n);
	sh->sqllen += n;
	sh->sql[sh->sqllen++] = '\n';
	sh->sql[sh->sqllen] = '\0';
	return 0;
}

/* Run the collected SQL, if it is more than comments, and start over. */
static void sql_flush(struct shell *sh)
{
	int line = sh->lineno;

	if (!sh->sqllen)
		return;
	if (!all_blank(sh->sql)) {
		sh->lineno = sh->sqlline;
		/* without the last newline, which errors would quote */
		command_done(sh, run_sql(sh, "SQL", sqlite3_mprintf("%.*s",
							    (int)sh->sqllen - 1, sh->sql)));
		sh->lineno = line;
	}
	sh->sqllen = 0;
	sh->sql[0] = '\0';
}

/* One line of input: a dot-command, or more SQL. */
static void process_line(struct shell *sh, const char *line)
{
	const char *p = line + strspn(line, " \t");

	interrupted = 0;
	if (!sh->sqllen && *p == '.') {
		command_done(sh, run_dot(sh, p));
		return;
	}
	if (!sh->sqllen && all_blank(line))
		return;
	if (sql_append(sh, line)) {
		err_msg(sh, "out of memory");
		sh->failed = 1;
		return;
	}
	if (sqlite3_complete(sh->sql))
		sql_flush(sh);
}

/* -c COMMAND: its lines, then whatever SQL it left incomplete. */
static void run_string(struct shell *sh, const char *cmd)
{
	char *copy = strdup(cmd), *line, *next;

	if (!copy) {
		err_msg(sh, "out of memory");
		sh->failed = 1;
		return;
	}
	for (line = copy; line && !done(sh); line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		process_line(sh, line);
	}
	if (!done(sh))
		sql_flush(sh);
	free(copy);
}

/* A script on standard input: no prompts, errors name the line. */
static void run_stream(struct shell *sh, FILE *in)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	sh->source = "stdin";
	while (!done(sh) && (n = getline(&line, &cap, in)) >= 0) {
		sh->lineno++;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		process_line(sh, line);
	}
	if (!done(sh))
		sql_flush(sh);
	free(line);
}

/* ---- the terminal: everything readline is kept in this section ---- */

static const char *const sql_keywords[] = {
	"SELECT", "FROM", "WHERE", "GROUP", "BY", "ORDER", "LIMIT", "JOIN",
};

static struct shell *term_shell; /* readline's callbacks take no context */
static char *term_result;        /* line the callback handed over */
static int term_got;             /* the callback ran */

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Completion names: tables, views and their columns in every schema. */
static void collect_names(struct shell *sh)
{
	char schemas[NTP_MAX_DBS + 2][16];
	int n = all_schemas(sh, schemas, NTP_MAX_DBS + 2);
	size_t cap = 0, k = 0;

	for (int i = 0; i < n; i++) {
		char *sql = sqlite3_mprintf(
			"SELECT m.name FROM \"%w\".sqlite_schema AS m\n"
			"WHERE m.type IN ('table', 'view')\n"
			"UNION SELECT c.name FROM \"%w\".sqlite_schema AS m,"
			" pragma_table_info(m.name, %Q) AS c WHERE m.type IN ('table', 'view')",
			schemas[i], schemas[i], schemas[i]);
		sqlite3_stmt *st = NULL;

		if (sql && sqlite3_prepare_v2(sh->s->db, sql, -1, &st, NULL) == SQLITE_OK)
			while (sqlite3_step(st) == SQLITE_ROW) {
				char **p = sh->names;

				if (sh->nnames == cap &&
				    !(p = realloc(sh->names, (cap = 2 * cap + 64) * sizeof(*p))))
					break;
				sh->names = p;
				p[sh->nnames] = strdup((const char *)sqlite3_column_text(st, 0));
				if (p[sh->nnames])
					sh->nnames++;
			}
		sqlite3_finalize(st);
		sqlite3_free(sql);
	}
	if (!sh->nnames)
		return;
	qsort(sh->names, sh->nnames, sizeof(*sh->names), name_cmp);
	for (size_t i = 1; i < sh->nnames; i++)
		if (strcmp(sh->names[i], sh->names[k]))
			sh->names[++k] = sh->names[i];
		else
			free(sh->names[i]);
	sh->nnames = k + 1;
}

/* Dot-command names (without the dot) matching TEXT. */
static char *complete_cmd(const char *text, int state)
{
	static size_t i, len;

	if (!state) {
		i = 0;
		len = strlen(text);
	}
	while (cmds[i].name)
		if (!strncmp(cmds[i++].name, text, len))
			return strdup(cmds[i - 1].name);
	return NULL;
}

/* SQL names, then keywords (in the case TEXT starts with). */
static char *complete_sql(const char *text, int state)
{
	static size_t i, len;
	size_t nkw = sizeof(sql_keywords) / sizeof(sql_keywords[0]);
	struct shell *sh = term_shell;

	if (!state) {
		i = 0;
		len = strlen(text);
	}
	for (; i < sh->nnames; i++)
		if (!strncasecmp(sh->names[i], text, len))
			return strdup(sh->names[i++]);
	for (; i < sh->nnames + nkw; i++) {
		const char *kw = sql_keywords[i - sh->nnames];
		char *r;

		if (strncasecmp(kw, text, len))
			continue;
		r = strdup(kw);
		for (char *p = r; r && *p && islower((unsigned char)text[0]); p++)
			*p = (char)tolower((unsigned char)*p);
		i++;
		return r;
	}
	return NULL;
}

static char **complete(const char *text, int start, int end)
{
	const char *line = rl_line_buffer + strspn(rl_line_buffer, " \t");
	size_t first = strcspn(line, " \t");

	rl_attempted_completion_over = 1; /* no file names */
	if (*line == '.') {
		int cmd_word = start <= (int)(line - rl_line_buffer + first);

		if (cmd_word || !strncmp(line, ".help", first))
			return rl_completion_matches(text, complete_cmd);
		return NULL;
	}
	if (!term_shell->names)
		collect_names(term_shell);
	return rl_completion_matches(text, complete_sql);
}

static void term_take_line(char *line)
{
	term_result = line;
	term_got = 1;
	rl_callback_handler_remove();
}

/*
 * Read a line with readline's callback interface, so that ^C (SIGINT,
 * whose handler only sets a flag) can abandon the line. Returns the line
 * (free it), NULL at end of input, or "" after ^C with *cancelled set.
 */
static char *term_readline(const char *prompt, int *cancelled)
{
	fd_set fds;

	*cancelled = 0;
	term_got = 0;
	term_result = NULL;
	rl_callback_handler_install(prompt, term_take_line);
	while (!term_got) {
		FD_ZERO(&fds);
		FD_SET(fileno(rl_instream), &fds);
		if (select(fileno(rl_instream) + 1, &fds, NULL, NULL, NULL) > 0) {
			rl_callback_read_char();
		} else if (errno == EINTR && stopping) {
			rl_callback_sigcleanup();
			rl_cleanup_after_signal();
			rl_callback_handler_remove();
			return NULL;
		} else if (errno == EINTR && interrupted) {
			interrupted = 0;
			rl_free_line_state();
			rl_callback_sigcleanup();
			rl_cleanup_after_signal();
			rl_callback_handler_remove();
			fputc('\n', rl_outstream);
			*cancelled = 1;
			return strdup("");
		} else if (errno != EINTR) {
			rl_callback_handler_remove();
			return NULL;
		}
	}
	return term_result;
}

static void term_begin(struct shell *sh)
{
	const char *home = getenv("HOME");

	term_shell = sh;
	rl_readline_name = "ntprof";
	rl_attempted_completion_function = complete;
	rl_completer_word_break_characters = " \t\n\"'`@$><=;|&{(),.*+-/";
	if (home && *home &&
	    snprintf(sh->history, sizeof(sh->history), "%s/%s", home, HISTORY_FILE) <
	    (int)sizeof(sh->history))
		read_history(sh->history);
	else
		sh->history[0] = '\0';
}

static void term_end(struct shell *sh)
{
	if (sh->history[0]) {
		stifle_history(HISTORY_MAX);
		write_history(sh->history);
	}
	for (size_t i = 0; i < sh->nnames; i++)
		free(sh->names[i]);
	free(sh->names);
}

static void on_sigint(int sig)
{
	interrupted = 1;
	if (interrupt_db)
		sqlite3_interrupt(interrupt_db);
}

static void on_stop(int sig)
{
	stopping = 1;
	on_sigint(sig);
}

/* The interactive loop: prompts, history, ^C drops the statement. */
static void run_terminal(struct shell *sh)
{
	struct sigaction sa = { .sa_handler = on_sigint };
	char *line;
	int cancelled;

	interrupt_db = sh->s->db;
	sigaction(SIGINT, &sa, NULL);
	term_begin(sh);
	printf("ntprof-shell %s: %d recording%s. \".help\" lists the commands; "
	       "SQL ends with ';'.\n", NTP_VERSION, sh->s->ndbs, sh->s->ndbs > 1 ? "s" : "");
	while (!done(sh) &&
	       (line = term_readline(sh->sqllen ? PROMPT_MORE : PROMPT, &cancelled))) {
		if (cancelled) {
			sh->sqllen = 0;
		} else {
			if (*line)
				add_history(line);
			process_line(sh, line);
		}
		free(line);
	}
	if (!done(sh)) {
		putchar('\n');
		sql_flush(sh);
	}
	term_end(sh);
}

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ntprof-shell [options] DB...\n"
		"Query ntprof recordings (host and target databases) with SQL and\n"
		"dot-commands. They are opened read-only; \".help\" lists the commands.\n"
		"\n"
		"  -c COMMAND   run COMMAND (SQL or a dot-command), then exit; repeat to\n"
		"               run several, in order\n"
		"  --sql        print the SQL that sets up this session in plain sqlite3\n"
		"  --portable   no native SQL functions (the SQL --sql prints)\n"
		"  --no-check   skip SQLite's integrity check of each file\n"
		"  -h, --help   this help\n"
		"  --version    print the version\n"
		"\n"
		"Without -c, commands come from standard input: interactively on a\n"
		"terminal, else as a script. Exit status 1 if any command failed.\n"
		"\n"
		"Examples:\n"
		"  ntprof-shell host.db target.db\n"
		"  ntprof-shell -c .groups -c '.stages read' host.db target.db\n"
		"  ntprof-shell -c '.mode csv' -c 'SELECT * FROM ntp_report_stage;' \\\n"
		"      host.db target.db > stages.csv\n"
		"  printf '.mode json\\n.percentiles\\n' | ntprof-shell host.db target.db\n"
		"  ntprof-shell --sql host.db target.db > setup.sql && sqlite3 -init setup.sql\n");
}

static int print_session_sql(struct ntp_session *s)
{
	char *sql = ntp_session_sql(s);

	if (!sql) {
		fprintf(stderr, "ntprof-shell: --sql: out of memory\n");
		return 1;
	}
	fputs(sql, stdout);
	sqlite3_free(sql);
	return 0;
}

/*
 * SQL typed into the shell may not ATTACH or DETACH: the recordings are the
 * ones given on the command line, and a second, writable handle on one of
 * them would undo read-only. Nor may it call fts3_tokenizer(), whose
 * one-argument form hands out a code address even with the two-argument
 * form turned off (harden() in open.c). Everything else is checked by
 * SQLite itself.
 */
static int authorize(void *arg, int action, const char *a, const char *b, const char *c,
		     const char *d)
{
	if (action == SQLITE_ATTACH || action == SQLITE_DETACH)
		return SQLITE_DENY;
	if (action == SQLITE_FUNCTION && b && !strcasecmp(b, "fts3_tokenizer"))
		return SQLITE_DENY;
	return SQLITE_OK;
}

/* Commands from -c, a terminal or a script; then close what .output opened. */
static int run(struct ntp_session *s, char **cmds_c, int ncmds)
{
	struct shell sh = {
		.s = s,
		.out = { .f = stdout, .mode = NTP_MODE_TABLE, .headers = 1 },
	};

	struct sigaction stop = { .sa_handler = on_stop };

	interrupt_db = s->db;
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGHUP, &stop, NULL);
	sigaction(SIGINT, &stop, NULL); /* the terminal's loop has its own */
	sqlite3_set_authorizer(s->db, authorize, NULL);
	for (int i = 0; i < ncmds && !done(&sh); i++)
		run_string(&sh, cmds_c[i]);
	if (!ncmds && isatty(STDIN_FILENO))
		run_terminal(&sh);
	else if (!ncmds)
		run_stream(&sh, stdin);
	sh.source = NULL;
	if (stopping) {
		fprintf(stderr, "ntprof-shell: interrupted by a signal; stopping\n");
		sh.failed = 1;
	}
	if (close_output(&sh, &sh.once, ".once") | close_output(&sh, &sh.output, ".output"))
		sh.failed = 1;
	free(sh.sql);
	return sh.failed;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "command", required_argument, NULL, 'c' },
		{ "sql", no_argument, NULL, 'S' },
		{ "portable", no_argument, NULL, 'P' },
		{ "no-check", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char **cmds_c = calloc(argc, sizeof(*cmds_c)), err[NTP_ERR_MAX];
	int opt, ncmds = 0, sql = 0, flags = 0, rc;
	struct ntp_session s;

	if (!cmds_c)
		return 1;
	while ((opt = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': cmds_c[ncmds++] = optarg; break;
		case 'S': sql = 1; break;
		case 'P': flags |= NTP_OPEN_PORTABLE; break;
		case 'N': flags |= NTP_OPEN_NO_CHECK; break;
		case 'h': usage(stdout); free(cmds_c); return 0;
		case 'V':
			printf("ntprof-shell %s (SQLite %s)\n", NTP_VERSION, sqlite3_libversion());
			free(cmds_c);
			return 0;
		default:
			fprintf(stderr, "usage: ntprof-shell [options] DB... (--help: more)\n");
			free(cmds_c);
			return 2;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "ntprof-shell: no database given\n");
		usage(stderr);
		free(cmds_c);
		return 2;
	}
	if (ntp_session_open(&s, argc - optind, argv + optind, flags, err, sizeof(err))) {
		fprintf(stderr, "ntprof-shell: %s\n", err);
		free(cmds_c);
		return 1;
	}
	rc = sql ? print_session_sql(&s) : run(&s, cmds_c, ncmds);
	ntp_session_close(&s);
	free(cmds_c);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "ntprof-shell: standard output: %s\n", strerror(errno));
		rc = 1;
	}
	return rc;
}
