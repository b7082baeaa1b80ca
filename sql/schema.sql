-- ntprof per-machine database: tables every recording has, host or target.
--
-- One database per machine and recording. Raw data only: timestamps are
-- CLOCK_MONOTONIC nanoseconds, stored compactly (see cmd in host.sql and
-- target.sql); every derived number is a view. docs/schema.md is the prose
-- version of this file and must say the same.
--
-- Applied by the collector (and the test generator) to a new, empty file,
-- followed by host.sql or target.sql and then views.sql.

PRAGMA application_id = 1853124710; -- 0x6E747066, 'ntpf'
PRAGMA user_version = 6;            -- schema version; also meta.schema_version

-- One row: what was recorded, where, how and when.
CREATE TABLE meta (
  -- Schema version of this file, equal to PRAGMA user_version.
  schema_version INTEGER NOT NULL,
  -- 'host' (issues commands) or 'target' (serves them).
  role TEXT NOT NULL CHECK (role IN ('host', 'target')),
  -- 'kernel' (nvme-tcp, nvmet-tcp, nvme-rdma, nvmet-rdma) or 'spdk'.
  driver TEXT NOT NULL CHECK (driver IN ('kernel', 'spdk')),
  -- 'tcp' or 'rdma'.
  transport TEXT NOT NULL CHECK (transport IN ('tcp', 'rdma')),
  -- Host name of the machine (uname -n).
  hostname TEXT NOT NULL,
  -- Kernel release (uname -r).
  kernel TEXT NOT NULL,
  -- One command in sample_rate is sampled (the -s option), >= 1.
  sample_rate INTEGER NOT NULL CHECK (sample_rate >= 1),
  -- CLOCK_REALTIME and CLOCK_MONOTONIC at the start, read back to back (ns).
  wall_start INTEGER NOT NULL,
  mono_start INTEGER NOT NULL,
  -- The same at the stop; NULL while recording or after a crash.
  wall_stop INTEGER,
  mono_stop INTEGER,
  -- The collector's command line, as typed.
  command_line TEXT NOT NULL,
  -- ntprof version that wrote the file.
  ntprof_version TEXT NOT NULL
);

-- The hooks the collector chose and attached: how this data was measured.
CREATE TABLE hook (
  -- Program name, e.g. ntp_s_recvmsg_tp.
  name TEXT PRIMARY KEY,
  -- What it attaches to: a function, tracepoint or USDT probe.
  attach_to TEXT NOT NULL,
  -- fentry, fexit, kprobe, kretprobe, tracepoint, raw_tp, tp_btf, usdt, uprobe.
  kind TEXT NOT NULL,
  -- Stage points this hook records, space separated (h_rx t_cmd ...).
  points TEXT NOT NULL
) WITHOUT ROWID;

-- A namespace of a controller, as this machine names it.
CREATE TABLE device (
  id INTEGER PRIMARY KEY,
  -- Block device (nvme1n1), SPDK controller+namespace (spdk-c1n1) or bdev.
  name TEXT NOT NULL,
  -- Subsystem NQN: with cntlid and nsid, the same on host and target.
  nqn TEXT NOT NULL,
  -- Controller id the target assigned to the host's connection.
  cntlid INTEGER NOT NULL,
  -- Namespace id.
  nsid INTEGER NOT NULL,
  -- log2 of the logical block size (9: 512 B, 12: 4 KiB).
  lba_shift INTEGER NOT NULL,
  UNIQUE (nqn, cntlid, nsid, name)
);

-- A group of commands reported together: operation, size and device.
CREATE TABLE grp (
  id INTEGER PRIMARY KEY,
  -- device.id
  device INTEGER NOT NULL REFERENCES device (id),
  -- 1: an admin command (queue 0), whose opcodes mean other operations.
  admin INTEGER NOT NULL,
  -- NVMe opcode (0 flush, 1 write, 2 read, ...; 0x7f fabrics).
  opcode INTEGER NOT NULL,
  -- The fabrics command type of opcode 0x7f (1 Connect, 4 Property Get,
  -- ...); 0 for every other opcode.
  fctype INTEGER NOT NULL,
  -- Number of logical blocks, 0-based as in the SQE (cdw12 bits 15:0).
  nlb INTEGER NOT NULL,
  UNIQUE (device, admin, opcode, fctype, nlb)
);

-- The recording in intervals (the -i option).
CREATE TABLE interval (
  id INTEGER PRIMARY KEY,
  -- Interval bounds, ns since meta.mono_start.
  start INTEGER NOT NULL,
  stop INTEGER NOT NULL
);

-- Sampled commands whose record never reached this file, per interval and
-- cause (vocab.sql, cause.code; kind 'record'). No row: none lost.
CREATE TABLE lost (
  -- interval.id: the interval in which the loss was counted.
  interval INTEGER NOT NULL REFERENCES interval (id),
  -- cause.code: why (ring buffer full, ...).
  cause INTEGER NOT NULL,
  -- Records lost.
  n INTEGER NOT NULL,
  PRIMARY KEY (interval, cause)
) WITHOUT ROWID;

-- Stored commands that lack a point their configuration has
-- (vocab.sql, point_need), per interval, point and cause (cause.code; kind
-- 'point'). No row: no point missing.
CREATE TABLE gap (
  -- interval.id: the interval in which the record was stored.
  interval INTEGER NOT NULL REFERENCES interval (id),
  -- point.name: the missing point (h_rx, t_rx, ...).
  point TEXT NOT NULL,
  -- cause.code: why it is missing.
  cause INTEGER NOT NULL,
  -- Commands that lack it for this cause.
  n INTEGER NOT NULL,
  PRIMARY KEY (interval, point, cause)
) WITHOUT ROWID;

-- Per interval and group: all commands where counted, and the sampled ones.
CREATE TABLE interval_grp (
  -- interval.id
  interval INTEGER NOT NULL REFERENCES interval (id),
  -- grp.id
  grp INTEGER NOT NULL REFERENCES grp (id),
  -- Every command of the group in the interval; NULL where not counted
  -- (SPDK), so throughput is estimated from the samples.
  total INTEGER,
  -- Sampled commands written to cmd.
  sampled INTEGER NOT NULL,
  PRIMARY KEY (interval, grp)
) WITHOUT ROWID;
