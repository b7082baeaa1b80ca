/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A collector backend: everything about one kind of configuration, behind
 * one set of operations that probe.c and record.c call through ntp_bpf_*:
 * what it records and whether it can here, its BPF programs, how sampling
 * is switched on and off, what it follows while recording, its hook table
 * and what probe lists. The SPDK backend (spdk_backend.c) records SPDK
 * programs through the patch's USDT probes and sampling variable; the
 * kernel backend (kern.c) the kernel's NVMe/TCP and NVMe/RDMA drivers.
 * backend.c holds the table they are chosen from: a new backend is one
 * file and one row there.
 */
#ifndef NTP_BACKEND_H
#define NTP_BACKEND_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "hooks.h"
#include "links.h"
#include "ntprof_abi.h"
#include "opts.h"

struct bpf_map;
struct ntp_bpf;
struct ntp_db;
struct ntp_json;

struct ntp_backend {
	const char *driver;  /* the recording's meta.driver: "spdk", "kernel" */
	/* whether it records O's configuration */
	int (*takes)(const struct ntp_opts *o);
	/* find what O records before anything loads (SPDK: the program, its
	 * objects and processes), into b->state: -1 with ERR set when it
	 * cannot be read at all. NULL: nothing to find */
	int (*open)(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen);
	/* it can be recorded here now (the probes or the driver module and
	 * its BTF; a process to record, unless o->wait): -1 with ERR set,
	 * the first reason. NULL: nothing to check */
	int (*check)(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen);
	/* open the BPF objects, choose the programs, size the ring, load */
	int (*load)(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen);
	/* attach, with a link and a hook note each (b->links) */
	int (*attach)(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen);
	/* the ring of records, the per-CPU lost counts per enum ntp_cause,
	 * the writer's idle flag (bpf/ntprof_common.bpf.h) */
	struct bpf_map *(*records)(const struct ntp_bpf *b);
	struct bpf_map *(*lost)(const struct ntp_bpf *b);
	struct bpf_map *(*idle)(const struct ntp_bpf *b);
	/* --wait: until there is something to record (0), or *STOP is set
	 * (-1). NULL: there always is */
	int (*wait)(struct ntp_bpf *b, const struct ntp_opts *o, volatile sig_atomic_t *stop);
	/* sample one command in N from now on, 0: none; where it cannot, say
	 * so on stderr. Returns how many sample (N: now, counting those about
	 * to; 0: ever since the start): processes, or 1 for BPF programs */
	int (*sample)(struct ntp_bpf *b, const struct ntp_opts *o, uint32_t n);
	/* follow what is recorded while sampling, with INTERVAL at each
	 * interval, and between intervals as often as it asks: processes
	 * that start, finish loading, exit (said on stdout). Returns 1 to be
	 * called again within 20 ms (a process still loading), else 0: at the
	 * next interval. NULL: nothing to follow */
	int (*follow)(struct ntp_bpf *b, const struct ntp_opts *o, int interval);
	/* add the commands counted since the last call to DB's current
	 * interval, and the map it reads them from; NULL: no exact counts */
	int (*counts)(struct ntp_bpf *b, struct ntp_db *db);
	struct bpf_map *(*count_map)(const struct ntp_bpf *b);
	/* close everything of b->state, whatever was reached */
	void (*close)(struct ntp_bpf *b);
	/* its hooks for O (hooks.h, up to a row of zeros), which attach
	 * takes and probe lists */
	const struct ntp_hook *(*hooks)(const struct ntp_opts *o);
	/* whether hook H of its table is there: 1, or 0 with WHY. NULL:
	 * ntp_hook_ok(), the kernel's types */
	int (*hook_ok)(struct ntp_bpf *b, const struct ntp_hook *h, const struct ntp_opts *o,
		       char *why, size_t whylen);
	/* probe's section of what open found, each item a text line or (W)
	 * a JSON field: -1 with WHY when something listed cannot be recorded.
	 * NULL: none */
	int (*print)(struct ntp_json *w, struct ntp_bpf *b, const struct ntp_opts *o, char *why,
		     size_t whylen);
};

/* What is found and loaded for one configuration. */
struct ntp_bpf {
	const struct ntp_backend *be; /* chosen by ntp_bpf_open */
	void *state;                  /* the backend's own */
	struct ntp_links links;       /* what was attached */
};

extern const struct ntp_backend ntp_spdk_backend;
extern const struct ntp_backend ntp_kern_backend;

/* The backend of O's configuration (never NULL: the kernel's takes
 * whatever names no SPDK program, and says what it cannot record). */
const struct ntp_backend *ntp_backend_for(const struct ntp_opts *o);

/* Choose B's backend and open, then check: each 0, or -1 with ERR set.
 * Load, attach: the same. Close takes a B at any stage, or never opened. */
int ntp_bpf_open(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen);
int ntp_bpf_check(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen);
int ntp_bpf_load(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen);
int ntp_bpf_attach(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen);
void ntp_bpf_close(struct ntp_bpf *b);

struct bpf_map *ntp_bpf_records(const struct ntp_bpf *b);

/* The writer's idle flag: 1 while it sleeps with nothing to commit, until
 * the next record wakes it. */
struct bpf_map *ntp_bpf_idle(const struct ntp_bpf *b);

/* The descriptors the writer reads through (priv.h), into FDS: the records
 * ring, the lost counts (always second), its idle flag, the exact counts'
 * map if the backend has one. Returns how many, at most
 * NTP_BPF_WRITER_FDS. */
#define NTP_BPF_WRITER_FDS 4
int ntp_bpf_writer_fds(const struct ntp_bpf *b, int *fds);

/* The records the BPF programs could not hand over so far, per enum
 * ntp_cause (all CPUs). */
void ntp_bpf_lost(const struct ntp_bpf *b, uint64_t out[NTP_CAUSE_MAX]);

/* The backend's wait, sample, follow and counts, where it has them. */
int ntp_bpf_wait(struct ntp_bpf *b, const struct ntp_opts *o, volatile sig_atomic_t *stop);
int ntp_bpf_sample(struct ntp_bpf *b, const struct ntp_opts *o, uint32_t n);
int ntp_bpf_follow(struct ntp_bpf *b, const struct ntp_opts *o, int interval);
int ntp_bpf_counts(struct ntp_bpf *b, struct ntp_db *db);

/* The backend's hook table for O, whether hook H of it is there, and its
 * section of probe. */
const struct ntp_hook *ntp_bpf_hooks(const struct ntp_bpf *b, const struct ntp_opts *o);
int ntp_bpf_hook_ok(struct ntp_bpf *b, const struct ntp_hook *h, const struct ntp_opts *o,
		    char *why, size_t whylen);
int ntp_bpf_print(struct ntp_json *w, struct ntp_bpf *b, const struct ntp_opts *o, char *why,
		  size_t whylen);

#endif
