/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The collector's live lines and its live account of what is missing, from
 * aggregates kept in memory as an interval's commands are stored
 * (lib/live.c), rather than from SQL over the table just written: the text
 * sql/live.sql and sql/live_gaps.sql give for the same records
 * (tests/test_live.c compares them), without a sort of the interval's
 * commands. The writer (ntp_db.h, ntp_db_live) feeds it.
 */
#ifndef NTP_LIVE_H
#define NTP_LIVE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include "ntprof_abi.h"

/* A live line: sql/live.sql's columns in its order (time, grp, n, rate,
 * mean_us, p99_us, blk, hdrv, net, tdrv, stor), as text. */
#define NTP_LIVE_NCOL 11
#define NTP_LIVE_WIDTH 128
struct ntp_live_line {
	char col[NTP_LIVE_NCOL][NTP_LIVE_WIDTH];
};

/* A row of sql/live_gaps.sql: N records lost (point ""), or N stored
 * records that lack POINT, and why (cause.description). */
struct ntp_live_gap {
	char point[16];
	int64_t n;
	char why[160];
};

struct ntp_live;

/* Flags of ntp_live_new. */
#define NTP_LIVE_LINES 1 /* the live lines too, not only what is missing */

/*
 * Start keeping the live lines of a recording of ROLE (enum ntp_role) at
 * SAMPLE_RATE, whose database DB has its vocabulary written. The first
 * interval starts at t 0. Returns NULL with a message in ERR (ERRLEN bytes)
 * when the views' sums are not what the lines can be kept as.
 */
struct ntp_live *ntp_live_new(sqlite3 *db, int role, uint32_t sample_rate, int flags,
			      char *err, size_t errlen);
/* Before DB is closed: it holds a statement on it. NULL is fine. */
void ntp_live_free(struct ntp_live *l);

/* Command R was stored as t T (ns since meta.mono_start) in group GI (the
 * writer's index of it) whose grp.id is ID. */
void ntp_live_add(struct ntp_live *l, size_t gi, int64_t id, int64_t t,
		  const struct ntp_cmd_record *r);

/* Group GI (grp.id ID) has an interval_grp row in the interval being
 * ended: SAMPLED commands, and TOTAL where COUNTED. */
void ntp_live_count(struct ntp_live *l, size_t gi, int64_t id, uint64_t sampled, uint64_t total,
		    int counted);

/*
 * Interval ID [START, STOP) (ns since meta.mono_start) is written on DB,
 * with LOST records per cause and GAPS per point and cause: make its lines,
 * and start the next interval at STOP.
 */
void ntp_live_end(struct ntp_live *l, sqlite3 *db, int64_t id, int64_t start, int64_t stop,
		  const uint64_t lost[NTP_CAUSE_MAX], const uint64_t gaps[][NTP_CAUSE_MAX]);

/* The last ended interval's lines, in sql/live.sql's order (none unless
 * NTP_LIVE_LINES), and what it lost and lacks, in sql/live_gaps.sql's. */
size_t ntp_live_lines(const struct ntp_live *l, const struct ntp_live_line **lines);
size_t ntp_live_gaps(const struct ntp_live *l, const struct ntp_live_gap **gaps);

/* 1: the last interval's lines came from running sql/live.sql, as they do
 * when memory cannot give its exact text (live.c, exact()). */
int ntp_live_from_sql(const struct ntp_live *l);

/* Why the last interval has no lines, or NULL. */
const char *ntp_live_error(const struct ntp_live *l);

/*
 * sql/live.sql's lines for interval ID of DB, appended to *LINES (*N of
 * them, room for *CAP; grown with realloc). Returns 0, or -1 with ERR.
 */
int ntp_live_sql(sqlite3 *db, int64_t id, struct ntp_live_line **lines, size_t *n, size_t *cap,
		 char *err, size_t errlen);

#endif
