/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The record tests/usdt_flood fires and tests/store_cost stores: a
 * plausible target record of device DEV, its points 1 us apart from T, a
 * 4 KiB read with command id CID, of ABI VERSION.
 */
#ifndef NTP_TESTS_FLOOD_H
#define NTP_TESTS_FLOOD_H

#include <stdint.h>
#include <string.h>

#include "ntprof_abi.h"

static inline void flood_fill(struct ntp_cmd_record *r, uint64_t t, uint16_t cid, uint64_t dev,
			      uint8_t version)
{
	memset(r, 0, sizeof(*r));
	for (int p = NTP_T_CMD; p <= NTP_T_FREE; p++)
		if (p != NTP_T_R2T && p != NTP_T_DATA_RX)
			r->ts[p] = t + 1000u * (unsigned)p;
	r->slba = cid * 8u;
	r->dev = dev;
	r->nsid = 1;
	r->nlb = 7;
	r->qid = 1;
	r->cid = cid;
	r->cntlid = 1;
	r->opcode = 2;
	r->kind = NTP_KIND_CMD;
	r->role = NTP_ROLE_TARGET;
	r->version = version;
}

#endif
