#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""make bench, part of tests/bench_collect.sh: the cost of one thing,
switched on and off every PHASE seconds inside one workload run.

On a noisy machine the throughput of whole runs drifts by 15 % and more
from one minute to the next, which hides a 1 % cost however many runs are
interleaved. Within one run, phases a second apart see the same machine:
the ratio of an "on" phase to the "off" phase next to it is a paired
measurement. Pairs alternate their order (on-off, off-on); the result is
the median ratio over PAIRS pairs, with the quartiles.

What is switched:
  --rate N PID:BIN ...  the SPDK patch's ntprof_sample_rate in each process
                        (0 when off): the cost of sampling one command in N,
                        with the collectors attached;
  --stamp               a socket that asks the kernel for receive timestamps
                        (SO_TIMESTAMPING), held open when on: the cost of
                        the kernel stamping every packet.
The commands done per phase are read from
  --count-symbol PID:BIN:SYMBOL  a uint64 counter in a process (the test
                        fixture's fx_commands_done), or
  --count-rpc SOCKET    SPDK's bdev_get_iostat over its RPC socket.
Variables are read and written through /proc/PID/mem at the address of
their ELF symbol (nm), as ntprof-collect does.

Prints one line: "median q1 q3 min max n off_rate" (ratios on/off, the
median commands per second of the off phases).
"""
import argparse
import json
import socket
import statistics
import struct
import subprocess
import sys
import time

SO_TIMESTAMPING = 37
SOF_RX_SOFTWARE_SOFTWARE = (1 << 3) | (1 << 4)


def symbol(binary, name):
    for line in subprocess.check_output(["nm", binary], text=True).splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == name:
            return int(f[0], 16)
    sys.exit(f"bench_alternate: no symbol {name} in {binary}")


def load_base(pid, binary):
    """Where PID mapped BINARY's first page (a PIE's load bias)."""
    real = subprocess.check_output(["readlink", "-f", binary], text=True).strip()
    for line in open(f"/proc/{pid}/maps"):
        f = line.split()
        if len(f) >= 6 and f[5] == real and int(f[2], 16) == 0:
            return int(f[0].split("-")[0], 16)
    sys.exit(f"bench_alternate: process {pid} does not map {binary}")


class Var:
    def __init__(self, spec, name, size):
        pid, binary = spec.split(":")[:2]
        self.pid, self.size = int(pid), size
        self.addr = load_base(self.pid, binary) + symbol(binary, name)

    def write(self, v):
        with open(f"/proc/{self.pid}/mem", "r+b", buffering=0) as f:
            f.seek(self.addr)
            f.write(struct.pack("<I" if self.size == 4 else "<Q", v))

    def read(self):
        with open(f"/proc/{self.pid}/mem", "rb", buffering=0) as f:
            f.seek(self.addr)
            return struct.unpack("<I" if self.size == 4 else "<Q", f.read(self.size))[0]


class Rpc:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.id = 0

    def read(self):
        self.id += 1
        self.s.sendall(json.dumps({"jsonrpc": "2.0", "method": "bdev_get_iostat",
                                   "id": self.id}).encode())
        buf = b""
        while True:
            buf += self.s.recv(65536)
            try:
                r = json.loads(buf)
                break
            except ValueError:
                continue
        return sum(b["num_read_ops"] + b["num_write_ops"] for b in r["result"]["bdevs"])


class Stamp:
    """Receive timestamps asked for while the socket is open."""
    def __init__(self):
        self.s = None

    def set(self, on):
        if on and not self.s:
            self.s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self.s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING, SOF_RX_SOFTWARE_SOFTWARE)
        elif not on and self.s:
            self.s.close()
            self.s = None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=int)
    ap.add_argument("--stamp", action="store_true")
    ap.add_argument("--count-symbol")
    ap.add_argument("--count-rpc")
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--phase", type=float, default=1.0)
    ap.add_argument("--settle", type=float, default=0.2)
    ap.add_argument("procs", nargs="*")
    a = ap.parse_args()

    if a.count_symbol:
        counter = Var(a.count_symbol, a.count_symbol.split(":")[2], 8)
    else:
        counter = Rpc(a.count_rpc)
    if a.stamp:
        st = Stamp()
        switch = st.set
    else:
        rates = [Var(p, "ntprof_sample_rate", 4) for p in a.procs]

        def switch(on):
            for v in rates:
                v.write(a.rate if on else 0)

    def phase(on):
        switch(on)
        time.sleep(a.settle)  # what the last phase left in flight
        c0, t0 = counter.read(), time.monotonic()
        time.sleep(a.phase)
        c1, t1 = counter.read(), time.monotonic()
        return (c1 - c0) / (t1 - t0)

    ratios, offs = [], []
    for i in range(a.pairs):
        r = {}
        for on in ((True, False) if i % 2 else (False, True)):
            r[on] = phase(on)
        if r[False] > 0:
            ratios.append(r[True] / r[False])
            offs.append(r[False])
    switch(False)
    if not ratios:
        sys.exit("bench_alternate: no commands were done")
    ratios.sort()
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
    print("%.4f %.4f %.4f %.4f %.4f %d %.0f" % (statistics.median(ratios), q[0], q[2],
          ratios[0], ratios[-1], len(ratios), statistics.median(offs)))


if __name__ == "__main__":
    main()
