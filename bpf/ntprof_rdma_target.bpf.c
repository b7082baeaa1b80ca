// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Linux kernel's NVMe/RDMA target driver (nvmet_rdma): one program per
 * stage point, fentry on driver, ib_core and backend functions and tp_btf
 * on the nvmet tracepoints (or kprobes and raw_tp: the twins of
 * ntprof_kern_common.bpf.h). docs/stages.md, "Kernel RDMA target", says
 * which hook gives which point and why; collector/kern_hooks.c lists them.
 *
 * A command is the driver's `struct nvmet_rdma_rsp` around its nvmet_req:
 * the RDMA READ of a write's data and the response name it by the cqe
 * inside it.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ntprof_rdma.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* The driver's queues seen (nvmet's tracepoints serve every transport). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} queues SEC(".maps");

/* nvmet_rdma_handle_command's request and its arrival, until
 * nvmet_req_init (inside it) decides. */
struct pending {
	__u64 req;
	__u64 rx;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pending);
} pending SEC(".maps");

static __always_inline struct nvmet_rdma_rsp___ntp *rsp_of(struct nvmet_req___ntp *req)
{
	return (void *)req - bpf_core_field_offset(struct nvmet_rdma_rsp___ntp, req);
}

/* The request of the rsp whose read_cqe is CQE. */
static __always_inline __u64 req_of_read_cqe(void *cqe)
{
	void *rsp = cqe - bpf_core_field_offset(struct nvmet_rdma_rsp___ntp, read_cqe);

	return (__u64)rsp + bpf_core_field_offset(struct nvmet_rdma_rsp___ntp, req);
}

static __always_inline int target_claims(struct nvmet_req___ntp *req)
{
	__u64 q = (__u64)BPF_CORE_READ(rsp_of(req), queue);

	return bpf_map_lookup_elem(&queues, &q) != NULL;
}

static __always_inline void target_executes(struct nvmet_req___ntp *req,
					    struct ntp_cmd_record *r)
{
}

#include "ntprof_target.bpf.h"

/* The completion event of one of the target's CQs (IB_POLL_WORKQUEUE). */
NTP_FN1(ntp_r_t_cq_event, ib_cq_completion_workqueue, void *, cq)
{
	cq_signalled(cq);
	return 0;
}

/* A capsule's RECV completed and its command is handled (from
 * nvmet_rdma_recv_done, or later for a queue still connecting). */
NTP_FN2(ntp_r_handle_cmd, nvmet_rdma_handle_command, struct nvmet_rdma_queue___ntp *, queue,
	struct nvmet_rdma_rsp___ntp *, rsp)
{
	__u32 zero = 0;
	struct pending *p = bpf_map_lookup_elem(&pending, &zero);
	__u64 q = (__u64)queue;
	__u8 one = 1;

	if (!bpf_map_lookup_elem(&queues, &q))
		bpf_map_update_elem(&queues, &q, &one, BPF_ANY);
	if (p) {
		p->req = (__u64)rsp + bpf_core_field_offset(struct nvmet_rdma_rsp___ntp, req);
		p->rx = cq_arrival(BPF_CORE_READ(queue, cq), 0);
	}
	return 0;
}

/* The sampling decision (ntprof_target.bpf.h), inside handle_command. */
NTP_TP2(ntp_k_req_init, nvmet_req_init, struct nvmet_req___ntp *, req, void *, cmd)
{
	__u32 zero = 0;
	struct pending *p = bpf_map_lookup_elem(&pending, &zero);
	struct ntp_cmd_record r = {};
	__u64 key = (__u64)req;

	if (!p || p->req != key || !target_begin(req, cmd, &r))
		return 0;
	r.ts[NTP_T_RX] = p->rx;
	bpf_map_update_elem(&inflight, &key, &r, BPF_ANY);
	return 0;
}

/* The RDMA READ of a write's data is posted (rdma_rw_ctx_post with the
 * rsp's read_cqe; other users of the call find no record). */
NTP_FN4(ntp_r_read_post, rdma_rw_ctx_post, void *, rw, void *, qp, u32, port, void *, cqe)
{
	__u64 key = req_of_read_cqe(cqe);
	struct ntp_cmd_record *r = bpf_map_lookup_elem(&inflight, &key);

	if (r && !r->ts[NTP_T_R2T])
		r->ts[NTP_T_R2T] = bpf_ktime_get_ns();
	return 0;
}

/* The RDMA READ completed: the write's data is here. */
NTP_FN2(ntp_r_read_done, nvmet_rdma_read_data_done, void *, cq, struct ib_wc___ntp *, wc)
{
	__u64 key = req_of_read_cqe(BPF_CORE_READ(wc, wr_cqe));
	struct ntp_cmd_record *r = bpf_map_lookup_elem(&inflight, &key);

	if (r)
		r->ts[NTP_T_DATA_RX] = cq_arrival(cq, r->ts[NTP_T_R2T]);
	return 0;
}

/* The response is posted now: its SEND, chained after the RDMA WRITEs of a
 * read's data, so the data's first byte goes out with it. The record ends. */
NTP_FN1(ntp_r_queue_resp, nvmet_rdma_queue_response, struct nvmet_req___ntp *, req)
{
	__u64 key = (__u64)req;
	struct ntp_cmd_record *r = bpf_map_lookup_elem(&inflight, &key);

	if (!r)
		return 0;
	r->ts[NTP_T_SENT] = bpf_ktime_get_ns();
	emit(key, r);
	return 0;
}
