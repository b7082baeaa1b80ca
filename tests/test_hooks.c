// SPDX-License-Identifier: BSD-2-Clause
/*
 * The feature probes (collector/hooks.c) on this machine, where fentry is
 * not allowed and there are no kprobes: both must say no, for a function
 * that exists and for one that does not, so the kernel path takes its
 * tracepoint fallback here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "hooks.h"

static void test_missing_function(void **state)
{
	(void)state;
	assert_false(ntp_probe_fentry("no_such_function_ntprof"));
	assert_false(ntp_probe_kprobe("no_such_function_ntprof"));
}

/* A function every kernel has: fentry and kprobes as this kernel allows
 * them, which the build machine's CI knows (fentry EPERM, no kprobe PMU). */
static void test_this_machine(void **state)
{
	int kprobes = access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0;

	(void)state;
	assert_int_equal(access("/sys/kernel/btf/vmlinux", R_OK), 0);
	assert_false(ntp_probe_fentry(NTP_CANARY));
	assert_int_equal(ntp_probe_kprobe(NTP_CANARY), kprobes);
	assert_int_equal(ntp_function_hooks(), kprobes ? NTP_FN_KPROBE : NTP_FN_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_function),
		cmocka_unit_test(test_this_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
