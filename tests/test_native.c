// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntp_quantiles (lib/native.c) against a sort-based reference: the C
 * selection functions directly, the aggregate through SQL (linked in and as
 * the loadable extension), and the pure-SQL window form the portable views
 * use, which must give the very same numbers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "native.h"

/* Built by `make` before the tests run; a missing file is a failure. */
#define EXT_PATH ".output/ntprof_sqlite.so"

/* The three nearest-rank quantiles, in units of 1/100000. */
static const int64_t Q[4] = { 50000, 90000, 99000, 99900 };

static const char *const WINDOW_SQL =
	"WITH r AS (SELECT g, x, row_number() OVER (PARTITION BY g ORDER BY x) AS rn,"
	" count(*) OVER (PARTITION BY g) AS n FROM t WHERE x IS NOT NULL)"
	" SELECT g, max(CASE WHEN rn = (n*50000+99999)/100000 THEN x END),"
	" max(CASE WHEN rn=(n*99000+99999)/100000 THEN x END),"
	" max(CASE WHEN rn=(n*99900+99999)/100000 THEN x END) FROM r GROUP BY g ORDER BY g";

/* splitmix64: the same sequence everywhere, unlike rand(). */
static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
	rng_state = seed;
}

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int cmp32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

static int64_t *dup64(const int64_t *v, size_t n)
{
	int64_t *d = malloc((n ? n : 1) * sizeof(*d));

	assert_non_null(d);
	if (n)
		memcpy(d, v, n * sizeof(*d));
	return d;
}

/* The reference: sort a copy, take ranks (n*Q + 99999) / 100000 (1-based). */
static void ref_quantiles(const int64_t *v, size_t n, int64_t out[4])
{
	int64_t *s = dup64(v, n);

	assert_true(n > 0);
	qsort(s, n, sizeof(*s), cmp64);
	for (int i = 0; i < 4; i++) {
		size_t r = (size_t)(((int64_t)n * Q[i] + 99999) / 100000);

		assert_true(r >= 1 && r <= n);
		out[i] = s[r - 1];
	}
	free(s);
}

/* ntp_quantiles' result: [p50,p99,p999] */
static void fmt_q(char *buf, size_t len, const int64_t q[4])
{
	snprintf(buf, len, "[%" PRId64 ",%" PRId64 ",%" PRId64 "]", q[0], q[2], q[3]);
}

/* ntp_select_quantiles on a copy of SRC: the reference's values, and the
 * array it reordered still holds the same values. */
static void check_select64(const int64_t *src, size_t n)
{
	int64_t *v = dup64(src, n), *s = dup64(src, n);
	int64_t want[4], got[4] = { -1, -1, -1, -1 };

	ref_quantiles(src, n, want);
	assert_int_equal(ntp_select_quantiles(v, n, got), 0);
	assert_memory_equal(got, want, sizeof(want));
	qsort(v, n, sizeof(*v), cmp64);
	qsort(s, n, sizeof(*s), cmp64);
	assert_memory_equal(v, s, n * sizeof(*v));
	free(v);
	free(s);
}

/* The same through the int32_t copy of the code, when every value fits. */
static void check_select32(const int64_t *src, size_t n)
{
	int32_t *v = malloc(n * sizeof(*v)), *s = malloc(n * sizeof(*s));
	int64_t want[4], got[4] = { -1, -1, -1, -1 };

	assert_non_null(v);
	assert_non_null(s);
	for (size_t i = 0; i < n; i++) {
		assert_true(src[i] >= INT32_MIN && src[i] <= INT32_MAX);
		v[i] = s[i] = (int32_t)src[i];
	}
	ref_quantiles(src, n, want);
	assert_int_equal(ntp_select_quantiles32(v, n, got), 0);
	assert_memory_equal(got, want, sizeof(want));
	qsort(v, n, sizeof(*v), cmp32);
	qsort(s, n, sizeof(*s), cmp32);
	assert_memory_equal(v, s, n * sizeof(*v));
	free(v);
	free(s);
}

static void check_select(const int64_t *src, size_t n)
{
	int narrow = 1;

	for (size_t i = 0; i < n; i++)
		narrow &= src[i] >= INT32_MIN && src[i] <= INT32_MAX;
	check_select64(src, n);
	if (narrow)
		check_select32(src, n);
}

static const size_t SIZES[] = { 1, 2, 3, 99, 100, 101, 1000, 1001, 100000 };
#define NSIZES (sizeof(SIZES) / sizeof(SIZES[0]))

/* Values from GEN(i) for every size above. */
static void check_sizes(int64_t (*gen)(size_t i, size_t n), uint64_t seed)
{
	for (size_t s = 0; s < NSIZES; s++) {
		size_t n = SIZES[s];
		int64_t *v = malloc(n * sizeof(*v));

		assert_non_null(v);
		rng_seed(seed + s);
		for (size_t i = 0; i < n; i++)
			v[i] = gen(i, n);
		check_select(v, n);
		free(v);
	}
}

static int64_t gen_int32(size_t i, size_t n)
{
	return (int32_t)(uint32_t)rng();
}

static int64_t gen_duration(size_t i, size_t n)
{
	return (int64_t)(rng() % 5000000);
}

static int64_t gen_dups(size_t i, size_t n)
{
	return (int64_t)(rng() % 7);
}

static int64_t gen_equal(size_t i, size_t n)
{
	return 42;
}

static int64_t gen_negative(size_t i, size_t n)
{
	return -(int64_t)(rng() % 1000000) - 1;
}

static int64_t gen_int64(size_t i, size_t n)
{
	return (int64_t)rng();
}

/* Above 2^31 but from a small set: wide values with duplicates. */
static int64_t gen_wide(size_t i, size_t n)
{
	return ((int64_t)1 << 31) + (int64_t)(rng() % 100) * 1000;
}

static int64_t gen_ascending(size_t i, size_t n)
{
	return (int64_t)i;
}

static int64_t gen_descending(size_t i, size_t n)
{
	return (int64_t)(n - i);
}

static int64_t gen_organ_pipe(size_t i, size_t n)
{
	return (int64_t)(i < n / 2 ? i : n - i);
}

static int64_t gen_two_values(size_t i, size_t n)
{
	return i & 1 ? INT64_MAX : INT64_MIN;
}

static void expect_q(const int64_t out[4], int64_t p50, int64_t p90, int64_t p99, int64_t p999)
{
	assert_int_equal(out[0], p50);
	assert_int_equal(out[1], p90);
	assert_int_equal(out[2], p99);
	assert_int_equal(out[3], p999);
}

static void test_select_known(void **state)
{
	int64_t one[] = { 7 }, two[] = { 5, 3 }, three[] = { 30, 10, 20 };
	int64_t v[1001], out[4];

	assert_int_equal(ntp_select_quantiles(one, 1, out), 0);
	expect_q(out, 7, 7, 7, 7);
	/* n = 2: ranks 1, 2, 2, 2 */
	assert_int_equal(ntp_select_quantiles(two, 2, out), 0);
	expect_q(out, 3, 5, 5, 5);
	/* n = 3: ranks 2, 3, 3, 3 */
	assert_int_equal(ntp_select_quantiles(three, 3, out), 0);
	expect_q(out, 20, 30, 30, 30);
	/* 1..100 shuffled: ranks 50, 90, 99, 100 */
	for (int i = 0; i < 100; i++)
		v[i] = (i * 37) % 100 + 1;
	assert_int_equal(ntp_select_quantiles(v, 100, out), 0);
	expect_q(out, 50, 90, 99, 100);
	/* 1..1000: ranks 500, 900, 990, 999 */
	for (int i = 0; i < 1000; i++)
		v[i] = 1000 - i;
	assert_int_equal(ntp_select_quantiles(v, 1000, out), 0);
	expect_q(out, 500, 900, 990, 999);
	/* 1..1001: ranks 501, 901, 991, 1000 */
	for (int i = 0; i < 1001; i++)
		v[i] = (i * 10) % 1001 + 1;
	assert_int_equal(ntp_select_quantiles(v, 1001, out), 0);
	expect_q(out, 501, 901, 991, 1000);
}

static void test_select_empty(void **state)
{
	int64_t v64[1] = { 1 }, out[4] = { 9, 9, 9, 9 };
	int32_t v32[1] = { 1 };

	assert_int_equal(ntp_select_quantiles(v64, 0, out), -1);
	assert_int_equal(ntp_select_quantiles32(v32, 0, out), -1);
	assert_int_equal(out[0], 9);
	assert_int_equal(out[3], 9);
}

static void test_select_random(void **state)
{
	check_sizes(gen_int32, 1);
	check_sizes(gen_duration, 100);
	check_sizes(gen_int64, 200);
}

static void test_select_duplicates(void **state)
{
	check_sizes(gen_dups, 300);
	check_sizes(gen_equal, 400);
	check_sizes(gen_two_values, 500);
}

static void test_select_negative(void **state)
{
	check_sizes(gen_negative, 600);
}

static void test_select_wide(void **state)
{
	int64_t ext[] = { INT64_MAX, INT64_MIN, 0, INT64_MIN, INT64_MAX, -1 };

	check_sizes(gen_wide, 700);
	check_select(ext, sizeof(ext) / sizeof(ext[0]));
}

static void test_select_patterns(void **state)
{
	check_sizes(gen_ascending, 0);
	check_sizes(gen_descending, 0);
	check_sizes(gen_organ_pipe, 0);
}

/* v[k] is sorted[k], nothing greater before it, nothing smaller after. */
static void check_nth(const int64_t *src, const int64_t *sorted, size_t n, size_t k,
		      unsigned int depth)
{
	int64_t *v = dup64(src, n);
	int32_t *w = malloc(n * sizeof(*w));

	assert_non_null(w);
	for (size_t i = 0; i < n; i++)
		w[i] = (int32_t)src[i];
	ntp_nth64(v, n, k, depth);
	ntp_nth32(w, n, k, depth);
	assert_int_equal(v[k], sorted[k]);
	assert_int_equal(w[k], sorted[k]);
	for (size_t i = 0; i < n; i++) {
		assert_true(i < k ? v[i] <= v[k] : v[i] >= v[k]);
		assert_true(i < k ? w[i] <= w[k] : w[i] >= w[k]);
	}
	free(v);
	free(w);
}

/* Every depth down to 0 (straight to heapsort), so the fallback is right
 * too, not only the partitioning that random input exercises. */
static void test_nth_depths(void **state)
{
	static const size_t ns[] = { 1, 2, 16, 17, 18, 50, 1000, 4097 };
	static const unsigned int depths[] = { 0, 1, 2, 3, 5, 64 };

	rng_seed(800);
	for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++) {
		size_t n = ns[a];
		int64_t *v = malloc(n * sizeof(*v)), *s;

		assert_non_null(v);
		for (size_t i = 0; i < n; i++)
			v[i] = (int64_t)(rng() % (n / 2 + 1)) - (int64_t)(n / 4);
		s = dup64(v, n);
		qsort(s, n, sizeof(*s), cmp64);
		for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
			size_t step = n <= 64 ? 1 : n / 37;

			for (size_t k = 0; k < n; k += step)
				check_nth(v, s, n, k, depths[d]);
			check_nth(v, s, n, n - 1, depths[d]);
		}
		free(v);
		free(s);
	}
}

/* SQL helpers. */

static sqlite3 *open_db(void)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(ntp_native_register(db), SQLITE_OK);
	return db;
}

static void exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &err);

	if (rc != SQLITE_OK)
		fail_msg("%s: %s", sql, err ? err : "?");
}

static char *errstr(sqlite3 *db)
{
	char *r;

	if (asprintf(&r, "ERROR: %s", sqlite3_errmsg(db)) < 0)
		fail();
	return r;
}

/* The one value of one row SQL returns as text, "NULL" for NULL, or
 * "ERROR: message" if preparing or running it fails. */
static char *query1(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	char *r;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return errstr(db);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);

		r = strdup(t ? (const char *)t : "NULL");
		assert_non_null(r);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	} else {
		assert_int_not_equal(rc, SQLITE_DONE);
		r = errstr(db);
	}
	sqlite3_finalize(st);
	return r;
}

static void assert_query(sqlite3 *db, const char *sql, const char *want)
{
	char *got = query1(db, sql);

	assert_string_equal(got, want);
	free(got);
}

/* INSERT INTO t(g, x) the N values V, in order. */
static void insert(sqlite3 *db, int64_t g, const int64_t *v, size_t n)
{
	sqlite3_stmt *st = NULL;

	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO t(g, x) VALUES (?, ?)", -1, &st,
					    NULL), SQLITE_OK);
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, g);
		sqlite3_bind_int64(st, 2, v[i]);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
}

static void assert_quantiles_of(sqlite3 *db, const char *sql, const int64_t *v, size_t n)
{
	int64_t want[4];
	char buf[80];

	ref_quantiles(v, n, want);
	fmt_q(buf, sizeof(buf), want);
	assert_query(db, sql, buf);
}

static void test_sql_basic(void **state)
{
	sqlite3 *db = open_db();

	exec(db, "CREATE TABLE t(g INTEGER, x INTEGER);"
		 "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000)"
		 " INSERT INTO t SELECT 0, 1001 - i FROM c");
	assert_query(db, "SELECT ntp_quantiles(x) FROM t", "[500,990,999]");
	assert_query(db, "SELECT ntp_quantiles(x) FROM t WHERE x <= 3", "[2,3,3]");
	assert_query(db, "SELECT ntp_quantiles(x) FROM t WHERE x = 77", "[77,77,77]");
	assert_query(db, "SELECT typeof(ntp_quantiles(x)) FROM t", "text");
	assert_query(db, "SELECT json_extract(ntp_quantiles(x), '$[1]') FROM t", "990");
	/* Registering again replaces the function; still works. */
	assert_int_equal(ntp_native_register(db), SQLITE_OK);
	assert_query(db, "SELECT ntp_quantiles(x - 1000) FROM t", "[-500,-10,-1]");
	sqlite3_close(db);
}

static void test_sql_nulls_and_empty(void **state)
{
	sqlite3 *db = open_db();

	exec(db, "CREATE TABLE t(g INTEGER, x INTEGER)");
	assert_query(db, "SELECT ntp_quantiles(x) FROM t", "NULL");
	exec(db, "INSERT INTO t VALUES (0, NULL), (0, NULL)");
	assert_query(db, "SELECT ntp_quantiles(x) FROM t", "NULL");
	assert_query(db, "SELECT ntp_quantiles(NULL)", "NULL");
	exec(db, "INSERT INTO t VALUES (0, 5), (0, NULL), (0, 1), (0, NULL), (0, 3)");
	/* 1, 3, 5: ranks 2, 3, 3 */
	assert_query(db, "SELECT ntp_quantiles(x) FROM t", "[3,5,5]");
	assert_query(db, "SELECT count(*) FROM (SELECT ntp_quantiles(x) FROM t GROUP BY g)", "1");
	assert_query(db, "SELECT count(*) FROM (SELECT ntp_quantiles(x) FROM t WHERE 0 GROUP BY g)",
		     "0");
	sqlite3_close(db);
}

static void test_sql_real(void **state)
{
	sqlite3 *db = open_db();

	exec(db, "CREATE TABLE t(x)");
	exec(db, "INSERT INTO t VALUES (0.5), (1.9), (-2.5), (2.999)");
	/* CAST: 0, 1, -2, 2 -> sorted -2, 0, 1, 2: ranks 2, 4, 4 */
	assert_query(db, "SELECT ntp_quantiles(x) FROM t", "[0,2,2]");
	assert_query(db, "SELECT ntp_quantiles(CAST(x AS INTEGER)) FROM t", "[0,2,2]");
	exec(db, "DELETE FROM t; INSERT INTO t VALUES (1e30), (-1e30), (3e9)");
	/* Out of range clamps as CAST does; 3e9 also widens mid-stream. */
	assert_query(db, "SELECT ntp_quantiles(CAST(x AS INTEGER)) FROM t",
		     "[3000000000,9223372036854775807,9223372036854775807]");
	assert_query(db, "SELECT ntp_quantiles(x) FROM t",
		     "[3000000000,9223372036854775807,9223372036854775807]");
	sqlite3_close(db);
}

static void test_sql_text_error(void **state)
{
	static const char *const rows[] = { "(1), (2), ('abc'), (3)", "('5')", "(x'00'), (1)",
					    "(4), (zeroblob(2))" };
	sqlite3 *db = open_db();

	exec(db, "CREATE TABLE t(x)");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char sql[128];

		snprintf(sql, sizeof(sql), "DELETE FROM t; INSERT INTO t VALUES %s", rows[i]);
		exec(db, sql);
		assert_query(db, "SELECT ntp_quantiles(x) FROM t",
			     "ERROR: ntp_quantiles: integer expected");
	}
	/* The connection is fine afterwards. */
	exec(db, "DELETE FROM t; INSERT INTO t VALUES (8)");
	assert_query(db, "SELECT ntp_quantiles(x) FROM t", "[8,8,8]");
	sqlite3_close(db);
}

/*
 * Narrow values, then one outside int32 (the array converts to int64_t in
 * place), then more of both. The 1001st value widens with room to spare
 * (1024), the 65th with the array full (64): widen, then grow.
 */
static void test_sql_wide_switch(void **state)
{
	sqlite3 *db = open_db();
	int64_t v[3001], w[65];
	size_t n = 0;

	exec(db, "CREATE TABLE t(g INTEGER, x INTEGER)");
	rng_seed(900);
	for (int i = 0; i < 1000; i++)
		v[n++] = (int64_t)(rng() % 2000000) - 1000000;
	v[n++] = ((int64_t)1 << 40) + 5;
	for (int i = 0; i < 1000; i++)
		v[n++] = (int64_t)(rng() % 2000000);
	v[n++] = -((int64_t)1 << 35);
	for (int i = 0; i < 999; i++)
		v[n++] = (int64_t)(rng() % 100) + (i % 3 ? 0 : (int64_t)3 << 31);
	insert(db, 0, v, n);
	assert_quantiles_of(db, "SELECT ntp_quantiles(x) FROM t", v, n);
	assert_quantiles_of(db, "SELECT ntp_quantiles(x) FROM t WHERE rowid <= 1001", v, 1001);
	/* Wide first, then narrow ones. */
	assert_quantiles_of(db, "SELECT ntp_quantiles(x) FROM t WHERE rowid >= 1001", v + 1000,
			    n - 1000);
	exec(db, "DELETE FROM t WHERE rowid > 64 AND rowid < 1001");
	memcpy(w, v, 64 * sizeof(*w));
	w[64] = v[1000];
	assert_quantiles_of(db, "SELECT ntp_quantiles(x) FROM t WHERE rowid <= 1001", w, 65);
	exec(db, "DELETE FROM t; INSERT INTO t VALUES (0, 2147483648), (0, 2147483647),"
		 " (0, -2147483648), (0, -2147483649)");
	assert_query(db, "SELECT ntp_quantiles(x) FROM t",
		     "[-2147483648,2147483648,2147483648]");
	assert_query(db, "SELECT ntp_quantiles(x) FROM t"
		     " WHERE x BETWEEN -2147483648 AND 2147483647",
		     "[-2147483648,2147483647,2147483647]");
	sqlite3_close(db);
}

/*
 * Thirteen aggregates in one query, as the report runs them, each over its
 * own expression (x % MOD) * MUL + ADD: separate state for each.
 */
static void test_sql_many_aggregates(void **state)
{
	static const int64_t expr[13][3] = {
		{ 0, 1, 0 }, { 0, -1, 0 }, { 0, 4294967296, 0 }, { 10, 1, 0 }, { 0, 1, -500000 },
		{ 0, 3, 7 }, { 2, 1, 0 }, { 0, 1, 2147483647 }, { 1000, -1000, 0 }, { 0, 0, 5 },
		{ 7, 4294967296, -3 }, { 0, 1, -2147483648 }, { 100, 1, 1 },
	};
	enum { N = 5000 };
	sqlite3 *db = open_db();
	int64_t v[N], w[N], q[4];
	char sql[2048] = "SELECT ''", want[13 * 64] = "", *got;

	exec(db, "CREATE TABLE t(g INTEGER, x INTEGER)");
	rng_seed(1000);
	for (int i = 0; i < N; i++)
		v[i] = (int64_t)(rng() % 1000000);
	insert(db, 0, v, N);
	for (int e = 0; e < 13; e++) {
		const int64_t *m = expr[e];

		for (int i = 0; i < N; i++)
			w[i] = (m[0] ? v[i] % m[0] : v[i]) * m[1] + m[2];
		ref_quantiles(w, N, q);
		fmt_q(want + strlen(want), sizeof(want) - strlen(want), q);
		snprintf(sql + strlen(sql), sizeof(sql) - strlen(sql),
			 " || ntp_quantiles((x %% %" PRId64 ") * %" PRId64 " + %" PRId64 ")",
			 m[0] ? m[0] : INT64_MAX, m[1], m[2]);
	}
	strcat(sql, " FROM t");
	got = query1(db, sql);
	assert_string_equal(got, want);
	free(got);
	sqlite3_close(db);
}

/* Groups of every shape, NULLs mixed in, rows of the groups interleaved. */
struct group {
	size_t n;
	int64_t (*gen)(size_t i, size_t n);
	int64_t *v;
};

#define G(n, gen) { n, gen, NULL }
static struct group groups[] = {
	G(1, gen_duration), G(2, gen_duration), G(3, gen_duration), G(99, gen_duration),
	G(100, gen_duration), G(101, gen_int32), G(1000, gen_duration), G(1001, gen_negative),
	G(5000, gen_dups), G(3000, gen_equal), G(2000, gen_wide), G(2001, gen_int64),
	G(0, gen_duration), G(100000, gen_duration), G(4097, gen_organ_pipe),
};
#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

static void fill_groups(sqlite3 *db)
{
	size_t left[NGROUPS], total = 0;
	sqlite3_stmt *st = NULL;

	exec(db, "CREATE TABLE t(g INTEGER, x INTEGER)");
	rng_seed(1100);
	for (size_t g = 0; g < NGROUPS; g++) {
		groups[g].v = malloc((groups[g].n + 1) * sizeof(int64_t));
		assert_non_null(groups[g].v);
		for (size_t i = 0; i < groups[g].n; i++)
			groups[g].v[i] = groups[g].gen(i, groups[g].n);
		left[g] = groups[g].n;
		total += groups[g].n;
	}
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, ?)", -1, &st, NULL),
			 SQLITE_OK);
	while (total) {
		size_t g = rng() % NGROUPS;

		if (!left[g])
			continue;
		sqlite3_bind_int64(st, 1, (int64_t)g);
		if (rng() % 10 == 0) {
			sqlite3_bind_null(st, 2);
		} else {
			sqlite3_bind_int64(st, 2, groups[g].v[groups[g].n - left[g]--]);
			total--;
		}
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	/* Empty groups: NULLs only. */
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, NULL), (?1, NULL)", -1,
					    &st, NULL), SQLITE_OK);
	for (size_t g = 0; g < NGROUPS; g++) {
		if (groups[g].n)
			continue;
		sqlite3_bind_int64(st, 1, (int64_t)g);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
}

static void free_groups(void)
{
	for (size_t g = 0; g < NGROUPS; g++) {
		free(groups[g].v);
		groups[g].v = NULL;
	}
}

static void check_group_by(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	size_t rows = 0;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT g, ntp_quantiles(x) FROM t GROUP BY g"
					    " ORDER BY g", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		size_t g = (size_t)sqlite3_column_int64(st, 0);
		const char *got = (const char *)sqlite3_column_text(st, 1);
		int64_t q[4];
		char want[80];

		assert_int_equal(g, rows++);
		if (!groups[g].n) {
			assert_null(got);
			continue;
		}
		ref_quantiles(groups[g].v, groups[g].n, q);
		fmt_q(want, sizeof(want), q);
		assert_non_null(got);
		assert_string_equal(got, want);
	}
	assert_int_equal(sqlite3_finalize(st), SQLITE_OK);
	assert_int_equal(rows, NGROUPS);
}

/* The window form has no row for a group without values. */
static void check_window(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	size_t rows = 0, g = 0;

	assert_int_equal(sqlite3_prepare_v2(db, WINDOW_SQL, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t q[4];

		while (!groups[g].n)
			g++;
		assert_int_equal(sqlite3_column_int64(st, 0), (int64_t)g);
		ref_quantiles(groups[g].v, groups[g].n, q);
		for (int i = 0; i < 3; i++) {
			assert_int_equal(sqlite3_column_type(st, 1 + i), SQLITE_INTEGER);
			assert_int_equal(sqlite3_column_int64(st, 1 + i), q[i ? i + 1 : 0]);
		}
		g++;
		rows++;
	}
	assert_int_equal(sqlite3_finalize(st), SQLITE_OK);
	assert_int_equal(rows, NGROUPS - 1);
}

/* ntp_dist(x, x) of each group whose sum fits in 64 bits: each entry
 * [n, sum, p50, p99, p999, p90] of the reference, p90 last so that the
 * first five keep their places. */
static void check_dist(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	size_t checked = 0;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT ntp_dist(x, x) FROM t WHERE g = ?", -1,
					    &st, NULL), SQLITE_OK);
	for (size_t g = 0; g < NGROUPS; g++) {
		char one[160], want[330];
		int64_t q[4], sum = 0;
		int overflow = 0;

		for (size_t i = 0; i < groups[g].n; i++)
			overflow |= __builtin_add_overflow(sum, groups[g].v[i], &sum);
		if (overflow)
			continue;
		if (!groups[g].n) {
			snprintf(one, sizeof(one), "[0,null,null,null,null,null]");
		} else {
			ref_quantiles(groups[g].v, groups[g].n, q);
			snprintf(one, sizeof(one), "[%zu,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
				 ",%" PRId64 "]", groups[g].n, sum, q[0], q[2], q[3], q[1]);
		}
		snprintf(want, sizeof(want), "[%s,%s]", one, one);
		sqlite3_bind_int64(st, 1, (int64_t)g);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(st, 0), want);
		sqlite3_reset(st);
		checked++;
	}
	sqlite3_finalize(st);
	/* every group but the full-range int64 one */
	assert_int_equal(checked, NGROUPS - 1);
}

static void test_sql_group_by(void **state)
{
	sqlite3 *db = open_db();
	char *diff, want[16];

	fill_groups(db);
	check_group_by(db);
	check_window(db);
	check_dist(db);
	/* And the two SQL forms side by side, in SQL. */
	if (asprintf(&diff, "WITH w(g, a, b, c) AS (%s), n AS (SELECT g, ntp_quantiles(x) AS q"
		     " FROM t GROUP BY g) SELECT count(*) FROM n JOIN w USING (g)"
		     " WHERE q = json_array(a, b, c)", WINDOW_SQL) < 0)
		fail();
	snprintf(want, sizeof(want), "%zu", NGROUPS - 1);
	assert_query(db, diff, want);
	free(diff);
	free_groups();
	sqlite3_close(db);
}

/* Report views call it with trusted_schema off: only INNOCUOUS works. */
static void test_sql_trusted_schema_off(void **state)
{
	sqlite3 *db = open_db();

	exec(db, "PRAGMA trusted_schema = OFF; CREATE TABLE t(g INTEGER, x INTEGER);"
		 " INSERT INTO t VALUES (0, 3), (0, 1), (0, 2);"
		 " CREATE VIEW v AS SELECT ntp_quantiles(x) AS q FROM t");
	assert_query(db, "PRAGMA trusted_schema", "0");
	assert_query(db, "SELECT q FROM v", "[2,3,3]");
	sqlite3_close(db);
}

/*
 * The aggregate's array comes from SQLite's allocator, so a hard heap limit
 * makes it fail cleanly: SQLITE_NOMEM, nothing leaked (ASan, valgrind). With
 * 900 KiB to spare, 100000 narrow values (512 KiB) fit but not widened.
 */
/* NTPROF_SELECT_MEMORY as it is (a copy, or NULL), and as it was again. */
static char *budget_save(void)
{
	const char *was = getenv("NTPROF_SELECT_MEMORY");

	return was ? strdup(was) : NULL;
}

static void budget_restore(char *saved)
{
	if (saved)
		setenv("NTPROF_SELECT_MEMORY", saved, 1);
	else
		unsetenv("NTPROF_SELECT_MEMORY");
	free(saved);
}

/* Open a database whose functions hold at most MIB MiB of values. */
static sqlite3 *open_db_budget(const char *mib)
{
	assert_int_equal(setenv("NTPROF_SELECT_MEMORY", mib, 1), 0);
	return open_db();
}

static void test_sql_nomem(void **state)
{
	char *saved = budget_save();
	sqlite3 *db = open_db_budget("64");
	sqlite3_int64 old;
	size_t spills = ntp_native_spills();

	exec(db, "CREATE TABLE t(x INTEGER);"
		 "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000)"
		 " INSERT INTO t SELECT i FROM c");
	assert_true(sqlite3_memory_used() > 0);
	old = sqlite3_hard_heap_limit64(sqlite3_memory_used() + 900 * 1024);
	assert_query(db, "SELECT ntp_quantiles(x) FROM t WHERE x <= 100000", "[50000,99000,99900]");
	assert_query(db, "SELECT ntp_quantiles(CASE WHEN x = 100000 THEN x << 32 ELSE x END)"
		     " FROM t WHERE x <= 100000", "ERROR: out of memory");
	assert_query(db, "SELECT ntp_quantiles(x) FROM t", "ERROR: out of memory");
	sqlite3_hard_heap_limit64(old);
	assert_query(db, "SELECT ntp_quantiles(x) FROM t", "[500000,990000,999000]");
	assert_query(db, "SELECT ntp_quantiles(CASE WHEN x = 100000 THEN x << 32 ELSE x END)"
		     " FROM t WHERE x <= 100000", "[50000,99000,99900]");
	assert_int_equal(ntp_native_spills(), spills);
	sqlite3_close(db);

	/* With no budget the values go to a file: the same answers, and in
	 * memory only the buffers, under the limit that refused them above. */
	db = open_db_budget("0");
	exec(db, "CREATE TABLE t(x INTEGER);"
		 "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000)"
		 " INSERT INTO t SELECT i FROM c");
	old = sqlite3_hard_heap_limit64(sqlite3_memory_used() + 900 * 1024);
	assert_query(db, "SELECT ntp_quantiles(x) FROM t", "[500000,990000,999000]");
	assert_query(db, "SELECT ntp_quantiles(CASE WHEN x = 100000 THEN x << 32 ELSE x END)"
		     " FROM t WHERE x <= 100000", "[50000,99000,99900]");
	assert_query(db, "SELECT ntp_dist(x, x + 1, x % 1000) FROM t",
		     "[[1000000,500000500000,500000,990000,999000,900000],"
		     "[1000000,500001500000,500001,990001,999001,900001],"
		     "[1000000,499500000,499,989,998,899]]");
	sqlite3_hard_heap_limit64(old);
	assert_true(ntp_native_spills() >= spills + 5);
	sqlite3_close(db);
	assert_int_equal(ntp_native_held(), 0);

	/* With 1 MiB the arrays grow first, and one that would pass the
	 * budget is written out and shrunk to a buffer: the same answer, and
	 * every byte accounted for. */
	db = open_db_budget("1");
	exec(db, "CREATE TABLE t(x INTEGER);"
		 "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000)"
		 " INSERT INTO t SELECT i FROM c");
	spills = ntp_native_spills();
	assert_query(db, "SELECT ntp_dist(x, x + 1, x % 1000) FROM t",
		     "[[1000000,500000500000,500000,990000,999000,900000],"
		     "[1000000,500001500000,500001,990001,999001,900001],"
		     "[1000000,499500000,499,989,998,899]]");
	assert_int_equal(ntp_native_spills(), spills + 3);
	sqlite3_close(db);
	assert_int_equal(ntp_native_held(), 0);
	budget_restore(saved);
}

/* The answers of Q[0..NQ) over the N values V cut into NGROUPS groups, in a
 * database whose functions hold at most MIB MiB of values. */
static void spill_answers(const char *mib, const char *const *q, size_t nq, char **out,
			  const int64_t *v, size_t n, int ngroups)
{
	sqlite3 *db = open_db_budget(mib);

	exec(db, "CREATE TABLE t(g INTEGER, x INTEGER)");
	for (int g = 0; g < ngroups; g++)
		insert(db, g, v + n * g / ngroups, n * (g + 1) / ngroups - n * g / ngroups);
	for (size_t i = 0; i < nq; i++)
		out[i] = query1(db, q[i]);
	sqlite3_close(db);
}

/*
 * The same aggregates over the same rows, in a database that keeps every
 * value in memory and in one that writes them out: the answers must be
 * byte-identical. The values are chosen against the file's selection:
 * heavy ties, one value, the extremes of int64 (the range's width is
 * 2^64), a narrow range far from zero, a few values and many groups. The
 * budget is the process's, read when the functions are registered: the
 * two databases are used one after the other.
 */
static void check_spill_same(const int64_t *v, size_t n, int ngroups, int sums)
{
	static const char *const q[] = {
		"SELECT group_concat(r, ' ') FROM (SELECT ntp_dist(x, x / 3, -x) AS r FROM t"
		" GROUP BY g ORDER BY g)",
		"SELECT group_concat(r, ' ') FROM (SELECT ntp_dist_ci(x, x % 7) AS r FROM t"
		" GROUP BY g ORDER BY g)",
		"SELECT group_concat(r, ' ') FROM (SELECT ntp_cdf(x, x % 1000) AS r FROM t"
		" GROUP BY g ORDER BY g)",
		"SELECT group_concat(r, ' ') FROM (SELECT ntp_quantiles(x) AS r FROM t"
		" GROUP BY g ORDER BY g)",
		/* ntp_dist_cdf begins with ntp_dist's and ntp_cdf's answers */
		"SELECT group_concat(r, ' ') FROM (SELECT json_remove(ntp_dist_cdf(x, x % 1000),"
		" '$[4]', '$[3]', '$[2]') IS json_array(json(ntp_dist(x, x % 1000)),"
		" json(ntp_cdf(x, x % 1000))) AS r FROM t GROUP BY g ORDER BY g)",
		/* and its CDF points and histograms */
		"SELECT group_concat(r, ' ') FROM (SELECT ntp_dist_cdf(x, x % 1000) AS r FROM t"
		" GROUP BY g ORDER BY g)",
	};
	enum { NQ = sizeof(q) / sizeof(*q) };
	char *mem[NQ], *file[NQ];
	size_t spills = ntp_native_spills();

	spill_answers("64", q, NQ, mem, v, n, ngroups);
	assert_int_equal(ntp_native_spills(), spills);
	spill_answers("0", q, NQ, file, v, n, ngroups);
	for (size_t i = 0; i < NQ; i++) {
		if (strcmp(mem[i], file[i]))
			fail_msg("%s: in memory %.300s, from the file %.300s", q[i], mem[i], file[i]);
		/* sums of int64's extremes overflow: then only ntp_quantiles answers */
		if ((sums || i == 3) && strstr(mem[i], "ERROR"))
			fail_msg("%s: %s", q[i], mem[i]);
		if (sums && i == 4 && strspn(mem[i], "1 ") != strlen(mem[i]))
			fail_msg("%s: %s", q[i], mem[i]);
		free(mem[i]);
		free(file[i]);
	}
	/* every group of more than QAGG_SPILL_MIN values was written out */
	if (n / (size_t)ngroups > 256)
		assert_true(ntp_native_spills() > spills);
	/* what the aggregates held, given back */
	assert_int_equal(ntp_native_held(), 0);
}

/*
 * ntp_dist_cdf's CDF points and histogram of the N values V, from V sorted:
 * each distinct value with n equal and cum at or below it is a point when it
 * is the first, when 1000 cum / N passes a multiple of 10 above
 * 1000 (cum - n) / N, or passes any integer at 990 and above; a value's
 * bucket is floor(log2(v / 1000)) for v >= 1000, -1 below, -2 below 0.
 */
static void check_shape(sqlite3 *db, int64_t *v, size_t n)
{
	char want[32768], *q;
	size_t len, i = 0;
	int64_t count[66] = { 0 };

	exec(db, "DELETE FROM t");
	insert(db, 0, v, n);
	qsort(v, n, sizeof(*v), cmp64);
	len = (size_t)snprintf(want, sizeof(want), "[%zu", n);
	while (i < n) {
		size_t j = i;
		int64_t a, b;

		while (j < n && v[j] == v[i])
			j++;
		a = (int64_t)(1000 * i / n), b = (int64_t)(1000 * j / n);
		if (!i || b / 10 > a / 10 || (b > a && b >= 990))
			len += (size_t)snprintf(want + len, sizeof(want) - len, ",[%lld,%zu,%zu]",
						(long long)v[i], j - i, j);
		i = j;
	}
	len += (size_t)snprintf(want + len, sizeof(want) - len, "] [");
	for (i = 0; i < n; i++) {
		int k = v[i] < 0 ? -2 : v[i] < 1000 ? -1 : 0;

		for (int64_t u = v[i] / 1000; u > 1; u >>= 1)
			k++;
		count[k + 2]++;
	}
	for (int k = -2, first = 1; k < 64; k++)
		if (count[k + 2]) {
			len += (size_t)snprintf(want + len, sizeof(want) - len, "%s[%d,%lld]",
						first ? "" : ",", k, (long long)count[k + 2]);
			first = 0;
		}
	snprintf(want + len, sizeof(want) - len, "]");
	q = query1(db, "SELECT json_extract(d, '$[2][0]') || ' ' || json_extract(d, '$[3][0]')"
		   " FROM (SELECT ntp_dist_cdf(x) AS d FROM t)");
	if (strcmp(q, want))
		fail_msg("%zu values: got %.400s, want %.400s", n, q, want);
	free(q);
}

static int64_t shape_ties(size_t i, size_t n)
{
	return (int64_t)(rng() % 7) * 1500;
}

static int64_t shape_signed(size_t i, size_t n)
{
	return (int64_t)(rng() % 4000000) - 1000000;
}

static int64_t shape_far(size_t i, size_t n)
{
	return ((int64_t)1 << 45) + (int64_t)(rng() % 3) * ((int64_t)1 << 43);
}

/* The shape against its definition, on ties, one value, negative values,
 * values far from 0 and the sizes where ranks coincide; in memory with the
 * default budget (whatever a test before left), where 4,096 values and
 * more of 32 bits are sorted and counted from bounds (qagg_select). */
static void test_sql_dist_shape(void **state)
{
	int64_t (*const gen[])(size_t, size_t) = {
		shape_ties, gen_duration, gen_equal, shape_signed, shape_far, gen_ascending,
	};
	char *saved = budget_save();
	sqlite3 *db = open_db_budget("64");
	size_t spills = ntp_native_spills();

	(void)state;
	exec(db, "CREATE TABLE t(g INTEGER, x INTEGER)");
	for (size_t g = 0; g < sizeof(gen) / sizeof(*gen); g++)
		for (size_t s = 0; s < NSIZES; s++) {
			size_t n = SIZES[s];
			int64_t *v = malloc(n * sizeof(*v));

			assert_non_null(v);
			rng_seed(70 + g * 10 + s);
			for (size_t i = 0; i < n; i++)
				v[i] = gen[g](i, n);
			check_shape(db, v, n);
			free(v);
		}
	assert_query(db, "SELECT ntp_dist_cdf(NULL) FROM t",
		     "[[[0,null,null,null,null,null]],[[0]],[[0]],[[]],[[null,null,null,null,null]]]");
	/* nothing written out: every shape was counted in memory */
	assert_int_equal(ntp_native_spills(), spills);
	sqlite3_close(db);
	budget_restore(saved);
}

static void test_sql_spill_same(void **state)
{
	const size_t n = 60000;
	int64_t *v = malloc(n * sizeof(*v));
	char *saved = budget_save();

	assert_non_null(v);
	rng_seed(11);
	for (size_t i = 0; i < n; i++) /* latency-like: a body and a long tail */
		v[i] = 20000 + (int64_t)(rng() % 5000) + (rng() % 100 ? 0 : (int64_t)(rng() % 20000000));
	check_spill_same(v, n, 1, 1);
	check_spill_same(v, n, 7, 1);
	for (size_t i = 0; i < n; i++) /* heavy ties */
		v[i] = (int64_t)(rng() % 5) * 1000;
	check_spill_same(v, n, 2, 1);
	for (size_t i = 0; i < n; i++) /* one value */
		v[i] = 123456789;
	check_spill_same(v, n, 1, 1);
	for (size_t i = 0; i < n; i++) /* the whole int64 range, and its ends */
		v[i] = (int64_t)rng();
	v[0] = INT64_MIN, v[1] = INT64_MAX, v[2] = INT64_MIN, v[n - 1] = INT64_MAX;
	check_spill_same(v, n, 1, 0);
	for (size_t i = 0; i < n; i++) /* narrow, far from zero, wide values */
		v[i] = ((int64_t)1 << 40) + (int64_t)(rng() % 300);
	check_spill_same(v, n, 3, 1);
	for (size_t i = 0; i < 1000; i++) /* few values a group */
		v[i] = (int64_t)(rng() % 100000);
	check_spill_same(v, 1000, 40, 1);
	free(v);
	budget_restore(saved);
	(void)state;
}

/* The built .so, loaded into a connection that does not have it. */
static void load_ext(const char *entry)
{
	sqlite3 *db = NULL;
	char *err = NULL;

	if (access(EXT_PATH, R_OK))
		fail_msg("%s missing: build it first (make %s)", EXT_PATH, EXT_PATH);
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_query(db, "SELECT ntp_quantiles(1)", "ERROR: no such function: ntp_quantiles");
	assert_int_equal(sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, NULL),
			 SQLITE_OK);
	if (sqlite3_load_extension(db, EXT_PATH, entry, &err) != SQLITE_OK)
		fail_msg("load %s: %s", EXT_PATH, err ? err : "?");
	exec(db, "CREATE TABLE t(x INTEGER);"
		 "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1001)"
		 " INSERT INTO t SELECT i * 4294967296 FROM c");
	assert_query(db, "SELECT ntp_quantiles(x / 4294967296) FROM t", "[501,991,1000]");
	assert_query(db, "SELECT ntp_quantiles(x) FROM t",
		     "[2151778615296,4256312590336,4294967296000]");
	assert_query(db, "SELECT ntp_quantiles('a')", "ERROR: ntp_quantiles: integer expected");
	sqlite3_close(db);
}

/*
 * The intervals' ranks (ntp_ci_ranks) against the rule of docs/sql.md
 * worked out the slow way: h the least integer with D h^2 >= C n, found by
 * bisection in 128-bit integers; l = floor(n q) - h, u = ceil(n q) + h + 1,
 * none outside 1..n. Every n to 200,000, the n whose C n / D is a perfect
 * square (the floating-point start lands on an integer) and its neighbours,
 * and large n.
 */
static const struct {
	int64_t q, c, d;
} CI[NTP_CI_N] = { { 50000, 9604, 10000 }, { 99000, 3803184, 100000000 },
		   { 90000, 345744, 1000000 } };

static void ref_ci(uint64_t n, int which, int *ok, uint64_t *l, uint64_t *u)
{
	unsigned __int128 cn = (unsigned __int128)CI[which].c * n, lo = 0, hi = 1ULL << 32;
	uint64_t fl = n * (uint64_t)CI[which].q / 100000;
	uint64_t ce = (n * (uint64_t)CI[which].q + 99999) / 100000;

	while (lo < hi) {
		unsigned __int128 mid = (lo + hi) / 2;

		if ((unsigned __int128)CI[which].d * mid * mid >= cn)
			hi = mid;
		else
			lo = mid + 1;
	}
	*ok = fl >= (uint64_t)lo + 1 && ce + (uint64_t)lo + 1 <= n;
	*l = fl - (uint64_t)lo;
	*u = ce + (uint64_t)lo + 1;
}

static void check_ci(uint64_t n)
{
	for (int w = 0; w < NTP_CI_N; w++) {
		uint64_t wl, wu;
		size_t l = 0, u = 0;
		int ok;

		ref_ci(n, w, &ok, &wl, &wu);
		if (!ok) {
			assert_int_equal(ntp_ci_ranks((size_t)n, w, &l, &u), -1);
			continue;
		}
		if (ntp_ci_ranks((size_t)n, w, &l, &u))
			fail_msg("n %" PRIu64 " q %d: no interval, want [%" PRIu64 ", %" PRIu64 "]",
				 n, w, wl, wu);
		if (l != wl || u != wu)
			fail_msg("n %" PRIu64 " q %d: [%zu, %zu], want [%" PRIu64 ", %" PRIu64 "]",
				 n, w, l, u, wl, wu);
	}
}

static void test_ci_ranks(void **state)
{
	size_t l, u;

	for (uint64_t n = 1; n <= 200000; n++)
		check_ci(n);
	/* 0.9604 n = (49 j)^2 at n = 2500 j^2, and 0.03803184 n = (1617 j)^2 at
	 * n = 68750000 j^2: exact squares, where the floating-point start
	 * lands on an integer; and their neighbours */
	for (uint64_t j = 1; j <= 20000; j += 7)
		for (int64_t e = -2; e <= 2; e++)
			check_ci(2500 * j * j + (uint64_t)e);
	for (uint64_t j = 1; j <= 126; j++)
		for (int64_t e = -2; e <= 2; e++)
			check_ci(68750000 * j * j + (uint64_t)e);
	/* p90: 0.345744 n = (147 j)^2 at n = 62500 j^2 */
	for (uint64_t j = 1; j <= 4000; j += 3)
		for (int64_t e = -2; e <= 2; e++)
			check_ci(62500 * j * j + (uint64_t)e);
	for (uint64_t n = 1000000; n < (1ULL << 40); n = n * 3 + 1)
		check_ci(n);
	/* the first n with an interval: the median at 8 values (ranks 1 and 8),
	 * p99 at 600 (ranks 589 and 600); none at 7 and 599 */
	assert_int_equal(ntp_ci_ranks(7, 0, &l, &u), -1);
	assert_int_equal(ntp_ci_ranks(8, 0, &l, &u), 0);
	assert_true(l == 1 && u == 8);
	assert_int_equal(ntp_ci_ranks(599, 1, &l, &u), -1);
	assert_int_equal(ntp_ci_ranks(600, 1, &l, &u), 0);
	assert_true(l == 589 && u == 600);
	/* p90 of 10,000 values: h = ceil(1.96 x 30) = 59, ranks 9000 -+ 59 (+ 1) */
	assert_int_equal(ntp_ci_ranks(10000, NTP_CI_P90, &l, &u), 0);
	assert_true(l == 9000 - 59 && u == 9000 + 59 + 1);
	/* 10,000 values: the median's h is ceil(0.98 x 100) = 98 */
	assert_int_equal(ntp_ci_ranks(10000, 0, &l, &u), 0);
	assert_true(l == 5000 - 98 && u == 5000 + 98 + 1);
	assert_int_equal(ntp_ci_ranks(0, 0, &l, &u), -1);
	assert_int_equal(ntp_ci_ranks(100, NTP_CI_N, &l, &u), -1);
	/* beyond 2^40 values, none (C n could overflow) */
	assert_int_equal(ntp_ci_ranks((size_t)(1ULL << 40) + 1, 0, &l, &u), -1);
}

/* ntp_dist_ci: ntp_dist's entries, then the intervals' values, null when
 * there is none. The values are their ranks, so the ranks show. */
static void test_sql_dist_ci(void **state)
{
	sqlite3 *db = open_db();
	char want[256];
	size_t l50, u50, l99, u99;

	exec(db, "CREATE TABLE t(x INTEGER, y INTEGER);"
		 "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10000)"
		 " INSERT INTO t SELECT 10001 - i, CASE WHEN i <= 7 THEN i END FROM c");
	assert_int_equal(ntp_ci_ranks(10000, 0, &l50, &u50), 0);
	assert_int_equal(ntp_ci_ranks(10000, 1, &l99, &u99), 0);
	snprintf(want, sizeof(want), "[[10000,50005000,5000,9900,9990,%zu,%zu,%zu,%zu,"
		 "333383335000.0],[7,28,4,7,7,null,null,null,null,140.0],"
		 "[0,null,null,null,null,null,null,null,null,null]]", l50, u50, l99, u99);
	assert_query(db, "SELECT ntp_dist_ci(x, y, NULL) FROM t", want);
	/* the same first five as ntp_dist's (which adds p90 after them) */
	assert_query(db, "SELECT json_extract(ntp_dist_ci(x), '$[0][0]') || ','"
		     " || json_extract(ntp_dist_ci(x), '$[0][4]') FROM t", "10000,9990");
	assert_query(db, "SELECT ntp_dist(x, y) FROM t",
		     "[[10000,50005000,5000,9900,9990,9000],[7,28,4,7,7,7]]");
	/* 8 values: the median's interval is all of them */
	assert_query(db, "SELECT ntp_dist_ci(x) FROM t WHERE x <= 8",
		     "[[8,36,4,8,8,1,8,null,null,204.0]]");
	assert_query(db, "SELECT ntp_dist_ci('a')", "ERROR: ntp_dist_ci: integer expected");
	assert_query(db, "SELECT ntp_dist('a')", "ERROR: ntp_dist: integer expected");
	/* ntp_dist_cdf's fifth array: the sums of squares (1^2 + ... + 10000^2,
	 * 1^2 + ... + 7^2) and ntp_dist_ci's intervals */
	snprintf(want, sizeof(want), "[[333383335000.0,%zu,%zu,%zu,%zu],"
		 "[140.0,null,null,null,null],[null,null,null,null,null]]", l50, u50, l99, u99);
	assert_query(db, "SELECT json_extract(ntp_dist_cdf(x, y, NULL), '$[4]') FROM t", want);
	assert_query(db, "SELECT json_extract(ntp_dist_cdf(x), '$[4][0][1]')"
		     " = json_extract(ntp_dist_ci(x), '$[0][5]') FROM t WHERE x <= 8", "1");
	/* squares past 2^63 summed exactly: 3 x (2^40)^2 = 3 x 2^80 */
	assert_query(db, "SELECT json_extract(ntp_dist_cdf(x), '$[4][0][0]') = 3 * 1208925819614629174706176.0"
		     " FROM (SELECT 1099511627776 AS x UNION ALL SELECT 1099511627776"
		     " UNION ALL SELECT -1099511627776)", "1");
	sqlite3_close(db);
}

/* ntp_bands of table b (g, e2e, ht, x, y) per group, after ntp_dist's cut
 * values, as one text; and the same bands by the window functions of the
 * portable _ntp_tail_band (stats.sql): rank by (e2e, ht), cut at the
 * nearest ranks. */
#define BANDS_NATIVE								\
	"WITH p AS (SELECT g, ntp_dist(e2e) AS d FROM b GROUP BY g),"		\
	" k AS (SELECT g, json_extract(d, '$[0][0]') AS n, json_extract(d, '$[0][2]') AS v50," \
	" json_extract(d, '$[0][5]') AS v90, json_extract(d, '$[0][3]') AS v99,"	\
	" json_extract(d, '$[0][4]') AS v999 FROM p),"				\
	" r AS (SELECT k.g, (SELECT ntp_bands(k.n, k.v50, k.v90, k.v99, k.v999, e2e, ht, x, y)" \
	" FROM b WHERE b.g = k.g) AS j FROM k)"					\
	" SELECT group_concat(g || ':' || j, ' ') FROM (SELECT * FROM r ORDER BY g)"
#define BANDS_WINDOW								\
	"WITH r AS (SELECT *, row_number() OVER (PARTITION BY g ORDER BY e2e, ht) AS rn,"	\
	" count(*) OVER (PARTITION BY g) AS n FROM b),"				\
	" c AS (SELECT *, CASE WHEN rn <= (n * 50000 + 99999) / 100000 THEN 1"	\
	" WHEN rn <= (n * 90000 + 99999) / 100000 THEN 2"			\
	" WHEN rn <= (n * 99000 + 99999) / 100000 THEN 3"			\
	" WHEN rn <= (n * 99900 + 99999) / 100000 THEN 4 ELSE 5 END AS band FROM r),"	\
	" s AS (SELECT g, band, json_array(band, count(*), min(e2e), max(e2e), sum(e2e),"	\
	" sum(x), sum(y)) AS a FROM c GROUP BY g, band),"				\
	" t AS (SELECT g, '[' || group_concat(a, ',') || ']' AS j"		\
	" FROM (SELECT * FROM s ORDER BY g, band) GROUP BY g)"			\
	" SELECT group_concat(g || ':' || j, ' ') FROM (SELECT * FROM t ORDER BY g)"

static void assert_bands_match(sqlite3 *db)
{
	char *want = query1(db, BANDS_WINDOW), *got = query1(db, BANDS_NATIVE);

	assert_string_equal(got, want);
	free(want);
	free(got);
}

/* ntp_bands: the portable view's bands, ties at the cut values included,
 * and its refusals. */
static void test_sql_bands(void **state)
{
	sqlite3 *db = open_db();

	exec(db, "CREATE TABLE b(g INTEGER, e2e INTEGER, ht INTEGER, x INTEGER, y INTEGER)");
	/* 2000 distinct values, ht descending against e2e: no tie */
	exec(db, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000)"
		 " INSERT INTO b SELECT 1, i * 7, 5000 - i, i, CASE WHEN i % 3 THEN i END FROM c");
	/* as a Python sort of the same rows computes them */
	assert_query(db, BANDS_NATIVE, "1:[[1,1000,7,7000,3503500,500500,333667],"
		     "[2,800,7007,12600,7842800,1120400,746333],[3,180,12607,13860,2382030,340290,"
		     "226800],[4,18,13867,13986,250677,35811,23868],[5,2,13993,14000,27993,3999,"
		     "3999]]");
	assert_bands_match(db);
	/* group 2: 10 values only, so many ties that each cut value is a run of
	 * equal e2e; group 3: every e2e equal (all ties, banded by ht alone);
	 * group 4: three rows, bands 1 and 2 only, y NULL throughout */
	exec(db, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3001)"
		 " INSERT INTO b SELECT 2, (i * 7919) % 10, (i * 104729) % 100003, i, i % 5 FROM c;"
		 "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500)"
		 " INSERT INTO b SELECT 3, 42, (i * 7919) % 1511, i, -i FROM c;"
		 "INSERT INTO b VALUES (4, 5, 3, 1, NULL), (4, 5, 1, 2, NULL), (4, 9, 2, 4, NULL)");
	assert_bands_match(db);
	/* and the ties were there: group 2's p50 is a run of equal values */
	assert_query(db, "SELECT count(*) >= 300 FROM b WHERE g = 2 AND e2e = (SELECT"
		     " json_extract(ntp_dist(e2e), '$[0][2]') FROM b WHERE g = 2)", "1");
	assert_query(db, "SELECT ntp_bands(3, 5, 9, 9, 9, e2e, ht, x, y) FROM b WHERE g = 4",
		     "[[1,2,5,5,10,3,null],[2,1,9,9,9,4,null]]");
	/* no rows: NULL, like sum() */
	assert_query(db, "SELECT ntp_bands(0, 1, 1, 1, 1, e2e, ht) FROM b WHERE 0", "NULL");
	/* cut values of another set, or changing, or not integers: refused */
	assert_query(db, "SELECT ntp_bands(4, 5, 9, 9, 9, e2e, ht, x) FROM b WHERE g = 4",
		     "ERROR: ntp_bands: the cut values are not of these rows (another count)");
	assert_query(db, "SELECT ntp_bands(3, 9, 9, 9, 9, e2e, ht, x) FROM b WHERE g = 4",
		     "ERROR: ntp_bands: the cut values are not these rows' percentiles");
	assert_query(db, "SELECT ntp_bands(3, 6, 9, 9, 9, e2e, ht, x) FROM b WHERE g = 4",
		     "ERROR: ntp_bands: the cut values are not these rows' percentiles");
	assert_query(db, "SELECT ntp_bands(3, e2e, 9, 9, 9, e2e, ht, x) FROM b WHERE g = 4",
		     "ERROR: ntp_bands: the cut values differ between rows");
	assert_query(db, "SELECT ntp_bands(3, 5, 9, 9, 9, 'a', ht, x) FROM b WHERE g = 4",
		     "ERROR: ntp_bands: integer expected");
	assert_query(db, "SELECT ntp_bands(3, 5, 9, 9, 9, e2e, NULL, x) FROM b WHERE g = 4",
		     "ERROR: ntp_bands: integer expected");
	assert_query(db, "SELECT ntp_bands(3, 5, 9, 9, 9, e2e, ht, 'x') FROM b WHERE g = 4",
		     "ERROR: ntp_bands: integer expected");
	assert_query(db, "SELECT ntp_bands(3, 5, 5, 9, 9) FROM b WHERE g = 4",
		     "ERROR: ntp_bands: 7 to 23 arguments expected");
	assert_query(db, "SELECT ntp_bands(3, 5, 9, 9, 9, e2e, ht, 1, 2, 3, 4, 5, 6, 7, 8, 9,"
		     " 10, 11, 12, 13, 14, 15, 16, 17) FROM b WHERE g = 4",
		     "ERROR: ntp_bands: 7 to 23 arguments expected");
	/* the sums overflow as sum()'s do, in a band and in the ties' */
	assert_query(db, "WITH v(e2e, x) AS (VALUES (1, 5000000000000000000),"
		     " (2, 5000000000000000000), (3, 0), (4, 0), (5, 0))"
		     " SELECT ntp_bands(5, 3, 5, 5, 5, e2e, e2e, x) FROM v",
		     "ERROR: integer overflow");
	assert_query(db, "WITH v(e2e, ht) AS (VALUES (4611686018427387904, 1),"
		     " (4611686018427387904, 2), (4611686018427387904, 3))"
		     " SELECT ntp_bands(3, 4611686018427387904, 4611686018427387904,"
		     " 4611686018427387904, 4611686018427387904, e2e, ht) FROM v",
		     "ERROR: integer overflow");
	sqlite3_close(db);
}

/* ntp_series over the rows of s (in rowid order), and the same by GROUP BY
 * and a window, as stats.sql's portable view computes them: equal. */
#define SERIES_NATIVE "SELECT ntp_series(b, e2e, x, y) FROM s"
#define SERIES_SQL "WITH g AS (SELECT b, count(*) AS n, sum(e2e) AS se, sum(x) AS sx," \
	" sum(y) AS sy FROM s GROUP BY b), r AS (SELECT b, e2e, row_number() OVER" \
	" (PARTITION BY b ORDER BY e2e) AS rn, count(*) OVER (PARTITION BY b) AS n FROM s)" \
	" SELECT json_group_array(json_array(g.b, g.n, g.se, r.e2e, g.sx, g.sy)) FROM" \
	" (SELECT * FROM g ORDER BY b) AS g JOIN r ON r.b = g.b" \
	" AND r.rn = (r.n * 99000 + 99999) / 100000"

static void assert_series_match(sqlite3 *db)
{
	sqlite3_stmt *st;
	char *want;

	assert_int_equal(sqlite3_prepare_v2(db, SERIES_SQL, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	want = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	assert_query(db, SERIES_NATIVE, want);
	sqlite3_free(want);
}

static void test_sql_series(void **state)
{
	sqlite3 *db = open_db();

	(void)state;
	exec(db, "CREATE TABLE s(b INTEGER, e2e INTEGER, x INTEGER, y INTEGER)");
	/* bucket by bucket, as a recording's commands come: selected in place */
	exec(db, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000)"
		 " INSERT INTO s SELECT i / 300, (i * 7919) % 1009, i, CASE WHEN i / 300 != 4"
		 " THEN i % 7 END FROM c");
	assert_series_match(db);
	assert_query(db, "SELECT json_extract((" SERIES_NATIVE "), '$[4][5]')", "NULL");
	/* then buckets seen before, and far apart: gathered at the end */
	exec(db, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5000)"
		 " INSERT INTO s SELECT ((i * 104729) % 13) * 1000000007, i % 2000, -i, NULL"
		 " FROM c");
	assert_series_match(db);
	assert_query(db, "SELECT json_array_length((" SERIES_NATIVE "))", "23");
	/* no rows: an empty array */
	assert_query(db, "SELECT ntp_series(b, e2e) FROM s WHERE 0", "[]");
	/* what it refuses */
	assert_query(db, "SELECT ntp_series(b, NULL) FROM s",
		     "ERROR: ntp_series: bucket and e2e must be integers");
	assert_query(db, "SELECT ntp_series(b, e2e, 'a') FROM s",
		     "ERROR: ntp_series: integer expected");
	assert_query(db, "WITH v(b, e2e) AS (VALUES (1, 5000000000000000000),"
		     " (1, 5000000000000000000)) SELECT ntp_series(b, e2e) FROM v",
		     "ERROR: integer overflow");
	sqlite3_close(db);
}

/* ntp_tally is GROUP BY with count(*): the same keys, in the same order,
 * with the same counts, for integers of every size, NULLs and text that
 * JSON must escape; compared as the rows json_each gives back. */
static void test_sql_tally(void **state)
{
	static const char tally[] =
		"SELECT group_concat(quote(json_extract(e.value, '$[0]')) || '|' ||"
		" quote(json_extract(e.value, '$[1]')) || '|' || json_extract(e.value, '$[2]'), ';')"
		" FROM json_each((SELECT ntp_tally(a, b) FROM k)) AS e";
	static const char group_by[] =
		"SELECT group_concat(quote(a) || '|' || quote(b) || '|' || n, ';')"
		" FROM (SELECT a, b, count(*) AS n FROM k GROUP BY a, b ORDER BY a, b)";
	sqlite3 *db = open_db();
	char *want;

	(void)state;
	exec(db, "CREATE TABLE k(a, b)");
	assert_query(db, "SELECT ntp_tally(a, b) FROM k", "[]");
	exec(db, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)"
		 " INSERT INTO k SELECT CASE i % 7 WHEN 0 THEN NULL WHEN 1 THEN -(i % 5)"
		 " WHEN 2 THEN 9223372036854775807 WHEN 3 THEN -9223372036854775808"
		 " WHEN 4 THEN 'x' || (i % 3) ELSE i % 11 END,"
		 " CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN 'q\"\\' || char(10, 1) || 'é'"
		 " WHEN 2 THEN '' WHEN 3 THEN 'ab' ELSE 'a' END FROM c");
	want = query1(db, group_by);
	assert_true(strlen(want) > 500);
	assert_query(db, tally, want);
	free(want);
	/* one key, three keys */
	assert_query(db, "SELECT ntp_tally(b) FROM k WHERE b IN ('a', 'ab')", "[[\"a\",4000],[\"ab\",4000]]");
	assert_query(db, "SELECT ntp_tally(1, NULL, 'z') FROM k WHERE rowid <= 3", "[[1,null,\"z\",3]]");
	/* what it refuses */
	assert_query(db, "SELECT ntp_tally(1.5) FROM k",
		     "ERROR: ntp_tally: integer, text or NULL expected");
	assert_query(db, "SELECT ntp_tally(1, 2, 3, 4, 5) FROM k",
		     "ERROR: wrong number of arguments to function ntp_tally()");
	sqlite3_close(db);
}

static void test_extension(void **state)
{
	load_ext(NULL);
	load_ext("sqlite3_extension_init");
}

/* Over table b (db, g, ...), the aggregate AGG per group of table T (i,
 * db, g, n, ...: the groups listed, numbered) and the grouped BY with the
 * list of T's groups (each "i HEX g n", then MORE's columns) and ARGS: the
 * same results, by group, at least MIN characters of them. */
static void assert_by_same(sqlite3 *db, const char *t, const char *agg, const char *by,
			   const char *more, const char *args, size_t min)
{
	char *q = sqlite3_mprintf("SELECT group_concat(i || ':' || d, ' ') FROM (SELECT t.i,"
				  " (SELECT %s FROM b WHERE b.db = t.db AND b.g = t.g) AS d"
				  " FROM %s AS t ORDER BY t.i)", agg, t);
	char *want = query1(db, q), *got;

	sqlite3_free(q);
	q = sqlite3_mprintf("SELECT group_concat(json_extract(e.value, '$[0]') || ':'"
			    " || json_extract(e.value, '$[1]'), ' ') FROM (SELECT %s("
			    "(SELECT group_concat(i || ' ' || hex(db) || ' ' || g || ' ' || n%s, ';')"
			    " FROM %s), db, g, %s) AS r FROM b) AS s, json_each(s.r) AS e",
			    by, more, t, args);
	got = query1(db, q);
	sqlite3_free(q);
	assert_true(strlen(want) > min);
	assert_string_equal(got, want);
	free(want);
	free(got);
}

/*
 * ntp_dist_by, ntp_dist_cdf_by and ntp_bands_by: per listed group, the
 * ungrouped aggregate's result over that group's rows, from one scan of
 * rows of several databases whose group ids repeat; unlisted groups left
 * out; the list's errors.
 */
static void test_sql_by(void **state)
{
	sqlite3 *db = open_db();

	(void)state;
	exec(db, "CREATE TABLE b(db TEXT, g INTEGER, e2e INTEGER, ht INTEGER, x INTEGER,"
		 " y INTEGER)");
	/* two databases (one name with a space and a quote), groups 1 and 2 in
	 * each, interleaved; group 3 of 'a' is not listed below */
	exec(db, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 6000)"
		 " INSERT INTO b SELECT CASE WHEN i % 2 THEN 'a' ELSE 'b ''c' END, i % 3 + 1,"
		 " (i * 7919) % 1000, i, i % 97, CASE WHEN i % 5 THEN i END FROM c");
	exec(db, "CREATE TABLE l AS SELECT row_number() OVER (ORDER BY db DESC, g) - 1 AS i,"
		 " db, g, count(*) AS n FROM b WHERE g < 3 OR db != 'a' GROUP BY db, g");
	assert_by_same(db, "l", "ntp_dist_cdf(e2e, x, y)", "ntp_dist_cdf_by", "",
		       "e2e, x, y", 1000);
	assert_by_same(db, "l", "ntp_dist(e2e, x, y)", "ntp_dist_by", "", "e2e, x, y", 100);
	/* the bands, given each group's count and cut values */
	exec(db, "CREATE TABLE k AS SELECT l.*, json_extract(d, '$[0][2]') AS v50,"
		 " json_extract(d, '$[0][5]') AS v90, json_extract(d, '$[0][3]') AS v99,"
		 " json_extract(d, '$[0][4]') AS v999 FROM l, (SELECT db AS kdb, g AS kg,"
		 " ntp_dist(e2e) AS d FROM b GROUP BY db, g) ON kdb = l.db AND kg = l.g");
	assert_by_same(db, "k", "ntp_bands(t.n, t.v50, t.v90, t.v99, t.v999, e2e, ht, x, y)",
		       "ntp_bands_by", " || ' ' || v50 || ' ' || v90 || ' ' || v99 || ' ' || v999",
		       "e2e, ht, x, y", 100);
	/* no row of a listed group: NULL; a group without rows is left out */
	assert_query(db, "SELECT ntp_dist_cdf_by('0 61 1 5', db, g, x) FROM b WHERE 0", "NULL");
	assert_query(db, "SELECT ntp_dist_cdf_by('0 61 9 5', db, g, x) FROM b", "NULL");
	assert_query(db, "SELECT json_array_length(ntp_dist_cdf_by('0 61 9 5;1 61 1 5', db, g, x))"
		     " FROM b", "1");
	/* the list's errors */
	assert_query(db, "SELECT ntp_dist_cdf_by('0 6 1 5', db, g, x) FROM b",
		     "ERROR: ntp_*_by: a database's name in hex expected");
	assert_query(db, "SELECT ntp_dist_cdf_by('0 61 1', db, g, x) FROM b",
		     "ERROR: ntp_dist_cdf_by: a group's count expected");
	assert_query(db, "SELECT ntp_dist_by('0 61 1', db, g, x) FROM b",
		     "ERROR: ntp_dist_by: a group's count expected");
	assert_query(db, "SELECT ntp_bands_by('0 61 1 5 1 2 3', db, g, e2e, ht) FROM b",
		     "ERROR: ntp_bands_by: a group's count and cut values expected");
	assert_query(db, "SELECT ntp_dist_cdf_by('x', db, g, x) FROM b",
		     "ERROR: ntp_*_by: a group's number expected");
	assert_query(db, "SELECT ntp_dist_cdf_by(NULL, db, g, x) FROM b",
		     "ERROR: ntp_*_by: the groups' text, a database and a group expected");
	assert_query(db, "SELECT ntp_dist_cdf_by('0 61 1 5', db, g) FROM b",
		     "ERROR: ntp_dist_cdf_by: 4 to 19 arguments expected");
	assert_query(db, "SELECT ntp_dist_by('0 61 1 5', db, g) FROM b",
		     "ERROR: ntp_dist_by: 4 to 19 arguments expected");
	assert_query(db, "SELECT ntp_dist_by('0 61 1 5', db, g, 'z') FROM b",
		     "ERROR: ntp_dist: integer expected");
	assert_query(db, "SELECT ntp_dist_cdf_by('0 61 1 5', db, g, 'z') FROM b",
		     "ERROR: ntp_dist: integer expected");
	sqlite3_close(db);
}

/*
 * ntp_dist_cdf_by gives each group's arguments room for the group's rows
 * at its first row: three groups of 80,000 values (960 KB together) fit a
 * budget of 1 MiB, where arrays grown by doubling (512 KB each) would
 * not, and one of them would be written out.
 */
static void test_sql_by_room(void **state)
{
	char *saved = budget_save();
	sqlite3 *db = open_db_budget("1");
	size_t spills = ntp_native_spills();

	(void)state;
	exec(db, "CREATE TABLE b(db TEXT, g INTEGER, x INTEGER);"
		 "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 239999)"
		 " INSERT INTO b SELECT 'a', i % 3, (i * 7919) % 100003 FROM c");
	assert_query(db, "SELECT json_array_length(ntp_dist_cdf_by('0 61 0 80000;1 61 1 80000;"
		     "2 61 2 80000', db, g, x)) FROM b", "3");
	assert_int_equal(ntp_native_spills(), spills);
	sqlite3_close(db);
	budget_restore(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select_known),
		cmocka_unit_test(test_select_empty),
		cmocka_unit_test(test_select_random),
		cmocka_unit_test(test_select_duplicates),
		cmocka_unit_test(test_select_negative),
		cmocka_unit_test(test_select_wide),
		cmocka_unit_test(test_select_patterns),
		cmocka_unit_test(test_nth_depths),
		cmocka_unit_test(test_sql_basic),
		cmocka_unit_test(test_sql_nulls_and_empty),
		cmocka_unit_test(test_sql_real),
		cmocka_unit_test(test_sql_text_error),
		cmocka_unit_test(test_sql_wide_switch),
		cmocka_unit_test(test_sql_many_aggregates),
		cmocka_unit_test(test_sql_group_by),
		cmocka_unit_test(test_sql_trusted_schema_off),
		cmocka_unit_test(test_sql_tally),
		cmocka_unit_test(test_sql_nomem),
		cmocka_unit_test(test_sql_spill_same),
		cmocka_unit_test(test_sql_dist_shape),
		cmocka_unit_test(test_ci_ranks),
		cmocka_unit_test(test_sql_dist_ci),
		cmocka_unit_test(test_sql_bands),
		cmocka_unit_test(test_sql_by),
		cmocka_unit_test(test_sql_by_room),
		cmocka_unit_test(test_sql_series),
		cmocka_unit_test(test_extension),
	};

	/* The aggregates' tests again, with every group of more than a few
	 * hundred values written to a file and selected from it. */
	const struct CMUnitTest spilled[] = {
		cmocka_unit_test(test_sql_basic),
		cmocka_unit_test(test_sql_nulls_and_empty),
		cmocka_unit_test(test_sql_real),
		cmocka_unit_test(test_sql_wide_switch),
		cmocka_unit_test(test_sql_many_aggregates),
		cmocka_unit_test(test_sql_group_by),
		cmocka_unit_test(test_sql_dist_ci),
		cmocka_unit_test(test_sql_bands),
		cmocka_unit_test(test_extension),
	};
	int rc;
	size_t spills;

	/* The heap limit (test_sql_nomem) needs SQLite's memory statistics. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1);
	unsetenv("NTPROF_SELECT_MEMORY");
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	setenv("NTPROF_SELECT_MEMORY", "0", 1);
	spills = ntp_native_spills();
	rc |= _cmocka_run_group_tests("spilled", spilled, sizeof(spilled) / sizeof(*spilled), NULL,
				      NULL);
	if (ntp_native_held()) {
		fprintf(stderr, "test_native: the aggregates still hold %zu bytes\n",
			ntp_native_held());
		rc |= 1;
	}
	if (ntp_native_spills() == spills) {
		fprintf(stderr, "test_native: the spilled tests wrote no values out\n");
		rc |= 1;
	}
	return rc;
}
