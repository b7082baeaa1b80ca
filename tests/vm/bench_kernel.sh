#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# make bench, the kernel path: fio 4 KiB random reads at queue
# depth 1 between the two test guests (tests/vm/pair.sh), 5 s each with no
# collector, with both collectors at -s 100 and at -s 1. One run each; TCG
# is slow, so only the ratios mean anything. Prints a Markdown section for
# docs/performance.md. Root.
top=$(cd "$(dirname "$0")/../.." && pwd)
sh "$top/tests/vm/vm.sh" prepare >&2 || exit 1
d=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-vm-bench.XXXXXX") || exit 1
trap 'rm -rf "$d"' EXIT INT TERM
printf '%s\n' "none 0 randread 4k 5" "s100 100 randread 4k 5" "s1 1 randread 4k 5" >"$d/cases"
. "$top/tests/vm/pair.sh"
run_pair "$d" 900
if [ "$hrc" != 0 ] || [ "$trc" != 0 ]; then
	echo "bench_kernel: the guests failed ($hrc, $trc)" >&2
	tail -20 "$d/host.vm" "$d/target.vm" >&2
	exit 1
fi
iops() { python3 -c 'import json, sys; print("%.0f" % json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"])' "$d/$1.fio"; }
none=$(iops none) s100=$(iops s100) s1=$(iops s1)
cat <<EOF

## Kernel path in two qemu guests

Measured $(date -u +%Y-%m-%d) by \`tests/vm/bench_kernel.sh\`: Debian's
$(sh "$top/tests/vm/vm.sh" version) in two TCG guests (one vCPU each, no KVM) on
$(nproc) host cores, nvme-tcp to nvmet-tcp (null_blk) over a qemu UDP wire; fio
4 KiB random reads, queue depth 1, psync, 5 s per run, one run each. Under
TCG every instruction of the hooks costs tens of times its native price, so
these ratios are an upper bound on the overhead, not a measure of it.

| run | fio IOPS | ratio to no collector |
|---|---:|---:|
| no collector | $none | 1.00 |
| both collectors \`-s 100\` | $s100 | $(awk -v a="$s100" -v b="$none" 'BEGIN { printf "%.2f", a / b }') |
| both collectors \`-s 1\` | $s1 | $(awk -v a="$s1" -v b="$none" 'BEGIN { printf "%.2f", a / b }') |

What the collectors cost at any rate: the counting and hashing programs on
every command, a map lookup on every TCP send of the guest, and the
collector's wake-up every 20 ms on the guest's only vCPU. Measured once
(docs/collector.md, "The kernel path"): the BPF programs are the cost, the
collector process is not.
EOF
