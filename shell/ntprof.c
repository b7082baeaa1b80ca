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
#include "ntp_session.h"
#include "ntp_version.h"

struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
	const char *help;
};

static void usage(FILE *f);

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: ntprof report [-d] [-a] [-g TEXT] [-p] [--no-check] [--timeline WIDTH]\n"
		"                     HOST.db [TARGET.db] [DB...]\n"
		"Prints where the latency of the recorded commands goes, per group\n"
		"(operation, size, device). With the target's recording it joins both\n"
		"sides and computes the network time; roles come from the files.\n"
		"  -d, --detail     add the components table (n, mean, L, p50, p99)\n"
		"  -a, --all        also the admin and fabrics commands' groups, not one line\n"
		"  -g, --group TEXT only groups whose name contains TEXT (any case)\n"
		"  -p, --portable   plain SQL percentiles (what sqlite3 computes), slower\n"
		"      --no-check   skip SQLite's integrity check of each file (faster; a\n"
		"                   damaged file is then reported on as if it were whole)\n"
		"      --timeline WIDTH  then the time series: per group and bucket of WIDTH\n"
		"                   (1s, 500ms, 0.5: seconds), rate, mean, p99, stage means\n"
		"examples:\n"
		"  ntprof report host.ntp\n"
		"  ntprof report --detail host.ntp target.ntp\n"
		"  ntprof report --timeline 500ms host.ntp target.ntp\n"
		"  ntprof report host1.ntp host2.ntp target.ntp\n");
}

static int do_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "detail", no_argument, NULL, 'd' },
		{ "all", no_argument, NULL, 'a' },
		{ "group", required_argument, NULL, 'g' },
		{ "portable", no_argument, NULL, 'p' },
		{ "no-check", no_argument, NULL, 'N' },
		{ "timeline", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ntp_session s;
	const char *group = NULL;
	int64_t width = 0; /* --timeline: bucket width, ns; 0: no time series */
	int report = 0, flags = 0, opt, rc;
	char err[NTP_ERR_MAX];

	optind = 1;
	argv[0] = "ntprof report"; /* getopt's messages name it */
	while ((opt = getopt_long(argc, argv, "dag:ph", opts, NULL)) != -1) {
		switch (opt) {
		case 'd': report |= NTP_REPORT_DETAIL; break;
		case 'a': report |= NTP_REPORT_ALL; break;
		case 'g': group = optarg; break;
		case 'p': flags |= NTP_OPEN_PORTABLE; break;
		case 'N': flags |= NTP_OPEN_NO_CHECK; break;
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
