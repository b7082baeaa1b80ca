// SPDX-License-Identifier: BSD-2-Clause
/*
 * Loading and attaching (attach.h). The SPDK path is one object
 * (bpf/ntprof_spdk.bpf.c): the USDT batch programs, the connection probe's
 * program and the arrival hook in three flavours, of which the one the
 * kernel allows best is loaded (hooks.h).
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

/* The choice for one family: the kernel must allow the flavour and this
 * build must have its program. */
struct choice {
	const struct ntp_hook_family *f;
	struct bpf_object *obj;
};

static int built(struct choice *c, const char *prog)
{
	return prog && bpf_object__find_program_by_name(c->obj, prog) != NULL;
}

static int fentry_ok(const char *func, void *ctx)
{
	return built(ctx, ((struct choice *)ctx)->f->fentry) && ntp_probe_fentry(func, NULL);
}

static int kprobe_ok(const char *func, void *ctx)
{
	return built(ctx, ((struct choice *)ctx)->f->kprobe) && ntp_probe_kprobe(func, NULL);
}

static int tp_ok(const char *tp, void *ctx)
{
	return built(ctx, ((struct choice *)ctx)->f->tp_prog) && ntp_probe_tracepoint(tp, NULL);
}

const char *ntp_usdt_points(int role)
{
	return role == NTP_ROLE_TARGET ? "t_cmd t_r2t t_data_rx t_exec t_stor t_resp t_sent t_free"
				       : "h_queue h_sent h_r2t_rx h_data_sent h_rx_drv h_cqe h_complete";
}

/* The connection probe of ROLE: it makes a new socket watched. */
const char *ntp_conn_probe(int role)
{
	return role == NTP_ROLE_TARGET ? "nvmf_tcp_conn" : "nvme_tcp_conn";
}

/* Choose each socket hook; autoload only the chosen programs. Returns how
 * many families have a hook. */
static int choose_sock_hooks(struct ntp_bpf *b, int off)
{
	struct ntp_caps caps;
	struct bpf_program *p;
	int n = 0;

	ntp_caps_probe(&caps);
	caps.fentry_ok = fentry_ok;
	caps.kprobe_ok = kprobe_ok;
	caps.tracepoint_ok = tp_ok;
	for (size_t i = 0; i < ntp_sock_hooks_n; i++) {
		const struct ntp_hook_family *f = &ntp_sock_hooks[i];
		struct choice c = { f, b->spdk->obj };
		const char *progs[] = { f->fentry, f->kprobe, f->tp_prog };

		for (size_t k = 0; k < 3; k++)
			if (progs[k] && (p = bpf_object__find_program_by_name(b->spdk->obj, progs[k])))
				bpf_program__set_autoload(p, false);
		caps.ctx = &c;
		b->kind[i] = off ? NTP_HOOK_NONE : ntp_hook_choose(f, &caps);
		if (b->kind[i] == NTP_HOOK_NONE)
			continue;
		p = bpf_object__find_program_by_name(b->spdk->obj, ntp_hook_prog(f, b->kind[i]));
		bpf_program__set_autoload(p, true);
		n++;
	}
	return n;
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
	/* arrivals exist over TCP only (RDMA's come from the patch's polls) */
	b->spdk->rodata->arrivals_on =
		choose_sock_hooks(b, o->no_sock || strcmp(o->transport, "tcp")) > 0;
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

/* The connection probe, where the build has it: sockets are then watched
 * from their first byte rather than from their first batch. */
static int attach_conn(struct ntp_bpf *b, const struct ntp_opts *o, const struct ntp_spdk *s,
		       char *err, size_t errlen)
{
	struct bpf_program *p = b->spdk->progs.ntp_u_tcp_conn;
	const char *probe = ntp_conn_probe(o->role);
	char what[PATH_MAX + 64];

	if (!b->spdk->rodata->arrivals_on)
		return 0;
	for (int i = 0; i < s->nobjs; i++) {
		if (!ntp_usdt_count(s->objs[i].sites, s->objs[i].nsites, "ntprof", probe))
			continue;
		if (ntp_bpf_add_link(b, bpf_program__attach_usdt(p, -1, s->objs[i].path, "ntprof",
								 probe, NULL)))
			return ntp_fail(err, errlen, "failed to attach to USDT ntprof:%s in %s: %s",
					probe, s->objs[i].path, strerror(errno));
		snprintf(what, sizeof(what), "USDT ntprof:%s in %s", probe, s->objs[i].path);
		ntp_bpf_note_hook(b, "ntp_u_tcp_conn", what, "usdt", "");
	}
	return 0;
}

int ntp_bpf_attach(struct ntp_bpf *b, const struct ntp_opts *o, const struct ntp_spdk *s,
		   char *err, size_t errlen)
{
	if (b->kern)
		return ntp_kern_attach(b, o, err, errlen);
	if (attach_usdt(b, o, s, err, errlen) || attach_conn(b, o, s, err, errlen))
		return -1;
	for (size_t i = 0; i < ntp_sock_hooks_n; i++) {
		const struct ntp_hook_family *f = &ntp_sock_hooks[i];
		const char *prog = ntp_hook_prog(f, b->kind[i]);

		if (b->kind[i] == NTP_HOOK_NONE)
			continue;
		if (ntp_bpf_add_link(b, bpf_program__attach(
				   bpf_object__find_program_by_name(b->spdk->obj, prog))))
			return ntp_fail(err, errlen, "failed to attach %s to %s: %s", prog,
					ntp_hook_target(f, b->kind[i]), strerror(errno));
		ntp_bpf_note_hook(b, prog, ntp_hook_target(f, b->kind[i]), ntp_hook_kind_name(b->kind[i]),
			  !f->points[0] ? "" : o->role == NTP_ROLE_TARGET ? "t_rx" : "h_rx");
	}
	return 0;
}

int ntp_bpf_watch_process(struct ntp_bpf *b, pid_t pid)
{
	struct bpf_link *link;
	char buf[64];
	int fd, rc = 0;

	if (!b->spdk || !b->spdk->rodata->arrivals_on)
		return 0;
	b->spdk->bss->watch_tgid = (uint32_t)pid;
	link = bpf_program__attach_iter(b->spdk->progs.ntp_i_watch, NULL);
	if (!link)
		return -1;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		rc = -1;
	while (fd >= 0 && (rc = (int)read(fd, buf, sizeof(buf))) > 0)
		;
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	return rc < 0 ? -1 : 0;
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
