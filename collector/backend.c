// SPDX-License-Identifier: BSD-2-Clause
/*
 * The backends' table and the calls through it (backend.h). What every
 * backend shares lives here: the sum of the per-CPU lost counts, the
 * links and hook notes.
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

int ntp_bpf_check(const struct ntp_opts *o, char *err, size_t errlen)
{
	const struct ntp_backend *be = ntp_backend_for(o);

	return be->check ? be->check(o, err, errlen) : 0;
}

int ntp_bpf_load(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	memset(b, 0, sizeof(*b));
	b->be = ntp_backend_for(o);
	return b->be->load(b, o, err, errlen);
}

int ntp_bpf_attach(struct ntp_bpf *b, const struct ntp_opts *o, const struct ntp_spdk *spdk,
		   char *err, size_t errlen)
{
	return b->be->attach(b, o, spdk, err, errlen);
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

void ntp_bpf_set_rate(struct ntp_bpf *b, uint32_t n)
{
	if (b->be && b->state && b->be->set_rate)
		b->be->set_rate(b, n);
}

int ntp_bpf_counts(struct ntp_bpf *b, struct ntp_db *db)
{
	if (!b->be || !b->state || !b->be->counts)
		return 0;
	return b->be->counts(b, db);
}
