-- ntprof plot: what `ntprof plot` draws, as TEMP views over the report's,
-- the statistics' and compare.sql's. Every number a plot shows is a column
-- here, and so is how each thing is drawn: a colour per stage
-- (ntp_plot_colour) and a line style per run (ntp_plot_line); the plotting
-- code only scales the numbers to pixels and picks the axes' ticks. A
-- session's runs (ntp_run) are one or more; a plot of one recording is of
-- one run. Groups are the runs' I/O groups, matched by operation and size
-- as ntprof compare matches them (_ntp_compare_group).

-- How a session treats these views (join.sql, _ntp_view_plan): they read
-- the report's cached views, so a query prepares first. ntprof plot
-- computes _ntp_plot_cdf_line once (ntp_session_cache), which
-- ntp_plot_cdf and ntp_plot_zero both read.
INSERT INTO _ntp_view_plan VALUES
  ('ntp_plot_colour', NULL, 0, 0),
  ('ntp_plot_line', NULL, 0, 0),
  ('ntp_plot_group', NULL, 0, 1),
  ('ntp_plot_stage', NULL, 0, 1),
  ('ntp_plot_tail', NULL, 0, 1),
  ('_ntp_plot_cdf_line', NULL, 0, 1),
  ('ntp_plot_cdf', NULL, 0, 1),
  ('ntp_plot_zero', NULL, 0, 1),
  ('ntp_plot_series', NULL, 0, 1),
  ('ntp_plot_series_stage', NULL, 0, 1),
  ('ntp_plot_width', NULL, 0, 1);

-- The plots' colours, their one home: each stage's colour (stage.name) in
-- every plot, for its bar segments, its share over time and the CDF lines
-- of its components; 'e2e' for end to end, which is in no stage.
CREATE TEMP VIEW ntp_plot_colour AS
SELECT
  column1 AS stage,            -- stage.name, or 'e2e'
  column2 AS colour            -- an SVG colour, '#rrggbb'
FROM (VALUES
  ('host_block', '#4e79a7'),
  ('host_driver', '#f28e2b'),
  ('host_rx', '#b6992d'),
  ('net_target', '#9c755f'),
  ('network', '#59a14f'),
  ('target_rx', '#76b7b2'),
  ('target_driver', '#b07aa1'),
  ('data_wait', '#ff9da7'),
  ('storage', '#e15759'),
  ('e2e', '#333333'));

-- The runs' line styles: run N of a session (ntp_run.ord) draws its lines
-- in style N, modulo the ten styles, in every plot; the legends name them.
CREATE TEMP VIEW ntp_plot_line AS
SELECT
  column1 AS ord,              -- the style's place, 0 first
  column2 AS style,            -- its name, as the legends print it
  column3 AS dash              -- an SVG stroke-dasharray; 'none': solid
FROM (VALUES
  (0, 'solid', 'none'),
  (1, 'dashed', '7 4'),
  (2, 'dotted', '1.5 3'),
  (3, 'dash-dot', '7 3 1.5 3'),
  (4, 'long dash', '14 4'),
  (5, 'long dash-dot', '14 3 1.5 3'),
  (6, 'dash-dot-dot', '7 3 1.5 3 1.5 3'),
  (7, 'sparse dots', '1.5 7'),
  (8, 'dash-dash-dot', '7 3 7 3 1.5 3'),
  (9, 'long-short', '14 3 4 3'));

-- The plotted groups: per run, each I/O group, numbered in plot order
-- (operation and size, then run) from 1, with the figure that draws it
-- beside the other runs' group of its operation and size, its title and
-- its run's line style.
CREATE TEMP VIEW ntp_plot_group AS
SELECT
  row_number() OVER (ORDER BY c.op, c.bytes, c.run_ord, c.hdb, c.grp) AS n, -- plot order, from 1
  dense_rank() OVER (ORDER BY c.op, c.bytes) AS figure, -- its operation and size's place, from 1
  c.run AS run,                -- ntp_run.run: the run's label
  c.run_ord AS run_ord,        -- its place, 0 first
  c.hdb AS hdb,                -- host database
  c.grp AS grp,                -- grp.id there
  c.op AS op,                  -- read, write, ...
  c.bytes AS bytes,            -- bytes per command
  c.name AS name,              -- 'read 4KiB': the group's name without its device
  c.mode AS mode,              -- joined or host
  -- 'read 4KiB', with several runs 'read 4KiB (fast)'
  c.name || CASE WHEN (SELECT count(DISTINCT run) FROM ntp_run) > 1
                 THEN ' (' || c.run || ')' ELSE '' END AS title,
  l.style AS line,             -- its run's line style (ntp_plot_line.style)
  l.dash AS dash               -- and its stroke-dasharray
FROM _ntp_compare_group AS c
JOIN ntp_plot_line AS l ON l.ord = c.run_ord % (SELECT count(*) FROM ntp_plot_line)
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
  c.colour AS colour,          -- the stage's (ntp_plot_colour)
  s.mean_ns / 1e3 AS mean_us,  -- mean per command, us
  s.share AS share,            -- of the mean latency
  sum(s.mean_ns) OVER w / 1e3 - s.mean_ns / 1e3 AS start_us, -- the segment's start, us
  sum(s.mean_ns) OVER w / 1e3 AS end_us,     -- its end, us
  sum(s.mean_ns) OVER (PARTITION BY g.n) / 1e3 AS total_us -- the stack's end, us
FROM ntp_plot_group AS g
JOIN ntp_report_stage AS s ON s.hdb = g.hdb AND s.grp = g.grp
JOIN ntp_plot_colour AS c ON c.stage = s.stage
WINDOW w AS (PARTITION BY g.n ORDER BY s.ord ROWS UNBOUNDED PRECEDING)
ORDER BY g.n, s.ord;

-- The tail bands' stacked bars: per plotted group, band of end to end
-- (ntp_report_tail: p0-50 ... p99.9-100) and stage of the report, the
-- stage's mean over the band's commands and where its segment starts and
-- ends in the band's stack (the means of the stages before it, in path
-- order), and the stack's total, the band's mean end to end as its stages
-- add up. A band without commands has no bar.
CREATE TEMP VIEW ntp_plot_tail AS
SELECT
  g.n AS n,                    -- ntp_plot_group.n
  t.ord AS ord,                -- stage order
  t.stage AS stage,            -- stage.name
  t.label AS label,            -- as the report prints it
  c.colour AS colour,          -- the stage's (ntp_plot_colour)
  t.band AS band,              -- 'p0-50' ... 'p99.9-100': the bar's label
  t.band_ord AS band_ord,      -- 1 to 5, the fastest band first
  t.mean_ns / 1e3 AS mean_us,  -- the stage's mean over the band's commands, us
  sum(t.mean_ns) OVER w / 1e3 - t.mean_ns / 1e3 AS start_us, -- the segment's start, us
  sum(t.mean_ns) OVER w / 1e3 AS end_us,     -- its end, us
  sum(t.mean_ns) OVER (PARTITION BY g.n, t.band_ord) / 1e3 AS total_us -- the stack's end, us
FROM ntp_plot_group AS g
JOIN ntp_report_tail AS t ON t.hdb = g.hdb AND t.grp = g.grp
JOIN ntp_plot_colour AS c ON c.stage = t.stage
WINDOW w AS (PARTITION BY g.n, t.band_ord ORDER BY t.ord ROWS UNBOUNDED PRECEDING)
ORDER BY g.n, t.band_ord, t.ord;

-- The latency CDF per plotted group and component (ntp_report_cdf), thinned
-- to the points where the fraction crosses a step of 1/200, and the first
-- and last values: at most about 200 points a line, whatever the commands.
-- min_us and max_us are the component's smallest and largest value; its
-- stage that of the group's report (the joined path's or the host's own).
-- Every line, those ntp_plot_cdf leaves out too.
CREATE TEMP VIEW _ntp_plot_cdf_line AS
SELECT
  g.n AS n,                    -- ntp_plot_group.n
  k.ord AS ord,                -- path order
  c.name AS component,         -- component.name
  k.label AS label,            -- its report label
  -- its stage in the group's report; 'e2e' for end to end
  CASE WHEN k.total THEN 'e2e'
       WHEN g.mode = 'joined' THEN k.stage_joined ELSE k.stage_local END AS stage,
  c.ns / 1e3 AS us,            -- the value, us
  c.fraction AS fraction,      -- share of the values at or below it
  min(c.ns) OVER p / 1e3 AS min_us, -- the component's smallest value
  max(c.ns) OVER p / 1e3 AS max_us  -- and largest
FROM ntp_plot_group AS g
JOIN ntp_report_cdf AS c ON c.hdb = g.hdb AND c.grp = g.grp AND c.kind = 'component'
JOIN component AS k ON k.name = c.name
WHERE c.cum = c.total OR c.cum = c.n
  OR c.cum * 200 / c.total > (c.cum - c.n) * 200 / c.total
WINDOW p AS (PARTITION BY g.n, c.name);

-- The CDF lines drawn: _ntp_plot_cdf_line's but those of the components
-- that are 0 in every command (ntp_plot_zero), each with its stage's
-- colour, and the x axis its panel shares with the other runs' lines of
-- the component in its figure (ntp_plot_group.figure): a log axis when some
-- value is positive, from the smallest positive value (values at or below
-- 0 are drawn at its left edge), else linear from the smallest.
CREATE TEMP VIEW ntp_plot_cdf AS
SELECT
  l.n AS n,                    -- ntp_plot_group.n
  g.figure AS figure,          -- ntp_plot_group.figure: the file cdf-FIGURE.svg
  l.ord AS ord,                -- path order
  l.component AS component,    -- component.name
  l.label AS label,            -- its report label
  l.stage AS stage,            -- its stage in the group's report, or 'e2e'
  c.colour AS colour,          -- the stage's (ntp_plot_colour)
  l.us AS us,                  -- the value, us
  l.fraction AS fraction,      -- share of the values at or below it
  l.min_us AS min_us,          -- the component's smallest value
  l.max_us AS max_us,          -- and largest
  max(l.max_us) OVER f > 0 AS log_x, -- 1: the panel's x axis is log
  CASE WHEN max(l.max_us) OVER f > 0
       THEN min(CASE WHEN l.us > 0 THEN l.us END) OVER f
       ELSE min(l.min_us) OVER f END AS lo_us, -- the panel's x axis from, us
  max(l.max_us) OVER f AS hi_us -- and to: the largest of its lines
FROM _ntp_plot_cdf_line AS l
JOIN ntp_plot_group AS g ON g.n = l.n
JOIN ntp_plot_colour AS c ON c.stage = l.stage
WHERE l.min_us <> 0 OR l.max_us <> 0
WINDOW f AS (PARTITION BY g.figure, l.component)
ORDER BY g.figure, l.ord, l.n, l.us;

-- What the plots leave out, and say so: per plotted group, each component
-- that is 0 in every command (an SPDK host has no block layer: its
-- host block layer components are always 0).
CREATE TEMP VIEW ntp_plot_zero AS
SELECT DISTINCT
  n,                           -- ntp_plot_group.n
  ord,                         -- path order
  component,                   -- component.name
  label                        -- its report label
FROM _ntp_plot_cdf_line
WHERE min_us = 0 AND max_us = 0
ORDER BY n, ord;

-- The time series per plotted group (ntp_report_series, ntp_bucket's
-- width): per bucket its middle, rate, mean and p99 end to end.
CREATE TEMP VIEW ntp_plot_series AS
SELECT
  g.n AS n,                    -- ntp_plot_group.n
  s.bucket AS bucket,          -- bucket number
  s.t_s + s.dt_s / 2 AS t_s,   -- the bucket's middle, s since the host's first command
  s.rate AS rate,              -- commands per second
  s.mean_ns / 1e3 AS mean_us,  -- mean end to end, us
  s.p99_ns / 1e3 AS p99_us,    -- its 99th percentile, us
  s.qd AS qd                   -- commands in flight on average (Little's law)
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
  c.colour AS colour,          -- the stage's (ntp_plot_colour)
  x.bucket AS bucket,          -- bucket number
  x.t_s + x.dt_s / 2 AS t_s,   -- the bucket's middle, s
  x.share AS share             -- of the bucket's mean end to end
FROM ntp_plot_group AS g
JOIN _ntp_report_stage_form AS x ON x.db = g.hdb AND x.grp = g.grp
JOIN ntp_plot_colour AS c ON c.stage = x.stage
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
