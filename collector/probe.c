// SPDX-License-Identifier: BSD-2-Clause
/*
 * `ntprof-collect probe`: what can be hooked here for one configuration,
 * section by section like `bpftool feature probe`: the kernel, what the
 * backend found (ntp_bpf_print), its hooks, then a real load and attach
 * (`load: ok`). Whatever stops a recording (a missing required hook,
 * nothing running to record, a failed load) makes it exit 1. One printer
 * writes each item as a text line, or with -j into one JSON object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "collect.h"
#include "json_writer.h"
#include "ntp_err.h"
#include "ntprof_abi.h"

/* What the probe found, printed at the end. */
struct found {
	int btf;
	const char *fhooks;       /* what function hooks can do */
	char module[32];          /* the kernel module of the configuration */
	int module_btf;
	char load[NTP_ERR_MAX];   /* "ok" or why not */
	int failed;               /* exit 1 */
	char why[NTP_ERR_MAX];    /* the first reason */
};

static void fail(struct found *f, const char *msg)
{
	if (!f->failed)
		snprintf(f->why, sizeof(f->why), "%s", msg);
	f->failed = 1;
}

static const char *function_hooks(void)
{
	switch (ntp_function_hooks()) {
	case NTP_FN_FENTRY:
		return "fentry/fexit (they can attach now)";
	case NTP_FN_KPROBE:
		return "kprobes (fentry/fexit: not allowed here)";
	default:
		return "tracepoints only (fentry/fexit: not allowed here; kprobes: not available)";
	}
}

/* The kernel's own driver module of the configuration: nvmet_tcp, ... */
static void find_kernel(struct found *f, const struct ntp_opts *o)
{
	snprintf(f->module, sizeof(f->module), "%s_%s", o->role == NTP_ROLE_TARGET ? "nvmet" : "nvme",
		 strcmp(o->transport, "rdma") ? "tcp" : "rdma");
	f->btf = ntp_module_btf("vmlinux");
	f->fhooks = function_hooks();
	f->module_btf = ntp_module_btf(f->module) || o->btf;
}

/* Whatever stops a recording is said; the load is tried all the same. */
static void try_load(struct found *f, const struct ntp_opts *o, struct ntp_bpf *b)
{
	char err[NTP_ERR_MAX];

	if (ntp_bpf_check(b, o, err, sizeof(err)))
		fail(f, err);
	if (ntp_bpf_load(b, o, f->load, sizeof(f->load)) ||
	    ntp_bpf_attach(b, o, f->load, sizeof(f->load)))
		fail(f, f->load);
	else
		snprintf(f->load, sizeof(f->load), "ok");
}

/*
 * The printer. Each item below writes itself as text or, with W, as JSON:
 * the order of the items is the same in both.
 */
static void print_kernel(struct ntp_json *w, const struct found *f, const struct ntp_opts *o)
{
	if (!w) {
		printf("kernel BTF: %s\n", f->btf ? "yes" : "no");
		printf("function hooks: %s\n", f->fhooks);
		printf("%s (module BTF %s: %s)\n", ntp_config_name(o), f->module,
		       f->module_btf ? "present" : "absent");
		return;
	}
	ntp_json_bool_field(w, "kernel_btf", f->btf);
	ntp_json_string_field(w, "function_hooks", f->fhooks);
	ntp_json_string_field(w, "configuration", ntp_config_name(o));
	ntp_json_string_field(w, "module", f->module);
	ntp_json_bool_field(w, "module_btf", f->module_btf);
}

/* A hook of the backend's table: whether it is there, in which flavour. */
static void print_hook(struct ntp_json *w, struct ntp_bpf *b, const struct ntp_hook *h,
		       const struct ntp_opts *o)
{
	char why[NTP_ERR_MAX];
	int ok = ntp_bpf_hook_ok(b, h, o, why, sizeof(why));
	const char *kind = ntp_flavour_name(ntp_hook_flavour(h));

	if (w) {
		ntp_json_start_object(w);
		ntp_json_string_field(w, "prog", ntp_hook_prog(h));
		ntp_json_string_field(w, "kind", kind);
		ntp_json_string_field(w, "target", h->target);
		ntp_json_string_field(w, "points", h->points);
		ntp_json_bool_field(w, "required", h->required);
		ntp_json_bool_field(w, "ok", ok);
		if (ntp_hook_rejected(h))
			ntp_json_string_field(w, "rejected", ntp_hook_rejected(h));
		ntp_json_end_object(w);
	} else if (ok) {
		printf("ok %s %s %s (%s)\n", ntp_hook_prog(h), kind, h->target,
		       h->points[0] ? h->points : "no point: voids a requeued record");
		if (ntp_hook_rejected(h))
			printf("  (its %s twin was rejected by the verifier: %s)\n",
			       strchr(h->target, ':') ? "tp_btf" : "fentry", ntp_hook_rejected(h));
	} else {
		printf("no %s %s %s: %s (%s)\n", ntp_hook_prog(h), kind, h->target, why,
		       h->required ? "required" : "optional: those points stay empty");
	}
}

static void print_hooks(struct ntp_json *w, struct ntp_bpf *b, const struct ntp_opts *o)
{
	if (w) {
		ntp_json_name(w, "hooks");
		ntp_json_start_array(w);
	}
	for (const struct ntp_hook *h = ntp_bpf_hooks(b, o); h->prog; h++)
		if (h->role == o->role)
			print_hook(w, b, h, o);
	if (w)
		ntp_json_end_array(w);
}

static void print_load(struct ntp_json *w, const struct found *f)
{
	if (!w) {
		printf("load: %s\n", f->load);
		return;
	}
	ntp_json_string_field(w, "load", f->load);
	ntp_json_bool_field(w, "ok", !f->failed);
}

static void print_found(struct found *f, struct ntp_bpf *b, const struct ntp_opts *o)
{
	struct ntp_json json, *w = NULL;
	char why[NTP_ERR_MAX];

	if (o->json) {
		w = &json;
		ntp_json_init(w, stdout);
		ntp_json_start_object(w);
	}
	print_kernel(w, f, o);
	if (ntp_bpf_print(w, b, o, why, sizeof(why)))
		fail(f, why);
	print_hooks(w, b, o);
	print_load(w, f);
	if (w)
		ntp_json_end_object(w);
}

int ntp_probe(const struct ntp_opts *opts)
{
	static struct found f; /* large: the reasons */
	struct ntp_opts o = *opts;
	struct ntp_bpf b = { 0 };
	char err[NTP_ERR_MAX];

	o.wait = 0; /* what runs now is what is probed */
	if (ntp_bpf_open(&b, &o, err, sizeof(err))) {
		fprintf(stderr, "ntprof-collect: %s\n", err);
		ntp_bpf_close(&b);
		return 1;
	}
	find_kernel(&f, &o);
	try_load(&f, &o, &b);
	print_found(&f, &b, &o);
	if (f.failed)
		fprintf(stderr, "ntprof-collect: %s\n", f.why);
	ntp_bpf_close(&b);
	return f.failed;
}
