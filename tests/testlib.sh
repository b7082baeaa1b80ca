# SPDX-License-Identifier: BSD-2-Clause
#
# Shell helpers of the shell tests (collect_test.sh, fault_test.sh,
# fuzz_test.sh, reader_test.sh, stall_test.sh, fidelity_test.sh), sourced after
# setting TEST, the name messages carry.
# Counts in $pass and $fail; `finish` prints them and exits 0 only when
# nothing failed.

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*" >&2
}
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit $?
}

# need_root WHY: without root the test ends here, one failure saying WHY.
need_root() {
	[ "$(id -u)" = 0 ] || { bad "$TEST needs root ($1): run it as root"; finish; }
}

# need_built FILE...: each must be an executable, else the test ends here.
need_built() {
	for _f; do
		[ -x "$_f" ] || { bad "$_f: not built (run make first)"; finish; }
	done
}

# expect WHAT ACTUAL EXPECTED
expect() { if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', expected '$3'"; fi; }

# expect_fail NAME STATUS PATTERN CMD...: CMD fails with exit status
# STATUS, writes nothing on standard output, and says on the first line of
# standard error what PATTERN matches (out.txt and err.txt, in the current
# directory, keep what it wrote).
expect_fail() {
	_name=$1 _status=$2 _pattern=$3
	shift 3
	"$@" > out.txt 2> err.txt
	_rc=$?
	if [ $_rc -ne "$_status" ]; then bad "$_name: exit $_rc, expected $_status"; cat err.txt >&2
	elif [ -s out.txt ]; then bad "$_name: wrote on standard output anyway"
	elif ! head -1 err.txt | grep -q -- "$_pattern"; then bad "$_name: '$(head -1 err.txt)'"
	else ok; fi
}

# wait_for FILE PATTERN SECS: until FILE has a line matching PATTERN. A job
# restarted into the same FILE is raced by its own redirection: empty FILE
# with `: >FILE` before starting the job.
wait_for() {
	_i=0
	while ! grep -q -- "$2" "$1" 2>/dev/null; do
		_i=$((_i + 1))
		if [ $_i -gt $(($3 * 10)) ]; then
			echo "$TEST: timed out after $3 s waiting for '$2' in $1:" >&2
			sed 's/^/  /' "$1" >&2
			return 1
		fi
		sleep 0.1
	done
}

# wait_exit PID SECS: wait for a background job and give its exit status;
# one still running after SECS is killed, and the status is then 125 (no
# command of ntprof's exits with it).
wait_exit() {
	_i=0
	while kill -0 "$1" 2>/dev/null; do
		_i=$((_i + 1))
		if [ $_i -gt $(($2 * 10)) ]; then
			echo "$TEST: process $1 still running after $2 s; killing it" >&2
			kill -9 "$1"
			wait "$1" 2>/dev/null
			return 125
		fi
		sleep 0.1
	done
	wait "$1"
}

# walled SRC DST: DST holds SRC's every row, all in DST-wal: the state of a
# recording whose collector died before SQLite's first checkpoint (the
# main file is the empty database's first page, application id 0)
walled() {
	sqlite3 "$1" .dump >"$2.sql" && python3 -c 'import os, sqlite3, sys
src, dst, dump = sys.argv[1:4]
s = sqlite3.connect(src)
head = "PRAGMA application_id = %d; PRAGMA user_version = %d;" % (
    s.execute("PRAGMA application_id").fetchone()[0],
    s.execute("PRAGMA user_version").fetchone()[0])
c = sqlite3.connect(dst, isolation_level=None)
c.execute("PRAGMA journal_mode=WAL")
c.execute("PRAGMA wal_autocheckpoint=0")
c.executescript(head + open(dump).read())
os._exit(0)' "$1" "$2" "$2.sql" && rm -f "$2-shm" "$2.sql"
}

# scratch NAME: the test's scratch directory, $d (kept with KEEP=1), with
# prepared runs (lib/cache.c) in a cache of its own, never the user's, and
# no note of a long preparation; $pids, the processes killed when the test
# ends, however it ends.
scratch() {
	d=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-$1.XXXXXX") || exit 1
	export NTPROF_CACHE_DIR="$d/cache" NTPROF_PREPARE_NOTE_AFTER=3600
	pids=""
	trap _scratch_end EXIT INT TERM
}
_scratch_end() {
	for _p in $pids; do kill -9 "$_p" 2>/dev/null; done
	[ -n "${KEEP:-}" ] && echo "kept $d" >&2 || rm -rf "$d"
}

# pair_up NAME RATE TGT_ARGS PERF_ARGS: the fixture pair (tests/fixture)
# recorded on both roles at -s RATE, for the root tests (they set COLLECT,
# TGT, PERF, port and call scratch first): the target on the next port
# with TGT_ARGS, on CPU $pair_tgt_cpu when set, and its collector; the
# host workload with PERF_ARGS (words), on CPU $pair_perf_cpu when set,
# connected and waiting for SIGUSR1, and its collector. Sets tgt, tcol,
# perf and hcol; logs $d/NAME-tgt.log, -tcol.log, -perf.log, -hcol.log,
# recordings $d/NAME-target.db and -host.db. Fails (1) with what did not start.
pair_up() {
	_n=$1 _r=$2
	port=$((port + 1))
	# shellcheck disable=SC2086 # the CPU and the arguments: words
	${pair_tgt_cpu:+taskset -c $pair_tgt_cpu} "$TGT" -a 127.0.0.1 -p "$port" $3 \
		>"$d/$_n-tgt.log" 2>&1 &
	tgt=$!
	pids="$pids $tgt"
	wait_for "$d/$_n-tgt.log" "listening on" 30 || { bad "$_n: the target did not start"; return 1; }
	"$COLLECT" record -r target -t tcp -s "$_r" -i 1 --spdk-target "$TGT" \
		-o "$d/$_n-target.db" >"$d/$_n-tcol.log" 2>&1 &
	tcol=$!
	pids="$pids $tcol"
	wait_for "$d/$_n-tcol.log" "profiling as target" 60 ||
		{ bad "$_n: the target's collector did not start"; return 1; }
	# shellcheck disable=SC2086
	${pair_perf_cpu:+taskset -c $pair_perf_cpu} "$PERF" -a 127.0.0.1 -p "$port" --wait-signal \
		$4 >"$d/$_n-perf.log" 2>&1 &
	perf=$!
	pids="$pids $perf"
	wait_for "$d/$_n-perf.log" "waiting for SIGUSR1" 30 ||
		{ bad "$_n: the host workload did not connect"; return 1; }
	"$COLLECT" record -t tcp -s "$_r" -i 1 --spdk-host "$PERF" -o "$d/$_n-host.db" \
		>"$d/$_n-hcol.log" 2>&1 &
	hcol=$!
	pids="$pids $hcol"
	wait_for "$d/$_n-hcol.log" "profiling as host" 60 ||
		{ bad "$_n: the host's collector did not start"; return 1; }
}

# pair_down NAME: after the workload, both collectors and the target
# stopped, each cleanly or a failure.
pair_down() {
	kill -INT "$hcol"
	wait_exit "$hcol" 60 || bad "$1: the host's collector did not stop cleanly"
	kill -INT "$tcol"
	wait_exit "$tcol" 60 || bad "$1: the target's collector did not stop cleanly"
	kill -INT "$tgt"
	wait_exit "$tgt" 30 || bad "$1: the target did not stop cleanly"
}
