/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An SPDK program as the collector sees it: the ELF objects that carry the
 * patch's USDT probes (the program itself, or the shared libraries it
 * loads: a shared-library SPDK build keeps its probes in libspdk_nvmf.so
 * and libspdk_nvme.so), the processes running it, and the sampling
 * variable in each.
 */
#ifndef NTP_SPDK_H
#define NTP_SPDK_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc.h"
#include "usdt.h"

#define NTP_SPDK_MAX_OBJS 8
#define NTP_SPDK_MAX_PIDS 64
#define NTP_SPDK_MAX_VARS 8

struct ntp_spdk_obj {
	char path[PATH_MAX];         /* real path */
	struct ntp_usdt_site *sites; /* its ntprof:* sites */
	int nsites;
};

struct ntp_spdk {
	char binary[PATH_MAX];      /* as named on the command line */
	struct ntp_spdk_obj objs[NTP_SPDK_MAX_OBJS]; /* objects with ntprof probes */
	int nobjs;
	pid_t pids[NTP_SPDK_MAX_PIDS]; /* processes running it (ntp_spdk_find_procs) */
	int npids;
	struct ntp_proc_memo memo;  /* what the scans for them remember */
	char no_events[128];        /* why memo.events is -1 */
};

/* The sampling variables of one process: one per object of the program
 * that defines it (a static build: the binary; a shared one: a library). */
struct ntp_spdk_vars {
	int n;
	uint64_t rate[NTP_SPDK_MAX_VARS];  /* its ntprof_sample_rate */
	uint64_t flags[NTP_SPDK_MAX_VARS]; /* its ntprof_sample_flags beside it, 0: none */
};

/* The probe names of the patch, in the order `probe` lists them: per side,
 * the batches of TCP and RDMA. */
#define NTP_SPDK_NPROBES 4
extern const char *const ntp_spdk_probes[NTP_SPDK_NPROBES];

/*
 * Read BINARY and the shared libraries it needs (transitively, through
 * DT_NEEDED, RUNPATH/RPATH with $ORIGIN, $ORIGIN/../lib, LD_LIBRARY_PATH,
 * the standard directories and what its running processes map), keeping
 * those with ntprof probes. Fills s->pids as ntp_spdk_find_procs does.
 * Returns 0 (possibly with no object), or -1 with ERR set when BINARY
 * cannot be read.
 */
int ntp_spdk_open(struct ntp_spdk *s, const char *binary, char *err, size_t errlen);
void ntp_spdk_close(struct ntp_spdk *s);

/* Sites of ntprof:NAME over all objects. */
int ntp_spdk_sites(const struct ntp_spdk *s, const char *name);

/* Refresh s->pids: processes that run the binary. Returns how many, or -1. */
int ntp_spdk_find_procs(struct ntp_spdk *s, char *err, size_t errlen);

/*
 * The sampling variables of PID in every object of the program that
 * defines one and that PID has loaded (the binary, the objects with
 * probes, the libspdk_*.so it maps), each checked where it is
 * (ntp_proc_locate_var). Returns how many (0: none, with ERR saying
 * whether the build lacks it or PID has not loaded it yet), or -1 when
 * one is not where the load put it.
 */
int ntp_spdk_find_vars(const struct ntp_spdk *s, pid_t pid, struct ntp_spdk_vars *v, char *err,
		       size_t errlen);

/* 1 if the binary or one of the objects with probes defines the sampling
 * variable: a process without it has then only not loaded it yet. */
int ntp_spdk_has_var(const struct ntp_spdk *s);

#endif
