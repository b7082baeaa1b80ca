/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Synthetic host/target recordings with known stage distributions, written
 * through the collector's own database writer (lib/ntp_db.c) from ABI
 * records. Used by the tests, the demo and the benchmark.
 *
 * A workload runs for `seconds` on every host; each host records a window of
 * it, the target another (earlier, later, longer), so some records have no
 * partner. Clocks: each machine's CLOCK_MONOTONIC has its own origin, and the
 * target's wall clock may be wrong by `wall_error_ns`.
 */
#ifndef NTP_GEN_H
#define NTP_GEN_H

#include <stdint.h>

#define GEN_MAX_HOSTS 16
#define GEN_MAX_TARGETS 4

/* The stages whose times -Y shifts and -X stalls, each at one component:
 * host_block h_blk_sub (kernel hosts), host_driver h_drv_sub, network the
 * command's crossing (wire), target_driver t_drv_sub, storage t_storage,
 * host_rx h_rx_path (in the network stage when joined). */
enum gen_stage {
	GS_HOST_BLOCK, GS_HOST_DRIVER, GS_NETWORK, GS_TARGET_DRIVER, GS_STORAGE, GS_HOST_RX,
	GS_N
};

/* Their names, as the report's stages (ntprof-gen -X, -Y). */
extern const char *const gen_stage_name[GS_N];

struct gen_config {
	uint64_t seed;            /* PRNG seed: same seed, same files */
	double seconds;           /* workload length */
	double iops;              /* per host, approximate (sets think time) */
	uint32_t qd;              /* commands in flight per host: cids 0..qd-1 */
	uint32_t nqueues;         /* I/O queues per host (qid 1..nqueues) */
	uint64_t lba_span;        /* slba drawn from [0, lba_span) in 4 KiB steps;
				   * small: the same identity repeats */
	double read_frac;         /* share of reads; the rest are writes */
	uint32_t write_kib;       /* write size; >= 16 KiB uses R2T + H2C */
	uint32_t sample_rate;     /* -s N for every machine */
	uint32_t target_sample_rate; /* 0: same as sample_rate */
	const char *host_driver;  /* "kernel" or "spdk" */
	const char *target_driver;
	const char *transport;    /* "tcp" or "rdma" */
	int nhosts;               /* hosts sharing the target, 1..GEN_MAX_HOSTS */
	int ntargets;             /* targets, 0 or 1: one; host i is served by
				   * target i % ntargets (gen_run_targets) */
	double host_window[2];    /* host records [a, b] seconds of the workload */
	double target_window[2];  /* target records [a, b]; may exceed the workload */
	double target_loss;       /* share of the target's records dropped */
	double host_loss;         /* share of the hosts' sampled records lost, as to
				   * a full ring: counted in lost, not stored */
	int64_t target_clock_ns;  /* target mono = host mono + this (per host i: + i s) */
	int64_t wall_error_ns;    /* target's wall clock error */
	double target_drift_ppm;  /* target's CLOCK_MONOTONIC runs this much fast */
	int64_t jitter_ns;        /* each network crossing takes up to this much more,
				   * uniformly and independently: the two directions
				   * of one command differ (a jittery network) */
	int64_t storage_delay_ns; /* the target's storage takes this much longer */
	int no_target;            /* write host databases only */
	double interval_s;        /* every machine closes an interval this often (-i) */
	int64_t storage_ns;       /* > 0: t_storage takes exactly this (a constant stage) */
	int64_t rx_path_ns;       /* > 0: h_rx_path takes exactly this (the host's
				   * receive path stage, constant) */
	double rate_at;           /* > 0: from this second of the workload on ... */
	double rate_iops;         /* ... each host issues this many commands/s */
	int64_t shift_ns[GS_N];   /* each command's stage takes this much longer: its
				   * whole distribution, median included, moves */
	double stall_prob[GS_N];  /* > 0: each command's stage stalls with this
				   * probability (independently) ... */
	int64_t stall_ns[GS_N];   /* ... for this much longer: a heavy tail */
};

/* What the generator knows about one sampled host command. */
struct gen_truth {
	int host;                 /* index of the host */
	int grp_is_write;
	int matched;              /* the target recorded it too */
	int64_t t;                /* its cmd.t on the host: first point, ns since the
				   * host's mono_start (unless moved by a tie) */
	int64_t comp[16];         /* ns per component, indexed by enum gen_comp */
};

enum gen_comp {
	GC_H_BLK_SUB, GC_H_DRV_SUB, GC_H_R2T, GC_H_WAIT, GC_WIRE, GC_T_RX_PATH,
	GC_T_DRV_SUB, GC_T_DATA_WAIT, GC_T_STORAGE, GC_T_DRV_CPL, GC_H_RX_PATH,
	GC_H_DRV_CPL, GC_H_BLK_CPL, GC_H_HANDOFF, GC_E2E, GC_T_E2E, GC_N
};

/* Component key in the SQL views for each enum gen_comp. */
extern const char *const gen_comp_name[GC_N];

struct gen_result {
	struct gen_truth *truth;  /* sampled host commands, all hosts */
	uint64_t ntruth;
	uint64_t host_records[GEN_MAX_HOSTS];
	uint64_t target_records;
	uint64_t issued[GEN_MAX_HOSTS]; /* commands in each host's window */
	uint64_t host_lost[GEN_MAX_HOSTS]; /* sampled records lost (host_loss) */
};

/* Fill CFG with the defaults (one host, qd 1, reads, -s 1, kernel TCP). */
void gen_defaults(struct gen_config *cfg);

/* Write host_paths[0..nhosts-1] and target_path (ignored with no_target).
 * RES may be NULL. Returns 0, or -1 with a message on stderr. */
int gen_run(const struct gen_config *cfg, const char *const *host_paths,
	    const char *target_path, struct gen_result *res);

/* The same with cfg->ntargets targets, written to target_paths[0..]; host i
 * is served by target i % ntargets only (its controller exists there). */
int gen_run_targets(const struct gen_config *cfg, const char *const *host_paths,
		    const char *const *target_paths, struct gen_result *res);

void gen_result_free(struct gen_result *res);

#endif
