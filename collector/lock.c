// SPDX-License-Identifier: BSD-2-Clause
/* One collector per process (lock.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lock.h"
#include "ntp_err.h"
#include "proc.h"

/* DIR exists (made 0700 if not), a directory of ours no one else writes. */
static int lock_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return ntp_fail(err, errlen, "cannot make %s for the locks: %s", dir, strerror(errno));
	if (lstat(dir, &st))
		return ntp_fail(err, errlen, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return ntp_fail(err, errlen, "%s: not a directory of user %ld that only it may "
				"write: not taking locks there", dir, (long)geteuid());
	return 0;
}

static void lock_path(char *path, size_t len, const char *dir, pid_t pid, uint64_t start)
{
	snprintf(path, len, "%s/%d-%" PRIu64 ".lock", dir, (int)pid, start);
}

/* The files of processes that are gone, left by collectors killed with -9
 * (no one holds them): removed, so they do not pile up. */
static void sweep(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		unsigned long long start;
		int pid, n = 0, fd;

		if (sscanf(e->d_name, "%d-%llu.lock%n", &pid, &start, &n) != 2 ||
		    e->d_name[n] || ntp_proc_start_time(pid) == (uint64_t)start)
			continue;
		lock_path(path, sizeof(path), dir, pid, start);
		fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB))
			unlink(path);
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
}

/* The pid the holder of FD wrote: it writes it right after taking the
 * lock, so a moment is allowed for it. 0 if it does not say. */
static pid_t holder_of(int fd)
{
	struct timespec ts = { 0, 10000000 };
	char buf[32];

	for (int i = 0; i < 20; i++) {
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		long v;

		if (n > 0) {
			buf[n] = '\0';
			v = strtol(buf, NULL, 10);
			if (v > 0 && buf[n - 1] == '\n')
				return (pid_t)v;
		}
		nanosleep(&ts, NULL);
	}
	return 0;
}

int ntp_lock_take(const char *dir, pid_t pid, uint64_t start, pid_t *holder, char *err,
		  size_t errlen)
{
	char path[PATH_MAX], me[32], why[PATH_MAX + 128];
	struct stat fst, pst;

	*holder = 0;
	if (lock_dir(dir, why, sizeof(why)))
		return ntp_fail(err, errlen, "process %d: cannot lock it: %s", (int)pid, why);
	sweep(dir);
	lock_path(path, sizeof(path), dir, pid, start);
	/* a file its holder removed between our open and our lock is no
	 * lock: take the one at the path again */
	for (int tries = 0; tries < 10; tries++) {
		int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		int n;

		if (fd < 0)
			return ntp_fail(err, errlen, "process %d: cannot lock it: %s: %s", (int)pid,
					path, strerror(errno));
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int e = errno;

			if (e == EWOULDBLOCK)
				*holder = holder_of(fd);
			close(fd);
			if (e != EWOULDBLOCK)
				return ntp_fail(err, errlen, "process %d: cannot lock it: %s: %s",
						(int)pid, path, strerror(e));
			if (*holder)
				return ntp_fail(err, errlen, "process %d: another collector (pid %d) "
						"records it; stop that one first", (int)pid,
						(int)*holder);
			return ntp_fail(err, errlen, "process %d: another collector records it "
					"(%s); stop that one first", (int)pid, path);
		}
		if (fstat(fd, &fst) || stat(path, &pst) || fst.st_ino != pst.st_ino ||
		    fst.st_dev != pst.st_dev) {
			close(fd);
			continue;
		}
		n = snprintf(me, sizeof(me), "%d\n", (int)getpid());
		if (ftruncate(fd, 0) || pwrite(fd, me, (size_t)n, 0) != n) {
			close(fd);
			return ntp_fail(err, errlen, "process %d: cannot lock it: %s: %s", (int)pid,
					path, strerror(errno));
		}
		return fd;
	}
	return ntp_fail(err, errlen, "process %d: cannot lock it: %s keeps being removed",
			(int)pid, path);
}

void ntp_lock_release(const char *dir, pid_t pid, uint64_t start, int fd)
{
	char path[PATH_MAX];

	if (fd < 0)
		return;
	lock_path(path, sizeof(path), dir, pid, start);
	unlink(path); /* while still holding it: no one takes a removed file */
	close(fd);
}
