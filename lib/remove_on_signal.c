// SPDX-License-Identifier: BSD-2-Clause
/*
 * Files removed on a signal: the one file being written (a temporary
 * merged file and its directory, ntprof merge's output, a prepared run's
 * cache file) that a signal which ends the program must not leave behind.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "ntp_remove_on_signal.h"

/* A file being written that a signal must not leave behind: the temporary
 * merged file and its directory, or ntprof merge's output. Paths are set
 * beforehand: the handler only unlinks. */
static struct {
	char file[PATH_MAX], journal[PATH_MAX + 16], dir[PATH_MAX];
	volatile sig_atomic_t set;
} doomed;

static void remove_doomed(void)
{
	if (!doomed.set)
		return;
	unlink(doomed.file);
	unlink(doomed.journal);
	if (doomed.dir[0])
		rmdir(doomed.dir);
}

static void on_signal(int sig)
{
	remove_doomed();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Where a signal would end the program, remove the file first: every
 * signal whose default is to end it that a user or the system sends
 * (SIGQUIT still dumps core after). */
static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
				    SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGPIPE };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa = { .sa_handler = on_signal };

		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);
	}
}

int ntp_remove_on_signal(const char *file, const char *dir)
{
	if (doomed.set)
		return 0;
	snprintf(doomed.file, sizeof(doomed.file), "%s", file);
	snprintf(doomed.journal, sizeof(doomed.journal), "%s-journal", file);
	snprintf(doomed.dir, sizeof(doomed.dir), "%s", dir ? dir : "");
	doomed.set = 1;
	catch_signals();
	return 1;
}

void ntp_remove_forget(int remove)
{
	if (remove)
		remove_doomed();
	doomed.set = 0;
}
