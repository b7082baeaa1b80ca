/* SPDX-License-Identifier: BSD-2-Clause */
/* The checks of a file before anything in it is used (lib/check.c), for
 * the files that open one. Each returns 0, or -1 with err set. */
#ifndef NTP_CHECK_H
#define NTP_CHECK_H

#include <stddef.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "ntp_session.h"

/* D's file as given (d->path): its header, and its identity (d->dev,
 * d->ino: the same file twice); d->wal when it was not closed, to be read
 * in a private copy, whose header ntp_check_copy then checks whole. */
int ntp_check_header(struct ntp_dbinfo *d, char *err, size_t errlen);
int ntp_check_copy(const struct ntp_dbinfo *d, char *err, size_t errlen);

/* Attach URI, read-only, in a connection of its own and set d->role from
 * its schema alone: "host" or "target" for exactly ntprof's schema of
 * that role, "merged" for exactly a merged file's; anything else is
 * refused before it is read. */
int ntp_peek_role(const char *uri, struct ntp_dbinfo *d, char *err, size_t errlen);

/* SQLite's integrity check of the file D attached to DB as d->schema. */
int ntp_check_integrity(sqlite3 *db, const struct ntp_dbinfo *d, char *err, size_t errlen);

/* The same check of D's file (URI, as D is attached) in a connection and
 * a thread of their own, while the session (connection SESSION) goes on
 * with the file: begun, or NULL (no thread: check it now). BEFORE is the
 * file's stat when the session attached it: if the name has been given to
 * another file since, the thread checks nothing, and the end checks the
 * session's own. A failed check interrupts SESSION's statement (its work
 * is thrown away). Waited for at most SECONDS (1: done); then its verdict,
 * the thread joined and the job freed. Without a connection of its own
 * the check is made on DB, where D is attached (if DB: else -1 unsaid). */
struct ntp_check_job *ntp_check_integrity_begin(sqlite3 *session, const char *uri,
						const struct ntp_dbinfo *d,
						const struct stat *before);
int ntp_check_integrity_wait(struct ntp_check_job *j, double seconds);
int ntp_check_integrity_end(struct ntp_check_job *j, sqlite3 *db, const struct ntp_dbinfo *d,
			    char *err, size_t errlen);

/* No impossible values in the recording D, or the merged file M, attached
 * to DB: counts out of bounds, a stop before the start, a merged file's
 * tables that disagree. */
int ntp_check_recording_values(sqlite3 *db, const struct ntp_dbinfo *d, char *err,
			       size_t errlen);
int ntp_check_merged_values(sqlite3 *db, const struct ntp_dbinfo *m, char *err,
			    size_t errlen);

#endif
