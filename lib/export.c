// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof export: the views of sql/export.sql written as CSV or JSON lines
 * (lib/out.c's writers), to standard output or one new file per table, or
 * loaded into ClickHouse (lib/clickhouse.c). The rows are the views'; this
 * file only chooses which and where.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ntp_err.h"
#include "ntp_export.h"

static const char *const names[NTP_EXPORT_NTABLES] = {
	[NTP_EXPORT_COMMAND] = "command",
	[NTP_EXPORT_INTERVAL] = "interval",
	[NTP_EXPORT_LOST] = "lost",
	[NTP_EXPORT_RECORDING] = "recording",
};

const char *ntp_export_name(int t)
{
	return t >= 0 && t < NTP_EXPORT_NTABLES ? names[t] : NULL;
}

int ntp_export_table(const char *name)
{
	for (int t = 0; t < NTP_EXPORT_NTABLES; t++)
		if (!strcmp(name, names[t]))
			return t;
	return -1;
}

char *ntp_export_select(int t, int only_new)
{
	/* the column naming each row's recording: a command's is its host's */
	const char *col = t == NTP_EXPORT_COMMAND ? "host_recording" : "recording";

	if (!only_new)
		return sqlite3_mprintf("SELECT * FROM ntp_export_%s", names[t]);
	return sqlite3_mprintf("SELECT * FROM ntp_export_%s WHERE %s IN"
			       " (SELECT recording FROM temp._ntp_export_load)", names[t], col);
}

/* Table T to O (its file or stream). */
static int write_table(struct ntp_session *s, struct ntp_out *o, int t, char *err,
		       size_t errlen)
{
	char *sql = ntp_export_select(t, 0), msg[512];
	int rc;

	if (!sql)
		return ntp_fail(err, errlen, "out of memory");
	rc = ntp_out_query(o, s->db, sql, msg, sizeof(msg));
	sqlite3_free(sql);
	if (rc)
		return ntp_fail(err, errlen, "failed to export the %s table: %s", names[t], msg);
	if (ferror(o->f))
		return ntp_fail(err, errlen, "failed to write the %s table: %s", names[t],
				strerror(errno));
	return 0;
}

/* The tables O names: one, or all. */
static int first_table(const struct ntp_export_opts *o)
{
	return o->table >= 0 ? o->table : 0;
}

static int end_table(const struct ntp_export_opts *o)
{
	return o->table >= 0 ? o->table + 1 : NTP_EXPORT_NTABLES;
}

/* Each table into PREFIX-NAME.EXT, new files: none of them may exist. */
static int write_files(struct ntp_session *s, const struct ntp_export_opts *o, FILE *list,
		       char *err, size_t errlen)
{
	const char *ext = o->mode == NTP_MODE_JSONL ? "jsonl" : "csv";
	char *path[NTP_EXPORT_NTABLES] = { NULL };
	int made[NTP_EXPORT_NTABLES] = { 0 }, rc = 0;
	struct stat st;

	for (int t = first_table(o); !rc && t < end_table(o); t++) {
		path[t] = sqlite3_mprintf("%s-%s.%s", o->prefix, names[t], ext);
		if (!path[t])
			rc = ntp_fail(err, errlen, "out of memory");
		else if (!lstat(path[t], &st))
			rc = ntp_fail(err, errlen, "%s: exists; ntprof export writes new files",
				      path[t]);
	}
	for (int t = first_table(o); !rc && t < end_table(o); t++) {
		int fd = open(path[t], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		struct ntp_out out = { .mode = o->mode, .headers = 1, .empty_header = 1 };

		if (fd < 0 || !(out.f = fdopen(fd, "w"))) {
			rc = ntp_fail(err, errlen, "failed to create %s: %s", path[t],
				      strerror(errno));
			if (fd >= 0)
				close(fd);
			break;
		}
		made[t] = 1;
		rc = write_table(s, &out, t, err, errlen);
		if (fclose(out.f) && !rc)
			rc = ntp_fail(err, errlen, "failed to write %s: %s", path[t],
				      strerror(errno));
	}
	for (int t = first_table(o); t < end_table(o); t++) {
		if (rc && made[t])
			unlink(path[t]);
		else if (made[t])
			fprintf(list, "%s\n", path[t]);
		sqlite3_free(path[t]);
	}
	return rc;
}

/* The run's label, given: every row says it. */
static int set_label(struct ntp_session *s, const char *label, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, "UPDATE temp.ntp_run SET run = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return ntp_fail(err, errlen, "failed to set the label: %s", sqlite3_errmsg(s->db));
	sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc ? ntp_fail(err, errlen, "failed to set the label: %s", sqlite3_errmsg(s->db))
		  : 0;
}

int ntp_export(struct ntp_session *s, const struct ntp_export_opts *o, FILE *f, char *err,
	       size_t errlen)
{
	struct ntp_out out = { .f = f, .mode = o->mode, .headers = 1, .empty_header = 1 };

	if (o->label && set_label(s, o->label, err, errlen))
		return -1;
	if (ntp_session_prepare(s, err, errlen))
		return -1;
	if (o->clickhouse)
		return ntp_clickhouse_load(s, o->clickhouse, f, err, errlen);
	if (o->prefix)
		return write_files(s, o, f, err, errlen);
	return write_table(s, &out, first_table(o), err, errlen);
}
