// SPDX-License-Identifier: BSD-2-Clause
/*
 * A test fixture for collector/proc.c: a process with the SPDK patch's
 * sampling variable. It says "ready", waits (at most 10 s) for someone to
 * write the variable, prints the value and exits 0 if it changed.
 * Built twice: as one program, and (PROC_LIBRARY) with the variable in a
 * shared library the program loads, as a shared-library SPDK build has it.
 */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

uint32_t ntp_fixture_wait(void);

#ifndef PROC_PROGRAM_ONLY
volatile uint32_t ntprof_sample_rate;

uint32_t ntp_fixture_wait(void)
{
	for (int i = 0; i < 10000 && !ntprof_sample_rate; i++)
		usleep(1000);
	return ntprof_sample_rate;
}
#endif

#ifndef PROC_LIBRARY
int main(void)
{
	uint32_t v;

	printf("ready\n");
	fflush(stdout);
	v = ntp_fixture_wait();
	printf("%u\n", v);
	return v ? 0 : 1;
}
#endif
