// SPDX-License-Identifier: BSD-2-Clause
/*
 * Printing query results for ntprof-shell and `ntprof report`: every
 * statement of a SQL string, each result set in one of four modes (table,
 * csv, json, line), and a row as members of a JSON document (json_writer.h).
 * Integers print exactly, text as stored, BLOBs as X'hex', NULL as an empty cell
 * (null in JSON). REALs: up to 15 significant digits (%.15g) in table and
 * line; in csv and json, SQLite's own text for them (82.0, 0.1, 1.0e+20),
 * so a REAL reads back as one and csv is what sqlite3 prints.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntp_err.h"
#include "ntp_out.h"

/* One formatted value. */
struct cell {
	char *s;   /* text, sqlite3_malloc'ed; NULL for SQL NULL */
	int num;   /* 1: INTEGER or REAL, printed right-aligned / unquoted */
};

/* A result set buffered for table mode. */
struct grid {
	int ncol;             /* columns */
	size_t nrow;          /* rows buffered */
	size_t cap;           /* rows allocated */
	struct cell *cells;   /* nrow x ncol, row-major */
};

/* Where one ntp_out_query call is: separators between rows and results. */
struct run {
	struct ntp_out *o;    /* output and mode */
	int results;          /* result sets printed so far */
	int rows;             /* rows printed so far (line mode separators) */
};

static void set_err(char *err, size_t errlen, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
}

/* Format column I of the current row for MODE; returns 0, or -1 when out of
 * memory. */
static int cell_get(sqlite3_stmt *st, int i, struct cell *c, enum ntp_mode mode)
{
	const unsigned char *b;
	int n, k;

	c->num = 0;
	c->s = NULL;
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		return 0;
	case SQLITE_INTEGER:
		c->num = 1;
		c->s = sqlite3_mprintf("%lld", (long long)sqlite3_column_int64(st, i));
		break;
	case SQLITE_FLOAT:
		c->num = 1;
		if (mode == NTP_MODE_CSV || mode == NTP_MODE_JSON || mode == NTP_MODE_JSONL)
			c->s = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, i));
		else
			c->s = sqlite3_mprintf("%.15g", sqlite3_column_double(st, i));
		break;
	case SQLITE_BLOB:
		b = sqlite3_column_blob(st, i);
		n = sqlite3_column_bytes(st, i);
		c->s = sqlite3_malloc64(2 * (sqlite3_uint64)n + 4);
		if (!c->s)
			return -1;
		c->s[0] = 'X';
		c->s[1] = '\'';
		for (k = 0; k < n; k++)
			sprintf(c->s + 2 + 2 * k, "%02x", b[k]);
		strcpy(c->s + 2 + 2 * n, "'");
		return 0;
	default:
		c->s = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, i));
		break;
	}
	return c->s ? 0 : -1;
}

/* Display width: UTF-8 code points (continuation bytes do not count). */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; s && *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* Write S with each control character (C0, DEL, C1: recorded text may
 * carry terminal escapes) as '?', but those in KEEP. */
static void put_clean(FILE *f, const char *s, const char *keep)
{
	while (s && *s) {
		int n = ntp_control_at(s);

		if (n && !(n == 1 && strchr(keep, *s)))
			fputc('?', f);
		else
			fwrite(s, 1, n ? (size_t)n : 1, f);
		s += n ? n : 1;
	}
}

char *ntp_clean_text(char *s)
{
	return ntp_clean_controls(s);
}

void ntp_put_text(FILE *f, const char *s)
{
	put_clean(f, s, "\n\t");
}

/* One cell or name of a text mode: on one line, no control character. */
static void put_cell(FILE *f, const char *s)
{
	put_clean(f, s, "");
}

static void pad(FILE *f, size_t n)
{
	while (n--)
		fputc(' ', f);
}

/* ---- CSV: RFC 4180, quoted as sqlite3 quotes ---- */

/* sqlite3's CSV mode quotes more fields than RFC 4180 requires (which
 * allows it): any with a space, an apostrophe, a control character or a
 * byte outside ASCII, and empty text, which then differs from NULL. Doing
 * the same makes the two programs' CSV byte-identical. */
static int csv_needs_quotes(const char *s)
{
	if (!*s)
		return 1;
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch <= ' ' || ch >= 0x7f || ch == '"' || ch == '\'' || ch == ',')
			return 1;
	}
	return 0;
}

/* One field; NULL is empty. Quotes are doubled; control characters other
 * than tab and LF (terminal escapes, C1 too, and CR, which would hide what
 * precedes it on a terminal) become '?'. */
static void csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!csv_needs_quotes(s)) {
		put_cell(f, s);
		return;
	}
	fputc('"', f);
	while (*s) {
		size_t n = strcspn(s, "\"");
		char *part = strndup(s, n);

		put_clean(f, part, "\t\n");
		free(part);
		s += n;
		if (*s == '"') {
			fputs("\"\"", f);
			s++;
		}
	}
	fputc('"', f);
}

static void csv_header(FILE *f, sqlite3_stmt *st, int ncol)
{
	int i;

	for (i = 0; i < ncol; i++) {
		if (i)
			fputc(',', f);
		csv_field(f, sqlite3_column_name(st, i));
	}
	fputs("\r\n", f);
}

static void csv_row(FILE *f, const struct cell *c, int ncol)
{
	int i;

	for (i = 0; i < ncol; i++) {
		if (i)
			fputc(',', f);
		csv_field(f, c[i].s);
	}
	fputs("\r\n", f);
}

/* ---- JSON ---- */

/* A value as JSON other than a string: the number, or null (SQL NULL, and
 * inf and nan, which are no JSON numbers); NULL for text. */
static const char *json_scalar(const struct cell *c)
{
	if (c->s && c->num && (isdigit((unsigned char)c->s[0]) ||
			       (c->s[0] == '-' && isdigit((unsigned char)c->s[1]))))
		return c->s;
	return !c->s || c->num ? "null" : NULL;
}

static void json_value(FILE *f, const struct cell *c)
{
	const char *t = json_scalar(c);

	if (t)
		fputs(t, f);
	else
		ntp_json_put_string(f, c->s);
}

int ntp_json_columns(struct ntp_json *w, sqlite3_stmt *st)
{
	struct cell c;

	for (int i = 0; i < sqlite3_column_count(st); i++) {
		if (cell_get(st, i, &c, NTP_MODE_JSON))
			return -1;
		ntp_json_name(w, sqlite3_column_name(st, i));
		if (json_scalar(&c))
			ntp_json_raw(w, json_scalar(&c));
		else
			ntp_json_string(w, c.s);
		sqlite3_free(c.s);
	}
	return 0;
}

int ntp_json_row(struct ntp_json *w, sqlite3_stmt *st)
{
	int rc;

	ntp_json_start_object(w);
	rc = ntp_json_columns(w, st);
	ntp_json_end_object(w);
	return rc;
}

/* One row as a JSON object: FIRST 1 opens json mode's array, 0 continues
 * it, -1 is the object alone (jsonl). */
static void json_row(FILE *f, sqlite3_stmt *st, const struct cell *c, int ncol, int first)
{
	int i;

	fputs(first < 0 ? "{" : first ? "[{" : ",\n{", f);
	for (i = 0; i < ncol; i++) {
		if (i)
			fputc(',', f);
		ntp_json_put_string(f, sqlite3_column_name(st, i));
		fputc(':', f);
		json_value(f, &c[i]);
	}
	fputc('}', f);
}

/* ---- line: `name = value`, names right-aligned ---- */

static void line_row(struct run *r, sqlite3_stmt *st, const struct cell *c, int ncol)
{
	size_t w = 0;
	int i;

	for (i = 0; i < ncol; i++)
		if (width(sqlite3_column_name(st, i)) > w)
			w = width(sqlite3_column_name(st, i));
	if (r->rows++)
		fputc('\n', r->o->f);
	for (i = 0; i < ncol; i++) {
		const char *name = sqlite3_column_name(st, i);

		pad(r->o->f, w - width(name));
		put_cell(r->o->f, name);
		fputs(" = ", r->o->f);
		put_cell(r->o->f, c[i].s);
		fputc('\n', r->o->f);
	}
}

/* ---- table: buffered, aligned ---- */

static void grid_free(struct grid *g)
{
	size_t i;

	for (i = 0; i < g->nrow * (size_t)g->ncol; i++)
		sqlite3_free(g->cells[i].s);
	free(g->cells);
	memset(g, 0, sizeof(*g));
}

/* Take over the row's cells; returns 0, or -1 when out of memory. */
static int grid_add(struct grid *g, struct cell *row)
{
	struct cell *n;

	if (g->nrow == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		n = realloc(g->cells, g->cap * g->ncol * sizeof(*n));
		if (!n)
			return -1;
		g->cells = n;
	}
	memcpy(g->cells + g->nrow * g->ncol, row, g->ncol * sizeof(*row));
	g->nrow++;
	return 0;
}

/* A column is numeric (right-aligned header) if every value in it is. */
static int grid_numeric(const struct grid *g, int col)
{
	size_t r;
	int any = 0;

	for (r = 0; r < g->nrow; r++) {
		const struct cell *c = &g->cells[r * g->ncol + col];

		if (c->s && !c->num)
			return 0;
		any |= c->num;
	}
	return any;
}

static void table_cell(FILE *f, const char *s, size_t w, int right, int last)
{
	size_t n = width(s);

	if (right)
		pad(f, w - n);
	put_cell(f, s);
	if (!right && !last)
		pad(f, w - n);
	fputs(last ? "\n" : "  ", f);
}

static void table_print(struct run *r, sqlite3_stmt *st, struct grid *g)
{
	FILE *f = r->o->f;
	size_t *w, row, k;
	int *num, i, last;

	w = calloc(g->ncol, sizeof(*w));
	num = calloc(g->ncol, sizeof(*num));
	if (!w || !num)
		goto out;
	for (i = 0; i < g->ncol; i++) {
		num[i] = grid_numeric(g, i);
		if (r->o->headers)
			w[i] = width(sqlite3_column_name(st, i));
		for (row = 0; row < g->nrow; row++)
			if (width(g->cells[row * g->ncol + i].s) > w[i])
				w[i] = width(g->cells[row * g->ncol + i].s);
	}
	if (r->results)
		fputc('\n', f);
	for (i = 0; r->o->headers && i < g->ncol; i++)
		table_cell(f, sqlite3_column_name(st, i), w[i], num[i], i == g->ncol - 1);
	for (i = 0; r->o->headers && i < g->ncol; i++) {
		for (k = 0; k < w[i]; k++)
			fputc('-', f);
		fputs(i == g->ncol - 1 ? "\n" : "  ", f);
	}
	for (row = 0; row < g->nrow; row++)
		for (i = 0; i < g->ncol; i++) {
			const struct cell *c = &g->cells[row * g->ncol + i];

			last = i == g->ncol - 1;
			table_cell(f, c->s, w[i], c->num, last);
		}
out:
	free(w);
	free(num);
}

/* ---- one statement ---- */

/* Print the current row in a streaming mode (csv, json, line). */
static void stream_row(struct run *r, sqlite3_stmt *st, struct cell *row, int ncol,
		       size_t nrow)
{
	FILE *f = r->o->f;

	switch (r->o->mode) {
	case NTP_MODE_CSV:
		if (!nrow && r->o->headers)
			csv_header(f, st, ncol);
		csv_row(f, row, ncol);
		break;
	case NTP_MODE_JSON:
		json_row(f, st, row, ncol, !nrow);
		break;
	case NTP_MODE_JSONL:
		/* json's object, alone on its line (JSON lines, ndjson) */
		json_row(f, st, row, ncol, -1);
		fputc('\n', f);
		break;
	default:
		line_row(r, st, row, ncol);
		break;
	}
}

/* End of a result set of NROW rows in a streaming mode. */
static void stream_end(struct run *r, size_t nrow)
{
	if (r->o->mode != NTP_MODE_JSON)
		return;
	fputs(nrow ? "]\n" : "[]\n", r->o->f);
}

/* Step through ST, printing its rows. Returns the final sqlite3_step code
 * (SQLITE_DONE on success) or SQLITE_NOMEM. */
static int run_stmt(struct run *r, sqlite3_stmt *st)
{
	int ncol = sqlite3_column_count(st), rc, i;
	struct grid g = { .ncol = ncol };
	struct cell *row;
	size_t nrow = 0;

	if (!ncol) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		return rc;
	}
	row = calloc(ncol, sizeof(*row));
	if (!row)
		return SQLITE_NOMEM;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < ncol; i++)
			if (cell_get(st, i, &row[i], r->o->mode))
				rc = SQLITE_NOMEM;
		if (rc == SQLITE_ROW && r->o->mode == NTP_MODE_TABLE) {
			if (grid_add(&g, row))
				rc = SQLITE_NOMEM;
			else
				memset(row, 0, ncol * sizeof(*row));
		} else if (rc == SQLITE_ROW) {
			stream_row(r, st, row, ncol, nrow);
		}
		for (i = 0; i < ncol; i++)
			sqlite3_free(row[i].s);
		if (rc != SQLITE_ROW)
			break;
		nrow++;
	}
	if (!nrow && rc == SQLITE_DONE && r->o->mode == NTP_MODE_CSV && r->o->headers &&
	    r->o->empty_header)
		csv_header(r->o->f, st, ncol);
	r->o->rows += nrow;
	if (r->o->mode == NTP_MODE_TABLE && rc == SQLITE_DONE && g.nrow)
		table_print(r, st, &g);
	else if (r->o->mode != NTP_MODE_TABLE)
		stream_end(r, nrow);
	if (nrow || r->o->mode == NTP_MODE_JSON)
		r->results++;
	grid_free(&g);
	free(row);
	return rc;
}

int ntp_out_query(struct ntp_out *o, sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	struct run r = { .o = o };
	const char *tail;
	sqlite3_stmt *st;
	int rc;

	while (sql && *sql) {
		st = NULL;
		if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
			set_err(err, errlen, sqlite3_errmsg(db));
			return -1;
		}
		sql = tail;
		if (!st)
			continue; /* whitespace or comments only */
		rc = run_stmt(&r, st);
		if (rc != SQLITE_DONE)
			set_err(err, errlen,
				rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE) {
			fflush(o->f);
			return -1;
		}
	}
	fflush(o->f);
	return 0;
}
