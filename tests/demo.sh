#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# The demo, after tutorial part 4: the NVMe/TCP test fixture pair
# (tests/fixture: an SPDK-shaped target and host over loopback, since SPDK
# itself is not built here) recorded on both roles by ntprof-collect, then
# joined and reported. A second run with slower simulated storage follows,
# `ntprof compare` puts the two side by side and `ntprof plot` draws them. Needs root (BPF). The
# recordings stay in demo-out/ for ntprof-shell; under sudo they belong to
# the invoking user.
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

# One run: the fixture target with STORAGE_US of simulated storage,
# recorded into PREFIXtarget.ntp and PREFIXhost.ntp.
run() { # STORAGE_US PREFIX
	us=$1 pre=$2
	say "\$ fixture_tgt -a 127.0.0.1 -p 0 --storage-us $us    # the target (SPDK's nvmf_tgt in the tutorial)"
	$out/fixture_tgt -a 127.0.0.1 -p 0 --storage-us "$us" >"$log/tgt" 2>&1 &
	tgt=$!
	wait_for "$log/tgt" "listening on"
	port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$log/tgt")

	if [ "$quiet" = 0 ]; then
		echo "\$ ntprof probe -r target -t tcp --spdk-target $out/fixture_tgt"
		./ntprof probe -r target -t tcp --spdk-target $out/fixture_tgt
	fi
	say "\$ ntprof record -r target -t tcp -s 100 -i 5 --spdk-target $out/fixture_tgt -o $dir/${pre}target.ntp &"
	./ntprof record -r target -t tcp -s 100 -i 5 --spdk-target $out/fixture_tgt \
		-o "$dir/${pre}target.ntp" >"$log/tcol" 2>&1 &
	tcol=$!
	wait_for "$log/tcol" "profiling as target"

	say "\$ fixture_perf -q 1 -o 4096 -w randread -t 12 ...   # the host (spdk_nvme_perf)"
	$out/fixture_perf -a 127.0.0.1 -p "$port" -q 1 -o 4096 -w randread -t 12 --wait-signal \
		>"$log/perf" 2>&1 &
	perf=$!
	wait_for "$log/perf" "waiting for SIGUSR1"
	say "\$ ntprof record -t tcp -s 100 -d 10 -i 5 --spdk-host $out/fixture_perf -o $dir/${pre}host.ntp"
	./ntprof record -t tcp -s 100 -d 10 -i 5 --spdk-host $out/fixture_perf \
		-o "$dir/${pre}host.ntp" >"$log/hcol" 2>&1 &
	hcol=$!
	sleep 0.5
	kill -USR1 "$perf"
	wait "$hcol"
	[ "$quiet" = 1 ] || cat "$log/hcol"
	wait "$perf" || true
	perf=
	if [ "$quiet" = 0 ]; then
		echo "(the fixture's own measurement, like spdk_nvme_perf's:)"
		grep -E "Latency|Device Information|^TCP|^Total" "$log/perf"
	fi
	kill -INT "$tcol"
	wait "$tcol" || true
	tcol=
	if [ "$quiet" = 0 ]; then
		echo "(the target's recording, stopped with Ctrl-C:)"
		grep -v "^ntprof: profiling" "$log/tcol" | tail -3
	fi
	stop_all
}

echo "demo: the NVMe/TCP test fixture over loopback, not SPDK and not a drive" >&2
quiet=0
run 50 ""
echo
echo "\$ ntprof report --detail $dir/host.ntp $dir/target.ntp"
./ntprof report --detail "$dir/host.ntp" "$dir/target.ntp"
echo
echo "(a second run, the same workload against storage that takes 100 us instead of 50:"
echo " $dir/slow-host.ntp and $dir/slow-target.ntp)"
quiet=1
run 100 slow-
echo
echo "\$ ntprof compare -l fast,slow $dir/host.ntp,$dir/target.ntp $dir/slow-host.ntp,$dir/slow-target.ntp"
./ntprof compare -l fast,slow "$dir/host.ntp,$dir/target.ntp" \
	"$dir/slow-host.ntp,$dir/slow-target.ntp"
echo
echo "\$ ntprof plot -l fast,slow -o $dir/plots $dir/host.ntp,$dir/target.ntp $dir/slow-host.ntp,$dir/slow-target.ntp"
./ntprof plot -l fast,slow -o "$dir/plots" "$dir/host.ntp,$dir/target.ntp" \
	"$dir/slow-host.ntp,$dir/slow-target.ntp"
# under sudo, the recordings belong to the user who asked for them
[ -z "${SUDO_UID:-}" ] || chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$dir"
echo
echo "The recordings are in $dir/: try ./ntprof-shell $dir/host.ntp $dir/target.ntp;"
echo "the plots are one page: $dir/plots/index.html"
