#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# verify.sh SPDK_DIR [SECS]: ntprof against a real SPDK, built outside this
# repository with spdk-patch/ applied and configured --with-usdt
# (spdk-patch/README.md says how). It never builds or fetches SPDK, and it
# is not part of make check.
#
# On this machine, over NVMe/TCP on loopback: nvmf_tgt with a 64 MiB Malloc
# bdev on CPU 0, spdk_nvme_perf on CPU 1, ntprof-collect recording both
# sides. Four cases: the tutorial's (4 KiB random reads at queue depth 1,
# -s 100), 4 KiB random reads at queue depth 16 (-s 100), 16 KiB random
# writes at queue depth 1 (-s 10) and a 70/30 random mix at queue depth 16
# (-s 10); SECS each (default 10). For each it prints perf's IOPS and
# Average, ntprof's end-to-end mean of the matched I/O, the share of the
# host's I/O records matched, and whether the joined components add up to end
# to end; it fails when a recording is empty, fewer than 99.5 % matched, the
# components do not add up or the means differ by more than 10 %.
#
# Then the peer case, over NVMe/TCP: the tutorial's workload recorded by
# ntprof and by SPDK's own tracing at once (nvmf_tgt -e nvmf_tcp,
# spdk_nvme_perf -y nvme_tcp), at -s 5 and at -s 1. SPDK's trace stamps
# with the TSC; two anchors (.output/spdk_trace_log anchor) before and
# after the run map it onto CLOCK_MONOTONIC, which needs the kernel's
# clocksource to be the TSC. Its ring holds the end of a run (32768 events
# a core in spdk_nvme_perf: about 6,500 commands), so only ntprof's
# commands in that span count: at -s 5 about 1,300 of them, enough for
# p99's interval (-s 10 left 650 to 700, on its edge; -s 100 would leave
# 65). Host: SPDK traces every command from
# submission (where the patch takes h_queue) to completion (between h_cqe
# and h_complete); .output/check_fidelity --near compares ntprof's sampled
# commands with all of them, command by command (the offset: fixed within
# 1 us for 99 %, or the two do not measure the same thing) and as
# distributions (p50, p90, p99: the sampled commands no slower than the
# rest), and shows SPDK's own percentiles of the commands ntprof sampled
# and of the rest. Target: tests/spdk/peer_target.py, each interval both
# define (NEW, EXECUTING, EXECUTED, RDY_TO_COMPLETE, COMPLETED), request
# by request. SPDK's tracing costs every command alike, sampled or not.
#
# Then over NVMe/RDMA, in two qemu guests (tests/vm) with soft-RoCE
# (rdma_rxe) on a private wire: nvmf_tgt in one, spdk_nvme_perf in the
# other, each recorded by ntprof-collect in its guest, the same four
# workloads at -s 1 (under qemu's emulation a case has a few thousand
# commands, too few to sample). The guests run the host machine's SPDK
# build and need `-cpu max` (SPDK and Debian's DPDK use SSE4 and AVX), two
# CPUs each (SPDK polls one) and 3 GiB; a case takes a few minutes. The
# third argument picks the cases: "tcp", "peer", "rdma" or several, space
# separated ("tcp peer rdma", the default). The same judgement applies to
# tcp and rdma. A static build and one
# configured --with-shared are both taken (tests/spdk/build.sh).
# Root: the collector loads BPF programs.
top=$(cd "$(dirname "$0")/../.." && pwd)
S=${1:-}
SECS=${2:-10}
TRS=${3:-tcp peer rdma}

die() { echo "verify: $*" >&2; exit 2; }

[ -n "$S" ] || die "usage: verify.sh SPDK_DIR [SECS] ['tcp peer rdma'] (an SPDK build with spdk-patch/ applied)"
S=$(cd "$S" 2>/dev/null && pwd) || die "$1: no such directory"
for t in $TRS; do
	case $t in tcp | peer | rdma) ;; *) die "$t: the cases are tcp, peer and rdma" ;; esac
done
. "$top/tests/spdk/build.sh"
spdk_build_check || exit 2
[ "$SPDK_SHARED" = 1 ] && echo "verify: $S is a shared build (--with-shared): the probes are in build/lib"
[ "$(id -u)" = 0 ] || die "needs root (ntprof-collect loads BPF programs)"
for b in ntprof-collect ntprof-shell .output/check_fidelity .output/spdk_trace_log; do
	[ -x "$top/$b" ] || die "$b: build ntprof first (make)"
done
python3 -c 'import json' 2>/dev/null || die "needs python3"

d=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-spdk.XXXXXX") || exit 1
[ -n "${KEEP:-}" ] && echo "verify: keeping $d" || trap 'rm -rf "$d"' EXIT INT TERM
. "$top/tests/spdk/nvmf_tgt.sh"
fail=0

# nvmf_tgt on CPU 0 (-m 0x1), exporting over TCP on loopback
target_up() {
	TGT_WRAP="taskset -c 0" nvmf_tgt_up 0x1 "$d/tgt.log" 30 || die "nvmf_tgt did not start"
	nvmf_export tcp 127.0.0.1 || die "cannot configure nvmf_tgt"
}

# collectors_up: both sides' collectors for the case $name at -s $rate
# (their pids in $tc and $hc), the host's waiting for spdk_nvme_perf
collectors_up() {
	"$top/ntprof-collect" record -r target -t tcp -s "$rate" -i 1 -q \
		--spdk-target "$S/build/bin/nvmf_tgt" -o "$d/$name-t.db" >"$d/$name-tc.log" 2>&1 &
	tc=$!
	"$top/ntprof-collect" record -r host -t tcp -s "$rate" -i 1 -q --wait \
		--spdk-host "$S/build/bin/spdk_nvme_perf" -o "$d/$name-h.db" >"$d/$name-hc.log" 2>&1 &
	hc=$!
	sleep 1
}

# collectors_down: stop both collectors, then nvmf_tgt
collectors_down() {
	kill -INT $hc $tc
	wait $hc $tc
	kill $tgt
	wait $tgt 2>/dev/null
}

# run_perf PERF-ARGS...: spdk_nvme_perf on CPU 1 for SECS against nvmf_tgt, its
# output in the case's log, its pid in $pp (the name of its trace)
run_perf() {
	taskset -c 1 "$S/build/bin/spdk_nvme_perf" --no-huge -s 1024 -c 0x2 -t "$SECS" "$@" \
		-r "trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:4420 subnqn:$NQN" \
		>"$d/$name-perf.log" 2>&1 &
	pp=$!
	wait $pp
}

# one NAME RATE PERF-ARGS...: a run, recorded on both sides
one() {
	name=$1 rate=$2
	shift 2
	target_up
	collectors_up
	run_perf "$@"
	collectors_down
	judge "$name"
}

# sql QUERY: one value over the case's two recordings
sql() {
	"$top/ntprof-shell" -c ".mode csv" -c ".headers off" -c "$1" "$d/$name-h.db" "$d/$name-t.db" \
		2>>"$d/sql.err" | tail -1 | tr -d '\r'
}

judge() {
	set -- $(sed -n 's/^Total *: *\([0-9.]*\) *[0-9.]* *\([0-9.]*\).*/\1 \2/p' "$d/$name-perf.log")
	iops=${1:-0} avg=${2:-0}
	mean=$(sql "SELECT round(avg(e2e) / 1000.0, 2) FROM ntp_joined
		WHERE grp IN (SELECT id FROM host.grp WHERE opcode IN (1, 2))")
	# of the I/O: an Asynchronous Event Request outstanding when perf
	# disconnects never completes, and stays unmatched (missing points)
	pct=$(sql "SELECT round(100.0 * sum(matched) / sum(sampled), 2) FROM ntp_report_group
		WHERE queue = 'io'")
	sum=$(sql "SELECT sum(CASE WHEN k.total = 0 THEN c.sum_ns ELSE -c.sum_ns END)
		FROM ntp_report_component_stats AS c JOIN component AS k ON k.name = c.component
		JOIN ntp_report_group AS g ON g.hdb = c.hdb AND g.grp = c.grp AND g.mode = 'joined'
		WHERE k.stage_joined IS NOT NULL OR k.name = 'e2e'")
	verdict=ok
	awk -v m="${mean:-0}" -v a="$avg" -v p="${pct:-0}" -v s="${sum:-x}" \
		'BEGIN { exit !(m > 0 && a > 0 && p >= 99.5 && s == 0 && m / a > 0.9 && m / a < 1.1) }' ||
		{ verdict=FAIL; fail=1; }
	printf '%-10s %10s %12s %12s %9s %10s  %s\n' "$name" "$iops" "$avg" "${mean:-?}" \
		"${pct:-?}" "${sum:-?}" "$verdict"
}

header() {
	echo "SPDK $(cat "$S/VERSION" 2>/dev/null || echo "in $S"), $1, $SECS s per case"
	printf '%-10s %10s %12s %12s %9s %10s\n' case "perf IOPS" "perf avg us" "ntprof us" \
		matched% "sum-e2e"
}

tcp() {
	header "NVMe/TCP on loopback"
	one seed 100 -q 1 -o 4096 -w randread
	one qd16 100 -q 16 -o 4096 -w randread
	one write16k 10 -q 1 -o 16384 -w randwrite
	one mix7030 10 -q 16 -o 4096 -w randrw -M 70
}

# peer_one NAME RATE PERF-ARGS...: a run recorded by ntprof and traced by
# SPDK, judged as one is, then against the trace
peer_one() {
	name=$1 rate=$2
	shift 2
	TGT_ARGS="-e nvmf_tcp --num-trace-entries 262144" target_up
	collectors_up
	a0=$("$top/.output/spdk_trace_log" anchor)
	run_perf -y nvme_tcp "$@"
	a1=$("$top/.output/spdk_trace_log" anchor)
	collectors_down
	"$S/build/bin/spdk_trace" -j -s spdk_nvme_perf -p $pp >"$d/$name-host.json" \
		2>"$d/$name-trace.err"
	"$S/build/bin/spdk_trace" -j -s nvmf -p $tgt >"$d/$name-target.json" \
		2>>"$d/$name-trace.err"
	rm -f "/dev/shm/spdk_nvme_perf_trace.pid$pp" "/dev/shm/nvmf_trace.pid$tgt"
	judge "$name"
	echo "-- $name: host, ntprof's sampled commands against SPDK's trace of every command"
	# shellcheck disable=SC2086 # the anchors: four words; NSID 1, the
	# namespace nvmf_export adds
	python3 "$top/tests/spdk/trace_cmds.py" host <"$d/$name-host.json" >"$d/$name-host.txt" &&
		"$top/.output/spdk_trace_log" log $a0 $a1 "$rate" 1 <"$d/$name-host.txt" \
			>"$d/$name.lat" || {
		echo "$name: no host trace (spdk_trace: $(head -1 "$d/$name-trace.err"))" >&2
		fail=1
		return
	}
	"$top/ntprof-shell" -c ".mode csv" -c ".headers off" \
		-c "$("$top/.output/check_fidelity" --sampled-sql)" "$d/$name-h.db" "$d/$name-t.db" \
		>"$d/$name.sampled" 2>>"$d/sql.err"
	"$top/.output/check_fidelity" --near 2000 "$d/$name.lat" "$d/$name.sampled" "$rate" ||
		fail=1
	echo "-- $name: target, ntprof's stages against SPDK's trace of the same requests"
	# shellcheck disable=SC2086 # the anchors
	python3 "$top/tests/spdk/trace_cmds.py" target <"$d/$name-target.json" \
		>"$d/$name-target.txt" &&
		python3 "$top/tests/spdk/peer_target.py" "$d/$name-target.txt" $a0 $a1 \
			"$d/$name-t.db" || fail=1
}

peer() {
	cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
	if [ "$(cat $cs)" != tsc ]; then
		echo "verify: peer: the clocksource is $(cat $cs), not the TSC: SPDK's trace cannot be mapped onto ntprof's clock" >&2
		fail=1
		return
	fi
	[ -x "$S/build/bin/spdk_trace" ] || die "$S/build/bin/spdk_trace: not built"
	header "NVMe/TCP on loopback, with SPDK's own tracing"
	peer_one peer5 5 -q 1 -o 4096 -w randread
	peer_one peer1 1 -q 1 -o 4096 -w randread
}

# NVMe/RDMA: the cases run in the guests (tests/spdk/rdma_guest.sh), then
# are judged here like the TCP ones.
rdma() {
	header "NVMe/RDMA on soft-RoCE in two qemu guests"
	sh "$top/tests/vm/vm.sh" prepare >"$d/prepare.log" 2>&1 ||
		{ cat "$d/prepare.log" >&2; die "cannot prepare the guests (tests/vm/vm.sh prepare)"; }
	printf '%s\n' "seed 1 -q 1 -o 4096 -w randread -t $SECS" \
		"qd16 1 -q 16 -o 4096 -w randread -t $SECS" \
		"write16k 1 -q 1 -o 16384 -w randwrite -t $SECS" \
		"mix7030 1 -q 16 -o 4096 -w randrw -M 70 -t $SECS" >"$d/cases"
	for g in target host; do
		printf 'TOP=%s\nS=%s\n. %s/tests/spdk/rdma_guest.sh\nspdk_%s_main\n' \
			"$top" "$S" "$top" "$g" >"$d/$g.sh"
	done
	export VM_SMP=2 VM_CPU=max VM_MEM=3072
	VM_NAME=target VM_NET="40011 40012" VM_MAC=52:54:00:00:00:02 \
		sh "$top/tests/vm/vm.sh" run "$d" 3600 >"$d/target.vm" 2>&1 &
	tvm=$!
	VM_NAME=host VM_NET="40012 40011" VM_MAC=52:54:00:00:00:01 \
		sh "$top/tests/vm/vm.sh" run "$d" 3600 >"$d/host.vm" 2>&1
	hrc=$?
	wait $tvm
	trc=$?
	if [ $hrc != 0 ] || [ $trc != 0 ]; then
		echo "verify: a guest failed (host $hrc, target $trc):" >&2
		tail -5 "$d/host.vm" "$d/target.vm" >&2
		fail=1
	fi
	while read -r name rate args; do
		if [ -s "$d/$name-h.db" ] && [ -s "$d/$name-t.db" ]; then
			judge "$name"
		else
			echo "$name: no recordings" >&2
			fail=1
		fi
	done <"$d/cases"
}

for t in $TRS; do
	$t
done
exit $fail
