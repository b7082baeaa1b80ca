/* SPDX-License-Identifier: BSD-2-Clause */
/* The patch carries a byte-identical copy of bpf/ntprof_abi.h (tests/cli.sh
 * checks it): this one is that header. */
#include "../../../bpf/ntprof_abi.h"
