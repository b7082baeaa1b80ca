/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A rowid table's rows read from its database file's pages (lib/btree.c),
 * for the join's two scans of the recordings (lib/pair.c). SQLite's API
 * costs about 0.5 us a row of a recording's cmd, most of it a call per
 * column; the pages hold the same integers, read here at about a fifth of
 * that.
 *
 * It reads what it knows and nothing else: a file attached immutable (its
 * pages are read past SQLite's cache and locks), in rollback-journal mode
 * (never WAL), a table with a rowid, wanted columns of INTEGER affinity,
 * each once, rows whose wanted values are integers or NULL, no overflow
 * page, records that end where their values do. Anything else, at open or at any row,
 * is NTP_BTREE_NO: the caller reads the table through SQLite from there
 * on, which answers (or refuses) as it always did. Every offset is checked
 * against the page, every page number against the file, and the rowids
 * must increase: a damaged file is never read out of bounds, and never
 * read in a loop. (A damaged file whose rowids do not increase is read
 * through SQLite from the row after the last that did: rows SQLite's own
 * scan would return out of order are left out. ntprof checks a file's
 * integrity before it reads it, unless told not to.)
 */
#ifndef NTP_BTREE_H
#define NTP_BTREE_H

#include <stdint.h>

#ifdef NTP_EXTENSION
#include <sqlite3ext.h>
#else
#include <sqlite3.h>
#endif

enum {
	NTP_BTREE_NO = -1,  /* not readable here: read through SQLite */
	NTP_BTREE_DONE = 0, /* no more rows */
	NTP_BTREE_ROW = 1,  /* a row */
};

/* The most columns a row is read into. */
#define NTP_BTREE_MAX_COLS 32

struct ntp_btree;

/*
 * A reader of table TABLE of schema SCHEMA (an attached database of DB,
 * opened immutable: nothing changes it while it is read), of the columns
 * named COLS[0..NCOL) in that order: the rowid's alias (an INTEGER PRIMARY
 * KEY) reads as the rowid. *OUT is NULL where the table is not one read
 * here (a reason, not an error). Returns SQLITE_OK or SQLITE_NOMEM.
 */
int ntp_btree_open(sqlite3 *db, const char *schema, const char *table, int ncol,
		   const char *const *cols, struct ntp_btree **out);

/* Position B before its first row with rowid >= MIN (a reader reads
 * nothing before its first seek). NTP_BTREE_DONE, or NTP_BTREE_NO. */
int ntp_btree_seek(struct ntp_btree *b, int64_t min);

/* The next row's columns into V (0 where NULL) and bit i of *NULL set where
 * column i is NULL: NTP_BTREE_ROW, NTP_BTREE_DONE or NTP_BTREE_NO (then B
 * reads nothing more until the next seek). */
int ntp_btree_next(struct ntp_btree *b, int64_t *v, uint32_t *null);

/* The output column that reads the rowid (COLS named the table's INTEGER
 * PRIMARY KEY), or -1. */
int ntp_btree_rowid_column(const struct ntp_btree *b);

void ntp_btree_close(struct ntp_btree *b);

#endif
