#!/bin/sh
# Tests of `ntprof compare` on generated runs (tests/ntprof-gen):
# - a run whose storage takes 5 us longer than the base's (-M 5000): compare
#   must name storage as the stage that moved, its difference within reach
#   of 5 us, and no other stage beyond noise;
# - two runs of the same distribution: no stage moved beyond noise;
# - the numbers are each run's own: every stage mean, and the end-to-end p99,
#   are what `ntprof report` prints for that run alone (a host joined with
#   another run's target would change them);
# - host-only runs, a mixed comparison, and bad input.
# - the views in plain sqlite3 (compare --sql).
# Run from the repository root after `make`.
set -u
top=$(pwd)
NTPROF=${NTPROF:-$top/ntprof}
GEN=${GEN:-$top/tests/ntprof-gen}
dir=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-compare-XXXXXX")
trap 'rm -rf "$dir"' EXIT
TEST=compare_test
. "$top/tests/testlib.sh"
cd "$dir" || exit 1

# One second of 4 KiB reads at qd 1 each, about 10,000 commands per run.
# The seeds are ten apart, so the runs were recorded ten seconds apart
# (ntprof-gen starts each seed a second later): a host joined with another
# run's target would be warned of, and pair with nothing.
"$GEN" -o base-h.db -t base-t.db -n 1 -x 11 || { echo "FAIL: generator"; exit 1; }
"$GEN" -o same-h.db -t same-t.db -n 1 -x 21 || exit 1
"$GEN" -o slow-h.db -t slow-t.db -n 1 -x 31 -M 5000 || exit 1
"$GEN" -o h1.db -n 1 -x 41 || exit 1
"$GEN" -o h2.db -n 1 -x 51 || exit 1

# starred FILE: the labels of the rows marked beyond noise, one line
starred() { grep -E '\]\*' "$1" | sed -E 's/  +.*//' | tr '\n' ';'; }

# 1. A known change in one stage.
"$NTPROF" compare --label base,slow base-h.db,base-t.db slow-h.db,slow-t.db > slow.txt 2> err.txt
expect "compare slow: exit" $? 0
expect "compare slow: stderr" "$(cat err.txt)" ""
expect "compare slow: rows beyond noise" "$(starred slow.txt)" \
	"storage (target block layer and drive);end to end;"
grep -q '^slow vs base: storage (target block layer and drive) moved most, ' slow.txt && ok ||
	bad "compare slow: storage not named as moved: $(tail -2 slow.txt)"
# The difference and its interval: the known 5 us lies within two of the
# interval's half widths of the difference (the interval itself misses the
# true value 5 % of the time; twice its width, practically never).
line=$(grep '^storage' slow.txt)
echo "$line" | awk '{ d = $(NF - 2); lo = $(NF - 1); hi = $NF;
	gsub(/[\[,]/, "", lo); gsub(/[\]*]/, "", hi); h = (hi - lo) / 2;
	exit !(h > 0 && h < 0.5 && (d - 5) ^ 2 <= 4 * h * h && lo > 0) }' && ok ||
	bad "compare slow: storage's difference is not 5 us within its interval: $line"
# The interval's width from the generator's parameters alone: a storage
# time is a constant plus an exponential tail of mean 4 us, so its standard
# deviation is 4 us in both runs, and the 95 % half width is
# 1.96 x 4 x sqrt(1/n1 + 1/n2) us (the sample deviations of ~10,000 draws
# are within a few % of it).
n=$(sed -nE 's/^commands +([0-9]+) +([0-9]+)$/\1 \2/p' slow.txt)
echo "$line $n" | awk '{ lo = $(NF - 3); hi = $(NF - 2); n1 = $(NF - 1); n2 = $NF;
	gsub(/[\[,]/, "", lo); gsub(/[\]*]/, "", hi);
	want = 1.96 * 4 * sqrt(1 / n1 + 1 / n2); r = (hi - lo) / 2 / want;
	exit !(n1 > 5000 && n2 > 5000 && r > 0.9 && r < 1.1) }' && ok ||
	bad "compare slow: storage's interval is not 1.96 standard errors wide: $line (n $n)"

# Every stage mean and the end-to-end p99 of each run are the report's for
# that run alone (the report computes stage means as sums of component
# totals over the group's commands; compare from each command's stages).
# report_means REPORT: "label mean" per stage, and "end to end" mean and p99
report_means() {
	sed -nE 's/^  ([a-z].*[a-z)]) +([0-9]+\.[0-9]{2}) +[0-9]+% .*/\1|\2/p' "$1"
	sed -nE 's/^latency \(us\): mean ([0-9.]+), p50 [0-9.]+, p99 ([0-9.]+),.*/end to end|\1|\2/p' "$1"
}
# compare_means TABLE COLUMN: the same from compare's column of a run (1, 2):
# cells are two spaces or more apart, a run after the first has three
compare_means() {
	awk -v c="$2" '/^(host|network|target|storage|end to end)/ {
		split($0, f, /  +/); i = c == 1 ? 2 : 3 * c - 2;
		if (f[1] == "end to end") print f[1] "|" f[i] "|" f[i + 1];
		else print f[1] "|" f[i] }' "$1"
}
for run in base:1 slow:2; do
	name=${run%:*} col=${run#*:}
	"$NTPROF" report $name-h.db $name-t.db > report-$name.txt || bad "report $name"
	report_means report-$name.txt | sort > want-$name.txt
	compare_means slow.txt $col | grep -v '^$' | sort > got-$name.txt
	if [ "$(wc -l < want-$name.txt)" -ge 6 ] && cmp -s want-$name.txt got-$name.txt; then
		ok
	else
		bad "compare's means for $name differ from its report's"
		diff want-$name.txt got-$name.txt >&2
	fi
done

# The views run in plain sqlite3 over compare's set-up (--sql), and the
# statistics' faster builder (compare.sql, _ntp_cache_build), which ntprof
# compare runs, gives the view's rows.
"$NTPROF" compare --sql --label base,slow base-h.db,base-t.db slow-h.db,slow-t.db > setup.sql
Q="SELECT run, op, bytes, kind, item, n, printf('%.6f', mean_ns), printf('%.3f', var_ns2),
  p50_ns, p99_ns FROM ntp_compare_stage ORDER BY 1, 2, 3, 4, 5;"
sqlite3 :memory: ".read setup.sql" ".mode list" \
	"SELECT sql FROM _ntp_cache_build WHERE name = 'ntp_compare_stage';" > build.sql
{ cat setup.sql build.sql; echo "DROP VIEW ntp_compare_stage;
	CREATE TEMP VIEW ntp_compare_stage AS SELECT * FROM _ntp_compare_stage_cache;$Q"; } |
	sqlite3 :memory: > built.txt 2>&1
{ cat setup.sql; echo "$Q"; } | sqlite3 :memory: > view.txt 2>&1
if [ "$(wc -l < view.txt)" -ge 20 ] && grep -q '^slow|read|4096|stage|storage|' view.txt &&
   cmp -s built.txt view.txt; then
	ok
else
	bad "compare --sql: the builder's statistics differ from the view's in sqlite3"
	diff built.txt view.txt | head -5 >&2
fi

# 2. The same distribution, another seed: nothing beyond noise. The
# generator is deterministic, so this is too; a 95 % interval per row
# still calls about one pair of seeds in four noisy somewhere (seven rows),
# so these seeds were not chosen for passing: they are the first tried.
"$NTPROF" compare base-h.db,base-t.db same-h.db,same-t.db > same.txt 2> err.txt
expect "compare same: exit" $? 0
expect "compare same: stderr (runs apart are not warned of)" "$(cat err.txt)" ""
expect "compare same: rows beyond noise" "$(starred same.txt)" ""
grep -q '^same-h.db vs base-h.db: no stage moved beyond noise$' same.txt && ok ||
	bad "compare same: $(tail -2 same.txt)"

# The same, robust to any choice of seeds: five runs of one workload (ten
# recordings, as many as SQLite attaches), four compared with the first
# over six rows each. Each interval misses 5 % of the time, so about 1.2 of
# the 24 are marked; 6 or more happen with a chance under 1 in 500 (even
# with end to end following storage), unless the intervals are too narrow.
set --
for k in 1 2 3 4 5; do
	"$GEN" -o r$k-h.db -t r$k-t.db -n 0.5 -x $((200 + 10 * k)) || bad "generator r$k"
	set -- "$@" r$k-h.db,r$k-t.db
done
"$NTPROF" compare "$@" > five.txt 2> err.txt
expect "compare five runs: exit" $? 0
marked=$(grep -E '^(host|network|target|storage|end to end)' five.txt | grep -o '\]\*' | wc -l)
rows=$(grep -E '^(host|network|target|storage|end to end)' five.txt | grep -o ' \[' | wc -l)
[ "$rows" -eq 24 ] && [ "$marked" -le 5 ] && ok ||
	bad "compare five runs: $marked of $rows differences beyond noise"

# 3. Host-only runs (two hosts alone were refused by report) and a mixed
# comparison: the host's own stages; a stage one run lacks is '-'.
"$NTPROF" compare h1.db h2.db > hosts.txt 2> err.txt
expect "compare hosts: exit" $? 0
grep -Eq '^network and target \(not recorded\) +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+  [+-]' hosts.txt &&
	ok || bad "compare hosts: no host-only stage row"
"$NTPROF" compare -g READ -d base-h.db,base-t.db h1.db > mixed.txt 2> err.txt
expect "compare mixed: exit" $? 0
grep -Eq '^network \(TCP/IP, NICs, wire\) +[0-9.]+ +[0-9.]+ +- +- +-$' mixed.txt && ok ||
	bad "compare mixed: network row: $(grep '^network (' mixed.txt)"
grep -q '^storage: target block layer and drive ' mixed.txt && ok ||
	bad "compare mixed: --detail has no components"

# 4. Bad input: a clear one-line error naming the argument, no table.
# expect_fail NAME STATUS PATTERN CMD...
expect_fail() {
	name=$1 status=$2 pattern=$3
	shift 3
	"$@" > out.txt 2> err.txt
	rc=$?
	if [ $rc -ne "$status" ]; then bad "$name: exit $rc, expected $status"; cat err.txt >&2
	elif [ -s out.txt ]; then bad "$name: printed a table anyway"
	elif ! head -1 err.txt | grep -q -- "$pattern"; then bad "$name: '$(head -1 err.txt)'"
	else ok; fi
}
expect_fail "one run" 2 "^ntprof compare: one run given: compare needs two runs or more$" \
	"$NTPROF" compare base-h.db,base-t.db
expect_fail "three files" 2 "^ntprof compare: 'a.db,b.db,c.db': expected HOST.db or HOST.db,TARGET.db$" \
	"$NTPROF" compare h1.db a.db,b.db,c.db
expect_fail "empty target" 2 "^ntprof compare: 'h1.db,': expected HOST.db" \
	"$NTPROF" compare h1.db, h2.db
expect_fail "target first" 1 "^ntprof compare: base-t.db: a target recording where run base-t.db's host should be" \
	"$NTPROF" compare base-t.db,base-h.db h1.db
expect_fail "host for target" 1 "^ntprof compare: h2.db: a host recording where run h1.db's target should be" \
	"$NTPROF" compare h1.db,h2.db base-h.db
expect_fail "eleven files" 2 "^ntprof compare: 'x6.db,y6.db': more than 10 recordings: SQLite attaches at most 10 at once (ntprof merge brings a run's into one file)$" \
	"$NTPROF" compare x1.db,y1.db x2.db,y2.db x3.db,y3.db x4.db,y4.db x5.db,y5.db x6.db,y6.db
expect_fail "labels" 2 "^ntprof compare: --label 'a': expected 2 names, one per run$" \
	"$NTPROF" compare --label a h1.db h2.db
expect_fail "label twice" 2 "^ntprof compare: --label 'a,a': 'a' twice$" \
	"$NTPROF" compare --label a,a h1.db h2.db
expect_fail "no such group" 1 "^ntprof compare: no I/O group's name contains 'write'$" \
	"$NTPROF" compare -g write h1.db h2.db
expect_fail "missing file" 1 "^ntprof compare: nothere.db: cannot open" \
	"$NTPROF" compare h1.db nothere.db
expect_fail "one file twice" 1 "given twice" "$NTPROF" compare h1.db h1.db

finish
