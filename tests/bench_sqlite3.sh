#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# Plain sqlite3 on the set-up ntprof-shell --sql prints: how long each
# canned question takes an analyst who starts sqlite3 afresh, reads the
# set-up and asks it, with the default set-up (which attaches the prepared
# run ntprof-shell kept) and with --no-cache's (which computes the join and
# the statistics as sqlite3 reads it). Recordings
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

# The dot-commands, as the SQL each runs (shell/commands.c over the views of
# sql/shell.sql, sql/report.sql, sql/stats.sql, sql/join.sql): NAME|SQL.
questions='.groups|SELECT * FROM ntp_shell_groups
.stages|SELECT * FROM ntp_shell_stages
.components|SELECT * FROM ntp_shell_components
.percentiles|SELECT * FROM ntp_shell_percentiles
.percentiles --stages|SELECT * FROM ntp_shell_stage_percentiles
.hist|SELECT * FROM ntp_shell_hist WHERE name = '"'e2e'"'
.cdf|SELECT * FROM ntp_shell_cdf WHERE name = '"'e2e'"'
.slowest|SELECT * FROM ntp_shell_slowest LIMIT 10
.timeline|SELECT * FROM ntp_shell_timeline
.match|SELECT * FROM ntp_match_stats
.report (its rows)|SELECT * FROM ntp_report_rows'

now() { date +%s.%N; }

# median and range of the numbers on stdin, "M (LO to HI)"
summary() {
	sort -n | awk '{ v[NR] = $1 } END { printf "%.2f (%.2f to %.2f)", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

cat <<EOF

## Plain sqlite3 (\`ntprof-shell --sql\`, then one question)

Each figure is a fresh \`sqlite3 -init setup.sql :memory: 'SELECT count(*)
FROM (SQL)'\`, SQL being what the dot-command runs, in seconds: median of
$rounds rounds (range), questions interleaved within each round, sqlite3 on
CPU 1. Two set-ups: the default one, which attaches the prepared run that
\`ntprof-shell --sql\` prepared and kept when it wrote the set-up
("prepared"), and \`ntprof-shell --sql --no-cache\`'s, which makes sqlite3
compute the join and the statistics itself as it reads the set-up
("--no-cache"). Goals: under 1 s on 5,000 commands, under 10 s on 250,000,
set-up included. Run $(date -u '+%Y-%m-%d %H:%M UTC'), ntprof
$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown).

EOF
export NTPROF_CACHE_DIR="$dir/cache"
for n in 5000 250000; do
	secs=$((n / 1000))
	"$top/tests/ntprof-gen" -o "$dir/h$n.db" -t "$dir/t$n.db" -s 1 -n "$secs" -r 1000 -q 4 \
		>/dev/null
	(cd "$dir" && "$top/ntprof-shell" --sql --no-cache "h$n.db" "t$n.db" >"setup$n-nc.sql")
	t0=$(now)
	(cd "$dir" && "$top/ntprof-shell" --sql "h$n.db" "t$n.db" >"setup$n-c.sql" 2>/dev/null)
	t1=$(now)
	echo "$t1 - $t0" | bc >"$dir/prep.$n"
done
nq=$(printf '%s\n' "$questions" | wc -l)
for r in $(seq "$rounds"); do
	for n in 5000 250000; do
		for f in c nc; do
			for i in $(seq "$nq"); do
				sql=$(printf '%s\n' "$questions" | sed -n "${i}p" | cut -d'|' -f2-)
				t0=$(now)
				(cd "$dir" && taskset -c 1 sqlite3 -init "setup$n-$f.sql" :memory: \
					"SELECT count(*) FROM ($sql)" >/dev/null 2>&1)
				t1=$(now)
				echo "$t1 - $t0" | bc >>"$dir/q$i.$n.$f"
			done
		done
	done
	echo "bench_sqlite3: round $r of $rounds" >&2
done
cat <<EOF
Writing the default set-up (\`ntprof-shell --sql\`, which prepares the run
natively and keeps it, once per run): $(printf '%.2f' "$(cat "$dir/prep.5000")") s on 5,000
commands, $(printf '%.2f' "$(cat "$dir/prep.250000")") s on 250,000 (one run each).

| dot-command | 5,000, prepared | 5,000, --no-cache | 250,000, prepared | 250,000, --no-cache |
|---|---:|---:|---:|---:|
EOF
for i in $(seq "$nq"); do
	name=$(printf '%s\n' "$questions" | sed -n "${i}p" | cut -d'|' -f1)
	echo "| \`$name\` | $(summary <"$dir/q$i.5000.c") | $(summary <"$dir/q$i.5000.nc") |" \
		"$(summary <"$dir/q$i.250000.c") | $(summary <"$dir/q$i.250000.nc") |"
done
