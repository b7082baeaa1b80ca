/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the kernel's NVMe host objects share, whatever the transport
 * (ntprof_tcp_host.bpf.c, ntprof_rdma_host.bpf.c): the request queue_rq
 * took, the sampling decision and the record at nvme_setup_cmd, the device
 * record, and the programs of the points every transport has the same way:
 * h_complete (nvme_complete_rq), h_end (block_rq_complete, where the record
 * goes out) and the requeue that voids a record.
 */
#ifndef NTPROF_HOST_BPF_H
#define NTPROF_HOST_BPF_H

#include "ntprof_kern_common.bpf.h"

/* Host: queue_rq's start, until nvme_setup_cmd (inside it) decides. */
struct pending {
	__u64 rq;
	__u64 ts;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pending);
} pending SEC(".maps");

/* The block device users see: the multipath head (nvme0n1) if there is
 * one, else the namespace's own disk. */
static __always_inline void host_device(struct nvme_ns___ntp *ns, __u64 key)
{
	struct ntp_device_record *d = device_begin(key);
	struct nvme_ns_head___ntp *head;
	struct gendisk *disk = NULL;

	if (!d)
		return;
	head = BPF_CORE_READ(ns, head);
	d->nsid = BPF_CORE_READ(head, ns_id);
	if (bpf_core_field_exists(ns->lba_shift))
		d->lba_shift = BPF_CORE_READ(ns, lba_shift);
	else
		d->lba_shift = BPF_CORE_READ(head, lba_shift);
	d->cntlid = BPF_CORE_READ(ns, ctrl, cntlid);
	if (bpf_core_field_exists(head->disk))
		disk = BPF_CORE_READ(head, disk);
	if (!disk)
		disk = BPF_CORE_READ(ns, disk);
	bpf_probe_read_kernel_str(d->name, sizeof(d->name), BPF_CORE_READ(disk, disk_name));
	bpf_probe_read_kernel_str(d->nqn, sizeof(d->nqn), BPF_CORE_READ(ns, ctrl, subsys, subnqn));
	device_end(d, key);
}

/* The driver's queue_rq took BD's request: nvme_setup_cmd, inside it,
 * decides on it. */
static __always_inline void host_queued(const struct blk_mq_queue_data *bd)
{
	__u32 zero = 0;
	struct pending *p = bpf_map_lookup_elem(&pending, &zero);

	if (p) {
		p->rq = (__u64)BPF_CORE_READ(bd, rq);
		p->ts = bpf_ktime_get_ns();
	}
}

/*
 * Inside the driver's queue_rq (checked: the pending request), the SQE is
 * complete, command id with its generation bits included. An unsampled
 * command costs the hash and its count here, nothing more: the device
 * record goes out with the first command of a kind or with a sampled one,
 * and a requeue voids its record where it happens (ntp_k_rq_requeue).
 * 1: RQ was sampled and has its record in `inflight`.
 */
static __always_inline int host_setup(struct request *rq, void *cmd)
{
	__u32 zero = 0;
	struct pending *p = bpf_map_lookup_elem(&pending, &zero);
	struct nvme_ns___ntp *ns;
	struct ntp_cmd_record r = {};
	struct sqe s;
	__u64 key = (__u64)rq, dev;
	__u16 qid;

	if (!p || p->rq != key)
		return 0; /* not this driver's */
	ns = BPF_CORE_READ(rq, q, queuedata);
	if (!ns || bpf_probe_read_kernel(&s, sizeof(s), cmd))
		return 0; /* admin queue: I/O commands only */
	if (s.opcode == NTP_OPC_FABRICS)
		return 0;
	dev = (__u64)ns;
	if (count_cmd(dev, s.opcode, s.cdw12 & 0xffff))
		host_device(ns, dev);
	qid = BPF_CORE_READ(rq, mq_hctx, queue_num) + 1;
	if (!sqe_sampled(&s, qid))
		return 0;
	host_device(ns, dev); /* again if the ring was full the first time */
	cmd_init(&r, &s, qid, BPF_CORE_READ(ns, ctrl, cntlid), NTP_ROLE_HOST);
	r.ts[NTP_H_START] = BPF_CORE_READ(rq, start_time_ns);
	r.ts[NTP_H_QUEUE] = p->ts;
	r.dev = dev;
	bpf_map_update_elem(&inflight, &key, &r, BPF_ANY);
	return 1;
}

NTP_TP1(ntp_k_complete_rq, nvme_complete_rq, struct request *, rq)
{
	__u64 key = (__u64)rq;
	struct ntp_cmd_record *r = bpf_map_lookup_elem(&inflight, &key);

	if (r)
		r->ts[NTP_H_COMPLETE] = bpf_ktime_get_ns();
	return 0;
}

/* The block layer completes the request: the record is done. */
NTP_TP1(ntp_k_rq_done, block_rq_complete, struct request *, rq)
{
	__u64 key = (__u64)rq;
	struct ntp_cmd_record *r = bpf_map_lookup_elem(&inflight, &key);

	if (!r)
		return 0;
	r->ts[NTP_H_END] = bpf_ktime_get_ns();
	emit(key, r);
	return 0;
}

/* A request goes back to the block layer's queue (a reconnect, a retry):
 * its record is void; when it goes out again it is sampled anew. */
NTP_TP1(ntp_k_rq_requeue, block_rq_requeue, struct request *, rq)
{
	__u64 key = (__u64)rq;

	bpf_map_delete_elem(&inflight, &key);
	return 0;
}

#endif
