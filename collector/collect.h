/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ntprof-collect's commands: `probe` (probe.c) and `record` (record.c),
 * each run with the parsed options (opts.h). Both return the exit status.
 */
#ifndef NTP_COLLECT_H
#define NTP_COLLECT_H

#include "opts.h"

int ntp_probe(const struct ntp_opts *o);
int ntp_record(const struct ntp_opts *o);

#endif
