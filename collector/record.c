// SPDX-License-Identifier: BSD-2-Clause
/*
 * `ntprof-collect record`: a straight line through the backend. Find what
 * is to be recorded (an SPDK program and its processes, or a kernel
 * driver), load and attach, wait for it (--wait), switch sampling on; then
 * fork the writer (writer.c), which drops every privilege (priv.h) and
 * reads the ring into the database, while this process, the sampler, keeps
 * root to follow what it records, until a stop signal, -d or the writer
 * asks; then switch sampling off, let the writer drain and close, and exit
 * with its status.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "clock.h"
#include "collect.h"
#include "fsid.h"
#include "ntp_err.h"
#include "priv.h"
#include "writer.h"

#define NS NTP_NS_PER_S

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * The signals that end a recording as Ctrl-C does: sampling off (0 into
 * every process's variable), the rings drained, the file closed. Every
 * signal whose default would kill the collector and that a user or a
 * terminal sends: none leaves the processes sampling for no one. The
 * writer ignores them: the sampler tells it when sampling is off.
 */
static const int stop_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
};

static void catch_signals(void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };

	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &sa, NULL);
	/* a closed pipe on stdout: the recording goes on (writes fail
	 * quietly); a file over RLIMIT_FSIZE: a write error (EFBIG), which
	 * ends the recording as a full disk does */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
}

/* Open, check, load and attach what O records: 0, or -1 with ERR set. */
static int setup(struct ntp_bpf *b, const struct ntp_opts *o, char *err, size_t errlen)
{
	if (!o->out)
		return ntp_fail(err, errlen, "no output: give -o FILE.db");
	return ntp_bpf_open(b, o, err, errlen) || ntp_bpf_check(b, o, err, errlen) ||
	       ntp_bpf_load(b, o, err, errlen) || ntp_bpf_attach(b, o, err, errlen) ? -1 : 0;
}

/*
 * The writer's process: it dies with the sampler (a kill -9 of the
 * collector ends both, as one), ignores the stop signals, keeps the maps
 * it reads and its channel, and drops every privilege. Never returns.
 */
static void writer(struct ntp_bpf *b, const struct ntp_opts *o, int chan, pid_t sampler,
		   int64_t wall_start, int64_t mono_start)
{
	int keep[NTP_BPF_WRITER_FDS + 1], n, kept_bpf;
	char err[NTP_ERR_MAX];

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || getppid() != sampler)
		_exit(1);
	catch_signals(SIG_IGN);
	prctl(PR_SET_NAME, "ntprof-writer", 0, 0, 0);
	n = ntp_bpf_writer_fds(b, keep);
	keep[n++] = chan;
	if (ntp_priv_drop(keep, n, ntp_fsid_uid(), ntp_fsid_gid(), keep[1], &kept_bpf, err,
			  sizeof(err))) {
		fprintf(stderr, "ntprof: %s\n", err);
		_exit(1);
	}
	n = ntp_writer_run(b, o, chan, wall_start, mono_start);
	fflush(stdout);
	fflush(stderr);
	_exit(n);
}

/*
 * The sampler's loop while the writer records: follow what is recorded
 * every -i seconds (new processes, exited ones), and every 20 ms while the
 * backend waits for one to finish loading, sleeping in between, until a
 * stop signal, -d, or a word from the writer ('S', or its end closed); 'R'
 * says the recording began. Returns 0, or -1 if it never began.
 */
static int follow_until_stopped(struct ntp_bpf *b, const struct ntp_opts *o, int chan,
				int64_t start)
{
	int64_t next = start + (int64_t)(o->interval * NS);
	int64_t end = o->duration > 0 ? start + (int64_t)(o->duration * NS) : 0;
	int began = 0, soon = 1;

	while (!stop) {
		struct pollfd p = { .fd = chan, .events = POLLIN };
		int64_t now = ntp_now_ns(CLOCK_MONOTONIC), until = end && end < next ? end : next;
		int wait = soon || !began ? 20 : (int)((until - now + 999999) / 1000000);
		char c;

		if (poll(&p, 1, wait > 0 ? wait : 0) > 0) {
			if (recv(chan, &c, 1, MSG_DONTWAIT) <= 0 || c != 'R')
				break; /* the writer asks to stop, or ended */
			printf("ntprof: profiling as %s, sampling 1 of %u commands, saving records; "
			       "Ctrl-C to stop\n", o->role == NTP_ROLE_TARGET ? "target" : "host",
			       o->rate);
			fflush(stdout);
			began = 1;
		}
		now = ntp_now_ns(CLOCK_MONOTONIC);
		if (end && now >= end)
			break;
		soon = ntp_bpf_follow(b, o, now >= next);
		fflush(stdout); /* what it noted, among the writer's lines */
		while (now >= next)
			next += (int64_t)(o->interval * NS);
	}
	return began ? 0 : -1;
}

/* The writer's exit status, once it has drained and closed. */
static int writer_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	fprintf(stderr, "ntprof: the writer died of signal %d\n", WTERMSIG(st));
	return 1;
}

/*
 * Find, check, load and attach; wait (--wait); sample, and only then
 * start the writer, which creates the database, whose start is when
 * sampling began: nothing to sample, or a failed start, leaves no file.
 * Follow until stopped, then sampling off, and the writer drains and
 * closes. Returns the exit status: 1 also when nothing could be sampled,
 * at the start or ever.
 */
int ntp_record(const struct ntp_opts *o)
{
	struct ntp_bpf b = { 0 };
	char err[NTP_ERR_MAX];
	int64_t wall_start, mono_start;
	int rc = 1, sampled, chan[2] = { -1, -1 };
	pid_t pid, self = getpid();

	if (!getenv("NTPROF_DEBUG")) /* libbpf's messages, verifier log included */
		libbpf_set_print(NULL);
	catch_signals(on_signal);
	if (setup(&b, o, err, sizeof(err))) {
		fprintf(stderr, "ntprof: %s\n", err);
		goto cleanup;
	}
	if (ntp_bpf_wait(&b, o, &stop) || stop) { /* --wait */
		fprintf(stderr, "ntprof: stopped before sampling began: nothing recorded\n");
		goto cleanup;
	}
	wall_start = ntp_now_ns(CLOCK_REALTIME);
	mono_start = ntp_now_ns(CLOCK_MONOTONIC);
	if (ntp_bpf_sample(&b, o, o->rate) <= 0) {
		fprintf(stderr, "ntprof: nothing could be sampled: nothing recorded\n");
		goto off;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, chan)) {
		fprintf(stderr, "ntprof: failed to make the writer's channel: %s\n", strerror(errno));
		goto off;
	}
	fflush(stdout); /* nothing of ours printed twice */
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "ntprof: failed to start the writer: %s\n", strerror(errno));
		goto off;
	}
	if (pid == 0) {
		close(chan[0]);
		writer(&b, o, chan[1], self, wall_start, mono_start);
	}
	close(chan[1]);
	chan[1] = -1;
	follow_until_stopped(&b, o, chan[0], mono_start);
	sampled = ntp_bpf_sample(&b, o, 0);
	send(chan[0], "O", 1, MSG_NOSIGNAL);
	rc = writer_status(pid);
	if (!sampled) {
		fprintf(stderr, "ntprof: nothing was sampled while recording\n");
		rc = 1;
	}
	goto cleanup;
off:
	ntp_bpf_sample(&b, o, 0);
cleanup:
	for (int i = 0; i < 2; i++)
		if (chan[i] >= 0)
			close(chan[i]);
	ntp_bpf_close(&b);
	return rc;
}
