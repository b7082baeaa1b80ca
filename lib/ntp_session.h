/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A session, what every reader of recordings works in: the recordings
 * opened safely and read-only into one in-memory database with the TEMP
 * views over them (lib/open.c; more than SQLite attaches, lib/merge.c),
 * prepared once (lib/prepare.c), and closed. What is done with it has
 * headers of its own: ntp_report.h, ntp_compare.h, ntp_plot.h,
 * ntp_export.h; its output, ntp_out.h.
 */
#ifndef NTP_SESSION_H
#define NTP_SESSION_H

#include <sqlite3.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "ntp_progress.h"

/* SQLite attaches at most 10 databases (SQLITE_MAX_ATTACHED). */
#define NTP_MAX_DBS 10

/* Recordings one session reads: more than NTP_MAX_DBS come through a merged
 * file (ntp_merge), which holds them all in one attachment. */
#define NTP_MAX_RECORDINGS 256

struct ntp_check_job;

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
	struct ntp_check_job *check; /* its integrity check, running (NTP_OPEN_CHECK_LATE) */
	char *check_id;       /* the identity it is remembered by once it passes (lib/cache.c) */
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
	int joined;                           /* the run prepared (ntp_session_prepare) */
	int prepare_base;                     /* prepare only what ntprof's questions read,
					       * not the views of cache_when 3 and 4
					       * (sql/join.sql), which only plain sqlite3
					       * reads: 1 from the open on, 0 once
					       * ntp_session_prepare_more wants them */
	int more_missing;                     /* prepared (or read) without those */
	int flags;                            /* NTP_OPEN_* */
	int host_base;                        /* hosts named before this session (merge) */
	int nmerged;                          /* merged files attached */
	int prefix_merged;                    /* their recordings' names carry the file's */
	char *tmp_merged;                     /* a merged file of our own, removed at close */
	struct ntp_progress progress;         /* NTP_OPEN_PROGRESS */
	char *cache_file;                     /* the cache file of the prepared run read or
					       * kept (lib/cache.c); NULL: none */
	struct stat cache_st;                 /* its identity when it was checked */
	char *runs_setup;                     /* several runs read from their own files
					       * (ntp_cache_load_runs): plain sqlite3's
					       * ATTACH of them and views over them */
	int check_failed;                     /* a file failed its integrity check */
	char *check_err;                      /* why (NULL: no memory to say) */
	int warn_late;                        /* warn of recordings apart once checked */
	ntp_authorizer auth;                  /* the authorizer on db (ntp_session_authorizer) */
	void *auth_arg;                       /* its argument */
};

/* Flags for ntp_session_open. */
#define NTP_OPEN_PORTABLE 1 /* no native functions: the plain-sqlite3 SQL */
#define NTP_OPEN_NO_CHECK 2 /* skip SQLite's integrity check of each file */
#define NTP_OPEN_PROGRESS 4 /* a progress line on stderr, if a terminal, during long work */
#define NTP_OPEN_MERGING 8  /* ntp_merge's batches: no warning of recordings apart (an error) */
#define NTP_OPEN_NO_CACHE 16 /* neither read nor keep a prepared run (lib/cache.c) */
/* Each file's integrity check in a thread of its own, on while the session
 * is opened and prepared, its verdict taken before ntp_session_prepare
 * returns or keeps a prepared run (ntp_session_checked): for a caller that
 * prepares before it reads or says anything of the files. */
#define NTP_OPEN_CHECK_LATE 32
/* A session opened by another for some of its recordings (a run of a
 * comparison prepared alone, lib/prepare.c): no warning of recordings
 * apart, which the other session says. */
#define NTP_OPEN_QUIET 64

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

/* Cache the join and the views the SQL's plan names in TEMP tables (once);
 * reports call this first. */
int ntp_session_prepare(struct ntp_session *s, char *err, size_t errlen);

/* The verdicts of the integrity checks NTP_OPEN_CHECK_LATE left running,
 * waited for (the first failure, in the files' order, in ERR; the same
 * again at every later call), then the warning of recordings apart.
 * ntp_session_prepare calls it. 0 when no file failed. */
int ntp_session_checked(struct ntp_session *s, char *err, size_t errlen);

/* Compute VIEW once into the TEMP table _VIEW_cache, by its builder
 * (_ntp_cache_build) if it has one, and redefine the view as a read of it:
 * for views no report needs, cached only when asked for (after
 * ntp_session_prepare). Returns 0, or -1 with err set. */
int ntp_session_cache(struct ntp_session *s, const char *view, char *err, size_t errlen);

/* As ntp_session_cache, for the rows of VIEW where WHERE holds, into
 * _VIEW_part: WHERE is a condition on the view's columns and constants
 * only, which the planner pushes into each arm of a compound view, so the
 * arms it rules out are not computed. The view is redefined as those rows
 * and, computed when asked for, the others, from the view as it was
 * (_VIEW_rest). Returns 0, or -1 with err set. */
int ntp_session_cache_where(struct ntp_session *s, const char *view, const char *where,
			    char *err, size_t errlen);

/* 1 when SQL names a view that the session should be prepared for first
 * (sql/join.sql, _ntp_view_plan), and it is not yet. */
int ntp_session_needs_prepare(struct ntp_session *s, const char *sql);

/* ntp_session_prepare for a session that left out the views of cache_when
 * 3 and 4 (prepare_base: the per-command end to end) and now wants them,
 * for plain sqlite3's set-up (ntprof-shell --sql, .sql): added to what it
 * prepared or read (and kept), or prepared with the rest; wanted from
 * then on. */
int ntp_session_prepare_more(struct ntp_session *s, char *err, size_t errlen);

void ntp_session_close(struct ntp_session *s);

/* The path given for the recording attached as SCHEMA ("?" if none). */
const char *ntp_session_path(const struct ntp_session *s, const char *schema);

/* Set the authorizer on the session's database (sqlite3_set_authorizer)
 * for the SQL a user types: the library lifts it only for its own
 * statements (the cache of prepared runs attaches its file, lib/cache.c). */
void ntp_session_authorizer(struct ntp_session *s, ntp_authorizer fn, void *arg);

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
 * The SQL that sets up what ntp_session_open sets up, for plain sqlite3:
 * ATTACH statements, the vocabulary, the prelude for these databases,
 * join.sql, report.sql, stats.sql and shell.sql. Returns a sqlite3_malloc'ed string
 * (sqlite3_free it) or NULL.
 */
char *ntp_session_sql(const struct ntp_session *s);

#endif
