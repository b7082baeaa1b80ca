#!/usr/bin/env python3
"""Run a command with its stderr on a pseudo-terminal (for the progress line,
which only a terminal gets).

    on_tty.py OUT COMMAND [ARG...]

The command's stdout goes to the file OUT, its stdin is /dev/null; every byte
it writes to the terminal is copied to our stdout, as written (no newline
translation). Exits with the command's status."""
import os
import pty
import subprocess
import sys
import termios
import tty


def main():
    out, cmd = sys.argv[1], sys.argv[2:]
    master, slave = pty.openpty()
    tty.setraw(slave, termios.TCSANOW)  # bytes as written: no \n -> \r\n
    with open(out, "wb") as f:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=f, stderr=slave)
    os.close(slave)
    data = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the command closed the terminal
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    sys.stdout.buffer.write(data)
    return proc.wait()


if __name__ == "__main__":
    sys.exit(main())
