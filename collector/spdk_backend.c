// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SPDK backend (backend.h): one object, bpf/ntprof_spdk.bpf.c, whose
 * USDT program for the configuration's probe copies the patch's batches
 * into the ring. Sampling is the processes' (record.c writes their
 * variable), and the patch counts nothing exactly.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "ntp_err.h"
#include "ntprof_spdk.skel.h"
#include "spdk.h"

const char *ntp_usdt_prog(const struct ntp_opts *o)
{
	static char name[64];

	snprintf(name, sizeof(name), "ntp_u_%s", ntp_required_probe(o));
	return name;
}

const char *ntp_usdt_points(int role)
{
	return role == NTP_ROLE_TARGET ? "t_cmd t_r2t t_data_rx t_exec t_stor t_resp t_sent t_free"
				       : "h_queue h_sent h_r2t_rx h_data_sent h_rx_drv h_cqe h_complete";
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

static int takes(const struct ntp_opts *o)
{
	return o->spdk != NULL;
}

static int load(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	struct ntprof_spdk_bpf *skel = ntprof_spdk_bpf__open();
	int rc;

	if (!skel)
		return ntp_fail(err, errlen, "failed to open the USDT programs: %s", strerror(errno));
	b->state = skel;
	if (o->ring_kb)
		bpf_map__set_max_entries(skel->maps.records, o->ring_kb * 1024);
	rc = ntprof_spdk_bpf__load(skel);
	if (rc)
		return ntp_fail(err, errlen, "failed to load the USDT programs: %s", strerror(-rc));
	return 0;
}

/* The USDT program on every object of the SPDK program with the probe. */
static int attach_usdt(struct ntp_bpf *b, const struct ntp_opts *o, const struct ntp_spdk *s,
		       char *err, size_t errlen)
{
	struct ntprof_spdk_bpf *skel = b->state;
	const char *probe = ntp_required_probe(o), *prog = ntp_usdt_prog(o);
	struct bpf_program *p = bpf_object__find_program_by_name(skel->obj, prog);
	char what[PATH_MAX + 64];
	int n = 0;

	for (int i = 0; i < s->nobjs; i++) {
		if (!ntp_usdt_count(s->objs[i].sites, s->objs[i].nsites, "ntprof", probe))
			continue;
		/* pid -1: every process of the file, also those started later */
		if (ntp_links_add(&b->links, bpf_program__attach_usdt(p, -1, s->objs[i].path,
								      "ntprof", probe, NULL)))
			return ntp_fail(err, errlen, "failed to attach to USDT ntprof:%s in %s: %s",
					probe, s->objs[i].path, strerror(errno));
		snprintf(what, sizeof(what), "USDT ntprof:%s in %s", probe, s->objs[i].path);
		ntp_links_note(&b->links, prog, what, "usdt", ntp_usdt_points(o->role));
		n++;
	}
	if (!n)
		return ntp_fail(err, errlen, "%s: no USDT probe ntprof:%s (is it built with "
				"ntprof's SPDK patch and --with-usdt?)", s->binary, probe);
	return 0;
}

static int attach(struct ntp_bpf *b, const struct ntp_opts *o, const struct ntp_spdk *s,
		  char *err, size_t errlen)
{
	if (attach_usdt(b, o, s, err, errlen))
		return -1;
	if (ntp_arrival_points(o))
		ntp_links_note(&b->links, "SO_TIMESTAMPING",
			       "the patch's socket reads (receive timestamps)", "sockopt",
			       ntp_arrival_points(o));
	return 0;
}

static struct bpf_map *records(const struct ntp_bpf *b)
{
	return ((struct ntprof_spdk_bpf *)b->state)->maps.records;
}

static struct bpf_map *lost(const struct ntp_bpf *b)
{
	return ((struct ntprof_spdk_bpf *)b->state)->maps.lost;
}

static void close_skel(struct ntp_bpf *b)
{
	ntprof_spdk_bpf__destroy(b->state);
}

const struct ntp_backend ntp_spdk_backend = {
	.driver = "spdk",
	.takes = takes,
	.load = load,
	.attach = attach,
	.records = records,
	.lost = lost,
	.close = close_skel,
};
