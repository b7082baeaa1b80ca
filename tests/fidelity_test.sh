#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# Sampling fidelity, as root: a profiler must not change what it measures.
# The NVMe/TCP fixture pair (tests/fixture) recorded on both roles by the
# collector, the host workload writing its own latency of every command
# (fixture_perf --lat-log); then, within each run, the end to end ntprof
# recorded of the sampled commands (ntp_command.e2e) against the workload's
# latencies of all its commands: p50, p90 and p99 of each, the workload's
# inside the sampled set's distribution-free interval widened by 2 %: 95 %
# for all the test's verdicts together (check_fidelity --family: each
# interval at 1 - 0.05 / K for K verdicts; at 95 % each, one of a dozen
# would fail now and then on chance alone)
# (.output/check_fidelity says what each side includes, how their offset is
# measured and the premises: enough sampled commands, none lost, at -s 1
# every command). At -s 100 that asks whether the sampled commands are
# slower than the rest (their stamps and records are theirs alone); at -s 1,
# whether ntprof holds every command, each as the workload timed it.
#
# Runs at -s 100 and -s 1, interleaved (ROUNDS rounds, default 2), 4 KiB
# random reads at queue depth 1, the target pinned to the first CPU and the
# workload to the last (as make bench does). The comparison is within one
# run, so a machine that drifts between runs moves both sides alike. Each
# run also has a negative control: the same data with the workload's
# latencies made 10 % shorter on purpose must be refused (the verdict can
# see a change of that size). Every table judged is printed.
#
# Why the target's storage takes 100 us (a flash read's order; about 125 us
# a command): being sampled is not free. A sampled command pays for the
# clock reads and the record of its points, on both sides, on a path taken
# once in a hundred commands and found cold: on a two-core virtual machine
# its median is 1 to 2 us above the rest's by the workload's own clock,
# about half of it each side (each table's last line says by how much). The
# cost is fixed, the 2 % relative: with 100 us of storage that is about 1 %,
# within it, and what is refused is a sampled path 3 to 4 us dearer than
# the rest's, the 2 % and the interval's half width (seen: a 3 us spin
# added to the host's sampled commands fails the p50); at the fixture's
# bare loopback (storage 0, about 20 us a command) it is 5 to 6 %, and the
# verdict refuses it (docs/performance.md, "Sampling fidelity").
#
#   sudo sh tests/fidelity_test.sh        (make check-collect runs it)

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/.output
COLLECT=$top/ntprof-collect
SHELL_BIN=$top/ntprof-shell
TGT=$out/fixture_tgt
PERF=$out/fixture_perf
CHECK=$out/check_fidelity
ROUNDS=${ROUNDS:-2}
# commands per run: at -s 100 about 1500 sampled (an interval for p99 needs
# 600 and more), at -s 1 all of them
N100=${N100:-150000}
N1=${N1:-30000}
# the target's storage time (--storage-us), us
STORAGE_US=${STORAGE_US:-100}
# the verdicts judged together: three percentiles of two runs a round
FAMILY=$((ROUNDS * 2 * 3))

unset SUDO_UID SUDO_GID SUDO_USER

TEST=fidelity_test
. "$top/tests/testlib.sh"

need_root "BPF programs"
need_built "$COLLECT" "$SHELL_BIN" "$TGT" "$PERF" "$CHECK"
scratch fidelity-test
port=$((40000 + $$ % 20000))
# the target on the first CPU, the workload on the last
pair_tgt_cpu=0
pair_perf_cpu=$(($(nproc) - 1))

# value LOG KEY: the number after KEY= in the fixture's LOG.
value() { sed -n "s/.*$2=\([0-9]*\).*/\1/p" "$1" | tail -1; }

# run NAME RATE COUNT: one recording of both roles, COUNT commands.
run() {
	name=$1 rate=$2 count=$3
	echo "== $name: -s $rate, $count commands, storage $STORAGE_US us"
	pair_up "$name" "$rate" "--storage-us $STORAGE_US" \
		"-q 1 -o 4096 -w randread -N $count --lat-log $d/$name.lat" || return 1
	kill -USR1 "$perf"
	wait_exit "$perf" 600 ||
		{ bad "$name: the host workload failed: $(tail -3 "$d/$name-perf.log")"; return 1; }
	pair_down "$name"
	judge "$name" "$rate"
}

# judge NAME RATE: the run's sampled commands against its workload.
judge() {
	name=$1 rate=$2 plog=$d/$1-perf.log
	# ntprof's sampled I/O commands: h_queue (the submission), identity, e2e
	"$SHELL_BIN" -c ".mode csv" -c ".headers off" -c "$("$CHECK" --sampled-sql)" \
		"$d/$name-host.db" "$d/$name-target.db" >"$d/$name.sampled" 2>"$d/$name-sql.err"
	expect "$name: ntprof-shell's exit status" $? 0
	"$CHECK" --family "$FAMILY" "$d/$name.lat" "$d/$name.sampled" "$rate" >"$d/$name.txt" 2>&1
	rc=$?
	grep -v '^lat_log: ' "$d/$name.txt"
	expect "$name: check_fidelity's exit status (0: no difference, premises hold)" "$rc" 0
	# the log is the workload's own record: every command its summary
	# counts, the same mean, and as many sampled as it flushed records
	# (its Connect and Identify went out before the collector set the rate)
	# shellcheck disable=SC2046 # three words
	set -- $(sed -n 's/^lat_log: commands=\([0-9]*\) sum_ns=\([0-9]*\) sampled=\([0-9]*\)$/\1 \2 \3/p' \
		"$d/$name.txt")
	if [ $# -ne 3 ]; then
		bad "$name: the latency log was not read: $(cat "$d/$name.txt")"
		return
	fi
	expect "$name: commands in the latency log = the workload's count" "$1" "$(value "$plog" ios)"
	expect "$name: the latency log's mean = the workload's" "$(($2 / $1))" "$(value "$plog" mean_ns)"
	expect "$name: sampled in the latency log = records the workload flushed" "$3" \
		"$(value "$plog" flushed)"
	# the negative control: a workload 10 % faster than ntprof saw is refused
	"$CHECK" --family "$FAMILY" --shift-workload -10 "$d/$name.lat" "$d/$name.sampled" "$rate" \
		>"$d/$name-shifted.txt" 2>&1
	rc=$?
	expect "$name: a workload shifted by -10 % is refused (exit status)" "$rc" 1
	grep -q "^fidelity: FAILED: .*the workload's p50 [0-9.]* us is outside" \
		"$d/$name-shifted.txt" && ok ||
		bad "$name: the shifted workload's p50 was not refused: $(tail -1 "$d/$name-shifted.txt")"
}

i=1
while [ "$i" -le "$ROUNDS" ]; do
	run "s100-$i" 100 "$N100" || finish
	run "s1-$i" 1 "$N1" || finish
	i=$((i + 1))
done

finish
