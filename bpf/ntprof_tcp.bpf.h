/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the kernel's NVMe/TCP objects share (ntprof_tcp_host.bpf.c,
 * ntprof_tcp_target.bpf.c): arrivals and the hooks on TCP's send side.
 *
 * Arrivals: the drivers' sk_data_ready callbacks record, per socket, when
 * the stream grew to which position (rcv_nxt). A point that needs the
 * arrival of some bytes looks their position up there.
 *
 * Sends: tcp_sendmsg and tcp_sendpage on a driver socket hand the driver's
 * queue to queue_sent(), which each object defines before it includes this
 * header.
 */
#ifndef NTPROF_TCP_BPF_H
#define NTPROF_TCP_BPF_H

#include "ntprof_kern_common.bpf.h"

/* Arrivals on a driver socket: the last NTP_ARR of them, oldest at head. */
#define NTP_ARR 8

struct arrival {
	__u32 seq; /* rcv_nxt after the data arrived */
	__u32 pad;
	__u64 ts;
};

struct sockstate {
	__u32 head;
	__u32 fresh;     /* host: the next receive starts a response */
	__u64 start_drv; /* host: when the driver began reading it */
	__u64 start_arr; /* host: when its first byte arrived */
	__u64 cur_drv;   /* host: the receive going on now */
	__u64 cur_arr;
	struct arrival arr[NTP_ARR];
};

/* The drivers' sockets (learned in their data_ready callbacks). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct sockstate);
} socks SEC(".maps");

static __always_inline int before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

/* The state of driver socket KEY, made on first sight. */
static __always_inline struct sockstate *learn(__u64 key)
{
	struct sockstate *s = bpf_map_lookup_elem(&socks, &key);
	struct sockstate fresh = { .fresh = 1 };

	if (s || !key)
		return s;
	bpf_map_update_elem(&socks, &key, &fresh, BPF_NOEXIST);
	return bpf_map_lookup_elem(&socks, &key);
}

/* The sk_data_ready callback: the stream grew to rcv_nxt now. */
static __always_inline void arrived(struct sock *sk)
{
	struct sockstate *s = learn((__u64)sk);
	__u32 i;

	if (!s)
		return;
	i = s->head & (NTP_ARR - 1);
	s->arr[i].seq = BPF_CORE_READ((struct tcp_sock *)sk, rcv_nxt);
	s->arr[i].ts = bpf_ktime_get_ns();
	s->head = i + 1;
}

/* When the byte at stream position SEQ arrived: the first arrival that
 * took the stream past it. 0 if it is older than the arrivals kept. */
static __always_inline __u64 arrival_of(const struct sockstate *s, __u32 seq)
{
	for (__u32 n = 0; n < NTP_ARR; n++) {
		const struct arrival *a = &s->arr[(s->head + n) & (NTP_ARR - 1)];

		if (a->ts && before(seq, a->seq))
			return a->ts;
	}
	return 0;
}

/* The driver's queue of a driver socket being sent on, or NULL: every
 * sendmsg/sendpage of the machine comes here, and a driver socket's
 * sk_user_data is its driver queue. */
static __always_inline void *driver_queue(struct sock *sk)
{
	__u64 key = (__u64)sk;

	if (!bpf_map_lookup_elem(&socks, &key))
		return NULL;
	/* the low bits may carry flags (SK_USER_DATA_NOCOPY...) */
	return (void *)((__u64)BPF_CORE_READ(sk, sk_user_data) & ~7ULL);
}

static __always_inline void queue_sent(void *queue);

static __always_inline int sent(struct sock *sk)
{
	void *q = driver_queue(sk);

	if (q)
		queue_sent(q);
	return 0;
}

NTP_FN1(ntp_k_sendmsg, tcp_sendmsg, struct sock *, sk)
{
	return sent(sk);
}

/* Up to 6.4 the drivers hand pages to TCP with kernel_sendpage(). */
NTP_FN1(ntp_k_sendpage, tcp_sendpage, struct sock *, sk)
{
	return sent(sk);
}

#endif
