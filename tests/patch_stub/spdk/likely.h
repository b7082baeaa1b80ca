/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDK's spdk/likely.h. */
#ifndef SPDK_LIKELY_H
#define SPDK_LIKELY_H
#define spdk_unlikely(cond) __builtin_expect((cond), 0)
#define spdk_likely(cond) __builtin_expect(!!(cond), 1)
#endif
