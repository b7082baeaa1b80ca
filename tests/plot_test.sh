#!/bin/sh
# Tests of `ntprof plot` in a real browser: generated runs (tests/ntprof-gen)
# are plotted, and headless Chromium (Debian's chromium) renders
# tests/plot_check.html, which loads the files, checks that they parse,
# counts their elements and reads the values back from the drawing through
# the axes (docs/plots.md). This script then checks what it read against
# numbers computed without the plot code:
# - each bar segment against the stage's mean in `ntprof report --json`,
#   each stack's end against the mean end to end, the axis against both;
# - the generator's known parameters: run a's storage is a constant 40 us
#   (-c storage=40000), run b's is 25 us longer than the default (-M 25000),
#   and run a's rate triples at second 1 (-R 1,3000);
# - the CDFs: one line per component of `report --json --detail`, each
#   ending at 1, the end to end's largest value as ntprof-shell's max();
# - the time series: its buckets and rates as `ntprof report --timeline`
#   prints them;
# - index.html: every plot inline, no script, nothing fetched;
# - bad input and files that are not ntprof's.
# Needs chromium: without it the test fails (it is in `make deps`).
# Run from the repository root after `make`.
set -u
top=$(pwd)
NTPROF=${NTPROF:-$top/ntprof}
SHELL_BIN=${SHELL_BIN:-$top/ntprof-shell}
GEN=${GEN:-$top/tests/ntprof-gen}
CHROMIUM=${CHROMIUM:-chromium}
dir=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-plot-XXXXXX")
trap 'rm -rf "$dir"' EXIT
TEST=plot_test
. "$top/tests/testlib.sh"
started=$(date +%s)
cd "$dir" || exit 1

if ! command -v "$CHROMIUM" >/dev/null; then
	echo "FAIL: plot_test: '$CHROMIUM' not found: the plots are checked in Debian's" \
		"chromium (sudo make deps installs it)" >&2
	exit 1
fi

# Two runs of 4 KiB reads and writes (a quarter), 1,000 commands/s for two
# seconds: a's storage constant, its rate tripled from second 1; b's
# storage 25 us longer.
"$GEN" -o a-h.db -t a-t.db -n 2 -r 1000 -w 0.25 -c storage=40000 -R 1,3000 -x 11 ||
	{ echo "FAIL: generator"; exit 1; }
"$GEN" -o b-h.db -t b-t.db -n 2 -r 1000 -w 0.25 -M 25000 -x 21 || exit 1

# render DIR: the check page's findings on DIR's plots, into DIR.out
render() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--allow-file-access-from-files --virtual-time-budget=5000 \
		--dump-dom "file://$dir/plot_check.html?dir=$1" > "$1.dom" 2> "$1.chromium.err"
	rc=$?
	[ $rc -eq 0 ] && ok || { bad "chromium on $1: exit $rc"; sed 's/^/  /' "$1.chromium.err" >&2; }
	sed -n '/<pre id="out">/,/<\/pre>/p' "$1.dom" | sed '1d;$d' > "$1.out"
	grep -q '^DONE$' "$1.out" && ok || bad "$1: the check page did not finish"
	grep '^FAIL' "$1.out" | while read -r line; do echo "FAIL: $1: page: ${line#FAIL }" >&2; done
	[ -z "$(grep '^FAIL' "$1.out")" ] && ok || bad "$1: the check page found faults"
}
cp "$top/tests/plot_check.html" .

# 1. Two runs side by side.
"$NTPROF" plot -o multi -l a,b a-h.db,a-t.db b-h.db,b-t.db > multi.files 2> err.txt
expect "plot two runs: exit" $? 0
expect "plot two runs: stderr" "$(cat err.txt)" ""
expect "plot two runs: files" "$(tr '\n' ' ' < multi.files)" \
	"multi/stages.svg multi/cdf-1.svg multi/cdf-2.svg multi/cdf-3.svg multi/cdf-4.svg multi/timeline.svg multi/index.html "
# 2. One run, buckets of 100 ms, the writes only (the second group: plot
# numbers do not change with -g), into a directory that holds this plot's
# files from before (they are overwritten, and a CDF this plot has not is
# removed) and a file of the user's, which stays.
mkdir single && cp multi/stages.svg multi/index.html multi/cdf-3.svg single/
echo "my notes" > single/cdf-notes.svg
"$NTPROF" plot -o single -g write --timeline 100ms a-h.db,a-t.db > single.files 2> err.txt
expect "plot one run: exit" $? 0
expect "plot one run: files" "$(tr '\n' ' ' < single.files)" \
	"single/stages.svg single/cdf-2.svg single/timeline.svg single/index.html "
expect "plot one run: the directory" "$(ls single | tr '\n' ' ')" \
	"cdf-2.svg cdf-notes.svg index.html stages.svg timeline.svg "
# 3. A host's recording alone: the host's stages (network and target as
# one).
"$NTPROF" plot -o hostonly b-h.db > hostonly.files 2> err.txt
expect "plot a host alone: exit" $? 0
expect "plot a host alone: files" "$(tr '\n' ' ' < hostonly.files)" \
	"hostonly/stages.svg hostonly/cdf-1.svg hostonly/cdf-2.svg hostonly/timeline.svg hostonly/index.html "
grep -ril '<script' multi single hostonly && bad "a plot has a script" || ok

t0=$(date +%s)
render multi
render single
render hostonly
echo "plot_test: chromium took $(($(date +%s) - t0)) s"

# The independent numbers: the reports, the largest end to end, the time
# series at 100 ms.
for r in a b; do
	"$NTPROF" report --json --detail $r-h.db $r-t.db > $r.json || bad "report $r"
	"$SHELL_BIN" -csv -noheader -c "SELECT g.op, max(j.e2e) / 1e3 FROM ntp_joined AS j
		JOIN ntp_host_grp AS g ON g.db = j.hdb AND g.grp = j.grp GROUP BY g.op" \
		$r-h.db $r-t.db > $r.max || bad "ntprof-shell $r"
done
"$NTPROF" report --json --detail b-h.db > h.json || bad "report h"
"$SHELL_BIN" -csv -noheader -c "SELECT g.op, max(c.e2e) / 1e3 FROM ntp_host_cmd AS c
	JOIN ntp_host_grp AS g ON g.db = c.db AND g.grp = c.grp GROUP BY g.op" b-h.db > h.max ||
	bad "ntprof-shell h"
"$NTPROF" report --timeline 100ms -g write a-h.db a-t.db > a-write.timeline || bad "report --timeline"
# the default width: the two seconds in at most 50 buckets, rounded up to
# 1, 2 or 5 x 10^k: 50 ms
"$NTPROF" report --timeline 50ms a-h.db a-t.db > a.timeline || bad "report --timeline"

python3 - > verdicts.txt <<'EOF' || bad "the checks' script failed"
import json, math, re

def rows(path, tag):
    return [l.split()[1:] for l in open(path) if l.split()[:1] == [tag]]

def check(cond, msg):
    print("ok -" if cond else "FAIL " + msg)

def near(a, b, tol):
    return abs(a - b) <= tol

# runs a and b, and h: b's host alone
reports = {r: json.load(open(r + ".json")) for r in "abh"}
maxes = {r: {l.split(",")[0]: float(l.split(",")[1]) for l in open(r + ".max")} for r in "abh"}

def group(run, label):
    # 'read 4KiB (a)' or 'read_4KiB_(a)': the run's report group of that name
    name = label.replace("_", " ")
    name = re.sub(r" \(%s\)$" % run, "", name)
    for g in reports[run]["groups"]:
        if g["queue"] == "io" and g["name"].rsplit(" ", 1)[0] == name:
            return g
    return None

def stages(out, runs, only=""):
    axis = [a for a in rows(out, "AXIS") if a[0] == "stages.svg"][0]
    xmin, xmax = float(axis[2]), float(axis[3])
    tol = (xmax - xmin) / 500  # about a pixel and a half
    stacks = rows(out, "STACK")
    want = sum(1 for r in runs for g in reports[r]["groups"] if g["queue"] == "io" and only in g["name"])
    check(len(stacks) == want, "%s: %d stacks, the reports have %d I/O groups" % (out, len(stacks), want))
    largest = 0
    for n, label, end in stacks:
        run = runs[0] if len(runs) == 1 else re.search(r"\((\w)\)$", label).group(1)
        g = group(run, label)
        if g is None:
            check(False, "%s: stack %s: no such group in the report" % (out, label))
            continue
        bars = [b for b in rows(out, "BAR") if b[0] == n]
        check([b[2] for b in bars] == [s["stage"] for s in g["stages"]],
              "%s: stack %s: stages %s, the report's %s" % (out, label, [b[2] for b in bars],
                                                          [s["stage"] for s in g["stages"]]))
        for b, s in zip(bars, g["stages"]):
            check(near(float(b[3]), s["mean_ns"] / 1e3, tol),
                  "%s: %s %s drawn %s us, the report says %.3f" % (out, label, s["stage"], b[3], s["mean_ns"] / 1e3))
        e2e = g["latency"]["mean_ns"] / 1e3
        largest = max(largest, e2e)
        check(near(float(end), e2e, tol), "%s: stack %s ends at %s us, the mean end to end is %.3f" % (out, label, end, e2e))
        # the generator's storage: a constant 40 us in run a; in b the
        # default (55 us reads, 20 us writes, plus a 4 us exponential tail)
        # and 25 us more
        if run == "h":
            continue
        st = [float(b[3]) for b in bars if b[2] == "storage"][0]
        want_st = 40 if run == "a" else (55 if g["op"] == "read" else 20) + 4 + 25
        check(near(st, want_st, 1.5 if run == "b" else tol),
              "%s: %s storage drawn %.3f us, the generator's is %d" % (out, label, st, want_st))
    check(largest <= xmax <= 1.5 * largest and xmin == 0,
          "%s: stages axis %g..%g for stacks up to %.3f us" % (out, xmin, xmax, largest))

def cdfs(out, runs):
    labels = {b[0]: b[1] for b in rows(out, "STACK")}
    for n, label in labels.items():
        run = runs[0] if len(runs) == 1 else re.search(r"\((\w)\)$", label).group(1)
        g = group(run, label)
        lines = [c for c in rows(out, "CDF") if c[0] == n]
        comps = [c["component"] for c in g["components"]]
        check([c[1] for c in lines] == comps,
              "%s: cdf-%s: lines %s, the report's components %s" % (out, n, [c[1] for c in lines], comps))
        axis = [a for a in rows(out, "AXIS") if a[0] == "cdf-%s.svg" % n][0]
        for c in lines:
            check(near(float(c[3]), 1, 0.002), "%s: cdf-%s %s ends at %s, not 1" % (out, n, c[1], c[3]))
            check(float(c[4]) <= float(axis[3]) * 1.001, "%s: cdf-%s %s beyond the axis" % (out, n, c[1]))
        e2e = [c for c in lines if c[1] == "e2e"][0]
        top = maxes[run][g["op"]]
        check(near(float(e2e[4]), top, 0.02 * top),
              "%s: cdf-%s e2e ends at %s us, the largest end to end is %.3f" % (out, n, e2e[4], top))
        if run == "a":
            st = [c for c in lines if c[1] == "t_storage"][0]
            check(near(float(st[4]), 40, 0.8) and near(float(st[5]), 40, 0.8),
                  "%s: cdf-%s: storage spans %s..%s us, the generator's is 40 exactly" % (out, n, st[5], st[4]))

def timeline(out, runs, nstacks):
    counts = {c[0]: int(c[1]) for c in rows(out, "COUNT")}
    check(counts.get("panels") == 3, "%s: %s time series panels, not 3" % (out, counts.get("panels")))
    check(counts.get("rate-lines") == nstacks and counts.get("latency-lines") == 2 * nstacks,
          "%s: %s rate and %s latency lines for %d series" % (out, counts.get("rate-lines"), counts.get("latency-lines"), nstacks))
    check(counts.get("index-svgs") == nstacks + 2 if len(runs) > 1 else True,
          "%s: index.html holds %s plots" % (out, counts.get("index-svgs")))

stages("multi.out", "ab")
cdfs("multi.out", "ab")
timeline("multi.out", "ab", 4)
stages("single.out", "a", "write")
cdfs("single.out", "a")
timeline("single.out", "a", 1)
stages("hostonly.out", "h")
cdfs("hostonly.out", "h")
timeline("hostonly.out", "h", 2)
c = {x[0]: int(x[1]) for x in rows("single.out", "COUNT")}
check(c.get("index-svgs") == 3, "single: index.html holds %s plots, not 3" % c.get("index-svgs"))

# timeline(PATH): per group name, its buckets (start s, commands/s) as
# `ntprof report --timeline` prints them
def report_timeline(path):
    series, name = {}, None
    for l in open(path):
        if l.startswith("== "):
            name = l[3:].rsplit(" ", 1)[0].strip()
            series[name] = []
        elif name and re.match(r"^ +[0-9.]+ +[0-9]+ ", l):
            series[name].append((float(l.split()[0]), float(l.split()[1])))
    return series

# drawn(OUT, N, WANT, WIDTH): the rate line of series N against WANT's
# buckets, each drawn at the bucket's middle
def drawn(out, n, label, want, width):
    pts = [(float(t), float(v)) for m, t, v in rows(out, "RATE") if m == n]
    rmax = [float(a[3]) for a in rows(out, "AXIS") if a[0] == "timeline-rate"][0]
    check(len(pts) == len(want) and len(want) >= 19,
          "%s: %s: %d buckets drawn, report --timeline has %d" % (out, label, len(pts), len(want)))
    check(rmax >= max(v for t, v in want), "%s: rate axis up to %g, below the largest rate" % (out, rmax))
    for (t, v), (wt, wv) in zip(pts, want):
        check(near(t, wt + width / 2, width / 40) and near(v, wv, rmax / 150),
              "%s: %s: bucket at %.3f s drawn at %.3f s, %.0f/s; report --timeline: %.0f/s" % (out, label, wt, t, v, wv))
    return pts

# Run a's rates by default (at most 50 buckets: 50 ms) and at 100 ms as
# ntprof report --timeline prints them; its reads' from the generator's
# parameters: three quarters of 1,000, then of 3,000 commands/s (-w 0.25
# -R 1,3000; up to about 10 % more, as its commands are faster than the
# generator's pacing assumes: within 15 %; the drawn rates are checked
# against report --timeline's to the pixel above).
want = report_timeline("a.timeline")
for n, label in {b[0]: b[1] for b in rows("multi.out", "STACK")}.items():
    if not label.endswith("(a)"):
        continue
    pts = drawn("multi.out", n, label, want[label[:-4].replace("_", " ")], 0.05)
    if label.startswith("read"):
        before = sorted(v for t, v in pts if t < 0.9)
        after = sorted(v for t, v in pts if t > 1.1)
        for what, vals, rate in (("before", before, 750), ("after", after, 2250)):
            med = vals[len(vals) // 2] if vals else 0
            check(near(med, rate, 0.15 * rate), "multi: %s: rate %s second 1 drawn %.0f/s, the generator's %.0f" % (label, what, med, rate))
drawn("single.out", "2", "write 4KiB", report_timeline("a-write.timeline")["write 4KiB"], 0.1)
EOF
while read -r verdict msg; do
	case $verdict in
	ok) ok ;;
	*) bad "$msg" ;;
	esac
done < verdicts.txt
[ -s verdicts.txt ] && ok || bad "no verdicts from the checks"

# Bad input, and files that are not ntprof's.
mkdir foreign && echo "my notes" > foreign/stages.svg
"$NTPROF" plot -o foreign a-h.db,a-t.db > out.txt 2> err.txt
expect "foreign file: exit" $? 1
grep -q "^ntprof plot: foreign/stages.svg: not written by ntprof plot: not overwriting it" err.txt &&
	ok || bad "foreign file: $(cat err.txt)"
expect "foreign file: kept" "$(cat foreign/stages.svg)" "my notes"
expect "foreign file: nothing else written" "$(ls foreign)" "stages.svg"
: > a-file
"$NTPROF" plot -o a-file a-h.db > out.txt 2> err.txt
expect "-o a file: exit" $? 1
expect "-o a file: message" "$(cat err.txt)" "ntprof plot: a-file: not a directory"
"$NTPROF" plot -o x --timeline 1x a-h.db 2> err.txt
expect "--timeline 1x: exit" $? 2
grep -q "^ntprof plot: --timeline: '1x': expected a width" err.txt && ok || bad "--timeline 1x: $(cat err.txt)"
"$NTPROF" plot -o x a-h.db,a-t.db,b-t.db 2> err.txt
expect "three files in a run: exit" $? 2
expect "three files in a run: message" "$(cat err.txt)" \
	"ntprof plot: 'a-h.db,a-t.db,b-t.db': expected HOST.db or HOST.db,TARGET.db"
"$NTPROF" plot -o x -l a a-h.db b-h.db 2> err.txt
expect "--label a for two runs: exit" $? 2
expect "--label: message" "$(cat err.txt)" "ntprof plot: --label 'a': expected 2 names, one per run"
"$NTPROF" plot -o x -g flush a-h.db,a-t.db 2> err.txt
expect "-g flush: exit" $? 1
expect "-g flush: message" "$(cat err.txt)" "ntprof plot: no I/O group's name contains 'flush'"
"$NTPROF" plot 2> err.txt
expect "no run: exit" $? 2
grep -q "^ntprof plot: no run given" err.txt && ok || bad "no run: $(cat err.txt)"
[ ! -e x ] && ok || bad "a failed plot left its directory"
"$NTPROF" plot --help | grep -q '^usage: ntprof plot' && ok || bad "plot --help"

took=$(($(date +%s) - started))
echo "plot_test: $took s"
[ "$took" -lt 120 ] && ok || bad "plot_test took $took s, more than 2 minutes"
finish
