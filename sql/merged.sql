-- The tables of a file ntprof merge writes (its own: the recordings' rows
-- are in the prelude's tables, written by CREATE TABLE AS). The same text
-- makes a merged file and is what a merged file's schema is checked
-- against (lib/check.c): a change here is a new merged-file format.
CREATE TABLE ntp_merged (
  role TEXT NOT NULL,              -- 'merged'
  schema_version INTEGER NOT NULL, -- the recordings' schema version
  ntprof TEXT NOT NULL,            -- the version of ntprof that merged them
  recordings INTEGER NOT NULL      -- rows in ntp_merged_recording
);
CREATE TABLE ntp_merged_recording (
  ord INTEGER PRIMARY KEY, -- its place: hosts first, in the order given
  db TEXT NOT NULL UNIQUE, -- its name in every table's db, hdb, tdb
  path TEXT NOT NULL,      -- the file, as given to ntprof merge
  role TEXT NOT NULL, driver TEXT NOT NULL, transport TEXT NOT NULL,
  hostname TEXT NOT NULL, kernel TEXT NOT NULL, -- its meta
  sample_rate INTEGER NOT NULL, records INTEGER NOT NULL, lost INTEGER NOT NULL,
  wall_start INTEGER NOT NULL, mono_start INTEGER NOT NULL
);
CREATE TABLE ntp_merged_hook (
  db TEXT NOT NULL, -- ntp_merged_recording.db
  name TEXT, attach_to TEXT, kind TEXT, points TEXT -- its hook table's row
);
