#!/bin/sh
# Tests of `ntprof export` and of the fleet recipes of docs/fleet.md, on a
# generated cluster of 16 hosts and 4 targets (tests/ntprof-gen -t four
# times: host i is served by target i mod 4), some commands without the
# target's side and some records lost:
# - the export over recordings and over their merge is the same rows; its
#   options and errors;
# - two ClickHouse servers (Debian's clickhouse-server, plain processes
#   with configurations written here, on free loopback ports) as a
#   two-shard cluster, with sql/clickhouse/schema.sql and views.sql; the
#   merged run loaded in one command (ntprof export --clickhouse), the
#   Distributed tables spreading the hosts over both shards;
# - per host and in total, commands and matched commands are ntprof's;
#   per host, and per operation and size, per target, the means of every
#   stage and of end to end are ntprof's to 1e-9 relative, the p50, p99
#   and p99.9 ntprof's exactly (its rank rule; quantileExact's differs as
#   documented); losses per host and cause are ntprof's;
# - loading the same run again changes nothing; a recording whose load was
#   cut short (its recording row missing) is loaded again and counted once;
# - the DuckDB recipe of docs/fleet.md, run as written on the export's
#   files through npm's @duckdb/node-api, gives ntprof's numbers too;
# - the servers are stopped at the end, and on any exit: none is left.
# Run from the repository root after `make` and `make deps deps-npm`.
set -u
top=$(pwd)
NTPROF=${NTPROF:-$top/ntprof}
SHELL_BIN=${SHELL_BIN:-$top/ntprof-shell}
GEN=${GEN:-$top/tests/ntprof-gen}
CH_SERVER=${CH_SERVER:-/usr/sbin/clickhouse-server}
CH_CLIENT=${CH_CLIENT:-clickhouse-client}
NODE_MODULES=${NODE_MODULES:-$top/.output/npm/node_modules}
# seconds a server may take to answer after it is started
CH_START_TIMEOUT=${CH_START_TIMEOUT:-120}
TEST=fleet_test
. "$top/tests/testlib.sh"

dir=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-fleet-XXXXXX")
# prepared runs in the test's own cache, none said (lib/cache.c)
export NTPROF_CACHE_DIR="$dir/cache" NTPROF_PREPARE_NOTE_AFTER=3600
pids=""
# stop_servers: TERM, then KILL what is still there after 60 s
stop_servers() {
	[ -n "$pids" ] || return 0
	# shellcheck disable=SC2086
	kill -TERM $pids 2>/dev/null
	for p in $pids; do
		wait_exit "$p" 60 > /dev/null 2>&1
	done
	pids=""
}
trap 'stop_servers; rm -rf "$dir"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$dir" || exit 1

for prog in "$CH_SERVER" "$CH_CLIENT"; do
	command -v "$prog" > /dev/null ||
		{ echo "FAIL: $prog: not installed (make deps installs clickhouse-server and clickhouse-client)"; exit 1; }
done

# 1. The cluster: host i (h$i.db) is gen-host(i-1), served by target
# (i-1) mod 4 (t1.db is gen-target, t2.db gen-target1, ...). Targets record
# from 0.05 s on (the hosts' first commands have no target side); 1 % of
# the hosts' sampled records are lost.
set --
for t in 1 2 3 4; do set -- "$@" -t "t$t.db"; done
for i in $(seq 1 16); do set -- "$@" -o "h$i.db"; done
"$GEN" -n 0.5 -r 2000 -w 0.3 -k 16 -T 0.05,1.5 -P 0.01 -x 11 "$@" ||
	{ echo "FAIL: generator"; exit 1; }
hosts=$(for i in $(seq 1 16); do printf 'h%d.db ' "$i"; done)
# shellcheck disable=SC2086
"$NTPROF" merge -o run.ntp $hosts t1.db t2.db t3.db t4.db || { echo "FAIL: merge"; exit 1; }

# q FILE SQL: ntprof-shell's CSV of SQL over FILE..., LF line ends
q() {
	_f=$1
	shift
	"$SHELL_BIN" -csv -c "$1" $_f | tr -d '\r'
}

# 2. The export: the same rows from recordings and from their merge (the
# hosts of gen-target, and it), as CSV and JSON lines; options and errors.
sub="h1.db h5.db h9.db h13.db t1.db"
# shellcheck disable=SC2086
"$NTPROF" merge -o sub.ntp $sub || bad "merge of gen-target's hosts"
mkdir direct merged
for fmt in "" "-j"; do
	# shellcheck disable=SC2086
	"$NTPROF" export $fmt -l sub -o direct/sub $sub > direct.list 2> err.txt
	expect "export $fmt of recordings: exit, stderr" "$?:$(cat err.txt)" "0:"
	"$NTPROF" export $fmt -l sub -o merged/sub sub.ntp > merged.list || bad "export $fmt sub.ntp"
	ext=${fmt:+jsonl}
	ext=${ext:-csv}
	expect "export $fmt: the files it names" "$(cat direct.list)" \
		"$(printf 'direct/sub-%s.%s\n' command "$ext" interval "$ext" lost "$ext" recording "$ext")"
	for t in command interval lost recording; do
		[ -s "direct/sub-$t.$ext" ] && cmp -s "direct/sub-$t.$ext" "merged/sub-$t.$ext" && ok ||
			bad "export $fmt: $t of the recordings and of their merge differ"
	done
	rm -f direct/* merged/*
done
# every host command once, with its run and recordings
"$NTPROF" export -l "a,b \"c\"" run.ntp > command.csv || bad "export to stdout"
want=$(q run.ntp 'SELECT count(*) FROM ntp_host_cmd;' | tail -1)
expect "export: a row per host command" "$(($(wc -l < command.csv) - 1))" "$want"
python3 - command.csv <<'PY' && ok || bad "export: columns of the command rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert all(r["run"] == 'a,b "c"' and r["version"] == "1" for r in rows)
# a recording id: machine/role/wall_start/mono_start; start = wall_start + ht
for r in rows:
    host, role, wall, mono = r["host_recording"].split("/")
    assert host == r["host"] and role == "host", r
    assert int(r["start_ns"]) == int(wall) + int(r["ht"]), r
    assert (r["mode"] == "joined") == (r["target_recording"] != ""), r
    stages = ["host_block", "host_driver", "host_rx", "net_target", "network",
              "target_driver", "storage"]
    assert int(r["e2e"]) == sum(int(r[s]) for s in stages if r[s] != ""), r
assert {r["mode"] for r in rows} == {"joined", "host"}
PY
expect "export -t recording -j: a row per recording" \
	"$("$NTPROF" export -j -t recording run.ntp | grep -c '^{"version":1,')" 20
# bad input: one line naming the problem (expect_fail: tests/testlib.sh)
touch exists-command.csv
expect_fail "export over a file" 1 "^ntprof export: exists-command.csv: exists; ntprof export writes new files$" \
	"$NTPROF" export -o exists run.ntp
[ ! -e exists-interval.csv ] && ok || bad "a failed export left files"
expect_fail "bad table" 2 "^ntprof export: --table: 'cmd': expected command, recording, interval or lost$" \
	"$NTPROF" export -t cmd run.ntp
expect_fail "-j and --csv" 2 "^ntprof export: --jsonl and --csv: one output format at a time$" \
	"$NTPROF" export -j --csv run.ntp
expect_fail "--clickhouse and -o" 2 "^ntprof export: --clickhouse loads every table: not with --output$" \
	"$NTPROF" export --clickhouse http://127.0.0.1:1/ -o x run.ntp
expect_fail "https" 2 "^ntprof export: --clickhouse: 'https://x/': https is not supported" \
	"$NTPROF" export --clickhouse https://x/ run.ntp
expect_fail "not a URL" 2 "^ntprof export: --clickhouse: 'x:8123': expected a URL http://" \
	"$NTPROF" export --clickhouse x:8123 run.ntp

# 3. Two servers on free loopback ports, a shard each of the cluster
# ntprof: their own directories, logs and configurations, no service
# manager, listening on 127.0.0.1 only.
# (and one where nothing listens)
ports=$(python3 -c 'import socket
s = [socket.socket() for _ in range(7)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
# shellcheck disable=SC2086
set -- $ports
http1=$1 tcp1=$2 inter1=$3 http2=$4 tcp2=$5 inter2=$6 closed=$7
# config N HTTP TCP INTERSERVER: server N's configuration and users
config() {
	d=$dir/ch$1
	mkdir -p "$d"
	cat > "$d/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
    <logger><level>warning</level><log>$d/server.log</log><errorlog>$d/error.log</errorlog></logger>
    <listen_host>127.0.0.1</listen_host>
    <http_port>$2</http_port>
    <tcp_port>$3</tcp_port>
    <interserver_http_port>$4</interserver_http_port>
    <interserver_http_host>127.0.0.1</interserver_http_host>
    <path>$d/data/</path>
    <tmp_path>$d/data/tmp/</tmp_path>
    <user_files_path>$d/data/user_files/</user_files_path>
    <format_schema_path>$d/data/format_schemas/</format_schema_path>
    <users_config>users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mark_cache_size>67108864</mark_cache_size>
    <uncompressed_cache_size>67108864</uncompressed_cache_size>
    <max_concurrent_queries>16</max_concurrent_queries>
    <remote_servers>
        <ntprof>
            <shard><replica><host>127.0.0.1</host><port>$tcp1</port></replica></shard>
            <shard><replica><host>127.0.0.1</host><port>$tcp2</port></replica></shard>
        </ntprof>
    </remote_servers>
</yandex>
EOF
	cat > "$d/users.xml" <<'EOF'
<?xml version="1.0"?>
<yandex>
    <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
    <users>
        <default>
            <password></password>
            <networks><ip>127.0.0.1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
    </users>
    <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
        <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>
    </interval></default></quotas>
</yandex>
EOF
}
config 1 "$http1" "$tcp1" "$inter1"
config 2 "$http2" "$tcp2" "$inter2"
for n in 1 2; do
	"$CH_SERVER" --config-file="$dir/ch$n/config.xml" > "$dir/ch$n/stdout.log" 2>&1 &
	pids="$pids $!"
done
# ch PORT SQL [OPTION...]: a query through clickhouse-client
ch() {
	_p=$1 _q=$2
	shift 2
	"$CH_CLIENT" --host 127.0.0.1 --port "$_p" --query "$_q" "$@"
}
# each answers within CH_START_TIMEOUT s, or the test stops with its log
n=1
for p in $tcp1 $tcp2; do
	i=0
	until ch "$p" 'SELECT 1' > /dev/null 2>&1; do
		i=$((i + 1))
		pid=$(echo $pids | cut -d' ' -f$n)
		if ! kill -0 "$pid" 2>/dev/null || [ $i -gt $((CH_START_TIMEOUT * 5)) ]; then
			echo "FAIL: clickhouse-server $n (port $p) did not answer within" \
				"$CH_START_TIMEOUT s ($(kill -0 "$pid" 2>/dev/null && echo running || echo exited)); its logs:" >&2
			tail -20 "$dir/ch$n/stdout.log" "$dir/ch$n/error.log" >&2 2>/dev/null
			exit 1
		fi
		sleep 0.2
	done
	n=$((n + 1))
done
ok
for p in $tcp1 $tcp2; do
	for f in schema views; do
		"$CH_CLIENT" --host 127.0.0.1 --port "$p" --multiquery < "$top/sql/clickhouse/$f.sql" ||
			bad "$f.sql on port $p"
	done
done

# 4. The run, loaded in one command.
url=http://127.0.0.1:$http1/
"$NTPROF" export -l fleet --clickhouse "$url" run.ntp > load1.txt 2> err.txt
expect "load: exit, stderr" "$?:$(cat err.txt)" "0:"
commands=$(q run.ntp 'SELECT count(*) FROM ntp_host_cmd;' | tail -1)
intervals=$(($("$NTPROF" export -t interval run.ntp | wc -l) - 1))
losses=$(($("$NTPROF" export -t lost run.ntp | wc -l) - 1))
expect "load: what it says" "$(cat load1.txt)" \
	"loaded 20 recordings ($commands commands, $intervals interval rows, $losses loss rows); 0 loaded before"
# split across the shards: each has some hosts, each host's rows on one
s1=$(ch "$tcp1" 'SELECT count(), uniqExact(host) FROM ntp_fleet_command_local' --format CSV)
s2=$(ch "$tcp2" 'SELECT count(), uniqExact(host) FROM ntp_fleet_command_local' --format CSV)
[ "${s1%,*}" -gt 0 ] && [ "${s2%,*}" -gt 0 ] && [ $((${s1#*,} + ${s2#*,})) -eq 16 ] &&
	[ $((${s1%,*} + ${s2%,*})) -eq "$commands" ] && ok ||
	bad "the hosts' commands are not split across the shards: shard 1 $s1, shard 2 $s2 (rows,hosts)"

# same WHAT A.csv B.csv NGROUP KEYS EXACT REL: B's rows are A's, matched
# by the columns KEYS (comma-separated); EXACT columns equal integers, REL
# columns equal to 1e-9 relative. With NGROUP > 0, B's rows whose first
# NGROUP keys no row of A has are left out (the ClickHouse views also have
# the commands outside the mode of ntprof's group). Prints A's rows.
cat > cmp.py <<'PY'
import csv, sys
what, fa, fb, ngroup, keys, exact, rel = sys.argv[1:8]
ngroup = int(ngroup)
keys, exact, rel = keys.split(","), exact.split(","), rel.split(",") if rel else []
def load(f):
    rows = {}
    for r in csv.DictReader(open(f, newline="")):
        k = tuple(r[c] for c in keys)
        assert k not in rows, f"{f}: {k} twice"
        rows[k] = r
    return rows
a, b = load(fa), load(fb)
if ngroup:
    groups = {k[:ngroup] for k in a}
    b = {k: r for k, r in b.items() if k[:ngroup] in groups}
bad = []
if not a:
    bad.append("no row")
if set(a) != set(b):
    bad.append(f"rows differ: only ntprof's {sorted(set(a) - set(b))[:3]}, "
               f"only the other's {sorted(set(b) - set(a))[:3]}")
for k in sorted(set(a) & set(b)):
    for c in exact:
        if int(float(a[k][c])) != int(float(b[k][c])) or float(a[k][c]) != int(float(a[k][c])):
            bad.append(f"{k} {c}: {a[k][c]} != {b[k][c]}")
    for c in rel:
        x, y = float(a[k][c]), float(b[k][c])
        if abs(x - y) > 1e-9 * max(abs(x), abs(y)):
            bad.append(f"{k} {c}: {x!r} != {y!r}")
for m in bad[:5]:
    print(f"FAIL: {what}: {m}", file=sys.stderr)
print(len(a))
sys.exit(1 if bad else 0)
PY
same() {
	python3 cmp.py "$@" > rows.txt && ok || bad "$1 (ntprof's: $1.ntprof.csv)"
}

# 5. Counts: per host, and in total; the recordings.
q run.ntp "SELECT d.hostname AS host, sum(g.sampled) AS n, sum(g.matched) AS matched
	FROM ntp_report_group AS g JOIN ntp_db AS d ON d.db = g.hdb GROUP BY d.hostname;" > counts.ntprof.csv
ch "$tcp1" "SELECT host, count() AS n, countIf(mode = 'joined') AS matched
	FROM ntp_fleet_command FINAL GROUP BY host" --format CSVWithNames > counts.ch.csv
same counts counts.ntprof.csv counts.ch.csv 0 host n,matched ""
expect "16 hosts counted" "$(cat rows.txt)" 16
expect "total commands" "$(ch "$tcp1" 'SELECT count() FROM ntp_fleet_command FINAL')" "$commands"
q run.ntp "SELECT hostname, role, records, lost FROM ntp_db;" > rec.ntprof.csv
ch "$tcp1" "SELECT hostname, role, records, lost FROM ntp_fleet_recording FINAL" \
	--format CSVWithNames > rec.ch.csv
same recordings rec.ntprof.csv rec.ch.csv 0 hostname,role records,lost ""
expect "20 recordings" "$(cat rows.txt)" 20

# 6. Per host: every stage and end to end, as ntprof's report has them.
HOST_SQL="SELECT d.hostname AS host, g.op AS op, g.bytes AS bytes, g.mode AS mode,
	s.stage AS stage, s.n AS n, s.mean_ns AS mean_ns, s.p50_ns AS p50_ns, s.p99_ns AS p99_ns,
	s.p999_ns AS p999_ns, r.share AS share
FROM ntp_report_stage_stats AS s
JOIN ntp_report_group AS g ON g.hdb = s.hdb AND g.grp = s.grp
JOIN ntp_report_stage AS r ON r.hdb = s.hdb AND r.grp = s.grp AND r.stage = s.stage
JOIN ntp_db AS d ON d.db = s.hdb
UNION ALL
SELECT d.hostname, g.op, g.bytes, g.mode, 'e2e', c.n, c.mean_ns, c.p50_ns, c.p99_ns, c.p999_ns,
	1.0
FROM ntp_report_component_stats AS c
JOIN ntp_report_group AS g ON g.hdb = c.hdb AND g.grp = c.grp
JOIN ntp_db AS d ON d.db = c.hdb
WHERE c.component = 'e2e';"
q run.ntp "$HOST_SQL" > host.ntprof.csv
ch "$tcp1" "SELECT host, op, bytes, mode, stage, n, mean_ns, p50_ns, p99_ns, p999_ns, share
	FROM ntp_fleet_host_stage" --format CSVWithNames > host.ch.csv
same host-stages host.ntprof.csv host.ch.csv 4 host,op,bytes,mode,stage \
	n,p50_ns,p99_ns,p999_ns mean_ns,share
# 16 hosts, 2 groups each, 5 stages and end to end: every one compared
expect "host stages compared" "$(cat rows.txt)" 192

# 7. Per operation and size over the fleet: ntprof compare's statistics of
# the run (ntp_compare_stage: n, mean, p50, p99); per target, the same over
# the target's hosts alone (gen-target's: h1, h5, h9, h13).
OP_SQL="SELECT op, bytes, 'joined' AS mode, item AS stage, n, mean_ns, p50_ns, p99_ns
	FROM ntp_compare_stage WHERE kind IN ('stage', 'total');"
q run.ntp "$OP_SQL" > op.ntprof.csv
ch "$tcp1" "SELECT op, bytes, mode, stage, n, mean_ns, p50_ns, p99_ns FROM ntp_fleet_op_stage" \
	--format CSVWithNames > op.ch.csv
same op-stages op.ntprof.csv op.ch.csv 3 op,bytes,mode,stage n,p50_ns,p99_ns mean_ns
expect "operation stages compared" "$(cat rows.txt)" 12
q sub.ntp "$OP_SQL" > target.ntprof.csv
ch "$tcp1" "SELECT op, bytes, 'joined' AS mode, stage, n, mean_ns, p50_ns, p99_ns
	FROM ntp_fleet_target_stage WHERE target = 'gen-target'" --format CSVWithNames > target.ch.csv
same target-stages target.ntprof.csv target.ch.csv 3 op,bytes,mode,stage n,p50_ns,p99_ns mean_ns
expect "target stages compared" "$(cat rows.txt)" 12
# the minutes add up to the whole
expect "stage shares over time: every command counted" \
	"$(ch "$tcp1" "SELECT sum(n) FROM ntp_fleet_stage_minute WHERE stage = 'e2e'")" "$commands"
# the worst hosts: by p99, each its host row's
ch "$tcp1" "SELECT host, p99_ns FROM ntp_fleet_worst_host WHERE op = 'read' AND mode = 'joined'
	LIMIT 3" --format CSV > worst.txt
awk -F, '$2 == "read" && $4 == "joined" && $5 == "e2e" { print "\"" $1 "\"," $9 }' \
	host.ntprof.csv | sort -t, -k2,2nr -k1,1 | head -3 > worst.ntprof.txt
[ -s worst.txt ] && cmp -s worst.txt worst.ntprof.txt && ok ||
	bad "worst hosts by p99: $(tr '\n' ' ' < worst.txt), ntprof's: $(tr '\n' ' ' < worst.ntprof.txt)"

# quantileExact's rank is floor(q n) + 1, ntprof's ceil(q n) (docs/fleet.md):
# the same where q n is not an integer, one rank up where it is
expect "quantileExact's rank rule" "$(ch "$tcp1" "SELECT
	quantileExact(0.5)(number), quantileExact(0.99)(number), quantileExact(0.999)(number),
	arraySort(groupArray(number))[intDiv(count() * 50000 + 99999, 100000)]
	FROM numbers(1000)" --format CSV)" "500,990,999,499"
expect "quantileExact where q n is not an integer" "$(ch "$tcp1" "SELECT
	quantileExact(0.5)(number), quantileExact(0.99)(number), quantileExact(0.999)(number)
	FROM numbers(2435)" --format CSV)" "1217,2410,2432"

# 8. Losses per host and cause.
q run.ntp "SELECT d.hostname AS hostname, 'record' AS kind, l.cause AS cause, l.n AS n
	FROM ntp_lost AS l JOIN ntp_db AS d ON d.db = l.db
	UNION ALL SELECT d.hostname, 'point', g.cause, g.n
	FROM ntp_gap AS g JOIN ntp_db AS d ON d.db = g.db;" > lost.ntprof.csv
ch "$tcp1" "SELECT hostname, kind, cause, n FROM ntp_fleet_lost_by_cause" \
	--format CSVWithNames > lost.ch.csv
same losses lost.ntprof.csv lost.ch.csv 0 hostname,kind,cause n ""
expect "hosts with losses" "$(cat rows.txt)" 16
expect "losses per host: lost records" \
	"$(ch "$tcp1" "SELECT sum(lost) FROM ntp_fleet_lost_by_host")" \
	"$(q run.ntp 'SELECT sum(lost) FROM ntp_db;' | tail -1)"

# 9. Loaded again: nothing added, every answer the same. Then a load cut
# short (gen-host3's recording row gone, its other rows there): that host
# is loaded again, and counted once.
views="ntp_fleet_host_stage ntp_fleet_op_stage ntp_fleet_target_stage ntp_fleet_lost_by_host
	ntp_fleet_lost_by_cause ntp_fleet_stage_minute"
# state: every view's rows, and each shard's stored rows per table
state() {
	for v in $views; do ch "$tcp1" "SELECT * FROM $v" --format CSV; done
}
stored() {
	for p in $tcp1 $tcp2; do
		for t in command interval lost recording; do
			ch "$p" "SELECT count() FROM ntp_fleet_${t}_local"
		done
	done | tr '\n' ' '
}
state > state1.csv
stored > stored1.txt
"$NTPROF" export -l fleet --clickhouse "http://127.0.0.1:$http2" run.ntp > load2.txt 2> err.txt
expect "load again: exit, stderr" "$?:$(cat err.txt)" "0:"
expect "load again: what it says" "$(cat load2.txt)" \
	"loaded 0 recordings (0 commands, 0 interval rows, 0 loss rows); 20 loaded before"
stored > stored2.txt
state > state2.csv
cmp -s stored1.txt stored2.txt && ok || bad "a second load stored rows: $(cat stored1.txt) then $(cat stored2.txt)"
cmp -s state1.csv state2.csv && ok || bad "a second load changed the answers"
cut=gen-host3
for p in $tcp1 $tcp2; do
	ch "$p" "ALTER TABLE ntp_fleet_recording_local DELETE WHERE hostname = '$cut'"
done
i=0
while [ "$(ch "$tcp1" 'SELECT count() FROM system.mutations WHERE NOT is_done')$(ch "$tcp2" \
	'SELECT count() FROM system.mutations WHERE NOT is_done')" != 00 ]; do
	i=$((i + 1))
	[ $i -gt 300 ] && { bad "the recording row's deletion did not finish in 60 s"; break; }
	sleep 0.2
done
n3=$(q run.ntp "SELECT count(*) FROM ntp_host_cmd AS c JOIN ntp_db AS d ON d.db = c.db
	WHERE d.hostname = '$cut';" | tail -1)
"$NTPROF" export -l fleet --clickhouse "$url" run.ntp > load3.txt 2> err.txt
grep -q "^loaded 1 recordings ($n3 commands, [0-9]* interval rows, 1 loss rows); 19 loaded before$" \
	load3.txt && ok || bad "a load cut short, done again: $(cat load3.txt err.txt)"
stored > stored3.txt
[ "$(cat stored3.txt)" != "$(cat stored1.txt)" ] && ok || bad "the load cut short sent nothing"
state > state3.csv
cmp -s state1.csv state3.csv && ok || bad "a recording loaded twice changed the answers"

# The views' rank rule where it differs from quantileExact's: 1,000
# commands of a run of their own, end to end and host block layer 1 to
# 1000 ns: p50, p99, p99.9 are the 500th, 990th and 999th values.
ch "$tcp1" "INSERT INTO ntp_fleet_command (version, run, host, host_recording, target,
	target_recording, op, bytes, ht, start_ns, mode, e2e, host_block, host_driver, network,
	target_driver, storage)
	SELECT 1, 'ranks', 'rank-host', 'rank-host/host/0/0', 'rank-target',
	'rank-target/target/0/0', 'read', 4096, number, 1767225600000000000 + number, 'joined',
	number + 1, number + 1, 0, 0, 0, 0 FROM numbers(1000)" --insert_distributed_sync=1 ||
	bad "insert of the rank run"
for v in host target op; do
	expect "$v stages: ntprof's ranks over 1,000 values" "$(ch "$tcp1" "SELECT stage, n,
		p50_ns, p99_ns, p999_ns FROM ntp_fleet_${v}_stage WHERE run = 'ranks'
		AND stage IN ('e2e', 'host_block') ORDER BY stage" --format CSV | tr '\n' ' ')" \
		'"e2e",1000,500,990,999 "host_block",1000,500,990,999 '
done

# Bad input: no server there; a server without the tables.
expect_fail "no server" 1 "^ntprof export: failed to connect to ClickHouse at 127.0.0.1:$closed: Connection refused$" \
	"$NTPROF" export --clickhouse "http://127.0.0.1:$closed/" sub.ntp
expect_fail "no tables" 1 "^ntprof export: failed to send the query of the recordings loaded to http://127.0.0.1:$http1/?database=system: HTTP 404: Code: 60, .* Table system.ntp_fleet_recording doesn't exist" \
	"$NTPROF" export --clickhouse "http://127.0.0.1:$http1/?database=system" sub.ntp

# 10. The DuckDB recipe of docs/fleet.md, as written, on the export's files.
if [ ! -d "$NODE_MODULES/@duckdb/node-api" ]; then
	bad "DuckDB: $NODE_MODULES/@duckdb/node-api is missing (make deps-npm installs it)"
else
	mkdir duck
	"$NTPROF" export -l fleet -o duck/fleet run.ntp > /dev/null || bad "export for DuckDB"
	"$NTPROF" export -j -l fleet -o duck/fleet run.ntp > /dev/null || bad "export -j for DuckDB"
	awk '/^```/ { if (b) { exit } if (f) { b = 1 } next } b { print } /^### DuckDB/ { f = 1 }' \
		"$top/docs/fleet.md" > duck/recipe.sql
	grep -q "quantile_disc" duck/recipe.sql || bad "no DuckDB recipe found in docs/fleet.md"
	duck() { (cd duck && NODE_PATH=$NODE_MODULES node "$top/tests/duckdb_query.cjs" "$@"); }
	duck recipe.sql > duck.csv || bad "DuckDB: the recipe failed"
	same duckdb-host-stages host.ntprof.csv duck.csv 4 host,op,bytes,mode,stage \
		n,p50_ns,p99_ns,p999_ns mean_ns
	expect "DuckDB: host stages compared" "$(cat rows.txt)" 192
	# quantile_disc's rank is ntprof's, and JSON lines load as the CSV does
	cat > duck/check.sql <<'EOF'
CREATE TABLE r AS SELECT count(*) AS n, quantile_disc(x, 0.5) AS p50,
  quantile_disc(x, 0.99) AS p99, quantile_disc(x, 0.999) AS p999,
  list_sort(list(x))[(count(*) * 50000 + 99999) // 100000] AS r50
FROM range(1000) AS t(x);
CREATE TABLE j AS SELECT * FROM read_json('*-command.jsonl', format = 'newline_delimited');
SELECT (SELECT p50 || ',' || p99 || ',' || p999 || ',' || r50 FROM r) AS ranks,
  (SELECT count(*) FROM j) AS rows,
  (SELECT count(*) FROM (SELECT host_recording, ht, e2e, storage FROM command
   EXCEPT SELECT host_recording, ht, e2e, storage FROM j)) AS differ;
EOF
	expect "DuckDB: quantile_disc's rank, JSON lines" "$(duck recipe.sql check.sql | tail -1)" \
		"\"499,989,998,499\",$commands,0"
fi

# 11. The servers stop, and nothing of them is left running.
stop_servers
left=$(ps -eo pid=,args= | grep -F "$dir/ch" | grep -v grep)
expect "clickhouse processes left" "$left" ""

finish
