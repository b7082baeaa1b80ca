/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel drivers' backend (nvme_tcp and nvme_rdma hosts, nvmet_tcp and
 * nvmet_rdma targets): its hook
 * table (kern_hooks.c). kern.c is the backend (backend.h) that chooses,
 * loads and attaches them (hooks.h), sets the sampling rate and reads the
 * exact per-group counts.
 */
#ifndef NTP_KERN_H
#define NTP_KERN_H

#include "hooks.h"

/* The kernel backend's hooks per transport, both roles: one row per
 * program of the role's object and its twin, up to a row of zeros. */
extern const struct ntp_hook ntp_kern_tcp_hooks[];
extern const struct ntp_hook ntp_kern_rdma_hooks[];

/* The table of TRANSPORT ("tcp" or "rdma"). */
const struct ntp_hook *ntp_kern_hooks_of(const char *transport);

#endif
