/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel drivers' backend (nvme_tcp host, nvmet_tcp target): its hook
 * table (kern_hooks.c). kern.c is the backend (backend.h) that chooses,
 * loads and attaches them (hooks.h), sets the sampling rate and reads the
 * exact per-group counts.
 */
#ifndef NTP_KERN_H
#define NTP_KERN_H

#include "hooks.h"

/* The kernel backend's hooks, both roles: one row per program of
 * bpf/ntprof_kern.bpf.c and its twin, up to a row of zeros. */
extern const struct ntp_hook ntp_kern_hooks[];

#endif
