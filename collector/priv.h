/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Privilege separation, as tcpdump drops root once its capture is open:
 * `record` runs in two processes. The sampler keeps root: it loaded and
 * attached the BPF programs, holds the processes' memory and locks, and
 * follows processes that start (which needs CAP_SYS_PTRACE and may need
 * CAP_DAC_READ_SEARCH: another user's program, its /proc/PID/maps and
 * mem); it parses no recorded data and no SQL. The writer, forked once
 * sampling is on, reads the ring into the SQLite file, runs the live
 * queries and prints: it holds only the descriptors it needs (the maps it
 * reads, its channel to the sampler, stdin, stdout, stderr) and no
 * privilege:
 *
 * - under sudo it is the invoking user, all of its ids (setresuid), with
 *   that user's groups; as root without sudo it stays uid 0, which the
 *   files it writes belong to;
 * - no capability at all in its effective, permitted, inheritable,
 *   ambient and bounding sets, but CAP_BPF where the kernel wants it to
 *   read a BPF map through a descriptor (before Linux 6.5, with
 *   kernel.unprivileged_bpf_disabled set, every bpf() call needs it): that
 *   is tried, not assumed, on the map of lost counts, with CAP_BPF and
 *   CAP_SYS_ADMIN out of effect for a moment;
 * - no_new_privs: no program it could run gains any.
 */
#ifndef NTP_PRIV_H
#define NTP_PRIV_H

#include <stddef.h>

/*
 * In the writer: close every descriptor but 0, 1, 2 and the N in KEEP,
 * then drop to the user UID/GID (-1: not under sudo, stay uid 0) and to
 * no capability, keeping CAP_BPF only if a read of the BPF map MAP_FD
 * (one of KEEP, an array with key 0) needs it. Returns 0 (*KEPT_BPF says
 * whether CAP_BPF was kept), or -1 with ERR set.
 */
int ntp_priv_drop(const int *keep, int n, long uid, long gid, int map_fd, int *kept_bpf,
		  char *err, size_t errlen);

#endif
