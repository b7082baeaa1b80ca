#!/bin/sh
# The cache of prepared runs (lib/cache.c, docs/performance.md "How a run is
# prepared"): the answers with the cache are those without it, first time
# and again; a changed or replaced recording is prepared anew; a damaged or
# forged cache file is refused (said on stderr), removed and rebuilt, never
# believed; --no-cache neither reads nor writes it; merge reads and keeps
# it too; plain sqlite3's set-up
# (ntprof-shell --sql) reads the prepared run; a cache directory open
# to others is not used; the cap evicts; a recording found whole is not
# read through again until it changes; the recordings are never written.
# Run from the repository root after `make`.
set -u
top=$(pwd)
NTPROF=${NTPROF:-$top/ntprof}
SHELL_BIN=${SHELL_BIN:-$top/ntprof-shell}
GEN=${GEN:-$top/tests/ntprof-gen}
TEST=cache_test
. "$top/tests/testlib.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-cache-XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
cache=$dir/cache
# every preparation is said (a hit says nothing): how the tests tell them apart
export NTPROF_CACHE_DIR="$cache" NTPROF_PREPARE_NOTE_AFTER=0
unset NTPROF_CACHE_MAX

# Two runs of the same shape, different commands: files of the same size.
"$GEN" -o host.db -t target.db -n 1 -r 500 -x 1 > /dev/null || exit 1
"$GEN" -o other.db -t other-t.db -n 1 -r 500 -x 2 > /dev/null || exit 1
"$GEN" -o base.db -t base-t.db -n 1 -r 500 -x 3 -M 20000 > /dev/null || exit 1
[ "$(stat -c %s host.db)" = "$(stat -c %s other.db)" ] || { bad "the two runs' sizes differ"; finish; }
sha256sum host.db target.db other.db other-t.db base.db base-t.db > sums.before

prepared() { grep -q '^ntprof: preparing the run took [0-9.]* s; kept in ' "$1"; }
entries() { ls "$cache" 2>/dev/null | grep -c '^[0-9a-f]*\.db$'; }

# same NAME CMD...: CMD with --no-cache, then with an empty cache twice: the
# same output each time; the first prepares and keeps the run, the second
# reads it (says nothing).
same() {
	name=$1
	shift
	"$@" --no-cache > want.txt 2> want.err || { bad "$name --no-cache: failed"; cat want.err >&2; return; }
	# (report and report -d share one prepared run)
	rm -f "$cache"/*.db "$cache"/*.mac
	"$@" > first.txt 2> first.err
	"$@" > again.txt 2> again.err
	if ! cmp -s want.txt first.txt; then bad "$name: the first run's output differs"; return; fi
	if ! cmp -s want.txt again.txt; then bad "$name: the output read from the cache differs"; return; fi
	if prepared want.err; then bad "$name: --no-cache kept the run"; return; fi
	if ! prepared first.err; then bad "$name: the first run did not prepare:"; cat first.err >&2; return; fi
	if [ -s again.err ]; then bad "$name: the second run prepared again:"; cat again.err >&2; return; fi
	ok
}

# The answers: every format of the report, the portable form, the time
# series, the shell's dot-commands, compare and plot.
same "report" "$NTPROF" report host.db target.db
same "report -d" "$NTPROF" report -d host.db target.db
same "report -d -a --json" "$NTPROF" report -d -a --json host.db target.db
same "report -d --csv" "$NTPROF" report -d --csv host.db target.db
same "report -p -d" "$NTPROF" report -p -d host.db target.db
same "report --timeline" "$NTPROF" report --timeline 100ms host.db target.db
same "report host only" "$NTPROF" report -d host.db
same "shell" "$SHELL_BIN" -c .stages -c .components -c '.percentiles --stages' \
	-c '.slowest 10' -c '.timeline 100ms' -c .hist -c .cdf -c .match \
	-c 'SELECT count(*), sum(wire) FROM ntp_joined;' host.db target.db
same "compare" "$NTPROF" compare -d base.db,base-t.db host.db,target.db
same "shell .compare" "$SHELL_BIN" -c .compare base.db,base-t.db host.db,target.db
for o in want first again; do rm -rf "plot-$o"; done
"$NTPROF" plot --no-cache -o plot-want host.db,target.db > /dev/null 2>&1
"$NTPROF" plot -o plot-first host.db,target.db > /dev/null 2> first.err
"$NTPROF" plot -o plot-again host.db,target.db > /dev/null 2> again.err
diff -r plot-want plot-first > /dev/null && diff -r plot-want plot-again > /dev/null &&
	[ ! -s again.err ] && ok || bad "plot: the files differ, or the second run prepared again"
# merge reads the run an earlier command kept, and keeps the one it
# prepares, which the report then reads; the merged file is the --no-cache
# merge's, row for row (sqlite3's .dump)
rm -f "$cache"/*.db "$cache"/*.mac m-*.ntp
"$NTPROF" merge --no-cache -o m-want.ntp host.db target.db 2> want.err
expect "merge --no-cache: nothing kept" "$(entries)" 0
"$NTPROF" merge -o m-first.ntp host.db target.db 2> first.err
"$NTPROF" merge -o m-again.ntp host.db target.db 2> again.err
"$NTPROF" report -d host.db target.db > /dev/null 2> report.err
! prepared want.err && prepared first.err && [ ! -s again.err ] && [ ! -s report.err ] && ok ||
	bad "merge: --no-cache kept, the first did not prepare, or the second merge or the report prepared again"
sqlite3 m-want.ntp .dump > want.txt
for m in first again; do
	sqlite3 "m-$m.ntp" .dump > got.txt
	cmp -s want.txt got.txt && ok || bad "merge ($m): the merged file differs from the --no-cache one"
done
# One run's prepared tables do not depend on its label: those the report
# prepared serve plot, which labels the run otherwise (the report by the
# path given, plot by the file's name); a comparison's runs are named by
# their labels, and other labels read the same runs.
rm -f "$cache"/*.db "$cache"/*.mac
rm -rf plot-shared
"$NTPROF" report ./host.db target.db > /dev/null 2> first.err
"$NTPROF" plot -o plot-shared host.db,target.db > /dev/null 2> again.err
prepared first.err && [ ! -s again.err ] && diff -r plot-want plot-shared > /dev/null && ok ||
	bad "plot after the report: the run prepared again, or the files differ"
"$NTPROF" compare -l a,b base.db,base-t.db host.db,target.db > want.txt 2> first.err
"$NTPROF" compare -l c,d base.db,base-t.db host.db,target.db > got.txt 2> again.err
prepared first.err && [ ! -s again.err ] && grep -q '^ *c *d$' got.txt && ! cmp -s want.txt got.txt &&
	ok || bad "compare with other labels: prepared anew, or not named by them"

# With no memory for the percentiles' values (NTPROF_SELECT_MEMORY=0) each
# group's values are written to a temporary file and selected from it: the
# same answers. That they are written is shown by a TMPDIR that cannot hold
# them: then the report fails, saying so.
spilled() {
	name=$1
	shift
	"$@" --no-cache > want.txt 2> want.err
	NTPROF_SELECT_MEMORY=0 "$@" --no-cache > got.txt 2> got.err
	if cmp -s want.txt got.txt && [ -s want.txt ]; then ok
	else bad "$name: the answers differ when the values are kept in a file"; cat got.err >&2; fi
}
spilled "spilled report -d -a --json" "$NTPROF" report -d -a --json host.db target.db
spilled "spilled report -d" "$NTPROF" report -d host.db target.db
spilled "spilled compare" "$NTPROF" compare -d base.db,base-t.db host.db,target.db
spilled "spilled shell" "$SHELL_BIN" -c '.percentiles --stages' -c .hist -c .cdf host.db target.db
rm -rf plot-want plot-got
"$NTPROF" plot --no-cache -o plot-want host.db,target.db > /dev/null 2>&1
NTPROF_SELECT_MEMORY=0 "$NTPROF" plot --no-cache -o plot-got host.db,target.db > /dev/null 2>&1
diff -r plot-want plot-got > /dev/null && ok || bad "spilled plot: the files differ"
TMPDIR=$dir/none NTPROF_SELECT_MEMORY=0 "$NTPROF" report --no-cache host.db target.db \
	> got.txt 2> got.err
rc=$?
expect "spilled into a TMPDIR that does not exist: exit" "$rc" 1
grep -q 'cannot keep the values in a temporary file: No such file or directory' got.err &&
	ok || { bad "spilled into a TMPDIR that does not exist: not said"; cat got.err >&2; }

# Plain sqlite3: ntprof-shell --sql prepares the run (or reads it) and the
# set-up attaches that cache file instead of preparing the run again; every
# canned question's rows are those of the set-up that prepares it itself
# (--no-cache), which prints no ATTACH of the cache.
rm -f "$cache"/*.db "$cache"/*.mac
"$SHELL_BIN" --sql --no-cache host.db target.db > setup-nc.sql 2> setup-nc.err || bad "--sql --no-cache failed"
"$SHELL_BIN" --sql host.db target.db > setup-c.sql 2> setup-c.err || bad "--sql failed"
"$SHELL_BIN" --sql host.db target.db > setup-c2.sql 2> setup-c2.err || bad "--sql again failed"
entry=$(ls "$cache" | grep '^[0-9a-f]*\.db$')
prepared setup-c.err && [ ! -s setup-c2.err ] && cmp -s setup-c.sql setup-c2.sql && ok ||
	bad "--sql: the first did not prepare and keep the run, or the second did not read it"
grep -qx "ATTACH 'file:$cache/$entry?mode=ro' AS _ntp_cache;" setup-c.sql &&
	grep -qx 'CREATE TEMP VIEW "ntp_joined" AS SELECT \* FROM _ntp_cache."_ntp_joined_cache";' setup-c.sql &&
	! grep -q '^CREATE TEMP TABLE "_ntp_joined_cache"' setup-c.sql && ok ||
	bad "--sql: the set-up does not read the prepared run's cache file"
! grep -q ' AS _ntp_cache;$' setup-nc.sql && grep -q '^CREATE TEMP TABLE "_ntp_joined_cache"' setup-nc.sql &&
	! prepared setup-nc.err && ok || bad "--sql --no-cache: the set-up names the cache, or does not prepare"
for q in ntp_shell_stages ntp_shell_components ntp_shell_percentiles ntp_shell_stage_percentiles \
	ntp_shell_slowest ntp_shell_timeline ntp_match_stats ntp_report_rows ntp_report_tail; do
	sqlite3 -init setup-nc.sql :memory: "SELECT * FROM $q" > nc.txt 2> nc.err
	sqlite3 -init setup-c.sql :memory: "SELECT * FROM $q" > c.txt 2> c.err
	[ -s nc.txt ] && cmp -s nc.txt c.txt && ! grep -qv '^-- Loading resources from' nc.err c.err && ok ||
		bad "sqlite3 $q: the rows through the cache differ from those of the set-up that prepares"
done
# the recordings changed since: ntprof-shell writes a set-up against the
# new preparation, never the old file
cp host.db host-copy.db
"$SHELL_BIN" --sql host-copy.db target.db > setup-n.sql 2> /dev/null
[ "$(grep -c "^ATTACH 'file:$cache/" setup-n.sql)" = 1 ] &&
	! grep -q "^ATTACH 'file:$cache/$entry?" setup-n.sql && ok ||
	bad "--sql of other recordings: the set-up attaches the first run's cache file"

# A recording touched (same size and content, a new mtime): prepared anew.
"$NTPROF" report -d host.db target.db > /dev/null 2>&1
"$NTPROF" report -d host.db target.db > want.txt 2> err.txt
[ ! -s err.txt ] && ok || bad "report -d: not read from the cache before the touch"
touch host.db
"$NTPROF" report -d host.db target.db > got.txt 2> err.txt
prepared err.txt && cmp -s want.txt got.txt && ok || bad "a touched recording: not prepared anew"

# A recording replaced by another run's, same size, its mtime set back: the
# report is the new content's, never the cached one's.
"$NTPROF" report -d host.db target.db > old.txt 2> err.txt
touch -r host.db stamp
cat other.db > host.db
touch -r stamp host.db
"$NTPROF" report -d --no-cache host.db target.db > want.txt 2> /dev/null
"$NTPROF" report -d host.db target.db > got.txt 2> err.txt
! cmp -s old.txt want.txt && cmp -s want.txt got.txt && prepared err.txt && ok ||
	bad "a replaced recording (same size and mtime): the cached report served"
sha256sum host.db target.db other.db other-t.db base.db base-t.db |
	sed 's/^[0-9a-f]*  host\.db$/X/' > sums.now
"$NTPROF" report -d host.db target.db > want.txt 2> /dev/null # the entry of this content

# The entry of the current recordings: its file and its MAC.
entry() { ls -t "$cache"/*.db | head -n 1; }
db=$(entry)
mac=${db%.db}.mac
[ -f "$db" ] && [ -f "$mac" ] && ok || bad "no cache entry for the current recordings"
# A report prepares what it reads: not the per-command end to end of the
# time series and .slowest (cache_when 3 and 4, sql/join.sql), which
# ntprof's own questions read from the recordings (sql/native.sql).
expect "a report's entry: no per-command end to end" \
	"$(sqlite3 "$db" "SELECT count(*) FROM sqlite_schema WHERE name LIKE '%e2e%'")" 0
# nor does any question of the shell, those that read the end to end
# included: answered from the entry as it is, as --no-cache answers
for c in '.percentiles --stages' .cdf .queues 'SELECT count(*) FROM ntp_command;' '.slowest 3' \
	'.timeline 100ms' 'SELECT count(*), sum(sampled) FROM ntp_shell_timeline;' \
	'.report --timeline 1s'; do
	"$SHELL_BIN" -c "$c" host.db target.db > pct1.txt 2> pct1.err
	"$SHELL_BIN" --no-cache -c "$c" host.db target.db > pct0.txt 2> /dev/null
	[ ! -s pct1.err ] && [ -s pct0.txt ] && cmp -s pct0.txt pct1.txt &&
		[ "$(sqlite3 "$db" "SELECT count(*) FROM sqlite_schema WHERE name LIKE '%e2e%'")" = 0 ] &&
		ok || { bad "$c on a report's entry: prepared, or other answers"; cat pct1.err >&2; }
done
"$NTPROF" report --timeline 100ms host.db target.db > tl1.txt 2> tl1.err
"$NTPROF" report --no-cache --timeline 100ms host.db target.db > tl0.txt 2> /dev/null
[ ! -s tl1.err ] && [ -s tl0.txt ] && cmp -s tl0.txt tl1.txt &&
	[ "$(sqlite3 "$db" "SELECT count(*) FROM sqlite_schema WHERE name LIKE '%e2e%'")" = 0 ] &&
	ok || { bad "report --timeline on a report's entry: prepared, or other answers"; cat tl1.err >&2; }
# Plain sqlite3's set-up (--sql) reads the end to end from the prepared run:
# it adds it to the entry, once, and the shell's answers stay the same.
"$SHELL_BIN" --sql host.db target.db > /dev/null 2> more1.err
"$SHELL_BIN" --sql host.db target.db > /dev/null 2> more2.err
"$SHELL_BIN" -c '.slowest 3' host.db target.db > more1.txt 2> more3.err
"$SHELL_BIN" --no-cache -c '.slowest 3' host.db target.db > more0.txt 2> /dev/null
grep -q "^ntprof: preparing the per-command end to end (plain sqlite3's .timeline, .slowest) took [0-9.]* s; kept in " \
	more1.err && ! prepared more1.err && [ ! -s more2.err ] && [ ! -s more3.err ] &&
	[ "$(wc -l < more0.txt)" -ge 4 ] && cmp -s more0.txt more1.txt && [ "$(entry)" = "$db" ] &&
	[ "$(sqlite3 "$db" "SELECT count(*) FROM sqlite_schema WHERE name LIKE '%e2e%'")" -gt 0 ] && ok ||
	{ bad "a report's entry: the per-command end to end not added once by --sql, or other answers"
		cat more1.err more2.err more3.err >&2; }
"$NTPROF" report -d host.db target.db > got.txt 2> err.txt
[ ! -s err.txt ] && cmp -s want.txt got.txt && ok ||
	{ bad "the entry with the per-command end to end added: the report prepared again"; cat err.txt >&2; }
# its indexes (_ntp_cache_index): the join's, by host command (sql/join.sql),
# and the host's commands by end to end, .slowest's order (sql/native.sql)
expect "the cache entry's indexes" "$(sqlite3 "$db" "SELECT group_concat(sql, '; ')
	FROM (SELECT sql FROM sqlite_schema WHERE type = 'index' ORDER BY name)")" \
	'CREATE INDEX "_ntp_host_e2e_cache_i" ON "_ntp_host_e2e_cache" (e2e DESC, db, t); CREATE INDEX "_ntp_joined_cache_i" ON "_ntp_joined_cache" (hdb, ht)'
# ntp_shell_slowest's first rows come off that index, in its order, with no
# sort of every command (at most of the rows of one end to end)
plan=$("$SHELL_BIN" -c 'EXPLAIN QUERY PLAN SELECT * FROM ntp_shell_slowest LIMIT 10' \
	host.db target.db 2>&1)
echo "$plan" | grep -q "SCAN _ntp_cache._ntp_host_e2e_cache USING COVERING INDEX _ntp_host_e2e_cache_i" &&
	! echo "$plan" | grep -q "USE TEMP B-TREE FOR ORDER BY" && ok ||
	bad "ntp_shell_slowest over the prepared run: not in its index's order: $plan"

# The end-to-end tables are keyed by recording and cmd.t (_ntp_cache_ddl,
# sql/native.sql), and plain sqlite3's .timeline over the prepared run
# (the portable _ntp_series_e2e) finds each bucket's commands by a range
# of that key, and computes nothing from the recordings' commands: with
# ntp_host_cmd made to fail when a row of it is read, .timeline's rows
# are the same, while _ntp_series_agg, which reads it, fails.
expect "the end-to-end tables' keys" "$(sqlite3 "$db" "SELECT group_concat(name || ' '
	|| (sql LIKE '%PRIMARY KEY (db, t)) WITHOUT ROWID'), ', ') FROM (SELECT name, sql
	FROM sqlite_schema WHERE name IN ('_ntp_host_e2e_cache', '_ntp_target_e2e_cache')
	ORDER BY name)")" "_ntp_host_e2e_cache 1, _ntp_target_e2e_cache 1"
"$SHELL_BIN" --sql host.db target.db > setup.sql 2> /dev/null
tl='UPDATE ntp_bucket SET width_ns = 20000000; SELECT * FROM ntp_shell_timeline;'
plan=$(sqlite3 -init setup.sql :memory: "EXPLAIN QUERY PLAN SELECT * FROM _ntp_series_e2e" 2>&1)
for side in host target; do
	echo "$plan" | grep -q "SEARCH _ntp_cache._ntp_${side}_e2e_cache USING PRIMARY KEY (db=? AND t>? AND t<?)" &&
		! echo "$plan" | grep -q "SCAN _ntp_cache._ntp_${side}_e2e_cache" && ok ||
		bad "plain sqlite3's _ntp_series_e2e: the $side's buckets not found by its key: $plan"
done
sed "s/^  'host' AS db, s.t AS t, s.grp AS grp,$/  'host' AS db, s.t AS t, s.grp + 0 * json(s.t || 'x') AS grp,/" \
	setup.sql > poison.sql
sqlite3 -init setup.sql :memory: "$tl" > tl-want.txt 2>&1
sqlite3 -init poison.sql :memory: "$tl" > tl-got.txt 2>&1
sqlite3 -init poison.sql :memory: "SELECT count(*) FROM _ntp_series_agg" > agg.txt 2>&1
[ "$(wc -l < tl-want.txt)" -ge 5 ] && cmp -s tl-want.txt tl-got.txt && grep -q "malformed JSON" agg.txt &&
	ok || { bad "plain sqlite3's .timeline over the prepared run read the recordings' commands"
		diff tl-want.txt tl-got.txt | head -5 >&2; head -3 agg.txt >&2; }

# Damaged: a byte changed in the middle of the file.
size=$(stat -c %s "$db")
printf 'X' | dd of="$db" bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
"$NTPROF" report -d host.db target.db > got.txt 2> err.txt
grep -q "^ntprof: warning: prepared run .* refused: its MAC does not match" err.txt &&
	prepared err.txt && cmp -s want.txt got.txt && ok ||
	{ bad "a damaged cache file: not refused, or believed:"; cat err.txt >&2; }
"$NTPROF" report -d host.db target.db > got.txt 2> err.txt
[ ! -s err.txt ] && cmp -s want.txt got.txt && ok || bad "a damaged cache file: not rebuilt"

# Forged: valid SQLite with other numbers, the MAC left as it was.
db=$(entry)
sqlite3 "$db" "UPDATE _ntp_report_group_run_cache SET name = 'forged ' || name;
	UPDATE _ntp_report_component_stats_cache SET p50_ns = p50_ns + 1000000;" || bad "cannot forge"
"$NTPROF" report -d host.db target.db > got.txt 2> err.txt
grep -q "refused: its MAC does not match" err.txt && ! grep -q forged got.txt &&
	cmp -s want.txt got.txt && ok || { bad "a forged cache file: believed:"; cat err.txt >&2; }
# ... and with a MAC of its own (under another secret)
db=$(entry)
sqlite3 "$db" "UPDATE _ntp_report_group_run_cache SET name = 'forged ' || name;"
head -c 64 /dev/zero | tr '\0' 'a' > "${db%.db}.mac"
"$NTPROF" report -d host.db target.db > got.txt 2> err.txt
grep -q "refused: its MAC does not match" err.txt && cmp -s want.txt got.txt && ok ||
	bad "a forged cache file with a MAC of its own: believed"
# ... and its MAC gone
rm -f "$(entry | sed 's/\.db$/.mac/')"
"$NTPROF" report -d host.db target.db > got.txt 2> err.txt
grep -q "refused: its MAC is missing" err.txt && cmp -s want.txt got.txt && ok ||
	bad "a cache file without its MAC: believed"

# Signed under the user's own secret (an ntprof that keeps other indexes,
# say): its tables are checked all the same, the index by its whole SQL.
# sign DB: the MAC of cache file DB, as lib/cache.c computes it
sign() {
	python3 - "$1" "$cache/key" <<'PY'
import hashlib, hmac, sqlite3, sys
db, secret = sys.argv[1], open(sys.argv[2], "rb").read()
key = sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute(
    "SELECT key FROM _ntp_cache_meta").fetchone()[0]
msg = b"ntprof prepared run v1\0" + key.encode() + b"\0" + open(db, "rb").read()
print(hmac.new(secret, msg, hashlib.sha256).hexdigest(), end="")
PY
}
"$NTPROF" report -d host.db target.db > /dev/null 2>&1
db=$(entry)
expect "the test's MAC of an entry" "$(sign "$db")" "$(cat "${db%.db}.mac")"
for change in "DROP INDEX _ntp_joined_cache_i" \
	"DROP INDEX _ntp_joined_cache_i; CREATE INDEX _ntp_joined_cache_i ON _ntp_joined_cache (ht, hdb)" \
	"CREATE INDEX _ntp_joined_cache_j ON _ntp_joined_cache (tdb, tt)"; do
	db=$(entry)
	sqlite3 "$db" "$change" && sign "$db" > "${db%.db}.mac" || bad "cannot sign: $change"
	"$NTPROF" report -d host.db target.db > got.txt 2> err.txt
	grep -q "refused: it does not hold the prepared tables" err.txt && cmp -s want.txt got.txt &&
		ok || { bad "signed, with '$change': believed:"; cat err.txt >&2; }
done
# ... and one of the tables prepared on demand without the other
"$SHELL_BIN" --sql host.db target.db > /dev/null 2>&1
db=$(entry)
sqlite3 "$db" "DROP TABLE _ntp_target_e2e_cache" && sign "$db" > "${db%.db}.mac" ||
	bad "cannot sign without _ntp_target_e2e_cache"
"$SHELL_BIN" -c '.slowest 3' host.db target.db > got.txt 2> err.txt
grep -q "refused: it holds some of the tables prepared on demand, not all" err.txt && prepared err.txt &&
	cmp -s more0.txt got.txt && ok || { bad "signed, with one end-to-end table: believed"; cat err.txt >&2; }

# A comparison of runs each prepared alone (by a report, or by a
# comparison: lib/prepare.c prepares and keeps each run alone) reads each
# run's file (ntp_cache_load_runs): it prepares nothing and keeps nothing, and
# its answers are the --no-cache comparison's, in either order (the second
# run's recordings renamed host2 and target2) and with labels; so are the
# shell's, its own SQL over the join and the drill-down included.
rm -f "$cache"/*.db "$cache"/*.mac "$cache"/*.seen
"$NTPROF" report base.db base-t.db > /dev/null 2>&1
base_entry=$(entry)
"$NTPROF" report host.db target.db > /dev/null 2>&1
kept=$(entries)
for runs in "base.db,base-t.db host.db,target.db" "host.db,target.db base.db,base-t.db" \
	"-l x,y base.db,base-t.db host.db,target.db"; do
	for f in -d "-d --json" "-d --csv"; do
		# shellcheck disable=SC2086 # options and runs
		"$NTPROF" compare $f --no-cache $runs > fwant.txt 2> fwant.err
		# shellcheck disable=SC2086
		"$NTPROF" compare $f $runs > fgot.txt 2> ferr.txt
		[ -s fwant.txt ] && [ ! -s ferr.txt ] && [ "$(entries)" = "$kept" ] && cmp -s fwant.txt fgot.txt &&
			ok || { bad "compare $f $runs of runs prepared alone: prepared, or other answers"
				cat ferr.txt >&2; diff fwant.txt fgot.txt | head -3 >&2; }
	done
done
rm -rf plot-fwant plot-fgot
"$NTPROF" plot --no-cache -o plot-fwant base.db,base-t.db host.db,target.db > /dev/null 2>&1
"$NTPROF" plot -o plot-fgot base.db,base-t.db host.db,target.db > /dev/null 2> ferr.txt
[ -s plot-fwant/index.html ] && diff -r plot-fwant plot-fgot > /dev/null && [ ! -s ferr.txt ] &&
	[ "$(entries)" = "$kept" ] && ok || bad "plot of runs prepared alone: prepared, or other files"
q="SELECT hdb, tdb, count(*), sum(wire), sum(e2e) FROM ntp_joined GROUP BY 1, 2 ORDER BY 1, 2;"
d="SELECT hdb, tdb, mode, count(*), sum(storage), sum(t_e2e) FROM ntp_command WHERE hdb = 'host2'
	GROUP BY 1, 2, 3;"
"$SHELL_BIN" --no-cache -c .compare -c "$q" -c "$d" host.db,target.db base.db,base-t.db > fwant.txt 2> /dev/null
"$SHELL_BIN" -c .compare -c "$q" -c "$d" host.db,target.db base.db,base-t.db > fgot.txt 2> ferr.txt
grep -q '^host2 *target2 *joined' fwant.txt && [ ! -s ferr.txt ] && [ "$(entries)" = "$kept" ] &&
	cmp -s fwant.txt fgot.txt && ok || { bad "the shell over runs prepared alone: prepared, or other answers"
		cat ferr.txt >&2; diff fwant.txt fgot.txt | head -3 >&2; }
# Every prepared view of the runs read from their files holds the rows of
# the runs prepared together (as sets: the union is in the runs' order),
# the values a session takes from all its recordings included (a group's
# name with its host's, every target's records); joined and host only.
"$NTPROF" report base.db > /dev/null 2>&1
"$NTPROF" report host.db > /dev/null 2>&1
for runs in "base.db,base-t.db host.db,target.db" "--label a,b base.db host.db"; do
	# shellcheck disable=SC2086 # the runs
	views=$("$SHELL_BIN" --no-cache -csv -noheader -c "SELECT name FROM _ntp_cache_table
		WHERE NOT more ORDER BY ord" $runs 2> /dev/null | tr -d '\r')
	n=0 differ=
	for v in $views; do
		# shellcheck disable=SC2086
		"$SHELL_BIN" --no-cache -csv -noheader -c "SELECT * FROM $v" $runs 2> /dev/null |
			sort > fwant.txt
		# shellcheck disable=SC2086
		"$SHELL_BIN" -csv -noheader -c "SELECT * FROM $v" $runs 2> ferr.txt | sort > fgot.txt
		[ -s fwant.txt ] && n=$((n + 1))
		cmp -s fwant.txt fgot.txt && [ ! -s ferr.txt ] || differ="$differ $v"
	done
	[ "$n" -ge 10 ] && [ -z "$differ" ] && ok ||
		bad "runs read from their files ($runs): views differ from the runs prepared together:$differ"
done
# Plain sqlite3's set-up of runs read from their files attaches each file
# and holds the comparison's statistics as the session computed them (the
# portable view would sort every command's values); every canned answer is
# that of the set-up that prepares the runs itself.
"$SHELL_BIN" --sql --no-cache base.db,base-t.db host.db,target.db > fsetup-nc.sql 2> /dev/null
"$SHELL_BIN" --sql base.db,base-t.db host.db,target.db > fsetup.sql 2> /dev/null
[ "$(grep -c "^ATTACH 'file:$cache/[0-9a-f]*\.db?mode=ro' AS \"_ntp_cache_r[01]\";$" fsetup.sql)" = 2 ] &&
	grep -q '^INSERT INTO "_ntp_compare_stage_cache" VALUES (' fsetup.sql && ok ||
	bad "--sql of runs read from their files: the set-up does not read them"
for q in ntp_compare_rows ntp_compare_note ntp_shell_percentiles ntp_report_rows ntp_match_stats; do
	sqlite3 -init fsetup-nc.sql :memory: "SELECT * FROM $q" > nc.txt 2> nc.err
	sqlite3 -init fsetup.sql :memory: "SELECT * FROM $q" > c.txt 2> c.err
	{ [ -s nc.txt ] || [ "$q" = ntp_compare_note ]; } && cmp -s nc.txt c.txt &&
		! grep -qv '^-- Loading resources from' nc.err c.err && ok ||
		bad "sqlite3 $q over runs read from their files: other rows than the set-up that prepares"
done
# One run's file with the per-command end to end (plain sqlite3's set-up
# of it added them), the other's without: read all the same, the end to
# end left out, and neither file removed.
rm -f "$cache"/*.db "$cache"/*.mac "$cache"/*.seen
"$NTPROF" report base.db base-t.db > /dev/null 2>&1
"$NTPROF" report host.db target.db > /dev/null 2>&1
"$SHELL_BIN" --sql host.db target.db > /dev/null 2>&1
kept=$(entries)
"$NTPROF" compare -d --no-cache base.db,base-t.db host.db,target.db > fwant.txt 2> /dev/null
"$NTPROF" compare -d base.db,base-t.db host.db,target.db > fgot.txt 2> ferr.txt
"$NTPROF" report base.db base-t.db > /dev/null 2>> ferr.txt
"$NTPROF" report host.db target.db > /dev/null 2>> ferr.txt
[ ! -s ferr.txt ] && [ "$(entries)" = "$kept" ] && cmp -s fwant.txt fgot.txt && ok ||
	{ bad "compare of runs prepared alone, one with the end to end: prepared, or a file removed"
		cat ferr.txt >&2; }
# The shell's questions over those runs that read the end to end
# (.timeline, .slowest) read it from the recordings: they prepare and add
# nothing, and answer as --no-cache. Plain sqlite3's set-up adds it to the
# file of each run that lacks it, as the set-up of that run alone would,
# once, and then reads it from the files; the shell's answers stay the same.
runs="base.db,base-t.db host.db,target.db"
# shellcheck disable=SC2086 # the runs
"$SHELL_BIN" --no-cache -c '.timeline 100ms' -c '.slowest 3' $runs > fwant.txt 2> /dev/null
# shellcheck disable=SC2086
"$SHELL_BIN" -c '.timeline 100ms' -c '.slowest 3' $runs > fgot.txt 2> ferr.txt
# shellcheck disable=SC2086
"$SHELL_BIN" --sql $runs > /dev/null 2> ferr2.txt
# shellcheck disable=SC2086
"$SHELL_BIN" --sql $runs > fsetup2.sql 2> ferr3.txt
# shellcheck disable=SC2086
"$SHELL_BIN" -c '.timeline 100ms' -c '.slowest 3' $runs > fgot2.txt 2>> ferr3.txt
[ ! -s ferr.txt ] && [ "$(grep -c '^ntprof: preparing the per-command end to end' ferr2.txt)" = 1 ] &&
	! grep -q '^ntprof: preparing the run' ferr2.txt &&
	[ ! -s ferr3.txt ] && [ "$(entries)" = "$kept" ] && [ -s fwant.txt ] && cmp -s fwant.txt fgot.txt &&
	cmp -s fwant.txt fgot2.txt && grep -q '_ntp_cache_r0"."_ntp_host_e2e_cache"' fsetup2.sql &&
	grep -q '_ntp_cache_r1"."_ntp_host_e2e_cache"' fsetup2.sql && ok ||
	{ bad "the end to end over runs read from their files: prepared by the shell, or not added once by --sql"
		cat ferr.txt ferr2.txt ferr3.txt >&2; }
sqlite3 -init fsetup-nc.sql :memory: "SELECT * FROM ntp_shell_timeline" > nc.txt 2> /dev/null
sqlite3 -init fsetup2.sql :memory: "SELECT * FROM ntp_shell_timeline" > c.txt 2> /dev/null
[ -s nc.txt ] && cmp -s nc.txt c.txt && ok ||
	bad "sqlite3's timeline over runs read from their files: other rows than the set-up that prepares"
# A comparison with nothing prepared prepares each run alone, and keeps
# it as a report of it would: reports of both runs then prepare nothing
# and answer as --no-cache.
rm -f "$cache"/*.db "$cache"/*.mac "$cache"/*.seen
"$NTPROF" compare -d base.db,base-t.db host.db,target.db > /dev/null 2> ferr.txt
"$NTPROF" report -d --no-cache base.db base-t.db > fwant.txt 2> /dev/null
"$NTPROF" report -d base.db base-t.db > fgot.txt 2> fgot.err
"$NTPROF" report -d host.db target.db > /dev/null 2>> fgot.err
[ "$(grep -c '^ntprof: preparing the run took' ferr.txt)" = 2 ] && [ "$(entries)" = 2 ] &&
	[ ! -s fgot.err ] && cmp -s fwant.txt fgot.txt && ok ||
	{ bad "compare with nothing prepared: the runs not kept alone"; cat ferr.txt fgot.err >&2; }
# A host run alone beside a joined one: the runs differ in shape, and are
# prepared together.
"$NTPROF" report -d base.db > /dev/null 2>&1
"$NTPROF" compare -d --no-cache base.db host.db,target.db > fwant.txt 2> /dev/null
"$NTPROF" compare -d base.db host.db,target.db > fgot.txt 2> ferr.txt
prepared ferr.txt && cmp -s fwant.txt fgot.txt && ok ||
	bad "compare of a host run and a joined run, each prepared alone: not prepared together"
# A run's file damaged: refused, removed, and the runs prepared together;
# signed with another object in it, or with the comparison's statistics
# (which a run alone never prepares): refused too.
runs="base.db,base-t.db host.db,target.db"
"$NTPROF" compare -d --no-cache $runs > fwant.txt 2> /dev/null
size=$(stat -c %s "$base_entry")
printf 'X' | dd of="$base_entry" bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
# shellcheck disable=SC2086 # the runs
"$NTPROF" compare -d $runs > fgot.txt 2> ferr.txt
grep -q "^ntprof: warning: prepared run $base_entry refused: its MAC does not match (damaged, or not written by ntprof); preparing the run again$" ferr.txt &&
	prepared ferr.txt && cmp -s fwant.txt fgot.txt && ok ||
	{ bad "compare of runs prepared alone, one damaged: not refused, or believed"; cat ferr.txt >&2; }
# shellcheck disable=SC2086 # the runs
"$NTPROF" compare -d $runs > fgot.txt 2> ferr.txt
[ ! -s ferr.txt ] && cmp -s fwant.txt fgot.txt && ok ||
	{ bad "compare of runs prepared alone, one damaged: its run not kept again"; cat ferr.txt >&2; }
for change in "CREATE TABLE t (x)" "CREATE TABLE _ntp_compare_stage_cache (x)"; do
	rm -f "$cache"/*.db "$cache"/*.mac "$cache"/*.seen
	"$NTPROF" report base.db base-t.db > /dev/null 2>&1
	"$NTPROF" report host.db target.db > /dev/null 2>&1
	db=$(entry)
	sqlite3 "$db" "$change" && sign "$db" > "${db%.db}.mac" || bad "cannot sign: $change"
	# shellcheck disable=SC2086 # the runs
	"$NTPROF" compare -d $runs > fgot.txt 2> ferr.txt
	grep -q "^ntprof: warning: prepared run $db refused: it" ferr.txt && prepared ferr.txt &&
		[ -z "$(sqlite3 "$db" "SELECT name FROM sqlite_schema WHERE name IN ('t',
			'_ntp_compare_stage_cache')")" ] && cmp -s fwant.txt fgot.txt && ok ||
		{ bad "compare of runs prepared alone, one signed with '$change': believed"; cat ferr.txt >&2; }
done

# --no-cache neither writes nor reads it.
rm -rf "$cache"
"$NTPROF" report -d --no-cache host.db target.db > got.txt 2> err.txt
[ ! -e "$cache" ] && cmp -s want.txt got.txt && ok || bad "--no-cache wrote the cache"
"$NTPROF" report -d host.db target.db > /dev/null 2>&1
db=$(entry)
sqlite3 "$db" "UPDATE _ntp_report_group_run_cache SET name = 'forged ' || name;"
"$NTPROF" report -d --no-cache host.db target.db > got.txt 2> err.txt
! grep -q refused err.txt && cmp -s want.txt got.txt && [ -f "$db" ] && ok ||
	bad "--no-cache read the cache"
"$SHELL_BIN" --no-cache -c .stages host.db target.db > got.txt 2> err.txt
! grep -q refused err.txt && ! grep -q forged got.txt && ok || bad "ntprof-shell --no-cache read the cache"
rm -f "$db"

# A cache directory others may write to is not used, and said so.
"$NTPROF" report -d host.db target.db > /dev/null 2>&1
chmod 755 "$cache"
"$NTPROF" report -d host.db target.db > got.txt 2> err.txt
grep -q "^ntprof: warning: cache directory .* is not private" err.txt &&
	grep -q "^ntprof: preparing the run took [0-9.]* s$" err.txt && cmp -s want.txt got.txt && ok ||
	{ bad "a cache directory open to others: used"; cat err.txt >&2; }
chmod 700 "$cache"
# a new one is made private, its parents too
NTPROF_CACHE_DIR="$dir/new/cache" "$NTPROF" report host.db target.db > /dev/null 2>&1
[ "$(stat -c %a "$dir/new/cache")" = 700 ] && [ "$(stat -c %a "$dir/new/cache/key")" = 600 ] &&
	ok || bad "a new cache directory or its key is not private"

# The cap: NTPROF_CACHE_MAX=0 keeps nothing; a generous one keeps each run.
rm -rf "$cache"
NTPROF_CACHE_MAX=0 "$NTPROF" report host.db target.db > /dev/null 2>&1
[ "$(entries)" = 0 ] && ok || bad "NTPROF_CACHE_MAX=0: $(entries) entries kept"
"$NTPROF" report host.db target.db > /dev/null 2>&1
"$NTPROF" report -p host.db target.db > /dev/null 2>&1
[ "$(entries)" = 2 ] && ok || bad "two runs prepared: $(entries) entries kept"

# The verdicts are the thresholds': a run prepared with the default
# --max-lost is not served to a report with another (its own warning).
"$GEN" -o lossy.db -n 0.3 -x 9 -P 0.05 > /dev/null 2>&1 || bad "generator lossy"
"$NTPROF" report lossy.db > lossy1.txt 2>&1
"$NTPROF" report --max-lost 10 lossy.db > lossy2.txt 2>&1
grep -q '^warning: ' lossy1.txt && ! grep -q '^warning: ' lossy2.txt && ok ||
	bad "--max-lost 10 after a prepared run: $(grep -c '^warning: ' lossy2.txt) warnings"

# The integrity check, once per file: a report notes in the cache directory
# the recordings it found whole, and a later one does not check them again:
# it reads what a report with --no-check reads (besides the notes), and a
# report without the notes reads more. What each reads is counted by the
# kernel (rchar of a shell that ran it).
rchar() { sh -c '"$@" > /dev/null 2>&1; sed -n "s/^rchar: //p" /proc/$$/io' sh "$@"; }
oks() { ls "$cache" 2>/dev/null | grep -c '^[0-9a-f]*\.ok$'; }
cp host.db chk.db && cp target.db chk-t.db || bad "copy"
rm -f "$cache"/*.ok
rchar "$NTPROF" report chk.db chk-t.db > /dev/null
expect "a note per recording found whole" "$(oks)" 2
noted=$(rchar "$NTPROF" report chk.db chk-t.db)
unchecked=$(rchar "$NTPROF" report --no-check chk.db chk-t.db)
rm -f "$cache"/*.ok
checked=$(rchar "$NTPROF" report chk.db chk-t.db)
echo "read: $noted bytes with the notes, $unchecked with --no-check, $checked without notes"
# (the notes and the files' first pages, read for them: a few KiB)
[ "$checked" -gt "$unchecked" ] && [ $((noted - unchecked)) -lt $(((checked - unchecked) / 4)) ] &&
	ok || bad "the notes did not spare the check ($noted, $unchecked, $checked)"
# a note the secret did not make is not believed
for f in "$cache"/*.ok; do printf '%064d' 0 > "$f"; done
forged=$(rchar "$NTPROF" report chk.db chk-t.db)
[ $((forged - unchecked)) -ge $(((checked - unchecked) / 2)) ] && ok ||
	bad "a forged note was believed ($forged)"
# --no-cache checks, and notes nothing
rm -f "$cache"/*.ok
"$NTPROF" report --no-cache chk.db chk-t.db > /dev/null 2>&1
expect "--no-cache notes nothing" "$(oks)" 0
# a file changed since its note (a byte past its first page, its mtime set
# back: its ctime moved) is checked again, and refused
"$NTPROF" report chk.db chk-t.db > /dev/null 2>&1
touch -r chk.db chk.ref
printf 'X' | dd of=chk.db bs=1 seek=$(( $(stat -c %s chk.db) / 2 )) conv=notrunc 2> /dev/null
touch -r chk.ref chk.db
"$NTPROF" report chk.db chk-t.db > chk.out 2>&1
rc=$?
[ "$rc" -ne 0 ] && grep -q "fails SQLite's integrity check" chk.out && ok ||
	bad "a recording changed after its note was not checked again (exit $rc): $(head -2 chk.out)"

# report, compare and plot check a file while they prepare it (on another
# core): a file that fails its check, though a report reads it whole (a key
# of an index no report uses, changed), is refused in the check's words,
# nothing is printed of it (compare --sql prepares nothing), and nothing of
# it kept.
cp base.db dmg.db || bad "copy"
root=$(sqlite3 dmg.db "SELECT rootpage FROM sqlite_schema WHERE name = 'sqlite_autoindex_cause_1'")
# damage FILE: that key changed
damage() {
	python3 - "$1" "$root" "$(sqlite3 "$1" 'PRAGMA page_size')" <<'PY'
import sys
path, page, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
b = bytearray(open(path, "rb").read())
at = b.find(b"unreadable", (page - 1) * size, page * size)
b[at] = ord("v")
open(path, "wb").write(b)
PY
}
cp dmg.db dmg2.db && sqlite3 dmg2.db 'UPDATE meta SET wall_stop = wall_start - 1' || bad "copy"
damage dmg.db
dmg_cache=$dir/dmg-cache
NTPROF_CACHE_DIR=$dmg_cache "$NTPROF" report --no-check dmg.db base-t.db > /dev/null 2>&1 &&
	[ "$(sqlite3 "file:dmg.db?immutable=1" 'PRAGMA integrity_check(1)')" != ok ] && ok ||
	bad "the damaged copy is not one a report reads and the check refuses"
for how in "report dmg.db base-t.db" "compare dmg.db,base-t.db other.db,other-t.db" \
	"compare --sql dmg.db,base-t.db other.db,other-t.db" \
	"plot -o $dir/dmg-plots dmg.db,base-t.db"; do
	rm -rf "$dmg_cache"
	# shellcheck disable=SC2086
	NTPROF_CACHE_DIR=$dmg_cache "$NTPROF" $how > dmg.out 2> dmg.err
	rc=$?
	[ "$rc" -eq 1 ] && grep -q "^ntprof [a-z]*: dmg.db: fails SQLite's integrity check" dmg.err &&
		[ ! -s dmg.out ] && [ ! -e "$dir/dmg-plots" ] && ok ||
		bad "ntprof $how: a damaged file not refused (exit $rc): $(head -2 dmg.err)"
	[ "$(ls "$dmg_cache" | grep -c '\.db$')" = 0 ] && ok ||
		bad "ntprof $how: a prepared run kept of a damaged file"
done
# The shell's first question prepares what it reads: .percentiles keeps a
# run without the per-command end to end, and SQL that names a view over it
# (ntp_shell_timeline) reads it from the recordings, with the answers of
# --no-cache, and adds nothing.
lazy_cache=$dir/lazy-cache
e2e_tables() { sqlite3 "$(ls "$lazy_cache"/*.db)" "SELECT count(*) FROM sqlite_schema WHERE name LIKE '%e2e%'"; }
NTPROF_CACHE_DIR=$lazy_cache "$SHELL_BIN" -c '.percentiles --stages' base.db base-t.db \
	> lazy1.txt 2> lazy1.err
prepared lazy1.err && [ "$(e2e_tables)" = 0 ] && ok ||
	{ bad "the shell's .percentiles: its run kept with the per-command end to end"; cat lazy1.err >&2; }
q='SELECT count(*), sum(sampled) FROM ntp_shell_timeline;'
NTPROF_CACHE_DIR=$lazy_cache "$SHELL_BIN" -c "$q" base.db base-t.db > lazy2.txt 2> lazy2.err
"$SHELL_BIN" --no-cache -c "$q" base.db base-t.db > lazy0.txt 2> /dev/null
[ ! -s lazy2.err ] && [ "$(e2e_tables)" = 0 ] && [ -s lazy0.txt ] && cmp -s lazy0.txt lazy2.txt && ok ||
	{ bad "SQL over the per-command end to end: prepared, or other answers"; cat lazy2.err >&2; }
# .sql after a question prints --sql's set-up: the end to end added first
rm -rf "$lazy_cache"
NTPROF_CACHE_DIR=$lazy_cache "$SHELL_BIN" -c '.percentiles' -c '.sql' base.db base-t.db \
	> /dev/null 2> lazy3.err
[ "$(e2e_tables)" -gt 0 ] && ok || { bad ".sql after a question: no end to end kept"; cat lazy3.err >&2; }
# A first question that reads it, with a group (whose check prepares),
# prepares the run once, without the end to end
for c in '.timeline 1s read' '.slowest 2 read' '.report --timeline 1s read'; do
	rm -rf "$lazy_cache"
	NTPROF_CACHE_DIR=$lazy_cache "$SHELL_BIN" -c "$c" base.db base-t.db > /dev/null 2> lazy4.err
	[ "$(grep -c '^ntprof: preparing' lazy4.err)" = 1 ] && prepared lazy4.err &&
		[ "$(e2e_tables)" = 0 ] && ok ||
		{ bad "$c, the first question: not one preparation, or the end to end with it"
			cat lazy4.err >&2; }
done

# Its check's error first, whatever else fails before the verdict: a
# value the open refuses (a stop before the start, in a copy damaged the
# same way), labels compare cannot tell apart
damage dmg2.db
NTPROF_CACHE_DIR=$dmg_cache "$NTPROF" report dmg2.db base-t.db > /dev/null 2> dmg.err
grep -q "dmg2.db: fails SQLite's integrity check" dmg.err && ok ||
	bad "a damaged file with an impossible value: $(head -2 dmg.err)"
NTPROF_CACHE_DIR=$dmg_cache "$NTPROF" compare -l "$(printf 'a\001,a\002')" dmg.db,base-t.db \
	other.db,other-t.db > /dev/null 2> dmg.err
grep -q "dmg.db: fails SQLite's integrity check" dmg.err && ok ||
	bad "compare of a damaged file, its labels alike: $(head -2 dmg.err)"
# A run kept by a report with --no-check gets nothing added before the
# verdict: plain sqlite3's set-up (which adds the per-command end to end
# to it) is refused, and the kept file is as it was
rm -rf "$dmg_cache"
NTPROF_CACHE_DIR=$dmg_cache "$NTPROF" report --no-check dmg.db base-t.db > /dev/null 2>&1
kept=$(ls "$dmg_cache"/*.db 2> /dev/null)
sum=$(cat "$dmg_cache"/*.db 2> /dev/null | sha256sum)
NTPROF_CACHE_DIR=$dmg_cache "$SHELL_BIN" --sql dmg.db base-t.db > dmg.out 2> dmg.err
rc=$?
[ -n "$kept" ] && [ "$rc" -eq 1 ] && grep -q "fails SQLite's integrity check" dmg.err &&
	! grep -q "kept in" dmg.err && [ "$(cat "$dmg_cache"/*.db | sha256sum)" = "$sum" ] && ok ||
	bad "--sql added to a damaged file's kept run (exit $rc): $(head -2 dmg.err)"

# A cache file is hashed whole until it is noted: once its MAC matched and
# its ctime is 2 s old, NAME.seen notes its identity, and while it keeps it
# a read does not hash it (read whole: about its size more, counted by the
# kernel). Changed after the note (a byte in the middle, its mtime set
# back: its ctime moved), it is hashed again and refused. A note the secret
# did not make is not believed, and a note does not outlive its file.
rm -f "$cache"/*.db "$cache"/*.mac "$cache"/*.seen
"$NTPROF" report -d host.db target.db > want.txt 2> /dev/null # prepared and kept
db=$(entry)
seen=${db%.db}.seen
size=$(stat -c %s "$db")
sleep 3
hashed=$(rchar "$NTPROF" report -d host.db target.db)
[ -f "$seen" ] && [ "$(stat -c %a "$seen")" = 600 ] && ok ||
	bad "no private note of a cache file whose MAC matched"
noted=$(rchar "$NTPROF" report -d host.db target.db)
echo "read: $hashed bytes hashing the cache file of $size, $noted with its note"
[ $((hashed - noted)) -ge $((size * 3 / 4)) ] && ok ||
	bad "a noted cache file was read whole again ($hashed, then $noted; $size bytes)"
"$NTPROF" report -d host.db target.db > got.txt 2> err.txt
[ ! -s err.txt ] && cmp -s want.txt got.txt && ok || bad "a noted cache file: not its report"
printf '%064d' 0 > "$seen"
forged=$(rchar "$NTPROF" report -d host.db target.db)
[ $((forged - noted)) -ge $((size * 3 / 4)) ] && ok || bad "a forged note was believed ($forged)"
sleep 3
"$NTPROF" report -d host.db target.db > /dev/null 2>&1 # noted again
touch -r "$db" stamp
printf 'X' | dd of="$db" bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
touch -r stamp "$db"
"$NTPROF" report -d host.db target.db > got.txt 2> err.txt
grep -q "^ntprof: warning: prepared run .* refused: its MAC does not match" err.txt &&
	prepared err.txt && cmp -s want.txt got.txt && ok ||
	{ bad "a noted cache file changed since its note: believed:"; cat err.txt >&2; }
[ ! -e "$seen" ] && ok || bad "the refused file's note was left"

# ntp_db's records are each recording's count of commands as read when it
# was opened, written into the view: the same number, and naming ntp_db
# does not count cmd again (a count reads every page of it; the files here
# fit SQLite's cache, so bytes read would not show it: the view's SQL does).
expect "ntp_db's records" "$("$SHELL_BIN" -c "SELECT sum(records = CASE db
	WHEN 'host' THEN (SELECT count(*) FROM host.cmd) ELSE (SELECT count(*) FROM target.cmd) END)
	FROM ntp_db" -csv host.db target.db | tail -1 | tr -d '\r')" 2
n=$(sqlite3 host.db 'SELECT count(*) FROM cmd')
"$SHELL_BIN" -c "SELECT sql FROM sqlite_temp_schema WHERE name = 'ntp_db'" -csv \
	host.db target.db > view.txt
grep -q "^ *$n AS records" view.txt && ! grep -q "records AS records" view.txt && ok ||
	bad "ntp_db does not hold the recordings' counts as read at open: $(grep -i records view.txt)"

# The preparing session reads the file it kept as later sessions do,
# read-only: SQL typed into it cannot change what the next process reads.
rm -rf "$cache"
"$NTPROF" report -d --no-cache host.db target.db > want.txt 2> /dev/null
"$SHELL_BIN" -c .stages -c "DELETE FROM _ntp_cache._ntp_report_group_run_cache" host.db target.db \
	> got.txt 2> err.txt
st=$?
"$NTPROF" report -d host.db target.db > got2.txt 2> err2.txt
[ "$st" = 1 ] && grep -qi "read-\{0,1\}only" err.txt && [ ! -s err2.txt ] && cmp -s want.txt got2.txt &&
	ok || { bad "the preparing session could write the kept run (exit $st)"; cat err.txt err2.txt >&2; }

# A cache directory that cannot hold the run (a file size limit, SIGXFSZ
# ignored, so the file's writes fail): the run is prepared all the same,
# without keeping it, said so, and nothing is left in the directory.
rm -rf "$cache"
(trap '' XFSZ; ulimit -f 64 && exec "$NTPROF" report -d host.db target.db) > got.txt 2> err.txt
st=$?
[ "$st" = 0 ] && cmp -s want.txt got.txt &&
	grep -q "^ntprof: warning: the prepared run cannot be written in the cache directory" err.txt &&
	grep -q "^ntprof: preparing the run took [0-9.]* s$" err.txt &&
	[ -z "$(ls "$cache" | grep -v '^key$' | grep -v '\.ok$')" ] && ok ||
	{ bad "a cache directory without room (exit $st): $(ls "$cache" | tr '\n' ' ')"; cat err.txt >&2; }
# ... nor the per-command end to end added to a kept run (.sql after a
# question, plain sqlite3's set-up, adds it): the shell's .slowest after it answered all
# the same, the kept run left as it was and nothing else left there. The
# file size limit (ulimit -f counts 512-byte blocks) just under the kept
# file's size fails its copy; just over, the copy is made and the tables
# written into it fail, and the kept file is read again. What the
# session writes in TEMP stays under both.
rm -rf "$cache"
"$NTPROF" report -d host.db target.db > /dev/null 2>&1
db=$(entry)
sum=$(sha256sum < "$db")
for off in -8 8; do
	limit=$(($(stat -c %s "$db") / 512 + off))
	(trap '' XFSZ; ulimit -f "$limit" &&
		exec "$SHELL_BIN" -c '.once /dev/null' -c .groups -c '.once /dev/null' -c '.sql' \
		-c '.slowest 3' host.db target.db) > got.txt 2> err.txt
	st=$?
	[ "$st" = 0 ] && cmp -s more0.txt got.txt && [ "$(sha256sum < "$db")" = "$sum" ] &&
		[ -z "$(ls "$cache" | grep -v '^key$' | grep -v '\.ok$' | grep -v '\.seen$' |
			grep -v "^$(basename "${db%.db}")\.")" ] &&
		{ [ "$off" -lt 0 ] || grep -q "cannot be written in the cache directory" err.txt; } &&
		ok || { bad "no room for the per-command end to end ($off blocks, exit $st): $(ls "$cache" |
			tr '\n' ' ')"; cat err.txt >&2; }
done
# Under half the kept file's size, the session cannot write its TEMP
# views of the kept run: it is not read, and not removed either (it is not
# the file that is wrong), and the answers are the same.
limit=$(($(stat -c %s "$db") / 1024))
(trap '' XFSZ; ulimit -f "$limit" && exec "$SHELL_BIN" -c '.slowest 3' host.db target.db) \
	> got.txt 2> err.txt
st=$?
[ "$st" = 0 ] && cmp -s more0.txt got.txt && [ "$(sha256sum < "$db")" = "$sum" ] &&
	grep -q "^ntprof: warning: prepared run .* not read (" err.txt && ! grep -q refused err.txt &&
	ok || { bad "a session without room for its views removed the kept run (exit $st)"
		cat err.txt >&2; }

# A preparation ended by a signal (SIGINT, as Ctrl-C sends it) while it
# writes the run into its cache file leaves nothing in the directory.
"$GEN" -o big.db -t big-t.db -n 30 -r 20000 -q 4 -Q 4 > /dev/null || bad "generator big"
rm -rf "$cache"
env --default-signal=INT "$NTPROF" report big.db big-t.db > /dev/null 2> int.err &
pid=$!
i=0
while [ $i -lt 1200 ] && ! ls "$cache" 2>/dev/null | grep -q '^tmp-'; do
	sleep 0.05
	i=$((i + 1))
done
if ! ls "$cache" 2>/dev/null | grep -q '^tmp-'; then
	bad "no file being written in the cache directory within 60 s of the report's start"
	kill "$pid" 2>/dev/null
	wait "$pid"
elif ! kill -INT "$pid"; then
	bad "the report of 600,000 commands ended before a signal could reach it"
	wait "$pid"
else
	wait "$pid"
	st=$?
	[ "$st" = 130 ] && [ -z "$(ls "$cache" | grep -v '^key$' | grep -v '\.ok$')" ] && ok ||
		{ bad "SIGINT while preparing (exit $st) left: $(ls "$cache" | tr '\n' ' ')"; cat int.err >&2; }
fi

# The recordings were never written (host.db was replaced on purpose).
sha256sum host.db target.db other.db other-t.db base.db base-t.db |
	sed 's/^[0-9a-f]*  host\.db$/X/' | cmp -s - sums.now && ok || bad "a recording changed"
sed 's/^[0-9a-f]*  host\.db$/X/' sums.before | cmp -s - sums.now && ok ||
	bad "a recording changed before the replacement"
finish
