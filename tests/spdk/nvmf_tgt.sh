# SPDX-License-Identifier: BSD-2-Clause
#
# Sourced by tests/spdk/verify.sh and tests/spdk/rdma_guest.sh: the one
# nvmf_tgt set-up both transports use. $S is the SPDK build.
NQN=nqn.2016-06.io.spdk:cnode1
RPC="/usr/bin/python3 $S/scripts/rpc.py"
# a build --with-shared: its programs load the SPDK libraries from build/lib
export LD_LIBRARY_PATH="$S/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# nvmf_tgt_up CPUMASK LOG SECS: start nvmf_tgt (its pid in $tgt; under
# $TGT_WRAP, such as "taskset -c 0", if set; with $TGT_ARGS, such as its
# tracing's options, if set) and wait up to SECS for its RPC socket; 1 if
# it exits or never answers.
nvmf_tgt_up() {
	# shellcheck disable=SC2086 # TGT_ARGS: words
	${TGT_WRAP:-} "$S/build/bin/nvmf_tgt" --no-huge -s 1024 -m "$1" ${TGT_ARGS:-} >"$2" 2>&1 &
	tgt=$!
	_n=0
	until $RPC rpc_get_methods >/dev/null 2>&1; do
		kill -0 $tgt 2>/dev/null || { echo "nvmf_tgt exited:" >&2; cat "$2" >&2; return 1; }
		_n=$((_n + 1))
		[ $_n -le $(($3 * 5)) ] || { echo "nvmf_tgt: no RPC after $3 s" >&2; return 1; }
		sleep 0.2
	done
}

# nvmf_export TR ADDR: a 64 MiB Malloc bdev as namespace 1 of $NQN, any
# host allowed, listening on ADDR port 4420 over TR (tcp or rdma).
nvmf_export() {
	$RPC nvmf_create_transport -t "$1" >/dev/null &&
		$RPC bdev_malloc_create -b Malloc0 64 4096 >/dev/null &&
		$RPC nvmf_create_subsystem $NQN -a -s SPDK00000000000001 >/dev/null &&
		$RPC nvmf_subsystem_add_ns $NQN Malloc0 >/dev/null &&
		$RPC nvmf_subsystem_add_listener $NQN -t "$1" -a "$2" -s 4420 -f ipv4 >/dev/null ||
		{ echo "cannot configure nvmf_tgt (rpc.py)" >&2; return 1; }
}
