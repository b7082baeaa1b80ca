// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kernel path's hooks (kern.h): one row per program of
 * bpf/ntprof_kern.bpf.c, on its own so the test of the table against the
 * BPF object (tests/test_kern.c) needs nothing else.
 */
#include <string.h>

#include "kern.h"
#include "ntprof_abi.h"

#define H NTP_ROLE_HOST
#define T NTP_ROLE_TARGET

/* docs/stages.md, "Kernel TCP host" and "Kernel TCP target", explains each. */
const struct ntp_kern_hook ntp_kern_hooks[] = {
	{ "ntp_k_queue_rq", H, "fentry", "nvme_tcp", "nvme_tcp_queue_rq", "h_queue", 1 },
	{ "ntp_k_setup_cmd", H, "tp_btf", "nvme_core", "nvme:nvme_setup_cmd", "h_start", 1 },
	{ "ntp_k_sendmsg", H, "fentry", "vmlinux", "tcp_sendmsg", "h_sent h_data_sent", 1 },
	{ "ntp_k_sendpage", H, "fentry", "vmlinux", "tcp_sendpage", "h_sent h_data_sent", 0 },
	{ "ntp_k_r2t", H, "fentry", "nvme_tcp", "nvme_tcp_setup_h2c_data_pdu", "h_r2t_rx", 0 },
	{ "ntp_k_h_ready", H, "fentry", "nvme_tcp", "nvme_tcp_data_ready", "h_rx", 1 },
	{ "ntp_k_recv_skb", H, "fentry", "nvme_tcp", "nvme_tcp_recv_skb", "h_rx_drv", 1 },
	{ "ntp_k_cqe", H, "fentry", "vmlinux", "blk_mq_complete_request_remote", "h_cqe", 1 },
	{ "ntp_k_complete_rq", H, "tp_btf", "nvme_core", "nvme:nvme_complete_rq", "h_complete", 1 },
	{ "ntp_k_rq_done", H, "tp_btf", "vmlinux", "block:block_rq_complete", "h_end", 1 },
	{ "ntp_k_rq_requeue", H, "tp_btf", "vmlinux", "block:block_rq_requeue", "", 1 },
	{ "ntp_k_t_ready", T, "fentry", "nvmet_tcp", "nvmet_tcp_data_ready", "t_rx", 1 },
	{ "ntp_k_req_init", T, "tp_btf", "nvmet", "nvmet:nvmet_req_init", "t_cmd", 1 },
	{ "ntp_k_sendmsg", T, "fentry", "vmlinux", "tcp_sendmsg", "t_r2t t_sent", 1 },
	{ "ntp_k_sendpage", T, "fentry", "vmlinux", "tcp_sendpage", "t_r2t t_sent", 0 },
	{ "ntp_k_bdev_rw", T, "fentry", "nvmet", "nvmet_bdev_execute_rw", "t_exec t_data_rx", 0 },
	{ "ntp_k_bdev_flush", T, "fentry", "nvmet", "nvmet_bdev_execute_flush", "t_exec", 0 },
	{ "ntp_k_bdev_wz", T, "fentry", "nvmet", "nvmet_bdev_execute_write_zeroes", "t_exec", 0 },
	{ "ntp_k_bdev_dsm", T, "fentry", "nvmet", "nvmet_bdev_execute_dsm", "t_exec", 0 },
	{ "ntp_k_file_rw", T, "fentry", "nvmet", "nvmet_file_execute_rw", "t_exec t_data_rx", 0 },
	{ "ntp_k_bio_done", T, "fentry", "nvmet", "nvmet_bio_done", "t_stor", 0 },
	{ "ntp_k_req_complete", T, "tp_btf", "nvmet", "nvmet:nvmet_req_complete", "t_resp", 1 },
};
const size_t ntp_kern_hooks_n = sizeof(ntp_kern_hooks) / sizeof(ntp_kern_hooks[0]);

const char *ntp_kern_choose(const struct ntp_kern_hook *h, int module_btf, int fentry_ok)
{
	if (!strcmp(h->kind, "tp_btf"))
		return module_btf ? "tp_btf" : "raw_tp";
	return module_btf && fentry_ok ? "fentry" : "kprobe";
}
