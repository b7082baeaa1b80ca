/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Feature probes, never kernel version checks: whether this kernel lets a
 * tracing program hook a function or tracepoint the way ntprof would
 * (kern.c chooses the kernel path's hooks with them; probe.c reports them).
 * Tracepoints need no probe: tp_btf goes wherever the BTF has the
 * tracepoint's btf_trace_<name> typedef (kern.c looks).
 */
#ifndef NTP_HOOKS_H
#define NTP_HOOKS_H

/*
 * A kprobe needs the kprobe PMU and the function among the kprobe-able ones.
 * fentry is tried for real: a one-instruction tracing program loaded for the
 * function's BTF id and attached (EPERM where the kernel forbids it).
 */
int ntp_probe_kprobe(const char *func);
int ntp_probe_fentry(const char *func);

/* The same on one function every kernel has and the kernel path hooks
 * anyway (tcp_sendmsg), tried once: may this kernel's functions be hooked
 * by fentry, by kprobes? */
int ntp_fentry_allowed(void);
int ntp_kprobe_allowed(void);

#endif
