-- ntprof compare: runs side by side, as TEMP views over the report's. A run
-- is a host recording, or a host and a target recording of the same run
-- (ntp_run says which recording is in which run; the join pairs a host only
-- with its run's target). The I/O groups of the runs are matched by
-- operation and size (device names differ between runs: nvme1n1,
-- spdk-c1n1), and per group each stage (the report's stages: the same
-- components, stages and labels, from the component, stage and stage_label
-- tables) gets a mean and a p99 per run, and per run after the first its
-- difference from the first with a 95 % confidence interval: Welch's
-- difference of two means, with the normal approximation (1.96 standard
-- errors), so that noise is not called a change. sqrt() is one of SQLite's
-- math functions (in Debian's sqlite3 and libsqlite3 since 3.35).

-- How a session treats these views (join.sql, _ntp_view_plan): they read
-- the join and the report's groups, so a query prepares first.
INSERT INTO _ntp_view_plan VALUES
  ('_ntp_compare_group', NULL, 0, 1),
  ('_ntp_compare_item', NULL, 0, 1),
  ('_ntp_compare_label', NULL, 0, 1),
  ('_ntp_compare_cmd', NULL, 0, 1),
  ('ntp_compare_stage', NULL, 0, 1),
  ('ntp_compare_diff', NULL, 0, 1),
  ('ntp_compare_moved', NULL, 0, 1),
  ('ntp_compare_rows', NULL, 0, 1),
  ('_ntp_text_compare', NULL, 0, 1);

-- The smallest change worth a mark, one row, 1 % unless changed:
-- UPDATE ntp_compare_threshold SET min_effect_pct = 5; (ntprof compare -m).
-- With many commands a confidence interval is narrow enough to exclude 0
-- for a shift far too small to matter; a difference is called a change
-- only when its interval excludes 0 and it is at least this large. It is a
-- share of the whole command's latency, not of the row's own mean: a stage
-- of 0.2 us that gains 0.1 us has grown by half, but the command by 0.1 %.
CREATE TEMP TABLE ntp_compare_threshold (
  -- The smallest change, % of the first run's mean end to end (>= 0).
  min_effect_pct REAL NOT NULL CHECK (min_effect_pct >= 0)
);
INSERT INTO ntp_compare_threshold VALUES (1.0);

-- The I/O groups of every run, with what names their stages.
CREATE TEMP VIEW _ntp_compare_group AS
SELECT
  r.run AS run,                  -- ntp_run.run
  r.ord AS run_ord,              -- its place, 0 first
  g.hdb AS hdb,                  -- host database
  g.grp AS grp,                  -- grp.id there
  g.op AS op,                    -- read, write, ...
  g.bytes AS bytes,              -- bytes per command
  -- 'read 4KiB': the group's name without its device
  substr(h.name, 1, length(h.name) - length(h.device) - 1) AS name,
  g.mode AS mode,                -- joined or host
  g.host_driver AS host_driver, g.transport AS transport, g.target_driver AS target_driver
FROM ntp_report_group AS g
JOIN ntp_run AS r ON r.db = g.hdb
JOIN ntp_host_grp AS h ON h.db = g.hdb AND h.grp = g.grp
WHERE g.queue = 'io';

-- Per run's group and row of its table: the row's kind, place and label.
-- A row per stage of the group's report (ntp_report_stage, whose labels
-- name the drivers), end to end, and a row per component in a stage of
-- the group's report mode.
CREATE TEMP VIEW _ntp_compare_item AS
SELECT g.run, g.run_ord, g.hdb, g.grp, g.op, g.bytes, g.name,
  'stage' AS kind,             -- stage, total (end to end) or component
  s.stage AS item,             -- stage.name or component.name
  s.ord AS ord,                -- table order
  s.label AS label             -- the report's label
FROM _ntp_compare_group AS g
JOIN ntp_report_stage AS s ON s.hdb = g.hdb AND s.grp = g.grp
UNION ALL
SELECT g.run, g.run_ord, g.hdb, g.grp, g.op, g.bytes, g.name,
  CASE WHEN k.total THEN 'total' ELSE 'component' END, k.name,
  CASE WHEN k.total THEN 100 ELSE 200 + k.ord END, k.label
FROM _ntp_compare_group AS g
JOIN component AS k ON k.total
  OR CASE g.mode WHEN 'joined' THEN k.stage_joined ELSE k.stage_local END IS NOT NULL;

-- The same per run and group (operation and size) matched across runs,
-- the devices of a run taken together.
CREATE TEMP VIEW _ntp_compare_label AS
SELECT run, run_ord, op, bytes,
  max(name) AS name,           -- 'read 4KiB'
  kind, item,
  max(ord) AS ord,             -- table order
  max(label) AS label          -- the report's label
FROM _ntp_compare_item
GROUP BY run, op, bytes, kind, item;

-- Per run, group, command and row of the table: the command's time in a
-- stage, end to end, or in a component: the values the report's
-- statistics are over (_ntp_report_cmd_value, from ntp_command: a group's
-- commands of its report mode; a stage's time is the sum of its
-- components, a command lacking one left out of that stage).
CREATE TEMP VIEW _ntp_compare_cmd AS
WITH i AS MATERIALIZED (SELECT * FROM _ntp_compare_item)
SELECT
  i.run AS run,                -- ntp_run.run
  i.op AS op, i.bytes AS bytes, -- the group
  i.kind AS kind,              -- stage, total or component
  i.item AS item,              -- stage.name or component.name
  v.hdb AS hdb, v.ht AS t,     -- the command
  v.ns AS ns                   -- ns
FROM _ntp_report_cmd_value AS v
JOIN i ON i.hdb = v.hdb AND i.grp = v.grp AND i.item = v.name
  AND (i.kind = 'stage') = (v.kind = 'stage');

-- Per run, group (operation and size) and row: commands, mean, sample
-- variance and exact nearest-rank percentiles, ns.
CREATE TEMP VIEW ntp_compare_stage AS
WITH r AS (
  SELECT *,
    row_number() OVER (PARTITION BY run, op, bytes, kind, item ORDER BY ns) AS rn,
    count(*) OVER (PARTITION BY run, op, bytes, kind, item) AS n
  FROM _ntp_compare_cmd
), s AS (
  SELECT run, op, bytes, kind, item, n, avg(ns) AS mean_ns,
    (total(ns * ns) - total(ns) * total(ns) / n) / (n - 1) AS var_ns2,
    max(CASE WHEN rn = (n * 50000 + 99999) / 100000 THEN ns END) AS p50_ns,
    max(CASE WHEN rn = (n * 99000 + 99999) / 100000 THEN ns END) AS p99_ns
  FROM r
  GROUP BY run, op, bytes, kind, item
)
SELECT
  s.run AS run,                -- ntp_run.run
  m.run_ord AS run_ord,        -- its place, 0 first
  s.op AS op,                  -- read, write, ...
  s.bytes AS bytes,            -- bytes per command
  m.name AS name,              -- 'read 4KiB'
  s.kind AS kind,              -- stage, total (end to end) or component
  s.item AS item,              -- stage.name, or component.name
  m.ord AS ord,                -- table order
  m.label AS label,            -- the report's label
  s.n AS n,                    -- commands
  s.mean_ns AS mean_ns,        -- mean ns
  -- sample variance, ns^2 (NULL for one command); in REAL, whose 53 bits
  -- keep it exact enough for sums of squared ns over millions of commands
  s.var_ns2 AS var_ns2,
  s.p50_ns AS p50_ns,          -- median
  s.p99_ns AS p99_ns           -- 99th
FROM s
JOIN _ntp_compare_label AS m ON m.run = s.run AND m.op IS s.op AND m.bytes IS s.bytes
  AND m.kind = s.kind AND m.item = s.item
ORDER BY m.run_ord, s.op, s.bytes, m.ord;

-- The cache of ntp_compare_stage, built faster (join.sql, _ntp_cache_build;
-- ntprof compare builds it, no report needs it): the commands' times sorted
-- once into a table whose rowids follow the sort, so a percentile is one
-- rowid lookup, where the view's window numbers every row and counts every
-- partition. Same rows. (The native form, native.sql, needs no sort.)
INSERT INTO _ntp_cache_build VALUES ('ntp_compare_stage', '
CREATE TEMP TABLE _ntp_compare_sorted AS
SELECT run, op, bytes, kind, item, ns FROM _ntp_compare_cmd
ORDER BY run, op, bytes, kind, item, ns;
CREATE TEMP TABLE _ntp_compare_stage_cache AS
WITH p AS (
  SELECT run, op, bytes, kind, item, min(rowid) AS r0, count(*) AS n, avg(ns) AS mean_ns,
    (total(ns * ns) - total(ns) * total(ns) / count(*)) / (count(*) - 1) AS var_ns2
  FROM _ntp_compare_sorted
  GROUP BY run, op, bytes, kind, item
)
SELECT p.run, m.run_ord, p.op, p.bytes, m.name, p.kind, p.item, m.ord, m.label, n, mean_ns,
  var_ns2,
  (SELECT ns FROM _ntp_compare_sorted WHERE rowid = r0 + (n * 50000 + 99999) / 100000 - 1)
    AS p50_ns,
  (SELECT ns FROM _ntp_compare_sorted WHERE rowid = r0 + (n * 99000 + 99999) / 100000 - 1)
    AS p99_ns
FROM p
JOIN _ntp_compare_label AS m ON m.run = p.run AND m.op IS p.op AND m.bytes IS p.bytes
  AND m.kind = p.kind AND m.item = p.item
ORDER BY m.run_ord, p.op, p.bytes, m.ord;
DROP TABLE _ntp_compare_sorted;');

-- Per run after the first, group and row both have: the difference of the
-- means from the first run's, with its 95 % confidence interval (Welch, the
-- normal approximation: 1.96 standard errors of the difference), and
-- whether it is a change: beyond noise (the interval excludes 0) and at
-- least ntp_compare_threshold's share of the first run's mean end to end.
CREATE TEMP VIEW ntp_compare_diff AS
WITH d AS (
  SELECT c.*, b.run AS base_run, e.mean_ns AS base_e2e_ns, c.mean_ns - b.mean_ns AS diff_ns,
    1.96 * sqrt(c.var_ns2 / c.n + b.var_ns2 / b.n) AS half_ns
  FROM ntp_compare_stage AS c
  JOIN ntp_compare_stage AS b ON b.run_ord = 0 AND b.op IS c.op AND b.bytes IS c.bytes
    AND b.kind = c.kind AND b.item = c.item
  JOIN ntp_compare_stage AS e ON e.run_ord = 0 AND e.op IS c.op AND e.bytes IS c.bytes
    AND e.kind = 'total'
  WHERE c.run_ord > 0
)
SELECT
  run,                         -- ntp_run.run
  run_ord,                     -- its place
  base_run,                    -- the first run's, compared with
  op, bytes, name,             -- the group
  kind, item, ord, label,      -- the row
  diff_ns,                     -- mean here - mean in base_run, ns
  diff_ns - half_ns AS ci_lo_ns, -- 95 % confidence interval, ns
  diff_ns + half_ns AS ci_hi_ns,
  -- diff_ns, % of base_run's mean end to end (NULL when that is 0)
  100.0 * diff_ns / nullif(base_e2e_ns, 0) AS effect_pct,
  coalesce(abs(diff_ns) > half_ns, 0) AS beyond_noise, -- 1: the interval excludes 0
  -- 1: a change, beyond noise and at least the threshold's share of the
  -- mean end to end
  coalesce(abs(diff_ns) > half_ns, 0)
    AND abs(diff_ns) >= abs(base_e2e_ns) * t.min_effect_pct / 100 AS significant
FROM d
CROSS JOIN ntp_compare_threshold AS t;

-- Per run after the first and group: the stage whose mean moved most from
-- the first run's, among its changes (ntp_compare_diff.significant); no
-- row: none changed.
CREATE TEMP VIEW ntp_compare_moved AS
SELECT run, run_ord, base_run, op, bytes, name,
  item AS stage,               -- stage.name
  label,                       -- its label
  diff_ns, ci_lo_ns, ci_hi_ns, -- as in ntp_compare_diff
  effect_pct
FROM (SELECT *, row_number() OVER (PARTITION BY run, op, bytes
                                   ORDER BY abs(diff_ns) DESC, ord) AS rn
      FROM ntp_compare_diff
      WHERE kind = 'stage' AND significant)
WHERE rn = 1;

-- The comparison in one long table, unrounded, in the text's order: per
-- group (in the order of the first run that has it), row and run, the
-- run's statistics and, after the first run, its difference. What
-- ntprof compare --csv prints (docs/report-json.md).
CREATE TEMP VIEW ntp_compare_rows AS
SELECT
  s.name AS "group",           -- 'read 4KiB'
  s.op AS op,                  -- read, write, ...
  s.bytes AS bytes,            -- bytes per command
  s.kind AS kind,              -- stage, total (end to end) or component
  s.item AS item,              -- stage.name, or component.name
  s.ord AS ord,                -- table order
  -- the label of the first run that has the row
  first_value(s.label) OVER (PARTITION BY s.op, s.bytes, s.kind, s.item
                             ORDER BY s.run_ord) AS label,
  s.run AS run,                -- ntp_run.run
  s.run_ord AS run_ord,        -- its place, 0 first
  s.n AS n,                    -- commands
  s.mean_ns AS mean_ns,        -- mean, ns
  s.var_ns2 AS var_ns2,        -- sample variance, ns^2
  CAST(s.p50_ns AS INTEGER) AS p50_ns, -- median, ns (an integer: a stage's, a sum, is REAL before)
  CAST(s.p99_ns AS INTEGER) AS p99_ns, -- 99th percentile, ns
  d.base_run AS base_run,      -- ntp_compare_diff's, NULL in the first run
  d.diff_ns AS diff_ns,
  d.ci_lo_ns AS ci_lo_ns,
  d.ci_hi_ns AS ci_hi_ns,
  d.effect_pct AS effect_pct,
  d.beyond_noise AS beyond_noise,
  d.significant AS significant,
  -- 1: the stage that moved most in this run (ntp_compare_moved)
  CASE WHEN d.run IS NOT NULL THEN m.run IS NOT NULL END AS moved
FROM ntp_compare_stage AS s
LEFT JOIN ntp_compare_diff AS d ON d.run = s.run AND d.op IS s.op AND d.bytes IS s.bytes
  AND d.kind = s.kind AND d.item = s.item
LEFT JOIN ntp_compare_moved AS m ON m.run = s.run AND m.op IS s.op AND m.bytes IS s.bytes
  AND s.kind = 'stage' AND m.stage = s.item
ORDER BY min(s.run_ord) OVER (PARTITION BY s.op, s.bytes), s.op, s.bytes, s.ord, s.item,
  s.run_ord;

-- The compare table's cells as lib/compare.c prints them, us: per group
-- (in the first run's order), row and run.
CREATE TEMP VIEW _ntp_text_compare AS
SELECT
  "group" AS name,             -- 'read 4KiB'
  min(run_ord) OVER (PARTITION BY op, bytes) AS grp_ord, -- first run with it
  op, bytes, kind, item, ord, label,
  run_ord,                     -- the column
  n,                           -- commands
  printf('%.2f', mean_ns / 1e3) AS mean_us,  -- mean
  printf('%.2f', p99_ns / 1e3) AS p99_us,    -- 99th percentile
  -- '+5.01 [4.93, 5.09]*': the difference, its interval, * a change
  CASE WHEN base_run IS NOT NULL
    THEN printf('%+.2f [%.2f, %.2f]%s', diff_ns / 1e3, ci_lo_ns / 1e3,
                ci_hi_ns / 1e3, CASE WHEN significant THEN '*' ELSE '' END)
  END AS diff
FROM ntp_compare_rows;
