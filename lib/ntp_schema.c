// SPDX-License-Identifier: BSD-2-Clause
/* The stored schema, for writer and reader alike (ntp_schema.h). */
#include <stddef.h>

#include "ntp_schema.h"
#include "ntp_sql.h"

int ntp_schema_apply(sqlite3 *db, int host)
{
	const char *const sql[] = {
		ntp_sql_schema, ntp_sql_vocab, host ? ntp_sql_host : ntp_sql_target,
		host ? ntp_sql_host_views : ntp_sql_target_views, ntp_sql_views,
	};
	int rc = SQLITE_OK;

	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]) && rc == SQLITE_OK; i++)
		rc = sqlite3_exec(db, sql[i], NULL, NULL, NULL);
	return rc;
}

/* The file ntp_merge writes, and what went in. */
const char ntp_merged_sql[] =
	"CREATE TABLE ntp_merged (\n"
	"  role TEXT NOT NULL,              -- 'merged'\n"
	"  schema_version INTEGER NOT NULL, -- the recordings' schema version\n"
	"  ntprof TEXT NOT NULL,            -- the version of ntprof that merged them\n"
	"  recordings INTEGER NOT NULL      -- rows in ntp_merged_recording\n"
	");\n"
	"CREATE TABLE ntp_merged_recording (\n"
	"  ord INTEGER PRIMARY KEY, -- its place: hosts first, in the order given\n"
	"  db TEXT NOT NULL UNIQUE, -- its name in every table's db, hdb, tdb\n"
	"  path TEXT NOT NULL,      -- the file, as given to ntprof merge\n"
	"  role TEXT NOT NULL, driver TEXT NOT NULL, transport TEXT NOT NULL,\n"
	"  hostname TEXT NOT NULL, kernel TEXT NOT NULL, -- its meta\n"
	"  sample_rate INTEGER NOT NULL, records INTEGER NOT NULL, lost INTEGER NOT NULL,\n"
	"  wall_start INTEGER NOT NULL, mono_start INTEGER NOT NULL\n"
	");\n"
	"CREATE TABLE ntp_merged_hook (\n"
	"  db TEXT NOT NULL, -- ntp_merged_recording.db\n"
	"  name TEXT, attach_to TEXT, kind TEXT, points TEXT -- its hook table's row\n"
	");\n";
