#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# The VM harness's smoke test (issue 4, first step): one guest running
# Debian's kernel serves a null_blk device with nvmet-tcp on its own
# loopback, connects to it with nvme-tcp and reads it with fio. Asserts the
# guest ran the kernel that was prepared, that the NVMe/TCP modules carry
# BTF (what the kernel collector will need), and that reads went over
# NVMe/TCP. Root; about a minute under TCG.
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

if [ "$(id -u)" != 0 ]; then
	echo "vm smoke_test: needs root (qemu's 9p export of /): run make check as root" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
sh "$top/tests/vm/vm.sh" prepare || { echo "0 passed, 1 failed"; exit 1; }
d=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-vm-smoke.XXXXXX") || exit 1
trap 'rm -rf "$d"' EXIT INT TERM

cat >"$d/guest.sh" <<'GUEST'
set -e
echo "kernel $(uname -r)"
modprobe null_blk nr_devices=1
modprobe nvmet_tcp
modprobe nvme_tcp
for m in nvme_tcp nvmet_tcp nvme_core nvmet; do
	[ -e /sys/kernel/btf/$m ] && echo "btf $m"
done
mount -t configfs none /sys/kernel/config 2>/dev/null || true
ip link set lo up
c=/sys/kernel/config/nvmet
mkdir $c/subsystems/nqn.2026-11.ntprof:smoke
echo 1 > $c/subsystems/nqn.2026-11.ntprof:smoke/attr_allow_any_host
mkdir $c/subsystems/nqn.2026-11.ntprof:smoke/namespaces/1
echo /dev/nullb0 > $c/subsystems/nqn.2026-11.ntprof:smoke/namespaces/1/device_path
echo 1 > $c/subsystems/nqn.2026-11.ntprof:smoke/namespaces/1/enable
mkdir $c/ports/1
echo tcp > $c/ports/1/addr_trtype
echo ipv4 > $c/ports/1/addr_adrfam
echo 127.0.0.1 > $c/ports/1/addr_traddr
echo 4420 > $c/ports/1/addr_trsvcid
ln -s $c/subsystems/nqn.2026-11.ntprof:smoke $c/ports/1/subsystems/
nvme connect -t tcp -a 127.0.0.1 -s 4420 -n nqn.2026-11.ntprof:smoke
for i in 1 2 3 4 5 6 7 8 9 10; do
	dev=$(ls /dev/nvme*n1 2>/dev/null | head -1)
	[ -n "$dev" ] && break
	sleep 0.5
done
echo "device $dev over $(cat /sys/class/nvme/nvme0/transport)"
fio --name=smoke --filename="$dev" --rw=randread --bs=4k --iodepth=1 --ioengine=psync \
	--direct=1 --runtime=3 --time_based --output-format=terse --terse-version=3 > fio.out
echo "read_kib $(cut -d';' -f6 fio.out)"
nvme disconnect -n nqn.2026-11.ntprof:smoke
GUEST

out=$(sh "$top/tests/vm/vm.sh" run "$d" 600)
rc=$?
echo "$out" | sed 's/^/  guest: /'
[ $rc -eq 0 ] && ok || bad "the guest script failed (exit $rc)"
echo "$out" | grep -q "^kernel $(cat "$top/.output/vm/version")$" && ok || bad "not the prepared kernel"
for m in nvme_tcp nvmet_tcp; do
	echo "$out" | grep -q "^btf $m$" && ok || bad "no module BTF for $m"
done
echo "$out" | grep -q "^device /dev/nvme.*n1 over tcp$" && ok || bad "no NVMe/TCP device"
kib=$(echo "$out" | sed -n 's/^read_kib \([0-9]*\)$/\1/p')
[ "${kib:-0}" -ge 400 ] && ok || bad "fio read ${kib:-no} KiB over NVMe/TCP (100 reads at least expected)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
