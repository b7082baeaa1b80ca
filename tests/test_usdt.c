// SPDX-License-Identifier: BSD-2-Clause
/*
 * collector/usdt.c against binaries with known probes (tests/usdt_target.c,
 * built by the Makefile as a program and as a shared library), a binary
 * without probes, and files that are not ELF.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "usdt.h"

#ifndef OUTPUT
#define OUTPUT ".output"
#endif

static void check_fixture(const char *path)
{
	struct ntp_usdt_site *s;
	char err[512] = "";
	int n = ntp_usdt_read(path, &s, err, sizeof(err));

	if (n < 0)
		fail_msg("%s", err);
	assert_int_equal(n, 5);
	assert_int_equal(ntp_usdt_count(s, n, "ntprof", "nvmf_tcp_done"), 2);
	assert_int_equal(ntp_usdt_count(s, n, "ntprof", "nvme_tcp_done"), 1);
	assert_int_equal(ntp_usdt_count(s, n, "ntprof", "nvmf_rdma_done"), 1);
	assert_int_equal(ntp_usdt_count(s, n, "ntprof", "nvme_rdma_done"), 1);
	assert_int_equal(ntp_usdt_count(s, n, "other", "nvmf_tcp_done"), 0);
	for (int i = 0; i < n; i++) {
		assert_true(s[i].pc != 0);
		assert_int_equal(s[i].semaphore, 0);
		/* two arguments each: batch pointer and count */
		assert_non_null(strchr(s[i].args, ' '));
	}
	/* the two nvmf_tcp_done sites are distinct addresses */
	for (int i = 0, first = -1; i < n; i++) {
		if (strcmp(s[i].name, "nvmf_tcp_done"))
			continue;
		if (first < 0)
			first = i;
		else
			assert_int_not_equal(s[i].pc, s[first].pc);
	}
	free(s);
}

static void test_program(void **state)
{
	check_fixture(OUTPUT "/usdt_target");
}

/* A shared-library SPDK keeps its probes in libspdk_*.so. */
static void test_shared_library(void **state)
{
	check_fixture(OUTPUT "/libusdt_target.so");
}

static void test_no_probes(void **state)
{
	struct ntp_usdt_site *s;
	char err[512];

	/* this test program itself has no USDT notes */
	assert_int_equal(ntp_usdt_read("/proc/self/exe", &s, err, sizeof(err)), 0);
	free(s);
}

static void test_not_elf(void **state)
{
	struct ntp_usdt_site *s;
	char err[512];

	assert_int_equal(ntp_usdt_read("/etc/hostname", &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/etc/hostname: not an ELF file"));
	assert_null(s);
	assert_int_equal(ntp_usdt_read("/nonexistent/nvmf_tgt", &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/nvmf_tgt: cannot open: No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_program),
		cmocka_unit_test(test_shared_library),
		cmocka_unit_test(test_no_probes),
		cmocka_unit_test(test_not_elf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
