// SPDX-License-Identifier: BSD-2-Clause
/*
 * A test fixture for bpf/ntprof_spdk.bpf.c: fires ntprof:nvmf_tcp_done once
 * with a batch of three records, the way the SPDK patch does, after a byte
 * arrives on stdin (so the test can attach first). Their device key is the
 * address of a device record, as in the patch.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "ntprof_abi.h"

static struct ntp_device_record dev = {
	.nsid = 1, .lba_shift = 9, .cntlid = 1, .kind = NTP_KIND_DEVICE,
	.version = NTP_ABI_VERSION, .name = "Malloc0", .nqn = "nqn.2026-10.edu.wisc.ntprof:t",
};

int main(void)
{
	struct ntp_cmd_record batch[3];
	char c;

	dev.dev = (uint64_t)(uintptr_t)&dev;
	memset(batch, 0, sizeof(batch));
	for (int i = 0; i < 3; i++) {
		batch[i].kind = NTP_KIND_CMD;
		batch[i].version = NTP_ABI_VERSION;
		batch[i].role = NTP_ROLE_TARGET;
		batch[i].slba = 1000 + (unsigned)i;
		batch[i].cid = (unsigned short)(10 + i);
		batch[i].ts[NTP_T_RX] = 5000 + (unsigned)i;
		batch[i].dev = dev.dev;
	}
	printf("ready\n");
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 1;
	DTRACE_PROBE2(ntprof, nvmf_tcp_done, batch, 3);
	return 0;
}
