#!/bin/sh
# Tests of `ntprof merge` and of runs with more recordings than SQLite
# attaches (10), on a generated cluster: 16 hosts sharing two targets
# (tests/ntprof-gen -t twice: host i is served by target i mod 2 only).
# - merge writes one file and leaves the recordings byte for byte as they
#   were; the report over it is the report over the 18 files given directly
#   (merged on the fly into a temporary file, which is gone afterwards);
# - over more than 4 hosts the report is the fleet summary: per group a
#   total over every host's commands, exactly the pooled values of the
#   export's command rows (not averages of the hosts' own), then a row per
#   host, as text, JSON and CSV; --per-host, -g and -d give the sections;
# - every host's commands are paired with its own target, and (no record
#   lost, the target recording longer than the hosts) nearly all of them;
# - over 10 files or fewer, the report over the files themselves and over
#   their merge are the same bytes, as text, JSON and CSV;
# - compare of two merged runs finds the stage the generator slowed;
# - ntprof-shell and plain sqlite3 (--sql) read the merged file; an export
#   as CSV and as JSON lines loads back with the same counts and sums;
# - bad input: a merged file merged again, an output that exists, a host of
#   another run, a file given twice, a merged file with other files.
# Run from the repository root after `make`.
set -u
top=$(pwd)
NTPROF=${NTPROF:-$top/ntprof}
SHELL_BIN=${SHELL_BIN:-$top/ntprof-shell}
GEN=${GEN:-$top/tests/ntprof-gen}
dir=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-merge-XXXXXX")
# Prepared runs (lib/cache.c) in the test's directory: the cache is on, as
# for users, and never the user's own; a long preparation's note on stderr
# is tested in cache_test.sh, not here.
export NTPROF_CACHE_DIR="$dir/cache" NTPROF_PREPARE_NOTE_AFTER=3600
trap 'rm -rf "$dir"' EXIT
TEST=merge_test
. "$top/tests/testlib.sh"
cd "$dir" || exit 1
mkdir tmp a b
# the temporary merged files go here: it must be empty after each command
export TMPDIR="$dir/tmp"

# gen DIR SEED [OPTION...]: 16 hosts h1..h16 and targets t1, t2 in DIR, half
# a second of 4 KiB reads at 2,000 commands/s per host
gen() {
	_d=$1 _seed=$2
	shift 2
	set -- "$@" -t "$_d/t1.db" -t "$_d/t2.db"
	for _i in $(seq 1 16); do set -- "$@" -o "$_d/h$_i.db"; done
	"$GEN" -n 0.5 -r 2000 -x "$_seed" "$@"
}
gen a 3 || { echo "FAIL: generator"; exit 1; }
gen b 13 -M 5000 || exit 1
hosts=$(for i in $(seq 1 16); do printf 'a/h%d.db ' "$i"; done)
sha256sum a/*.db > sums
ls a > files.before

# no_tmp WHAT: nothing left in TMPDIR
no_tmp() { [ -z "$(ls -A tmp)" ] && ok || bad "$1: left $(ls -A tmp) in TMPDIR"; }

# 1. Merge the cluster; the inputs are not changed, nothing is made beside them.
# shellcheck disable=SC2086
"$NTPROF" merge -o run.ntp $hosts a/t1.db a/t2.db 2> err.txt
expect "merge: exit" $? 0
expect "merge: stderr" "$(cat err.txt)" ""
sha256sum -c --quiet sums && ok || bad "merge changed its inputs"
ls a > files.after
cmp -s files.before files.after && ok || bad "merge left files beside its inputs"
expect "merged file's recordings" \
	"$(sqlite3 run.ntp 'SELECT count(*), sum(role = "host"), sum(role = "target") FROM ntp_merged_recording')" \
	"18|16|2"

# 2. The report over the merged file is the report over the 18 files.
"$NTPROF" report run.ntp > merged.txt 2> err.txt
expect "report run.ntp: exit" $? 0
# shellcheck disable=SC2086
"$NTPROF" report $hosts a/t1.db a/t2.db > direct.txt 2> err2.txt
expect "report 18 files: exit" $? 0
expect "report 18 files: stderr" "$(cat err2.txt)" ""
[ "$(grep -c '^== read 4KiB, 16 hosts: ' direct.txt)" -eq 1 ] && cmp -s merged.txt direct.txt && ok ||
	bad "report over 18 files differs from the report over their merge"
no_tmp "report over 18 files"
# The shell's .timeline over a merged file reads each command's end to
# end through its views; over the files themselves, from their pages
# (ntp_e2e_series, sql/native.sql): the same rows, and .slowest's.
"$NTPROF" merge -o two.ntp a/h1.db a/h2.db a/t1.db 2> err.txt
"$SHELL_BIN" -c '.timeline 100ms' -c '.slowest 3' two.ntp > tl-merged.txt 2>> err.txt
"$SHELL_BIN" -c '.timeline 100ms' -c '.slowest 3' a/h1.db a/h2.db a/t1.db > tl-direct.txt \
	2>> err.txt
[ "$(wc -l < tl-merged.txt)" -gt 20 ] && cmp -s tl-merged.txt tl-direct.txt && [ ! -s err.txt ] &&
	ok || { bad "the shell's .timeline and .slowest: a merged file's differ from its files'"
		cat err.txt >&2; }

# 2b. The fleet summary (more than 4 hosts): a total per group, then a row
# per host; its totals are the pooled values of every host's commands.
expect "summary: sections" "$(grep -c '^== ' merged.txt)" 1
expect "summary: a row per host" "$(grep -cE '^  gen-host[0-9]+ +[0-9]+ +[0-9]+ ' merged.txt)" 16
expect "summary: the hosts line" "$(head -1 merged.txt)" \
	"recorded on 16 hosts (kernel 6.1.0-synthetic), one command in 1 sampled"
"$NTPROF" report --json run.ntp > fleet.json || bad "report --json run.ntp"
"$NTPROF" report --csv run.ntp > fleet.csv || bad "report --csv run.ntp"
"$NTPROF" export run.ntp > commands.csv || bad "export run.ntp"
python3 - fleet.json commands.csv fleet.csv merged.txt <<'PY' && ok || bad "fleet summary's totals"
import csv, json, sys
from decimal import Decimal, ROUND_HALF_UP
rep = json.load(open(sys.argv[1]))
cmds = list(csv.DictReader(open(sys.argv[2], newline="")))
rows = list(csv.DictReader(open(sys.argv[3], newline="")))
text = open(sys.argv[4]).read()
assert rep["layout"] == "summary", rep["layout"]
def rank(v, q):  # ntprof's nearest rank, q in 1e-5 (docs/sql.md)
    return v[(len(v) * q + 99999) // 100000 - 1]
groups = {(g["hdb"], g["grp"]): g for g in rep["groups"]}
assert rep["fleet"] and len(groups) == 16, len(groups)
for f in rep["fleet"]:
    # every command of the group's mode, of every host, pooled
    c = [r for r in cmds if r["op"] == f["op"] and int(r["bytes"]) == f["bytes"]
         and r["mode"] == f["mode"]]
    e = sorted(int(r["e2e"]) for r in c)
    want = {"n": len(e), "mean_ns": sum(e) / len(e), "p50_ns": rank(e, 50000),
            "p99_ns": rank(e, 99000), "p999_ns": rank(e, 99900)}
    for k, v in want.items():
        assert abs(f["latency"][k] - v) <= 1e-9 * v, (f["name"], k, f["latency"][k], v)
    assert f["hosts"] == 16 == len({r["host"] for r in c}), f["hosts"]
    assert f["matched"] == len(e), f["matched"]
    for s in f["stages"]:
        v = sum(int(r[s["stage"]]) for r in c if r[s["stage"]] != "") / len(e)
        assert abs(s["mean_ns"] - v) <= 1e-9 * v, (f["name"], s, v)
    # its rows per host are their groups' own
    assert len(f["per_host"]) == 16
    for h in f["per_host"]:
        g = groups[(h["hdb"], h["grp"])]
        assert [h[k] for k in ("n", "mean_ns", "p99_ns")] == \
            [g["latency"][k] for k in ("n", "mean_ns", "p99_ns")], (h, g)
    # the CSV's fleet rows and the text are the JSON's numbers
    lr = [r for r in rows if r["section"] == "fleet_latency" and r["fleet"] == str(f["fleet"])]
    assert len(lr) == 1 and [int(lr[0][k]) for k in ("n", "p50_ns", "p99_ns", "p999_ns")] == \
        [want[k] for k in ("n", "p50_ns", "p99_ns", "p999_ns")], lr
    assert sum(r["section"] == "fleet_stage" and r["fleet"] == str(f["fleet"]) for r in rows) \
        == len(f["stages"])
    assert sum(r["section"] == "latency" and r["fleet"] == str(f["fleet"]) for r in rows) == 16
    # SQLite's printf rounds halves away from zero (docs/sql.md, Rounding)
    line = "latency (us): mean %s, p50 %s, p99 %s, p99.9 %s" % tuple(
        Decimal(repr(want[k] / 1e3)).quantize(Decimal("0.01"), ROUND_HALF_UP)
        for k in ("mean_ns", "p50_ns", "p99_ns", "p999_ns"))
    assert line in text, line
PY
# the layout: more than 4 hosts, unless --per-host, -g or -d; --summary
sub4=$(for i in 1 2 3 4; do printf 'a/h%d.db ' "$i"; done)
# shellcheck disable=SC2086
expect "4 hosts: sections" "$("$NTPROF" report $sub4 a/t1.db a/t2.db | grep -c '^== read 4KiB ')" 4
# shellcheck disable=SC2086
"$NTPROF" report $sub4 a/h5.db a/t1.db a/t2.db > sum5.txt || bad "report over 5 hosts"
# shellcheck disable=SC2086
n5=$("$NTPROF" report --per-host $sub4 a/h5.db a/t1.db a/t2.db |
	sed -nE 's/^== read 4KiB .*: ([0-9]+) commands sampled .*/\1/p' | paste -sd+ | bc)
expect "5 hosts: the summary" "$(grep '^== ' sum5.txt)" \
	"== read 4KiB, 5 hosts: $n5 commands sampled (from 10.1k commands/s), all with the target's side"
expect "--per-host: sections" "$("$NTPROF" report --per-host run.ntp | grep -c '^== read 4KiB ')" 16
expect "-g: sections" "$("$NTPROF" report -g gen-host3 run.ntp | grep -c '^== ')" 1
expect "-d: sections" "$("$NTPROF" report -d run.ntp | grep -c '^components, ')" 16
expect "--summary: one host" "$("$NTPROF" report --summary a/h1.db | grep -A1 '^== ')" \
	"== read 4KiB, 1 host: 1013 commands sampled (from 2.0k commands/s), host side only
$("$NTPROF" report a/h1.db | grep '^latency')"
expect "--json --per-host: no fleet" \
	"$("$NTPROF" report --json --per-host run.ntp | python3 -c 'import json, sys
r = json.load(sys.stdin); print(r["layout"], "fleet" in r, len(r["groups"]))')" "sections False 16"
expect "--summary -g: the fleet groups named" \
	"$("$NTPROF" report --summary --csv -g 'read 4' run.ntp | cut -d, -f1 | sort | uniq -c |
	awk '{ printf "%s %s; ", $1, $2 }')" "1 fleet_latency; 5 fleet_stage; 16 latency; 1 section; 80 stage; "
# the shell's .report: the same layouts
expect "shell .report: the summary" "$("$SHELL_BIN" -c '.report' run.ntp | grep -c '^== ')" 1
expect "shell .report --per-host" \
	"$("$SHELL_BIN" -c '.report --per-host' run.ntp | grep -c '^== read 4KiB ')" 16
expect_fail "--summary and --per-host" 2 "^ntprof report: --summary and --per-host: one layout at a time$" \
	"$NTPROF" report --summary --per-host run.ntp
expect_fail "--summary and -d" 2 "^ntprof report: --summary and --detail: the fleet summary has no components table" \
	"$NTPROF" report --summary -d run.ntp

# (the shell's csv lines end in CRLF, as sqlite3's .mode csv; sqlite3 -csv's in LF)

# Killed while it merges (SIGTERM: a background job of sh ignores SIGINT),
# the report and ntprof merge leave nothing behind.
# shellcheck disable=SC2086
"$NTPROF" report $hosts a/t1.db a/t2.db > /dev/null 2>&1 &
pid=$!
# shellcheck disable=SC2086
"$NTPROF" merge -o killed.ntp $hosts a/t1.db a/t2.db > /dev/null 2>&1 &
pid2=$!
sleep 0.5
kill -TERM $pid $pid2
wait $pid 2>/dev/null
expect "report killed: by SIGTERM" $? 143
wait $pid2 2>/dev/null
expect "merge killed: by SIGTERM" $? 143
no_tmp "report killed"
[ -e killed.ntp ] || [ -e killed.ntp-journal ] && bad "merge killed: left its output" || ok

# 3. Each host pairs with its own target, and nearly every command pairs.
# ntprof-gen names host i gen-host(i-1), targets gen-target and gen-target1:
# the target that serves gen-hostK is number K mod 2.
"$SHELL_BIN" -csv -noheader -c "SELECT h.hostname, t.hostname, count(*)
	FROM ntp_joined AS j JOIN ntp_db AS h ON h.db = j.hdb JOIN ntp_db AS t ON t.db = j.tdb
	GROUP BY 1, 2 ORDER BY 1, 2;" run.ntp | tr -d '\r' > pairs.csv
wrong=$(awk -F, '{ k = substr($1, 9) % 2; want = k ? "gen-target1" : "gen-target";
	if ($2 != want) print }' pairs.csv)
expect "pairs with the wrong target" "$wrong" ""
expect "hosts paired" "$(wc -l < pairs.csv)" 16
# each host's matched commands against its recording's own count of commands
i=0
for h in $hosts; do
	n=$(sqlite3 "$h" 'SELECT count(*) FROM cmd')
	name=$(sqlite3 "$h" 'SELECT hostname FROM meta')
	m=$(awk -F, -v h="$name" '$1 == h { print $3 }' pairs.csv)
	[ -n "$m" ] && [ $((m * 1000)) -ge $((n * 995)) ] || bad "$h: $m of $n commands paired"
	i=$((i + 1))
done
[ $i -eq 16 ] && ok

# 4. Ten files or fewer: the files themselves and their merge, byte for byte.
# Exactly ten (eight hosts, two targets) once failed to open at all.
sub=$(for i in 1 2 3 4 5 6 7 8; do printf 'a/h%d.db ' "$i"; done)
# shellcheck disable=SC2086
"$NTPROF" merge -o sub.ntp $sub a/t1.db a/t2.db || bad "merge of ten files"
for fmt in "" "--json" "--csv -d -a"; do
	# shellcheck disable=SC2086
	"$NTPROF" report $fmt $sub a/t1.db a/t2.db > sub-direct.out 2> err.txt ||
		bad "report $fmt over ten files: $(cat err.txt)"
	# shellcheck disable=SC2086
	"$NTPROF" report $fmt sub.ntp > sub-merged.out || bad "report $fmt sub.ntp"
	[ -s sub-direct.out ] && cmp -s sub-direct.out sub-merged.out && ok ||
		bad "report $fmt: ten files and their merge differ"
done

# 5. Two merged runs compared: run b's storage takes 5 us longer (-M 5000).
# shellcheck disable=SC2086
(cd b && "$NTPROF" merge -o ../run-b.ntp $(for i in $(seq 1 16); do printf 'h%d.db ' "$i"; done) \
	t1.db t2.db) || bad "merge of run b"
"$NTPROF" compare --label a,b run.ntp run-b.ntp > compare.txt 2> err.txt
expect "compare merged runs: exit" $? 0
expect "compare merged runs: beyond noise" \
	"$(grep -E '\]\*' compare.txt | sed -E 's/  +.*//' | tr '\n' ';')" \
	"storage (target block layer and drive);end to end;"
grep -q '^b vs a: storage (target block layer and drive) moved most, p50 +[45]\.' compare.txt && ok ||
	bad "compare merged runs: $(tail -1 compare.txt)"
# each run's commands are its own: run a's count is its report's
n_a=$(sed -nE 's/^records: .*; ([0-9]+) matched .*/\1/p' merged.txt)
grep -Eq "^commands +$n_a +[0-9]+$" compare.txt && ok ||
	bad "compare: run a's commands are not its $n_a matched ones: $(grep ^commands compare.txt)"

# 6. The shell over 18 files (merged on the fly) and over the merged file,
# and plain sqlite3 over the set-up ntprof-shell --sql prints.
want=0
for h in $hosts; do want=$((want + $(sqlite3 "$h" 'SELECT count(*) FROM cmd'))); done
# shellcheck disable=SC2086
got=$("$SHELL_BIN" -csv -noheader -c 'SELECT count(*) FROM ntp_host_cmd;' $hosts a/t1.db a/t2.db |
	tr -d '\r')
expect "shell over 18 files: host commands" "$got" "$want"
no_tmp "shell over 18 files"
Q='SELECT count(*), sum(e2e), sum(wire) FROM ntp_joined;'
shell_q=$("$SHELL_BIN" -csv -noheader -c "$Q" run.ntp | tr -d '\r')
"$SHELL_BIN" --sql run.ntp > setup.sql
sql_q=$(sqlite3 -csv -cmd '.read setup.sql' :memory: "$Q" 2> err.txt)
[ -n "$shell_q" ] && [ "$shell_q" = "$sql_q" ] && ok ||
	bad "sqlite3 over --sql: '$sql_q', the shell '$shell_q' ($(head -1 err.txt))"
sha256sum run.ntp > run.sum

# 7. Export and load back (docs/fleet.md): CSV into sqlite3 with .import,
# JSON lines read by python; the counts and sums are the shell's.
Q='SELECT count(*), sum(e2e), sum(h_wait) FROM ntp_host_cmd'
want=$("$SHELL_BIN" -csv -noheader -c "$Q;" run.ntp | tr -d '\r')
"$SHELL_BIN" -csv -c 'SELECT * FROM ntp_host_cmd;' run.ntp > cmd.csv
got=$(sqlite3 -csv :memory: '.import --csv cmd.csv c' "$(echo "$Q" | sed 's/ntp_host_cmd/c/')")
expect "CSV export loaded by sqlite3" "$got" "$want"
"$SHELL_BIN" -jsonl -c 'SELECT * FROM ntp_host_cmd;' run.ntp > cmd.jsonl
got=$(python3 -c 'import json, sys
rows = [json.loads(l) for l in sys.stdin]
print("%d,%d,%d" % (len(rows), sum(r["e2e"] for r in rows),
      sum(r["h_wait"] for r in rows if r["h_wait"] is not None)))' < cmd.jsonl)
expect "JSON lines export read back" "$got" "$want"
expect "JSON lines: one object a line" "$(grep -cv '^{.*}$' cmd.jsonl)" 0
sha256sum -c --quiet run.sum && ok || bad "reading run.ntp changed it"

# 8. Bad input: one line naming the problem, no file left behind
# (expect_fail: tests/testlib.sh).
expect_fail "merge a merged file" 1 \
	"^ntprof merge: run.ntp: already a merged file; merge the recordings it was made from$" \
	"$NTPROF" merge -o again.ntp run.ntp a/t1.db
expect_fail "output exists" 1 "^ntprof merge: sub.ntp: exists; the merged file is written new$" \
	"$NTPROF" merge -o sub.ntp a/h1.db a/t1.db
expect_fail "a host of another run" 1 \
	"^ntprof merge: recordings of different runs: host2 and target were not recorded at the same time" \
	"$NTPROF" merge -o mixed.ntp a/h1.db b/h3.db a/t1.db a/t2.db
[ -e mixed.ntp ] && bad "a failed merge left its output" || ok
expect_fail "a file twice" 1 "^ntprof merge: ./a/h1.db: given twice (as a/h1.db too)" \
	"$NTPROF" merge -o twice.ntp a/h1.db ./a/h1.db a/t1.db
expect_fail "no output" 2 "^ntprof merge: -o OUT.ntp: the file to write is missing$" \
	"$NTPROF" merge a/h1.db a/t1.db
expect_fail "merged with others" 1 "^ntprof report: run.ntp: a merged file with other files" \
	"$NTPROF" report run.ntp a/h1.db
expect_fail "two merged files in a report" 1 "^ntprof report: run.ntp: a merged file with other files" \
	"$NTPROF" report run.ntp sub.ntp
expect_fail "a merged file as a run's target" 1 \
	"^ntprof compare: run-b.ntp: a merged file where run h1.db's target should be (a merged file is a run alone)$" \
	"$NTPROF" compare a/h1.db,run-b.ntp run.ntp
expect_fail "a target after a merged file" 1 \
	"^ntprof compare: b/t1.db: a file after run run.ntp's merged file (a merged file is a run alone)$" \
	"$NTPROF" compare run.ntp,b/t1.db run-b.ntp
# a merged file of an ntprof whose prelude had fewer views: named, refused
cp sub.ntp older.ntp && sqlite3 older.ntp 'DROP TABLE ntp_grp_lost' || bad "older.ntp"
expect_fail "a merged file without a table" 1 \
	"^ntprof report: older.ntp: a merged file without table ntp_grp_lost (merged by another version of ntprof: merge the recordings again)$" \
	"$NTPROF" report older.ntp
rm -f older.ntp
expect_fail "hosts alone" 1 "^ntprof merge: 2 host recordings and no target" \
	"$NTPROF" merge -o hosts.ntp a/h1.db a/h2.db
# shellcheck disable=SC2086
expect_fail "--sql over 18 files" 2 "^ntprof-shell: --sql: 18 files, sqlite3 attaches at most 10: merge them first" \
	"$SHELL_BIN" --sql $hosts a/t1.db a/t2.db
expect_fail "-jsonl and -csv" 2 "^ntprof-shell: -jsonl and -csv: one output mode at a time$" \
	"$SHELL_BIN" -jsonl -csv run.ntp
# a merged file written by an ntprof whose prelude had fewer views
cp sub.ntp old.ntp && sqlite3 old.ntp 'DROP TABLE ntp_interval'
expect_fail "a merged file of another version" 1 \
	"^ntprof report: old.ntp: a merged file without table ntp_interval (merged by another version of ntprof: merge the recordings again)$" \
	"$NTPROF" report old.ntp
no_tmp "bad input"
sha256sum -c --quiet sums && ok || bad "the tests changed the recordings"

finish
