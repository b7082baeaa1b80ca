// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SPDK path's BPF object (bpf/ntprof_spdk.bpf.c) for real, as root on
 * this kernel: attached to a live fixture (tests/usdt_batch.c) that fires
 * the patch's batch probe. Each batch must reach the ring as one entry
 * with every record intact, each device record once and ahead of its
 * first batch, and every record that cannot be handed over counted under
 * its cause: too many for one hit, unreadable, and (with a ring too small
 * for a batch) ring full.
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

#include "ntprof_spdk.skel.h"

#ifndef OUTPUT
#define OUTPUT ".output"
#endif
#define FIXTURE OUTPUT "/usdt_batch"
#define NREC 135

struct seen {
	int n;        /* records */
	int batches;
	int bad;
	int devices;  /* device records */
	uint64_t dev[2];
	int seen[NREC];
};

/* A device record: A (Malloc0) first, then B (Malloc1), each once. */
static int on_device(struct seen *s, const struct ntp_device_record *d)
{
	const char *want = s->devices ? "Malloc1" : "Malloc0";

	if (d->kind != NTP_KIND_DEVICE || d->version != NTP_ABI_VERSION || s->devices > 1 ||
	    strcmp(d->name, want) || strcmp(d->nqn, "nqn.2026-10.edu.wisc.ntprof:t"))
		s->bad++;
	else
		s->dev[s->devices] = d->dev;
	s->devices++;
	return 0;
}

/* Record I: its identity, and its device known before it (A below 39). */
static void on_cmd(struct seen *s, const struct ntp_cmd_record *r)
{
	uint64_t i = r->slba - 1000;
	int d = i < 39 ? 0 : 1;

	if (i >= NREC || r->cid != i || r->kind != NTP_KIND_CMD || r->version != NTP_ABI_VERSION ||
	    r->ts[NTP_T_CMD] != 1000000 + i || s->devices <= d || r->dev != s->dev[d] ||
	    s->seen[i]++)
		s->bad++;
	s->n++;
}

static int on_record(void *ctx, void *data, size_t len)
{
	const struct ntp_batch_header *h = data;
	struct seen *s = ctx;

	if (len == sizeof(struct ntp_device_record))
		return on_device(s, data);
	if (len < sizeof(*h) || h->kind != NTP_KIND_BATCH || h->version != NTP_ABI_VERSION ||
	    len != sizeof(*h) + h->n * sizeof(struct ntp_cmd_record)) {
		s->bad++;
		return 0;
	}
	for (uint32_t i = 0; i < h->n; i++)
		on_cmd(s, (const struct ntp_cmd_record *)(h + 1) + i);
	s->batches++;
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

static void lost_by_cause(struct ntprof_spdk_bpf *skel, uint64_t out[NTP_CAUSE_MAX])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t v[ncpu > 0 ? ncpu : 1];

	for (uint32_t c = 0; c < NTP_CAUSE_MAX; c++) {
		out[c] = 0;
		assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(skel->maps.lost), &c, v), 0);
		for (int i = 0; i < ncpu; i++)
			out[c] += v[i];
	}
}

/* Load with a ring of RING bytes, run the fixture, collect what arrives. */
static void run(uint32_t ring, struct seen *s, uint64_t lost[NTP_CAUSE_MAX])
{
	struct ntprof_spdk_bpf *skel;
	struct bpf_link *link;
	struct ring_buffer *rb;
	struct child c;
	char line[64];
	int st;

	if (geteuid() != 0)
		fail_msg("test_spdk_bpf needs root to load BPF programs (run make check as root)");
	skel = ntprof_spdk_bpf__open();
	assert_non_null(skel);
	assert_int_equal(bpf_map__set_max_entries(skel->maps.records, ring), 0);
	if (ntprof_spdk_bpf__load(skel))
		fail_msg("cannot load the SPDK path's BPF object");
	start(&c);
	link = bpf_program__attach_usdt(skel->progs.ntp_u_nvmf_tcp_done, c.pid, FIXTURE,
					"ntprof", "nvmf_tcp_done", NULL);
	if (!link) {
		kill(c.pid, SIGKILL);
		fail_msg("cannot attach the USDT program to %s", FIXTURE);
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.records), on_record, s, NULL);
	assert_non_null(rb);
	assert_int_equal(write(c.in, "x", 1), 1); /* go */
	assert_non_null(fgets(line, sizeof(line), c.out));
	assert_string_equal(line, "done\n");
	assert_int_equal(waitpid(c.pid, &st, 0), c.pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_true(ring_buffer__consume(rb) >= 0); /* submitted without wakeups */
	lost_by_cause(skel, lost);
	ring_buffer__free(rb);
	bpf_link__destroy(link);
	ntprof_spdk_bpf__destroy(skel);
	close(c.in);
	fclose(c.out);
}

static void test_batches(void **state)
{
	uint64_t lost[NTP_CAUSE_MAX];
	struct seen s = { 0 };

	(void)state;
	run(1 << 20, &s, lost);
	assert_int_equal(s.bad, 0);
	assert_int_equal(s.batches, 3);
	assert_int_equal(s.n, 7 + 64 + 64);
	assert_int_equal(s.devices, 2);
	for (int i = 0; i < NREC; i++)
		assert_int_equal(s.seen[i], 1);
	assert_int_equal(lost[NTP_CAUSE_BATCH_OVERFLOW], 6);
	assert_int_equal(lost[NTP_CAUSE_UNREADABLE], 5);
	assert_int_equal(lost[NTP_CAUSE_RING_FULL], 0);
}

/* A 4 KiB ring holds the first batch (7 records, 848 bytes) but no full
 * one (7688 bytes): those are counted, record by record. */
static void test_ring_full(void **state)
{
	uint64_t lost[NTP_CAUSE_MAX];
	struct seen s = { 0 };

	(void)state;
	run(4096, &s, lost);
	assert_int_equal(s.bad, 0);
	assert_int_equal(s.batches, 1);
	assert_int_equal(s.n, 7);
	assert_int_equal(lost[NTP_CAUSE_RING_FULL], 64 + 64);
	assert_int_equal(lost[NTP_CAUSE_BATCH_OVERFLOW], 6);
	assert_int_equal(lost[NTP_CAUSE_UNREADABLE], 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batches),
		cmocka_unit_test(test_ring_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
