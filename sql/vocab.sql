-- ntprof vocabulary: stage points, components, stages and their labels
-- (docs/stages.md). Written into every database with schema.sql, so sqlite3
-- alone can use the stored views; ntprof-shell also loads it into its own
-- main database, where it takes precedence over the attached copies: labels
-- in a report always come from the ntprof that prints it.

-- The stage-point vocabulary (docs/stages.md), the same in every database.
CREATE TABLE point (
  -- Column name in cmd: h_start ... h_end, t_rx ... t_free.
  name TEXT PRIMARY KEY,
  -- 'host' or 'target'.
  role TEXT NOT NULL,
  -- Position in path order within the role (the ABI's enum value).
  ord INTEGER NOT NULL,
  -- What happened at this point.
  description TEXT NOT NULL
) WITHOUT ROWID;

-- Components: the time from one point to another, in path order.
CREATE TABLE component (
  -- Key used by the views (h_drv_sub, wire, ...).
  name TEXT PRIMARY KEY,
  -- Order in reports.
  ord INTEGER NOT NULL,
  -- Whose records it is computed from: 'host', 'target', or 'joined' (both).
  role TEXT NOT NULL,
  -- Stage (stage.name) in a one-machine report; NULL: not in it.
  stage_local TEXT,
  -- Stage in a joined report; NULL: not in it.
  stage_joined TEXT,
  -- 1 for end to end: a total, in no stage.
  total INTEGER NOT NULL,
  -- 1: listed only where some command has it (writes with R2T).
  optional INTEGER NOT NULL,
  -- Report label.
  label TEXT NOT NULL
) WITHOUT ROWID;

-- Stages: sums of components, as the summary table shows them.
CREATE TABLE stage (
  name TEXT PRIMARY KEY,
  -- Order in reports.
  ord INTEGER NOT NULL,
  -- Whose driver names it: 'host', 'target' or 'transport' (the network).
  side TEXT NOT NULL
) WITHOUT ROWID;

-- A stage's label for a driver or transport; no row: not shown.
CREATE TABLE stage_label (
  stage TEXT NOT NULL,
  -- 'kernel' or 'spdk' for host and target stages, 'tcp' or 'rdma' for the
  -- network.
  flavour TEXT NOT NULL,
  label TEXT NOT NULL,
  PRIMARY KEY (stage, flavour)
) WITHOUT ROWID;

INSERT INTO point VALUES
  ('h_start',     'host', 0, 'I/O entered the block layer'),
  ('h_queue',     'host', 1, 'driver took the command (queue_rq; SPDK: submit)'),
  ('h_sent',      'host', 2, 'command capsule handed to the transport'),
  ('h_r2t_rx',    'host', 3, 'R2T reached the driver (writes)'),
  ('h_data_sent', 'host', 4, 'last H2C data handed to the transport (writes)'),
  ('h_rx',        'host', 5, 'response (reads: first C2H data) arrived at the host'),
  ('h_rx_drv',    'host', 6, 'driver read the response from the transport'),
  ('h_cqe',       'host', 7, 'driver processed the completion queue entry'),
  ('h_complete',  'host', 8, 'handed to nvme_complete_rq (SPDK: callback)'),
  ('h_end',       'host', 9, 'block layer completed the I/O'),
  ('t_rx',        'target', 0, 'command capsule arrived at the target'),
  ('t_cmd',       'target', 1, 'driver parsed the command'),
  ('t_r2t',       'target', 2, 'R2T handed to the transport (writes)'),
  ('t_data_rx',   'target', 3, 'last H2C data arrived (writes)'),
  ('t_exec',      'target', 4, 'submitted to storage'),
  ('t_stor',      'target', 5, 'storage completed'),
  ('t_resp',      'target', 6, 'response queued by the driver'),
  ('t_sent',      'target', 7, 'response (reads: first C2H data) handed to the transport'),
  ('t_free',      'target', 8, 'request released (SPDK)');

INSERT INTO stage VALUES
  ('host_block',  1, 'host'),
  ('host_driver', 2, 'host'),
  ('host_rx',     3, 'host'),
  ('net_target',  4, 'transport'),
  ('network',     5, 'transport'),
  ('target_rx',   6, 'target'),
  ('target_driver', 7, 'target'),
  ('data_wait',   8, 'target'),
  ('storage',     9, 'target');

INSERT INTO stage_label VALUES
  ('host_block', 'kernel', 'host block layer'),
  ('host_driver', 'kernel', 'host driver'),
  ('host_driver', 'spdk', 'host driver (SPDK)'),
  ('host_rx', 'kernel', 'host receive path'),
  ('host_rx', 'spdk', 'host receive path'),
  ('net_target', 'tcp', 'network and target (not recorded)'),
  ('net_target', 'rdma', 'network and target (not recorded)'),
  ('network', 'tcp', 'network (TCP/IP, NICs, wire)'),
  ('network', 'rdma', 'network (RDMA, NICs, wire)'),
  ('target_rx', 'kernel', 'target receive path'),
  ('target_rx', 'spdk', 'target receive path'),
  ('target_driver', 'kernel', 'target driver'),
  ('target_driver', 'spdk', 'target driver (SPDK)'),
  ('data_wait', 'kernel', 'waiting for write data (network and host)'),
  ('data_wait', 'spdk', 'waiting for write data (network and host)'),
  ('storage', 'kernel', 'storage (target block layer and drive)'),
  ('storage', 'spdk', 'storage (SPDK bdev, drive)');

INSERT INTO component VALUES
  ('h_blk_sub',   1, 'host',   'host_block',  'host_block',  0, 0, 'host block layer, submission'),
  ('h_drv_sub',   2, 'host',   'host_driver', 'host_driver', 0, 0, 'host driver, submission'),
  ('h_r2t',       3, 'host',   'host_driver', 'host_driver', 0, 1, 'host driver, write data (R2T to H2C)'),
  ('h_wait',      4, 'host',   'net_target',  NULL,          0, 0, 'network and target (not recorded)'),
  ('wire',        5, 'joined', NULL,          'network',     0, 0, 'network: wire and NICs (computed)'),
  ('t_rx_path',   6, 'target', 'target_rx',   'network',     0, 0, 'network: target receive path'),
  ('t_drv_sub',   7, 'target', 'target_driver', 'target_driver', 0, 0, 'target driver, submission'),
  ('t_data_wait', 8, 'target', 'data_wait',   NULL,          0, 1, 'target, waiting for write data'),
  ('t_storage',   9, 'target', 'storage',     'storage',     0, 0, 'storage: target block layer and drive'),
  ('t_drv_cpl',  10, 'target', 'target_driver', 'target_driver', 0, 0, 'target driver, completion'),
  ('h_rx_path',  11, 'host',   'host_rx',     'network',     0, 0, 'network: host receive path'),
  ('h_drv_cpl',  12, 'host',   'host_driver', 'host_driver', 0, 0, 'host driver, completion'),
  ('h_blk_cpl',  13, 'host',   'host_block',  'host_block',  0, 0, 'host block layer, completion'),
  ('h_handoff',  14, 'host',   'host_driver', 'host_driver', 0, 0, 'handoff to nvme_complete_rq'),
  ('e2e',        15, 'host',   NULL,          NULL,          1, 0, 'end to end'),
  ('t_e2e',      16, 'target', NULL,          NULL,          1, 0, 'end to end (target residence)');

-- The reports' constants, one row: the SQL and the C that prints the
-- report both read them here.
CREATE VIEW ntp_constant AS
SELECT
  24 AS bar_width; -- '#'s of a stage's bar at a share of 100 %

-- Why a record or a point is missing (the lost and gap tables). The codes
-- are enum ntp_cause of bpf/ntprof_abi.h.
CREATE TABLE cause (
  -- enum ntp_cause value.
  code INTEGER PRIMARY KEY,
  -- Short name: ring_full, forgotten, ...
  name TEXT NOT NULL UNIQUE,
  -- 'record': the whole record is lost; 'point': one point is missing.
  kind TEXT NOT NULL CHECK (kind IN ('record', 'point')),
  -- What happened, as reports print it.
  description TEXT NOT NULL
);

INSERT INTO cause VALUES
  (1, 'ring_full', 'record', 'the ring buffer was full (try a larger -s or --ring-kb)'),
  (2, 'batch_overflow', 'record', 'more records in one probe hit than ntprof copies (64)'),
  (3, 'unreadable', 'record', 'its batch could not be read from the process'),
  (4, 'no_device', 'record', 'its device record was lost'),
  (5, 'abi_version', 'record', 'written by another ABI version (rebuild SPDK with this ntprof''s patch)'),
  (8, 'not_recorded', 'point', 'not recorded by the driver''s hooks'),
  (9, 'no_timestamp', 'point', 'the socket read that brought it gave no kernel receive timestamp'),
  (10, 'arrivals_off', 'point', 'recorded without arrivals (--no-arrivals)'),
  (11, 'forgotten', 'point', 'more arrivals followed on the connection than ntprof keeps');

-- The points each configuration records (docs/stages.md, "Which points
-- exist"): a stored command that lacks one has a gap, which the recording
-- counts with its cause. A point not listed is not expected.
CREATE TABLE point_need (
  -- 'kernel' or 'spdk'.
  driver TEXT NOT NULL,
  -- 'tcp' or 'rdma'.
  transport TEXT NOT NULL,
  -- point.name.
  point TEXT NOT NULL,
  -- 'always', or 'r2t': in commands that have one of their machine's R2T
  -- points (writes with R2T, or with an RDMA READ of the data).
  need TEXT NOT NULL CHECK (need IN ('always', 'r2t')),
  PRIMARY KEY (driver, transport, point)
) WITHOUT ROWID;

INSERT INTO point_need
SELECT d.driver, t.transport, p.point, p.need
FROM (SELECT 'kernel' AS driver UNION ALL SELECT 'spdk') AS d,
     (SELECT 'tcp' AS transport UNION ALL SELECT 'rdma') AS t,
     (SELECT 'h_start' AS point, 'always' AS need, 'kernel' AS only, NULL AS tcp
      UNION ALL SELECT 'h_queue', 'always', NULL, NULL
      UNION ALL SELECT 'h_sent', 'always', NULL, NULL
      UNION ALL SELECT 'h_r2t_rx', 'r2t', NULL, 1
      UNION ALL SELECT 'h_data_sent', 'r2t', NULL, 1
      UNION ALL SELECT 'h_rx', 'always', NULL, NULL
      UNION ALL SELECT 'h_rx_drv', 'always', NULL, NULL
      UNION ALL SELECT 'h_cqe', 'always', NULL, NULL
      UNION ALL SELECT 'h_complete', 'always', NULL, NULL
      UNION ALL SELECT 'h_end', 'always', 'kernel', NULL
      UNION ALL SELECT 't_rx', 'always', NULL, NULL
      UNION ALL SELECT 't_cmd', 'always', NULL, NULL
      UNION ALL SELECT 't_r2t', 'r2t', NULL, NULL
      UNION ALL SELECT 't_data_rx', 'r2t', NULL, NULL
      UNION ALL SELECT 't_exec', 'always', NULL, NULL
      UNION ALL SELECT 't_stor', 'always', NULL, NULL
      UNION ALL SELECT 't_resp', 'always', NULL, NULL
      UNION ALL SELECT 't_sent', 'always', NULL, NULL
      UNION ALL SELECT 't_free', 'always', 'spdk', NULL) AS p
WHERE (p.only IS NULL OR p.only = d.driver) AND (p.tcp IS NULL OR t.transport = 'tcp');

-- Operation names: the NVMe opcodes of I/O and admin commands, and the
-- fabrics command types (opcode 0x7f), as groups are named.
CREATE TABLE opcode (
  -- 'io', 'admin' or 'fabrics'.
  queue TEXT NOT NULL CHECK (queue IN ('io', 'admin', 'fabrics')),
  -- The opcode; for 'fabrics' the fctype.
  code INTEGER NOT NULL,
  -- As reports print it.
  name TEXT NOT NULL,
  PRIMARY KEY (queue, code)
) WITHOUT ROWID;

INSERT INTO opcode VALUES
  ('io', 0, 'flush'), ('io', 1, 'write'), ('io', 2, 'read'),
  ('io', 4, 'write-uncorrectable'), ('io', 5, 'compare'), ('io', 8, 'write-zeroes'),
  ('io', 9, 'dsm'), ('io', 12, 'verify'), ('io', 13, 'reservation-register'),
  ('io', 14, 'reservation-report'), ('io', 17, 'reservation-acquire'),
  ('io', 21, 'reservation-release'), ('io', 25, 'copy'),
  ('admin', 0, 'delete-io-sq'), ('admin', 1, 'create-io-sq'), ('admin', 2, 'get-log-page'),
  ('admin', 4, 'delete-io-cq'), ('admin', 5, 'create-io-cq'), ('admin', 6, 'identify'),
  ('admin', 8, 'abort'), ('admin', 9, 'set-features'), ('admin', 10, 'get-features'),
  ('admin', 12, 'async-event-request'), ('admin', 13, 'ns-management'),
  ('admin', 16, 'firmware-commit'), ('admin', 17, 'firmware-download'),
  ('admin', 20, 'device-self-test'), ('admin', 21, 'ns-attachment'),
  ('admin', 24, 'keep-alive'), ('admin', 25, 'directive-send'),
  ('admin', 26, 'directive-receive'), ('admin', 128, 'format-nvm'),
  ('admin', 129, 'security-send'), ('admin', 130, 'security-receive'),
  ('admin', 132, 'sanitize'), ('admin', 134, 'get-lba-status'),
  ('fabrics', 0, 'property-set'), ('fabrics', 1, 'connect'), ('fabrics', 4, 'property-get'),
  ('fabrics', 5, 'authentication-send'), ('fabrics', 6, 'authentication-receive'),
  ('fabrics', 8, 'disconnect');
