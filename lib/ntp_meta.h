/* SPDX-License-Identifier: BSD-2-Clause */
/* What a recording says of itself (lib/meta.c), for the files that open
 * one. Each returns 0, or -1 with err set. */
#ifndef NTP_META_H
#define NTP_META_H

#include <stddef.h>

#include <sqlite3.h>

#include "ntp_session.h"

/* Read the meta row (exactly one) and the record counts of the recording
 * D, attached to DB as d->schema, into D. */
int ntp_read_meta(sqlite3 *db, struct ntp_dbinfo *d, char *err, size_t errlen);

/* The schema version and the recordings of the merged file M, attached to
 * the session as m->schema: each recording an entry of the session after
 * M, counted among its hosts or targets. */
int ntp_read_merged(struct ntp_session *s, struct ntp_dbinfo *m, char *err, size_t errlen);

#endif
