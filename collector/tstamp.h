/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's software receive timestamps, which the SPDK patch reads for
 * its arrival points over TCP (SO_TIMESTAMPING). The kernel stamps packets
 * only while some socket asks for it, and it turns that on from a work
 * item, a moment after the first socket asks: packets in between carry no
 * timestamp. So the collector asks first, and holds it for the recording.
 */
#ifndef NTP_TSTAMP_H
#define NTP_TSTAMP_H

#include <stddef.h>

/*
 * Ask for receive timestamps and wait (up to about a second) until a
 * loopback datagram comes back with one. Returns the socket that holds
 * them on (close it with ntp_tstamp_release), or -1 with ERR set.
 */
int ntp_tstamp_hold(char *err, size_t errlen);
void ntp_tstamp_release(int fd);

#endif
