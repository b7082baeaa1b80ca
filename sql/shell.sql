-- ntprof shell: what ntprof-shell's dot-commands print, as TEMP views over
-- report.sql and the prelude. Each view has exactly the columns its command
-- prints, in order; a command with a GROUP argument keeps the rows whose
-- "group" contains it (LIKE, case-insensitive), nothing more. Numbers are
-- rounded by round(), which uses SQLite's printf (docs/sql.md, Rounding).

-- The views that read the report's cached views prepare the session first
-- (join.sql, _ntp_view_plan).
INSERT INTO _ntp_view_plan VALUES
  ('ntp_shell_groups', NULL, 0, 1),
  ('ntp_shell_stages', NULL, 0, 1),
  ('ntp_shell_components', NULL, 0, 1),
  ('ntp_shell_percentiles', NULL, 0, 1);

-- .groups: the groups of the report, in report order.
CREATE TEMP VIEW ntp_shell_groups AS
SELECT
  name AS "group",           -- report name ('read 4KiB nvme1n1')
  mode AS mode,              -- 'joined' or 'host'
  sampled AS sampled,        -- sampled commands
  matched AS matched,        -- with the target's side
  round(rate, 1) AS rate,    -- commands per second
  exact AS exact             -- 1: rate counted, 0: estimated
FROM ntp_report_group
ORDER BY hdb, grp;

-- .stages: per group and stage, the stage table of the report.
CREATE TEMP VIEW ntp_shell_stages AS
SELECT
  g.name AS "group",                          -- report name
  st.label AS stage,                          -- stage label
  round(st.mean_ns / 1000, 2) AS mean_us,     -- mean per command, us
  round(100 * st.share) AS share_pct,         -- of the mean latency, %
  round(st.avg_qd, 2) AS avg_qd               -- Little's law
FROM ntp_report_stage AS st
JOIN ntp_report_group AS g ON g.hdb = st.hdb AND g.grp = st.grp
ORDER BY st.hdb, st.grp, st.ord;

-- .components: per group and component, in path order.
CREATE TEMP VIEW ntp_shell_components AS
SELECT
  g.name AS "group",                          -- report name
  c.label AS component,                       -- component label
  c.n AS n,                                   -- commands
  round(c.mean_ns / 1000.0, 2) AS mean_us,    -- mean, us
  round(c.l, 2) AS l,                         -- commands in it (Little's law)
  round(c.p50_ns / 1000.0, 2) AS p50_us,      -- median, us
  round(c.p99_ns / 1000.0, 2) AS p99_us,      -- 99th percentile, us
  round(c.p999_ns / 1000.0, 2) AS p999_us     -- 99.9th percentile, us
FROM ntp_report_components AS c
JOIN ntp_report_group AS g ON g.hdb = c.hdb AND g.grp = c.grp
ORDER BY c.hdb, c.grp, c.ord;

-- .percentiles: ntp_shell_components without mean and L.
CREATE TEMP VIEW ntp_shell_percentiles AS
SELECT
  "group",                   -- report name
  component,                 -- component label
  n,                         -- commands
  p50_us,                    -- median, us
  p99_us,                    -- 99th percentile, us
  p999_us                    -- 99.9th percentile, us
FROM ntp_shell_components;

-- The bucket width of ntp_shell_timeline, one row: .timeline SECS sets it
-- (default 1 s).
CREATE TEMP TABLE _ntp_shell_timeline_width (
  -- Bucket width, ns.
  ns INTEGER NOT NULL
);
INSERT INTO _ntp_shell_timeline_width VALUES (1000000000);

-- .timeline: per recording, bucket of _ntp_shell_timeline_width and group,
-- the intervals of its ntp_timeline together: recordings in ntp_db order.
CREATE TEMP VIEW ntp_shell_timeline AS
WITH d AS (
  SELECT db, row_number() OVER () AS ord FROM ntp_db
)
SELECT
  t.db AS db,                                   -- schema of the recording
  (t.start / w.ns) * w.ns / 1e9 AS t_s,         -- bucket start, s
  t.name AS "group",                            -- group name there
  sum(t.sampled) AS sampled,                    -- sampled commands
  -- commands per second, weighted by interval length
  round(sum(t.rate * (t.stop - t.start)) / sum(t.stop - t.start), 1) AS cmds_per_s,
  -- mean latency of the sampled commands, us
  round(sum(t.mean_ns * t.sampled)
    / sum(CASE WHEN t.mean_ns IS NOT NULL THEN t.sampled END) / 1000, 2) AS mean_us,
  sum(t.lost) AS lost                           -- records lost (all groups)
FROM _ntp_timeline AS t
CROSS JOIN _ntp_shell_timeline_width AS w
JOIN d ON d.db = t.db
GROUP BY t.db, t.start / w.ns, t.grp
ORDER BY d.ord, t_s, "group";
