// SPDX-License-Identifier: BSD-2-Clause
/*
 * Is this file a recording ntprof wrote, unchanged, before anything in it
 * is used? Its header read with read(2) (an SQLite file, not truncated,
 * ntprof's application id and schema version); its schema, read alone in a
 * connection of its own, exactly ntprof's for a host or a target, or a
 * merged file's (ntp_merge) table by table; once attached, SQLite's
 * integrity check and values that cannot be.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ntp_check.h"
#include "ntp_err.h"
#include "ntp_exec.h"
#include "ntp_schema.h"
#include "ntp_sql.h"
#include "ntp_session.h"
#include "ntp_setup.h"

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
int ntp_check_header(struct ntp_dbinfo *d, char *err, size_t errlen)
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
int ntp_check_copy(const struct ntp_dbinfo *d, char *err, size_t errlen)
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
int ntp_check_recording_values(sqlite3 *db, const struct ntp_dbinfo *d, char *err,
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
int ntp_check_merged_values(sqlite3 *db, const struct ntp_dbinfo *m, char *err,
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
 * ntp_sql_merged; want: the prelude's tables), as "table NAME"; NULL if
 * none. */
static char *merged_table_diff(sqlite3 *db)
{
	return ntp_query_text(db, "SELECT 'table ' || p.name FROM peek.sqlite_schema AS p"
			      " LEFT JOIN (SELECT name, sql FROM main.sqlite_schema"
			      "  UNION ALL SELECT name, sql FROM want.sqlite_schema) AS r"
			      " ON r.name = p.name WHERE p.type = 'table' AND r.sql IS NOT p.sql"
			      " LIMIT 1");
}

/* Is SQL, an index's stored text, one of sql/merged_index.sql's
 * statements, whole? SQLite stores a statement from its CREATE to its end,
 * without the semicolon. */
static int is_merged_index(const char *sql)
{
	const char *p = ntp_sql_merged_index;

	while (sql && *p) {
		const char *end;

		while (*p == ' ' || *p == '\n')
			p++;
		if (p[0] == '-' && p[1] == '-') { /* a comment line */
			p = strchr(p, '\n');
			if (!p)
				break;
			continue;
		}
		end = strchr(p, ';');
		if (!end)
			break;
		if ((size_t)(end - p) == strlen(sql) && !strncmp(p, sql, (size_t)(end - p)))
			return 1;
		p = end + 1;
	}
	return 0;
}

/*
 * A merged file holds tables of ntp_merge's names and its indexes, nothing
 * else: no view or trigger of someone else's runs when it is read. Each
 * table's whole stored SQL is then compared with what ntp_merge writes:
 * ntp_sql_merged for its own tables, CREATE TABLE AS for the prelude's. A
 * generated column, a default, a constraint or a hidden column differs,
 * and is refused before anything of the file is evaluated; so is an index
 * that is not one of sql/merged_index.sql's, whole (an expression or a
 * WHERE of an index is evaluated by the integrity check), or SQLite's own
 * for a UNIQUE of those tables; a table this
 * ntprof's prelude has and the file lacks, or one of ntprof's names it does
 * not have (merged by another version), is named. The columns the views need are checked when the views are built
 * over them.
 */
static int check_merged_schema(sqlite3 *db, struct ntp_dbinfo *d, char *err, size_t errlen)
{
	struct merged_look look = { db, NULL };
	sqlite3_stmt *st;
	char *what;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT type, name, sql FROM peek.sqlite_schema", -1, &st,
			       NULL) != SQLITE_OK)
		return ntp_fail(err, errlen, "%s: cannot read the schema: %s", d->path,
				sqlite3_errmsg(db));
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *sql = (const char *)sqlite3_column_text(st, 2);

		if (!strcmp(type, "table") && !is_merged_table(name) &&
		    (!strncmp(name, "ntp_", 4) || !strncmp(name, "_ntp_", 5)))
			/* a table of ntprof's names that this prelude does not have:
			 * an older ntprof's, refused all the same */
			rc = ntp_fail(err, errlen, "%s: a merged file with table %s, which this "
				      "ntprof does not write (merged by another version of "
				      "ntprof: merge the recordings again)", d->path, name);
		else if (!(!strcmp(type, "table") && is_merged_table(name)) &&
			 !(!strcmp(type, "index") &&
			   (is_merged_index(sql) ||
			    (!sql && !strncmp(name, "sqlite_autoindex_ntp_merged_", 28)))))
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
	    sqlite3_exec(db, ntp_sql_merged, NULL, NULL, NULL) != SQLITE_OK ||
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
int ntp_peek_role(const char *uri, struct ntp_dbinfo *d, char *err, size_t errlen)
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

/* SQLite's integrity check of the file attached to DB as SCHEMA, named PATH
 * in messages. */
static int integrity(sqlite3 *db, const char *schema, const char *path, char *err,
		     size_t errlen)
{
	char *sql = sqlite3_mprintf("PRAGMA %w.integrity_check(1)", schema);
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (!sql || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		ntp_fail(err, errlen, "%s: fails SQLite's integrity check: %s", path,
			 sqlite3_errmsg(db));
	else if (strcmp((const char *)sqlite3_column_text(st, 0), "ok"))
		ntp_fail(err, errlen, "%s: fails SQLite's integrity check (%.200s); --no-check "
			 "reads it anyway", path, (const char *)sqlite3_column_text(st, 0));
	else
		rc = 0;
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

/* A damaged file is not reported on as if it were whole (NTP_OPEN_NO_CHECK
 * skips the check). */
int ntp_check_integrity(sqlite3 *db, const struct ntp_dbinfo *d, char *err, size_t errlen)
{
	return integrity(db, d->schema, d->path, err, errlen);
}

/* One file's check in a thread of its own. */
struct ntp_check_job {
	pthread_t thread;
	char *uri, *path;       /* the file, and its name in messages */
	char *path_open;        /* the file's name (d->open_path) */
	char schema[24];        /* attached as, so messages read as the session's */
	struct stat before;     /* the file's identity when the session attached it */
	sqlite3 *session;       /* the session's connection: its work is in vain
				 * once the check fails */
	int joined;             /* the thread joined */
	int opened;             /* 0: its connection could not be made, or found
				 * another file than the session's */
	int rc;                 /* the check's verdict, when opened */
	char err[NTP_ERR_MAX];  /* why not, when rc */
};

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static void *check_main(void *arg)
{
	struct ntp_check_job *j = arg;
	char *sql = sqlite3_mprintf("ATTACH %Q AS %w", j->uri, j->schema);
	sqlite3 *db = NULL;
	struct stat now;

	/* the file attached as the session attaches it: read-only, immutable,
	 * read(2) and no mapping, defensive */
	j->opened = sql && sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE |
					   SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
					   NULL) == SQLITE_OK && !ntp_harden(db) &&
		    !ntp_exec(db, sql);
	/* the file the session opened, still: its name not given to another
	 * since (else the session's connection checks its own, at the end) */
	if (j->opened)
		j->opened = !stat(j->path_open, &now) && same_file(&now, &j->before);
	if (j->opened) {
		j->rc = integrity(db, j->schema, j->path, j->err, sizeof(j->err));
		/* what the session prepares of a damaged file is thrown away:
		 * stop it (safe from another thread; the session joins this
		 * one before it closes its connection) */
		if (j->rc)
			sqlite3_interrupt(j->session);
	}
	sqlite3_close(db);
	sqlite3_free(sql);
	return NULL;
}

static void job_free(struct ntp_check_job *j)
{
	free(j->uri);
	free(j->path);
	free(j->path_open);
	free(j);
}

struct ntp_check_job *ntp_check_integrity_begin(sqlite3 *session, const char *uri,
						const struct ntp_dbinfo *d,
						const struct stat *before)
{
	struct ntp_check_job *j = calloc(1, sizeof(*j));
	sigset_t all, old;
	int rc;

	if (!j || !(j->uri = strdup(uri)) || !(j->path = strdup(d->path)) ||
	    !(j->path_open = strdup(d->open_path))) {
		if (j)
			job_free(j);
		return NULL;
	}
	snprintf(j->schema, sizeof(j->schema), "%s", d->schema);
	j->before = *before;
	j->session = session;
	/* signals are the main thread's: its handlers remove what it made */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&j->thread, NULL, check_main, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		job_free(j);
		return NULL;
	}
	return j;
}

int ntp_check_integrity_wait(struct ntp_check_job *j, double seconds)
{
	struct timespec until;

	if (j->joined)
		return 1;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)seconds;
	until.tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	j->joined = !pthread_timedjoin_np(j->thread, NULL, &until);
	return j->joined;
}

int ntp_check_integrity_end(struct ntp_check_job *j, sqlite3 *db, const struct ntp_dbinfo *d,
			    char *err, size_t errlen)
{
	int rc;

	if (!j->joined)
		pthread_join(j->thread, NULL);
	/* no connection of its own: the check as it would have been */
	if (!j->opened)
		rc = db ? ntp_check_integrity(db, d, err, errlen) : -1;
	else if ((rc = j->rc))
		ntp_fail(err, errlen, "%s", j->err);
	job_free(j);
	return rc;
}
