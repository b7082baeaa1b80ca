/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * USDT probes in an ELF file (an SPDK binary, or a shared library it loads):
 * the sites listed in its .note.stapsdt section, as <sys/sdt.h> writes them.
 * `ntprof probe` lists them with their site counts; `record` attaches to
 * each site's address.
 */
#ifndef NTP_USDT_H
#define NTP_USDT_H

#include <stddef.h>
#include <stdint.h>

struct ntp_usdt_site {
	char provider[64];  /* ntprof */
	char name[64];      /* nvmf_tcp_done */
	uint64_t pc;        /* address of the probe's nop, adjusted for prelink */
	uint64_t semaphore; /* address of its semaphore, 0 when none */
	char args[256];     /* argument spec: "-4@%edi 8@%rsi" */
};

/*
 * Read every USDT site of the ELF file PATH into *SITES (malloc'ed, free it).
 * Returns the number of sites (0: an ELF file without probes), or -1 with a
 * message naming the file in ERR.
 */
int ntp_usdt_read(const char *path, struct ntp_usdt_site **sites, char *err, size_t errlen);

/* How many of the N sites are PROVIDER:NAME. */
int ntp_usdt_count(const struct ntp_usdt_site *sites, int n, const char *provider,
		   const char *name);

#endif
