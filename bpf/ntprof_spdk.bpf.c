// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The SPDK patch's USDT probes: each fires once per batch of done, sampled
 * commands with (batch, n), a user-space array of struct ntp_cmd_record, so
 * a command costs no uprobe trap of its own (issue 3: one trap is ~6 us).
 * The programs copy the records into the ring buffer; a reserve or read
 * failure is counted as lost, never dropped silently.
 *
 * A record's device key is the address of a struct ntp_device_record in
 * the same process (bpf/ntprof_abi.h): the first time a key is seen, its
 * device record is copied to the ring buffer ahead of the command.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "ntprof_abi.h"
#include "ntprof_common.bpf.h"

/* Records copied per probe hit at most; the patch flushes at this size. */
#define NTP_BATCH_MAX 64

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} records SEC(".maps");

/* Device keys already sent in this recording. Keys are addresses, so two
 * processes could in principle share one; with ASLR they do not. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} devs_seen SEC(".maps");

static __always_inline void send_device(__u64 key)
{
	struct ntp_device_record *d;
	__u8 one = 1;

	if (!key || bpf_map_lookup_elem(&devs_seen, &key))
		return;
	d = bpf_ringbuf_reserve(&records, sizeof(*d), 0);
	if (!d) {
		count_lost(1);
		return;
	}
	if (bpf_probe_read_user(d, sizeof(*d), (const void *)key)) {
		bpf_ringbuf_discard(d, 0);
		count_lost(1);
		return;
	}
	bpf_ringbuf_submit(d, NTP_SUBMIT_FLAGS);
	bpf_map_update_elem(&devs_seen, &key, &one, BPF_ANY);
}

static __always_inline int copy_batch(const struct ntp_cmd_record *batch, long n)
{
	if (n > NTP_BATCH_MAX) {
		count_lost(n - NTP_BATCH_MAX);
		n = NTP_BATCH_MAX;
	}
	for (int i = 0; i < NTP_BATCH_MAX; i++) {
		struct ntp_cmd_record *r;
		__u64 key = 0;

		if (i >= n)
			break;
		/* the device goes first: the ring is read in reservation order */
		if (!bpf_probe_read_user(&key, sizeof(key), &batch[i].dev))
			send_device(key);
		r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);
		if (!r) {
			count_lost(1);
			continue;
		}
		if (bpf_probe_read_user(r, sizeof(*r), &batch[i])) {
			bpf_ringbuf_discard(r, 0);
			count_lost(1);
			continue;
		}
		bpf_ringbuf_submit(r, NTP_SUBMIT_FLAGS);
	}
	return 0;
}

SEC("usdt")
int BPF_USDT(ntp_u_nvmf_tcp_done, const struct ntp_cmd_record *batch, long n)
{
	return copy_batch(batch, n);
}

SEC("usdt")
int BPF_USDT(ntp_u_nvme_tcp_done, const struct ntp_cmd_record *batch, long n)
{
	return copy_batch(batch, n);
}

/* The RDMA twins: the same batches from lib/nvmf/rdma.c and lib/nvme/nvme_rdma.c. */
SEC("usdt")
int BPF_USDT(ntp_u_nvmf_rdma_done, const struct ntp_cmd_record *batch, long n)
{
	return copy_batch(batch, n);
}

SEC("usdt")
int BPF_USDT(ntp_u_nvme_rdma_done, const struct ntp_cmd_record *batch, long n)
{
	return copy_batch(batch, n);
}
