// SPDX-License-Identifier: BSD-2-Clause
/*
 * Runs from the command line, for ntprof compare and plot and ntprof-shell: each
 * argument a RUN, HOST.db or HOST.db,TARGET.db, and the runs' labels.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntp_err.h"
#include "runs.h"

/* Who the messages are from. */
static const char *prog(const struct runs *r)
{
	return r->prog ? r->prog : "ntprof compare";
}

/* Split RUN (modified) into its host and perhaps target file. */
int add_run(struct runs *r, char *arg, const char *given)
{
	char *comma = strchr(arg, ','), *parts[2] = { arg, NULL };
	int k = 1;

	if (comma) {
		*comma = 0;
		parts[k++] = comma + 1;
	}
	if (!*parts[0] || (comma && (!*parts[1] || strchr(parts[1], ',')))) {
		fprintf(stderr, "%s: '%s': expected HOST.db or HOST.db,TARGET.db\n", prog(r),
			given);
		return -1;
	}
	if (r->n + k > NTP_MAX_DBS) {
		fprintf(stderr, "%s: '%s': more than %d recordings: SQLite attaches at "
			"most %d at once (ntprof merge brings a run's into one file)\n", prog(r), given,
			NTP_MAX_DBS, NTP_MAX_DBS);
		return -1;
	}
	for (int i = 0; i < k; i++) {
		r->path[r->n] = parts[i];
		r->run[r->n++] = r->nruns;
	}
	r->nruns++;
	return 0;
}

/* The labels: --label's, else the host files' names, else run1, run2... */
int label_runs(struct runs *r, const char *labels)
{
	char *p = r->buf;
	int n = 0;

	if (labels) {
		snprintf(r->buf, sizeof(r->buf), "%s", labels);
		for (char *t = strtok(r->buf, ","); t && n < NTP_MAX_DBS; t = strtok(NULL, ","))
			r->label[n++] = t;
		if (n != r->nruns || strlen(labels) >= sizeof(r->buf) || strstr(labels, ",,") ||
		    labels[strlen(labels) - 1] == ',') {
			fprintf(stderr, "%s: --label '%s': expected %d names, one per run\n",
				prog(r), labels, r->nruns);
			return -1;
		}
	}
	for (int i = 0; !labels && i < r->n; i++)
		if (i == 0 || r->run[i] != r->run[i - 1])
			r->label[n++] = basename(r->path[i]);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(r->label[i], r->label[j])) {
				if (labels) {
					fprintf(stderr, "%s: --label '%s': '%s' twice\n",
						prog(r), labels, r->label[i]);
					return -1;
				}
				for (int k = 0; k < n; k++, p += strlen(p) + 1)
					r->label[k] = p, sprintf(p, "run%d", k + 1);
				return 0;
			}
	return 0;
}

int open_runs(struct ntp_session *s, int n, char **args, const char *labels, int flags,
	      const char *prog)
{
	static struct runs r;
	char err[NTP_ERR_MAX];

	memset(&r, 0, sizeof(r));
	r.prog = prog;
	for (int i = 0; i < n; i++) {
		char *copy = strdup(args[i]);

		if (!copy || add_run(&r, copy, args[i])) {
			free(copy);
			return 2;
		}
	}
	if (label_runs(&r, labels))
		return 2;
	if (ntp_session_open_runs(s, r.n, r.path, r.run, r.label, r.nruns, flags, err,
				  sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 1;
	}
	return 0;
}
