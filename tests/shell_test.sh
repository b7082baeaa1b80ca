#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# ntprof-shell end to end: options, dot-commands, output modes, scripts,
# output files, errors and exit status, --sql in plain sqlite3, and the
# recordings left byte-identical. Run from the repository root after make:
#
#   sh tests/shell_test.sh
#
# NTPROF_SHELL and NTPROF_GEN override the binaries under test. Numbers from
# the generator are never assumed: the shell is compared with sqlite3.

BIN=${NTPROF_SHELL:-./ntprof-shell}
GEN=${NTPROF_GEN:-tests/ntprof-gen}

pass=0
fail=0

ok() {
	pass=$((pass + 1))
}

bad() {
	fail=$((fail + 1))
	echo "FAIL: $*" >&2
	if [ -s "$d/err" ]; then
		sed 's/^/  stderr: /' "$d/err" | head -5 >&2
	fi
}

for f in "$BIN" "$GEN"; do
	if [ ! -x "$f" ]; then
		echo "shell_test: $f: not built (run make first)" >&2
		echo "0 passed, 1 failed"
		exit 1
	fi
done

d=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-shell-test.XXXXXX") || exit 1
# Prepared runs (lib/cache.c) in the test's directory: the cache is on, as
# for users, and never the user's own; a long preparation's note on stderr
# is tested in cache_test.sh, not here.
export NTPROF_CACHE_DIR="$d/cache" NTPROF_PREPARE_NOTE_AFTER=3600
trap 'rm -rf "$d"' EXIT INT TERM

# run ARGS...: the shell's stdout in $d/out, stderr in $d/err, status in $rc.
run() {
	"$BIN" "$@" >"$d/out" 2>"$d/err"
	rc=$?
}

# run_in TEXT ARGS...: the same, with TEXT (printf format) on stdin.
run_in() {
	text=$1
	shift
	# shellcheck disable=SC2059
	printf "$text" | "$BIN" "$@" >"$d/out" 2>"$d/err"
	rc=$?
}

# expect_rc N WHAT
expect_rc() {
	if [ "$rc" -eq "$1" ]; then ok; else bad "$2: exit status $rc, expected $1"; fi
}

# expect_out STRING WHAT: stdout has the line fragment STRING.
expect_out() {
	if grep -qF -- "$1" "$d/out"; then ok; else bad "$2: stdout lacks '$1'"; fi
}

# expect_err STRING WHAT
expect_err() {
	if grep -qF -- "$1" "$d/err"; then ok; else bad "$2: stderr lacks '$1'"; fi
}

# expect_same FILE EXPECTED WHAT: FILE (CRs removed) is exactly EXPECTED.
expect_same() {
	got=$(tr -d '\r' <"$1")
	if [ "$got" = "$2" ]; then
		ok
	else
		bad "$3: got:
$got
expected:
$2"
	fi
}

H="$d/h.db"
T="$d/t.db"
SOLO="$d/solo.db"
if ! "$GEN" -o "$H" -t "$T" -s 1 -n 1 -r 2000 >"$d/gen.log" 2>&1 ||
   ! "$GEN" -o "$SOLO" -s 1 -n 1 -r 1000 >>"$d/gen.log" 2>&1; then
	echo "shell_test: $GEN failed:" >&2
	cat "$d/gen.log" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
cp "$H" "$d/h.copy" && cp "$T" "$d/t.copy" && cp "$SOLO" "$d/solo.copy" || exit 1

# ---- options ----

run --help
expect_rc 0 "--help"
expect_out "usage: ntprof-shell" "--help"
expect_out "Examples:" "--help"

run --version
expect_rc 0 "--version"
expect_out "ntprof-shell" "--version"

run
expect_rc 2 "no database"
expect_err "no database" "no database"

run --no-such-option "$H"
expect_rc 2 "unknown option"

run -c .groups "$d/missing.db"
expect_rc 1 "missing database"
expect_err "ntprof-shell: " "missing database"

# ---- -c and the report commands ----

run -c .groups "$H" "$T"
expect_rc 0 ".groups"
expect_out "read 4KiB nvme1n1" ".groups"
expect_out "joined" ".groups mode"

run -c .groups "$SOLO"
expect_rc 0 ".groups, host only"
expect_out "read 4KiB nvme1n1" ".groups, host only"

run -c 'SELECT 1 AS first;' -c '.mode csv' -c 'SELECT 2 AS second;' "$H" "$T"
expect_rc 0 "several -c"
expect_same "$d/out" "first
-----
    1
second
2" "several -c, in order"

run -c .stages -c '.components read' -c .percentiles -c .timeline -c .match -c .dbs \
	"$H" "$T"
expect_rc 0 "report commands"
for s in share_pct p999_us cmds_per_s matched_pct offset_ns sample_rate "$H"; do
	expect_out "$s" "report commands"
done

run -c '.timeline 0.5' -c '.stages read' "$H" "$T"
expect_rc 0 ".timeline 0.5, .stages GROUP"
# a GROUP that matches nothing is an error, not an empty table
for c in '.stages nothing-matches-this' '.slowest 2 nothing-matches-this' \
	'.timeline 1 nothing-matches-this' '.cdf nothing-matches-this e2e'; do
	run -c "$c" "$H" "$T"
	expect_rc 1 "$c"
	expect_err "no group has 'nothing-matches-this' in its name (.groups lists them)" "$c"
done
# a lone .hist argument that is no group's but a stage's is the stage
run -c '.hist network' "$H" "$T"
expect_rc 0 ".hist NAME"
expect_out "read 4KiB nvme1n1  network" ".hist NAME"

# ---- statistics: against a brute force from the raw tables ----

# every bucket of .timeline, .hist, .cdf, .slowest, .percentiles --stages,
# .queues, .tail and ntprof report --timeline, recomputed in Python from
# the stored points (tests/stats_check.py); joined, host-only, and with
# writes, R2T, target records lost, sampling and two queues
L="$d/loss.db"
LT="$d/loss-t.db"
if "$GEN" -o "$L" -t "$LT" -s 3 -n 1 -q 3 -Q 2 -w 0.4 -k 64 -L 0.1 -x 8 >"$d/gen.log" 2>&1; then
	for set in "$H $T" "$SOLO" "$L $LT"; do
		# shellcheck disable=SC2086
		if python3 tests/stats_check.py "${NTPROF:-./ntprof}" "$BIN" $set >"$d/out" 2>"$d/err"
		then ok; else bad "stats_check.py $set: $(tail -1 "$d/out")"; fi
	done
else
	bad "statistics: $GEN failed"
fi

# .slowest N [GROUP] picks its commands by the host's keys and computes
# only theirs: the first N rows of ntp_shell_slowest all the same (a
# group's, all of them, more than there are)
# slowest_same SET ARGS...: for each ARGS ("N [GROUP]"), .slowest ARGS on
# the files of SET gives ntp_shell_slowest's first rows
slowest_same() {
	_set=$1
	shift
	for a in "$@"; do
		# shellcheck disable=SC2086
		set -- $a
		# shellcheck disable=SC2086
		run -csv -c ".slowest $a" $_set
		cp "$d/out" "$d/slowest-dot.csv"
		# shellcheck disable=SC2086
		run -csv -c "SELECT * FROM ntp_shell_slowest WHERE '${2:-}' = ''
			OR \"group\" LIKE '%${2:-}%' LIMIT $1;" $_set
		if [ "$(wc -l <"$d/out")" -ge 1 ] && cmp -s "$d/out" "$d/slowest-dot.csv"; then
			ok
		else
			bad ".slowest $a on $_set: not ntp_shell_slowest's first rows"
			diff "$d/out" "$d/slowest-dot.csv" | head -5 >&2
		fi
	done
}
slowest_same "$H $T" "1" "7 read" "100000"
slowest_same "$SOLO" "1" "7 read" "100000"
slowest_same "$L $LT" "1" "7 read" "100000" "5 write"

run -c '.timeline 2 read' -c '.slowest 3 read' -c ".hist '' storage" -c '.cdf read network' \
	-c '.percentiles --stages read' -c '.report --timeline 1s read' "$H" "$T"
expect_rc 0 "statistics commands"
for s in "dt_s" "storage_us" "distribution" "fraction" "p90_us" \
	"time series: buckets of 1 s from each host's first command"; do
	expect_out "$s" "statistics commands"
done

# ntp_report_stage_stats three ways, the same rows: the portable view, its
# faster builder (stats.sql; --portable's .percentiles --stages computes it
# once by it, into TEMP or the prepared run's file) and native.sql's form
# over ntp_dist (the default session's, which .percentiles --stages
# caches), on a joined recording, a host's alone, and one with writes,
# R2T, sampling and lost target records
for set in "$H $T" "$SOLO" "$L $LT"; do
	# shellcheck disable=SC2086
	run --portable -csv -c '.once '"$d/stage-view.csv" -c 'SELECT * FROM ntp_report_stage_stats;' \
		-c '.once /dev/null' -c '.percentiles --stages' \
		-c '.once '"$d/stage-cache.csv" -c 'SELECT * FROM ntp_report_stage_stats;' \
		-c "SELECT count(*) FROM pragma_table_list WHERE name = '_ntp_report_stage_stats_cache';" $set
	# shellcheck disable=SC2086
	"$BIN" -csv -c '.percentiles --stages' -c '.once '"$d/stage-native.csv" \
		-c 'SELECT * FROM ntp_report_stage_stats;' $set > /dev/null 2>&1
	if [ "$rc" -eq 0 ] && [ "$(wc -l < "$d/stage-view.csv")" -ge 5 ] &&
	   cmp -s "$d/stage-view.csv" "$d/stage-cache.csv" &&
	   cmp -s "$d/stage-view.csv" "$d/stage-native.csv" && [ "$(tail -1 "$d/out" | tr -d '\r')" = 1 ]
	then ok; else bad ".percentiles --stages: the stage statistics differ ($set)"; fi
done

# losses on the timeline: counted per interval of the recording, in the
# bucket where the interval ends, with their causes; a bucket with losses
# and no command has a row of its own
cp "$H" "$d/lost.db" &&
	sqlite3 "$d/lost.db" "INSERT INTO lost VALUES (1, 1, 30), (1, 2, 5), (2, 1, 7)" ||
	bad "lost.db"
run -csv -c '.timeline 0.5' "$d/lost.db"
expect_rc 0 ".timeline with losses"
expect_out "db,t_s,dt_s,group,sampled,cmds_per_s,mean_us,p99_us,qd,lost,lost_causes" \
	".timeline with losses: header"
tr -d '\r' < "$d/out" > "$d/lost.csv"
if [ "$(grep -c ',0,$' "$d/lost.csv")" -eq 1 ] &&
   [ "$(grep -c ',35,"ring_full 30, batch_overflow 5"$' "$d/lost.csv")" -eq 1 ] &&
   grep -q '^host,1.5,0.5,"",0,0.0,,,,7,"ring_full 7"$' "$d/lost.csv" &&
   [ "$(wc -l < "$d/lost.csv")" -eq 4 ]
then ok; else bad ".timeline with losses: $(cat "$d/lost.csv")"; fi

run -c '.timeline 1x' "$H"
expect_rc 1 ".timeline junk"
expect_err ".timeline: '1x': expected a width such as 1s, 500ms or 0.5 (seconds)" ".timeline junk"
run -c '.hist read t_nothing' "$H"
expect_rc 1 ".hist unknown name"
expect_err "ntprof-shell: .hist: 't_nothing': not a component or stage name" ".hist unknown name"
run -c '.slowest 0' "$H"
expect_rc 1 ".slowest 0"
expect_err ".slowest: '0': expected a number of commands" ".slowest 0"
run -c '.report --timeline' "$H"
expect_rc 1 ".report --timeline without WIDTH"
expect_err ".report: --timeline: missing WIDTH" ".report --timeline without WIDTH"

run -c '.report' "$H" "$T"
expect_rc 0 ".report"
if [ -s "$d/out" ]; then ok; else bad ".report: no output"; fi

run -c '.tables ntp_report%' -c '.schema ntp_offset' -c .help -c '.help mode' -c .sql "$H" "$T"
expect_rc 0 "schema and help commands"
expect_out "ntp_report_stage" ".tables"
expect_out "CREATE VIEW ntp_offset" ".schema"
expect_out ".report [--detail] [--all] [--strict] [--summary | --per-host] [--timeline WIDTH] [GROUP]" ".help"
expect_out "ATTACH" ".sql"

# Every name .mode takes (its error lists them from the one table) is one
# .mode takes, and one .help names.
run -c '.mode nosuch' "$H"
modes=$(sed -n "s/.*unknown mode 'nosuch' (\(.*\))$/\1/p" "$d/err" | tr -d ',')
[ -n "$modes" ] && ok || bad ".mode nosuch: no list of modes: $(cat "$d/err")"
run -c '.help mode' "$H"
for m in $modes; do
	"$BIN" -c ".mode $m" "$H" > /dev/null 2>&1 && grep -q "[[|]$m[]|]" "$d/out" && ok ||
		bad ".mode $m: not taken, or not in '.help mode': $(cat "$d/out")"
done
# sqlite3's own prefixes keep their command: .ta lists tables, .q quits;
# another shared prefix is refused, naming the commands.
run -c '.ta ntp_report_tail' -c .q -c '.groups' "$H"
expect_rc 0 ".ta, .q"
expect_out "ntp_report_tail" ".ta"
grep -q "^read" "$d/out" && bad ".q did not quit: .groups ran after it" || ok
run -c '.qu' "$H"
expect_err ".qu: ambiguous command (.queues, .quit)" ".qu"
# Every dot-command .help lists is in the man page and in docs/shell.md.
run -c .help "$H"
for c in $(sed -n 's/^\.\([a-z]*\).*/\1/p' "$d/out"); do
	grep -Eq "^\.B[IR]* \"?\.$c\b|^\.BR \.[a-z]+ \", \" \.$c\b" man/ntprof-shell.1 && ok ||
		bad ".$c: in .help, not in man/ntprof-shell.1"
	grep -q "\`\.$c\b" docs/shell.md && ok || bad ".$c: in .help, not in docs/shell.md"
done

# ---- a script on standard input ----

run_in '.mode csv\n-- a comment\nSELECT 1 AS a,\n  2 AS b\n;\nSELECT 3 AS c; SELECT 4 AS d;\n' "$H" "$T"
expect_rc 0 "stdin script"
expect_same "$d/out" "a,b
1,2
c
3
d
4" "stdin script, multi-line SQL"

run_in '.bogus\nSELECT 5 AS five;\n' "$H" "$T"
expect_rc 1 "script with an error"
expect_err ".bogus" "script with an error"
expect_err "stdin:1" "script error names its line"
expect_out "5" "script goes on after an error"

run_in 'SELECT 6 AS six;\n.quit\nSELECT 7 AS seven;\n' "$H" "$T"
expect_rc 0 ".quit"
if grep -q seven "$d/out"; then bad ".quit: kept reading"; else ok; fi

# ---- output modes ----

Q="SELECT 1 AS n, 'x' AS s, NULL AS z, 2.5 AS r UNION ALL SELECT 22, 'a,\"b\"', 3, 0.1;"

run -c '.mode table' -c "$Q" "$H"
expect_same "$d/out" " n  s      z    r
--  -----  -  ---
 1  x         2.5
22  a,\"b\"  3  0.1" ".mode table"

run -c '.mode csv' -c "$Q" "$H"
expect_same "$d/out" 'n,s,z,r
1,x,,2.5
22,"a,""b""",3,0.1' ".mode csv"

run -c '.mode line' -c "SELECT 1 AS a, 22 AS bbb UNION ALL SELECT 3, NULL;" "$H"
expect_same "$d/out" "  a = 1
bbb = 22

  a = 3
bbb = " ".mode line"

# Python: the JSON documents one after another in TEXT (json mode prints
# one per statement)
JSON_DOCS='
import json, sys
def json_docs(text):
    dec, docs, i = json.JSONDecoder(), [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        v, i = dec.raw_decode(text, i)
        docs.append(v)
    return docs
'

run -c '.mode json' -c "$Q" -c .stages -c "SELECT 1 WHERE 0;" "$H" "$T"
expect_rc 0 ".mode json"
if python3 -c "$JSON_DOCS"'
docs = json_docs(sys.stdin.read())
assert len(docs) == 3, docs
assert docs[0] == [{"n": 1, "s": "x", "z": None, "r": 2.5},
                   {"n": 22, "s": "a,\"b\"", "z": 3, "r": 0.1}], docs[0]
assert docs[1] and all("share_pct" in r for r in docs[1]), docs[1]
assert docs[2] == []
' <"$d/out"; then ok; else bad ".mode json: not the expected JSON"; fi

run -c .stages -c '.mode json' -c .stages "$H" "$T"
sed -n '/^\[/,$p' "$d/out" >"$d/json"
if python3 -c 'import json,sys; json.load(sys.stdin)' <"$d/json"; then
	ok
else
	bad ".stages in json mode does not parse"
fi

run -c '.headers off' -c "SELECT 1 AS n, 'x' AS s;" -c '.mode csv' -c "SELECT 2 AS n;" "$H"
expect_same "$d/out" "1  x
2" ".headers off"

run -c '.mode xml' "$H"
expect_rc 1 ".mode xml"
expect_err ".mode: unknown mode 'xml'" ".mode xml"

# ---- output files ----

run -c ".output $d/o.txt" -c 'SELECT 41 AS v;' -c '.output' -c 'SELECT 42 AS w;' "$H"
expect_rc 0 ".output"
expect_same "$d/o.txt" " v
--
41" ".output FILE"
expect_same "$d/out" " w
--
42" ".output back to stdout"

run -c ".once $d/once.txt" -c 'SELECT 43 AS v;' -c 'SELECT 44 AS w;' "$H"
expect_rc 0 ".once"
expect_same "$d/once.txt" " v
--
43" ".once FILE"
expect_same "$d/out" " w
--
44" ".once: the command after goes to stdout"

run -c ".output $H" -c 'SELECT 1;' "$H" "$T"
expect_rc 1 ".output onto a recording"
expect_err "refused" ".output onto a recording"

run -c ".once $T" "$H" "$T"
expect_rc 1 ".once onto a recording"

ln -s "$H" "$d/link.db"
# a file beside a recording that SQLite would read: refused by name,
# nothing created
run -c ".once $H-wal" -c 'SELECT 1;' "$H" "$T"
expect_rc 1 ".once onto a recording's -wal"
[ ! -e "$H-wal" ] && ok || bad ".once onto a recording's -wal created it"
run -c ".output $d/./t.db-journal" "$H" "$T"
expect_rc 1 ".output onto a recording's -journal"
[ ! -e "$T-journal" ] && ok || bad ".output onto a recording's -journal created it"

run -c ".output $d/link.db" "$H" "$T"
expect_rc 1 ".output through a symlink"

ln "$H" "$d/hard.db" 2>/dev/null && {
	run -c ".output $d/hard.db" "$H" "$T"
	expect_rc 1 ".output onto a hard link of a recording"
}

# ---- errors ----

run -c '.bogus' "$H"
expect_rc 1 "unknown dot-command"
expect_err "ntprof-shell: .bogus: unknown command" "unknown dot-command"

run -c 'SELECT * FROM no_such_table;' "$H"
expect_rc 1 "bad SQL"
expect_err "no such table: no_such_table" "bad SQL"

run -c 'SELECT 1 AS a;' -c 'SELEKT 2;' -c 'SELECT 3 AS third;' "$H"
expect_rc 1 "-c goes on after an error"
expect_out "third" "-c goes on after an error"

run -c 'CREATE TABLE host.x (a);' "$H"
expect_rc 1 "writing to a recording"

run -c "ATTACH '$d/h.copy' AS w;" "$H"
expect_rc 1 "ATTACH from the shell"
expect_err "not authorized" "ATTACH from the shell"

# a FIFO given as a recording: refused at once, not waited on
mkfifo "$d/fifo.db"
timeout 10 "$BIN" -c 'SELECT 1;' "$d/fifo.db" >"$d/out" 2>"$d/err"
rc=$?
expect_rc 1 "a FIFO as a recording"
expect_err "not a regular file" "a FIFO as a recording"

# A recording left in WAL mode (its collector killed): read from a private
# copy with the WAL folded in, said on stderr, nothing made beside it; a
# WAL that changes the schema version is checked like the file.
mkdir "$d/wal"
cp "$H" "$d/wal/h.db"
# leave_wal DB SQL: run SQL in WAL mode and exit without closing
leave_wal() {
	python3 -c 'import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA journal_mode=WAL")
c.execute("PRAGMA wal_autocheckpoint=0")
c.executescript(sys.argv[2])
os._exit(0)' "$1" "$2" && rm -f "$1-shm"
}
leave_wal "$d/wal/h.db" "BEGIN; INSERT INTO cmd SELECT t + 1, grp, qid, cid, slba, h_start, h_queue,
	h_sent, h_r2t_rx, h_data_sent, h_rx, h_rx_drv, h_cqe, h_complete, h_end FROM cmd
	ORDER BY t DESC LIMIT 1; COMMIT;"
want=$(( $(sqlite3 "$H" 'SELECT count(*) FROM cmd') + 1 ))
run -c '.mode csv' -c 'SELECT count(*) FROM host.cmd;' "$d/wal/h.db"
expect_rc 0 "a recording with a -wal"
expect_same "$d/out" "count(*)
$want" "a recording with a -wal: the WAL's rows are read"
expect_err "was not closed" "a recording with a -wal"
expect_same_ls() { got=$(ls "$d/wal" | tr '\n' ' '); [ "$got" = "$1" ] && ok || bad "$2: $got"; }
expect_same_ls "h.db h.db-wal " "nothing made beside a recording with a -wal"
cp "$H" "$d/wal/v.db"
leave_wal "$d/wal/v.db" "PRAGMA user_version = 99;"
run -c 'SELECT 1;' "$d/wal/v.db"
expect_rc 1 "a -wal that changes the schema version"
expect_err "schema version 99" "a -wal that changes the schema version"

# The same recording twice: by another path, or a copy of it.
run -c 'SELECT 1;' "$H" "$d/./h.db" "$T"
expect_rc 1 "the same file under two paths"
expect_err "given twice" "the same file under two paths"
cp "$H" "$d/h2.db"
run -c 'SELECT 1;' "$H" "$d/h2.db" "$T"
expect_rc 1 "a copy of a recording with it"
expect_err "the same recording twice" "a copy of a recording with it"
rm -f "$d/h2.db"

# meta must agree with the schema
cp "$H" "$d/m.db"
sqlite3 "$d/m.db" "UPDATE meta SET schema_version = 99"
run -c 'SELECT 1;' "$d/m.db"
expect_rc 1 "meta.schema_version 99"
expect_err "meta.schema_version is 99" "meta.schema_version 99"
cp "$H" "$d/m.db"
sqlite3 "$d/m.db" "UPDATE meta SET role = 'target'"
run -c 'SELECT 1;' "$d/m.db" "$T"
expect_rc 1 "meta.role against the schema"
expect_err "meta.role is 'target', but it has a host's schema" "meta.role against the schema"

# Recorded text with terminal escapes: '?' in the table, line and csv modes
# and in the report, escaped in JSON.
cp "$SOLO" "$d/esc.db"
sqlite3 "$d/esc.db" "UPDATE meta SET hostname = 'evil' || char(27) || ']0;owned' || char(7)"
esc=$(printf '\033')
for mode in table line csv; do
	run -c ".mode $mode" -c 'SELECT hostname FROM host.meta;' "$d/esc.db"
	expect_rc 0 "escape in $mode mode"
	if grep -q "$esc" "$d/out"; then bad "$mode mode prints a terminal escape"; else ok; fi
	expect_out "evil?]0;owned?" "$mode mode: control characters as '?'"
done
run -c ".mode json" -c 'SELECT hostname FROM host.meta;' "$d/esc.db"
expect_out '"evil\u001b]0;owned\u0007"' "json mode escapes control characters"
if [ -x ./ntprof ]; then
	./ntprof report "$d/esc.db" >"$d/out" 2>"$d/err"
	if grep -q "$esc" "$d/out"; then bad "the report prints a terminal escape"; else ok; fi
	expect_out "recorded on evil?]0;owned?" "the report: control characters as '?'"
else
	bad "./ntprof: not built"
fi

# fts3_tokenizer(): its two-argument form calls a pointer the caller
# chose, its one-argument form hands out a code address
run -c "SELECT fts3_tokenizer('simple', x'4141414141414141');" "$H"
expect_rc 1 "fts3_tokenizer with a pointer"
expect_err "not authorized" "fts3_tokenizer with a pointer"
run -c "SELECT hex(fts3_tokenizer('simple'));" "$H"
expect_rc 1 "fts3_tokenizer's address"
expect_err "not authorized" "fts3_tokenizer's address"
run -c "SELECT length(zeroblob(300000000));" "$H"
expect_rc 1 "a 300 MB value"
expect_err "too big" "a 300 MB value"

# SIGTERM and SIGINT stop a long query within a second, exit 1
for sig in TERM INT; do
	"$BIN" -c "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
		SELECT count(*) FROM n;" "$H" >"$d/out" 2>"$d/err" &
	q=$!
	sleep 1
	kill -$sig $q
	i=0
	while kill -0 $q 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 $q 2>/dev/null; then
		bad "SIG$sig: a long query still runs 2 s later"
		kill -9 $q
	else
		ok
	fi
	wait $q
	rc=$?
	expect_rc 1 "SIG$sig during a query"
	expect_err "interrupted" "SIG$sig during a query"
	expect_err "ntprof-shell: interrupted by a signal; stopping" "SIG$sig: the shell says why it stops"
done

# ---- --sql in plain sqlite3 ----

STAGE_Q="SELECT hdb, grp, ord, stage, label, printf('%.3f', mean_ns) AS mean_ns,
  printf('%.6f', share) AS share, printf('%.6f', avg_qd) AS avg_qd
FROM ntp_report_stage ORDER BY hdb, grp, ord;"

run --sql "$H" "$T"
expect_rc 0 "--sql"
cp "$d/out" "$d/setup.sql"
if command -v sqlite3 >/dev/null; then
	if { cat "$d/setup.sql"; echo ".mode json"; echo "$STAGE_Q"; } |
		sqlite3 :memory: >"$d/sqlite3.json" 2>"$d/err" && [ -s "$d/sqlite3.json" ]; then
		ok
	else
		bad "--sql in sqlite3"
	fi
	run -c '.mode json' -c "$STAGE_Q" "$H" "$T"
	cp "$d/out" "$d/shell.json"
	if python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
assert a and a == b, (a, b)
' "$d/sqlite3.json" "$d/shell.json"; then
		ok
	else
		bad "--sql: sqlite3 and the shell disagree on ntp_report_stage"
	fi
else
	bad "--sql: sqlite3 is not installed"
fi

# The set-up without the prepared run (--no-cache) caches the join and the
# statistics itself, the statistics by their faster builder (join.sql,
# _ntp_cache_build): its rows must be the view's, which the set-up cut
# before its caches computes. (tests/cache_test.sh checks the default
# set-up, which reads the prepared run, against this one.) Joined groups
# only: a host-only group's statistics are its recording's own
# (ntp_component_stats), which both forms copy alike.
STATS_Q="SELECT hdb, grp, component, n, sum_ns, printf('%.6f', mean_ns), p50_ns, p99_ns, p999_ns
FROM ntp_report_component_stats ORDER BY 1, 2, 3;"
for files in "$H $T"; do
	run --sql --no-cache $files
	cp "$d/out" "$d/cached.sql"
	sed '/^-- The expensive views computed once/,$d' "$d/cached.sql" >"$d/views.sql"
	cached=$({ cat "$d/cached.sql"; echo "SELECT count(*) FROM temp.sqlite_master
		WHERE name = '_ntp_report_component_stats_cache';"; } | sqlite3 :memory: 2>&1)
	[ "$cached" = 1 ] && ok || bad "--sql ($files): the set-up does not compute the statistics' cache: $cached"
	{ cat "$d/cached.sql"; echo "$STATS_Q"; } | sqlite3 :memory: >"$d/built.txt" 2>&1
	{ cat "$d/views.sql"; echo "$STATS_Q"; } | sqlite3 :memory: >"$d/view.txt" 2>&1
	if [ -s "$d/built.txt" ] && cmp -s "$d/built.txt" "$d/view.txt"; then
		ok
	else
		bad "--sql ($files): the cache builder's component statistics differ from the view's"
		diff "$d/built.txt" "$d/view.txt" | head -5 >&2
	fi
done

run --portable -c '.mode json' -c "$STAGE_Q" "$H" "$T"
if python3 -c '
import json, sys
assert json.load(open(sys.argv[1])) == json.load(open(sys.argv[2]))
' "$d/out" "$d/shell.json"; then
	ok
else
	bad "--portable and native functions disagree on ntp_report_stage"
fi

# ---- -json, -csv, -header, -noheader: sqlite3's options ----

# The same query in sqlite3 over the set-up SQL (the portable views, so the
# very same SQL runs in both): -csv is sqlite3's CSV byte for byte, except
# that sqlite3's -csv option ends lines in LF where its .mode csv (and
# RFC 4180) ends them in CRLF.
CSV_Q="SELECT * FROM ntp_report_stage; SELECT * FROM ntp_shell_groups;
SELECT * FROM ntp_report_rows;"
# sqlite3_csv OPTIONS...: sqlite3's output for CSV_Q over setup.sql
sqlite3_csv() {
	sqlite3 "$@" -cmd ".read $d/setup.sql" :memory: "$CSV_Q" 2>"$d/err"
}
for h in -header -noheader; do
	run --portable -csv $h -c "$CSV_Q" "$H" "$T"
	expect_rc 0 "-csv $h"
	cp "$d/out" "$d/shell.csv"
	sqlite3_csv -csv $h >"$d/sqlite3.csv"
	if [ "$(wc -l <"$d/shell.csv")" -ge 10 ] &&
	   tr -d '\r' <"$d/shell.csv" | cmp -s - "$d/sqlite3.csv"; then
		ok
	else
		bad "-csv $h differs from sqlite3 -csv $h"
		diff "$d/sqlite3.csv" "$d/shell.csv" | head -5 >&2
	fi
	[ $h = -header ] && on=on || on=off
	sqlite3_csv -cmd '.mode csv' -cmd ".headers $on" >"$d/sqlite3.csv"
	cmp -s "$d/shell.csv" "$d/sqlite3.csv" && ok ||
		bad "-csv $h differs from sqlite3's .mode csv, .headers $on"
	headers=$(grep -c '^section,group,' "$d/shell.csv")
	[ "$headers" -eq "$([ $on = on ] && echo 1 || echo 0)" ] && ok ||
		bad "-csv $h: $headers header lines of ntp_report_rows"
done

# --csv and --header are the same options; -json is .mode json
run --portable --csv --header -c "$CSV_Q" "$H" "$T"
tr -d '\r' <"$d/out" | cmp -s - "$(sqlite3_csv -csv -header >"$d/sqlite3.csv"; echo "$d/sqlite3.csv")" &&
	ok || bad "--csv --header differs from sqlite3 -csv -header"
run -json -c "$STAGE_Q" "$H" "$T"
cmp -s "$d/out" "$d/shell.json" && ok || bad "-json differs from .mode json"
run --json -c "$STAGE_Q" "$H" "$T"
cmp -s "$d/out" "$d/shell.json" && ok || bad "--json differs from .mode json"
# JSON numbers: sqlite3 -json prints 20 digits, so compare as numbers
run --portable -json -c "$CSV_Q" "$H" "$T"
sqlite3 -json -cmd ".read $d/setup.sql" :memory: "$CSV_Q" >"$d/sqlite3.json" 2>"$d/err"
if python3 -c "$JSON_DOCS"'
def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= 1e-12 * max(abs(a), abs(b))
    return a == b
a, b = json_docs(open(sys.argv[1]).read()), json_docs(open(sys.argv[2]).read())
assert len(a) == len(b) == 3 and all(a), (len(a), len(b))
for x, y in zip(a, b):
    assert len(x) == len(y)
    for r, s in zip(x, y):
        assert r.keys() == s.keys() and all(same(r[k], s[k]) for k in r), (r, s)
' "$d/out" "$d/sqlite3.json"; then ok; else bad "-json differs from sqlite3 -json"; fi

# a -c argument is a command, even one spelled like an option
run -c -json "$H"
expect_rc 1 "-c -json: SQL, not an option"
expect_err 'SQL: near "-"' "-c -json: SQL, not an option"

run -json -csv "$H"
expect_rc 2 "-json -csv"
expect_err "-json and -csv: one output mode at a time" "-json -csv"
run --header -noheader "$H"
expect_rc 2 "-header -noheader"
expect_err "-header and -noheader: one or the other" "-header -noheader"
run -json -json -header -header -c 'SELECT 1 AS a;' "$H"
expect_same "$d/out" '[{"a":1}]' "an option twice"

# .report in json and csv mode: ntprof report --json and --csv
if [ -x ./ntprof ]; then
	for fmt in json csv; do
		run -$fmt -c '.report --detail' "$H" "$T"
		./ntprof report --$fmt --detail "$H" "$T" >"$d/report.$fmt" 2>>"$d/err"
		[ -s "$d/out" ] && cmp -s "$d/out" "$d/report.$fmt" && ok ||
			bad ".report in $fmt mode differs from ntprof report --$fmt"
	done
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$d/report.json" && ok ||
		bad "ntprof report --json does not parse"
	./ntprof report --json "$d/esc.db" >"$d/out" 2>"$d/err"
	expect_out '"hostname": "evil\u001b]0;owned\u0007"' "the JSON report escapes control characters"
	./ntprof report --csv "$d/esc.db" >"$d/out" 2>"$d/err"
	if grep -q "$esc" "$d/out"; then bad "the CSV report prints a terminal escape"; else ok; fi
fi

# ---- one component list ----

# vocab.sql's component table is the list. Every other list of components
# in the SQL is written from it at build time (sql/expand.c); the views
# that define the components, each with its formula, are checked here to
# define exactly the components it names. Each comp_have line is a view:
# its name, the set it must equal, its components.
comp_want="SELECT 'host' AS kind, name FROM component WHERE role = 'host'
  UNION ALL SELECT 'target', name FROM component WHERE role = 'target'
  UNION ALL SELECT 'joined', name FROM component WHERE stage_joined IS NOT NULL OR name = 'e2e'"
# comp_cols COPY KIND VIEW [SCHEMA]: the columns of VIEW that are components
comp_cols() {
	echo "SELECT '$1', '$2', name FROM pragma_table_info('$3'${4:+, '$4'})
	  WHERE name IN (SELECT name FROM component)"
}
# comp_check WHAT COPIES HAVE DB...: HAVE (copy, kind, name rows) equals
# comp_want per copy, and COPIES copies were seen
comp_check() {
	what=$1 copies=$2 have=$3
	shift 3
	run -c ".mode csv" -c ".headers off" -c "WITH want(kind, name) AS ($comp_want),
	  have(copy, kind, name) AS ($have),
	  copies AS (SELECT DISTINCT copy, kind FROM have)
	SELECT 'copies', count(*) FROM copies
	UNION ALL
	SELECT c.copy || ' lacks', w.name FROM copies AS c JOIN want AS w ON w.kind = c.kind
	WHERE NOT EXISTS (SELECT 1 FROM have AS h WHERE h.copy = c.copy AND h.name = w.name)
	UNION ALL
	SELECT h.copy || ' has', h.name FROM have AS h
	WHERE NOT EXISTS (SELECT 1 FROM want AS w WHERE w.kind = h.kind AND w.name = h.name);" \
		--portable "$@"
	expect_same "$d/out" "copies,$copies" "$what: every view defines the components of vocab.sql"
}
comp_check "host, target and joined" 3 "
	$(comp_cols host.ntp_cmd_span host ntp_cmd_span host)
	UNION ALL $(comp_cols target.ntp_cmd_span target ntp_cmd_span target)
	UNION ALL $(comp_cols ntp_joined joined ntp_joined)" "$H" "$T"
# native.sql's own list gives the rows of the portable view, host and joined
COMP_Q="SELECT hdb, grp, component, n, sum_ns, p50_ns, p99_ns, p999_ns
  FROM ntp_report_component_stats ORDER BY hdb, grp, component;"
for set in "$H $T" "$SOLO"; do
	# shellcheck disable=SC2086
	run -c '.mode csv' -c "$COMP_Q" $set
	mv "$d/out" "$d/native.csv"
	# shellcheck disable=SC2086
	run --portable -c '.mode csv' -c "$COMP_Q" $set
	if [ -s "$d/out" ] && cmp -s "$d/out" "$d/native.csv"; then ok; else
		bad "native.sql's components differ from report.sql's ($set)"
	fi
done

# ---- mixed targets: each group's target stages named by its own target ----

# a kernel pair and an SPDK pair in one session: the kernel host's groups
# join the kernel target, the SPDK host's the SPDK target (other seeds, so
# no identity repeats across the two)
if "$GEN" -o "$d/kh.db" -t "$d/kt.db" -s 1 -n 1 -r 500 -x 7 >>"$d/gen.log" 2>&1 &&
   "$GEN" -o "$d/sh.db" -t "$d/st.db" -s 1 -n 1 -r 500 -x 9 -d host=spdk -d target=spdk \
	>>"$d/gen.log" 2>&1; then
	for mode in "" --portable; do
		run $mode -c ".mode csv" -c ".headers off" -c "SELECT g.host_driver || '/' || g.target_driver || ':' ||
			group_concat(DISTINCT s.label) FROM ntp_report_group AS g
			JOIN ntp_report_stage AS s ON s.hdb = g.hdb AND s.grp = g.grp
			WHERE s.stage = 'target_driver' GROUP BY g.hdb ORDER BY g.hdb" \
			"$d/kh.db" "$d/kt.db" "$d/sh.db" "$d/st.db"
		expect_same "$d/out" '"kernel/kernel:target driver"
"spdk/spdk:target driver (SPDK)"' "mixed targets$mode: target stages by the group's target"
	done
	# two hosts: the slowest of both, and of one host's groups by its name
	slowest_same "$d/kh.db $d/kt.db $d/sh.db $d/st.db" "9" "100000" "4 spdk"
else
	bad "mixed targets: $GEN failed"
fi

# ---- runs side by side: .compare ----

# The shell opens runs as ntprof compare does, and .compare prints what
# ntprof compare prints, in every format (the numbers are tested against
# the views and the generator in compare_test.sh).
NTPROF=${NTPROF:-./ntprof}
BH="$d/b-h.db"
BT="$d/b-t.db"
if "$GEN" -o "$BH" -t "$BT" -s 1 -n 1 -r 2000 -x 7 -M 5000 >"$d/gen.log" 2>&1; then
	# ".compare ARGS:ntprof compare's ARGS", then per output mode
	for pair in ":" "-d:-d" "-m 0 read:-m 0 -g read" "-d -m 20:-d -m 20"; do
		for mode in "" -json -csv; do
			run $mode -c ".compare ${pair%%:*}" "$H,$T" "$BH,$BT"
			cp "$d/out" "$d/shell-cmp"
			flag=${mode#-}
			# shellcheck disable=SC2086
			"$NTPROF" compare ${flag:+--$flag} ${pair#*:} "$H,$T" "$BH,$BT" \
				> "$d/cli-cmp" 2>>"$d/err"
			if [ "$rc" -eq 0 ] && [ -s "$d/cli-cmp" ] && cmp -s "$d/shell-cmp" "$d/cli-cmp"
			then ok; else bad ".compare ${pair%%:*} ($mode) differs from ntprof compare"; fi
		done
	done
	run --label before,after -c .compare "$H,$T" "$BH,$BT"
	expect_rc 0 ".compare --label"
	expect_out "after vs before: storage (target block layer and drive) moved most" \
		".compare --label"
	# the threshold stays for the session: the second .compare uses it
	run -c '.compare -m 50' -c '.mode csv' -c .compare -c \
		'SELECT min_effect_pct FROM ntp_compare_threshold;' "$H,$T" "$BH,$BT"
	expect_rc 0 ".compare -m"
	expect_out "no stage moved beyond noise" ".compare -m 50"
	# the CSV's storage row of the second run: significant, tail_driven and
	# moved last (CSV lines end in CR LF)
	if grep -q ',storage,.*,1,[01],1.$' "$d/out"; then bad ".compare -m 50: storage still marked"
	elif grep -q ',storage,.*,0,0,0.$' "$d/out"; then ok
	else bad ".compare -m 50: no storage row of the second run"; fi
	expect_out "50.0" ".compare -m 50: ntp_compare_threshold"
	run -c .compare "$H" "$T"
	expect_rc 1 ".compare, one run"
	expect_err "ntprof-shell: .compare: needs two runs or more, and this shell has one" \
		".compare, one run"
	run -c '.compare -m x' "$H,$T" "$BH,$BT"
	expect_rc 1 ".compare -m x"
	expect_err ".compare: -m: 'x': expected a percentage" ".compare -m x"
	run -c '.compare -x' "$H,$T" "$BH,$BT"
	expect_rc 1 ".compare -x"
	expect_err ".compare: unknown option '-x'" ".compare -x"
	run -c .help "$H,$T" "$BH,$BT"
	expect_out ".compare [-d] [-m PCT] [GROUP]" ".help lists .compare"
	run --label a -c .compare "$H,$T" "$BH,$BT"
	expect_rc 2 "--label, one name for two runs"
	expect_err "ntprof-shell: --label 'a': expected 2 names, one per run" "--label a"
	run -c .compare "$H,$T,$BH" "$BH"
	expect_rc 2 "a run of three files"
	expect_err "ntprof-shell: '$H,$T,$BH': expected HOST.db or HOST.db,TARGET.db" \
		"a run of three files"
	run -c .compare "$T,$H" "$BH"
	expect_rc 1 "a run the wrong way round"
	expect_err "a target recording where run" "a run the wrong way round"
	# one run given as HOST.db,TARGET.db is the session of the two files
	run -c .groups "$H,$T"
	cp "$d/out" "$d/one-run"
	run -c .groups "$H" "$T"
	if cmp -s "$d/out" "$d/one-run" && [ -s "$d/out" ]; then ok
	else bad "HOST.db,TARGET.db differs from HOST.db TARGET.db"; fi
else
	bad "runs: $GEN failed"
fi

# ---- the recordings are untouched ----

for f in h t solo; do
	case $f in
	h) orig=$H ;;
	t) orig=$T ;;
	solo) orig=$SOLO ;;
	esac
	if cmp -s "$orig" "$d/$f.copy"; then ok; else bad "$orig changed"; fi
done
for f in "$H" "$T" "$SOLO"; do
	if [ -e "$f-wal" ] || [ -e "$f-journal" ]; then
		bad "$f: a -wal or -journal file was left"
	else
		ok
	fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
