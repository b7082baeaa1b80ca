-- ntprof target views: a target's commands as timestamps and durations.
-- Stored in every target database (with views.sql). Component definitions:
-- docs/stages.md.

-- Absolute CLOCK_MONOTONIC timestamps (ns) of each recorded point, NULL where
-- a point was not recorded. Columns: t and grp as in cmd, then one per point.
CREATE VIEW cmd_point AS
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
CREATE VIEW cmd_span AS
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

-- cmd_span in long form: one row per command and target component.
-- Columns: t, grp, component (component.name), ns.
CREATE VIEW cmd_component AS
SELECT t, grp, 't_rx_path' AS component, t_rx_path AS ns FROM cmd_span
UNION ALL
SELECT t, grp, 't_drv_sub', t_drv_sub FROM cmd_span
UNION ALL
SELECT t, grp, 't_data_wait', t_data_wait FROM cmd_span
UNION ALL
SELECT t, grp, 't_storage', t_storage FROM cmd_span
UNION ALL
SELECT t, grp, 't_drv_cpl', t_drv_cpl FROM cmd_span
UNION ALL
SELECT t, grp, 't_e2e', t_e2e FROM cmd_span;

-- The latency of each command on this machine (end to end). Columns: t, grp,
-- ns.
CREATE VIEW cmd_e2e AS
SELECT t, grp, t_e2e AS ns FROM cmd_span;
