-- ntprof native: ntp_report_component of report.sql again, computed with the
-- native aggregate ntp_quantiles(x) (shell/native.c; for sqlite3, `.load` the
-- installed ntprof_sqlite.so, then `.read` this file). Same columns and the
-- same numbers as the portable view (tests/test_report.c compares them), but
-- one scan per group set instead of a sort per component.
-- ntp_quantiles(x) returns the JSON array [p50, p99, p999] of x's non-NULL
-- values: exact nearest-rank, rank (n q' + 99999) / 100000 as in report.sql.

DROP VIEW ntp_report_component;
CREATE TEMP VIEW ntp_report_component AS
WITH j AS (
  SELECT hdb, grp,
    count(h_blk_sub) AS n0, sum(h_blk_sub) AS s0, avg(h_blk_sub) AS m0, ntp_quantiles(h_blk_sub) AS q0,
    count(h_drv_sub) AS n1, sum(h_drv_sub) AS s1, avg(h_drv_sub) AS m1, ntp_quantiles(h_drv_sub) AS q1,
    count(h_r2t) AS n2, sum(h_r2t) AS s2, avg(h_r2t) AS m2, ntp_quantiles(h_r2t) AS q2,
    count(wire) AS n3, sum(wire) AS s3, avg(wire) AS m3, ntp_quantiles(wire) AS q3,
    count(t_rx_path) AS n4, sum(t_rx_path) AS s4, avg(t_rx_path) AS m4, ntp_quantiles(t_rx_path) AS q4,
    count(t_drv_sub) AS n5, sum(t_drv_sub) AS s5, avg(t_drv_sub) AS m5, ntp_quantiles(t_drv_sub) AS q5,
    count(t_storage) AS n6, sum(t_storage) AS s6, avg(t_storage) AS m6, ntp_quantiles(t_storage) AS q6,
    count(t_drv_cpl) AS n7, sum(t_drv_cpl) AS s7, avg(t_drv_cpl) AS m7, ntp_quantiles(t_drv_cpl) AS q7,
    count(h_rx_path) AS n8, sum(h_rx_path) AS s8, avg(h_rx_path) AS m8, ntp_quantiles(h_rx_path) AS q8,
    count(h_drv_cpl) AS n9, sum(h_drv_cpl) AS s9, avg(h_drv_cpl) AS m9, ntp_quantiles(h_drv_cpl) AS q9,
    count(h_blk_cpl) AS n10, sum(h_blk_cpl) AS s10, avg(h_blk_cpl) AS m10, ntp_quantiles(h_blk_cpl) AS q10,
    count(h_handoff) AS n11, sum(h_handoff) AS s11, avg(h_handoff) AS m11, ntp_quantiles(h_handoff) AS q11,
    count(e2e) AS n12, sum(e2e) AS s12, avg(e2e) AS m12, ntp_quantiles(e2e) AS q12
  FROM ntp_joined
  GROUP BY hdb, grp
), h AS (
  SELECT db AS hdb, grp,
    count(h_blk_sub) AS n0, sum(h_blk_sub) AS s0, avg(h_blk_sub) AS m0, ntp_quantiles(h_blk_sub) AS q0,
    count(h_drv_sub) AS n1, sum(h_drv_sub) AS s1, avg(h_drv_sub) AS m1, ntp_quantiles(h_drv_sub) AS q1,
    count(h_r2t) AS n2, sum(h_r2t) AS s2, avg(h_r2t) AS m2, ntp_quantiles(h_r2t) AS q2,
    count(h_wait) AS n3, sum(h_wait) AS s3, avg(h_wait) AS m3, ntp_quantiles(h_wait) AS q3,
    count(h_rx_path) AS n4, sum(h_rx_path) AS s4, avg(h_rx_path) AS m4, ntp_quantiles(h_rx_path) AS q4,
    count(h_drv_cpl) AS n5, sum(h_drv_cpl) AS s5, avg(h_drv_cpl) AS m5, ntp_quantiles(h_drv_cpl) AS q5,
    count(h_blk_cpl) AS n6, sum(h_blk_cpl) AS s6, avg(h_blk_cpl) AS m6, ntp_quantiles(h_blk_cpl) AS q6,
    count(h_handoff) AS n7, sum(h_handoff) AS s7, avg(h_handoff) AS m7, ntp_quantiles(h_handoff) AS q7,
    count(e2e) AS n8, sum(e2e) AS s8, avg(e2e) AS m8, ntp_quantiles(e2e) AS q8
  FROM ntp_host_cmd
  WHERE (db, grp) IN (SELECT hdb, grp FROM ntp_report_group WHERE mode = 'host')
  GROUP BY db, grp
)
SELECT hdb, grp, 'h_blk_sub' AS component, n0 AS n, s0 AS sum_ns, m0 AS mean_ns,
  json_extract(q0, '$[0]') AS p50_ns, json_extract(q0, '$[1]') AS p99_ns,
  json_extract(q0, '$[2]') AS p999_ns FROM j WHERE n0 > 0
UNION ALL
SELECT hdb, grp, 'h_drv_sub', n1, s1, m1, json_extract(q1, '$[0]'), json_extract(q1, '$[1]'), json_extract(q1, '$[2]') FROM j WHERE n1 > 0
UNION ALL
SELECT hdb, grp, 'h_r2t', n2, s2, m2, json_extract(q2, '$[0]'), json_extract(q2, '$[1]'), json_extract(q2, '$[2]') FROM j WHERE n2 > 0
UNION ALL
SELECT hdb, grp, 'wire', n3, s3, m3, json_extract(q3, '$[0]'), json_extract(q3, '$[1]'), json_extract(q3, '$[2]') FROM j WHERE n3 > 0
UNION ALL
SELECT hdb, grp, 't_rx_path', n4, s4, m4, json_extract(q4, '$[0]'), json_extract(q4, '$[1]'), json_extract(q4, '$[2]') FROM j WHERE n4 > 0
UNION ALL
SELECT hdb, grp, 't_drv_sub', n5, s5, m5, json_extract(q5, '$[0]'), json_extract(q5, '$[1]'), json_extract(q5, '$[2]') FROM j WHERE n5 > 0
UNION ALL
SELECT hdb, grp, 't_storage', n6, s6, m6, json_extract(q6, '$[0]'), json_extract(q6, '$[1]'), json_extract(q6, '$[2]') FROM j WHERE n6 > 0
UNION ALL
SELECT hdb, grp, 't_drv_cpl', n7, s7, m7, json_extract(q7, '$[0]'), json_extract(q7, '$[1]'), json_extract(q7, '$[2]') FROM j WHERE n7 > 0
UNION ALL
SELECT hdb, grp, 'h_rx_path', n8, s8, m8, json_extract(q8, '$[0]'), json_extract(q8, '$[1]'), json_extract(q8, '$[2]') FROM j WHERE n8 > 0
UNION ALL
SELECT hdb, grp, 'h_drv_cpl', n9, s9, m9, json_extract(q9, '$[0]'), json_extract(q9, '$[1]'), json_extract(q9, '$[2]') FROM j WHERE n9 > 0
UNION ALL
SELECT hdb, grp, 'h_blk_cpl', n10, s10, m10, json_extract(q10, '$[0]'), json_extract(q10, '$[1]'), json_extract(q10, '$[2]') FROM j WHERE n10 > 0
UNION ALL
SELECT hdb, grp, 'h_handoff', n11, s11, m11, json_extract(q11, '$[0]'), json_extract(q11, '$[1]'), json_extract(q11, '$[2]') FROM j WHERE n11 > 0
UNION ALL
SELECT hdb, grp, 'e2e', n12, s12, m12, json_extract(q12, '$[0]'), json_extract(q12, '$[1]'), json_extract(q12, '$[2]') FROM j WHERE n12 > 0
UNION ALL
SELECT hdb, grp, 'h_blk_sub', n0, s0, m0, json_extract(q0, '$[0]'), json_extract(q0, '$[1]'), json_extract(q0, '$[2]') FROM h WHERE n0 > 0
UNION ALL
SELECT hdb, grp, 'h_drv_sub', n1, s1, m1, json_extract(q1, '$[0]'), json_extract(q1, '$[1]'), json_extract(q1, '$[2]') FROM h WHERE n1 > 0
UNION ALL
SELECT hdb, grp, 'h_r2t', n2, s2, m2, json_extract(q2, '$[0]'), json_extract(q2, '$[1]'), json_extract(q2, '$[2]') FROM h WHERE n2 > 0
UNION ALL
SELECT hdb, grp, 'h_wait', n3, s3, m3, json_extract(q3, '$[0]'), json_extract(q3, '$[1]'), json_extract(q3, '$[2]') FROM h WHERE n3 > 0
UNION ALL
SELECT hdb, grp, 'h_rx_path', n4, s4, m4, json_extract(q4, '$[0]'), json_extract(q4, '$[1]'), json_extract(q4, '$[2]') FROM h WHERE n4 > 0
UNION ALL
SELECT hdb, grp, 'h_drv_cpl', n5, s5, m5, json_extract(q5, '$[0]'), json_extract(q5, '$[1]'), json_extract(q5, '$[2]') FROM h WHERE n5 > 0
UNION ALL
SELECT hdb, grp, 'h_blk_cpl', n6, s6, m6, json_extract(q6, '$[0]'), json_extract(q6, '$[1]'), json_extract(q6, '$[2]') FROM h WHERE n6 > 0
UNION ALL
SELECT hdb, grp, 'h_handoff', n7, s7, m7, json_extract(q7, '$[0]'), json_extract(q7, '$[1]'), json_extract(q7, '$[2]') FROM h WHERE n7 > 0
UNION ALL
SELECT hdb, grp, 'e2e', n8, s8, m8, json_extract(q8, '$[0]'), json_extract(q8, '$[1]'), json_extract(q8, '$[2]') FROM h WHERE n8 > 0;
