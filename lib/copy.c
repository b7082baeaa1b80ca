// SPDX-License-Identifier: BSD-2-Clause
/*
 * Private copies of recordings that were not closed (their collector was
 * killed, their disk filled, or they are still being written): the file
 * and the part of its -wal that SQLite would read are copied into a
 * directory of our own under $TMPDIR, and the WAL is folded into the copy
 * there. The input is only read: no -shm, no lock, no checkpoint beside it.
 * A session reads such a copy of a recording that was not closed, and
 * the recording itself otherwise (ntp_choose_file).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ntp_check.h"
#include "ntp_copy.h"
#include "ntp_err.h"
#include "ntp_progress.h"
#include "ntp_session.h"

#define WAL_HDR 32
#define FRAME_HDR 24
#define WAL_MAGIC 0x377f0682u

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* SQLite's WAL checksum over N bytes (a multiple of 8) of P, from S. */
static void wal_sum(uint32_t s[2], const unsigned char *p, size_t n, int big)
{
	for (size_t i = 0; i < n; i += 8) {
		s[0] += (big ? be32(p + i) : le32(p + i)) + s[1];
		s[1] += (big ? be32(p + i + 4) : le32(p + i + 4)) + s[0];
	}
}

/* read() exactly N bytes unless the file ends: the count read, -1 on an
 * error. */
static ssize_t read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static int write_full(int fd, const void *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = ENOSPC;
			return -1;
		}
		buf = (const char *)buf + w;
		n -= (size_t)w;
	}
	return 0;
}

/* Open FROM for reading as a regular file, without blocking or following a
 * final symlink planted where the -wal should be. */
static int open_regular(const char *from, struct stat *st, int nofollow)
{
	int fd = open(from, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
		      (nofollow ? O_NOFOLLOW : 0));

	if (fd < 0)
		return -1;
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/*
 * How many bytes of the -wal open as FD SQLite would read: its header, then
 * each frame whose salts match the header's and whose running checksum
 * holds, up to the last one that ends a transaction. What follows (frames
 * of an older generation, a torn write, zeros of a sparse file) is never
 * read by SQLite, so it is not copied: a -wal of 2 GB of holes costs
 * nothing. 0 if the header is not a WAL's (SQLite ignores such a file).
 */
static off_t wal_valid_size(int fd)
{
	unsigned char h[WAL_HDR], *frame;
	uint32_t page, s[2] = { 0, 0 };
	off_t end = 0, at = WAL_HDR;
	int big;

	if (read_full(fd, h, sizeof(h)) != WAL_HDR || (be32(h) & ~1u) != WAL_MAGIC ||
	    be32(h + 4) != 3007000)
		return 0;
	page = be32(h + 8);
	if (page < 512 || page > 65536 || (page & (page - 1)))
		return 0;
	big = be32(h) & 1;
	wal_sum(s, h, 24, big);
	if (s[0] != be32(h + 24) || s[1] != be32(h + 28))
		return 0;
	frame = malloc(FRAME_HDR + page);
	if (!frame)
		return -1;
	while (read_full(fd, frame, FRAME_HDR + page) == (ssize_t)(FRAME_HDR + page)) {
		if (be32(frame) == 0 || memcmp(frame + 8, h + 16, 8))
			break;
		wal_sum(s, frame, 8, big);
		wal_sum(s, frame + FRAME_HDR, page, big);
		if (s[0] != be32(frame + 16) || s[1] != be32(frame + 20))
			break;
		at += FRAME_HDR + page;
		if (be32(frame + 4))
			end = at;
	}
	free(frame);
	return end ? end : WAL_HDR;
}

/* Copy LEN bytes (all: -1) of IN from its start into TO, created. */
static int copy_fd(int in, const char *to, off_t len)
{
	char buf[1 << 16];
	int out, rc = 0;

	if (lseek(in, 0, SEEK_SET) < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (out < 0)
		return -1;
	while (!rc && len != 0) {
		size_t want = len < 0 || len > (off_t)sizeof(buf) ? sizeof(buf) : (size_t)len;
		ssize_t n = read_full(in, buf, want);

		if (n <= 0) {
			rc = n < 0 ? -1 : 0;
			break;
		}
		rc = write_full(out, buf, (size_t)n);
		if (len > 0)
			len -= n;
	}
	if (close(out) && !rc)
		rc = -1;
	return rc;
}

/* Room for NEED bytes in DIR's file system: ENOSPC said before a byte is
 * written. */
static int check_room(const char *dir, off_t need, char *err, size_t errlen,
		      const char *path)
{
	struct statvfs vfs;

	if (statvfs(dir, &vfs) || (unsigned long long)vfs.f_bavail * vfs.f_frsize >=
				      (unsigned long long)need)
		return 0;
	errno = ENOSPC;
	return ntp_fail(err, errlen, "%s: cannot make a private copy in %.*s: %s (it needs "
			"%lld MiB, %llu MiB are free)", path, (int)(strrchr(dir, '/') - dir), dir,
			strerror(ENOSPC),
			(long long)(need >> 20) + 1,
			(unsigned long long)vfs.f_bavail * vfs.f_frsize >> 20);
}

static int same_state(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ino == b->st_ino;
}

/*
 * The -wal first, then the file: a checkpoint that writes the file while it
 * is copied would mix pages of two moments, so the file's size and time are
 * compared before and after, and the copy made again if it changed.
 */
static int copy_pair(const char *path, const char *dir, const char *file, const char *wal,
		     int *has_wal, char *err, size_t errlen)
{
	char from[PATH_MAX + 8];
	struct stat before, after, wst;
	int in = -1, win = -1, tries;
	off_t wlen = 0;

	snprintf(from, sizeof(from), "%s-wal", path);
	for (tries = 0; tries < 5; tries++) {
		unlink(file);
		unlink(wal);
		in = open_regular(path, &before, 0);
		if (in < 0)
			return ntp_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		win = open_regular(from, &wst, 1);
		*has_wal = win >= 0;
		if (!*has_wal && errno != ENOENT) {
			int e = errno;

			close(in);
			return ntp_fail(err, errlen, "%s: cannot read its -wal: %s", path,
					e == EINVAL ? "not a regular file" : strerror(e));
		}
		wlen = *has_wal ? wal_valid_size(win) : 0;
		if (wlen < 0 || check_room(dir, before.st_size + wlen, err, errlen, path) ||
		    (*has_wal && copy_fd(win, wal, wlen)) || copy_fd(in, file, -1))
			goto fail;
		if (*has_wal)
			close(win);
		win = -1;
		if (fstat(in, &after) == 0 && same_state(&before, &after)) {
			close(in);
			return 0;
		}
		close(in);
	}
	return ntp_fail(err, errlen, "%s: changed each time it was copied (a checkpoint under "
			"way?); try again", path);
fail:
	if (!*err)
		ntp_fail(err, errlen, "%s: cannot copy it to %s: %s", path, dir, strerror(errno));
	close(in);
	if (win >= 0)
		close(win);
	return -1;
}

int ntp_private_copy(const char *path, char **dir_out, char **file_out, int *has_wal,
		     char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], file[PATH_MAX + 16], wal[PATH_MAX + 32];
	sqlite3 *db = NULL;
	int rc;

	*dir_out = *file_out = NULL;
	*err = 0;
	snprintf(dir, sizeof(dir), "%s/ntprof-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return ntp_fail(err, errlen, "%s: cannot make a private copy in %s: %s", path,
				tmp && *tmp ? tmp : "/tmp", strerror(errno));
	*dir_out = strdup(dir);
	snprintf(file, sizeof(file), "%s/recording.db", dir);
	snprintf(wal, sizeof(wal), "%s-wal", file);
	if (!*dir_out)
		return ntp_private_copy_remove(dir), ntp_fail(err, errlen, "out of memory");
	if (copy_pair(path, dir, file, wal, has_wal, err, errlen))
		return -1;
	/* the copy is ours: SQLite folds the WAL into it, and a full TMPDIR
	 * says so */
	rc = sqlite3_open_v2(file, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		ntp_fail(err, errlen, "%s: cannot fold its -wal into the copy in %s: %s", path,
			 dir, (rc & 0xff) == SQLITE_FULL ? strerror(ENOSPC) : sqlite3_errmsg(db));
		sqlite3_close(db);
		return -1;
	}
	sqlite3_close(db);
	*file_out = strdup(file);
	return *file_out ? 0 : ntp_fail(err, errlen, "out of memory");
}

void ntp_private_copy_remove(const char *dir)
{
	static const char *const side[] = { "", "-wal", "-journal", "-shm" };
	char f[PATH_MAX + 32];

	if (!dir)
		return;
	for (size_t i = 0; i < sizeof(side) / sizeof(side[0]); i++) {
		snprintf(f, sizeof(f), "%s/recording.db%s", dir, side[i]);
		unlink(f);
	}
	rmdir(dir);
}

/*
 * A recording that was not closed (its collector killed, its disk full, or
 * still recording): read a private copy of it and its -wal, with the WAL
 * folded in (ntp_private_copy), so nothing is written or locked beside the
 * input and the checks see what the WAL changes. Said on stderr unless S
 * is NULL.
 */
static int private_copy(struct ntp_session *s, struct ntp_dbinfo *d, char *err,
			size_t errlen)
{
	int has_wal = 0;
	int rc = ntp_private_copy(d->path, &d->copy_dir, &d->open_path, &has_wal, err, errlen);

	if (s)
		ntp_say(s, "%s was not closed (its collector was killed or is still recording)%s",
		     d->path, has_wal ? ": reading a copy with its -wal" :
		     ", and no -wal is beside it: its last records may be missing");
	return rc ? rc : ntp_check_copy(d, err, errlen);
}

/* The file to read for D: its path, or a private copy. */
int ntp_choose_file(struct ntp_session *s, struct ntp_dbinfo *d, char *err,
		    size_t errlen)
{
	if (d->wal)
		return private_copy(s, d, err, errlen);
	d->open_path = strdup(d->path);
	return d->open_path ? 0 : ntp_fail(err, errlen, "out of memory");
}
