#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# A small harness for Linux guests under qemu (TCG: no KVM here), for the
# kernel NVMe-oF tests (issue 4). The guest boots Debian's own kernel
# (linux-image-amd64, with nvme-tcp, nvmet-tcp, module BTF) and runs the
# host's binaries: the host's / is its root, read-only over virtio-9p with
# a tmpfs overlay. A run directory is shared read-write at /run/vm.
#
#   sh tests/vm/vm.sh prepare        kernel, modules and initramfs into .output/vm
#   sh tests/vm/vm.sh run DIR [SECS] boot a guest that runs DIR/guest.sh;
#                                    prints its output, exits with its status
#
# A guest that crashes or hangs (no status after SECS, default 300) fails
# with a message, never passes. Nothing is installed on the host: the kernel
# package is downloaded and unpacked into .output/vm.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/.output/vm

die() { echo "vm: $*" >&2; exit 1; }

kernel_pkg() { apt-cache depends linux-image-amd64 | sed -n 's/.*Depends: \(linux-image-[^ ]*\)/\1/p' | head -1; }

prepare() {
	pkg=$(kernel_pkg)
	if [ -z "$pkg" ]; then # no package lists yet on a fresh machine
		apt-get update -qq >/dev/null 2>&1 || true
		pkg=$(kernel_pkg)
	fi
	[ -n "$pkg" ] || die "no linux-image-amd64 in the package lists (apt-get update?)"
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
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -d "$vm/k" -S "$ver" --show-depends "$m" | awk '{ print $2 }'
	done | sort -u | while read -r f; do
		rel=${f#"$vm"/k/}
		mkdir -p "$ird/$(dirname "$rel")"
		cp "$f" "$ird/$rel"
	done
	cp "$vm/k/lib/modules/$ver/modules.dep" "$ird/lib/modules/$ver/"
	echo "$vm/k/lib/modules" > "$ird/modules_dir"
	cp "$top/tests/vm/init" "$ird/init"
	chmod +x "$ird/init"
	(cd "$ird" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$vm/initrd.gz"
	echo "$ver" > "$vm/version"
	echo "vm: kernel $ver ready in $vm"
}

run() {
	dir=$(cd "$1" && pwd)
	secs=${2:-300}
	[ -f "$vm/version" ] || die "not prepared: run 'sh tests/vm/vm.sh prepare' first"
	[ -f "$dir/guest.sh" ] || die "$dir/guest.sh: no guest script"
	ver=$(cat "$vm/version")
	rm -f "$dir/rc" "$dir/out"
	timeout "$secs" qemu-system-x86_64 -m 2048 -smp 2 -nographic -no-reboot \
		-kernel "$vm/k/boot/vmlinuz-$ver" -initrd "$vm/initrd.gz" \
		-append "console=ttyS0 quiet tsc=reliable panic=-1" \
		-fsdev "local,id=host,path=/,security_model=none,readonly=on" \
		-device virtio-9p-pci,fsdev=host,mount_tag=host0 \
		-fsdev "local,id=run,path=$dir,security_model=none" \
		-device virtio-9p-pci,fsdev=run,mount_tag=run0 >"$dir/console" 2>&1 || true
	if [ ! -f "$dir/rc" ]; then
		echo "vm: the guest ended without a status (crash, or more than $secs s); its console:" >&2
		tail -20 "$dir/console" >&2
		[ -f "$dir/out" ] && { echo "vm: its output:" >&2; tail -20 "$dir/out" >&2; }
		exit 1
	fi
	cat "$dir/out"
	exit "$(cat "$dir/rc")"
}

case ${1:-} in
prepare) prepare ;;
run) [ $# -ge 2 ] || die "usage: vm.sh run DIR [SECS]"; run "$2" "${3:-300}" ;;
*) die "usage: vm.sh prepare | run DIR [SECS]" ;;
esac
