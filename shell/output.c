// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof-shell's output: errors that name where they happened, and the
 * .output and .once files, never one of the recordings it reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shell.h"

/* ---- errors ---- */

/* ntprof-shell: [stdin:LINE: ]WHAT: WHY */
void err_msg(struct shell *sh, const char *fmt, ...)
{
	va_list ap;

	fflush(sh->out.f);
	fputs("ntprof-shell: ", stderr);
	if (sh->source)
		fprintf(stderr, "%s:%d: ", sh->source, sh->lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- output files ---- */

static int same_inode(const char *path, const struct stat *st)
{
	struct stat db;

	return !stat(path, &db) && db.st_dev == st->st_dev && db.st_ino == st->st_ino;
}

/* Is ST one of the recordings, or its -wal, -journal or -shm file? */
static int is_input(const struct ntp_session *s, const struct stat *st)
{
	static const char *const suffix[] = { "", "-wal", "-journal", "-shm" };
	char path[PATH_MAX + 16];

	for (int i = 0; i < s->ndbs; i++)
		for (size_t k = 0; k < sizeof(suffix) / sizeof(suffix[0]); k++) {
			snprintf(path, sizeof(path), "%s%s", s->dbs[i].path, suffix[k]);
			if (same_inode(path, st))
				return 1;
		}
	return 0;
}

/* PATH with its directory resolved: the name a file has, existing or not. */
static int canonical(const char *path, char *out, size_t n)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 1,
		 slash ? path : ".");
	return realpath(dir, real) && snprintf(out, n, "%s/%s", real, base) < (int)n ? 0 : -1;
}

/* Does PATH name a recording or its -wal, -journal or -shm, even one that
 * does not exist (yet)? */
static int names_input(const struct ntp_session *s, const char *path)
{
	static const char *const suffix[] = { "", "-wal", "-journal", "-shm" };
	char want[PATH_MAX + 16], db[PATH_MAX + 16], side[PATH_MAX + 32];

	if (canonical(path, want, sizeof(want)))
		return 0;
	for (int i = 0; i < s->ndbs; i++) {
		if (canonical(s->dbs[i].path, db, sizeof(db)))
			continue;
		for (size_t k = 0; k < sizeof(suffix) / sizeof(suffix[0]); k++) {
			snprintf(side, sizeof(side), "%s%s", db, suffix[k]);
			if (!strcmp(side, want))
				return 1;
		}
	}
	return 0;
}

/*
 * Open PATH for .output or .once: never through a symlink, never one of the
 * recordings or a file beside one that SQLite would read (refused by name
 * before anything is created). The file is truncated only after fstat()
 * shows it is not an input, so a refused name is left as it was.
 */
FILE *open_output(struct shell *sh, const char *cmd, const char *path)
{
	struct stat st;
	FILE *f;
	int fd;

	if (names_input(sh->s, path)) {
		err_msg(sh, ".%s: %s: is a recording this shell reads, or a file beside one, "
			"refused", cmd, path);
		return NULL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		err_msg(sh, ".%s: %s: %s", cmd, path,
			errno == ELOOP ? "a symbolic link, refused" : strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || is_input(sh->s, &st)) {
		err_msg(sh, ".%s: %s: is a recording this shell reads, refused", cmd, path);
		close(fd);
		return NULL;
	}
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0)) {
		err_msg(sh, ".%s: %s: %s", cmd, path, strerror(errno));
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err_msg(sh, ".%s: %s: %s", cmd, path, strerror(errno));
		close(fd);
	}
	return f;
}

/* Close an output file; a failed write shows up here. Returns 0 or -1. */
int close_output(struct shell *sh, FILE **f, const char *what)
{
	int rc = 0;

	if (!*f)
		return 0;
	if (ferror(*f) | fclose(*f)) {
		err_msg(sh, "%s: writing failed: %s", what, strerror(errno));
		rc = -1;
	}
	*f = NULL;
	return rc;
}

void route_output(struct shell *sh)
{
	sh->out.f = sh->once ? sh->once : sh->output ? sh->output : stdout;
}

/* After every command: .once's file is closed after the one that follows. */
void command_done(struct shell *sh, int rc)
{
	if (sh->once_left && --sh->once_left == 0) {
		if (close_output(sh, &sh->once, ".once"))
			rc = -1;
		route_output(sh);
	}
	fflush(sh->out.f);
	if (rc)
		sh->failed = 1;
}
