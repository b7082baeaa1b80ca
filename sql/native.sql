-- ntprof native: ntp_report_component_stats of report.sql again, computed with the
-- native aggregate ntp_dist() (lib/native.c; for sqlite3, `.load` the
-- installed ntprof_sqlite.so, then `.read` this file after the set-up SQL).
-- Same columns and the same numbers as the portable view (tests compare
-- them), but one scan and no sort: ntp_dist(x1, ..., xN) returns
-- [[n, sum, p50, p99, p999, p90], ...] for its N arguments, percentiles
-- exact nearest-rank at rank (n q' + 99999) / 100000 as in report.sql, and
-- the mean is sum / n, which is what avg() computes. Further down, views of
-- stats.sql and compare.sql get forms over ntp_dist too.

-- (its cache is then this view's rows: report.sql's faster builder is for
-- the portable view)
UPDATE _ntp_form SET native = 1;

-- The arguments of the per-group aggregates below, in their order: a
-- joined group's over ntp_joined (the components of the joined path and
-- the host's end to end), a host group's over ntp_host_cmd (the host's
-- components of its own report and its end to end), each in path order
-- (vocab.sql's component.ord). The aggregates' argument lists name them
-- in this order: tests compare the views with their portable forms.
CREATE TEMP VIEW _ntp_native_arg AS
SELECT
  'joined' AS mode,                              -- the group's report mode
  row_number() OVER (ORDER BY ord) - 1 AS idx,   -- the argument's place, from 0
  name AS component                              -- component.name
FROM component
WHERE stage_joined IS NOT NULL OR (total = 1 AND role = 'host')
UNION ALL
SELECT 'host', row_number() OVER (ORDER BY ord) - 1, name
FROM component
WHERE role = 'host' AND (stage_local IS NOT NULL OR total = 1);
-- The report's groups, numbered in its order, for the native scans below
-- that compute many groups' aggregates at once (ntp_dist_cdf_by): each
-- group's place in their lists and results, its mode, its commands (the
-- matched ones, or the host's own) and its part. The groups of one mode
-- are scanned together, part by part: a part's values (its commands times
-- the components') fit the budget the aggregates hold them in
-- (ntp_select_budget()), where all of them might not (two runs of 1 M
-- commands compared): groups held at once that pass it write their values
-- out, which costs more than a scan. A group larger than the budget is a
-- part alone, and writes out as it would alone.
CREATE TEMP VIEW _ntp_native_group AS
WITH g AS (
  SELECT
    row_number() OVER (ORDER BY queue != 'io', hdb, grp) - 1 AS i,
    hdb, grp, mode, CASE mode WHEN 'joined' THEN matched ELSE sampled END AS n
  FROM ntp_report_group
)
SELECT
  i,                           -- its place, from 0
  hdb,                         -- host database
  grp,                         -- grp.id there
  mode,                        -- joined or host
  n,                           -- its commands
  -- its part: the commands of its mode up to it, over how many the budget
  -- holds of every component (4 bytes a value)
  (sum(n) OVER (PARTITION BY mode ORDER BY i ROWS UNBOUNDED PRECEDING) - 1)
    / max(1, ntp_select_budget()
             / (4 * (SELECT count(*) FROM _ntp_native_arg WHERE mode = 'joined'))) AS part
FROM g;
-- Per mode and part, its groups as ntp_dist_cdf_by lists them ("I HEX G N").
CREATE TEMP VIEW _ntp_native_group_list AS
SELECT
  mode,                                                        -- joined or host
  part,                                                        -- _ntp_native_group's
  group_concat(i || ' ' || hex(hdb) || ' ' || grp || ' ' || n, ';') AS list, -- the list
  -- its host database when it has one (compared runs: a part per host),
  -- so that its scan passes the other hosts' commands by before their
  -- values are read; NULL: several
  CASE WHEN count(DISTINCT hdb) = 1 THEN min(hdb) END AS hdb
FROM _ntp_native_group
GROUP BY mode, part;
INSERT INTO _ntp_view_plan VALUES ('_ntp_native_group', NULL, 0, 1),
  ('_ntp_native_group_list', NULL, 0, 1);

-- Per group of the report, its commands (the join's matched ones or the
-- host's own, as its mode says) through ntp_dist_cdf() of the components,
-- in _ntp_native_arg's order: one scan of the joined commands for every
-- joined group and one of the hosts' commands for every host group
-- (ntp_dist_cdf_by, lib/native.c; a subquery per group scanned every
-- command once per group), giving the statistics of
-- ntp_report_component_stats below, the CDF lines of _ntp_plot_cdf_line,
-- and the CDF points and histograms of _ntp_native_shape further down.
-- Cached before the statistics (_ntp_view_plan), so a prepared run holds
-- the CDF lines too (IF NOT EXISTS: sqlite3 that reads this file after a
-- set-up over a prepared run has this view already, a read of the kept
-- rows).
CREATE TEMP VIEW IF NOT EXISTS _ntp_component_dist AS
WITH s AS MATERIALIZED (
  -- the lists, a table: read by each scan's every row, a view's would cost
  -- a fifth of a scan more
  SELECT * FROM _ntp_native_group_list
), r AS MATERIALIZED (
  -- one scan of the joined commands for all the joined groups of a part,
  -- of the accepted joins (the per-command test only where a join was
  -- refused); every join accepted, the join's tap has them without a scan
  -- (below, _ntp_prepare_wrap)
  SELECT coalesce(
    CASE WHEN (SELECT min(all_ok) FROM _ntp_grp_join_ok) THEN ntp_tap_take(s.list, 0) END,
    (SELECT ntp_dist_cdf_by(s.list, j.hdb, j.grp,
--@ SELECT wrap(name, -92, '      ', ', ') || ')' FROM gen_list WHERE list = 'joined'
     FROM ntp_joined AS j
     WHERE (s.hdb IS NULL OR +j.hdb = s.hdb)
       AND ((SELECT min(all_ok) FROM _ntp_grp_join_ok)
            OR (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok)))) AS x
  FROM s
  WHERE s.mode = 'joined'
  UNION ALL
  -- one scan of the hosts' commands for all the host groups of a part
  SELECT (
    SELECT ntp_dist_cdf_by(s.list, c.db, c.grp,
--@ SELECT wrap(name, -92, '      ', ', ') || ')' FROM gen_list WHERE list = 'host'
    FROM ntp_host_cmd AS c
    WHERE s.hdb IS NULL OR +c.db = s.hdb)
  FROM s
  WHERE s.mode = 'host'
)
SELECT
  l.hdb AS hdb,                -- host database
  l.grp AS grp,                -- grp.id there
  l.mode AS mode,              -- joined or host
  d.dc AS dc                   -- ntp_dist_cdf's four arrays
FROM _ntp_native_group AS l
LEFT JOIN (SELECT json_extract(e.value, '$[0]') AS i, json_extract(e.value, '$[1]') AS dc
           FROM r CROSS JOIN json_each(r.x) AS e) AS d ON d.i = l.i
ORDER BY l.i;
UPDATE _ntp_view_plan SET cache_ord = cache_ord + 1
WHERE cache_ord >= (SELECT cache_ord FROM _ntp_view_plan
                    WHERE name = 'ntp_report_component_stats');
INSERT INTO _ntp_view_plan
SELECT '_ntp_component_dist', cache_ord - 1, cache_when, 1
FROM _ntp_view_plan WHERE name = 'ntp_report_component_stats';
INSERT INTO _ntp_native_only VALUES ('_ntp_component_dist');

DROP VIEW ntp_report_component_stats;
CREATE TEMP VIEW ntp_report_component_stats AS
WITH v AS MATERIALIZED (
  SELECT d.hdb, d.grp, k.component, json_extract(d.dc, '$[0][' || k.idx || ']') AS a
  FROM _ntp_component_dist AS d
  JOIN _ntp_native_arg AS k ON k.mode = d.mode
)
SELECT
  hdb,                                                -- host database
  grp,                                                -- grp.id there
  component,                                          -- component.name
  json_extract(a, '$[0]') AS n,                       -- commands it is over
  json_extract(a, '$[1]') AS sum_ns,                  -- total ns
  json_extract(a, '$[1]') * 1.0 / json_extract(a, '$[0]') AS mean_ns, -- mean ns
  json_extract(a, '$[2]') AS p50_ns,                  -- median
  json_extract(a, '$[3]') AS p99_ns,                  -- 99th percentile
  json_extract(a, '$[4]') AS p999_ns                  -- 99.9th percentile
FROM v
WHERE json_extract(a, '$[0]') > 0;

-- ntp_compare_stage of compare.sql again, without a sort of the values.
-- The same rows as the portable view (tests compare them): the values of
-- ntp_command that _ntp_report_cmd_value gives, a group's commands of its
-- report mode (so h_wait, which a matched command has too, only in host
-- mode), the mean sum / n, the variance from the sum of the squares, the
-- intervals of the median and p99 at the ranks of compare.sql's rule
-- (lib/native.c). A run's operation and size that is one group of the
-- report (one device) takes them from the report's own scans of the group
-- (_ntp_stage_dist, _ntp_component_dist: ntp_dist_cdf's fifth array holds
-- the sums of squares and the intervals), so a compare costs no scan of
-- its own; one over several devices from one scan of their commands
-- together through ntp_dist_ci() (the devices' percentiles do not combine).
-- Its cache is then this view's rows (ntp_session_cache): compare.sql's
-- builder is for the portable view.
DELETE FROM _ntp_cache_build WHERE name = 'ntp_compare_stage';
DROP VIEW ntp_compare_stage;
CREATE TEMP VIEW ntp_compare_stage AS
WITH gk AS MATERIALIZED (
  -- the compared groups, each with how many of its run share its operation and size
  SELECT g.*, count(*) OVER (PARTITION BY run, op, bytes) AS peers
  FROM _ntp_compare_group AS g
), d AS MATERIALIZED (
  -- those of several groups: one scan of their commands (the groups the
  -- outer loop, CROSS JOIN: none, no scan)
  SELECT g_run AS run, g_op AS op, g_bytes AS bytes,
    -- the stages and end to end; the components (a host's own only in host mode)
    ntp_dist_ci(
--@ SELECT wrap(name, -92, '      ', ', ') || ', e2e) AS ds,' FROM gen_list WHERE list = 'stage'
    ntp_dist_ci(
--@ SELECT wrap(CASE WHEN n.in_joined THEN l.name
--@               ELSE 'CASE WHEN mode = ''host'' THEN ' || l.name || ' END' END, -92, '      ', ', ')
--@   || ') AS dc'
--@ FROM gen_list AS l JOIN gen_in AS n ON n.name = l.name WHERE l.list = 'sum'
  FROM (
    -- ntp_command's values, from the join for a joined group's matched
    -- commands and from the host's for a host group's (which has no match:
    -- ntp_report_group), as ntp_report_stage_stats below: not ntp_command,
    -- whose look-up of each matched command's target record is slow
    SELECT g.run AS g_run, g.op AS g_op, g.bytes AS g_bytes, 'joined' AS mode,
--@ SELECT wrap(ifnull(replace(joined_expr, '$', 'j.'), 'NULL') || ' AS ' || name, -92, '      ', ', ')
--@   || ', j.e2e AS e2e,'
--@ FROM gen_stage
      -- the components
--@ SELECT wrap(CASE WHEN n.in_joined THEN 'j.' || l.name ELSE 'NULL' END || ' AS ' || l.name,
--@   -92, '      ', ', ')
--@ FROM gen_list AS l JOIN gen_in AS n ON n.name = l.name WHERE l.list = 'sum'
    FROM gk AS g
    CROSS JOIN ntp_joined AS j ON +j.hdb = g.hdb AND +j.grp = g.grp
    WHERE g.peers > 1 AND g.mode = 'joined'
      AND (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok)
    UNION ALL
    SELECT g.run, g.op, g.bytes, 'host',
--@ SELECT wrap(ifnull(replace(host_expr, '$', 'c.'), 'NULL'), -92, '      ', ', ') || ', c.e2e,'
--@ FROM gen_stage
      -- the components
--@ SELECT wrap(CASE WHEN n.in_host THEN 'c.' || l.name ELSE 'NULL' END, -92, '      ', ', ')
--@ FROM gen_list AS l JOIN gen_in AS n ON n.name = l.name WHERE l.list = 'sum'
    FROM gk AS g
    CROSS JOIN ntp_host_cmd AS c ON +c.db = g.hdb AND +c.grp = g.grp
    WHERE g.peers > 1 AND g.mode = 'host')
  GROUP BY g_run, g_op, g_bytes
), k(stage, idx, item) AS (
  -- where each is in ds (stage 1) and dc (0)
  VALUES
--@ SELECT wrap(item, -92, '    ', ', ') || ','
--@ FROM (SELECT '(1, ' || (i - 1) || ', ''' || name || ''')' AS item
--@       FROM gen_list WHERE list = 'stage'
--@       UNION ALL
--@       SELECT '(1, ' || count(*) || ', ''e2e'')' FROM gen_list WHERE list = 'stage')
    -- the components
--@ SELECT wrap('(0, ' || (i - 1) || ', ''' || name || ''')', -92, '    ', ', ')
--@ FROM gen_list WHERE list = 'sum'
), f AS (
  -- those of one group: its entries of the report's scans, the statistics
  -- (a) and the sum of squares and intervals (c), of its stages and then
  -- of its components and end to end
  SELECT g.run, g.op, g.bytes, 'stage' AS kind, k.stage AS item,
    json_extract(x.dc, '$[0][' || k.idx || ']') AS a,
    json_extract(x.dc, '$[4][' || k.idx || ']') AS c
  FROM gk AS g
  JOIN _ntp_stage_dist AS x ON x.hdb = g.hdb AND x.grp = g.grp
  CROSS JOIN _ntp_native_stage_arg AS k
  WHERE g.peers = 1
  UNION ALL
  SELECT g.run, g.op, g.bytes, CASE WHEN o.total THEN 'total' ELSE 'component' END,
    k.component,
    json_extract(x.dc, '$[0][' || k.idx || ']'),
    json_extract(x.dc, '$[4][' || k.idx || ']')
  FROM gk AS g
  JOIN _ntp_component_dist AS x ON x.hdb = g.hdb AND x.grp = g.grp
  JOIN _ntp_native_arg AS k ON k.mode = x.mode
  JOIN component AS o ON o.name = k.component
  WHERE g.peers = 1
), v AS (
  SELECT m.*, json_extract(a, '$[9]') AS sq,
    json_extract(a, '$[5]') AS lo50, json_extract(a, '$[6]') AS hi50,
    json_extract(a, '$[7]') AS lo99, json_extract(a, '$[8]') AS hi99
  FROM (SELECT m.*,
          json_extract(CASE k.stage WHEN 1 THEN d.ds ELSE d.dc END, '$[' || k.idx || ']') AS a
        FROM _ntp_compare_label AS m
        JOIN d ON d.run = m.run AND d.op IS m.op AND d.bytes IS m.bytes
        JOIN k ON k.item = m.item) AS m
  UNION ALL
  SELECT m.*, f.a, json_extract(f.c, '$[0]'),
    json_extract(f.c, '$[1]'), json_extract(f.c, '$[2]'),
    json_extract(f.c, '$[3]'), json_extract(f.c, '$[4]')
  FROM _ntp_compare_label AS m
  JOIN f ON f.run = m.run AND f.op IS m.op AND f.bytes IS m.bytes AND f.kind = m.kind
    AND f.item = m.item
), s AS (
  SELECT v.*, json_extract(a, '$[0]') AS n, json_extract(a, '$[1]') AS sum_ns FROM v
)
SELECT
  run, run_ord, op, bytes, name, kind, item, ord, label, -- as in compare.sql
  n,                                                     -- commands
  sum_ns * 1.0 / n AS mean_ns,                           -- mean ns
  (sq - sum_ns * 1.0 * sum_ns / n) / (n - 1) AS var_ns2, -- sample variance, ns^2
  json_extract(a, '$[2]') AS p50_ns,                     -- median
  lo50 AS p50_lo_ns,                                     -- its 95 % interval
  hi50 AS p50_hi_ns,
  json_extract(a, '$[3]') AS p99_ns,                     -- 99th
  lo99 AS p99_lo_ns,                                     -- its 95 % interval
  hi99 AS p99_hi_ns
FROM s
WHERE n > 0
ORDER BY run_ord, op, bytes, ord;

-- The stages, in the order of the arguments of _ntp_stage_dist's
-- aggregate: its place from 0 and stage.name.
CREATE TEMP VIEW _ntp_native_stage_arg(idx, stage) AS
VALUES
--@ SELECT wrap('(' || (i - 1) || ', ''' || name || ''')', -92, '  ', ', ')
--@ FROM gen_list WHERE list = 'stage'
;

-- Per group of the report, its commands (the join's or the host's own,
-- as _ntp_component_dist, in as many scans; not ntp_command, whose
-- look-up of each matched command's target record is slow) through
-- ntp_dist_cdf() of its stages, in _ntp_native_stage_arg's order: the
-- statistics of
-- ntp_report_stage_stats below and the stages' histograms and CDF points
-- further down. The stages are ntp_command's sums, here over the join's
-- and the host's columns (NULL: not in the group's report). Cached before
-- the statistics, so a prepared run holds the histograms and CDF points too
-- (IF NOT EXISTS: as _ntp_component_dist's).
CREATE TEMP VIEW IF NOT EXISTS _ntp_stage_dist AS
WITH s AS MATERIALIZED (
  -- the lists, a table: read by each scan's every row, a view's would cost
  -- a fifth of a scan more
  SELECT * FROM _ntp_native_group_list
), r AS MATERIALIZED (
  -- one scan of each kind of command, as _ntp_component_dist's (the joined
  -- ones from the join's tap the same way)
  SELECT coalesce(
    CASE WHEN (SELECT min(all_ok) FROM _ntp_grp_join_ok) THEN ntp_tap_take(s.list, 1) END,
    (SELECT ntp_dist_cdf_by(s.list, j.hdb, j.grp,
--@ SELECT wrap(ifnull(replace(joined_expr, '$', ''), 'NULL'), -92, '      ', ', ') || ')'
--@ FROM gen_stage
     FROM ntp_joined AS j
     WHERE (s.hdb IS NULL OR +j.hdb = s.hdb)
       AND ((SELECT min(all_ok) FROM _ntp_grp_join_ok)
            OR (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok)))) AS x
  FROM s
  WHERE s.mode = 'joined'
  UNION ALL
  SELECT (
    SELECT ntp_dist_cdf_by(s.list, c.db, c.grp,
--@ SELECT wrap(ifnull(replace(host_expr, '$', ''), 'NULL'), -92, '      ', ', ') || ')'
--@ FROM gen_stage
    FROM ntp_host_cmd AS c
    WHERE s.hdb IS NULL OR +c.db = s.hdb)
  FROM s
  WHERE s.mode = 'host'
)
SELECT
  l.hdb AS hdb,                -- host database
  l.grp AS grp,                -- grp.id there
  d.dc AS dc                   -- ntp_dist_cdf's four arrays
FROM _ntp_native_group AS l
LEFT JOIN (SELECT json_extract(e.value, '$[0]') AS i, json_extract(e.value, '$[1]') AS dc
           FROM r CROSS JOIN json_each(r.x) AS e) AS d ON d.i = l.i
ORDER BY l.i;
UPDATE _ntp_view_plan SET cache_ord = cache_ord + 1
WHERE cache_ord >= (SELECT cache_ord FROM _ntp_view_plan
                    WHERE name = 'ntp_report_stage_stats');
INSERT INTO _ntp_view_plan
SELECT '_ntp_stage_dist', cache_ord - 1, cache_when, 1
FROM _ntp_view_plan WHERE name = 'ntp_report_stage_stats';
INSERT INTO _ntp_view_plan VALUES ('_ntp_native_stage_arg', NULL, 0, 0);
INSERT INTO _ntp_native_only VALUES ('_ntp_stage_dist');

-- ntp_report_stage_stats of stats.sql again, over _ntp_stage_dist: no
-- sort of the values. The same rows as the portable view (tests compare
-- them). Its cache is then this view's rows (ntp_session_cache):
-- stats.sql's builder is for the portable view.
DELETE FROM _ntp_cache_build WHERE name = 'ntp_report_stage_stats';
DROP VIEW ntp_report_stage_stats;
CREATE TEMP VIEW ntp_report_stage_stats AS
WITH v AS (
  SELECT d.hdb, d.grp, k.stage, json_extract(d.dc, '$[0][' || k.idx || ']') AS a
  FROM _ntp_stage_dist AS d
  CROSS JOIN _ntp_native_stage_arg AS k
)
SELECT
  v.hdb AS hdb,                                       -- host database
  v.grp AS grp,                                       -- grp.id there
  s.ord AS ord,                                       -- stage order
  v.stage AS stage,                                   -- stage.name
  s.label AS label,                                   -- as the report prints it
  json_extract(v.a, '$[0]') AS n,                     -- commands
  json_extract(v.a, '$[1]') AS sum_ns,                -- total ns
  json_extract(v.a, '$[1]') * 1.0 / json_extract(v.a, '$[0]') AS mean_ns, -- mean ns
  json_extract(v.a, '$[2]') AS p50_ns,                -- median
  json_extract(v.a, '$[5]') AS p90_ns,                -- 90th
  json_extract(v.a, '$[3]') AS p99_ns,                -- 99th
  json_extract(v.a, '$[4]') AS p999_ns                -- 99.9th
FROM v
JOIN ntp_report_stage AS s ON s.hdb = v.hdb AND s.grp = v.grp AND s.stage = v.stage
WHERE json_extract(v.a, '$[0]') > 0
ORDER BY v.hdb, v.grp, s.ord;

-- Per distribution of the report (group and component, group and stage of
-- ntp_report_stage), what the scans of _ntp_component_dist and
-- _ntp_stage_dist found of its shape: its CDF points and its histogram's
-- counts (ntp_dist_cdf's third and fourth arrays, lib/native.c).
CREATE TEMP VIEW _ntp_native_shape AS
SELECT d.hdb AS hdb, d.grp AS grp, 'component' AS kind, k.component AS name,
  json_extract(d.dc, '$[2][' || k.idx || ']') AS points, -- [total, [ns, n, cum], ...]
  json_extract(d.dc, '$[3][' || k.idx || ']') AS hist    -- [[k, count], ...]
FROM _ntp_component_dist AS d
JOIN _ntp_native_arg AS k ON k.mode = d.mode
UNION ALL
SELECT d.hdb, d.grp, 'stage', k.stage,
  json_extract(d.dc, '$[2][' || k.idx || ']'),
  json_extract(d.dc, '$[3][' || k.idx || ']')
FROM _ntp_stage_dist AS d
CROSS JOIN _ntp_native_stage_arg AS k
JOIN ntp_report_stage AS s ON s.hdb = d.hdb AND s.grp = d.grp AND s.stage = k.stage;
INSERT INTO _ntp_view_plan VALUES ('_ntp_native_shape', NULL, 0, 1);

-- _ntp_report_hist_count and _ntp_report_cdf_point of stats.sql again, from
-- _ntp_native_shape: no value read again, no sort. The same rows as the
-- portable views (tests compare them). ntp_report_hist over the counts and
-- the CDF points are cached with the prepared run (plain sqlite3 reads them
-- there: the portable views read every command's every value).
DROP VIEW _ntp_report_hist_count;
CREATE TEMP VIEW _ntp_report_hist_count AS
SELECT s.hdb, s.grp, s.kind, s.name,
  json_extract(h.value, '$[0]') AS k,
  json_extract(h.value, '$[1]') AS n
FROM _ntp_native_shape AS s
JOIN json_each(s.hist) AS h;

DROP VIEW _ntp_report_cdf_point;
CREATE TEMP VIEW _ntp_report_cdf_point AS
SELECT s.hdb, s.grp, s.kind, s.name,
  json_extract(p.value, '$[0]') AS ns,
  json_extract(p.value, '$[1]') AS n,
  json_extract(p.value, '$[2]') AS cum,
  json_extract(s.points, '$[0]') AS total,
  json_extract(p.value, '$[2]') * 1.0 / json_extract(s.points, '$[0]') AS fraction
FROM _ntp_native_shape AS s
JOIN json_each(s.points) AS p ON p.key > 0
ORDER BY s.hdb, s.grp, s.kind, s.name, ns;
UPDATE _ntp_view_plan SET cache_ord = (SELECT max(cache_ord) + 1 FROM _ntp_view_plan)
WHERE name = 'ntp_report_hist';
UPDATE _ntp_view_plan SET cache_ord = (SELECT max(cache_ord) + 1 FROM _ntp_view_plan)
WHERE name = '_ntp_report_cdf_point';
INSERT INTO _ntp_native_only VALUES ('ntp_report_hist'), ('_ntp_report_cdf_point');

-- _ntp_tail_band of stats.sql again, without its sort: per group the end
-- to end's exact p50, p90, p99 and p99.9 from the scan of its commands
-- that computed its components' statistics (_ntp_component_dist: the
-- join's, of the joins ntp_join_check accepts, or the host's own), then
-- one more scan of each kind of command banding every command of every
-- group by its group's (ntp_bands_by, ntp_bands per group, lib/native.c:
-- ranked by end to end, equal ones by host cmd.t, as the portable view
-- ranks them). The view's windows sort every command with all its
-- components. The same rows as the portable view (tests compare them).
DROP VIEW _ntp_tail_band;
CREATE TEMP VIEW _ntp_tail_band AS
WITH p AS MATERIALIZED (
  -- ntp_dist's [n, sum, p50, p99, p999, p90] of the end to end
  SELECT d.hdb, d.grp, d.mode, json_extract(d.dc, '$[0][' || a.idx || ']') AS dist
  FROM _ntp_component_dist AS d
  JOIN _ntp_native_arg AS a ON a.mode = d.mode AND a.component = 'e2e'
), k AS MATERIALIZED (
  -- numbered: each group's place in ntp_bands_by's list and result
  SELECT row_number() OVER () - 1 AS i, hdb, grp, mode, json_extract(dist, '$[0]') AS n,
    json_extract(dist, '$[2]') AS v50, json_extract(dist, '$[5]') AS v90,
    json_extract(dist, '$[3]') AS v99, json_extract(dist, '$[4]') AS v999
  FROM p
  WHERE json_extract(dist, '$[0]') > 0
), s AS MATERIALIZED (
  -- per mode, its groups as ntp_bands_by lists them, with their counts
  -- and cut values
  SELECT mode, group_concat(i || ' ' || hex(hdb) || ' ' || grp || ' ' || n || ' ' || v50
                            || ' ' || v90 || ' ' || v99 || ' ' || v999, ';') AS list
  FROM k
  GROUP BY mode
), r AS MATERIALIZED (
  -- one more scan of each kind of command, as _ntp_component_dist's
  -- (every join accepted, the join's tap banded them without a scan)
  SELECT coalesce(
    CASE WHEN (SELECT min(all_ok) FROM _ntp_grp_join_ok) THEN ntp_tap_bands(s.list) END,
    (SELECT ntp_bands_by(s.list, j.hdb, j.grp, j.e2e, j.ht,
--@ SELECT wrap(CASE WHEN n.in_joined THEN 'j.' || l.name ELSE 'NULL' END, -92, '        ', ', ')
--@   || ')'
--@ FROM gen_list AS l JOIN gen_in AS n ON n.name = l.name WHERE l.list = 'sum'
     FROM ntp_joined AS j
     WHERE (SELECT min(all_ok) FROM _ntp_grp_join_ok)
       OR (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok))) AS x
  FROM s
  WHERE s.mode = 'joined'
  UNION ALL
  SELECT (
    SELECT ntp_bands_by(s.list, c.db, c.grp, c.e2e, c.t,
--@ SELECT wrap(CASE WHEN n.in_host THEN 'c.' || l.name ELSE 'NULL' END, -92, '        ', ', ')
--@   || ')'
--@ FROM gen_list AS l JOIN gen_in AS n ON n.name = l.name WHERE l.list = 'sum'
    FROM ntp_host_cmd AS c)
  FROM s
  WHERE s.mode = 'host'
), b AS MATERIALIZED (
  -- each group's bands, in k's order
  SELECT k.hdb, k.grp, d.bands
  FROM k
  JOIN (SELECT json_extract(e.value, '$[0]') AS i, json_extract(e.value, '$[1]') AS bands
        FROM r CROSS JOIN json_each(r.x) AS e) AS d ON d.i = k.i
  ORDER BY k.i
)
-- ntp_bands' [band, n, min, max, sum, then the sums in the order above]
SELECT b.hdb AS hdb, b.grp AS grp,
  json_extract(e.value, '$[0]') AS band_ord,
  json_extract(e.value, '$[1]') AS n,
  json_extract(e.value, '$[2]') AS e2e_min_ns,
  json_extract(e.value, '$[3]') AS e2e_max_ns,
  json_extract(e.value, '$[4]') AS sum_e2e,
--@ SELECT wrap('json_extract(e.value, ''$[' || (i + 4) || ']'') AS s_' || name, 1, '  ', ', ')
--@ FROM gen_list WHERE list = 'sum'
FROM b
CROSS JOIN json_each(b.bands) AS e;

-- _ntp_plot_cdf_line of plot.sql again, with the lines ntp_dist_cdf()
-- selected in _ntp_component_dist's scan of each group's commands (those
-- ntp_report_component_stats is over: a selection of the points drawn per
-- component), instead of ranking every value of every component and stage
-- with window functions. The same rows as the portable view (tests compare
-- them).
DROP VIEW _ntp_plot_cdf_line;
CREATE TEMP VIEW _ntp_plot_cdf_line AS
WITH d AS MATERIALIZED (
  -- the group's lines, as the report's cached statistics read its commands
  SELECT g.n, g.hdb, g.grp, g.mode, json_extract(c.dc, '$[1]') AS cdf
  FROM ntp_plot_group AS g
  JOIN _ntp_component_dist AS c ON c.hdb = g.hdb AND c.grp = g.grp
), l AS MATERIALIZED (
  -- each line the report has: [total, [ns, n, cum], ...]
  SELECT d.n, d.mode, k.component, json_extract(d.cdf, '$[' || k.idx || ']') AS line
  FROM d
  JOIN _ntp_native_arg AS k ON k.mode = d.mode
  JOIN ntp_report_components AS r ON r.hdb = d.hdb AND r.grp = d.grp
    AND r.component = k.component
)
SELECT
  l.n AS n,                    -- ntp_plot_group.n
  c.ord AS ord,                -- path order
  c.name AS component,         -- component.name
  c.label AS label,            -- its report label
  -- its stage in the group's report; 'e2e' for end to end
  CASE WHEN c.total THEN 'e2e'
       WHEN l.mode = 'joined' THEN c.stage_joined ELSE c.stage_local END AS stage,
  json_extract(p.value, '$[0]') / 1e3 AS us, -- the value, us
  -- share of the values at or below it
  json_extract(p.value, '$[2]') * 1.0 / json_extract(l.line, '$[0]') AS fraction,
  json_extract(l.line, '$[1][0]') / 1e3 AS min_us, -- the component's smallest value
  json_extract(l.line, '$[#-1][0]') / 1e3 AS max_us -- and largest
FROM l
JOIN component AS c ON c.name = l.component
JOIN json_each(l.line) AS p ON p.key > 0;

-- _ntp_series_agg of stats.sql again, with ntp_series(): per form,
-- recording and group one scan of its commands, bucketed without sorting
-- them, instead of a GROUP BY and a window over every command of every
-- form. The same rows as the portable view (tests compare them).
DROP VIEW _ntp_series_agg;
CREATE TEMP VIEW _ntp_series_agg AS
WITH a AS (
  -- per form, recording and group: [[bucket, n, e2e sum, p99, sums...], ...]
  SELECT 'host' AS form, o.db AS db, o.grp AS grp,
    (SELECT ntp_series((h.t - o.first_t) / w.width_ns, h.e2e,
--@ SELECT wrap(CASE WHEN n.in_host THEN 'h.' || l.name ELSE 'NULL' END, -92, '       ', ', ')
--@   || ')'
--@ FROM gen_list AS l JOIN gen_in AS n ON n.name = l.name WHERE l.list = 'part'
     FROM ntp_host_cmd AS h
     -- unary +: scan, do not build an automatic index per group
     WHERE +h.db = o.db AND +h.grp = o.grp) AS j
  FROM _ntp_series_grp AS o
  CROSS JOIN ntp_bucket AS w
  WHERE o.db IN (SELECT db FROM ntp_db WHERE role = 'host')
  UNION ALL
  SELECT 'target', o.db, o.grp,
    (SELECT ntp_series((x.t - o.first_t) / w.width_ns, x.t_e2e,
--@ SELECT wrap(CASE WHEN n.in_target THEN 'x.' || l.name ELSE 'NULL' END, -92, '       ', ', ')
--@   || ')'
--@ FROM gen_list AS l JOIN gen_in AS n ON n.name = l.name WHERE l.list = 'part'
     FROM ntp_target_cmd AS x
     WHERE +x.db = o.db AND +x.grp = o.grp)
  FROM _ntp_series_grp AS o
  CROSS JOIN ntp_bucket AS w
  WHERE o.db IN (SELECT db FROM ntp_db WHERE role = 'target')
  UNION ALL
  SELECT 'joined', o.db, o.grp,
    (SELECT ntp_series((j.ht - o.first_t) / w.width_ns, j.e2e,
--@ SELECT wrap(CASE WHEN n.in_joined THEN 'j.' || l.name ELSE 'NULL' END, -92, '       ', ', ')
--@   || ')'
--@ FROM gen_list AS l JOIN gen_in AS n ON n.name = l.name WHERE l.list = 'part'
     FROM ntp_joined AS j
     WHERE +j.hdb = o.db AND +j.grp = o.grp
       AND (jo.all_ok OR (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok)))
  FROM _ntp_series_grp AS o
  CROSS JOIN ntp_bucket AS w
  LEFT JOIN _ntp_grp_join_ok AS jo ON jo.hdb = o.db AND jo.grp = o.grp
  WHERE o.db IN (SELECT hdb FROM _ntp_join_ok)
)
SELECT
  a.form, a.db, a.grp,
  json_extract(e.value, '$[0]') AS bucket,
  json_extract(e.value, '$[1]') AS n,
  json_extract(e.value, '$[2]') AS sum_e2e,
  json_extract(e.value, '$[3]') AS p99_ns,
--@ SELECT wrap('json_extract(e.value, ''$[' || (i + 3) || ']'') AS s_' || name, 1, '  ', ', ')
--@ FROM gen_list WHERE list = 'part'
FROM a
JOIN json_each(a.j) AS e;

-- Each recording attached with a schema of its own (not one of a merged
-- file's, which ntp_run lists too), and the query of its commands as
-- stored that ntp_e2e_series reads (lib/pair.c; ntp_pair's HOST and
-- TARGET): t, grp, qid, cid, slba, meta's mono_start, then the points
-- in ABI order, ?1 the least t.
CREATE TEMP VIEW _ntp_cmd_query AS
SELECT
  r.db AS db,                  -- the recording's schema
  d.role AS role,              -- host or target
  CASE d.role WHEN 'host' THEN printf('SELECT c.t, c.grp, c.qid, c.cid, c.slba, m.mono_start,
--@ SELECT wrap('c.' || name, -92, '     ', ', ') FROM (SELECT name FROM point WHERE role = 'host' ORDER BY ord)
   FROM "%w".cmd AS c, "%w".meta AS m WHERE c.t >= ?1', r.db, r.db)
  ELSE printf('SELECT c.t, c.grp, c.qid, c.cid, c.slba, m.mono_start,
--@ SELECT wrap('c.' || name, -92, '     ', ', ') FROM (SELECT name FROM point WHERE role = 'target' ORDER BY ord)
   FROM "%w".cmd AS c, "%w".meta AS m WHERE c.t >= ?1', r.db, r.db) END AS sql -- the query
FROM ntp_run AS r
JOIN ntp_db AS d ON d.db = r.db
WHERE r.db IN (SELECT name FROM pragma_database_list);

-- _ntp_series_e2e of stats.sql again, of the end to end alone: the arms
-- of _ntp_series_agg above without the components, whose values are most
-- of a scan's cost; a host's and a target's by ntp_e2e_series, from the
-- recording's pages, a merged file's recordings' (and the joined form) by
-- ntp_series. The same rows as the portable view (tests compare them).
-- The commands' end to end (_ntp_host_e2e and _ntp_target_e2e, cached
-- last) is prepared for the sessions that ask for it (cache_when 3 and 4,
-- join.sql): plain sqlite3's set-up, whose portable views read it; none of
-- ntprof's own questions does.
UPDATE _ntp_view_plan SET cache_ord = (SELECT max(cache_ord) + 1 FROM _ntp_view_plan),
  cache_when = 3
WHERE name = '_ntp_host_e2e';
UPDATE _ntp_view_plan SET cache_ord = (SELECT max(cache_ord) + 1 FROM _ntp_view_plan),
  cache_when = 4 -- only with a target open
WHERE name = '_ntp_target_e2e';
INSERT INTO _ntp_native_only VALUES ('_ntp_host_e2e'), ('_ntp_target_e2e');
-- its table's index, in the order of ntp_shell_slowest (shell.sql) and
-- .slowest: their first commands are read off it, without a sort
INSERT INTO _ntp_cache_index VALUES ('_ntp_host_e2e', 'e2e DESC, db, t');
-- both keyed by recording and cmd.t (unique there): the portable
-- _ntp_series_e2e (stats.sql), which plain sqlite3 runs over a prepared
-- run, seeks each bucket's commands instead of sorting every command
INSERT INTO _ntp_cache_ddl VALUES
  ('_ntp_host_e2e', '(db, grp INT, t INT, e2e, PRIMARY KEY (db, t)) WITHOUT ROWID'),
  ('_ntp_target_e2e', '(db, grp INT, t INT, e2e, PRIMARY KEY (db, t)) WITHOUT ROWID');
DROP VIEW _ntp_series_e2e;
CREATE TEMP VIEW _ntp_series_e2e AS
WITH a AS (
  -- per form, recording and group: [[bucket, n, e2e sum, p99], ...]
  -- a recording of its own read by ntp_e2e_series, a merged file's
  -- through ntp_series
  SELECT 'host' AS form, o.db AS db, o.grp AS grp,
    CASE WHEN q.sql IS NOT NULL
      THEN ntp_e2e_series(q.sql, 0, o.first_t, w.width_ns, o.grp)
      ELSE (SELECT ntp_series((h.t - o.first_t) / w.width_ns, h.e2e)
            FROM _ntp_host_e2e AS h
            WHERE +h.db = o.db AND +h.grp = o.grp) END AS j
  FROM _ntp_series_grp AS o
  CROSS JOIN ntp_bucket AS w
  LEFT JOIN _ntp_cmd_query AS q ON q.db = o.db
  WHERE o.db IN (SELECT db FROM ntp_db WHERE role = 'host')
  UNION ALL
  SELECT 'target', o.db, o.grp,
    CASE WHEN q.sql IS NOT NULL
      THEN ntp_e2e_series(q.sql, 1, o.first_t, w.width_ns, o.grp)
      ELSE (SELECT ntp_series((x.t - o.first_t) / w.width_ns, x.e2e)
            FROM _ntp_target_e2e AS x
            WHERE +x.db = o.db AND +x.grp = o.grp) END
  FROM _ntp_series_grp AS o
  CROSS JOIN ntp_bucket AS w
  LEFT JOIN _ntp_cmd_query AS q ON q.db = o.db
  WHERE o.db IN (SELECT db FROM ntp_db WHERE role = 'target')
  UNION ALL
  SELECT 'joined', o.db, o.grp,
    (SELECT ntp_series((j.ht - o.first_t) / w.width_ns, j.e2e)
     FROM ntp_joined AS j
     WHERE +j.hdb = o.db AND +j.grp = o.grp
       AND (jo.all_ok OR (j.hdb, j.tdb) IN (SELECT hdb, tdb FROM _ntp_join_ok)))
  FROM _ntp_series_grp AS o
  CROSS JOIN ntp_bucket AS w
  LEFT JOIN _ntp_grp_join_ok AS jo ON jo.hdb = o.db AND jo.grp = o.grp
  WHERE o.db IN (SELECT hdb FROM _ntp_join_ok)
)
SELECT
  a.form, a.db, a.grp,
  json_extract(e.value, '$[0]') AS bucket,
  json_extract(e.value, '$[1]') AS n,
  json_extract(e.value, '$[2]') AS sum_e2e,
  json_extract(e.value, '$[3]') AS p99_ns
FROM a
JOIN json_each(a.j) AS e;

-- _ntp_joined_count of join.sql again, with ntp_tally(): one scan of the
-- join, no sort (a GROUP BY sorts every matched command), or none: the
-- join's tap counted them (below). The same rows as the portable view
-- (tests compare them).
DROP VIEW _ntp_joined_count;
CREATE TEMP VIEW _ntp_joined_count AS
SELECT
  json_extract(e.value, '$[0]') AS hdb,
  json_extract(e.value, '$[1]') AS grp,
  json_extract(e.value, '$[2]') AS tdb,
  json_extract(e.value, '$[3]') AS n
FROM (SELECT coalesce(ntp_tap_tally(),
                      (SELECT ntp_tally(hdb, grp, tdb) FROM ntp_joined)) AS t) AS a
JOIN json_each(a.t) AS e;

-- The join's tap (lib/native.c, ntp_tap_arm): while the preparation
-- writes ntp_joined's table, ntp_pair's rows (the native arm of
-- prelude.sql) give their values to the aggregates that _ntp_joined_count,
-- _ntp_component_dist, _ntp_stage_dist and _ntp_tail_band would compute
-- in four scans of the table. Armed before the table's step with the
-- lists of those views' arguments (the components; each stage's
-- components, '?' where a missing one counts 0, gen_stage's rule; the end
-- to end and the values the bands sum, '-' for a NULL), disarmed after
-- it, emptied after the last view that reads it (ntp_joined then reads
-- the table). Only a
-- table written whole by ntp_pair's scans, each to its end, with no
-- value overflowed, is read from the tap (its every row: a merged file's
-- arm of ntp_joined reads the file's tables, not ntp_pair);
-- otherwise, and where a join was refused, the views scan the table as
-- before (tests compare the two).
INSERT INTO _ntp_prepare_wrap VALUES
  ('ntp_joined',
--@ SELECT '   ''SELECT ntp_tap_arm(''''' || c || ''''', ''''' || st || ''''','
--@   || char(10) || '                     ''''' || b || ''''');'','
--@ FROM (SELECT
--@   (SELECT group_concat(name, ' ') FROM (SELECT name FROM gen_list WHERE list = 'joined'
--@                                         ORDER BY i)) AS c,
--@   (SELECT group_concat(terms, ';') FROM (
--@      SELECT (SELECT ifnull(group_concat(name || CASE WHEN optional THEN '?' ELSE '' END, ' '), '')
--@              FROM (SELECT c.name, c.optional FROM component AS c
--@                    WHERE c.stage_joined = l.name ORDER BY c.ord)) AS terms
--@      FROM gen_list AS l WHERE l.list = 'stage' ORDER BY l.i)) AS st,
--@   (SELECT 'e2e ' || group_concat(x, ' ') FROM (
--@      SELECT CASE WHEN n.in_joined THEN l.name ELSE '-' END AS x
--@      FROM gen_list AS l JOIN gen_in AS n ON n.name = l.name
--@      WHERE l.list = 'sum' ORDER BY l.i)) AS b)
   'SELECT ntp_tap_disarm((SELECT count(*) FROM ntp_joined));'),
  ('_ntp_tail_band', '', 'SELECT ntp_tap_reset();');
