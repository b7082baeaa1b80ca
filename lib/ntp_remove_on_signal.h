/* SPDX-License-Identifier: BSD-2-Clause */
/* Files removed on a signal (lib/remove_on_signal.c). */
#ifndef NTP_REMOVE_ON_SIGNAL_H
#define NTP_REMOVE_ON_SIGNAL_H

/* Until ntp_remove_forget, a SIGINT, SIGTERM or SIGHUP that would end the
 * program removes FILE (and its -journal, and then the directory DIR if
 * not NULL) first. One file at a time: returns 1, or 0 (nothing done) when
 * one is set already. ntp_remove_forget(1) removes them now. */
int ntp_remove_on_signal(const char *file, const char *dir);
void ntp_remove_forget(int remove);

#endif
