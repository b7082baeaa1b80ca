// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SPDK backend (backend.h): SPDK programs built with ntprof's patch.
 *
 * - What it records: the processes of the program named by --spdk-target
 *   or --spdk-host (spdk.c finds the program's objects with probes and its
 *   processes, proc.c their sampling variables).
 * - Its hooks, one table per transport: the USDT probe the patch fires per
 *   batch of done commands, whose program (bpf/ntprof_spdk.bpf.c) copies
 *   the batch into the ring, and over TCP the kernel's receive timestamps
 *   the patch reads itself for the arrivals (a socket option: no program).
 * - Sampling is the processes' own: the patch decides per command, and
 *   this backend writes the rate into every process's variable (and the
 *   flags before it), follows processes that start, finish loading their
 *   libraries or exit, and writes 0 at the end. Each process it samples is
 *   locked against other collectors (lock.h) and written through its
 *   /proc/PID/mem, opened once: the 0 at the end reaches that process and
 *   no later one given its pid. The patch counts nothing exactly.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "clock.h"
#include "json_writer.h"
#include "lock.h"
#include "ntp_err.h"
#include "ntprof_spdk.skel.h"
#include "proc.h"
#include "spdk.h"
#include "tstamp.h"

#define H NTP_ROLE_HOST
#define T NTP_ROLE_TARGET
#define NS NTP_NS_PER_S

/* The points the patch's batches carry, per role (docs/stages.md). */
#define T_POINTS "t_cmd t_r2t t_data_rx t_exec t_stor t_resp t_sent t_free"
#define H_POINTS "h_queue h_sent h_r2t_rx h_data_sent h_rx_drv h_cqe h_complete"
/* How the patch takes the arrivals over TCP: no program of ntprof's. */
#define ARRIVALS "the patch's socket reads (receive timestamps)"

static const struct ntp_hook tcp_hooks[] = {
	{ "ntp_u_nvmf_tcp_done", T, "ntprof:nvmf_tcp_done", "", T_POINTS, 1, NTP_HOOK_USDT },
	{ "SO_TIMESTAMPING", T, ARRIVALS, "", "t_rx t_data_rx", 0, NTP_HOOK_SOCKOPT },
	{ "ntp_u_nvme_tcp_done", H, "ntprof:nvme_tcp_done", "", H_POINTS, 1, NTP_HOOK_USDT },
	{ "SO_TIMESTAMPING", H, ARRIVALS, "", "h_rx", 0, NTP_HOOK_SOCKOPT },
	{ 0 },
};

/* Over RDMA the patch takes the arrivals at its polls, in the batches. */
static const struct ntp_hook rdma_hooks[] = {
	{ "ntp_u_nvmf_rdma_done", T, "ntprof:nvmf_rdma_done", "", T_POINTS, 1, NTP_HOOK_USDT },
	{ "ntp_u_nvme_rdma_done", H, "ntprof:nvme_rdma_done", "", H_POINTS, 1, NTP_HOOK_USDT },
	{ 0 },
};

/* A process sampling: where its variables are, its memory, its lock. */
struct proc {
	pid_t pid;
	uint64_t start;               /* when it started: its lock's key */
	int mem;                      /* /proc/PID/mem, or -1 */
	int lock;                     /* lock.h, or -1 */
	struct ntp_spdk_vars vars;
};

/* The backend's state (ntp_bpf.state). */
struct spdk {
	struct ntprof_spdk_bpf *skel;
	struct ntp_spdk prog;             /* the program: objects with probes, processes */
	uint32_t rate, flags;             /* what sampling writes into each process */
	struct proc procs[NTP_SPDK_MAX_PIDS]; /* processes sampling now */
	int nprocs;
	pid_t pending[NTP_SPDK_MAX_PIDS]; /* found, their variable not loaded yet */
	int64_t pending_since[NTP_SPDK_MAX_PIDS];
	int npending;
	int sampled;                      /* processes sampled since the start */
	int tstamp_fd;                    /* holds receive timestamps on (tstamp.h), or -1 */
	int tstamp_tried;                 /* probe: tstamp_why is the answer */
	char tstamp_why[256];             /* why the kernel gives none, or "" */
	char err[NTP_ERR_MAX];
};

static struct spdk *state(const struct ntp_bpf *b)
{
	return b->state;
}

static int takes(const struct ntp_opts *o)
{
	return o->spdk != NULL;
}

static const struct ntp_hook *hooks(const struct ntp_opts *o)
{
	return strcmp(o->transport, "rdma") ? tcp_hooks : rdma_hooks;
}

/* The configuration's USDT row: the probe whose batches are recorded. */
static const struct ntp_hook *usdt_row(const struct ntp_opts *o)
{
	const struct ntp_hook *h = hooks(o);

	while (h->prog && (h->role != o->role || h->kind != NTP_HOOK_USDT))
		h++;
	return h;
}

/* The probe's name in its provider: nvmf_tcp_done. */
static const char *probe_name(const struct ntp_hook *h)
{
	return strchr(h->target, ':') + 1;
}

/* The one message for a program without the probe. */
static int no_probe(const struct spdk *s, const struct ntp_hook *h, char *err, size_t errlen)
{
	return ntp_fail(err, errlen, "%s: no USDT probe %s (is it built with ntprof's SPDK patch "
			"and --with-usdt?)", s->prog.binary, h->target);
}

/* The arrivals' row of O, if it takes them: NULL without (RDMA, or
 * --no-arrivals). */
static const struct ntp_hook *arrivals(const struct ntp_opts *o)
{
	for (const struct ntp_hook *h = hooks(o); h->prog && !o->no_arrivals; h++)
		if (h->role == o->role && h->kind == NTP_HOOK_SOCKOPT)
			return h;
	return NULL;
}

static int open_program(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	struct spdk *s = calloc(1, sizeof(*s));

	if (!s)
		return ntp_fail(err, errlen, "%s: out of memory", o->spdk);
	s->tstamp_fd = -1;
	b->state = s;
	return ntp_spdk_open(&s->prog, o->spdk, err, errlen);
}

static int check(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	struct spdk *s = state(b);

	if (!ntp_spdk_sites(&s->prog, probe_name(usdt_row(o))))
		return no_probe(s, usdt_row(o), err, errlen);
	if (!s->prog.npids && !o->wait)
		return ntp_fail(err, errlen, "no running process of %s: start it first (or record "
				"with --wait)", o->spdk);
	return 0;
}

static int load(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	struct spdk *s = state(b);
	int rc;

	s->skel = ntprof_spdk_bpf__open();
	if (!s->skel)
		return ntp_fail(err, errlen, "failed to open the USDT programs: %s", strerror(errno));
	if (o->ring_kb)
		bpf_map__set_max_entries(s->skel->maps.records, o->ring_kb * 1024);
	rc = ntprof_spdk_bpf__load(s->skel);
	if (rc)
		return ntp_fail(err, errlen, "failed to load the USDT programs: %s", strerror(-rc));
	return 0;
}

/* The USDT program of row H on every object of the program with its
 * probe. */
static int attach_usdt(struct ntp_bpf *b, const struct ntp_hook *h, char *err, size_t errlen)
{
	struct spdk *s = state(b);
	struct bpf_program *p = bpf_object__find_program_by_name(s->skel->obj, h->prog);
	const char *probe = probe_name(h);
	char what[PATH_MAX + 64];
	int n = 0;

	for (int i = 0; p && i < s->prog.nobjs; i++) {
		const struct ntp_spdk_obj *obj = &s->prog.objs[i];

		if (!ntp_usdt_count(obj->sites, obj->nsites, "ntprof", probe))
			continue;
		/* pid -1: every process of the file, also those started later */
		if (ntp_links_add(&b->links, bpf_program__attach_usdt(p, -1, obj->path, "ntprof",
								      probe, NULL)))
			return ntp_fail(err, errlen, "failed to attach to USDT %s in %s: %s",
					h->target, obj->path, strerror(errno));
		snprintf(what, sizeof(what), "USDT %s in %s", h->target, obj->path);
		ntp_links_note(&b->links, h->prog, what, "usdt", h->points);
		n++;
	}
	if (!p)
		return ntp_fail(err, errlen, "no program %s in the BPF object", h->prog);
	return n ? 0 : no_probe(s, h, err, errlen);
}

static int attach(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	for (const struct ntp_hook *h = hooks(o); h->prog; h++) {
		if (h->role != o->role)
			continue;
		if (h->kind == NTP_HOOK_USDT && attach_usdt(b, h, err, errlen))
			return -1;
		/* the hook table says how the arrivals were taken, or that
		 * they were not */
		if (h->kind == NTP_HOOK_SOCKOPT && h == arrivals(o))
			ntp_links_note(&b->links, h->prog, h->target, "sockopt", h->points);
	}
	return 0;
}

static struct bpf_map *records(const struct ntp_bpf *b)
{
	return state(b)->skel->maps.records;
}

static struct bpf_map *lost(const struct ntp_bpf *b)
{
	return state(b)->skel->maps.lost;
}

static struct bpf_map *idle(const struct ntp_bpf *b)
{
	return state(b)->skel->maps.writer_idle;
}

/* --wait: everything is loaded and attached (to the file: pid -1), so look
 * for a process every 20 ms (an SPDK program needs far longer than that to
 * start its first I/O). */
static int wait_process(struct ntp_bpf *b, const struct ntp_opts *o, volatile sig_atomic_t *stop)
{
	struct spdk *s = state(b);

	if (s->prog.npids)
		return 0;
	printf("ntprof: waiting for a process of %s; Ctrl-C to give up\n", o->spdk);
	fflush(stdout);
	while (!*stop && ntp_spdk_find_procs(&s->prog, s->err, sizeof(s->err)) == 0)
		usleep(20000);
	return s->prog.npids ? 0 : -1;
}

static int in_list(const pid_t *list, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (list[i] == pid)
			return 1;
	return 0;
}

static int sampling(const struct spdk *s, pid_t pid)
{
	for (int i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return 1;
	return 0;
}

static void release(struct proc *p)
{
	if (p->mem >= 0)
		close(p->mem);
	ntp_lock_release(NTP_LOCK_DIR, p->pid, p->start, p->lock);
	p->mem = p->lock = -1;
}

/*
 * Write the flags, then the rate, into each variable of P. Before the first
 * write, what they hold: 0, or what a collector that is gone left there
 * (one killed with -9; a live one would hold the lock), which is taken
 * over and said.
 */
static int write_vars(struct spdk *s, struct proc *p, uint32_t rate, uint32_t flags,
		      uint32_t prev_rate, uint32_t prev_flags)
{
	for (int i = 0; i < p->vars.n; i++) {
		uint32_t was = prev_rate, fwas = prev_flags;

		if (prev_rate == UINT32_MAX && !ntp_proc_mem_read(p->mem, p->vars.rate[i], &was) &&
		    was)
			printf("ntprof: process %d: %s held %u, left by a collector that is gone; "
			       "taking it over\n", (int)p->pid, NTP_SAMPLE_VAR, was);
		if (prev_flags == UINT32_MAX && p->vars.flags[i] &&
		    ntp_proc_mem_read(p->mem, p->vars.flags[i], &fwas))
			fwas = 0;
		if (rate && p->vars.flags[i] &&
		    ntp_proc_mem_write(p->mem, p->pid, p->vars.flags[i], NTP_FLAGS_VAR, fwas, flags,
				       s->err, sizeof(s->err)))
			return -1;
		if (ntp_proc_mem_write(p->mem, p->pid, p->vars.rate[i], NTP_SAMPLE_VAR, was, rate,
				       s->err, sizeof(s->err)))
			return -1;
	}
	return 0;
}

/*
 * Start sampling in process PID: find its variables, lock it, open its
 * memory, write its flags and rate. Returns 1 when it samples, 0 when it
 * has not loaded the library with the variable yet (a process still
 * starting: try again soon), -1 when it cannot (said on stderr).
 */
static int start_process(struct spdk *s, pid_t pid)
{
	struct proc p = { .pid = pid, .mem = -1, .lock = -1 };
	pid_t holder;
	int n = ntp_spdk_find_vars(&s->prog, pid, &p.vars, s->err, sizeof(s->err));

	if (n == 0 && ntp_spdk_has_var(&s->prog))
		return 0;
	if (n > 0 && s->nprocs == NTP_SPDK_MAX_PIDS)
		n = ntp_fail(s->err, sizeof(s->err), "process %d: more than %d processes", (int)pid,
			     NTP_SPDK_MAX_PIDS);
	if (n > 0) {
		p.start = ntp_proc_start_time(pid);
		p.lock = ntp_lock_take(NTP_LOCK_DIR, pid, p.start, &holder, s->err,
				       sizeof(s->err));
	}
	if (n > 0 && p.lock >= 0)
		p.mem = ntp_proc_mem_open(pid, s->err, sizeof(s->err));
	if (p.mem < 0 || write_vars(s, &p, s->rate, s->flags, UINT32_MAX, UINT32_MAX)) {
		fprintf(stderr, "ntprof: cannot sample in %s\n", s->err);
		release(&p);
		return -1;
	}
	s->procs[s->nprocs++] = p;
	return 1;
}

static void started(struct spdk *s, const struct ntp_opts *o, pid_t pid, int first)
{
	if (!first)
		printf("ntprof: process %d of %s started; sampling it\n", (int)pid, o->spdk);
	s->sampled++;
}

/* The processes still loading their libraries, tried every 20 ms (follow asks for it):
 * sampling starts as soon as the variable is there. */
static void retry_pending(struct spdk *s, const struct ntp_opts *o)
{
	int64_t now = ntp_now_ns(CLOCK_MONOTONIC);
	int n = 0;

	for (int i = 0; i < s->npending; i++) {
		pid_t pid = s->pending[i];
		int rc = ntp_proc_alive(pid) ? start_process(s, pid) : -1;

		if (rc == 1)
			started(s, o, pid, 0);
		if (rc != 0)
			continue;
		if (now - s->pending_since[i] > 2 * NS && s->pending_since[i] > 0) {
			printf("ntprof: process %d of %s has not loaded the library with the "
			       "sampling variable yet; waiting for it\n", (int)pid, o->spdk);
			s->pending_since[i] = -1; /* said once */
		}
		s->pending_since[n] = s->pending_since[i];
		s->pending[n++] = pid;
	}
	s->npending = n;
}

/* Switch sampling on in processes that appeared, note those that went (also
 * those that exited and wait for their parent to reap them), and let go of
 * them. */
static void follow_processes(struct spdk *s, const struct ntp_opts *o, int first)
{
	int n = 0;

	if (ntp_spdk_find_procs(&s->prog, s->err, sizeof(s->err)) < 0)
		return;
	for (int i = 0; i < s->nprocs; i++) {
		struct proc *p = &s->procs[i];

		if (in_list(s->prog.pids, s->prog.npids, p->pid) && ntp_proc_alive(p->pid) &&
		    ntp_proc_start_time(p->pid) == p->start) {
			s->procs[n++] = *p;
			continue;
		}
		printf("ntprof: process %d of %s exited\n", (int)p->pid, o->spdk);
		release(p);
	}
	s->nprocs = n;
	for (int i = 0; i < s->prog.npids; i++) {
		pid_t pid = s->prog.pids[i];
		int rc;

		if (!ntp_proc_alive(pid) || in_list(s->pending, s->npending, pid) ||
		    sampling(s, pid))
			continue;
		rc = start_process(s, pid);
		if (rc == 1)
			started(s, o, pid, first);
		else if (rc == 0 && s->npending < NTP_SPDK_MAX_PIDS) {
			s->pending_since[s->npending] = ntp_now_ns(CLOCK_MONOTONIC);
			s->pending[s->npending++] = pid;
		}
	}
}

/* 0 into every variable, through the memory opened at the start, then the
 * processes are let go. */
static void sampling_off(struct spdk *s)
{
	for (int i = 0; i < s->nprocs; i++) {
		struct proc *p = &s->procs[i];

		if (write_vars(s, p, 0, 0, s->rate, s->flags) && ntp_proc_alive(p->pid))
			fprintf(stderr, "ntprof: cannot switch sampling off in %s\n", s->err);
		release(p);
	}
	s->nprocs = 0;
}

static int sample(struct ntp_bpf *b, const struct ntp_opts *o, uint32_t n)
{
	struct spdk *s = state(b);

	if (!n) {
		sampling_off(s);
		return s->sampled;
	}
	s->rate = n;
	s->flags = o->no_arrivals ? NTP_FLAG_NO_ARRIVALS : 0;
	/* before sampling starts: the patch's first reads are then stamped */
	if (arrivals(o) && s->tstamp_fd < 0) {
		s->tstamp_fd = ntp_tstamp_hold(s->err, sizeof(s->err));
		if (s->tstamp_fd < 0)
			fprintf(stderr, "ntprof: %s: %s stay empty (counted as gaps)\n", s->err,
				arrivals(o)->points);
	}
	follow_processes(s, o, 1);
	return s->nprocs + s->npending;
}

static int follow(struct ntp_bpf *b, const struct ntp_opts *o, int interval)
{
	struct spdk *s = state(b);

	if (interval)
		follow_processes(s, o, 0);
	if (s->npending)
		retry_pending(s, o);
	return s->npending > 0;
}

/* Whatever was reached: a process still held (a start that failed half
 * way) is let go, as it is. */
static void close_spdk(struct ntp_bpf *b)
{
	struct spdk *s = state(b);

	for (int i = 0; i < s->nprocs; i++)
		release(&s->procs[i]);
	ntprof_spdk_bpf__destroy(s->skel);
	ntp_spdk_close(&s->prog);
	ntp_tstamp_release(s->tstamp_fd);
	free(s);
}

/* Whether the kernel gives the receive timestamps now: asked once. */
static const char *tstamp_why(struct spdk *s)
{
	if (!s->tstamp_tried) {
		ntp_tstamp_release(ntp_tstamp_hold(s->tstamp_why, sizeof(s->tstamp_why)));
		s->tstamp_tried = 1;
	}
	return s->tstamp_why;
}

static int hook_ok(struct ntp_bpf *b, const struct ntp_hook *h, const struct ntp_opts *o,
		   char *why, size_t whylen)
{
	struct spdk *s = state(b);

	if (h->kind == NTP_HOOK_USDT)
		return ntp_spdk_sites(&s->prog, probe_name(h)) ? 1 : (no_probe(s, h, why, whylen), 0);
	if (o->no_arrivals)
		return snprintf(why, whylen, "--no-arrivals"), 0;
	if (*tstamp_why(s))
		return snprintf(why, whylen, "%s", tstamp_why(s)), 0;
	return 1;
}

/* Some probes are in a library rather than in the binary itself. */
static int in_libraries(const struct spdk *s)
{
	char real[PATH_MAX];

	if (!realpath(s->prog.binary, real))
		return 0;
	for (int i = 0; i < s->prog.nobjs; i++)
		if (strcmp(s->prog.objs[i].path, real))
			return 1;
	return 0;
}

/* probe's section, items in the same order as text and JSON: the probes'
 * sites, the objects that have them, the processes with their variable. */
static void print_usdt(struct ntp_json *w, const struct spdk *s, const struct ntp_opts *o)
{
	if (!w)
		printf("USDT probes in %s%s:\n", o->spdk,
		       in_libraries(s) ? " and the libraries it loads" : "");
	else {
		ntp_json_string_field(w, "binary", o->spdk);
		ntp_json_name(w, "usdt");
		ntp_json_start_object(w);
	}
	for (int i = 0; i < NTP_SPDK_NPROBES; i++) {
		int n = ntp_spdk_sites(&s->prog, ntp_spdk_probes[i]);

		if (w)
			ntp_json_int_field(w, ntp_spdk_probes[i], n);
		else
			printf("%s %s %d site%s\n", n ? "ok" : "no", ntp_spdk_probes[i], n,
			       n == 1 ? "" : "s");
	}
	if (w)
		ntp_json_end_object(w);
}

static void print_objects(struct ntp_json *w, const struct spdk *s)
{
	if (w) {
		ntp_json_name(w, "objects");
		ntp_json_start_array(w);
	}
	for (int i = 0; i < s->prog.nobjs; i++)
		if (w)
			ntp_json_string(w, s->prog.objs[i].path);
		else
			printf("  in %s\n", s->prog.objs[i].path);
	if (w)
		ntp_json_end_array(w);
}

static void print_process(struct ntp_json *w, pid_t pid, uint64_t addr, int i)
{
	char var[32];

	snprintf(var, sizeof(var), "0x%llx", (unsigned long long)addr);
	if (w) {
		ntp_json_start_object(w);
		ntp_json_int_field(w, "pid", pid);
		ntp_json_string_field(w, "sampling_variable", var);
		ntp_json_end_object(w);
	} else if (addr) {
		printf("%s %d (sampling variable at %s)", i ? "," : "", (int)pid, var);
	} else {
		printf("%s %d (no sampling variable)", i ? "," : "", (int)pid);
	}
}

static int print_processes(struct ntp_json *w, struct spdk *s, char *why, size_t whylen)
{
	int rc = 0;

	if (w) {
		ntp_json_name(w, "processes");
		ntp_json_start_array(w);
	} else {
		printf("running processes:");
	}
	for (int i = 0; i < s->prog.npids; i++) {
		struct ntp_spdk_vars v;

		if (ntp_spdk_find_vars(&s->prog, s->prog.pids[i], &v, s->err, sizeof(s->err)) <= 0 &&
		    !rc)
			rc = ntp_fail(why, whylen, "%s", s->err);
		print_process(w, s->prog.pids[i], v.n > 0 ? v.rate[0] : 0, i);
	}
	if (w)
		ntp_json_end_array(w);
	else
		printf("%s\n", s->prog.npids ? "" : " none");
	/* how processes that start later are found */
	if (w)
		ntp_json_string_field(w, "processes_found_by",
				      s->prog.memo.events >= 0 ? "process events" : "scanning /proc");
	else if (s->prog.memo.events >= 0)
		printf("processes that start later: found by the kernel's process events\n");
	else
		printf("processes that start later: found by scanning /proc every interval (%s)\n",
		       s->prog.no_events);
	return rc;
}

static int print(struct ntp_json *w, struct ntp_bpf *b, const struct ntp_opts *o, char *why,
		 size_t whylen)
{
	struct spdk *s = state(b);

	print_usdt(w, s, o);
	print_objects(w, s);
	return print_processes(w, s, why, whylen);
}

const struct ntp_backend ntp_spdk_backend = {
	.driver = "spdk",
	.takes = takes,
	.open = open_program,
	.check = check,
	.load = load,
	.attach = attach,
	.records = records,
	.lost = lost,
	.idle = idle,
	.wait = wait_process,
	.sample = sample,
	.follow = follow,
	.close = close_spdk,
	.hooks = hooks,
	.hook_ok = hook_ok,
	.print = print,
};
