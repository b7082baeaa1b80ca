// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hook choice (collector/hooks.c): every combination of what the kernel
 * allows, with the capabilities injected; then the real probes on this
 * machine, where only tracepoints work (no fentry, no kprobes), so the
 * tracepoint fallback is what records here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hooks.h"

/* Injected capabilities: bit 0 fentry, bit 1 kprobe, bit 2 tracepoint. */
static int allow(const char *what, void *ctx, int bit)
{
	(void)what;
	return (*(int *)ctx >> bit) & 1;
}
static int fe(const char *f, void *ctx) { return allow(f, ctx, 0); }
static int kp(const char *f, void *ctx) { return allow(f, ctx, 1); }
static int tp(const char *t, void *ctx) { return allow(t, ctx, 2); }

static void test_every_combination(void **state)
{
	for (int btf = 0; btf < 2; btf++) {
		for (int mask = 0; mask < 8; mask++) {
			struct ntp_caps c = { btf, fe, kp, tp, &mask };
			enum ntp_hook_kind want = NTP_HOOK_NONE;

			/* preference: fentry, kprobe, tracepoint; BTF for 1 and 3 */
			if (btf && (mask & 1))
				want = NTP_HOOK_FENTRY;
			else if (mask & 2)
				want = NTP_HOOK_KPROBE;
			else if (btf && (mask & 4))
				want = NTP_HOOK_TRACEPOINT;
			for (size_t i = 0; i < ntp_sock_hooks_n; i++)
				assert_int_equal(ntp_hook_choose(&ntp_sock_hooks[i], &c), want);
		}
	}
}

/* A family without a kernel function can only be a tracepoint. */
static void test_tracepoint_only_family(void **state)
{
	const struct ntp_hook_family f = { "x", "h_rx", NULL, NULL, NULL, "sock:x", "ntp_x_tp", 0 };
	int all = 7;
	struct ntp_caps c = { 1, fe, kp, tp, &all };

	assert_int_equal(ntp_hook_choose(&f, &c), NTP_HOOK_TRACEPOINT);
	c.btf = 0;
	assert_int_equal(ntp_hook_choose(&f, &c), NTP_HOOK_NONE);
}

/* Names as probe prints them. */
static void test_names(void **state)
{
	const struct ntp_hook_family *ready = &ntp_sock_hooks[0];

	assert_int_equal(ntp_sock_hooks_n, 1);
	assert_string_equal(ntp_hook_prog(ready, NTP_HOOK_FENTRY), "ntp_s_ready_fe");
	assert_string_equal(ntp_hook_prog(ready, NTP_HOOK_KPROBE), "ntp_s_ready_kp");
	assert_string_equal(ntp_hook_target(ready, NTP_HOOK_KPROBE), "sock_def_readable");
	assert_string_equal(ntp_hook_target(ready, NTP_HOOK_TRACEPOINT), "sock:sk_data_ready");
	assert_null(ntp_hook_prog(ready, NTP_HOOK_NONE));
	assert_string_equal(ntp_hook_kind_name(NTP_HOOK_TRACEPOINT), "tp_btf");
}

/* The real probes on this machine (Debian 12 host, kernel 6.18 with BTF,
 * fentry EPERM, no kprobes): every socket hook falls back to a tracepoint. */
static void test_this_machine(void **state)
{
	struct ntp_caps c;

	ntp_caps_probe(&c);
	assert_true(c.btf);
	assert_true(ntp_probe_tracepoint("sched:sched_switch", NULL));
	assert_false(ntp_probe_tracepoint("sock:no_such_tracepoint", NULL));
	assert_false(ntp_probe_fentry("no_such_function_ntprof", NULL));
	assert_false(ntp_probe_kprobe("no_such_function_ntprof", NULL));
	for (size_t i = 0; i < ntp_sock_hooks_n; i++) {
		enum ntp_hook_kind k = ntp_hook_choose(&ntp_sock_hooks[i], &c);

		if (k == NTP_HOOK_NONE)
			fail_msg("no way to hook %s here", ntp_sock_hooks[i].what);
		assert_int_equal(k, NTP_HOOK_TRACEPOINT);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_combination),
		cmocka_unit_test(test_tracepoint_only_family),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_this_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
