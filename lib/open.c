// SPDX-License-Identifier: BSD-2-Clause
/*
 * Opening recordings for reports: each file is checked before SQLite reads
 * it (an ntprof database, not truncated, a known schema, exactly ntprof's
 * tables and views, one meta row), attached read-only to an in-memory main
 * database in defensive mode with untrusted schema off, and the TEMP views
 * of sql/prelude.sql, join.sql, report.sql, stats.sql and shell.sql are
 * created over
 * the set. Nothing here writes to a recording. Two files that are one,
 * under two names, are refused; a host and a target recorded at different
 * times are warned of.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ntp_copy.h"
#include "ntp_err.h"
#include "ntp_exec.h"
#include "ntp_remove_on_signal.h"
#include "ntp_schema.h"
#include "ntp_setup.h"
#include "ntp_session.h"


static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Look at FILE's header ourselves: a clear word for a file that is not a
 * database, is truncated, or belongs to another program; messages name it
 * PATH. *ST gets its stat, *WAL whether it was not closed: its header says
 * WAL mode, or a -wal lies beside it. The main file of a database not
 * closed (WAL set) is judged by the rest of its header only in the private
 * copy with the WAL folded in (COPY): before the first checkpoint its
 * header is still the empty database's. */
static int check_file(const char *path, const char *file, int copy, struct stat *out,
		      int *wal, char *err, size_t errlen)
{
	char side[PATH_MAX + 8];
	unsigned char h[100];
	struct stat st, ws;
	uint32_t page, pages;
	ssize_t n;
	int fd;

	/* O_NONBLOCK: a FIFO or a device must not hold the open up */
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
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
	*out = st;
	snprintf(side, sizeof(side), "%s-wal", file);
	/* WAL mode: not closed (yet); a -wal beside it is read by SQLite too */
	*wal = !copy && ((h[18] == 2 && h[19] == 2) || (!lstat(side, &ws) && ws.st_size > 0));
	if (*wal)
		return 0;
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

/* The file as given: its header, and its identity (the same file twice). */
static int check_header(struct ntp_dbinfo *d, char *err, size_t errlen)
{
	struct stat st;

	if (check_file(d->path, d->path, 0, &st, &d->wal, err, errlen))
		return -1;
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	return 0;
}

/* A private copy with its WAL folded in: the whole header, as the WAL left
 * it. */
static int check_copy(const struct ntp_dbinfo *d, char *err, size_t errlen)
{
	struct stat st;
	int wal;

	return check_file(d->path, d->open_path, 1, &st, &wal, err, errlen);
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

	if (ntp_exec(db, "ATTACH ':memory:' AS ref"))
		return -1;
	/* The reference is built in an in-memory database of our own: the
	 * embedded SQL names no schema, so run it with ref as main. */
	{
		sqlite3 *r;
		int rc;

		if (sqlite3_open(":memory:", &r) != SQLITE_OK)
			return -1;
		rc = ntp_schema_apply(r, host) != SQLITE_OK;
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
			ntp_exec(db, "DETACH ref");
			return ntp_fail(err, errlen, "%s: cannot build the reference schema", d->path);
		}
		n[i] = schema_diff(db, schema, &what[i]);
		ntp_exec(db, "DETACH ref");
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

/* meta must agree with the file's schema and say what ntprof writes: the
 * role its schema has, this schema version, a known driver and transport,
 * a sampling rate. */
static int check_meta(const struct ntp_dbinfo *d, const char *role, int64_t version,
		      char *err, size_t errlen)
{
	if (!role || strcmp(role, d->role))
		return ntp_fail(err, errlen, "%s: meta.role is '%s', but it has a %s's schema",
				d->path, role ? role : "", d->role);
	if (version != NTP_SCHEMA_VERSION)
		return ntp_fail(err, errlen, "%s: meta.schema_version is %lld, the file's is %d",
				d->path, (long long)version, NTP_SCHEMA_VERSION);
	if (strcmp(d->driver, "kernel") && strcmp(d->driver, "spdk"))
		return ntp_fail(err, errlen, "%s: meta.driver '%s' is neither kernel nor spdk",
				d->path, d->driver);
	if (strcmp(d->transport, "tcp") && strcmp(d->transport, "rdma"))
		return ntp_fail(err, errlen, "%s: meta.transport '%s' is neither tcp nor rdma",
				d->path, d->transport);
	if (d->sample_rate < 1 || d->sample_rate > 0xffffffffLL)
		return ntp_fail(err, errlen, "%s: meta.sample_rate %lld is not a rate", d->path,
				(long long)d->sample_rate);
	return 0;
}

/* More than any recording counts (records lost, points missing): with
 * these bounds the sums over a session's 256 recordings never overflow. */
#define NTP_MAX_COUNT 1000000000000000LL

/* The first row of SQL (a printf format over the schema S, given N
 * times) as text, "" when every value is sound: values that pass the
 * integrity check and the schema but cannot be, told instead of reported
 * on as fact. */
static int check_values(sqlite3 *db, const struct ntp_dbinfo *d, const char *sql, char *err,
			size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;

	if (!sql || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		rc = ntp_fail(err, errlen, "%s: cannot check its values: %s", d->path,
			      sqlite3_errmsg(db));
	else if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		rc = ntp_fail(err, errlen, "%s: %s: impossible values (refusing a changed "
			      "database)", d->path, sqlite3_column_text(st, 0));
	else if (sqlite3_errcode(db) != SQLITE_OK && sqlite3_errcode(db) != SQLITE_DONE &&
		 sqlite3_errcode(db) != SQLITE_ROW)
		rc = ntp_fail(err, errlen, "%s: cannot check its values: %s", d->path,
			      sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_free((char *)sql);
	return rc;
}

/* A recording: no count below 0 or beyond NTP_MAX_COUNT, no stop before
 * its start. */
static int check_recording_values(sqlite3 *db, const struct ntp_dbinfo *d, char *err,
				  size_t errlen)
{
	return check_values(db, d, sqlite3_mprintf(
		"SELECT coalesce("
		" (SELECT printf('lost.n is %%lld in interval %%lld', n, interval)"
		"  FROM %w.lost WHERE n NOT BETWEEN 0 AND %lld LIMIT 1),"
		" (SELECT printf('gap.n is %%lld in interval %%lld', n, interval)"
		"  FROM %w.gap WHERE n NOT BETWEEN 0 AND %lld LIMIT 1),"
		" (SELECT printf('meta: stopped (mono_stop %%lld) before it started (mono_start "
		"%%lld)', mono_stop, mono_start) FROM %w.meta WHERE mono_stop < mono_start),"
		" (SELECT printf('meta: stopped (wall_stop %%lld) before it started (wall_start "
		"%%lld)', wall_stop, wall_start) FROM %w.meta WHERE wall_stop < wall_start))",
		d->schema, NTP_MAX_COUNT, d->schema, NTP_MAX_COUNT, d->schema, d->schema),
		err, errlen);
}

/* A merged file's tables agree: as many recordings as ntp_merged says,
 * each with the counts ntp_db gives it and the commands its rows hold, no
 * count out of bounds, no negative length. */
static int check_merged_values(sqlite3 *db, const struct ntp_dbinfo *m, char *err,
			       size_t errlen)
{
	return check_values(db, m, sqlite3_mprintf(
		"SELECT coalesce("
		" (SELECT printf('ntp_merged says %%lld recordings, ntp_merged_recording holds "
		"%%lld', recordings, (SELECT count(*) FROM %w.ntp_merged_recording))"
		"  FROM %w.ntp_merged WHERE recordings IS NOT"
		"  (SELECT count(*) FROM %w.ntp_merged_recording)),"
		" (SELECT printf('recording %%s: lost %%lld, records %%lld', db, lost, records)"
		"  FROM %w.ntp_merged_recording WHERE lost NOT BETWEEN 0 AND %lld"
		"  OR records NOT BETWEEN 0 AND %lld LIMIT 1),"
		" (SELECT printf('recording %%s: ntp_merged_recording and ntp_db disagree', r.db)"
		"  FROM %w.ntp_merged_recording AS r LEFT JOIN %w.ntp_db AS d ON d.db = r.db"
		"  WHERE d.db IS NULL OR d.records IS NOT r.records OR d.lost IS NOT r.lost"
		"  OR d.role IS NOT r.role OR d.sample_rate IS NOT r.sample_rate"
		"  OR d.duration_ns < 0 LIMIT 1),"
		" (SELECT printf('ntp_db has %%lld rows, ntp_merged_recording %%lld',"
		"  (SELECT count(*) FROM %w.ntp_db), (SELECT count(*) FROM %w.ntp_merged_recording))"
		"  WHERE (SELECT count(*) FROM %w.ntp_db) IS NOT"
		"  (SELECT count(*) FROM %w.ntp_merged_recording)),"
		" (SELECT printf('recording %%s: %%lld records, but %%lld commands', r.db,"
		"  r.records, n) FROM (SELECT r.db, r.records, CASE r.role WHEN 'host'"
		"  THEN (SELECT count(*) FROM %w.ntp_host_cmd WHERE db = r.db)"
		"  ELSE (SELECT count(*) FROM %w.ntp_target_cmd WHERE db = r.db) END AS n"
		"  FROM %w.ntp_merged_recording AS r) AS r WHERE n IS NOT r.records LIMIT 1))",
		m->schema, m->schema, m->schema, m->schema, NTP_MAX_COUNT, NTP_MAX_COUNT,
		m->schema, m->schema, m->schema, m->schema, m->schema, m->schema, m->schema,
		m->schema, m->schema), err, errlen);
}

/* Read meta (exactly one row) and the record counts into D. */
static int read_meta(sqlite3 *db, struct ntp_dbinfo *d, char *err, size_t errlen)
{
	char *sql = sqlite3_mprintf(
		"SELECT m.role, m.driver, m.transport, m.hostname, m.kernel, m.sample_rate,"
		" (SELECT count(*) FROM %w.meta), r.records, r.lost, m.schema_version,"
		" m.wall_start, m.mono_start"
		" FROM %w.meta AS m, %w.ntp_recording AS r", d->schema, d->schema, d->schema);
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
	copy_col(d->driver, sizeof(d->driver), st, 1);
	copy_col(d->transport, sizeof(d->transport), st, 2);
	copy_col(d->hostname, sizeof(d->hostname), st, 3);
	copy_col(d->kernel, sizeof(d->kernel), st, 4);
	d->sample_rate = sqlite3_column_int64(st, 5);
	d->records = sqlite3_column_int64(st, 7);
	d->lost = sqlite3_column_int64(st, 8);
	d->wall_start = sqlite3_column_int64(st, 10);
	d->mono_start = sqlite3_column_int64(st, 11);
	rc = check_meta(d, (const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 9),
			err, errlen);
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

/* The tables of a merged file (ntp_merge) besides the prelude's. */
static const char *const merged_tables[] = { "ntp_merged", "ntp_merged_recording",
					     "ntp_merged_hook" };

/* Does the file attached as peek say it is a merged file? */
static int is_merged(sqlite3 *db)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM peek.sqlite_schema WHERE type = 'table'"
			       " AND name = 'ntp_merged'", -1, &st, NULL) == SQLITE_OK)
		rc = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return rc;
}

/* Is NAME a table a merged file holds (ntp_prelude_each)? */
static int merged_table_is(void *arg, const char *name, const char *over)
{
	(void)over;
	return !strcmp(name, (const char *)arg);
}

static int is_merged_table(const char *name)
{
	for (size_t i = 0; i < sizeof(merged_tables) / sizeof(merged_tables[0]); i++)
		if (!strcmp(name, merged_tables[i]))
			return 1;
	return ntp_prelude_each(merged_table_is, (void *)name);
}

/* What merged_has_tables looks for, and where. */
struct merged_look {
	sqlite3 *db;
	const char *missing; /* the first prelude view without its table */
};

static int merged_has_table(void *arg, const char *name, const char *over)
{
	struct merged_look *m = arg;
	sqlite3_stmt *st;
	int found = 0;

	(void)over;
	if (sqlite3_prepare_v2(m->db, "SELECT 1 FROM peek.sqlite_schema WHERE type = 'table'"
			       " AND name = ?1", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	if (!found)
		m->missing = name;
	return !found;
}

/* The table NAME of the prelude, as the merged file attached as peek has
 * it, into the database want by CREATE TABLE AS: what ntp_merge writes for
 * its columns, names and affinities only (LIMIT 0: nothing in the file is
 * evaluated). A file without it is left to the name check. */
static int want_table(void *arg, const char *name, const char *over)
{
	sqlite3 *db = arg;
	char *sql;
	int rc;

	(void)over;
	if (sqlite3_table_column_metadata(db, "peek", name, NULL, NULL, NULL, NULL, NULL,
					  NULL) != SQLITE_OK)
		return 0;
	sql = sqlite3_mprintf("CREATE TABLE want.\"%w\" AS SELECT * FROM peek.\"%w\" LIMIT 0",
			      name, name);
	rc = sql ? ntp_exec(db, sql) : -1;
	sqlite3_free(sql);
	return rc;
}

/* The first table of peek whose stored SQL is not the reference's (main:
 * ntp_merged_sql; want: the prelude's tables), as "table NAME"; NULL if
 * none. */
static char *merged_table_diff(sqlite3 *db)
{
	return ntp_query_text(db, "SELECT 'table ' || p.name FROM peek.sqlite_schema AS p"
			  " LEFT JOIN (SELECT name, sql FROM main.sqlite_schema"
			  "  UNION ALL SELECT name, sql FROM want.sqlite_schema) AS r"
			  " ON r.name = p.name WHERE p.type = 'table' AND r.sql IS NOT p.sql"
			  " LIMIT 1");
}

/*
 * A merged file holds tables of ntp_merge's names and its indexes, nothing
 * else: no view or trigger of someone else's runs when it is read. Each
 * table's whole stored SQL is then compared with what ntp_merge writes:
 * ntp_merged_sql for its own tables, CREATE TABLE AS for the prelude's. A
 * generated column, a default, a constraint or a hidden column differs,
 * and is refused before anything of the file is evaluated; a table this
 * ntprof's prelude has and the file lacks (merged by an older ntprof) is
 * named. The columns the views need are checked when the views are built
 * over them.
 */
static int check_merged_schema(sqlite3 *db, struct ntp_dbinfo *d, char *err, size_t errlen)
{
	struct merged_look look = { db, NULL };
	sqlite3_stmt *st;
	char *what;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT type, name FROM peek.sqlite_schema", -1, &st,
			       NULL) != SQLITE_OK)
		return ntp_fail(err, errlen, "%s: cannot read the schema: %s", d->path,
				sqlite3_errmsg(db));
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);

		if (!(!strcmp(type, "table") && is_merged_table(name)) &&
		    !(!strcmp(type, "index") && (!strncmp(name, "ntp_merged_", 11) ||
						 !strncmp(name, "sqlite_autoindex_ntp_merged_", 28))))
			rc = ntp_fail(err, errlen, "%s: not ntprof's merged schema: %s %s differs "
				      "(refusing a changed file)", d->path, type, name);
	}
	sqlite3_finalize(st);
	if (!rc && ntp_prelude_each(merged_has_table, &look))
		rc = ntp_fail(err, errlen, "%s: a merged file without table %s (merged by another "
			      "version of ntprof: merge the recordings again)", d->path,
			      look.missing);
	if (rc)
		return rc;
	if (ntp_exec(db, "ATTACH ':memory:' AS want") ||
	    sqlite3_exec(db, ntp_merged_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    ntp_prelude_each(want_table, db))
		return ntp_fail(err, errlen, "%s: cannot build the reference schema: %s", d->path,
				sqlite3_errmsg(db));
	what = merged_table_diff(db);
	if (what)
		rc = ntp_fail(err, errlen, "%s: not ntprof's merged schema: %s differs (refusing "
			      "a changed file)", d->path, what);
	sqlite3_free(what);
	if (!rc)
		snprintf(d->role, sizeof(d->role), "merged");
	return rc;
}

/* Attach URI as "peek" and learn its role from its schema alone, in a
 * connection of its own: beside the session's recordings, the file and the
 * reference would take two of SQLite's ten attachments, and ten recordings
 * could not be opened. */
static int peek_role(const char *uri, struct ntp_dbinfo *d, char *err, size_t errlen)
{
	char *sql = sqlite3_mprintf("ATTACH %Q AS peek", uri);
	sqlite3 *db = NULL;
	int rc;

	if (!sql || sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI,
				    NULL) != SQLITE_OK || ntp_harden(db)) {
		sqlite3_free(sql);
		sqlite3_close(db);
		return ntp_fail(err, errlen, "%s: cannot open SQLite", d->path);
	}
	if (ntp_exec(db, sql)) {
		ntp_fail(err, errlen, "%s: cannot open: %s", d->path, sqlite3_errmsg(db));
		rc = -1;
	} else if (is_merged(db)) {
		rc = check_merged_schema(db, d, err, errlen);
	} else {
		rc = check_schema(db, "peek", d, err, errlen);
	}
	sqlite3_free(sql);
	sqlite3_close(db);
	return rc;
}

/* SQLite's integrity check of the attached file D: a damaged file is not
 * reported on as if it were whole (NTP_OPEN_NO_CHECK skips it). */
static int check_integrity(sqlite3 *db, const struct ntp_dbinfo *d, char *err, size_t errlen)
{
	char *sql = sqlite3_mprintf("PRAGMA %w.integrity_check(1)", d->schema);
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (!sql || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		ntp_fail(err, errlen, "%s: fails SQLite's integrity check: %s", d->path,
			 sqlite3_errmsg(db));
	else if (strcmp((const char *)sqlite3_column_text(st, 0), "ok"))
		ntp_fail(err, errlen, "%s: fails SQLite's integrity check (%.200s); --no-check "
			 "reads it anyway", d->path, (const char *)sqlite3_column_text(st, 0));
	else
		rc = 0;
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

/* One recording of the merged file M from ntp_merged_recording's row in
 * ST: a session entry of its own, read through M's tables. */
static int merged_recording(struct ntp_session *s, const struct ntp_dbinfo *m,
			    sqlite3_stmt *st, char *err, size_t errlen)
{
	struct ntp_dbinfo *d = &s->dbs[s->ndbs];

	if (s->ndbs == NTP_MAX_RECORDINGS)
		return ntp_fail(err, errlen, "%s: more than %d recordings in one session", m->path,
				NTP_MAX_RECORDINGS);
	memset(d, 0, sizeof(*d));
	s->ndbs++;
	d->path = strdup((const char *)sqlite3_column_text(st, 0));
	copy_col(d->stored, sizeof(d->stored), st, 1);
	copy_col(d->role, sizeof(d->role), st, 2);
	copy_col(d->driver, sizeof(d->driver), st, 3);
	copy_col(d->transport, sizeof(d->transport), st, 4);
	copy_col(d->hostname, sizeof(d->hostname), st, 5);
	copy_col(d->kernel, sizeof(d->kernel), st, 6);
	d->sample_rate = sqlite3_column_int64(st, 7);
	d->records = sqlite3_column_int64(st, 8);
	d->lost = sqlite3_column_int64(st, 9);
	d->wall_start = sqlite3_column_int64(st, 10);
	d->mono_start = sqlite3_column_int64(st, 11);
	d->run = m->run;
	d->run_pos = m->run_pos;
	/* merged, merged2, ...: shorter than from (attach_one) */
	memcpy(d->from, m->schema, sizeof(d->from) - 1);
	/* alone, a merged file's recordings keep their names: its report reads
	 * as the report over the files themselves */
	if (s->prefix_merged) {
		char name[sizeof(d->schema)];

		snprintf(name, sizeof(name), "%s_%s", m->schema, d->stored);
		memcpy(d->schema, name, sizeof(name));
	} else {
		memcpy(d->schema, d->stored, sizeof(d->stored));
	}
	if (!d->path)
		return ntp_fail(err, errlen, "out of memory");
	if (strcmp(d->role, "host") && strcmp(d->role, "target"))
		return ntp_fail(err, errlen, "%s: recording %s has role '%s'", m->path, d->stored,
				d->role);
	if (!strcmp(d->role, "host"))
		s->nhosts++;
	else
		s->ntargets++;
	return check_meta(d, d->role, NTP_SCHEMA_VERSION, err, errlen);
}

/* A merged file's schema version and its recordings, each an entry of the
 * session after M. */
static int read_merged(struct ntp_session *s, struct ntp_dbinfo *m, char *err, size_t errlen)
{
	char *sql = sqlite3_mprintf(
		"SELECT r.path, r.db, r.role, r.driver, r.transport, r.hostname, r.kernel,"
		" r.sample_rate, r.records, r.lost, r.wall_start, r.mono_start,"
		" (SELECT schema_version FROM %w.ntp_merged)"
		" FROM %w.ntp_merged_recording AS r ORDER BY r.ord", m->schema, m->schema);
	sqlite3_stmt *st = NULL;
	int rc = 0, n = 0;

	if (!sql || sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		rc = ntp_fail(err, errlen, "%s: cannot read its recordings: %s", m->path,
			      sqlite3_errmsg(s->db));
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_int64(st, 12) != NTP_SCHEMA_VERSION)
			rc = ntp_fail(err, errlen, "%s: merged from schema version %lld, this "
				      "ntprof reads version %d", m->path,
				      (long long)sqlite3_column_int64(st, 12), NTP_SCHEMA_VERSION);
		else
			rc = merged_recording(s, m, st, err, errlen);
		n++;
	}
	if (!rc && !n)
		rc = ntp_fail(err, errlen, "%s: a merged file without recordings", m->path);
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

static int attach_one(struct ntp_session *s, struct ntp_dbinfo *d, char *err, size_t errlen)
{
	char *uri = ntp_immutable_uri(d->open_path), *sql;
	int rc;

	if (!uri)
		return ntp_fail(err, errlen, "%s: out of memory", d->path);
	if (peek_role(uri, d, err, errlen)) {
		free(uri);
		return -1;
	}
	if (!strcmp(d->role, "host"))
		snprintf(d->schema, sizeof(d->schema), s->nhosts + s->host_base ? "host%d" : "host",
			 s->nhosts + s->host_base + 1);
	else if (!strcmp(d->role, "target"))
		snprintf(d->schema, sizeof(d->schema), s->ntargets ? "target%d" : "target",
			 s->ntargets + 1);
	else
		snprintf(d->schema, sizeof(d->schema), s->nmerged ? "merged%d" : "merged",
			 s->nmerged + 1);
	/* Read with read(2), never mmap: a file truncated while it is read is
	 * an error then, where a mapping's missing page is SIGBUS. */
	sql = sqlite3_mprintf("ATTACH %Q AS %w", uri, d->schema);
	rc = sql ? ntp_exec(s->db, sql) : -1;
	sqlite3_free(sql);
	free(uri);
	if (rc)
		return ntp_fail(err, errlen, "%s: cannot attach: %s", d->path, sqlite3_errmsg(s->db));
	if (!(s->flags & NTP_OPEN_NO_CHECK) && check_integrity(s->db, d, err, errlen))
		return -1;
	if (!strcmp(d->role, "merged")) {
		s->nmerged++;
		return check_merged_values(s->db, d, err, errlen) ||
		       read_merged(s, d, err, errlen) ? -1 : 0;
	}
	if (check_recording_values(s->db, d, err, errlen) || read_meta(s->db, d, err, errlen))
		return -1;
	if (!strcmp(d->role, "host"))
		s->nhosts++;
	else
		s->ntargets++;
	return 0;
}

/* Is run RUN a merged file? */
static int run_is_merged(const struct ntp_session *s, int run)
{
	for (int i = 0; i < s->ndbs; i++)
		if (s->dbs[i].run == run && !strcmp(s->dbs[i].role, "merged"))
			return 1;
	return 0;
}

/* Runs compared side by side: each a host, then perhaps its target, as the
 * command line gave them; -s agrees within a run (runs may differ). */
static int check_runs(const struct ntp_session *s, char *err, size_t errlen)
{
	/* the hosts' places first: a run given the wrong way round is named by
	 * its first file */
	for (int i = 0; i < 2 * s->ndbs; i++) {
		const struct ntp_dbinfo *d = &s->dbs[i % s->ndbs];
		const char *want = d->run_pos ? "target" : "host";

		if (!strcmp(d->role, "merged") && d->run_pos)
			return ntp_fail(err, errlen, "%s: a merged file where run %s's target "
					"should be (a merged file is a run alone)", d->path,
					s->run_label[d->run]);
		if (!d->from[0] && d->run_pos && run_is_merged(s, d->run))
			return ntp_fail(err, errlen, "%s: a file after run %s's merged file (a "
					"merged file is a run alone)", d->path, s->run_label[d->run]);
		if (d->from[0] || !strcmp(d->role, "merged"))
			continue;
		if (d->run_pos == i / s->ndbs && strcmp(d->role, want))
			return ntp_fail(err, errlen, "%s: a %s recording where run %s's %s should be "
					"(a run is HOST.db or HOST.db,TARGET.db)", d->path, d->role,
					s->run_label[d->run], want);
	}
	for (int i = 0; i < s->ndbs; i++) {
		const struct ntp_dbinfo *d = &s->dbs[i];

		if (!strcmp(d->role, "merged"))
			continue;
		if (d->records == 0)
			return ntp_fail(err, errlen, "%s: no commands recorded (empty recording)",
					d->path);
		for (int j = 0; j < s->ndbs; j++)
			if (s->dbs[j].run == d->run && strcmp(s->dbs[j].role, "merged") &&
			    s->dbs[j].sample_rate != d->sample_rate)
				return ntp_fail(err, errlen, "%s: recorded with -s %lld, %s with -s "
						"%lld: both sides sample the same commands only "
						"with the same -s", d->path, (long long)d->sample_rate,
						s->dbs[j].path, (long long)s->dbs[j].sample_rate);
	}
	return 0;
}

/* Entries that are a merged file's recordings, not files. */
static int count_in_merged(const struct ntp_session *s)
{
	int n = 0;

	for (int i = 0; i < s->ndbs; i++)
		n += s->dbs[i].from[0] != 0;
	return n;
}

static const char *merged_path(const struct ntp_session *s)
{
	for (int i = 0; i < s->ndbs; i++)
		if (!strcmp(s->dbs[i].role, "merged"))
			return s->dbs[i].path;
	return "?";
}

/* The set must make sense together: a host, not two hosts without a
 * target, one -s, some records. Roles come from meta, not argument order. */
static int check_set(const struct ntp_session *s, char *err, size_t errlen)
{
	const struct ntp_dbinfo *first = &s->dbs[0];

	/* a report is one run: a merged file is all of it */
	if (s->nruns == 1 && s->nmerged && s->ndbs - count_in_merged(s) > 1)
		return ntp_fail(err, errlen, "%s: a merged file with other files: merge them all "
				"together (ntprof merge), or give it alone", merged_path(s));
	if (s->nruns > 1 && check_runs(s, err, errlen))
		return -1;
	for (int i = 0; i < s->ndbs; i++)
		for (int j = 0; j < i; j++) {
			const struct ntp_dbinfo *a = &s->dbs[j], *b = &s->dbs[i];

			/* by identity, so a symlink or ./x.db is caught too (a merged
			 * file's recordings are no files of their own) */
			if (!a->from[0] && !b->from[0] &&
			    (!strcmp(a->path, b->path) || (a->dev == b->dev && a->ino == b->ino)))
				return ntp_fail(err, errlen, "%s: given twice (as %s too): one file "
						"would be counted twice", b->path, a->path);
			if (strcmp(a->role, "merged") && strcmp(b->role, "merged") &&
			    !strcmp(a->hostname, b->hostname) && a->wall_start == b->wall_start &&
			    a->mono_start == b->mono_start)
				return ntp_fail(err, errlen, "%s and %s: the same recording twice "
						"(copies of one file)", a->path, b->path);
		}
	if (s->nruns > 1)
		return 0;
	if (!s->nhosts)
		return ntp_fail(err, errlen, "%s: a target recording; a report needs the host's "
			    "recording too (sqlite3 reads a target alone)", first->path);
	if (s->nhosts > 1 && !s->ntargets)
		return ntp_fail(err, errlen, "%s, %s: %d host recordings and no target; give one host "
			    "alone, or hosts with their target", s->dbs[0].path, s->dbs[1].path,
			    s->nhosts);
	for (int i = 0; i < s->ndbs; i++) {
		const struct ntp_dbinfo *d = &s->dbs[i];

		if (!strcmp(d->role, "merged"))
			continue;
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

/* Hosts first, then targets: schema names and report order follow roles. */
static void order_by_role(struct ntp_session *s)
{
	struct ntp_dbinfo tmp[NTP_MAX_RECORDINGS];
	int n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < s->ndbs; i++)
			if (!strcmp(s->dbs[i].role, "host") == !pass)
				tmp[n++] = s->dbs[i];
	memcpy(s->dbs, tmp, sizeof(tmp[0]) * (size_t)n);
}

/*
 * A recording that was not closed (its collector killed, its disk full, or
 * still recording): read a private copy of it and its -wal, with the WAL
 * folded in (lib/copy.c), so nothing is written or locked beside the input
 * and the checks see what the WAL changes. Said on stderr unless S is NULL.
 */
static int private_copy(struct ntp_session *s, struct ntp_dbinfo *d, char *err,
			size_t errlen)
{
	int has_wal = 0;
	int rc = ntp_private_copy(d->path, &d->copy_dir, &d->open_path, &has_wal, err, errlen);

	if (s)
		ntp_say(s, "%s was not closed (its collector was killed or is still recording)%s",
		     d->path, has_wal ? ": reading a copy with its -wal" :
		     ", and no -wal is beside it: its last records may be missing");
	return rc ? rc : check_copy(d, err, errlen);
}

/* The file to read for D: its path, or a private copy. */
static int choose_file(struct ntp_session *s, struct ntp_dbinfo *d, char *err,
		       size_t errlen)
{
	if (d->wal)
		return private_copy(s, d, err, errlen);
	d->open_path = strdup(d->path);
	return d->open_path ? 0 : ntp_fail(err, errlen, "out of memory");
}

static void remove_copy(struct ntp_dbinfo *d)
{
	ntp_private_copy_remove(d->copy_dir);
}

const char *ntp_session_path(const struct ntp_session *s, const char *schema)
{
	for (int i = 0; schema && i < s->ndbs; i++)
		if (!strcmp(s->dbs[i].schema, schema))
			return s->dbs[i].path;
	return "?";
}

static const char *path_of(const struct ntp_session *s, const unsigned char *schema)
{
	return ntp_session_path(s, (const char *)schema);
}

/* A host and a target recorded at different times (ntp_window_gap) are
 * still reported on, with a warning: their commands will hardly pair (and
 * the report refuses their join, ntp_join_check). */
static void warn_windows(struct ntp_session *s)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(s->db, "SELECT hdb, tdb, first_db, gap_s FROM ntp_window_gap"
			       " ORDER BY hdb, tdb", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *h = sqlite3_column_text(st, 0), *t = sqlite3_column_text(st, 1);
		int host_first = !strcmp((const char *)sqlite3_column_text(st, 2), (const char *)h);

		ntp_say(s, "warning: %s and %s were not recorded at the same time: %s began %s s "
		     "after %s ended (different runs? few commands will pair)", path_of(s, h),
		     path_of(s, t), path_of(s, host_first ? t : h),
		     (const char *)sqlite3_column_text(st, 3), path_of(s, host_first ? h : t));
	}
	sqlite3_finalize(st);
}

static int open_runs(struct ntp_session *s, int n, char *const *paths, const int *run,
		     char *const *labels, int nruns, int host_base, int flags, char *err,
		     size_t errlen);

int ntp_session_open_batch(struct ntp_session *s, int n, char *const *paths, int host_base,
			   int flags, char *err, size_t errlen)
{
	int run[NTP_MAX_DBS] = { 0 };
	char *label[1] = { n > 0 ? paths[0] : "" };

	return open_runs(s, n, paths, run, label, 1, host_base, flags, err, errlen);
}

int ntp_session_open_runs(struct ntp_session *s, int n, char *const *paths, const int *run,
			  char *const *labels, int nruns, int flags, char *err, size_t errlen)
{
	return open_runs(s, n, paths, run, labels, nruns, 0, flags, err, errlen);
}

static int open_runs(struct ntp_session *s, int n, char *const *paths, const int *run,
		     char *const *labels, int nruns, int host_base, int flags, char *err,
		     size_t errlen)
{
	const char *progress;

	memset(s, 0, sizeof(*s));
	s->flags = flags;
	s->host_base = host_base;
	s->prefix_merged = n > 1;
	if (n < 1)
		return ntp_fail(err, errlen, "no database given");
	if (n > NTP_MAX_DBS)
		return ntp_fail(err, errlen, "%d databases: at most %d at once (ntprof merge "
				"brings more into one file)", n, NTP_MAX_DBS);
	s->nruns = nruns;
	for (int r = 0; r < nruns; r++)
		if (!(s->run_label[r] = strdup(labels[r])))
			return ntp_session_close(s), ntp_fail(err, errlen, "out of memory");
	/* 512 MiB of cache for the TEMP tables and sorts of a big join. */
	if (sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI,
			    NULL) != SQLITE_OK || ntp_harden(s->db) ||
	    ntp_exec(s->db, "PRAGMA cache_size = -524288; PRAGMA temp.cache_size = -524288")) {
		ntp_session_close(s);
		return ntp_fail(err, errlen, "cannot open SQLite");
	}
	progress = ntp_progress_begin(s, "checking the recordings");
	for (int i = 0; i < n; i++) {
		struct ntp_dbinfo *d = &s->dbs[s->ndbs];

		if (s->ndbs == NTP_MAX_RECORDINGS) {
			ntp_fail(err, errlen, "%s: more than %d recordings in one session",
				 paths[i], NTP_MAX_RECORDINGS);
			goto bad;
		}
		d->path = strdup(paths[i]);
		d->run = run[i];
		d->run_pos = i > 0 && run[i - 1] == run[i];
		s->ndbs++;
		if (!d->path)
			goto bad;
		if (check_header(d, err, errlen) || choose_file(s, d, err, errlen) ||
		    attach_one(s, d, err, errlen))
			goto bad;
	}
	order_by_role(s);
	if (check_set(s, err, errlen) || ntp_create_views(s, flags, err, errlen))
		goto bad;
	if (!(flags & NTP_OPEN_MERGING))
		warn_windows(s);
	ntp_progress_end(s, progress);
	return 0;
bad:
	ntp_session_close(s);
	return -1;
}

void ntp_session_close(struct ntp_session *s)
{
	ntp_progress_end(s, NULL);
	sqlite3_close(s->db);
	for (int i = 0; i < s->ndbs; i++) {
		remove_copy(&s->dbs[i]);
		free(s->dbs[i].path);
		free(s->dbs[i].open_path);
		free(s->dbs[i].copy_dir);
	}
	for (int r = 0; r < s->nruns; r++)
		free(s->run_label[r]);
	if (s->tmp_merged)
		ntp_remove_forget(1);
	sqlite3_free(s->tmp_merged);
	free(s->cache_file);
	memset(s, 0, sizeof(*s));
}

int ntp_file_role(const char *path, char *role, dev_t *dev, ino_t *ino, char *err,
		  size_t errlen)
{
	struct ntp_dbinfo d = { .path = (char *)path };
	char *uri = NULL;
	int rc;

	/* a file not closed: its role from the private copy, quietly (the
	 * session that reads it says so) */
	rc = check_header(&d, err, errlen) || choose_file(NULL, &d, err, errlen) ? -1 : 0;
	if (!rc && !(uri = ntp_immutable_uri(d.open_path)))
		rc = ntp_fail(err, errlen, "%s: out of memory", path);
	if (!rc)
		rc = peek_role(uri, &d, err, errlen);
	free(uri);
	remove_copy(&d);
	free(d.open_path);
	free(d.copy_dir);
	snprintf(role, 8, "%s", d.role);
	*dev = d.dev;
	*ino = d.ino;
	return rc;
}
