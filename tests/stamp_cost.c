// SPDX-License-Identifier: BSD-2-Clause
/*
 * stamp_cost: what the kernel's software receive timestamps cost per
 * received packet, by CPU accounting (tests/bench_cost.sh). One thread
 * sends 64-byte UDP datagrams to itself over loopback and reads each back,
 * so the whole receive path (softirq included, run when the send returns)
 * is on its own task-clock. In phases of P packets, alternating, three
 * cases:
 *   off     no socket asks for receive timestamps
 *   held    another socket holds SO_TIMESTAMPING (software receive) on: the
 *           kernel stamps every packet it receives (net_enable_timestamp),
 *           as while an SPDK process samples with arrivals
 *   read    the reading socket asks for them too and reads each from its
 *           control message, as the patch's posix module does
 * For each pair of phases, on minus off per packet; prints the median and
 * quartiles over the pairs. First it checks whether another process holds
 * the stamping on already (its reading socket asks only to be told of
 * timestamps, without asking for them): then "off" is not off, and it
 * says so (others=N, packets that came stamped; 0 when off is off).
 *
 *   stamp_cost [PAIRS [PACKETS]]    (default 20 pairs of 100,000)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SO_TIMESTAMPING_NEW
#define SO_TIMESTAMPING_NEW SO_TIMESTAMPING
#endif

static int clock_fd;

static uint64_t task_ns(void)
{
	uint64_t v = 0;

	if (read(clock_fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

static int stamps(int fd, int on)
{
	int flags = on ? SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE : 0;

	return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags));
}

/* P packets from TX to RX and back out of RX: ns on CPU per packet; the
 * received packets that carried a timestamp in *STAMPED. */
static double phase(int tx, int rx, int p, long *stamped)
{
	char buf[64] = { 0 }, ctl[256];
	uint64_t t0 = task_ns();

	*stamped = 0;
	for (int i = 0; i < p; i++) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				    .msg_controllen = sizeof(ctl) };

		if (send(tx, buf, sizeof(buf), 0) != sizeof(buf) || recvmsg(rx, &m, 0) < 0)
			return -1;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPING) {
				struct timespec ts[3];

				memcpy(ts, CMSG_DATA(c), sizeof(ts));
				*stamped += ts[0].tv_sec != 0;
			}
	}
	return (double)(task_ns() - t0) / p;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(const char *name, double *d, int n, long stamped, long packets)
{
	qsort(d, (size_t)n, sizeof(*d), cmp);
	printf("%s median_ns=%.2f q1_ns=%.2f q3_ns=%.2f pairs=%d packets=%ld stamped=%ld\n", name,
	       d[n / 2], d[n / 4], d[(3 * n) / 4], n, packets, stamped);
}

int main(int argc, char **argv)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_TASK_CLOCK };
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int pairs = argc > 1 ? atoi(argv[1]) : 20, p = argc > 2 ? atoi(argv[2]) : 100000;
	int tx, rx, holder;
	double *held, *readd, off;
	long st_off = 0, st_held = 0, st_read = 0, s;

	if (pairs < 1 || p < 1) {
		fprintf(stderr, "usage: stamp_cost [PAIRS [PACKETS]]\n");
		return 2;
	}
	clock_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	holder = socket(AF_INET, SOCK_DGRAM, 0);
	if (clock_fd < 0 || tx < 0 || rx < 0 || holder < 0 ||
	    bind(rx, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(rx, (struct sockaddr *)&sa, &sl) ||
	    connect(tx, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "stamp_cost: failed to set up the sockets: %s\n", strerror(errno));
		return 1;
	}
	held = calloc((size_t)pairs, sizeof(*held));
	readd = calloc((size_t)pairs, sizeof(*readd));
	if (!held || !readd)
		return 1;
	phase(tx, rx, p, &s); /* warm */
	/* told of stamps, asking for none: some other socket holds them on */
	{
		int report_only = SOF_TIMESTAMPING_SOFTWARE, none = 0;

		if (setsockopt(rx, SOL_SOCKET, SO_TIMESTAMPING, &report_only, sizeof(report_only)))
			goto fail;
		phase(tx, rx, 1000, &s);
		printf("others=%ld\n", s);
		if (setsockopt(rx, SOL_SOCKET, SO_TIMESTAMPING, &none, sizeof(none)))
			goto fail;
	}
	for (int i = 0; i < pairs; i++) {
		double on;

		off = phase(tx, rx, p, &s);
		st_off += s;
		/* a socket of another holds them on: every packet is stamped */
		if (stamps(holder, 1))
			goto fail;
		on = phase(tx, rx, p, &s);
		st_held += s;
		held[i] = on - off;
		/* and this one reads them */
		if (stamps(rx, 1))
			goto fail;
		on = phase(tx, rx, p, &s);
		st_read += s;
		readd[i] = on - off;
		if (stamps(rx, 0) || stamps(holder, 0))
			goto fail;
	}
	printf("off stamped=%ld\n", st_off); /* 0: the reading socket asked for none */
	report("held", held, pairs, st_held, (long)pairs * p);
	report("read", readd, pairs, st_read, (long)pairs * p);
	return 0;
fail:
	fprintf(stderr, "stamp_cost: failed to set SO_TIMESTAMPING: %s\n", strerror(errno));
	return 1;
}
