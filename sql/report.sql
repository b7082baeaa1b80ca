-- ntprof report: what `ntprof report` and ntprof-shell's .report print, as
-- TEMP views over the prelude and join.sql. One machine's database or many:
-- a host group whose commands have target records is reported over its
-- matched commands ('joined'), any other over the host's own ('host').
-- Portable SQL (exact nearest-rank percentiles by window functions);
-- native.sql redefines ntp_report_component_stats with a native aggregate that
-- gives the same numbers, faster.

-- How a session treats these views (join.sql, _ntp_view_plan): the groups
-- and the component statistics are cached after the join. So is the
-- prelude's ntp_host_grp, which the groups read: its rates count each
-- group's commands, a scan of every host recording that a prepared run
-- then spares every later question; a query naming it needs no
-- preparation (prepare 0), it only reads the rows sooner once there is one.
INSERT INTO _ntp_view_plan VALUES
  ('ntp_host_grp', 6, 0, 0),
  ('_ntp_group_matched', NULL, 0, 1),
  ('_ntp_report_group_run', 7, 0, 1),
  ('ntp_report_group', NULL, 0, 1),
  ('_ntp_report_value', NULL, 0, 1),
  ('ntp_report_component_stats', 8, 0, 1),
  ('ntp_report_warning', NULL, 0, 1),
  ('ntp_report_components', NULL, 0, 1),
  ('ntp_report_stage', NULL, 0, 1),
  ('ntp_report_largest', NULL, 0, 1),
  ('ntp_report_rows', NULL, 0, 1),
  ('ntp_report_admin', NULL, 0, 1),
  ('ntp_unmatched', NULL, 0, 1),
  ('ntp_report_unmatched', NULL, 0, 1),
  ('_ntp_text_group', NULL, 0, 1),
  ('_ntp_text_latency', NULL, 0, 1),
  ('_ntp_text_stage', NULL, 0, 1),
  ('_ntp_text_largest', NULL, 0, 1),
  ('_ntp_text_component', NULL, 0, 1),
  ('_ntp_text_admin', NULL, 0, 1),
  ('_ntp_text_match', NULL, 0, 1),
  ('_ntp_fleet_member', NULL, 0, 1),
  ('ntp_report_fleet_group', NULL, 0, 1),
  ('ntp_report_fleet_stats', NULL, 0, 1),
  ('ntp_report_fleet_stage', NULL, 0, 1),
  ('ntp_report_fleet_largest', NULL, 0, 1),
  ('ntp_report_fleet_host', NULL, 0, 1),
  ('ntp_report_fleet_rows', NULL, 0, 1),
  ('_ntp_text_fleet_group', NULL, 0, 1),
  ('_ntp_text_fleet_host', NULL, 0, 1);

-- Matched commands per host group, of the joins ntp_join_check accepts.
CREATE TEMP VIEW _ntp_group_matched AS
WITH per AS (
  SELECT hdb, grp, tdb, n FROM _ntp_joined_count
  WHERE (hdb, tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok)
), ranked AS (
  SELECT *, sum(n) OVER (PARTITION BY hdb, grp) AS matched,
    row_number() OVER (PARTITION BY hdb, grp ORDER BY n DESC, tdb) AS rn
  FROM per
)
SELECT hdb, grp,
  matched,             -- commands with the target's side
  tdb,                 -- the target recording most of them are from
  n AS tdb_n           -- how many
FROM ranked
WHERE rn = 1;

-- Every host group with its rate counting its lost records: an estimated
-- rate (sampled x -s over the active time) is scaled by (sampled + lost) /
-- sampled, lost as ntp_grp_lost estimates it; a counted rate (kernel:
-- every command counted) already counts them.
CREATE TEMP VIEW _ntp_host_grp_rate AS
SELECT
  g.*,                                    -- ntp_host_grp's columns, rate as stored
  coalesce(l.lost, 0) AS lost,            -- sampled records lost, estimated
  CASE WHEN g.exact OR g.sampled = 0 THEN g.rate
    ELSE g.rate * (g.sampled + coalesce(l.lost, 0)) / g.sampled END
    AS rate_all                           -- commands per second, lost ones counted
FROM ntp_host_grp AS g
LEFT JOIN ntp_grp_lost AS l ON l.db = g.db AND l.grp = g.grp;

-- ntp_report_group below without what it takes from every recording of
-- the session, not its group's run alone (a name's host): what a run
-- prepared alone keeps (lib/cache.c reads runs kept apart together), and
-- ntp_report_group adds it.
CREATE TEMP VIEW _ntp_report_group_run AS
SELECT
  x.*,
  -- what makes its numbers unreliable, comma separated (ntp_report_warning
  -- says it); NULL: nothing. More than ntp_report_threshold.max_lost_pct %
  -- of its sampled records lost on the host ('host_lost') or, joined, on
  -- the target it matched on ('target_lost').
  nullif(ltrim(CASE WHEN x.lost_pct > k.max_lost_pct THEN 'host_lost' ELSE '' END
    || CASE WHEN x.mode = 'joined' AND x.target_lost_pct > k.max_lost_pct
         THEN ',target_lost' ELSE '' END, ','), '') AS unreliable
FROM (
  SELECT
    g.db AS hdb,                            -- host database
    g.grp AS grp,                           -- grp.id there
    g.name AS name,                         -- report name, without its host's
    g.queue AS queue,                       -- io, admin or fabrics
    g.op AS op,                             -- read, write, ...
    g.bytes AS bytes,                       -- bytes per command
    g.sampled AS sampled,                   -- sampled commands
    g.rate_all AS rate,                     -- commands per second, lost ones counted
    g.exact AS exact,                       -- 1: rate counted, 0: estimated
    coalesce(m.matched, 0) AS matched,      -- with the target's side (accepted joins)
    CASE WHEN coalesce(m.matched, 0) > 0 THEN 'joined' ELSE 'host' END AS mode,
    d.driver AS host_driver,                -- names the host's stages
    d.transport AS transport,               -- names the network
    -- names the target's stages: the driver of the target the group's
    -- commands were matched on (a mixed set has kernel and SPDK targets);
    -- unmatched, the least of its run's targets' drivers (the runs of a
    -- comparison may differ in them; a merged file's hosts are in no run
    -- of ntp_run: the least of every target's)
    coalesce((SELECT t.driver FROM ntp_db AS t WHERE t.db = m.tdb),
             (SELECT min(t.driver) FROM ntp_db AS t
              WHERE t.role = 'target'
                AND (t.db IN (SELECT tr.db FROM ntp_run AS hr
                              JOIN ntp_run AS tr ON tr.ord = hr.ord
                              WHERE hr.db = g.db)
                     OR NOT EXISTS (SELECT 1 FROM ntp_run WHERE db = g.db))))
      AS target_driver,
    g.lost AS lost,                         -- sampled records lost, estimated
    100.0 * g.lost / (g.sampled + g.lost) AS lost_pct, -- of sampled + lost, %
    -- a joined group: the same of its target groups (of its identity) on
    -- the target it matched on; NULL for a host group
    (SELECT 100.0 * sum(l.lost) / (sum(l.stored) + sum(l.lost))
     FROM _ntp_grp_all AS h
     JOIN _ntp_grp_all AS t ON t.db = m.tdb AND t.nqn = h.nqn AND t.cntlid = h.cntlid
       AND t.nsid = h.nsid AND t.admin = h.admin AND t.opcode = h.opcode
       AND t.fctype = h.fctype AND t.nlb = h.nlb
     JOIN ntp_grp_lost AS l ON l.db = t.db AND l.grp = t.grp
     WHERE h.db = g.db AND h.grp = g.grp) AS target_lost_pct
  FROM _ntp_host_grp_rate AS g
  JOIN ntp_db AS d ON d.db = g.db
  LEFT JOIN _ntp_group_matched AS m ON m.hdb = g.db AND m.grp = g.grp
  WHERE g.sampled > 0
) AS x
CROSS JOIN ntp_report_threshold AS k
ORDER BY x.queue != 'io', x.hdb, x.grp;

-- The groups to report (those with sampled commands), in report order: I/O
-- commands first, then the admin and fabrics commands.
CREATE TEMP VIEW ntp_report_group AS
SELECT
  hdb, grp,
  -- with its host's name when the session has several hosts
  name || CASE WHEN (SELECT count(*) FROM ntp_db WHERE role = 'host') > 1
    THEN ' (' || (SELECT d.hostname FROM ntp_db AS d WHERE d.db = r.hdb) || ')' ELSE '' END
    AS name,
  queue, op, bytes, sampled, rate, exact, matched, mode, host_driver, transport,
  target_driver, lost, lost_pct, target_lost_pct, unreliable
FROM _ntp_report_group_run AS r
ORDER BY queue != 'io', hdb, grp;

-- Every component value of the joined groups, long form, from their
-- matched commands (of the joins ntp_join_check accepts). (A host-only
-- group's statistics are its recording's own, ntp_component_stats: see
-- ntp_report_component_stats.)
CREATE TEMP VIEW _ntp_report_value AS
SELECT
  j.hdb AS hdb,                -- host database
  j.grp AS grp,                -- grp.id there
  k.component AS component,    -- component.name
  CASE k.component
--@ SELECT wrap('WHEN ''' || name || ''' THEN j.' || name, -92, '    ', ' ')
--@   || ' END AS ns -- its value'
--@ FROM gen_list WHERE list = 'joined'
-- one scan of the join (a CTE read once per component would expand the
-- join check's views once per component)
FROM ntp_joined AS j
CROSS JOIN (SELECT column1 AS component FROM (VALUES
--@ SELECT wrap('(''' || name || ''')', -92, '  ', ', ') || ')) AS k' FROM gen_list WHERE list = 'joined'
WHERE (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok);

-- Per group and component: n, sum, mean and exact nearest-rank percentiles
-- (ns). Optional components (R2T) only where some command has them. A
-- joined group's are computed here, from its matched commands; a host-only
-- group's are the host recording's own statistics (views.sql,
-- ntp_component_stats), which are over the same values.
CREATE TEMP VIEW ntp_report_component_stats AS
WITH r AS (
  SELECT hdb, grp, component, ns,
    row_number() OVER (PARTITION BY hdb, grp, component ORDER BY ns) AS rn,
    count(*) OVER (PARTITION BY hdb, grp, component) AS n
  FROM _ntp_report_value
  WHERE ns IS NOT NULL
)
SELECT
  hdb,                 -- host database
  grp,                 -- grp.id there
  component,           -- component.name
  n,                   -- commands it is over
  sum(ns) AS sum_ns,   -- total ns
  avg(ns) AS mean_ns,  -- mean ns
  max(CASE WHEN rn = (n * 50000 + 99999) / 100000 THEN ns END) AS p50_ns,  -- median
  max(CASE WHEN rn = (n * 99000 + 99999) / 100000 THEN ns END) AS p99_ns,  -- 99th
  max(CASE WHEN rn = (n * 99900 + 99999) / 100000 THEN ns END) AS p999_ns  -- 99.9th
FROM r
GROUP BY hdb, grp, component
UNION ALL
SELECT s.db, s.grp, s.component, s.n, s.sum_ns, s.mean_ns, s.p50_ns, s.p99_ns, s.p999_ns
FROM _ntp_component_stats AS s
JOIN ntp_report_group AS g ON g.hdb = s.db AND g.grp = s.grp AND g.mode = 'host'
ORDER BY 1, 2, 3;

-- The cache of ntp_report_component_stats, built faster (join.sql,
-- _ntp_cache_build): the values sorted once into a table whose rowids
-- follow the sort, so a group's percentile is one rowid lookup, rank
-- (n q' + 99999) / 100000 counted from the group's first row, where the
-- view's window numbers every row and counts every partition. Same rows.
INSERT INTO _ntp_cache_build VALUES ('ntp_report_component_stats', '
CREATE TEMP TABLE _ntp_sorted_value AS
SELECT hdb, grp, component, ns FROM _ntp_report_value
WHERE ns IS NOT NULL
ORDER BY hdb, grp, component, ns;
CREATE TEMP TABLE _ntp_report_component_stats_cache AS
WITH p AS (
  SELECT hdb, grp, component, min(rowid) AS r0, count(*) AS n, sum(ns) AS sum_ns,
    avg(ns) AS mean_ns
  FROM _ntp_sorted_value
  GROUP BY hdb, grp, component
)
SELECT hdb, grp, component, n, sum_ns, mean_ns,
  (SELECT ns FROM _ntp_sorted_value WHERE rowid = r0 + (n * 50000 + 99999) / 100000 - 1)
    AS p50_ns,
  (SELECT ns FROM _ntp_sorted_value WHERE rowid = r0 + (n * 99000 + 99999) / 100000 - 1)
    AS p99_ns,
  (SELECT ns FROM _ntp_sorted_value WHERE rowid = r0 + (n * 99900 + 99999) / 100000 - 1)
    AS p999_ns
FROM p
UNION ALL
SELECT s.db, s.grp, s.component, s.n, s.sum_ns, s.mean_ns, s.p50_ns, s.p99_ns, s.p999_ns
FROM _ntp_component_stats AS s
JOIN ntp_report_group AS g ON g.hdb = s.db AND g.grp = s.grp AND g.mode = ''host''
ORDER BY 1, 2, 3;
DROP TABLE _ntp_sorted_value;');

-- The components table of the report, in path order, with labels and L
-- (commands in the component, by Little's law: rate x mean).
CREATE TEMP VIEW ntp_report_components AS
SELECT
  c.hdb AS hdb, c.grp AS grp,
  k.ord AS ord,                  -- path order
  k.name AS component,           -- component.name
  k.label AS label,              -- report label
  c.n AS n,                      -- commands
  c.mean_ns AS mean_ns,          -- mean ns
  g.rate * c.sum_ns / g.matched_or_sampled / 1e9 AS l,  -- Little's law
  c.p50_ns AS p50_ns, c.p99_ns AS p99_ns, c.p999_ns AS p999_ns
FROM ntp_report_component_stats AS c
JOIN (SELECT *, CASE mode WHEN 'joined' THEN matched ELSE sampled END AS matched_or_sampled
      FROM ntp_report_group) AS g ON g.hdb = c.hdb AND g.grp = c.grp
JOIN component AS k ON k.name = c.component
  AND (CASE g.mode WHEN 'joined' THEN k.stage_joined IS NOT NULL OR k.total = 1
                   ELSE k.role = 'host' AND (k.stage_local IS NOT NULL OR k.total = 1) END)
ORDER BY c.hdb, c.grp, k.ord;

-- The stage table: per group and stage, mean over all the group's
-- commands, share of the mean latency, avg QD (Little's law), '#' bar width
-- round(share x ntp_constant.bar_width). Stages without a label for the
-- driver are not shown (an SPDK host has no block layer).
CREATE TEMP VIEW ntp_report_stage AS
WITH g AS (
  SELECT *, CASE mode WHEN 'joined' THEN matched ELSE sampled END AS cmds
  FROM ntp_report_group
), e AS (
  SELECT hdb, grp, mean_ns FROM ntp_report_component_stats WHERE component = 'e2e'
)
SELECT
  c.hdb AS hdb, c.grp AS grp,
  st.ord AS ord,                                   -- report order
  st.name AS stage,                                -- stage.name
  sl.label AS label,                               -- as the report prints it
  sum(c.sum_ns) * 1.0 / g.cmds AS mean_ns,         -- mean ns per command
  sum(c.sum_ns) * 1.0 / g.cmds / e.mean_ns AS share, -- of the mean latency
  g.rate * sum(c.sum_ns) / g.cmds / 1e9 AS avg_qd, -- Little's law
  CAST(round(cst.bar_width * 1.0 * sum(c.sum_ns) / g.cmds / e.mean_ns) AS INTEGER)
    AS bar -- '#'s
FROM ntp_report_component_stats AS c
JOIN g ON g.hdb = c.hdb AND g.grp = c.grp
JOIN e ON e.hdb = c.hdb AND e.grp = c.grp
JOIN component AS k ON k.name = c.component
JOIN stage AS st
  ON st.name = CASE g.mode WHEN 'joined' THEN k.stage_joined ELSE k.stage_local END
JOIN stage_label AS sl ON sl.stage = st.name
  AND sl.flavour = CASE st.side WHEN 'transport' THEN g.transport
                   WHEN 'host' THEN g.host_driver ELSE g.target_driver END
JOIN ntp_constant AS cst
GROUP BY c.hdb, c.grp, st.name
ORDER BY c.hdb, c.grp, st.ord;

-- Per group: the stage with the largest share.
CREATE TEMP VIEW ntp_report_largest AS
SELECT
  hdb,                         -- host database
  grp,                         -- grp.id there
  stage,                       -- stage.name
  label,                       -- as the report prints it
  share                        -- of the mean latency
FROM (SELECT *, row_number() OVER (PARTITION BY hdb, grp ORDER BY share DESC, ord) AS rn
      FROM ntp_report_stage)
WHERE rn = 1;

-- Throughput per I/O operation over every host: commands and bytes per
-- second, of every I/O group (also one counted but never sampled), lost
-- records counted (_ntp_host_grp_rate).
CREATE TEMP VIEW ntp_report_throughput AS
SELECT
  op,                                          -- read, write, ...
  sum(rate_all) AS iops,                       -- commands per second
  sum(rate_all * coalesce(bytes, 0)) AS bytes_per_s, -- bytes per second
  min(exact) AS exact                          -- 1: counted, 0: estimated
FROM _ntp_host_grp_rate
WHERE queue = 'io'
GROUP BY op
ORDER BY op;

-- What makes the report's numbers unreliable, one row each: a join
-- ntp_join_check refused (level 'join'), and each reason of a group's
-- ntp_report_group.unreliable (level 'group'). The text report prints each
-- message (after 'join refused: HOST with TARGET: ' or 'warning: '), the
-- JSON lists them; ntprof report --strict exits 3 when the report has one.
-- Joins first, then groups in report order.
CREATE TEMP VIEW ntp_report_warning AS
WITH g AS (
  SELECT g.*, k.max_lost_pct AS max_pct
  FROM ntp_report_group AS g
  CROSS JOIN ntp_report_threshold AS k
  WHERE g.unreliable IS NOT NULL
), w AS (
  SELECT 0 AS io, 0 AS sub, 'join' AS level, hdb, tdb, NULL AS grp,
    'join_refused' AS reason, message
  FROM ntp_join_check
  WHERE verdict = 'refused'
  UNION ALL
  SELECT 1 + (queue != 'io'), 1, 'group', hdb, NULL, grp, 'host_lost',
    printf('about %.0f of %.0f sampled commands lost while recording (%s %%, over %g %%): '
      || 'the rate counts them, the latency and stages rest on the %d stored',
      lost, sampled + lost,
      CASE WHEN lost_pct >= 99.5 AND lost_pct < 100
        THEN printf('%.1f', floor(10 * lost_pct) / 10) ELSE printf('%.3g', lost_pct) END,
      max_pct, sampled)
  FROM g
  WHERE instr(unreliable, 'host_lost')
  UNION ALL
  SELECT 1 + (queue != 'io'), 2, 'group', hdb, NULL, grp, 'target_lost',
    printf('the target lost %s %% of its sampled records of this group (over %g %%): '
      || 'the latency and stages rest on the %d matched',
      CASE WHEN target_lost_pct >= 99.5 AND target_lost_pct < 100
        THEN printf('%.1f', floor(10 * target_lost_pct) / 10)
        ELSE printf('%.3g', target_lost_pct) END,
      max_pct, matched)
  FROM g
  WHERE instr(unreliable, 'target_lost')
)
SELECT
  level,                       -- join or group
  hdb,                         -- host database
  tdb,                         -- target database (join), else NULL
  grp,                         -- grp.id on the host (group), else NULL
  reason,                      -- join_refused, host_lost or target_lost
  message                      -- what the report prints
FROM w
ORDER BY io, hdb, grp, tdb, sub;

-- The report's numbers of every group in one table, long form: what
-- `ntprof report --csv` prints (docs/report-json.md). Per group, in report
-- order: a 'latency' row (end to end), a 'stage' row per stage, a
-- 'component' row per component, in path order, then per tail band
-- (ntp_report_tail, stats.sql) a 'tail' row of its end to end and one per
-- stage. A column that a section has no value for is NULL.
CREATE TEMP VIEW ntp_report_rows AS
SELECT
  v.section AS section,        -- latency, stage, component or tail
  g.name AS "group",           -- report name
  g.hdb AS hdb,                -- host database
  g.grp AS grp,                -- grp.id there
  g.queue AS queue,            -- io, admin or fabrics
  g.mode AS mode,              -- joined or host
  g.sampled AS sampled,        -- sampled commands
  g.matched AS matched,        -- with the target's side
  g.rate AS rate,              -- commands per second
  g.exact AS exact,            -- 1: rate counted, 0: estimated
  v.ord AS ord,                -- stage or path order; NULL for latency
  v.name AS name,              -- stage.name or component.name
  v.label AS label,            -- as the report prints it
  v.n AS n,                    -- commands it is over
  v.mean_ns AS mean_ns,        -- mean ns per command
  v.share AS share,            -- of the mean latency (stage)
  v.avg_qd AS avg_qd,          -- commands in it by Little's law (stage)
  v.l AS l,                    -- the same for a component
  v.p50_ns AS p50_ns,          -- median ns
  v.p99_ns AS p99_ns,          -- 99th percentile ns
  v.p999_ns AS p999_ns,        -- 99.9th percentile ns
  v.p90_ns AS p90_ns,          -- 90th percentile ns (stage)
  v.band AS band,              -- the tail band, 'p0-50' ... (tail)
  g.lost AS lost,              -- the group's sampled records lost, estimated
  g.unreliable IS NULL AS reliable, -- 1: no warning of the group
  g.unreliable AS unreliable   -- its warnings' reasons, comma separated; NULL: none
FROM (
  SELECT 1 AS sec, 'latency' AS section, c.hdb, c.grp, NULL AS ord, c.component AS name,
    k.label, c.n, c.mean_ns, NULL AS share, NULL AS avg_qd, NULL AS l,
    c.p50_ns, c.p99_ns, c.p999_ns, NULL AS p90_ns, NULL AS band_ord, NULL AS band
  FROM ntp_report_component_stats AS c
  JOIN component AS k ON k.name = c.component
  WHERE c.component = 'e2e'
  UNION ALL
  -- the stage's percentiles over the commands that have it (stats.sql)
  SELECT 2, 'stage', s.hdb, s.grp, s.ord, s.stage, s.label, p.n, s.mean_ns, s.share,
    s.avg_qd, NULL, p.p50_ns, p.p99_ns, p.p999_ns, p.p90_ns, NULL, NULL
  FROM ntp_report_stage AS s
  LEFT JOIN ntp_report_stage_stats AS p
    ON p.hdb = s.hdb AND p.grp = s.grp AND p.stage = s.stage
  UNION ALL
  SELECT 3, 'component', hdb, grp, ord, component, label, n, mean_ns, NULL, NULL, l,
    p50_ns, p99_ns, p999_ns, NULL, NULL, NULL
  FROM ntp_report_components
  UNION ALL
  -- per tail band (stats.sql): its commands' mean end to end, then each
  -- stage's mean over them and share of it
  SELECT DISTINCT 4, 'tail', hdb, grp, NULL, 'e2e', 'end to end', n, e2e_mean_ns, NULL,
    NULL, NULL, NULL, NULL, NULL, NULL, band_ord, band
  FROM ntp_report_tail
  UNION ALL
  SELECT 4, 'tail', hdb, grp, ord, stage, label, n, mean_ns, share, NULL, NULL, NULL, NULL,
    NULL, NULL, band_ord, band
  FROM ntp_report_tail
) AS v
JOIN ntp_report_group AS g ON g.hdb = v.hdb AND g.grp = v.grp
ORDER BY g.queue != 'io', g.hdb, g.grp, v.sec, v.band_ord, v.ord;

-- The admin and fabrics commands of the report in one line, per host
-- database: how many were sampled, in how many groups, and their
-- operations (a report prints their groups only when asked).
CREATE TEMP VIEW ntp_report_admin AS
SELECT
  hdb,                                         -- host database
  sum(sampled) AS sampled,                     -- admin and fabrics commands sampled
  count(*) AS groups,                          -- in this many groups
  group_concat(DISTINCT op) AS ops             -- their operations
FROM ntp_report_group
WHERE queue != 'io'
GROUP BY hdb;

-- What is missing from the recordings, one line per recording and point:
-- the records lost (point NULL) or the stored commands that lack a point,
-- with the count per cause, largest first. No row: nothing is missing.
CREATE TEMP VIEW ntp_report_missing AS
SELECT * FROM (
  SELECT
    l.db AS db,                -- database
    d.role AS role,            -- host or target
    d.hostname AS hostname,    -- machine
    NULL AS point,             -- NULL: whole records lost
    -1 AS ord,                 -- report order within the database
    sum(l.n) AS n,             -- records lost, or commands lacking the point
    d.records AS records,      -- commands stored
    group_concat(l.n || ': ' || l.description, '; ') AS causes -- per cause
  FROM (SELECT * FROM ntp_lost ORDER BY n DESC) AS l
  JOIN ntp_db AS d ON d.db = l.db
  GROUP BY l.db
  UNION ALL
  SELECT g.db, d.role, d.hostname, g.point, g.ord, sum(g.n), d.records,
    group_concat(g.n || ': ' || g.description, '; ')
  FROM (SELECT * FROM ntp_gap ORDER BY ord, n DESC) AS g
  JOIN ntp_db AS d ON d.db = g.db
  GROUP BY g.db, g.point
)
ORDER BY role, db, ord;

-- Host commands without a target record, each with why: 'no_target' (no
-- target record of its identity lay within the window around its wait, or
-- no target recorded its kind of command at all), 'missing_point' (its
-- h_sent or h_rx was not recorded, so its wait cannot place it),
-- 'ambiguous' (records of its identity lay near, but none inside its wait
-- and not one alone). join.sql, step 3, says how pairs are made.
CREATE TEMP VIEW ntp_unmatched AS
SELECT
  u.hdb AS hdb,                -- host database
  u.ht AS ht,                  -- host cmd.t
  u.grp AS grp,                -- grp.id there
  CASE WHEN NOT max(u.waited) THEN 'missing_point'
    WHEN sum(u.candidates) = 0 THEN 'no_target' ELSE 'ambiguous' END AS reason
FROM _ntp_unmatched_pair AS u
GROUP BY u.hdb, u.ht
UNION ALL
SELECT h.db, h.t, h.grp, 'no_target'
FROM ntp_host_cmd AS h
WHERE NOT EXISTS (SELECT 1 FROM _ntp_grp_pair AS p WHERE p.hdb = h.db AND p.hgrp = h.grp);

-- The unmatched host records per reason, as the report's records line
-- counts them, most first.
CREATE TEMP VIEW ntp_report_unmatched AS
SELECT
  reason,                      -- ntp_unmatched.reason
  count(*) AS n,               -- host records
  CASE reason WHEN 'no_target' THEN 'without a target record in time'
    WHEN 'missing_point' THEN 'missing a point' ELSE 'ambiguous' END AS label
FROM ntp_unmatched
GROUP BY reason
ORDER BY n DESC, reason;

-- The text report's numbers as lib/report.c prints them, formatted by
-- SQLite's printf (docs/sql.md, Rounding): the printer only lays them out.

-- Per group to report, in report order: its title line.
CREATE TEMP VIEW _ntp_text_group AS
SELECT
  hdb,                                   -- host database
  grp,                                   -- grp.id there
  name,                                  -- report name
  sampled,                               -- sampled commands
  -- commands per second: 950, 12.2k, 1.5M
  CASE WHEN rate < 1e3 THEN printf('%.0f', rate)
    WHEN rate < 1e6 THEN printf('%.1fk', rate / 1e3)
    ELSE printf('%.1fM', rate / 1e6) END AS rate,
  exact,                                 -- 1: rate counted, 0: estimated
  matched,                               -- with the target's side
  mode = 'joined' AS joined,             -- 1: reported over matched commands
  queue = 'io' AS io                     -- 1: an I/O group
FROM ntp_report_group;

-- Per group: the latency line, us. A fleet group of the summary
-- (ntp_report_fleet_*, below) has hdb '' and its fleet as grp, here and
-- in the stage and largest lines.
CREATE TEMP VIEW _ntp_text_latency AS
SELECT
  hdb,                                   -- host database; '': a fleet group
  grp,                                   -- grp.id there; the fleet group
  printf('%.2f', mean_ns / 1e3) AS mean_us, -- mean
  printf('%.2f', p50_ns / 1e3) AS p50_us,   -- median
  printf('%.2f', p99_ns / 1e3) AS p99_us,   -- 99th percentile
  printf('%.2f', p999_ns / 1e3) AS p999_us  -- 99.9th percentile
FROM (
  SELECT hdb, grp, mean_ns, p50_ns, p99_ns, p999_ns
  FROM ntp_report_component_stats
  WHERE component = 'e2e'
  UNION ALL
  SELECT '', fleet, mean_ns, p50_ns, p99_ns, p999_ns
  FROM ntp_report_fleet_stats
  WHERE kind = 'component'
);

-- Per group and stage: the stage table's rows.
CREATE TEMP VIEW _ntp_text_stage AS
SELECT
  s.hdb AS hdb,                          -- host database; '': a fleet group
  s.grp AS grp,                          -- grp.id there; the fleet group
  s.ord AS ord,                          -- stage order
  s.label AS label,                      -- stage label
  printf('%.2f', s.mean_ns / 1e3) AS mean_us,  -- mean per command
  printf('%.0f%%', 100 * s.share) AS share,    -- of the mean latency
  printf('%.2f', s.avg_qd) AS avg_qd,          -- Little's law
  max(0, min(s.bar, k.bar_width)) AS bar       -- '#'s, within the width
FROM (
  SELECT hdb, grp, ord, label, mean_ns, share, avg_qd, bar FROM ntp_report_stage
  UNION ALL
  SELECT '', fleet, ord, label, mean_ns, share, avg_qd, bar FROM ntp_report_fleet_stage
) AS s
JOIN ntp_constant AS k;

-- Per group: the largest stage's line.
CREATE TEMP VIEW _ntp_text_largest AS
SELECT
  hdb,                                   -- host database; '': a fleet group
  grp,                                   -- grp.id there; the fleet group
  label,                                 -- stage label
  printf('%.0f', 100 * share) AS share_pct -- of the latency, %
FROM (
  SELECT hdb, grp, label, share FROM ntp_report_largest
  UNION ALL
  SELECT '', fleet, label, share FROM ntp_report_fleet_largest
);

-- Per group and component: the components table's rows (--detail), us.
CREATE TEMP VIEW _ntp_text_component AS
SELECT
  hdb,                                   -- host database
  grp,                                   -- grp.id there
  ord,                                   -- path order
  label,                                 -- component label
  n,                                     -- commands
  printf('%.2f', mean_ns / 1e3) AS mean_us, -- mean
  printf('%.2f', l) AS l,                   -- Little's law
  printf('%.2f', p50_ns / 1e3) AS p50_us,   -- median
  printf('%.2f', p99_ns / 1e3) AS p99_us    -- 99th percentile
FROM ntp_report_components;

-- Per I/O operation: the throughput line's items.
CREATE TEMP VIEW _ntp_text_throughput AS
SELECT
  op,                                    -- read, write, ...
  -- commands per second: 950 IOPS, 12.2 kIOPS, 1.50 MIOPS
  CASE WHEN iops < 1e3 THEN printf('%.0f IOPS', iops)
    WHEN iops < 1e6 THEN printf('%.1f kIOPS', iops / 1e3)
    ELSE printf('%.2f MIOPS', iops / 1e6) END AS iops,
  -- ', 50.0 MB/s', or '' without data
  CASE WHEN bytes_per_s > 0 THEN printf(', %.1f MB/s', bytes_per_s / 1e6)
    ELSE '' END AS bytes,
  min(exact) OVER () AS exact            -- 1: every operation counted
FROM ntp_report_throughput
ORDER BY op;

-- The admin and fabrics commands' line, over every host; no row: none.
CREATE TEMP VIEW _ntp_text_admin AS
SELECT
  sum(sampled) AS sampled,               -- sampled
  sum(groups) AS groups,                 -- in this many groups
  group_concat(ops, ', ') AS ops         -- their operations
FROM ntp_report_admin
HAVING sum(sampled) > 0;

-- The records line's match, over every host, one row: a partial match is
-- never rounded up to 100 %.
CREATE TEMP VIEW _ntp_text_match AS
SELECT
  sum(matched) AS matched,               -- host records with a target record
  CASE WHEN sum(matched) < sum(host_records)
      AND 100.0 * sum(matched) / sum(host_records) >= 99.5
    THEN printf('%.1f', floor(1000.0 * sum(matched) / sum(host_records)) / 10)
    ELSE printf('%.0f', 100.0 * sum(matched) / max(sum(host_records), 1)) END
    AS matched_pct,                      -- of the host's, %
  sum(host_records) - sum(matched) AS unmatched -- host records without
FROM ntp_match_stats;

-- The fleet summary (`ntprof report` over many hosts, docs/fleet.md): the
-- I/O groups of every host pooled per operation, size, report mode and
-- drivers, as fio's group_reporting: a total per fleet group over every
-- command of its hosts' groups (exact percentiles of the pooled values,
-- never averages of the hosts' own), then one row per host.

-- Per report group: the fleet group it is pooled into.
CREATE TEMP VIEW _ntp_fleet_member AS
WITH m AS (
  SELECT g.hdb, g.grp, g.queue, g.op, g.bytes, g.mode, g.host_driver, g.transport,
    g.target_driver,
    -- 'read 4KiB': the group's name without its device
    substr(h.name, 1, length(h.name) - length(h.device) - 1) AS name
  FROM ntp_report_group AS g
  JOIN ntp_host_grp AS h ON h.db = g.hdb AND h.grp = g.grp
), k AS (
  SELECT queue, op, bytes, mode, host_driver, transport, target_driver, name,
    row_number() OVER (ORDER BY queue != 'io', queue, op, bytes, name, mode DESC,
      host_driver, transport, target_driver) AS fleet
  FROM (SELECT DISTINCT queue, op, bytes, mode, host_driver, transport, target_driver, name
        FROM m)
)
SELECT
  m.hdb AS hdb,                -- host database
  m.grp AS grp,                -- grp.id there
  k.fleet AS fleet,            -- the fleet group, 1 first in report order
  k.name AS name               -- its name: 'read 4KiB'
FROM m
JOIN k ON k.queue = m.queue AND k.op = m.op AND k.bytes IS m.bytes AND k.mode = m.mode
  AND k.host_driver = m.host_driver AND k.transport = m.transport
  AND k.target_driver IS m.target_driver AND k.name = m.name;

-- Per fleet group, in report order: what it pools. Its commands are its
-- groups' commands of the report mode (joined: the matched ones).
CREATE TEMP VIEW ntp_report_fleet_group AS
SELECT
  f.fleet AS fleet,                       -- fleet group, 1 first
  f.name AS name,                         -- 'read 4KiB'
  g.queue AS queue,                       -- io, admin or fabrics
  g.op AS op,                             -- read, write, ...
  g.bytes AS bytes,                       -- bytes per command
  g.mode AS mode,                         -- joined or host
  g.host_driver AS host_driver,           -- names the host's stages
  g.transport AS transport,               -- names the network
  g.target_driver AS target_driver,       -- names the target's stages
  count(DISTINCT g.hdb) AS hosts,         -- host recordings pooled
  count(*) AS groups,                     -- report groups pooled
  sum(g.sampled) AS sampled,              -- sampled commands
  sum(g.matched) AS matched,              -- with the target's side
  sum(g.rate) AS rate,                    -- commands per second, all hosts
  min(g.exact) AS exact                   -- 1: every rate counted
FROM _ntp_fleet_member AS f
JOIN ntp_report_group AS g ON g.hdb = f.hdb AND g.grp = f.grp
GROUP BY f.fleet
ORDER BY f.fleet;

-- Per fleet group, end to end ('e2e', kind 'component') and each stage of
-- the report (kind 'stage'): commands, sum and mean, and the exact
-- nearest-rank p50, p99, p99.9 of every pooled command's value (ns).
CREATE TEMP VIEW ntp_report_fleet_stats AS
WITH r AS (
  SELECT f.fleet, v.kind, v.name, v.ns,
    row_number() OVER (PARTITION BY f.fleet, v.kind, v.name ORDER BY v.ns) AS rn,
    count(*) OVER (PARTITION BY f.fleet, v.kind, v.name) AS n
  FROM _ntp_report_cmd_value AS v
  JOIN _ntp_fleet_member AS f ON f.hdb = v.hdb AND f.grp = v.grp
  WHERE v.kind = 'stage' OR v.name = 'e2e'
)
SELECT
  fleet,               -- fleet group
  kind,                -- 'component' (e2e) or 'stage'
  name,                -- 'e2e', or stage.name
  n,                   -- commands it is over
  sum(ns) AS sum_ns,   -- total ns
  avg(ns) AS mean_ns,  -- mean ns
  max(CASE WHEN rn = (n * 50000 + 99999) / 100000 THEN ns END) AS p50_ns,  -- median
  max(CASE WHEN rn = (n * 99000 + 99999) / 100000 THEN ns END) AS p99_ns,  -- 99th
  max(CASE WHEN rn = (n * 99900 + 99999) / 100000 THEN ns END) AS p999_ns  -- 99.9th
FROM r
GROUP BY fleet, kind, name;

-- Per fleet group and stage, as ntp_report_stage per group: the mean over
-- all the pooled commands (a command without the stage counts 0), share
-- of the mean end to end, avg QD (Little's law, over the summed rate),
-- '#' bar width.
CREATE TEMP VIEW ntp_report_fleet_stage AS
WITH g AS (
  SELECT *, CASE mode WHEN 'joined' THEN matched ELSE sampled END AS cmds
  FROM ntp_report_fleet_group
), e AS (
  SELECT fleet, mean_ns FROM ntp_report_fleet_stats WHERE kind = 'component'
)
SELECT
  s.fleet AS fleet,                                -- fleet group
  st.ord AS ord,                                   -- report order
  st.name AS stage,                                -- stage.name
  sl.label AS label,                               -- as the report prints it
  s.sum_ns * 1.0 / g.cmds AS mean_ns,              -- mean ns per command
  s.sum_ns * 1.0 / g.cmds / e.mean_ns AS share,    -- of the mean latency
  g.rate * s.sum_ns / g.cmds / 1e9 AS avg_qd,      -- Little's law
  CAST(round(cst.bar_width * 1.0 * s.sum_ns / g.cmds / e.mean_ns) AS INTEGER) AS bar -- '#'s
FROM ntp_report_fleet_stats AS s
JOIN g ON g.fleet = s.fleet
JOIN e ON e.fleet = s.fleet
JOIN stage AS st ON st.name = s.name
JOIN stage_label AS sl ON sl.stage = st.name
  AND sl.flavour = CASE st.side WHEN 'transport' THEN g.transport
                   WHEN 'host' THEN g.host_driver ELSE g.target_driver END
JOIN ntp_constant AS cst
WHERE s.kind = 'stage'
ORDER BY s.fleet, st.ord;

-- Per fleet group: the stage with the largest share.
CREATE TEMP VIEW ntp_report_fleet_largest AS
SELECT
  fleet,                       -- fleet group
  stage,                       -- stage.name
  label,                       -- as the report prints it
  share                        -- of the mean latency
FROM (SELECT *, row_number() OVER (PARTITION BY fleet ORDER BY share DESC, ord) AS rn
      FROM ntp_report_fleet_stage)
WHERE rn = 1;

-- Per fleet group, one row per host group pooled into it, in report
-- order: the host, its commands, its own end to end and largest stage
-- (its report group's), and the records its recording lost.
CREATE TEMP VIEW ntp_report_fleet_host AS
SELECT
  f.fleet AS fleet,            -- fleet group
  g.hdb AS hdb,                -- host database
  g.grp AS grp,                -- grp.id there
  d.hostname AS hostname,      -- machine
  g.name AS "group",           -- its report group's name
  g.sampled AS sampled,        -- sampled commands
  g.matched AS matched,        -- with the target's side
  g.rate AS rate,              -- commands per second
  g.exact AS exact,            -- 1: rate counted, 0: estimated
  c.n AS n,                    -- commands the latency is over
  c.mean_ns AS mean_ns,        -- end to end: mean ns
  c.p50_ns AS p50_ns,          -- median
  c.p99_ns AS p99_ns,          -- 99th percentile
  c.p999_ns AS p999_ns,        -- 99.9th percentile
  l.stage AS largest,          -- stage.name of its largest stage
  l.label AS largest_label,    -- as the report prints it
  l.share AS largest_share,    -- its share of the mean latency
  d.lost AS lost               -- records its recording lost (all its groups)
FROM _ntp_fleet_member AS f
JOIN ntp_report_group AS g ON g.hdb = f.hdb AND g.grp = f.grp
JOIN ntp_db AS d ON d.db = g.hdb
LEFT JOIN ntp_report_component_stats AS c
  ON c.hdb = g.hdb AND c.grp = g.grp AND c.component = 'e2e'
LEFT JOIN ntp_report_largest AS l ON l.hdb = g.hdb AND l.grp = g.grp
ORDER BY f.fleet, g.hdb, g.grp;

-- The fleet summary in one table, long form, as ntp_report_rows: what
-- `ntprof report --csv` prints in the summary layout. Per fleet group, in
-- report order: a 'fleet_latency' row (end to end, pooled), a
-- 'fleet_stage' row per stage, then each host group pooled, its rows of
-- ntp_report_rows (its 'latency' row is the text's host row). hdb and grp
-- are NULL on the fleet rows, hosts on the host groups' rows.
CREATE TEMP VIEW ntp_report_fleet_rows AS
SELECT
  v.section AS section,        -- fleet_latency, fleet_stage, or ntp_report_rows'
  coalesce(v.host_group, f.name) AS "group", -- fleet group's name, or the host group's
  v.hdb AS hdb,                -- host database (latency rows)
  v.grp AS grp,                -- grp.id there (latency rows)
  f.queue AS queue,            -- io, admin or fabrics
  f.mode AS mode,              -- joined or host
  v.sampled AS sampled,        -- sampled commands
  v.matched AS matched,        -- with the target's side
  v.rate AS rate,              -- commands per second
  v.exact AS exact,            -- 1: rate counted, 0: estimated
  v.ord AS ord,                -- stage order; NULL for latency
  v.name AS name,              -- stage.name, or component.name (e2e)
  v.label AS label,            -- as the report prints it
  v.n AS n,                    -- commands (latency)
  v.mean_ns AS mean_ns,        -- mean ns per command
  v.share AS share,            -- of the mean latency (fleet_stage)
  v.avg_qd AS avg_qd,          -- commands in it by Little's law (fleet_stage)
  NULL AS l,                   -- (a component's; none here)
  v.p50_ns AS p50_ns,          -- median ns (latency rows)
  v.p99_ns AS p99_ns,          -- 99th percentile ns
  v.p999_ns AS p999_ns,        -- 99.9th percentile ns
  v.fleet AS fleet,            -- fleet group, 1 first
  v.hosts AS hosts             -- host recordings pooled (fleet rows)
FROM (
  SELECT 1 AS sec, 'fleet_latency' AS section, s.fleet, NULL AS hdb, NULL AS grp,
    g.sampled, g.matched, g.rate, g.exact, NULL AS ord, s.name, k.label, s.n, s.mean_ns,
    NULL AS share, NULL AS avg_qd, s.p50_ns, s.p99_ns, s.p999_ns, g.hosts,
    NULL AS host_group
  FROM ntp_report_fleet_stats AS s
  JOIN ntp_report_fleet_group AS g ON g.fleet = s.fleet
  JOIN component AS k ON k.name = s.name
  WHERE s.kind = 'component'
  UNION ALL
  SELECT 2, 'fleet_stage', s.fleet, NULL, NULL, g.sampled, g.matched, g.rate, g.exact, s.ord,
    s.stage, s.label, NULL, s.mean_ns, s.share, s.avg_qd, NULL, NULL, NULL, g.hosts, NULL
  FROM ntp_report_fleet_stage AS s
  JOIN ntp_report_fleet_group AS g ON g.fleet = s.fleet
  UNION ALL
  SELECT 3, r.section, m.fleet, r.hdb, r.grp, r.sampled, r.matched, r.rate, r.exact, r.ord,
    r.name, r.label, r.n, r.mean_ns, r.share, r.avg_qd, r.p50_ns, r.p99_ns, r.p999_ns,
    NULL, r."group"
  FROM ntp_report_rows AS r
  JOIN _ntp_fleet_member AS m ON m.hdb = r.hdb AND m.grp = r.grp
) AS v
JOIN ntp_report_fleet_group AS f ON f.fleet = v.fleet
ORDER BY v.fleet, v.sec, v.hdb, v.grp,
  CASE v.section WHEN 'latency' THEN 0 WHEN 'stage' THEN 1 ELSE 2 END, v.ord;

-- The fleet summary's text, formatted as the report's (_ntp_text_*).

-- Per fleet group to report, in report order: its title line.
CREATE TEMP VIEW _ntp_text_fleet_group AS
SELECT
  fleet,                                 -- fleet group
  name,                                  -- 'read 4KiB'
  name || ', ' || hosts || CASE hosts WHEN 1 THEN ' host' ELSE ' hosts' END
    AS title,                            -- 'read 4KiB, 16 hosts'
  sampled,                               -- sampled commands
  CASE WHEN rate < 1e3 THEN printf('%.0f', rate)
    WHEN rate < 1e6 THEN printf('%.1fk', rate / 1e3)
    ELSE printf('%.1fM', rate / 1e6) END AS rate, -- commands per second, all hosts
  exact,                                 -- 1: every rate counted
  matched,                               -- with the target's side
  mode = 'joined' AS joined,             -- 1: over matched commands
  queue = 'io' AS io                     -- 1: an I/O group
FROM ntp_report_fleet_group;

-- Per fleet group and host group pooled: the host table's rows, us.
CREATE TEMP VIEW _ntp_text_fleet_host AS
SELECT
  fleet,                                 -- fleet group
  hdb, grp,                              -- the host group
  hostname,                              -- machine
  sampled,                               -- sampled commands
  matched,                               -- with the target's side
  printf('%.2f', mean_ns / 1e3) AS mean_us, -- end to end: mean
  printf('%.2f', p50_ns / 1e3) AS p50_us,   -- median
  printf('%.2f', p99_ns / 1e3) AS p99_us,   -- 99th percentile
  printf('%.2f', p999_ns / 1e3) AS p999_us, -- 99.9th percentile
  printf('%s %.0f%%', largest_label, 100 * largest_share) AS largest, -- its largest stage
  lost                                   -- records its recording lost
FROM ntp_report_fleet_host;
