/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ntprof-shell's parts, for one another: the state every command can
 * change, the dot-command table, and what each file offers the others.
 *
 *   shell.c     main: options, the session, signals, where commands come from
 *   input.c     lines: dot-commands or SQL collected until complete
 *   commands.c  the dot-command table, its handlers and the dispatch
 *   output.c    errors, .output and .once files
 *   terminal.c  the interactive terminal: everything readline
 */
#ifndef NTP_SHELL_H
#define NTP_SHELL_H

#include <limits.h>
#include <signal.h>
#include <stdio.h>

#include "ntp_out.h"
#include "ntp_session.h"
#include "ntp_version.h"


/* Everything a command can change. */
struct shell {
	struct ntp_session *s;  /* the open recordings */
	struct ntp_out out;     /* .mode, .headers and where results go now */
	FILE *output;           /* .output FILE; NULL: standard output */
	FILE *once;             /* .once FILE; NULL: none pending */
	int once_left;          /* commands (.once itself included) until once closes */
	char *sql;              /* SQL lines collected until sqlite3_complete() */
	size_t sqllen;          /* bytes in sql, without the NUL */
	size_t sqlcap;          /* bytes allocated for sql */
	int sqlline;            /* line the collected SQL started on */
	const char *source;     /* input named in errors ("stdin"), NULL: none */
	int lineno;             /* line of source being read */
	int failed;             /* some command failed: exit status 1 */
	int unreliable;         /* a .report --strict had a warning: else exit status 3 */
	int quit;               /* .quit or .exit: read no more */
	char history[PATH_MAX]; /* readline history file, "" for none */
	char **names;           /* completion: table, view, column names */
	size_t nnames;          /* entries in names */
};

struct dot_cmd {
	const char *name;   /* without the dot */
	int args;           /* most arguments it takes */
	const char *usage;  /* arguments, as .help shows them */
	const char *help;   /* one line */
	int (*fn)(struct ntp_session *s, struct shell *sh, int argc, char **argv);
};

/* The dot-commands, sorted by name, ending in a NULL name (commands.c). */
extern const struct dot_cmd shell_cmds[];

/* SIGINT while interactive: stop the running query, drop the input line.
 * SIGTERM, SIGHUP, and SIGINT otherwise: stop the query, then the shell
 * (shell.c). */
extern volatile sig_atomic_t sh_interrupted, sh_stopping;
extern sqlite3 *sh_interrupt_db; /* the query a signal interrupts */
void shell_on_sigint(int sig);

/* Nothing more to run: .quit, or a signal to stop. */
static inline int done(const struct shell *sh)
{
	return sh->quit || sh_stopping;
}

/* output.c */
void __attribute__((format(printf, 2, 3))) err_msg(struct shell *sh, const char *fmt, ...);
FILE *open_output(struct shell *sh, const char *cmd, const char *path);
int close_output(struct shell *sh, FILE **f, const char *what);
void route_output(struct shell *sh);
void command_done(struct shell *sh, int rc);

/* commands.c */
int run_sql(struct shell *sh, const char *what, char *sql);
int all_schemas(struct shell *sh, char names[][16], int max);
int run_dot(struct shell *sh, const char *line);

/* input.c */
void process_line(struct shell *sh, const char *line);
void sql_flush(struct shell *sh);
void run_string(struct shell *sh, const char *cmd);
void run_stream(struct shell *sh, FILE *in);

/* terminal.c */
void run_terminal(struct shell *sh);

#endif
