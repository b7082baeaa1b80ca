// SPDX-License-Identifier: BSD-2-Clause
/*
 * The invoking user's file-system identity for the files a recording
 * writes (fsid.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsid.h"

static int active;
static uid_t user_uid;
static gid_t user_gid;

/* A whole decimal id from the environment, or -1. */
static long env_id(const char *name)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return -1;
	errno = 0;
	n = strtol(v, &end, 10);
	return errno || *end || n < 0 || n > 0x7fffffffL ? -1 : n;
}

int ntp_fsid_init(char *err, size_t errlen)
{
	long uid = env_id("SUDO_UID"), gid = env_id("SUDO_GID");
	gid_t groups[256];
	int n = (int)(sizeof(groups) / sizeof(groups[0]));
	struct passwd *pw;

	if (geteuid() != 0 || uid <= 0 || gid < 0)
		return 0; /* not under sudo, or sudo to root from root */
	user_uid = (uid_t)uid;
	user_gid = (gid_t)gid;
	/* the user's groups decide group permissions on the way to the file */
	pw = getpwuid(user_uid);
	if (!pw || getgrouplist(pw->pw_name, user_gid, groups, &n) < 0) {
		groups[0] = user_gid;
		n = 1;
	}
	if (setgroups((size_t)n, groups)) {
		snprintf(err, errlen, "cannot take on the groups of user %ld: %s", uid,
			 strerror(errno));
		return -1;
	}
	active = 1;
	return 0;
}

void ntp_fsid_user(void)
{
	if (!active)
		return;
	setfsgid(user_gid);
	setfsuid(user_uid);
}

void ntp_fsid_root(void)
{
	if (!active)
		return;
	setfsuid(0);
	setfsgid(0);
}

long ntp_fsid_uid(void)
{
	return active ? (long)user_uid : -1;
}

long ntp_fsid_gid(void)
{
	return active ? (long)user_gid : -1;
}

int ntp_fsid_open_input(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd, e;

	ntp_fsid_user();
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	e = errno;
	ntp_fsid_root();
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		if (active) {
			size_t n = strlen(err);

			snprintf(err + n, errlen - n, " (read as user %ld, who ran sudo)",
				 (long)user_uid);
		}
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s: not a regular file", path);
		return -1;
	}
	return fd;
}
