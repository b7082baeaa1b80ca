// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof: the front command of the tutorial. `report` runs here; `probe` and
 * `record` are ntprof-collect's, `shell` is ntprof-shell: both are executed
 * from the directory this binary is in, else from PATH.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ntp_compare.h"
#include "ntp_err.h"
#include "ntp_export.h"
#include "ntp_merge.h"
#include "ntp_out.h"
#include "ntp_plot.h"
#include "ntp_report.h"
#include "ntp_session.h"
#include "ntp_version.h"
#include "runs.h"

struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
	const char *help;
};

static void usage(FILE *f);

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: ntprof report [-d] [-a] [-g TEXT] [-p] [-j | --csv] [--summary | --per-host]\n"
		"                     [--no-check] [--no-cache] [--timeline WIDTH] [--strict]\n"
		"                     [--min-match PCT] [--max-lost PCT] HOST.db [TARGET.db] [DB...]\n"
		"Prints where the latency of the recorded commands goes, per group\n"
		"(operation, size, device). With the target's recording it joins both\n"
		"sides and computes the network time; roles come from the files.\n"
		"A join whose matches look accidental (under PCT %% of the host's\n"
		"commands, or clocks that disagree) is refused: that host is reported\n"
		"from its side only, with a 'join refused:' line saying why. A group\n"
		"that lost more of its sampled records than --max-lost allows gets a\n"
		"'warning:' line above its numbers; rates count the lost records.\n"
		"More than 10 files are merged first into a temporary file, as ntprof\n"
		"merge does (merging once saves that work); a merged file reads as the\n"
		"recordings it holds.\n"
		"Over more than %d hosts it prints the fleet summary: per operation and\n"
		"size, the total over every host's commands, then one row per host;\n"
		"-g and -d print a section per group instead.\n"
		"  -d, --detail     add the components table (n, mean, L, p50, p99)\n"
		"  -a, --all        also the admin and fabrics commands' groups, not one line\n"
		"  -g, --group TEXT only groups whose name contains TEXT (any case)\n"
		"  -p, --portable   plain SQL percentiles (what sqlite3 computes), slower\n"
		"  -j, --json       the report as one JSON document (docs/report-json.md)\n"
		"      --csv        the report as one CSV table: a row per group and stage\n"
		"                   (and component, with -d), numbers unrounded\n"
		"      --summary    the fleet summary, however many hosts (-g: fleet groups\n"
		"                   whose name contains TEXT)\n"
		"      --per-host   a section per group, however many hosts\n"
		"      --no-check   skip SQLite's integrity check of each file (faster; a\n"
		"                   damaged file is then reported on as if it were whole)\n"
		"      --no-cache   prepare the run anew, and do not keep it (by default the\n"
		"                   join and the statistics are kept in NTPROF_CACHE_DIR, else\n"
		"                   ~/.cache/ntprof, for the commands after this one)\n"
		"      --timeline WIDTH  then the time series: per group and bucket of WIDTH\n"
		"                   (1s, 500ms, 0.5: seconds), rate, mean, p99, stage means\n"
		"      --strict     exit 3 after a report with a refused join or a warning\n"
		"      --min-match PCT  refuse a join under PCT %% of the host's commands\n"
		"                   the target could have recorded (default 50)\n"
		"      --max-lost PCT  warn of a group that lost over PCT %% of its sampled\n"
		"                   records (default 1)\n"
		"  -h, --help       this text\n"
		"On a terminal, stderr shows progress while the work takes more than\n"
		"NTPROF_PROGRESS_AFTER seconds (default 1).\n"
		"Exit status: 0 the report; 1 an error (nothing printed); 2 a usage error;\n"
		"3 with --strict, the report printed has a warning.\n"
		"examples:\n"
		"  ntprof report host.ntp\n"
		"  ntprof report --detail host.ntp target.ntp\n"
		"  ntprof report --timeline 500ms host.ntp target.ntp\n"
		"  ntprof report host1.ntp host2.ntp target.ntp\n"
		"  ntprof report run.ntp    (from ntprof merge -o run.ntp host*.ntp t*.ntp)\n"
		"  ntprof report --json host.ntp target.ntp > report.json\n"
		"  ntprof report --csv --detail host.ntp target.ntp > report.csv\n"
		"  ntprof report --strict --max-lost 0.1 host.ntp target.ntp || echo unreliable\n",
		NTP_REPORT_FLEET_HOSTS);
}

/* --min-match or --max-lost: a percentage, 0 to 100; 0 or exit status 2. */
static int report_pct(const char *opt, const char *arg, double *pct)
{
	if (!ntp_parse_pct(arg, pct) && *pct <= 100)
		return 0;
	fprintf(stderr, "ntprof report: --%s: '%s': expected a percentage, 0 to 100\n", opt, arg);
	return 2;
}

/* Why a write to stdout failed, noted before closing the session can
 * change errno; close_stdout says it. */
static int out_errno;

static void note_output(void)
{
	if (ferror(stdout) && !out_errno)
		out_errno = errno ? errno : EIO;
}

static int do_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "detail", no_argument, NULL, 'd' },
		{ "all", no_argument, NULL, 'a' },
		{ "group", required_argument, NULL, 'g' },
		{ "portable", no_argument, NULL, 'p' },
		{ "no-check", no_argument, NULL, 'N' },
		{ "no-cache", no_argument, NULL, 'K' },
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'C' },
		{ "summary", no_argument, NULL, 'S' },
		{ "per-host", no_argument, NULL, 'H' },
		{ "timeline", required_argument, NULL, 'T' },
		{ "strict", no_argument, NULL, 'X' },
		{ "min-match", required_argument, NULL, 'M' },
		{ "max-lost", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ntp_session s;
	const char *group = NULL;
	int64_t width = 0; /* --timeline: bucket width, ns; 0: no time series */
	double min_match = -1, max_lost = -1; /* < 0: the SQL's default */
	int report = 0, flags = NTP_OPEN_PROGRESS | NTP_OPEN_CHECK_LATE, opt, rc;
	char err[NTP_ERR_MAX];

	optind = 1;
	argv[0] = "ntprof report"; /* getopt's messages name it */
	while ((opt = getopt_long(argc, argv, "dag:pjh", opts, NULL)) != -1) {
		switch (opt) {
		case 'd': report |= NTP_REPORT_DETAIL; break;
		case 'a': report |= NTP_REPORT_ALL; break;
		case 'j': report |= NTP_REPORT_JSON; break;
		case 'C': report |= NTP_REPORT_CSV; break;
		case 'S': report |= NTP_REPORT_SUMMARY; break;
		case 'H': report |= NTP_REPORT_PER_HOST; break;
		case 'g': group = optarg; break;
		case 'p': flags |= NTP_OPEN_PORTABLE; break;
		case 'N': flags |= NTP_OPEN_NO_CHECK; break;
		case 'K': flags |= NTP_OPEN_NO_CACHE; break;
		case 'T':
			if (ntp_parse_width(optarg, &width)) {
				fprintf(stderr, "ntprof report: --timeline: '%s': %s\n", optarg,
					NTP_WIDTH_HELP);
				return 2;
			}
			break;
		case 'X': report |= NTP_REPORT_STRICT; break;
		case 'M':
			if (report_pct("min-match", optarg, &min_match))
				return 2;
			break;
		case 'L':
			if (report_pct("max-lost", optarg, &max_lost))
				return 2;
			break;
		case 'h': report_usage(stdout); return 0;
		default: report_usage(stderr); return 2;
		}
	}
	if ((report & NTP_REPORT_JSON) && (report & NTP_REPORT_CSV)) {
		fprintf(stderr, "ntprof report: --json and --csv: one output format at a time\n");
		return 2;
	}
	if ((report & NTP_REPORT_SUMMARY) && (report & NTP_REPORT_PER_HOST)) {
		fprintf(stderr, "ntprof report: --summary and --per-host: one layout at a time\n");
		return 2;
	}
	if ((report & NTP_REPORT_SUMMARY) && (report & NTP_REPORT_DETAIL)) {
		fprintf(stderr, "ntprof report: --summary and --detail: the fleet summary has no"
			" components table (--per-host has)\n");
		return 2;
	}
	/* the time series is a text table after the report: not inside a document */
	if (width && (report & (NTP_REPORT_JSON | NTP_REPORT_CSV))) {
		fprintf(stderr, "ntprof report: --timeline: with the text report only, not --%s\n",
			report & NTP_REPORT_JSON ? "json" : "csv");
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "ntprof report: no recording given\n");
		report_usage(stderr);
		return 2;
	}
	if (ntp_session_open(&s, argc - optind, argv + optind, flags, err, sizeof(err))) {
		fprintf(stderr, "ntprof report: %s\n", err);
		return 1;
	}
	rc = min_match >= 0 ? ntp_report_threshold(&s, "min_match_pct", min_match, err,
						   sizeof(err)) : 0;
	if (!rc && max_lost >= 0)
		rc = ntp_report_threshold(&s, "max_lost_pct", max_lost, err, sizeof(err));
	if (!rc)
		rc = ntp_report(&s, stdout, report, group, err, sizeof(err));
	/* the time series follows a report with a warning too (--strict) */
	if (rc >= 0 && width && ntp_report_timeline(&s, stdout, report, group, width, err,
						    sizeof(err)))
		rc = -1;
	if (rc < 0)
		fprintf(stderr, "ntprof report: %s\n", err);
	note_output();
	ntp_session_close(&s);
	return rc < 0 ? 1 : rc == NTP_REPORT_UNRELIABLE ? 3 : 0;
}

static void compare_usage(FILE *f)
{
	fprintf(f,
		"usage: ntprof compare [-l A,B,...] [-g TEXT] [-d] [-m PCT] [-p] [-j | --csv]\n"
		"                      [--fail-on-change] [--no-check] [--no-cache] RUN RUN...\n"
		"Prints two or more runs side by side: per I/O group (operation and size),\n"
		"each stage's mean and median (p50) per run, and per run after the first\n"
		"the difference of each from the first run's with a 95%% confidence\n"
		"interval. '*' marks a change: the median moved beyond noise (its\n"
		"interval excludes 0) by at least PCT %% of the first run's median end to\n"
		"end. '~' marks a tail-driven difference: the mean moved so, the median\n"
		"did not (a few slow commands, not the typical one). Then per run the\n"
		"stage that changed most, if any did, and the tail-driven ones. Before\n"
		"the tables, a 'note:' line for each way the runs differ that weakens\n"
		"the comparison (groups, mode, drivers, transport, sampling) and for\n"
		"each warning of the report in a run (a refused join, lost records);\n"
		"runs without an I/O group in common with the first are refused.\n"
		"A RUN is HOST.db, or HOST.db,TARGET.db: a host is joined only with its\n"
		"own run's target; or a merged file (ntprof merge) of a run of many\n"
		"machines. At most %d files in all.\n"
		"  -l, --label A,B  the runs' names (default: the host files' names)\n"
		"  -g, --group TEXT only groups whose name contains TEXT (any case)\n"
		"  -d, --detail     add the components, and each row's p99 and its difference\n"
		"  -m, --min-effect PCT  the smallest change, %% of the first run's median\n"
		"                   end to end (default 1; 0: any difference beyond noise)\n"
		"  -p, --portable   plain SQL percentiles (what sqlite3 computes)\n"
		"  -j, --json       the comparison as one JSON document (docs/report-json.md)\n"
		"      --csv        as one CSV table: a row per group, row and run, unrounded\n"
		"      --fail-on-change  exit with status 4 when a stage or end to end is\n"
		"                   marked as a change (a regression gate)\n"
		"      --no-check   skip SQLite's integrity check of each file\n"
		"      --no-cache   prepare the runs anew, and do not keep them\n"
		"      --sql        print the SQL that sets these runs up in sqlite3 instead\n"
		"                   (then query ntp_compare_stage, ntp_compare_diff, ...)\n"
		"  -h, --help       this text\n"
		"Exit status: 0 compared, 1 a recording or the runs could not be compared,\n"
		"2 bad usage, 4 a change with --fail-on-change.\n"
		"examples:\n"
		"  ntprof compare linux-host.ntp,linux-target.ntp spdk-host.ntp,spdk-target.ntp\n"
		"  ntprof compare --label before,after old.ntp new.ntp\n"
		"  ntprof compare cluster-a.ntp cluster-b.ntp    (each from ntprof merge)\n"
		"  ntprof compare -g 'read 4KiB' a-host.ntp,a-target.ntp b-host.ntp,b-target.ntp\n"
		"  ntprof compare --json -m 5 a-host.ntp,a-target.ntp b-host.ntp,b-target.ntp\n"
		"  ntprof compare --fail-on-change -m 5 base.ntp new.ntp || echo regression\n"
		"  ntprof compare --sql a.ntp b.ntp > runs.sql; sqlite3 -cmd '.read runs.sql'\n",
		NTP_MAX_DBS);
}

/* The session's set-up for plain sqlite3 (--sql), as ntprof-shell --sql. */
static int print_sql(struct ntp_session *s, char *err, size_t errlen)
{
	char *p;

	/* nothing said of a file before its check's verdict (NTP_OPEN_CHECK_LATE) */
	if (ntp_session_checked(s, err, errlen))
		return -1;
	p = ntp_session_sql(s);
	if (!p)
		return ntp_fail(err, errlen, "cannot write the set-up SQL");
	fputs(p, stdout);
	sqlite3_free(p);
	return 0;
}

/* The options of compare that do not open anything. */
struct compare_opts {
	const char *group, *labels;
	double min_effect; /* -m, %; < 0: the SQL's default */
	int flags;         /* NTP_REPORT_* */
	int open_flags;    /* NTP_OPEN_* */
	int sql;           /* --sql */
	int fail;          /* --fail-on-change */
};

/* Parse compare's options; 0, or the exit status of a usage error. */
static int compare_options(int argc, char **argv, struct compare_opts *o)
{
	static const struct option opts[] = {
		{ "label", required_argument, NULL, 'l' },
		{ "group", required_argument, NULL, 'g' },
		{ "detail", no_argument, NULL, 'd' },
		{ "min-effect", required_argument, NULL, 'm' },
		{ "portable", no_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'C' },
		{ "no-check", no_argument, NULL, 'N' },
		{ "no-cache", no_argument, NULL, 'K' },
		{ "sql", no_argument, NULL, 'S' },
		{ "fail-on-change", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;

	optind = 1;
	argv[0] = "ntprof compare";
	while ((opt = getopt_long(argc, argv, "l:g:dm:pjh", opts, NULL)) != -1) {
		switch (opt) {
		case 'l': o->labels = optarg; break;
		case 'g': o->group = optarg; break;
		case 'd': o->flags |= NTP_REPORT_DETAIL; break;
		case 'j': o->flags |= NTP_REPORT_JSON; break;
		case 'C': o->flags |= NTP_REPORT_CSV; break;
		case 'p': o->open_flags |= NTP_OPEN_PORTABLE; break;
		case 'N': o->open_flags |= NTP_OPEN_NO_CHECK; break;
		case 'K': o->open_flags |= NTP_OPEN_NO_CACHE; break;
		case 'S': o->sql = 1; break;
		case 'F': o->fail = 1; break;
		case 'm':
			if (ntp_parse_pct(optarg, &o->min_effect)) {
				fprintf(stderr, "ntprof compare: --min-effect: '%s': %s\n", optarg,
					NTP_PCT_HELP);
				return 2;
			}
			break;
		case 'h': compare_usage(stdout); return -1;
		default: compare_usage(stderr); return 2;
		}
	}
	if ((o->flags & NTP_REPORT_JSON) && (o->flags & NTP_REPORT_CSV)) {
		fprintf(stderr, "ntprof compare: --json and --csv: one output format at a time\n");
		return 2;
	}
	if (o->sql && (o->flags & (NTP_REPORT_JSON | NTP_REPORT_CSV))) {
		fprintf(stderr, "ntprof compare: --sql prints SQL: not with --%s\n",
			o->flags & NTP_REPORT_JSON ? "json" : "csv");
		return 2;
	}
	if (o->sql && o->fail) {
		fprintf(stderr, "ntprof compare: --sql prints SQL: not with --fail-on-change\n");
		return 2;
	}
	return 0;
}

static int do_compare(int argc, char **argv)
{
	struct compare_opts o = { .min_effect = -1,
				   .open_flags = NTP_OPEN_PROGRESS | NTP_OPEN_CHECK_LATE };
	char err[NTP_ERR_MAX];
	struct ntp_session s;
	int rc = compare_options(argc, argv, &o), changed = 0;

	if (rc)
		return rc < 0 ? 0 : rc;
	if (argc - optind < 2) {
		fprintf(stderr, "ntprof compare: %s: compare needs two runs or more\n",
			optind < argc ? "one run given" : "no run given");
		compare_usage(stderr);
		return 2;
	}
	rc = open_runs(&s, argc - optind, argv + optind, o.labels, o.open_flags, "ntprof compare");
	if (rc)
		return rc;
	rc = o.min_effect >= 0 ? ntp_compare_min_effect(&s, o.min_effect, err, sizeof(err)) : 0;
	if (!rc && o.sql) {
		rc = print_sql(&s, err, sizeof(err));
		if (!rc && o.min_effect >= 0)
			printf("UPDATE ntp_compare_threshold SET min_effect_pct = %.17g;\n",
			       o.min_effect);
	}
	else if (!rc) {
		rc = ntp_compare(&s, stdout, o.group, o.flags, &changed, err, sizeof(err));
	}
	if (rc)
		fprintf(stderr, "ntprof compare: %s\n", err);
	note_output();
	ntp_session_close(&s);
	return rc ? 1 : o.fail && changed ? 4 : 0;
}

static void plot_usage(FILE *f)
{
	fprintf(f,
		"usage: ntprof plot [-o DIR] [-l A,B,...] [-g TEXT] [-p] [--no-check] [--no-cache]\n"
		"                   [--timeline WIDTH] RUN [RUN...]\n"
		"Draws one run, or several side by side, as SVG files in DIR, and an HTML\n"
		"page with all of them (no script, nothing fetched):\n"
		"  stages.svg    a stacked bar of the stages' means per I/O group and run\n"
		"  cdf-F.svg     the latency CDF of each component, a panel each, every run\n"
		"                in it, for figure F: an operation and size (read 4KiB)\n"
		"  timeline.svg  rate, latency (mean, p99) and the stages' shares over time\n"
		"  index.html    all of them on one page\n"
		"A stage has one colour in every plot, a run one line style.\n"
		"A RUN is HOST.db, or HOST.db,TARGET.db, as for ntprof compare. Files in\n"
		"DIR that ntprof plot did not write are not overwritten. It prints the\n"
		"files it wrote.\n"
		"  -o, --output DIR the directory (default ntprof-plots; created if missing)\n"
		"  -l, --label A,B  the runs' names (default: the host files' names)\n"
		"  -g, --group TEXT only groups whose name contains TEXT (any case)\n"
		"  -p, --portable   plain SQL percentiles (what sqlite3 computes), slower\n"
		"      --no-check   skip SQLite's integrity check of each file\n"
		"      --no-cache   prepare the runs anew, and do not keep them\n"
		"      --timeline WIDTH  the time series' buckets (1s, 500ms, 0.5: seconds;\n"
		"                   default: the recording in at most 50 buckets of a\n"
		"                   1, 2 or 5 x 10^k width)\n"
		"  -h, --help       this text\n"
		"examples:\n"
		"  ntprof plot host.ntp,target.ntp\n"
		"  ntprof plot -o plots --timeline 100ms host.ntp,target.ntp\n"
		"  ntprof plot --label linux,spdk lh.ntp,lt.ntp sh.ntp,st.ntp\n");
}

static int do_plot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "label", required_argument, NULL, 'l' },
		{ "group", required_argument, NULL, 'g' },
		{ "portable", no_argument, NULL, 'p' },
		{ "no-check", no_argument, NULL, 'N' },
		{ "no-cache", no_argument, NULL, 'K' },
		{ "timeline", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ntp_plot_opts o = { .dir = "ntprof-plots" };
	const char *labels = NULL;
	int flags = NTP_OPEN_PROGRESS | NTP_OPEN_CHECK_LATE, opt, rc;
	char err[NTP_ERR_MAX];
	struct ntp_session s;

	optind = 1;
	argv[0] = "ntprof plot";
	while ((opt = getopt_long(argc, argv, "o:l:g:ph", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': o.dir = optarg; break;
		case 'l': labels = optarg; break;
		case 'g': o.group = optarg; break;
		case 'p': flags |= NTP_OPEN_PORTABLE; break;
		case 'N': flags |= NTP_OPEN_NO_CHECK; break;
		case 'K': flags |= NTP_OPEN_NO_CACHE; break;
		case 'T':
			if (ntp_parse_width(optarg, &o.width_ns)) {
				fprintf(stderr, "ntprof plot: --timeline: '%s': %s\n", optarg,
					NTP_WIDTH_HELP);
				return 2;
			}
			break;
		case 'h': plot_usage(stdout); return 0;
		default: plot_usage(stderr); return 2;
		}
	}
	if (!*o.dir) {
		fprintf(stderr, "ntprof plot: --output: an empty directory name\n");
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "ntprof plot: no run given\n");
		plot_usage(stderr);
		return 2;
	}
	rc = open_runs(&s, argc - optind, argv + optind, labels, flags, "ntprof plot");
	if (rc)
		return rc;
	rc = ntp_plot(&s, &o, stdout, err, sizeof(err));
	if (rc)
		fprintf(stderr, "ntprof plot: %s\n", err);
	note_output();
	ntp_session_close(&s);
	return rc ? 1 : 0;
}

static void merge_usage(FILE *f)
{
	fprintf(f,
		"usage: ntprof merge [--no-check] [--no-cache] -o OUT.ntp HOST.db... TARGET.db...\n"
		"Writes one file holding the recordings of one run: any number of hosts\n"
		"with their targets (SQLite attaches at most %d files at once; report,\n"
		"compare and ntprof-shell read the merged file as the recordings\n"
		"themselves). The recordings are only read; OUT must not exist.\n"
		"  -o, --output FILE the merged file to write\n"
		"      --no-check   skip SQLite's integrity check of each file\n"
		"      --no-cache   prepare the run anew, and do not keep it (by default a\n"
		"                   run prepared by an earlier command is read, and one\n"
		"                   prepared here kept, as ntprof report does)\n"
		"  -h, --help       this text\n"
		"examples:\n"
		"  ntprof merge -o run.ntp host*.ntp target1.ntp target2.ntp\n"
		"  ntprof report run.ntp\n"
		"  ntprof compare before.ntp after.ntp\n",
		NTP_MAX_DBS);
}

static int do_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "no-check", no_argument, NULL, 'N' },
		{ "no-cache", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = NULL;
	char err[NTP_ERR_MAX];
	int flags = NTP_OPEN_PROGRESS, opt;

	optind = 1;
	argv[0] = "ntprof merge";
	while ((opt = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'N': flags |= NTP_OPEN_NO_CHECK; break;
		case 'K': flags |= NTP_OPEN_NO_CACHE; break;
		case 'h': merge_usage(stdout); return 0;
		default: merge_usage(stderr); return 2;
		}
	}
	if (!out || optind >= argc) {
		fprintf(stderr, "ntprof merge: %s\n", out ? "no recording given" :
			"-o OUT.ntp: the file to write is missing");
		merge_usage(stderr);
		return 2;
	}
	if (ntp_merge(out, argc - optind, argv + optind, flags, err, sizeof(err))) {
		fprintf(stderr, "ntprof merge: %s\n", err);
		return 1;
	}
	return 0;
}

static void export_usage(FILE *f)
{
	fprintf(f,
		"usage: ntprof export [-l NAME] [-t TABLE] [-o PREFIX] [-j | --csv] [--no-check]\n"
		"                     HOST.db [TARGET.db] [DB...]\n"
		"       ntprof export [-l NAME] --clickhouse URL [--no-check] HOST.db [DB...]\n"
		"Writes the values of the recordings of one run for an analytics engine,\n"
		"each row naming its run, machines and recordings (docs/fleet.md): the\n"
		"table command has a row per host command (every component and stage,\n"
		"ns, its start on the host's wall clock); recording, interval and lost a\n"
		"row per recording, per interval and group, per cause of loss. Any number\n"
		"of hosts and targets, or a merged file (ntprof merge), in one command.\n"
		"  -l, --label NAME the run's name in every row (default: the first file)\n"
		"  -t, --table TABLE  command (the default), recording, interval or lost\n"
		"  -o, --output PREFIX  into new files PREFIX-TABLE.csv (.jsonl with -j),\n"
		"                   every table, or -t's, instead of standard output\n"
		"  -j, --jsonl      JSON lines: one object per row, one row a line\n"
		"      --csv        CSV with a header line (the default)\n"
		"      --clickhouse URL  load every table into ClickHouse over HTTP instead:\n"
		"                   http://[USER[:PASSWORD]@]HOST[:PORT][/PATH][?PARAMS],\n"
		"                   tables of sql/clickhouse/schema.sql; a recording\n"
		"                   loaded before (same version, run, targets) is left out\n"
		"      --no-check   skip SQLite's integrity check of each file\n"
		"  -h, --help       this text\n"
		"examples:\n"
		"  ntprof export -l run1 run.ntp > run1-command.csv\n"
		"  ntprof export -l run1 -o out/run1 run.ntp  (out/run1-command.csv, ...)\n"
		"  ntprof export -j -t recording host.ntp target.ntp\n"
		"  ntprof export -l run1 --clickhouse http://localhost:8123/ run.ntp\n"
		"  ntprof export -l run1 --clickhouse 'http://ch1:8123/?database=fleet' \\\n"
		"      host*.ntp target*.ntp\n");
}

static int do_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "label", required_argument, NULL, 'l' },
		{ "table", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "jsonl", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'C' },
		{ "clickhouse", required_argument, NULL, 'K' },
		{ "no-check", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ntp_export_opts o = { .table = -1, .mode = NTP_MODE_CSV };
	int flags = NTP_OPEN_PROGRESS, opt, rc, formats = 0;
	char err[NTP_ERR_MAX];
	struct ntp_session s;

	optind = 1;
	argv[0] = "ntprof export";
	while ((opt = getopt_long(argc, argv, "l:t:o:jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'l': o.label = optarg; break;
		case 'o': o.prefix = optarg; break;
		case 'j': o.mode = NTP_MODE_JSONL; formats |= 1; break;
		case 'C': formats |= 2; break;
		case 'K': o.clickhouse = optarg; break;
		case 'N': flags |= NTP_OPEN_NO_CHECK; break;
		case 't':
			o.table = ntp_export_table(optarg);
			if (o.table < 0) {
				fprintf(stderr, "ntprof export: --table: '%s': expected command, "
					"recording, interval or lost\n", optarg);
				return 2;
			}
			break;
		case 'h': export_usage(stdout); return 0;
		default: export_usage(stderr); return 2;
		}
	}
	if (formats == 3) {
		fprintf(stderr, "ntprof export: --jsonl and --csv: one output format at a time\n");
		return 2;
	}
	if (o.clickhouse && (formats || o.prefix || o.table >= 0)) {
		fprintf(stderr, "ntprof export: --clickhouse loads every table: not with %s\n",
			o.prefix ? "--output" : o.table >= 0 ? "--table" : "--jsonl or --csv");
		return 2;
	}
	if (o.clickhouse && ntp_clickhouse_check_url(o.clickhouse, err, sizeof(err))) {
		fprintf(stderr, "ntprof export: %s\n", err);
		return 2;
	}
	if (o.prefix && !*o.prefix) {
		fprintf(stderr, "ntprof export: --output: an empty prefix\n");
		return 2;
	}
	if (o.label && !*o.label) {
		fprintf(stderr, "ntprof export: --label: an empty name\n");
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "ntprof export: no recording given\n");
		export_usage(stderr);
		return 2;
	}
	/* standard output takes one table: the commands unless -t says */
	if (!o.prefix && !o.clickhouse && o.table < 0)
		o.table = NTP_EXPORT_COMMAND;
	if (ntp_session_open(&s, argc - optind, argv + optind, flags, err, sizeof(err))) {
		fprintf(stderr, "ntprof export: %s\n", err);
		return 1;
	}
	rc = ntp_export(&s, &o, stdout, err, sizeof(err));
	if (rc)
		fprintf(stderr, "ntprof export: %s\n", err);
	ntp_session_close(&s);
	return rc ? 1 : 0;
}

/* Run a sibling program (next to this binary), else one from PATH. */
static int run_sibling(const char *prog, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = 0;
		snprintf(path, sizeof(path), "%s/%s", dirname(self), prog);
		if (access(path, X_OK) == 0) {
			execv(path, argv);
			fprintf(stderr, "ntprof: cannot run %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	execvp(prog, argv);
	fprintf(stderr, "ntprof: %s: %s (is it built and installed?)\n", prog,
		errno == ENOENT ? "not found" : strerror(errno));
	return 1;
}

static int do_collect(int argc, char **argv)
{
	/* ntprof probe ... -> ntprof-collect probe ... */
	argv[-1] = "ntprof-collect";
	return run_sibling("ntprof-collect", argv - 1);
}

static int do_shell(int argc, char **argv)
{
	argv[0] = "ntprof-shell";
	return run_sibling("ntprof-shell", argv);
}

static int do_help(int argc, char **argv)
{
	usage(stdout);
	return 0;
}

static const struct cmd cmds[] = {
	{ "probe", do_collect, "check which hooks can attach here (ntprof-collect probe)" },
	{ "record", do_collect, "record sampled commands into a database (ntprof-collect)" },
	{ "report", do_report, "print the latency breakdown of recordings" },
	{ "compare", do_compare, "print two or more runs side by side, stage by stage" },
	{ "plot", do_plot, "draw runs as SVG plots and an HTML page" },
	{ "merge", do_merge, "bring the recordings of many machines into one file" },
	{ "export", do_export, "write the values of recordings for analytics engines" },
	{ "shell", do_shell, "open recordings in the interactive shell (ntprof-shell)" },
	{ "help", do_help, "this text" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: ntprof COMMAND [ARGS]\n"
		   "NVMe-over-Fabrics profiler: where each microsecond of a remote I/O goes.\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "'ntprof COMMAND --help' for a command's options; 'ntprof --version';"
		   " man ntprof.\n");
}

/* Unique prefixes, as bpftool: "rep" is report. */
static const struct cmd *find(const char *name)
{
	const struct cmd *hit = NULL;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
		if (!strncmp(cmds[i].name, name, strlen(name))) {
			if (hit)
				return NULL;
			hit = &cmds[i];
		}
	}
	return hit;
}

/* RC, or 1 if what went to stdout did not all reach it: every write is
 * checked (ferror) and the last flush and close too, so a report onto a
 * full disk or /dev/full is an error, not a truncated file and exit 0. */
static int close_stdout(const char *who, int rc)
{
	int e = out_errno;

	if (fflush(stdout) && !e)
		e = errno;
	if (ferror(stdout) && !e)
		e = errno ? errno : EIO;
	if (fclose(stdout) && !e)
		e = errno;
	if (!e)
		return rc;
	fprintf(stderr, "%s: failed to write the output: %s\n", who, strerror(e));
	return rc ? rc : 1;
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	char who[64];

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return close_stdout("ntprof", argc < 2 ? 2 : 0);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ntprof %s\n", NTP_VERSION);
		return close_stdout("ntprof", 0);
	}
	c = find(argv[1]);
	if (!c) {
		fprintf(stderr, "ntprof: unknown or ambiguous command '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	argv[1] = (char *)c->name; /* "rec" runs ntprof-collect record */
	/* --version among a command's own options, as ntprof-collect and
	 * ntprof-shell take it: the version, exit 0 */
	if (c->func != do_collect && c->func != do_shell) {
		for (int i = 2; i < argc && strcmp(argv[i], "--"); i++) {
			if (!strcmp(argv[i], "--version")) {
				printf("ntprof %s\n", NTP_VERSION);
				return close_stdout("ntprof", 0);
			}
		}
	}
	snprintf(who, sizeof(who), "ntprof %s", c->name);
	return close_stdout(who, c->func(argc - 1, argv + 1));
}
