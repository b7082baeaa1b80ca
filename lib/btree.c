// SPDX-License-Identifier: BSD-2-Clause
/*
 * A rowid table's rows from its file's pages (lib/btree.h): SQLite's file
 * format (https://www.sqlite.org/fileformat2.html), sections 1.3 (the
 * header), 1.6 (b-tree pages) and 2.1 (the record format), the part of it
 * a table of integers uses.
 *
 * The pages are read through SQLite's own handle of the file (its
 * sqlite3_file's xRead: no descriptor of ours, so none of SQLite's locks
 * is lost by closing one). Levels of the tree are kept in a stack, one
 * page buffer each; a leaf's rows are read in cell order, then the next
 * child of the nearest level that has one.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifdef NTP_EXTENSION
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "btree.h"

/* Deeper than any table of 2^32 pages of 512 bytes. */
#define DEPTH 20

/* The table's columns a row may be read from: its first WANT. */
#define WANT 128

enum { PAGE_INTERIOR = 0x05, PAGE_LEAF = 0x0d };

struct level {
	uint32_t n;   /* cells */
	uint32_t idx; /* a leaf: the next cell; interior: the child below (n: the right one) */
	uint32_t hdr; /* the page header's size */
	int leaf;
};

struct ntp_btree {
	sqlite3_file *f;
	uint32_t psz, usable, npages, root;
	int ncol;
	int maxpos;        /* the last record column read */
	int want[WANT];     /* by record column: output column, -1 */
	int alias_pos;     /* the rowid alias's record column, or -1 */
	int alias_out;     /* its output column, or -1 */
	uint32_t dflt_null; /* output column i's default is NULL */
	int depth;         /* levels in use */
	int state;         /* NTP_BTREE_ROW while rows may follow, else DONE or NO */
	uint64_t loads, maxloads; /* pages read since the last seek, and the most */
	int64_t last;      /* the last rowid read */
	int have_last;
	struct level lv[DEPTH];
	uint8_t *buf;      /* DEPTH pages */
};

static uint32_t be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A varint at P, before E: its length, 0 where it does not fit. */
static int varint(const uint8_t *p, const uint8_t *e, uint64_t *v)
{
	ptrdiff_t n = e - p;
	uint64_t x = 0;

	for (int i = 0; i < 8; i++) {
		if (i >= n)
			return 0;
		x = x << 7 | (p[i] & 0x7f);
		if (!(p[i] & 0x80)) {
			*v = x;
			return i + 1;
		}
	}
	if (n < 9)
		return 0;
	*v = x << 8 | p[8];
	return 9;
}

static uint8_t *page(struct ntp_btree *b, int d)
{
	return b->buf + (size_t)d * b->psz;
}

/* Read page PGNO as level D. */
static int load(struct ntp_btree *b, int d, uint32_t pgno)
{
	uint8_t *p = page(b, d);
	struct level *l = &b->lv[d];

	if (d >= DEPTH || pgno < 2 || pgno > b->npages || ++b->loads > b->maxloads ||
	    b->f->pMethods->xRead(b->f, p, (int)b->psz, (sqlite3_int64)(pgno - 1) * b->psz) !=
		    SQLITE_OK)
		return NTP_BTREE_NO;
	if (p[0] != PAGE_INTERIOR && p[0] != PAGE_LEAF)
		return NTP_BTREE_NO;
	l->leaf = p[0] == PAGE_LEAF;
	l->hdr = l->leaf ? 8 : 12;
	l->n = be16(p + 3);
	l->idx = 0;
	if (l->hdr + 2 * l->n > b->usable)
		return NTP_BTREE_NO;
	return NTP_BTREE_ROW;
}

/* Cell I of level D: its start, NULL where it lies outside the page. */
static const uint8_t *cell(struct ntp_btree *b, int d, uint32_t i)
{
	const struct level *l = &b->lv[d];
	const uint8_t *p = page(b, d);
	uint32_t off = be16(p + l->hdr + 2 * i);

	return off < l->hdr + 2 * l->n || off >= b->usable ? NULL : p + off;
}

/* Interior level D's child I (the right one at n) and, for a cell, its key. */
static int child(struct ntp_btree *b, int d, uint32_t i, uint32_t *pgno, int64_t *key)
{
	const uint8_t *c, *e = page(b, d) + b->usable;
	uint64_t k;

	if (i == b->lv[d].n) {
		*pgno = be32(page(b, d) + 8);
		return NTP_BTREE_ROW;
	}
	if (!(c = cell(b, d, i)) || e - c < 5 || !varint(c + 4, e, &k))
		return NTP_BTREE_NO;
	*pgno = be32(c);
	*key = (int64_t)k;
	return NTP_BTREE_ROW;
}

/* Leaf level D's cell I: its rowid, and its record's bounds. */
static int leaf_cell(struct ntp_btree *b, int d, uint32_t i, int64_t *rowid, const uint8_t **rec,
		     const uint8_t **end)
{
	const uint8_t *c = cell(b, d, i), *e = page(b, d) + b->usable;
	uint64_t len, r;
	int k;

	if (!c || !(k = varint(c, e, &len)))
		return NTP_BTREE_NO;
	c += k;
	if (!(k = varint(c, e, &r)))
		return NTP_BTREE_NO;
	c += k;
	/* more than this spills to an overflow page, not read here */
	if (len > b->usable - 35 || len > (uint64_t)(e - c))
		return NTP_BTREE_NO;
	*rowid = (int64_t)r;
	*rec = c;
	*end = c + len;
	return NTP_BTREE_ROW;
}

/* Down from page PGNO as level D to a leaf: to each level's first child,
 * or, when SEEK, to the first that may hold a rowid >= MIN. */
static int descend(struct ntp_btree *b, int d, uint32_t pgno, int seek, int64_t min)
{
	for (;; d++) {
		struct level *l;
		uint32_t lo, hi;

		if (d >= DEPTH || load(b, d, pgno) != NTP_BTREE_ROW)
			return NTP_BTREE_NO;
		l = &b->lv[d];
		/* the first cell whose key (interior: the greatest rowid of
		 * its child) or rowid (a leaf) is >= MIN */
		lo = 0;
		hi = seek ? l->n : 0;
		while (lo < hi) {
			uint32_t m = lo + (hi - lo) / 2;
			const uint8_t *r, *e;
			uint32_t c;
			int64_t k;

			if ((l->leaf ? leaf_cell(b, d, m, &k, &r, &e) : child(b, d, m, &c, &k)) !=
			    NTP_BTREE_ROW)
				return NTP_BTREE_NO;
			if (k < min)
				lo = m + 1;
			else
				hi = m;
		}
		l->idx = lo;
		if (l->leaf) {
			b->depth = d + 1;
			return NTP_BTREE_ROW;
		}
		{
			int64_t k;

			if (child(b, d, lo, &pgno, &k) != NTP_BTREE_ROW)
				return NTP_BTREE_NO;
		}
	}
}

static int no(struct ntp_btree *b)
{
	b->state = NTP_BTREE_NO;
	b->depth = 0;
	return NTP_BTREE_NO;
}

int ntp_btree_seek(struct ntp_btree *b, int64_t min)
{
	b->loads = 0;
	b->maxloads = (uint64_t)b->npages + DEPTH;
	b->have_last = 0;
	b->state = NTP_BTREE_ROW;
	if (descend(b, 0, b->root, 1, min) != NTP_BTREE_ROW)
		return no(b);
	return NTP_BTREE_DONE;
}

/* The size of a value of serial type ST, -1 for the reserved types. */
static int64_t value_size(uint64_t st)
{
	static const int8_t small[12] = { 0, 1, 2, 3, 4, 6, 8, 8, 0, 0, -1, -1 };

	return st >= 12 ? (int64_t)((st - 12) / 2) : small[st];
}

/* The record REC..END of rowid ROWID into V and *NULL: its header read
 * whole, and its values ending where the record does, as SQLite requires
 * of a record it reads. */
static int decode(struct ntp_btree *b, int64_t rowid, const uint8_t *rec, const uint8_t *end,
		  int64_t *v, uint32_t *null)
{
	const uint8_t *h, *hend, *data;
	uint64_t hs, st;
	int k, pos;

	if (!(k = varint(rec, end, &hs)) || hs <= (uint64_t)k || hs > (uint64_t)(end - rec))
		return NTP_BTREE_NO;
	h = rec + k;
	hend = data = rec + hs;
	*null = 0;
	for (pos = 0; h < hend; pos++) {
		int64_t size;
		int o = pos <= b->maxpos ? b->want[pos] : -1;

		if (!(k = varint(h, hend, &st)) || (size = value_size(st)) < 0 ||
		    size > end - data)
			return NTP_BTREE_NO;
		h += k;
		if (pos == b->alias_pos && st != 0)
			return NTP_BTREE_NO; /* an alias's place holds NULL */
		if (o >= 0) {
			uint64_t u = 0;

			if (st == 0) {
				v[o] = 0;
				*null |= 1u << o;
			} else if (st <= 6) {
				for (int64_t i = 0; i < size; i++)
					u = u << 8 | data[i];
				/* sign-extended from its size */
				v[o] = size == 8 ? (int64_t)u
						 : (int64_t)(u << (64 - 8 * size)) >> (64 - 8 * size);
			} else if (st == 8 || st == 9) {
				v[o] = st == 9;
			} else {
				return NTP_BTREE_NO; /* a real, text or blob: SQLite says what */
			}
		}
		data += size;
	}
	if (data != end)
		return NTP_BTREE_NO;
	/* a record shorter than the table (a column added since) reads the
	 * columns it lacks as their defaults */
	for (; pos <= b->maxpos; pos++) {
		int o = b->want[pos];

		if (o < 0)
			continue;
		if (!(b->dflt_null >> o & 1))
			return NTP_BTREE_NO;
		v[o] = 0;
		*null |= 1u << o;
	}
	if (b->alias_out >= 0)
		v[b->alias_out] = rowid;
	return NTP_BTREE_ROW;
}

int ntp_btree_next(struct ntp_btree *b, int64_t *v, uint32_t *null)
{
	while (b->state == NTP_BTREE_ROW) {
		struct level *l = &b->lv[b->depth - 1];
		int d;

		if (l->idx < l->n) {
			const uint8_t *rec, *end;
			int64_t rowid;

			if (leaf_cell(b, b->depth - 1, l->idx, &rowid, &rec, &end) != NTP_BTREE_ROW ||
			    (b->have_last && rowid <= b->last) ||
			    decode(b, rowid, rec, end, v, null) != NTP_BTREE_ROW)
				return no(b);
			l->idx++;
			b->last = rowid;
			b->have_last = 1;
			return NTP_BTREE_ROW;
		}
		/* the nearest level above with a child left */
		for (d = b->depth - 2; d >= 0 && b->lv[d].idx >= b->lv[d].n; d--)
			;
		if (d < 0) {
			b->state = NTP_BTREE_DONE;
			break;
		}
		{
			uint32_t pgno;
			int64_t k;

			b->lv[d].idx++;
			if (child(b, d, b->lv[d].idx, &pgno, &k) != NTP_BTREE_ROW ||
			    descend(b, d + 1, pgno, 0, 0) != NTP_BTREE_ROW)
				return no(b);
		}
	}
	return b->state;
}

/* The one integer of SQL (with ?1 TABLE and, where it has it, ?2 SCHEMA)
 * into *V: 0, or -1. */
static int one_int(sqlite3 *db, const char *sql, const char *table, const char *schema,
		   int64_t *v, int *nomem)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL), n = 0;

	*nomem = rc == SQLITE_NOMEM;
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			if (sqlite3_column_type(st, 0) == SQLITE_INTEGER && n++ == 0)
				*v = sqlite3_column_int64(st, 0);
			else
				n = 2;
		*nomem = rc == SQLITE_NOMEM;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE && n == 1 ? 0 : -1;
}

/* Its columns: the record's order, the alias, the wanted ones. 0, or -1
 * where the table is not one read here. */
static int columns(struct ntp_btree *b, sqlite3 *db, const char *schema, const char *table,
		   const char *const *cols, int *nomem)
{
	sqlite3_stmt *st = NULL;
	int64_t pkidx;
	int rc, alias = -1, npk = 0, seen = 0, dup = 0, found[NTP_BTREE_MAX_COLS] = { 0 };

	/* an INTEGER PRIMARY KEY with an index of its own (DESC, or one of
	 * several) is a column like another, stored in the record */
	if (one_int(db, "SELECT count(*) FROM pragma_index_list(?1, ?2) WHERE origin = 'pk'",
		    table, schema, &pkidx, nomem))
		return -1;
	rc = sqlite3_prepare_v2(db,
				"SELECT cid, name, upper(type) = 'INTEGER', pk, hidden, "
				"dflt_value IS NULL, instr(upper(type), 'INT') > 0 "
				"FROM pragma_table_xinfo(?1, ?2) ORDER BY cid",
				-1, &st, NULL);
	*nomem = rc == SQLITE_NOMEM;
	if (rc != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int cid = sqlite3_column_int(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);

		/* hidden or generated columns are not in the record's places */
		if (cid != seen++ || !name || sqlite3_column_int(st, 4) != 0)
			break;
		if (sqlite3_column_int(st, 3) > 0) {
			npk++;
			if (sqlite3_column_int(st, 2))
				alias = cid;
		}
		for (int i = 0; i < b->ncol; i++)
			if (!sqlite3_stricmp(name, cols[i])) {
				/* once each (a second name of it finds it taken),
				 * within WANT, of INTEGER affinity (a REAL column's
				 * integer reads as a real) */
				if (cid >= WANT || b->want[cid] >= 0 ||
				    !sqlite3_column_int(st, 6)) {
					dup = 1;
					break;
				}
				found[i] = 1;
				b->want[cid] = i;
				if (sqlite3_column_int(st, 5))
					b->dflt_null |= 1u << i;
				if (cid > b->maxpos)
					b->maxpos = cid;
			}
	}
	*nomem = *nomem || rc == SQLITE_NOMEM;
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE || seen == 0 || dup)
		return -1;
	if (npk == 1 && pkidx == 0 && alias >= 0) {
		b->alias_pos = alias;
		b->alias_out = b->want[alias];
		b->want[alias] = -1;
	}
	for (int i = 0; i < b->ncol; i++)
		if (!found[i])
			return -1;
	return 0;
}

int ntp_btree_open(sqlite3 *db, const char *schema, const char *table, int ncol,
		   const char *const *cols, struct ntp_btree **out)
{
	struct ntp_btree *b;
	sqlite3_file *f = NULL;
	sqlite3_int64 size;
	uint32_t psz;
	uint8_t h[100];
	int64_t root;
	int nomem = 0;
	char *sql;

	*out = NULL;
	if (ncol < 1 || ncol > NTP_BTREE_MAX_COLS ||
	    sqlite3_file_control(db, schema, SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK || !f ||
	    !f->pMethods || f->pMethods->xRead(f, h, sizeof(h), 0) != SQLITE_OK ||
	    f->pMethods->xFileSize(f, &size) != SQLITE_OK)
		return SQLITE_OK;
	/* rollback-journal mode only (1, 1): a WAL file's pages may be in
	 * its log */
	if (memcmp(h, "SQLite format 3", 16) || h[18] != 1 || h[19] != 1)
		return SQLITE_OK;
	/* a page size SQLite writes (a power of two from 512), at least 480
	 * bytes of it usable */
	psz = be16(h + 16) == 1 ? 65536 : be16(h + 16);
	if (psz < 512 || (psz & (psz - 1)) || psz - h[20] < 480)
		return SQLITE_OK;
	/* the file does not change while it is read: SQLite's page cache and
	 * locks are passed by, which only a file opened immutable allows */
	if (!sqlite3_uri_boolean(sqlite3_db_filename(db, schema), "immutable", 0))
		return SQLITE_OK;
	if (!(b = sqlite3_malloc(sizeof(*b))))
		return SQLITE_NOMEM;
	memset(b, 0, sizeof(*b));
	b->f = f;
	b->psz = psz;
	b->usable = psz - h[20];
	/* the pages there are: the header's count where it is valid (its
	 * version-valid-for number is the change counter's), never more than
	 * the file holds */
	b->npages = (uint64_t)size / psz > UINT32_MAX ? UINT32_MAX : (uint32_t)(size / psz);
	if (be32(h + 92) == be32(h + 24) && be32(h + 28) && be32(h + 28) < b->npages)
		b->npages = be32(h + 28);
	b->ncol = ncol;
	b->alias_pos = b->alias_out = -1;
	b->maxpos = -1;
	for (size_t i = 0; i < sizeof(b->want) / sizeof(b->want[0]); i++)
		b->want[i] = -1;
	sql = sqlite3_mprintf("SELECT rootpage FROM \"%w\".sqlite_schema "
			      "WHERE type = 'table' AND name = ?1",
			      schema);
	if (!sql) {
		nomem = 1;
	} else if (!one_int(db, sql, table, schema, &root, &nomem) && root >= 2 &&
		   root <= b->npages && !columns(b, db, schema, table, cols, &nomem)) {
		/* the table's root inside the file */
		if (!(b->buf = sqlite3_malloc64((sqlite3_uint64)DEPTH * b->psz))) {
			nomem = 1;
		} else {
			b->root = (uint32_t)root;
			b->state = NTP_BTREE_NO; /* until a seek */
			*out = b;
			b = NULL;
		}
	}
	sqlite3_free(sql);
	ntp_btree_close(b);
	return nomem ? SQLITE_NOMEM : SQLITE_OK;
}

int ntp_btree_rowid_column(const struct ntp_btree *b)
{
	return b->alias_out;
}

void ntp_btree_close(struct ntp_btree *b)
{
	if (!b)
		return;
	sqlite3_free(b->buf);
	sqlite3_free(b);
}
