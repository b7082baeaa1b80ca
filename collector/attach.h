/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Loading and attaching the collector's BPF programs for one configuration
 * (probe.c checks it, record.c records with it): the USDT program for the
 * patch's batches, or the kernel drivers' hooks (kern.h).
 */
#ifndef NTP_ATTACH_H
#define NTP_ATTACH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collect.h"
#include "ntprof_abi.h"
#include "hooks.h"
#include "spdk.h"

struct ntp_db;
struct bpf_link;
struct bpf_map;

#define NTP_MAX_LINKS 64

struct ntp_bpf {
	struct ntprof_spdk_bpf *spdk;      /* USDT programs, records ring */
	struct ntprof_kern_bpf *kern;      /* the kernel drivers' programs (kern.h) */
	const char *usdt_prog;             /* ntp_u_nvmf_tcp_done, ... */
	struct bpf_link *links[NTP_MAX_LINKS];
	int nlinks;
	struct {                           /* what was attached, for the hook table */
		char name[64], attach_to[PATH_MAX + 64], kind[16], points[96];
	} hooks[NTP_MAX_LINKS];
	int nhooks;
};

/* Choose the hooks, open and load the programs: the SPDK path's, or the
 * kernel drivers' when O names no SPDK binary. -1 with ERR set on failure. */
int ntp_bpf_load(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen);

/* Attach the USDT program to every object of S with the required probe
 * (or the kernel path's hooks). */
int ntp_bpf_attach(struct ntp_bpf *b, const struct ntp_opts *o, const struct ntp_spdk *s,
		   char *err, size_t errlen);

/* Keep link L (NULL: failed, -1); note what was attached for the hook table. */
int ntp_bpf_add_link(struct ntp_bpf *b, struct bpf_link *l);
void ntp_bpf_note_hook(struct ntp_bpf *b, const char *name, const char *attach_to,
		       const char *kind, const char *points);

/* The records ring of whichever path was loaded. */
struct bpf_map *ntp_bpf_records(const struct ntp_bpf *b);

/* Write what was attached into DB's hook table. */
int ntp_bpf_write_hooks(const struct ntp_bpf *b, struct ntp_db *db);

/* Records the BPF programs could not hand over so far, per enum ntp_cause
 * (all CPUs). */
void ntp_bpf_lost(const struct ntp_bpf *b, uint64_t out[NTP_CAUSE_MAX]);

void ntp_bpf_close(struct ntp_bpf *b);

/* The points the USDT batches carry for ROLE, for the hook table. */
const char *ntp_usdt_points(int role);

/* The points the SPDK patch takes from the kernel's receive timestamps
 * under O ("t_rx t_data_rx", "h_rx"), or NULL: none (RDMA, --no-arrivals). */
const char *ntp_arrival_points(const struct ntp_opts *o);

#endif
