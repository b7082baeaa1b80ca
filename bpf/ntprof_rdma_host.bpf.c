// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Linux kernel's NVMe/RDMA host driver (nvme_rdma): one program per
 * stage point, fentry on driver and ib_core functions and tp_btf on the
 * nvme and block tracepoints (or kprobes and raw_tp: the twins of
 * ntprof_kern_common.bpf.h). docs/stages.md, "Kernel RDMA host", says which
 * hook gives which point and why; collector/kern_hooks.c lists them.
 *
 * The response comes back as a RECV completion whose buffer holds the CQE:
 * its command id and the completion queue find the request, through the
 * entry the command's SEND left in `cids`.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ntprof_host.bpf.h"
#include "ntprof_rdma.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* A sampled command sent on a queue: (its queue's CQ, its command id). */
struct cid_key {
	__u64 cq;
	__u16 cid;
	__u16 pad[3]; /* zero: the key is hashed whole */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct cid_key);
	__type(value, __u64); /* its struct request */
} cids SEC(".maps");

/* The completion queue entry's fields (NVMe base spec, as on the wire). */
struct cqe {
	__u32 result[2];
	__u16 sq_head;
	__u16 sq_id;
	__u16 cid;
	__u16 status;
};

NTP_FN2(ntp_r_queue_rq, nvme_rdma_queue_rq, struct blk_mq_hw_ctx *, hctx,
	const struct blk_mq_queue_data *, bd)
{
	host_queued(bd);
	return 0;
}

/* The sampling decision (ntprof_host.bpf.h). */
NTP_TP2(ntp_k_setup_cmd, nvme_setup_cmd, struct request *, rq, void *, cmd)
{
	host_setup(rq, cmd);
	return 0;
}

/*
 * The command's SEND is posted (nvme_rdma_post_send, from queue_rq; the
 * asynchronous event's SEND has no request and finds no record). QE is the
 * request's `sqe`: the request's driver part, which follows struct request.
 */
NTP_FN2(ntp_r_post_send, nvme_rdma_post_send, struct nvme_rdma_queue___ntp *, queue,
	struct nvme_rdma_qe___ntp *, qe)
{
	void *req = (void *)qe - bpf_core_field_offset(struct nvme_rdma_request___ntp, sqe);
	__u64 key = (__u64)(req - bpf_core_type_size(struct request));
	struct ntp_cmd_record *r = bpf_map_lookup_elem(&inflight, &key);
	struct cid_key ck = {};

	if (!r)
		return 0;
	if (!r->ts[NTP_H_SENT])
		r->ts[NTP_H_SENT] = bpf_ktime_get_ns();
	ck.cq = (__u64)BPF_CORE_READ(queue, ib_cq);
	ck.cid = r->cid;
	bpf_map_update_elem(&cids, &ck, &key, BPF_ANY);
	return 0;
}

/* The completion event of one of the host's CQs (IB_POLL_SOFTIRQ). */
NTP_FN1(ntp_r_cq_event, ib_cq_completion_softirq, void *, cq)
{
	cq_signalled(cq);
	return 0;
}

/*
 * A RECV completed: the response capsule, whose buffer (the qe's data)
 * holds the CQE. h_rx is the arrival (the CQ's event, see ntprof_rdma.bpf.h),
 * h_rx_drv now.
 */
NTP_FN2(ntp_r_recv_done, nvme_rdma_recv_done, void *, cq, struct ib_wc___ntp *, wc)
{
	struct nvme_rdma_qe___ntp *qe;
	struct ntp_cmd_record *r;
	struct cid_key ck = { .cq = (__u64)cq };
	__u64 *rq;
	void *data;

	if (BPF_CORE_READ(wc, status))
		return 0;
	qe = (void *)BPF_CORE_READ(wc, wr_cqe) - bpf_core_field_offset(struct nvme_rdma_qe___ntp, cqe);
	data = BPF_CORE_READ(qe, data);
	if (!data || bpf_probe_read_kernel(&ck.cid, sizeof(ck.cid),
					   data + __builtin_offsetof(struct cqe, cid)))
		return 0;
	rq = bpf_map_lookup_elem(&cids, &ck);
	if (!rq)
		return 0;
	r = bpf_map_lookup_elem(&inflight, rq);
	if (r) {
		r->ts[NTP_H_RX] = cq_arrival(cq, r->ts[NTP_H_SENT]);
		r->ts[NTP_H_RX_DRV] = bpf_ktime_get_ns();
	}
	bpf_map_delete_elem(&cids, &ck);
	return 0;
}

/* The CQE processed: nvme_try_complete_req() hands the request on (after
 * the local invalidation of its memory region, where there is one). */
NTP_FN1(ntp_r_cqe, blk_mq_complete_request_remote, struct request *, rq)
{
	__u64 key = (__u64)rq;
	struct ntp_cmd_record *r = bpf_map_lookup_elem(&inflight, &key);

	if (r)
		r->ts[NTP_H_CQE] = bpf_ktime_get_ns();
	return 0;
}
