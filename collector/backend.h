/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A collector backend: the BPF side of one kind of configuration, behind
 * one set of operations that probe.c and record.c call through ntp_bpf_*.
 * The SPDK backend (spdk_backend.c) loads the USDT batch programs; the
 * kernel backend (kern.c) the programs of the kernel's NVMe/TCP and
 * NVMe/RDMA drivers.
 * backend.c holds the table they are chosen from: a new backend is one
 * file and one row there.
 */
#ifndef NTP_BACKEND_H
#define NTP_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "hooks.h"
#include "links.h"
#include "ntprof_abi.h"
#include "opts.h"

struct bpf_map;
struct ntp_bpf;
struct ntp_db;
struct ntp_spdk;

struct ntp_backend {
	const char *driver;  /* the recording's meta.driver: "spdk", "kernel" */
	/* whether it records O's configuration */
	int (*takes)(const struct ntp_opts *o);
	/* the configuration can be recorded here (a driver loaded, its BTF);
	 * NULL: nothing to check before loading */
	int (*check)(const struct ntp_opts *o, char *err, size_t errlen);
	/* open, choose the programs, size the ring, load */
	int (*load)(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen);
	/* attach, with a link and a hook note each (b->links); SPDK is the
	 * SPDK program, NULL for the kernel */
	int (*attach)(struct ntp_bpf *b, const struct ntp_opts *o, const struct ntp_spdk *spdk,
		      char *err, size_t errlen);
	/* the ring of records, the per-CPU lost counts per enum ntp_cause */
	struct bpf_map *(*records)(const struct ntp_bpf *b);
	struct bpf_map *(*lost)(const struct ntp_bpf *b);
	/* sample one command in N from now on (0: none); NULL: the traced
	 * processes sample, and record.c writes their variable */
	void (*set_rate)(struct ntp_bpf *b, uint32_t n);
	/* add the commands counted since the last call to DB's current
	 * interval; NULL: no exact counts */
	int (*counts)(struct ntp_bpf *b, struct ntp_db *db);
	void (*close)(struct ntp_bpf *b);
	/* the hooks it chooses from for O (hooks.h, up to a row of zeros),
	 * which probe lists; NULL: none */
	const struct ntp_hook *(*hooks)(const struct ntp_opts *o);
};

/* What is loaded for one configuration. */
struct ntp_bpf {
	const struct ntp_backend *be; /* NULL until loaded */
	void *state;                  /* the backend's own */
	struct ntp_links links;       /* what was attached */
};

extern const struct ntp_backend ntp_spdk_backend;
extern const struct ntp_backend ntp_kern_backend;

/* The backend of O's configuration (never NULL: the kernel's takes
 * whatever names no SPDK program, and says what it cannot record). */
const struct ntp_backend *ntp_backend_for(const struct ntp_opts *o);

/* The backend's check for O: 0, or -1 with ERR set. */
int ntp_bpf_check(const struct ntp_opts *o, char *err, size_t errlen);

/* Load, attach (SPDK: the SPDK program, or NULL), close: -1 with ERR set
 * on failure; close takes a B that failed or was never loaded. */
int ntp_bpf_load(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen);
int ntp_bpf_attach(struct ntp_bpf *b, const struct ntp_opts *o, const struct ntp_spdk *spdk,
		   char *err, size_t errlen);
void ntp_bpf_close(struct ntp_bpf *b);

struct bpf_map *ntp_bpf_records(const struct ntp_bpf *b);

/* The records the BPF programs could not hand over so far, per enum
 * ntp_cause (all CPUs). */
void ntp_bpf_lost(const struct ntp_bpf *b, uint64_t out[NTP_CAUSE_MAX]);

/* The backend's set_rate and counts, where it has them. */
void ntp_bpf_set_rate(struct ntp_bpf *b, uint32_t n);
int ntp_bpf_counts(struct ntp_bpf *b, struct ntp_db *db);

/* The SPDK backend's names, for probe and the hook table: the USDT program
 * of O (ntp_u_nvmf_tcp_done, ...), the points its batches carry for ROLE,
 * and the points the patch takes from the kernel's receive timestamps
 * under O ("t_rx t_data_rx", "h_rx"), or NULL: none (RDMA, --no-arrivals). */
const char *ntp_usdt_prog(const struct ntp_opts *o);
const char *ntp_usdt_points(int role);
const char *ntp_arrival_points(const struct ntp_opts *o);

#endif
