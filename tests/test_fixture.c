// SPDX-License-Identifier: BSD-2-Clause
/*
 * Every view, fixture in, expected rows out (in the style of Perfetto's SQL
 * stdlib tests). A tiny host/target pair is written through the collector's
 * own writer (lib/ntp_db.c) from hand-made ABI records with round
 * numbers; each view is then read in full, every column, and compared with
 * rows written out below. The expected rows were computed by hand from the
 * fixture (the arithmetic is in the comments), never copied from the
 * program's output.
 *
 * Rendering (render_value): NULL as NULL, INTEGER exactly, TEXT as is (in
 * double quotes only when it holds a comma or a quote), REAL as "%.12g" with
 * ".0" appended when that looks like an integer, so 2500.0 and 2500 differ.
 * The first line of every expected table is the header: the view's columns.
 *
 * THE FIXTURE
 *
 * Clocks. Host: meta.mono_start H_MONO = 1 000 000 000 000 (1000 s),
 * wall_start H_WALL = 1.7e18, recording 2 s. Target: mono_start T_MONO =
 * 5 000 000 000 000, wall_start T_WALL = H_WALL + 2 ms (its wall clock is
 * 2 ms ahead), recording 2.5 s. True relation: target mono = host mono +
 * 4e12, so a target time T_MONO + x is host time H_MONO + x. Both -s 4,
 * kernel, TCP. One namespace (NQN, cntlid 1, nsid 1, 512 B blocks): the host
 * calls it nvme1n1, the target nvme0n1.
 *
 * Host commands (point offsets in ns from `at`, "-" absent):
 *       at-H_MONO  grp op/nlb    q c slba  start queue sent r2t  data  rx     rx_drv cqe    compl  end
 *   H1  0.1 s      1  read 7     1 5  800  0     500  3500  -    -     83500  85500  86500  87000  89000
 *   H2  0.2 s      2  write 31   1 6 1600  0     1000 5000  35000 41000 141000 143000 144000 144500 147000
 *   H3  0.3 s      1  read 7     1 5  800  -     0    2000  -    -     72000  73000  73500  74000  -     (SPDK-like; same identity as H1)
 *   H4  1.2 s      1  read 7     2 1 3200  0     400  3400  -    -     63400  -      66400  66900  68900 (h_rx_drv missing)
 *   H5  1.5 s      3  read 15    2 2 2400  0     500  3500  -    -     103500 105500 106500 107000 109000 (no target record)
 * Host groups: 1 read 4KiB, 2 write 16KiB, 3 read 8KiB, 4 flush (counted,
 * never sampled). Intervals: [0, 1 s) read4k counted 2000, write not counted,
 * lost 0; [1 s, 2 s) read4k 3000, read8k 1000, flush 5 counted, lost 3.
 *
 * Target records (offsets from `at`):
 *       at-T_MONO     grp op/nlb   q c slba  rx cmd  r2t  data  exec  stor  resp  sent  free
 *   T1  100 015 700   1  read 7    1 5  800  0  1000 -    -     3000  53000 54000 55000 -
 *   T2  200 023 300   2  write 31  1 6 1600  0  1000 3000 33000 36000 96000 97000 98000 -
 *   T3  300 015 400   1  read 7    1 5  800  0  1000 -    -     2000  42000 43000 44000 44500
 *   T4  1 200 015 400 1  read 7    2 1 3200  0  500  -    -     1500  31500 -     33000 -     (t_resp missing)
 *   T6  2 200 000 000 3  read 15   2 2 2400  0  1000 -    -     2000  42000 43000 44000 -     (no host command;
 *                                                       same identity as H5 but 0.7 s later: a false candidate)
 * T1..T4 are H1..H4 as the target saw them. Target groups: 1 read 4KiB,
 * 2 write 16KiB, 3 read 8KiB. Intervals: [0, 1 s) read4k 2000, write 1000
 * counted; [1 s, 2.5 s) read4k 3500 counted, read8k not counted; lost 0.
 *
 * Skew by construction (host mid - target mid in true time, mid = middle of
 * the host's wait / of the target's residence): H1/T1 +300, H2/T2 +700,
 * H3/T3 -400, H4/T4 +1500 (worked out next to ntp_host_cmd/ntp_target_cmd).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ntp_db.h"
#include "testlib.h"

#define NQN "nqn.2026-01.io.ntprof:fixture"
#define H_MONO 1000000000000LL
#define H_WALL 1700000000000000000LL
#define T_MONO 5000000000000LL
#define T_WALL 1700000000002000000LL
#define NS 1000000000LL
#define X (-1) /* point absent */
#define H_DEV 0x1000
#define T_DEV 0x2000

struct fx_cmd {
	int64_t at;                /* absolute CLOCK_MONOTONIC of offset 0 */
	uint8_t opcode;
	uint32_t nlb;
	uint16_t qid, cid;
	uint64_t slba;
	int64_t p[NTP_MAX_POINTS]; /* ns after at, X: absent */
};

static const struct fx_cmd host_cmds[] = {
	/* H1 */ { H_MONO + 100000000, 2, 7, 1, 5, 800,
		   { 0, 500, 3500, X, X, 83500, 85500, 86500, 87000, 89000 } },
	/* H2 */ { H_MONO + 200000000, 1, 31, 1, 6, 1600,
		   { 0, 1000, 5000, 35000, 41000, 141000, 143000, 144000, 144500, 147000 } },
	/* H3 */ { H_MONO + 300000000, 2, 7, 1, 5, 800,
		   { X, 0, 2000, X, X, 72000, 73000, 73500, 74000, X } },
	/* H4 */ { H_MONO + 1200000000, 2, 7, 2, 1, 3200,
		   { 0, 400, 3400, X, X, 63400, X, 66400, 66900, 68900 } },
	/* H5 */ { H_MONO + 1500000000, 2, 15, 2, 2, 2400,
		   { 0, 500, 3500, X, X, 103500, 105500, 106500, 107000, 109000 } },
};

static const struct fx_cmd target_cmds[] = {
	/* T1 */ { T_MONO + 100015700, 2, 7, 1, 5, 800,
		   { 0, 1000, X, X, 3000, 53000, 54000, 55000, X, X } },
	/* T2 */ { T_MONO + 200023300, 1, 31, 1, 6, 1600,
		   { 0, 1000, 3000, 33000, 36000, 96000, 97000, 98000, X, X } },
	/* T3 */ { T_MONO + 300015400, 2, 7, 1, 5, 800,
		   { 0, 1000, X, X, 2000, 42000, 43000, 44000, 44500, X } },
	/* T4 */ { T_MONO + 1200015400, 2, 7, 2, 1, 3200,
		   { 0, 500, X, X, 1500, 31500, X, 33000, X, X } },
	/* T6 */ { T_MONO + 2200000000, 2, 15, 2, 2, 2400,
		   { 0, 1000, X, X, 2000, 42000, 43000, 44000, X, X } },
};

static char host_path[512], target_path[512];

static void add_cmd(struct ntp_db *db, const struct fx_cmd *c, int role, uint64_t dev)
{
	struct ntp_cmd_record r = {
		.slba = c->slba, .dev = dev, .nsid = 1, .nlb = c->nlb, .qid = c->qid,
		.cid = c->cid, .cntlid = 1, .opcode = c->opcode, .kind = NTP_KIND_CMD,
		.role = (uint8_t)role, .version = NTP_ABI_VERSION,
	};

	for (int i = 0; i < NTP_MAX_POINTS; i++)
		r.ts[i] = c->p[i] == X ? 0 : (uint64_t)(c->at + c->p[i]);
	assert_int_equal(ntp_db_add_cmd(db, &r), 0);
}

static struct ntp_db *create(const char *path, int role, const char *hostname, int64_t wall,
			     int64_t mono, uint64_t dev, const char *devname)
{
	struct ntp_meta m = {
		.role = role, .driver = "kernel", .transport = "tcp", .hostname = hostname,
		.kernel = "6.1.0-test", .sample_rate = 4, .wall_start = wall, .mono_start = mono,
		.command_line = "ntprof record -s 4",
	};
	struct ntp_device_record d = {
		.dev = dev, .nsid = 1, .lba_shift = 9, .cntlid = 1, .kind = NTP_KIND_DEVICE,
		.version = NTP_ABI_VERSION,
	};
	char err[512];
	struct ntp_db *db = ntp_db_create(path, &m, NTP_DB_FORCE, err, sizeof(err));

	if (!db)
		fail_msg("%s", err);
	snprintf(d.name, sizeof(d.name), "%s", devname);
	snprintf(d.nqn, sizeof(d.nqn), "%s", NQN);
	assert_int_equal(ntp_db_add_device(db, &d), 0);
	return db;
}

static int setup(void **state)
{
	struct ntp_db *db;

	snprintf(host_path, sizeof(host_path), "%s", tl_file("host.db"));
	snprintf(target_path, sizeof(target_path), "%s", tl_file("target.db"));

	db = create(host_path, NTP_ROLE_HOST, "fixture-host", H_WALL, H_MONO, H_DEV, "nvme1n1");
	for (int i = 0; i < 3; i++) /* H1 (grp 1), H2 (grp 2), H3 */
		add_cmd(db, &host_cmds[i], NTP_ROLE_HOST, H_DEV);
	assert_int_equal(ntp_db_count_group(db, H_DEV, 2, 7, 2000), 0);
	assert_int_equal(ntp_db_end_interval(db, H_MONO, H_MONO + NS), 1);
	for (int i = 3; i < 5; i++) /* H4, H5 (grp 3) */
		add_cmd(db, &host_cmds[i], NTP_ROLE_HOST, H_DEV);
	assert_int_equal(ntp_db_count_group(db, H_DEV, 2, 7, 3000), 0);
	assert_int_equal(ntp_db_count_group(db, H_DEV, 2, 15, 1000), 0);
	assert_int_equal(ntp_db_count_group(db, H_DEV, 0, 0, 5), 0); /* flush: grp 4 */
	assert_int_equal(ntp_db_add_lost(db, NTP_CAUSE_RING_FULL, 3), 0);
	assert_int_equal(ntp_db_end_interval(db, H_MONO + NS, H_MONO + 2 * NS), 2);
	assert_int_equal(ntp_db_close(db, H_WALL + 2 * NS, H_MONO + 2 * NS), 0);

	db = create(target_path, NTP_ROLE_TARGET, "fixture-target", T_WALL, T_MONO, T_DEV,
		    "nvme0n1");
	for (int i = 0; i < 3; i++) /* T1 (grp 1), T2 (grp 2), T3 */
		add_cmd(db, &target_cmds[i], NTP_ROLE_TARGET, T_DEV);
	assert_int_equal(ntp_db_count_group(db, T_DEV, 2, 7, 2000), 0);
	assert_int_equal(ntp_db_count_group(db, T_DEV, 1, 31, 1000), 0);
	assert_int_equal(ntp_db_end_interval(db, T_MONO, T_MONO + NS), 1);
	for (int i = 3; i < 5; i++) /* T4, T6 (grp 3) */
		add_cmd(db, &target_cmds[i], NTP_ROLE_TARGET, T_DEV);
	assert_int_equal(ntp_db_count_group(db, T_DEV, 2, 7, 3500), 0);
	assert_int_equal(ntp_db_end_interval(db, T_MONO + NS, T_MONO + 2500000000LL), 2);
	assert_int_equal(ntp_db_close(db, T_WALL + 2500000000LL, T_MONO + 2500000000LL), 0);
	*state = NULL;
	return 0;
}

static int teardown(void **state)
{
	tl_cleanup();
	return 0;
}

/* ---- rendering and comparing ------------------------------------------- */

struct sbuf {
	char *s;
	size_t n, cap;
};

static void sb_add(struct sbuf *b, const char *s)
{
	size_t l = strlen(s);

	if (b->n + l + 1 > b->cap) {
		b->cap = 2 * (b->n + l + 1);
		b->s = realloc(b->s, b->cap);
		assert_non_null(b->s);
	}
	memcpy(b->s + b->n, s, l + 1);
	b->n += l;
}

static void render_value(struct sbuf *b, sqlite3_stmt *st, int i)
{
	char buf[64];
	const char *t;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		sb_add(b, "NULL");
		break;
	case SQLITE_INTEGER:
		snprintf(buf, sizeof(buf), "%lld", (long long)sqlite3_column_int64(st, i));
		sb_add(b, buf);
		break;
	case SQLITE_FLOAT:
		snprintf(buf, sizeof(buf), "%.12g", sqlite3_column_double(st, i));
		if (!strpbrk(buf, ".en"))
			strcat(buf, ".0");
		sb_add(b, buf);
		break;
	default:
		t = (const char *)sqlite3_column_text(st, i);
		if (strpbrk(t, ",\"")) {
			sb_add(b, "\"");
			for (; *t; t++)
				sb_add(b, *t == '"' ? "\"\"" : (char[2]){ *t, 0 });
			sb_add(b, "\"");
		} else {
			sb_add(b, t);
		}
	}
}

/* Mismatching views so far in this test: all are printed, then it fails. */
static int failures;

/* Run SQL on DB; its header line and rows must be exactly EXP (NULL-ended). */
static void check_rows(sqlite3 *db, const char *what, const char *sql, const char *const *exp)
{
	sqlite3_stmt *st = NULL;
	char **got = NULL;
	size_t ngot = 0, nexp = 0;
	int rc, bad = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s: %s", what, sql, sqlite3_errmsg(db));
	for (int row = -1;; row++) {
		struct sbuf b = { 0 };

		if (row >= 0) {
			rc = sqlite3_step(st);
			if (rc == SQLITE_DONE)
				break;
			if (rc != SQLITE_ROW)
				fail_msg("%s: %s: %s", what, sql, sqlite3_errmsg(db));
		}
		sb_add(&b, "");
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			if (i)
				sb_add(&b, ",");
			if (row < 0)
				sb_add(&b, sqlite3_column_name(st, i));
			else
				render_value(&b, st, i);
		}
		got = realloc(got, (ngot + 1) * sizeof(*got));
		assert_non_null(got);
		got[ngot++] = b.s;
	}
	sqlite3_finalize(st);
	while (exp[nexp])
		nexp++;
	bad = ngot != nexp;
	for (size_t i = 0; !bad && i < ngot; i++)
		bad = strcmp(got[i], exp[i]) != 0;
	if (bad) {
		failures++;
		fprintf(stderr, "MISMATCH %s\n  query: %s\n", what, sql);
		for (size_t i = 0; i < ngot || i < nexp; i++) {
			const char *g = i < ngot ? got[i] : "(none)";
			const char *e = i < nexp ? exp[i] : "(none)";

			if (strcmp(g, e))
				fprintf(stderr, "  row %zu\n    expected: %s\n    actual:   %s\n", i, e, g);
		}
	}
	for (size_t i = 0; i < ngot; i++)
		free(got[i]);
	free(got);
}

/* Components in path order (component.ord), for readable expected rows. */
#define CORD(col) "(SELECT k.ord FROM component AS k WHERE k.name = " col ")"
/* The same for a point: its path order. */
#define PORD(col) "(SELECT p.ord FROM point AS p WHERE p.name = " col ")"

/* ---- host database, per-machine views ----------------------------------- */

static const char *const host_cmd_point[] = {
	"t,grp,h_start,h_queue,h_sent,h_r2t_rx,h_data_sent,h_rx,h_rx_drv,h_cqe,h_complete,h_end",
	/* absolute = H_MONO + at + offset; t = first recorded point - H_MONO */
	"100000000,1,1000100000000,1000100000500,1000100003500,NULL,NULL,1000100083500,"
	"1000100085500,1000100086500,1000100087000,1000100089000",
	"200000000,2,1000200000000,1000200001000,1000200005000,1000200035000,1000200041000,"
	"1000200141000,1000200143000,1000200144000,1000200144500,1000200147000",
	/* H3: no h_start, so t is h_queue's time */
	"300000000,1,NULL,1000300000000,1000300002000,NULL,NULL,1000300072000,1000300073000,"
	"1000300073500,1000300074000,NULL",
	"1200000000,1,1001200000000,1001200000400,1001200003400,NULL,NULL,1001200063400,NULL,"
	"1001200066400,1001200066900,1001200068900",
	"1500000000,3,1001500000000,1001500000500,1001500003500,NULL,NULL,1001500103500,"
	"1001500105500,1001500106500,1001500107000,1001500109000",
	NULL
};

static const char *const host_cmd_span[] = {
	"t,grp,qid,cid,slba,sent_ns,wait_ns,waited,h_blk_sub,h_drv_sub,h_r2t,h_wait,h_rx_path,"
	"h_drv_cpl,h_blk_cpl,h_handoff,e2e",
	/* waited: every command has h_sent and h_rx */
	/* H1: sent = H_MONO+0.1s+3500; wait = rx-sent = 83500-3500 = 80000; blk_sub 500;
	 * drv_sub 3500-500 = 3000; rx_path 85500-83500 = 2000; drv_cpl 1000; handoff 500;
	 * blk_cpl 89000-87000 = 2000; e2e 89000 */
	"100000000,1,1,5,800,1000100003500,80000,1,500,3000,NULL,80000,2000,1000,2000,500,89000",
	/* H2: sent +5000; wait = 141000-5000 = 136000; r2t = 41000-35000 = 6000;
	 * h_wait = 136000-6000 = 130000; blk_sub 1000, drv_sub 4000, rx_path 2000,
	 * drv_cpl 1000, handoff 500, blk_cpl 2500, e2e 147000 */
	"200000000,2,1,6,1600,1000200005000,136000,1,1000,4000,6000,130000,2000,1000,2500,500,"
	"147000",
	/* H3: no h_start/h_end: blk_sub 0, blk_cpl 0; wait 72000-2000 = 70000;
	 * e2e = 74000 - 0 (first point is h_queue) */
	"300000000,1,1,5,800,1000300002000,70000,1,0,2000,NULL,70000,1000,500,0,500,74000",
	/* H4: h_rx_drv missing: rx_path 0, drv_cpl = 66400-63400 = 3000 */
	"1200000000,1,2,1,3200,1001200003400,60000,1,400,3000,NULL,60000,0,3000,2000,500,68900",
	"1500000000,3,2,2,2400,1001500003500,100000,1,500,3000,NULL,100000,2000,1000,2000,500,"
	"109000",
	NULL
};

static const char *const host_cmd_component[] = {
	"t,grp,component,ns",
	"100000000,1,h_blk_sub,500", "100000000,1,h_drv_sub,3000", "100000000,1,h_r2t,NULL",
	"100000000,1,h_wait,80000", "100000000,1,h_rx_path,2000", "100000000,1,h_drv_cpl,1000",
	"100000000,1,h_blk_cpl,2000", "100000000,1,h_handoff,500", "100000000,1,e2e,89000",
	"200000000,2,h_blk_sub,1000", "200000000,2,h_drv_sub,4000", "200000000,2,h_r2t,6000",
	"200000000,2,h_wait,130000", "200000000,2,h_rx_path,2000", "200000000,2,h_drv_cpl,1000",
	"200000000,2,h_blk_cpl,2500", "200000000,2,h_handoff,500", "200000000,2,e2e,147000",
	"300000000,1,h_blk_sub,0", "300000000,1,h_drv_sub,2000", "300000000,1,h_r2t,NULL",
	"300000000,1,h_wait,70000", "300000000,1,h_rx_path,1000", "300000000,1,h_drv_cpl,500",
	"300000000,1,h_blk_cpl,0", "300000000,1,h_handoff,500", "300000000,1,e2e,74000",
	"1200000000,1,h_blk_sub,400", "1200000000,1,h_drv_sub,3000", "1200000000,1,h_r2t,NULL",
	"1200000000,1,h_wait,60000", "1200000000,1,h_rx_path,0", "1200000000,1,h_drv_cpl,3000",
	"1200000000,1,h_blk_cpl,2000", "1200000000,1,h_handoff,500", "1200000000,1,e2e,68900",
	"1500000000,3,h_blk_sub,500", "1500000000,3,h_drv_sub,3000", "1500000000,3,h_r2t,NULL",
	"1500000000,3,h_wait,100000", "1500000000,3,h_rx_path,2000",
	"1500000000,3,h_drv_cpl,1000", "1500000000,3,h_blk_cpl,2000",
	"1500000000,3,h_handoff,500", "1500000000,3,e2e,109000",
	NULL
};

static const char *const host_cmd_e2e[] = {
	"t,grp,ns",
	"100000000,1,89000", "200000000,2,147000", "300000000,1,74000", "1200000000,1,68900",
	"1500000000,3,109000",
	NULL
};

static const char *const host_grp_info[] = {
	"grp,queue,op,bytes,device,nqn,cntlid,nsid,admin,opcode,fctype,nlb,name",
	"1,io,read,4096,nvme1n1," NQN ",1,1,0,2,0,7,read 4KiB nvme1n1",       /* (7+1)<<9 */
	"2,io,write,16384,nvme1n1," NQN ",1,1,0,1,0,31,write 16KiB nvme1n1",  /* (31+1)<<9 */
	"3,io,read,8192,nvme1n1," NQN ",1,1,0,2,0,15,read 8KiB nvme1n1",      /* (15+1)<<9 */
	"4,io,flush,NULL,nvme1n1," NQN ",1,1,0,0,0,0,flush nvme1n1",
	NULL
};

static const char *const host_recording[] = {
	"role,driver,transport,hostname,kernel,sample_rate,duration_ns,records,lost,gaps,complete",
	/* gaps: H3 lacks h_start and h_end, H4 h_rx_drv (kernel TCP has all three) */
	"host,kernel,tcp,fixture-host,6.1.0-test,4,2000000000,5,3,3,1",
	NULL
};

static const char *const host_lost_by_cause[] = {
	"cause,description,n",
	"ring_full,the ring buffer was full (try a larger -s or --ring-kb),3",
	NULL
};

static const char *const host_gap_by_cause[] = {
	"point,cause,description,n",
	"h_start,not_recorded,not recorded by the driver's hooks,1",
	"h_rx_drv,not_recorded,not recorded by the driver's hooks,1",
	"h_end,not_recorded,not recorded by the driver's hooks,1",
	NULL
};

/* kernel TCP host: every point but the R2T pair always; no write has only
 * one of the pair */
static const char *const host_point_missing[] = {
	"point,cmds,missing",
	"h_start,5,1", "h_queue,5,0", "h_sent,5,0", "h_r2t_rx,5,0", "h_data_sent,5,0",
	"h_rx,5,0", "h_rx_drv,5,1", "h_cqe,5,0", "h_complete,5,0", "h_end,5,1",
	NULL
};

static const char *const host_grp_rate[] = {
	"grp,sampled,total,exact,active_ns,rate",
	/* H1 H3 H4 at 0.1, 0.3, 1.2 s: active (1.2 - 0.1) s * 3/2 = 1.65 s;
	 * 2000+3000 counted: 1e9*5000/1.65e9 */
	"1,3,5000,1,1650000000.0,3030.3030303",
	"2,1,NULL,0,2000000000,2.0",   /* one sample: the whole 2 s; 1e9*(1*4)/2e9 */
	"3,1,1000,1,2000000000,500.0", /* 1e9*1000/2e9 */
	/* grp 4: flush, 5 counted in interval 1, none sampled: still listed, so
	 * throughput counts it: 1e9*5/2e9 */
	"4,0,5,1,2000000000,2.5",
	NULL
};

static const char *const host_component_stats[] = {
	"grp,component,n,sum_ns,mean_ns,p50_ns,p99_ns,p999_ns",
	/* grp 1 = H1, H3, H4; ranks for n=3: p50 (150000+99999)/100000 = 2,
	 * p99 (297000+99999)/100000 = 3, p999 3. h_r2t is NULL for all: no row. */
	"1,h_blk_sub,3,900,300.0,400,500,500",              /* 500,0,400 -> [0,400,500] */
	"1,h_drv_sub,3,8000,2666.66666667,3000,3000,3000",  /* 3000,2000,3000; 8000/3 */
	"1,h_wait,3,210000,70000.0,70000,80000,80000",      /* 80000,70000,60000 */
	"1,h_rx_path,3,3000,1000.0,1000,2000,2000",         /* 2000,1000,0 */
	"1,h_drv_cpl,3,4500,1500.0,1000,3000,3000",         /* 1000,500,3000 */
	"1,h_blk_cpl,3,4000,1333.33333333,2000,2000,2000",  /* 2000,0,2000; 4000/3 */
	"1,h_handoff,3,1500,500.0,500,500,500",
	"1,e2e,3,231900,77300.0,74000,89000,89000",         /* 89000+74000+68900 */
	/* grp 2 = H2 alone: n 1, every rank 1 */
	"2,h_blk_sub,1,1000,1000.0,1000,1000,1000",
	"2,h_drv_sub,1,4000,4000.0,4000,4000,4000",
	"2,h_r2t,1,6000,6000.0,6000,6000,6000",
	"2,h_wait,1,130000,130000.0,130000,130000,130000",
	"2,h_rx_path,1,2000,2000.0,2000,2000,2000",
	"2,h_drv_cpl,1,1000,1000.0,1000,1000,1000",
	"2,h_blk_cpl,1,2500,2500.0,2500,2500,2500",
	"2,h_handoff,1,500,500.0,500,500,500",
	"2,e2e,1,147000,147000.0,147000,147000,147000",
	/* grp 3 = H5 alone */
	"3,h_blk_sub,1,500,500.0,500,500,500",
	"3,h_drv_sub,1,3000,3000.0,3000,3000,3000",
	"3,h_wait,1,100000,100000.0,100000,100000,100000",
	"3,h_rx_path,1,2000,2000.0,2000,2000,2000",
	"3,h_drv_cpl,1,1000,1000.0,1000,1000,1000",
	"3,h_blk_cpl,1,2000,2000.0,2000,2000,2000",
	"3,h_handoff,1,500,500.0,500,500,500",
	"3,e2e,1,109000,109000.0,109000,109000,109000",
	NULL
};

static const char *const host_stage_stats[] = {
	"grp,stage,ord,label,mean_ns,share,avg_qd,bar",
	/* grp 1: n 3, e2e mean 77300, rate 1e11/33 = 3030.30. mean = sum/3, share =
	 * mean/77300, qd = rate*mean/1e9, bar = round(24*share).
	 * host_block = blk_sub 900 + blk_cpl 4000 = 4900: 1633.33, 0.02113, 0.0049495, 0.507->1 */
	"1,host_block,1,host block layer,1633.33333333,0.0211297973264,0.00494949494949,1",
	/* host_driver = drv_sub 8000 + drv_cpl 4500 + handoff 1500 = 14000: 1.449 -> 1 */
	"1,host_driver,2,host driver,4666.66666667,0.0603708495041,0.0141414141414,1",
	/* host_rx = rx_path 3000: 1000, 1000/77300, 3030.30*1000/1e9, 0.31 -> 0 */
	"1,host_rx,3,host receive path,1000.0,0.012936610608,0.0030303030303,0",
	/* net_target = h_wait 210000: 70000, 0.90556, 3030.30*70000/1e9 = 0.2121, 21.73 -> 22 */
	"1,net_target,4,network and target (not recorded),70000.0,0.905562742561,0.212121212121,22",
	/* grp 2: n 1, e2e 147000, rate 2.0 (qd = 2*sum/1e9).
	 * host_block 1000+2500 = 3500: 3500/147000 = 0.0238, 7e-6, 0.571 -> 1 */
	"2,host_block,1,host block layer,3500.0,0.0238095238095,7e-06,1",
	/* host_driver 4000+6000(r2t)+1000+500 = 11500: 0.0782, 2.3e-5, 1.878 -> 2 */
	"2,host_driver,2,host driver,11500.0,0.078231292517,2.3e-05,2",
	"2,host_rx,3,host receive path,2000.0,0.0136054421769,4e-06,0",
	/* 130000/147000 = 0.8844, 24*0.8844 = 21.22 -> 21 */
	"2,net_target,4,network and target (not recorded),130000.0,0.884353741497,0.00026,21",
	/* grp 3: n 1, e2e 109000, rate 500 (qd = 500*sum/1e9).
	 * host_block 500+2000 = 2500: 0.02294, 0.00125, 0.55 -> 1 */
	"3,host_block,1,host block layer,2500.0,0.0229357798165,0.00125,1",
	/* host_driver 3000+1000+500 = 4500: 0.04128, 0.00225, 0.99 -> 1 */
	"3,host_driver,2,host driver,4500.0,0.0412844036697,0.00225,1",
	"3,host_rx,3,host receive path,2000.0,0.0183486238532,0.001,0",
	/* 100000/109000 = 0.91743, 22.02 -> 22 */
	"3,net_target,4,network and target (not recorded),100000.0,0.917431192661,0.05,22",
	NULL
};

static const char *const host_throughput[] = {
	"op,iops,bytes_per_s,exact",
	/* the flush group: 2.5/s, no data */
	"flush,2.5,0.0,1",
	/* 3030.30 + 500; 3030.30*4096 + 500*8192 = 12412121.2 + 4096000 */
	"read,3530.3030303,16508121.2121,1",
	/* 2.0; 2*16384 */
	"write,2.0,32768.0,0",
	NULL
};

static const char *const host_timeline[] = {
	"interval,start,stop,grp,sampled,total,rate,lost,mean_ns",
	/* [0,1s): H1, H3 (mean (89000+74000)/2), H2 not counted: 1 sampled * 4 / 1 s */
	"1,0,1000000000,1,2,2000,2000.0,0,81500.0",
	"1,0,1000000000,2,1,NULL,4.0,0,147000.0",
	/* [1s,2s): H4, H5, flush counted but never sampled (mean NULL) */
	"2,1000000000,2000000000,1,1,3000,3000.0,3,68900.0",
	"2,1000000000,2000000000,3,1,1000,1000.0,3,109000.0",
	"2,1000000000,2000000000,4,0,5,5.0,3,NULL",
	NULL
};

/* ---- target database, per-machine views --------------------------------- */

static const char *const target_cmd_point[] = {
	"t,grp,t_rx,t_cmd,t_r2t,t_data_rx,t_exec,t_stor,t_resp,t_sent,t_free",
	"100015700,1,5000100015700,5000100016700,NULL,NULL,5000100018700,5000100068700,"
	"5000100069700,5000100070700,NULL",
	"200023300,2,5000200023300,5000200024300,5000200026300,5000200056300,5000200059300,"
	"5000200119300,5000200120300,5000200121300,NULL",
	"300015400,1,5000300015400,5000300016400,NULL,NULL,5000300017400,5000300057400,"
	"5000300058400,5000300059400,5000300059900",
	"1200015400,1,5001200015400,5001200015900,NULL,NULL,5001200016900,5001200046900,NULL,"
	"5001200048400,NULL",
	"2200000000,3,5002200000000,5002200001000,NULL,NULL,5002200002000,5002200042000,"
	"5002200043000,5002200044000,NULL",
	NULL
};

static const char *const target_cmd_span[] = {
	"t,grp,qid,cid,slba,rx_ns,t_rx_path,t_drv_sub,t_data_wait,t_storage,t_drv_cpl,t_e2e",
	/* T1: rx_path 1000, drv_sub 3000-1000 = 2000, storage 50000, drv_cpl 55000-53000 */
	"100015700,1,1,5,800,5000100015700,1000,2000,NULL,50000,2000,55000",
	/* T2: drv_sub = r2t (3000-1000) + exec (36000-33000) = 5000; data_wait 30000 */
	"200023300,2,1,6,1600,5000200023300,1000,5000,30000,60000,2000,98000",
	/* T3: t_free (44500) is in no component */
	"300015400,1,1,5,800,5000300015400,1000,1000,NULL,40000,2000,44000",
	/* T4: t_resp missing: drv_cpl = 33000-31500 = 1500 */
	"1200015400,1,2,1,3200,5001200015400,500,1000,NULL,30000,1500,33000",
	"2200000000,3,2,2,2400,5002200000000,1000,1000,NULL,40000,2000,44000",
	NULL
};

static const char *const target_cmd_component[] = {
	"t,grp,component,ns",
	"100015700,1,t_rx_path,1000", "100015700,1,t_drv_sub,2000",
	"100015700,1,t_data_wait,NULL", "100015700,1,t_storage,50000",
	"100015700,1,t_drv_cpl,2000", "100015700,1,t_e2e,55000",
	"200023300,2,t_rx_path,1000", "200023300,2,t_drv_sub,5000",
	"200023300,2,t_data_wait,30000", "200023300,2,t_storage,60000",
	"200023300,2,t_drv_cpl,2000", "200023300,2,t_e2e,98000",
	"300015400,1,t_rx_path,1000", "300015400,1,t_drv_sub,1000",
	"300015400,1,t_data_wait,NULL", "300015400,1,t_storage,40000",
	"300015400,1,t_drv_cpl,2000", "300015400,1,t_e2e,44000",
	"1200015400,1,t_rx_path,500", "1200015400,1,t_drv_sub,1000",
	"1200015400,1,t_data_wait,NULL", "1200015400,1,t_storage,30000",
	"1200015400,1,t_drv_cpl,1500", "1200015400,1,t_e2e,33000",
	"2200000000,3,t_rx_path,1000", "2200000000,3,t_drv_sub,1000",
	"2200000000,3,t_data_wait,NULL", "2200000000,3,t_storage,40000",
	"2200000000,3,t_drv_cpl,2000", "2200000000,3,t_e2e,44000",
	NULL
};

static const char *const target_cmd_e2e[] = {
	"t,grp,ns",
	"100015700,1,55000", "200023300,2,98000", "300015400,1,44000", "1200015400,1,33000",
	"2200000000,3,44000",
	NULL
};

static const char *const target_grp_info[] = {
	"grp,queue,op,bytes,device,nqn,cntlid,nsid,admin,opcode,fctype,nlb,name",
	"1,io,read,4096,nvme0n1," NQN ",1,1,0,2,0,7,read 4KiB nvme0n1",
	"2,io,write,16384,nvme0n1," NQN ",1,1,0,1,0,31,write 16KiB nvme0n1",
	"3,io,read,8192,nvme0n1," NQN ",1,1,0,2,0,15,read 8KiB nvme0n1",
	NULL
};

static const char *const target_lost_by_cause[] = {
	"cause,description,n",
	NULL
};

static const char *const target_gap_by_cause[] = {
	"point,cause,description,n",
	"t_resp,not_recorded,not recorded by the driver's hooks,1",  /* T4 */
	NULL
};

/* kernel TCP target: no t_free */
static const char *const target_point_missing[] = {
	"point,cmds,missing",
	"t_rx,5,0", "t_cmd,5,0", "t_r2t,5,0", "t_data_rx,5,0", "t_exec,5,0", "t_stor,5,0",
	"t_resp,5,1", "t_sent,5,0",
	NULL
};

static const char *const target_recording[] = {
	"role,driver,transport,hostname,kernel,sample_rate,duration_ns,records,lost,gaps,complete",
	"target,kernel,tcp,fixture-target,6.1.0-test,4,2500000000,5,0,1,1",
	NULL
};

static const char *const target_grp_rate[] = {
	"grp,sampled,total,exact,active_ns,rate",
	/* T1 T3 T4 at t 100015700, 300015400, 1200015400: active 1099999700 * 3/2;
	 * 2000+3500 counted: 1e9*5500/1649999550 */
	"1,3,5500,1,1649999550.0,3333.33424242",
	"2,1,1000,1,2500000000,400.0", /* one sample: the whole 2.5 s; 1e9*1000/2.5e9 */
	"3,1,NULL,0,2500000000,1.6",   /* not counted: 1e9*(1*4)/2.5e9 */
	NULL
};

static const char *const target_component_stats[] = {
	"grp,component,n,sum_ns,mean_ns,p50_ns,p99_ns,p999_ns",
	/* grp 1 = T1, T3, T4 (ranks 2, 3, 3 as for the host); no t_data_wait row */
	"1,t_rx_path,3,2500,833.333333333,1000,1000,1000",  /* 1000,1000,500 */
	"1,t_drv_sub,3,4000,1333.33333333,1000,2000,2000",  /* 2000,1000,1000 */
	"1,t_storage,3,120000,40000.0,40000,50000,50000",   /* 50000,40000,30000 */
	"1,t_drv_cpl,3,5500,1833.33333333,2000,2000,2000",  /* 2000,2000,1500 */
	"1,t_e2e,3,132000,44000.0,44000,55000,55000",       /* 55000,44000,33000 */
	"2,t_rx_path,1,1000,1000.0,1000,1000,1000",
	"2,t_drv_sub,1,5000,5000.0,5000,5000,5000",
	"2,t_data_wait,1,30000,30000.0,30000,30000,30000",
	"2,t_storage,1,60000,60000.0,60000,60000,60000",
	"2,t_drv_cpl,1,2000,2000.0,2000,2000,2000",
	"2,t_e2e,1,98000,98000.0,98000,98000,98000",
	"3,t_rx_path,1,1000,1000.0,1000,1000,1000",
	"3,t_drv_sub,1,1000,1000.0,1000,1000,1000",
	"3,t_storage,1,40000,40000.0,40000,40000,40000",
	"3,t_drv_cpl,1,2000,2000.0,2000,2000,2000",
	"3,t_e2e,1,44000,44000.0,44000,44000,44000",
	NULL
};

static const char *const target_stage_stats[] = {
	"grp,stage,ord,label,mean_ns,share,avg_qd,bar",
	/* grp 1: n 3, t_e2e mean 44000, rate 3333.334.
	 * target_rx 2500: 833.33, /44000 = 0.018939, 3333.334*2500/3/1e9, 0.45 -> 0 */
	"1,target_rx,6,target receive path,833.333333333,0.0189393939394,0.00277777853535,0",
	/* target_driver = drv_sub 4000 + drv_cpl 5500 = 9500: 1.727 -> 2 */
	"1,target_driver,7,target driver,3166.66666667,0.0719696969697,0.0105555584343,2",
	/* storage 120000: 40000, 10/11, 3333.334*40000/1e9 = 0.1333, 21.8 -> 22 */
	"1,storage,9,storage (target block layer and drive),40000.0,0.909090909091,0.133333369697,22",
	/* grp 2: n 1, mean 98000, rate 400 (qd = 400*sum/1e9) */
	"2,target_rx,6,target receive path,1000.0,0.0102040816327,0.0004,0",
	"2,target_driver,7,target driver,7000.0,0.0714285714286,0.0028,2", /* 5000+2000; 1.71 */
	/* 30000/98000 = 0.306, 7.35 -> 7 */
	"2,data_wait,8,waiting for write data (network and host),30000.0,0.30612244898,0.012,7",
	/* 60000/98000 = 0.612, 14.69 -> 15 */
	"2,storage,9,storage (target block layer and drive),60000.0,0.612244897959,0.024,15",
	/* grp 3: n 1, mean 44000, rate 1.6 (qd = 1.6*sum/1e9) */
	"3,target_rx,6,target receive path,1000.0,0.0227272727273,1.6e-06,1",  /* 0.545 -> 1 */
	"3,target_driver,7,target driver,3000.0,0.0681818181818,4.8e-06,2",   /* 1000+2000 */
	"3,storage,9,storage (target block layer and drive),40000.0,0.909090909091,6.4e-05,22",
	NULL
};

static const char *const target_throughput[] = {
	"op,iops,bytes_per_s,exact",
	/* 3333.334 + 1.6; 3333.334*4096 + 1.6*8192 = 13653337.1 + 13107.2; min(1, 0) */
	"read,3334.93424242,13666444.257,0",
	"write,400.0,6553600.0,1", /* 400*16384 */
	NULL
};

static const char *const target_timeline[] = {
	"interval,start,stop,grp,sampled,total,rate,lost,mean_ns",
	"1,0,1000000000,1,2,2000,2000.0,0,49500.0",  /* T1 T3: (55000+44000)/2 */
	"1,0,1000000000,2,1,1000,1000.0,0,98000.0",
	/* 1.5 s long: 1e9*3500/1.5e9; grp 3 not counted: 1e9*(1*4)/1.5e9 */
	"2,1000000000,2500000000,1,1,3500,2333.33333333,0,33000.0",
	"2,1000000000,2500000000,3,1,NULL,2.66666666667,0,44000.0",
	NULL
};

struct view_case {
	const char *name;
	const char *order; /* ORDER BY: the view's key columns */
	const char *const *rows;
};

static void check_views(sqlite3 *db, const char *where, const struct view_case *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char what[128];
		char *sql = sqlite3_mprintf("SELECT * FROM %s AS v ORDER BY %s", v[i].name,
					    v[i].order);

		snprintf(what, sizeof(what), "%s: %s", where, v[i].name);
		check_rows(db, what, sql, v[i].rows);
		sqlite3_free(sql);
	}
}

static void check_machine(const char *path, const struct view_case *v, size_t n)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	failures = 0;
	check_views(db, path, v, n);
	sqlite3_close(db);
	if (failures)
		fail_msg("%d view(s) differ from the expected rows", failures);
}

static void test_host_views(void **state)
{
	static const struct view_case v[] = {
		{ "ntp_cmd_point", "t", host_cmd_point },
		{ "ntp_cmd_span", "t", host_cmd_span },
		{ "ntp_cmd_component", "t, " CORD("v.component"), host_cmd_component },
		{ "ntp_cmd_e2e", "t", host_cmd_e2e },
		{ "ntp_grp_info", "grp", host_grp_info },
		{ "ntp_recording", "role", host_recording },
		{ "ntp_grp_rate", "grp", host_grp_rate },
		{ "ntp_component_stats", "grp, " CORD("v.component"), host_component_stats },
		{ "ntp_stage_stats", "grp, ord", host_stage_stats },
		{ "ntp_throughput", "op", host_throughput },
		{ "ntp_timeline", "interval, grp", host_timeline },
		{ "ntp_lost_by_cause", "cause", host_lost_by_cause },
		{ "ntp_gap_by_cause", PORD("v.point") ", v.cause", host_gap_by_cause },
		{ "ntp_point_missing", PORD("v.point"), host_point_missing },
	};

	check_machine(host_path, v, sizeof(v) / sizeof(v[0]));
}

static void test_target_views(void **state)
{
	static const struct view_case v[] = {
		{ "ntp_cmd_point", "t", target_cmd_point },
		{ "ntp_cmd_span", "t", target_cmd_span },
		{ "ntp_cmd_component", "t, " CORD("v.component"), target_cmd_component },
		{ "ntp_cmd_e2e", "t", target_cmd_e2e },
		{ "ntp_grp_info", "grp", target_grp_info },
		{ "ntp_recording", "role", target_recording },
		{ "ntp_grp_rate", "grp", target_grp_rate },
		{ "ntp_component_stats", "grp, " CORD("v.component"), target_component_stats },
		{ "ntp_stage_stats", "grp, ord", target_stage_stats },
		{ "ntp_throughput", "op", target_throughput },
		{ "ntp_timeline", "interval, grp", target_timeline },
		{ "ntp_lost_by_cause", "cause", target_lost_by_cause },
		{ "ntp_gap_by_cause", PORD("v.point") ", v.cause", target_gap_by_cause },
		{ "ntp_point_missing", PORD("v.point"), target_point_missing },
	};

	check_machine(target_path, v, sizeof(v) / sizeof(v[0]));
}

/* ---- session views: host + target --------------------------------------- */

static const char *const s_ntp_db[] = {
	"db,role,driver,transport,hostname,kernel,sample_rate,wall_start,mono_start,"
	"duration_ns,records,lost",
	"host,host,kernel,tcp,fixture-host,6.1.0-test,4,1700000000000000000,1000000000000,"
	"2000000000,5,3",
	"target,target,kernel,tcp,fixture-target,6.1.0-test,4,1700000000002000000,"
	"5000000000000,2500000000,5,0",
	NULL
};

static const char *const s_ntp_grp_all[] = {
	"db,grp,nqn,cntlid,nsid,admin,opcode,fctype,nlb",
	"host,1," NQN ",1,1,0,2,0,7", "host,2," NQN ",1,1,0,1,0,31",
	"host,3," NQN ",1,1,0,2,0,15", "host,4," NQN ",1,1,0,0,0,0",
	"target,1," NQN ",1,1,0,2,0,7", "target,2," NQN ",1,1,0,1,0,31",
	"target,3," NQN ",1,1,0,2,0,15",
	NULL
};

static const char *const s_ntp_host_grp[] = {
	"db,grp,name,queue,op,bytes,sampled,total,exact,rate,device",
	"host,1,read 4KiB nvme1n1,io,read,4096,3,5000,1,3030.3030303,nvme1n1",
	"host,2,write 16KiB nvme1n1,io,write,16384,1,NULL,0,2.0,nvme1n1",
	"host,3,read 8KiB nvme1n1,io,read,8192,1,1000,1,500.0,nvme1n1",
	"host,4,flush nvme1n1,io,flush,NULL,0,5,1,2.5,nvme1n1",
	NULL
};

/*
 * mid = sent_ns + wait_ns/2 + (wall_start - mono_start).
 * Host: wall - mono = 1.7e18 - 1e12 = 1 699 999 000 000 000 000.
 *   H1: 1000100003500 + 40000 = 1000100043500 -> 1700000000100043500
 *   H2: 1000200005000 + 68000 = 1000200073000 -> 1700000000200073000
 *   H3: 1000300002000 + 35000 = 1000300037000 -> 1700000000300037000
 *   H4: 1001200003400 + 30000 = 1001200033400 -> 1700000001200033400
 *   H5: 1001500003500 + 50000 = 1001500053500 -> 1700000001500053500
 */
static const char *const s_ntp_host_cmd[] = {
	"db,t,grp,nqn,cntlid,nsid,opcode,nlb,qid,cid,slba,mid,wait_ns,h_blk_sub,h_drv_sub,"
	"h_r2t,h_wait,h_rx_path,h_drv_cpl,h_blk_cpl,h_handoff,e2e",
	"host,100000000,1," NQN ",1,1,2,7,1,5,800,1700000000100043500,"
	"80000,500,3000,NULL,80000,2000,1000,2000,500,89000",
	"host,200000000,2," NQN ",1,1,1,31,1,6,1600,1700000000200073000,"
	"136000,1000,4000,6000,130000,2000,1000,2500,500,147000",
	"host,300000000,1," NQN ",1,1,2,7,1,5,800,1700000000300037000,"
	"70000,0,2000,NULL,70000,1000,500,0,500,74000",
	"host,1200000000,1," NQN ",1,1,2,7,2,1,3200,1700000001200033400,"
	"60000,400,3000,NULL,60000,0,3000,2000,500,68900",
	"host,1500000000,3," NQN ",1,1,2,15,2,2,2400,1700000001500053500,"
	"100000,500,3000,NULL,100000,2000,1000,2000,500,109000",
	NULL
};

/*
 * mid = rx_ns + t_e2e/2 + (wall_start - mono_start).
 * Target: wall - mono = 1700000000002000000 - 5e12 = 1 699 995 000 002 000 000.
 *   T1: 5000100015700 + 27500 = 5000100043200 -> 1700000000102043200
 *   T2: 5000200023300 + 49000 = 5000200072300 -> 1700000000202072300
 *   T3: 5000300015400 + 22000 = 5000300037400 -> 1700000000302037400
 *   T4: 5001200015400 + 16500 = 5001200031900 -> 1700000001202031900
 *   T6: 5002200000000 + 22000 = 5002200022000 -> 1700000002202022000
 * In true host time the target mids are T_x - 4e12: H1/T1 1000100043500 vs
 * 1000100043200 (+300), H2/T2 ...073000 vs ...072300 (+700), H3/T3 ...037000
 * vs ...037400 (-400), H4/T4 ...033400 vs ...031900 (+1500).
 */
static const char *const s_ntp_target_cmd[] = {
	"db,t,grp,nqn,cntlid,nsid,opcode,nlb,qid,cid,slba,mid,t_rx_path,t_drv_sub,"
	"t_data_wait,t_storage,t_drv_cpl,t_e2e",
	"target,100015700,1," NQN ",1,1,2,7,1,5,800,1700000000102043200,"
	"1000,2000,NULL,50000,2000,55000",
	"target,200023300,2," NQN ",1,1,1,31,1,6,1600,1700000000202072300,"
	"1000,5000,30000,60000,2000,98000",
	"target,300015400,1," NQN ",1,1,2,7,1,5,800,1700000000302037400,"
	"1000,1000,NULL,40000,2000,44000",
	"target,1200015400,1," NQN ",1,1,2,7,2,1,3200,1700000001202031900,"
	"500,1000,NULL,30000,1500,33000",
	"target,2200000000,3," NQN ",1,1,2,15,2,2,2400,1700000002202022000,"
	"1000,1000,NULL,40000,2000,44000",
	NULL
};

/*
 * Fewer than 200 records: every host command is in the sample. Candidates:
 * same identity, |host mid - target mid| <= 5 s (seeded clocks, see the mids
 * above): true pairs = skew - 2 ms (the target wall clock is 2 ms ahead), plus
 * the reused identity (H1/T3, H3/T1, 0.2 s apart) and H5/T6 (0.7 s apart).
 * half_slack: (host wait - target t_e2e) / 2, waits H1 80000, H2 136000,
 * H3 70000, H4 60000, H5 100000; t_e2e T1 55000, T2 98000, T3 44000,
 * T4 33000, T6 44000. ntp_offset's causal ranges (diff +- half_slack of
 * each sample's nearest candidate) do not intersect: H5's only candidate,
 * T6, is not its pair. So the median stands (the true pairs' ranges alone
 * hold it too).
 */
/* hid: the host cmd.t (H1 0.1 s, H2 0.2 s, H3 0.3 s from h_queue, H4 1.2 s,
 * H5 1.5 s); t: the host mid on the seeded clock, as in s_ntp_host_cmd. */
static const char *const s_ntp_pair1[] = {
	"hdb,tdb,nqn,cntlid,hid,t,diff,half_slack",
	/* H5-T6: 1500053500 - 2202022000; (100000 - 44000) / 2 */
	"host,target," NQN ",1,1500000000,1700000001500053500,-701968500,28000",
	/* H1-T3: 100043500 - 302037400; (80000 - 44000) / 2 */
	"host,target," NQN ",1,100000000,1700000000100043500,-201993900,18000",
	/* H3-T3: -400 - 2000000; (70000 - 44000) / 2 */
	"host,target," NQN ",1,300000000,1700000000300037000,-2000400,13000",
	/* H1-T1: +300 - 2000000; (80000 - 55000) / 2 */
	"host,target," NQN ",1,100000000,1700000000100043500,-1999700,12500",
	/* H2-T2: +700 - 2000000; (136000 - 98000) / 2 */
	"host,target," NQN ",1,200000000,1700000000200073000,-1999300,19000",
	/* H4-T4: +1500 - 2000000; (60000 - 33000) / 2 */
	"host,target," NQN ",1,1200000000,1700000001200033400,-1998500,13500",
	/* H3-T1: 300037000 - 102043200; (70000 - 55000) / 2 */
	"host,target," NQN ",1,300000000,1700000000300037000,197993800,7500",
	NULL
};

/*
 * Buckets diff/2000 (SQLite truncates toward 0): -1999700, -1999300, -1998500
 * -> -999 (3), -2000400 -> -1000, the false ones far away. Mode -999; window
 * -1998000 +- 20000 = [-2018000, -1978000] holds the 4 true pairs; median
 * rank (4+1)/2 = 2 of [-2000400, -1999700, -1999300, -1998500] = -1999700.
 */
/* Drift: the 4 true pairs over 1.1 s lean by ~1.4 ns per ms (-2000400 at
 * 0.3 s ... -1998500 at 1.2 s), which moves the ends of the 1.4 s sampled
 * span by ~1 us, under the 10 us that makes a drift worth using: 0.
 * Window: the unambiguous candidates (one each) are H2 -1999300, H4 -1998500
 * and H5 -701968500, off the offset by 400, 1200 and 699968800; their median
 * 1200, ten times 12000, is under the 100 us floor. */
static const char *const s_ntp_offset[] = {
	"hdb,tdb,pairs,offset_ns,drift,window_ns",
	"host,target,4,-1999700,0,100000",
	NULL
};

/*
 * mono_off = (H_WALL - H_MONO) - (T_WALL - T_MONO) - offset
 *          = 1699999000000000000 - 1699995000002000000 + 1999700
 *          = 3999998000000 + 1999700 = 3999999999700 (true 4e12, less 300)
 * mono_shift = mono_off - T_MONO = -1000000000300. The flush group has no
 * target group: no row.
 */
static const char *const s_ntp_grp_pair[] = {
	"hdb,hgrp,tdb,tgrp,mono_off,mono_shift,drift_ppb,host_mono,window_ns",
	"host,1,target,1,3999999999700,-1000000000300,0,1000000000000,100000",
	"host,2,target,2,3999999999700,-1000000000300,0,1000000000000,100000",
	"host,3,target,3,3999999999700,-1000000000300,0,1000000000000,100000",
	NULL
};

/*
 * skew_ns = (target rx_ns + t_e2e/2 - mono_off) - host mid(mono) = 300 - skew:
 *   H1: 5000100043200 - 3999999999700 = 1000100043500 - 1000100043500 = 0
 *   H2: 5000200072300 - mono_off = 1000200072600 - 1000200073000 = -400
 *   H3: 5000300037400 - mono_off = 1000300037700 - 1000300037000 = 700
 *   H4: 5001200031900 - mono_off = 1001200032200 - 1001200033400 = -1200
 * wire = h_wait - (t_e2e - t_data_wait):
 *   H1 80000-55000 = 25000; H2 130000-(98000-30000) = 62000;
 *   H3 70000-44000 = 26000; H4 60000-33000 = 27000.
 * Range seeks: H1 sent+shift = 1000100003500-1000000000300 = 100003200, window
 * [99953200, 100133200] holds T1 (100015700) not T3. H5: [1499953200,
 * 1500153200], T6 (2200000000) is outside: H5 stays unmatched.
 * Check: the joined components add up to e2e (H2: 1000+4000+6000+62000+1000+
 * 5000+60000+2000+2000+1000+2500+500 = 147000).
 */
static const char *const s_ntp_joined[] = {
	"hdb,ht,tdb,tt,grp,skew_ns,h_blk_sub,h_drv_sub,h_r2t,wire,t_rx_path,t_drv_sub,"
	"t_storage,t_drv_cpl,h_rx_path,h_drv_cpl,h_blk_cpl,h_handoff,e2e",
	"host,100000000,target,100015700,1,0,500,3000,NULL,25000,1000,2000,50000,2000,"
	"2000,1000,2000,500,89000",
	"host,200000000,target,200023300,2,-400,1000,4000,6000,62000,1000,5000,60000,2000,"
	"2000,1000,2500,500,147000",
	"host,300000000,target,300015400,1,700,0,2000,NULL,26000,1000,1000,40000,2000,"
	"1000,500,0,500,74000",
	"host,1200000000,target,1200015400,1,-1200,400,3000,NULL,27000,500,1000,30000,1500,"
	"0,3000,2000,500,68900",
	NULL
};

static const char *const s_ntp_match[] = {
	"hdb,ht,tdb,tt,skew_ns",
	"host,100000000,target,100015700,0",
	"host,200000000,target,200023300,-400",
	"host,300000000,target,300015400,700",
	"host,1200000000,target,1200015400,-1200",
	NULL
};

static const char *const s_ntp_match_stats[] = {
	"hdb,host_records,target_records,matched,matched_pct",
	"host,5,5,4,80.0", /* 100.0*4/5 */
	NULL
};

/* H5's group pairs with the target's read 8KiB group, but its identity's
 * only target record (T6) is 0.7 s away, far outside the 100 us window. */
static const char *const s_ntp_unmatched[] = {
	"hdb,ht,grp,reason",
	"host,1500000000,3,no_target",
	NULL
};

static const char *const s_ntp_report_unmatched[] = {
	"reason,n,label",
	"no_target,1,without a target record in time",
	NULL
};

static const char *const s_ntp_group_matched[] = {
	"hdb,grp,matched,tdb,tdb_n",
	"host,1,3,target,3", "host,2,1,target,1",
	NULL
};

/*
 * Lost records per group (ntp_grp_lost): the host lost 3 in its second
 * interval, whose counted commands are read 4KiB 3000, read 8KiB 1000 and
 * flush 5 (4005): 3 x 3000 / 4005 = 2.24719101124, 3 x 1000 / 4005 =
 * 0.749063670412, 3 x 5 / 4005 = 0.00374531835206; write 16KiB had none
 * in that interval. Stored: the intervals' sampled counts. The target lost
 * none.
 */
static const char *const s_ntp_grp_lost[] = {
	"db,grp,stored,lost",
	"host,1,3,2.24719101124", "host,2,1,0.0", "host,3,1,0.749063670412",
	"host,4,0,0.00374531835206",
	"target,1,3,0.0", "target,2,1,0.0", "target,3,1,0.0",
	NULL
};

/*
 * The join check: the offset's mapping a = (H_WALL - T_WALL) - offset =
 * -2000000 + 1999700 = -300, so host cmd.t x is target cmd.t x - 300 and
 * the target's 2.5 s hold host cmd.t 300 to 2500000300: all 5 host
 * commands (one controller, NQN and cntlid 1, on both). Kept 5 / 5; 4
 * matched: 80 % (over 50). Pairs 4, needed min(10, 5 / 2 = 2). Skews (all 4
 * sampled: 4 / 200 rounds to 0, max 1): -1200, -400, 0, 700, median (rank
 * 2) -400; deviations 0, 400, 800, 1100, median 400; 4 x 400 is under the
 * 100 us window. Joined.
 */
static const char *const s_ntp_join_check[] = {
	"hdb,tdb,host_records,eligible,kept,matched,share_pct,pairs,window_ns,skew_mad_ns,"
	"verdict,reason,message",
	"host,target,5,5,1.0,4,80.0,4,100000,400,joined,NULL,NULL",
	NULL
};

static const char *const s_ntp_join_ok[] = {
	"hdb,tdb",
	"host,target",
	NULL
};

/* Rates: read 4KiB and read 8KiB counted (exact), write 16KiB lost none:
 * as the host's ntp_grp_rate. lost_pct = 100 lost / (sampled + lost):
 * 224.719 / 5.24719 = 42.8265524625, 74.906 / 1.74906 the same; the target
 * lost nothing (0.0; NULL for the host group). Over 1 %: host_lost. */
static const char *const s_ntp_report_group[] = {
	"hdb,grp,name,queue,op,bytes,sampled,rate,exact,matched,mode,host_driver,transport,"
	"target_driver,lost,lost_pct,target_lost_pct,unreliable",
	"host,1,read 4KiB nvme1n1,io,read,4096,3,3030.3030303,1,3,joined,kernel,tcp,kernel,"
	"2.24719101124,42.8265524625,0.0,host_lost",
	"host,2,write 16KiB nvme1n1,io,write,16384,1,2.0,0,1,joined,kernel,tcp,kernel,0.0,0.0,"
	"0.0,NULL",
	"host,3,read 8KiB nvme1n1,io,read,8192,1,500.0,1,0,host,kernel,tcp,kernel,"
	"0.749063670412,42.8265524625,NULL,host_lost",
	NULL
};

/* about %.0f of %.0f: 2.247 of 5.247, 0.749 of 1.749; 42.8 by %.3g */
static const char *const s_ntp_report_warning[] = {
	"level,hdb,tdb,grp,reason,message",
	"group,host,NULL,1,host_lost,\"about 2 of 5 sampled commands lost while recording "
	"(42.8 %, over 1 %): the rate counts them, the latency and stages rest on the 3 "
	"stored\"",
	"group,host,NULL,3,host_lost,\"about 1 of 2 sampled commands lost while recording "
	"(42.8 %, over 1 %): the rate counts them, the latency and stages rest on the 1 "
	"stored\"",
	NULL
};

static const char *const s_ntp_report_value[] = {
	"hdb,grp,component,ns",
	/* grp 1, joined: H1/T1, H3/T3, H4/T4 (sorted by ns within a component) */
	"host,1,h_blk_sub,0", "host,1,h_blk_sub,400", "host,1,h_blk_sub,500",
	"host,1,h_drv_sub,2000", "host,1,h_drv_sub,3000", "host,1,h_drv_sub,3000",
	"host,1,h_r2t,NULL", "host,1,h_r2t,NULL", "host,1,h_r2t,NULL",
	"host,1,wire,25000", "host,1,wire,26000", "host,1,wire,27000",
	"host,1,t_rx_path,500", "host,1,t_rx_path,1000", "host,1,t_rx_path,1000",
	"host,1,t_drv_sub,1000", "host,1,t_drv_sub,1000", "host,1,t_drv_sub,2000",
	"host,1,t_storage,30000", "host,1,t_storage,40000", "host,1,t_storage,50000",
	"host,1,t_drv_cpl,1500", "host,1,t_drv_cpl,2000", "host,1,t_drv_cpl,2000",
	"host,1,h_rx_path,0", "host,1,h_rx_path,1000", "host,1,h_rx_path,2000",
	"host,1,h_drv_cpl,500", "host,1,h_drv_cpl,1000", "host,1,h_drv_cpl,3000",
	"host,1,h_blk_cpl,0", "host,1,h_blk_cpl,2000", "host,1,h_blk_cpl,2000",
	"host,1,h_handoff,500", "host,1,h_handoff,500", "host,1,h_handoff,500",
	"host,1,e2e,68900", "host,1,e2e,74000", "host,1,e2e,89000",
	/* grp 2, joined: H2/T2 */
	"host,2,h_blk_sub,1000", "host,2,h_drv_sub,4000", "host,2,h_r2t,6000",
	"host,2,wire,62000", "host,2,t_rx_path,1000", "host,2,t_drv_sub,5000",
	"host,2,t_storage,60000", "host,2,t_drv_cpl,2000", "host,2,h_rx_path,2000",
	"host,2,h_drv_cpl,1000", "host,2,h_blk_cpl,2500", "host,2,h_handoff,500",
	"host,2,e2e,147000",
	/* grp 3, host only: none; its statistics are the host's own
	 * (ntp_component_stats) */
	NULL
};

static const char *const s_ntp_report_component[] = {
	"hdb,grp,component,n,sum_ns,mean_ns,p50_ns,p99_ns,p999_ns",
	/* grp 1 over the 3 matched commands; ranks 2, 3, 3 of the sorted values
	 * in _ntp_report_value; h_r2t all NULL: no row */
	"host,1,h_blk_sub,3,900,300.0,400,500,500",
	"host,1,h_drv_sub,3,8000,2666.66666667,3000,3000,3000",
	"host,1,wire,3,78000,26000.0,26000,27000,27000",
	"host,1,t_rx_path,3,2500,833.333333333,1000,1000,1000",
	"host,1,t_drv_sub,3,4000,1333.33333333,1000,2000,2000",
	"host,1,t_storage,3,120000,40000.0,40000,50000,50000",
	"host,1,t_drv_cpl,3,5500,1833.33333333,2000,2000,2000",
	"host,1,h_rx_path,3,3000,1000.0,1000,2000,2000",
	"host,1,h_drv_cpl,3,4500,1500.0,1000,3000,3000",
	"host,1,h_blk_cpl,3,4000,1333.33333333,2000,2000,2000",
	"host,1,h_handoff,3,1500,500.0,500,500,500",
	"host,1,e2e,3,231900,77300.0,74000,89000,89000",
	"host,2,h_blk_sub,1,1000,1000.0,1000,1000,1000",
	"host,2,h_drv_sub,1,4000,4000.0,4000,4000,4000",
	"host,2,h_r2t,1,6000,6000.0,6000,6000,6000",
	"host,2,wire,1,62000,62000.0,62000,62000,62000",
	"host,2,t_rx_path,1,1000,1000.0,1000,1000,1000",
	"host,2,t_drv_sub,1,5000,5000.0,5000,5000,5000",
	"host,2,t_storage,1,60000,60000.0,60000,60000,60000",
	"host,2,t_drv_cpl,1,2000,2000.0,2000,2000,2000",
	"host,2,h_rx_path,1,2000,2000.0,2000,2000,2000",
	"host,2,h_drv_cpl,1,1000,1000.0,1000,1000,1000",
	"host,2,h_blk_cpl,1,2500,2500.0,2500,2500,2500",
	"host,2,h_handoff,1,500,500.0,500,500,500",
	"host,2,e2e,1,147000,147000.0,147000,147000,147000",
	"host,3,h_blk_sub,1,500,500.0,500,500,500",
	"host,3,h_drv_sub,1,3000,3000.0,3000,3000,3000",
	"host,3,h_wait,1,100000,100000.0,100000,100000,100000",
	"host,3,h_rx_path,1,2000,2000.0,2000,2000,2000",
	"host,3,h_drv_cpl,1,1000,1000.0,1000,1000,1000",
	"host,3,h_blk_cpl,1,2000,2000.0,2000,2000,2000",
	"host,3,h_handoff,1,500,500.0,500,500,500",
	"host,3,e2e,1,109000,109000.0,109000,109000,109000",
	NULL
};

static const char *const s_ntp_report_components[] = {
	"hdb,grp,ord,component,label,n,mean_ns,l,p50_ns,p99_ns,p999_ns",
	/* l = rate * sum / commands / 1e9. grp 1: (1e11/33) * sum / 3 / 1e9 */
	"host,1,1,h_blk_sub,\"host block layer, submission\",3,300.0,0.000909090909091,400,500,500",
	"host,1,2,h_drv_sub,\"host driver, submission\",3,2666.66666667,0.00808080808081,"
	"3000,3000,3000",
	"host,1,5,wire,network: wire and NICs (computed),3,26000.0,0.0787878787879,26000,27000,27000",
	"host,1,6,t_rx_path,network: target receive path,3,833.333333333,0.00252525252525,"
	"1000,1000,1000",
	"host,1,7,t_drv_sub,\"target driver, submission\",3,1333.33333333,0.0040404040404,"
	"1000,2000,2000",
	"host,1,9,t_storage,storage: target block layer and drive,3,40000.0,0.121212121212,"
	"40000,50000,50000",
	"host,1,10,t_drv_cpl,\"target driver, completion\",3,1833.33333333,0.00555555555556,"
	"2000,2000,2000",
	"host,1,11,h_rx_path,network: host receive path,3,1000.0,0.0030303030303,1000,2000,2000",
	"host,1,12,h_drv_cpl,\"host driver, completion\",3,1500.0,0.00454545454545,1000,3000,3000",
	"host,1,13,h_blk_cpl,\"host block layer, completion\",3,1333.33333333,0.0040404040404,"
	"2000,2000,2000",
	"host,1,14,h_handoff,handoff to nvme_complete_rq,3,500.0,0.00151515151515,500,500,500",
	"host,1,15,e2e,end to end,3,77300.0,0.234242424242,74000,89000,89000", /* (1e11/33)*231900/3/1e9 */
	/* grp 2: 2.0 * value / 1e9 */
	"host,2,1,h_blk_sub,\"host block layer, submission\",1,1000.0,2e-06,1000,1000,1000",
	"host,2,2,h_drv_sub,\"host driver, submission\",1,4000.0,8e-06,4000,4000,4000",
	"host,2,3,h_r2t,\"host driver, write data (R2T to H2C)\",1,6000.0,1.2e-05,"
	"6000,6000,6000",
	"host,2,5,wire,network: wire and NICs (computed),1,62000.0,0.000124,62000,62000,62000",
	"host,2,6,t_rx_path,network: target receive path,1,1000.0,2e-06,1000,1000,1000",
	"host,2,7,t_drv_sub,\"target driver, submission\",1,5000.0,1e-05,5000,5000,5000",
	"host,2,9,t_storage,storage: target block layer and drive,1,60000.0,0.00012,"
	"60000,60000,60000",
	"host,2,10,t_drv_cpl,\"target driver, completion\",1,2000.0,4e-06,2000,2000,2000",
	"host,2,11,h_rx_path,network: host receive path,1,2000.0,4e-06,2000,2000,2000",
	"host,2,12,h_drv_cpl,\"host driver, completion\",1,1000.0,2e-06,1000,1000,1000",
	"host,2,13,h_blk_cpl,\"host block layer, completion\",1,2500.0,5e-06,2500,2500,2500",
	"host,2,14,h_handoff,handoff to nvme_complete_rq,1,500.0,1e-06,500,500,500",
	"host,2,15,e2e,end to end,1,147000.0,0.000294,147000,147000,147000",
	/* grp 3, host mode (host components with a local stage, and e2e): 500 * v / 1e9 */
	"host,3,1,h_blk_sub,\"host block layer, submission\",1,500.0,0.00025,500,500,500",
	"host,3,2,h_drv_sub,\"host driver, submission\",1,3000.0,0.0015,3000,3000,3000",
	"host,3,4,h_wait,network and target (not recorded),1,100000.0,0.05,"
	"100000,100000,100000",
	"host,3,11,h_rx_path,network: host receive path,1,2000.0,0.001,2000,2000,2000",
	"host,3,12,h_drv_cpl,\"host driver, completion\",1,1000.0,0.0005,1000,1000,1000",
	"host,3,13,h_blk_cpl,\"host block layer, completion\",1,2000.0,0.001,2000,2000,2000",
	"host,3,14,h_handoff,handoff to nvme_complete_rq,1,500.0,0.00025,500,500,500",
	"host,3,15,e2e,end to end,1,109000.0,0.0545,109000,109000,109000",
	NULL
};

static const char *const s_ntp_report_stage[] = {
	"hdb,grp,ord,stage,label,mean_ns,share,avg_qd,bar",
	/* grp 1, joined: 3 commands, e2e mean 77300, rate 1e11/33 = 3030.30.
	 * host_block 900+4000 = 4900 (as in the host's ntp_stage_stats) */
	"host,1,1,host_block,host block layer,1633.33333333,0.0211297973264,0.00494949494949,1",
	/* host_driver 8000+4500+1500 = 14000 */
	"host,1,2,host_driver,host driver,4666.66666667,0.0603708495041,0.0141414141414,1",
	/* network = wire 78000 + t_rx_path 2500 + h_rx_path 3000 = 83500: 27833.33,
	 * /77300 = 0.36007, 3030.30*83500/3/1e9 = 0.084343, 8.64 -> 9 */
	"host,1,5,network,\"network (TCP/IP, NICs, wire)\",27833.3333333,0.360068995257,"
	"0.0843434343434,9",
	/* target_driver 4000+5500 = 9500: 3166.67, 0.040966, 0.0079167, 0.98 -> 1 */
	"host,1,7,target_driver,target driver,3166.66666667,0.0409659335921,0.00959595959596,1",
	/* storage 120000: 40000, 40000/77300 = 0.51746, 0.1, 12.42 -> 12 */
	"host,1,9,storage,storage (target block layer and drive),40000.0,0.517464424321,0.121212121212,12",
	/* grp 2, joined: 1 command, e2e 147000, rate 2.0 (qd = 2*sum/1e9) */
	"host,2,1,host_block,host block layer,3500.0,0.0238095238095,7e-06,1",
	"host,2,2,host_driver,host driver,11500.0,0.078231292517,2.3e-05,2",
	/* 62000+1000+2000 = 65000: 0.44218, 10.6 -> 11 */
	"host,2,5,network,\"network (TCP/IP, NICs, wire)\",65000.0,0.442176870748,0.00013,11",
	/* 5000+2000 = 7000: 1/21 = 0.047619, 1.14 -> 1 */
	"host,2,7,target_driver,target driver,7000.0,0.047619047619,1.4e-05,1",
	/* 60000/147000 = 0.40816, 9.8 -> 10 */
	"host,2,9,storage,storage (target block layer and drive),60000.0,0.408163265306,"
	"0.00012,10",
	/* grp 3, host mode: as the host's ntp_stage_stats for grp 3 */
	"host,3,1,host_block,host block layer,2500.0,0.0229357798165,0.00125,1",
	"host,3,2,host_driver,host driver,4500.0,0.0412844036697,0.00225,1",
	"host,3,3,host_rx,host receive path,2000.0,0.0183486238532,0.001,0",
	"host,3,4,net_target,network and target (not recorded),100000.0,0.917431192661,0.05,22",
	NULL
};

static const char *const s_ntp_report_largest[] = {
	"hdb,grp,stage,label,share",
	"host,1,storage,storage (target block layer and drive),0.517464424321",
	"host,2,network,\"network (TCP/IP, NICs, wire)\",0.442176870748",
	"host,3,net_target,network and target (not recorded),0.917431192661",
	NULL
};

static const char *const s_ntp_report_throughput[] = {
	"op,iops,bytes_per_s,exact",
	"flush,2.5,0.0,1",          /* counted, never sampled: still throughput */
	"read,3530.3030303,16508121.2121,1", /* as the host's throughput view */
	"write,2.0,32768.0,0",
	NULL
};

static const struct view_case session_views[] = {
	{ "ntp_db", "db", s_ntp_db },
	{ "_ntp_grp_all", "db, grp", s_ntp_grp_all },
	{ "ntp_host_grp", "db, grp", s_ntp_host_grp },
	{ "ntp_host_cmd", "db, t", s_ntp_host_cmd },
	{ "ntp_target_cmd", "db, t", s_ntp_target_cmd },
	{ "_ntp_pair1", "hdb, tdb, nqn, cntlid, diff", s_ntp_pair1 },
	{ "ntp_offset", "hdb, tdb", s_ntp_offset },
	{ "_ntp_grp_pair", "hdb, hgrp, tdb, tgrp", s_ntp_grp_pair },
	{ "ntp_joined", "hdb, ht, tdb, tt", s_ntp_joined },
	{ "ntp_match", "hdb, ht, tdb, tt", s_ntp_match },
	{ "ntp_match_stats", "hdb", s_ntp_match_stats },
	{ "ntp_grp_lost", "db, grp", s_ntp_grp_lost },
	{ "ntp_join_check", "hdb, tdb", s_ntp_join_check },
	{ "_ntp_join_ok", "hdb, tdb", s_ntp_join_ok },
	{ "ntp_unmatched", "hdb, ht", s_ntp_unmatched },
	{ "ntp_report_unmatched", "reason", s_ntp_report_unmatched },
	{ "_ntp_group_matched", "hdb, grp", s_ntp_group_matched },
	{ "ntp_report_group", "hdb, grp", s_ntp_report_group },
	{ "_ntp_report_value", "hdb, grp, " CORD("v.component") ", ns", s_ntp_report_value },
	{ "ntp_report_component_stats", "hdb, grp, " CORD("v.component"), s_ntp_report_component },
	{ "ntp_report_components", "hdb, grp, ord", s_ntp_report_components },
	{ "ntp_report_stage", "hdb, grp, ord", s_ntp_report_stage },
	{ "ntp_report_largest", "hdb, grp", s_ntp_report_largest },
	{ "ntp_report_throughput", "op", s_ntp_report_throughput },
	{ "ntp_report_warning", "level = 'group', hdb, grp, tdb, reason", s_ntp_report_warning },
};

/* Whether the session's plan caches VIEW (_ntp_view_plan.cache_ord). */
static int cached_view(sqlite3 *db, const char *view)
{
	sqlite3_stmt *st;
	int yes;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT 1 FROM _ntp_view_plan WHERE name = ?1"
					    " AND cache_ord IS NOT NULL", -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, view, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

/* Both flags, before and after ntp_session_prepare (which swaps views for
 * cached tables): the same rows every time. Before, each view is read by
 * its own text, over the views before it that the session caches, each
 * computed once by its own text when it has been checked (as sqlite3 reads
 * them over its cache): SQLite expands every view where it is named, and
 * the report's views name the join check, which expands the join and the
 * clock offset, several times each, so uncached they would take minutes
 * and gigabytes even here, and seconds each to prepare over the join check
 * alone. */
static void test_session_views(void **state)
{
	static const int flags[] = { 0, NTP_OPEN_PORTABLE };
	char *paths[2] = { target_path, host_path }; /* roles come from meta, not order */
	const size_t n = sizeof(session_views) / sizeof(session_views[0]);
	struct ntp_session s;
	char err[1024], where[64];

	failures = 0;
	for (int f = 0; f < 2; f++) {
		if (ntp_session_open(&s, 2, paths, flags[f], err, sizeof(err)))
			fail_msg("open: %s", err);
		assert_int_equal(s.native, flags[f] == 0);
		snprintf(where, sizeof(where), "%s, views", f ? "portable" : "native");
		for (size_t i = 0; i < n; i++) {
			check_views(s.db, where, session_views + i, 1);
			if (cached_view(s.db, session_views[i].name) &&
			    ntp_session_cache(&s, session_views[i].name, err, sizeof(err)))
				fail_msg("cache %s: %s", session_views[i].name, err);
		}
		/* prepared anew: the session caches its views in its own order */
		ntp_session_close(&s);
		if (ntp_session_open(&s, 2, paths, flags[f], err, sizeof(err)))
			fail_msg("open: %s", err);
		if (ntp_session_prepare(&s, err, sizeof(err)))
			fail_msg("prepare: %s", err);
		snprintf(where, sizeof(where), "%s, prepared", f ? "portable" : "native");
		check_views(s.db, where, session_views, n);
		ntp_session_close(&s);
	}
	if (failures)
		fail_msg("%d view check(s) differ from the expected rows", failures);
}

/*
 * The writer's gap accounting on an SPDK TCP host (no h_start, no h_end):
 * the arrival point takes the cause its record carries, any other point is
 * "not recorded", an R2T point only counts where its pair is there, and
 * what is lost goes to its own table.
 */
static const char *const gaps_gap_by_cause[] = {
	"point,cause,description,n",
	"h_data_sent,not_recorded,not recorded by the driver's hooks,1",   /* G4 */
	"h_rx,no_timestamp,the socket read that brought it gave no kernel receive timestamp,1", /* G1 */
	"h_rx,not_recorded,not recorded by the driver's hooks,1",          /* G2 */
	"h_rx_drv,not_recorded,not recorded by the driver's hooks,1",      /* G3 */
	NULL
};

static const char *const gaps_lost_by_cause[] = {
	"cause,description,n",
	"no_device,its device record was lost,2",
	NULL
};

/* A host database at PATH with the device H_DEV, for the writer tests. */
static struct ntp_db *writer_db(const char *path)
{
	struct ntp_meta m = {
		.role = NTP_ROLE_HOST, .driver = "spdk", .transport = "tcp", .hostname = "h",
		.kernel = "k", .sample_rate = 1, .wall_start = H_WALL, .mono_start = H_MONO,
		.command_line = "",
	};
	struct ntp_device_record d = { .dev = H_DEV, .nsid = 1, .lba_shift = 9, .cntlid = 1,
				       .kind = NTP_KIND_DEVICE, .version = NTP_ABI_VERSION };
	char err[512];
	struct ntp_db *db = ntp_db_create(path, &m, 0, err, sizeof(err));

	if (!db)
		fail_msg("%s", err);
	assert_int_equal(ntp_db_add_device(db, &d), 0);
	return db;
}

static void test_gap_causes(void **state)
{
	static const struct fx_cmd g[] = {
		/* G1 */ { H_MONO + 1000, 2, 7, 1, 1, 8, { X, 0, 100, X, X, X, 900, 950, 990, X } },
		/* G2 */ { H_MONO + 2000, 2, 7, 1, 2, 16, { X, 0, 100, X, X, X, 900, 950, 990, X } },
		/* G3 */ { H_MONO + 3000, 2, 7, 1, 3, 24, { X, 0, 100, X, X, 800, X, 950, 990, X } },
		/* G4 */ { H_MONO + 4000, 1, 7, 1, 4, 32, { X, 0, 100, 300, X, 800, 900, 950, 990, X } },
		/* G5 */ { H_MONO + 5000, 2, 7, 1, 5, 40, { X, 0, 100, X, X, 800, 900, 950, 990, X } },
	};
	static const uint8_t cause[] = { NTP_CAUSE_NO_TSTAMP, 0, NTP_CAUSE_NO_TSTAMP, 0, 0 };
	static const struct view_case v[] = {
		{ "ntp_gap_by_cause", PORD("v.point") ", v.cause", gaps_gap_by_cause },
		{ "ntp_lost_by_cause", "cause", gaps_lost_by_cause },
	};
	const char *path = tl_file("gaps.db");
	struct ntp_db *db = writer_db(path);

	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		struct ntp_cmd_record r = {
			.slba = g[i].slba, .dev = H_DEV, .nsid = 1, .nlb = g[i].nlb,
			.qid = g[i].qid, .cid = g[i].cid, .cntlid = 1, .opcode = g[i].opcode,
			.kind = NTP_KIND_CMD, .role = NTP_ROLE_HOST, .version = NTP_ABI_VERSION,
			.rx_cause = cause[i],
		};

		for (int k = 0; k < NTP_MAX_POINTS; k++)
			r.ts[k] = g[i].p[k] == X ? 0 : (uint64_t)(g[i].at + g[i].p[k]);
		assert_int_equal(ntp_db_add_cmd(db, &r), 0);
	}
	assert_int_equal(ntp_db_add_lost(db, NTP_CAUSE_NO_DEVICE, 2), 0);
	assert_int_equal(ntp_db_add_lost(db, NTP_CAUSE_NONE, 1), -1);
	assert_int_equal(ntp_db_end_interval(db, H_MONO, H_MONO + NS), 1);
	assert_int_equal(ntp_db_close(db, H_WALL + NS, H_MONO + NS), 0);
	check_machine(path, v, sizeof(v) / sizeof(v[0]));
	{
		sqlite3 *sq;

		assert_int_equal(sqlite3_open_v2(path, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
		failures = 0;
		check_rows(sq, "gaps counted = points missing",
			   "SELECT (SELECT sum(missing) FROM ntp_point_missing) AS x,"
			   " (SELECT sum(n) FROM gap) AS y", (const char *const[]){ "x,y", "4,4", NULL });
		sqlite3_close(sq);
		assert_int_equal(failures, 0);
	}
}

/* Every column of every row of PATH's cmd, in order. */
static char *cmd_dump(const char *path)
{
	sqlite3 *sq;
	sqlite3_stmt *st;
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);

	assert_non_null(out);
	out[0] = '\0';
	assert_int_equal(sqlite3_open_v2(path, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(sq, "SELECT * FROM cmd ORDER BY t", -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const char *v = (const char *)sqlite3_column_text(st, c);

			assert_true(len + 32 < cap);
			len += (size_t)snprintf(out + len, cap - len, "%s%c", v ? v : "NULL",
						c + 1 < sqlite3_column_count(st) ? ',' : '\n');
		}
	sqlite3_finalize(st);
	sqlite3_close(sq);
	return out;
}

/* A batch of records in one statement stores exactly what they store one
 * by one; all or nothing when one of them cannot be stored so. */
static void test_batch_insert(void **state)
{
	struct ntp_cmd_record r[NTP_DB_BATCH];
	const char *one_path = tl_file("one.db"), *batch_path = tl_file("batch.db");
	struct ntp_db *one = writer_db(one_path), *batch = writer_db(batch_path);
	char *a, *b;

	(void)state;
	for (int i = 0; i < NTP_DB_BATCH; i++) {
		r[i] = (struct ntp_cmd_record){
			.slba = 8u * (unsigned)i, .dev = H_DEV, .nsid = 1, .nlb = 7, .qid = 1,
			.cid = (uint16_t)i, .cntlid = 1, .opcode = i % 3 ? 2 : 1,
			.kind = NTP_KIND_CMD, .role = NTP_ROLE_HOST, .version = NTP_ABI_VERSION,
		};
		for (int k = NTP_H_QUEUE; k <= NTP_H_COMPLETE; k++)
			if (k != NTP_H_R2T_RX && k != NTP_H_DATA_SENT && (k != NTP_H_RX || i % 5))
				r[i].ts[k] = (uint64_t)(H_MONO + 1000 * i + 100 * k + (i % 7));
		assert_int_equal(ntp_db_add_cmd(one, &r[i]), 0);
	}
	assert_int_equal(ntp_db_add_cmds(batch, r, NTP_DB_BATCH - 1), -1); /* not a full batch */
	assert_int_equal(ntp_db_add_cmds(batch, r, NTP_DB_BATCH), 0);
	/* a tie on the time (the rowid): nothing stored, one by one moves it */
	r[1].ts[NTP_H_QUEUE] = r[0].ts[NTP_H_QUEUE] + 1000000;
	r[2].ts[NTP_H_QUEUE] = r[1].ts[NTP_H_QUEUE];
	for (int i = 0; i < NTP_DB_BATCH; i++)
		r[i].ts[NTP_H_QUEUE] += 1000000;
	assert_int_equal(ntp_db_add_cmds(batch, r, NTP_DB_BATCH), -1);
	/* an unknown device: nothing stored */
	r[3].dev = H_DEV + 1;
	assert_int_equal(ntp_db_add_cmds(batch, r, NTP_DB_BATCH), -1);
	assert_int_equal(ntp_db_end_interval(one, H_MONO, H_MONO + NS), 1);
	assert_int_equal(ntp_db_end_interval(batch, H_MONO, H_MONO + NS), 1);
	assert_int_equal(ntp_db_close(one, H_WALL + NS, H_MONO + NS), 0);
	assert_int_equal(ntp_db_close(batch, H_WALL + NS, H_MONO + NS), 0);
	a = cmd_dump(one_path);
	b = cmd_dump(batch_path);
	assert_string_equal(a, b);
	assert_int_equal(strlen(a) > 0 && strchr(a, '\n') != NULL, 1);
	free(a);
	free(b);
	{
		sqlite3 *sq;

		assert_int_equal(sqlite3_open_v2(batch_path, &sq, SQLITE_OPEN_READONLY, NULL),
				 SQLITE_OK);
		failures = 0;
		check_rows(sq, "batch: the same gaps as one by one",
			   "SELECT point, cause, n FROM ntp_gap_by_cause",
			   (const char *const[]){ "point,cause,n", "h_rx,not_recorded,13", NULL });
		check_rows(sq, "batch: the group's sampled count",
			   "SELECT sum(sampled) FROM interval_grp",
			   (const char *const[]){ "sum(sampled)", "64", NULL });
		sqlite3_close(sq);
		if (failures)
			fail_msg("%d check(s) failed", failures);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_views),
		cmocka_unit_test(test_target_views),
		cmocka_unit_test(test_session_views),
		cmocka_unit_test(test_gap_causes),
		cmocka_unit_test(test_batch_insert),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
