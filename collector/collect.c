// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof-collect: `probe` checks what can be hooked here, `record` records
 * sampled commands into a database. `ntprof probe` and `ntprof record` run
 * this program. main() finds the command in a table, parses the options
 * (opts.c) and hands over to probe.c or record.c.
 */
#include <stdio.h>
#include <string.h>

#include "collect.h"
#include "fsid.h"
#include "ntp_err.h"

struct cmd {
	const char *name;
	int (*func)(const struct ntp_opts *o);
	int wants_output; /* -o is required */
};

static const struct cmd cmds[] = {
	{ "probe", ntp_probe, 0 },
	{ "record", ntp_record, 1 },
};

/* By its whole name. */
static const struct cmd *find(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	struct ntp_opts o = NTP_OPTS_INIT;
	char err[NTP_ERR_MAX];
	const struct cmd *c = &cmds[1]; /* no command: record */

	ntp_opts_command_line(&o, argc, argv);
	if (argc > 1 && argv[1][0] != '-') {
		c = find(argv[1]);
		if (!c) {
			ntp_opts_bad("unknown command %s: probe or record", argv[1]);
			return 2;
		}
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	if (ntp_opts_parse(&o, argc, argv))
		return 2; /* usage; 1 is for what goes wrong while running */
	if (c->wants_output && !o.out) {
		ntp_opts_bad("%s", "no output: give -o FILE.db");
		return 2;
	}
	/* under sudo: the user's groups, and the named files read as them */
	if (ntp_fsid_init(err, sizeof(err)) || ntp_opts_open_inputs(&o, err, sizeof(err))) {
		fprintf(stderr, "ntprof: %s\n", err);
		return 1;
	}
	return c->func(&o);
}
