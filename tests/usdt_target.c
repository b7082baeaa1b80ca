// SPDX-License-Identifier: BSD-2-Clause
/*
 * A test fixture for collector/usdt.c: the probes the SPDK patch will add,
 * with known site counts (two nvmf_tcp_done sites, one of each other), and
 * no semaphores, like SPDK's usdt.h. Built as a program and as a shared
 * library, because a
 * shared-library SPDK keeps its probes in libspdk_nvmf.so.
 */
#include <sys/sdt.h>

int ntp_fixture_probes(int n, void *batch)
{
	DTRACE_PROBE2(ntprof, nvmf_tcp_done, batch, n);
	if (n > 1)
		DTRACE_PROBE2(ntprof, nvmf_tcp_done, batch, 1);
	DTRACE_PROBE2(ntprof, nvme_tcp_done, batch, n);
	DTRACE_PROBE2(ntprof, nvmf_rdma_done, batch, n);
	DTRACE_PROBE2(ntprof, nvme_rdma_done, batch, n);
	return n;
}

#ifndef USDT_LIBRARY
int main(int argc, char **argv)
{
	return ntp_fixture_probes(argc, argv) == argc ? 0 : 1;
}
#endif
