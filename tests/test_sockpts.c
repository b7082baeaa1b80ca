// SPDX-License-Identifier: BSD-2-Clause
/*
 * Arrival points from socket events (collector/sockpts.c): receives tied to
 * arrivals by stream position, partial reads, several arrivals in one read,
 * the host's "not before it was sent" bound, unknown sockets, sequence
 * wrap-around and a log that has forgotten old receives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sockpts.h"

static void ev(struct ntp_sockpts *p, uint8_t op, uint64_t sk, uint64_t ts, int len, uint32_t seq)
{
	struct ntp_sock_event e = { .ts = ts, .sk = sk, .len = len, .kind = NTP_KIND_SOCK,
				    .op = op, .version = NTP_ABI_VERSION, .seq = seq };

	ntp_sockpts_event(p, &e);
}

static void test_whole_and_partial_reads(void **state)
{
	struct ntp_sockpts *p = ntp_sockpts_new(16);
	struct ntp_cmd_record r = { .role = NTP_ROLE_TARGET };

	ev(p, NTP_SOCK_READY, 0xa000, 10, 0, 100);
	ev(p, NTP_SOCK_RECV, 0xa000, 20, 100, 100);
	r.ts[NTP_T_CMD] = 25;
	assert_int_equal(ntp_sockpts_fill(p, &r), 1);
	assert_int_equal(r.ts[NTP_T_RX], 10);

	/* a PDU read in two parts: both parts arrived at 30 */
	ev(p, NTP_SOCK_READY, 0xa000, 30, 0, 200);
	ev(p, NTP_SOCK_RECV, 0xa000, 40, 8, 108);
	ev(p, NTP_SOCK_RECV, 0xa000, 41, 92, 200);
	assert_int_equal(ntp_sockpts_arrival(p, 40), 30);
	assert_int_equal(ntp_sockpts_arrival(p, 45), 30);
	/* before any receive: nothing */
	assert_int_equal(ntp_sockpts_arrival(p, 5), 0);
	ntp_sockpts_free(p);
}

static void test_two_arrivals_one_read(void **state)
{
	struct ntp_sockpts *p = ntp_sockpts_new(16);
	struct ntp_cmd_record h = { .role = NTP_ROLE_HOST };

	ev(p, NTP_SOCK_READY, 0xb000, 50, 0, 300);
	ev(p, NTP_SOCK_READY, 0xb000, 55, 0, 400);
	ev(p, NTP_SOCK_RECV, 0xb000, 60, 200, 400); /* bytes 200..400 */
	assert_int_equal(ntp_sockpts_arrival(p, 60), 55); /* its last byte's */

	/* a host command sent at 56 cannot have its response at 55 */
	h.ts[NTP_H_SENT] = 56;
	h.ts[NTP_H_RX_DRV] = 61;
	assert_int_equal(ntp_sockpts_fill(p, &h), 0);
	assert_int_equal(h.ts[NTP_H_RX], 0);
	h.ts[NTP_H_SENT] = 52;
	assert_int_equal(ntp_sockpts_fill(p, &h), 1);
	assert_int_equal(h.ts[NTP_H_RX], 55);
	/* a point already recorded is left alone */
	h.ts[NTP_H_RX] = 51;
	assert_int_equal(ntp_sockpts_fill(p, &h), 0);
	assert_int_equal(h.ts[NTP_H_RX], 51);
	ntp_sockpts_free(p);
}

static void test_unknown_socket_and_wrap(void **state)
{
	struct ntp_sockpts *p = ntp_sockpts_new(16);

	/* data that arrived before the socket was known: no arrival */
	ev(p, NTP_SOCK_RECV, 0xc000, 70, 64, 64);
	assert_int_equal(ntp_sockpts_arrival(p, 70), 0);
	/* positions wrap at 2^32 */
	ev(p, NTP_SOCK_READY, 0xc000, 80, 0, 0x10);
	ev(p, NTP_SOCK_RECV, 0xc000, 90, 0x20, 0x10); /* from 0xfffffff0 */
	assert_int_equal(ntp_sockpts_arrival(p, 95), 80);
	/* other sockets do not mix */
	ev(p, NTP_SOCK_READY, 0xd000, 100, 0, 500);
	ev(p, NTP_SOCK_RECV, 0xc000, 110, 10, 0x1a);
	assert_int_equal(ntp_sockpts_arrival(p, 110), 0);
	ntp_sockpts_free(p);
}

static void test_log_forgets(void **state)
{
	struct ntp_sockpts *p = ntp_sockpts_new(4);

	for (uint32_t i = 1; i <= 10; i++) {
		ev(p, NTP_SOCK_READY, 0xe000, i * 100, 0, i * 10);
		ev(p, NTP_SOCK_RECV, 0xe000, i * 100 + 5, 10, i * 10);
	}
	assert_int_equal(ntp_sockpts_arrival(p, 1005), 1000);
	assert_int_equal(ntp_sockpts_arrival(p, 750), 700);
	assert_int_equal(ntp_sockpts_arrival(p, 650), 0); /* forgotten: 4 kept */
	ntp_sockpts_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_and_partial_reads),
		cmocka_unit_test(test_two_arrivals_one_read),
		cmocka_unit_test(test_unknown_socket_and_wrap),
		cmocka_unit_test(test_log_forgets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
