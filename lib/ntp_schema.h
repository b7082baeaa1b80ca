/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The stored schema of a recording, in one place for the writer and the
 * reader: ntp_db_create applies it to a new file; lib/check.c applies it to
 * an in-memory reference and compares a file's schema with that.
 */
#ifndef NTP_SCHEMA_H
#define NTP_SCHEMA_H

#include <sqlite3.h>

/* NTP_APPLICATION_ID ('ntpf') and NTP_SCHEMA_VERSION: sql/schema.sql's
 * PRAGMA application_id and user_version, generated from it at build time
 * (Makefile); tests/schema.sha256 pins the stored SQL of this version */
#include "ntp_schema_ids.h"

/* Create the stored tables and views of a host (HOST 1) or a target
 * database in DB: sql/schema.sql, vocab.sql, the role's table and views,
 * views.sql. Returns SQLite's result code. */
int ntp_schema_apply(sqlite3 *db, int host);

/* The tables of a merged file that say what went in are sql/merged.sql
 * (ntp_sql_merged); its other tables are the prelude's views, created by
 * CREATE TABLE AS. */

#endif
