/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SPDK processes and their sampling variable. The collector writes N into
 * the patch's variable in every running process of the named binary (or of
 * a program that maps the named shared library), and 0 when it stops. It
 * writes nothing else, and only at the variable's ELF symbol address in a
 * process that really maps that file.
 */
#ifndef NTP_PROC_H
#define NTP_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The variable the SPDK patch adds: 0 samples nothing, N one command in N. */
#define NTP_SAMPLE_VAR "ntprof_sample_rate"
/* Its companion, written first: bits of enum ntp_sample_flag. */
#define NTP_FLAGS_VAR "ntprof_sample_flags"

/*
 * Processes whose executable is PATH or that map PATH (a shared library),
 * compared by device and inode, not by name. Fills PIDS (up to MAX) and
 * returns how many there are (possibly more than MAX), or -1 with ERR set
 * when PATH cannot be read.
 */
int ntp_proc_find(const char *path, pid_t *pids, int max, char *err, size_t errlen);

/*
 * The address of symbol NAME of file PATH in process PID: the symbol's file
 * offset through the ELF program headers, then the mapping of that offset
 * in /proc/PID/maps. Returns 0, or -1 with ERR set.
 */
int ntp_proc_symbol(pid_t pid, const char *path, const char *name, uint64_t *addr, char *err,
		    size_t errlen);

/* 1 if the ELF file PATH defines symbol NAME (.symtab or .dynsym). */
int ntp_elf_defines(const char *path, const char *name);

/* 1 if process PID runs: it exists and has not exited (a zombie, not yet
 * reaped by its parent, has). */
int ntp_proc_alive(pid_t pid);

/*
 * Write the 32-bit VALUE into variable NAME of file PATH in process PID
 * (/proc/PID/mem, which writes even where the process could not), only
 * where the variable really is: the symbol lies in a writable loadable
 * segment of PATH, and its address in the process in a private writable
 * mapping of that file (same device and inode), or in the zero-filled rest
 * of that segment right after it (.bss). The variable must hold 0, PREV
 * (what this collector wrote before) or VALUE already: anything else is
 * not ntprof's to change. Returns 0, or -1 with a one-line ERR.
 */
int ntp_proc_write_var(pid_t pid, const char *path, const char *name, uint32_t prev,
		       uint32_t value, char *err, size_t errlen);

#endif
