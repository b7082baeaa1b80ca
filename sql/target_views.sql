-- ntprof target views: a target's commands as timestamps and durations.
-- Stored in every target database (with views.sql). Component definitions:
-- docs/stages.md.

-- Absolute CLOCK_MONOTONIC timestamps (ns) of each recorded point, NULL where
-- a point was not recorded. Columns: t and grp as in cmd, then one per point.
CREATE VIEW ntp_cmd_point AS
SELECT
  c.t AS t,
  c.grp AS grp,
  CASE WHEN c.t_rx IS NOT NULL
    THEN m.mono_start + c.t + c.t_rx END AS t_rx,
  CASE WHEN c.t_cmd IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.t_rx, 0) + c.t_cmd END AS t_cmd,
  CASE WHEN c.t_r2t IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.t_rx, 0) + ifnull(c.t_cmd, 0) + c.t_r2t END AS t_r2t,
  CASE WHEN c.t_data_rx IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.t_rx, 0) + ifnull(c.t_cmd, 0) + ifnull(c.t_r2t, 0) + c.t_data_rx END AS t_data_rx,
  CASE WHEN c.t_exec IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.t_rx, 0) + ifnull(c.t_cmd, 0) + ifnull(c.t_r2t, 0) + ifnull(c.t_data_rx, 0) + c.t_exec END AS t_exec,
  CASE WHEN c.t_stor IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.t_rx, 0) + ifnull(c.t_cmd, 0) + ifnull(c.t_r2t, 0) + ifnull(c.t_data_rx, 0) + ifnull(c.t_exec, 0) + c.t_stor END AS t_stor,
  CASE WHEN c.t_resp IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.t_rx, 0) + ifnull(c.t_cmd, 0) + ifnull(c.t_r2t, 0) + ifnull(c.t_data_rx, 0) + ifnull(c.t_exec, 0) + ifnull(c.t_stor, 0) + c.t_resp END AS t_resp,
  CASE WHEN c.t_sent IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.t_rx, 0) + ifnull(c.t_cmd, 0) + ifnull(c.t_r2t, 0) + ifnull(c.t_data_rx, 0) + ifnull(c.t_exec, 0) + ifnull(c.t_stor, 0) + ifnull(c.t_resp, 0) + c.t_sent END AS t_sent,
  CASE WHEN c.t_free IS NOT NULL
    THEN m.mono_start + c.t + ifnull(c.t_rx, 0) + ifnull(c.t_cmd, 0) + ifnull(c.t_r2t, 0) + ifnull(c.t_data_rx, 0) + ifnull(c.t_exec, 0) + ifnull(c.t_stor, 0) + ifnull(c.t_resp, 0) + ifnull(c.t_sent, 0) + c.t_free END AS t_free
FROM cmd AS c, meta AS m;

-- One row per command: identity, residence and every target component in ns.
CREATE VIEW ntp_cmd_span AS
SELECT
  c.t AS t,                 -- cmd.t
  c.grp AS grp,             -- grp.id
  c.qid AS qid,             -- queue id
  c.cid AS cid,             -- command id
  c.slba AS slba,           -- starting LBA
  -- CLOCK_MONOTONIC ns when the command arrived (first recorded point).
  m.mono_start + c.t + ifnull(c.t_rx, 0) AS rx_ns,
  ifnull(c.t_cmd, 0) AS t_rx_path,                     -- t_rx -> t_cmd
  ifnull(c.t_r2t, 0) + ifnull(c.t_exec, 0) AS t_drv_sub, -- t_cmd -> t_exec, less t_data_wait
  c.t_data_rx AS t_data_wait,                          -- t_r2t -> t_data_rx, NULL: no R2T
  ifnull(c.t_stor, 0) AS t_storage,                    -- t_exec -> t_stor
  ifnull(c.t_resp, 0) + ifnull(c.t_sent, 0) AS t_drv_cpl, -- t_stor -> t_sent
  -- t_rx -> t_sent: how long the command was on the target.
  ifnull(c.t_cmd, 0) + ifnull(c.t_r2t, 0) + ifnull(c.t_data_rx, 0)
    + ifnull(c.t_exec, 0) + ifnull(c.t_stor, 0) + ifnull(c.t_resp, 0)
    + ifnull(c.t_sent, 0) AS t_e2e
FROM cmd AS c, meta AS m;

-- ntp_cmd_span in long form: one row per command and target component.
-- Columns: t, grp, component (component.name), ns.
CREATE VIEW ntp_cmd_component AS
--@ SELECT line FROM gen_cmd_component WHERE role = 'target' ORDER BY i

-- The latency of each command on this machine (end to end). Columns: t, grp,
-- ns.
CREATE VIEW ntp_cmd_e2e AS
SELECT t, grp, t_e2e AS ns FROM ntp_cmd_span;

-- Per point this configuration records (point_need): how many stored
-- commands lack it, counted from cmd itself. The gap table says why; this
-- view is the check that every gap was counted. An 'r2t' point is missing
-- where the command has the other R2T point but not this one.
CREATE VIEW ntp_point_missing AS
WITH s AS (
  SELECT
    count(*) AS cmds,
    sum(t_rx IS NULL) AS t_rx, sum(t_cmd IS NULL) AS t_cmd,
    sum(t_r2t IS NULL AND t_data_rx IS NOT NULL) AS t_r2t,
    sum(t_data_rx IS NULL AND t_r2t IS NOT NULL) AS t_data_rx,
    sum(t_exec IS NULL) AS t_exec, sum(t_stor IS NULL) AS t_stor,
    sum(t_resp IS NULL) AS t_resp, sum(t_sent IS NULL) AS t_sent,
    sum(t_free IS NULL) AS t_free
  FROM cmd
)
SELECT
  n.point AS point,        -- point.name
  s.cmds AS cmds,          -- stored commands
  coalesce(CASE n.point WHEN 't_rx' THEN s.t_rx WHEN 't_cmd' THEN s.t_cmd
    WHEN 't_r2t' THEN s.t_r2t WHEN 't_data_rx' THEN s.t_data_rx
    WHEN 't_exec' THEN s.t_exec WHEN 't_stor' THEN s.t_stor
    WHEN 't_resp' THEN s.t_resp WHEN 't_sent' THEN s.t_sent
    WHEN 't_free' THEN s.t_free END, 0)
    AS missing             -- commands that lack it
FROM point_need AS n
JOIN meta AS m ON m.driver = n.driver AND m.transport = n.transport
JOIN point AS p ON p.name = n.point AND p.role = 'target'
CROSS JOIN s
ORDER BY p.ord;
