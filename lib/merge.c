// SPDX-License-Identifier: BSD-2-Clause
/*
 * Merging recordings into one file (ntprof merge): SQLite attaches at most
 * NTP_MAX_DBS files, so a run of more machines is read in batches, every
 * target with as many hosts as fit beside them and the output, through an
 * ordinary session (lib/open.c: the same checks, read-only inputs). Each
 * batch appends the prelude's views (sql/prelude.sql) to the output's tables
 * of the same names; a session over the merged file reads those tables
 * instead of the recordings, and everything after the prelude is the same.
 * The hosts are named host, host2, ... across the batches, as one session
 * over all of them would name them, so a report reads the same either way.
 * A session of more recordings than SQLite attaches (ntp_session_open) is
 * opened here too, over a merged file of its own: merge sits on open.c,
 * never the reverse.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ntp_err.h"
#include "ntp_merge.h"
#include "ntp_remove_on_signal.h"
#include "ntp_schema.h"
#include "ntp_sql.h"
#include "ntp_session.h"
#include "ntp_version.h"

/* One batch's session, copying into the output attached as "out". */
struct batch {
	struct ntp_session *s;
	int first;          /* the first batch: create the tables, copy the targets */
	int ord;            /* recordings copied so far */
	char *err;
	size_t errlen;
};

static int exec_fail(struct batch *b, const char *sql, const char *what)
{
	if (sqlite3_exec(b->s->db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	return ntp_fail(b->err, b->errlen, "cannot merge %s: %s", what,
			sqlite3_errmsg(b->s->db));
}

/* View NAME into the output's table NAME: the first batch creates it with
 * every row; later ones add their hosts' rows (the targets are in). */
static int copy_view(void *arg, const char *name, const char *over)
{
	struct batch *b = arg;
	char *sql;
	int rc;

	if (b->first)
		sql = sqlite3_mprintf("CREATE TABLE out.%s AS SELECT * FROM temp.%s", name, name);
	else if (!strcmp(over, "pair"))
		sql = sqlite3_mprintf("INSERT INTO out.%s SELECT * FROM temp.%s", name, name);
	else
		sql = sqlite3_mprintf("INSERT INTO out.%s SELECT * FROM temp.%s WHERE db IN"
				      " (SELECT db FROM temp.ntp_db WHERE role = 'host')", name, name);
	rc = sql ? exec_fail(b, sql, name) : ntp_fail(b->err, b->errlen, "out of memory");
	sqlite3_free(sql);
	return rc;
}

/* The batch's recordings (its hosts; its targets too in the first) into
 * ntp_merged_recording and ntp_merged_hook. */
static int copy_recordings(struct batch *b)
{
	struct ntp_session *s = b->s;
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(s->db, "INSERT INTO out.ntp_merged_recording VALUES"
			       " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		return ntp_fail(b->err, b->errlen, "cannot merge: %s", sqlite3_errmsg(s->db));
	for (int i = 0; !rc && i < s->ndbs; i++) {
		const struct ntp_dbinfo *d = &s->dbs[i];
		char *hooks;

		if (strcmp(d->role, "host") && !b->first)
			continue;
		sqlite3_reset(st);
		/* targets after every host: their places come at the end */
		sqlite3_bind_int(st, 1, strcmp(d->role, "host") ? NTP_MAX_RECORDINGS + i :
				 b->ord++);
		sqlite3_bind_text(st, 2, d->schema, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, d->path, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, d->role, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, d->driver, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, d->transport, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, d->hostname, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 8, d->kernel, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 9, d->sample_rate);
		sqlite3_bind_int64(st, 10, d->records);
		sqlite3_bind_int64(st, 11, d->lost);
		sqlite3_bind_int64(st, 12, d->wall_start);
		sqlite3_bind_int64(st, 13, d->mono_start);
		hooks = sqlite3_mprintf("INSERT INTO out.ntp_merged_hook SELECT %Q, name,"
					" attach_to, kind, points FROM \"%w\".hook", d->schema,
					d->schema);
		rc = sqlite3_step(st) != SQLITE_DONE || !hooks ? -1 : exec_fail(b, hooks, "hooks");
		sqlite3_free(hooks);
	}
	sqlite3_finalize(st);
	return rc ? ntp_fail(b->err, b->errlen, "cannot merge the recordings: %s",
			     sqlite3_errmsg(s->db)) : 0;
}

/* A merged file is one run: a host that did not record with its targets
 * is refused, not merged with a warning. */
static int check_windows(struct batch *b)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(b->s->db, "SELECT hdb, tdb FROM ntp_window_gap ORDER BY hdb, tdb",
			       -1, &st, NULL) != SQLITE_OK)
		return ntp_fail(b->err, b->errlen, "cannot merge: %s", sqlite3_errmsg(b->s->db));
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = ntp_fail(b->err, b->errlen, "recordings of different runs: %s and %s were not "
			      "recorded at the same time; a merged file is one run",
			      sqlite3_column_text(st, 0), sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	return rc;
}

/* Open PATHS (hosts named after HOST_BASE) and append them to OUT. */
static int merge_batch(const char *out, int n, char *const *paths, int host_base, int *ord,
		       int flags, char *err, size_t errlen)
{
	struct ntp_session s;
	struct batch b = { &s, host_base == 0, *ord, err, errlen };
	char *attach;
	int rc;

	/* checked before check_windows reads them: a file that fails its check
	 * gets that error, not one about its times */
	if (ntp_session_open_batch(&s, n, paths, host_base,
				   (flags & ~NTP_OPEN_CHECK_LATE) | NTP_OPEN_MERGING, err, errlen))
		return -1;
	/* the merged file holds the prelude's views: no per-command end to end */
	attach = sqlite3_mprintf("ATTACH %Q AS out", out);
	rc = check_windows(&b) || ntp_session_prepare(&s, err, errlen) ||
	     exec_fail(&b, attach, out) || exec_fail(&b, "BEGIN", out) || ntp_prelude_each(copy_view, &b) ||
	     copy_recordings(&b) || exec_fail(&b, "COMMIT", out) ? -1 : 0;
	sqlite3_free(attach);
	*ord = b.ord;
	ntp_session_close(&s);
	return rc;
}

/* The whole set before any batch: roles, one file given twice, a merged
 * file among them; the targets' paths into T, the hosts' into H. */
static int inventory(int n, char *const *paths, char **h, int *nh, char **t, int *nt,
		     char *err, size_t errlen)
{
	struct { dev_t dev; ino_t ino; } id[NTP_MAX_RECORDINGS];
	char role[8];

	*nh = *nt = 0;
	for (int i = 0; i < n; i++) {
		if (ntp_file_role(paths[i], role, &id[i].dev, &id[i].ino, err, errlen))
			return -1;
		if (!strcmp(role, "merged"))
			return ntp_fail(err, errlen, "%s: already a merged file; merge the recordings "
					"it was made from", paths[i]);
		for (int j = 0; j < i; j++)
			if (id[j].dev == id[i].dev && id[j].ino == id[i].ino)
				return ntp_fail(err, errlen, "%s: given twice (as %s too): one file "
						"would be counted twice", paths[i], paths[j]);
		if (!strcmp(role, "host"))
			h[(*nh)++] = paths[i];
		else
			t[(*nt)++] = paths[i];
	}
	if (!*nh)
		return ntp_fail(err, errlen, "no host recording among the %d files", n);
	if (*nh > 1 && !*nt)
		return ntp_fail(err, errlen, "%d host recordings and no target; give one host "
				"alone, or hosts with their targets", *nh);
	if (*nt > NTP_MAX_DBS - 2)
		return ntp_fail(err, errlen, "%d targets: at most %d, beside one host and the "
				"merged file", *nt, NTP_MAX_DBS - 2);
	return 0;
}

/* The same recording twice (copies of one file under two names) is seen
 * only when all are in. */
static int check_copies(sqlite3 *db, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT min(path), max(path) FROM ntp_merged_recording"
			       " GROUP BY hostname, wall_start, mono_start HAVING count(*) > 1",
			       -1, &st, NULL) != SQLITE_OK)
		return ntp_fail(err, errlen, "cannot check the merged file: %s", sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = ntp_fail(err, errlen, "%s and %s: the same recording twice (copies of one "
			      "file)", sqlite3_column_text(st, 0), sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	return rc;
}

/* OUT, new, with the tables of what went in (ATTACH does not create a
 * file: the session's connection may not). */
static int create_out(const char *out, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int rc;

	rc = sqlite3_open_v2(out, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
		     SQLITE_OK ||
	     sqlite3_exec(db, ntp_sql_merged, NULL, NULL, NULL) != SQLITE_OK;
	if (rc)
		ntp_fail(err, errlen, "%s: cannot create: %s", out, db ? sqlite3_errmsg(db) :
			 "out of memory");
	sqlite3_close(db);
	return rc ? -1 : 0;
}

/* The last touches, in the output alone: the header that marks it as
 * ntprof's, the row that says it is merged, indexes for the join. */
static int finish(const char *out, int nrec, char *err, size_t errlen)
{
	char *sql = sqlite3_mprintf(
		"PRAGMA application_id = %d; PRAGMA user_version = %d;"
		"INSERT INTO ntp_merged VALUES ('merged', %d, %Q, %d);\n%s",
		NTP_APPLICATION_ID, NTP_SCHEMA_VERSION, NTP_SCHEMA_VERSION, NTP_VERSION, nrec,
		ntp_sql_merged_index);
	sqlite3 *db = NULL;
	int rc;

	rc = !sql || sqlite3_open_v2(out, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	     check_copies(db, err, errlen) ? -1 : 0;
	if (!rc && sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		rc = ntp_fail(err, errlen, "%s: cannot finish the merged file: %s", out,
			      sqlite3_errmsg(db));
	else if (rc && !*err)
		ntp_fail(err, errlen, "%s: cannot open the merged file", out);
	sqlite3_close(db);
	sqlite3_free(sql);
	return rc;
}

int ntp_merge(const char *out, int n, char *const *paths, int flags, char *err,
	      size_t errlen)
{
	char *h[NTP_MAX_RECORDINGS], *t[NTP_MAX_RECORDINGS], *batch[NTP_MAX_DBS];
	int nh, nt, per, ord = 0, rc = 0, mine;
	struct stat st;

	*err = 0;
	if (n < 1)
		return ntp_fail(err, errlen, "no recording given");
	if (n > NTP_MAX_RECORDINGS)
		return ntp_fail(err, errlen, "%d recordings: at most %d in one merged file", n,
				NTP_MAX_RECORDINGS);
	if (!lstat(out, &st))
		return ntp_fail(err, errlen, "%s: exists; the merged file is written new", out);
	if (inventory(n, paths, h, &nh, t, &nt, err, errlen))
		return -1;
	/* every target in each batch (its hosts pair with it), and the output */
	per = NTP_MAX_DBS - 1 - nt;
	/* from here on OUT is ours: an interrupted merge leaves no part of it */
	mine = ntp_remove_on_signal(out, NULL);
	rc = create_out(out, err, errlen);
	for (int first = 0; !rc && first < nh; first += per) {
		int k = nh - first < per ? nh - first : per;

		memcpy(batch, h + first, sizeof(*batch) * (size_t)k);
		memcpy(batch + k, t, sizeof(*batch) * (size_t)nt);
		rc = merge_batch(out, k + nt, batch, first, &ord, flags, err, errlen);
	}
	if (!rc)
		rc = finish(out, n, err, errlen);
	if (rc) {
		char journal[4096];

		snprintf(journal, sizeof(journal), "%s-journal", out);
		unlink(out);
		unlink(journal);
	}
	if (mine)
		ntp_remove_forget(0);
	return rc;
}

/* More recordings than SQLite attaches: merge them into a file of our own
 * in TMPDIR and open that. */
static int open_merged_tmp(struct ntp_session *s, int n, char *const *paths, int flags,
			   char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], *file;
	int run = 0;

	snprintf(dir, sizeof(dir), "%s/ntprof-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	memset(s, 0, sizeof(*s));
	if (!mkdtemp(dir))
		return ntp_fail(err, errlen, "%d recordings: cannot make a directory to merge them "
				"in %s: %s", n, tmp && *tmp ? tmp : "/tmp", strerror(errno));
	file = sqlite3_mprintf("%s/merged.ntp", dir);
	if (!file) {
		rmdir(dir);
		return ntp_fail(err, errlen, "out of memory");
	}
	ntp_remove_on_signal(file, dir);
	if (ntp_merge(file, n, paths, flags, err, errlen) ||
	    ntp_session_open_runs(s, 1, &file, &run, &paths[0], 1, flags, err, errlen)) {
		ntp_remove_forget(1);
		sqlite3_free(file);
		return -1;
	}
	s->tmp_merged = file;
	return 0;
}

int ntp_session_open(struct ntp_session *s, int n, char *const *paths, int flags, char *err,
		     size_t errlen)
{
	int run[NTP_MAX_DBS] = { 0 };
	char *label[1] = { n > 0 ? paths[0] : "" };

	if (n > NTP_MAX_RECORDINGS) {
		memset(s, 0, sizeof(*s));
		return ntp_fail(err, errlen, "%d databases: at most %d in one session", n,
				NTP_MAX_RECORDINGS);
	}
	if (n > NTP_MAX_DBS)
		return open_merged_tmp(s, n, paths, flags, err, errlen);
	return ntp_session_open_runs(s, n, paths, run, label, 1, flags, err, errlen);
}
