// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof-shell: SQL and dot-commands over ntprof recordings.
 *
 *   ntprof-shell [-c COMMAND]... [-json|-jsonl|-csv] [-header|-noheader] [--sql]
 *                [--portable] [--no-check] [--no-cache] DB...
 *   ntprof-shell [options] [--label A,B,...] RUN RUN...
 *
 * The recordings are attached read-only to an in-memory database with the
 * report's TEMP views (lib/open.c). A line starting with '.' is a
 * dot-command, dispatched from one table (commands.c); anything else is
 * SQL, collected until sqlite3_complete() (input.c) and printed by
 * ntp_out_query() in the current .mode. Commands come from -c options, a
 * terminal (terminal.c: readline, history, completion) or a script on
 * standard input. This file: options, the session, signals, main.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cache.h"
#include "ntp_err.h"
#include "runs.h"
#include "shell.h"

volatile sig_atomic_t sh_interrupted, sh_stopping;
sqlite3 *sh_interrupt_db;

/* ---- signals ---- */

void shell_on_sigint(int sig)
{
	sh_interrupted = 1;
	if (sh_interrupt_db)
		sqlite3_interrupt(sh_interrupt_db);
}

static void on_stop(int sig)
{
	sh_stopping = 1;
	shell_on_sigint(sig);
}

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ntprof-shell [options] DB...\n"
		"       ntprof-shell [options] [--label A,B,...] RUN RUN...\n"
		"Query ntprof recordings (host and target databases) with SQL and\n"
		"dot-commands. They are opened read-only; \".help\" lists the commands.\n"
		"DB... are one run (hosts and their targets). Runs to compare (.compare)\n"
		"are given as ntprof compare takes them: a RUN is HOST.db or\n"
		"HOST.db,TARGET.db; an argument with a comma, or --label, makes every\n"
		"argument a run.\n"
		"\n"
		"  -c COMMAND   run COMMAND (SQL or a dot-command), then exit; repeat to\n"
		"               run several, in order\n"
		"  -json        start in .mode json (one array of objects per statement)\n"
		"  -csv         start in .mode csv (what sqlite3 -csv prints)\n"
		"  -jsonl       start in .mode jsonl (JSON lines: one object per row, for\n"
		"               loading into other tools; docs/fleet.md)\n"
		"  -header      start with .headers on (the default)\n"
		"  -noheader    start with .headers off\n"
		"               (also --json, --jsonl, --csv, --header, --noheader)\n"
		"  --sql        print the SQL that sets up this session in plain sqlite3\n"
		"  --portable   no native SQL functions (the SQL --sql prints)\n"
		"  --no-check   skip SQLite's integrity check of each file\n"
		"  --no-cache   prepare the run anew, and do not keep it (by default the\n"
		"               join and the statistics are kept in NTPROF_CACHE_DIR, else\n"
		"               ~/.cache/ntprof, for the commands after this one)\n"
		"  --label A,B  the runs' names (default: the host files' names)\n"
		"  -h, --help   this help\n"
		"  --version    print the version\n"
		"\n"
		"Without -c, commands come from standard input: interactively on a\n"
		"terminal, else as a script. Exit status 1 if any command failed, else 3\n"
		"if a strict .report had a warning (a refused join, records lost).\n"
		"On a terminal, stderr shows progress while opening, the join or\n"
		".report take more than NTPROF_PROGRESS_AFTER seconds (default 1).\n"
		"\n"
		"Examples:\n"
		"  ntprof-shell host.db target.db\n"
		"  ntprof-shell -c .groups -c '.stages read' host.db target.db\n"
		"  ntprof-shell -csv -c 'SELECT * FROM ntp_report_stage;' \\\n"
		"      host.db target.db > stages.csv\n"
		"  ntprof-shell -json -c .report host.db target.db > report.json\n"
		"  ntprof-shell -c .compare a-host.db,a-target.db b-host.db,b-target.db\n"
		"  printf '.mode json\\n.percentiles\\n' | ntprof-shell host.db target.db\n"
		"  ntprof-shell --sql host.db target.db > setup.sql && sqlite3 -init setup.sql\n");
}

static int print_session_sql(struct ntp_session *s)
{
	char err[NTP_ERR_MAX], *sql;

	/* the set-up reads the prepared run when there is one to keep: prepare
	 * it here (or read it from the cache), once, with the native functions */
	if (ntp_cache_usable(s) && ntp_session_prepare_more(s, err, sizeof(err))) {
		fprintf(stderr, "ntprof-shell: --sql: %s\n", err);
		return 1;
	}
	sql = ntp_session_sql(s);

	if (!sql) {
		fprintf(stderr, "ntprof-shell: --sql: out of memory\n");
		return 1;
	}
	fputs(sql, stdout);
	sqlite3_free(sql);
	return 0;
}

/*
 * SQL typed into the shell may not ATTACH or DETACH: the recordings are the
 * ones given on the command line, and a second, writable handle on one of
 * them would undo read-only. Nor may it call fts3_tokenizer(), whose
 * one-argument form hands out a code address even with the two-argument
 * form turned off (ntp_harden() in lib/setup.c). Everything else is
 * checked by SQLite itself.
 */
static int authorize(void *arg, int action, const char *a, const char *b, const char *c,
		     const char *d)
{
	if (action == SQLITE_ATTACH || action == SQLITE_DETACH)
		return SQLITE_DENY;
	if (action == SQLITE_FUNCTION && b && !strcasecmp(b, "fts3_tokenizer"))
		return SQLITE_DENY;
	return SQLITE_OK;
}

/* Commands from -c, a terminal or a script, starting in mode OUT; then
 * close what .output opened. */
static int run(struct ntp_session *s, char **cmds_c, int ncmds, struct ntp_out out)
{
	struct shell sh = { .s = s, .out = out };

	struct sigaction stop = { .sa_handler = on_stop };

	sh_interrupt_db = s->db;
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGHUP, &stop, NULL);
	sigaction(SIGINT, &stop, NULL); /* the terminal's loop has its own */
	ntp_session_authorizer(s, authorize, NULL);
	for (int i = 0; i < ncmds && !done(&sh); i++)
		run_string(&sh, cmds_c[i]);
	if (!ncmds && isatty(STDIN_FILENO))
		run_terminal(&sh);
	else if (!ncmds)
		run_stream(&sh, stdin);
	sh.source = NULL;
	if (sh_stopping) {
		fprintf(stderr, "ntprof-shell: interrupted by a signal; stopping\n");
		sh.failed = 1;
	}
	if (close_output(&sh, &sh.once, ".once") | close_output(&sh, &sh.output, ".output"))
		sh.failed = 1;
	free(sh.sql);
	return sh.failed ? 1 : sh.unreliable ? 3 : 0;
}

/*
 * sqlite3 spells its output options with one dash (-json, -csv, -header,
 * -noheader): take those as the long options they are. The argument of a
 * -c is a command, left as it is.
 */
static void sqlite3_spellings(int argc, char **argv)
{
	static char *const names[][2] = {
		{ "-json", "--json" }, { "-csv", "--csv" }, { "-jsonl", "--jsonl" },
		{ "-header", "--header" }, { "-noheader", "--noheader" },
	};

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-c") || !strcmp(argv[i], "--command")) {
			i++;
			continue;
		}
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (!strcmp(argv[i], names[k][0]))
				argv[i] = names[k][1];
	}
}

/* The option that starts in MODE. */
static const char *mode_option(enum ntp_mode mode)
{
	return mode == NTP_MODE_JSON ? "-json" : mode == NTP_MODE_JSONL ? "-jsonl" : "-csv";
}

/* One output option: -json, -jsonl, -csv, -header or -noheader. Two that contradict
 * each other are a usage error: returns -1. */
static int output_option(int opt, struct ntp_out *out, int *mode_set, int *headers_set)
{
	enum ntp_mode mode = opt == 'J' ? NTP_MODE_JSON : opt == 'L' ? NTP_MODE_JSONL : NTP_MODE_CSV;
	int headers = opt == 'H';

	if (opt == 'J' || opt == 'C' || opt == 'L') {
		if (*mode_set && out->mode != mode) {
			fprintf(stderr, "ntprof-shell: %s and %s: one output mode at a time\n",
				mode_option(out->mode), mode_option(mode));
			return -1;
		}
		out->mode = mode;
		*mode_set = 1;
		return 0;
	}
	if (*headers_set && out->headers != headers) {
		fprintf(stderr, "ntprof-shell: -header and -noheader: one or the other\n");
		return -1;
	}
	out->headers = headers;
	*headers_set = 1;
	return 0;
}

/*
 * Open the recordings ARGS[N]: one run of them all, or, when an argument is
 * a run (HOST.db,TARGET.db) or LABELS names runs, each argument a run, as
 * ntprof compare takes them. 0, 1 (cannot open) or 2 (bad usage).
 */
static int open_session(struct ntp_session *s, int n, char **args, const char *labels,
			int flags)
{
	static struct runs r = { .prog = "ntprof-shell" };
	char err[NTP_ERR_MAX], *copy[NTP_MAX_DBS + 1];
	int runs = labels != NULL, ncopy = 0, rc = 2, i;

	for (i = 0; i < n; i++)
		runs |= strchr(args[i], ',') != NULL;
	if (!runs)
		rc = ntp_session_open(s, n, args, flags, err, sizeof(err)) ? 1 : 0;
	/* add_run refuses the file after the NTP_MAX_DBS-th: copy has room */
	for (i = 0; runs && i < n; i++) {
		copy[ncopy] = strdup(args[i]);
		if (!copy[ncopy] || add_run(&r, copy[ncopy++], args[i]))
			break;
	}
	if (runs && i == n && !label_runs(&r, labels))
		rc = ntp_session_open_runs(s, r.n, r.path, r.run, r.label, r.nruns, flags, err,
					   sizeof(err)) ? 1 : 0;
	if (rc == 1)
		fprintf(stderr, "ntprof-shell: %s\n", err);
	while (ncopy)
		free(copy[--ncopy]);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "command", required_argument, NULL, 'c' },
		{ "sql", no_argument, NULL, 'S' },
		{ "portable", no_argument, NULL, 'P' },
		{ "no-check", no_argument, NULL, 'N' },
		{ "no-cache", no_argument, NULL, 'K' },
		{ "json", no_argument, NULL, 'J' },
		{ "csv", no_argument, NULL, 'C' },
		{ "jsonl", no_argument, NULL, 'L' },
		{ "header", no_argument, NULL, 'H' },
		{ "noheader", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "label", required_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	char **cmds_c = calloc(argc, sizeof(*cmds_c));
	const char *labels = NULL;
	struct ntp_out out = { .f = stdout, .mode = NTP_MODE_TABLE, .headers = 1 };
	int opt, ncmds = 0, sql = 0, flags = NTP_OPEN_PROGRESS, mode_set = 0, headers_set = 0, rc;
	struct ntp_session s;

	if (!cmds_c)
		return 1;
	sqlite3_spellings(argc, argv);
	while ((opt = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': cmds_c[ncmds++] = optarg; break;
		case 'J':
		case 'L':
		case 'C':
		case 'H':
		case 'n':
			if (output_option(opt, &out, &mode_set, &headers_set)) {
				free(cmds_c);
				return 2;
			}
			break;
		case 'S': sql = 1; break;
		case 'B': labels = optarg; break;
		case 'P': flags |= NTP_OPEN_PORTABLE; break;
		case 'N': flags |= NTP_OPEN_NO_CHECK; break;
		case 'K': flags |= NTP_OPEN_NO_CACHE; break;
		case 'h': usage(stdout); free(cmds_c); return 0;
		case 'V':
			printf("ntprof-shell %s (SQLite %s)\n", NTP_VERSION, sqlite3_libversion());
			free(cmds_c);
			return 0;
		default:
			fprintf(stderr, "usage: ntprof-shell [options] DB... (--help: more)\n");
			free(cmds_c);
			return 2;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "ntprof-shell: no database given\n");
		usage(stderr);
		free(cmds_c);
		return 2;
	}
	/* more would be merged into a file that is gone when sqlite3 reads it */
	if (sql && argc - optind > NTP_MAX_DBS) {
		fprintf(stderr, "ntprof-shell: --sql: %d files, sqlite3 attaches at most %d: "
			"merge them first (ntprof merge -o run.ntp FILE...), then --sql run.ntp\n",
			argc - optind, NTP_MAX_DBS);
		free(cmds_c);
		return 2;
	}
	rc = open_session(&s, argc - optind, argv + optind, labels, flags);
	if (rc) {
		free(cmds_c);
		return rc;
	}
	rc = sql ? print_session_sql(&s) : run(&s, cmds_c, ncmds, out);
	ntp_session_close(&s);
	free(cmds_c);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "ntprof-shell: standard output: %s\n", strerror(errno));
		rc = 1;
	}
	return rc;
}
