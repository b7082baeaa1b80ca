// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kernel backend's hook tables (collector/kern_hooks.c, one per
 * transport) against the BPF objects it loads from, one per role and
 * transport (bpf/ntprof_tcp_host.bpf.c, ...): every row names programs
 * that exist in both flavours in its role's object, attached where the row says, and
 * every program of an object has its row (no phantom rows, no orphan
 * programs); and the chooser (collector/hooks.c). Opening the object needs no kernel
 * support, so this runs anywhere; loading needs the drivers (tests/vm).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <bpf/libbpf.h>

#include "kern.h"
#include "ntprof_abi.h"
#include "ntprof_rdma_host.skel.h"
#include "ntprof_rdma_target.skel.h"
#include "ntprof_tcp_host.skel.h"
#include "ntprof_tcp_target.skel.h"

static struct ntprof_tcp_host_bpf *tcp_host;
static struct ntprof_tcp_target_bpf *tcp_target;
static struct ntprof_rdma_host_bpf *rdma_host;
static struct ntprof_rdma_target_bpf *rdma_target;

static const char *const transports[] = { "tcp", "rdma" };

/* The object of ROLE and TRANSPORT. */
static struct bpf_object *obj_of(int role, const char *transport)
{
	if (!strcmp(transport, "rdma"))
		return role == NTP_ROLE_TARGET ? rdma_target->obj : rdma_host->obj;
	return role == NTP_ROLE_TARGET ? tcp_target->obj : tcp_host->obj;
}

static int setup(void **state)
{
	(void)state;
	libbpf_set_print(NULL);
	tcp_host = ntprof_tcp_host_bpf__open();
	tcp_target = ntprof_tcp_target_bpf__open();
	rdma_host = ntprof_rdma_host_bpf__open();
	rdma_target = ntprof_rdma_target_bpf__open();
	return tcp_host && tcp_target && rdma_host && rdma_target ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	ntprof_tcp_host_bpf__destroy(tcp_host);
	ntprof_tcp_target_bpf__destroy(tcp_target);
	ntprof_rdma_host_bpf__destroy(rdma_host);
	ntprof_rdma_target_bpf__destroy(rdma_target);
	return 0;
}

/* PROG's section in the object of ROLE and TRANSPORT must be KIND/TARGET. */
static void expect_section(int role, const char *transport, const char *prog, const char *kind,
			   const char *target)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj_of(role, transport), prog);
	char want[128];

	if (!p)
		fail_msg("no program %s in the %s %s object", prog, transport,
			 role == NTP_ROLE_TARGET ? "target" : "host");
	snprintf(want, sizeof(want), "%s/%s", kind, target);
	assert_string_equal(bpf_program__section_name(p), want);
}

static void expect_table(const char *tr)
{
	char name[96];

	for (const struct ntp_hook *h = ntp_kern_hooks_of(tr); h->prog; h++) {
		const char *colon = strchr(h->target, ':');

		if (colon) { /* system:name, attached by name */
			expect_section(h->role, tr, h->prog, "tp_btf", colon + 1);
			snprintf(name, sizeof(name), "%s_raw", h->prog);
			expect_section(h->role, tr, name, "raw_tp", colon + 1);
		} else {
			expect_section(h->role, tr, h->prog, "fentry", h->target);
			snprintf(name, sizeof(name), "%s_kp", h->prog);
			expect_section(h->role, tr, name, "kprobe", h->target);
		}
		assert_true(h->role == NTP_ROLE_HOST || h->role == NTP_ROLE_TARGET);
		if (!h->points[0]) { /* records no point: the requeue hook alone */
			assert_string_equal(h->prog, "ntp_k_rq_requeue");
			continue;
		}
		assert_true(h->points[0] == 'h' || h->points[0] == 't');
		assert_int_equal(h->points[0] == 't', h->role == NTP_ROLE_TARGET);
	}
}

static void test_every_row_in_both_flavours(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(transports) / sizeof(*transports); i++)
		expect_table(transports[i]);
}

/* Every program of the object of ROLE and TR has a row of that role. */
static void expect_rows(int role, const char *tr)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj_of(role, tr)) {
		char base[96];
		size_t n;
		int found = 0;

		snprintf(base, sizeof(base), "%s", bpf_program__name(p));
		n = strlen(base);
		if (n > 3 && !strcmp(base + n - 3, "_kp"))
			base[n - 3] = 0;
		else if (n > 4 && !strcmp(base + n - 4, "_raw"))
			base[n - 4] = 0;
		for (const struct ntp_hook *h = ntp_kern_hooks_of(tr); h->prog; h++)
			found |= h->role == role && !strcmp(h->prog, base);
		if (!found)
			fail_msg("program %s has no row in the %s hooks", bpf_program__name(p), tr);
	}
}

static void test_every_program_has_a_row(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(transports) / sizeof(*transports); i++) {
		expect_rows(NTP_ROLE_HOST, transports[i]);
		expect_rows(NTP_ROLE_TARGET, transports[i]);
	}
}

/* Some hook of TABLE and ROLE records POINT. */
static int recorded(const struct ntp_hook *table, int role, const char *point)
{
	size_t len = strlen(point);
	int found = 0;

	for (const struct ntp_hook *h = table; h->prog; h++) {
		const char *at = strstr(h->points, point);

		found |= h->role == role && at && (at[len] == 0 || at[len] == ' ');
	}
	return found;
}

/* Each role has every stage point of docs/stages.md's kernel tables
 * ("Which points exist") from some hook: t_free is not recorded on a
 * kernel target, and an RDMA host has no R2T (the target reads the data). */
static void test_every_point_covered(void **state)
{
	static const char *const host[] = { "h_start", "h_queue", "h_sent", "h_r2t_rx",
		"h_data_sent", "h_rx", "h_rx_drv", "h_cqe", "h_complete", "h_end" };
	static const char *const target[] = { "t_rx", "t_cmd", "t_r2t", "t_data_rx", "t_exec",
		"t_stor", "t_resp", "t_sent" };

	(void)state;
	for (size_t i = 0; i < sizeof(transports) / sizeof(*transports); i++) {
		const struct ntp_hook *table = ntp_kern_hooks_of(transports[i]);
		int rdma = !strcmp(transports[i], "rdma");

		for (size_t j = 0; j < sizeof(host) / sizeof(*host); j++) {
			int want = !(rdma && (!strcmp(host[j], "h_r2t_rx") ||
					      !strcmp(host[j], "h_data_sent")));

			if (recorded(table, NTP_ROLE_HOST, host[j]) != want)
				fail_msg("%s host: %s %s", transports[i], host[j],
					 want ? "has no hook" : "has a hook, but no such point");
		}
		for (size_t j = 0; j < sizeof(target) / sizeof(*target); j++)
			if (!recorded(table, NTP_ROLE_TARGET, target[j]))
				fail_msg("%s target: no hook records %s", transports[i], target[j]);
	}
}

/* The flavour for every combination of what the kernel has. */
static void test_choice(void **state)
{
	const struct ntp_hook fn = { .prog = "f", .target = "nvme_tcp_queue_rq" };
	const struct ntp_hook tp = { .prog = "t", .target = "nvme:nvme_setup_cmd" };

	(void)state;
	assert_int_equal(ntp_hook_choose(&fn, 1, 1), NTP_FENTRY);
	assert_int_equal(ntp_hook_choose(&fn, 1, 0), NTP_KPROBE); /* fentry forbidden */
	assert_int_equal(ntp_hook_choose(&fn, 0, 1), NTP_KPROBE); /* no module BTF */
	assert_int_equal(ntp_hook_choose(&fn, 0, 0), NTP_KPROBE);
	assert_int_equal(ntp_hook_choose(&tp, 1, 1), NTP_TP_BTF);
	assert_int_equal(ntp_hook_choose(&tp, 1, 0), NTP_TP_BTF);
	assert_int_equal(ntp_hook_choose(&tp, 0, 1), NTP_RAW_TP);
	assert_int_equal(ntp_hook_choose(&tp, 0, 0), NTP_RAW_TP);
	assert_string_equal(ntp_flavour_name(NTP_FENTRY), "fentry");
	assert_string_equal(ntp_flavour_name(NTP_KPROBE), "kprobe");
	assert_string_equal(ntp_flavour_name(NTP_TP_BTF), "tp_btf");
	assert_string_equal(ntp_flavour_name(NTP_RAW_TP), "raw_tp");
}

/* libbpf's log of a load the verifier refused (as 6.12's refused the
 * unchecked tracepoint argument): the program blamed and the verifier's
 * last word, not its statistics. */
static void test_load_log(void **state)
{
	static const char log[] =
		"libbpf: prog 'ntp_k_setup_cmd': BPF program load failed: Permission denied\n"
		"libbpf: prog 'ntp_k_setup_cmd': -- BEGIN PROG LOAD LOG --\n"
		"0: R1=ctx() R10=fp0\n"
		"25: (7b) *(u64 *)(r10 -432) = r6\n"
		"R3 pointer arithmetic on trusted_ptr_or_null_ prohibited, null-check it first\n"
		"processed 31 insns (limit 1000000) max_states_per_insn 0 total_states 1\n"
		"-- END PROG LOAD LOG --\n"
		"libbpf: prog 'ntp_k_setup_cmd': failed to load: -13\n";
	char prog[64], why[160];

	(void)state;
	assert_int_equal(ntp_load_log_rejected(log, prog, sizeof(prog), why, sizeof(why)), 0);
	assert_string_equal(prog, "ntp_k_setup_cmd");
	assert_string_equal(why, "R3 pointer arithmetic on trusted_ptr_or_null_ prohibited, "
				 "null-check it first");
	assert_int_equal(ntp_load_log_rejected("libbpf: map 'x': failed to create\n", prog,
					       sizeof(prog), why, sizeof(why)), -1);
	assert_int_equal(ntp_load_log_rejected(NULL, prog, sizeof(prog), why, sizeof(why)), -1);
}

/* A rejected tp_btf program is taken as its raw_tp twin, once; a hook
 * already in its twin flavour cannot be rejected again. vmlinux has BTF on
 * every kernel this runs on, so block:block_rq_complete starts as tp_btf. */
static void test_reject(void **state)
{
	const struct ntp_hook *h;

	(void)state;
	for (h = ntp_kern_tcp_hooks; strcmp(h->prog, "ntp_k_rq_done"); h++)
		;
	assert_int_equal(ntp_hook_flavour(h), NTP_TP_BTF);
	assert_null(ntp_hook_rejected(h));
	assert_int_equal(ntp_hooks_reject(ntp_kern_tcp_hooks, "ntp_k_rq_done", "a reason"), 0);
	assert_int_equal(ntp_hook_flavour(h), NTP_RAW_TP);
	assert_string_equal(ntp_hook_prog(h), "ntp_k_rq_done_raw");
	assert_string_equal(ntp_hook_rejected(h), "a reason");
	assert_int_equal(ntp_hooks_reject(ntp_kern_tcp_hooks, "ntp_k_rq_done", "again"), -1);
	assert_int_equal(ntp_hooks_reject(ntp_kern_tcp_hooks, "no_such_prog", "x"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choice),
		cmocka_unit_test(test_every_row_in_both_flavours),
		cmocka_unit_test(test_every_program_has_a_row),
		cmocka_unit_test(test_every_point_covered),
		cmocka_unit_test(test_load_log),
		cmocka_unit_test(test_reject),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
