// SPDX-License-Identifier: BSD-2-Clause
/*
 * The writers of lib/out.c and lib/json_writer.c on values chosen for their
 * edges: CSV quoting (RFC 4180, quoted where sqlite3 quotes), JSON
 * escaping, REALs as SQLite's text, NULL and infinities. The expected
 * bytes are written out from the rules (docs/shell.md, Output modes), not
 * copied from a run; tests/shell_test.sh compares the CSV with sqlite3's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ntp_out.h"

/* What ntp_out_query prints for SQL in MODE (headers on), as a string. */
static char *query_out(enum ntp_mode mode, const char *sql)
{
	char *buf = NULL, err[256] = "";
	size_t len = 0;
	sqlite3 *db;
	struct ntp_out o = { .mode = mode, .headers = 1 };

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	o.f = open_memstream(&buf, &len);
	assert_non_null(o.f);
	if (ntp_out_query(&o, db, sql, err, sizeof(err)))
		fail_msg("ntp_out_query: %s", err);
	fclose(o.f);
	sqlite3_close(db);
	return buf;
}

static void expect_out(enum ntp_mode mode, const char *sql, const char *want)
{
	char *got = query_out(mode, sql);

	assert_string_equal(got, want);
	free(got);
}

/* A field is quoted when it has a comma, a quote or a line break (RFC
 * 4180), or a space, an apostrophe, another control character or a byte
 * outside ASCII, or is empty text (sqlite3); quotes inside are doubled. A
 * CR is quoted and shown as '?': raw, it would hide on a terminal what
 * precedes it (sqlite3 writes it raw). */
static void test_csv_quoting(void **state)
{
	expect_out(NTP_MODE_CSV,
		   "SELECT 'plain' AS p, 'a,b' AS \"c,d\", 'say \"hi\"' AS q,"
		   " 'two' || char(10) || 'lines' AS lf, 'cr' || char(13) AS cr,"
		   " '' AS e, NULL AS z, 'it''s' AS ap, 'caf' || char(233) AS u,"
		   " 'tab' || char(9) AS t, 'a:b(1)' AS colon",
		   "p,\"c,d\",q,lf,cr,e,z,ap,u,t,colon\r\n"
		   "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr?\",\"\",,"
		   "\"it's\",\"caf\xc3\xa9\",\"tab\t\",a:b(1)\r\n");
}

/* A terminal escape in recorded text is quoted and shown as '?': C0 and
 * C1 (U+009B, a CSI) alike. */
static void test_csv_control(void **state)
{
	expect_out(NTP_MODE_CSV, "SELECT 'evil' || char(27) || ']0;x' || char(7) ||"
		   " char(155) || '[2J' AS h",
		   "h\r\n\"evil?]0;x??[2J\"\r\n");
}

/* Numbers: integers exactly, REALs as SQLite's text (what sqlite3 prints),
 * so an integral REAL keeps its ".0". */
static void test_csv_numbers(void **state)
{
	expect_out(NTP_MODE_CSV, "SELECT 42 AS i, -7 AS n, 2.5 AS r, 82.0 AS w, 1e20 AS b,"
		   " 0.1 AS t, -0.5 AS m",
		   "i,n,r,w,b,t,m\r\n42,-7,2.5,82.0,1.0e+20,0.1,-0.5\r\n");
}

/* A file that must say its columns (ntprof export): with empty_header, the
 * header also without rows; rows counts the rows printed over the calls. */
static void test_csv_empty_header(void **state)
{
	char *buf = NULL, err[256] = "";
	size_t len = 0;
	sqlite3 *db;
	struct ntp_out o = { .mode = NTP_MODE_CSV, .headers = 1, .empty_header = 1 };

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	o.f = open_memstream(&buf, &len);
	assert_non_null(o.f);
	assert_int_equal(ntp_out_query(&o, db, "SELECT 1 AS a, 'x' AS \"b c\" WHERE 0", err,
				       sizeof(err)), 0);
	assert_int_equal(ntp_out_query(&o, db, "SELECT 1 AS a UNION ALL SELECT 2", err,
				       sizeof(err)), 0);
	o.mode = NTP_MODE_JSONL;
	assert_int_equal(ntp_out_query(&o, db, "SELECT 3 AS a", err, sizeof(err)), 0);
	fclose(o.f);
	sqlite3_close(db);
	assert_string_equal(buf, "a,\"b c\"\r\na\r\n1\r\n2\r\n{\"a\":3}\n");
	assert_int_equal(o.rows, 3);
	free(buf);
}

/* Several statements: each its header and rows; no rows, no header. */
static void test_csv_statements(void **state)
{
	expect_out(NTP_MODE_CSV, "SELECT 1 AS a; SELECT 2 AS b WHERE 0; SELECT 3 AS c;",
		   "a\r\n1\r\nc\r\n3\r\n");
}

/* JSON mode: one array per statement, strings escaped, REALs as SQLite's
 * text, NULL and infinities null, no rows []. */
static void test_json_mode(void **state)
{
	expect_out(NTP_MODE_JSON,
		   "SELECT 'a\"b\\c' || char(10) || char(27) AS s, NULL AS z, 42 AS i, 82.0 AS r,"
		   " 1e999 AS inf, -1e999 AS ninf UNION ALL SELECT 'x', 1, 2, 0.5, 3, 4;"
		   " SELECT 1 AS none WHERE 0;",
		   "[{\"s\":\"a\\\"b\\\\c\\n\\u001b\",\"z\":null,\"i\":42,\"r\":82.0,"
		   "\"inf\":null,\"ninf\":null},\n"
		   "{\"s\":\"x\",\"z\":1,\"i\":2,\"r\":0.5,\"inf\":3,\"ninf\":4}]\n"
		   "[]\n");
}

/* The JSON document writer with rows of a statement in it, as the report
 * uses it. */
static void test_json_writer_rows(void **state)
{
	struct ntp_json w;
	sqlite3_stmt *st;
	char *buf = NULL;
	size_t len = 0;
	sqlite3 *db;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT 1 AS i, 2.0 AS r, 'q\"' AS s, NULL AS z"
					    " UNION ALL SELECT 3, 4.25, char(9), 1e999", -1, &st,
					    NULL), SQLITE_OK);
	ntp_json_init(&w, f);
	ntp_json_start_object(&w);
	ntp_json_string_field(&w, "name", "x" "\x01" "y");
	ntp_json_name(&w, "rows");
	ntp_json_start_array(&w);
	while (sqlite3_step(st) == SQLITE_ROW)
		assert_int_equal(ntp_json_row(&w, st), 0);
	ntp_json_end_array(&w);
	sqlite3_reset(st);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(ntp_json_columns(&w, st), 0);
	ntp_json_name(&w, "none");
	ntp_json_raw(&w, "null");
	ntp_json_end_object(&w);
	sqlite3_finalize(st);
	sqlite3_close(db);
	fclose(f);
	assert_string_equal(buf,
		"{\"name\": \"x\\u0001y\", \"rows\": [{\"i\": 1, \"r\": 2.0, \"s\": \"q\\\"\","
		" \"z\": null}, {\"i\": 3, \"r\": 4.25, \"s\": \"\\t\", \"z\": null}],"
		" \"i\": 1, \"r\": 2.0, \"s\": \"q\\\"\", \"z\": null, \"none\": null}\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_quoting),
		cmocka_unit_test(test_csv_control),
		cmocka_unit_test(test_csv_numbers),
		cmocka_unit_test(test_csv_statements),
		cmocka_unit_test(test_csv_empty_header),
		cmocka_unit_test(test_json_mode),
		cmocka_unit_test(test_json_writer_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
