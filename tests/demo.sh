#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# The demo, after tutorial part 4: the NVMe/TCP test fixture pair
# (tests/fixture: an SPDK-shaped target and host over loopback, since SPDK
# itself is not built here) recorded on both roles by ntprof-collect, then
# joined and reported. A second run with slower simulated storage follows,
# `ntprof compare` puts the two side by side and `ntprof plot` draws them.
# After each run, the storage time the fixture was given and the one ntprof
# recorded, side by side: the fixture's storage is a timer, and this is how
# close it came. Needs root (BPF). The recordings stay in demo-out/ for
# ntprof-shell; under sudo they belong to the invoking user.
set -eu
out=.output
case $(id -u) in 0) ;; *) echo "demo: run as root (sudo make demo): it loads BPF programs" >&2; exit 1 ;; esac
dir=demo-out
mkdir -p "$dir"
rm -f "$dir"/host.ntp "$dir"/target.ntp "$dir"/slow-host.ntp "$dir"/slow-target.ntp
log=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-demo-XXXXXX")
tgt= tcol= perf=
stop_all() {
	for p in $perf $tcol $tgt; do kill -INT "$p" 2>/dev/null || true; done
	for p in $perf $tcol $tgt; do wait "$p" 2>/dev/null || true; done
	perf= tcol= tgt=
}
cleanup() {
	stop_all
	rm -rf "$log"
}
trap cleanup EXIT INT TERM

wait_for() { # FILE PATTERN
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "demo: timed out waiting for '$2':" >&2; cat "$1" >&2; exit 1; }
		sleep 0.1
	done
}

# say TEXT: the command about to run, when the run is shown in full
say() { [ "$quiet" = 1 ] || echo "$*"; }

# storage_truth US PREFIX: the storage time the fixture target was given,
# next to the one recorded: the joined recordings' storage component, from
# the view `ntprof report --detail` prints it from.
storage_truth() {
	q="SELECT printf('fixture storage: configured $1 us, measured p50 %.2f us, p99 %.2f us, mean %.2f us', p50_ns / 1e3, p99_ns / 1e3, mean_ns / 1e3) FROM ntp_report_component_stats WHERE component = 't_storage'"
	say "\$ ./ntprof-shell -noheader -c \"$q\" $dir/${2}host.ntp $dir/${2}target.ntp"
	./ntprof-shell -noheader -c "$q" "$dir/${2}host.ntp" "$dir/${2}target.ntp"
}

# One run: the fixture target with STORAGE_US of simulated storage,
# recorded into PREFIXtarget.ntp and PREFIXhost.ntp. Shown in full, it
# prints each command as it would be typed from the top of the clone, and
# what it printed.
run() { # STORAGE_US PREFIX
	us=$1 pre=$2
	say "\$ $out/fixture_tgt -a 127.0.0.1 -p 0 --storage-us $us & tgt=\$!   # the target (SPDK's nvmf_tgt)"
	: >"$log/tgt" && : >"$log/tcol" && : >"$log/perf" # a second run's logs, emptied before its jobs start
	$out/fixture_tgt -a 127.0.0.1 -p 0 --storage-us "$us" >"$log/tgt" 2>&1 &
	tgt=$!
	wait_for "$log/tgt" "listening on"
	[ "$quiet" = 1 ] || cat "$log/tgt"
	port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$log/tgt")

	if [ "$quiet" = 0 ]; then
		echo "\$ ./ntprof probe -r target -t tcp --spdk-target $out/fixture_tgt"
		./ntprof probe -r target -t tcp --spdk-target $out/fixture_tgt
	fi
	say "\$ ./ntprof record -r target -t tcp -s 100 -i 5 --spdk-target $out/fixture_tgt -o $dir/${pre}target.ntp & tcol=\$!"
	./ntprof record -r target -t tcp -s 100 -i 5 --spdk-target $out/fixture_tgt \
		-o "$dir/${pre}target.ntp" >"$log/tcol" 2>&1 &
	tcol=$!
	wait_for "$log/tcol" "profiling as target"

	say "\$ $out/fixture_perf -a 127.0.0.1 -p $port -q 1 -o 4096 -w randread -t 12 --wait-signal & perf=\$!   # the host (spdk_nvme_perf)"
	$out/fixture_perf -a 127.0.0.1 -p "$port" -q 1 -o 4096 -w randread -t 12 --wait-signal \
		>"$log/perf" 2>&1 &
	perf=$!
	wait_for "$log/perf" "waiting for SIGUSR1"
	[ "$quiet" = 1 ] || cat "$log/perf"
	say "\$ ./ntprof record -t tcp -s 100 -d 10 -i 5 --spdk-host $out/fixture_perf -o $dir/${pre}host.ntp &"
	./ntprof record -t tcp -s 100 -d 10 -i 5 --spdk-host $out/fixture_perf \
		-o "$dir/${pre}host.ntp" >"$log/hcol" 2>&1 &
	hcol=$!
	sleep 0.5
	say "\$ kill -USR1 \$perf   # the workload starts, recorded from its first command"
	kill -USR1 "$perf"
	wait "$hcol"
	[ "$quiet" = 1 ] || cat "$log/hcol"
	wait "$perf" || true
	perf=
	if [ "$quiet" = 0 ]; then
		echo "(the fixture's own measurement, like spdk_nvme_perf's:)"
		grep -E "Latency|Device Information|^TCP|^Total" "$log/perf"
	fi
	say "\$ kill -INT \$tcol   # Ctrl-C for the target's recording"
	kill -INT "$tcol"
	wait "$tcol" || true
	tcol=
	if [ "$quiet" = 0 ]; then
		grep -v "^ntprof: profiling" "$log/tcol" | tail -3
	fi
	say "\$ kill -INT \$tgt"
	stop_all
	[ "$quiet" = 1 ] || grep "records flushed" "$log/tgt"
	storage_truth "$us" "$pre"
}

echo "demo: the NVMe/TCP test fixture over loopback, not SPDK and not a drive" >&2
quiet=0
run 50 ""
echo
echo "\$ ./ntprof report --detail $dir/host.ntp $dir/target.ntp"
./ntprof report --detail "$dir/host.ntp" "$dir/target.ntp"
echo
echo "(a second run, the same workload against storage that takes 100 us instead of 50:"
echo " $dir/slow-host.ntp and $dir/slow-target.ntp)"
quiet=1
run 100 slow-
echo
echo "\$ ./ntprof compare -l fast,slow $dir/host.ntp,$dir/target.ntp $dir/slow-host.ntp,$dir/slow-target.ntp"
./ntprof compare -l fast,slow "$dir/host.ntp,$dir/target.ntp" \
	"$dir/slow-host.ntp,$dir/slow-target.ntp"
echo
echo "\$ ./ntprof plot -l fast,slow -o $dir/plots $dir/host.ntp,$dir/target.ntp $dir/slow-host.ntp,$dir/slow-target.ntp"
./ntprof plot -l fast,slow -o "$dir/plots" "$dir/host.ntp,$dir/target.ntp" \
	"$dir/slow-host.ntp,$dir/slow-target.ntp"
# under sudo, the recordings belong to the user who asked for them
[ -z "${SUDO_UID:-}" ] || chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$dir"
echo
echo "The recordings are in $dir/: try ./ntprof-shell $dir/host.ntp $dir/target.ntp;"
echo "the plots are one page: $dir/plots/index.html"
