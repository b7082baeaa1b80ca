# SPDX-License-Identifier: BSD-2-Clause
"""trace_cmds.py host|target < spdk_trace -j output: one line per request.

SPDK's own tracing (spdk_trace -j, the trace of a process run with the
nvme_tcp or nvmf_tcp tpoint group), per request, in TSC ticks:

  host:   submit_tsc complete_tsc qid cid opcode slba nlb
          NVME_TCP_SUBMIT and NVME_TCP_COMPLETE of one request (the same
          object id; qid is the owner id, which nvme_tcp.c traces as the
          qpair's id; slba and nlb from the SQE's dw10, dw11 and dw12)
  target: new executing executed ready_to_complete completed
          the first TCP_REQ_NEW, TCP_REQ_EXECUTING, TCP_REQ_EXECUTED,
          TCP_REQ_RDY_TO_COMPLETE and TCP_REQ_COMPLETED of one request
          (nvmf_tcp_req_process traces each as it handles the state)

A request whose events the trace's ring had already dropped, or that had
not finished, is left out. tests/spdk/verify.sh (the peer case) reads it.
"""
import json
import sys

STATES = ("TCP_REQ_NEW", "TCP_REQ_EXECUTING", "TCP_REQ_EXECUTED",
          "TCP_REQ_RDY_TO_COMPLETE", "TCP_REQ_COMPLETED")


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("host", "target"):
        sys.exit("usage: trace_cmds.py host|target < spdk_trace -j output")
    doc = json.load(sys.stdin)
    names = {tp["id"]: tp["name"] for tp in doc["tpoints"]}
    out = []
    if sys.argv[1] == "host":
        open_ = {}
        for e in doc["entries"]:
            name, obj = names.get(e["tpoint"]), e.get("object", {}).get("id")
            if name == "NVME_TCP_SUBMIT" and obj:
                a = e["args"]  # ctx cid opc dw10 dw11 dw12 qd
                if "poller" not in e:
                    sys.exit("trace_cmds.py: NVME_TCP_SUBMIT without its owner (the qpair's id)")
                qid = int(e["poller"][1:])
                open_[obj] = (e["tsc"], qid, a[1], a[2], a[3] | a[4] << 32, a[5] & 0xffff)
            elif name == "NVME_TCP_COMPLETE" and obj in open_:
                s, qid, cid, opc, slba, nlb = open_.pop(obj)
                out.append((s, "%d %d %d %d %d %d %d" % (s, e["tsc"], qid, cid, opc, slba, nlb)))
    else:
        reqs = {}
        for e in doc["entries"]:
            name, obj = names.get(e["tpoint"]), e.get("object", {}).get("id")
            if name not in STATES or not obj:
                continue
            if name == "TCP_REQ_NEW":
                reqs[obj] = {name: e["tsc"]}
            elif obj in reqs:
                reqs[obj].setdefault(name, e["tsc"])
        for r in reqs.values():
            if all(s in r for s in STATES):
                out.append((r[STATES[0]], " ".join(str(r[s]) for s in STATES)))
    out.sort()
    for _, line in out:
        print(line)


if __name__ == "__main__":
    main()
