/* SPDX-License-Identifier: BSD-2-Clause */
/* Running SQL on a connection, for the files that open and prepare a
 * session: a script whose results are not wanted, one text value. */
#ifndef NTP_EXEC_H
#define NTP_EXEC_H

#include <sqlite3.h>

/* Run every statement of SQL: 0, or -1 (sqlite3_errmsg says why). */
static inline int ntp_exec(sqlite3 *db, const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* The text of the first column of SQL's first row, sqlite3_malloc'ed; NULL
 * on an error or without a row. */
static inline char *ntp_query_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	char *r = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW)
		r = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return r;
}

#endif
