#!/bin/sh
# Tests of `ntprof plot` in a real browser: generated runs (tests/ntprof-gen)
# are plotted, and headless Chromium (Debian's chromium) renders
# tests/plot_check.html, which loads the files, checks that they parse,
# counts their elements and reads the values back from the drawing through
# the axes (docs/plots.md). This script then checks what it read against
# numbers computed without the plot code:
# - each bar segment against the stage's mean in `ntprof report --json`,
#   each stack's end against the mean end to end, the axis against both;
#   the tail bands' bars (tails.svg) against the report's tail[] likewise;
# - the generator's known parameters: run a's storage is a constant 40 us
#   (-c storage=40000), run b's is 25 us longer than the default (-M 25000),
#   and run a's rate triples at second 1 (-R 1,3000);
# - the CDFs: one figure per operation and size, a panel per component of
#   `report --json --detail` with every run's line in it on one x axis
#   fitted to them all, on a log scale; each line ending at 1, the end to
#   end's largest value as ntprof-shell's max(); a component that is 0 in
#   every command (ntprof-shell says which) has no line, and a note names
#   it (an SPDK host has no block layer);
# - how things are drawn: each stage in one colour in every file, the one
#   of ntp_plot_colour; each run in one line style in every file, which
#   the legend names with the run's label;
# - the latency panel on a log axis: with a p99 of 4 ms, the mean is still
#   drawn well above the panel's floor;
# - the time series: its buckets and rates as `ntprof report --timeline`
#   prints them, and the commands in flight as its rate times its mean;
# - index.html: every plot inline, no script, nothing fetched; and
#   rendered as a page (a screenshot), with something drawn in the plot
#   area of every panel;
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
# Prepared runs (lib/cache.c) in the test's directory: the cache is on, as
# for users, and never the user's own; a long preparation's note on stderr
# is tested in cache_test.sh, not here.
export NTPROF_CACHE_DIR="$dir/cache" NTPROF_PREPARE_NOTE_AFTER=3600
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
# An SPDK host and target: the host has no block layer.
"$GEN" -o s-h.db -t s-t.db -d host=spdk -d target=spdk -n 2 -r 1000 -w 0.25 -x 31 || exit 1
# b's host with a p99 of 4 ms: every 50th command or so 4 ms longer
# between its capsule's sending and its response (cmd.h_rx: ns after the
# point before it).
cp b-h.db spike-h.db &&
	sqlite3 spike-h.db "UPDATE cmd SET h_rx = h_rx + 4000000 WHERE t % 50 = 0" || exit 1

# render DIR: the check page's findings on DIR's plots, into DIR.out
render() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--allow-file-access-from-files --virtual-time-budget=5000 \
		--dump-dom "file://$dir/plot_check.html?dir=$1&width=1100" > "$1.dom" 2> "$1.chromium.err"
	rc=$?
	[ $rc -eq 0 ] && ok || { bad "chromium on $1: exit $rc"; sed 's/^/  /' "$1.chromium.err" >&2; }
	sed -n '/<pre id="out">/,/<\/pre>/p' "$1.dom" | sed '1d;$d' > "$1.out"
	grep -q '^DONE$' "$1.out" && ok || bad "$1: the check page did not finish"
	grep '^FAIL' "$1.out" | while read -r line; do echo "FAIL: $1: page: ${line#FAIL }" >&2; done
	[ -z "$(grep '^FAIL' "$1.out")" ] && ok || bad "$1: the check page found faults"
}
cp "$top/tests/plot_check.html" .

# shot DIR: DIR/index.html rendered as a page (a PNG) as wide as the check
# page laid it out (its PAGE line), and each plot area it found there
# (RECT lines) checked for drawn pixels. PNG decoded with zlib alone.
shot() {
	size=$(awk '$1 == "PAGE" { print $2 "," $3 }' "$1.out")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--force-device-scale-factor=1 --window-size="$size" --screenshot="$dir/$1.png" \
		"file://$dir/$1/index.html" > /dev/null 2> "$1.shot.err"
	rc=$?
	[ $rc -eq 0 ] && [ -s "$1.png" ] && ok ||
		{ bad "chromium's screenshot of $1/index.html: exit $rc"; sed 's/^/  /' "$1.shot.err" >&2; }
	python3 - "$1" > "$1.shot" <<'EOF' || bad "$1: the screenshot's checks failed"
import struct, sys, zlib

name = sys.argv[1]

def png(path):
    """(width, height, bytes per pixel, rows of unfiltered bytes)"""
    data, chunks, i = open(path, "rb").read(), [], 8
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    while i < len(data):
        n, kind = struct.unpack(">I4s", data[i:i + 8])
        body = data[i + 8:i + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and not interlace, "an unexpected PNG format"
        elif kind == b"IDAT":
            chunks.append(body)
        i += 12 + n
    raw, bpp = zlib.decompress(b"".join(chunks)), 3 if ctype == 2 else 4
    stride, prev, rows = w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride) if f else ():
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 255
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows

w, h, bpp, rows = png(name + ".png")
out = [l.split() for l in open(name + ".out")]
page = [l for l in out if l[:1] == ["PAGE"]][0]
print("ok -" if [w, h] == [int(page[1]), int(page[2])] else
      "FAIL %s: screenshot %dx%d, the page laid out %sx%s" % (name, w, h, page[1], page[2]))
rects = [l for l in out if l[:1] == ["RECT"]]
print("ok -" if len(rects) >= 5 else "FAIL %s: %d plot areas on index.html" % (name, len(rects)))
for _, f, k, x, y, rw, rh in rects:
    x0, y0 = int(float(x)) + 1, int(float(y)) + 1
    x1, y1 = min(w, int(float(x) + float(rw))), min(h, int(float(y) + float(rh)))
    # pixels that are not the white background
    drawn = sum(1 for r in rows[y0:y1] for px in range(x0, x1) if min(r[px * bpp:px * bpp + 3]) < 235)
    print("ok -" if drawn >= 50 else
          "FAIL %s: index.html: %s's panel %s: %d pixels drawn in its plot area" % (name, f, k, drawn))
EOF
	while read -r verdict msg; do
		[ "$verdict" = ok ] && ok || bad "$msg"
	done < "$1.shot"
	[ -s "$1.shot" ] && ok || bad "$1: no verdicts from the screenshot's checks"
}

# 1. Two runs side by side.
"$NTPROF" plot -o multi -l a,b a-h.db,a-t.db b-h.db,b-t.db > multi.files 2> err.txt
expect "plot two runs: exit" $? 0
expect "plot two runs: stderr" "$(cat err.txt)" ""
expect "plot two runs: files" "$(tr '\n' ' ' < multi.files)" \
	"multi/stages.svg multi/tails.svg multi/cdf-1.svg multi/cdf-2.svg multi/timeline.svg multi/index.html "
# 2. One run, buckets of 100 ms, the writes only (the second figure: plot
# numbers do not change with -g), into a directory that holds this plot's
# files from before (they are overwritten, and CDFs this plot has not are
# removed) and a file of the user's, which stays.
mkdir single && cp multi/stages.svg multi/index.html multi/cdf-1.svg single/ &&
	cp multi/cdf-1.svg single/cdf-3.svg
echo "my notes" > single/cdf-notes.svg
"$NTPROF" plot -o single -g write --timeline 100ms a-h.db,a-t.db > single.files 2> err.txt
expect "plot one run: exit" $? 0
expect "plot one run: files" "$(tr '\n' ' ' < single.files)" \
	"single/stages.svg single/tails.svg single/cdf-2.svg single/timeline.svg single/index.html "
expect "plot one run: the directory" "$(ls single | tr '\n' ' ')" \
	"cdf-2.svg cdf-notes.svg index.html stages.svg tails.svg timeline.svg "
# 3. A host's recording alone: the host's stages (network and target as
# one).
"$NTPROF" plot -o hostonly b-h.db > hostonly.files 2> err.txt
expect "plot a host alone: exit" $? 0
expect "plot a host alone: files" "$(tr '\n' ' ' < hostonly.files)" \
	"hostonly/stages.svg hostonly/tails.svg hostonly/cdf-1.svg hostonly/cdf-2.svg hostonly/timeline.svg hostonly/index.html "
# 4. An SPDK run beside a kernel run, an SPDK host alone, and a host with
# a p99 of 4 ms.
"$NTPROF" plot -o spdk -l kernel,spdk a-h.db,a-t.db s-h.db,s-t.db > /dev/null 2> err.txt
expect "plot kernel and SPDK: exit" $? 0
"$NTPROF" plot -o spdkhost s-h.db > /dev/null 2> err.txt
expect "plot an SPDK host: exit" $? 0
"$NTPROF" plot -o spike spike-h.db > /dev/null 2> err.txt
expect "plot a 4 ms p99: exit" $? 0
grep -ril '<script' multi single hostonly spdk spdkhost spike && bad "a plot has a script" || ok

t0=$(date +%s)
for d in multi single hostonly spdk spdkhost spike; do
	render $d
done
shot multi
echo "plot_test: chromium took $(($(date +%s) - t0)) s"

# The independent numbers: the reports, the largest end to end, which
# components are 0 in every command, the time series at 100 ms, and
# ntp_plot_colour and ntp_plot_line, the one home of the colours and line
# styles.
comps="h_blk_sub h_drv_sub h_r2t h_wait wire t_rx_path t_drv_sub t_data_wait t_storage t_drv_cpl
	h_rx_path h_drv_cpl h_blk_cpl h_handoff e2e t_e2e"
largest=$(for c in $comps; do printf ', max(abs(c.%s))' $c; done)
# independent KEY MODE FILE...: KEY's report and, per operation, its
# commands' largest end to end and each component's largest absolute value
independent() {
	key=$1 mode=$2
	shift 2
	"$NTPROF" report --json --detail "$@" > $key.json || bad "report $key"
	"$SHELL_BIN" -csv -noheader -c "SELECT c.op, max(c.e2e) / 1e3$largest FROM ntp_command AS c
		WHERE c.mode = '$mode' GROUP BY c.op" "$@" > $key.max || bad "ntprof-shell $key"
}
independent a joined a-h.db a-t.db
independent b joined b-h.db b-t.db
independent h host b-h.db
independent s joined s-h.db s-t.db
independent sh host s-h.db
independent spike host spike-h.db
"$SHELL_BIN" -csv -noheader -c "SELECT stage, colour FROM ntp_plot_colour" a-h.db > colours.csv ||
	bad "ntprof-shell: ntp_plot_colour"
"$SHELL_BIN" -csv -noheader -c "SELECT name FROM stage" a-h.db > stages.csv || bad "ntprof-shell: stage"
"$SHELL_BIN" -csv -noheader -c "SELECT ord, style, replace(dash, ' ', '_') FROM ntp_plot_line" a-h.db \
	> lines.csv || bad "ntprof-shell: ntp_plot_line"
"$NTPROF" report --timeline 100ms -g write a-h.db a-t.db > a-write.timeline || bad "report --timeline"
# the default width: the two seconds in at most 50 buckets, rounded up to
# 1, 2 or 5 x 10^k: 50 ms
"$NTPROF" report --timeline 50ms a-h.db a-t.db > a.timeline || bad "report --timeline"

COMPS="$comps" python3 - > verdicts.txt <<'EOF' || bad "the checks' script failed"
import csv, json, math, os, re

def rows(path, tag):
    return [l.split()[1:] for l in open(path) if l.split()[:1] == [tag]]

def check(cond, msg):
    print("ok -" if cond else "FAIL " + msg)

def near(a, b, tol):
    return abs(a - b) <= tol

# the plots, each with its runs: the label a plot gives a run, and the
# report's key
plots = {"multi": {"a": "a", "b": "b"}, "single": {"a-h.db": "a"}, "hostonly": {"b-h.db": "h"},
         "spdk": {"kernel": "a", "spdk": "s"}, "spdkhost": {"s-h.db": "sh"},
         "spike": {"spike-h.db": "spike"}}
keys = ["a", "b", "h", "s", "sh", "spike"]
reports = {r: json.load(open(r + ".json")) for r in keys}
comps = os.environ["COMPS"].split()
# per key and operation: the largest end to end, and each component's
# largest absolute value (None: no command has it)
maxes, zero = {}, {}
for r in keys:
    maxes[r], zero[r] = {}, {}
    for l in csv.reader(open(r + ".max")):
        maxes[r][l[0]] = float(l[1])
        zero[r][l[0]] = {c: v != "" and float(v) == 0 for c, v in zip(comps, l[2:])}

def run_of(plot, label):
    """the report key and the run label of a stack's label 'read_4KiB_(a)'"""
    runs = plots[plot]
    if len(runs) == 1:
        return list(runs.values())[0], list(runs)[0]
    run = re.search(r"\(([^()]*)\)$", label).group(1)
    return runs[run], run

def group(plot, label):
    # 'read_4KiB_(a)': the run's report group of that name
    key, run = run_of(plot, label)
    name = re.sub(r" \(%s\)$" % re.escape(run), "", label.replace("_", " "))
    for g in reports[key]["groups"]:
        if g["queue"] == "io" and g["name"].rsplit(" ", 1)[0] == name:
            return key, g
    return key, None

def stages(plot, only=""):
    out = plot + ".out"
    axis = [a for a in rows(out, "AXIS") if a[0] == "stages.svg"][0]
    xmin, xmax = float(axis[2]), float(axis[3])
    tol = (xmax - xmin) / 500  # about a pixel and a half
    stacks = rows(out, "STACK")
    want = sum(1 for r in plots[plot].values() for g in reports[r]["groups"] if g["queue"] == "io" and only in g["name"])
    check(len(stacks) == want, "%s: %d stacks, the reports have %d I/O groups" % (out, len(stacks), want))
    largest = 0
    for n, label, end, fig in stacks:
        run, g = group(plot, label)
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
        if run not in "ab":
            continue
        st = [float(b[3]) for b in bars if b[2] == "storage"][0]
        want_st = 40 if run == "a" else (55 if g["op"] == "read" else 20) + 4 + 25
        check(near(st, want_st, 1.5 if run == "b" else tol),
              "%s: %s storage drawn %.3f us, the generator's is %d" % (out, label, st, want_st))
    check(largest <= xmax <= 1.5 * largest and xmin == 0,
          "%s: stages axis %g..%g for stacks up to %.3f us" % (out, xmin, xmax, largest))

def tails(plot, only=""):
    """tails.svg: a stack per group and band of the report's tail[], each
    segment the stage's mean over the band's commands, the stack ending at
    their sum."""
    out = plot + ".out"
    axis = [a for a in rows(out, "AXIS") if a[0] == "tails.svg"][0]
    xmin, xmax = float(axis[2]), float(axis[3])
    tol = (xmax - xmin) / 500
    stacks = rows(out, "TAILSTACK")
    want = sum(len({t["band"] for t in g["tail"]}) for r in plots[plot].values()
               for g in reports[r]["groups"] if g["queue"] == "io" and only in g["name"])
    check(len(stacks) == want >= 4, "%s: %d tail stacks, the reports have %d bands" % (out, len(stacks), want))
    largest = 0
    for n, label, end, fig in stacks:
        title, band = label.rsplit("_", 1)
        run, g = group(plot, title)
        if g is None:
            check(False, "%s: tail stack %s: no such group in the report" % (out, label))
            continue
        rows_ = [t for t in g["tail"] if t["band"] == band]
        bars = [b for b in rows(out, "TAILBAR") if b[0] == n and b[1] == label]
        check([b[2] for b in bars] == [t["stage"] for t in rows_],
              "%s: tail stack %s: stages %s, the report's %s" % (out, label, [b[2] for b in bars],
                                                                [t["stage"] for t in rows_]))
        for b, t in zip(bars, rows_):
            check(near(float(b[3]), t["mean_ns"] / 1e3, tol),
                  "%s: %s %s drawn %s us, the report says %.3f" % (out, label, t["stage"], b[3], t["mean_ns"] / 1e3))
        total = sum(t["mean_ns"] for t in rows_) / 1e3
        largest = max(largest, total)
        check(near(float(end), total, tol), "%s: tail stack %s ends at %s us, its stages add up to %.3f" % (out, label, end, total))
    check(largest <= xmax <= 1.5 * largest and xmin == 0,
          "%s: tails axis %g..%g for stacks up to %.3f us" % (out, xmin, xmax, largest))

def cdfs(plot):
    """One figure per operation and size, a panel per component with every
    run's line in it, on a log axis fitted to them all; no line for a
    component that is 0 in every command, and a note naming it."""
    out = plot + ".out"
    stacks = rows(out, "STACK")
    figures = sorted({s[3] for s in stacks})
    check(sorted({p[0] for p in rows(out, "PANEL")}) == figures,
          "%s: CDF figures %s, the stacks' %s" % (out, sorted({p[0] for p in rows(out, "PANEL")}), figures))
    for n, label, _, fig in stacks:
        run, g = group(plot, label)
        _, name = run_of(plot, label)
        lines = [c for c in rows(out, "CDF") if c[0] == n]
        left_out = [c["component"] for c in g["components"] if zero[run][g["op"]][c["component"]]]
        want = [c["component"] for c in g["components"] if c["component"] not in left_out]
        check([c[1] for c in lines] == want,
              "%s: %s: lines %s, the report's components but those 0 in every command %s" % (out, label, [c[1] for c in lines], want))
        notes = " ".join(" ".join(x[1:]) for x in rows(out, "NOTE") if x[0] == "cdf-%s.svg" % fig)
        for c in g["components"]:
            if c["component"] in left_out:
                check(c["label"] in notes and (len(plots[plot]) == 1 or "of " + name in notes),
                      "%s: cdf-%s: %s of %s left out, and no note says so: %r" % (out, fig, c["component"], name, notes))
        for c in lines:
            check(near(float(c[3]), 1, 0.002), "%s: %s %s ends at %s, not 1" % (out, label, c[1], c[3]))
        e2e = [c for c in lines if c[1] == "e2e"][0]
        top = maxes[run][g["op"]]
        check(near(float(e2e[4]), top, 0.02 * top),
              "%s: %s: e2e ends at %s us, the largest end to end is %.3f" % (out, label, e2e[4], top))
        if run == "a":
            st = [c for c in lines if c[1] == "t_storage"][0]
            check(near(float(st[4]), 40, 0.8) and near(float(st[5]), 40, 0.8),
                  "%s: %s: storage spans %s..%s us, the generator's is 40 exactly" % (out, label, st[5], st[4]))
    # each panel: the lines of every run that has the component, within one
    # x axis fitted to all of them (its ends the 1, 2 or 5 x 10^k around
    # them), on a log scale (every component has a positive value)
    for fig, comp, scale, lo, hi, nlines in rows(out, "PANEL"):
        lines = [c for c in rows(out, "CDF") if c[6] == fig and c[1] == comp]
        have = [s for s in stacks if s[3] == fig and
                comp in [c[1] for c in rows(out, "CDF") if c[0] == s[0]]]
        check(int(nlines) == len(lines) == len(have) >= 1,
              "%s: cdf-%s %s: %s lines, %d runs have it" % (out, fig, comp, nlines, len(have)))
        check(scale == "log", "%s: cdf-%s %s: a %s x axis" % (out, fig, comp, scale))
        # two runs of every component: both in its one panel
        check(plot != "multi" or len({c[0] for c in lines}) == 2,
              "%s: cdf-%s %s: the lines of %d runs, not of a and b" % (out, fig, comp, len({c[0] for c in lines})))
        low = min(float(c[5]) for c in lines)
        high = max(float(c[4]) for c in lines)
        check(float(lo) <= low * 1.001 and low <= 2.5 * float(lo) and
              high <= float(hi) * 1.001 and float(hi) <= 2.5 * high,
              "%s: cdf-%s %s: x axis %s..%s for lines from %g to %g us" % (out, fig, comp, lo, hi, low, high))

def timeline(plot, nstacks):
    out = plot + ".out"
    counts = {c[0]: int(c[1]) for c in rows(out, "COUNT")}
    nfig = len({s[3] for s in rows(out, "STACK")})
    check(counts.get("panels") == 4 * nfig, "%s: %s time series panels, not 4 a figure" % (out, counts.get("panels")))
    check(counts.get("rate-lines") == nstacks and counts.get("latency-lines") == 2 * nstacks and
          counts.get("qd-lines") == nstacks,
          "%s: %s rate, %s latency and %s in-flight lines for %d series" % (out, counts.get("rate-lines"), counts.get("latency-lines"), counts.get("qd-lines"), nstacks))
    check(counts.get("index-svgs") == nfig + 3,
          "%s: index.html holds %s plots" % (out, counts.get("index-svgs")))
    for a in rows(out, "AXIS"):
        if a[0].startswith("timeline-latency"):
            check(a[4] == "log", "%s: %s on a %s axis" % (out, a[0], a[4]))

for plot in plots:
    stages(plot, "write" if plot == "single" else "")
    tails(plot, "write" if plot == "single" else "")
    cdfs(plot)
    timeline(plot, len(rows(plot + ".out", "STACK")))

# The colours: each stage's the same in every file of every plot, the one
# ntp_plot_colour gives it; every stage has one, each its own.
home = dict(csv.reader(open("colours.csv")))
check(sorted(home) == sorted([l.strip() for l in open("stages.csv")] + ["e2e"]),
      "ntp_plot_colour's stages %s, not those of the stage table" % sorted(home))
check(len(set(home.values())) == len(home), "ntp_plot_colour gives two stages one colour")
seen = {}
for plot in plots:
    for f, stage, colour in rows(plot + ".out", "COLOUR"):
        seen.setdefault(stage, set()).add(colour)
        check(colour == home.get(stage), "%s/%s: %s drawn in %s, ntp_plot_colour's is %s" % (plot, f, stage, colour, home.get(stage)))
for stage, colours in seen.items():
    check(len(colours) == 1, "stage %s drawn in %d colours: %s" % (stage, len(colours), sorted(colours)))
check(len(seen) >= 6, "only %d stages drawn in colour" % len(seen))

# The line styles: in each file with lines, each run's lines in one style
# (ntp_plot_line's for the run's place), and a legend entry with that
# style, labelled with the run's label and the style's name.
styles = {int(o): (style, dash) for o, style, dash in csv.reader(open("lines.csv"))}
for plot, runs in plots.items():
    out = plot + ".out"
    files = sorted({d[0] for d in rows(out, "DASH")})
    check(len(files) == 1 + len({s[3] for s in rows(out, "STACK")}),
          "%s: lines in %s" % (out, files))
    for f in files:
        legend = {l[1]: (l[2], " ".join(l[3:])) for l in rows(out, "LEGEND") if l[0] == f}
        for i, name in enumerate(runs):
            dashes = {d[3] for d in rows(out, "DASH") if d[0] == f and d[2] == name}
            if not dashes:
                continue
            style, dash = styles[i]
            check(dashes == {dash}, "%s/%s: run %s drawn %s, not %s (%s)" % (plot, f, name, sorted(dashes), dash, style))
            check(legend.get(name) == (dash, "%s (%s)" % (name, style)),
                  "%s/%s: the legend has %s for run %s, not its %s line named '%s (%s)'" % (plot, f, legend.get(name), name, style, name, style))

# A p99 of 4 ms: on the log axis the mean latency is still drawn well
# above the panel's floor (on a linear one up to 5 ms, at about 3 % of its
# height), the p99 above it.
lat = {(l[1], l[2]): float(l[3]) for l in rows("spike.out", "LATENCY") if l[0] == "1"}
check(lat.get(("mean", "1"), 0) >= 0.12 and lat.get(("p99", "1"), 0) > lat.get(("mean", "1"), 1),
      "spike: the mean latency drawn at %s of the panel's height, the p99 at %s" % (lat.get(("mean", "1")), lat.get(("p99", "1"))))
check(maxes["spike"]["read"] > 4000, "spike: the largest read took %.0f us, not over 4 ms" % maxes["spike"]["read"])

# timeline(PATH): per group name, its buckets (start s, commands/s, mean
# us) as `ntprof report --timeline` prints them
def report_timeline(path):
    series, name = {}, None
    for l in open(path):
        if l.startswith("== "):
            name = l[3:].rsplit(" ", 1)[0].strip()
            series[name] = []
        elif name and re.match(r"^ +[0-9.]+ +[0-9]+ ", l):
            series[name].append(tuple(float(v) for v in l.split()[:3]))
    return series

# drawn(OUT, N, WANT, WIDTH): the rate line of series N against WANT's
# buckets, each drawn at the bucket's middle
def drawn(out, n, label, want, width):
    pts = [(float(t), float(v)) for m, t, v in rows(out, "RATE") if m == n]
    qds = [float(v) for m, t, v in rows(out, "QD") if m == n]
    fig = [s[3] for s in rows(out, "STACK") if s[0] == n][0]
    rmax = [float(a[3]) for a in rows(out, "AXIS") if a[0] == "timeline-rate-" + fig][0]
    check(len(pts) == len(want) and len(want) >= 19,
          "%s: %s: %d buckets drawn, report --timeline has %d" % (out, label, len(pts), len(want)))
    check(rmax >= max(v for t, v, m in want), "%s: rate axis up to %g, below the largest rate" % (out, rmax))
    for (t, v), (wt, wv, wm) in zip(pts, want):
        check(near(t, wt + width / 2, width / 40) and near(v, wv, rmax / 150),
              "%s: %s: bucket at %.3f s drawn at %.3f s, %.0f/s; report --timeline: %.0f/s" % (out, label, wt, t, v, wv))
    # the commands in flight: Little's law from the report's rate and mean
    qmax = [float(a[3]) for a in rows(out, "AXIS") if a[0] == "timeline-qd-" + fig][0]
    check(len(qds) == len(want), "%s: %s: %d in-flight points, %d buckets" % (out, label, len(qds), len(want)))
    for q, (wt, wv, wm) in zip(qds, want):
        check(near(q, wv * wm / 1e6, qmax / 150 + 0.001 * q),
              "%s: %s: bucket at %.3f s: %.4f in flight drawn; rate x mean: %.4f" % (out, label, wt, q, wv * wm / 1e6))
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
