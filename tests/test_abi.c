// SPDX-License-Identifier: BSD-2-Clause
/*
 * The record ABI and the sampling rule. The hash vectors were checked
 * against an independent Python implementation of the algorithm documented
 * in bpf/ntprof_abi.h; a change here means host, target and SPDK builds of
 * different versions no longer sample the same commands.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "ntp_schema.h"
#include "ntp_sql.h"

#include "ntprof_abi.h"

static void test_hash_vectors(void **state)
{
	static const struct {
		__u16 qid, cid;
		__u8 opcode;
		__u32 nsid;
		__u64 slba;
		__u32 nlb, hash;
	} v[] = {
		{ 0, 0, 0, 0, 0ULL, 0, 0xe9e0033e },
		{ 1, 0, 2, 0x1, 0ULL, 0x7, 0x5f00e476 },
		{ 1, 0x1, 2, 0x1, 0ULL, 0x7, 0xd2863686 },
		{ 1, 0x1234, 2, 0x1, 0x1e240ULL, 0x7, 0x1e13b25f },
		{ 3, 0xffff, 1, 0x1, 0xffffffffffffULL, 0xff, 0x68b4ad58 },
		{ 65535, 0xffff, 255, 0xffffffff, 0xffffffffffffffffULL, 0xffffffff, 0xaa470c30 },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(ntp_sample_hash(v[i].qid, v[i].cid, v[i].opcode, v[i].nsid,
						 v[i].slba, v[i].nlb), v[i].hash);
}

static void test_sampling_rule(void **state)
{
	uint32_t every = 0, none = 0, tenth = 0;

	for (uint32_t cid = 0; cid < 10000; cid++) {
		__u32 h = ntp_sample_hash(1, (__u16)cid, 2, 1, cid * 8ULL, 7);

		every += ntp_sampled(h, 1);
		none += ntp_sampled(h, 0);
		tenth += ntp_sampled(h, 10);
	}
	assert_int_equal(every, 10000); /* -s 1 samples everything */
	assert_int_equal(none, 0);      /* 0: nothing (SPDK's variable before ntprof) */
	/* a fair hash: 1 in 10 within 4 standard deviations (sd = 30) */
	assert_in_range(tenth, 880, 1120);
}

/* Every field changes the hash: identity, not a subset of it. */
static void test_hash_uses_every_field(void **state)
{
	__u32 base = ntp_sample_hash(1, 2, 2, 1, 4096, 7);

	assert_int_not_equal(base, ntp_sample_hash(2, 2, 2, 1, 4096, 7));
	assert_int_not_equal(base, ntp_sample_hash(1, 3, 2, 1, 4096, 7));
	assert_int_not_equal(base, ntp_sample_hash(1, 2, 1, 1, 4096, 7));
	assert_int_not_equal(base, ntp_sample_hash(1, 2, 2, 2, 4096, 7));
	assert_int_not_equal(base, ntp_sample_hash(1, 2, 2, 1, 4104, 7));
	assert_int_not_equal(base, ntp_sample_hash(1, 2, 2, 1, 4096, 15));
}

static void test_layout(void **state)
{
	assert_int_equal(sizeof(struct ntp_cmd_record), 120);
	assert_int_equal(offsetof(struct ntp_cmd_record, slba), 80);
	assert_int_equal(offsetof(struct ntp_cmd_record, nsid), 96);
	assert_int_equal(offsetof(struct ntp_cmd_record, opcode), 110);
	assert_int_equal(offsetof(struct ntp_cmd_record, rx_cause), 114);
	assert_int_equal(sizeof(struct ntp_batch_header), 8);
	assert_int_equal(offsetof(struct ntp_batch_header, n), 4);
	assert_int_equal(sizeof(struct ntp_device_record), 280);
	assert_int_equal(offsetof(struct ntp_device_record, nqn), 56);
	assert_true(NTP_H_NPOINTS <= NTP_MAX_POINTS && NTP_T_NPOINTS <= NTP_MAX_POINTS);
}

/* The causes: each enum value the programs set has its row in the
 * vocabulary (sql/vocab.sql, table cause) under the same name, and the
 * vocabulary names no other code. */
static void test_causes(void **state)
{
	static const struct { int code; const char *name, *kind; } abi[] = {
		{ NTP_CAUSE_RING_FULL, "ring_full", "record" },
		{ NTP_CAUSE_BATCH_OVERFLOW, "batch_overflow", "record" },
		{ NTP_CAUSE_UNREADABLE, "unreadable", "record" },
		{ NTP_CAUSE_NO_DEVICE, "no_device", "record" },
		{ NTP_CAUSE_ABI_VERSION, "abi_version", "record" },
		{ NTP_CAUSE_NOT_RECORDED, "not_recorded", "point" },
		{ NTP_CAUSE_NO_TSTAMP, "no_timestamp", "point" },
		{ NTP_CAUSE_ARRIVALS_OFF, "arrivals_off", "point" },
		{ NTP_CAUSE_FORGOTTEN, "forgotten", "point" },
	};
	size_t n = sizeof(abi) / sizeof(abi[0]);
	sqlite3_stmt *st;
	sqlite3 *db;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, ntp_sql_schema, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, ntp_sql_vocab, NULL, NULL, NULL), SQLITE_OK);
	for (size_t i = 0; i < n; i++) {
		assert_true(abi[i].code > NTP_CAUSE_NONE && abi[i].code < NTP_CAUSE_MAX);
		assert_int_equal(sqlite3_prepare_v2(db, "SELECT name, kind FROM cause WHERE code = ?",
						    -1, &st, NULL), SQLITE_OK);
		sqlite3_bind_int(st, 1, abi[i].code);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal(sqlite3_column_text(st, 0), abi[i].name);
		assert_string_equal(sqlite3_column_text(st, 1), abi[i].kind);
		sqlite3_finalize(st);
	}
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM cause", -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), (int)n);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_vectors),
		cmocka_unit_test(test_sampling_rule),
		cmocka_unit_test(test_hash_uses_every_field),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_causes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
