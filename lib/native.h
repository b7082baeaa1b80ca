/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The native SQL functions (lib/native.c): ntp_native_register, the entry
 * point a session uses, and internals declared so the unit tests can call
 * them without SQL.
 */
#ifndef NTP_NATIVE_H
#define NTP_NATIVE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* Register ntprof's native SQL functions (lib/native.c) on DB. */
int ntp_native_register(sqlite3 *db);

/* Register the table-valued function ntp_pair (lib/pair.c), the native
 * join's pairing, and ntp_e2e_series, the time series of a recording's
 * end to end, on DB; part of ntp_native_register. */
int ntp_pair_register(sqlite3 *db);

/*
 * The join's tap (lib/native.c): the preparation's statistics of the
 * joined commands taken from ntp_pair's rows as they are written
 * (sql/native.sql, ntp_tap_arm). ntp_pair_register makes one per
 * connection (ntp_tap_new, freed by ntp_tap_free when the connection
 * closes) and registers its SQL functions (ntp_tap_register). A cursor of
 * ntp_pair filtered while the tap is armed feeds it: ntp_tap_begin (NULL:
 * not armed), ntp_tap_row for each joined command, ntp_tap_end (AT_END 0:
 * the cursor stopped before its end, and the tap is not used). A row's
 * HT is its host command's t (NULL: none); its values are ntp_pair's
 * value columns, in their order, each named by
 * ntp_pair_value_name (ntp_joined's columns of the same names are those
 * values); bit i of NULL set where value i is NULL; OVER where one
 * overflowed.
 */
#define NTP_PAIR_NV 16
const char *ntp_pair_value_name(int i);
struct ntp_tap;
struct ntp_tap_feed;
struct ntp_tap *ntp_tap_new(void);
void ntp_tap_free(void *tap);
int ntp_tap_register(sqlite3 *db, struct ntp_tap *tap);
struct ntp_tap_feed *ntp_tap_begin(struct ntp_tap *tap, const char *hdb, const char *tdb);
void ntp_tap_row(struct ntp_tap_feed *f, int64_t grp, const int64_t *ht, const int64_t *v,
		 uint32_t null, int over);
void ntp_tap_end(struct ntp_tap_feed *f, int at_end);

/*
 * ntp_series(bucket, e2e)'s result built in C (lib/native.c), for the
 * time series read from a recording's pages (ntp_e2e_series, lib/pair.c):
 * ntp_series_push adds one command and returns "" or an error (NULL: out
 * of memory); ntp_series_json returns the JSON array ntp_series would
 * (sqlite3_malloc'd, NULL: out of memory) and empties S, which
 * ntp_series_free frees.
 */
struct ntp_series;
struct ntp_series *ntp_series_new(void);
const char *ntp_series_push(struct ntp_series *s, int64_t bucket, int64_t e2e);
char *ntp_series_json(struct ntp_series *s);
void ntp_series_free(struct ntp_series *s);

/*
 * Exact nearest-rank p50, p90, p99 and p99.9 of the N values in V: with V
 * sorted ascending and ranks 1-based, out[i] is the value at rank
 * (N * Q + 99999) / 100000 for Q = 50000, 90000, 99000, 99900, i.e.
 * ceil(q * N) without floating point. Reorders V (O(N), no allocation).
 * Returns 0, or -1 and leaves OUT alone if N is 0.
 */
int ntp_select_quantiles(int64_t *v, size_t n, int64_t out[4]);
int ntp_select_quantiles32(int32_t *v, size_t n, int64_t out[4]);

/*
 * The distribution-free 95 % interval of a quantile of N sorted values
 * (docs/sql.md, Percentiles): WHICH 0 the median, 1 p99, 2 p90. Sets the
 * 1-based ranks *L and *U of its ends and returns 0, or returns -1 when
 * they fall outside 1..N (too few values for an interval), or N is over
 * 2^40. ntp_dist_ci gives the first NTP_CI_DIST of them; p90's is for
 * tests/check_fidelity.c.
 */
#define NTP_CI_P50 0
#define NTP_CI_P99 1
#define NTP_CI_P90 2
#define NTP_CI_N 3
#define NTP_CI_DIST 2
int ntp_ci_ranks(size_t n, int which, size_t *l, size_t *u);

/*
 * Reorder V so that v[k] (k < N) is the value sorted order puts there, with
 * nothing greater before it and nothing smaller after it. DEPTH partitions
 * are tried before the rest is heapsorted, which bounds the worst case at
 * O(N log N); the quantile functions pass 2 * log2(N).
 */
void ntp_nth64(int64_t *v, size_t n, size_t k, unsigned int depth);
void ntp_nth32(int32_t *v, size_t n, size_t k, unsigned int depth);

/*
 * How many aggregates of this process have written their values to a
 * temporary file, because all of them together would have held more than
 * NTPROF_SELECT_MEMORY MiB (read when the functions are registered). For
 * the tests: a spilled aggregate's answers are the in-memory ones.
 */
size_t ntp_native_spills(void);

/* The bytes the aggregates of this process hold in values now: 0 when no
 * query is running (for the tests: the budget's accounting). */
size_t ntp_native_held(void);

#endif
