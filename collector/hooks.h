/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Hook choice by feature probes, never by kernel version. The socket hook
 * of the SPDK path (the arrivals) can be taken three ways: fentry/fexit on a kernel
 * function, a kprobe on it, or a tracepoint through BTF (tp_btf, which needs
 * no tracefs). The choice is a pure function of what the kernel allows,
 * so every combination is unit-tested; the probes that find out what it
 * allows are separate.
 */
#ifndef NTP_HOOKS_H
#define NTP_HOOKS_H

#include <stddef.h>

enum ntp_hook_kind {
	NTP_HOOK_NONE = 0,
	NTP_HOOK_FENTRY,     /* fentry/fexit on the function */
	NTP_HOOK_KPROBE,     /* kprobe/kretprobe on the function */
	NTP_HOOK_TRACEPOINT, /* tp_btf on the tracepoint */
};

/* One socket hook of the SPDK path, in order of preference. */
struct ntp_hook_family {
	const char *what;       /* "receive: data copied out" */
	const char *points;     /* stage points it helps fill: "h_rx t_rx", or "" */
	const char *func;       /* kernel function for fentry and kprobes, or NULL */
	const char *fentry;     /* program names, as `probe` prints them */
	const char *kprobe;
	const char *tracepoint; /* "sock:sock_recv_length", or NULL */
	const char *tp_prog;
	int required;           /* 1: record refuses to start without it */
};

/* What the kernel allows, as the probes found it (or a test says). */
struct ntp_caps {
	int btf;                                   /* kernel BTF is there */
	int (*fentry_ok)(const char *func, void *ctx);    /* fentry attaches */
	int (*kprobe_ok)(const char *func, void *ctx);    /* kprobe attaches */
	int (*tracepoint_ok)(const char *tp, void *ctx);  /* tp_btf attaches */
	void *ctx;
};

/* The socket hook families of the SPDK TCP path and how many there are. */
extern const struct ntp_hook_family ntp_sock_hooks[];
extern const size_t ntp_sock_hooks_n;

/* The best kind for F under CAPS; NTP_HOOK_NONE when nothing works. */
enum ntp_hook_kind ntp_hook_choose(const struct ntp_hook_family *f, const struct ntp_caps *c);

/* The program name and attach target of F taken as KIND. */
const char *ntp_hook_prog(const struct ntp_hook_family *f, enum ntp_hook_kind kind);
const char *ntp_hook_target(const struct ntp_hook_family *f, enum ntp_hook_kind kind);

/* "fentry", "kprobe", "tp_btf", "none" (the hook table's kind column). */
const char *ntp_hook_kind_name(enum ntp_hook_kind kind);

/*
 * The real probes. Kernel BTF: /sys/kernel/btf/vmlinux. A tracepoint can be
 * taken as tp_btf when vmlinux BTF has its btf_trace_<name> typedef. A
 * kprobe needs the kprobe PMU and the function among the kprobe-able ones.
 * fentry is tried for real: a one-instruction tracing program loaded for the
 * function's BTF id and attached (EPERM where the kernel forbids it).
 */
void ntp_caps_probe(struct ntp_caps *c);
int ntp_probe_tracepoint(const char *tp, void *ctx);
int ntp_probe_kprobe(const char *func, void *ctx);
int ntp_probe_fentry(const char *func, void *ctx);

#endif
