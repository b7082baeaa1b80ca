// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Socket hooks of the SPDK path, tracepoint flavour: tp_btf programs on
 * sock:sk_data_ready (skb arrival), sock:sock_recv_length (data copied out
 * to the process) and tcp:tcp_sendmsg_locked (data handed to TCP). tp_btf
 * attaches by BTF name, so it needs no tracefs. This is the flavour
 * collector/hooks.c falls back to where fentry and kprobes are not allowed,
 * as on the development machine.
 *
 * Which sockets: receives and sends run in the process's own context, so
 * they are filtered by process (the `procs` map, filled by the collector).
 * An skb's arrival runs in softirq context, on loopback even in the
 * *sending* process, so arrivals are filtered by socket instead: a TCP
 * socket that a watched process has received or sent on (`socks`).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ntprof_abi.h"
#include "ntprof_common.bpf.h"

#ifndef IPPROTO_TCP
#define IPPROTO_TCP 6
#endif

char LICENSE[] SEC("license") = "GPL";

/* The processes watched (tgid -> 1), written by the collector. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} procs SEC(".maps");

/* Their TCP sockets, learned from their receives and sends. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u8);
} socks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} events SEC(".maps");

static __always_inline int emit(const struct sock *sk, int len, __u8 op, __u32 seq)
{
	struct ntp_sock_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		count_lost(1);
		return 0;
	}
	e->ts = bpf_ktime_get_ns();
	e->sk = (__u64)sk;
	e->tgid = bpf_get_current_pid_tgid() >> 32;
	e->len = len;
	e->kind = NTP_KIND_SOCK;
	e->op = op;
	e->version = NTP_ABI_VERSION;
	e->pad = 0;
	e->seq = seq;
	bpf_ringbuf_submit(e, NTP_SUBMIT_FLAGS);
	return 0;
}

/* A TCP socket of a watched process: remember it for its arrivals. */
static __always_inline int watched(const struct sock *sk)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 key = (__u64)sk;
	__u8 one = 1;

	if (!bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	if (bpf_map_lookup_elem(&socks, &key))
		return 1; /* known: no update on the hot path */
	if (BPF_CORE_READ(sk, sk_protocol) != IPPROTO_TCP)
		return 0;
	bpf_map_update_elem(&socks, &key, &one, BPF_NOEXIST);
	return 1;
}

SEC("tp_btf/sk_data_ready")
int BPF_PROG(ntp_s_ready_tp, const struct sock *sk)
{
	__u64 key = (__u64)sk;

	if (!bpf_map_lookup_elem(&socks, &key))
		return 0;
	return emit(sk, 0, NTP_SOCK_READY, BPF_CORE_READ((struct tcp_sock *)sk, rcv_nxt));
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(ntp_s_recvmsg_tp, struct sock *sk, int ret, int flags)
{
	if (ret <= 0 || !watched(sk))
		return 0;
	return emit(sk, ret, NTP_SOCK_RECV, BPF_CORE_READ((struct tcp_sock *)sk, copied_seq));
}

/* Sends only make the socket known before its first receive: no point
 * needs their time (the patch takes h_sent and t_sent itself), so they cost
 * a lookup and no event. */
SEC("tp_btf/tcp_sendmsg_locked")
int BPF_PROG(ntp_s_sendmsg_tp, const struct sock *sk, const struct msghdr *msg,
	     const struct sk_buff *skb, int size_goal)
{
	watched(sk);
	return 0;
}
