#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# Faults, as root on this machine's kernel: each case asserts what was
# stored, what was said and the exit status (docs/reliability.md).
#
#   sudo sh tests/fault_test.sh        (make check runs it)

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/.output
COLLECT=$top/ntprof-collect
FLOOD=$out/usdt_flood

# run under sudo or not, the same: the cases that need SUDO_UID set it
unset SUDO_UID SUDO_GID SUDO_USER

TEST=fault_test
. "$top/tests/testlib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "fault_test: needs root (BPF, tmpfs mounts): run make check as root" >&2
	bad "not root"
	finish
fi
for f in "$COLLECT" "$FLOOD"; do
	[ -x "$f" ] || { bad "$f: not built (run make first)"; finish; }
done

d=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-fault-test.XXXXXX") || exit 1
# Prepared runs (lib/cache.c) in the test's directory: the cache is on, as
# for users, and never the user's own; a long preparation's note on stderr
# is tested in cache_test.sh, not here.
export NTPROF_CACHE_DIR="$d/cache" NTPROF_PREPARE_NOTE_AFTER=3600
pids=""
mounts=""
cleanup() {
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	for m in $mounts; do umount "$m" 2>/dev/null; done
	[ -n "${KEEP:-}" ] && echo "kept $d" >&2 || rm -rf "$d"
}
trap cleanup EXIT INT TERM

# A full disk while recording: a 2 MiB file system, -s 1 at 20k records
# a second. The collector stops at the first write error with exit 1,
# says why, how many records are in the file and how many are not, and
# leaves a file that passes the integrity check and holds exactly that
# many (with its -wal, if it says the -wal must travel with it).
echo "== disk full"
mkdir "$d/full"
if mount -t tmpfs -o size=2m tmpfs "$d/full"; then
	mounts="$d/full"
	"$FLOOD" 10 20000 >"$d/flood.log" 2>&1 &
	flood=$!
	pids="$pids $flood"
	wait_for "$d/flood.log" "ready" 10 || bad "disk full: the load did not start"
	"$COLLECT" record -r target -t tcp -s 1 -i 1 -q --spdk-target "$FLOOD" \
		-o "$d/full/f.db" >"$d/full.out" 2>"$d/full.err" &
	col=$!
	pids="$pids $col"
	wait_exit "$col" 60
	expect "disk full: exit status" $? 1
	kill "$flood" 2>/dev/null
	grep -q "^ntprof: writing $d/full/f.db failed: database or disk is full" "$d/full.err" && ok ||
		bad "disk full: no line saying why: $(cat "$d/full.err")"
	expect "disk full: one error line about writing" "$(grep -c "failed" "$d/full.err")" 1
	n=$(sed -n 's/^ntprof: \([0-9]*\) records are in .*; \([0-9]*\) records after its last commit were not stored$/\1/p' "$d/full.err")
	[ "${n:-0}" -gt 0 ] && ok || bad "disk full: no count of the records stored: $(cat "$d/full.err")"
	# read a copy, as a user would who was sent it (with its -wal when told)
	mkdir "$d/copy"
	cp "$d/full/f.db" "$d/copy/"
	if grep -q "f.db-wal holds part of the recording" "$d/full.err"; then
		cp "$d/full/f.db-wal" "$d/copy/" || bad "disk full: the -wal it names is not there"
	else
		[ ! -e "$d/full/f.db-wal" ] && ok || bad "disk full: a -wal is left, and nothing said so"
	fi
	expect "disk full: integrity" "$(sqlite3 "$d/copy/f.db" 'PRAGMA integrity_check')" ok
	expect "disk full: records in the file = records it says" \
		"$(sqlite3 "$d/copy/f.db" 'SELECT count(*) FROM cmd')" "${n:-?}"
	expect "disk full: no stop time (cut short)" \
		"$(sqlite3 "$d/copy/f.db" 'SELECT mono_stop IS NULL FROM meta')" 1
	wait_exit "$flood" 20 >/dev/null
	umount "$d/full" && mounts=""
else
	bad "disk full: cannot mount a tmpfs"
fi

# A recording not closed read with TMPDIR on a full file system: its
# private copy does not fit, and ENOSPC is said as such, before the copy.
echo "== TMPDIR full"
mkdir "$d/tmpfull" "$d/wal"
if mount -t tmpfs -o size=64k tmpfs "$d/tmpfull"; then
	mounts="$mounts $d/tmpfull"
	"$top/tests/ntprof-gen" -o "$d/g.db" -t "$d/g-t.db" -s 1 -n 1 -r 500 >/dev/null 2>&1 &&
		walled "$d/g.db" "$d/wal/h.db" || bad "TMPDIR full: cannot make the recording"
	TMPDIR=$d/tmpfull "$top/ntprof" report "$d/wal/h.db" >"$d/tmpfull.out" 2>"$d/tmpfull.err"
	expect "TMPDIR full: exit status" $? 1
	grep -q "^ntprof report: $d/wal/h.db: cannot make a private copy in $d/tmpfull: No space left on device" \
		"$d/tmpfull.err" && ok || bad "TMPDIR full: ENOSPC not said: $(cat "$d/tmpfull.err")"
	expect "TMPDIR full: nothing left in it" "$(ls -A "$d/tmpfull")" ""
	umount "$d/tmpfull" && mounts=${mounts% $d/tmpfull}
else
	bad "TMPDIR full: cannot mount a tmpfs"
fi

# A file size limit (RLIMIT_FSIZE, 1 MiB) reached while recording: the
# write fails (SIGXFSZ is ignored, not fatal) and ends the recording as a
# full disk does: exit 1, said, the file readable with what it says.
echo "== file size limit"
"$FLOOD" 10 20000 >"$d/fsize-flood.log" 2>&1 &
flood=$!
pids="$pids $flood"
wait_for "$d/fsize-flood.log" "ready" 10 || bad "file size limit: the load did not start"
(ulimit -f 2048 && exec "$COLLECT" record -r target -t tcp -s 1 -i 1 -q --spdk-target "$FLOOD" \
	-o "$d/fsize.db") >"$d/fsize.out" 2>"$d/fsize.err" &
col=$!
pids="$pids $col"
wait_exit "$col" 60
expect "file size limit: exit status" $? 1
# (SQLite says "disk I/O error" for EFBIG)
grep -q "^ntprof: writing $d/fsize.db failed: " "$d/fsize.err" && ok ||
	bad "file size limit: no line saying why: $(cat "$d/fsize.err")"
n=$(sed -n 's/^ntprof: \([0-9]*\) records are in .*$/\1/p' "$d/fsize.err")
[ "${n:-0}" -gt 0 ] && ok || bad "file size limit: no count of the records stored"
expect "file size limit: integrity" "$(sqlite3 "$d/fsize.db" 'PRAGMA integrity_check')" ok
expect "file size limit: records in the file = records it says" \
	"$(sqlite3 "$d/fsize.db" 'SELECT count(*) FROM cmd')" "${n:-?}"
kill "$flood" 2>/dev/null
wait_exit "$flood" 20 >/dev/null

# A file system out of inodes: room for the file (and its -wal) but not
# for what SQLite makes next. The start fails with exit 1, says why, and
# leaves nothing behind: no 0-byte file, no -wal.
echo "== out of inodes"
"$FLOOD" 1 1000 >"$d/inodes-flood.log" 2>&1 &
flood=$!
pids="$pids $flood"
wait_for "$d/inodes-flood.log" "ready" 10 || bad "out of inodes: the load did not start"
for n in 2 3; do
	mkdir "$d/inodes$n"
	if ! mount -t tmpfs -o "nr_inodes=$n,size=1m" tmpfs "$d/inodes$n"; then
		bad "out of inodes: cannot mount a tmpfs"
		continue
	fi
	mounts="$mounts $d/inodes$n"
	"$COLLECT" record -r target -t tcp -s 1 -i 1 -q --spdk-target "$FLOOD" \
		-o "$d/inodes$n/f.db" >"$d/inodes.out" 2>"$d/inodes.err"
	expect "out of inodes ($n): exit status" $? 1
	grep -q "f.db: cannot write the database: .*(its file system has no free inodes)$" "$d/inodes.err" && ok ||
		bad "out of inodes ($n): no line saying why: $(cat "$d/inodes.err")"
	expect "out of inodes ($n): left behind" "$(ls -A "$d/inodes$n")" ""
	umount "$d/inodes$n" && mounts=${mounts% $d/inodes$n}
done
kill "$flood" 2>/dev/null
wait_exit "$flood" 20 >/dev/null

finish
