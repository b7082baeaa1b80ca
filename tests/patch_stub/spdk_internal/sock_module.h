/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDK's struct spdk_sock, down to the two fields the patch adds. */
#ifndef SPDK_INTERNAL_SOCK_MODULE_H
#define SPDK_INTERNAL_SOCK_MODULE_H
#include <stdbool.h>
#include <stdint.h>

struct spdk_sock {
	bool ntp_rx_tstamp_on;
	uint64_t ntp_rx_tstamp;
};
#endif
