/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the kernel's NVMe/RDMA objects share (ntprof_rdma_host.bpf.c,
 * ntprof_rdma_target.bpf.c): when a completion queue last signalled.
 *
 * An RDMA arrival is a work completion written to a completion queue by the
 * device; the driver learns of it when the CQ's completion event runs
 * (ib_core's handler: a softirq for nvme_rdma, a work item for nvmet_rdma)
 * and then polls the CQ. The event's time is the arrival of the first
 * completion the poll finds. Later completions of the same poll arrived
 * after the event, at a time nobody records: they take the time their
 * handler runs (the receive path then counts as zero, never as negative
 * network time).
 */
#ifndef NTPROF_RDMA_BPF_H
#define NTPROF_RDMA_BPF_H

#include "ntprof_kern_common.bpf.h"

struct cq_mark {
	__u64 ts;    /* the CQ's last completion event */
	__u64 taken; /* a completion took it already */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct cq_mark);
} cq_marks SEC(".maps");

/* CQ's completion event runs now. */
static __always_inline void cq_signalled(void *cq)
{
	__u64 key = (__u64)cq;
	struct cq_mark m = { .ts = bpf_ktime_get_ns() };

	bpf_map_update_elem(&cq_marks, &key, &m, BPF_ANY);
}

/* When the completion being handled on CQ arrived: the event, if no other
 * completion took it and it is not older than NOT_BEFORE (the time this
 * command's last crossing started); else now. */
static __always_inline __u64 cq_arrival(void *cq, __u64 not_before)
{
	__u64 key = (__u64)cq, now = bpf_ktime_get_ns();
	struct cq_mark *m = bpf_map_lookup_elem(&cq_marks, &key);

	if (!m || m->taken || m->ts < not_before)
		return now;
	m->taken = 1;
	return m->ts;
}

#endif
