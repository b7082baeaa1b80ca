/* SPDX-License-Identifier: BSD-2-Clause */
/* ntprof's version, which every program prints for --version. */
#ifndef NTP_VERSION_H
#define NTP_VERSION_H

#define NTP_VERSION "0.1"

#endif
