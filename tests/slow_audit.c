// SPDX-License-Identifier: BSD-2-Clause
/*
 * A test fixture: an LD_AUDIT library that holds up the dynamic loader for
 * half a second before it maps libproc_target.so, so that the process runs
 * (its /proc/PID/exe is the program) while the library with the sampling
 * variable is not mapped yet: the window in which a collector started with
 * --wait can find a shared-library SPDK program that is still starting.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

unsigned int la_version(unsigned int version)
{
	return version;
}

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
	(void)cookie;
	if (flag == LA_SER_ORIG && strstr(name, "libproc_target"))
		usleep(500000);
	return (char *)name;
}
