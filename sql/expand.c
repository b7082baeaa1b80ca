// SPDX-License-Identifier: BSD-2-Clause
/*
 * sql-expand: write a file of sql/ with its generated lines filled in.
 *
 * A list that names the components or stages (a CASE over every component,
 * the arguments of ntp_dist(), a stage's sum of components, ...) is written
 * in sql/ as the query that makes it, over the vocabulary: a run of lines
 * that begin with "--@" is one query, and its place in the output holds the
 * query's rows, one line each. vocab.sql is then the one home of the
 * lists; the built files (OUTPUT/sql) are what ntprof embeds and installs.
 *
 * Usage: sql-expand IN.sql OUT.sql DEFS.sql...
 *   DEFS are read first into an in-memory database (vocab.sql, then
 *   sql/lists.sql's helper views). A query must give one column and at
 *   least one row, and no NULL; anything else is an error naming IN's line,
 *   and OUT is not written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			char *p = realloc(buf, cap = cap * 2 + 4096);

			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	buf[len] = '\0';
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* wrap(ITEM, PER_LINE, INDENT, SEP), an aggregate: the items joined by SEP,
 * PER_LINE on a line (0: all on one; -W: as many as fit in W columns),
 * each line after INDENT and every line but the last ending in SEP less its
 * trailing blanks. The items come in the order the query gives them (a
 * subquery's ORDER BY). */
struct wrap {
	sqlite3_str *text;
	int items, on_line, col;
};

static void wrap_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct wrap *w = sqlite3_aggregate_context(ctx, sizeof(*w));
	const char *item = (const char *)sqlite3_value_text(argv[0]);
	const char *indent = (const char *)sqlite3_value_text(argv[2]);
	const char *sep = (const char *)sqlite3_value_text(argv[3]);
	int per = sqlite3_value_int(argv[1]);
	int brk, len;

	if (!w) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (!item) {
		sqlite3_result_error(ctx, "wrap: a NULL item", -1);
		return;
	}
	if (!indent)
		indent = "";
	if (!sep)
		sep = "";
	if (!w->text)
		w->text = sqlite3_str_new(NULL);
	len = (int)strlen(sep);
	brk = w->items && ((per > 0 && w->on_line == per) ||
			   (per < 0 && w->col + len + (int)strlen(item) > -per));
	if (!w->items || brk) {
		if (brk) {
			while (len > 0 && sep[len - 1] == ' ')
				len--;
			sqlite3_str_appendf(w->text, "%.*s\n", len, sep);
		}
		sqlite3_str_appendall(w->text, indent);
		w->col = (int)strlen(indent);
		w->on_line = 0;
	} else {
		sqlite3_str_appendall(w->text, sep);
		w->col += len;
	}
	sqlite3_str_appendall(w->text, item);
	w->col += (int)strlen(item);
	w->on_line++;
	w->items++;
}

static void wrap_final(sqlite3_context *ctx)
{
	struct wrap *w = sqlite3_aggregate_context(ctx, 0);

	if (!w || !w->text) {
		sqlite3_result_null(ctx);
		return;
	}
	sqlite3_result_text(ctx, sqlite3_str_finish(w->text), -1, sqlite3_free);
}

/* Write query SQL's rows to OUT, one line each. 0, or -1 with the reason
 * printed (IN and LINE: where the query starts). */
static int expand(sqlite3 *db, const char *sql, FILE *out, const char *in, int line)
{
	sqlite3_stmt *st;
	const char *tail;
	int rc, rows = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
		fprintf(stderr, "%s:%d: %s\n", in, line, sqlite3_errmsg(db));
		return -1;
	}
	if (!st || strspn(tail, " \t\n;") != strlen(tail)) {
		fprintf(stderr, "%s:%d: one query per run of --@ lines\n", in, line);
		sqlite3_finalize(st);
		return -1;
	}
	if (sqlite3_column_count(st) != 1) {
		fprintf(stderr, "%s:%d: the query gives %d columns, not one\n", in, line,
			sqlite3_column_count(st));
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
			fprintf(stderr, "%s:%d: the query's row %d is NULL\n", in, line, rows + 1);
			sqlite3_finalize(st);
			return -1;
		}
		fprintf(out, "%s\n", (const char *)sqlite3_column_text(st, 0));
		rows++;
	}
	if (rc != SQLITE_DONE) {
		fprintf(stderr, "%s:%d: %s\n", in, line, sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	if (!rows) {
		fprintf(stderr, "%s:%d: the query gives no line\n", in, line);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *in, *outpath;
	char *text, *line, *next, *tmp;
	char *query = NULL;
	size_t qlen = 0;
	int lineno = 0, qline = 0, err = 0;
	sqlite3 *db;
	FILE *out;

	if (argc < 4) {
		fprintf(stderr, "usage: sql-expand IN.sql OUT.sql DEFS.sql...\n");
		return 2;
	}
	in = argv[1];
	outpath = argv[2];
	if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
		fprintf(stderr, "sql-expand: cannot open a database\n");
		return 1;
	}
	sqlite3_create_function(db, "wrap", 4, SQLITE_UTF8, NULL, NULL, wrap_step, wrap_final);
	for (int i = 3; i < argc; i++) {
		char *defs = slurp(argv[i]);

		if (!defs) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (sqlite3_exec(db, defs, NULL, NULL, NULL) != SQLITE_OK) {
			fprintf(stderr, "%s: %s\n", argv[i], sqlite3_errmsg(db));
			return 1;
		}
		free(defs);
	}
	text = slurp(in);
	if (!text) {
		fprintf(stderr, "%s: %s\n", in, strerror(errno));
		return 1;
	}
	if (asprintf(&tmp, "%s.tmp", outpath) < 0 || !(out = fopen(tmp, "w"))) {
		fprintf(stderr, "%s.tmp: %s\n", outpath, strerror(errno));
		return 1;
	}
	for (line = text; *line && !err; line = next) {
		size_t len;

		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		len = (size_t)(next - line);
		lineno++;
		if (!strncmp(line, "--@", 3)) {
			char *q = realloc(query, qlen + len + 1);

			if (!q) {
				err = 1;
				break;
			}
			query = q;
			if (!qlen)
				qline = lineno;
			memcpy(query + qlen, line + 3, len - 3);
			qlen += len - 3;
			query[qlen] = '\0';
			continue;
		}
		if (qlen) {
			err = expand(db, query, out, in, qline) < 0;
			qlen = 0;
		}
		if (!err)
			fwrite(line, 1, len, out);
	}
	if (!err && qlen)
		err = expand(db, query, out, in, qline) < 0;
	if (fclose(out) != 0 && !err) {
		fprintf(stderr, "%s: %s\n", tmp, strerror(errno));
		err = 1;
	}
	if (!err && rename(tmp, outpath) < 0) {
		fprintf(stderr, "%s: %s\n", outpath, strerror(errno));
		err = 1;
	}
	if (err)
		unlink(tmp);
	free(query);
	free(text);
	free(tmp);
	sqlite3_close(db);
	return err;
}
