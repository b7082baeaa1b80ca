/* SPDX-License-Identifier: BSD-2-Clause */
/* The SQL a session sets itself up with (lib/setup.c), for the files that
 * open one; ntp_session_sql and ntp_prelude_each are in ntp_session.h. */
#ifndef NTP_SETUP_H
#define NTP_SETUP_H

#include <stddef.h>

#include <sqlite3.h>

#include "ntp_session.h"

/* The read-only file: URI of PATH for a file nothing else writes: no
 * locks, no -shm, no -wal looked for or made beside it. malloc'ed; NULL
 * when out of memory. */
char *ntp_immutable_uri(const char *path);

/* Defensive mode and the limits on DB, for a database from someone else
 * or SQL typed in: 0, or -1. */
int ntp_harden(sqlite3 *db);

/* The TEMP set-up over the session's attached recordings, and with
 * native functions unless FLAGS has NTP_OPEN_PORTABLE, sql/native.sql:
 * 0, or -1 with err set. */
int ntp_create_views(struct ntp_session *s, int flags, char *err, size_t errlen);

#endif
