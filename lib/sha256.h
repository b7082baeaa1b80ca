/* SPDX-License-Identifier: BSD-2-Clause */
/* SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104): what the cache of
 * prepared runs needs to tell its own files from damaged or forged ones
 * (lib/cache.c), without a crypto library. */
#ifndef NTP_SHA256_H
#define NTP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define NTP_SHA256_LEN 32

struct ntp_sha256 {
	uint32_t h[8];          /* the chaining value */
	uint64_t len;           /* bytes hashed so far */
	unsigned char buf[64];  /* a block not yet full */
	size_t nbuf;            /* bytes in buf */
};

void ntp_sha256_init(struct ntp_sha256 *c);
void ntp_sha256_update(struct ntp_sha256 *c, const void *data, size_t n);
void ntp_sha256_final(struct ntp_sha256 *c, unsigned char out[NTP_SHA256_LEN]);

/* 1 when the CPU's SHA extensions compute it, else 0 (portable C). */
int ntp_sha256_accelerated(void);
/* From now on, portable C only in this process (tests compare the two). */
void ntp_sha256_portable(void);

/* HMAC-SHA256 in steps: init with the key, update with the message, final. */
struct ntp_hmac {
	struct ntp_sha256 inner, outer;
};

void ntp_hmac_init(struct ntp_hmac *m, const void *key, size_t keylen);
void ntp_hmac_update(struct ntp_hmac *m, const void *data, size_t n);
void ntp_hmac_final(struct ntp_hmac *m, unsigned char out[NTP_SHA256_LEN]);

/* OUT (2 * N + 1 bytes) gets the N bytes of IN in lower-case hex. */
void ntp_hex(char *out, const unsigned char *in, size_t n);

#endif
