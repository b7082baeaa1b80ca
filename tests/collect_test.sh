#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# ntprof-collect end to end, as root on this machine's kernel: the NVMe/TCP
# fixture pair (tests/fixture, SPDK-shaped, over loopback) recorded on both
# roles by the real collector, then joined. Reads and writes (with R2T), qd1
# and qd4, -s 1 and -s 10, the simulated storage's time as recorded;
# Ctrl-C, SIGTERM, kill -9, a tiny ring buffer, processes that come and go,
# sudo ownership, and the errors.
#
#   sudo sh tests/collect_test.sh        (make check runs it)
#
# Every number compared comes from somewhere else than the collector: the
# fixture's own counts and mean latency, its --storage-us, the sampling hash
# recomputed by .output/check_sampled, sqlite3's integrity check.

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/.output
COLLECT=$top/ntprof-collect
SHELL_BIN=$top/ntprof-shell
TOP_NTPROF=$top/ntprof
TGT=$out/fixture_tgt
PERF=$out/fixture_perf
CHECK=$out/check_sampled

# run under sudo or not, the same: the cases that need SUDO_UID set it
unset SUDO_UID SUDO_GID SUDO_USER

TEST=collect_test
. "$top/tests/testlib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "collect_test: needs root to load BPF programs: run make check as root" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
for f in "$COLLECT" "$SHELL_BIN" "$TGT" "$PERF" "$CHECK"; do
	if [ ! -x "$f" ]; then
		echo "collect_test: $f: not built (run make first)" >&2
		echo "0 passed, 1 failed"
		exit 1
	fi
done

# Prepared runs (lib/cache.c) in the test's directory: the cache is on, as
# for users, and never the user's own; a long preparation's note on stderr
# is tested in cache_test.sh, not here.
scratch collect-test

mono_ns() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'; }

port=$((20000 + $$ % 20000))

# start_target [ARGS]: the fixture target on a fresh port; sets $tgt.
start_target() {
	port=$((port + 1))
	"$TGT" -a 127.0.0.1 -p "$port" "$@" >"$d/tgt.log" 2>&1 &
	tgt=$!
	pids="$pids $tgt"
	wait_for "$d/tgt.log" "listening on" 10
}

stop_target() {
	kill -INT "$tgt" 2>/dev/null
	wait_exit "$tgt" 10
}

# start_perf LOG ARGS: the fixture host, connected and waiting for SIGUSR1.
start_perf() {
	log=$1
	shift
	: >"$log"
	"$PERF" -a 127.0.0.1 -p "$port" --wait-signal "$@" >"$log" 2>&1 &
	perf=$!
	pids="$pids $perf"
	wait_for "$log" "waiting for SIGUSR1" 10
}

# record NAME ROLE ARGS: a collector in the background; sets $col.
record() {
	name=$1 role=$2
	shift 2
	if [ "$role" = target ]; then bin=$TGT; else bin=$PERF; fi
	"$COLLECT" record -r "$role" -t tcp -i 1 --spdk-$role "$bin" -o "$d/$name.db" "$@" \
		>"$d/$name.log" 2>&1 &
	col=$!
	pids="$pids $col"
	wait_for "$d/$name.log" "profiling as $role" 10
}

# var: the sampling variable of the running fixture target ($tgt), read
# from its memory (where probe says it is).
var() {
	if [ "$var_of" != "$tgt" ]; then
		var_addr=$("$COLLECT" probe -j -r target -t tcp --spdk-target "$TGT" 2>/dev/null |
			python3 -c 'import json, sys; print(json.load(sys.stdin)["processes"][0]["sampling_variable"])')
		var_of=$tgt
	fi
	python3 -c 'import struct, sys
with open("/proc/%s/mem" % sys.argv[1], "rb") as f:
    f.seek(int(sys.argv[2], 0)); print(struct.unpack("I", f.read(4))[0])' "$tgt" "$var_addr"
}

# value LOG KEY: the number after KEY= in the fixture's LOG.
value() { sed -n "s/.*$2=\([0-9]*\).*/\1/p" "$1" | tail -1; }

# sql DB... -- QUERY: one value from ntprof-shell.
sql() {
	q=$1
	shift
	"$SHELL_BIN" -c ".mode csv" -c "$q" "$@" 2>>"$d/sql.err" | tail -1 | tr -d "\r"
}


# within WHAT A B PCT: |A - B| <= PCT % of B
within() {
	if awk -v a="$2" -v b="$3" -v p="$4" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * p / 100) }'; then
		ok
	else
		bad "$1: $2 is not within $4 % of $3"
	fi
}

# One recording of both roles: CASE RATE PERF-ARGS...; the target gets
# --incapsule 4096 and $tgt_args.
tgt_args=
run_pair() {
	case=$1 rate=$2
	shift 2
	echo "== $case (-s $rate)"
	# shellcheck disable=SC2086 # $tgt_args: words
	start_target --incapsule 4096 $tgt_args || { bad "$case: target did not start"; return; }
	record "$case-target" target -s "$rate" || { bad "$case: target collector"; return; }
	tcol=$col
	start_perf "$d/$case-perf.log" "$@" || { bad "$case: perf did not connect"; return; }
	record "$case-host" host -s "$rate" || { bad "$case: host collector"; return; }
	hcol=$col
	kill -USR1 "$perf"
	wait_exit "$perf" 60 || bad "$case: the fixture's perf failed"
	kill -INT "$hcol"
	wait_exit "$hcol" 20 || bad "$case: host collector did not stop cleanly"
	kill -INT "$tcol"
	wait_exit "$tcol" 20 || bad "$case: target collector did not stop cleanly"
	stop_target || bad "$case: fixture target did not stop cleanly"
	check_pair "$case" "$rate"
}

check_pair() {
	case=$1 rate=$2 h=$d/$1-host.db t=$d/$1-target.db
	hlog=$d/$case-host.log tlog=$d/$case-target.log plog=$d/$case-perf.log
	# sampled counts: what the fixtures sampled by the hash rule, all of it
	n_h=$("$CHECK" "$h" "$rate") || bad "$case: host records the hash rule would not sample"
	n_t=$("$CHECK" "$t" "$rate") || bad "$case: target records the hash rule would not sample"
	expect "$case: host records = perf's sampled" "$n_h" "$(value "$plog" flushed)"
	expect "$case: target records = target's sampled" "$n_t" "$(value "$d/tgt.log" flushed)"
	grep -q "records written to $h" "$hlog" && ok || bad "$case: no 'records written' on the host"
	grep -q "^== .* spdk-c1n1: " "$hlog" && ok || bad "$case: no summary report on the host"
	grep -q "^records: $n_t target" "$tlog" && ok || bad "$case: no records line on the target"
	grep -Eq '^[0-9.]+s +(read|write) ' "$hlog" && ok || bad "$case: no live line on the host"
	grep -Eq '^[0-9.]+s +(read|write) ' "$tlog" && ok || bad "$case: no live line on the target"
	# the join
	matched=$(sql "SELECT matched_pct >= 99.5 FROM ntp_match_stats" "$h" "$t")
	expect "$case: >= 99.5 % of the host's records matched" "$matched" 1
	# components add up to end to end, to the nanosecond
	diff=$(sql "SELECT sum(CASE WHEN k.total = 0 THEN c.sum_ns ELSE -c.sum_ns END)
		FROM ntp_report_component_stats AS c JOIN component AS k ON k.name = c.component
		WHERE k.stage_joined IS NOT NULL OR k.name = 'e2e'" "$h" "$t")
	expect "$case: joined components sum to end to end" "$diff" 0
	# every command has its arrival point, the kernel's receive timestamp
	noarr=$(sql "SELECT count(*) FROM host.cmd WHERE h_rx IS NULL" "$h" "$t")
	expect "$case: host commands without h_rx" "$noarr" 0
	noarr=$(sql "SELECT count(*) FROM target.cmd WHERE t_rx IS NULL" "$h" "$t")
	expect "$case: target commands without t_rx" "$noarr" 0
	# and every point missing anywhere is counted with its cause
	for db in "$h" "$t"; do
		expect "$case: $(basename "$db"): gaps counted = points missing" "$(sqlite3 "$db" \
			"SELECT (SELECT coalesce(sum(missing), 0) FROM ntp_point_missing) =
			 (SELECT coalesce(sum(n), 0) FROM gap)")" 1
	done
	# the joined mean against the fixture's own, over the same commands
	# (at -s 1 that is every command)
	mean=$(sql "SELECT avg(e2e) FROM ntp_joined" "$h" "$t")
	within "$case: joined end-to-end mean vs the fixture's" "$mean" \
		"$(value "$plog" sampled_avg_ns)" 2
	if [ "$rate" = 1 ]; then
		within "$case: joined mean vs the fixture's mean of all" "$mean" \
			"$(value "$plog" mean_ns)" 2
	fi
}

# Runs of 3 s: at least two live lines each. -s 1 at qd 1 only: at qd 4 the
# pair makes about 80k records/s, more than two collectors get of a 2-core
# machine the pair itself keeps busy (they would count losses, correctly,
# and fail the equality below).
run_pair read-qd1 1 -q 1 -o 4096 -w randread -t 3
run_pair read-qd4 10 -q 4 -o 4096 -w randread -t 3
run_pair write-qd1 1 -q 1 -o 8192 -w randwrite -t 3
# 8 KiB writes do not fit the 4 KiB in-capsule data: every one has an R2T
r2t=$(sql "SELECT count(*) FROM host.cmd AS c JOIN host.ntp_grp_info AS g ON g.grp = c.grp
	WHERE g.op = 'write' AND (h_r2t_rx IS NULL OR h_data_sent IS NULL)" \
	"$d/write-qd1-host.db" "$d/write-qd1-target.db")
expect "write-qd1: host commands without their R2T points" "$r2t" 0
r2t=$(sql "SELECT count(*) FROM target.cmd AS c JOIN target.ntp_grp_info AS g ON g.grp = c.grp
	WHERE g.op = 'write' AND (t_r2t IS NULL OR t_data_rx IS NULL)" \
	"$d/write-qd1-host.db" "$d/write-qd1-target.db")
expect "write-qd1: target commands without their R2T points" "$r2t" 0
run_pair write-qd4 10 -q 4 -o 4096 -w randwrite -t 3
# a 70/30 mix at depth 8: many PDUs per receive
run_pair mix-qd8 10 -q 8 -o 4096 -w randrw -M 70 -t 3

# The fixture's storage is a timer that ends on time (tests/fixture/README.md):
# at qd 1 the recorded storage component of the target's I/O commands has its
# median at --storage-us, not below and at most 2 us above. At qd 4 a
# completion may wait while the loop serves another command, and only the
# floor is checked: no command's storage is ever shorter than asked. The
# median (the middle of thousands of commands) stays put when the machine
# is busy; the tail does not, and is printed, not checked.
# storage_check CASE US [floor]
storage_check() {
	set -- "$1" "$2" "${3:-median}" $(sqlite3 -separator ' ' "$d/$1-target.db" "SELECT c.n,
		c.p50_ns, c.p99_ns, CAST(c.mean_ns AS INTEGER), (SELECT min(x.ns)
		FROM ntp_cmd_component AS x WHERE x.grp = c.grp AND x.component = 't_storage')
		FROM ntp_component_stats AS c JOIN ntp_grp_info AS g ON g.grp = c.grp
		WHERE g.queue = 'io' AND c.component = 't_storage'")
	if [ $# -ne 8 ]; then
		bad "$1: no storage component for the target's I/O commands"
		return
	fi
	if awk -v c="$1" -v us="$2" -v what="$3" -v n="$4" -v p50="$5" -v p99="$6" -v mean="$7" \
		-v min="$8" 'BEGIN {
		s = sprintf("%s: storage with --storage-us %d: p50 %.2f us, p99 %.2f, mean %.2f, " \
			"min %.2f, over %d commands", c, us, p50 / 1e3, p99 / 1e3, mean / 1e3, min / 1e3, n)
		if (min < us * 1000) {
			print s "; a command had less than asked"
			exit 1
		}
		if (what == "median" && (p50 < us * 1000 || p50 > us * 1000 + 2000)) {
			printf "%s; the p50 should be %d to %d us\n", s, us, us + 2
			exit 1
		}
		print s
	}' >"$d/storage.msg"; then
		ok
		cat "$d/storage.msg"
	else
		bad "$(cat "$d/storage.msg")"
	fi
}
tgt_args="--storage-us 50"
run_pair storage50-qd1 10 -q 1 -o 4096 -w randread -t 3
storage_check storage50-qd1 50
tgt_args="--storage-us 100"
run_pair storage100-qd1 10 -q 1 -o 4096 -w randread -t 3
storage_check storage100-qd1 100
run_pair storage100-qd4 10 -q 4 -o 4096 -w randread -t 3
storage_check storage100-qd4 100 floor
tgt_args=

# probe, with the target running: sites, processes, hooks, load.
echo "== probe"
start_target || bad "probe: target did not start"
"$COLLECT" probe -r target -t tcp --spdk-target "$TGT" >"$d/probe.out" 2>"$d/probe.err"
expect "probe: exit status" $? 0
for want in "^kernel BTF: yes" "^spdk_tcp_target " "^ok nvmf_tcp_done 1 site" \
	"^running processes: $tgt (sampling variable at 0x[0-9a-f]*)" \
	"^processes that start later: found by the kernel's process events$" \
	"^ok SO_TIMESTAMPING sockopt the patch's socket reads (receive timestamps) (t_rx t_data_rx)$" \
	"^ok ntp_u_nvmf_tcp_done usdt ntprof:nvmf_tcp_done (t_cmd t_r2t t_data_rx t_exec t_stor t_resp t_sent t_free)$" \
	"^load: ok"; do
	grep -q "$want" "$d/probe.out" && ok || bad "probe: no line '$want'"
done
"$COLLECT" probe -j -r target -t tcp --spdk-target "$TGT" >"$d/probe.json" 2>>"$d/probe.err"
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(not (j["ok"] and j["usdt"]["nvmf_tcp_done"] == 1 and j["processes"][0]["pid"] == int(sys.argv[2]) and j["processes_found_by"] == "process events" and [(h["prog"], h["kind"], h["ok"]) for h in j["hooks"]] == [("ntp_u_nvmf_tcp_done", "usdt", True), ("SO_TIMESTAMPING", "sockopt", True)]))' \
	"$d/probe.json" "$tgt" && ok || bad "probe -j: not the JSON expected"
# without arrivals, and over RDMA (whose arrivals are the patch's polls):
# the hook rows of the configuration
"$COLLECT" probe -r target -t tcp --no-arrivals --spdk-target "$TGT" >"$d/probe.out" 2>>"$d/probe.err"
grep -q "^no SO_TIMESTAMPING sockopt the patch's socket reads (receive timestamps): --no-arrivals (optional: those points stay empty)$" \
	"$d/probe.out" && ok || bad "probe --no-arrivals: $(cat "$d/probe.out")"
"$COLLECT" probe -r target -t rdma --spdk-target "$TGT" >"$d/probe.out" 2>>"$d/probe.err"
expect "probe -t rdma: the hooks" "$(grep -c "^ok ntp_u_nvmf_rdma_done usdt ntprof:nvmf_rdma_done " "$d/probe.out"):$(grep -c SO_TIMESTAMPING "$d/probe.out")" 1:0

# Errors: one line, exit 1 (2 for a usage error), no database left behind.
echo "== errors"
# expect_fail NAME PATTERN ARGS...; expect_usage the same, exit 2
expect_fail() { want_rc=1 check_fail "$@"; }
expect_usage() { want_rc=2 check_fail "$@"; }
check_fail() {
	name=$1 pattern=$2
	shift 2
	rm -f "$d/e.db"
	"$COLLECT" "$@" >"$d/e.out" 2>"$d/e.err"
	rc=$?
	if [ $rc -ne "$want_rc" ]; then bad "$name: exit $rc, expected $want_rc"; return; fi
	if ! grep -q -- "$pattern" "$d/e.err"; then
		bad "$name: stderr does not say '$pattern':"; sed 's/^/  /' "$d/e.err" >&2; return
	fi
	if [ -e "$d/e.db" ]; then bad "$name: left $d/e.db behind"; return; fi
	ok
}
expect_fail "not an ELF file" "not an ELF file" record -r target -t tcp -s 1 \
	--spdk-target /etc/passwd -o "$d/e.db"
expect_fail "a program without the probes" "no USDT probe ntprof:nvmf_tcp_done" \
	record -r target -t tcp -s 1 --spdk-target /bin/true -o "$d/e.db"
expect_fail "the host's probe in the target" "no USDT probe ntprof:nvme_tcp_done" \
	record -t tcp -s 1 --spdk-host "$TGT" -o "$d/e.db"
expect_fail "no process" "no running process of $PERF" \
	record -t tcp -s 1 --spdk-host "$PERF" -o "$d/e.db"
expect_fail "probe: no process" "no running process of $PERF" \
	probe -r host -t tcp --spdk-host "$PERF"
# A process with the probes but no sampling variable (usdt_batch, waiting
# for a byte on stdin): it cannot be sampled, and nothing else can, so no
# recording is made and the collector exits 1.
sleep 60 | "$out/usdt_batch" >"$d/batch.log" 2>&1 &
batch=$!
pids="$pids $batch"
wait_for "$d/batch.log" "ready" 10 || bad "usdt_batch did not start"
expect_fail "nothing could be sampled" "cannot sample in process $batch: no ntprof_sample_rate" \
	record -r target -t tcp -s 1 -d 2 --spdk-target "$out/usdt_batch" -o "$d/e.db"
grep -q "^ntprof: nothing could be sampled: nothing recorded$" "$d/e.err" && ok ||
	bad "nothing could be sampled: $(cat "$d/e.err")"
kill "$batch"
expect_fail "a missing binary" "No such file" record -t tcp --spdk-host "$d/none" -o "$d/e.db"
# A FIFO (or a device) where a program or a BTF file is named: refused at
# once, never opened blocking (timeout: 20 s, 124 when it hangs).
mkfifo "$d/fifo"
for args in "record -r target -t tcp --spdk-target $d/fifo -o $d/e.db" \
	"probe -r host -t tcp --spdk-host $d/fifo" "record -r host -t tcp --btf $d/fifo -o $d/e.db" \
	"record -r target -t tcp --spdk-target /dev/null -o $d/e.db"; do
	# shellcheck disable=SC2086
	timeout 20 "$COLLECT" $args >"$d/e.out" 2>"$d/e.err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "not a regular file" "$d/e.err" && [ ! -e "$d/e.db" ]; then ok; else
		bad "$args: exit $rc: $(cat "$d/e.err")"
	fi
done
# Under sudo, the program and the BTF file are read as the user: what lies
# in a directory they may not search is neither read nor told apart from
# what does not exist.
mkdir -m 0700 "$d/private" && cp "$TGT" "$d/private/tgt"
for opt in --spdk-target --btf; do
	for f in tgt none; do
		SUDO_UID=65534 SUDO_GID=65534 "$COLLECT" record -r target -t tcp $opt "$d/private/$f" \
			-o "$d/e.db" >"$d/e.out" 2>"$d/$f.err"
		expect "sudo $opt, a path the user may not see ($f): exit status" $? 1
		sed -i "s|$d/private/$f|PATH|" "$d/$f.err"
	done
	expect "sudo $opt: what exists and what does not, told alike" "$(cat "$d/tgt.err")" \
		"$(cat "$d/none.err")"
	grep -q "^ntprof: PATH: Permission denied (read as user 65534, who ran sudo)$" "$d/tgt.err" && ok ||
		bad "sudo $opt: $(cat "$d/tgt.err")"
done
expect_usage "no output" "give -o" record -r target -t tcp --spdk-target "$TGT"
expect_usage "bad -s" "-s wants a whole number" record -s 0 --spdk-target "$TGT" -o "$d/e.db"
expect_usage "bad -t" "the transport is tcp or rdma" record -t fc --spdk-target "$TGT" -o "$d/e.db"
expect_usage "-d nan" "-d wants a number of seconds above 0" record -d nan --spdk-target "$TGT" \
	-o "$d/e.db"
expect_usage "-d 0" "-d wants a number of seconds above 0" record -d 0 --spdk-target "$TGT" \
	-o "$d/e.db"
expect_usage "-i inf" "-i wants a number of seconds above 0" record -i inf --spdk-target "$TGT" \
	-o "$d/e.db"
expect_usage "an unknown command" "unknown command" recrod -o "$d/e.db"
# a long path keeps the reason at the end of the message
long=$d/$(printf 'd%.0s' $(seq 250))/$(printf 'e%.0s' $(seq 250))/$(printf 'f%.0s' $(seq 250))/x.db
expect_fail "a long path" "cannot create: No such file or directory$" \
	record -r target -t tcp --spdk-target "$TGT" -o "$long"
# this kernel has no NVMe drivers: the kernel path says which module is missing
expect_fail "the kernel path without nvme_tcp" "module nvme_tcp is not loaded" \
	record -r host -t tcp -o "$d/e.db"
expect_fail "the kernel path without nvmet_tcp" "module nvmet_tcp is not loaded" \
	record -r target -t tcp -o "$d/e.db"
expect_fail "the kernel path without nvme_rdma" "module nvme_rdma is not loaded" \
	record -r host -t rdma -o "$d/e.db"
expect_fail "the kernel path without nvmet_rdma" "module nvmet_rdma is not loaded" \
	record -r target -t rdma -o "$d/e.db"
expect_fail "probe: the kernel path without nvme_tcp" "module nvme_tcp is not loaded" \
	probe -r host -t tcp
# ... and says how it would hook this kernel: no fentry, no kprobes here, so
# function hooks have no flavour, while block:block_rq_complete is tp_btf
for want in "^no ntp_k_sendmsg_kp kprobe tcp_sendmsg: kprobes are not available here" \
	"^ok ntp_k_rq_done tp_btf block:block_rq_complete (h_end)"; do
	grep -q "$want" "$d/e.out" && ok || bad "kernel probe here: no line '$want'"
done
: >"$d/exists.db"
"$COLLECT" record -r target -t tcp --spdk-target "$TGT" -o "$d/exists.db" >"$d/e.out" 2>"$d/e.err"
if [ $? -eq 1 ] && grep -q "exists" "$d/e.err" && [ ! -s "$d/exists.db" ]; then ok; else
	bad "an existing output file was not refused:"; cat "$d/e.err" >&2
fi
ln -s "$d/elsewhere.db" "$d/link.db"
"$COLLECT" record -f -r target -t tcp --spdk-target "$TGT" -o "$d/link.db" >"$d/e.out" 2>"$d/e.err"
if [ $? -eq 1 ] && [ ! -e "$d/elsewhere.db" ]; then ok; else
	bad "-f followed a symlink"; cat "$d/e.err" >&2
fi

# A process owned by nobody that maps the target's binary, private and
# writable, without running it (0 where the sampling variable would be):
# it is no process of the program. With none running, the collector
# fails and writes nothing; with one running, it records that one. The
# victim's memory never changes, not even for a moment.
echo "== a process that maps the binary without running it"
stop_target # the probe's: none runs now
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$top/tests/map_victim.py" \
	"$TGT" >"$d/victim.log" 2>&1 &
victim=$!
pids="$pids $victim"
wait_for "$d/victim.log" "^ready" 10 || bad "victim: did not start"
"$COLLECT" record -r target -t tcp -s 7 -i 1 -d 2 --spdk-target "$TGT" -o "$d/victim.db" \
	>"$d/victim-col.log" 2>&1
expect "victim, no program running: exit status" $? 1
grep -q "no running process of $TGT" "$d/victim-col.log" && ok ||
	bad "victim, no program running: $(cat "$d/victim-col.log")"
[ ! -e "$d/victim.db" ] && ok || bad "victim, no program running: a recording was made"
start_target || bad "victim: target did not start" # (and the cases below use it)
record victim-tgt target -s 7 -d 2 || bad "victim: the collector did not start"
wait_exit "$col" 20
expect "victim, the program running: exit status" $? 0
grep -Eq "process $victim([^0-9]|$)" "$d/victim-tgt.log" && bad "victim: named: $(cat "$d/victim-tgt.log")" || ok
kill -USR1 "$victim"
wait_exit "$victim" 10
expect "victim: its memory" "$(tail -1 "$d/victim.log")" untouched

# Ctrl-C in the middle of a run loses nothing: every record the fixture
# handed over while sampling is in the database. Under sudo the file goes
# to the invoking user.
echo "== Ctrl-C mid-run, sudo ownership"
start_perf "$d/int-perf.log" -q 1 -o 4096 -w randread -t 4
chmod 0755 "$d" # the user must reach their directory
mkdir "$d/nobody" && chown 65534:65534 "$d/nobody"
SUDO_UID=65534 SUDO_GID=65534 "$COLLECT" record -t tcp -s 1 -i 1 --spdk-host "$PERF" \
	-o "$d/nobody/int.db" >"$d/int.log" 2>&1 &
col=$!
pids="$pids $col"
wait_for "$d/int.log" "profiling as host" 10
kill -USR1 "$perf"
sleep 2
kill -INT "$col"
wait_exit "$col" 20 || bad "Ctrl-C: the collector did not stop cleanly"
wait_exit "$perf" 30 || bad "Ctrl-C: perf failed"
n=$("$CHECK" "$d/nobody/int.db" 1)
expect "Ctrl-C: records = what perf sampled" "$n" "$(value "$d/int-perf.log" flushed)"
grep -q "records written to $d/nobody/int.db" "$d/int.log" && ok || bad "Ctrl-C: no 'records written'"
expect "Ctrl-C: owner" "$(stat -c %u:%g "$d/nobody/int.db")" "65534:65534"
expect "Ctrl-C: stop time written" \
	"$(sqlite3 "$d/nobody/int.db" 'SELECT mono_stop IS NOT NULL FROM meta')" 1
[ ! -e "$d/nobody/int.db-wal" ] && ok || bad "Ctrl-C: a -wal file is left"

# The writer (the SQLite file, the live lines, the output) runs in its
# own process without privileges: under sudo as the user, all of its ids;
# as root without sudo as uid 0; no capability (but CAP_BPF, where the
# kernel wants it to read a map), no_new_privs, and none of the sampler's
# descriptors: no process's memory, no lock, no BPF program or link.
echo "== the writer's privileges"
for who in root nobody; do
	if [ "$who" = nobody ]; then
		set -- env SUDO_UID=65534 SUDO_GID=65534
		uid=65534 o=$d/nobody/priv.db
	else
		set -- env
		uid=0 o=$d/priv.db
	fi
	: >"$d/priv.log" # emptied here: the job's own redirection may come late
	"$@" "$COLLECT" record -r target -t tcp -s 7 -i 1 -q --spdk-target "$TGT" -o "$o" \
		>"$d/priv.log" 2>&1 &
	col=$!
	pids="$pids $col"
	wait_for "$d/priv.log" "profiling as target" 10 || bad "$who: the collector did not start"
	w=$(tr -d ' ' <"/proc/$col/task/$col/children")
	st=/proc/$w/status
	expect "$who: the writer's name" "$(sed -n 's/^Name:\t//p' "$st")" ntprof-writer
	expect "$who: the writer's uids" "$(sed -n 's/^Uid:\t//p' "$st" | tr '\t' ' ')" \
		"$uid $uid $uid $uid"
	expect "$who: the writer's no_new_privs" "$(sed -n 's/^NoNewPrivs:\t//p' "$st")" 1
	eff=$(sed -n 's/^CapEff:\t//p' "$st")
	case $eff in 0000000000000000 | 0000008000000000) ok ;; *) bad "$who: the writer's CapEff: $eff" ;; esac
	for set in CapPrm CapBnd; do
		expect "$who: the writer's $set" "$(sed -n "s/^$set:\t//p" "$st")" "$eff"
	done
	for set in CapInh CapAmb; do
		expect "$who: the writer's $set" "$(sed -n "s/^$set:\t//p" "$st")" 0000000000000000
	done
	held=$(ls -l "/proc/$w/fd" | grep -E '/mem$|/run/ntprof|bpf-prog|bpf_link|bpf-link|perf_event')
	expect "$who: what the writer holds of the sampler's" "$held" ""
	expect "$who: the sampler still samples" "$(var)" 7
	kill -INT "$col"
	wait_exit "$col" 20
	expect "$who: exit status" $? 0
	expect "$who: the variable after the stop" "$(var)" 0
	expect "$who: the recording's owner" "$(stat -c %u "$o")" "$uid"
done

# Under sudo a recording goes only where the user could write: not into
# a directory of root's, and not through a parent directory swapped for
# a symlink while it records (nothing there is created or changed).
echo "== sudo: where the user cannot write"
mkdir -m 0755 "$d/rootonly"
SUDO_UID=65534 SUDO_GID=65534 "$COLLECT" record -t tcp -s 1 \
	-r target --spdk-target "$TGT" -o "$d/rootonly/x.db" >"$d/e.out" 2>"$d/e.err"
expect "sudo into root's directory: exit status" $? 1
grep -q "rootonly/x.db: cannot create: Permission denied (written as user 65534, who ran sudo)" \
	"$d/e.err" && ok || bad "sudo into root's directory: $(cat "$d/e.err")"
[ -z "$(ls -A "$d/rootonly")" ] && ok || bad "sudo into root's directory: created $(ls "$d/rootonly")"
echo "== sudo: the parent directory swapped during the recording"
mkdir -m 0700 "$d/victim" && echo keep >"$d/victim/swap.db-wal" && echo keep >"$d/victim/swap.db"
mkdir "$d/nobody/sub" && chown 65534:65534 "$d/nobody/sub"
before=$(ls -ln "$d/victim" | md5sum)
start_perf "$d/swap-perf.log" -q 1 -o 4096 -w randread -t 3
SUDO_UID=65534 SUDO_GID=65534 "$COLLECT" record -t tcp -s 1 -i 1 --spdk-host "$PERF" \
	-o "$d/nobody/sub/swap.db" >"$d/swap.log" 2>&1 &
col=$!
pids="$pids $col"
wait_for "$d/swap.log" "profiling as host" 10 || bad "swap: the collector did not start"
kill -USR1 "$perf"
sleep 1
mv "$d/nobody/sub" "$d/nobody/sub.old" && ln -s "$d/victim" "$d/nobody/sub"
wait_exit "$perf" 30
kill -INT "$col"
wait_exit "$col" 20
expect "swap: the victim directory is untouched" "$(ls -ln "$d/victim" | md5sum)" "$before"
expect "swap: its files are still root's" "$(stat -c %u "$d/victim/swap.db" "$d/victim/swap.db-wal" | sort -u)" 0
expect "swap: the recording is the user's" "$(stat -c %u "$d/nobody/sub.old/swap.db")" 65534

# SIGTERM and -d end it the same way.
echo "== SIGTERM, -d"
start_perf "$d/term-perf.log" -q 1 -o 4096 -w randread -t 3
record term host -s 10 -q
kill -USR1 "$perf"
sleep 1
kill -TERM "$col"
wait_exit "$col" 20 || bad "SIGTERM: the collector did not stop cleanly"
wait_exit "$perf" 30
expect "SIGTERM: records = what perf sampled" "$("$CHECK" "$d/term.db" 10)" \
	"$(value "$d/term-perf.log" flushed)"
start_perf "$d/dur-perf.log" -q 1 -o 4096 -w randread -t 4
record dur host -s 10 -d 1.5
kill -USR1 "$perf"
wait_exit "$col" 20 && ok || bad "-d: the collector did not stop by itself"
wait_exit "$perf" 30
grep -q "records written to" "$d/dur.log" && ok || bad "-d: no 'records written'"

# Every signal that would kill the collector and that a user or a terminal
# sends ends the recording as Ctrl-C does: the sampling variable back to
# 0, the file closed with its stop time, exit 0. SIGPIPE (stdout's pipe
# closed) does not end it.
echo "== signals"
for sig in HUP USR1 USR2 ALRM VTALRM PROF QUIT PIPE; do
	record "sig-$sig" target -s 7 -q || { bad "SIG$sig: the collector did not start"; continue; }
	expect "SIG$sig: the variable while recording" "$(var)" 7
	kill "-$sig" "$col"
	if [ "$sig" = PIPE ]; then
		sleep 1
		kill -0 "$col" 2>/dev/null && ok || bad "SIGPIPE ended the recording"
		expect "SIGPIPE: the variable after it" "$(var)" 7
		kill -INT "$col"
	fi
	wait_exit "$col" 20
	expect "SIG$sig: exit status" $? 0
	expect "SIG$sig: the variable after the stop" "$(var)" 0
	expect "SIG$sig: stop time written" \
		"$(sqlite3 "$d/sig-$sig.db" 'SELECT mono_stop IS NOT NULL FROM meta')" 1
	[ ! -e "$d/sig-$sig.db-wal" ] && ok || bad "SIG$sig: a -wal file is left"
done

# A second collector on a process the first one records is refused, and
# names the first (its rate stays); once the first is killed with -9, a
# new one takes over, and says so.
echo "== a second collector on the same process"
record lock1 target -s 5 -q || bad "lock: the first collector did not start"
first=$col
"$COLLECT" record -r target -t tcp -s 7 -i 1 -q -d 2 --spdk-target "$TGT" -o "$d/lock2.db" \
	>"$d/lock2.log" 2>&1
expect "lock: the second collector's exit status" $? 1
grep -q "^ntprof: cannot sample in process $tgt: another collector (pid $first) records it; stop that one first$" \
	"$d/lock2.log" && ok || bad "lock: the second collector: $(cat "$d/lock2.log")"
[ ! -e "$d/lock2.db" ] && ok || bad "lock: the second collector made a recording"
expect "lock: the first one's rate" "$(var)" 5
kill -9 "$first"
wait "$first" 2>/dev/null
expect "lock: the rate a killed collector left" "$(var)" 5
record lock3 target -s 7 -q -d 2 || bad "lock: no collector could start after the first was killed"
expect "lock: the new one's rate" "$(var)" 7
wait_exit "$col" 20
expect "lock: the new one's exit status" $? 0
grep -q "^ntprof: process $tgt: ntprof_sample_rate held 5, left by a collector that is gone; taking it over$" \
	"$d/lock3.log" && ok || bad "lock: the takeover is not said: $(cat "$d/lock3.log")"
expect "lock: the rate after the new one" "$(var)" 0

# kill -9: a valid database that misses at most the last commit (the
# writer commits by the clock, once a second), and no stop time. -i 10:
# an interval's end commits too, and must not be what keeps the bound.
# Once alone, then with a busy loop on every CPU beside it, as on a busy
# machine: the writer sleeps between commits, and a hog at the same
# priority must not push a commit back by more than the bound; there the
# sampler is slow to die (its probes detach), and its writer must not
# close the file as if stopped. Last, the writer killed with the sampler
# (kill -9 of both, the writer first): the bound is then the writer's
# commits alone. (-q: the live lines are not what is tested here.)
# kill9 NAME HOGS PIDS: PIDS "collector" or "both". The bound: the commit
# period (a second), and 750 ms for the kill's own lateness and a busy
# machine's.
k9_bound=1750
kill9() {
	name=$1 hogs=$2 who=$3
	hog_pids=""
	start_perf "$d/$name-perf.log" -q 1 -o 4096 -w randread -t 5
	record "$name" host -s 1 -q -i 10
	for _h in $(seq "$hogs"); do
		sh -c 'while :; do :; done' &
		hog_pids="$hog_pids $!"
	done
	pids="$pids $hog_pids"
	kill -USR1 "$perf"
	sleep 2.5
	victims=$col
	[ "$who" = both ] && victims="$(cat "/proc/$col/task/$col/children") $col"
	killed=$(python3 -c 'import os, sys, time
for p in sys.argv[1:]: os.kill(int(p), 9)
print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))' $victims)
	wait "$col" 2>/dev/null
	for _h in $hog_pids; do kill -9 "$_h"; wait "$_h" 2>/dev/null; done
	kill -INT "$perf"
	wait_exit "$perf" 30
	# first what a user runs, on the file as the kill left it (in WAL mode;
	# sqlite3 below would fold the WAL back): ntprof report reads every
	# committed record of it, from a private copy
	sums_k9=$(sha256sum "$d/$name".db*)
	"$TOP_NTPROF" report --json "$d/$name.db" >"$d/$name.json" 2>"$d/$name.err"
	expect "$name: ntprof report's exit status" $? 0
	grep -q "$name.db was not closed" "$d/$name.err" && ok ||
		bad "$name: not said: $(cat "$d/$name.err")"
	expect "$name: ntprof report left the files as they were" "$(sha256sum "$d/$name".db*)" \
		"$sums_k9"
	expect "$name: integrity" "$(sqlite3 "$d/$name.db" 'PRAGMA integrity_check')" ok
	expect "$name: ntprof report read every record" \
		"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["recordings"][0]["records"])' "$d/$name.json")" \
		"$(sqlite3 "$d/$name.db" 'SELECT count(*) FROM cmd')"
	last=$(sqlite3 "$d/$name.db" 'SELECT max(c.t) + m.mono_start FROM cmd AS c, meta AS m')
	gap=$(awk -v k="$killed" -v l="$last" 'BEGIN { printf "%d", (k - l) / 1e6 }')
	[ -n "$last" ] && [ "$gap" -lt "$k9_bound" ] && ok ||
		bad "$name: the last record is $gap ms before the kill (at most $k9_bound)"
	expect "$name: no stop time" "$(sqlite3 "$d/$name.db" 'SELECT mono_stop IS NULL FROM meta')" 1
}
echo "== kill -9"
kill9 k9 0 collector
echo "== kill -9 beside a busy loop on every CPU"
kill9 k9-hog "$(nproc)" collector
kill9 k9-both-hog "$(nproc)" both

# The writer at rest: after a commit period without a record it sleeps
# until the interval ends (the idle flag, bpf/ntprof_common.bpf.h), not
# once a second; and the first record after that wakes it, so a
# kill -9 of the writer and the sampler still loses at most the last
# commit period. -i 10 and -s 100
# (a few hundred records, far from a quarter of the ring): without that
# wake-up the records would wait in the ring for the interval's end and
# die with it.
echo "== the writer at rest, then woken"
start_perf "$d/idle-perf.log" -q 1 -o 4096 -w randread -t 1
record idle host -s 100 -q -i 10
sleep 2
writer=
for p in $(cat "/proc/$col/task/$col/children"); do
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = ntprof-writer ] && writer=$p
done
sw() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$writer/status"; }
sw0=$(sw)
sleep 6
sw1=$(sw)
if [ -z "$writer" ] || [ -z "$sw0" ] || [ -z "$sw1" ]; then
	bad "the writer at rest: no process ntprof-writer under the collector $col"
elif [ $((sw1 - sw0)) -le 2 ]; then ok
else bad "the writer at rest woke $((sw1 - sw0)) times in 6 s (at most 2: one commit, one interval's end)"
fi
kill -USR1 "$perf"
wait_exit "$perf" 30
sleep 0.6
# the writer first: a writer that outlives its sampler drains the ring
killed=$(python3 -c 'import os, sys, time
for p in sys.argv[1:]: os.kill(int(p), 9)
print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))' "$writer" "$col")
wait "$col" 2>/dev/null
n=$(sqlite3 "$d/idle.db" 'SELECT count(*) FROM cmd')
last=$(sqlite3 "$d/idle.db" 'SELECT max(c.t) + m.mono_start FROM cmd AS c, meta AS m')
gap=$(awk -v k="$killed" -v l="${last:-0}" 'BEGIN { printf "%d", (k - l) / 1e6 }')
[ "$n" -gt 0 ] && [ "$gap" -lt "$k9_bound" ] && ok ||
	bad "woken from rest: $n records stored, the last $gap ms before the kill (at most $k9_bound)"

# A tiny ring buffer: records are lost, counted, printed, never silent.
echo "== tiny ring buffer"
start_perf "$d/ring-perf.log" -q 8 -o 4096 -w randread -t 3
record ring host -s 1 --ring-kb 4
kill -USR1 "$perf"
wait_exit "$perf" 30
kill -INT "$col"
wait_exit "$col" 20
lost=$(sqlite3 "$d/ring.db" 'SELECT sum(n) FROM lost')
n=$("$CHECK" "$d/ring.db" 1)
[ "${lost:-0}" -gt 0 ] && ok || bad "tiny ring: no records counted as lost"
grep -q "records lost in this interval" "$d/ring.log" && ok || bad "tiny ring: loss not printed"
# the summary's report warns above the group's numbers, its rate counting
# the lost records, when it lost over 1 % of them; with none stored (a busy
# machine can lose them all), the summary says that all were lost
if [ "$n" -eq 0 ]; then
	grep -Eq "^warning: all ${lost:-0} records were lost while recording: nothing to report on" \
		"$d/ring.log" && ok || bad "tiny ring: none stored, and the summary does not say so"
elif [ $((100 * ${lost:-0})) -gt $((n + ${lost:-0})) ]; then
	grep -Eq "^warning: about [0-9]+ of [0-9]+ sampled commands lost while recording \([0-9.]+ %, over 1 %\): the rate counts them" \
		"$d/ring.log" && ok || bad "tiny ring: the summary does not warn of the loss"
else
	! grep -q "^warning: " "$d/ring.log" && ok || bad "tiny ring: a warning of under 1 % lost"
fi
expect "tiny ring: stored + lost = what perf sampled" "$((n + lost))" \
	"$(value "$d/ring-perf.log" flushed)"

# flood NAME ARGS: usdt_flood ARGS, recorded by the target's collector at
# -s 1 into $d/NAME.db until the load ends; sets $fired and $st (the
# collector's exit status)
flood() {
	name=$1
	shift
	: >"$d/$name.log"
	"$out/usdt_flood" "$@" >"$d/$name.log" 2>&1 &
	flood=$!
	pids="$pids $flood"
	wait_for "$d/$name.log" "ready" 10 || bad "$name: the load did not start"
	"$COLLECT" record -r target -t tcp -s 1 -i 1 --spdk-target "$out/usdt_flood" \
		-o "$d/$name.db" >"$d/$name-col.log" 2>&1 &
	col=$!
	pids="$pids $col"
	wait_exit "$flood" 30 || bad "$name: the load did not finish"
	kill -INT "$col"
	wait_exit "$col" 30
	st=$?
	fired=$(value "$d/$name.log" fired)
}

# 200k sampled commands a second, as the SPDK patch hands them over
# (batches of 64): all stored, none lost, with the default ring and the
# live lines on.
echo "== 200k records/s"
flood flood 3 200000
expect "flood: the collector's exit status" "$st" 0
[ "${fired:-0}" -ge 500000 ] && ok || bad "flood: fired only '$fired' records in 3 s"
expect "flood: stored = fired" "$(sqlite3 "$d/flood.db" 'SELECT count(*) FROM cmd')" "$fired"
expect "flood: lost" "$(sqlite3 "$d/flood.db" 'SELECT coalesce(sum(n), 0) FROM lost')" 0

# Records of another ABI version (an SPDK built with another ntprof's
# patch) are refused, each counted lost with its cause; with none stored,
# the summary says so rather than printing an empty recording.
echo "== records of another ABI version only"
flood abi 1 6400 $(($(sed -n 's/^#define NTP_ABI_VERSION \([0-9]*\).*/\1/p' \
	"$top/bpf/ntprof_abi.h") + 1))
expect "abi: exit status" "$st" 0
[ "${fired:-0}" -gt 0 ] && ok || bad "abi: fired '$fired' records"
expect "abi: stored" "$(sqlite3 "$d/abi.db" 'SELECT count(*) FROM cmd')" 0
expect "abi: lost, by cause" "$(sqlite3 "$d/abi.db" "SELECT group_concat(c.name || ':' || l.n)
	FROM (SELECT cause, sum(n) AS n FROM lost GROUP BY cause) AS l
	JOIN cause AS c ON c.code = l.cause")" "abi_version:$fired"
grep -q "^ntprof: $fired records of another ABI version were not stored" "$d/abi-col.log" &&
	ok || bad "abi: the refused records are not said: $(cat "$d/abi-col.log")"
grep -q "^warning: all $fired records were lost while recording: nothing to report on" \
	"$d/abi-col.log" && ok || bad "abi: nothing stored, and the summary does not say so"
! grep -q "^report: " "$d/abi-col.log" && ok || bad "abi: a report suggested for an empty recording"

# --no-arrivals: the patch reads no receive timestamps; the arrival points
# are absent, each one counted with its cause, and the recording says
# which hooks it used.
echo "== --no-arrivals"
start_perf "$d/noarr-perf.log" -q 1 -o 4096 -w randread -t 2
record noarr host -s 1 --no-arrivals
kill -USR1 "$perf"
wait_exit "$perf" 30 || bad "--no-arrivals: perf failed"
kill -INT "$col"
wait_exit "$col" 20 || bad "--no-arrivals: the collector did not stop cleanly"
n=$("$CHECK" "$d/noarr.db" 1)
expect "--no-arrivals: records = what perf sampled" "$n" "$(value "$d/noarr-perf.log" flushed)"
expect "--no-arrivals: commands with h_rx" \
	"$(sqlite3 "$d/noarr.db" 'SELECT count(*) FROM cmd WHERE h_rx IS NOT NULL')" 0
expect "--no-arrivals: gaps by cause" "$(sqlite3 "$d/noarr.db" \
	"SELECT group_concat(c.name || ':' || g.point || ':' || g.n) FROM (SELECT cause, point,
	 sum(n) AS n FROM gap GROUP BY cause, point) AS g JOIN cause AS c ON c.code = g.cause")" \
	"arrivals_off:h_rx:$n"
expect "--no-arrivals: no timestamp hook recorded" "$(sqlite3 "$d/noarr.db" \
	"SELECT count(*) FROM hook WHERE kind = 'sockopt'")" 0
grep -q "records lack h_rx in this interval: recorded without arrivals" "$d/noarr.log" && ok || bad "--no-arrivals: the gap is not printed live"

# A process that exits is noted; a new one is sampled from the next interval.
echo "== processes come and go"
start_perf "$d/p1.log" -q 1 -o 4096 -w randread -t 2
record procs host -s 1
kill -USR1 "$perf"
wait_exit "$perf" 30
wait_for "$d/procs.log" "process $perf of $PERF exited" 10 && ok || bad "exit not noted"
"$PERF" -a 127.0.0.1 -p "$port" -q 1 -o 4096 -w randread -t 3 >"$d/p2.log" 2>&1 &
perf2=$!
pids="$pids $perf2"
wait_for "$d/procs.log" "process $perf2 of $PERF started; sampling it" 10 && ok ||
	bad "new process not picked up"
wait_exit "$perf2" 30
kill -INT "$col"
wait_exit "$col" 20
n=$("$CHECK" "$d/procs.db" 1)
s1=$(value "$d/p1.log" flushed)
s2=$(value "$d/p2.log" flushed)
[ "$s2" -gt 0 ] && [ "$n" -eq $((s1 + s2)) ] && ok ||
	bad "processes: $n records, the first process sampled $s1, the second $s2"
# A process that exited but is not reaped yet (a zombie, its parent
# busy) is noted as exited all the same.
echo "== an exited process its parent has not reaped"
stop_target
start_target || bad "zombie: target did not start"
"$COLLECT" record -t tcp -s 10 -i 1 -q --wait --spdk-host "$PERF" -o "$d/zombie.db" \
	>"$d/zombie.log" 2>&1 &
col=$!
pids="$pids $col"
wait_for "$d/zombie.log" "waiting for a process" 10 || bad "zombie: not waiting"
sh -c '"$1" -a 127.0.0.1 -p "$2" -q 1 -o 4096 -w randread -t 30 >"$3" 2>&1 &
	echo $! >"$4"; exec sleep 60' sh "$PERF" "$port" "$d/z-perf.log" "$d/z.pid" &
zparent=$!
pids="$pids $zparent"
wait_for "$d/zombie.log" "profiling as host" 10 || bad "zombie: the process was not picked up"
zpid=$(cat "$d/z.pid")
kill -9 "$zpid"
sleep 0.2
grep -q "^State:.*Z" "/proc/$zpid/status" 2>/dev/null && ok || bad "zombie: $zpid is not a zombie"
wait_for "$d/zombie.log" "process $zpid of $PERF exited" 15 && ok ||
	bad "zombie: the exited, unreaped process was not noted"
kill -INT "$col"
wait_exit "$col" 20 || bad "zombie: the collector did not stop cleanly"
kill "$zparent" 2>/dev/null
stop_target

# --wait with a shared-library build whose library is not mapped yet when
# the process is found (LD_AUDIT holds the loader up for 0.5 s): sampling
# starts as soon as it is, not an interval (10 s) later, and the build is
# not blamed.
echo "== --wait while the library with the variable is still loading"
"$COLLECT" record -t tcp -s 3 -i 10 -q --wait --spdk-host "$out/proc_target_lib" \
	-o "$d/late.db" >"$d/late.log" 2>&1 &
col=$!
pids="$pids $col"
wait_for "$d/late.log" "waiting for a process" 10 || bad "late: not waiting"
t0=$(mono_ns)
LD_AUDIT="$out/slow_audit.so" timeout 20 "$out/proc_target_lib" >"$d/late.out" 2>&1
rc=$?
ms=$(( ($(mono_ns) - t0) / 1000000 ))
expect "late: the process saw the rate" "$rc:$(tail -1 "$d/late.out")" "0:3"
[ "$ms" -lt 3000 ] && ok || bad "late: sampling began $ms ms after the start, not at once"
grep -q "SPDK patch" "$d/late.log" && bad "late: blamed the build: $(cat "$d/late.log")" || ok
kill -INT "$col"
wait_exit "$col" 20 || bad "late: the collector did not stop cleanly"

# --wait: the recording starts first, the workload after. The fixture
# samples from its first command (--sample 1), so its admin and fabrics
# commands are recorded on both sides: each is matched, named and grouped
# apart from the I/O, and the I/O group has its size although Identify
# Namespace went out before the block size was known.
echo "== --wait, admin and fabrics commands"
start_target || bad "--wait: target did not start"
record wait-target target -s 1 || bad "--wait: target collector"
tcol=$col
"$COLLECT" record -t tcp -s 1 -i 1 --wait --spdk-host "$PERF" -o "$d/wait.db" >"$d/wait.log" 2>&1 &
col=$!
pids="$pids $col"
wait_for "$d/wait.log" "waiting for a process of $PERF" 10 && ok || bad "--wait: not waiting"
"$PERF" -a 127.0.0.1 -p "$port" -q 1 -o 4096 -w randread -t 2 --sample 1 >"$d/wait-perf.log" 2>&1
kill -INT "$col" "$tcol"
wait_exit "$col" 20 || bad "--wait: the collector did not stop cleanly"
wait_exit "$tcol" 20 || bad "--wait: the target collector did not stop cleanly"
n=$("$CHECK" "$d/wait.db" 1) || bad "--wait: host records the hash rule would not sample"
s=$(value "$d/wait-perf.log" flushed)
[ "${n:-0}" -gt 0 ] && [ "$n" = "$s" ] && ok || bad "--wait: $n records, perf sampled $s"
"$CHECK" "$d/wait-target.db" 1 >/dev/null || bad "--wait: target records the hash rule would not sample"
expect "--wait: admin and fabrics groups" "$(sqlite3 "$d/wait.db" \
	"SELECT group_concat(op || ':' || n, ' ') FROM (SELECT gi.op, count(*) AS n FROM cmd AS c
	 JOIN ntp_grp_info AS gi ON gi.grp = c.grp WHERE gi.queue != 'io' GROUP BY gi.op ORDER BY gi.op)")" \
	"connect:2 identify:2 property-set:1"
expect "--wait: the I/O group's name" "$(sqlite3 "$d/wait.db" \
	"SELECT name FROM ntp_grp_info WHERE queue = 'io'")" "read 4KiB spdk-c1n1"
expect "--wait: every host record matched, Connect included" \
	"$(sql "SELECT matched = host_records FROM ntp_match_stats" "$d/wait.db" "$d/wait-target.db")" 1
"$TOP_NTPROF" report "$d/wait.db" "$d/wait-target.db" >"$d/wait-report.txt" 2>&1
grep -q "^admin and fabrics commands: 5 sampled in 5 groups" "$d/wait-report.txt" && ok ||
	bad "--wait: the report does not sum up the admin commands in a line"
grep -q "^== connect" "$d/wait-report.txt" && bad "--wait: admin groups reported without --all" || ok
"$TOP_NTPROF" report --all "$d/wait.db" "$d/wait-target.db" >"$d/wait-all.txt" 2>&1
grep -q "^== connect spdk-c65535n0: 1 commands sampled" "$d/wait-all.txt" && ok ||
	bad "--wait: --all does not show the admin Connect's group"
stop_target

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
