#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# make bench, the collector's part (as root; tests/bench.sh appends what this
# prints, markdown, to docs/performance.md). What the collectors cost the
# workload they record, on the NVMe/TCP test fixture pair and, with SPDK_DIR
# set to an SPDK build with ntprof's patch, on real nvmf_tgt and
# spdk_nvme_perf: the target pinned to CPU 0, the host to CPU 1, 4 KiB
# random reads at queue depth 1 over loopback. Two methods:
#  1. whole runs: no collector, both collectors at -s 100, at -s 1, and at
#     -s 100 --no-arrivals, interleaved in a rotating order over
#     BENCH_ROUNDS rounds (default 7) of BENCH_SECS (default 5). Per round
#     each case's IOPS and mean latency are divided by that round's run
#     without a collector: the median ratio and the spread. It sees every
#     cost, but the machine's drift between runs too;
#  2. phases (tests/bench_alternate.py): one cost switched on and off every
#     second inside one run, BENCH_PAIRS (default 20) pairs: the kernel's
#     receive timestamps alone (no collector), and sampling at 100 and at 1
#     with both collectors attached. Paired a second apart, it resolves
#     costs well under 1 %, but only those it switches.
# Then the BPF programs' run time per hit and per command (kernel.bpf_stats,
# in runs of their own: the stats cost time themselves), the collectors'
# CPU, and ingest: records stored per CPU second of the collector while a
# program fires full batches as fast as it can, and whether 200,000 sampled
# commands a second lose anything. Not a test: no goal fails the build.
set -eu
top=$(pwd)
out=$top/.output
secs=${BENCH_SECS:-5}
rounds=${BENCH_ROUNDS:-7}
pairs=${BENCH_PAIRS:-20}
spdk=${SPDK_DIR:-}
dir=$(mktemp -d /var/tmp/ntprof-bench-collect-XXXXXX)
pids=""
trap 'for p in $pids; do kill -9 $p 2>/dev/null || true; done; [ -n "${BENCH_KEEP:-}" ] || rm -rf "$dir"' EXIT

. "$top/tests/benchlib.sh"
need_root bench_collect

# cpu PID: its user + system seconds so far, with its children's (the
# collector's writer, which does most of its work, is one)
cpu() {
	for p in "$1" $(cat "/proc/$1/task/$1/children" 2>/dev/null); do cat "/proc/$p/stat"; done |
		awk -v hz="$(getconf CLK_TCK)" '{ s += $14 + $15 } END { printf "%.3f", s / hz }'
}

# collectors RATE EXTRA: both collectors, the host's with --wait; sets $cols
# and $used0, their CPU once ready (loading is not the run's)
collectors() {
	cols=""
	for role in target host; do
		if [ $role = target ]; then bin=$TGT_BIN; w=""; else bin=$HOST_BIN; w=--wait; fi
		rm -f "$dir/$role.db"
		: >"$dir/$role.log"
		# shellcheck disable=SC2086
		"$top/ntprof-collect" record -q -r $role -t tcp -s "$1" -i 1 $2 $w \
			--spdk-$role "$bin" -o "$dir/$role.db" >"$dir/$role.log" 2>&1 &
		cols="$cols $!"
		if [ $role = target ]; then wait_for "$dir/$role.log" "profiling as"; fi
	done
	wait_for "$dir/host.log" "waiting for a process"
	used0=0
	for col in $cols; do used0=$(echo "$used0 + $(cpu "$col")" | bc); done
}

# stop_collectors: sets $used, their CPU seconds since they were ready, then
# Ctrl-C and waits for them (in this shell: a subshell cannot)
stop_collectors() {
	used=-$used0
	for col in $cols; do used=$(echo "$used + $(cpu "$col")" | bc); done
	for col in $cols; do kill -INT "$col"; wait "$col" || true; done
}

# ---- the fixture pair (kind fx) ----
fx_start() {
	taskset -c 0 "$out/fixture_tgt" -a 127.0.0.1 -p 0 >"$dir/tgt.log" 2>&1 &
	tgt=$!
	pids="$pids $tgt"
	wait_for "$dir/tgt.log" "listening on"
	port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$dir/tgt.log")
	TGT_BIN=$out/fixture_tgt HOST_BIN=$out/fixture_perf
	COUNT="--count-symbol $tgt:$TGT_BIN:fx_commands_done"
}
fx_stop() { kill -INT "$tgt"; wait "$tgt" || true; }
# fx_perf SECS: a run in the background; sets $perf
fx_perf() {
	taskset -c 1 "$HOST_BIN" -a 127.0.0.1 -p "$port" -q 1 -o 4096 -w randread -t "$1" \
		>"$dir/perf.log" 2>&1 &
	perf=$!
}
# fx_result: "IOPS MEAN_NS" of the last run
fx_result() {
	iops=$(awk '/^Total/ { print $3 }' "$dir/perf.log")
	mean=$(sed -n 's/.*mean_ns=\([0-9]*\).*/\1/p' "$dir/perf.log")
	echo "$iops $mean"
}

# ---- real SPDK (kind sp) ----
NQN=nqn.2016-06.io.spdk:ntprof-bench
sp_start() {
	rpc="python3 $spdk/scripts/rpc.py"
	taskset -c 0 "$spdk/build/bin/nvmf_tgt" --no-huge -s 1024 -m 0x1 >"$dir/nvmf.log" 2>&1 &
	tgt=$!
	pids="$pids $tgt"
	i=0
	until $rpc rpc_get_methods >/dev/null 2>&1; do
		i=$((i + 1)); [ $i -lt 100 ] || { echo "bench_collect: nvmf_tgt did not start" >&2; exit 1; }
		sleep 0.2
	done
	$rpc nvmf_create_transport -t TCP >/dev/null
	$rpc bdev_malloc_create -b Malloc0 64 4096 >/dev/null
	$rpc nvmf_create_subsystem $NQN -a -s NTPROF0000000001 >/dev/null
	$rpc nvmf_subsystem_add_ns $NQN Malloc0 >/dev/null
	$rpc nvmf_subsystem_add_listener $NQN -t tcp -a 127.0.0.1 -s 4420 -f ipv4 >/dev/null
	TGT_BIN=$spdk/build/bin/nvmf_tgt HOST_BIN=$spdk/build/bin/spdk_nvme_perf
	COUNT="--count-rpc /var/tmp/spdk.sock"
}
sp_stop() { kill -INT "$tgt"; wait "$tgt" || true; }
sp_perf() {
	"$HOST_BIN" --no-huge -s 1024 -c 0x2 -q 1 -o 4096 -w randread -t "$1" \
		-r "trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:4420 subnqn:$NQN" \
		>"$dir/perf.log" 2>&1 &
	perf=$!
}
sp_result() { awk '/^Total/ { printf "%s %.0f\n", $3, $5 * 1000 }' "$dir/perf.log"; }

# run KIND: one timed run, in the foreground; prints "IOPS MEAN_NS"
run() { ${1}_perf "$secs"; wait "$perf" || true; ${1}_result; }

# ---- method 1: whole runs ----
CASES="none s100 s1 n100"
case_rate() { case $1 in s100|n100) echo 100 ;; s1) echo 1 ;; esac; }
case_extra() { [ "$1" = n100 ] && echo --no-arrivals || true; }
case_label() {
	case $1 in
	none) echo "none" ;;
	s100) echo "both at \`-s 100\`" ;;
	s1) echo "both at \`-s 1\`" ;;
	n100) echo "both at \`-s 100 --no-arrivals\`" ;;
	esac
}

# one KIND CASE: a run of CASE; appends "IOPS MEAN_NS CPU_PER_S" to $dir/KIND.CASE
one() {
	if [ "$2" = none ]; then
		echo "$(run "$1") 0" >>"$dir/$1.$2"
		return
	fi
	collectors "$(case_rate "$2")" "$(case_extra "$2")"
	r=$(run "$1")
	stop_collectors
	echo "$r $(echo "scale=4; $used / $secs" | bc)" >>"$dir/$1.$2"
}

# rounds KIND: a run to warm up, then $rounds rounds of every case, the
# order rotating
rounds() {
	run "$1" >/dev/null
	for c in $CASES; do : >"$dir/$1.$c"; done
	for round in $(seq "$rounds"); do
		# shellcheck disable=SC2086
		for c in $(rotate "$round" $CASES); do one "$1" "$c"; done
		echo "bench_collect: $1 round $round of $rounds" >&2
	done
}

# table KIND: the markdown rows of the whole runs' ratios
table() {
	for c in $CASES; do
		python3 - "$dir/$1.none" "$dir/$1.$c" "$(case_label "$c")" <<'PY'
import statistics, sys
base = [list(map(float, l.split())) for l in open(sys.argv[1])]
runs = [list(map(float, l.split())) for l in open(sys.argv[2])]
iops = [r[0] / b[0] for r, b in zip(runs, base)]
lat = [r[1] / b[1] for r, b in zip(runs, base)]
cpu = [r[2] for r in runs]
print("| %s | %.0f | %.3f | %.3f to %.3f | %+.1f %% | %+.1f to %+.1f %% | %.1f %% |" % (
    sys.argv[3], statistics.median(r[0] for r in runs), statistics.median(iops),
    min(iops), max(iops), 100 * (statistics.median(lat) - 1),
    100 * (min(lat) - 1), 100 * (max(lat) - 1), 100 * statistics.median(cpu)))
PY
	done
}

# ---- method 2: phases ----
# alternate KIND LABEL ARGS...: a long run, bench_alternate.py with ARGS
# (its "PIDS" argument replaced by the target's and the host's process)
alternate() {
	kind=$1 label=$2
	shift 2
	long=$(python3 -c "print(int($pairs * 2 * 1.4 + 30))")
	${kind}_perf "$long"
	sleep 3 # connected, and the host collector found it
	set -- "$@"
	args=""
	for a in "$@"; do
		[ "$a" = PIDS ] && a="$tgt:$TGT_BIN $perf:$HOST_BIN"
		args="$args $a"
	done
	# shellcheck disable=SC2086
	r=$(python3 "$top/tests/bench_alternate.py" --pairs "$pairs" $COUNT $args)
	kill -INT "$perf" 2>/dev/null || true
	wait "$perf" || true
	echo "$r" | awk -v l="$label" '{ printf "| %s | %.4f | %.4f to %.4f | %.4f to %.4f | %d | %.0f |\n",
		l, $1, $2, $3, $4, $5, $6, $7 }' >>"$dir/$kind.alt"
}

alternates() {
	: >"$dir/$1.alt"
	alternate "$1" "receive timestamps held on (no collector)" --stamp
	for rate in 100 1; do
		collectors $rate ""
		alternate "$1" "sampling at $rate, both collectors attached" --rate $rate PIDS
		stop_collectors
	done
	echo "bench_collect: $1 phases done" >&2
}

# stats KIND: one run of each collector case with bpf_stats on; per
# program, run time per hit and per command of the workload
stats() {
	: >"$dir/$1.stats"
	for rate in 100 1; do
		sysctl -q -w kernel.bpf_stats_enabled=1
		collectors $rate ""
		r=$(run "$1")
		ios=$(echo "$r" | awk -v s="$secs" '{ printf "%.0f", $1 * s }')
		bpftool prog show -j | python3 -c '
import json, sys
ios, case = int(sys.argv[1]), sys.argv[2]
for p in json.load(sys.stdin):
    if p.get("name", "").startswith("ntp_") and p.get("run_cnt"):
        print("| %s | `%s` | %d | %.0f | %.1f |" % (case, p["name"], p["run_cnt"],
              p["run_time_ns"] / p["run_cnt"], p["run_time_ns"] / max(ios, 1)))
' "$ios" "\`-s $rate\`" >>"$dir/$1.stats"
		stop_collectors
		sysctl -q -w kernel.bpf_stats_enabled=0
	done
}

measure() {
	rounds "$1"
	alternates "$1"
	stats "$1"
}

echo "bench_collect: the fixture pair" >&2
fx_start
measure fx
fx_stop
if [ -n "$spdk" ]; then
	echo "bench_collect: real SPDK in $spdk" >&2
	sp_start
	measure sp
	sp_stop
fi

echo "bench_collect: ingest" >&2
flood() {
	"$out/usdt_flood" "$secs" ${1:-} >"$dir/flood.log" 2>&1 &
	flood=$!
	wait_for "$dir/flood.log" "ready"
	rm -f "$dir/flood.db"
	"$top/ntprof-collect" record -q -r target -t tcp -s 1 -i 1 --spdk-target "$out/usdt_flood" \
		-o "$dir/flood.db" >"$dir/fcol.log" 2>&1 &
	fcol=$!
	wait "$flood"
	used=$(cpu "$fcol")
	kill -INT "$fcol"
	wait "$fcol" || true
	fired=$(sed -n 's/.*fired=\([0-9]*\).*/\1/p' "$dir/flood.log")
	stored=$(sqlite3 "$dir/flood.db" 'SELECT count(*) FROM cmd')
	lost=$(sqlite3 "$dir/flood.db" 'SELECT ifnull(sum(n), 0) FROM lost')
	echo "| ${1:-as fast as it can} | $fired | $stored | $lost | $used | $(echo "$stored / $used" | bc) |"
}
ingest_max=$(flood)
ingest_200k=$(flood 200000)

# report KIND TITLE INTRO
report() {
	cat <<EOF

### $2

$3

Whole runs ($rounds rounds of $secs s, the median ratio to the same round's
run without a collector, and the lowest and highest):

| collectors | IOPS (median) | IOPS ratio | spread | mean latency | spread | collector CPU |
|---|---:|---:|---|---:|---|---:|
$(table "$1")

Phases ($pairs pairs of 1 s phases in one run, median ratio on/off, the
quartiles, the lowest and highest; the off phases' commands per second):

| switched | ratio | quartiles | spread | pairs | off: commands/s |
|---|---:|---|---|---:|---:|
$(cat "$dir/$1.alt")

BPF run time (\`kernel.bpf_stats_enabled\`, one more run of each case with
the stats on): per hit, and per command of the workload.

| case | program | hits | ns per hit | ns per command |
|---|---|---:|---:|---:|
$(cat "$dir/$1.stats")
EOF
}

cat <<EOF

## The collector

From \`make bench\` (tests/bench_collect.sh), $(date -u '+%Y-%m-%d %H:%M UTC'), ntprof
$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown), on the machine above. Goals:
with both collectors at \`-s 100\` the workload keeps at least 0.99 of its
IOPS and its mean latency moves by at most 1 %; at \`-s 1\`, at least 0.95;
ingest at least 1 M records per CPU second, and nothing lost at 200,000
sampled commands a second.

Method: the target pinned to CPU 0, the host to CPU 1 (the collectors are
not pinned: they take what CPU there is, as they would), 4 KiB random reads
at queue depth 1 over loopback, so both machines' costs fall on one. Two
ways, because this machine drifts by 15 % and more from minute to minute:

- **whole runs**: no collector and the three collector cases, interleaved
  in an order that rotates from round to round; each case's IOPS and mean
  latency (the workload's own) are divided by those of the same round's
  run without a collector. It sees every cost (the collectors' own CPU
  included: both cores are busy polling), and the drift too.
- **phases** (tests/bench_alternate.py): one thing switched on and off
  every second inside one run, the ratio of each "on" phase to the "off"
  phase next to it, the pairs' order alternating. It resolves a fraction
  of a percent, but sees only what it switches: the kernel stamping every
  packet (a socket that asks for receive timestamps, held open or not;
  nothing else running), and sampling (the rate written into both
  processes, 0 or N, while both collectors stay attached and hold the
  timestamps on).

Collector CPU: both collectors' user and system time over the run's length,
each with its writer's (the process that stores the records).
EOF
report fx "The NVMe/TCP test fixture pair (loopback)" \
"The fixture's processes sleep in \`ppoll\` between PDUs, so the CPU a
collector takes is idle time more often than not; SPDK polls."
if [ -n "$spdk" ]; then
	report sp "Real SPDK (\`nvmf_tgt\`, \`spdk_nvme_perf\`, loopback TCP, a 64 MiB Malloc bdev)" \
"SPDK $(tr -d '\n' <"$spdk/VERSION" 2>/dev/null) ($(git -C "$spdk" rev-parse --short HEAD 2>/dev/null)), built outside this
repository with ntprof's patch (spdk-patch/README.md); \`nvmf_tgt -m 0x1\`,
\`spdk_nvme_perf -c 0x2\`, both polling their core."
fi
cat <<EOF

### Ingest

\`tests/usdt_flood\` fires full batches of 64 records through
\`ntprof:nvmf_tcp_done\`, as fast as it can or at a set rate, for $secs s, while
the collector records them at \`-s 1\` (\`-i 1\`, the default ring buffer):

| load | fired | stored | lost (counted) | collector CPU seconds | stored per CPU second |
|---|---:|---:|---:|---:|---:|
$ingest_max
$ingest_200k

As fast as it can, the load fires more than any collector could store, and
what the ring cannot hold is counted as lost, never dropped silently;
"stored per CPU second" is the collector's own capacity.
EOF
