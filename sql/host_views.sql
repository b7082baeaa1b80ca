-- ntprof host views: a host's commands as timestamps and durations.
-- Stored in every host database (with views.sql), so `sqlite3 host.db` alone
-- can use them. Component definitions: docs/stages.md.

-- Absolute CLOCK_MONOTONIC timestamps (ns) of each recorded point, NULL where
-- a point was not recorded. Columns: t and grp as in cmd, then one per point.
CREATE VIEW ntp_cmd_point AS
SELECT
  c.t AS t,
  c.grp AS grp,
  CASE WHEN c.h_start IS NOT NULL
    THEN m.mono_start + c.t + c.h_start END AS h_start,
  CASE WHEN c.h_queue IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.h_start, 0) + c.h_queue END AS h_queue,
  CASE WHEN c.h_sent IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.h_start, 0) + ifnull(c.h_queue, 0) + c.h_sent END AS h_sent,
  CASE WHEN c.h_r2t_rx IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.h_start, 0) + ifnull(c.h_queue, 0) + ifnull(c.h_sent, 0) + c.h_r2t_rx END AS h_r2t_rx,
  CASE WHEN c.h_data_sent IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.h_start, 0) + ifnull(c.h_queue, 0) + ifnull(c.h_sent, 0) + ifnull(c.h_r2t_rx, 0) + c.h_data_sent END AS h_data_sent,
  CASE WHEN c.h_rx IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.h_start, 0) + ifnull(c.h_queue, 0) + ifnull(c.h_sent, 0) + ifnull(c.h_r2t_rx, 0) + ifnull(c.h_data_sent, 0) + c.h_rx END AS h_rx,
  CASE WHEN c.h_rx_drv IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.h_start, 0) + ifnull(c.h_queue, 0) + ifnull(c.h_sent, 0) + ifnull(c.h_r2t_rx, 0) + ifnull(c.h_data_sent, 0) + ifnull(c.h_rx, 0) + c.h_rx_drv END AS h_rx_drv,
  CASE WHEN c.h_cqe IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.h_start, 0) + ifnull(c.h_queue, 0) + ifnull(c.h_sent, 0) + ifnull(c.h_r2t_rx, 0) + ifnull(c.h_data_sent, 0) + ifnull(c.h_rx, 0) + ifnull(c.h_rx_drv, 0) + c.h_cqe END AS h_cqe,
  CASE WHEN c.h_complete IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.h_start, 0) + ifnull(c.h_queue, 0) + ifnull(c.h_sent, 0) + ifnull(c.h_r2t_rx, 0) + ifnull(c.h_data_sent, 0) + ifnull(c.h_rx, 0) + ifnull(c.h_rx_drv, 0) + ifnull(c.h_cqe, 0) + c.h_complete END AS h_complete,
  CASE WHEN c.h_end IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.h_start, 0) + ifnull(c.h_queue, 0) + ifnull(c.h_sent, 0) + ifnull(c.h_r2t_rx, 0) + ifnull(c.h_data_sent, 0) + ifnull(c.h_rx, 0) + ifnull(c.h_rx_drv, 0) + ifnull(c.h_cqe, 0) + ifnull(c.h_complete, 0) + c.h_end END AS h_end
FROM cmd AS c, meta AS m;

-- One row per command: identity, the host's wait and every host component in
-- ns. A missing point counts as the previous recorded one (docs/stages.md),
-- so each component is one stored delta, or the sum of a few.
CREATE VIEW ntp_cmd_span AS
SELECT
  c.t AS t,                 -- cmd.t
  c.grp AS grp,             -- grp.id
  c.qid AS qid,             -- queue id
  c.cid AS cid,             -- command id
  c.slba AS slba,           -- starting LBA
  -- CLOCK_MONOTONIC ns when the command was handed to the transport.
  m.mono_start + c.t + ifnull(c.h_start, 0) + ifnull(c.h_queue, 0)
    + ifnull(c.h_sent, 0) AS sent_ns,
  -- ns from h_sent to h_rx: what the host waited for network and target.
  ifnull(c.h_r2t_rx, 0) + ifnull(c.h_data_sent, 0) + ifnull(c.h_rx, 0) AS wait_ns,
  -- 1 when both ends of that wait, h_sent and h_rx, were recorded.
  c.h_sent IS NOT NULL AND c.h_rx IS NOT NULL AS waited,
  ifnull(c.h_queue, 0) AS h_blk_sub,    -- h_start -> h_queue
  ifnull(c.h_sent, 0) AS h_drv_sub,     -- h_queue -> h_sent
  c.h_data_sent AS h_r2t,               -- h_r2t_rx -> h_data_sent, NULL: no R2T
  ifnull(c.h_r2t_rx, 0) + ifnull(c.h_rx, 0) AS h_wait, -- wait_ns less h_r2t
  ifnull(c.h_rx_drv, 0) AS h_rx_path,   -- h_rx -> h_rx_drv
  ifnull(c.h_cqe, 0) AS h_drv_cpl,      -- h_rx_drv -> h_cqe
  ifnull(c.h_end, 0) AS h_blk_cpl,      -- h_complete -> h_end
  ifnull(c.h_complete, 0) AS h_handoff, -- h_cqe -> h_complete
  -- first recorded point -> h_end
  ifnull(c.h_start, 0) + ifnull(c.h_queue, 0) + ifnull(c.h_sent, 0)
    + ifnull(c.h_r2t_rx, 0) + ifnull(c.h_data_sent, 0) + ifnull(c.h_rx, 0)
    + ifnull(c.h_rx_drv, 0) + ifnull(c.h_cqe, 0) + ifnull(c.h_complete, 0)
    + ifnull(c.h_end, 0) AS e2e
FROM cmd AS c, meta AS m;

-- ntp_cmd_span in long form: one row per command and host component, ns NULL
-- where an optional component does not apply. Columns: t, grp, component
-- (component.name), ns.
CREATE VIEW ntp_cmd_component AS
--@ SELECT line FROM gen_cmd_component WHERE role = 'host' ORDER BY i

-- The latency of each command on this machine (end to end). Columns: t, grp,
-- ns.
CREATE VIEW ntp_cmd_e2e AS
SELECT t, grp, e2e AS ns FROM ntp_cmd_span;

-- Per point this configuration records (point_need): how many stored
-- commands lack it, counted from cmd itself. The gap table says why; this
-- view is the check that every gap was counted. An 'r2t' point is missing
-- where the command has the other R2T point but not this one.
CREATE VIEW ntp_point_missing AS
WITH s AS (
  SELECT
    count(*) AS cmds,
    sum(h_start IS NULL) AS h_start, sum(h_queue IS NULL) AS h_queue,
    sum(h_sent IS NULL) AS h_sent,
    sum(h_r2t_rx IS NULL AND h_data_sent IS NOT NULL) AS h_r2t_rx,
    sum(h_data_sent IS NULL AND h_r2t_rx IS NOT NULL) AS h_data_sent,
    sum(h_rx IS NULL) AS h_rx, sum(h_rx_drv IS NULL) AS h_rx_drv,
    sum(h_cqe IS NULL) AS h_cqe, sum(h_complete IS NULL) AS h_complete,
    sum(h_end IS NULL) AS h_end
  FROM cmd
)
SELECT
  n.point AS point,        -- point.name
  s.cmds AS cmds,          -- stored commands
  coalesce(CASE n.point WHEN 'h_start' THEN s.h_start WHEN 'h_queue' THEN s.h_queue
    WHEN 'h_sent' THEN s.h_sent WHEN 'h_r2t_rx' THEN s.h_r2t_rx
    WHEN 'h_data_sent' THEN s.h_data_sent WHEN 'h_rx' THEN s.h_rx
    WHEN 'h_rx_drv' THEN s.h_rx_drv WHEN 'h_cqe' THEN s.h_cqe
    WHEN 'h_complete' THEN s.h_complete WHEN 'h_end' THEN s.h_end END, 0)
    AS missing             -- commands that lack it
FROM point_need AS n
JOIN meta AS m ON m.driver = n.driver AND m.transport = n.transport
JOIN point AS p ON p.name = n.point AND p.role = 'host'
CROSS JOIN s
ORDER BY p.ord;
