# SPDX-License-Identifier: BSD-2-Clause
#
# Sourced by tests/spdk/verify.sh (and tests/spdk/build_test.sh): whether
# $S is an SPDK build ntprof can record, static or --with-shared. A static
# build has the ntprof USDT probes in build/bin/nvmf_tgt and
# build/bin/spdk_nvme_perf; a shared one in build/lib/libspdk_nvmf.so
# (the target's) and build/lib/libspdk_nvme.so (the host's), which those
# binaries load (spdk-patch/README.md), from build/lib.

# ntprof_probes FILE: 0 when FILE has the ntprof USDT probes.
ntprof_probes() {
	readelf -n "$1" 2>/dev/null | grep -q "Provider: ntprof"
}

# needs BIN LIB: 0 when BIN names LIB (libspdk_nvmf.so) among its needed
# libraries, under any version suffix.
needs() {
	readelf -d "$1" 2>/dev/null | grep "(NEEDED)" | grep -q "\[$2[].]"
}

# spdk_build_check: 0 when $S/build/bin/nvmf_tgt and spdk_nvme_perf are
# there and each has the probes, itself or in the library it loads; sets
# SPDK_SHARED to 1 for a shared build (then LD_LIBRARY_PATH must name
# $S/build/lib). Else 1, with why on stderr.
spdk_build_check() {
	SPDK_SHARED=0
	for _b in nvmf_tgt:libspdk_nvmf.so spdk_nvme_perf:libspdk_nvme.so; do
		_bin=$S/build/bin/${_b%%:*} _lib=$S/build/lib/${_b#*:}
		if [ ! -x "$_bin" ]; then
			echo "$_bin: not found: give the directory of an SPDK build (make done there)" >&2
			return 1
		fi
		ntprof_probes "$_bin" && continue
		if needs "$_bin" "${_b#*:}"; then
			if ntprof_probes "$_lib"; then
				SPDK_SHARED=1
				continue
			fi
			echo "$_lib (which $_bin loads) has no ntprof USDT probes: apply spdk-patch/ntprof.patch and configure --with-usdt" >&2
			return 1
		fi
		echo "$_bin has no ntprof USDT probes: apply spdk-patch/ntprof.patch and configure --with-usdt" >&2
		return 1
	done
}
