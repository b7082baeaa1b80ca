/* SPDX-License-Identifier: BSD-2-Clause */
/* The sql/ files, embedded at build time by sql/embed.sh. */
#ifndef NTP_SQL_H
#define NTP_SQL_H

extern const char ntp_sql_schema[];       /* tables of every database */
extern const char ntp_sql_vocab[];        /* stage points, components, stages, labels */
extern const char ntp_sql_host[];         /* host cmd table */
extern const char ntp_sql_host_views[];   /* host per-command views */
extern const char ntp_sql_target[];       /* target cmd table */
extern const char ntp_sql_target_views[]; /* target per-command views */
extern const char ntp_sql_views[];        /* per-machine report views */
extern const char ntp_sql_prelude[];      /* per-database arms of the TEMP base views */
extern const char ntp_sql_join[];         /* TEMP views joining hosts and targets */
extern const char ntp_sql_report[];       /* TEMP views the report prints */
extern const char ntp_sql_stats[];        /* TEMP views: drill-down, histograms, series */
extern const char ntp_sql_native[];       /* TEMP views using native aggregates */
extern const char ntp_sql_shell[];        /* TEMP views ntprof-shell's dot-commands print */
extern const char ntp_sql_compare[];      /* TEMP views comparing runs side by side */
extern const char ntp_sql_plot[];         /* TEMP views ntprof plot draws */
extern const char ntp_sql_export[];       /* TEMP views ntprof export writes */
extern const char ntp_sql_cache[];        /* TEMP views of the prepared run's cache */
extern const char ntp_sql_live[];         /* ntprof-collect's live lines (a query) */
extern const char ntp_sql_live_gaps[];    /* its lost records and gaps (a query) */

#endif
