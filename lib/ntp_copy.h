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

struct ntp_dbinfo;
struct ntp_session;

/* The file a session reads of D (d->open_path, malloc'ed): its path, or,
 * when ntp_check_header found it was not closed, a private copy in
 * d->copy_dir, checked whole, which S (if not NULL) says on stderr. 0, or
 * -1 with err set. */
int ntp_choose_file(struct ntp_session *s, struct ntp_dbinfo *d, char *err, size_t errlen);

#endif
