/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the kernel path's BPF programs (bpf/ntprof_tcp_*.bpf.c) and the
 * collector (collector/kern.c) share besides the record ABI: the key of the
 * per-group command counts. Not part of the SPDK patch's ABI.
 */
#ifndef NTPROF_KERN_H
#define NTPROF_KERN_H

#if !defined(__bpf__) && !defined(__KERNEL__)
#include <linux/types.h>
#endif

/* One group of commands counted exactly (interval_grp.total): device key,
 * blocks per command, opcode. */
struct ntp_count_key {
	__u64 dev;
	__u32 nlb;
	__u8 opcode;
	__u8 pad[3]; /* zero: the key is hashed whole */
};

_Static_assert(sizeof(struct ntp_count_key) == 16, "struct ntp_count_key is 16 bytes");

#endif
