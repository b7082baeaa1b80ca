/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDK's struct spdk_nvme_cmd (the submission queue entry) and the opcodes
 * the patch's ntprof.h reads, in SPDK's layout. */
#ifndef SPDK_NVME_SPEC_H
#define SPDK_NVME_SPEC_H
#include <stdint.h>

enum spdk_nvme_nvm_opcode {
	SPDK_NVME_OPC_WRITE = 0x01,
	SPDK_NVME_OPC_READ = 0x02,
	SPDK_NVME_OPC_FABRIC = 0x7f,
};

struct spdk_nvme_cmd {
	uint16_t opc : 8;
	uint16_t fuse : 2;
	uint16_t rsvd1 : 4;
	uint16_t psdt : 2;
	uint16_t cid;
	uint32_t nsid;
	uint32_t rsvd2;
	uint32_t rsvd3;
	uint64_t mptr;
	uint64_t dptr[2];
	uint32_t cdw10;
	uint32_t cdw11;
	uint32_t cdw12;
	uint32_t cdw13;
	uint32_t cdw14;
	uint32_t cdw15;
};
_Static_assert(sizeof(struct spdk_nvme_cmd) == 64, "an SQE is 64 bytes");
#endif
