// SPDX-License-Identifier: BSD-2-Clause
/*
 * A test fixture for bpf/ntprof_spdk.bpf.c: fires ntprof:nvmf_tcp_done once
 * with a batch of three records, the way the SPDK patch will, after a byte
 * arrives on stdin (so the test can attach first).
 */
#include <stdio.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "ntprof_abi.h"

int main(void)
{
	struct ntp_cmd_record batch[3];
	char c;

	memset(batch, 0, sizeof(batch));
	for (int i = 0; i < 3; i++) {
		batch[i].kind = NTP_KIND_CMD;
		batch[i].version = NTP_ABI_VERSION;
		batch[i].role = NTP_ROLE_TARGET;
		batch[i].slba = 1000 + (unsigned)i;
		batch[i].cid = (unsigned short)(10 + i);
		batch[i].ts[NTP_T_RX] = 5000 + (unsigned)i;
	}
	printf("ready\n");
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 1;
	DTRACE_PROBE2(ntprof, nvmf_tcp_done, batch, 3);
	return 0;
}
