/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDK's spdk/sock.h: nothing of it is used by the patch's ntprof.h. */
#ifndef SPDK_SOCK_H
#define SPDK_SOCK_H
#endif
