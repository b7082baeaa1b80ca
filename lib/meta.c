// SPDX-License-Identifier: BSD-2-Clause
/*
 * What a recording says of itself, into its entry of the session: a
 * file's meta row and record counts, or, for a merged file, its rows of
 * ntp_merged_recording, an entry for each recording it holds. Each must
 * say what ntprof writes (one meta row, a known role, driver and
 * transport, this schema version, a sampling rate).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ntp_err.h"
#include "ntp_meta.h"
#include "ntp_schema.h"
#include "ntp_session.h"

static void copy_col(char *dst, size_t n, sqlite3_stmt *st, int col)
{
	const unsigned char *v = sqlite3_column_text(st, col);

	snprintf(dst, n, "%s", v ? (const char *)v : "");
}

/* meta must agree with the file's schema and say what ntprof writes: the
 * role its schema has, this schema version, a known driver and transport,
 * a sampling rate. */
static int check_meta(const struct ntp_dbinfo *d, const char *role, int64_t version,
		      char *err, size_t errlen)
{
	if (!role || strcmp(role, d->role))
		return ntp_fail(err, errlen, "%s: meta.role is '%s', but it has a %s's schema",
				d->path, role ? role : "", d->role);
	if (version != NTP_SCHEMA_VERSION)
		return ntp_fail(err, errlen, "%s: meta.schema_version is %lld, the file's is %d",
				d->path, (long long)version, NTP_SCHEMA_VERSION);
	if (strcmp(d->driver, "kernel") && strcmp(d->driver, "spdk"))
		return ntp_fail(err, errlen, "%s: meta.driver '%s' is neither kernel nor spdk",
				d->path, d->driver);
	if (strcmp(d->transport, "tcp") && strcmp(d->transport, "rdma"))
		return ntp_fail(err, errlen, "%s: meta.transport '%s' is neither tcp nor rdma",
				d->path, d->transport);
	if (d->sample_rate < 1 || d->sample_rate > 0xffffffffLL)
		return ntp_fail(err, errlen, "%s: meta.sample_rate %lld is not a rate", d->path,
				(long long)d->sample_rate);
	return 0;
}

/* Read meta (exactly one row) and the record counts into D. */
int ntp_read_meta(sqlite3 *db, struct ntp_dbinfo *d, char *err, size_t errlen)
{
	char *sql = sqlite3_mprintf(
		"SELECT m.role, m.driver, m.transport, m.hostname, m.kernel, m.sample_rate,"
		" (SELECT count(*) FROM %w.meta), r.records, r.lost, m.schema_version,"
		" m.wall_start, m.mono_start"
		" FROM %w.meta AS m, %w.ntp_recording AS r", d->schema, d->schema, d->schema);
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (!sql || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		ntp_fail(err, errlen, "%s: cannot read meta: %s", d->path, sqlite3_errmsg(db));
		goto out;
	}
	if (sqlite3_step(st) != SQLITE_ROW) {
		ntp_fail(err, errlen, "%s: no meta row: not a finished ntprof database", d->path);
		goto out;
	}
	if (sqlite3_column_int64(st, 6) != 1) {
		ntp_fail(err, errlen, "%s: %lld meta rows, expected one", d->path,
		     (long long)sqlite3_column_int64(st, 6));
		goto out;
	}
	copy_col(d->driver, sizeof(d->driver), st, 1);
	copy_col(d->transport, sizeof(d->transport), st, 2);
	copy_col(d->hostname, sizeof(d->hostname), st, 3);
	copy_col(d->kernel, sizeof(d->kernel), st, 4);
	d->sample_rate = sqlite3_column_int64(st, 5);
	d->records = sqlite3_column_int64(st, 7);
	d->lost = sqlite3_column_int64(st, 8);
	d->wall_start = sqlite3_column_int64(st, 10);
	d->mono_start = sqlite3_column_int64(st, 11);
	rc = check_meta(d, (const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 9),
			err, errlen);
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

/* One recording of the merged file M from ntp_merged_recording's row in
 * ST: a session entry of its own, read through M's tables. */
static int merged_recording(struct ntp_session *s, const struct ntp_dbinfo *m,
			    sqlite3_stmt *st, char *err, size_t errlen)
{
	struct ntp_dbinfo *d = &s->dbs[s->ndbs];

	if (s->ndbs == NTP_MAX_RECORDINGS)
		return ntp_fail(err, errlen, "%s: more than %d recordings in one session", m->path,
				NTP_MAX_RECORDINGS);
	memset(d, 0, sizeof(*d));
	s->ndbs++;
	d->path = strdup((const char *)sqlite3_column_text(st, 0));
	copy_col(d->stored, sizeof(d->stored), st, 1);
	copy_col(d->role, sizeof(d->role), st, 2);
	copy_col(d->driver, sizeof(d->driver), st, 3);
	copy_col(d->transport, sizeof(d->transport), st, 4);
	copy_col(d->hostname, sizeof(d->hostname), st, 5);
	copy_col(d->kernel, sizeof(d->kernel), st, 6);
	d->sample_rate = sqlite3_column_int64(st, 7);
	d->records = sqlite3_column_int64(st, 8);
	d->lost = sqlite3_column_int64(st, 9);
	d->wall_start = sqlite3_column_int64(st, 10);
	d->mono_start = sqlite3_column_int64(st, 11);
	d->run = m->run;
	d->run_pos = m->run_pos;
	/* merged, merged2, ...: shorter than from (attach_one) */
	memcpy(d->from, m->schema, sizeof(d->from) - 1);
	/* alone, a merged file's recordings keep their names: its report reads
	 * as the report over the files themselves */
	if (s->prefix_merged) {
		char name[sizeof(m->schema) + sizeof(d->stored)];

		snprintf(name, sizeof(name), "%s_%s", m->schema, d->stored);
		/* cut to the schema's size, its last byte the memset's 0 */
		memcpy(d->schema, name, sizeof(d->schema) - 1);
	} else {
		memcpy(d->schema, d->stored, sizeof(d->stored));
	}
	if (!d->path)
		return ntp_fail(err, errlen, "out of memory");
	if (strcmp(d->role, "host") && strcmp(d->role, "target"))
		return ntp_fail(err, errlen, "%s: recording %s has role '%s'", m->path, d->stored,
				d->role);
	if (!strcmp(d->role, "host"))
		s->nhosts++;
	else
		s->ntargets++;
	return check_meta(d, d->role, NTP_SCHEMA_VERSION, err, errlen);
}

/* A merged file's schema version and its recordings, each an entry of the
 * session after M. */
int ntp_read_merged(struct ntp_session *s, struct ntp_dbinfo *m, char *err, size_t errlen)
{
	char *sql = sqlite3_mprintf(
		"SELECT r.path, r.db, r.role, r.driver, r.transport, r.hostname, r.kernel,"
		" r.sample_rate, r.records, r.lost, r.wall_start, r.mono_start,"
		" (SELECT schema_version FROM %w.ntp_merged)"
		" FROM %w.ntp_merged_recording AS r ORDER BY r.ord", m->schema, m->schema);
	sqlite3_stmt *st = NULL;
	int rc = 0, n = 0;

	if (!sql || sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		rc = ntp_fail(err, errlen, "%s: cannot read its recordings: %s", m->path,
			      sqlite3_errmsg(s->db));
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_int64(st, 12) != NTP_SCHEMA_VERSION)
			rc = ntp_fail(err, errlen, "%s: merged from schema version %lld, this "
				      "ntprof reads version %d", m->path,
				      (long long)sqlite3_column_int64(st, 12), NTP_SCHEMA_VERSION);
		else
			rc = merged_recording(s, m, st, err, errlen);
		n++;
	}
	if (!rc && !n)
		rc = ntp_fail(err, errlen, "%s: a merged file without recordings", m->path);
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}
