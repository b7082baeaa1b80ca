/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The collector's clock readings, in ns: its intervals, deadlines and
 * process ages (CLOCK_MONOTONIC), and the recording's wall-clock start
 * (CLOCK_REALTIME).
 */
#ifndef NTP_CLOCK_H
#define NTP_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NTP_NS_PER_S 1000000000LL

static inline int64_t ntp_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * NTP_NS_PER_S + ts.tv_nsec;
}

#endif /* NTP_CLOCK_H */
