#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# verify.sh's peer case without SPDK: SPDK's trace (spdk_trace -j) made up
# here, read by tests/spdk/trace_cmds.py, turned into a latency log by
# .output/spdk_trace_log and judged by .output/check_fidelity --near, as
# verify.sh does with a real SPDK's.
#
#   sh tests/spdk/trace_test.sh        (make check runs it, check-cli-rest)

top=$(cd "$(dirname "$0")/../.." && pwd)
TEST=trace_test
. "$top/tests/testlib.sh"
LOG=$top/.output/spdk_trace_log
CHECK=$top/.output/check_fidelity
need_built "$LOG" "$CHECK"

d=$(mktemp -d "${TMPDIR:-/tmp}/ntprof-trace.XXXXXX") || exit 1
trap 'rm -rf "$d"' EXIT INT TERM
cd "$d" || exit 1

# anchors: the TSC and CLOCK_MONOTONIC move together
# shellcheck disable=SC2046 # two anchors: four words
set -- $("$LOG" anchor) $(sleep 0.2; "$LOG" anchor)
if [ $# = 4 ] && [ "$3" -gt "$1" ] &&
	[ $(($4 - $2)) -ge 190000000 ] && [ $(($4 - $2)) -le 2000000000 ]; then ok
else bad "two anchors 0.2 s apart: '$*'"; fi

# trace JSON: N host commands (cid i % 16, slba 8 i, 1 us apart, 10 to
# 13.6 us each at 0.5 ns a tick), a submission never completed and a
# completion never submitted; the target's states of two requests, one
# incomplete
python3 - <<'PY' >host.json
import json
tp = [{"name": "NVME_TCP_SUBMIT", "id": 7, "new_object": True, "args": []},
      {"name": "NVME_TCP_COMPLETE", "id": 8, "new_object": False, "args": []}]
e = []
for i in range(600):
    s = 2000000 + i * 2000
    e.append({"lcore": 1, "tpoint": 7, "tsc": s, "poller": "q01",
              "object": {"id": "p%d" % i, "value": 1},
              "args": [0, i % 16, 2, 8 * i & 0xffffffff, 8 * i >> 32, 7 | 1 << 16, 1]})
    e.append({"lcore": 1, "tpoint": 8, "tsc": s + 20000 + (i % 37) * 200, "poller": "q01",
              "object": {"id": "p%d" % i, "time": 1, "value": 1}, "args": [0, i % 16, 0, 0]})
e.append({"lcore": 1, "tpoint": 7, "tsc": 3300000, "poller": "q01",
          "object": {"id": "p900", "value": 1}, "args": [0, 3, 2, 5, 0, 7, 1]})
e.append({"lcore": 1, "tpoint": 8, "tsc": 3300001, "poller": "q01",
          "object": {"id": "p901", "time": 1, "value": 1}, "args": [0, 4, 0, 0]})
e.sort(key=lambda x: x["tsc"])
print(json.dumps({"tsc_rate": 2000000000, "tpoints": tp, "entries": e}))
PY
python3 - <<'PY' >target.json
import json
names = ["TCP_REQ_NEW", "TCP_REQ_EXECUTING", "TCP_REQ_EXECUTED", "TCP_REQ_RDY_TO_COMPLETE",
         "TCP_REQ_COMPLETED", "TCP_REQ_TRANSFER_C2H"]
tp = [{"name": n, "id": 20 + i, "new_object": i == 0, "args": []} for i, n in enumerate(names)]
e = []
for r, base, states in (("r1", 100, (0, 1, 2, 3, 5, 4, 1)), ("r2", 500, (0, 1, 2))):
    for k, st in enumerate(states):
        e.append({"lcore": 0, "tpoint": 20 + st, "tsc": base + 10 * k,
                  "object": {"id": r, "value": 1}})
print(json.dumps({"tsc_rate": 2000000000, "tpoints": tp, "entries": e}))
PY
python3 "$top/tests/spdk/trace_cmds.py" host <host.json >host.txt
expect "host: one line per command submitted and completed" "$(wc -l <host.txt)" 600
expect "host: a command's line" "$(sed -n 301p host.txt)" \
	"2600000 2620800 1 12 2 2400 7"
python3 "$top/tests/spdk/trace_cmds.py" target <target.json >target.txt
expect "target: the complete request, first time of each state" "$(cat target.txt)" \
	"100 110 120 130 150"
expect_fail "trace_cmds.py: a mode" 1 "usage" python3 "$top/tests/spdk/trace_cmds.py" </dev/null
# a submission without its qpair (the owner): no guess at the qid
sed 's/"poller": "q01", "object": {"id": "p5",/"object": {"id": "p5",/' host.json >noqp.json
expect_fail "trace_cmds.py: a submission without its qpair" 1 "without its owner" \
	python3 "$top/tests/spdk/trace_cmds.py" host <noqp.json

# the log: 8 bytes of magic, 32 a command, every one sampled at -s 1
A="1000000 5000000000 5000000 5002000000"
"$LOG" log $A 1 1 <host.txt >lat.log 2>log.err
expect "log: exit status" $? 0
expect "log: size" "$(wc -c <lat.log)" $((8 + 32 * 600))
grep -q "600 commands, 600 of them sampled at -s 1" log.err && ok || bad "log: $(cat log.err)"
"$LOG" log 2600001 5000000000 5000000 5002000000 1 1 <host.txt >/dev/null 2>bad.err
expect "log: a command outside the anchors, exit status" $? 1
grep -q "line 1: not 'submit_tsc" bad.err && ok || bad "log: outside the anchors: $(cat bad.err)"

# the sampling rule is the ABI's: test_abi's vectors 0xd2863686 (qid 1,
# cid 1, opcode 2, nsid 1, slba 0, nlb 7: even) and 0x1e13b25f (cid
# 0x1234, slba 0x1e240: odd), at -s 2 the first sampled and not the second
printf '2000000 2000100 1 1 2 0 7\n2000200 2000300 1 4660 2 123456 7\n' |
	"$LOG" log $A 2 1 >abi.log 2>abi.err
expect "log: the ABI's rule at -s 2" \
	"$(od -An -tu1 -j 8 abi.log | tr -s ' \n' ' ' | awk '{ print $28, $60 }')" "1 0"

# ntprof's sampled commands: each 300 ns before or after the trace's
# submission (the two clocks' mapping), its e2e 200 ns longer; five more
# outside the span
awk '{ t = 5000000000 + ($1 - 1000000) / 2; printf "%.0f,%d,%d,%.0f\n",
	t + (NR % 2 ? 300 : -300), $4, $6, ($2 - $1) / 2 + 200 }' host.txt >sampled.csv
for i in 1 2 3 4 5; do echo "4000000000,$i,$i,10000" >>sampled.csv; done
"$CHECK" --near 2000 lat.log sampled.csv 1 >near.txt 2>&1
expect "check_fidelity --near: exit status" $? 0
grep -q "5 of ntprof's 605 sampled commands submitted outside the log's span" near.txt &&
	ok || bad "--near: the left out: $(cat near.txt)"
grep -q "median 200 ns" near.txt && ok || bad "--near: the offset: $(cat near.txt)"
expect "--near: the verdict" "$(tail -1 near.txt)" "fidelity: ok"
# the negative: an exact match finds none of them
"$CHECK" lat.log sampled.csv 1 >exact.txt 2>&1
expect "check_fidelity without --near: exit status" $? 1
grep -q "605 sampled, 0 of them found in the log" exact.txt && ok ||
	bad "without --near: $(cat exact.txt)"
# and a tolerance too tight for the mapping
"$CHECK" --near 250 lat.log sampled.csv 1 >tight.txt 2>&1
expect "check_fidelity --near 250: exit status" $? 1
expect_fail "check_fidelity: a bad --near" 2 "bad --near" "$CHECK" --near 0 lat.log sampled.csv 1
# --family 12: each interval at 1 - 0.05 / 12, wider than the 95 % one; a
# workload 4 % faster is outside the 95 % interval of the median and
# inside the wider one
"$CHECK" --near 2000 --shift-workload -4 lat.log sampled.csv 1 >k1.txt 2>&1
expect "check_fidelity, -4 %: exit status" $? 1
grep -q "the workload's p50 [0-9.]* us is outside" k1.txt && ok ||
	bad "-4 %: the median not refused at 95 %: $(tail -1 k1.txt)"
"$CHECK" --near 2000 --family 12 --shift-workload -4 lat.log sampled.csv 1 >k12.txt 2>&1
grep -q "sampled 99.58 % CI" k12.txt && ok || bad "--family 12: the level: $(cat k12.txt)"
grep -q "the workload's p50 [0-9.]* us is outside" k12.txt &&
	bad "--family 12: the median refused: $(tail -1 k12.txt)" || ok
grep -q "^p50 us .* ok$" k12.txt && ok || bad "--family 12: the median's line: $(cat k12.txt)"
expect_fail "check_fidelity: a bad --family" 2 "bad --family" "$CHECK" --family 0 lat.log \
	sampled.csv 1

# the target: a generated recording (SPDK's driver, 2,000 commands), and
# SPDK's trace of its requests made from its points (1 ns a tick, the TSC
# 1000 ns behind CLOCK_MONOTONIC), NEW 300 ns before t_cmd
need_built "$top/tests/ntprof-gen"
"$top/tests/ntprof-gen" -d target=spdk -d host=spdk -n 1 -r 2000 -o h.db -t t.db >/dev/null ||
	bad "ntprof-gen failed"
python3 - t.db <<'PY' >target_trace.txt
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for r in db.execute("SELECT t_cmd, t_exec, t_stor, t_resp, t_free FROM ntp_cmd_point "
                    "WHERE t_cmd IS NOT NULL ORDER BY t_cmd"):
    # SPDK's EXECUTING after a 700 ns submission
    print(r[0] - 1300, r[1] - 300, r[2] - 1000, r[3] - 1000, r[4] - 1000)
PY
# shellcheck disable=SC2046 # two lines: ten words
set -- $(head -1 target_trace.txt) $(tail -1 target_trace.txt)
AT="$(($1 - 1000000)) $(($1 - 1000000 + 1000)) $(($6 + 1000000)) $(($6 + 1000000 + 1000))"
# shellcheck disable=SC2086 # the anchors
python3 "$top/tests/spdk/peer_target.py" target_trace.txt $AT t.db >peer.txt 2>&1
expect "peer_target: exit status" $? 0
n=$(sqlite3 t.db "SELECT count(*) FROM cmd WHERE t_cmd IS NOT NULL")
grep -q "$n requests traced by SPDK, $n of ntprof's $n records in their span, $n matched" \
	peer.txt && ok ||
	bad "peer_target: matched: $(cat peer.txt)"
grep -q "^t_cmd -> t_exec .* -1000 *100.0% \*$" peer.txt && ok ||
	bad "peer_target: a fixed difference shown: $(cat peer.txt)"
grep -q "^t_cmd -> t_stor .* -300 *100.0%$" peer.txt && ok ||
	bad "peer_target: the same moments: $(cat peer.txt)"
# SPDK's EXECUTING after submissions of 0.7 to 3.7 us: the intervals that
# do not share their moments differ by as much, shown and not judged
awk '{ printf "%.0f %.0f %.0f %.0f %.0f\n", $1, $2 + NR % 3 * 1500, $3, $4, $5 }' \
	target_trace.txt >varied.txt
# shellcheck disable=SC2086
python3 "$top/tests/spdk/peer_target.py" varied.txt $AT t.db >varied.out 2>&1
expect "peer_target: a varying submission, exit status" $? 0
grep -q "^t_cmd -> t_exec .* -2500 *[0-9.]*% \*$" varied.out && ok ||
	bad "peer_target: a varying submission: $(cat varied.out)"
# EXECUTED 1.5 us later in SPDK's trace: the same moments no longer agree
awk '{ printf "%.0f %.0f %.0f %.0f %.0f\n", $1, $2, $3 + 1500, $4, $5 }' target_trace.txt \
	>late.txt
# shellcheck disable=SC2086
python3 "$top/tests/spdk/peer_target.py" late.txt $AT t.db >late.out 2>&1
expect "peer_target: EXECUTED moved, exit status" $? 1
grep -q "FAILED: t_cmd -> t_stor against NEW -> EXECUTED: median difference -1800 ns" late.out &&
	ok || bad "peer_target: EXECUTED moved: $(tail -1 late.out)"

finish
