-- ntprof's fleet tables in ClickHouse (docs/fleet.md): the rows of
-- `ntprof export` (sql/export.sql, which documents every column), loaded by
-- `ntprof export --clickhouse URL`. For ClickHouse 18.16 and later. Run it
-- on every server of the cluster, then views.sql on those that answer
-- queries:
--
--   clickhouse-client --multiquery < schema.sql
--
-- Each table is two:
-- - ntp_fleet_NAME_local, on every server, its shard's rows: a
--   ReplacingMergeTree partitioned by day (UTC, of the row's start_ns) and
--   sorted by machine and time, then by what makes the row unique within
--   its recording, so that a row loaded twice (a load cut short, then done
--   again) is kept once: at the next merge of its parts, and at once by
--   queries with FINAL, as the views ask;
-- - ntp_fleet_NAME, a Distributed table over the cluster `ntprof` (the
--   servers' remote_servers; one server is a cluster of one shard): it
--   reads every shard, and writes each row to the shard of its machine
--   (cityHash64 of the host name), so a machine's rows, and any copy of
--   them, are on one shard.
-- ClickHouse only stores and aggregates these rows: every component and
-- stage of a command is computed by ntprof's SQL (ntp_command) before the
-- load.
--
-- Times are ns (Int64): start_ns on the recording machine's wall clock,
-- ns since the epoch (ClickHouse 18.16 has no DateTime64).

-- One row per host command (sql/export.sql, ntp_export_command).
CREATE TABLE IF NOT EXISTS ntp_fleet_command_local (
  version UInt32,                   -- the export's layout version
  run String,                       -- the run's label
  host String,                      -- the host machine
  host_recording String,            -- the host's recording id
  target Nullable(String),          -- the target machine; NULL: not matched
  target_recording Nullable(String), -- the target's recording id
  host_drv String,                  -- kernel or spdk
  target_drv Nullable(String),      -- kernel or spdk; NULL: not matched
  transport String,                 -- tcp or rdma
  group_name String,                -- 'read 4KiB nvme1n1'
  device String,                    -- the host's device
  queue String,                     -- io, admin or fabrics
  op String,                        -- read, write, ...
  bytes Nullable(Int64),            -- size of each command; NULL: no data
  qid UInt16,                       -- queue id
  cid UInt16,                       -- command id
  slba UInt64,                      -- starting LBA
  ht Int64,                         -- host cmd.t: ns since the host recording's start
  tt Nullable(Int64),               -- target cmd.t; NULL: not matched
  start_ns Int64,                   -- its first point, host wall clock
  mode String,                      -- joined or host
  -- the components (docs/stages.md), ns
  h_blk_sub Int64,
  h_drv_sub Int64,
  h_r2t Nullable(Int64),            -- NULL: no R2T
  h_wait Int64,
  wire Nullable(Int64),
  t_rx_path Nullable(Int64),
  t_drv_sub Nullable(Int64),
  t_data_wait Nullable(Int64),      -- NULL: no R2T
  t_storage Nullable(Int64),
  t_drv_cpl Nullable(Int64),
  h_rx_path Int64,
  h_drv_cpl Int64,
  h_blk_cpl Int64,
  h_handoff Int64,
  e2e Int64,                        -- end to end on the host
  t_e2e Nullable(Int64),            -- residence on the target
  -- the stages, ns; NULL outside the command's mode
  host_block Int64,
  host_driver Int64,
  host_rx Nullable(Int64),
  net_target Nullable(Int64),
  network Nullable(Int64),
  target_driver Nullable(Int64),
  storage Nullable(Int64)
) ENGINE = ReplacingMergeTree()
PARTITION BY toDate(toDateTime(intDiv(start_ns, 1000000000), 'UTC'))
ORDER BY (host, start_ns, host_recording, ht);

CREATE TABLE IF NOT EXISTS ntp_fleet_command AS ntp_fleet_command_local
ENGINE = Distributed(ntprof, currentDatabase(), ntp_fleet_command_local, cityHash64(host));

-- One row per recording (ntp_export_recording): loaded last of its rows,
-- it says the recording is in (ntprof export --clickhouse looks for it).
CREATE TABLE IF NOT EXISTS ntp_fleet_recording_local (
  version UInt32,                   -- the export's layout version
  run String,                       -- the run's label
  recording String,                 -- the recording id
  hostname String,                  -- machine
  role String,                      -- host or target
  driver String,                    -- kernel or spdk
  transport String,                 -- tcp or rdma
  kernel String,                    -- kernel release
  sample_rate UInt32,               -- one command in sample_rate sampled
  start_ns Int64,                   -- its start, wall clock
  mono_start_ns Int64,              -- CLOCK_MONOTONIC at its start
  duration_ns Int64,                -- its length
  records Int64,                    -- sampled commands stored
  lost Int64,                       -- records lost
  gaps Int64,                       -- points missing from stored records
  targets String                    -- a host's: its run's target recordings
) ENGINE = ReplacingMergeTree()
PARTITION BY toDate(toDateTime(intDiv(start_ns, 1000000000), 'UTC'))
ORDER BY (hostname, start_ns, recording);

CREATE TABLE IF NOT EXISTS ntp_fleet_recording AS ntp_fleet_recording_local
ENGINE = Distributed(ntprof, currentDatabase(), ntp_fleet_recording_local,
  cityHash64(hostname));

-- One row per recording, interval and group (ntp_export_interval).
CREATE TABLE IF NOT EXISTS ntp_fleet_interval_local (
  version UInt32,                   -- the export's layout version
  run String,                       -- the run's label
  recording String,                 -- the recording id
  hostname String,                  -- machine
  role String,                      -- host or target
  `interval` Int64,                 -- interval.id (quoted: a keyword)
  grp Int64,                        -- grp.id in the recording
  start_ns Int64,                   -- its start, wall clock
  stop_ns Int64,                    -- its end
  group_name String,                -- 'read 4KiB nvme1n1'
  device String,                    -- device.name
  queue String,                     -- io, admin or fabrics
  op String,                        -- read, write, ...
  bytes Nullable(Int64),            -- size of each command; NULL: no data
  sampled Int64,                    -- sampled commands done in it
  total Nullable(Int64)             -- all commands; NULL: not counted
) ENGINE = ReplacingMergeTree()
PARTITION BY toDate(toDateTime(intDiv(start_ns, 1000000000), 'UTC'))
ORDER BY (hostname, start_ns, recording, `interval`, grp);

CREATE TABLE IF NOT EXISTS ntp_fleet_interval AS ntp_fleet_interval_local
ENGINE = Distributed(ntprof, currentDatabase(), ntp_fleet_interval_local, cityHash64(hostname));

-- One row per recording and cause of loss (ntp_export_lost).
CREATE TABLE IF NOT EXISTS ntp_fleet_lost_local (
  version UInt32,                   -- the export's layout version
  run String,                       -- the run's label
  recording String,                 -- the recording id
  hostname String,                  -- machine
  role String,                      -- host or target
  start_ns Int64,                   -- the recording's start, wall clock
  kind String,                      -- record (lost whole) or point (missing)
  point Nullable(String),           -- the missing point; NULL for records
  cause String,                     -- cause.name
  description String,               -- what happened
  n Int64                           -- records lost, or records lacking the point
) ENGINE = ReplacingMergeTree()
PARTITION BY toDate(toDateTime(intDiv(start_ns, 1000000000), 'UTC'))
ORDER BY (hostname, start_ns, recording, kind, ifNull(point, ''), cause);

CREATE TABLE IF NOT EXISTS ntp_fleet_lost AS ntp_fleet_lost_local
ENGINE = Distributed(ntprof, currentDatabase(), ntp_fleet_lost_local, cityHash64(hostname));
