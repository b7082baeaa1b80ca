/* SPDX-License-Identifier: BSD-2-Clause */
/* Merged files: ntprof merge (lib/merge.c). */
#ifndef NTP_MERGE_H
#define NTP_MERGE_H

#include <stddef.h>

/*
 * Write OUT (which must not exist), one SQLite file holding the prelude's
 * views over PATHS materialized as tables, with the recordings' identity
 * (docs/schema.md, "Merged files"): the recordings of one run, any number
 * of hosts and their targets, read NTP_MAX_DBS at a time. The inputs are
 * read only. Returns 0, or -1 with err set and OUT removed.
 */
int ntp_merge(const char *out, int n, char *const *paths, int flags, char *err,
	      size_t errlen);

#endif
