// SPDX-License-Identifier: BSD-2-Clause
/*
 * Loading an export into ClickHouse (ntprof export --clickhouse URL): a
 * small HTTP/1.1 client over a plain socket, for ClickHouse's HTTP
 * interface. Each request is a POST whose body is sent in chunks as it is
 * written (a FILE that lib/out.c's JSON lines writer writes into), so an
 * export of any size streams without a copy in memory.
 *
 * Idempotence, keyed by recording id: the server is asked which of the
 * session's recordings it holds already with the same version, run and
 * targets (ntp_fleet_recording), and only the others are sent; their
 * commands, intervals and losses first, their recording rows last, so that
 * a recording's row says its other rows are in. A load cut short leaves no
 * recording row: the next load sends the recording again, and the tables'
 * ReplacingMergeTree engine keeps one copy of each row.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "ntp_err.h"
#include "ntp_export.h"
#include "ntp_version.h"

/* Seconds a read or write of the socket may wait: the server answers an
 * insert once it has written every row. */
#define CH_TIMEOUT_S 600

/* A response: more than this is an error (ours are short). */
#define CH_RESPONSE_MAX (16 << 20)

/* The parts of the URL. */
struct ch_url {
	char host[256];
	char port[8];
	char path[1024];   /* from '/', without the query */
	char params[2048]; /* the URL's query, without '?'; "" for none */
	char auth[512];    /* base64 of USER:PASSWORD; "" for none */
	const char *given; /* as given, for messages */
};

/* One request under way: its socket and the body's chunks. */
struct ch_conn {
	int fd;
	int failed; /* errno of a failed send; 0 */
};

static void base64(const char *in, size_t n, char *out, size_t outlen)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < n && o + 5 < outlen; i += 3) {
		unsigned v = (unsigned char)in[i] << 16;

		v |= i + 1 < n ? (unsigned char)in[i + 1] << 8 : 0;
		v |= i + 2 < n ? (unsigned char)in[i + 2] : 0;
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? b64[v & 63] : '=';
	}
	out[o] = 0;
}

/* Copy N bytes of S into the field DST of SIZE; -1 if it does not fit. */
static int field(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size)
		return -1;
	memcpy(dst, s, n);
	dst[n] = 0;
	return 0;
}

/* http://[USER[:PASSWORD]@]HOST[:PORT][/PATH][?PARAMS] */
static int parse_url(const char *url, struct ch_url *u, char *err, size_t errlen)
{
	const char *p = url + 7, *end, *at, *colon;

	memset(u, 0, sizeof(*u));
	u->given = url;
	if (!strncmp(url, "https://", 8))
		return ntp_fail(err, errlen, "--clickhouse: '%s': https is not supported; use "
				"http on a trusted network, or a TLS proxy", url);
	if (strncmp(url, "http://", 7))
		return ntp_fail(err, errlen, "--clickhouse: '%s': expected a URL "
				"http://[USER[:PASSWORD]@]HOST[:PORT][/PATH][?PARAMS]", url);
	end = p + strcspn(p, "/?");
	at = memchr(p, '@', (size_t)(end - p));
	if (at) {
		char userinfo[384];

		if (field(userinfo, sizeof(userinfo), p, (size_t)(at - p)))
			return ntp_fail(err, errlen, "--clickhouse: '%s': user and password too "
					"long", url);
		base64(userinfo, strlen(userinfo), u->auth, sizeof(u->auth));
		p = at + 1;
	}
	if (*p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (!close || field(u->host, sizeof(u->host), p + 1, (size_t)(close - p - 1)))
			return ntp_fail(err, errlen, "--clickhouse: '%s': bad host", url);
		colon = close + 1 < end && close[1] == ':' ? close + 1 : NULL;
	} else {
		colon = memchr(p, ':', (size_t)(end - p));
		if (field(u->host, sizeof(u->host), p, (size_t)((colon ? colon : end) - p)))
			return ntp_fail(err, errlen, "--clickhouse: '%s': bad host", url);
	}
	if (!u->host[0])
		return ntp_fail(err, errlen, "--clickhouse: '%s': no host", url);
	if (colon) {
		if (field(u->port, sizeof(u->port), colon + 1, (size_t)(end - colon - 1)) ||
		    !u->port[0] || strspn(u->port, "0123456789") != strlen(u->port))
			return ntp_fail(err, errlen, "--clickhouse: '%s': bad port", url);
	} else {
		strcpy(u->port, "8123");
	}
	p = end;
	end = p + strcspn(p, "?");
	if (field(u->path, sizeof(u->path), *p == '/' ? p : "/", *p == '/' ? (size_t)(end - p) : 1) ||
	    (*end == '?' && field(u->params, sizeof(u->params), end + 1, strlen(end + 1))))
		return ntp_fail(err, errlen, "--clickhouse: '%s': too long", url);
	return 0;
}

int ntp_clickhouse_check_url(const char *url, char *err, size_t errlen)
{
	struct ch_url u;

	return parse_url(url, &u, err, errlen);
}

/* S percent-encoded, as a URL's query value. */
static void url_encode(sqlite3_str *q, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-_.~", c))
			sqlite3_str_appendchar(q, 1, (char)c);
		else
			sqlite3_str_appendf(q, "%%%02X", c);
	}
}

/* Send all of BUF; 0, or -1 with errno. */
static int send_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t k = send(fd, buf, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		buf += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The body's FILE writes one chunk per buffer it flushes. */
static ssize_t chunk_write(void *cookie, const char *buf, size_t n)
{
	struct ch_conn *c = cookie;
	char head[24];

	if (c->failed)
		return -1;
	if (!n)
		return 0;
	snprintf(head, sizeof(head), "%zx\r\n", n);
	if (send_all(c->fd, head, strlen(head)) || send_all(c->fd, buf, n) ||
	    send_all(c->fd, "\r\n", 2)) {
		c->failed = errno ? errno : EIO;
		return -1;
	}
	return (ssize_t)n;
}

/* A connected socket to U, with timeouts; -1 with err set. */
static int ch_connect(const struct ch_url *u, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct timeval tv = { .tv_sec = CH_TIMEOUT_S };
	struct addrinfo *res, *a;
	int fd = -1, rc, e = 0;

	rc = getaddrinfo(u->host, u->port, &hints, &res);
	if (rc)
		return ntp_fail(err, errlen, "failed to find %s: %s", u->host, gai_strerror(rc));
	for (a = res; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(fd, a->ai_addr, a->ai_addrlen)) {
			e = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		return ntp_fail(err, errlen, "failed to connect to ClickHouse at %s:%s: %s",
				u->host, u->port, strerror(e ? e : EHOSTUNREACH));
	return fd;
}

/* Read the whole response of FD into a new buffer (*LEN bytes). */
static char *read_all(int fd, size_t *len)
{
	size_t n = 0, cap = 8192;
	char *buf = malloc(cap + 1), *p;
	ssize_t k;

	while (buf) {
		if (n == cap) {
			if (cap >= CH_RESPONSE_MAX)
				break;
			cap *= 2;
			p = realloc(buf, cap + 1);
			if (!p)
				break;
			buf = p;
		}
		k = recv(fd, buf + n, cap - n, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			buf[n] = 0;
			*len = n;
			return buf;
		}
		n += (size_t)k;
	}
	free(buf);
	return NULL;
}

/* Decode a chunked body in place (BODY, N bytes); the decoded length. */
static size_t unchunk(char *body, size_t n)
{
	size_t in = 0, out = 0;

	while (in < n) {
		char *end;
		unsigned long k = strtoul(body + in, &end, 16);
		char *crlf = strstr(end, "\r\n");

		if (!crlf || !k)
			break;
		in = (size_t)(crlf + 2 - body);
		if (k > n - in)
			k = n - in;
		memmove(body + out, body + in, k);
		out += k;
		in += k + 2;
	}
	body[out] = 0;
	return out;
}

/* A response: its status and its body (decoded, NUL-terminated). */
struct ch_response {
	int status;
	char *buf;  /* the whole response, malloc'ed */
	char *body; /* in buf */
};

static int parse_response(char *buf, size_t n, struct ch_response *r)
{
	char *body = strstr(buf, "\r\n\r\n");

	r->buf = buf;
	if (sscanf(buf, "HTTP/1.%*d %d", &r->status) != 1 || !body)
		return -1;
	*body = 0; /* the headers, alone */
	r->body = body + 4;
	if (strcasestr(buf, "\r\ntransfer-encoding: chunked"))
		unchunk(r->body, n - (size_t)(r->body - buf));
	return 0;
}

/* The first line of an error body, for a one-line message. */
static const char *first_line(char *s)
{
	s[strcspn(s, "\r\n")] = 0;
	return s;
}

/*
 * POST to U with QUERY (if not NULL) in the URL and SETTINGS after U's own
 * parameters; the body written by FILL(ARG, body). On 200, the response
 * body into *OUT (malloc'ed, in R->buf) and 0; else -1 with err set, WHAT
 * naming the request.
 */
static int ch_post(const struct ch_url *u, const char *query, const char *settings,
		   int (*fill)(void *arg, FILE *body), void *arg, struct ch_response *r,
		   const char *what, char *err, size_t errlen)
{
	static const cookie_io_functions_t io = { .write = chunk_write };
	struct ch_conn c = { .fd = -1 };
	sqlite3_str *q = sqlite3_str_new(NULL);
	char *head, *buf;
	FILE *body = NULL;
	int rc = -1;
	size_t n;

	memset(r, 0, sizeof(*r));
	sqlite3_str_appendf(q, "POST %s?%s", u->path, u->params);
	if (settings)
		sqlite3_str_appendf(q, "%s%s", u->params[0] ? "&" : "", settings);
	if (query) {
		sqlite3_str_appendall(q, u->params[0] || settings ? "&query=" : "query=");
		url_encode(q, query);
	}
	sqlite3_str_appendf(q, " HTTP/1.1\r\nHost: %s:%s\r\nUser-Agent: ntprof/%s\r\n",
			    u->host, u->port, NTP_VERSION);
	if (u->auth[0])
		sqlite3_str_appendf(q, "Authorization: Basic %s\r\n", u->auth);
	sqlite3_str_appendall(q, "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
	head = sqlite3_str_finish(q);
	if (!head)
		return ntp_fail(err, errlen, "out of memory");
	c.fd = ch_connect(u, err, errlen);
	if (c.fd < 0)
		goto out;
	if (send_all(c.fd, head, strlen(head))) {
		ntp_fail(err, errlen, "failed to send %s to %s: %s", what, u->given,
			 strerror(errno));
		goto out;
	}
	body = fopencookie(&c, "w", io);
	if (!body || setvbuf(body, NULL, _IOFBF, 1 << 16)) {
		ntp_fail(err, errlen, "out of memory");
		goto out;
	}
	rc = fill(arg, body);
	if (fclose(body) && !rc && !c.failed)
		rc = -1;
	body = NULL;
	if (rc && !c.failed) {
		/* the body is not whole: it is not ended, so the server takes
		 * none of it as a complete request */
		ntp_fail(err, errlen, "failed to write %s", what);
		goto out;
	}
	if (!c.failed && send_all(c.fd, "0\r\n\r\n", 5))
		c.failed = errno;
	/* the server may have answered (an error) before taking all of it */
	buf = read_all(c.fd, &n);
	if (!buf || parse_response(buf, n, r)) {
		free(buf);
		r->buf = NULL;
		rc = ntp_fail(err, errlen, "failed to send %s to %s: %s", what, u->given,
			      c.failed ? strerror(c.failed) : "no HTTP response");
	} else if (r->status != 200) {
		rc = ntp_fail(err, errlen, "failed to send %s to %s: HTTP %d: %.400s", what,
			      u->given, r->status, first_line(r->body));
	} else if (c.failed) {
		rc = ntp_fail(err, errlen, "failed to send %s to %s: %s", what, u->given,
			      strerror(c.failed));
	}
out:
	if (body)
		fclose(body);
	if (c.fd >= 0)
		close(c.fd);
	sqlite3_free(head);
	if (rc) {
		free(r->buf);
		memset(r, 0, sizeof(*r));
	}
	return rc;
}

/* S as a ClickHouse string literal. */
static void ch_string(sqlite3_str *q, const char *s)
{
	sqlite3_str_appendchar(q, 1, '\'');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\'' || c == '\\')
			sqlite3_str_appendf(q, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			sqlite3_str_appendf(q, "\\x%02X", c);
		else
			sqlite3_str_appendchar(q, 1, (char)c);
	}
	sqlite3_str_appendchar(q, 1, '\'');
}

/* What the loader knows of the session's recordings. */
struct load {
	struct ntp_session *s;
	int n;               /* recordings */
	char **id;           /* their ids */
	int *there;          /* 1: ClickHouse has it, of the same version, run, targets */
	char *sql;           /* the body of a query; NULL */
	int table;           /* the table being sent */
	uint64_t rows[NTP_EXPORT_NTABLES];
	char msg[512];       /* a session error while the body is written */
};

/* The body that is just the query in L->sql. */
static int fill_sql(void *arg, FILE *body)
{
	struct load *l = arg;

	return fputs(l->sql, body) < 0 ? -1 : 0;
}

/*
 * Ask the server which recordings it holds already: the indexes of those
 * whose (version, run, recording, targets) is a row of ntp_fleet_recording.
 */
static int ask_loaded(struct load *l, const struct ch_url *u, char *err, size_t errlen)
{
	sqlite3_str *q = sqlite3_str_new(NULL), *ids = sqlite3_str_new(NULL);
	struct ch_response r;
	sqlite3_stmt *st;
	char *p, *idlist;
	int rc = 0, i = 0;

	if (sqlite3_prepare_v2(l->s->db, "SELECT version, run, recording, targets FROM"
			       " ntp_export_recording", -1, &st, NULL) != SQLITE_OK) {
		sqlite3_free(sqlite3_str_finish(q));
		sqlite3_free(sqlite3_str_finish(ids));
		return ntp_fail(err, errlen, "failed to list the recordings: %s",
				sqlite3_errmsg(l->s->db));
	}
	sqlite3_str_appendall(q, "SELECT tupleElement(k, 1) FROM (SELECT arrayJoin([");
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(st, 2);

		if (i == l->n) {
			rc = ntp_fail(err, errlen, "more recordings than the session holds");
			break;
		}
		l->id[i] = strdup(id ? id : "");
		if (!l->id[i])
			rc = ntp_fail(err, errlen, "out of memory");
		sqlite3_str_appendf(q, "%s(%d, %lld, ", i ? ", " : "", i,
				    (long long)sqlite3_column_int64(st, 0));
		ch_string(q, (const char *)sqlite3_column_text(st, 1));
		sqlite3_str_appendall(q, ", ");
		ch_string(q, id);
		sqlite3_str_appendall(q, ", ");
		ch_string(q, (const char *)sqlite3_column_text(st, 3));
		sqlite3_str_appendall(q, ")");
		if (i)
			sqlite3_str_appendall(ids, ", ");
		ch_string(ids, id);
		i++;
	}
	sqlite3_finalize(st);
	l->n = i;
	idlist = sqlite3_str_finish(ids);
	sqlite3_str_appendf(q, "]) AS k) WHERE (toUInt32(tupleElement(k, 2)), tupleElement(k, 3),"
			    " tupleElement(k, 4), tupleElement(k, 5)) IN (SELECT version, run,"
			    " recording, targets FROM ntp_fleet_recording FINAL WHERE recording IN"
			    " (%s)) FORMAT TabSeparated", idlist ? idlist : "");
	sqlite3_free(idlist);
	l->sql = sqlite3_str_finish(q);
	if (!rc && (!l->sql || !i))
		rc = ntp_fail(err, errlen, !l->sql ? "out of memory" : "no recording to load");
	if (!rc)
		rc = ch_post(u, NULL, NULL, fill_sql, l, &r, "the query of the recordings loaded",
			     err, errlen);
	sqlite3_free(l->sql);
	l->sql = NULL;
	if (rc)
		return rc;
	for (p = r.body; !rc && *p; p += strcspn(p, "\n"), p += *p == '\n') {
		char *end;
		long k = strtol(p, &end, 10);

		if (end == p || k < 0 || k >= l->n || (*end && *end != '\n'))
			rc = ntp_fail(err, errlen, "failed to read ClickHouse's answer: '%.80s'", p);
		else
			l->there[k] = 1;
	}
	free(r.buf);
	return rc;
}

/* The recordings to send into the TEMP table _ntp_export_load. */
static int mark_new(struct load *l, char *err, size_t errlen)
{
	sqlite3 *db = l->s->db;
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_exec(db, "CREATE TEMP TABLE IF NOT EXISTS _ntp_export_load ("
			 " recording TEXT PRIMARY KEY -- ntp_export_recording.recording\n"
			 ") WITHOUT ROWID; DELETE FROM temp._ntp_export_load", NULL, NULL,
			 NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO temp._ntp_export_load VALUES (?)", -1, &st,
			       NULL) != SQLITE_OK)
		return ntp_fail(err, errlen, "failed to list the recordings to load: %s",
				sqlite3_errmsg(db));
	for (int i = 0; !rc && i < l->n; i++) {
		if (l->there[i])
			continue;
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, l->id[i], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = ntp_fail(err, errlen, "failed to list the recordings to load: %s",
				      sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	return rc;
}

/* The body of an insert: table L->table's rows of the new recordings, as
 * JSON lines (JSONEachRow). */
static int fill_rows(void *arg, FILE *body)
{
	struct load *l = arg;
	struct ntp_out o = { .f = body, .mode = NTP_MODE_JSONL };
	char *sql = ntp_export_select(l->table, 1);
	int rc;

	if (!sql)
		return -1;
	rc = ntp_out_query(&o, l->s->db, sql, l->msg, sizeof(l->msg));
	sqlite3_free(sql);
	l->rows[l->table] = o.rows;
	return rc;
}

/* Insert table T's rows of the new recordings into ntp_fleet_T. */
static int send_table(struct load *l, const struct ch_url *u, int t, char *err, size_t errlen)
{
	const char *name = ntp_export_name(t);
	struct ch_response r;
	char query[96], what[64];
	int rc;

	snprintf(query, sizeof(query), "INSERT INTO ntp_fleet_%s FORMAT JSONEachRow", name);
	snprintf(what, sizeof(what), "the %s rows", name);
	l->table = t;
	l->msg[0] = 0;
	/* the rows are on the shards when the server answers; columns a
	 * newer ntprof adds are left out by an older table */
	rc = ch_post(u, query, "insert_distributed_sync=1&input_format_skip_unknown_fields=1",
		     fill_rows, l, &r, what, err, errlen);
	if (rc && l->msg[0])
		return ntp_fail(err, errlen, "failed to export the %s table: %s", name, l->msg);
	if (!rc)
		free(r.buf);
	return rc;
}

int ntp_clickhouse_load(struct ntp_session *s, const char *url, FILE *f, char *err,
			size_t errlen)
{
	struct load l = { .s = s, .n = s->ndbs };
	struct ch_url u;
	int rc, there = 0;

	if (parse_url(url, &u, err, errlen))
		return -1;
	l.id = calloc((size_t)l.n, sizeof(*l.id));
	l.there = calloc((size_t)l.n, sizeof(*l.there));
	rc = !l.id || !l.there ? ntp_fail(err, errlen, "out of memory") : 0;
	if (!rc)
		rc = ask_loaded(&l, &u, err, errlen);
	for (int i = 0; !rc && i < l.n; i++)
		there += l.there[i];
	if (!rc && there < l.n)
		rc = mark_new(&l, err, errlen);
	/* the recording rows last: each says its recording's rows are in */
	for (int t = 0; !rc && there < l.n && t < NTP_EXPORT_NTABLES; t++)
		rc = send_table(&l, &u, t, err, errlen);
	if (!rc)
		fprintf(f, "loaded %d recordings (%llu commands, %llu interval rows, %llu loss "
			"rows); %d loaded before\n", l.n - there,
			(unsigned long long)l.rows[NTP_EXPORT_COMMAND],
			(unsigned long long)l.rows[NTP_EXPORT_INTERVAL],
			(unsigned long long)l.rows[NTP_EXPORT_LOST], there);
	for (int i = 0; l.id && i < l.n; i++)
		free(l.id[i]);
	free(l.id);
	free(l.there);
	return rc;
}
