#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# tests/vm/vm.sh's rule for a guest kernel that crashes: booted again only
# when it crashed before the guest script started, at most 3 boots in all,
# each said; a crash once the script runs fails at once. A stand-in for
# qemu-system-x86_64 on PATH plays the kernel (a panic on its console, the
# script's .out and .rc in the run directory), so this needs no kernel.
top=$(cd "$(dirname "$0")/../.." && pwd)
TEST=boot_retry_test
. "$top/tests/testlib.sh"

kmeta=linux-image-ntprof-boot-retry-test
vmdir=$top/.output/vm/$kmeta
d=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-vm-retry.XXXXXX") || exit 1
trap 'rm -rf "$d" "$vmdir"' EXIT INT TERM
mkdir -p "$vmdir" "$d/bin" "$d/run" && echo 0.0-test >"$vmdir/version"

# The stand-in: boots number 1..PANICS panic before the script; then the
# script starts (its .out), and with CRASH=1 the kernel panics there.
cat >"$d/bin/qemu-system-x86_64" <<'QEMU'
#!/bin/sh
for a; do
	case $a in
	local,id=run,path=*) run=${a#local,id=run,path=}; run=${run%%,*} ;;
	*ntprof.guest=*) name=${a##*ntprof.guest=} ;;
	esac
done
n=$(($(cat "$run/boots" 2>/dev/null || echo 0) + 1))
echo $n >"$run/boots"
if [ "$n" -le "$PANICS" ]; then
	printf '[    1.96] Oops: int3: 0000 [#2] PREEMPT SMP NOPTI\n[    1.96] RIP: 0010:sched_clock_cpu+0x9/0x190\n[    1.96] Kernel panic - not syncing: Fatal exception in interrupt\n'
	exit 0
fi
echo "the script ran" >"$run/$name.out"
if [ "${CRASH:-0}" = 1 ]; then
	echo "[   20.00] Kernel panic - not syncing: in the script"
	exit 0
fi
echo 0 >"$run/$name.rc"
QEMU
chmod +x "$d/bin/qemu-system-x86_64"

# vm_run PANICS [CRASH]: vm.sh run on a fresh run directory; sets out, err, rc
vm_run() {
	rm -rf "$d/run" && mkdir "$d/run" && : >"$d/run/guest.sh"
	PATH=$d/bin:$PATH PANICS=$1 CRASH=${2:-0} VM_KERNEL=$kmeta \
		sh "$top/tests/vm/vm.sh" run "$d/run" 30 >"$d/out" 2>"$d/err"
	rc=$?
	out=$(cat "$d/out")
	boots=$(cat "$d/run/boots")
}

vm_run 0
expect "a clean boot: status" "$rc" 0
expect "a clean boot: boots" "$boots" 1
expect "a clean boot: nothing said" "$(cat "$d/err")" ""

vm_run 1
expect "one boot crash: status" "$rc" 0
expect "one boot crash: the script's output" "$out" "the script ran"
expect "one boot crash: boots" "$boots" 2
grep -q "^vm: guest guest: its kernel crashed while booting.*(boot 1 of at most 3)" "$d/err" && ok ||
	bad "one boot crash: not said ($(cat "$d/err"))"
grep -q "RIP: 0010:sched_clock_cpu" "$d/err" && ok || bad "one boot crash: its console not shown"
[ -f "$d/run/guest.console.1" ] && ok || bad "one boot crash: its console not kept"

vm_run 2
expect "two boot crashes: status" "$rc" 0
expect "two boot crashes: boots" "$boots" 3

vm_run 5
expect "every boot crashes: status" "$rc" 1
expect "every boot crashes: boots" "$boots" 3
grep -q "ended without a status" "$d/err" && ok || bad "every boot crashes: no failure said"

vm_run 0 1
expect "a crash in the script: status" "$rc" 1
expect "a crash in the script: boots" "$boots" 1
grep -q "crashed while booting" "$d/err" && bad "a crash in the script taken for a boot crash" || ok
grep -q "ended without a status" "$d/err" && ok || bad "a crash in the script: no failure said"

finish
