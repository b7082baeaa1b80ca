/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Query results in the shell's output modes, and text from a recording
 * made safe for a terminal (lib/out.c).
 */
#ifndef NTP_OUT_H
#define NTP_OUT_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

#include "json_writer.h"

/* Output modes of query results (.mode). */
enum ntp_mode {
	NTP_MODE_TABLE = 0, /* aligned columns */
	NTP_MODE_CSV,       /* RFC 4180 */
	NTP_MODE_JSON,      /* one array of objects per statement */
	NTP_MODE_LINE,      /* column = value, a blank line between rows */
	NTP_MODE_JSONL,     /* JSON lines: one object per row, one row a line */
};

struct ntp_out {
	FILE *f;            /* where results go (stdout, .output, .once) */
	enum ntp_mode mode; /* .mode */
	int headers;        /* .headers on|off (table and csv) */
	int empty_header;   /* csv: the header also when there is no row */
	uint64_t rows;      /* rows printed, added up over the calls */
};

/* Run every statement in SQL, printing each result set in o's mode.
 * Returns 0, or -1 with the SQLite error in err. */
int ntp_out_query(struct ntp_out *o, sqlite3 *db, const char *sql, char *err, size_t errlen);

/* The current row of ST in a JSON document: one member per column, named
 * as the column, valued as json mode prints it; into the object W has open
 * (columns), or as an object of its own (row). Return 0, or -1 when out of
 * memory. */
int ntp_json_columns(struct ntp_json *w, sqlite3_stmt *st);
int ntp_json_row(struct ntp_json *w, sqlite3_stmt *st);

/* Write S to F with its control characters (but newline and tab) as '?':
 * for text from a recording, which may carry terminal escapes. */
void ntp_put_text(FILE *f, const char *s);

/* S, in place, with every control character as '?' (one line). */
char *ntp_clean_text(char *s);

#endif
