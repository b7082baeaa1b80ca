// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kernel backend's hooks (kern.h), one table per transport: one row
 * per program of the role's object (bpf/ntprof_tcp_host.bpf.c, ...) and
 * its twin (hooks.h), on its own so the test of the tables against the BPF
 * objects (tests/test_kern.c) needs nothing else.
 */
#include <string.h>

#include "kern.h"
#include "ntprof_abi.h"

#define H NTP_ROLE_HOST
#define T NTP_ROLE_TARGET
#define K NTP_HOOK_KERNEL /* every row: a function or a tracepoint */

/* docs/stages.md, "Kernel TCP host" and "Kernel TCP target", explains each. */
const struct ntp_hook ntp_kern_tcp_hooks[] = {
	{ "ntp_k_queue_rq", H, "nvme_tcp_queue_rq", "nvme_tcp", "h_queue", 1, K },
	{ "ntp_k_setup_cmd", H, "nvme:nvme_setup_cmd", "nvme_core", "h_start", 1, K },
	{ "ntp_k_sendmsg", H, "tcp_sendmsg", "vmlinux", "h_sent h_data_sent", 1, K },
	{ "ntp_k_sendpage", H, "tcp_sendpage", "vmlinux", "h_sent h_data_sent", 0, K },
	{ "ntp_k_r2t", H, "nvme_tcp_setup_h2c_data_pdu", "nvme_tcp", "h_r2t_rx", 0, K },
	{ "ntp_k_h_ready", H, "nvme_tcp_data_ready", "nvme_tcp", "h_rx", 1, K },
	{ "ntp_k_recv_skb", H, "nvme_tcp_recv_skb", "nvme_tcp", "h_rx_drv", 1, K },
	{ "ntp_k_cqe", H, "blk_mq_complete_request_remote", "vmlinux", "h_cqe", 1, K },
	{ "ntp_k_complete_rq", H, "nvme:nvme_complete_rq", "nvme_core", "h_complete", 1, K },
	{ "ntp_k_rq_done", H, "block:block_rq_complete", "vmlinux", "h_end", 1, K },
	{ "ntp_k_rq_requeue", H, "block:block_rq_requeue", "vmlinux", "", 1, K },
	{ "ntp_k_t_ready", T, "nvmet_tcp_data_ready", "nvmet_tcp", "t_rx", 1, K },
	{ "ntp_k_req_init", T, "nvmet:nvmet_req_init", "nvmet", "t_cmd", 1, K },
	{ "ntp_k_sendmsg", T, "tcp_sendmsg", "vmlinux", "t_r2t t_sent", 1, K },
	{ "ntp_k_sendpage", T, "tcp_sendpage", "vmlinux", "t_r2t t_sent", 0, K },
	{ "ntp_k_bdev_rw", T, "nvmet_bdev_execute_rw", "nvmet", "t_exec t_data_rx", 0, K },
	{ "ntp_k_bdev_flush", T, "nvmet_bdev_execute_flush", "nvmet", "t_exec", 0, K },
	{ "ntp_k_bdev_wz", T, "nvmet_bdev_execute_write_zeroes", "nvmet", "t_exec", 0, K },
	{ "ntp_k_bdev_dsm", T, "nvmet_bdev_execute_dsm", "nvmet", "t_exec", 0, K },
	{ "ntp_k_file_rw", T, "nvmet_file_execute_rw", "nvmet", "t_exec t_data_rx", 0, K },
	{ "ntp_k_bio_done", T, "nvmet_bio_done", "nvmet", "t_stor", 0, K },
	{ "ntp_k_req_complete", T, "nvmet:nvmet_req_complete", "nvmet", "t_resp", 1, K },
	{ 0 },
};

/* docs/stages.md, "Kernel RDMA host" and "Kernel RDMA target", explains each. */
const struct ntp_hook ntp_kern_rdma_hooks[] = {
	{ "ntp_r_queue_rq", H, "nvme_rdma_queue_rq", "nvme_rdma", "h_queue", 1, K },
	{ "ntp_k_setup_cmd", H, "nvme:nvme_setup_cmd", "nvme_core", "h_start", 1, K },
	{ "ntp_r_post_send", H, "nvme_rdma_post_send", "nvme_rdma", "h_sent", 1, K },
	{ "ntp_r_cq_event", H, "ib_cq_completion_softirq", "ib_core", "h_rx", 1, K },
	{ "ntp_r_recv_done", H, "nvme_rdma_recv_done", "nvme_rdma", "h_rx h_rx_drv", 1, K },
	{ "ntp_r_cqe", H, "blk_mq_complete_request_remote", "vmlinux", "h_cqe", 1, K },
	{ "ntp_k_complete_rq", H, "nvme:nvme_complete_rq", "nvme_core", "h_complete", 1, K },
	{ "ntp_k_rq_done", H, "block:block_rq_complete", "vmlinux", "h_end", 1, K },
	{ "ntp_k_rq_requeue", H, "block:block_rq_requeue", "vmlinux", "", 1, K },
	{ "ntp_r_t_cq_event", T, "ib_cq_completion_workqueue", "ib_core", "t_rx t_data_rx", 1, K },
	{ "ntp_r_handle_cmd", T, "nvmet_rdma_handle_command", "nvmet_rdma", "t_rx", 1, K },
	{ "ntp_k_req_init", T, "nvmet:nvmet_req_init", "nvmet", "t_cmd", 1, K },
	{ "ntp_r_read_post", T, "rdma_rw_ctx_post", "ib_core", "t_r2t", 1, K },
	{ "ntp_r_read_done", T, "nvmet_rdma_read_data_done", "nvmet_rdma", "t_data_rx", 1, K },
	{ "ntp_k_bdev_rw", T, "nvmet_bdev_execute_rw", "nvmet", "t_exec", 0, K },
	{ "ntp_k_bdev_flush", T, "nvmet_bdev_execute_flush", "nvmet", "t_exec", 0, K },
	{ "ntp_k_bdev_wz", T, "nvmet_bdev_execute_write_zeroes", "nvmet", "t_exec", 0, K },
	{ "ntp_k_bdev_dsm", T, "nvmet_bdev_execute_dsm", "nvmet", "t_exec", 0, K },
	{ "ntp_k_file_rw", T, "nvmet_file_execute_rw", "nvmet", "t_exec", 0, K },
	{ "ntp_k_bio_done", T, "nvmet_bio_done", "nvmet", "t_stor", 0, K },
	{ "ntp_k_req_complete", T, "nvmet:nvmet_req_complete", "nvmet", "t_resp", 1, K },
	{ "ntp_r_queue_resp", T, "nvmet_rdma_queue_response", "nvmet_rdma", "t_sent", 1, K },
	{ 0 },
};

const struct ntp_hook *ntp_kern_hooks_of(const char *transport)
{
	return strcmp(transport, "rdma") ? ntp_kern_tcp_hooks : ntp_kern_rdma_hooks;
}
