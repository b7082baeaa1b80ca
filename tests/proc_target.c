// SPDX-License-Identifier: BSD-2-Clause
/*
 * A test fixture for collector/proc.c: a process with the SPDK patch's
 * sampling variable. It says "ready", waits (at most 10 s) for someone to
 * write the variable (which starts at 0, or at the number given), prints
 * the value and exits 0 if it changed.
 * Built twice: as one program, and (PROC_LIBRARY) with the variable and a
 * probe site in a shared library the program loads, as a shared-library
 * SPDK build has them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
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
int main(int argc, char **argv)
{
	uint32_t from = argc > 1 ? (uint32_t)atoi(argv[1]) : 0, v;

	ntp_fixture_set(from); /* before "ready": the test reads it next */
	printf("ready\n");
	fflush(stdout);
	v = ntp_fixture_wait(from);
	printf("%u\n", v);
	return v != from ? 0 : 1;
}
#endif
