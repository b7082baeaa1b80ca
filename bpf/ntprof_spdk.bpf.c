// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The SPDK path. The patch's USDT probes fire once per batch of done,
 * sampled commands with (batch, n), a user-space array of struct
 * ntp_cmd_record, so a command costs no uprobe trap of its own (one trap is
 * microseconds). The batch program copies the whole batch into the ring
 * buffer as one entry (struct ntp_batch_header, then the records): two
 * copies per batch, not a reservation per record. A reserve or read failure
 * is counted as lost, per record, never dropped silently.
 *
 * A record's device key is the address of a struct ntp_device_record in
 * the same process (bpf/ntprof_abi.h): the first time a key is seen, its
 * device record is copied to the ring buffer ahead of the batch.
 *
 * Nothing here runs per packet: over TCP the patch takes the arrival points
 * itself, from the kernel's receive timestamps (docs/stages.md).
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

/* A batch as it goes on the ring (too large for the stack). */
struct batch {
	struct ntp_batch_header h;
	struct ntp_cmd_record rec[NTP_BATCH_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct batch);
} scratch SEC(".maps");

/* The device record at address KEY in the process, once per key (keys are
 * addresses, so two processes could in principle share one; with ASLR
 * they do not). */
static __always_inline void send_device(__u64 key)
{
	struct ntp_device_record *d;
	__u8 one = 1;

	if (!key || bpf_map_lookup_elem(&devs_seen, &key))
		return;
	/* on failure, tried again with the next batch of the device; a
	 * record stored without it is counted by the collector (no_device) */
	d = bpf_ringbuf_reserve(&records, sizeof(*d), 0);
	if (!d)
		return;
	if (bpf_probe_read_user(d, sizeof(*d), (const void *)key)) {
		bpf_ringbuf_discard(d, 0);
		return;
	}
	bpf_ringbuf_submit(d, NTP_SUBMIT_FLAGS);
	bpf_map_update_elem(&devs_seen, &key, &one, BPF_ANY);
}

/* The devices of a batch's records, each new one once, ahead of the batch
 * (the ring is read in reservation order). A batch rarely names more than
 * one. A bpf_loop callback; its context lives on the stack. */
struct devices {
	struct batch *b;
	__u64 last; /* the previous record's key */
};

static long device_of(__u64 i, void *ctx)
{
	struct devices *d = ctx;
	__u64 key;

	if (i >= d->b->h.n || i >= NTP_BATCH_MAX)
		return 1;
	key = d->b->rec[i].dev;
	if (key != d->last)
		send_device(key);
	d->last = key;
	return 0;
}

static __always_inline int copy_batch(const struct ntp_cmd_record *rec, long n)
{
	__u32 zero = 0, size;
	struct batch *b = bpf_map_lookup_elem(&scratch, &zero);
	struct devices d = { b, 0 };

	if (n <= 0 || !b)
		return 0;
	if (n > NTP_BATCH_MAX) {
		count_lost(NTP_CAUSE_BATCH_OVERFLOW, n - NTP_BATCH_MAX);
		n = NTP_BATCH_MAX;
	}
	size = (__u32)n * sizeof(struct ntp_cmd_record);
	if (size > sizeof(b->rec) || bpf_probe_read_user(b->rec, size, rec)) {
		count_lost(NTP_CAUSE_UNREADABLE, n);
		return 0;
	}
	b->h.kind = NTP_KIND_BATCH;
	b->h.version = NTP_ABI_VERSION;
	b->h.pad = 0;
	b->h.n = n;
	bpf_loop(NTP_BATCH_MAX, device_of, &d, 0);
	size += sizeof(b->h);
	if (size > sizeof(*b) || bpf_ringbuf_output(&records, b, size, NTP_SUBMIT_FLAGS))
		count_lost(NTP_CAUSE_RING_FULL, n);
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
