-- ntprof statistics: every command of the report one by one, percentiles per
-- stage, log2 histograms and CDFs of components and stages, and time series
-- at any resolution, as TEMP views over the prelude, join.sql and
-- report.sql. Portable SQL only (plain sqlite3 3.40): percentiles are exact
-- nearest rank, as in report.sql (docs/sql.md, Percentiles).

-- How a session treats these views (join.sql, _ntp_view_plan): the
-- stages' statistics and the tail bands are cached after the report's
-- views (so a prepared run holds them: the report's JSON, CSV and
-- --detail, .percentiles --stages and .tail read them); those that read
-- the report's cached views prepare the session.
INSERT INTO _ntp_view_plan VALUES
  ('ntp_command', NULL, 0, 1),
  ('_ntp_report_cmd_value', NULL, 0, 1),
  ('ntp_report_stage_stats', 9, 0, 1),
  ('_ntp_tail_band', 10, 0, 1),
  ('ntp_report_tail', NULL, 0, 1),
  ('_ntp_text_tail', NULL, 0, 1),
  ('_ntp_report_hist_count', NULL, 0, 1),
  ('ntp_report_hist', NULL, 0, 1),
  ('ntp_report_cdf', NULL, 0, 1),
  ('_ntp_report_cdf_point', NULL, 0, 1),
  ('_ntp_series_agg', NULL, 0, 1),
  ('_ntp_series_e2e_of_agg', NULL, 0, 1),
  ('_ntp_series_e2e', NULL, 0, 1),
  ('_ntp_host_e2e', NULL, 0, 1),
  ('_ntp_target_e2e', NULL, 0, 1),
  ('_ntp_series_geo', NULL, 0, 0),
  ('_ntp_series_src_row', NULL, 0, 1),
  ('_ntp_series_e2e_row', NULL, 0, 1),
  ('ntp_series', NULL, 0, 1),
  ('ntp_series_lost', NULL, 0, 1),
  ('ntp_report_queue', NULL, 0, 1),
  ('_ntp_report_series_form', NULL, 0, 1),
  ('_ntp_report_stage_form', NULL, 0, 1),
  ('ntp_report_series', NULL, 0, 1),
  ('_ntp_text_series', NULL, 0, 1);

-- The drill-down: one row per host command, with the target's side where
-- it was matched (ntp_joined, a join ntp_join_check accepts), its
-- identity, every component and every
-- stage in ns. A matched command's stages are those of a joined report
-- (component.stage_joined), any other's those of the host's own report
-- (component.stage_local); a stage outside its report is NULL.
CREATE TEMP VIEW ntp_command AS
WITH c AS (
  SELECT h.*, j.tdb AS tdb, j.tt AS tt, j.ht IS NOT NULL AS matched,
    j.wire AS wire, j.t_rx_path AS t_rx_path, j.t_drv_sub AS t_drv_sub,
    -- the target's value ntp_joined does not have, by its rowid: a
    -- look-up per matched command, never a copy of every target record
    (SELECT x.t_data_wait FROM ntp_target_cmd AS x WHERE x.db = j.tdb AND x.t = j.tt)
      AS t_data_wait,
    j.t_storage AS t_storage, j.t_drv_cpl AS t_drv_cpl
  FROM ntp_host_cmd AS h
  LEFT JOIN ntp_joined AS j ON j.hdb = h.db AND j.ht = h.t
    AND (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok)
)
SELECT
  c.db AS hdb,                   -- host database
  c.t AS ht,                     -- host cmd.t
  c.tdb AS tdb,                  -- target database; NULL: not matched
  c.tt AS tt,                    -- target cmd.t; NULL: not matched
  c.grp AS grp,                  -- grp.id on the host
  g.name AS name,                -- the group's report name
  g.queue AS queue,              -- io, admin or fabrics
  g.op AS op,                    -- read, write, ...
  c.opcode AS opcode,            -- NVMe opcode
  c.nlb AS nlb,                  -- 0-based number of logical blocks
  c.qid AS qid,                  -- queue id
  c.cid AS cid,                  -- command id
  c.slba AS slba,                -- starting LBA
  (c.t - o.first_t) / 1e9 AS t_s, -- s since the host's first command
  CASE WHEN c.matched THEN 'joined' ELSE 'host' END AS mode, -- which stages
  -- the components (docs/stages.md), ns; the target's NULL when not matched,
  -- h_r2t and t_data_wait where there was no R2T (t_data_wait is in no
  -- stage of the joined path); e2e end to end on the host
--@ SELECT wrap('c.' || name || ' AS ' || name, -92, '  ', ', ') || ','
--@ FROM gen_list WHERE list = 'all' AND NOT (role = 'target' AND total)
  -- residence on the target, from the one look-up: ntp_joined's wire is
  -- h_wait - (t_e2e - t_data_wait), in whole ns
  c.h_wait - c.wire + ifnull(c.t_data_wait, 0) AS t_e2e,
  -- the stages, ns: the sums component.stage_joined and stage_local name
--@ SELECT wrap(replace(command_expr, '$', 'c.') || ' AS ' || name, 1, '  ', ', ')
--@ FROM gen_stage
FROM c
-- unary +: the commands scanned once, each group looked up (no automatic
-- index of every command by its group)
JOIN ntp_report_group AS g ON g.hdb = c.db AND g.grp = +c.grp
JOIN _ntp_series_grp AS o ON o.db = c.db AND o.grp = +c.grp;

-- Every value the report's groups are over, per command, long form: the
-- components of ntp_report_components and the stages of ntp_report_stage,
-- from the commands of ntp_command in the group's mode (a joined group's
-- matched commands, a host group's every command). NULL values (no R2T)
-- are left out.
CREATE TEMP VIEW _ntp_report_cmd_value AS
WITH c AS MATERIALIZED (
  SELECT c.*
  FROM ntp_command AS c
  JOIN ntp_report_group AS g ON g.hdb = c.hdb AND g.grp = c.grp AND g.mode = c.mode
), k AS MATERIALIZED (
  -- what each group is over (a query for one name keeps its rows only)
  SELECT hdb, grp, 'component' AS kind, component AS name, ord FROM ntp_report_components
  UNION ALL
  SELECT hdb, grp, 'stage', stage, ord FROM ntp_report_stage
)
SELECT * FROM (
  SELECT
    c.hdb AS hdb,              -- host database
    c.grp AS grp,              -- grp.id there
    c.ht AS ht,                -- host cmd.t
    k.kind AS kind,            -- 'component' or 'stage'
    k.name AS name,            -- component.name or stage.name
    k.ord AS ord,              -- its report order
    CASE k.name
--@ SELECT wrap('WHEN ''' || name || ''' THEN c.' || name, -92, '      ', ' ')
--@ FROM (SELECT name FROM gen_list WHERE list IN ('stage', 'all') ORDER BY list = 'all', i)
    END AS ns                  -- the value, ns
  -- each command once, outside; its group's names from the small k
  FROM c
  CROSS JOIN k ON k.hdb = c.hdb AND k.grp = c.grp
)
WHERE ns IS NOT NULL;

-- Per group and stage of the report (ntp_report_stage's rows): the
-- distribution of the stage's time per command, percentiles exact nearest
-- rank. Its mean is ntp_report_stage's mean_ns.
CREATE TEMP VIEW ntp_report_stage_stats AS
WITH r AS (
  -- one sort: each value's rank, and its distribution's count and sum
  SELECT hdb, grp, name, ns,
    row_number() OVER w AS rn,
    count(*) OVER a AS n,
    sum(ns) OVER a AS sum_ns
  FROM _ntp_report_cmd_value
  WHERE kind = 'stage'
  WINDOW w AS (PARTITION BY hdb, grp, name ORDER BY ns),
    a AS (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
), q AS (
  -- the values at the percentiles' ranks (n q' + 99999) / 100000
  SELECT * FROM r
  WHERE rn IN ((n * 50000 + 99999) / 100000, (n * 90000 + 99999) / 100000,
               (n * 99000 + 99999) / 100000, (n * 99900 + 99999) / 100000)
)
SELECT
  q.hdb AS hdb,                -- host database
  q.grp AS grp,                -- grp.id there
  s.ord AS ord,                -- stage order
  q.name AS stage,             -- stage.name
  s.label AS label,            -- as the report prints it
  q.n AS n,                    -- commands
  q.sum_ns AS sum_ns,          -- total ns
  q.sum_ns * 1.0 / q.n AS mean_ns, -- mean ns
  max(CASE WHEN q.rn = (q.n * 50000 + 99999) / 100000 THEN q.ns END) AS p50_ns,  -- median
  max(CASE WHEN q.rn = (q.n * 90000 + 99999) / 100000 THEN q.ns END) AS p90_ns,  -- 90th
  max(CASE WHEN q.rn = (q.n * 99000 + 99999) / 100000 THEN q.ns END) AS p99_ns,  -- 99th
  max(CASE WHEN q.rn = (q.n * 99900 + 99999) / 100000 THEN q.ns END) AS p999_ns  -- 99.9th
FROM q
JOIN ntp_report_stage AS s ON s.hdb = q.hdb AND s.grp = q.grp AND s.stage = q.name
GROUP BY q.hdb, q.grp, q.name
ORDER BY q.hdb, q.grp, s.ord;

-- The cache of ntp_report_stage_stats, built faster (join.sql,
-- _ntp_cache_build; the session's preparation builds it in the portable
-- form, as plain sqlite3's set-up does): the stage values sorted
-- once into a table whose rowids follow the sort, so a percentile is one
-- rowid lookup, where the view's windows number and sum every partition.
-- Same rows.
INSERT INTO _ntp_cache_build VALUES ('ntp_report_stage_stats', '
CREATE TEMP TABLE _ntp_stage_sorted AS
SELECT hdb, grp, name, ns FROM _ntp_report_cmd_value WHERE kind = ''stage''
ORDER BY hdb, grp, name, ns;
CREATE TEMP TABLE _ntp_report_stage_stats_cache AS
WITH p AS (
  SELECT hdb, grp, name, min(rowid) AS r0, count(*) AS n, sum(ns) AS sum_ns
  FROM _ntp_stage_sorted
  GROUP BY hdb, grp, name
)
SELECT p.hdb AS hdb, p.grp AS grp, s.ord AS ord, p.name AS stage, s.label AS label,
  p.n AS n, p.sum_ns AS sum_ns, p.sum_ns * 1.0 / p.n AS mean_ns,
  (SELECT ns FROM _ntp_stage_sorted WHERE rowid = r0 + (n * 50000 + 99999) / 100000 - 1)
    AS p50_ns,
  (SELECT ns FROM _ntp_stage_sorted WHERE rowid = r0 + (n * 90000 + 99999) / 100000 - 1)
    AS p90_ns,
  (SELECT ns FROM _ntp_stage_sorted WHERE rowid = r0 + (n * 99000 + 99999) / 100000 - 1)
    AS p99_ns,
  (SELECT ns FROM _ntp_stage_sorted WHERE rowid = r0 + (n * 99900 + 99999) / 100000 - 1)
    AS p999_ns
FROM p
JOIN ntp_report_stage AS s ON s.hdb = p.hdb AND s.grp = p.grp AND s.stage = p.name
ORDER BY p.hdb, p.grp, s.ord;
DROP TABLE _ntp_stage_sorted;');

-- The tail bands of a group: its commands (those of its report: a joined
-- group's matched commands of the joins ntp_join_check accepts, as in
-- ntp_report_component_stats; a host group's every command) ranked by end to
-- end, equal ones by host cmd.t, and cut at the exact nearest ranks of
-- the p50, p90, p99 and p99.9, (n q' + 99999) / 100000: band 1 (p0-50)
-- holds ranks 1 to the p50's, band 2 (p50-90) the ranks after it up to
-- the p90's, then p90-99, p99-99.9, and band 5 (p99.9-100) the ranks above
-- the p99.9's. Per group and band with a command: how many, their end to
-- end's least, largest and sum, and the sum of each component, as
-- _ntp_series_row has them (NULL: none there).
CREATE TEMP VIEW _ntp_tail_band AS
WITH c AS (
  SELECT j.hdb, j.grp, j.ht, j.e2e,
--@ SELECT wrap(CASE WHEN n.in_joined THEN 'j.' || l.name ELSE 'NULL AS ' || l.name END,
--@   -92, '    ', ', ')
--@ FROM gen_list AS l JOIN gen_in AS n ON n.name = l.name WHERE l.list = 'sum'
  FROM ntp_joined AS j
  JOIN ntp_report_group AS g ON g.hdb = j.hdb AND g.grp = j.grp AND g.mode = 'joined'
  WHERE (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok)
  UNION ALL
  SELECT h.db, h.grp, h.t, h.e2e,
--@ SELECT wrap(CASE WHEN n.in_host THEN 'h.' || l.name ELSE 'NULL' END, -92, '    ', ', ')
--@ FROM gen_list AS l JOIN gen_in AS n ON n.name = l.name WHERE l.list = 'sum'
  FROM ntp_host_cmd AS h
  JOIN ntp_report_group AS g ON g.hdb = h.db AND g.grp = h.grp AND g.mode = 'host'
), r AS (
  SELECT c.*,
    row_number() OVER (PARTITION BY hdb, grp ORDER BY e2e, ht) AS rn,
    count(*) OVER (PARTITION BY hdb, grp) AS n
  FROM c
), b AS (
  SELECT r.*,
    CASE WHEN rn <= (n * 50000 + 99999) / 100000 THEN 1
      WHEN rn <= (n * 90000 + 99999) / 100000 THEN 2
      WHEN rn <= (n * 99000 + 99999) / 100000 THEN 3
      WHEN rn <= (n * 99900 + 99999) / 100000 THEN 4
      ELSE 5 END AS band_ord
  FROM r
)
SELECT hdb, grp, band_ord,
  count(*) AS n, min(e2e) AS e2e_min_ns, max(e2e) AS e2e_max_ns, sum(e2e) AS sum_e2e,
--@ SELECT wrap('sum(' || name || ') AS s_' || name, -92, '  ', ', ') FROM gen_list WHERE list = 'sum'
FROM b
GROUP BY hdb, grp, band_ord;

-- Where the time of the slow commands goes: per group, tail band
-- (_ntp_tail_band: the commands cut at the p50, p90, p99 and p99.9 of the
-- end to end) and stage of the group's report (ntp_report_stage), the
-- band's commands and end to end, and the stage's mean over them with its
-- share of their mean end to end. A stage is the sum of its components
-- (vocab.sql, component.stage_joined or stage_local), a missing one
-- counting 0, as in ntp_report_stage: the bands' means weighted by their
-- commands are the group's stage means. The per-stage p99s do not add up
-- to the end to end's; these do. A band without commands (a group of
-- fewer than 1000) has no rows.
CREATE TEMP VIEW ntp_report_tail AS
WITH x AS (
  SELECT b.*, g.mode AS mode, s.ord AS ord, s.stage AS stage, s.label AS label,
    (SELECT total(CASE k.name
--@ SELECT wrap('WHEN ''' || name || ''' THEN b.s_' || name, -92, '       ', ' ') || ' END)'
--@ FROM gen_list WHERE list = 'sum'
     FROM component AS k
     WHERE s.stage = CASE g.mode WHEN 'joined' THEN k.stage_joined ELSE k.stage_local END)
      AS stage_ns
  FROM _ntp_tail_band AS b
  JOIN ntp_report_group AS g ON g.hdb = b.hdb AND g.grp = b.grp
  JOIN ntp_report_stage AS s ON s.hdb = b.hdb AND s.grp = b.grp
), k(band_ord, band) AS (
  VALUES (1, 'p0-50'), (2, 'p50-90'), (3, 'p90-99'), (4, 'p99-99.9'), (5, 'p99.9-100')
)
SELECT
  x.hdb AS hdb,                -- host database
  x.grp AS grp,                -- grp.id there
  x.band_ord AS band_ord,      -- 1 to 5, fastest band first
  k.band AS band,              -- 'p0-50', 'p50-90', 'p90-99', 'p99-99.9', 'p99.9-100'
  x.n AS n,                    -- the band's commands
  x.e2e_min_ns AS e2e_min_ns,  -- their least end to end, ns
  x.e2e_max_ns AS e2e_max_ns,  -- their largest, ns
  x.sum_e2e * 1.0 / x.n AS e2e_mean_ns, -- their mean end to end, ns
  x.ord AS ord,                -- stage order
  x.stage AS stage,            -- stage.name
  x.label AS label,            -- as the report prints it
  x.stage_ns / x.n AS mean_ns, -- the stage's mean over the band's commands, ns
  x.stage_ns / x.sum_e2e AS share, -- of their mean end to end
  -- 1: the band's largest stage (the first in stage order on a tie)
  row_number() OVER (PARTITION BY x.hdb, x.grp, x.band_ord
                     ORDER BY x.stage_ns DESC, x.ord) = 1 AS largest
FROM x
JOIN k ON k.band_ord = x.band_ord
ORDER BY x.hdb, x.grp, x.band_ord, x.ord;

-- The tail bands of `ntprof report --detail`: per group, stage and band,
-- ntp_report_tail's numbers formatted, us; every band, one without
-- commands (a group of fewer than 1000) with 0 commands and '-'.
CREATE TEMP VIEW _ntp_text_tail AS
WITH k(band_ord, band) AS (
  VALUES (1, 'p0-50'), (2, 'p50-90'), (3, 'p90-99'), (4, 'p99-99.9'), (5, 'p99.9-100')
), s AS (
  SELECT DISTINCT hdb, grp, ord, label FROM ntp_report_tail
)
SELECT
  s.hdb AS hdb,                               -- host database
  s.grp AS grp,                               -- grp.id there
  k.band_ord AS band_ord,                     -- 1 to 5
  k.band AS band,                             -- 'p0-50' ...
  coalesce(t.n, 0) AS n,                      -- the band's commands
  CASE WHEN t.n IS NULL THEN '-'
    ELSE printf('%.2f', t.e2e_mean_ns / 1e3) END AS e2e_mean_us, -- their mean end to end
  s.ord AS ord,                               -- stage order
  s.label AS label,                           -- stage label
  CASE WHEN t.n IS NULL THEN '-'
    ELSE printf('%.2f', t.mean_ns / 1e3) END AS mean_us, -- the stage's mean over them
  CASE WHEN t.n IS NULL THEN ''
    ELSE printf('%.0f%%', 100 * t.share) END AS share, -- of their mean end to end
  coalesce(t.largest, 0) AS largest           -- 1: the band's largest stage
FROM s
CROSS JOIN k
LEFT JOIN ntp_report_tail AS t
  ON t.hdb = s.hdb AND t.grp = s.grp AND t.ord = s.ord AND t.band_ord = k.band_ord;

-- The buckets of the histograms, one row each: k = -2 (below 0), -1 ([0, 1)
-- us) and 0 to 60 ([2^k, 2^(k+1)) us), with their bounds.
CREATE TEMP TABLE _ntp_hist_bucket (
  -- The bucket number k.
  k INTEGER PRIMARY KEY,
  -- Its lower bound, us; NULL for the bucket below 0.
  lo_us INTEGER,
  -- Its upper bound, us, not included.
  hi_us INTEGER NOT NULL
);
INSERT INTO _ntp_hist_bucket
WITH RECURSIVE ks(k) AS (SELECT -2 UNION ALL SELECT k + 1 FROM ks WHERE k < 60)
SELECT k, CASE WHEN k >= 0 THEN 1 << k WHEN k = -1 THEN 0 END,
  CASE WHEN k >= 0 THEN 1 << (k + 1) WHEN k = -1 THEN 1 ELSE 0 END
FROM ks;

-- Per group and component and per group and stage (_ntp_report_cmd_value),
-- each log2 bucket of ntp_report_hist below that holds values: its count.
-- k: floor(log2(v / 1 us)) for v >= 1 us, -1 for [0, 1) us, -2 below 0.
-- (Counted by GROUP BY, not by a window over every value: 6.8 s against
-- 9.3 s for one distribution of 1 M commands. native.sql counts them in
-- the scans of the report's statistics, and a prepared run keeps the
-- histograms.)
CREATE TEMP VIEW _ntp_report_hist_count AS
WITH v AS (
  -- each value's bucket: floor(log2(u)) of u >= 1 us in integers, 4 bits
  -- per hex digit of u, then the top digit's own (1 -> 0, 2-3 -> 1,
  -- 4-7 -> 2, 8-f -> 3)
  SELECT hdb, grp, kind, name,
    CASE WHEN ns < 0 THEN -2 WHEN ns < 1000 THEN -1
      ELSE 4 * (length(printf('%x', ns / 1000)) - 1)
        + CAST(substr('011222233333333',
                      instr('123456789abcdef', substr(printf('%x', ns / 1000), 1, 1)), 1)
               AS INTEGER) END AS k
  FROM _ntp_report_cmd_value
)
SELECT
  hdb,                         -- host database
  grp,                         -- grp.id there
  kind,                        -- 'component' or 'stage'
  name,                        -- component.name or stage.name
  k,                           -- the bucket
  count(*) AS n                -- its values
FROM v
GROUP BY hdb, grp, kind, name, k;

-- Log2 latency histograms in biolatency's layout, per group and component
-- and per group and stage (_ntp_report_cmd_value): bucket k holds the
-- values v with 2^k <= v/1 us < 2^(k+1); below them [0, 1) us, and one
-- bucket below 0 if any value is negative. Every bucket from the lowest
-- ([0, 1) us, or below 0) to the highest that holds a value has a row, the
-- empty ones with count 0; the counts of a histogram add up to its values.
-- (Partitioned by the distribution first: a query for one component or
-- stage reads only its values.)
CREATE TEMP VIEW ntp_report_hist AS
WITH r AS (
  -- per bucket with values: the next such bucket, whether it is the
  -- lowest, and the fullest bucket's count
  SELECT hdb, grp, kind, name, k, n,
    lead(k) OVER d AS next_k,
    row_number() OVER d AS nth,
    max(n) OVER (d ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS top
  FROM _ntp_report_hist_count
  WINDOW d AS (PARTITION BY hdb, grp, kind, name ORDER BY k)
)
-- each bucket with values, the empty ones up to the next, and below the
-- lowest the empty ones down to [0, 1) us: one source of rows, so a query
-- for one distribution reads only its values
SELECT
  r.hdb AS hdb,                -- host database
  r.grp AS grp,                -- grp.id there
  r.kind AS kind,              -- 'component' or 'stage'
  r.name AS name,              -- component.name or stage.name
  b.k AS bucket,               -- k: [2^k, 2^(k+1)) us; -1: [0, 1); -2: below 0
  b.lo_us AS lo_us,            -- from, us (NULL: below 0)
  b.hi_us AS hi_us,            -- up to (not included), us
  CASE WHEN b.k = r.k THEN r.n ELSE 0 END AS count, -- values in the bucket
  -- biolatency's stars: 40 x count / the fullest's, rounded down
  CASE WHEN b.k = r.k THEN r.n ELSE 0 END * 40 / r.top AS bar
FROM r
JOIN _ntp_hist_bucket AS b
  ON b.k BETWEEN CASE WHEN r.nth = 1 THEN min(r.k, -1) ELSE r.k END
             AND coalesce(r.next_k - 1, r.k)
ORDER BY r.hdb, r.grp, r.kind, r.name, b.k;

-- The cumulative distribution per group and component and per group and
-- stage (_ntp_report_cmd_value): one row per distinct value, with the share
-- of the values at or below it. The last row of each has fraction 1.
CREATE TEMP VIEW ntp_report_cdf AS
WITH r AS (
  -- one sort: each value's rank; the last of equal values counts them all
  SELECT hdb, grp, kind, name, ns,
    row_number() OVER w AS cum,
    count(*) OVER a AS total,
    lead(ns) OVER w AS next
  FROM _ntp_report_cmd_value
  WINDOW w AS (PARTITION BY hdb, grp, kind, name ORDER BY ns),
    a AS (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
), d AS (
  SELECT *, lag(cum, 1, 0) OVER (PARTITION BY hdb, grp, kind, name ORDER BY ns) AS before
  FROM r
  WHERE next IS NULL OR next > ns
)
SELECT
  hdb,                         -- host database
  grp,                         -- grp.id there
  kind,                        -- 'component' or 'stage'
  name,                        -- component.name or stage.name
  ns,                          -- the value, ns
  cum - before AS n,           -- values equal to it
  cum,                         -- values at or below it
  total,                       -- values in all
  cum * 1.0 / total AS fraction -- cum / total
FROM d
ORDER BY hdb, grp, kind, name, ns;

-- ntp_report_cdf thinned out for reading (.cdf): a distribution's first
-- value, each value at which the cumulative share passes a whole percent,
-- above 99 % each tenth of a percent, and the last value (fraction 1), in
-- integers: per mille at or below the value before, a, and at or below
-- this one, b. native.sql selects them in the scans of the report's
-- statistics, without a sort, and a prepared run keeps them.
CREATE TEMP VIEW _ntp_report_cdf_point AS
WITH r AS (
  SELECT *, 1000 * (cum - n) / total AS a, 1000 * cum / total AS b
  FROM ntp_report_cdf
)
SELECT hdb, grp, kind, name, ns, n, cum, total, fraction -- as ntp_report_cdf's
FROM r
WHERE cum = n OR b / 10 > a / 10 OR (b > a AND b >= 990)
ORDER BY hdb, grp, kind, name, ns;

-- The width of the time series' buckets, one row, 1 s unless changed:
-- UPDATE ntp_bucket SET width_ns = 500000000; for 0.5 s.
CREATE TEMP TABLE ntp_bucket (
  -- Bucket width, ns (> 0).
  width_ns INTEGER NOT NULL CHECK (width_ns > 0)
);
INSERT INTO ntp_bucket VALUES (1000000000);

-- Each host's commands with their end to end alone, and each target's with
-- its residence: what the time series' end to end (_ntp_series_e2e) and
-- the shell's .slowest read. native.sql caches them with the prepared run,
-- so a later question reads four columns, not the recordings' views.
CREATE TEMP VIEW _ntp_host_e2e AS
SELECT
  h.db AS db,                  -- host database
  h.grp AS grp,                -- grp.id there
  h.t AS t,                    -- cmd.t
  h.e2e AS e2e                 -- end to end, ns
FROM ntp_host_cmd AS h;

CREATE TEMP VIEW _ntp_target_e2e AS
SELECT
  x.db AS db,                  -- target database
  x.grp AS grp,                -- grp.id there
  x.t AS t,                    -- cmd.t
  x.t_e2e AS e2e               -- residence, ns
FROM ntp_target_cmd AS x;

-- Every command of every form of the time series, with its bucket and its
-- components (NULL where the form has none): 'host', each host's commands
-- (ntp_host_cmd); 'target', each target's (ntp_target_cmd); 'joined', the
-- matched commands of the joins ntp_join_check accepts (ntp_joined), on
-- the host's clock. A bucket counts from
-- the recording's first command (_ntp_series_grp.first_t), so bucket b is
-- [b x width, (b + 1) x width) after it.
CREATE TEMP VIEW _ntp_series_cmd AS
SELECT
  'host' AS form, h.db AS db, h.grp AS grp,
  (h.t - o.first_t) / w.width_ns AS bucket,
  h.e2e AS e2e,                -- end to end (target: residence)
--@ SELECT wrap(CASE WHEN n.in_host THEN 'h.' || l.name ELSE 'NULL' END || ' AS ' || l.name,
--@   -92, '  ', ', ')
--@ FROM gen_list AS l JOIN gen_in AS n ON n.name = l.name WHERE l.list = 'part'
FROM ntp_host_cmd AS h
JOIN _ntp_series_grp AS o ON o.db = h.db AND o.grp = h.grp
CROSS JOIN ntp_bucket AS w
UNION ALL
SELECT 'target', x.db, x.grp, (x.t - o.first_t) / w.width_ns, x.t_e2e,
--@ SELECT wrap(CASE WHEN n.in_target THEN 'x.' || l.name ELSE 'NULL' END, -92, '  ', ', ')
--@ FROM gen_list AS l JOIN gen_in AS n ON n.name = l.name WHERE l.list = 'part'
FROM ntp_target_cmd AS x
JOIN _ntp_series_grp AS o ON o.db = x.db AND o.grp = x.grp
CROSS JOIN ntp_bucket AS w
UNION ALL
SELECT 'joined', j.hdb, j.grp, (j.ht - o.first_t) / w.width_ns, j.e2e,
--@ SELECT wrap(CASE WHEN n.in_joined THEN 'j.' || l.name ELSE 'NULL' END, -92, '  ', ', ')
--@ FROM gen_list AS l JOIN gen_in AS n ON n.name = l.name WHERE l.list = 'part'
FROM ntp_joined AS j
JOIN _ntp_series_grp AS o ON o.db = j.hdb AND o.grp = j.grp
CROSS JOIN ntp_bucket AS w
WHERE (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok);

-- Per form, recording, group and bucket with a command: its commands, the
-- sum and the exact nearest-rank p99 of their end to end, and the sum of
-- each component (NULL: none there). Windows partitioned by the bucket and
-- GROUP BY the bucket, so a query for one form reads only its commands.
CREATE TEMP VIEW _ntp_series_agg AS
WITH s AS (
  SELECT form, db, grp, bucket, count(*) AS n, sum(e2e) AS sum_e2e,
--@ SELECT wrap('sum(' || name || ') AS s_' || name, -92, '    ', ', ')
--@ FROM gen_list WHERE list = 'part'
  FROM _ntp_series_cmd
  GROUP BY form, db, grp, bucket
), p AS (
  -- the end to end at the p99's rank, (n q' + 99999) / 100000
  SELECT * FROM (
    SELECT form, db, grp, bucket, e2e,
      row_number() OVER w AS rn,
      count(*) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS n
    FROM _ntp_series_cmd
    WINDOW w AS (PARTITION BY form, db, grp, bucket ORDER BY e2e))
  WHERE rn = (n * 99000 + 99999) / 100000
)
SELECT
  s.form,                      -- 'host', 'target' or 'joined'
  s.db,                        -- the recording (joined: the host's)
  s.grp,                       -- grp.id there
  s.bucket,                    -- bucket number, from 0
  s.n,                         -- its commands
  s.sum_e2e,                   -- the sum of their end to end, ns
  p.e2e AS p99_ns,             -- its 99th percentile, ns
  -- the sums of the components, ns (NULL: none there)
--@ SELECT wrap('s.s_' || name, -92, '  ', ', ') FROM gen_list WHERE list = 'part'
FROM s
JOIN p ON p.form = s.form AND p.db = s.db AND p.grp = s.grp AND p.bucket = s.bucket;

-- _ntp_series_agg's end to end alone, what ntp_series shows: per form,
-- recording, group and bucket its commands, the sum and the p99 of their
-- end to end. Over _ntp_host_e2e and _ntp_target_e2e, which leave the
-- components out (most of a scan's cost) and which a prepared run holds
-- (plain sqlite3 over a prepared run reads four columns per command, not
-- the recordings' views); native.sql buckets them without a sort. A
-- session that has computed _ntp_series_agg anyway reads it from there
-- instead (_ntp_series_e2e_of_agg: ntprof plot).
CREATE TEMP VIEW _ntp_series_e2e_of_agg AS
SELECT form, db, grp, bucket, n, sum_e2e, p99_ns FROM _ntp_series_agg;

CREATE TEMP VIEW _ntp_series_e2e AS
WITH RECURSIVE g AS (
  -- per form, recording and group: where its buckets start (the
  -- recording's first command) and its last command's t (NULL: none),
  -- found from the end. A query for some forms reads only theirs.
  SELECT 'host' AS form, o.db AS db, o.grp AS grp, o.first_t AS first_t, w.width_ns AS w,
    (SELECT h.t FROM _ntp_host_e2e AS h WHERE h.db = o.db AND +h.grp = o.grp
     ORDER BY h.t DESC LIMIT 1) AS last_t
  FROM _ntp_series_grp AS o
  CROSS JOIN ntp_bucket AS w
  WHERE o.db IN (SELECT db FROM ntp_db WHERE role = 'host')
  UNION ALL
  SELECT 'target', o.db, o.grp, o.first_t, w.width_ns,
    (SELECT x.t FROM _ntp_target_e2e AS x WHERE x.db = o.db AND +x.grp = o.grp
     ORDER BY x.t DESC LIMIT 1)
  FROM _ntp_series_grp AS o
  CROSS JOIN ntp_bucket AS w
  WHERE o.db IN (SELECT db FROM ntp_db WHERE role = 'target')
  UNION ALL
  SELECT 'joined', o.db, o.grp, o.first_t, w.width_ns,
    (SELECT j.ht FROM ntp_joined AS j WHERE j.hdb = o.db AND +j.grp = o.grp
       AND (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok)
     ORDER BY j.ht DESC LIMIT 1)
  FROM _ntp_series_grp AS o
  CROSS JOIN ntp_bucket AS w
  WHERE o.db IN (SELECT hdb FROM _ntp_join_ok)
), k(k) AS (
  -- bucket numbers, up to the most any group has
  SELECT 0
  UNION ALL
  SELECT k + 1 FROM k WHERE k < (SELECT max((last_t - first_t) / w) FROM g)
), b AS (
  -- each group's buckets up to its last command's: bucket k is [lo, hi)
  SELECT g.form, g.db, g.grp, k.k AS bucket, g.first_t + k.k * g.w AS lo,
    g.first_t + (k.k + 1) * g.w AS hi
  FROM g
  JOIN k ON k.k <= (g.last_t - g.first_t) / g.w
  WHERE g.last_t IS NOT NULL
), c AS (
  -- each bucket's commands: a range of t in the recording (of the rowid
  -- of cmd, or of the key of the prepared run's tables), each one's group
  -- tested; [count, sum] of their end to end, one argument of json_each:
  -- computed once (a column of the subquery's would be computed again for
  -- each use), and k, where the p99's rank (n q' + 99999) / 100000 lies
  -- counted down from the largest, from 0
  SELECT b.*, e.value AS cs, json_extract(e.value, '$[0]')
    - (json_extract(e.value, '$[0]') * 99000 + 99999) / 100000 AS k
  FROM b
  CROSS JOIN json_each(json_array(CASE b.form
    WHEN 'host' THEN (SELECT json_array(count(*), sum(h.e2e)) FROM _ntp_host_e2e AS h
      WHERE h.db = b.db AND h.t >= b.lo AND h.t < b.hi AND +h.grp = b.grp)
    WHEN 'target' THEN (SELECT json_array(count(*), sum(x.e2e)) FROM _ntp_target_e2e AS x
      WHERE x.db = b.db AND x.t >= b.lo AND x.t < b.hi AND +x.grp = b.grp)
    ELSE (SELECT json_array(count(*), sum(j.e2e)) FROM ntp_joined AS j
      WHERE j.hdb = b.db AND j.ht >= b.lo AND j.ht < b.hi AND +j.grp = b.grp
        AND (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok)) END)) AS e
)
-- the buckets with a command: their count, sum and p99, the value at k of
-- its commands sorted largest first. Each bucket's values are sorted on
-- their own, not every command in one sort (a window function's numbering
-- cost twice a sort); where k is small, only the largest few are kept (a
-- sort with a LIMIT: over 1 M commands in buckets of 2,000, 0.12 s
-- keeping 32, 0.18 s keeping 256, 0.22 s for a whole sort, which keeping
-- 1,024 passes)
SELECT c.form, c.db, c.grp, c.bucket, json_extract(c.cs, '$[0]') AS n,
  json_extract(c.cs, '$[1]') AS sum_e2e, CASE c.form
    WHEN 'host' THEN CASE
      WHEN c.k < 32 THEN (SELECT json_extract(json_group_array(e2e), '$[' || c.k || ']')
        FROM (SELECT h.e2e AS e2e FROM _ntp_host_e2e AS h
          WHERE h.db = c.db AND h.t >= c.lo AND h.t < c.hi AND +h.grp = c.grp
          ORDER BY h.e2e DESC LIMIT 32))
      WHEN c.k < 256 THEN (SELECT json_extract(json_group_array(e2e), '$[' || c.k || ']')
        FROM (SELECT h.e2e AS e2e FROM _ntp_host_e2e AS h
          WHERE h.db = c.db AND h.t >= c.lo AND h.t < c.hi AND +h.grp = c.grp
          ORDER BY h.e2e DESC LIMIT 256))
      ELSE (SELECT json_extract(json_group_array(e2e), '$[' || c.k || ']')
        FROM (SELECT h.e2e AS e2e FROM _ntp_host_e2e AS h
          WHERE h.db = c.db AND h.t >= c.lo AND h.t < c.hi AND +h.grp = c.grp
          ORDER BY h.e2e DESC)) END
    WHEN 'target' THEN CASE
      WHEN c.k < 32 THEN (SELECT json_extract(json_group_array(e2e), '$[' || c.k || ']')
        FROM (SELECT x.e2e AS e2e FROM _ntp_target_e2e AS x
          WHERE x.db = c.db AND x.t >= c.lo AND x.t < c.hi AND +x.grp = c.grp
          ORDER BY x.e2e DESC LIMIT 32))
      WHEN c.k < 256 THEN (SELECT json_extract(json_group_array(e2e), '$[' || c.k || ']')
        FROM (SELECT x.e2e AS e2e FROM _ntp_target_e2e AS x
          WHERE x.db = c.db AND x.t >= c.lo AND x.t < c.hi AND +x.grp = c.grp
          ORDER BY x.e2e DESC LIMIT 256))
      ELSE (SELECT json_extract(json_group_array(e2e), '$[' || c.k || ']')
        FROM (SELECT x.e2e AS e2e FROM _ntp_target_e2e AS x
          WHERE x.db = c.db AND x.t >= c.lo AND x.t < c.hi AND +x.grp = c.grp
          ORDER BY x.e2e DESC)) END
    ELSE CASE
      WHEN c.k < 32 THEN (SELECT json_extract(json_group_array(e2e), '$[' || c.k || ']')
        FROM (SELECT j.e2e AS e2e FROM ntp_joined AS j
          WHERE j.hdb = c.db AND j.ht >= c.lo AND j.ht < c.hi AND +j.grp = c.grp
            AND (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok)
          ORDER BY j.e2e DESC LIMIT 32))
      WHEN c.k < 256 THEN (SELECT json_extract(json_group_array(e2e), '$[' || c.k || ']')
        FROM (SELECT j.e2e AS e2e FROM ntp_joined AS j
          WHERE j.hdb = c.db AND j.ht >= c.lo AND j.ht < c.hi AND +j.grp = c.grp
            AND (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok)
          ORDER BY j.e2e DESC LIMIT 256))
      ELSE (SELECT json_extract(json_group_array(e2e), '$[' || c.k || ']')
        FROM (SELECT j.e2e AS e2e FROM ntp_joined AS j
          WHERE j.hdb = c.db AND j.ht >= c.lo AND j.ht < c.hi AND +j.grp = c.grp
            AND (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok)
          ORDER BY j.e2e DESC)) END END AS p99_ns
FROM c
WHERE json_extract(c.cs, '$[0]') > 0;

-- Per recording and group, what places its buckets: its name, the
-- recording's -s, its first command and end (_ntp_series_grp) and the
-- width.
CREATE TEMP VIEW _ntp_series_geo AS
SELECT o.db, o.grp, o.name, d.sample_rate, o.first_t, o.end_ns, k.width_ns
FROM _ntp_series_grp AS o
JOIN ntp_db AS d ON d.db = o.db
CROSS JOIN ntp_bucket AS k;

-- The buckets of _ntp_series_e2e (src 'e2e') and of _ntp_series_agg ('agg',
-- with the components' sums) with what ntp_series and ntp_series_stage
-- show. A query names one src: the planner pushes it into the arms, and
-- the other is not computed.
CREATE TEMP VIEW _ntp_series_src_row AS
WITH b AS (
  SELECT s.*, g.name AS name, g.sample_rate AS sample_rate,
    s.bucket * g.width_ns AS start_ns,
    -- the bucket's length: the width; the last one ends with the recording
    CASE WHEN g.end_ns - g.first_t > s.bucket * g.width_ns
      THEN min(g.width_ns, g.end_ns - g.first_t - s.bucket * g.width_ns)
      ELSE g.width_ns END AS len_ns
  FROM (
    SELECT 'e2e' AS src, form, db, grp, bucket, n, sum_e2e, p99_ns,
--@ SELECT wrap('NULL AS s_' || name, -92, '      ', ', ') FROM gen_list WHERE list = 'part'
    FROM _ntp_series_e2e
    UNION ALL
    SELECT 'agg', form, db, grp, bucket, n, sum_e2e, p99_ns,
--@ SELECT wrap('s_' || name, -92, '      ', ', ') FROM gen_list WHERE list = 'part'
    FROM _ntp_series_agg) AS s
  JOIN _ntp_series_geo AS g ON g.db = s.db AND g.grp = s.grp
)
SELECT
  src, form, db, grp, name, bucket,
  start_ns / 1e9 AS t_s,
  len_ns / 1e9 AS dt_s,
  n AS sampled,
  1e9 * n * sample_rate / len_ns AS rate,
  sum_e2e * 1.0 / n AS mean_ns,
  p99_ns,
  sum_e2e,
--@ SELECT wrap('s_' || name, -92, '  ', ', ') FROM gen_list WHERE list = 'part'
FROM b;

-- _ntp_series_e2e's buckets with what ntp_series shows.
CREATE TEMP VIEW _ntp_series_e2e_row AS
SELECT form, db, grp, name, bucket, t_s, dt_s, sampled, rate, mean_ns, p99_ns, sum_e2e
FROM _ntp_series_src_row
WHERE src = 'e2e';

-- _ntp_series_agg's buckets with what ntp_series_stage shows: those of
-- _ntp_series_e2e_row, and the sums of the components.
CREATE TEMP VIEW _ntp_series_row AS
SELECT form, db, grp, name, bucket, t_s, dt_s, sampled, rate, mean_ns, p99_ns, sum_e2e,
--@ SELECT wrap('s_' || name, -92, '  ', ', ') FROM gen_list WHERE list = 'part'
FROM _ntp_series_src_row
WHERE src = 'agg';

-- The time series: per form, recording, group and bucket of ntp_bucket's
-- width with a command: rate, mean and p99 of the end to end. Buckets
-- without a command of the group have no row.
CREATE TEMP VIEW ntp_series AS
SELECT
  form,                        -- 'host', 'target' or 'joined'
  db,                          -- the recording (joined: the host's)
  grp,                         -- grp.id there
  name,                        -- its group name ('read 4KiB nvme1n1')
  bucket,                      -- bucket number, from 0
  t_s,                         -- bucket start, s since the recording's first command
  dt_s,                        -- bucket length, s: the width, the last one up to the end
  sampled,                     -- its sampled commands (joined: matched)
  rate,                        -- commands per second (sampled x -s / dt_s)
  mean_ns,                     -- mean end to end (target: residence), ns
  p99_ns,                      -- its 99th percentile, exact nearest rank, ns
  rate * mean_ns / 1e9 AS qd   -- commands in flight on average (Little's law)
FROM _ntp_series_e2e_row
ORDER BY form, db, grp, bucket;

-- Records lost while recording, over time: per recording, bucket of
-- ntp_bucket's width (from the recording's first command, as ntp_series)
-- and cause. The collector counts losses per interval of the recording
-- (its -i) and cause, not per record: an interval's losses are in the
-- bucket of its last nanosecond (bucket 0 when that is before the first
-- command), so they are placed no finer than the intervals are long.
CREATE TEMP VIEW ntp_series_lost AS
WITH o AS (
  SELECT db, min(first_t) AS first_t FROM _ntp_series_grp GROUP BY db
)
SELECT
  l.db AS db,                  -- the recording
  max(0, (l.stop - 1 - o.first_t) / w.width_ns) AS bucket, -- bucket number, as ntp_series'
  l.cause AS cause,            -- cause.name (vocab.sql)
  sum(l.n) AS n                -- records lost
FROM _ntp_lost_interval AS l
JOIN o ON o.db = l.db
CROSS JOIN ntp_bucket AS w
GROUP BY l.db, 2, l.cause
ORDER BY l.db, bucket, n DESC, l.cause;

-- Per group of the report and host queue (qid): the group's commands of
-- its report (ntp_command in the group's mode) on that queue, their share
-- of the group's, their rate (the group's rate times that share), their
-- end to end's mean and exact nearest-rank p50 and p99, and how many were
-- in flight on the queue on average (Little's law: rate x mean).
CREATE TEMP VIEW ntp_report_queue AS
WITH c AS (
  SELECT c.hdb, c.grp, c.qid, c.e2e,
    row_number() OVER (PARTITION BY c.hdb, c.grp, c.qid ORDER BY c.e2e) AS rn,
    count(*) OVER (PARTITION BY c.hdb, c.grp, c.qid) AS n,
    count(*) OVER (PARTITION BY c.hdb, c.grp) AS group_n
  FROM ntp_command AS c
  JOIN ntp_report_group AS g ON g.hdb = c.hdb AND g.grp = c.grp AND g.mode = c.mode
)
SELECT
  c.hdb AS hdb,                -- host database
  c.grp AS grp,                -- grp.id there
  c.qid AS qid,                -- the queue's id
  c.n AS n,                    -- the group's commands on it
  c.n * 1.0 / c.group_n AS share, -- of the group's, 0 to 1
  g.rate * c.n / c.group_n AS rate, -- commands per second
  avg(c.e2e) AS mean_ns,       -- mean end to end, ns
  max(CASE WHEN c.rn = (c.n * 50000 + 99999) / 100000 THEN c.e2e END) AS p50_ns, -- median
  max(CASE WHEN c.rn = (c.n * 99000 + 99999) / 100000 THEN c.e2e END) AS p99_ns, -- 99th
  g.rate * c.n / c.group_n * avg(c.e2e) / 1e9 AS qd -- in flight on average (Little's law)
FROM c
JOIN ntp_report_group AS g ON g.hdb = c.hdb AND g.grp = c.grp
GROUP BY c.hdb, c.grp, c.qid
ORDER BY c.hdb, c.grp, c.qid;

-- _ntp_series_row per stage: each stage's mean per command in the bucket
-- and its share of the mean end to end, with the bucket's own numbers. A
-- form's stages are those of its report: the host's and the target's
-- one-machine stages (component.stage_local), the joined path's
-- (stage_joined), each with a label for its drivers and transport.
CREATE TEMP VIEW _ntp_series_stage_row AS
WITH f AS (
  -- what names a form's stages: the recording's driver and transport; a
  -- joined group's host and target drivers as the report names them
  SELECT role AS form, db, NULL AS grp, driver AS host_driver, driver AS target_driver,
    transport
  FROM ntp_db
  UNION ALL
  SELECT 'joined', hdb, grp, host_driver, target_driver, transport
  FROM ntp_report_group
), x AS (
  SELECT s.*, st.ord AS ord, st.name AS stage, sl.label AS label,
    -- the sum of the stage's components in this form (a scalar subquery
    -- per bucket and stage, not a GROUP BY: a query for some forms then
    -- reads only theirs)
    (SELECT sum(CASE k.name
--@ SELECT wrap('WHEN ''' || name || ''' THEN s.s_' || name, -92, '       ', ' ') || ' END)'
--@ FROM gen_list WHERE list = 'part'
     FROM component AS k
     WHERE st.name = CASE s.form WHEN 'joined' THEN k.stage_joined ELSE k.stage_local END)
      AS stage_ns
  FROM _ntp_series_row AS s
  CROSS JOIN stage AS st
  JOIN f ON f.form = s.form AND f.db = s.db AND (f.grp IS NULL OR f.grp = s.grp)
  JOIN stage_label AS sl ON sl.stage = st.name
    AND sl.flavour = CASE st.side WHEN 'transport' THEN f.transport
                     WHEN 'host' THEN f.host_driver ELSE f.target_driver END
)
SELECT
  form, db, grp, name, bucket, t_s, dt_s, sampled, rate, mean_ns, p99_ns, ord, stage, label,
  stage_ns * 1.0 / sampled AS stage_mean_ns,
  stage_ns * 1.0 / sum_e2e AS share
FROM x
WHERE stage_ns IS NOT NULL;

-- The stages over time: per form, recording, group and bucket (as
-- ntp_series), each stage's mean per command and its share of the mean end
-- to end. A form's stages are those of its report: the host's and the
-- target's one-machine stages (component.stage_local), the joined path's
-- (stage_joined), those with a label for its drivers and transport.
CREATE TEMP VIEW ntp_series_stage AS
SELECT
  form,                        -- 'host', 'target' or 'joined'
  db,                          -- the recording (joined: the host's)
  grp,                         -- grp.id there
  bucket,                      -- as ntp_series
  t_s,                         -- bucket start, s
  ord,                         -- stage order
  stage,                       -- stage.name
  label,                       -- its label
  stage_mean_ns AS mean_ns,    -- mean per command in the bucket, ns
  share                        -- of the mean end to end
FROM _ntp_series_stage_row
ORDER BY form, db, grp, bucket, ord;

-- The series of a report's groups, each group's in its mode: ntp_series'
-- and _ntp_series_stage_row's rows of the 'host' form for the host's
-- groups, of the 'joined' one for the joined groups. Each arm's form is a
-- constant, pushed down into the series, and its EXISTS is tested before
-- the series is computed: a run whose groups are all joined never computes
-- the hosts' own series, nor one whose groups are all the host's the
-- join's.
CREATE TEMP VIEW _ntp_report_series_form AS
SELECT s.*
FROM ntp_report_group AS g
JOIN ntp_series AS s ON s.form = 'host' AND s.db = g.hdb AND s.grp = g.grp
WHERE g.mode = 'host' AND EXISTS (SELECT 1 FROM ntp_report_group WHERE mode = 'host')
UNION ALL
SELECT s.*
FROM ntp_report_group AS g
JOIN ntp_series AS s ON s.form = 'joined' AND s.db = g.hdb AND s.grp = g.grp
WHERE g.mode = 'joined' AND EXISTS (SELECT 1 FROM ntp_report_group WHERE mode = 'joined');

CREATE TEMP VIEW _ntp_report_stage_form AS
SELECT s.*
FROM ntp_report_group AS g
JOIN _ntp_series_stage_row AS s ON s.form = 'host' AND s.db = g.hdb AND s.grp = g.grp
WHERE g.mode = 'host' AND EXISTS (SELECT 1 FROM ntp_report_group WHERE mode = 'host')
UNION ALL
SELECT s.*
FROM ntp_report_group AS g
JOIN _ntp_series_stage_row AS s ON s.form = 'joined' AND s.db = g.hdb AND s.grp = g.grp
WHERE g.mode = 'joined' AND EXISTS (SELECT 1 FROM ntp_report_group WHERE mode = 'joined');

-- The report's groups over time: each group's series in its mode (a joined
-- group's matched commands, a host group's every command), as ntp_series.
CREATE TEMP VIEW ntp_report_series AS
SELECT
  s.db AS hdb,                 -- host database
  s.grp AS grp,                -- grp.id there
  s.bucket AS bucket,          -- bucket number
  s.t_s AS t_s,                -- bucket start, s since the host's first command
  s.dt_s AS dt_s,              -- bucket length, s
  s.sampled AS cmds,           -- its commands (joined: matched)
  s.rate AS rate,              -- commands per second
  s.mean_ns AS mean_ns,        -- mean end to end, ns
  s.p99_ns AS p99_ns,          -- 99th percentile, ns
  s.qd AS qd                   -- commands in flight on average (Little's law)
FROM _ntp_report_series_form AS s
ORDER BY s.db, s.grp, s.bucket;

-- The report's stages over time: each group's ntp_series_stage rows in its
-- mode.
CREATE TEMP VIEW ntp_report_series_stage AS
SELECT
  s.db AS hdb,                 -- host database
  s.grp AS grp,                -- grp.id there
  s.bucket AS bucket,          -- bucket number
  s.t_s AS t_s,                -- bucket start, s
  s.ord AS ord,                -- stage order
  s.stage AS stage,            -- stage.name
  s.label AS label,            -- its label
  s.stage_mean_ns AS mean_ns,  -- mean per command, ns
  s.share AS share             -- of the mean end to end
FROM _ntp_report_stage_form AS s
ORDER BY s.db, s.grp, s.bucket, s.ord;

-- The width as `ntprof report --timeline` prints it, one row: seconds with
-- the decimals the width needs ('1', '0.5', '0.25'), and that many.
CREATE TEMP VIEW _ntp_text_series_width AS
SELECT
  s AS width_s,                                -- the width, s
  CASE WHEN instr(s, '.') THEN length(s) - instr(s, '.') ELSE 0 END AS decimals
FROM (SELECT rtrim(rtrim(printf('%.9f', width_ns / 1e9), '0'), '.') AS s FROM ntp_bucket);

-- The time series of `ntprof report --timeline`: per group, bucket and stage
-- (in stage order), the bucket's numbers and the stage's mean, formatted;
-- us. Over _ntp_series_stage_row alone: one sort for all of it.
CREATE TEMP VIEW _ntp_text_series AS
SELECT
  g.hdb AS hdb,                -- host database
  g.grp AS grp,                -- grp.id there
  g.name AS name,              -- report name
  g.queue = 'io' AS io,        -- 1: an I/O group
  x.bucket AS bucket,          -- bucket number
  printf('%.*f', w.decimals, x.t_s) AS t_s,   -- bucket start, s
  printf('%.0f', x.rate) AS rate,             -- commands per second
  printf('%.2f', x.mean_ns / 1e3) AS mean_us, -- mean end to end
  printf('%.2f', x.p99_ns / 1e3) AS p99_us,   -- its 99th percentile
  x.ord AS ord,                -- stage order
  x.stage AS stage,            -- stage.name: the column's heading
  printf('%.2f', x.stage_mean_ns / 1e3) AS stage_us -- its mean per command
FROM ntp_report_group AS g
JOIN _ntp_report_stage_form AS x ON x.db = g.hdb AND x.grp = g.grp
CROSS JOIN _ntp_text_series_width AS w
ORDER BY g.queue != 'io', g.hdb, g.grp, x.bucket, x.ord;
