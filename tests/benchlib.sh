# SPDX-License-Identifier: BSD-2-Clause
#
# Sourced by the benchmarks that run programs in the background
# (tests/bench_collect.sh, tests/bench_cost.sh, tests/bench_load.sh).

# wait_for FILE PATTERN: until FILE has a line with PATTERN (30 s at most)
wait_for() {
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 300 ] || { echo "$0: timed out waiting for '$2' in $1" >&2; exit 1; }
		sleep 0.1
	done
}

# rotate R WORD...: the words, starting at the (R mod count)-th after the
# first: the order of a round R, so no case always runs first
rotate() {
	_r=$1
	shift
	echo "$@" | tr ' ' '\n' | awk -v r="$_r" '{ a[NR] = $0 } END {
		for (i = 0; i < NR; i++) print a[(i + r) % NR + 1] }'
}

# need_root NAME: exit 1 unless root (BPF), saying so as NAME
need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "$1: needs root (BPF)" >&2
		exit 1
	fi
}
