// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Linux kernel's NVMe/TCP drivers, host (nvme_tcp) and target
 * (nvmet_tcp): one program per stage point, fentry on driver functions and
 * tp_btf on the nvme/nvmet/block tracepoints (or kprobes and raw_tp, see
 * NTP_FN1). docs/stages.md says which
 * hook gives which point and why; the collector (collector/kern.c) loads
 * the programs of one role and only those whose function the kernel has
 * (Debian's build inlines many nvme_tcp helpers).
 *
 * A command is followed from the SQE on: the sampling rule of
 * bpf/ntprof_abi.h decides there, on both sides from the same fields, and
 * a sampled command gets an entry in `inflight` (keyed by its struct
 * request on the host, its struct nvmet_req on the target) that collects
 * its points and goes to the ring buffer when the command is done. Every
 * I/O command, sampled or not, is counted per group in `counts`.
 *
 * Arrivals: the drivers' sk_data_ready callbacks record, per socket, when
 * the stream grew to which position (rcv_nxt). A point that needs the
 * arrival of some bytes looks their position up there.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ntprof_abi.h"
#include "ntprof_common.bpf.h"
#include "ntprof_kern.bpf.h"
#include "ntprof_kern.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Every hook in two flavours: fentry (or tp_btf) where the kernel has BTF for
 * the function's module, kprobe (or raw_tp) where it has not and --btf gives
 * the types (collector/kern.c chooses). One body, two entry points:
 * NTP_FNn(prog, func, type1, arg1, ...) defines prog (fentry) and prog_kp
 * (kprobe), NTP_TPn(prog, tp, ...) prog (tp_btf) and prog_raw (raw_tp); the
 * body follows the macro. Bodies read kernel memory only through
 * BPF_CORE_READ, which works in every flavour.
 */
#define NTP_FN1(prog, func, t1, a1)                                            \
	static __always_inline int prog##_do(t1 a1);                           \
	SEC("fentry/" #func) int BPF_PROG(prog, t1 a1) { return prog##_do(a1); } \
	SEC("kprobe/" #func) int BPF_KPROBE(prog##_kp, t1 a1) { return prog##_do(a1); } \
	static __always_inline int prog##_do(t1 a1)

#define NTP_FN2(prog, func, t1, a1, t2, a2)                                    \
	static __always_inline int prog##_do(t1 a1, t2 a2);                    \
	SEC("fentry/" #func) int BPF_PROG(prog, t1 a1, t2 a2) { return prog##_do(a1, a2); } \
	SEC("kprobe/" #func)                                                    \
	int BPF_KPROBE(prog##_kp, t1 a1, t2 a2) { return prog##_do(a1, a2); } \
	static __always_inline int prog##_do(t1 a1, t2 a2)

#define NTP_FN3(prog, func, t1, a1, t2, a2, t3, a3)                            \
	static __always_inline int prog##_do(t1 a1, t2 a2, t3 a3);             \
	SEC("fentry/" #func)                                                    \
	int BPF_PROG(prog, t1 a1, t2 a2, t3 a3) { return prog##_do(a1, a2, a3); } \
	SEC("kprobe/" #func)                                                    \
	int BPF_KPROBE(prog##_kp, t1 a1, t2 a2, t3 a3) { return prog##_do(a1, a2, a3); } \
	static __always_inline int prog##_do(t1 a1, t2 a2, t3 a3)

#define NTP_TP1(prog, tp, t1, a1)                                              \
	static __always_inline int prog##_do(t1 a1);                           \
	SEC("tp_btf/" #tp) int BPF_PROG(prog, t1 a1) { return prog##_do(a1); } \
	SEC("raw_tp/" #tp) int BPF_PROG(prog##_raw, t1 a1) { return prog##_do(a1); } \
	static __always_inline int prog##_do(t1 a1)

#define NTP_TP2(prog, tp, t1, a1, t2, a2)                                      \
	static __always_inline int prog##_do(t1 a1, t2 a2);                    \
	SEC("tp_btf/" #tp) int BPF_PROG(prog, t1 a1, t2 a2) { return prog##_do(a1, a2); } \
	SEC("raw_tp/" #tp)                                                      \
	int BPF_PROG(prog##_raw, t1 a1, t2 a2) { return prog##_do(a1, a2); }  \
	static __always_inline int prog##_do(t1 a1, t2 a2)

/* 1 in sample_n commands is recorded; 0: none. Written by the collector. */
volatile __u32 sample_n;
/* Commands not counted because `counts` was full: the collector says so. */
__u64 uncounted;
/* Set before load: the programs of a target (1) or of a host (0). */
const volatile int role_target;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} records SEC(".maps");

/* The sampled commands on their way: request -> their record so far. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct ntp_cmd_record);
} inflight SEC(".maps");

/* Every I/O command, per group: exact throughput (interval_grp.total). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct ntp_count_key);
	__type(value, __u64);
} counts SEC(".maps");

/* Device keys whose ntp_device_record went out. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} devs_seen SEC(".maps");

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

/* The fields of a submission queue entry the identity and hash use
 * (NVMe base spec: the same layout on the wire and in memory). */
struct sqe {
	__u8 opcode;
	__u8 flags;
	__u16 cid;
	__u32 nsid;
	__u32 cdw2[2];
	__u64 mptr;
	__u64 dptr[2];
	__u32 cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
};

#define NVME_OPC_WRITE 0x01
#define NVME_OPC_READ 0x02

static __always_inline __u64 sqe_slba(const struct sqe *s)
{
	if (s->opcode == NVME_OPC_READ || s->opcode == NVME_OPC_WRITE)
		return (__u64)s->cdw10 | ((__u64)s->cdw11 << 32);
	return 0;
}

/* The sampling rule of bpf/ntprof_abi.h on an SQE of queue QID. */
static __always_inline int sqe_sampled(const struct sqe *s, __u16 qid)
{
	return ntp_sampled(ntp_sample_hash(qid, s->cid, s->opcode, s->nsid, sqe_slba(s),
					   s->cdw12 & 0xffff), sample_n);
}

/* A new record of ROLE for the command with SQE S on queue QID. */
static __always_inline void cmd_init(struct ntp_cmd_record *r, const struct sqe *s, __u16 qid,
				     __u16 cntlid, __u8 role)
{
	r->slba = sqe_slba(s);
	r->nsid = s->nsid;
	r->nlb = s->cdw12 & 0xffff;
	r->qid = qid;
	r->cid = s->cid;
	r->cntlid = cntlid;
	r->opcode = s->opcode;
	r->kind = NTP_KIND_CMD;
	r->role = role;
	r->version = NTP_ABI_VERSION;
}

/* One more command of its kind; 1 for the first of a kind (or one the full
 * map cannot count): the time to make sure its device record went out. */
static __always_inline int count_cmd(__u64 dev, __u8 opcode, __u32 nlb)
{
	struct ntp_count_key k = { .dev = dev, .nlb = nlb, .opcode = opcode };
	__u64 one = 1, *v = bpf_map_lookup_elem(&counts, &k);

	if (v) {
		*v += 1;
		return 0;
	}
	if (bpf_map_update_elem(&counts, &k, &one, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&counts, &k)) /* not a race with another CPU: full */
		__sync_fetch_and_add(&uncounted, 1);
	return 1;
}

/* The device record of KEY, to fill and hand to device_end(); NULL when
 * it went out already (or the ring is full: counted as lost). */
static __always_inline struct ntp_device_record *device_begin(__u64 key)
{
	struct ntp_device_record *d;

	if (bpf_map_lookup_elem(&devs_seen, &key))
		return NULL;
	d = bpf_ringbuf_reserve(&records, sizeof(*d), 0);
	if (!d) /* tried again with the next command; one without it is counted then */
		return NULL;
	__builtin_memset(d, 0, sizeof(*d));
	d->dev = key;
	d->kind = NTP_KIND_DEVICE;
	d->version = NTP_ABI_VERSION;
	return d;
}

static __always_inline void device_end(struct ntp_device_record *d, __u64 key)
{
	__u8 one = 1;

	bpf_ringbuf_submit(d, NTP_SUBMIT_FLAGS);
	bpf_map_update_elem(&devs_seen, &key, &one, BPF_ANY);
}

/* A record ends: to the ring buffer, out of the map. */
static __always_inline void emit(__u64 key, struct ntp_cmd_record *r)
{
	if (bpf_ringbuf_output(&records, r, sizeof(*r), NTP_SUBMIT_FLAGS))
		count_lost(NTP_CAUSE_RING_FULL, 1);
	bpf_map_delete_elem(&inflight, &key);
}

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

/* ---- host: nvme_tcp ---------------------------------------------------- */

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

NTP_FN2(ntp_k_queue_rq, nvme_tcp_queue_rq, struct blk_mq_hw_ctx *, hctx,
	const struct blk_mq_queue_data *, bd)
{
	__u32 zero = 0;
	struct pending *p = bpf_map_lookup_elem(&pending, &zero);

	if (p) {
		p->rq = (__u64)BPF_CORE_READ(bd, rq);
		p->ts = bpf_ktime_get_ns();
	}
	return 0;
}

/*
 * Inside nvme_tcp_queue_rq (checked: the pending request), the SQE is
 * complete, command id with its generation bits included. An unsampled
 * command costs the hash and its count here, nothing more: the device
 * record goes out with the first command of a kind or with a sampled one,
 * and a requeue voids its record where it happens (ntp_k_rq_requeue).
 */
NTP_TP2(ntp_k_setup_cmd, nvme_setup_cmd, struct request *, rq, void *, cmd)
{
	__u32 zero = 0;
	struct pending *p = bpf_map_lookup_elem(&pending, &zero);
	struct nvme_ns___ntp *ns;
	struct ntp_cmd_record r = {};
	struct sqe s;
	__u64 key = (__u64)rq, dev;
	__u16 qid;

	if (!p || p->rq != key)
		return 0; /* not nvme_tcp's */
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
	learn(host_sk(rq)); /* its first command may go out before any data came in */
	cmd_init(&r, &s, qid, BPF_CORE_READ(ns, ctrl, cntlid), NTP_ROLE_HOST);
	r.ts[NTP_H_START] = BPF_CORE_READ(rq, start_time_ns);
	r.ts[NTP_H_QUEUE] = p->ts;
	r.dev = dev;
	bpf_map_update_elem(&inflight, &key, &r, BPF_ANY);
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

/* ---- target: nvmet_tcp ------------------------------------------------- */

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

/* ---- both: the TCP stack ----------------------------------------------- */

/* Every sendmsg/sendpage of the machine comes here; a driver socket's
 * sk_user_data is its driver queue. */
static __always_inline int sent(struct sock *sk)
{
	__u64 key = (__u64)sk;
	void *q;

	if (!bpf_map_lookup_elem(&socks, &key))
		return 0;
	/* the low bits may carry flags (SK_USER_DATA_NOCOPY...) */
	q = (void *)((__u64)BPF_CORE_READ(sk, sk_user_data) & ~7ULL);
	if (role_target)
		target_send(q);
	else
		host_send(q);
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

NTP_FN1(ntp_k_h_ready, nvme_tcp_data_ready, struct sock *, sk)
{
	arrived(sk);
	return 0;
}

NTP_FN1(ntp_k_t_ready, nvmet_tcp_data_ready, struct sock *, sk)
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
