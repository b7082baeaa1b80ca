/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What every ntprof BPF object has: the per-CPU count of records it could
 * not hand over, which the collector writes per interval as lost. */
#ifndef NTPROF_COMMON_BPF_H
#define NTPROF_COMMON_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

static __always_inline void count_lost(__u64 n)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&lost, &zero);

	if (v)
		*v += n;
}

/*
 * Submit without waking the collector unless RING is half full: a wakeup
 * schedules the collector at once, on a CPU the profiled program may need,
 * while it reads its rings every 100 ms anyway.
 */
static __always_inline __u64 wakeup_flags(void *ring, __u64 size)
{
	return bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) > size / 2 ? BPF_RB_FORCE_WAKEUP
								    : BPF_RB_NO_WAKEUP;
}

#endif
