/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One collector per process: a process's sampling variable holds one
 * collector's rate, and a second collector would break the first one's
 * 1-in-N rule, then write 0 under it when it stops. So a collector takes a
 * lock on each process before it writes there, and holds it until it has
 * written 0 again: DIR/PID-START.lock (START: when the process started,
 * so a later process given the same pid is another key), flock()ed, with
 * the holder's pid in it.
 *
 * flock() goes with the holder: a collector killed with -9 holds nothing
 * any more, and the next one takes the lock at once (the file stays, with
 * the dead one's pid, until then). A collector that ends removes its
 * files, and one that takes a lock removes those of processes that are
 * gone and that no one holds.
 */
#ifndef NTP_LOCK_H
#define NTP_LOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Where the locks of the collectors of this machine are. */
#define NTP_LOCK_DIR "/run/ntprof"

/*
 * Take the lock on process PID (started at START, ntp_proc_start_time) in
 * DIR, created (0700) if missing; an existing DIR must be a directory of
 * this user's that no one else may write. Returns the lock's descriptor,
 * or -1 with ERR set: when another collector holds it, *HOLDER is its pid
 * (0 if it did not say) and ERR names it.
 */
int ntp_lock_take(const char *dir, pid_t pid, uint64_t start, pid_t *holder, char *err,
		  size_t errlen);

/* Remove the lock file of FD (taken for PID and START in DIR) and let the
 * lock go. FD < 0: nothing. */
void ntp_lock_release(const char *dir, pid_t pid, uint64_t start, int fd);

#endif
