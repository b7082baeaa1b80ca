// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SPDK path's BPF object (bpf/ntprof_spdk.bpf.c) for real, as root on
 * this kernel: attached to a live fixture (tests/usdt_batch.c) that moves
 * bytes over loopback TCP connections and fires the patch's probes. Every
 * record must arrive intact, nothing be counted lost, and each arrival
 * point be filled within the window in which its bytes were sent and
 * received, or carry the cause the fixture set up.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "ntprof_abi.h"
#include <bpf/bpf.h>

#include "hooks.h"
#include "ntprof_spdk.skel.h"

#ifndef OUTPUT
#define OUTPUT ".output"
#endif
#define FIXTURE OUTPUT "/usdt_batch"
#define NREC 10

struct seen {
	int n;
	int bad;
	int devices;     /* device records */
	uint64_t dev;    /* their key */
	struct ntp_cmd_record rec[NREC]; /* by k = slba - 1000 */
};

/* The device record comes once, before the first command that uses it. */
static int on_device(struct seen *s, const struct ntp_device_record *d)
{
	if (d->kind != NTP_KIND_DEVICE || d->version != NTP_ABI_VERSION || s->n ||
	    strcmp(d->name, "Malloc0") || strcmp(d->nqn, "nqn.2026-10.edu.wisc.ntprof:t"))
		s->bad++;
	s->devices++;
	s->dev = d->dev;
	return 0;
}

static int on_record(void *ctx, void *data, size_t len)
{
	const struct ntp_cmd_record *r = data;
	struct seen *s = ctx;
	uint64_t k;

	if (len == sizeof(struct ntp_device_record)) /* sizes tell the kinds apart */
		return on_device(s, data);
	k = r->slba - 1000;
	if (len != sizeof(*r) || r->dev != s->dev || r->kind != NTP_KIND_CMD ||
	    r->version != NTP_ABI_VERSION || k >= NREC || r->cid != 10 + k)
		s->bad++;
	else
		s->rec[k] = *r;
	s->n++;
	return 0;
}

/* The fixture, started with its stdin and stdout on pipes. */
struct child {
	pid_t pid;
	int in;     /* its stdin */
	FILE *out;  /* its stdout */
};

static void start(struct child *c)
{
	int in[2], out[2];
	char line[64];

	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]); /* so that it sees EOF when the test ends early */
		close(out[0]);
		execl(FIXTURE, FIXTURE, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = fdopen(out[0], "r");
	assert_non_null(fgets(line, sizeof(line), c->out));
	assert_string_equal(line, "ready\n");
}

/* The tracepoint flavour of the arrival hook: fentry and kprobes are not
 * allowed on this machine (test_hooks checks that). */
static struct ntprof_spdk_bpf *load(void)
{
	struct ntprof_spdk_bpf *skel = ntprof_spdk_bpf__open();
	const struct ntp_hook_family *f = &ntp_sock_hooks[0];

	assert_non_null(skel);
	bpf_program__set_autoload(bpf_object__find_program_by_name(skel->obj, f->fentry), false);
	bpf_program__set_autoload(bpf_object__find_program_by_name(skel->obj, f->kprobe), false);
	skel->rodata->arrivals_on = 1;
	if (ntprof_spdk_bpf__load(skel))
		fail_msg("cannot load the SPDK path's BPF object");
	return skel;
}

static uint64_t lost_total(struct ntprof_spdk_bpf *skel)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t v[ncpu > 0 ? ncpu : 1], sum = 0;

	for (uint32_t c = 0; c < NTP_CAUSE_MAX; c++) {
		assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(skel->maps.lost), &c, v), 0);
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	}
	return sum;
}

static void test_batches_and_arrivals(void **state)
{
	struct bpf_link *links[3];
	struct ntprof_spdk_bpf *skel;
	struct ring_buffer *rb;
	struct seen s = { 0 };
	uint64_t win[NREC][2] = { { 0 } };
	struct child c;
	char line[128];
	int st, k;
	unsigned long long t0, t1;

	if (geteuid() != 0)
		fail_msg("test_spdk_bpf needs root to load BPF programs (run make check as root)");
	skel = load();
	start(&c);
	links[0] = bpf_program__attach_usdt(skel->progs.ntp_u_nvmf_tcp_done, c.pid, FIXTURE,
					    "ntprof", "nvmf_tcp_done", NULL);
	links[1] = bpf_program__attach_usdt(skel->progs.ntp_u_tcp_conn, c.pid, FIXTURE, "ntprof",
					    "nvmf_tcp_conn", NULL);
	links[2] = bpf_program__attach(skel->progs.ntp_s_ready_tp);
	if (!links[0] || !links[1] || !links[2]) {
		kill(c.pid, SIGKILL);
		fail_msg("cannot attach the USDT programs or the arrival hook to %s", FIXTURE);
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.records), on_record, &s, NULL);
	assert_non_null(rb);

	assert_int_equal(write(c.in, "x", 1), 1); /* go */
	while (fgets(line, sizeof(line), c.out) && strcmp(line, "done\n"))
		if (sscanf(line, "win %d %llu %llu", &k, &t0, &t1) == 3 && k >= 0 && k < NREC) {
			win[k][0] = t0;
			win[k][1] = t1;
		}
	assert_int_equal(waitpid(c.pid, &st, 0), c.pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_true(ring_buffer__consume(rb) >= 0); /* submitted without wakeups */

	assert_int_equal(s.n, NREC);
	assert_int_equal(s.devices, 1);
	assert_int_equal(s.bad, 0);
	assert_int_equal(lost_total(skel), 0);
	/* arrivals found: inside the window of their bytes, no cause */
	for (k = 0; k < NREC; k++) {
		if (!win[k][0])
			continue;
		if (s.rec[k].ts[NTP_T_RX] < win[k][0] || s.rec[k].ts[NTP_T_RX] > win[k][1])
			fail_msg("record %d: t_rx %llu outside [%llu, %llu] (cause %d)", k,
				 (unsigned long long)s.rec[k].ts[NTP_T_RX],
				 (unsigned long long)win[k][0], (unsigned long long)win[k][1],
				 s.rec[k].rx_cause);
		assert_int_equal(s.rec[k].rx_cause, 0);
	}
	assert_true(win[0][0] && win[1][0] && win[2][0] && win[8][0] && win[9][0]);
	/* and the causes the fixture set up */
	assert_int_equal(s.rec[3].rx_cause, NTP_CAUSE_NO_POSITION);
	assert_int_equal(s.rec[4].rx_cause, NTP_CAUSE_NO_SOCKET);
	assert_int_equal(s.rec[5].rx_cause, NTP_CAUSE_NOT_SEEN);
	assert_int_equal(s.rec[6].rx_cause, NTP_CAUSE_NEW_SOCKET);
	assert_int_equal(s.rec[7].rx_cause, NTP_CAUSE_FORGOTTEN);
	for (k = 3; k <= 7; k++)
		assert_int_equal(s.rec[k].ts[NTP_T_RX], 0);

	ring_buffer__free(rb);
	for (k = 0; k < 3; k++)
		bpf_link__destroy(links[k]);
	ntprof_spdk_bpf__destroy(skel);
	close(c.in);
	fclose(c.out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batches_and_arrivals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
