// SPDX-License-Identifier: BSD-2-Clause
/*
 * The report views against the generator's truth: every component's n, sum,
 * mean and percentiles (a sort-based reference), stage means, shares and
 * Little's-law queue depths, computed here in C from the simulated
 * timelines and never from the database. Both SQL paths are checked: the
 * portable views plain sqlite3 runs and the native aggregate the shell uses.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ntp_sql.h"
#include "testlib.h"

/* Truth values of component C for host H, op WRITE, matched only or all. */
static int64_t *truth_values(const struct gen_result *r, int h, int write, int matched_only,
			     enum gen_comp c, size_t *n)
{
	int64_t *v = malloc((r->ntruth + 1) * sizeof(*v));

	assert_non_null(v);
	*n = 0;
	for (uint64_t i = 0; i < r->ntruth; i++) {
		const struct gen_truth *t = &r->truth[i];

		if (t->host == h && t->grp_is_write == write && (!matched_only || t->matched))
			v[(*n)++] = t->comp[c];
	}
	return v;
}

/* The components a report of this kind shows (test_component_lists checks
 * them against vocab.sql), and whether each is optional
 * (absent unless some command has it: generator's 0 means absent). */
static const enum gen_comp joined_comps[] = {
	GC_H_BLK_SUB, GC_H_DRV_SUB, GC_H_R2T, GC_WIRE, GC_T_RX_PATH, GC_T_DRV_SUB, GC_T_STORAGE,
	GC_T_DRV_CPL, GC_H_RX_PATH, GC_H_DRV_CPL, GC_H_BLK_CPL, GC_H_HANDOFF, GC_E2E,
};
static const enum gen_comp host_comps[] = {
	GC_H_BLK_SUB, GC_H_DRV_SUB, GC_H_R2T, GC_H_WAIT, GC_H_RX_PATH, GC_H_DRV_CPL,
	GC_H_BLK_CPL, GC_H_HANDOFF, GC_E2E,
};

struct check {
	struct ntp_session *s;
	const struct gen_result *r;
	const char *hdb; /* schema of the host */
	int h;           /* host index in the generator */
	int write;       /* the group: writes or reads */
	int joined;      /* matched commands, joined components */
};

static void check_component(const struct check *k, enum gen_comp c)
{
	const char *name = gen_comp_name[c];
	size_t n;
	int64_t *v = truth_values(k->r, k->h, k->write, k->joined, c, &n), sum = 0;
	sqlite3 *db = k->s->db;
	const char *where = sqlite3_mprintf(
		"FROM ntp_report_component_stats AS c JOIN ntp_report_group AS g"
		" ON g.hdb = c.hdb AND g.grp = c.grp WHERE g.hdb = '%q' AND g.op = '%q'"
		" AND c.component = '%q'", k->hdb, k->write ? "write" : "read", name);

	if (c == GC_H_R2T && n && v[0] == 0) {
		/* optional: no R2T in this group, so no row */
		assert_false(tl_has_row(db, "SELECT n %s", where));
		free(v);
		sqlite3_free((char *)where);
		return;
	}
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	assert_true(n > 0);
	assert_int_equal(tl_int(db, "SELECT n %s", where), n);
	assert_int_equal(tl_int(db, "SELECT sum_ns %s", where), sum);
	assert_true(fabs(tl_double(db, "SELECT mean_ns %s", where) - (double)sum / (double)n) <
		    1e-6);
	assert_int_equal(tl_int(db, "SELECT p50_ns %s", where), tl_percentile(v, n, 50000));
	assert_int_equal(tl_int(db, "SELECT p99_ns %s", where), tl_percentile(v, n, 99000));
	assert_int_equal(tl_int(db, "SELECT p999_ns %s", where), tl_percentile(v, n, 99900));
	free(v);
	sqlite3_free((char *)where);
}

static void check_components(const struct check *k)
{
	const enum gen_comp *c = k->joined ? joined_comps : host_comps;
	size_t n = k->joined ? sizeof(joined_comps) / sizeof(joined_comps[0])
			     : sizeof(host_comps) / sizeof(host_comps[0]);

	for (size_t i = 0; i < n; i++)
		check_component(k, c[i]);
}

/* Stage mean = sum of its components' sums / commands; share of e2e; QD. */
static void check_stage(const struct check *k, const char *stage, const enum gen_comp *c,
			size_t nc, double rate)
{
	double sum = 0, e2e = 0, mean, share;
	size_t n = 0;
	int64_t *v;

	for (size_t j = 0; j < nc; j++) {
		v = truth_values(k->r, k->h, k->write, k->joined, c[j], &n);
		for (size_t i = 0; i < n; i++)
			sum += (double)v[i];
		free(v);
	}
	v = truth_values(k->r, k->h, k->write, k->joined, GC_E2E, &n);
	for (size_t i = 0; i < n; i++)
		e2e += (double)v[i];
	free(v);
	mean = sum / (double)n;
	share = sum / e2e;
	assert_true(fabs(tl_double(k->s->db, "SELECT mean_ns FROM ntp_report_stage AS s JOIN "
				   "ntp_report_group AS g USING (hdb, grp) WHERE g.hdb = '%q' AND "
				   "g.op = '%q' AND s.stage = '%q'", k->hdb,
				   k->write ? "write" : "read", stage) - mean) < 1e-6);
	assert_true(fabs(tl_double(k->s->db, "SELECT share FROM ntp_report_stage AS s JOIN "
				   "ntp_report_group AS g USING (hdb, grp) WHERE g.hdb = '%q' AND "
				   "g.op = '%q' AND s.stage = '%q'", k->hdb,
				   k->write ? "write" : "read", stage) - share) < 1e-12);
	assert_true(fabs(tl_double(k->s->db, "SELECT avg_qd FROM ntp_report_stage AS s JOIN "
				   "ntp_report_group AS g USING (hdb, grp) WHERE g.hdb = '%q' AND "
				   "g.op = '%q' AND s.stage = '%q'", k->hdb,
				   k->write ? "write" : "read", stage) - rate * mean / 1e9) < 1e-9);
}

static void check_joined_stages(const struct check *k, double rate)
{
	static const enum gen_comp blk[] = { GC_H_BLK_SUB, GC_H_BLK_CPL },
				   drv[] = { GC_H_DRV_SUB, GC_H_R2T, GC_H_DRV_CPL, GC_H_HANDOFF },
				   net[] = { GC_WIRE, GC_T_RX_PATH, GC_H_RX_PATH },
				   tdrv[] = { GC_T_DRV_SUB, GC_T_DRV_CPL }, stor[] = { GC_T_STORAGE };

	check_stage(k, "host_block", blk, 2, rate);
	check_stage(k, "host_driver", drv, 4, rate);
	check_stage(k, "network", net, 3, rate);
	check_stage(k, "target_driver", tdrv, 2, rate);
	check_stage(k, "storage", stor, 1, rate);
}

static struct gen_result gen_pair(struct gen_config *c)
{
	struct gen_result r;

	tl_gen(c, &r);
	return r;
}

/* Kernel on both sides, reads and writes at qd 4, target clock hours off. */
static void test_joined_kernel(void **state)
{
	struct gen_config c;
	struct gen_result r;
	struct ntp_session s;
	double rate;

	gen_defaults(&c);
	c.qd = 4;
	c.read_frac = 0.7;
	c.seed = 7;
	r = gen_pair(&c);
	for (int portable = 0; portable < 2; portable++) {
		tl_open(&s, portable ? NTP_OPEN_PORTABLE : 0, tl_file("h0.db"), tl_file("t.db"),
			NULL);
		assert_int_equal(s.native, !portable);
		for (int w = 0; w < 2; w++) {
			struct check k = { &s, &r, "host", 0, w, 1 };

			check_components(&k);
			/* kernel counts every command: the rate is exact */
			rate = tl_double(s.db, "SELECT rate FROM ntp_report_group WHERE op = '%s'",
					 w ? "write" : "read");
			assert_int_equal(tl_int(s.db, "SELECT exact FROM ntp_report_group WHERE "
						"op = '%s'", w ? "write" : "read"), 1);
			check_joined_stages(&k, rate);
		}
		ntp_session_close(&s);
	}
	/* total commands of the host's window over the time they ran: the
	 * active span of the samples, which misses about one gap */
	tl_open(&s, 0, tl_file("h0.db"), tl_file("t.db"), NULL);
	rate = tl_double(s.db, "SELECT sum(rate) FROM ntp_report_group");
	assert_true(fabs(rate / ((double)r.issued[0] / c.seconds) - 1) < 0.002);
	ntp_session_close(&s);
	gen_result_free(&r);
	tl_cleanup();
}

/*
 * A workload that ran for half the recording: its rate is taken over the
 * time it ran, counted (kernel) or estimated from one sample in 10 (SPDK),
 * not over the idle time before and after it.
 */
static void test_rate_while_active(void **state)
{
	static const char *const drivers[] = { "kernel", "spdk" };
	struct ntp_session s;
	struct gen_config c;
	struct gen_result r;

	for (int i = 0; i < 2; i++) {
		gen_defaults(&c);
		c.host_driver = c.target_driver = drivers[i];
		c.sample_rate = 10;
		c.seconds = 4;
		c.host_window[0] = -2; /* recording from 2 s before to 2 s after */
		c.host_window[1] = 6;
		c.no_target = 1;
		c.seed = 11;
		r = gen_pair(&c);
		tl_open(&s, 0, tl_file("h0.db"), NULL);
		double want = (double)r.issued[0] / c.seconds;
		double got = tl_double(s.db, "SELECT sum(rate) FROM ntp_report_group");

		if (fabs(got / want - 1) > (i ? 0.05 : 0.01))
			fail_msg("%s: rate %.1f, the workload ran at %.1f", drivers[i], got, want);
		ntp_session_close(&s);
		gen_result_free(&r);
		tl_cleanup();
	}
}

/* The host's file alone: host components, 'network and target' stage. */
static void test_host_only(void **state)
{
	struct gen_config c;
	struct gen_result r;
	struct ntp_session s;

	gen_defaults(&c);
	c.sample_rate = 3;
	c.seed = 11;
	r = gen_pair(&c);
	tl_open(&s, 0, tl_file("h0.db"), NULL);
	{
		struct check k = { &s, &r, "host", 0, 0, 0 };
		static const enum gen_comp wait[] = { GC_H_WAIT }, rx[] = { GC_H_RX_PATH };
		double rate = tl_double(s.db, "SELECT rate FROM ntp_report_group");

		check_components(&k);
		check_stage(&k, "net_target", wait, 1, rate);
		check_stage(&k, "host_rx", rx, 1, rate);
	}
	/* with no target, every group is reported from the host's side alone */
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_report_group WHERE mode <> 'host'"),
			 0);
	assert_true(tl_int(s.db, "SELECT count(*) FROM ntp_report_group") > 0);
	ntp_session_close(&s);
	gen_result_free(&r);
	tl_cleanup();
}

/* SPDK on both sides, writes with R2T: optional components appear, no block
 * layer stage, block layer components are 0 for every command. */
static void test_spdk_r2t(void **state)
{
	struct gen_config c;
	struct gen_result r;
	struct ntp_session s;

	gen_defaults(&c);
	c.host_driver = c.target_driver = "spdk";
	c.read_frac = 0.5;
	c.write_kib = 64;
	c.seed = 5;
	r = gen_pair(&c);
	tl_open(&s, 0, tl_file("h0.db"), tl_file("t.db"), NULL);
	for (int w = 0; w < 2; w++) {
		struct check k = { &s, &r, "host", 0, w, 1 };

		check_components(&k);
	}
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_report_stage WHERE "
				"stage = 'host_block'"), 0);
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_report_stage WHERE "
				"label = 'storage (SPDK bdev, drive)'"), 2);
	assert_int_equal(tl_int(s.db, "SELECT max(mean_ns) FROM ntp_report_component_stats WHERE "
				"component IN ('h_blk_sub', 'h_blk_cpl')"), 0);
	assert_true(tl_int(s.db, "SELECT n FROM ntp_report_component_stats AS c JOIN "
			   "ntp_report_group USING (hdb, grp) WHERE op = 'write' AND "
			   "component = 'h_r2t'") > 0);
	/* the grp name of an SPDK host */
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_report_group WHERE "
				"name = 'write 64KiB spdk-c1n1'"), 1);
	ntp_session_close(&s);
	gen_result_free(&r);
	tl_cleanup();
}

/* The views stored in each file work in plain SQLite: no shell, no TEMP. */
static void test_stored_views(void **state)
{
	struct gen_config c;
	struct gen_result r;
	sqlite3 *db;
	size_t n;
	int64_t *v;

	gen_defaults(&c);
	c.seed = 3;
	r = gen_pair(&c);
	assert_int_equal(sqlite3_open_v2(tl_file("h0.db"), &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	v = truth_values(&r, 0, 0, 0, GC_E2E, &n);
	assert_int_equal(tl_int(db, "SELECT n FROM ntp_component_stats WHERE component = 'e2e'"), n);
	assert_int_equal(tl_int(db, "SELECT p99_ns FROM ntp_component_stats WHERE component='e2e'"),
			 tl_percentile(v, n, 99000));
	assert_int_equal(tl_int(db, "SELECT count(*) FROM ntp_cmd_point WHERE h_end - h_start = "
				"(SELECT e2e FROM ntp_cmd_span AS s WHERE s.t = ntp_cmd_point.t)"), n);
	assert_int_equal(tl_int(db, "SELECT sampled FROM ntp_grp_rate"), n);
	assert_true(tl_double(db, "SELECT share FROM ntp_stage_stats WHERE stage = 'net_target'") >
		    0.5);
	assert_int_equal(tl_int(db, "SELECT sum(sampled) FROM ntp_timeline"), n);
	free(v);
	sqlite3_close(db);
	gen_result_free(&r);
	tl_cleanup();
}

/* NAMES (N of them) are, in order, the components SQL (over vocab.sql's
 * component table) selects. */
static void check_list(sqlite3 *db, const enum gen_comp *c, size_t n, const char *sql)
{
	sqlite3_stmt *st;
	size_t i = 0;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		assert_true(i < n);
		assert_string_equal((const char *)sqlite3_column_text(st, 0), gen_comp_name[c[i++]]);
	}
	assert_int_equal(i, n);
	sqlite3_finalize(st);
}

/* The component lists above are vocab.sql's, in its order. */
static void test_component_lists(void **state)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, ntp_sql_vocab, NULL, NULL, NULL), SQLITE_OK);
	check_list(db, joined_comps, sizeof(joined_comps) / sizeof(joined_comps[0]),
		   "SELECT name FROM component WHERE stage_joined IS NOT NULL OR name = 'e2e'"
		   " ORDER BY ord");
	check_list(db, host_comps, sizeof(host_comps) / sizeof(host_comps[0]),
		   "SELECT name FROM component WHERE role = 'host' ORDER BY ord");
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_joined_kernel),
		cmocka_unit_test(test_host_only),
		cmocka_unit_test(test_rate_while_active),
		cmocka_unit_test(test_spdk_r2t),
		cmocka_unit_test(test_stored_views),
		cmocka_unit_test(test_component_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
