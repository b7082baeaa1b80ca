// SPDX-License-Identifier: BSD-2-Clause
/*
 * Opening a session over recordings, and closing it: each file's header
 * checked (lib/check.c) and read in a private copy if it was not closed
 * (lib/copy.c); its role learnt from its schema alone, then attached
 * read-only under its role's name (host, host2, ..., target, merged) to an
 * in-memory main database in defensive mode, checked whole and its meta
 * read (lib/meta.c); the set checked to go together, and the TEMP views
 * created over it (lib/setup.c). Nothing here writes to a recording. Two
 * files that are one, under two names, are refused; a host and a target
 * recorded at different times are warned of. ntp_file_role learns one
 * file's role the same way, for ntprof merge.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cache.h"
#include "ntp_check.h"
#include "ntp_copy.h"
#include "ntp_err.h"
#include "ntp_exec.h"
#include "ntp_meta.h"
#include "ntp_progress.h"
#include "ntp_remove_on_signal.h"
#include "ntp_session.h"
#include "ntp_setup.h"

static int attach_one(struct ntp_session *s, struct ntp_dbinfo *d, char *err, size_t errlen)
{
	char *uri = ntp_immutable_uri(d->open_path), *sql;
	struct stat before;
	int rc;

	if (!uri)
		return ntp_fail(err, errlen, "%s: out of memory", d->path);
	if (ntp_peek_role(uri, d, err, errlen)) {
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
	/* the file's identity as attached, for a check in a thread of its own
	 * (which attaches it by name again) */
	if (stat(d->open_path, &before))
		memset(&before, 0, sizeof(before));
	sql = sqlite3_mprintf("ATTACH %Q AS %w", uri, d->schema);
	rc = sql ? ntp_exec(s->db, sql) : -1;
	sqlite3_free(sql);
	if (rc) {
		free(uri);
		return ntp_fail(err, errlen, "%s: cannot attach: %s", d->path, sqlite3_errmsg(s->db));
	}
	if (!(s->flags & NTP_OPEN_NO_CHECK)) {
		/* once per file: a file found whole before, unchanged since, is
		 * not read through again (lib/cache.c) */
		char *id;

		if (ntp_cache_needs_check(s, d, &id)) {
			/* on another core while this one goes on: its verdict
			 * before anything is said of the file (ntp_session_checked) */
			if (s->flags & NTP_OPEN_CHECK_LATE &&
			    (d->check = ntp_check_integrity_begin(s->db, uri, d, &before))) {
				d->check_id = id;
			} else {
				const char *prev = ntp_progress_begin(s, "checking the integrity "
								      "of the files");

				rc = ntp_check_integrity(s->db, d, err, errlen);
				ntp_progress_end(s, prev);
				if (rc) {
					sqlite3_free(id);
					free(uri);
					return -1;
				}
				ntp_cache_mark_checked(s, d, id);
			}
		}
	}
	free(uri);
	if (!strcmp(d->role, "merged")) {
		s->nmerged++;
		return ntp_check_merged_values(s->db, d, err, errlen) ||
		       ntp_read_merged(s, d, err, errlen) ? -1 : 0;
	}
	if (ntp_check_recording_values(s->db, d, err, errlen) ||
	    ntp_read_meta(s->db, d, err, errlen))
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
	/* what ntprof's questions read: the end to end only for plain
	 * sqlite3's set-up (ntp_session_prepare_more) */
	s->prepare_base = 1;
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
	/* 64 MiB of page cache for the TEMP tables of a big join; beyond it
	 * they spill to temporary files, so that runs of 10 M commands a side
	 * are prepared and compared in bounded memory (docs/performance.md,
	 * "At scale"). The main database holds nothing, but SQLite's sorter
	 * takes its cache size as the size of the runs it sorts in memory
	 * before merging them: 2 MiB runs sort a million keys twice as fast
	 * as 64 MiB ones (CREATE INDEX, ORDER BY, window functions alike).
	 * NOMUTEX: one thread uses a session, and the native functions' calls
	 * per row and column would each take the connection's mutex
	 * otherwise. */
	if (sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK || ntp_harden(s->db) ||
	    ntp_exec(s->db, "PRAGMA cache_size = -2048; PRAGMA temp.cache_size = -65536")) {
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
		if (ntp_check_header(d, err, errlen) || ntp_choose_file(s, d, err, errlen) ||
		    attach_one(s, d, err, errlen))
			goto bad;
	}
	order_by_role(s);
	if (check_set(s, err, errlen) || ntp_create_views(s, flags, err, errlen))
		goto bad;
	/* of files that pass their checks */
	if (!(flags & (NTP_OPEN_MERGING | NTP_OPEN_QUIET)))
		s->warn_late = 1;
	ntp_progress_end(s, progress);
	/* the warning now, unless checks run on (no check left running fails) */
	if (!(flags & NTP_OPEN_CHECK_LATE))
		ntp_session_checked(s, err, errlen);
	return 0;
bad:
	/* a file that fails its check: that is why, whatever failed since */
	ntp_session_checked(s, err, errlen);
	ntp_session_close(s);
	return -1;
}

int ntp_session_checked(struct ntp_session *s, char *err, size_t errlen)
{
	const char *progress = NULL;
	char why[NTP_ERR_MAX];

	for (int i = 0; i < s->ndbs; i++) {
		struct ntp_dbinfo *d = &s->dbs[i];

		if (!d->check)
			continue;
		if (!progress)
			progress = ntp_progress_begin(s, "checking the integrity of the files");
		/* no SQLite statement runs the progress line meanwhile */
		while (!ntp_check_integrity_wait(d->check, 0.1))
			ntp_progress_tick(s);
		if (ntp_check_integrity_end(d->check, s->db, d, why, sizeof(why))) {
			sqlite3_free(d->check_id);
			if (!s->check_failed) {
				s->check_failed = 1;
				s->check_err = strdup(why);
			}
		} else {
			ntp_cache_mark_checked(s, d, d->check_id);
		}
		d->check = NULL;
		d->check_id = NULL;
	}
	if (progress)
		ntp_progress_end(s, progress);
	if (s->check_failed)
		return ntp_fail(err, errlen, "%s", s->check_err ? s->check_err :
				"a file fails SQLite's integrity check (out of memory for why)");
	if (s->warn_late) {
		s->warn_late = 0;
		warn_windows(s);
	}
	return 0;
}

void ntp_session_close(struct ntp_session *s)
{
	char why[NTP_ERR_MAX];

	for (int i = 0; i < s->ndbs; i++)
		if (s->dbs[i].check) {
			ntp_check_integrity_end(s->dbs[i].check, NULL, &s->dbs[i], why, sizeof(why));
			sqlite3_free(s->dbs[i].check_id);
		}
	free(s->check_err);
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
	sqlite3_free(s->runs_setup);
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
	rc = ntp_check_header(&d, err, errlen) || ntp_choose_file(NULL, &d, err, errlen) ? -1 : 0;
	if (!rc && !(uri = ntp_immutable_uri(d.open_path)))
		rc = ntp_fail(err, errlen, "%s: out of memory", path);
	if (!rc)
		rc = ntp_peek_role(uri, &d, err, errlen);
	free(uri);
	remove_copy(&d);
	free(d.open_path);
	free(d.copy_dir);
	snprintf(role, 8, "%s", d.role);
	*dev = d.dev;
	*ino = d.ino;
	return rc;
}
