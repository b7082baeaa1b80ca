/* SPDX-License-Identifier: BSD-2-Clause */
/* A build configured --with-usdt: the patch's code is compiled in. */
#ifndef SPDK_CONFIG_H
#define SPDK_CONFIG_H
#define SPDK_CONFIG_USDT 1
#endif
