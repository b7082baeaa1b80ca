// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Linux kernel's NVMe/TCP target driver (nvmet_tcp): one program per
 * stage point, fentry on driver, backend and TCP functions and tp_btf on
 * the nvmet tracepoints (or kprobes and raw_tp: the twins of
 * ntprof_kern_common.bpf.h). docs/stages.md, "Kernel TCP target", says
 * which hook gives which point and why; collector/kern_hooks.c lists them,
 * and the collector loads only those whose function the kernel has.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ntprof_tcp.bpf.h"

char LICENSE[] SEC("license") = "GPL";

static __always_inline struct nvmet_tcp_cmd___ntp *tcp_cmd_of(struct nvmet_req___ntp *req)
{
	return (void *)req - bpf_core_field_offset(struct nvmet_tcp_cmd___ntp, req);
}

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
 * completion). It serves every nvmet transport: a request is nvmet_tcp's
 * when its command's queue has a socket nvmet_tcp_data_ready has seen.
 * The capsule header was just read, so its last byte is at copied_seq - 1.
 */
NTP_TP2(ntp_k_req_init, nvmet_req_init, struct nvmet_req___ntp *, req, void *, cmd)
{
	struct nvmet_tcp_cmd___ntp *tc = tcp_cmd_of(req);
	struct sock *sk = BPF_CORE_READ(tc, queue, sock, sk);
	__u64 skey = (__u64)sk, key = (__u64)req;
	struct sockstate *st = bpf_map_lookup_elem(&socks, &skey);
	struct ntp_cmd_record r = {};
	struct sqe s;
	__u16 qid;

	if (!st || bpf_probe_read_kernel(&s, sizeof(s), cmd))
		return 0;
	bpf_map_delete_elem(&inflight, &key); /* a request that never ended */
	qid = BPF_CORE_READ(req, sq, qid);
	if (!qid || s.opcode == NTP_OPC_FABRICS)
		return 0;
	if (!sqe_sampled(&s, qid))
		return 0;
	cmd_init(&r, &s, qid, BPF_CORE_READ(req, sq, ctrl, cntlid), NTP_ROLE_TARGET);
	r.ts[NTP_T_CMD] = bpf_ktime_get_ns();
	r.ts[NTP_T_RX] = arrival_of(st, BPF_CORE_READ((struct tcp_sock *)sk, copied_seq) - 1);
	if (!r.ts[NTP_T_RX])
		r.rx_cause = NTP_CAUSE_FORGOTTEN;
	bpf_map_update_elem(&inflight, &key, &r, BPF_ANY);
	return 0;
}

/* Submitted to storage. For a write that waited for R2T data, the last of
 * that data arrived with the bytes just read (copied_seq - 1). */
static __always_inline int target_exec(struct nvmet_req___ntp *req)
{
	__u64 key = (__u64)req;
	struct ntp_cmd_record *r = bpf_map_lookup_elem(&inflight, &key);

	if (!r)
		return 0;
	r->ts[NTP_T_EXEC] = bpf_ktime_get_ns();
	if (r->ts[NTP_T_R2T]) {
		struct sock *sk = BPF_CORE_READ(tcp_cmd_of(req), queue, sock, sk);
		__u64 skey = (__u64)sk;
		struct sockstate *st = bpf_map_lookup_elem(&socks, &skey);

		if (st)
			r->ts[NTP_T_DATA_RX] = arrival_of(
				st, BPF_CORE_READ((struct tcp_sock *)sk, copied_seq) - 1);
	}
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
	struct nvmet_tcp_cmd___ntp *tc = tcp_cmd_of(req);
	__u64 skey = (__u64)BPF_CORE_READ(tc, queue, sock, sk), key = (__u64)req, dev;
	struct nvmet_ns___ntp *ns = BPF_CORE_READ(req, ns);
	struct ntp_cmd_record *r;
	struct sqe s;
	__u16 cntlid;

	if (!ns || !BPF_CORE_READ(req, sq, qid) || !bpf_map_lookup_elem(&socks, &skey) ||
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

/* Target: the command being sent on queue Q is handed to TCP now: its R2T,
 * its first C2H data, or its response, which ends the record (so does the
 * last C2H data when the host disabled SQ flow control: then no response
 * capsule follows, the data PDU carries the SUCCESS flag). */
static __always_inline void target_send(struct nvmet_tcp_queue___ntp *q)
{
	struct nvmet_tcp_cmd___ntp *c = BPF_CORE_READ(q, snd_cmd);
	__u64 key = (__u64)&c->req;
	struct ntp_cmd_record *r;
	int state;

	if (!c || !(r = bpf_map_lookup_elem(&inflight, &key)))
		return;
	state = BPF_CORE_READ(c, state);
	if (state == bpf_core_enum_value(enum nvmet_tcp_send_state___ntp,
					 NVMET_TCP_SEND_R2T___ntp)) {
		if (!r->ts[NTP_T_R2T])
			r->ts[NTP_T_R2T] = bpf_ktime_get_ns();
		return;
	}
	if (!r->ts[NTP_T_RESP])
		return; /* not done yet */
	if (!r->ts[NTP_T_SENT])
		r->ts[NTP_T_SENT] = bpf_ktime_get_ns();
	if (state == bpf_core_enum_value(enum nvmet_tcp_send_state___ntp,
					 NVMET_TCP_SEND_RESPONSE___ntp) ||
	    BPF_CORE_READ(q, nvme_sq.sqhd_disabled))
		emit(key, r);
}

/* The queue's command being sent goes to TCP now (ntprof_tcp.bpf.h). */
static __always_inline void queue_sent(void *queue)
{
	target_send(queue);
}

NTP_FN1(ntp_k_t_ready, nvmet_tcp_data_ready, struct sock *, sk)
{
	arrived(sk);
	return 0;
}
