// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The SPDK path. The patch's USDT probes fire once per batch of done,
 * sampled commands with (batch, n), a user-space array of struct
 * ntp_cmd_record, so a command costs no uprobe trap of its own (one trap is
 * microseconds). The batch programs copy the records into the ring buffer;
 * a reserve or read failure is counted as lost, never dropped silently.
 *
 * A record's device key is the address of a struct ntp_device_record in
 * the same process (bpf/ntprof_abi.h): the first time a key is seen, its
 * device record is copied to the ring buffer ahead of the command.
 *
 * Arrivals (t_rx, h_rx over TCP). SPDK reads its PDUs through the kernel's
 * TCP stack and cannot see when their bytes reached the socket. One hook,
 * on the socket's data-ready callback, keeps per watched socket the last
 * NTP_SOCK_ARR arrivals: when the stream grew, and to how many bytes
 * (tcp_sock.bytes_received). The patch gives each sampled record the
 * stream position of its PDU header's end (rx_pos) and its connection
 * (rx_conn: ports and peer address, ntp_conn_key()); the batch program
 * finds the connection's socket and looks the position up. Nothing per
 * packet crosses a ring buffer, and the lookup is exact at any queue
 * depth: a position names one PDU's bytes. Where it cannot find the
 * arrival, the record says why (rx_cause).
 *
 * A connection's socket is found among the process's descriptors (a walk
 * of its file table, in the process's own context) when the patch's
 * connection probe fires (ntprof:nvmf_tcp_conn / nvme_tcp_conn with the
 * connection key, right after accept or connect), and is watched from then
 * on. Those a process had before the recording started are watched when
 * the collector walks its files (the ntp_i_watch iterator) before it
 * switches sampling on; any other from the first batch that names it.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "ntprof_abi.h"
#include "ntprof_common.bpf.h"

/* Records copied per probe hit at most; the patch flushes at this size. */
#define NTP_BATCH_MAX 64
/* Arrivals kept per socket: the patch hands a batch over within 5 ms, so
 * this covers about 200k arrivals a second on one connection. */
#define NTP_SOCK_ARR 1024

#ifndef IPPROTO_TCP
#define IPPROTO_TCP 6
#endif

char LICENSE[] SEC("license") = "GPL";

/* 1 while an arrival hook is attached (the collector sets it before load). */
const volatile int arrivals_on;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} records SEC(".maps");

/* Device keys already sent in this recording. Keys are addresses, so two
 * processes could in principle share one; with ASLR they do not. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} devs_seen SEC(".maps");

struct arrival {
	__u64 pos; /* bytes_received after it: the stream's length then */
	__u64 ts;  /* CLOCK_MONOTONIC ns */
};

struct arrivals {
	__u64 head;      /* arrivals ever recorded; the newest is head - 1 */
	__u64 first_pos; /* bytes_received when the socket was first watched */
	__u64 conn;      /* its connection key: a socket freed and reused is new */
	struct arrival a[NTP_SOCK_ARR];
};

/* The watched sockets (struct sock address) and their arrivals. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);
	__type(value, struct arrivals);
} socks SEC(".maps");

/* A process's connections: (tgid, ntp_conn_key()) -> its struct sock. */
struct conn_id {
	__u32 tgid;
	__u32 pad;
	__u64 key;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct conn_id);
	__type(value, __u64);
} conns SEC(".maps");

/* A zeroed value to create a socket's entry from (too large for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct arrivals);
} fresh SEC(".maps");

/* ---- arrivals ------------------------------------------------------------ */

/* The stream of SK grew: remember to how many bytes, and when. Runs for
 * every socket of the machine, so an unwatched one costs one lookup. */
static __always_inline int arrived(struct sock *sk)
{
	__u64 key = (__u64)sk;
	struct arrivals *s = bpf_map_lookup_elem(&socks, &key);
	struct arrival *a;
	__u64 h;

	if (!s)
		return 0;
	h = s->head;
	a = &s->a[h & (NTP_SOCK_ARR - 1)];
	a->pos = BPF_CORE_READ((struct tcp_sock *)sk, bytes_received);
	a->ts = bpf_ktime_get_ns();
	s->head = h + 1;
	return 0;
}

/* The flavours (collector/hooks.c chooses one): the tracepoint in
 * sock_def_readable (6.4 on), or the function itself. */
SEC("tp_btf/sk_data_ready")
int BPF_PROG(ntp_s_ready_tp, struct sock *sk)
{
	return arrived(sk);
}

SEC("fentry/sock_def_readable")
int BPF_PROG(ntp_s_ready_fe, struct sock *sk)
{
	return arrived(sk);
}

SEC("kprobe/sock_def_readable")
int BPF_KPROBE(ntp_s_ready_kp, struct sock *sk)
{
	return arrived(sk);
}

/* The TCP socket of file F, or NULL. */
static __always_inline struct sock *file_sock(struct file *f)
{
	struct socket *so;
	struct sock *sk;

	/* a socket's file points at its struct socket, which points back */
	so = BPF_CORE_READ(f, private_data);
	if (!so || BPF_CORE_READ(so, file) != f)
		return NULL;
	sk = BPF_CORE_READ(so, sk);
	if (!sk || BPF_CORE_READ(sk, sk_protocol) != IPPROTO_TCP)
		return NULL;
	return sk;
}

#ifndef AF_INET
#define AF_INET 2
#endif

/* SK's connection key, as the patch computes it from the socket's addresses. */
static __always_inline __u64 sock_conn_key(struct sock *sk)
{
	__u16 lport = BPF_CORE_READ(sk, __sk_common.skc_num);
	__u16 rport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
	__u32 fold;

	if (BPF_CORE_READ(sk, __sk_common.skc_family) == AF_INET) {
		__u32 a = BPF_CORE_READ(sk, __sk_common.skc_daddr);

		fold = ntp_addr_fold(&a, 4);
	} else {
		struct in6_addr a6 = BPF_CORE_READ(sk, __sk_common.skc_v6_daddr);

		fold = ntp_addr_fold(&a6, 16);
	}
	return ntp_conn_key(lport, rport, fold);
}

static __always_inline __u32 current_tgid(void)
{
	return bpf_get_current_pid_tgid() >> 32;
}

/* Remember that connection KEY of process TGID is socket SK. */
static __always_inline void note_conn(__u32 tgid, __u64 key, struct sock *sk)
{
	struct conn_id id = { .tgid = tgid, .key = key };
	__u64 v = (__u64)sk;

	bpf_map_update_elem(&conns, &id, &v, BPF_ANY);
}

/* A walk of the current process's descriptors for connection `key`. */
struct walk {
	struct file **fds;
	__u32 max;
	__u64 key;
	struct sock *found;
};

static long walk_one(__u64 fd, void *ctx)
{
	struct walk *w = ctx;
	struct file *f = NULL;
	struct sock *sk;

	if (fd >= w->max)
		return 1;
	if (bpf_probe_read_kernel(&f, sizeof(f), w->fds + fd) || !f)
		return 0;
	sk = file_sock(f);
	if (sk && sock_conn_key(sk) == w->key) {
		w->found = sk;
		return 1;
	}
	return 0;
}

/* The socket of connection KEY among the current process's descriptors
 * (a walk of up to 65536 of them: once per connection), or NULL. */
static __always_inline struct sock *find_conn(__u64 key)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct walk w = { .fds = BPF_CORE_READ(fdt, fd), .max = BPF_CORE_READ(fdt, max_fds),
			  .key = key };

	if (w.max > 65536)
		w.max = 65536;
	bpf_loop(w.max, walk_one, &w, 0);
	if (w.found)
		note_conn(current_tgid(), key, w.found);
	return w.found;
}

/* The socket of connection KEY of the current process: known (and still
 * that connection's), or found. */
static __always_inline struct sock *conn_sock(__u64 key)
{
	struct conn_id id = { .tgid = current_tgid(), .key = key };
	__u64 *sk = bpf_map_lookup_elem(&conns, &id);

	if (sk && sock_conn_key((struct sock *)*sk) == key)
		return (struct sock *)*sk;
	return find_conn(key);
}

/* Start watching SK; its arrivals from now on are kept. */
/* Start watching SK, connection CONN; its arrivals from now on are kept.
 * A socket already watched for another connection (its memory reused) is
 * started afresh. */
static __always_inline void watch(struct sock *sk, __u64 conn)
{
	__u64 key = (__u64)sk;
	__u32 zero = 0;
	struct arrivals *s = bpf_map_lookup_elem(&socks, &key), *z;

	if (s && s->conn == conn)
		return;
	z = bpf_map_lookup_elem(&fresh, &zero);
	if (!z)
		return;
	z->head = 0;
	z->conn = conn;
	z->first_pos = BPF_CORE_READ((struct tcp_sock *)sk, bytes_received);
	bpf_map_update_elem(&socks, &key, z, BPF_ANY);
}

/*
 * When the stream reached POS: the first kept arrival that took it there.
 * 0 with *CAUSE set when it cannot be told.
 */
static __always_inline __u64 arrival_at(struct arrivals *s, __u64 pos, __u8 *cause)
{
	__u64 head = s->head, lo, hi, n;

	if (pos <= s->first_pos) {
		*cause = NTP_CAUSE_NEW_SOCKET;
		return 0;
	}
	n = head < NTP_SOCK_ARR ? head : NTP_SOCK_ARR;
	lo = head - n; /* oldest kept */
	hi = head;
	if (!n || s->a[(hi - 1) & (NTP_SOCK_ARR - 1)].pos < pos) {
		*cause = NTP_CAUSE_NOT_SEEN;
		return 0;
	}
	/* the first index in [lo, hi) whose pos reaches POS */
	for (int i = 0; i < 11 && lo < hi; i++) {
		__u64 mid = lo + (hi - lo) / 2;

		if (s->a[mid & (NTP_SOCK_ARR - 1)].pos >= pos)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* an older arrival, no longer kept, may have reached it first */
	if (lo == head - n && head > NTP_SOCK_ARR) {
		*cause = NTP_CAUSE_FORGOTTEN;
		return 0;
	}
	return s->a[lo & (NTP_SOCK_ARR - 1)].ts;
}

/* Fill the arrival point of R from its socket's arrivals, or say why not. */
static __always_inline void fill_arrival(struct ntp_cmd_record *r)
{
	int at = r->role == NTP_ROLE_TARGET ? NTP_T_RX : NTP_H_RX;
	struct arrivals *s;
	struct sock *sk;
	__u64 key, ts;
	__u8 cause = 0;

	if (at >= NTP_MAX_POINTS || r->ts[at])
		return;
	if (!arrivals_on) {
		r->rx_cause = NTP_CAUSE_NOT_HOOKED;
		return;
	}
	if (!r->rx_pos) {
		r->rx_cause = NTP_CAUSE_NO_POSITION;
		return;
	}
	sk = conn_sock(r->rx_conn);
	if (!sk) {
		r->rx_cause = NTP_CAUSE_NO_SOCKET;
		return;
	}
	key = (__u64)sk;
	s = bpf_map_lookup_elem(&socks, &key);
	if (!s || s->conn != r->rx_conn) {
		watch(sk, r->rx_conn);
		r->rx_cause = NTP_CAUSE_NEW_SOCKET;
		return;
	}
	ts = arrival_at(s, r->rx_pos, &cause);
	if (ts)
		r->ts[at] = ts;
	else
		r->rx_cause = cause;
}

/* ---- batches ------------------------------------------------------------- */

static __always_inline void send_device(__u64 key)
{
	struct ntp_device_record *d;
	__u8 one = 1;

	if (!key || bpf_map_lookup_elem(&devs_seen, &key))
		return;
	/* on failure, tried again with the next record of the device; a
	 * record stored without it is counted by the collector (no_device) */
	d = bpf_ringbuf_reserve(&records, sizeof(*d), 0);
	if (!d)
		return;
	if (bpf_probe_read_user(d, sizeof(*d), (const void *)key)) {
		bpf_ringbuf_discard(d, 0);
		return;
	}
	bpf_ringbuf_submit(d, NTP_SUBMIT_FLAGS);
	bpf_map_update_elem(&devs_seen, &key, &one, BPF_ANY);
}

struct batch {
	const struct ntp_cmd_record *rec; /* in the process */
	long n;
};

/* Copy record I of the batch (a bpf_loop callback: the verifier checks it
 * once, not once per record). */
static long copy_one(__u64 i, void *ctx)
{
	const struct batch *b = ctx;
	struct ntp_cmd_record *r;
	__u64 key = 0;

	if ((long)i >= b->n)
		return 1;
	/* the device goes first: the ring is read in reservation order */
	if (!bpf_probe_read_user(&key, sizeof(key), &b->rec[i].dev))
		send_device(key);
	r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);
	if (!r) {
		count_lost(NTP_CAUSE_RING_FULL, 1);
		return 0;
	}
	if (bpf_probe_read_user(r, sizeof(*r), &b->rec[i])) {
		bpf_ringbuf_discard(r, 0);
		count_lost(NTP_CAUSE_UNREADABLE, 1);
		return 0;
	}
	fill_arrival(r);
	bpf_ringbuf_submit(r, NTP_SUBMIT_FLAGS);
	return 0;
}

static __always_inline int copy_batch(const struct ntp_cmd_record *rec, long n)
{
	struct batch b = { rec, n };

	if (n > NTP_BATCH_MAX) {
		count_lost(NTP_CAUSE_BATCH_OVERFLOW, n - NTP_BATCH_MAX);
		b.n = NTP_BATCH_MAX;
	}
	if (b.n > 0)
		bpf_loop(NTP_BATCH_MAX, copy_one, &b, 0);
	return 0;
}

SEC("usdt")
int BPF_USDT(ntp_u_nvmf_tcp_done, const struct ntp_cmd_record *batch, long n)
{
	return copy_batch(batch, n);
}

SEC("usdt")
int BPF_USDT(ntp_u_nvme_tcp_done, const struct ntp_cmd_record *batch, long n)
{
	return copy_batch(batch, n);
}

/* The RDMA twins: the same batches from lib/nvmf/rdma.c and lib/nvme/nvme_rdma.c.
 * Their arrival points come from the patch (the poll), never from a socket. */
SEC("usdt")
int BPF_USDT(ntp_u_nvmf_rdma_done, const struct ntp_cmd_record *batch, long n)
{
	return copy_batch(batch, n);
}

SEC("usdt")
int BPF_USDT(ntp_u_nvme_rdma_done, const struct ntp_cmd_record *batch, long n)
{
	return copy_batch(batch, n);
}

/* A new NVMe/TCP connection (ntprof:nvmf_tcp_conn on a target,
 * ntprof:nvme_tcp_conn on a host, with its ntp_conn_key()): find its
 * socket and watch it from its first byte. */
SEC("usdt")
int BPF_USDT(ntp_u_tcp_conn, __u64 key)
{
	struct sock *sk;

	if (!arrivals_on)
		return 0;
	sk = find_conn(key);
	if (sk)
		watch(sk, key);
	return 0;
}

/* The process whose sockets ntp_i_watch watches (the collector sets it). */
__u32 watch_tgid;

/* Walked over every open file by the collector, before it switches sampling
 * on in process watch_tgid: that process's TCP sockets are watched from now. */
SEC("iter/task_file")
int ntp_i_watch(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *f = ctx->file;
	struct sock *sk;

	if (!task || !f || !arrivals_on || BPF_CORE_READ(task, tgid) != watch_tgid)
		return 0;
	sk = file_sock(f);
	if (sk) {
		__u64 key = sock_conn_key(sk);

		note_conn(watch_tgid, key, sk);
		watch(sk, key);
	}
	return 0;
}
