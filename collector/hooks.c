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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
		[NTP_FENTRY] = "fentry", [NTP_KPROBE] = "kprobe", [NTP_TP_BTF] = "tp_btf",
		[NTP_RAW_TP] = "raw_tp", [NTP_USDT] = "usdt", [NTP_SOCKOPT] = "sockopt",
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

/* The hooks whose fentry/tp_btf program the verifier rejected here, and
 * why: they are taken as their twin. */
#define NTP_MAX_REJECTED 16
static struct {
	const char *prog;
	char why[160];
} rejected[NTP_MAX_REJECTED];
static int nrejected;

static const char *rejection(const struct ntp_hook *h)
{
	for (int i = 0; i < nrejected; i++)
		if (!strcmp(rejected[i].prog, h->prog))
			return rejected[i].why;
	return NULL;
}

enum ntp_flavour ntp_hook_flavour(const struct ntp_hook *h)
{
	int fentry_ok;
	enum ntp_flavour f;

	if (h->kind != NTP_HOOK_KERNEL) /* one flavour each */
		return h->kind == NTP_HOOK_USDT ? NTP_USDT : NTP_SOCKOPT;
	/* tracepoints need no probe: tp_btf goes where the BTF is */
	fentry_ok = tracepoint_name(h) || ntp_function_hooks() == NTP_FN_FENTRY;
	f = ntp_hook_choose(h, ntp_module_btf(h->module), fentry_ok);

	if (rejection(h))
		return f == NTP_TP_BTF ? NTP_RAW_TP : f == NTP_FENTRY ? NTP_KPROBE : f;
	return f;
}

const char *ntp_hook_rejected(const struct ntp_hook *h)
{
	return rejection(h);
}

int ntp_hooks_reject(const struct ntp_hook *table, const char *prog, const char *why)
{
	for (const struct ntp_hook *h = table; h->prog; h++) {
		enum ntp_flavour f = ntp_hook_flavour(h);

		if (strcmp(h->prog, prog) || rejection(h) || nrejected == NTP_MAX_REJECTED ||
		    (f != NTP_FENTRY && f != NTP_TP_BTF))
			continue;
		rejected[nrejected].prog = h->prog;
		snprintf(rejected[nrejected].why, sizeof(rejected[nrejected].why), "%s", why);
		nrejected++;
		return 0;
	}
	return -1;
}

/* ---- what the verifier said: libbpf's log of a failed load ---- */

static char *load_log;      /* libbpf's messages while loading */
static size_t load_log_len;
static libbpf_print_fn_t saved_print;

static int keep_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	char line[1024];
	int n = vsnprintf(line, sizeof(line), fmt, args);
	char *more;

	if (level == LIBBPF_DEBUG || n <= 0)
		return 0;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	more = realloc(load_log, load_log_len + (size_t)n + 1);
	if (!more)
		return 0;
	load_log = more;
	memcpy(load_log + load_log_len, line, (size_t)n + 1);
	load_log_len += (size_t)n;
	return 0;
}

void ntp_hooks_log_begin(void)
{
	free(load_log);
	load_log = NULL;
	load_log_len = 0;
	saved_print = libbpf_set_print(keep_print);
}

/* The program whose load failed (libbpf: "prog 'NAME': BPF program load
 * failed"), and the verifier's last word on it: the line before the
 * "processed N insns" summary. */
int ntp_load_log_rejected(const char *log, char *prog, size_t plen, char *why, size_t wlen)
{
	const char *at = log ? strstr(log, "': BPF program load failed") : NULL;
	const char *name, *end, *line, *best = NULL;
	size_t blen = 0;

	if (!at)
		return -1;
	for (name = at; name > log && name[-1] != '\''; name--)
		;
	snprintf(prog, plen, "%.*s", (int)(at - name), name);
	end = strstr(at, "-- END PROG LOAD LOG --");
	for (line = strchr(at, '\n'); line && (!end || line < end); line = strchr(line + 1, '\n')) {
		const char *next = strchr(line + 1, '\n');
		size_t len = next ? (size_t)(next - line - 1) : strlen(line + 1);

		if (len && strncmp(line + 1, "processed ", 10) && strncmp(line + 1, "verification", 12) &&
		    strncmp(line + 1, "-- END", 6) && (!end || line + 1 < end))
			best = line + 1, blen = len;
	}
	snprintf(why, wlen, "%.*s", (int)blen, best ? best : "");
	return 0;
}

int ntp_hooks_log_end(int failed, char *prog, size_t plen, char *why, size_t wlen)
{
	int rc = failed ? ntp_load_log_rejected(load_log, prog, plen, why, wlen) : -1;

	libbpf_set_print(saved_print);
	if (failed && rc && load_log) /* no program to blame: say what libbpf said */
		fputs(load_log, stderr);
	free(load_log);
	load_log = NULL;
	load_log_len = 0;
	return rc;
}

const char *ntp_hook_prog(const struct ntp_hook *h)
{
	static const char *const suffix[] = {
		[NTP_FENTRY] = "", [NTP_KPROBE] = "_kp", [NTP_TP_BTF] = "", [NTP_RAW_TP] = "_raw",
		[NTP_USDT] = "", [NTP_SOCKOPT] = "",
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
		if (h->role != role || h->kind != NTP_HOOK_KERNEL)
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

		if (h->role != role || h->kind != NTP_HOOK_KERNEL || !p || !bpf_program__autoload(p))
			continue;
		if (ntp_links_add(links, bpf_program__attach(p)))
			return ntp_fail(err, errlen, "failed to attach %s to %s: %s", prog,
					h->target, strerror(errno));
		ntp_links_note(links, prog, h->target, ntp_flavour_name(ntp_hook_flavour(h)),
			       h->points);
	}
	return 0;
}
