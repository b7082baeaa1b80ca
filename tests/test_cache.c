// SPDX-License-Identifier: BSD-2-Clause
/*
 * The prepared run's cache file (lib/cache.c) between its check and its
 * use, within one process: what tests/cache_test.sh cannot reach from the
 * command line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "testlib.h"

/* A session of H and T that prepares only what a report reads (BASE) or
 * everything. */
static void open_prepared(struct ntp_session *s, const char *h, const char *t, int base)
{
	char *paths[2] = { strdup(h), strdup(t) };
	char err[1024];

	if (ntp_session_open(s, 2, paths, 0, err, sizeof(err)))
		fail_msg("open: %s", err);
	free(paths[0]);
	free(paths[1]);
	s->prepare_base = base;
	if (ntp_session_prepare(s, err, sizeof(err)))
		fail_msg("prepare: %s", err);
}

/* Whether the SQLite file PATH has a table NAME. */
static int has_table(const char *path, const char *name)
{
	sqlite3 *db;
	int64_t n;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	n = tl_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = %Q",
		   name);
	sqlite3_close(db);
	return n > 0;
}

/*
 * A kept run read by a session that then wants the per-command end to end
 * (ntp_cache_begin_more copies the file, adds the tables and signs the
 * copy). A file put in its place after it was checked is not what was
 * checked: it is not copied, so not signed as ntprof's, and the session
 * computes the tables in TEMP. A later session refuses the file (its MAC
 * is of the one checked) and prepares again.
 */
static void test_more_replaced(void **state)
{
	struct ntp_session s;
	struct gen_config c;
	struct gen_result r;
	struct stat forged;
	char path[1024], tmp[1100], cmd[2300];
	const char *h, *t;
	sqlite3 *db;

	gen_defaults(&c);
	c.iops = 2000;
	c.seconds = 1;
	tl_gen(&c, &r);
	h = strdup(tl_file("h0.db"));
	t = strdup(tl_file("t.db"));

	/* a report's preparation, kept without the end to end */
	open_prepared(&s, h, t, 1);
	assert_non_null(s.cache_file);
	snprintf(path, sizeof(path), "%s", s.cache_file);
	ntp_session_close(&s);
	assert_false(has_table(path, "_ntp_host_e2e_cache"));

	/* read by the next session, checked ... */
	open_prepared(&s, h, t, 1);
	assert_non_null(s.cache_file);
	assert_string_equal(s.cache_file, path);
	assert_int_equal(s.more_missing, 1);
	/* ... then replaced: the same file with a table of someone else's */
	snprintf(tmp, sizeof(tmp), "%s.forged", path);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", path, tmp);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(sqlite3_open(tmp, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE forged (x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(rename(tmp, path), 0);
	assert_int_equal(stat(path, &forged), 0);

	/* the end to end wanted: computed in TEMP, the answer whole */
	s.prepare_base = 0;
	{
		char err[1024];

		if (ntp_session_prepare(&s, err, sizeof(err)))
			fail_msg("prepare: %s", err);
	}
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM _ntp_host_e2e"),
			 (int64_t)r.host_records[0]);
	ntp_session_close(&s);
	{
		struct stat now;

		/* not copied and signed in its place */
		assert_int_equal(stat(path, &now), 0);
		assert_int_equal(now.st_ino, forged.st_ino);
	}

	/* the next session refuses it and prepares again, without it */
	open_prepared(&s, h, t, 0);
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM _ntp_host_e2e"),
			 (int64_t)r.host_records[0]);
	ntp_session_close(&s);
	assert_false(has_table(path, "forged"));
	assert_true(has_table(path, "_ntp_host_e2e_cache"));

	free((char *)h);
	free((char *)t);
	gen_result_free(&r);
	tl_cleanup();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_more_replaced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
