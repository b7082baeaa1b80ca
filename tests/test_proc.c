// SPDX-License-Identifier: BSD-2-Clause
/*
 * collector/proc.c against a live fixture process (tests/proc_target.c):
 * found by its binary, the sampling variable's address resolved through
 * ELF and /proc/PID/maps, written, and the process sees the value; and
 * collector/lock.c, one collector per process.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <elf.h>
#include <time.h>

#include "lock.h"
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
 * Victims: processes that are not the program but map its file. Each is
 * forked with the file mapped its way (MODE), says 'r' on P[1], waits for a
 * byte on Q[0], and says whether its mapping is still what it was: 'u'
 * (untouched) or 'c' (changed).
 */
enum victim_mode {
	VIEWER,       /* the first page, read-only, as a viewer may */
	PRIVATE_COPY, /* the whole file, private and writable, zeroed: its own scratch memory */
	CODE_ONLY,    /* the code segment alone, executable, where no load put it */
};

/* The file offset of FD's first executable PT_LOAD segment (an ELF64
 * file), page-aligned; -1 if it has none. */
static off_t code_offset(int fd)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
		return -1;
	for (int i = 0; i < eh.e_phnum; i++)
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) ==
			    (ssize_t)sizeof(ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			return (off_t)(ph.p_offset & ~(uint64_t)4095);
	return -1;
}

static void victim_body(enum victim_mode mode, int fd, size_t size, int out, int in)
{
	size_t len = mode == PRIVATE_COPY ? size : 4096;
	int prot = mode == VIEWER ? PROT_READ : mode == PRIVATE_COPY ? PROT_READ | PROT_WRITE
								     : PROT_READ | PROT_EXEC;
	off_t off = mode == CODE_ONLY ? code_offset(fd) : 0;
	unsigned char *m = off < 0 ? MAP_FAILED : mmap(NULL, len, prot, MAP_PRIVATE, fd, off);
	unsigned char *copy;
	char c;

	if (m == MAP_FAILED || (mode == CODE_ONLY && off == 0))
		_exit(write(out, "e", 1) == 1 ? 2 : 3);
	if (mode == PRIVATE_COPY)
		memset(m, 0, len); /* 0 where the variable would be: what ntprof would overwrite */
	copy = malloc(len);
	if (!copy)
		_exit(4);
	memcpy(copy, m, len);
	if (write(out, "r", 1) != 1 || read(in, &c, 1) != 1)
		_exit(5);
	_exit(write(out, memcmp(copy, m, len) ? "c" : "u", 1) == 1 ? 0 : 6);
}

static void check_victim(enum victim_mode mode)
{
	int fd = open(TARGET, O_RDONLY), p[2], q[2];
	char err[512], c;
	pid_t pids[16], victim;
	uint64_t addr;
	struct stat st;
	int n, st_exit;

	assert_true(fd >= 0 && fstat(fd, &st) == 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(q), 0);
	victim = fork();
	assert_true(victim >= 0);
	if (victim == 0) {
		close(p[0]);
		close(q[1]);
		victim_body(mode, fd, (size_t)st.st_size, p[1], q[0]);
	}
	close(p[1]);
	close(q[0]);
	close(fd);
	assert_int_equal(read(p[0], &c, 1), 1);
	assert_int_equal(c, 'r');
	/* not found as a process of the file */
	n = ntp_proc_find(TARGET, pids, 16, err, sizeof(err));
	for (int i = 0; i < n && i < 16; i++)
		assert_int_not_equal(pids[i], victim);
	/* and nothing written, whatever it is asked */
	assert_int_equal(ntp_proc_symbol(victim, TARGET, NTP_SAMPLE_VAR, &addr, err, sizeof(err)),
			 -1);
	assert_int_equal(ntp_proc_write_var(victim, TARGET, NTP_SAMPLE_VAR, 0, 7, err,
					    sizeof(err)), -1);
	if (!strstr(err, "not loaded, only mapped") && !strstr(err, "does not map"))
		fail_msg("%s", err);
	assert_int_equal(write(q[1], "g", 1), 1);
	assert_int_equal(read(p[0], &c, 1), 1);
	assert_int_equal(c, 'u');
	assert_int_equal(waitpid(victim, &st_exit, 0), victim);
	assert_true(WIFEXITED(st_exit) && WEXITSTATUS(st_exit) == 0);
	close(p[0]);
	close(q[1]);
}

static void test_victim_viewer(void **state)
{
	check_victim(VIEWER);
}

/* A private writable copy of the whole file, made without running it,
 * with 0 at the variable's place: the mapping of the file at offset 0
 * once gave the address, and the write went through. */
static void test_victim_private_copy(void **state)
{
	check_victim(PRIVATE_COPY);
}

/* The code segment mapped executable at its offset, but not by a load:
 * the build ID is not where the load would put it. */
static void test_victim_code_only(void **state)
{
	check_victim(CODE_ONLY);
}

/* The program itself, with a private writable copy of its own file below
 * its load: the variable is still found in its own segment, not in the
 * copy. */
static void test_program_with_copy(void **state)
{
	char err[512];
	uint64_t addr, copy_end;
	FILE *out;
	pid_t pid = start_arg(TARGET, "copy", &out);
	char line[64];

	assert_non_null(fgets(line, sizeof(line), out));
	assert_int_equal(sscanf(line, "copy %" SCNx64, &copy_end), 1);
	if (ntp_proc_locate_var(pid, TARGET, NTP_SAMPLE_VAR, &addr, err, sizeof(err)))
		fail_msg("%s", err);
	if (ntp_proc_write_var(pid, TARGET, NTP_SAMPLE_VAR, 0, 7, err, sizeof(err)))
		fail_msg("%s", err);
	expect_exit(pid, out, "7\n");
}

/* A directory for locks, made for the test. */
static void lock_dir(char *dir, size_t len)
{
	snprintf(dir, len, "%s/ntprof-lock-test.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
}

static void rm_lock_dir(const char *dir)
{
	assert_int_equal(rmdir(dir), 0); /* empty: every lock file was removed */
}

/* A second collector on a process is refused and named; the first one's
 * lock goes with it, and its file too. */
static void test_lock_second_refused(void **state)
{
	char dir[256], err[512], path[512], buf[32];
	pid_t holder = -1;
	int fd, fd2, pf;
	ssize_t n;

	lock_dir(dir, sizeof(dir));
	fd = ntp_lock_take(dir, 4242, 77, &holder, err, sizeof(err));
	if (fd < 0)
		fail_msg("%s", err);
	snprintf(path, sizeof(path), "%s/4242-77.lock", dir);
	pf = open(path, O_RDONLY);
	assert_true(pf >= 0);
	n = read(pf, buf, sizeof(buf) - 1);
	close(pf);
	assert_true(n > 0);
	buf[n] = 0;
	assert_int_equal(atoi(buf), getpid());
	/* flock: another open of the file is another collector, even here */
	fd2 = ntp_lock_take(dir, 4242, 77, &holder, err, sizeof(err));
	assert_int_equal(fd2, -1);
	assert_int_equal(holder, getpid());
	snprintf(buf, sizeof(buf), "(pid %d)", (int)getpid());
	assert_non_null(strstr(err, buf));
	assert_non_null(strstr(err, "process 4242: another collector"));
	/* another process (start time) with the same pid is another key */
	fd2 = ntp_lock_take(dir, 4242, 78, &holder, err, sizeof(err));
	if (fd2 < 0)
		fail_msg("%s", err);
	ntp_lock_release(dir, 4242, 78, fd2);
	ntp_lock_release(dir, 4242, 77, fd);
	assert_int_equal(access(path, F_OK), -1);
	fd = ntp_lock_take(dir, 4242, 77, &holder, err, sizeof(err));
	assert_true(fd >= 0);
	ntp_lock_release(dir, 4242, 77, fd);
	rm_lock_dir(dir);
}

/* A collector killed with -9 holds nothing: the next one takes over at
 * once, although its file is still there. */
static void test_lock_killed_holder(void **state)
{
	char dir[256], err[512], c;
	pid_t holder = -1, child;
	int p[2], fd, st;

	lock_dir(dir, sizeof(dir));
	assert_int_equal(pipe(p), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pid_t h;
		int cfd = ntp_lock_take(dir, 4243, 1, &h, err, sizeof(err));

		if (write(p[1], cfd >= 0 ? "r" : "e", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	assert_int_equal(c, 'r');
	assert_int_equal(ntp_lock_take(dir, 4243, 1, &holder, err, sizeof(err)), -1);
	assert_int_equal(holder, child);
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &st, 0), child);
	fd = ntp_lock_take(dir, 4243, 1, &holder, err, sizeof(err));
	if (fd < 0)
		fail_msg("%s", err);
	ntp_lock_release(dir, 4243, 1, fd);
	close(p[0]);
	rm_lock_dir(dir);
}

/* The file a killed collector left for a process that is gone is removed
 * by the next collector that takes any lock; a live process's is kept. */
static void test_lock_stale_swept(void **state)
{
	char dir[256], err[512], dead[512], live[512];
	pid_t holder, child = fork();
	uint64_t start;
	int fd, st;

	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, &st, 0), child);
	lock_dir(dir, sizeof(dir));
	snprintf(dead, sizeof(dead), "%s/%d-123.lock", dir, (int)child);
	fd = open(dead, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	start = ntp_proc_start_time(getpid());
	assert_true(start > 0);
	snprintf(live, sizeof(live), "%s/%d-%llu.lock", dir, (int)getpid(),
		 (unsigned long long)start);
	fd = open(live, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	fd = ntp_lock_take(dir, 4244, 1, &holder, err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(access(dead, F_OK), -1);
	assert_int_equal(access(live, F_OK), 0);
	ntp_lock_release(dir, 4244, 1, fd);
	assert_int_equal(unlink(live), 0);
	rm_lock_dir(dir);
}

/* A directory others may write is no place for locks. */
static void test_lock_dir_checked(void **state)
{
	char dir[256], err[512];
	pid_t holder;

	lock_dir(dir, sizeof(dir));
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(ntp_lock_take(dir, 1, 1, &holder, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not taking locks there"));
	rm_lock_dir(dir);
}

/* ---- repeated scans (ntp_proc_scan's memory) ---- */

/* A child of this program that waits on a pipe: 'x' makes it exec PROG,
 * 'd' dlopen LIBRARY (then it writes 'l' back); it exits when the pipe
 * closes. *TO and *FROM are the pipe's ends. */
static pid_t start_waiter(const char *prog, int *to, int *from)
{
	int p[2], q[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(q), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;

		close(p[1]);
		close(q[0]);
		while (read(p[0], &c, 1) == 1) {
			if (c == 'x') {
				dup2(q[1], 1);
				execl(prog, prog, (char *)NULL);
				_exit(127);
			}
			if (c == 'd' && dlopen(LIBRARY, RTLD_NOW) && write(q[1], "l", 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(p[0]);
	close(q[1]);
	*to = p[1];
	*from = q[0];
	return pid;
}

/* Is PID among the N of PIDS (at most MAX of them kept)? */
static int among(pid_t pid, const pid_t *pids, int n, int max)
{
	for (int i = 0; i < n && i < max; i++)
		if (pids[i] == pid)
			return 1;
	return 0;
}

/* Scan for FILE with MEMO: *FOUND whether PID is one of the program's, and
 * how many maps files the scan read. */
static unsigned long scan(struct ntp_proc_memo *memo, const char *file, pid_t pid, int *found)
{
	unsigned long before = memo->maps_read;
	pid_t pids[64];
	char err[512];
	int n = ntp_proc_scan(memo, file, pids, 64, err, sizeof(err));

	if (n < 0)
		fail_msg("%s", err);
	*found = among(pid, pids, n, 64);
	return memo->maps_read - before;
}

/* The scan after the first reads the maps only of the processes that are
 * new, or run another executable than when they were looked at: MEMO's
 * entries read after T (ns) are exactly those of PREV (N of them) that
 * changed, and there are READ of them. */
static void only_changed_read(const struct ntp_proc_memo *memo, const struct ntp_proc_seen *prev,
			      int n, uint64_t t, unsigned long read)
{
	unsigned long changed = 0;

	for (int i = 0; i < memo->n; i++) {
		const struct ntp_proc_seen *s = &memo->seen[i], *o = NULL;

		for (int j = 0; j < n && !o; j++)
			if (prev[j].pid == s->pid)
				o = &prev[j];
		if (s->read_ns >= t) {
			assert_true(!o || o->dev != s->dev || o->ino != s->ino);
			changed++;
		}
	}
	assert_int_equal(changed, read);
}

static uint64_t mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* Make the waiter PID (pipe ends TO and FROM, as start_waiter gives them)
 * run the program linked with the library; the next scan with MEMO must
 * find it, and its variable be written. Waits for it to exit. */
static void exec_and_find(struct ntp_proc_memo *memo, pid_t pid, int to, int from)
{
	char line[256];
	FILE *out = fdopen(from, "r");
	int found;

	assert_non_null(out);
	assert_int_equal(write(to, "x", 1), 1);
	assert_non_null(fgets(line, sizeof(line), out));
	assert_string_equal(line, "ready\n");
	scan(memo, LIBRARY, pid, &found);
	assert_true(found);
	if (ntp_proc_write_var(pid, LIBRARY, NTP_SAMPLE_VAR, 0, 7, line, sizeof(line)))
		fail_msg("%s", line);
	close(to);
	expect_exit(pid, out, "7\n");
}

/* A process is looked at again when it runs exec, not before: the second
 * of two scans reads no maps of a process it knows, and a process that
 * then runs the program that loads the library is found at once. */
static void test_scan_memo_exec(void **state)
{
	struct ntp_proc_memo memo = { .young_ns = 0, .full_every_ns = 3600000000000ULL,
				       .events = -1 };
	struct ntp_proc_seen *prev;
	int to, from, found, n;
	unsigned long r1, r2;
	uint64_t t;
	pid_t pid = start_waiter(LIB_PROGRAM, &to, &from);

	r1 = scan(&memo, LIBRARY, pid, &found);
	assert_false(found);
	assert_true(r1 > 0);
	n = memo.n;
	prev = malloc((size_t)n * sizeof(*prev));
	assert_non_null(prev);
	memcpy(prev, memo.seen, (size_t)n * sizeof(*prev));
	t = mono();
	r2 = scan(&memo, LIBRARY, pid, &found);
	assert_false(found);
	only_changed_read(&memo, prev, n, t, r2);
	assert_true(r2 < r1);
	exec_and_find(&memo, pid, to, from);
	free(prev);
	ntp_proc_memo_free(&memo);
}

/* A library loaded later (dlopen), by a process whose executable stays the
 * same, is found by the next full scan, and not before it. */
static void test_scan_memo_dlopen(void **state)
{
	struct ntp_proc_memo memo = { .young_ns = 0, .full_every_ns = 3600000000000ULL,
				       .events = -1 };
	int to, from, found;
	pid_t pid = start_waiter(LIB_PROGRAM, &to, &from);
	char c;

	scan(&memo, LIBRARY, pid, &found);
	assert_false(found);
	assert_int_equal(write(to, "d", 1), 1);
	assert_int_equal(read(from, &c, 1), 1);
	assert_int_equal(c, 'l');
	assert_true(scan(&memo, LIBRARY, pid, &found) < (unsigned long)memo.n);
	assert_false(found); /* known, and no full scan due */
	memo.full_every_ns = 0;
	assert_true(scan(&memo, LIBRARY, pid, &found) >= (unsigned long)memo.n);
	assert_true(found);
	close(to);
	close(from);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	ntp_proc_memo_free(&memo);
}

/* A new process is looked at on every scan while it is young. */
static void test_scan_memo_young(void **state)
{
	struct ntp_proc_memo memo = { .young_ns = 3600000000000ULL,
				       .full_every_ns = 3600000000000ULL, .events = -1 };
	int found;

	assert_true(scan(&memo, LIBRARY, 0, &found) > 0);
	assert_true(scan(&memo, LIBRARY, 0, &found) >= (unsigned long)memo.n);
	ntp_proc_memo_free(&memo);
}

/* With the kernel's process events, a scan is made only after a fork or
 * an exec: in a quiet millisecond the last answer is given again, and a
 * process that starts and runs the program is found at once. Without them
 * (not root on a kernel that tells only root) every call scans. As root
 * the events must be there: the kernels ntprof supports have them. */
static void test_scan_events(void **state)
{
	struct ntp_proc_memo memo = { .young_ns = 0, .full_every_ns = 3600000000000ULL };
	char why[256];
	int to, from, found;
	pid_t pid;

	memo.events = ntp_proc_events_open(why, sizeof(why));
	if (memo.events < 0) {
		if (geteuid() == 0)
			fail_msg("as root: %s", why);
		scan(&memo, LIBRARY, 0, &found);
		scan(&memo, LIBRARY, 0, &found);
		assert_int_equal(memo.scans, 2);
		assert_int_equal(memo.skipped, 0);
		ntp_proc_memo_free(&memo);
		return;
	}
	scan(&memo, LIBRARY, 0, &found);
	assert_int_equal(memo.scans, 1);
	/* Other processes of the machine may fork, and then a scan reads the
	 * new ones' maps: a quiet millisecond will do, and a skipped scan
	 * reads nothing. */
	for (int i = 0; i < 2000 && !memo.skipped; i++) {
		unsigned long read;

		usleep(1000);
		read = scan(&memo, LIBRARY, 0, &found);
		if (memo.skipped)
			assert_int_equal(read, 0);
	}
	assert_true(memo.skipped > 0);
	pid = start_waiter(LIB_PROGRAM, &to, &from);
	exec_and_find(&memo, pid, to, from);
	close(memo.events);
	ntp_proc_memo_free(&memo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_sampling_variable),
		cmocka_unit_test(test_variable_in_library),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_foreign_value),
		cmocka_unit_test(test_victim_viewer),
		cmocka_unit_test(test_victim_private_copy),
		cmocka_unit_test(test_victim_code_only),
		cmocka_unit_test(test_program_with_copy),
		cmocka_unit_test(test_lock_second_refused),
		cmocka_unit_test(test_lock_killed_holder),
		cmocka_unit_test(test_lock_stale_swept),
		cmocka_unit_test(test_lock_dir_checked),
		cmocka_unit_test(test_scan_memo_exec),
		cmocka_unit_test(test_scan_memo_dlopen),
		cmocka_unit_test(test_scan_memo_young),
		cmocka_unit_test(test_scan_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
