-- ntprof prelude: one arm per attached database, joined with UNION ALL into
-- the TEMP views that join.sql and report.sql read. ntp_session_open builds
-- them for the databases it opened (`ntprof-shell --sql DB...` prints the
-- result). Each arm is the text after a marker line
--
--   -- @NAME OVER
--
-- up to the next marker, with @db@ replaced by each database's schema
-- name. OVER says which databases give view NAME an arm: `all`, `host`,
-- `target`, or `pair` (one arm per host and target database, @h@ and @t@
-- replaced by their schema names); @records@, by the commands the
-- database stores as read when it was opened. Where no database
-- qualifies, the view is the arm NAME_none (a marker without OVER): the
-- same columns, no rows.
--
-- ntp_db:         one row per attached database (columns below)
-- ntp_lost:       every database's lost records, per cause
-- ntp_grp_lost:   every database's lost records, estimated per group
-- ntp_gap:        every database's missing points, per point and cause
-- _ntp_lost_interval: every database's lost records, per interval and cause
-- ntp_interval:   every database's intervals, per group, with their commands
-- _ntp_grp_all:   every database's groups with their identity columns
-- ntp_host_grp:   every host group with its rate
-- ntp_host_cmd:   every host's commands, identity and components
-- ntp_target_cmd: every target's commands, identity and components
-- _ntp_component_stats: every host's statistics per group and component
-- _ntp_series_grp: every database's groups with their names, and the
--                 recording's first command and end (the time series'
--                 origin and last bucket, stats.sql)
-- ntp_joined:     host commands paired with their target records
-- _ntp_unmatched_pair: the host commands of groups the target could pair
--                 that found no pair, with how many target records of
--                 their identity lay in the window
-- _ntp_pair_offset: ntp_offset's row of each host and target pair (the
--                 join check's: a session without a pair compiles none of
--                 the offset's SQL)

-- @ntp_db all
SELECT
  '@db@' AS db,              -- schema name the database is attached as
  m.role AS role,            -- host or target
  m.driver AS driver,        -- kernel or spdk
  m.transport AS transport,  -- tcp or rdma
  m.hostname AS hostname,    -- machine
  m.kernel AS kernel,        -- kernel release
  m.sample_rate AS sample_rate, -- -s N
  m.wall_start AS wall_start,   -- CLOCK_REALTIME ns at start
  m.mono_start AS mono_start,   -- CLOCK_MONOTONIC ns at start
  r.duration_ns AS duration_ns, -- recording length
  -- sampled commands stored: its ntp_recording's count, as read when the
  -- session opened the file (a count reads every page of cmd: once, not
  -- at every query that names ntp_db)
  @records@ AS records,
  r.lost AS lost                -- records lost
FROM "@db@".meta AS m, "@db@".ntp_recording AS r
-- @ntp_lost all
SELECT
  '@db@' AS db,              -- database
  l.cause AS cause,          -- cause.name
  l.description AS description, -- what happened
  l.n AS n                   -- records lost
FROM "@db@".ntp_lost_by_cause AS l
-- @ntp_grp_lost all
SELECT * FROM (
  -- A lost record's group is unknown (it never arrived): each interval's
  -- losses are shared among the groups in proportion to their commands in
  -- that interval (counted, else sampled x -s: interval_grp); losses in an
  -- interval without any are shared in proportion to the whole recording's.
  WITH w AS (
    SELECT ig.interval, ig.grp, ig.sampled,
      coalesce(ig.total, ig.sampled * m.sample_rate) AS w
    FROM "@db@".interval_grp AS ig, "@db@".meta AS m
  ), iw AS (
    SELECT interval, sum(w) AS w FROM w GROUP BY interval
  ), l AS (
    SELECT interval, sum(n) AS n FROM "@db@".lost GROUP BY interval
  ), share AS (
    -- per group: its part of the intervals' losses
    SELECT x.grp, sum(l.n * 1.0 * x.w / i.w) AS n
    FROM l
    JOIN iw AS i ON i.interval = l.interval AND i.w > 0
    JOIN w AS x ON x.interval = l.interval
    GROUP BY x.grp
  ), rest AS (
    -- the losses of intervals without commands, and every group's weight
    SELECT
      (SELECT coalesce(sum(l.n), 0) FROM l LEFT JOIN iw AS i ON i.interval = l.interval
       WHERE coalesce(i.w, 0) = 0) AS n,
      (SELECT sum(w) FROM w) AS w
  )
  SELECT
    '@db@' AS db,              -- database
    g.id AS grp,               -- grp.id
    -- sampled records stored, as the intervals counted them
    (SELECT coalesce(sum(x.sampled), 0) FROM w AS x WHERE x.grp = g.id) AS stored,
    -- sampled records lost, estimated (a real number)
    coalesce(s.n, 0) + coalesce(r.n * 1.0 * (SELECT sum(x.w) FROM w AS x WHERE x.grp = g.id)
                                / nullif(r.w, 0), 0) AS lost
  FROM "@db@".grp AS g
  CROSS JOIN rest AS r
  LEFT JOIN share AS s ON s.grp = g.id
)
-- @_ntp_lost_interval all
SELECT
  '@db@' AS db,              -- database
  i.start AS start,          -- the interval's start, ns since mono_start
  i.stop AS stop,            -- its end
  c.name AS cause,           -- cause.name
  l.n AS n                   -- records lost in the interval for that cause
FROM "@db@".lost AS l
JOIN "@db@".interval AS i ON i.id = l.interval
JOIN "@db@".cause AS c ON c.code = l.cause
-- @ntp_gap all
SELECT
  '@db@' AS db,              -- database
  g.point AS point,          -- the missing point
  p.ord AS ord,              -- its path order
  g.cause AS cause,          -- cause.name
  g.description AS description, -- why it is missing
  g.n AS n                   -- commands that lack it for this cause
FROM "@db@".ntp_gap_by_cause AS g
JOIN "@db@".point AS p ON p.name = g.point
-- @ntp_interval all
SELECT
  '@db@' AS db,              -- database
  i.id AS interval,          -- interval.id
  i.start AS start,          -- ns since mono_start
  i.stop AS stop,            -- ns since mono_start
  ig.grp AS grp,             -- grp.id
  g.name AS name,            -- 'read 4KiB nvme1n1'
  g.queue AS queue,          -- io, admin or fabrics
  g.op AS op,                -- read, write, ...
  g.bytes AS bytes,          -- size of each command; NULL: no data
  g.device AS device,        -- device.name
  ig.sampled AS sampled,     -- sampled commands done in the interval
  ig.total AS total          -- all commands, NULL: not counted
FROM "@db@".interval AS i
JOIN "@db@".interval_grp AS ig ON ig.interval = i.id
JOIN "@db@".ntp_grp_info AS g ON g.grp = ig.grp
-- @_ntp_grp_all all
SELECT '@db@' AS db, g.grp, g.nqn, g.cntlid, g.nsid, g.admin, g.opcode, g.fctype, g.nlb
FROM "@db@".ntp_grp_info AS g
-- @ntp_host_grp host
SELECT
  '@db@' AS db,              -- host database
  g.grp AS grp,              -- grp.id there
  g.name AS name,            -- 'read 4KiB nvme1n1'
  g.queue AS queue,          -- io, admin or fabrics
  g.op AS op,                -- read, write, ...
  g.bytes AS bytes,          -- size of each command
  r.sampled AS sampled,      -- sampled commands
  r.total AS total,          -- all commands, NULL: not counted
  r.exact AS exact,          -- 1: counted, 0: estimated
  r.rate AS rate,            -- commands per second
  g.device AS device         -- device.name: nvme1n1
FROM "@db@".ntp_grp_info AS g JOIN "@db@".ntp_grp_rate AS r ON r.grp = g.grp
-- @ntp_host_cmd host
SELECT
  '@db@' AS db, s.t AS t, s.grp AS grp,
  d.nqn AS nqn, d.cntlid AS cntlid, d.nsid AS nsid, g.opcode AS opcode, g.nlb AS nlb,
  s.qid AS qid, s.cid AS cid, s.slba AS slba,
  -- middle of the host's wait, on an approximate wall clock (ns)
  s.sent_ns + s.wait_ns / 2 + (m.wall_start - m.mono_start) AS mid,
  s.wait_ns AS wait_ns,
--@ SELECT wrap('s.' || name || ' AS ' || name, 3, '  ', ', ') FROM gen_list WHERE list = 'host'
FROM "@db@".ntp_cmd_span AS s
-- unary +: the commands scanned, each one's group looked up (never an automatic
-- index of the commands by group). The group's and its device's rows, what
-- ntp_grp_info joins too, not that view: the columns here are theirs, and
-- the view's look-up of the operation's name cost a third of a scan.
JOIN "@db@".grp AS g ON g.id = +s.grp
JOIN "@db@".device AS d ON d.id = g.device, "@db@".meta AS m
-- @ntp_target_cmd target
SELECT
  '@db@' AS db, s.t AS t, s.grp AS grp,
  d.nqn AS nqn, d.cntlid AS cntlid, d.nsid AS nsid, g.opcode AS opcode, g.nlb AS nlb,
  s.qid AS qid, s.cid AS cid, s.slba AS slba,
  -- middle of the target's residence, on an approximate wall clock (ns)
  s.rx_ns + s.t_e2e / 2 + (m.wall_start - m.mono_start) AS mid,
--@ SELECT wrap('s.' || name || ' AS ' || name, 3, '  ', ', ') FROM gen_list WHERE list = 'target'
FROM "@db@".ntp_cmd_span AS s
-- unary +: the commands scanned, each one's group looked up (never an automatic
-- index of the commands by group). The group's and its device's rows, what
-- ntp_grp_info joins too, not that view: the columns here are theirs, and
-- the view's look-up of the operation's name cost a third of a scan.
JOIN "@db@".grp AS g ON g.id = +s.grp
JOIN "@db@".device AS d ON d.id = g.device, "@db@".meta AS m
-- @ntp_target_cmd_none
SELECT
  NULL AS db, NULL AS t, NULL AS grp, NULL AS nqn, NULL AS cntlid, NULL AS nsid,
  NULL AS opcode, NULL AS nlb, NULL AS qid, NULL AS cid, NULL AS slba, NULL AS mid,
--@ SELECT wrap('NULL AS ' || name, 4, '  ', ', ') FROM gen_list WHERE list = 'target'
WHERE 0
-- @_ntp_component_stats host
SELECT
  '@db@' AS db,              -- host database
  s.grp AS grp,              -- grp.id
  s.component AS component,  -- component.name
  s.n AS n,                  -- commands that have it
  s.sum_ns AS sum_ns,        -- total ns
  s.mean_ns AS mean_ns,      -- mean ns
  s.p50_ns AS p50_ns,        -- median
  s.p99_ns AS p99_ns,        -- 99th percentile
  s.p999_ns AS p999_ns       -- 99.9th percentile
FROM "@db@".ntp_component_stats AS s
-- @_ntp_component_stats_native
-- The same rows as the arm above, in the same order, by the native
-- aggregate ntp_dist (lib/native.c): one scan of the host's commands for
-- all its groups (ntp_dist_by, each group given room for its commands as
-- ntp_host_grp counts them), each component's exact percentiles selected
-- without a sort, where the recording's view numbers every value of every
-- component in a window (ntprof merge copies these rows: 28 s of sorting
-- at 1 M commands). Used where native functions are (not in plain
-- sqlite3); tests compare its rows with the arm above.
SELECT * FROM (
  WITH r AS MATERIALIZED (
    -- per group: ntp_dist's [n, sum, p50, p99, p999, p90] of each
    -- component, in k's order
    SELECT ntp_dist_by(
      (SELECT group_concat(grp || ' ' || hex(db) || ' ' || grp || ' ' || sampled, ';')
       FROM ntp_host_grp WHERE db = '@db@'),
      '@db@', s.grp,
--@ SELECT wrap('s.' || name, -92, '      ', ', ') || ') AS x' FROM gen_list WHERE list = 'host'
    FROM "@db@".ntp_cmd_span AS s
  ), d AS MATERIALIZED (
    SELECT json_extract(e.value, '$[0]') AS grp, json_extract(e.value, '$[1]') AS a
    FROM r CROSS JOIN json_each(r.x) AS e
  ), k(idx, component) AS (
    VALUES
--@ SELECT wrap('(' || (i - 1) || ', ''' || name || ''')', -92, '      ', ', ') FROM gen_list WHERE list = 'host'
  ), v AS (
    SELECT d.grp AS grp, k.component AS component,
      json_extract(d.a, '$[' || k.idx || ']') AS x
    FROM d CROSS JOIN k
  )
  SELECT
    '@db@' AS db, grp, component,
    json_extract(x, '$[0]') AS n,
    json_extract(x, '$[1]') AS sum_ns,
    -- as avg(): the sum as a double, over n
    json_extract(x, '$[1]') * 1.0 / json_extract(x, '$[0]') AS mean_ns,
    json_extract(x, '$[2]') AS p50_ns,
    json_extract(x, '$[3]') AS p99_ns,
    json_extract(x, '$[4]') AS p999_ns
  FROM v
  WHERE json_extract(x, '$[0]') > 0
  -- the order of the recording's view: its GROUP BY grp, component
  ORDER BY grp, component
)
-- @_ntp_series_grp all
SELECT
  '@db@' AS db,              -- database
  g.grp AS grp,              -- grp.id
  g.name AS name,            -- 'read 4KiB nvme1n1'
  -- the recording's first command, cmd.t (the rowid: no scan): time 0 of
  -- its time series
  (SELECT min(c.t) FROM "@db@".cmd AS c) AS first_t,
  -- the recording's end, ns since mono_start (a scalar subquery: a join
  -- with the view would compute all its columns, a count of cmd too)
  (SELECT r.duration_ns FROM "@db@".ntp_recording AS r) AS end_ns
FROM "@db@".ntp_grp_info AS g
-- @ntp_joined pair
SELECT * FROM (
  WITH gp AS MATERIALIZED (
    SELECT hgrp, tgrp, mono_off, mono_shift, drift_ppb, host_mono, window_ns
    FROM _ntp_grp_pair
    WHERE hdb = '@h@' AND tdb = '@t@'
  ), hx AS (
    -- the host's commands with the clock mapping at their send time
    SELECT h.*, gp.tgrp, gp.window_ns AS w,
      gp.mono_off - gp.drift_ppb * (h.sent_ns - gp.host_mono) / 1000000000 AS off,
      gp.mono_shift - gp.drift_ppb * (h.sent_ns - gp.host_mono) / 1000000000 AS shift
    FROM "@h@".ntp_cmd_span AS h
    CROSS JOIN gp ON gp.hgrp = h.grp
  ), hm AS (
    -- each host command's target record (join.sql, step 3): the one of its
    -- identity whose middle lies in its wait, else the only one of its
    -- identity within the window when the host has no other that close.
    -- The target's rowid is its first point: range seeks, no sort; unary +
    -- keeps the planner on the rowid range (no automatic index).
    SELECT h.*, coalesce(
      (SELECT x.t FROM "@t@".ntp_cmd_span AS x
       WHERE x.t BETWEEN h.sent_ns + h.shift - 20000
                     AND h.sent_ns + h.wait_ns + h.shift + 20000
         AND +x.grp = h.tgrp AND +x.qid = h.qid AND +x.cid = h.cid AND +x.slba = h.slba
         AND abs((x.rx_ns + x.t_e2e / 2 - h.off) - (h.sent_ns + h.wait_ns / 2))
             <= h.wait_ns / 2 + 1000
       LIMIT 1),
      (SELECT CASE WHEN count(*) = 1 THEN max(x.t) END FROM "@t@".ntp_cmd_span AS x
       WHERE x.t BETWEEN h.sent_ns + h.shift - h.w AND h.sent_ns + h.wait_ns + h.shift + h.w
         AND +x.grp = h.tgrp AND +x.qid = h.qid AND +x.cid = h.cid AND +x.slba = h.slba
         AND (SELECT count(*) FROM "@h@".cmd AS o
              WHERE o.t BETWEEN h.t - 2 * h.w - h.wait_ns AND h.t + 2 * h.w + h.wait_ns
                AND +o.grp = h.grp AND +o.qid = h.qid AND +o.cid = h.cid
                AND +o.slba = h.slba) = 1)) AS tt
    FROM hx AS h
  )
  SELECT
    '@h@' AS hdb, h.t AS ht, '@t@' AS tdb, x.t AS tt, h.grp AS grp,
    -- target mid - host mid, on the host's clock
    (x.rx_ns + x.t_e2e / 2 - h.off) - (h.sent_ns + h.wait_ns / 2) AS skew_ns,
    h.h_blk_sub AS h_blk_sub, h.h_drv_sub AS h_drv_sub, h.h_r2t AS h_r2t,
    h.h_wait - (x.t_e2e - ifnull(x.t_data_wait, 0)) AS wire,
    x.t_rx_path AS t_rx_path, x.t_drv_sub AS t_drv_sub, x.t_storage AS t_storage,
    x.t_drv_cpl AS t_drv_cpl,
    h.h_rx_path AS h_rx_path, h.h_drv_cpl AS h_drv_cpl, h.h_blk_cpl AS h_blk_cpl,
    h.h_handoff AS h_handoff, h.e2e AS e2e
  FROM hm AS h
  CROSS JOIN "@t@".ntp_cmd_span AS x ON x.t = h.tt
)
-- @ntp_joined_native
-- The same rows as the pair arm above, in the same order, by the native
-- function ntp_pair (lib/pair.c): one scan of each recording, merged,
-- instead of a seek into the target's view per host command. ntp_pair
-- computes the windows of rules a and b as hx and hm do above, from the
-- values these queries read. Used where native functions are (not in plain
-- sqlite3); tests compare its rows with the pair arm's. ntp_pair's
-- columns have the names of the host's and the target's ntp_cmd_span
-- columns it computes, and wire is computed there too (the join's tap,
-- native.sql, takes the same values by these names).
SELECT
  '@h@' AS hdb, p.ht AS ht, '@t@' AS tdb, p.tt AS tt, p.grp AS grp,
  (p.xmid - p.off) - p.hmid AS skew_ns,
  -- h_r2t is cmd.h_data_sent there: the same INTEGER affinity
  p.h_blk_sub AS h_blk_sub, p.h_drv_sub AS h_drv_sub, CAST(p.h_r2t AS INTEGER) AS h_r2t,
  p.wire AS wire,
  p.t_rx_path AS t_rx_path, p.t_drv_sub AS t_drv_sub, p.t_storage AS t_storage,
  p.t_drv_cpl AS t_drv_cpl,
  p.h_rx_path AS h_rx_path, p.h_drv_cpl AS h_drv_cpl, p.h_blk_cpl AS h_blk_cpl,
  p.h_handoff AS h_handoff, p.e2e AS e2e
FROM ntp_pair(
  -- the host's and target's group pairs, with the clocks' mapping
  'SELECT hgrp, tgrp, mono_off, mono_shift, drift_ppb, host_mono, window_ns
   FROM _ntp_grp_pair WHERE hdb = ''@h@'' AND tdb = ''@t@''',
  -- the host's commands as stored from t = ?1 on (ntp_pair computes their
  -- ntp_cmd_span values): t, grp, qid, cid, slba, mono_start, then the
  -- points
  'SELECT c.t, c.grp, c.qid, c.cid, c.slba, m.mono_start,
--@ SELECT wrap('c.' || name, -92, '     ', ', ') FROM (SELECT name FROM point WHERE role = 'host' ORDER BY ord)
   FROM "@h@".cmd AS c, "@h@".meta AS m WHERE c.t >= ?1',
  -- the target's records from t = ?1 on, the same way
  'SELECT c.t, c.grp, c.qid, c.cid, c.slba, m.mono_start,
--@ SELECT wrap('c.' || name, -92, '     ', ', ') FROM (SELECT name FROM point WHERE role = 'target' ORDER BY ord)
   FROM "@t@".cmd AS c, "@t@".meta AS m WHERE c.t >= ?1',
  -- rule b: the host's commands of one identity in a window
  'SELECT count(*) FROM "@h@".cmd AS o
   WHERE o.t BETWEEN ?1 AND ?2 AND +o.grp = ?3 AND +o.qid = ?4 AND +o.cid = ?5
     AND +o.slba = ?6',
  -- the two queries above are every row of cmd from ?1 on, in t order:
  -- ntp_pair may read them from the files' pages
  1,
  -- the host's and target's names: the rows' for the join's tap
  -- (native.sql), when the preparation arms it
  '@h@', '@t@') AS p
-- @_ntp_pair_offset pair
SELECT hdb, tdb, pairs, window_ns, offset_ns, drift FROM ntp_offset
WHERE hdb = '@h@' AND tdb = '@t@'
-- @_ntp_pair_offset_none
SELECT NULL AS hdb, NULL AS tdb, NULL AS pairs, NULL AS window_ns, NULL AS offset_ns,
  NULL AS drift
WHERE 0
-- @_ntp_unmatched_pair pair
SELECT * FROM (
  WITH gp AS MATERIALIZED (
    SELECT hgrp, tgrp, mono_shift, drift_ppb, host_mono, window_ns FROM _ntp_grp_pair
    WHERE hdb = '@h@' AND tdb = '@t@'
  ), m AS MATERIALIZED (
    SELECT ht FROM ntp_joined WHERE hdb = '@h@'
  )
  SELECT
    '@h@' AS hdb, h.t AS ht, '@t@' AS tdb, h.grp AS grp, h.waited AS waited,
    -- target records of its identity within its wait widened by the window
    (SELECT count(*) FROM "@t@".cmd AS x
     WHERE x.t BETWEEN h.sent_ns + gp.mono_shift
                       - gp.drift_ppb * (h.sent_ns - gp.host_mono) / 1000000000
                       - gp.window_ns
                   AND h.sent_ns + h.wait_ns + gp.mono_shift
                       - gp.drift_ppb * (h.sent_ns - gp.host_mono) / 1000000000
                       + gp.window_ns
       AND +x.grp = gp.tgrp AND +x.qid = h.qid AND +x.cid = h.cid AND +x.slba = h.slba)
      AS candidates
  FROM "@h@".ntp_cmd_span AS h
  CROSS JOIN gp ON gp.hgrp = h.grp
  WHERE h.t NOT IN m
)
-- @_ntp_unmatched_pair_none
SELECT NULL AS hdb, NULL AS ht, NULL AS tdb, NULL AS grp, NULL AS waited,
  NULL AS candidates
WHERE 0
-- @ntp_joined_none
SELECT
  NULL AS hdb, NULL AS ht, NULL AS tdb, NULL AS tt, NULL AS grp, NULL AS skew_ns,
--@ SELECT wrap('NULL AS ' || name, 4, '  ', ', ') FROM gen_list WHERE list = 'joined'
WHERE 0
-- @end
