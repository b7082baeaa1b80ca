// SPDX-License-Identifier: BSD-2-Clause
/*
 * check_fidelity [--shift-workload PCT] [--near NS] [--family K] LATLOG SAMPLED
 * RATE: are the
 * commands ntprof sampled no slower than the rest? A profiler must not
 * change what it measures: the end to end ntprof recorded of the sampled
 * commands must be distributed as the workload's own latency of all its
 * commands, in the same run.
 *
 *   LATLOG   fixture_perf --lat-log: the workload's latency of every I/O
 *            command, and which ones it sampled (tests/fixture/README.md)
 *   SAMPLED  the sampled I/O commands as ntprof has them, one a line:
 *            h_queue (CLOCK_MONOTONIC ns), cid, slba, e2e (ns), separated
 *            by commas or blanks: what `check_fidelity --sampled-sql`
 *            prints, asked of ntprof-shell over the run's host and target
 *            in CSV (ntp_command joined with ntp_cmd_point)
 *   RATE     the -s the run was recorded with
 *
 * What each side includes. ntprof's end to end of a host command is its
 * last recorded point less its first: h_complete - h_queue (docs/stages.md).
 * The workload's latency is its own clock from submission to completion.
 * In fixture_perf both are the same two CLOCK_MONOTONIC readings (the
 * submission's is the record's h_queue, the completion's its h_complete),
 * so a command's offset, e2e less its workload latency, is 0 by
 * construction. (spdk_nvme_perf reads its own ticks before it calls the
 * driver and in its completion callback, outside the patch's h_queue ..
 * h_complete: there the offset would be that gap, negative, and should be
 * about fixed.) Either way the offset is measured here, command by command
 * (a sampled command is found in the log by its submission time, cid and
 * slba), and the sampled values are compared as e2e less the median
 * offset, said in the table; an offset that is not fixed (over 1 % of the
 * commands more than 1 us from the median) breaks the premise: the two
 * would not measure the same thing.
 *
 * The verdict, per percentile (p50, p90, p99, nearest rank as ntprof's):
 * the workload's, over all its commands, lies within the sampled set's
 * distribution-free 95 % interval (ntp_ci_ranks, docs/sql.md Percentiles,
 * as ntprof compare's) widened by 2 % of each end. The means are shown
 * (the sampled one with its normal 95 % interval), not judged: latency is
 * heavy-tailed. The premises: at least 500 sampled commands with an
 * interval for each percentile; every one of them a command of the
 * workload's log that it sampled; no more than 1 % of those it sampled
 * missing from ntprof's (records lost); at -s 1 at least 99 % of all its
 * commands. Also shown, from the log alone: the workload's own percentiles
 * of the commands it sampled and of the rest, where stamping a sampled
 * command would show as the clock sees it.
 *
 * --family K: the verdicts are K of a family judged together (a test
 * that judges several runs): each interval is then at 1 - 0.05 / K, so
 * that all K hold with at least 95 % (Bonferroni) when nothing differs;
 * with 95 % each, a test of several runs' three percentiles fails now and
 * then on chance alone. Default 1: the 95 % interval of ntprof compare.
 *
 * --shift-workload PCT multiplies the workload's latencies by 1 + PCT/100
 * first: a distribution shifted on purpose, which the verdict must refuse
 * (the test's negative control).
 *
 * --near NS is for a log whose submission times are not the record's own
 * reading but another clock mapped onto CLOCK_MONOTONIC (SPDK's trace,
 * tests/spdk/trace_log.c): a sampled command is then the log's command of
 * the same cid and slba submitted nearest its h_queue, within NS; and
 * only the sampled commands submitted within the log's span (its first
 * and last submission, widened by NS) are judged, since such a log (a
 * trace's ring) can hold only the end of a run. How many were left out is
 * printed.
 *
 * Prints the table; the last line is `fidelity: ok` or `fidelity: FAILED`
 * with what failed. Exits 0, 1 when a premise or a verdict failed, 2 on a
 * usage or input error.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"
#include "nvmf_fixture.h"

#define PROG "check_fidelity"
#define MIN_SAMPLED 500
#define WIDEN 0.02          /* each end of an interval, widened by this share */
#define OFFSET_BAND_NS 1000 /* a fixed offset: 99 % of commands within this of the median */
#define NPCT 3

/* SAMPLED's rows, over the run's recordings in ntprof-shell (the host's
 * schema is `host`): ntprof's sampled I/O commands, their submission
 * (h_queue), identity and end to end. --sampled-sql prints it. */
static const char sampled_sql[] =
	"SELECT p.h_queue, c.cid, c.slba, c.e2e\n"
	"FROM ntp_command AS c JOIN host.ntp_cmd_point AS p ON p.t = c.ht\n"
	"WHERE c.queue = 'io'";

/* The percentiles judged: ntp_select_quantiles' place and ntp_ci_ranks'. */
static const struct {
	const char *name;
	int sel; /* index into ntp_select_quantiles' out[]: p50, p90, p99, p99.9 */
	int ci;  /* ntp_ci_ranks' WHICH */
} pct[NPCT] = {
	{ "p50", 0, NTP_CI_P50 },
	{ "p90", 1, NTP_CI_P90 },
	{ "p99", 2, NTP_CI_P99 },
};

/* The percentile's quantile, for an interval at another level. */
static const double pct_q[NPCT] = { 0.50, 0.90, 0.99 };

/*
 * The distribution-free interval of quantile Q of N sorted values at two-
 * sided level 1 - ALPHA, by ntp_ci_ranks' rule with z the normal quantile
 * of 1 - ALPHA / 2 for 1.96: the least h >= 0 with h^2 >= z^2 n q (1 - q),
 * [x_(l), x_(u)] with l = floor(n q) - h and u = ceil(n q) + h + 1 (1-based
 * ranks). Returns -1 when they fall outside 1..N.
 */
static int ci_ranks_at(size_t n, double q, double alpha, size_t *l, size_t *u)
{
	double lo = 0, hi = 10, z, h;
	size_t nq_lo, nq_hi;

	/* z from 0.5 erfc(z / sqrt 2) = alpha / 2, by bisection */
	for (int i = 0; i < 100; i++) {
		z = (lo + hi) / 2;
		if (0.5 * erfc(z / sqrt(2)) > alpha / 2)
			lo = z;
		else
			hi = z;
	}
	h = ceil(hi * sqrt((double)n * q * (1 - q)));
	nq_lo = (size_t)floor((double)n * q);
	nq_hi = (size_t)ceil((double)n * q);
	if ((double)nq_lo < h + 1 || (double)nq_hi + h + 1 > (double)n)
		return -1;
	*l = nq_lo - (size_t)h;
	*u = nq_hi + (size_t)h + 1;
	return 0;
}

/* A sampled command as ntprof recorded it. */
struct sample {
	uint64_t h_queue;
	uint64_t slba;
	int64_t e2e;
	uint16_t cid;
};

/* What failed, for the last line. */
static char failed[1024];

static void fail_because(const char *what)
{
	size_t n = strlen(failed);

	snprintf(failed + n, sizeof(failed) - n, "%s%s", n ? "; " : "", what);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_rec_t(const void *a, const void *b)
{
	uint64_t x = ((const struct fx_lat_rec *)a)->t_submit;
	uint64_t y = ((const struct fx_lat_rec *)b)->t_submit;

	return (x > y) - (x < y);
}

/* P with room for twice *CAP items of SIZE bytes (FIRST the first time),
 * *CAP updated; NULL, P freed and a message, when there is no memory. */
static void *grow(void *p, size_t *cap, size_t size, size_t first, const char *path)
{
	void *m;

	*cap = *cap ? 2 * *cap : first;
	m = realloc(p, *cap * size);
	if (!m) {
		fprintf(stderr, PROG ": out of memory reading %s\n", path);
		free(p);
	}
	return m;
}

/* The whole latency log; *N records. */
static struct fx_lat_rec *read_lat_log(const char *path, size_t *n)
{
	struct fx_lat_rec *r = NULL;
	char magic[8];
	size_t cap = 0;
	FILE *f = fopen(path, "re");

	*n = 0;
	if (!f) {
		fprintf(stderr, PROG ": failed to open %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fread(magic, 1, sizeof(magic), f) != sizeof(magic) ||
	    memcmp(magic, FX_LAT_MAGIC, sizeof(magic))) {
		fprintf(stderr, PROG ": %s: not a latency log of fixture_perf\n", path);
		goto fail;
	}
	for (;;) {
		if (*n == cap && !(r = grow(r, &cap, sizeof(*r), 65536, path)))
			goto fail;
		*n += fread(r + *n, sizeof(*r), cap - *n, f);
		if (*n < cap)
			break;
	}
	if (ferror(f) || fgetc(f) != EOF) {
		fprintf(stderr, PROG ": failed to read %s: %s\n", path,
			ferror(f) ? strerror(errno) : "a partial record at the end");
		goto fail;
	}
	fclose(f);
	return r;
fail:
	fclose(f);
	free(r);
	return NULL;
}

/* ntprof's sampled commands; *N of them. */
static struct sample *read_sampled(const char *path, size_t *n)
{
	struct sample *s = NULL;
	size_t cap = 0, line = 0;
	char buf[256];
	FILE *f = fopen(path, "re");

	*n = 0;
	if (!f) {
		fprintf(stderr, PROG ": failed to open %s: %s\n", path, strerror(errno));
		return NULL;
	}
	while (fgets(buf, sizeof(buf), f)) {
		unsigned long long q, slba;
		unsigned int cid;
		long long e2e;

		line++;
		for (char *p = buf; *p; p++)
			if (*p == ',')
				*p = ' ';
		if (sscanf(buf, "%llu %u %llu %lld", &q, &cid, &slba, &e2e) != 4 || cid > 0xffff) {
			fprintf(stderr, PROG ": %s:%zu: not 'h_queue cid slba e2e': %s", path, line,
				buf);
			goto fail;
		}
		if (*n == cap && !(s = grow(s, &cap, sizeof(*s), 4096, path)))
			goto fail;
		s[(*n)++] = (struct sample){ .h_queue = q, .slba = slba, .e2e = e2e,
					     .cid = (uint16_t)cid };
	}
	fclose(f);
	return s ? s : malloc(1);
fail:
	fclose(f);
	free(s);
	return NULL;
}

/* Mean and the half width of its normal 95 % interval (HALF may be NULL),
 * of N values. */
static void mean_ci(const int64_t *v, size_t n, double *mean, double *half)
{
	double sum = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		sum += (double)v[i];
	*mean = n ? sum / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		ss += ((double)v[i] - *mean) * ((double)v[i] - *mean);
	if (half)
		*half = n > 1 ? 1.96 * sqrt(ss / (double)(n - 1) / (double)n) : 0;
}

/* p50, p90, p99 (ns) of N values, nearest rank; V reordered. */
static void quantiles(int64_t *v, size_t n, int64_t q[NPCT])
{
	int64_t out[4] = { 0 };

	ntp_select_quantiles(v, n, out);
	for (int i = 0; i < NPCT; i++)
		q[i] = out[pct[i].sel];
}

/* The workload's own p50, p90, p99 of the commands it sampled (SAMPLED 1)
 * or of the rest, into Q; returns how many there were. */
static size_t own_quantiles(const struct fx_lat_rec *r, size_t n, int sampled, int64_t q[NPCT])
{
	int64_t *v = malloc((n ? n : 1) * sizeof(*v));
	size_t k = 0;

	if (!v)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (r[i].sampled == sampled)
			v[k++] = (int64_t)r[i].lat_ns;
	if (k)
		quantiles(v, k, q);
	free(v);
	return k;
}

static double us(double ns)
{
	return ns / 1e3;
}

/* The first of the log's N records (sorted by submission time) submitted
 * at T or later; N if none is. */
static size_t lower_bound(const struct fx_lat_rec *sorted, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sorted[mid].t_submit < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Match ntprof's sampled commands with the log's (sorted by submission
 * time): each offset (e2e less the workload's latency of the same command)
 * into OFF; returns how many matched; *FLAGGED the matched ones the log
 * says it sampled. The same cid and slba, submitted at h_queue exactly, or
 * with NEAR the nearest within NEAR ns.
 */
static size_t match(const struct sample *s, size_t ns, const struct fx_lat_rec *sorted, size_t nw,
		    uint64_t near, int64_t *off, size_t *flagged)
{
	size_t m = 0;

	*flagged = 0;
	for (size_t i = 0; i < ns; i++) {
		uint64_t lo = s[i].h_queue > near ? s[i].h_queue - near : 0, best_d = UINT64_MAX;
		const struct fx_lat_rec *r = NULL;

		/* commands submitted in the same ns (queue depth > 1) or within
		 * NEAR: the one with this identity nearest in time */
		for (size_t j = lower_bound(sorted, nw, lo);
		     j < nw && sorted[j].t_submit <= s[i].h_queue + near; j++) {
			uint64_t d = sorted[j].t_submit > s[i].h_queue ?
					     sorted[j].t_submit - s[i].h_queue :
					     s[i].h_queue - sorted[j].t_submit;

			if (sorted[j].cid == s[i].cid && sorted[j].slba == s[i].slba && d < best_d) {
				best_d = d;
				r = &sorted[j];
			}
		}
		if (!r)
			continue;
		off[m++] = s[i].e2e - (int64_t)r->lat_ns;
		*flagged += r->sampled;
	}
	return m;
}

int main(int argc, char **argv)
{
	int64_t wq[NPCT], sq[NPCT], own_s[NPCT] = { 0 }, own_u[NPCT] = { 0 }, *wv = NULL,
		*sv = NULL, *off = NULL, off_med = 0;
	size_t nw, ns, nm = 0, flagged_all = 0, flagged_matched, off_far = 0, n_own_s, n_own_u;
	double shift = 0, wmean, smean = 0, shalf = 0;
	struct fx_lat_rec *w = NULL;
	struct sample *s = NULL;
	unsigned long rate;
	char why[160], *end;
	uint64_t near = 0;
	unsigned long family = 1;
	char level[32];
	int ai = 1, rc = 2;

	if (argc == 2 && !strcmp(argv[1], "--sampled-sql")) {
		puts(sampled_sql);
		return 0;
	}
	while (argc - ai > 3 && argv[ai][0] == '-') {
		if (!strcmp(argv[ai], "--shift-workload")) {
			shift = strtod(argv[ai + 1], &end) / 100;
			if (*end || end == argv[ai + 1]) {
				fprintf(stderr, PROG ": bad --shift-workload: %s\n", argv[ai + 1]);
				return 2;
			}
		} else if (!strcmp(argv[ai], "--near")) {
			near = strtoull(argv[ai + 1], &end, 10);
			if (*end || end == argv[ai + 1] || !near || near > 1000000000) {
				fprintf(stderr, PROG ": bad --near (ns, 1 to 10^9): %s\n", argv[ai + 1]);
				return 2;
			}
		} else if (!strcmp(argv[ai], "--family")) {
			family = strtoul(argv[ai + 1], &end, 10);
			if (*end || end == argv[ai + 1] || !family || family > 1000) {
				fprintf(stderr, PROG ": bad --family (1 to 1000): %s\n", argv[ai + 1]);
				return 2;
			}
		} else {
			break;
		}
		ai += 2;
	}
	if (argc - ai != 3) {
		fprintf(stderr, "usage: " PROG " [--shift-workload PCT] [--near NS] [--family K]"
				" LATLOG SAMPLED RATE\n       " PROG " --sampled-sql\n");
		return 2;
	}
	rate = strtoul(argv[ai + 2], &end, 10);
	if (*end || !rate) {
		fprintf(stderr, PROG ": bad RATE: %s\n", argv[ai + 2]);
		return 2;
	}
	w = read_lat_log(argv[ai], &nw);
	s = w ? read_sampled(argv[ai + 1], &ns) : NULL;
	if (!s)
		goto out;
	if (!nw) {
		fprintf(stderr, PROG ": %s: no command in the latency log\n", argv[ai]);
		goto out;
	}
	if (near) {
		/* only the sampled commands within the log's span */
		uint64_t first = UINT64_MAX, last = 0;
		size_t k = 0;

		for (size_t i = 0; i < nw; i++) {
			first = w[i].t_submit < first ? w[i].t_submit : first;
			last = w[i].t_submit > last ? w[i].t_submit : last;
		}
		for (size_t i = 0; i < ns; i++)
			if (s[i].h_queue + near >= first && s[i].h_queue <= last + near)
				s[k++] = s[i];
		printf("--near %llu: %zu of ntprof's %zu sampled commands submitted outside the "
		       "log's span, left out\n", (unsigned long long)near, ns - k, ns);
		ns = k;
	}
	wv = malloc(nw * sizeof(*wv));
	sv = malloc((ns ? ns : 1) * sizeof(*sv));
	off = malloc((ns ? ns : 1) * sizeof(*off));
	if (!wv || !sv || !off) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out;
	}
	rc = 0;

	/* the workload: every command; the log's own record, for the test */
	{
		uint64_t sum = 0;

		for (size_t i = 0; i < nw; i++) {
			sum += w[i].lat_ns;
			flagged_all += w[i].sampled;
			wv[i] = (int64_t)llround((double)w[i].lat_ns * (1 + shift));
		}
		printf("lat_log: commands=%zu sum_ns=%llu sampled=%zu\n", nw,
		       (unsigned long long)sum, flagged_all);
	}
	n_own_s = own_quantiles(w, nw, 1, own_s);
	n_own_u = own_quantiles(w, nw, 0, own_u);
	mean_ci(wv, nw, &wmean, NULL);
	quantiles(wv, nw, wq);

	/* the offset, command by command */
	qsort(w, nw, sizeof(*w), cmp_rec_t);
	nm = match(s, ns, w, nw, near, off, &flagged_matched);
	if (nm) {
		int64_t *o = malloc(nm * sizeof(*o));

		if (!o) {
			fprintf(stderr, PROG ": out of memory\n");
			rc = 2;
			goto out;
		}
		memcpy(o, off, nm * sizeof(*o));
		qsort(o, nm, sizeof(*o), cmp_i64);
		off_med = o[(nm + 1) / 2 - 1];
		for (size_t i = 0; i < nm; i++)
			off_far += llabs(o[i] - off_med) > OFFSET_BAND_NS;
		printf("offset, ntprof e2e - workload latency of the same command: median %lld ns"
		       " (min %lld, max %lld; %zu more than %d ns from the median); the sampled"
		       " compared as e2e %c %lld ns\n",
		       (long long)off_med, (long long)o[0], (long long)o[nm - 1], off_far,
		       OFFSET_BAND_NS, off_med < 0 ? '+' : '-', llabs(off_med));
		free(o);
	}
	for (size_t i = 0; i < ns; i++)
		sv[i] = s[i].e2e - off_med;

	printf("-s %lu: workload %zu commands, %zu of them sampled by its own rule; ntprof %zu "
	       "sampled, %zu of them found in the log (%zu flagged sampled there)\n",
	       rate, nw, flagged_all, ns, nm, flagged_matched);
	if (shift)
		printf("the workload's latencies shifted by %+.1f %% on purpose (--shift-workload)\n",
		       shift * 100);

	/* the premises */
	if (ns < MIN_SAMPLED) {
		snprintf(why, sizeof(why), "premise: %zu sampled commands, fewer than %d", ns,
			 MIN_SAMPLED);
		fail_because(why);
	}
	if (nm != ns || flagged_matched != nm) {
		snprintf(why, sizeof(why), "premise: %zu of ntprof's %zu sampled commands are not "
			 "ones the workload sampled", ns - flagged_matched, ns);
		fail_because(why);
	}
	if ((double)ns < 0.99 * (double)flagged_all) {
		snprintf(why, sizeof(why), "premise: ntprof has %zu of the %zu commands the workload "
			 "sampled (over 1 %% lost)", ns, flagged_all);
		fail_because(why);
	}
	if (rate == 1 && (double)ns < 0.99 * (double)nw) {
		snprintf(why, sizeof(why), "premise: at -s 1 ntprof has %zu of %zu commands (under "
			 "99 %%)", ns, nw);
		fail_because(why);
	}
	if (nm && (double)off_far > 0.01 * (double)nm) {
		snprintf(why, sizeof(why), "premise: the offset is not fixed: %zu of %zu commands "
			 "more than %d ns from its median", off_far, nm, OFFSET_BAND_NS);
		fail_because(why);
	}

	/* the table */
	if (family == 1)
		snprintf(level, sizeof(level), "sampled 95 %% CI");
	else
		snprintf(level, sizeof(level), "sampled %.2f %% CI", 100 - 5.0 / (double)family);
	printf("%-8s %10s %10s   %-20s   %-20s %7s  %s\n", "", "workload", "sampled", level,
	       "CI widened 2 %", "ratio", "verdict");
	if (family > 1)
		printf("(each interval at 1 - 0.05 / %lu: the %lu verdicts judged together hold with"
		       " at least 95 %% when nothing differs)\n", family, family);
	if (ns) {
		mean_ci(sv, ns, &smean, &shalf);
		quantiles(sv, ns, sq);
		qsort(sv, ns, sizeof(*sv), cmp_i64); /* the intervals' ends by rank */
	}
	for (int i = 0; ns && i < NPCT; i++) {
		size_t l, u;
		double lo, hi;
		int in;

		if (family == 1 ? ntp_ci_ranks(ns, pct[i].ci, &l, &u) :
				  ci_ranks_at(ns, pct_q[i], 0.05 / (double)family, &l, &u)) {
			printf("%-3s us   %10.2f %10.2f   %-20s   %-20s %7.3f  %s\n", pct[i].name, us(wq[i]),
			       us(sq[i]), "[too few]", "", (double)sq[i] / (double)wq[i],
			       "no interval");
			snprintf(why, sizeof(why), "premise: no interval for %s of %zu commands",
				 pct[i].name, ns);
			fail_because(why);
			continue;
		}
		lo = (double)sv[l - 1] * (1 - WIDEN);
		hi = (double)sv[u - 1] * (1 + WIDEN);
		in = (double)wq[i] >= lo && (double)wq[i] <= hi;
		printf("%-3s us   %10.2f %10.2f   [%8.2f, %8.2f]   [%8.2f, %8.2f] %7.3f  %s\n",
		       pct[i].name, us(wq[i]), us(sq[i]), us(sv[l - 1]), us(sv[u - 1]), us(lo), us(hi),
		       (double)sq[i] / (double)wq[i], in ? "ok" : "OUTSIDE");
		if (!in) {
			snprintf(why, sizeof(why), "the workload's %s %.2f us is outside [%.2f, %.2f]",
				 pct[i].name, us(wq[i]), us(lo), us(hi));
			fail_because(why);
		}
	}
	if (ns)
		printf("mean us  %10.2f %10.2f   [%8.2f, %8.2f]   %20s %7.3f  (not judged)\n",
		       us(wmean), us(smean), us(smean - shalf), us(smean + shalf), "",
		       smean / wmean);
	/* what being sampled costs a command, by the workload's clock alone */
	printf("being sampled, by the workload's own clock: its sampled commands (%zu) vs the rest "
	       "(%zu):", n_own_s, n_own_u);
	for (int i = 0; n_own_s && n_own_u && i < NPCT; i++)
		printf(" %s %.2f vs %.2f us (%+.2f us, %+.1f %%)%s", pct[i].name, us(own_s[i]),
		       us(own_u[i]), us(own_s[i] - own_u[i]),
		       100.0 * (double)(own_s[i] - own_u[i]) / (double)own_u[i],
		       i < NPCT - 1 ? "," : "");
	printf("%s\n", n_own_s && n_own_u ? "" : n_own_u ? " none sampled" : " every one sampled");
	if (failed[0]) {
		printf("fidelity: FAILED: %s\n", failed);
		rc = 1;
	} else {
		printf("fidelity: ok\n");
	}
out:
	free(w);
	free(s);
	free(wv);
	free(sv);
	free(off);
	return rc;
}
