// SPDX-License-Identifier: BSD-2-Clause
/*
 * SHA-256 and HMAC-SHA256 (lib/sha256.c), which authenticate the cache of
 * prepared runs, against the standards' test vectors: FIPS 180-4's
 * examples (NIST's "abc", the empty message, the 448-bit message, a
 * million 'a's fed in odd pieces) and RFC 4231's HMAC cases 1, 2 and 6 (a
 * key longer than a block), by the CPU's SHA extensions where it has them
 * (the kernel's cpuinfo says so) and then by portable C, and the two on
 * pseudo-random messages of every length up to a few blocks and of 1 MiB.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"

/* The SHA-256 of N bytes of DATA, in hex, fed in pieces of STEP bytes. */
static const char *sha(const void *data, size_t n, size_t step)
{
	static char hex[2 * NTP_SHA256_LEN + 1];
	unsigned char out[NTP_SHA256_LEN];
	struct ntp_sha256 c;

	ntp_sha256_init(&c);
	for (size_t i = 0; i < n; i += step)
		ntp_sha256_update(&c, (const char *)data + i, n - i < step ? n - i : step);
	ntp_sha256_final(&c, out);
	ntp_hex(hex, out, sizeof(out));
	return hex;
}

static const char *hmac(const void *key, size_t klen, const void *msg, size_t n)
{
	static char hex[2 * NTP_SHA256_LEN + 1];
	unsigned char out[NTP_SHA256_LEN];
	struct ntp_hmac m;

	ntp_hmac_init(&m, key, klen);
	ntp_hmac_update(&m, msg, n);
	ntp_hmac_final(&m, out);
	ntp_hex(hex, out, sizeof(out));
	return hex;
}

static void test_sha256(void **state)
{
	static const char m448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	static char million[1000000];

	(void)state;
	assert_string_equal(sha("abc", 3, 3),
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	assert_string_equal(sha("", 0, 1),
			    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	assert_string_equal(sha(m448, strlen(m448), 7),
			    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', sizeof(million));
	assert_string_equal(sha(million, sizeof(million), 4093),
			    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	assert_string_equal(sha(million, sizeof(million), sizeof(million)),
			    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_hmac(void **state)
{
	static const char test6[] = "Test Using Larger Than Block-Size Key - Hash Key First";
	unsigned char key1[20], key6[131];

	(void)state;
	memset(key1, 0x0b, sizeof(key1));
	assert_string_equal(hmac(key1, sizeof(key1), "Hi There", 8),
			    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	assert_string_equal(hmac("Jefe", 4, "what do ya want for nothing?", 28),
			    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(key6, 0xaa, sizeof(key6));
	assert_string_equal(hmac(key6, sizeof(key6), test6, strlen(test6)),
			    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

/* 1 when /proc/cpuinfo lists the SHA extensions (flag sha_ni). */
static int cpuinfo_sha(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	int yes = 0;

	assert_non_null(f);
	while (!yes && fgets(line, sizeof(line), f))
		yes = !strncmp(line, "flags", 5) && strstr(line, " sha_ni") != NULL;
	fclose(f);
	return yes;
}

static void test_accelerated(void **state)
{
	(void)state;
	assert_int_equal(ntp_sha256_accelerated(), cpuinfo_sha());
}

/* Messages of LEN bytes for LEN up to 300, and 1 MiB: the hashes of the
 * path in use, then of portable C; the same. Leaves portable C in use. */
static void test_same(void **state)
{
	enum { SHORT = 301, BIG = 1 << 20 };
	static char fast[SHORT + 1][2 * NTP_SHA256_LEN + 1];
	unsigned char *m = malloc(BIG);
	uint64_t x = 88172645463325252ULL;

	(void)state;
	assert_non_null(m);
	for (int i = 0; i < BIG; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		m[i] = (unsigned char)x;
	}
	for (int n = 0; n < SHORT; n++)
		strcpy(fast[n], sha(m, (size_t)n, 64));
	strcpy(fast[SHORT], sha(m, BIG, 1000));
	ntp_sha256_portable();
	assert_int_equal(ntp_sha256_accelerated(), 0);
	for (int n = 0; n < SHORT; n++)
		assert_string_equal(sha(m, (size_t)n, 64), fast[n]);
	assert_string_equal(sha(m, BIG, 1000), fast[SHORT]);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accelerated),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_hmac),
		cmocka_unit_test(test_same),
		/* again, by portable C */
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_hmac),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
