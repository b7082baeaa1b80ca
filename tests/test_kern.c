// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kernel backend's hook table (collector/kern_hooks.c) against the BPF
 * objects it loads from, one per role (bpf/ntprof_tcp_host.bpf.c,
 * bpf/ntprof_tcp_target.bpf.c): every row names programs that exist in
 * both flavours in its role's object, attached where the row says, and
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
#include "ntprof_tcp_host.skel.h"
#include "ntprof_tcp_target.skel.h"

static struct ntprof_tcp_host_bpf *host_skel;
static struct ntprof_tcp_target_bpf *target_skel;

/* The object of ROLE. */
static struct bpf_object *obj_of(int role)
{
	return role == NTP_ROLE_TARGET ? target_skel->obj : host_skel->obj;
}

static int setup(void **state)
{
	(void)state;
	libbpf_set_print(NULL);
	host_skel = ntprof_tcp_host_bpf__open();
	target_skel = ntprof_tcp_target_bpf__open();
	return host_skel && target_skel ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	ntprof_tcp_host_bpf__destroy(host_skel);
	ntprof_tcp_target_bpf__destroy(target_skel);
	return 0;
}

/* PROG's section in ROLE's object must be KIND/TARGET. */
static void expect_section(int role, const char *prog, const char *kind, const char *target)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj_of(role), prog);
	char want[128];

	if (!p)
		fail_msg("no program %s in the %s object", prog,
			 role == NTP_ROLE_TARGET ? "target" : "host");
	snprintf(want, sizeof(want), "%s/%s", kind, target);
	assert_string_equal(bpf_program__section_name(p), want);
}

static void test_every_row_in_both_flavours(void **state)
{
	char name[96];

	(void)state;
	for (const struct ntp_hook *h = ntp_kern_hooks; h->prog; h++) {
		const char *colon = strchr(h->target, ':');

		if (colon) { /* system:name, attached by name */
			expect_section(h->role, h->prog, "tp_btf", colon + 1);
			snprintf(name, sizeof(name), "%s_raw", h->prog);
			expect_section(h->role, name, "raw_tp", colon + 1);
		} else {
			expect_section(h->role, h->prog, "fentry", h->target);
			snprintf(name, sizeof(name), "%s_kp", h->prog);
			expect_section(h->role, name, "kprobe", h->target);
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

/* Every program of ROLE's object has a row of that role. */
static void expect_rows(int role)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj_of(role)) {
		char base[96];
		size_t n;
		int found = 0;

		snprintf(base, sizeof(base), "%s", bpf_program__name(p));
		n = strlen(base);
		if (n > 3 && !strcmp(base + n - 3, "_kp"))
			base[n - 3] = 0;
		else if (n > 4 && !strcmp(base + n - 4, "_raw"))
			base[n - 4] = 0;
		for (const struct ntp_hook *h = ntp_kern_hooks; h->prog; h++)
			found |= h->role == role && !strcmp(h->prog, base);
		if (!found)
			fail_msg("program %s has no row in ntp_kern_hooks", bpf_program__name(p));
	}
}

static void test_every_program_has_a_row(void **state)
{
	(void)state;
	expect_rows(NTP_ROLE_HOST);
	expect_rows(NTP_ROLE_TARGET);
}

/* Each role has every stage point of docs/stages.md's kernel TCP tables
 * from some hook (t_free is not recorded on the kernel target). */
static void test_every_point_covered(void **state)
{
	static const char *const host[] = { "h_start", "h_queue", "h_sent", "h_r2t_rx",
		"h_data_sent", "h_rx", "h_rx_drv", "h_cqe", "h_complete", "h_end" };
	static const char *const target[] = { "t_rx", "t_cmd", "t_r2t", "t_data_rx", "t_exec",
		"t_stor", "t_resp", "t_sent" };

	(void)state;
	for (int role = 0; role < 2; role++) {
		const char *const *pts = role ? target : host;
		size_t npts = role ? sizeof(target) / sizeof(*target) : sizeof(host) / sizeof(*host);

		for (size_t j = 0; j < npts; j++) {
			int found = 0;

			for (const struct ntp_hook *h = ntp_kern_hooks; h->prog; h++) {
				const char *at = strstr(h->points, pts[j]);
				size_t len = strlen(pts[j]);

				found |= h->role == role && at && (at[len] == 0 || at[len] == ' ');
			}
			if (!found)
				fail_msg("no %s hook records %s", role ? "target" : "host", pts[j]);
		}
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choice),
		cmocka_unit_test(test_every_row_in_both_flavours),
		cmocka_unit_test(test_every_program_has_a_row),
		cmocka_unit_test(test_every_point_covered),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
