// SPDX-License-Identifier: BSD-2-Clause
/*
 * spdk_trace_log: SPDK's own tracing of a host's commands as a latency log
 * that check_fidelity reads (tests/spdk/verify.sh, the peer case).
 *
 *   spdk_trace_log anchor
 *       prints "TSC MONO": a reading of the CPU's time stamp counter and
 *       of CLOCK_MONOTONIC (ns) taken together (of 1000 tries, the one
 *       whose two TSC reads around clock_gettime are closest; the TSC is
 *       their middle). Two anchors, before and after a run, map the TSC
 *       SPDK's trace stamps its events with onto the clock ntprof's points
 *       are in: a straight line, as the kernel's own clocksource is when it
 *       is the TSC (verify.sh checks that it is).
 *
 *   spdk_trace_log log TSC0 MONO0 TSC1 MONO1 RATE NSID < COMMANDS > LATLOG
 *       COMMANDS: one command a line, "submit_tsc complete_tsc qid cid
 *       opcode slba nlb" (tests/spdk/trace_cmds.py, from spdk_trace -j:
 *       NVME_TCP_SUBMIT and NVME_TCP_COMPLETE of the same request, nlb
 *       0-based as in the SQE); writes a latency log in the format of
 *       fixture_perf --lat-log (tests/fixture/nvmf_fixture.h), each
 *       command's submission mapped to CLOCK_MONOTONIC, its latency in ns,
 *       and whether ntprof's sampling rule (bpf/ntprof_abi.h, the same
 *       function the patch calls) picks it at -s RATE. The workload's
 *       "own" latency is then SPDK's: from NVME_TCP_SUBMIT, traced where
 *       the patch takes h_queue, to NVME_TCP_COMPLETE, traced in
 *       nvme_tcp_req_complete between h_cqe and h_complete.
 *
 * Exits 0, 1 on bad input (with the line), 2 on a usage error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "ntprof_abi.h"
#include "nvmf_fixture.h"

#define PROG "spdk_trace_log"

static int anchor(void)
{
	uint64_t best_gap = UINT64_MAX, best_tsc = 0, best_mono = 0;

	for (int i = 0; i < 1000; i++) {
		struct timespec ts;
		uint64_t a = __rdtsc(), b;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		b = __rdtsc();
		if (b - a < best_gap) {
			best_gap = b - a;
			best_tsc = a + (b - a) / 2;
			best_mono = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		}
	}
	printf("%llu %llu\n", (unsigned long long)best_tsc, (unsigned long long)best_mono);
	return 0;
}

static int u64_arg(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || end == s;
}

static int log_cmds(char **argv)
{
	uint64_t tsc0, mono0, tsc1, mono1, rate, nsid, n = 0, sampled = 0, line = 0;
	double ns_per_tick;
	char buf[256];

	if (u64_arg(argv[0], &tsc0) || u64_arg(argv[1], &mono0) || u64_arg(argv[2], &tsc1) ||
	    u64_arg(argv[3], &mono1) || u64_arg(argv[4], &rate) || u64_arg(argv[5], &nsid) ||
	    tsc1 <= tsc0 || mono1 <= mono0 || !rate || rate > UINT32_MAX || nsid > UINT32_MAX) {
		fprintf(stderr, PROG ": bad anchors, RATE or NSID\n");
		return 2;
	}
	ns_per_tick = (double)(mono1 - mono0) / (double)(tsc1 - tsc0);
	if (fwrite(FX_LAT_MAGIC, 1, 8, stdout) != 8)
		goto write_err;
	while (fgets(buf, sizeof(buf), stdin)) {
		unsigned long long s, c, slba;
		unsigned int qid, cid, opc, nlb;
		struct fx_lat_rec r;

		line++;
		if (sscanf(buf, "%llu %llu %u %u %u %llu %u", &s, &c, &qid, &cid, &opc, &slba,
			   &nlb) != 7 || c < s || qid > 0xffff || cid > 0xffff || opc > 0xff ||
		    nlb > 0xffff || s < tsc0 || s > tsc1) {
			fprintf(stderr, PROG ": line %llu: not 'submit_tsc complete_tsc qid cid opcode "
				"slba nlb' within the anchors: %s", (unsigned long long)line, buf);
			return 1;
		}
		memset(&r, 0, sizeof(r));
		r.t_submit = mono0 + (uint64_t)((double)(s - tsc0) * ns_per_tick + 0.5);
		r.lat_ns = (uint64_t)((double)(c - s) * ns_per_tick + 0.5);
		r.slba = slba;
		r.cid = (uint16_t)cid;
		r.opcode = (uint8_t)opc;
		r.sampled = (uint8_t)ntp_sampled(ntp_sample_hash((__u16)qid, (__u16)cid, (__u8)opc,
								 (__u32)nsid, slba, nlb),
						 (__u32)rate);
		sampled += r.sampled;
		n++;
		if (fwrite(&r, sizeof(r), 1, stdout) != 1)
			goto write_err;
	}
	if (ferror(stdin) || fflush(stdout))
		goto write_err;
	fprintf(stderr, PROG ": %llu commands, %llu of them sampled at -s %llu; %.6f ns a tick\n",
		(unsigned long long)n, (unsigned long long)sampled, (unsigned long long)rate,
		ns_per_tick);
	return 0;
write_err:
	fprintf(stderr, PROG ": %s\n", strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "anchor"))
		return anchor();
	if (argc == 8 && !strcmp(argv[1], "log"))
		return log_cmds(argv + 2);
	fprintf(stderr, "usage: " PROG " anchor\n"
			"       " PROG " log TSC0 MONO0 TSC1 MONO1 RATE NSID < COMMANDS > LATLOG\n");
	return 2;
}
