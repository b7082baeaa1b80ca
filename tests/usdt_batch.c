// SPDX-License-Identifier: BSD-2-Clause
/*
 * A test fixture for bpf/ntprof_spdk.bpf.c: it fires batches through
 * ntprof:nvmf_tcp_done the way the SPDK patch does, after a byte arrives on
 * stdin (so the test can attach first). Device keys are the addresses of
 * device records, as in the patch. The batches:
 *   1  records 0-6, device A
 *   2  records 7-70, a full batch: 7-38 device A, 39-70 device B (new)
 *   3  70 records claimed, one more than a probe hit carries: the first 64
 *      (71-134) are copied, 6 are counted batch_overflow
 *   4  5 records at an address the process does not map: unreadable
 * Record i has slba 1000 + i and cid i. stdout: "ready", then "done".
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "ntprof_abi.h"

static struct ntp_device_record dev_a = {
	.nsid = 1, .lba_shift = 9, .cntlid = 1, .kind = NTP_KIND_DEVICE,
	.version = NTP_ABI_VERSION, .name = "Malloc0", .nqn = "nqn.2026-10.edu.wisc.ntprof:t",
};
static struct ntp_device_record dev_b = {
	.nsid = 2, .lba_shift = 12, .cntlid = 1, .kind = NTP_KIND_DEVICE,
	.version = NTP_ABI_VERSION, .name = "Malloc1", .nqn = "nqn.2026-10.edu.wisc.ntprof:t",
};

static struct ntp_cmd_record recs[135];

static void rec(struct ntp_cmd_record *r, int i, const struct ntp_device_record *d)
{
	memset(r, 0, sizeof(*r));
	r->kind = NTP_KIND_CMD;
	r->version = NTP_ABI_VERSION;
	r->role = NTP_ROLE_TARGET;
	r->slba = 1000 + (unsigned)i;
	r->cid = (unsigned short)i;
	r->dev = d->dev;
	r->ts[NTP_T_CMD] = 1000000 + (unsigned)i;
}

int main(void)
{
	char c;

	dev_a.dev = (uint64_t)(uintptr_t)&dev_a;
	dev_b.dev = (uint64_t)(uintptr_t)&dev_b;
	for (int i = 0; i < 135; i++)
		rec(&recs[i], i, i < 39 ? &dev_a : &dev_b);
	printf("ready\n");
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 1;
	DTRACE_PROBE2(ntprof, nvmf_tcp_done, &recs[0], 7);
	DTRACE_PROBE2(ntprof, nvmf_tcp_done, &recs[7], 64);
	DTRACE_PROBE2(ntprof, nvmf_tcp_done, &recs[71], 70); /* 64 there, 6 past the end */
	DTRACE_PROBE2(ntprof, nvmf_tcp_done, (const struct ntp_cmd_record *)16, 5);
	printf("done\n");
	fflush(stdout);
	return 0;
}
