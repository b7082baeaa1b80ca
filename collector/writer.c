// SPDX-License-Identifier: BSD-2-Clause
/*
 * The writer of `record` (writer.h): the ring buffer into the database,
 * ending an interval (and printing the live lines) every -i seconds,
 * until the sampler switches sampling off; then the rings drained, the
 * database closed with its stop time, the summary printed.
 *
 * Nothing that reached user space is dropped: records go into the
 * database's open transaction, which is committed by the clock, once a
 * second while records come and at each interval's end (so `kill -9`
 * loses at most the last second, and what the ring held), and the ring is
 * drained after sampling is off. In between the writer sleeps, until the
 * next commit or a ring a quarter full wakes it; after a second in which
 * none came, until the interval ends or the first record wakes it (the
 * idle flag, bpf/ntprof_common.bpf.h).
 * What BPF could not hand over is counted per interval and cause as lost,
 * the points stored records lack as gaps, and both are printed. The live lines come from sums kept
 * in memory as the records are stored (ntp_live.h), not from queries.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "clock.h"
#include "fsid.h"
#include "ntp_db.h"
#include "ntp_err.h"
#include "ntp_live.h"
#include "ntp_out.h"
#include "ntp_report.h"
#include "ntp_session.h"
#include "ntprof_abi.h"
#include "writer.h"

#define NS NTP_NS_PER_S
/* How often the open transaction is committed: a kill -9 loses less than
 * this (and the time one commit takes). Each commit is a wake-up of a
 * writer whose caches the workload has long since taken: about 0.1 ms of
 * CPU, so four a second were most of the collectors' cost at -s 100
 * (docs/performance.md, "At rest and under load"). */
#define NTP_COMMIT_NS NS

/* Everything the loop needs. */
struct rec {
	const struct ntp_opts *o;
	struct ntp_bpf *bpf;          /* the maps it reads */
	int chan;                     /* to the sampler (writer.h) */
	int off;                      /* the sampler switched sampling off, or is gone */
	int gone;                     /* it is gone without a word: killed */
	struct ntp_db *db;
	struct ring_buffer *rec_rb;   /* command and device records */
	int idle_fd;                  /* the idle flag's map */
	uint64_t records;             /* commands in the file when it was closed */
	uint64_t unstored;            /* commands that came after a write error */
	uint64_t bad_version;         /* records of another ABI version */
	uint64_t lost_seen[NTP_CAUSE_MAX]; /* BPF's lost counts at the last interval */
	uint64_t lost;                /* records counted as lost, every cause */
	int64_t interval_start;
	int live_header;              /* printed the live header */
	char err[NTP_ERR_MAX];
};

/* N records counted as lost, with their cause. */
static void add_lost(struct rec *r, int cause, uint64_t n)
{
	r->lost += n;
	ntp_db_add_lost(r->db, cause, n);
}

/* A record that cannot be stored is counted as lost, with its cause. */
static void reject(struct rec *r, int cause)
{
	r->bad_version += cause == NTP_CAUSE_ABI_VERSION;
	add_lost(r, cause, 1);
}

static int on_cmd(struct rec *r, const struct ntp_cmd_record *c)
{
	if (c->kind != NTP_KIND_CMD || c->version != NTP_ABI_VERSION) {
		reject(r, NTP_CAUSE_ABI_VERSION);
		return 0;
	}
	if (ntp_db_add_cmd(r->db, c)) {
		if (ntp_db_failed(r->db))
			r->unstored++;
		else
			reject(r, NTP_CAUSE_NO_DEVICE); /* its device record was lost */
	}
	return 0;
}

/* All N records are commands of this ABI. */
static int whole(const struct ntp_cmd_record *c, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (c[i].kind != NTP_KIND_CMD || c[i].version != NTP_ABI_VERSION)
			return 0;
	return 1;
}

/* A batch (struct ntp_batch_header), then its records. */
static int on_batch(struct rec *r, const struct ntp_batch_header *h, size_t len)
{
	const struct ntp_cmd_record *c = (const void *)(h + 1);
	size_t n = (len - sizeof(*h)) / sizeof(*c);

	if (h->version != NTP_ABI_VERSION || len != sizeof(*h) + (size_t)h->n * sizeof(*c)) {
		for (size_t i = 0; i < (n ? n : 1); i++)
			reject(r, NTP_CAUSE_ABI_VERSION);
		return 0;
	}
	if (whole(c, h->n) && ntp_db_add_cmds(r->db, c, (int)h->n) == 0)
		return 0;
	for (uint32_t i = 0; i < h->n; i++) /* one by one, each with its fate */
		on_cmd(r, &c[i]);
	return 0;
}

static int on_record(void *ctx, void *data, size_t len)
{
	struct rec *r = ctx;
	const struct ntp_device_record *d = data;

	if (ntp_db_failed(r->db)) { /* the file takes no more: count what comes */
		if (len > sizeof(struct ntp_batch_header) && *(const uint8_t *)data == NTP_KIND_BATCH)
			r->unstored += ((const struct ntp_batch_header *)data)->n;
		else
			r->unstored += len == sizeof(struct ntp_cmd_record);
		return 0;
	}
	if (len == sizeof(struct ntp_cmd_record))
		return on_cmd(r, data);
	if (len > sizeof(struct ntp_batch_header) && *(const uint8_t *)data == NTP_KIND_BATCH)
		return on_batch(r, data, len);
	if (len == sizeof(*d) && d->kind == NTP_KIND_DEVICE && d->version == NTP_ABI_VERSION) {
		if (ntp_db_add_device(r->db, d))
			fprintf(stderr, "ntprof: failed to store device %.32s: %s\n", d->name,
				ntp_db_errmsg(r->db));
		return 0;
	}
	reject(r, NTP_CAUSE_ABI_VERSION);
	return 0;
}

static void live_header(struct rec *r)
{
	printf("every %g s, per group: sampled commands, rate, latency, and each stage's share of "
	       "the mean\n", r->o->interval);
	if (r->o->role == NTP_ROLE_HOST)
		printf("(*: network and target together; the target's side is not recorded)\n");
	printf("%-6s %-28s %7s %7s %8s %8s %6s %6s %8s %6s %7s\n", "", "", "", "", "", "", "host",
	       "", "", "target", "");
	printf("%-6s %-28s %7s %7s %8s %8s %6s %6s %8s %6s %7s\n", "time", "group", "n", "cmds/s",
	       "mean us", "p99 us", "block", "driver", "network", "driver", "storage");
	r->live_header = 1;
}

/* A group name for the terminal: device names come from the drivers and
 * SPDK's memory, and no control character of theirs reaches the screen. */
static const char *printable(char *buf, size_t n, const char *s)
{
	snprintf(buf, n, "%s", s);
	return ntp_clean_text(buf);
}

/* The live lines of the interval just ended (sql/live.sql's text). */
static void live_lines(struct rec *r)
{
	const struct ntp_live *l = ntp_db_live_of(r->db);
	const struct ntp_live_line *line;
	size_t n = ntp_live_lines(l, &line);
	char name[NTP_LIVE_WIDTH];

	for (size_t i = 0; i < n; i++) {
		const char (*c)[NTP_LIVE_WIDTH] = line[i].col;

		if (!r->live_header)
			live_header(r);
		printf("%-6s %-28s %7s %7s %8s %8s %6s %6s %8s %6s %7s\n", c[0],
		       printable(name, sizeof(name), c[1]), c[2], c[3], c[4], c[5], c[6], c[7], c[8],
		       c[9], c[10]);
	}
	if (ntp_live_error(l))
		fprintf(stderr, "ntprof: live lines: %s\n", ntp_live_error(l));
}

/* What the interval just ended lost and lacks, each with its cause
 * (sql/live_gaps.sql's rows). */
static void gap_lines(struct rec *r)
{
	const struct ntp_live_gap *g;
	size_t n = ntp_live_gaps(ntp_db_live_of(r->db), &g);

	for (size_t i = 0; i < n; i++)
		if (g[i].point[0])
			printf("ntprof: %lld records lack %s in this interval: %s\n",
			       (long long)g[i].n, g[i].point, g[i].why);
		else
			printf("ntprof: %lld records lost in this interval: %s\n", (long long)g[i].n,
			       g[i].why);
}

/* The records BPF could not hand over since the last interval, per cause. */
static void count_bpf_lost(struct rec *r)
{
	uint64_t lost[NTP_CAUSE_MAX];

	ntp_bpf_lost(r->bpf, lost);
	for (int c = 0; c < NTP_CAUSE_MAX; c++) {
		if (lost[c] > r->lost_seen[c])
			add_lost(r, c, lost[c] - r->lost_seen[c]);
		r->lost_seen[c] = lost[c];
	}
}

/* Close the interval ending now: its counts, then its live lines and what
 * it lost or lacks. */
static int end_interval(struct rec *r, int64_t now, int print)
{
	count_bpf_lost(r);
	ntp_bpf_counts(r->bpf, r->db); /* where the backend counts every command */
	/* committed, and its lines made (ntp_db_live) */
	if (ntp_db_end_interval(r->db, r->interval_start, now) < 0)
		return -1; /* ntp_db_failed() says why; the loop stops */
	if (print && !r->o->quiet)
		live_lines(r);
	gap_lines(r);
	fflush(stdout);
	r->interval_start = now;
	return 0;
}

static int create_db(struct rec *r, int64_t wall_start, int64_t mono_start)
{
	const struct ntp_opts *o = r->o;
	char err[NTP_ERR_MAX - 64];
	struct utsname u;
	struct ntp_meta m = {
		.role = o->role, .driver = r->bpf->be->driver, .transport = o->transport,
		.sample_rate = o->rate, .command_line = o->command_line,
	};

	uname(&u);
	m.hostname = u.nodename;
	m.kernel = u.release;
	m.wall_start = wall_start;
	m.mono_start = mono_start;
	ntp_fsid_user();
	r->db = ntp_db_create(o->out, &m, o->force ? NTP_DB_FORCE : 0, r->err, sizeof(r->err));
	ntp_fsid_root();
	if (!r->db) {
		if (ntp_fsid_uid() >= 0) {
			size_t n = strlen(r->err);

			snprintf(r->err + n, sizeof(r->err) - n, " (written as user %ld, who ran sudo)",
				 ntp_fsid_uid());
		}
		return -1;
	}
	r->interval_start = m.mono_start;
	if (ntp_db_live(r->db, o->quiet ? 0 : NTP_LIVE_LINES, err, sizeof(err)))
		return snprintf(r->err, sizeof(r->err), "failed to keep the live lines: %s", err),
		       -1;
	if (ntp_links_write(&r->bpf->links, r->db))
		return snprintf(r->err, sizeof(r->err), "failed to write the hook table: %s",
				ntp_db_errmsg(r->db)), -1;
	return 0;
}

static int open_ring(struct rec *r)
{
	r->idle_fd = bpf_map__fd(ntp_bpf_idle(r->bpf));
	r->rec_rb = ring_buffer__new(bpf_map__fd(ntp_bpf_records(r->bpf)), on_record, r, NULL);
	if (!r->rec_rb) {
		snprintf(r->err, sizeof(r->err), "failed to open the ring buffer: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

static void tell(struct rec *r, char c)
{
	if (send(r->chan, &c, 1, MSG_NOSIGNAL) != 1)
		r->off = r->gone = 1;
}

/*
 * Sleep until DEADLINE (CLOCK_MONOTONIC ns), the ring's wakeup or the
 * sampler's word: 'O', sampling is off; its end of the channel closed
 * without it: the sampler is gone (killed), and the writer goes too. The ring wakes the writer only when a record finds it a
 * quarter full (submit_flags() in bpf/ntprof_common.bpf.h); below that it
 * is read at the deadline, the next commit or interval end. A ring is
 * readable while it holds data, and the loop reads it empty each time.
 */
static void sleep_until(struct rec *r, int64_t deadline)
{
	struct pollfd p[2] = {
		{ .fd = r->chan, .events = POLLIN },
		{ .fd = ring_buffer__epoll_fd(r->rec_rb), .events = POLLIN },
	};
	int64_t wait = deadline - ntp_now_ns(CLOCK_MONOTONIC);
	char c;

	if (r->off)
		return;
	if (poll(p, 2, wait > 0 ? (int)((wait + 999999) / 1000000) : 0) <= 0 ||
	    !(p[0].revents & (POLLIN | POLLHUP)))
		return;
	if (recv(r->chan, &c, 1, MSG_DONTWAIT) <= 0)
		r->off = r->gone = 1;
	else if (c == 'O')
		r->off = 1;
}

/* Set the idle flag to V; 0, or -1 if the map cannot be written. */
static int set_idle(struct rec *r, uint32_t v)
{
	uint32_t zero = 0;

	return bpf_map_update_elem(r->idle_fd, &zero, &v, BPF_ANY) ? -1 : 0;
}

/*
 * Until the sampler switches sampling off: read the ring, end an interval
 * every -i seconds, commit every NTP_COMMIT_NS, and sleep in between.
 * Commits go by the clock, not by how much came: a kill -9 loses what
 * came since the last one, however busy the machine. After a commit
 * period in which no record came the writer goes idle: it sets the idle
 * flag, reads the ring once more (a record that came before the flag was
 * set did not wake it), and sleeps until the interval ends; the first
 * record after that wakes it, and it commits by the clock again. A write
 * error or a ring that cannot be read ends it sooner: the sampler is
 * asked to stop, and what comes until then is counted as not stored.
 */
static void poll_until_off(struct rec *r)
{
	int64_t start = r->interval_start, next = start + (int64_t)(r->o->interval * NS);
	int64_t commit = start + NTP_COMMIT_NS;
	int asked = 0, came = 1, idle = 0;

	while (!r->off) {
		int64_t now;
		int rc = ring_buffer__consume(r->rec_rb);

		if (rc < 0 && rc != -EINTR && !asked) {
			fprintf(stderr, "ntprof: failed to read the ring buffer: %s\n", strerror(-rc));
			tell(r, 'S');
			asked = 1;
		}
		now = ntp_now_ns(CLOCK_MONOTONIC);
		if (rc > 0) {
			came = 1;
			if (idle) { /* the first record woke it: commit by the clock */
				idle = 0;
				commit = now + NTP_COMMIT_NS;
			}
		}
		if (!ntp_db_failed(r->db) && now >= next) {
			end_interval(r, now, 1); /* commits */
			while (next <= now)
				next += (int64_t)(r->o->interval * NS);
			commit = now + NTP_COMMIT_NS;
		}
		if (!idle && !ntp_db_failed(r->db) && now >= commit) {
			ntp_db_commit(r->db);
			commit = now + NTP_COMMIT_NS;
			/* a period without records: sleep until a record or the interval's end */
			if (came || set_idle(r, 1)) {
				came = 0;
			} else if (ring_buffer__consume(r->rec_rb) > 0) {
				/* it came before the flag was set, and woke no one */
				set_idle(r, 0);
				came = 1;
			} else {
				idle = 1;
			}
		}
		if (ntp_db_failed(r->db) && !asked) {
			tell(r, 'S');
			asked = 1;
		}
		sleep_until(r, idle || next < commit ? next : commit);
	}
}

/* Sampling is off: what is still on the way. The patch hands its
 * batches over within a few milliseconds, so a short wait drains them. */
static void drain(struct rec *r)
{
	struct timespec ts = { 0, 100000000 };

	for (int i = 0; i < 3; i++) {
		nanosleep(&ts, NULL);
		ring_buffer__consume(r->rec_rb);
	}
	ring_buffer__consume(r->rec_rb);
}

static void summary(struct rec *r)
{
	struct ntp_session s;
	char *paths[1] = { (char *)r->o->out };
	char err[NTP_ERR_MAX];

	printf("ntprof: %llu records written to %s\n", (unsigned long long)r->records, r->o->out);
	if (r->bad_version)
		printf("ntprof: %llu records of another ABI version were not stored: rebuild SPDK "
		       "with this ntprof's patch\n", (unsigned long long)r->bad_version);
	if (!r->records && r->lost) /* no report to warn above: said here, never silent */
		printf("warning: all %llu records were lost while recording: nothing to report on "
		       "(the lines above say why)\n", (unsigned long long)r->lost);
	if (r->o->role == NTP_ROLE_TARGET) {
		printf("records: %llu target\n", (unsigned long long)r->records);
		if (r->records)
			printf("report: ntprof report HOST.ntp %s (the host's recording, same -s)\n",
			       r->o->out);
		return;
	}
	if (!r->records)
		return;
	if (ntp_session_open_batch(&s, 1, paths, 0, 0, err, sizeof(err)) ||
	    ntp_report(&s, stdout, 0, NULL, err, sizeof(err)))
		fprintf(stderr, "ntprof: %s\n", err);
	ntp_session_close(&s);
}

/*
 * Close the file. After a write error (a full disk) it keeps what was
 * committed before: say why, how much is in it and how much is not, and
 * whether the -wal must travel with it. Returns the exit status.
 */
static int finish(struct rec *r)
{
	const char *out = r->o->out;
	const char *why;
	uint64_t unstored;
	int closed;

	if (!ntp_db_failed(r->db))
		end_interval(r, ntp_now_ns(CLOCK_MONOTONIC), 0);
	why = ntp_db_failed(r->db);
	if (!why)
		ntp_db_commit(r->db);
	why = ntp_db_failed(r->db);
	r->records = ntp_db_stored(r->db);
	unstored = r->unstored + ntp_db_unstored(r->db);
	ntp_fsid_user(); /* the WAL is folded back and removed as the user */
	if (why) /* no stop time: the file reads as cut short */
		closed = ntp_db_close(r->db, 0, 0);
	else
		closed = ntp_db_close(r->db, ntp_now_ns(CLOCK_REALTIME), ntp_now_ns(CLOCK_MONOTONIC));
	ntp_fsid_root();
	r->db = NULL;
	if (why) {
		fprintf(stderr, "ntprof: writing %s failed: %s\n", out, why);
		fprintf(stderr, "ntprof: %llu records are in %s; %llu records after its last "
			"commit were not stored\n", (unsigned long long)r->records, out,
			(unsigned long long)unstored);
	}
	if (closed == NTP_DB_WAL_LEFT)
		fprintf(stderr, "ntprof: %s-wal holds part of the recording: keep it beside %s "
			"(copy both)\n", out, out);
	if (closed < 0)
		fprintf(stderr, "ntprof: failed to close %s\n", out);
	if (why || closed < 0)
		return 1;
	ntp_fsid_user(); /* the report reads the file as the user could */
	summary(r);
	ntp_fsid_root();
	return 0;
}

/*
 * The sampler is gone without switching sampling off: killed (-9), and
 * the writer would be killed with it (PR_SET_PDEATHSIG) but for a race,
 * which a sampler slow to die (detaching its probes) gives it time to
 * win. It ends as if killed with it, whichever wins: what it read is
 * committed, and the file is left as a kill leaves it, open, its -wal
 * beside it, no stop time (the process exits at once: nothing leaks).
 */
static int cut_short(struct rec *r)
{
	ring_buffer__consume(r->rec_rb);
	ntp_db_commit(r->db);
	r->db = NULL;
	fprintf(stderr, "ntprof: the sampler is gone: %s is cut short\n", r->o->out);
	return 1;
}

int ntp_writer_run(struct ntp_bpf *b, const struct ntp_opts *o, int chan, int64_t wall_start,
		   int64_t mono_start)
{
	static struct rec r; /* large: paths */
	int rc = 1;

	r.o = o;
	r.bpf = b;
	r.chan = chan;
	if (open_ring(&r) || create_db(&r, wall_start, mono_start)) {
		fprintf(stderr, "ntprof: %s\n", r.err);
		goto cleanup;
	}
	tell(&r, 'R');
	poll_until_off(&r);
	if (r.gone) {
		rc = cut_short(&r);
		goto cleanup;
	}
	drain(&r);
	rc = finish(&r);
cleanup:
	if (r.db) {
		ntp_fsid_user();
		ntp_db_close(r.db, 0, 0);
		ntp_fsid_root();
	}
	ring_buffer__free(r.rec_rb);
	return rc;
}
