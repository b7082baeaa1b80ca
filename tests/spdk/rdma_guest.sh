# SPDX-License-Identifier: BSD-2-Clause
#
# Sourced by the two guests of tests/spdk/verify.sh's NVMe/RDMA part: real
# SPDK on soft-RoCE (rdma_rxe), recorded by ntprof-collect on both sides.
# $TOP is the repository, $S the SPDK build (both the host machine's,
# read-only), the current directory the shared run directory, with ./cases:
# one "NAME RATE PERF-ARGS..." per line. tests/vm/nvmf.sh gives the wire,
# rxe, the recording and the hand-shake files.
TR=rdma
. "$TOP/tests/vm/nvmf.sh"
. "$TOP/tests/spdk/nvmf_tgt.sh"

# SPDK's shared memory wants /dev/shm, which the guests do not mount
spdk_init() {
	guest_init "$1" && mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm &&
		wire "$2" && rxe
}

spdk_target_main() {
	spdk_init target 10.0.0.2 || return 1
	# under qemu's emulation SPDK takes its time to start
	nvmf_tgt_up 0x1 nvmf_tgt.log 300 && nvmf_export rdma 10.0.0.2 || return 1
	touch target.up
	while read -r name rate args; do
		rec target "$name-t" -s "$rate" --spdk-target "$S/build/bin/nvmf_tgt" ||
			{ echo "$name: no target recording" >&2; return 1; }
		touch "$name.t-ready"
		wait_file "$name.h-done" 900 || return 1
		kill -INT $REC && wait $REC && cp "$DB/$name-t.db" .
	done <cases
	wait_file host.done 120
	kill $tgt
	wait $tgt
	return 0
}

spdk_host_main() {
	spdk_init host 10.0.0.1 || return 1
	wait_file target.up 900 || return 1
	while read -r name rate args; do
		wait_file "$name.t-ready" 900 || return 1
		rec host "$name-h" -s "$rate" --wait --spdk-host "$S/build/bin/spdk_nvme_perf" ||
			{ echo "$name: no host recording" >&2; return 1; }
		# shellcheck disable=SC2086 # the case's perf arguments, split
		"$S/build/bin/spdk_nvme_perf" --no-huge -s 1024 -c 0x1 $args \
			-r "trtype:RDMA adrfam:IPv4 traddr:10.0.0.2 trsvcid:4420 subnqn:$NQN" \
			>"$name-perf.log" 2>&1
		kill -INT $REC && wait $REC && cp "$DB/$name-h.db" .
		touch "$name.h-done"
	done <cases
	touch host.done
}
