#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# Damaged recordings: N (default 300) copies of a generated host and target
# recording, each with random bytes changed (a fixed seed per copy, so a
# failure can be replayed), read by `ntprof report` and by ntprof-shell, and
# every tenth drawn by `ntprof plot`; then N / 10 recordings not closed
# with bytes of their -wal changed, and N / 10 damaged merged files.
# Asserts for each: no crash (no signal, no sanitizer report), no hang
# (a 30 s limit), and never exit 0 on a file that fails SQLite's
# integrity check. make check-asan runs it on binaries built with
# AddressSanitizer and UBSan:
#
#   sh tests/fuzz_test.sh NTPROF NTPROF-SHELL [N]

top=$(cd "$(dirname "$0")/.." && pwd)
NTPROF=${1:-$top/ntprof}
SHELL_BIN=${2:-$top/ntprof-shell}
N=${3:-300}
GEN=$top/tests/ntprof-gen

TEST=fuzz_test
. "$top/tests/testlib.sh"
for f in "$NTPROF" "$SHELL_BIN" "$GEN"; do
	if [ ! -x "$f" ]; then
		echo "fuzz_test: $f: not built" >&2
		echo "0 passed, 1 failed"
		exit 1
	fi
done
command -v sqlite3 >/dev/null || { echo "fuzz_test: needs sqlite3" >&2; exit 1; }

d=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-fuzz-test.XXXXXX") || exit 1
# Prepared runs (lib/cache.c) in the test's directory: the cache is on, as
# for users, and never the user's own; a long preparation's note on stderr
# is tested in cache_test.sh, not here.
export NTPROF_CACHE_DIR="$d/cache" NTPROF_PREPARE_NOTE_AFTER=3600
[ -n "${KEEP:-}" ] && echo "fuzz_test: keeping $d" || trap 'rm -rf "$d"' EXIT INT TERM

"$GEN" -o "$d/h.db" -t "$d/t.db" -s 1 -n 1 -r 500 >"$d/gen.log" 2>&1 ||
	{ cat "$d/gen.log" >&2; echo "0 passed, 1 failed"; exit 1; }

# mutants: i.db for i in 1..N, from the host (odd i) or the target (even
# i), 1 to 16 bytes set at random, a third of them in the first page
python3 - "$d" "$N" <<'PY'
import random, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(1, n + 1):
    rnd = random.Random(i)
    src = f"{d}/h.db" if i % 2 else f"{d}/t.db"
    b = bytearray(open(src, "rb").read())
    for _ in range(rnd.randint(1, 16)):
        at = rnd.randrange(0, 4096 if rnd.random() < 1 / 3 else len(b))
        b[at] = rnd.randrange(256)
    open(f"{d}/{i}.db", "wb").write(b)
PY

# crashed RC ERRFILE: a signal, or a sanitizer's report
crashed() {
	[ "$1" -ge 124 ] || grep -q "AddressSanitizer\|runtime error:\|LeakSanitizer" "$2"
}

# judge RC WHO: WHO's run on mutant $i (status RC, stderr in $err) did
# not crash or hang, and did not exit 0 on a file that fails the check
judge() {
	if crashed "$1" "$err"; then
		bad "mutant $i: $2 crashed or hung (exit $1): $(head -3 "$err")"
	elif [ "$1" -eq 0 ] && [ "$integrity" != ok ]; then
		bad "mutant $i: fails the integrity check ($integrity), yet $2 exited 0"
	else
		ok
	fi
}

# mutants W: worker W of $P reads mutants W, W + P, ... with its own
# output files, and leaves "PASS FAIL BAD_FILES" in $d/count$W
mutants() {
	w=$1 out=$d/out$1 err=$d/err$1 pass=0 fail=0 bad_files=0
	i=$w
	while [ $i -le "$N" ]; do
		m=$d/$i.db
		if [ $((i % 2)) -eq 1 ]; then pair="$m $d/t.db"; else pair="$d/h.db $m"; fi
		integrity=$(sqlite3 "file:$m?immutable=1" 'PRAGMA integrity_check' 2>&1 | head -1)
		[ "$integrity" = ok ] || bad_files=$((bad_files + 1))
		# shellcheck disable=SC2086
		timeout 30 "$NTPROF" report --detail $pair >"$out" 2>"$err"
		judge $? "ntprof report"
		# shellcheck disable=SC2086
		timeout 30 "$SHELL_BIN" -c '.mode csv' -c 'SELECT count(*) FROM ntp_joined;' \
			-c 'SELECT * FROM ntp_match_stats;' $pair >"$out" 2>"$err"
		judge $? "ntprof-shell"
		# every tenth through the plots too (their own queries and writer)
		if [ $((i % 10)) -eq 0 ]; then
			timeout 30 "$NTPROF" plot -o "$d/plots$w" "$(echo $pair | tr ' ' ,)" >"$out" 2>"$err"
			judge $? "ntprof plot"
		fi
		i=$((i + P))
	done
	echo "$pass $fail $bad_files" >"$d/count$w"
}

# one worker a CPU: each mutant's runs are independent, and the cache of
# prepared runs is shared as users' concurrent processes share it
P=$(nproc 2>/dev/null || echo 1)
w=1
workers=""
while [ $w -le "$P" ]; do
	mutants $w &
	workers="$workers $!"
	w=$((w + 1))
done
# shellcheck disable=SC2086
wait $workers
bad_files=0
w=1
while [ $w -le "$P" ]; do
	if read -r wp wf wb <"$d/count$w"; then
		pass=$((pass + wp)) fail=$((fail + wf)) bad_files=$((bad_files + wb))
	else
		bad "worker $w of the mutants did not finish"
	fi
	w=$((w + 1))
done
echo "fuzz_test: $N mutants, $bad_files of them fail SQLite's integrity check"

# Mutants of the two other shapes a reader meets: a recording not closed
# (all of it in its -wal, read through a private copy) and a merged file
# (ntprof merge). 1 to 16 random bytes of the -wal, or of the merged
# file; N / 10 of each. The integrity check of a WAL mutant is run on a
# copy of the pair, so the mutant itself stays in WAL mode.
walled "$d/h.db" "$d/w.db" || bad "cannot make the WAL-mode recording"
"$NTPROF" merge -o "$d/m.ntp" "$d/h.db" "$d/t.db" >/dev/null 2>&1 || bad "cannot merge"
python3 - "$d" "$((N / 10))" <<'PY'
import random, shutil, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(1, n + 1):
    rnd = random.Random(100000 + i)
    shutil.copy(f"{d}/w.db", f"{d}/w{i}.db")
    for name, src in ((f"{d}/w{i}.db-wal", f"{d}/w.db-wal"), (f"{d}/m{i}.ntp", f"{d}/m.ntp")):
        b = bytearray(open(src, "rb").read())
        for _ in range(rnd.randint(1, 16)):
            b[rnd.randrange(0, len(b))] = rnd.randrange(256)
        open(name, "wb").write(b)
PY
out=$d/out err=$d/err
k=1
mkdir "$d/ic"
while [ $k -le $((N / 10)) ]; do
	i="wal $k"
	cp "$d/w$k.db" "$d/ic/x.db" && cp "$d/w$k.db-wal" "$d/ic/x.db-wal"
	integrity=$(sqlite3 "$d/ic/x.db" 'PRAGMA integrity_check' 2>&1 | head -1)
	rm -f "$d/ic/"*
	timeout 30 "$NTPROF" report "$d/w$k.db" "$d/t.db" >"$out" 2>"$err"
	judge $? "ntprof report"
	i="merged $k"
	integrity=$(sqlite3 "file:$d/m$k.ntp?immutable=1" 'PRAGMA integrity_check' 2>&1 | head -1)
	timeout 30 "$NTPROF" report "$d/m$k.ntp" >"$out" 2>"$err"
	judge $? "ntprof report"
	timeout 30 "$SHELL_BIN" -c 'SELECT count(*) FROM ntp_joined;' "$d/m$k.ntp" >"$out" 2>"$err"
	judge $? "ntprof-shell"
	k=$((k + 1))
done
[ "$bad_files" -gt 0 ] && ok || bad "no mutant failed the integrity check: the test proves nothing"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
