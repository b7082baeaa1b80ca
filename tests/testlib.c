// SPDX-License-Identifier: BSD-2-Clause
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "testlib.h"

static char dir[256];
static char cache[300];

const char *tl_dir(void)
{
	const char *t = getenv("TMPDIR");

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/ntprof-test-XXXXXX", t ? t : "/tmp");
		assert_non_null(mkdtemp(dir));
		/* prepared runs (lib/cache.c) beside the files they are of, never
		 * in the user's cache, and not said on stderr */
		snprintf(cache, sizeof(cache), "%s/cache", dir);
		setenv("NTPROF_CACHE_DIR", cache, 1);
		setenv("NTPROF_PREPARE_NOTE_AFTER", "3600", 0);
	}
	return dir;
}

const char *tl_file(const char *name)
{
	static char buf[8][512];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tl_dir(), name);
	return buf[i];
}

void tl_cleanup(void)
{
	char cmd[600];

	if (!dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	dir[0] = 0;
}

void tl_gen(const struct gen_config *cfg, struct gen_result *res)
{
	const char *hosts[GEN_MAX_HOSTS];
	char names[GEN_MAX_HOSTS][16];

	for (int i = 0; i < cfg->nhosts; i++) {
		snprintf(names[i], sizeof(names[i]), "h%d.db", i);
		hosts[i] = strdup(tl_file(names[i]));
	}
	assert_int_equal(gen_run(cfg, hosts, tl_file("t.db"), res), 0);
	for (int i = 0; i < cfg->nhosts; i++)
		free((char *)hosts[i]);
}

void tl_open(struct ntp_session *s, int flags, ...)
{
	char *paths[NTP_MAX_DBS];
	char err[1024];
	int n = 0;
	va_list ap;

	va_start(ap, flags);
	for (const char *p; n < NTP_MAX_DBS && (p = va_arg(ap, const char *));)
		paths[n++] = strdup(p);
	va_end(ap);
	if (ntp_session_open(s, n, paths, flags, err, sizeof(err)))
		fail_msg("open: %s", err);
	for (int i = 0; i < n; i++)
		free(paths[i]);
	if (ntp_session_prepare(s, err, sizeof(err)))
		fail_msg("prepare: %s", err);
}

static sqlite3_stmt *run(sqlite3 *db, const char *fmt, va_list ap)
{
	char *sql = sqlite3_vmprintf(fmt, ap);
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_free(sql);
	return st;
}

double tl_double(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	sqlite3_stmt *st;
	double v;

	va_start(ap, fmt);
	st = run(db, fmt, ap);
	va_end(ap);
	if (sqlite3_step(st) != SQLITE_ROW)
		fail_msg("no row: %s", sqlite3_sql(st));
	v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

int64_t tl_int(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	sqlite3_stmt *st;
	int64_t v;

	va_start(ap, fmt);
	st = run(db, fmt, ap);
	va_end(ap);
	if (sqlite3_step(st) != SQLITE_ROW)
		fail_msg("no row: %s", sqlite3_sql(st));
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int tl_has_row(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	sqlite3_stmt *st;
	int v;

	va_start(ap, fmt);
	st = run(db, fmt, ap);
	va_end(ap);
	v = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL;
	sqlite3_finalize(st);
	return v;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int64_t tl_percentile(const int64_t *v, size_t n, int q)
{
	int64_t *c = malloc(n * sizeof(*c)), r;

	assert_non_null(c);
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp64);
	r = c[(n * (size_t)q + 99999) / 100000 - 1];
	free(c);
	return r;
}
