-- ntprof-collect's live view: one row per group for the interval :interval
-- that has just ended. Not stored in recordings: the same numbers come from
-- the stored views (ntp_cmd_e2e, ntp_cmd_component, timeline) for any
-- interval afterwards, and this query gives the lines of any interval of a
-- recording (sqlite3 rec.ntp '.param set :interval 3' '.read live.sql').
-- The collector prints the same text from sums it keeps in memory as it
-- stores the commands (lib/live.c; tests/test_live.c compares the two),
-- and runs this query only where memory cannot give it exactly. It reads
-- the stages of each column from the col CTE below at build time
-- (sql/live_columns.sh): keep each column's stages in one CASE, ending
-- `AS name`.
--
-- Columns, as printed under the live header:
--   time     end of the interval, seconds since the recording started
--   grp      group name (read 4KiB spdk-c1n1)
--   n        sampled commands done in the interval
--   rate     commands per second (counted, else estimated from the samples
--            and the records lost in the interval, shared among the groups
--            in proportion to their commands as the report's ntp_grp_lost
--            shares them)
--   mean_us, p99_us   latency (p99: nearest rank)
--   blk, hdrv, net, tdrv, stor   each column's share of the summed latency;
--            empty for the other machine's columns. A host's network column
--            is the host receive path plus everything it did not see (the
--            network and the target), marked '*'; a target's is its receive
--            path plus the wait for write data.
WITH iv AS (
  SELECT id, start, stop FROM interval WHERE id = :interval
),
lat AS (
  SELECT e.grp, e.ns,
    row_number() OVER (PARTITION BY e.grp ORDER BY e.ns) AS rn,
    count(*) OVER (PARTITION BY e.grp) AS n
  FROM ntp_cmd_e2e AS e, iv
  WHERE e.t >= iv.start AND e.t < iv.stop
),
lat_g AS (
  SELECT grp, n, sum(ns) AS sum_ns,
    max(CASE WHEN rn = (n * 99000 + 99999) / 100000 THEN ns END) AS p99_ns
  FROM lat
  GROUP BY grp
),
col AS (
  SELECT c.grp,
    sum(CASE WHEN k.stage_local = 'host_block' THEN c.ns ELSE 0 END) AS blk,
    sum(CASE WHEN k.stage_local = 'host_driver' THEN c.ns ELSE 0 END) AS hdrv,
    sum(CASE WHEN k.stage_local IN ('host_rx', 'net_target', 'target_rx', 'data_wait')
      THEN c.ns ELSE 0 END) AS net,
    sum(CASE WHEN k.stage_local = 'target_driver' THEN c.ns ELSE 0 END) AS tdrv,
    sum(CASE WHEN k.stage_local = 'storage' THEN c.ns ELSE 0 END) AS stor
  FROM ntp_cmd_component AS c
  JOIN component AS k ON k.name = c.component AND k.total = 0
  CROSS JOIN iv
  WHERE c.t >= iv.start AND c.t < iv.stop
  GROUP BY c.grp
),
w AS (
  -- the interval's commands, counted or sampled x -s: what its losses are
  -- shared by
  SELECT sum(coalesce(ig.total, ig.sampled * m.sample_rate)) AS w
  FROM interval_grp AS ig, iv, meta AS m
  WHERE ig.interval = iv.id
),
pct AS (
  SELECT l.grp, l.n, l.sum_ns, l.p99_ns,
    printf('%d%%', CAST(round(100.0 * c.blk / l.sum_ns) AS INTEGER)) AS blk,
    printf('%d%%', CAST(round(100.0 * c.hdrv / l.sum_ns) AS INTEGER)) AS hdrv,
    printf('%d%%', CAST(round(100.0 * c.net / l.sum_ns) AS INTEGER)) AS net,
    printf('%d%%', CAST(round(100.0 * c.tdrv / l.sum_ns) AS INTEGER)) AS tdrv,
    printf('%d%%', CAST(round(100.0 * c.stor / l.sum_ns) AS INTEGER)) AS stor
  FROM lat_g AS l
  JOIN col AS c ON c.grp = l.grp
)
SELECT
  printf('%.1fs', iv.stop / 1e9) AS time,
  gi.name AS grp,
  p.n AS n,
  CASE WHEN r.rate >= 1000 THEN printf('%.1fk', r.rate / 1000)
    ELSE printf('%.0f', r.rate) END AS rate,
  printf('%.2f', p.sum_ns / 1e3 / p.n) AS mean_us,
  printf('%.2f', p.p99_ns / 1e3) AS p99_us,
  CASE m.role WHEN 'host' THEN p.blk ELSE '' END AS blk,
  CASE m.role WHEN 'host' THEN p.hdrv ELSE '' END AS hdrv,
  p.net || CASE m.role WHEN 'host' THEN '*' ELSE '' END AS net,
  CASE m.role WHEN 'target' THEN p.tdrv ELSE '' END AS tdrv,
  CASE m.role WHEN 'target' THEN p.stor ELSE '' END AS stor
FROM pct AS p
CROSS JOIN iv
CROSS JOIN meta AS m
JOIN ntp_grp_info AS gi ON gi.grp = p.grp
-- an estimated rate counts the group's share of the interval's losses
LEFT JOIN (SELECT tl.grp AS grp,
             CASE WHEN tl.total IS NULL AND w.w > 0
               THEN tl.rate * (1 + tl.lost * m.sample_rate * 1.0 / w.w) ELSE tl.rate END AS rate
           FROM ntp_timeline AS tl, iv, meta AS m, w
           WHERE tl.interval = iv.id) AS r ON r.grp = p.grp
ORDER BY gi.name, gi.grp;
