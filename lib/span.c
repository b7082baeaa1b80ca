// SPDX-License-Identifier: BSD-2-Clause
/*
 * A recording's per-command values, its ntp_cmd_span view
 * (sql/host_views.sql, sql/target_views.sql), computed from cmd's own
 * columns, for the native functions that would otherwise read the view:
 * SQLite evaluates the view's sums for every command it passes, which cost
 * them more than reading cmd does.
 *
 * The view is the definition. sql/span_columns.sh reads its text into
 * ntp_span_cols.h, one NTP_SPAN line per column that is a sum of stored
 * points (a missing one as 0) or one point as it is; tests/test_span.c
 * compares every column with the view's on every pattern of missing
 * points.
 */
#include <stdint.h>

#include "ntprof_abi.h"
#include "span.h"

_Static_assert(NTP_MAX_POINTS <= 16, "struct ntp_span_in holds 16 points");

static const struct span_def {
	unsigned char abs;   /* 1: mono_start + t + the sum */
	signed char keep;    /* >= 0: that point as stored, NULL kept */
	uint32_t points;     /* else the sum of these (NTP_SPAN_POINT) */
} span_def[NTP_SPAN_N] = {
#define NTP_SPAN(role, col, abs_, keep_, points_) \
	[NTP_SPAN_##role##_##col] = { .abs = abs_, .keep = keep_, .points = points_ },
#include "ntp_span_cols.h"
#undef NTP_SPAN
};

const char *const ntp_span_names[NTP_SPAN_N] = {
#define NTP_SPAN(role, col, abs_, keep_, points_) [NTP_SPAN_##role##_##col] = #col,
#include "ntp_span_cols.h"
#undef NTP_SPAN
};

int ntp_span_value(int col, const struct ntp_span_in *in, int64_t *out, int *null)
{
	const struct span_def *d = &span_def[col];
	int64_t v = 0;

	*null = 0;
	if (d->keep >= 0) {
		*null = (in->null >> d->keep) & 1;
		*out = *null ? 0 : in->point[d->keep];
		return 0;
	}
	if (d->abs) {
		/* SQL's order: mono_start + t, then each point */
		if (in->mono_null) {
			*null = 1;
			*out = 0;
			return 0;
		}
		if (__builtin_add_overflow(in->mono_start, in->t, &v))
			return -1;
	}
	for (uint32_t m = d->points & ~in->null; m; m &= m - 1)
		if (__builtin_add_overflow(v, in->point[__builtin_ctz(m)], &v))
			return -1;
	*out = v;
	return 0;
}
