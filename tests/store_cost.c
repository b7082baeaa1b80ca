// SPDX-License-Identifier: BSD-2-Clause
/*
 * What storing a record costs the collector's writer (make bench,
 * tests/bench_cost.sh), without the ring buffer: store_cost N DIR stores N
 * target records, as tests/usdt_flood fires them, through lib/ntp_db.c in
 * batches of 64 (what the writer does with a batch), committing every
 * COMMIT records as the writer does once a second at -s 1 on the fixture;
 * then the same rows, read back, by a bare SQLite loop into a new file with
 * the same table and pragmas (one 64-row INSERT, the same commits). CPU
 * time (getrusage) of each, the close not counted. Prints
 * "records=N ntp_db_ns=X sqlite_ns=Y": ns of CPU per record.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "flood.h"
#include "ntp_db.h"
#include "ntprof_abi.h"

#define BATCH 64
#define COMMIT 16384

static double cpu_s(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
	       (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "store_cost: %s: %s\n", what, why);
	exit(1);
}

/* N records through ntp_db into PATH: CPU s */
static double through_ntp_db(const char *path, long n)
{
	static struct ntp_cmd_record batch[BATCH];
	struct ntp_device_record d = {
		.nsid = 1, .lba_shift = 9, .cntlid = 1, .kind = NTP_KIND_DEVICE,
		.version = NTP_ABI_VERSION, .name = "Malloc0", .dev = 1,
		.nqn = "nqn.2026-10.edu.wisc.ntprof:store",
	};
	struct timespec now;
	struct ntp_meta m = {
		.role = NTP_ROLE_TARGET, .driver = "spdk", .transport = "tcp",
		.hostname = "store_cost", .kernel = "-", .sample_rate = 1,
		.command_line = "store_cost",
	};
	char err[512];
	struct ntp_db *db;
	double c0, c1;
	uint64_t t;
	uint16_t cid = 0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	m.mono_start = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	m.wall_start = m.mono_start;
	db = ntp_db_create(path, &m, NTP_DB_FORCE, err, sizeof(err));
	if (!db)
		die(path, err);
	if (ntp_db_live(db, 0, err, sizeof(err)) || ntp_db_add_device(db, &d))
		die(path, "cannot set up");
	t = (uint64_t)m.mono_start + 1000000;
	c0 = cpu_s();
	for (long i = 0; i < n; i += BATCH) {
		for (int k = 0; k < BATCH; k++, t += 5000)
			flood_fill(&batch[k], t, cid++, d.dev, NTP_ABI_VERSION);
		if (ntp_db_add_cmds(db, batch, BATCH))
			die(path, ntp_db_errmsg(db));
		if ((i + BATCH) % COMMIT == 0 && ntp_db_commit(db))
			die(path, ntp_db_errmsg(db));
	}
	if (ntp_db_commit(db))
		die(path, ntp_db_errmsg(db));
	c1 = cpu_s();
	if (ntp_db_close(db, m.wall_start + 1, m.mono_start + 1))
		die(path, "cannot close");
	return c1 - c0;
}

static void exec(sqlite3 *db, const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		die(sql, sqlite3_errmsg(db));
}

/* FROM's cmd rows by a bare loop into a new file TO: CPU s; *N the rows */
static double bare_sqlite(const char *from, const char *to, long *n)
{
	sqlite3 *src, *dst;
	sqlite3_stmt *st;
	sqlite3_str *q;
	int64_t *v;
	char *ddl, *ins;
	int cols;
	long rows = 0;
	double c0, c1;

	if (sqlite3_open_v2(from, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		die(from, sqlite3_errmsg(src));
	if (sqlite3_prepare_v2(src, "SELECT sql FROM sqlite_schema WHERE name = 'cmd'", -1, &st,
			       NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
		die(from, "no cmd table");
	ddl = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(src, "SELECT * FROM cmd ORDER BY t", -1, &st, NULL) != SQLITE_OK)
		die(from, sqlite3_errmsg(src));
	cols = sqlite3_column_count(st);
	v = malloc(sizeof(*v) * (size_t)cols * (size_t)*n);
	if (!v)
		die("memory", "out of memory");
	/* INT64_MIN stands for NULL: no stored point is that */
	while (sqlite3_step(st) == SQLITE_ROW && rows < *n) {
		for (int c = 0; c < cols; c++)
			v[rows * cols + c] = sqlite3_column_type(st, c) == SQLITE_NULL ?
						     INT64_MIN : sqlite3_column_int64(st, c);
		rows++;
	}
	sqlite3_finalize(st);
	sqlite3_close(src);
	*n = rows - rows % BATCH;

	remove(to);
	if (sqlite3_open_v2(to, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		die(to, sqlite3_errmsg(dst));
	exec(dst, "PRAGMA journal_mode=WAL");
	exec(dst, ddl);
	exec(dst, "PRAGMA synchronous=NORMAL");
	q = sqlite3_str_new(NULL);
	sqlite3_str_appendall(q, "INSERT INTO cmd VALUES ");
	for (int r = 0; r < BATCH; r++) {
		sqlite3_str_appendall(q, r ? ",(" : "(");
		for (int c = 0; c < cols; c++)
			sqlite3_str_appendall(q, c ? ",?" : "?");
		sqlite3_str_appendall(q, ")");
	}
	ins = sqlite3_str_finish(q);
	if (!ins || sqlite3_prepare_v2(dst, ins, -1, &st, NULL) != SQLITE_OK)
		die(to, sqlite3_errmsg(dst));
	c0 = cpu_s();
	exec(dst, "BEGIN");
	for (long i = 0; i < *n; i += BATCH) {
		for (int r = 0; r < BATCH; r++)
			for (int c = 0; c < cols; c++) {
				int64_t x = v[(i + r) * cols + c];

				if (x == INT64_MIN)
					sqlite3_bind_null(st, r * cols + c + 1);
				else
					sqlite3_bind_int64(st, r * cols + c + 1, x);
			}
		if (sqlite3_step(st) != SQLITE_DONE)
			die(to, sqlite3_errmsg(dst));
		sqlite3_reset(st);
		if ((i + BATCH) % COMMIT == 0)
			exec(dst, "COMMIT; BEGIN");
	}
	exec(dst, "COMMIT");
	c1 = cpu_s();
	sqlite3_finalize(st);
	sqlite3_close(dst);
	sqlite3_free(ins);
	sqlite3_free(ddl);
	free(v);
	return c1 - c0;
}

int main(int argc, char **argv)
{
	char a[4096], b[4096];
	long n, stored;
	double x, y;

	if (argc != 3 || (n = atol(argv[1])) < BATCH) {
		fprintf(stderr, "usage: store_cost N DIR (N >= %d)\n", BATCH);
		return 2;
	}
	n -= n % BATCH;
	snprintf(a, sizeof(a), "%s/store_ntp_db.db", argv[2]);
	snprintf(b, sizeof(b), "%s/store_sqlite.db", argv[2]);
	x = through_ntp_db(a, n);
	stored = n;
	y = bare_sqlite(a, b, &stored);
	if (stored != n)
		die(a, "not every record was stored");
	printf("records=%ld ntp_db_ns=%.1f sqlite_ns=%.1f\n", n, x * 1e9 / (double)n,
	       y * 1e9 / (double)n);
	remove(a);
	remove(b);
	return 0;
}
