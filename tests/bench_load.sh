#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# make bench, the collectors' CPU at rest and under load (as root;
# tests/bench.sh appends what this prints, markdown, to docs/performance.md).
# Every figure is on-CPU time from the scheduler (/proc/PID/task/*/schedstat,
# ns), per process, over LOAD_SECS (default 20) after 6 s of start-up, each
# collector started afresh and pinned to CPU 0 with the target; the cases
# run in an order that rotates from round to round, LOAD_ROUNDS rounds
# (default 7), and the tables give each figure's median and range. Not
# whole-run throughput: this machine's drift between runs is far larger
# than what is measured.
#  - At rest: the fixture target with no I/O and its collector alone, at
#    -s 100, at the default interval and at -i 1.
#  - Under load: one workload runs throughout (fixture_perf, 4 KiB random
#    reads at queue depth 1, pinned to CPU 1), and each case records it
#    with both collectors.
# Not a test: no goal fails the build.
set -eu
top=$(pwd)
out=$top/.output
secs=${LOAD_SECS:-20}
rounds=${LOAD_ROUNDS:-7}
dir=$(mktemp -d /var/tmp/ntprof-bench-load-XXXXXX)
pids=""
trap 'for p in $pids; do kill -9 $p 2>/dev/null || true; done; rm -rf "$dir"' EXIT

. "$top/tests/benchlib.sh"
need_root bench_load

REST_CASES="rest resti1"
CASES="s100 s1 n100 s100i1"
case_args() {
	case $1 in
	rest|s100) echo "-s 100" ;;
	resti1|s100i1) echo "-s 100 -i 1" ;;
	s1) echo "-s 1" ;;
	n100) echo "-s 100 --no-arrivals" ;;
	esac
}
label() { echo "\`$(case_args "$1")\`"; }

# ns PID: the on-CPU nanoseconds of every thread of PID so far
ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d", s }'
}

# writer_of PID: the collector's writer (its child named ntprof-writer)
writer_of() {
	for c in $(cat "/proc/$1/task/$1/children" 2>/dev/null); do
		[ "$(cat "/proc/$c/comm" 2>/dev/null)" = ntprof-writer ] && echo "$c" && return
	done
	echo "bench_load: no writer under collector $1" >&2
	exit 1
}

# collector ROLE CASE: one collector in the background, pinned; sets $col
collector() {
	if [ "$1" = target ]; then bin=$out/fixture_tgt; else bin=$out/fixture_perf; fi
	# shellcheck disable=SC2046
	taskset -c 0 "$top/ntprof-collect" record -q -r "$1" -t tcp $(case_args "$2") \
		--spdk-"$1" "$bin" -o "$dir/$1.db" >"$dir/$1.log" 2>&1 &
	col=$!
	pids="$pids $col"
}

# measure CASE ROLE...: the collectors of the roles, recording; appends
# each one's sampler and writer in ns per second, then the host's records
# per second if it recorded, to $dir/CASE
measure() {
	c=$1
	shift
	cols=""
	for role in "$@"; do collector "$role" "$c"; cols="$cols $col"; done
	sleep 6
	procs=""
	for p in $cols; do procs="$procs $p $(writer_of "$p")"; done
	a=""; for p in $procs; do a="$a $(ns "$p")"; done
	h0=$(sqlite3 "$dir/host.db" 'SELECT count(*) FROM cmd' 2>/dev/null || echo -)
	sleep "$secs"
	b=""; for p in $procs; do b="$b $(ns "$p")"; done
	h1=$(sqlite3 "$dir/host.db" 'SELECT count(*) FROM cmd' 2>/dev/null || echo -)
	# shellcheck disable=SC2086
	kill -INT $cols
	for p in $cols; do wait "$p" || true; done
	rm -f "$dir"/target.db* "$dir"/host.db*
	echo "$a | $b | $h0 $h1" | awk -v s="$secs" -F'|' '{
		n = split($1, a, " "); split($2, b, " "); split($3, h, " ")
		for (i = 1; i <= n; i++) printf "%.0f ", (b[i] - a[i]) / s
		if (h[1] != "-") printf "%.0f", (h[2] - h[1]) / s
		printf "\n" }' >>"$dir/$c"
}

# rounds CASES ROLE...: $rounds rounds of the cases, the order rotating
rounds() {
	cases=$1
	shift
	r=0
	while [ "$r" -lt "$rounds" ]; do
		r=$((r + 1))
		echo "bench_load: $* round $r of $rounds" >&2
		# shellcheck disable=SC2086
		for c in $(rotate "$r" $cases); do measure "$c" "$@"; done
	done
}

taskset -c 0 "$out/fixture_tgt" -a 127.0.0.1 -p 0 >"$dir/tgt.log" 2>&1 &
tgt=$!
pids="$pids $tgt"
wait_for "$dir/tgt.log" "listening on"
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$dir/tgt.log")

rounds "$REST_CASES" target

total=$((rounds * 4 * (secs + 12) + 60))
taskset -c 1 "$out/fixture_perf" -a 127.0.0.1 -p "$port" -q 1 -o 4096 -w randread -t "$total" \
	>"$dir/perf.log" 2>&1 &
perf=$!
pids="$pids $perf"
sleep 2
rounds "$CASES" target host
kill -INT "$perf" 2>/dev/null || true
wait "$perf" || true
kill -INT "$tgt"
wait "$tgt" || true

# row FILE LABEL N: a table row of FILE's first N columns (ns per second):
# median and range in ms per second, the share of a CPU of their sum, then
# the median of the column after them, if any
row() {
	python3 -c '
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
n = int(sys.argv[3])
cols = list(zip(*rows))
both = [sum(r[:n]) for r in rows]
ms = lambda v: "%.3f (%.3f to %.3f)" % (statistics.median(v) / 1e6, min(v) / 1e6, max(v) / 1e6)
line = "| %s | %s | %.3f %% (%.3f to %.3f) |" % (sys.argv[2], " | ".join(ms(c) for c in cols[:n]),
    statistics.median(both) / 1e7, min(both) / 1e7, max(both) / 1e7)
print(line + (" %.0f |" % statistics.median(cols[n]) if len(cols) > n else ""))
' "$1" "$2" "$3"
}

version=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)
cat <<EOF

### At rest and under load: the collectors' CPU

From \`make bench\` (tests/bench_load.sh), $(date -u '+%Y-%m-%d %H:%M') UTC, ntprof
$version. Goals: both collectors together at most 0.1 % of a CPU at
\`-s 100\` and at most 1.5 % at \`-s 1\` on the fixture pair.

Method: on-CPU time of each collector process (the sampler, and the
writer that stores the records) from \`/proc/PID/task/*/schedstat\`, over
$secs s after 6 s of start-up; each collector started afresh and pinned to
CPU 0 with the fixture target; $rounds rounds, the cases in an order that
rotates from round to round. Medians (lowest to highest), ms of CPU per
second; the interval is the default (10 s) unless the case says \`-i 1\`.

At rest: the fixture target with no I/O, and its collector alone. The
writer sleeps until an interval ends (docs/collector.md); the sampler
follows the program's processes at each interval.

| case | sampler | writer | share of a CPU |
|---|---:|---:|---:|
EOF
for c in $REST_CASES; do row "$dir/$c" "$(label "$c")" 2; done
cat <<EOF

Under load: one workload runs throughout, the fixture pair's 4 KiB random
reads at queue depth 1 over loopback (fixture_perf pinned to CPU 1), and
each case records it with both collectors. Host records/s: what the
host's collector stored in the window.

| case | target sampler | target writer | host sampler | host writer | both, share of a CPU | host records/s |
|---|---:|---:|---:|---:|---:|---:|
EOF
for c in $CASES; do row "$dir/$c" "$(label "$c")" 4; done
python3 -c '
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
us = [r[3] / r[4] / 1e3 for r in rows if r[4] > 0]
print()
print("At `-s 1` the host writer spends %.2f us of CPU per record it stores" % statistics.median(us),
      "(median of the rounds, %.2f to %.2f: its CPU over its records per second)." % (min(us), max(us)))
' "$dir/s1"
