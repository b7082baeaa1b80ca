-- The fleet's questions over ntprof's tables (schema.sql), as ClickHouse
-- views (docs/fleet.md): stage means and shares per host, per target and
-- per operation and size, with exact percentiles; the worst hosts; stage
-- shares over time; losses per host. Create them on the servers that
-- answer queries (they read the Distributed tables, so every shard):
--
--   clickhouse-client --multiquery < views.sql
--
-- They aggregate the per-command values ntprof computed (sql/export.sql);
-- nothing here computes a component or a stage.
--
-- Percentiles are ntprof's (docs/sql.md, Percentiles): exact nearest rank,
-- the value at rank (n q' + 99999) / 100000 of the n values sorted, q' =
-- 50000, 99000, 99900 for p50, p99, p99.9, in integers. ClickHouse's
-- quantileExact(q) takes the value at rank floor(q n) + 1 (q n in floating
-- point): the same where q n is not an integer, the next value up where it
-- is (p50 of 1000 values: rank 501, where ntprof's is 500). So the views
-- sort each group's values (arraySort(groupArray(ns))) and take ntprof's
-- rank: exact, and as memory-hungry as quantileExact, which keeps every
-- value too. Means are avg() over the same values: ntprof's sum / n.
--
-- The tables are ReplacingMergeTree: the views read them with FINAL, so a
-- row loaded twice counts once before its parts are merged.

-- Every command's end to end and stages, one row per command and stage it
-- has ('e2e' for end to end; a stage outside the command's mode is NULL
-- there and has no row), the command's end to end beside each.
CREATE VIEW IF NOT EXISTS ntp_fleet_value AS
SELECT
  run, host, host_recording, target, target_recording, host_drv, target_drv, transport,
  group_name, op, bytes, mode, start_ns,
  e2e,                              -- the command's end to end, ns
  stage,                            -- e2e, or a stage of docs/stages.md
  ord,                              -- its order: 0 for e2e, else ntprof's stage.ord
  assumeNotNull(v) AS ns            -- its time, ns
FROM ntp_fleet_command FINAL
ARRAY JOIN
  ['e2e', 'host_block', 'host_driver', 'host_rx', 'net_target', 'network', 'target_driver',
   'storage'] AS stage,
  [0, 1, 2, 3, 4, 5, 7, 9] AS ord,
  [e2e, host_block, host_driver, host_rx, net_target, network, target_driver, storage] AS v
WHERE isNotNull(v);

-- Per run, host, operation and size and mode (joined: with the target's
-- side; host: without), per stage and end to end: commands, mean, share of
-- the mean end to end, exact p50, p99, p99.9. A host's joined rows are
-- ntprof's report of its group (ntp_report_stage_stats).
CREATE VIEW IF NOT EXISTS ntp_fleet_host_stage AS
SELECT
  run, host, op, bytes, mode, stage, ord,
  n,                                -- commands
  mean_ns,                          -- mean, ns
  mean_ns / e2e_mean_ns AS share,   -- of the same commands' mean end to end
  v[intDiv(n * 50000 + 99999, 100000)] AS p50_ns,
  v[intDiv(n * 99000 + 99999, 100000)] AS p99_ns,
  v[intDiv(n * 99900 + 99999, 100000)] AS p999_ns
FROM (
  SELECT run, host, op, bytes, mode, stage, ord, count() AS n, avg(ns) AS mean_ns,
    avg(e2e) AS e2e_mean_ns, arraySort(groupArray(ns)) AS v
  FROM ntp_fleet_value
  GROUP BY run, host, op, bytes, mode, stage, ord
)
ORDER BY run, host, op, bytes, mode, ord;

-- The same per run, target machine, operation and size: the commands
-- joined with that target's records, whichever host sent them.
CREATE VIEW IF NOT EXISTS ntp_fleet_target_stage AS
SELECT
  run, target, op, bytes, stage, ord,
  n,                                -- commands
  mean_ns,                          -- mean, ns
  mean_ns / e2e_mean_ns AS share,   -- of the same commands' mean end to end
  v[intDiv(n * 50000 + 99999, 100000)] AS p50_ns,
  v[intDiv(n * 99000 + 99999, 100000)] AS p99_ns,
  v[intDiv(n * 99900 + 99999, 100000)] AS p999_ns
FROM (
  SELECT run, assumeNotNull(target) AS target, op, bytes, stage, ord, count() AS n,
    avg(ns) AS mean_ns, avg(e2e) AS e2e_mean_ns, arraySort(groupArray(ns)) AS v
  FROM ntp_fleet_value
  WHERE mode = 'joined'
  GROUP BY run, target, op, bytes, stage, ord
)
ORDER BY run, target, op, bytes, ord;

-- The same per run, operation and size and mode: the whole fleet's
-- commands of each kind together (ntprof compare's ntp_compare_stage over
-- a run's joined groups).
CREATE VIEW IF NOT EXISTS ntp_fleet_op_stage AS
SELECT
  run, op, bytes, mode, stage, ord,
  n,                                -- commands
  mean_ns,                          -- mean, ns
  mean_ns / e2e_mean_ns AS share,   -- of the same commands' mean end to end
  v[intDiv(n * 50000 + 99999, 100000)] AS p50_ns,
  v[intDiv(n * 99000 + 99999, 100000)] AS p99_ns,
  v[intDiv(n * 99900 + 99999, 100000)] AS p999_ns
FROM (
  SELECT run, op, bytes, mode, stage, ord, count() AS n, avg(ns) AS mean_ns,
    avg(e2e) AS e2e_mean_ns, arraySort(groupArray(ns)) AS v
  FROM ntp_fleet_value
  GROUP BY run, op, bytes, mode, stage, ord
)
ORDER BY run, op, bytes, mode, ord;

-- The hosts by their p99 end to end, worst first, per run, operation and
-- size and mode (the first few: ... LIMIT 5 BY run, op, bytes, mode).
CREATE VIEW IF NOT EXISTS ntp_fleet_worst_host AS
SELECT run, op, bytes, mode, host, n, mean_ns, p50_ns, p99_ns, p999_ns
FROM ntp_fleet_host_stage
WHERE stage = 'e2e'
ORDER BY run, op, bytes, mode, p99_ns DESC, host;

-- Stage shares over time: per run, minute (UTC, of the commands' start on
-- their hosts' wall clocks), operation and size and mode, each stage's
-- mean and its share of the mean end to end of the minute's commands.
CREATE VIEW IF NOT EXISTS ntp_fleet_stage_minute AS
SELECT
  run,
  toStartOfMinute(toDateTime(intDiv(start_ns, 1000000000), 'UTC')) AS minute,
  op, bytes, mode, stage, ord,
  count() AS n,                     -- commands
  avg(ns) AS mean_ns,               -- mean, ns
  avg(ns) / avg(e2e) AS share       -- of the same commands' mean end to end
FROM ntp_fleet_value
GROUP BY run, minute, op, bytes, mode, stage, ord
ORDER BY run, minute, op, bytes, mode, ord;

-- Losses per run and machine: its recordings' sampled records stored,
-- records lost (their share of the sampled ones) and points missing.
CREATE VIEW IF NOT EXISTS ntp_fleet_lost_by_host AS
SELECT
  run, hostname, role,
  count() AS recordings,            -- its recordings
  sum(records) AS records,          -- sampled records stored
  sum(lost) AS lost,                -- sampled records lost
  -- of those sampled (records and lost are the sums above); NULL: none
  if(records + lost > 0, lost / (records + lost), NULL) AS lost_share,
  sum(gaps) AS gaps                 -- points missing from stored records
FROM ntp_fleet_recording FINAL
GROUP BY run, hostname, role
ORDER BY run, lost DESC, hostname;

-- Losses per run, machine and cause: records lost (kind record) and points
-- missing (kind point), as ntprof report's lost: and gaps: lines.
CREATE VIEW IF NOT EXISTS ntp_fleet_lost_by_cause AS
SELECT run, hostname, role, kind, point, cause, any(description) AS description,
  sum(n) AS n                       -- records, or records lacking the point
FROM ntp_fleet_lost FINAL
GROUP BY run, hostname, role, kind, point, cause
ORDER BY run, hostname, kind DESC, point, cause;
