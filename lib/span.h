/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A recording's per-command values from cmd's columns (lib/span.c), as its
 * ntp_cmd_span view computes them.
 */
#ifndef NTP_SPAN_H
#define NTP_SPAN_H

#include <stdint.h>

/*
 * The columns of a recording's ntp_cmd_span view that are sums of its
 * stored points (lib/span.c): NTP_SPAN_host_sent_ns, NTP_SPAN_target_t_e2e,
 * ..., generated from the view's text (sql/span_columns.sh).
 */
#define NTP_SPAN_POINT(p) (1u << (p))
enum ntp_span_col {
#define NTP_SPAN(role, col, abs, keep, points) NTP_SPAN_##role##_##col,
#include "ntp_span_cols.h"
#undef NTP_SPAN
	NTP_SPAN_N
};

/* Each column's name in the view, by its enum ntp_span_col. */
extern const char *const ntp_span_names[NTP_SPAN_N];

/* One command as cmd stores it: mono_start (meta's), t, and the role's
 * points in ABI order (bpf/ntprof_abi.h), bit i of null set where point i
 * is NULL. */
struct ntp_span_in {
	int64_t mono_start, t;
	int mono_null;
	uint32_t null;
	int64_t point[16];
};

/* Column COL of IN as the view computes it, into *OUT, *NULL 1 where it is
 * NULL. Returns 0, or -1 where a sum overflows 64 bits (where SQLite's
 * would turn into a REAL). */
int ntp_span_value(int col, const struct ntp_span_in *in, int64_t *out, int *null);

#endif
