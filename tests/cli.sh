#!/bin/sh
# Command-line tests of `ntprof report` and `ntprof-shell`: the seed's report
# layout, and bad input. Every bad input must give a one-line error naming
# the file and the problem, a non-zero exit, no crash, and leave every input
# file byte-identical. Run from the repository root after `make`.
set -u
top=$(pwd)
NTPROF=${NTPROF:-$top/ntprof}
SHELL_BIN=${SHELL_BIN:-$top/ntprof-shell}
GEN=${GEN:-$top/tests/ntprof-gen}
dir=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-cli-XXXXXX")
trap 'rm -rf "$dir"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# expect_error NAME PATTERN CMD...: exit 1, one line on stderr matching
# PATTERN, nothing on stdout, inputs unchanged.
expect_error() {
	name=$1 pattern=$2
	shift 2
	(cd "$dir" && sha256sum *.db > "$dir/sums.before" 2>/dev/null)
	"$@" > "$dir/out" 2> "$dir/err"
	rc=$?
	(cd "$dir" && sha256sum *.db > "$dir/sums.after" 2>/dev/null)
	if [ $rc -ne 1 ]; then bad "$name: exit $rc, expected 1"; cat "$dir/err" >&2; return; fi
	if [ "$(wc -l < "$dir/err")" -ne 1 ]; then bad "$name: stderr is not one line:"; cat "$dir/err" >&2; return; fi
	if ! grep -q -- "$pattern" "$dir/err"; then bad "$name: stderr does not match '$pattern':"; cat "$dir/err" >&2; return; fi
	if [ -s "$dir/out" ]; then bad "$name: printed a report anyway"; return; fi
	if ! cmp -s "$dir/sums.before" "$dir/sums.after"; then bad "$name: an input file changed"; return; fi
	ok
}

# both front ends must refuse the same input the same way
expect_both() {
	name=$1 pattern=$2
	shift 2
	expect_error "report: $name" "$pattern" "$NTPROF" report "$@"
	expect_error "shell: $name" "$pattern" "$SHELL_BIN" -c .groups "$@"
}

cd "$dir" || exit 1
"$GEN" -o host.db -t target.db -s 1 -n 1 -x 4 || { echo "FAIL: generator"; exit 1; }
"$GEN" -o host2.db -t target2.db -s 1 -n 1 -x 5 || exit 1
"$GEN" -o h10.db -t t20.db -s 10 -S 20 -n 1 -x 6 || exit 1
"$GEN" -o idle.db -t idle-t.db -n 1 -H 3,4 -T 3,4 || exit 1

# The seed's layout: header, group line, latency, stage table, largest,
# components, records.
"$NTPROF" report --detail host.db target.db > joined.txt 2> err.txt
if [ $? -eq 0 ] &&
   grep -q '^recorded on gen-host0 (kernel 6.1.0-synthetic), one command in 1 sampled$' joined.txt &&
   grep -Eq '^== read 4KiB nvme1n1: [0-9]+ commands sampled \(from [0-9.]+k commands/s\), all with the target.s side$' joined.txt &&
   grep -Eq '^latency \(us\): mean [0-9]+\.[0-9]{2}, p50 [0-9]+\.[0-9]{2}, p99 [0-9]+\.[0-9]{2}, p99\.9 [0-9]+\.[0-9]{2}$' joined.txt &&
   grep -Eq '^  stage +mean us +share +avg QD$' joined.txt &&
   grep -Eq '^  storage \(target block layer and drive\) +[0-9.]+ +[0-9]+% +[0-9.]+  #+$' joined.txt &&
   grep -Eq '^largest: storage \(target block layer and drive\), [0-9]+ % of the latency$' joined.txt &&
   grep -q '^components, in path order (L: commands in each, by Little.s law)$' joined.txt &&
   grep -Eq '^  network: wire and NICs \(computed\) +[0-9]+ ' joined.txt &&
   grep -Eq '^  end to end +[0-9]+ +[0-9.]+ +0\.[0-9]{2} ' joined.txt &&
   grep -Eq '^records: [0-9]+ host, [0-9]+ target; [0-9]+ matched \(100 % of the host.s\)$' joined.txt
then ok; else bad "joined report layout"; cat joined.txt err.txt >&2; fi

# '#' bars are round(share x bar_width) wide (vocab.sql, ntp_constant)
w=$(sqlite3 host.db 'SELECT bar_width FROM ntp_constant')
awk -v w="$w" '/^  [a-z].*%/ { for (i = 1; i <= NF; i++) if ($i ~ /%$/) { s = $i; sub(/%/, "", s) }
     bar = ($NF ~ /^#+$/) ? length($NF) : 0
     if (w < 1 || bar - s * w / 100 > 0.5 + w / 100 || s * w / 100 - bar > 0.5 + w / 100) exit 1 }' joined.txt \
	&& ok || bad "bar widths"

# host alone: host side only, network and target not recorded
"$NTPROF" report host.db > host.txt 2>&1
if grep -q 'host side only$' host.txt && grep -q '^  network and target (not recorded) ' host.txt &&
   grep -q '^throughput (counted): read ' host.txt && grep -Eq '^records: [0-9]+ host$' host.txt
then ok; else bad "host-only report"; cat host.txt >&2; fi

# roles come from meta, not argument order
"$NTPROF" report --detail target.db host.db > swapped.txt 2>&1 && cmp -s joined.txt swapped.txt \
	&& ok || bad "target given first should give the same report"

# --portable (what plain sqlite3 computes) prints the same numbers
"$NTPROF" report --detail --portable host.db target.db > portable.txt 2>&1 &&
	cmp -s joined.txt portable.txt && ok || bad "portable and native reports differ"

# sqlite3 with the shell's set-up SQL reproduces the shell's numbers: the
# portable views as they are, and the native path with the installed
# extension and native.sql.
q="SELECT hdb, grp, label, n, printf('%.2f', mean_ns / 1e3), printf('%.2f', l),
 printf('%.2f', p50_ns / 1e3), printf('%.2f', p99_ns / 1e3), p999_ns
 FROM ntp_report_components ORDER BY hdb, grp, ord;"
qs="SELECT hdb, grp, label, printf('%.2f', mean_ns / 1e3), printf('%.0f', 100 * share),
 printf('%.2f', avg_qd), bar FROM ntp_report_stage ORDER BY hdb, grp, ord;"
inst="$dir/inst"
make -s -C "$top" install DESTDIR="$inst" PREFIX=/usr/local > /dev/null 2>&1 ||
	bad "make install"
"$SHELL_BIN" -c '.mode csv' -c '.headers off' -c "$q" -c "$qs" host.db target.db > shell.csv
"$SHELL_BIN" --sql host.db target.db > setup.sql
printf '%s\n' ".read setup.sql" ".mode csv" "$q" "$qs" | sqlite3 :memory: > sqlite.csv
printf '%s\n' ".read setup.sql" ".load $inst/usr/local/lib/ntprof/ntprof_sqlite.so" \
	".read $inst/usr/local/share/ntprof/sql/native.sql" ".mode csv" "$q" "$qs" |
	sqlite3 :memory: > native.csv
# sqlite3 quotes more than RFC 4180 needs (any ':'), so compare unquoted
for f in shell sqlite native; do tr -d '"' < $f.csv > $f.txt; done
if [ "$(wc -l < shell.txt)" -ge 15 ] && cmp -s shell.txt sqlite.txt && cmp -s shell.txt native.txt
then ok; else bad "sqlite3 with the installed SQL differs from the shell"; diff shell.txt sqlite.txt | head >&2; diff shell.txt native.txt | head >&2; fi
# The statistics views (sql/stats.sql) the same way, in sqlite3 after the
# caching step of docs/sql.md (d), which the shell takes too.
qx="SELECT hdb, grp, ord, stage, label, n, sum_ns, printf('%.3f', mean_ns), p50_ns, p90_ns,
 p99_ns, p999_ns FROM ntp_report_stage_stats ORDER BY hdb, grp, ord;
 SELECT hdb, grp, name, bucket, count FROM ntp_report_hist WHERE name IN ('e2e', 'storage');
 SELECT count(*), sum(cum), printf('%.9f', min(fraction)), printf('%.9f', max(fraction))
 FROM ntp_report_cdf;
 SELECT hdb, ht, tdb, tt, grp, qid, cid, slba, printf('%.9f', t_s), mode, h_r2t, wire, e2e,
 t_e2e, host_block, host_driver, host_rx, net_target, network, target_driver, storage
 FROM ntp_command ORDER BY hdb, ht LIMIT 20;
 UPDATE ntp_bucket SET width_ns = 250000000;
 SELECT form, db, grp, bucket, sampled, printf('%.3f', rate), printf('%.3f', mean_ns), p99_ns
 FROM ntp_series ORDER BY form, db, grp, bucket;
 SELECT form, db, grp, bucket, stage, printf('%.3f', mean_ns) FROM ntp_series_stage
 ORDER BY form, db, grp, bucket, ord;"
"$SHELL_BIN" -c '.mode csv' -c '.headers off' -c "$qx" host.db target.db > shellx.csv
printf '%s\n' ".read setup.sql" ".headers off" ".mode list" ".once prepare.sql" \
	"SELECT sql FROM _ntp_prepare_sql;" | sqlite3 :memory:
printf '%s\n' ".read setup.sql" ".read prepare.sql" ".mode csv" "$qx" | sqlite3 :memory: > sqlitex.csv
for f in shellx sqlitex; do tr -d '"' < $f.csv > $f.txt; done
if [ "$(wc -l < shellx.txt)" -ge 40 ] && cmp -s shellx.txt sqlitex.txt
then ok; else bad "sqlite3 differs from the shell on the statistics views"; diff shellx.txt sqlitex.txt | head >&2; fi
[ -f "$inst/usr/local/bin/ntprof" ] && [ -f "$inst/usr/local/share/man/man1/ntprof-shell.1" ] &&
	[ -f "$inst/usr/local/share/ntprof/sql/join.sql" ] && ok || bad "make install layout"

# Every program says its version (--version, exit 0), and the data generator
# has --help.
for prog in "$NTPROF" "$top/ntprof-collect" "$top/ntprof-shell"; do
	name=$(basename "$prog")
	v=$("$prog" --version 2>&1)
	[ $? -eq 0 ] && echo "$v" | grep -Eq "^$name [0-9]+\.[0-9]+" && ok ||
		bad "$name --version: '$v'"
done
"$GEN" --help 2>&1 | grep -q "^usage: ntprof-gen" && "$GEN" --help >/dev/null 2>&1 && ok ||
	bad "ntprof-gen --help"

# The man pages document every long option the programs' --help names.
# man_has_options PAGE COMMAND...: each --option of COMMAND's help is in PAGE
man_has_options() {
	page=$top/man/$1
	shift
	for opt in $("$@" --help 2>&1 | grep -o -- '--[a-z][a-z-]*[a-z]' | sort -u); do
		# groff writes each - of an option as \-
		if ! grep -qF -- "$(printf '%s' "$opt" | sed 's/-/\\-/g')" "$page"; then
			bad "$(basename "$page"): $opt is in '$* --help' and not in the man page"
			return
		fi
	done
	ok
}
man_has_options ntprof-collect.1 "$top/ntprof-collect"
man_has_options ntprof-shell.1 "$SHELL_BIN"
man_has_options ntprof-report.1 "$NTPROF" report

# The SQL stored in every database is pinned to the schema version: ntprof
# refuses a database whose stored SQL differs from its own, so changing any
# of it (even a comment) needs a new version, or old files stop opening.
ver=$(sed -n 's/^PRAGMA user_version = \([0-9]*\);.*/\1/p' "$top/sql/schema.sql")
{ echo "version $ver"; (cd "$top" && sha256sum sql/schema.sql sql/vocab.sql sql/host.sql \
	sql/host_views.sql sql/target.sql sql/target_views.sql sql/views.sql); } > pin.txt
if cmp -s pin.txt "$top/tests/schema.sha256"; then ok; else
	bad "stored SQL changed without a new schema version: bump PRAGMA user_version in sql/schema.sql and NTP_SCHEMA_VERSION in lib/ntp_schema.h, then regenerate tests/schema.sha256"
	diff "$top/tests/schema.sha256" pin.txt >&2
fi

# The SPDK patch carries a byte-identical copy of the one ABI header.
awk '/^diff --git a\/include\/spdk_internal\/ntprof_abi.h/ { f = 1; next }
	/^diff --git/ { f = 0 } f && /^\+/ && !/^\+\+\+/ { print substr($0, 2) }' \
	"$top/spdk-patch/ntprof.patch" > abi_in_patch.h
if cmp -s abi_in_patch.h "$top/bpf/ntprof_abi.h"; then ok; else
	bad "spdk-patch/ntprof.patch: its include/spdk_internal/ntprof_abi.h differs from bpf/ntprof_abi.h: refresh the patch (spdk-patch/README.md)"
fi

# Bad input.
printf 'this is not a database\n' > text.db
: > empty.db
cp host.db trunc.db && truncate -s 40000 trunc.db
cp host.db version.db && sqlite3 version.db 'PRAGMA user_version = 99'
cp host.db other.db && sqlite3 other.db 'PRAGMA application_id = 42'
cp host.db view.db && sqlite3 view.db 'CREATE VIEW evil AS SELECT 1'
cp host.db trig.db && sqlite3 trig.db 'CREATE TRIGGER evil AFTER INSERT ON cmd BEGIN DELETE FROM cmd; END'
cp host.db changed.db && sqlite3 changed.db 'DROP VIEW ntp_cmd_e2e; CREATE VIEW ntp_cmd_e2e AS SELECT t, grp, 0 AS ns FROM cmd'
sqlite3 plain.db 'CREATE TABLE x (a)'

expect_both "not a database" "text.db: not an ntprof database (not SQLite)" text.db
expect_both "empty file" "empty.db: empty file" empty.db
expect_both "missing file" "nosuch.db: cannot open: No such file" nosuch.db
expect_both "truncated" "trunc.db: truncated" trunc.db target.db
expect_both "schema version" "version.db: schema version 99" version.db target.db
expect_both "other SQLite file" "plain.db: not an ntprof database (application id" plain.db
expect_both "application id" "other.db: not an ntprof database (application id 0x2a)" other.db
expect_both "extra view" "view.db: not ntprof's host schema: view evil differs" view.db target.db
expect_both "trigger" "trig.db: not ntprof's host schema: trigger evil differs" trig.db target.db
expect_both "changed view" "changed.db: not ntprof's host schema: view ntp_cmd_e2e differs" changed.db target.db
expect_both "two hosts, no target" "host.db, host2.db: 2 host recordings and no target" host.db host2.db
expect_both "target alone" "target.db: a target recording; a report needs the host" target.db
expect_both "different -s" "t20.db: recorded with -s 20, h10.db with -s 10" h10.db t20.db
expect_both "no commands" "idle.db: no commands recorded" idle.db
expect_both "same file twice" "given twice" host.db host.db
"$NTPROF" report > /dev/null 2> err.txt
[ $? -eq 2 ] && grep -q "no recording given" err.txt && ok || bad "no argument: usage error, exit 2"
expect_error "group not found" "no group matches 'write'" "$NTPROF" report -g write host.db

# --timeline WIDTH: seconds, or with a unit; the report before the series is
# the report without the option (stats_check.py checks the series' numbers)
"$NTPROF" report host.db target.db > plain.txt 2>&1
for w in 1s 500ms 0.5 2 250us .25; do
	"$NTPROF" report --timeline "$w" host.db target.db > tl.txt 2> err.txt
	if [ $? -eq 0 ] && [ ! -s err.txt ] && head -n "$(wc -l < plain.txt)" tl.txt | cmp -s - plain.txt &&
	   grep -q "^time series: buckets of " tl.txt
	then ok; else bad "--timeline $w"; cat err.txt >&2; fi
done
for w in x 1x 0 -1 1e999 inf nan 0x10 '' ' 1' 1ns 0.0000001 86401; do
	"$NTPROF" report --timeline "$w" host.db > out.txt 2> err.txt
	[ $? -eq 2 ] && [ ! -s out.txt ] && [ "$(wc -l < err.txt)" -eq 1 ] &&
		grep -qF "ntprof report: --timeline: '$w': expected a width such as 1s, 500ms or 0.5 (seconds)" err.txt &&
		ok || { bad "--timeline '$w' not refused as a usage error"; cat err.txt >&2; }
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
