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
  ('ntp_shell_percentiles', NULL, 0, 1),
  ('ntp_shell_stage_percentiles', NULL, 0, 1),
  ('ntp_shell_hist', NULL, 0, 1),
  ('ntp_shell_cdf', NULL, 0, 1),
  ('_ntp_shell_slowest_row', NULL, 0, 1),
  ('ntp_shell_slowest', NULL, 0, 1),
  ('ntp_shell_tail', NULL, 0, 1),
  ('ntp_shell_queues', NULL, 0, 1),
  -- it reads no joined form, but ntp_series has one: cached, it costs
  -- nothing to leave out
  ('ntp_shell_timeline', NULL, 0, 1);

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

-- .tail: where the time of the slow commands goes. Per group, tail band
-- of the end to end (p0-50 ... p99.9-100, ntp_report_tail) and stage: the
-- band's commands and mean end to end, the stage's mean over them and its
-- share; largest is '*' on the band's largest stage.
CREATE TEMP VIEW ntp_shell_tail AS
SELECT
  g.name AS "group",                          -- report name
  t.band AS band,                             -- 'p0-50' ... 'p99.9-100'
  t.n AS cmds,                                -- the band's commands
  round(t.e2e_mean_ns / 1000, 2) AS e2e_us,   -- their mean end to end, us
  t.label AS stage,                           -- stage label
  round(t.mean_ns / 1000, 2) AS mean_us,      -- the stage's mean over them, us
  round(100 * t.share) AS share_pct,          -- of their mean end to end, %
  CASE WHEN t.largest THEN '*' ELSE '' END AS largest -- the band's largest stage
FROM ntp_report_tail AS t
JOIN ntp_report_group AS g ON g.hdb = t.hdb AND g.grp = t.grp
ORDER BY t.hdb, t.grp, t.band_ord, t.ord;

-- .queues: per group and host queue (qid), ntp_report_queue rounded.
CREATE TEMP VIEW ntp_shell_queues AS
SELECT
  g.name AS "group",                          -- report name
  q.qid AS qid,                               -- the queue's id
  q.n AS cmds,                                -- the group's commands on it
  round(100 * q.share, 1) AS share_pct,       -- of the group's, %
  round(q.rate, 1) AS cmds_per_s,             -- commands per second
  round(q.mean_ns / 1000.0, 2) AS mean_us,    -- mean end to end, us
  round(q.p50_ns / 1000.0, 2) AS p50_us,      -- median, us
  round(q.p99_ns / 1000.0, 2) AS p99_us,      -- 99th percentile, us
  round(q.qd, 2) AS qd                        -- in flight on average (Little's law)
FROM ntp_report_queue AS q
JOIN ntp_report_group AS g ON g.hdb = q.hdb AND g.grp = q.grp
ORDER BY q.hdb, q.grp, q.qid;

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

-- .percentiles --stages: per group and stage, the distribution of the
-- stage's time per command.
CREATE TEMP VIEW ntp_shell_stage_percentiles AS
SELECT
  g.name AS "group",                          -- report name
  s.label AS stage,                           -- stage label
  s.n AS n,                                   -- commands
  round(s.mean_ns / 1000.0, 2) AS mean_us,    -- mean, us
  round(s.p50_ns / 1000.0, 2) AS p50_us,      -- median, us
  round(s.p90_ns / 1000.0, 2) AS p90_us,      -- 90th percentile, us
  round(s.p99_ns / 1000.0, 2) AS p99_us,      -- 99th percentile, us
  round(s.p999_ns / 1000.0, 2) AS p999_us     -- 99.9th percentile, us
FROM ntp_report_stage_stats AS s
JOIN ntp_report_group AS g ON g.hdb = s.hdb AND g.grp = s.grp
ORDER BY s.hdb, s.grp, s.ord;

-- .hist: the log2 histograms of ntp_report_hist, with biolatency's bar of
-- 40 '*' for the fullest bucket.
CREATE TEMP VIEW ntp_shell_hist AS
SELECT
  g.name AS "group",                          -- report name
  h.name AS name,                             -- component or stage name
  h.lo_us AS lo_us,                           -- bucket from, us (NULL: below 0)
  h.hi_us AS hi_us,                           -- up to, us (not included)
  h.count AS count,                           -- values in it
  printf('|%-40s|', substr('****************************************', 1, h.bar))
    AS distribution                           -- count / the fullest's, in '*'
FROM ntp_report_hist AS h
JOIN ntp_report_group AS g ON g.hdb = h.hdb AND g.grp = h.grp
ORDER BY h.hdb, h.grp, h.kind, h.name, h.bucket;

-- .cdf: ntp_report_cdf thinned out for reading (_ntp_report_cdf_point): a
-- distribution's first value, each value at which the cumulative share
-- passes a whole percent, above 99 % each tenth of a percent, and the last
-- value (fraction 1).
CREATE TEMP VIEW ntp_shell_cdf AS
SELECT
  g.name AS "group",                          -- report name
  c.name AS name,                             -- component or stage name
  round(c.ns / 1000.0, 2) AS value_us,        -- the value, us
  c.cum AS cmds,                              -- values at or below it
  c.fraction AS fraction                      -- their share
FROM _ntp_report_cdf_point AS c
JOIN ntp_report_group AS g ON g.hdb = c.hdb AND g.grp = c.grp
ORDER BY c.hdb, c.grp, c.kind, c.name, c.ns;

-- .slowest's rows, unsorted, with their command (hdb, ht) and end to end
-- in ns: the I/O commands of ntp_command, with their identity and stages
-- (us; NULL: not in the command's report).
CREATE TEMP VIEW _ntp_shell_slowest_row AS
SELECT
  hdb AS hdb, ht AS ht, e2e AS e2e,           -- the command, and its order
  name AS "group",                            -- report name
  round(t_s, 6) AS t_s,                       -- s since the host's first command
  qid AS qid,                                 -- queue id
  cid AS cid,                                 -- command id
  slba AS slba,                               -- starting LBA
  mode AS mode,                               -- joined or host
  round(e2e / 1000.0, 2) AS e2e_us,           -- end to end, us
--@ SELECT wrap('round(' || name || ' / 1000.0, 2) AS ' || name || '_us', 1, '  ', ', ')
--@ FROM gen_list WHERE list = 'stage'
FROM ntp_command
WHERE queue = 'io';

-- .slowest: those rows, slowest end to end first. In the order of the
-- host's commands by end to end (_ntp_host_e2e: the same values, and the
-- same order's keys, as those rows'), each command's row found by its
-- keys: where the prepared run keeps that table with its index on the
-- order (native.sql), the first N rows cost N look-ups, not a sort of
-- every command (`SELECT * FROM ntp_shell_slowest LIMIT 10` in sqlite3).
CREATE TEMP VIEW ntp_shell_slowest AS
SELECT r."group" AS "group", r.t_s AS t_s, r.qid AS qid, r.cid AS cid, r.slba AS slba,
  r.mode AS mode, r.e2e_us AS e2e_us,
--@ SELECT wrap('r.' || name || '_us AS ' || name || '_us', -92, '  ', ', ') FROM gen_list WHERE list = 'stage'
FROM _ntp_host_e2e AS h
JOIN _ntp_shell_slowest_row AS r ON r.hdb = h.db AND r.ht = h.t
ORDER BY h.e2e DESC, h.db, h.t;

-- .timeline: each recording's own time series (ntp_series, forms host and
-- target; recordings in ntp_db order), with the commands in flight (Little's law) and the records the
-- recording lost in the bucket (ntp_series_lost: all its groups', counted
-- per interval of the recording). A bucket with losses and no command has
-- a row of its own, its group empty: losses are never left out.
CREATE TEMP VIEW ntp_shell_timeline AS
WITH d AS (
  SELECT db, row_number() OVER () AS ord FROM ntp_db
), x AS MATERIALIZED (
  SELECT db, bucket, name, t_s, dt_s, sampled, rate, mean_ns, p99_ns, qd, grp
  FROM ntp_series
  WHERE form <> 'joined'
), l AS MATERIALIZED (
  -- per recording and bucket: its losses, the largest cause first
  SELECT db, bucket, sum(n) AS n, group_concat(cause || ' ' || n, ', ') AS causes
  FROM (SELECT * FROM ntp_series_lost ORDER BY db, bucket, n DESC, cause)
  GROUP BY db, bucket
), o AS (
  SELECT db, min(first_t) AS first_t, max(end_ns) AS end_ns FROM _ntp_series_grp GROUP BY db
), s AS (
  SELECT * FROM x
  UNION ALL
  SELECT l.db, l.bucket, '', l.bucket * w.width_ns / 1e9,
    -- the bucket's length, as ntp_series'
    CASE WHEN o.end_ns - o.first_t > l.bucket * w.width_ns
      THEN min(w.width_ns, o.end_ns - o.first_t - l.bucket * w.width_ns)
      ELSE w.width_ns END / 1e9,
    0, 0, NULL, NULL, NULL, NULL
  FROM l
  JOIN o ON o.db = l.db
  CROSS JOIN ntp_bucket AS w
  WHERE NOT EXISTS (SELECT 1 FROM x WHERE x.db = l.db AND x.bucket = l.bucket)
)
SELECT
  s.db AS db,                                   -- schema of the recording
  s.t_s AS t_s,                                 -- bucket start, s since its first command
  s.dt_s AS dt_s,                               -- bucket length, s
  s.name AS "group",                            -- group name there ('': losses alone)
  s.sampled AS sampled,                         -- sampled commands
  round(s.rate, 1) AS cmds_per_s,               -- commands per second
  round(s.mean_ns / 1000.0, 2) AS mean_us,      -- mean latency (target: residence), us
  round(s.p99_ns / 1000.0, 2) AS p99_us,        -- its 99th percentile, us
  round(s.qd, 2) AS qd,                         -- in flight on average (Little's law)
  coalesce(l.n, 0) AS lost,                     -- records the recording lost in it
  l.causes AS lost_causes                       -- 'ring_full 120, ...'
FROM s
JOIN d ON d.db = s.db
LEFT JOIN l ON l.db = s.db AND l.bucket = s.bucket
-- (groups of one name on a target that serves several hosts: by grp)
ORDER BY d.ord, s.bucket, "group", s.grp;
