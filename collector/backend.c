// SPDX-License-Identifier: BSD-2-Clause
/*
 * The backends' table and the calls through it (backend.h). What every
 * backend shares lives here: the sum of the per-CPU lost counts, the
 * links and hook notes, and what an operation a backend lacks means.
 */
#include <bpf/libbpf.h>
#include <string.h>

#include "backend.h"

/* The first that takes a configuration records it. */
static const struct ntp_backend *const backends[] = {
	&ntp_spdk_backend,
	&ntp_kern_backend,
};

const struct ntp_backend *ntp_backend_for(const struct ntp_opts *o)
{
	size_t n = sizeof(backends) / sizeof(backends[0]);

	for (size_t i = 0; i < n; i++)
		if (backends[i]->takes(o))
			return backends[i];
	return backends[n - 1];
}

int ntp_bpf_open(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	memset(b, 0, sizeof(*b));
	b->be = ntp_backend_for(o);
	return b->be->open ? b->be->open(b, o, err, errlen) : 0;
}

int ntp_bpf_check(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	return b->be->check ? b->be->check(b, o, err, errlen) : 0;
}

int ntp_bpf_load(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	return b->be->load(b, o, err, errlen);
}

int ntp_bpf_attach(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	return b->be->attach(b, o, err, errlen);
}

void ntp_bpf_close(struct ntp_bpf *b)
{
	ntp_links_close(&b->links);
	if (b->be && b->state)
		b->be->close(b);
	b->state = NULL;
}

struct bpf_map *ntp_bpf_records(const struct ntp_bpf *b)
{
	return b->be->records(b);
}

struct bpf_map *ntp_bpf_idle(const struct ntp_bpf *b)
{
	return b->be->idle(b);
}

int ntp_bpf_writer_fds(const struct ntp_bpf *b, int *fds)
{
	int n = 0;

	fds[n++] = bpf_map__fd(b->be->records(b));
	fds[n++] = bpf_map__fd(b->be->lost(b));
	fds[n++] = bpf_map__fd(b->be->idle(b));
	if (b->be->count_map)
		fds[n++] = bpf_map__fd(b->be->count_map(b));
	return n;
}

void ntp_bpf_lost(const struct ntp_bpf *b, uint64_t out[NTP_CAUSE_MAX])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t v[ncpu > 0 ? ncpu : 1];

	memset(out, 0, NTP_CAUSE_MAX * sizeof(out[0]));
	if (!b->be || !b->state)
		return;
	for (uint32_t c = 0; ncpu > 0 && c < NTP_CAUSE_MAX; c++) {
		if (bpf_map__lookup_elem(b->be->lost(b), &c, sizeof(c), v, sizeof(v), 0))
			continue;
		for (int i = 0; i < ncpu; i++)
			out[c] += v[i];
	}
}

int ntp_bpf_wait(struct ntp_bpf *b, const struct ntp_opts *o, volatile sig_atomic_t *stop)
{
	return b->be->wait ? b->be->wait(b, o, stop) : 0;
}

int ntp_bpf_sample(struct ntp_bpf *b, const struct ntp_opts *o, uint32_t n)
{
	return b->be && b->state ? b->be->sample(b, o, n) : 0;
}

int ntp_bpf_follow(struct ntp_bpf *b, const struct ntp_opts *o, int interval)
{
	return b->be->follow ? b->be->follow(b, o, interval) : 0;
}

int ntp_bpf_counts(struct ntp_bpf *b, struct ntp_db *db)
{
	if (!b->be || !b->state || !b->be->counts)
		return 0;
	return b->be->counts(b, db);
}

const struct ntp_hook *ntp_bpf_hooks(const struct ntp_bpf *b, const struct ntp_opts *o)
{
	return b->be->hooks(o);
}

int ntp_bpf_hook_ok(struct ntp_bpf *b, const struct ntp_hook *h, const struct ntp_opts *o,
		    char *why, size_t whylen)
{
	if (b->be->hook_ok)
		return b->be->hook_ok(b, h, o, why, whylen);
	return ntp_hook_ok(h, o->btf, why, whylen);
}

int ntp_bpf_print(struct ntp_json *w, struct ntp_bpf *b, const struct ntp_opts *o, char *why,
		  size_t whylen)
{
	return b->be->print ? b->be->print(w, b, o, why, whylen) : 0;
}
