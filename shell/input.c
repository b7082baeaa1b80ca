// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof-shell's input: each line is a dot-command, or SQL collected until
 * sqlite3_complete() says the statement ends; from -c, a script or the
 * terminal alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "shell.h"

/* Only blanks and complete SQL comments: nothing to run. */
static int all_blank(const char *p)
{
	while (*p) {
		if (strchr(" \t\r\n\f\v", *p)) {
			p++;
		} else if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
		} else if (p[0] == '/' && p[1] == '*') {
			p = strstr(p + 2, "*/");
			if (!p)
				return 0;
			p += 2;
		} else {
			return 0;
		}
	}
	return 1;
}

static int sql_append(struct shell *sh, const char *line)
{
	size_t n = strlen(line);
	char *p;

	if (sh->sqllen + n + 2 > sh->sqlcap) {
		size_t cap = 2 * (sh->sqllen + n + 2) + 256;

		p = realloc(sh->sql, cap);
		if (!p)
			return -1;
		sh->sql = p;
		sh->sqlcap = cap;
	}
	if (!sh->sqllen)
		sh->sqlline = sh->lineno;
	memcpy(sh->sql + sh->sqllen, line, n);
	sh->sqllen += n;
	sh->sql[sh->sqllen++] = '\n';
	sh->sql[sh->sqllen] = '\0';
	return 0;
}

/* Run the collected SQL, if it is more than comments, and start over. */
void sql_flush(struct shell *sh)
{
	int line = sh->lineno;

	if (!sh->sqllen)
		return;
	if (!all_blank(sh->sql)) {
		sh->lineno = sh->sqlline;
		/* without the last newline, which errors would quote */
		command_done(sh, run_sql(sh, "SQL", sqlite3_mprintf("%.*s",
							    (int)sh->sqllen - 1, sh->sql)));
		sh->lineno = line;
	}
	sh->sqllen = 0;
	sh->sql[0] = '\0';
}

/* One line of input: a dot-command, or more SQL. */
void process_line(struct shell *sh, const char *line)
{
	const char *p = line + strspn(line, " \t");

	sh_interrupted = 0;
	if (!sh->sqllen && *p == '.') {
		command_done(sh, run_dot(sh, p));
		return;
	}
	if (!sh->sqllen && all_blank(line))
		return;
	if (sql_append(sh, line)) {
		err_msg(sh, "out of memory");
		sh->failed = 1;
		return;
	}
	if (sqlite3_complete(sh->sql))
		sql_flush(sh);
}

/* -c COMMAND: its lines, then whatever SQL it left incomplete. */
void run_string(struct shell *sh, const char *cmd)
{
	char *copy = strdup(cmd), *line, *next;

	if (!copy) {
		err_msg(sh, "out of memory");
		sh->failed = 1;
		return;
	}
	for (line = copy; line && !done(sh); line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		process_line(sh, line);
	}
	if (!done(sh))
		sql_flush(sh);
	free(copy);
}

/* A script on standard input: no prompts, errors name the line. */
void run_stream(struct shell *sh, FILE *in)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	sh->source = "stdin";
	while (!done(sh) && (n = getline(&line, &cap, in)) >= 0) {
		sh->lineno++;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		process_line(sh, line);
	}
	if (!done(sh))
		sql_flush(sh);
	free(line);
}
