-- ntprof target database: the sampled commands a target served.
--
-- Same encoding as host.sql: t (the rowid) is the first recorded point in ns
-- since meta.mono_start; each point column is ns after the previous recorded
-- point, 0 for the first, NULL where not recorded.

-- One row per sampled command.
CREATE TABLE cmd (
  -- First recorded point, ns since meta.mono_start; unique (ties moved 1 ns).
  t INTEGER PRIMARY KEY,
  -- grp.id: operation, size and device (device.nqn/cntlid/nsid as the host
  -- sees them, device.name as the target names the backing device).
  grp INTEGER NOT NULL,
  -- Queue id, command id and starting LBA from the SQE.
  qid INTEGER NOT NULL,
  cid INTEGER NOT NULL,
  slba INTEGER NOT NULL,
  -- Stage points (docs/stages.md): ns after the previous recorded point.
  t_rx INTEGER,
  t_cmd INTEGER,
  t_r2t INTEGER,
  t_data_rx INTEGER,
  t_exec INTEGER,
  t_stor INTEGER,
  t_resp INTEGER,
  t_sent INTEGER,
  t_free INTEGER
);
