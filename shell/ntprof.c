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

#include "ntp_err.h"
#include "ntp_plot.h"
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
		"usage: ntprof report [-d] [-a] [-g TEXT] [-p] [-j | --csv] [--no-check] [--no-cache]\n"
		"                     [--timeline WIDTH] HOST.db [TARGET.db] [DB...]\n"
		"Prints where the latency of the recorded commands goes, per group\n"
		"(operation, size, device). With the target's recording it joins both\n"
		"sides and computes the network time; roles come from the files.\n"
		"More than 10 files are merged first into a temporary file, as ntprof\n"
		"merge does (merging once saves that work); a merged file reads as the\n"
		"recordings it holds.\n"
		"  -d, --detail     add the components table (n, mean, L, p50, p99)\n"
		"  -a, --all        also the admin and fabrics commands' groups, not one line\n"
		"  -g, --group TEXT only groups whose name contains TEXT (any case)\n"
		"  -p, --portable   plain SQL percentiles (what sqlite3 computes), slower\n"
		"  -j, --json       the report as one JSON document (docs/report-json.md)\n"
		"      --csv        the report as one CSV table: a row per group and stage\n"
		"                   (and component, with -d), numbers unrounded\n"
		"      --no-check   skip SQLite's integrity check of each file (faster; a\n"
		"                   damaged file is then reported on as if it were whole)\n"
		"      --no-cache   prepare the run anew, and do not keep it (by default the\n"
		"                   join and the statistics are kept in NTPROF_CACHE_DIR, else\n"
		"                   ~/.cache/ntprof, for the commands after this one)\n"
		"      --timeline WIDTH  then the time series: per group and bucket of WIDTH\n"
		"                   (1s, 500ms, 0.5: seconds), rate, mean, p99, stage means\n"
		"  -h, --help       this text\n"
		"On a terminal, stderr shows progress while the work takes more than\n"
		"NTPROF_PROGRESS_AFTER seconds (default 1).\n"
		"examples:\n"
		"  ntprof report host.ntp\n"
		"  ntprof report --detail host.ntp target.ntp\n"
		"  ntprof report --timeline 500ms host.ntp target.ntp\n"
		"  ntprof report host1.ntp host2.ntp target.ntp\n"
		"  ntprof report run.ntp    (from ntprof merge -o run.ntp host*.ntp t*.ntp)\n"
		"  ntprof report --json host.ntp target.ntp > report.json\n"
		"  ntprof report --csv --detail host.ntp target.ntp > report.csv\n");
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
		{ "timeline", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ntp_session s;
	const char *group = NULL;
	int64_t width = 0; /* --timeline: bucket width, ns; 0: no time series */
	int report = 0, flags = NTP_OPEN_PROGRESS, opt, rc;
	char err[NTP_ERR_MAX];

	optind = 1;
	argv[0] = "ntprof report"; /* getopt's messages name it */
	while ((opt = getopt_long(argc, argv, "dag:pjh", opts, NULL)) != -1) {
		switch (opt) {
		case 'd': report |= NTP_REPORT_DETAIL; break;
		case 'a': report |= NTP_REPORT_ALL; break;
		case 'j': report |= NTP_REPORT_JSON; break;
		case 'C': report |= NTP_REPORT_CSV; break;
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
		case 'h': report_usage(stdout); return 0;
		default: report_usage(stderr); return 2;
		}
	}
	if ((report & NTP_REPORT_JSON) && (report & NTP_REPORT_CSV)) {
		fprintf(stderr, "ntprof report: --json and --csv: one output format at a time\n");
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
	rc = ntp_report(&s, stdout, report, group, err, sizeof(err));
	if (!rc && width)
		rc = ntp_report_timeline(&s, stdout, report, group, width, err, sizeof(err));
	if (rc)
		fprintf(stderr, "ntprof report: %s\n", err);
	ntp_session_close(&s);
	return rc ? 1 : 0;
}

static void compare_usage(FILE *f)
{
	fprintf(f,
		"usage: ntprof compare [-l A,B,...] [-g TEXT] [-d] [-m PCT] [-p] [-j | --csv]\n"
		"                      [--no-check] [--no-cache] RUN RUN...\n"
		"Prints two or more runs side by side: per I/O group (operation and size),\n"
		"each stage's mean and p99 per run, and per run after the first the\n"
		"difference from the first with a 95%% confidence interval; '*' marks a\n"
		"change: beyond noise (the interval excludes 0) and at least PCT %% of\n"
		"the first run's mean end to end. Then the stage that changed most, if\n"
		"any did.\n"
		"A RUN is HOST.db, or HOST.db,TARGET.db: a host is joined only with its\n"
		"own run's target; or a merged file (ntprof merge) of a run of many\n"
		"machines. At most %d files in all.\n"
		"  -l, --label A,B  the runs' names (default: the host files' names)\n"
		"  -g, --group TEXT only groups whose name contains TEXT (any case)\n"
		"  -d, --detail     add the components\n"
		"  -m, --min-effect PCT  the smallest change, %% of the first run's mean\n"
		"                   end to end (default 1; 0: any difference beyond noise)\n"
		"  -p, --portable   plain SQL percentiles (what sqlite3 computes)\n"
		"  -j, --json       the comparison as one JSON document (docs/report-json.md)\n"
		"      --csv        as one CSV table: a row per group, row and run, unrounded\n"
		"      --no-check   skip SQLite's integrity check of each file\n"
		"      --no-cache   prepare the runs anew, and do not keep them\n"
		"      --sql        print the SQL that sets these runs up in sqlite3 instead\n"
		"                   (then query ntp_compare_stage, ntp_compare_diff, ...)\n"
		"  -h, --help       this text\n"
		"examples:\n"
		"  ntprof compare linux-host.ntp,linux-target.ntp spdk-host.ntp,spdk-target.ntp\n"
		"  ntprof compare --label before,after old.ntp new.ntp\n"
		"  ntprof compare cluster-a.ntp cluster-b.ntp    (each from ntprof merge)\n"
		"  ntprof compare -g 'read 4KiB' a-host.ntp,a-target.ntp b-host.ntp,b-target.ntp\n"
		"  ntprof compare --json -m 5 a-host.ntp,a-target.ntp b-host.ntp,b-target.ntp\n"
		"  ntprof compare --sql a.ntp b.ntp > runs.sql; sqlite3 -cmd '.read runs.sql'\n",
		NTP_MAX_DBS);
}

/* The session's set-up for plain sqlite3 (--sql), as ntprof-shell --sql. */
static int print_sql(struct ntp_session *s, char *err, size_t errlen)
{
	char *p = ntp_session_sql(s);

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
	return 0;
}

static int do_compare(int argc, char **argv)
{
	struct compare_opts o = { .min_effect = -1, .open_flags = NTP_OPEN_PROGRESS };
	char err[NTP_ERR_MAX];
	struct ntp_session s;
	int rc = compare_options(argc, argv, &o);

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
	else if (!rc)
		rc = ntp_compare(&s, stdout, o.group, o.flags, err, sizeof(err));
	if (rc)
		fprintf(stderr, "ntprof compare: %s\n", err);
	ntp_session_close(&s);
	return rc ? 1 : 0;
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
	int flags = NTP_OPEN_PROGRESS, opt, rc;
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
	ntp_session_close(&s);
	return rc ? 1 : 0;
}

static void merge_usage(FILE *f)
{
	fprintf(f,
		"usage: ntprof merge [--no-check] -o OUT.ntp HOST.db... TARGET.db...\n"
		"Writes one file holding the recordings of one run: any number of hosts\n"
		"with their targets (SQLite attaches at most %d files at once; report,\n"
		"compare and ntprof-shell read the merged file as the recordings\n"
		"themselves). The recordings are only read; OUT must not exist.\n"
		"  -o, --output FILE the merged file to write\n"
		"      --no-check   skip SQLite's integrity check of each file\n"
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

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ntprof %s\n", NTP_VERSION);
		return 0;
	}
	c = find(argv[1]);
	if (!c) {
		fprintf(stderr, "ntprof: unknown or ambiguous command '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	argv[1] = (char *)c->name; /* "rec" runs ntprof-collect record */
	return c->func(argc - 1, argv + 1);
}
