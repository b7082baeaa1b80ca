-- ntprof join: pair each host command with the target's record of the same
-- command, over any number of attached host and target databases. TEMP
-- views (a stored view cannot reach another database) over the prelude's
-- ntp_host_cmd and ntp_target_cmd. docs/sql.md explains the method:
--
-- 1. Identity: subsystem NQN, cntlid, nsid, admin queue or not, opcode,
--    fabrics type, nlb, qid, cid, slba. Command ids are reused all the time,
--    so an identity can repeat.
-- 2. Clock offset, per host and target database (one host clock, one
--    target clock). Mids start on each machine's wall clock (the seed). For
--    a sample of about 200 host commands per host database, every target
--    record of the same identity within 5 s gives a candidate difference
--    (host mid - target mid). The true pairs agree to within microseconds;
--    pairs with other uses of a reused identity scatter over seconds. So the
--    unambiguous pairs are the candidates near the most common difference (2
--    us buckets), and the offset is their median. This needs no unique
--    identity at all. (Unless the candidates are noise: see the drift.)
--    Clocks also drift apart (a few ppm is common, and 5 ppm moves a minute
--    of recording by 300 us, more than half a wait). So the candidates also
--    vote for a drift from -50 to +50 ppm (a Hough transform over a line
--    offset = a + drift x time), and two least-squares fits, to the pairs
--    near the winning line and then to those within 20 us of the first fit,
--    give the drift. It is used when it moves the recording's ends by more
--    than 10 us; otherwise the offset is the constant median above. Where
--    under a quarter of the unambiguous candidates (one per sample) lie
--    near the winning line, the crossings vary by milliseconds (as between
--    two emulated VMs) and both mode and line are noise: the offset is the
--    median of the unambiguous candidates, and there is no drift.
--    Then each sampled host command's candidate nearest that correction:
--    where the candidates were noise their median refines the offset, and
--    how far they scatter around it (their median absolute deviation) sets
--    the window of step 3's second rule.
-- 3. Pairing, per host and target database (the prelude's ntp_joined
--    arms): a target record's t is its first point, the rowid, so for each
--    host command the records whose t falls inside the host's wait (mapped
--    to the target's clock) are one range seek away.
--    a. Of those, the one with the same identity whose middle lies inside
--       the host's wait is the pair. Two uses of one identity never overlap
--       in time, so at most one qualifies.
--    b. Else, by identity: if the wait widened by the window on each side
--       holds exactly one target record of the same identity, and no other
--       host command of that identity is that close, it is the pair. Time
--       only tells repeated identities apart; a network whose crossings vary
--       by more than a command's own margin no longer breaks the pair.
-- Network time is then the host's wait less the target's residence: no
-- clock is trusted for any duration.

-- How a session treats its TEMP views (lib/prepare.c reads this table; each
-- file adds the rows of its own views): a view with a cache_ord is computed
-- once, in that order, into a TEMP table that the view is then redefined to
-- read (ntp_session_prepare; each cache is built from those before it), and
-- a query that names a view with prepare = 1 prepares the session first.
CREATE TEMP TABLE _ntp_view_plan (
  -- The TEMP view.
  name TEXT PRIMARY KEY,
  -- Its place in the caching order; NULL: never cached.
  cache_ord INTEGER,
  -- When it is cached: 0 always; 1 only when a target recording is open
  -- (without one the join is empty, and the offset's sample of the host
  -- would be work for nothing); 2 only when several runs are open (ntprof
  -- compare: a report's session would compute the comparison for nothing);
  -- 3 as 0 and 4 as 1, but only for a session that wants them
  -- (_ntp_prepare_want: the per-command tables of the time series and
  -- .slowest, which only plain sqlite3's set-up reads: ntprof's own
  -- questions read the recordings, sql/native.sql).
  cache_when INTEGER NOT NULL,
  -- 1: it is, or reads, a cached view: a query naming it prepares first;
  -- 0 also for a cached view whose own rows are cheap (ntp_host_grp): a
  -- query naming it reads them without waiting for the rest.
  prepare INTEGER NOT NULL
) WITHOUT ROWID;

-- A faster way than SELECT * FROM the view to a cached view's rows, where
-- there is one: statements that create its cache table _NAME_cache with
-- the same columns and rows (tests compare the two). A view keeps its plain
-- form, which runs anywhere; the builder may use TEMP tables of its own.
-- Builders are for the portable views: where native.sql has replaced the
-- view (_ntp_form), the cache is the native view's rows.
CREATE TEMP TABLE _ntp_cache_build (
  -- The TEMP view, as in _ntp_view_plan.
  name TEXT PRIMARY KEY,
  -- The statements, ending in ';'.
  sql TEXT NOT NULL
) WITHOUT ROWID;

-- Statements the native form runs around a view's step (native.sql): the
-- join's tap armed before ntp_joined's table is written, and so on.
CREATE TEMP TABLE _ntp_prepare_wrap (
  -- The TEMP view, as in _ntp_view_plan.
  name TEXT PRIMARY KEY,
  -- Run before its step, and after it; each ends in ';'.
  before TEXT NOT NULL,
  after TEXT NOT NULL
) WITHOUT ROWID;

-- Which form the session's views have, one row: native.sql sets it to 1.
CREATE TEMP TABLE _ntp_form (
  -- 1: native.sql replaced some views with forms over native functions.
  native INTEGER NOT NULL
);
INSERT INTO _ntp_form VALUES (0);

-- The values of _ntp_view_plan.cache_when that hold in this session.
CREATE TEMP VIEW _ntp_cache_when AS
SELECT 0 AS cache_when                                         -- always
UNION ALL SELECT 1 WHERE EXISTS (SELECT 1 FROM ntp_target_cmd) -- a target is open
UNION ALL SELECT 2 WHERE EXISTS (SELECT 1 FROM ntp_run WHERE ord > 0) -- several runs
UNION ALL SELECT 3                                             -- as 0, when wanted
UNION ALL SELECT 4 WHERE EXISTS (SELECT 1 FROM ntp_target_cmd); -- as 1, when wanted

-- Which of the views to cache this session's preparation computes, one
-- row (lib/prepare.c sets it): ntprof's commands read none of the views
-- of cache_when 3 and 4 (_ntp_view_plan) and leave them out; plain
-- sqlite3's set-up (ntprof-shell --sql) wants them, and over a kept run
-- without them computes them alone, into a copy of its file.
CREATE TEMP TABLE _ntp_prepare_want (
  -- 1: the views of cache_when 3 and 4 too
  more INTEGER NOT NULL,
  -- 1: only those
  only_more INTEGER NOT NULL
);
INSERT INTO _ntp_prepare_want VALUES (1, 0);

-- The cached views whose table has an index, for look-ups by command (a
-- query that wants a few commands' rows, or each command's match, seeks
-- instead of building an automatic index of every row): its columns.
CREATE TEMP TABLE _ntp_cache_index (
  -- The TEMP view, as in _ntp_view_plan.
  name TEXT PRIMARY KEY,
  -- The columns of its index, as CREATE INDEX lists them.
  cols TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO _ntp_cache_index VALUES ('ntp_joined', 'hdb, ht');

-- The cached views whose table is declared instead of made by CREATE TABLE
-- AS: a key of their rows (WITHOUT ROWID), so that a range of it is a seek.
-- Filled in the order of the key (a recording's commands by cmd.t), each
-- row goes at the end of the tree.
CREATE TEMP TABLE _ntp_cache_ddl (
  -- The TEMP view, as in _ntp_view_plan.
  name TEXT PRIMARY KEY,
  -- What follows CREATE TABLE and the table's name: the view's columns
  -- with the declared types CREATE TABLE AS would give them, the key, the
  -- options. The cache's check compares the columns with the view's.
  ddl TEXT NOT NULL
) WITHOUT ROWID;

-- The cached views only the native form has (native.sql adds them, with
-- their rows in _ntp_view_plan): the portable form's steps leave them out.
CREATE TEMP TABLE _ntp_native_only (
  -- The TEMP view, as in _ntp_view_plan.
  name TEXT PRIMARY KEY
) WITHOUT ROWID;

-- Where the prepared tables go, one row: 'temp', or the schema of the
-- cache file ntp_session_prepare writes them into while it prepares a run
-- it keeps (lib/cache.c sets it while it reads _ntp_prepare_sql, and
-- sets it back): no TEMP table copied into the file afterwards.
CREATE TEMP TABLE _ntp_prepare_into (
  -- The schema: 'temp' or an attached database's name.
  schema TEXT NOT NULL
);
INSERT INTO _ntp_prepare_into VALUES ('temp');

-- Per form (native 0 or 1) and view to cache, in order: the statements
-- that make a table _NAME_cache of its rows in _ntp_prepare_into's schema
-- (by its builder, in the portable form, if it has one: a builder makes a
-- TEMP table, then moved there; declared by _ntp_cache_ddl, then filled,
-- if it has a row there), its index if it has one, and redefine the view
-- as a read of it.
CREATE TEMP VIEW _ntp_prepare_step AS
SELECT
  f.native AS native,          -- the form
  p.cache_ord AS ord,          -- the order
  CASE WHEN f.native THEN coalesce(w.before || char(10), '') ELSE '' END ||
  coalesce(
    CASE WHEN NOT f.native THEN b.sql || CASE WHEN p.s != 'temp' THEN char(10)
      || printf('CREATE TABLE "%w"."%w" AS SELECT * FROM temp."%w";' || char(10)
                || 'DROP TABLE temp."%w";', p.s, p.c, p.c, p.c) ELSE '' END END,
    CASE WHEN p.s = 'temp' THEN 'CREATE TEMP TABLE ' ELSE printf('CREATE TABLE "%w".', p.s) END
      || CASE WHEN d.ddl IS NULL AND i.cols IS NULL
           THEN printf('"%w" AS SELECT * FROM "%w";', p.c, p.name)
         -- an index made before the rows (in the order of its key, they go
         -- at its end), not by a sort of them after: the columns as
         -- CREATE TABLE AS gives them
         WHEN d.ddl IS NULL
           THEN printf('"%w" AS SELECT * FROM "%w" WHERE 0;' || char(10)
                       || 'CREATE INDEX %s"%w" ON "%w" (%s);' || char(10)
                       || 'INSERT INTO %s"%w" SELECT * FROM "%w";',
                       p.c, p.name, p.q, p.c || '_i', p.c, i.cols, p.q, p.c, p.name)
         ELSE printf('"%w" %s;' || char(10) || 'INSERT INTO %s"%w" SELECT * FROM "%w";',
           p.c, d.ddl, p.q, p.c, p.name) END) || char(10)
    || CASE WHEN i.cols IS NOT NULL AND (d.ddl IS NOT NULL OR (NOT f.native AND b.sql IS NOT NULL))
         THEN printf('CREATE INDEX %s"%w" ON "%w" (%s);', p.q, p.c || '_i', p.c, i.cols)
                 || char(10) ELSE '' END
    || printf('DROP VIEW "%w";' || char(10) || 'CREATE TEMP VIEW "%w" AS SELECT * FROM %s"%w";',
      p.name, p.name, p.q, p.c) || char(10)
    || CASE WHEN f.native THEN coalesce(w.after || char(10), '') ELSE '' END
    AS stmt -- the statements
FROM (SELECT 0 AS native UNION ALL SELECT 1) AS f
CROSS JOIN (
  SELECT v.name AS name, v.cache_ord AS cache_ord, '_' || ltrim(v.name, '_') || '_cache' AS c,
    i.schema AS s, CASE WHEN i.schema = 'temp' THEN '' ELSE printf('"%w".', i.schema) END AS q
  FROM _ntp_view_plan AS v, _ntp_prepare_into AS i, _ntp_prepare_want AS m
  WHERE v.cache_ord IS NOT NULL
    AND v.cache_when IN (SELECT cache_when FROM _ntp_cache_when)
    AND CASE WHEN v.cache_when IN (3, 4) THEN m.more ELSE NOT m.only_more END
) AS p
LEFT JOIN _ntp_cache_build AS b ON b.name = p.name
LEFT JOIN _ntp_cache_ddl AS d ON d.name = p.name
LEFT JOIN _ntp_cache_index AS i ON i.name = p.name
LEFT JOIN _ntp_prepare_wrap AS w ON w.name = p.name
WHERE f.native OR p.name NOT IN (SELECT name FROM _ntp_native_only);

-- The SQL ntp_session_prepare runs, one row: the steps of this session's form.
CREATE TEMP VIEW _ntp_prepare_sql AS
SELECT coalesce(group_concat(stmt, ''), '') AS sql -- the statements, one per line
FROM (
  SELECT stmt FROM _ntp_prepare_step
  WHERE native = (SELECT native FROM _ntp_form)
  ORDER BY ord
);

-- The same for plain sqlite3, which has no native functions (the end of
-- what ntprof-shell --sql prints), one row.
CREATE TEMP VIEW _ntp_prepare_sql_portable AS
SELECT coalesce(group_concat(stmt, ''), '') AS sql -- the statements, one per line
FROM (SELECT stmt FROM _ntp_prepare_step WHERE native = 0 ORDER BY ord);

-- The views of this file and the prelude's pairing views.
INSERT INTO _ntp_view_plan VALUES
  ('_ntp_cache_when', NULL, 0, 0),
  ('_ntp_pair1', 0, 1, 1),
  ('ntp_offset', 1, 1, 1),
  ('_ntp_grp_pair', 2, 1, 1),
  ('ntp_joined', 3, 1, 1),
  ('_ntp_joined_count', 4, 1, 1),
  ('ntp_join_check', 5, 0, 1),
  ('_ntp_join_ok', NULL, 0, 1),
  ('_ntp_grp_join_ok', NULL, 0, 1),
  ('_ntp_unmatched_pair', NULL, 0, 1),
  ('ntp_match', NULL, 0, 1),
  ('_ntp_match_stats_run', 11, 0, 1),
  ('ntp_match_stats', NULL, 0, 1);

-- The thresholds of the report's verdicts, one row: a join refused
-- (ntp_join_check), a group's numbers flagged (ntp_report_warning). Read
-- when the session computes its caches (the first report or query of a
-- cached view): change them before. docs/sql.md says why these defaults.
-- UPDATE ntp_report_threshold SET min_match_pct = 20; (ntprof report
-- --min-match 20, --max-lost).
CREATE TEMP TABLE ntp_report_threshold (
  -- a join is refused when fewer than this % of the host commands the
  -- target could have recorded matched
  min_match_pct REAL NOT NULL CHECK (min_match_pct BETWEEN 0 AND 100),
  -- ... or when the clock offset rests on fewer candidate pairs than this
  -- (than half those host commands, when there are fewer)
  min_offset_pairs INTEGER NOT NULL CHECK (min_offset_pairs >= 0),
  -- a group is unreliable when more than this % of its sampled records
  -- (stored and lost) were lost
  max_lost_pct REAL NOT NULL CHECK (max_lost_pct BETWEEN 0 AND 100)
);
INSERT INTO ntp_report_threshold VALUES (50.0, 10, 1.0);

-- Candidate pairs for the clock offset: a sample of host commands and the
-- target records of the same identity within 5 s on the seeded clocks.
-- Columns: hdb, tdb, nqn, cntlid, hid (the sampled host cmd.t), t (its
-- middle on the seeded clock, ns), diff (host mid - target mid, ns).
-- MATERIALIZED and CROSS JOIN: with several hosts or targets (ntprof
-- compare) ntp_host_cmd and ntp_target_cmd are compounds, and SQLite would
-- otherwise copy every command of every host to index it by database, and
-- read the sample again per target (25 s instead of 4 for two runs of 1 M
-- commands a side). Cached first (_ntp_view_plan): ntp_offset's steps
-- read it more than once, and SQLite computed it again for some of them
-- (0.8 s for the offset at 1 M commands a side, 0.4 s from the table).
CREATE TEMP VIEW _ntp_pair1 AS
WITH hs AS MATERIALIZED (
  SELECT h.db AS hdb, h.t AS hid, h.nqn, h.cntlid, h.nsid, h.opcode, h.nlb, h.qid, h.cid,
    h.slba, h.mid, h.wait_ns
  -- the commands scanned, each one's database looked up
  FROM ntp_host_cmd AS h
  CROSS JOIN ntp_db AS d ON d.db = h.db
  -- about 200 per database; t % a prime spreads the sample over the file
  WHERE (h.t % 1000003) % max(1, d.records / 200) = 0
), ts AS MATERIALIZED (
  SELECT x.db AS tdb, x.nqn, x.cntlid, x.nsid, x.opcode, x.nlb, x.qid, x.cid, x.slba,
    x.mid, x.t_e2e
  FROM ntp_target_cmd AS x
  -- one scan of the target; the LBA list is small
  WHERE x.slba IN (SELECT slba FROM hs)
)
SELECT
  hs.hdb AS hdb,              -- host database
  ts.tdb AS tdb,              -- target database
  hs.nqn AS nqn,              -- subsystem NQN
  hs.cntlid AS cntlid,        -- controller id
  hs.hid AS hid,              -- sampled host command (cmd.t)
  hs.mid AS t,                -- its middle, seeded clock (ns)
  hs.mid - ts.mid AS diff,    -- host mid - target mid, ns
  -- how far apart the two middles of a true pair can lie: the target's
  -- residence lies inside the host's wait, so half the wait less the
  -- residence (ns)
  (hs.wait_ns - ts.t_e2e) / 2 AS half_slack
FROM hs
JOIN ts ON ts.nqn = hs.nqn AND ts.cntlid = hs.cntlid AND ts.nsid = hs.nsid
  AND ts.opcode = hs.opcode AND ts.nlb = hs.nlb AND ts.qid = hs.qid AND ts.cid = hs.cid
  AND ts.slba = hs.slba
-- a host pairs only with the targets of its run (ntp_run)
JOIN ntp_run AS hr ON hr.db = hs.hdb
JOIN ntp_run AS tr ON tr.db = ts.tdb AND tr.ord = hr.ord
WHERE abs(hs.mid - ts.mid) <= 5000000000;

-- Clock correction per host and target database: a target mid plus
-- offset_ns + drift x (host time - host wall_start) is on its host's clock
-- (host time on the seeded clock).
CREATE TEMP VIEW ntp_offset AS
WITH p AS MATERIALIZED (
  SELECT hdb, tdb, hid, t, diff, half_slack,
    count(*) OVER (PARTITION BY hdb, tdb, hid) AS nc  -- candidates of the sample
  FROM _ntp_pair1
), b AS (
  SELECT hdb, tdb, diff / 2000 AS bucket, count(*) AS n
  FROM p
  GROUP BY hdb, tdb, diff / 2000
), mode AS (
  SELECT hdb, tdb, bucket
  FROM (SELECT *, row_number() OVER (PARTITION BY hdb, tdb
                                     ORDER BY n DESC, abs(bucket), bucket) AS rn
        FROM b)
  WHERE rn = 1
), r AS (
  SELECT p.hdb, p.tdb, p.diff,
    row_number() OVER (PARTITION BY p.hdb, p.tdb ORDER BY p.diff) AS rn,
    count(*) OVER (PARTITION BY p.hdb, p.tdb) AS n
  FROM p
  JOIN mode AS m ON m.hdb = p.hdb AND m.tdb = p.tdb
  WHERE p.diff BETWEEN m.bucket * 2000 - 20000 AND m.bucket * 2000 + 20000
), median AS (
  SELECT hdb, tdb, max(n) AS pairs,
    max(CASE WHEN rn = (n + 1) / 2 THEN diff END) AS offset_ns
  FROM r
  GROUP BY hdb, tdb
), single AS (
  -- the unambiguous candidates (one per sample) and their median, for when
  -- the mode is noise (see `noise` below)
  SELECT hdb, tdb, max(n) AS pairs,
    max(CASE WHEN rn = (n + 1) / 2 THEN diff END) AS offset_ns
  FROM (SELECT hdb, tdb, diff,
          row_number() OVER (PARTITION BY hdb, tdb ORDER BY diff) AS rn,
          count(*) OVER (PARTITION BY hdb, tdb) AS n
        FROM p WHERE nc = 1)
  GROUP BY hdb, tdb
),
-- The drift. ref: the middle of the sampled time, and a bucket width of 4 us
-- or what 0.5 ppm (half a drift step) moves over half the span.
ref AS MATERIALIZED (
  SELECT hdb, tdb, (min(t) + max(t)) / 2 AS t0, max(t) - min(t) AS span,
    max(4000, (max(t) - min(t)) / 4000000) AS w
  FROM p
  GROUP BY hdb, tdb
), ppm(d) AS (
  SELECT -50 UNION ALL SELECT d + 1 FROM ppm WHERE d < 50
), vote AS (
  -- samples with few candidates vote for every drift; the rest (identities
  -- reused within seconds) only for none
  SELECT p.hdb, p.tdb, ppm.d,
    CAST(round((p.diff - ppm.d * (p.t - f.t0) / 1e6) / f.w) AS INTEGER) AS bucket
  FROM p
  JOIN ref AS f ON f.hdb = p.hdb AND f.tdb = p.tdb
  JOIN ppm ON p.nc <= 20 OR ppm.d = 0
), peak AS (
  SELECT hdb, tdb, d, bucket
  FROM (SELECT hdb, tdb, d, bucket,
          row_number() OVER (PARTITION BY hdb, tdb
                             ORDER BY count(*) DESC, abs(d), d, abs(bucket), bucket) AS rn
        FROM vote
        GROUP BY hdb, tdb, d, bucket)
  WHERE rn = 1
), near1 AS (
  -- pairs near the peak's line; x: time from t0, y: diff less the line's offset
  -- REAL: products of ns would overflow 64-bit integers
  SELECT p.hdb, p.tdb, CAST(p.t - f.t0 AS REAL) AS x,
    CAST(p.diff - k.bucket * f.w AS REAL) AS y
  FROM p
  JOIN ref AS f ON f.hdb = p.hdb AND f.tdb = p.tdb
  JOIN peak AS k ON k.hdb = p.hdb AND k.tdb = p.tdb
  WHERE abs(p.diff - k.bucket * f.w - k.d * (p.t - f.t0) / 1e6) <= f.w
), fit1 AS (
  SELECT hdb, tdb,
    coalesce((sum(x * y) - sum(x) * sum(y) / count(*))
             / nullif(sum(x * x) - sum(x) * sum(x) / count(*), 0), 0) AS slope,
    avg(y) AS my, avg(x) AS mx
  FROM near1
  GROUP BY hdb, tdb
), near2 AS (
  SELECT n.hdb, n.tdb, n.x, n.y
  FROM near1 AS n
  JOIN fit1 AS g ON g.hdb = n.hdb AND g.tdb = n.tdb
  WHERE abs(n.y - (g.my + g.slope * (n.x - g.mx))) <= 20000
), noise AS (
  -- True pairs agree within microseconds, so most unambiguous candidates lie
  -- on the winning line (near1). Where under a quarter (or under 3) do, the
  -- crossings vary by far more (a slow or virtual network) and the line is
  -- noise: the offset is then the median of the unambiguous candidates
  -- (off by half the typical difference between the two directions'
  -- crossings, well inside any wait), with no drift.
  SELECT s.hdb, s.tdb
  FROM single AS s
  LEFT JOIN (SELECT hdb, tdb, count(*) AS n FROM near1
             GROUP BY hdb, tdb) AS l
    ON l.hdb = s.hdb AND l.tdb = s.tdb
  WHERE ifnull(l.n, 0) < 3 OR ifnull(l.n, 0) * 4 < s.pairs
), fit2 AS (
  SELECT hdb, tdb, count(*) AS n,
    coalesce((sum(x * y) - sum(x) * sum(y) / count(*))
             / nullif(sum(x * x) - sum(x) * sum(x) / count(*), 0), 0) AS slope,
    avg(y) AS my, avg(x) AS mx
  FROM near2
  GROUP BY hdb, tdb
), fin AS (
  SELECT
    m.hdb, m.tdb, d.wall_start,
    CASE WHEN z.hdb IS NOT NULL THEN u.pairs
      WHEN abs(g.slope * f.span / 2) > 10000 THEN g.n ELSE m.pairs END AS pairs,
    CASE WHEN z.hdb IS NOT NULL THEN u.offset_ns
      WHEN abs(g.slope * f.span / 2) > 10000
      THEN CAST(round(k.bucket * f.w + g.my
                      + g.slope * (d.wall_start - f.t0 - g.mx)) AS INTEGER)
      ELSE m.offset_ns END AS offset_ns,
    CASE WHEN z.hdb IS NULL AND abs(g.slope * f.span / 2) > 10000 THEN g.slope ELSE 0 END
      AS drift
  FROM median AS m
  JOIN ntp_db AS d ON d.db = m.hdb
  LEFT JOIN ref AS f ON f.hdb = m.hdb AND f.tdb = m.tdb
  LEFT JOIN peak AS k ON k.hdb = m.hdb AND k.tdb = m.tdb
  LEFT JOIN fit2 AS g ON g.hdb = m.hdb AND g.tdb = m.tdb
  LEFT JOIN noise AS z ON z.hdb = m.hdb AND z.tdb = m.tdb
  LEFT JOIN single AS u ON u.hdb = m.hdb AND u.tdb = m.tdb
), nearest AS (
  -- each sampled host command's candidate nearest the correction, and how
  -- far off it lies: mostly its true pair, even where identities repeat
  SELECT hdb, tdb, r, half_slack,
    row_number() OVER (PARTITION BY hdb, tdb ORDER BY r) AS rn,
    count(*) OVER (PARTITION BY hdb, tdb) AS n
  FROM (SELECT p.hdb, p.tdb, p.diff - x.offset_ns - x.drift * (p.t - x.wall_start) AS r,
          p.half_slack AS half_slack,
          row_number() OVER (PARTITION BY p.hdb, p.tdb, p.hid
            ORDER BY abs(p.diff - x.offset_ns - x.drift * (p.t - x.wall_start))) AS k
        FROM p
        JOIN fin AS x ON x.hdb = p.hdb AND x.tdb = p.tdb)
  WHERE k = 1
), shift AS (
  -- their median: where the candidates are noise (few unambiguous ones, a
  -- network whose crossings vary by milliseconds) it corrects the offset,
  -- which then rests on every sample rather than on the few alone
  SELECT n.hdb, n.tdb, max(CASE WHEN n.rn = (n.n + 1) / 2 THEN n.r END) AS med
  FROM nearest AS n
  GROUP BY n.hdb, n.tdb
), spread AS (
  -- and how far they scatter around it (median absolute deviation)
  SELECT hdb, tdb, max(CASE WHEN rn = (n + 1) / 2 THEN d END) AS mad
  FROM (SELECT n.hdb, n.tdb, abs(n.r - CASE WHEN z.hdb IS NULL THEN 0 ELSE s.med END) AS d,
          row_number() OVER (PARTITION BY n.hdb, n.tdb
            ORDER BY abs(n.r - CASE WHEN z.hdb IS NULL THEN 0 ELSE s.med END)) AS rn,
          count(*) OVER (PARTITION BY n.hdb, n.tdb) AS n
        FROM nearest AS n
        JOIN shift AS s ON s.hdb = n.hdb AND s.tdb = n.tdb
        LEFT JOIN noise AS z ON z.hdb = n.hdb AND z.tdb = n.tdb)
  GROUP BY hdb, tdb
), causal AS (
  -- The corrections each nearest candidate allows: a true pair's target
  -- middle lies within half_slack of its host middle, so the true offset
  -- lies within half_slack of its diff. Where the true pairs are these
  -- candidates, the truth lies in every such range, their intersection
  -- [lo, hi]; a wrong candidate narrows it or empties it.
  SELECT hdb, tdb, max(r - half_slack) AS lo, min(r + half_slack) AS hi
  FROM nearest
  GROUP BY hdb, tdb
), chosen AS (
  -- the median's correction (0, or the noise median's shift) and the
  -- intersection the causal ranges allow
  SELECT x.hdb, x.tdb, CASE WHEN z.hdb IS NULL THEN 0 ELSE ifnull(s.med, 0) END AS sh,
    c.lo, c.hi
  FROM fin AS x
  LEFT JOIN noise AS z ON z.hdb = x.hdb AND z.tdb = x.tdb
  LEFT JOIN shift AS s ON s.hdb = x.hdb AND s.tdb = x.tdb
  LEFT JOIN causal AS c ON c.hdb = x.hdb AND c.tdb = x.tdb
)
SELECT
  x.hdb AS hdb,              -- host database
  x.tdb AS tdb,              -- target database
  x.pairs AS pairs,          -- candidate pairs the correction rests on
  -- host clock - target clock at the host's start, after the wall-clock seed
  -- (the median's, where the causal intersection holds it or where there
  -- is none: records that break causality, clocks that are not linear or
  -- candidates that are all someone else's; else the intersection's
  -- middle, so that no sampled true pair's middles lie further apart than
  -- its wait allows)
  x.offset_ns + CASE WHEN h.lo <= h.hi AND (h.sh < h.lo OR h.sh > h.hi)
    THEN CAST(round((h.lo + h.hi) / 2.0) AS INTEGER) ELSE h.sh END AS offset_ns,
  -- d(host - target) / d(host time); 0 when under 10 us over the recording,
  -- or when the candidates are noise
  x.drift AS drift,
  -- how far beyond a host command's wait its target record may lie for the
  -- pairing by identity: ten median deviations of the sampled commands'
  -- nearest candidates from the correction, 100 us to 50 ms
  CAST(max(100000, min(50000000, 10 * ifnull(y.mad, 0))) AS INTEGER) AS window_ns
FROM fin AS x
JOIN chosen AS h ON h.hdb = x.hdb AND h.tdb = x.tdb
LEFT JOIN spread AS y ON y.hdb = x.hdb AND y.tdb = x.tdb;

-- Group pairs with the same identity on both sides, and the clock mapping
-- from a host CLOCK_MONOTONIC time x to the target's, with
-- c = drift_ppb x (x - host_mono) / 1e9: target mono = x + mono_off - c and
-- target cmd.t = x + mono_shift - c. Integers, so the join's per-command
-- arithmetic stays exact and cheap.
CREATE TEMP VIEW _ntp_grp_pair AS
SELECT
  o.hdb AS hdb,          -- host database
  hg.grp AS hgrp,        -- grp.id there
  o.tdb AS tdb,          -- target database
  tg.grp AS tgrp,        -- grp.id there
  -- target CLOCK_MONOTONIC - host CLOCK_MONOTONIC at the host's start
  (hd.wall_start - hd.mono_start) - (td.wall_start - td.mono_start) - o.offset_ns
    AS mono_off,
  -- target cmd.t - host CLOCK_MONOTONIC at the host's start
  (hd.wall_start - hd.mono_start) - (td.wall_start - td.mono_start) - o.offset_ns
    - td.mono_start AS mono_shift,
  CAST(round(o.drift * 1e9) AS INTEGER) AS drift_ppb, -- ntp_offset.drift, per 1e9
  hd.mono_start AS host_mono,                         -- where the drift starts
  o.window_ns AS window_ns                            -- ntp_offset.window_ns
FROM ntp_offset AS o
JOIN _ntp_grp_all AS hg ON hg.db = o.hdb
JOIN _ntp_grp_all AS tg ON tg.db = o.tdb AND tg.nqn = hg.nqn AND tg.cntlid = hg.cntlid
  AND tg.nsid = hg.nsid AND tg.admin = hg.admin AND tg.opcode = hg.opcode
  AND tg.fctype = hg.fctype AND tg.nlb = hg.nlb
JOIN ntp_db AS hd ON hd.db = o.hdb
JOIN ntp_db AS td ON td.db = o.tdb;

-- Matched commands: one row per host command paired with a target record.
-- Columns: hdb, ht (host cmd.t), tdb, tt (target cmd.t), skew_ns (target
-- middle - host middle on the host's clock).
CREATE TEMP VIEW ntp_match AS
SELECT hdb, ht, tdb, tt, skew_ns FROM ntp_joined;

-- Matched commands per host recording, host group and target recording:
-- ntp_join_check's counts and the report groups' (_ntp_group_matched),
-- prepared once. native.sql counts them in one scan of the join with
-- ntp_tally(), not a sort of it.
CREATE TEMP VIEW _ntp_joined_count AS
SELECT
  hdb,                         -- host database
  grp,                         -- grp.id there
  tdb,                         -- target database
  count(*) AS n                -- its matched commands
FROM ntp_joined
GROUP BY hdb, grp, tdb;

-- Whether the matches of each host and target recording of one run are a
-- join or an accident, and why (docs/sql.md, "Refusing a join"). The
-- identity checks, in this order; the first that fails refuses the join:
-- 1. controller: the target recorded one of the host's controllers (NQN
--    and cntlid). A pair without (another target of the run serves the
--    host) is 'unrelated', not a join and not refused.
-- 2. window: some of those host commands lie in the target's recording
--    (host cmd.t mapped by the offset, else by the wall clocks alone).
-- 3. share: of those ("eligible"), less the share the target lost, at
--    least min_match_pct % matched.
-- 4. offset: the clock offset rests on at least min_offset_pairs candidate
--    pairs (or half the eligible commands, when fewer).
-- 5. skew: the matched commands' skews (a sample of about 200) scatter by
--    at most a quarter of the pairing window (median absolute deviation);
--    the window is ten times the offset's own scatter.
-- A refused pair's matches are left out of every report view (_ntp_join_ok).
CREATE TEMP VIEW ntp_join_check AS
WITH p AS (
  SELECT h.db AS hdb, t.db AS tdb, h.records AS host_records, t.records AS t_records,
    t.lost AS t_lost, t.duration_ns AS t_duration, h.duration_ns AS h_duration,
    h.wall_start - t.wall_start AS seed
  FROM ntp_db AS h
  -- a host pairs only with the targets of its run (ntp_run)
  JOIN ntp_run AS hr ON hr.db = h.db
  JOIN ntp_run AS tr ON tr.ord = hr.ord
  JOIN ntp_db AS t ON t.db = tr.db AND t.role = 'target'
  WHERE h.role = 'host'
), m AS MATERIALIZED (
  SELECT hdb, tdb, sum(n) AS matched FROM _ntp_joined_count GROUP BY hdb, tdb
), ctrl AS MATERIALIZED (
  -- the host and target recordings with a controller (NQN, cntlid) in common
  SELECT DISTINCT hg.db AS hdb, tg.db AS tdb
  FROM _ntp_grp_all AS hg
  JOIN _ntp_grp_all AS tg ON tg.nqn = hg.nqn AND tg.cntlid = hg.cntlid AND tg.db != hg.db
), c AS (
  -- host cmd.t x is target cmd.t x + a - drift x: the offset's mapping
  -- (_ntp_grp_pair), or the wall clocks' without an offset. The offset
  -- through the prelude's _ntp_pair_offset: without a pair of recordings
  -- none of ntp_offset's SQL is compiled.
  SELECT p.*, coalesce(m.matched, 0) AS matched, o.pairs AS pairs, o.window_ns AS window_ns,
    p.seed - coalesce(o.offset_ns, 0) AS a, coalesce(o.drift, 0) AS drift,
    x.hdb IS NOT NULL AS controller,
    -- another target of the run has one of the host's controllers
    (SELECT count(*) FROM ctrl AS y
     JOIN p AS q ON q.hdb = y.hdb AND q.tdb = y.tdb
     WHERE y.hdb = p.hdb) > 0 AS any_controller
  FROM p
  LEFT JOIN m ON m.hdb = p.hdb AND m.tdb = p.tdb
  LEFT JOIN _ntp_pair_offset AS o ON o.hdb = p.hdb AND o.tdb = p.tdb
  LEFT JOIN ctrl AS x ON x.hdb = p.hdb AND x.tdb = p.tdb
), e AS MATERIALIZED (
  -- MATERIALIZED: its columns are values for the window functions below
  -- (SQLite 3.40 loses a stored view's WITH inside a windowed subquery)
  SELECT c.*,
    -- host commands on the target's controllers within its recording
    -- (cmd.t from 0 to duration_ns on the target's clock): all of the
    -- host's when the target recorded its controllers, all of them, for
    -- all its recording (no scan), else counted
    -- (none without a controller in common: not counted)
    CASE WHEN NOT c.controller THEN 0
         WHEN -c.a / (1 - c.drift) <= 0
           AND (c.t_duration - c.a) / (1 - c.drift) >= c.h_duration
           AND NOT EXISTS (SELECT 1 FROM _ntp_grp_all AS hg
                           WHERE hg.db = c.hdb AND NOT EXISTS (
                             SELECT 1 FROM _ntp_grp_all AS tg
                             WHERE tg.db = c.tdb AND tg.nqn = hg.nqn
                               AND tg.cntlid = hg.cntlid))
      THEN c.host_records
      ELSE (SELECT count(*) FROM ntp_host_cmd AS h
            WHERE h.db = c.hdb
              AND h.t BETWEEN -c.a / (1 - c.drift) AND (c.t_duration - c.a) / (1 - c.drift)
              AND EXISTS (SELECT 1 FROM _ntp_grp_all AS tg
                          WHERE tg.db = c.tdb AND tg.nqn = h.nqn AND tg.cntlid = h.cntlid))
    END AS eligible,
    -- the share of its sampled records the target stored
    c.t_records * 1.0 / max(c.t_records + c.t_lost, 1) AS kept
  FROM c
), s AS (
  -- a sample of each pair's matched commands: about 200, spread by t % a prime
  SELECT j.hdb, j.tdb, j.skew_ns,
    row_number() OVER (PARTITION BY j.hdb, j.tdb ORDER BY j.skew_ns) AS rn,
    count(*) OVER (PARTITION BY j.hdb, j.tdb) AS n
  FROM ntp_joined AS j
  JOIN m ON m.hdb = j.hdb AND m.tdb = j.tdb
  WHERE (j.ht % 1000003) % max(1, m.matched / 200) = 0
), med AS (
  SELECT hdb, tdb, max(CASE WHEN rn = (n + 1) / 2 THEN skew_ns END) AS med
  FROM s
  GROUP BY hdb, tdb
), dev AS (
  SELECT s.hdb, s.tdb, abs(s.skew_ns - d.med) AS d,
    row_number() OVER (PARTITION BY s.hdb, s.tdb ORDER BY abs(s.skew_ns - d.med)) AS rn,
    count(*) OVER (PARTITION BY s.hdb, s.tdb) AS n
  FROM s
  JOIN med AS d ON d.hdb = s.hdb AND d.tdb = s.tdb
), mad AS (
  SELECT hdb, tdb, max(CASE WHEN rn = (n + 1) / 2 THEN d END) AS mad
  FROM dev
  GROUP BY hdb, tdb
), v AS (
  SELECT e.*, x.mad AS skew_mad_ns,
    100.0 * e.matched / (e.eligible * e.kept) AS share_pct,
    min(k.min_offset_pairs, e.eligible / 2) AS need_pairs,
    k.min_match_pct AS min_match_pct,
    CASE
      WHEN NOT e.controller AND e.any_controller THEN NULL
      WHEN NOT e.controller THEN 'controller'
      WHEN e.eligible = 0 OR e.kept = 0 THEN 'window'
      WHEN 100.0 * e.matched / (e.eligible * e.kept) < k.min_match_pct THEN 'share'
      WHEN coalesce(e.pairs, 0) < min(k.min_offset_pairs, e.eligible / 2) THEN 'offset'
      WHEN 4 * x.mad > e.window_ns THEN 'skew'
    END AS reason
  FROM e
  CROSS JOIN ntp_report_threshold AS k
  LEFT JOIN mad AS x ON x.hdb = e.hdb AND x.tdb = e.tdb
), w AS MATERIALIZED (
  SELECT v.*,
    CASE WHEN reason IS NOT NULL THEN 'refused'
      WHEN NOT controller THEN 'unrelated' ELSE 'joined' END AS verdict,
    -- how a share prints: 0.0047, 12.3, 99.9 (never 100 short of it)
    CASE WHEN share_pct >= 99.5 AND share_pct < 100
      THEN printf('%.1f', floor(10 * share_pct) / 10)
      ELSE printf('%.3g', share_pct) END AS share_text,
    printf('%d of %d host commands%s matched', matched,
      CASE WHEN reason IN ('controller', 'window') THEN host_records ELSE eligible END,
      CASE WHEN reason IN ('controller', 'window') OR eligible = host_records THEN ''
        ELSE ' in its recording' END) AS counted
  FROM v
)
SELECT
  hdb,                       -- host database
  tdb,                       -- target database
  host_records,              -- the host's sampled commands
  -- of those, on a controller the target recorded and inside its recording
  eligible,
  kept,                      -- share of its sampled records the target stored
  matched,                   -- host commands paired with a record of this target
  share_pct,                 -- 100 x matched / (eligible x kept); NULL: none eligible
  pairs,                     -- candidate pairs the clock offset rests on (ntp_offset)
  window_ns,                 -- the pairing window (ntp_offset)
  skew_mad_ns,               -- median absolute deviation of the matched skews
  verdict,                   -- joined, refused, or unrelated (no controller in common)
  reason,                    -- the first check that failed; NULL unless refused
  -- why, as the report prints it after 'join refused: HOST with TARGET: '
  CASE reason
    WHEN 'controller' THEN printf(
      'the target recorded none of the host''s controllers (NQN and cntlid); %s', counted)
    WHEN 'window' THEN printf('the recordings do not overlap in time; %s', counted)
    WHEN 'share' THEN printf('%s (%s %%%s, under %g %%)', counted, share_text,
      CASE WHEN kept < 1 THEN printf(' of the %.3g %% the target kept', 100 * kept) ELSE '' END,
      min_match_pct)
    WHEN 'offset' THEN printf(
      'the clock offset rests on %d candidate pairs (under %d); %s (%s %%)',
      coalesce(pairs, 0), need_pairs, counted, share_text)
    WHEN 'skew' THEN printf(
      'the matched commands'' clock skews scatter by %.1f us (median deviation), over a '
      || 'quarter of the %.0f us pairing window; %s (%s %%)',
      skew_mad_ns / 1e3, window_ns / 1e3, counted, share_text)
  END
  || CASE WHEN reason IS NULL THEN ''
    WHEN max(verdict = 'joined') OVER (PARTITION BY hdb) THEN '; its matches are left out'
    ELSE '; reporting the host side only' END AS message
FROM w
ORDER BY hdb, tdb;

-- The host and target recordings whose matches the report uses: those of
-- ntp_join_check's joins.
CREATE TEMP VIEW _ntp_join_ok AS
SELECT
  hdb,                       -- host database
  tdb                        -- target database
FROM ntp_join_check
WHERE verdict = 'joined';

-- Per host recording and group with matched commands: all_ok 1 when every
-- target it matched in is one of _ntp_join_ok's joins. native.sql's scans
-- of a group's matched commands test each command's join only where it is
-- 0: a row-value IN per command costs a third of such a scan.
CREATE TEMP VIEW _ntp_grp_join_ok AS
SELECT
  hdb,                       -- host database
  grp,                       -- grp.id there
  min((hdb, tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok)) AS all_ok -- 1 or 0
FROM _ntp_joined_count
WHERE n > 0
GROUP BY hdb, grp;

-- ntp_match_stats below without the targets' records, which are every
-- recording's of the session, not the host's run's alone: what a run
-- prepared alone keeps (lib/cache.c reads runs kept apart together).
CREATE TEMP VIEW _ntp_match_stats_run AS
-- MATERIALIZED: each host's pairs counted once, not once per column
WITH s AS MATERIALIZED (
  SELECT d.db AS hdb, d.records AS host_records,
    (SELECT count(*) FROM ntp_match AS m WHERE m.hdb = d.db) AS matched
  FROM ntp_db AS d
  WHERE d.role = 'host'
)
SELECT
  hdb,                                                  -- host database
  host_records,                                         -- host's sampled commands
  matched,                                              -- paired
  100.0 * matched / max(host_records, 1) AS matched_pct -- of the host's records
FROM s;

-- Match statistics per host database: its records, the targets' records,
-- how many matched and the share of the host's.
CREATE TEMP VIEW ntp_match_stats AS
SELECT
  hdb,                                                  -- host database
  host_records,                                         -- host's sampled commands
  (SELECT sum(records) FROM ntp_db WHERE role = 'target') AS target_records, -- all targets'
  matched,                                              -- paired
  matched_pct                                           -- of the host's records
FROM _ntp_match_stats_run;

-- Host and target recordings that cannot be joined because they were not
-- recorded at the same time: their wall-clock windows (CLOCK_REALTIME,
-- from wall_start for duration_ns; monotonic clocks start anew on every
-- machine) do not overlap. Such files are usually from different runs, and
-- few or none of their commands pair. ntprof warns of each row once the
-- recordings are open and have passed their integrity checks.
CREATE TEMP VIEW ntp_window_gap AS
SELECT
  hdb,                       -- host database
  tdb,                       -- target database
  first_db,                  -- the one that ended before the other began
  gap_ns,                    -- from the end of first_db to the start of the other, ns
  printf('%.3f', gap_ns / 1e9) AS gap_s -- the same in seconds, as text
FROM (
  SELECT
    h.db AS hdb,
    t.db AS tdb,
    CASE WHEN h.wall_start < t.wall_start THEN h.db ELSE t.db END AS first_db,
    max(t.wall_start - (h.wall_start + h.duration_ns),
        h.wall_start - (t.wall_start + t.duration_ns)) AS gap_ns
  FROM ntp_db AS h
  JOIN ntp_db AS t ON t.role = 'target'
  -- only a host and a target of one run are meant to be joined
  JOIN ntp_run AS hr ON hr.db = h.db
  JOIN ntp_run AS tr ON tr.db = t.db AND tr.ord = hr.ord
  WHERE h.role = 'host'
)
WHERE gap_ns > 0;
