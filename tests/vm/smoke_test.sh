#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# The fast VM test: one guest running Debian's kernel serves a
# null_blk device with nvmet-tcp on its own loopback and connects to it with
# nvme-tcp. Asserts that the guest ran the kernel that was prepared, that the
# NVMe/TCP modules carry BTF, that `probe` takes the fentry/tp_btf hooks and
# loads them; then hides the modules' BTF (a kernel without it): `probe`
# says so and fails, and with --btf (types merged by .output/btf_merge) both
# collectors record fio's reads through kprobes and raw tracepoints, every
# command, every point, all matched. Root; about a minute under TCG.
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect() { if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', expected '$3'"; fi; }

if [ "$(id -u)" != 0 ]; then
	echo "vm smoke_test: needs root (qemu's 9p export of /): run make check as root" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
sh "$top/tests/vm/vm.sh" prepare || { echo "0 passed, 1 failed"; exit 1; }
d=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-vm-smoke.XXXXXX") || exit 1
# prepared runs in the test's own cache, none said (lib/cache.c)
export NTPROF_CACHE_DIR="$d/cache" NTPROF_PREPARE_NOTE_AFTER=3600
[ -n "${KEEP:-}" ] && echo "smoke_test: keeping $d" || trap 'rm -rf "$d"' EXIT INT TERM

cat >"$d/guest.sh" <<GUEST
TOP=$top
. \$TOP/tests/vm/nvmf.sh
echo "kernel \$(uname -r)"
guest_init loop
target_up 127.0.0.1 || exit 1
host_up 127.0.0.1 || exit 1
for m in nvme_tcp nvmet_tcp nvme_core nvmet; do
	[ -e /sys/kernel/btf/\$m ] && echo "btf \$m"
done
echo "device \$DEV over \$(cat /sys/class/nvme/nvme0/transport)"
"\$N" probe -r host -t tcp >probe-fentry.out 2>&1
echo "probe_fentry_rc \$?"
# a kernel without module BTF: only vmlinux's is left in /sys/kernel/btf
B=\$TOP/.output/btf_merge
\$B \$DB/host.btf /sys/kernel/btf/vmlinux /sys/kernel/btf/nvme_tcp || exit 1
\$B \$DB/target.btf /sys/kernel/btf/vmlinux /sys/kernel/btf/nvmet_tcp || exit 1
mkdir -p /mnt/btf && cp /sys/kernel/btf/vmlinux /mnt/btf/ && mount --bind /mnt/btf /sys/kernel/btf
"\$N" probe -r host -t tcp >probe-nobtf.out 2>&1
echo "probe_nobtf_rc \$?"
"\$N" probe -r host -t tcp --btf \$DB/host.btf >probe-btf.out 2>&1
echo "probe_btf_rc \$?"
rec target loop-target -s 1 --btf \$DB/target.btf || exit 1
t=\$REC
rec host loop-host -s 1 --btf \$DB/host.btf || exit 1
io loop randread 4k 3 </dev/null
rec_stop loop-host || exit 1
REC=\$t
rec_stop loop-target || exit 1
nvme disconnect -n \$NQN
GUEST

out=$(sh "$top/tests/vm/vm.sh" run "$d" 600)
rc=$?
echo "$out" | sed 's/^/  guest: /'
[ $rc -eq 0 ] && ok || bad "the guest script failed (exit $rc)"
echo "$out" | grep -q "^kernel $(sh "$top/tests/vm/vm.sh" version)$" && ok || bad "not the prepared kernel"
for m in nvme_tcp nvmet_tcp; do
	echo "$out" | grep -q "^btf $m$" && ok || bad "no module BTF for $m"
done
echo "$out" | grep -q "^device /dev/nvme.*n1 over tcp$" && ok || bad "no NVMe/TCP device"

echo "== probe with module BTF, without it, with --btf"
expect "probe with module BTF: exit" "$(echo "$out" | sed -n 's/^probe_fentry_rc //p')" 0
for want in "^ok ntp_k_queue_rq fentry nvme_tcp_queue_rq" "^ok ntp_k_setup_cmd tp_btf" "^load: ok"; do
	grep -q "$want" "$d/probe-fentry.out" && ok || bad "probe: no line '$want'"
done
expect "probe without module BTF: exit" "$(echo "$out" | sed -n 's/^probe_nobtf_rc //p')" 1
grep -q "no BTF for nvme_tcp in /sys/kernel/btf.*give --btf FILE" "$d/probe-nobtf.out" && ok ||
	{ bad "probe without module BTF: no clear error"; cat "$d/probe-nobtf.out" >&2; }
expect "probe with --btf: exit" "$(echo "$out" | sed -n 's/^probe_btf_rc //p')" 0
for want in "^ok ntp_k_queue_rq_kp kprobe nvme_tcp_queue_rq" "^ok ntp_k_setup_cmd_raw raw_tp" \
	"^load: ok"; do
	grep -q "$want" "$d/probe-btf.out" && ok || bad "probe --btf: no line '$want'"
done

echo "== recorded through kprobes and raw_tp (--btf)"
h=$d/loop-host.db t=$d/loop-target.db
ios=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["total_ios"])' \
	"$d/loop.fio" 2>/dev/null)
[ "${ios:-0}" -ge 100 ] && ok || bad "fio read ${ios:-no} I/Os over NVMe/TCP"
expect "host records = fio's I/Os" "$(sqlite3 "$h" 'SELECT count(*) FROM cmd' 2>&1)" "$ios"
expect "target records = fio's I/Os" "$(sqlite3 "$t" 'SELECT count(*) FROM cmd' 2>&1)" "$ios"
expect "host hooks on nvme_tcp taken as kprobes" \
	"$(sqlite3 "$h" "SELECT kind FROM hook WHERE attach_to = 'nvme_tcp_queue_rq'" 2>&1)" kprobe
expect "target tracepoints taken as raw_tp" \
	"$(sqlite3 "$t" "SELECT kind FROM hook WHERE attach_to = 'nvmet:nvmet_req_init'" 2>&1)" raw_tp
expect "host commands without a point" "$(sqlite3 "$h" 'SELECT count(*) FROM cmd WHERE h_start IS NULL
	OR h_queue IS NULL OR h_sent IS NULL OR h_rx IS NULL OR h_rx_drv IS NULL OR h_cqe IS NULL
	OR h_complete IS NULL OR h_end IS NULL' 2>&1)" 0
expect "target commands without a point" "$(sqlite3 "$t" 'SELECT count(*) FROM cmd WHERE t_rx IS NULL
	OR t_cmd IS NULL OR t_exec IS NULL OR t_stor IS NULL OR t_resp IS NULL OR t_sent IS NULL' 2>&1)" 0
expect "all of the host's records matched" "$("$top/ntprof-shell" -c ".mode csv" \
	-c "SELECT matched_pct = 100 FROM ntp_match_stats" "$h" "$t" 2>&1 | tail -1 | tr -d '\r')" 1
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
