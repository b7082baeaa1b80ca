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
