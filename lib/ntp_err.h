/* SPDX-License-Identifier: BSD-2-Clause */
/* One-line error messages into a caller's buffer, for the -1 returns of the
 * collector and shell helpers: ntp_fail(err, errlen, "%s: ...", path). */
#ifndef NTP_ERR_H
#define NTP_ERR_H

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Room for a message that names two paths of any length the system takes:
 * a long path never cuts off the reason. */
#define NTP_ERR_MAX (2 * PATH_MAX + 512)

__attribute__((format(printf, 3, 4)))
static inline int ntp_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

#endif
