// SPDX-License-Identifier: BSD-2-Clause
/*
 * The time series after the report (`ntprof report --timeline WIDTH`, the
 * shell's `.report --timeline`): per group, one line per bucket of WIDTH
 * with its rate, mean and p99 end to end and each stage's mean. Every
 * number, already formatted, comes from sql/stats.sql's _ntp_text_series;
 * this file only parses the width and lays the lines out.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntp_err.h"
#include "ntp_out.h"
#include "ntp_report.h"
#include "ntp_session.h"

#define MAX_STAGES 16 /* columns of stages; vocab.sql has 9 */
#define COL 9         /* width of a number column */

int ntp_parse_width(const char *arg, int64_t *ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "", 1e9 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 },
	};
	char *end;
	double v;

	/* digits first: no sign, blank, "inf", "nan" or hex that strtod takes */
	if (!isdigit((unsigned char)arg[0]) && !(arg[0] == '.' && isdigit((unsigned char)arg[1])))
		return -1;
	errno = 0;
	v = strtod(arg, &end);
	/* a decimal number: strtod also reads hex ("0x10") */
	if (errno || end == arg || !isfinite(v) ||
	    strspn(arg, "0123456789.eE+-") < (size_t)(end - arg))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			v *= units[i].ns;
			if (v < 1e3 || v > 86400e9)
				return -1;
			*ns = llround(v);
			return 0;
		}
	return -1;
}

/* One bucket's line as the rows of _ntp_text_series bring it. */
struct bucket {
	char *hdb, *name;           /* the group */
	int64_t grp, bucket;
	char *t_s, *rate, *mean, *p99;
	int n;                      /* stages */
	char *stage[MAX_STAGES], *value[MAX_STAGES];
};

static char *text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return strdup(t ? (const char *)t : "");
}

static void bucket_free(struct bucket *b)
{
	free(b->hdb);
	free(b->name);
	free(b->t_s);
	free(b->rate);
	free(b->mean);
	free(b->p99);
	for (int i = 0; i < b->n; i++) {
		free(b->stage[i]);
		free(b->value[i]);
	}
	memset(b, 0, sizeof(*b));
}

static int stage_width(const char *stage)
{
	int w = (int)strlen(stage);

	return w > COL ? w : COL;
}

/* The group's title and the column headings: the stage names. */
static void print_heading(FILE *f, const struct bucket *b)
{
	fprintf(f, "== %s\n", ntp_clean_text(b->name));
	fprintf(f, "%*s  %*s  %*s  %*s", COL, "t_s", COL, "cmds/s", COL, "mean", COL, "p99");
	for (int i = 0; i < b->n; i++)
		fprintf(f, "  %*s", stage_width(b->stage[i]), b->stage[i]);
	fputc('\n', f);
}

static void print_bucket(FILE *f, const struct bucket *b)
{
	fprintf(f, "%*s  %*s  %*s  %*s", COL, b->t_s, COL, b->rate, COL, b->mean, COL, b->p99);
	for (int i = 0; i < b->n; i++)
		fprintf(f, "  %*s", stage_width(b->stage[i]), b->value[i]);
	fputc('\n', f);
}

/* Row ST (hdb, grp, bucket first) belongs to bucket B. */
static int same_bucket(sqlite3_stmt *st, const struct bucket *b)
{
	return b->hdb && !strcmp((const char *)sqlite3_column_text(st, 0), b->hdb) &&
	       sqlite3_column_int64(st, 1) == b->grp && sqlite3_column_int64(st, 3) == b->bucket;
}

static void bucket_start(sqlite3_stmt *st, struct bucket *b)
{
	*b = (struct bucket){ .hdb = text(st, 0), .grp = sqlite3_column_int64(st, 1),
			      .name = text(st, 2), .bucket = sqlite3_column_int64(st, 3),
			      .t_s = text(st, 4), .rate = text(st, 5), .mean = text(st, 6),
			      .p99 = text(st, 7) };
}

/* Print bucket B, after the heading when it starts a new group (*LAST holds
 * the group printed last: "hdb grp"). */
static void bucket_flush(FILE *f, const struct bucket *b, char *last, size_t len)
{
	char key[96];

	if (!b->hdb)
		return;
	snprintf(key, sizeof(key), "%s %lld", b->hdb, (long long)b->grp);
	if (strcmp(key, last)) {
		print_heading(f, b);
		snprintf(last, len, "%s", key);
	}
	print_bucket(f, b);
}

static int print_series(sqlite3 *db, FILE *f, int all, const char *group, char *err,
			size_t errlen)
{
	struct bucket b = { 0 };
	char last[96] = "";
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT hdb, grp, name, bucket, t_s, rate, mean_us, p99_us,"
			       " stage, stage_us FROM _ntp_text_series"
			       " WHERE (?1 IS NULL OR name LIKE '%' || ?1 || '%') AND (io OR ?2)"
			       " ORDER BY NOT io, hdb, grp, bucket, ord", -1, &st, NULL) != SQLITE_OK)
		return ntp_fail(err, errlen, "%s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, group, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, all);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!same_bucket(st, &b)) {
			bucket_flush(f, &b, last, sizeof(last));
			bucket_free(&b);
			bucket_start(st, &b);
		}
		if (b.n < MAX_STAGES) {
			b.stage[b.n] = text(st, 8);
			b.value[b.n++] = text(st, 9);
		}
	}
	bucket_flush(f, &b, last, sizeof(last));
	bucket_free(&b);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : ntp_fail(err, errlen, "%s", sqlite3_errmsg(db));
}

/* Set the buckets' width; *WIDTH_S gets it as the report prints it (free). */
static int set_width(sqlite3 *db, int64_t width_ns, char **width_s)
{
	char *sql = sqlite3_mprintf("UPDATE ntp_bucket SET width_ns = %lld", (long long)width_ns);
	sqlite3_stmt *st = NULL;
	int rc = !sql || sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK ||
		 sqlite3_prepare_v2(db, "SELECT width_s FROM _ntp_text_series_width", -1, &st,
				    NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW;

	*width_s = rc ? NULL : text(st, 0);
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc || !*width_s ? -1 : 0;
}

int ntp_report_timeline(struct ntp_session *s, FILE *f, int flags, const char *group,
			int64_t width_ns, char *err, size_t errlen)
{
	char *width_s;
	int rc;

	if (ntp_session_prepare(s, err, errlen))
		return -1;
	if (set_width(s->db, width_ns, &width_s))
		return ntp_fail(err, errlen, "%s", sqlite3_errmsg(s->db));
	fprintf(f, "time series: buckets of %s s from each host's first command (t_s: bucket "
		"start, s); mean, p99 and each stage's mean in us\n", width_s);
	rc = print_series(s->db, f, (flags & NTP_REPORT_ALL) || group, group, err, errlen);
	free(width_s);
	return rc;
}
