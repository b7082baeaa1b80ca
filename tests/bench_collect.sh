#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# make bench, the collector's part (as root; tests/bench.sh appends what this
# prints, markdown, to docs/performance.md):
#  1. the fixture pair's throughput with no collector, with both collectors
#     at -s 100 and at -s 1, in one run, interleaved three times (medians);
#  2. the BPF programs' cost per hit, from kernel.bpf_stats_enabled, during
#     the -s 1 runs;
#  3. the collector's ingest rate: records written per second while a
#     program fires full batches of records as fast as it can.
# Not a test: no goal fails the build.
set -eu
top=$(pwd)
out=$top/.output
secs=${BENCH_SECS:-5}
dir=$(mktemp -d /var/tmp/ntprof-bench-collect-XXXXXX)
pids=""
trap 'for p in $pids; do kill -9 $p 2>/dev/null || true; done; rm -rf "$dir"' EXIT

if [ "$(id -u)" != 0 ]; then
	echo "bench_collect: needs root (BPF)" >&2
	exit 1
fi

wait_for() {
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "bench_collect: timed out waiting for '$2' in $1" >&2; exit 1; }
		sleep 0.1
	done
}

"$out/fixture_tgt" -a 127.0.0.1 -p 0 >"$dir/tgt.log" 2>&1 &
tgt=$!
pids="$pids $tgt"
wait_for "$dir/tgt.log" "listening on"
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$dir/tgt.log")

# run RATE [ARGS]: one perf run of $secs s at qd 1, with collectors at
# -s RATE (0: none) and ARGS; prints its IOPS.
run() {
	rate=$1
	extra=${2:-}
	"$out/fixture_perf" -a 127.0.0.1 -p "$port" -q 1 -o 4096 -w randread -t "$secs" \
		--wait-signal >"$dir/perf.log" 2>&1 &
	perf=$!
	wait_for "$dir/perf.log" "waiting for SIGUSR1"
	cols=""
	if [ "$rate" != 0 ]; then
		for role in target host; do
			if [ $role = target ]; then bin=$out/fixture_tgt; else bin=$out/fixture_perf; fi
			rm -f "$dir/$role.db"
			# shellcheck disable=SC2086
			"$top/ntprof-collect" record -q -r $role -t tcp -s "$rate" -i 1 $extra \
				--spdk-$role "$bin" -o "$dir/$role.db" >"$dir/$role.log" 2>&1 &
			cols="$cols $!"
			wait_for "$dir/$role.log" "profiling as"
		done
	fi
	kill -USR1 "$perf"
	wait "$perf"
	for c in $cols; do kill -INT "$c"; wait "$c" || true; done
	awk '/^Total/ { print $3 }' "$dir/perf.log"
}

median() { sort -n | sed -n 2p; }
runs() { tr '\n' ' ' <"$1" | sed 's/ $//; s/ /, /g'; }

echo "bench_collect: fixture throughput, 3 x (none, -s 100, -s 1, both without socket hooks), $secs s each" >&2
sysctl -q -w kernel.bpf_stats_enabled=1
: >"$dir/none"; : >"$dir/s100"; : >"$dir/s1"; : >"$dir/n100"; : >"$dir/n1"
for i in 1 2 3; do
	run 0 >>"$dir/none"
	run 100 >>"$dir/s100"
	run 1 >>"$dir/s1"
	run 100 --no-socket-hooks >>"$dir/n100"
	run 1 --no-socket-hooks >>"$dir/n1"
done
none=$(median <"$dir/none")
s100=$(median <"$dir/s100")
s1=$(median <"$dir/s1")
n100=$(median <"$dir/n100")
n1=$(median <"$dir/n1")
echo "bench_collect: IOPS none $none, -s 100 $s100, -s 1 $s1; without socket hooks $n100, $n1" >&2

# BPF cost per hit: the collectors' programs, while the last -s 1 run's are
# gone; bpftool keeps no totals of unloaded programs, so measure one more.
"$out/fixture_perf" -a 127.0.0.1 -p "$port" -q 1 -o 4096 -w randread -t "$secs" \
	--wait-signal >"$dir/perf.log" 2>&1 &
perf=$!
wait_for "$dir/perf.log" "waiting for SIGUSR1"
for role in target host; do
	if [ $role = target ]; then bin=$out/fixture_tgt; else bin=$out/fixture_perf; fi
	rm -f "$dir/$role.db"
	"$top/ntprof-collect" record -q -r $role -t tcp -s 1 -i 1 --spdk-$role "$bin" \
		-o "$dir/$role.db" >"$dir/$role.log" 2>&1 &
	eval "col_$role=\$!"
	wait_for "$dir/$role.log" "profiling as"
done
kill -USR1 "$perf"
wait "$perf"
bpftool prog show -j | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    if p.get("name", "").startswith("ntp_") and p.get("run_cnt"):
        print("| `%s` | %d | %.0f |" % (p["name"], p["run_cnt"], p["run_time_ns"] / p["run_cnt"]))
' >"$dir/costs"
kill -INT "$col_target" "$col_host"
wait "$col_target" "$col_host" || true
sysctl -q -w kernel.bpf_stats_enabled=0
kill -INT "$tgt"

echo "bench_collect: ingest, $secs s of full batches" >&2
"$out/usdt_flood" "$secs" >"$dir/flood.log" 2>&1 &
flood=$!
pids="$pids $flood"
wait_for "$dir/flood.log" "ready"
rm -f "$dir/flood.db"
"$top/ntprof-collect" record -q -r target -t tcp -s 1 -i 1 --spdk-target "$out/usdt_flood" \
	-o "$dir/flood.db" >"$dir/fcol.log" 2>&1 &
fcol=$!
wait "$flood"
# the collector's CPU time (user + system ticks) for what it stored
ticks=$(awk '{ print $14 + $15 }' "/proc/$fcol/stat")
kill -INT "$fcol"
wait "$fcol" || true
fired=$(sed -n 's/.*fired=\([0-9]*\).*/\1/p' "$dir/flood.log")
stored=$(sqlite3 "$dir/flood.db" 'SELECT count(*) FROM cmd')
lost=$(sqlite3 "$dir/flood.db" 'SELECT ifnull(sum(n), 0) FROM lost')
span=$(sqlite3 "$dir/flood.db" 'SELECT (max(t) - min(t)) / 1e9 FROM cmd')
rate=$(echo "$stored / $secs" | bc)
cpu=$(echo "scale=2; $ticks / $(getconf CLK_TCK)" | bc)
per_cpu=$(echo "$stored * $(getconf CLK_TCK) / $ticks" | bc)

cat <<EOF

## The collector (issue 3)

From \`make bench\` (tests/bench_collect.sh), same machine and date. Goals:
the fixture's throughput with both collectors at \`-s 100\` at least 0.99 of
its throughput without, at \`-s 1\` at least 0.95; ingest at least 1 M
records/s.

Throughput: the NVMe/TCP test fixture pair over loopback, 4 KiB random reads
at qd 1, $secs s per run, runs interleaved (none, -s 100, -s 1) three times,
medians of IOPS:

| collectors | IOPS (median) | ratio | goal | the three runs |
|---|---:|---:|---:|---|
| none | $none | 1.00 | | $(runs "$dir/none") |
| both at \`-s 100\` | $s100 | $(echo "scale=3; $s100 / $none" | bc) | >= 0.99 | $(runs "$dir/s100") |
| both at \`-s 1\` | $s1 | $(echo "scale=3; $s1 / $none" | bc) | >= 0.95 | $(runs "$dir/s1") |
| both at \`-s 100 --no-socket-hooks\` | $n100 | $(echo "scale=3; $n100 / $none" | bc) | | $(runs "$dir/n100") |
| both at \`-s 1 --no-socket-hooks\` | $n1 | $(echo "scale=3; $n1 / $none" | bc) | | $(runs "$dir/n1") |

BPF cost per hit (\`kernel.bpf_stats_enabled\`: run_time_ns / run_cnt, one
more \`-s 1\` run of both collectors). The USDT program's hit copies one
batch (up to 64 records, one per poller pass); the uprobe trap around it
is not included:

| program | hits | ns per hit |
|---|---:|---:|
$(cat "$dir/costs")

Ingest: \`tests/usdt_flood\` fires full batches of 64 records through
\`ntprof:nvmf_tcp_done\` as fast as it can for $secs s while the collector
records them (\`-i 1\`, default ring buffer):

| fired | stored | lost (counted) | stored per second of the run | collector CPU seconds | stored per CPU second | goal |
|---:|---:|---:|---:|---:|---:|---:|
| $fired | $stored | $lost | $rate | $cpu | $per_cpu | >= 1000000 |

With nothing lost, "per second of the run" is what the load could fire
(the uprobe trap and the copy, on the same two cores), not a limit of the
collector; "per CPU second" is the collector's own capacity.
EOF
