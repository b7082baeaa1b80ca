// SPDX-License-Identifier: BSD-2-Clause
/*
 * collector/proc.c against a live fixture process (tests/proc_target.c):
 * found by its binary, the sampling variable's address resolved through
 * ELF and /proc/PID/maps, written, and the process sees the value.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc.h"

#ifndef OUTPUT
#define OUTPUT ".output"
#endif
#define TARGET OUTPUT "/proc_target"
#define LIB_PROGRAM OUTPUT "/proc_target_lib"
#define LIBRARY OUTPUT "/libproc_target.so"

/* Start fixture PROG; its stdout is *out. Waits for "ready". */
static pid_t start_prog(const char *prog, FILE **out)
{
	char line[64];
	int fd[2];
	pid_t pid;

	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	*out = fdopen(fd[0], "r");
	assert_non_null(*out);
	assert_non_null(fgets(line, sizeof(line), *out));
	assert_string_equal(line, "ready\n");
	return pid;
}

static pid_t start(FILE **out)
{
	return start_prog(TARGET, out);
}

/* Find PROG's process by FILE (the program or a library it maps), write the
 * variable FILE defines, and see the process print it. */
static void write_and_check(const char *prog, const char *file)
{
	pid_t pids[16], pid;
	char err[512], line[64];
	uint64_t addr = 0;
	FILE *out;
	int n, st, found = 0;

	pid = start_prog(prog, &out);
	n = ntp_proc_find(file, pids, 16, err, sizeof(err));
	if (n < 0)
		fail_msg("%s", err);
	for (int i = 0; i < n && i < 16; i++)
		found |= pids[i] == pid;
	assert_true(found);
	if (ntp_proc_symbol(pid, file, NTP_SAMPLE_VAR, &addr, err, sizeof(err)))
		fail_msg("%s", err);
	if (ntp_proc_write_u32(pid, addr, 7, err, sizeof(err)))
		fail_msg("%s", err);
	assert_non_null(fgets(line, sizeof(line), out));
	assert_string_equal(line, "7\n");
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	fclose(out);
}

static void test_write_sampling_variable(void **state)
{
	write_and_check(TARGET, TARGET);
}

/* A shared-library SPDK: the variable lives in the library, and the process
 * is found by the library it maps. */
static void test_variable_in_library(void **state)
{
	write_and_check(LIB_PROGRAM, LIBRARY);
}

static void test_errors(void **state)
{
	pid_t pids[4], pid;
	char err[512];
	uint64_t addr;
	FILE *out;
	int st;

	/* nobody runs the test's own source file */
	assert_int_equal(ntp_proc_find("tests/test_proc.c", pids, 4, err, sizeof(err)), 0);
	assert_int_equal(ntp_proc_find("/nonexistent/nvmf_tgt", pids, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/nvmf_tgt: No such file"));

	pid = start(&out);
	/* a binary without the patch */
	assert_int_equal(ntp_proc_symbol(pid, TARGET, "no_such_variable", &addr, err,
					 sizeof(err)), -1);
	assert_non_null(strstr(err, "no symbol no_such_variable"));
	/* a process that does not map the file */
	assert_int_equal(ntp_proc_symbol(getpid(), TARGET, NTP_SAMPLE_VAR, &addr, err,
					 sizeof(err)), -1);
	assert_non_null(strstr(err, "does not map"));
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	fclose(out);
	/* a process that is gone */
	assert_int_equal(ntp_proc_write_u32(pid, 0x1000, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot open its memory"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_sampling_variable),
		cmocka_unit_test(test_variable_in_library),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
