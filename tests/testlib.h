/* SPDX-License-Identifier: BSD-2-Clause */
/* Helpers shared by the cmocka tests: scratch files, queries, references. */
#ifndef NTP_TESTLIB_H
#define NTP_TESTLIB_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "gen.h"
#include "ntp_session.h"

/* A fresh directory under $TMPDIR (or /tmp), removed by tl_cleanup. */
const char *tl_dir(void);
/* DIR/NAME in a static ring of buffers. */
const char *tl_file(const char *name);
void tl_cleanup(void);

/* Run a generator config into host files h0.db.. and t.db; fails the test
 * on error. */
void tl_gen(const struct gen_config *cfg, struct gen_result *res);

/* Open the listed files (NULL-terminated) as a session; fails on error. */
void tl_open(struct ntp_session *s, int flags, ...);

/* One value of a query (printf-style SQL); fails the test on error. */
double tl_double(sqlite3 *db, const char *fmt, ...);
int64_t tl_int(sqlite3 *db, const char *fmt, ...);
/* 1 if the query returns a row whose first column is not NULL */
int tl_has_row(sqlite3 *db, const char *fmt, ...);

/* Reference nearest-rank percentile by sorting: rank (n q + 99999) / 100000. */
int64_t tl_percentile(const int64_t *v, size_t n, int q);

#endif
