/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ntprof-shell and `ntprof report`: opening recordings safely, printing
 * query results, the text report, and the native SQL functions.
 */
#ifndef NTP_SESSION_H
#define NTP_SESSION_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "json_writer.h"

/* SQLite attaches at most 10 databases (SQLITE_MAX_ATTACHED). */
#define NTP_MAX_DBS 10

/* Recordings one session reads: more than NTP_MAX_DBS come through a merged
 * file (ntp_merge), which holds them all in one attachment. */
#define NTP_MAX_RECORDINGS 256

/* One recording the session opened. */
struct ntp_dbinfo {
	char *path;           /* as given on the command line */
	char *open_path;      /* the file read: path, or a private copy (copy_dir) */
	char *copy_dir;       /* the private copy's directory, removed at close */
	char schema[24];      /* attached as: host, host2, ..., target, target2,
			       * merged (a merged file), merged_host (one of its
			       * recordings when several files are open) */
	char from[16];        /* a merged file's recording: that file's schema;
			       * "" for a file attached itself */
	char stored[16];      /* a merged file's recording: its db name there */
	char role[8];         /* host or target, from meta; merged: a merged file */
	char driver[8];       /* kernel or spdk */
	char transport[8];    /* tcp or rdma */
	char hostname[256];   /* meta.hostname */
	char kernel[128];     /* meta.kernel */
	int64_t sample_rate;  /* meta.sample_rate */
	int64_t records;      /* rows in cmd */
	int64_t lost;         /* records lost while recording */
	int64_t wall_start, mono_start; /* meta: with hostname, the recording's identity */
	int wal;              /* its header says WAL mode: read a private copy */
	dev_t dev;            /* the file given: the same one twice is refused */
	ino_t ino;
	int run;              /* which run it belongs to (ntp_session_open_runs), 0.. */
	int run_pos;          /* its place in the run: 0 the host, 1 the target */
};

/* The progress line on stderr while a session works (lib/progress.c). */
struct ntp_progress {
	const char *what;   /* the work under way ("joining the recordings"); NULL: none */
	double after;       /* seconds of work before the line appears */
	double start;       /* when the outermost work began, CLOCK_MONOTONIC s */
	double last;        /* seconds into the work at the last redraw */
	int width;          /* characters of the line on screen; 0: none */
	unsigned spin;      /* the spinner's position */
};

/* An authorizer, as sqlite3_set_authorizer takes it. */
typedef int (*ntp_authorizer)(void *arg, int action, const char *a, const char *b,
			      const char *c, const char *d);

/* An open session: an in-memory main database with the recordings attached
 * read-only, and the TEMP views of sql/prelude.sql, join.sql, report.sql, stats.sql,
 * shell.sql. */
struct ntp_session {
	sqlite3 *db;                          /* main: :memory: */
	int ndbs;                             /* files attached and merged files' recordings */
	struct ntp_dbinfo dbs[NTP_MAX_RECORDINGS]; /* hosts, then targets and merged files */
	int nhosts, ntargets;                 /* by role */
	int nruns;                            /* runs: host and target pairs, compared */
	char *run_label[NTP_MAX_DBS];         /* each run's label (ntp_run.run) */
	int native;                           /* native aggregates in use (native.sql) */
	int joined;                           /* ntp_joined cached in a TEMP table */
	int flags;                            /* NTP_OPEN_* */
	int host_base;                        /* hosts named before this session (merge) */
	int nmerged;                          /* merged files attached */
	int prefix_merged;                    /* their recordings' names carry the file's */
	char *tmp_merged;                     /* a merged file of our own, removed at close */
	struct ntp_progress progress;         /* NTP_OPEN_PROGRESS */
	char *cache_file;                     /* the cache file of the prepared run read or
					       * kept (lib/cache.c); NULL: none */
	ntp_authorizer auth;                  /* the authorizer on db (ntp_session_authorizer) */
	void *auth_arg;                       /* its argument */
};

/* Flags for ntp_session_open. */
#define NTP_OPEN_PORTABLE 1 /* no native functions: the plain-sqlite3 SQL */
#define NTP_OPEN_NO_CHECK 2 /* skip SQLite's integrity check of each file */
#define NTP_OPEN_PROGRESS 4 /* a progress line on stderr, if a terminal, during long work */
#define NTP_OPEN_MERGING 8  /* ntp_merge's batches: no warning of recordings apart (an error) */
#define NTP_OPEN_NO_CACHE 16 /* neither read nor keep a prepared run (lib/cache.c) */

/*
 * Open PATHS read-only (more than NTP_MAX_DBS: merged first into a
 * temporary file, removed at close or on SIGINT/SIGTERM; lib/merge.c), check each is an ntprof database of a known schema
 * version, attach them by role, check they go together (roles, -s), create
 * the TEMP views. On error returns -1 with a one-line message naming the
 * file and the problem in err; the session is then closed.
 */
int ntp_session_open(struct ntp_session *s, int n, char *const *paths, int flags,
		     char *err, size_t errlen);

/*
 * The same for runs compared side by side: paths[i] belongs to run run[i]
 * (0..nruns-1, each run a host and at most one target, the host first),
 * labelled labels[run]. Hosts are paired only with the target of their own
 * run (ntp_run, the join's arms), and -s must agree only within a run.
 */
int ntp_session_open_runs(struct ntp_session *s, int n, char *const *paths, const int *run,
			  char *const *labels, int nruns, int flags, char *err, size_t errlen);

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

/* Cache the join and the views the SQL's plan names in TEMP tables (once);
 * reports call this first. */
int ntp_session_prepare(struct ntp_session *s, char *err, size_t errlen);

/* Compute VIEW once into the TEMP table _VIEW_cache, by its builder
 * (_ntp_cache_build) if it has one, and redefine the view as a read of it:
 * for views no report needs, cached only when asked for (after
 * ntp_session_prepare). Returns 0, or -1 with err set. */
int ntp_session_cache(struct ntp_session *s, const char *view, char *err, size_t errlen);

/* 1 when SQL names a view that the session should be prepared for first
 * (sql/join.sql, _ntp_view_plan), and it is not yet. */
int ntp_session_needs_prepare(struct ntp_session *s, const char *sql);

void ntp_session_close(struct ntp_session *s);

/* The path given for the recording attached as SCHEMA ("?" if none). */
const char *ntp_session_path(const struct ntp_session *s, const char *schema);

/* Set the authorizer on the session's database (sqlite3_set_authorizer)
 * for the SQL a user types: the library lifts it only for its own
 * statements (the cache of prepared runs attaches its file, lib/cache.c). */
void ntp_session_authorizer(struct ntp_session *s, ntp_authorizer fn, void *arg);

/*
 * Write OUT (which must not exist), one SQLite file holding the prelude's
 * views over PATHS materialized as tables, with the recordings' identity
 * (docs/schema.md, "Merged files"): the recordings of one run, any number
 * of hosts and their targets, read NTP_MAX_DBS at a time. The inputs are
 * read only. Returns 0, or -1 with err set and OUT removed.
 */
int ntp_merge(const char *out, int n, char *const *paths, int flags, char *err,
	      size_t errlen);

/* The same session over at most NTP_MAX_DBS PATHS, attached as they are
 * and never merged (lib/open.c alone), whose hosts are named after
 * HOST_BASE hosts before them (host5, ...): ntp_merge's batches, and the
 * collector's summary, which does not link the merge. */
int ntp_session_open_batch(struct ntp_session *s, int n, char *const *paths, int host_base,
			   int flags, char *err, size_t errlen);

/* The role of the file PATH from its header and schema alone: "host",
 * "target" or "merged" into ROLE (8 bytes); its identity into *DEV, *INO. */
int ntp_file_role(const char *path, char *role, dev_t *dev, ino_t *ino, char *err,
		  size_t errlen);

/* The prelude's views (sql/prelude.sql), in order: calls FN with each
 * view's name and its OVER (all, host, target, pair). */
int ntp_prelude_each(int (*fn)(void *arg, const char *name, const char *over), void *arg);

/*
 * With NTP_OPEN_PROGRESS and stderr a terminal: from now until the matching
 * ntp_progress_end, once the work has taken NTPROF_PROGRESS_AFTER seconds
 * (default 1), stderr shows "ntprof: WHAT... 12 s", redrawn at most four
 * times a second and erased at the end. Calls nest: an inner one names its
 * part of the work and returns the outer one's WHAT, which its end restores
 * (NULL from the outermost, or when the line is off).
 */
const char *ntp_progress_begin(struct ntp_session *s, const char *what);
void ntp_progress_end(struct ntp_session *s, const char *prev);

/* Erase the progress line (if shown) before writing something else to
 * stderr; it is redrawn at the next step of the work. */
void ntp_progress_clear(struct ntp_session *s);

/* "ntprof: " and the message on stderr, over the progress line if one is
 * shown (a warning says "warning: " itself). */
__attribute__((format(printf, 2, 3)))
void ntp_say(struct ntp_session *s, const char *fmt, ...);

/* Seconds from the environment variable NAME (a number >= 0), else DEF. */
double ntp_env_seconds(const char *name, double def);

/*
 * The SQL that sets up what ntp_session_open sets up, for plain sqlite3:
 * ATTACH statements, the vocabulary, the prelude for these databases,
 * join.sql, report.sql, stats.sql and shell.sql. Returns a sqlite3_malloc'ed string
 * (sqlite3_free it) or NULL.
 */
char *ntp_session_sql(const struct ntp_session *s);

/* Output modes of query results (.mode). */
enum ntp_mode {
	NTP_MODE_TABLE = 0, /* aligned columns */
	NTP_MODE_CSV,       /* RFC 4180 */
	NTP_MODE_JSON,      /* one array of objects per statement */
	NTP_MODE_LINE,      /* column = value, a blank line between rows */
	NTP_MODE_JSONL,     /* JSON lines: one object per row, one row a line */
};

struct ntp_out {
	FILE *f;            /* where results go (stdout, .output, .once) */
	enum ntp_mode mode; /* .mode */
	int headers;        /* .headers on|off (table and csv) */
	int empty_header;   /* csv: the header also when there is no row */
	uint64_t rows;      /* rows printed, added up over the calls */
};

/* Run every statement in SQL, printing each result set in o's mode.
 * Returns 0, or -1 with the SQLite error in err. */
int ntp_out_query(struct ntp_out *o, sqlite3 *db, const char *sql, char *err, size_t errlen);

/* The current row of ST in a JSON document: one member per column, named
 * as the column, valued as json mode prints it; into the object W has open
 * (columns), or as an object of its own (row). Return 0, or -1 when out of
 * memory. */
int ntp_json_columns(struct ntp_json *w, sqlite3_stmt *st);
int ntp_json_row(struct ntp_json *w, sqlite3_stmt *st);

/* Write S to F with its control characters (but newline and tab) as '?':
 * for text from a recording, which may carry terminal escapes. */
void ntp_put_text(FILE *f, const char *s);

/* S, in place, with every control character as '?' (one line). */
char *ntp_clean_text(char *s);

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

/* Register ntprof's native SQL functions (lib/native.c) on DB. */
int ntp_native_register(sqlite3 *db);

#endif
