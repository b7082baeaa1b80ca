// SPDX-License-Identifier: BSD-2-Clause
/*
 * Finding the processes of an SPDK binary and the address of its sampling
 * variable in each, and writing that variable. See proc.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ntp_err.h"
#include "proc.h"

/* One line of /proc/PID/maps that maps a file. */
struct mapping {
	uint64_t start, end, offset, inode;
	char path[PATH_MAX];
};

static int parse_map(const char *line, struct mapping *m)
{
	int n = 0;

	m->path[0] = 0;
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*4s %" SCNx64 " %*x:%*x %" SCNu64 " %n",
		   &m->start, &m->end, &m->offset, &m->inode, &n) < 4 || !m->inode)
		return -1;
	snprintf(m->path, sizeof(m->path), "%s", line + n);
	m->path[strcspn(m->path, "\n")] = 0;
	return 0;
}

/* Does process PID map the file REAL (a resolved path) with inode INO? */
static int maps_file(pid_t pid, const char *real, ino_t ino)
{
	char name[64], line[PATH_MAX + 128];
	struct mapping m;
	int found = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = !parse_map(line, &m) && m.inode == (uint64_t)ino && !strcmp(m.path, real);
	fclose(f);
	return found;
}

int ntp_proc_find(const char *path, pid_t *pids, int max, char *err, size_t errlen)
{
	char real[PATH_MAX], exe[64];
	struct stat want, st;
	struct dirent *e;
	int n = 0;
	DIR *d;

	if (stat(path, &want) || !realpath(path, real))
		return ntp_fail(err, errlen, "%s: %s", path, strerror(errno));
	d = opendir("/proc");
	if (!d)
		return ntp_fail(err, errlen, "/proc: %s", strerror(errno));
	while ((e = readdir(d))) {
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);

		if (pid <= 0)
			continue;
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
		if ((!stat(exe, &st) && st.st_dev == want.st_dev && st.st_ino == want.st_ino) ||
		    maps_file(pid, real, want.st_ino)) {
			if (n < max)
				pids[n] = pid;
			n++;
		}
	}
	closedir(d);
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

/* The first PT_LOAD segment (lowest address): the one mapped at offset 0. */
static int first_segment(Elf *elf, GElf_Phdr *out)
{
	GElf_Phdr ph;
	int found = 0;
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (!found || ph.p_vaddr < out->p_vaddr)) {
			*out = ph;
			found = 1;
		}
	return found ? 0 : -1;
}

/* The lowest mapping of REAL at file offset OFF in PID. Several mappings can
 * share an offset (RELRO remaps a page), so it must be the exact offset of
 * the first segment, taken in address order. */
static int find_mapping(pid_t pid, const char *real, uint64_t off, struct mapping *out)
{
	char name[64], line[PATH_MAX + 128];
	int found = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = !parse_map(line, out) && !strcmp(out->path, real) && out->offset == off;
	fclose(f);
	return found ? 0 : -1;
}

int ntp_proc_symbol(pid_t pid, const char *path, const char *name, uint64_t *addr, char *err,
		    size_t errlen)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	char real[PATH_MAX];
	struct mapping m;
	GElf_Phdr ph = { 0 };
	GElf_Sym sym;
	Elf *elf = NULL;
	int fd, rc = -1;

	if (elf_version(EV_CURRENT) == EV_NONE || !realpath(path, real))
		return ntp_fail(err, errlen, "%s: %s", path, strerror(errno));
	fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ntp_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		ntp_fail(err, errlen, "%s: not an ELF file", path);
	else if (find_symbol(elf, name, &sym))
		ntp_fail(err, errlen, "%s: no symbol %s (is it built with ntprof's SPDK patch?)",
		     path, name);
	else if (first_segment(elf, &ph))
		ntp_fail(err, errlen, "%s: no loadable segment", path);
	/* the load bias: where the first segment's page landed, less its address */
	else if (find_mapping(pid, real, ph.p_offset & ~(page - 1), &m))
		ntp_fail(err, errlen, "process %d does not map %s", (int)pid, real);
	else {
		*addr = m.start - (ph.p_vaddr & ~(page - 1)) + sym.st_value;
		rc = 0;
	}
	elf_end(elf);
	close(fd);
	return rc;
}

int ntp_elf_defines(const char *path, const char *name)
{
	GElf_Sym sym;
	Elf *elf;
	int fd, found = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	found = elf && elf_kind(elf) == ELF_K_ELF && !find_symbol(elf, name, &sym);
	elf_end(elf);
	close(fd);
	return found;
}

int ntp_proc_alive(pid_t pid)
{
	char name[64], buf[512], *paren;
	ssize_t n;
	int fd;

	snprintf(name, sizeof(name), "/proc/%d/stat", (int)pid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "pid (comm) S ...": the state follows the last ')', comm may hold any */
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

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

/* The file a mapping must be of: its stat and its resolved path. */
struct mapped_file {
	struct stat st;
	char real[PATH_MAX];
};

/* Is M a private writable mapping of F? On overlayfs (containers, the test
 * guests) the maps show the lower file's device, not the overlay's that
 * stat() gives: then the inode and the path must both agree. */
static int writable_of(const struct map_line *m, const struct mapped_file *f)
{
	if (strcmp(m->perms, "rw-p") || m->inode != (uint64_t)f->st.st_ino)
		return 0;
	return (m->major == major(f->st.st_dev) && m->minor == minor(f->st.st_dev)) ||
	       !strcmp(m->path, f->real);
}

/* Does [A, A + 4) of PID lie in a private writable mapping of the file F,
 * or in the anonymous mapping that continues one (the segment's .bss)? */
static int var_mapped(pid_t pid, const struct mapped_file *st, uint64_t a)
{
	char name[64], line[PATH_MAX + 128];
	struct map_line m, prev = { 0 };
	int ok = 0, have_prev = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (parse_line(line, &m))
			continue;
		if (a >= m.start && a + 4 <= m.end) {
			ok = writable_of(&m, st) ||
			     (!m.inode && !strcmp(m.perms, "rw-p") && have_prev &&
			      writable_of(&prev, st) && prev.end == m.start);
			break;
		}
		prev = m;
		have_prev = 1;
	}
	fclose(f);
	return ok;
}

/* The writable PT_LOAD segment of ELF that holds VADDR. */
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

/* Where NAME of PATH is in PID, every check of ntp_proc_write_var but the
 * value made. */
static int locate_var(pid_t pid, const char *path, const char *name, uint64_t *addr,
		      char *err, size_t errlen)
{
	struct mapped_file mf;
	GElf_Phdr seg;
	GElf_Sym sym;
	Elf *elf = NULL;
	int fd, rc = -1;

	if (ntp_proc_symbol(pid, path, name, addr, err, errlen))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &mf.st) || !realpath(path, mf.real)) {
		if (fd >= 0)
			close(fd);
		return ntp_fail(err, errlen, "%s: %s", path, strerror(errno));
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || find_symbol(elf, name, &sym) || sym.st_size != 4 ||
	    writable_segment(elf, sym.st_value, &seg))
		ntp_fail(err, errlen, "%s: %s is not a 4-byte variable in a writable segment",
			 path, name);
	else if (!var_mapped(pid, &mf, *addr))
		ntp_fail(err, errlen, "process %d: %#" PRIx64 " is not in a writable mapping of "
			 "%s: not writing there", (int)pid, *addr, path);
	else
		rc = 0;
	elf_end(elf);
	close(fd);
	return rc;
}

int ntp_proc_write_var(pid_t pid, const char *path, const char *name, uint32_t prev,
		       uint32_t value, char *err, size_t errlen)
{
	char mem[64];
	uint32_t now;
	uint64_t addr;
	ssize_t n;
	int fd;

	if (locate_var(pid, path, name, &addr, err, errlen))
		return -1;
	snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)pid);
	fd = open(mem, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return ntp_fail(err, errlen, "process %d: cannot open its memory: %s", (int)pid,
				strerror(errno));
	n = pread(fd, &now, sizeof(now), (off_t)addr);
	if (n == (ssize_t)sizeof(now) && now != 0 && now != prev && now != value) {
		close(fd);
		return ntp_fail(err, errlen, "process %d: %s holds %u, not 0 or ntprof's: another "
				"collector records it, or one was killed (restart the process)",
				(int)pid, name, now);
	}
	if (n == (ssize_t)sizeof(now))
		n = pwrite(fd, &value, sizeof(value), (off_t)addr);
	close(fd);
	if (n != (ssize_t)sizeof(value))
		return ntp_fail(err, errlen, "process %d: cannot write %s at %#" PRIx64 ": %s",
				(int)pid, name, addr, n < 0 ? strerror(errno) : "short");
	return 0;
}
