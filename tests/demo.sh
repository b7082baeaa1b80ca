#!/bin/sh
# The demo: until ntprof-collect records real I/O (issue 3), a synthetic
# host/target pair from tests/ntprof-gen (SPDK-like NVMe/TCP read at qd 1,
# -s 100, the target's clock hours away and recording longer than the
# host), then the joined report the tutorial prints.
set -e
dir=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-demo-XXXXXX")
trap 'rm -rf "$dir"' EXIT
echo "demo: synthetic recordings (tests/ntprof-gen), not a real capture" >&2
./tests/ntprof-gen -o "$dir/host.ntp" -t "$dir/target.ntp" -s 100 -n 30 -r 12000 \
	-d host=spdk -d target=spdk -H 5,25 -T 0,30 -x 42
./ntprof report "$dir/host.ntp"
echo
./ntprof report --detail "$dir/host.ntp" "$dir/target.ntp"
