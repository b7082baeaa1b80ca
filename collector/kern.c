// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kernel drivers' backend (kern.h, backend.h). Which programs load is
 * decided by feature probes on BTF, never by kernel version: a function
 * hook needs the function in vmlinux or module BTF (Debian's build inlines
 * several nvme_tcp helpers, so the driver functions used are those that
 * survive there), a tp_btf hook needs the tracepoint's btf_trace_ typedef.
 *
 * The flavour follows the probes (hooks.h): a module with BTF in
 * /sys/kernel/btf gets fentry, if the kernel allows it, and tp_btf; one
 * without (a kernel built without module BTF) gets kprobes and raw_tp,
 * with --btf FILE (the kernel's and the module's types in one file) for
 * CO-RE.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "hooks.h"
#include "kern.h"
#include "ntp_db.h"
#include "ntp_err.h"
#include "ntprof_abi.h"
#include "ntprof_kern.h"
#include "ntprof_rdma_host.skel.h"
#include "ntprof_rdma_target.skel.h"
#include "ntprof_tcp_host.skel.h"
#include "ntprof_tcp_target.skel.h"

#define T NTP_ROLE_TARGET

/* The driver module of O's role and transport. */
static const char *driver_module(const struct ntp_opts *o)
{
	if (!strcmp(o->transport, "rdma"))
		return o->role == T ? "nvmet_rdma" : "nvme_rdma";
	return o->role == T ? "nvmet_tcp" : "nvme_tcp";
}

static const struct ntp_hook *hooks(const struct ntp_opts *o)
{
	return ntp_kern_hooks_of(o->transport);
}

/* The last row of the backends' table: whatever the rows before take
 * not, it records, or says what it cannot. */
static int takes(const struct ntp_opts *o)
{
	return 1;
}

static int check(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	const char *mod = driver_module(o);
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/module/%s", mod);
	if (access(path, F_OK))
		return ntp_fail(err, errlen, "module %s is not loaded: modprobe %s%s", mod, mod,
				o->role == T ? " and configure the target" : " and connect");
	for (const struct ntp_hook *h = hooks(o); h->prog; h++) {
		if (h->role == o->role && !ntp_module_btf(h->module) && !o->btf)
			return ntp_fail(err, errlen, "no BTF for %s in /sys/kernel/btf (a kernel "
					"without CONFIG_DEBUG_INFO_BTF_MODULES): give --btf FILE "
					"with the kernel's and %s's types", h->module, h->module);
	}
	return 0;
}

/* What was written so far per group, to write differences. */
struct counted {
	struct ntp_count_key k;
	uint64_t n;
};

#define NTP_MAX_GROUPS 16384 /* the BPF map's size */

/* The backend's state (ntp_bpf.state): the object of the role, and what
 * was counted. */
struct kern {
	const struct kern_object *ko;
	void *skel;                   /* its skeleton */
	struct bpf_object *obj;
	struct bpf_map *records, *lost, *idle, *counts;
	volatile __u32 *sample_n;     /* in the loaded object's .bss */
	__u64 *uncounted;
	uint64_t said;                /* uncounted, as last said */
	struct counted seen[NTP_MAX_GROUPS];
	int nseen;
};

/* One BPF object per role and transport. Each has the maps and variables of
 * bpf/ntprof_kern_common.bpf.h, so one macro writes how each is opened,
 * loaded and destroyed through its skeleton. */
struct kern_object {
	int role;
	const char *transport;
	int (*open)(struct kern *k, const struct bpf_object_open_opts *opts);
	int (*load)(struct kern *k);
	void (*destroy)(void *skel);
};

#define KERN_OBJECT(name)                                                               \
	static int name##_open(struct kern *k, const struct bpf_object_open_opts *opts) \
	{                                                                               \
		struct name##_bpf *s = name##_bpf__open_opts(opts);                     \
                                                                                        \
		if (!s)                                                                 \
			return -1;                                                      \
		k->skel = s;                                                            \
		k->obj = s->obj;                                                        \
		k->records = s->maps.records;                                           \
		k->lost = s->maps.lost;                                                 \
		k->idle = s->maps.writer_idle;                                          \
		k->counts = s->maps.counts;                                             \
		return 0;                                                               \
	}                                                                               \
	static int name##_load(struct kern *k)                                          \
	{                                                                               \
		struct name##_bpf *s = k->skel;                                         \
		int rc = name##_bpf__load(s);                                           \
                                                                                        \
		if (!rc) { /* the load maps the .bss anew */                            \
			k->sample_n = &s->bss->sample_n;                                \
			k->uncounted = &s->bss->uncounted;                              \
		}                                                                       \
		return rc;                                                              \
	}                                                                               \
	static void name##_destroy(void *skel)                                          \
	{                                                                               \
		name##_bpf__destroy(skel);                                              \
	}

KERN_OBJECT(ntprof_tcp_host)
KERN_OBJECT(ntprof_tcp_target)
KERN_OBJECT(ntprof_rdma_host)
KERN_OBJECT(ntprof_rdma_target)

#define KERN_ROW(role, transport, name) { role, transport, name##_open, name##_load, name##_destroy }

static const struct kern_object objects[] = {
	KERN_ROW(NTP_ROLE_HOST, "tcp", ntprof_tcp_host),
	KERN_ROW(NTP_ROLE_TARGET, "tcp", ntprof_tcp_target),
	KERN_ROW(NTP_ROLE_HOST, "rdma", ntprof_rdma_host),
	KERN_ROW(NTP_ROLE_TARGET, "rdma", ntprof_rdma_target),
};

static const struct kern_object *object_of(const struct ntp_opts *o)
{
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (objects[i].role == o->role && !strcmp(objects[i].transport, o->transport))
			return &objects[i];
	return NULL;
}

/* Open O's object, choose its programs, size the ring, load: 0, or -1
 * with ERR set; the skeleton stays for the caller to destroy. */
static int load_once(struct kern *k, const struct ntp_opts *o, char *err, size_t errlen)
{
	int rc;

	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = o->btf);

	if (k->ko->open(k, &opts)) {
		k->skel = NULL;
		return ntp_fail(err, errlen, "failed to open the kernel programs: %s",
				strerror(errno));
	}
	if (o->ring_kb)
		bpf_map__set_max_entries(k->records, o->ring_kb * 1024);
	if (ntp_hooks_choose(k->obj, hooks(o), o->role, o->btf, err, errlen))
		return -1;
	rc = k->ko->load(k);
	if (rc)
		return ntp_fail(err, errlen, "failed to load the kernel programs: %s",
				strerror(-rc));
	return 0;
}

/*
 * Loading decides too, not only what the BTF has: a program the verifier
 * rejects (a newer verifier's rule, a backported change) is taken as its
 * twin on the next try, and the collector says so. Each try rejects one
 * more program, so the tries are bounded by the hooks.
 */
static int load(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	char prog[64], why[160];
	struct kern *k;

	k = calloc(1, sizeof(*k));
	if (!k)
		return ntp_fail(err, errlen, "failed to open the kernel programs: %s",
				strerror(errno));
	b->state = k;
	k->ko = object_of(o);
	if (!k->ko)
		return ntp_fail(err, errlen, "no kernel programs for %s over %s", o->transport,
				o->role == T ? "the target" : "the host");
	for (;;) {
		int rc;

		ntp_hooks_log_begin();
		rc = load_once(k, o, err, errlen);
		if (ntp_hooks_log_end(rc, prog, sizeof(prog), why, sizeof(why)))
			return rc;
		if (ntp_hooks_reject(hooks(o), prog, why))
			return ntp_fail(err, errlen, "failed to load the kernel programs: the "
					"verifier rejected %s: %s", prog, why);
		fprintf(stderr, "ntprof: the verifier rejected %s (%s): taking its twin\n", prog,
			why);
		k->ko->destroy(k->skel);
		k->skel = NULL;
	}
}

static int attach(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	struct kern *k = b->state;

	return ntp_hooks_attach(k->obj, hooks(o), o->role, &b->links, err, errlen);
}

/* The programs decide from the SQE, with the rate in their .bss. */
static int sample(struct ntp_bpf *b, const struct ntp_opts *o, uint32_t n)
{
	struct kern *k = b->state;

	*k->sample_n = n;
	return 1;
}

static uint64_t *seen_of(struct kern *kn, const struct ntp_count_key *k)
{
	for (int i = 0; i < kn->nseen; i++)
		if (!memcmp(&kn->seen[i].k, k, sizeof(*k)))
			return &kn->seen[i].n;
	if (kn->nseen == NTP_MAX_GROUPS)
		return NULL;
	kn->seen[kn->nseen].k = *k;
	return &kn->seen[kn->nseen++].n;
}

static int counts(struct ntp_bpf *b, struct ntp_db *db)
{
	struct kern *kn = b->state;
	int ncpu = libbpf_num_possible_cpus(), fd;
	struct ntp_count_key k, next, *prev = NULL;
	int rc = 0;

	if (ncpu <= 0)
		return 0;
	if (*kn->uncounted != kn->said) {
		kn->said = *kn->uncounted;
		fprintf(stderr, "ntprof: %llu commands so far were not counted (more than %d "
			"groups): cmds/s is too low\n", (unsigned long long)kn->said, NTP_MAX_GROUPS);
	}
	fd = bpf_map__fd(kn->counts);
	uint64_t v[ncpu];

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		uint64_t sum = 0, *seen;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
		seen = seen_of(kn, &k);
		if (!seen || sum == *seen)
			continue;
		/* a device whose record is still in the ring: counted next time */
		if (ntp_db_count_group(db, k.dev, k.opcode, k.nlb, sum - *seen)) {
			rc = -1;
			continue;
		}
		*seen = sum;
	}
	return rc;
}

static struct bpf_map *records(const struct ntp_bpf *b)
{
	return ((const struct kern *)b->state)->records;
}

static struct bpf_map *lost(const struct ntp_bpf *b)
{
	return ((const struct kern *)b->state)->lost;
}

static struct bpf_map *idle(const struct ntp_bpf *b)
{
	return ((const struct kern *)b->state)->idle;
}

static struct bpf_map *count_map(const struct ntp_bpf *b)
{
	return ((const struct kern *)b->state)->counts;
}

static void close_kern(struct ntp_bpf *b)
{
	struct kern *k = b->state;

	if (k->skel)
		k->ko->destroy(k->skel);
	free(k);
}

const struct ntp_backend ntp_kern_backend = {
	.driver = "kernel",
	.takes = takes,
	.check = check,
	.load = load,
	.attach = attach,
	.records = records,
	.lost = lost,
	.idle = idle,
	.sample = sample,
	.counts = counts,
	.count_map = count_map,
	.close = close_kern,
	.hooks = hooks,
};
