// SPDX-License-Identifier: BSD-2-Clause
/*
 * A test fixture for bpf/ntprof_spdk.bpf.c: it fires ntprof:nvmf_tcp_conn
 * and two batches through ntprof:nvmf_tcp_done the way the SPDK patch does,
 * over real loopback TCP connections, after a byte arrives on stdin (so the
 * test can attach first). The device key is the address of a device
 * record, as in the patch.
 *
 * Connection A is announced by the connection probe; B is not. Batch 1:
 *   0-2  A's bytes 100, 200 and 300, each sent and received on its own
 *        (the arrival lies between the "win" times printed for it)
 *   3    no stream position                        -> no_position
 *   4    a connection the process does not have     -> no_socket
 *   5    a position A never reached                 -> not_seen
 *   6    B's byte 50 (B not watched yet)            -> new_socket
 * Then 1100 one-byte arrivals on A and 60 bytes on B. Batch 2:
 *   7    A's byte 301, an arrival since overwritten -> forgotten
 *   8    B's byte 110 (watched since batch 1)        (window printed)
 *   9    A's last byte                               (window printed)
 * stdout: "ready", then "win K T0 T1" for records with a window, then "done".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ntprof_abi.h"

static struct ntp_device_record dev = {
	.nsid = 1, .lba_shift = 9, .cntlid = 1, .kind = NTP_KIND_DEVICE,
	.version = NTP_ABI_VERSION, .name = "Malloc0", .nqn = "nqn.2026-10.edu.wisc.ntprof:t",
};

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* A loopback TCP connection: *tx sends, *rx receives. */
static void connect_pair(int *tx, int *rx)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &len))
		die("listen");
	*tx = socket(AF_INET, SOCK_STREAM, 0);
	if (*tx < 0 || connect(*tx, (struct sockaddr *)&a, sizeof(a)))
		die("connect");
	*rx = accept(l, NULL, NULL);
	if (*rx < 0 || setsockopt(*tx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("accept");
	close(l);
}

/* Send N bytes and receive them: one arrival. Returns the time before. */
static uint64_t move(int tx, int rx, size_t n)
{
	char buf[256];
	uint64_t t0 = now();
	size_t got = 0;

	memset(buf, 'x', sizeof(buf));
	if (send(tx, buf, n, 0) != (ssize_t)n)
		die("send");
	while (got < n) {
		ssize_t k = recv(rx, buf, n - got, 0);

		if (k <= 0)
			die("recv");
		got += (size_t)k;
	}
	return t0;
}

/* The connection key of socket FD, as the patch computes it. */
static uint64_t key_of(int fd)
{
	struct sockaddr_in l, p;
	socklen_t ll = sizeof(l), pl = sizeof(p);

	if (getsockname(fd, (struct sockaddr *)&l, &ll) || getpeername(fd, (struct sockaddr *)&p, &pl))
		die("getsockname");
	return ntp_conn_key(ntohs(l.sin_port), ntohs(p.sin_port), ntp_addr_fold(&p.sin_addr, 4));
}

static void rec(struct ntp_cmd_record *r, int k, uint64_t conn, uint64_t pos)
{
	memset(r, 0, sizeof(*r));
	r->kind = NTP_KIND_CMD;
	r->version = NTP_ABI_VERSION;
	r->role = NTP_ROLE_TARGET;
	r->slba = 1000 + (unsigned)k;
	r->cid = (unsigned short)(10 + k);
	r->dev = dev.dev;
	r->rx_conn = conn;
	r->rx_pos = pos;
	r->ts[NTP_T_CMD] = now();
}

/* Move N bytes as one arrival and make record K wait for its last byte. */
static void windowed(struct ntp_cmd_record *r, int k, int tx, int rx, size_t n, uint64_t *pos)
{
	uint64_t t0 = move(tx, rx, n);

	*pos += n;
	rec(r, k, key_of(rx), *pos);
	printf("win %d %llu %llu\n", k, (unsigned long long)t0, (unsigned long long)now());
}

int main(void)
{
	struct ntp_cmd_record b1[7], b2[3];
	uint64_t pos_a = 0, pos_b = 0;
	int atx, arx, btx, brx;
	char c;

	dev.dev = (uint64_t)(uintptr_t)&dev;
	connect_pair(&atx, &arx);
	connect_pair(&btx, &brx);
	printf("ready\n");
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 1;
	DTRACE_PROBE1(ntprof, nvmf_tcp_conn, key_of(arx));
	for (int k = 0; k < 3; k++)
		windowed(&b1[k], k, atx, arx, 100, &pos_a);
	rec(&b1[3], 3, key_of(arx), 0);
	rec(&b1[4], 4, ntp_conn_key(1, 2, 0x01020304), 100);
	rec(&b1[5], 5, key_of(arx), pos_a + 1000);
	move(btx, brx, 50);
	pos_b = 50;
	rec(&b1[6], 6, key_of(brx), pos_b);
	DTRACE_PROBE2(ntprof, nvmf_tcp_done, b1, 7);

	for (int i = 0; i < 1100; i++)
		move(atx, arx, 1);
	rec(&b2[0], 7, key_of(arx), 301);
	windowed(&b2[1], 8, btx, brx, 60, &pos_b);
	pos_a += 1100;
	windowed(&b2[2], 9, atx, arx, 1, &pos_a);
	DTRACE_PROBE2(ntprof, nvmf_tcp_done, b2, 3);
	printf("done\n");
	fflush(stdout);
	return 0;
}
