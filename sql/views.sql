-- ntprof per-machine report views, host or target: groups, rates, component
-- statistics, stages, throughput and the timeline. Portable SQL: runs in
-- plain sqlite3 3.40. Percentiles are exact, nearest rank: the value at rank
-- ceil(q * n) of the n sorted values (docs/sql.md), computed here with window
-- functions; ntprof-shell swaps in a native aggregate with the same result
-- (native.sql).

-- Groups with their report names: 'read 4KiB nvme1n1', 'keep-alive
-- spdk-c1n0'. A read's or write's size is known once its device's block
-- size is (lba_shift >= 9); before, it is counted in blocks.
CREATE VIEW ntp_grp_info AS
WITH g AS (
  SELECT g.*,
    CASE WHEN g.opcode = 127 THEN 'fabrics' WHEN g.admin THEN 'admin' ELSE 'io' END AS queue,
    CASE WHEN g.opcode = 127 THEN g.fctype ELSE g.opcode END AS code
  FROM grp AS g
)
SELECT
  g.id AS grp,                 -- grp.id
  g.queue AS queue,            -- 'io', 'admin' or 'fabrics'
  coalesce(o.name, CASE g.queue WHEN 'fabrics' THEN printf('fabrics%02x', g.fctype)
    ELSE printf('op%02x', g.opcode) END) AS op,          -- operation name
  CASE WHEN g.queue = 'io' AND g.opcode IN (1, 2) AND d.lba_shift >= 9
    THEN (g.nlb + 1) << d.lba_shift END AS bytes,       -- data size
  d.name AS device,            -- device.name
  d.nqn AS nqn,                -- subsystem NQN
  d.cntlid AS cntlid,          -- controller id
  d.nsid AS nsid,              -- namespace id
  g.admin AS admin,            -- 1: admin queue
  g.opcode AS opcode,          -- NVMe opcode
  g.fctype AS fctype,          -- fabrics command type (opcode 0x7f), else 0
  g.nlb AS nlb,                -- 0-based number of logical blocks
  -- 'read 4KiB nvme1n1': operation, size (reads and writes), device.
  coalesce(o.name, CASE g.queue WHEN 'fabrics' THEN printf('fabrics%02x', g.fctype)
    ELSE printf('op%02x', g.opcode) END)
  || CASE WHEN g.queue != 'io' OR g.opcode NOT IN (1, 2) THEN ''
       WHEN d.lba_shift < 9 THEN ' ' || (g.nlb + 1) || ' blocks'
       WHEN ((g.nlb + 1) << d.lba_shift) % 1048576 = 0
         THEN ' ' || (((g.nlb + 1) << d.lba_shift) / 1048576) || 'MiB'
       WHEN ((g.nlb + 1) << d.lba_shift) % 1024 = 0
         THEN ' ' || (((g.nlb + 1) << d.lba_shift) / 1024) || 'KiB'
       ELSE ' ' || ((g.nlb + 1) << d.lba_shift) || 'B' END
  || ' ' || d.name AS name
FROM g
JOIN device AS d ON d.id = g.device
LEFT JOIN opcode AS o ON o.queue = g.queue AND o.code = g.code;

-- The recording as a whole. One row.
CREATE VIEW ntp_recording AS
SELECT
  m.role AS role,               -- 'host' or 'target'
  m.driver AS driver,           -- 'kernel' or 'spdk'
  m.transport AS transport,     -- 'tcp' or 'rdma'
  m.hostname AS hostname,       -- machine
  m.kernel AS kernel,           -- kernel release
  m.sample_rate AS sample_rate, -- one command in sample_rate sampled
  -- Recording length in ns: stop - start, or up to the last interval or
  -- command when the recording did not stop cleanly.
  coalesce(m.mono_stop - m.mono_start,
           (SELECT max(stop) FROM interval),
           (SELECT max(t) FROM cmd), 0) AS duration_ns,
  (SELECT count(*) FROM cmd) AS records,                  -- sampled commands stored
  (SELECT coalesce(sum(n), 0) FROM lost) AS lost,         -- records lost
  (SELECT coalesce(sum(n), 0) FROM gap) AS gaps,          -- points missing from stored ones
  m.mono_stop IS NOT NULL AS complete                     -- 1: stopped cleanly
FROM meta AS m;

-- Per group: sampled commands and the command rate over the time the
-- group was active: exact where every interval counted all commands
-- (kernel), else estimated as sampled x N. The active time is the span
-- from the group's first sampled command to its last, widened by one
-- average gap (x n / (n - 1)), so that idle time before and after a
-- workload does not dilute its rate; with fewer than two samples it is the
-- whole recording. Every group is listed, also one counted but never
-- sampled.
CREATE VIEW ntp_grp_rate AS
WITH counted AS (
  SELECT grp, sum(total) AS total, count(*) = count(total) AS all_counted
  FROM interval_grp GROUP BY grp
), sampled AS MATERIALIZED (
  -- per group (few groups): a count, and its first and last command by
  -- rowid order, without a sort of cmd; unary + keeps the rowid scans;
  -- computed once (MATERIALIZED), not again for each use of n below
  SELECT g.id AS grp,
    (SELECT count(*) FROM cmd WHERE +cmd.grp = g.id) AS n,
    (SELECT t FROM cmd WHERE +cmd.grp = g.id ORDER BY t LIMIT 1) AS first_t,
    (SELECT t FROM cmd WHERE +cmd.grp = g.id ORDER BY t DESC LIMIT 1) AS last_t
  FROM grp AS g
), span AS (
  SELECT s.*,
    CASE WHEN s.n >= 2 AND s.last_t > s.first_t
      THEN (s.last_t - s.first_t) * s.n * 1.0 / (s.n - 1) END AS active_ns
  FROM sampled AS s
)
SELECT
  s.grp AS grp,                         -- grp.id
  s.n AS sampled,                       -- sampled commands stored
  CASE WHEN c.all_counted THEN c.total END AS total, -- all commands, NULL: not counted
  coalesce(c.all_counted, 0) AS exact,  -- 1: rate counted, 0: estimated
  -- ns the group was active: its sampled span, else the whole recording
  coalesce(min(s.active_ns, r.duration_ns), r.duration_ns) AS active_ns,
  -- commands per second while active
  CASE WHEN coalesce(min(s.active_ns, r.duration_ns), r.duration_ns) > 0 THEN
    1e9 * (CASE WHEN c.all_counted THEN c.total ELSE s.n * r.sample_rate END)
      / coalesce(min(s.active_ns, r.duration_ns), r.duration_ns) END AS rate
FROM span AS s
CROSS JOIN ntp_recording AS r
LEFT JOIN counted AS c ON c.grp = s.grp;

-- Per group and component: count, sum, mean and exact percentiles (ns).
CREATE VIEW ntp_component_stats AS
WITH ranked AS (
  SELECT grp, component, ns,
    row_number() OVER (PARTITION BY grp, component ORDER BY ns) AS rn,
    count(*) OVER (PARTITION BY grp, component) AS n
  FROM ntp_cmd_component
  WHERE ns IS NOT NULL
)
SELECT
  grp,                    -- grp.id
  component,              -- component.name
  n,                      -- commands that have the component
  sum(ns) AS sum_ns,      -- total ns
  avg(ns) AS mean_ns,     -- mean ns
  -- nearest-rank percentiles: rank ceil(q n), as (n q' + 99999) / 100000
  max(CASE WHEN rn = (n * 50000 + 99999) / 100000 THEN ns END) AS p50_ns,
  max(CASE WHEN rn = (n * 99000 + 99999) / 100000 THEN ns END) AS p99_ns,
  max(CASE WHEN rn = (n * 99900 + 99999) / 100000 THEN ns END) AS p999_ns
FROM ranked
GROUP BY grp, component;

-- Per group and stage of a one-machine report: mean, share of the mean
-- latency, average queue depth by Little's law (rate x mean) and the bar.
CREATE VIEW ntp_stage_stats AS
WITH m AS (SELECT * FROM meta),
total AS (
  SELECT s.grp, s.mean_ns, s.n FROM ntp_component_stats AS s
  JOIN component AS k ON k.name = s.component AND k.total = 1
)
SELECT
  cs.grp AS grp,                     -- grp.id
  st.name AS stage,                  -- stage.name
  st.ord AS ord,                     -- report order
  sl.label AS label,                 -- label for this driver / transport
  sum(cs.sum_ns) * 1.0 / total.n AS mean_ns, -- mean over all the group's commands
  sum(cs.sum_ns) * 1.0 / total.n / total.mean_ns AS share, -- of the mean latency
  r.rate * sum(cs.sum_ns) / total.n / 1e9 AS avg_qd,       -- Little's law
  CAST(round(c.bar_width * sum(cs.sum_ns) * 1.0 / total.n / total.mean_ns) AS INTEGER)
    AS bar -- '#'s, ntp_constant.bar_width at a share of 1
FROM ntp_component_stats AS cs
JOIN component AS k ON k.name = cs.component
JOIN stage AS st ON st.name = k.stage_local
CROSS JOIN m
JOIN stage_label AS sl ON sl.stage = st.name
  AND sl.flavour = CASE st.side WHEN 'transport' THEN m.transport ELSE m.driver END
JOIN total ON total.grp = cs.grp
JOIN ntp_grp_rate AS r ON r.grp = cs.grp
JOIN ntp_constant AS c
GROUP BY cs.grp, st.name;

-- Throughput per I/O operation: commands and bytes per second while active,
-- exact where counted, else estimated from the samples.
CREATE VIEW ntp_throughput AS
SELECT
  gi.op AS op,                                   -- read, write, flush, ...
  sum(r.rate) AS iops,                           -- commands per second
  sum(r.rate * coalesce(gi.bytes, 0)) AS bytes_per_s, -- bytes per second
  min(r.exact) AS exact                          -- 1: counted, 0: estimated
FROM ntp_grp_rate AS r
JOIN ntp_grp_info AS gi ON gi.grp = r.grp
WHERE gi.queue = 'io'
GROUP BY gi.op;

-- Per interval and group: samples, rate and mean latency, as the live view
-- shows them. Columns in ns since meta.mono_start.
CREATE VIEW ntp_timeline AS
SELECT
  i.id AS interval,             -- interval.id
  i.start AS start,             -- ns since mono_start
  i.stop AS stop,               -- ns since mono_start
  ig.grp AS grp,                -- grp.id
  ig.sampled AS sampled,        -- sampled commands in the interval
  ig.total AS total,            -- all commands, NULL: not counted
  1e9 * coalesce(ig.total, ig.sampled * m.sample_rate) / (i.stop - i.start) AS rate, -- cmds/s
  (SELECT coalesce(sum(l.n), 0) FROM lost AS l WHERE l.interval = i.id)
    AS lost,                    -- records lost in the interval (all groups)
  (SELECT avg(x.ns) FROM ntp_cmd_e2e AS x
   WHERE x.t >= i.start AND x.t < i.stop AND x.grp = ig.grp) AS mean_ns -- mean latency, ns
FROM interval AS i
JOIN interval_grp AS ig ON ig.interval = i.id
CROSS JOIN meta AS m
WHERE i.stop > i.start;

-- Records lost while recording, per cause, over the whole recording.
CREATE VIEW ntp_lost_by_cause AS
SELECT
  c.name AS cause,              -- cause.name
  c.description AS description, -- what happened
  sum(l.n) AS n                 -- records lost
FROM lost AS l
JOIN cause AS c ON c.code = l.cause
GROUP BY c.code
ORDER BY n DESC, c.code;

-- Points missing from stored commands, per point and cause, over the whole
-- recording: every gap the collector counted (docs/stages.md).
CREATE VIEW ntp_gap_by_cause AS
SELECT
  g.point AS point,             -- the missing point
  c.name AS cause,              -- cause.name
  c.description AS description, -- why it is missing
  sum(g.n) AS n                 -- commands that lack it for this cause
FROM gap AS g
JOIN cause AS c ON c.code = g.cause
JOIN point AS p ON p.name = g.point
GROUP BY g.point, c.code
ORDER BY p.ord, n DESC, c.code;
