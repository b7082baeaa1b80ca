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

/* Is S at a control character: C0, DEL, or a C1 control (U+0080-U+009F,
 * in UTF-8 0xC2 0x80-0x9F: U+009B is a terminal's CSI)? Its length in
 * bytes, else 0. */
static inline int ntp_control_at(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	if (u[0] < 0x20 || u[0] == 0x7f)
		return u[0] ? 1 : 0;
	return u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f ? 2 : 0;
}

/* Each control character of S (a file name with ESC in a message, say)
 * replaced by one '?', in place. */
static inline char *ntp_clean_controls(char *s)
{
	char *out = s;

	for (const char *p = s; p && *p;) {
		int n = ntp_control_at(p);

		*out++ = n ? '?' : *p;
		p += n ? n : 1;
	}
	if (out)
		*out = 0;
	return s;
}

__attribute__((format(printf, 3, 4)))
static inline int ntp_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	/* a message is one line a terminal shows as it is */
	ntp_clean_controls(err);
	return -1;
}

#endif
