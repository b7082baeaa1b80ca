/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Under sudo, the files ntprof-collect writes (the database, its -wal,
 * -shm and journal) are created and removed with the invoking user's
 * file-system identity (setfsuid/setfsgid and the user's groups), as
 * tcpdump -Z drops privileges before it opens its savefile: a recording can
 * only go where that user could write, and it belongs to them from its
 * first byte. Everything else (BPF, /proc, the probed binaries) keeps
 * root's. Without sudo (no SUDO_UID, or not root) these do nothing.
 */
#ifndef NTPROF_FSID_H
#define NTPROF_FSID_H

#include <stddef.h>

/* Learn the user from SUDO_UID and SUDO_GID and take on their groups.
 * Returns 0, or -1 with a message in err. */
int ntp_fsid_init(char *err, size_t errlen);

/* File-system identity: the user's, or back to root's. */
void ntp_fsid_user(void);
void ntp_fsid_root(void);

/* The user files are written as, or -1 (not under sudo); their group. */
long ntp_fsid_uid(void);
long ntp_fsid_gid(void);

/*
 * Open PATH, a file named on the command line (a program, a BTF file), to
 * read it with the user's file-system identity: what they may not see,
 * root does not look at for them, and the message is the same whether or
 * not it exists there. Without blocking (a FIFO, a device): a regular file
 * only. Returns the descriptor, or -1 with ERR set.
 */
int ntp_fsid_open_input(const char *path, char *err, size_t errlen);

#endif
