// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntp_pair: the join's pairing (sql/join.sql, step 3) as one merge of two
 * ordered scans, a table-valued function the native form of ntp_joined
 * reads (sql/prelude.sql, the ntp_joined_native arm).
 *
 * The portable arm finds each host command's target record by range seeks
 * into the target's ntp_cmd_span, a view that computes every component for
 * every record it passes, three times per host command, and computes the
 * host's send time again in each of its windows. Here the host's commands
 * and the target's records are each read once, in t order (the rowid), and
 * the target's records of the current host command's window are kept in
 * memory. For each host command and each group pair of its group (GP's
 * rows, in their order), as the pair arm's hx and hm compute them:
 *
 *   off   = mono_off - drift_ppb * (sent_ns - host_mono) / 1000000000
 *   shift = mono_shift - drift_ppb * (sent_ns - host_mono) / 1000000000
 *   a. the first record of the command's identity with t in
 *      [sent_ns + shift - 20000, sent_ns + wait_ns + shift + 20000] and
 *      |(xmid - off) - (sent_ns + wait_ns / 2)| <= wait_ns / 2 + 1000;
 *   b. else the only record of that identity with t in
 *      [sent_ns + shift - w, sent_ns + wait_ns + shift + w] (w: window_ns),
 *      when COUNT finds no other host command of it with t in
 *      [t - 2 w - wait_ns, t + 2 w + wait_ns].
 *
 * Integer arithmetic as SQLite's (division truncates, NULL propagates); a
 * result that overflows 64 bits, which SQLite would turn into a REAL, is
 * an error here rather than a different pairing (the SQL join then fails
 * too, on "integer overflow" in its sums: tests/test_stats.c).
 *
 * Arguments (SQL text, each a read-only SELECT):
 *   GP:     hgrp, tgrp, mono_off, mono_shift, drift_ppb, host_mono,
 *           window_ns: the group pairs (_ntp_grp_pair) of the host and
 *           target;
 *   HOST:   the host's cmd rows as stored: t, grp, qid, cid, slba,
 *           meta's mono_start, then the host's points in ABI order
 *           (h_start ... h_end), in the order the pairs are to come out,
 *           ?1 (where it has one) the least t wanted;
 *   TARGET: the target's, the same way (t_rx ... t_free), ordered by t,
 *           ?1 the least t wanted;
 *   COUNT:  one row, one count, of the host commands of identity ?3..?6
 *           (grp, qid, cid, slba) with t between ?1 and ?2;
 *   DIRECT: optional; 1 says that HOST's and TARGET's rows are every row of
 *           their cmd from t = ?1 on, in t order, each with its meta's one
 *           row: then each side whose query has ?1 and whose columns are
 *           cmd's (t its rowid) and meta's mono_start
 *           (sqlite3_column_origin_name) is read from its file's pages
 *           (lib/btree.c), at about a fifth of the cost of SQLite's calls,
 *           and through its query from wherever the pages cannot be read.
 *           The column src says which rows were: bit 0 the host's, bit 1
 *           the target's. tests/test_stats.c compares both ways.
 * Every value is an integer or NULL, as ntprof writes them: anything else
 * is an error ("impossible values"), never a guess. Each side's per-command
 * values (sent_ns, wait_ns, the components) are its ntp_cmd_span's,
 * computed here from the stored points (lib/span.c) rather than read
 * through the view, which cost more than reading cmd. Rows: ht, tt, grp,
 * off, hmid (sent_ns + wait_ns / 2), xmid (rx_ns + t_e2e / 2, the middle on
 * the target's clock), the host's values of host_pass below and the
 * target's of target_pass, each named as its ntp_cmd_span column, and
 * wire (h_wait - (t_e2e - ifnull(t_data_wait, 0)), as SQL computes it),
 * for each host command that paired, in the host's order.
 * tests/test_stats.c compares them with the pair arm's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef NTP_EXTENSION
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#else
#include <sqlite3.h>
#endif

#include "btree.h"
#include "native.h"
#include "ntprof_abi.h"
#include "span.h"

/* Room for the values passed through per side (struct prow). */
#define NTP_PAIR_PASS 10

/* The ntp_cmd_span columns passed through, the host's and the target's:
 * the vtab's columns of their names. */
static const int host_pass[] = {
	NTP_SPAN_host_h_blk_sub, NTP_SPAN_host_h_drv_sub, NTP_SPAN_host_h_r2t,
	NTP_SPAN_host_h_wait, NTP_SPAN_host_h_rx_path, NTP_SPAN_host_h_drv_cpl,
	NTP_SPAN_host_h_blk_cpl, NTP_SPAN_host_h_handoff, NTP_SPAN_host_e2e,
};
static const int target_pass[] = {
	NTP_SPAN_target_t_e2e, NTP_SPAN_target_t_data_wait, NTP_SPAN_target_t_rx_path,
	NTP_SPAN_target_t_drv_sub, NTP_SPAN_target_t_storage, NTP_SPAN_target_t_drv_cpl,
};
#define NPASS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Columns of the host's rows before the passed values, of the group pairs,
 * and of a host command paired with one group pair (struct pair_cur's
 * host: the passed values follow), and of the target's rows. */
enum { R_T, R_GRP, R_QID, R_CID, R_SLBA, R_SENT, R_WAIT, R_KEYS };
enum { G_HGRP, G_TGRP, G_MONO_OFF, G_MONO_SHIFT, G_DRIFT, G_HOST_MONO, G_WINDOW, G_N };
enum { H_T, H_GRP, H_TGRP, H_QID, H_CID, H_SLBA, H_ALO, H_AHI, H_BLO, H_BHI, H_OFF, H_HMID,
       H_TOL, H_CLO, H_CHI, H_KEYS };
enum { X_T, X_GRP, X_QID, X_CID, X_SLBA, X_MID, X_KEYS };

/* A host command's and a target record's values as pair.c keeps them:
 * R_* then host_pass, X_* then target_pass. */
#define NH (R_KEYS + NPASS(host_pass))
#define NX (X_KEYS + NPASS(target_pass))

/* A stored row's columns: the identity (as R_ and X_ above), mono_start,
 * then the points. */
enum { S_MONO = 5, S_POINTS };
_Static_assert(R_T == 0 && R_SLBA == 4 && (int)R_SENT == (int)S_MONO && X_T == 0 && X_SLBA == 4 &&
	       (int)X_MID == (int)S_MONO, "a stored row's identity is in the places of R_* and X_*");
_Static_assert(S_POINTS + NTP_MAX_POINTS <= H_KEYS + NTP_PAIR_PASS &&
	       NPASS(host_pass) <= NTP_PAIR_PASS && NPASS(target_pass) <= NTP_PAIR_PASS,
	       "struct prow holds a stored row and the values passed");

/* The vtab's columns: host_pass's from C_H0, target_pass's from C_X0. */
enum { C_HT, C_TT, C_GRP, C_OFF, C_HMID, C_XMID, C_H0, C_X0 = C_H0 + NPASS(host_pass),
       C_WIRE = C_X0 + NPASS(target_pass), C_SRC, C_GQ, C_HQ, C_TQ, C_CQ, C_DQ, C_HN, C_TN,
       C_N };

/* One row of either side: its integers, and which are NULL. */
struct prow {
	int64_t v[H_KEYS + NTP_PAIR_PASS];
	uint32_t null; /* bit i: v[i] is NULL */
	int direct;    /* read from the file's pages */
};

/* One side's stored rows: from its file's pages while they can be read
 * (bt), else through its query (st, from t = ?1). */
struct side {
	sqlite3_stmt *st;
	struct ntp_btree *bt;
	int col[S_POINTS + NTP_MAX_POINTS]; /* bt's column of each of st's, -1:
					     * mono_start */
	int64_t mono;                       /* meta's mono_start */
	int mono_null;
	int64_t from;                       /* the scan's least t */
	int64_t last;                       /* the last t read directly */
	int have_last;
};

struct pair_vtab {
	sqlite3_vtab base;
	sqlite3 *db;
	const char *name;    /* the module's, which begins its errors */
	struct ntp_tap *tap; /* the connection's (lib/native.c) */
	int wire[3];                /* h_wait's index in host_pass, t_e2e's and
				     * t_data_wait's in target_pass */
};

/* The module's name, for its cursor C's errors. */
#define VT_NAME(c) (((struct pair_vtab *)(c)->base.pVtab)->name)

struct pair_cur {
	sqlite3_vtab_cursor base;
	struct side h, x;            /* the host's and the target's */
	sqlite3_stmt *c;             /* the count */
	struct prow *gp;             /* the group pairs */
	size_t ngp, gi;              /* how many; the next for the host command */
	struct prow stored;          /* a row as read */
	struct prow raw;             /* the current host command (R_*) */
	int have_raw;                /* raw is one whose group pairs remain */
	struct prow host;            /* it with group pair gi - 1 (H_*) */
	struct prow *buf;            /* target records, t ascending */
	size_t first, len, cap;      /* buf[first..len) are live */
	int64_t from;                /* every record with t >= from up to the last
				      * read is in buf */
	int x_eof;                   /* the target's scan reached its end */
	int have_from;               /* from is set (a scan is under way) */
	struct prow out_x;           /* the current host command's record */
	int eof;
	sqlite3_int64 rowid;
	struct ntp_tap_feed *feed;   /* the tap this scan feeds, if armed */
};

static int isnull(const struct prow *r, int i)
{
	return (r->null >> i) & 1;
}

/* Read N columns of ST, WHAT's row, into R: integers or NULL, else an
 * error. */
static int read_row(struct pair_cur *c, sqlite3_stmt *st, const char *what, int n,
		    struct prow *r)
{
	r->null = 0;
	for (int i = 0; i < n; i++) {
		/* one call into the statement per column: the value's own
		 * accessors cost less than sqlite3_column_int64's */
		sqlite3_value *v = sqlite3_column_value(st, i);

		switch (sqlite3_value_type(v)) {
		case SQLITE_INTEGER:
			r->v[i] = sqlite3_value_int64(v);
			break;
		case SQLITE_NULL:
			r->v[i] = 0;
			r->null |= 1u << i;
			break;
		default:
			sqlite3_free(c->base.pVtab->zErrMsg);
			c->base.pVtab->zErrMsg = sqlite3_mprintf(
				"%s: the %s's %s is not an integer (t %lld): impossible "
				"values (refusing a changed database)", VT_NAME(c), what,
				sqlite3_column_name(st, i),
				(long long)sqlite3_column_int64(st, 0));
			return SQLITE_ERROR;
		}
	}
	return SQLITE_OK;
}

static int step_error(struct pair_cur *c, sqlite3_stmt *st)
{
	sqlite3 *db = sqlite3_db_handle(st);

	sqlite3_free(c->base.pVtab->zErrMsg);
	c->base.pVtab->zErrMsg = sqlite3_mprintf("%s: %s", VT_NAME(c), sqlite3_errmsg(db));
	return SQLITE_ERROR;
}

static int overflow(struct pair_cur *c, const char *what, const struct prow *r)
{
	sqlite3_free(c->base.pVtab->zErrMsg);
	c->base.pVtab->zErrMsg = sqlite3_mprintf(
		"%s: %s t %lld: its times overflow 64 bits: impossible values", VT_NAME(c), what,
		(long long)r->v[R_T]);
	return SQLITE_ERROR;
}

/* Column COL of the span IN into OUT's value I. */
static int span_set(const struct ntp_span_in *in, int col, struct prow *out, int i)
{
	int null;

	if (ntp_span_value(col, in, &out->v[i], &null))
		return -1;
	if (null)
		out->null |= 1u << i;
	return 0;
}

/* Its next stored row into c->stored: SQLITE_ROW, SQLITE_DONE or an
 * error. */
static int side_step(struct pair_cur *c, struct side *sd, const char *what, int n)
{
	struct prow *r = &c->stored;
	int rc;

	if (sd->bt) {
		int64_t v[NTP_BTREE_MAX_COLS];
		uint32_t null;

		rc = ntp_btree_next(sd->bt, v, &null);
		if (rc == NTP_BTREE_ROW) {
			r->null = 0;
			for (int i = 0; i < n; i++) {
				int j = sd->col[i];

				r->v[i] = j < 0 ? sd->mono : v[j];
				if (j < 0 ? sd->mono_null : (int)(null >> j & 1))
					r->null |= 1u << i;
			}
			r->direct = 1;
			sd->last = r->v[R_T];
			sd->have_last = 1;
			return SQLITE_ROW;
		}
		if (rc == NTP_BTREE_DONE)
			return SQLITE_DONE;
		/* from here on through the query, from the row after the
		 * last read */
		ntp_btree_close(sd->bt);
		sd->bt = NULL;
		if (sd->have_last) {
			if (sd->last == INT64_MAX)
				return SQLITE_DONE;
			sd->from = sd->last + 1;
		}
		sqlite3_reset(sd->st);
		/* side_direct saw ?1 */
		if ((rc = sqlite3_bind_int64(sd->st, 1, sd->from)) != SQLITE_OK)
			return rc;
	}
	rc = sqlite3_step(sd->st);
	if (rc == SQLITE_DONE)
		return rc;
	if (rc != SQLITE_ROW)
		return step_error(c, sd->st);
	rc = read_row(c, sd->st, what, n, r);
	r->direct = 0;
	return rc == SQLITE_OK ? SQLITE_ROW : rc;
}

/* Start SD's scan (again) at t >= FROM. */
static int side_seek(struct side *sd, int64_t from)
{
	sd->from = from;
	sd->have_last = 0;
	if (sd->bt && ntp_btree_seek(sd->bt, from) != NTP_BTREE_DONE) {
		ntp_btree_close(sd->bt);
		sd->bt = NULL;
	}
	if (sd->bt)
		return SQLITE_OK;
	sqlite3_reset(sd->st);
	/* a query without ?1 is read from its start (the host's, once) */
	return sqlite3_bind_parameter_count(sd->st) ? sqlite3_bind_int64(sd->st, 1, from) : SQLITE_OK;
}

/* The stored row R of NPOINTS points as lib/span.c takes it. */
static void span_in(const struct prow *r, int npoints, struct ntp_span_in *in)
{
	in->mono_start = r->v[S_MONO];
	in->mono_null = isnull(r, S_MONO);
	in->t = r->v[R_T];
	in->null = r->null >> S_POINTS;
	for (int i = 0; i < npoints; i++)
		in->point[i] = r->v[S_POINTS + i];
}

/* Read the next row of SD, the host's (HOST) or the target's cmd as
 * stored, and put its identity and values into OUT: the host's as R_*,
 * then host_pass; the target's as X_*, then target_pass. SQLITE_ROW,
 * SQLITE_DONE or an error. */
static int read_stored(struct pair_cur *c, struct side *sd, int host, struct prow *out)
{
	const struct prow *r = &c->stored;
	int npoints = host ? NTP_H_NPOINTS : NTP_T_NPOINTS;
	const int *pass = host ? host_pass : target_pass;
	int npass = host ? NPASS(host_pass) : NPASS(target_pass);
	int at = host ? R_KEYS : X_KEYS;
	struct ntp_span_in in;
	int rc = side_step(c, sd, host ? "host" : "target", S_POINTS + npoints);

	if (rc != SQLITE_ROW)
		return rc;
	span_in(r, npoints, &in);
	/* the identity: the same places in the stored row and in OUT */
	out->null = r->null & ((1u << R_SENT) - 1);
	out->direct = r->direct;
	for (int i = 0; i < R_SENT; i++)
		out->v[i] = r->v[i];
	for (int i = 0; i < npass; i++)
		if (span_set(&in, pass[i], out, at + i))
			return overflow(c, host ? "host command" : "target record", r);
	if (host) {
		if (span_set(&in, NTP_SPAN_host_sent_ns, out, R_SENT) ||
		    span_set(&in, NTP_SPAN_host_wait_ns, out, R_WAIT))
			return overflow(c, "host command", r);
	} else {
		/* the middle on the target's clock: rx_ns + t_e2e / 2, t_e2e
		 * being target_pass[0] (a sum: never NULL) */
		int64_t rx;
		int null;

		if (ntp_span_value(NTP_SPAN_target_rx_ns, &in, &rx, &null))
			return overflow(c, "target record", r);
		if (null)
			out->null |= 1u << X_MID;
		else if (__builtin_add_overflow(rx, out->v[X_KEYS] / 2, &out->v[X_MID]))
			return overflow(c, "target record", r);
	}
	return SQLITE_ROW;
}

/* Start the target's scan again at t >= FROM, with nothing buffered. */
static int target_seek(struct pair_cur *c, int64_t from)
{
	c->first = c->len = 0;
	c->from = from;
	c->have_from = 1;
	c->x_eof = 0;
	return side_seek(&c->x, from);
}

/* Make buf hold every target record with t in [LO, HI]. */
static int target_cover(struct pair_cur *c, int64_t lo, int64_t hi)
{
	int rc;

	if (!c->have_from || lo < c->from) {
		rc = target_seek(c, lo);
		if (rc != SQLITE_OK)
			return rc;
	}
	/* drop what lies before LO (a later command's window seldom reaches
	 * further back; when one does, the scan restarts there) */
	while (c->first < c->len && c->buf[c->first].v[X_T] < lo)
		c->first++;
	if (lo > c->from)
		c->from = lo;
	if (c->first == c->len)
		c->first = c->len = 0;
	else if (c->first > 4096 && c->first * 2 > c->len) {
		memmove(c->buf, c->buf + c->first, (c->len - c->first) * sizeof(*c->buf));
		c->len -= c->first;
		c->first = 0;
	}
	while (!c->x_eof && (c->len == c->first || c->buf[c->len - 1].v[X_T] <= hi)) {
		if (c->len == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 256;
			struct prow *b = sqlite3_realloc64(c->buf, cap * sizeof(*b));

			if (!b)
				return SQLITE_NOMEM;
			c->buf = b;
			c->cap = cap;
		}
		rc = read_stored(c, &c->x, 0, &c->buf[c->len]);
		if (rc == SQLITE_DONE) {
			c->x_eof = 1;
			break;
		}
		if (rc != SQLITE_ROW)
			return rc;
		if (!isnull(&c->buf[c->len], X_T) && c->buf[c->len].v[X_T] >= lo)
			c->len++;
	}
	return SQLITE_OK;
}

/* The record has the host command's identity: its group (the target's
 * group paired with the host's), queue, command id and LBA. */
static int same_identity(const struct prow *h, const struct prow *x)
{
	static const int hk[] = { H_TGRP, H_QID, H_CID, H_SLBA };
	static const int xk[] = { X_GRP, X_QID, X_CID, X_SLBA };

	for (size_t i = 0; i < sizeof(hk) / sizeof(hk[0]); i++)
		if (isnull(h, hk[i]) || isnull(x, xk[i]) || h->v[hk[i]] != x->v[xk[i]])
			return 0;
	return 1;
}

/* Rule a's test of the middles: |(xmid - off) - hmid| <= tol, where
 * integer overflow (which SQL would turn into a REAL far off) fails. */
static int mid_inside(const struct prow *h, const struct prow *x)
{
	int64_t d;

	if (isnull(x, X_MID) || isnull(h, H_OFF) || isnull(h, H_HMID) || isnull(h, H_TOL))
		return 0;
	if (__builtin_sub_overflow(x->v[X_MID], h->v[H_OFF], &d) ||
	    __builtin_sub_overflow(d, h->v[H_HMID], &d) || d == INT64_MIN)
		return 0;
	return (d < 0 ? -d : d) <= h->v[H_TOL];
}

/* Index of the first live record with t >= LO. */
static size_t lower_bound(const struct pair_cur *c, int64_t lo)
{
	size_t a = c->first, b = c->len;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (c->buf[m].v[X_T] < lo)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* The host's other commands of this one's identity in [c_lo, c_hi]: 1
 * when it is alone there. */
static int host_alone(struct pair_cur *c, int *alone)
{
	const struct prow *h = &c->host;
	static const int k[] = { H_CLO, H_CHI, H_GRP, H_QID, H_CID, H_SLBA };
	int rc;

	*alone = 0;
	sqlite3_reset(c->c);
	for (int i = 0; i < 6; i++)
		if (isnull(h, k[i]))
			return SQLITE_OK; /* a NULL bound or key: nothing is between */
		else
			sqlite3_bind_int64(c->c, i + 1, h->v[k[i]]);
	rc = sqlite3_step(c->c);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? SQLITE_OK : step_error(c, c->c);
	*alone = sqlite3_column_type(c->c, 0) == SQLITE_INTEGER &&
		 sqlite3_column_int64(c->c, 0) == 1;
	sqlite3_reset(c->c);
	return SQLITE_OK;
}

/* The current host command's record by rules a and b, or NULL. */
static int pair_one(struct pair_cur *c, const struct prow **out)
{
	const struct prow *h = &c->host, *only = NULL;
	int a = !isnull(h, H_ALO) && !isnull(h, H_AHI);
	int b = !isnull(h, H_BLO) && !isnull(h, H_BHI);
	int64_t lo, hi;
	int rc, n = 0, alone;

	*out = NULL;
	if (!a && !b)
		return SQLITE_OK;
	lo = a && b ? (h->v[H_ALO] < h->v[H_BLO] ? h->v[H_ALO] : h->v[H_BLO])
		    : a ? h->v[H_ALO] : h->v[H_BLO];
	hi = a && b ? (h->v[H_AHI] > h->v[H_BHI] ? h->v[H_AHI] : h->v[H_BHI])
		    : a ? h->v[H_AHI] : h->v[H_BHI];
	if (lo > hi)
		return SQLITE_OK;
	rc = target_cover(c, lo, hi);
	if (rc != SQLITE_OK)
		return rc;
	if (a)
		for (size_t i = lower_bound(c, h->v[H_ALO]);
		     i < c->len && c->buf[i].v[X_T] <= h->v[H_AHI]; i++)
			if (same_identity(h, &c->buf[i]) && mid_inside(h, &c->buf[i])) {
				*out = &c->buf[i];
				return SQLITE_OK;
			}
	if (!b)
		return SQLITE_OK;
	for (size_t i = lower_bound(c, h->v[H_BLO]);
	     i < c->len && c->buf[i].v[X_T] <= h->v[H_BHI]; i++)
		if (same_identity(h, &c->buf[i])) {
			only = &c->buf[i];
			n++;
		}
	if (n != 1)
		return SQLITE_OK;
	rc = host_alone(c, &alone);
	if (rc == SQLITE_OK && alone)
		*out = only;
	return rc;
}

/* A nullable integer, and SQLite's integer arithmetic on it (NULL in,
 * NULL out); *OVER is set when a result does not fit 64 bits. */
struct nint {
	int64_t v;
	int null;
};

static struct nint nget(const struct prow *r, int i)
{
	return (struct nint){ r->v[i], isnull(r, i) };
}

static struct nint nadd(struct nint a, struct nint b, int *over)
{
	struct nint r = { 0, a.null || b.null };

	if (!r.null && __builtin_add_overflow(a.v, b.v, &r.v))
		*over = 1;
	return r;
}

static struct nint nsub(struct nint a, struct nint b, int *over)
{
	struct nint r = { 0, a.null || b.null };

	if (!r.null && __builtin_sub_overflow(a.v, b.v, &r.v))
		*over = 1;
	return r;
}

static struct nint nmul(struct nint a, struct nint b, int *over)
{
	struct nint r = { 0, a.null || b.null };

	if (!r.null && __builtin_mul_overflow(a.v, b.v, &r.v))
		*over = 1;
	return r;
}

/* By a positive constant: truncated, as SQLite's integer division. */
static struct nint ndiv(struct nint a, int64_t k)
{
	return (struct nint){ a.null ? 0 : a.v / k, a.null };
}

static struct nint nk(int64_t v)
{
	return (struct nint){ v, 0 };
}

static void nset(struct prow *r, int i, struct nint v)
{
	r->v[i] = v.v;
	if (v.null)
		r->null |= 1u << i;
}

/* c->host: host command c->raw with group pair G, as the pair arm's hx
 * and hm compute its windows (the formulas at the top of this file). */
static int derive(struct pair_cur *c, const struct prow *g)
{
	const struct prow *h = &c->raw;
	struct prow *o = &c->host;
	struct nint sent = nget(h, R_SENT), wait = nget(h, R_WAIT), w = nget(g, G_WINDOW);
	struct nint t = nget(h, R_T), drift, hs, hsw, w2;
	int over = 0;

	drift = ndiv(nmul(nget(g, G_DRIFT), nsub(sent, nget(g, G_HOST_MONO), &over), &over),
		     1000000000);
	hs = nadd(sent, nsub(nget(g, G_MONO_SHIFT), drift, &over), &over); /* sent + shift */
	hsw = nadd(nadd(sent, wait, &over), nsub(nget(g, G_MONO_SHIFT), drift, &over),
		   &over);                                  /* sent + wait + shift */
	w2 = nmul(nk(2), w, &over);
	o->null = 0;
	o->direct = h->direct;
	nset(o, H_T, t);
	nset(o, H_GRP, nget(h, R_GRP));
	nset(o, H_TGRP, nget(g, G_TGRP));
	nset(o, H_QID, nget(h, R_QID));
	nset(o, H_CID, nget(h, R_CID));
	nset(o, H_SLBA, nget(h, R_SLBA));
	nset(o, H_ALO, nsub(hs, nk(20000), &over));
	nset(o, H_AHI, nadd(hsw, nk(20000), &over));
	nset(o, H_BLO, nsub(hs, w, &over));
	nset(o, H_BHI, nadd(hsw, w, &over));
	nset(o, H_OFF, nsub(nget(g, G_MONO_OFF), drift, &over));
	nset(o, H_HMID, nadd(sent, ndiv(wait, 2), &over));
	nset(o, H_TOL, nadd(ndiv(wait, 2), nk(1000), &over));
	nset(o, H_CLO, nsub(nsub(t, w2, &over), wait, &over));
	nset(o, H_CHI, nadd(nadd(t, w2, &over), wait, &over));
	for (int i = R_KEYS; i < NH; i++)
		nset(o, H_KEYS + i - R_KEYS, nget(h, i));
	return over ? overflow(c, "host command", h) : SQLITE_OK;
}

/* The index of SPAN in PASS (N of them), or -1. */
static int pass_index(const int *pass, int n, int span)
{
	for (int i = 0; i < n; i++)
		if (pass[i] == span)
			return i;
	return -1;
}

/* Column COL of C's row, one of the passed values or wire, into *V; wire
 * as SQL computes h_wait - (t_e2e - ifnull(t_data_wait, 0)): NULL where
 * h_wait or t_e2e is, and where a difference overflows, *OVER set and
 * *REAL the REAL SQLite makes of it. */
static struct nint value_of(const struct pair_cur *c, int col, int *over, double *real)
{
	const struct pair_vtab *vt = (const struct pair_vtab *)c->base.pVtab;
	struct nint w, e, d, in, r;
	int o = 0;

	if (col < C_X0)
		return nget(&c->host, H_KEYS + col - C_H0);
	if (col < C_WIRE)
		return nget(&c->out_x, X_KEYS + col - C_X0);
	w = nget(&c->host, H_KEYS + vt->wire[0]);
	e = nget(&c->out_x, X_KEYS + vt->wire[1]);
	d = nget(&c->out_x, X_KEYS + vt->wire[2]);
	if (d.null)
		d = nk(0);
	in = nsub(e, d, &o);
	if (o) {
		*over = 1;
		*real = (double)w.v - ((double)e.v - (double)d.v);
		return (struct nint){ 0, w.null || e.null };
	}
	r = nsub(w, in, &o);
	if (o) {
		*over = 1;
		*real = (double)w.v - (double)in.v;
	}
	return r;
}

_Static_assert(NTP_PAIR_NV == C_WIRE + 1 - C_H0, "the tap's values are the vtab's");

const char *ntp_pair_value_name(int i)
{
	return i < C_X0 - C_H0 ? ntp_span_names[host_pass[i]] :
	       i < C_WIRE - C_H0 ? ntp_span_names[target_pass[i - (C_X0 - C_H0)]] : "wire";
}

/* The joined command's values into the tap: its ht and the vtab's
 * values, in order. */
static void tap_push(struct pair_cur *c)
{
	struct prow v = { .null = 0 };
	struct nint ht = nget(&c->host, H_T);
	int over = 0;
	double real;

	for (int i = 0; i < NTP_PAIR_NV; i++)
		nset(&v, i, value_of(c, C_H0 + i, &over, &real));
	ntp_tap_row(c->feed, c->host.v[H_GRP], ht.null ? NULL : &ht.v, v.v, v.null, over);
}

/* Advance to the next host command and group pair that pair. */
static int pair_next(sqlite3_vtab_cursor *cur)
{
	struct pair_cur *c = (struct pair_cur *)cur;
	const struct prow *match;
	int rc;

	for (;;) {
		if (!c->have_raw) {
			rc = read_stored(c, &c->h, 1, &c->raw);
			if (rc == SQLITE_DONE) {
				c->eof = 1;
				ntp_tap_end(c->feed, 1);
				c->feed = NULL;
				return SQLITE_OK;
			}
			if (rc != SQLITE_ROW)
				return rc;
			c->have_raw = 1;
			c->gi = 0;
		}
		while (c->gi < c->ngp) {
			const struct prow *g = &c->gp[c->gi++];

			if (isnull(g, G_HGRP) || isnull(&c->raw, R_GRP) ||
			    g->v[G_HGRP] != c->raw.v[R_GRP])
				continue;
			rc = derive(c, g);
			if (rc == SQLITE_OK)
				rc = pair_one(c, &match);
			if (rc != SQLITE_OK)
				return rc;
			if (match) {
				c->out_x = *match; /* a copy: buf moves */
				c->rowid++;
				if (c->feed)
					tap_push(c);
				return SQLITE_OK;
			}
		}
		c->have_raw = 0;
	}
}

/* The group pairs, all of them (a handful). */
static int read_gp(struct pair_cur *c, sqlite3_stmt *st)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (c->ngp % 16 == 0) {
			struct prow *p = sqlite3_realloc64(c->gp, (c->ngp + 16) * sizeof(*p));

			if (!p)
				return SQLITE_NOMEM;
			c->gp = p;
		}
		rc = read_row(c, st, "group pair", G_N, &c->gp[c->ngp]);
		if (rc != SQLITE_OK)
			return rc;
		c->ngp++;
	}
	return rc == SQLITE_DONE ? SQLITE_OK : step_error(c, st);
}

static void cur_clear(struct pair_cur *c)
{
	/* a scan left before its end: the tap it fed is not used */
	ntp_tap_end(c->feed, 0);
	c->feed = NULL;
	sqlite3_finalize(c->h.st);
	sqlite3_finalize(c->x.st);
	ntp_btree_close(c->h.bt);
	ntp_btree_close(c->x.bt);
	sqlite3_finalize(c->c);
	memset(&c->h, 0, sizeof(c->h));
	memset(&c->x, 0, sizeof(c->x));
	c->c = NULL;
	c->ngp = c->gi = 0;
	c->have_raw = 0;
	c->first = c->len = 0;
	c->have_from = c->x_eof = 0;
	c->eof = 1;
	c->rowid = 0;
}

/* Prepare V as one read-only statement of MIN to MAX columns into *ST. */
static int prepare_arg(struct pair_cur *c, sqlite3_value *v, const char *what, int min, int max,
		       sqlite3_stmt **st)
{
	sqlite3 *db = ((struct pair_vtab *)c->base.pVtab)->db;
	const char *sql = (const char *)sqlite3_value_text(v), *tail = NULL;
	char **msg = &c->base.pVtab->zErrMsg;

	if (sql && sqlite3_prepare_v2(db, sql, -1, st, &tail) != SQLITE_OK) {
		sqlite3_free(*msg);
		*msg = sqlite3_mprintf("%s: the %s query: %s", VT_NAME(c), what,
				       sqlite3_errmsg(db));
		return SQLITE_ERROR;
	}
	while (tail && strchr(" \t\n;", *tail) && *tail)
		tail++;
	if (*st && sqlite3_stmt_readonly(*st) && sqlite3_column_count(*st) >= min &&
	    sqlite3_column_count(*st) <= max && (!tail || !*tail))
		return SQLITE_OK;
	sqlite3_free(*msg);
	*msg = sqlite3_mprintf("%s: the %s query must be one SELECT of %d to %d columns",
			       VT_NAME(c), what, min, max);
	return SQLITE_ERROR;
}

/* SD's query's columns, where each is a column of one database's cmd or
 * its meta's mono_start (sqlite3_column_origin_name): sd->bt, a reader of
 * that file's pages, and mono, meta's one row's. Else SD stays a query. */
static int side_direct(struct pair_cur *c, struct side *sd, int n)
{
	sqlite3 *db = ((struct pair_vtab *)c->base.pVtab)->db;
	const char *schema = NULL, *names[NTP_BTREE_MAX_COLS];
	sqlite3_stmt *st = NULL;
	int ncol = 0, mono = 0, rc, type;
	char *sql;

#ifdef NTP_EXTENSION
	/* a library built without them has none */
	if (!sqlite3_api->column_database_name || !sqlite3_api->column_table_name ||
	    !sqlite3_api->column_origin_name)
		return SQLITE_OK;
#endif
	/* a fall back to the query resumes it at the row after the last read */
	if (sqlite3_bind_parameter_count(sd->st) < 1)
		return SQLITE_OK;
	for (int i = 0; i < n; i++) {
		const char *d = sqlite3_column_database_name(sd->st, i);
		const char *t = sqlite3_column_table_name(sd->st, i);
		const char *o = sqlite3_column_origin_name(sd->st, i);

		if (!d || !t || !o || (schema && strcmp(d, schema)))
			return SQLITE_OK;
		schema = d;
		if (!strcmp(t, "meta") && !strcmp(o, "mono_start") && !mono++) {
			sd->col[i] = -1;
		} else if (!strcmp(t, "cmd") && ncol < NTP_BTREE_MAX_COLS) {
			sd->col[i] = ncol;
			names[ncol++] = o;
		} else {
			return SQLITE_OK;
		}
	}
	if (mono != 1 || sd->col[R_T] < 0)
		return SQLITE_OK;
	/* the one row of meta each row is joined with */
	if (!(sql = sqlite3_mprintf("SELECT mono_start FROM \"%w\".meta", schema)))
		return SQLITE_NOMEM;
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
	    ((type = sqlite3_column_type(st, 0)) == SQLITE_INTEGER || type == SQLITE_NULL)) {
		sd->mono = sqlite3_column_int64(st, 0);
		sd->mono_null = type == SQLITE_NULL;
		if (sqlite3_step(st) == SQLITE_DONE)
			rc = ntp_btree_open(db, schema, "cmd", ncol, names, &sd->bt);
	}
	sqlite3_finalize(st);
	/* t, the scan's order, must be the rowid the pages are in */
	if (sd->bt && ntp_btree_rowid_column(sd->bt) != sd->col[R_T]) {
		ntp_btree_close(sd->bt);
		sd->bt = NULL;
	}
	return rc == SQLITE_NOMEM ? rc : SQLITE_OK;
}

static int pair_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc,
		       sqlite3_value **argv)
{
	struct pair_cur *c = (struct pair_cur *)cur;
	sqlite3_stmt *gp = NULL;
	int rc;

	(void)idxstr;
	cur_clear(c);
	if (idx != 1 || (argc != 4 && argc != 5 && argc != 7))
		return SQLITE_CONSTRAINT;
	rc = prepare_arg(c, argv[0], "group pairs", G_N, G_N, &gp);
	if (rc == SQLITE_OK)
		rc = read_gp(c, gp);
	sqlite3_finalize(gp);
	if (rc == SQLITE_OK)
		rc = prepare_arg(c, argv[1], "host", S_POINTS + NTP_H_NPOINTS,
				 S_POINTS + NTP_H_NPOINTS, &c->h.st);
	if (rc == SQLITE_OK)
		rc = prepare_arg(c, argv[2], "target", S_POINTS + NTP_T_NPOINTS,
				 S_POINTS + NTP_T_NPOINTS, &c->x.st);
	if (rc == SQLITE_OK)
		rc = prepare_arg(c, argv[3], "count", 1, 1, &c->c);
	if (rc == SQLITE_OK && argc >= 5 && sqlite3_value_int(argv[4]) == 1) {
		rc = side_direct(c, &c->h, S_POINTS + NTP_H_NPOINTS);
		if (rc == SQLITE_OK)
			rc = side_direct(c, &c->x, S_POINTS + NTP_T_NPOINTS);
	}
	if (rc == SQLITE_OK)
		rc = side_seek(&c->h, INT64_MIN);
	if (rc != SQLITE_OK)
		return rc;
	/* the host's and target's names: the tap's, if it is armed */
	if (argc == 7)
		c->feed = ntp_tap_begin(((struct pair_vtab *)cur->pVtab)->tap,
					(const char *)sqlite3_value_text(argv[5]),
					(const char *)sqlite3_value_text(argv[6]));
	/* no group pair: nothing pairs, and the host's commands are not read
	 * (a host and a target of one run without a controller in common) */
	c->eof = c->ngp == 0;
	if (c->eof) {
		ntp_tap_end(c->feed, 1);
		c->feed = NULL;
	}
	return c->eof ? SQLITE_OK : pair_next(cur);
}

static int pair_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct pair_cur *c = (struct pair_cur *)cur;
	const struct prow *r = NULL;
	int i = 0;

	switch (col) {
	case C_HT: r = &c->host; i = H_T; break;
	case C_TT: r = &c->out_x; i = X_T; break;
	case C_GRP: r = &c->host; i = H_GRP; break;
	case C_OFF: r = &c->host; i = H_OFF; break;
	case C_HMID: r = &c->host; i = H_HMID; break;
	case C_XMID: r = &c->out_x; i = X_MID; break;
	case C_SRC:
		sqlite3_result_int(ctx, c->host.direct | c->out_x.direct << 1);
		return SQLITE_OK;
	default:
		if (col >= C_H0 && col <= C_WIRE) {
			int over = 0;
			double real;
			struct nint v = value_of(c, col, &over, &real);

			if (v.null)
				return SQLITE_OK;
			if (over)
				sqlite3_result_double(ctx, real);
			else
				sqlite3_result_int64(ctx, v.v);
		}
		return SQLITE_OK;
	}
	if (!isnull(r, i))
		sqlite3_result_int64(ctx, r->v[i]);
	return SQLITE_OK;
}

static int pair_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct pair_cur *)cur)->eof;
}

static int pair_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct pair_cur *)cur)->rowid;
	return SQLITE_OK;
}

static int pair_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct pair_cur *c = sqlite3_malloc(sizeof(*c));

	(void)vt;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->eof = 1;
	*out = &c->base;
	return SQLITE_OK;
}

static int pair_close(sqlite3_vtab_cursor *cur)
{
	struct pair_cur *c = (struct pair_cur *)cur;

	cur_clear(c);
	sqlite3_free(c->buf);
	sqlite3_free(c->gp);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* The first four arguments are required, each by equality (the function's
 * arguments); DIRECT may follow, and after it the host's and target's
 * database names (the tap's). */
static int pair_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	int seen = 0;

	(void)vt;
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *k = &info->aConstraint[i];

		if (k->iColumn < C_GQ || k->iColumn > C_TN)
			continue;
		if (!k->usable || k->op != SQLITE_INDEX_CONSTRAINT_EQ)
			return SQLITE_CONSTRAINT;
		info->aConstraintUsage[i].argvIndex = k->iColumn - C_GQ + 1;
		info->aConstraintUsage[i].omit = 1;
		seen |= 1 << (k->iColumn - C_GQ);
	}
	if (seen != 15 && seen != 31 && seen != 127)
		return SQLITE_CONSTRAINT;
	info->idxNum = 1;
	info->estimatedCost = 1e6;
	info->estimatedRows = 1000000;
	return SQLITE_OK;
}

static int pair_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			sqlite3_vtab **out, char **err)
{
	sqlite3_str *s = sqlite3_str_new(db);
	struct pair_vtab *vt;
	char *decl;
	int rc;

	(void)argc;
	(void)argv;
	/* INTEGER where the pair arm's column is a table's (cmd.t, cmd.grp):
	 * a table made of the rows has the same column affinities, and an
	 * index on ht serves a look-up by an integer */
	sqlite3_str_appendall(s, "CREATE TABLE x(ht INTEGER, tt INTEGER, grp INTEGER, off, hmid,"
			      " xmid");
	for (int i = 0; i < NTP_PAIR_NV; i++)
		sqlite3_str_appendf(s, ", %s", ntp_pair_value_name(i));
	sqlite3_str_appendall(s, ", src, gp HIDDEN, host HIDDEN, target HIDDEN, count HIDDEN,"
			      " direct HIDDEN, hdb HIDDEN, tdb HIDDEN)");
	decl = sqlite3_str_finish(s);
	if (!decl)
		return SQLITE_NOMEM;
	rc = sqlite3_declare_vtab(db, decl);
	sqlite3_free(decl);
	if (rc != SQLITE_OK)
		return rc;
	/* it runs the SQL it is given: the session's TEMP views and top-level
	 * queries may call it, a view or trigger stored in a file may not */
	sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
	vt = sqlite3_malloc(sizeof(*vt));
	if (!vt)
		return SQLITE_NOMEM;
	memset(vt, 0, sizeof(*vt));
	vt->db = db;
	vt->name = "ntp_pair";
	vt->tap = aux;
	vt->wire[0] = pass_index(host_pass, NPASS(host_pass), NTP_SPAN_host_h_wait);
	vt->wire[1] = pass_index(target_pass, NPASS(target_pass), NTP_SPAN_target_t_e2e);
	vt->wire[2] = pass_index(target_pass, NPASS(target_pass), NTP_SPAN_target_t_data_wait);
	if (vt->wire[0] < 0 || vt->wire[1] < 0 || vt->wire[2] < 0) {
		*err = sqlite3_mprintf("ntp_pair: wire's terms are not passed");
		sqlite3_free(vt);
		return SQLITE_ERROR;
	}
	*out = &vt->base;
	return SQLITE_OK;
}

static int pair_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

static const sqlite3_module pair_module = {
	.iVersion = 0,
	.xConnect = pair_connect,
	.xBestIndex = pair_best_index,
	.xDisconnect = pair_disconnect,
	.xOpen = pair_open,
	.xClose = pair_close,
	.xFilter = pair_filter,
	.xNext = pair_next,
	.xEof = pair_eof,
	.xColumn = pair_column,
	.xRowid = pair_rowid,
};

/*
 * ntp_e2e_series(CMDS, TARGET, FIRST_T, WIDTH, GRP): what
 * ntp_series((t - FIRST_T) / WIDTH, e2e) returns over a recording's
 * commands of group GRP, e2e their end to end (the host's ntp_cmd_span.e2e,
 * or with TARGET 1 the target's t_e2e), computed as they are read, with no
 * call into SQLite per command. CMDS is a side's query as ntp_pair's HOST
 * or TARGET (t, grp, qid, cid, slba, mono_start, the points, ?1 the least
 * t), read from the file's pages as with ntp_pair's DIRECT 1, and through
 * the query from wherever they cannot be. The time series' end to end
 * (_ntp_series_e2e of sql/native.sql): through the recording's view and
 * ntp_series, SQLite computes each command's at about 0.3 us, most of it
 * the calls per column. tests/test_stats.c compares it with the
 * aggregate over the view.
 */
static void e2e_series_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct pair_vtab vt;
	struct pair_cur c;
	struct ntp_series *acc = NULL;
	const char *why = "";
	int target, n, rc, grp_null = sqlite3_value_type(argv[4]) == SQLITE_NULL;
	int64_t first = sqlite3_value_int64(argv[2]), width = sqlite3_value_int64(argv[3]);
	int64_t grp = sqlite3_value_int64(argv[4]);
	/* the bucket is an integer only where both are and WIDTH is not 0 */
	int bucket_ok = sqlite3_value_type(argv[2]) == SQLITE_INTEGER &&
			sqlite3_value_type(argv[3]) == SQLITE_INTEGER && width != 0;
	char *json;

	(void)argc;
	memset(&vt, 0, sizeof(vt));
	memset(&c, 0, sizeof(c));
	vt.db = sqlite3_context_db_handle(ctx);
	vt.name = "ntp_e2e_series";
	c.base.pVtab = &vt.base;
	target = sqlite3_value_int(argv[1]) == 1;
	n = S_POINTS + (target ? NTP_T_NPOINTS : NTP_H_NPOINTS);
	rc = prepare_arg(&c, argv[0], target ? "target" : "host", n, n, &c.h.st);
	if (rc == SQLITE_OK)
		rc = side_direct(&c, &c.h, n);
	if (rc == SQLITE_OK)
		rc = side_seek(&c.h, INT64_MIN);
	if (rc == SQLITE_OK && !(acc = ntp_series_new()))
		rc = SQLITE_NOMEM;
	while (rc == SQLITE_OK && !grp_null && (rc = side_step(&c, &c.h, target ? "target" :
							     "host", n)) == SQLITE_ROW) {
		const struct prow *r = &c.stored;
		struct ntp_span_in in;
		int64_t e2e, d;
		int null;

		rc = SQLITE_OK;
		if (isnull(r, R_GRP) || r->v[R_GRP] != grp)
			continue;
		span_in(r, n - S_POINTS, &in);
		if (ntp_span_value(target ? NTP_SPAN_target_t_e2e : NTP_SPAN_host_e2e, &in, &e2e,
				   &null)) {
			rc = overflow(&c, target ? "target record" : "host command", r);
		} else if (null || !bucket_ok || __builtin_sub_overflow(r->v[R_T], first, &d) ||
			   (d == INT64_MIN && width == -1)) {
			why = "ntp_series: bucket and e2e must be integers";
		} else {
			why = ntp_series_push(acc, d / width, e2e);
			if (!why) {
				why = "";
				rc = SQLITE_NOMEM;
			}
		}
		if (*why)
			break;
	}
	if (rc == SQLITE_DONE)
		rc = SQLITE_OK;
	json = rc == SQLITE_OK && !*why ? ntp_series_json(acc) : NULL;
	if (rc == SQLITE_NOMEM || (rc == SQLITE_OK && !*why && !json))
		sqlite3_result_error_nomem(ctx);
	else if (rc != SQLITE_OK)
		sqlite3_result_error(ctx, vt.base.zErrMsg ? vt.base.zErrMsg : sqlite3_errstr(rc), -1);
	else if (*why)
		sqlite3_result_error(ctx, why, -1);
	else
		sqlite3_result_text(ctx, json, -1, sqlite3_free);
	ntp_series_free(acc);
	cur_clear(&c);
	sqlite3_free(vt.base.zErrMsg);
}

int ntp_pair_register(sqlite3 *db)
{
	struct ntp_tap *tap = ntp_tap_new();
	int rc;

	if (!tap)
		return SQLITE_NOMEM;
	/* the tap lives as long as the module: freed with the connection */
	rc = sqlite3_create_module_v2(db, "ntp_pair", &pair_module, tap, ntp_tap_free);
	if (rc == SQLITE_OK)
		rc = ntp_tap_register(db, tap);

	/* it runs the SQL it is given, as ntp_pair: not from a file's SQL */
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "ntp_e2e_series", 5,
						SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL,
						e2e_series_func, NULL, NULL, NULL);
	return rc;
}
