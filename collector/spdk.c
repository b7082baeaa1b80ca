// SPDX-License-Identifier: BSD-2-Clause
/*
 * Finding an SPDK program's probes, processes and sampling variables
 * (spdk.h). Libraries are found the way the dynamic loader would, without
 * running anything: `ldd` may execute the program it is asked about.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ntp_err.h"
#include "proc.h"
#include "spdk.h"

const char *const ntp_spdk_probes[NTP_SPDK_NPROBES] = {
	"nvmf_tcp_done", "nvmf_rdma_done",
	"nvme_tcp_done", "nvme_rdma_done",
};

#define MAX_LIBS 512

/* Libraries still to read, by real path, and the ones already seen. */
struct walk {
	char *paths[MAX_LIBS];
	int n;
};

static const char *const std_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
	"/lib", "/usr/lib", "/usr/local/lib",
};

static int walk_add(struct walk *w, const char *path)
{
	char real[PATH_MAX];

	if (!realpath(path, real))
		return -1;
	for (int i = 0; i < w->n; i++)
		if (!strcmp(w->paths[i], real))
			return 0;
	if (w->n < MAX_LIBS)
		w->paths[w->n++] = strdup(real);
	return 0;
}

/* Try DIR/NAME, with $ORIGIN in DIR replaced by ORIGIN. */
static int try_dir(struct walk *w, const char *dir, size_t len, const char *origin,
		   const char *name)
{
	char path[PATH_MAX * 2];

	if (len >= 7 && !strncmp(dir, "$ORIGIN", 7))
		snprintf(path, sizeof(path), "%s%.*s/%s", origin, (int)(len - 7), dir + 7, name);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)len, dir, name);
	return access(path, R_OK) ? -1 : walk_add(w, path);
}

/* Try each directory of a colon-separated LIST. */
static int try_list(struct walk *w, const char *list, const char *origin, const char *name)
{
	while (list && *list) {
		size_t len = strcspn(list, ":");

		if (len && !try_dir(w, list, len, origin, name))
			return 0;
		list += len + (list[len] == ':');
	}
	return -1;
}

static void find_lib(struct walk *w, const char *name, const char *runpath, const char *origin)
{
	if (strchr(name, '/')) {
		walk_add(w, name);
		return;
	}
	if (!try_list(w, runpath, origin, name) || !try_list(w, getenv("LD_LIBRARY_PATH"), origin, name))
		return;
	/* SPDK's own layout, build/bin next to build/lib, found without
	 * LD_LIBRARY_PATH (which sudo drops) */
	if (!try_dir(w, "$ORIGIN/../lib", 14, origin, name))
		return;
	for (size_t i = 0; i < sizeof(std_dirs) / sizeof(std_dirs[0]); i++)
		if (!try_dir(w, std_dirs[i], strlen(std_dirs[i]), origin, name))
			return;
}

/* Queue the DT_NEEDED libraries of the ELF file PATH. */
static void add_needed(struct walk *w, const char *path)
{
	char origin[PATH_MAX];
	const char *runpath = NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return;
	snprintf(origin, sizeof(origin), "%s", path);
	*(strrchr(origin, '/') ? strrchr(origin, '/') : origin) = '\0';
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Dyn dyn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(scn, NULL);
		for (int pass = 0; pass < 2; pass++) /* RUNPATH first, then the names */
			for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
				if (!gelf_getdyn(d, (int)i, &dyn))
					continue;
				if (!pass && (dyn.d_tag == DT_RUNPATH || dyn.d_tag == DT_RPATH))
					runpath = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
				if (pass && dyn.d_tag == DT_NEEDED)
					find_lib(w, elf_strptr(elf, sh.sh_link, dyn.d_un.d_val) ?: "",
						 runpath, origin);
			}
	}
	elf_end(elf);
	close(fd);
}

/* Keep PATH if it has ntprof probes. */
static void keep_if_probed(struct ntp_spdk *s, const char *path)
{
	struct ntp_spdk_obj *o = &s->objs[s->nobjs];
	char err[256];
	int n, k = 0;

	if (s->nobjs == NTP_SPDK_MAX_OBJS)
		return;
	n = ntp_usdt_read(path, &o->sites, err, sizeof(err));
	for (int i = 0; i < n; i++)
		if (!strcmp(o->sites[i].provider, "ntprof"))
			o->sites[k++] = o->sites[i];
	if (k == 0) {
		free(o->sites);
		o->sites = NULL;
		return;
	}
	snprintf(o->path, sizeof(o->path), "%s", path);
	o->nsites = k;
	s->nobjs++;
}

/* Queue the ELF files the running processes of the binary map: they show
 * the libraries as the loader really found them. */
static void add_mapped(struct walk *w, struct ntp_spdk *s)
{
	char err[256], name[64], line[PATH_MAX + 128];

	if (ntp_spdk_find_procs(s, err, sizeof(err)) <= 0)
		return;
	for (int i = 0; i < s->npids; i++) {
		FILE *f;

		snprintf(name, sizeof(name), "/proc/%d/maps", (int)s->pids[i]);
		f = fopen(name, "re");
		while (f && fgets(line, sizeof(line), f)) {
			char *path = strchr(line, '/');

			if (!path || !strstr(line, " r-xp ")) /* code: where probes are */
				continue;
			path[strcspn(path, "\n")] = '\0';
			if (strstr(path, ".so"))
				walk_add(w, path);
		}
		if (f)
			fclose(f);
	}
}

int ntp_spdk_open(struct ntp_spdk *s, const char *binary, char *err, size_t errlen)
{
	struct ntp_usdt_site *sites;
	struct walk w = { .n = 0 };
	int n;

	memset(s, 0, sizeof(*s));
	s->memo.young_ns = NTP_PROC_YOUNG_NS;
	s->memo.full_every_ns = NTP_PROC_FULL_EVERY_NS;
	s->memo.events = ntp_proc_events_open(s->no_events, sizeof(s->no_events));
	snprintf(s->binary, sizeof(s->binary), "%s", binary);
	n = ntp_usdt_read(binary, &sites, err, errlen); /* says why it cannot be read */
	if (n < 0)
		return -1;
	free(sites);
	walk_add(&w, binary);
	add_mapped(&w, s);
	for (int i = 0; i < w.n; i++) { /* w grows as libraries are found */
		keep_if_probed(s, w.paths[i]);
		add_needed(&w, w.paths[i]);
	}
	for (int i = 0; i < w.n; i++)
		free(w.paths[i]);
	return 0;
}

void ntp_spdk_close(struct ntp_spdk *s)
{
	for (int i = 0; i < s->nobjs; i++)
		free(s->objs[i].sites);
	s->nobjs = 0;
	ntp_proc_memo_free(&s->memo);
	if (s->memo.events >= 0)
		close(s->memo.events);
	s->memo.events = -1;
}

int ntp_spdk_sites(const struct ntp_spdk *s, const char *name)
{
	int n = 0;

	for (int i = 0; i < s->nobjs; i++)
		n += ntp_usdt_count(s->objs[i].sites, s->objs[i].nsites, "ntprof", name);
	return n;
}

int ntp_spdk_find_procs(struct ntp_spdk *s, char *err, size_t errlen)
{
	int n = ntp_proc_scan(&s->memo, s->binary, s->pids, NTP_SPDK_MAX_PIDS, err, errlen);

	if (n < 0)
		return -1;
	s->npids = n < NTP_SPDK_MAX_PIDS ? n : NTP_SPDK_MAX_PIDS;
	return s->npids;
}

/* Add PATH to the N candidates in C unless it is there. */
static void add_candidate(char (*c)[PATH_MAX], int *n, int max, const char *path)
{
	char real[PATH_MAX];

	if (*n == max || !realpath(path, real))
		return;
	for (int i = 0; i < *n; i++)
		if (!strcmp(c[i], real))
			return;
	snprintf(c[(*n)++], PATH_MAX, "%s", real);
}

/* The SPDK libraries PID maps (libspdk_*.so): a shared-library build may
 * keep the variable in one without probes, such as libspdk_util.so. */
static void add_mapped_spdk(char (*c)[PATH_MAX], int *n, int max, pid_t pid)
{
	char name[64], line[PATH_MAX + 128];
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/'), *base;

		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		base = strrchr(path, '/') + 1;
		if (!strncmp(base, "libspdk_", 8))
			add_candidate(c, n, max, path);
	}
	if (f)
		fclose(f);
}

int ntp_spdk_find_vars(const struct ntp_spdk *s, pid_t pid, struct ntp_spdk_vars *v, char *err,
		       size_t errlen)
{
	char cand[NTP_SPDK_MAX_OBJS + 32][PATH_MAX];
	int n = 0, max = NTP_SPDK_MAX_OBJS + 32;

	memset(v, 0, sizeof(*v));
	add_candidate(cand, &n, max, s->binary); /* a static build has it here */
	for (int i = 0; i < s->nobjs; i++)
		add_candidate(cand, &n, max, s->objs[i].path);
	add_mapped_spdk(cand, &n, max, pid);
	for (int i = 0; i < n && v->n < NTP_SPDK_MAX_VARS; i++) {
		uint64_t a;

		if (ntp_proc_symbol(pid, cand[i], NTP_SAMPLE_VAR, &a, err, errlen))
			continue; /* not defined there, or not loaded by PID */
		if (ntp_proc_locate_var(pid, cand[i], NTP_SAMPLE_VAR, &v->rate[v->n], err, errlen))
			return -1;
		if (ntp_proc_symbol(pid, cand[i], NTP_FLAGS_VAR, &a, err, errlen))
			v->flags[v->n] = 0; /* a patch without flags */
		else if (ntp_proc_locate_var(pid, cand[i], NTP_FLAGS_VAR, &v->flags[v->n], err,
					     errlen))
			return -1;
		v->n++;
	}
	if (!v->n && ntp_spdk_has_var(s))
		ntp_fail(err, errlen, "process %d has not loaded the library with %s yet",
			 (int)pid, NTP_SAMPLE_VAR);
	else if (!v->n)
		ntp_fail(err, errlen, "process %d: no %s in %s or its libraries (is it built with "
			 "ntprof's SPDK patch?)", (int)pid, NTP_SAMPLE_VAR, s->binary);
	return v->n;
}

int ntp_spdk_has_var(const struct ntp_spdk *s)
{
	if (ntp_elf_defines(s->binary, NTP_SAMPLE_VAR))
		return 1;
	for (int i = 0; i < s->nobjs; i++)
		if (ntp_elf_defines(s->objs[i].path, NTP_SAMPLE_VAR))
			return 1;
	return 0;
}
