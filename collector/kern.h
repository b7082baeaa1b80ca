/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel drivers' path (nvme_tcp host, nvmet_tcp target): its hook
 * table, and which of bpf/ntprof_kern.bpf.c's programs this kernel can
 * take. kern.c is the backend (backend.h) that loads and attaches them,
 * sets the sampling rate and reads the exact per-group counts.
 */
#ifndef NTP_KERN_H
#define NTP_KERN_H

#include <stddef.h>
#include <stdint.h>

/* One program of the kernel path. */
struct ntp_kern_hook {
	const char *prog;     /* program name in ntprof_kern.bpf.c */
	int role;             /* enum ntp_role */
	const char *kind;     /* "fentry" or "tp_btf" (kern_kind: the flavour taken) */
	const char *module;   /* whose BTF has it: "vmlinux", "nvme_tcp", ... */
	const char *func;     /* function, or tracepoint as system:name */
	const char *points;   /* stage points it records */
	int required;         /* 0: attached where the kernel has it */
};

extern const struct ntp_kern_hook ntp_kern_hooks[];
extern const size_t ntp_kern_hooks_n;

/* What the kernel has for hook H (types from /sys/kernel/btf, or from the
 * --btf file CUSTOM, may be NULL): 1 yes, 0 no (WHY says why). */
int ntp_kern_hook_ok(const struct ntp_kern_hook *h, const char *custom, char *why,
		     size_t whylen);

/* How H is taken, as a pure function of what the kernel has: a function
 * by fentry where its module has BTF and fentry is allowed, else by a
 * kprobe; a tracepoint by tp_btf where its module has BTF, else raw_tp. */
const char *ntp_kern_choose(const struct ntp_kern_hook *h, int module_btf, int fentry_ok);

/* How H is taken here (the probes answered for ntp_kern_choose), and that
 * flavour's program name. */
const char *ntp_kern_kind(const struct ntp_kern_hook *h);
const char *ntp_kern_prog(const struct ntp_kern_hook *h);

#endif
