// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof-shell's terminal: prompts, history, completion of dot-commands and
 * SQL names, and ^C that drops the line. Everything readline is here.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/select.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "shell.h"

#define PROMPT "ntprof> "
#define PROMPT_MORE "   ...> "
#define HISTORY_FILE ".ntprof_history"
#define HISTORY_MAX 1000

static const char *const sql_keywords[] = {
	"SELECT", "FROM", "WHERE", "GROUP", "BY", "ORDER", "LIMIT", "JOIN",
};

static struct shell *term_shell; /* readline's callbacks take no context */
static char *term_result;        /* line the callback handed over */
static int term_got;             /* the callback ran */

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Completion names: tables, views and their columns in every schema. */
static void collect_names(struct shell *sh)
{
	char schemas[NTP_MAX_DBS + 2][16];
	int n = all_schemas(sh, schemas, NTP_MAX_DBS + 2);
	size_t cap = 0, k = 0;

	for (int i = 0; i < n; i++) {
		char *sql = sqlite3_mprintf(
			"SELECT m.name FROM \"%w\".sqlite_schema AS m\n"
			"WHERE m.type IN ('table', 'view')\n"
			"UNION SELECT c.name FROM \"%w\".sqlite_schema AS m,"
			" pragma_table_info(m.name, %Q) AS c WHERE m.type IN ('table', 'view')",
			schemas[i], schemas[i], schemas[i]);
		sqlite3_stmt *st = NULL;

		if (sql && sqlite3_prepare_v2(sh->s->db, sql, -1, &st, NULL) == SQLITE_OK)
			while (sqlite3_step(st) == SQLITE_ROW) {
				char **p = sh->names;

				if (sh->nnames == cap &&
				    !(p = realloc(sh->names, (cap = 2 * cap + 64) * sizeof(*p))))
					break;
				sh->names = p;
				p[sh->nnames] = strdup((const char *)sqlite3_column_text(st, 0));
				if (p[sh->nnames])
					sh->nnames++;
			}
		sqlite3_finalize(st);
		sqlite3_free(sql);
	}
	if (!sh->nnames)
		return;
	qsort(sh->names, sh->nnames, sizeof(*sh->names), name_cmp);
	for (size_t i = 1; i < sh->nnames; i++)
		if (strcmp(sh->names[i], sh->names[k]))
			sh->names[++k] = sh->names[i];
		else
			free(sh->names[i]);
	sh->nnames = k + 1;
}

/* Dot-command names (without the dot) matching TEXT. */
static char *complete_cmd(const char *text, int state)
{
	static size_t i, len;

	if (!state) {
		i = 0;
		len = strlen(text);
	}
	while (shell_cmds[i].name)
		if (!strncmp(shell_cmds[i++].name, text, len))
			return strdup(shell_cmds[i - 1].name);
	return NULL;
}

/* SQL names, then keywords (in the case TEXT starts with). */
static char *complete_sql(const char *text, int state)
{
	static size_t i, len;
	size_t nkw = sizeof(sql_keywords) / sizeof(sql_keywords[0]);
	struct shell *sh = term_shell;

	if (!state) {
		i = 0;
		len = strlen(text);
	}
	for (; i < sh->nnames; i++)
		if (!strncasecmp(sh->names[i], text, len))
			return strdup(sh->names[i++]);
	for (; i < sh->nnames + nkw; i++) {
		const char *kw = sql_keywords[i - sh->nnames];
		char *r;

		if (strncasecmp(kw, text, len))
			continue;
		r = strdup(kw);
		for (char *p = r; r && *p && islower((unsigned char)text[0]); p++)
			*p = (char)tolower((unsigned char)*p);
		i++;
		return r;
	}
	return NULL;
}

static char **complete(const char *text, int start, int end)
{
	const char *line = rl_line_buffer + strspn(rl_line_buffer, " \t");
	size_t first = strcspn(line, " \t");

	rl_attempted_completion_over = 1; /* no file names */
	if (*line == '.') {
		int cmd_word = start <= (int)(line - rl_line_buffer + first);

		if (cmd_word || !strncmp(line, ".help", first))
			return rl_completion_matches(text, complete_cmd);
		return NULL;
	}
	if (!term_shell->names)
		collect_names(term_shell);
	return rl_completion_matches(text, complete_sql);
}

static void term_take_line(char *line)
{
	term_result = line;
	term_got = 1;
	rl_callback_handler_remove();
}

/*
 * Read a line with readline's callback interface, so that ^C (SIGINT,
 * whose handler only sets a flag) can abandon the line. Returns the line
 * (free it), NULL at end of input, or "" after ^C with *cancelled set.
 */
static char *term_readline(const char *prompt, int *cancelled)
{
	fd_set fds;

	*cancelled = 0;
	term_got = 0;
	term_result = NULL;
	rl_callback_handler_install(prompt, term_take_line);
	while (!term_got) {
		FD_ZERO(&fds);
		FD_SET(fileno(rl_instream), &fds);
		if (select(fileno(rl_instream) + 1, &fds, NULL, NULL, NULL) > 0) {
			rl_callback_read_char();
		} else if (errno == EINTR && sh_stopping) {
			rl_callback_sigcleanup();
			rl_cleanup_after_signal();
			rl_callback_handler_remove();
			return NULL;
		} else if (errno == EINTR && sh_interrupted) {
			sh_interrupted = 0;
			rl_free_line_state();
			rl_callback_sigcleanup();
			rl_cleanup_after_signal();
			rl_callback_handler_remove();
			fputc('\n', rl_outstream);
			*cancelled = 1;
			return strdup("");
		} else if (errno != EINTR) {
			rl_callback_handler_remove();
			return NULL;
		}
	}
	return term_result;
}

static void term_begin(struct shell *sh)
{
	const char *home = getenv("HOME");

	term_shell = sh;
	rl_readline_name = "ntprof";
	rl_attempted_completion_function = complete;
	rl_completer_word_break_characters = " \t\n\"'`@$><=;|&{(),.*+-/";
	if (home && *home &&
	    snprintf(sh->history, sizeof(sh->history), "%s/%s", home, HISTORY_FILE) <
	    (int)sizeof(sh->history))
		read_history(sh->history);
	else
		sh->history[0] = '\0';
}

static void term_end(struct shell *sh)
{
	if (sh->history[0]) {
		stifle_history(HISTORY_MAX);
		write_history(sh->history);
	}
	for (size_t i = 0; i < sh->nnames; i++)
		free(sh->names[i]);
	free(sh->names);
}

/* The interactive loop: prompts, history, ^C drops the statement. */
void run_terminal(struct shell *sh)
{
	struct sigaction sa = { .sa_handler = shell_on_sigint };
	char *line;
	int cancelled;

	sh_interrupt_db = sh->s->db;
	sigaction(SIGINT, &sa, NULL);
	term_begin(sh);
	printf("ntprof-shell %s: %d recording%s. \".help\" lists the commands; "
	       "SQL ends with ';'.\n", NTP_VERSION, sh->s->ndbs, sh->s->ndbs > 1 ? "s" : "");
	while (!done(sh) &&
	       (line = term_readline(sh->sqllen ? PROMPT_MORE : PROMPT, &cancelled))) {
		if (cancelled) {
			sh->sqllen = 0;
		} else {
			if (*line)
				add_history(line);
			process_line(sh, line);
		}
		free(line);
	}
	if (!done(sh)) {
		putchar('\n');
		sql_flush(sh);
	}
	term_end(sh);
}
