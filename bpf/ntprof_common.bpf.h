/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What every ntprof BPF object has: the per-CPU count, per cause (enum
 * ntp_cause), of records it could not hand over, which the collector writes
 * per interval into the recording's `lost` table. */
#ifndef NTPROF_COMMON_BPF_H
#define NTPROF_COMMON_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NTP_CAUSE_MAX);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

static __always_inline void count_lost(__u32 cause, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&lost, &cause);

	if (v)
		*v += n;
}

/*
 * Records are submitted without a wakeup: the collector reads its rings on
 * its own schedule (every 20 ms, record.c), and a wakeup per record would
 * cost the profiled program's CPU an irq_work each time.
 */
#define NTP_SUBMIT_FLAGS BPF_RB_NO_WAKEUP

#endif
