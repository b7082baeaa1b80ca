/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDK's fabrics command headers, as far as the patch's ntprof.h reads
 * them (fctype, a Connect's qid), in SPDK's layout. */
#ifndef SPDK_NVMF_SPEC_H
#define SPDK_NVMF_SPEC_H
#include <stddef.h>
#include <stdint.h>

#define SPDK_NVMF_FABRIC_COMMAND_CONNECT 0x01

struct spdk_nvmf_capsule_cmd {
	uint8_t opcode;
	uint8_t reserved1;
	uint16_t cid;
	uint8_t fctype;
	uint8_t reserved2[35];
	uint8_t fabric_specific[24];
};

struct spdk_nvmf_fabric_connect_cmd {
	uint8_t opcode;
	uint8_t reserved1;
	uint16_t cid;
	uint8_t fctype;
	uint8_t reserved2[19];
	uint8_t sgl1[16];
	uint16_t recfmt;
	uint16_t qid;
	uint16_t sqsize;
	uint8_t cattr;
	uint8_t reserved3;
	uint32_t kato;
	uint8_t reserved4[12];
};
_Static_assert(offsetof(struct spdk_nvmf_fabric_connect_cmd, qid) == 42, "Connect's QID");
#endif
