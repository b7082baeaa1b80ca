// SPDX-License-Identifier: BSD-2-Clause
/*
 * The writer's privileges dropped (priv.h), with prctl and capset
 * directly: no library for a dozen system calls.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ntp_err.h"
#include "priv.h"

/* Close every descriptor from 3 up but those in KEEP. */
static void close_all_but(const int *keep, int n)
{
	unsigned int from = 3;

	for (;;) {
		unsigned int next = ~0U; /* the lowest kept descriptor >= from */

		for (int i = 0; i < n; i++)
			if (keep[i] >= (int)from && (unsigned int)keep[i] < next)
				next = (unsigned int)keep[i];
		if (next > from)
			close_range(from, next == ~0U ? ~0U : next - 1, 0);
		if (next == ~0U)
			return;
		from = next + 1;
	}
}

/* Set the three sets to CAPS (a bit mask of capabilities below 64). */
static int set_caps(uint64_t permitted, uint64_t effective)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {
		{ .effective = (uint32_t)effective, .permitted = (uint32_t)permitted },
		{ .effective = (uint32_t)(effective >> 32), .permitted = (uint32_t)(permitted >> 32) },
	};

	return (int)syscall(SYS_capset, &h, d);
}

static int get_caps(uint64_t *permitted, uint64_t *effective)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	*permitted = d[0].permitted | (uint64_t)d[1].permitted << 32;
	*effective = d[0].effective | (uint64_t)d[1].effective << 32;
	return 0;
}

/* The highest capability this kernel knows. */
static int last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = CAP_LAST_CAP;

	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = CAP_LAST_CAP;
		fclose(f);
	}
	return last;
}

/* A read of MAP_FD (key 0) works with the capabilities in effect now. */
static int map_readable(int map_fd)
{
	char value[4096]; /* room for a per-CPU u64 of 512 CPUs */
	unsigned int key = 0;

	return !bpf_map_lookup_elem(map_fd, &key, value) || errno != EPERM;
}

/* Whether reading MAP_FD needs CAP_BPF: tried with it (and CAP_SYS_ADMIN,
 * which also allows it) out of effect for a moment. */
static int bpf_needed(int map_fd)
{
	const uint64_t bpf = 1ULL << CAP_BPF | 1ULL << CAP_SYS_ADMIN;
	uint64_t prm, eff;
	int readable;

	if (get_caps(&prm, &eff) || set_caps(prm, eff & ~bpf))
		return 1;
	readable = map_readable(map_fd);
	set_caps(prm, eff);
	return !readable;
}

int ntp_priv_drop(const int *keep, int n, long uid, long gid, int map_fd, int *kept_bpf,
		  char *err, size_t errlen)
{
	uint64_t want, prm, eff;

	close_all_but(keep, n);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return ntp_fail(err, errlen, "failed to set no_new_privs: %s", strerror(errno));
	*kept_bpf = bpf_needed(map_fd);
	want = *kept_bpf ? 1ULL << CAP_BPF : 0;
	for (int c = 0; c <= last_cap(); c++)
		if (!(want >> c & 1) && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL)
			return ntp_fail(err, errlen, "failed to drop capability %d: %s", c,
					strerror(errno));
	if (uid >= 0 && (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) ||
			 setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) ||
			 setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) ||
			 prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)))
		return ntp_fail(err, errlen, "failed to become user %ld: %s", uid, strerror(errno));
	if (set_caps(want, want) || prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		return ntp_fail(err, errlen, "failed to drop the capabilities: %s", strerror(errno));
	if (!map_readable(map_fd))
		return ntp_fail(err, errlen, "cannot read the BPF maps without privileges: %s",
				strerror(errno));
	/* what is in effect now is what was asked, nothing more */
	if (get_caps(&prm, &eff) || prm != want || eff != want)
		return ntp_fail(err, errlen, "failed to drop the capabilities: some are left");
	return 0;
}
