/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The writer of `record`, in its own process without privileges (priv.h):
 * it reads the ring buffer of B into a new database O->out, ends an
 * interval every -i seconds with its live lines, and closes the database
 * once sampling is off. CHAN is its end of a channel to the sampler (the
 * process that switches sampling on and off), one byte a word:
 *
 *   writer -> sampler  'R'  the database is created: recording
 *                      'S'  please stop: a write error, an unreadable ring
 *   sampler -> writer  'O'  sampling is off: drain the ring and close
 *
 * A closed channel is 'O' too (the sampler is gone).
 */
#ifndef NTP_WRITER_H
#define NTP_WRITER_H

#include <stdint.h>

struct ntp_bpf;
struct ntp_opts;

/* Run the writer; its recording started at WALL_START and MONO_START (ns,
 * CLOCK_REALTIME and CLOCK_MONOTONIC: when sampling was switched on).
 * Returns the exit status: 0, or 1 after saying what went wrong. */
int ntp_writer_run(struct ntp_bpf *b, const struct ntp_opts *o, int chan, int64_t wall_start,
		   int64_t mono_start);

#endif
