// SPDX-License-Identifier: BSD-2-Clause
/*
 * A test fixture for collector/proc.c: a process with the SPDK patch's
 * sampling variable. It says "ready", waits (at most 10 s) for someone to
 * write the variable (which starts at 0, or at the number given), prints
 * the value and exits 0 if it changed.
 * Given "copy", it first maps a private writable copy of its own file,
 * zeroed, below its load (where the lowest mapping of the file is the
 * copy), and says where ("copy ADDR") after "ready".
 * Built twice: as one program, and (PROC_LIBRARY) with the variable and a
 * probe site in a shared library the program loads, as a shared-library
 * SPDK build has them.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sdt.h>
#include <sys/stat.h>
#include <unistd.h>

uint32_t ntp_fixture_wait(uint32_t from);
void ntp_fixture_set(uint32_t v);

#ifndef PROC_PROGRAM_ONLY
volatile uint32_t ntprof_sample_rate;

/* The host probe's site, as the patch puts it in libspdk_nvme.so: never
 * fired here; it makes the library look like an SPDK host's to the
 * collector (`--spdk-host proc_target_lib`). */
void ntp_fixture_probe_site(void);
void ntp_fixture_probe_site(void)
{
	DTRACE_PROBE2(ntprof, nvme_tcp_done, (void *)0, 0L);
}

void ntp_fixture_set(uint32_t v)
{
	ntprof_sample_rate = v;
}

/* Until the variable is no longer FROM (at most 10 s); its value then. */
uint32_t ntp_fixture_wait(uint32_t from)
{
	for (int i = 0; i < 10000 && ntprof_sample_rate == from; i++)
		usleep(1000);
	return ntprof_sample_rate;
}
#endif

#ifndef PROC_LIBRARY
extern char __executable_start[];

/* A private writable copy of the program's file, zeroed, 16 MiB below its
 * load; NULL if it cannot be made. */
static void *copy_below(void)
{
	uintptr_t want = ((uintptr_t)__executable_start - (16u << 20)) & ~(uintptr_t)0xfff;
	int fd = open("/proc/self/exe", O_RDONLY);
	struct stat st;
	void *m;

	if (fd < 0 || fstat(fd, &st))
		return NULL;
	m = mmap((void *)want, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	memset(m, 0, (size_t)st.st_size);
	return m;
}

int main(int argc, char **argv)
{
	int copy = argc > 1 && !strcmp(argv[1], "copy");
	uint32_t from = argc > 1 && !copy ? (uint32_t)atoi(argv[1]) : 0, v;
	void *below = copy ? copy_below() : NULL;

	ntp_fixture_set(from); /* before "ready": the test reads it next */
	printf("ready\n");
	if (copy)
		printf("copy %lx\n", (unsigned long)(uintptr_t)below);
	fflush(stdout);
	v = ntp_fixture_wait(from);
	printf("%u\n", v);
	return v != from ? 0 : 1;
}
#endif
