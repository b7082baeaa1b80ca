// SPDX-License-Identifier: BSD-2-Clause
/*
 * The tracepoint flavour of the socket hooks (bpf/ntprof_sock.bpf.c), for
 * real: loaded and attached on this kernel, filtered to this process, while
 * it talks to itself over loopback TCP. The stream positions must tie each
 * receive to the arrival of the bytes it returned. Needs root and kernel BTF; without
 * them it fails and says so (CI runs as root).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "ntprof_abi.h"
#include "ntprof_sock.skel.h"

struct seen {
	int n[4];             /* by enum ntp_sock_op */
	int recv_bytes;       /* sum of NTP_SOCK_RECV lengths */
	int other_process;    /* events of another tgid: the filter failed */
	int bad;              /* wrong kind or version */
	uint64_t first, last; /* timestamps */
	struct ntp_sock_event ev[64]; /* the first events, in order */
	int nev;
};

static int on_event(void *ctx, void *data, size_t len)
{
	const struct ntp_sock_event *e = data;
	struct seen *s = ctx;

	if (len < sizeof(*e) || e->kind != NTP_KIND_SOCK || e->version != NTP_ABI_VERSION ||
	    e->op < NTP_SOCK_READY || e->op > NTP_SOCK_SEND) {
		s->bad++;
		return 0;
	}
	if (e->op != NTP_SOCK_READY) /* arrivals run in whichever process */
		s->other_process += e->tgid != (uint32_t)getpid();
	if (s->nev < 64)
		s->ev[s->nev++] = *e;
	s->n[e->op]++;
	if (e->op == NTP_SOCK_RECV)
		s->recv_bytes += e->len;
	if (!s->first)
		s->first = e->ts;
	s->last = e->ts;
	return 0;
}

static void connect_pair(int *c, int *d)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &al), 0);
	*c = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(*c, (struct sockaddr *)&a, sizeof(a)), 0);
	*d = accept(l, NULL, NULL);
	assert_true(*d >= 0);
	close(l);
}

/*
 * Each receive after the first returned exactly what one arrival brought:
 * a READY on the same socket, no later than the receive, whose rcv_nxt is
 * the receive's copied_seq. (The first arrival comes before the receiving
 * socket is known, so it is not seen: sockets are learned from their
 * process's receives and sends.)
 */
static void check_positions(const struct seen *s)
{
	const struct ntp_sock_event *prev = NULL;
	int tied = 0;

	for (int i = 0; i < s->nev; i++) {
		const struct ntp_sock_event *r = &s->ev[i];

		if (r->op != NTP_SOCK_RECV)
			continue;
		if (prev)
			assert_int_equal((uint32_t)(r->seq - prev->seq), (uint32_t)r->len);
		for (int j = 0; j < i && prev; j++)
			tied += s->ev[j].op == NTP_SOCK_READY && s->ev[j].sk == r->sk &&
				s->ev[j].seq == r->seq && s->ev[j].ts <= r->ts;
		prev = r;
	}
	assert_int_equal(tied, 4);
}

static void test_tracepoint_hooks(void **state)
{
	struct ntprof_sock_bpf *skel;
	struct ring_buffer *rb;
	struct seen s = { 0 };
	struct timespec t0;
	char buf[64];
	uint32_t me;
	uint8_t one = 1;
	int c, d;

	if (geteuid() != 0)
		fail_msg("test_sock needs root to load BPF programs (run make check as root)");
	skel = ntprof_sock_bpf__open();
	assert_non_null(skel);
	if (ntprof_sock_bpf__load(skel) || ntprof_sock_bpf__attach(skel))
		fail_msg("cannot load or attach the socket tracepoints (kernel BTF?)");
	me = (uint32_t)getpid();
	assert_int_equal(bpf_map__update_elem(skel->maps.procs, &me, sizeof(me), &one,
					      sizeof(one), BPF_ANY), 0);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, &s, NULL);
	assert_non_null(rb);
	clock_gettime(CLOCK_MONOTONIC, &t0);

	connect_pair(&c, &d);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(send(c, "capsule", 7, 0), 7);
		assert_int_equal(recv(d, buf, sizeof(buf), 0), 7);
	}
	assert_true(ring_buffer__consume(rb) >= 0); /* submitted without wakeups */

	assert_int_equal(s.bad, 0);
	assert_int_equal(s.other_process, 0);
	assert_int_equal(s.n[NTP_SOCK_RECV], 5);
	assert_int_equal(s.recv_bytes, 35);
	assert_int_equal(s.n[NTP_SOCK_SEND], 0); /* sends only make sockets known */
	assert_true(s.n[NTP_SOCK_READY] >= 4);
	check_positions(&s);
	/* bpf_ktime_get_ns() is CLOCK_MONOTONIC, the clock the records use */
	assert_true(s.first >= (uint64_t)t0.tv_sec * 1000000000ull + (uint64_t)t0.tv_nsec);
	assert_true(s.last >= s.first);

	close(c);
	close(d);
	ring_buffer__free(rb);
	ntprof_sock_bpf__destroy(skel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracepoint_hooks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
