// SPDX-License-Identifier: BSD-2-Clause
/*
 * `ntprof-collect probe`: what can be hooked here for one configuration,
 * section by section like `bpftool feature probe`, then a real load and
 * attach (`load: ok`). A missing required probe, no running process or a
 * failed load makes it exit 1. One printer writes each item as a text
 * line, or with -j into one JSON object.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "collect.h"
#include "json_writer.h"
#include "ntp_err.h"
#include "ntprof_abi.h"
#include "spdk.h"
#include "tstamp.h"

/* What the probe found, printed at the end. */
struct found {
	int btf;
	const char *fhooks;       /* what function hooks can do */
	char module[32];          /* the kernel module of the configuration */
	int module_btf;
	struct ntp_spdk spdk;
	uint64_t var[NTP_SPDK_MAX_PIDS]; /* sampling variable per process, 0: none */
	char load[NTP_ERR_MAX];   /* "ok" or why not */
	int failed;               /* exit 1 */
	char why[NTP_ERR_MAX];    /* the first reason */
	char tstamp[256];         /* why the kernel gives no receive timestamps, or "" */
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

static void find_processes(struct found *f)
{
	char err[NTP_ERR_MAX];

	/* ntp_spdk_open found them already */
	if (!f->spdk.npids) {
		snprintf(err, sizeof(err), "no running process of %s: start it first",
			 f->spdk.binary);
		fail(f, err);
	}
	for (int i = 0; i < f->spdk.npids; i++)
		if (ntp_spdk_find_var(&f->spdk, f->spdk.pids[i], &f->var[i], err, sizeof(err)) <= 0)
			fail(f, err);
}

/* The SPDK program: its probes, processes and the receive timestamps. */
static void find_spdk(struct found *f, const struct ntp_opts *o)
{
	char err[NTP_ERR_MAX];

	if (!ntp_spdk_sites(&f->spdk, ntp_required_probe(o))) {
		snprintf(err, sizeof(err), "%s: no USDT probe ntprof:%s (is it built with ntprof's "
			 "SPDK patch and --with-usdt?)", o->spdk, ntp_required_probe(o));
		fail(f, err);
	}
	find_processes(f);
}

static void try_load(struct found *f, const struct ntp_opts *o, struct ntp_bpf *b)
{
	if (ntp_bpf_check(o, f->load, sizeof(f->load)) ||
	    ntp_bpf_load(b, o, f->load, sizeof(f->load)) ||
	    ntp_bpf_attach(b, o, o->spdk ? &f->spdk : NULL, f->load, sizeof(f->load)))
		fail(f, f->load);
	else
		snprintf(f->load, sizeof(f->load), "ok");
}

/* Some probes are in a library rather than in the binary itself. */
static int in_libraries(const struct found *f)
{
	char real[PATH_MAX];

	if (!realpath(f->spdk.binary, real))
		return 0;
	for (int i = 0; i < f->spdk.nobjs; i++)
		if (strcmp(f->spdk.objs[i].path, real))
			return 1;
	return 0;
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

static void print_usdt(struct ntp_json *w, const struct found *f, const struct ntp_opts *o)
{
	if (!w)
		printf("USDT probes in %s%s:\n", o->spdk,
		       in_libraries(f) ? " and the libraries it loads" : "");
	else {
		ntp_json_string_field(w, "binary", o->spdk);
		ntp_json_name(w, "usdt");
		ntp_json_start_object(w);
	}
	for (int i = 0; i < NTP_SPDK_NPROBES; i++) {
		int n = ntp_spdk_sites(&f->spdk, ntp_spdk_probes[i]);

		if (w)
			ntp_json_int_field(w, ntp_spdk_probes[i], n);
		else
			printf("%s %s %d site%s\n", n ? "ok" : "no", ntp_spdk_probes[i], n,
			       n == 1 ? "" : "s");
	}
	if (w)
		ntp_json_end_object(w);
}

static void print_objects(struct ntp_json *w, const struct found *f)
{
	if (w) {
		ntp_json_name(w, "objects");
		ntp_json_start_array(w);
	}
	for (int i = 0; i < f->spdk.nobjs; i++)
		if (w)
			ntp_json_string(w, f->spdk.objs[i].path);
		else
			printf("  in %s\n", f->spdk.objs[i].path);
	if (w)
		ntp_json_end_array(w);
}

static void print_process(struct ntp_json *w, const struct found *f, int i)
{
	char var[32];

	snprintf(var, sizeof(var), "0x%llx", (unsigned long long)f->var[i]);
	if (w) {
		ntp_json_start_object(w);
		ntp_json_int_field(w, "pid", f->spdk.pids[i]);
		ntp_json_string_field(w, "sampling_variable", var);
		ntp_json_end_object(w);
	} else if (f->var[i]) {
		printf("%s %d (sampling variable at %s)", i ? "," : "", (int)f->spdk.pids[i], var);
	} else {
		printf("%s %d (no sampling variable)", i ? "," : "", (int)f->spdk.pids[i]);
	}
}

static void print_processes(struct ntp_json *w, const struct found *f)
{
	if (w) {
		ntp_json_name(w, "processes");
		ntp_json_start_array(w);
	} else {
		printf("running processes:");
	}
	for (int i = 0; i < f->spdk.npids; i++)
		print_process(w, f, i);
	if (w)
		ntp_json_end_array(w);
	else
		printf("%s\n", f->spdk.npids ? "" : " none");
}

/* The SPDK patch's arrivals: the receive timestamps it reads, if any. */
static void print_arrivals(struct ntp_json *w, const struct found *f, const struct ntp_opts *o)
{
	const char *points = ntp_arrival_points(o);

	if (w) {
		ntp_json_start_object(w);
		ntp_json_string_field(w, "what", "arrivals");
		ntp_json_string_field(w, "kind", "sockopt");
		ntp_json_string_field(w, "target", "SO_TIMESTAMPING");
		ntp_json_string_field(w, "points", points ? points : "");
		ntp_json_bool_field(w, "on", points != NULL);
		ntp_json_bool_field(w, "ok", points && !f->tstamp[0]);
		ntp_json_end_object(w);
	} else if (points && f->tstamp[0]) {
		printf("no arrivals: %s (%s stay empty)\n", f->tstamp, points);
	} else if (points) {
		printf("ok arrivals: the kernel's receive timestamps (SO_TIMESTAMPING), read by the "
		       "patch (%s)\n", points);
	} else {
		printf("off arrivals (%s)\n", o->no_arrivals ? "--no-arrivals" :
		       "RDMA: the patch takes them at its polls");
	}
}

/* The USDT program that takes the command records. */
static void print_usdt_hook(struct ntp_json *w, const struct found *f, const struct ntp_opts *o)
{
	char target[64];

	if (!w) {
		printf("%s %s USDT ntprof:%s (required)\n",
		       ntp_spdk_sites(&f->spdk, ntp_required_probe(o)) ? "ok" : "no",
		       ntp_usdt_prog(o), ntp_required_probe(o));
		return;
	}
	ntp_json_start_object(w);
	ntp_json_string_field(w, "what", "command records");
	ntp_json_string_field(w, "kind", "usdt");
	ntp_json_string_field(w, "prog", ntp_usdt_prog(o));
	snprintf(target, sizeof(target), "ntprof:%s", ntp_required_probe(o));
	ntp_json_string_field(w, "target", target);
	ntp_json_bool_field(w, "required", 1);
	ntp_json_end_object(w);
}

/* A hook of the backend's table: whether this kernel has it, in which
 * flavour. */
static void print_hook(struct ntp_json *w, const struct ntp_hook *h, const struct ntp_opts *o)
{
	char why[256];
	int ok = ntp_hook_ok(h, o->btf, why, sizeof(why));
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

static void print_hooks(struct ntp_json *w, const struct found *f, const struct ntp_opts *o)
{
	const struct ntp_backend *be = ntp_backend_for(o);
	const struct ntp_hook *h = be->hooks ? be->hooks(o) : NULL;

	if (w) {
		ntp_json_name(w, "hooks");
		ntp_json_start_array(w);
	}
	if (o->spdk) {
		print_arrivals(w, f, o);
		print_usdt_hook(w, f, o);
	}
	for (; h && h->prog; h++)
		if (h->role == o->role)
			print_hook(w, h, o);
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

static void print_found(const struct found *f, const struct ntp_opts *o)
{
	struct ntp_json json, *w = NULL;

	if (o->json) {
		w = &json;
		ntp_json_init(w, stdout);
		ntp_json_start_object(w);
	}
	print_kernel(w, f, o);
	if (o->spdk) {
		print_usdt(w, f, o);
		print_objects(w, f);
		print_processes(w, f);
	}
	print_hooks(w, f, o);
	print_load(w, f);
	if (w)
		ntp_json_end_object(w);
}

int ntp_probe(const struct ntp_opts *o)
{
	static struct found f; /* large: the objects' paths */
	struct ntp_bpf b = { 0 };
	char err[NTP_ERR_MAX];

	if (o->spdk && ntp_spdk_open(&f.spdk, o->spdk, err, sizeof(err))) {
		fprintf(stderr, "ntprof-collect: %s\n", err);
		return 1;
	}
	find_kernel(&f, o);
	if (o->spdk)
		find_spdk(&f, o);
	try_load(&f, o, &b);
	if (ntp_arrival_points(o) && o->spdk)
		ntp_tstamp_release(ntp_tstamp_hold(f.tstamp, sizeof(f.tstamp)));
	print_found(&f, o);
	if (f.failed)
		fprintf(stderr, "ntprof-collect: %s\n", f.why);
	ntp_bpf_close(&b);
	ntp_spdk_close(&f.spdk);
	return f.failed;
}
