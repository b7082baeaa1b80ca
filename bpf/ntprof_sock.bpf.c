// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Socket hooks of the SPDK path, tracepoint flavour: tp_btf programs on
 * sock:sk_data_ready (skb arrival), sock:sock_recv_length (data copied out
 * to the process) and tcp:tcp_sendmsg_locked (data handed to TCP). tp_btf
 * attaches by BTF name, so it needs no tracefs. This is the fallback
 * collector/hooks.c chooses where fentry and kprobes are not allowed, as on
 * the development machine; the fentry and kprobe flavours come with the
 * collector.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ntprof_abi.h"
#include "ntprof_common.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Only this process (the SPDK target or host); 0: every process. */
const volatile __u32 target_tgid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

static __always_inline int emit(const void *sk, int len, __u8 op)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct ntp_sock_event *e;

	if (target_tgid && tgid != target_tgid)
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_lost(1);
		return 0;
	}
	e->ts = bpf_ktime_get_ns();
	e->sk = (__u64)sk;
	e->tgid = tgid;
	e->len = len;
	e->kind = NTP_KIND_SOCK;
	e->op = op;
	e->version = NTP_ABI_VERSION;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/sk_data_ready")
int BPF_PROG(ntp_s_ready_tp, const struct sock *sk)
{
	return emit(sk, 0, NTP_SOCK_READY);
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(ntp_s_recvmsg_tp, struct sock *sk, int ret, int flags)
{
	return emit(sk, ret, NTP_SOCK_RECV);
}

SEC("tp_btf/tcp_sendmsg_locked")
int BPF_PROG(ntp_s_sendmsg_tp, const struct sock *sk, const struct msghdr *msg,
	     const struct sk_buff *skb, int size_goal)
{
	return emit(sk, skb ? (int)BPF_CORE_READ(skb, len) : 0, NTP_SOCK_SEND);
}
