/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel NVMe drivers' types that the kernel objects (ntprof_tcp_*.bpf.c,
 * ntprof_rdma_*.bpf.c) read, as far as they read them. They live in module
 * BTF (nvme_tcp, nvme_rdma, nvme_core, nvmet_tcp, nvmet_rdma, nvmet,
 * ib_core), not in vmlinux.h; the ___ntp flavour keeps them apart from any
 * vmlinux.h definition, and CO-RE matches each by its name without the
 * flavour against the running kernel's module BTF, field by field, so the
 * layout here is never used as is.
 *
 * Only fields that exist from 5.15 to 6.18 are read directly. Where a field
 * moved, both places are described and bpf_core_field_exists() picks
 * (docs/stages.md, "Kernel versions").
 */
#ifndef NTPROF_KERN_BPF_H
#define NTPROF_KERN_BPF_H

#define NTP_PAI __attribute__((preserve_access_index))

/* drivers/nvme/host/nvme.h */
struct nvme_subsystem___ntp {
	char subnqn[223];
} NTP_PAI;

struct nvme_ctrl___ntp {
	__u16 cntlid;
	struct nvme_subsystem___ntp *subsys;
} NTP_PAI;

struct nvme_ns_head___ntp {
	unsigned int ns_id;
	struct gendisk *disk; /* CONFIG_NVME_MULTIPATH: the nvmeXnY users see */
	int lba_shift;        /* from 6.9 (before: in nvme_ns) */
} NTP_PAI;

struct nvme_ns___ntp {
	struct nvme_ctrl___ntp *ctrl;
	struct gendisk *disk;
	struct nvme_ns_head___ntp *head;
	int lba_shift;        /* up to 6.8 */
} NTP_PAI;

/* drivers/nvme/host/tcp.c */
enum nvme_tcp_send_state___ntp {
	NVME_TCP_SEND_CMD_PDU___ntp = 0,
	NVME_TCP_SEND_H2C_PDU___ntp,
	NVME_TCP_SEND_DATA___ntp,
	NVME_TCP_SEND_DDGST___ntp,
};

struct nvme_tcp_queue___ntp;

struct nvme_tcp_request___ntp {
	struct nvme_tcp_queue___ntp *queue;
	enum nvme_tcp_send_state___ntp state;
} NTP_PAI;

struct nvme_tcp_queue___ntp {
	struct socket *sock;
	struct nvme_tcp_request___ntp *request; /* the one being sent */
} NTP_PAI;

/* drivers/nvme/target/nvmet.h */
struct nvmet_subsys___ntp {
	char *subsysnqn;
} NTP_PAI;

struct nvmet_ns___ntp {
	__u32 nsid;
	__u32 blksize_shift;
	char *device_path;
	struct nvmet_subsys___ntp *subsys;
} NTP_PAI;

struct nvmet_ctrl___ntp {
	__u16 cntlid;
} NTP_PAI;

struct nvmet_sq___ntp {
	struct nvmet_ctrl___ntp *ctrl;
	__u16 qid;
	bool sqhd_disabled;
} NTP_PAI;

struct nvmet_req___ntp {
	struct nvme_command *cmd;
	struct nvmet_sq___ntp *sq;
	struct nvmet_ns___ntp *ns;
} NTP_PAI;

/* drivers/nvme/target/tcp.c */
enum nvmet_tcp_send_state___ntp {
	NVMET_TCP_SEND_DATA_PDU___ntp,
	NVMET_TCP_SEND_DATA___ntp,
	NVMET_TCP_SEND_R2T___ntp,
	NVMET_TCP_SEND_DDGST___ntp,
	NVMET_TCP_SEND_RESPONSE___ntp,
};

struct nvmet_tcp_queue___ntp;

struct nvmet_tcp_cmd___ntp {
	struct nvmet_tcp_queue___ntp *queue;
	struct nvmet_req___ntp req;
	enum nvmet_tcp_send_state___ntp state;
} NTP_PAI;

struct nvmet_tcp_queue___ntp {
	struct socket *sock;
	struct nvmet_tcp_cmd___ntp *snd_cmd; /* the one being sent */
	struct nvmet_sq___ntp nvme_sq;
} NTP_PAI;

/* include/rdma/ib_verbs.h (ib_core's module BTF) */
struct ib_cqe___ntp {
	void *done;
} NTP_PAI;

struct ib_qp___ntp {
	void *qp_context;
} NTP_PAI;

enum ib_wc_status___ntp {
	IB_WC_SUCCESS___ntp, /* the only value read */
};

struct ib_wc___ntp {
	struct ib_cqe___ntp *wr_cqe;
	enum ib_wc_status___ntp status; /* CO-RE: an enum must match an enum */
	struct ib_qp___ntp *qp;
} NTP_PAI;

/* drivers/nvme/host/rdma.c */
struct nvme_rdma_queue___ntp {
	void *ib_cq;
} NTP_PAI;

struct nvme_rdma_qe___ntp {
	struct ib_cqe___ntp cqe;
	void *data; /* the SQE sent, or the CQE received */
} NTP_PAI;

struct nvme_rdma_request___ntp {
	struct nvme_rdma_qe___ntp sqe;
} NTP_PAI;

/* drivers/nvme/target/rdma.c */
struct nvmet_rdma_queue___ntp {
	void *cq;
} NTP_PAI;

struct nvmet_rdma_rsp___ntp {
	struct nvmet_rdma_queue___ntp *queue;
	struct ib_cqe___ntp read_cqe;
	struct nvmet_req___ntp req;
} NTP_PAI;

#endif
