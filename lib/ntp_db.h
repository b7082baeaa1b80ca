/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Writing a per-machine ntprof database: create it with the schema, then
 * add devices, commands and intervals, then close it with the stop time.
 * Used by ntprof-collect and by the test data generator, so both write
 * exactly the same rows from the same ABI records.
 */
#ifndef NTP_DB_H
#define NTP_DB_H

#include <sqlite3.h>
#include <stdint.h>
#include "ntprof_abi.h"

/* What goes into the meta table; stop times are written by ntp_db_close. */
struct ntp_meta {
	int role;                 /* enum ntp_role */
	const char *driver;       /* "kernel" or "spdk" */
	const char *transport;    /* "tcp" or "rdma" */
	const char *hostname;
	const char *kernel;
	uint32_t sample_rate;     /* >= 1 */
	int64_t wall_start;       /* CLOCK_REALTIME ns */
	int64_t mono_start;       /* CLOCK_MONOTONIC ns */
	const char *command_line;
};

struct ntp_db;
struct ntp_live;

/* Flags for ntp_db_create. */
#define NTP_DB_FORCE 1 /* replace an existing regular file */

/*
 * Create PATH (never through a symlink; an existing file only with
 * NTP_DB_FORCE) and write the schema and meta. On error returns NULL and
 * puts a message in err (ERRLEN bytes).
 */
struct ntp_db *ntp_db_create(const char *path, const struct ntp_meta *meta, int flags,
			     char *err, size_t errlen);

/* Record a hook that was attached: name, what it attaches to, kind, points. */
int ntp_db_add_hook(struct ntp_db *db, const char *name, const char *attach_to,
		    const char *kind, const char *points);

/* Learn what a device key names. Returns 0 or -1. */
int ntp_db_add_device(struct ntp_db *db, const struct ntp_device_record *d);

/*
 * Add a sampled command. The points it lacks that its configuration records
 * (vocab.sql, point_need) are counted as gaps of the current interval, by
 * cause: the record's rx_cause for its arrival point, else not recorded.
 * Returns 0, or -1 (unknown device key, SQL error).
 */
int ntp_db_add_cmd(struct ntp_db *db, const struct ntp_cmd_record *r);

/* NTP_DB_BATCH records at once, faster; all or nothing: -1 stores none,
 * and the caller stores them with ntp_db_add_cmd to learn which fail. */
#define NTP_DB_BATCH 64
int ntp_db_add_cmds(struct ntp_db *db, const struct ntp_cmd_record *r, int n);

/* Count N records lost for CAUSE (enum ntp_cause) in the current interval. */
int ntp_db_add_lost(struct ntp_db *db, int cause, uint64_t n);

/*
 * Close an interval [start, stop) (CLOCK_MONOTONIC ns) and write what was
 * lost and missing in it. Per-group counts come from ntp_db_count_group
 * beforehand; commands added since the previous interval count as sampled
 * automatically. Returns the interval's id, or -1. With ntp_db_live on,
 * the interval's live lines are made too (ntp_db_live_of).
 */
int64_t ntp_db_end_interval(struct ntp_db *db, int64_t start, int64_t stop);

/*
 * Keep each interval's live lines in memory as commands are added
 * (ntp_live.h; FLAGS NTP_LIVE_*), from the first interval on: call it
 * before adding commands. Returns 0, or -1 with a message in ERR.
 */
int ntp_db_live(struct ntp_db *db, int flags, char *err, size_t errlen);

/* What ntp_db_live keeps, for the interval ended last; NULL when off. */
const struct ntp_live *ntp_db_live_of(const struct ntp_db *db);

/* Add TOTAL commands seen for (dev, opcode, nlb) in the current interval. */
int ntp_db_count_group(struct ntp_db *db, uint64_t dev, uint8_t opcode, uint32_t nlb,
		       uint64_t total);

/* Commit what is pending (the writer batches inserts in a transaction).
 * On failure the transaction is rolled back: its commands are not stored. */
int ntp_db_commit(struct ntp_db *db);

/* The first write error (disk full, I/O error), or NULL. After one, every
 * write fails: the file keeps what was committed before it. */
const char *ntp_db_failed(const struct ntp_db *db);

/* Commands committed to the file, and added since the last commit. */
uint64_t ntp_db_stored(const struct ntp_db *db);
uint64_t ntp_db_unstored(const struct ntp_db *db);

/* ntp_db_close: closed, but the WAL could not be folded back into the file
 * (a full disk): the -wal beside it holds part of the recording. */
#define NTP_DB_WAL_LEFT 1

/* Write stop times (0, 0: leave them NULL, as after a crash), commit, fold
 * the WAL back, close. Returns 0, NTP_DB_WAL_LEFT or -1. */
int ntp_db_close(struct ntp_db *db, int64_t wall_stop, int64_t mono_stop);

/* The connection, for read-only queries on what was written (the tests run
 * sql/live.sql on it). */
sqlite3 *ntp_db_handle(struct ntp_db *db);

/* The last SQLite error message of DB. */
const char *ntp_db_errmsg(struct ntp_db *db);

#endif
