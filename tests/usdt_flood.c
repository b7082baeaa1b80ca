// SPDX-License-Identifier: BSD-2-Clause
/*
 * A load for ntprof-collect's ingest (tests/bench_collect.sh,
 * tests/collect_test.sh): fires ntprof:nvmf_tcp_done with full batches of
 * 64 target records for the seconds given, the way the SPDK patch hands
 * them over: as fast as it can, or at RATE records a second
 * (usdt_flood SECS [RATE [VERSION]]; VERSION, the records' ABI version,
 * other than this build's, makes records the collector must refuse). It
 * has the sampling variable the collector insists on, and prints how many
 * records it fired.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <time.h>

#include "flood.h"
#include "ntprof_abi.h"

#define BATCH 64

volatile uint32_t ntprof_sample_rate;

static struct ntp_device_record dev = {
	.nsid = 1, .lba_shift = 9, .cntlid = 1, .kind = NTP_KIND_DEVICE,
	.version = NTP_ABI_VERSION, .name = "Malloc0", .nqn = "nqn.2026-10.edu.wisc.ntprof:flood",
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static struct ntp_cmd_record batch[BATCH];
	double secs = argc > 1 ? atof(argv[1]) : 5, rate = argc > 2 ? atof(argv[2]) : 0;
	uint64_t end, start, fired = 0;
	uint16_t cid = 0;
	uint8_t version = argc > 3 ? (uint8_t)atoi(argv[3]) : NTP_ABI_VERSION;

	dev.dev = (uint64_t)(uintptr_t)&dev;
	printf("usdt_flood: ready\n");
	fflush(stdout);
	/* wait until a collector sets the variable */
	while (!ntprof_sample_rate)
		;
	start = now_ns();
	end = start + (uint64_t)(secs * 1e9);
	while (now_ns() < end) {
		uint64_t t = now_ns();

		/* at RATE: the next batch when its time has come */
		if (rate > 0 && (double)fired * 1e9 / rate > (double)(t - start)) {
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);
			continue;
		}
		for (int i = 0; i < BATCH; i++)
			flood_fill(&batch[i], t + (uint64_t)i, cid++, (uint64_t)(uintptr_t)&dev,
				   version);
		DTRACE_PROBE2(ntprof, nvmf_tcp_done, batch, (long)BATCH);
		fired += BATCH;
	}
	printf("usdt_flood: fired=%llu\n", (unsigned long long)fired);
	return 0;
}
