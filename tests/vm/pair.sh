# SPDX-License-Identifier: BSD-2-Clause
#
# Sourced on the host machine by the two-guest tests: run_pair DIR SECS boots
# the target and the host guest (one vCPU each: two TCG guests on a 2-core
# machine) on a private UDP wire; they run the cases in DIR/cases
# (tests/vm/nvmf.sh: target_main, host_main). Sets $hrc and $trc, the
# guests' exit statuses; their output is in DIR/host.vm and DIR/target.vm.
# VM_PORT (default 40001) and VM_PORT+1 are the wire's two UDP ports: give
# each concurrent pair its own.
run_pair() {
	_p=${VM_PORT:-40001}
	for g in target host; do
		printf 'TOP=%s\nTR=%s\nHOST=%s\nTARGET=%s\n. $TOP/tests/vm/nvmf.sh\n%s_main\n' \
			"$top" "${TR:-tcp}" "${HOST:-kernel}" "${TARGET:-kernel}" "$g" >"$1/$g.sh"
	done
	VM_SMP=1 VM_NAME=target VM_NET="$_p $((_p + 1))" VM_MAC=52:54:00:00:00:02 \
		sh "$top/tests/vm/vm.sh" run "$1" "$2" >"$1/target.vm" 2>&1 &
	_tvm=$!
	VM_SMP=1 VM_NAME=host VM_NET="$((_p + 1)) $_p" VM_MAC=52:54:00:00:00:01 \
		sh "$top/tests/vm/vm.sh" run "$1" "$2" >"$1/host.vm" 2>&1
	hrc=$?
	wait $_tvm
	trc=$?
}
