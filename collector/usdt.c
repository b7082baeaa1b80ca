// SPDX-License-Identifier: BSD-2-Clause
/*
 * Reading USDT sites from .note.stapsdt with libelf. Each note (owner
 * "stapsdt", type 3) holds three addresses, the probe's pc, the link-time
 * address of .stapsdt.base and the semaphore, then three strings: provider,
 * name, arguments (the SystemTap SDT note format). When the file was
 * prelinked, .stapsdt.base moved: pc and semaphore move by the same amount.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ntp_err.h"
#include "usdt.h"

#define NT_STAPSDT 3

/* The sh_addr of the section called NAME, or 0 when there is none. */
static uint64_t section_addr(Elf *elf, size_t shstrndx, const char *name, Elf_Scn **out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name)) {
			if (out)
				*out = scn;
			return sh.sh_addr;
		}
	}
	return 0;
}

/* Append one site decoded from a note's descriptor; -1 on a malformed note. */
static int add_site(struct ntp_usdt_site **sites, int *n, const char *desc, size_t len,
		    int is64, uint64_t base_now)
{
	size_t asz = is64 ? 8 : 4, off = 3 * asz;
	uint64_t a[3] = { 0, 0, 0 };
	struct ntp_usdt_site *s, *grown;
	const char *prov, *name, *args;

	if (len < off + 3)
		return -1;
	for (int i = 0; i < 3; i++) {
		if (is64) {
			memcpy(&a[i], desc + i * 8, 8);
		} else {
			uint32_t v;

			memcpy(&v, desc + i * 4, 4);
			a[i] = v;
		}
	}
	prov = desc + off;
	name = memchr(prov, 0, len - off) ? prov + strlen(prov) + 1 : NULL;
	if (!name || name >= desc + len || !memchr(name, 0, (size_t)(desc + len - name)))
		return -1;
	args = name + strlen(name) + 1;
	if (args >= desc + len || !memchr(args, 0, (size_t)(desc + len - args)))
		args = "";
	grown = realloc(*sites, (size_t)(*n + 1) * sizeof(**sites));
	if (!grown)
		return -1;
	*sites = grown;
	s = &grown[(*n)++];
	memset(s, 0, sizeof(*s));
	snprintf(s->provider, sizeof(s->provider), "%s", prov);
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->args, sizeof(s->args), "%s", args);
	/* prelink moved .stapsdt.base by (now - at link time): so did the rest */
	s->pc = a[0] + (base_now ? base_now - a[1] : 0);
	s->semaphore = a[2] ? a[2] + (base_now ? base_now - a[1] : 0) : 0;
	return 0;
}

static int read_notes(Elf *elf, Elf_Scn *scn, int is64, uint64_t base_now,
		      struct ntp_usdt_site **sites, int *n)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *owner = (const char *)data->d_buf + name_off;

		if (nh.n_type != NT_STAPSDT || nh.n_namesz != sizeof("stapsdt") ||
		    memcmp(owner, "stapsdt", sizeof("stapsdt")))
			continue;
		if (add_site(sites, n, (const char *)data->d_buf + desc_off, nh.n_descsz, is64,
			     base_now))
			return -1;
	}
	return 0;
}

int ntp_usdt_read(const char *path, struct ntp_usdt_site **sites, char *err, size_t errlen)
{
	Elf_Scn *notes = NULL;
	uint64_t base_now;
	size_t shstrndx;
	int fd, n = 0, rc = -1;
	Elf *elf = NULL;
	struct stat st;

	*sites = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return ntp_fail(err, errlen, "%s: libelf: %s", path, elf_errmsg(-1));
	/* O_NONBLOCK: a FIFO or a device does not hold the collector up */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return ntp_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return ntp_fail(err, errlen, "%s: not a regular file", path);
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		ntp_fail(err, errlen, "%s: not an ELF file", path);
		goto out;
	}
	base_now = section_addr(elf, shstrndx, ".stapsdt.base", NULL);
	section_addr(elf, shstrndx, ".note.stapsdt", &notes);
	if (notes && read_notes(elf, notes, gelf_getclass(elf) == ELFCLASS64, base_now,
				sites, &n)) {
		ntp_fail(err, errlen, "%s: malformed USDT note", path);
		goto out;
	}
	rc = n;
out:
	if (rc < 0) {
		free(*sites);
		*sites = NULL;
	}
	elf_end(elf);
	close(fd);
	return rc;
}

int ntp_usdt_count(const struct ntp_usdt_site *sites, int n, const char *provider,
		   const char *name)
{
	int count = 0;

	for (int i = 0; i < n; i++)
		count += !strcmp(sites[i].provider, provider) && !strcmp(sites[i].name, name);
	return count;
}
