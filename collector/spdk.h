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

#include "usdt.h"

#define NTP_SPDK_MAX_OBJS 8
#define NTP_SPDK_MAX_PIDS 64

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
	uint32_t rate, flags;       /* what ntp_spdk_set_rate writes when it turns sampling on */
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
 * Write RATE into the sampling variable of PID, in every object of the
 * program (or the binary itself) that defines it, and before it (when RATE
 * is not 0) FLAGS into the flags variable next to it, where there is one.
 * *ADDR gets the first address written. Returns the number of variables
 * written (0: none found, with ERR set), or -1 on a write error.
 */
int ntp_spdk_set_rate(struct ntp_spdk *s, pid_t pid, uint32_t rate, uint32_t flags,
		      uint64_t *addr, char *err, size_t errlen);

/* 1 if the binary or one of the objects with probes defines the sampling
 * variable: a process without it has then only not loaded it yet. */
int ntp_spdk_has_var(const struct ntp_spdk *s);

/* The same without writing: where the first variable of PID is. */
int ntp_spdk_find_var(const struct ntp_spdk *s, pid_t pid, uint64_t *addr, char *err,
		      size_t errlen);

#endif
