/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ntprof-collect: the options of `probe` and `record` (collect.c parses
 * them), and the two commands (probe.c, record.c).
 */
#ifndef NTP_COLLECT_H
#define NTP_COLLECT_H

#include <stdint.h>

struct ntp_opts {
	int role;              /* enum ntp_role, or -1: from --spdk-target/--spdk-host */
	const char *transport; /* "tcp" or "rdma" */
	uint32_t rate;         /* -s: sample one command in rate */
	double interval;       /* -i: seconds between live lines and intervals */
	double duration;       /* -d: seconds to record, 0: until Ctrl-C */
	const char *out;       /* -o: the database to create */
	int force;             /* -f: replace an existing database */
	const char *spdk;      /* --spdk-target / --spdk-host: the SPDK binary */
	const char *btf;       /* --btf: kernel module BTF, for the kernel path */
	int json;              /* -j: probe prints JSON */
	unsigned ring_kb;      /* --ring-kb: record ring buffer size, 0: default */
	int quiet;             /* -q: no live lines */
	int wait;              /* --wait: wait for a process of the binary to start */
	int no_arrivals;       /* --no-arrivals: SPDK over TCP takes no receive timestamps */
	char command_line[2048]; /* as typed, for meta */
};

/* The configuration name: spdk_tcp_target, kernel_tcp_host, ... */
const char *ntp_config_name(const struct ntp_opts *o);

/* The USDT probe the configuration requires: nvmf_tcp_done, ... */
const char *ntp_required_probe(const struct ntp_opts *o);

int ntp_probe(const struct ntp_opts *o);
int ntp_record(const struct ntp_opts *o);

#endif
