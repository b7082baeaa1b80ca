#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""docs/tutorial.md stays true: its report, compare, shell and sqlite3
commands run, as written from the top of a clone (./ntprof, ./ntprof-shell),
on generated recordings put where the demo leaves its own (demo-out/), exit
0 without a word on stderr, and print every header line the tutorial shows
(a line without digits: column names, labels), so a renamed column, option
or view fails here. The fixture's command lines (.output/fixture_tgt,
.output/fixture_perf) use only options their --help lists. Numbers are not
compared: the tutorial's come from a real run. The probe and record commands
need root and BPF; the collector tests run those.

usage: tutorial_test.py TOP   (the repository root, after make)"""
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
GEN = os.path.join(TOP, "tests", "ntprof-gen")
fails = 0
passes = 0


def check(what, cond, detail=""):
    global fails, passes
    if cond:
        passes += 1
    else:
        fails += 1
        print(f"FAIL: {what}{': ' + detail if detail else ''}", file=sys.stderr)


def blocks(text):
    """The fenced code blocks, as lists of lines."""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith("```"):
            if cur is None:
                cur = []
            else:
                out.append(cur)
                cur = None
        elif cur is not None:
            cur.append(line)
    return out


def header_lines(lines):
    """Lines a run must print too: no number in them (a p50_us is a
    name), not only rules, not elided."""
    keep = []
    for line in lines:
        s = " ".join(line.split())
        if (not s or "..." in s or re.fullmatch(r"[-─┌┬┐├┼┤└┴┘│ ]+", s) or
                any(re.fullmatch(r"[-+\[(]?[\d.,]*\d[\d.,]*[\])%*,]*", t) for t in s.split())):
            continue
        keep.append(s)
    return keep


def normalized(text):
    return {" ".join(line.split()) for line in text.splitlines()}


def commands(block):
    """($-commands with their continuation lines, expected output) pairs."""
    out, cmd, exp = [], None, []
    for line in block:
        if line.startswith("$ "):
            if cmd is not None:
                out.append((cmd, exp))
            cmd, exp = line[2:], []
        elif line.startswith("ntprof> "):
            break  # a shell session follows: shell_session's
        elif cmd is not None and cmd.endswith("\\"):
            cmd = cmd[:-1] + " " + line.strip()
        elif cmd is not None:
            exp.append(line)
    if cmd is not None:
        out.append((cmd, exp))
    return out


def shell_session(block):
    """The ntprof> commands of a block (continuations joined) and outputs."""
    out, cmd, exp = [], None, []
    for line in block:
        if line.startswith("ntprof> "):
            if cmd is not None:
                out.append((cmd, exp))
            cmd, exp = line[len("ntprof> "):], []
        elif line.startswith("   ...> ") and cmd is not None:
            cmd += " " + line[len("   ...> "):]
        elif cmd is not None:
            exp.append(line)
    if cmd is not None:
        out.append((cmd, exp))
    return out


def run(argv, cwd, stdin=None):
    env = dict(os.environ, PATH=TOP + ":" + os.environ["PATH"])
    return subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, text=True,
                          env=env, timeout=300)


def program(cmd):
    """The program a command runs, without the ./ it is run with."""
    prog = cmd.split()[0]
    return prog[2:] if prog.startswith("./") else prog


def fixture_options(cmd):
    """A fixture command line's options (up to a '&' or '#')."""
    words = re.split(r"\s[&#]", cmd)[0].split()[1:]
    return [w for w in words if re.fullmatch(r"--?[a-zA-Z][-a-zA-Z]*", w)]


def expect_headers(what, exp, out):
    have = normalized(out)
    for h in header_lines(exp):
        check(f"{what}: prints '{h}'", h in have, "not in its output")


def main():
    text = open(os.path.join(TOP, "docs", "tutorial.md")).read()
    with tempfile.TemporaryDirectory(prefix="ntprof-tutorial-") as d:
        os.mkdir(os.path.join(d, "demo-out"))
        # prepared runs (lib/cache.c) in the test's directory, never the
        # user's own; the tutorial's outputs hold no note of a preparation
        os.environ["NTPROF_CACHE_DIR"] = os.path.join(d, "cache")
        os.environ["NTPROF_PREPARE_NOTE_AFTER"] = "3600"
        # the programs where the tutorial runs them: the clone's top
        for prog in ("ntprof", "ntprof-shell"):
            os.symlink(os.path.join(TOP, prog), os.path.join(d, prog))
        # the demo's two runs: SPDK-shaped, one in 100 sampled, the second
        # with storage 50 us slower; recorded ten seconds apart (-x)
        for pre, extra in (("", []), ("slow-", ["-M", "50000", "-x", "11"])):
            r = run([GEN, "-d", "host=spdk", "-d", "target=spdk", "-s", "100", "-n", "4",
                     "-r", "20000", "-o", f"demo-out/{pre}host.ntp",
                     "-t", f"demo-out/{pre}target.ntp"] + extra, d)
            check(f"ntprof-gen {pre}run", r.returncode == 0, r.stderr)
        ran = fixture = 0
        for b in blocks(text):
            for cmd, exp in commands(b):
                prog = program(cmd)
                if prog.startswith(".output/fixture_"):
                    fixture += 1
                    r = run([os.path.join(TOP, prog), "--help"], d)
                    for o in fixture_options(cmd):
                        check(f"'{cmd}': {o} in {prog} --help", o in r.stdout.split(),
                              "not an option of it")
                    continue
                if prog == "ntprof" and cmd.split()[1] in ("probe", "record"):
                    continue
                if prog not in ("ntprof", "ntprof-shell", "sqlite3"):
                    continue
                ran += 1
                r = run(["sh", "-c", cmd], d)
                check(f"'{cmd}': exit", r.returncode == 0, f"{r.returncode}: {r.stderr}")
                check(f"'{cmd}': stderr", r.stderr == "", r.stderr)
                expect_headers(f"'{cmd}'", exp, r.stdout)
            session = shell_session(b)
            if session:
                for cmd, exp in session:
                    ran += 1
                    r = run(["ntprof-shell", "demo-out/host.ntp", "demo-out/target.ntp"], d,
                            stdin=cmd + "\n")
                    check(f"ntprof> {cmd}: exit", r.returncode == 0, r.stderr)
                    check(f"ntprof> {cmd}: stderr", r.stderr == "", r.stderr)
                    expect_headers(f"ntprof> {cmd}", exp, r.stdout)
        check("the tutorial has commands to run", ran >= 10, f"only {ran}")
        check("the tutorial starts the fixture's target and host", fixture >= 2,
              f"{fixture} fixture command lines")
    print(f"tutorial_test: {passes} passed, {fails} failed")
    return 1 if fails else 0


sys.exit(main())
