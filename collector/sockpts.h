/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Arrival points from socket events (the SPDK path). SPDK's NVMe/TCP reads
 * its PDUs through the kernel's TCP stack, and the patch cannot see when
 * the bytes of a PDU reached the socket; the socket hooks can. Each receive
 * of a watched process is tied, through TCP stream positions, to the
 * arrival (READY) of the last byte it returned: the moment everything it
 * returned was there. A command's arrival point is then that of the last
 * receive before the driver read the PDU:
 *   target  t_rx = arrival of the receive at or before t_cmd
 *   host    h_rx = arrival of the receive at or before h_rx_drv
 *                  (not earlier than the command was sent)
 * The receive is found by time, among all watched sockets: the patch
 * parses a PDU right after receiving it, on the same thread.
 *
 * Why the last byte: one receive can return several PDUs (queue depth > 1)
 * that arrived at different times, and nothing says which bytes are which
 * PDU. The last byte's arrival is never earlier than the PDU's own, so the
 * receive path can only come out shorter, never the wire negative and a
 * target residence never longer than the host's wait (which the join
 * needs). With one PDU per receive (queue depth 1) it is exact.
 */
#ifndef NTP_SOCKPTS_H
#define NTP_SOCKPTS_H

#include <stddef.h>
#include <stdint.h>

#include "ntprof_abi.h"

struct ntp_sockpts;

/* A tracker that remembers the last LOG receives (rounded up to a power of 2). */
struct ntp_sockpts *ntp_sockpts_new(size_t log);
void ntp_sockpts_free(struct ntp_sockpts *p);

/* Feed one socket event, in ring-buffer order. */
void ntp_sockpts_event(struct ntp_sockpts *p, const struct ntp_sock_event *e);

/*
 * Arrival time of the last byte returned by the last receive at or before
 * T; 0 when no receive is known or its bytes' arrival was not seen.
 */
uint64_t ntp_sockpts_arrival(const struct ntp_sockpts *p, uint64_t t);

/* Fill the arrival point (t_rx or h_rx) of R if it is 0 and can be known.
 * Returns 1 when it filled it. */
int ntp_sockpts_fill(const struct ntp_sockpts *p, struct ntp_cmd_record *r);

#endif
