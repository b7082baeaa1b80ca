// SPDX-License-Identifier: BSD-2-Clause
/* Holding the kernel's receive timestamps on (tstamp.h). */
#include <errno.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ntp_err.h"
#include "tstamp.h"

/* Send a byte to FD's own address and read it back: 1 if it came with a
 * software receive timestamp. */
static int stamped(int fd)
{
	char ctl[CMSG_SPACE(sizeof(struct timespec) * 3)], b = 'x';
	struct iovec iov = { &b, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	if (getsockname(fd, (struct sockaddr *)&a, &len) ||
	    sendto(fd, &b, 1, 0, (struct sockaddr *)&a, len) != 1 || recvmsg(fd, &m, 0) != 1)
		return 0;
	for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
		const struct timespec *t = (const void *)CMSG_DATA(h);

		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SO_TIMESTAMPING &&
		    (t[0].tv_sec || t[0].tv_nsec))
			return 1;
	}
	return 0;
}

int ntp_tstamp_hold(char *err, size_t errlen)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fl = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	struct timespec ms = { 0, 1000000 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &fl, sizeof(fl))) {
		ntp_fail(err, errlen, "cannot ask for receive timestamps: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (int i = 0; i < 1000; i++) {
		if (stamped(fd))
			return fd;
		nanosleep(&ms, NULL);
	}
	close(fd);
	ntp_fail(err, errlen, "the kernel gives no receive timestamps (SO_TIMESTAMPING)");
	return -1;
}

void ntp_tstamp_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
