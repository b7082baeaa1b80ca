#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# Readers against files in every state a recording can be left in, and
# outputs that cannot be written: a recording not closed (still in WAL
# mode, all of it in the -wal), a -wal with gigabytes of holes, a file
# truncated while it is read, a full disk under the output, impossible
# values that pass SQLite's integrity check. Run from the repository root
# after `make` (make check-cli):
#
#   sh tests/reader_test.sh

top=$(pwd)
NTPROF=${NTPROF:-$top/ntprof}
SHELL_BIN=${SHELL_BIN:-$top/ntprof-shell}
GEN=${GEN:-$top/tests/ntprof-gen}
TEST=reader_test
. "$top/tests/testlib.sh"

d=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-reader-test.XXXXXX") || exit 1
# prepared runs in the test's own cache, none said (lib/cache.c)
export NTPROF_CACHE_DIR="$d/cache" NTPROF_PREPARE_NOTE_AFTER=3600
trap 'rm -rf "$d"' EXIT INT TERM
"$GEN" -o "$d/h.db" -t "$d/t.db" -s 1 -n 1 -r 500 >"$d/gen.log" 2>&1 ||
	{ cat "$d/gen.log" >&2; echo "0 passed, 1 failed"; exit 1; }
H=$d/h.db
T=$d/t.db
"$NTPROF" report "$H" "$T" >"$d/closed.txt" 2>&1 || bad "report on the closed recordings"

# sums DIR: the names and contents of DIR's files
sums() { (cd "$1" && ls -a && sha256sum -- *); }

echo "== a recording not closed, all of it in its -wal"
mkdir "$d/wal"
walled "$H" "$d/wal/h.db"
walled "$T" "$d/wal/t.db"
expect "the state made: the main file's application id" \
	"$(od -An -tu1 -j68 -N4 "$d/wal/h.db" | tr -s ' ')" " 0 0 0 0"
sums "$d/wal" >"$d/wal.before"
"$NTPROF" report "$d/wal/h.db" "$d/wal/t.db" >"$d/out" 2>"$d/err"
expect "report: exit status" $? 0
cmp -s "$d/out" "$d/closed.txt" && ok ||
	bad "report: not the closed recordings' report: $(head -3 "$d/err")"
expect "report: said, once for each" "$(grep -c 'was not closed (its collector was killed or is still recording): reading a copy with its -wal' "$d/err")" 2
"$SHELL_BIN" -c '.mode csv' -c 'SELECT count(*) FROM host.cmd;' "$d/wal/h.db" >"$d/out" 2>/dev/null
expect "ntprof-shell: every row" "$(tail -1 "$d/out" | tr -d "\r")" "$(sqlite3 "$H" 'SELECT count(*) FROM cmd')"
"$NTPROF" merge -o "$d/m.db" "$d/wal/h.db" "$d/wal/t.db" >"$d/out" 2>"$d/err"
expect "merge: exit status" $? 0
"$NTPROF" report "$d/m.db" >"$d/out" 2>&1
cmp -s "$d/out" "$d/closed.txt" && ok || bad "merge: not the closed recordings' report"
sums "$d/wal" >"$d/wal.after"
cmp -s "$d/wal.before" "$d/wal.after" && ok ||
	bad "readers changed the directory of a recording not closed: $(diff "$d/wal.before" "$d/wal.after")"
# the WAL's header is checked as the file's: another program's database
# left in WAL mode is still refused by its application id
sqlite3 "$d/other.db" 'CREATE TABLE x (a)' && walled "$d/other.db" "$d/wal/o.db"
"$NTPROF" report "$d/wal/o.db" >"$d/out" 2>"$d/err"
expect "another program's database in WAL mode: exit status" $? 1
grep -q "o.db: not an ntprof database (application id 0)" "$d/err" && ok ||
	bad "another program's database in WAL mode: $(cat "$d/err")"

echo "== a -wal with 2 GB of holes after its last frame"
mkdir "$d/sparse"
walled "$H" "$d/sparse/h.db"
truncate -s 2G "$d/sparse/h.db-wal"
# a file size limit of 64 MiB: a copy of the holes would be killed by it
(ulimit -f 131072 && exec "$NTPROF" report "$d/sparse/h.db" "$T") >"$d/out" 2>"$d/err"
expect "sparse -wal: exit status" $? 0
cmp -s "$d/out" "$d/closed.txt" && ok || bad "sparse -wal: not the closed recording's report"
expect "sparse -wal: left as it was" "$(stat -c %s "$d/sparse/h.db-wal")" 2147483648

echo "== a recording truncated while it is read"
"$GEN" -o "$d/mid.db" -t "$d/mid-t.db" -s 1 -n 8 -r 50000 -q 4 >"$d/gen.log" 2>&1 ||
	bad "cannot generate a bigger recording: $(cat "$d/gen.log")"
cp "$d/mid.db" "$d/mid2.db"
# a shell's session: its first question prepares the run, the file is
# cut, then .timeline reads the host's commands again (each command's end
# to end, from the recording's pages): an error, not a partial answer
mkfifo "$d/cmds"
"$SHELL_BIN" --no-cache "$d/mid.db" "$d/mid-t.db" < "$d/cmds" > "$d/out" 2> "$d/err" &
pid=$!
exec 3> "$d/cmds"
echo ".groups" >&3
i=0
while [ $i -lt 1200 ] && ! grep -q '^read 4KiB' "$d/out"; do
	sleep 0.1
	i=$((i + 1))
done
grep -q '^read 4KiB' "$d/out" && ok || bad "truncated: the shell's first question not answered in 120 s"
truncate -s 65536 "$d/mid.db"
echo ".timeline 1s" >&3
exec 3>&-
wait "$pid"
expect "truncated while read: exit status (not a signal)" $? 1
grep -q "^ntprof-shell: stdin:2: .timeline: .*database disk image is malformed" "$d/err" &&
	! grep -q '^host ' "$d/out" && ok || bad "truncated while read: no error: $(cat "$d/err")"

echo "== output onto a full disk"
"$GEN" -o "$d/h2.db" -t "$d/t2.db" -s 1 -n 1 -r 500 -x 2 >"$d/gen.log" 2>&1 ||
	bad "cannot generate a second run: $(cat "$d/gen.log")"
# full WHAT CMD...: CMD's stdout onto /dev/full: exit 1, and said
full() {
	what=$1
	shift
	"$@" >/dev/full 2>"$d/err"
	expect "$what onto /dev/full: exit status" $? 1
	grep -q "failed to write the output: No space left on device$" "$d/err" && ok ||
		bad "$what onto /dev/full: not said: $(cat "$d/err")"
}
full "report" "$NTPROF" report "$H" "$T"
full "report --json" "$NTPROF" report --json "$H" "$T"
full "report --csv" "$NTPROF" report --csv --detail "$H" "$T"
full "report --timeline" "$NTPROF" report --timeline 100ms "$H" "$T"
full "compare" "$NTPROF" compare "$H,$T" "$d/h2.db,$d/t2.db"
full "compare --json" "$NTPROF" compare --json "$H,$T" "$d/h2.db,$d/t2.db"
full "compare --csv" "$NTPROF" compare --csv "$H,$T" "$d/h2.db,$d/t2.db"
full "compare --sql" "$NTPROF" compare --sql "$H,$T" "$d/h2.db,$d/t2.db"
full "--help" "$NTPROF" --help
full "report --help" "$NTPROF" report --help

echo "== impossible values that pass the integrity check"
# changed NAME SRC SQL: a copy of SRC as $d/NAME.db with SQL run on it
changed() { cp "$2" "$d/$1.db" && sqlite3 "$d/$1.db" "$3"; }
# refused WHAT PATTERN FILE...: ntprof report refuses them, saying PATTERN
refused() {
	what=$1 pattern=$2
	shift 2
	"$NTPROF" report "$@" >"$d/out" 2>"$d/err"
	expect "$what: exit status" $? 1
	grep -q -- "$pattern" "$d/err" && [ ! -s "$d/out" ] && ok ||
		bad "$what: not refused as '$pattern': $(cat "$d/err") $(head -3 "$d/out")"
}
max=9223372036854775807
changed lh "$H" "INSERT INTO lost VALUES (1, 1, $max)"
changed lt "$T" "INSERT INTO lost VALUES (1, 1, $max)"
refused "lost = INT64_MAX on both sides" \
	"lh.db: lost.n is $max in interval 1: impossible values (refusing a changed database)$" \
	"$d/lh.db" "$d/lt.db"
changed neg "$H" "INSERT INTO lost VALUES (1, 1, -2)"
refused "a negative lost" "neg.db: lost.n is -2 in interval 1: impossible values" "$d/neg.db" "$T"
changed gapneg "$H" "INSERT INTO gap VALUES (1, 'h_rx', 1, -1)"
refused "a negative gap" "gapneg.db: gap.n is -1 in interval 1: impossible values" "$d/gapneg.db" "$T"
changed stop "$H" "UPDATE meta SET mono_stop = mono_start - 1"
refused "a stop before the start" \
	"stop.db: meta: stopped (mono_stop [0-9]*) before it started (mono_start [0-9]*): impossible values" \
	"$d/stop.db" "$T"
changed wstop "$H" "UPDATE meta SET wall_stop = wall_start - 1"
refused "a wall stop before the start" "wstop.db: meta: stopped (wall_stop" "$d/wstop.db" "$T"
"$NTPROF" merge -o "$d/good.ntp" "$H" "$T" 2>/dev/null || bad "merge of the recordings"
changed mrec "$d/good.ntp" "UPDATE ntp_merged_recording SET records = records + 1 WHERE db = 'host'"
cp "$d/mrec.db" "$d/mrec.ntp"
refused "a merged file whose recording's count contradicts ntp_db" \
	"recording host: ntp_merged_recording and ntp_db disagree" "$d/mrec.ntp"
changed mcount "$d/good.ntp" "UPDATE ntp_merged SET recordings = 3"
refused "a merged file that says 3 recordings of 2" \
	"ntp_merged says 3 recordings, ntp_merged_recording holds 2" "$d/mcount.db"
changed mcmd "$d/good.ntp" "DELETE FROM ntp_host_cmd WHERE rowid IN (SELECT rowid FROM ntp_host_cmd LIMIT 1)"
refused "a merged file with a command fewer than it says" \
	"recording host: [0-9]* records, but [0-9]* commands" "$d/mcmd.db"
changed mlost "$d/good.ntp" "UPDATE ntp_merged_recording SET lost = -1 WHERE db = 'target';
	UPDATE ntp_db SET lost = -1 WHERE db = 'target'"
refused "a merged file with a negative lost" "recording target: lost -1" "$d/mlost.db"

echo "== plot -o DIR with symlinks planted in DIR"
"$NTPROF" plot -o "$d/other" "$H,$T" >/dev/null 2>&1 || bad "plot into a new directory"
cp -r "$d/other" "$d/other.before"
"$NTPROF" plot -o "$d/pl" "$H,$T" >/dev/null 2>&1 || bad "plot into another new directory"
# a symlink where a file of the plot goes, to a file ntprof plot wrote
# elsewhere: followed, that file would be overwritten
rm "$d/pl/index.html"
ln -s "$d/other/index.html" "$d/pl/index.html"
# and one to a path that does not exist: followed, it would be created
rm "$d/pl/stages.svg"
ln -s "$d/elsewhere.svg" "$d/pl/stages.svg"
"$NTPROF" plot -o "$d/pl" "$d/h2.db,$d/t2.db" >"$d/out" 2>"$d/err"
expect "plot onto planted symlinks: exit status" $? 1
grep -q "pl/stages.svg: not written by ntprof plot: not overwriting it\|pl/index.html: not written by ntprof plot: not overwriting it" \
	"$d/err" && ok || bad "plot onto planted symlinks: not said: $(cat "$d/err")"
diff -r "$d/other" "$d/other.before" >/dev/null && ok ||
	bad "plot wrote through a symlink into another directory"
[ ! -e "$d/elsewhere.svg" ] && ok || bad "plot created a file through a dangling symlink"
[ -L "$d/pl/index.html" ] && [ -L "$d/pl/stages.svg" ] && ok || bad "plot replaced a symlink it did not write"
# a plot over its own files replaces them by rename: no temporary left
rm "$d/pl/index.html" "$d/pl/stages.svg"
"$NTPROF" plot -o "$d/pl" "$H,$T" >"$d/out" 2>"$d/err"
expect "plot over its own files: exit status" $? 0
expect "plot over its own files: the files" "$(ls -A "$d/pl" | tr '\n' ' ')" "cdf-1.svg index.html stages.svg tails.svg timeline.svg "

echo "== a stop signal during ntprof merge"
for sig in QUIT USR1 ALRM; do
	rm -f "$d/sig.ntp"
	# a background job of sh ignores SIGQUIT; a user's merge does not
	(ulimit -c 0; exec env --default-signal="$sig" "$NTPROF" merge -o "$d/sig.ntp" \
		"$d/mid2.db" "$d/mid-t.db") >/dev/null 2>"$d/err" &
	pid=$!
	i=0
	while [ ! -e "$d/sig.ntp" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
	[ -e "$d/sig.ntp" ] && ok || bad "SIG$sig: merge did not begin its file"
	kill -"$sig" "$pid"
	{ wait "$pid"; } 2>/dev/null
	rc=$?
	[ "$rc" -gt 128 ] && ok || bad "SIG$sig: merge was not ended by the signal (exit $rc)"
	expect "SIG$sig during merge: what is left" "$(ls "$d" | grep -c '^sig\.ntp')" 0
done

echo "== control characters: C1 and CR in recorded text, ESC in file names"
# U+009B (CSI to a terminal, 0xC2 0x9B in UTF-8) and a CR in the host name
changed c1 "$H" "UPDATE meta SET hostname = 'h' || char(155) || '[31m' || char(13) || 'x'"
"$NTPROF" report "$d/c1.db" "$T" >"$d/out" 2>&1
expect "C1 and CR in the text report" "$(head -1 "$d/out" | cut -d' ' -f3)" 'h?[31m?x'
"$SHELL_BIN" -c '.mode csv' -c 'SELECT hostname FROM host.meta;' "$d/c1.db" >"$d/out" 2>&1
expect "C1 and CR in CSV" "$(tail -1 "$d/out" | tr -d '\r\n' | od -An -c | tr -s ' ')" \
	' " h ? [ 3 1 m ? x "'
"$NTPROF" report --json "$d/c1.db" >"$d/out" 2>&1
grep -q '"hostname": "h\\u009b\[31m\\rx"' "$d/out" && ok || bad "C1 in JSON: $(grep hostname "$d/out")"
esc=$(printf 'a\033]0;x\007b')
"$NTPROF" report "$d/$esc.db" >"$d/out" 2>"$d/err"
grep -q "a?]0;x?b.db: cannot open" "$d/err" && ! grep -q "$(printf '\033')" "$d/err" && ok ||
	bad "ESC in a file name of an error: $(od -c "$d/err" | head -3)"
"$NTPROF" plot -o "$d/$esc" "$H,$T" >"$d/out" 2>"$d/err"
grep -q "a?]0;x?b/index.html" "$d/out" && ! grep -q "$(printf '\033')" "$d/out" && ok ||
	bad "ESC in plot's file list: $(od -c "$d/out" | head -3)"

echo "== a merged file's whole schema"
# a generated column that makes 100 MB a row (the report ran 164 s on it)
changed gen "$d/good.ntp" "ALTER TABLE ntp_host_cmd ADD COLUMN x AS (printf('%.*c', 100000000, 'x'))"
start=$(date +%s)
timeout 20 "$NTPROF" report "$d/gen.db" >"$d/out" 2>"$d/err"
expect "a generated column in a merged table: exit status" $? 1
grep -q "gen.db: not ntprof's merged schema: table ntp_host_cmd differs (refusing a changed file)$" \
	"$d/err" && ok || bad "a generated column in a merged table: $(cat "$d/err")"
[ $(($(date +%s) - start)) -le 1 ] && ok || bad "a generated column in a merged table: not refused within 1 s"
changed dflt "$d/good.ntp" "ALTER TABLE ntp_merged_hook ADD COLUMN y TEXT DEFAULT 'z'"
refused "an extra column in ntp_merged_hook" "not ntprof's merged schema: table ntp_merged_hook differs" "$d/dflt.db"
# indexes: by their whole text, not their names (an index's expression or
# WHERE runs in the integrity check)
changed idx "$d/good.ntp" "CREATE INDEX ntp_merged_x ON ntp_merged (length(printf('%.*c', 1000, 'x')))"
refused "an index of ntprof's name over an expression" \
	"idx.db: not ntprof's merged schema: index ntp_merged_x differs" "$d/idx.db"
changed idx2 "$d/good.ntp" "DROP INDEX ntp_merged_joined;
	CREATE INDEX ntp_merged_joined ON ntp_joined (hdb, ht) WHERE ht > 0"
refused "ntprof's index made partial" \
	"idx2.db: not ntprof's merged schema: index ntp_merged_joined differs" "$d/idx2.db"
# a table an older ntprof wrote, which this one does not (ntp_joined with
# each target's t_data_wait and t_e2e): merged by another version
changed old "$d/good.ntp" "CREATE TABLE _ntp_command_target AS SELECT * FROM ntp_joined"
refused "an older ntprof's table" \
	"old.db: a merged file with table _ntp_command_target, which this ntprof does not write (merged by another version of ntprof: merge the recordings again)" \
	"$d/old.db"
changed other "$d/good.ntp" "CREATE TABLE notes AS SELECT 1 AS x"
refused "a table not of ntprof's names" \
	"other.db: not ntprof's merged schema: table notes differs" "$d/other.db"
changed idx3 "$d/good.ntp" "DROP INDEX ntp_merged_joined"
"$NTPROF" report "$d/idx3.db" >/dev/null 2>"$d/err"
expect "a merged file without one of its indexes is read: exit status" $? 0

finish
