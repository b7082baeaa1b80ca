/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * `ntprof export`: a session's per-command values, and its recordings,
 * intervals and losses, as rows for analytics engines (sql/export.sql,
 * docs/fleet.md): CSV or JSON lines, to files or standard output, or
 * loaded into ClickHouse over its HTTP interface (sql/clickhouse/).
 */
#ifndef NTP_EXPORT_H
#define NTP_EXPORT_H

#include <stdio.h>

#include "ntp_out.h"
#include "ntp_session.h"

/* The tables, in the order a load writes them: a recording's own row
 * last, so that it says the recording's other rows are in. */
enum ntp_export_table {
	NTP_EXPORT_COMMAND,
	NTP_EXPORT_INTERVAL,
	NTP_EXPORT_LOST,
	NTP_EXPORT_RECORDING,
	NTP_EXPORT_NTABLES,
};

/* Table T's name: command, interval, lost, recording (the view
 * ntp_export_NAME, the ClickHouse table ntp_fleet_NAME). */
const char *ntp_export_name(int t);

/* The table named NAME, or -1. */
int ntp_export_table(const char *name);

/* What to export, and where. */
struct ntp_export_opts {
	const char *label;      /* the run's label; NULL: the session's (ntp_run.run) */
	int table;              /* one table (enum ntp_export_table); -1: every table */
	const char *prefix;     /* files PREFIX-TABLE.csv (or .jsonl); NULL: standard output */
	enum ntp_mode mode;     /* NTP_MODE_CSV or NTP_MODE_JSONL */
	const char *clickhouse; /* a URL: load into that ClickHouse server instead */
};

/*
 * Export the session S: with o->prefix, each table into a new file (one
 * that exists is an error, before anything is written), naming the files
 * written on F, one a line; else table o->table to F. With o->clickhouse,
 * load every table into ClickHouse instead (ntp_clickhouse_load) and say
 * what was loaded on F. Returns 0, or -1 with err set (files it created
 * are removed).
 */
int ntp_export(struct ntp_session *s, const struct ntp_export_opts *o, FILE *f, char *err,
	       size_t errlen);

/* The SELECT of table T's rows; with ONLY_NEW, only those of the
 * recordings in the TEMP table _ntp_export_load. sqlite3_free it. */
char *ntp_export_select(int t, int only_new);

/*
 * Load the session's export into ClickHouse at URL,
 * http://[USER[:PASSWORD]@]HOST[:PORT][/PATH][?PARAMS] (port 8123 by
 * default; PARAMS such as database=fleet go with every request), into the
 * tables ntp_fleet_command, _interval, _lost and _recording of
 * sql/clickhouse/schema.sql. A recording whose row is there already, of
 * the same version, run and targets, is left out: loading the same files
 * twice adds nothing. Says on F how many recordings and rows were loaded.
 * Returns 0, or -1 with err set.
 */
int ntp_clickhouse_load(struct ntp_session *s, const char *url, FILE *f, char *err,
			size_t errlen);

/* 0 when URL is one ntp_clickhouse_load takes; else -1 with err set. */
int ntp_clickhouse_check_url(const char *url, char *err, size_t errlen);

#endif
