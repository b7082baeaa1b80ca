// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Linux kernel's NVMe/TCP host driver (nvme_tcp): one program per stage
 * point, fentry on driver and TCP functions and tp_btf on the nvme and
 * block tracepoints (or kprobes and raw_tp: the twins of
 * ntprof_kern_common.bpf.h). docs/stages.md, "Kernel TCP host", says which
 * hook gives which point and why; collector/kern_hooks.c lists them, and
 * the collector loads only those whose function the kernel has (Debian's
 * build inlines many nvme_tcp helpers).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ntprof_host.bpf.h"
#include "ntprof_tcp.bpf.h"

char LICENSE[] SEC("license") = "GPL";

static __always_inline struct nvme_tcp_request___ntp *tcp_req_of(struct request *rq)
{
	/* blk_mq_rq_to_pdu(): the driver's part follows struct request */
	return (void *)rq + bpf_core_type_size(struct request);
}

static __always_inline struct request *rq_of(struct nvme_tcp_request___ntp *req)
{
	return (void *)req - bpf_core_type_size(struct request);
}

static __always_inline __u64 host_sk(struct request *rq)
{
	struct nvme_tcp_request___ntp *req = tcp_req_of(rq);

	return (__u64)BPF_CORE_READ(req, queue, sock, sk);
}

NTP_FN2(ntp_k_queue_rq, nvme_tcp_queue_rq, struct blk_mq_hw_ctx *, hctx,
	const struct blk_mq_queue_data *, bd)
{
	host_queued(bd);
	return 0;
}

/* The sampling decision (ntprof_host.bpf.h); a sampled command's socket is
 * learned now: its first command may go out before any data came in. */
NTP_TP2(ntp_k_setup_cmd, nvme_setup_cmd, struct request *, rq, void *, cmd)
{
	if (host_setup(rq, cmd))
		learn(host_sk(rq));
	return 0;
}

/* Host: the request being sent on queue Q is handed to TCP now. */
static __always_inline void host_send(struct nvme_tcp_queue___ntp *q)
{
	struct nvme_tcp_request___ntp *req = BPF_CORE_READ(q, request);
	__u64 key = (__u64)rq_of(req);
	struct ntp_cmd_record *r;
	int state;

	if (!req || !(r = bpf_map_lookup_elem(&inflight, &key)))
		return;
	state = BPF_CORE_READ(req, state);
	if (state == bpf_core_enum_value(enum nvme_tcp_send_state___ntp,
					 NVME_TCP_SEND_CMD_PDU___ntp)) {
		if (!r->ts[NTP_H_SENT])
			r->ts[NTP_H_SENT] = bpf_ktime_get_ns();
	} else if (r->ts[NTP_H_R2T_RX]) { /* H2C data answering an R2T */
		r->ts[NTP_H_DATA_SENT] = bpf_ktime_get_ns();
	}
}

/* The queue's request being sent goes to TCP now (ntprof_tcp.bpf.h). */
static __always_inline void queue_sent(void *queue)
{
	host_send(queue);
}

NTP_FN1(ntp_k_h_ready, nvme_tcp_data_ready, struct sock *, sk)
{
	arrived(sk);
	return 0;
}

/*
 * Host: io_work reads the socket with tcp_read_sock(), which hands the
 * driver one skb at a time. The first read after a completion on the queue
 * starts the next response: its time and the arrival of its first byte are
 * h_rx_drv and h_rx of the next command completed there.
 */
NTP_FN3(ntp_k_recv_skb, nvme_tcp_recv_skb, read_descriptor_t *, desc, struct sk_buff *, skb,
	unsigned int, offset)
{
	struct nvme_tcp_queue___ntp *q = BPF_CORE_READ(desc, arg.data);
	__u64 key = (__u64)BPF_CORE_READ(q, sock, sk);
	struct sockstate *st = bpf_map_lookup_elem(&socks, &key);
	struct tcp_skb_cb *cb = (void *)skb->cb;
	__u32 seq;

	if (!st)
		return 0;
	seq = BPF_CORE_READ(cb, seq) + offset;
	st->cur_drv = bpf_ktime_get_ns();
	st->cur_arr = arrival_of(st, seq);
	if (st->fresh) {
		st->start_drv = st->cur_drv;
		st->start_arr = st->cur_arr;
		st->fresh = 0;
	}
	return 0;
}

/* The R2T handled: the H2C data PDU is set up for it (called per R2T, and
 * again when MAXH2CDATA splits the data; the first call is the R2T's). The
 * receive that is going on was the R2T's: the response starts later. */
NTP_FN1(ntp_k_r2t, nvme_tcp_setup_h2c_data_pdu, struct nvme_tcp_request___ntp *, req)
{
	__u64 key = (__u64)rq_of(req);
	struct ntp_cmd_record *r = bpf_map_lookup_elem(&inflight, &key);

	__u64 skey = (__u64)BPF_CORE_READ(req, queue, sock, sk);
	struct sockstate *st = bpf_map_lookup_elem(&socks, &skey);

	if (r && !r->ts[NTP_H_R2T_RX])
		r->ts[NTP_H_R2T_RX] = bpf_ktime_get_ns();
	if (st)
		st->fresh = 1; /* the receive that started was the R2T's */
	return 0;
}

/*
 * The CQE processed: nvme_try_complete_req() hands the request to
 * blk_mq_complete_request_remote() (also for a C2H data PDU with the
 * SUCCESS flag). The receive that started this response gives h_rx_drv
 * and h_rx; one that started before the command was even sent belongs to
 * an earlier response, and the current one is taken instead.
 */
NTP_FN1(ntp_k_cqe, blk_mq_complete_request_remote, struct request *, rq)
{
	__u64 key = (__u64)rq, skey = host_sk(rq); /* junk for other drivers: no socket */
	struct sockstate *st = bpf_map_lookup_elem(&socks, &skey);
	struct ntp_cmd_record *r;

	if (!st)
		return 0;
	r = bpf_map_lookup_elem(&inflight, &key);
	if (r) {
		/* the command's last crossing to the target started here */
		__u64 sent = r->ts[NTP_H_DATA_SENT] ?: r->ts[NTP_H_SENT];
		int own = st->start_drv >= sent && st->start_arr >= sent;

		r->ts[NTP_H_CQE] = bpf_ktime_get_ns();
		r->ts[NTP_H_RX_DRV] = own ? st->start_drv : st->cur_drv;
		r->ts[NTP_H_RX] = own ? st->start_arr : st->cur_arr;
		if (!r->ts[NTP_H_RX])
			r->rx_cause = NTP_CAUSE_FORGOTTEN;
	}
	st->fresh = 1; /* the next receive starts the next response */
	return 0;
}
