/* SPDX-License-Identifier: BSD-2-Clause */
/* Private copies of recordings that were not closed (lib/copy.c). */
#ifndef NTP_COPY_H
#define NTP_COPY_H

#include <stddef.h>

/* Copy PATH and what SQLite would read of PATH-wal into a new directory
 * under $TMPDIR (*DIR, malloc'ed) and fold the WAL into the copy (*FILE,
 * malloc'ed); *HAS_WAL says whether a -wal was beside it. 0, or -1 with
 * ERR (*DIR, if set, is to be removed). */
int ntp_private_copy(const char *path, char **dir, char **file, int *has_wal, char *err,
		     size_t errlen);

/* Remove a private copy's directory DIR and what SQLite made in it. */
void ntp_private_copy_remove(const char *dir);

#endif
