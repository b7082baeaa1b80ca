// SPDX-License-Identifier: BSD-2-Clause
/*
 * patch_cost: what the SPDK patch's per-command code costs the thread that
 * runs it, measured by CPU accounting, without SPDK (tests/bench_cost.sh).
 * The code is the patch's own: include/spdk_internal/ntprof.h, extracted
 * from spdk-patch/ntprof.patch at build time and compiled against the
 * stub headers of tests/patch_stub. Each command takes the host's path in
 * lib/nvme/nvme_tcp.c: the sampling decision when it is submitted (and, if
 * sampled, its record begun and h_queue taken), then h_sent, the socket's
 * receive timestamps asked for or not, h_rx from a receive timestamp,
 * h_rx_drv, h_cqe, h_complete, the done record pushed into the thread's
 * batch (the probe fired with every 64th), and the poller's end-of-pass
 * check of the batch's age. A BASE run does the same loop (a new SQE per
 * command) without any of it: the difference is the patch's.
 *
 *   patch_cost [-b] [-w] [-a] N RATE
 *
 * N commands at sampling rate RATE (0: off); -b: the base loop, -a:
 * --no-arrivals (the flags bit), -w: wait until a collector writes the
 * rate (RATE ignored; its probe then traps into its BPF program). Prints
 * one line of key=value: the commands, those sampled, the thread's on-CPU ns (perf_event task-clock) and, where the machine
 * counts them, cycles and instructions, each per command.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spdk_internal/ntprof.h"

/* The patch's lib/nvme/nvme_ntprof.c defines them; here, this program. */
volatile uint32_t ntprof_sample_rate;
volatile uint32_t ntprof_sample_flags;

/* A request as the patch extends nvme_tcp_req. */
struct req {
	struct spdk_nvme_cmd cmd;
	bool ntp_sampled;
	struct ntp_cmd_record ntp;
};

static struct ntp_device_record dev = {
	.nsid = 1, .lba_shift = 9, .cntlid = 1, .kind = NTP_KIND_DEVICE,
	.version = NTP_ABI_VERSION, .name = "Malloc0", .nqn = "nqn.2026-10.edu.wisc.ntprof:cost",
};

/* The counters: task-clock (ns on CPU), cycles, instructions; -1 where the
 * machine has none (a VM without a PMU). */
static int counter(uint32_t type, uint64_t config)
{
	struct perf_event_attr a = {
		.type = type, .size = sizeof(a), .config = config, .disabled = 1,
		.exclude_hv = 1,
	};

	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static uint64_t value(int fd)
{
	uint64_t v = 0;

	if (fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/* The SQE of command I: 4 KiB reads over 64 MiB, cids wrapping. */
static void sqe(struct spdk_nvme_cmd *c, uint64_t i)
{
	c->opc = SPDK_NVME_OPC_READ;
	c->cid = (uint16_t)i;
	c->nsid = 1;
	c->cdw10 = (uint32_t)((i * 0x9e3779b1u) & 0x3fff) * 8;
	c->cdw11 = 0;
	c->cdw12 = 7;
}

static void base_loop(uint64_t n)
{
	struct req r = { 0 };

	for (uint64_t i = 0; i < n; i++) {
		sqe(&r.cmd, i);
		__asm__ volatile("" : : "r"(&r) : "memory");
	}
}

static void patch_loop(uint64_t n)
{
	struct spdk_sock sock = { 0 };
	struct ntp_batch *batch = NULL;
	struct req r = { 0 };
	uint32_t waiting = 0;
	uint16_t qid = 1;

	for (uint64_t i = 0; i < n; i++) {
		sqe(&r.cmd, i);
		/* nvme_tcp_ntp_start */
		r.ntp_sampled = ntp_cmd_sampled(&r.cmd, qid);
		if (spdk_unlikely(r.ntp_sampled)) {
			uint64_t now = ntp_now();

			ntp_cmd_init(&r.ntp, &r.cmd, qid, ntp_connect_cntlid(&r.cmd, qid, 1),
				     NTP_ROLE_HOST, dev.dev);
			r.ntp.ts[NTP_H_QUEUE] = now;
			waiting++;
		}
		NTP_REQ_MARK_ONCE(&r, NTP_H_SENT);
		/* a read of the socket: stamped if the timestamps are on */
		ntp_sock_want_tstamps(&sock, waiting);
		sock.ntp_rx_tstamp = sock.ntp_rx_tstamp_on ? 1800000000000000000ull + i : 0;
		NTP_REQ_ARRIVAL(&r, NTP_H_RX, &sock);
		NTP_REQ_MARK(&r, NTP_H_RX_DRV);
		NTP_REQ_MARK(&r, NTP_H_CQE);
		NTP_REQ_MARK(&r, NTP_H_COMPLETE);
		/* nvme_tcp_ntp_done */
		if (spdk_unlikely(r.ntp_sampled)) {
			r.ntp_sampled = false;
			waiting--;
			NTP_BATCH_PUSH(nvme_tcp_done, &batch, &r.ntp);
		}
		/* the poller's end of pass */
		NTP_BATCH_FLUSH_OLD(nvme_tcp_done, batch);
		__asm__ volatile("" : : "r"(&r) : "memory");
	}
	if (batch)
		NTP_BATCH_DESTROY(nvme_tcp_done, &batch);
}

/* How many of N commands the patch samples at RATE: the same hash. */
static uint64_t sampled_of(uint64_t n, uint32_t rate)
{
	struct spdk_nvme_cmd c = { 0 };
	uint64_t s = 0;

	for (uint64_t i = 0; i < n && rate; i++) {
		sqe(&c, i);
		s += ntp_sampled(ntp_sample_hash(1, c.cid, c.opc, c.nsid, ntp_cmd_slba(&c),
						 ntp_cmd_nlb(&c)), rate);
	}
	return s;
}

int main(int argc, char **argv)
{
	int base = 0, wait = 0, opt, fd[3];
	uint64_t n, v[3];
	uint32_t rate;

	while ((opt = getopt(argc, argv, "abw")) != -1) {
		switch (opt) {
		case 'a': ntprof_sample_flags = NTP_FLAG_NO_ARRIVALS; break;
		case 'b': base = 1; break;
		case 'w': wait = 1; break;
		default: goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	n = strtoull(argv[optind], NULL, 0);
	rate = (uint32_t)strtoul(argv[optind + 1], NULL, 0);
	if (!n)
		goto usage;
	dev.dev = (uint64_t)(uintptr_t)&dev;
	if (wait) {
		printf("patch_cost: ready\n");
		fflush(stdout);
		while (!ntprof_sample_rate) /* the collector writes it */
			usleep(1000);
		rate = ntprof_sample_rate;
	} else {
		ntprof_sample_rate = rate;
	}
	fd[0] = counter(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	fd[1] = counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	fd[2] = counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	if (fd[0] < 0) {
		fprintf(stderr, "patch_cost: failed to open the task-clock counter: %s\n",
			strerror(errno));
		return 1;
	}
	for (int i = 0; i < 3; i++)
		if (fd[i] >= 0)
			ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
	if (base)
		base_loop(n);
	else
		patch_loop(n);
	for (int i = 0; i < 3; i++) {
		if (fd[i] >= 0)
			ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
		v[i] = value(fd[i]);
	}
	printf("commands=%llu sampled=%llu ns_per_cmd=%.3f", (unsigned long long)n,
	       (unsigned long long)(base ? 0 : sampled_of(n, rate)), (double)v[0] / (double)n);
	if (v[1] && v[2])
		printf(" cycles_per_cmd=%.2f instructions_per_cmd=%.2f", (double)v[1] / (double)n,
		       (double)v[2] / (double)n);
	printf("\n");
	return 0;
usage:
	fprintf(stderr, "usage: patch_cost [-b] [-w] [-a] N RATE\n");
	return 2;
}
