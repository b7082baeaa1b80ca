// SPDX-License-Identifier: BSD-2-Clause
/*
 * Socket events to arrival points (sockpts.h). Per socket: the arrivals
 * not yet fully read (READY time and rcv_nxt). Per tracker: a log of
 * receives (time, arrival of their last byte), searched by time.
 */
#include <stdlib.h>

#include "sockpts.h"

#define NSOCK 256   /* sockets tracked at once (slots, by hash) */
#define NPEND 64    /* unread arrivals per socket */

struct arrival {
	uint64_t ts;
	uint32_t seq; /* rcv_nxt after it: the stream position past its bytes */
};

struct sock_state {
	uint64_t sk;              /* 0: free slot */
	struct arrival pend[NPEND];
	unsigned head, n;         /* ring of unread arrivals, oldest at head */
};

struct recv_entry {
	uint64_t ts;
	uint64_t arrival;
};

struct ntp_sockpts {
	struct sock_state socks[NSOCK];
	struct recv_entry *log;   /* ring of receives, in time order */
	size_t mask;              /* log size - 1 */
	size_t count;             /* receives ever logged */
};

/* a is after b in TCP sequence space */
static int seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

struct ntp_sockpts *ntp_sockpts_new(size_t log)
{
	struct ntp_sockpts *p = calloc(1, sizeof(*p));
	size_t n = 1;

	while (n < log)
		n <<= 1;
	if (p)
		p->log = calloc(n, sizeof(*p->log));
	if (!p || !p->log) {
		ntp_sockpts_free(p);
		return NULL;
	}
	p->mask = n - 1;
	return p;
}

void ntp_sockpts_free(struct ntp_sockpts *p)
{
	if (p)
		free(p->log);
	free(p);
}

/* The socket's slot; a new socket takes over its hash slot. */
static struct sock_state *sock_slot(struct ntp_sockpts *p, uint64_t sk)
{
	struct sock_state *s = &p->socks[(sk >> 6) * 0x9e3779b97f4a7c15ULL >> 56];

	if (s->sk != sk) {
		s->sk = sk;
		s->head = s->n = 0;
	}
	return s;
}

static void on_ready(struct sock_state *s, const struct ntp_sock_event *e)
{
	if (s->n == NPEND) { /* forget the oldest rather than the newest */
		s->head = (s->head + 1) % NPEND;
		s->n--;
	}
	s->pend[(s->head + s->n) % NPEND] = (struct arrival){ e->ts, e->seq };
	s->n++;
}

/* The arrival of the last byte before stream position TO (the receive's
 * last byte), then forget the arrivals read completely by TO. */
static uint64_t take_arrival(struct sock_state *s, uint32_t to)
{
	uint64_t ts = 0;

	for (unsigned i = 0; i < s->n; i++) {
		const struct arrival *a = &s->pend[(s->head + i) % NPEND];

		if (!seq_after(to, a->seq)) {
			ts = a->ts;
			break;
		}
	}
	while (s->n && !seq_after(s->pend[s->head].seq, to)) {
		s->head = (s->head + 1) % NPEND;
		s->n--;
	}
	return ts;
}

void ntp_sockpts_event(struct ntp_sockpts *p, const struct ntp_sock_event *e)
{
	struct sock_state *s;

	if (e->kind != NTP_KIND_SOCK || !e->sk)
		return;
	if (e->op == NTP_SOCK_READY) {
		on_ready(sock_slot(p, e->sk), e);
	} else if (e->op == NTP_SOCK_RECV && e->len > 0) {
		s = sock_slot(p, e->sk);
		p->log[p->count & p->mask] = (struct recv_entry){ e->ts, take_arrival(s, e->seq) };
		p->count++;
	}
}

/* Index (in receives ever logged) of the last receive at or before T, or -1. */
static long long last_before(const struct ntp_sockpts *p, uint64_t t)
{
	size_t lo = p->count > p->mask + 1 ? p->count - (p->mask + 1) : 0;
	size_t hi = p->count; /* search [lo, hi) for the first entry after t */

	if (lo == hi || p->log[lo & p->mask].ts > t)
		return -1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->log[mid & p->mask].ts <= t)
			lo = mid;
		else
			hi = mid;
	}
	return (long long)lo;
}

uint64_t ntp_sockpts_arrival(const struct ntp_sockpts *p, uint64_t t)
{
	long long i = last_before(p, t);

	return i < 0 ? 0 : p->log[(size_t)i & p->mask].arrival;
}

int ntp_sockpts_fill(const struct ntp_sockpts *p, struct ntp_cmd_record *r)
{
	uint64_t a, lo = 0;
	int at, read_at;

	if (r->role == NTP_ROLE_TARGET) {
		at = NTP_T_RX;
		read_at = NTP_T_CMD;
	} else {
		at = NTP_H_RX;
		read_at = NTP_H_RX_DRV;
		/* the response cannot arrive before the command (or its data) left */
		lo = r->ts[NTP_H_DATA_SENT] ? r->ts[NTP_H_DATA_SENT] : r->ts[NTP_H_SENT];
	}
	if (r->ts[at] || !r->ts[read_at])
		return 0;
	a = ntp_sockpts_arrival(p, r->ts[read_at]);
	if (!a || a < lo || a > r->ts[read_at])
		return 0;
	r->ts[at] = a;
	return 1;
}
