// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hooks and their flavours (hooks.h): feature probes (can a tracing
 * program take this function as fentry or kprobe, this tracepoint through
 * BTF, here and now) and the one chooser the kernel backends share.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hooks.h"
#include "links.h"
#include "ntp_err.h"

int ntp_module_btf(const char *module)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", module);
	return access(path, R_OK) == 0;
}

/* The types of MODULE ("vmlinux" or a module): the kernel's own from
 * /sys/kernel/btf, else the --btf file CUSTOM (may be NULL). Parsed once. */
static struct btf *module_btf(const char *module, const char *custom)
{
	static struct { char name[32]; struct btf *btf; } cache[8];
	static struct btf *vmlinux, *file;
	char path[PATH_MAX];

	if (!vmlinux && ntp_module_btf("vmlinux") &&
	    libbpf_get_error(vmlinux = btf__load_vmlinux_btf()))
		vmlinux = NULL;
	if (!ntp_module_btf(module)) {
		if (custom && !file && libbpf_get_error(file = btf__parse(custom, NULL)))
			file = NULL;
		return custom ? file : NULL;
	}
	if (!strcmp(module, "vmlinux"))
		return vmlinux;
	for (int i = 0; i < 8; i++) {
		if (!strcmp(cache[i].name, module))
			return cache[i].btf;
		if (cache[i].name[0])
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", module);
		snprintf(cache[i].name, sizeof(cache[i].name), "%s", module);
		cache[i].btf = btf__parse_split(path, vmlinux);
		if (libbpf_get_error(cache[i].btf))
			cache[i].btf = NULL;
		return cache[i].btf;
	}
	return NULL;
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
	struct btf *vmlinux = module_btf("vmlinux", NULL);
	int id, prog, link;

	if (!vmlinux)
		return 0;
	id = btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC);
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

enum ntp_fn_hooks ntp_function_hooks(void)
{
	static int answer = -1;

	if (answer < 0)
		answer = ntp_probe_fentry(NTP_CANARY)   ? NTP_FN_FENTRY
			 : ntp_probe_kprobe(NTP_CANARY) ? NTP_FN_KPROBE
							: NTP_FN_NONE;
	return answer;
}

const char *ntp_flavour_name(enum ntp_flavour f)
{
	static const char *const names[] = {
		[NTP_FENTRY] = "fentry", [NTP_KPROBE] = "kprobe",
		[NTP_TP_BTF] = "tp_btf", [NTP_RAW_TP] = "raw_tp",
	};

	return names[f];
}

/* A tracepoint is named system:name, a function has no colon. */
static const char *tracepoint_name(const struct ntp_hook *h)
{
	const char *colon = strchr(h->target, ':');

	return colon ? colon + 1 : NULL;
}

enum ntp_flavour ntp_hook_choose(const struct ntp_hook *h, int module_btf, int fentry_ok)
{
	if (tracepoint_name(h))
		return module_btf ? NTP_TP_BTF : NTP_RAW_TP;
	return module_btf && fentry_ok ? NTP_FENTRY : NTP_KPROBE;
}

enum ntp_flavour ntp_hook_flavour(const struct ntp_hook *h)
{
	/* tracepoints need no probe: tp_btf goes where the BTF is */
	int fentry_ok = tracepoint_name(h) || ntp_function_hooks() == NTP_FN_FENTRY;

	return ntp_hook_choose(h, ntp_module_btf(h->module), fentry_ok);
}

const char *ntp_hook_prog(const struct ntp_hook *h)
{
	static const char *const suffix[] = {
		[NTP_FENTRY] = "", [NTP_KPROBE] = "_kp", [NTP_TP_BTF] = "", [NTP_RAW_TP] = "_raw",
	};
	static char name[64];

	snprintf(name, sizeof(name), "%s%s", h->prog, suffix[ntp_hook_flavour(h)]);
	return name;
}

/* A kprobe: the --btf file need not have every module, kallsyms decides. */
static int kprobe_ok(const struct ntp_hook *h, char *why, size_t whylen)
{
	if (access("/sys/bus/event_source/devices/kprobe/type", R_OK))
		return snprintf(why, whylen, "kprobes are not available here (and fentry is "
				"not allowed)"), 0;
	if (!ntp_probe_kprobe(h->target))
		return snprintf(why, whylen, "%s is not in /proc/kallsyms (inlined?)", h->target), 0;
	return 1;
}

int ntp_hook_ok(const struct ntp_hook *h, const char *custom, char *why, size_t whylen)
{
	struct btf *btf = module_btf(h->module, custom);
	enum ntp_flavour f = ntp_hook_flavour(h);
	char name[128];

	if (!btf)
		return snprintf(why, whylen, "no BTF for %s%s", h->module,
				custom ? " in /sys/kernel/btf or the --btf file" : ""), 0;
	if (f == NTP_RAW_TP) /* the loaded module's tracepoint */
		return 1;
	if (f == NTP_KPROBE)
		return kprobe_ok(h, why, whylen);
	if (f == NTP_TP_BTF) { /* tracepoint system:name -> typedef btf_trace_name */
		snprintf(name, sizeof(name), "btf_trace_%s", tracepoint_name(h));
		if (btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) < 0)
			return snprintf(why, whylen, "no tracepoint %s in %s", h->target,
					h->module), 0;
		return 1;
	}
	if (btf__find_by_name_kind(btf, h->target, BTF_KIND_FUNC) < 0)
		return snprintf(why, whylen, "%s is not in %s's BTF (inlined, or another "
				"kernel version)", h->target, h->module), 0;
	return 1;
}

int ntp_hooks_choose(struct bpf_object *obj, const struct ntp_hook *table, int role,
		     const char *custom, char *err, size_t errlen)
{
	struct bpf_program *p;
	char why[256];

	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, false);
	for (const struct ntp_hook *h = table; h->prog; h++) {
		if (h->role != role)
			continue;
		if (!ntp_hook_ok(h, custom, why, sizeof(why))) {
			if (h->required)
				return ntp_fail(err, errlen, "cannot hook %s: %s", h->target, why);
			continue;
		}
		p = bpf_object__find_program_by_name(obj, ntp_hook_prog(h));
		if (!p)
			return ntp_fail(err, errlen, "no program %s in the BPF object",
					ntp_hook_prog(h));
		bpf_program__set_autoload(p, true);
	}
	return 0;
}

int ntp_hooks_attach(struct bpf_object *obj, const struct ntp_hook *table, int role,
		     struct ntp_links *links, char *err, size_t errlen)
{
	for (const struct ntp_hook *h = table; h->prog; h++) {
		const char *prog = ntp_hook_prog(h);
		struct bpf_program *p = bpf_object__find_program_by_name(obj, prog);

		if (h->role != role || !p || !bpf_program__autoload(p))
			continue;
		if (ntp_links_add(links, bpf_program__attach(p)))
			return ntp_fail(err, errlen, "failed to attach %s to %s: %s", prog,
					h->target, strerror(errno));
		ntp_links_note(links, prog, h->target, ntp_flavour_name(ntp_hook_flavour(h)),
			       h->points);
	}
	return 0;
}
