-- ntprof plot: what `ntprof plot` draws, as TEMP views over the report's,
-- the statistics' and compare.sql's. Every number a plot shows is a column
-- here; the plotting code only scales them to pixels and picks the axes'
-- ticks. A session's runs (ntp_run) are one or more; a plot of one
-- recording is of one run. Groups are the runs' I/O groups, matched by
-- operation and size as ntprof compare matches them (_ntp_compare_group).

-- How a session treats these views (join.sql, _ntp_view_plan): they read
-- the report's cached views, so a query prepares first.
INSERT INTO _ntp_view_plan VALUES
  ('ntp_plot_group', NULL, 0, 1),
  ('ntp_plot_stage', NULL, 0, 1),
  ('ntp_plot_cdf', NULL, 0, 1),
  ('ntp_plot_series', NULL, 0, 1),
  ('ntp_plot_series_stage', NULL, 0, 1),
  ('ntp_plot_width', NULL, 0, 1);

-- The plotted groups: per run, each I/O group, numbered in plot order
-- (operation and size, then run) from 1.
CREATE TEMP VIEW ntp_plot_group AS
SELECT
  row_number() OVER (ORDER BY op, bytes, run_ord, hdb, grp) AS n, -- plot order, from 1
  run,                         -- ntp_run.run: the run's label
  run_ord,                     -- its place, 0 first
  hdb,                         -- host database
  grp,                         -- grp.id there
  op,                          -- read, write, ...
  bytes,                       -- bytes per command
  name,                        -- 'read 4KiB': the group's name without its device
  mode                         -- joined or host
FROM _ntp_compare_group
ORDER BY n;

-- The stacked stage bars: per plotted group, each stage of the report
-- (ntp_report_stage) with its mean and where its segment starts and ends
-- in the stack (the means of the stages before it, in path order), and
-- the stack's total, the mean end to end.
CREATE TEMP VIEW ntp_plot_stage AS
SELECT
  g.n AS n,                    -- ntp_plot_group.n
  s.ord AS ord,                -- stage order
  s.stage AS stage,            -- stage.name
  s.label AS label,            -- as the report prints it
  s.mean_ns / 1e3 AS mean_us,  -- mean per command, us
  s.share AS share,            -- of the mean latency
  sum(s.mean_ns) OVER w / 1e3 - s.mean_ns / 1e3 AS start_us, -- the segment's start, us
  sum(s.mean_ns) OVER w / 1e3 AS end_us,     -- its end, us
  sum(s.mean_ns) OVER (PARTITION BY g.n) / 1e3 AS total_us -- the stack's end, us
FROM ntp_plot_group AS g
JOIN ntp_report_stage AS s ON s.hdb = g.hdb AND s.grp = g.grp
WINDOW w AS (PARTITION BY g.n ORDER BY s.ord ROWS UNBOUNDED PRECEDING)
ORDER BY g.n, s.ord;

-- The latency CDF per plotted group and component (ntp_report_cdf), thinned
-- to the points where the fraction crosses a step of 1/200, and the first
-- and last values: at most about 200 points a line, whatever the commands.
-- min_us and max_us are the component's smallest and largest value.
CREATE TEMP VIEW ntp_plot_cdf AS
SELECT
  g.n AS n,                    -- ntp_plot_group.n
  k.ord AS ord,                -- path order
  c.name AS component,         -- component.name
  k.label AS label,            -- its report label
  c.ns / 1e3 AS us,            -- the value, us
  c.fraction AS fraction,      -- share of the values at or below it
  min(c.ns) OVER p / 1e3 AS min_us, -- the component's smallest value
  max(c.ns) OVER p / 1e3 AS max_us  -- and largest
FROM ntp_plot_group AS g
JOIN ntp_report_cdf AS c ON c.hdb = g.hdb AND c.grp = g.grp AND c.kind = 'component'
JOIN component AS k ON k.name = c.name
WHERE c.cum = c.total OR c.cum = c.n
  OR c.cum * 200 / c.total > (c.cum - c.n) * 200 / c.total
WINDOW p AS (PARTITION BY g.n, c.name)
ORDER BY g.n, k.ord, c.ns;

-- The time series per plotted group (ntp_report_series, ntp_bucket's
-- width): per bucket its middle, rate, mean and p99 end to end.
CREATE TEMP VIEW ntp_plot_series AS
SELECT
  g.n AS n,                    -- ntp_plot_group.n
  s.bucket AS bucket,          -- bucket number
  s.t_s + s.dt_s / 2 AS t_s,   -- the bucket's middle, s since the host's first command
  s.rate AS rate,              -- commands per second
  s.mean_ns / 1e3 AS mean_us,  -- mean end to end, us
  s.p99_ns / 1e3 AS p99_us     -- its 99th percentile, us
FROM ntp_plot_group AS g
JOIN ntp_report_series AS s ON s.hdb = g.hdb AND s.grp = g.grp
ORDER BY g.n, s.bucket;

-- The stages' shares over time per plotted group: ntp_report_series_stage's
-- rows, with the bucket's middle as ntp_plot_series has it.
CREATE TEMP VIEW ntp_plot_series_stage AS
SELECT
  g.n AS n,                    -- ntp_plot_group.n
  x.ord AS ord,                -- stage order
  x.stage AS stage,            -- stage.name
  x.label AS label,            -- its label
  x.bucket AS bucket,          -- bucket number
  x.t_s + x.dt_s / 2 AS t_s,   -- the bucket's middle, s
  x.share AS share             -- of the bucket's mean end to end
FROM ntp_plot_group AS g
JOIN _ntp_series_stage_row AS x ON x.form = g.mode AND x.db = g.hdb AND x.grp = g.grp
WHERE x.form IN ('host', 'joined') -- as in ntp_report_series
ORDER BY g.n, x.ord, x.bucket;

-- The time series' default width: the longest plotted recording's span
-- from its first command to its end in at most 50 buckets, rounded up to a
-- width an axis reads easily: 1, 2 or 5 times a power of ten, from 1 us.
CREATE TEMP VIEW ntp_plot_width AS
WITH RECURSIVE p(v) AS (
  -- powers of ten from 1 us to 1000 s, in ns
  SELECT 1000 UNION ALL SELECT v * 10 FROM p WHERE v < 1000000000000
), nice(ns) AS (
  SELECT v FROM p UNION ALL SELECT 2 * v FROM p UNION ALL SELECT 5 * v FROM p
)
SELECT
  coalesce((SELECT min(ns) FROM nice WHERE ns >= w), 5000000000000)
    AS width_ns                -- the bucket width, ns: 1, 2 or 5 x 10^k
FROM (SELECT max(o.end_ns - o.first_t) / 50.0 AS w
      FROM _ntp_series_grp AS o
      JOIN ntp_plot_group AS g ON g.hdb = o.db AND g.grp = o.grp);
