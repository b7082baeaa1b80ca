// SPDX-License-Identifier: BSD-2-Clause
/*
 * Feature probes (hooks.h): can a tracing program take this function as
 * fentry or kprobe, or this tracepoint through BTF, here and now.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hooks.h"

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

/* A kprobe needs the kprobe PMU and the function in kallsyms. */
int ntp_probe_kprobe(const char *func)
{
	char line[512], sym[256];
	int found = 0;
	FILE *f;

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
int ntp_probe_fentry(const char *func)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	int id, prog, link;

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

/* The one canary of both answers below. */
#define NTP_CANARY "tcp_sendmsg"

int ntp_fentry_allowed(void)
{
	static int ok = -1;

	if (ok < 0)
		ok = ntp_probe_fentry(NTP_CANARY);
	return ok;
}

int ntp_kprobe_allowed(void)
{
	static int ok = -1;

	if (ok < 0)
		ok = ntp_probe_kprobe(NTP_CANARY);
	return ok;
}
