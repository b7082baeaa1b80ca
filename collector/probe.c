// SPDX-License-Identifier: BSD-2-Clause
/*
 * `ntprof-collect probe`: what can be hooked here for one configuration,
 * section by section like `bpftool feature probe`, then a real load and
 * attach (`load: ok`). A missing required probe, no running process or a
 * failed load makes it exit 1. -j prints the same as one JSON object.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "collect.h"
#include "hooks.h"
#include "ntp_err.h"
#include "ntprof_abi.h"
#include "spdk.h"
#include "tstamp.h"

/* What the probe found, printed at the end as text or JSON. */
struct found {
	int btf;
	const char *fhooks;       /* what function hooks can do */
	const char *module;       /* the kernel module of the configuration */
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
	if (ntp_function_hooks() == NTP_FN_FENTRY)
		return "fentry/fexit (they can attach now)";
	if (ntp_function_hooks() == NTP_FN_KPROBE)
		return "kprobes (fentry/fexit: not allowed here)";
	return "tracepoints only (fentry/fexit: not allowed here; kprobes: not available)";
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

static void try_load(struct found *f, const struct ntp_opts *o, struct ntp_bpf *b)
{
	if (ntp_bpf_load(b, o, f->load, sizeof(f->load)) ||
	    ntp_bpf_attach(b, o, &f->spdk, f->load, sizeof(f->load)))
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

static void print_text(const struct found *f, const struct ntp_opts *o, const struct ntp_bpf *b)
{
	printf("kernel BTF: %s\n", f->btf ? "yes" : "no");
	printf("function hooks: %s\n", f->fhooks);
	printf("%s (module BTF %s: %s)\n", ntp_config_name(o), f->module,
	       f->module_btf ? "present" : "absent");
	printf("USDT probes in %s%s:\n", o->spdk, in_libraries(f) ? " and the libraries it loads" : "");
	for (int i = 0; i < NTP_SPDK_NPROBES; i++) {
		int n = ntp_spdk_sites(&f->spdk, ntp_spdk_probes[i]);

		printf("%s %s %d site%s\n", n ? "ok" : "no", ntp_spdk_probes[i], n, n == 1 ? "" : "s");
	}
	for (int i = 0; i < f->spdk.nobjs; i++)
		printf("  in %s\n", f->spdk.objs[i].path);
	printf("running processes:");
	for (int i = 0; i < f->spdk.npids; i++)
		if (f->var[i])
			printf("%s %d (sampling variable at 0x%llx)", i ? "," : "",
			       (int)f->spdk.pids[i], (unsigned long long)f->var[i]);
		else
			printf("%s %d (no sampling variable)", i ? "," : "", (int)f->spdk.pids[i]);
	printf("%s\n", f->spdk.npids ? "" : " none");
	if (ntp_arrival_points(o) && f->tstamp[0])
		printf("no arrivals: %s (%s stay empty)\n", f->tstamp, ntp_arrival_points(o));
	else if (ntp_arrival_points(o))
		printf("ok arrivals: the kernel's receive timestamps (SO_TIMESTAMPING), read by the "
		       "patch (%s)\n", ntp_arrival_points(o));
	else
		printf("off arrivals (%s)\n", o->no_arrivals ? "--no-arrivals" :
		       "RDMA: the patch takes them at its polls");
	printf("%s %s USDT ntprof:%s (required)\n",
	       ntp_spdk_sites(&f->spdk, ntp_required_probe(o)) ? "ok" : "no",
	       ntp_usdt_prog(o), ntp_required_probe(o));
	printf("load: %s\n", f->load);
}

/* A JSON string: the paths and messages here have no control characters
 * but may have quotes or backslashes. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if ((unsigned char)*s >= 0x20)
			putchar(*s);
	}
	putchar('"');
}

static void print_json(const struct found *f, const struct ntp_opts *o, const struct ntp_bpf *b)
{
	printf("{\"kernel_btf\": %s, \"function_hooks\": ", f->btf ? "true" : "false");
	json_str(f->fhooks);
	printf(", \"configuration\": \"%s\", \"module\": \"%s\", \"module_btf\": %s, \"binary\": ",
	       ntp_config_name(o), f->module, f->module_btf ? "true" : "false");
	json_str(o->spdk);
	printf(", \"objects\": [");
	for (int i = 0; i < f->spdk.nobjs; i++) {
		printf("%s", i ? ", " : "");
		json_str(f->spdk.objs[i].path);
	}
	printf("], \"usdt\": {");
	for (int i = 0; i < NTP_SPDK_NPROBES; i++)
		printf("%s\"%s\": %d", i ? ", " : "", ntp_spdk_probes[i],
		       ntp_spdk_sites(&f->spdk, ntp_spdk_probes[i]));
	printf("}, \"processes\": [");
	for (int i = 0; i < f->spdk.npids; i++)
		printf("%s{\"pid\": %d, \"sampling_variable\": \"0x%llx\"}", i ? ", " : "",
		       (int)f->spdk.pids[i], (unsigned long long)f->var[i]);
	printf("], \"hooks\": [");
	printf("{\"what\": \"arrivals\", \"kind\": \"sockopt\", \"target\": \"SO_TIMESTAMPING\", "
	       "\"points\": \"%s\", \"on\": %s, \"ok\": %s}", ntp_arrival_points(o) ?: "",
	       ntp_arrival_points(o) ? "true" : "false",
	       ntp_arrival_points(o) && !f->tstamp[0] ? "true" : "false");
	printf(", {\"what\": \"command records\", \"kind\": \"usdt\", \"prog\": \"%s\", "
	       "\"target\": \"ntprof:%s\", \"required\": true}",
	       ntp_usdt_prog(o), ntp_required_probe(o));
	printf("], \"load\": ");
	json_str(f->load);
	printf(", \"ok\": %s}\n", f->failed ? "false" : "true");
}

/* The kernel path: each hook of the role, whether this kernel has it, and
 * a real load and attach. */
static void kernel_text(const struct found *f, const struct ntp_opts *o)
{
	char why[256];

	printf("kernel BTF: %s\n", f->btf ? "yes" : "no");
	printf("function hooks: %s\n", f->fhooks);
	printf("%s (module BTF %s: %s)\n", ntp_config_name(o), f->module,
	       f->module_btf ? "present" : "absent");
	for (const struct ntp_hook *h = ntp_backend_for(o)->hooks; h->prog; h++) {
		if (h->role != o->role)
			continue;
		if (ntp_hook_ok(h, o->btf, why, sizeof(why)))
			printf("ok %s %s %s (%s)\n", ntp_hook_prog(h),
			       ntp_flavour_name(ntp_hook_flavour(h)), h->target,
			       h->points[0] ? h->points : "no point: voids a requeued record");
		else
			printf("no %s %s %s: %s (%s)\n", ntp_hook_prog(h), ntp_flavour_name(ntp_hook_flavour(h)),
			       h->target, why,
			       h->required ? "required" : "optional: those points stay empty");
	}
	printf("load: %s\n", f->load);
}

static void kernel_json(const struct found *f, const struct ntp_opts *o)
{
	char why[256];
	int n = 0;

	printf("{\"kernel_btf\": %s, \"function_hooks\": ", f->btf ? "true" : "false");
	json_str(f->fhooks);
	printf(", \"configuration\": \"%s\", \"module\": \"%s\", \"module_btf\": %s, "
	       "\"hooks\": [", ntp_config_name(o), f->module, f->module_btf ? "true" : "false");
	for (const struct ntp_hook *h = ntp_backend_for(o)->hooks; h->prog; h++) {
		int ok;

		if (h->role != o->role)
			continue;
		ok = ntp_hook_ok(h, o->btf, why, sizeof(why));
		printf("%s{\"prog\": \"%s\", \"kind\": \"%s\", \"target\": \"%s\", "
		       "\"points\": \"%s\", \"required\": %s, \"ok\": %s}", n++ ? ", " : "",
		       ntp_hook_prog(h), ntp_flavour_name(ntp_hook_flavour(h)), h->target, h->points,
		       h->required ? "true" : "false", ok ? "true" : "false");
	}
	printf("], \"load\": ");
	json_str(f->load);
	printf(", \"ok\": %s}\n", f->failed ? "false" : "true");
}

static int probe_kernel(const struct ntp_opts *o)
{
	static struct found f;
	struct ntp_bpf b = { 0 };
	char path[128];

	f.btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	f.fhooks = function_hooks();
	f.module = o->role == NTP_ROLE_TARGET ? "nvmet_tcp" : "nvme_tcp";
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", f.module);
	f.module_btf = access(path, R_OK) == 0 || o->btf;
	if (ntp_bpf_check(o, f.load, sizeof(f.load)))
		fail(&f, f.load);
	else
		try_load(&f, o, &b);
	if (o->json)
		kernel_json(&f, o);
	else
		kernel_text(&f, o);
	if (f.failed)
		fprintf(stderr, "ntprof-collect: %s\n", f.why);
	ntp_bpf_close(&b);
	return f.failed;
}

int ntp_probe(const struct ntp_opts *o)
{
	static struct found f; /* large: the objects' paths */
	struct ntp_bpf b = { 0 };
	char err[NTP_ERR_MAX], path[128];

	if (!o->spdk)
		return probe_kernel(o);
	if (ntp_spdk_open(&f.spdk, o->spdk, err, sizeof(err))) {
		fprintf(stderr, "ntprof-collect: %s\n", err);
		return 1;
	}
	f.btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	f.fhooks = function_hooks();
	f.module = o->role == NTP_ROLE_TARGET ? (strcmp(o->transport, "rdma") ? "nvmet_tcp" : "nvmet_rdma")
					      : (strcmp(o->transport, "rdma") ? "nvme_tcp" : "nvme_rdma");
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", f.module);
	f.module_btf = access(path, R_OK) == 0 || o->btf;
	if (!ntp_spdk_sites(&f.spdk, ntp_required_probe(o))) {
		snprintf(err, sizeof(err), "%s: no USDT probe ntprof:%s (is it built with ntprof's "
			 "SPDK patch and --with-usdt?)", o->spdk, ntp_required_probe(o));
		fail(&f, err);
	}
	find_processes(&f);
	try_load(&f, o, &b);
	if (ntp_arrival_points(o))
		ntp_tstamp_release(ntp_tstamp_hold(f.tstamp, sizeof(f.tstamp)));
	if (o->json)
		print_json(&f, o, &b);
	else
		print_text(&f, o, &b);
	if (f.failed)
		fprintf(stderr, "ntprof-collect: %s\n", f.why);
	ntp_bpf_close(&b);
	ntp_spdk_close(&f.spdk);
	return f.failed;
}
