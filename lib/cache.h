/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Prepared runs kept between processes (docs/performance.md, "How a run is
 * prepared"): the TEMP tables ntp_session_prepare computes, in a cache
 * file keyed by the recordings' identity, authenticated by a per-user
 * secret, trusted for nothing but speed.
 */
#ifndef NTP_CACHE_H
#define NTP_CACHE_H

#include "ntp_session.h"

/* Read the session's prepared tables from its cache file, if one is there
 * and passes every check, and redefine the cached views as reads of it:
 * 1. 0 when there is none (or it is refused, said on stderr, and removed):
 * prepare the run (ntp_cache_begin, ntp_cache_keep). Never fails the
 * session. */
int ntp_cache_load(struct ntp_session *s);

/* A session of several runs (ntprof compare) that has no prepared run of
 * its own, whose every run was prepared and kept alone (by a report, the
 * shell or plot of it): read each run's file, checked as ntp_cache_load
 * checks one, and redefine each cached view as the union of the runs'
 * tables, the recordings renamed as the session names them. The
 * comparison's statistics (ntp_compare_stage) stay views over those. 1,
 * or 0 when a run has no such file, the runs differ in shape (a merged
 * file, a run with a target and one without), SQLite cannot attach them
 * all, or a file is refused (said on stderr; removed when it is the one
 * at fault): lib/prepare.c then prepares each run without a file alone
 * (ntp_cache_runs_apart), or the runs together. Never fails the
 * session. */
int ntp_cache_load_runs(struct ntp_session *s);

/* Detach the runs' files ntp_cache_load_runs read (the views over them
 * then read nothing until they are read again). */
void ntp_cache_unload_runs(struct ntp_session *s);

/* Can the session's runs be prepared and kept each alone and then read
 * together (ntp_cache_load_runs): several runs, each one host and at most
 * one target, all with a target or none, files of their own, the cache
 * usable, room to attach a file per run? */
int ntp_cache_runs_apart(struct ntp_session *s);

/* A run about to be prepared and kept: a new file in the cache directory,
 * holding the key, attached as ntp_cache_schema() for ntp_session_prepare
 * to write the prepared tables into (sql/join.sql, _ntp_prepare_into)
 * inside one transaction. NULL when the run is not to be kept, or cannot
 * be (the tables then go to TEMP). Never fails the session. */
struct ntp_cache_new *ntp_cache_begin(struct ntp_session *s);

/* A run read from its cache file (ntp_cache_load) or kept that lacks the
 * tables prepared only for the sessions that want them (sql/join.sql,
 * cache_when 3 and 4), for a session that wants them: a copy of its file
 * in the cache directory, attached in its place as ntp_cache_schema() to
 * add them to in one transaction, then kept (ntp_cache_keep) or
 * abandoned (ntp_cache_abandon: the file read before attached again).
 * NULL when it cannot be had (the original still attached). */
struct ntp_cache_new *ntp_cache_begin_more(struct ntp_session *s);

/* Is SQLite's (extended) error CODE a failure of the disk rather than of
 * the SQL: a file system full or failing, a file that cannot be opened? */
int ntp_cache_disk_error(int code);

/* The schema name the prepared tables are read from, kept or read. */
const char *ntp_cache_schema(void);

/* The preparation into W failed: roll back its transaction (the views as
 * they were), detach and remove the file. W may be NULL. */
void ntp_cache_abandon(struct ntp_session *s, struct ntp_cache_new *w);

/* After ntp_session_prepare computed the tables (in TOOK seconds) and, with
 * W, committed them into W's file: keep that file for the processes after
 * this one (its MAC, then renamed in, then read read-only as a later
 * session reads it), evict the least recently used files beyond the cap,
 * and say on stderr how long the preparation took when it took long.
 * Frees W. 0, or -1 when the kept tables cannot be read again (the
 * session's views then fail). */
int ntp_cache_keep(struct ntp_session *s, struct ntp_cache_new *w, double took);

/* Does the session read and keep prepared runs (not --no-cache, a merge's
 * batch, or a temporary merged file or private copy)? */
int ntp_cache_usable(const struct ntp_session *s);

/* For plain sqlite3 (ntp_session_sql): SQL that attaches the cache file
 * the session read or kept, read-only, and redefines the cached views as
 * reads of its tables, as ntp_cache_load does; NULL when the session has
 * none (or it would take SQLite's last attachment). sqlite3_free it. */
char *ntp_cache_setup_sql(const struct ntp_session *s);

/* Must SQLite's integrity check read recording D (opened, not yet
 * checked)? 0 when the cache directory remembers that this very file (its
 * identity, as the cache key has it) was found whole; 1 otherwise, with
 * *ID the file's identity as it is now (or NULL: nothing to remember),
 * for ntp_cache_mark_checked after the check passed. Never with
 * --no-cache, nor for a private copy. */
int ntp_cache_needs_check(struct ntp_session *s, const struct ntp_dbinfo *d, char **id);

/* Remember that D, whose identity before the check was ID, was found
 * whole, if it is still that file; frees ID (NULL: nothing). */
void ntp_cache_mark_checked(struct ntp_session *s, const struct ntp_dbinfo *d, char *id);

#endif
