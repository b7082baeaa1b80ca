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

/* A request is nvmet_tcp's when its command's queue has a socket
 * nvmet_tcp_data_ready has seen. */
static __always_inline struct sockstate *claimed(struct nvmet_req___ntp *req)
{
	__u64 skey = (__u64)BPF_CORE_READ(tcp_cmd_of(req), queue, sock, sk);

	return bpf_map_lookup_elem(&socks, &skey);
}

static __always_inline int target_claims(struct nvmet_req___ntp *req)
{
	return claimed(req) != NULL;
}

/* For a write that waited for R2T data, the last of that data arrived
 * with the bytes just read (copied_seq - 1). */
static __always_inline void target_executes(struct nvmet_req___ntp *req,
					    struct ntp_cmd_record *r)
{
	if (r->ts[NTP_T_R2T]) {
		struct sock *sk = BPF_CORE_READ(tcp_cmd_of(req), queue, sock, sk);
		__u64 skey = (__u64)sk;
		struct sockstate *st = bpf_map_lookup_elem(&socks, &skey);

		if (st)
			r->ts[NTP_T_DATA_RX] = arrival_of(
				st, BPF_CORE_READ((struct tcp_sock *)sk, copied_seq) - 1);
	}
}

#include "ntprof_target.bpf.h"

NTP_TP2(ntp_k_req_init, nvmet_req_init, struct nvmet_req___ntp *, req, void *, cmd)
{
	struct sock *sk = BPF_CORE_READ(tcp_cmd_of(req), queue, sock, sk);
	struct sockstate *st = claimed(req);
	struct ntp_cmd_record r = {};
	__u64 key = (__u64)req;

	if (!st || !target_begin(req, cmd, &r))
		return 0;
	r.ts[NTP_T_RX] = arrival_of(st, BPF_CORE_READ((struct tcp_sock *)sk, copied_seq) - 1);
	if (!r.ts[NTP_T_RX])
		r.rx_cause = NTP_CAUSE_FORGOTTEN;
	bpf_map_update_elem(&inflight, &key, &r, BPF_ANY);
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
