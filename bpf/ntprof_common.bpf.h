/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What every ntprof BPF object has: the ring its records go to, the device
 * keys whose device record went out, and the per-CPU count, per cause (enum
 * ntp_cause), of records it could not hand over, which the collector writes
 * per interval into the recording's `lost` table. */
#ifndef NTPROF_COMMON_BPF_H
#define NTPROF_COMMON_BPF_H

/* Command and device records (and the SPDK path's batches), read by the
 * collector; it sets the size before load (--ring-kb). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} records SEC(".maps");

/* Device keys whose ntp_device_record went out in this recording. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} devs_seen SEC(".maps");

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
