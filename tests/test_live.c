// SPDX-License-Identifier: BSD-2-Clause
/*
 * The collector's live lines kept in memory (lib/live.c) against their
 * reference, sql/live.sql and sql/live_gaps.sql run on the database the same
 * records were written to: the same text, line for line, for a host and a
 * target, several groups (two of the same name), counted and estimated
 * rates, lost records shared among groups, missing points with their
 * causes, ties, negative deltas, commands that came after their interval
 * was printed, empty intervals, batches; and the intervals memory cannot
 * give exactly, which must come from the SQL and say so.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ntp_db.h"
#include "ntp_live.h"
#include "ntp_sql.h"
#include "testlib.h"

#define NS 1000000000LL

/* A recording being written, and what the test has compared of it. */
struct feed {
	struct ntp_db *db;
	int role;
	int npoints;
	int64_t mono;        /* meta.mono_start */
	int64_t start;       /* the open interval's start, ns since mono */
	uint64_t rng;        /* xorshift64* state */
	uint64_t last_first; /* the last command's first point, for ties */
	size_t lines;        /* live lines compared */
	size_t gaps;         /* gap lines compared */
};

static uint64_t rnd(struct feed *f)
{
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return f->rng * 2685821657736338717ULL;
}

/* 1 in N */
static int one_in(struct feed *f, unsigned n)
{
	return rnd(f) % n == 0;
}

static void add_device(struct ntp_db *db, uint64_t key, const char *name, uint16_t cntlid,
		       uint32_t lba_shift)
{
	struct ntp_device_record d = {
		.dev = key, .nsid = 1, .lba_shift = lba_shift, .cntlid = cntlid,
		.kind = NTP_KIND_DEVICE, .version = NTP_ABI_VERSION,
	};

	snprintf(d.name, sizeof(d.name), "%s", name);
	snprintf(d.nqn, sizeof(d.nqn), "nqn.2014-08.org.nvmexpress:live");
	assert_int_equal(ntp_db_add_device(db, &d), 0);
}

/*
 * A recording of ROLE with its live lines on (FLAGS): three devices, two of
 * them named alike (two controllers of one namespace), one whose block size
 * is not known yet.
 */
static void open_feed(struct feed *f, int role, const char *driver, const char *transport,
		      uint32_t rate, int64_t mono, int flags, const char *file)
{
	struct ntp_meta m = {
		.role = role, .driver = driver, .transport = transport, .hostname = "live",
		.kernel = "6.1.0-test", .sample_rate = rate, .wall_start = 1, .mono_start = mono,
		.command_line = "test_live",
	};
	char err[512];

	memset(f, 0, sizeof(*f));
	f->role = role;
	f->npoints = role == NTP_ROLE_HOST ? NTP_H_NPOINTS : NTP_T_NPOINTS;
	f->mono = mono;
	f->rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)role;
	f->db = ntp_db_create(tl_file(file), &m, NTP_DB_FORCE, err, sizeof(err));
	if (!f->db)
		fail_msg("%s", err);
	if (ntp_db_live(f->db, flags, err, sizeof(err)))
		fail_msg("%s", err);
	add_device(f->db, 1, "nvme1n1", 1, 12);
	add_device(f->db, 2, "nvme1n1", 2, 12);
	add_device(f->db, 3, "nvme2n1", 1, 0);
}

/* The groups the commands go to: device, queue, opcode, blocks. */
static const struct {
	uint64_t dev;
	uint16_t qid;
	uint8_t opcode;
	uint32_t nlb;
} groups[] = {
	{ 1, 1, 2, 0 },   /* read 4KiB nvme1n1 */
	{ 1, 1, 1, 1 },   /* write 8KiB nvme1n1 */
	{ 2, 1, 2, 0 },   /* read 4KiB nvme1n1, the other controller */
	{ 3, 1, 2, 7 },   /* read 8 blocks nvme2n1 */
	{ 3, 1, 0, 0 },   /* flush nvme2n1 */
	{ 1, 0, 6, 0 },   /* identify nvme1n1 */
};
#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

/* Is point I one of its role's R2T points (writes only)? */
static int r2t_point(const struct feed *f, int i)
{
	return f->role == NTP_ROLE_HOST ? i == NTP_H_R2T_RX || i == NTP_H_DATA_SENT :
					 i == NTP_T_R2T || i == NTP_T_DATA_RX;
}

/* A command of group G whose first point is at T (ns since mono), its
 * points after it: some absent, now and then one earlier than the last. */
static struct ntp_cmd_record make_cmd(struct feed *f, size_t g, int64_t t)
{
	struct ntp_cmd_record r = {
		.dev = groups[g].dev, .nsid = 1, .nlb = groups[g].nlb, .qid = groups[g].qid,
		.opcode = groups[g].opcode, .kind = NTP_KIND_CMD, .role = (uint8_t)f->role,
		.version = NTP_ABI_VERSION,
	};
	int rx = f->role == NTP_ROLE_HOST ? NTP_H_RX : NTP_T_RX;
	uint64_t ts = (uint64_t)(f->mono + t);
	int first = 1;

	r.cid = (uint16_t)rnd(f);
	r.slba = rnd(f) % 1000000;

	for (int i = 0; i < f->npoints; i++) {
		if (r2t_point(f, i) && groups[g].opcode != 1)
			continue;
		if (!first && one_in(f, 20)) { /* absent: a gap */
			if (i == rx)
				r.rx_cause = (uint8_t)(9 + rnd(f) % 3);
			continue;
		}
		if (!first)
			ts = one_in(f, 100) ? ts - rnd(f) % 3000 : ts + 1 + rnd(f) % (20000 + 5000 * i);
		r.ts[i] = ts;
		first = 0;
	}
	return r;
}

static void add(struct feed *f, const struct ntp_cmd_record *r)
{
	assert_int_equal(ntp_db_add_cmd(f->db, r), 0);
}

/*
 * N commands in the open interval [start, start + LEN): spread over it,
 * now and then a tie with the one before (moved a ns on), in batches of
 * NTP_DB_BATCH when BATCHES as the SPDK path stores them; LATE more whose
 * first point is before the interval (their own was printed already).
 */
static void fill(struct feed *f, int64_t len, int n, int late, int batches)
{
	struct ntp_cmd_record b[NTP_DB_BATCH];
	int nb = 0;

	for (int i = 0; i < n + late; i++) {
		int64_t t = i < n ? f->start + (int64_t)(rnd(f) % (uint64_t)(len - 1000)) :
				    f->start - 1 - (int64_t)(rnd(f) % 300000000);
		size_t g = rnd(f) % 8;
		struct ntp_cmd_record r;

		g = g < NGROUPS ? g : 0; /* reads of the first group the most */
		if (i && i < n && one_in(f, 50))
			t = (int64_t)f->last_first - f->mono;
		r = make_cmd(f, g, t);
		f->last_first = (uint64_t)(f->mono + t);
		if (!batches) {
			add(f, &r);
			continue;
		}
		b[nb++] = r;
		if (nb == NTP_DB_BATCH) {
			/* all or none, as the writer stores a batch; a tie in it
			 * makes it store them one by one */
			if (ntp_db_add_cmds(f->db, b, nb))
				for (int k = 0; k < nb; k++)
					add(f, &b[k]);
			nb = 0;
		}
	}
	for (int k = 0; k < nb; k++)
		add(f, &b[k]);
}

/* The live lines of interval ID: memory and sql/live.sql the same, line
 * for line, and from the SQL only when WANT_SQL. */
static void compare_lines(struct feed *f, int64_t id, int want_sql)
{
	const struct ntp_live *l = ntp_db_live_of(f->db);
	const struct ntp_live_line *mem;
	size_t nm = ntp_live_lines(l, &mem), ns = 0, cap = 0;
	struct ntp_live_line *sql = NULL;
	char err[256];

	assert_int_equal(ntp_live_sql(ntp_db_handle(f->db), id, &sql, &ns, &cap, err, sizeof(err)),
			 0);
	if (ntp_live_error(l))
		fail_msg("interval %lld: %s", (long long)id, ntp_live_error(l));
	if (ntp_live_from_sql(l) != want_sql)
		fail_msg("interval %lld: lines from %s, expected from %s", (long long)id,
			 ntp_live_from_sql(l) ? "sql/live.sql" : "memory",
			 want_sql ? "sql/live.sql" : "memory");
	if (nm != ns)
		fail_msg("interval %lld: %zu lines from memory, %zu from sql/live.sql",
			 (long long)id, nm, ns);
	for (size_t i = 0; i < nm; i++)
		for (int c = 0; c < NTP_LIVE_NCOL; c++)
			if (strcmp(mem[i].col[c], sql[i].col[c]))
				fail_msg("interval %lld, line %zu (%s), column %d: '%s' from memory, "
					 "'%s' from sql/live.sql", (long long)id, i, sql[i].col[1], c,
					 mem[i].col[c], sql[i].col[c]);
	f->lines += nm;
	free(sql);
}

/* What the interval lost and lacks: the same rows as sql/live_gaps.sql. */
static void compare_gaps(struct feed *f, int64_t id)
{
	const struct ntp_live_gap *g;
	size_t n = ntp_live_gaps(ntp_db_live_of(f->db), &g), i = 0;
	sqlite3 *db = ntp_db_handle(f->db);
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, ntp_sql_live_gaps, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":interval"), id);
	for (; sqlite3_step(st) == SQLITE_ROW; i++) {
		const char *point = (const char *)sqlite3_column_text(st, 0);

		if (i >= n)
			fail_msg("interval %lld: %zu gap lines from memory, more from sql",
				 (long long)id, n);
		if (strcmp(g[i].point, point ? point : "") || g[i].n != sqlite3_column_int64(st, 1) ||
		    strcmp(g[i].why, (const char *)sqlite3_column_text(st, 2)))
			fail_msg("interval %lld, gap line %zu: %lld %s '%s' from memory, %lld %s '%s' "
				 "from sql/live_gaps.sql", (long long)id, i, (long long)g[i].n,
				 g[i].point, g[i].why, (long long)sqlite3_column_int64(st, 1),
				 point ? point : "", sqlite3_column_text(st, 2));
	}
	sqlite3_finalize(st);
	if (i != n)
		fail_msg("interval %lld: %zu gap lines from memory, %zu from sql", (long long)id, n, i);
	f->gaps += n;
}

/* End the open interval at START + LEN and compare what it printed. */
static void end(struct feed *f, int64_t len, int want_sql)
{
	int64_t id = ntp_db_end_interval(f->db, f->mono + f->start, f->mono + f->start + len);

	assert_true(id > 0);
	f->start += len;
	compare_lines(f, id, want_sql);
	compare_gaps(f, id);
}

/* Lost records of a few causes, some the vocabulary has no row for. */
static void lose(struct feed *f)
{
	static const int causes[] = { NTP_CAUSE_RING_FULL, NTP_CAUSE_UNREADABLE,
				      NTP_CAUSE_NO_DEVICE, 6 };

	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		if (!one_in(f, 3))
			assert_int_equal(ntp_db_add_lost(f->db, causes[i], 1 + rnd(f) % 500), 0);
}

/* Counted totals for some groups, as the kernel's counters give them. */
static void count(struct feed *f)
{
	for (size_t g = 0; g < 3; g++)
		assert_int_equal(ntp_db_count_group(f->db, groups[g].dev, groups[g].opcode,
						    groups[g].nlb, 1000 + rnd(f) % 90000), 0);
}

/* Intervals of all kinds on a recording of ROLE. */
static void intervals(int role, const char *driver, const char *transport, uint32_t rate,
		      const char *file)
{
	struct feed f;

	open_feed(&f, role, driver, transport, rate, 5 * NS, NTP_LIVE_LINES, file);
	fill(&f, NS, 3000, 0, 0); /* many: the p99 from a few thousand */
	lose(&f);
	end(&f, NS, 0);
	fill(&f, NS, 40, 25, 0); /* few, and some that came late */
	if (!strcmp(driver, "kernel"))
		count(&f);
	lose(&f);
	end(&f, NS, 0);
	lose(&f);
	end(&f, NS, 0); /* empty: no lines, what was lost */
	end(&f, NS / 2, 0); /* nothing at all */
	fill(&f, 2 * NS, 1500, 100, 1); /* in batches */
	if (!strcmp(driver, "kernel"))
		count(&f);
	end(&f, 2 * NS, 0);
	for (int i = 0; i < 6; i++) { /* one line, then several */
		fill(&f, NS, i ? 200 * i : 1, 10, i & 1);
		if (i & 1)
			lose(&f);
		end(&f, NS, 0);
	}
	assert_true(f.lines > 20);
	assert_true(f.gaps > 10);
	assert_int_equal(ntp_db_close(f.db, 0, 0), 0);
}

static void test_host(void **state)
{
	intervals(NTP_ROLE_HOST, "kernel", "tcp", 1, "host.db");
	intervals(NTP_ROLE_HOST, "spdk", "tcp", 13, "host-spdk.db");
}

static void test_target(void **state)
{
	intervals(NTP_ROLE_TARGET, "spdk", "tcp", 7, "target.db");
	intervals(NTP_ROLE_TARGET, "kernel", "rdma", 1, "target-rdma.db");
}

/*
 * Where memory cannot give an interval's lines exactly, they come from
 * sql/live.sql: a command whose t lies beyond the stop of the interval it
 * was stored in belongs to a later one (each up to it is run as SQL), two
 * commands tied on the last ns, an interval that does not start where the
 * last one stopped, deltas whose sum could leave int64; and memory takes
 * over again after.
 */
static void test_from_sql(void **state)
{
	struct feed f;
	struct ntp_cmd_record r;

	open_feed(&f, NTP_ROLE_HOST, "kernel", "tcp", 1, 5 * NS, NTP_LIVE_LINES, "sql.db");
	fill(&f, NS, 100, 0, 0);
	end(&f, NS, 0);
	fill(&f, NS, 100, 0, 0);
	r = make_cmd(&f, 0, f.start + 2 * NS + NS / 2); /* in the interval after next */
	add(&f, &r);
	end(&f, NS, 1);
	fill(&f, NS, 100, 0, 0);
	end(&f, NS, 1);
	fill(&f, NS, 100, 0, 0);
	end(&f, NS, 1); /* where that command is shown */
	fill(&f, NS, 100, 0, 0);
	end(&f, NS, 0);

	fill(&f, NS, 100, 0, 0);
	r = make_cmd(&f, 1, f.start + NS - 1); /* on the last ns, twice */
	add(&f, &r);
	add(&f, &r);
	end(&f, NS, 1);
	fill(&f, NS, 100, 0, 0);
	end(&f, NS, 1); /* the second, moved to its first ns */
	fill(&f, NS, 100, 0, 0);
	end(&f, NS, 0);

	f.start += NS / 3; /* a hole between intervals */
	fill(&f, NS, 100, 0, 0);
	end(&f, NS, 1);
	fill(&f, NS, 100, 0, 0);
	end(&f, NS, 0);
	assert_int_equal(ntp_db_close(f.db, 0, 0), 0);

	/* deltas of 3 x 2^61 ns, there and back: no sum overflows, but
	 * memory cannot know that in whatever order SQLite adds them */
	open_feed(&f, NTP_ROLE_HOST, "kernel", "tcp", 1, (int64_t)1 << 62, NTP_LIVE_LINES,
		  "big.db");
	fill(&f, NS, 100, 0, 0);
	r = make_cmd(&f, 0, f.start + NS / 2);
	memset(r.ts, 0, sizeof(r.ts));
	r.ts[NTP_H_START] = (uint64_t)(f.mono + f.start + NS / 2);
	r.ts[NTP_H_QUEUE] = r.ts[NTP_H_START] + 3 * ((uint64_t)1 << 61);
	r.ts[NTP_H_SENT] = r.ts[NTP_H_QUEUE] - 3 * ((uint64_t)1 << 61) + 1000;
	add(&f, &r);
	end(&f, NS, 1);
	fill(&f, NS, 100, 0, 0);
	end(&f, NS, 0);
	assert_int_equal(ntp_db_close(f.db, 0, 0), 0);
}

/*
 * Halves, printed as SQLite prints them: 1.125 us is "1.13" (its printf
 * rounds half up, C's to even) and 12.5 % is "13%" (its round() half away
 * from zero).
 */
static void test_halves(void **state)
{
	struct feed f;
	const struct ntp_live_line *lines;
	struct ntp_cmd_record r;

	open_feed(&f, NTP_ROLE_HOST, "kernel", "tcp", 1, 5 * NS, NTP_LIVE_LINES, "halves.db");
	for (int i = 0; i < 3; i++) {
		r = make_cmd(&f, i ? 0 : 1, NS / 4 + i * 10000);
		memset(r.ts, 0, sizeof(r.ts));
		r.ts[NTP_H_START] = (uint64_t)(f.mono + NS / 4 + i * 10000);
		r.ts[NTP_H_QUEUE] = r.ts[NTP_H_START] + 125;
		r.ts[NTP_H_SENT] = r.ts[NTP_H_QUEUE] + 375;
		r.ts[NTP_H_RX] = r.ts[NTP_H_SENT] + (i ? 625 : 500);
		add(&f, &r);
	}
	end(&f, NS, 0);
	assert_int_equal(ntp_live_lines(ntp_db_live_of(f.db), &lines), 2);
	assert_string_equal(lines[0].col[4], "1.13"); /* read: 1125 ns twice */
	assert_string_equal(lines[0].col[5], "1.13");
	assert_string_equal(lines[1].col[6], "13%"); /* write: 125 of 1000 ns */
	assert_string_equal(lines[1].col[7], "38%");
	assert_string_equal(lines[1].col[8], "50%*");
	assert_int_equal(ntp_db_close(f.db, 0, 0), 0);
}

/* -q: no live lines kept, what was lost and lacks still said. */
static void test_quiet(void **state)
{
	struct feed f;
	const struct ntp_live_line *lines;

	open_feed(&f, NTP_ROLE_TARGET, "spdk", "tcp", 3, 5 * NS, 0, "quiet.db");
	for (int i = 0; i < 3; i++) {
		int64_t id;

		fill(&f, NS, 500, 0, 0);
		lose(&f);
		id = ntp_db_end_interval(f.db, f.mono + f.start, f.mono + f.start + NS);
		assert_true(id > 0);
		f.start += NS;
		assert_int_equal(ntp_live_lines(ntp_db_live_of(f.db), &lines), 0);
		compare_gaps(&f, id);
	}
	assert_true(f.gaps > 3);
	assert_int_equal(ntp_db_close(f.db, 0, 0), 0);
}

static int teardown(void **state)
{
	tl_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_target),
		cmocka_unit_test(test_from_sql),
		cmocka_unit_test(test_halves),
		cmocka_unit_test(test_quiet),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
