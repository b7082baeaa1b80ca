// SPDX-License-Identifier: BSD-2-Clause
/*
 * Preparing a session: the views the SQL's plan caches (sql/join.sql,
 * _ntp_view_plan) computed once into tables (of the cache file the run is
 * kept in, or TEMP), or read from the run an earlier process prepared and
 * kept (lib/cache.c); a view no report needs
 * cached when asked for; whether a query should wait for the preparation.
 */
#include <string.h>
#include <time.h>

#include "cache.h"
#include "ntp_err.h"
#include "ntp_exec.h"
#include "ntp_progress.h"
#include "ntp_session.h"

/* Run the preparation's SQL with its tables in SCHEMA (sql/join.sql,
 * _ntp_prepare_into). 0, or -1 (sqlite3_errmsg says why). */
static int run_prepare(struct ntp_session *s, const char *schema)
{
	char *set = sqlite3_mprintf("UPDATE _ntp_prepare_into SET schema = %Q", schema);
	char *sql = NULL;
	int rc;

	if (set && !ntp_exec(s->db, set))
		sql = ntp_query_text(s->db, "SELECT sql FROM _ntp_prepare_sql");
	/* 'temp' again at once: what plain sqlite3's set-up prints reads it */
	rc = !sql || ntp_exec(s->db, "UPDATE _ntp_prepare_into SET schema = 'temp'") ||
	     ntp_exec(s->db, sql);
	sqlite3_free(sql);
	sqlite3_free(set);
	return rc ? -1 : 0;
}

/* Which views the next run_prepare computes (sql/join.sql,
 * _ntp_prepare_want): with MORE those of cache_when 3 and 4 too, with ONLY
 * those alone. */
static int want(struct ntp_session *s, int more, int only)
{
	char *sql = sqlite3_mprintf("UPDATE _ntp_prepare_want SET more = %d, only_more = %d",
				    more, only);
	int rc = !sql || ntp_exec(s->db, sql) ? -1 : 0;

	sqlite3_free(sql);
	return rc;
}

/* Has this session views of cache_when 3 and 4 to cache (sql/cache.sql)? */
static int has_more(struct ntp_session *s)
{
	sqlite3_stmt *st;
	int more = 0;

	if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM _ntp_cache_table WHERE more", -1, &st,
			       NULL) == SQLITE_OK)
		more = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return more;
}

static double since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Run the preparation's SQL into *W's file in one transaction, or without
 * *W, or after a disk error there (said; *W abandoned and NULL), into
 * TEMP. MORE: prepare_more's, whose abandoned copy gives the session back
 * the kept file (without it, that error fails the preparation too). WHAT
 * begins an error. 0, or -1 with ERR set. */
static int prepare_into(struct ntp_session *s, struct ntp_cache_new **w, int more,
			const char *what, char *err, size_t errlen)
{
	int rc = -1;

	if (*w) {
		rc = ntp_exec(s->db, "BEGIN") || run_prepare(s, ntp_cache_schema()) ||
		     ntp_exec(s->db, "COMMIT") ? -1 : 0;
		if (rc) {
			int code = sqlite3_extended_errcode(s->db);

			ntp_fail(err, errlen, "%s: %s", what, sqlite3_errmsg(s->db));
			ntp_cache_abandon(s, *w);
			*w = NULL;
			/* the cache directory's file system full or failing,
			 * where TEMP may still have room */
			if (!ntp_cache_disk_error(code) || (more && !s->joined))
				return -1;
			/* not kept, but prepared */
			ntp_say(s, "warning: the prepared run cannot be written in the cache directory "
			    "(%s); preparing it without keeping it", err);
		}
	}
	if (rc && run_prepare(s, "temp"))
		return ntp_fail(err, errlen, "%s: %s", what, sqlite3_errmsg(s->db));
	return 0;
}

/* A session prepared (or read from its cache file) without the views of
 * cache_when 3 and 4 that now wants them: those alone, added to a copy of
 * the kept file, or into TEMP. */
static int prepare_more(struct ntp_session *s, char *err, size_t errlen)
{
	struct ntp_cache_new *w = NULL;
	struct timespec t0;
	const char *progress;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	progress = ntp_progress_begin(s, "computing the per-command end to end");
	if (want(s, 1, 1)) {
		rc = ntp_fail(err, errlen, "cannot prepare the run: %s", sqlite3_errmsg(s->db));
	} else {
		w = ntp_cache_begin_more(s);
		rc = prepare_into(s, &w, 1, "cannot prepare the run", err, errlen);
	}
	ntp_progress_end(s, progress);
	if (rc)
		return -1;
	s->more_missing = 0;
	if (want(s, 1, 0) || ntp_cache_keep(s, w, since(&t0)))
		return ntp_fail(err, errlen, "cannot read the prepared run again: %s",
				sqlite3_errmsg(s->db));
	return 0;
}

/* The thresholds of S's verdicts (ntp_report_threshold) set in ONE too: a
 * run's prepared verdicts are those of the session that reads them.
 * 0 or -1. */
static int same_thresholds(struct ntp_session *s, struct ntp_session *one)
{
	sqlite3_stmt *st;
	sqlite3_str *q = sqlite3_str_new(NULL);
	char *sql;
	int rc = -1;

	sqlite3_str_appendall(q, "UPDATE ntp_report_threshold SET ");
	if (sqlite3_prepare_v2(s->db, "SELECT * FROM ntp_report_threshold", -1, &st,
			       NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(st); i++)
			sqlite3_str_appendf(q, "%s\"%w\" = %s", i ? ", " : "",
					    sqlite3_column_name(st, i),
					    (const char *)sqlite3_column_text(st, i));
		rc = 0;
	}
	sqlite3_finalize(st);
	sql = sqlite3_str_finish(q);
	if (!rc)
		rc = !sql || ntp_exec(one->db, sql) ? -1 : 0;
	sqlite3_free(sql);
	return rc;
}

/* A session of several runs that no earlier process prepared, whose runs
 * can be kept apart (ntp_cache_runs_apart): each run is prepared alone, as
 * a report of it would be, and kept in a file of its own (or read from
 * one), then the runs are read together from their files. Runs read so
 * already, that now want the end to end, get it the same way: each run's
 * session adds it to its file, and the files are read anew. A report of a
 * run, or a comparison with another, then reads it as it is. The files'
 * checks are taken first: nothing is kept of a file that fails. 1 when the
 * runs were read so; 0 when they were not (a file could not be kept): the
 * session prepares them together; -1 on an error, ERR set. */
static int prepare_runs_alone(struct ntp_session *s, char *err, size_t errlen)
{
	int flags = (s->flags & (NTP_OPEN_PORTABLE | NTP_OPEN_PROGRESS)) | NTP_OPEN_NO_CHECK |
		    NTP_OPEN_QUIET;

	if (ntp_session_checked(s, err, errlen))
		return -1;
	for (int r = 0; r < s->nruns; r++) {
		char *paths[2];
		struct ntp_session one;
		int n = 0, rc;

		/* the run's host, then its target: as a report of it names them */
		for (int i = 0; i < s->ndbs && n < 2; i++)
			if (s->dbs[i].run == r)
				paths[n++] = s->dbs[i].path;
		/* (ntp_session_open's session of a few files, without the
		 * merge it links for many: the collector links this file) */
		if (ntp_session_open_batch(&one, n, paths, 0, flags, err, errlen))
			return -1;
		/* the tables this session wants, the end to end too if so */
		one.prepare_base = s->prepare_base;
		rc = same_thresholds(s, &one) ? ntp_fail(err, errlen, "out of memory") :
		     ntp_session_prepare(&one, err, errlen);
		ntp_session_close(&one);
		if (rc)
			return -1;
	}
	/* runs read before (each without the end to end, now added): read anew */
	if (s->runs_setup) {
		ntp_cache_unload_runs(s);
		return ntp_cache_load_runs(s) ? 1 :
		       ntp_fail(err, errlen, "cannot read the prepared runs again");
	}
	return ntp_cache_load_runs(s);
}

static int prepare(struct ntp_session *s, char *err, size_t errlen)
{
	/* Each view the SQL's plan caches (join.sql, _ntp_view_plan) is
	 * computed once into a table and the view replaced by a read of it:
	 * the same rows, without redoing the join and the percentiles for
	 * every query. A run that is to be kept is prepared straight into its
	 * cache file (lib/cache.c), in one transaction; otherwise into TEMP
	 * tables. A session that reads only what a report reads
	 * (prepare_base) leaves the views of cache_when 3 and 4 out; one
	 * that wants them later adds them (prepare_more). */
	struct ntp_cache_new *w;
	struct timespec t0;
	const char *progress;
	int rc;

	/* prepared by an earlier process (lib/cache.c): these runs together,
	 * or each run alone */
	if (!s->joined && (ntp_cache_load(s) || ntp_cache_load_runs(s)))
		s->joined = 1;
	/* several runs: each prepared and kept alone, then read together */
	if (!s->joined && ntp_cache_runs_apart(s)) {
		int apart = prepare_runs_alone(s, err, errlen);

		if (apart < 0)
			return -1;
		s->joined = apart;
	}
	/* (nothing added to a kept run of a file before its check's verdict) */
	/* runs read from their files, which lack the end to end: added to each
	 * run's file as a question of that run alone adds them, and read anew */
	if (s->joined && s->runs_setup && s->more_missing && !s->prepare_base)
		return prepare_runs_alone(s, err, errlen) < 0 ? -1 : 0;
	if (s->joined)
		return s->more_missing && !s->prepare_base ?
		       ntp_session_checked(s, err, errlen) || prepare_more(s, err, errlen) ? -1 : 0 :
		       0;
	if (want(s, !s->prepare_base, 0))
		return ntp_fail(err, errlen, "cannot join the recordings: %s", sqlite3_errmsg(s->db));
	s->more_missing = s->prepare_base && has_more(s);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	progress = ntp_progress_begin(s, s->ntargets ? "joining the recordings" :
				      "computing the statistics");
	w = ntp_cache_begin(s);
	rc = prepare_into(s, &w, 0, "cannot join the recordings", err, errlen);
	ntp_progress_end(s, progress);
	if (rc)
		return -1;
	/* nothing kept of a file that fails its check */
	if (ntp_session_checked(s, err, errlen)) {
		if (w)
			ntp_cache_abandon(s, w);
		return -1;
	}
	s->joined = 1;
	if (ntp_cache_keep(s, w, since(&t0))) {
		s->joined = 0;
		return ntp_fail(err, errlen, "cannot read the prepared run again: %s",
				sqlite3_errmsg(s->db));
	}
	return 0;
}

int ntp_session_prepare(struct ntp_session *s, char *err, size_t errlen)
{
	/* the files' integrity checks left running at open (NTP_OPEN_CHECK_LATE)
	 * end here, whatever came of the preparation: a damaged file's verdict
	 * is the error, not what its damage did to the join */
	int rc = prepare(s, err, errlen);

	return ntp_session_checked(s, err, errlen) ? -1 : rc;
}

int ntp_session_cache(struct ntp_session *s, const char *view, char *err, size_t errlen)
{
	char *cache = sqlite3_mprintf("_%s_cache", view + strspn(view, "_")), *build = NULL;
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (!cache)
		return ntp_fail(err, errlen, "out of memory");
	/* once a session: a shell asks again, and a prepared run's cache file
	 * read (lib/cache.c) holds it already, the view reading it */
	if (sqlite3_table_column_metadata(s->db, NULL, cache, NULL, NULL, NULL, NULL, NULL,
					  NULL) == SQLITE_OK) {
		sqlite3_free(cache);
		return 0;
	}
	if (sqlite3_prepare_v2(s->db, "SELECT coalesce((SELECT sql FROM _ntp_cache_build"
			       " WHERE name = ?1), printf('CREATE TEMP TABLE \"%w\" AS SELECT *"
			       " FROM \"%w\";', ?2, ?1))", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, view, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, cache, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			build = sqlite3_mprintf("%s\nDROP VIEW \"%w\";\n"
						"CREATE TEMP VIEW \"%w\" AS SELECT * FROM \"%w\";",
						sqlite3_column_text(st, 0), view, view, cache);
	}
	/* finalized first: a pending read of the TEMP schema would lock it */
	sqlite3_finalize(st);
	if (build)
		rc = ntp_exec(s->db, build);
	if (rc)
		ntp_fail(err, errlen, "cannot compute %s: %s", view, sqlite3_errmsg(s->db));
	sqlite3_free(build);
	sqlite3_free(cache);
	return rc ? -1 : 0;
}

int ntp_session_cache_where(struct ntp_session *s, const char *view, const char *where,
			    char *err, size_t errlen)
{
	const char *name = view + strspn(view, "_");
	char *part = sqlite3_mprintf("_%s_part", name), *rest = sqlite3_mprintf("_%s_rest", name);
	char *build = NULL, *head = sqlite3_mprintf("CREATE VIEW %s AS", view);
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (!part || !rest || !head) {
		ntp_fail(err, errlen, "out of memory");
		goto out;
	}
	if (sqlite3_table_column_metadata(s->db, NULL, part, NULL, NULL, NULL, NULL, NULL,
					  NULL) == SQLITE_OK) {
		rc = 0;
		goto out;
	}
	/* the view's own query, as the TEMP schema keeps it */
	if (sqlite3_prepare_v2(s->db, "SELECT substr(sql, length(?2) + 1) FROM sqlite_temp_schema"
			       " WHERE type = 'view' AND name = ?1 AND substr(sql, 1, length(?2)) = ?2",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, view, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, head, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			build = sqlite3_mprintf("CREATE TEMP VIEW \"%w\" AS %s;\n"
						"CREATE TEMP TABLE \"%w\" AS SELECT * FROM \"%w\" WHERE %s;\n"
						"DROP VIEW \"%w\";\n"
						"CREATE TEMP VIEW \"%w\" AS SELECT * FROM \"%w\"\n"
						"UNION ALL SELECT * FROM \"%w\" WHERE (%s) IS NOT TRUE;",
						rest, sqlite3_column_text(st, 0), part, rest, where, view,
						view, part, rest, where);
	}
	/* finalized first: a pending read of the TEMP schema would lock it */
	sqlite3_finalize(st);
	if (!build)
		ntp_fail(err, errlen, "cannot compute %s: no such view", view);
	else if (ntp_exec(s->db, build))
		ntp_fail(err, errlen, "cannot compute %s: %s", view, sqlite3_errmsg(s->db));
	else
		rc = 0;
out:
	sqlite3_free(build);
	sqlite3_free(head);
	sqlite3_free(rest);
	sqlite3_free(part);
	return rc;
}

int ntp_session_prepare_more(struct ntp_session *s, char *err, size_t errlen)
{
	int base = s->prepare_base, rc;

	/* wanted from now on: a session prepared without them adds them (not
	 * again at every question after a failure) */
	s->prepare_base = 0;
	rc = ntp_session_prepare(s, err, errlen);
	if (rc)
		s->prepare_base = base;
	return rc;
}

int ntp_session_needs_prepare(struct ntp_session *s, const char *sql)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (s->joined || sqlite3_prepare_v2(s->db, "SELECT 1 FROM _ntp_view_plan WHERE prepare"
					    " AND instr(lower(?1), lower(name)) > 0", -1, &st,
					    NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, sql, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return rc;
}
