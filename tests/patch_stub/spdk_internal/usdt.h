/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDK's spdk_internal/usdt.h: <sys/sdt.h>. */
#ifndef SPDK_INTERNAL_USDT_H
#define SPDK_INTERNAL_USDT_H
#include <sys/sdt.h>
#endif
