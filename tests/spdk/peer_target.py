# SPDX-License-Identifier: BSD-2-Clause
"""peer_target.py TRACE TSC0 MONO0 TSC1 MONO1 TARGET_DB: ntprof's target
stages against SPDK's own trace of the same requests.

TRACE is trace_cmds.py target's output (per request the TSC of TCP_REQ_NEW,
_EXECUTING, _EXECUTED, _RDY_TO_COMPLETE and _COMPLETED), the anchors map
the TSC onto CLOCK_MONOTONIC (spdk_trace_log anchor, before and after the
run), TARGET_DB is ntprof's recording of the target. Each of ntprof's
records is the trace's request whose TCP_REQ_NEW is nearest its t_cmd
(the same moment: the patch takes t_cmd where nvmf_tcp_req_process traces
NEW), within 2 us; only records within the trace's span count (its ring
keeps the end of a run). Per interval:

  t_cmd -> t_stor   NEW -> EXECUTED                 the same moments
  t_stor -> t_resp  EXECUTED -> RDY_TO_COMPLETE     the same moments
  t_cmd -> t_free   NEW -> COMPLETED                the same moments
  t_cmd -> t_exec   NEW -> EXECUTING                not the same end
  t_exec -> t_stor  EXECUTING -> EXECUTED           not the same start

it prints both sides' p50, p90 and p99 (nearest rank) over the matched
requests and the difference, request by request (ntprof less SPDK): its
median and the share within 1 us of it. ntprof takes a state's point as
the request enters it (nvmf_tcp_req_set_state), SPDK as
nvmf_tcp_req_process handles it; for most states that is the same
moment, but SPDK traces TCP_REQ_EXECUTING only on the pass after the one
that called spdk_nvmf_request_exec, so its EXECUTING comes after the
bdev's submission and ntprof's t_exec before it: the last two intervals
split one span at different places, and their difference is the time
the submission took, a duration of its own (shown, not judged). The
verdict: at least 500 requests matched, 99 % of ntprof's records in the
span matched, and per interval whose moments are the same the median
difference within 1 us and 99 % of requests within 1 us of it (else the
two do not measure the same thing). Exits 0 when it holds, 1 when not, 2 on bad input.
"""
import sqlite3
import sys

BAND = 1000  # ns
# ntprof's interval, SPDK's, the points (as in the trace's lines), whether
# their moments are the same
PAIRS = (("t_cmd -> t_stor", "NEW -> EXECUTED", 0, 2, True),
         ("t_stor -> t_resp", "EXECUTED -> RDY_TO_COMPLETE", 2, 3, True),
         ("t_cmd -> t_free", "NEW -> COMPLETED", 0, 4, True),
         ("t_cmd -> t_exec", "NEW -> EXECUTING", 0, 1, False),
         ("t_exec -> t_stor", "EXECUTING -> EXECUTED", 1, 2, False))


def rank(v, p):
    """nearest rank, as ntprof's percentiles"""
    s = sorted(v)
    k = max(1, -(-len(s) * p // 100))
    return s[int(k) - 1]


def main():
    if len(sys.argv) != 7:
        print(__doc__.splitlines()[0], file=sys.stderr)
        sys.exit(2)
    tsc0, mono0, tsc1, mono1 = (int(x) for x in sys.argv[2:6])
    slope = (mono1 - mono0) / (tsc1 - tsc0)
    trace = []
    with open(sys.argv[1]) as f:
        for line in f:
            trace.append([round(mono0 + (int(x) - tsc0) * slope) for x in line.split()])
    if not trace:
        print("peer_target: no complete request in the trace", file=sys.stderr)
        sys.exit(2)
    trace.sort()
    db = sqlite3.connect("file:%s?mode=ro" % sys.argv[6], uri=True)
    rows = db.execute("SELECT t_cmd, t_exec, t_stor, t_resp, t_free FROM ntp_cmd_point "
                      "WHERE t_cmd IS NOT NULL AND t_exec IS NOT NULL AND t_stor IS NOT NULL "
                      "AND t_resp IS NOT NULL AND t_free IS NOT NULL ORDER BY t_cmd").fetchall()
    first, last = trace[0][0], trace[-1][0]
    inspan = [r for r in rows if first - 2000 <= r[0] <= last + 2000]
    matched, j = [], 0
    for r in inspan:
        while j + 1 < len(trace) and trace[j + 1][0] <= r[0]:
            j += 1
        best = min((trace[k] for k in (j, j + 1) if k < len(trace)),
                   key=lambda x: abs(x[0] - r[0]))
        if abs(best[0] - r[0]) <= 2000:
            matched.append((r, best))
    fails = []
    print("peer, target: %d requests traced by SPDK, %d of ntprof's %d records in their span, "
          "%d matched" % (len(trace), len(inspan), len(rows), len(matched)))
    if len(matched) < 500:
        fails.append("%d requests matched, fewer than 500" % len(matched))
    if len(matched) < 0.99 * len(inspan):
        fails.append("%d of %d records matched (under 99 %%)" % (len(matched), len(inspan)))
    print("%-18s %-28s %26s %26s %10s %8s" % ("ntprof", "SPDK trace", "ntprof p50/p90/p99 us",
                                               "SPDK p50/p90/p99 us", "diff ns", "in 1 us"))
    for nname, sname, a, b, same in PAIRS:
        if not matched:
            break
        nv = [r[b] - r[a] for r, _ in matched]
        sv = [t[b] - t[a] for _, t in matched]
        dv = [x - y for x, y in zip(nv, sv)]
        med = rank(dv, 50)
        within = sum(abs(x - med) <= BAND for x in dv) / len(dv)
        q = lambda v: "/".join("%.2f" % (rank(v, p) / 1e3) for p in (50, 90, 99))
        print("%-18s %-28s %26s %26s %10d %7.1f%%%s" % (nname, sname, q(nv), q(sv), med,
                                                       100 * within, "" if same else " *"))
        if same and (abs(med) > BAND or within < 0.99):
            fails.append("%s against %s: median difference %d ns, %.1f %% within 1 us"
                         % (nname, sname, med, 100 * within))
    print("* not the same moments, not judged: SPDK traces EXECUTING after the bdev's "
          "submission, ntprof's t_exec is before it")
    print("peer, target: " + ("ok" if not fails else "FAILED: " + "; ".join(fails)))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
