-- ntprof join: pair each host command with the target's record of the same
-- command, over any number of attached host and target databases. TEMP
-- views (a stored view cannot reach another database) over the prelude's
-- ntp_host_cmd and ntp_target_cmd. docs/sql.md explains the method:
--
-- 1. Identity: subsystem NQN, cntlid, nsid, opcode, nlb, qid, cid, slba.
--    Command ids are reused all the time, so an identity can repeat.
-- 2. Clock offset, per target database and controller. Mids start on each
--    machine's wall clock (the seed). For a sample of about 200 host
--    commands per host database, every target record of the same identity
--    within 5 s gives a candidate difference (host mid - target mid). The
--    true pairs agree to within microseconds; pairs with other uses of a
--    reused identity scatter over seconds. So the unambiguous pairs are the
--    candidates near the most common difference (2 us buckets), and the
--    offset is their median. This needs no unique identity at all.
-- 3. Pairing, per host and target database (the prelude's ntp_joined
--    arms): a target record's t is its first point, the rowid, so for each
--    host command the records whose t falls inside the host's wait (mapped
--    to the target's clock, 50 us of slack) are one range seek away; of
--    those, the one with the same identity whose middle lies inside the
--    host's wait is the pair. Two uses of one identity never overlap in
--    time, so at most one qualifies. No sort of either file is needed.
-- Network time is then the host's wait less the target's residence: no
-- clock is trusted for any duration.

-- Candidate pairs for the clock offset: a sample of host commands and the
-- target records of the same identity within 5 s on the seeded clocks.
-- Columns: hdb, tdb, nqn, cntlid, diff (host mid - target mid, ns).
CREATE TEMP VIEW ntp_pair1 AS
WITH hs AS (
  SELECT h.db AS hdb, h.nqn, h.cntlid, h.nsid, h.opcode, h.nlb, h.qid, h.cid, h.slba,
    h.mid
  FROM ntp_host_cmd AS h
  JOIN ntp_db AS d ON d.db = h.db
  -- about 200 per database; t % a prime spreads the sample over the file
  WHERE (h.t % 1000003) % max(1, d.records / 200) = 0
), ts AS (
  SELECT x.db AS tdb, x.nqn, x.cntlid, x.nsid, x.opcode, x.nlb, x.qid, x.cid, x.slba,
    x.mid
  FROM ntp_target_cmd AS x
  -- one scan of the target; the LBA list is small
  WHERE x.slba IN (SELECT slba FROM hs)
)
SELECT
  hs.hdb AS hdb,              -- host database
  ts.tdb AS tdb,              -- target database
  hs.nqn AS nqn,              -- subsystem NQN
  hs.cntlid AS cntlid,        -- controller id
  hs.mid - ts.mid AS diff     -- host mid - target mid, ns
FROM hs
JOIN ts ON ts.nqn = hs.nqn AND ts.cntlid = hs.cntlid AND ts.nsid = hs.nsid
  AND ts.opcode = hs.opcode AND ts.nlb = hs.nlb AND ts.qid = hs.qid AND ts.cid = hs.cid
  AND ts.slba = hs.slba
WHERE abs(hs.mid - ts.mid) <= 5000000000;

-- Clock correction per target database and controller: add offset_ns to a
-- target mid to put it on its host's clock.
CREATE TEMP VIEW ntp_offset AS
WITH p AS MATERIALIZED (
  SELECT * FROM ntp_pair1
), b AS (
  SELECT hdb, tdb, nqn, cntlid, diff / 2000 AS bucket, count(*) AS n
  FROM p
  GROUP BY hdb, tdb, nqn, cntlid, diff / 2000
), mode AS (
  SELECT hdb, tdb, nqn, cntlid, bucket
  FROM (SELECT *, row_number() OVER (PARTITION BY hdb, tdb, nqn, cntlid
                                     ORDER BY n DESC, abs(bucket), bucket) AS rn
        FROM b)
  WHERE rn = 1
), r AS (
  SELECT p.hdb, p.tdb, p.nqn, p.cntlid, p.diff,
    row_number() OVER (PARTITION BY p.hdb, p.tdb, p.nqn, p.cntlid ORDER BY p.diff) AS rn,
    count(*) OVER (PARTITION BY p.hdb, p.tdb, p.nqn, p.cntlid) AS n
  FROM p
  JOIN mode AS m ON m.hdb = p.hdb AND m.tdb = p.tdb AND m.nqn = p.nqn
    AND m.cntlid = p.cntlid
  WHERE p.diff BETWEEN m.bucket * 2000 - 20000 AND m.bucket * 2000 + 20000
)
SELECT
  hdb,                       -- host database
  tdb,                       -- target database
  nqn,                       -- subsystem NQN
  cntlid,                    -- controller id
  max(n) AS pairs,           -- pairs that agree, the median is over them
  -- median: host clock - target clock, after the wall-clock seed
  max(CASE WHEN rn = (n + 1) / 2 THEN diff END) AS offset_ns
FROM r
GROUP BY hdb, tdb, nqn, cntlid;

-- Group pairs with the same identity on both sides, and the clock shift
-- from a host CLOCK_MONOTONIC time to the target's cmd.t.
CREATE TEMP VIEW ntp_grp_pair AS
SELECT
  o.hdb AS hdb,          -- host database
  hg.grp AS hgrp,        -- grp.id there
  o.tdb AS tdb,          -- target database
  tg.grp AS tgrp,        -- grp.id there
  -- target CLOCK_MONOTONIC = host CLOCK_MONOTONIC + mono_off
  (hd.wall_start - hd.mono_start) - (td.wall_start - td.mono_start) - o.offset_ns
    AS mono_off,
  -- target cmd.t = host CLOCK_MONOTONIC + mono_shift
  (hd.wall_start - hd.mono_start) - (td.wall_start - td.mono_start) - o.offset_ns
    - td.mono_start AS mono_shift
FROM ntp_offset AS o
JOIN ntp_grp_all AS hg ON hg.db = o.hdb AND hg.nqn = o.nqn AND hg.cntlid = o.cntlid
JOIN ntp_grp_all AS tg ON tg.db = o.tdb AND tg.nqn = hg.nqn AND tg.cntlid = hg.cntlid
  AND tg.nsid = hg.nsid AND tg.opcode = hg.opcode AND tg.nlb = hg.nlb
JOIN ntp_db AS hd ON hd.db = o.hdb
JOIN ntp_db AS td ON td.db = o.tdb;

-- Matched commands: one row per host command paired with a target record.
-- Columns: hdb, ht (host cmd.t), tdb, tt (target cmd.t), skew_ns (target
-- middle - host middle on the host's clock).
CREATE TEMP VIEW ntp_match AS
SELECT hdb, ht, tdb, tt, skew_ns FROM ntp_joined;

-- Match statistics per host database: its records, the targets' records,
-- how many matched and the share of the host's.
CREATE TEMP VIEW ntp_match_stats AS
SELECT
  d.db AS hdb,                                          -- host database
  d.records AS host_records,                            -- host's sampled commands
  (SELECT sum(records) FROM ntp_db WHERE role = 'target') AS target_records, -- all targets'
  (SELECT count(*) FROM ntp_match AS m WHERE m.hdb = d.db) AS matched,      -- paired
  100.0 * (SELECT count(*) FROM ntp_match AS m WHERE m.hdb = d.db)
    / max(d.records, 1) AS matched_pct                  -- of the host's records
FROM ntp_db AS d
WHERE d.role = 'host';
