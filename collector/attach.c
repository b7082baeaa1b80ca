// SPDX-License-Identifier: BSD-2-Clause
/*
 * Loading and attaching (attach.h). The SPDK path is one object
 * (bpf/ntprof_spdk.bpf.c): the USDT batch programs; the kernel path's is
 * in kern.c.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "ntp_db.h"
#include <limits.h>
#include "ntp_err.h"
#include "ntprof_abi.h"
#include "kern.h"
#include "ntprof_kern.skel.h"
#include "ntprof_spdk.skel.h"

const char *ntp_usdt_points(int role)
{
	return role == NTP_ROLE_TARGET ? "t_cmd t_r2t t_data_rx t_exec t_stor t_resp t_sent t_free"
				       : "h_queue h_sent h_r2t_rx h_data_sent h_rx_drv h_cqe h_complete";
}

int ntp_bpf_load(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	struct bpf_program *p;
	int rc;

	memset(b, 0, sizeof(*b));
	if (!o->spdk)
		return ntp_kern_load(b, o, err, errlen);
	b->spdk = ntprof_spdk_bpf__open();
	if (!b->spdk)
		return ntp_fail(err, errlen, "failed to open the USDT programs: %s", strerror(errno));
	bpf_object__for_each_program(p, b->spdk->obj) {
		const char *name = bpf_program__name(p);

		if (!strcmp(name + strlen("ntp_u_"), ntp_required_probe(o)))
			b->usdt_prog = name;
	}
	if (o->ring_kb)
		bpf_map__set_max_entries(b->spdk->maps.records, o->ring_kb * 1024);
	rc = ntprof_spdk_bpf__load(b->spdk);
	if (rc)
		return ntp_fail(err, errlen, "failed to load the USDT programs: %s", strerror(-rc));
	return 0;
}

int ntp_bpf_add_link(struct ntp_bpf *b, struct bpf_link *l)
{
	if (!l || b->nlinks == NTP_MAX_LINKS) {
		bpf_link__destroy(l);
		return -1;
	}
	b->links[b->nlinks++] = l;
	return 0;
}

void ntp_bpf_note_hook(struct ntp_bpf *b, const char *name, const char *attach_to,
		       const char *kind, const char *points)
{
	if (b->nhooks == NTP_MAX_LINKS)
		return;
	snprintf(b->hooks[b->nhooks].name, sizeof(b->hooks[0].name), "%s", name);
	snprintf(b->hooks[b->nhooks].attach_to, sizeof(b->hooks[0].attach_to), "%s", attach_to);
	snprintf(b->hooks[b->nhooks].kind, sizeof(b->hooks[0].kind), "%s", kind);
	snprintf(b->hooks[b->nhooks].points, sizeof(b->hooks[0].points), "%s", points);
	b->nhooks++;
}

int ntp_bpf_write_hooks(const struct ntp_bpf *b, struct ntp_db *db)
{
	for (int i = 0; i < b->nhooks; i++)
		if (ntp_db_add_hook(db, b->hooks[i].name, b->hooks[i].attach_to, b->hooks[i].kind,
				    b->hooks[i].points))
			return -1;
	return 0;
}

static int attach_usdt(struct ntp_bpf *b, const struct ntp_opts *o, const struct ntp_spdk *s,
		       char *err, size_t errlen)
{
	struct bpf_program *p = bpf_object__find_program_by_name(b->spdk->obj, b->usdt_prog);
	const char *probe = ntp_required_probe(o);
	char what[PATH_MAX + 64];
	int n = 0;

	for (int i = 0; i < s->nobjs; i++) {
		if (!ntp_usdt_count(s->objs[i].sites, s->objs[i].nsites, "ntprof", probe))
			continue;
		/* pid -1: every process of the file, also those started later */
		if (ntp_bpf_add_link(b, bpf_program__attach_usdt(p, -1, s->objs[i].path, "ntprof", probe,
							 NULL)))
			return ntp_fail(err, errlen, "failed to attach to USDT ntprof:%s in %s: %s",
					probe, s->objs[i].path, strerror(errno));
		snprintf(what, sizeof(what), "USDT ntprof:%s in %s", probe, s->objs[i].path);
		ntp_bpf_note_hook(b, b->usdt_prog, what, "usdt", ntp_usdt_points(o->role));
		n++;
	}
	if (!n)
		return ntp_fail(err, errlen, "%s: no USDT probe ntprof:%s (is it built with "
				"ntprof's SPDK patch and --with-usdt?)", s->binary, probe);
	return 0;
}

struct bpf_map *ntp_bpf_records(const struct ntp_bpf *b)
{
	return b->kern ? b->kern->maps.records : b->spdk->maps.records;
}

/* The arrival points over TCP are the kernel's receive timestamps, which
 * the patch reads itself: no hook, but the hook table says how they were
 * taken (or that they were not). */
const char *ntp_arrival_points(const struct ntp_opts *o)
{
	if (strcmp(o->transport, "tcp") || o->no_arrivals)
		return NULL;
	return o->role == NTP_ROLE_TARGET ? "t_rx t_data_rx" : "h_rx";
}

int ntp_bpf_attach(struct ntp_bpf *b, const struct ntp_opts *o, const struct ntp_spdk *s,
		   char *err, size_t errlen)
{
	if (b->kern)
		return ntp_kern_attach(b, o, err, errlen);
	if (attach_usdt(b, o, s, err, errlen))
		return -1;
	if (ntp_arrival_points(o))
		ntp_bpf_note_hook(b, "SO_TIMESTAMPING", "the patch's socket reads (receive timestamps)",
				  "sockopt", ntp_arrival_points(o));
	return 0;
}

/* Add each cause's count over all CPUs of the per-CPU `lost` map M to OUT. */
static void sum_lost(const struct bpf_map *m, uint64_t out[NTP_CAUSE_MAX])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t v[ncpu > 0 ? ncpu : 1];

	for (uint32_t c = 0; ncpu > 0 && c < NTP_CAUSE_MAX; c++) {
		if (bpf_map__lookup_elem(m, &c, sizeof(c), v, sizeof(v), 0))
			continue;
		for (int i = 0; i < ncpu; i++)
			out[c] += v[i];
	}
}

void ntp_bpf_lost(const struct ntp_bpf *b, uint64_t out[NTP_CAUSE_MAX])
{
	memset(out, 0, NTP_CAUSE_MAX * sizeof(out[0]));
	if (b->kern)
		sum_lost(b->kern->maps.lost, out);
	else if (b->spdk)
		sum_lost(b->spdk->maps.lost, out);
}

void ntp_bpf_close(struct ntp_bpf *b)
{
	for (int i = 0; i < b->nlinks; i++)
		bpf_link__destroy(b->links[i]);
	b->nlinks = 0;
	ntprof_spdk_bpf__destroy(b->spdk);
	ntprof_kern_bpf__destroy(b->kern);
	b->kern = NULL;
	b->spdk = NULL;
}
