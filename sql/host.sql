-- ntprof host database: the sampled commands of a host (initiator).
--
-- Storage encoding (docs/schema.md): t, the rowid, is the time of the
-- command's first recorded point in ns since meta.mono_start. Each point
-- column holds the ns since the previous recorded point in path order (0 for
-- the first recorded point), NULL where the point was not recorded. Small
-- deltas are what SQLite stores in 0 to 3 bytes, which keeps a command near
-- 40 bytes (docs/performance.md). A missing point therefore takes the time of the previous recorded
-- one: its component is 0 and the time goes to the next component, which is
-- the rule docs/stages.md states. The views below turn this back into
-- absolute timestamps (host_point) and durations (host_span).

-- One row per sampled command.
CREATE TABLE cmd (
  -- First recorded point, ns since meta.mono_start; unique (a tie with an
  -- earlier command is moved 1 ns later by the writer).
  t INTEGER PRIMARY KEY,
  -- grp.id: operation, size and device.
  grp INTEGER NOT NULL,
  -- Queue id, command id (as on the wire) and starting LBA from the SQE;
  -- with grp's device and opcode they identify the command on the target.
  qid INTEGER NOT NULL,
  cid INTEGER NOT NULL,
  slba INTEGER NOT NULL,
  -- Stage points (docs/stages.md): ns after the previous recorded point.
  h_start INTEGER,
  h_queue INTEGER,
  h_sent INTEGER,
  h_r2t_rx INTEGER,
  h_data_sent INTEGER,
  h_rx INTEGER,
  h_rx_drv INTEGER,
  h_cqe INTEGER,
  h_complete INTEGER,
  h_end INTEGER
);
