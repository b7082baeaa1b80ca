/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The hooks of the backends and how each is taken here. A hook is one row
 * of a backend's table (kern_hooks.c, spdk_backend.c): what takes a
 * stage's points, for which role, attached to what. `probe` lists the
 * rows, the `hook` table of a recording says which were taken.
 *
 * A kernel hook is a program of the backend's BPF object that has a twin,
 * the same body in another flavour. Feature probes, never kernel version
 * checks, choose the flavour, and the choice drives
 * bpf_program__set_autoload(): only the chosen twin of each hook the
 * kernel has is loaded.
 *
 *   function:   fentry (PROG)   where its module has BTF and fentry may attach,
 *               kprobe (PROG_kp) elsewhere, with the --btf file for CO-RE;
 *   tracepoint: tp_btf (PROG)   where its module has BTF,
 *               raw_tp (PROG_raw) elsewhere.
 *
 * A USDT hook is a program attached to a user-space probe (target
 * provider:name) in the program a backend records; a sockopt hook takes
 * its points from a socket option of that program's own (target: how),
 * with no program of ntprof's. Their backend says whether they are there.
 */
#ifndef NTP_HOOKS_H
#define NTP_HOOKS_H

#include <stddef.h>

struct bpf_object;
struct ntp_links;

/* What a hook is attached to (the kernel's, 0, in the kernel tables). */
enum ntp_hook_kind { NTP_HOOK_KERNEL, NTP_HOOK_USDT, NTP_HOOK_SOCKOPT };

struct ntp_hook {
	const char *prog;     /* the program (kernel: the fentry or tp_btf one, whose
			       * twin adds _kp or _raw; sockopt: the option), NULL:
			       * the end of a table */
	int role;             /* enum ntp_role */
	const char *target;   /* function, tracepoint as system:name, USDT probe as
			       * provider:name, or what the option is read by */
	const char *module;   /* kernel: whose BTF has it ("vmlinux", "nvme_tcp"), else "" */
	const char *points;   /* the stage points it records */
	int required;         /* 0: attached where there is one; its points may stay empty */
	int kind;             /* enum ntp_hook_kind */
};

enum ntp_flavour { NTP_FENTRY, NTP_KPROBE, NTP_TP_BTF, NTP_RAW_TP, NTP_USDT, NTP_SOCKOPT };

/* "fentry", "kprobe", "tp_btf", "raw_tp", "usdt", "sockopt": the hook
 * table's kind. */
const char *ntp_flavour_name(enum ntp_flavour f);

/* The one function every kernel has, and the kernel backend hooks anyway,
 * on which the probes below ask whether function hooks may attach at all. */
#define NTP_CANARY "tcp_sendmsg"

/* What function hooks may attach here, asked once on NTP_CANARY: fentry
 * (a real load and attach), else kprobes, else none. */
enum ntp_fn_hooks { NTP_FN_FENTRY, NTP_FN_KPROBE, NTP_FN_NONE };
enum ntp_fn_hooks ntp_function_hooks(void);

/*
 * A kprobe needs the kprobe PMU and the function among the kprobe-able ones.
 * fentry is tried for real: a one-instruction tracing program loaded for the
 * function's BTF id and attached (EPERM where the kernel forbids it).
 */
int ntp_probe_kprobe(const char *func);
int ntp_probe_fentry(const char *func);

/* MODULE ("vmlinux" or a module) has BTF in /sys/kernel/btf. */
int ntp_module_btf(const char *module);

/* How the kernel hook H is taken, as a pure function of what the kernel
 * has: whether its module has BTF, whether fentry may attach. */
enum ntp_flavour ntp_hook_choose(const struct ntp_hook *h, int module_btf, int fentry_ok);

/* How H is taken here, and that flavour's program name. */
enum ntp_flavour ntp_hook_flavour(const struct ntp_hook *h);
const char *ntp_hook_prog(const struct ntp_hook *h);

/*
 * Choosing by loading: a fentry/tp_btf program the verifier rejects is
 * taken as its twin (kprobe/raw_tp) on the next try. ntp_hooks_reject
 * marks PROG of TABLE so (0; -1: no such hook, or already its twin), and
 * ntp_hook_flavour and ntp_hook_prog follow; ntp_hook_rejected says why,
 * or NULL.
 */
int ntp_hooks_reject(const struct ntp_hook *table, const char *prog, const char *why);
const char *ntp_hook_rejected(const struct ntp_hook *h);

/* Around a load: keep libbpf's messages (begin), then (end) give back its
 * printer and, if the load FAILED, the program libbpf blamed and the
 * verifier's last line on it (0), or -1 after printing the messages kept. */
void ntp_hooks_log_begin(void);
int ntp_hooks_log_end(int failed, char *prog, size_t plen, char *why, size_t wlen);

/* The same from a log LOG, for the tests. */
int ntp_load_log_rejected(const char *log, char *prog, size_t plen, char *why, size_t wlen);

/* Whether the kernel has the kernel hook H in its flavour here (types from
 * /sys/kernel/btf, or from the --btf file CUSTOM, may be NULL): 1 yes, 0
 * no (WHY says why). */
int ntp_hook_ok(const struct ntp_hook *h, const char *custom, char *why, size_t whylen);

/* In OBJ, autoload the chosen twin of each of ROLE's kernel hooks in
 * TABLE (up to a row whose prog is NULL) that the kernel has, and nothing
 * else. A required one missing: -1 with ERR set. */
int ntp_hooks_choose(struct bpf_object *obj, const struct ntp_hook *table, int role,
		     const char *custom, char *err, size_t errlen);

/* Attach what ntp_hooks_choose chose (OBJ loaded), each with its link and
 * hook note in LINKS. */
int ntp_hooks_attach(struct bpf_object *obj, const struct ntp_hook *table, int role,
		     struct ntp_links *links, char *err, size_t errlen);

#endif
