/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every object of the kernel drivers' backend shares (one object per
 * role and transport: ntprof_tcp_host.bpf.c, ntprof_tcp_target.bpf.c,
 * ntprof_rdma_host.bpf.c, ntprof_rdma_target.bpf.c): the
 * twin macros, the sampling switch and the per-group counts the collector
 * reads (collector/kern.c), the records ring, the records in flight, the
 * device records, and the SQE fields the sampling rule hashes.
 *
 * A command is followed from the SQE on: the sampling rule of
 * bpf/ntprof_abi.h decides there, on both sides from the same fields, and
 * a sampled command gets an entry in `inflight` (keyed by its struct
 * request on the host, its struct nvmet_req on the target) that collects
 * its points and goes to the ring buffer when the command is done. Every
 * I/O command, sampled or not, is counted per group in `counts`.
 */
#ifndef NTPROF_KERN_COMMON_BPF_H
#define NTPROF_KERN_COMMON_BPF_H

#include "ntprof_abi.h"
#include "ntprof_common.bpf.h"
#include "ntprof_kern.bpf.h"
#include "ntprof_kern.h"

/*
 * Every hook in two flavours: fentry (or tp_btf) where the kernel has BTF for
 * the function's module, kprobe (or raw_tp) where it has not and --btf gives
 * the types (collector/hooks.c chooses). One body, two entry points:
 * NTP_FNn(prog, func, type1, arg1, ...) defines prog (fentry) and prog_kp
 * (kprobe), NTP_TPn(prog, tp, ...) prog (tp_btf) and prog_raw (raw_tp); the
 * body follows the macro. Bodies read kernel memory only through
 * BPF_CORE_READ, which works in every flavour.
 *
 * A tracepoint's pointer arguments may be NULL as far as newer verifiers
 * know (6.12 marks tp_btf arguments trusted_ptr_or_null and refuses
 * arithmetic on them until checked), so the tracepoint twins hand only
 * non-NULL arguments to the body. Every tracepoint used here has pointer
 * arguments only.
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

#define NTP_FN4(prog, func, t1, a1, t2, a2, t3, a3, t4, a4)                    \
	static __always_inline int prog##_do(t1 a1, t2 a2, t3 a3, t4 a4);      \
	SEC("fentry/" #func)                                                    \
	int BPF_PROG(prog, t1 a1, t2 a2, t3 a3, t4 a4) { return prog##_do(a1, a2, a3, a4); } \
	SEC("kprobe/" #func)                                                    \
	int BPF_KPROBE(prog##_kp, t1 a1, t2 a2, t3 a3, t4 a4)                   \
	{                                                                       \
		return prog##_do(a1, a2, a3, a4);                               \
	}                                                                       \
	static __always_inline int prog##_do(t1 a1, t2 a2, t3 a3, t4 a4)

#define NTP_TP1(prog, tp, t1, a1)                                              \
	static __always_inline int prog##_do(t1 a1);                           \
	SEC("tp_btf/" #tp) int BPF_PROG(prog, t1 a1) { return a1 ? prog##_do(a1) : 0; } \
	SEC("raw_tp/" #tp)                                                      \
	int BPF_PROG(prog##_raw, t1 a1) { return a1 ? prog##_do(a1) : 0; }     \
	static __always_inline int prog##_do(t1 a1)

#define NTP_TP2(prog, tp, t1, a1, t2, a2)                                      \
	static __always_inline int prog##_do(t1 a1, t2 a2);                    \
	SEC("tp_btf/" #tp)                                                      \
	int BPF_PROG(prog, t1 a1, t2 a2) { return a1 && a2 ? prog##_do(a1, a2) : 0; } \
	SEC("raw_tp/" #tp)                                                      \
	int BPF_PROG(prog##_raw, t1 a1, t2 a2) { return a1 && a2 ? prog##_do(a1, a2) : 0; } \
	static __always_inline int prog##_do(t1 a1, t2 a2)

/* 1 in sample_n commands is recorded; 0: none. Written by the collector. */
volatile __u32 sample_n;
/* Commands not counted because `counts` was full: the collector says so. */
__u64 uncounted;

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

#endif
