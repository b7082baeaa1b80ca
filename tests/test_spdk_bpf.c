// SPDX-License-Identifier: BSD-2-Clause
/*
 * The USDT programs (bpf/ntprof_spdk.bpf.c) for real: attached to a live
 * fixture process (tests/usdt_batch.c) that fires ntprof:nvmf_tcp_done once
 * with a batch of three records; all three must arrive intact and nothing be
 * counted lost. Needs root (CI runs as root).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

struct seen {
	int n;
	int bad;
	int devices;     /* device records */
	uint64_t dev;    /* their key */
	uint64_t slba_sum;
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

	if (len == sizeof(struct ntp_device_record)) /* sizes tell the kinds apart */
		return on_device(s, data);
	if (len != sizeof(*r) || r->dev != s->dev || r->kind != NTP_KIND_CMD || r->version != NTP_ABI_VERSION ||
	    r->cid != 10 + (r->slba - 1000) || r->ts[NTP_T_RX] != 5000 + (r->slba - 1000))
		s->bad++;
	s->n++;
	s->slba_sum += r->slba;
	return 0;
}

static void test_batch_arrives(void **state)
{
	struct ntprof_spdk_bpf *skel;
	struct bpf_link *link;
	struct ring_buffer *rb;
	struct seen s = { 0 };
	int in[2], out[2], st;
	uint64_t lost = 0;
	char line[16];
	pid_t pid;

	if (geteuid() != 0)
		fail_msg("test_spdk_bpf needs root to load BPF programs (run make check as root)");
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(FIXTURE, FIXTURE, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	assert_int_equal(read(out[0], line, 6), 6); /* "ready\n" */

	skel = ntprof_spdk_bpf__open_and_load();
	assert_non_null(skel);
	link = bpf_program__attach_usdt(skel->progs.ntp_u_nvmf_tcp_done, pid, FIXTURE, "ntprof",
					"nvmf_tcp_done", NULL);
	if (!link)
		fail_msg("cannot attach to USDT ntprof:nvmf_tcp_done in %s", FIXTURE);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.records), on_record, &s, NULL);
	assert_non_null(rb);

	assert_int_equal(write(in[1], "x", 1), 1); /* fire */
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_true(ring_buffer__consume(rb) >= 0); /* submitted without wakeups */

	assert_int_equal(s.n, 3);
	assert_int_equal(s.devices, 1);
	assert_true(s.dev != 0);
	assert_int_equal(s.bad, 0);
	assert_int_equal(s.slba_sum, 1000 + 1001 + 1002);
	{
		int ncpu = libbpf_num_possible_cpus();
		uint64_t v[ncpu > 0 ? ncpu : 1];
		uint32_t zero = 0;

		assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(skel->maps.lost), &zero, v), 0);
		for (int i = 0; i < ncpu; i++)
			lost += v[i];
	}
	assert_int_equal(lost, 0);

	ring_buffer__free(rb);
	bpf_link__destroy(link);
	ntprof_spdk_bpf__destroy(skel);
	close(in[1]);
	close(out[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_arrives),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
