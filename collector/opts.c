// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof-collect's options (opts.h): the usage text, getopt, and the
 * checks of each value, which name the option that is wrong.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "fsid.h"
#include "ntp_version.h"
#include "ntprof_abi.h"
#include "opts.h"

void ntp_usage(FILE *f)
{
	fprintf(f,
		"usage: ntprof-collect probe -r host|target -t tcp|rdma [--spdk-target BIN | --spdk-host BIN]\n"
		"                            [--btf FILE] [-j]\n"
		"       ntprof-collect [record] [-r ROLE] -t tcp|rdma -s N -i SECS [-d SECS] -o FILE.db\n"
		"                            [-f] [--wait] [--spdk-target BIN | --spdk-host BIN]\n"
		"                            [--btf FILE]\n"
		"`probe` says what ntprof can hook on this machine for the configuration and\n"
		"whether it loads. `record` samples one command in N, records each sampled\n"
		"command's stage timestamps into a new SQLite database and prints a live line\n"
		"per group every interval; Ctrl-C (or SIGTERM, SIGHUP, ..., or -d) stops it,\n"
		"and it then prints the summary. Run it as root.\n"
		"  -r, --role host|target   which side this machine is (default: from --spdk-*)\n"
		"  -t, --transport tcp|rdma the fabric (default tcp)\n"
		"  -s, --sample N           sample one command in N (default 100; 1: all)\n"
		"  -i, --interval SECS      live line and interval length (default 10)\n"
		"  -d, --duration SECS      stop after SECS (default: at Ctrl-C)\n"
		"  -o, --output FILE        the database to create (refuses to replace one)\n"
		"  -f, --force              replace FILE if it exists (never through a symlink)\n"
		"      --spdk-target BIN    record SPDK's target: processes running BIN (nvmf_tgt)\n"
		"      --spdk-host BIN      record SPDK's host: processes running BIN (spdk_nvme_perf)\n"
		"      --btf FILE           the kernel's and its NVMe module's types, when /sys/kernel/btf\n"
		"                           lacks the module's (the kernel path then takes kprobes)\n"
		"      --ring-kb KB         ring buffer for records (default 16384; a power of 2 >= 4)\n"
		"  -q, --quiet              no live lines\n"
		"      --wait               record: wait for a process of BIN if none runs yet\n"
		"      --no-arrivals        SPDK over TCP: no t_rx/t_data_rx/h_rx from the kernel's\n"
		"                           receive timestamps (no receive paths), less overhead\n"
		"  -j, --json               probe prints JSON\n"
		"  -h, --help               this text\n"
		"      --version            the version, and libbpf's\n"
		"examples:\n"
		"  ntprof-collect probe -r target -t tcp --spdk-target ~/spdk/build/bin/nvmf_tgt\n"
		"  ntprof-collect record -r target -t tcp -s 100 -i 10 \\\n"
		"      --spdk-target ~/spdk/build/bin/nvmf_tgt -o target.ntp\n"
		"  ntprof-collect record -t tcp -s 100 -d 20 -i 10 \\\n"
		"      --spdk-host ~/spdk/build/bin/spdk_nvme_perf -o host.ntp\n"
		"See ntprof-collect(1).\n");
}

const char *ntp_config_name(const struct ntp_opts *o)
{
	static char name[64];

	snprintf(name, sizeof(name), "%s_%s_%s", o->spdk ? "spdk" : "kernel", o->transport,
		 o->role == NTP_ROLE_TARGET ? "target" : "host");
	return name;
}

int ntp_opts_bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "ntprof-collect: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see --help)\n");
	return -1;
}

/* A number of seconds above 0 and at most 1e7 (not nan, not inf). */
static int parse_secs(const char *s, double *out, const char *opt)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*out) || *out <= 0 || *out > 1e7)
		return ntp_opts_bad("%s wants a number of seconds above 0", opt);
	return 0;
}

static int parse_u32(const char *s, uint32_t *out, const char *opt)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < 1 || v > 0xffffffffUL)
		return ntp_opts_bad("%s wants a whole number >= 1", opt);
	*out = (uint32_t)v;
	return 0;
}

int ntp_opts_open_inputs(struct ntp_opts *o, char *err, size_t errlen)
{
	static char btf[64];
	int fd;

	if (o->spdk) {
		fd = ntp_fsid_open_input(o->spdk, err, errlen);
		if (fd < 0)
			return -1;
		close(fd);
	}
	if (o->btf) {
		fd = ntp_fsid_open_input(o->btf, err, errlen);
		if (fd < 0)
			return -1;
		/* the file the user could open, whatever the path names later */
		snprintf(btf, sizeof(btf), "/proc/self/fd/%d", fd);
		o->btf = btf;
	}
	return 0;
}

void ntp_opts_command_line(struct ntp_opts *o, int argc, char **argv)
{
	size_t len = 0;

	o->command_line[0] = '\0';
	for (int i = 0; i < argc && len < sizeof(o->command_line); i++)
		len += (size_t)snprintf(o->command_line + len, sizeof(o->command_line) - len,
					"%s%s", i ? " " : "", argv[i]);
}

static int set_spdk(struct ntp_opts *o, const char *bin, int role)
{
	if (o->spdk)
		return ntp_opts_bad("%s: give one of --spdk-target and --spdk-host", bin);
	o->spdk = bin;
	if (o->role >= 0 && o->role != role)
		return ntp_opts_bad("%s: -r contradicts the --spdk option", bin);
	o->role = role;
	return 0;
}

static int parse_opt(struct ntp_opts *o, int opt, const char *arg)
{
	uint32_t kb;

	switch (opt) {
	case 'r':
		if (strcmp(arg, "host") && strcmp(arg, "target"))
			return ntp_opts_bad("-r %s: the role is host or target", arg);
		if (o->spdk && o->role != (strcmp(arg, "host") ? NTP_ROLE_TARGET : NTP_ROLE_HOST))
			return ntp_opts_bad("-r %s contradicts the --spdk option", arg);
		o->role = strcmp(arg, "host") ? NTP_ROLE_TARGET : NTP_ROLE_HOST;
		return 0;
	case 't':
		if (strcmp(arg, "tcp") && strcmp(arg, "rdma"))
			return ntp_opts_bad("-t %s: the transport is tcp or rdma", arg);
		o->transport = arg;
		return 0;
	case 's': return parse_u32(arg, &o->rate, "-s");
	case 'i': return parse_secs(arg, &o->interval, "-i");
	case 'd': return parse_secs(arg, &o->duration, "-d");
	case 'o': o->out = arg; return 0;
	case 'f': o->force = 1; return 0;
	case 'j': o->json = 1; return 0;
	case 'q': o->quiet = 1; return 0;
	case 'W': o->wait = 1; return 0;
	case 'N': o->no_arrivals = 1; return 0;
	case 'T': return set_spdk(o, arg, NTP_ROLE_TARGET);
	case 'H': return set_spdk(o, arg, NTP_ROLE_HOST);
	case 'B': o->btf = arg; return 0;
	case 'R':
		if (parse_u32(arg, &kb, "--ring-kb") || kb < 4 || (kb & (kb - 1)) || kb > (1u << 20))
			return ntp_opts_bad("--ring-kb %s: a power of 2 from 4 to 1048576", arg);
		o->ring_kb = kb;
		return 0;
	default:
		return -1;
	}
}

int ntp_opts_parse(struct ntp_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "role", required_argument, NULL, 'r' },
		{ "transport", required_argument, NULL, 't' },
		{ "sample", required_argument, NULL, 's' },
		{ "interval", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "spdk-target", required_argument, NULL, 'T' },
		{ "spdk-host", required_argument, NULL, 'H' },
		{ "btf", required_argument, NULL, 'B' },
		{ "ring-kb", required_argument, NULL, 'R' },
		{ "wait", no_argument, NULL, 'W' },
		{ "no-arrivals", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'v' },
		{ 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "r:t:s:i:d:o:fjqh", longopts, NULL)) != -1) {
		if (opt == 'h') {
			ntp_usage(stdout);
			exit(0);
		}
		if (opt == 'v') {
			printf("ntprof-collect %s (libbpf %u.%u)\n", NTP_VERSION, libbpf_major_version(),
			       libbpf_minor_version());
			exit(0);
		}
		if (opt == '?' || parse_opt(o, opt, optarg))
			return -1;
	}
	if (optind < argc)
		return ntp_opts_bad("unexpected argument %s", argv[optind]);
	if (o->role < 0)
		o->role = NTP_ROLE_HOST;
	if (o->no_arrivals && (!o->spdk || strcmp(o->transport, "tcp")))
		return ntp_opts_bad("%s is for SPDK over TCP (the kernel drivers' and RDMA's arrivals "
			   "cost nothing per packet)", "--no-arrivals");
	return 0;
}
