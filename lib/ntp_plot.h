/* SPDX-License-Identifier: BSD-2-Clause */
/* `ntprof plot`: a session's runs as SVG files and one HTML page. */
#ifndef NTP_PLOT_H
#define NTP_PLOT_H

#include <stdint.h>
#include <stdio.h>

#include "ntp_session.h"

/* What to plot, and where. */
struct ntp_plot_opts {
	const char *dir;      /* the directory the files go into (created if missing) */
	const char *group;    /* only groups whose name contains it (any case); NULL: all */
	int64_t width_ns;     /* the time series' bucket width; 0: ntp_plot_width's */
};

/*
 * Write the plots of the session's runs (sql/plot.sql) into o->dir:
 * stages.svg, cdf-F.svg per operation and size (figure F: the runs'
 * groups of it side by side), timeline.svg and index.html, which holds them
 * all. A file there that ntprof plot did not write is not
 * overwritten (an error, before anything is written). Each file written is
 * named on LIST, one a line. Returns 0, or -1 with err set.
 */
int ntp_plot(struct ntp_session *s, const struct ntp_plot_opts *o, FILE *list, char *err,
	     size_t errlen);

#endif
