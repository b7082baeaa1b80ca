/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a backend attached: the BPF links (destroyed at the end) and, for
 * the recording's `hook` table, a note per hook of what it is attached to
 * and which points it gives. Calls nothing of the collector's own.
 */
#ifndef NTP_LINKS_H
#define NTP_LINKS_H

#include <limits.h>

struct bpf_link;
struct ntp_db;

#define NTP_MAX_LINKS 64

struct ntp_hook_note {
	char name[64];                  /* program, or what takes the points */
	char attach_to[PATH_MAX + 64];  /* function, tracepoint, USDT probe and file */
	char kind[16];                  /* fentry, kprobe, tp_btf, raw_tp, usdt, sockopt */
	char points[96];                /* the stage points it gives */
};

struct ntp_links {
	struct bpf_link *links[NTP_MAX_LINKS];
	int nlinks;
	struct ntp_hook_note hooks[NTP_MAX_LINKS];
	int nhooks;
};

/* Keep link L; NULL (a failed attach) or no room: -1, L destroyed. */
int ntp_links_add(struct ntp_links *l, struct bpf_link *link);

/* Note a hook for the hook table. */
void ntp_links_note(struct ntp_links *l, const char *name, const char *attach_to,
		    const char *kind, const char *points);

/* Write the notes into DB's hook table. */
int ntp_links_write(const struct ntp_links *l, struct ntp_db *db);

/* Destroy the links; the notes stay. */
void ntp_links_close(struct ntp_links *l);

#endif
