#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# tests/spdk/build.sh without SPDK: small trees shaped like SPDK builds,
# their programs and libraries compiled here with or without a USDT probe
# of provider ntprof (<sys/sdt.h>), checked as verify.sh checks a build.
#
#   sh tests/spdk/build_test.sh        (make check-unit runs it)

top=$(cd "$(dirname "$0")/../.." && pwd)
TEST=build_test
. "$top/tests/testlib.sh"
. "$top/tests/spdk/build.sh"

d=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-spdk-build.XXXXXX") || exit 1
trap 'rm -rf "$d"' EXIT INT TERM
CC=${CC:-cc}

cat >"$d/probe.c" <<'C'
#include <sys/sdt.h>
int ntprof_sample_rate;
void lib_done(void) { DTRACE_PROBE1(ntprof, done, ntprof_sample_rate); }
C
cat >"$d/plain.c" <<'C'
int spdk_other;
void lib_done(void) { spdk_other++; }
C
cat >"$d/main.c" <<'C'
void lib_done(void);
int main(void) { lib_done(); return 0; }
C

# tree NAME KIND: $d/NAME/build/{bin,lib}. KIND static: the probes in the
# programs; shared: in libspdk_nvmf.so.N and libspdk_nvme.so.N, which the
# programs load; shared-bare: those libraries without probes; bare: a
# static build without them.
tree() {
	t=$d/$1/build
	mkdir -p "$t/bin" "$t/lib"
	case $2 in
	static | bare)
		src=probe.c
		[ "$2" = bare ] && src=plain.c
		for b in nvmf_tgt spdk_nvme_perf; do
			$CC -o "$t/bin/$b" "$d/main.c" "$d/$src" || return 1
		done
		;;
	shared | shared-bare)
		src=probe.c
		[ "$2" = shared-bare ] && src=plain.c
		for l in nvmf:nvmf_tgt nvme:spdk_nvme_perf; do
			so=libspdk_${l%%:*}.so
			$CC -shared -fPIC -Wl,-soname,$so.9.0 -o "$t/lib/$so.9.0" "$d/$src" &&
				ln -s "$so.9.0" "$t/lib/$so" &&
				$CC -o "$t/bin/${l#*:}" "$d/main.c" -L"$t/lib" -l"spdk_${l%%:*}" || return 1
		done
		;;
	esac
}

# check NAME: spdk_build_check on tree NAME; its status, SPDK_SHARED and
# its message in $why
check() {
	S=$d/$1
	why=$(spdk_build_check 2>&1)
	rc=$?
	spdk_build_check 2>/dev/null # again, in this shell: SPDK_SHARED
	shared=$SPDK_SHARED
	return $rc
}

tree static static || bad "cannot compile the static tree"
tree shared shared || bad "cannot compile the shared tree"
tree bare bare || bad "cannot compile the tree without probes"
tree shared-bare shared-bare || bad "cannot compile the shared tree without probes"
mkdir -p "$d/empty"

check static
expect "static: taken" $? 0
expect "static: not shared" "$shared" 0

check shared
expect "shared: taken" $? 0
expect "shared: shared" "$shared" 1
# and its programs run with build/lib on the library path, as nvmf_tgt.sh sets it
(. "$top/tests/spdk/nvmf_tgt.sh" && "$S/build/bin/nvmf_tgt") && ok ||
	bad "shared: nvmf_tgt does not run with nvmf_tgt.sh's LD_LIBRARY_PATH"

check bare
expect "bare: refused" $? 1
expect "bare: why" "$why" \
	"$d/bare/build/bin/nvmf_tgt has no ntprof USDT probes: apply spdk-patch/ntprof.patch and configure --with-usdt"

check shared-bare
expect "shared without probes: refused" $? 1
expect "shared without probes: why" "$why" \
	"$d/shared-bare/build/lib/libspdk_nvmf.so (which $d/shared-bare/build/bin/nvmf_tgt loads) has no ntprof USDT probes: apply spdk-patch/ntprof.patch and configure --with-usdt"

check empty
expect "no build: refused" $? 1
expect "no build: why" "$why" \
	"$d/empty/build/bin/nvmf_tgt: not found: give the directory of an SPDK build (make done there)"

finish
