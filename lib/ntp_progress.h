/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The progress line on stderr while a session works, and the session's
 * messages and time settings (lib/progress.c).
 */
#ifndef NTP_PROGRESS_H
#define NTP_PROGRESS_H

struct ntp_session;

/* The line's state, in the session (ntp_session.progress). */
struct ntp_progress {
	const char *what;   /* the work under way ("joining the recordings"); NULL: none */
	double after;       /* seconds of work before the line appears */
	double start;       /* when the outermost work began, CLOCK_MONOTONIC s */
	double last;        /* seconds into the work at the last redraw */
	int width;          /* characters of the line on screen; 0: none */
	unsigned spin;      /* the spinner's position */
};

/*
 * With NTP_OPEN_PROGRESS and stderr a terminal: from now until the matching
 * ntp_progress_end, once the work has taken NTPROF_PROGRESS_AFTER seconds
 * (default 1), stderr shows "ntprof: WHAT... 12 s", redrawn at most four
 * times a second and erased at the end. Calls nest: an inner one names its
 * part of the work and returns the outer one's WHAT, which its end restores
 * (NULL from the outermost, or when the line is off).
 */
const char *ntp_progress_begin(struct ntp_session *s, const char *what);
void ntp_progress_end(struct ntp_session *s, const char *prev);

/* Redraw the line if it is due, for work that runs no SQLite statement
 * (waiting for another thread). */
void ntp_progress_tick(struct ntp_session *s);

/* Erase the progress line (if shown) before writing something else to
 * stderr; it is redrawn at the next step of the work. */
void ntp_progress_clear(struct ntp_session *s);

/* "ntprof: " and the message on stderr, over the progress line if one is
 * shown (a warning says "warning: " itself). */
__attribute__((format(printf, 2, 3)))
void ntp_say(struct ntp_session *s, const char *fmt, ...);

/* Seconds from the environment variable NAME (a number >= 0), else DEF. */
double ntp_env_seconds(const char *name, double def);

#endif
