// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SQL a session sets itself up with: the URIs its recordings are
 * attached by, its connections' defensive settings, and the TEMP set-up
 * over the recordings attached (the vocabulary, ntp_run, the prelude's
 * views with an arm per recording or merged file, then join.sql,
 * report.sql and the rest), run by the session or given as text to plain
 * sqlite3 (ntp_session_sql).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "native.h"
#include "ntp_err.h"
#include "ntp_exec.h"
#include "ntp_session.h"
#include "ntp_setup.h"
#include "ntp_sql.h"

/* file: URI for a path: percent-encode what URIs give meaning to. */
static char *file_uri(const char *path)
{
	size_t n = strlen(path);
	char *u = malloc(3 * n + 32), *p;

	if (!u)
		return NULL;
	p = u + sprintf(u, "file:");
	for (; *path; path++) {
		if (*path == '%' || *path == '?' || *path == '#')
			p += sprintf(p, "%%%02X", (unsigned char)*path);
		else
			*p++ = *path;
	}
	strcpy(p, "?mode=ro");
	return u;
}

/* The same, for a file nothing else writes: no locks, no -shm, no -wal
 * looked for or made beside it. */
char *ntp_immutable_uri(const char *path)
{
	char *u = file_uri(path), *n;

	if (!u || !(n = realloc(u, strlen(u) + sizeof("&immutable=1"))))
		return free(u), NULL;
	return strcat(n, "&immutable=1");
}

/* Replace every KEY in BODY (sqlite3_malloc'ed) by VAL. */
static char *replace_all(char *body, const char *key, const char *val)
{
	size_t klen = strlen(key);
	char *at, *out;

	while (body && (at = strstr(body, key))) {
		out = sqlite3_mprintf("%.*s%s%s", (int)(at - body), body, val, at + klen);
		sqlite3_free(body);
		body = out;
	}
	return body;
}

/* The prelude's arm NAME (the text after its marker line, "-- @NAME" and
 * an optional OVER, up to the next marker) with @db@ (or @h@ and @t@)
 * replaced, and @records@ by D's commands (D NULL: the pair arms, which
 * have none); NULL if there is no such arm. */
static char *arm2(const char *name, const char *db, const char *h, const char *t,
		  const struct ntp_dbinfo *d)
{
	size_t n = strlen(name);
	const char *start = ntp_sql_prelude, *end;
	char *body, records[24];

	while ((start = strstr(start, "\n-- @"))) {
		start += 5;
		if (!strncmp(start, name, n) && (start[n] == ' ' || start[n] == '\n'))
			break;
	}
	if (!start)
		return NULL;
	start = strchr(start, '\n') + 1;
	end = strstr(start, "\n-- @");
	body = sqlite3_mprintf("%.*s", end ? (int)(end - start) + 1 : (int)strlen(start), start);
	body = replace_all(body, "@db@", db);
	body = replace_all(body, "@h@", h);
	snprintf(records, sizeof(records), "%lld", d ? (long long)d->records : 0LL);
	body = replace_all(body, "@records@", records);
	return replace_all(body, "@t@", t);
}

/* Append arm A (freed here) to Q, UNION ALL after the first; *N counts
 * them. -1 if A is NULL. */
static int add_arm(sqlite3_str *q, char *a, int *n)
{
	if (!a)
		return -1;
	sqlite3_str_appendf(q, "%s%s", (*n)++ ? "UNION ALL\n" : "", a);
	sqlite3_free(a);
	return 0;
}

/* The arm of view NAME over the merged file M: its table of that name,
 * the recordings' names (db, hdb, tdb) prefixed with the file's when the
 * session's names carry it. */
static char *merged_arm(const struct ntp_session *s, const struct ntp_dbinfo *m,
			const char *name)
{
	char *sql = sqlite3_mprintf("SELECT name FROM pragma_table_info(%Q, %Q)", name, m->schema);
	sqlite3_str *q = sqlite3_str_new(NULL);
	sqlite3_stmt *st = NULL;
	int n = 0;

	if (!s->prefix_merged) {
		sqlite3_free(sql);
		sqlite3_str_appendf(q, "SELECT * FROM \"%w\".%s\n", m->schema, name);
		return sqlite3_str_finish(q);
	}
	if (!sql || sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		n = -1;
	sqlite3_str_appendall(q, "SELECT ");
	while (n >= 0 && sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);

		if (!strcmp(c, "db") || !strcmp(c, "hdb") || !strcmp(c, "tdb"))
			sqlite3_str_appendf(q, "%s'%q_' || \"%w\" AS \"%w\"", n++ ? ", " : "",
					    m->schema, c, c);
		else
			sqlite3_str_appendf(q, "%s\"%w\"", n++ ? ", " : "", c);
	}
	sqlite3_str_appendf(q, "\nFROM \"%w\".%s\n", m->schema, name);
	sqlite3_finalize(st);
	sqlite3_free(sql);
	if (n <= 0) {
		sqlite3_free(sqlite3_str_finish(q));
		return NULL;
	}
	return sqlite3_str_finish(q);
}

/* The arm of view NAME for database DB (and D) or for host H and target T:
 * with native functions (NATIVE), its NAME_native arm where the prelude
 * has one. */
static char *own_arm(const char *name, int native, const char *db, const char *h,
		     const char *t, const struct ntp_dbinfo *d)
{
	char *own = native ? sqlite3_mprintf("%s_native", name) : NULL;
	char *a = own ? arm2(own, db, h, t, d) : NULL;

	sqlite3_free(own);
	return a ? a : arm2(name, db, h, t, d);
}

/* CREATE TEMP VIEW NAME AS one arm per database OVER names (all, host,
 * target) or per host and target pair (pair), and one per merged file;
 * NAME_none if none does. */
static int prelude_view(sqlite3_str *q, const struct ntp_session *s, int native,
			const char *name, const char *over)
{
	char none[80];
	int n = 0, rc = 0;

	sqlite3_str_appendf(q, "CREATE TEMP VIEW %s AS\n", name);
	for (int i = 0; i < s->ndbs; i++) {
		const struct ntp_dbinfo *d = &s->dbs[i];

		if (!strcmp(d->role, "merged")) {
			rc |= add_arm(q, merged_arm(s, d, name), &n);
			continue;
		}
		if (d->from[0])
			continue;
		if (!strcmp(over, "pair"))
			for (int t = 0; t < s->ndbs && !strcmp(d->role, "host"); t++)
				if (!strcmp(s->dbs[t].role, "target") && !s->dbs[t].from[0] &&
				    s->dbs[t].run == d->run)
					rc |= add_arm(q, own_arm(name, native, "", d->schema,
								 s->dbs[t].schema, NULL), &n);
		if (!strcmp(over, "all") || !strcmp(over, d->role))
			rc |= add_arm(q, own_arm(name, native, d->schema, "", "", d), &n);
	}
	snprintf(none, sizeof(none), "%s_none", name);
	if (!n)
		rc |= add_arm(q, arm2(none, "", "", "", NULL), &n);
	sqlite3_str_appendall(q, ";\n");
	return rc;
}

int ntp_prelude_each(int (*fn)(void *arg, const char *name, const char *over), void *arg)
{
	const char *p = ntp_sql_prelude;
	char name[64], over[16];
	int rc = 0;

	while (!rc && (p = strstr(p, "\n-- @"))) {
		p += 5;
		if (sscanf(p, "%63[a-z_0-9] %15[a-z]", name, over) == 2 &&
		    p[strlen(name)] == ' ')
			rc = fn(arg, name, over);
	}
	return rc;
}

struct views_arg {
	sqlite3_str *q;
	const struct ntp_session *s;
	int native; /* the native functions are there: the native arms */
};

static int one_view(void *arg, const char *name, const char *over)
{
	struct views_arg *a = arg;

	return prelude_view(a->q, a->s, a->native, name, over);
}

/* Every view the prelude declares (markers with an OVER), in its order. */
static int prelude_views(sqlite3_str *q, const struct ntp_session *s, int native)
{
	struct views_arg a = { q, s, native };

	return ntp_prelude_each(one_view, &a);
}

/* ntp_run: which run each attached database belongs to. The join pairs a
 * host only with targets of its run; a report's session is one run. */
static void run_table(sqlite3_str *q, const struct ntp_session *s)
{
	sqlite3_str_appendall(q, "-- Which run each recording belongs to: hosts pair only with the\n"
			      "-- targets of their run (ntprof compare opens several runs).\n"
			      "CREATE TEMP TABLE ntp_run (\n"
			      "  db TEXT PRIMARY KEY, -- ntp_db.db\n"
			      "  run TEXT NOT NULL,   -- the run's label\n"
			      "  ord INTEGER NOT NULL -- the run's place, 0 first: the base compared with\n"
			      ") WITHOUT ROWID;\n");
	for (int i = 0; i < s->ndbs; i++)
		if (strcmp(s->dbs[i].role, "merged"))
			sqlite3_str_appendf(q, "INSERT INTO ntp_run VALUES (%Q, %Q, %d);\n",
					    s->dbs[i].schema, s->run_label[s->dbs[i].run],
					    s->dbs[i].run);
}

/* The vocabulary, the prelude's views over the attached databases, then
 * join.sql, report.sql, stats.sql, shell.sql, compare.sql, plot.sql and
 * export.sql: the whole TEMP set-up, as SQL. */
static char *setup_sql(const struct ntp_session *s, int native)
{
	sqlite3_str *q = sqlite3_str_new(NULL);
	int rc;

	sqlite3_str_appendall(q, ntp_sql_vocab);
	run_table(q, s);
	rc = prelude_views(q, s, native);
	sqlite3_str_appendall(q, ntp_sql_join);
	sqlite3_str_appendall(q, ntp_sql_report);
	sqlite3_str_appendall(q, ntp_sql_stats);
	sqlite3_str_appendall(q, ntp_sql_shell);
	sqlite3_str_appendall(q, ntp_sql_compare);
	sqlite3_str_appendall(q, ntp_sql_plot);
	sqlite3_str_appendall(q, ntp_sql_export);
	sqlite3_str_appendall(q, ntp_sql_cache);
	if (rc) {
		sqlite3_free(sqlite3_str_finish(q));
		return NULL;
	}
	return sqlite3_str_finish(q);
}

/*
 * The session for plain sqlite3: the same settings, the recordings, the
 * views, and then the caches (_ntp_prepare_sql), so that sqlite3 computes
 * the clock offset, the join and the statistics once, when it reads the
 * file, as a session does before its first report, and not again in every
 * query that names them.
 */
char *ntp_session_sql(const struct ntp_session *s)
{
	sqlite3_str *q = sqlite3_str_new(NULL);
	/* the prepared run's cache file, or the SQL that prepares it */
	char *p = setup_sql(s, 0), *k = ntp_cache_setup_sql(s);
	char *c = k ? NULL : ntp_query_text(s->db, "SELECT sql FROM _ntp_prepare_sql_portable");
	int ok = p && (k || c);

	if (s->tmp_merged)
		sqlite3_str_appendall(q, "-- the merged file below is ntprof-shell's own, removed "
				      "when it exits:\n-- ntprof merge writes one to keep\n");
	sqlite3_str_appendall(q, "-- ntprof: the views ntprof-shell creates, for sqlite3\n"
			      "-- (the shell also loads native functions: see docs/sql.md)\n"
			      "-- first: changing temp_store drops every TEMP object; sorts and\n"
			      "-- TEMP tables beyond the page cache go to temporary files. The\n"
			      "-- main database holds nothing, but SQLite sorts in runs of its\n"
			      "-- cache size: small runs sort faster, in less memory\n"
			      "PRAGMA temp_store = FILE;\n"
			      "PRAGMA cache_size = -2048;\nPRAGMA temp.cache_size = -524288;\n");
	for (int i = 0; ok && i < s->ndbs; i++) {
		char *uri = s->dbs[i].from[0] ? NULL : file_uri(s->dbs[i].path);

		if (s->dbs[i].from[0])
			continue;
		ok = uri != NULL;
		if (ok)
			sqlite3_str_appendf(q, "ATTACH %Q AS %w;\n", uri, s->dbs[i].schema);
		free(uri);
	}
	if (ok && k)
		sqlite3_str_appendf(q, "%s%s", p, k);
	else if (ok)
		sqlite3_str_appendf(q, "%s-- The expensive views computed once into TEMP tables, as\n"
				    "-- ntprof-shell does: reading this file takes about as long as\n"
				    "-- one report, and the queries after it read the tables.\n%s",
				    p, c);
	sqlite3_free(p);
	sqlite3_free(c);
	sqlite3_free(k);
	p = sqlite3_str_finish(q);
	if (!ok) {
		sqlite3_free(p);
		return NULL;
	}
	return p;
}

/*
 * Defensive mode, untrusted schema off, no extensions, no FTS3 tokenizer
 * pointers: a database from someone else, or SQL typed or piped in, must
 * not run code or change files. The limits bound what one statement can
 * ask of memory (a string or row of 256 MiB at most; the SQLite default is
 * 1 GB) without touching any report's needs.
 */
int ntp_harden(sqlite3 *db)
{
	int on = 1, off = 0;

	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 256 << 20);
	sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 16 << 20);
	sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 0);
	return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, NULL) ||
	       sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, off, NULL) ||
	       sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, off, NULL) ||
	       sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, off, NULL) ||
	       sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, off, NULL) ||
	       sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, on, NULL) ? -1 : 0;
}

int ntp_create_views(struct ntp_session *s, int flags, char *err, size_t errlen)
{
	int native = !(flags & NTP_OPEN_PORTABLE);
	/* the native functions first: the prelude's native arms call them */
	int rc = native && ntp_native_register(s->db) != SQLITE_OK;
	char *p = rc ? NULL : setup_sql(s, native);

	rc = rc || !p || ntp_exec(s->db, p);
	sqlite3_free(p);
	if (!rc && native) {
		rc = ntp_exec(s->db, ntp_sql_native);
		s->native = !rc;
	}
	return rc ? ntp_fail(err, errlen, "cannot create the report views: %s",
			 sqlite3_errmsg(s->db)) : 0;
}
