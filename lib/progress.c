// SPDX-License-Identifier: BSD-2-Clause
/*
 * A progress line on stderr while a session works (opening, joining, the
 * report): SQLite calls tick() every few thousand virtual machine steps;
 * once the work has taken NTPROF_PROGRESS_AFTER seconds (default 1), the
 * line "ntprof: joining the recordings... | 12 s" appears and is redrawn at
 * most four times a second, and erased when the work ends. Only for a
 * session opened with NTP_OPEN_PROGRESS whose stderr is a terminal: piped
 * or redirected, stderr stays exactly what it would be without it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ntp_progress.h"
#include "ntp_session.h"

/* VM steps between two calls of tick(): a few ms of work, so reading the
 * clock costs nothing measurable. */
#define STEPS 20000
/* Seconds between two redraws of the line. */
#define REDRAW 0.25

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double ntp_env_seconds(const char *name, double def)
{
	const char *v = getenv(name);
	char *end;
	double d;

	if (!v || !*v)
		return def;
	d = strtod(v, &end);
	return *end || d != d || d < 0 ? def : d;
}

void ntp_say(struct ntp_session *s, const char *fmt, ...)
{
	va_list ap;

	ntp_progress_clear(s);
	fputs("ntprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Write the line over what is on screen, padded to cover a longer one. */
static void draw(struct ntp_progress *p, double t)
{
	static const char spinner[] = "|/-\\";
	char line[160];
	int n;

	n = snprintf(line, sizeof(line), "ntprof: %s... %c %.0f s", p->what,
		     spinner[p->spin++ % 4], t);
	if (n < 0 || n >= (int)sizeof(line))
		return;
	fprintf(stderr, "\r%s%*s", line, p->width > n ? p->width - n : 0, "");
	if (p->width < n)
		p->width = n;
	p->last = t;
}

static int tick(void *arg)
{
	struct ntp_progress *p = arg;
	double t = now_s() - p->start;

	if (t >= p->after && (!p->width || t - p->last >= REDRAW))
		draw(p, t);
	return 0; /* never interrupts the statement */
}

void ntp_progress_tick(struct ntp_session *s)
{
	if (s->progress.what)
		tick(&s->progress);
}

const char *ntp_progress_begin(struct ntp_session *s, const char *what)
{
	struct ntp_progress *p = &s->progress;
	const char *prev = p->what;

	if (!(s->flags & NTP_OPEN_PROGRESS) || !s->db || !isatty(STDERR_FILENO))
		return NULL;
	p->what = what;
	if (!prev) {
		p->after = ntp_env_seconds("NTPROF_PROGRESS_AFTER", 1);
		p->start = now_s();
		p->width = 0;
		sqlite3_progress_handler(s->db, STEPS, tick, p);
	}
	return prev;
}

void ntp_progress_clear(struct ntp_session *s)
{
	struct ntp_progress *p = &s->progress;

	if (p->width)
		fprintf(stderr, "\r%*s\r", p->width, "");
	p->width = 0;
}

void ntp_progress_end(struct ntp_session *s, const char *prev)
{
	struct ntp_progress *p = &s->progress;

	if (!p->what)
		return;
	p->what = prev;
	if (prev)
		return;
	ntp_progress_clear(s);
	if (s->db)
		sqlite3_progress_handler(s->db, 0, NULL, NULL);
}
