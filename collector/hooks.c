// SPDX-License-Identifier: BSD-2-Clause
/*
 * The socket hook of the SPDK path and the choice among fentry, kprobe and
 * tracepoint for it (hooks.h). The program names follow the tutorial's
 * probe output: ntp_s_<hook>_fe / _kp / _tp.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hooks.h"

const struct ntp_hook_family ntp_sock_hooks[] = {
	{ "arrival: a socket's stream grew (its data-ready callback)", "h_rx t_rx",
	  "sock_def_readable", "ntp_s_ready_fe", "ntp_s_ready_kp",
	  "sock:sk_data_ready", "ntp_s_ready_tp", 0 },
};
const size_t ntp_sock_hooks_n = sizeof(ntp_sock_hooks) / sizeof(ntp_sock_hooks[0]);

enum ntp_hook_kind ntp_hook_choose(const struct ntp_hook_family *f, const struct ntp_caps *c)
{
	/* fentry and tp_btf both resolve their target through kernel BTF */
	if (f->func && c->btf && c->fentry_ok && c->fentry_ok(f->func, c->ctx))
		return NTP_HOOK_FENTRY;
	if (f->func && c->kprobe_ok && c->kprobe_ok(f->func, c->ctx))
		return NTP_HOOK_KPROBE;
	if (f->tracepoint && c->btf && c->tracepoint_ok && c->tracepoint_ok(f->tracepoint, c->ctx))
		return NTP_HOOK_TRACEPOINT;
	return NTP_HOOK_NONE;
}

const char *ntp_hook_prog(const struct ntp_hook_family *f, enum ntp_hook_kind kind)
{
	switch (kind) {
	case NTP_HOOK_FENTRY: return f->fentry;
	case NTP_HOOK_KPROBE: return f->kprobe;
	case NTP_HOOK_TRACEPOINT: return f->tp_prog;
	default: return NULL;
	}
}

const char *ntp_hook_target(const struct ntp_hook_family *f, enum ntp_hook_kind kind)
{
	switch (kind) {
	case NTP_HOOK_FENTRY:
	case NTP_HOOK_KPROBE: return f->func;
	case NTP_HOOK_TRACEPOINT: return f->tracepoint;
	default: return NULL;
	}
}

const char *ntp_hook_kind_name(enum ntp_hook_kind kind)
{
	static const char *const names[] = { "none", "fentry", "kprobe", "tp_btf" };

	return kind <= NTP_HOOK_TRACEPOINT ? names[kind] : "none";
}

static struct btf *vmlinux_btf(void)
{
	static struct btf *btf;
	static int tried;

	if (!tried) {
		tried = 1;
		btf = btf__load_vmlinux_btf();
		if (libbpf_get_error(btf))
			btf = NULL;
	}
	return btf;
}

/* tp_btf needs the tracepoint's btf_trace_<name> typedef in vmlinux BTF. */
int ntp_probe_tracepoint(const char *tp, void *ctx)
{
	const char *name = strchr(tp, ':');
	char type[128];

	(void)ctx;
	snprintf(type, sizeof(type), "btf_trace_%s", name ? name + 1 : tp);
	return vmlinux_btf() && btf__find_by_name_kind(vmlinux_btf(), type, BTF_KIND_TYPEDEF) > 0;
}

/* A kprobe needs the kprobe PMU and the function in kallsyms. */
int ntp_probe_kprobe(const char *func, void *ctx)
{
	char line[512], sym[256];
	int found = 0;
	FILE *f;

	(void)ctx;
	if (access("/sys/bus/event_source/devices/kprobe/type", R_OK))
		return 0;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %255s", sym) == 1 && !strcmp(sym, func);
	fclose(f);
	return found;
}

/* fentry, tried for real: load `r0 = 0; exit` for FUNC's BTF id, attach. */
int ntp_probe_fentry(const char *func, void *ctx)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	int id, prog, link;

	(void)ctx;
	if (!vmlinux_btf())
		return 0;
	id = btf__find_by_name_kind(vmlinux_btf(), func, BTF_KIND_FUNC);
	if (id <= 0)
		return 0;
	opts.attach_btf_id = (unsigned int)id;
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ntp_probe_fe", "GPL", insns, 2, &opts);
	if (prog < 0)
		return 0;
	link = bpf_link_create(prog, 0, BPF_TRACE_FENTRY, NULL);
	if (link >= 0)
		close(link);
	close(prog);
	return link >= 0;
}

void ntp_caps_probe(struct ntp_caps *c)
{
	c->btf = vmlinux_btf() != NULL;
	c->fentry_ok = ntp_probe_fentry;
	c->kprobe_ok = ntp_probe_kprobe;
	c->tracepoint_ok = ntp_probe_tracepoint;
	c->ctx = NULL;
}
