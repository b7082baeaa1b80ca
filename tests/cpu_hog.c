// SPDX-License-Identifier: BSD-2-Clause
/*
 * cpu_hog: take a CPU away periodically, as a busy neighbour does. Pinned
 * to CPU, at SCHED_FIFO priority 50 (above every normal task there), it
 * spins SPIN_MS milliseconds in every PERIOD_MS, for at most SECS seconds
 * (so it never outlives a test that forgot it). The kernel's RT throttling
 * (sched_rt_runtime_us, 95 % by default) allows any duty below that.
 *
 *   cpu_hog CPU SPIN_MS PERIOD_MS SECS
 *
 * Prints "cpu_hog: ready" once pinned and scheduled. Needs root (or
 * CAP_SYS_NICE).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int parse(const char *s, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return end == s || *end || errno || *v < lo || *v > hi ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 50 };
	long cpu, spin, period, secs;
	long long next, stop;
	cpu_set_t set;

	if (argc != 5 || parse(argv[1], 0, CPU_SETSIZE - 1, &cpu) ||
	    parse(argv[2], 1, 1000, &spin) || parse(argv[3], 2, 10000, &period) ||
	    spin >= period || parse(argv[4], 1, 3600, &secs)) {
		fprintf(stderr, "usage: cpu_hog CPU SPIN_MS PERIOD_MS SECS (SPIN_MS < PERIOD_MS)\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "cpu_hog: failed to pin to CPU %ld: %s\n", cpu, strerror(errno));
		return 1;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "cpu_hog: failed to set SCHED_FIFO: %s\n", strerror(errno));
		return 1;
	}
	printf("cpu_hog: ready\n");
	fflush(stdout);
	next = now_ns();
	stop = next + secs * 1000000000LL;
	while (next < stop) {
		struct timespec ts;

		while (now_ns() < next + spin * 1000000LL)
			;
		next += period * 1000000LL;
		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	return 0;
}
