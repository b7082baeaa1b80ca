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

/* Set to 1 by the collector's writer when it goes to sleep with nothing
 * to commit (writer.c); the first record after that wakes it and clears
 * it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} writer_idle SEC(".maps");

/*
 * Records are submitted without a wakeup, but for the first one after the
 * writer went idle and the one that finds the ring a quarter full. While
 * records come, the writer reads them on its own timer (the next commit or
 * interval end, writer.c), so a wakeup per record neither costs the
 * profiled program an irq_work each time nor wakes the collector for
 * little; while none come, it sleeps until an interval ends, and the first
 * record wakes it, to be committed on time. A quarter leaves it three
 * quarters of the ring to wake up and read in before anything is lost.
 */
static __always_inline __u64 submit_flags(void)
{
	__u32 zero = 0, *idle = bpf_map_lookup_elem(&writer_idle, &zero);
	__u64 size = bpf_ringbuf_query(&records, BPF_RB_RING_SIZE);

	if (idle && *idle) {
		*idle = 0;
		return BPF_RB_FORCE_WAKEUP;
	}
	return bpf_ringbuf_query(&records, BPF_RB_AVAIL_DATA) >= size / 4 ? BPF_RB_FORCE_WAKEUP :
									       BPF_RB_NO_WAKEUP;
}

#define NTP_SUBMIT_FLAGS submit_flags()

#endif
