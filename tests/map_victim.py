#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""A process that is not the program but maps its file: FILE, whole,
private and writable, zeroed (its own scratch memory, with 0 where the
sampling variable would be). It says "ready", then checks every 2 ms that
its memory is still all zeros until SIGUSR1 (at most 120 s), and says
"untouched", or "changed at OFFSET" the first time it was not.

usage: map_victim.py FILE   (collect_test.sh runs it as nobody)"""
import mmap
import os
import signal
import sys
import time

stop = False


def on_usr1(sig, frame):
    global stop
    stop = True


signal.signal(signal.SIGUSR1, on_usr1)
with open(sys.argv[1], "rb") as f:
    size = os.fstat(f.fileno()).st_size
    m = mmap.mmap(f.fileno(), size, flags=mmap.MAP_PRIVATE,
                  prot=mmap.PROT_READ | mmap.PROT_WRITE)
zeros = bytes(size)
m[:] = zeros
print("ready", flush=True)
changed = None
deadline = time.monotonic() + 120
while not stop and time.monotonic() < deadline:
    if changed is None and m[:] != zeros:
        changed = next(i for i in range(size) if m[i] != 0)
    time.sleep(0.002)
print("untouched" if changed is None else f"changed at {changed:#x}", flush=True)
