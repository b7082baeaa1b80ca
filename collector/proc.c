// SPDX-License-Identifier: BSD-2-Clause
/*
 * Finding the processes of an SPDK binary and the address of its sampling
 * variable in each, and writing that variable. See proc.h.
 *
 * A file is found in a process by where the load put its code: the
 * mapping with execute permission of the file's executable PT_LOAD segment
 * at that segment's file offset gives the load bias, and the file's build
 * ID must then be in the process's memory at its place for that bias. A
 * mapping of the file made any other way (read-only, or a private writable
 * copy) is not a load, and the process is not the program's.
 */
#include <dirent.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "ntp_err.h"
#include "proc.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

/* One line of /proc/PID/maps, anonymous ones included. */
struct map_line {
	uint64_t start, end, offset, inode;
	unsigned int major, minor;
	char perms[5];
	char path[PATH_MAX];
};

static int parse_line(const char *line, struct map_line *m)
{
	int n = 0;

	m->path[0] = 0;
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n", &m->start,
		   &m->end, m->perms, &m->offset, &m->major, &m->minor, &m->inode, &n) < 7)
		return -1;
	snprintf(m->path, sizeof(m->path), "%s", line + n);
	m->path[strcspn(m->path, "\n")] = 0;
	return 0;
}

static FILE *open_maps(pid_t pid)
{
	char name[64];

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	return fopen(name, "re");
}

/* An ELF file as it must be found in a process: its identity, the segment
 * that holds its code, and its build ID. */
struct object {
	int fd;
	Elf *elf;               /* NULL: not an ELF file */
	struct stat st;
	char real[PATH_MAX];
	GElf_Phdr text;         /* its first executable PT_LOAD segment */
	int has_text;
	uint64_t id_vaddr;      /* where the build ID lies, relative to the bias */
	unsigned char id[64];
	size_t id_len;          /* 0: the file has none */
};

static uint64_t page_size(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The NT_GNU_BUILD_ID note of O's PT_NOTE segments, and its address. */
static void find_build_id(struct object *o, size_t nph)
{
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off, next;

		if (!gelf_getphdr(o->elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(o->elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		while (d && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz > 0 &&
			    nh.n_descsz <= sizeof(o->id)) {
				memcpy(o->id, (char *)d->d_buf + desc_off, nh.n_descsz);
				o->id_len = nh.n_descsz;
				o->id_vaddr = ph.p_vaddr + desc_off;
				return;
			}
			off = next;
		}
	}
}

/* Open PATH: -1 with ERR set when it cannot be read. Not an ELF file is not
 * an error (nothing loads it; a process can still run it). */
static int obj_open(const char *path, struct object *o, char *err, size_t errlen)
{
	size_t nph;

	memset(o, 0, sizeof(*o));
	if (elf_version(EV_CURRENT) == EV_NONE || !realpath(path, o->real))
		return ntp_fail(err, errlen, "%s: %s", path, strerror(errno));
	o->fd = open(o->real, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (o->fd < 0 || fstat(o->fd, &o->st)) {
		ntp_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		if (o->fd >= 0)
			close(o->fd);
		return -1;
	}
	o->elf = elf_begin(o->fd, ELF_C_READ, NULL);
	if (o->elf && elf_kind(o->elf) != ELF_K_ELF) {
		elf_end(o->elf);
		o->elf = NULL;
	}
	if (!o->elf || elf_getphdrnum(o->elf, &nph))
		return 0;
	for (size_t i = 0; i < nph && !o->has_text; i++)
		o->has_text = gelf_getphdr(o->elf, (int)i, &o->text) && o->text.p_type == PT_LOAD &&
			      (o->text.p_flags & PF_X);
	find_build_id(o, nph);
	return 0;
}

static void obj_close(struct object *o)
{
	elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
	o->elf = NULL;
	o->fd = -1;
}

/* Is M a mapping of O? On overlayfs (containers, the test guests) the
 * maps show the lower file's device, not the overlay's that stat() gives:
 * then the inode and the path must both agree. */
static int of_file(const struct map_line *m, const struct object *o)
{
	if (m->inode != (uint64_t)o->st.st_ino)
		return 0;
	return (m->major == major(o->st.st_dev) && m->minor == minor(o->st.st_dev)) ||
	       !strcmp(m->path, o->real);
}

/* Read LEN bytes at ADDR of PID. */
static int read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	char name[64];
	ssize_t n;
	int fd;

	snprintf(name, sizeof(name), "/proc/%d/mem", (int)pid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, buf, len, (off_t)addr);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/*
 * The load bias of O in PID: from the mapping with execute permission of
 * its code segment at that segment's page-aligned file offset, which must
 * then hold O's build ID where the file has it. 0, or -1 with ERR set.
 */
static int obj_bias(pid_t pid, const struct object *o, uint64_t *bias, char *err, size_t errlen)
{
	uint64_t mask = ~(page_size() - 1);
	char line[PATH_MAX + 128];
	unsigned char id[sizeof(o->id)];
	struct map_line m;
	int found = 0;
	FILE *f;

	if (!o->elf || !o->has_text)
		return ntp_fail(err, errlen, "%s: not an ELF file with code", o->real);
	f = open_maps(pid);
	while (f && !found && fgets(line, sizeof(line), f))
		found = !parse_line(line, &m) && m.perms[2] == 'x' && of_file(&m, o) &&
			m.offset == (o->text.p_offset & mask);
	if (f)
		fclose(f);
	if (!found)
		return ntp_fail(err, errlen, "process %d does not map %s as a loaded program or "
				"library", (int)pid, o->real);
	*bias = m.start - (o->text.p_vaddr & mask);
	if (o->id_len && (read_mem(pid, *bias + o->id_vaddr, id, o->id_len) ||
			  memcmp(id, o->id, o->id_len)))
		return ntp_fail(err, errlen, "process %d: its mapping of %s does not hold the "
				"file's build ID where the load puts it: not loaded, only mapped",
				(int)pid, o->real);
	return 0;
}

/* Does PID map O's code executable at all? (cheap: before obj_bias) */
static int maps_code(pid_t pid, const struct object *o)
{
	char line[PATH_MAX + 128];
	struct map_line m;
	int found = 0;
	FILE *f = open_maps(pid);

	while (f && !found && fgets(line, sizeof(line), f))
		found = !parse_line(line, &m) && m.perms[2] == 'x' && of_file(&m, o);
	if (f)
		fclose(f);
	return found;
}

static int seen_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct ntp_proc_seen *)a)->pid, y = ((const struct ntp_proc_seen *)b)->pid;

	return (x > y) - (x < y);
}

/* PID's entry in the last scan's list, or NULL. */
static const struct ntp_proc_seen *seen_find(const struct ntp_proc_memo *m, pid_t pid)
{
	struct ntp_proc_seen key = { .pid = pid };

	return m->n ? bsearch(&key, m->seen, (size_t)m->n, sizeof(key), seen_cmp) : NULL;
}

/* Append S to the list being built in *V (*N of *CAP). */
static int seen_add(struct ntp_proc_seen **v, int *n, int *cap, const struct ntp_proc_seen *s)
{
	if (*n == *cap) {
		int c = *cap ? *cap * 2 : 256;
		struct ntp_proc_seen *p = realloc(*v, (size_t)c * sizeof(*p));

		if (!p)
			return -1;
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = *s;
	return 0;
}

void ntp_proc_memo_free(struct ntp_proc_memo *memo)
{
	free(memo->seen);
	memo->seen = NULL;
	memo->n = memo->cap = 0;
	free(memo->found);
	memo->found = NULL;
	memo->nfound = 0;
}

/* The events of one datagram in BUF (LEN bytes): 1 if one is a fork or an
 * exec, else 0; CHILD, if not 0, must be the forked child (the probe's). */
static int proc_events_in(const char *buf, ssize_t len, pid_t child)
{
	int any = 0;

	for (const struct nlmsghdr *h = (const void *)buf; NLMSG_OK(h, (size_t)len);
	     h = NLMSG_NEXT(h, len)) {
		const struct cn_msg *c = NLMSG_DATA(h);
		/* the fields read: through event_data.fork (an exec's are fewer) */
		size_t need = offsetof(struct proc_event, event_data) +
			      sizeof(((struct proc_event *)0)->event_data.fork);
		struct proc_event e;

		if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_OVERRUN)
			return 1;
		if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*c)) || c->id.idx != CN_IDX_PROC ||
		    c->id.val != CN_VAL_PROC || c->len < need ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(*c) + need))
			continue;
		/* copied out: the event sits at no 8-byte boundary in the datagram */
		memset(&e, 0, sizeof(e));
		memcpy(&e, c->data, need);
		if (e.what == PROC_EVENT_EXEC && !child)
			any = 1;
		if (e.what == PROC_EVENT_FORK && (!child || e.event_data.fork.child_tgid == child))
			any = 1;
	}
	return any;
}

int ntp_proc_events_any(int fd)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	int any = 0;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		any |= proc_events_in(buf, n, 0);
	/* ENOBUFS: events were lost, so one may have been a fork or an exec */
	return any || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

int ntp_proc_events_open(char *why, size_t whylen)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	struct {
		struct nlmsghdr h;
		struct cn_msg c;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) m = {
		.h = { .nlmsg_len = sizeof(m), .nlmsg_type = NLMSG_DONE },
		.c = { .id = { .idx = CN_IDX_PROC, .val = CN_VAL_PROC }, .len = sizeof(m.op) },
		.op = PROC_CN_MCAST_LISTEN,
	};
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	uint64_t until;
	int fd, heard = 0;
	pid_t child;

	fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0)
		return ntp_fail(why, whylen, "no process events: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || send(fd, &m, sizeof(m), 0) < 0) {
		ntp_fail(why, whylen, "no process events: %s", strerror(errno));
		close(fd);
		return -1;
	}
	/* heard of a child of ours within a second: the kernel delivers them */
	child = fork();
	if (child == 0)
		_exit(0);
	if (child < 0) {
		ntp_fail(why, whylen, "no process events: fork: %s", strerror(errno));
		close(fd);
		return -1;
	}
	waitpid(child, NULL, 0);
	until = (uint64_t)ntp_now_ns(CLOCK_MONOTONIC) + 1000000000ULL;
	while (!heard && (uint64_t)ntp_now_ns(CLOCK_MONOTONIC) < until) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0)
			heard = proc_events_in(buf, n, child);
	}
	if (!heard) {
		ntp_fail(why, whylen, "no process events: the kernel did not tell of a fork");
		close(fd);
		return -1;
	}
	return fd;
}

int ntp_proc_find(const char *path, pid_t *pids, int max, char *err, size_t errlen)
{
	return ntp_proc_scan(NULL, path, pids, max, err, errlen);
}

static int scan_proc(struct ntp_proc_memo *memo, const char *path, pid_t *pids, int max,
		     char *err, size_t errlen);

/* Is a full scan due at NOW (none yet, or the last one full_every_ns ago)? */
static int full_due(const struct ntp_proc_memo *m, uint64_t now)
{
	return !m || !m->full_ns || now - m->full_ns >= m->full_every_ns;
}

/* Whether MEMO's last answer still holds at NOW: no fork or exec since,
 * no young process to look at again, no full scan due. */
static int answer_holds(struct ntp_proc_memo *m, uint64_t now)
{
	if (m->events < 0 || full_due(m, now))
		return 0;
	if (ntp_proc_events_any(m->events))
		return 0;
	for (int i = 0; i < m->n; i++)
		if (m->seen[i].read_ns - m->seen[i].first_ns < m->young_ns)
			return 0;
	return 1;
}

int ntp_proc_scan(struct ntp_proc_memo *memo, const char *path, pid_t *pids, int max,
		  char *err, size_t errlen)
{
	if (memo && answer_holds(memo, (uint64_t)ntp_now_ns(CLOCK_MONOTONIC))) {
		for (int i = 0; i < memo->nfound && i < max; i++)
			pids[i] = memo->found[i];
		memo->skipped++;
		return memo->nfound;
	}
	return scan_proc(memo, path, pids, max, err, errlen);
}

static int scan_proc(struct ntp_proc_memo *memo, const char *path, pid_t *pids, int max,
		     char *err, size_t errlen)
{
	char why[NTP_ERR_MAX], exe[64];
	struct ntp_proc_seen *next = NULL;
	int nnext = 0, capnext = 0, full, forgot = 0;
	uint64_t now = (uint64_t)ntp_now_ns(CLOCK_MONOTONIC);
	struct object o;
	struct dirent *e;
	uint64_t bias;
	int n = 0;
	DIR *d;

	if (obj_open(path, &o, err, errlen))
		return -1;
	d = opendir("/proc");
	if (!d) {
		obj_close(&o);
		return ntp_fail(err, errlen, "/proc: %s", strerror(errno));
	}
	full = full_due(memo, now);
	while ((e = readdir(d))) {
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);
		struct ntp_proc_seen s = { .pid = pid, .dir_ino = e->d_ino, .first_ns = now };
		const struct ntp_proc_seen *old;
		struct stat st;

		if (pid <= 0)
			continue;
		old = memo ? seen_find(memo, pid) : NULL;
		if (old && !full && old->dir_ino == s.dir_ino && !old->ino &&
		    old->read_ns - old->first_ns >= memo->young_ns) {
			/* a kernel thread, the same one: it never runs exec */
			forgot |= seen_add(&next, &nnext, &capnext, old);
			continue;
		}
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
		if (!stat(exe, &st)) {
			s.dev = st.st_dev;
			s.ino = st.st_ino;
		}
		if (s.ino && s.dev == o.st.st_dev && s.ino == o.st.st_ino) {
			if (n < max) /* it runs the file */
				pids[n] = pid;
			n++;
			continue;
		}
		if (old && old->dir_ino == s.dir_ino && old->dev == s.dev && old->ino == s.ino) {
			s.first_ns = old->first_ns;
			s.read_ns = old->read_ns;
			/* the same program, its maps read when it was no longer young */
			if (!full && old->read_ns - old->first_ns >= memo->young_ns) {
				forgot |= seen_add(&next, &nnext, &capnext, &s);
				continue;
			}
		}
		s.read_ns = now;
		if (memo)
			memo->maps_read++;
		if (maps_code(pid, &o) && !obj_bias(pid, &o, &bias, why, sizeof(why))) {
			if (n < max)
				pids[n] = pid;
			n++;
			continue;
		}
		if (memo)
			forgot |= seen_add(&next, &nnext, &capnext, &s);
	}
	closedir(d);
	obj_close(&o);
	if (memo) {
		pid_t *found = n ? malloc((size_t)n * sizeof(*found)) : NULL;

		memo->scans++;
		if (forgot || (n && !found) || n > max) {
			/* out of memory, or more than PIDS holds: remember nothing,
			 * look at all next time */
			free(next);
			free(found);
			ntp_proc_memo_free(memo);
			memo->full_ns = 0;
			return n;
		}
		if (n) /* none: found and next may be NULL, which memcpy and qsort refuse */
			memcpy(found, pids, (size_t)n * sizeof(*found));
		free(memo->found);
		memo->found = found;
		memo->nfound = n;
		if (nnext)
			qsort(next, (size_t)nnext, sizeof(*next), seen_cmp);
		free(memo->seen);
		memo->seen = next;
		memo->n = nnext;
		memo->cap = capnext;
		if (full)
			memo->full_ns = now;
	}
	return n;
}

/* The value of symbol NAME in PATH (.symtab, else .dynsym); 0 if found. */
static int find_symbol(Elf *elf, const char *name, GElf_Sym *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *n;

			if (!gelf_getsym(data, (int)i, out) || out->st_shndx == SHN_UNDEF)
				continue;
			n = elf_strptr(elf, sh.sh_link, out->st_name);
			if (n && !strcmp(n, name))
				return 0;
		}
	}
	return -1;
}

/* The writable PT_LOAD segment of ELF that holds [VADDR, VADDR + 4). */
static int writable_segment(Elf *elf, uint64_t vaddr, GElf_Phdr *out)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, out) && out->p_type == PT_LOAD &&
		    (out->p_flags & PF_W) && vaddr >= out->p_vaddr &&
		    vaddr + 4 <= out->p_vaddr + out->p_memsz)
			return 0;
	return -1;
}

/* Is M the private writable mapping of O's segment SEG as loaded with
 * BIAS: its file offsets land at the addresses the load gives them? */
static int own_mapping(const struct map_line *m, const struct object *o, uint64_t bias,
		       const GElf_Phdr *seg)
{
	return !strcmp(m->perms, "rw-p") && of_file(m, o) &&
	       m->start - m->offset == bias + seg->p_vaddr - seg->p_offset;
}

/* Does [A, A + 4) of PID lie in O's segment SEG as loaded with BIAS: in its
 * own mapping of the file, or in the zero-filled rest of the segment (its
 * .bss) in the anonymous mapping that continues that one? */
static int in_own_segment(pid_t pid, const struct object *o, uint64_t bias,
			  const GElf_Phdr *seg, uint64_t a)
{
	char line[PATH_MAX + 128];
	struct map_line m, prev = { 0 };
	int ok = 0, have_prev = 0;
	FILE *f = open_maps(pid);

	while (f && fgets(line, sizeof(line), f)) {
		if (parse_line(line, &m))
			continue;
		if (a >= m.start && a + 4 <= m.end) {
			ok = own_mapping(&m, o, bias, seg) ||
			     (!m.inode && !strcmp(m.perms, "rw-p") && have_prev &&
			      prev.end == m.start && own_mapping(&prev, o, bias, seg) &&
			      a >= bias + seg->p_vaddr + seg->p_filesz);
			break;
		}
		prev = m;
		have_prev = 1;
	}
	if (f)
		fclose(f);
	return ok;
}

/* Where NAME of PATH is in PID; with WRITABLE, every check of
 * ntp_proc_locate_var. */
static int locate(pid_t pid, const char *path, const char *name, int writable, uint64_t *addr,
		  char *err, size_t errlen)
{
	struct object o;
	GElf_Phdr seg;
	GElf_Sym sym;
	uint64_t bias;
	int rc = -1;

	if (obj_open(path, &o, err, errlen))
		return -1;
	if (!o.elf)
		ntp_fail(err, errlen, "%s: not an ELF file", path);
	else if (find_symbol(o.elf, name, &sym))
		ntp_fail(err, errlen, "%s: no symbol %s (is it built with ntprof's SPDK patch?)",
			 path, name);
	else if (obj_bias(pid, &o, &bias, err, errlen))
		;
	else if (!writable)
		rc = 0;
	else if (sym.st_size != 4 || writable_segment(o.elf, sym.st_value, &seg))
		ntp_fail(err, errlen, "%s: %s is not a 4-byte variable in a writable segment",
			 path, name);
	else if (!in_own_segment(pid, &o, bias, &seg, bias + sym.st_value))
		ntp_fail(err, errlen, "process %d: %#" PRIx64 " is not in the writable segment "
			 "of %s as loaded: not writing there", (int)pid, bias + sym.st_value, path);
	else
		rc = 0;
	if (!rc || !writable)
		*addr = o.elf && !rc ? bias + sym.st_value : 0;
	obj_close(&o);
	return rc;
}

int ntp_proc_symbol(pid_t pid, const char *path, const char *name, uint64_t *addr, char *err,
		    size_t errlen)
{
	return locate(pid, path, name, 0, addr, err, errlen);
}

int ntp_proc_locate_var(pid_t pid, const char *path, const char *name, uint64_t *addr,
			char *err, size_t errlen)
{
	return locate(pid, path, name, 1, addr, err, errlen);
}

int ntp_elf_defines(const char *path, const char *name)
{
	GElf_Sym sym;
	Elf *elf;
	int fd, found = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	found = elf && elf_kind(elf) == ELF_K_ELF && !find_symbol(elf, name, &sym);
	elf_end(elf);
	close(fd);
	return found;
}

/* The fields of /proc/PID/stat after "pid (comm) ", in BUF: the comm may
 * hold any character, so they start after its last ')'. */
static const char *stat_fields(pid_t pid, char *buf, size_t len)
{
	char name[64], *paren;
	ssize_t n;
	int fd;

	snprintf(name, sizeof(name), "/proc/%d/stat", (int)pid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' ? paren + 2 : NULL;
}

int ntp_proc_alive(pid_t pid)
{
	char buf[1024];
	const char *f = stat_fields(pid, buf, sizeof(buf));

	return f && *f != 'Z' && *f != 'X';
}

uint64_t ntp_proc_start_time(pid_t pid)
{
	char buf[1024];
	const char *f = stat_fields(pid, buf, sizeof(buf));
	unsigned long long t = 0;

	/* the state is field 3; the start time field 22 */
	for (int i = 3; f && i < 22; i++)
		f = (f = strchr(f, ' ')) ? f + 1 : NULL;
	if (!f || sscanf(f, "%llu", &t) != 1)
		return 0;
	return t;
}

int ntp_proc_mem_open(pid_t pid, char *err, size_t errlen)
{
	char mem[64];
	int fd;

	snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)pid);
	fd = open(mem, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return ntp_fail(err, errlen, "process %d: cannot open its memory: %s", (int)pid,
				strerror(errno));
	return fd;
}

int ntp_proc_mem_read(int mem, uint64_t addr, uint32_t *value)
{
	return pread(mem, value, sizeof(*value), (off_t)addr) == (ssize_t)sizeof(*value) ? 0 : -1;
}

int ntp_proc_mem_write(int mem, pid_t pid, uint64_t addr, const char *name, uint32_t prev,
		       uint32_t value, char *err, size_t errlen)
{
	uint32_t now;
	ssize_t n = -1;

	if (ntp_proc_mem_read(mem, addr, &now) == 0) {
		if (now != 0 && now != prev && now != value)
			return ntp_fail(err, errlen, "process %d: %s holds %u, not 0 or ntprof's: "
					"another collector records it, or one was killed (restart "
					"the process)", (int)pid, name, now);
		n = pwrite(mem, &value, sizeof(value), (off_t)addr);
	}
	if (n != (ssize_t)sizeof(value))
		return ntp_fail(err, errlen, "process %d: cannot write %s at %#" PRIx64 ": %s",
				(int)pid, name, addr, n < 0 ? strerror(errno) : "short");
	return 0;
}

int ntp_proc_write_var(pid_t pid, const char *path, const char *name, uint32_t prev,
		       uint32_t value, char *err, size_t errlen)
{
	uint64_t addr;
	int fd, rc;

	if (ntp_proc_locate_var(pid, path, name, &addr, err, errlen))
		return -1;
	fd = ntp_proc_mem_open(pid, err, errlen);
	if (fd < 0)
		return -1;
	rc = ntp_proc_mem_write(fd, pid, addr, name, prev, value, err, errlen);
	close(fd);
	return rc;
}
