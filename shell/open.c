// SPDX-License-Identifier: BSD-2-Clause
/*
 * Opening recordings for reports: each file is checked before SQLite reads
 * it (an ntprof database, not truncated, a known schema, exactly ntprof's
 * tables and views, one meta row), attached read-only to an in-memory main
 * database in defensive mode with untrusted schema off, and the TEMP views
 * of sql/prelude.sql, join.sql and report.sql are created over the set.
 * Nothing here writes to a recording.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ntp_err.h"
#include "ntp_shell.h"
#include "ntp_sql.h"

#define NTP_APPLICATION_ID 0x6E747066 /* 'ntpf', sql/schema.sql */
#define NTP_SCHEMA_VERSION 5 /* sql/schema.sql; tests/schema.sha256 */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Look at the file's header ourselves: a clear word for a file that is not
 * a database, is truncated, or belongs to another program. */
static int check_header(const char *path, char *err, size_t errlen)
{
	unsigned char h[100];
	struct stat st;
	uint32_t page, pages;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ntp_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return ntp_fail(err, errlen, "%s: not a regular file", path);
	}
	n = read(fd, h, sizeof(h));
	close(fd);
	if (n == 0)
		return ntp_fail(err, errlen, "%s: empty file, not an ntprof database", path);
	if (n < (ssize_t)sizeof(h) || memcmp(h, "SQLite format 3", 16))
		return ntp_fail(err, errlen, "%s: not an ntprof database (not SQLite)", path);
	page = (uint32_t)h[16] << 8 | h[17];
	page = page == 1 ? 65536 : page;
	pages = be32(h + 28);
	/* The in-header size is valid when the change counters agree. */
	if (be32(h + 24) == be32(h + 92) && (uint64_t)st.st_size < (uint64_t)page * pages)
		return ntp_fail(err, errlen, "%s: truncated: %lld of %llu bytes", path,
			    (long long)st.st_size, (unsigned long long)page * pages);
	if (be32(h + 68) != NTP_APPLICATION_ID)
		return ntp_fail(err, errlen, "%s: not an ntprof database (application id %#x)",
			    path, be32(h + 68));
	if (be32(h + 60) != NTP_SCHEMA_VERSION)
		return ntp_fail(err, errlen, "%s: schema version %u, this ntprof reads version %d",
			    path, be32(h + 60), NTP_SCHEMA_VERSION);
	return 0;
}

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

static int exec(sqlite3 *db, const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/*
 * A recording holds exactly the objects ntprof creates for its role, with
 * exactly ntprof's SQL. Compare against a reference built from the embedded
 * schema: an extra trigger, a changed view or a missing table is refused
 * before any of it is used.
 */
static const char schema_diff_sql[] =
	"SELECT type || ' ' || name FROM ("
	" SELECT * FROM (SELECT type, name, tbl_name, sql FROM %s.sqlite_schema"
	"  EXCEPT SELECT type, name, tbl_name, sql FROM ref.sqlite_schema)"
	" UNION ALL"
	" SELECT * FROM (SELECT type, name, tbl_name, sql FROM ref.sqlite_schema"
	"  EXCEPT SELECT type, name, tbl_name, sql FROM %s.sqlite_schema))";

static int build_reference(sqlite3 *db, const char *role)
{
	int host = !strcmp(role, "host");

	if (exec(db, "ATTACH ':memory:' AS ref"))
		return -1;
	/* The reference is built in an in-memory database of our own: the
	 * embedded SQL names no schema, so run it with ref as main. */
	{
		sqlite3 *r;
		int rc;

		if (sqlite3_open(":memory:", &r) != SQLITE_OK)
			return -1;
		rc = exec(r, ntp_sql_schema) || exec(r, ntp_sql_vocab) ||
		     exec(r, host ? ntp_sql_host : ntp_sql_target) ||
		     exec(r, host ? ntp_sql_host_views : ntp_sql_target_views) ||
		     exec(r, ntp_sql_views);
		if (!rc) {
			sqlite3_backup *b = sqlite3_backup_init(db, "ref", r, "main");

			rc = !b || sqlite3_backup_step(b, -1) != SQLITE_DONE;
			sqlite3_backup_finish(b);
		}
		sqlite3_close(r);
		return rc ? -1 : 0;
	}
}

/* How many objects differ between SCHEMA and ref (-1 on an SQL error);
 * *what gets the first one's name. */
static int schema_diff(sqlite3 *db, const char *schema, char **what)
{
	char *sql = sqlite3_mprintf(schema_diff_sql, schema, schema);
	sqlite3_stmt *st = NULL;
	int n = 0;

	*what = NULL;
	if (!sql || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		n = -1;
	while (n >= 0 && sqlite3_step(st) == SQLITE_ROW)
		if (!n++)
			*what = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return n;
}

/* Which role's schema the database attached as SCHEMA has, exactly; only
 * sqlite_schema is read, so nothing in the file runs before it passes. */
static int check_schema(sqlite3 *db, const char *schema, struct ntp_dbinfo *d, char *err,
			size_t errlen)
{
	static const char *const roles[] = { "host", "target" };
	char *what[2] = { NULL, NULL };
	int n[2] = { -1, -1 }, rc = -1, best;

	for (int i = 0; i < 2; i++) {
		if (build_reference(db, roles[i])) {
			exec(db, "DETACH ref");
			return ntp_fail(err, errlen, "%s: cannot build the reference schema", d->path);
		}
		n[i] = schema_diff(db, schema, &what[i]);
		exec(db, "DETACH ref");
		if (n[i] < 0) {
			ntp_fail(err, errlen, "%s: cannot read the schema: %s", d->path,
			     sqlite3_errmsg(db));
			goto out;
		}
	}
	best = n[1] < n[0];
	if (n[best] == 0) {
		snprintf(d->role, sizeof(d->role), "%s", roles[best]);
		rc = 0;
	} else {
		ntp_fail(err, errlen, "%s: not ntprof's %s schema: %s differs (refusing a changed "
		     "database)", d->path, roles[best], what[best]);
	}
out:
	sqlite3_free(what[0]);
	sqlite3_free(what[1]);
	return rc;
}

static void copy_col(char *dst, size_t n, sqlite3_stmt *st, int col)
{
	const unsigned char *v = sqlite3_column_text(st, col);

	snprintf(dst, n, "%s", v ? (const char *)v : "");
}

/* Read meta (exactly one row) and the record counts into D. */
static int read_meta(sqlite3 *db, struct ntp_dbinfo *d, char *err, size_t errlen)
{
	char *sql = sqlite3_mprintf(
		"SELECT m.role, m.driver, m.transport, m.hostname, m.kernel, m.sample_rate,"
		" (SELECT count(*) FROM %w.meta), r.records, r.lost"
		" FROM %w.meta AS m, %w.recording AS r", d->schema, d->schema, d->schema);
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (!sql || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		ntp_fail(err, errlen, "%s: cannot read meta: %s", d->path, sqlite3_errmsg(db));
		goto out;
	}
	if (sqlite3_step(st) != SQLITE_ROW) {
		ntp_fail(err, errlen, "%s: no meta row: not a finished ntprof database", d->path);
		goto out;
	}
	if (sqlite3_column_int64(st, 6) != 1) {
		ntp_fail(err, errlen, "%s: %lld meta rows, expected one", d->path,
		     (long long)sqlite3_column_int64(st, 6));
		goto out;
	}
	copy_col(d->role, sizeof(d->role), st, 0);
	copy_col(d->driver, sizeof(d->driver), st, 1);
	copy_col(d->transport, sizeof(d->transport), st, 2);
	copy_col(d->hostname, sizeof(d->hostname), st, 3);
	copy_col(d->kernel, sizeof(d->kernel), st, 4);
	d->sample_rate = sqlite3_column_int64(st, 5);
	d->records = sqlite3_column_int64(st, 7);
	d->lost = sqlite3_column_int64(st, 8);
	rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

/* Attach URI as "peek" and learn its role from its schema alone. */
static int peek_role(sqlite3 *db, const char *uri, struct ntp_dbinfo *d, char *err,
		     size_t errlen)
{
	char *sql = sqlite3_mprintf("ATTACH %Q AS peek", uri);
	int rc;

	if (!sql || exec(db, sql)) {
		sqlite3_free(sql);
		return ntp_fail(err, errlen, "%s: cannot open: %s", d->path, sqlite3_errmsg(db));
	}
	sqlite3_free(sql);
	rc = check_schema(db, "peek", d, err, errlen);
	exec(db, "DETACH peek");
	return rc;
}

static int attach_one(struct ntp_session *s, struct ntp_dbinfo *d, char *err, size_t errlen)
{
	char *uri = file_uri(d->path), *sql;
	int rc;

	if (!uri)
		return ntp_fail(err, errlen, "%s: out of memory", d->path);
	if (peek_role(s->db, uri, d, err, errlen)) {
		free(uri);
		return -1;
	}
	if (!strcmp(d->role, "host"))
		snprintf(d->schema, sizeof(d->schema), s->nhosts ? "host%d" : "host",
			 s->nhosts + 1);
	else
		snprintf(d->schema, sizeof(d->schema), s->ntargets ? "target%d" : "target",
			 s->ntargets + 1);
	/* Read big recordings through mmap: no read() per page, no copy. */
	sql = sqlite3_mprintf("ATTACH %Q AS %w; PRAGMA %w.mmap_size = 2147418112", uri,
			      d->schema, d->schema);
	rc = sql ? exec(s->db, sql) : -1;
	sqlite3_free(sql);
	free(uri);
	if (rc)
		return ntp_fail(err, errlen, "%s: cannot attach: %s", d->path, sqlite3_errmsg(s->db));
	if (read_meta(s->db, d, err, errlen))
		return -1;
	if (!strcmp(d->role, "host"))
		s->nhosts++;
	else
		s->ntargets++;
	return 0;
}

/* The set must make sense together: a host, not two hosts without a
 * target, one -s, some records. Roles come from meta, not argument order. */
static int check_set(const struct ntp_session *s, char *err, size_t errlen)
{
	const struct ntp_dbinfo *first = &s->dbs[0];

	for (int i = 0; i < s->ndbs; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(s->dbs[i].path, s->dbs[j].path))
				return ntp_fail(err, errlen, "%s: given twice", s->dbs[i].path);
	if (!s->nhosts)
		return ntp_fail(err, errlen, "%s: a target recording; a report needs the host's "
			    "recording too (sqlite3 reads a target alone)", first->path);
	if (s->nhosts > 1 && !s->ntargets)
		return ntp_fail(err, errlen, "%s, %s: %d host recordings and no target; give one host "
			    "alone, or hosts with their target", s->dbs[0].path, s->dbs[1].path,
			    s->nhosts);
	for (int i = 0; i < s->ndbs; i++) {
		const struct ntp_dbinfo *d = &s->dbs[i];

		if (d->sample_rate != first->sample_rate)
			return ntp_fail(err, errlen, "%s: recorded with -s %lld, %s with -s %lld: both "
				    "sides sample the same commands only with the same -s",
				    d->path, (long long)d->sample_rate, first->path,
				    (long long)first->sample_rate);
		if (d->records == 0)
			return ntp_fail(err, errlen, "%s: no commands recorded (empty recording)",
				    d->path);
	}
	return 0;
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

/* The prelude's arm NAME with @db@ (or @h@ and @t@) replaced. */
static char *arm2(const char *name, const char *db, const char *h, const char *t)
{
	char marker[64];
	const char *start, *end;
	char *body;
	size_t len;

	snprintf(marker, sizeof(marker), "-- @%s\n", name);
	start = strstr(ntp_sql_prelude, marker);
	if (!start)
		return NULL;
	start += strlen(marker);
	end = strstr(start, "-- @");
	len = end ? (size_t)(end - start) : strlen(start);
	body = sqlite3_mprintf("%.*s", (int)len, start);
	body = replace_all(body, "@db@", db);
	body = replace_all(body, "@h@", h);
	return replace_all(body, "@t@", t);
}

static char *arm(const char *name, const char *schema)
{
	return arm2(name, schema, "", "");
}

/* Append ARM to the CREATE VIEW statement in SQL, UNION ALL after the first. */
static char *add_arm(char *sql, char *a, int first)
{
	char *n = sql && a ? sqlite3_mprintf("%s%s%s", sql, first ? "" : "UNION ALL\n", a) : NULL;

	sqlite3_free(sql);
	sqlite3_free(a);
	return n;
}

/* CREATE TEMP VIEW NAME AS one arm per host and target pair (NAME_none
 * when there is no pair). */
static char *pair_view(const struct ntp_session *s, const char *name)
{
	char *sql = sqlite3_mprintf("CREATE TEMP VIEW %s AS\n", name), *n;
	char none[64];
	int first = 1;

	for (int h = 0; h < s->ndbs; h++) {
		for (int t = 0; t < s->ndbs; t++) {
			if (strcmp(s->dbs[h].role, "host") || strcmp(s->dbs[t].role, "target"))
				continue;
			sql = add_arm(sql, arm2(name, "", s->dbs[h].schema, s->dbs[t].schema),
				      first);
			first = 0;
		}
	}
	snprintf(none, sizeof(none), "%s_none", name);
	if (first)
		sql = add_arm(sql, arm(none, ""), 1);
	n = sql ? sqlite3_mprintf("%s;\n", sql) : NULL;
	sqlite3_free(sql);
	return n;
}

/* CREATE TEMP VIEW name AS (arm for every database of ROLE) UNION ALL ... */
static char *union_view(const struct ntp_session *s, const char *name, const char *role,
			const char *none)
{
	char *sql = sqlite3_mprintf("CREATE TEMP VIEW %s AS\n", name), *n;
	int first = 1;

	for (int i = 0; sql && i < s->ndbs; i++) {
		if (role && strcmp(s->dbs[i].role, role))
			continue;
		sql = add_arm(sql, arm(name, s->dbs[i].schema), first);
		first = 0;
	}
	if (first)
		sql = add_arm(sql, arm(none, ""), 1);
	n = sql ? sqlite3_mprintf("%s;\n", sql) : NULL;
	sqlite3_free(sql);
	return n;
}

/* The base views over the attached databases, then join.sql, then the
 * per-pair join arms, then report.sql: the whole TEMP set-up, as SQL. */
static char *setup_sql(const struct ntp_session *s)
{
	char *v[9] = {
		union_view(s, "ntp_db", NULL, NULL),
		union_view(s, "ntp_grp_all", NULL, NULL),
		union_view(s, "ntp_host_grp", "host", NULL),
		union_view(s, "ntp_host_cmd", "host", NULL),
		union_view(s, "ntp_target_cmd", "target", "ntp_target_cmd_none"),
		union_view(s, "ntp_lost", NULL, NULL),
		union_view(s, "ntp_gap", NULL, NULL),
		pair_view(s, "ntp_joined"),
		pair_view(s, "ntp_unmatched_pair"),
	};
	char *sql = NULL;
	int ok = 1;

	for (int i = 0; i < 9; i++)
		ok &= v[i] != NULL;
	if (ok)
		sql = sqlite3_mprintf("%s%s%s%s%s%s%s%s%s%s%s%s", ntp_sql_vocab, v[0], v[1], v[2],
				      v[3], v[4], v[5], v[6], ntp_sql_join, v[7], v[8],
				      ntp_sql_report);
	for (int i = 0; i < 9; i++)
		sqlite3_free(v[i]);
	return sql;
}

char *ntp_session_sql(const struct ntp_session *s)
{
	char *sql = sqlite3_mprintf("-- ntprof: the views ntprof-shell creates, for sqlite3\n"
				    "-- (the shell also loads native functions: see docs/sql.md)\n");
	char *p = setup_sql(s), *n;

	for (int i = 0; sql && i < s->ndbs; i++) {
		char *uri = file_uri(s->dbs[i].path);

		n = uri ? sqlite3_mprintf("%sATTACH %Q AS %w;\n", sql, uri, s->dbs[i].schema)
			: NULL;
		free(uri);
		sqlite3_free(sql);
		sql = n;
	}
	n = sql && p ? sqlite3_mprintf("%s%s", sql, p) : NULL;
	sqlite3_free(sql);
	sqlite3_free(p);
	return n;
}

/* Defensive mode, untrusted schema off, no extensions: a database from
 * someone else must not run code or change files. */
static int harden(sqlite3 *db)
{
	int on = 1, off = 0;

	return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, NULL) ||
	       sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, off, NULL) ||
	       sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, off, NULL) ||
	       sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, off, NULL) ||
	       sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, on, NULL) ? -1 : 0;
}

static int create_views(struct ntp_session *s, int flags, char *err, size_t errlen)
{
	char *p = setup_sql(s);
	int rc;

	rc = !p || exec(s->db, p);
	sqlite3_free(p);
	if (!rc && !(flags & NTP_OPEN_PORTABLE)) {
		rc = ntp_native_register(s->db) || exec(s->db, ntp_sql_native);
		s->native = !rc;
	}
	return rc ? ntp_fail(err, errlen, "cannot create the report views: %s",
			 sqlite3_errmsg(s->db)) : 0;
}

/* Hosts first, then targets: schema names and report order follow roles. */
static void order_by_role(struct ntp_session *s)
{
	struct ntp_dbinfo tmp[NTP_MAX_DBS];
	int n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < s->ndbs; i++)
			if (!strcmp(s->dbs[i].role, "host") == !pass)
				tmp[n++] = s->dbs[i];
	memcpy(s->dbs, tmp, sizeof(tmp[0]) * (size_t)n);
}

int ntp_session_open(struct ntp_session *s, int n, char *const *paths, int flags, char *err,
		     size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (n < 1)
		return ntp_fail(err, errlen, "no database given");
	if (n > NTP_MAX_DBS)
		return ntp_fail(err, errlen, "%d databases: at most %d at once", n, NTP_MAX_DBS);
	for (int i = 0; i < n; i++)
		if (check_header(paths[i], err, errlen))
			return -1;
	/* 512 MiB of cache for the TEMP tables and sorts of a big join. */
	if (sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI,
			    NULL) != SQLITE_OK || harden(s->db) ||
	    exec(s->db, "PRAGMA cache_size = -524288; PRAGMA temp.cache_size = -524288")) {
		ntp_session_close(s);
		return ntp_fail(err, errlen, "cannot open SQLite");
	}
	for (int i = 0; i < n; i++) {
		s->dbs[i].path = strdup(paths[i]);
		s->ndbs++;
		if (!s->dbs[i].path || attach_one(s, &s->dbs[i], err, errlen))
			goto bad;
	}
	order_by_role(s);
	if (check_set(s, err, errlen) || create_views(s, flags, err, errlen))
		goto bad;
	return 0;
bad:
	ntp_session_close(s);
	return -1;
}

int ntp_session_prepare(struct ntp_session *s, char *err, size_t errlen)
{
	/* Each view is computed once into a TEMP table and the view replaced by
	 * a read of it: the same rows, without redoing the join and the
	 * percentiles for every query. */
	static const char join_cache[] =
		"CREATE TEMP TABLE ntp_offset_cache AS SELECT * FROM ntp_offset;"
		"DROP VIEW ntp_offset;"
		"CREATE TEMP VIEW ntp_offset AS SELECT * FROM ntp_offset_cache;"
		"CREATE TEMP TABLE ntp_grp_pair_cache AS SELECT * FROM ntp_grp_pair;"
		"DROP VIEW ntp_grp_pair;"
		"CREATE TEMP VIEW ntp_grp_pair AS SELECT * FROM ntp_grp_pair_cache;"
		"CREATE TEMP TABLE ntp_joined_cache AS SELECT * FROM ntp_joined;"
		"DROP VIEW ntp_joined;"
		"CREATE TEMP VIEW ntp_joined AS SELECT * FROM ntp_joined_cache;";
	/* without a target there is nothing to join: ntp_joined is empty, and
	 * the offset's sample of the host's commands would be work for nothing */
	static const char cache[] =
		"CREATE TEMP TABLE ntp_report_group_cache AS SELECT * FROM ntp_report_group;"
		"DROP VIEW ntp_report_group;"
		"CREATE TEMP VIEW ntp_report_group AS SELECT * FROM ntp_report_group_cache;"
		"CREATE TEMP TABLE ntp_report_component_cache AS"
		" SELECT * FROM ntp_report_component;"
		"DROP VIEW ntp_report_component;"
		"CREATE TEMP VIEW ntp_report_component AS"
		" SELECT * FROM ntp_report_component_cache;";

	if (s->joined)
		return 0;
	if ((s->ntargets && exec(s->db, join_cache)) || exec(s->db, cache))
		return ntp_fail(err, errlen, "cannot join the recordings: %s", sqlite3_errmsg(s->db));
	s->joined = 1;
	return 0;
}

void ntp_session_close(struct ntp_session *s)
{
	sqlite3_close(s->db);
	for (int i = 0; i < s->ndbs; i++)
		free(s->dbs[i].path);
	memset(s, 0, sizeof(*s));
}
