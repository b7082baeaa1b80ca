// SPDX-License-Identifier: BSD-2-Clause
/*
 * lib/span.c against the views it stands for: every column of a host's and
 * a target's ntp_cmd_span that it computes, on every pattern of missing
 * points, as the view computes it (value, NULL, and the overflow where
 * SQLite's sum turns into a REAL).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "ntp_schema.h"
#include "ntprof_abi.h"
#include "span.h"
#include "testlib.h"

static const struct span_name {
	const char *role, *col;
	int id;
} span_names[] = {
#define NTP_SPAN(role, col, abs, keep, points) { #role, #col, NTP_SPAN_##role##_##col },
#include "ntp_span_cols.h"
#undef NTP_SPAN
};
#define NSPAN ((int)(sizeof(span_names) / sizeof(span_names[0])))

/* The view's columns lib/span.c does not compute: the identity, and a
 * test of two points. */
static const char *const not_derived[] = { "t", "grp", "qid", "cid", "slba", "waited" };

static int is_span(const char *role, const char *col)
{
	for (int i = 0; i < NSPAN; i++)
		if (!strcmp(span_names[i].role, role) && !strcmp(span_names[i].col, col))
			return 1;
	return 0;
}

/* A recording of ROLE in memory with its views, and meta's row. */
static sqlite3 *open_role(int host, int64_t mono_start)
{
	sqlite3 *db;
	char *sql;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(ntp_schema_apply(db, host), 0);
	sql = sqlite3_mprintf("INSERT INTO meta (schema_version, role, driver, transport,"
			      " hostname, kernel, sample_rate, wall_start, mono_start,"
			      " command_line, ntprof_version) VALUES (1, '%s', 'kernel', 'tcp',"
			      " 'h', 'k', 1, 0, %lld, 'c', 'v')", host ? "host" : "target",
			      (long long)mono_start);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_free(sql);
	return db;
}

/* Every span column of ROLE for the command at T against the view's. */
static void check_row(sqlite3 *db, const char *role, const struct ntp_span_in *in)
{
	for (int i = 0; i < NSPAN; i++) {
		const struct span_name *n = &span_names[i];
		sqlite3_stmt *st;
		char *sql;
		int64_t v;
		int null, over;

		if (strcmp(n->role, role))
			continue;
		sql = sqlite3_mprintf("SELECT %s FROM ntp_cmd_span WHERE t = %lld", n->col,
				      (long long)in->t);
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
		sqlite3_free(sql);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		over = ntp_span_value(n->id, in, &v, &null);
		switch (sqlite3_column_type(st, 0)) {
		case SQLITE_INTEGER:
			if (over || null || v != sqlite3_column_int64(st, 0))
				fail_msg("%s %s at t %lld: the view %lld, span.c %lld (null %d,"
					 " overflow %d)", role, n->col, (long long)in->t,
					 (long long)sqlite3_column_int64(st, 0), (long long)v, null,
					 over);
			break;
		case SQLITE_NULL:
			if (over || !null)
				fail_msg("%s %s at t %lld: the view NULL, span.c %lld", role,
					 n->col, (long long)in->t, (long long)v);
			break;
		case SQLITE_FLOAT:
			/* SQLite's sum overflowed into a REAL */
			if (!over)
				fail_msg("%s %s at t %lld: the view overflows, span.c %lld", role,
					 n->col, (long long)in->t, (long long)v);
			break;
		default:
			fail_msg("%s %s: a view column of another type", role, n->col);
		}
		sqlite3_finalize(st);
	}
}

/* Insert IN as cmd's row of ROLE. */
static void insert(sqlite3 *db, int host, const struct ntp_span_in *in)
{
	int npoints = host ? NTP_H_NPOINTS : NTP_T_NPOINTS;
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, host ?
		"INSERT INTO cmd VALUES (?, 1, 2, 3, 4, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" :
		"INSERT INTO cmd VALUES (?, 1, 2, 3, 4, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st,
		NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, in->t);
	for (int p = 0; p < npoints; p++)
		if (!((in->null >> p) & 1))
			sqlite3_bind_int64(st, 2 + p, in->point[p]);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

/* Every pattern of missing points, each with random deltas (some
 * negative, as a changed recording may hold). */
static void test_patterns(void **state)
{
	(void)state;
	srand(61);
	for (int host = 0; host < 2; host++) {
		const char *role = host ? "host" : "target";
		int npoints = host ? NTP_H_NPOINTS : NTP_T_NPOINTS;
		sqlite3 *db = open_role(host, 123456789012345);
		sqlite3_stmt *st;
		int derived = 0;

		for (uint32_t k = 0; k < 1u << npoints; k++) {
			struct ntp_span_in in = { .mono_start = 123456789012345, .t = 1000 + k,
						  .null = ~k & ((1u << npoints) - 1) };

			for (int p = 0; p < npoints; p++)
				in.point[p] = rand() % 2000000 - 1000;
			insert(db, host, &in);
			check_row(db, role, &in);
		}
		/* the view has no column of another form that span.c would
		 * leave out unseen */
		assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM"
						    " pragma_table_info('ntp_cmd_span')", -1, &st,
						    NULL), SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(st, 0);
			int known = is_span(role, name);

			derived += known;
			for (size_t i = 0; i < sizeof(not_derived) / sizeof(*not_derived); i++)
				known |= !strcmp(name, not_derived[i]);
			if (!known)
				fail_msg("%s ntp_cmd_span.%s: neither computed by span.c nor known"
					 " not to be (sql/span_columns.sh)", role, name);
		}
		sqlite3_finalize(st);
		/* host: sent_ns, wait_ns and nine components; target: rx_ns and
		 * six */
		assert_int_equal(derived, host ? 11 : 7);
		sqlite3_close(db);
	}
}

/* Sums past 64 bits: where the view's turns into a REAL, span.c says so;
 * a time of its own (mono_start + t) too. */
static void test_overflow(void **state)
{
	(void)state;
	for (int host = 0; host < 2; host++) {
		const char *role = host ? "host" : "target";
		int npoints = host ? NTP_H_NPOINTS : NTP_T_NPOINTS;
		int64_t mono[2] = { 1000, INT64_MAX - 500 };

		for (int m = 0; m < 2; m++) {
			sqlite3 *db = open_role(host, mono[m]);
			struct ntp_span_in in = { .mono_start = mono[m], .t = 1000 };
			int64_t v;
			int null, over = 0;

			for (int p = 0; p < npoints; p++)
				in.point[p] = m ? 1 : INT64_MAX / 3;
			insert(db, host, &in);
			check_row(db, role, &in);
			/* some column did overflow, end to end or the time */
			for (int i = 0; i < NSPAN; i++)
				if (!strcmp(span_names[i].role, role))
					over |= ntp_span_value(span_names[i].id, &in, &v, &null) != 0;
			assert_true(over);
			sqlite3_close(db);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
