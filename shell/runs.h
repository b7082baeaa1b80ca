/* SPDX-License-Identifier: BSD-2-Clause */
/* Runs from the command line (runs.c): ntprof compare's and ntprof-shell's. */
#ifndef NTP_RUNS_H
#define NTP_RUNS_H

#include "ntp_session.h"

/* The runs' files and labels from the command line. */
struct runs {
	char *path[NTP_MAX_DBS];
	int run[NTP_MAX_DBS];
	char *label[NTP_MAX_DBS];
	int n, nruns;
	char buf[4096]; /* the labels' text */
	const char *prog; /* in messages; NULL: "ntprof compare" */
};

/* Split RUN ARG (modified; GIVEN as typed, for messages) into its host and
 * perhaps target file, added to R. 0, or -1 after a message on stderr. */
int add_run(struct runs *r, char *arg, const char *given);

/* The labels: LABELS' (A,B,...; NULL: none), else the host files' names,
 * else run1, run2... 0, or -1 after a message on stderr. */
int label_runs(struct runs *r, const char *labels);

/* Open the runs ARGS (N of them) as a session S, labelled by LABELS (or
 * the host files' names); PROG names the command in messages. 0; 2 after a
 * message for bad arguments; 1 after one when the recordings cannot be
 * opened. */
int open_runs(struct ntp_session *s, int n, char **args, const char *labels, int flags,
	      const char *prog);

#endif
