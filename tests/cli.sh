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
# Prepared runs (lib/cache.c) in the test's directory: the cache is on, as
# for users, and never the user's own; a long preparation's note on stderr
# is tested in cache_test.sh, not here.
export NTPROF_CACHE_DIR="$dir/cache" NTPROF_PREPARE_NOTE_AFTER=3600
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
# components, tail bands (storage the largest in each), records.
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
   grep -q "^by end-to-end band: each stage's mean (us) and share of the band's mean; \* the band's largest$" joined.txt &&
   grep -Eq '^  band +p0-50 +p50-90 +p90-99 +p99-99\.9 +p99\.9-100$' joined.txt &&
   grep -Eq '^  storage \(target block layer and drive\)( +[0-9.]+ +[0-9]+%\*){5}$' joined.txt &&
   grep -Eq '^records: [0-9]+ host, [0-9]+ target; [0-9]+ matched \(100 % of the host.s\)$' joined.txt
then ok; else bad "joined report layout"; cat joined.txt err.txt >&2; fi

# '#' bars are round(share x bar_width) wide (vocab.sql, ntp_constant), in
# the stage table (the tail bands' table, which has shares too, has none)
w=$(sqlite3 host.db 'SELECT bar_width FROM ntp_constant')
awk -v w="$w" '/^by end-to-end band/ { exit 0 } /^  [a-z].*%/ { for (i = 1; i <= NF; i++) if ($i ~ /%$/) { s = $i; sub(/%/, "", s) }
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
# the shell writes CSV as sqlite3 does, byte for byte
if [ "$(wc -l < shell.csv)" -ge 15 ] && cmp -s shell.csv sqlite.csv && cmp -s shell.csv native.csv
then ok; else bad "sqlite3 with the installed SQL differs from the shell"; diff shell.csv sqlite.csv | head >&2; diff shell.csv native.csv | head >&2; fi
# The statistics views (sql/stats.sql) the same way, in sqlite3 over the
# set-up (which caches the join, as the shell does).
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
printf '%s\n' ".read setup.sql" ".mode csv" "$qx" | sqlite3 :memory: > sqlitex.csv
for f in shellx sqlitex; do tr -d '"' < $f.csv > $f.txt; done
if [ "$(wc -l < shellx.txt)" -ge 40 ] && cmp -s shellx.txt sqlitex.txt
then ok; else bad "sqlite3 differs from the shell on the statistics views"; diff shellx.txt sqlitex.txt | head >&2; fi
[ -f "$inst/usr/local/bin/ntprof" ] && [ -f "$inst/usr/local/share/man/man1/ntprof-shell.1" ] &&
	[ -f "$inst/usr/local/share/ntprof/sql/join.sql" ] && ok || bad "make install layout"

# --json: the numbers of the text report, unrounded. Each JSON number,
# formatted as the text formats it (SQLite's printf, through python's
# sqlite3), must give the text's number; and they must equal what plain
# sqlite3 computes with the set-up SQL (setup.sql, above).
"$NTPROF" report --json --detail host.db target.db > joined.json 2> err.txt &&
	"$NTPROF" report -j -d host.db target.db > short.json 2>> err.txt &&
	cmp -s joined.json short.json && ok || { bad "report --json (-j the same)"; cat err.txt >&2; }
# the stages with their percentiles (stats.sql): plain SQL, where the
# report's come from native.sql's form
printf '%s\n' ".read setup.sql" ".mode json" \
	"SELECT s.hdb, s.grp, s.stage, s.mean_ns, s.share, s.avg_qd, p.n, p.p50_ns, p.p90_ns,
	 p.p99_ns, p.p999_ns FROM ntp_report_stage AS s
	 LEFT JOIN ntp_report_stage_stats AS p USING (hdb, grp, stage);" |
	sqlite3 :memory: > stages.json
printf '%s\n' ".read setup.sql" ".mode json" \
	"SELECT hdb, grp, component, n, mean_ns, l, p50_ns, p99_ns, p999_ns FROM ntp_report_components;" |
	sqlite3 :memory: > components.json
# check_json JSON TEXT [STAGES COMPONENTS]: the report's JSON against its
# text, and against sqlite3's rows of the stages and components
check_json() {
	python3 - "$@" <<'PY'
import json, re, sqlite3, sys
doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
db = sqlite3.connect(":memory:")
def fmt(f, x):
    return db.execute("SELECT printf(?, ?)", (f, x)).fetchone()[0]
def us(ns):
    return fmt("%.2f", ns / 1e3)
assert doc["schema"] == "ntprof-report" and doc["version"] == 2, doc["schema"]
groups = text.split("\n== ")[1:]
assert len(groups) == len(doc["groups"]) > 0, (len(groups), len(doc["groups"]))
for g, t in zip(doc["groups"], groups):
    title = t.split("\n")[0]
    assert title.startswith("%s: %d commands sampled" % (g["name"], g["sampled"])), title
    assert (g["mode"] == "host") == title.endswith("host side only"), title
    lat = g["latency"]
    want = "latency (us): mean %s, p50 %s, p99 %s, p99.9 %s" % tuple(
        us(lat[k]) for k in ("mean_ns", "p50_ns", "p99_ns", "p999_ns"))
    assert want in t, (want, t)
    for s in g["stages"]:
        row = "  %s  %s  %s  %s" % (s["label"], us(s["mean_ns"]),
                                    fmt("%.0f%%", 100 * s["share"]), fmt("%.2f", s["avg_qd"]))
        assert re.search(r"^  %s +%s +%s +%s\b" % tuple(re.escape(x.strip()) for x in
                         row.split("  ")[1:]), t, re.M), row
    big = max(g["stages"], key=lambda s: s["share"])
    assert g["largest"]["label"] == big["label"] and g["largest"]["share"] == big["share"]
    assert "largest: %s, %s %%" % (big["label"], fmt("%.0f", 100 * big["share"])) in t
    for c in g.get("components", []):
        want = [c["label"], str(c["n"]), us(c["mean_ns"]), fmt("%.2f", c["l"]),
                us(c["p50_ns"]), us(c["p99_ns"])]
        assert re.search("^  " + " +".join(re.escape(x) for x in want) + "$", t, re.M), want
recs = ", ".join("%d %s" % (r["records"], r["role"]) for r in doc["recordings"])
assert ("\nrecords: " + recs) in text, recs
for m in doc["match"]:
    assert "; %d matched" % m["matched"] in text, m
# the warnings: a refused join's line, a group's above its numbers
paths = {r["db"]: r["path"] for r in doc["recordings"]}
lines = text.split("\n")
for w in doc["unreliable"]:
    if w["level"] == "join":
        assert "join refused: %s with %s: %s" % (paths[w["hdb"]], paths[w["tdb"]],
                                                 w["message"]) in lines, w
assert doc["reliable"] == (not doc["unreliable"]), doc["reliable"]
assert sum(1 for l in lines if l.startswith("join refused: ")) == \
    sum(1 for w in doc["unreliable"] if w["level"] == "join")
for g, t in zip(doc["groups"], groups):
    warned = [l[len("warning: "):] for l in t.split("\n")[1:] if l.startswith("warning: ")]
    assert warned == [w["message"] for w in g["unreliable"]], (warned, g["unreliable"])
    assert g["reliable"] == (not warned), g["reliable"]
    assert all(w in doc["unreliable"] for w in
               [dict(level="group", hdb=g["hdb"], tdb=None, grp=g["grp"], **u)
                for u in g["unreliable"]]), g["unreliable"]
    # the warning is the line right after the title, above the numbers
    if warned:
        assert t.split("\n")[1].startswith("warning: "), t
lost = sum(r["lost"] for r in doc["recordings"])
assert ("; %d lost while recording" % lost in text) == (lost > 0), lost
for m in doc["missing"]:
    if m["point"] is None:
        want = "\nlost: %d %s records" % (m["n"], m["role"])
    else:
        want = "\ngaps: %d of %d %s records" % (m["n"], m["records"], m["role"])
    assert want in text and m["causes"] in text, (want, m["causes"])
assert text.count("\nlost: ") + text.count("\ngaps: ") == len(doc["missing"])
if len(sys.argv) > 3:
    def same(a, b):
        return a == b or (isinstance(a, float) and abs(a - b) <= 1e-9 * max(abs(a), abs(b)))
    stages = {(r["hdb"], r["grp"], r["stage"]): r for r in json.load(open(sys.argv[3]))}
    comps = {(r["hdb"], r["grp"], r["component"]): r for r in json.load(open(sys.argv[4]))}
    n = 0
    for g in doc["groups"]:
        for rows, key, refs in ((g["stages"], "stage", stages), (g["components"], "component", comps)):
            for r in rows:
                want = refs[(g["hdb"], g["grp"], r[key])]
                for k, v in want.items():
                    assert k in ("hdb", "grp") or same(r[k], v), (k, r[k], v)
                n += 1
    assert n == len(stages) + len(comps), (n, len(stages), len(comps))
PY
}
check_json joined.json joined.txt stages.json components.json && ok || bad "report --json differs from the text report or from sqlite3"
"$NTPROF" report --json host.db > host.json && check_json host.json host.txt &&
	ok || bad "report --json, host only, differs from the text report"
# records lost and points missing: the text's lost: and gaps: lines
cp host.db lost.db && sqlite3 lost.db "INSERT INTO lost SELECT min(id),
	(SELECT min(code) FROM cause WHERE kind = 'record'), 12 FROM interval;
	INSERT INTO gap SELECT min(id), 'h_rx', (SELECT min(code) FROM cause WHERE kind = 'point'), 5
	FROM interval"
"$NTPROF" report lost.db > lost.txt && "$NTPROF" report --json lost.db > lost.json &&
	grep -q '^lost: 12 host records' lost.txt && check_json lost.json lost.txt &&
	ok || bad "report --json: lost records and missing points differ from the text"
"$NTPROF" report --json -g write -d host2.db target2.db > /dev/null 2> err.txt
grep -q "no group matches 'write'" err.txt && ok || bad "report --json -g: no group"

# --csv: one table of ntp_report_rows; its numbers are the JSON's (read from
# the views directly), components only with --detail, CRLF lines.
"$NTPROF" report --csv --detail host.db target.db > joined.csv &&
	"$NTPROF" report --csv host.db target.db > brief.csv && ok || bad "report --csv"
# check_csv CSV JSON DETAIL
check_csv() {
	python3 - "$@" <<'PY'
import csv, json, sys
raw = open(sys.argv[1], newline="").read()
assert raw.endswith("\r\n") and "\n" not in raw.replace("\r\n", ""), "not CRLF lines"
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
doc = json.load(open(sys.argv[2]))
detail = sys.argv[3] == "1"
want = []
for g in doc["groups"]:
    lat = dict(g["latency"], name="e2e", label="end to end")
    want.append(("latency", g, lat))
    want += [("stage", g, dict(s, name=s["stage"])) for s in g["stages"]]
    if detail:
        want += [("component", g, dict(c, name=c["component"])) for c in g["components"]]
        # per tail band: its end to end, then its stages
        for t in g["tail"]:
            if t is next(u for u in g["tail"] if u["band"] == t["band"]):
                want.append(("tail", g, dict(name="e2e", label="end to end", n=t["n"],
                                             mean_ns=t["e2e_mean_ns"], band=t["band"])))
            want.append(("tail", g, dict(name=t["stage"], label=t["label"], ord=t["ord"], n=t["n"],
                                         mean_ns=t["mean_ns"], share=t["share"], band=t["band"])))
assert len(rows) == len(want), (len(rows), len(want))
for row, (section, g, item) in zip(rows, want):
    assert row["section"] == section and row["group"] == g["name"], (row, section)
    for k in ("hdb", "grp", "queue", "mode", "sampled", "matched", "rate", "exact", "lost"):
        assert row[k] == str(g[k]), (k, row[k], g[k])
    assert row["reliable"] == str(int(g["reliable"])), (row["reliable"], g["reliable"])
    assert row["unreliable"] == ",".join(u["reason"] for u in g["unreliable"]), row
    for k, v in item.items():
        if k in row and k not in ("stage", "component"):
            assert row[k] == str(v), (section, k, row[k], v)
    for k in ("share", "avg_qd", "l", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "n", "band"):
        if k not in item:
            assert row[k] == "", (section, k, row[k])
PY
}
"$NTPROF" report --json host.db target.db > brief.json
check_csv joined.csv joined.json 1 && check_csv brief.csv brief.json 0 && ok ||
	bad "report --csv differs from report --json"

# A group name with a comma and a quote (the device's name): quoted, the
# quote doubled, and read back as the JSON's name; the shell's CSV of the
# same view is sqlite3's, byte for byte.
cp host.db quote.db && sqlite3 quote.db "UPDATE device SET name = 'nv,me\"1'"
"$NTPROF" report --csv quote.db target.db > quote.csv &&
	"$NTPROF" report --json quote.db target.db > quote.json &&
	grep -q '^latency,"read 4KiB nv,me""1",' quote.csv && check_csv quote.csv quote.json 0 &&
	python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["groups"][0]["name"] == "read 4KiB nv,me\"1"' quote.json &&
	ok || bad "report --csv: a group name with a comma and a quote"
"$SHELL_BIN" --portable -c '.mode csv' -c 'SELECT * FROM ntp_report_rows;' quote.db target.db > q1.csv
"$SHELL_BIN" --sql quote.db target.db > qsetup.sql
printf '%s\n' ".read qsetup.sql" ".mode csv" ".headers on" "SELECT * FROM ntp_report_rows;" |
	sqlite3 :memory: > q2.csv
[ -s q1.csv ] && cmp -s q1.csv q2.csv && ok || bad "ntp_report_rows: the shell's CSV is not sqlite3's"

# One format at a time; each is a usage error, exit 2, one line.
for args in "--json --csv" "-j --csv"; do
	# shellcheck disable=SC2086
	"$NTPROF" report $args host.db > out.txt 2> err.txt
	[ $? -eq 2 ] && [ ! -s out.txt ] && [ "$(wc -l < err.txt)" -eq 1 ] &&
		grep -q -- "--json and --csv: one output format at a time" err.txt && ok ||
		bad "report $args: not a clear usage error"
done

# The documentation is installed as in the sources (README.md's links stay
# good), and bash completion under each command's name.
doc=$inst/usr/local/share/doc/ntprof
comp=$inst/usr/local/share/bash-completion/completions
for f in README.md $(cd "$top" && echo docs/*.md); do
	(cd "$top" && cmp -s "$f" "$doc/$f") && ok || bad "make install: $f is not in $doc"
done
for c in ntprof ntprof-collect ntprof-shell; do
	cmp -s "$top/completion/ntprof.bash" "$comp/$c" && ok || bad "make install: no completion for $c"
done

# The long options a --help text on stdin names (not --spdk-*: a family)
help_options() { grep -o -- '--[a-z][a-z-]*[a-z*]' | grep -v '\*$' | sort -u; }

# Bash completion, from the installed file: comp_test FUNCTION WORD... prints
# what completing the last WORD offers, one per line.
comp_test() {
	bash -c 'cd "$1" && . "$2" && f=$3 && shift 3 && COMP_WORDS=("$@") &&
		COMP_CWORD=$(($# - 1)) && { $f; printf "%s\n" "${COMPREPLY[@]}"; }' \
		comp "$dir" "$comp/ntprof-shell" "$@" | sort
}
# expect_comp EXPECTED FUNCTION WORD...: completing the last WORD offers
# EXPECTED (sorted, each followed by a space)
expect_comp() {
	want=$1
	shift
	got=$(comp_test "$@" | tr '\n' ' ')
	[ "$got" = "$want" ] && ok || bad "completion of '$*': '$got', expected '$want'"
}
expect_comp "record report " _ntprof ntprof re
expect_comp "--detail " _ntprof ntprof report --de
expect_comp "--group " _ntprof ntprof rep --gr
expect_comp "h10.db host.db host2.db " _ntprof ntprof report h
expect_comp "t20.db target.db target2.db " _ntprof_shell ntprof-shell t
expect_comp "rdma tcp " _ntprof ntprof record -t ""
expect_comp "target " _ntprof_collect ntprof-collect --role = t
expect_comp "probe record " _ntprof_collect ntprof-collect ""
mkdir -p notes.d && : > notes.txt && : > notes.ntp
expect_comp "notes.d notes.ntp " _ntprof_shell ntprof-shell notes
# Completion and --help cannot drift apart: each program's long options are
# exactly those its completion offers for '--'.
# same_options NAME COMMAND...: the completion of 'NAME --'
same_options() {
	name=$1
	shift
	want=$("$@" --help 2>&1 | help_options | tr '\n' ' ')
	got=$(comp_test $name -- | grep -- '^--' | tr '\n' ' ')
	[ -n "$want" ] && [ "$got" = "$want" ] && ok ||
		bad "completion of $name: '$got'; its --help names '$want'"
}
same_options "_ntprof ntprof report" "$NTPROF" report
same_options "_ntprof ntprof compare" "$NTPROF" compare
same_options "_ntprof ntprof plot" "$NTPROF" plot
mkdir -p plots.d
expect_comp "plots.d " _ntprof ntprof plot -o plots
same_options "_ntprof ntprof merge" "$NTPROF" merge
same_options "_ntprof ntprof export" "$NTPROF" export
expect_comp "interval " _ntprof ntprof export -t i
expect_comp "h10.db host.db host2.db " _ntprof ntprof export --clickhouse http://x/ h
expect_comp "h10.db host.db host2.db " _ntprof ntprof merge -o run.ntp h
expect_comp "compare " _ntprof ntprof com
same_options "_ntprof_shell ntprof-shell" "$SHELL_BIN"
# ntprof-collect's one help covers both commands
(comp_test _ntprof_collect ntprof-collect probe --; comp_test _ntprof_collect ntprof-collect record --) |
	sort -u > collect_opts.txt
want=$("$top/ntprof-collect" --help | help_options)
[ -n "$want" ] && [ "$want" = "$(cat collect_opts.txt)" ] && ok ||
	bad "completion of ntprof-collect: '$(cat collect_opts.txt | tr '\n' ' ')'; its --help names '$want'"
want=$("$NTPROF" --help | sed -n '/^commands:/,/^[^ ]/s/^  \([a-z]*\) .*/\1/p' | sort | tr '\n' ' ')
expect_comp "$want" _ntprof ntprof ""
expect_comp "--help --version " _ntprof ntprof --

# make uninstall removes every file make install installed, and nothing else.
: > "$inst/usr/local/bin/other"
make -s -C "$top" uninstall DESTDIR="$inst" PREFIX=/usr/local > /dev/null 2>&1 || bad "make uninstall"
left=$(cd "$inst" && find . ! -type d | tr '\n' ' ')
[ "$left" = "./usr/local/bin/other " ] && ok || bad "make uninstall left '$left'"

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
	for opt in $("$@" --help 2>&1 | help_options); do
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
man_has_options ntprof-compare.1 "$NTPROF" compare
man_has_options ntprof-merge.1 "$NTPROF" merge
man_has_options ntprof-export.1 "$NTPROF" export
man_has_options ntprof-plot.1 "$NTPROF" plot
# The refusal of an old file in ntprof-report(1) names this schema version.
v=$(sed -n 's/^PRAGMA user_version = \([0-9]*\);.*/\1/p' "$top/sql/schema.sql")
grep -q "this ntprof reads version $v\$" "$top/man/ntprof-report.1" && ok ||
	bad "man/ntprof-report.1: its old.db example does not say version $v"

# Every command takes --version among its options: the version, exit 0.
for c in report compare plot merge; do
	v=$("$NTPROF" $c -p --version 2>&1) && [ "$v" = "$("$NTPROF" --version)" ] && ok ||
		bad "ntprof $c --version: '$v'"
done

# The collector links only the part of lib/ it calls (a static archive):
# not the plots, their SVG, the merge or compare.
nm "$top/ntprof-collect" > collect.nm 2>&1 &&
	! grep -Eq ' T (ntp_plot|ntp_merge|ntp_compare|svg_)' collect.nm && ok ||
	bad "ntprof-collect links $(grep -Eo ' T (ntp_plot|ntp_merge|ntp_compare|svg_)[a-z_]*' collect.nm | tr '\n' ' ')"
# make install builds no test, and check-quick no BPF object.
make -s -n -C "$top" install OUTPUT="$dir/o" DESTDIR="$dir/none" > install.n 2>&1
grep -q 'ntprof_sqlite.so' install.n && ! grep -Eq 'test_|ntprof-gen|fixture' install.n && ok ||
	bad "make install would build: $(grep -Eo '[a-z_/.-]*(test_|ntprof-gen|fixture)[a-z_.]*' install.n | sort -u | tr '\n' ' ')"
make -s -n -C "$top" check-quick OUTPUT="$dir/o" > quick.n 2>&1
grep -q 'test_native' quick.n && ! grep -Eq 'target bpf|bpftool' quick.n && ok ||
	bad "make check-quick would build BPF objects (or nothing): $(grep -c bpf quick.n)"

# The SQL stored in every database is pinned to the schema version: ntprof
# refuses a database whose stored SQL differs from its own, so changing any
# of it (even a comment) needs a new version, or old files stop opening.
ver=$(sed -n 's/^PRAGMA user_version = \([0-9]*\);.*/\1/p' "$top/sql/schema.sql")
{ echo "version $ver"; (cd "$top/.output" && sha256sum sql/schema.sql sql/vocab.sql sql/host.sql \
	sql/host_views.sql sql/target.sql sql/target_views.sql sql/views.sql); } > pin.txt
if cmp -s pin.txt "$top/tests/schema.sha256"; then ok; else
	bad "stored SQL changed without a new schema version: bump PRAGMA user_version in sql/schema.sql, then regenerate tests/schema.sha256"
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
# the same file under two names: by identity, not by name
ln -s host.db link.db
expect_both "a symlink and its file" "link.db: given twice (as host.db too): one file would be counted twice" host.db link.db target.db
expect_both "./x.db and x.db" "./target.db: given twice (as target.db too)" host.db target.db ./target.db
rm -f link.db
"$NTPROF" report > /dev/null 2> err.txt
[ $? -eq 2 ] && grep -q "no recording given" err.txt && ok || bad "no argument: usage error, exit 2"
expect_error "group not found" "no group matches 'write'" "$NTPROF" report -g write host.db

# Recordings of different runs are reported on, with a warning naming both
# files and how far apart they are: the generator starts seed N's run N - 1
# seconds after seed 1's, so late*.db began about 180 s after host.db and
# target.db (seed 4). The gap is checked against the files' meta.
"$GEN" -o late.db -t late-t.db -s 1 -n 1 -x 183 || exit 1
# apart FIRST LATER: the seconds from FIRST's wall_stop to LATER's wall_start
apart() { sqlite3 "$2" "ATTACH '$1' AS f; SELECT printf('%.3f', (l.wall_start - f.wall_stop) / 1e9) FROM main.meta AS l, f.meta AS f"; }
for pair in "host.db late-t.db host.db late-t.db" "late.db target.db target.db late.db"; do
	set -- $pair
	gap=$(apart "$3" "$4")
	want="ntprof: warning: $1 and $2 were not recorded at the same time: $4 began $gap s after $3 ended (different runs? few commands will pair)"
	"$NTPROF" report "$1" "$2" > apart.txt 2> apart.err
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^records: ' apart.txt && [ "$(cat apart.err)" = "$want" ] &&
	   awk -v g="$gap" 'BEGIN { exit !(g > 170 && g < 185) }' &&
	   grep -Eq "^join refused: $1 with $2: the recordings do not overlap in time; 0 of [0-9]+ host commands matched; reporting the host side only$" apart.txt &&
	   ! grep -q 'with the target.s side' apart.txt
	then ok; else bad "$1 and $2, recorded apart: exit $rc, stderr:"; cat apart.err >&2; fi
done
"$SHELL_BIN" -c '.mode csv' -c '.headers off' -c 'SELECT hdb, tdb, first_db, gap_s FROM ntp_window_gap;' host.db late-t.db \
	> apart.txt 2> apart.err
[ "$(tr -d "\r" < apart.txt)" = "host,target,host,$(apart host.db late-t.db)" ] && grep -q "^ntprof: warning: host.db and late-t.db" apart.err &&
	ok || { bad "ntprof-shell: ntp_window_gap and its warning"; cat apart.txt apart.err >&2; }
"$NTPROF" report host.db target.db host2.db target2.db > /dev/null 2> apart.err
[ ! -s apart.err ] && ok || { bad "recordings of one run: a warning"; cat apart.err >&2; }

# A host and a target of two runs that overlap in time (the generator
# starts seed N + 1 a second after seed N): a few of their commands pair by
# accident. The join is refused, with one line saying why and how many
# matched, and the host is reported from its side alone; --strict makes it
# exit status 3. Without the check, the accidental pairs made the group
# "joined" and printed a stage table over them.
"$GEN" -o xa.db -t xa-t.db -s 1 -n 1 -x 21 || exit 1
"$GEN" -o xb.db -t xb-t.db -s 1 -n 1 -x 22 || exit 1
"$NTPROF" report xa.db xb-t.db > cross.txt 2> cross.err
rc=$?
if [ $rc -eq 0 ] && [ ! -s cross.err ] &&
   [ "$(grep -c '^join refused: ' cross.txt)" -eq 1 ] &&
   grep -Eq '^join refused: xa.db with xb-t.db: [0-9]+ of [0-9]+ host commands matched \([0-9.e-]+ %, under 50 %\); reporting the host side only$' cross.txt &&
   grep -Eq '^== read 4KiB nvme1n1: [0-9]+ commands sampled \(from [0-9.]+k commands/s\), host side only$' cross.txt &&
   grep -q '^  network and target (not recorded) ' cross.txt && ! grep -q '^  storage' cross.txt
then ok; else bad "two runs joined by accident: not refused (exit $rc)"; cat cross.txt cross.err >&2; fi
"$NTPROF" report --strict xa.db xb-t.db > strict.txt 2> strict.err
[ $? -eq 3 ] && cmp -s cross.txt strict.txt && [ ! -s strict.err ] && ok ||
	bad "report --strict: a refused join does not exit 3 after the same report"
"$NTPROF" report --strict --portable xa.db xb-t.db > strictp.txt
[ $? -eq 3 ] && cmp -s cross.txt strictp.txt && ok || bad "report --portable: another verdict"
"$NTPROF" report --json xa.db xb-t.db > cross.json && check_json cross.json cross.txt &&
	python3 - cross.json <<'PY' && ok || bad "report --json: the refused join"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["reliable"] is False, d["reliable"]
assert [(w["level"], w["reason"]) for w in d["unreliable"]] == [("join", "join_refused")]
j, = d["joins"]
assert j["verdict"] == "refused" and j["reason"] == "share", j
assert j["share_pct"] < 1 and j["matched"] < 10 and j["eligible"] > 5000, j
assert all(g["mode"] == "host" and g["matched"] == 0 for g in d["groups"]), d["groups"]
assert all(g["reliable"] is True for g in d["groups"])
PY
# with the share's threshold at 0 the offset's check still refuses it:
# a handful of candidate pairs
"$NTPROF" report --min-match 0 xa.db xb-t.db > cross0.txt
grep -Eq '^join refused: xa.db with xb-t.db: the clock offset rests on [0-9] candidate pairs \(under 10\); ' cross0.txt &&
	ok || { bad "--min-match 0: the offset check"; cat cross0.txt >&2; }
# the same run's files join, and --strict is then 0
"$NTPROF" report --strict xa.db xa-t.db > same.txt && grep -q 'all with the target.s side$' same.txt &&
	! grep -q '^join refused' same.txt && ok || bad "one run's files: refused, or --strict not 0"
# ntprof-shell (native and --portable), .report --strict, and plain sqlite3
# over the set-up SQL give the same verdicts
qj="SELECT hdb, tdb, host_records, eligible, kept, matched, printf('%.6f', share_pct), pairs,
 window_ns, skew_mad_ns, verdict, reason, message FROM ntp_join_check;"
"$SHELL_BIN" -c '.mode csv' -c "$qj" xa.db xb-t.db > jn.csv
"$SHELL_BIN" --portable -c '.mode csv' -c "$qj" xa.db xb-t.db > jp.csv
"$SHELL_BIN" --sql xa.db xb-t.db > xsetup.sql
printf '%s\n' ".read xsetup.sql" ".mode csv" ".headers on" "$qj" | sqlite3 :memory: > js.csv
grep -q ',refused,share,' jn.csv && cmp -s jn.csv jp.csv && cmp -s jn.csv js.csv && ok ||
	{ bad "ntp_join_check: the shell, --portable and sqlite3 differ"; cat jn.csv jp.csv js.csv >&2; }
"$SHELL_BIN" -c '.report --strict' xa.db xb-t.db > /dev/null 2> sh.err
[ $? -eq 3 ] && grep -q 'ntprof-shell: .report: --strict: the report has a warning' sh.err && ok ||
	bad "ntprof-shell .report --strict: not exit 3"
"$SHELL_BIN" -c '.report' xa.db xb-t.db > /dev/null 2>&1 && ok || bad "ntprof-shell .report: not exit 0"

# A host that lost 99 % of its sampled records to a full ring (SPDK: the
# rate is estimated from the samples): its rate counts the lost ones, so
# it is the rate of the same run without the loss; a warning line sits
# above its numbers; --strict exits 3, without it 0. A kernel host counts
# every command: its rate is the recording's own, lost records or not.
"$GEN" -o l99.db -s 1 -n 1 -r 20000 -q 4 -d host=spdk -P 0.99 -x 31 || exit 1
"$GEN" -o l0.db -s 1 -n 1 -r 20000 -q 4 -d host=spdk -x 31 || exit 1
"$GEN" -o k99.db -s 1 -n 1 -r 20000 -q 4 -P 0.99 -x 31 || exit 1
"$NTPROF" report l99.db > l99.txt 2> l99.err
rc=$?
rate() { sed -n 's/.*(from about \([0-9.]*\)k commands\/s).*/\1/p' "$1"; }
if [ $rc -eq 0 ] && [ ! -s l99.err ] &&
   sed -n 3p l99.txt | grep -Eq '^== read 4KiB spdk-c1n1: [0-9]+ commands sampled \(from about [0-9.]+k commands/s\), host side only$' &&
   sed -n 4p l99.txt | grep -Eq '^warning: about [0-9]+ of [0-9]+ sampled commands lost while recording \(9[89](\.[0-9])? %, over 1 %\): the rate counts them, the latency and stages rest on the [0-9]+ stored$' &&
   "$NTPROF" report l0.db > l0.txt && ! grep -q '^warning' l0.txt &&
   awk -v a="$(rate l99.txt)" -v b="$(rate l0.txt)" 'BEGIN { exit !(a > 15 && a / b > 0.95 && a / b < 1.05) }'
then ok; else bad "99 % lost: rate or warning (exit $rc; rates $(rate l99.txt)k, $(rate l0.txt)k)"; cat l99.txt l99.err >&2; fi
grep -q '^throughput (estimated from the sampled commands): read 2[0-9].[0-9] kIOPS' l99.txt && ok ||
	bad "99 % lost: the throughput does not count the lost records"
"$NTPROF" report --strict l99.db > l99s.txt
[ $? -eq 3 ] && cmp -s l99.txt l99s.txt && ok || bad "99 % lost: --strict is not exit 3"
"$NTPROF" report --strict --portable --max-lost 100 l99.db > l99m.txt
[ $? -eq 0 ] && ! grep -q '^warning' l99m.txt && ok || bad "--max-lost 100: still a warning"
"$NTPROF" report --json l99.db > l99.json && check_json l99.json l99.txt &&
	"$NTPROF" report --csv l99.db > l99.csv && check_csv l99.csv l99.json 0 &&
	python3 - l99.json l99.csv <<'PY' && ok || bad "99 % lost: the JSON and CSV"
import csv, json, sys
d = json.load(open(sys.argv[1]))
g, = d["groups"]
assert d["reliable"] is False and g["reliable"] is False, g
assert [u["reason"] for u in g["unreliable"]] == ["host_lost"], g["unreliable"]
assert g["lost_pct"] > 98 and g["exact"] == 0, g
assert abs(g["rate"] / d["throughput"][0]["iops"] - 1) < 1e-12, g
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
assert {(r["reliable"], r["unreliable"]) for r in rows} == {("0", "host_lost")}, rows[0]
PY
"$NTPROF" report --json k99.db > k99.json &&
	python3 - k99.json "$(sqlite3 k99.db 'SELECT rate FROM ntp_grp_rate')" <<'PY' && ok || bad "99 % lost, kernel: the counted rate changed"
import json, sys
g, = json.load(open(sys.argv[1]))["groups"]
assert g["exact"] == 1 and g["reliable"] is False, g
assert abs(g["rate"] - float(sys.argv[2])) <= 1e-9 * g["rate"], (g["rate"], sys.argv[2])
PY
# the collector's live line (sql/live.sql, run on the file being written)
# counts an interval's lost records too
live() { printf '%s\n' ".param set :interval 1" ".mode list" ".read $top/.output/sql/live.sql" |
	sqlite3 "$1" | cut -d'|' -f4 | tr -d k; }
awk -v a="$(live l99.db)" -v b="$(live l0.db)" 'BEGIN { exit !(a > 15 && a / b > 0.95 && a / b < 1.05) }' &&
	ok || bad "99 % lost: the live line's rate $(live l99.db)k, without the loss $(live l0.db)k"
for a in "--min-match 101" "--max-lost -1" "--max-lost x" "--min-match"; do
	# shellcheck disable=SC2086
	"$NTPROF" report $a host.db > out.txt 2> err.txt
	[ $? -eq 2 ] && [ ! -s out.txt ] && grep -q "^ntprof report: " err.txt && ok ||
		bad "report $a: not a usage error"
done

# Progress on stderr, and only on a terminal: after NTPROF_PROGRESS_AFTER
# seconds (0 here), a line "ntprof: WHAT... | N s", redrawn at most four
# times a second, erased at the end; nothing else changes. The runs on a
# terminal join again (--no-cache): a prepared run has no join to show.
"$GEN" -o big.db -t big-t.db -s 1 -n 5 -x 7 || exit 1
"$NTPROF" report -p big.db big-t.db > plain.txt 2> plain.err
NTPROF_PROGRESS_AFTER=0 "$NTPROF" report -p big.db big-t.db > piped.txt 2> piped.err
[ -s plain.txt ] && [ ! -s plain.err ] && [ ! -s piped.err ] && cmp -s plain.txt piped.txt && ok ||
	bad "progress: stderr not a terminal, yet it changed"
t0=$(date +%s.%N)
NTPROF_PROGRESS_AFTER=0 python3 "$top/tests/on_tty.py" tty.txt "$NTPROF" report -p --no-cache big.db big-t.db > tty.err
rc=$?
t1=$(date +%s.%N)
# every piece between two \r is a progress line (then padding) or blanks;
# blanks erase all the lines before them, and come last; at most 4 redraws
# a second, plus the first of each piece of work (opening, the report)
if [ $rc -eq 0 ] && cmp -s plain.txt tty.txt && grep -q 'ntprof: joining the recordings\.\.\. ' tty.err &&
   awk -v RS='\r' -v t="$t1 - $t0" 'BEGIN { split(t, a, " - "); t = a[1] - a[2] }
	/^ntprof: [a-z ]+\.\.\. [-|\/\\] [0-9]+ s *$/ { n++; if (length($0) > w) w = length($0); erased = 0; next }
	/^ *$/ { if (length($0) < w) exit 1; if (length($0)) { w = 0; erased = 1 } next }
	{ exit 1 }
	END { exit !(erased && n >= 2 && n <= 4 + 4 * t) }' tty.err
then ok; else bad "progress on a terminal (exit $rc):"; od -c tty.err | tail -5 >&2; fi
NTPROF_PROGRESS_AFTER=1000 python3 "$top/tests/on_tty.py" tty.txt "$NTPROF" report -p big.db big-t.db > tty.err
[ ! -s tty.err ] && cmp -s plain.txt tty.txt && ok || bad "progress before NTPROF_PROGRESS_AFTER seconds"
"$SHELL_BIN" -c .stages big.db big-t.db > plain.txt 2>&1
NTPROF_PROGRESS_AFTER=0 python3 "$top/tests/on_tty.py" tty.txt "$SHELL_BIN" --no-cache -c .stages big.db big-t.db > tty.err
grep -q 'ntprof: joining the recordings\.\.\. ' tty.err && cmp -s plain.txt tty.txt && ok ||
	bad "ntprof-shell: progress while joining"
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
