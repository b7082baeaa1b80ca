// SPDX-License-Identifier: BSD-2-Clause
/*
 * The cache of prepared runs (docs/performance.md, "How a run is prepared").
 *
 * A session's prepared tables (sql/cache.sql, _ntp_cache_table: the
 * clock offset, the join, the report's groups and statistics) are written
 * to DIR/NAME.db (straight into it: ntp_cache_begin), NAME being a hash of the key: every recording's identity
 * (device, inode, size, mtime, ctime, a hash of its first page), ntprof's
 * version and SQL, and what else changes the tables (the form, the runs
 * and the names the recordings are attached as). DIR/NAME.mac holds an
 * HMAC-SHA256 of the key and the file's bytes under DIR/key, a secret of
 * 32 random bytes only its owner reads. A later session with the same key
 * reads the tables from there, after checking, in this order: the
 * directory and the files are the user's and private; the MAC; the file
 * attached is the one checked; it holds exactly the tables expected, with
 * the views' columns, and the key. Anything else is a miss, and a file
 * that fails a check is removed (and said so): the run is prepared again.
 * The recordings are never written; nothing here fails a session.
 *
 * Hashing the whole file is most of what reading a prepared run costs, so
 * a file whose MAC matched is noted (DIR/NAME.seen: an HMAC of the key,
 * the MAC and the file's identity, device, inode, size, mtime and ctime),
 * and while the file keeps that identity it is not hashed again. A write
 * to the file, or a replacement, changes its ctime, which no one but root
 * (setting the clock) can set back; a file is noted only once its ctime
 * is NOTE_QUIET_S old, so that a write in the same clock tick as the check
 * cannot keep it. A read touches NAME.mac, not the file, for the cap's
 * "least recently used": touching the file would change its ctime.
 *
 * The directory also remembers which recordings SQLite's integrity check
 * found whole (DIR/NAME.ok, below), so that a file is checked once while it
 * is unchanged.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "ntp_remove_on_signal.h"
#include "ntp_schema.h"
#include "ntp_exec.h"
#include "ntp_sql.h"
#include "ntp_version.h"
#include "sha256.h"

/* The cache file's schema name while it is read, and while it is written. */
#define CACHE_DB "_ntp_cache"
#define CACHE_NEW "_ntp_cache_new"
/* NAME: this many hex digits of the key's hash */
#define NAME_HEX 32
/* Default cap on the cache directory's files, MiB (NTPROF_CACHE_MAX). */
#define CAP_MIB 4096
/* A temporary file older than this (s) was left by a killed process. */
#define STALE_S 86400
/* A note that a file was found whole is kept this long (s). */
#define MEMO_S (30 * 86400)
/* A cache file whose MAC matched is noted once its ctime is this old (s). */
#define NOTE_QUIET_S 2

/* Is the session one whose prepared tables are kept? Not with --no-cache,
 * not over a temporary merged file or a private copy of a recording not
 * closed (both new files each time). A batch of a merge is when SQLite can
 * attach the cache file beside its recordings and the merged file (a full
 * batch cannot): its key holds its first host's number (host_base), and a
 * merge of one batch is the report's session of the same files, whose
 * prepared run it reads. */
int ntp_cache_usable(const struct ntp_session *s)
{
	if (s->flags & NTP_OPEN_NO_CACHE || s->tmp_merged)
		return 0;
	if (s->flags & NTP_OPEN_MERGING && s->ndbs + 2 > NTP_MAX_DBS)
		return 0;
	for (int i = 0; i < s->ndbs; i++)
		if (s->dbs[i].copy_dir)
			return 0;
	return 1;
}

/* The cache directory: $NTPROF_CACHE_DIR, else $XDG_CACHE_HOME/ntprof,
 * else ~/.cache/ntprof. 0, or -1 when there is no home to put it in. */
static int cache_dir(char *out, size_t n)
{
	const char *v = getenv("NTPROF_CACHE_DIR"), *home = getenv("HOME");
	struct passwd *pw;
	int len;

	if (v && *v)
		len = snprintf(out, n, "%s", v);
	else if ((v = getenv("XDG_CACHE_HOME")) && *v == '/')
		len = snprintf(out, n, "%s/ntprof", v);
	else if (home && *home == '/')
		len = snprintf(out, n, "%s/.cache/ntprof", home);
	else if ((pw = getpwuid(geteuid())) && pw->pw_dir && *pw->pw_dir == '/')
		len = snprintf(out, n, "%s/.cache/ntprof", pw->pw_dir);
	else
		return -1;
	return len > 0 && (size_t)len < n ? 0 : -1;
}

/* Make DIR and its missing parents, each 0700. */
static void make_dirs(const char *dir)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", dir);
	for (char *c = p + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = 0;
		mkdir(p, 0700);
		*c = '/';
	}
	mkdir(p, 0700);
}

/* The same file, unchanged: A and B, two stats of it, agree on its
 * identity, size and times. */
static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Is ST the user's own, and no one else's to read or write? */
static int private(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & 077);
}

/* The cache directory opened, if it is a directory of the user's that no
 * one else may read or write (said once, then not used); CREATE makes it.
 * The descriptor, or -1. */
static int open_dir(struct ntp_session *s, char *dir, size_t n, int create)
{
	static int told;
	struct stat st;
	int fd;

	if (cache_dir(dir, n))
		return -1;
	if (create)
		make_dirs(dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !private(&st)) {
		if (!told++)
			ntp_say(s, "warning: cache directory %s is not private (owner uid %u, mode %04o): "
			    "prepared runs are not kept there (chmod 700 it, or set NTPROF_CACHE_DIR)",
			    dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		close(fd);
		return -1;
	}
	return fd;
}

/* Read the secret (DIR/key, 32 bytes, the user's, mode 0600) into KEY;
 * with CREATE, make it first if it is missing: written aside, then linked
 * in, so that no process reads a half-written key. 0 or -1. */
static int read_secret(int dfd, const char *dir, unsigned char key[32], int create)
{
	struct stat st;
	int fd, rc = -1;

	fd = openat(dfd, "key", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		char tmp[PATH_MAX + 16], to[PATH_MAX + 8];
		unsigned char k[32];
		int w;

		snprintf(tmp, sizeof(tmp), "%s/tmp-XXXXXX", dir);
		snprintf(to, sizeof(to), "%s/key", dir);
		w = mkstemp(tmp);
		if (w < 0)
			return -1;
		if (getrandom(k, sizeof(k), 0) == (ssize_t)sizeof(k) &&
		    write(w, k, sizeof(k)) == (ssize_t)sizeof(k) && !fchmod(w, 0600))
			link(tmp, to); /* EEXIST: another process's key, read below */
		close(w);
		unlink(tmp);
		fd = openat(dfd, "key", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && private(&st) && st.st_size == 32 &&
	    read(fd, key, 32) == 32)
		rc = 0;
	close(fd);
	return rc;
}

/* The SQL the prepared tables are computed by: part of the key. */
static void hash_sql(struct ntp_sha256 *c)
{
	const char *const sql[] = { ntp_sql_schema, ntp_sql_vocab, ntp_sql_host, ntp_sql_host_views,
				    ntp_sql_target, ntp_sql_target_views, ntp_sql_views,
				    ntp_sql_prelude, ntp_sql_join, ntp_sql_report, ntp_sql_stats,
				    ntp_sql_native, ntp_sql_shell, ntp_sql_compare, ntp_sql_plot,
				    ntp_sql_cache };

	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]); i++)
		ntp_sha256_update(c, sql[i], strlen(sql[i]) + 1);
}

/* File ST's identity into Q: device, inode, size, mtime and ctime (ns;
 * ctime cannot be set back as mtime can). */
static void stat_identity(sqlite3_str *q, const struct stat *st)
{
	sqlite3_str_appendf(q, " dev %llu ino %llu size %lld mtime %lld.%09ld ctime %lld.%09ld",
			    (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
			    (long long)st->st_size, (long long)st->st_mtim.tv_sec,
			    st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

/* A recording's identity into Q: stat_identity's, and a hash of its first page
 * (the SQLite header with its change counter, and the schema). -1 if it
 * cannot be read. */
static int file_identity(sqlite3_str *q, const char *path)
{
	unsigned char page[65536], h[NTP_SHA256_LEN];
	char hex[2 * NTP_SHA256_LEN + 1];
	struct ntp_sha256 c;
	struct stat st;
	ssize_t n;
	size_t size;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	n = fstat(fd, &st) || !S_ISREG(st.st_mode) ? -1 : pread(fd, page, 100, 0);
	if (n == 100) {
		size = (size_t)page[16] << 8 | page[17];
		size = size == 1 ? 65536 : size < 512 ? 512 : size;
		n = pread(fd, page, size, 0);
	}
	close(fd);
	if (n < 100)
		return -1;
	ntp_sha256_init(&c);
	ntp_sha256_update(&c, page, (size_t)n);
	ntp_sha256_final(&c, h);
	ntp_hex(hex, h, sizeof(h));
	stat_identity(q, &st);
	sqlite3_str_appendf(q, " page %s", hex);
	return 0;
}

/* A recording as a key names it: the file, the schema it is attached as,
 * its run and its place there. */
struct key_db {
	const struct ntp_dbinfo *d;
	const char *schema;
	int run, run_pos;
};

/* The key of a session of NRUNS runs (PREFIX_MERGED as the session's) over
 * the N recordings K: everything the prepared tables depend on, as text.
 * S gives the rest (its labels when NRUNS > 1, its thresholds, its form).
 * NULL if a recording cannot be read. */
static char *key_of(const struct ntp_session *s, int nruns, int prefix_merged,
		    const struct key_db *k, int n)
{
	sqlite3_str *q = sqlite3_str_new(NULL);
	unsigned char h[NTP_SHA256_LEN];
	char hex[2 * NTP_SHA256_LEN + 1];
	struct ntp_sha256 c;
	int rc = 0;

	ntp_sha256_init(&c);
	hash_sql(&c);
	ntp_sha256_final(&c, h);
	ntp_hex(hex, h, sizeof(h));
	sqlite3_str_appendf(q, "ntprof %s prepared run\nschema %d\nsql %s\nform %s\n"
			    "runs %d host_base %d prefix_merged %d\n", NTP_VERSION,
			    NTP_SCHEMA_VERSION, hex, s->native ? "native" : "portable", nruns,
			    s->host_base, prefix_merged);
	/* the labels name the runs of a comparison, whose statistics are
	 * prepared only then (ntp_compare_stage); one run's prepared tables
	 * never read its label, so the report, the shell and plot, which
	 * label it differently, share them */
	for (int r = 0; nruns > 1 && r < nruns; r++)
		sqlite3_str_appendf(q, "run %d %Q\n", r, s->run_label[r]);
	/* the thresholds the join check and the groups' warnings are decided by
	 * (ntprof report --min-match, --max-lost): the prepared verdicts are
	 * theirs */
	{
		sqlite3_stmt *st;

		if (sqlite3_prepare_v2(s->db, "SELECT * FROM ntp_report_threshold", -1, &st,
				       NULL) != SQLITE_OK) {
			sqlite3_free(sqlite3_str_finish(q));
			return NULL;
		}
		while (sqlite3_step(st) == SQLITE_ROW)
			for (int i = 0; i < sqlite3_column_count(st); i++)
				sqlite3_str_appendf(q, "threshold %s %s\n",
						    sqlite3_column_name(st, i),
						    (const char *)sqlite3_column_text(st, i));
		sqlite3_finalize(st);
	}
	for (int i = 0; !rc && i < n; i++) {
		const struct ntp_dbinfo *d = k[i].d;

		sqlite3_str_appendf(q, "db %d %s %s from %Q stored %Q run %d %d", i, k[i].schema,
				    d->role, d->from, d->stored, k[i].run, k[i].run_pos);
		/* a merged file's recordings are rows of that file, named above */
		if (!d->from[0])
			rc = file_identity(q, d->open_path);
		sqlite3_str_appendchar(q, 1, '\n');
	}
	if (rc) {
		sqlite3_free(sqlite3_str_finish(q));
		return NULL;
	}
	return sqlite3_str_finish(q);
}

/* The session's key. */
static char *make_key(const struct ntp_session *s)
{
	struct key_db k[NTP_MAX_RECORDINGS];

	for (int i = 0; i < s->ndbs; i++)
		k[i] = (struct key_db){ &s->dbs[i], s->dbs[i].schema, s->dbs[i].run,
					s->dbs[i].run_pos };
	return key_of(s, s->nruns, s->prefix_merged, k, s->ndbs);
}

/* NAME: the first NAME_HEX hex digits of the key's hash. */
static void key_name(const char *key, char name[NAME_HEX + 1])
{
	unsigned char h[NTP_SHA256_LEN];
	char hex[2 * NTP_SHA256_LEN + 1];
	struct ntp_sha256 c;

	ntp_sha256_init(&c);
	ntp_sha256_update(&c, key, strlen(key));
	ntp_sha256_final(&c, h);
	ntp_hex(hex, h, sizeof(h));
	memcpy(name, hex, NAME_HEX);
	name[NAME_HEX] = 0;
}

/* HEX gets the MAC of the cache file FD under the secret: over a label,
 * the key and the file's bytes. 0 or -1. */
static int mac_file(int fd, const unsigned char secret[32], const char *key,
		    char hex[2 * NTP_SHA256_LEN + 1])
{
	static const char label[] = "ntprof prepared run v1";
	unsigned char m[NTP_SHA256_LEN];
	struct ntp_hmac h;
	size_t bufsz = 1 << 20;
	char *buf = malloc(bufsz);
	off_t off = 0;
	ssize_t n;

	if (!buf)
		return -1;
	ntp_hmac_init(&h, secret, 32);
	ntp_hmac_update(&h, label, sizeof(label));
	ntp_hmac_update(&h, key, strlen(key) + 1);
	while ((n = pread(fd, buf, bufsz, off)) > 0) {
		ntp_hmac_update(&h, buf, (size_t)n);
		off += n;
	}
	free(buf);
	if (n < 0)
		return -1;
	ntp_hmac_final(&h, m);
	ntp_hex(hex, m, sizeof(m));
	return 0;
}

static int exec(sqlite3 *db, const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

void ntp_session_authorizer(struct ntp_session *s, ntp_authorizer fn, void *arg)
{
	s->auth = fn;
	s->auth_arg = arg;
	sqlite3_set_authorizer(s->db, fn, arg);
}

/* SQL of the library's own, which attaches and detaches the cache file: the
 * user's authorizer lifted while it runs. */
static int exec_own(struct ntp_session *s, const char *sql)
{
	int rc;

	sqlite3_set_authorizer(s->db, NULL, NULL);
	rc = exec(s->db, sql);
	sqlite3_set_authorizer(s->db, s->auth, s->auth_arg);
	return rc;
}

/* The session's prepared tables (sql/cache.sql), one statement stepping
 * through name, tbl, idx, idx_cols, more; NULL on an error. */
static sqlite3_stmt *cache_tables(sqlite3 *db)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT name, tbl, idx, idx_cols, more FROM _ntp_cache_table"
			       " ORDER BY ord", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	return st;
}

/* The column names of TABLE in SCHEMA, comma-separated (sqlite3_free). */
static char *columns(sqlite3 *db, const char *schema, const char *table)
{
	sqlite3_str *q = sqlite3_str_new(NULL);
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1, ?2) ORDER BY cid", -1,
			       &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW)
			sqlite3_str_appendf(q, "%s,", sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	return sqlite3_str_finish(q);
}

int ntp_cache_disk_error(int code)
{
	code &= 0xff;
	return code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_CANTOPEN;
}

/* A failure of this process's room, not of a file it reads. */
static int local_error(int code)
{
	return ntp_cache_disk_error(code) || (code & 0xff) == SQLITE_NOMEM;
}

/* What the attached file SCHEMA holds, against _ntp_cache_table: in
 * OUT[0] its objects, in OUT[1] those that are its tables, _ntp_cache_meta
 * or an index as _ntp_cache_table lists it, in OUT[2] its tables, in
 * OUT[3] 1 if _ntp_cache_meta is one row of key KEY. 0, or -1 (not read). */
static int cache_objects(sqlite3 *db, const char *schema, const char *key, int out[4])
{
	char *sql = sqlite3_mprintf(
		"SELECT (SELECT count(*) FROM \"%w\".sqlite_schema),"
		" (SELECT count(*) FROM \"%w\".sqlite_schema WHERE type = 'table'"
		"  AND (name = '_ntp_cache_meta' OR name IN (SELECT tbl FROM _ntp_cache_table)))"
		" + (SELECT count(*) FROM \"%w\".sqlite_schema AS s"
		"  JOIN _ntp_cache_table AS c ON c.idx = s.name"
		"  WHERE s.type = 'index' AND s.tbl_name = c.tbl AND s.sql = c.idx_sql),"
		" (SELECT count(*) FROM \"%w\".sqlite_schema WHERE type = 'table'),"
		" (SELECT count(*) = 1 AND max(key) = ?1 FROM \"%w\"._ntp_cache_meta)",
		schema, schema, schema, schema, schema);
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			for (int i = 0; i < 4; i++)
				out[i] = sqlite3_column_int(st, i);
			rc = 0;
		}
	}
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

/* Check the attached cache file against this session (each cached view's
 * columns, exactly its tables and the key's row, that key) and redefine
 * each view as a read of its table, in the plan's order: a view's columns
 * are read once the views under it read their tables, so that SQLite
 * never expands the whole unprepared tree of views above the join (which
 * takes seconds). The tables prepared only for the sessions that want
 * them (_ntp_cache_table's more) may all be missing, and *MISSING then
 * says so; some of them missing is refused. Inside the savepoint
 * ntp_cache, released on success and rolled back otherwise. 0, or -1 with
 * *WHY set, and *LOCAL when it is this process that cannot read it (no
 * room or memory for its TEMP views), not the file that is wrong: *WHY is
 * then SQLite's reason, in MSG (MSGLEN bytes). */
static int check_cache(sqlite3 *db, const char *key, const char **why, int *missing,
		       int *local, char *msg, size_t msglen)
{
	sqlite3_stmt *st;
	int ntables = 0, nindexes = 0, nmore = 0, nlack = 0, ok, obj[4];

	*why = "it does not hold the prepared tables";
	if (exec(db, "SAVEPOINT ntp_cache"))
		return -1;
	st = cache_tables(db);
	ok = st != NULL;
	while (ok && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *tbl = (const char *)sqlite3_column_text(st, 1);
		char *want = columns(db, "temp", name), *have = columns(db, CACHE_DB, tbl);
		char *sql = NULL;

		if (sqlite3_column_int(st, 4) && (!have || !*have)) {
			/* not prepared for the session that kept it: its view stays */
			nlack++;
			sqlite3_free(want);
			sqlite3_free(have);
			continue;
		}
		nmore += sqlite3_column_int(st, 4);
		ok = want && have && *want && !strcmp(want, have);
		if (ok) {
			sql = sqlite3_mprintf("DROP VIEW temp.\"%w\";\nCREATE TEMP VIEW \"%w\" AS "
					      "SELECT * FROM " CACHE_DB ".\"%w\";", name, name, tbl);
			ok = sql && !exec(db, sql);
			if (!ok && (!sql || local_error(sqlite3_extended_errcode(db)))) {
				snprintf(msg, msglen, "%s", sql ? sqlite3_errmsg(db) :
					 "out of memory");
				*why = msg;
				*local = 1;
			} else if (!ok) {
				*why = "its tables cannot be read";
			}
		}
		sqlite3_free(sql);
		sqlite3_free(want);
		sqlite3_free(have);
		ntables++;
		nindexes += sqlite3_column_type(st, 2) != SQLITE_NULL;
	}
	sqlite3_finalize(st);
	if (ok && nlack && nmore) {
		*why = "it holds some of the tables prepared on demand, not all";
		ok = 0;
	}
	*missing = nlack > 0;
	/* nothing else: its tables, and each index as _ntp_cache_table says */
	if (ok && !cache_objects(db, CACHE_DB, key, obj)) {
		ok = obj[0] == ntables + nindexes + 1 && obj[1] == obj[0];
		if (ok && !obj[3]) {
			*why = "its key is another run's";
			ok = 0;
		}
	} else {
		ok = 0;
	}
	if (!ok) {
		exec(db, "ROLLBACK TO ntp_cache; RELEASE ntp_cache;");
		return -1;
	}
	return exec(db, "RELEASE ntp_cache") ? -1 : 0;
}

/* file: URI for reading PATH read-only; IMMUTABLE: nothing written or
 * locked beside it either (a file that cannot change while it is read). */
static char *read_uri(const char *path, int immutable)
{
	sqlite3_str *q = sqlite3_str_new(NULL);

	sqlite3_str_appendall(q, "file:");
	for (; *path; path++)
		if (*path == '%' || *path == '?' || *path == '#')
			sqlite3_str_appendf(q, "%%%02X", (unsigned char)*path);
		else
			sqlite3_str_appendchar(q, 1, *path);
	sqlite3_str_appendall(q, immutable ? "?mode=ro&immutable=1" : "?mode=ro");
	return sqlite3_str_finish(q);
}

/* Remove the cache entry NAME (its file and its MAC). */
static void remove_entry(int dfd, const char *name)
{
	char f[NAME_HEX + 8];

	snprintf(f, sizeof(f), "%s.db", name);
	unlinkat(dfd, f, 0);
	snprintf(f, sizeof(f), "%s.mac", name);
	unlinkat(dfd, f, 0);
	snprintf(f, sizeof(f), "%s.seen", name);
	unlinkat(dfd, f, 0);
}

/* Read the MAC file NAME.mac: 64 hex digits. 0 or -1. */
static int read_mac(int dfd, const char *name, const char *suffix,
		    char hex[2 * NTP_SHA256_LEN + 1])
{
	char f[NAME_HEX + 8];
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(f, sizeof(f), "%s%s", name, suffix);
	fd = openat(dfd, f, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = fstat(fd, &st) || !S_ISREG(st.st_mode) || !private(&st) ? -1 :
		read(fd, hex, 2 * NTP_SHA256_LEN);
	close(fd);
	hex[n == 2 * NTP_SHA256_LEN ? n : 0] = 0;
	return n == 2 * NTP_SHA256_LEN ? 0 : -1;
}

/* Equal, in time that does not depend on where they differ. */
static int same_mac(const char *a, const char *b)
{
	unsigned char d = 0;

	for (int i = 0; i < 2 * NTP_SHA256_LEN; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

/* DIR/NAMESUFFIX holds HEX (a MAC, 64 hex digits), private: written aside
 * and renamed in, so a reader sees the whole note or none. */
static void write_note(const char *dir, const char *name, const char *suffix, const char *hex)
{
	char tmp[PATH_MAX + 16], to[PATH_MAX + NAME_HEX + 8];
	int fd, w;

	snprintf(tmp, sizeof(tmp), "%s/tmp-XXXXXX", dir);
	snprintf(to, sizeof(to), "%s/%s%s", dir, name, suffix);
	fd = mkstemp(tmp);
	if (fd < 0)
		return;
	w = write(fd, hex, 2 * NTP_SHA256_LEN) == 2 * NTP_SHA256_LEN && !fchmod(fd, 0600);
	close(fd);
	if (!w || rename(tmp, to))
		unlink(tmp);
}

/*
 * Recordings SQLite's integrity check found whole, remembered in the cache
 * directory: DIR/NAME.ok holds the MAC, under the secret, of a label and
 * the file's identity (file_identity: device, inode, size, mtime, ctime and
 * a hash of its first page), NAME a hash of the same. Any write to the
 * file, or a chmod, changes its ctime, and with it the identity: the file
 * is checked again. A note the secret did not make is not believed.
 */
static char *checked_identity(const char *path)
{
	sqlite3_str *q = sqlite3_str_new(NULL);

	sqlite3_str_appendall(q, "ntprof integrity-checked v1\n");
	if (file_identity(q, path)) {
		sqlite3_free(sqlite3_str_finish(q));
		return NULL;
	}
	return sqlite3_str_finish(q);
}

static void checked_mac(const unsigned char secret[32], const char *id,
			char hex[2 * NTP_SHA256_LEN + 1])
{
	unsigned char m[NTP_SHA256_LEN];
	struct ntp_hmac h;

	ntp_hmac_init(&h, secret, 32);
	ntp_hmac_update(&h, id, strlen(id) + 1);
	ntp_hmac_final(&h, m);
	ntp_hex(hex, m, sizeof(m));
}

static int memo_usable(const struct ntp_session *s, const struct ntp_dbinfo *d)
{
	/* a private copy is a new file each time: nothing to remember */
	return !(s->flags & NTP_OPEN_NO_CACHE) && !strcmp(d->open_path, d->path);
}

int ntp_cache_needs_check(struct ntp_session *s, const struct ntp_dbinfo *d, char **id)
{
	char dir[PATH_MAX], name[NAME_HEX + 1], want[2 * NTP_SHA256_LEN + 1];
	char got[2 * NTP_SHA256_LEN + 1];
	unsigned char secret[32];
	int dfd, ok;

	*id = NULL;
	if (!memo_usable(s, d) || !(*id = checked_identity(d->open_path)))
		return 1;
	dfd = open_dir(s, dir, sizeof(dir), 0);
	if (dfd < 0)
		return 1;
	key_name(*id, name);
	ok = !read_secret(dfd, dir, secret, 0) && !read_mac(dfd, name, ".ok", got);
	if (ok)
		checked_mac(secret, *id, want);
	close(dfd);
	if (ok && same_mac(got, want)) {
		sqlite3_free(*id);
		*id = NULL;
		return 0;
	}
	return 1;
}

void ntp_cache_mark_checked(struct ntp_session *s, const struct ntp_dbinfo *d, char *id)
{
	char dir[PATH_MAX], name[NAME_HEX + 1], hex[2 * NTP_SHA256_LEN + 1];
	unsigned char secret[32];
	char *now;
	int dfd;

	if (!id)
		return;
	/* the file as it was before the check, still: else it changed while
	 * it was checked, and is not remembered */
	now = memo_usable(s, d) ? checked_identity(d->open_path) : NULL;
	if (!now || strcmp(now, id) || (dfd = open_dir(s, dir, sizeof(dir), 1)) < 0) {
		sqlite3_free(now);
		sqlite3_free(id);
		return;
	}
	sqlite3_free(now);
	if (!read_secret(dfd, dir, secret, 1)) {
		key_name(id, name);
		checked_mac(secret, id, hex);
		write_note(dir, name, ".ok", hex);
	}
	close(dfd);
	sqlite3_free(id);
}

/* The note that cache file ST, under KEY, had the MAC MAC: an HMAC of
 * them all under the secret, in hex. */
static void seen_mac(const unsigned char secret[32], const char *key, const char *mac,
		     const struct stat *st, char hex[2 * NTP_SHA256_LEN + 1])
{
	sqlite3_str *q = sqlite3_str_new(NULL);
	char *id;

	sqlite3_str_appendf(q, "ntprof prepared run seen v1\n%s\n%s\n", key, mac);
	stat_identity(q, st);
	id = sqlite3_str_finish(q);
	/* no memory: a note nobody matches, and the file is hashed */
	checked_mac(secret, id ? id : "", hex);
	sqlite3_free(id);
}

/* Does NAME.seen say that the file ST, under KEY with MAC MAC, was checked? */
static int seen(int dfd, const char *name, const unsigned char secret[32], const char *key,
		const char *mac, const struct stat *st)
{
	char got[2 * NTP_SHA256_LEN + 1], want[2 * NTP_SHA256_LEN + 1];

	if (read_mac(dfd, name, ".seen", got))
		return 0;
	seen_mac(secret, key, mac, st, want);
	return same_mac(got, want);
}

/* Note that the file ST matched its MAC, if its ctime is quiet enough:
 * written aside and renamed in, as the MAC is. */
static void note_seen(const char *dir, const char *name, const unsigned char secret[32],
		      const char *key, const char *mac, const struct stat *st)
{
	char hex[2 * NTP_SHA256_LEN + 1];
	struct timespec now;

	if (clock_gettime(CLOCK_REALTIME, &now) || now.tv_sec - st->st_ctim.tv_sec <= NOTE_QUIET_S)
		return;
	seen_mac(secret, key, mac, st, hex);
	write_note(dir, name, ".seen", hex);
}

int ntp_cache_load(struct ntp_session *s)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], name[NAME_HEX + 1], f[NAME_HEX + 8];
	char mac[2 * NTP_SHA256_LEN + 1], want[2 * NTP_SHA256_LEN + 1], reason[256];
	const char *why = NULL;
	unsigned char secret[32];
	struct stat st, at;
	char *key = NULL, *uri = NULL, *sql = NULL;
	int dfd = -1, fd = -1, rc = 0, attached = 0, was_seen = 0, missing = 0, local = 0;

	if (!ntp_cache_usable(s) || (dfd = open_dir(s, dir, sizeof(dir), 0)) < 0 ||
	    read_secret(dfd, dir, secret, 0) || !(key = make_key(s)))
		goto out;
	key_name(key, name);
	snprintf(f, sizeof(f), "%s.db", name);
	snprintf(path, sizeof(path), "%s/%s", dir, f);
	fd = openat(dfd, f, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		goto out; /* a miss */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !private(&st))
		why = "it is not a private file of the user's";
	else if (read_mac(dfd, name, ".mac", mac))
		why = "its MAC is missing";
	else if (!(was_seen = seen(dfd, name, secret, key, mac, &st)) &&
		 (mac_file(fd, secret, key, want) || !same_mac(mac, want)))
		why = "its MAC does not match (damaged, or not written by ntprof)";
	if (why)
		goto refuse;
	/* read where it was checked: the same file, unchanged, still open */
	uri = read_uri(path, 1);
	/* read(2), not mapped: a mapped file's pages count in the reader's
	 * RSS, and a question that scans the joined commands of 10 M a side
	 * would touch a gigabyte of them */
	sql = sqlite3_mprintf("ATTACH %Q AS " CACHE_DB, uri);
	if (!uri || !sql || exec_own(s, sql))
		goto out; /* SQLite's attachments all taken: prepare instead */
	attached = 1;
	if (stat(path, &at) || !same_file(&at, &st)) {
		why = "it changed while it was read";
		goto refuse;
	}
	if (check_cache(s->db, key, &why, &missing, &local, reason, sizeof(reason)))
		goto refuse;
	s->more_missing = missing;
	if (!was_seen)
		note_seen(dir, name, secret, key, mac, &st);
	/* recently used: evicted last (the MAC's file: the file's own times
	 * are its identity) */
	snprintf(f, sizeof(f), "%s.mac", name);
	utimensat(dfd, f, NULL, 0);
	free(s->cache_file);
	s->cache_file = strdup(path);
	s->cache_st = st;
	rc = 1;
	goto out;
refuse:
	if (local) /* the file may well be whole: left for the next process */
		ntp_say(s, "warning: prepared run %s not read (%s); preparing the run again", path,
		    why);
	else
		ntp_say(s, "warning: prepared run %s refused: %s; preparing the run again", path,
		    why);
	if (attached)
		exec_own(s, "DETACH " CACHE_DB);
	attached = 0;
	if (!local)
		remove_entry(dfd, name);
out:
	if (!rc && attached)
		exec_own(s, "DETACH " CACHE_DB);
	sqlite3_free(sql);
	sqlite3_free(uri);
	sqlite3_free(key);
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return rc;
}

/* Run R's recordings as a session of that run alone names them: its host
 * "host" and its target "target", run 0, in K. How many (1 or 2), or 0
 * when the run is not one host and at most one target, each a file of its
 * own. */
static int run_dbs(const struct ntp_session *s, int r, struct key_db k[2])
{
	int n = 0, hosts = 0;

	/* the session's recordings are hosts first, then targets */
	for (int i = 0; i < s->ndbs; i++) {
		const struct ntp_dbinfo *d = &s->dbs[i];

		if (d->run != r)
			continue;
		if (d->from[0] || n == 2)
			return 0;
		if (!strcmp(d->role, "host") && !n)
			k[n].schema = "host", hosts++;
		else if (!strcmp(d->role, "target") && hosts)
			k[n].schema = "target";
		else
			return 0;
		k[n].d = d;
		k[n].run = 0;
		k[n].run_pos = d->run_pos;
		n++;
	}
	return hosts == 1 ? n : 0;
}

/* A run's kept file, read for a session of several runs. */
struct run_file {
	struct key_db k[2];        /* its recordings as the run alone names them */
	int n;                     /* how many */
	char *key;                 /* the key of the run alone */
	char name[NAME_HEX + 1];   /* its entry */
	char path[PATH_MAX + 64];
	char mac[2 * NTP_SHA256_LEN + 1];
	struct stat st;            /* as its MAC was checked */
	int seen;                  /* its note said so */
	char schema[24];           /* attached as: _ntp_cache_rR */
};

/* The select list of a cached table of run F's file as this session has
 * it: the columns that name a recording (hdb, tdb, db) mapped from the run
 * alone's names to the session's. (What a session takes from all its
 * recordings, not a run's alone, is in views over the cached tables:
 * report.sql's ntp_report_group, join.sql's ntp_match_stats.) COLS: the
 * view's columns, comma-separated (columns()). NULL: no memory. */
static char *run_select(const struct run_file *f, const char *cols)
{
	const char *hs = f->k[0].d->schema, *ts = f->n > 1 ? f->k[1].d->schema : "target";
	sqlite3_str *q = sqlite3_str_new(NULL);
	const char *c = cols;

	if (!strcmp(hs, "host") && !strcmp(ts, "target")) {
		sqlite3_str_appendall(q, "*");
		return sqlite3_str_finish(q);
	}
	while (*c) {
		size_t len = strcspn(c, ",");
		char *col = sqlite3_mprintf("%.*s", (int)len, c);

		if (!col) {
			sqlite3_free(sqlite3_str_finish(q));
			return NULL;
		}
		if (c != cols)
			sqlite3_str_appendall(q, ", ");
		if (!strcmp(col, "hdb") || !strcmp(col, "tdb") || !strcmp(col, "db"))
			sqlite3_str_appendf(q, "CASE \"%w\" WHEN 'host' THEN %Q WHEN 'target' THEN %Q"
					    " ELSE \"%w\" END AS \"%w\"", col, hs, ts, col, col);
		else
			sqlite3_str_appendf(q, "\"%w\"", col);
		sqlite3_free(col);
		c += len + (c[len] == ',');
	}
	return sqlite3_str_finish(q);
}

/* Does run F's attached file hold nothing but NTABLES of the session's
 * prepared tables, their indexes as _ntp_cache_table lists them, and the
 * key's row, its key? */
static int run_objects_ok(sqlite3 *db, const struct run_file *f, int ntables)
{
	int obj[4];

	return !cache_objects(db, f->schema, f->key, obj) && obj[0] == obj[1] &&
	       obj[2] == ntables + 1 && obj[3];
}

/* Has run F's attached file a table TBL? */
static int run_has(sqlite3 *db, const struct run_file *f, const char *tbl)
{
	char *sql = sqlite3_mprintf("SELECT 1 FROM \"%w\".sqlite_schema WHERE type = 'table'"
				    " AND name = ?1", f->schema);
	sqlite3_stmt *st = NULL;
	int has = 0;

	if (sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, tbl, -1, SQLITE_STATIC);
		has = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return has;
}

/* check_cache for the NRUNS runs' files F, each the prepared run of one
 * run alone: each holds exactly the session's prepared tables (but the
 * comparison's, cache_when 2, which a run alone never prepares; and those
 * prepared on demand, all or none in a file), with the views' columns, and
 * its run's key. Each view of the tables they all hold becomes the union
 * of their tables, run by run, the recordings renamed as the session
 * names them (run_select); the comparison's views stay, computed from
 * those, and so do the views of the tables prepared on demand unless every
 * file holds them (*MISSING then). 0, or -1 with *WHY set, *BAD the file
 * at fault (-1: none alone), and *LOCAL as check_cache's. */
static int check_runs(sqlite3 *db, struct run_file *f, int nruns, sqlite3_str *setup,
		      const char **why, int *bad, int *missing, int *local, char *msg,
		      size_t msglen)
{
	static const char plan[] = "SELECT c.name, c.tbl, c.more, p.cache_when = 2"
				   " FROM _ntp_cache_table AS c JOIN _ntp_view_plan AS p"
				   " ON p.name = c.name ORDER BY c.ord";
	sqlite3_stmt *st = NULL;
	int nbase = 0, nmore = 0, ok, more_all = 1;
	int has_more[NTP_MAX_DBS] = { 0 };

	*why = "it does not hold the prepared tables";
	*bad = -1;
	if (exec(db, "SAVEPOINT ntp_cache"))
		return -1;
	/* which tables each file has: every one the session prepares, but
	 * the comparison's (never) and those prepared on demand (all or none) */
	ok = sqlite3_prepare_v2(db, plan, -1, &st, NULL) == SQLITE_OK;
	while (ok && sqlite3_step(st) == SQLITE_ROW) {
		const char *tbl = (const char *)sqlite3_column_text(st, 1);
		int more = sqlite3_column_int(st, 2), compared = sqlite3_column_int(st, 3);

		nmore += more && !compared;
		nbase += !more && !compared;
		for (int r = 0; ok && r < nruns; r++) {
			int has = run_has(db, &f[r], tbl);

			if (compared ? has : !more && !has)
				ok = 0, *bad = r;
			has_more[r] += more && has;
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	for (int r = 0; ok && r < nruns; r++) {
		if (has_more[r] && has_more[r] != nmore) {
			*why = "it holds some of the tables prepared on demand, not all";
			ok = 0, *bad = r;
		} else if (!run_objects_ok(db, &f[r], nbase + has_more[r])) {
			/* nothing else: its tables, their indexes, its key */
			*why = "it holds other objects, or another run's key";
			ok = 0, *bad = r;
		}
		more_all = more_all && has_more[r] == nmore;
	}
	*missing = nmore && !more_all;
	/* each table's columns, and the view over the runs' tables, in the
	 * plan's order: a view's columns are read once the views under it
	 * read tables (check_cache) */
	ok = ok && sqlite3_prepare_v2(db, plan, -1, &st, NULL) == SQLITE_OK;
	while (ok && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *tbl = (const char *)sqlite3_column_text(st, 1);
		int more = sqlite3_column_int(st, 2), compared = sqlite3_column_int(st, 3);
		sqlite3_str *q;
		char *want, *sql;

		if (compared)
			continue;
		want = columns(db, "temp", name);
		ok = want && *want;
		for (int r = 0; ok && r < nruns; r++) {
			char *cols = more && !has_more[r] ? NULL : columns(db, f[r].schema, tbl);

			if (cols && strcmp(cols, want))
				ok = 0, *bad = r;
			sqlite3_free(cols);
		}
		if (!ok || (more && !more_all)) {
			sqlite3_free(want);
			continue;
		}
		q = sqlite3_str_new(NULL);
		sqlite3_str_appendf(q, "DROP VIEW temp.\"%w\";\nCREATE TEMP VIEW \"%w\" AS ", name, name);
		for (int r = 0; r < nruns; r++) {
			char *sel = run_select(&f[r], want);

			if (!sel)
				ok = 0;
			sqlite3_str_appendf(q, "%sSELECT %s FROM \"%w\".\"%w\"", r ? "\nUNION ALL " : "",
					    sel ? sel : "", f[r].schema, tbl);
			sqlite3_free(sel);
		}
		sqlite3_str_appendchar(q, 1, ';');
		if (sqlite3_str_errcode(q))
			ok = 0;
		sql = sqlite3_str_finish(q);
		/* (IF EXISTS: a view of the native forms alone is not in the
		 * portable set-up) */
		if (ok)
			sqlite3_str_appendf(setup, "DROP VIEW IF EXISTS temp.%s\n",
					    sql + strlen("DROP VIEW temp."));
		if (ok && exec(db, sql)) {
			ok = 0;
			if (local_error(sqlite3_extended_errcode(db))) {
				snprintf(msg, msglen, "%s", sqlite3_errmsg(db));
				*why = msg;
				*local = 1;
			} else {
				*why = "its tables cannot be read";
			}
		}
		sqlite3_free(sql);
		sqlite3_free(want);
	}
	sqlite3_finalize(st);
	if (!ok) {
		exec(db, "ROLLBACK TO ntp_cache; RELEASE ntp_cache;");
		return -1;
	}
	return exec(db, "RELEASE ntp_cache") ? -1 : 0;
}

int ntp_cache_runs_apart(struct ntp_session *s)
{
	struct key_db k[2];
	sqlite3_stmt *n;
	int attached = -1, first = 0;

	if (s->nruns < 2 || !ntp_cache_usable(s) || s->host_base || s->nmerged)
		return 0;
	/* the runs' files attached beside the recordings, within SQLite's limit */
	if (sqlite3_prepare_v2(s->db, "SELECT count(*) - 2 FROM pragma_database_list WHERE name"
			       " NOT LIKE '\\_ntp\\_cache%' ESCAPE '\\'", -1, &n, NULL) == SQLITE_OK &&
	    sqlite3_step(n) == SQLITE_ROW)
		attached = sqlite3_column_int(n, 0);
	sqlite3_finalize(n);
	if (attached < 0 || attached + s->nruns > sqlite3_limit(s->db, SQLITE_LIMIT_ATTACHED, -1))
		return 0;
	/* every run one host, and all with a target or none: a run's tables
	 * then have the same shape as the others' */
	for (int r = 0; r < s->nruns; r++) {
		int m = run_dbs(s, r, k);

		if (!m || (r && m != first))
			return 0;
		first = m;
	}
	return 1;
}

void ntp_cache_unload_runs(struct ntp_session *s)
{
	for (int r = 0; s->runs_setup && r < s->nruns; r++) {
		char *sql = sqlite3_mprintf("DETACH \"_ntp_cache_r%d\"", r);

		if (sql)
			exec_own(s, sql);
		sqlite3_free(sql);
	}
	sqlite3_free(s->runs_setup);
	s->runs_setup = NULL;
}

int ntp_cache_load_runs(struct ntp_session *s)
{
	struct run_file *f = NULL;
	char dir[PATH_MAX], want[2 * NTP_SHA256_LEN + 1], reason[256];
	const char *why = NULL;
	unsigned char secret[32];
	int dfd = -1, rc = 0, nattached = 0, missing = 0, local = 0, bad = -1;
	sqlite3_str *setup = NULL;

	if (!ntp_cache_runs_apart(s) || !(f = calloc((size_t)s->nruns, sizeof(*f))))
		goto out;
	for (int r = 0; r < s->nruns; r++)
		f[r].n = run_dbs(s, r, f[r].k);
	if ((dfd = open_dir(s, dir, sizeof(dir), 0)) < 0 || read_secret(dfd, dir, secret, 0))
		goto out;
	for (int r = 0; r < s->nruns; r++) {
		struct run_file *x = &f[r];
		char file[NAME_HEX + 8];
		int fd;

		if (!(x->key = key_of(s, 1, x->n > 1, x->k, x->n)))
			goto out;
		key_name(x->key, x->name);
		snprintf(file, sizeof(file), "%s.db", x->name);
		snprintf(x->path, sizeof(x->path), "%s/%s", dir, file);
		snprintf(x->schema, sizeof(x->schema), "_ntp_cache_r%d", r);
		fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			goto out; /* a run not prepared alone: the session prepares */
		if (fstat(fd, &x->st) || !S_ISREG(x->st.st_mode) || !private(&x->st))
			why = "it is not a private file of the user's";
		else if (read_mac(dfd, x->name, ".mac", x->mac))
			why = "its MAC is missing";
		else if (!(x->seen = seen(dfd, x->name, secret, x->key, x->mac, &x->st)) &&
			 (mac_file(fd, secret, x->key, want) || !same_mac(x->mac, want)))
			why = "its MAC does not match (damaged, or not written by ntprof)";
		close(fd);
		if (why) {
			bad = r;
			goto refuse;
		}
	}
	for (int r = 0; r < s->nruns; r++) {
		struct run_file *x = &f[r];
		char *uri = read_uri(x->path, 1);
		char *sql = uri ? sqlite3_mprintf("ATTACH %Q AS \"%w\"", uri, x->schema) : NULL;
		struct stat at;
		int fail = !sql || exec_own(s, sql);

		sqlite3_free(sql);
		sqlite3_free(uri);
		if (fail)
			goto out;
		nattached++;
		if (stat(x->path, &at) || !same_file(&at, &x->st)) {
			why = "it changed while it was read";
			bad = r;
			goto refuse;
		}
	}
	setup = sqlite3_str_new(NULL);
	sqlite3_str_appendall(setup, "-- The prepared runs: ntprof's cache of each run's recordings (docs/\n"
			      "-- performance.md, \"How a run is prepared\"), checked when this set-up was\n"
			      "-- written. Write the set-up again after the recordings change.\n");
	for (int r = 0; r < s->nruns; r++) {
		char *uri = read_uri(f[r].path, 0);

		sqlite3_str_appendf(setup, "ATTACH %Q AS \"%w\";\n", uri ? uri : "", f[r].schema);
		sqlite3_free(uri);
	}
	if (check_runs(s->db, f, s->nruns, setup, &why, &bad, &missing, &local, reason,
		       sizeof(reason)))
		goto refuse;
	s->more_missing = missing;
	sqlite3_free(s->runs_setup);
	s->runs_setup = sqlite3_str_errcode(setup) ? NULL : sqlite3_str_finish(setup);
	setup = NULL;
	for (int r = 0; r < s->nruns; r++) {
		char file[NAME_HEX + 8];

		if (!f[r].seen)
			note_seen(dir, f[r].name, secret, f[r].key, f[r].mac, &f[r].st);
		snprintf(file, sizeof(file), "%s.mac", f[r].name);
		utimensat(dfd, file, NULL, 0);
	}
	rc = 1;
	goto out;
refuse:
	/* the file at fault (BAD) is said and removed; when none is alone at
	 * fault (the tables cannot be read), each is said and left */
	if (bad < 0)
		local = 1;
	for (int r = 0; r < s->nruns; r++) {
		if (bad >= 0 && r != bad)
			continue;
		if (local)
			ntp_say(s, "warning: prepared run %s not read (%s); preparing the runs again",
			    f[r].path, why);
		else
			ntp_say(s, "warning: prepared run %s refused: %s; preparing the run again",
			    f[r].path, why);
		if (!local)
			remove_entry(dfd, f[r].name);
	}
out:
	for (int r = nattached - 1; !rc && r >= 0; r--) {
		char *sql = sqlite3_mprintf("DETACH \"%w\"", f[r].schema);

		if (sql)
			exec_own(s, sql);
		sqlite3_free(sql);
	}
	for (int r = 0; f && r < s->nruns; r++)
		sqlite3_free(f[r].key);
	free(f);
	if (setup)
		sqlite3_free(sqlite3_str_finish(setup));
	if (dfd >= 0)
		close(dfd);
	return rc;
}

/* One cache entry, for eviction. */
struct entry {
	char name[NAME_HEX + 1];
	struct timespec used; /* written or last read: its file's or its MAC's mtime */
	off_t size;           /* its file, its MAC and its note */
};

static int older(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return (x->used.tv_nsec > y->used.tv_nsec) - (x->used.tv_nsec < y->used.tv_nsec);
}

/* NTPROF_CACHE_MAX: the cap on the cache's files, MiB. */
static long long cap_bytes(void)
{
	const char *v = getenv("NTPROF_CACHE_MAX");
	char *end;
	long long mib;

	if (!v || !*v)
		return (long long)CAP_MIB << 20;
	mib = strtoll(v, &end, 10);
	return *end || mib < 0 ? (long long)CAP_MIB << 20 : mib << 20;
}

/* Is NAME an entry's file: NAME_HEX hex digits and ".db"? */
static int memo_file(const char *name)
{
	return strlen(name) == NAME_HEX + 3 && strspn(name, "0123456789abcdef") == NAME_HEX &&
	       !strcmp(name + NAME_HEX, ".ok");
}

static int entry_file(const char *name)
{
	return strlen(name) == NAME_HEX + 3 && strspn(name, "0123456789abcdef") == NAME_HEX &&
	       !strcmp(name + NAME_HEX, ".db");
}

/* Remove the least recently used entries while the cache is over its cap,
 * the one just written last of all; and temporary files a killed process
 * left. */
static void evict(int dfd)
{
	long long cap = cap_bytes(), total = 0;
	struct entry *e = NULL;
	size_t n = 0, room = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd = dup(dfd);

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (!strncmp(de->d_name, "tmp-", 4)) {
			if (!fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
			    st.st_mtime < time(NULL) - STALE_S)
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
		/* notes of checked files: a month, then the files are checked again */
		if (memo_file(de->d_name)) {
			if (!fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
			    st.st_mtime < time(NULL) - MEMO_S)
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
		if (!entry_file(de->d_name) || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (n == room) {
			struct entry *m = realloc(e, (room = room ? 2 * room : 16) * sizeof(*e));

			if (!m)
				break;
			e = m;
		}
		snprintf(e[n].name, sizeof(e[n].name), "%.*s", NAME_HEX, de->d_name);
		e[n].used = st.st_mtim;
		e[n].size = st.st_size + 4 * NTP_SHA256_LEN; /* its MAC and note too */
		{
			/* last read: its MAC's mtime (ntp_cache_load) */
			char mf[NAME_HEX + 8];
			struct stat ms;

			snprintf(mf, sizeof(mf), "%s.mac", e[n].name);
			if (!fstatat(dfd, mf, &ms, AT_SYMLINK_NOFOLLOW) &&
			    (ms.st_mtim.tv_sec > st.st_mtim.tv_sec ||
			     (ms.st_mtim.tv_sec == st.st_mtim.tv_sec &&
			      ms.st_mtim.tv_nsec > st.st_mtim.tv_nsec)))
				e[n].used = ms.st_mtim;
		}
		total += e[n++].size;
	}
	closedir(d);
	if (n)
		qsort(e, n, sizeof(*e), older);
	for (size_t i = 0; i < n && total > cap; i++) {
		remove_entry(dfd, e[i].name);
		total -= e[i].size;
	}
	free(e);
}

/* Plain sqlite3's set-up of runs read from their own files: theirs
 * (runs_setup), then the comparison's statistics, which no file holds, as
 * the rows this session computed from those files (quote() keeps every
 * value exactly): the portable view would sort every command's values. */
static char *runs_setup_sql(const struct ntp_session *s)
{
	sqlite3_str *q = sqlite3_str_new(NULL);
	sqlite3_stmt *st;
	char *rows = NULL, *sql;

	sqlite3_str_appendall(q, "SELECT group_concat('(' ||");
	if (sqlite3_prepare_v2(s->db, "SELECT name, cid FROM pragma_table_info('ntp_compare_stage',"
			       " 'temp') ORDER BY cid", -1, &st, NULL) == SQLITE_OK)
		while (sqlite3_step(st) == SQLITE_ROW)
			sqlite3_str_appendf(q, "%s quote(\"%w\")", sqlite3_column_int(st, 1) ?
					    " || ',' ||" : "", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_str_appendall(q, " || ')', ',') FROM ntp_compare_stage");
	sql = sqlite3_str_finish(q);
	if (sql)
		rows = ntp_query_text(s->db, sql);
	sqlite3_free(sql);
	if (!rows || !*rows) {
		/* no comparison (no row): its view stays */
		sqlite3_free(rows);
		return sqlite3_mprintf("%s", s->runs_setup);
	}
	sql = sqlite3_mprintf("%s-- the comparison's statistics, as ntprof computed them from the files\n"
			      "CREATE TEMP TABLE \"_ntp_compare_stage_cache\" AS"
			      " SELECT * FROM \"ntp_compare_stage\" WHERE 0;\n"
			      "INSERT INTO \"_ntp_compare_stage_cache\" VALUES %s;\n"
			      "DROP VIEW IF EXISTS temp.\"ntp_compare_stage\";\n"
			      "CREATE TEMP VIEW \"ntp_compare_stage\" AS"
			      " SELECT * FROM \"_ntp_compare_stage_cache\";\n", s->runs_setup, rows);
	sqlite3_free(rows);
	return sql;
}

char *ntp_cache_setup_sql(const struct ntp_session *s)
{
	sqlite3_str *q;
	sqlite3_stmt *st, *n;
	char *uri;
	int attached = -1, ok;

	if (!s->cache_file && s->runs_setup && s->joined) {
		/* the runs' files: SQLite's attachments for them too */
		if (sqlite3_prepare_v2(s->db, "SELECT count(*) - 2 FROM pragma_database_list WHERE"
				       " name NOT LIKE '\\_ntp\\_cache\\_r%' ESCAPE '\\'", -1, &n,
				       NULL) == SQLITE_OK && sqlite3_step(n) == SQLITE_ROW)
			attached = sqlite3_column_int(n, 0);
		sqlite3_finalize(n);
		if (attached < 0 || attached + s->nruns > sqlite3_limit(s->db, SQLITE_LIMIT_ATTACHED, -1))
			return NULL;
		return runs_setup_sql(s);
	}
	if (!s->cache_file || !s->joined)
		return NULL;
	/* the recordings' attachments and the cache's within SQLite's limit */
	if (sqlite3_prepare_v2(s->db, "SELECT count(*) - 2 FROM pragma_database_list WHERE name != '"
			       CACHE_DB "'", -1, &n, NULL) == SQLITE_OK && sqlite3_step(n) == SQLITE_ROW)
		attached = sqlite3_column_int(n, 0);
	sqlite3_finalize(n);
	/* sqlite3 reads the file after it was checked here: not immutable,
	 * so that a file replaced in between is read as it is now */
	if (attached < 0 || attached + 1 > sqlite3_limit(s->db, SQLITE_LIMIT_ATTACHED, -1) ||
	    !(uri = read_uri(s->cache_file, 0)))
		return NULL;
	q = sqlite3_str_new(NULL);
	sqlite3_str_appendf(q, "-- The prepared run: ntprof's cache of these recordings (docs/performance.md,\n"
			    "-- \"How a run is prepared\"), checked when this set-up was written. Write\n"
			    "-- the set-up again after the recordings change.\n"
			    "ATTACH %Q AS " CACHE_DB ";\n", uri);
	sqlite3_free(uri);
	/* the tables the file has: one prepared for a session that wants it
	 * may be missing (its view then stays) */
	ok = sqlite3_prepare_v2(s->db, "SELECT name, tbl FROM _ntp_cache_table WHERE NOT more"
				" OR tbl IN (SELECT name FROM " CACHE_DB ".sqlite_schema"
				" WHERE type = 'table') ORDER BY ord", -1, &st, NULL) == SQLITE_OK;
	/* IF EXISTS: a view of the native forms alone (native.sql) is not in
	 * the portable set-up, and is then only a read of its table */
	while (ok && sqlite3_step(st) == SQLITE_ROW)
		sqlite3_str_appendf(q, "DROP VIEW IF EXISTS temp.\"%w\";\n"
				    "CREATE TEMP VIEW \"%w\" AS SELECT * FROM " CACHE_DB ".\"%w\";\n",
				    sqlite3_column_text(st, 0),
				    sqlite3_column_text(st, 0), sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	if (!ok) {
		sqlite3_free(sqlite3_str_finish(q));
		return NULL;
	}
	return sqlite3_str_finish(q);
}

/* A run being prepared straight into a new cache file (ntp_cache_begin). */
struct ntp_cache_new {
	int dfd;                    /* the cache directory */
	char dir[PATH_MAX];         /* its path */
	char tmp[PATH_MAX + 16];    /* the new file, DIR/tmp-XXXXXX */
	int fd;                     /* it, open: its MAC is of what SQLite wrote there */
	int doomed;                 /* removed on a signal until renamed */
	char *key;                  /* the key */
	char name[NAME_HEX + 1];    /* the name it is kept under */
	unsigned char secret[32];   /* the user's secret, for its MAC */
	char *orig;                 /* ntp_cache_begin_more: the kept file it copies */
};

static void free_new(struct ntp_cache_new *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->doomed)
		ntp_remove_forget(0);
	if (*w->tmp)
		unlink(w->tmp); /* renamed: nothing there */
	if (w->dfd >= 0)
		close(w->dfd);
	sqlite3_free(w->key);
	free(w->orig);
	explicit_bzero(w->secret, sizeof(w->secret));
	free(w);
}

/* A new file in the cache directory for the session's key, open, removed
 * on a signal until kept. NULL when there is none to be had. */
static struct ntp_cache_new *new_file(struct ntp_session *s)
{
	struct ntp_cache_new *w;
	int ok;

	/* inside a transaction of the user's (a shell's BEGIN), the file
	 * could not be committed alone: TEMP tables, not kept */
	if (!ntp_cache_usable(s) || !sqlite3_get_autocommit(s->db) || !(w = calloc(1, sizeof(*w))))
		return NULL;
	w->fd = -1;
	ok = (w->dfd = open_dir(s, w->dir, sizeof(w->dir), 1)) >= 0 &&
	     !read_secret(w->dfd, w->dir, w->secret, 1) && (w->key = make_key(s));
	if (ok) {
		key_name(w->key, w->name);
		snprintf(w->tmp, sizeof(w->tmp), "%s/tmp-XXXXXX", w->dir);
		w->fd = mkstemp(w->tmp);
		if (w->fd < 0)
			*w->tmp = 0;
		ok = w->fd >= 0;
	}
	if (!ok) {
		free_new(w);
		return NULL;
	}
	w->doomed = ntp_remove_on_signal(w->tmp, NULL);
	return w;
}

/* Attach W's file as the cache's schema, to write: no rollback journal on
 * disk (the MAC tells a torn file; defensive mode allows MEMORY, not OFF),
 * and the main database's 2 MiB of page cache (open.c): the tables are
 * written once and read back in order, and a larger cache only holds more
 * of them in memory. Then the statements MORE. 0, or -1 (detached). */
static int attach_new(struct ntp_session *s, struct ntp_cache_new *w, const char *more)
{
	char *sql = sqlite3_mprintf("ATTACH %Q AS " CACHE_DB ";\n"
				    "PRAGMA " CACHE_DB ".journal_mode = MEMORY;\n"
				    "PRAGMA " CACHE_DB ".synchronous = OFF;\n"
				    "PRAGMA " CACHE_DB ".cache_size = -2048;\n%s",
				    w->tmp, more);
	int rc = !sql || exec_own(s, sql) ? -1 : 0;

	if (rc)
		exec_own(s, "DETACH " CACHE_DB); /* if attached */
	sqlite3_free(sql);
	return rc;
}

/* Attach the kept file W copied as the cache's schema again, read-only
 * and immutable, as ntp_cache_load had it. */
static void attach_orig(struct ntp_session *s, struct ntp_cache_new *w)
{
	char *uri = read_uri(w->orig, 1);
	char *sql = uri ? sqlite3_mprintf("ATTACH %Q AS " CACHE_DB, uri) : NULL;

	if (!sql || exec_own(s, sql))
		s->joined = 0; /* its views cannot be read: prepare again */
	sqlite3_free(sql);
	sqlite3_free(uri);
}

struct ntp_cache_new *ntp_cache_begin_more(struct ntp_session *s)
{
	struct ntp_cache_new *w;
	struct stat st;
	int in, ok;

	if (!s->cache_file || !(w = new_file(s)))
		return NULL;
	ok = (w->orig = strdup(s->cache_file)) != NULL;
	in = ok ? open(w->orig, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	/* the file that was checked, unchanged since: what is copied here is
	 * signed as ntprof's */
	ok = in >= 0 && !fstat(in, &st) && same_file(&st, &s->cache_st);
	/* the whole file, then its copy in its place to add to */
	while (ok) {
		ssize_t n = copy_file_range(in, NULL, w->fd, NULL, 1 << 30, 0);

		if (n < 0 && errno == EINTR)
			continue;
		ok = n >= 0;
		if (n <= 0)
			break;
	}
	if (in >= 0)
		close(in);
	if (ok && exec_own(s, "DETACH " CACHE_DB))
		ok = 0;
	else if (ok && attach_new(s, w, "")) {
		attach_orig(s, w);
		ok = 0;
	}
	if (!ok) {
		free_new(w);
		return NULL;
	}
	return w;
}

struct ntp_cache_new *ntp_cache_begin(struct ntp_session *s)
{
	struct ntp_cache_new *w = new_file(s);
	char *sql = NULL;
	int ok = w != NULL;

	if (ok) {
		sql = sqlite3_mprintf("CREATE TABLE " CACHE_DB "._ntp_cache_meta (key TEXT NOT NULL);\n"
				      "INSERT INTO " CACHE_DB "._ntp_cache_meta VALUES (%Q);\n",
				      w->key);
		ok = sql && !attach_new(s, w, sql);
	}
	sqlite3_free(sql);
	if (!ok) {
		if (w)
			free_new(w);
		return NULL;
	}
	return w;
}

const char *ntp_cache_schema(void)
{
	return CACHE_DB;
}

void ntp_cache_abandon(struct ntp_session *s, struct ntp_cache_new *w)
{
	if (!w)
		return;
	if (!sqlite3_get_autocommit(s->db))
		exec(s->db, "ROLLBACK");
	exec_own(s, "DETACH " CACHE_DB);
	if (w->orig)
		attach_orig(s, w);
	free_new(w);
}

/* Rename the committed file W and its MAC into place: a reader sees a
 * whole file or none (a reader between the two renames sees a MAC that
 * does not match and prepares again: slower, never wrong). 0 or -1. */
static int put_in_place(struct ntp_cache_new *w, char *to, size_t n)
{
	char mtmp[PATH_MAX + 16], mac[2 * NTP_SHA256_LEN + 1];
	int mfd;

	if (mac_file(w->fd, w->secret, w->key, mac))
		return -1;
	snprintf(mtmp, sizeof(mtmp), "%s/tmp-XXXXXX", w->dir);
	mfd = mkstemp(mtmp);
	if (mfd < 0)
		return -1;
	if (write(mfd, mac, 2 * NTP_SHA256_LEN) != 2 * NTP_SHA256_LEN || close(mfd)) {
		unlink(mtmp);
		return -1;
	}
	snprintf(to, n, "%s/%s.db", w->dir, w->name);
	if (rename(w->tmp, to)) {
		unlink(mtmp);
		return -1;
	}
	*w->tmp = 0;
	if (w->doomed)
		ntp_remove_forget(0);
	w->doomed = 0;
	{
		char m[PATH_MAX + 64];

		snprintf(m, sizeof(m), "%s/%s.mac", w->dir, w->name);
		if (rename(mtmp, m)) {
			unlink(mtmp);
			return -1;
		}
	}
	return 0;
}

/* Remember W's file, renamed into place, as the session's cache file, if
 * it is still there (not evicted at once by a cap smaller than it, nor
 * replaced since), with the identity it has now. */
static void kept_file(struct ntp_session *s, const struct ntp_cache_new *w)
{
	char f[NAME_HEX + 8];
	struct stat st, at;

	snprintf(f, sizeof(f), "%s.db", w->name);
	free(s->cache_file);
	s->cache_file = NULL;
	if (!fstat(w->fd, &st) && !fstatat(w->dfd, f, &at, AT_SYMLINK_NOFOLLOW) &&
	    same_file(&st, &at) && asprintf(&s->cache_file, "%s/%s", w->dir, f) >= 0)
		s->cache_st = st;
	else
		s->cache_file = NULL;
}

int ntp_cache_keep(struct ntp_session *s, struct ntp_cache_new *w, double took)
{
	char to[PATH_MAX + 64];
	const char *prev;
	char *uri = NULL, *sql = NULL;
	int kept = 0, rc = 0;

	if (!w) {
		if (took >= ntp_env_seconds("NTPROF_PREPARE_NOTE_AFTER", 1))
			ntp_say(s, "preparing the run took %.1f s%s", took,
			    s->flags & NTP_OPEN_NO_CACHE ? " (--no-cache: not kept)" : "");
		return 0;
	}
	prev = ntp_progress_begin(s, "keeping the prepared run");
	/* the MAC over the committed file, read through the descriptor
	 * mkstemp gave (closing it now drops no lock: none is held between
	 * transactions) */
	kept = !put_in_place(w, to, sizeof(to));
	if (kept) {
		/* read it as later sessions do: read-only and immutable, so that
		 * no SQL of this session writes what is kept */
		uri = read_uri(to, 1);
		sql = uri ? sqlite3_mprintf("DETACH " CACHE_DB ";\nATTACH %Q AS " CACHE_DB ";", uri)
			  : NULL;
		rc = !sql || exec_own(s, sql) ? -1 : 0;
		evict(w->dfd);
		kept_file(s, w);
	}
	ntp_progress_end(s, prev);
	if (took >= ntp_env_seconds("NTPROF_PREPARE_NOTE_AFTER", 1)) {
		if (kept && w->orig)
			ntp_say(s, "preparing the per-command end to end (plain sqlite3's .timeline, "
			    ".slowest) took %.1f s; kept in %s with the prepared run", took, w->dir);
		else if (kept)
			ntp_say(s, "preparing the run took %.1f s; kept in %s for the commands after this "
			    "one", took, w->dir);
		else
			ntp_say(s, "preparing the run took %.1f s", took);
	}
	sqlite3_free(sql);
	sqlite3_free(uri);
	free_new(w);
	return rc;
}
