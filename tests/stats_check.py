#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""The statistics commands against a brute-force computation from the raw
tables: each command's components from its stored point deltas (as
docs/schema.md defines them), the pairs of host and target records from
ntp_match, everything else here in Python. Checks .timeline, .hist, .cdf,
.slowest, .percentiles --stages, .queues, .tail (with `ntprof report --json --detail`'s
tail bands) and `ntprof report --timeline`.

  stats_check.py NTPROF NTPROF_SHELL HOST.db [TARGET.db]

Prints a FAIL line per difference and "N passed, M failed"; exits 1 on a
failure.
"""
import csv
import io
import json
import sqlite3
import subprocess
import sys

ntprof, shell, dbs = sys.argv[1], sys.argv[2], sys.argv[3:]
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print('FAIL: stats_check: %s' % what, file=sys.stderr)


def near(a, b, tol):
    return a is not None and b is not None and abs(float(a) - float(b)) <= tol


def z(v):
    return v or 0


def rank(vals, q):
    """Exact nearest rank, as docs/sql.md defines it: rank ceil(q n)."""
    v = sorted(vals)
    return v[(len(v) * q + 99999) // 100000 - 1]


def run_shell(*cmds):
    args = [shell, '-c', '.mode csv']
    for c in cmds:
        args += ['-c', c]
    out = subprocess.run(args + dbs, capture_output=True, text=True)
    check(out.returncode == 0, '%s: exit %d: %s' % (cmds, out.returncode, out.stderr))
    return list(csv.DictReader(io.StringIO(out.stdout)))


def recording(path):
    """Per command: (t, grp name, qid, cid, slba, components); the meta."""
    db = sqlite3.connect('file:%s?mode=ro' % path, uri=True)
    db.row_factory = sqlite3.Row
    meta = db.execute('SELECT * FROM meta').fetchone()
    names = dict(db.execute('SELECT grp, name FROM ntp_grp_info').fetchall())
    cmds = []
    for r in db.execute('SELECT * FROM cmd ORDER BY t'):
        c = {'t': r['t'], 'grp': r['grp'], 'name': names[r['grp']], 'qid': r['qid'],
             'cid': r['cid'], 'slba': r['slba']}
        if meta['role'] == 'host':
            c['blk'] = z(r['h_queue']) + z(r['h_end'])
            c['drv'] = z(r['h_sent']) + z(r['h_data_sent']) + z(r['h_cqe']) + z(r['h_complete'])
            c['rx'] = z(r['h_rx_drv'])
            c['wait'] = z(r['h_r2t_rx']) + z(r['h_rx'])
            c['e2e'] = sum(z(r[p]) for p in ('h_start', 'h_queue', 'h_sent', 'h_r2t_rx',
                                              'h_data_sent', 'h_rx', 'h_rx_drv', 'h_cqe',
                                              'h_complete', 'h_end'))
        else:
            c['t_rx_path'] = z(r['t_cmd'])
            c['t_drv'] = z(r['t_r2t']) + z(r['t_exec']) + z(r['t_resp']) + z(r['t_sent'])
            c['t_data_wait'] = z(r['t_data_rx'])
            c['t_storage'] = z(r['t_stor'])
            c['e2e'] = sum(z(r[p]) for p in ('t_cmd', 't_r2t', 't_data_rx', 't_exec',
                                              't_stor', 't_resp', 't_sent'))
        cmds.append(c)
    dur = meta['mono_stop'] - meta['mono_start']
    # records lost: (the end of the interval they were counted in, n)
    meta = dict(meta)
    meta['lost'] = db.execute('SELECT i.stop, l.n FROM lost AS l '
                              'JOIN interval AS i ON i.id = l.interval').fetchall()
    return meta, cmds, dur


recs = {}
for p in dbs:
    meta, cmds, dur = recording(p)
    recs[meta['role']] = (meta, cmds, dur)
hmeta, hcmds, hdur = recs['host']
rate = hmeta['sample_rate']


def stages(c, joined):
    """A host command's stages: the joined path's, or the host's own."""
    s = {'host_block': c['blk'], 'host_driver': c['drv']}
    if joined:
        t = c['target']
        wire = c['wait'] - (t['e2e'] - t['t_data_wait'])
        s.update(network=wire + t['t_rx_path'] + c['rx'], target_driver=t['t_drv'],
                 storage=t['t_storage'])
    else:
        s.update(host_rx=c['rx'], net_target=c['wait'])
    return s


def buckets(cmds, width, dur):
    """{(group, bucket): [commands]} from each command's t."""
    first = min(c['t'] for c in cmds)
    out = {}
    for c in cmds:
        out.setdefault((c['name'], (c['t'] - first) // width), []).append(c)
    return out, first


def bucket_len(b, width, first, dur):
    return min(width, dur - first - b * width)


# ---- .timeline WIDTH: each recording's own series ----
for width in (300000000, 500000000, 1000000000, 2000000000):
    rows = run_shell('.timeline %g' % (width / 1e9))
    for role, (meta, cmds, dur) in recs.items():
        # t_s as a number: CSV prints a REAL as SQLite's text (0.0, 1.5)
        got = {(r['group'], round(float(r['t_s']), 9)): r for r in rows if r['db'] == role}
        want, first = buckets(cmds, width, dur)
        check(len(got) == len(want), '.timeline %d: %s: %d buckets, expected %d'
              % (width, role, len(got), len(want)))
        check(sum(int(r['sampled']) for r in got.values()) == len(cmds),
              '.timeline %d: %s: the buckets do not add up to the commands' % (width, role))
        for (name, b), cs in want.items():
            r = got.get((name, round(b * width / 1e9, 9)))
            what = '.timeline %d: %s %s bucket %d' % (width, role, name, b)
            if not r:
                check(False, what + ': missing (or mislabelled)')
                continue
            e = [c['e2e'] for c in cs]
            n = len(cs)
            dt = bucket_len(b, width, first, dur)
            check(int(r['sampled']) == n, what + ': sampled')
            check(near(r['dt_s'], dt / 1e9, 1e-9), what + ': dt_s')
            check(near(r['cmds_per_s'], 1e9 * n * meta['sample_rate'] / dt, 0.051),
                  what + ': cmds_per_s %s' % r['cmds_per_s'])
            check(near(r['mean_us'], sum(e) / n / 1e3, 0.0051), what + ': mean_us')
            check(near(r['p99_us'], rank(e, 99000) / 1e3, 0.0051), what + ': p99_us')
            # Little's law: rate x mean
            check(near(r['qd'], meta['sample_rate'] * sum(e) / dt, 0.0051), what + ': qd')
            # the recording's losses in the intervals that end in the bucket
            lost = sum(n for stop, n in meta['lost'] if max(0, (stop - 1 - first) // width) == b)
            check(int(r['lost']) == lost, what + ': lost %s, expected %d' % (r['lost'], lost))

# the host's commands with their target records, paired as ntp_match pairs them
joined = 'target' in recs
if joined:
    tcmds = {c['t']: c for c in recs['target'][1]}
    for m in run_shell('SELECT ht, tt FROM ntp_match;'):
        hc = next(c for c in hcmds if c['t'] == int(m['ht']))
        hc['target'] = tcmds[int(m['tt'])]
report = [c for c in hcmds if not joined or 'target' in c]

# ---- .hist and .cdf of e2e ----
hist = run_shell(".hist '' e2e")
cdf = run_shell(".cdf '' e2e")
for name in sorted({c['name'] for c in report}):
    e = [c['e2e'] for c in report if c['name'] == name]
    count = {}
    for v in e:
        k = -1 if v < 1000 else (v // 1000).bit_length() - 1
        count[k] = count.get(k, 0) + 1
    rows = [r for r in hist if r['group'] == name]
    top = max(count.values())
    want = [(0 if k < 0 else 1 << k, 1 << (k + 1), count.get(k, 0),
             '|%-40s|' % ('*' * (count.get(k, 0) * 40 // top))) for k in range(-1, max(count) + 1)]
    check([(int(r['lo_us']), int(r['hi_us']), int(r['count']), r['distribution'])
           for r in rows] == want, '.hist %s e2e: %s, expected %s' % (name, rows, want))
    rows = [r for r in cdf if r['group'] == name]
    cum = [int(r['cmds']) for r in rows]
    check(rows and float(rows[-1]['fraction']) == 1.0 and cum[-1] == len(e),
          '.cdf %s: does not end at 1 with every command' % name)
    check(cum[0] == e.count(min(e)) and cum == sorted(set(cum)) and
          all(near(r['fraction'], int(r['cmds']) / len(e), 1e-12) for r in rows),
          '.cdf %s: the counts or fractions are not the shares at or below' % name)

# ---- .slowest ----
rows = run_shell('.slowest 5')
want = sorted(hcmds, key=lambda c: -c['e2e'])[:5]
check(len(rows) == 5 and all(int(r['qid']) == c['qid'] and int(r['cid']) == c['cid'] and
                             int(r['slba']) == c['slba'] and
                             near(r['e2e_us'], c['e2e'] / 1e3, 0.0051)
                             for r, c in zip(rows, want)), '.slowest 5: %s' % rows)
for r, c in zip(rows, want):
    for st, v in stages(c, 'target' in c).items():
        check(near(r[st + '_us'], v / 1e3, 0.0051), '.slowest: %s of %s' % (st, r))

# ---- .percentiles --stages ----
rows = run_shell('.percentiles --stages')
# the rows name the stages by label
label = {(r['g'], r['stage']): r['label'] for r in run_shell(
    'SELECT g.name AS g, s.stage, s.label FROM ntp_report_stage AS s '
    'JOIN ntp_report_group AS g USING (hdb, grp);')}
for name in sorted({c['name'] for c in report}):
    cs = [c for c in report if c['name'] == name]
    for st in stages(cs[0], joined):
        v = [stages(c, joined)[st] for c in cs]
        r = [r for r in rows if r['group'] == name and r['stage'] == label.get((name, st))]
        check(len(r) == 1 and int(r[0]['n']) == len(v) and
              near(r[0]['mean_us'], sum(v) / len(v) / 1e3, 0.0051) and
              all(near(r[0][p], rank(v, q) / 1e3, 0.0051) for p, q in
                  (('p50_us', 50000), ('p90_us', 90000), ('p99_us', 99000),
                   ('p999_us', 99900))), '.percentiles --stages: %s %s: %s' % (name, st, r))

# ---- .tail and report --detail --json's tail[]: the tail bands ----
# each group's commands sorted by end to end (then host cmd.t), cut at the
# nearest ranks of the p50, p90, p99 and p99.9; per band each stage's mean
tail = run_shell('.tail')
doc = subprocess.run([ntprof, 'report', '--json', '--detail'] + dbs, capture_output=True,
                     text=True)
check(doc.returncode == 0, 'report --json --detail: exit %d' % doc.returncode)
jgroups = {g['name']: g for g in json.loads(doc.stdout)['groups']} if doc.returncode == 0 else {}
bands = ('p0-50', 'p50-90', 'p90-99', 'p99-99.9', 'p99.9-100')
for name in sorted({c['name'] for c in report}):
    cs = sorted((c for c in report if c['name'] == name), key=lambda c: (c['e2e'], c['t']))
    n = len(cs)
    cuts = [(n * q + 99999) // 100000 for q in (50000, 90000, 99000, 99900)] + [n]
    want, lo = [], 0
    for b, hi in zip(bands, cuts):
        part = cs[lo:hi]
        lo = max(lo, hi)
        if not part:
            continue
        e = [c['e2e'] for c in part]
        st = {k: sum(stages(c, joined)[k] for c in part) for k in stages(part[0], joined)}
        top = max(st, key=lambda k: st[k])  # the first on a tie, in stage order
        for k, v in st.items():
            want.append((b, len(part), min(e), max(e), sum(e) / len(e), k, v / len(part),
                         v / sum(e), k == top))
    got = [r for r in tail if r['group'] == name]
    what = '.tail %s' % name
    check(len(got) == len(want), what + ': %d rows, expected %d' % (len(got), len(want)))
    for r, w in zip(got, want):
        check(r['band'] == w[0] and int(r['cmds']) == w[1] and
              near(r['e2e_us'], w[4] / 1e3, 0.0051) and r['stage'] == label.get((name, w[5]))
              and near(r['mean_us'], w[6] / 1e3, 0.0051) and
              near(r['share_pct'], 100 * w[7], 0.5 + 1e-9) and
              (r['largest'] == '*') == w[8], what + ': %s, expected %s' % (r, w))
    rows = jgroups.get(name, {}).get('tail', [])
    check(len(rows) == len(want), 'report -j -d %s: %d tail rows, expected %d'
          % (name, len(rows), len(want)))
    for r, w in zip(rows, want):
        check(r['band'] == w[0] and r['n'] == w[1] and r['e2e_min_ns'] == w[2] and
              r['e2e_max_ns'] == w[3] and near(r['e2e_mean_ns'], w[4], 1e-6) and
              r['stage'] == w[5] and near(r['mean_ns'], w[6], 1e-6) and
              near(r['share'], w[7], 1e-9) and r['largest'] == int(w[8]),
              'report -j -d %s: %s, expected %s' % (name, r, w))

# ---- .queues: per group and qid ----
queues = run_shell('.queues')
grate = {r['name']: float(r['rate']) for r in run_shell('SELECT name, rate FROM ntp_report_group;')}
for name in sorted({c['name'] for c in report}):
    cs = [c for c in report if c['name'] == name]
    got = [r for r in queues if r['group'] == name]
    qids = sorted({c['qid'] for c in cs})
    check([int(r['qid']) for r in got] == qids, '.queues %s: qids %s, expected %s'
          % (name, [r['qid'] for r in got], qids))
    for r in got:
        e = [c['e2e'] for c in cs if c['qid'] == int(r['qid'])]
        share = len(e) / len(cs)
        what = '.queues %s qid %s' % (name, r['qid'])
        check(int(r['cmds']) == len(e) and near(r['share_pct'], 100 * share, 0.051) and
              near(r['cmds_per_s'], grate[name] * share, 0.051) and
              near(r['mean_us'], sum(e) / len(e) / 1e3, 0.0051) and
              near(r['p50_us'], rank(e, 50000) / 1e3, 0.0051) and
              near(r['p99_us'], rank(e, 99000) / 1e3, 0.0051) and
              near(r['qd'], grate[name] * share * sum(e) / len(e) / 1e9, 0.0051),
              what + ': %s' % r)

# ---- ntprof report --timeline: the report unchanged, then the series ----
plain = subprocess.run([ntprof, 'report'] + dbs, capture_output=True, text=True).stdout
out = subprocess.run([ntprof, 'report', '--timeline', '500ms'] + dbs, capture_output=True,
                     text=True)
check(out.returncode == 0 and out.stdout.startswith(plain),
      'report --timeline: the report before the series differs from the plain one')
lines = out.stdout[len(plain):].splitlines()
check(lines[:1] == ["time series: buckets of 0.5 s from each host's first command (t_s: "
                    "bucket start, s); mean, p99 and each stage's mean in us"],
      'report --timeline: first line %s' % lines[:1])
want, first = buckets(report, 500000000, hdur)
group = heading = None
seen = 0
for line in lines[1:]:
    f = line.split()
    if line.startswith('== '):
        group, heading = line[3:], None
    elif heading is None:
        heading = f
    else:
        b = round(float(f[0]) / 0.5)
        cs = want.get((group, b), [])
        what = 'report --timeline: %s bucket %s' % (group, f[0])
        seen += len(cs)
        if not cs:
            check(False, what + ': no such bucket')
            continue
        e = [c['e2e'] for c in cs]
        st = [stages(c, joined) for c in cs]
        check(f[0] == '%.1f' % (b * 0.5), what + ': label')
        check(int(f[1]) == round(1e9 * len(cs) * rate / bucket_len(b, 500000000, first, hdur)),
              what + ': cmds/s')
        check(near(f[2], sum(e) / len(e) / 1e3, 0.0051) and
              near(f[3], rank(e, 99000) / 1e3, 0.0051), what + ': mean, p99')
        check(heading[4:] == list(st[0]) and
              all(near(f[4 + i], sum(s[k] for s in st) / len(st) / 1e3, 0.0051)
                  for i, k in enumerate(heading[4:])), what + ': stages %s' % heading[4:])
check(seen == len(report), 'report --timeline: %d commands in the buckets, expected %d'
      % (seen, len(report)))

print('%d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
