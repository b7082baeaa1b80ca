// SPDX-License-Identifier: BSD-2-Clause
/*
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104): portable C, and on x86
 * CPUs with the SHA extensions their instructions (about four times the
 * speed: a prepared run's cache file is hashed whole each time it is
 * opened). Both are checked against the standards' test vectors and each
 * other (tests/test_sha256.c).
 */
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define NTP_SHA_NI 1
#endif

#include "sha256.h"

static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
	return x >> n | x << (32 - n);
}

static void block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh, t1, t2;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ w[i - 15] >> 3) +
		       w[i - 7] + (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ w[i - 2] >> 10);
	a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
	for (int i = 0; i < 64; i++) {
		t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
		t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

static void blocks_c(uint32_t h[8], const unsigned char *p, size_t n)
{
	for (; n; n--, p += 64)
		block(h, p);
}

#ifdef NTP_SHA_NI
/* N blocks with the SHA extensions (the state as ABEF and CDGH, 4 rounds
 * of each group of 4 message words at a time). */
__attribute__((target("sha,sse4.1"))) static void blocks_ni(uint32_t h[8],
							   const unsigned char *p, size_t n)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i s0, s1, t, w[4];

	t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xb1); /* CDAB */
	s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1b); /* EFGH */
	s0 = _mm_alignr_epi8(t, s1, 8);                                        /* ABEF */
	s1 = _mm_blend_epi16(s1, t, 0xf0);                                     /* CDGH */
	for (; n; n--, p += 64) {
		__m128i abef = s0, cdgh = s1;

#pragma GCC unroll 16
		for (int i = 0; i < 16; i++) {
			__m128i g, m;

			/* w[i & 3] holds group i - 4, w[(i + 1) & 3] i - 3,
			 * w[(i + 2) & 3] i - 2 and w[(i + 3) & 3] i - 1 */
			if (i < 4) {
				g = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)),
						     bswap);
			} else {
				g = _mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]);
				g = _mm_add_epi32(g, _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
				g = _mm_sha256msg2_epu32(g, w[(i + 3) & 3]);
			}
			w[i & 3] = g;
			m = _mm_add_epi32(g, _mm_loadu_si128((const __m128i *)&k[4 * i]));
			s1 = _mm_sha256rnds2_epu32(s1, s0, m);
			s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(m, 0x0e));
		}
		s0 = _mm_add_epi32(s0, abef);
		s1 = _mm_add_epi32(s1, cdgh);
	}
	t = _mm_shuffle_epi32(s0, 0x1b);                /* FEBA */
	s1 = _mm_shuffle_epi32(s1, 0xb1);               /* DCHG */
	s0 = _mm_blend_epi16(t, s1, 0xf0);              /* DCBA */
	s1 = _mm_alignr_epi8(s1, t, 8);                 /* HGFE */
	_mm_storeu_si128((__m128i *)&h[0], s0);
	_mm_storeu_si128((__m128i *)&h[4], s1);
}

static int cpu_has_sha(void)
{
	unsigned a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) && (c & bit_SSE4_1) &&
	       __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
}
#endif

/* 1: the SHA extensions are used, 0: not (-1: not yet asked) */
static int use_ni = -1;

int ntp_sha256_accelerated(void)
{
#ifdef NTP_SHA_NI
	if (use_ni < 0)
		use_ni = cpu_has_sha();
#else
	use_ni = 0;
#endif
	return use_ni;
}

void ntp_sha256_portable(void)
{
	use_ni = 0;
}

static void blocks(uint32_t h[8], const unsigned char *p, size_t n)
{
#ifdef NTP_SHA_NI
	if (ntp_sha256_accelerated()) {
		blocks_ni(h, p, n);
		return;
	}
#endif
	blocks_c(h, p, n);
}

void ntp_sha256_init(struct ntp_sha256 *c)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(c->h, iv, sizeof(iv));
	c->len = 0;
	c->nbuf = 0;
}

void ntp_sha256_update(struct ntp_sha256 *c, const void *data, size_t n)
{
	const unsigned char *p = data;

	c->len += n;
	if (c->nbuf) {
		size_t take = 64 - c->nbuf < n ? 64 - c->nbuf : n;

		memcpy(c->buf + c->nbuf, p, take);
		c->nbuf += take, p += take, n -= take;
		if (c->nbuf < 64)
			return;
		blocks(c->h, c->buf, 1);
		c->nbuf = 0;
	}
	blocks(c->h, p, n / 64);
	p += n / 64 * 64;
	n %= 64;
	memcpy(c->buf, p, n);
	c->nbuf = n;
}

void ntp_sha256_final(struct ntp_sha256 *c, unsigned char out[NTP_SHA256_LEN])
{
	uint64_t bits = c->len * 8;
	unsigned char pad[72] = { 0x80 };
	size_t npad = (c->nbuf < 56 ? 56 : 120) - c->nbuf;

	for (int i = 0; i < 8; i++)
		pad[npad + i] = (unsigned char)(bits >> (56 - 8 * i));
	ntp_sha256_update(c, pad, npad + 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(c->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)c->h[i];
	}
}

void ntp_hmac_init(struct ntp_hmac *m, const void *key, size_t keylen)
{
	unsigned char k0[64] = { 0 }, pad[64];

	if (keylen > 64) {
		struct ntp_sha256 c;

		ntp_sha256_init(&c);
		ntp_sha256_update(&c, key, keylen);
		ntp_sha256_final(&c, k0);
	} else {
		memcpy(k0, key, keylen);
	}
	for (int i = 0; i < 64; i++)
		pad[i] = k0[i] ^ 0x36;
	ntp_sha256_init(&m->inner);
	ntp_sha256_update(&m->inner, pad, 64);
	for (int i = 0; i < 64; i++)
		pad[i] = k0[i] ^ 0x5c;
	ntp_sha256_init(&m->outer);
	ntp_sha256_update(&m->outer, pad, 64);
}

void ntp_hmac_update(struct ntp_hmac *m, const void *data, size_t n)
{
	ntp_sha256_update(&m->inner, data, n);
}

void ntp_hmac_final(struct ntp_hmac *m, unsigned char out[NTP_SHA256_LEN])
{
	unsigned char in[NTP_SHA256_LEN];

	ntp_sha256_final(&m->inner, in);
	ntp_sha256_update(&m->outer, in, sizeof(in));
	ntp_sha256_final(&m->outer, out);
}

void ntp_hex(char *out, const unsigned char *in, size_t n)
{
	static const char d[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[in[i] >> 4];
		out[2 * i + 1] = d[in[i] & 15];
	}
	out[2 * n] = 0;
}
