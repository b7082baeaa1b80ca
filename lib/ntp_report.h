/* SPDX-License-Identifier: BSD-2-Clause */
/* The report of a session (lib/report.c) and its time series
 * (lib/series.c). */
#ifndef NTP_REPORT_H
#define NTP_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "ntp_session.h"

/* What ntp_report prints besides the groups' stage tables, and how. */
#define NTP_REPORT_DETAIL 1 /* the components table */
#define NTP_REPORT_ALL 2    /* admin and fabrics groups, not one line for them */
#define NTP_REPORT_JSON 4   /* a JSON document (docs/report-json.md) */
#define NTP_REPORT_CSV 8    /* one CSV table, ntp_report_rows (docs/report-json.md) */
#define NTP_REPORT_STRICT 16 /* ntp_report returns NTP_REPORT_UNRELIABLE on a warning */
#define NTP_REPORT_SUMMARY 32  /* the fleet summary, however many hosts */
#define NTP_REPORT_PER_HOST 64 /* a section per group, however many hosts */

/* What ntp_report returns with NTP_REPORT_STRICT when the report it printed
 * has a warning (ntp_report_warning: a refused join, records lost). */
#define NTP_REPORT_UNRELIABLE 1

/* Without NTP_REPORT_SUMMARY or _PER_HOST, and without a GROUP, a report
 * over more host recordings than this is the fleet summary: per operation
 * and size, a total over every host's commands, then a row per host
 * (sql/report.sql, ntp_report_fleet_*; docs/fleet.md). */
#define NTP_REPORT_FLEET_HOSTS 4

/* The JSON report's "schema" and "version": the version changes when a
 * change would break a reader of the one before (docs/report-json.md). */
#define NTP_REPORT_SCHEMA "ntprof-report"
#define NTP_REPORT_VERSION 2

/* Print the report for the session: host-only or joined per group, I/O
 * groups first, as text (seed layout), JSON or CSV; FLAGS (NTP_REPORT_*)
 * add the components table and the admin groups, choose the format and
 * the layout (sections, or the fleet summary: NTP_REPORT_FLEET_HOSTS);
 * GROUP, if not NULL, limits it to groups (in the summary, fleet groups)
 * whose name contains it. Nothing is written unless the whole report is.
 * Returns 0, or -1 with err set; with NTP_REPORT_STRICT,
 * NTP_REPORT_UNRELIABLE after a report that has a warning (a refused join,
 * a group's records lost). */
int ntp_report(struct ntp_session *s, FILE *f, int flags, const char *group, char *err,
	       size_t errlen);

/* Set COLUMN of ntp_report_threshold (min_match_pct, max_lost_pct: sql/join.sql)
 * to PCT, before the session is prepared (the verdicts are cached with the
 * join). Returns 0, or -1 with err set. */
int ntp_report_threshold(struct ntp_session *s, const char *column, double pct, char *err,
			 size_t errlen);

/* Print the time series of the report's groups (sql/stats.sql) in buckets of
 * WIDTH_NS: per group (FLAGS and GROUP select them as for ntp_report) one
 * line per bucket. Returns 0, or -1 with err set. */
int ntp_report_timeline(struct ntp_session *s, FILE *f, int flags, const char *group,
			int64_t width_ns, char *err, size_t errlen);

/* A bucket width: a number of seconds ("0.5"), or with a unit ("1s",
 * "500ms", "250us"), from 1 us to a day. 0 with *NS set, or -1. */
int ntp_parse_width(const char *arg, int64_t *ns);

/* What ntp_parse_width accepts, for error messages. */
#define NTP_WIDTH_HELP "expected a width such as 1s, 500ms or 0.5 (seconds), from 1us to 86400s"

#endif
