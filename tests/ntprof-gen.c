// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof-gen: write synthetic host/target databases (a test fixture, not a
 * profiler). Used by the demo, the CLI tests and the benchmark.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ntprof-gen [options] -o HOST.db [-o HOST2.db ...] [-t TARGET.db ...]\n"
		"Writes synthetic ntprof databases with known stage times (test data).\n"
		"  -o FILE          host database (repeat for hosts sharing the target)\n"
		"  -t FILE          target database (omit: hosts only); repeated, host i is\n"
		"                   served by target i mod the number of targets\n"
		"  -s N             sample 1 in N on every machine (default 1)\n"
		"  -S N             the target's -s, when it should differ\n"
		"  -n SECONDS       workload length (default 2)\n"
		"  -r IOPS          per host (default 10000)\n"
		"  -q QD            commands in flight per host (default 1)\n"
		"  -Q QUEUES        I/O queues per host (default 1)\n"
		"  -l BLOCKS        LBA span; small values repeat identities (default 16M)\n"
		"  -w FRACTION      share of writes (default 0)\n"
		"  -k KIB           write size; >= 16 uses R2T (default 4)\n"
		"  -d host|target=kernel|spdk   driver (default kernel)\n"
		"  -H A,B           host records seconds A..B (default 0,n)\n"
		"  -T A,B           target records seconds A..B (default -1,n+1)\n"
		"  -L FRACTION      share of target records dropped (default 0)\n"
		"  -P FRACTION      share of the hosts' sampled records lost, as to a full\n"
		"                   ring: counted as lost, not stored (default 0)\n"
		"  -D PPM           the target's clock runs PPM fast (default 0)\n"
		"  -M NS            the target's storage takes NS ns longer (default 0)\n"
		"  -Y STAGE=NS      every command's STAGE takes NS ns longer (NS > 0): its\n"
		"                   whole distribution, median included, moves; -M NS adds\n"
		"                   to storage as -Y storage=NS does\n"
		"  -X STAGE=PROB,NS each command's STAGE stalls NS ns (> 0) longer with\n"
		"                   probability PROB (0 < PROB <= 1): a heavy tail that\n"
		"                   moves the mean and barely the median\n"
		"                   STAGE of -Y and -X: host_block (h_blk_sub, kernel\n"
		"                   hosts), host_driver (h_drv_sub), network (the command's\n"
		"                   crossing, wire), target_driver (t_drv_sub), storage\n"
		"                   (t_storage), host_rx (h_rx_path: in the network stage\n"
		"                   when joined); each may be given once per option. The\n"
		"                   same seed without -X gives the same files\n"
		"  -i SECONDS       interval length of every recording (default 1)\n"
		"  -c STAGE=NS      a constant stage: storage (t_storage) or host_rx\n"
		"                   (h_rx_path) takes exactly NS ns in every command\n"
		"  -R T,IOPS        from second T of the workload on, IOPS per host\n"
		"  -x SEED          PRNG seed (default 1)\n");
}

static int window(const char *arg, double *w)
{
	return sscanf(arg, "%lf,%lf", &w[0], &w[1]) == 2 && w[0] < w[1] ? 0 : -1;
}

/* -c storage=NS or -c host_rx=NS */
static int constant_stage(const char *arg, struct gen_config *c)
{
	long long ns;
	char stage[16];
	int end = 0;

	if (sscanf(arg, "%15[a-z_]=%lld%n", stage, &ns, &end) != 2 || arg[end] || ns <= 0)
		return -1;
	if (!strcmp(stage, "storage"))
		c->storage_ns = ns;
	else if (!strcmp(stage, "host_rx"))
		c->rx_path_ns = ns;
	else
		return -1;
	return 0;
}

static int stage_index(const char *name)
{
	for (int g = 0; g < GS_N; g++)
		if (!strcmp(name, gen_stage_name[g]))
			return g;
	return -1;
}

/* -Y STAGE=NS (PROB NULL) or -X STAGE=PROB,NS, each stage once per option */
static int stage_option(const char *arg, double *prob, struct gen_config *c)
{
	long long ns;
	double p = 1;
	char stage[16];
	int end = 0, g;

	if ((prob ? sscanf(arg, "%15[a-z_]=%lf,%lld%n", stage, &p, &ns, &end) != 3 :
		    sscanf(arg, "%15[a-z_]=%lld%n", stage, &ns, &end) != 2) ||
	    arg[end] || ns <= 0 || !(p > 0 && p <= 1))
		return -1;
	g = stage_index(stage);
	if (g < 0 || (prob ? c->stall_prob[g] > 0 : c->shift_ns[g] != 0))
		return -1;
	if (prob) {
		c->stall_prob[g] = p;
		c->stall_ns[g] = ns;
	} else {
		c->shift_ns[g] = ns;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *hosts[GEN_MAX_HOSTS], *targets[GEN_MAX_TARGETS] = { NULL };
	struct gen_config c;
	int nhosts = 0, ntargets = 0, opt, hw = 0, tw = 0;
	double prob; /* -X's, set in c */

	gen_defaults(&c);
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};

	while ((opt = getopt_long(argc, argv, "o:t:s:S:n:r:q:Q:l:w:k:d:H:T:L:P:D:M:x:i:c:R:X:Y:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'o':
			if (nhosts == GEN_MAX_HOSTS) {
				fprintf(stderr, "ntprof-gen: at most %d hosts\n", GEN_MAX_HOSTS);
				return 2;
			}
			hosts[nhosts++] = optarg;
			break;
		case 't':
			if (ntargets == GEN_MAX_TARGETS) {
				fprintf(stderr, "ntprof-gen: at most %d targets\n", GEN_MAX_TARGETS);
				return 2;
			}
			targets[ntargets++] = optarg;
			break;
		case 's': c.sample_rate = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'S': c.target_sample_rate = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'n': c.seconds = atof(optarg); break;
		case 'r': c.iops = atof(optarg); break;
		case 'q': c.qd = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'Q': c.nqueues = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'l': c.lba_span = strtoull(optarg, NULL, 0); break;
		case 'w': c.read_frac = 1 - atof(optarg); break;
		case 'k': c.write_kib = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'd':
			if (!strcmp(optarg, "host=spdk") || !strcmp(optarg, "host=kernel"))
				c.host_driver = optarg + 5;
			else if (!strcmp(optarg, "target=spdk") || !strcmp(optarg, "target=kernel"))
				c.target_driver = optarg + 7;
			else {
				fprintf(stderr, "ntprof-gen: -d %s: expected host=|target=kernel|spdk\n",
					optarg);
				return 2;
			}
			break;
		case 'H': if (window(optarg, c.host_window)) goto bad; hw = 1; break;
		case 'T': if (window(optarg, c.target_window)) goto bad; tw = 1; break;
		case 'L': c.target_loss = atof(optarg); break;
		case 'P': c.host_loss = atof(optarg); break;
		case 'D': c.target_drift_ppm = atof(optarg); break;
		case 'M': c.storage_delay_ns = strtoll(optarg, NULL, 0); break;
		case 'x': c.seed = strtoull(optarg, NULL, 0); break;
		case 'i': c.interval_s = atof(optarg); break;
		case 'c':
			if (constant_stage(optarg, &c)) {
				fprintf(stderr, "ntprof-gen: -c %s: expected storage=NS or "
					"host_rx=NS, NS > 0\n", optarg);
				return 2;
			}
			break;
		case 'Y':
		case 'X':
			if (stage_option(optarg, opt == 'X' ? &prob : NULL, &c)) {
				fprintf(stderr, "ntprof-gen: -%c %s: expected %s, a STAGE of "
					"--help's, once\n", opt, optarg, opt == 'X' ?
					"STAGE=PROB,NS with 0 < PROB <= 1, NS > 0" : "STAGE=NS, NS > 0");
				return 2;
			}
			break;
		case 'R':
			if (sscanf(optarg, "%lf,%lf", &c.rate_at, &c.rate_iops) != 2 ||
			    c.rate_at <= 0 || c.rate_iops <= 0) {
				fprintf(stderr, "ntprof-gen: -R %s: expected T,IOPS, both > 0\n",
					optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!nhosts || optind != argc || !c.sample_rate || !c.qd || !c.nqueues || c.iops <= 0 ||
	    c.interval_s <= 0) {
		usage(stderr);
		return 2;
	}
	if (!hw)
		c.host_window[1] = c.seconds;
	if (!tw)
		c.target_window[1] = c.seconds + 1;
	if (!strcmp(c.host_driver, "spdk") &&
	    (c.shift_ns[GS_HOST_BLOCK] || c.stall_prob[GS_HOST_BLOCK] > 0)) {
		fprintf(stderr, "ntprof-gen: host_block: an SPDK host has no block layer\n");
		return 2;
	}
	if (ntargets > nhosts) {
		fprintf(stderr, "ntprof-gen: %d targets for %d hosts: each target serves a host\n",
			ntargets, nhosts);
		return 2;
	}
	c.nhosts = nhosts;
	c.ntargets = ntargets;
	c.no_target = !ntargets;
	return gen_run_targets(&c, hosts, targets, NULL) ? 1 : 0;
bad:
	fprintf(stderr, "ntprof-gen: -%c %s: expected A,B with A < B\n", opt, optarg);
	return 2;
}
