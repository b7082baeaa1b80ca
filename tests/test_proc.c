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
#include <sys/mman.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc.h"

#ifndef OUTPUT
#define OUTPUT ".output"
#endif
#define TARGET OUTPUT "/proc_target"
#define LIB_PROGRAM OUTPUT "/proc_target_lib"
#define LIBRARY OUTPUT "/libproc_target.so"

/* Start fixture PROG (with ARG, if not NULL); its stdout is *out. Waits
 * for "ready". */
static pid_t start_arg(const char *prog, const char *arg, FILE **out)
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
		execl(prog, prog, arg, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	*out = fdopen(fd[0], "r");
	assert_non_null(*out);
	assert_non_null(fgets(line, sizeof(line), *out));
	assert_string_equal(line, "ready\n");
	return pid;
}

static pid_t start_prog(const char *prog, FILE **out)
{
	return start_arg(prog, NULL, out);
}

static pid_t start(FILE **out)
{
	return start_prog(TARGET, out);
}

/* PID printed PRINTED and exited 0. */
static void expect_exit(pid_t pid, FILE *out, const char *printed)
{
	char line[64];
	int st;

	assert_non_null(fgets(line, sizeof(line), out));
	assert_string_equal(line, printed);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	fclose(out);
}

/* Find PROG's process by FILE (the program or a library it maps), write the
 * variable FILE defines, and see the process print it. */
static void write_and_check(const char *prog, const char *file)
{
	pid_t pids[16], pid;
	char err[512];
	uint64_t addr = 0;
	FILE *out;
	int n, found = 0;

	pid = start_prog(prog, &out);
	n = ntp_proc_find(file, pids, 16, err, sizeof(err));
	if (n < 0)
		fail_msg("%s", err);
	for (int i = 0; i < n && i < 16; i++)
		found |= pids[i] == pid;
	assert_true(found);
	if (ntp_proc_symbol(pid, file, NTP_SAMPLE_VAR, &addr, err, sizeof(err)))
		fail_msg("%s", err);
	if (ntp_proc_write_var(pid, file, NTP_SAMPLE_VAR, 0, 7, err, sizeof(err)))
		fail_msg("%s", err);
	expect_exit(pid, out, "7\n");
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
	assert_int_equal(ntp_proc_write_var(pid, TARGET, NTP_SAMPLE_VAR, 0, 1, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "does not map"));
}

/* The variable holds what someone else wrote: not ntprof's to change,
 * unless it is what this collector wrote before. */
static void test_foreign_value(void **state)
{
	char err[512];
	FILE *out;
	pid_t pid = start_arg(TARGET, "5", &out);

	assert_int_equal(ntp_proc_write_var(pid, TARGET, NTP_SAMPLE_VAR, 0, 7, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "holds 5, not 0 or ntprof's"));
	if (ntp_proc_write_var(pid, TARGET, NTP_SAMPLE_VAR, 5, 7, err, sizeof(err)))
		fail_msg("%s", err);
	expect_exit(pid, out, "7\n");
}

/*
 * A process that is not the program but maps its file, only the first
 * page and read-only (as a viewer may): it is found by the file, but the
 * variable's address lands outside any writable mapping of the file, and
 * nothing is written there.
 */
static void test_victim_mapping(void **state)
{
	int fd = open(TARGET, O_RDONLY), p[2];
	char err[512], c;
	pid_t pids[16], victim;
	int n, found = 0, st;

	assert_true(fd >= 0);
	assert_int_equal(pipe(p), 0);
	victim = fork();
	assert_true(victim >= 0);
	if (victim == 0) {
		void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);

		close(p[0]);
		if (write(p[1], m == MAP_FAILED ? "e" : "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	close(fd);
	assert_int_equal(read(p[0], &c, 1), 1);
	assert_int_equal(c, 'r');
	n = ntp_proc_find(TARGET, pids, 16, err, sizeof(err));
	for (int i = 0; i < n && i < 16; i++)
		found |= pids[i] == victim;
	assert_true(found);
	assert_int_equal(ntp_proc_write_var(victim, TARGET, NTP_SAMPLE_VAR, 0, 7, err,
					    sizeof(err)), -1);
	assert_true(strstr(err, "not writing there") || strstr(err, "does not map"));
	kill(victim, SIGKILL);
	assert_int_equal(waitpid(victim, &st, 0), victim);
	close(p[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_sampling_variable),
		cmocka_unit_test(test_variable_in_library),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_foreign_value),
		cmocka_unit_test(test_victim_mapping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
