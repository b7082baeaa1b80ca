// SPDX-License-Identifier: BSD-2-Clause
/*
 * lib/btree.c against SQLite reading the same file: every row and every
 * value, from every kind of seek, on tables of several levels whose values
 * take every integer size of the record format; what it must leave to
 * SQLite (a WAL file, an overflowing row, a real, a column added with a
 * default, a table without a rowid) it says NO to, at the row where it
 * must; an INTEGER PRIMARY KEY that is not the rowid is read as stored;
 * and a damaged file is never read out of bounds: where SQLite reads it
 * whole, the rows read here are SQLite's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "btree.h"
#include "testlib.h"

static void exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
}

/* The file NAME in the test's directory, attached as x to a fresh
 * in-memory database, immutable, as ntprof attaches a recording. */
static sqlite3 *attach(const char *name)
{
	sqlite3 *db;
	char *sql;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	sql = sqlite3_mprintf("ATTACH 'file:%q?mode=ro&immutable=1' AS x", tl_file(name));
	exec(db, sql);
	sqlite3_free(sql);
	return db;
}

/* A value of every size the record format stores an integer in: 0 and 1
 * (no bytes), 1, 2, 3, 4, 6 and 8 bytes, negative too; and NULL; which one
 * a pseudo-random function of row I and K (the same file every run: a
 * damaged copy's outcome can be reproduced). */
#define VALUES(k)                                                                            \
	"CASE (i * " k " + i * i) % 9973 % 12 WHEN 0 THEN NULL WHEN 1 THEN 0 WHEN 2 THEN 1" \
	" WHEN 3 THEN -100 WHEN 4 THEN 30000 WHEN 5 THEN -8000000 WHEN 6 THEN 2000000000"     \
	" WHEN 7 THEN -140000000000000 WHEN 8 THEN 9223372036854775807"                       \
	" WHEN 9 THEN -9223372036854775808 WHEN 10 THEN 127 ELSE -1 END"

/* t.db: table cmd (t the rowid, then a, b, c) of N rows, t spaced by 1 to
 * 999. */
static void make_table(const char *schema, int n)
{
	sqlite3 *db;
	char *sql;

	remove(tl_file("t.db"));
	assert_int_equal(sqlite3_open(tl_file("t.db"), &db), SQLITE_OK);
	sql = sqlite3_mprintf("%s; WITH RECURSIVE s(i, t) AS (SELECT 1, -5000 UNION ALL"
			      " SELECT i + 1, t + 1 + (i * 48271) %% 999 FROM s WHERE i < %d)"
			      " INSERT INTO cmd (t, a, b, c) SELECT t, %s, %s, %s FROM s",
			      schema, n, VALUES("7919"), VALUES("104729"), VALUES("1299709"));
	exec(db, sql);
	sqlite3_free(sql);
	sqlite3_close(db);
}

/* Rows of SQL (t, a, b, c; ?1 the least t) against the reader's from MIN;
 * the reader's answer after them. */
static int compare(sqlite3 *db, struct ntp_btree *b, int64_t min, const char **cols, int ncol,
		   int64_t *nrows)
{
	sqlite3_stmt *st;
	char *sql = sqlite3_mprintf("SELECT %s, %s, %s, %s FROM x.cmd WHERE t >= ?1 ORDER BY t",
				    cols[0], cols[1], cols[2], cols[3]);
	int64_t v[NTP_BTREE_MAX_COLS];
	uint32_t null;
	int rc;

	assert_int_equal(ncol, 4);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	sqlite3_free(sql);
	sqlite3_bind_int64(st, 1, min);
	*nrows = 0;
	rc = ntp_btree_seek(b, min);
	while (rc == NTP_BTREE_DONE && (rc = ntp_btree_next(b, v, &null)) == NTP_BTREE_ROW) {
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		for (int i = 0; i < ncol; i++) {
			int isnull = sqlite3_column_type(st, i) == SQLITE_NULL;

			assert_int_equal((null >> i) & 1, isnull);
			if (!isnull)
				assert_int_equal(v[i], sqlite3_column_int64(st, i));
		}
		++*nrows;
		rc = NTP_BTREE_DONE;
	}
	if (rc == NTP_BTREE_DONE)
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	return rc;
}

static const char plain[] = "CREATE TABLE cmd (t INTEGER PRIMARY KEY, a INTEGER, b INTEGER,"
			    " c INTEGER)";

/* Every row, from every kind of seek, on a table of three levels; the
 * columns in another order than the table's. */
static void test_rows(void **state)
{
	static const char *cols[] = { "c", "t", "a", "b" };
	struct ntp_btree *b;
	sqlite3 *db;
	int64_t n, all;

	(void)state;
	/* small pages: a deeper tree */
	make_table("PRAGMA page_size = 512; CREATE TABLE cmd (t INTEGER PRIMARY KEY, a INTEGER,"
		   " b INTEGER, c INTEGER)", 60000);
	db = attach("t.db");
	assert_int_equal(tl_int(db, "PRAGMA x.page_size"), 512);
	/* the tree has interior pages under interior pages */
	assert_true(tl_int(db, "SELECT max(depth) FROM (SELECT length(path) - length("
			       "replace(path, '/', '')) AS depth FROM dbstat('x')"
			       " WHERE name = 'cmd')") >= 3);
	assert_int_equal(ntp_btree_open(db, "x", "cmd", 4, cols, &b), SQLITE_OK);
	assert_non_null(b);
	/* before a seek it reads nothing */
	assert_int_equal(ntp_btree_next(b, (int64_t[NTP_BTREE_MAX_COLS]){ 0 }, &(uint32_t){ 0 }),
			 NTP_BTREE_NO);
	assert_int_equal(compare(db, b, INT64_MIN, cols, 4, &all), NTP_BTREE_DONE);
	assert_int_equal(all, 60000);
	/* every size of integer was read */
	for (int k = 0; k < 12; k++)
		assert_true(tl_int(db, "SELECT count(*) FROM x.cmd WHERE a IS %s",
				   (const char *[]){ "NULL", "0", "1", "-100", "30000", "-8000000",
						     "2000000000", "-140000000000000",
						     "9223372036854775807",
						     "-9223372036854775807 - 1", "127", "-1" }[k]) > 0);
	/* seeks: before the first, onto a row, between rows, the last, past it */
	{
		int64_t first = tl_int(db, "SELECT min(t) FROM x.cmd");
		int64_t last = tl_int(db, "SELECT max(t) FROM x.cmd");
		int64_t mid = tl_int(db, "SELECT t FROM x.cmd ORDER BY t LIMIT 1 OFFSET 31234");
		int64_t gap = tl_int(db, "SELECT t + 1 FROM x.cmd AS o WHERE NOT EXISTS"
					 " (SELECT 1 FROM x.cmd WHERE t = o.t + 1) LIMIT 1 OFFSET 777");
		const int64_t at[] = { first - 1, first, mid, gap, last, last + 1, INT64_MAX };
		const int64_t expect[] = { 60000, 60000, 60000 - 31234, -1, 1, 0, 0 };

		for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			assert_int_equal(compare(db, b, at[i], cols, 4, &n), NTP_BTREE_DONE);
			if (expect[i] >= 0)
				assert_int_equal(n, expect[i]);
			else
				assert_true(n > 0 && n < 60000);
		}
		/* and back to the start */
		assert_int_equal(compare(db, b, INT64_MIN, cols, 4, &n), NTP_BTREE_DONE);
		assert_int_equal(n, all);
	}
	ntp_btree_close(b);
	/* a column it does not have, or too many: no reader */
	assert_int_equal(ntp_btree_open(db, "x", "cmd", 4,
					(const char *[]){ "t", "a", "b", "zz" }, &b), SQLITE_OK);
	assert_null(b);
	assert_int_equal(ntp_btree_open(db, "x", "nosuch", 4, cols, &b), SQLITE_OK);
	assert_null(b);
	sqlite3_close(db);
	tl_cleanup();
}

/* An empty table, and one of a single leaf. */
static void test_small(void **state)
{
	static const char *cols[] = { "t", "a", "b", "c" };
	struct ntp_btree *b;
	sqlite3 *db;
	int64_t n;

	(void)state;
	for (int rows = 0; rows <= 5; rows += 5) {
		make_table(plain, 1);
		assert_int_equal(sqlite3_open(tl_file("t.db"), &db), SQLITE_OK);
		exec(db, rows ? "INSERT INTO cmd SELECT t + 1, a, b, c FROM cmd;"
			 "INSERT INTO cmd SELECT t + 10, a, b, c FROM cmd;"
			 "INSERT INTO cmd SELECT t + 100, 1, 2, 3 FROM cmd WHERE t < -4000"
			 : "DELETE FROM cmd");
		sqlite3_close(db);
		db = attach("t.db");
		assert_int_equal(tl_int(db, "SELECT count(*) > 1 FROM x.cmd"), rows > 0);
		assert_int_equal(ntp_btree_open(db, "x", "cmd", 4, cols, &b), SQLITE_OK);
		assert_non_null(b);
		assert_int_equal(compare(db, b, INT64_MIN, cols, 4, &n), NTP_BTREE_DONE);
		assert_int_equal(n, tl_int(db, "SELECT count(*) FROM x.cmd"));
		ntp_btree_close(b);
		sqlite3_close(db);
	}
	tl_cleanup();
}

/* The reader's rows from the start until it stops: its answer, and in
 * *N how many it read (each compared with SQLite's). */
static int read_until(sqlite3 *db, const char **cols, int64_t *n)
{
	struct ntp_btree *b;
	int rc;

	*n = 0;
	assert_int_equal(ntp_btree_open(db, "x", "cmd", 4, cols, &b), SQLITE_OK);
	if (!b)
		return -2;
	rc = compare(db, b, INT64_MIN, cols, 4, n);
	ntp_btree_close(b);
	return rc;
}

/* The reader of t.db's cmd (COLS) stops with RC (-2: there is none) after
 * N rows, each SQLite's. */
static void expect_read(const char **cols, int rc, int64_t n)
{
	sqlite3 *db = attach("t.db");
	int64_t got;

	assert_int_equal(read_until(db, cols, &got), rc);
	assert_int_equal(got, n);
	sqlite3_close(db);
}

/* t.db's cmd made again with its rows of t < 0 written before column c,
 * declared DECL, was added: how many lack it. */
static int64_t rows_without_c(const char *decl)
{
	sqlite3 *db;
	char *sql;
	int64_t n;

	assert_int_equal(sqlite3_open(tl_file("t.db"), &db), SQLITE_OK);
	sql = sqlite3_mprintf("CREATE TABLE old AS SELECT * FROM cmd; DROP TABLE cmd;"
			      " CREATE TABLE cmd (t INTEGER PRIMARY KEY, a INTEGER, b INTEGER);"
			      " INSERT INTO cmd SELECT t, a, b FROM old WHERE t < 0;"
			      " ALTER TABLE cmd ADD COLUMN %s;"
			      " INSERT INTO cmd SELECT * FROM old WHERE t >= 0; DROP TABLE old",
			      decl);
	exec(db, sql);
	sqlite3_free(sql);
	n = tl_int(db, "SELECT count(*) FROM cmd WHERE t < 0");
	sqlite3_close(db);
	return n;
}

/* What it leaves to SQLite, at the row where it must. */
static void test_leaves_to_sqlite(void **state)
{
	static const char *cols[] = { "t", "a", "b", "c" };
	sqlite3 *db;
	int64_t n, at;

	(void)state;
	/* a WAL file: no reader (its pages may be in the log) */
	make_table(plain, 3000);
	assert_int_equal(sqlite3_open(tl_file("t.db"), &db), SQLITE_OK);
	exec(db, "PRAGMA journal_mode=WAL");
	sqlite3_close(db);
	expect_read(cols, -2, 0);

	/* a row that overflows its page, a real, a text: NO at that row, the
	 * rows before it read */
	for (int k = 0; k < 3; k++) {
		static const char *const set[] = {
			"ALTER TABLE cmd ADD COLUMN big; UPDATE cmd SET big = zeroblob(9000)"
			" WHERE t = (SELECT t FROM cmd ORDER BY t LIMIT 1 OFFSET 1500)",
			"UPDATE cmd SET b = 2.5 WHERE t = (SELECT t FROM cmd ORDER BY t LIMIT 1"
			" OFFSET 1500)",
			"UPDATE cmd SET c = 'x' WHERE t = (SELECT t FROM cmd ORDER BY t LIMIT 1"
			" OFFSET 1500)",
		};

		make_table(plain, 3000);
		assert_int_equal(sqlite3_open(tl_file("t.db"), &db), SQLITE_OK);
		exec(db, set[k]);
		sqlite3_close(db);
		expect_read(cols, NTP_BTREE_NO, 1500);
	}

	/* a column added since the rows were written: NULL where its default
	 * is, NO at the first row without it where it has one */
	make_table(plain, 2000);
	at = rows_without_c("c INTEGER");
	assert_true(at > 0 && at < 2000);
	expect_read(cols, NTP_BTREE_DONE, 2000);
	assert_int_equal(rows_without_c("c INTEGER DEFAULT 7"), at);
	db = attach("t.db");
	assert_int_equal(tl_int(db, "SELECT count(*) FROM x.cmd WHERE c = 7"), at);
	sqlite3_close(db);
	expect_read(cols, NTP_BTREE_NO, 0);

	/* a table without a rowid: no rows read */
	make_table("CREATE TABLE cmd (t INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c INTEGER)"
		   " WITHOUT ROWID", 3000);
	expect_read(cols, NTP_BTREE_NO, 0);

	/* an INTEGER PRIMARY KEY DESC is not the rowid: t as stored */
	make_table("CREATE TABLE cmd (t INTEGER PRIMARY KEY DESC, a INTEGER, b INTEGER,"
		   " c INTEGER)", 3000);
	db = attach("t.db");
	assert_true(tl_int(db, "SELECT count(*) FROM x.cmd WHERE t <> rowid") > 2900);
	{
		struct ntp_btree *b;

		assert_int_equal(ntp_btree_open(db, "x", "cmd", 4, cols, &b), SQLITE_OK);
		assert_non_null(b);
		assert_int_equal(ntp_btree_rowid_column(b), -1);
		/* in rowid order, as the reader reads */
		assert_int_equal(ntp_btree_seek(b, INT64_MIN), NTP_BTREE_DONE);
		{
			sqlite3_stmt *st;
			int64_t v[NTP_BTREE_MAX_COLS];
			uint32_t null;

			assert_int_equal(sqlite3_prepare_v2(db, "SELECT t FROM x.cmd ORDER BY rowid",
							    -1, &st, NULL), SQLITE_OK);
			n = 0;
			while (ntp_btree_next(b, v, &null) == NTP_BTREE_ROW) {
				assert_int_equal(sqlite3_step(st), SQLITE_ROW);
				assert_int_equal(v[0], sqlite3_column_int64(st, 0));
				n++;
			}
			sqlite3_finalize(st);
			assert_int_equal(n, 3000);
		}
		ntp_btree_close(b);
	}
	sqlite3_close(db);
	tl_cleanup();
}

/* t.db, a table of 4000 rows: its page size, pages and root page. */
static void plain_table(int64_t *psz, int64_t *npages, int64_t *root)
{
	sqlite3 *db;

	make_table(plain, 4000);
	db = attach("t.db");
	*psz = tl_int(db, "PRAGMA x.page_size");
	*npages = tl_int(db, "PRAGMA x.page_count");
	*root = tl_int(db, "SELECT rootpage FROM x.sqlite_schema WHERE name = 'cmd'");
	sqlite3_close(db);
}

/* Damaged copies: bytes of the table's pages set at random, 400 times. No
 * read out of bounds (make check-asan runs this too); where SQLite reads
 * the whole table, the reader's rows are SQLite's until it stops. */
static void test_damaged(void **state)
{
	static const char *cols[] = { "t", "a", "b", "c" };
	unsigned seed = 12345;
	int64_t npages, psz, root, same = 0, stopped = 0;
	FILE *f;
	char *orig;
	size_t size;
	sqlite3 *db;

	(void)state;
	plain_table(&psz, &npages, &root);
	assert_non_null(f = fopen(tl_file("t.db"), "rb"));
	size = (size_t)(npages * psz);
	assert_non_null(orig = malloc(size));
	assert_int_equal(fread(orig, 1, size, f), size);
	fclose(f);
	for (int round = 0; round < 400; round++) {
		char *copy = malloc(size);
		sqlite3_stmt *st;
		struct ntp_btree *b;
		int sql_whole, rc;

		memcpy(copy, orig, size);
		/* a few bytes of the table's pages, often its headers and cell
		 * pointers */
		for (int k = 0; k < 1 + round % 4; k++) {
			int64_t pg = root + rand_r(&seed) % (npages - root + 1);
			int64_t off = rand_r(&seed) % 2 ? rand_r(&seed) % 40
							 : rand_r(&seed) % psz;

			copy[(pg - 1) * psz + off] = (char)rand_r(&seed);
		}
		assert_non_null(f = fopen(tl_file("d.db"), "wb"));
		assert_int_equal(fwrite(copy, 1, size, f), size);
		fclose(f);
		free(copy);
		db = attach("d.db");
		/* does SQLite read it whole? */
		sql_whole = sqlite3_prepare_v2(db, "SELECT t, a, b, c FROM x.cmd ORDER BY t", -1,
					       &st, NULL) == SQLITE_OK;
		if (sql_whole) {
			while ((rc = sqlite3_step(st)) == SQLITE_ROW)
				;
			sql_whole = rc == SQLITE_DONE;
		}
		sqlite3_finalize(st);
		assert_int_equal(ntp_btree_open(db, "x", "cmd", 4, cols, &b), SQLITE_OK);
		if (b && sql_whole) {
			int64_t n;

			rc = compare(db, b, INT64_MIN, cols, 4, &n);
			same += rc == NTP_BTREE_DONE;
			stopped += rc == NTP_BTREE_NO;
		} else if (b) {
			/* SQLite refuses it: only that the reader stops */
			int64_t v[NTP_BTREE_MAX_COLS];
			uint32_t null;
			int64_t rows = 0;

			if (ntp_btree_seek(b, INT64_MIN) == NTP_BTREE_DONE)
				while (ntp_btree_next(b, v, &null) == NTP_BTREE_ROW)
					assert_true(++rows <= npages * psz / 2);
		}
		ntp_btree_close(b);
		sqlite3_close(db);
	}
	free(orig);
	print_message("damaged: %lld read as SQLite reads them, %lld stopped\n", (long long)same, (long long)stopped);
	/* both outcomes were met */
	assert_true(same > 0);
	assert_true(stopped > 0);
	tl_cleanup();
}

/* An interior page whose second child is its first again (a damaged
 * file): the reader stops where the rowids stop increasing, at the first
 * row read twice, whatever SQLite makes of it. */
static void test_repeated_page(void **state)
{
	static const char *cols[] = { "t", "a", "b", "c" };
	unsigned char *p;
	int64_t psz, npages, root, n, first;
	sqlite3 *db;
	FILE *f;

	(void)state;
	plain_table(&psz, &npages, &root);
	assert_non_null(p = malloc((size_t)psz));
	assert_non_null(f = fopen(tl_file("t.db"), "r+b"));
	assert_int_equal(fseek(f, (root - 1) * psz, SEEK_SET), 0);
	assert_int_equal(fread(p, 1, (size_t)psz, f), (size_t)psz);
	assert_int_equal(p[0], 0x05); /* an interior page of a table */
	assert_true((p[3] << 8 | p[4]) >= 2);
	{
		unsigned c0 = p[12] << 8 | p[13], c1 = p[14] << 8 | p[15];
		/* the first child's greatest rowid: the rows read before the
		 * repeat */
		unsigned char *k = p + c0 + 4;
		uint64_t key = 0;

		memcpy(p + c1, p + c0, 4);
		while (*k & 0x80)
			key = key << 7 | (*k++ & 0x7f);
		key = key << 7 | *k;
		first = (int64_t)key;
	}
	assert_int_equal(fseek(f, (root - 1) * psz, SEEK_SET), 0);
	assert_int_equal(fwrite(p, 1, (size_t)psz, f), (size_t)psz);
	fclose(f);
	free(p);
	db = attach("t.db");
	{
		struct ntp_btree *b;
		int64_t v[NTP_BTREE_MAX_COLS];
		uint32_t null;
		int rc;

		assert_int_equal(ntp_btree_open(db, "x", "cmd", 4, cols, &b), SQLITE_OK);
		assert_non_null(b);
		assert_int_equal(ntp_btree_seek(b, INT64_MIN), NTP_BTREE_DONE);
		n = 0;
		while ((rc = ntp_btree_next(b, v, &null)) == NTP_BTREE_ROW) {
			assert_true(v[0] <= first);
			n++;
		}
		assert_int_equal(rc, NTP_BTREE_NO);
		assert_true(n > 0);
		ntp_btree_close(b);
	}
	sqlite3_close(db);
	tl_cleanup();
}

/* What it refuses to open: a file not attached immutable (its pages may
 * be in SQLite's cache), a column asked for twice, a column of REAL
 * affinity (SQLite reads its integers as reals), a page size that is no
 * page size; and which column reads the rowid. */
static void test_refuses(void **state)
{
	static const char *cols[] = { "t", "a", "b", "c" };
	struct ntp_btree *b;
	sqlite3 *db;
	FILE *f;

	(void)state;
	make_table(plain, 100);
	db = attach("t.db");
	assert_int_equal(ntp_btree_open(db, "x", "cmd", 4, cols, &b), SQLITE_OK);
	assert_non_null(b);
	assert_int_equal(ntp_btree_rowid_column(b), 0);
	ntp_btree_close(b);
	assert_int_equal(ntp_btree_open(db, "x", "cmd", 4,
					(const char *[]){ "a", "b", "a", "t" }, &b), SQLITE_OK);
	assert_null(b);
	sqlite3_close(db);
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	{
		char *sql = sqlite3_mprintf("ATTACH 'file:%q?mode=ro' AS x", tl_file("t.db"));

		exec(db, sql);
		sqlite3_free(sql);
	}
	assert_int_equal(ntp_btree_open(db, "x", "cmd", 4, cols, &b), SQLITE_OK);
	assert_null(b);
	sqlite3_close(db);
	make_table("CREATE TABLE cmd (t INTEGER PRIMARY KEY, a INTEGER, b REAL, c INTEGER)", 100);
	db = attach("t.db");
	assert_int_equal(ntp_btree_open(db, "x", "cmd", 4, cols, &b), SQLITE_OK);
	assert_null(b);
	sqlite3_close(db);
	/* no page size (the header's, zeroed after it was attached: SQLite
	 * refuses to attach such a file, and reads an immutable one's header
	 * once) */
	make_table(plain, 100);
	db = attach("t.db");
	assert_int_equal(tl_int(db, "SELECT count(*) FROM x.cmd"), 100);
	assert_non_null(f = fopen(tl_file("t.db"), "r+b"));
	assert_int_equal(fseek(f, 16, SEEK_SET), 0);
	assert_int_equal(fwrite("\0\0", 1, 2, f), 2);
	fclose(f);
	assert_int_equal(ntp_btree_open(db, "x", "cmd", 4, cols, &b), SQLITE_OK);
	assert_null(b);
	sqlite3_close(db);
	tl_cleanup();
}

/* A record whose header says fewer bytes of values than it holds (a
 * value's type made NULL): SQLite calls it malformed, and the reader stops
 * there. */
static void test_record_end(void **state)
{
	static const char *cols[] = { "t", "a", "b", "c" };
	int64_t psz, npages, root;
	unsigned char *p;
	sqlite3 *db;
	FILE *f;
	int64_t n;

	(void)state;
	make_table(plain, 1);
	assert_int_equal(sqlite3_open(tl_file("t.db"), &db), SQLITE_OK);
	exec(db, "UPDATE cmd SET t = 100, a = 5, b = 6, c = 7");
	sqlite3_close(db);
	db = attach("t.db");
	psz = tl_int(db, "PRAGMA x.page_size");
	npages = tl_int(db, "PRAGMA x.page_count");
	root = tl_int(db, "SELECT rootpage FROM x.sqlite_schema WHERE name = 'cmd'");
	sqlite3_close(db);
	assert_true(root <= npages);
	assert_non_null(p = malloc((size_t)psz));
	assert_non_null(f = fopen(tl_file("t.db"), "r+b"));
	assert_int_equal(fseek(f, (root - 1) * psz, SEEK_SET), 0);
	assert_int_equal(fread(p, 1, (size_t)psz, f), (size_t)psz);
	{
		/* the one cell: payload size, rowid (100: a byte), then the
		 * header: its size, t's NULL, a's, b's and c's 1 */
		unsigned c = p[8] << 8 | p[9];
		unsigned char *h = p + c + 1 + 1;

		assert_int_equal(p[0], 0x0d);
		assert_int_equal(h[0], 5);
		assert_int_equal(h[1], 0);
		assert_int_equal(h[2], 1);
		h[2] = 0;
	}
	assert_int_equal(fseek(f, (root - 1) * psz, SEEK_SET), 0);
	assert_int_equal(fwrite(p, 1, (size_t)psz, f), (size_t)psz);
	fclose(f);
	free(p);
	db = attach("t.db");
	assert_int_not_equal(sqlite3_exec(db, "SELECT * FROM x.cmd", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(read_until(db, cols, &n), NTP_BTREE_NO);
	assert_int_equal(n, 0);
	sqlite3_close(db);
	tl_cleanup();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_leaves_to_sqlite),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_repeated_page),
		cmocka_unit_test(test_refuses),
		cmocka_unit_test(test_record_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
