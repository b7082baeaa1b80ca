// SPDX-License-Identifier: BSD-2-Clause
/*
 * The per-machine database writer. Records arrive as ABI structs; rows are
 * written in the compact encoding docs/schema.md describes: t (the rowid) is
 * the first recorded point relative to meta.mono_start, each point column is
 * the delta from the previous recorded point.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "ntp_db.h"
#include "ntp_live.h"
#include "ntp_schema.h"
#include "ntp_version.h"
#include "ntp_sql.h"


struct dev_entry {
	uint64_t key;      /* ntp_cmd_record.dev */
	int64_t id;        /* device.id */
	uint32_t lba_shift;
};

struct grp_entry {
	int64_t device;    /* device.id */
	uint8_t admin;     /* queue 0 */
	uint8_t opcode;
	uint8_t fctype;    /* fabrics command type (opcode 0x7f), else 0 */
	uint32_t nlb;
	int64_t id;        /* grp.id */
	uint64_t sampled;  /* commands added in the current interval */
	uint64_t total;    /* commands counted in the current interval */
	int counted;       /* total is known for the current interval */
};

struct ntp_db {
	sqlite3 *sql;
	int role;
	int npoints;             /* points of the role */
	int64_t mono_start;
	uint32_t sample_rate;    /* meta.sample_rate */
	char point_name[NTP_MAX_POINTS][16]; /* point.name by enum value */
	uint32_t need_always;    /* points every command should have (bit = enum value) */
	uint32_t need_r2t;       /* points of a command that has any of them */
	uint64_t gaps[NTP_MAX_POINTS][NTP_CAUSE_MAX]; /* this interval's */
	uint64_t lost[NTP_CAUSE_MAX];                 /* this interval's */
	sqlite3_stmt *ins_cmd;   /* INSERT INTO cmd */
	sqlite3_stmt *ins_cmds;  /* the same for NTP_DB_BATCH rows at once */
	sqlite3_stmt *ins_grp;   /* INSERT INTO grp */
	sqlite3_stmt *ins_dev;   /* INSERT INTO device */
	sqlite3_stmt *ins_igrp;  /* INSERT INTO interval_grp */
	sqlite3_stmt *ins_lost;  /* INSERT INTO lost */
	sqlite3_stmt *ins_gap;   /* INSERT INTO gap */
	sqlite3_stmt *ins_ival;  /* INSERT INTO interval */
	sqlite3_stmt *begin;     /* BEGIN and COMMIT, prepared once: a writer that */
	sqlite3_stmt *commit;    /* wakes once a second runs cold, and parsing costs */
	struct dev_entry *devs;
	size_t ndevs;
	struct grp_entry *grps;
	size_t ngrps;
	int in_txn;              /* a write transaction is open */
	uint64_t uncommitted;    /* commands added in the open transaction */
	uint64_t stored;         /* commands committed to the file */
	char failed[256];        /* the first write error; then nothing more is written */
	struct ntp_live *live;   /* the live lines, kept in memory (ntp_db_live) */
};

sqlite3 *ntp_db_handle(struct ntp_db *db)
{
	return db->sql;
}

const char *ntp_db_errmsg(struct ntp_db *db)
{
	return db && db->sql ? sqlite3_errmsg(db->sql) : "out of memory";
}

/*
 * SQLite's result RC: an error other than a constraint (a tie of two
 * commands' times, retried) means the file takes no more (disk full, I/O
 * error, out of memory). The first is kept, and from then on nothing is
 * written: the recording ends with what was committed.
 */
static int note(struct ntp_db *db, int rc)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW &&
	    (rc & 0xff) != SQLITE_CONSTRAINT && !db->failed[0])
		snprintf(db->failed, sizeof(db->failed), "%s", sqlite3_errmsg(db->sql));
	return rc;
}

static int step(struct ntp_db *db, sqlite3_stmt *st)
{
	return note(db, sqlite3_step(st));
}

static int exec(struct ntp_db *db, const char *sql)
{
	return note(db, sqlite3_exec(db->sql, sql, NULL, NULL, NULL)) == SQLITE_OK ? 0 : -1;
}

/* Run ST, a prepared statement that returns no row; 0 or -1. */
static int run(struct ntp_db *db, sqlite3_stmt *st)
{
	int rc = step(db, st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int begin(struct ntp_db *db)
{
	if (db->failed[0])
		return -1;
	if (db->in_txn)
		return 0;
	if (run(db, db->begin))
		return -1;
	db->in_txn = 1;
	return 0;
}

int ntp_db_commit(struct ntp_db *db)
{
	if (!db->in_txn)
		return 0;
	if (db->failed[0] || run(db, db->commit)) {
		/* a failed COMMIT may leave the transaction open: end it */
		if (!sqlite3_get_autocommit(db->sql))
			sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
		db->in_txn = 0;
		return -1;
	}
	db->in_txn = 0;
	db->stored += db->uncommitted;
	db->uncommitted = 0;
	return 0;
}

const char *ntp_db_failed(const struct ntp_db *db)
{
	return db->failed[0] ? db->failed : NULL;
}

uint64_t ntp_db_stored(const struct ntp_db *db)
{
	return db->stored;
}

uint64_t ntp_db_unstored(const struct ntp_db *db)
{
	return db->uncommitted;
}

/* Create the file ourselves: O_EXCL|O_NOFOLLOW so root never writes through
 * a planted symlink, and never clobbers a file unless asked. */
static int create_file(const char *path, int flags, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if (flags & NTP_DB_FORCE) {
		if (lstat(path, &st) == 0) {
			if (!S_ISREG(st.st_mode)) {
				snprintf(err, errlen, "%s: not a regular file, not replacing it", path);
				return -1;
			}
			if (unlink(path)) {
				snprintf(err, errlen, "%s: cannot replace: %s", path, strerror(errno));
				return -1;
			}
		}
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (errno == EEXIST)
			snprintf(err, errlen, "%s: exists (use -f to replace it)", path);
		else
			snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static int prepare(struct ntp_db *db, sqlite3_stmt **st, const char *sql)
{
	return sqlite3_prepare_v3(db->sql, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) ==
		       SQLITE_OK ? 0 : -1;
}

static int write_schema(struct ntp_db *db, const struct ntp_meta *m)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (exec(db, "PRAGMA journal_mode=WAL") || exec(db, "BEGIN") ||
	    note(db, ntp_schema_apply(db->sql, m->role == NTP_ROLE_HOST)) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db->sql,
			       "INSERT INTO meta (schema_version, role, driver, transport, "
			       "hostname, kernel, sample_rate, wall_start, mono_start, "
			       "command_line, ntprof_version) "
			       "VALUES ((SELECT user_version FROM pragma_user_version), "
			       "?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, m->role == NTP_ROLE_HOST ? "host" : "target", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, m->driver, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, m->transport, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, m->hostname, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, m->kernel, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, m->sample_rate);
	sqlite3_bind_int64(st, 7, m->wall_start);
	sqlite3_bind_int64(st, 8, m->mono_start);
	sqlite3_bind_text(st, 9, m->command_line ? m->command_line : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 10, NTP_VERSION, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return -1;
	return exec(db, "COMMIT");
}

/* "INSERT INTO cmd VALUES (?,...),..." for ROWS rows of the role's columns. */
static char *cmd_insert_sql(int role, int rows)
{
	const char *row = role == NTP_ROLE_HOST ? "(?,?,?,?,?, ?,?,?,?,?,?,?,?,?,?)" :
						 "(?,?,?,?,?, ?,?,?,?,?,?,?,?,?)";
	size_t len = strlen(row) + 1, n = 0;
	char *sql = malloc(32 + (size_t)rows * len);

	if (!sql)
		return NULL;
	n += (size_t)sprintf(sql, "INSERT INTO cmd VALUES ");
	for (int i = 0; i < rows; i++)
		n += (size_t)sprintf(sql + n, "%s%s", i ? "," : "", row);
	return sql;
}

static int prepare_cmd(struct ntp_db *db, sqlite3_stmt **st, int rows)
{
	char *sql = cmd_insert_sql(db->role, rows);
	int rc = sql ? prepare(db, st, sql) : -1;

	free(sql);
	return rc;
}

static int prepare_all(struct ntp_db *db)
{
	return prepare_cmd(db, &db->ins_cmd, 1) || prepare_cmd(db, &db->ins_cmds, NTP_DB_BATCH) ||
	       prepare(db, &db->ins_grp,
		       "INSERT INTO grp (device, admin, opcode, fctype, nlb) VALUES (?, ?, ?, ?, ?)") ||
	       prepare(db, &db->ins_dev,
		       "INSERT INTO device (name, nqn, cntlid, nsid, lba_shift) "
		       "VALUES (?, ?, ?, ?, ?)") ||
	       prepare(db, &db->ins_igrp,
		       "INSERT INTO interval_grp (interval, grp, total, sampled) "
		       "VALUES (?, ?, ?, ?)") ||
	       prepare(db, &db->ins_lost, "INSERT INTO lost (interval, cause, n) VALUES (?, ?, ?)") ||
	       prepare(db, &db->ins_gap,
		       "INSERT INTO gap (interval, point, cause, n) VALUES (?, ?, ?, ?)") ||
	       prepare(db, &db->ins_ival, "INSERT INTO interval (start, stop) VALUES (?, ?)") ||
	       prepare(db, &db->begin, "BEGIN") || prepare(db, &db->commit, "COMMIT") ? -1 : 0;
}

/* The role's points and which of them the configuration records, from the
 * vocabulary just written (point, point_need): the one home of that fact. */
static int load_needs(struct ntp_db *db, const struct ntp_meta *m)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->sql, "SELECT p.ord, p.name, n.need FROM point AS p "
				       "LEFT JOIN point_need AS n ON n.point = p.name AND n.driver = ?1 "
				       "AND n.transport = ?2 WHERE p.role = ?3", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, m->driver, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, m->transport, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, m->role == NTP_ROLE_HOST ? "host" : "target", -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int ord = sqlite3_column_int(st, 0);
		const char *need = (const char *)sqlite3_column_text(st, 2);

		if (ord < 0 || ord >= NTP_MAX_POINTS)
			continue;
		snprintf(db->point_name[ord], sizeof(db->point_name[ord]), "%s",
			 (const char *)sqlite3_column_text(st, 1));
		if (need && !strcmp(need, "always"))
			db->need_always |= 1u << ord;
		else if (need && !strcmp(need, "r2t"))
			db->need_r2t |= 1u << ord;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* After a failed start: remove PATH, which create_file made, and what
 * SQLite made beside it, so nothing is left behind (a file system out of
 * inodes takes the file and its -wal, then refuses the -shm). */
static void remove_files(const char *path)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char name[PATH_MAX + 16];

	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", path, suffix[i]);
		unlink(name);
	}
}

/* Why a file beside PATH could not be made, when its file system says so
 * (SQLite's "unable to open database file" does not): "" otherwise. */
static const char *full_fs(const char *path)
{
	char dir[PATH_MAX];
	struct statvfs fs;

	snprintf(dir, sizeof(dir), "%s", path);
	if (strrchr(dir, '/'))
		*(strrchr(dir, '/') == dir ? dir + 1 : strrchr(dir, '/')) = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if (statvfs(dir, &fs))
		return "";
	if (fs.f_files && !fs.f_favail)
		return " (its file system has no free inodes)";
	return fs.f_bavail ? "" : " (its file system is full)";
}

struct ntp_db *ntp_db_create(const char *path, const struct ntp_meta *meta, int flags,
			     char *err, size_t errlen)
{
	struct ntp_db *db;

	if (create_file(path, flags, err, errlen))
		return NULL;
	db = calloc(1, sizeof(*db));
	if (!db) {
		snprintf(err, errlen, "%s: out of memory", path);
		remove_files(path);
		return NULL;
	}
	db->role = meta->role;
	db->npoints = meta->role == NTP_ROLE_HOST ? NTP_H_NPOINTS : NTP_T_NPOINTS;
	db->mono_start = meta->mono_start;
	db->sample_rate = meta->sample_rate;
	if (sqlite3_open_v2(path, &db->sql,
			    /* one thread per writer: no connection mutex (it cost
			     * 11 % of the collector's time at 500k records/s) */
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK ||
	    write_schema(db, meta) || prepare_all(db) || load_needs(db, meta)) {
		snprintf(err, errlen, "%s: cannot write the database: %s%s", path,
			 ntp_db_errmsg(db), full_fs(path));
		ntp_db_close(db, 0, 0);
		remove_files(path);
		return NULL;
	}
	/* Lose at most the last commit on a crash; WAL keeps the file valid. */
	exec(db, "PRAGMA synchronous=NORMAL");
	return db;
}

int ntp_db_add_hook(struct ntp_db *db, const char *name, const char *attach_to,
		    const char *kind, const char *points)
{
	char *sql = sqlite3_mprintf("INSERT OR REPLACE INTO hook VALUES (%Q, %Q, %Q, %Q)",
				    name, attach_to, kind, points);
	int rc;

	if (!sql)
		return -1;
	rc = begin(db) ? -1 : exec(db, sql);
	sqlite3_free(sql);
	return rc;
}

static struct dev_entry *find_dev(struct ntp_db *db, uint64_t key)
{
	for (size_t i = 0; i < db->ndevs; i++)
		if (db->devs[i].key == key)
			return &db->devs[i];
	return NULL;
}

/* A logical block is at least 512 bytes: a smaller shift (0, before the
 * namespace was identified) means the size is not known yet. */
#define NTP_MIN_LBA_SHIFT 9

/* Device row ID learns its block size from a later record, if it had none. */
static int learn_lba_shift(struct ntp_db *db, int64_t id, uint32_t lba_shift)
{
	char *sql;
	int rc;

	if (lba_shift < NTP_MIN_LBA_SHIFT)
		return 0;
	sql = sqlite3_mprintf("UPDATE device SET lba_shift = %u WHERE id = %lld AND lba_shift < %d",
			      lba_shift, (long long)id, NTP_MIN_LBA_SHIFT);
	rc = sql ? exec(db, sql) : -1;
	sqlite3_free(sql);
	return rc;
}

/* Find or insert the device row for D; returns its id or -1. A device named
 * again with its block size known replaces an unknown one. */
static int64_t device_row(struct ntp_db *db, const struct ntp_device_record *d)
{
	char name[NTP_DEV_NAME_LEN + 1], nqn[NTP_NQN_LEN + 1];
	sqlite3_stmt *st = NULL;
	int64_t id = -1;

	memcpy(name, d->name, NTP_DEV_NAME_LEN);
	name[NTP_DEV_NAME_LEN] = 0;
	memcpy(nqn, d->nqn, NTP_NQN_LEN);
	nqn[NTP_NQN_LEN] = 0;
	if (sqlite3_prepare_v2(db->sql, "SELECT id FROM device WHERE nqn = ? AND cntlid = ? "
				       "AND nsid = ? AND name = ?", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, nqn, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, d->cntlid);
	sqlite3_bind_int64(st, 3, d->nsid);
	sqlite3_bind_text(st, 4, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (id >= 0)
		return learn_lba_shift(db, id, d->lba_shift) ? -1 : id;

	st = db->ins_dev;
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, nqn, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 3, d->cntlid);
	sqlite3_bind_int64(st, 4, d->nsid);
	sqlite3_bind_int(st, 5, (int)d->lba_shift);
	if (step(db, st) != SQLITE_DONE)
		return -1;
	return sqlite3_last_insert_rowid(db->sql);
}

int ntp_db_add_device(struct ntp_db *db, const struct ntp_device_record *d)
{
	struct dev_entry *e = find_dev(db, d->dev), *n;
	int64_t id;

	if (begin(db))
		return -1;
	id = device_row(db, d);
	if (id < 0)
		return -1;
	if (!e) {
		n = realloc(db->devs, (db->ndevs + 1) * sizeof(*n));
		if (!n)
			return -1;
		db->devs = n;
		e = &db->devs[db->ndevs++];
	}
	e->key = d->dev;
	e->id = id;
	e->lba_shift = d->lba_shift;
	return 0;
}

/* What makes a group: the device, the queue kind, the operation and size. */
struct grp_key {
	int64_t device;
	uint8_t admin, opcode, fctype;
	uint32_t nlb;
};

/* The group key of command R on device DEVICE. A fabrics command's type is
 * in the low byte of the SQE's NSID dword, which the record carries. */
static struct grp_key cmd_key(int64_t device, const struct ntp_cmd_record *r)
{
	return (struct grp_key){ device, r->qid == 0, r->opcode,
				 r->opcode == NTP_OPC_FABRICS ? (uint8_t)r->nsid : 0, r->nlb };
}

static struct grp_entry *group(struct ntp_db *db, struct grp_key k)
{
	struct grp_entry *g;

	for (size_t i = 0; i < db->ngrps; i++) {
		g = &db->grps[i];
		if (g->device == k.device && g->admin == k.admin && g->opcode == k.opcode &&
		    g->fctype == k.fctype && g->nlb == k.nlb)
			return g;
	}
	sqlite3_reset(db->ins_grp);
	sqlite3_bind_int64(db->ins_grp, 1, k.device);
	sqlite3_bind_int(db->ins_grp, 2, k.admin);
	sqlite3_bind_int(db->ins_grp, 3, k.opcode);
	sqlite3_bind_int(db->ins_grp, 4, k.fctype);
	sqlite3_bind_int64(db->ins_grp, 5, k.nlb);
	if (step(db, db->ins_grp) != SQLITE_DONE)
		return NULL;
	g = realloc(db->grps, (db->ngrps + 1) * sizeof(*g));
	if (!g)
		return NULL;
	db->grps = g;
	g = &db->grps[db->ngrps++];
	memset(g, 0, sizeof(*g));
	g->device = k.device;
	g->admin = k.admin;
	g->opcode = k.opcode;
	g->fctype = k.fctype;
	g->nlb = k.nlb;
	g->id = sqlite3_last_insert_rowid(db->sql);
	return g;
}

/* Bind the points of the row whose first parameter is BASE + 1: first
 * recorded point 0, then deltas, NULL where absent. Returns the first
 * recorded point's absolute time, or 0 if none. */
static uint64_t bind_points(sqlite3_stmt *st, int base, const struct ntp_cmd_record *r,
			    int npoints)
{
	uint64_t first = 0, prev = 0;

	for (int i = 0; i < npoints; i++) {
		uint64_t ts = r->ts[i];

		if (!ts) {
			sqlite3_bind_null(st, base + 6 + i);
			continue;
		}
		if (!first)
			first = prev = ts;
		/* Signed: a point earlier than its predecessor stays visible. */
		sqlite3_bind_int64(st, base + 6 + i, (int64_t)(ts - prev));
		prev = ts;
	}
	return first;
}

/* Bind the row of R, group G, whose first parameter is BASE + 1, with T
 * its time (the rowid). Returns T, or 0 when R has no point. */
static int64_t bind_cmd(struct ntp_db *db, sqlite3_stmt *st, int base,
			const struct ntp_cmd_record *r, const struct grp_entry *g)
{
	uint64_t first = bind_points(st, base, r, db->npoints);

	if (!first)
		return 0;
	sqlite3_bind_int64(st, base + 1, (int64_t)(first - (uint64_t)db->mono_start));
	sqlite3_bind_int64(st, base + 2, g->id);
	sqlite3_bind_int(st, base + 3, r->qid);
	sqlite3_bind_int(st, base + 4, r->cid);
	sqlite3_bind_int64(st, base + 5, (int64_t)r->slba);
	return (int64_t)(first - (uint64_t)db->mono_start);
}

/* Count the points R lacks that its configuration records, with their
 * causes: the arrival point's comes with the record, any other point was
 * not recorded by the driver's hooks. */
static void count_gaps(struct ntp_db *db, const struct ntp_cmd_record *r)
{
	int rx = db->role == NTP_ROLE_HOST ? NTP_H_RX : NTP_T_RX;
	uint32_t have = 0, need;

	for (int i = 0; i < db->npoints; i++)
		if (r->ts[i])
			have |= 1u << i;
	need = db->need_always | (have & db->need_r2t ? db->need_r2t : 0);
	for (int i = 0; i < db->npoints; i++) {
		int cause = NTP_CAUSE_NOT_RECORDED;

		if (!(need & ~have & (1u << i)))
			continue;
		if (i == rx && r->rx_cause > NTP_CAUSE_NOT_RECORDED && r->rx_cause < NTP_CAUSE_MAX)
			cause = r->rx_cause;
		db->gaps[i][cause]++;
	}
}

int ntp_db_add_lost(struct ntp_db *db, int cause, uint64_t n)
{
	if (cause <= NTP_CAUSE_NONE || cause >= NTP_CAUSE_MAX)
		return -1;
	db->lost[cause] += n;
	return 0;
}

/* R's group, or NULL (its device unknown, or no memory). */
static struct grp_entry *cmd_group(struct ntp_db *db, const struct ntp_cmd_record *r)
{
	struct dev_entry *d = find_dev(db, r->dev);

	return d ? group(db, cmd_key(d->id, r)) : NULL;
}

static int is_tie(struct ntp_db *db, int rc)
{
	return rc == SQLITE_CONSTRAINT &&
	       sqlite3_extended_errcode(db->sql) == SQLITE_CONSTRAINT_PRIMARYKEY;
}

int ntp_db_add_cmd(struct ntp_db *db, const struct ntp_cmd_record *r)
{
	sqlite3_stmt *st = db->ins_cmd;
	struct grp_entry *g;
	int64_t t;
	int rc;

	if (begin(db) || !(g = cmd_group(db, r)))
		return -1;
	sqlite3_reset(st);
	t = bind_cmd(db, st, 0, r, g);
	if (!t)
		return -1;
	/* t is the rowid: a tie with another command moves this one 1 ns on;
	 * only a clash of t is retried, never another constraint */
	do {
		sqlite3_bind_int64(st, 1, t++);
		rc = step(db, st);
		sqlite3_reset(st);
	} while (is_tie(db, rc));
	if (rc != SQLITE_DONE)
		return -1;
	g->sampled++;
	db->uncommitted++;
	count_gaps(db, r);
	if (db->live)
		ntp_live_add(db->live, (size_t)(g - db->grps), g->id, t - 1, r);
	return 0;
}

/*
 * A full batch in one statement: one VDBE program and one cursor for 64
 * rows rather than 64 of each, about a third less of the collector's time
 * per record. All or nothing: -1 (nothing stored) when a record's device
 * is unknown or has no point, or two commands tie on their time: the
 * caller then stores them one by one, which says which and why.
 */
int ntp_db_add_cmds(struct ntp_db *db, const struct ntp_cmd_record *r, int n)
{
	sqlite3_stmt *st = db->ins_cmds;
	size_t g[NTP_DB_BATCH]; /* indices: a new group may move db->grps */
	int64_t t[NTP_DB_BATCH];
	int cols = 5 + db->npoints, rc;

	if (n != NTP_DB_BATCH || begin(db))
		return -1;
	sqlite3_reset(st);
	for (int i = 0; i < n; i++) {
		struct grp_entry *e = cmd_group(db, &r[i]);

		if (!e || !(t[i] = bind_cmd(db, st, i * cols, &r[i], e)))
			return -1;
		g[i] = (size_t)(e - db->grps);
	}
	rc = step(db, st);
	sqlite3_reset(st); /* a failed statement's rows are undone (ABORT) */
	if (rc != SQLITE_DONE)
		return -1;
	for (int i = 0; i < n; i++) {
		db->grps[g[i]].sampled++;
		count_gaps(db, &r[i]);
		if (db->live)
			ntp_live_add(db->live, g[i], db->grps[g[i]].id, t[i], &r[i]);
	}
	db->uncommitted += (uint64_t)n;
	return 0;
}

int ntp_db_count_group(struct ntp_db *db, uint64_t dev, uint8_t opcode, uint32_t nlb,
		       uint64_t total)
{
	struct dev_entry *d = find_dev(db, dev);
	struct grp_entry *g;

	if (!d || begin(db))
		return -1;
	g = group(db, (struct grp_key){ d->id, 0, opcode, 0, nlb });
	if (!g)
		return -1;
	g->total += total;
	g->counted = 1;
	return 0;
}

/* The interval's lost records and gaps. */
static int write_losses(struct ntp_db *db, int64_t id)
{
	for (int c = 0; c < NTP_CAUSE_MAX; c++) {
		if (!db->lost[c])
			continue;
		sqlite3_reset(db->ins_lost);
		sqlite3_bind_int64(db->ins_lost, 1, id);
		sqlite3_bind_int(db->ins_lost, 2, c);
		sqlite3_bind_int64(db->ins_lost, 3, (int64_t)db->lost[c]);
		if (step(db, db->ins_lost) != SQLITE_DONE)
			return -1;
	}
	for (int i = 0; i < db->npoints; i++)
		for (int c = 0; c < NTP_CAUSE_MAX; c++) {
			if (!db->gaps[i][c])
				continue;
			sqlite3_reset(db->ins_gap);
			sqlite3_bind_int64(db->ins_gap, 1, id);
			sqlite3_bind_text(db->ins_gap, 2, db->point_name[i], -1, SQLITE_STATIC);
			sqlite3_bind_int(db->ins_gap, 3, c);
			sqlite3_bind_int64(db->ins_gap, 4, (int64_t)db->gaps[i][c]);
			if (step(db, db->ins_gap) != SQLITE_DONE)
				return -1;
		}
	return 0;
}

int64_t ntp_db_end_interval(struct ntp_db *db, int64_t start, int64_t stop)
{
	int64_t id;

	if (begin(db))
		return -1;
	sqlite3_bind_int64(db->ins_ival, 1, start - db->mono_start);
	sqlite3_bind_int64(db->ins_ival, 2, stop - db->mono_start);
	if (run(db, db->ins_ival))
		return -1;
	id = sqlite3_last_insert_rowid(db->sql);
	for (size_t i = 0; i < db->ngrps; i++) {
		struct grp_entry *g = &db->grps[i];
		sqlite3_stmt *st = db->ins_igrp;

		if (!g->sampled && !g->total)
			continue;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, g->id);
		if (g->counted)
			sqlite3_bind_int64(st, 3, (int64_t)g->total);
		else
			sqlite3_bind_null(st, 3);
		sqlite3_bind_int64(st, 4, (int64_t)g->sampled);
		if (step(db, st) != SQLITE_DONE)
			return -1;
		if (db->live)
			ntp_live_count(db->live, i, g->id, g->sampled, g->total, g->counted);
		g->sampled = g->total = 0;
		g->counted = 0;
	}
	if (write_losses(db, id) || ntp_db_commit(db))
		return -1;
	if (db->live)
		ntp_live_end(db->live, db->sql, id, start - db->mono_start, stop - db->mono_start,
			     db->lost, db->gaps);
	memset(db->lost, 0, sizeof(db->lost));
	memset(db->gaps, 0, sizeof(db->gaps));
	return id;
}

int ntp_db_live(struct ntp_db *db, int flags, char *err, size_t errlen)
{
	ntp_live_free(db->live);
	db->live = ntp_live_new(db->sql, db->role, db->sample_rate, flags, err, errlen);
	return db->live ? 0 : -1;
}

const struct ntp_live *ntp_db_live_of(const struct ntp_db *db)
{
	return db->live;
}

static int write_stop(struct ntp_db *db, int64_t wall_stop, int64_t mono_stop)
{
	char *sql = sqlite3_mprintf("UPDATE meta SET wall_stop = %lld, mono_stop = %lld",
				    (long long)wall_stop, (long long)mono_stop);
	int rc = sql ? exec(db, sql) : -1;

	sqlite3_free(sql);
	return rc;
}

int ntp_db_close(struct ntp_db *db, int64_t wall_stop, int64_t mono_stop)
{
	int rc = 0, wal_left = 0;

	if (!db)
		return 0;
	if (db->sql && wall_stop && (begin(db) || write_stop(db, wall_stop, mono_stop)))
		rc = -1;
	if (db->sql && ntp_db_commit(db))
		rc = -1;
	sqlite3_finalize(db->ins_cmd);
	sqlite3_finalize(db->ins_cmds);
	sqlite3_finalize(db->ins_grp);
	sqlite3_finalize(db->ins_dev);
	sqlite3_finalize(db->ins_igrp);
	sqlite3_finalize(db->ins_lost);
	sqlite3_finalize(db->ins_ival);
	sqlite3_finalize(db->begin);
	sqlite3_finalize(db->commit);
	sqlite3_finalize(db->ins_gap);
	ntp_live_free(db->live); /* its statement, before the close */
	/* Fold the WAL back so the file stands alone for scp and sqlite3
	 * -readonly; on a full disk that may fail, and the -wal must stay. */
	if (db->sql && sqlite3_exec(db->sql, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL) !=
			       SQLITE_OK)
		wal_left = 1;
	if (sqlite3_close(db->sql) != SQLITE_OK)
		rc = -1;
	if (!rc && wal_left)
		rc = NTP_DB_WAL_LEFT;
	free(db->devs);
	free(db->grps);
	free(db);
	return rc;
}
