// SPDX-License-Identifier: BSD-2-Clause
/*
 * Pairing host and target records: clocks hours apart, wall clocks off,
 * command identities reused constantly, targets that recorded earlier,
 * later or lost records, two hosts sharing a target. The generator knows
 * which host commands the target recorded; the join must find exactly
 * those, and pair them right: a wrong pair shows up as a wrong wire time.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "testlib.h"

static uint64_t truth_matched(const struct gen_result *r, int host)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < r->ntruth; i++)
		n += r->truth[i].host == host && r->truth[i].matched;
	return n;
}

/* Sum of the true wire times of host H's matched commands. */
static int64_t truth_wire(const struct gen_result *r, int host)
{
	int64_t sum = 0;

	for (uint64_t i = 0; i < r->ntruth; i++)
		if (r->truth[i].host == host && r->truth[i].matched)
			sum += r->truth[i].comp[GC_WIRE];
	return sum;
}

/* Run CFG, join, and check every host's matches and wire times exactly. */
static void check_join(const struct gen_config *cfg, int expect_all)
{
	const char *names[] = { "h0.db", "h1.db", "h2.db", "h3.db" };
	struct ntp_session s;
	struct gen_result r;
	char *paths[GEN_MAX_HOSTS + 1];
	char err[1024];

	tl_gen(cfg, &r);
	for (int h = 0; h < cfg->nhosts; h++)
		paths[h] = strdup(tl_file(names[h]));
	paths[cfg->nhosts] = strdup(tl_file("t.db"));
	if (ntp_session_open(&s, cfg->nhosts + 1, paths, 0, err, sizeof(err)) ||
	    ntp_session_prepare(&s, err, sizeof(err)))
		fail_msg("%s", err);
	for (int h = 0; h < cfg->nhosts; h++) {
		const char *db = s.dbs[h].schema;

		assert_int_equal(tl_int(s.db, "SELECT matched FROM ntp_match_stats WHERE hdb = '%q'",
					db), truth_matched(&r, h));
		if (expect_all)
			assert_int_equal(truth_matched(&r, h), r.host_records[h]);
		assert_int_equal(tl_int(s.db, "SELECT coalesce(sum(wire), 0) FROM ntp_joined "
					"WHERE hdb = '%q'", db), truth_wire(&r, h));
		/* no target record is taken twice */
		assert_int_equal(tl_int(s.db, "SELECT count(*) - count(DISTINCT tdb || tt) FROM "
					"ntp_match"), 0);
		/* a true join, partial or not, is never refused */
		assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_join_check WHERE hdb = '%q'"
					" AND verdict = 'joined'", db), 1);
		free(paths[h]);
	}
	free(paths[cfg->nhosts]);
	ntp_session_close(&s);
	gen_result_free(&r);
	tl_cleanup();
}

/* Target clock 3 h ahead of the host's, wall clocks 2 ms apart. */
static void test_clock_offset(void **state)
{
	struct gen_config c;

	gen_defaults(&c);
	c.qd = 2;
	check_join(&c, 1);
}

/* Eight LBAs at qd 1: every identity repeats thousands of times. */
static void test_identity_reuse(void **state)
{
	struct gen_config c;

	gen_defaults(&c);
	c.lba_span = 64;
	c.seed = 2;
	check_join(&c, 1);
	/* and at qd 8 over 2 queues, with writes */
	c.qd = 8;
	c.nqueues = 2;
	c.read_frac = 0.5;
	check_join(&c, 1);
}

/* Target recorded earlier and stopped early, or started late: only the
 * overlap matches; a repeated identity outside it must not be taken. */
static void test_windows(void **state)
{
	struct gen_config c;

	gen_defaults(&c);
	c.lba_span = 256;
	c.target_window[0] = -1;
	c.target_window[1] = 1.2;
	check_join(&c, 0);
	c.target_window[0] = 0.7;
	c.target_window[1] = 5;
	check_join(&c, 0);
}

/* The target lost 10 % of its records. */
static void test_target_loss(void **state)
{
	struct gen_config c;

	gen_defaults(&c);
	c.target_loss = 0.1;
	c.lba_span = 512;
	check_join(&c, 0);
}

/* Two hosts share a target: each host's own controller (cntlid). */
static void test_two_hosts(void **state)
{
	struct gen_config c;

	gen_defaults(&c);
	c.nhosts = 2;
	c.qd = 2;
	c.lba_span = 1024;
	check_join(&c, 1);
	c.nhosts = 3;
	c.target_window[0] = 0.5;
	check_join(&c, 0);
}

/*
 * Two hosts, each on a target of its own, in one run: each host pairs with
 * its target, and a host and the other target, without a controller in
 * common, pair nothing, their join check says so, and none of the host's
 * commands counts as one the target could have recorded.
 */
static void test_own_targets(void **state)
{
	const char *hosts[2], *targets[2];
	struct ntp_session s;
	struct gen_config c;
	struct gen_result r;

	(void)state;
	gen_defaults(&c);
	c.nhosts = 2;
	c.ntargets = 2;
	c.qd = 2;
	hosts[0] = strdup(tl_file("h0.db"));
	hosts[1] = strdup(tl_file("h1.db"));
	targets[0] = strdup(tl_file("t0.db"));
	targets[1] = strdup(tl_file("t1.db"));
	assert_int_equal(gen_run_targets(&c, hosts, targets, &r), 0);
	tl_open(&s, 0, hosts[0], hosts[1], targets[0], targets[1], NULL);
	for (int h = 0; h < 2; h++) {
		const char *hdb = s.dbs[h].schema;

		assert_int_equal(tl_int(s.db, "SELECT matched FROM ntp_match_stats WHERE hdb = '%q'",
					hdb), r.host_records[h]);
		assert_int_equal(tl_int(s.db, "SELECT count(DISTINCT tdb) FROM ntp_joined"
					" WHERE hdb = '%q'", hdb), 1);
	}
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_join_check WHERE verdict = 'joined'"),
			 2);
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_join_check"
				" WHERE verdict = 'unrelated' AND eligible = 0 AND matched = 0"), 2);
	ntp_session_close(&s);
	for (int i = 0; i < 2; i++) {
		free((char *)hosts[i]);
		free((char *)targets[i]);
	}
	gen_result_free(&r);
	tl_cleanup();
}

/* A wall clock 3 s wrong, far more than identities take to repeat: the
 * consensus of candidate pairs still finds the offset. (Beyond 5 s the
 * candidates are not looked for: docs/sql.md.) */
static void test_wall_clock_wrong(void **state)
{
	struct gen_config c;

	gen_defaults(&c);
	c.wall_error_ns = 3 * (int64_t)1000000000;
	c.lba_span = 4096;
	check_join(&c, 1);
}

/* The target's clock runs 20 ppm fast over 30 s (600 us by the end, far
 * beyond the host's 40 us half-wait): the offset follows the drift. The
 * target's durations stretch by 20 ppm too (about 1 ns per command), so the
 * wire time is compared within that. */
static void test_clock_drift(void **state)
{
	struct gen_config c;
	struct ntp_session s;
	struct gen_result r;
	char *paths[2], err[1024];
	int64_t truth = 0;

	gen_defaults(&c);
	c.seconds = 30;
	c.iops = 1000;
	c.host_window[1] = 30;
	c.target_window[1] = 31;
	c.target_drift_ppm = 20;
	tl_gen(&c, &r);
	paths[0] = strdup(tl_file("h0.db"));
	paths[1] = strdup(tl_file("t.db"));
	if (ntp_session_open(&s, 2, paths, 0, err, sizeof(err)) ||
	    ntp_session_prepare(&s, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(tl_int(s.db, "SELECT matched FROM ntp_match_stats"), r.host_records[0]);
	for (uint64_t i = 0; i < r.ntruth; i++)
		truth += r.truth[i].comp[GC_WIRE];
	assert_true(fabs(tl_double(s.db, "SELECT avg(wire) FROM ntp_joined") -
			 (double)truth / (double)r.ntruth) < 2.0);
	/* the drift is measured: host - target loses 20 ns per ms */
	assert_true(fabs(tl_double(s.db, "SELECT drift FROM ntp_offset") + 20e-6) < 0.5e-6);
	ntp_session_close(&s);
	free(paths[0]);
	free(paths[1]);
	gen_result_free(&r);
	tl_cleanup();
}

/* With -s 10 on both sides the same commands are sampled. */
static void test_sampled(void **state)
{
	struct gen_config c;

	gen_defaults(&c);
	c.sample_rate = 10;
	c.seconds = 4;
	c.host_window[1] = 4;
	c.target_window[1] = 5;
	check_join(&c, 1);
}

/*
 * Each matched pair against the truth, one by one: the generator's sampled
 * host commands are in host rowid order, so the i-th host record is
 * truth[i] (one host). A wrong pair shows as a wire time off its truth by
 * more than TOL ns (a drifting target clock stretches its durations by a
 * few ns). Returns the number matched.
 */
static int64_t check_each_pair(struct ntp_session *s, const struct gen_result *r, int64_t tol)
{
	sqlite3_stmt *st;
	int64_t n = 0;

	assert_int_equal(sqlite3_prepare_v2(s->db,
		"SELECT h.rn - 1, j.wire FROM (SELECT t, row_number() OVER (ORDER BY t) AS rn"
		" FROM host.cmd) AS h JOIN ntp_joined AS j ON j.ht = h.t", -1, &st, NULL),
		SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t i = sqlite3_column_int64(st, 0), wire = sqlite3_column_int64(st, 1);

		assert_true(i >= 0 && (uint64_t)i < r->ntruth);
		if (!r->truth[i].matched || llabs(wire - r->truth[i].comp[GC_WIRE]) > tol)
			fail_msg("host record %lld paired wrong: wire %lld, truth %lld%s",
				 (long long)i, (long long)wire,
				 (long long)r->truth[i].comp[GC_WIRE],
				 r->truth[i].matched ? "" : " (the target never recorded it)");
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

/*
 * Depth and a jittery network: every crossing takes up to 3 ms more,
 * independently, so a command's two directions differ by milliseconds and
 * the clock offset is only known to about that. The containment rule alone
 * misses the commands with a short crossing; pairing by identity finds
 * them: at least 99.5 % matched at queue depths 1 to 128, for reads, R2T
 * writes and a mix, with drifting clocks, each pair right.
 */
static void test_jitter_depth(void **state)
{
	static const struct { uint32_t qd; double reads; double ppm; } cases[] = {
		{ 1, 1, 0 }, { 8, 0.7, 0 }, { 32, 0, 10 }, { 128, 0.7, 5 },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct ntp_session s;
		struct gen_config c;
		struct gen_result r;
		int64_t matched;

		gen_defaults(&c);
		c.qd = cases[k].qd;
		c.read_frac = cases[k].reads;
		c.write_kib = 16; /* with R2T */
		c.iops = 2000;
		c.seconds = 3;
		c.host_window[1] = 3;
		c.target_window[1] = 4;
		c.jitter_ns = 3000000;
		c.target_drift_ppm = cases[k].ppm;
		c.seed = 20 + k;
		tl_gen(&c, &r);
		tl_open(&s, 0, tl_file("h0.db"), tl_file("t.db"), NULL);
		matched = check_each_pair(&s, &r, cases[k].ppm ? 200 : 0);
		if (matched * 1000 < (int64_t)r.host_records[0] * 995)
			fail_msg("qd %u: %lld of %llu host records matched", c.qd, (long long)matched,
				 (unsigned long long)r.host_records[0]);
		assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_join_check"
					" WHERE verdict = 'joined'"), 1);
		ntp_session_close(&s);
		gen_result_free(&r);
		tl_cleanup();
	}
}

/*
 * The same jitter where identities repeat within it (eight LBAs at depth
 * 8): time can no longer tell every repeat apart. Pairs may then be left
 * out, and each one left out is counted as ambiguous, but none is wrong.
 */
static void test_jitter_repeats(void **state)
{
	struct ntp_session s;
	struct gen_config c;
	struct gen_result r;
	int64_t matched;

	gen_defaults(&c);
	c.qd = 8;
	c.lba_span = 64;
	c.iops = 2000;
	c.jitter_ns = 3000000;
	c.seed = 31;
	tl_gen(&c, &r);
	tl_open(&s, 0, tl_file("h0.db"), tl_file("t.db"), NULL);
	matched = check_each_pair(&s, &r, 0);
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_unmatched"),
			 (int64_t)r.host_records[0] - matched);
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_unmatched WHERE reason != "
				"'ambiguous'"), (int64_t)r.host_records[0] - (int64_t)truth_matched(&r, 0));
	/* the repeats time cannot tell apart are left out, the join stands */
	assert_int_equal(tl_int(s.db, "SELECT count(*) FROM ntp_join_check"
				" WHERE verdict = 'joined'"), 1);
	ntp_session_close(&s);
	gen_result_free(&r);
	tl_cleanup();
}

/*
 * A jittery network and a run so short that every command is in the clock
 * offset's sample (as at -s 10 between two emulated guests): the median of
 * the differences can then lie where some command's target residence would
 * fall outside its host wait, which no true pair can. The offset must lie
 * where causality allows for every sampled pair, so each command pairs by
 * containment (its middles within half its wait, plus the rule's 1 us),
 * none needs the window, and all pair right.
 */
static void test_jitter_causal(void **state)
{
	for (uint64_t seed = 40; seed < 48; seed++) {
		struct ntp_session s;
		struct gen_config c;
		struct gen_result r;

		gen_defaults(&c);
		c.iops = 100;
		c.seconds = 2;
		c.host_window[1] = 2;
		c.target_window[1] = 3;
		c.jitter_ns = 3000000;
		c.seed = seed;
		tl_gen(&c, &r);
		tl_open(&s, 0, tl_file("h0.db"), tl_file("t.db"), NULL);
		assert_int_equal(check_each_pair(&s, &r, 0), (int64_t)r.host_records[0]);
		/* every command was in the offset's sample */
		assert_int_equal(tl_int(s.db, "SELECT count(DISTINCT hid) FROM _ntp_pair1"),
				 (int64_t)r.host_records[0]);
		if (tl_int(s.db, "SELECT count(*) FROM ntp_joined AS j JOIN host.ntp_cmd_span AS h"
			   " ON h.t = j.ht WHERE abs(j.skew_ns) > h.wait_ns / 2 + 1000"))
			fail_msg("seed %llu: a pair whose middles lie further apart than its wait"
				 " allows (offset %lld)", (unsigned long long)seed,
				 (long long)tl_int(s.db, "SELECT offset_ns FROM ntp_offset"));
		ntp_session_close(&s);
		gen_result_free(&r);
		tl_cleanup();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock_offset),
		cmocka_unit_test(test_identity_reuse),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_target_loss),
		cmocka_unit_test(test_two_hosts),
		cmocka_unit_test(test_own_targets),
		cmocka_unit_test(test_wall_clock_wrong),
		cmocka_unit_test(test_sampled),
		cmocka_unit_test(test_clock_drift),
		cmocka_unit_test(test_jitter_depth),
		cmocka_unit_test(test_jitter_repeats),
		cmocka_unit_test(test_jitter_causal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
