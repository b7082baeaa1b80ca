// SPDX-License-Identifier: BSD-2-Clause
/*
 * The live lines from memory (ntp_live.h). As each command is stored, its
 * group's sums grow by the command's end to end and its five columns, and
 * its end to end joins the interval's buffer; at the interval's end each
 * group's p99 is selected from its values (ntp_nth64, no sort) and the lines
 * are printed as sql/live.sql prints them: SQLite's own printf, its round()
 * and CAST, the same order of operations on the same doubles.
 *
 * Nothing here restates what a column holds. Which stored deltas each sum
 * adds comes from the views themselves (derive()), run at start on one
 * command per point; the column of each stage is read from sql/live.sql at
 * build time (sql/live_columns.sh), the stage of each component from the
 * vocabulary by the views. Where memory cannot give the exact text (exact()),
 * the interval's lines come from sql/live.sql itself.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"
#include "ntp_live.h"
#include "ntp_schema.h"
#include "ntp_sql.h"

/* The sums a live line is made of: end to end, then sql/live.sql's five
 * columns, each named as it names the column. */
enum { SUM_e2e, SUM_blk, SUM_hdrv, SUM_net, SUM_tdrv, SUM_stor, NSUM };

/* The sum each stage (stage.name) goes to: sql/live.sql's col CTE. */
#define LIVE_COL(stage, col) { #stage, SUM_##col },
static const struct {
	const char *stage;
	int sum;
} stage_sum[] = {
#include "ntp_live_cols.h"
};
#undef LIVE_COL

/* A group's part of the interval. */
struct live_grp {
	int64_t id;          /* grp.id */
	uint64_t n;          /* commands stored whose t is in the interval */
	int64_t sum[NSUM];   /* their sums */
	size_t at;           /* where its values end in sorted, once scattered */
	int row;             /* it has an interval_grp row */
	int counted;         /* its total is counted (total not NULL) */
	int64_t cmds;        /* coalesce(total, sampled * sample_rate) */
	char name[NTP_LIVE_WIDTH]; /* ntp_grp_info.name, at the interval's end */
};

struct ntp_live {
	int role;                 /* enum ntp_role */
	int npoints;              /* points of the role */
	int flags;                /* NTP_LIVE_* */
	int64_t sample_rate;      /* meta.sample_rate */
	uint8_t feeds[NTP_MAX_POINTS]; /* the sums each point's stored delta adds to (bit k: sum k) */
	char point[NTP_MAX_POINTS][16]; /* point.name by ord */
	int by_name[NTP_MAX_POINTS];    /* the points' ords in the order of their names */
	char why[NTP_CAUSE_MAX][160];   /* cause.description by code; "": none */
	sqlite3_stmt *names;      /* the groups' names (ntp_grp_info) */

	/* the interval being kept */
	int64_t start;            /* its t; a command before it shows in no interval */
	int64_t max_t;            /* the latest t kept */
	int64_t sql_until;        /* a command kept earlier may belong to one up to this t */
	uint64_t abs_sum;         /* the sum of |delta| of the points kept (saturated) */
	int inexact;              /* memory failed it: its lines come from the SQL */
	struct live_grp *grps;    /* by the writer's group index */
	size_t ngrps;
	size_t *order;            /* the groups with lines, in their lines' order */
	/*
	 * The interval's end-to-end values, in the order they came, with their
	 * groups, and the same scattered by group (for each group's p99): 20
	 * bytes a command. Reused from interval to interval: what bounds them
	 * is the most commands one interval has stored (the writer stores
	 * about 1.3 M records a CPU second at most: at -i 1, 26 MB), and they
	 * stay at that.
	 */
	int64_t *ns;
	uint32_t *gi;
	int64_t *sorted;
	size_t len, cap;

	/* the last interval ended */
	struct ntp_live_line *lines;
	size_t nlines, lines_cap;
	struct ntp_live_gap *gaps;
	size_t ngaps, gaps_cap;
	int from_sql;
	char err[256];
};

static unsigned int ilog2(size_t n)
{
	return n > 1 ? 63u - (unsigned int)__builtin_clzll((unsigned long long)n) : 0;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* The sums of a command from its points, as the views compute them from
 * its stored deltas (ntp_db's encoding: the first recorded point 0, then
 * the ns since the previous one; absent points add nothing). Returns the
 * sum of the deltas' magnitudes, saturated. */
static uint64_t cmd_sums(const struct ntp_live *l, const struct ntp_cmd_record *r,
			 int64_t v[NSUM])
{
	uint64_t s[NSUM] = { 0 }; /* wrap, never undefined; then not used (exact()) */
	uint64_t prev = 0, abs = 0;

	for (int i = 0; i < l->npoints; i++) {
		uint64_t ts = r->ts[i], d;

		if (!ts)
			continue;
		d = prev ? ts - prev : 0;
		prev = ts;
		abs = add_sat(abs, (int64_t)d < 0 ? -d : d);
		for (unsigned int f = l->feeds[i]; f; f &= f - 1)
			s[__builtin_ctz(f)] += d;
	}
	for (int k = 0; k < NSUM; k++)
		v[k] = (int64_t)s[k];
	return abs;
}

/* A new database of the role in memory, with a meta row: where derive()
 * runs the views. */
static sqlite3 *probe_db(int role)
{
	char *meta = sqlite3_mprintf("INSERT INTO meta (schema_version, role, driver, transport, "
				     "hostname, kernel, sample_rate, wall_start, mono_start, "
				     "command_line, ntprof_version) "
				     "VALUES (0, %Q, 'kernel', 'tcp', '', '', 1, 0, 0, '', '')",
				     role == NTP_ROLE_HOST ? "host" : "target");
	sqlite3 *m = NULL;
	int rc = !meta ||
		 sqlite3_open_v2(":memory:", &m, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) ||
		 ntp_schema_apply(m, role == NTP_ROLE_HOST) ||
		 sqlite3_exec(m, meta, NULL, NULL, NULL);

	sqlite3_free(meta);
	if (rc) {
		sqlite3_close(m);
		return NULL;
	}
	return m;
}

/* Probe commands: t 1 + I has 1 ns at point I alone; CHECK_A and CHECK_B
 * have distinct powers of 16 at the even and at the odd points. */
#define CHECK_A 100
#define CHECK_B 101

static int64_t probe_value(int64_t t, int i)
{
	if (t == CHECK_A || t == CHECK_B)
		return (i & 1) == (t == CHECK_B) ? (int64_t)1 << (4 * i) : 0;
	return t == 1 + i;
}

/* Store the probe commands in M. */
static int probe_cmds(const struct ntp_live *l, sqlite3 *m)
{
	static const int64_t ts[] = { CHECK_A, CHECK_B };
	int rc = 0;

	for (int i = 0; i < l->npoints + 2 && !rc; i++) {
		int64_t t = i < l->npoints ? 1 + i : ts[i - l->npoints];
		sqlite3_str *s = sqlite3_str_new(m);
		char *sql;

		sqlite3_str_appendf(s, "INSERT INTO cmd (t, grp, qid, cid, slba");
		for (int p = 0; p < l->npoints; p++)
			if (probe_value(t, p))
				sqlite3_str_appendf(s, ", \"%w\"", l->point[p]);
		sqlite3_str_appendf(s, ") VALUES (%lld, 1, 0, 0, 0", (long long)t);
		for (int p = 0; p < l->npoints; p++)
			if (probe_value(t, p))
				sqlite3_str_appendf(s, ", %lld", (long long)probe_value(t, p));
		sqlite3_str_appendall(s, ")");
		sql = sqlite3_str_finish(s);
		rc = !sql || sqlite3_exec(m, sql, NULL, NULL, NULL) != SQLITE_OK;
		sqlite3_free(sql);
	}
	return rc ? -1 : 0;
}

/* The sum a stage goes to, or -1: a stage in no column (live.sql's CASE
 * gives it 0). */
static int sum_of_stage(const char *stage)
{
	for (size_t i = 0; stage && i < sizeof(stage_sum) / sizeof(stage_sum[0]); i++)
		if (!strcmp(stage, stage_sum[i].stage))
			return stage_sum[i].sum;
	return -1;
}

/* The probe command of T's index in derive()'s results, or -1. */
static int probe_index(const struct ntp_live *l, int64_t t)
{
	if (t == CHECK_A || t == CHECK_B)
		return l->npoints + (t == CHECK_B);
	return t >= 1 && t <= l->npoints ? (int)t - 1 : -1;
}

/*
 * What each sum adds, from the views of a database of the role in memory:
 * sql/live.sql sums ntp_cmd_e2e, and ntp_cmd_component's components (not
 * the totals) by their stage_local (vocab.sql), so the same views run on
 * one command per point say which points' deltas each sum adds. Two
 * commands with every point, half of them absent in turn, then check that
 * the sums are just that (the lines are kept as sums of deltas: a view that
 * weighed a delta, or added one twice, could not be).
 */
static int derive(struct ntp_live *l, char *err, size_t errlen)
{
	static const char *const q[] = {
		"SELECT c.t, k.stage_local, c.ns FROM ntp_cmd_component AS c "
		"JOIN component AS k ON k.name = c.component AND k.total = 0",
		"SELECT t, NULL, ns FROM ntp_cmd_e2e",
	};
	int64_t got[NTP_MAX_POINTS + 2][NSUM] = { { 0 } };
	sqlite3 *m = probe_db(l->role);
	int rc = m && !probe_cmds(l, m) ? 0 : -1;

	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]) && !rc; i++) {
		sqlite3_stmt *st;
		int row;

		if (sqlite3_prepare_v2(m, q[i], -1, &st, NULL) != SQLITE_OK) {
			rc = -1;
			break;
		}
		while ((row = sqlite3_step(st)) == SQLITE_ROW) {
			int at = probe_index(l, sqlite3_column_int64(st, 0));
			int k = i ? SUM_e2e : sum_of_stage((const char *)sqlite3_column_text(st, 1));

			if (at >= 0 && k >= 0) /* a stage in no column: live.sql's CASE gives 0 */
				got[at][k] += sqlite3_column_int64(st, 2);
		}
		sqlite3_finalize(st);
		rc = row == SQLITE_DONE ? 0 : -1;
	}
	if (rc) {
		snprintf(err, errlen, "failed to run the views in memory: %s",
			 m ? sqlite3_errmsg(m) : "out of memory");
		goto out;
	}
	rc = -1;
	for (int i = 0; i < l->npoints; i++)
		for (int k = 0; k < NSUM; k++) {
			if (got[i][k] != 0 && got[i][k] != 1) {
				snprintf(err, errlen, "the live lines need sums of stored points, but "
					 "point %s counts %lld times in one", l->point[i],
					 (long long)got[i][k]);
				goto out;
			}
			l->feeds[i] |= (uint8_t)(got[i][k] << k);
		}
	for (int c = 0; c < 2; c++)
		for (int k = 0; k < NSUM; k++) {
			int64_t want = 0;

			for (int i = 0; i < l->npoints; i++)
				if (l->feeds[i] >> k & 1)
					want += probe_value(c ? CHECK_B : CHECK_A, i);
			if (got[l->npoints + c][k] != want) {
				snprintf(err, errlen, "the live lines need sums of stored points, but a "
					 "command with every other point gives %lld, not %lld",
					 (long long)got[l->npoints + c][k], (long long)want);
				goto out;
			}
		}
	rc = 0;
out:
	sqlite3_close(m);
	return rc;
}

/* The role's point names, in ord and in name order (the gap table's key),
 * and the causes' descriptions, from the recording's vocabulary. */
static int load_vocab(struct ntp_live *l, sqlite3 *db)
{
	sqlite3_stmt *st;
	int n = 0, rc;

	if (sqlite3_prepare_v2(db, "SELECT ord, name FROM point WHERE role = ? ORDER BY name", -1,
			       &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, l->role == NTP_ROLE_HOST ? "host" : "target", -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int ord = sqlite3_column_int(st, 0);

		if (ord < 0 || ord >= l->npoints)
			continue;
		snprintf(l->point[ord], sizeof(l->point[ord]), "%s", sqlite3_column_text(st, 1));
		l->by_name[n++] = ord;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE || n != l->npoints)
		return -1;
	if (sqlite3_prepare_v2(db, "SELECT code, description FROM cause", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int code = sqlite3_column_int(st, 0);

		if (code >= 0 && code < NTP_CAUSE_MAX)
			snprintf(l->why[code], sizeof(l->why[code]), "%s", sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

struct ntp_live *ntp_live_new(sqlite3 *db, int role, uint32_t sample_rate, int flags,
			      char *err, size_t errlen)
{
	struct ntp_live *l = calloc(1, sizeof(*l));

	if (!l) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	l->role = role;
	l->npoints = role == NTP_ROLE_HOST ? NTP_H_NPOINTS : NTP_T_NPOINTS;
	l->flags = flags;
	l->sample_rate = sample_rate;
	l->max_t = l->sql_until = INT64_MIN;
	if (load_vocab(l, db) ||
	    ((flags & NTP_LIVE_LINES) &&
	     sqlite3_prepare_v3(db, "SELECT grp, name FROM ntp_grp_info", -1,
				SQLITE_PREPARE_PERSISTENT, &l->names, NULL) != SQLITE_OK)) {
		snprintf(err, errlen, "failed to read the vocabulary: %s", sqlite3_errmsg(db));
		ntp_live_free(l);
		return NULL;
	}
	if ((flags & NTP_LIVE_LINES) && derive(l, err, errlen)) {
		ntp_live_free(l);
		return NULL;
	}
	return l;
}

void ntp_live_free(struct ntp_live *l)
{
	if (!l)
		return;
	sqlite3_finalize(l->names);
	free(l->grps);
	free(l->order);
	free(l->ns);
	free(l->gi);
	free(l->sorted);
	free(l->lines);
	free(l->gaps);
	free(l);
}

/* Grow *P (of *CAP elements of SIZE) to hold N; 0, or -1. */
static int room(void **p, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap : 8;
	void *q;

	if (n <= *cap)
		return 0;
	while (c < n)
		c *= 2;
	q = realloc(*p, c * size);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

/* Room for group GI; 0, or -1 (out of memory). */
static int grow_grps(struct ntp_live *l, size_t gi)
{
	size_t n = l->ngrps, o = l->ngrps;

	if (gi < l->ngrps)
		return 0;
	if (room((void **)&l->grps, &n, gi + 1, sizeof(*l->grps)) ||
	    room((void **)&l->order, &o, gi + 1, sizeof(*l->order)))
		return -1;
	memset(l->grps + l->ngrps, 0, (n - l->ngrps) * sizeof(*l->grps));
	l->ngrps = n;
	return 0;
}

/* Room for one more value; 0, or -1. */
static int grow_values(struct ntp_live *l)
{
	size_t a = l->cap, b = l->cap, c = l->cap;

	if (room((void **)&l->ns, &a, l->len + 1, sizeof(*l->ns)) ||
	    room((void **)&l->gi, &b, l->len + 1, sizeof(*l->gi)) ||
	    room((void **)&l->sorted, &c, l->len + 1, sizeof(*l->sorted)))
		return -1;
	l->cap = a;
	return 0;
}

void ntp_live_add(struct ntp_live *l, size_t gi, int64_t id, int64_t t,
		  const struct ntp_cmd_record *r)
{
	int64_t v[NSUM];
	struct live_grp *g;

	/* before the interval: the line of its own was printed before it came,
	 * and sql/live.sql shows it in none */
	if (!(l->flags & NTP_LIVE_LINES) || t < l->start)
		return;
	if (grow_grps(l, gi) || grow_values(l)) {
		l->inexact = 1;
		return;
	}
	l->abs_sum = add_sat(l->abs_sum, cmd_sums(l, r, v));
	g = &l->grps[gi];
	g->id = id;
	g->n++;
	for (int k = 0; k < NSUM; k++)
		g->sum[k] = (int64_t)((uint64_t)g->sum[k] + (uint64_t)v[k]);
	l->ns[l->len] = v[SUM_e2e];
	l->gi[l->len++] = (uint32_t)gi;
	if (t > l->max_t)
		l->max_t = t;
}

void ntp_live_count(struct ntp_live *l, size_t gi, int64_t id, uint64_t sampled, uint64_t total,
		    int counted)
{
	struct live_grp *g;

	if (!(l->flags & NTP_LIVE_LINES))
		return;
	if (grow_grps(l, gi)) {
		l->inexact = 1;
		return;
	}
	g = &l->grps[gi];
	g->id = id;
	g->row = 1;
	g->counted = counted;
	/* stored as int64 (ntp_db); a product past it SQLite makes a REAL */
	if (counted)
		g->cmds = (int64_t)total;
	else if (__builtin_mul_overflow((int64_t)sampled, l->sample_rate, &g->cmds))
		l->inexact = 1;
}

/*
 * Whether memory gives interval [START, STOP) exactly as sql/live.sql
 * would: it shows the commands stored by then whose t is in the interval.
 * Memory keeps those stored in it whose t is not before its start, so it
 * must begin where the last one stopped, and nothing kept may lie beyond its
 * stop (a t past the time the record was read: two commands tied, moved a
 * ns on, or a clock gone wrong); such a command then belongs to a later
 * interval, and each up to its t is run as SQL too. And no sum of the
 * interval's deltas, in whatever order SQLite adds them, may leave int64,
 * where its sum() fails and this would wrap.
 */
static int exact(struct ntp_live *l, int64_t start, int64_t stop)
{
	int ok = !l->inexact && start == l->start && l->max_t < stop && start > l->sql_until &&
		 l->abs_sum <= INT64_MAX;

	if (l->max_t >= stop && l->max_t > l->sql_until)
		l->sql_until = l->max_t;
	return ok;
}

static void pct(char *buf, int64_t part, int64_t sum, const char *mark)
{
	int64_t v = 0;

	if (sum) { /* else NULL in SQL, which its printf prints as 0 */
		/* round(): half away from zero by adding a half and truncating,
		 * as SQLite does below 2^52; CAST: saturating */
		double r = 100.0 * (double)part / (double)sum;

		if (r >= -4503599627370496.0 && r <= 4503599627370496.0)
			r = (double)(int64_t)(r + (r < 0 ? -0.5 : 0.5));
		v = r <= (double)INT64_MIN ? INT64_MIN : r >= (double)INT64_MAX ? INT64_MAX :
			(int64_t)r;
	}
	sqlite3_snprintf(NTP_LIVE_WIDTH, buf, "%lld%%%s", (long long)v, mark);
}

/* Group G's line of interval [START, STOP): sql/live.sql's expressions,
 * LOST_N lost records x N shared among W commands. */
static void format_line(const struct ntp_live *l, const struct live_grp *g, struct ntp_live_line *o,
			int64_t start, int64_t stop, int64_t lost_n, int64_t w, int have_w)
{
	int64_t n = (int64_t)g->n, *v = l->sorted + g->at - g->n;
	size_t k = (size_t)((n * 99000 + 99999) / 100000) - 1; /* nearest rank, 0-based */
	int host = l->role == NTP_ROLE_HOST;
	double rate = 0; /* NULL without a timeline row: printed as 0 */

	ntp_nth64(v, g->n, k, 2 * ilog2(g->n));
	if (g->row && stop > start) {
		rate = 1e9 * (double)g->cmds / (double)(stop - start);
		if (!g->counted && have_w && w > 0)
			rate = rate * (1 + (double)lost_n * 1.0 / (double)w);
	}
	sqlite3_snprintf(NTP_LIVE_WIDTH, o->col[0], "%.1fs", (double)stop / 1e9);
	sqlite3_snprintf(NTP_LIVE_WIDTH, o->col[1], "%s", g->name);
	sqlite3_snprintf(NTP_LIVE_WIDTH, o->col[2], "%lld", (long long)n);
	if (rate >= 1000)
		sqlite3_snprintf(NTP_LIVE_WIDTH, o->col[3], "%.1fk", rate / 1000);
	else
		sqlite3_snprintf(NTP_LIVE_WIDTH, o->col[3], "%.0f", rate);
	sqlite3_snprintf(NTP_LIVE_WIDTH, o->col[4], "%.2f", (double)g->sum[SUM_e2e] / 1e3 / (double)n);
	sqlite3_snprintf(NTP_LIVE_WIDTH, o->col[5], "%.2f", (double)v[k] / 1e3);
	for (int c = SUM_blk; c <= SUM_stor; c++) {
		int shown = c == SUM_net || (host ? c <= SUM_hdrv : c >= SUM_tdrv);

		if (shown)
			pct(o->col[5 + c], g->sum[c], g->sum[SUM_e2e], host && c == SUM_net ? "*" : "");
		else
			o->col[5 + c][0] = '\0';
	}
}

/* sql/live.sql's ORDER BY gi.name, gi.grp */
static int by_name(const void *a, const void *b, void *grps)
{
	const struct live_grp *x = (const struct live_grp *)grps + *(const size_t *)a;
	const struct live_grp *y = (const struct live_grp *)grps + *(const size_t *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* The lines of interval [START, STOP) from memory, LOST records lost in
 * it; -1 where memory cannot give them exactly. */
static int memory_lines(struct ntp_live *l, int64_t start, int64_t stop, uint64_t lost)
{
	int64_t w = 0, lost_n;
	size_t at = 0, n = 0;
	int have_w = 0, rc;

	/* sum(coalesce(total, sampled x N)) over the interval's rows: sum()
	 * fails past int64, and lost x N becomes a REAL */
	for (size_t i = 0; i < l->ngrps; i++) {
		if (!l->grps[i].row)
			continue;
		have_w = 1;
		if (__builtin_add_overflow(w, l->grps[i].cmds, &w))
			return -1;
	}
	if (lost > INT64_MAX || __builtin_mul_overflow((int64_t)lost, l->sample_rate, &lost_n))
		return -1;
	/* each group's values together, for its p99 */
	for (size_t i = 0; i < l->ngrps; i++) {
		l->grps[i].at = at;
		at += l->grps[i].n;
		l->grps[i].name[0] = '\0';
	}
	for (size_t j = 0; j < l->len; j++)
		l->sorted[l->grps[l->gi[j]].at++] = l->ns[j];
	/* the groups' names now (a device's block size may have come since) */
	sqlite3_reset(l->names);
	while ((rc = sqlite3_step(l->names)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(l->names, 0);

		for (size_t i = 0; i < l->ngrps; i++)
			if (l->grps[i].n && l->grps[i].id == id && n < l->ngrps) {
				snprintf(l->grps[i].name, sizeof(l->grps[i].name), "%s",
					 sqlite3_column_text(l->names, 1));
				l->order[n++] = i;
			}
	}
	sqlite3_reset(l->names);
	if (rc != SQLITE_DONE) {
		snprintf(l->err, sizeof(l->err), "failed to read the groups' names: %s",
			 sqlite3_errmsg(sqlite3_db_handle(l->names)));
		return 0;
	}
	qsort_r(l->order, n, sizeof(*l->order), by_name, l->grps);
	if (room((void **)&l->lines, &l->lines_cap, n, sizeof(*l->lines)))
		return -1;
	for (size_t i = 0; i < n; i++)
		format_line(l, &l->grps[l->order[i]], &l->lines[i], start, stop, lost_n, w, have_w);
	l->nlines = n;
	return 0;
}

int ntp_live_sql(sqlite3 *db, int64_t id, struct ntp_live_line **lines, size_t *n, size_t *cap,
		 char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, ntp_sql_live, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "failed to run sql/live.sql: %s", sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":interval"), id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (room((void **)lines, cap, *n + 1, sizeof(**lines))) {
			rc = SQLITE_NOMEM;
			break;
		}
		for (int c = 0; c < NTP_LIVE_NCOL; c++) {
			const unsigned char *s = sqlite3_column_text(st, c);

			snprintf((*lines)[*n].col[c], NTP_LIVE_WIDTH, "%s", s ? (const char *)s : "");
		}
		(*n)++;
	}
	if (rc != SQLITE_DONE)
		snprintf(err, errlen, "failed to run sql/live.sql: %s",
			 rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static void add_gap(struct ntp_live *l, const char *point, uint64_t n, const char *why)
{
	struct ntp_live_gap *g;

	if (room((void **)&l->gaps, &l->gaps_cap, l->ngaps + 1, sizeof(*l->gaps)))
		return;
	g = &l->gaps[l->ngaps++];
	snprintf(g->point, sizeof(g->point), "%s", point);
	g->n = (int64_t)n;
	snprintf(g->why, sizeof(g->why), "%s", why);
}

/* sql/live_gaps.sql's rows: the lost records by cause, then the points
 * missing by point name and cause; a cause the vocabulary lacks is not
 * joined, not shown. */
static void gap_lines(struct ntp_live *l, const uint64_t lost[NTP_CAUSE_MAX],
		      const uint64_t gaps[][NTP_CAUSE_MAX])
{
	for (int c = 0; c < NTP_CAUSE_MAX; c++)
		if (lost[c] && l->why[c][0])
			add_gap(l, "", lost[c], l->why[c]);
	for (int i = 0; i < l->npoints; i++)
		for (int c = 0; c < NTP_CAUSE_MAX; c++) {
			int p = l->by_name[i];

			if (gaps[p][c] && l->why[c][0])
				add_gap(l, l->point[p], gaps[p][c], l->why[c]);
		}
}

void ntp_live_end(struct ntp_live *l, sqlite3 *db, int64_t id, int64_t start, int64_t stop,
		  const uint64_t lost[NTP_CAUSE_MAX], const uint64_t gaps[][NTP_CAUSE_MAX])
{
	uint64_t lost_all = 0;

	l->nlines = l->ngaps = 0;
	l->from_sql = 0;
	l->err[0] = '\0';
	gap_lines(l, lost, gaps);
	for (int c = 0; c < NTP_CAUSE_MAX; c++)
		lost_all = add_sat(lost_all, lost[c]);
	if ((l->flags & NTP_LIVE_LINES) &&
	    (!exact(l, start, stop) || memory_lines(l, start, stop, lost_all))) {
		l->from_sql = 1;
		l->nlines = 0;
		ntp_live_sql(db, id, &l->lines, &l->nlines, &l->lines_cap, l->err, sizeof(l->err));
	}
	/* the next interval */
	for (size_t i = 0; i < l->ngrps; i++) {
		struct live_grp *g = &l->grps[i];

		g->n = 0;
		memset(g->sum, 0, sizeof(g->sum));
		g->row = g->counted = 0;
		g->cmds = 0;
	}
	l->len = 0;
	l->start = stop;
	l->max_t = INT64_MIN;
	l->abs_sum = 0;
	l->inexact = 0;
}

size_t ntp_live_lines(const struct ntp_live *l, const struct ntp_live_line **lines)
{
	*lines = l->lines;
	return l->nlines;
}

size_t ntp_live_gaps(const struct ntp_live *l, const struct ntp_live_gap **gaps)
{
	*gaps = l->gaps;
	return l->ngaps;
}

int ntp_live_from_sql(const struct ntp_live *l)
{
	return l->from_sql;
}

const char *ntp_live_error(const struct ntp_live *l)
{
	return l->err[0] ? l->err : NULL;
}
