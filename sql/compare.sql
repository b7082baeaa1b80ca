-- ntprof compare: runs side by side, as TEMP views over the report's. A run
-- is a host recording, or a host and a target recording of the same run
-- (ntp_run says which recording is in which run; the join pairs a host only
-- with its run's target). The I/O groups of the runs are matched by
-- operation and size (device names differ between runs: nvme1n1,
-- spdk-c1n1), and per group each stage (the report's stages: the same
-- components, stages and labels, from the component, stage and stage_label
-- tables) gets per run its mean, median and p99, and per run after the
-- first the difference of each from the first run's with a 95 % confidence
-- interval, so that noise is not called a change:
-- - the mean's: Welch's difference of two means, with the normal
--   approximation (1.96 standard errors);
-- - a quantile's (the median, p99): each run's quantile has the
--   distribution-free (binomial) interval [x_(l), x_(u)] of its sorted
--   values, whose width gives its standard error, se = (x_(u) - x_(l)) /
--   (2 x 1.96); the difference of two runs' quantiles is then
--   diff +/- 1.96 sqrt(se_a^2 + se_b^2) (after Bonett and Price, 2002).
-- A row is a change (marked) when its MEDIAN moved beyond noise and by at
-- least the minimum effect: latency is heavy-tailed, and a few stalled
-- commands move a mean that the typical command does not. A mean that moved
-- while the median did not is a tail-driven difference, named as such.
-- docs/sql.md gives the rules and the integer ranks. sqrt() is one of
-- SQLite's math functions (in Debian's sqlite3 and libsqlite3 since 3.35).

-- How a session treats these views (join.sql, _ntp_view_plan): they read
-- the join and the report's groups, so a query prepares first. The
-- statistics are cached last, when several runs are open: a later
-- ntprof compare of the same runs reads them from the prepared run.
INSERT INTO _ntp_view_plan VALUES
  ('_ntp_compare_group', NULL, 0, 1),
  ('_ntp_compare_item', NULL, 0, 1),
  ('_ntp_compare_label', NULL, 0, 1),
  ('_ntp_compare_cmd', NULL, 0, 1),
  ('ntp_compare_stage', 12, 2, 1),
  ('ntp_compare_diff', NULL, 0, 1),
  ('ntp_compare_moved', NULL, 0, 1),
  ('ntp_compare_tail', NULL, 0, 1),
  ('ntp_compare_note', NULL, 0, 1),
  ('ntp_compare_rows', NULL, 0, 1),
  ('_ntp_text_compare', NULL, 0, 1),
  ('_ntp_text_compare_verdict', NULL, 0, 1);

-- The smallest change worth a mark, one row, 1 % unless changed:
-- UPDATE ntp_compare_threshold SET min_effect_pct = 5; (ntprof compare -m).
-- With many commands a confidence interval is narrow enough to exclude 0
-- for a shift far too small to matter; a difference is called a change
-- only when its interval excludes 0 and it is at least this large. It is a
-- share of the whole command's latency, not of the row's own: a stage
-- of 0.2 us that gains 0.1 us has grown by half, but the command by 0.1 %.
-- The whole command's typical latency, its median end to end in the first
-- run, is the base: the verdict is a test of medians, and a mean swollen by
-- a few stalls would raise the bar for every stage.
CREATE TEMP TABLE ntp_compare_threshold (
  -- The smallest change, % of the first run's median end to end (>= 0).
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
-- variance, and exact nearest-rank percentiles with the distribution-free
-- 95 % interval of the median and of p99, ns. The interval of the
-- q-quantile of n sorted values is [x_(l), x_(u)], in integers (q' = q x
-- 100000, as the percentiles' ranks):
--   h = the least h >= 0 with d h^2 >= c n, where c / d = 1.96^2 q (1 - q):
--       9604 / 10^4 for the median, 3803184 / 10^8 for p99;
--   l = floor(n q) - h = n q' / 100000 - h;
--   u = ceil(n q) + h + 1 = (n q' + 99999) / 100000 + h + 1;
-- no interval (NULL) unless 1 <= l and u <= n. h is found exactly: from b,
-- the floating-point square root less one (at least 0), h is b plus the
-- number of b, b + 1, b + 2 whose d x^2 is under c n.
CREATE TEMP VIEW ntp_compare_stage AS
WITH r AS (
  SELECT *,
    row_number() OVER (PARTITION BY run, op, bytes, kind, item ORDER BY ns) AS rn,
    count(*) OVER (PARTITION BY run, op, bytes, kind, item) AS n
  FROM _ntp_compare_cmd
), b AS (
  SELECT *,
    max(CAST(sqrt(9604 * n / 10000.0) AS INTEGER) - 1, 0) AS b50,
    max(CAST(sqrt(3803184 * n / 100000000.0) AS INTEGER) - 1, 0) AS b99
  FROM r
), h AS (
  SELECT *,
    b50 + (10000 * b50 * b50 < 9604 * n) + (10000 * (b50 + 1) * (b50 + 1) < 9604 * n)
      + (10000 * (b50 + 2) * (b50 + 2) < 9604 * n) AS h50,
    b99 + (100000000 * b99 * b99 < 3803184 * n)
      + (100000000 * (b99 + 1) * (b99 + 1) < 3803184 * n)
      + (100000000 * (b99 + 2) * (b99 + 2) < 3803184 * n) AS h99
  FROM b
), k AS (
  SELECT *,
    n * 50000 / 100000 - h50 AS l50, (n * 50000 + 99999) / 100000 + h50 + 1 AS u50,
    n * 99000 / 100000 - h99 AS l99, (n * 99000 + 99999) / 100000 + h99 + 1 AS u99
  FROM h
), s AS (
  SELECT run, op, bytes, kind, item, n, avg(ns) AS mean_ns,
    (total(ns * ns) - total(ns) * total(ns) / n) / (n - 1) AS var_ns2,
    max(CASE WHEN rn = (n * 50000 + 99999) / 100000 THEN ns END) AS p50_ns,
    max(CASE WHEN rn = l50 AND u50 <= n THEN ns END) AS p50_lo_ns,
    max(CASE WHEN rn = u50 AND l50 >= 1 THEN ns END) AS p50_hi_ns,
    max(CASE WHEN rn = (n * 99000 + 99999) / 100000 THEN ns END) AS p99_ns,
    max(CASE WHEN rn = l99 AND u99 <= n THEN ns END) AS p99_lo_ns,
    max(CASE WHEN rn = u99 AND l99 >= 1 THEN ns END) AS p99_hi_ns
  FROM k
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
  m.label AS label,            -- the report's label, this run's drivers'
  s.n AS n,                    -- commands
  s.mean_ns AS mean_ns,        -- mean ns
  -- sample variance, ns^2 (NULL for one command); in REAL, whose 53 bits
  -- keep it exact enough for sums of squared ns over millions of commands
  s.var_ns2 AS var_ns2,
  -- the percentiles, ns, integers (a stage's time, a sum, may be REAL)
  CAST(s.p50_ns AS INTEGER) AS p50_ns,       -- median
  CAST(s.p50_lo_ns AS INTEGER) AS p50_lo_ns, -- its 95 % interval, x_(l)
  CAST(s.p50_hi_ns AS INTEGER) AS p50_hi_ns, -- and x_(u); both NULL: none
  CAST(s.p99_ns AS INTEGER) AS p99_ns,       -- 99th
  CAST(s.p99_lo_ns AS INTEGER) AS p99_lo_ns, -- its 95 % interval, the same way
  CAST(s.p99_hi_ns AS INTEGER) AS p99_hi_ns
FROM s
JOIN _ntp_compare_label AS m ON m.run = s.run AND m.op IS s.op AND m.bytes IS s.bytes
  AND m.kind = s.kind AND m.item = s.item
ORDER BY m.run_ord, s.op, s.bytes, m.ord;

-- The cache of ntp_compare_stage, built faster (join.sql, _ntp_cache_build;
-- ntprof compare builds it, no report needs it): the commands' times sorted
-- once into a table whose rowids follow the sort, so a percentile is one
-- rowid lookup, where the view's window numbers every row and counts every
-- partition. Same rows, and the same ranks, computed once per partition.
-- (The native form, native.sql, needs no sort.)
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
), b AS (
  SELECT *,
    max(CAST(sqrt(9604 * n / 10000.0) AS INTEGER) - 1, 0) AS b50,
    max(CAST(sqrt(3803184 * n / 100000000.0) AS INTEGER) - 1, 0) AS b99
  FROM p
), h AS (
  SELECT *,
    b50 + (10000 * b50 * b50 < 9604 * n) + (10000 * (b50 + 1) * (b50 + 1) < 9604 * n)
      + (10000 * (b50 + 2) * (b50 + 2) < 9604 * n) AS h50,
    b99 + (100000000 * b99 * b99 < 3803184 * n)
      + (100000000 * (b99 + 1) * (b99 + 1) < 3803184 * n)
      + (100000000 * (b99 + 2) * (b99 + 2) < 3803184 * n) AS h99
  FROM b
), k AS (
  SELECT *,
    n * 50000 / 100000 - h50 AS l50, (n * 50000 + 99999) / 100000 + h50 + 1 AS u50,
    n * 99000 / 100000 - h99 AS l99, (n * 99000 + 99999) / 100000 + h99 + 1 AS u99
  FROM h
)
SELECT k.run, m.run_ord, k.op, k.bytes, m.name, k.kind, k.item, m.ord, m.label, n, mean_ns,
  var_ns2,
  (SELECT CAST(ns AS INTEGER) FROM _ntp_compare_sorted
   WHERE rowid = r0 + (n * 50000 + 99999) / 100000 - 1) AS p50_ns,
  (SELECT CAST(ns AS INTEGER) FROM _ntp_compare_sorted
   WHERE rowid = r0 + l50 - 1 AND l50 >= 1 AND u50 <= n) AS p50_lo_ns,
  (SELECT CAST(ns AS INTEGER) FROM _ntp_compare_sorted
   WHERE rowid = r0 + u50 - 1 AND l50 >= 1 AND u50 <= n) AS p50_hi_ns,
  (SELECT CAST(ns AS INTEGER) FROM _ntp_compare_sorted
   WHERE rowid = r0 + (n * 99000 + 99999) / 100000 - 1) AS p99_ns,
  (SELECT CAST(ns AS INTEGER) FROM _ntp_compare_sorted
   WHERE rowid = r0 + l99 - 1 AND l99 >= 1 AND u99 <= n) AS p99_lo_ns,
  (SELECT CAST(ns AS INTEGER) FROM _ntp_compare_sorted
   WHERE rowid = r0 + u99 - 1 AND l99 >= 1 AND u99 <= n) AS p99_hi_ns
FROM k
JOIN _ntp_compare_label AS m ON m.run = k.run AND m.op IS k.op AND m.bytes IS k.bytes
  AND m.kind = k.kind AND m.item = k.item
ORDER BY m.run_ord, k.op, k.bytes, m.ord;
DROP TABLE _ntp_compare_sorted;');

-- Per run after the first, group and row both have: the differences from
-- the first run's mean, median and p99, each with its 95 % confidence
-- interval, whether each is beyond noise (its interval excludes 0), and
-- the verdict: a change (significant, the mark) when the median moved
-- beyond noise by at least the minimum effect, ntp_compare_threshold's
-- share of the first run's median end to end; tail-driven when the mean did
-- so and the median did not.
CREATE TEMP VIEW ntp_compare_diff AS
WITH d AS (
  SELECT c.*, b.run AS base_run,
    e.p50_ns * t.min_effect_pct / 100 AS min_effect_ns,
    e.p50_ns AS base_ns,
    c.mean_ns - b.mean_ns AS mean_diff_ns,
    1.96 * sqrt(c.var_ns2 / c.n + b.var_ns2 / b.n) AS mean_half_ns,
    c.p50_ns - b.p50_ns AS p50_diff_ns,
    -- se = (x_(u) - x_(l)) / (2 x 1.96) per run; 1.96 se of the difference
    1.96 * sqrt(((c.p50_hi_ns - c.p50_lo_ns) / 3.92) * ((c.p50_hi_ns - c.p50_lo_ns) / 3.92)
                + ((b.p50_hi_ns - b.p50_lo_ns) / 3.92) * ((b.p50_hi_ns - b.p50_lo_ns) / 3.92))
      AS p50_half_ns,
    c.p99_ns - b.p99_ns AS p99_diff_ns,
    1.96 * sqrt(((c.p99_hi_ns - c.p99_lo_ns) / 3.92) * ((c.p99_hi_ns - c.p99_lo_ns) / 3.92)
                + ((b.p99_hi_ns - b.p99_lo_ns) / 3.92) * ((b.p99_hi_ns - b.p99_lo_ns) / 3.92))
      AS p99_half_ns
  FROM ntp_compare_stage AS c
  JOIN ntp_compare_stage AS b ON b.run_ord = 0 AND b.op IS c.op AND b.bytes IS c.bytes
    AND b.kind = c.kind AND b.item = c.item
  JOIN ntp_compare_stage AS e ON e.run_ord = 0 AND e.op IS c.op AND e.bytes IS c.bytes
    AND e.kind = 'total'
  CROSS JOIN ntp_compare_threshold AS t
  WHERE c.run_ord > 0
), v AS (
  SELECT *,
    abs(mean_diff_ns) > mean_half_ns AS mean_beyond_noise,
    abs(p50_diff_ns) > p50_half_ns AS p50_beyond_noise,
    abs(p99_diff_ns) > p99_half_ns AS p99_beyond_noise,
    coalesce(abs(p50_diff_ns) > p50_half_ns AND abs(p50_diff_ns) >= min_effect_ns, 0) AS change
  FROM d
)
SELECT
  run,                         -- ntp_run.run
  run_ord,                     -- its place
  base_run,                    -- the first run's, compared with
  op, bytes, name,             -- the group
  kind, item, ord, label,      -- the row (label: this run's)
  -- the minimum effect, ns: min_effect_pct of base_run's median end to end
  min_effect_ns,
  mean_diff_ns,                -- mean here - mean in base_run, ns
  mean_diff_ns - mean_half_ns AS mean_ci_lo_ns, -- its 95 % confidence interval
  mean_diff_ns + mean_half_ns AS mean_ci_hi_ns, -- (Welch), ns
  mean_beyond_noise,           -- 1: the interval excludes 0
  p50_diff_ns,                 -- median here - median in base_run, ns
  p50_diff_ns - p50_half_ns AS p50_ci_lo_ns, -- its 95 % confidence interval,
  p50_diff_ns + p50_half_ns AS p50_ci_hi_ns, -- NULL: a run has no median's
  p50_beyond_noise,            -- 1: the interval excludes 0 (NULL: none)
  p99_diff_ns,                 -- p99 here - p99 in base_run, ns
  p99_diff_ns - p99_half_ns AS p99_ci_lo_ns, -- its 95 % confidence interval,
  p99_diff_ns + p99_half_ns AS p99_ci_hi_ns, -- NULL: too few commands
  p99_beyond_noise,            -- 1: the interval excludes 0 (NULL: none)
  -- p50_diff_ns and mean_diff_ns, % of base_run's median end to end (NULL
  -- when that is 0)
  100.0 * p50_diff_ns / nullif(base_ns, 0) AS effect_pct,
  100.0 * mean_diff_ns / nullif(base_ns, 0) AS mean_effect_pct,
  -- 1: a change, the median beyond noise and by min_effect_ns at least
  change AS significant,
  -- 1: tail-driven, not a change, but the mean beyond noise and by
  -- min_effect_ns at least
  NOT change AND coalesce(mean_beyond_noise AND abs(mean_diff_ns) >= min_effect_ns, 0)
    AS tail_driven
FROM v;

-- Per run after the first and group: the stage whose median moved most
-- from the first run's, among its changes (ntp_compare_diff.significant);
-- no row: none changed.
CREATE TEMP VIEW ntp_compare_moved AS
SELECT run, run_ord, base_run, op, bytes, name,
  item AS stage,               -- stage.name
  label,                       -- its label, this run's
  p50_diff_ns, p50_ci_lo_ns, p50_ci_hi_ns, -- as in ntp_compare_diff
  effect_pct
FROM (SELECT *, row_number() OVER (PARTITION BY run, op, bytes
                                   ORDER BY abs(p50_diff_ns) DESC, ord) AS rn
      FROM ntp_compare_diff
      WHERE kind = 'stage' AND significant)
WHERE rn = 1;

-- Per run after the first and group: the tail-driven stages (whose mean
-- moved while their median did not, ntp_compare_diff.tail_driven), the
-- largest difference of the means first; never a change.
CREATE TEMP VIEW ntp_compare_tail AS
SELECT run, run_ord, base_run, op, bytes, name,
  item AS stage,               -- stage.name
  label,                       -- its label, this run's
  mean_diff_ns, mean_ci_lo_ns, mean_ci_hi_ns, -- as in ntp_compare_diff
  mean_effect_pct,
  p50_diff_ns, p50_ci_lo_ns, p50_ci_hi_ns,
  -- its place in the run's and group's list, 1 first
  row_number() OVER (PARTITION BY run, op, bytes ORDER BY abs(mean_diff_ns) DESC, ord) AS rank
FROM ntp_compare_diff
WHERE kind = 'stage' AND tail_driven;

-- What makes the runs less comparable than the tables look, one row per
-- problem, in the order printed: a run without an I/O group in common with
-- the first (nothing to compare: ntprof compare refuses), a group some runs
-- lack, a group joined in some runs and host side only in others, and runs
-- whose host driver, target driver, transport or sampling differ; then the
-- report's warnings of each run (ntp_report_warning): a join refused (its
-- groups are host side only), a group that lost records while recording.
-- ntprof compare prints each as a "note:" line before the tables.
CREATE TEMP VIEW ntp_compare_note AS
WITH r AS (
  -- every run, with or without I/O groups
  SELECT run, min(ord) AS run_ord FROM ntp_run GROUP BY run
), g AS (
  -- per group and run that has it: its mode (a run's devices may differ)
  SELECT op, bytes, max(name) AS name, run, min(run_ord) AS run_ord,
    CASE WHEN min(mode) = max(mode) THEN min(mode) ELSE 'mixed' END AS mode
  FROM _ntp_compare_group
  GROUP BY op, bytes, run
), gn AS (
  -- per run: its groups' names, for the refusal
  SELECT r.run, r.run_ord,
    coalesce((SELECT group_concat(name, ', ')
              FROM (SELECT name FROM g WHERE g.run = r.run ORDER BY op, bytes)), 'none') AS names
  FROM r
), lone AS (
  SELECT 1 AS ord, 'no_group' AS kind, NULL AS op, NULL AS bytes, NULL AS name,
    printf('%s has no I/O group in common with %s (%s: %s; %s: %s): nothing to compare',
           x.run, f.run, f.run, f.names, x.run, x.names) AS note, x.run_ord AS sub
  FROM gn AS x
  JOIN gn AS f ON f.run_ord = 0
  WHERE x.run_ord > 0
    AND NOT EXISTS (SELECT 1 FROM g AS a JOIN g AS b ON b.op IS a.op AND b.bytes IS a.bytes
                    WHERE a.run = x.run AND b.run = f.run)
), missing AS (
  SELECT 2, 'group', op, bytes, name,
    printf('%s: in %s only, not in %s', name,
      (SELECT group_concat(run, ', ') FROM (SELECT run FROM g AS h
        WHERE h.op IS m.op AND h.bytes IS m.bytes ORDER BY run_ord)),
      (SELECT group_concat(run, ', ') FROM (SELECT run FROM r
        WHERE NOT EXISTS (SELECT 1 FROM g AS h WHERE h.op IS m.op AND h.bytes IS m.bytes
                          AND h.run = r.run) ORDER BY run_ord))), min(run_ord)
  FROM g AS m
  GROUP BY op, bytes
  HAVING count(*) < (SELECT count(*) FROM r)
), modes AS (
  SELECT 3, 'mode', op, bytes, name,
    printf('%s: %s: only the host''s stages and end to end compare', name,
      (SELECT group_concat(what, '; ') FROM (
        SELECT CASE mode WHEN 'joined' THEN 'joined with the target in '
                         WHEN 'host' THEN 'host side only in '
                         ELSE 'joined on some devices only in ' END
               || group_concat(run, ', ') AS what
        FROM (SELECT mode, run, run_ord FROM g AS h
              WHERE h.op IS m.op AND h.bytes IS m.bytes ORDER BY run_ord)
        GROUP BY mode ORDER BY min(run_ord)))), min(run_ord)
  FROM g AS m
  GROUP BY op, bytes
  HAVING min(mode) != max(mode)
), p(ord, kind, what, why) AS (
  -- the properties of the recordings that should agree, and why
  VALUES (4, 'host_driver', 'host driver', 'each run''s host stages are its own driver''s'),
    (5, 'target_driver', 'target driver', 'each run''s target stages are its own driver''s'),
    (6, 'transport', 'transport', 'the network is not the same path'),
    (7, 'sample_rate', 'sampling', 'the runs'' probe overheads and numbers of commands differ')
), rec AS (
  -- per run and property of its recordings: the values (a merged run may
  -- hold several hosts)
  SELECT n.run AS run, n.ord AS run_ord, p.kind AS kind, p.what AS what, p.why AS why,
    p.ord AS ord,
    group_concat(DISTINCT CASE p.kind
      WHEN 'host_driver' THEN CASE WHEN d.role = 'host' THEN d.driver END
      WHEN 'target_driver' THEN CASE WHEN d.role = 'target' THEN d.driver END
      WHEN 'transport' THEN d.transport
      ELSE CASE WHEN d.role = 'host' THEN
        CASE d.sample_rate WHEN 1 THEN 'every command' ELSE '1 in ' || d.sample_rate END
      END END) AS val
  FROM ntp_run AS n
  JOIN ntp_db AS d ON d.db = n.db
  CROSS JOIN p
  GROUP BY n.run, p.kind
), props AS (
  SELECT ord, kind, NULL, NULL, NULL,
    printf('%s differs: %s: %s', what,
      (SELECT group_concat(x, '; ') FROM (
         SELECT val || ' in ' || group_concat(run, ', ') AS x
         FROM (SELECT val, run, run_ord FROM rec AS o
               WHERE o.kind = q.kind AND o.val IS NOT NULL ORDER BY run_ord)
         GROUP BY val ORDER BY min(run_ord))), why), 0
  FROM rec AS q
  WHERE val IS NOT NULL
  GROUP BY kind
  HAVING count(DISTINCT val) > 1
), warn AS (
  -- the report's warnings of the runs (ntp_report_warning): a refused join,
  -- of the run; a group's lost records, of its I/O group
  SELECT 8 + (w.level = 'group'), w.reason, g.op, g.bytes, g.name,
    CASE w.level
      WHEN 'join' THEN printf('%s: join refused, %s with %s: %s', n.run, hd.hostname,
                              td.hostname, w.message)
      ELSE printf('%s: %s: %s', n.run, rg.name, w.message)
    END, n.ord
  FROM ntp_report_warning AS w
  JOIN ntp_run AS n ON n.db = w.hdb
  JOIN ntp_db AS hd ON hd.db = w.hdb
  LEFT JOIN ntp_db AS td ON td.db = w.tdb
  LEFT JOIN _ntp_compare_group AS g ON g.hdb = w.hdb AND g.grp = w.grp
  LEFT JOIN ntp_report_group AS rg ON rg.hdb = w.hdb AND rg.grp = w.grp
  WHERE w.level = 'join' OR g.hdb IS NOT NULL
)
SELECT
  kind,            -- no_group, group, mode, host_driver, target_driver, transport,
                   -- sample_rate, join_refused, host_lost, target_lost
  op, bytes,       -- the group, or NULL: the runs
  name,            -- its name ('read 4KiB'), or NULL
  note             -- what is wrong, a line of text
FROM (SELECT * FROM lone UNION ALL SELECT * FROM missing UNION ALL SELECT * FROM modes
      UNION ALL SELECT * FROM props UNION ALL SELECT * FROM warn)
ORDER BY ord, sub, op, bytes;

-- The comparison in one long table, unrounded, in the text's order: per
-- group (in the order of the first run that has it), row and run, the
-- run's statistics and, after the first run, its differences. What
-- ntprof compare --csv prints (docs/report-json.md).
CREATE TEMP VIEW ntp_compare_rows AS
SELECT
  s.name AS "group",           -- 'read 4KiB'
  s.op AS op,                  -- read, write, ...
  s.bytes AS bytes,            -- bytes per command
  s.kind AS kind,              -- stage, total (end to end) or component
  s.item AS item,              -- stage.name, or component.name
  s.ord AS ord,                -- table order
  s.label AS label,            -- this run's label (its own drivers')
  s.run AS run,                -- ntp_run.run
  s.run_ord AS run_ord,        -- its place, 0 first
  s.n AS n,                    -- commands
  s.mean_ns AS mean_ns,        -- mean, ns
  s.var_ns2 AS var_ns2,        -- sample variance, ns^2
  s.p50_ns AS p50_ns,          -- median, ns
  s.p50_lo_ns AS p50_lo_ns,    -- its 95 % interval (ntp_compare_stage)
  s.p50_hi_ns AS p50_hi_ns,
  s.p99_ns AS p99_ns,          -- 99th percentile, ns
  s.p99_lo_ns AS p99_lo_ns,    -- its 95 % interval
  s.p99_hi_ns AS p99_hi_ns,
  d.base_run AS base_run,      -- ntp_compare_diff's, NULL in the first run
  d.min_effect_ns AS min_effect_ns,
  d.mean_diff_ns AS mean_diff_ns,
  d.mean_ci_lo_ns AS mean_ci_lo_ns,
  d.mean_ci_hi_ns AS mean_ci_hi_ns,
  d.mean_beyond_noise AS mean_beyond_noise,
  d.p50_diff_ns AS p50_diff_ns,
  d.p50_ci_lo_ns AS p50_ci_lo_ns,
  d.p50_ci_hi_ns AS p50_ci_hi_ns,
  d.p50_beyond_noise AS p50_beyond_noise,
  d.p99_diff_ns AS p99_diff_ns,
  d.p99_ci_lo_ns AS p99_ci_lo_ns,
  d.p99_ci_hi_ns AS p99_ci_hi_ns,
  d.p99_beyond_noise AS p99_beyond_noise,
  d.effect_pct AS effect_pct,
  d.mean_effect_pct AS mean_effect_pct,
  d.significant AS significant,
  d.tail_driven AS tail_driven,
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
  op, bytes, kind, item, ord,
  -- the row's label: each run's own, the different ones joined by ' / '
  (SELECT group_concat(label, ' / ')
   FROM (SELECT label FROM ntp_compare_stage AS o
         WHERE o.op IS r.op AND o.bytes IS r.bytes AND o.kind = r.kind AND o.item = r.item
         GROUP BY label ORDER BY min(run_ord))) AS label,
  run_ord,                     -- the column
  n,                           -- commands
  printf('%.2f', mean_ns / 1e3) AS mean_us,  -- mean
  printf('%.2f', p50_ns / 1e3) AS p50_us,    -- median
  printf('%.2f', p99_ns / 1e3) AS p99_us,    -- 99th percentile
  -- after the first run, each difference with its interval: the mean's
  -- '~' when tail-driven, the median's '*' when a change
  CASE WHEN base_run IS NOT NULL
    THEN printf('%+.2f [%.2f, %.2f]%s', mean_diff_ns / 1e3, mean_ci_lo_ns / 1e3,
                mean_ci_hi_ns / 1e3, CASE WHEN tail_driven THEN '~' ELSE '' END)
  END AS mean_diff,
  CASE WHEN base_run IS NOT NULL
    THEN printf('%+.2f %s%s', p50_diff_ns / 1e3,
                CASE WHEN p50_ci_lo_ns IS NULL THEN '[too few]'
                  ELSE printf('[%.2f, %.2f]', p50_ci_lo_ns / 1e3, p50_ci_hi_ns / 1e3) END,
                CASE WHEN significant THEN '*' ELSE '' END)
  END AS p50_diff,
  CASE WHEN base_run IS NOT NULL
    THEN printf('%+.2f %s', p99_diff_ns / 1e3,
                CASE WHEN p99_ci_lo_ns IS NULL THEN '[too few]'
                  ELSE printf('[%.2f, %.2f]', p99_ci_lo_ns / 1e3, p99_ci_hi_ns / 1e3) END)
  END AS p99_diff
FROM ntp_compare_rows AS r;

-- The verdict lines under a group's table, as lib/compare.c prints them:
-- per run after the first that has the group, the stage that moved most
-- (or that none did), then the tail-driven stages.
CREATE TEMP VIEW _ntp_text_compare_verdict AS
SELECT
  d.op AS op, d.bytes AS bytes, -- the group
  d.run_ord AS run_ord,         -- the run
  d.run || ' vs ' || d.base_run || ': ' ||
  CASE WHEN m.run IS NULL THEN 'no stage moved beyond noise'
    ELSE printf('%s moved most, p50 %+.2f us [%.2f, %.2f]', m.label, m.p50_diff_ns / 1e3,
                m.p50_ci_lo_ns / 1e3, m.p50_ci_hi_ns / 1e3) END ||
  coalesce('; tail-driven: ' ||
    (SELECT group_concat(x, '; ') FROM (
       SELECT printf('%s, mean %+.2f us [%.2f, %.2f], p50 %+.2f us %s', t.label,
                     t.mean_diff_ns / 1e3, t.mean_ci_lo_ns / 1e3, t.mean_ci_hi_ns / 1e3,
                     t.p50_diff_ns / 1e3,
                     CASE WHEN t.p50_ci_lo_ns IS NULL THEN '[too few]'
                       ELSE printf('[%.2f, %.2f]', t.p50_ci_lo_ns / 1e3,
                                   t.p50_ci_hi_ns / 1e3) END) AS x
       FROM ntp_compare_tail AS t
       WHERE t.run = d.run AND t.op IS d.op AND t.bytes IS d.bytes
       ORDER BY t.rank)), '') AS line -- the line
FROM (SELECT DISTINCT run, run_ord, base_run, op, bytes FROM ntp_compare_diff) AS d
LEFT JOIN ntp_compare_moved AS m ON m.run = d.run AND m.op IS d.op AND m.bytes IS d.bytes
ORDER BY d.op, d.bytes, d.run_ord;
