/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the kernel's NVMe target objects share, whatever the transport
 * (ntprof_tcp_target.bpf.c, ntprof_rdma_target.bpf.c): the device record,
 * the record a sampled command gets at nvmet_req_init, and the points
 * every transport has the same way: t_exec (the backends' execute
 * functions), t_stor (the bio's completion) and t_resp (nvmet_req_complete,
 * which also counts the command and sends its device record).
 *
 * Each object defines, before it includes this header:
 *   target_claims(req)    1 if REQ is its transport's (nvmet's tracepoints
 *                         serve every transport);
 *   target_executes(req, r) what else it records at t_exec.
 */
#ifndef NTPROF_TARGET_BPF_H
#define NTPROF_TARGET_BPF_H

#include "ntprof_kern_common.bpf.h"

/* The target's device key: one per namespace and controller, as the
 * device table has one row per (nqn, cntlid, nsid). */
static __always_inline __u64 target_dev(struct nvmet_ns___ntp *ns, __u16 cntlid)
{
	return (__u64)ns ^ ((__u64)cntlid << 48);
}

static __always_inline void target_device(struct nvmet_ns___ntp *ns, __u16 cntlid, __u64 key)
{
	struct ntp_device_record *d = device_begin(key);
	char path[64];
	int n, base = 0;

	if (!d)
		return;
	d->nsid = BPF_CORE_READ(ns, nsid);
	d->lba_shift = BPF_CORE_READ(ns, blksize_shift);
	d->cntlid = cntlid;
	/* the name is the backing device's: /dev/nullb0 -> nullb0 */
	n = bpf_probe_read_kernel_str(path, sizeof(path), BPF_CORE_READ(ns, device_path));
	/* from the end, stopping at the first '/': one state per position
	 * (a forward scan that remembers the last '/' explodes the verifier) */
	for (int i = sizeof(path) - 1; i >= 0; i--) {
		if (i < n && path[i] == '/') {
			base = i + 1;
			break;
		}
	}
	bpf_probe_read_kernel_str(d->name, sizeof(d->name), &path[base & (sizeof(path) - 1)]);
	bpf_probe_read_kernel_str(d->nqn, sizeof(d->nqn), BPF_CORE_READ(ns, subsys, subsysnqn));
	device_end(d, key);
}

/*
 * nvmet_req_init has the SQE; on every kernel the tracepoint fires inside
 * it (before or after parsing, which is why the namespace is taken at the
 * completion). R is the new record of REQ's command if it is sampled
 * (1), t_cmd set; the caller adds t_rx and puts it in `inflight`.
 */
static __always_inline int target_begin(struct nvmet_req___ntp *req, void *cmd,
					struct ntp_cmd_record *r)
{
	__u64 key = (__u64)req;
	struct sqe s;
	__u16 qid;

	if (bpf_probe_read_kernel(&s, sizeof(s), cmd))
		return 0;
	bpf_map_delete_elem(&inflight, &key); /* a request that never ended */
	qid = BPF_CORE_READ(req, sq, qid);
	if (!qid || s.opcode == NTP_OPC_FABRICS)
		return 0;
	if (!sqe_sampled(&s, qid))
		return 0;
	cmd_init(r, &s, qid, BPF_CORE_READ(req, sq, ctrl, cntlid), NTP_ROLE_TARGET);
	r->ts[NTP_T_CMD] = bpf_ktime_get_ns();
	return 1;
}

/* Submitted to storage. */
static __always_inline int target_exec(struct nvmet_req___ntp *req)
{
	__u64 key = (__u64)req;
	struct ntp_cmd_record *r = bpf_map_lookup_elem(&inflight, &key);

	if (!r)
		return 0;
	r->ts[NTP_T_EXEC] = bpf_ktime_get_ns();
	target_executes(req, r);
	return 0;
}
/* The backends' execute functions, one program each (fentry attaches to
 * one function); each is loaded only where the kernel has it. */
#define NTP_EXEC_HOOK(prog, func)                                  \
	NTP_FN1(prog, func, struct nvmet_req___ntp *, req)         \
	{                                                          \
		return target_exec(req);                           \
	}

NTP_EXEC_HOOK(ntp_k_bdev_rw, nvmet_bdev_execute_rw)
NTP_EXEC_HOOK(ntp_k_bdev_flush, nvmet_bdev_execute_flush)
NTP_EXEC_HOOK(ntp_k_bdev_wz, nvmet_bdev_execute_write_zeroes)
NTP_EXEC_HOOK(ntp_k_bdev_dsm, nvmet_bdev_execute_dsm)
NTP_EXEC_HOOK(ntp_k_file_rw, nvmet_file_execute_rw)

/* The block backend's bio completion (chained bios end here once). */
NTP_FN1(ntp_k_bio_done, nvmet_bio_done, struct bio *, bio)
{
	__u64 key = (__u64)BPF_CORE_READ(bio, bi_private);
	struct ntp_cmd_record *r = bpf_map_lookup_elem(&inflight, &key);

	if (r && !r->ts[NTP_T_STOR])
		r->ts[NTP_T_STOR] = bpf_ktime_get_ns();
	return 0;
}

/* The response is queued (__nvmet_req_complete, before queue_response).
 * The namespace is known by now on every kernel: the device and count. */
NTP_TP1(ntp_k_req_complete, nvmet_req_complete, struct nvmet_req___ntp *, req)
{
	__u64 key = (__u64)req, dev;
	struct nvmet_ns___ntp *ns = BPF_CORE_READ(req, ns);
	struct ntp_cmd_record *r;
	struct sqe s;
	__u16 cntlid;

	if (!ns || !BPF_CORE_READ(req, sq, qid) || !target_claims(req) ||
	    bpf_probe_read_kernel(&s, sizeof(s), BPF_CORE_READ(req, cmd)))
		return 0;
	cntlid = BPF_CORE_READ(req, sq, ctrl, cntlid);
	dev = target_dev(ns, cntlid);
	target_device(ns, cntlid, dev);
	count_cmd(dev, s.opcode, s.cdw12 & 0xffff);
	r = bpf_map_lookup_elem(&inflight, &key);
	if (r) {
		r->dev = dev;
		r->ts[NTP_T_RESP] = bpf_ktime_get_ns();
	}
	return 0;
}

#endif
