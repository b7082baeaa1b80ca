#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# Plain sqlite3 on the set-up ntprof-shell --sql prints: how long each
# canned question takes an analyst who starts sqlite3 afresh, reads the
# set-up (which caches the join and the statistics) and asks it. Recordings
# of 5,000 and 250,000 commands per side (tests/ntprof-gen, kernel NVMe/TCP
# reads at qd 4, 1,000 IOPS). Goals: under 1 s on 5,000, under 10 s on
# 250,000, set-up included.
#
# Method: 7 rounds; in each, every question once, in turn, so a slow
# minute hits all alike; sqlite3 pinned to CPU 1. Prints a markdown section
# (median and range of the rounds) for docs/performance.md; tests/bench.sh
# appends it. BENCH_ROUNDS overrides the rounds. Not a test: no goal fails.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${BENCH_ROUNDS:-7}
dir=$(mktemp -d /var/tmp/ntprof-bench-sqlite3-XXXXXX)
trap 'rm -rf "$dir"' EXIT

# The dot-commands' views (sql/shell.sql, sql/report.sql, sql/join.sql).
questions="ntp_shell_groups ntp_report_stage ntp_report_components ntp_shell_percentiles
ntp_match_stats ntp_report_rows ntp_shell_timeline"

now() { date +%s.%N; }

# median and range of the numbers on stdin, "M (LO to HI)"
summary() {
	sort -n | awk '{ v[NR] = $1 } END { printf "%.2f (%.2f to %.2f)", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

cat <<EOF

## Plain sqlite3 (\`ntprof-shell --sql\`, then one question)

Each figure is a fresh \`sqlite3 -init setup.sql :memory: 'SELECT count(*)
FROM VIEW'\`: the set-up (the views, then the join and the statistics cached
in TEMP tables) and the question, in seconds: median of $rounds rounds
(range), questions interleaved within each round, sqlite3 on CPU 1. Goals:
under 1 s on 5,000 commands, under 10 s on 250,000.

| view (dot-command) | 5,000 commands | 250,000 commands |
|---|---:|---:|
EOF
for n in 5000 250000; do
	secs=$((n / 1000))
	"$top/tests/ntprof-gen" -o "$dir/h$n.db" -t "$dir/t$n.db" -s 1 -n "$secs" -r 1000 -q 4 \
		>/dev/null
	(cd "$dir" && "$top/ntprof-shell" --sql "h$n.db" "t$n.db" >"setup$n.sql")
done
for r in $(seq "$rounds"); do
	for n in 5000 250000; do
		for q in $questions; do
			t0=$(now)
			(cd "$dir" && taskset -c 1 sqlite3 -init "setup$n.sql" :memory: \
				"SELECT count(*) FROM $q" >/dev/null 2>&1)
			t1=$(now)
			echo "$t1 - $t0" | bc >>"$dir/$q.$n"
		done
	done
	echo "bench_sqlite3: round $r of $rounds" >&2
done
for q in $questions; do
	echo "| \`$q\` | $(summary <"$dir/$q.5000") | $(summary <"$dir/$q.250000") |"
done
