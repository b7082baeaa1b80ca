// SPDX-License-Identifier: BSD-2-Clause
/*
 * check_sampled DB N: every command stored in the recording DB must be one
 * the sampling rule picks at one in N (bpf/ntprof_abi.h), computed here
 * from its stored identity. Prints the number of commands; exits 1 if any
 * was not to be sampled. SQLite cannot run the hash (its integers do not
 * wrap), hence a program.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ntprof_abi.h"

int main(int argc, char **argv)
{
	const char *sql =
		/* a fabrics command's NSID dword holds its command type */
		"SELECT c.qid, c.cid, g.opcode, CASE WHEN g.opcode = 127 THEN g.fctype ELSE d.nsid END,"
		" c.slba, g.nlb "
		"FROM cmd AS c JOIN grp AS g ON g.id = c.grp JOIN device AS d ON d.id = g.device";
	long n = 0, wrong = 0;
	sqlite3_stmt *st;
	sqlite3 *db;
	uint32_t rate;

	if (argc != 3 || (rate = (uint32_t)strtoul(argv[2], NULL, 10)) == 0) {
		fprintf(stderr, "usage: check_sampled DB N\n");
		return 2;
	}
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "check_sampled: %s: %s\n", argv[1], sqlite3_errmsg(db));
		return 2;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t h = ntp_sample_hash((__u16)sqlite3_column_int(st, 0),
					     (__u16)sqlite3_column_int(st, 1),
					     (__u8)sqlite3_column_int(st, 2),
					     (__u32)sqlite3_column_int64(st, 3),
					     (__u64)sqlite3_column_int64(st, 4),
					     (__u32)sqlite3_column_int64(st, 5));

		n++;
		wrong += !ntp_sampled(h, rate);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	printf("%ld\n", n);
	if (wrong)
		fprintf(stderr, "check_sampled: %ld of %ld commands are not sampled at 1 in %u\n",
			wrong, n, rate);
	return wrong != 0;
}
