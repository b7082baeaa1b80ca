/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SPDK processes and their sampling variable. The collector writes N into
 * the patch's variable in every process that runs the named binary (or has
 * the named shared library loaded), and 0 when it stops. It writes nothing
 * else, and only where the variable really is: in a process whose
 * executable is the file, or that maps the file's code executable with the
 * file's build ID at the place the load gives it, at the variable's ELF
 * symbol address, inside the file's own writable segment as the load placed
 * it. A process that only maps the file (a viewer, a private writable copy
 * made without running it) is never found, and never written.
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
 * Processes that run PATH (their executable is the file, by device and
 * inode) or have it loaded as a library (an executable mapping of the file
 * whose build ID, read from the process, is the file's). Fills PIDS (up to
 * MAX) and returns how many there are (possibly more than MAX), or -1 with
 * ERR set when PATH cannot be read.
 */
int ntp_proc_find(const char *path, pid_t *pids, int max, char *err, size_t errlen);

/*
 * What repeated scans of /proc remember (ntp_proc_scan): each process found
 * not to be the program's, with its executable's identity then, so that a
 * later scan reads no /proc/PID/maps of it. A process is looked at again
 * when its executable changes (it ran exec), while it is young (it may
 * still be loading its libraries), and when a full scan is due (a library
 * loaded later, by dlopen). One without an executable (a kernel thread)
 * is not even asked for it again while its pid is not used again. Zero it,
 * set the two periods and events (-1: none), and free it with
 * ntp_proc_memo_free (which leaves events open).
 */
struct ntp_proc_seen {
	pid_t pid;
	ino_t dir_ino;      /* /proc/PID's inode: another for a pid used again */
	dev_t dev;          /* its /proc/PID/exe when looked at; 0: none */
	ino_t ino;
	uint64_t first_ns;  /* when it was first seen with that executable */
	uint64_t read_ns;   /* when its maps were last read */
};

struct ntp_proc_memo {
	uint64_t young_ns;       /* looked at again until it is this old */
	uint64_t full_every_ns;  /* every process looked at again this often */
	uint64_t full_ns;        /* when the last full scan was (0: none yet) */
	struct ntp_proc_seen *seen; /* by pid */
	int n, cap;
	/* The kernel's process events (ntp_proc_events_open), or -1: with
	 * them, a scan is made only after a process forked or ran exec, while
	 * one is young, or when a full scan is due; else the last answer. */
	int events;
	pid_t *found;            /* the last scan's answer */
	int nfound;
	unsigned long maps_read; /* /proc/PID/maps files read, all scans */
	unsigned long scans;     /* scans of /proc made */
	unsigned long skipped;   /* scans not needed: the last answer given */
};

/* How often a collector looks at every process again, and for how long at
 * a new one (docs/collector.md, "Finding the probes and the variable"). */
#define NTP_PROC_YOUNG_NS 3000000000ULL
#define NTP_PROC_FULL_EVERY_NS 60000000000ULL

/* ntp_proc_find with MEMO (NULL: every process looked at, as ntp_proc_find). */
int ntp_proc_scan(struct ntp_proc_memo *memo, const char *path, pid_t *pids, int max,
		  char *err, size_t errlen);

void ntp_proc_memo_free(struct ntp_proc_memo *memo);

/*
 * The kernel's process events (the proc connector, CONFIG_PROC_EVENTS): a
 * socket told of every fork and exec on the machine. Returns it, or -1
 * with WHY set where the kernel does not deliver them to this process (no
 * connector, another network namespace, not privileged on an older
 * kernel): the feature is probed by forking a child and hearing of it.
 */
int ntp_proc_events_open(char *why, size_t whylen);

/* 1 if a process forked or ran exec since the last call, or events were
 * lost or cannot be read; 0 if none. Never blocks. */
int ntp_proc_events_any(int fd);

/*
 * The address of symbol NAME of file PATH in process PID: the load bias of
 * the file's executable mapping (checked as ntp_proc_find checks it) plus
 * the symbol's value. Returns 0, or -1 with ERR set.
 */
int ntp_proc_symbol(pid_t pid, const char *path, const char *name, uint64_t *addr, char *err,
		    size_t errlen);

/*
 * The same for a variable to write: NAME must be a 4-byte object in a
 * writable PT_LOAD segment of PATH, and its address in PID inside that
 * segment as the load placed it: a private writable mapping of the file
 * at the segment's file offset for the bias, or the zero-filled rest of the
 * segment (.bss) in the anonymous mapping right after it. Returns 0, or -1
 * with a one-line ERR.
 */
int ntp_proc_locate_var(pid_t pid, const char *path, const char *name, uint64_t *addr,
			char *err, size_t errlen);

/* 1 if the ELF file PATH defines symbol NAME (.symtab or .dynsym). */
int ntp_elf_defines(const char *path, const char *name);

/* 1 if process PID runs: it exists and has not exited (a zombie, not yet
 * reaped by its parent, has). */
int ntp_proc_alive(pid_t pid);

/* When PID started (clock ticks after boot, /proc/PID/stat): with the pid,
 * it names one process, never a later one given the same pid. 0 if gone. */
uint64_t ntp_proc_start_time(pid_t pid);

/*
 * /proc/PID/mem, open for reading and writing (it writes even where the
 * process could not): the descriptor reaches that process only, never a
 * later one with its pid, and works on without privileges. Returns it, or
 * -1 with ERR set.
 */
int ntp_proc_mem_open(pid_t pid, char *err, size_t errlen);

/* Read the 32-bit variable at ADDR through MEM: 0, or -1. */
int ntp_proc_mem_read(int mem, uint64_t addr, uint32_t *value);

/*
 * Write the 32-bit VALUE at ADDR (variable NAME of process PID) through
 * MEM. The variable must hold 0, PREV (what this collector wrote before) or
 * VALUE already: anything else is not ntprof's to change. Returns 0, or -1
 * with a one-line ERR.
 */
int ntp_proc_mem_write(int mem, pid_t pid, uint64_t addr, const char *name, uint32_t prev,
		       uint32_t value, char *err, size_t errlen);

/* ntp_proc_locate_var, ntp_proc_mem_open and ntp_proc_mem_write in one. */
int ntp_proc_write_var(pid_t pid, const char *path, const char *name, uint32_t prev,
		       uint32_t value, char *err, size_t errlen);

#endif
