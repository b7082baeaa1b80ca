/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ntprof record ABI: the one header shared by the BPF programs, the collector,
 * the SPDK patch (which carries a byte-identical copy) and the tests.
 *
 * Only ABI lives here: fixed-width fields, largest first, the stage-point
 * numbering and the sampling hash. docs/stages.md explains every point;
 * docs/schema.md explains how a record becomes a database row.
 *
 * Change anything here and NTP_ABI_VERSION must change with it.
 */
#ifndef NTPROF_ABI_H
#define NTPROF_ABI_H

#if !defined(__bpf__) && !defined(__KERNEL__)
/* User space (collector, SPDK, tests) takes __u64 and friends from the UAPI
 * header; BPF programs get them from vmlinux.h. */
#include <linux/types.h>
#endif

/* 6: the sampling hash's one finaliser; 5: SPDK arrivals from receive
 * timestamps, batches on the ring */
#define NTP_ABI_VERSION 6

/* Largest NVMe Qualified Name is 223 bytes (NVMe base spec 4.5), plus NUL. */
#define NTP_NQN_LEN 224
/* Block device (nvme1n1) or SPDK name (spdk-c1n1, Malloc0). */
#define NTP_DEV_NAME_LEN 32

enum ntp_role {
	NTP_ROLE_HOST = 0,
	NTP_ROLE_TARGET = 1,
};

/*
 * Stage points, in path order. A record stores one CLOCK_MONOTONIC
 * nanosecond timestamp per point (bpf_ktime_get_ns() reads that clock),
 * 0 when the configuration has no such point or it was not seen.
 * Host and target records use the same array with their own numbering.
 * The database stores the same points under the names in comments.
 */
enum ntp_host_point {
	NTP_H_START = 0,     /* h_start:     I/O entered the block layer */
	NTP_H_QUEUE = 1,     /* h_queue:     driver took the command */
	NTP_H_SENT = 2,      /* h_sent:      command handed to the transport */
	NTP_H_R2T_RX = 3,    /* h_r2t_rx:    R2T reached the driver (writes) */
	NTP_H_DATA_SENT = 4, /* h_data_sent: last H2C data handed over (writes) */
	NTP_H_RX = 5,        /* h_rx:        response (reads: first C2H data) arrived */
	NTP_H_RX_DRV = 6,    /* h_rx_drv:    driver read the response */
	NTP_H_CQE = 7,       /* h_cqe:       driver processed the CQE */
	NTP_H_COMPLETE = 8,  /* h_complete:  handed to nvme_complete_rq / callback */
	NTP_H_END = 9,       /* h_end:       block layer completed the I/O */
	NTP_H_NPOINTS = 10,
};

enum ntp_target_point {
	NTP_T_RX = 0,      /* t_rx:      command capsule arrived */
	NTP_T_CMD = 1,     /* t_cmd:     driver parsed the command */
	NTP_T_R2T = 2,     /* t_r2t:     R2T handed to the transport (writes) */
	NTP_T_DATA_RX = 3, /* t_data_rx: last H2C data arrived (writes) */
	NTP_T_EXEC = 4,    /* t_exec:    submitted to storage */
	NTP_T_STOR = 5,    /* t_stor:    storage completed */
	NTP_T_RESP = 6,    /* t_resp:    response queued by the driver */
	NTP_T_SENT = 7,    /* t_sent:    response (reads: first C2H data) handed over */
	NTP_T_FREE = 8,    /* t_free:    request released (SPDK) */
	NTP_T_NPOINTS = 9,
};

#define NTP_MAX_POINTS 10

/* The NVMe opcode of fabrics commands (Connect, Property Get, ...); their
 * command type (fctype) is the low byte of the SQE's NSID dword. */
#define NTP_OPC_FABRICS 0x7f

/* Record kinds on the ring buffer / in an SPDK batch. */
enum ntp_kind {
	NTP_KIND_CMD = 1,    /* struct ntp_cmd_record */
	NTP_KIND_DEVICE = 2, /* struct ntp_device_record */
	NTP_KIND_BATCH = 3,  /* struct ntp_batch_header, then its records */
};

/*
 * Bits of the SPDK patch's ntprof_sample_flags, which the collector writes
 * (before ntprof_sample_rate) like the rate.
 */
enum ntp_sample_flag {
	/* take no arrival points (t_rx, t_data_rx, h_rx) from the kernel's
	 * receive timestamps: --no-arrivals */
	NTP_FLAG_NO_ARRIVALS = 1,
};

/*
 * Why a record, or one point of a record, is missing: stored per interval
 * in the recording's `lost` and `gap` tables (sql/vocab.sql, table cause,
 * names and explains each code). BPF and the collector set them; nothing is
 * missing without one.
 */
enum ntp_cause {
	NTP_CAUSE_NONE = 0,
	/* a whole record */
	NTP_CAUSE_RING_FULL = 1,      /* the record ring buffer was full */
	NTP_CAUSE_BATCH_OVERFLOW = 2, /* more records in one probe hit than BPF copies */
	NTP_CAUSE_UNREADABLE = 3,     /* BPF could not read it from the process */
	NTP_CAUSE_NO_DEVICE = 4,      /* its device record was lost (collector) */
	NTP_CAUSE_ABI_VERSION = 5,    /* written by another ABI version (collector) */
	/* one point of a stored record */
	NTP_CAUSE_NOT_RECORDED = 8,   /* the driver's hook did not record it (collector) */
	NTP_CAUSE_NO_TSTAMP = 9,      /* the socket read gave no receive timestamp (SPDK) */
	NTP_CAUSE_ARRIVALS_OFF = 10,  /* recorded with --no-arrivals (SPDK) */
	NTP_CAUSE_FORGOTTEN = 11,     /* more arrivals followed than are kept per socket */
	NTP_CAUSE_MAX = 16,
};

/*
 * One sampled command, emitted once it is done. `dev` is an opaque key of the
 * controller+namespace the command went to (a kernel or SPDK pointer); the
 * collector learns what it names from an ntp_device_record with the same key.
 * In SPDK (and the test fixture) the key is the user-space address of that
 * ntp_device_record, which stays valid for the life of the process: the BPF
 * program reads it from there the first time it sees the key.
 *
 * The arrival point (t_rx on a target, h_rx on a host) of SPDK over TCP is
 * the kernel's receive timestamp (SO_TIMESTAMPING, software) of the socket
 * read that completed the PDU header, taken by the patch and converted to
 * CLOCK_MONOTONIC; where there is none, `rx_cause` says why.
 */
struct ntp_cmd_record {
	__u64 ts[NTP_MAX_POINTS]; /* CLOCK_MONOTONIC ns, 0 = no such point */
	__u64 slba;               /* starting LBA, from the SQE */
	__u64 dev;                /* device key, see ntp_device_record */
	__u32 nsid;               /* namespace id, from the SQE */
	__u32 nlb;                /* number of logical blocks, 0-based as in the SQE */
	__u16 qid;                /* queue id (0 = admin) */
	__u16 cid;                /* command id as on the wire (with generation bits) */
	__u16 cntlid;             /* controller id; 0xffff when not known yet */
	__u8 opcode;              /* NVMe opcode */
	__u8 kind;                /* NTP_KIND_CMD */
	__u8 role;                /* enum ntp_role */
	__u8 version;             /* NTP_ABI_VERSION */
	__u8 rx_cause;            /* enum ntp_cause: why the arrival point is 0 */
	__u8 pad[5];
};

/* What a device key names: sent once per key before its first command. */
struct ntp_device_record {
	__u64 dev;                   /* the key used in ntp_cmd_record.dev */
	__u32 nsid;
	__u32 lba_shift;             /* log2(logical block size), e.g. 9 or 12 */
	__u16 cntlid;
	__u8 kind;                   /* NTP_KIND_DEVICE */
	__u8 version;                /* NTP_ABI_VERSION */
	__u8 pad[4];
	char name[NTP_DEV_NAME_LEN]; /* nvme1n1, spdk-c1n1 */
	char nqn[NTP_NQN_LEN];       /* subsystem NQN */
};

/*
 * On the ring buffer, the SPDK path hands a probe hit's batch over whole:
 * this header, then `n` struct ntp_cmd_record. (The patch fires only the
 * records; the header is the BPF program's.)
 */
struct ntp_batch_header {
	__u8 kind;    /* NTP_KIND_BATCH */
	__u8 version; /* NTP_ABI_VERSION */
	__u16 pad;
	__u32 n;      /* records that follow */
};

#ifndef __cplusplus
_Static_assert(sizeof(struct ntp_cmd_record) == 120, "ntp_cmd_record ABI size");
_Static_assert(sizeof(struct ntp_batch_header) == 8, "ntp_batch_header ABI size");
_Static_assert(sizeof(struct ntp_device_record) == 280, "ntp_device_record ABI size");
_Static_assert(NTP_H_NPOINTS <= NTP_MAX_POINTS, "host points fit");
_Static_assert(NTP_T_NPOINTS <= NTP_MAX_POINTS, "target points fit");
#endif

/*
 * The sampling rule. A command is sampled iff
 *     ntp_sample_hash(qid, cid, opcode, nsid, slba, nlb) % N == 0
 * Host and target see the same submission queue entry, so both sample the
 * same commands without talking to each other. N == 0 samples nothing,
 * N == 1 everything. Only 64-bit multiply, xor and shift: it runs the same
 * in BPF, in the collector and in SPDK. Each of the three words of the
 * identity is multiplied by its own odd constant (a bijection of it), the
 * products and a constant xored, and the sum mixed by splitmix64's
 * finaliser: the three multiplies do not wait for each other, so the
 * decision costs an unsampled command one finaliser's latency, not three.
 * Fixed vectors in tests/test_abi.c pin it down; never change it without
 * bumping NTP_ABI_VERSION.
 */
static inline __u64 ntp_mix64(__u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static inline __u32 ntp_sample_hash(__u16 qid, __u16 cid, __u8 opcode, __u32 nsid,
				    __u64 slba, __u32 nlb)
{
	__u64 k = slba * 0x9e3779b97f4a7c15ULL ^
		  (((__u64)nsid << 32) | nlb) * 0xc2b2ae3d27d4eb4fULL ^
		  (((__u64)qid << 32) | ((__u64)cid << 8) | opcode) * 0x165667b19e3779f9ULL ^
		  0x243f6a8885a308d3ULL;

	return (__u32)(ntp_mix64(k) >> 32);
}

static inline int ntp_sampled(__u32 hash, __u32 n)
{
	return n != 0 && hash % n == 0;
}

#endif /* NTPROF_ABI_H */
