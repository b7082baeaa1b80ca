/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ntprof-collect's options, shared by `probe` and `record` (opts.c parses
 * them), and the names a configuration derives from them.
 */
#ifndef NTP_OPTS_H
#define NTP_OPTS_H

#include <stdint.h>
#include <stdio.h>

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

/* The defaults before parsing. */
#define NTP_OPTS_INIT { .role = -1, .transport = "tcp", .rate = 100, .interval = 10 }

/* Parse the options after the command (ARGV[0] is the program or the
 * command). -h prints the usage and exits 0. Returns 0, or -1 after saying
 * on stderr what is wrong: a usage error. */
int ntp_opts_parse(struct ntp_opts *o, int argc, char **argv);

/*
 * Open the files the options name (--spdk-target/--spdk-host, --btf) as
 * the user who ran sudo would (fsid.h), without blocking: each must be a
 * regular file they may read. --btf is kept open and read through that
 * descriptor from then on (o->btf names it). Returns 0, or -1 with ERR set.
 */
int ntp_opts_open_inputs(struct ntp_opts *o, char *err, size_t errlen);

/* Keep ARGV, as typed, in o->command_line. */
void ntp_opts_command_line(struct ntp_opts *o, int argc, char **argv);

/* Say on stderr that the command line is wrong: "ntprof-collect: MSG (see
 * --help)", MSG being FMT with ARG. Returns -1. */
int ntp_opts_bad(const char *fmt, const char *arg);

void ntp_usage(FILE *f);

/* The configuration name: spdk_tcp_target, kernel_tcp_host, ... */
const char *ntp_config_name(const struct ntp_opts *o);

#endif
