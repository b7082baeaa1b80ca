/* SPDX-License-Identifier: BSD-2-Clause */
/* Runs compared side by side: ntprof compare, .compare (lib/compare.c). */
#ifndef NTP_COMPARE_H
#define NTP_COMPARE_H

#include <stdio.h>

#include "ntp_session.h"

/* Print the runs of a session opened by ntp_session_open_runs side by side
 * (sql/compare.sql): a "note:" line per difference between the runs that
 * makes them compare less well (ntp_compare_note), then per I/O group
 * (operation and size) matched across the runs, each stage's mean and
 * median (and p99) per run, their differences from the first run with 95 %
 * confidence intervals, the stage whose median moved most and the
 * tail-driven ones. GROUP, if not NULL, limits it to groups whose name
 * contains it. FLAGS, as the report's: NTP_REPORT_DETAIL adds the
 * components and p99, NTP_REPORT_JSON or _CSV choose the format
 * (docs/report-json.md). Nothing is written unless the whole comparison
 * is; runs that share no I/O group with the first are refused. Returns 0
 * with *CHANGED (if not NULL) 1 when a stage or end to end of the groups
 * shown is marked as a change, else 0; or -1 with err set. */
int ntp_compare(struct ntp_session *s, FILE *f, const char *group, int flags, int *changed,
		char *err, size_t errlen);

/* The smallest difference ntp_compare calls a change, % of the first run's
 * median end to end (ntp_compare_threshold). Returns 0, or -1 with err set. */
int ntp_compare_min_effect(struct ntp_session *s, double pct, char *err, size_t errlen);

/* A percentage, 0 to 1e6, perhaps followed by '%' ("1", "0.5", "5%"): 0
 * with *PCT set, or -1. */
int ntp_parse_pct(const char *arg, double *pct);

/* What ntp_parse_pct accepts, for error messages. */
#define NTP_PCT_HELP "expected a percentage, 0 or more (1, 0.5, 5%)"

/* The compare JSON's "schema" and "version" (docs/report-json.md). */
#define NTP_COMPARE_SCHEMA "ntprof-compare"
#define NTP_COMPARE_VERSION 2

#endif
