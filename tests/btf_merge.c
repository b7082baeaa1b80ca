// SPDX-License-Identifier: BSD-2-Clause
/*
 * btf_merge OUT VMLINUX MODULE: one BTF file with the types of VMLINUX (a
 * raw BTF file, /sys/kernel/btf/vmlinux) followed by those of MODULE (its
 * split BTF, /sys/kernel/btf/<module>), what `ntprof-collect --btf` takes
 * on a kernel without module BTF. The VM tests make one this way and then
 * hide /sys/kernel/btf. Type ids stay as they were: the module's own ids
 * follow vmlinux's, so the module's types are copied unchanged in order.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "btf_merge: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct btf *base, *mod, *out;
	const void *raw;
	__u32 size;
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: btf_merge OUT VMLINUX MODULE\n");
		return 1;
	}
	base = btf__parse(argv[2], NULL);
	if (libbpf_get_error(base))
		return fail("cannot read", argv[2]);
	mod = btf__parse_split(argv[3], base);
	if (libbpf_get_error(mod))
		return fail("cannot read", argv[3]);
	out = btf__new_empty();
	if (!out || btf__add_btf(out, base) < 0)
		return fail("cannot copy", argv[2]);
	for (__u32 id = btf__type_cnt(base); id < btf__type_cnt(mod); id++)
		if (btf__add_type(out, mod, btf__type_by_id(mod, id)) < 0)
			return fail("cannot copy a type of", argv[3]);
	raw = btf__raw_data(out, &size);
	f = fopen(argv[1], "w");
	if (!raw || !f || fwrite(raw, 1, size, f) != size || fclose(f))
		return fail("cannot write", argv[1]);
	return 0;
}
