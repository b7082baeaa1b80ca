/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDK's spdk/stdinc.h, for the patch's ntprof.h: the C library. */
#ifndef SPDK_STDINC_H
#define SPDK_STDINC_H
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#endif
