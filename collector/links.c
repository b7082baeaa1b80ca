// SPDX-License-Identifier: BSD-2-Clause
/* The links and hook notes of what was attached (links.h). */
#include <bpf/libbpf.h>
#include <stdio.h>

#include "links.h"
#include "ntp_db.h"

int ntp_links_add(struct ntp_links *l, struct bpf_link *link)
{
	if (!link || l->nlinks == NTP_MAX_LINKS) {
		bpf_link__destroy(link);
		return -1;
	}
	l->links[l->nlinks++] = link;
	return 0;
}

void ntp_links_note(struct ntp_links *l, const char *name, const char *attach_to,
		    const char *kind, const char *points)
{
	struct ntp_hook_note *h = &l->hooks[l->nhooks];

	if (l->nhooks == NTP_MAX_LINKS)
		return;
	snprintf(h->name, sizeof(h->name), "%s", name);
	snprintf(h->attach_to, sizeof(h->attach_to), "%s", attach_to);
	snprintf(h->kind, sizeof(h->kind), "%s", kind);
	snprintf(h->points, sizeof(h->points), "%s", points);
	l->nhooks++;
}

int ntp_links_write(const struct ntp_links *l, struct ntp_db *db)
{
	for (int i = 0; i < l->nhooks; i++)
		if (ntp_db_add_hook(db, l->hooks[i].name, l->hooks[i].attach_to, l->hooks[i].kind,
				    l->hooks[i].points))
			return -1;
	return 0;
}

void ntp_links_close(struct ntp_links *l)
{
	for (int i = 0; i < l->nlinks; i++)
		bpf_link__destroy(l->links[i]);
	l->nlinks = 0;
}
