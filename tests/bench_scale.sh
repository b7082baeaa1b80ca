#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# An analyst's questions at scale: on runs of 1 M and 10 M commands a side
# (tests/ntprof-gen, kernel NVMe/TCP reads at qd 4 on host and target, 20,000
# IOPS, -s 1; a second run of the same size and another seed for compare),
# each question as a fresh process, first (no prepared run: it prepares
# one and keeps it) and later (the same question again, the run prepared),
# in seconds, in B and with its peak RSS; and ntprof merge of the run, then
# a report of the merged file (merge reads a prepared run and keeps the one
# it prepares, as the report does; later, it still writes the whole file). The later question is asked
# twice, from 3 s after the first ends, and the second is the figure: a
# prepared run's file is hashed whole until a read at least 2 s after it
# was written notes it (lib/cache.c), which the first later read does. Then
# the questions an analyst asks after a report of each run (the runs
# prepared by the reports, not by the question itself): the first ask and
# the one after. B is a bare scan of the host recording, SELECT count(*)
# and sum() of every column of cmd, timed the same way right before the
# size's questions (and Bp, the same of the point columns alone, h_*, the
# stricter yardstick earlier tables used). Goals: a first report at most
# 6 B, every later question at most 2 B, peak RSS at most 256 MB.
#
# Method: every process pinned to CPU 1, the recordings in the page cache,
# prepared runs in a scratch cache directory, wall time and peak RSS from
# /usr/bin/time; one pass per size (the later questions' spread over 7
# rounds at 1 M is in "How a run is prepared"). Prints a markdown section
# for docs/performance.md; tests/bench.sh appends it. BENCH_SCALE overrides
# the sizes (default "1000000 10000000"). Not a test: no goal fails.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sizes=${BENCH_SCALE:-1000000 10000000}
dir=$(mktemp -d /var/tmp/ntprof-bench-scale-XXXXXX)
trap 'rm -rf "$dir"' EXIT
export NTPROF_CACHE_DIR="$dir/cache"
N=$top/ntprof S=$top/ntprof-shell
iops=20000

# timed NAME CMD...: run CMD pinned ($pin), its output thrown away; appends
# "NAME seconds KiB" to $dir/times (a failure stops the bench: no figure is
# made of an error)
pin="taskset -c 1"
timed() {
	name=$1
	shift
	if ! /usr/bin/time -f '%e %M' -o "$dir/rt" $pin "$@" > /dev/null 2> "$dir/err"
	then
		echo "bench_scale: $name failed: $(tail -3 "$dir/err")" >&2
		exit 1
	fi
	echo "$name $(cat "$dir/rt")" >> "$dir/times"
}

# question Q N H T H2 T2: question Q of the list below
question() {
	case $1 in
	report) timed "$1" "$N" report --detail "$3" "$4" ;;
	percentiles) timed "$1" "$S" -c '.percentiles --stages' "$3" "$4" ;;
	timeline) timed "$1" "$S" -c '.timeline 100ms' "$3" "$4" ;;
	slowest) timed "$1" "$S" -c '.slowest 10' "$3" "$4" ;;
	hist) timed "$1" "$S" -c '.hist' "$3" "$4" ;;
	cdf) timed "$1" "$S" -c '.cdf' "$3" "$4" ;;
	compare) timed "$1" "$N" compare "$3,$4" "$5,$6" ;;
	plot) rm -rf "$dir/plot"; timed "$1" "$N" plot -o "$dir/plot" "$3,$4" ;;
	merge) rm -f "$dir/m.db"; timed "$1" "$N" merge -o "$dir/m.db" "$3" "$4" ;;
	merged) timed "$1" "$N" report --detail "$dir/m.db" ;;
	esac
}
questions="report percentiles timeline slowest hist cdf compare plot merge merged"
label() {
	case $1 in
	report) echo '`ntprof report --detail H T`' ;;
	percentiles) echo "\`ntprof-shell -c '.percentiles --stages'\`" ;;
	timeline) echo "\`ntprof-shell -c '.timeline 100ms'\`" ;;
	slowest) echo "\`ntprof-shell -c '.slowest 10'\`" ;;
	hist) echo "\`ntprof-shell -c '.hist'\`" ;;
	cdf) echo "\`ntprof-shell -c '.cdf'\`" ;;
	compare) echo '`ntprof compare` of two runs' ;;
	plot) echo '`ntprof plot` of one run' ;;
	merge) echo '`ntprof merge -o M H T` (later: the file written again from the prepared run)' ;;
	merged) echo '`ntprof report --detail M` (the merged file)' ;;
	esac
}

bare_sql='SELECT count(*), sum(t), sum(grp), sum(qid), sum(cid), sum(slba), sum(h_start),
 sum(h_queue), sum(h_sent), sum(h_r2t_rx), sum(h_data_sent), sum(h_rx), sum(h_rx_drv), sum(h_cqe),
 sum(h_complete), sum(h_end) FROM cmd'
point_sql='SELECT count(*), sum(h_start), sum(h_queue), sum(h_sent), sum(h_r2t_rx),
 sum(h_data_sent), sum(h_rx), sum(h_rx_drv), sum(h_cqe), sum(h_complete), sum(h_end) FROM cmd'

: > "$dir/rows"
: > "$dir/free"
: > "$dir/after"
: > "$dir/bares"
for n in $sizes; do
	secs=$((n / iops))
	echo "bench_scale: generating 2 runs of $n commands a side" >&2
	for x in 1 2; do
		"$top/tests/ntprof-gen" -o "$dir/h$x.db" -t "$dir/t$x.db" -s 1 -n "$secs" \
			-r "$iops" -q 4 -Q 4 -x "$x" > /dev/null
	done
	rows=$(sqlite3 "$dir/h1.db" 'SELECT count(*) FROM cmd')
	cat "$dir"/h?.db "$dir"/t?.db > /dev/null
	: > "$dir/times"
	timed bare sqlite3 "$dir/h1.db" "$bare_sql"
	timed points sqlite3 "$dir/h1.db" "$point_sql"
	bare=$(awk '$1 == "bare" { print $2 }' "$dir/times")
	points=$(awk '$1 == "points" { print $2 }' "$dir/times")
	echo "$n $bare $points" >> "$dir/bares"
	for q in $questions; do
		rm -rf "$dir/cache"
		if [ "$q" = compare ]; then
			# "first": neither run prepared, nor the pair
			question "$q" "$n" "$dir/h1.db" "$dir/t1.db" "$dir/h2.db" "$dir/t2.db"
		else
			question "$q" "$n" "$dir/h1.db" "$dir/t1.db"
		fi
		echo "bench_scale: $n $q first: $(tail -1 "$dir/times")" >&2
		# as an analyst's next questions come: more than 2 s after the
		# prepared run was written; the first of them hashes its file
		# whole and notes it (lib/cache.c, NAME.seen), the ones after
		# do not: the second is the one in the table (awk keeps the last)
		sleep 3
		for later in 1 2; do
			question "$q" "$n" "$dir/h1.db" "$dir/t1.db" "$dir/h2.db" "$dir/t2.db"
			echo "bench_scale: $n $q later ($later): $(tail -1 "$dir/times")" >&2
		done
	done
	# rows: size question first_s first_kib later_s later_kib
	awk -v n="$rows" -v bare="$bare" '$1 != "bare" && $1 != "points" {
		if (!($1 in f)) { f[$1] = $2 " " $3; order[++k] = $1 } else l[$1] = $2 " " $3 }
		END { for (i = 1; i <= k; i++) print n, bare, order[i], f[order[i]], l[order[i]] }' \
		"$dir/times" >> "$dir/rows"
	# after a report of each run: each question's first ask, and the next
	rm -rf "$dir/cache"
	"$N" report --detail "$dir/h1.db" "$dir/t1.db" > /dev/null 2>&1
	"$N" report --detail "$dir/h2.db" "$dir/t2.db" > /dev/null 2>&1
	sleep 3
	: > "$dir/times"
	for q in percentiles timeline slowest compare plot; do
		for ask in 1 2; do
			question "$q" "$n" "$dir/h1.db" "$dir/t1.db" "$dir/h2.db" "$dir/t2.db"
			echo "bench_scale: $n $q after the reports ($ask): $(tail -1 "$dir/times")" >&2
		done
	done
	awk -v n="$rows" -v bare="$bare" '{
		if (!($1 in f)) { f[$1] = $2 " " $3; order[++k] = $1 } else l[$1] = $2 " " $3 }
		END { for (i = 1; i <= k; i++) print n, bare, order[i], f[order[i]], l[order[i]] }' \
		"$dir/times" >> "$dir/after"
	# the first report as the goal has it, a fresh process on an idle
	# machine with both CPUs (the recordings' integrity checks run
	# beside the preparation): rounds of B then a first report, unpinned
	pin=
	: > "$dir/times"
	for round in 1 2 3 4 5; do
		rm -rf "$dir/cache"
		timed bare sqlite3 "$dir/h1.db" "$bare_sql"
		question report "$n" "$dir/h1.db" "$dir/t1.db"
		echo "bench_scale: $n both CPUs, round $round: $(tail -2 "$dir/times" | tr '\n' ' ')" >&2
	done
	pin="taskset -c 1"
	# free: per round, size, B, the report's seconds and KiB
	awk -v n="$rows" '$1 == "bare" { b = $2 } $1 == "report" { print n, b, $2, $3 }' \
		"$dir/times" >> "$dir/free"
	rm -f "$dir"/h?.db "$dir"/t?.db "$dir/m.db"
	rm -rf "$dir/cache"
done

cat <<EOF2
## At scale: each question first and later

Written by tests/bench_scale.sh ($(date -u '+%Y-%m-%d %H:%M UTC'), ntprof
$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown), the machine above).
Runs of N commands a side (tests/ntprof-gen, kernel NVMe/TCP reads at qd 4,
$iops IOPS, \`-s 1\`), each question a fresh process pinned to one CPU:
**first** with no prepared run (it prepares the run and keeps it), **later**
the same question again, asked twice from 3 s after the first and the
second timed (the first of them also hashes the prepared run's file
whole and notes it: "How a run is prepared"). B is a bare scan of the host recording timed the
same way (\`SELECT count(*), sum(...)\` of every column of \`cmd\`; Bp the
same of the point columns alone, \`h_*\`, the yardstick of earlier tables). Peak RSS
from \`/usr/bin/time\`. One pass per size: on this machine a figure varies
by about 15 % from one run to the next. Goals: a first report at most 6 B,
every later question at most 2 B, peak RSS at most 256 MB.

| commands a side | B | question | first | first, in B | first RSS | later | later, in B | later RSS |
|---:|---:|---|---:|---:|---:|---:|---:|---:|
EOF2
while read -r n bare q fs fk ls lk; do
	printf '| %s | %.2f s | %s | %.2f s | %.1f | %d MB | %.2f s | %.1f | %d MB |\n' \
		"$n" "$bare" "$(label "$q")" "$fs" "$(echo "$fs / $bare" | bc -l)" "$((fk / 1024))" \
		"$ls" "$(echo "$ls / $bare" | bc -l)" "$((lk / 1024))"
done < "$dir/rows"
echo
cat <<EOF2
The bare scans: $(awk '{ printf "%s%s commands: B %.2f s, Bp %.2f s", sep, $1, $2, $3; sep = "; " }' \
	"$dir/bares").

After a report of each run (the reports untimed; the runs prepared by
them, not by the question): each question's first ask, and the one after.

| commands a side | question | first ask | in B | RSS | next | in B | RSS |
|---:|---|---:|---:|---:|---:|---:|---:|
EOF2
while read -r n bare q fs fk ls lk; do
	printf '| %s | %s | %.2f s | %.1f | %d MB | %.2f s | %.1f | %d MB |\n' \
		"$n" "$(label "$q")" "$fs" "$(echo "$fs / $bare" | bc -l)" "$((fk / 1024))" \
		"$ls" "$(echo "$ls / $bare" | bc -l)" "$((lk / 1024))"
done < "$dir/after"
echo
cat <<EOF2
The first report on both CPUs, as the goal has it (a fresh process on an
idle machine; the recordings' integrity checks run on the other CPU
beside the preparation): 5 rounds, each B then a first report (no
prepared run), neither pinned. Per size, the report's median and range
in seconds, and its median and range in the same round's B.

| commands a side | B, median | first report, median | range | in B, median | range in B | RSS, at most |
|---:|---:|---:|---:|---:|---:|---:|
EOF2
# median and range of column C of the rounds of size N
col() {
	awk -v n="$1" '$1 == n' "$dir/free" | awk "{ print $2 }" | sort -g |
		awk '{ v[NR] = $1 } END { printf "%s %s %s", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
for n in $(awk '{ print $1 }' "$dir/free" | uniq); do
	set -- $(col "$n" '$2') $(col "$n" '$3') $(col "$n" '$3 / $2') $(col "$n" '$4')
	printf '| %s | %.2f s | %.2f s | %.2f to %.2f s | %.1f | %.1f to %.1f | %d MB |\n' \
		"$n" "$1" "$4" "$5" "$6" "$7" "$8" "$9" "$((${12} / 1024))"
done
echo
