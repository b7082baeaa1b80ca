# SPDX-License-Identifier: BSD-2-Clause
#
# Sourced by the guest scripts of tests/vm/kernel_test.sh: NVMe-oF set-up
# and ntprof recording inside a guest. $TOP is the repository (the host's,
# read-only), the current directory the shared run directory. $TR is the
# transport: tcp (the default) or rdma (soft-RoCE, rdma_rxe, on eth0).

NQN=nqn.2026-11.io.ntprof:kernel-test
TR=${TR:-tcp}
# HOST=fixture: the host is the SPDK-shaped fixture (tests/fixture), not
# the kernel's driver: a mixed pair with the kernel target
HOST=${HOST:-kernel}
PERF=$TOP/.output/fixture_perf
# TARGET=fixture: the target is the SPDK-shaped fixture, against the
# kernel's host driver
TARGET=${TARGET:-kernel}
TGT=$TOP/.output/fixture_tgt
N=$TOP/ntprof-collect
# SQLite needs a file system with working locks and mmap: not 9p
DB=/mnt/db

guest_init() {
	hostname "$1"
	mkdir -p $DB && mount -t tmpfs tmpfs $DB
	ip link set lo up
}

# wire ADDR: the UDP wire to the other guest, as eth0 with ADDR/24
wire() {
	modprobe virtio_net
	for _i in $(seq 50); do [ -e /sys/class/net/eth0 ] && break; sleep 0.1; done
	ip addr add "$1/24" dev eth0 && ip link set eth0 up
}

# rxe: soft-RoCE on eth0, for TR=rdma (nothing for tcp), with the user
# space's verbs and connection manager devices for the fixture
rxe() {
	[ "$TR" = rdma ] || return 0
	[ -e /sys/class/infiniband/rxe0 ] && return 0
	modprobe rdma_rxe && modprobe ib_uverbs && modprobe rdma_ucm &&
		rdma link add rxe0 type rxe netdev eth0
}

# target_up ADDR: null_blk behind nvmet-$TR on ADDR:4420. In-capsule data
# up to 4 KiB, so 8 KiB writes go through R2T (RDMA: an RDMA READ) and 4 KiB
# ones do not. The null_blk has a volatile write cache, so the host sends
# flushes.
target_up() {
	rxe || return 1
	modprobe null_blk nr_devices=1 memory_backed=1 cache_size=64 && modprobe nvmet_$TR ||
		return 1
	# configfs is a module too: its mount point exists once it is loaded
	mount -t configfs none /sys/kernel/config 2>/dev/null
	_c=/sys/kernel/config/nvmet _s=/sys/kernel/config/nvmet/subsystems/$NQN
	mkdir "$_s" && echo 1 >"$_s/attr_allow_any_host" && mkdir "$_s/namespaces/1" &&
		echo /dev/nullb0 >"$_s/namespaces/1/device_path" &&
		echo 1 >"$_s/namespaces/1/enable" && mkdir $_c/ports/1 &&
		echo $TR >$_c/ports/1/addr_trtype && echo ipv4 >$_c/ports/1/addr_adrfam &&
		echo "$1" >$_c/ports/1/addr_traddr && echo 4420 >$_c/ports/1/addr_trsvcid &&
		echo 4096 >$_c/ports/1/param_inline_data_size &&
		ln -s "$_s" $_c/ports/1/subsystems/
}

# host_up ADDR: connect; sets $DEV
host_up() {
	[ "$1" = 127.0.0.1 ] || [ -e /sys/class/infiniband/rxe0 ] || rxe || return 1
	modprobe nvme_$TR || return 1
	# the kernel says why a connect failed, nvme-cli only that it did
	nvme connect -t $TR -a "$1" -s 4420 -n $NQN || { dmesg | tail -15 >&2; return 1; }
	for _i in $(seq 50); do
		DEV=$(ls /dev/nvme*n1 2>/dev/null | head -1)
		[ -n "$DEV" ] && return 0
		sleep 0.1
	done
	return 1
}

# settle DEV: until the kernel's own reads of a new disk (its partition
# table) are over: the disk's statistics unchanged for half a second
settle() {
	_s=/sys/block/${1#/dev/}/stat _prev=
	for _i in $(seq 60); do
		_now=$(cat "$_s")
		[ "$_now" = "$_prev" ] && return 0
		_prev=$_now
		sleep 0.5
	done
}

# rec ROLE NAME ARGS...: ntprof-collect record into $DB/NAME.db, in the
# background, until it is recording; sets $REC
# (function variables start with _: sh has no locals, and callers have $name)
rec() {
	_role=$1 _name=$2
	shift 2
	rm -f $DB/$_name.db
	"$N" record -r "$_role" -t $TR -i 2 -o $DB/$_name.db "$@" >"$_name.log" 2>&1 &
	REC=$!
	for _i in $(seq 600); do
		grep -q -e "profiling as" -e "waiting for a process" "$_name.log" && return 0
		kill -0 $REC 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# rec_stop NAME: Ctrl-C the recording started last, keep its database here
rec_stop() {
	kill -INT $REC && wait $REC && cp $DB/$1.db .
}

# io NAME RW BS SECS [OPTION...]: fio on $DEV, JSON into NAME.fio. Options:
# fsync (a flush after every write), qdN (libaio at queue depth N; else
# psync at 1), mix (70 % reads for randrw); netem belongs to the wire
io() {
	_n=$1 _rw=$2 _bs=$3 _secs=$4 _opt="--ioengine=psync --iodepth=1"
	shift 4
	for _o in "$@"; do
		case $_o in
		fsync) _opt="$_opt --fsync=1" ;;
		qd*) _opt="$_opt --ioengine=libaio --iodepth=${_o#qd}" ;;
		mix) _opt="$_opt --rwmixread=70" ;;
		esac
	done
	fio --name="$_n" --filename="$DEV" --rw="$_rw" --bs="$_bs" $_opt \
		--direct=1 --runtime="$_secs" --time_based --lat_percentiles=1 \
		--output-format=json >"$_n.fio"
}

# perf_io NAME RW BS SECS [qdN]: the fixture host instead of fio, its
# output in NAME.perf ('fixture_perf: ios=N mean_ns=M'). It connects, then
# starts its I/O once the collector (log NAME-host.log) has attached.
perf_io() {
	_n=$1 _rw=$2 _bs=$3 _secs=$4 _qd=1
	shift 4
	for _o in "$@"; do case $_o in qd*) _qd=${_o#qd} ;; esac; done
	"$PERF" -a 10.0.0.2 -n $NQN --trtype $TR -q "$_qd" -o $((${_bs%k} * 1024)) -w "$_rw" \
		-t "$_secs" --wait-signal >"$_n.perf" 2>&1 &
	_perf=$!
	for _i in $(seq 600); do
		grep -q "waiting for SIGUSR1" "$_n.perf" && grep -q "profiling as" "$_n-host.log" &&
			break
		sleep 0.1
	done
	kill -USR1 $_perf
	wait $_perf
}

# perf_warm: a few reads of the fixture host before any case. Its first
# connection over a soft-RoCE device just created can fail while the
# addresses resolve; retried for up to a minute (the host's connect and its
# first reads are no case's, as for the kernel host). The last attempt's
# output in perf-warm.log, and on stderr when none succeeded.
perf_warm() {
	for _i in $(seq 30); do
		"$PERF" -a 10.0.0.2 -n $NQN --trtype $TR -q 1 -o 4096 -w randread -N 64 \
			>perf-warm.log 2>&1 && return 0
		sleep 2
	done
	cat perf-warm.log >&2
	return 1
}

# jitter on|off [OPTION...]: with the option netem, each packet this guest
# sends waits 3 ms +- 2 ms (uniform), so packets overtake each other; off
# takes it away again
jitter() {
	_on=$1
	shift
	case " $* " in *" netem "*) ;; *) return 0 ;; esac
	if [ "$_on" = on ]; then
		modprobe sch_netem && tc qdisc replace dev eth0 root netem delay 3ms 2ms
	else
		tc qdisc del dev eth0 root
	fi
}

# wait_file FILE SECS: until FILE exists (the other guest's signal)
wait_file() {
	for _i in $(seq $(($2 * 10))); do [ -e "$1" ] && return 0; sleep 0.1; done
	echo "no $1 after $2 s" >&2
	return 1
}

# The two guests' parts of a run of cases, one per line of ./cases:
# "NAME RATE RW BS SECS [OPTION...]" (io, jitter). Per case the target starts recording (RATE 0: no
# collector), the host records fio's run, then the target stops. They keep
# in step through files in the shared run directory.
# fixture_up ADDR: the fixture target on ADDR:4420, serving $NQN (64 MiB
# of RAM, in-capsule data up to 4 KiB as for the kernel target)
fixture_up() {
	rxe || return 1
	"$TGT" -a "$1" -p 4420 -n $NQN --trtype $TR --incapsule 4096 >fixture-tgt.log 2>&1 &
	for _i in $(seq 100); do
		grep -q "listening on" fixture-tgt.log && return 0
		sleep 0.1
	done
	return 1
}

target_main() {
	guest_init target
	wire 10.0.0.2 || return 1
	_app=
	if [ "$TARGET" = fixture ]; then
		fixture_up 10.0.0.2 || return 1
		_app="--spdk-target $TGT"
	else
		target_up 10.0.0.2 || return 1
	fi
	touch target.up
	# the host's connect and its first reads are no case's
	wait_file host.up 120 || return 1
	while read -r name rate rw bs secs extra; do
		if [ "$rate" != 0 ]; then
			rec target "$name-target" -s "$rate" $_app ||
				{ echo "$name: no recording" >&2; return 1; }
		fi
		jitter on $extra || { echo "$name: no netem" >&2; return 1; }
		touch "$name.t-ready"
		wait_file "$name.h-done" 300 || return 1
		jitter off $extra
		[ "$rate" = 0 ] || rec_stop "$name-target" || return 1
	done <cases
	"$N" probe -r target -t $TR $_app >probe-target.out 2>&1
	wait_file host.done 120
}

host_main() {
	guest_init host
	wire 10.0.0.1 || return 1
	wait_file target.up 120 || return 1
	_app=
	if [ "$HOST" = fixture ]; then
		rxe || { echo "no soft-RoCE" >&2; return 1; }
		perf_warm || { echo "the fixture host cannot connect" >&2; return 1; }
		_app="--wait --spdk-host $PERF"
	else
		host_up 10.0.0.2 || { echo "cannot connect" >&2; return 1; }
		settle "$DEV"
	fi
	touch host.up
	while read -r name rate rw bs secs extra; do
		wait_file "$name.t-ready" 120 || return 1
		if [ "$rate" != 0 ]; then
			rec host "$name-host" -s "$rate" $_app ||
				{ echo "$name: no recording" >&2; return 1; }
		fi
		jitter on $extra || { echo "$name: no netem" >&2; return 1; }
		if [ "$HOST" = fixture ]; then
			perf_io "$name" "$rw" "$bs" "$secs" $extra </dev/null
		else
			io "$name" "$rw" "$bs" "$secs" $extra </dev/null
		fi
		jitter off $extra
		[ "$rate" = 0 ] || rec_stop "$name-host" || return 1
		touch "$name.h-done"
	done <cases
	_app=${_app#--wait }
	"$N" probe -r host -t $TR $_app >probe-host.out 2>&1
	"$N" probe -r host -t $TR $_app -j >probe-host.json 2>&1
	touch host.done
	[ "$HOST" = fixture ] || nvme disconnect -n $NQN
}
