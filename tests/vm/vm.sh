#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# A small harness for Linux guests under qemu (TCG: no KVM here), for the
# kernel NVMe-oF tests. The guest boots Debian's own kernel
# (linux-image-amd64, with nvme-tcp, nvmet-tcp, module BTF) and runs the
# host's binaries: the host's / is its root, read-only over virtio-9p with
# a tmpfs overlay. A run directory is shared read-write at /run/vm.
#
#   sh tests/vm/vm.sh prepare        kernel, modules and initramfs into
#                                    .output/vm/$VM_KERNEL
#   sh tests/vm/vm.sh version        the prepared kernel's release
#   sh tests/vm/vm.sh run DIR [SECS] boot a guest that runs DIR/$VM_NAME.sh
#                                    (VM_NAME: default guest); prints its
#                                    output, exits with its status
#
# VM_KERNEL names the Debian meta-package whose kernel the guests boot:
# linux-image-amd64 (the default, 6.1 on Debian 12) or linux-image-6.12-amd64.
# Each is prepared in its own directory, so both can be used side by side.
#
# VM_NET="LOCAL REMOTE" gives the guest a virtio-net NIC (eth0) on a qemu UDP
# socket: it sends to 127.0.0.1:REMOTE and receives on 127.0.0.1:LOCAL, so
# two guests with swapped ports share a private wire. VM_MAC sets its MAC,
# VM_SMP its CPUs (default 2), VM_MEM its memory in MiB (default 2048),
# VM_CPU qemu's -cpu model (`max` runs programs built for newer x86-64
# levels than qemu's default model, such as SPDK and Debian's DPDK, which
# use SSE4 and AVX).
# Addresses are the guest script's business (inside the guests only).
#
# A guest that crashes or hangs (no status after SECS, default 300) fails
# with a message, never passes. A kernel that crashes while it boots, before
# the guest script starts, is booted again (at most 3 boots), and says so. Nothing is installed on the host: the kernel
# package is downloaded and unpacked into .output/vm.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
kmeta=${VM_KERNEL:-linux-image-amd64}
case $kmeta in
linux-image-*) ;;
*) echo "vm: VM_KERNEL=$kmeta: not a linux-image-* package" >&2; exit 1 ;;
esac
vm=$top/.output/vm/$kmeta

die() { echo "vm: $*" >&2; exit 1; }

kernel_pkg() { apt-cache depends "$kmeta" | sed -n 's/.*Depends: \(linux-image-[^ ]*\)/\1/p' | head -1; }

prepare() {
	pkg=$(kernel_pkg)
	if [ -z "$pkg" ]; then # no package lists yet on a fresh machine
		apt-get update -qq >/dev/null 2>&1 || true
		pkg=$(kernel_pkg)
	fi
	[ -n "$pkg" ] || die "no $kmeta in the package lists (apt-get update?)"
	ver=${pkg#linux-image-}
	if [ ! -f "$vm/k/boot/vmlinuz-$ver" ]; then
		rm -rf "$vm" && mkdir -p "$vm"
		(cd "$vm" && apt-get download -q "$pkg" >/dev/null 2>&1) || die "cannot download $pkg"
		dpkg-deb -x "$vm"/"$pkg"_*.deb "$vm/k" || die "cannot unpack $pkg"
		rm -f "$vm"/"$pkg"_*.deb
		depmod -b "$vm/k" "$ver" || die "depmod failed"
	fi
	# the initramfs: static busybox, the modules to mount the root, init
	ird=$vm/initramfs
	rm -rf "$ird" && mkdir -p "$ird/bin" "$ird/proc" "$ird/sys" "$ird/dev" "$ird/newroot"
	# static (package busybox-static): the initramfs has no libc
	cp "$(command -v busybox)" "$ird/bin/busybox"
	# a module built into the kernel shows as "builtin NAME": nothing to copy
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -d "$vm/k" -S "$ver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
	done | sort -u | while read -r f; do
		rel=${f#"$vm"/k/}
		mkdir -p "$ird/$(dirname "$rel")"
		cp "$f" "$ird/$rel"
	done
	mkdir -p "$ird/lib/modules/$ver"
	cp "$vm/k/lib/modules/$ver/modules.dep" "$vm/k/lib/modules/$ver/modules.builtin" \
		"$ird/lib/modules/$ver/"
	echo "$vm/k/lib/modules" > "$ird/modules_dir"
	cp "$top/tests/vm/init" "$ird/init"
	chmod +x "$ird/init"
	(cd "$ird" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$vm/initrd.gz"
	unpack_vmlinux "$vm/k/boot/vmlinuz-$ver" "$vm/vmlinux"
	echo "$ver" > "$vm/version"
	echo "vm: kernel $ver ready in $vm"
}

# The ELF kernel inside the bzImage: qemu boots it directly (PVH entry),
# which with qboot is seconds faster under TCG than the bzImage with SeaBIOS.
# The payload's offset and length are in the boot protocol header; it is xz
# (Debian's 6.1) or zstd (6.12), told apart by its magic number.
unpack_vmlinux() {
	[ -s "$2" ] && return 0
	python3 - "$1" "$2.payload" <<'PY' || die "cannot read the payload of $1"
import struct, sys
d = open(sys.argv[1], 'rb').read()
pm = (d[0x1f1] + 1) * 512
off, ln = struct.unpack_from('<II', d, 0x248)
open(sys.argv[2], 'wb').write(d[pm + off:pm + off + ln])
PY
	case $(od -An -tx1 -N4 "$2.payload" | tr -d ' ') in
	fd377a58) unpack=xz ;;
	28b52ffd) unpack=zstd ;;
	*) die "$1: the kernel payload is neither xz nor zstd" ;;
	esac
	# xz stops at the payload's end with an error the ELF check makes moot
	$unpack -dcq "$2.payload" >"$2.tmp" 2>/dev/null || true
	rm -f "$2.payload"
	[ "$(head -c 4 "$2.tmp" | od -An -c | tr -d ' ')" = "177ELF" ] ||
		die "cannot unpack vmlinux from $1 ($unpack payload)"
	mv "$2.tmp" "$2"
}

run() {
	dir=$(cd "$1" && pwd)
	secs=${2:-300}
	name=${VM_NAME:-guest}
	[ -f "$vm/version" ] || die "not prepared: run 'sh tests/vm/vm.sh prepare' first"
	[ -f "$dir/$name.sh" ] || die "$dir/$name.sh: no guest script"
	rm -f "$dir/$name.rc" "$dir/$name.out"
	set -- # qemu's options, each added to those before it
	[ -n "${VM_CPU:-}" ] && set -- -cpu "$VM_CPU"
	if [ -n "${VM_NET:-}" ]; then
		set -- "$@" -netdev "socket,id=n0,udp=127.0.0.1:${VM_NET#* },localaddr=127.0.0.1:${VM_NET% *}" \
			-device "virtio-net-pci,netdev=n0,mac=${VM_MAC:-52:54:00:12:34:56}"
	else
		set -- "$@" -nic none # no NIC, unless asked
	fi
	# A kernel that crashes while it boots, before the guest script has
	# started (no $name.out yet), is booted again, at most $boots times in
	# all, and each such crash is said. Under TCG with two vCPUs, the
	# kernel's live patching of its own code at boot (static keys, int3)
	# has been seen to trap in the patched instruction. A crash once the
	# script runs is the test's, and fails it.
	boots=3 boot=1
	while :; do
		timeout "$secs" qemu-system-x86_64 -m "${VM_MEM:-2048}" -smp "${VM_SMP:-2}" -nographic -no-reboot \
			-bios /usr/share/qemu/qboot.rom -kernel "$vm/vmlinux" -initrd "$vm/initrd.gz" \
			-append "console=ttyS0 quiet tsc=reliable panic=-1 ntprof.guest=$name" "$@" \
			-fsdev "local,id=host,path=/,security_model=none,readonly=on,multidevs=remap" \
			-device virtio-9p-pci,fsdev=host,mount_tag=host0 \
			-fsdev "local,id=run,path=$dir,security_model=none" \
			-device virtio-9p-pci,fsdev=run,mount_tag=run0 >"$dir/$name.console" 2>&1 || true
		[ ! -f "$dir/$name.rc" ] && [ ! -f "$dir/$name.out" ] && [ "$boot" -lt "$boots" ] &&
			grep -q "Kernel panic" "$dir/$name.console" || break
		echo "vm: guest $name: its kernel crashed while booting, before its script started" \
			"(boot $boot of at most $boots); booting it again. Its console:" >&2
		grep -E "Oops|RIP:|Kernel panic" "$dir/$name.console" | head -5 >&2
		mv "$dir/$name.console" "$dir/$name.console.$boot"
		boot=$((boot + 1))
	done
	if [ ! -f "$dir/$name.rc" ]; then
		echo "vm: guest $name ended without a status (crash, or more than $secs s); its console:" >&2
		tail -20 "$dir/$name.console" >&2
		[ -f "$dir/$name.out" ] && { echo "vm: its output:" >&2; tail -20 "$dir/$name.out" >&2; }
		exit 1
	fi
	cat "$dir/$name.out"
	exit "$(cat "$dir/$name.rc")"
}

case ${1:-} in
prepare) prepare ;;
version) [ -f "$vm/version" ] || die "$kmeta: not prepared"; cat "$vm/version" ;;
run) [ $# -ge 2 ] || die "usage: vm.sh run DIR [SECS]"; run "$2" "${3:-300}" ;;
*) die "usage: vm.sh prepare | version | run DIR [SECS]" ;;
esac
