-- ntprof export: the rows an analytics engine loads (`ntprof export`,
-- docs/fleet.md), one view per table, each row naming its run and its
-- recordings so that runs and machines stay apart once loaded together.
-- TEMP views over the prelude, report.sql and stats.sql: the per-command
-- values are ntp_command's, so the stage arithmetic keeps its one home
-- there; these views add identity and wall-clock time only.
--
-- Times are ns. A wall-clock time is the recording's CLOCK_REALTIME at its
-- start (meta.wall_start) plus the CLOCK_MONOTONIC time since its start
-- (cmd.t, interval.start, ...): each machine's own clock, as approximate as
-- its wall clock was when the recording started.
--
-- A recording's id: machine, role, and both clocks at its start
-- ('gen-host0/host/1767225600000000000/1000000000'): stable (the same file,
-- merged or not, gives the same id) and unique (two recordings never start
-- on one machine in the same nanosecond of both clocks; ntprof merge
-- refuses two recordings of the same machine and clocks).
--
-- version: the layout of these rows (docs/fleet.md, Versioning), 1 here;
-- it changes when a column is removed or renamed or changes its type, unit
-- or meaning, not when a column is added.

-- How a session treats these views (join.sql, _ntp_view_plan): none is
-- cached; the commands read ntp_command, which reads the cached views.
INSERT INTO _ntp_view_plan VALUES
  ('_ntp_export_db', NULL, 0, 0),
  ('ntp_export_recording', NULL, 0, 0),
  ('ntp_export_command', NULL, 0, 1),
  ('ntp_export_interval', NULL, 0, 0),
  ('ntp_export_lost', NULL, 0, 0);

-- Every recording with what each exported row says of it: the layout
-- version (its one home), the run's label and the recording id.
CREATE TEMP VIEW _ntp_export_db AS
SELECT
  d.*,                       -- ntp_db's columns
  1 AS version,              -- the export's layout version
  r.run AS run,              -- ntp_run.run: the run's label
  d.hostname || '/' || d.role || '/' || d.wall_start || '/' || d.mono_start
    AS recording             -- the recording id
FROM ntp_db AS d
JOIN ntp_run AS r ON r.db = d.db;

-- One row per recording. A host's `targets` are the target recordings of
-- its run, which its commands were joined with: a host exported again
-- with other targets has other command rows.
CREATE TEMP VIEW ntp_export_recording AS
WITH d AS MATERIALIZED (
  SELECT * FROM _ntp_export_db
), t AS (
  -- each run's targets, in the order of their ids (group_concat takes the
  -- rows in the order of its ordered subquery)
  SELECT run, group_concat(recording, ' ') AS targets
  FROM (SELECT run, recording FROM d WHERE role = 'target' ORDER BY run, recording)
  GROUP BY run
)
SELECT
  d.version AS version,      -- the export's layout version
  d.run AS run,              -- the run's label
  d.recording AS recording,  -- the recording id
  d.hostname AS hostname,    -- machine
  d.role AS role,            -- host or target
  d.driver AS driver,        -- kernel or spdk
  d.transport AS transport,  -- tcp or rdma
  d.kernel AS kernel,        -- kernel release
  d.sample_rate AS sample_rate, -- one command in sample_rate sampled
  d.wall_start AS start_ns,  -- wall clock at its start, ns since the epoch
  d.mono_start AS mono_start_ns, -- CLOCK_MONOTONIC at its start, ns
  d.duration_ns AS duration_ns,  -- its length
  d.records AS records,      -- sampled commands stored
  d.lost AS lost,            -- records lost (ntp_export_lost, kind 'record')
  (SELECT coalesce(sum(g.n), 0) FROM ntp_gap AS g WHERE g.db = d.db)
    AS gaps,                 -- points missing from stored records (kind 'point')
  -- a host's: its run's target recordings, space-separated; '' for a target
  CASE WHEN d.role = 'host' THEN coalesce(t.targets, '') ELSE '' END AS targets
FROM d
LEFT JOIN t ON t.run = d.run
ORDER BY d.recording;

-- One row per host command: ntp_command's values, each command named by
-- its run, its host and target machines and recordings, with its start on
-- the host's wall clock. A command without the target's side (mode 'host')
-- has NULL target columns and the host's stages, as in ntp_command.
CREATE TEMP VIEW ntp_export_command AS
WITH d AS MATERIALIZED (
  SELECT * FROM _ntp_export_db
), g AS MATERIALIZED (
  SELECT db, grp, name, device, queue, op, bytes FROM ntp_host_grp
)
SELECT
  h.version AS version,      -- the export's layout version
  h.run AS run,              -- the run's label
  h.hostname AS host,        -- the host machine
  h.recording AS host_recording, -- the host's recording id
  t.hostname AS target,      -- the target machine; NULL: not matched
  t.recording AS target_recording, -- the target's recording id; NULL: not matched
  h.driver AS host_drv,      -- the host's driver, kernel or spdk: names its stages
  t.driver AS target_drv,    -- the target's, kernel or spdk; NULL: not matched
  h.transport AS transport,  -- tcp or rdma: names the network stage
  g.name AS group_name,      -- its host group: 'read 4KiB nvme1n1'
  g.device AS device,        -- the host's device: nvme1n1
  g.queue AS queue,          -- io, admin or fabrics
  g.op AS op,                -- read, write, ...
  g.bytes AS bytes,          -- size of each command; NULL: no data
  c.qid AS qid,              -- queue id
  c.cid AS cid,              -- command id
  c.slba AS slba,            -- starting LBA
  c.ht AS ht,                -- host cmd.t: ns since the host recording's start
  c.tt AS tt,                -- target cmd.t; NULL: not matched
  h.wall_start + c.ht AS start_ns, -- its first point, host wall clock, ns since the epoch
  c.mode AS mode,            -- joined (the target's side) or host
  -- the components (docs/stages.md), ns, as ntp_command: h_r2t and
  -- t_data_wait NULL where there was no R2T, e2e end to end on the host,
  -- t_e2e the residence on the target
--@ SELECT wrap('c.' || name || ' AS ' || name, -92, '  ', ', ') || ',' FROM gen_list WHERE list = 'all'
  -- the stages, ns, as ntp_command: NULL outside the command's mode
--@ SELECT wrap('c.' || name || ' AS ' || name, -92, '  ', ', ') FROM gen_list WHERE list = 'stage'
FROM ntp_command AS c
JOIN d AS h ON h.db = c.hdb
LEFT JOIN d AS t ON t.db = c.tdb
JOIN g ON g.db = c.hdb AND g.grp = c.grp
ORDER BY h.recording, c.ht;

-- One row per recording, interval (the collector's -i) and group that had
-- commands in it: the commands counted and sampled. An interval in which
-- no group had a command has no row. A target's groups are per host
-- controller: several may share a name.
CREATE TEMP VIEW ntp_export_interval AS
WITH d AS MATERIALIZED (
  SELECT * FROM _ntp_export_db
)
SELECT
  d.version AS version,      -- the export's layout version
  d.run AS run,              -- the run's label
  d.recording AS recording,  -- the recording id
  d.hostname AS hostname,    -- machine
  d.role AS role,            -- host or target
  i.interval AS interval,    -- interval.id, from 1 in time order
  i.grp AS grp,              -- grp.id in the recording (a target has one per host controller)
  d.wall_start + i.start AS start_ns, -- its start, wall clock, ns since the epoch
  d.wall_start + i.stop AS stop_ns,   -- its end
  i.name AS group_name,      -- 'read 4KiB nvme1n1' (a target's: its device)
  i.device AS device,        -- device.name
  i.queue AS queue,          -- io, admin or fabrics
  i.op AS op,                -- read, write, ...
  i.bytes AS bytes,          -- size of each command; NULL: no data
  i.sampled AS sampled,      -- sampled commands done in it
  i.total AS total           -- all commands; NULL: not counted (SPDK)
FROM ntp_interval AS i
JOIN d ON d.db = i.db
ORDER BY d.recording, i.interval, i.grp;

-- One row per recording and cause of loss: records lost whole (kind
-- 'record', ntp_lost) and points missing from stored records (kind
-- 'point', per point, ntp_gap). A recording that lost nothing has no row.
CREATE TEMP VIEW ntp_export_lost AS
WITH d AS MATERIALIZED (
  SELECT * FROM _ntp_export_db
), l AS (
  SELECT db, 'record' AS kind, NULL AS point, cause, description, n FROM ntp_lost
  UNION ALL
  SELECT db, 'point', point, cause, description, n FROM ntp_gap
)
SELECT
  d.version AS version,      -- the export's layout version
  d.run AS run,              -- the run's label
  d.recording AS recording,  -- the recording id
  d.hostname AS hostname,    -- machine
  d.role AS role,            -- host or target
  d.wall_start AS start_ns,  -- the recording's start, wall clock, ns since the epoch
  l.kind AS kind,            -- record: records lost; point: a point missing
  l.point AS point,          -- the missing point (h_rx, ...); NULL for records
  l.cause AS cause,          -- cause.name: ring_full, ...
  l.description AS description, -- what happened
  l.n AS n                   -- records lost, or stored records lacking the point
FROM l
JOIN d ON d.db = l.db
ORDER BY d.recording, l.kind DESC, l.point, l.cause;
